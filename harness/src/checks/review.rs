//! Checks on the decoded AdmissionReview: field types, apiVersion/kind, response, uid, allowed.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::{calling_error, invalid_response, Check, Exchange};

/// The response fields with the types the apiserver's Go structs give them. `patch` is checked by
/// patch.base64; `request` is not read back by the apiserver's checks.
#[derive(Deserialize)]
#[allow(dead_code)]
struct TypedReview {
    #[serde(rename = "apiVersion")]
    api_version: Option<String>,
    kind: Option<String>,
    response: Option<TypedResponse>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct TypedResponse {
    uid: Option<String>,
    allowed: Option<bool>,
    status: Option<TypedStatus>,
    #[serde(rename = "patchType")]
    patch_type: Option<String>,
    #[serde(rename = "auditAnnotations")]
    audit_annotations: Option<BTreeMap<String, Option<String>>>,
    warnings: Option<Vec<Option<String>>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct TypedStatus {
    #[serde(rename = "apiVersion")]
    api_version: Option<String>,
    kind: Option<String>,
    metadata: Option<TypedListMeta>,
    status: Option<String>,
    message: Option<String>,
    reason: Option<String>,
    details: Option<TypedDetails>,
    code: Option<i32>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct TypedListMeta {
    #[serde(rename = "selfLink")]
    self_link: Option<String>,
    #[serde(rename = "resourceVersion")]
    resource_version: Option<String>,
    #[serde(rename = "continue")]
    cont: Option<String>,
    #[serde(rename = "remainingItemCount")]
    remaining_item_count: Option<i64>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct TypedDetails {
    name: Option<String>,
    group: Option<String>,
    kind: Option<String>,
    uid: Option<String>,
    causes: Option<Vec<Option<TypedCause>>>,
    #[serde(rename = "retryAfterSeconds")]
    retry_after_seconds: Option<i32>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct TypedCause {
    reason: Option<String>,
    message: Option<String>,
    field: Option<String>,
}

/// review.decode
pub fn decode(x: &Exchange) -> Check {
    let Some(review) = x.review() else { return Check::na("no JSON object body") };
    let mut value = Value::Object(review.clone());
    if let Some(r) = value.get_mut("response").and_then(Value::as_object_mut) {
        r.remove("patch");
    }
    match serde_json::from_value::<TypedReview>(value) {
        Ok(_) => Check::Pass,
        Err(e) => Check::violated(
            format!("the AdmissionReview does not decode: {e}"),
            calling_error(&x.webhook.name, &format!("failed to call webhook: json: {e}")),
        ),
    }
}

fn sent_api_version(x: &Exchange) -> String {
    x.case.version().api_version().to_string()
}

/// review.gvk: apiVersion and kind, where the answer sets them, are the ones sent.
pub fn gvk(x: &Exchange) -> Check {
    let Some(review) = x.review() else { return Check::na("no JSON object body") };
    let api_version = review.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = review.get("kind").and_then(Value::as_str).unwrap_or("");
    let want = sent_api_version(x);
    if api_version.is_empty() && kind.is_empty() {
        return Check::Pass;
    }
    if !kind.is_empty() && kind != "AdmissionReview" {
        let version = if api_version.is_empty() { want.clone() } else { api_version.to_string() };
        return Check::violated(
            format!("kind {kind:?}, expected \"AdmissionReview\""),
            calling_error(
                &x.webhook.name,
                &format!("failed to call webhook: no kind {kind:?} is registered for version {version:?} in scheme"),
            ),
        );
    }
    if api_version != want {
        let got = api_version.rsplit('/').next().unwrap_or_default();
        return Check::violated(
            format!("apiVersion {api_version:?} answers a {want} request"),
            calling_error(
                &x.webhook.name,
                &format!("failed to call webhook: converting ({got}.AdmissionReview) to ({}.AdmissionReview): unknown conversion", x.case.version()),
            ),
        );
    }
    if kind.is_empty() {
        return Check::violated(
            "kind is missing".to_string(),
            invalid_response(
                &x.webhook.name,
                &format!("expected webhook response of {want}, Kind=AdmissionReview, got {api_version}, Kind="),
            ),
        );
    }
    Check::Pass
}

/// review.gvk-present: apiVersion and kind are set (v1 verifies them; v1beta1 does not).
pub fn gvk_present(x: &Exchange) -> Check {
    let Some(review) = x.review() else { return Check::na("no JSON object body") };
    let api_version = review.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = review.get("kind").and_then(Value::as_str).unwrap_or("");
    if api_version.is_empty() && kind.is_empty() {
        return Check::violated(
            "apiVersion and kind are missing".to_string(),
            invalid_response(
                &x.webhook.name,
                &format!("expected webhook response of {}, Kind=AdmissionReview, got /, Kind=", sent_api_version(x)),
            ),
        );
    }
    Check::Pass
}

/// response.present
pub fn present(x: &Exchange) -> Check {
    let Some(review) = x.review() else { return Check::na("no JSON object body") };
    match review.get("response") {
        Some(Value::Object(_)) => Check::Pass,
        _ => Check::violated(
            "the AdmissionReview has no response".to_string(),
            invalid_response(&x.webhook.name, "webhook response was absent"),
        ),
    }
}

/// response.uid
pub fn uid(x: &Exchange) -> Check {
    let Some(response) = x.response() else { return Check::na("no response") };
    let got = response.get("uid").and_then(Value::as_str).unwrap_or("");
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
pub fn allowed_present(x: &Exchange) -> Check {
    let Some(response) = x.response() else { return Check::na("no response") };
    match response.get("allowed") {
        Some(Value::Bool(_)) => Check::Pass,
        _ => Check::violated_plain("response.allowed is missing: the apiserver reads that as a denial"),
    }
}
