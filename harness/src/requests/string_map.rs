//! Maps of generated keys and values (labels, annotations) drawn and shrunk exactly as proptest's
//! `btree_map` draws and shrinks them, with each map built once per value. `btree_map` is a
//! filter (at least `min` distinct keys) over the vector of its entries, and a filter builds the
//! map to judge it, at every draw and every step of shrinking, and drops it: the map is built
//! again when the value is taken. Here the map the filter judged is kept and handed out by the
//! next `current`.

use std::cell::Cell;
use std::collections::BTreeMap;

use proptest::collection::{SizeRange, VecStrategy, VecValueTree};
use proptest::strategy::{NewTree, Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use proptest::tuple::TupleValueTree;

/// What a draw rejected for too few distinct keys is counted under (`btree_map`'s own words).
const TOO_FEW_KEYS: &str = "BTreeMap minimum size";

/// `BTreeMap`s of `key` and `value`, `size` entries drawn (fewer where keys repeat: the last
/// value of a key is kept), at least `size`'s start distinct keys.
#[derive(Debug)]
pub(crate) struct StringMap<K: Strategy, V: Strategy> {
    entries: VecStrategy<(K, V)>,
    min: usize,
}

/// The maps of `key` and `value` with a size in `size`, as `prop::collection::btree_map` draws them.
pub(crate) fn btree_map<K, V>(key: K, value: V, size: impl Into<SizeRange>) -> StringMap<K, V>
where
    K: Strategy<Value = String>,
    V: Strategy<Value = String>,
{
    let size = size.into();
    StringMap { min: size.start(), entries: proptest::collection::vec((key, value), size) }
}

/// The value tree of [`StringMap`].
pub(crate) struct StringMapTree<K: ValueTree, V: ValueTree> {
    entries: VecValueTree<TupleValueTree<(K, V)>>,
    min: usize,
    /// The map of the entries as they stand, when the filter built it and no `current` took it.
    built: Cell<Option<BTreeMap<String, String>>>,
}

impl<K, V> Strategy for StringMap<K, V>
where
    K: Strategy<Value = String>,
    V: Strategy<Value = String>,
{
    type Tree = StringMapTree<K::Tree, V::Tree>;
    type Value = BTreeMap<String, String>;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        loop {
            let entries = self.entries.new_tree(runner)?;
            let map: BTreeMap<String, String> = entries.current().into_iter().collect();
            if map.len() >= self.min {
                return Ok(StringMapTree { entries, min: self.min, built: Cell::new(Some(map)) });
            }
            runner.reject_local(TOO_FEW_KEYS)?;
        }
    }
}

impl<K, V> StringMapTree<K, V>
where
    K: ValueTree<Value = String>,
    V: ValueTree<Value = String>,
{
    fn build(&self) -> BTreeMap<String, String> {
        self.entries.current().into_iter().collect()
    }

    /// After a step of shrinking that `moved` the entries: the filter's `ensure_acceptable`.
    fn accepted_after(&mut self, moved: bool) -> bool {
        if moved {
            self.ensure_acceptable();
        }
        moved
    }

    /// Undo simplifications until the entries hold enough distinct keys (the filter's
    /// `ensure_acceptable`), keeping the map that passed.
    fn ensure_acceptable(&mut self) {
        loop {
            let map = self.build();
            if map.len() >= self.min {
                self.built.set(Some(map));
                return;
            }
            assert!(self.entries.complicate(), "a map with too few keys complicates back to an accepted one");
        }
    }
}

impl<K, V> ValueTree for StringMapTree<K, V>
where
    K: ValueTree<Value = String>,
    V: ValueTree<Value = String>,
{
    type Value = BTreeMap<String, String>;

    fn current(&self) -> BTreeMap<String, String> {
        self.built.take().unwrap_or_else(|| self.build())
    }

    fn simplify(&mut self) -> bool {
        self.built.set(None);
        let moved = self.entries.simplify();
        self.accepted_after(moved)
    }

    fn complicate(&mut self) -> bool {
        self.built.set(None);
        let moved = self.entries.complicate();
        self.accepted_after(moved)
    }
}

impl<K: ValueTree, V: ValueTree> std::fmt::Debug for StringMapTree<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StringMapTree").field("min", &self.min).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    use rand::RngExt;

    use super::super::strings::chars;
    use super::*;

    const FEW: &[std::ops::RangeInclusive<char>] = &['a'..='c'];

    fn runner(seed: u8) -> TestRunner {
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]);
        TestRunner::new_with_rng(Config { failure_persistence: None, ..Config::default() }, rng)
    }

    /// Keys from a small alphabet, so that draws repeat keys and some fall under the minimum.
    fn ours(min: usize) -> StringMap<impl Strategy<Value = String>, impl Strategy<Value = String>> {
        btree_map(chars(FEW, 1..=2), chars(FEW, 0..=3), min..min + 6)
    }

    fn theirs(min: usize) -> impl Strategy<Value = BTreeMap<String, String>> {
        prop::collection::btree_map(chars(FEW, 1..=2), chars(FEW, 0..=3), min..min + 6)
    }

    /// The same runner draws the same maps from both, and each step of shrinking (simplify while a
    /// made-up test fails, complicate where it passes) leads to the same maps, calling `current`
    /// once or twice between steps.
    #[test]
    fn draws_and_shrinks_as_proptests_btree_map() {
        let mut compared = 0;
        let mut rejected = 0;
        for seed in 0..40u8 {
            for min in [0, 1, 4, 8] {
                let (mut a, mut b) = (runner(seed), runner(seed));
                for round in 0..8 {
                    let mut ours = ours(min).new_tree(&mut a).unwrap();
                    let mut theirs = theirs(min).new_tree(&mut b).unwrap();
                    assert_eq!(ours.current(), theirs.current(), "seed {seed} min {min} round {round}");
                    // A test that fails while the map holds a key with a `c`, or more than 3 keys.
                    let fails = |m: &BTreeMap<String, String>| m.len() > 3 || m.keys().any(|k| k.contains('c'));
                    for step in 0..200 {
                        let next = if fails(&theirs.current()) { theirs.simplify() } else { theirs.complicate() };
                        let ours_next = if fails(&ours.current()) { ours.simplify() } else { ours.complicate() };
                        assert_eq!(ours_next, next, "seed {seed} min {min} step {step}");
                        if step % 3 == 0 {
                            let _ = ours.current();
                        }
                        assert_eq!(ours.current(), theirs.current(), "seed {seed} min {min} step {step}");
                        assert!(ours.current().len() >= min);
                        compared += 1;
                        if !next {
                            break;
                        }
                    }
                }
                // Both drew as many random numbers.
                assert_eq!(a.rng().random::<u64>(), b.rng().random::<u64>(), "seed {seed} min {min}");
            }
            // Draws under the minimum were made and drawn again: the entries alone, from the same
            // runner, fall under it.
            let mut c = runner(seed);
            let entries = prop::collection::vec((chars(FEW, 1..=2), chars(FEW, 0..=3)), 8..14);
            for _ in 0..8 {
                let drawn = entries.new_tree(&mut c).unwrap().current();
                rejected += usize::from(drawn.into_iter().collect::<BTreeMap<_, _>>().len() < 8);
            }
        }
        assert!(compared > 5000, "{compared} steps compared");
        assert!(rejected > 0, "some draws fell under the minimum");
    }
}
