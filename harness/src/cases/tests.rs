use std::path::Path;

use serde_json::json;

use super::request::CASE_UID;
use super::*;
use crate::admission::{Operation, ReviewVersion};
use crate::config::{Manifest, WebhookKind};

/// The repository's own `cases/` directory.
fn builtin_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases")
}

fn parse_case(text: &str) -> Result<Case, CaseError> {
    parse(Path::new("cases/broken.yaml"), text)
}

fn reference() -> Manifest {
    Manifest::parse(Path::new("reference.yaml"), reference_webhook::MANIFEST).unwrap()
}

#[test]
fn broken_yaml_names_the_file_and_the_line() {
    let e = parse_case("operation: CREATE\nobject:\n  kind: Pod\n   apiVersion: v1\n").unwrap_err();
    let text = e.to_string();
    assert!(text.starts_with("cases/broken.yaml:"), "{text}");
    assert!(e.line.is_some_and(|l| l >= 3), "{text}");
}

#[test]
fn unknown_field_names_the_field_and_its_line() {
    let e = parse_case("operation: CREATE\nobject: {apiVersion: v1, kind: Pod, metadata: {name: p}}\nexpect:\n  decision: allowed\n  mesage: typo\n").unwrap_err();
    let text = e.to_string();
    assert!(text.contains("cases/broken.yaml:5"), "{text}");
    assert!(text.contains("mesage"), "{text}");
    assert!(text.contains("cases/broken.yaml:5: expect.mesage: unknown field `mesage`"), "the path once: {text}");
}

#[test]
fn semantic_errors_name_field_and_line() {
    let e = parse_case("description: x\noperation: CRATE\nobject: {apiVersion: v1, kind: Pod}\n").unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
    assert!(e.to_string().contains("\"CRATE\" is not CREATE"), "{e}");
    let e = parse_case("operation: CREATE\nresource: gizmos\nobject: {metadata: {name: g}}\n").unwrap_err();
    assert_eq!((e.line, e.field.as_deref()), (Some(2), Some("resource")), "{e}");
    let e = parse_case("operation: CONNECT\nresource: pods\n").unwrap_err();
    assert!(e.to_string().contains("subresource"), "{e}");
    let e = parse_case("operation: UPDATE\nresource: pods\nsubresource: exec\n").unwrap_err();
    assert!(e.to_string().contains("takes CONNECT"), "{e}");
    let e =
        parse_case("operation: CREATE\nobject: {apiVersion: v1, kind: Pod}\nexpect:\n  decision: maybe\n").unwrap_err();
    assert_eq!(e.line, Some(4), "{e}");
    let e = parse_case(
        "operation: CREATE\nobject: {apiVersion: v1, kind: Pod}\nexpect:\n  patched:\n    has: [metadata/labels]\n",
    )
    .unwrap_err();
    assert!(e.to_string().contains("JSON pointer"), "{e}");
    let e = parse_case("operation: DELETE\nresource: pods\n").unwrap_err();
    assert!(e.to_string().contains("required for DELETE"), "{e}");
}

#[test]
fn a_whole_admission_request_is_a_case() {
    let c = parse_case(
        "request:\n  operation: UPDATE\n  resource: {group: apps, version: v1, resource: deployments}\n  subResource: scale\n  name: web\n  namespace: ns\n  dryRun: true\n  userInfo: {username: bob}\n  object: {apiVersion: autoscaling/v1, kind: Scale, metadata: {name: web}, spec: {replicas: 4}}\n",
    )
    .unwrap();
    assert_eq!(c.what(), "UPDATE deployments/scale");
    assert!(c.dry_run);
    assert_eq!(c.namespace.as_deref(), Some("ns"));
    let spec = admission_spec(&c, WebhookKind::Mutating, &c.object);
    assert_eq!(spec.kind.kind, "Scale");
    assert_eq!(spec.object["spec"]["replicas"], 4);
    assert_eq!(spec.old_object["kind"], "Scale", "the apiserver sends the old Scale too");
    assert_eq!(spec.user.username, "bob");
    let review = crate::requests::admission_review(ReviewVersion::V1, &spec, "u").to_value();
    assert_eq!(review["request"]["options"]["dryRun"], json!(["All"]));
}

