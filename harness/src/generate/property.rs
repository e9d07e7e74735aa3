//! Running the properties of `rules::PROPERTIES` on generated requests.
//!
//! Each property has a procedure (which calls it makes for one generated case) and a check (the
//! rule's `check`, over the [`Observation`] of those calls). Cases come from proptest's `TestRunner`
//! with a seed the caller controls; a failure is shrunk, and reported with the minimal request, the
//! answers side by side, a diff of the resulting objects and `curl` reproducers. Minimal failing
//! requests are saved in a regressions directory and replayed first on the next run.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use serde_json::{json, Value};

use super::{containers_of, diff, pod_spec_path, requests, Scope};
use crate::checks::{Check, Exchange};
use crate::client::{Client, HttpVersions, Transport};
use crate::config::{WebhookKind, WebhookSpec};
use crate::report::curl_command;
use crate::requests::RequestCase;
use crate::rules::{Outcome, PropertyRule, Severity, PROPERTIES};
use crate::run::{exchange, ExchangeRecord};
use crate::target::RunningTarget;

/// One call a property made, and what it was for.
#[derive(Clone, Debug)]
pub struct Call {
    /// e.g. `first`, `again (fresh uid)`, `dryRun=true`.
    pub role: String,
    pub record: ExchangeRecord,
}

impl Call {
    fn with<T>(&self, f: impl FnOnce(&Exchange) -> T) -> T {
        let r = &self.record;
        f(&Exchange::new(&r.webhook, &r.case, &r.transport, &r.url))
    }
    /// The object the apiserver carries on with after this answer (`None`: the patch did not apply).
    pub fn resulting(&self) -> Option<Value> {
        self.with(|x| x.resulting_object())
    }
    pub fn allowed(&self) -> Option<bool> {
        self.with(|x| x.allowed())
    }
    /// The FAIL findings of the per-answer rules.
    pub fn failures(&self) -> Vec<String> {
        self.record
            .findings
            .iter()
            .filter(|f| f.outcome == Outcome::Fail)
            .map(|f| format!("{}: {}", f.rule, f.detail.clone().unwrap_or_default()))
            .collect()
    }
    /// The answer as text: HTTP status, the body, and the decoded patch.
    pub fn answer_text(&self) -> String {
        match &self.record.transport {
            Transport::Failed(f) => format!("no answer: {}", f.message),
            Transport::Answered(a) => {
                let body = serde_json::from_slice::<Value>(&a.body)
                    .map(|v| serde_json::to_string_pretty(&v).unwrap_or_default())
                    .unwrap_or_else(|_| String::from_utf8_lossy(&a.body).into_owned());
                let mut s = format!("HTTP {}\n{body}", a.status);
                if let Some(patch) =
                    self.with(|x| x.nonempty_patch_bytes().map(|b| String::from_utf8_lossy(b).into_owned()))
                {
                    let pretty = serde_json::from_str::<Value>(&patch)
                        .map(|v| serde_json::to_string_pretty(&v).unwrap_or_default())
                        .unwrap_or(patch);
                    s.push_str(&format!("\npatch (decoded):\n{pretty}"));
                }
                s
            }
        }
    }
}

/// Every call one property made for one generated case.
#[derive(Clone, Debug)]
pub struct Observation {
    pub webhook: Arc<WebhookSpec>,
    /// The generated request.
    pub input: Option<RequestCase>,
    pub calls: Vec<Call>,
}

impl Observation {
    fn call(&self, role_prefix: &str) -> Option<&Call> {
        self.calls.iter().find(|c| c.role.starts_with(role_prefix))
    }
}

fn contract_breach(obs: &Observation) -> Option<Check> {
    let breaches: Vec<String> = obs
        .calls
        .iter()
        .flat_map(|c| c.failures().into_iter().map(move |f| format!("[{} call] {f}", c.role)))
        .collect();
    (!breaches.is_empty()).then(|| Check::violated_plain(format!("a contract rule fails: {}", breaches.join("; "))))
}

