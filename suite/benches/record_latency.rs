//! The latency the recording proxy (`webhook-conformance record --listen … --to …`) adds to an
//! admission call: the same AdmissionReview sent one at a time over a keep-alive HTTP/1.1
//! connection to the in-process reference webhook directly and through the proxy (TLS on both of
//! its sides, every request written as a case file: `--all`), in one run. Prints the median, p90
//! and p99 of each and the difference.
//!
//!     cargo bench -p webhook-conformance --bench record_latency
//!
//! `RECORD_REQUESTS` (default 2000) tunes it.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use webhook_harness::auth::ClientIdentity;
use webhook_harness::record::proxy::{self, ProxyConfig, Url};
use webhook_harness::record::{RecordOptions, Recorder};
use webhook_harness::tls::{ServingNames, TlsMaterial};
use webhook_harness::Manifest;

/// The CLI's allocator (see `src/main.rs`), so that the proxy runs as `webhook-conformance` runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn client(ca_pem: &str) -> reqwest::Client {
    let tls = rustls::ClientConfig::builder_with_provider(webhook_harness::tls::provider())
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_root_certificates(webhook_harness::tls::root_store(ca_pem.as_bytes()).expect("CA"))
        .with_no_client_auth();
    reqwest::Client::builder()
        .use_preconfigured_tls(tls)
        .http1_only()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client")
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn measure(client: &reqwest::Client, url: &str, body: &[u8], n: usize) -> Vec<Duration> {
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        let answer = client
            .post(url)
            .header("Content-Type", "application/json")
            .body(body.to_vec())
            .send()
            .await
            .expect("an answer");
        assert_eq!(answer.status(), 200);
        answer.bytes().await.expect("a body");
        times.push(start.elapsed());
    }
    times.sort();
    times
}

fn main() {
    let n: usize = std::env::var("RECORD_REQUESTS").ok().and_then(|v| v.parse().ok()).unwrap_or(2000);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        let webhook_tls = TlsMaterial::generate(&ServingNames::default(), None).expect("TLS");
        let server_tls =
            reference_webhook::server_tls_config(webhook_tls.cert_pem.as_bytes(), webhook_tls.key_pem.as_bytes())
                .expect("serving TLS");
        let webhook = reference_webhook::spawn(server_tls, Default::default()).await.expect("webhook");
        let out = tempfile::tempdir().expect("temp dir");
        let manifest = Manifest::parse(Path::new("reference.yaml"), reference_webhook::MANIFEST).expect("manifest");
        let recorder = Recorder::new(&manifest, out.path(), RecordOptions { keep_sensitive: false, all: true })
            .expect("recorder");
        let proxy_tls = TlsMaterial::generate(&ServingNames::default(), None).expect("TLS");
        let config = ProxyConfig {
            listen: "127.0.0.1:0".parse().expect("address"),
            upstream: Url::parse(&webhook.base_url()).expect("URL"),
            upstream_ca_pem: webhook_tls.ca_pem.as_bytes().to_vec(),
            identity: ClientIdentity::anonymous(),
            serving: proxy::serving_config(proxy_tls.cert_pem.as_bytes(), proxy_tls.key_pem.as_bytes())
                .expect("proxy TLS"),
            deadline: proxy::MAX_DEADLINE,
        };
        let running = proxy::start(config, recorder, |_| {}).await.expect("proxy");
        let review = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
            "uid": "b1", "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "name": "web-0", "namespace": "team-a", "operation": "CREATE",
            "userInfo": {"username": "alice"},
            "object": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0", "namespace": "team-a", "labels": {"app": "web"}},
                       "spec": {"containers": [{"name": "app", "image": "registry.example/app:1.0"}]}},
            "oldObject": null, "dryRun": false}});
        let body = serde_json::to_vec(&review).expect("JSON");
        let direct_url = format!("{}/mutate?timeout=10s", webhook.base_url());
        let proxied_url = format!("https://{}/mutate?timeout=10s", running.addr);
        let direct_client = client(&webhook_tls.ca_pem);
        let proxied_client = client(&proxy_tls.ca_pem);
        // Warm up: connections made, pools filled.
        measure(&direct_client, &direct_url, &body, 100).await;
        measure(&proxied_client, &proxied_url, &body, 100).await;
        let direct = measure(&direct_client, &direct_url, &body, n).await;
        let proxied = measure(&proxied_client, &proxied_url, &body, n).await;
        let recorder = running.stop().await;
        println!("record proxy latency, {n} sequential requests each (keep-alive HTTP/1.1, TLS):");
        println!("            median      p90      p99");
        let row = |name: &str, t: &[Duration]| {
            println!(
                "{name:<8} {:>8.0}µs {:>7.0}µs {:>7.0}µs",
                percentile(t, 0.5).as_secs_f64() * 1e6,
                percentile(t, 0.9).as_secs_f64() * 1e6,
                percentile(t, 0.99).as_secs_f64() * 1e6
            )
        };
        row("direct", &direct);
        row("proxied", &proxied);
        let added = |p| (percentile(&proxied, p).as_secs_f64() - percentile(&direct, p).as_secs_f64()) * 1e6;
        println!("added    {:>8.0}µs {:>7.0}µs {:>7.0}µs", added(0.5), added(0.9), added(0.99));
        println!("case files written: {}", recorder.summary().written.len());
        webhook.shutdown().await;
    });
}
