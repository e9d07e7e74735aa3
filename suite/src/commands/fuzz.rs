//! `webhook-conformance fuzz`: the properties of the rule catalog on generated requests, with a
//! progress line every second.

use std::time::Duration;

use webhook_harness::Cancel;

use super::output::{emit, usage_error};
use crate::args::FuzzArgs;

const COMMAND: &str = "webhook-conformance fuzz";

/// Run `fuzz` as the CLI does; returns the exit code (0 pass, 1 a FAIL property, 2 could not run).
/// `cancel` stops it (Ctrl-C, SIGTERM).
pub async fn fuzz(args: &FuzzArgs, cancel: &Cancel) -> i32 {
    let seed = args.gate.seed();
    let suite = match args.suite(seed).map(|s| s.cancel_on(cancel.clone())) {
        Ok(s) => s,
        Err(e) => return usage_error(COMMAND, &e),
    };
    eprintln!("{COMMAND}: seed {seed}");
    let progress = suite.progress();
    let ticker = tokio::spawn({
        let progress = progress.clone();
        async move {
            let mut every = tokio::time::interval(Duration::from_secs(1));
            every.tick().await;
            loop {
                every.tick().await;
                eprintln!("fuzz: {}", progress.line());
            }
        }
    });
    let result = suite.run().await;
    ticker.abort();
    let report = match result {
        Ok(r) => r,
        Err(e) => return usage_error(COMMAND, &e),
    };
    eprintln!("fuzz: {}", progress.line());
    let code = emit(COMMAND, &report, args.run.report_json.as_deref(), args.gate.junit.as_deref());
    if !report.failed_rules().is_empty() || !report.warned_rules().is_empty() {
        eprintln!(
            "{COMMAND}: seed {seed} (rerun with --seed {seed} --cases {} --concurrency {})",
            args.gate.generated(crate::args::FUZZ_CASES),
            args.run.concurrency
        );
    }
    code
}
