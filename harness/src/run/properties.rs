//! The property step of a run: each property of the catalog on requests generated inside what the
//! webhook's rules select (and on the run's cases).
//!
//! Each property has a procedure (which calls it makes for one request) and a check (over the
//! [`Observation`] of those calls). Cases come from proptest's `TestRunner` with a seed the caller
//! controls; a failure is shrunk to a minimal request. Minimal failing requests are saved in a
//! regressions directory and replayed first on the next run.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use proptest::strategy::SBoxedStrategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use serde_json::{json, Value};

use super::coverage::Tally;
use super::send::exchange;
use super::shard::Shard;
use super::stoppable::Stoppable;
use crate::admission::AdmissionReview;
use crate::cancel::INTERRUPTED;
use crate::checks::property::{dry_run_supported, same, unanswered as unanswered_call, Call};
use crate::checks::{Observation, Procedure};
use crate::client::Client;
use crate::config::{WebhookKind, WebhookSpec};
use crate::exchange::ExchangeRecord;
use crate::requests::generated::{pod_spec_path, requests_in, Scope};
use crate::requests::{ApiResources, RequestCase};
use crate::rules::{Judges, Rule};
use crate::verdict::{Check, Outcome, Severity};

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
pub struct PropertyOptions {
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

impl Default for PropertyOptions {
    fn default() -> Self {
        PropertyOptions {
            budget: Budget { cases: DEFAULT_CASES, duration: None },
            seed: 0,
            concurrency: 4,
            regressions: None,
            only: Vec::new(),
            max_shrink_iters: 1024,
            shard: Shard::WHOLE,
            max_shrink_time: Duration::from_secs(60),
            seeded_generation: false,
        }
    }
}

/// A failing property's evidence.
#[derive(Clone, Debug)]
pub struct Failure {
    /// What broke, in one line.
    pub message: String,
    /// The minimal failing case's calls.
    pub observation: Observation,
    /// The seed of the runner that found it (none for a replayed regression or a static check).
    pub seed: Option<u64>,
}

/// One property's verdict for one webhook.
#[derive(Clone, Debug)]
pub struct PropertyRecord {
    /// The property.
    pub rule: &'static Rule,
    /// The webhook.
    pub webhook: String,
    /// Its verdict.
    pub outcome: Outcome,
    /// Generated cases judged (shrinking steps not counted).
    pub cases: u64,
    /// Why it was skipped, or how the failure was found.
    pub note: Option<String>,
    /// The evidence of a breach.
    pub failure: Option<Failure>,
}

impl PropertyRecord {
    /// What the verdict rests on: `N generated cases`, or the manifest (see [`Rule::extent`]).
    pub fn extent(&self) -> String {
        self.rule.extent(self.cases)
    }
}

/// What another mutating webhook does between two calls: adds a label, an annotation, a container.
pub(crate) fn other_mutator(object: &Value) -> Value {
    let mut o = object.clone();
    if let Some(meta) = o.get_mut("metadata").and_then(Value::as_object_mut) {
        for (field, key, value) in
            [("labels", "other.example/injected", "1"), ("annotations", "other.example/touched", "yes")]
        {
            let map = meta.entry(field).or_insert_with(|| json!({}));
            if !map.is_object() {
                *map = json!({});
            }
            map[key] = json!(value);
        }
    }
    let kind = o.get("kind").and_then(Value::as_str).unwrap_or_default().to_string();
    if let Some(path) = pod_spec_path(&kind) {
        let mut spec = &mut o;
        for step in path {
            match spec.get_mut(*step) {
                Some(next) => spec = next,
                None => return o,
            }
        }
        if let Some(containers) = spec.get_mut("containers").and_then(Value::as_array_mut) {
            containers.push(json!({"name": "other-mutator", "image": "registry.example/other:1"}));
        }
    }
    o
}

/// What every call of the property step shares: the client, the tally of what was sent, and the
/// contract breaches seen on requests themselves (reported under their exchange rules).
pub(crate) struct Calls {
    pub client: Arc<Client>,
    pub tally: Arc<Tally>,
    pub breaches: Breaches,
}

/// Contract breaches on requests themselves: the first per webhook and rule, replaced by a minimal
/// one when the contract sweep shrinks one; and the tally of the requests held to the exchange
/// rules this way (sent, and how many of them broke one).
#[derive(Clone, Debug, Default)]
pub(crate) struct Breaches(Arc<Mutex<Vec<(String, ExchangeRecord)>>>, Arc<Mutex<(u64, u64)>>);

impl Breaches {
    fn first_fail(record: &ExchangeRecord) -> Option<&'static str> {
        record.findings.iter().find(|f| f.outcome == Outcome::Fail).map(|f| f.rule)
    }

