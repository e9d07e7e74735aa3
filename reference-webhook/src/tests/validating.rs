//! The correct validating webhook's answers: allow with an audit annotation, deny on the deny
//! label (judging the old object on DELETE and the new one on UPDATE), warn on the warn annotation.

use serde_json::{json, Value};

use super::{assert_no_patch, bare_pod, create, labelled, response, review_with};
use crate::review::{Endpoint, V1, V1BETA1};

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
