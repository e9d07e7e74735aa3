//! Checks on what reaches the user besides the decision: denial messages and codes, warnings,
//! audit annotations (`errors/statuserror.go`, `pkg/endpoints/filters/warning.go`,
//! `pkg/admission/attributes.go`).

use apiserver_validation::lookup::{member_of, Lookup};
use serde_json::Value;

use super::{Check, Exchange};

fn denied<'x>(x: &'x Exchange) -> Result<&'x serde_json::Map<String, Value>, &'static str> {
    let Some(response) = x.response() else { return Err("no response") };
    if !member_of(response, "allowed").is_some_and(Value::is_boolean) {
        return Err("allowed is missing (response.allowed-present)");
    }
    match x.allowed() {
        Some(false) => Ok(response),
        _ => Err("allowed"),
    }
}

/// denial.message
pub(crate) fn message(x: &Exchange) -> Check {
    let response = match denied(x) {
        Ok(r) => r,
        Err(why) => return Check::na(why),
    };
    let status = member_of(response, "status");
    let text = |k: &str| status.and_then(|s| s.member(k)).and_then(Value::as_str).unwrap_or("");
    if text("message").is_empty() && text("reason").is_empty() {
        return Check::violated(
            "a denial with neither status.message nor status.reason".to_string(),
            format!("admission webhook {:?} denied the request without explanation", x.webhook.name),
        );
    }
    Check::Pass
}

/// denial.code
pub(crate) fn code(x: &Exchange) -> Check {
    let response = match denied(x) {
        Ok(r) => r,
        Err(why) => return Check::na(why),
    };
    match member_of(response, "status").and_then(|s| s.member("code")).and_then(Value::as_i64) {
        None | Some(0) => Check::Pass,
        Some(c) if (400..=599).contains(&c) => Check::Pass,
        Some(c) if c < 400 => Check::violated_plain(format!(
            "status.code {c} on a denial; the apiserver replaces any code below 400 with 400"
        )),
        Some(c) => Check::violated_plain(format!("status.code {c} is not an HTTP error status (400–599)")),
    }
}

/// denial.no-patch
pub(crate) fn no_patch(x: &Exchange) -> Check {
    if !x.mutating() {
        return Check::na("validating webhook");
    }
    if let Err(why) = denied(x) {
        return Check::na(why);
    }
    if x.nonempty_patch_bytes().is_some() {
        return Check::violated_plain("a denial carries a patch, which the apiserver ignores");
    }
    Check::Pass
}

/// warnings.valid
pub(crate) fn warnings(x: &Exchange) -> Check {
    let Some(response) = x.response() else { return Check::na("no response") };
    let Some(list) = member_of(response, "warnings").and_then(Value::as_array) else { return Check::Pass };
    let mut problems = Vec::new();
    let mut total = 0;
    for (i, w) in list.iter().enumerate() {
        let text = w.as_str().unwrap_or("");
        total += text.len();
        if text.is_empty() {
            problems.push(format!("warnings[{i}] is empty and is dropped"));
        } else if text.chars().any(|c| c.is_control()) {
            problems.push(format!("warnings[{i}] {text:?} holds a control character and is dropped"));
        }
    }
    if total > 4096 {
        problems.push(format!("warnings total {total} characters; past 4096 each is cut to 256"));
    }
    if problems.is_empty() {
        Check::Pass
    } else {
        Check::violated_plain(problems.join("; "))
    }
}

/// A qualified-name part: `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`, at most 63 characters.
pub(crate) fn is_qualified_name_part(key: &str) -> bool {
    let bytes = key.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 63
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
        && bytes.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// audit.keys
pub(crate) fn audit_keys(x: &Exchange) -> Check {
    let Some(response) = x.response() else { return Check::na("no response") };
    let Some(map) = member_of(response, "auditAnnotations").and_then(Value::as_object) else { return Check::Pass };
    let bad: Vec<&String> = map.keys().filter(|k| !is_qualified_name_part(k)).collect();
    if bad.is_empty() {
        Check::Pass
    } else {
        Check::violated_plain(format!(
            "audit annotation keys {bad:?} are not qualified-name parts (≤63 characters, alphanumeric, '-', '_', '.', no '/'); the apiserver only logs and drops them"
        ))
    }
}
