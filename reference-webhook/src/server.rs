//! HTTPS serving: TLS accept, HTTP/1.1 and HTTP/2 (hyper-util's auto builder), routing.

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, ALLOW, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;

use crate::defect::Defect;
use crate::review::{self, Action, Endpoint, Reply};
use crate::{Options, Style};

/// The largest request body read; a larger one gets 413.
pub const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;
/// How long a client may take to finish the TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long an HTTP/1 client may take to send a request's headers.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The TLS config actually served: the given one, or under `untrusted-cert` a fresh self-signed one.
pub fn effective_tls(tls: Arc<rustls::ServerConfig>, opts: Options) -> anyhow::Result<Arc<rustls::ServerConfig>> {
    if opts.defect == Some(Defect::UntrustedCert) {
        crate::tls::self_signed_config()
    } else {
        Ok(tls)
    }
}

/// Serves the webhook on `listener` with `tls` (already passed through [`effective_tls`]) until
/// the task running it is aborted (dropping it also ends every open connection).
pub async fn serve_prepared(
    listener: TcpListener,
    tls: Arc<rustls::ServerConfig>,
    opts: Options,
) -> anyhow::Result<()> {
    serve_prepared_styled(listener, tls, opts, Style::default()).await
}

/// [`serve_prepared`], writing mutations in a harmless [`Style`].
pub async fn serve_prepared_styled(
    listener: TcpListener,
    tls: Arc<rustls::ServerConfig>,
    opts: Options,
    style: Style,
) -> anyhow::Result<()> {
    serve_prepared_paced(listener, tls, opts, style, Duration::ZERO).await
}

/// [`serve_prepared_styled`], answering every request only after `delay` (a slow webhook, for
/// exercising a client's deadlines and patience).
pub async fn serve_prepared_paced(
    listener: TcpListener,
    tls: Arc<rustls::ServerConfig>,
    opts: Options,
    style: Style,
    delay: Duration,
) -> anyhow::Result<()> {
    let acceptor = TlsAcceptor::from(tls);
    let defect = opts.defect;
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, _peer)) => {
                    connections.spawn(serve_connection(acceptor.clone(), tcp, defect, style, delay));
                }
                Err(_) => {
                    // Out of file descriptors or a connection reset before accept: back off a
                    // little instead of spinning.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

async fn serve_connection(
    acceptor: TlsAcceptor,
    tcp: TcpStream,
    defect: Option<Defect>,
    style: Style,
    delay: Duration,
) {
    let _ = tcp.set_nodelay(true);
    let stream = match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await {
        Ok(Ok(stream)) => stream,
        _ => return,
    };
    // Rung by a request under `close-connection` (and by any request after the first under
    // `close-after-answer`): the connection is then dropped unanswered.
    let close = Arc::new(Notify::new());
    let served = Arc::new(AtomicUsize::new(0));
    let service = {
        let close = close.clone();
        hyper::service::service_fn(move |request| {
            let earlier = served.fetch_add(1, Ordering::Relaxed);
            let defect = match defect {
                Some(Defect::CloseAfterAnswer) if earlier > 0 => Some(Defect::CloseConnection),
                other => other,
            };
            handle_request(request, defect, style, delay, close.clone())
        })
    };
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        _ = connection => {}
        _ = close.notified() => {}
    }
}

fn reply_to_response(reply: Reply) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(reply.body)));
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(reply.content_type));
    response
}

fn text(status: u16, text: &str) -> Response<Full<Bytes>> {
    reply_to_response(Reply {
        status,
        content_type: "text/plain; charset=utf-8",
        body: format!("{text}\n").into_bytes(),
    })
}

/// The deadline a request states with `?timeout=Ns` (the apiserver's remaining time), if any.
fn stated_timeout(query: Option<&str>) -> Option<Duration> {
    let value = query?.split('&').find_map(|pair| pair.strip_prefix("timeout="))?;
    value.strip_suffix('s')?.parse().ok().map(Duration::from_secs)
}

async fn handle_request(
    request: Request<Incoming>,
    defect: Option<Defect>,
    style: Style,
    delay: Duration,
    close: Arc<Notify>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let deadline = stated_timeout(request.uri().query()).unwrap_or(Duration::from_secs(30));
    let Some(endpoint) = Endpoint::from_path(request.uri().path()) else {
        return Ok(text(404, "not found: POST to /mutate or /validate"));
    };
    if request.method() != Method::POST {
        let mut response = text(405, "method not allowed: use POST");
        response.headers_mut().insert(ALLOW, HeaderValue::from_static("POST"));
        return Ok(response);
    }
    let content_type = match request.headers().get(CONTENT_TYPE).map(|v| v.to_str()) {
        None => None,
        Some(Ok(value)) => Some(value.to_string()),
        Some(Err(_)) => return Ok(text(415, "unreadable Content-Type header")),
    };
    let body = match Limited::new(request.into_body(), MAX_BODY_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) => {
            if error.is::<http_body_util::LengthLimitError>() {
                return Ok(text(413, "request body too large"));
            }
            return Ok(text(400, "could not read the request body"));
        }
    };
    match review::handle_styled(endpoint, content_type.as_deref(), &body, defect, style) {
        Action::Reply(reply) => Ok(reply_to_response(reply)),
        Action::ReplyAfterDeadline(reply) => {
            tokio::time::sleep(deadline + Duration::from_secs(1)).await;
            Ok(reply_to_response(reply))
        }
        Action::Hang => match std::future::pending::<Infallible>().await {},
        Action::Close => {
            close.notify_one();
            match std::future::pending::<Infallible>().await {}
        }
    }
}
