//! AdmissionReview in, AdmissionReview out: everything the webhook does to a request body,
//! independent of HTTP and TLS, so it can be tested directly.

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use serde_json::{json, Map, Value};

use crate::defect::Defect;
use crate::mutate::{self, escape_token};
use crate::validate;
use crate::Style;

/// `admission.k8s.io/v1`.
pub const V1: &str = "admission.k8s.io/v1";
/// `admission.k8s.io/v1beta1`.
pub const V1BETA1: &str = "admission.k8s.io/v1beta1";
/// `AdmissionReview`.
pub const KIND: &str = "AdmissionReview";
/// The only patch type the apiserver supports.
pub const JSON_PATCH: &str = "JSONPatch";
/// The Content-Type of every review answer.
pub const APPLICATION_JSON: &str = "application/json";

/// Which webhook a request is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// `POST /mutate`.
    Mutate,
    /// `POST /validate`.
    Validate,
}

impl Endpoint {
    /// The endpoint served at `path` (query string excluded).
    pub fn from_path(path: &str) -> Option<Endpoint> {
        match path {
            "/mutate" => Some(Endpoint::Mutate),
            "/validate" => Some(Endpoint::Validate),
            _ => None,
        }
    }
}

/// An HTTP answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The Content-Type.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Reply {
    fn text(status: u16, text: &str) -> Reply {
        Reply { status, content_type: "text/plain; charset=utf-8", body: format!("{text}\n").into_bytes() }
    }

    /// The body as JSON, if it is JSON.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }
}

/// What the server does with a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Send this answer.
    Reply(Reply),
    /// Never answer (`hang`).
    Hang,
    /// Send this answer one second after the deadline the request's `?timeout=` states
    /// (`late-answer`).
    ReplyAfterDeadline(Reply),
    /// Close the connection without an answer (`close-connection`).
    Close,
}

/// A decoded AdmissionReview request.
#[derive(Clone, Debug, PartialEq)]
pub struct ReviewRequest {
    /// `admission.k8s.io/v1` or `admission.k8s.io/v1beta1`.
    pub api_version: &'static str,
    /// `request.uid`.
    pub uid: String,
    /// The `request` member.
    pub request: Value,
}

/// Decodes an AdmissionReview request body; the error is a short text for a 400 answer.
pub fn parse_review(body: &[u8]) -> Result<ReviewRequest, String> {
    let value: Value = serde_json::from_slice(body).map_err(|e| format!("request body is not JSON: {e}"))?;
    let Value::Object(mut top) = value else {
        return Err("request body is not a JSON object".into());
    };
    let api_version = match top.get("apiVersion").and_then(Value::as_str) {
        Some(V1) => V1,
        Some(V1BETA1) => V1BETA1,
        Some(other) => return Err(format!("unsupported apiVersion {other:?}")),
        None => return Err("apiVersion is missing".into()),
    };
    match top.get("kind").and_then(Value::as_str) {
        Some(KIND) => {}
        Some(other) => return Err(format!("unsupported kind {other:?}")),
        None => return Err("kind is missing".into()),
    }
    let request = match top.remove("request") {
        Some(request @ Value::Object(_)) => request,
        Some(_) => return Err("request is not an object".into()),
        None => return Err("request is missing".into()),
    };
    let uid = match request.get("uid") {
        Some(Value::String(uid)) => uid.clone(),
        Some(_) => return Err("request.uid is not a string".into()),
        None => return Err("request.uid is missing".into()),
    };
    Ok(ReviewRequest { api_version, uid, request })
}

/// True for `application/json`, with or without parameters, in any letter case.
pub fn is_json_media_type(content_type: &str) -> bool {
    content_type.split(';').next().is_some_and(|essence| essence.trim().eq_ignore_ascii_case(APPLICATION_JSON))
}

/// The decision of one webhook before it is written out.
#[derive(Clone, Debug, Default)]
struct Answer {
    allowed: bool,
    status: Option<Value>,
    /// The JSON Patch to send (normally an array of operations), none for no patch.
    patch: Option<Value>,
    warnings: Vec<String>,
    audit: Vec<(String, String)>,
    /// A mutable object that already holds every change (nothing to patch).
    unchanged: bool,
}

