//! The case step of a run: each case admitted as the apiserver admits a request (the mutating
//! webhooks that select it in manifest order, each seeing the object the previous one patched, then
//! the validating webhooks on the final object; a denial or a rejected answer stops the admission),
//! and judged by its expectation and its snapshot.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use super::send::exchange;
use crate::cases::{request_case, selected_by, snapshot, webhooks_for, Case, CaseRun, Decision, Golden, GoldenMode};
use crate::checks::case::check_expectations;
use crate::client::{Client, Transport};
use crate::conditions::{rejection, Dispatch};
use crate::config::{WebhookKind, WebhookSpec};
use crate::exchange::ExchangeRecord;
use crate::rules::{judge as judge_rule, known, CASE_EXPECTATION as EXPECTATION, GOLDEN_UNCHANGED as GOLDEN};
use crate::verdict::{Check, Finding, Outcome};

/// One case's run (its verdicts are in the run's list of findings, about [`Subject::Case`]).
#[derive(Clone, Debug)]
pub struct CaseRecord {
    /// The case's name (its file stem).
    pub name: String,
    /// Its file.
    pub file: PathBuf,
    /// `CREATE pods`, `UPDATE deployments/scale`.
    pub what: String,
    /// How the admission ended.
    pub decision: Decision,
    /// The calls made: their places in the run's exchanges (`Records::exchanges`), which hold them
    /// to the rule catalog like every other exchange.
    pub exchanges: Vec<usize>,
    /// The answers as the golden snapshot holds them.
    pub snapshot: String,
}

/// A case judged, before the run's records give it and its calls their places.
pub(crate) struct JudgedCase {
    /// The case (its `exchanges` are filled in when the calls are placed).
    pub record: CaseRecord,
    /// Its calls, with their exchange rules' verdicts.
    pub calls: Vec<ExchangeRecord>,
    /// `case.expectation` and `golden.unchanged`.
    pub findings: Vec<Finding>,
}

fn first_fail(findings: &[Finding]) -> Option<&Finding> {
    findings.iter().find(|f| f.outcome() == Outcome::Fail)
}

/// Admit `case` through `webhooks` (already chosen by [`webhooks_for`]).
pub(crate) async fn run_case(client: &Client, case: &Case, webhooks: &[&WebhookSpec]) -> CaseRun {
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    let mut current = case.object.clone();
    if webhooks.is_empty() {
        return CaseRun { records, decision: Decision::NotSelected, final_object: current, warnings };
    }
    let mut decision = Decision::Allowed;
    for webhook in webhooks {
        let request = request_case(case, webhook, &current);
        if !selected_by(webhook, &request) {
            // The apiserver does not call a webhook whose selectors leave this object out.
            continue;
        }
        // Nor one whose matchConditions do not all hold; errors under failurePolicy Fail reject the
        // request without calling it.
        match webhook.conditions.decide(&request.review.request) {
            Dispatch::Call => {}
            Dispatch::Reject(errors) => {
                let r = &request.review.request;
                let says = rejection(&r.resource, r.name.as_deref().unwrap_or_default(), &errors);
                decision = Decision::Denied(webhook.name.clone(), says);
                break;
            }
            Dispatch::Skip(_) | Dispatch::Ignore(_) | Dispatch::Unknown(_) => continue,
        }
        let record = exchange(client, Arc::new((*webhook).clone()), request).await;
        if let (false, Transport::Failed(f)) = (record.sent(), &record.transport) {
            // Nothing was asked of the webhook: the admission has no outcome to judge.
            decision = Decision::NotSent(webhook.name.clone(), f.message.clone());
            records.push(record);
            break;
        }
        let x = record.view();
        if let Some(list) = x.response().and_then(|r| r.get("warnings")).and_then(Value::as_array) {
            warnings.extend(list.iter().filter_map(Value::as_str).map(String::from));
        }
        if let Some(f) = first_fail(&record.findings) {
            let says = f.apiserver_message.clone().or_else(|| f.detail.clone()).unwrap_or_default();
            decision = Decision::Rejected(webhook.name.clone(), f.rule.to_string(), says);
        } else if x.allowed() != Some(true) {
            let status = x.response().and_then(|r| r.get("status"));
            let text = |k: &str| status.and_then(|s| s.get(k)).and_then(Value::as_str).unwrap_or_default().to_string();
            let message = if text("message").is_empty() { text("reason") } else { text("message") };
            decision = Decision::Denied(webhook.name.clone(), message);
        } else if webhook.kind == WebhookKind::Mutating {
            // The next webhook sees the patched object.
            if let Some(Ok(patched)) = x.patched() {
                current = patched.clone();
            }
        }
        let stop = decision != Decision::Allowed;
        records.push(record);
        if stop {
            break;
        }
    }
    let final_object = current;
    CaseRun { records, decision, final_object, warnings }
}

