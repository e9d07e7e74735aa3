//! A run: the steps that turn a started target into records, each step judging what it sends.
//!
//! ```text
//! manifest ──lint──────────────────────────────┐
//! target ─► client ─► planned requests ─► exchanges (exchange rules) ─┤
//!                  ─► cases ─► admissions (case rules + exchange rules)├─► Records ─► report
//!                  ─► generated requests ─► properties (property rules)┘
//! ```
//!
//! The run returns [`Records`]; the report assembles itself from them.

mod cases;
mod coverage;
mod lint;
mod properties;
mod send;
mod shard;
mod side_effects;
mod stoppable;

pub use cases::CaseRecord;
use cases::JudgedCase;
pub(crate) use coverage::Counts;
pub(crate) use coverage::Coverage;
#[cfg(test)]
pub(crate) use lint::lint;
pub(crate) use properties::PropertyOptions;
pub use properties::{Budget, Failure, Progress, PropertyRecord, DEFAULT_CASES, DEFAULT_CONCURRENCY};
pub use send::{evaluate, evaluate_rule, exchange};
pub use shard::{Shard, ShardError};

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use crate::auth::{ClientIdentity, Credentials};
use crate::cancel::Cancel;
use crate::cases::{Case, GoldenMode};
use crate::client::{AdmissionLog, Client, HttpVersions};
use crate::conditions::Authorizer;
use crate::config::WebhookSpec;
use crate::error::Error;
use crate::exchange::ExchangeRecord;
use crate::requests::{candidates, plan_in, selected, tally_conditions, ApiResources, Origin};
use crate::rules::{judge, known, Judges, CATALOG, TARGET_READY};
use crate::targets::RunningTarget;
use crate::verdict::{Check, Finding, Outcome, Softened, Subject};
use coverage::Tally;
use properties::{Breaches, Calls, CaseRequest};

/// What a run does, and how.
#[derive(Clone, Debug)]
pub(crate) struct RunOptions {
    /// Which HTTP versions the client offers.
    pub http: HttpVersions,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Judge the manifest.
    pub lint: bool,
    /// Send the planned requests (every selected resource, operation, object variant and version).
    pub contract: bool,
    /// Data-driven cases to admit.
    pub cases: Vec<Case>,
    /// What to do with the cases' snapshots.
    pub golden: GoldenMode,
    /// The property step.
    pub properties: PropertyOptions,
    /// The resources of the apiserver the suite plays (the built-ins and the CRDs given).
    pub api: ApiResources,
    /// Cancels the run from outside: nothing more is sent, the steps wind down.
    pub cancel: Cancel,
    /// How the suite authenticates to the webhooks.
    pub credentials: Credentials,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            http: HttpVersions::Http1,
            concurrency: DEFAULT_CONCURRENCY,
            lint: true,
            contract: true,
            cases: Vec::new(),
            golden: GoldenMode::Off,
            credentials: Credentials::None,
            properties: PropertyOptions::default(),
            api: ApiResources::built_in(),
            cancel: Cancel::default(),
        }
    }
}

/// The target as the report describes it.
#[derive(Clone, Debug, Default)]
pub struct TargetRecord {
    /// e.g. `command: ./hook --port 8443`.
    pub description: String,
    /// A CA file that still exists after the run, for the reproducers.
    pub ca_file: Option<PathBuf>,
    /// Where the reproducers must resolve the webhook's host to.
    pub resolve_to: Option<SocketAddr>,
    /// Things worth saying about the target and the run.
    pub notes: Vec<String>,
    /// The last lines the target wrote, when the suite started it.
    pub log_tail: Option<String>,
    /// How the reproducers authenticate to each webhook (webhooks called anonymously are absent).
    pub auth: BTreeMap<String, ReplayAuth>,
}

/// What a replay command presents to a webhook, as the run did (never a secret itself).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayAuth {
    /// The client certificate and key files, when they still exist after the run.
    pub certificate: Option<(PathBuf, PathBuf)>,
    /// A client certificate was presented (from files, or not kept).
    pub has_certificate: bool,
    /// A bearer token was sent (the replay reads it from `$WEBHOOK_TOKEN`).
    pub bearer_token: bool,
    /// Basic credentials of this user were sent (the replay asks for the password).
    pub basic_user: Option<String>,
}

