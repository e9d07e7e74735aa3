//! Short generated strings as one value tree each (not one tree per character): `len` characters
//! drawn from a few ranges, shrinking first to the shortest length, then character by character to
//! the first character of the first range.

use std::ops::RangeInclusive;
use std::sync::OnceLock;

use proptest::strategy::{NewTree, Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use rand::RngExt;

/// Characters of `ranges`, `len` of them.
#[derive(Clone, Debug)]
pub(crate) struct Chars {
    ranges: &'static [RangeInclusive<char>],
    len: RangeInclusive<usize>,
}

/// `len` characters of `ranges` (what the regex `[..]{lo,hi}` draws): a range chosen evenly, then
/// a character of it evenly.
pub(crate) fn chars(ranges: &'static [RangeInclusive<char>], len: RangeInclusive<usize>) -> Chars {
    assert!(!ranges.is_empty() && len.start() <= len.end(), "a non-empty alphabet and length range");
    Chars { ranges, len }
}

/// Printable characters (`\PC`: every character outside the Unicode "Other" categories).
pub(crate) fn printable_ranges() -> &'static [RangeInclusive<char>] {
    static PRINTABLE: OnceLock<Vec<RangeInclusive<char>>> = OnceLock::new();
    PRINTABLE.get_or_init(|| {
        let hir = regex_syntax::parse(r"\PC").expect("a valid class");
        match hir.kind() {
            regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(class)) => {
                class.ranges().iter().map(|r| r.start()..=r.end()).collect()
            }
            other => unreachable!("\\PC is a Unicode class, not {other:?}"),
        }
    })
}

impl Strategy for Chars {
    type Tree = CharsTree;
    type Value = String;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        let rng = runner.rng();
        let len = rng.random_range(self.len.clone());
        let chars = (0..len)
            .map(|_| {
                let range = &self.ranges[rng.random_range(0..self.ranges.len())];
                let code = rng.random_range(u32::from(*range.start())..=u32::from(*range.end()));
                // Every range of the alphabets here lies outside the surrogates.
                char::from_u32(code).unwrap_or(*range.start())
            })
            .collect();
        Ok(CharsTree {
            chars,
            len,
            min_len: *self.len.start(),
            simplest: *self.ranges[0].start(),
            shortened: false,
            at: 0,
            last: None,
        })
    }
}

/// The last simplification, so that `complicate` can undo it.
#[derive(Clone, Copy, Debug)]
enum Step {
    Shortened,
    Replaced(usize, char),
}

/// The value tree of [`Chars`].
#[derive(Clone, Debug)]
pub(crate) struct CharsTree {
    chars: Vec<char>,
    /// Characters of `chars` in the current value.
    len: usize,
    min_len: usize,
    simplest: char,
    /// Shortening is over (the shortest failing length is found): characters are next.
    shortened: bool,
    /// The next character to simplify.
    at: usize,
    last: Option<Step>,
}

impl ValueTree for CharsTree {
    type Value = String;

    fn current(&self) -> String {
        self.chars[..self.len].iter().collect()
    }

    fn simplify(&mut self) -> bool {
        if !self.shortened {
            if self.len > self.min_len {
                self.len -= 1;
                self.last = Some(Step::Shortened);
                return true;
            }
            self.shortened = true;
        }
        while self.at < self.len {
            let i = self.at;
            self.at += 1;
            if self.chars[i] != self.simplest {
                self.last = Some(Step::Replaced(i, self.chars[i]));
                self.chars[i] = self.simplest;
                return true;
            }
        }
        self.last = None;
        false
    }

    fn complicate(&mut self) -> bool {
        match self.last.take() {
            Some(Step::Shortened) => {
                self.len += 1;
                self.shortened = true;
                true
            }
            Some(Step::Replaced(i, c)) => {
                self.chars[i] = c;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::test_runner::{Config, TestError, TestRunner};

    use super::*;

    const LOWER: &[RangeInclusive<char>] = &['a'..='z'];
    const TWO: &[RangeInclusive<char>] = &['a'..='c', 'X'..='Z'];

    fn runner() -> TestRunner {
        TestRunner::new(Config { failure_persistence: None, cases: 256, ..Config::default() })
    }

    #[test]
    fn draws_stay_in_the_alphabet_and_length_and_reach_every_range() {
        let mut runner = runner();
        let (mut seen_low, mut seen_high, mut lengths) = (false, false, std::collections::BTreeSet::new());
        for _ in 0..500 {
            let s = chars(TWO, 2..=5).new_tree(&mut runner).unwrap().current();
            lengths.insert(s.chars().count());
            assert!(s.chars().all(|c| ('a'..='c').contains(&c) || ('X'..='Z').contains(&c)), "{s}");
            seen_low |= s.chars().any(|c| c.is_ascii_lowercase());
            seen_high |= s.chars().any(|c| c.is_ascii_uppercase());
        }
        assert_eq!(lengths.into_iter().collect::<Vec<_>>(), vec![2, 3, 4, 5]);
        assert!(seen_low && seen_high);
    }

    #[test]
    fn printable_is_the_regex_class() {
        let printable = printable_ranges();
        let inside = |c: char| printable.iter().any(|r| r.contains(&c));
        assert!(inside('a') && inside('é') && inside('✓') && inside(' ') && inside('中'));
        assert!(!inside('\n') && !inside('\u{0}') && !inside('\u{200B}'), "controls and format characters are Other");
        let mut runner = runner();
        for _ in 0..200 {
            let s = chars(printable, 0..=12).new_tree(&mut runner).unwrap().current();
            assert!(s.chars().count() <= 12 && s.chars().all(inside), "{s:?}");
        }
    }

    fn minimal(strategy: Chars, fails: fn(&str) -> bool) -> String {
        match runner().run(&strategy, |s| {
            proptest::prop_assert!(!fails(&s));
            Ok(())
        }) {
            Err(TestError::Fail(_, minimal)) => minimal,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn shrinking_shortens_then_simplifies_each_character() {
        assert_eq!(minimal(chars(LOWER, 0..=8), |s| s.len() >= 3), "aaa");
        assert_eq!(minimal(chars(LOWER, 1..=8), |_| true), "a");
        let one_other = minimal(chars(LOWER, 1..=8), |s| s.contains(|c| c != 'a'));
        assert_eq!(one_other.chars().filter(|c| *c != 'a').count(), 1, "{one_other}");
        assert_eq!(minimal(chars(LOWER, 0..=8), |s| s.contains('q')).chars().filter(|c| *c == 'q').count(), 1);
    }

    #[test]
    fn complicate_undoes_the_last_simplification_only() {
        let mut runner = runner();
        let mut tree = loop {
            let t = chars(LOWER, 3..=3).new_tree(&mut runner).unwrap();
            if !t.current().contains('a') {
                break t;
            }
        };
        let drawn = tree.current();
        assert!(tree.simplify(), "the first character simplifies (length is at its minimum)");
        assert_eq!(tree.current(), format!("a{}", &drawn[1..]));
        assert!(tree.complicate());
        assert_eq!(tree.current(), drawn);
        assert!(!tree.complicate(), "nothing left to undo");
        assert!(tree.simplify());
        assert_eq!(tree.current(), format!("{}a{}", &drawn[..1], &drawn[2..]));
    }
}
