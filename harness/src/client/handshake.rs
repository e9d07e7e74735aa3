//! A bare TLS handshake with a target, trusting only its CA: how the suite waits for a started
//! target to serve, and how it tells a listener that does not speak TLS at all (a plain-HTTP server
//! answers a ClientHello with `HTTP/1.1 400 Bad Request`) from one that is not up yet.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::Endpoint;

/// Why a handshake failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HandshakeError {
    /// The peer answered the ClientHello with something that is not TLS; the text says what
    /// (`the target speaks HTTP, not TLS …`). Trying again will not help.
    NotTls(String),
    /// The certificate is trusted but not valid for the name called.
    WrongName(Box<super::NameMismatch>),
    /// Anything else (nothing listening yet, a certificate not trusted, no answer in time).
    Failed(String),
}

impl std::fmt::Display for HandshakeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HandshakeError::NotTls(s) | HandshakeError::Failed(s) => f.write_str(s),
            HandshakeError::WrongName(m) => m.fmt(f),
        }
    }
}

/// How many of the first bytes the peer sends are kept.
const KEPT: usize = 64;

/// A stream that keeps the first bytes read from it.
struct Recording<S> {
    inner: S,
    seen: Arc<Mutex<Vec<u8>>>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Recording<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = poll {
            let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
            let room = KEPT.saturating_sub(seen.len());
            let new = &buf.filled()[before..];
            seen.extend_from_slice(&new[..new.len().min(room)]);
        }
        poll
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Recording<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// What the first bytes of a peer's answer to a ClientHello say about it, when they are not TLS (a
/// TLS record starts with a content type 20–23 and major version 3).
pub(crate) fn not_tls(first: &[u8]) -> Option<String> {
    let tls = first.len() < 2 || ((20..=23).contains(&first[0]) && first[1] == 3);
    if tls {
        return None;
    }
    let text = String::from_utf8_lossy(first);
    let line = text.lines().next().unwrap_or_default();
    if first.starts_with(b"HTTP/") {
        Some(format!("the target speaks HTTP, not TLS: it answered the TLS handshake with {line:?}"))
    } else {
        Some(format!("the target does not speak TLS: it answered the TLS handshake with {:?}", text))
    }
}

/// One TLS handshake with `addr`, verifying the certificate for `endpoint`'s host against its CA
/// only, within `deadline`.
pub(crate) async fn handshake(endpoint: &Endpoint, addr: SocketAddr, deadline: Duration) -> Result<(), HandshakeError> {
    let failed = |e: String| HandshakeError::Failed(e);
    let config = super::verify::verifying(&endpoint.ca_pem).map_err(|e| failed(e.to_string()))?.with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let host = endpoint.base.host_str().unwrap_or("localhost").trim_matches(['[', ']']).to_string();
    let name = rustls::pki_types::ServerName::try_from(host).map_err(|e| failed(e.to_string()))?;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let attempt = async {
        let tcp = tokio::net::TcpStream::connect(addr).await.map_err(|e| failed(format!("connect {addr}: {e}")))?;
        let stream = Recording { inner: tcp, seen: seen.clone() };
        match connector.connect(name, stream).await {
            Ok(_) => Ok(()),
            // The server's certificate was verified by then and it serves TLS; it refuses clients
            // without a certificate it trusts, which is the calls' business.
            Err(e) if super::rustls_error(&e).as_ref().and_then(super::refuses_client_certificate).is_some() => Ok(()),
            Err(e) => {
                if let Some(m) = super::rustls_error(&e).as_ref().and_then(super::verify::name_mismatch) {
                    return Err(HandshakeError::WrongName(Box::new(m.clone())));
                }
                let first = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
                Err(match not_tls(&first) {
                    Some(what) => HandshakeError::NotTls(format!("{what} (at {addr})")),
                    None => failed(format!("TLS handshake with {addr}: {e}")),
                })
            }
        }
    };
    tokio::time::timeout(deadline, attempt)
        .await
        .unwrap_or_else(|_| Err(failed(format!("TLS handshake with {addr}: no answer within {deadline:?}"))))
}

/// Whether the server refuses the client identity of `config` (a client certificate, or none):
/// the fatal alert it sends, if it does. Under TLS 1.3 the server judges the client's certificate
/// after the client has finished its side of the handshake, so the alert arrives on the first
/// read: the probe completes the handshake, then reads until the alert, the server's silence
/// (`deadline`) or anything else.
pub(crate) async fn refused_identity(
    endpoint: &Endpoint,
    addr: SocketAddr,
    config: rustls::ClientConfig,
    deadline: Duration,
) -> Option<rustls::AlertDescription> {
    use tokio::io::AsyncReadExt;
    let host = endpoint.base.host_str().unwrap_or("localhost").trim_matches(['[', ']']).to_string();
    let name = rustls::pki_types::ServerName::try_from(host).ok()?;
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let refused = |e: &std::io::Error| super::rustls_error(e).as_ref().and_then(super::refuses_client_certificate);
    let attempt = async {
        let tcp = tokio::net::TcpStream::connect(addr).await.ok()?;
        let mut stream = match connector.connect(name, tcp).await {
            Ok(stream) => stream,
            Err(e) => return refused(&e),
        };
        let mut byte = [0u8; 1];
        match stream.read(&mut byte).await {
            Err(e) => refused(&e),
            Ok(_) => None,
        }
    };
    tokio::time::timeout(deadline, attempt).await.ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::not_tls;

    #[test]
    fn tells_http_and_other_protocols_from_tls() {
        assert_eq!(not_tls(b"\x16\x03\x03\x00\x2a"), None);
        assert_eq!(not_tls(b"\x15\x03\x01"), None);
        assert_eq!(not_tls(b""), None);
        let http = not_tls(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n").unwrap();
        assert_eq!(
            http,
            "the target speaks HTTP, not TLS: it answered the TLS handshake with \"HTTP/1.1 400 Bad Request\""
        );
        assert!(not_tls(b"SSH-2.0-OpenSSH_9.6\r\n").unwrap().starts_with("the target does not speak TLS"));
    }
}
