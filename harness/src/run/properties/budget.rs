//! How much generation the property step may do: the budget in cases or time, the options, and
//! a duration handed out search by search.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::run::shard::Shard;

/// How much generation the property step may do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Generated cases per property and webhook (ignored when `duration` is set).
    pub cases: u32,
    /// Run for this long instead, split over the properties and webhooks.
    pub duration: Option<Duration>,
}

impl Budget {
    /// No generated requests: the property step is skipped.
    pub const NONE: Budget = Budget { cases: 0, duration: None };

    /// `cases` generated cases per property and webhook.
    pub fn cases(cases: u32) -> Budget {
        Budget { cases, duration: None }
    }

    /// Generate for `duration`, split over the properties and webhooks.
    pub fn duration(duration: Duration) -> Budget {
        Budget { cases: 0, duration: Some(duration) }
    }

    /// True when the step generates nothing.
    pub fn is_none(&self) -> bool {
        self.cases == 0 && self.duration.is_none()
    }
}

/// The options of the property step.
#[derive(Clone, Debug)]
pub(crate) struct PropertyOptions {
    /// How many generated cases.
    pub budget: Budget,
    /// The seed of the generated cases; the same seed, budget and concurrency repeat them.
    pub seed: u64,
    /// Test runners (each with its own seed) per property at once.
    pub concurrency: usize,
    /// Where minimal failing requests are saved and replayed from.
    pub regressions: Option<PathBuf>,
    /// Only these property ids (all when empty).
    pub only: Vec<String>,
    /// At most this many shrinking steps per failure.
    pub max_shrink_iters: u32,
    /// This machine's part of a sharded campaign (the whole of it by default).
    pub shard: Shard,
    /// Shrinking one failure stops after this long (the smallest failing request found by then is
    /// shown, and the report says so).
    pub max_shrink_time: Duration,
    /// Generate from the cases' requests too (mutations of them, `requests::seeded`).
    pub seeded_generation: bool,
}

/// Generated cases per property (and per contract sweep) and webhook in a default run: enough to
/// reach every operation, version, dry-run flag and object shape the generator knows several times
/// (each draws from ~20 independent dimensions), while a run against a fast webhook stays within a
/// couple of seconds (`cargo bench -p webhook-conformance --bench default_run`). `fuzz` defaults to 64
/// and `--cases N` / `--duration` change either.
pub const DEFAULT_CASES: u32 = 16;

/// Requests in flight at once, and proptest runners per property, in a default run: enough to keep
/// two cores busy against the bundled webhook, few enough that a webhook serving one request at a
/// time (an interpreter's lock) is not handed a queue. Against the example Python webhook (`fuzz
/// --cmd`, 2 cores) 8 made fewer requests per second at more of the suite's CPU per request than 4
/// (README, "Fuzzing").
pub const DEFAULT_CONCURRENCY: usize = 4;

impl Default for PropertyOptions {
    fn default() -> Self {
        PropertyOptions {
            budget: Budget { cases: DEFAULT_CASES, duration: None },
            seed: 0,
            concurrency: DEFAULT_CONCURRENCY,
            regressions: None,
            only: Vec::new(),
            max_shrink_iters: 1024,
            shard: Shard::WHOLE,
            max_shrink_time: Duration::from_secs(60),
            seeded_generation: false,
        }
    }
}

/// A duration budget handed out search by search: each search gets an equal part of the time
/// left, so that the time a search does not use (its webhook has no such request, the property
/// does not apply) goes to the ones after it and the campaign runs for the duration asked.
pub(super) struct Shares {
    end: Instant,
    left: AtomicUsize,
}

impl Shares {
    pub(super) fn new(duration: Duration, searches: usize, now: Instant) -> Shares {
        Shares { end: now + duration, left: AtomicUsize::new(searches.max(1)) }
    }

    /// The next search's part of the time left at `now`.
    pub(super) fn next(&self, now: Instant) -> Duration {
        let left = self.left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| Some(n.saturating_sub(1)));
        let left = left.unwrap_or(1).max(1);
        self.end.saturating_duration_since(now) / u32::try_from(left).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The time a search leaves unused goes to the ones after it: the shares add up to the
    /// duration asked whatever each search spends.
    #[test]
    fn unused_time_goes_to_the_searches_after() {
        let t0 = Instant::now();
        let s = Shares::new(Duration::from_secs(12), 4, t0);
        assert_eq!(s.next(t0), Duration::from_secs(3));
        // That search had nothing to run and ended at once: the three left share all 12 s.
        assert_eq!(s.next(t0), Duration::from_secs(4));
        assert_eq!(s.next(t0 + Duration::from_secs(4)), Duration::from_secs(4));
        assert_eq!(s.next(t0 + Duration::from_secs(8)), Duration::from_secs(4));
        // Past the end, or past the count of searches, a share is empty.
        assert_eq!(s.next(t0 + Duration::from_secs(12)), Duration::ZERO);
        assert_eq!(s.next(t0 + Duration::from_secs(13)), Duration::ZERO);
    }
}
