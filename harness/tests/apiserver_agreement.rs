//! The verdict agrees with the kube-apiserver on the answers of contract.md §8: every answer a real
//! v1.36 apiserver rejected is a FAIL of the rule named, and every answer it accepted is no FAIL.

use base64::Engine;
use serde_json::{json, Value};
use webhook_harness::lowlevel::{evaluate, plan, Exchange, HttpAnswer, RequestCase, Transport};
use webhook_harness::{Manifest, Outcome};

fn manifest(kind: &str, versions: &str) -> Manifest {
    let text = format!(
        r#"
apiVersion: admissionregistration.k8s.io/v1
kind: {kind}WebhookConfiguration
metadata: {{name: w}}
webhooks:
  - name: w.example
    admissionReviewVersions: {versions}
    sideEffects: None
    clientConfig: {{url: "https://localhost:8443/hook"}}
    rules:
      - {{operations: ["CREATE", "DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"]}}
"#
    );
    Manifest::parse("m.yaml".as_ref(), &text).unwrap()
}

fn case(m: &Manifest, label: &str) -> RequestCase {
    plan(&m.webhooks[0]).into_iter().find(|c| c.label == label && c.primary).unwrap()
}

fn b64(v: Value) -> String {
    base64::engine::general_purpose::STANDARD.encode(serde_json::to_vec(&v).unwrap())
}

/// Outcomes that are not pass/skip, as `rule=outcome`.
fn verdict(m: &Manifest, c: &RequestCase, status: u16, content_type: &str, body: &[u8]) -> Vec<String> {
    let transport = Transport::Answered(HttpAnswer {
        status,
        content_type: Some(content_type.to_string()),
        body: body.to_vec(),
        http_version: "HTTP/1.1".into(),
        elapsed: std::time::Duration::ZERO,
    });
    let url = "https://localhost:8443/hook?timeout=10s";
    evaluate(&Exchange::new(&m.webhooks[0], c, &transport, url))
        .into_iter()
        .filter(|f| matches!(f.outcome(), Outcome::Fail | Outcome::Warn))
        .map(|f| format!("{}={}", f.rule, if f.outcome() == Outcome::Fail { "fail" } else { "warn" }))
        .collect()
}

fn review(version: &str, response: Value) -> Vec<u8> {
    serde_json::to_vec(
        &json!({"apiVersion": format!("admission.k8s.io/{version}"), "kind": "AdmissionReview", "response": response}),
    )
    .unwrap()
}

const LABEL_PATCH: &str = "/metadata/labels";

