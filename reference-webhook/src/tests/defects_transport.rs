//! Defects at the HTTP level: hanging, closing the connection, status 500, wrong content types,
//! empty and garbage bodies, and the untrusted certificate (which leaves the answers alone).

use super::{bare_pod, call, create, reply};
use crate::defect::Defect;
use crate::review::{Action, Endpoint, V1};

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

/// A pod as a ReplicaSet sends it: `generateName`, no name in the object nor in the request.
fn nameless_pod_create() -> serde_json::Value {
    let mut object = bare_pod();
    object["metadata"] = serde_json::json!({"generateName": "web-7d4b9c6f5d-", "namespace": "default"});
    let mut review = create(V1, object);
    review["request"].as_object_mut().unwrap().remove("name");
    review
}

#[test]
fn defect_nameless_pod_answers_500_only_to_a_pod_without_a_name() {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        let reply = reply(endpoint, &nameless_pod_create(), Some(Defect::NamelessPod));
        assert_eq!(reply.status, 500);
        // The correct webhook answers it; a named pod gets the correct answer under the defect.
        assert_eq!(super::reply(endpoint, &nameless_pod_create(), None).status, 200);
        let named = create(V1, bare_pod());
        assert_eq!(call(endpoint, &named, Some(Defect::NamelessPod)), call(endpoint, &named, None));
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
fn untrusted_cert_does_not_change_answers() {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        let review = create(V1, bare_pod());
        assert_eq!(reply(endpoint, &review, Some(Defect::UntrustedCert)), reply(endpoint, &review, None));
    }
}

#[test]
fn defect_late_answer_sends_the_correct_answer_after_the_deadline() {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        let review = create(V1, bare_pod());
        let correct = reply(endpoint, &review, None);
        assert_eq!(call(endpoint, &review, Some(Defect::LateAnswer)), Action::ReplyAfterDeadline(correct));
    }
}

#[test]
fn defect_yaml_body_is_the_same_answer_in_yaml() {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        let review = create(V1, bare_pod());
        let correct = reply(endpoint, &review, None).json().unwrap();
        let yaml = reply(endpoint, &review, Some(Defect::YamlBody));
        assert_eq!((yaml.status, yaml.content_type), (200, "application/json"));
        assert!(!yaml.body.starts_with(b"{"), "{}", String::from_utf8_lossy(&yaml.body));
        let read: serde_json::Value = serde_yaml::from_slice(&yaml.body).unwrap();
        assert_eq!(read, correct);
    }
}
