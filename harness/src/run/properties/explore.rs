//! One search for a failing request: the run's cases and the saved regressions first, then
//! generated requests from proptest runners, round after round, until one breaks the check.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use proptest::strategy::SBoxedStrategy;

use super::budget::Shares;
use super::lane::Lane;
use super::observe::{observe, sent, unsent, Calls};
use super::regressions::{save_regression, saved_requests};
use super::worker::{run_worker, seed_for, Shared, StopOnDrop};
use super::{CaseRequest, Failure, Progress, PropertyOptions};
use crate::checks::property::unanswered as unanswered_call;
use crate::checks::{Observation, Procedure};
use crate::config::WebhookSpec;
use crate::requests::generated::{requests_in, Scope};
use crate::requests::{ApiResources, RequestCase};
use crate::verdict::Check;

/// What the searches of one property step share.
pub(super) struct Step<'a> {
    pub(super) calls: &'a Arc<Calls>,
    pub(super) progress: &'a Arc<Progress>,
    pub(super) opts: &'a PropertyOptions,
    /// Requests tried before any generated one: the run's cases.
    pub(super) seeds: &'a [CaseRequest],
    /// The campaign's time, handed out search by search, when the budget is a duration.
    pub(super) shares: Option<Shares>,
    /// The resources of the apiserver the requests are drawn from.
    pub(super) api: &'a ApiResources,
    /// The generated requests of each webhook and scope, built once.
    pub(super) strategies: Mutex<Vec<Built>>,
    /// The runners' lanes, made once for every search (one runner at a time on each).
    pub(super) lanes: Mutex<Vec<Arc<Lane>>>,
}

/// The generated requests of one webhook (by name) and scope; `None` when its rules select none.
type Built = ((String, Scope), Option<SBoxedStrategy<RequestCase>>);

impl Step<'_> {
    /// The generated requests of `webhook` within `scope` (`None`: its rules select none).
    pub(super) fn strategy(&self, webhook: &WebhookSpec, scope: Scope) -> Option<SBoxedStrategy<RequestCase>> {
        let key = (webhook.name.clone(), scope);
        let mut built = self.strategies.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, s)) = built.iter().find(|(k, _)| *k == key) {
            return s.clone();
        }
        let mut s = requests_in(webhook, scope, self.api);
        if self.opts.seeded_generation {
            let seeds = self.seeds.iter().filter(|c| c.webhook == webhook.name && scope.admits_request(&c.request));
            s = crate::requests::seeded::with_seeds(s, webhook, seeds.map(|c| c.request.clone()).collect());
        }
        built.push((key, s.clone()));
        s
    }

    /// The lanes of `runners` runners, made where there are not so many yet.
    fn lanes(&self, runners: usize) -> Vec<Arc<Lane>> {
        let mut lanes = self.lanes.lock().unwrap_or_else(|e| e.into_inner());
        while lanes.len() < runners {
            lanes.push(Arc::new(Lane::new(self.calls)));
        }
        lanes[..runners].to_vec()
    }
}

/// One search for a failing request.
pub(super) struct Search {
    pub(super) procedure: Procedure,
    pub(super) scope: Scope,
    pub(super) check: fn(&Observation) -> Check,
    /// Its index among the searches, for the runners' seeds.
    pub(super) index: usize,
    /// The regressions file of this search, if regressions are kept.
    pub(super) file: Option<PathBuf>,
    /// Whether the cases' requests are tried first.
    pub(super) seeded: bool,
    /// Its time, when the budget is a duration.
    pub(super) budget: Option<Duration>,
}

impl Step<'_> {
    /// The next search's time (`None`: the budget is a number of cases).
    pub(super) fn share(&self) -> Option<Duration> {
        self.shares.as_ref().map(|s| s.next(Instant::now()))
    }
}

/// How a search ended.
pub(super) struct Found {
    pub(super) cases: u64,
    /// Cases the check could judge (it passed them).
    pub(super) judged: u64,
    /// Cases not judged because a call of them got no answer (a transport rule's finding).
    pub(super) unanswered: u64,
    pub(super) failure: Option<Failure>,
    pub(super) note: Option<String>,
    /// Why the search, or the shrinking of its failure, stopped early (requests no longer sent, the
    /// shrinking time spent), when it did.
    pub(super) cut: Option<String>,
}

