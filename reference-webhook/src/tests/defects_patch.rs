//! Defects in the JSON Patch of a response: patch and patchType pairing, the MIME patch type, a
//! validating patch, URL-safe base64, a non-array patch, bad paths and values, a patch on DELETE,
//! a byte-array patch, `replace` of a missing key, and a patch with a denial.

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use serde_json::{json, Value};

use super::{
    apply, assert_no_patch, bare_pod, create, defect_answer, deny_review, expected_full_patch, labelled, patch_of,
    response, review_with,
};
use crate::defect::Defect;
use crate::review::{Endpoint, V1};

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
fn defect_unparseable_quantity() {
    let object = bare_pod();
    let a = defect_answer(Endpoint::Mutate, &create(V1, object.clone()), Defect::UnparseableQuantity);
    let patched = apply(&object, &patch_of(&a["response"]));
    let sidecar = patched["spec"]["containers"].as_array().unwrap().last().unwrap();
    assert_eq!(sidecar["name"], crate::mutate::SIDECAR_NAME);
    assert_eq!(sidecar["resources"]["limits"]["cpu"], crate::mutate::UNPARSEABLE_CPU);
    // Without the defect the sidecar has no resources.
    let a = super::response(Endpoint::Mutate, &create(V1, object.clone()));
    let patched = apply(&object, &patch_of(&a));
    assert!(patched["spec"]["containers"].as_array().unwrap().last().unwrap().get("resources").is_none());
}

#[test]
fn defect_negative_run_as_user() {
    let object = bare_pod();
    let a = defect_answer(Endpoint::Mutate, &create(V1, object.clone()), Defect::NegativeRunAsUser);
    let patched = apply(&object, &patch_of(&a["response"]));
    let sidecar = patched["spec"]["containers"].as_array().unwrap().last().unwrap();
    assert_eq!(sidecar["name"], crate::mutate::SIDECAR_NAME);
    assert_eq!(sidecar["securityContext"]["runAsUser"], crate::mutate::NEGATIVE_RUN_AS_USER);
    // Without the defect the sidecar has no security context.
    let a = super::response(Endpoint::Mutate, &create(V1, object.clone()));
    let patched = apply(&object, &patch_of(&a));
    assert!(patched["spec"]["containers"].as_array().unwrap().last().unwrap().get("securityContext").is_none());
}