    /// Keep `record` if it is the first breach of its rule for its webhook (or `minimal`).
    fn note(&self, record: &ExchangeRecord, minimal: bool) {
        if !minimal && record.sent() {
            let mut tally = self.1.lock().unwrap_or_else(|e| e.into_inner());
            tally.0 += 1;
            tally.1 += u64::from(Self::first_fail(record).is_some());
        }
        let Some(rule) = Self::first_fail(record) else { return };
        let key = format!("{}\u{0}{rule}", record.webhook.name);
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match kept.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) if minimal => slot.1 = record.clone(),
            Some(_) => {}
            None => kept.push((key, record.clone())),
        }
    }

    /// The breaches kept, in the order they were first seen.
    pub fn records(&self) -> Vec<ExchangeRecord> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(_, r)| r.clone()).collect()
    }

    /// Requests held to the exchange rules, and how many of them broke one.
    pub fn tally(&self) -> (u64, u64) {
        *self.1.lock().unwrap_or_else(|e| e.into_inner())
    }
}

async fn call(calls: &Calls, webhook: &Arc<WebhookSpec>, role: &str, derived: bool, case: RequestCase) -> Call {
    let record = exchange(&calls.client, webhook.clone(), case).await;
    calls.tally.record(&record);
    // A call that got no answer is its transport rule's finding, whichever request it carried.
    if !derived || matches!(record.transport, crate::client::Transport::Failed(_)) {
        calls.breaches.note(&record, false);
    }
    Call { role: role.to_string(), derived, record }
}

async fn observe(proc: Procedure, calls: &Calls, webhook: &Arc<WebhookSpec>, input: &RequestCase) -> Observation {
    let mut made = Vec::new();
    match proc {
        Procedure::Static => {}
        Procedure::Once => made.push(call(calls, webhook, "first", false, input.clone()).await),
        Procedure::Twice => {
            let (a, b) = tokio::join!(
                call(calls, webhook, "first", false, input.clone()),
                call(calls, webhook, "again (fresh uid)", false, input.with_fresh_uid())
            );
            made.extend([a, b]);
        }
        Procedure::DryRun => {
            let (a, b) = tokio::join!(
                call(calls, webhook, "dryRun=false", false, input.with_dry_run(false)),
                call(calls, webhook, "dryRun=true", true, input.with_dry_run(true))
            );
            let differ = !same(&a, &b);
            made.extend([a, b]);
            if differ {
                made.push(call(calls, webhook, "again dryRun=false", false, input.with_dry_run(false)).await);
            }
        }
        Procedure::Readmit | Procedure::Reinvoke => {
            let first = call(calls, webhook, "first", false, input.clone()).await;
            let next = (first.allowed() == Some(true) && !input.object().is_null() && first.failures().is_empty())
                .then(|| first.resulting())
                .flatten();
            made.push(first);
            if let Some(r1) = next {
                if proc == Procedure::Readmit {
                    let again = input.with_object(r1);
                    made.push(call(calls, webhook, "again (its own result, fresh uid)", true, again).await);
                } else {
                    let edited = input.with_object(other_mutator(&r1));
                    let second = call(calls, webhook, "second (after another mutator)", true, edited).await;
                    let r2 = (second.allowed() == Some(true) && second.failures().is_empty())
                        .then(|| second.resulting())
                        .flatten();
                    made.push(second);
                    if let Some(r2) = r2 {
                        let third = input.with_object(r2);
                        made.push(call(calls, webhook, "third (its reinvoked result)", true, third).await);
                    }
                }
            }
        }
    }
    Observation { webhook: webhook.clone(), input: Some(input.clone()), calls: made }
}

