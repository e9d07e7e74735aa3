//! The correct mutating webhook's answers: the expected patch on v1 and v1beta1, idempotence and
//! reinvocation, key escaping, existing maps and sidecars, non-pods, DELETE and CONNECT,
//! subresources, dry runs, objects without usable metadata or with invalid label/annotation maps,
//! and RFC 6901 escaping of a key.

use serde_json::{json, Value};

use super::{
    answer, apply, assert_no_patch, bare_pod, create, defect_answer, expected_full_patch, patch_of, pod, response,
    review_with,
};
use crate::defect::Defect;
use crate::review::{Endpoint, V1, V1BETA1};

fn scale(metadata: Value) -> Value {
    json!({
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": metadata,
        "spec": {"replicas": 3},
        "status": {"replicas": 1, "selector": "app=web"},
    })
}

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
    // Metadata only: a container is never added on UPDATE.
    let mut expected = expected_full_patch();
    expected.as_array_mut().unwrap().pop();
    assert_eq!(patch_of(&response), expected);
}

#[test]
fn the_sidecar_is_injected_on_create_only_unless_the_defect_adds_it_on_update() {
    let object = bare_pod();
    let update = review_with(V1, "UPDATE", object.clone(), object, false);
    let ops = patch_of(&response(Endpoint::Mutate, &update));
    assert!(ops.as_array().unwrap().iter().all(|op| op["path"] != "/spec/containers/-"), "{ops}");
    let defective = patch_of(&defect_answer(Endpoint::Mutate, &update, Defect::AddsContainerOnUpdate)["response"]);
    assert!(defective.as_array().unwrap().iter().any(|op| op["path"] == "/spec/containers/-"), "{defective}");
}

/// `status-spec-write` injects the sidecar on an UPDATE of a pod's /status, as on CREATE, and on
/// no other UPDATE; once the pod holds it, nothing more.
#[test]
fn the_status_spec_write_defect_injects_the_sidecar_on_a_status_update_only() {
    let object = bare_pod();
    let mut status = review_with(V1, "UPDATE", object.clone(), object.clone(), false);
    status["request"]["subResource"] = json!("status");
    let defective = patch_of(&defect_answer(Endpoint::Mutate, &status, Defect::StatusSpecWrite)["response"]);
    assert_eq!(defective, expected_full_patch());
    let honest = patch_of(&response(Endpoint::Mutate, &status));
    assert!(honest.as_array().unwrap().iter().all(|op| op["path"] != "/spec/containers/-"), "{honest}");
    let plain = review_with(V1, "UPDATE", object.clone(), object, false);
    let ops = patch_of(&defect_answer(Endpoint::Mutate, &plain, Defect::StatusSpecWrite)["response"]);
    assert!(ops.as_array().unwrap().iter().all(|op| op["path"] != "/spec/containers/-"), "{ops}");
    status["request"]["object"] = apply(&status["request"]["object"], &defective);
    assert_no_patch(&defect_answer(Endpoint::Mutate, &status, Defect::StatusSpecWrite)["response"]);
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

#[test]
fn invalid_metadata_maps_are_replaced_whole() {
    let object = json!({"kind": "ConfigMap", "metadata": {"labels": "x", "annotations": [1]}});
    let patch = patch_of(&response(Endpoint::Mutate, &create(V1, object.clone())));
    let patched = apply(&object, &patch);
    assert_eq!(patched["metadata"]["labels"], json!({"conformance.example/mutated": "true"}));
    assert_no_patch(&response(Endpoint::Mutate, &create(V1, patched)));
}

#[test]
fn escape_token_follows_rfc6901() {
    assert_eq!(crate::mutate::escape_token("a/b~c"), "a~1b~0c");
}
