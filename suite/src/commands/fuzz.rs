//! `webhook-conformance fuzz`: the properties of the rule catalog on generated requests, with a
//! progress line every second.

use std::time::Duration;

use super::output::{emit, usage_error};
use crate::args::FuzzArgs;

const COMMAND: &str = "webhook-conformance fuzz";

fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0));
    h.finish()
}

/// Run `fuzz` as the CLI does; returns the exit code (0 pass, 1 a FAIL property, 2 could not run).
pub async fn fuzz(args: &FuzzArgs) -> i32 {
    let seed = args.seed.unwrap_or_else(fresh_seed);
    let suite = match args.suite(seed) {
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
    let code = emit(COMMAND, &report, args.run.report_json.as_deref(), None);
    if !report.failed_rules().is_empty() || !report.warned_rules().is_empty() {
        eprintln!(
            "{COMMAND}: seed {seed} (rerun with --seed {seed} --cases {} --concurrency {})",
            args.fuzz_cases, args.run.concurrency
        );
    }
    code
}
