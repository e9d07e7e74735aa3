//! The suite as `cargo test`: `WEBHOOK_URL` + `WEBHOOK_CA`, `WEBHOOK_CMD` or `WEBHOOK_IMAGE`, with
//! `WEBHOOK_CONFIG`, point it at a webhook (the same options as the CLI, read from the environment);
//! with none set it runs against the bundled reference webhook.

use webhook_conformance::args::Cli;

#[test]
fn webhook_passes_every_fail_rule() {
    let cli = Cli::from_env().unwrap_or_else(|e| panic!("webhook-conformance: {e}"));
    let seed = cli.gate.seed();
    let suite = cli.run.suite().and_then(|s| cli.gate.apply(&cli.run, s, webhook_harness::DEFAULT_CASES, seed));
    suite.unwrap_or_else(|e| panic!("webhook-conformance: {e}")).assert_passes();
}
