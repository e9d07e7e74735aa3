//! `webhook-conformance fuzz`: the run with a long budget of generated requests, with live progress
//! on a terminal (a plain line every few seconds otherwise).

use std::sync::atomic::Ordering;

use webhook_harness::Cancel;

use super::output::{check_report_paths, emit, usage_error};
use super::progress::Display;
use super::usage::{Meter, WebhookCpu};
use crate::args::FuzzArgs;

const COMMAND: &str = "webhook-conformance fuzz";

/// Run `fuzz` as the CLI does; returns the exit code (0 pass, 1 a FAIL property, 2 could not run).
/// `cancel` stops it (Ctrl-C, SIGTERM).
pub async fn fuzz(args: &FuzzArgs, cancel: &Cancel) -> i32 {
    let outputs = check_report_paths(args.run.report_json.as_deref(), args.gate.junit.as_deref(), &args.run.outputs);
    if let Err(e) = outputs {
        return usage_error(COMMAND, &e);
    }
    let shard = match args.shard() {
        Ok(s) => s,
        Err(e) => return usage_error(COMMAND, &e),
    };
    if !shard.is_whole() && args.gate.seed.is_none() {
        let e = webhook_harness::Error::Option(webhook_harness::OptionError::Usage(
            "--shard needs --seed S: every shard of a campaign must use the same seed".into(),
        ));
        return usage_error(COMMAND, &e);
    }
    let seed = args.gate.seed();
    let suite = match args.suite(seed).map(|s| s.cancel_on(cancel.clone())) {
        Ok(s) => s,
        Err(e) => return usage_error(COMMAND, &e),
    };
    if shard.is_whole() {
        eprintln!("{COMMAND}: seed {seed}");
    } else {
        eprintln!("{COMMAND}: seed {seed}, shard {shard}");
    }
    let progress = suite.progress();
    let meter = Meter::start(WebhookCpu::of(&args.run));
    let display = Display::start("fuzz", progress.clone(), args.gate.duration);
    let result = suite.run().await;
    display.finish();
    let report = match result {
        Ok(r) => r,
        Err(e) => return usage_error(COMMAND, &e),
    };
    eprintln!("fuzz: {}", progress.line());
    for line in meter.finish(progress.requests.load(Ordering::Relaxed), &progress.call_time).lines("fuzz") {
        eprintln!("{line}");
    }
    let code = emit(COMMAND, &report, args.run.report_json.as_deref(), args.gate.junit.as_deref(), &args.run.outputs);
    if !report.failed_rules().is_empty() || !report.warned_rules().is_empty() {
        let shard = if shard.is_whole() { String::new() } else { format!(" --shard {shard}") };
        eprintln!(
            "{COMMAND}: seed {seed} (rerun with --seed {seed} --cases {} --concurrency {}{shard})",
            args.gate.generated(crate::args::FUZZ_CASES),
            args.run.concurrency
        );
    }
    code
}
