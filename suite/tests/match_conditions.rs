//! matchConditions as the apiserver applies them: a webhook never receives a request its conditions
//! exclude (in the default run nor among generated requests), and a condition that errors is handled
//! as the failurePolicy says. The webhook is the example Python webhook, which logs every request it
//! receives.

use std::path::Path;

use serde_json::Value;
use webhook_harness::{Budget, Manifest, Outcome, Report, Suite, Verdict};

const EXCLUDING: &str = "    matchConditions:
      - name: not-service-accounts
        expression: \"!request.userInfo.username.startsWith('system:serviceaccount:')\"
      - name: not-web
        expression: \"object == null || !has(object.metadata) || !has(object.metadata.labels) || !('app' in object.metadata.labels) || object.metadata.labels['app'] != 'web'\"
";

/// The reference manifest with `conditions` (and `failurePolicy`) on both webhooks.
fn manifest_with(conditions: &str, failure_policy: &str) -> String {
    let text = reference_webhook::MANIFEST
        .replace("    failurePolicy: Fail\n", &format!("    failurePolicy: {failure_policy}\n{conditions}"));
    assert_eq!(text.matches("matchConditions").count(), 2 * usize::from(!conditions.is_empty()), "{text}");
    text
}

/// Run the Python webhook (logging what it receives) under `manifest_text`, default run and
/// generated requests; returns the report and every request it received.
fn run(manifest_text: &str, cases: u32) -> (Report, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.jsonl");
    let manifest = Manifest::parse(Path::new("hooks.yaml"), manifest_text).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/python-webhook/webhook.py");
    let report = Suite::new(manifest)
        .command(format!("exec python3 {script} --cert {{cert}} --key {{key}} --port {{port}} --log {}", log.display()))
        .budget(Budget::cases(cases))
        .seed(11)
        .regressions(None)
        .run_blocking()
        .unwrap();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let received = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (report, received)
}

fn from_service_account(r: &Value) -> bool {
    r["username"].as_str().is_some_and(|u| u.starts_with("system:serviceaccount:"))
}

/// The object is labelled app=web (the log shows the old object's labels for a DELETE, which has
/// no object).
fn labelled_web(r: &Value) -> bool {
    r["labels"]["app"] == "web" && r["operation"] != "DELETE"
}

#[test]
fn a_webhook_receives_none_of_the_requests_its_conditions_exclude() {
    // Without conditions, the same run sends requests of both kinds: the exclusion is the conditions'.
    let (_, unconditioned) = run(&manifest_with("", "Fail"), 24);
    assert!(unconditioned.iter().any(from_service_account), "the generated users include a service account");
    assert!(unconditioned.iter().any(labelled_web), "the planned requests include app=web objects");
    assert!(unconditioned.iter().any(|r| r["operation"] == "DELETE" && r["labels"]["app"] == "web"));

    let (report, received) = run(&manifest_with(EXCLUDING, "Fail"), 24);
    assert!(received.len() > 50, "the webhook is still exercised: {} requests", received.len());
    let excluded: Vec<&Value> = received.iter().filter(|r| from_service_account(r) || labelled_web(r)).collect();
    assert!(excluded.is_empty(), "{} excluded requests reached the webhook, e.g. {}", excluded.len(), excluded[0]);
    // `object == null` holds for a DELETE: those are sent, whatever the old object's labels.
    assert!(received.iter().any(|r| r["operation"] == "DELETE" && r["labels"]["app"] == "web"));
    assert_eq!(report.verdict(), Verdict::Pass, "{}", report.render_text());
    assert_eq!(report.outcome("manifest.condition-errors", None), Outcome::Pass, "{}", report.render_text());
    let text = report.render_text();
    assert!(text.contains("matchConditions evaluated (CEL) on the"), "{text}");
    assert!(!text.contains("not evaluated"), "{text}");
}

