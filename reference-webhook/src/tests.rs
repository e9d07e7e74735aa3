//! Unit tests of the review logic (no network): mutate/validate decisions on v1 and v1beta1
//! reviews, robustness, and the exact broken output of every defect.

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use serde_json::{json, Value};

use crate::defect::Defect;
use crate::review::{handle, Action, Endpoint, Reply, V1, V1BETA1};

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

fn scale(metadata: Value) -> Value {
    json!({
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": metadata,
        "spec": {"replicas": 3},
        "status": {"replicas": 1, "selector": "app=web"},
    })
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

// ---------------------------------------------------------------------------------------------
// Mutating webhook.

#[test]
fn mutate_pod_without_labels_v1_and_v1beta1() {
    for version in [V1, V1BETA1] {
        let response = response(Endpoint::Mutate, &create(version, bare_pod()));
        assert_eq!(response["allowed"], true);
        assert_eq!(patch_of(&response), expected_full_patch(), "{version}");
    }
}

#[test]
fn mutate_is_idempotent_on_its_own_output() {
    for version in [V1, V1BETA1] {
        let object = bare_pod();
        let patched = apply(&object, &patch_of(&response(Endpoint::Mutate, &create(version, object.clone()))));
        assert_eq!(patched["metadata"]["labels"]["conformance.example/mutated"], "true");
        assert_eq!(patched["metadata"]["annotations"]["conformance.example/reviewed-by"], "reference-webhook");
        assert_eq!(patched["spec"]["containers"][1]["name"], "conformance-sidecar");
        let again = response(Endpoint::Mutate, &review_with(version, "UPDATE", patched.clone(), patched, false));
        assert_eq!(again["allowed"], true);
        assert_no_patch(&again);
    }
}

#[test]
fn mutate_reinvocation_after_another_mutator_changes_nothing_more() {
    let object = bare_pod();
    let mut patched = apply(&object, &patch_of(&response(Endpoint::Mutate, &create(V1, object.clone()))));
    // Another webhook adds a label, an annotation and a container, and defaulting fills fields.
    patched["metadata"]["labels"]["other.example/team"] = json!("blue");
    patched["metadata"]["annotations"]["other.example/x"] = json!("y");
    let containers = patched["spec"]["containers"].as_array_mut().unwrap();
    containers.insert(0, json!({"name": "istio-proxy", "image": "istio:1"}));
    for c in containers.iter_mut() {
        c["imagePullPolicy"] = json!("IfNotPresent");
    }
    let again = response(Endpoint::Mutate, &create(V1, patched));
    assert_no_patch(&again);
}

#[test]
fn mutate_escapes_keys_into_existing_maps() {
    let object = pod(json!({
        "name": "p",
        "labels": {"app": "web"},
        "annotations": {"a": "b"},
    }));
    let response = response(Endpoint::Mutate, &create(V1, object.clone()));
    let patch = patch_of(&response);
    assert_eq!(
        patch,
        json!([
            {"op": "add", "path": "/metadata/labels/conformance.example~1mutated", "value": "true"},
            {"op": "add", "path": "/metadata/annotations/conformance.example~1reviewed-by",
             "value": "reference-webhook"},
            {"op": "add", "path": "/spec/containers/-",
             "value": {"name": "conformance-sidecar", "image": "registry.example/sidecar:1"}},
        ])
    );
    let patched = apply(&object, &patch);
    assert_eq!(patched["metadata"]["labels"], json!({"app": "web", "conformance.example/mutated": "true"}));
}

#[test]
fn mutate_fixes_a_wrong_value_and_null_maps() {
    let object = pod(json!({
        "name": "p",
        "labels": {"conformance.example/mutated": "false"},
        "annotations": null,
    }));
    let patch = patch_of(&response(Endpoint::Mutate, &create(V1, object.clone())));
    assert_eq!(
        patch[0],
        json!({"op": "add", "path": "/metadata/labels/conformance.example~1mutated", "value": "true"})
    );
    assert_eq!(
        patch[1],
        json!({"op": "add", "path": "/metadata/annotations",
               "value": {"conformance.example/reviewed-by": "reference-webhook"}})
    );
    let patched = apply(&object, &patch);
    assert_no_patch(&response(Endpoint::Mutate, &create(V1, patched)));
}

#[test]
fn mutate_does_not_duplicate_an_existing_sidecar() {
    let mut object = bare_pod();
    object["spec"]["containers"] = json!([{"name": "conformance-sidecar", "image": "other:2"}]);
    let patch = patch_of(&response(Endpoint::Mutate, &create(V1, object)));
    assert_eq!(patch.as_array().unwrap().len(), 2);
    assert!(patch.as_array().unwrap().iter().all(|op| op["path"] != "/spec/containers/-"));
}

#[test]
fn mutate_non_pod_gets_no_sidecar() {
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}});
    let patch = patch_of(&response(Endpoint::Mutate, &create(V1, cm.clone())));
    assert_eq!(patch.as_array().unwrap().len(), 2);
    let patched = apply(&cm, &patch);
    assert_no_patch(&response(Endpoint::Mutate, &create(V1, patched)));
}

