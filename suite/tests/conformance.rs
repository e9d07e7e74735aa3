//! The suite as `cargo test`: `WEBHOOK_URL` + `WEBHOOK_CA`, or `WEBHOOK_CMD`, with `WEBHOOK_CONFIG`,
//! point it at a webhook; with none set it runs against the bundled reference webhook.

use webhook_conformance::env_target;
use webhook_harness::report::Verdict;
use webhook_harness::run::{run, RunOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_passes_every_fail_rule() {
    let (choice, manifest) = env_target::from_env().unwrap_or_else(|e| panic!("webhook-conformance: {e:#}"));
    let mut target =
        env_target::start(&choice, &manifest.webhooks).await.unwrap_or_else(|e| panic!("webhook-conformance: {e:#}"));
    let report = run(&manifest.webhooks, &mut target, &RunOptions::default()).await.expect("the run completes");
    let text = report.render_text();
    println!("{text}");
    assert_eq!(report.verdict(), Verdict::Pass, "FAIL: {:?}\n{text}", report.failed_rules());
}
