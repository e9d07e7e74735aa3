//! The webhook over real HTTPS: in-process via `spawn`, and the binary.

// These tests signal the processes they start (kill(2)).
#![allow(unsafe_code)]

use std::sync::Arc;
use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose,
};
use reference_webhook::{server_tls_config, spawn, Defect, Options, RunningWebhook};
use reqwest::{StatusCode, Version};
use rustls::pki_types::CertificateDer;
use serde_json::{json, Value};
use tokio::time::timeout;

/// Every network wait in these tests is bounded by this.
const WAIT: Duration = Duration::from_secs(20);

/// A fresh test CA and a leaf certificate for localhost/127.0.0.1 signed by it.
struct Pki {
    ca: CertificateDer<'static>,
    cert_pem: String,
    key_pem: String,
}

fn pki() -> Pki {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.distinguished_name.push(DnType::CommonName, "reference-webhook test CA");
    ca_params.key_usages =
        vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);

    let leaf_key = KeyPair::generate().unwrap();
    let mut leaf_params = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
    leaf_params.distinguished_name.push(DnType::CommonName, "reference-webhook");
    leaf_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let leaf = leaf_params.signed_by(&leaf_key, &issuer).unwrap();
    Pki { ca: ca_cert.der().clone(), cert_pem: leaf.pem(), key_pem: leaf_key.serialize_pem() }
}

fn client_tls(ca: &CertificateDer<'static>, alpn: &[&[u8]]) -> rustls::ClientConfig {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca.clone()).unwrap();
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    config
}

/// A client trusting only the test CA, offering ALPN h2 and http/1.1; `http1` forces HTTP/1.1
/// (reqwest keeps a preconfigured TLS config's ALPN as it is, and would follow a negotiated h2
/// even when told `http1_only`, so the forced client offers only http/1.1).
fn client(ca: &CertificateDer<'static>, http1: bool, request_timeout: Duration) -> reqwest::Client {
    let alpn: &[&[u8]] = if http1 { &[b"http/1.1"] } else { &[b"h2", b"http/1.1"] };
    let mut builder = reqwest::Client::builder()
        .use_preconfigured_tls(client_tls(ca, alpn))
        .no_proxy()
        .connect_timeout(WAIT)
        .timeout(request_timeout);
    if http1 {
        builder = builder.http1_only();
    }
    builder.build().unwrap()
}

async fn start(pki: &Pki, defect: Option<Defect>) -> RunningWebhook {
    let tls = server_tls_config(pki.cert_pem.as_bytes(), pki.key_pem.as_bytes()).unwrap();
    spawn(tls, Options { defect }).await.unwrap()
}

fn review(api_version: &str, uid: &str, object: Value) -> Value {
    json!({
        "apiVersion": api_version,
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "operation": "CREATE",
            "userInfo": {"username": "admin"},
            "object": object,
            "oldObject": null,
            "dryRun": false,
            "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"},
        }
    })
}

fn pod(labels: Value) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "labels": labels},
        "spec": {"containers": [{"name": "app", "image": "registry.example/app:1"}]},
    })
}

async fn post(client: &reqwest::Client, url: String, body: &Value) -> reqwest::Result<reqwest::Response> {
    client
        .post(url)
        .header("content-type", "application/json; charset=utf-8")
        .header("accept", "application/json, */*")
        .body(serde_json::to_vec(body).unwrap())
        .send()
        .await
}