#[test]
fn mutate_delete_with_null_object_is_allowed_without_patch() {
    for version in [V1, V1BETA1] {
        let review = review_with(version, "DELETE", Value::Null, bare_pod(), false);
        let response = response(Endpoint::Mutate, &review);
        assert_eq!(response["allowed"], true);
        assert_no_patch(&response);
    }
    // An absent object too.
    let mut review = review_with(V1, "DELETE", Value::Null, bare_pod(), true);
    review["request"].as_object_mut().unwrap().remove("object");
    assert_no_patch(&response(Endpoint::Mutate, &review));
}

fn pod_exec_options() -> Value {
    json!({
        "kind": "PodExecOptions",
        "apiVersion": "v1",
        "stdin": true,
        "stdout": true,
        "tty": true,
        "container": "app",
        "command": ["sh"],
    })
}

#[test]
fn connect_with_pod_exec_options() {
    for version in [V1, V1BETA1] {
        let mut review = review_with(version, "CONNECT", pod_exec_options(), Value::Null, false);
        review["request"]["subResource"] = json!("exec");
        review["request"]["options"] = Value::Null;
        let mutated = response(Endpoint::Mutate, &review);
        assert_eq!(mutated["allowed"], true);
        assert_no_patch(&mutated);
        let validated = response(Endpoint::Validate, &review);
        assert_eq!(validated["allowed"], true);
        assert_eq!(validated["auditAnnotations"], json!({"decision": "allowed"}));
        assert_no_patch(&validated);
    }
}

#[test]
fn scale_subresource_is_mutated_idempotently_without_sidecar() {
    let object = scale(json!({"name": "web", "namespace": "default", "labels": {"app": "web"}}));
    let mut review = review_with(V1, "UPDATE", object.clone(), object.clone(), false);
    review["request"]["subResource"] = json!("scale");
    review["request"]["kind"] = json!({"group": "autoscaling", "version": "v1", "kind": "Scale"});
    let patch = patch_of(&response(Endpoint::Mutate, &review));
    assert_eq!(
        patch,
        json!([
            {"op": "add", "path": "/metadata/labels/conformance.example~1mutated", "value": "true"},
            {"op": "add", "path": "/metadata/annotations",
             "value": {"conformance.example/reviewed-by": "reference-webhook"}},
        ])
    );
    let patched = apply(&object, &patch);
    review["request"]["object"] = patched;
    assert_no_patch(&response(Endpoint::Mutate, &review));
    assert_eq!(response(Endpoint::Validate, &review)["allowed"], true);
}

#[test]
fn status_subresource_with_parent_kind() {
    let object = bare_pod();
    let mut review = review_with(V1BETA1, "UPDATE", object.clone(), object, true);
    review["request"]["subResource"] = json!("status");
    let response = response(Endpoint::Mutate, &review);
    assert_eq!(patch_of(&response), expected_full_patch());
}

#[test]
fn dry_run_gets_the_same_answer() {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        let wet = answer(endpoint, &review_with(V1, "CREATE", bare_pod(), Value::Null, false), None);
        let dry = answer(endpoint, &review_with(V1, "CREATE", bare_pod(), Value::Null, true), None);
        assert_eq!(wet, dry);
    }
}