#[test]
fn objects_are_presented_as_the_apiserver_presents_them() {
    let pod = "object: {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ns}, spec: {containers: [{name: a, image: i}]}}\n";
    let create = parse_case(&format!("operation: CREATE\n{pod}")).unwrap();
    let m = admission_spec(&create, WebhookKind::Mutating, &create.object);
    assert!(m.object["metadata"].get("uid").is_none(), "mutating CREATE sees no uid");
    let v = admission_spec(&create, WebhookKind::Validating, &create.object);
    assert_eq!(v.object["metadata"]["uid"], CASE_UID, "validating CREATE sees the stored object");
    let delete = parse_case(&format!("operation: DELETE\n{pod}")).unwrap();
    let d = admission_spec(&delete, WebhookKind::Validating, &delete.object);
    assert!(d.object.is_null() && d.old_object["kind"] == "Pod", "DELETE: null object, the pod as oldObject");
    let update = parse_case(&format!("operation: UPDATE\n{pod}")).unwrap();
    let u = admission_spec(&update, WebhookKind::Mutating, &update.object);
    assert!(u.old_object["metadata"]["uid"].is_string() && u.object["metadata"]["uid"].is_string());
    let connect = parse_case("operation: CONNECT\nresource: pods\nsubresource: exec\nname: p\n").unwrap();
    let c = admission_spec(&connect, WebhookKind::Validating, &connect.object);
    assert_eq!(c.object["kind"], "PodExecOptions");
    assert_eq!(c.operation, Operation::Connect);
}

#[test]
fn a_cases_objects_are_sent_as_written_not_defaulted() {
    let pod = "object: {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ns}, spec: {containers: [{name: a, image: i}]}}\n";
    for op in ["CREATE", "UPDATE"] {
        let case = parse_case(&format!("operation: {op}\n{pod}")).unwrap();
        let spec = admission_spec(&case, WebhookKind::Mutating, &case.object);
        assert!(!spec.sent_defaulted, "{op}");
        for object in [&spec.object, &spec.old_object].into_iter().filter(|o| !o.is_null()) {
            assert!(object["spec"].get("restartPolicy").is_none(), "{op}: {object}");
            assert!(object["spec"]["containers"][0].get("imagePullPolicy").is_none(), "{op}: {object}");
        }
    }
}

#[test]
fn the_built_in_cases_load_and_each_reaches_a_reference_webhook() {
    let cases = load_dir(&builtin_dir()).unwrap();
    assert!(cases.len() >= 10, "{}", cases.len());
    let m = reference();
    for c in &cases {
        let chosen = webhooks_for(c, &m.webhooks, &crate::requests::ApiResources::built_in()).unwrap();
        assert!(!chosen.is_empty(), "{} is selected by no reference webhook", c.name);
        assert!(!c.expect.is_empty(), "{} has no expect:", c.name);
    }
    let exec = cases.iter().find(|c| c.name == "pod-exec").unwrap();
    let chosen: Vec<_> = webhooks_for(exec, &m.webhooks, &crate::requests::ApiResources::built_in())
        .unwrap()
        .iter()
        .map(|w| w.kind)
        .collect();
    assert_eq!(chosen, vec![WebhookKind::Validating], "the mutating reference webhook does not select pods/exec");
    let privileged = cases.iter().find(|c| c.name == "pod-privileged").unwrap();
    let chosen: Vec<_> = webhooks_for(privileged, &m.webhooks, &crate::requests::ApiResources::built_in())
        .unwrap()
        .iter()
        .map(|w| w.kind)
        .collect();
    assert_eq!(chosen, vec![WebhookKind::Mutating, WebhookKind::Validating], "mutating first");
}

#[test]
fn an_unknown_webhook_name_is_an_error_of_the_case() {
    let mut c = parse_case(
        "operation: CREATE\nwebhook: nope.example.com\nobject: {apiVersion: v1, kind: Pod, metadata: {name: p}}\n",
    )
    .unwrap();
    let e = validate_webhooks(std::slice::from_ref(&c), &reference().webhooks).unwrap_err();
    assert!(
        e.to_string().contains("nope.example.com") && e.to_string().contains("mutate.reference.conformance.example"),
        "{e}"
    );
    c.webhook = Some("validate.reference.conformance.example".into());
    assert_eq!(webhooks_for(&c, &reference().webhooks, &crate::requests::ApiResources::built_in()).unwrap().len(), 1);
}

#[test]
fn snap_files_round_trip_and_diffs_name_the_change() {
    let dir = tempfile::tempdir().unwrap();
    let body = "case: x\nanswers:\n- patched:\n    metadata:\n      labels:\n        a: '1'\n";
    assert!(matches!(snapshot::compare(dir.path(), "x", body), Golden::Missing(_)));
    snapshot::write(dir.path(), "x", body).unwrap();
    let stored = std::fs::read_to_string(dir.path().join("x.snap")).unwrap();
    assert!(stored.starts_with("---\n") && stored.contains("\n---\ncase: x\n"), "{stored}");
    assert_eq!(snapshot::compare(dir.path(), "x", body), Golden::Unchanged);
    let changed = body.replace("a: '1'", "a: '1'\n        conformance.example/mutated: 'true'");
    match snapshot::compare(dir.path(), "x", &changed) {
        Golden::Changed(_, diff) => assert!(diff.contains("+        conformance.example/mutated: 'true'"), "{diff}"),
        other => panic!("{other:?}"),
    }
}
