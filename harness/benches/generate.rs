//! How long the suite takes to generate one request (draw it from the generated requests of the
//! reference webhook's manifest, then serialize its AdmissionReview as sent), one at a time.
//! Prints the time per request and the average body size.
//! `cargo bench -p webhook-harness --bench generate`; `GENERATE_REQUESTS` (default 4000) tunes it.
//! It allocates with mimalloc, as the `webhook-conformance` binary and the throughput bench do.

use std::time::Instant;

use webhook_harness::lowlevel::{Sampler, Scope};
use webhook_harness::Manifest;

/// The CLI's allocator, so that a request costs what it costs in `webhook-conformance`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let requests: usize = std::env::var("GENERATE_REQUESTS").ok().and_then(|v| v.parse().ok()).unwrap_or(4000);
    let manifest = Manifest::parse(std::path::Path::new("reference.yaml"), reference_webhook::MANIFEST)
        .expect("the reference manifest parses");
    let mut spent = std::time::Duration::ZERO;
    let (mut bytes, mut drawn) = (0usize, 0usize);
    for (i, webhook) in manifest.webhooks.iter().enumerate() {
        let Some(mut sampler) = Sampler::new(webhook, Scope::All, i as u64) else { continue };
        let started = Instant::now();
        for _ in 0..requests / manifest.webhooks.len() {
            let case = sampler.draw();
            bytes += case.review.to_bytes().len();
            drawn += 1;
        }
        spent += started.elapsed();
    }
    println!(
        "generate (draw + serialize): {:.1} µs/request over {drawn} requests, {} bytes/request on average",
        spent.as_secs_f64() * 1e6 / drawn.max(1) as f64,
        bytes / drawn.max(1)
    );
}