fn same(a: &Call, b: &Call) -> bool {
    a.allowed() == b.allowed() && a.resulting() == b.resulting()
}

fn difference(a: &Call, b: &Call) -> String {
    if a.allowed() != b.allowed() {
        return format!("decision {:?} on the {} call, {:?} on the {} call", a.allowed(), a.role, b.allowed(), b.role);
    }
    match (a.resulting(), b.resulting()) {
        (Some(x), Some(y)) => {
            let d = diff::diff(&x, &y);
            let first = d.first().map(|c| c.pointer.clone()).unwrap_or_default();
            format!("the resulting objects differ at {} place(s), first {first}", d.len())
        }
        _ => "the patch of one call does not apply".to_string(),
    }
}

pub(crate) fn check_contract(obs: &Observation) -> Check {
    if obs.calls.is_empty() {
        return Check::na("no request");
    }
    contract_breach(obs).unwrap_or(Check::Pass)
}

pub(crate) fn check_operations(obs: &Observation) -> Check {
    check_contract(obs)
}

fn mutating_first(obs: &Observation) -> Result<&Call, Check> {
    if obs.webhook.kind != WebhookKind::Mutating {
        return Err(Check::na("a validating webhook does not mutate"));
    }
    if let Some(c) = contract_breach(obs) {
        return Err(c);
    }
    let first = obs.call("first").ok_or_else(|| Check::na("no request"))?;
    if first.allowed() != Some(true) {
        return Err(Check::na("the first call denied the request"));
    }
    if first.record.case.object().is_null() {
        return Err(Check::na("no object to mutate"));
    }
    Ok(first)
}

pub(crate) fn check_idempotent(obs: &Observation) -> Check {
    let first = match mutating_first(obs) {
        Ok(f) => f,
        Err(c) => return c,
    };
    let Some(again) = obs.call("again") else { return Check::na("no re-admission") };
    if same(first, again) {
        return Check::Pass;
    }
    Check::violated_plain(format!(
        "admitting its own result again changes it: {} (a reinvoked or repeated admission would change the object again)",
        difference(first, again)
    ))
}

fn policy_note(w: &WebhookSpec) -> String {
    match w.reinvocation_policy.as_deref() {
        Some("IfNeeded") => " [reinvocationPolicy: IfNeeded: a cluster calls it again after other mutations]".into(),
        p => format!(
            " [reinvocationPolicy: {}: a cluster calls it once per admission, but the docs require every mutating webhook to be idempotent, and the object can already contain its change]",
            p.unwrap_or("Never (default)")
        ),
    }
}

/// Names that occur more than once in an array of named items (containers, env, volumes, …).
fn duplicated_names(value: &Value, path: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(m) => m.iter().for_each(|(k, v)| duplicated_names(v, &format!("{path}/{k}"), out)),
        Value::Array(items) => {
            let mut seen = std::collections::HashSet::new();
            for item in items {
                if let Some(name) = item.get("name").and_then(Value::as_str) {
                    if !seen.insert(name) {
                        out.push(format!("{path}: {name:?}"));
                    }
                }
                duplicated_names(item, path, out);
            }
        }
        _ => {}
    }
}

