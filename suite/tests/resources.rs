//! Requests as a real cluster sends them, for resources beyond pods and deployments: built-in kinds a
//! webhook selects are exercised and judged, and a custom resource given with its CRD is sent valid
//! against its schema, pruned as the apiserver prunes it — a strict validating webhook passes.

use std::path::{Path, PathBuf};
use std::process::Command;

use reference_webhook::{Defect, Style};
use webhook_conformance::embedded;
use webhook_harness::{Budget, Manifest, Outcome, Suite, Verdict};

fn write(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

/// A mutating and a validating webhook of the reference webhook on `rules` (YAML flow sequences).
fn manifest(rules: &str) -> Manifest {
    let text = format!(
        r#"apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {{name: storage}}
webhooks:
  - name: mutate.reference.conformance.example
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Fail
    reinvocationPolicy: IfNeeded
    clientConfig: {{service: {{name: reference-webhook, namespace: conformance, path: /mutate}}}}
    rules: {rules}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {{name: storage}}
webhooks:
  - name: validate.reference.conformance.example
    admissionReviewVersions: ["v1", "v1beta1"]
    sideEffects: None
    failurePolicy: Fail
    clientConfig: {{service: {{name: reference-webhook, namespace: conformance, path: /validate}}}}
    rules: {rules}
"#
    );
    Manifest::parse(Path::new("storage.yaml"), &text).unwrap()
}

const BEYOND_PODS: &str = r#"
      - {apiGroups: [""], apiVersions: ["v1"], operations: ["*"], scope: "*",
         resources: [persistentvolumeclaims, persistentvolumes, nodes, resourcequotas, limitranges, pods/binding, replicationcontrollers/scale]}
      - {apiGroups: [networking.k8s.io], apiVersions: ["v1"], operations: ["*"], resources: [networkpolicies]}"#;

#[test]
fn webhooks_selecting_pvcs_nodes_and_other_built_ins_are_exercised_and_judged() {
    let m = manifest(BEYOND_PODS);
    let report = Suite::new(m.clone())
        .target(embedded::target(None, Style::default()))
        .budget(Budget::cases(8))
        .seed(11)
        .run_blocking()
        .unwrap();
    let text = report.render_text();
    assert_eq!(report.verdict(), Verdict::Pass, "{text}");
    for w in &m.webhooks {
        assert_eq!(report.outcome("coverage.requests", Some(&w.name)), Outcome::Pass, "{text}");
        let coverage = &report.coverage()[&w.name];
        for key in [
            "CREATE persistentvolumeclaims",
            "UPDATE persistentvolumeclaims",
            "DELETE persistentvolumeclaims",
            "CREATE persistentvolumes",
            "CREATE nodes",
            "CREATE resourcequotas",
            "CREATE limitranges",
            "CREATE pods/binding",
            "UPDATE replicationcontrollers/scale",
            "CREATE networkpolicies",
        ] {
            let sent = coverage.get(key).map(|c| c.sent).unwrap_or(0);
            assert!(sent > 0, "{}: nothing sent for {key}: {coverage:?}", w.name);
        }
    }
    // The mutating webhook's patches on them are applied to the typed objects and judged.
    let patched_pvc = report.records().exchange_findings().any(|(r, f)| {
        r.webhook.name.starts_with("mutate.")
            && r.case.spec.resource.resource == "persistentvolumeclaims"
            && f.rule == "patch.kind-decode"
            && f.outcome() == Outcome::Pass
    });
    assert!(patched_pvc, "a PVC patch is held to the typed decoding: {text}");

    // The same requests catch a webhook that breaks the protocol on them.
    let report = Suite::new(m)
        .target(embedded::target(Some(Defect::WrongUid), Style::default()))
        .budget(Budget::NONE)
        .run_blocking()
        .unwrap();
    assert_eq!(report.verdict(), Verdict::Fail);
    let failing: Vec<_> = report
        .records()
        .exchange_findings()
        .filter(|(_, f)| f.rule == "response.uid" && f.outcome() == Outcome::Fail)
        .map(|(r, _)| r.case.spec.resource.resource.clone())
        .collect();
    for plural in ["persistentvolumeclaims", "nodes", "networkpolicies", "limitranges"] {
        assert!(failing.iter().any(|p| p == plural), "{plural} not judged: {failing:?}");
    }
}

const WIDGET_CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
    - name: v1
      served: true
      storage: true
      subresources:
        status: {}
        scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
      schema:
        openAPIV3Schema:
          type: object
          required: [spec]
          properties:
            spec:
              type: object
              required: [size, mode]
              properties:
                size: {type: integer, minimum: 2, maximum: 10}
                mode: {type: string, enum: [fast, safe]}
                replicas: {type: integer, default: 1}
                port: {x-kubernetes-int-or-string: true}
                owner: {type: string, format: email}
                tags: {type: array, maxItems: 4, items: {type: string, maxLength: 8}}
                limits: {type: object, additionalProperties: {type: string}}
                settings: {type: object, x-kubernetes-preserve-unknown-fields: true}
                template:
                  type: object
                  x-kubernetes-embedded-resource: true
                  properties:
                    data: {type: object, additionalProperties: {type: string}}
                backends:
                  type: array
                  items:
                    type: object
                    required: [name]
                    properties:
                      name: {type: string}
                      weight: {type: integer, default: 100}
            status:
              type: object
              properties:
                replicas: {type: integer}
                ready: {type: boolean}
    - name: v1beta1
      served: true
      storage: false
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: {type: integer}
"#;

/// The schemas of the CRD above as the strict webhook reads them (JSON: Python has no YAML).
fn schemas_json() -> String {
    let crd: serde_json::Value = serde_yaml::from_str(WIDGET_CRD).unwrap();
    let mut out = serde_json::Map::new();
    for v in crd["spec"]["versions"].as_array().unwrap() {
        out.insert(v["name"].as_str().unwrap().into(), v["schema"]["openAPIV3Schema"].clone());
    }
    serde_json::Value::Object(out).to_string()
}

fn strict_manifest(dir: &Path) -> PathBuf {
    write(
        dir,
        "widgets.yaml",
        r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: widgets}
webhooks:
  - name: strict.widgets.example.com
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Fail
    clientConfig: {service: {name: widgets, namespace: widgets, path: /validate}}
    rules:
      - {apiGroups: [example.com], apiVersions: [v1], operations: ["*"], resources: [widgets, widgets/status, widgets/scale]}
"#,
    )
}