#[test]
fn a_condition_that_errors_is_handled_as_the_failure_policy_says() {
    // Errors on every object without an `app` label (and on DELETE, which has no object); true for
    // app=web. The requests it errors on are never sent: under Fail the apiserver rejects them, under
    // Ignore it skips the webhook.
    let erroring = "    matchConditions:
      - name: web-only
        expression: \"object.metadata.labels['app'] == 'web'\"
";
    for (policy, says) in [
        ("Fail", "failurePolicy Fail the apiserver rejects"),
        ("Ignore", "failurePolicy Ignore the apiserver skips the webhook"),
    ] {
        let (report, received) = run(&manifest_with(erroring, policy), 8);
        assert!(!received.is_empty(), "{policy}: requests the condition holds for are sent");
        let erred: Vec<&Value> = received.iter().filter(|r| !labelled_web(r)).collect();
        assert!(erred.is_empty(), "{policy}: a request the condition errors on reached the webhook: {}", erred[0]);
        assert!(received.iter().all(|r| r["operation"] != "DELETE"), "{policy}: DELETE has no object: it errors");
        let finding = report.manifest().into_iter().find(|f| f.rule == "manifest.condition-errors").unwrap().clone();
        assert_eq!(finding.outcome(), Outcome::Warn, "{policy}: {}", report.render_text());
        assert!(finding.detail.as_deref().unwrap().contains(says), "{policy}: {finding:?}");
        if policy == "Fail" {
            let apiserver = finding.apiserver_message.unwrap();
            assert!(
                apiserver
                    .contains("is forbidden: expression 'object.metadata.labels['app'] == 'web'' resulted in error"),
                "{apiserver}"
            );
        }
        assert_eq!(report.verdict(), Verdict::Pass, "{policy}: a WARN only: {}", report.render_text());
    }
}

#[test]
fn cases_go_through_the_conditions_too() {
    let dir = tempfile::tempdir().unwrap();
    let case = |name: &str, body: &str| {
        let file = dir.path().join(format!("{name}.yaml"));
        std::fs::write(&file, body).unwrap();
        webhook_harness::load_case(&file).unwrap()
    };
    let bare = case("bare", "operation: CREATE\nobject: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: a, image: i}]}}\n");
    let web = case("web", "operation: CREATE\nobject: {apiVersion: v1, kind: Pod, metadata: {name: w, labels: {app: web}}, spec: {containers: [{name: a, image: i}]}}\n");
    let by_sa = case("by-sa", "operation: CREATE\nuserInfo: {username: 'system:serviceaccount:ci:deployer'}\nobject: {apiVersion: v1, kind: Pod, metadata: {name: s}, spec: {containers: [{name: a, image: i}]}}\n");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/python-webhook/webhook.py");
    let command = format!("exec python3 {script} --cert {{cert}} --key {{key}} --port {{port}}");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let erroring = "    matchConditions:\n      - name: web-only\n        expression: \"object.metadata.labels['app'] == 'web'\"\n";
        let manifest = Manifest::parse(Path::new("hooks.yaml"), &manifest_with(erroring, "Fail")).unwrap();
        let mut session = Suite::new(manifest).command(command.clone()).start().await.unwrap();
        let report = session.run_case(&bare).await.unwrap();
        let record = &report.cases()[0];
        assert!(record.exchanges.is_empty(), "the webhook is not called");
        match &record.decision {
            webhook_harness::Decision::Denied(_, says) => {
                assert!(says.starts_with("pods \"p\" is forbidden: expression"), "{says}")
            }
            other => panic!("failurePolicy Fail rejects the request: {other:?}"),
        }
        let report = session.run_case(&web).await.unwrap();
        assert_eq!(report.cases()[0].exchanges.len(), 2, "both webhooks are called");

        let manifest = Manifest::parse(Path::new("hooks.yaml"), &manifest_with(EXCLUDING, "Fail")).unwrap();
        let mut session = Suite::new(manifest).command(command).start().await.unwrap();
        let report = session.run_case(&by_sa).await.unwrap();
        assert!(report.cases()[0].exchanges.is_empty(), "a condition is false: no webhook is called");
        assert_eq!(report.cases()[0].decision, webhook_harness::Decision::Allowed);
        let report = session.run_case(&bare).await.unwrap();
        assert_eq!(report.cases()[0].exchanges.len(), 2);
    });
}
