//! A weighted choice between strategies that costs one draw of the branch taken. `prop_oneof!`
//! also builds, at every draw, a lazy tree with its own copy of the runner (a fresh ChaCha RNG)
//! for each branch it did not take, in case shrinking moves there; in the many small choices of a
//! generated object (every label key and value) that is most of the cost. Here the branches not
//! taken get one seed between them, and a runner is made from it only when shrinking moves to an
//! earlier branch. Shrinking is `prop_oneof!`'s: simplify within the branch, then move to the
//! branch before it.

use std::sync::Arc;

use proptest::strategy::{NewTree, SBoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rand::RngExt;

/// One of `choices` (plain values), each as often as its weight says; shrinks towards the first.
/// The same draw as a [`one_of`] of `Just`s, as a single `select`: no tree per branch at all.
pub(crate) fn weighted<T: Clone + std::fmt::Debug + 'static>(choices: Vec<(usize, T)>) -> proptest::sample::Select<T> {
    proptest::sample::select(choices.into_iter().flat_map(|(n, v)| std::iter::repeat_n(v, n)).collect::<Vec<T>>())
}

/// One of `branches`, each as often as its weight says.
#[derive(Clone)]
pub(crate) struct OneOf<T> {
    branches: Arc<[(u32, SBoxedStrategy<T>)]>,
    total: u32,
}

impl<T> std::fmt::Debug for OneOf<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OneOf").field("weights", &self.branches.iter().map(|b| b.0).collect::<Vec<_>>()).finish()
    }
}

/// A weighted choice between `branches` (weight, strategy); shrinks towards the first.
pub(crate) fn one_of<T: std::fmt::Debug + 'static>(branches: Vec<(u32, SBoxedStrategy<T>)>) -> OneOf<T> {
    let total = branches.iter().map(|b| b.0).sum();
    assert!(total > 0, "at least one branch with a weight");
    OneOf { branches: branches.into(), total }
}

impl<T: std::fmt::Debug + 'static> Strategy for OneOf<T> {
    type Tree = OneOfTree<T>;
    type Value = T;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        let rng = runner.rng();
        let mut point = rng.random_range(0..self.total);
        let pick = self
            .branches
            .iter()
            .position(|(w, _)| {
                let here = point < *w;
                point = point.saturating_sub(*w);
                here
            })
            .unwrap_or(self.branches.len() - 1);
        // One word for the branches not taken (`random::<[u8; 16]>` draws a word per byte).
        let seed: u64 = rng.random();
        let tree = self.branches[pick].1.new_tree(runner)?;
        let mut trees: Vec<Option<Box<dyn ValueTree<Value = T>>>> = Vec::with_capacity(pick + 1);
        trees.resize_with(pick, || None);
        trees.push(Some(tree));
        Ok(OneOfTree { branches: self.branches.clone(), trees, seed, runner: None, pick, min_pick: 0, prev_pick: None })
    }
}

/// The 16 bytes of a XorShift seed from `seed`: two outputs of splitmix64 from it.
fn seed_bytes(mut seed: u64) -> [u8; 16] {
    let mut out = [0u8; 16];
    for chunk in out.chunks_mut(8) {
        seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out
}

/// The value tree of [`OneOf`].
pub(crate) struct OneOfTree<T> {
    branches: Arc<[(u32, SBoxedStrategy<T>)]>,
    /// The trees of the branches up to the one drawn; those before it are made when shrinking
    /// reaches them.
    trees: Vec<Option<Box<dyn ValueTree<Value = T>>>>,
    /// Where the runner of the branches not taken starts (drawn with the branch taken).
    seed: u64,
    runner: Option<TestRunner>,
    pick: usize,
    min_pick: usize,
    prev_pick: Option<usize>,
}

impl<T: std::fmt::Debug> OneOfTree<T> {
    fn tree(&mut self, i: usize) -> &mut dyn ValueTree<Value = T> {
        self.trees[i].as_deref_mut().expect("the current branch has a tree")
    }

    /// Make the tree of branch `i` (false when its strategy rejects every draw).
    fn init(&mut self, i: usize) -> bool {
        if self.trees[i].is_none() {
            let seed = self.seed;
            let runner = self.runner.get_or_insert_with(|| {
                let config = Config { failure_persistence: None, ..Config::default() };
                TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::XorShift, &seed_bytes(seed)))
            });
            self.trees[i] = self.branches[i].1.new_tree(runner).ok();
        }
        self.trees[i].is_some()
    }
}

