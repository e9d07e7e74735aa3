//! Unit tests of the review logic (no network): mutate/validate decisions on v1 and v1beta1
//! reviews, robustness, and the exact broken output of every defect.
//!
//! This module holds the shared builders (reviews, pods) and the helpers that call the webhook
//! and check its answers; the tests live in the submodules, grouped by what they exercise.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{json, Value};

use crate::defect::Defect;
use crate::review::{handle, Action, Endpoint, Reply, V1};

mod decoding;
mod defect_coverage;
mod defects_envelope;
mod defects_patch;
mod defects_transport;
mod mutating;
mod styles;
mod validating;

const UID: &str = "705ab4f5-6393-11e8-b7cc-42010a800002";

fn review_with(api_version: &str, operation: &str, object: Value, old_object: Value, dry_run: bool) -> Value {
    json!({
        "apiVersion": api_version,
        "kind": "AdmissionReview",
        "request": {
            "uid": UID,
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "requestKind": {"group": "", "version": "v1", "kind": "Pod"},
            "requestResource": {"group": "", "version": "v1", "resource": "pods"},
            "name": "p",
            "namespace": "default",
            "operation": operation,
            "userInfo": {"username": "admin", "groups": ["system:masters"]},
            "object": object,
            "oldObject": old_object,
            "dryRun": dry_run,
            "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"},
        }
    })
}

fn create(api_version: &str, object: Value) -> Value {
    review_with(api_version, "CREATE", object, Value::Null, false)
}

fn pod(metadata: Value) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {"containers": [{"name": "app", "image": "registry.example/app:1"}]},
    })
}

fn bare_pod() -> Value {
    pod(json!({"name": "p", "namespace": "default"}))
}

fn call(endpoint: Endpoint, review: &Value, defect: Option<Defect>) -> Action {
    handle(endpoint, Some("application/json"), &serde_json::to_vec(review).unwrap(), defect)
}

fn reply(endpoint: Endpoint, review: &Value, defect: Option<Defect>) -> Reply {
    match call(endpoint, review, defect) {
        Action::Reply(reply) => reply,
        other => panic!("expected a reply, got {other:?}"),
    }
}

/// The whole answer, checked to be a 200 application/json review of the request's version.
fn answer(endpoint: Endpoint, review: &Value, defect: Option<Defect>) -> Value {
    let reply = reply(endpoint, review, defect);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.content_type, "application/json");
    reply.json().expect("JSON body")
}

/// The `response` member of a correct answer, with the envelope checked.
fn response(endpoint: Endpoint, review: &Value) -> Value {
    let answer = answer(endpoint, review, None);
    assert_eq!(answer["apiVersion"], review["apiVersion"]);
    assert_eq!(answer["kind"], "AdmissionReview");
    assert_eq!(answer["response"]["uid"], UID);
    answer["response"].clone()
}

/// The decoded JSON Patch of a correct mutating response (standard base64 with padding).
fn patch_of(response: &Value) -> Value {
    assert_eq!(response["patchType"], "JSONPatch");
    let text = response["patch"].as_str().expect("patch is a string");
    assert_eq!(text.len() % 4, 0, "standard base64 is padded");
    serde_json::from_slice(&STANDARD.decode(text).expect("standard base64")).expect("patch is JSON")
}

fn assert_no_patch(response: &Value) {
    assert!(response.get("patch").is_none(), "unexpected patch in {response}");
    assert!(response.get("patchType").is_none(), "unexpected patchType in {response}");
}

fn apply(object: &Value, patch: &Value) -> Value {
    let patch: json_patch::Patch = serde_json::from_value(patch.clone()).expect("a JSON Patch");
    let mut object = object.clone();
    json_patch::patch(&mut object, &patch).expect("the patch applies");
    object
}

fn expected_full_patch() -> Value {
    json!([
        {"op": "add", "path": "/metadata/labels", "value": {"conformance.example/mutated": "true"}},
        {"op": "add", "path": "/metadata/annotations",
         "value": {"conformance.example/reviewed-by": "reference-webhook"}},
        {"op": "add", "path": "/spec/containers/-",
         "value": {"name": "conformance-sidecar", "image": "registry.example/sidecar:1"}},
    ])
}

fn labelled(labels: Value, annotations: Value) -> Value {
    pod(json!({"name": "p", "labels": labels, "annotations": annotations}))
}

fn defect_answer(endpoint: Endpoint, review: &Value, defect: Defect) -> Value {
    let reply = reply(endpoint, review, Some(defect));
    assert_eq!(reply.status, 200, "{defect}");
    reply.json().unwrap_or_else(|| panic!("{defect}: body is not JSON"))
}

fn deny_review() -> Value {
    create(V1, labelled(json!({"conformance.example/deny": "true"}), json!({})))
}