/// Judge one case's run: expectations and snapshot.
pub(crate) fn judge(case: &Case, run: CaseRun, golden: &GoldenMode) -> JudgedCase {
    const NOT_SELECTED: &str = "no webhook of the manifest selects this case";
    let (expectation_rule, golden_rule) = (known(EXPECTATION), known(GOLDEN));
    let snapshot = snapshot::render(case, &run);
    let mut findings = Vec::new();
    let not_sent = match &run.decision {
        Decision::NotSent(w, why) => Some(format!("not judged: the request was not sent to {w}: {why}")),
        _ => None,
    };
    let expectation = if run.decision == Decision::NotSelected && case.webhook.is_none() {
        Check::na(NOT_SELECTED)
    } else if let Some(why) = &not_sent {
        Check::na(why.clone())
    } else if case.expect.is_empty() {
        Check::na("the case has no expect:")
    } else {
        check_expectations(case, &run)
    };
    findings.push(judge_rule(expectation_rule, expectation));
    let mut written = None;
    let golden_check = match golden {
        GoldenMode::Off => Check::na("no golden directory given"),
        _ if run.decision == Decision::NotSelected => Check::na(NOT_SELECTED),
        _ if not_sent.is_some() => Check::na(not_sent.clone().unwrap_or_default()),
        GoldenMode::Check(dir) => match snapshot::compare(dir, &case.name, &snapshot) {
            Golden::Unchanged => Check::Pass,
            Golden::Missing(p) => Check::violated_plain(format!(
                "no snapshot {}: run with --update-golden to accept this run's answers",
                p.display()
            )),
            Golden::Changed(p, diff) => Check::violated_plain(format!(
                "the answer differs from {} (accept with --update-golden):\n{diff}",
                p.display()
            )),
        },
        GoldenMode::Update(dir) => match snapshot::compare(dir, &case.name, &snapshot) {
            Golden::Unchanged => Check::Pass,
            _ => match snapshot::write(dir, &case.name, &snapshot) {
                Ok(p) => {
                    written = Some(format!("snapshot written: {}", p.display()));
                    Check::Pass
                }
                Err(e) => Check::violated_plain(format!("cannot write the snapshot to {}: {e}", dir.display())),
            },
        },
    };
    let golden_finding = judge_rule(golden_rule, golden_check);
    findings.push(match written {
        Some(note) => golden_finding.noting(note),
        None => golden_finding,
    });
    JudgedCase {
        record: CaseRecord {
            name: case.name.clone(),
            file: case.file.clone(),
            what: case.what(),
            decision: run.decision,
            exchanges: Vec::new(),
            snapshot,
        },
        calls: run.records,
        findings,
    }
}

/// Run every case against the target, one after the other.
pub(crate) async fn run_cases(
    cases: &[Case],
    webhooks: &[WebhookSpec],
    client: &Client,
    golden: &GoldenMode,
    api: &crate::requests::ApiResources,
) -> Result<Vec<JudgedCase>, crate::Error> {
    let mut out = Vec::with_capacity(cases.len());
    for case in cases {
        let case = &case.clone().bind(api);
        let chosen = webhooks_for(case, webhooks, api).map_err(|e| crate::error::CaseError {
            file: case.file.clone(),
            line: None,
            field: Some("webhook".into()),
            message: e.to_string(),
        })?;
        let run = run_case(client, case, &chosen).await;
        if client.is_cancelled() {
            // Its answers are not all there: neither judged nor written as its snapshot.
            return Err(crate::Error::Interrupted);
        }
        out.push(judge(case, run, golden));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::cancel::Cancel;
    use crate::client::HttpVersions;
    use crate::config::Manifest;
    use crate::requests::ApiResources;
    use crate::targets::local_endpoint;
    use crate::tls::{ServingNames, TlsMaterial};

    /// Interrupted, the case step stops: the answers the webhook never gave are neither judged nor
    /// written as its snapshots (`--update-golden` would otherwise replace them with "not sent").
    #[tokio::test]
    async fn an_interrupted_case_step_writes_no_snapshot() {
        let manifest = Manifest::parse(Path::new("reference.yaml"), reference_webhook::MANIFEST).unwrap();
        let cases = crate::cases::load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases")).unwrap();
        let tls = TlsMaterial::generate(&ServingNames::default(), None).unwrap();
        let endpoint = local_endpoint(&manifest.webhooks, "127.0.0.1:9".parse().unwrap(), tls.ca_pem.as_bytes());
        let cancel = Cancel::new();
        cancel.cancel();
        let client = Client::new(endpoint, HttpVersions::Http1).unwrap().with_cancel(cancel);
        let golden = tempfile::tempdir().unwrap();
        let mode = GoldenMode::Update(golden.path().to_path_buf());
        let result = run_cases(&cases, &manifest.webhooks, &client, &mode, &ApiResources::built_in()).await;
        assert!(matches!(result, Err(crate::Error::Interrupted)), "{:?}", result.map(|r| r.len()));
        let written: Vec<_> = std::fs::read_dir(golden.path()).unwrap().flatten().map(|e| e.path()).collect();
        assert!(written.is_empty(), "snapshots written by an interrupted run: {written:?}");
    }
}