fn mutate_answer(request: &Value, defect: Option<Defect>, style: Style) -> Answer {
    let mut ops = mutate::patch_ops(request, defect);
    if style.image_volume {
        ops.extend(mutate::image_volume_ops(request));
    }
    if defect == Some(Defect::ClusterTrustBundleWrite) {
        ops.extend(mutate::volume_ops(request, mutate::trust_bundle_volume()));
    }
    let unchanged = ops.is_empty() && mutate::is_mutable(request);
    if style.reorder_ops {
        ops.reverse();
    }
    if unchanged && style.restate_unchanged {
        // Harmless: a test of what holds, and a replace with the same value.
        let path = format!("/metadata/labels/{}", escape_token(mutate::MUTATED_LABEL));
        ops = vec![
            json!({"op": "test", "path": path, "value": "true"}),
            json!({"op": "replace", "path": path, "value": "true"}),
        ];
    }
    if defect == Some(Defect::PatchWithDenial) && mutate::is_mutable(request) {
        // A patch that always applies: either the real one, or a test of what already holds.
        let ops = if ops.is_empty() {
            let path = format!("/metadata/labels/{}", escape_token(mutate::MUTATED_LABEL));
            vec![json!({"op": "test", "path": path, "value": "true"})]
        } else {
            ops
        };
        return Answer {
            allowed: false,
            status: Some(json!({
                "code": 403,
                "reason": "Forbidden",
                "message": "denied by the reference webhook (defect patch-with-denial)",
            })),
            patch: Some(Value::Array(ops)),
            ..Answer::default()
        };
    }
    Answer { allowed: true, patch: (!ops.is_empty()).then_some(Value::Array(ops)), unchanged, ..Answer::default() }
}

fn validate_answer(request: &Value, defect: Option<Defect>) -> Answer {
    let verdict = validate::verdict(request);
    let status = (!verdict.allowed).then(|| match defect {
        Some(Defect::DenyWithoutMessage) => json!({"code": 403}),
        Some(Defect::DenyCode200) => {
            json!({"code": 200, "reason": "Forbidden", "message": verdict.message})
        }
        _ => json!({"code": 403, "reason": "Forbidden", "message": verdict.message}),
    });
    let mut warnings = verdict.warnings;
    if defect == Some(Defect::BadWarning) {
        warnings.push("reference-webhook rings a bell\u{0007}".to_string());
    }
    let audit_key = if defect == Some(Defect::BadAuditKey) { "bad/key" } else { "decision" };
    let decision = if verdict.allowed { "allowed" } else { "denied" };
    let patch = (defect == Some(Defect::ValidatingPatch)).then(|| {
        let path = format!("/metadata/annotations/{}", escape_token("conformance.example/validated"));
        json!([{"op": "add", "path": path, "value": "true"}])
    });
    Answer {
        allowed: verdict.allowed,
        status,
        patch,
        warnings,
        audit: vec![(audit_key.to_string(), decision.to_string())],
        unchanged: false,
    }
}

/// A fresh random UUID (v4) text.
fn fresh_uid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// True for the defects that only affect how the mutating webhook writes its patch.
fn is_mutate_patch_defect(defect: Defect) -> bool {
    matches!(
        defect,
        Defect::PatchWithoutType
            | Defect::TypeWithoutPatch
            | Defect::MimePatchType
            | Defect::UrlSafeBase64
            | Defect::PatchNotArray
            | Defect::PatchAsByteArray
    )
}

/// Writes `answer` to `review` as the response AdmissionReview of `endpoint`, under `defect`.
fn render(endpoint: Endpoint, review: &ReviewRequest, answer: Answer, defect: Option<Defect>) -> Value {
    // The patch-writing defects are mutate-only: the validating answer is written correctly.
    let patch_defect = defect.filter(|d| endpoint == Endpoint::Mutate && is_mutate_patch_defect(*d));
    let mut response = Map::new();
    match defect {
        Some(Defect::NoUid) => {}
        Some(Defect::NoUidOnDenial) if !answer.allowed => {}
        Some(Defect::WrongUid) => {
            let mut uid = fresh_uid();
            while uid == review.uid {
                uid = fresh_uid();
            }
            response.insert("uid".into(), json!(uid));
        }
        _ => {
            response.insert("uid".into(), json!(review.uid));
        }
    }
    match defect {
        Some(Defect::AllowedAsString) => {
            response.insert("allowed".into(), json!(answer.allowed.to_string()));
        }
        Some(Defect::AllowedMissing) if answer.allowed => {}
        _ => {
            response.insert("allowed".into(), json!(answer.allowed));
        }
    }
    if let Some(status) = answer.status {
        response.insert("status".into(), status);
    }
    match answer.patch {
        Some(patch) => {
            let patch = match (patch_defect, patch) {
                (Some(Defect::PatchNotArray), Value::Array(mut ops)) if !ops.is_empty() => ops.swap_remove(0),
                (_, patch) => patch,
            };
            let bytes = serde_json::to_vec(&patch).unwrap_or_default();
            match patch_defect {
                Some(Defect::PatchWithoutType) => {}
                Some(Defect::MimePatchType) => {
                    response.insert("patchType".into(), json!("application/json-patch+json"));
                }
                _ => {
                    response.insert("patchType".into(), json!(JSON_PATCH));
                }
            }
            let encoded = match patch_defect {
                Some(Defect::UrlSafeBase64) => json!(URL_SAFE_NO_PAD.encode(&bytes)),
                Some(Defect::PatchAsByteArray) => json!(bytes),
                _ => json!(STANDARD.encode(&bytes)),
            };
            response.insert("patch".into(), encoded);
        }
        None => {
            let second_call =
                endpoint == Endpoint::Mutate && defect == Some(Defect::PatchTypeOnSecondCall) && answer.unchanged;
            if patch_defect == Some(Defect::TypeWithoutPatch) || second_call {
                response.insert("patchType".into(), json!(JSON_PATCH));
            }
        }
    }
    if !answer.warnings.is_empty() {
        response.insert("warnings".into(), json!(answer.warnings));
    }
    if !answer.audit.is_empty() {
        let audit: Map<String, Value> = answer.audit.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
        response.insert("auditAnnotations".into(), Value::Object(audit));
    }

    let mut top = Map::new();
    if defect != Some(Defect::NoApiVersionKind) {
        let api_version = match (defect, review.api_version) {
            (Some(Defect::WrongVersion), V1) => V1BETA1,
            (Some(Defect::WrongVersion), _) => V1,
            (_, version) => version,
        };
        let kind = if defect == Some(Defect::WrongKind) { "AdmissionResponse" } else { KIND };
        top.insert("apiVersion".into(), json!(api_version));
        top.insert("kind".into(), json!(kind));
    }
    if defect != Some(Defect::NoResponse) {
        top.insert("response".into(), Value::Object(response));
    }
    Value::Object(top)
}