/// Try the seeds, the saved regressions, then generated requests until one breaks `search.check`;
/// shrink it.
pub(super) async fn explore(
    step: &Step<'_>,
    webhook: &Arc<WebhookSpec>,
    search: Search,
) -> Result<Found, tokio::task::JoinError> {
    let (calls, progress, opts) = (step.calls, step.progress, step.opts);
    let (proc, check) = (search.procedure, search.check);
    let mut cases = 0u64;
    let mut judged = 0u64;
    let mut unanswered = 0u64;
    // Known requests go first, each with what its failure's note says: the run's cases, then (when
    // requests are generated) the saved regressions. The first shard of a campaign tries them only.
    let first_shard = opts.shard.is_first();
    let seeds = if search.seeded && first_shard { step.seeds } else { &[] };
    let mut known: Vec<(RequestCase, String)> = seeds
        .iter()
        .filter(|s| s.webhook == webhook.name && search.scope.admits_request(&s.request))
        .map(|s| (s.request.clone(), format!("on case {}", s.case)))
        .collect();
    let strategy = step.strategy(webhook, search.scope).filter(|_| !opts.budget.is_none());
    if let Some(file) = search.file.as_ref().filter(|_| first_shard && strategy.is_some()) {
        let note = format!("replayed a saved regression from {}", file.display());
        known.extend(saved_requests(file, webhook).into_iter().map(|case| (case, note.clone())));
    }
    for (request, found_by) in known {
        let obs = observe(proc, calls, webhook, &request).await;
        progress.requests.fetch_add(sent(&obs), Ordering::Relaxed);
        if let Some(why) = unsent(&obs) {
            let cut = Some(format!("stopped: {why}"));
            return Ok(Found { cases, judged, unanswered, failure: None, note: None, cut });
        }
        cases += 1;
        unanswered += u64::from(unanswered_call(&obs).is_some());
        match check(&obs) {
            Check::Violated(v) => {
                let failure = Some(Failure { message: v.detail, observation: obs, seed: None });
                return Ok(Found { cases, judged, unanswered, failure, note: Some(found_by), cut: None });
            }
            Check::Pass => judged += 1,
            Check::NotApplicable(_) => {}
        }
    }
    let Some(strategy) = strategy else {
        return Ok(Found { cases, judged, unanswered, failure: None, note: None, cut: None });
    };
    let shared = Arc::new(Shared {
        handle: tokio::runtime::Handle::current(),
        calls: calls.clone(),
        webhook: webhook.clone(),
        procedure: proc,
        strategy,
        check,
        progress: progress.clone(),
        stop: Arc::new(AtomicBool::new(false)),
        judged: AtomicU64::new(0),
        unanswered: AtomicU64::new(0),
    });
    // Dropped with this future (the run cancelled, or abandoned): the runners stop at their next
    // case instead of running on.
    let _stop_runners = StopOnDrop(shared.stop.clone());
    let mut cut: Option<String> = None;
    let workers = opts.concurrency.max(1);
    let deadline = search.budget.map(|b| Instant::now() + b);
    let wanted = opts.budget.cases.max(1) as usize;
    let runners = opts.shard.runners(workers, deadline.is_none().then_some(wanted), 16);
    if runners.is_empty() {
        let note = Some(format!("shard {} has none of the {wanted} cases", opts.shard));
        return Ok(Found { cases, judged, unanswered, failure: None, note, cut: None });
    }
    let lanes = step.lanes(runners.len());
    let mut round = 0usize;
    loop {
        let mut tasks = tokio::task::JoinSet::new();
        for (&(w, per_worker), lane) in runners.iter().zip(&lanes) {
            let (shared, lane) = (shared.clone(), lane.clone());
            let seed = seed_for(opts.seed, search.index, w, round);
            let limits = (opts.max_shrink_iters, opts.max_shrink_time);
            tasks.spawn_blocking(move || (w, seed, run_worker(&shared, &lane, per_worker, limits, seed, deadline)));
        }
        let mut failures = Vec::new();
        while let Some(done) = tasks.join_next().await {
            let (w, seed, run) = done?;
            cases += run.ran;
            if let Some(why) = run.cut.clone() {
                cut.get_or_insert(why);
            }
            if let Some(f) = run.failure {
                shared.stop.store(true, Ordering::Relaxed);
                failures.push((w, seed, f, run.cut));
            }
        }
        // The runner that finished first had the whole shrink; the others were cut short.
        if let Some((_, seed, (message, observation), shrink_cut)) = failures.into_iter().next() {
            if let (Some(file), Some(input)) = (&search.file, &observation.input) {
                if let Err(e) = save_regression(file, &input.review.to_value()) {
                    eprintln!("webhook-conformance: could not save the regression to {}: {e}", file.display());
                }
            }
            let seed = u64::from_le_bytes(seed[..8].try_into().expect("8 bytes"));
            let shard = if opts.shard.is_whole() { String::new() } else { format!(" --shard {}", opts.shard) };
            let mut note = format!("found by round {round}; --seed {}{shard} replays the run", opts.seed);
            if let Some(why) = &shrink_cut {
                note.push_str(&format!("; {why}"));
            }
            let judged = judged + shared.judged.load(Ordering::Relaxed);
            let unanswered = unanswered + shared.unanswered.load(Ordering::Relaxed);
            return Ok(Found {
                cases,
                judged,
                unanswered,
                failure: Some(Failure { message, observation, seed: Some(seed) }),
                note: Some(note),
                cut: shrink_cut,
            });
        }
        if cut.is_some() {
            break;
        }
        round += 1;
        match deadline {
            Some(d) if Instant::now() < d => continue,
            _ => break,
        }
    }
    let judged = judged + shared.judged.load(Ordering::Relaxed);
    let unanswered = unanswered + shared.unanswered.load(Ordering::Relaxed);
    Ok(Found { cases, judged, unanswered, failure: None, note: None, cut })
}
