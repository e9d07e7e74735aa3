//! A webhook the user already runs: `--url https://host:port[/path]` with the CA that signed its
//! certificate.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use super::RunningTarget;
use crate::client::{handshake, Endpoint, HandshakeError};
use crate::config::WebhookSpec;
use crate::error::Error;

/// The CA to trust: the file `ca`, or the caBundles of the manifest (every distinct one).
fn trusted_ca(url_what: &str, ca: Option<&Path>, webhooks: &[WebhookSpec]) -> Result<(Vec<u8>, Option<String>), Error> {
    if let Some(ca) = ca {
        let ca_what = format!("--ca {}", ca.display());
        let ca_pem = std::fs::read(ca).map_err(|e| Error::target(&ca_what, e))?;
        crate::tls::root_store(&ca_pem).map_err(|e| Error::target(&ca_what, e.to_string()))?;
        return Ok((ca_pem, None));
    }
    let mut bundles: Vec<Vec<u8>> = Vec::new();
    let mut from: Vec<&str> = Vec::new();
    for w in webhooks {
        match w.ca_bundle_pem() {
            None => {}
            Some(Err(e)) => {
                return Err(Error::target(url_what, format!("webhook {}: {e} (give --ca FILE instead)", w.name)))
            }
            Some(Ok(pem)) => {
                if !bundles.contains(&pem) {
                    bundles.push(pem);
                }
                from.push(&w.name);
            }
        }
    }
    if bundles.is_empty() {
        return Err(Error::target(
            url_what,
            "no --ca, and the manifest has no clientConfig.caBundle to trust: give --ca FILE, the CA that signed the webhook's serving certificate",
        ));
    }
    let ca_pem = bundles.concat();
    crate::tls::root_store(&ca_pem).map_err(|e| Error::target(url_what, format!("the manifest's caBundle: {e}")))?;
    let note = format!(
        "trusting the manifest's clientConfig.caBundle (of {}), as the apiserver does; the replay commands expect it in ca.pem (base64 -d of the caBundle)",
        from.join(", ")
    );
    Ok((ca_pem, Some(note)))
}

/// Check `url` and the CA (`ca`, or the manifest's caBundle), reach the host, and describe the
/// target. A handshake failure is not an error here: it is the webhook's (`transport.connect`), and
/// the run reports it.
pub(crate) async fn start(url: &str, ca: Option<&Path>, webhooks: &[WebhookSpec]) -> Result<RunningTarget, Error> {
    let what = format!("--url {url:?}");
    let parsed = reqwest::Url::parse(url).map_err(|e| Error::target(&what, e))?;
    if parsed.scheme() != "https" {
        return Err(Error::target(&what, "the apiserver calls webhooks over https only"));
    }
    let (ca_pem, ca_note) = trusted_ca(&what, ca, webhooks)?;
    let path_override = !matches!(parsed.path(), "" | "/");
    let mut endpoint = Endpoint { base: parsed.clone(), resolve_to: None, ca_pem, path_override };
    let host = parsed.host_str().unwrap_or_default().to_string();
    let port = parsed.port_or_known_default().unwrap_or(443);
    let lookup =
        tokio::time::timeout(Duration::from_secs(5), tokio::net::lookup_host((host.trim_matches(['[', ']']), port)));
    let addrs: Vec<SocketAddr> = match lookup.await {
        Ok(Ok(addrs)) => addrs.collect(),
        Ok(Err(e)) => return Err(Error::target(&what, format!("cannot resolve {host}: {e}"))),
        Err(_) => return Err(Error::target(&what, format!("cannot resolve {host}: no answer within 5 s"))),
    };
    let addr = *addrs.first().ok_or_else(|| Error::target(&what, format!("{host} has no address")))?;
    tcp_reachable(addr).await.map_err(|e| Error::target(&what, format!("cannot connect to {addr}: {e}")))?;
    // The apiserver verifies the certificate for the name the manifest gives (the service's DNS
    // name, or the host of clientConfig.url), whatever address --url reaches.
    let mut notes: Vec<String> = ca_note.into_iter().collect();
    if let Some(name) = apiserver_host(webhooks).filter(|n| n != &host) {
        let mut named = endpoint.clone();
        named.base.set_host(Some(&name)).map_err(|e| Error::target(format!("manifest host {name:?}"), e))?;
        named.resolve_to = Some(addr);
        match handshake(&named, addr, Duration::from_secs(5)).await {
            Ok(()) => {
                notes.push(format!("TLS verified for {name}, the name the apiserver calls, at {addr}"));
                endpoint = named;
            }
            Err(HandshakeError::NotTls(what)) => {
                notes.push(format!("{what}; the apiserver calls webhooks over HTTPS only"))
            }
            Err(HandshakeError::Failed(e)) => notes.push(format!(
                "the certificate at {addr} does not verify for {name}, the name the apiserver would call ({e}); checked against {host} instead"
            )),
        }
    }
    let mut target = RunningTarget::external(endpoint, format!("url: {url}"), ca.map(Path::to_path_buf));
    target.user_certificates = true;
    target.notes = notes;
    Ok(target)
}

/// The TLS name the apiserver uses for the first webhook: `<service>.<namespace>.svc`, or the host
/// of `clientConfig.url`.
fn apiserver_host(webhooks: &[WebhookSpec]) -> Option<String> {
    let w = webhooks.first()?;
    if let Some(svc) = &w.client_config.service {
        return Some(format!("{}.{}.svc", svc.name, svc.namespace));
    }
    let url = reqwest::Url::parse(w.client_config.url.as_deref()?).ok()?;
    url.host_str().map(str::to_string)
}

async fn tcp_reachable(addr: SocketAddr) -> Result<(), String> {
    match tokio::time::timeout(Duration::from_secs(5), tokio::net::TcpStream::connect(addr)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("no answer within 5 s".into()),
    }
}
