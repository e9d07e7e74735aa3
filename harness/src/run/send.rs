//! Sending one request and judging the answer by every exchange rule, in the order the apiserver
//! processes it.

use std::sync::Arc;

use crate::client::Client;
use crate::config::WebhookSpec;
use crate::exchange::{Exchange, ExchangeRecord};
use crate::requests::RequestCase;
use crate::rules::{Judges, CATALOG};
use crate::verdict::{Finding, Outcome, Severity, Softened};

/// Send `case` to `webhook` and judge the answer.
pub async fn exchange(client: &Client, webhook: Arc<WebhookSpec>, case: RequestCase) -> ExchangeRecord {
    let body = case.review.to_bytes();
    let path = webhook.path();
    let url = client.endpoint().call_url(&path, webhook.timeout_seconds).to_string();
    let transport = client.call(&path, webhook.timeout_seconds, &body).await;
    let view = Exchange::new(&webhook, &case, &transport, &url);
    let findings = evaluate(&view);
    let admission = view.admission(&findings);
    drop(view);
    ExchangeRecord { webhook, case, url, transport, findings, admission }
}

/// Every exchange rule of the catalog on `x`, in the apiserver's order. Once the apiserver would
/// reject the answer, the rules after that point are skipped: it never gets there.
pub fn evaluate(x: &Exchange) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut stopped_at: Option<&'static str> = None;
    for rule in CATALOG {
        let Judges::Exchange { check, lenient_in_v1beta1 } = rule.judges else { continue };
        if let Some(stop) = stopped_at {
            findings.push(Finding::skip(rule.id, format!("the apiserver stops at {stop}")));
            continue;
        }
        let lenient_here = lenient_in_v1beta1 && !x.v1();
        let enforced = rule.severity == Severity::Fail && !lenient_here;
        let softened = if lenient_here && rule.severity == Severity::Fail {
            Softened::ToWarn("WARN, not FAIL: the apiserver does not enforce this for admission.k8s.io/v1beta1".into())
        } else if enforced && !x.case.primary {
            Softened::ToWarn(format!(
                "WARN, not FAIL: a cluster sends {} to this webhook; only an older apiserver would send {}",
                x.webhook.primary_review_version(),
                x.case.version()
            ))
        } else {
            Softened::No
        };
        let mut finding = Finding::judge(rule.id, rule.severity, check(x), softened);
        if lenient_here {
            // A v1beta1 apiserver accepts the answer: it says nothing. Say what a v1 one would.
            if let (Some(said), Some(detail)) = (finding.apiserver_message.take(), finding.detail.as_mut()) {
                detail.push_str(&format!(" (a v1 apiserver would refuse it: {said})"));
            }
        }
        if enforced && finding.is_breach() {
            stopped_at = Some(rule.id);
        }
        debug_assert!(finding.outcome != Outcome::Fail || enforced);
        findings.push(finding);
    }
    findings
}
