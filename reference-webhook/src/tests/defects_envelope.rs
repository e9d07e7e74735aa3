//! Defects in the review envelope and the response's fields: `allowed` as a string or missing, the
//! apiVersion/kind/response members, wrong and missing uids, denial statuses, bad warnings and
//! audit annotation keys.

use serde_json::json;

use super::{bare_pod, create, defect_answer, deny_review, UID};
use crate::defect::Defect;
use crate::review::{Endpoint, V1, V1BETA1};

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
    // no-uid-on-denial: the uid is echoed when allowing and missing only when denying.
    let allowed = defect_answer(Endpoint::Validate, &create(V1, bare_pod()), Defect::NoUidOnDenial);
    assert_eq!(allowed["response"]["uid"], UID);
    let denied = defect_answer(Endpoint::Validate, &deny_review(), Defect::NoUidOnDenial);
    assert_eq!(denied["response"]["allowed"], false);
    assert!(denied["response"].get("uid").is_none());
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
fn defect_bad_warning_and_audit_key() {
    let a = defect_answer(Endpoint::Validate, &create(V1, bare_pod()), Defect::BadWarning);
    let warnings = a["response"]["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w.as_str().unwrap().contains('\u{7}')));
    let a = defect_answer(Endpoint::Validate, &create(V1, bare_pod()), Defect::BadAuditKey);
    assert_eq!(a["response"]["auditAnnotations"], json!({"bad/key": "allowed"}));
}