/// Requests a run did not send to one webhook, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsent {
    /// The webhook.
    pub webhook: String,
    /// How many requests were not sent (planned, case and generated ones).
    pub requests: u64,
    /// Why.
    pub why: String,
}

/// Everything a run saw and judged.
#[derive(Clone, Debug, Default)]
pub struct Records {
    /// The target.
    pub target: TargetRecord,
    /// The webhooks judged, in manifest order.
    pub webhooks: Vec<Arc<WebhookSpec>>,
    /// Every rule's verdict on everything the run judged, each saying what it judged
    /// ([`Subject`]): the target, each webhook's manifest entry, each exchange, case and property
    /// run, and what each webhook was sent. The one list every report walks.
    pub findings: Vec<Finding>,
    /// Every planned, case and generated request judged by the exchange rules (their verdicts are
    /// in `findings`, about [`Subject::Exchange`]).
    pub exchanges: Vec<ExchangeRecord>,
    /// Each case's admission (its calls are in `exchanges`, its verdicts in `findings`).
    pub cases: Vec<CaseRecord>,
    /// Each property's run, per webhook (its verdict is in `findings`).
    pub properties: Vec<PropertyRecord>,
    /// Requests sent per webhook and operation × resource, and how they were answered.
    pub coverage: Coverage,
    /// The seed of the generated requests, when there were any.
    pub seed: Option<u64>,
    /// Requests sent by the property step (counted by the tally of `coverage`).
    pub property_requests: u64,
    /// Requests of the property step held to every exchange rule (the contract sweep's and the
    /// properties' first calls).
    pub contract_cases: u64,
    /// How many of them broke a FAIL rule (each rule's first breach is in `exchanges`).
    pub contract_breaches: u64,
    /// Requests not sent because the webhook had already missed its deadline several times in a
    /// row.
    pub unsent: Vec<Unsent>,
    /// How long the run took.
    pub duration: Duration,
    /// The shard of a campaign this run was, when it was one of several.
    pub shard: Option<Shard>,
}

impl Records {
    /// The records of a target that never became ready: one `target.ready` FAIL.
    pub(crate) fn not_ready(description: String, webhooks: &[WebhookSpec], message: String) -> Records {
        let ready = judge(known(TARGET_READY), Check::violated_plain(message)).about(Subject::Target);
        Records {
            target: TargetRecord { description, ..TargetRecord::default() },
            webhooks: webhooks.iter().cloned().map(Arc::new).collect(),
            findings: vec![ready],
            ..Records::default()
        }
    }

    /// Place an exchange in the records: its verdicts move to the list of findings, about it.
    pub(crate) fn add_exchange(&mut self, mut record: ExchangeRecord) -> usize {
        let index = self.exchanges.len();
        let subject = Subject::Exchange { index };
        self.findings.extend(std::mem::take(&mut record.findings).into_iter().map(|f| f.about(subject.clone())));
        self.exchanges.push(record);
        index
    }

    /// Place a judged case and its calls in the records.
    fn add_case(&mut self, judged: JudgedCase) {
        let JudgedCase { mut record, calls, findings } = judged;
        record.exchanges = calls.into_iter().map(|call| self.add_exchange(call)).collect();
        let subject = Subject::Case { index: self.cases.len() };
        self.findings.extend(findings.into_iter().map(|f| f.about(subject.clone())));
        self.cases.push(record);
    }

    /// Place a property's run and its verdict in the records.
    fn add_property(&mut self, record: PropertyRecord, finding: Finding) {
        self.findings.push(finding.about(Subject::Property { index: self.properties.len() }));
        self.properties.push(record);
    }

