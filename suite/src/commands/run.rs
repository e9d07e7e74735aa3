//! `webhook-conformance [run]`: every check against one target.

use webhook_harness::DEFAULT_CASES;

use super::output::{emit, usage_error};
use super::progress::Display;
use crate::args::{GateArgs, RunArgs};

const COMMAND: &str = "webhook-conformance";

/// Run the suite as the CLI does; returns the exit code.
pub async fn run(args: &RunArgs, gate: &GateArgs) -> i32 {
    let seed = gate.seed();
    let suite = match args.suite().and_then(|s| gate.apply(args, s, DEFAULT_CASES, seed)) {
        Ok(s) => s,
        Err(e) => return usage_error(COMMAND, &e),
    };
    let display = Display::start("run", suite.progress(), gate.duration);
    let result = suite.run().await;
    display.finish();
    match result {
        Ok(report) => emit(COMMAND, &report, args.report_json.as_deref(), gate.junit.as_deref(), &args.outputs),
        Err(e) => usage_error(COMMAND, &e),
    }
}
