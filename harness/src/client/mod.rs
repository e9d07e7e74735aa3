//! The HTTPS client: calls a webhook as the kube-apiserver does (`mutating/dispatcher.go`,
//! `pkg/util/webhook/client.go`): POST with the apiserver's headers, `?timeout=Ns` on the path, the
//! webhook's `timeoutSeconds` as the deadline of the whole call, TLS trusting one CA bundle only.
//!
//! A failure of the call is a [`Transport::Failed`] value, never an error of the suite. Two things
//! the apiserver does not do, the client does so that a run ends in time: after a webhook path has
//! missed its deadline (or closed the connection unanswered) on several requests in a row it is no
//! longer called ([`breaker`]), and once the run is cancelled nothing more is sent.

mod admissions;
mod breaker;
mod handshake;
mod verify;

pub(crate) use admissions::{Admission, AdmissionLog};
pub(crate) use breaker::Unsent;
pub(crate) use handshake::{handshake, HandshakeError};
pub(crate) use verify::NameMismatch;

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper::body::Bytes;
use reqwest::Url;

use crate::admission::{AdmissionRequest, AdmissionReview};
use crate::auth::ClientIdentity;
use crate::cancel::{Cancel, INTERRUPTED};
use crate::error::{Error, InputError};
use breaker::Breaker;

/// Which HTTP versions the client offers in ALPN.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HttpVersions {
    /// HTTP/1.1 only: how the apiserver calls `service` webhooks.
    #[default]
    Http1,
    /// HTTP/2 and HTTP/1.1: how the apiserver may call a `url` webhook on loopback.
    Http2AndHttp1,
}

/// Where a webhook is reached and whom to trust.
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// Scheme, host and port (and a path, if the user gave one that overrides the manifest's).
    pub base: Url,
    /// When set, the base URL's host is resolved to this address instead of DNS: the TLS server
    /// name stays the manifest's service name while the connection goes to the local target.
    pub resolve_to: Option<SocketAddr>,
    /// The CA bundle the client trusts, PEM.
    pub ca_pem: Vec<u8>,
    /// True when the user's URL carried a path that overrides the manifest's path.
    pub path_override: bool,
    /// The host by which each webhook named here is called instead of `base`'s (the name the
    /// apiserver calls it by, its TLS server name), also resolved to `resolve_to`.
    pub hosts: BTreeMap<String, String>,
}

impl Endpoint {
    /// The URL of a call: the webhook's path (unless overridden) with `?timeout=Ns`.
    pub fn call_url(&self, webhook_path: &str, timeout_seconds: u32) -> Url {
        self.call_url_of(None, webhook_path, timeout_seconds)
    }

    /// The same endpoint with `webhook`'s host as its base (every call by that host).
    pub fn for_webhook(&self, webhook: &str) -> Endpoint {
        let mut endpoint = self.clone();
        if let Some(host) = self.hosts.get(webhook) {
            // A host that is not a valid URL host was refused when the endpoint was made.
            let _ = endpoint.base.set_host(Some(host));
        }
        endpoint
    }

    /// [`call_url`](Endpoint::call_url) of the webhook named `webhook`: by its own host when it has
    /// one in [`hosts`](Endpoint::hosts).
    pub fn call_url_of(&self, webhook: Option<&str>, webhook_path: &str, timeout_seconds: u32) -> Url {
        let mut url = self.base.clone();
        if let Some(host) = webhook.and_then(|w| self.hosts.get(w)) {
            // A host that is not a valid URL host was refused when the endpoint was made.
            let _ = url.set_host(Some(host));
        }
        if !self.path_override {
            url.set_path(webhook_path);
        }
        url.set_query(Some(&format!("timeout={timeout_seconds}s")));
        url
    }
}

/// What came back from one call.
#[derive(Clone, Debug)]
pub enum Transport {
    /// An HTTP response came back (any status).
    Answered(HttpAnswer),
    /// No complete HTTP response.
    Failed(TransportFailure),
}

