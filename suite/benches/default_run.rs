//! How long a run of the default checks against the bundled reference webhook takes, with its own
//! manifest and with one whose rules select every resource (`*/*`): the plan of a wildcard is
//! sampled, so that run stays small too.
//! `cargo bench -p webhook-conformance --bench default_run` prints the figures.

use std::time::{Duration, Instant};

use reference_webhook::Style;
use webhook_conformance::embedded;
use webhook_harness::{Manifest, Suite, Verdict};

/// The reference webhook's two webhooks on every resource and subresource.
const EVERYTHING: &str = r#"apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: everything}
webhooks:
  - name: mutate.reference.conformance.example
    admissionReviewVersions: ["v1", "v1beta1"]
    sideEffects: None
    failurePolicy: Ignore
    reinvocationPolicy: IfNeeded
    clientConfig: {service: {name: reference-webhook, namespace: conformance, path: /mutate}}
    rules:
      - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*/*"], scope: "*"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: everything}
webhooks:
  - name: validate.reference.conformance.example
    admissionReviewVersions: ["v1", "v1beta1"]
    sideEffects: None
    failurePolicy: Ignore
    clientConfig: {service: {name: reference-webhook, namespace: conformance, path: /validate}}
    rules:
      - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*/*"], scope: "*"}
"#;

async fn measure(what: &str, manifest: fn() -> Manifest) {
    let rounds = 20;
    let mut times: Vec<Duration> = Vec::with_capacity(rounds);
    let mut requests = 0;
    for _ in 0..rounds {
        // Each round is what the CLI does: fresh TLS, start the target, run, stop.
        let start = Instant::now();
        let suite = Suite::new(manifest()).target(embedded::target(None, Style::default()));
        let report = suite.run().await.unwrap();
        times.push(start.elapsed());
        assert_eq!(report.verdict(), Verdict::Pass, "{}", report.render_text());
        requests = report.requests();
    }
    times.sort();
    let median = times[rounds / 2];
    println!("{what}: {requests} requests");
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
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        measure("default run against the bundled reference webhook", embedded::reference_manifest).await;
        measure("the same webhook with rules on every resource (*/*)", || {
            Manifest::parse("everything.yaml".as_ref(), EVERYTHING).unwrap()
        })
        .await;
    });
}