impl<T: std::fmt::Debug> ValueTree for OneOfTree<T> {
    type Value = T;

    fn current(&self) -> T {
        self.trees[self.pick].as_deref().expect("the current branch has a tree").current()
    }

    fn simplify(&mut self) -> bool {
        if self.tree(self.pick).simplify() {
            self.prev_pick = None;
            return true;
        }
        if self.pick == self.min_pick {
            return false;
        }
        self.prev_pick = Some(self.pick);
        let mut next = self.pick;
        while next > self.min_pick {
            next -= 1;
            if self.init(next) {
                self.pick = next;
                return true;
            }
        }
        false
    }

    fn complicate(&mut self) -> bool {
        if let Some(pick) = self.prev_pick.take() {
            self.pick = pick;
            self.min_pick = pick;
            return true;
        }
        self.tree(self.pick).complicate()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::test_runner::TestError;

    use super::*;

    fn runner() -> TestRunner {
        TestRunner::new(Config { failure_persistence: None, ..Config::default() })
    }

    fn letters_or_numbers() -> OneOf<String> {
        one_of(vec![
            (1, Just("first".to_string()).sboxed()),
            (2, "[a-z]{1,4}".sboxed()),
            (3, (10u32..20).prop_map(|n| n.to_string()).sboxed()),
        ])
    }

    #[test]
    fn branches_come_as_often_as_their_weights() {
        let mut runner = runner();
        let mut counts = [0usize; 3];
        for _ in 0..6000 {
            let v = letters_or_numbers().new_tree(&mut runner).unwrap().current();
            let branch = if v == "first" {
                0
            } else if v.chars().all(|c| c.is_ascii_lowercase()) {
                1
            } else {
                2
            };
            counts[branch] += 1;
        }
        for (count, expected) in counts.into_iter().zip([1000.0, 2000.0, 3000.0]) {
            assert!((count as f64 - expected).abs() < expected * 0.15, "{counts:?}");
        }
    }

    fn minimal(fails: fn(&str) -> bool) -> String {
        match runner().run(&letters_or_numbers(), |s| {
            prop_assert!(!fails(&s));
            Ok(())
        }) {
            Err(TestError::Fail(_, minimal)) => minimal,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn shrinking_moves_to_earlier_branches_and_within_one() {
        assert_eq!(minimal(|_| true), "first", "every value fails: the first branch");
        assert_eq!(minimal(|s| s != "first"), "a", "the second branch, simplified");
        assert_eq!(minimal(|s| s.parse::<u32>().is_ok()), "10", "only the third branch fails: within it");
    }

    /// A draw costs the pick and one word for the branches not taken: the runner of those is made
    /// from it only when shrinking reaches them.
    #[test]
    fn a_draw_takes_a_pick_and_one_word_from_the_rng() {
        let choice = one_of(vec![(1, Just(1u8).sboxed()), (1, Just(2u8).sboxed())]);
        let rng = TestRng::deterministic_rng(RngAlgorithm::Recorder);
        let mut runner = TestRunner::new_with_rng(Config { failure_persistence: None, ..Config::default() }, rng);
        for _ in 0..10 {
            choice.new_tree(&mut runner).unwrap();
        }
        assert_eq!(runner.rng().bytes_used().len(), 10 * (4 + 8), "a u32 for the pick, a u64 for the seed");
    }

    #[test]
    fn complicate_goes_back_to_the_branch_it_left() {
        let mut runner = runner();
        let mut tree = loop {
            let t = letters_or_numbers().new_tree(&mut runner).unwrap();
            if t.current().parse::<u32>().is_ok_and(|n| n == 10) {
                break t;
            }
        };
        assert!(tree.simplify(), "10 is the simplest number: the branch before it is next");
        assert!(tree.current().chars().all(|c| c.is_ascii_lowercase()), "{}", tree.current());
        assert!(tree.complicate());
        assert_eq!(tree.current(), "10");
        assert!(!tree.simplify(), "nothing simpler than 10 and no earlier branch left to try");
    }
}
