//! Generated-and-checked requests per second against the in-process reference webhook, next to a
//! bare client loop (same client configuration, same payloads, same concurrency) on the same
//! webhook, in one run. Prints both figures and their ratio.
//!
//!     cargo bench -p webhook-conformance --bench throughput
//!
//! `THROUGHPUT_REQUESTS` (default 4000) and `THROUGHPUT_CONCURRENCY` (default 8) tune it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use reference_webhook::Style;
use webhook_conformance::embedded;
use webhook_harness::lowlevel::{exchange, Client, HttpVersions, Sampler, Scope, Transport};
use webhook_harness::{Outcome, Suite, WebhookKind};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let requests = env("THROUGHPUT_REQUESTS", 4000);
    let concurrency = env("THROUGHPUT_CONCURRENCY", 8).max(1);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    runtime.block_on(async move {
        let mut manifest = embedded::reference_manifest();
        manifest.webhooks.retain(|w| w.kind == WebhookKind::Mutating);
        let webhook = Arc::new(manifest.webhooks[0].clone());
        let session = Suite::new(manifest)
            .target(embedded::target(None, Style::default()))
            .start()
            .await
            .expect("reference webhook starts");
        let endpoint = session.endpoint().expect("the reference webhook is ready").clone();
        let client = Arc::new(Client::new(endpoint, HttpVersions::Http1).expect("client"));
        let per_task = requests.div_ceil(concurrency);

        // The same payloads for the bare loop: drawn up front from the same generator and seeds.
        let payloads: Vec<Vec<Vec<u8>>> = (0..concurrency)
            .map(|t| {
                let mut sampler = Sampler::new(&webhook, Scope::All, t as u64).expect("requests");
                (0..per_task).map(|_| sampler.draw().review.to_bytes()).collect()
            })
            .collect();

        // Warm up the connections.
        for _ in 0..concurrency * 4 {
            let _ = client.call(&webhook.path(), webhook.timeout_seconds, &payloads[0][0]).await;
        }

        // Generated and checked: draw a case, send it, run every rule on the answer.
        let started = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        for t in 0..concurrency {
            let (client, webhook) = (client.clone(), webhook.clone());
            tasks.spawn(async move {
                let mut sampler = Sampler::new(&webhook, Scope::All, t as u64).expect("requests");
                let mut failed = 0usize;
                for _ in 0..per_task {
                    let case = sampler.draw();
                    let record = exchange(&client, webhook.clone(), case).await;
                    failed += usize::from(record.findings.iter().any(|f| f.outcome == Outcome::Fail));
                }
                failed
            });
        }
        let mut failed = 0;
        while let Some(done) = tasks.join_next().await {
            failed += done.expect("task");
        }
        let checked = started.elapsed();
        assert_eq!(failed, 0, "the reference webhook fails no rule");

        // Bare: the same bodies, posted by the same client, nothing generated or checked.
        let started = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        for bodies in payloads {
            let (client, webhook) = (client.clone(), webhook.clone());
            tasks.spawn(async move {
                let mut ok = 0usize;
                for body in &bodies {
                    if let Transport::Answered(a) = client.call(&webhook.path(), webhook.timeout_seconds, body).await {
                        ok += usize::from(a.status == 200);
                    }
                }
                ok
            });
        }
        let mut ok = 0;
        while let Some(done) = tasks.join_next().await {
            ok += done.expect("task");
        }
        let bare = started.elapsed();
        let total = per_task * concurrency;
        assert_eq!(ok, total, "every bare request answered 200");

        // Where the difference goes: drawing the cases alone (one thread).
        let started = Instant::now();
        let mut sampler = Sampler::new(&webhook, Scope::All, 99).expect("requests");
        let mut bytes = 0usize;
        for _ in 0..total {
            bytes += sampler.draw().review.to_bytes().len();
        }
        let drawing = started.elapsed();

        let rate = |d: Duration| total as f64 / d.as_secs_f64();
        println!(
            "throughput: {total} requests, concurrency {concurrency}, reference webhook in-process (HTTP/1.1, TLS)"
        );
        println!("  generated + checked : {:>9.0} requests/s  ({:.2} s)", rate(checked), checked.as_secs_f64());
        println!("  bare client loop    : {:>9.0} requests/s  ({:.2} s)", rate(bare), bare.as_secs_f64());
        println!("  ratio checked/bare  : {:>9.2}", rate(checked) / rate(bare));
        println!(
            "  (drawing cases alone: {:>9.0} cases/s on one thread, {} KiB of requests)",
            rate(drawing),
            bytes / 1024
        );
        drop(session);
    });
}
