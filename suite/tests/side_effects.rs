//! The recording Kubernetes API and the side-effects rules, black-box: the example Python webhook
//! (plain HTTP, standard library) creating a ConfigMap while it admits each request finds the API as
//! in-cluster clients and kubeconfig readers do, and is judged on what it wrote during dry runs.

use std::process::Command;

use serde_json::Value;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/python-webhook/webhook.py");
const MANIFEST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/python-webhook/webhook.yaml");

struct Run {
    code: i32,
    text: String,
    report: Value,
}

impl Run {
    /// The outcomes of `rule` for every webhook.
    fn outcomes(&self, rule: &str) -> Vec<String> {
        self.report["side_effects"]
            .as_array()
            .expect("side_effects in the JSON report")
            .iter()
            .filter(|f| f["rule"] == rule)
            .map(|f| f["outcome"].as_str().unwrap_or_default().to_string())
            .collect()
    }
}

/// Run the example webhook with `flags` under the manifest with every `sideEffects` set to
/// `side_effects`.
fn run(side_effects: &str, flags: &str) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("hook.yaml");
    let text = std::fs::read_to_string(MANIFEST)
        .unwrap()
        .replace("sideEffects: None", &format!("sideEffects: {side_effects}"));
    std::fs::write(&manifest, text).unwrap();
    let json = dir.path().join("report.json");
    let cmd = format!("exec python3 {SCRIPT} --cert {{cert}} --key {{key}} --port {{port}} {flags}");
    let out = Command::new(env!("CARGO_BIN_EXE_webhook-conformance"))
        .arg("--config")
        .arg(&manifest)
        .arg("--cmd")
        .arg(cmd)
        .arg("--report-json")
        .arg(&json)
        .output()
        .expect("the CLI runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let report =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap_or_else(|e| panic!("{e}: {text}"))).unwrap();
    Run { code: out.status.code().unwrap_or(-1), text, report }
}

#[test]
fn a_webhook_that_writes_on_dry_runs_fails_and_one_that_skips_them_passes() {
    // Found through the kubeconfig ($KUBECONFIG), writing on every request.
    let always = run("NoneOnDryRun", "--side-effect always --api-from kubeconfig");
    assert_eq!(always.code, 1, "{}", always.text);
    assert!(always.text.contains("verdict: FAIL — side-effects.dry-run"), "{}", always.text);
    assert_eq!(always.outcomes("side-effects.dry-run"), ["fail", "fail"], "{}", always.text);
    assert!(always.text.contains("POST /api/v1/namespaces/default/configmaps → 201"), "{}", always.text);

    // Found in-cluster (KUBERNETES_SERVICE_HOST/PORT, the service-account token and ca.crt), and
    // skipping the write when request.dryRun is true: what NoneOnDryRun promises.
    let honest = run("NoneOnDryRun", "--side-effect not-on-dry-run --api-from incluster");
    assert_eq!(honest.code, 0, "{}", honest.text);
    assert_eq!(honest.outcomes("side-effects.dry-run"), ["pass", "pass"], "{}", honest.text);
    assert_eq!(honest.outcomes("side-effects.declared"), ["skip", "skip"], "{}", honest.text);
    // Its writes were seen, and attributed to its real requests.
    assert!(honest.text.contains("write(s) to the API (0 write(s) during dry runs)"), "{}", honest.text);
}

#[test]
fn writes_under_side_effects_none_are_a_warning_even_outside_dry_runs() {
    let declared_none = run("None", "--side-effect not-on-dry-run --api-from incluster");
    assert_eq!(declared_none.code, 0, "{}", declared_none.text);
    assert_eq!(declared_none.outcomes("side-effects.dry-run"), ["pass", "pass"], "{}", declared_none.text);
    assert_eq!(declared_none.outcomes("side-effects.declared"), ["warn", "warn"], "{}", declared_none.text);
}

#[test]
fn garbage_gets_the_apiservers_status_a_call_without_the_token_is_refused_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("api.jsonl");
    let run = run("NoneOnDryRun", &format!("--side-effect not-on-dry-run --api-garbage --api-log {}", log.display()));
    assert_eq!(run.code, 0, "{}", run.text);
    let answers: Vec<Value> =
        std::fs::read_to_string(&log).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let seen = |status: u64, reason: &str| answers.iter().any(|a| a["status"] == status && a["reason"] == reason);
    assert!(seen(201, ""), "{answers:?}");
    assert!(seen(400, "BadRequest"), "{answers:?}");
    assert!(seen(401, "Unauthorized"), "{answers:?}");
    // Neither the refused call nor the bad one counts as a write to the cluster.
    assert_eq!(run.outcomes("side-effects.dry-run"), ["pass", "pass"], "{}", run.text);
    assert!(run.text.contains("refused for lacking the token it was given"), "{}", run.text);
}

#[test]
fn a_webhook_that_never_calls_the_api_sees_no_difference() {
    let quiet = run("None", "");
    assert_eq!(quiet.code, 0, "{}", quiet.text);
    assert!(quiet.text.contains("verdict: PASS"), "{}", quiet.text);
    assert_eq!(quiet.outcomes("side-effects.dry-run"), ["pass", "pass"], "{}", quiet.text);
    assert!(!quiet.text.contains("recording Kubernetes API"), "{}", quiet.text);
}
