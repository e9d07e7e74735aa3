//! Cases, snapshots, manifest lint and JUnit output as a user meets them: a changed answer is a
//! readable diff, broken inputs are clear errors or findings (never a panic), a caBundle that does not
//! vouch for the served certificate is a FAIL finding, and `--junit` writes well-formed XML.

use std::path::{Path, PathBuf};
use std::process::Output;

use base64::Engine as _;
use reference_webhook::Defect;
use reference_webhook::Style;
use webhook_conformance::embedded;
use webhook_harness::rules::{of_kind, RuleKind, CASE_EXPECTATION, GOLDEN_UNCHANGED};
use webhook_harness::tls::{ServingNames, TlsMaterial};
use webhook_harness::{Finding, GoldenMode, Manifest, Outcome, Report, Subject, Suite};

#[path = "support/cli.rs"]
mod cli_support;
use cli_support::bin;

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn reference_cmd() -> String {
    format!(
        "exec {} reference-webhook --cert {{cert}} --key {{key}} --port {{port}}",
        env!("CARGO_BIN_EXE_webhook-conformance")
    )
}

fn write(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

/// One case as the report has it: its name, snapshot, outcome and its own rules' findings.
struct Judged {
    name: String,
    snapshot: String,
    outcome: Outcome,
    findings: Vec<Finding>,
}

/// Run the built-in cases against the reference webhook (with `defect`) and judge them with `golden`.
async fn run_builtin(defect: Option<Defect>, golden: GoldenMode) -> Vec<Judged> {
    let report = Suite::new(embedded::reference_manifest())
        .target(embedded::target(defect, Style::default()))
        .contract(false)
        .lint(false)
        .cases_dir(embedded::cases_dir())
        .unwrap()
        .golden(golden)
        .run()
        .await
        .unwrap();
    let records = report.records();
    (records.cases.iter().enumerate())
        .map(|(index, c)| Judged {
            name: c.name.clone(),
            snapshot: c.snapshot.clone(),
            outcome: records.case_outcome(index),
            findings: records.findings_about(&Subject::Case { index }).cloned().collect(),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_answer_is_a_readable_diff_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    // The correct reference webhook's answers become the snapshots …
    let accepted = run_builtin(None, GoldenMode::Update(dir.path().to_path_buf())).await;
    for c in &accepted {
        assert_eq!(c.outcome, Outcome::Pass, "{}: {:?}\n{}", c.name, c.findings, c.snapshot);
        assert!(dir.path().join(format!("{}.snap", c.name)).is_file(), "{}", c.name);
    }
    let unchanged = run_builtin(None, GoldenMode::Check(dir.path().to_path_buf())).await;
    assert!(
        unchanged.iter().all(|c| c.findings.iter().all(|f| f.outcome() == Outcome::Pass)),
        "a second run of the same webhook is unchanged"
    );

    // … and a webhook that now writes `replace` for a missing label key differs, readably.
    let changed = run_builtin(Some(Defect::ReplaceMissingKey), GoldenMode::Check(dir.path().to_path_buf())).await;
    let labelled = changed.iter().find(|c| c.name == "pod-labelled").unwrap();
    let golden = labelled.findings.iter().find(|f| f.rule == GOLDEN_UNCHANGED).unwrap();
    assert_eq!(golden.outcome(), Outcome::Fail);
    let diff = golden.detail.as_deref().unwrap();
    assert!(diff.contains("-  - op: add") && diff.contains("+  - op: replace"), "{diff}");
    assert!(diff.contains("path: /metadata/labels/conformance.example~1mutated"), "{diff}");
    assert!(!diff.contains("uid: 5") && !diff.contains("uid: \""), "no per-run values: {diff}");
    // The unchanged cases stay unchanged (the defect only touches a labels map lacking the key).
    let bare = changed.iter().find(|c| c.name == "pod-bare").unwrap();
    assert_eq!(bare.findings.iter().find(|f| f.rule == GOLDEN_UNCHANGED).unwrap().outcome(), Outcome::Pass);

    // A value change shows as the patched object's field.
    let wrong = run_builtin(Some(Defect::WrongType), GoldenMode::Check(dir.path().to_path_buf())).await;
    let bare = wrong.iter().find(|c| c.name == "pod-bare").unwrap();
    let diff = bare.findings.iter().find(|f| f.rule == GOLDEN_UNCHANGED).unwrap().detail.clone().unwrap();
    assert!(diff.lines().any(|l| l.starts_with('+') && l.contains("conformance.example/reviewed-by: 1")), "{diff}");
    assert!(
        diff.lines().any(|l| l.starts_with('-') && l.contains("conformance.example/reviewed-by: reference-webhook")),
        "{diff}"
    );
    // … and it breaks the case's expectation too.
    let e = bare.findings.iter().find(|f| f.rule == CASE_EXPECTATION).unwrap();
    assert_eq!(e.outcome(), Outcome::Fail, "{e:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expectations_fail_when_the_webhook_decides_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    // The case expects an allowed pod with a label the reference webhook never sets.
    let file = dir.path().join("expects-too-much.yaml");
    std::fs::write(
        &file,
        "operation: CREATE\nobject: {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ns}, spec: {containers: [{name: a, image: i}]}}\nexpect:\n  decision: denied\n  message: nope\n  patched:\n    has: [{path: /metadata/labels/team, value: a}]\n    lacks: [/metadata/labels/conformance.example~1mutated]\n",
    )
    .unwrap();
    let case = webhook_harness::load_case(&file).unwrap();
    let report = Suite::new(embedded::reference_manifest())
        .target(embedded::target(None, Style::default()))
        .contract(false)
        .cases(vec![case])
        .unwrap()
        .run()
        .await
        .unwrap();
    let f = report.records().findings_about(&Subject::Case { index: 0 }).find(|f| f.rule == CASE_EXPECTATION).unwrap();
    assert_eq!(f.outcome(), Outcome::Fail);
    let d = f.detail.as_deref().unwrap();
    for says in [
        "expected the request to be denied, it was allowed",
        "\"nope\"",
        "/metadata/labels/team",
        "lack /metadata/labels/conformance.example~1mutated",
    ] {
        assert!(d.contains(says), "{says}: {d}");
    }
}

/// The manifest's `manifest.ca-bundle` finding for the webhook whose name starts with `prefix`.
fn ca_bundle(report: &Report, prefix: &str) -> webhook_harness::Finding {
    report
        .manifest()
        .into_iter()
        .find(|f| {
            f.rule == "manifest.ca-bundle"
                && matches!(&f.subject, Subject::Manifest { webhook } if webhook.starts_with(prefix))
        })
        .cloned()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ca_bundle_that_does_not_vouch_for_the_served_certificate_is_a_fail_finding() {
    // A webhook the user runs with their own certificate: the caBundle is checked against it.
    let dir = tempfile::tempdir().unwrap();
    let names = ServingNames::for_service("reference-webhook", "conformance");
    let served = TlsMaterial::generate(&names, Some(dir.path())).unwrap();
    let server_tls =
        reference_webhook::server_tls_config(served.cert_pem.as_bytes(), served.key_pem.as_bytes()).unwrap();
    let server = reference_webhook::spawn(server_tls, Default::default()).await.unwrap();
    let url = format!("https://127.0.0.1:{}", server.addr.port());
    let other = TlsMaterial::generate(&names, None).unwrap();
    let with_bundle = |pem: &str| {
        let b64 = base64::engine::general_purpose::STANDARD.encode(pem.as_bytes());
        let text = reference_webhook::MANIFEST
            .replace("        path: /mutate\n", &format!("        path: /mutate\n      caBundle: {b64}\n"));
        Manifest::parse("m.yaml".as_ref(), &text).unwrap()
    };
    let lint = |manifest: Manifest, url: &str| Suite::new(manifest).url(url, served.ca_path()).contract(false).run();
    let mismatched = lint(with_bundle(&other.ca_pem), &url).await.unwrap();
    let f = ca_bundle(&mismatched, "mutate");
    assert_eq!(f.outcome(), Outcome::Fail, "{f:?}");
    assert!(f.detail.as_deref().unwrap().contains("does not verify the certificate the webhook serves"), "{f:?}");
    let matching = lint(with_bundle(&served.ca_pem), &url).await.unwrap();
    assert_eq!(ca_bundle(&matching, "mutate").outcome(), Outcome::Pass);
    // No caBundle on the validating webhook; and with certificates the suite made, nothing is checked.
    assert_eq!(ca_bundle(&matching, "validate").outcome(), Outcome::Skip);
    let generated = Suite::new(with_bundle(&other.ca_pem))
        .target(embedded::target(None, Style::default()))
        .contract(false)
        .run()
        .await
        .unwrap();
    let f = ca_bundle(&generated, "mutate");
    assert_eq!(f.outcome(), Outcome::Skip);
    assert!(f.detail.as_deref().unwrap().contains("caBundle was not checked"), "{f:?}");
}

#[test]
fn a_broken_case_file_is_exit_2_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "good.yaml", "operation: DELETE\nobject: {apiVersion: v1, kind: Pod, metadata: {name: p}}\n");
    write(
        dir.path(),
        "typo.yaml",
        "operation: CREATE\nobject: {apiVersion: v1, kind: Pod, metadata: {name: p}}\nexpect:\n  decison: allowed\n",
    );
    let out = bin().arg("--cases").arg(dir.path()).output().unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("typo.yaml:4") && t.contains("decison"), "{t}");
    assert!(!t.contains("panicked"), "{t}");
}

/// A small XML well-formedness check: balanced elements, quoted attributes, known entities.
fn well_formed(xml: &str) -> Result<Vec<(String, String)>, String> {
    let mut stack: Vec<String> = Vec::new();
    let mut elements = Vec::new();
    let body = xml.strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>").ok_or("no XML declaration")?;
    let mut rest = body;
    while let Some(start) = rest.find(['<', '&']) {
        let (text, tail) = rest.split_at(start);
        if text.contains('>') {
            return Err(format!("stray '>' in {text:?}"));
        }
        if let Some(after) = tail.strip_prefix('&') {
            let end = after.find(';').ok_or("unterminated entity")?;
            if !["amp", "lt", "gt", "quot", "apos"].contains(&&after[..end]) {
                return Err(format!("unknown entity &{};", &after[..end]));
            }
            rest = &after[end + 1..];
            continue;
        }
        let end = tail.find('>').ok_or("unterminated tag")?;
        let tag = &tail[1..end];
        rest = &tail[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().ok_or(format!("closing {name} with nothing open"))?;
            if open != name {
                return Err(format!("</{name}> closes <{open}>"));
            }
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let name = tag.split_whitespace().next().ok_or("empty tag")?.to_string();
        let attrs = &tag[name.len()..];
        if attrs.matches('"').count() % 2 != 0 || attrs.contains('<') {
            return Err(format!("bad attributes in <{tag}>"));
        }
        elements.push((name.clone(), attrs.to_string()));
        if !self_closing {
            stack.push(name);
        }
    }
    if !stack.is_empty() {
        return Err(format!("unclosed {stack:?}"));
    }
    Ok(elements)
}

#[test]
fn lint_findings_cases_and_junit_from_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    // sideEffects Some: the apiserver refuses this configuration; the suite still runs it.
    let manifest = write(
        dir.path(),
        "hooks.yaml",
        &reference_webhook::MANIFEST.replacen("sideEffects: None", "sideEffects: Some", 1),
    );
    let cases_dir = dir.path().join("cases");
    std::fs::create_dir(&cases_dir).unwrap();
    for name in ["pod-privileged.yaml", "pod-bare.yaml"] {
        std::fs::copy(embedded::cases_dir().join(name), cases_dir.join(name)).unwrap();
    }
    let junit = dir.path().join("junit.xml");
    let json = dir.path().join("report.json");
    let out = bin()
        .arg("--config")
        .arg(&manifest)
        .arg("--cmd")
        .arg(reference_cmd())
        .arg("--cases")
        .arg(&cases_dir)
        .arg("--junit")
        .arg(&junit)
        .arg("--report-json")
        .arg(&json)
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("FAIL  manifest.side-effects"), "{t}");
    assert!(t.contains("WARN  manifest.dry-run"), "{t}");
    // The apiserver refuses every dry-run request to it, which the dry-run-config property says too.
    assert!(t.contains("verdict: FAIL — property.dry-run-config, manifest.side-effects"), "{t}");
    assert!(t.contains("== cases (2)") && t.contains("pod-privileged") && t.contains("→ denied"), "{t}");

    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let lint = report["lint"].as_array().unwrap();
    assert!(lint.iter().any(|f| f["rule"] == "manifest.side-effects"
        && f["outcome"] == "fail"
        && f["webhook"] == "mutate.reference.conformance.example"));
    assert!(report["cases"].as_array().unwrap().iter().all(|c| c["outcome"] == "pass"), "{}", report["cases"]);

    let xml = std::fs::read_to_string(&junit).unwrap();
    let elements = well_formed(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let testcases: Vec<&String> = elements.iter().filter(|(n, _)| n == "testcase").map(|(_, a)| a).collect();
    let has = |name: &str| testcases.iter().any(|a| a.contains(&format!("name=\"{name}\"")));
    for name in
        ["response.uid", "patch.applies", "manifest.side-effects", "manifest.timeout", "pod-privileged", "pod-bare"]
    {
        assert!(has(name), "no testcase {name}:\n{xml}");
    }
    // One testcase per rule of every kind per webhook (but the case rules: one per case).
    let per_webhook =
        [RuleKind::Exchange, RuleKind::Property, RuleKind::Manifest, RuleKind::Coverage, RuleKind::SideEffects];
    let n = per_webhook.into_iter().map(|k| of_kind(k).count() * 2).sum::<usize>() + 2;
    assert_eq!(testcases.len(), n, "{xml}");
    assert_eq!(
        elements.iter().filter(|(n, _)| n == "failure").count(),
        2,
        "only sideEffects of one webhook fails, as a manifest rule and as the dry-run-config property:\n{xml}"
    );
    assert!(
        xml.contains("<failure type=\"FAIL\" message=\"sideEffects &quot;Some&quot; is refused on create"),
        "{xml}"
    );
    assert!(xml.contains("<system-out>WARN: sideEffects Some"), "WARN is a passing testcase with system-out:\n{xml}");
}

#[test]
fn a_manifest_that_cannot_load_is_exit_2_and_rules_lists_lint_and_case_rules() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = write(
        dir.path(),
        "hooks.yaml",
        &reference_webhook::MANIFEST.replacen("timeoutSeconds: 5", "timeoutSeconds: 31", 1),
    );
    let out = bin().arg("--config").arg(&manifest).arg("--cmd").arg(reference_cmd()).output().unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("webhooks[0].timeoutSeconds") && t.contains("31 is outside 1 to 30"), "{t}");

    let out = bin().arg("rules").output().unwrap();
    let t = text(&out);
    for id in [
        "manifest.side-effects",
        "manifest.ca-bundle",
        "manifest.system-namespaces",
        "case.expectation",
        "golden.unchanged",
    ] {
        assert!(t.contains(id), "{id}: {t}");
    }
}

