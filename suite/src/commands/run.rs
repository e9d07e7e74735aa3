//! `webhook-conformance [run]`: every check against one target.

use std::sync::atomic::Ordering;

use webhook_harness::{Cancel, DEFAULT_CASES};

use super::output::{check_report_paths, emit, usage_error};
use super::progress::Display;
use super::usage::{Meter, WebhookCpu};
use crate::args::{GateArgs, RunArgs};

const COMMAND: &str = "webhook-conformance";

/// Run the suite as the CLI does; returns the exit code. `cancel` stops it (Ctrl-C, SIGTERM).
pub async fn run(args: &RunArgs, gate: &GateArgs, cancel: &Cancel) -> i32 {
    let seed = gate.seed();
    let suite = match check_report_paths(args.report_json.as_deref(), gate.junit.as_deref(), &args.outputs)
        .and_then(|()| args.suite())
        .and_then(|s| gate.apply(args, s, DEFAULT_CASES, seed))
        .map(|s| s.cancel_on(cancel.clone()))
    {
        Ok(s) => s,
        Err(e) => return usage_error(COMMAND, &e),
    };
    let progress = suite.progress();
    let meter = Meter::start(WebhookCpu::of(args));
    let display = Display::start("run", progress.clone(), gate.duration);
    let result = suite.run().await;
    display.finish();
    match result {
        Ok(report) => {
            for line in meter.finish(progress.requests.load(Ordering::Relaxed), &progress.call_time).lines("run") {
                eprintln!("{line}");
            }
            emit(COMMAND, &report, args.report_json.as_deref(), gate.junit.as_deref(), &args.outputs)
        }
        Err(e) => usage_error(COMMAND, &e),
    }
}
