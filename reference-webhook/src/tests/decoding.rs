//! Decoding the AdmissionReview request: malformed bodies get 400, every truncation and odd shape
//! is answered without a panic, and the accepted (and refused) request content types.

use serde_json::json;

use super::{answer, bare_pod, call, create, UID};
use crate::defect::Defect;
use crate::review::{handle, Action, Endpoint, V1};

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
