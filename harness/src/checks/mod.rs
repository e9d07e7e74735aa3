//! The checks behind the rule catalog, and the engine that runs them on one exchange in the order
//! the apiserver processes an answer.

mod denial;
mod exchange;
mod media_type;
mod patch;
mod review;
mod transport;

pub use exchange::Exchange;
pub use media_type::parse_media_type;

pub(crate) use denial::{
    audit_keys, code as denial_code, message as denial_message, no_patch as denial_no_patch, warnings,
};
pub(crate) use patch::{
    applies, base64, base64_string, json as patch_json, kind_decode, no_object, pairing, patch_type, rfc6902,
    validating_no_patch,
};
pub(crate) use review::{allowed_present, decode, gvk, gvk_present, present, uid};
pub(crate) use transport::{answer, body, connect, content_type, content_type_json, deadline, status};

use serde::Serialize;

use crate::rules::{Outcome, Severity, CATALOG};

/// A breach of a rule: what was seen, and what the apiserver would say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub detail: String,
    pub apiserver: Option<String>,
}

/// What one check concluded about one exchange.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    Pass,
    Violated(Violation),
    /// The rule does not apply to this exchange (why).
    NotApplicable(String),
}

impl Check {
    pub fn violated(detail: String, apiserver: String) -> Check {
        Check::Violated(Violation { detail, apiserver: Some(apiserver) })
    }
    pub fn violated_plain(detail: impl Into<String>) -> Check {
        Check::Violated(Violation { detail: detail.into(), apiserver: None })
    }
    pub fn na(why: impl Into<String>) -> Check {
        Check::NotApplicable(why.into())
    }
}

/// The verdict of one rule on one exchange.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub apiserver_message: Option<String>,
}

/// Run every rule of the catalog on `x`, in the apiserver's order. Once the apiserver would reject
/// the answer, the rules after that point are skipped: it never gets there.
pub fn evaluate(x: &Exchange) -> Vec<Finding> {
    let mut findings = Vec::with_capacity(CATALOG.len());
    let mut stopped_at: Option<&'static str> = None;
    for rule in CATALOG {
        if let Some(stop) = stopped_at {
            findings.push(Finding {
                rule: rule.id,
                outcome: Outcome::Skip,
                detail: Some(format!("the apiserver stops at {stop}")),
                apiserver_message: None,
            });
            continue;
        }
        let (outcome, detail, apiserver_message) = match (rule.check)(x) {
            Check::Pass => (Outcome::Pass, None, None),
            Check::NotApplicable(why) => (Outcome::Skip, Some(why), None),
            Check::Violated(v) => {
                let lenient_here = rule.lenient_in_v1beta1 && !x.v1();
                let enforced = rule.severity == Severity::Fail && !lenient_here;
                if enforced {
                    stopped_at = Some(rule.id);
                }
                let mut detail = v.detail;
                let outcome = if enforced && x.case.primary {
                    Outcome::Fail
                } else if enforced {
                    detail.push_str(&format!(
                        " [WARN, not FAIL: a cluster sends {} to this webhook; only an older apiserver would send {}]",
                        x.webhook.primary_review_version(),
                        x.case.version
                    ));
                    Outcome::Warn
                } else {
                    if lenient_here && rule.severity == Severity::Fail {
                        detail.push_str(
                            " [WARN, not FAIL: the apiserver does not enforce this for admission.k8s.io/v1beta1]",
                        );
                    }
                    Outcome::Warn
                };
                (outcome, Some(detail), v.apiserver)
            }
        };
        findings.push(Finding { rule: rule.id, outcome, detail, apiserver_message });
    }
    findings
}

/// A short, single-line excerpt of a text for messages.
pub fn snippet(text: &str) -> String {
    let flat: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let flat = flat.trim();
    if flat.chars().count() > 200 {
        format!("{}…", flat.chars().take(200).collect::<String>())
    } else {
        flat.to_string()
    }
}

/// The apiserver's wording for an error of calling a webhook.
pub fn calling_error(webhook: &str, reason: &str) -> String {
    format!("Internal error occurred: failed calling webhook {webhook:?}: {reason}")
}

/// The apiserver's wording for a response that fails VerifyAdmissionResponse.
pub fn invalid_response(webhook: &str, reason: &str) -> String {
    calling_error(webhook, &format!("received invalid webhook response: {reason}"))
}

/// The apiserver's wording for an internal error (patch decode/apply, typed decode).
pub fn internal_error(reason: &str) -> String {
    format!("Internal error occurred: {reason}")
}
