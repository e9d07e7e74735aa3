//! Sending one request and judging the answer by every exchange rule, in the order the apiserver
//! processes it.

use std::sync::Arc;

use crate::client::{Client, FailureKind, Transport};
use crate::config::WebhookSpec;
use crate::exchange::{Exchange, ExchangeRecord, Stages};
use crate::requests::RequestCase;
use crate::rules::{judge, rule, Judges, CATALOG};
use crate::verdict::{Check, Finding, Outcome, Severity, Softened};

/// Send `case` to `webhook` and judge the answer.
pub async fn exchange(client: &Client, webhook: Arc<WebhookSpec>, case: RequestCase) -> ExchangeRecord {
    let path = webhook.path();
    let url = client.endpoint().call_url_of(Some(&webhook.name), &path, webhook.timeout_seconds).to_string();
    let transport =
        client.call_review_as(&webhook.name, &path, webhook.timeout_seconds, &case.review, case.primary).await;
    // The stages the rules derive are kept with the exchange: nothing decodes the answer again.
    let stages = Stages::default();
    let view = Exchange::kept(&webhook, &case, &transport, &url, &stages);
    let findings = evaluate(&view);
    let admission = view.admission(&findings);
    drop(view);
    ExchangeRecord { webhook, case, url, transport, findings, admission, stages }
}

/// The one exchange rule `id` on `x`, alone (none skipped before it, nothing softened): what that
/// rule costs, for benchmarks. `None` when `id` is no exchange rule.
pub fn evaluate_rule(id: &str, x: &Exchange) -> Option<Finding> {
    let rule = rule(id)?;
    let Judges::Exchange { check, .. } = rule.judges else { return None };
    Some(judge(rule, check(x)))
}

/// Every exchange rule of the catalog on `x`, in the apiserver's order. Once the apiserver would
/// reject the answer, the rules after that point are skipped: it never gets there. From the body on,
/// a reading the suite is not sure matches the apiserver's (a body its YAML decoder takes) only
/// WARNs.
pub fn evaluate(x: &Exchange) -> Vec<Finding> {
    if let Transport::Failed(f) = x.transport {
        if f.kind == FailureKind::NotSent {
            let rules = CATALOG.iter().filter(|r| matches!(r.judges, Judges::Exchange { .. }));
            return rules.map(|r| Finding::skip(r.id, format!("not sent: {}", f.message))).collect();
        }
    }
    // One finding per exchange rule (they come first in the catalog).
    let exchange_rules = CATALOG.iter().take_while(|r| matches!(r.judges, Judges::Exchange { .. })).count();
    let mut findings = Vec::with_capacity(exchange_rules);
    let mut stopped_at: Option<&'static str> = None;
    let mut reads_body = false;
    for rule in CATALOG {
        let Judges::Exchange { check, lenient_in_v1beta1 } = rule.judges else { continue };
        if let Some(stop) = stopped_at {
            findings.push(Finding::skip(rule.id, format!("the apiserver stops at {stop}")));
            continue;
        }
        reads_body |= rule.id == BODY_RULE;
        let unsure = if reads_body { x.reading().and_then(|r| r.unsure.as_deref()) } else { None };
        let lenient_here = lenient_in_v1beta1 && !x.v1();
        let fail_rule = rule.severity == Severity::Fail;
        let check = check(x);
        // Why a breach only WARNs, written only for a breach.
        let softened = if !fail_rule || !matches!(check, Check::Violated(_)) {
            Softened::No
        } else if lenient_here {
            Softened::ToWarn("WARN, not FAIL: the apiserver does not enforce this for admission.k8s.io/v1beta1".into())
        } else if !x.case.primary {
            Softened::ToWarn(format!(
                "WARN, not FAIL: a cluster sends {} to this webhook; only an older apiserver would send {}",
                x.webhook.primary_review_version(),
                x.case.version()
            ))
        } else if let Some(why) = unsure {
            Softened::ToWarn(format!("WARN, not FAIL: {why}"))
        } else {
            Softened::No
        };
        // A FAIL rule is enforced unless a breach of it would be softened (whether or not it was
        // broken here).
        let enforced = fail_rule && !lenient_here && x.case.primary && unsure.is_none();
        let mut finding = Finding::judge(rule.id, rule.severity, check, softened);
        if lenient_here {
            // A v1beta1 apiserver accepts the answer: it says nothing. Say what a v1 one would.
            if let (Some(said), Some(detail)) = (finding.apiserver_message.take(), finding.detail.as_mut()) {
                detail.push_str(&format!(" (a v1 apiserver would refuse it: {said})"));
            }
        }
        if enforced && finding.is_breach() {
            stopped_at = Some(rule.id);
        }
        debug_assert!(finding.outcome() != Outcome::Fail || enforced);
        findings.push(finding);
    }
    findings
}

/// The first exchange rule that reads the decoded body.
const BODY_RULE: &str = "review.body";
