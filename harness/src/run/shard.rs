//! Sharded campaigns: `--shard I/N` gives one of N machines (CI matrix jobs, Kubernetes Job pods) its
//! part of the generated cases, decided by seed alone, so that the N parts are disjoint and together
//! are the cases of one run on one machine with N times the runners.
//!
//! A property's cases come from test runners, each seeded from (seed, property, runner, round). An
//! unsharded run with `concurrency` runners uses runners `0..concurrency`; a campaign of N shards
//! numbers `concurrency × N` runners and shard I takes those whose number is I − 1 modulo N. A case
//! budget is the campaign's: it is split over all runners as one run would split it. A duration is
//! each shard's own (every shard generates for that long). Saved regressions are replayed by the
//! first shard only.

use std::fmt;
use std::str::FromStr;

/// One shard of a campaign: `index` of `count`, 1-based (`--shard 2/4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Shard {
    /// Which shard, 1 to `count`.
    pub index: u32,
    /// How many shards the campaign has.
    pub count: u32,
}

impl Default for Shard {
    fn default() -> Self {
        Shard::WHOLE
    }
}

impl Shard {
    /// The whole campaign on one machine.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// True when this is the whole campaign.
    pub fn is_whole(&self) -> bool {
        self.count <= 1
    }

    /// True for the first shard (the one that replays saved regressions).
    pub fn is_first(&self) -> bool {
        self.index <= 1
    }

    /// The runners of this shard and the cases each generates, for a property whose runs have
    /// `concurrency` runners per machine and want `cases` cases in all (`None`: run for a duration,
    /// `per_round` cases per runner and round). Returns (runner number, cases) pairs.
    pub(crate) fn runners(&self, concurrency: usize, cases: Option<usize>, per_round: u32) -> Vec<(usize, u32)> {
        let count = self.count.max(1) as usize;
        let mine = (self.index.clamp(1, self.count.max(1)) - 1) as usize;
        let all = concurrency.max(1) * count;
        let active = match cases {
            Some(wanted) => all.min(wanted.max(1)),
            None => all,
        };
        (0..active)
            .filter(|runner| runner % count == mine)
            .map(|runner| {
                let n = match cases {
                    // Exactly `wanted` over all runners: the first `wanted % active` take one more.
                    Some(wanted) => {
                        let wanted = wanted.max(1);
                        (wanted / active + usize::from(runner < wanted % active)) as u32
                    }
                    None => per_round,
                };
                (runner, n)
            })
            .collect()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A shard that is not `I/N` with 1 <= I <= N.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{given:?}: expected I/N with 1 <= I <= N, e.g. 2/4")]
pub struct ShardError {
    /// What was given.
    pub given: String,
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError { given: s.to_string() };
        let (i, n) = s.trim().split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shards(n: u32) -> Vec<Shard> {
        (1..=n).map(|index| Shard { index, count: n }).collect()
    }

    #[test]
    fn parses_and_prints() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!(Shard { index: 2, count: 4 }.to_string(), "2/4");
        for bad in ["0/4", "5/4", "1/0", "1", "a/b", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_whole_campaign_is_an_unsharded_run() {
        // Runners 0..concurrency, the budget split as before (the first runners one more).
        assert_eq!(Shard::WHOLE.runners(4, Some(10), 16), vec![(0, 3), (1, 3), (2, 2), (3, 2)]);
        assert_eq!(Shard::WHOLE.runners(4, Some(2), 16), vec![(0, 1), (1, 1)]);
        assert_eq!(Shard::WHOLE.runners(2, None, 16), vec![(0, 16), (1, 16)]);
    }

    #[test]
    fn shards_are_disjoint_and_together_one_run_with_n_times_the_runners() {
        for (n, concurrency, cases) in [(4u32, 4usize, 1000usize), (3, 2, 7), (5, 1, 3), (2, 8, 64)] {
            let whole = Shard::WHOLE.runners(concurrency * n as usize, Some(cases), 16);
            let mut union: Vec<(usize, u32)> =
                shards(n).iter().flat_map(|s| s.runners(concurrency, Some(cases), 16)).collect();
            union.sort();
            assert_eq!(union, whole, "{n} shards of {concurrency} runners, {cases} cases");
            let total: u32 = union.iter().map(|(_, c)| c).sum();
            assert_eq!(total as usize, cases);
            // Disjoint: no runner (hence no seed) in two shards.
            let mut runners: Vec<usize> = union.iter().map(|(r, _)| *r).collect();
            runners.dedup();
            assert_eq!(runners.len(), union.len());
        }
        // A duration: every shard runs all its runners for the whole time, on disjoint seeds.
        let all: Vec<usize> = shards(3).iter().flat_map(|s| s.runners(2, None, 16)).map(|(r, _)| r).collect();
        let mut sorted = all.clone();
        sorted.sort();
        assert_eq!(sorted, (0..6).collect::<Vec<_>>());
    }
}
