//! HTTPS serving of the recording API: TLS with the recorder's own certificate, HTTP/1.1 and HTTP/2
//! (hyper-util's auto builder), the bearer token checked on every call (401 `Status` without it),
//! bodies read up to the apiserver's 3 MiB limit (413 beyond), every call recorded.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::{Body, Bytes, Frame, Incoming};
use hyper::header::{HeaderValue, AUTHORIZATION, CONTENT_TYPE};
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;

use super::record::{uuids, ApiCall, Recording, BODY_LIMIT};
use super::store::{self, Answer, Call, Store};

/// The largest body read (the apiserver's `MaxRequestBodyBytes`, 3 MiB).
const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;
/// How long a client may take to finish the TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long an HTTP/1 client may take to send a request's headers.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a body may take to arrive.
const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a watch without `timeoutSeconds` stays open (the run's end closes it before).
const WATCH_LIMIT: Duration = Duration::from_secs(300);

type ResponseBody = BoxBody<Bytes, Infallible>;

/// What every connection shares.
pub(super) struct Shared {
    pub token: String,
    pub store: Mutex<Store>,
    pub recording: Arc<Recording>,
}

/// Accept connections on `listener` until the task running this is aborted (which also ends every
/// open connection).
pub(super) async fn serve(listener: TcpListener, tls: Arc<rustls::ServerConfig>, shared: Arc<Shared>) {
    let acceptor = TlsAcceptor::from(tls);
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => {
                    connections.spawn(serve_connection(acceptor.clone(), tcp, shared.clone()));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

async fn serve_connection(acceptor: TlsAcceptor, tcp: TcpStream, shared: Arc<Shared>) {
    let _ = tcp.set_nodelay(true);
    let Ok(Ok(stream)) = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await else { return };
    let service = hyper::service::service_fn(move |request| handle(request, shared.clone()));
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
    let _ = builder.serve_connection(TokioIo::new(stream), service).await;
}

fn bearer_matches(request: &Request<Incoming>, token: &str) -> bool {
    let Some(value) = request.headers().get(AUTHORIZATION).and_then(|v| v.to_str().ok()) else { return false };
    let Some((scheme, given)) = value.split_once(' ') else { return false };
    // Compared in full whatever the first difference, as the apiserver's token file authenticator does.
    scheme.eq_ignore_ascii_case("bearer")
        && given.trim().len() == token.len()
        && given.trim().bytes().zip(token.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

async fn handle(request: Request<Incoming>, shared: Arc<Shared>) -> Result<Response<ResponseBody>, Infallible> {
    let at = Instant::now();
    let method = request.method().as_str().to_string();
    let path = request.uri().path().to_string();
    let query = request.uri().query().unwrap_or_default().to_string();
    let content_type =
        request.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
    let authenticated = bearer_matches(&request, &shared.token);
    let mut uid_sources = format!("{path} {query}");
    for (name, value) in request.headers() {
        if name != AUTHORIZATION {
            uid_sources.push(' ');
            uid_sources.push_str(&String::from_utf8_lossy(value.as_bytes()));
        }
    }
    let read = tokio::time::timeout(BODY_READ_TIMEOUT, Limited::new(request.into_body(), MAX_BODY_BYTES).collect());
    let body = match read.await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => {
            Err(store::status(413, "RequestEntityTooLarge", "the request entity is too large", None))
        }
        _ => Err(store::status(400, "BadRequest", "the body of the request could not be read", None)),
    };
    let bytes = body.as_ref().ok().cloned().unwrap_or_default();
    uid_sources.push(' ');
    uid_sources.push_str(&String::from_utf8_lossy(&bytes));
    let answer = if !authenticated {
        store::status(401, "Unauthorized", "Unauthorized", None)
    } else {
        match body {
            Err(refusal) => refusal,
            Ok(bytes) => {
                let call =
                    Call { method: &method, path: &path, query: &query, content_type: &content_type, body: &bytes };
                shared.store.lock().unwrap_or_else(|e| e.into_inner()).answer(&call)
            }
        }
    };
    let kept = &bytes[..bytes.len().min(BODY_LIMIT)];
    shared.recording.push(ApiCall {
        at,
        dry_run: store::dry_run(&query).unwrap_or(false),
        status: answer.status(),
        method,
        path,
        query,
        body: String::from_utf8_lossy(kept).into_owned(),
        authenticated,
        uids: uuids(&uid_sources),
    });
    Ok(respond(answer))
}

fn respond(answer: Answer) -> Response<ResponseBody> {
    let (status, content_type, body): (u16, &str, ResponseBody) = match answer {
        Answer::Json { status, body } => {
            let bytes = serde_json::to_vec(&body).unwrap_or_default();
            (status, "application/json", Full::new(Bytes::from(bytes)).boxed())
        }
        Answer::Text { status, body } => (status, "text/plain; charset=utf-8", Full::new(Bytes::from(body)).boxed()),
        Answer::Watch { events, timeout_seconds } => {
            let limit = timeout_seconds.map_or(WATCH_LIMIT, |s| Duration::from_secs(s).min(WATCH_LIMIT));
            let frames = events
                .into_iter()
                .map(|e| {
                    let mut line = serde_json::to_vec(&e).unwrap_or_default();
                    line.push(b'\n');
                    Bytes::from(line)
                })
                .collect();
            let body = WatchBody { frames, until: Box::pin(tokio::time::sleep(limit)) };
            (200, "application/json", body.boxed())
        }
    };
    let mut response = Response::new(body);
    *response.status_mut() = hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// A watch's body: its first events, then open until its deadline.
struct WatchBody {
    frames: std::collections::VecDeque<Bytes>,
    until: Pin<Box<tokio::time::Sleep>>,
}

impl Body for WatchBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if let Some(frame) = self.frames.pop_front() {
            return Poll::Ready(Some(Ok(Frame::data(frame))));
        }
        match self.until.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}