    /// The findings about `subject`.
    pub fn findings_about<'a>(&'a self, subject: &'a Subject) -> impl Iterator<Item = &'a Finding> + 'a {
        self.findings.iter().filter(move |f| &f.subject == subject)
    }

    /// The exchange rules' findings, each with the exchange it judged.
    pub fn exchange_findings(&self) -> impl Iterator<Item = (&ExchangeRecord, &Finding)> + '_ {
        self.findings.iter().filter_map(|f| match f.subject {
            Subject::Exchange { index } => self.exchanges.get(index).map(|x| (x, f)),
            _ => None,
        })
    }

    /// The property rules' findings, each with the run it judged.
    pub fn property_findings(&self) -> impl Iterator<Item = (&PropertyRecord, &Finding)> + '_ {
        self.findings.iter().filter_map(|f| match f.subject {
            Subject::Property { index } => self.properties.get(index).map(|p| (p, f)),
            _ => None,
        })
    }

    /// The worst outcome of the findings about `subject` (`Skip` when there are none).
    pub fn outcome_of(&self, subject: &Subject) -> Outcome {
        Outcome::worst(self.findings_about(subject).map(Finding::outcome))
    }

    /// The webhook a finding's subject belongs to (none for the target and a case, which may
    /// call several).
    pub fn webhook_of<'a>(&'a self, subject: &'a Subject) -> Option<&'a str> {
        match subject {
            Subject::Manifest { webhook } | Subject::Sent { webhook } | Subject::Calls { webhook } => Some(webhook),
            Subject::Exchange { index } => self.exchanges.get(*index).map(|x| x.webhook.name.as_str()),
            Subject::Property { index } => self.properties.get(*index).map(|p| p.webhook.as_str()),
            _ => None,
        }
    }

    /// A case's outcome: the worst of its own rules' and its calls' exchange rules' verdicts.
    pub fn case_outcome(&self, index: usize) -> Outcome {
        let exchanges = self.cases.get(index).map(|c| c.exchanges.as_slice()).unwrap_or_default();
        let calls = exchanges.iter().map(|&index| self.outcome_of(&Subject::Exchange { index }));
        Outcome::worst(std::iter::once(self.outcome_of(&Subject::Case { index })).chain(calls))
    }

    /// Each of a case's calls with their findings.
    pub fn case_calls(&self, index: usize) -> impl Iterator<Item = (&ExchangeRecord, Vec<&Finding>)> + '_ {
        let calls = self.cases.get(index).map(|c| c.exchanges.as_slice()).unwrap_or_default();
        calls.iter().filter_map(move |&i| {
            let subject = Subject::Exchange { index: i };
            let findings = self.findings.iter().filter(|f| f.subject == subject).collect();
            self.exchanges.get(i).map(|x| (x, findings))
        })
    }
}

/// `coverage.requests` for every webhook, from what was sent to it.
fn judge_coverage(webhooks: &[WebhookSpec], coverage: &Coverage) -> Vec<Finding> {
    let mut out = Vec::new();
    for rule in CATALOG {
        let Judges::Coverage { check } = rule.judges else { continue };
        for w in webhooks {
            let sent = coverage.get(&w.name).map(|m| m.values().map(|c| c.sent).sum()).unwrap_or(0);
            let finding = Finding::judge(rule.id, rule.severity, check(w, sent), Softened::No);
            out.push(finding.about(Subject::Sent { webhook: w.name.clone() }));
        }
    }
    out
}

/// What the report says of custom resources a webhook's rules select that a CRD of the run
/// describes: which, and what the generated objects draw from its schema.
fn crd_shapes(webhooks: &[WebhookSpec], api: &ApiResources) -> Vec<String> {
    let mut notes = Vec::new();
    for w in webhooks {
        let mut described: Vec<String> = Vec::new();
        for t in selected(w, api) {
            let r = &t.resource;
            let Origin::Crd(schema) = &r.origin else { continue };
            let name = format!("{}/{} {}", r.group, r.version, r.plural);
            if !described.iter().any(|d| d.starts_with(&format!("{name} "))) {
                described.push(format!("{name} ({})", crate::requests::schema_summary(schema, 12)));
            }
        }
        if !described.is_empty() {
            notes.push(format!(
                "{}: custom resources from their CustomResourceDefinition (--crd), the generated objects varied over the schema: {}",
                w.name,
                described.join("; and ")
            ));
        }
    }
    notes
}