#[test]
fn objects_without_metadata_are_not_patched() {
    for object in [json!({"kind": "Pod"}), json!({"kind": "Pod", "metadata": "x"}), json!(42), json!([1])] {
        let response = response(Endpoint::Mutate, &create(V1, object));
        assert_eq!(response["allowed"], true);
        assert_no_patch(&response);
    }
}

// ---------------------------------------------------------------------------------------------
// Validating webhook.

fn labelled(labels: Value, annotations: Value) -> Value {
    pod(json!({"name": "p", "labels": labels, "annotations": annotations}))
}

#[test]
fn validate_allows_and_audits() {
    for version in [V1, V1BETA1] {
        let response = response(Endpoint::Validate, &create(version, bare_pod()));
        assert_eq!(response["allowed"], true);
        assert!(response.get("status").is_none());
        assert!(response.get("warnings").is_none());
        assert_eq!(response["auditAnnotations"], json!({"decision": "allowed"}));
        assert_no_patch(&response);
    }
}

#[test]
fn validate_denies_the_deny_label() {
    for version in [V1, V1BETA1] {
        let review = create(version, labelled(json!({"conformance.example/deny": "true"}), json!({})));
        let response = response(Endpoint::Validate, &review);
        assert_eq!(response["allowed"], false);
        assert_eq!(
            response["status"],
            json!({"code": 403, "reason": "Forbidden", "message": "label conformance.example/deny is set to true"})
        );
        assert_eq!(response["auditAnnotations"], json!({"decision": "denied"}));
        assert_no_patch(&response);
    }
    // Only the exact string "true" denies.
    for value in [json!("false"), json!("True"), json!(true)] {
        let review = create(V1, labelled(json!({"conformance.example/deny": value}), json!({})));
        assert_eq!(response(Endpoint::Validate, &review)["allowed"], true);
    }
}

#[test]
fn validate_delete_judges_the_old_object() {
    let old = labelled(json!({"conformance.example/deny": "true"}), Value::Null);
    let review = review_with(V1, "DELETE", Value::Null, old, false);
    let response = response(Endpoint::Validate, &review);
    assert_eq!(response["allowed"], false);
    assert_eq!(response["auditAnnotations"]["decision"], "denied");
    let review = review_with(V1, "DELETE", Value::Null, bare_pod(), false);
    assert_eq!(self::response(Endpoint::Validate, &review)["allowed"], true);
}

#[test]
fn validate_update_judges_the_new_object() {
    let old = labelled(json!({"conformance.example/deny": "true"}), Value::Null);
    let review = review_with(V1, "UPDATE", bare_pod(), old, false);
    assert_eq!(response(Endpoint::Validate, &review)["allowed"], true);
}

#[test]
fn validate_warns_on_the_warn_annotation() {
    let review = create(V1, labelled(json!({}), json!({"conformance.example/warn": ""})));
    let response = response(Endpoint::Validate, &review);
    assert_eq!(response["allowed"], true);
    assert_eq!(response["warnings"], json!(["conformance.example/warn is set"]));
}

// ---------------------------------------------------------------------------------------------
// Robustness.

fn status_of(action: Action) -> u16 {
    match action {
        Action::Reply(reply) => reply.status,
        other => panic!("expected a reply, got {other:?}"),
    }
}

#[test]
fn malformed_bodies_get_400() {
    let bodies: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"not json".to_vec(),
        b"[]".to_vec(),
        b"null".to_vec(),
        b"{}".to_vec(),
        br#"{"apiVersion":"admission.k8s.io/v2","kind":"AdmissionReview","request":{"uid":"x"}}"#.to_vec(),
        br#"{"apiVersion":"admission.k8s.io/v1","kind":"Pod","request":{"uid":"x"}}"#.to_vec(),
        br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}"#.to_vec(),
        br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":null}"#.to_vec(),
        br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}}"#.to_vec(),
        br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":7}}"#.to_vec(),
        vec![0xff, 0xfe, 0x00],
    ];
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        for body in &bodies {
            match handle(endpoint, Some("application/json"), body, None) {
                Action::Reply(reply) => {
                    assert_eq!(reply.status, 400, "{}", String::from_utf8_lossy(body));
                    assert!(reply.content_type.starts_with("text/plain"));
                    assert!(!reply.body.is_empty() && reply.body.len() < 200);
                }
                other => panic!("{other:?}"),
            }
        }
    }
}