/// Live counters for a progress line.
#[derive(Debug)]
pub struct Progress {
    /// Generated cases judged.
    pub cases: AtomicU64,
    /// Requests sent.
    pub requests: AtomicU64,
    /// Properties that failed.
    pub failures: AtomicU64,
    /// Failures being shrunk right now.
    pub shrinking: AtomicU64,
    /// When the counting started.
    pub started: Instant,
}

impl Default for Progress {
    fn default() -> Self {
        Progress {
            cases: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            shrinking: AtomicU64::new(0),
            started: Instant::now(),
        }
    }
}

impl Progress {
    /// One line: generated cases judged, requests sent, rate, failing properties, failures being
    /// shrunk.
    pub fn line(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        let requests = self.requests.load(Ordering::Relaxed);
        let shrinking = match self.shrinking.load(Ordering::Relaxed) {
            0 => String::new(),
            n => format!(", shrinking {n} failure(s)"),
        };
        format!(
            "{} generated cases judged, {} requests sent, {:.0} requests/s, {} failing properties{shrinking}",
            self.cases.load(Ordering::Relaxed),
            requests,
            requests as f64 / secs,
            self.failures.load(Ordering::Relaxed)
        )
    }
}

fn seed_for(seed: u64, property: usize, worker: usize, round: usize) -> [u8; 32] {
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

fn regressions_file(dir: &Path, webhook: &str, property: &str) -> PathBuf {
    let clean = |s: &str| {
        s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '_' }).collect::<String>()
    };
    dir.join(format!("{}--{}.json", clean(webhook), clean(property)))
}

fn load_regressions(file: &Path) -> Vec<Value> {
    std::fs::read(file).ok().and_then(|b| serde_json::from_slice::<Vec<Value>>(&b).ok()).unwrap_or_default()
}

fn save_regression(file: &Path, review: &Value) -> std::io::Result<()> {
    let mut saved = load_regressions(file);
    let mut key = review.clone();
    key["request"]["uid"] = json!("");
    let unseen = saved.iter().all(|s| {
        let mut s = s.clone();
        s["request"]["uid"] = json!("");
        s != key
    });
    if unseen {
        saved.push(review.clone());
        let len = saved.len();
        saved.drain(..len.saturating_sub(20));
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(file, serde_json::to_vec_pretty(&saved).unwrap_or_default())?;
    }
    Ok(())
}

/// Sets the runners' stop flag when dropped.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Why `obs` tells nothing: a call of it was not sent (the path no longer called, or the run
/// cancelled).
fn unsent(obs: &Observation) -> Option<String> {
    obs.calls.iter().find(|c| !c.record.sent()).map(|c| match &c.record.transport {
        crate::client::Transport::Failed(f) => f.message.clone(),
        crate::client::Transport::Answered(_) => String::new(),
    })
}

/// The requests of `obs` that were sent.
fn sent(obs: &Observation) -> u64 {
    obs.calls.iter().filter(|c| c.record.sent()).count() as u64
}

