//! Waiting for a started target (a command, a container) to serve: one wait for every kind of target.

use std::future::Future;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crate::client::{handshake, Endpoint, HandshakeError};

/// Why a started target did not become ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NotReady {
    /// It exited first (how).
    Exited(String),
    /// No TLS handshake succeeded before the deadline (the last attempt's error).
    Timeout { last: String },
    /// It answered the handshake with something that is not TLS (what): waiting longer will not
    /// change that.
    NotTls(String),
}

/// Wait until `addr` completes a TLS handshake that verifies against `endpoint`'s CA, polling every
/// `poll`, giving up after `timeout`, as soon as `exited` reports the target gone, or at the first
/// answer that is not TLS (a plain-HTTP listener).
pub(crate) async fn wait_ready<F, Fut>(
    endpoint: &Endpoint,
    addr: SocketAddr,
    timeout: Duration,
    poll: Duration,
    mut exited: F,
) -> Result<(), NotReady>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<String>>,
{
    let started = Instant::now();
    let mut tick = tokio::time::interval(poll);
    loop {
        tick.tick().await;
        if let Some(status) = exited().await {
            return Err(NotReady::Exited(status));
        }
        let left = timeout.saturating_sub(started.elapsed());
        let attempt = Duration::from_secs(2).min(left.max(Duration::from_millis(100)));
        let last = match handshake(endpoint, addr, attempt).await {
            Ok(()) => return Ok(()),
            Err(HandshakeError::NotTls(what)) => return Err(NotReady::NotTls(what)),
            Err(e @ (HandshakeError::Failed(_) | HandshakeError::WrongName(_))) => e.to_string(),
        };
        if started.elapsed() >= timeout {
            return Err(NotReady::Timeout { last });
        }
    }
}