#[test]
fn every_truncation_and_odd_shape_is_answered_without_panic() {
    let full = serde_json::to_vec(&create(V1, bare_pod())).unwrap();
    for end in 0..=full.len() {
        for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
            let status = status_of(handle(endpoint, Some("application/json"), &full[..end], None));
            assert!(status == 400 || (status == 200 && end == full.len()), "prefix {end}: {status}");
        }
    }
    // Odd but decodable requests: a minimal request, odd member types.
    let odd = [
        json!({"uid": UID}),
        json!({"uid": UID, "operation": 5, "object": {"metadata": {"labels": "x", "annotations": [1]}}}),
        json!({"uid": UID, "operation": "CREATE", "object": {"kind": "Pod", "metadata": {}, "spec": {"containers": 3}}}),
        json!({"uid": UID, "operation": "CREATE", "object": {"kind": "Pod", "metadata": {}, "spec": null}}),
        json!({"uid": UID, "operation": "DELETE", "oldObject": {"metadata": {"labels": null}}}),
        json!({"uid": UID, "operation": "CONNECT", "object": "text"}),
    ];
    for request in odd {
        let review = json!({"apiVersion": V1, "kind": "AdmissionReview", "request": request});
        for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
            for defect in std::iter::once(None).chain(Defect::ALL.iter().copied().map(Some)) {
                let _ = call(endpoint, &review, defect);
            }
            let answer = answer(endpoint, &review, None);
            assert_eq!(answer["response"]["uid"], UID);
        }
    }
}

#[test]
fn invalid_metadata_maps_are_replaced_whole() {
    let object = json!({"kind": "ConfigMap", "metadata": {"labels": "x", "annotations": [1]}});
    let patch = patch_of(&response(Endpoint::Mutate, &create(V1, object.clone())));
    let patched = apply(&object, &patch);
    assert_eq!(patched["metadata"]["labels"], json!({"conformance.example/mutated": "true"}));
    assert_no_patch(&response(Endpoint::Mutate, &create(V1, patched)));
}

#[test]
fn content_type_with_parameters_is_accepted() {
    let body = serde_json::to_vec(&create(V1, bare_pod())).unwrap();
    for content_type in [
        Some("application/json"),
        Some("application/json; charset=utf-8"),
        Some("Application/JSON;charset=UTF-8"),
        None,
    ] {
        assert_eq!(status_of(handle(Endpoint::Mutate, content_type, &body, None)), 200, "{content_type:?}");
    }
    for content_type in ["text/plain", "application/yaml", "application/jsonx", ""] {
        assert_eq!(status_of(handle(Endpoint::Validate, Some(content_type), &body, None)), 415, "{content_type}");
    }
}

#[test]
fn escape_token_follows_rfc6901() {
    assert_eq!(crate::mutate::escape_token("a/b~c"), "a~1b~0c");
}

// ---------------------------------------------------------------------------------------------
// Defects: each produces its specific broken output.

fn defect_answer(endpoint: Endpoint, review: &Value, defect: Defect) -> Value {
    let reply = reply(endpoint, review, Some(defect));
    assert_eq!(reply.status, 200, "{defect}");
    reply.json().unwrap_or_else(|| panic!("{defect}: body is not JSON"))
}

fn deny_review() -> Value {
    create(V1, labelled(json!({"conformance.example/deny": "true"}), json!({})))
}

#[test]
fn defect_hang_and_close_connection() {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        let review = create(V1, bare_pod());
        assert_eq!(call(endpoint, &review, Some(Defect::Hang)), Action::Hang);
        assert_eq!(call(endpoint, &review, Some(Defect::CloseConnection)), Action::Close);
    }
}

