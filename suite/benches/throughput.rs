//! Generated-and-checked requests per second against the in-process reference webhook, next to a
//! bare client loop (same client, same payloads, same concurrency) on the same webhook, in one run,
//! for keep-alive HTTP/1.1 with a connection pool (how the apiserver calls a service webhook) and for
//! one multiplexed HTTP/2 connection (`--http2`). Prints both rates and their ratio for each, the
//! CPU time per request of each loop, the per-stage cost of one request (generate / send / check,
//! one at a time on one task, and within the check the typed decode of the patched object, the
//! apiserver's validation of it, the answer's decode, the patch's application and the RFC 6902
//! cross-check), the suite's own CPU per request (checked minus bare, with the system time's share
//! of it) and the peak RSS. A first round of checked requests, not measured, opens the connections
//! and grows the heap before either loop is timed.
//!
//!     cargo bench -p webhook-conformance --bench throughput
//!
//! `THROUGHPUT_REQUESTS` (default 4000) and `THROUGHPUT_CONCURRENCY` (default 8) tune it. The two
//! loops run in turn `THROUGHPUT_ROUNDS` times (default 3), each time on all the requests; the
//! figures are the medians of the rounds, the suite's own CPU that of each round's difference, so
//! that a machine whose speed drifts while the bench runs (other tenants) weighs on both loops alike.
//! `THROUGHPUT_STAGE=check` runs the check stage alone instead: `THROUGHPUT_REQUESTS` answers are
//! fetched first, then every exchange rule runs on each of them in `check_only` (the one function to
//! give `valgrind --tool=callgrind --toggle-collect='*check_only*'` for the instructions of the check).

use std::sync::Arc;
use std::time::{Duration, Instant};

use reference_webhook::Style;
use webhook_conformance::embedded;
use webhook_harness::lowlevel::{
    evaluate, evaluate_rule, exchange, Client, Endpoint, Exchange, HttpVersions, Sampler, Scope, Transport,
};
use webhook_harness::{Outcome, Suite, WebhookKind, WebhookSpec};

/// The CLI's allocator (see `src/main.rs`), so that both loops run as `webhook-conformance` runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// User and system CPU time of the whole process so far.
#[derive(Clone, Copy)]
struct Cpu {
    user: Duration,
    system: Duration,
}

impl std::ops::Sub for Cpu {
    type Output = Cpu;
    fn sub(self, earlier: Cpu) -> Cpu {
        Cpu { user: self.user - earlier.user, system: self.system - earlier.system }
    }
}

impl Cpu {
    fn total(&self) -> Duration {
        self.user + self.system
    }
}

/// User and system CPU time of the whole process so far.
fn cpu_time() -> Cpu {
    // SAFETY: getrusage only writes the struct it is given.
    #[allow(unsafe_code)]
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Cpu { user: tv(usage.ru_utime), system: tv(usage.ru_stime) }
}

/// Peak resident set size of the process, KiB (`VmHWM`).
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The median of `values` (the upper one of an even count).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Wall and CPU time of one loop.
struct Phase {
    wall: Duration,
    cpu: Cpu,
}

impl Phase {
    fn rate(&self, requests: usize) -> f64 {
        requests as f64 / self.wall.as_secs_f64()
    }
    fn cpu_per_request_us(&self, requests: usize) -> f64 {
        self.cpu.total().as_secs_f64() * 1e6 / requests as f64
    }
    fn system_per_request_us(&self, requests: usize) -> f64 {
        self.cpu.system.as_secs_f64() * 1e6 / requests as f64
    }
}

struct Setup {
    webhook: Arc<WebhookSpec>,
    concurrency: usize,
    per_task: usize,
}

impl Setup {
    fn total(&self) -> usize {
        self.per_task * self.concurrency
    }
}

