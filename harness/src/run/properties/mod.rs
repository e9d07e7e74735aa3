//! The property step of a run: each property of the catalog on requests generated inside what the
//! webhook's rules select (and on the run's cases).
//!
//! Each property has a procedure (which calls it makes for one request) and a check (over the
//! [`Observation`] of those calls). Cases come from proptest's `TestRunner` with a seed the caller
//! controls; a failure is shrunk to a minimal request. Minimal failing requests are saved in a
//! regressions directory and replayed first on the next run.

mod budget;
mod explore;
mod lane;
mod mutators;
mod observe;
mod progress;
mod records;
mod regressions;
mod worker;

pub(crate) use budget::PropertyOptions;
pub use budget::{Budget, DEFAULT_CASES, DEFAULT_CONCURRENCY};
pub(crate) use observe::{Breaches, Calls};
pub use progress::Progress;
pub use records::{Failure, PropertyRecord};

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::checks::property::dry_run_supported;
use crate::checks::{Observation, Procedure};
use crate::config::{WebhookKind, WebhookSpec};
use crate::exchange::ExchangeRecord;
use crate::requests::generated::Scope;
use crate::requests::{ApiResources, RequestCase};
use crate::rules::{judge, Judges, Rule};
use crate::verdict::{Check, Finding, Outcome};
use budget::Shares;
use explore::{explore, Search, Step};
use regressions::regressions_file;

async fn run_property(
    step: &Step<'_>,
    webhook: &Arc<WebhookSpec>,
    rule: &'static Rule,
    index: usize,
) -> Result<(PropertyRecord, Finding), tokio::task::JoinError> {
    let progress = step.progress;
    let Judges::Property { procedure: proc, scope, check } = rule.judges else {
        unreachable!("run_property is only called for property rules")
    };
    // The verdict is the rule's on what the run saw: its failure, a pass, or why it does not apply.
    let record = |check: Check, cases, note: Option<String>, failure| {
        let finding = judge(rule, check);
        let finding = match &note {
            Some(n) if finding.outcome() != Outcome::Skip => finding.noting(n.clone()),
            _ => finding,
        };
        (PropertyRecord { rule, webhook: webhook.name.clone(), cases, note, failure }, finding)
    };
    let skip = |cases, why: String| record(Check::na(why.clone()), cases, Some(why), None);
    let failed = |cases, note, failure: Failure| {
        record(Check::violated_plain(failure.message.clone()), cases, note, Some(failure))
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
                failed(0, None, Failure { message, observation: obs, seed: None })
            }
            Check::NotApplicable(why) => skip(0, why),
            Check::Pass => record(Check::Pass, 0, None, None),
        });
    }
    if matches!(proc, Procedure::Readmit | Procedure::Reinvoke) && webhook.kind != WebhookKind::Mutating {
        return Ok(skip(0, "a validating webhook does not mutate".into()));
    }
    if proc == Procedure::DryRun && !dry_run_supported(webhook) {
        return Ok(skip(0, "the apiserver sends it no dry-run request (see property.dry-run-config)".into()));
    }
    let file = step.opts.regressions.as_ref().map(|d| regressions_file(d, &webhook.name, rule.id));
    debug_assert!(searched(proc, webhook), "the searches counted for the duration budget are the ones run");
    let search = Search { procedure: proc, scope, check, index, file, seeded: true, budget: step.share() };
    let found = explore(step, webhook, search).await?;
    if let (None, Some(why)) = (&found.failure, &found.cut) {
        // Requests stopped being sent before the budget was spent: nothing is known of the rest.
        let note = format!("not judged after {} case(s): {why}", found.cases);
        return Ok(skip(found.cases, note));
    }
    if found.cases == 0 {
        let note = found.note.unwrap_or_else(|| "its rules select no such request".into());
        return Ok(skip(0, note));
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
            failed(found.cases, with_unanswered(found.note), failure)
        }
        None if found.judged == 0 => skip(
            found.cases,
            with_unanswered(Some("no request could be judged: the webhook's answers to them break a contract rule, or deny them (see the rules above)".into())).unwrap_or_default(),
        ),
        None => record(Check::Pass, found.cases, with_unanswered(None), None),
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
    /// Each property's run and verdict, per webhook.
    pub records: Vec<(PropertyRecord, Finding)>,
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
    let step = Step {
        calls: &calls,
        progress: &progress,
        opts,
        seeds,
        shares,
        api,
        strategies: Mutex::default(),
        lanes: Mutex::default(),
    };
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