#[test]
fn defect_status_500() {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        let reply = reply(endpoint, &create(V1, bare_pod()), Some(Defect::Status500));
        assert_eq!(reply.status, 500);
        assert_eq!(String::from_utf8(reply.body).unwrap().trim(), "internal error");
    }
}

#[test]
fn defect_content_types() {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        let review = create(V1, bare_pod());
        let correct = reply(endpoint, &review, None);
        let bad = reply(endpoint, &review, Some(Defect::BadContentType));
        assert_eq!(bad.content_type, "application/");
        assert_eq!(bad.json(), correct.json());
        let plain = reply(endpoint, &review, Some(Defect::TextPlain));
        assert_eq!(plain.content_type, "text/plain");
        assert_eq!(plain.json(), correct.json());
    }
}

#[test]
fn defect_bodies() {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        let review = create(V1, bare_pod());
        let empty = reply(endpoint, &review, Some(Defect::EmptyBody));
        assert_eq!((empty.status, empty.body.len()), (200, 0));
        let garbage = reply(endpoint, &review, Some(Defect::GarbageBody));
        assert_eq!(garbage.status, 200);
        assert_eq!(garbage.body, b"<html>oops</html>");
    }
}

#[test]
fn defect_allowed_as_string() {
    let a = defect_answer(Endpoint::Mutate, &create(V1, bare_pod()), Defect::AllowedAsString);
    assert_eq!(a["response"]["allowed"], json!("true"));
    let a = defect_answer(Endpoint::Validate, &deny_review(), Defect::AllowedAsString);
    assert_eq!(a["response"]["allowed"], json!("false"));
}

#[test]
fn defect_envelope() {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        let v1 = create(V1, bare_pod());
        let a = defect_answer(endpoint, &v1, Defect::NoApiVersionKind);
        assert!(a.get("apiVersion").is_none() && a.get("kind").is_none());
        assert_eq!(a["response"]["uid"], UID);

        assert_eq!(defect_answer(endpoint, &v1, Defect::WrongVersion)["apiVersion"], V1BETA1);
        let v1beta1 = create(V1BETA1, bare_pod());
        assert_eq!(defect_answer(endpoint, &v1beta1, Defect::WrongVersion)["apiVersion"], V1);

        let a = defect_answer(endpoint, &v1, Defect::WrongKind);
        assert_eq!((a["apiVersion"].as_str(), a["kind"].as_str()), (Some(V1), Some("AdmissionResponse")));

        let a = defect_answer(endpoint, &v1, Defect::NoResponse);
        assert!(a.get("response").is_none());
        assert_eq!(a["kind"], "AdmissionReview");
    }
}

#[test]
fn defect_uids() {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        for review in [create(V1, bare_pod()), deny_review()] {
            let a = defect_answer(endpoint, &review, Defect::WrongUid);
            let uid = a["response"]["uid"].as_str().unwrap();
            assert_ne!(uid, UID);
            assert_eq!(uid.len(), 36);
            let b = defect_answer(endpoint, &review, Defect::WrongUid);
            assert_ne!(b["response"]["uid"], a["response"]["uid"], "fresh each time");
            let a = defect_answer(endpoint, &review, Defect::NoUid);
            assert!(a["response"].get("uid").is_none());
            assert!(a["response"].get("allowed").is_some());
        }
    }
}

#[test]
fn defect_patch_pairing() {
    let a = defect_answer(Endpoint::Mutate, &create(V1, bare_pod()), Defect::PatchWithoutType);
    assert!(a["response"].get("patchType").is_none());
    assert!(a["response"]["patch"].is_string());

    let object = bare_pod();
    let patched = apply(&object, &patch_of(&response(Endpoint::Mutate, &create(V1, object.clone()))));
    let a = defect_answer(Endpoint::Mutate, &create(V1, patched), Defect::TypeWithoutPatch);
    assert_eq!(a["response"]["patchType"], "JSONPatch");
    assert!(a["response"].get("patch").is_none());
    // When it does patch, the answer is correct.
    let a = defect_answer(Endpoint::Mutate, &create(V1, bare_pod()), Defect::TypeWithoutPatch);
    assert_eq!(patch_of(&a["response"]), expected_full_patch());
    // Validating answers are not affected by these mutate-only defects.
    for defect in [Defect::PatchWithoutType, Defect::TypeWithoutPatch, Defect::MimePatchType] {
        assert_no_patch(&defect_answer(Endpoint::Validate, &create(V1, bare_pod()), defect)["response"]);
    }
}

