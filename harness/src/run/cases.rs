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
use crate::conditions::{rejection, Decision as Matched};
use crate::config::{WebhookKind, WebhookSpec};
use crate::exchange::ExchangeRecord;
use crate::rules::{CASE_EXPECTATION as EXPECTATION, GOLDEN_UNCHANGED as GOLDEN};
use crate::verdict::{Finding, Outcome};

/// One case's run and verdicts.
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
    /// The calls made, also held to the rule catalog (they are part of the run's records).
    pub records: Vec<ExchangeRecord>,
    /// The answers as the golden snapshot holds them.
    pub snapshot: String,
    /// `case.expectation` and `golden.unchanged`.
    pub findings: Vec<Finding>,
}
impl CaseRecord {
    /// The worst outcome over the case's own rules and its answers' catalog rules.
    pub fn outcome(&self) -> Outcome {
        let own = self.findings.iter().map(|f| f.outcome);
        let answers = self.records.iter().flat_map(|r| r.findings.iter().map(|f| f.outcome));
        own.chain(answers).filter(|o| *o != Outcome::Skip).max().unwrap_or(Outcome::Skip)
    }
}

fn first_fail(findings: &[Finding]) -> Option<&Finding> {
    findings.iter().find(|f| f.outcome == Outcome::Fail)
}

/// Admit `case` through `webhooks` (already chosen by [`webhooks_for`]).
pub async fn run_case(client: &Client, case: &Case, webhooks: &[&WebhookSpec]) -> CaseRun {
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
            Matched::Call => {}
            Matched::Reject(errors) => {
                let r = &request.review.request;
                let says = rejection(&r.resource, r.name.as_deref().unwrap_or_default(), &errors);
                decision = Decision::Denied(webhook.name.clone(), says);
                break;
            }
            Matched::Skip(_) | Matched::Ignore(_) | Matched::Unknown(_) => continue,
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

fn finding(rule: &'static str, outcome: Outcome, detail: Option<String>) -> Finding {
    Finding { rule, outcome, detail, apiserver_message: None }
}

/// Judge one case's run: expectations and snapshot.
pub fn judge(case: &Case, run: CaseRun, golden: &GoldenMode) -> CaseRecord {
    const NOT_SELECTED: &str = "no webhook of the manifest selects this case";
    let snapshot = snapshot::render(case, &run);
    let mut findings = Vec::new();
    let not_sent = match &run.decision {
        Decision::NotSent(w, why) => Some(format!("not judged: the request was not sent to {w}: {why}")),
        _ => None,
    };
    let expectation = if run.decision == Decision::NotSelected && case.webhook.is_none() {
        Finding::skip(EXPECTATION, NOT_SELECTED)
    } else if let Some(why) = &not_sent {
        Finding::skip(EXPECTATION, why.clone())
    } else if case.expect.is_empty() {
        Finding::skip(EXPECTATION, "the case has no expect:")
    } else {
        match check_expectations(case, &run) {
            Ok(()) => finding(EXPECTATION, Outcome::Pass, None),
            Err(d) => finding(EXPECTATION, Outcome::Fail, Some(d)),
        }
    };
    findings.push(expectation);
    let golden_finding = match golden {
        GoldenMode::Off => Finding::skip(GOLDEN, "no golden directory given"),
        _ if run.decision == Decision::NotSelected => Finding::skip(GOLDEN, NOT_SELECTED),
        _ if not_sent.is_some() => Finding::skip(GOLDEN, not_sent.clone().unwrap_or_default()),
        GoldenMode::Check(dir) => match snapshot::compare(dir, &case.name, &snapshot) {
            Golden::Unchanged => finding(GOLDEN, Outcome::Pass, None),
            Golden::Missing(p) => finding(
                GOLDEN,
                Outcome::Fail,
                Some(format!("no snapshot {}: run with --update-golden to accept this run's answers", p.display())),
            ),
            Golden::Changed(p, diff) => finding(
                GOLDEN,
                Outcome::Fail,
                Some(format!("the answer differs from {} (accept with --update-golden):\n{diff}", p.display())),
            ),
        },
        GoldenMode::Update(dir) => match snapshot::compare(dir, &case.name, &snapshot) {
            Golden::Unchanged => finding(GOLDEN, Outcome::Pass, None),
            _ => match snapshot::write(dir, &case.name, &snapshot) {
                Ok(p) => finding(GOLDEN, Outcome::Pass, Some(format!("snapshot written: {}", p.display()))),
                Err(e) => {
                    finding(GOLDEN, Outcome::Fail, Some(format!("cannot write the snapshot to {}: {e}", dir.display())))
                }
            },
        },
    };
    findings.push(golden_finding);
    CaseRecord {
        name: case.name.clone(),
        file: case.file.clone(),
        what: case.what(),
        decision: run.decision,
        records: run.records,
        snapshot,
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
) -> Result<Vec<CaseRecord>, crate::Error> {
    let mut out = Vec::with_capacity(cases.len());
    for case in cases {
        let case = &case.clone().bind(api);
        let chosen = webhooks_for(case, webhooks, api).map_err(|message| crate::error::CaseError {
            file: case.file.clone(),
            line: None,
            field: Some("webhook".into()),
            message,
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