/// The answer to a decoded review on `endpoint`, as JSON, under `defect` (the body-level parts
/// only: HTTP-level defects are applied by [`handle`]).
pub fn respond(endpoint: Endpoint, review: &ReviewRequest, defect: Option<Defect>) -> Value {
    respond_styled(endpoint, review, defect, Style::default())
}

/// [`respond`], written in a harmless [`Style`].
pub fn respond_styled(endpoint: Endpoint, review: &ReviewRequest, defect: Option<Defect>, style: Style) -> Value {
    let answer = match endpoint {
        Endpoint::Mutate => mutate_answer(&review.request, defect, style),
        Endpoint::Validate => validate_answer(&review.request, defect),
    };
    render(endpoint, review, answer, defect)
}

/// A CREATE of a pod whose request carries no name: how every pod of a ReplicaSet or a Job arrives
/// (sent with `generateName`, named by the registry only after mutating admission).
fn is_nameless_pod_create(request: &Value) -> bool {
    request.pointer("/kind/kind").and_then(Value::as_str) == Some("Pod")
        && request.get("subResource").is_none()
        && request.get("operation").and_then(Value::as_str) == Some("CREATE")
        && request.get("name").and_then(Value::as_str).unwrap_or("").is_empty()
}

/// What the server does with a POST to `endpoint` with this Content-Type (None when absent)
/// and body, under `defect`. Never panics.
pub fn handle(endpoint: Endpoint, content_type: Option<&str>, body: &[u8], defect: Option<Defect>) -> Action {
    handle_styled(endpoint, content_type, body, defect, Style::default())
}

/// [`handle`], with the mutating answer written in a harmless [`Style`].
pub fn handle_styled(
    endpoint: Endpoint,
    content_type: Option<&str>,
    body: &[u8],
    defect: Option<Defect>,
    style: Style,
) -> Action {
    match defect {
        Some(Defect::Hang) => return Action::Hang,
        Some(Defect::CloseConnection) => return Action::Close,
        Some(Defect::Status500) => return Action::Reply(Reply::text(500, "internal error")),
        _ => {}
    }
    if let Some(content_type) = content_type {
        if !is_json_media_type(content_type) {
            return Action::Reply(Reply::text(
                415,
                &format!("unsupported Content-Type {content_type:?}: expected application/json"),
            ));
        }
    }
    let review = match parse_review(body) {
        Ok(review) => review,
        Err(message) => return Action::Reply(Reply::text(400, &message)),
    };
    if defect == Some(Defect::NamelessPod) && is_nameless_pod_create(&review.request) {
        return Action::Reply(Reply::text(500, "internal error: pod has no name"));
    }
    let json = respond_styled(endpoint, &review, defect, style);
    let body = match defect {
        Some(Defect::EmptyBody) => Vec::new(),
        Some(Defect::GarbageBody) => b"<html>oops</html>".to_vec(),
        Some(Defect::YamlBody) => serde_yaml::to_string(&json).unwrap_or_default().into_bytes(),
        _ => serde_json::to_vec(&json).unwrap_or_default(),
    };
    let content_type = match defect {
        Some(Defect::BadContentType) => "application/",
        Some(Defect::TextPlain) => "text/plain",
        _ => APPLICATION_JSON,
    };
    let reply = Reply { status: 200, content_type, body };
    if defect == Some(Defect::LateAnswer) {
        return Action::ReplyAfterDeadline(reply);
    }
    Action::Reply(reply)
}