#[test]
fn defect_mime_patch_type() {
    let a = defect_answer(Endpoint::Mutate, &create(V1, bare_pod()), Defect::MimePatchType);
    assert_eq!(a["response"]["patchType"], "application/json-patch+json");
    assert!(a["response"]["patch"].is_string());
}

#[test]
fn defect_validating_patch() {
    for review in [create(V1, bare_pod()), deny_review()] {
        let a = defect_answer(Endpoint::Validate, &review, Defect::ValidatingPatch);
        let patch = patch_of(&a["response"]);
        assert!(patch.as_array().is_some_and(|ops| !ops.is_empty()));
    }
    // The mutating answer is correct.
    let a = defect_answer(Endpoint::Mutate, &create(V1, bare_pod()), Defect::ValidatingPatch);
    assert_eq!(patch_of(&a["response"]), expected_full_patch());
}

#[test]
fn defect_url_safe_base64() {
    for object in [bare_pod(), labelled(json!({"a": "b"}), json!({"c": "d"}))] {
        let a = defect_answer(Endpoint::Mutate, &create(V1, object.clone()), Defect::UrlSafeBase64);
        let text = a["response"]["patch"].as_str().unwrap();
        assert!(text.contains('-') || text.contains('_'), "{text}");
        assert!(!text.ends_with('='));
        assert!(STANDARD.decode(text).is_err(), "must not be standard base64");
        let patch: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(text).unwrap()).unwrap();
        let patched = apply(&object, &patch);
        assert_eq!(patched["metadata"]["annotations"]["conformance.example/note"], "?????>>>>>~~ü");
    }
}

#[test]
fn defect_patch_not_array() {
    let a = defect_answer(Endpoint::Mutate, &create(V1, bare_pod()), Defect::PatchNotArray);
    let patch = patch_of(&a["response"]);
    assert!(patch.is_object());
    assert_eq!(patch["op"], "add");
}

#[test]
fn defect_missing_parent() {
    let object = bare_pod();
    let a = defect_answer(Endpoint::Mutate, &create(V1, object.clone()), Defect::MissingParent);
    let patch = patch_of(&a["response"]);
    assert_eq!(
        patch[0],
        json!({"op": "add", "path": "/metadata/labels/conformance.example~1mutated", "value": "true"})
    );
    let parsed: json_patch::Patch = serde_json::from_value(patch).unwrap();
    assert!(json_patch::patch(&mut object.clone(), &parsed).is_err(), "must not apply without labels");
    // With a labels map it is correct.
    let object = labelled(json!({"a": "b"}), json!({}));
    let a = defect_answer(Endpoint::Mutate, &create(V1, object.clone()), Defect::MissingParent);
    apply(&object, &patch_of(&a["response"]));
}

#[test]
fn defect_unescaped_slash() {
    for object in [bare_pod(), labelled(json!({}), json!({"x": "y"}))] {
        let a = defect_answer(Endpoint::Mutate, &create(V1, object.clone()), Defect::UnescapedSlash);
        let patch = patch_of(&a["response"]);
        let ops = patch.as_array().unwrap();
        assert!(ops.iter().any(|op| op["path"] == "/metadata/annotations/conformance.example/reviewed-by"));
        let parsed: json_patch::Patch = serde_json::from_value(patch).unwrap();
        assert!(json_patch::patch(&mut object.clone(), &parsed).is_err(), "must not apply");
    }
}

#[test]
fn defect_wrong_type() {
    let object = bare_pod();
    let a = defect_answer(Endpoint::Mutate, &create(V1, object.clone()), Defect::WrongType);
    let patched = apply(&object, &patch_of(&a["response"]));
    assert_eq!(patched["metadata"]["annotations"]["conformance.example/reviewed-by"], json!(1));
}

