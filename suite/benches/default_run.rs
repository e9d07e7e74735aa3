//! How long a run of the default checks against the bundled reference webhook takes.
//! `cargo bench -p webhook-conformance --bench default_run` prints the figures.

use std::time::{Duration, Instant};

use reference_webhook::Style;
use webhook_conformance::embedded;
use webhook_harness::{Suite, Verdict};

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let rounds = 20;
        let mut times: Vec<Duration> = Vec::with_capacity(rounds);
        let mut requests = 0;
        for _ in 0..rounds {
            // Each round is what the CLI does: fresh TLS, start the target, run, stop.
            let start = Instant::now();
            let suite = Suite::new(embedded::reference_manifest()).target(embedded::target(None, Style::default()));
            let report = suite.run().await.unwrap();
            times.push(start.elapsed());
            assert_eq!(report.verdict(), Verdict::Pass);
            requests = report.requests();
        }
        times.sort();
        let median = times[rounds / 2];
        println!("default run against the bundled reference webhook: {requests} requests");
        println!(
            "  rounds: {rounds}, median {:.1} ms, min {:.1} ms, max {:.1} ms",
            median.as_secs_f64() * 1e3,
            times[0].as_secs_f64() * 1e3,
            times[rounds - 1].as_secs_f64() * 1e3
        );
        println!(
            "  {:.0} requests/s (median round, including TLS generation and target start)",
            requests as f64 / median.as_secs_f64()
        );
    });
}