/// Draw a case, send it, run every exchange rule on the answer: `concurrency` tasks at once.
async fn checked(setup: &Setup, client: &Arc<Client>) -> Phase {
    let (wall, cpu) = (Instant::now(), cpu_time());
    let mut tasks = tokio::task::JoinSet::new();
    // The webhook's targets and fixtures are built once, as a campaign builds them once for all
    // its workers; each task draws from its own seed.
    let first = Sampler::new(&setup.webhook, Scope::All, 0).expect("requests");
    for t in 0..setup.concurrency {
        let (client, webhook, per_task) = (client.clone(), setup.webhook.clone(), setup.per_task);
        let mut sampler = first.reseeded(t as u64);
        tasks.spawn(async move {
            let mut failed = 0usize;
            for _ in 0..per_task {
                let case = sampler.draw();
                let record = exchange(&client, webhook.clone(), case).await;
                failed += usize::from(record.findings.iter().any(|f| f.outcome() == Outcome::Fail));
            }
            failed
        });
    }
    let mut failed = 0;
    while let Some(done) = tasks.join_next().await {
        failed += done.expect("task");
    }
    assert_eq!(failed, 0, "the reference webhook fails no rule");
    Phase { wall: wall.elapsed(), cpu: cpu_time() - cpu }
}