#[test]
fn defect_patch_on_delete() {
    let review = review_with(V1, "DELETE", Value::Null, bare_pod(), false);
    let a = defect_answer(Endpoint::Mutate, &review, Defect::PatchOnDelete);
    assert_eq!(a["response"]["allowed"], true);
    assert!(!patch_of(&a["response"]).as_array().unwrap().is_empty());
    // CREATE is correct.
    let a = defect_answer(Endpoint::Mutate, &create(V1, bare_pod()), Defect::PatchOnDelete);
    assert_eq!(patch_of(&a["response"]), expected_full_patch());
}

#[test]
fn defect_allowed_missing() {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        let a = defect_answer(endpoint, &create(V1, bare_pod()), Defect::AllowedMissing);
        assert!(a["response"].get("allowed").is_none());
        assert_eq!(a["response"]["uid"], UID);
    }
    // A denial still says allowed: false.
    let a = defect_answer(Endpoint::Validate, &deny_review(), Defect::AllowedMissing);
    assert_eq!(a["response"]["allowed"], false);
}

#[test]
fn defect_denial_status() {
    let a = defect_answer(Endpoint::Validate, &deny_review(), Defect::DenyWithoutMessage);
    assert_eq!(a["response"]["allowed"], false);
    assert_eq!(a["response"]["status"], json!({"code": 403}));
    let a = defect_answer(Endpoint::Validate, &deny_review(), Defect::DenyCode200);
    assert_eq!(a["response"]["allowed"], false);
    assert_eq!(a["response"]["status"]["code"], 200);
    assert_eq!(a["response"]["status"]["message"], "label conformance.example/deny is set to true");
}

#[test]
fn defect_patch_as_byte_array() {
    let a = defect_answer(Endpoint::Mutate, &create(V1, bare_pod()), Defect::PatchAsByteArray);
    assert_eq!(a["response"]["patchType"], "JSONPatch");
    let bytes: Vec<u8> = serde_json::from_value(a["response"]["patch"].clone()).expect("an array of bytes");
    assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap(), expected_full_patch());
}

#[test]
fn defect_replace_missing_key() {
    let object = labelled(json!({"app": "web"}), json!({}));
    let a = defect_answer(Endpoint::Mutate, &create(V1, object.clone()), Defect::ReplaceMissingKey);
    let patch = patch_of(&a["response"]);
    assert_eq!(
        patch[0],
        json!({"op": "replace", "path": "/metadata/labels/conformance.example~1mutated", "value": "true"})
    );
    let parsed: json_patch::Patch = serde_json::from_value(patch).unwrap();
    assert!(json_patch::patch(&mut object.clone(), &parsed).is_err(), "RFC 6902 rejects it");
}

#[test]
fn defect_bad_warning_and_audit_key() {
    let a = defect_answer(Endpoint::Validate, &create(V1, bare_pod()), Defect::BadWarning);
    let warnings = a["response"]["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w.as_str().unwrap().contains('\u{7}')));
    let a = defect_answer(Endpoint::Validate, &create(V1, bare_pod()), Defect::BadAuditKey);
    assert_eq!(a["response"]["auditAnnotations"], json!({"bad/key": "allowed"}));
}

#[test]
fn defect_patch_with_denial() {
    for object in [bare_pod(), labelled(json!({"conformance.example/mutated": "true"}), json!({}))] {
        let a = defect_answer(Endpoint::Mutate, &create(V1, object.clone()), Defect::PatchWithDenial);
        assert_eq!(a["response"]["allowed"], false);
        assert!(a["response"]["status"]["message"].as_str().is_some_and(|m| !m.is_empty()));
        let patch = patch_of(&a["response"]);
        assert!(!patch.as_array().unwrap().is_empty());
    }
}

#[test]
fn untrusted_cert_does_not_change_answers() {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        let review = create(V1, bare_pod());
        assert_eq!(reply(endpoint, &review, Some(Defect::UntrustedCert)), reply(endpoint, &review, None));
    }
}

