//! Every defect is observable: each changes some answer (or acts at the transport level), and the
//! property defects (sidecar-every-call, counter-annotation, patch-type-on-second-call) show only
//! across calls.

use serde_json::{json, Value};

use super::{apply, bare_pod, call, create, deny_review, labelled, patch_of, response, review_with};
use crate::defect::Defect;
use crate::review::{Endpoint, V1};

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
    // A pod as a ReplicaSet sends it: no name in the request.
    let mut nameless = create(V1, bare_pod());
    nameless["request"].as_object_mut().unwrap().remove("name");
    // A pod UPDATE, and a Deployment whose selector names its template's labels.
    let update = review_with(V1, "UPDATE", bare_pod(), bare_pod(), false);
    // An UPDATE of a pod's /status.
    let mut status_update = update.clone();
    status_update["request"]["subResource"] = json!("status");
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": {"app": "d"}},
                 "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "a", "image": "a:1"}]}}}});
    // A non-root pod of three containers, already mutated: its sidecar is the fourth container.
    let mut non_root = bare_pod();
    non_root["spec"]["securityContext"] = json!({"runAsNonRoot": true});
    non_root["spec"]["containers"] =
        json!([{"name": "a", "image": "a:1"}, {"name": "b", "image": "b:1"}, {"name": "c", "image": "c:1"}]);
    let non_root = apply(&non_root, &patch_of(&response(Endpoint::Mutate, &create(V1, non_root.clone()))));
    // A custom resource whose spec has an integer `replicas`.
    let mut widget = create(
        V1,
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"replicas": 1}}),
    );
    widget["request"]["kind"] = json!({"group": "example.com", "version": "v1", "kind": "Widget"});
    // A Service with one named port.
    let service = create(
        V1,
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
               "spec": {"selector": {"app": "s"}, "ports": [{"name": "http", "port": 80}]}}),
    );
    let reviews = [
        service,
        widget,
        create(V1, non_root),
        update,
        status_update,
        create(V1, deployment),
        nameless,
        review_with(V1, "CREATE", bare_pod(), Value::Null, true),
        create(V1, reinvoked),
        create(V1, object),
        deny_review(),
        review_with(V1, "DELETE", Value::Null, bare_pod(), false),
        create(V1, mutated),
        create(V1, with_labels),
    ];
    for defect in Defect::ALL.iter().copied() {
        // These act on the connection (server.rs), not on an answer: tests/https.rs shows them.
        if matches!(defect, Defect::UntrustedCert | Defect::CloseAfterAnswer) {
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

/// `service-port-out-of-range` adds its port to a Service once, and leaves other kinds alone.
#[test]
fn the_service_port_defect_adds_one_port_once() {
    let service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
                         "spec": {"ports": [{"name": "http", "port": 80}]}});
    let with = |object: &Value| {
        crate::review::respond(
            Endpoint::Mutate,
            &crate::review::parse_review(&serde_json::to_vec(&create(V1, object.clone())).unwrap()).unwrap(),
            Some(Defect::ServicePortOutOfRange),
        )
    };
    let once = apply(&service, &patch_of(&with(&service)["response"]));
    let ports = once["spec"]["ports"].as_array().unwrap();
    assert_eq!(ports.len(), 2);
    assert_eq!(ports[1]["port"], crate::mutate::OUT_OF_RANGE_PORT);
    assert!(with(&once)["response"].get("patch").is_none(), "nothing left to add");
    let pod = apply(&bare_pod(), &patch_of(&with(&bare_pod())["response"]));
    assert!(pod["spec"].get("ports").is_none());
}
