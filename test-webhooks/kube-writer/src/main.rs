//! A test admission webhook written as Rust webhooks that talk to their cluster are: it finds its
//! API server with kube-rs (`kube::Client::try_default()`: `$KUBECONFIG`, or the in-cluster
//! service account) and creates a ConfigMap in `default` while it admits each request, as webhooks
//! that provision on admission do. It allows every request.
//!
//! `kube-writer --cert FILE --key FILE --port N [--host ADDR] [--skip-on-dry-run]`: with
//! `--skip-on-dry-run` it writes nothing for a request with `dryRun: true` (what
//! `sideEffects: NoneOnDryRun` promises). It listens on `ADDR` (default `127.0.0.1`; `0.0.0.0` in
//! a container).

use std::convert::Infallible;
use std::sync::Arc;

use anyhow::{anyhow, Context as _};
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use k8s_openapi_kube::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use serde_json::{json, Value};

struct Options {
    cert: String,
    key: String,
    port: u16,
    host: String,
    skip_on_dry_run: bool,
}

fn options() -> anyhow::Result<Options> {
    let mut args = std::env::args().skip(1);
    let (mut cert, mut key, mut port, mut skip_on_dry_run) = (None, None, None, false);
    let mut host = "127.0.0.1".to_string();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--cert" => cert = args.next(),
            "--key" => key = args.next(),
            "--port" => port = args.next().map(|p| p.parse()).transpose()?,
            "--host" => host = args.next().context("--host ADDR")?,
            "--skip-on-dry-run" => skip_on_dry_run = true,
            other => return Err(anyhow!("unknown argument {other:?}")),
        }
    }
    Ok(Options {
        cert: cert.context("--cert FILE")?,
        key: key.context("--key FILE")?,
        port: port.context("--port N")?,
        host,
        skip_on_dry_run,
    })
}

fn tls(cert: &str, key: &str) -> anyhow::Result<Arc<rustls::ServerConfig>> {
    let certs = rustls_pemfile::certs(&mut std::fs::read(cert)?.as_slice()).collect::<Result<Vec<_>, _>>()?;
    let key = rustls_pemfile::private_key(&mut std::fs::read(key)?.as_slice())?.context("no private key")?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(certs, key)?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Admit `review`, creating a ConfigMap first (unless it is a dry run and those are skipped).
async fn admit(review: Value, client: &kube::Client, skip_on_dry_run: bool) -> Value {
    let request = &review["request"];
    let dry_run = request["dryRun"].as_bool().unwrap_or(false);
    if !(dry_run && skip_on_dry_run) {
        let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
        let made = serde_json::from_value::<ConfigMap>(json!({
            "metadata": {"generateName": "provisioned-"},
            "data": {"operation": request["operation"], "resource": request["resource"]["resource"]},
        }));
        match made {
            Ok(cm) => {
                if let Err(e) = configmaps.create(&PostParams::default(), &cm).await {
                    eprintln!("creating a ConfigMap: {e}");
                }
            }
            Err(e) => eprintln!("building a ConfigMap: {e}"),
        }
    }
    json!({
        "apiVersion": review["apiVersion"], "kind": "AdmissionReview",
        "response": {"uid": request["uid"], "allowed": true},
    })
}

async fn handle(
    request: Request<Incoming>,
    client: kube::Client,
    skip_on_dry_run: bool,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = request.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let (status, answer) = match serde_json::from_slice::<Value>(&body) {
        Ok(review) => (200, admit(review, &client, skip_on_dry_run).await.to_string()),
        Err(e) => (400, json!({"error": e.to_string()}).to_string()),
    };
    let mut response = Response::new(Full::new(Bytes::from(answer)));
    *response.status_mut() = hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::BAD_REQUEST);
    response
        .headers_mut()
        .insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
    Ok(response)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let opts = options()?;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = kube::Client::try_default().await.context("finding the cluster (kube::Client::try_default)")?;
    let acceptor = tokio_rustls::TlsAcceptor::from(tls(&opts.cert, &opts.key)?);
    let listener = tokio::net::TcpListener::bind((opts.host.as_str(), opts.port)).await?;
    println!("listening on https://{}:{}", opts.host, opts.port);
    loop {
        let (tcp, _) = listener.accept().await?;
        let (acceptor, client, skip) = (acceptor.clone(), client.clone(), opts.skip_on_dry_run);
        tokio::spawn(async move {
            let Ok(stream) = acceptor.accept(tcp).await else { return };
            let service = hyper::service::service_fn(move |r| handle(r, client.clone(), skip));
            let _ = auto::Builder::new(TokioExecutor::new()).serve_connection(TokioIo::new(stream), service).await;
        });
    }
}
