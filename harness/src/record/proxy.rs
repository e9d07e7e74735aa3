//! The recording proxy: it serves HTTPS where the webhook's Service points, forwards each request
//! to the webhook unchanged (method, path, query, headers but the hop-by-hop ones, body) over TLS
//! verified with the webhook's CA, and hands back the webhook's answer as it came (status, headers,
//! body byte for byte, errors included). Each AdmissionReview it forwarded is then recorded by a
//! writer thread, after the answer left, so a slow disk never delays an admission.
//!
//! Every wait is bounded: the TLS handshake of a caller, the read of a request, the call to the
//! webhook (its deadline the `timeout` the apiserver puts in the query, capped by the proxy's own).
//! A call that fails (the webhook unreachable, no answer in time) gets a 502 whose body says why,
//! which the apiserver treats as it treats a failed call: by the webhook's failurePolicy.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
pub use reqwest::Url;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;

use super::{Answer, Outcome, Recorded, Recorder};
use crate::auth::ClientIdentity;
use crate::error::{Error, OptionError, TargetError};

/// The largest request body forwarded (the apiserver's own limit on a request is 3 MiB; an
/// AdmissionReview holds the object twice).
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;
/// How long a caller may take to finish the TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long an HTTP/1 caller may take to send a request's headers.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the proxy waits to connect to the webhook.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest a webhook may take by the apiserver's rules (`timeoutSeconds` is at most 30).
pub const MAX_DEADLINE: Duration = Duration::from_secs(30);

/// Headers that belong to one connection, never forwarded (RFC 9110 7.6.1), and the ones the
/// client sets itself.
const NOT_FORWARDED: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

/// Where the proxy listens and whom it calls.
pub struct ProxyConfig {
    /// The address to listen on.
    pub listen: SocketAddr,
    /// The webhook: `https://host:port`; each request's path and query are kept.
    pub upstream: Url,
    /// The CA bundle (PEM) the webhook's certificate must chain to.
    pub upstream_ca_pem: Vec<u8>,
    /// The client certificate (and token) the proxy presents to the webhook.
    pub identity: ClientIdentity,
    /// The certificate the proxy serves.
    pub serving: Arc<rustls::ServerConfig>,
    /// The longest a call to the webhook may take.
    pub deadline: Duration,
}

/// The serving config of a certificate chain and key (PEM), offering HTTP/2 and HTTP/1.1.
pub fn serving_config(cert_pem: &[u8], key_pem: &[u8]) -> Result<Arc<rustls::ServerConfig>, Error> {
    let certs = crate::tls::parse_certificates(cert_pem)?;
    let key = rustls_pemfile::private_key(&mut &key_pem[..])
        .map_err(|e| Error::tls("the serving key", e))?
        .ok_or_else(|| Error::Tls { what: "the serving key: no PEM private key found".into(), source: None })?;
    let mut config = rustls::ServerConfig::builder_with_provider(crate::tls::provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::tls("", e))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| Error::tls("the serving certificate and key", e))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

struct Upstream {
    base: Url,
    http: reqwest::Client,
    token: Option<String>,
    deadline: Duration,
    sink: std::sync::mpsc::Sender<(String, Bytes, Answer)>,
}

/// A running proxy; [`stop`](RunningProxy::stop) it to get the recorder back with everything
/// written.
pub struct RunningProxy {
    /// The address it listens on.
    pub addr: SocketAddr,
    server: tokio::task::JoinHandle<()>,
    writer: Option<std::thread::JoinHandle<Recorder>>,
}

impl RunningProxy {
    /// Stop serving, let the writer record what it was handed, and return the recorder.
    pub async fn stop(mut self) -> Recorder {
        self.server.abort();
        let _ = (&mut self.server).await;
        let writer = self.writer.take().expect("a running proxy has its writer");
        tokio::task::spawn_blocking(move || writer.join().expect("the case writer does not panic"))
            .await
            .expect("joining the case writer")
    }
}

impl Drop for RunningProxy {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// Check that the webhook answers a TLS handshake with a certificate the CA vouches for, within a
/// deadline; what fails is said with the URL.
async fn probe(base: &Url, tls: rustls::ClientConfig) -> Result<(), Error> {
    let what = format!("--to {base}");
    let host = base.host_str().ok_or_else(|| Error::target(what.clone(), TargetError::NoHost))?;
    let port = base.port_or_known_default().unwrap_or(443);
    let name = rustls::pki_types::ServerName::try_from(host.trim_matches(['[', ']']).to_string())
        .map_err(|e| Error::target(what.clone(), TargetError::Url(e.into())))?;
    let connect = async {
        let tcp = tokio::net::TcpStream::connect((host.trim_matches(['[', ']']), port)).await?;
        tokio_rustls::TlsConnector::from(Arc::new(tls)).connect(name, tcp).await.map(|_| ())
    };
    match tokio::time::timeout(CONNECT_TIMEOUT, connect).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(Error::target(what, TargetError::Tls(e))),
        Err(_) => Err(Error::target(what, TargetError::HandshakeTimeout { seconds: CONNECT_TIMEOUT.as_secs() })),
    }
}