/// The same bodies as the checked loop drew (same generator, same seeds), posted by the same
/// client: nothing generated or checked.
async fn bare(setup: &Setup, client: &Arc<Client>, payloads: &[Arc<Vec<Vec<u8>>>]) -> Phase {
    let (wall, cpu) = (Instant::now(), cpu_time());
    let mut tasks = tokio::task::JoinSet::new();
    for bodies in payloads {
        let (client, webhook, bodies) = (client.clone(), setup.webhook.clone(), bodies.clone());
        tasks.spawn(async move {
            let mut ok = 0usize;
            for body in bodies.iter() {
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
    assert_eq!(ok, setup.total(), "every bare request answered 200");
    Phase { wall: wall.elapsed(), cpu: cpu_time() - cpu }
}

/// One request at a time on one task: how long generating (drawing and serializing), sending
/// (the call, the webhook's work included) and checking (every exchange rule) take on average;
/// two rules of the check timed alone on the same exchange: the typed decode of the patched object
/// (`patch.kind-decode`) and the apiserver's validation of it (`object.valid`); and, on a second
/// view of the same answer whose stages are derived afresh, the stages the other rules share: the
/// answer decoded as the apiserver's decoder reads it and its patch decoded (`patch.json`), the
/// patch applied with its leniencies noted (`patch.applies`), and the RFC 6902 cross-check
/// (`patch.rfc6902`).
async fn stages(setup: &Setup, client: &Client, requests: usize) -> [Duration; 8] {
    let mut sampler = Sampler::new(&setup.webhook, Scope::All, 7).expect("requests");
    let path = setup.webhook.path();
    let url = client.endpoint().call_url(&path, setup.webhook.timeout_seconds).to_string();
    let mut spent = [Duration::ZERO; 8];
    for _ in 0..requests {
        let t0 = Instant::now();
        let case = sampler.draw();
        let body = case.review.to_bytes();
        let t1 = Instant::now();
        let transport = client.call(&path, setup.webhook.timeout_seconds, &body).await;
        let t2 = Instant::now();
        let view = Exchange::new(&setup.webhook, &case, &transport, &url);
        let findings = evaluate(&view);
        let admission = view.admission(&findings);
        std::hint::black_box(admission);
        let t3 = Instant::now();
        std::hint::black_box(evaluate_rule("patch.kind-decode", &view).expect("an exchange rule"));
        let t4 = Instant::now();
        std::hint::black_box(evaluate_rule("object.valid", &view).expect("an exchange rule"));
        let t5 = Instant::now();
        let fresh = Exchange::new(&setup.webhook, &case, &transport, &url);
        std::hint::black_box(evaluate_rule("patch.json", &fresh).expect("an exchange rule"));
        let t6 = Instant::now();
        std::hint::black_box(evaluate_rule("patch.applies", &fresh).expect("an exchange rule"));
        let t7 = Instant::now();
        std::hint::black_box(evaluate_rule("patch.rfc6902", &fresh).expect("an exchange rule"));
        let t8 = Instant::now();
        spent[5] += t6 - t5;
        spent[6] += t7 - t6;
        spent[7] += t8 - t7;
        spent[0] += t1 - t0;
        spent[1] += t2 - t1;
        spent[2] += t3 - t2;
        spent[3] += t4 - t3;
        spent[4] += t5 - t4;
    }
    spent.map(|d| d / requests as u32)
}

/// Every exchange rule on each fetched answer, one exchange after the other, as `stages` times them.
#[inline(never)]
fn check_only(
    webhook: &WebhookSpec,
    answered: &[(webhook_harness::lowlevel::RequestCase, Transport)],
    url: &str,
) -> usize {
    let mut findings_total = 0;
    for (case, transport) in answered {
        let view = Exchange::new(webhook, case, transport, url);
        let findings = evaluate(&view);
        findings_total += findings.len();
        std::hint::black_box(view.admission(&findings));
    }
    findings_total
}

/// `THROUGHPUT_STAGE=check`: the answers to `requests` drawn cases, then the check alone on them.
async fn check_stage(setup: &Setup, client: &Client, requests: usize) {
    let mut sampler = Sampler::new(&setup.webhook, Scope::All, 7).expect("requests");
    let path = setup.webhook.path();
    let url = client.endpoint().call_url(&path, setup.webhook.timeout_seconds).to_string();
    let mut answered = Vec::with_capacity(requests);
    for _ in 0..requests {
        let case = sampler.draw();
        let transport = client.call(&path, setup.webhook.timeout_seconds, &case.review.to_bytes()).await;
        answered.push((case, transport));
    }
    let cpu = cpu_time();
    let findings = check_only(&setup.webhook, &answered, &url);
    let cpu = (cpu_time() - cpu).total();
    println!(
        "check stage alone: {requests} answers, {findings} findings, {:.1} µs CPU per request",
        cpu.as_secs_f64() * 1e6 / requests as f64
    );
}

/// The connections opened, and the process's heap grown to what both loops use (a first round of
/// checked requests, not measured): the loop measured first would otherwise pay alone for the
/// pages the heap takes from the kernel once.
async fn warm_up(setup: &Setup, client: &Arc<Client>, body: &[u8]) {
    for _ in 0..setup.concurrency * 4 {
        let _ = client.call(&setup.webhook.path(), setup.webhook.timeout_seconds, body).await;
    }
    let round = Setup { webhook: setup.webhook.clone(), concurrency: setup.concurrency, per_task: WARM_UP_PER_TASK };
    checked(&round, client).await;
}

/// Requests per task of the warm-up's checked round.
const WARM_UP_PER_TASK: usize = 100;

fn main() {
    let requests = env("THROUGHPUT_REQUESTS", 4000);
    let concurrency = env("THROUGHPUT_CONCURRENCY", 8).max(1);
    let rounds = env("THROUGHPUT_ROUNDS", 3).max(1);
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
        let endpoint: Endpoint = session.endpoint().expect("the reference webhook is ready").clone();
        let setup = Setup { webhook, concurrency, per_task: requests.div_ceil(concurrency) };
        let total = setup.total();
        if std::env::var("THROUGHPUT_STAGE").as_deref() == Ok("check") {
            let client = Client::new(endpoint.clone(), HttpVersions::Http1).expect("client");
            check_stage(&setup, &client, requests).await;
            drop(session);
            return;
        }

        let payloads: Vec<Arc<Vec<Vec<u8>>>> = (0..concurrency)
            .map(|t| {
                let mut sampler = Sampler::new(&setup.webhook, Scope::All, t as u64).expect("requests");
                Arc::new((0..setup.per_task).map(|_| sampler.draw().review.to_bytes()).collect())
            })
            .collect();
        let bytes: usize = payloads.iter().flat_map(|p| p.iter()).map(Vec::len).sum();

        println!(
            "throughput: {total} requests ({} KiB), concurrency {concurrency}, reference webhook in-process (TLS), {} cores",
            bytes / 1024,
            std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
        );
        for (label, versions) in [
            ("HTTP/1.1 keep-alive pool", HttpVersions::Http1),
            ("HTTP/2, one multiplexed connection", HttpVersions::Http2AndHttp1),
        ] {
            let client = Arc::new(Client::new(endpoint.clone(), versions).expect("client"));
            warm_up(&setup, &client, &payloads[0][0]).await;
            let mut runs: Vec<(Phase, Phase)> = Vec::with_capacity(rounds);
            for _ in 0..rounds {
                let checked = checked(&setup, &client).await;
                let bare = bare(&setup, &client, &payloads).await;
                runs.push((checked, bare));
            }
            let of = |f: &dyn Fn(&(Phase, Phase)) -> f64| median(runs.iter().map(f).collect());
            let own: Vec<f64> =
                runs.iter().map(|(c, b)| c.cpu_per_request_us(total) - b.cpu_per_request_us(total)).collect();
            println!("{label} (medians of {rounds} rounds):");
            println!(
                "  generated + checked : {:>9.0} requests/s  ({:.2} s, {:.0} µs CPU per request)",
                of(&|(c, _)| c.rate(total)),
                of(&|(c, _)| c.wall.as_secs_f64()),
                of(&|(c, _)| c.cpu_per_request_us(total))
            );
            println!(
                "  bare client loop    : {:>9.0} requests/s  ({:.2} s, {:.0} µs CPU per request)",
                of(&|(_, b)| b.rate(total)),
                of(&|(_, b)| b.wall.as_secs_f64()),
                of(&|(_, b)| b.cpu_per_request_us(total))
            );
            println!("  ratio checked/bare  : {:>9.2}", of(&|(c, b)| c.rate(total) / b.rate(total)));
            // Both loops keep every core busy: the rates stand in the ratio of the CPU each request
            // costs, and what the checked loop costs more is the suite's own work.
            let rounds_own: Vec<String> = own.iter().map(|us| format!("{us:.0}")).collect();
            println!(
                "  the suite's own CPU : {:>9.0} µs per request (checked − bare; rounds {}), the webhook's and the transport's: {:.0} µs",
                median(own.clone()),
                rounds_own.join(" / "),
                of(&|(_, b)| b.cpu_per_request_us(total))
            );
            // The kernel's share: what the checked loop makes the kernel do more (waking idle
            // worker threads while the others check) counts as the suite's too.
            println!(
                "    of which system   : {:>9.0} µs per request (checked {:.0}, bare {:.0})",
                of(&|(c, b)| c.system_per_request_us(total) - b.system_per_request_us(total)),
                of(&|(c, _)| c.system_per_request_us(total)),
                of(&|(_, b)| b.system_per_request_us(total))
            );
            let n = (total / 4).max(1);
            let [generate, send, check, decode, validate, read, apply, rfc] = stages(&setup, &client, n).await;
            let us = |d: Duration| d.as_secs_f64() * 1e6;
            println!("  per stage, one request at a time ({n} requests):");
            println!("    generate (draw + serialize)          : {:>7.1} µs", us(generate));
            println!("    send (the call, webhook incl.)       : {:>7.1} µs", us(send));
            println!("    check (every exchange rule)          : {:>7.1} µs", us(check));
            println!("      of which typed decode (patch.kind-decode): {:>7.1} µs", us(decode));
            println!("      of which validation (object.valid)       : {:>7.1} µs", us(validate));
            println!("      of which answer + patch decode (patch.json)  : {:>7.1} µs", us(read));
            println!("      of which patch apply (patch.applies)         : {:>7.1} µs", us(apply));
            println!("      of which RFC 6902 cross-check (patch.rfc6902): {:>7.1} µs", us(rfc));
        }

        println!("peak RSS: {} MiB", peak_rss_kib() / 1024);
        drop(session);
    });
}