/// A run of the strict webhook (with the CRD given, or not): the report, and the requests sent and
/// denied per `OPERATION resource`.
fn run_strict(crd: Option<&Path>, dir: &Path) -> (webhook_harness::Report, Vec<(String, u64, u64)>) {
    let schemas = write(dir, "schemas.json", &schemas_json());
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/strict_crd_webhook.py");
    let cmd = format!(
        "exec python3 {script} --cert {{cert}} --key {{key}} --port {{port}} --kind Widget --schemas {}",
        schemas.display()
    );
    let mut suite =
        Suite::from_manifest_file(strict_manifest(dir)).unwrap().command(cmd).budget(Budget::cases(24)).seed(5);
    if let Some(crd) = crd {
        suite = suite.crds(&[crd]).unwrap();
    }
    let report = suite.run_blocking().unwrap();
    let counts =
        report.coverage().values().flat_map(|per| per.iter().map(|(k, c)| (k.clone(), c.sent, c.denied))).collect();
    (report, counts)
}

#[test]
fn a_strict_validating_webhook_for_a_crd_passes_and_never_sees_a_pruned_field() {
    let dir = tempfile::tempdir().unwrap();
    let crd = write(dir.path(), "widget-crd.yaml", WIDGET_CRD);
    let (report, counts) = run_strict(Some(&crd), dir.path());
    let text = report.render_text();
    assert_eq!(report.verdict(), Verdict::Pass, "{text}");
    for key in ["CREATE widgets", "UPDATE widgets", "DELETE widgets", "UPDATE widgets/status", "UPDATE widgets/scale"] {
        assert!(counts.iter().any(|(k, sent, _)| k == key && *sent > 0), "nothing sent for {key}: {counts:?}\n{text}");
    }
    let denied: u64 = counts.iter().map(|(_, _, d)| d).sum();
    assert_eq!(denied, 0, "the strict webhook refused objects a cluster would send: {counts:?}\n{text}");
    assert!(!text.contains("a guess at their shape"), "{text}");
    // The report names the CRD's resources and what their generated objects draw from the schema.
    assert!(text.contains("custom resources from their CustomResourceDefinition (--crd)"), "{text}");
    assert!(text.contains("example.com/v1 widgets (spec."), "{text}");

    // Without the CRD the objects are a guess (an invented spec): the strict webhook refuses them,
    // and the report says their shape is a guess.
    let (report, counts) = run_strict(None, dir.path());
    let text = report.render_text();
    let denied: u64 = counts.iter().map(|(_, _, d)| d).sum();
    assert!(denied > 0, "{text}");
    assert!(text.contains("no CustomResourceDefinition for example.com/v1 widgets"), "{text}");
    assert!(text.contains("a guess at their shape"), "{text}");
}

#[test]
fn a_crd_file_that_does_not_load_is_exit_2_naming_the_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let broken = write(dir.path(), "broken.yaml", &WIDGET_CRD.replace("scope: Namespaced", "scope: Everywhere"));
    let out = Command::new(env!("CARGO_BIN_EXE_webhook-conformance"))
        .arg("--config")
        .arg(strict_manifest(dir.path()))
        .arg("--crd")
        .arg(&broken)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("broken.yaml") && text.contains("spec.scope"), "{text}");
}