/// Start the proxy: check the webhook answers, listen, and record into `recorder`; `on_outcome`
/// hears of each request recorded (on the writer thread).
pub async fn start(
    config: ProxyConfig,
    mut recorder: Recorder,
    mut on_outcome: impl FnMut(&Result<Outcome, Error>) + Send + 'static,
) -> Result<RunningProxy, Error> {
    if config.upstream.scheme() != "https" {
        return Err(Error::target(format!("--to {}", config.upstream), TargetError::NotHttps));
    }
    let tls = crate::client::upstream_tls(&config.upstream_ca_pem, &config.identity)?;
    probe(&config.upstream, tls.clone()).await?;
    let http = reqwest::Client::builder()
        .use_preconfigured_tls(tls)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .no_gzip()
        .http1_only()
        .connect_timeout(CONNECT_TIMEOUT)
        .pool_max_idle_per_host(16)
        .build()
        .map_err(|e| Error::setup("the HTTPS client", e))?;
    let listener = TcpListener::bind(config.listen)
        .await
        .map_err(|source| OptionError::Listen { addr: config.listen.to_string(), source })?;
    let addr = listener.local_addr().map_err(|e| Error::setup("", e))?;
    let (sink, queue) = std::sync::mpsc::channel::<(String, Bytes, Answer)>();
    let writer = std::thread::Builder::new()
        .name("record-writer".into())
        .spawn(move || {
            for (path, body, answer) in queue {
                let Some(request) = serde_json::from_slice::<serde_json::Value>(&body)
                    .ok()
                    .and_then(|review| review.get("request").cloned())
                    .filter(|r| r.is_object())
                else {
                    let why = format!("POST {path} (HTTP {}): not an AdmissionReview with a request", answer.status);
                    on_outcome(&Ok(recorder.unusable(why)));
                    continue;
                };
                let webhook = recorder.webhook_at(&path);
                let source = format!("POST {path} through the recording proxy (HTTP {})", answer.status);
                let outcome = recorder.record(Recorded { request, webhook, answer: Some(answer), source });
                on_outcome(&outcome);
            }
            recorder
        })
        .map_err(|e| Error::setup("the case writer", e))?;
    let token = config.identity.bearer_token.clone();
    let upstream = Arc::new(Upstream { base: config.upstream, http, token, deadline: config.deadline, sink });
    let acceptor = TlsAcceptor::from(config.serving);
    let server = tokio::spawn(async move {
        let mut connections = JoinSet::new();
        loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((tcp, _)) => {
                        let (acceptor, upstream) = (acceptor.clone(), upstream.clone());
                        connections.spawn(async move {
                            let Ok(Ok(tls)) = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await else {
                                return;
                            };
                            let service = hyper::service::service_fn(move |req| forward(upstream.clone(), req));
                            let mut builder = auto::Builder::new(TokioExecutor::new());
                            builder.http1().timer(TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
                            let _ = builder.serve_connection(TokioIo::new(tls), service).await;
                        });
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                },
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
            }
        }
    });
    Ok(RunningProxy { addr, server, writer: Some(writer) })
}

/// The `timeout` the apiserver puts in a webhook call's query (`?timeout=10s`), in whole seconds.
fn query_timeout(url: &Url) -> Option<Duration> {
    let (_, v) = url.query_pairs().find(|(k, _)| k == "timeout")?;
    v.strip_suffix('s')?.parse::<u64>().ok().map(Duration::from_secs)
}

/// An error and its sources, `: `-separated.
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

fn text_response(status: StatusCode, text: String) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(text)));
    *r.status_mut() = status;
    r.headers_mut().insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("text/plain"));
    r
}

async fn forward(upstream: Arc<Upstream>, req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = req.into_parts();
    let body = match Limited::new(body, MAX_BODY_BYTES).collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => return Ok(text_response(StatusCode::PAYLOAD_TOO_LARGE, format!("reading the request: {e}"))),
    };
    let path_and_query = parts.uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let Ok(url) = upstream.base.join(path_and_query) else {
        return Ok(text_response(StatusCode::BAD_REQUEST, format!("{path_and_query}: not a path")));
    };
    let deadline = query_timeout(&url).map_or(upstream.deadline, |t| t.min(upstream.deadline));
    let mut call = upstream.http.request(parts.method.clone(), url.clone()).timeout(deadline).body(body.clone());
    for (name, value) in &parts.headers {
        let replaced = upstream.token.is_some() && name == hyper::header::AUTHORIZATION;
        if !NOT_FORWARDED.contains(&name.as_str()) && !replaced {
            call = call.header(name, value);
        }
    }
    if let Some(token) = &upstream.token {
        call = call.bearer_auth(token);
    }
    let sent = async {
        let answer = call.send().await?;
        let status = answer.status();
        let headers = answer.headers().clone();
        let bytes = answer.bytes().await?;
        Ok::<_, reqwest::Error>((status, headers, bytes))
    };
    let (response, answer) = match sent.await {
        Ok((status, headers, bytes)) => {
            let mut r = Response::new(Full::new(bytes.clone()));
            *r.status_mut() = status;
            for (name, value) in &headers {
                if !NOT_FORWARDED.contains(&name.as_str()) {
                    r.headers_mut().append(name, value.clone());
                }
            }
            let answer =
                Answer { status: status.as_u16(), body: String::from_utf8_lossy(&bytes).into_owned(), error: None };
            (r, answer)
        }
        Err(e) => {
            let why = if e.is_timeout() {
                format!("calling {url}: no answer within {} s", deadline.as_secs_f64())
            } else {
                format!("calling {url}: {}", error_chain(&e))
            };
            let answer = Answer { status: 502, body: String::new(), error: Some(why.clone()) };
            (text_response(StatusCode::BAD_GATEWAY, why), answer)
        }
    };
    if parts.method == hyper::Method::POST {
        let _ = upstream.sink.send((parts.uri.path().to_string(), body, answer));
    }
    Ok(response)
}
