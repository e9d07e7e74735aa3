//! How long the suite takes to judge a webhook that cannot answer in time: the default run against
//! one that hangs, and a 64-case fuzz campaign against one that answers one second after its
//! deadline (timeoutSeconds 5 in both). Without the fast verdict every request would wait out the
//! timeout: the default run for about two minutes, the campaign for many more.
//! `cargo bench -p webhook-conformance --bench unresponsive` prints the figures.

use std::time::Instant;

use reference_webhook::{Defect, Style};
use webhook_conformance::embedded;
use webhook_harness::{Budget, Report, Suite, Verdict};

fn unsent(report: &Report) -> u64 {
    report.records().unsent.iter().map(|u| u.requests).sum()
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let manifest = embedded::reference_manifest();
        let timeout = manifest.webhooks[0].timeout_seconds;
        println!("webhooks that cannot answer (timeoutSeconds {timeout}):");

        let start = Instant::now();
        let report = Suite::new(manifest.clone())
            .target(embedded::target(Some(Defect::Hang), Style::default()))
            .run()
            .await
            .unwrap();
        let took = start.elapsed();
        assert_eq!(report.verdict(), Verdict::Fail);
        println!(
            "  default run, hanging webhook:            {:5.1} s ({} requests sent, {} not sent)",
            took.as_secs_f64(),
            report.requests(),
            unsent(&report)
        );

        let start = Instant::now();
        let report = Suite::new(manifest)
            .target(embedded::target(Some(Defect::LateAnswer), Style::default()))
            .contract(false)
            .lint(false)
            .budget(Budget::cases(64))
            .seed(1)
            .run()
            .await
            .unwrap();
        let took = start.elapsed();
        assert_eq!(report.verdict(), Verdict::Fail);
        println!(
            "  fuzz --cases 64, answers after deadline: {:5.1} s ({} requests sent, {} not sent)",
            took.as_secs_f64(),
            report.requests(),
            unsent(&report)
        );
    });
}