#[test]
fn rejected_answers_fail_their_rule() {
    let m = manifest("Mutating", r#"["v1"]"#);
    let c = case(&m, "CREATE pods (bare)");
    let uid = c.uid().to_string();
    let add_labels = json!([{"op": "add", "path": LABEL_PATCH, "value": {"a": "b"}}]);
    let cases: Vec<(&str, u16, &str, Vec<u8>, &str)> = vec![
        ("uid missing", 200, "application/json", review("v1", json!({"allowed": true})), "response.uid"),
        ("uid wrong", 200, "application/json", review("v1", json!({"uid": "x", "allowed": true})), "response.uid"),
        ("no apiVersion/kind", 200, "application/json", serde_json::to_vec(&json!({"response": {"uid": uid, "allowed": true}})).unwrap(), "review.gvk-present"),
        ("kind misspelt", 200, "application/json", serde_json::to_vec(&json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionResponse", "response": {"uid": uid, "allowed": true}})).unwrap(), "review.gvk"),
        ("v1beta1 answer to v1", 200, "application/json", review("v1beta1", json!({"uid": uid, "allowed": true})), "review.gvk"),
        ("patch without patchType", 200, "application/json", review("v1", json!({"uid": uid, "allowed": true, "patch": b64(add_labels.clone())})), "patch.pairing"),
        ("patchType without patch", 200, "application/json", review("v1", json!({"uid": uid, "allowed": true, "patchType": "JSONPatch"})), "patch.pairing"),
        ("empty patchType", 200, "application/json", review("v1", json!({"uid": uid, "allowed": true, "patchType": "", "patch": b64(add_labels.clone())})), "patch.pairing"),
        ("MIME type as patchType", 200, "application/json", review("v1", json!({"uid": uid, "allowed": true, "patchType": "application/json-patch+json", "patch": b64(add_labels.clone())})), "patch.type"),
        ("URL-safe base64", 200, "application/json", review("v1", json!({"uid": uid, "allowed": true, "patchType": "JSONPatch", "patch": "W3sib3AiOiJhZGQiLCJwYXRoIjoiL21ldGFkYXRhL2Fubm90YXRpb25zL2siLCJ2YWx1ZSI6Ij8_Pj5-fsO8In1d"})), "patch.base64"),
        ("patch is plain JSON", 200, "application/json", review("v1", json!({"uid": uid, "allowed": true, "patchType": "JSONPatch", "patch": "[{\"op\":\"add\"}]"})), "patch.base64"),
        ("patch does not apply", 200, "application/json", review("v1", json!({"uid": uid, "allowed": true, "patchType": "JSONPatch", "patch": b64(json!([{"op": "add", "path": "/metadata/labels/x", "value": "y"}]))})), "patch.applies"),
        ("patched object of the wrong type", 200, "application/json", review("v1", json!({"uid": uid, "allowed": true, "patchType": "JSONPatch", "patch": b64(json!([{"op": "add", "path": "/metadata/annotations", "value": {"a": 1}}]))})), "patch.kind-decode"),
        ("patch not an array", 200, "application/json", review("v1", json!({"uid": uid, "allowed": true, "patchType": "JSONPatch", "patch": b64(json!({"op": "add", "path": "/x", "value": 1}))})), "patch.json"),
        ("HTTP 400", 400, "text/plain", b"bad".to_vec(), "transport.status"),
        ("HTTP 500", 500, "text/plain", b"boom".to_vec(), "transport.status"),
        ("empty body", 200, "application/json", Vec::new(), "review.body"),
        ("allowed as a string", 200, "application/json", review("v1", json!({"uid": uid, "allowed": "true"})), "review.decode"),
        ("no response", 200, "application/json", serde_json::to_vec(&json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"})).unwrap(), "response.present"),
        ("unparsable Content-Type", 200, "application/", review("v1", json!({"uid": uid, "allowed": true})), "transport.content-type"),
    ];
    let mut wrong = Vec::new();
    for (name, status, ct, body, rule) in cases {
        let got = verdict(&m, &c, status, ct, &body);
        let fails: Vec<&String> = got.iter().filter(|g| g.ends_with("=fail")).collect();
        if fails != vec![&format!("{rule}=fail")] {
            wrong.push(format!("{name}: expected only {rule}=fail, got {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));

    // A patch on DELETE, where there is no object.
    let d = case(&m, "DELETE pods (bare)");
    let body =
        review("v1", json!({"uid": d.uid(), "allowed": true, "patchType": "JSONPatch", "patch": b64(add_labels)}));
    assert_eq!(verdict(&m, &d, 200, "application/json", &body), vec!["patch.no-object=fail"]);

    // A validating webhook that returns a patch.
    let v = manifest("Validating", r#"["v1"]"#);
    let vc = case(&v, "CREATE pods (bare)");
    let body =
        review("v1", json!({"uid": vc.uid(), "allowed": true, "patchType": "JSONPatch", "patch": b64(json!([]))}));
    assert_eq!(
        verdict(&v, &vc, 200, "application/json", &body),
        vec!["validating.no-patch=fail"],
        "patchType alone is refused"
    );
}

#[test]
fn accepted_answers_do_not_fail() {
    let m = manifest("Mutating", r#"["v1"]"#);
    let c = case(&m, "CREATE pods (labelled)");
    let uid = c.uid().to_string();
    let bytes: Vec<Value> = serde_json::to_vec(&json!([{"op": "add", "path": "/metadata/labels/x", "value": "y"}]))
        .unwrap()
        .into_iter()
        .map(|b| json!(b))
        .collect();
    let ops_a = json!([{"op": "add", "path": "/metadata/labels/x", "value": "1"}, {"op": "add", "path": "/metadata/annotations/y", "value": "2"}]);
    let ops_b = json!([{"op": "add", "path": "/metadata/annotations/y", "value": "2"}, {"op": "add", "path": "/metadata/labels/x", "value": "1"}]);
    let cases: Vec<(&str, &str, Vec<u8>, Vec<&str>)> = vec![
        ("plain allow", "application/json", review("v1", json!({"uid": uid, "allowed": true})), vec![]),
        (
            "patch as a JSON array of bytes",
            "application/json",
            review("v1", json!({"uid": uid, "allowed": true, "patchType": "JSONPatch", "patch": bytes})),
            vec!["patch.base64-string=warn"],
        ),
        (
            "replace of a missing key whose map exists",
            "application/json",
            review(
                "v1",
                json!({"uid": uid, "allowed": true, "patchType": "JSONPatch", "patch": b64(json!([{"op": "replace", "path": "/metadata/labels/new", "value": "v"}]))}),
            ),
            vec!["patch.rfc6902=warn"],
        ),
        (
            "Content-Type text/plain",
            "text/plain",
            review("v1", json!({"uid": uid, "allowed": true})),
            vec!["transport.content-type-json=warn"],
        ),
        (
            "charset parameter",
            "application/json; charset=utf-8",
            review("v1", json!({"uid": uid, "allowed": true})),
            vec![],
        ),
        (
            "denial with code 200",
            "application/json",
            review("v1", json!({"uid": uid, "allowed": false, "status": {"code": 200, "message": "no"}})),
            vec!["denial.code=warn"],
        ),
        (
            "status {} on an allow",
            "application/json",
            review("v1", json!({"uid": uid, "allowed": true, "status": {}})),
            vec![],
        ),
        (
            "unknown extra fields",
            "application/json",
            review("v1", json!({"uid": uid, "allowed": true, "extra": {"x": 1}, "patchType": null})),
            vec![],
        ),
        (
            "operations in one order",
            "application/json",
            review("v1", json!({"uid": uid, "allowed": true, "patchType": "JSONPatch", "patch": b64(ops_a)})),
            vec![],
        ),
        (
            "the same operations in another order",
            "application/json",
            review("v1", json!({"uid": uid, "allowed": true, "patchType": "JSONPatch", "patch": b64(ops_b)})),
            vec![],
        ),
        (
            "empty patch array with type",
            "application/json",
            review("v1", json!({"uid": uid, "allowed": true, "patchType": "JSONPatch", "patch": b64(json!([]))})),
            vec![],
        ),
        (
            "denial without message",
            "application/json",
            review("v1", json!({"uid": uid, "allowed": false})),
            vec!["denial.message=warn"],
        ),
        (
            "allowed missing",
            "application/json",
            review("v1", json!({"uid": uid})),
            vec!["response.allowed-present=warn"],
        ),
    ];
    let mut wrong = Vec::new();
    for (name, ct, body, want) in cases {
        let got = verdict(&m, &c, 200, ct, &body);
        if got != want {
            wrong.push(format!("{name}: expected {want:?}, got {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn v1beta1_is_lenient_where_the_apiserver_is() {
    let m = manifest("Mutating", r#"["v1beta1"]"#);
    let c = case(&m, "CREATE pods (bare)");
    let add = b64(json!([{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}]));
    // No uid, no apiVersion/kind, a patch without patchType: all accepted by the apiserver in v1beta1.
    let body = serde_json::to_vec(&json!({"response": {"allowed": true, "patch": add}})).unwrap();
    let got = verdict(&m, &c, 200, "application/json", &body);
    assert!(got.iter().all(|g| g.ends_with("=warn")), "{got:?}");
    assert!(
        got.contains(&"response.uid=warn".to_string())
            && got.contains(&"review.gvk-present=warn".to_string())
            && got.contains(&"patch.pairing=warn".to_string()),
        "{got:?}"
    );
    // But a v1 answer to a v1beta1 request does not decode.
    let body = review("v1", json!({"uid": c.uid(), "allowed": true}));
    assert_eq!(verdict(&m, &c, 200, "application/json", &body), vec!["review.gvk=fail"]);
}

#[test]
fn other_listed_versions_only_warn() {
    let m = manifest("Mutating", r#"["v1", "v1beta1"]"#);
    let secondary = plan(&m.webhooks[0]).into_iter().find(|c| !c.primary).unwrap();
    assert_eq!(secondary.version(), "v1beta1");
    let body = review("v1", json!({"uid": secondary.uid(), "allowed": true}));
    assert_eq!(verdict(&m, &secondary, 200, "application/json", &body), vec!["review.gvk=warn"]);
}