#[tokio::test]
async fn correct_reviews_over_http1_and_http2() {
    let pki = pki();
    let webhook = start(&pki, None).await;
    for (http1, expected) in [(true, Version::HTTP_11), (false, Version::HTTP_2)] {
        let client = client(&pki.ca, http1, WAIT);
        for api_version in ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] {
            // Mutate a pod without labels.
            let uid = format!("uid-mutate-{http1}-{api_version}");
            let url = format!("{}/mutate?timeout=5s", webhook.base_url());
            let response = timeout(WAIT, post(&client, url, &review(api_version, &uid, pod(Value::Null))))
                .await
                .expect("in time")
                .expect("an answer");
            assert_eq!(response.version(), expected);
            assert_eq!(response.status(), StatusCode::OK);
            assert_eq!(response.headers()["content-type"], "application/json");
            let answer: Value = timeout(WAIT, response.json()).await.unwrap().unwrap();
            assert_eq!(answer["apiVersion"], api_version);
            assert_eq!(answer["kind"], "AdmissionReview");
            assert_eq!(answer["response"]["uid"], uid.as_str());
            assert_eq!(answer["response"]["allowed"], true);
            assert_eq!(answer["response"]["patchType"], "JSONPatch");
            let patch: Value =
                serde_json::from_slice(&STANDARD.decode(answer["response"]["patch"].as_str().unwrap()).unwrap())
                    .unwrap();
            assert_eq!(patch.as_array().unwrap().len(), 3, "{patch}");
            assert_eq!(patch[0]["path"], "/metadata/labels");

            // Validate a pod carrying the deny label.
            let uid = format!("uid-validate-{http1}-{api_version}");
            let url = format!("{}/validate?timeout=5s", webhook.base_url());
            let body = review(api_version, &uid, pod(json!({"conformance.example/deny": "true"})));
            let response = timeout(WAIT, post(&client, url, &body)).await.unwrap().unwrap();
            assert_eq!(response.version(), expected);
            assert_eq!(response.status(), StatusCode::OK);
            let answer: Value = timeout(WAIT, response.json()).await.unwrap().unwrap();
            assert_eq!(answer["apiVersion"], api_version);
            assert_eq!(answer["response"]["uid"], uid.as_str());
            assert_eq!(answer["response"]["allowed"], false);
            assert_eq!(answer["response"]["status"]["code"], 403);
            assert_eq!(answer["response"]["auditAnnotations"]["decision"], "denied");
            assert!(answer["response"].get("patch").is_none());
        }
    }
    webhook.shutdown().await;
}

#[tokio::test]
async fn routing_methods_and_malformed_bodies() {
    let pki = pki();
    let webhook = start(&pki, None).await;
    let client = client(&pki.ca, false, WAIT);
    let base = webhook.base_url();

    let response = timeout(WAIT, post(&client, format!("{base}/other"), &json!({}))).await.unwrap().unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);

    let response = timeout(WAIT, client.get(format!("{base}/mutate")).send()).await.unwrap().unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);

    let response = timeout(
        WAIT,
        client.post(format!("{base}/validate")).header("content-type", "application/json").body("{not json").send(),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let text = timeout(WAIT, response.text()).await.unwrap().unwrap();
    assert!(text.contains("not JSON"), "{text}");

    // The server still answers correctly afterwards.
    let response =
        timeout(WAIT, post(&client, format!("{base}/validate"), &review("admission.k8s.io/v1", "u", pod(json!({})))))
            .await
            .unwrap()
            .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn defect_untrusted_cert_fails_the_handshake() {
    let pki = pki();
    let webhook = start(&pki, Some(Defect::UntrustedCert)).await;
    let client = client(&pki.ca, true, WAIT);
    let body = review("admission.k8s.io/v1", "u", pod(json!({})));
    let result = timeout(WAIT, post(&client, format!("{}/mutate", webhook.base_url()), &body)).await.expect("in time");
    let error = result.expect_err("a certificate not signed by the CA must be refused");
    assert!(error.is_connect(), "{error:?}");
}

#[tokio::test]
async fn defect_close_connection_sends_no_response() {
    let pki = pki();
    let webhook = start(&pki, Some(Defect::CloseConnection)).await;
    for http1 in [true, false] {
        let client = client(&pki.ca, http1, WAIT);
        let body = review("admission.k8s.io/v1", "u", pod(json!({})));
        let result = timeout(WAIT, post(&client, format!("{}/validate", webhook.base_url()), &body))
            .await
            .expect("the client sees the close in time");
        let error = result.expect_err("no HTTP response");
        assert!(!error.is_timeout() && error.status().is_none(), "{error:?}");
    }
}

#[tokio::test]
async fn defect_close_after_answer_answers_once_per_connection_without_saying_so() {
    let pki = pki();
    let webhook = start(&pki, Some(Defect::CloseAfterAnswer)).await;
    let client = client(&pki.ca, true, WAIT);
    let body = review("admission.k8s.io/v1", "u", pod(json!({})));
    let url = format!("{}/validate", webhook.base_url());
    let first = timeout(WAIT, post(&client, url.clone(), &body)).await.unwrap().unwrap();
    assert_eq!(first.status(), 200);
    assert!(first.headers().get("connection").is_none(), "{:?}", first.headers());
    first.bytes().await.unwrap();
    // The kept-alive connection is reused, and closed unanswered.
    let second = timeout(WAIT, post(&client, url, &body)).await.expect("the client sees the close in time");
    let error = second.expect_err("no HTTP response on the second request of a connection");
    assert!(!error.is_timeout() && error.status().is_none(), "{error:?}");
}

#[tokio::test]
async fn defect_hang_holds_the_request_until_the_client_gives_up() {
    let pki = pki();
    let webhook = start(&pki, Some(Defect::Hang)).await;
    let client = client(&pki.ca, false, Duration::from_millis(500));
    let body = review("admission.k8s.io/v1", "u", pod(json!({})));
    let result = timeout(WAIT, post(&client, format!("{}/mutate", webhook.base_url()), &body)).await.expect("in time");
    let error = result.expect_err("no answer");
    assert!(error.is_timeout(), "{error:?}");
}

#[tokio::test]
async fn defect_status_500_over_https() {
    let pki = pki();
    let webhook = start(&pki, Some(Defect::Status500)).await;
    let client = client(&pki.ca, true, WAIT);
    let body = review("admission.k8s.io/v1", "u", pod(json!({})));
    let response =
        timeout(WAIT, post(&client, format!("{}/mutate", webhook.base_url()), &body)).await.unwrap().unwrap();
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(timeout(WAIT, response.text()).await.unwrap().unwrap().trim(), "internal error");
}

#[tokio::test]
async fn dropping_the_handle_stops_the_server() {
    let pki = pki();
    let webhook = start(&pki, None).await;
    let addr = webhook.addr;
    drop(webhook);
    let client = client(&pki.ca, true, Duration::from_secs(5));
    let body = review("admission.k8s.io/v1", "u", pod(json!({})));
    // The abort takes effect at the task's next poll; the listener is closed once it has.
    let mut refused = false;
    for _ in 0..50 {
        match timeout(WAIT, post(&client, format!("https://{addr}/mutate"), &body)).await.expect("in time") {
            Err(error) if error.is_connect() => {
                refused = true;
                break;
            }
            _ => tokio::task::yield_now().await,
        }
    }
    assert!(refused, "the server still accepts connections after being dropped");
}

// ---------------------------------------------------------------------------------------------
// The binary.

const BIN: &str = env!("CARGO_BIN_EXE_reference-webhook");

fn command() -> tokio::process::Command {
    let mut command = tokio::process::Command::new(BIN);
    command
        .env_remove("WEBHOOK_TLS_CERT")
        .env_remove("WEBHOOK_TLS_KEY")
        .env_remove("WEBHOOK_PORT")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    command
}

#[tokio::test]
async fn binary_lists_defects() {
    let output = timeout(WAIT, command().arg("--list-defects").output()).await.unwrap().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), Defect::ALL.len());
    for (line, defect) in lines.iter().zip(Defect::ALL) {
        assert_eq!(*line, format!("{}\t{}\t{}", defect.name(), defect.rule(), defect.description()));
    }
}

