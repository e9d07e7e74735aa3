//! A webhook that cannot answer gets its verdict fast: one that hangs or answers after its deadline
//! is not waited for on every request, and a listener that speaks plain HTTP is recognised at the
//! first handshake. The bounds are generous (the figures: `cargo bench -p webhook-conformance
//! --bench unresponsive`).

use std::io::{Read, Write};
use std::process::Output;
use std::time::{Duration, Instant};

use reference_webhook::{Defect, Style};
use webhook_conformance::embedded;
use webhook_harness::{Budget, Suite};

#[path = "support/cli.rs"]
mod cli_support;
use cli_support::bin;

/// The timed tests run one at a time, so that their figures are their own.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn reference(extra: &str) -> String {
    format!(
        "exec {} reference-webhook --cert {{cert}} --key {{key}} --port {{port}} {extra}",
        env!("CARGO_BIN_EXE_webhook-conformance")
    )
}

/// The bundled manifest (timeoutSeconds: 5) in `dir`.
fn manifest(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("reference.yaml");
    std::fs::write(&path, reference_webhook::MANIFEST).unwrap();
    assert!(reference_webhook::MANIFEST.contains("timeoutSeconds: 5"));
    path
}

#[test]
fn a_hanging_webhook_is_judged_within_seconds_of_one_timeout() {
    let _one = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let out = bin()
        .arg("--config")
        .arg(manifest(dir.path()))
        .args(["--cmd", &reference("--defect hang")])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let took = started.elapsed();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("verdict: FAIL — transport.deadline"), "{t}");
    assert!(
        t.contains("not sent:") && t.contains("missed its deadline (timeoutSeconds=5) on 3 requests in a row"),
        "{t}"
    );
    assert!(took < Duration::from_secs(20), "the run took {took:?}:\n{t}");
}

#[test]
fn fuzz_against_a_webhook_answering_after_its_deadline_finishes_within_a_minute() {
    let _one = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let out = bin()
        .args(["fuzz", "--cases", "64", "--seed", "1", "--config"])
        .arg(manifest(dir.path()))
        .args(["--cmd", &reference("--defect late-answer")])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let took = started.elapsed();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("verdict: FAIL — transport.deadline"), "{t}");
    assert!(t.contains("not sent:") && t.contains("on 3 requests in a row"), "{t}");
    assert!(t.contains("not judged after 0 case(s): stopped: the webhook missed its deadline"), "{t}");
    assert!(took < Duration::from_secs(60), "fuzz took {took:?}:\n{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shrinking_a_deadline_failure_stops_and_says_so() {
    // Generated requests only (no planned ones first): the contract sweep finds the missed deadline
    // and starts shrinking it; once the webhook is no longer called the shrinking stops, and the
    // report says the request shown is not a minimal one.
    let mut manifest = embedded::reference_manifest();
    for w in &mut manifest.webhooks {
        w.timeout_seconds = 1;
    }
    let started = Instant::now();
    let report = Suite::new(manifest)
        .target(embedded::target(Some(Defect::LateAnswer), Style::default()))
        .contract(false)
        .lint(false)
        .budget(Budget::cases(64))
        .seed(1)
        .run()
        .await
        .unwrap();
    let took = started.elapsed();
    let text = report.render_text();
    assert_eq!(report.failed_rules(), vec!["transport.deadline"], "{text}");
    let notes = &report.records().target.notes;
    assert!(
        notes.iter().any(|n| n.contains(
            "breaking transport.deadline was not shrunk to the end: shrinking stopped: the webhook missed its deadline"
        )),
        "{notes:?}"
    );
    assert!(text.contains("not sent:"), "{text}");
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

/// A plain-HTTP server on a free port, answering anything with 400, as a Go or Python HTTP server
/// answers a TLS ClientHello.
fn plain_http_server() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        }
    });
    port
}

#[test]
fn a_started_target_speaking_plain_http_is_recognised_at_the_first_handshake() {
    let _one = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let server = "import socket,sys\ns=socket.socket()\ns.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\ns.bind(('127.0.0.1',int(sys.argv[1])))\ns.listen(16)\nwhile True:\n  c,_=s.accept()\n  c.recv(4096)\n  c.sendall(b'HTTP/1.1 400 Bad Request\\r\\nContent-Length: 0\\r\\nConnection: close\\r\\n\\r\\n')\n  c.close()\n";
    std::fs::write(dir.path().join("plain.py"), server).unwrap();
    let started = Instant::now();
    let out = bin()
        .arg("--config")
        .arg(manifest(dir.path()))
        .args(["--cmd", &format!("exec python3 {}/plain.py {{port}}", dir.path().display())])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let took = started.elapsed();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("target.ready FAIL") && t.contains("the target speaks HTTP, not TLS"), "{t}");
    assert!(!t.contains("InvalidContentType") && !t.contains("corrupt message"), "no rustls error text: {t}");
    assert!(took < Duration::from_secs(15), "the verdict waited {took:?} (the startup timeout is 30 s)");
}

#[test]
fn a_url_speaking_plain_http_fails_transport_connect_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let tls = webhook_harness::tls::TlsMaterial::generate(&Default::default(), Some(&dir.path().join("tls"))).unwrap();
    let port = plain_http_server();
    let out = bin()
        .arg("--config")
        .arg(manifest(dir.path()))
        .arg("--url")
        .arg(format!("https://127.0.0.1:{port}"))
        .arg("--ca")
        .arg(tls.ca_path())
        .current_dir(dir.path())
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("verdict: FAIL — transport.connect"), "{t}");
    assert!(t.contains("the target speaks HTTP, not TLS"), "{t}");
    assert!(t.contains("http: server gave HTTP response to HTTPS client"), "{t}");
}