#[test]
fn every_defect_changes_something_or_is_transport_level() {
    // Inputs on which every defect shows: a bare pod, a denied pod, a DELETE, an already-mutated pod.
    let object = bare_pod();
    let mutated = apply(&object, &patch_of(&response(Endpoint::Mutate, &create(V1, object.clone()))));
    let mut with_labels = labelled(json!({"app": "web"}), json!({"x": "y"}));
    with_labels["spec"]["containers"] = json!([]);
    // Mutated, then another mutator appended a container after the sidecar.
    let mut reinvoked = mutated.clone();
    if let Some(containers) = reinvoked["spec"]["containers"].as_array_mut() {
        containers.push(json!({"name": "other", "image": "registry.example/other:1"}));
    }
    let reviews = [
        review_with(V1, "CREATE", bare_pod(), Value::Null, true),
        create(V1, reinvoked),
        create(V1, object),
        deny_review(),
        review_with(V1, "DELETE", Value::Null, bare_pod(), false),
        create(V1, mutated),
        create(V1, with_labels),
    ];
    for defect in Defect::ALL.iter().copied() {
        if defect == Defect::UntrustedCert {
            continue;
        }
        let differs = reviews.iter().any(|review| {
            [Endpoint::Mutate, Endpoint::Validate]
                .iter()
                .any(|&endpoint| call(endpoint, review, Some(defect)) != call(endpoint, review, None))
        });
        assert!(differs, "{defect} changes no answer");
    }
}

#[test]
fn property_defects_show_only_across_calls() {
    let first = create(V1, bare_pod());
    let mutated = apply(&bare_pod(), &patch_of(&response(Endpoint::Mutate, &first)));
    let again = create(V1, mutated.clone());
    let with = |d| {
        crate::review::respond(
            Endpoint::Mutate,
            &crate::review::parse_review(&serde_json::to_vec(&again).unwrap()).unwrap(),
            Some(d),
        )
    };
    // The correct webhook has nothing to add to its own result.
    assert!(response(Endpoint::Mutate, &again).get("patch").is_none());
    // sidecar-every-call adds a second sidecar; counter-annotation counts on.
    let twice = apply(&mutated, &patch_of(&with(Defect::SidecarEveryCall)["response"]));
    assert_eq!(
        twice["spec"]["containers"].as_array().unwrap().len(),
        mutated["spec"]["containers"].as_array().unwrap().len() + 1
    );
    let counted = apply(&mutated, &patch_of(&with(Defect::CounterAnnotation)["response"]));
    assert_eq!(counted["metadata"]["annotations"][crate::mutate::CALLS_ANNOTATION], "1");
    // patch-type-on-second-call: patchType without a patch only when nothing changes.
    let r = with(Defect::PatchTypeOnSecondCall);
    assert_eq!(r["response"]["patchType"], "JSONPatch");
    assert!(r["response"].get("patch").is_none());
    let r = crate::review::respond(
        Endpoint::Mutate,
        &crate::review::parse_review(&serde_json::to_vec(&first).unwrap()).unwrap(),
        Some(Defect::PatchTypeOnSecondCall),
    );
    assert!(r["response"]["patch"].is_string());
}

#[test]
fn harmless_styles_reach_the_same_object() {
    use crate::Style;
    let first = create(V1, bare_pod());
    let parsed = crate::review::parse_review(&serde_json::to_vec(&first).unwrap()).unwrap();
    let plain = crate::review::respond(Endpoint::Mutate, &parsed, None);
    let reordered = crate::review::respond_styled(
        Endpoint::Mutate,
        &parsed,
        None,
        Style { reorder_ops: true, restate_unchanged: false },
    );
    assert_ne!(patch_of(&plain["response"]), patch_of(&reordered["response"]));
    let result = apply(&bare_pod(), &patch_of(&plain["response"]));
    assert_eq!(result, apply(&bare_pod(), &patch_of(&reordered["response"])));
    let again = crate::review::parse_review(&serde_json::to_vec(&create(V1, result.clone())).unwrap()).unwrap();
    let restated = crate::review::respond_styled(
        Endpoint::Mutate,
        &again,
        None,
        Style { reorder_ops: false, restate_unchanged: true },
    );
    assert_eq!(apply(&result, &patch_of(&restated["response"])), result);
}
