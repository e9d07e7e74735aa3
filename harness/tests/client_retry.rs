//! The client retries a 429/5xx that carries Retry-After, as client-go does, and nothing else.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use webhook_harness::lowlevel::{Client, Endpoint, HttpVersions, Transport};
use webhook_harness::tls::{ServingNames, TlsMaterial};

/// A one-endpoint HTTPS server answering the n-th request with `answers[n]` (the last one repeats).
async fn serve(tls: &TlsMaterial, answers: Vec<&'static str>) -> (SocketAddr, Arc<AtomicUsize>) {
    let certs = webhook_harness::tls::parse_certificates(tls.cert_pem.as_bytes()).unwrap();
    let key = rustls_pemfile::private_key(&mut tls.key_pem.as_bytes()).unwrap().unwrap();
    let mut config = rustls::ServerConfig::builder_with_provider(webhook_harness::tls::provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, counter, answers) = (acceptor.clone(), counter.clone(), answers.clone());
            tokio::spawn(async move {
                let Ok(mut stream) = acceptor.accept(tcp).await else { return };
                let mut buf = Vec::new();
                loop {
                    // Read one request: headers, then Content-Length bytes of body.
                    let mut chunk = [0u8; 4096];
                    let Ok(n) = stream.read(&mut chunk).await else { return };
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    let text = String::from_utf8_lossy(&buf).to_string();
                    let Some(end) = text.find("\r\n\r\n") else { continue };
                    let length: usize = text[..end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap())
                        })
                        .unwrap_or(0);
                    if buf.len() < end + 4 + length {
                        continue;
                    }
                    buf.drain(..end + 4 + length);
                    let n = counter.fetch_add(1, Ordering::SeqCst);
                    let answer = answers[n.min(answers.len() - 1)];
                    if stream.write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (addr, seen)
}

const BUSY: &str = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\nContent-Length: 4\r\n\r\nbusy";
const BUSY_NO_RETRY: &str = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy";
const OK: &str = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";

fn client(tls: &TlsMaterial, addr: SocketAddr) -> Client {
    let endpoint = Endpoint {
        base: reqwest::Url::parse(&format!("https://127.0.0.1:{}/", addr.port())).unwrap(),
        resolve_to: None,
        ca_pem: tls.ca_pem.as_bytes().to_vec(),
        path_override: false,
        hosts: Default::default(),
    };
    Client::new(endpoint, HttpVersions::Http1).unwrap()
}

#[tokio::test]
async fn retry_after_is_honoured() {
    let tls = TlsMaterial::generate(&ServingNames::default(), None).unwrap();
    let (addr, seen) = serve(&tls, vec![BUSY, BUSY, OK]).await;
    match client(&tls, addr).call("/hook", 5, b"{}").await {
        Transport::Answered(a) => assert_eq!(a.status, 200),
        Transport::Failed(f) => panic!("{f:?}"),
    }
    assert_eq!(seen.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_5xx_without_retry_after_is_not_retried() {
    let tls = TlsMaterial::generate(&ServingNames::default(), None).unwrap();
    let (addr, seen) = serve(&tls, vec![BUSY_NO_RETRY, OK]).await;
    match client(&tls, addr).call("/hook", 5, b"{}").await {
        Transport::Answered(a) => assert_eq!(a.status, 503),
        Transport::Failed(f) => panic!("{f:?}"),
    }
    assert_eq!(seen.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn retries_stop_at_ten() {
    let tls = TlsMaterial::generate(&ServingNames::default(), None).unwrap();
    let (addr, seen) = serve(&tls, vec![BUSY]).await;
    match client(&tls, addr).call("/hook", 5, b"{}").await {
        Transport::Answered(a) => assert_eq!(a.status, 503),
        Transport::Failed(f) => panic!("{f:?}"),
    }
    assert_eq!(seen.load(Ordering::SeqCst), 11, "one call and ten retries");
}

#[tokio::test]
async fn every_call_sent_is_timed_retries_and_failures_included() {
    use std::time::Duration;
    use webhook_harness::lowlevel::CallTime;
    let tls = TlsMaterial::generate(&ServingNames::default(), None).unwrap();
    let (addr, _) = serve(&tls, vec![BUSY, OK]).await;
    let timed = Arc::new(CallTime::default());
    let client = client(&tls, addr).with_call_time(timed.clone());
    assert_eq!((timed.calls(), timed.mean()), (0, None));
    let mut took_us = 0;
    for _ in 0..2 {
        match client.call("/hook", 5, b"{}").await {
            Transport::Answered(a) => took_us += a.elapsed.as_micros(),
            Transport::Failed(f) => panic!("{f:?}"),
        }
    }
    // The first call's retry is part of that call.
    assert_eq!(timed.calls(), 2);
    assert_eq!(timed.total().as_micros(), took_us, "the calls' own elapsed times (in whole µs), added up");
    assert!(timed.mean().is_some_and(|m| m > Duration::ZERO && m <= timed.total()));
    // A call that fails counts with the time it took; one refused before sending does not.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let closed_addr = closed.local_addr().unwrap();
    drop(closed);
    let failing = Arc::new(CallTime::default());
    let unreachable = self::client(&tls, closed_addr).with_call_time(failing.clone());
    assert!(matches!(unreachable.call("/hook", 5, b"{}").await, Transport::Failed(_)));
    assert_eq!(failing.calls(), 1);
    let cancel = webhook_harness::Cancel::new();
    cancel.cancel();
    let cancelled = self::client(&tls, addr).with_call_time(failing.clone()).with_cancel(cancel);
    assert!(matches!(cancelled.call("/hook", 5, b"{}").await, Transport::Failed(_)));
    assert_eq!(failing.calls(), 1, "a call refused before sending is not counted");
}
