//! A kube-rs webhook under the suite: `kube::Client::try_default()` finds the suite's recording
//! API through `$KUBECONFIG` with no code for it, and the side-effects rules judge what it writes.

use webhook_harness::{Outcome, Suite, Verdict};

const MANIFEST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/python-webhook/webhook.yaml");

fn run(side_effects: &str, flags: &str) -> webhook_harness::Report {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("hook.yaml");
    let text = std::fs::read_to_string(MANIFEST)
        .unwrap()
        .replace("sideEffects: None", &format!("sideEffects: {side_effects}"));
    std::fs::write(&manifest, text).unwrap();
    let command =
        format!("exec {} --cert {{cert}} --key {{key}} --port {{port}} {flags}", env!("CARGO_BIN_EXE_kube-writer"));
    Suite::from_manifest_file(&manifest).unwrap().command(command).run_blocking().unwrap()
}

#[test]
fn writing_while_admitting_a_dry_run_fails() {
    let report = run("NoneOnDryRun", "");
    assert_eq!(report.verdict(), Verdict::Fail, "{}", report.render_text());
    assert_eq!(report.outcome("side-effects.dry-run", None), Outcome::Fail, "{}", report.render_text());
    let text = report.render_text();
    assert!(text.contains("POST /api/v1/namespaces/default/configmaps → 201"), "{text}");
    // Only the side-effects rule: the answers themselves are right.
    assert_eq!(report.outcome("response.uid", None), Outcome::Pass, "{text}");
}

#[test]
fn skipping_the_write_on_dry_runs_passes() {
    let report = run("NoneOnDryRun", "--skip-on-dry-run");
    assert_eq!(report.verdict(), Verdict::Pass, "{}", report.render_text());
    assert_eq!(report.outcome("side-effects.dry-run", None), Outcome::Pass, "{}", report.render_text());
    // It did write (outside dry runs), and the suite saw it.
    assert!(report.render_text().contains("(0 write(s) during dry runs)"), "{}", report.render_text());
}
