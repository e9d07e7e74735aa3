//! Checks on the decoded AdmissionReview: field types, apiVersion/kind, response, uid, allowed. The
//! body is read by [`crate::decoder`] as the apiserver's decoder reads it.

use apiserver_validation::lookup::member_of;
use serde_json::Value;

use super::{calling_error, invalid_response, Check, Exchange};
use crate::decoder::{SchemaGvk, TypeMeta};

/// review.decode: every field has its Go type; apiVersion and kind are strings.
pub(crate) fn decode(x: &Exchange) -> Check {
    let Some(d) = x.decoded() else { return Check::na("no decoded body") };
    if let Err(e) = &d.interpreted {
        return Check::violated(
            format!("apiVersion or kind does not decode: {e}"),
            calling_error(
                &x.webhook.name,
                &format!("failed to call webhook: couldn't get version/kind; json parse error: {e}"),
            ),
        );
    }
    if let Err(why) = &d.selected {
        return Check::na(format!("the apiserver stops before the typed decode: {why} (review.gvk)"));
    }
    // response.patch's own errors are patch.base64's.
    match d.errors.iter().find(|e| e.patch.is_none()) {
        None => Check::Pass,
        Some(e) => Check::violated(
            format!("the AdmissionReview does not decode: {}", e.message),
            calling_error(&x.webhook.name, &format!("failed to call webhook: {}", e.message)),
        ),
    }
}

fn sent_api_version(x: &Exchange) -> String {
    x.case.version().api_version().to_string()
}

/// review.gvk: the group, version and kind the apiserver reads (case-insensitively, missing parts
/// defaulted) choose the AdmissionReview of the version sent.
pub(crate) fn gvk(x: &Exchange) -> Check {
    let Some(d) = x.decoded() else { return Check::na("no decoded body") };
    let Ok(meta) = &d.interpreted else { return Check::na("apiVersion or kind does not decode (review.decode)") };
    let said = || format!("apiVersion {:?}, kind {:?}", meta.api_version, meta.kind);
    let gvk = match (&d.selected, &d.gvk) {
        (Err(why), _) => {
            return Check::violated(
                format!("{}: {why}", said()),
                calling_error(&x.webhook.name, &format!("failed to call webhook: {why}")),
            )
        }
        (Ok(_), Some(gvk)) => gvk,
        (Ok(_), None) => return Check::Pass,
    };
    let sent = x.case.version();
    if gvk.review_version() == Some(sent) {
        return Check::Pass;
    }
    Check::violated(
        format!("{} answers a {} request", said(), sent_api_version(x)),
        calling_error(
            &x.webhook.name,
            &format!(
                "failed to call webhook: converting ({}.AdmissionReview) to ({}.AdmissionReview): unknown conversion",
                gvk.version, sent
            ),
        ),
    )
}

/// review.gvk-present: apiVersion and kind, exactly as written (case-sensitive keys), are
/// admission.k8s.io/<sent version> and AdmissionReview (v1 verifies them; v1beta1 does not).
pub(crate) fn gvk_present(x: &Exchange) -> Check {
    let Some(d) = x.decoded() else { return Check::na("no decoded body") };
    if d.selected != Ok(x.case.version()) {
        return Check::na("the apiserver stops before it verifies the answer (review.gvk)");
    }
    let meta: TypeMeta = d.type_meta();
    let want = sent_api_version(x);
    if meta.api_version == want && meta.kind == "AdmissionReview" {
        return Check::Pass;
    }
    let detail = match (meta.api_version.is_empty(), meta.kind.is_empty()) {
        (true, true) => "apiVersion and kind are missing".to_string(),
        (false, true) => "kind is missing".to_string(),
        (true, false) => "apiVersion is missing".to_string(),
        (false, false) => format!("apiVersion {:?} and kind {:?} as written", meta.api_version, meta.kind),
    };
    let case_note = match &d.interpreted {
        Ok(read) if read != &meta => {
            " (the apiserver found them under other letter case to choose the type, but verifies the exact keys)"
        }
        _ => "",
    };
    Check::violated(
        format!("{detail}{case_note}"),
        invalid_response(
            &x.webhook.name,
            &format!("expected webhook response of {want}, Kind=AdmissionReview, got {}", SchemaGvk::of(&meta)),
        ),
    )
}

/// response.present
pub(crate) fn present(x: &Exchange) -> Check {
    let Some(review) = x.review() else { return Check::na("no JSON object body") };
    match member_of(review, "response") {
        Some(Value::Object(_)) => Check::Pass,
        _ => Check::violated(
            "the AdmissionReview has no response".to_string(),
            invalid_response(&x.webhook.name, "webhook response was absent"),
        ),
    }
}

/// response.uid
pub(crate) fn uid(x: &Exchange) -> Check {
    let Some(response) = x.response() else { return Check::na("no response") };
    let got = member_of(response, "uid").and_then(Value::as_str).unwrap_or("");
    let want = x.case.uid();
    if got == want {
        Check::Pass
    } else {
        Check::violated(
            format!("response.uid is {got:?}, the request's uid is {want:?}"),
            invalid_response(&x.webhook.name, &format!("expected response.uid={want:?}, got {got:?}")),
        )
    }
}

/// response.allowed-present
pub(crate) fn allowed_present(x: &Exchange) -> Check {
    let Some(response) = x.response() else { return Check::na("no response") };
    match member_of(response, "allowed") {
        Some(Value::Bool(_)) => Check::Pass,
        _ => Check::violated_plain("response.allowed is missing: the apiserver reads that as a denial"),
    }
}
