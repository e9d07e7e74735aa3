//! The one command a user runs checks the whole promise: the contract on planned requests, every
//! property on generated requests and on the cases, and what each webhook was sent — and it never
//! passes on nothing.

use std::path::{Path, PathBuf};
use std::process::Output;

use reference_webhook::{Defect, Style};
use webhook_conformance::embedded;
use webhook_harness::{Budget, Manifest, Outcome, Suite, Verdict};

#[path = "support/cli.rs"]
mod cli_support;
use cli_support::bin;

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn write(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

#[test]
fn the_default_command_catches_defects_that_only_show_across_calls() {
    for (defect, rule, code) in [
        ("sidecar-every-call", "property.idempotent", 1),
        ("counter-annotation", "property.idempotent", 1),
        ("patch-type-on-second-call", "property.idempotent", 1),
        // The built-in case pod-request-dry-run expects the mutation under dryRun too: exit 1.
        ("no-mutation-on-dry-run", "property.dry-run", 1),
        ("no-uid-on-denial", "response.uid", 1),
    ] {
        let out = bin().args(["--reference-defect", defect, "--seed", "3"]).output().unwrap();
        let t = text(&out);
        assert_eq!(out.status.code(), Some(code), "{defect}: {t}");
        let verdict = t.lines().find(|l| l.starts_with("verdict: ")).unwrap_or_default();
        assert!(verdict.contains(rule), "{defect}: {verdict}\n{t}");
    }
}

#[test]
fn the_correct_reference_passes_the_default_command_without_a_warning() {
    let out = bin().args(["--seed", "5"]).output().unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(t.contains("verdict: PASS — no rule FAILs\n"), "no WARN either: {t}");
    assert!(
        t.contains("== properties (seed 5,") && t.contains("were held to every exchange rule: none of them broke one"),
        "{t}"
    );
}

#[test]
fn a_webhook_the_suite_sends_nothing_is_a_fail_that_says_why() {
    // CONNECT on plain pods: the apiserver only sends CONNECT for subresources (exec, attach, …).
    let dir = tempfile::tempdir().unwrap();
    let manifest = write(
        dir.path(),
        "connect.yaml",
        r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: connect}
webhooks:
  - name: validate.reference.conformance.example
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Ignore
    clientConfig: {service: {name: reference-webhook, namespace: conformance, path: /validate}}
    rules:
      - {apiGroups: [""], apiVersions: ["v1"], operations: ["CONNECT"], resources: ["pods"]}
"#,
    );
    let json = dir.path().join("report.json");
    let cmd = format!(
        "exec {} reference-webhook --cert {{cert}} --key {{key}} --port {{port}}",
        env!("CARGO_BIN_EXE_webhook-conformance")
    );
    let out = bin()
        .arg("--config")
        .arg(&manifest)
        .args(["--webhook", "validate.reference.conformance.example", "--cmd", &cmd, "--report-json"])
        .arg(&json)
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("verdict: FAIL — coverage.requests"), "{t}");
    assert!(t.contains("no request was sent to validate.reference.conformance.example"), "{t}");
    assert!(t.contains("its rules: CONNECT pods in \"\"/v1"), "{t}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["coverage_findings"][0]["outcome"], "fail", "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_contract_breach_is_its_rules_finding_not_a_propertys() {
    // Answers without apiVersion/kind, idempotent otherwise: review.gvk-present FAILs, no property does.
    let report = Suite::new(embedded::reference_manifest())
        .target(embedded::target(Some(Defect::NoApiVersionKind), Style::default()))
        .seed(11)
        .run()
        .await
        .unwrap();
    assert_eq!(report.failed_rules(), vec!["review.gvk-present"], "{}", report.render_text());
    for (p, f) in report.records().property_findings() {
        assert_ne!(f.outcome(), Outcome::Fail, "{}: {:?}", p.rule.id, p.failure);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_counts_what_each_webhook_was_sent_and_how_it_answered() {
    let report = Suite::new(embedded::reference_manifest())
        .target(embedded::target(None, Style::default()))
        .seed(13)
        .run()
        .await
        .unwrap();
    let validating = &report.coverage()["validate.reference.conformance.example"];
    let pods = &validating["CREATE pods"];
    assert!(pods.sent >= 10 && pods.denied > 0 && pods.allowed > 0, "{pods:?}");
    assert!(validating.contains_key("DELETE pods") && validating.contains_key("CONNECT pods/exec"), "{validating:?}");
    let mutating = &report.coverage()["mutate.reference.conformance.example"];
    assert!(mutating["CREATE pods"].patched > 0, "{mutating:?}");
    let text = report.render_text();
    assert!(text.contains("note: no usable answer was a denial"), "the mutating webhook never denies: {text}");
    let json = report.to_json();
    let rows = json["coverage"]["validate.reference.conformance.example"].as_array().unwrap();
    assert!(rows
        .iter()
        .any(|r| r["operation"] == "CREATE" && r["resource"] == "pods" && r["denied"].as_u64() > Some(0)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cases_are_held_to_the_properties_too() {
    // No generated request at all: the non-idempotent webhook is caught on the built-in cases alone.
    let report = Suite::new(embedded::reference_manifest())
        .target(embedded::target(Some(Defect::SidecarEveryCall), Style::default()))
        .contract(false)
        .budget(Budget::NONE)
        .cases_dir(embedded::cases_dir())
        .unwrap()
        .run()
        .await
        .unwrap();
    let (idempotent, _) = report
        .records()
        .property_findings()
        .find(|(p, f)| p.rule.id == "property.idempotent" && f.outcome() == Outcome::Fail)
        .unwrap_or_else(|| panic!("{}", report.render_text()));
    assert!(idempotent.note.as_deref().unwrap_or_default().starts_with("on case "), "{:?}", idempotent.note);
    assert_eq!(report.verdict(), Verdict::Fail);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_v1beta1_warning_quotes_no_apiserver_text() {
    let text = reference_webhook::MANIFEST.replace("[\"v1\", \"v1beta1\"]", "[\"v1beta1\"]");
    let manifest = Manifest::parse("v1beta1.yaml".as_ref(), &text).unwrap();
    let report = Suite::new(manifest)
        .target(embedded::target(Some(Defect::NoUid), Style::default()))
        .budget(Budget::NONE)
        .run()
        .await
        .unwrap();
    assert_eq!(report.verdict(), Verdict::Pass);
    let warned = report
        .findings()
        .iter()
        .find(|f| f.rule == "response.uid" && f.outcome() == Outcome::Warn)
        .expect("a WARN of response.uid");
    assert_eq!(warned.apiserver_message, None, "a v1beta1 apiserver accepts it: {warned:?}");
    let detail = warned.detail.as_deref().unwrap();
    assert!(detail.contains("a v1 apiserver would refuse it: Internal error occurred"), "{detail}");
}