#[cfg(test)]
impl Transport {
    /// An HTTP/1.1 200 answer holding an admission.k8s.io/v1 allow of `uid` with `ops` as its
    /// base64 JSON Patch.
    pub(crate) fn allow_with_patch(uid: &str, ops: &serde_json::Value) -> Transport {
        use base64::Engine as _;
        let patch = base64::engine::general_purpose::STANDARD.encode(ops.to_string());
        let body = serde_json::json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {
            "uid": uid, "allowed": true, "patchType": "JSONPatch", "patch": patch}});
        Transport::Answered(HttpAnswer {
            status: 200,
            content_type: Some("application/json".into()),
            body: body.to_string().into_bytes(),
            http_version: "HTTP/1.1".into(),
            elapsed: std::time::Duration::ZERO,
        })
    }
}

#[derive(Clone, Debug)]
/// An HTTP response as received.
pub struct HttpAnswer {
    /// The HTTP status.
    pub status: u16,
    /// The Content-Type header as sent, if any.
    pub content_type: Option<String>,
    /// The body, as sent.
    pub body: Vec<u8>,
    /// `HTTP/1.1` or `HTTP/2.0`.
    pub http_version: String,
    /// How long the call took.
    pub elapsed: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
/// Why a call got no complete answer.
pub enum FailureKind {
    /// No TCP connection (refused, unreachable).
    Connect,
    /// The TLS handshake failed: certificate not trusted or not valid for the name, protocol error.
    Tls,
    /// No complete answer within the deadline.
    Deadline,
    /// The connection was closed or reset without a complete HTTP answer.
    Closed,
    /// The listener answered the TLS handshake with plain HTTP.
    PlainHttp,
    /// Not sent: the webhook already missed its deadline on several requests in a row, or the run
    /// was cancelled.
    NotSent,
}

#[derive(Clone, Debug)]
/// A call that got no complete answer.
pub struct TransportFailure {
    /// What kind of failure.
    pub kind: FailureKind,
    /// The client's error, in words.
    pub message: String,
    /// What the apiserver's Go client reports for it, where that differs from `message`.
    pub go_error: Option<String>,
    /// How long until it failed.
    pub elapsed: Duration,
}

/// The apiserver's request headers.
pub(crate) const USER_AGENT: &str = "kube-apiserver-admission";
pub(crate) const ACCEPT: &str = "application/json, */*";
pub(crate) const CONTENT_TYPE: &str = "application/json";

/// One way of calling: an HTTPS client presenting one identity.
#[derive(Clone)]
struct Caller {
    http: reqwest::Client,
    identity: Arc<ClientIdentity>,
    /// Whether the webhook refuses this identity's TLS handshake (probed once, on the first
    /// connection closed without an answer).
    refused: Arc<tokio::sync::OnceCell<Option<rustls::AlertDescription>>>,
}

/// What a call sends: bytes, or the bytes written from a review's request.
enum Body<'a> {
    Bytes(&'a [u8]),
    Review(&'a AdmissionRequest, Vec<u8>),
}

#[derive(Clone)]
/// Calls a webhook as the apiserver does.
pub struct Client {
    endpoint: Endpoint,
    versions: HttpVersions,
    /// Anonymous, or the identity every webhook gets.
    default: Caller,
    /// The identity of each webhook that has its own.
    by_webhook: HashMap<String, Caller>,
    breaker: Arc<Breaker>,
    cancel: Cancel,
    /// What a handshake saw when the target answered TLS with something else (asked once).
    not_tls: Arc<tokio::sync::OnceCell<Option<String>>>,
    /// Where each admission request sent is noted, when someone watches what the webhook does
    /// meanwhile.
    admissions: Option<Arc<AdmissionLog>>,
    /// Where the calls and the time they took are added up, when someone asks.
    call_time: Option<Arc<CallTime>>,
}

/// The calls a client made and the time they took together, each from its sending to its answer
/// (retries included) or its failure: how long a campaign waited on the webhook per call, to set
/// beside the suite's own work per request. Calls refused before sending count neither.
#[derive(Debug, Default)]
pub struct CallTime {
    calls: AtomicU64,
    micros: AtomicU64,
}

impl CallTime {
    /// Count one call that took `elapsed`.
    fn add(&self, elapsed: Duration) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.micros.fetch_add(u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// The calls counted so far.
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    /// The time they took together.
    pub fn total(&self) -> Duration {
        Duration::from_micros(self.micros.load(Ordering::Relaxed))
    }

    /// The time a call took on average (`None` before the first).
    pub fn mean(&self) -> Option<Duration> {
        let calls = self.calls();
        (calls > 0).then(|| self.total() / u32::try_from(calls).unwrap_or(u32::MAX))
    }
}

impl TransportFailure {
    fn not_sent(why: String) -> TransportFailure {
        TransportFailure { kind: FailureKind::NotSent, message: why, go_error: None, elapsed: Duration::ZERO }
    }
}

impl Client {
    /// A client trusting only `endpoint`'s CA, anonymous to every webhook.
    pub fn new(endpoint: Endpoint, versions: HttpVersions) -> Result<Self, Error> {
        Client::with_identities(endpoint, versions, ClientIdentity::anonymous(), &[])
    }

    /// A client trusting only `endpoint`'s CA, presenting `default` to webhooks, and to each webhook
    /// named in `identities` its own identity.
    pub fn with_identities(
        endpoint: Endpoint,
        versions: HttpVersions,
        default: ClientIdentity,
        identities: &[(String, ClientIdentity)],
    ) -> Result<Self, Error> {
        let default = Caller {
            http: http_client(&endpoint, versions, &default)?,
            identity: Arc::new(default),
            refused: Arc::default(),
        };
        let mut made: Vec<Caller> = vec![default.clone()];
        let mut by_webhook = HashMap::new();
        for (webhook, identity) in identities {
            let caller = match made.iter().find(|c| *c.identity == *identity) {
                Some(c) => c.clone(),
                None => {
                    let c = Caller {
                        http: http_client(&endpoint, versions, identity)?,
                        identity: Arc::new(identity.clone()),
                        refused: Arc::default(),
                    };
                    made.push(c.clone());
                    c
                }
            };
            by_webhook.insert(webhook.clone(), caller);
        }
        Ok(Client {
            endpoint,
            versions,
            default,
            by_webhook,
            breaker: Arc::default(),
            cancel: Cancel::default(),
            not_tls: Arc::default(),
            admissions: None,
            call_time: None,
        })
    }

    /// The same client with connections of its own: its calls open new connections, driven by the
    /// runtime that makes them, while the rest stays shared with `self` (the breaker, the
    /// cancellation, each identity's probed refusal, the call time and the admission log).
    pub(crate) fn with_own_connections(&self) -> Result<Client, Error> {
        let mut made: Vec<(Arc<ClientIdentity>, reqwest::Client)> = Vec::new();
        let mut fork = |caller: &Caller| -> Result<Caller, Error> {
            let http = match made.iter().find(|(identity, _)| Arc::ptr_eq(identity, &caller.identity)) {
                Some((_, http)) => http.clone(),
                None => {
                    let http = http_client(&self.endpoint, self.versions, &caller.identity)?;
                    made.push((caller.identity.clone(), http.clone()));
                    http
                }
            };
            Ok(Caller { http, identity: caller.identity.clone(), refused: caller.refused.clone() })
        };
        let default = fork(&self.default)?;
        let mut by_webhook = HashMap::with_capacity(self.by_webhook.len());
        for (webhook, caller) in &self.by_webhook {
            by_webhook.insert(webhook.clone(), fork(caller)?);
        }
        Ok(Client { default, by_webhook, ..self.clone() })
    }

    /// The same client, adding up in `call_time` every call it sends and the time it took.
    pub fn with_call_time(mut self, call_time: Arc<CallTime>) -> Client {
        self.call_time = Some(call_time);
        self
    }

    /// The same client, noting every admission request it sends in `log`.
    pub fn with_admission_log(mut self, log: Arc<AdmissionLog>) -> Client {
        self.admissions = Some(log);
        self
    }

    /// What the client presents to `webhook`.
    pub fn identity_of(&self, webhook: &str) -> &ClientIdentity {
        &self.caller(webhook).identity
    }

    fn caller(&self, webhook: &str) -> &Caller {
        self.by_webhook.get(webhook).unwrap_or(&self.default)
    }

    /// The same client, sending nothing more once `cancel` is cancelled (a call in flight returns
    /// at once, unsent).
    pub fn with_cancel(mut self, cancel: Cancel) -> Client {
        self.cancel = cancel;
        self
    }

    /// True once the run this client serves is cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The paths to which requests were not sent (the webhook had already missed its deadline
    /// several times in a row), how many, and why.
    pub fn unsent(&self) -> Vec<Unsent> {
        self.breaker.unsent()
    }

    /// Where it calls.
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// POST `body` to the webhook at `path` with the default identity; the whole call has
    /// `timeout_seconds` to complete.
    pub async fn call(&self, path: &str, timeout_seconds: u32, body: &[u8]) -> Transport {
        self.call_counted(path, timeout_seconds, body, true).await
    }

    /// [`call`](Client::call) as the apiserver calls `webhook`: with the identity it presents to it.
    pub async fn call_as(&self, webhook: &str, path: &str, timeout_seconds: u32, body: &[u8]) -> Transport {
        self.call_by(Some(webhook), path, timeout_seconds, Body::Bytes(body), true).await
    }

    /// [`call_counted`](Client::call_counted) as the apiserver calls `webhook`.
    pub async fn call_counted_as(
        &self,
        webhook: &str,
        path: &str,
        timeout_seconds: u32,
        body: &[u8],
        counts: bool,
    ) -> Transport {
        self.call_by(Some(webhook), path, timeout_seconds, Body::Bytes(body), counts).await
    }

    /// [`call_counted_as`](Client::call_counted_as) of `review`'s bytes
    /// ([`AdmissionReview::to_bytes`]); the admission log notes the request they were written
    /// from rather than reading them back.
    pub(crate) async fn call_review_as(
        &self,
        webhook: &str,
        path: &str,
        timeout_seconds: u32,
        review: &AdmissionReview,
        counts: bool,
    ) -> Transport {
        let body = review.to_bytes();
        self.call_by(Some(webhook), path, timeout_seconds, Body::Review(&review.request, body), counts).await
    }

    /// [`call`](Client::call), saying whether a missed deadline of this request counts towards no
    /// longer calling the path: only those of requests whose breach FAILs (the version a cluster
    /// sends) do, so that the verdict is known when the path is given up.
    pub async fn call_counted(&self, path: &str, timeout_seconds: u32, body: &[u8], counts: bool) -> Transport {
        self.call_by(None, path, timeout_seconds, Body::Bytes(body), counts).await
    }

    /// Call as the apiserver calls `webhook` (its identity and host), or by default.
    async fn call_by(
        &self,
        webhook: Option<&str>,
        path: &str,
        timeout_seconds: u32,
        body: Body<'_>,
        counts: bool,
    ) -> Transport {
        if self.cancel.is_cancelled() {
            return Transport::Failed(TransportFailure::not_sent(INTERRUPTED.into()));
        }
        let call = async {
            let admitted = match self.breaker.admit(path, counts).await {
                Ok(admitted) => admitted,
                Err(why) => return Transport::Failed(TransportFailure::not_sent(why)),
            };
            let in_flight = self.admissions.as_ref().and_then(|log| match &body {
                Body::Bytes(bytes) => log.begin(webhook, path, bytes),
                Body::Review(request, _) => Some(log.begin_request(webhook, path, request)),
            });
            // Held once; each attempt sends it without a copy.
            let bytes = match body {
                Body::Bytes(bytes) => Bytes::copy_from_slice(bytes),
                Body::Review(_, written) => Bytes::from(written),
            };
            let transport = self.send(webhook, path, timeout_seconds, &bytes).await;
            drop(in_flight);
            admitted.record(&transport, timeout_seconds);
            if let Some(call_time) = &self.call_time {
                call_time.add(match &transport {
                    Transport::Answered(answer) => answer.elapsed,
                    Transport::Failed(failure) => failure.elapsed,
                });
            }
            transport
        };
        tokio::select! {
            transport = call => transport,
            _ = self.cancel.cancelled() => Transport::Failed(TransportFailure::not_sent(INTERRUPTED.into())),
        }
    }

    async fn send(&self, webhook: Option<&str>, path: &str, timeout_seconds: u32, body: &Bytes) -> Transport {
        let caller = webhook.map_or(&self.default, |w| self.caller(w));
        let identity = &caller.identity;
        let url = self.endpoint.call_url_of(webhook, path, timeout_seconds);
        let deadline = Duration::from_secs(u64::from(timeout_seconds));
        let start = Instant::now();
        let attempt = async {
            let mut retries = 0;
            loop {
                let mut request = caller
                    .http
                    .post(url.clone())
                    .header(reqwest::header::CONTENT_TYPE, CONTENT_TYPE)
                    .header(reqwest::header::ACCEPT, ACCEPT);
                if let Some(authorization) = identity.authorization() {
                    request = request.header(reqwest::header::AUTHORIZATION, authorization);
                }
                for (name, value) in &identity.impersonate {
                    request = request.header(name.as_str(), value.as_str());
                }
                let response = request.body(body.clone()).send().await?;
                let status = response.status().as_u16();
                let retry_after = retry_after_seconds(status, response.headers());
                let http_version = format!("{:?}", response.version());
                let content_type = response
                    .headers()
                    .get(reqwest::header::CONTENT_TYPE)
                    .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
                let body = response.bytes().await?.to_vec();
                let answer = HttpAnswer { status, content_type, body, http_version, elapsed: Duration::ZERO };
                // As client-go does: a 429 or 5xx carrying Retry-After is tried again after that many
                // seconds, at most 10 times, within the call's deadline.
                match retry_after {
                    Some(wait) if retries < MAX_RETRIES && start.elapsed() + wait < deadline => {
                        retries += 1;
                        tokio::time::sleep(wait).await;
                    }
                    _ => return Ok::<_, reqwest::Error>(answer),
                }
            }
        };
        match tokio::time::timeout(deadline, attempt).await {
            Ok(Ok(mut answer)) => {
                answer.elapsed = start.elapsed();
                Transport::Answered(answer)
            }
            Ok(Err(e)) => {
                let mut failure = classify(&e, start.elapsed(), timeout_seconds, identity);
                // A connection the server closes after refusing the client's certificate (TLS 1.3
                // sends the alert after the client's Finished) reaches the requests waiting on it
                // as a closed connection: one cause, the refused handshake, reported once.
                if failure.kind == FailureKind::Closed {
                    if let Some(alert) = self.refusal(caller, webhook).await {
                        failure = refused(
                            alert,
                            identity,
                            format_args!("; this request waited on a connection the webhook closed after that alert"),
                            failure.elapsed,
                        );
                    }
                }
                let handshake_failed = matches!(failure.kind, FailureKind::Tls | FailureKind::Connect);
                if handshake_failed && (not_a_tls_record(&e) || failure.message.contains("corrupt message")) {
                    if let Some(what) = self.what_answers_instead_of_tls().await {
                        failure.kind =
                            if what.contains("speaks HTTP") { FailureKind::PlainHttp } else { FailureKind::Tls };
                        failure.message = what;
                    }
                }
                Transport::Failed(failure)
            }
            Err(_) => Transport::Failed(TransportFailure {
                go_error: None,
                kind: FailureKind::Deadline,
                message: format!("no answer within timeoutSeconds={timeout_seconds} (context deadline exceeded)"),
                elapsed: start.elapsed(),
            }),
        }
    }

    /// Whether the webhook refuses `caller`'s identity in the TLS handshake (asked once per caller),
    /// shaking hands by the name `webhook` is called by.
    async fn refusal(&self, caller: &Caller, webhook: Option<&str>) -> Option<rustls::AlertDescription> {
        *caller
            .refused
            .get_or_init(|| async {
                let addr = self.address().await?;
                let config = tls_config(&self.endpoint.ca_pem, &caller.identity).ok()?;
                let endpoint = webhook.map_or_else(|| self.endpoint.clone(), |w| self.endpoint.for_webhook(w));
                handshake::refused_identity(&endpoint, addr, config, Duration::from_secs(2)).await
            })
            .await
    }

    /// The address calls connect to.
    async fn address(&self) -> Option<std::net::SocketAddr> {
        match self.endpoint.resolve_to {
            Some(addr) => Some(addr),
            None => {
                let host = self.endpoint.base.host_str()?.trim_matches(['[', ']']).to_string();
                let port = self.endpoint.base.port_or_known_default()?;
                tokio::net::lookup_host((host, port)).await.ok()?.next()
            }
        }
    }

    /// One handshake of our own, to see what the target sends instead of TLS (asked once per client).
    async fn what_answers_instead_of_tls(&self) -> Option<String> {
        self.not_tls
            .get_or_init(|| async {
                let addr = match self.endpoint.resolve_to {
                    Some(addr) => addr,
                    None => {
                        let host = self.endpoint.base.host_str()?.trim_matches(['[', ']']).to_string();
                        let port = self.endpoint.base.port_or_known_default()?;
                        tokio::net::lookup_host((host, port)).await.ok()?.next()?
                    }
                };
                match handshake(&self.endpoint, addr, Duration::from_secs(5)).await {
                    Err(HandshakeError::NotTls(what)) => Some(what),
                    _ => None,
                }
            })
            .await
            .clone()
    }
}

/// A rustls client config trusting only `ca_pem`, presenting `identity`'s certificate if it has one.
fn tls_config(ca_pem: &[u8], identity: &ClientIdentity) -> Result<rustls::ClientConfig, Error> {
    let builder = verify::verifying(ca_pem).map_err(|e| Error::tls("reading the CA bundle to trust", e))?;
    Ok(match &identity.certificate {
        None => builder.with_no_client_auth(),
        Some((cert, key)) => {
            let what = |e: InputError| Error::input(format!("the client certificate of {}", identity.source), e);
            let certs =
                crate::tls::parse_certificates(cert.as_bytes()).map_err(|e| what(InputError::Invalid(Box::new(e))))?;
            let key = rustls_pemfile::private_key(&mut key.as_bytes())
                .map_err(|e| what(InputError::Read(e)))?
                .ok_or_else(|| what(InputError::NoPrivateKey))?;
            builder.with_client_auth_cert(certs, key).map_err(|e| what(InputError::Invalid(Box::new(e))))?
        }
    })
}

/// The TLS of a call to a webhook as a recording proxy makes it: trusting only `ca_pem`,
/// presenting `identity`'s certificate, HTTP/1.1.
pub(crate) fn upstream_tls(ca_pem: &[u8], identity: &ClientIdentity) -> Result<rustls::ClientConfig, Error> {
    let mut tls = tls_config(ca_pem, identity)?;
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(tls)
}

/// An HTTPS client for `endpoint` presenting `identity`.
fn http_client(
    endpoint: &Endpoint,
    versions: HttpVersions,
    identity: &ClientIdentity,
) -> Result<reqwest::Client, Error> {
    let mut tls = tls_config(&endpoint.ca_pem, identity)?;
    tls.alpn_protocols = match versions {
        HttpVersions::Http1 => vec![b"http/1.1".to_vec()],
        HttpVersions::Http2AndHttp1 => vec![b"h2".to_vec(), b"http/1.1".to_vec()],
    };
    let mut builder = reqwest::Client::builder()
        .use_preconfigured_tls(tls)
        .user_agent(USER_AGENT)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .connect_timeout(Duration::from_secs(10))
        .pool_max_idle_per_host(16);
    if versions == HttpVersions::Http1 {
        builder = builder.http1_only();
    }
    if let Some(addr) = endpoint.resolve_to {
        let hosts = endpoint.base.host_str().into_iter().chain(endpoint.hosts.values().map(String::as_str));
        for host in hosts {
            builder = builder.resolve(host, addr);
        }
    }
    builder.build().map_err(|e| Error::setup("the HTTPS client", e))
}

/// True when the TLS error is rustls finding a record that is not TLS at all.
fn not_a_tls_record(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        let rustls_error = s.downcast_ref::<rustls::Error>().or_else(|| {
            s.downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
                .and_then(|i| i.downcast_ref::<rustls::Error>())
        });
        if let Some(rustls::Error::InvalidMessage(_)) = rustls_error {
            return true;
        }
        source = s.source();
    }
    false
}

/// client-go's retry limit for a request.
const MAX_RETRIES: u32 = 10;

/// The wait a 429 or 5xx answer asks for with `Retry-After: <seconds>` (client-go `checkWait`).
fn retry_after_seconds(status: u16, headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    if status != 429 && status < 500 {
        return None;
    }
    let seconds: u64 = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?.trim().parse().ok()?;
    Some(Duration::from_secs(seconds))
}

fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

/// The rustls error in `e`'s chain, if any.
pub(crate) fn rustls_error(e: &(dyn std::error::Error + 'static)) -> Option<rustls::Error> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(r) = s.downcast_ref::<rustls::Error>() {
            return Some(r.clone());
        }
        // An io::Error hides the error it wraps from `source()`; the connector may wrap it twice.
        let mut io = s.downcast_ref::<std::io::Error>();
        while let Some(inner) = io.and_then(std::io::Error::get_ref) {
            if let Some(r) = inner.downcast_ref::<rustls::Error>() {
                return Some(r.clone());
            }
            io = inner.downcast_ref::<std::io::Error>();
        }
        source = s.source();
    }
    None
}

/// A fatal alert by which a server refuses the client's certificate (or the lack of one).
pub(crate) fn refuses_client_certificate(e: &rustls::Error) -> Option<rustls::AlertDescription> {
    use rustls::AlertDescription as A;
    match e {
        rustls::Error::AlertReceived(
            a @ (A::CertificateRequired | A::BadCertificate | A::UnknownCA | A::CertificateUnknown | A::AccessDenied),
        ) => Some(*a),
        _ => None,
    }
}

/// Go's crypto/tls error for a fatal alert the server sent.
fn go_alert(alert: rustls::AlertDescription) -> String {
    use rustls::AlertDescription as A;
    let text = match alert {
        A::CertificateRequired => "certificate required".to_string(),
        A::BadCertificate => "bad certificate".to_string(),
        A::UnknownCA => "unknown certificate authority".to_string(),
        A::CertificateUnknown => "certificate unknown".to_string(),
        A::AccessDenied => "access denied".to_string(),
        A::DecryptError => "error decrypting message".to_string(),
        other => format!("{other:?}"),
    };
    format!("remote error: tls: {text}")
}

/// What a refused client identity means, in words.
fn client_certificate_refused(alert: rustls::AlertDescription, identity: &ClientIdentity) -> String {
    if identity.certificate.is_none() {
        format!(
            "the webhook refused the connection with TLS alert {alert:?}: it demands a client certificate, and none was presented (an apiserver without webhook credentials presents none: give one with --client-cert/--client-key, --client-cert generated or --admission-config)"
        )
    } else {
        format!(
            "the webhook refused the client certificate presented ({}) with TLS alert {alert:?}: it does not trust it",
            identity.source
        )
    }
}

/// The failure of a call whose TLS handshake the server refused with `alert`, the refusal followed
/// by `then`: the error the call got (`: …`), or, for a call that waited on a connection the server
/// closed after refusing it, that wait, without the closed connection's own error (hyper's
/// "connection was not ready", an EOF), which names a symptom rather than the cause.
fn refused(
    alert: rustls::AlertDescription,
    identity: &ClientIdentity,
    then: std::fmt::Arguments<'_>,
    elapsed: Duration,
) -> TransportFailure {
    let message = format!("{}{then}", client_certificate_refused(alert, identity));
    TransportFailure { kind: FailureKind::Tls, message, go_error: Some(go_alert(alert)), elapsed }
}

fn classify(
    e: &reqwest::Error,
    elapsed: Duration,
    timeout_seconds: u32,
    identity: &ClientIdentity,
) -> TransportFailure {
    let tls = rustls_error(e);
    if let Some(mismatch) = tls.as_ref().and_then(verify::name_mismatch) {
        return TransportFailure {
            kind: FailureKind::Tls,
            message: mismatch.to_string(),
            go_error: Some(mismatch.go_error()),
            elapsed,
        };
    }
    // A server that cannot verify the signature on a presented certificate (a CA of the same name
    // that did not sign it) answers decrypt_error.
    let refusal = tls.as_ref().and_then(refuses_client_certificate).or(match &tls {
        Some(rustls::Error::AlertReceived(a @ rustls::AlertDescription::DecryptError))
            if identity.certificate.is_some() =>
        {
            Some(*a)
        }
        _ => None,
    });
    if let Some(alert) = refusal {
        return refused(alert, identity, format_args!(": {}", error_chain(e)), elapsed);
    }
    let message = error_chain(e);
    let kind = if e.is_timeout() {
        FailureKind::Deadline
    } else if tls.is_some() {
        FailureKind::Tls
    } else if e.is_connect() {
        FailureKind::Connect
    } else {
        FailureKind::Closed
    };
    let message = if kind == FailureKind::Deadline {
        format!("no answer within timeoutSeconds={timeout_seconds} (context deadline exceeded): {message}")
    } else {
        message
    };
    TransportFailure { kind, message, go_error: None, elapsed }
}