/// A snapshot file without its insta header (`---` … `---`).
fn snap_body(text: &str) -> &str {
    text.strip_prefix("---\n").and_then(|t| t.split_once("\n---\n")).map(|(_, body)| body).unwrap_or(text)
}

#[test]
fn the_cli_checks_and_updates_golden_snapshots() {
    // The bundled reference against the repository's golden/: unchanged.
    let out = bin().arg("--golden").arg(embedded::golden_dir()).output().unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(t.contains("== cases (") && !t.contains("golden.unchanged:"), "{t}");

    // A defect against the same snapshots: golden.unchanged FAILs with the diff in the report.
    let out = bin()
        .args(["--reference-defect", "replace-missing-key", "--golden"])
        .arg(embedded::golden_dir())
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("FAIL golden.unchanged") && t.contains("+  - op: replace"), "{t}");

    // --update-golden writes snapshots where there were none.
    let dir = tempfile::tempdir().unwrap();
    let out = bin().arg("--golden").arg(dir.path()).arg("--update-golden").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let written = std::fs::read_to_string(dir.path().join("pod-bare.snap")).unwrap();
    let stored = std::fs::read_to_string(embedded::golden_dir().join("pod-bare.snap")).unwrap();
    assert_eq!(snap_body(&written).trim_end(), snap_body(&stored).trim_end());
}