#[tokio::test]
async fn binary_rejects_bad_arguments_with_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.pem");
    let cases: Vec<Vec<String>> = vec![
        vec![],
        vec!["--cert".into(), "c.pem".into()],
        vec!["--defect".into(), "no-such-defect".into()],
        vec!["--port".into(), "seventy".into()],
        vec!["--cert".into(), missing.display().to_string(), "--key".into(), missing.display().to_string()],
        vec!["--bogus".into()],
    ];
    for args in cases {
        let output = timeout(WAIT, command().args(&args).output()).await.unwrap().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(!output.stderr.is_empty(), "{args:?}: no message");
    }
}

#[tokio::test]
async fn binary_serves_from_env_and_exits_on_sigterm() {
    use tokio::io::AsyncBufReadExt as _;

    let pki = pki();
    let dir = tempfile::tempdir().unwrap();
    let cert = dir.path().join("tls.crt");
    let key = dir.path().join("tls.key");
    std::fs::write(&cert, &pki.cert_pem).unwrap();
    std::fs::write(&key, &pki.key_pem).unwrap();
    let mut child = command()
        .env("WEBHOOK_TLS_CERT", &cert)
        .env("WEBHOOK_TLS_KEY", &key)
        .args(["--port", "0", "--host", "127.0.0.1"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let line = timeout(WAIT, lines.next_line()).await.expect("ready in time").unwrap().expect("a line");
    let base = line.strip_prefix("listening on ").expect(&line).to_string();
    assert!(base.starts_with("https://127.0.0.1:") && !base.ends_with(":0"), "{line}");

    let client = client(&pki.ca, true, WAIT);
    let response =
        timeout(WAIT, post(&client, format!("{base}/mutate"), &review("admission.k8s.io/v1", "bin", pod(json!({})))))
            .await
            .unwrap()
            .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let answer: Value = timeout(WAIT, response.json()).await.unwrap().unwrap();
    assert_eq!(answer["response"]["uid"], "bin");

    let pid = child.id().expect("still running") as libc::pid_t;
    // Safety: a plain kill(2) of our own child.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let status = timeout(WAIT, child.wait()).await.expect("exits in time").unwrap();
    assert!(status.success(), "{status:?}");
}