struct Shared {
    handle: tokio::runtime::Handle,
    calls: Arc<Calls>,
    webhook: Arc<WebhookSpec>,
    procedure: Procedure,
    strategy: SBoxedStrategy<RequestCase>,
    check: fn(&Observation) -> Check,
    progress: Arc<Progress>,
    stop: Arc<AtomicBool>,
    /// Cases the property could judge (its check passed), not counting shrinking steps.
    judged: AtomicU64,
    /// Cases not judged because a call of them got no answer, not counting shrinking steps.
    unanswered: AtomicU64,
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
struct WorkerRun {
    /// Generated cases judged (shrinking steps not counted).
    ran: u64,
    /// The smallest failure found: what broke, and the calls.
    failure: Option<(String, Observation)>,
    /// Why generating or shrinking stopped early, when it did.
    cut: Option<String>,
}

/// One test runner: `cases` generated cases from `seed`; the minimal failure, if any.
fn run_worker(
    shared: &Shared,
    cases: u32,
    limits: (u32, Duration),
    seed: [u8; 32],
    deadline: Option<Instant>,
) -> WorkerRun {
    let (max_shrink_iters, max_shrink_time) = limits;
    let (proc, check) = (shared.procedure, shared.check);
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
        let obs = shared.handle.block_on(observe(proc, &shared.calls, &shared.webhook, &case));
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

fn outcome_of(rule: &Rule) -> Outcome {
    match rule.severity {
        Severity::Fail => Outcome::Fail,
        Severity::Warn => Outcome::Warn,
    }
}

/// The saved regressions of `file` as requests (a file that does not read is no regressions).
fn saved_requests(file: &Path, webhook: &WebhookSpec) -> Vec<RequestCase> {
    load_regressions(file)
        .into_iter()
        .filter_map(|v| serde_json::from_value::<AdmissionReview>(v).ok())
        .map(|review| {
            let primary = review.api_version == webhook.primary_review_version();
            RequestCase::from_review(&review, "saved regression".into(), primary)
        })
        .collect()
}

/// What the searches of one property step share.
struct Step<'a> {
    calls: &'a Arc<Calls>,
    progress: &'a Arc<Progress>,
    opts: &'a PropertyOptions,
    /// Requests tried before any generated one: the run's cases.
    seeds: &'a [CaseRequest],
    /// The campaign's time, handed out search by search, when the budget is a duration.
    shares: Option<Shares>,
    /// The resources of the apiserver the requests are drawn from.
    api: &'a ApiResources,
    /// The generated requests of each webhook and scope, built once.
    strategies: Mutex<Vec<Built>>,
}

/// The generated requests of one webhook (by name) and scope; `None` when its rules select none.
type Built = ((String, Scope), Option<SBoxedStrategy<RequestCase>>);

impl Step<'_> {
    /// The generated requests of `webhook` within `scope` (`None`: its rules select none).
    fn strategy(&self, webhook: &WebhookSpec, scope: Scope) -> Option<SBoxedStrategy<RequestCase>> {
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
}

/// One search for a failing request.
struct Search {
    procedure: Procedure,
    scope: Scope,
    check: fn(&Observation) -> Check,
    /// Its index among the searches, for the runners' seeds.
    index: usize,
    /// The regressions file of this search, if regressions are kept.
    file: Option<PathBuf>,
    /// Whether the cases' requests are tried first.
    seeded: bool,
    /// Its time, when the budget is a duration.
    budget: Option<Duration>,
}

/// A duration budget handed out search by search: each search gets an equal part of the time
/// left, so that the time a search does not use (its webhook has no such request, the property
/// does not apply) goes to the ones after it and the campaign runs for the duration asked.
struct Shares {
    end: Instant,
    left: std::sync::atomic::AtomicUsize,
}

impl Shares {
    fn new(duration: Duration, searches: usize, now: Instant) -> Shares {
        Shares { end: now + duration, left: std::sync::atomic::AtomicUsize::new(searches.max(1)) }
    }

    /// The next search's part of the time left at `now`.
    fn next(&self, now: Instant) -> Duration {
        let left = self.left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| Some(n.saturating_sub(1)));
        let left = left.unwrap_or(1).max(1);
        self.end.saturating_duration_since(now) / u32::try_from(left).unwrap_or(u32::MAX)
    }
}

impl Step<'_> {
    /// The next search's time (`None`: the budget is a number of cases).
    fn share(&self) -> Option<Duration> {
        self.shares.as_ref().map(|s| s.next(Instant::now()))
    }
}

/// How a search ended.
struct Found {
    cases: u64,
    /// Cases the check could judge (it passed them).
    judged: u64,
    /// Cases not judged because a call of them got no answer (a transport rule's finding).
    unanswered: u64,
    failure: Option<Failure>,
    note: Option<String>,
    /// Why the search, or the shrinking of its failure, stopped early (requests no longer sent, the
    /// shrinking time spent), when it did.
    cut: Option<String>,
}