/// What the report says of custom resources a webhook's rules select that no CRD of the run
/// describes: their objects are a guess.
fn guessed_shapes(webhooks: &[WebhookSpec], api: &ApiResources) -> Vec<String> {
    let mut notes = Vec::new();
    for w in webhooks {
        let mut guessed: Vec<String> = Vec::new();
        for t in selected(w, api) {
            let r = &t.resource;
            let name = format!("{}/{} {}", r.group, r.version, r.plural);
            if matches!(r.origin, Origin::Guessed) && !guessed.contains(&name) {
                guessed.push(name);
            }
        }
        if !guessed.is_empty() {
            notes.push(format!(
                "{}: no CustomResourceDefinition for {} (give it with --crd FILE): their objects were sent as plain JSON, a guess at their shape that a cluster may never send",
                w.name,
                guessed.join(", ")
            ));
        }
    }
    notes
}

/// Send every planned request of every webhook (several in flight) and judge each answer. The
/// webhooks take turns, and each one's requests of the version a cluster sends go first, so that
/// the first requests in flight reach every webhook: one that cannot answer is known as such after
/// its first few requests, whatever its place in the manifest.
async fn send_plan(
    webhooks: &[Arc<WebhookSpec>],
    client: &Arc<Client>,
    concurrency: usize,
    api: &ApiResources,
    progress: &Arc<Progress>,
) -> Vec<ExchangeRecord> {
    let limit = Arc::new(Semaphore::new(concurrency.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    let mut order = 0usize;
    let mut queues: Vec<_> = webhooks
        .iter()
        .map(|webhook| {
            let mut cases: Vec<_> = plan_in(webhook, api)
                .into_iter()
                .map(|case| {
                    order += 1;
                    (order - 1, case)
                })
                .collect();
            // The version a cluster sends goes first: its missed deadlines are the ones that decide.
            cases.sort_by_key(|(_, case)| !case.primary);
            (webhook, cases.into_iter())
        })
        .collect();
    let mut pending = true;
    // Once the run is cancelled nothing more is started; the calls in flight return at once.
    while pending && !client.is_cancelled() {
        pending = false;
        for (webhook, cases) in &mut queues {
            let Some((index, case)) = cases.next() else { continue };
            pending = true;
            // Taken here, in this order, not by the task: tasks start in whatever order the
            // scheduler picks, and the first requests in flight must be the ones that decide.
            let permit = limit.clone().acquire_owned().await.expect("the semaphore is never closed");
            let (client, webhook, progress) = (client.clone(), (*webhook).clone(), progress.clone());
            tasks.spawn(async move {
                let _permit = permit;
                let record = exchange(&client, webhook, case).await;
                progress.requests.fetch_add(u64::from(record.sent()), std::sync::atomic::Ordering::Relaxed);
                (index, record)
            });
        }
    }
    let mut records = Vec::with_capacity(order);
    while let Some(done) = tasks.join_next().await {
        match done {
            Ok(r) => records.push(r),
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(_) => {}
        }
    }
    records.sort_by_key(|(i, _)| *i);
    records.into_iter().map(|(_, r)| r).collect()
}

/// Run every step the options ask for against `target`.
pub(crate) async fn run(
    webhooks: &[WebhookSpec],
    target: &mut RunningTarget,
    options: &RunOptions,
    progress: Arc<Progress>,
) -> Result<Records, Error> {
    let started = Instant::now();
    let shared: Vec<Arc<WebhookSpec>> = webhooks.iter().cloned().map(Arc::new).collect();
    let (identities, auth_notes) = identities(webhooks, target, &options.credentials)?;
    let mut client =
        Client::with_identities(target.endpoint.clone(), options.http, ClientIdentity::anonymous(), &identities)?
            .with_cancel(options.cancel.clone())
            .with_call_time(progress.call_time.clone());
    // A session's target serves every run it makes: this run judges the calls made from now on.
    let api_calls_before = target.api_recording().map_or(0, |r| r.len());
    let admissions = Arc::new(match target.api_recording() {
        Some(recording) => {
            let recording = recording.clone();
            AdmissionLog::recording_calls(move || recording.last_at())
        }
        None => AdmissionLog::default(),
    });
    if target.api_recording().is_some() {
        client = client.with_admission_log(admissions.clone());
    }
    let client = Arc::new(client);
    let mut records = Records { webhooks: shared.clone(), ..Records::default() };
    // A cancelled run stops at the step it is in: the steps after it are not started, and what the
    // run has seen is not judged (nor an interrupted case's snapshot written).
    let cancel = &options.cancel;
    let interrupted = || if cancel.is_cancelled() { Err(Error::Interrupted) } else { Ok(()) };
    if options.lint {
        let user = target.user_certificates.then_some(&target.endpoint);
        records.findings = tokio::select! {
            manifest = lint::lint_served(webhooks, user) => manifest,
            () = cancel.cancelled() => return Err(Error::Interrupted),
        };
    }
    let tally = Arc::new(Tally::default());
    if options.contract {
        for x in send_plan(&shared, &client, options.concurrency, &options.api, &progress).await {
            tally.record(&x);
            records.add_exchange(x);
        }
        interrupted()?;
    }
    let mut seeds = Vec::new();
    let mut sweep_notes = Vec::new();
    if !options.cases.is_empty() {
        let judged = cases::run_cases(&options.cases, webhooks, &client, &options.golden, &options.api).await?;
        interrupted()?;
        let mut cases_sent = 0;
        for c in judged {
            for r in &c.calls {
                tally.record(r);
                cases_sent += u64::from(r.sent());
                seeds.push(CaseRequest {
                    case: c.record.name.clone(),
                    webhook: r.webhook.name.clone(),
                    request: r.case.clone(),
                });
            }
            records.add_case(c);
        }
        progress.requests.fetch_add(cases_sent, std::sync::atomic::Ordering::Relaxed);
    }
    if !options.properties.budget.is_none() || !seeds.is_empty() {
        records.seed = (!options.properties.budget.is_none()).then_some(options.properties.seed);
        records.shard = Some(options.properties.shard).filter(|s| !s.is_whole());
        let before = coverage::sent(&tally.snapshot());
        let calls = Arc::new(Calls { client: client.clone(), tally: tally.clone(), breaches: Breaches::default() });
        let step =
            properties::run_properties(&shared, calls, &seeds, &options.properties, progress.clone(), &options.api)
                .await
                .map_err(|e| Error::setup("a property runner failed", e))?;
        interrupted()?;
        for (record, finding) in step.records {
            records.add_property(record, finding);
        }
        records.contract_cases = step.contract_cases;
        records.contract_breaches = step.contract_breaches;
        sweep_notes = step.notes;
        // Breaches of the contract on generated requests are the exchange rules' findings.
        for x in step.breaches {
            records.add_exchange(x);
        }
        records.property_requests = coverage::sent(&tally.snapshot()) - before;
    }
    let effects =
        side_effects::observe(&shared, &client, &options.api, &admissions, target.api_recording(), api_calls_before)
            .await;
    interrupted()?;
    records.findings.extend(effects.findings);
    records.coverage = tally.snapshot();
    if options.contract {
        records.findings.extend(judge_coverage(webhooks, &records.coverage));
    }
    let mut notes = target.notes.clone();
    notes.extend(sweep_notes);
    notes.extend(effects.notes);
    notes.extend(auth_notes);
    for w in webhooks.iter().filter(|w| !w.conditions.is_empty()) {
        notes.extend(condition_notes(w));
    }
    notes.extend(guessed_shapes(webhooks, &options.api));
    notes.extend(crd_shapes(webhooks, &options.api));
    notes.extend(webhooks.iter().filter_map(|w| crate::checks::object_unmodelled_note(w, &options.api)));
    notes.extend(tally.unjudged_notes());
    if let Some(status) = target.exit_status() {
        notes.push(format!("the target exited during the run ({status})"));
    }
    for unsent in client.unsent() {
        let names: Vec<&str> = webhooks.iter().filter(|w| w.path() == unsent.path).map(|w| w.name.as_str()).collect();
        let webhook = if names.is_empty() { unsent.path.clone() } else { names.join(", ") };
        records.unsent.push(Unsent { webhook, requests: unsent.requests, why: unsent.why });
    }
    records.target = TargetRecord {
        description: target.description.clone(),
        ca_file: target.reproducer_ca(),
        resolve_to: target.endpoint.resolve_to,
        notes,
        log_tail: target.log_tail(),
        auth: identities.iter().filter(|(_, i)| !i.is_anonymous()).map(|(w, i)| (w.clone(), replay_auth(i))).collect(),
    };
    records.duration = started.elapsed();
    Ok(records)
}

/// What a webhook's matchConditions did to the run, for the report: how many of the planned
/// requests were sent as built, steered, or not sent and why, and each condition the suite cannot
/// evaluate.
fn condition_notes(w: &WebhookSpec) -> Vec<String> {
    let planned: Vec<_> = candidates(w).into_iter().map(|(_, spec)| spec).collect();
    let t = tally_conditions(w, planned);
    let mut parts = vec![format!("{} sent as built", t.as_built)];
    if t.steered > 0 {
        parts.push(format!("{} steered to satisfy them", t.steered));
    }
    if t.skipped > 0 {
        parts.push(format!("{} not sent (a condition is false: the apiserver skips the webhook)", t.skipped));
    }
    if t.errored > 0 {
        let policy = if w.conditions.fail_closed() {
            "failurePolicy Fail: the apiserver rejects the request"
        } else {
            "failurePolicy Ignore: the apiserver skips the webhook"
        };
        parts.push(format!("{} not sent (conditions error; {policy}; see manifest.condition-errors)", t.errored));
    }
    if t.unknown > 0 {
        parts.push(format!("{} not sent (decided by a condition the suite cannot evaluate)", t.unknown));
    }
    let mut notes = vec![format!(
        "{}: matchConditions evaluated (CEL) on the {} planned requests: {}; generated requests are held to them too",
        w.name,
        t.planned,
        parts.join(", ")
    )];
    for c in w.conditions.conditions() {
        if let Some(why) = c.unevaluable() {
            notes.push(format!(
                "{}: matchCondition {:?} cannot be evaluated by the suite ({why}); the requests it decides are not sent, so the webhook is not judged on them",
                w.name, c.name
            ));
        }
    }
    if w.conditions.conditions().iter().any(|c| c.expression.contains("authorizer"))
        && matches!(w.conditions.authorizer(), Authorizer::Unknown)
    {
        notes.push(format!(
            "{}: its matchConditions ask the authorizer, which is not described: describe what the cluster allows with --authorizer FILE",
            w.name
        ));
    }
    notes
}

/// Each webhook's name and the identity the suite presents to it.
type Identities = Vec<(String, ClientIdentity)>;

/// The identity the suite presents to each webhook under `credentials`, and what the report says
/// about them.
fn identities(
    webhooks: &[WebhookSpec],
    target: &RunningTarget,
    credentials: &Credentials,
) -> Result<(Identities, Vec<String>), Error> {
    let generated = target.tls.as_ref().and_then(|t| t.client.as_ref());
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for w in webhooks {
        let mut identity = credentials.identity_for(w, generated)?;
        if credentials.needs_generated_certificate() {
            // The generated files outlive the run only in a kept TLS directory.
            identity.certificate_files =
                target.tls.as_ref().filter(|t| !t.is_temporary()).map(|t| (t.client_cert_path(), t.client_key_path()));
        }
        if !matches!(credentials, Credentials::None) {
            let source = if identity.source.is_empty() { String::new() } else { format!(" ({})", identity.source) };
            notes.push(format!("{}: the suite presents {}{source}", w.name, identity.describe()));
        }
        out.push((w.name.clone(), identity));
    }
    Ok((out, notes))
}

fn replay_auth(identity: &ClientIdentity) -> ReplayAuth {
    ReplayAuth {
        certificate: identity.certificate_files.clone(),
        has_certificate: identity.certificate.is_some(),
        bearer_token: identity.bearer_token.is_some(),
        basic_user: identity.basic.as_ref().map(|(u, _)| u.clone()),
    }
}
