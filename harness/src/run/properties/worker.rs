//! One proptest runner: generated cases from one seed, each observed and checked, a failure shrunk
//! within its limits.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use proptest::strategy::SBoxedStrategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

use super::lane::Lane;
use super::observe::{observe, sent, unsent, Calls};
use super::Progress;
use crate::cancel::INTERRUPTED;
use crate::checks::property::unanswered as unanswered_call;
use crate::checks::{Observation, Procedure};
use crate::config::WebhookSpec;
use crate::requests::RequestCase;
use crate::run::stoppable::Stoppable;
use crate::verdict::Check;

pub(super) fn seed_for(seed: u64, property: usize, worker: usize, round: usize) -> [u8; 32] {
    // splitmix64 over the mixed inputs.
    let mut x = seed ^ ((property as u64) << 48) ^ ((worker as u64) << 32) ^ (round as u64);
    let mut out = [0u8; 32];
    for chunk in out.chunks_mut(8) {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out
}

/// Sets the runners' stop flag when dropped.
pub(super) struct StopOnDrop(pub(super) Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

pub(super) struct Shared {
    pub(super) handle: tokio::runtime::Handle,
    pub(super) calls: Arc<Calls>,
    pub(super) webhook: Arc<WebhookSpec>,
    pub(super) procedure: Procedure,
    pub(super) strategy: SBoxedStrategy<RequestCase>,
    pub(super) check: fn(&Observation) -> Check,
    pub(super) progress: Arc<Progress>,
    pub(super) stop: Arc<AtomicBool>,
    /// Cases the property could judge (its check passed), not counting shrinking steps.
    pub(super) judged: AtomicU64,
    /// Cases not judged because a call of them got no answer, not counting shrinking steps.
    pub(super) unanswered: AtomicU64,
}

/// The detail of a breach of the property (either severity), none otherwise.
fn breach(check: &Check) -> Option<String> {
    match check {
        Check::Violated(v) => Some(v.detail.clone()),
        _ => None,
    }
}

/// What one test runner did.
#[derive(Default)]
pub(super) struct WorkerRun {
    /// Generated cases judged (shrinking steps not counted).
    pub(super) ran: u64,
    /// The smallest failure found: what broke, and the calls.
    pub(super) failure: Option<(String, Observation)>,
    /// Why generating or shrinking stopped early, when it did.
    pub(super) cut: Option<String>,
}

/// One test runner: `cases` generated cases from `seed`; the minimal failure, if any.
pub(super) fn run_worker(
    shared: &Shared,
    lane: &Lane,
    cases: u32,
    limits: (u32, Duration),
    seed: [u8; 32],
    deadline: Option<Instant>,
) -> WorkerRun {
    let (max_shrink_iters, max_shrink_time) = limits;
    let (proc, check) = (shared.procedure, shared.check);
    let taken = lane.take();
    let strategy = &shared.strategy;
    let config = Config { cases, max_shrink_iters, failure_persistence: None, source_file: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let last: Mutex<Option<(String, Observation)>> = Mutex::new(None);
    let cut: Mutex<Option<String>> = Mutex::new(None);
    let ran = AtomicU64::new(0);
    let shrink_started: Mutex<Option<Instant>> = Mutex::new(None);
    let stop_with = |why: String| {
        cut.lock().expect("not poisoned").get_or_insert(why);
    };
    // Once the search is over (another runner has its failure), cut short, or the run cancelled, no
    // case is drawn and no shrinking step taken any more: the runner ends at once.
    let stopped = || {
        shared.stop.load(Ordering::Relaxed)
            || shared.calls.client.is_cancelled()
            || cut.lock().expect("not poisoned").is_some()
    };
    let strategy = Stoppable::new(strategy, &stopped);
    let result = runner.run(&strategy, |case| {
        // Another runner of this property has its (shrunk) failure: stop, shrinking included.
        // Past the deadline, new cases stop but a started shrink goes on (for a while).
        let shrinking = *shrink_started.lock().expect("not poisoned");
        let past_deadline = deadline.is_some_and(|d| Instant::now() >= d);
        if shared.stop.load(Ordering::Relaxed) || (past_deadline && shrinking.is_none()) {
            return Ok(());
        }
        if cut.lock().expect("not poisoned").is_some() || shared.calls.client.is_cancelled() {
            return Ok(());
        }
        if let Some(started) = shrinking {
            if started.elapsed() >= max_shrink_time {
                stop_with(format!(
                    "shrinking stopped after {} s: the request shown is the smallest failing one found by then",
                    max_shrink_time.as_secs()
                ));
                return Ok(());
            }
        }
        let obs = taken.block_on(&shared.handle, observe(proc, lane.calls(), &shared.webhook, &case));
        shared.progress.requests.fetch_add(sent(&obs), Ordering::Relaxed);
        if let Some(why) = unsent(&obs) {
            // Nothing can be learnt from a call that was not made: stop generating and shrinking.
            stop_with(match shrinking {
                Some(_) => {
                    format!("shrinking stopped: {why}; the request shown is the smallest failing one found by then")
                }
                None => format!("stopped: {why}"),
            });
            return Ok(());
        }
        if shrinking.is_none() {
            ran.fetch_add(1, Ordering::Relaxed);
            shared.progress.cases.fetch_add(1, Ordering::Relaxed);
        }
        let verdict = check(&obs);
        if verdict == Check::Pass && shrinking.is_none() {
            shared.judged.fetch_add(1, Ordering::Relaxed);
        }
        if unanswered_call(&obs).is_some() && shrinking.is_none() {
            shared.unanswered.fetch_add(1, Ordering::Relaxed);
        }
        match breach(&verdict) {
            Some(detail) => {
                if shrinking.is_none() {
                    *shrink_started.lock().expect("not poisoned") = Some(Instant::now());
                    shared.progress.shrinking.fetch_add(1, Ordering::Relaxed);
                }
                *last.lock().expect("not poisoned") = Some((detail.clone(), obs));
                Err(TestCaseError::fail(detail))
            }
            None => Ok(()),
        }
    });
    if shrink_started.lock().expect("not poisoned").is_some() {
        shared.progress.shrinking.fetch_sub(1, Ordering::Relaxed);
    }
    if shared.calls.client.is_cancelled() {
        // No more rounds either.
        stop_with(format!("stopped: {INTERRUPTED}"));
    }
    let ran = ran.load(Ordering::Relaxed);
    let cut = cut.into_inner().expect("not poisoned");
    match result {
        Err(TestError::Fail(..)) => WorkerRun { ran, failure: last.into_inner().expect("not poisoned"), cut },
        _ => WorkerRun { ran, failure: None, cut },
    }
}
