//! The library as a webhook author's test uses it: only the public API, as an outside crate would.
//! The webhook is the bundled reference webhook, served in this process with the suite's TLS.

use reference_webhook::{Defect, Options};
use webhook_harness::{Budget, JsonReport, Manifest, Outcome, Served, ServingTls, Suite, Target, Verdict};

fn manifest() -> Manifest {
    Manifest::parse("reference.yaml".as_ref(), reference_webhook::MANIFEST).unwrap()
}

/// Your webhook's router, started by the suite with its serving certificate.
fn in_process(defect: Option<Defect>) -> Target {
    Target::in_process("reference webhook in this test", move |tls: ServingTls| async move {
        let config = reference_webhook::server_tls_config(tls.cert_pem.as_bytes(), tls.key_pem.as_bytes())?;
        let running = reference_webhook::spawn(config, Options { defect }).await?;
        Ok(Served { addr: running.addr, guard: Box::new(running) })
    })
}

#[test]
fn a_correct_webhook_passes_in_a_few_lines() {
    Suite::new(manifest()).target(in_process(None)).assert_passes();
}

#[test]
fn a_broken_webhook_panics_with_the_readable_report() {
    let panic = std::panic::catch_unwind(|| {
        Suite::new(manifest()).target(in_process(Some(Defect::WrongUid))).assert_passes();
    })
    .expect_err("a FAIL panics");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.starts_with("webhook-conformance: FAIL — response.uid"), "{message}");
    assert!(message.contains("apiserver says: Internal error occurred: failed calling webhook"), "{message}");
    assert!(message.contains("curl --http1.1"), "the report carries a replay: {message}");
}

#[test]
fn the_report_says_what_was_judged() {
    let report = Suite::new(manifest())
        .target(in_process(Some(Defect::SidecarEveryCall)))
        .budget(Budget::cases(16))
        .seed(7)
        .run_blocking()
        .unwrap();
    // The per-answer rules hold; a property does not (which of the two that a sidecar added on
    // every call breaks, idempotence or reinvocation, finds it first depends on the draws).
    assert_eq!(report.verdict(), Verdict::Fail);
    let failed = report.failed_rules();
    let property = failed.iter().copied().find(|r| ["property.idempotent", "property.reinvocation"].contains(r));
    let property = property.unwrap_or_else(|| panic!("{}", report.render_text()));
    assert!(failed.iter().all(|r| r.starts_with("property.")), "{}", report.render_text());
    assert_eq!(report.outcome("response.uid", None), Outcome::Pass);
    assert!(report.exchanges().len() > 50 && report.requests() > report.exchanges().len() as u64);
    let json = report.to_json();
    assert_eq!(json["verdict"], "fail");
    // Every finding is in the one flat list, with what it judged.
    let flat = json["findings"].as_array().expect("a flat findings list");
    assert_eq!(flat.len(), report.findings().len());
    let kinds: std::collections::BTreeSet<&str> = flat.iter().filter_map(|f| f["subject"]["kind"].as_str()).collect();
    for kind in ["manifest", "sent", "exchange", "property"] {
        assert!(kinds.contains(kind), "{kind} in {kinds:?}");
    }
    let fails = |f: &&serde_json::Value| f["outcome"] == "fail";
    let failing: std::collections::BTreeSet<&str> =
        flat.iter().filter(fails).filter_map(|f| f["rule"].as_str()).collect();
    assert_eq!(failing, report.failed_rules().into_iter().collect());
    // The renderers read the flat list as they read the per-kind sections of an older report.
    let mut older = json.clone();
    older.as_object_mut().unwrap().remove("findings");
    let (new, old) = (JsonReport::from_value(json).unwrap(), JsonReport::from_value(older).unwrap());
    let verdict_line = |r: &JsonReport| r.render_summary().lines().last().unwrap_or_default().to_string();
    assert_eq!(verdict_line(&new), verdict_line(&old));
    assert!(verdict_line(&new).contains(property), "{}", new.render_summary());
    assert!(new.to_markdown().contains(property));
    assert!(report.to_junit().contains(&format!("name=\"{property}\"")));
}

#[test]
fn a_session_admits_one_case_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("denied.yaml");
    std::fs::write(
        &file,
        "operation: CREATE\nobject: {apiVersion: v1, kind: Pod, metadata: {name: p, labels: {conformance.example/deny: \"true\"}}, spec: {containers: [{name: a, image: i}]}}\nexpect: {decision: denied}\n",
    )
    .unwrap();
    let case = webhook_harness::load_case(&file).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut session = Suite::new(manifest()).target(in_process(None)).start().await.unwrap();
        let report = session.run_case(&case).await.unwrap();
        assert_eq!(report.cases().len(), 1);
        assert_eq!(report.records().case_outcome(0), Outcome::Pass, "{}", report.render_text());
        assert!(report.render_text().contains("→ denied"), "{}", report.render_text());
    });
}

#[test]
fn bad_input_is_an_error_that_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("absent.yaml");
    let e = Suite::from_manifest_file(&missing).unwrap_err();
    assert!(e.to_string().contains("absent.yaml"), "{e}");
    let e = Suite::new(manifest()).properties(&["property.nonsense"]).unwrap_err();
    assert!(e.to_string().contains("property.nonsense"), "{e}");
    let e = Suite::new(manifest()).run_blocking().unwrap_err();
    assert!(e.to_string().contains("no target"), "{e}");
}