pub(crate) fn check_reinvocation(obs: &Observation) -> Check {
    let first = match mutating_first(obs) {
        Ok(f) => f,
        Err(c) => return c,
    };
    let note = policy_note(&obs.webhook);
    let (Some(second), Some(third)) = (obs.call("second"), obs.call("third")) else {
        return Check::na("no reinvocation");
    };
    if second.allowed() != Some(true) {
        return Check::violated_plain(format!("after another mutator's edit the reinvocation denies the object{note}"));
    }
    let (Some(r2), Some(_)) = (second.resulting(), first.resulting()) else {
        return Check::na("a patch did not apply");
    };
    let mut before = Vec::new();
    duplicated_names(second.record.case.object(), "", &mut before);
    let mut after = Vec::new();
    duplicated_names(&r2, "", &mut after);
    let added: Vec<&String> = after.iter().filter(|d| !before.contains(d)).collect();
    if !added.is_empty() {
        return Check::violated_plain(format!(
            "the reinvocation re-adds what the first call already added: duplicate {}{note}",
            added.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    if !same(second, third) {
        return Check::violated_plain(format!(
            "the reinvoked result is not a fixed point: {}{note}",
            difference(second, third)
        ));
    }
    Check::Pass
}

pub(crate) fn check_deterministic(obs: &Observation) -> Check {
    if let Some(c) = contract_breach(obs) {
        return c;
    }
    let (Some(a), Some(b)) = (obs.call("first"), obs.call("again")) else { return Check::na("no repeat") };
    if same(a, b) {
        Check::Pass
    } else {
        Check::violated_plain(format!("the same request with a fresh uid gets another answer: {}", difference(a, b)))
    }
}

fn dry_run_supported(w: &WebhookSpec) -> bool {
    matches!(w.side_effects.as_deref(), Some("None") | Some("NoneOnDryRun"))
}

pub(crate) fn check_dry_run(obs: &Observation) -> Check {
    if !dry_run_supported(&obs.webhook) {
        return Check::na("the apiserver sends it no dry-run request (see property.dry-run-config)");
    }
    if let Some(c) = contract_breach(obs) {
        return c;
    }
    let (Some(real), Some(dry)) = (obs.call("dryRun=false"), obs.call("dryRun=true")) else {
        return Check::na("no pair");
    };
    if same(real, dry) {
        return Check::Pass;
    }
    if let Some(again) = obs.call("again dryRun=false") {
        if !same(real, again) {
            return Check::na("the webhook answers the same request differently anyway (see property.deterministic)");
        }
    }
    Check::violated_plain(format!("dryRun: true is answered differently from dryRun: false: {}", difference(real, dry)))
}

pub(crate) fn check_dry_run_config(obs: &Observation) -> Check {
    match obs.webhook.side_effects.as_deref() {
        Some("None") | Some("NoneOnDryRun") => Check::Pass,
        other => Check::violated(
            format!("sideEffects is {}: only None and NoneOnDryRun are accepted on create, and dry-run requests to this webhook are refused", other.map(|s| format!("{s:?}")).unwrap_or_else(|| "not set".into())),
            format!("admission webhook {:?} does not support dry run", obs.webhook.name),
        ),
    }
}

/// What a property sends for one generated case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Procedure {
    Once,
    Twice,
    DryRun,
    Readmit,
    Reinvoke,
    Static,
}

fn procedure(id: &str) -> (Procedure, Scope) {
    match id {
        "property.contract" => (Procedure::Once, Scope::All),
        "property.operations" => (Procedure::Once, Scope::Operations),
        "property.idempotent" => (Procedure::Readmit, Scope::WithObject),
        "property.reinvocation" => (Procedure::Reinvoke, Scope::WithObject),
        "property.deterministic" => (Procedure::Twice, Scope::All),
        "property.dry-run" => (Procedure::DryRun, Scope::All),
        _ => (Procedure::Static, Scope::All),
    }
}

/// The same request with another object (a fresh uid).
pub fn with_object(case: &RequestCase, object: Value) -> RequestCase {
    let mut spec = case.spec.clone();
    spec.object = object;
    RequestCase::new(case.label.clone(), &case.version, case.primary, spec)
}

fn with_dry_run(case: &RequestCase, dry_run: bool) -> RequestCase {
    let mut spec = case.spec.clone();
    spec.dry_run = dry_run;
    RequestCase::new(case.label.clone(), &case.version, case.primary, spec)
}

/// What another mutating webhook does between two calls: adds a label, an annotation, a container.
pub fn other_mutator(object: &Value) -> Value {
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

async fn call(client: &Client, webhook: &Arc<WebhookSpec>, role: &str, case: RequestCase) -> Call {
    Call { role: role.to_string(), record: exchange(client, webhook.clone(), case).await }
}

async fn observe(proc: Procedure, client: &Client, webhook: &Arc<WebhookSpec>, input: &RequestCase) -> Observation {
    let mut calls = Vec::new();
    match proc {
        Procedure::Static => {}
        Procedure::Once => calls.push(call(client, webhook, "first", input.clone()).await),
        Procedure::Twice => {
            let (a, b) = tokio::join!(
                call(client, webhook, "first", input.clone()),
                call(client, webhook, "again (fresh uid)", input.with_fresh_uid())
            );
            calls.extend([a, b]);
        }
        Procedure::DryRun => {
            let (a, b) = tokio::join!(
                call(client, webhook, "dryRun=false", with_dry_run(input, false)),
                call(client, webhook, "dryRun=true", with_dry_run(input, true))
            );
            let differ = !same(&a, &b);
            calls.extend([a, b]);
            if differ {
                calls.push(call(client, webhook, "again dryRun=false", with_dry_run(input, false)).await);
            }
        }
        Procedure::Readmit | Procedure::Reinvoke => {
            let first = call(client, webhook, "first", input.clone()).await;
            let next = (first.allowed() == Some(true) && !input.object().is_null() && first.failures().is_empty())
                .then(|| first.resulting())
                .flatten();
            calls.push(first);
            if let Some(r1) = next {
                if proc == Procedure::Readmit {
                    calls
                        .push(call(client, webhook, "again (its own result, fresh uid)", with_object(input, r1)).await);
                } else {
                    let second =
                        call(client, webhook, "second (after another mutator)", with_object(input, other_mutator(&r1)))
                            .await;
                    let r2 = (second.allowed() == Some(true) && second.failures().is_empty())
                        .then(|| second.resulting())
                        .flatten();
                    calls.push(second);
                    if let Some(r2) = r2 {
                        calls.push(call(client, webhook, "third (its reinvoked result)", with_object(input, r2)).await);
                    }
                }
            }
        }
    }
    Observation { webhook: webhook.clone(), input: Some(input.clone()), calls }
}

/// Live counters for a progress line.
#[derive(Debug)]
pub struct Progress {
    pub cases: AtomicU64,
    pub requests: AtomicU64,
    pub failures: AtomicU64,
    pub started: Instant,
}

impl Default for Progress {
    fn default() -> Self {
        Progress {
            cases: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            started: Instant::now(),
        }
    }
}

impl Progress {
    pub fn line(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        let requests = self.requests.load(Ordering::Relaxed);
        format!(
            "{} cases, {} requests, {:.0} requests/s, {} failing properties",
            self.cases.load(Ordering::Relaxed),
            requests,
            requests as f64 / secs,
            self.failures.load(Ordering::Relaxed)
        )
    }
}

#[derive(Clone, Debug)]
pub struct FuzzOptions {
    /// Generated cases per property (ignored when `duration` is set).
    pub cases: u32,
    /// Run for this long instead, split over the properties.
    pub duration: Option<Duration>,
    pub seed: u64,
    /// Test runners (each with its own seed) per property at once.
    pub concurrency: usize,
    /// Where minimal failing requests are saved and replayed from.
    pub regressions: Option<PathBuf>,
    /// Only these property ids (all when empty).
    pub only: Vec<String>,
    pub max_shrink_iters: u32,
    pub http: HttpVersions,
}

impl Default for FuzzOptions {
    fn default() -> Self {
        FuzzOptions {
            cases: 64,
            duration: None,
            seed: 0,
            concurrency: 4,
            regressions: None,
            only: Vec::new(),
            max_shrink_iters: 1024,
            http: HttpVersions::Http1,
        }
    }
}

/// A failing property's evidence.
#[derive(Clone, Debug)]
pub struct Failure {
    pub message: String,
    /// The minimal failing case's calls.
    pub observation: Observation,
    /// The seed of the runner that found it (none for a replayed regression).
    pub seed: Option<u64>,
}

/// One property's verdict for one webhook.
#[derive(Clone, Debug)]
pub struct PropertyResult {
    pub rule: &'static PropertyRule,
    pub webhook: String,
    pub outcome: Outcome,
    pub cases: u64,
    pub note: Option<String>,
    pub failure: Option<Failure>,
}

/// Everything a fuzz run found.
#[derive(Debug)]
pub struct PropertyReport {
    pub seed: u64,
    pub target: String,
    pub results: Vec<PropertyResult>,
    pub requests: u64,
    pub duration: Duration,
    pub ca_file: Option<PathBuf>,
    pub resolve_to: Option<SocketAddr>,
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

struct Shared {
    handle: tokio::runtime::Handle,
    client: Arc<Client>,
    webhook: Arc<WebhookSpec>,
    rule: &'static PropertyRule,
    progress: Arc<Progress>,
    stop: Arc<AtomicBool>,
}

/// The detail of a breach of the property (either severity), none otherwise.
fn breach(check: &Check) -> Option<String> {
    match check {
        Check::Violated(v) => Some(v.detail.clone()),
        _ => None,
    }
}

/// One test runner: `cases` generated cases from `seed`; the minimal failure, if any.
fn run_worker(
    shared: &Shared,
    cases: u32,
    max_shrink_iters: u32,
    seed: [u8; 32],
    deadline: Option<Instant>,
) -> (u64, Option<(String, Observation)>) {
    let (proc, scope) = procedure(shared.rule.id);
    let Some(strategy) = requests(&shared.webhook, scope) else { return (0, None) };
    let config = Config { cases, max_shrink_iters, failure_persistence: None, source_file: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let last: Mutex<Option<(String, Observation)>> = Mutex::new(None);
    let ran = AtomicU64::new(0);
    let shrinking = AtomicBool::new(false);
    let result = runner.run(&strategy, |case| {
        // Another runner of this property has its (shrunk) failure: stop, shrinking included.
        // Past the deadline, new cases stop but a started shrink goes on.
        let past_deadline = deadline.is_some_and(|d| Instant::now() >= d);
        if shared.stop.load(Ordering::Relaxed) || (past_deadline && !shrinking.load(Ordering::Relaxed)) {
            return Ok(());
        }
        let obs = shared.handle.block_on(observe(proc, &shared.client, &shared.webhook, &case));
        shared.progress.requests.fetch_add(obs.calls.len() as u64, Ordering::Relaxed);
        if !shrinking.load(Ordering::Relaxed) {
            ran.fetch_add(1, Ordering::Relaxed);
            shared.progress.cases.fetch_add(1, Ordering::Relaxed);
        }
        match breach(&(shared.rule.check)(&obs)) {
            Some(detail) => {
                shrinking.store(true, Ordering::Relaxed);
                *last.lock().expect("not poisoned") = Some((detail.clone(), obs));
                Err(TestCaseError::fail(detail))
            }
            None => Ok(()),
        }
    });
    let ran = ran.load(Ordering::Relaxed);
    match result {
        Err(TestError::Fail(..)) => (ran, last.into_inner().expect("not poisoned")),
        _ => (ran, None),
    }
}

fn outcome_of(rule: &PropertyRule) -> Outcome {
    match rule.severity {
        Severity::Fail => Outcome::Fail,
        Severity::Warn => Outcome::Warn,
    }
}

/// Run one property against one webhook.
async fn run_property(
    shared: Shared,
    opts: &FuzzOptions,
    index: usize,
    budget: Option<Duration>,
) -> anyhow::Result<PropertyResult> {
    let rule = shared.rule;
    let webhook = shared.webhook.clone();
    let result = |outcome, cases, note: Option<String>, failure| PropertyResult {
        rule,
        webhook: webhook.name.clone(),
        outcome,
        cases,
        note,
        failure,
    };
    let (proc, scope) = procedure(rule.id);
    if proc == Procedure::Static {
        let obs = Observation { webhook: webhook.clone(), input: None, calls: Vec::new() };
        return Ok(match (rule.check)(&obs) {
            Check::Violated(v) => {
                shared.progress.failures.fetch_add(1, Ordering::Relaxed);
                let message = match v.apiserver {
                    Some(said) => format!("{} — the apiserver: {said}", v.detail),
                    None => v.detail,
                };
                result(outcome_of(rule), 0, None, Some(Failure { message, observation: obs, seed: None }))
            }
            Check::NotApplicable(why) => result(Outcome::Skip, 0, Some(why), None),
            Check::Pass => result(Outcome::Pass, 0, None, None),
        });
    }
    if matches!(proc, Procedure::Readmit | Procedure::Reinvoke) && webhook.kind != WebhookKind::Mutating {
        return Ok(result(Outcome::Skip, 0, Some("a validating webhook does not mutate".into()), None));
    }
    if proc == Procedure::DryRun && !dry_run_supported(&webhook) {
        return Ok(result(
            Outcome::Skip,
            0,
            Some("the apiserver sends it no dry-run request (see property.dry-run-config)".into()),
            None,
        ));
    }
    if requests(&webhook, scope).is_none() {
        return Ok(result(Outcome::Skip, 0, Some("its rules select no such request".into()), None));
    }
    let mut cases = 0u64;
    // Saved regressions first.
    let file = opts.regressions.as_ref().map(|d| regressions_file(d, &webhook.name, rule.id));
    if let Some(file) = &file {
        for review in load_regressions(file) {
            let primary = review["apiVersion"] == format!("admission.k8s.io/{}", webhook.primary_review_version());
            let Some(case) = super::case_from_review(&review, primary) else { continue };
            let obs = observe(proc, &shared.client, &webhook, &case).await;
            shared.progress.requests.fetch_add(obs.calls.len() as u64, Ordering::Relaxed);
            cases += 1;
            if let Check::Violated(v) = (rule.check)(&obs) {
                shared.progress.failures.fetch_add(1, Ordering::Relaxed);
                let note = Some(format!("replayed a saved regression from {}", file.display()));
                return Ok(result(
                    outcome_of(rule),
                    cases,
                    note,
                    Some(Failure { message: v.detail, observation: obs, seed: None }),
                ));
            }
        }
    }
    let shared = Arc::new(shared);
    let workers = opts.concurrency.max(1);
    let deadline = budget.map(|b| Instant::now() + b);
    let mut round = 0usize;
    loop {
        let mut tasks = tokio::task::JoinSet::new();
        let active = workers.min(if deadline.is_some() { workers } else { opts.cases.max(1) as usize });
        for w in 0..active {
            // Exactly `cases` in all: the first `cases % active` workers take one more.
            let per_worker = match deadline {
                Some(_) => 16,
                None => {
                    let n = opts.cases.max(1) as usize;
                    (n / active + usize::from(w < n % active)) as u32
                }
            };
            let shared = shared.clone();
            let seed = seed_for(opts.seed, index, w, round);
            let iters = opts.max_shrink_iters;
            tasks.spawn_blocking(move || (w, seed, run_worker(&shared, per_worker, iters, seed, deadline)));
        }
        let mut failures = Vec::new();
        while let Some(done) = tasks.join_next().await {
            let (w, seed, (ran, failure)) = done?;
            cases += ran;
            if let Some(f) = failure {
                shared.stop.store(true, Ordering::Relaxed);
                failures.push((w, seed, f));
            }
        }
        // The runner that finished first had the whole shrink; the others were cut short.
        if let Some((_, seed, (message, observation))) = failures.into_iter().next() {
            shared.progress.failures.fetch_add(1, Ordering::Relaxed);
            if let (Some(file), Some(input)) = (&file, &observation.input) {
                if let Err(e) = save_regression(file, &input.review) {
                    eprintln!("webhook-conformance: could not save the regression to {}: {e}", file.display());
                }
            }
            let seed = u64::from_le_bytes(seed[..8].try_into().expect("8 bytes"));
            let note = Some(format!("found by round {round}; --seed {} replays the run", opts.seed));
            return Ok(result(outcome_of(rule), cases, note, Some(Failure { message, observation, seed: Some(seed) })));
        }
        round += 1;
        match deadline {
            Some(d) if Instant::now() < d => continue,
            _ => break,
        }
    }
    Ok(result(Outcome::Pass, cases, None, None))
}

/// Run the properties against every webhook of `webhooks` served by `target`.
pub async fn fuzz(
    webhooks: &[WebhookSpec],
    target: &RunningTarget,
    opts: &FuzzOptions,
    progress: Arc<Progress>,
) -> anyhow::Result<PropertyReport> {
    let started = Instant::now();
    let client = Arc::new(Client::new(target.endpoint.clone(), opts.http)?);
    let selected: Vec<(usize, &'static PropertyRule)> = PROPERTIES
        .iter()
        .enumerate()
        .filter(|(_, p)| opts.only.is_empty() || opts.only.iter().any(|o| o == p.id))
        .collect();
    let budget = opts.duration.map(|d| d / (selected.len() * webhooks.len()).max(1) as u32);
    let mut results = Vec::new();
    for webhook in webhooks {
        let webhook = Arc::new(webhook.clone());
        for &(index, rule) in &selected {
            let shared = Shared {
                handle: tokio::runtime::Handle::current(),
                client: client.clone(),
                webhook: webhook.clone(),
                rule,
                progress: progress.clone(),
                stop: Arc::new(AtomicBool::new(false)),
            };
            results.push(run_property(shared, opts, index, budget).await?);
        }
    }
    Ok(PropertyReport {
        seed: opts.seed,
        target: target.description.clone(),
        results,
        requests: progress.requests.load(Ordering::Relaxed),
        duration: started.elapsed(),
        ca_file: target.reproducer_ca(),
        resolve_to: target.endpoint.resolve_to,
    })
}

fn side_by_side(left_title: &str, left: &str, right_title: &str, right: &str) -> String {
    const W: usize = 60;
    let cut = |s: &str| {
        let n = s.chars().count();
        if n > W {
            format!("{}…", s.chars().take(W - 1).collect::<String>())
        } else {
            format!("{s}{}", " ".repeat(W - n))
        }
    };
    let l: Vec<&str> = left.lines().collect();
    let r: Vec<&str> = right.lines().collect();
    let mut out = format!("    {} | {}\n    {} | {}\n", cut(left_title), right_title, "-".repeat(W), "-".repeat(W));
    for i in 0..l.len().max(r.len()) {
        let a = l.get(i).copied().unwrap_or("");
        let b = r.get(i).copied().unwrap_or("");
        out.push_str(&format!(
            "    {} | {}\n",
            cut(a),
            if b.chars().count() > W {
                format!("{}…", b.chars().take(W - 1).collect::<String>())
            } else {
                b.to_string()
            }
        ));
    }
    out
}

fn indent(s: &str, by: &str) -> String {
    s.lines().map(|l| format!("{by}{l}\n")).collect()
}

/// The request as JSON for a report, with very long strings cut.
fn compact(v: &Value) -> Value {
    match v {
        Value::String(s) if s.len() > 200 => {
            json!(format!("{}… ({} bytes)", s.chars().take(60).collect::<String>(), s.len()))
        }
        Value::Array(a) => Value::Array(a.iter().map(compact).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), compact(v))).collect()),
        v => v.clone(),
    }
}

impl PropertyReport {
    pub fn verdict(&self) -> crate::report::Verdict {
        if self.results.iter().any(|r| r.outcome == Outcome::Fail) {
            crate::report::Verdict::Fail
        } else {
            crate::report::Verdict::Pass
        }
    }

    fn ids(&self, outcome: Outcome) -> Vec<&'static str> {
        let mut ids = Vec::new();
        for r in &self.results {
            if r.outcome == outcome && !ids.contains(&r.rule.id) {
                ids.push(r.rule.id);
            }
        }
        ids
    }
    pub fn failed_rules(&self) -> Vec<&'static str> {
        self.ids(Outcome::Fail)
    }
    pub fn warned_rules(&self) -> Vec<&'static str> {
        self.ids(Outcome::Warn)
    }

    /// The report for people: one line per property and webhook, then each failure in full.
    pub fn render_text(&self) -> String {
        let mut s = format!(
            "target: {}\nseed: {} ({} requests in {:.1} s)\n\n",
            self.target,
            self.seed,
            self.requests,
            self.duration.as_secs_f64()
        );
        for r in &self.results {
            let outcome = format!("{:?}", r.outcome).to_uppercase();
            s.push_str(&format!(
                "{:4}  {:24} {}  ({} cases){}\n",
                outcome,
                r.rule.id,
                r.webhook,
                r.cases,
                r.note.as_ref().map(|n| format!(" — {n}")).unwrap_or_default()
            ));
        }
        for r in &self.results {
            if let Some(f) = &r.failure {
                s.push('\n');
                s.push_str(&self.render_failure(r, f));
            }
        }
        let failed = self.failed_rules();
        s.push_str(&format!(
            "\nverdict: {}{}\n",
            self.verdict().as_str().to_uppercase(),
            if failed.is_empty() { String::new() } else { format!(" — {}", failed.join(", ")) }
        ));
        s
    }

    fn render_failure(&self, r: &PropertyResult, f: &Failure) -> String {
        let mut s = format!(
            "== {} {} — {}\n   {}\n   {}\n",
            format!("{:?}", r.outcome).to_uppercase(),
            r.rule.id,
            r.webhook,
            r.rule.statement,
            f.message
        );
        if let Some(seed) = f.seed {
            s.push_str(&format!("   seed: {} (runner seed {seed:#x})\n", self.seed));
        }
        let obs = &f.observation;
        if let Some(input) = &obs.input {
            s.push_str(&format!("   minimal request ({}, {}):\n", input.label, input.version));
            s.push_str(&indent(&serde_json::to_string_pretty(&compact(&input.review)).unwrap_or_default(), "    "));
        }
        let pairs: Vec<(&Call, &Call)> = obs.calls.windows(2).map(|w| (&w[0], &w[1])).collect();
        if let Some((a, b)) = pairs.iter().rev().find(|(a, b)| !same(a, b)).or(pairs.last()) {
            s.push_str("   answers side by side:\n");
            s.push_str(&side_by_side(&a.role, &a.answer_text(), &b.role, &b.answer_text()));
            if let (Some(x), Some(y)) = (a.resulting(), b.resulting()) {
                s.push_str(&format!("   resulting objects, {} → {}:\n", a.role, b.role));
                s.push_str(&diff::render(&diff::diff(&x, &y), 30));
            }
        } else if let Some(c) = obs.calls.first() {
            s.push_str(&format!("   answer ({}):\n", c.role));
            s.push_str(&indent(&c.answer_text(), "    "));
        }
        if let Some(input) = &obs.input {
            let n = containers_of(input.object()).len();
            if n > 0 {
                s.push_str(&format!("   ({n} container(s) in the minimal request's object)\n"));
            }
        }
        for c in &obs.calls {
            s.push_str(&format!("   reproduce the {} call:\n", c.role));
            s.push_str(&indent(&curl_command(&c.record, self.ca_file.as_deref(), self.resolve_to), "    "));
        }
        s
    }
}