/// Try the seeds, the saved regressions, then generated requests until one breaks `search.check`;
/// shrink it.
async fn explore(step: &Step<'_>, webhook: &Arc<WebhookSpec>, search: Search) -> Result<Found, tokio::task::JoinError> {
    let (calls, progress, opts) = (step.calls, step.progress, step.opts);
    let (proc, check) = (search.procedure, search.check);
    let mut cases = 0u64;
    let mut judged = 0u64;
    let mut unanswered = 0u64;
    // The cases and the saved regressions are tried by the first shard of a campaign only.
    let seeds = if search.seeded && opts.shard.is_first() { step.seeds } else { &[] };
    for seed in seeds.iter().filter(|s| s.webhook == webhook.name && search.scope.admits_request(&s.request)) {
        let obs = observe(proc, calls, webhook, &seed.request).await;
        progress.requests.fetch_add(sent(&obs), Ordering::Relaxed);
        if let Some(why) = unsent(&obs) {
            return Ok(Found {
                cases,
                judged,
                unanswered,
                failure: None,
                note: None,
                cut: Some(format!("stopped: {why}")),
            });
        }
        cases += 1;
        unanswered += u64::from(unanswered_call(&obs).is_some());
        match check(&obs) {
            Check::Violated(v) => {
                let note = Some(format!("on case {}", seed.case));
                let failure = Some(Failure { message: v.detail, observation: obs, seed: None });
                return Ok(Found { cases, judged, unanswered, failure, note, cut: None });
            }
            Check::Pass => judged += 1,
            Check::NotApplicable(_) => {}
        }
    }
    let strategy = match step.strategy(webhook, search.scope) {
        Some(s) if !opts.budget.is_none() => s,
        _ => return Ok(Found { cases, judged, unanswered, failure: None, note: None, cut: None }),
    };
    if let Some(file) = search.file.as_ref().filter(|_| opts.shard.is_first()) {
        for case in saved_requests(file, webhook) {
            let obs = observe(proc, calls, webhook, &case).await;
            progress.requests.fetch_add(sent(&obs), Ordering::Relaxed);
            if let Some(why) = unsent(&obs) {
                return Ok(Found {
                    cases,
                    judged,
                    unanswered,
                    failure: None,
                    note: None,
                    cut: Some(format!("stopped: {why}")),
                });
            }
            cases += 1;
            unanswered += u64::from(unanswered_call(&obs).is_some());
            match check(&obs) {
                Check::Violated(v) => {
                    let note = Some(format!("replayed a saved regression from {}", file.display()));
                    let failure = Failure { message: v.detail, observation: obs, seed: None };
                    return Ok(Found { cases, judged, unanswered, failure: Some(failure), note, cut: None });
                }
                Check::Pass => judged += 1,
                Check::NotApplicable(_) => {}
            }
        }
    }
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
    let mut round = 0usize;
    loop {
        let mut tasks = tokio::task::JoinSet::new();
        for &(w, per_worker) in &runners {
            let shared = shared.clone();
            let seed = seed_for(opts.seed, search.index, w, round);
            let limits = (opts.max_shrink_iters, opts.max_shrink_time);
            tasks.spawn_blocking(move || (w, seed, run_worker(&shared, per_worker, limits, seed, deadline)));
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

/// Run one property (`index` among the searches) against one webhook.
async fn run_property(
    step: &Step<'_>,
    webhook: &Arc<WebhookSpec>,
    rule: &'static Rule,
    index: usize,
) -> Result<PropertyRecord, tokio::task::JoinError> {
    let progress = step.progress;
    let Judges::Property { procedure: proc, scope, check } = rule.judges else {
        unreachable!("run_property is only called for property rules")
    };
    let record = |outcome, cases, note: Option<String>, failure| PropertyRecord {
        rule,
        webhook: webhook.name.clone(),
        outcome,
        cases,
        note,
        failure,
    };
    if proc == Procedure::Static {
        let obs = Observation { webhook: webhook.clone(), input: None, calls: Vec::new() };
        return Ok(match check(&obs) {
            Check::Violated(v) => {
                progress.failures.fetch_add(1, Ordering::Relaxed);
                let message = match v.apiserver {
                    Some(said) => format!("{} — the apiserver: {said}", v.detail),
                    None => v.detail,
                };
                record(outcome_of(rule), 0, None, Some(Failure { message, observation: obs, seed: None }))
            }
            Check::NotApplicable(why) => record(Outcome::Skip, 0, Some(why), None),
            Check::Pass => record(Outcome::Pass, 0, None, None),
        });
    }
    if matches!(proc, Procedure::Readmit | Procedure::Reinvoke) && webhook.kind != WebhookKind::Mutating {
        return Ok(record(Outcome::Skip, 0, Some("a validating webhook does not mutate".into()), None));
    }
    if proc == Procedure::DryRun && !dry_run_supported(webhook) {
        return Ok(record(
            Outcome::Skip,
            0,
            Some("the apiserver sends it no dry-run request (see property.dry-run-config)".into()),
            None,
        ));
    }
    let file = step.opts.regressions.as_ref().map(|d| regressions_file(d, &webhook.name, rule.id));
    debug_assert!(searched(proc, webhook), "the searches counted for the duration budget are the ones run");
    let search = Search { procedure: proc, scope, check, index, file, seeded: true, budget: step.share() };
    let found = explore(step, webhook, search).await?;
    if let (None, Some(why)) = (&found.failure, &found.cut) {
        // Requests stopped being sent before the budget was spent: nothing is known of the rest.
        let note = format!("not judged after {} case(s): {why}", found.cases);
        return Ok(record(Outcome::Skip, found.cases, Some(note), None));
    }
    if found.cases == 0 {
        let note = found.note.unwrap_or_else(|| "its rules select no such request".into());
        return Ok(record(Outcome::Skip, 0, Some(note), None));
    }
    // Cases whose calls got no answer are the transport rules' findings: not judged, and said so.
    let unanswered = (found.unanswered > 0).then(|| {
        format!(
            "{} of {} case(s) not judged: a call got no answer (reported under its transport rule)",
            found.unanswered, found.cases
        )
    });
    let with_unanswered = |note: Option<String>| match (note, unanswered.clone()) {
        (Some(n), Some(u)) => Some(format!("{n}; {u}")),
        (n, u) => n.or(u),
    };
    Ok(match found.failure {
        Some(failure) => {
            progress.failures.fetch_add(1, Ordering::Relaxed);
            record(outcome_of(rule), found.cases, with_unanswered(found.note), Some(failure))
        }
        None if found.judged == 0 => record(
            Outcome::Skip,
            found.cases,
            with_unanswered(Some("no request could be judged: the webhook's answers to them break a contract rule, or deny them (see the rules above)".into())),
            None,
        ),
        None => record(Outcome::Pass, found.cases, with_unanswered(None), None),
    })
}

/// Whether a property with `proc` searches generated requests of `webhook` (it is not static and
/// applies to the webhook's kind and dry-run support), as `run_property` decides.
fn searched(proc: Procedure, webhook: &WebhookSpec) -> bool {
    match proc {
        Procedure::Static => false,
        Procedure::Readmit | Procedure::Reinvoke => webhook.kind == WebhookKind::Mutating,
        Procedure::DryRun => dry_run_supported(webhook),
        Procedure::Once | Procedure::Twice => true,
    }
}

/// The contract sweep's check: the request's own answer breaks a FAIL rule.
fn breaks_the_contract(obs: &Observation) -> Check {
    match obs.calls.iter().find(|c| !c.failures().is_empty()) {
        Some(c) => Check::violated_plain(c.failures().join("; ")),
        None => Check::Pass,
    }
}

/// A request of a case, as one webhook received it.
#[derive(Clone, Debug)]
pub(crate) struct CaseRequest {
    /// The case's name.
    pub case: String,
    /// The webhook.
    pub webhook: String,
    /// The request it received.
    pub request: RequestCase,
}

/// What the property step found.
pub(crate) struct PropertyStep {
    /// Each property's verdict, per webhook.
    pub records: Vec<PropertyRecord>,
    /// Contract breaches on generated requests (minimal where the sweep shrank one), for their
    /// exchange rules.
    pub breaches: Vec<ExchangeRecord>,
    /// Requests of the step held to every exchange rule (each first call: the contract sweep's and
    /// the properties' generated requests, and the cases' again).
    pub contract_cases: u64,
    /// How many of them broke a FAIL rule.
    pub contract_breaches: u64,
    /// What the report should say about the sweep (a breach whose shrinking was cut short).
    pub notes: Vec<String>,
}

/// The property rules `opts` selects, with their index among all properties (for seeds).
pub(crate) fn selected(opts: &PropertyOptions) -> Vec<(usize, &'static Rule)> {
    crate::rules::of_kind(crate::rules::RuleKind::Property)
        .enumerate()
        .filter(|(_, p)| opts.only.is_empty() || opts.only.iter().any(|o| o == p.id))
        .collect()
}

/// The contract sweep on generated requests of every operation (breaches shrunk and attributed to
/// their exchange rules), then the selected properties, against every webhook; the cases' requests
/// are held to the properties first.
pub(crate) async fn run_properties(
    webhooks: &[Arc<WebhookSpec>],
    calls: Arc<Calls>,
    seeds: &[CaseRequest],
    opts: &PropertyOptions,
    progress: Arc<Progress>,
    api: &ApiResources,
) -> Result<PropertyStep, tokio::task::JoinError> {
    let selected = selected(opts);
    let sweeps = [Scope::All, Scope::Operations];
    let sweeping = if opts.only.is_empty() { sweeps.len() } else { 0 };
    let searches: usize = webhooks
        .iter()
        .map(|w| {
            let procedure = |rule: &Rule| match rule.judges {
                Judges::Property { procedure, .. } => procedure,
                _ => Procedure::Static,
            };
            sweeping + selected.iter().filter(|(_, rule)| searched(procedure(rule), w)).count()
        })
        .sum();
    let shares = opts.budget.duration.map(|d| Shares::new(d, searches, Instant::now()));
    let mut records = Vec::new();
    let properties = crate::rules::of_kind(crate::rules::RuleKind::Property).count();
    let step = Step { calls: &calls, progress: &progress, opts, seeds, shares, api, strategies: Mutex::default() };
    let mut notes = Vec::new();
    for webhook in webhooks {
        if opts.only.is_empty() {
            for (i, scope) in sweeps.into_iter().enumerate() {
                if calls.client.is_cancelled() {
                    break;
                }
                let file = opts.regressions.as_ref().map(|d| regressions_file(d, &webhook.name, "contract"));
                let search = Search {
                    procedure: Procedure::Once,
                    scope,
                    check: breaks_the_contract,
                    index: properties + i,
                    file,
                    seeded: false,
                    budget: step.share(),
                };
                let found = explore(&step, webhook, search).await?;
                if let Some(first) = found.failure.as_ref().and_then(|f| f.observation.calls.first()) {
                    calls.breaches.note(&first.record, true);
                    if let Some(why) = &found.cut {
                        notes.push(format!(
                            "{}: the generated request breaking {} was not shrunk to the end: {why}",
                            webhook.name,
                            Breaches::first_fail(&first.record).unwrap_or("a contract rule")
                        ));
                    }
                }
            }
        }
        for &(index, rule) in &selected {
            if calls.client.is_cancelled() {
                // The run is over: the searches left are not started.
                break;
            }
            records.push(run_property(&step, webhook, rule, index).await?);
        }
    }
    let (contract_cases, contract_breaches) = calls.breaches.tally();
    Ok(PropertyStep { records, breaches: calls.breaches.records(), contract_cases, contract_breaches, notes })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A property judged on the configuration says so instead of counting cases it never had.
    #[test]
    fn the_extent_of_a_property_is_its_cases_or_the_manifest() {
        let record = |id: &str, cases| PropertyRecord {
            rule: crate::rules::rule(id).expect("a catalog rule"),
            webhook: "w".into(),
            outcome: Outcome::Pass,
            cases,
            note: None,
            failure: None,
        };
        assert_eq!(record("property.dry-run-config", 0).extent(), "judged on the manifest");
        assert_eq!(record("property.idempotent", 16).extent(), "16 generated cases");
        assert_eq!(record("property.dry-run", 0).extent(), "0 generated cases");
    }

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
