//! A webhook the user already runs: `--url https://host:port[/path]` with the CA that signed its
//! certificate. The suite connects to the address the URL reaches (or the one a `--resolve` entry
//! gives its host) and calls each webhook by the name the apiserver calls it: `<service>.<namespace>.svc`
//! or the host of `clientConfig.url`, as TLS server name and in the verification of the certificate.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use super::RunningTarget;
use crate::client::{handshake, Endpoint, HandshakeError};
use crate::config::WebhookSpec;
use crate::error::{Error, TargetError};

/// Where to connect for a host and port instead of asking DNS, as curl's `--resolve
/// HOST:PORT:ADDR` says; `ADDR` may carry a port of its own (`127.0.0.1:8443`, `[::1]:8443`), to
/// test a Service's name against a local port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolve {
    /// The host name, as in the URL.
    pub host: String,
    /// The port, as in the URL (443 when the URL gives none).
    pub port: u16,
    /// The address connected to instead.
    pub addr: SocketAddr,
}

/// Why a `--resolve` entry does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// Not three parts.
    #[error("expected HOST:PORT:ADDR, e.g. my-webhook.my-ns.svc:443:127.0.0.1 (or …:127.0.0.1:8443 for another port)")]
    Shape,
    /// The host is empty or an IP address.
    #[error("HOST {0:?} must be a host name (an IP address in a URL is connected to as it is)")]
    Host(String),
    /// The port is not a number from 1 to 65535.
    #[error("PORT {0:?} is not a port number (1-65535)")]
    Port(String),
    /// The address is not an IP address with an optional port.
    #[error(
        "ADDR {0:?} is not an IP address, optionally with :PORT (an IPv6 address with a port in brackets: [::1]:8443)"
    )]
    Addr(String),
}

impl FromStr for Resolve {
    type Err = ResolveError;

    fn from_str(s: &str) -> Result<Resolve, ResolveError> {
        let (host, rest) = s.split_once(':').ok_or(ResolveError::Shape)?;
        let (port, addr) = rest.split_once(':').ok_or(ResolveError::Shape)?;
        if host.is_empty() || host.trim_matches(['[', ']']).parse::<IpAddr>().is_ok() {
            return Err(ResolveError::Host(host.to_string()));
        }
        let port: u16 = port.parse().ok().filter(|p| *p != 0).ok_or_else(|| ResolveError::Port(port.to_string()))?;
        let bare = addr.strip_prefix('[').and_then(|a| a.strip_suffix(']')).unwrap_or(addr);
        let addr = match bare.parse::<IpAddr>() {
            Ok(ip) => SocketAddr::new(ip, port),
            Err(_) => addr
                .parse::<SocketAddr>()
                .ok()
                .filter(|a| a.port() != 0)
                .ok_or_else(|| ResolveError::Addr(addr.to_string()))?,
        };
        Ok(Resolve { host: host.to_ascii_lowercase(), port, addr })
    }
}

impl std::fmt::Display for Resolve {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ip = match self.addr.ip() {
            IpAddr::V6(v6) => format!("[{v6}]"),
            v4 => v4.to_string(),
        };
        write!(f, "{}:{}:{ip}", self.host, self.port)?;
        if self.addr.port() != self.port {
            write!(f, ":{}", self.addr.port())?;
        }
        Ok(())
    }
}

/// The CA to trust: the file `ca`, or the caBundles of the manifest (every distinct one).
fn trusted_ca(url_what: &str, ca: Option<&Path>, webhooks: &[WebhookSpec]) -> Result<(Vec<u8>, Option<String>), Error> {
    if let Some(ca) = ca {
        let ca_what = format!("--ca {}", ca.display());
        let ca_pem = std::fs::read(ca).map_err(|e| Error::target(&ca_what, e))?;
        crate::tls::root_store(&ca_pem).map_err(|e| Error::target(&ca_what, TargetError::Ca(Box::new(e))))?;
        return Ok((ca_pem, None));
    }
    let mut bundles: Vec<Vec<u8>> = Vec::new();
    let mut from: Vec<&str> = Vec::new();
    for w in webhooks {
        match w.ca_bundle_pem() {
            None => {}
            Some(Err(e)) => {
                return Err(Error::target(
                    url_what,
                    TargetError::CaBundle { webhook: w.name.clone(), source: e.into() },
                ))
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
        return Err(Error::target(url_what, TargetError::NoCa));
    }
    let ca_pem = bundles.concat();
    crate::tls::root_store(&ca_pem).map_err(|e| Error::target(url_what, TargetError::ManifestCa(Box::new(e))))?;
    let note = format!(
        "trusting the manifest's clientConfig.caBundle (of {}), as the apiserver does; the replay commands expect it in ca.pem (base64 -d of the caBundle)",
        from.join(", ")
    );
    Ok((ca_pem, Some(note)))
}

/// Check `url` and the CA (`ca`, or the manifest's caBundle), reach the address of its host (from
/// `resolve`, or DNS), and describe the target: each webhook called there by the name the apiserver
/// calls. A handshake failure is not an error here: it is the webhook's (`transport.connect`), and
/// the run reports it.
pub(crate) async fn start(
    url: &str,
    ca: Option<&Path>,
    resolve: &[Resolve],
    webhooks: &[WebhookSpec],
) -> Result<RunningTarget, Error> {
    let what = format!("--url {url:?}");
    let parsed = reqwest::Url::parse(url).map_err(|e| Error::target(&what, TargetError::Url(e.into())))?;
    if parsed.scheme() != "https" {
        return Err(Error::target(&what, TargetError::NotHttps));
    }
    let (ca_pem, ca_note) = trusted_ca(&what, ca, webhooks)?;
    let mut notes: Vec<String> = ca_note.into_iter().collect();
    let host = parsed.host_str().unwrap_or_default().trim_matches(['[', ']']).to_ascii_lowercase();
    let port = parsed.port_or_known_default().unwrap_or(443);
    let resolved = resolve.iter().find(|r| r.host == host && r.port == port);
    for unused in resolve.iter().filter(|r| Some(*r) != resolved) {
        notes.push(format!(
            "--resolve {unused} is not used: the suite connects only to the host and port of --url ({host}:{port})"
        ));
    }
    let addr = match resolved {
        Some(r) => r.addr,
        None => lookup(&what, &host, port).await?,
    };
    tcp_reachable(addr).await.map_err(|e| Error::target(&what, e))?;

    let mut base = parsed.clone();
    // The client connects to `addr` for the URL's host; an explicit port of the URL would win
    // over `addr`'s (a URL without one, https's 443, keeps it).
    if parsed.port().is_some() && addr.port() != port {
        let _ = base.set_port(Some(addr.port()));
        notes.push(format!(
            "called on port {} (where --resolve leads, {addr}) instead of {port}: the URL of a call names the port it connects to",
            addr.port()
        ));
    }
    let base_port = base.port_or_known_default().unwrap_or(443);
    // The name each webhook is called by: the apiserver's, unless the suite cannot connect to `addr`
    // by it (an IP address other than `addr`'s).
    let mut names: Vec<(String, String)> = Vec::new();
    for w in webhooks {
        let Some(name) = apiserver_host(w) else { continue };
        match name.trim_matches(['[', ']']).parse::<IpAddr>() {
            Ok(ip) if ip != addr.ip() || base_port != addr.port() => notes.push(format!(
                "{}: the apiserver calls it at {name}; the suite calls {addr}, where --url leads, and so verifies the certificate for {host}, not {name}",
                w.name
            )),
            _ => names.push((w.name.clone(), name)),
        }
    }
    if let Some((_, first)) = names.first() {
        base.set_host(Some(first))
            .map_err(|e| Error::target(format!("manifest host {first:?}"), TargetError::Url(e.into())))?;
    }
    let base_host = base.host_str().unwrap_or_default().to_string();
    let hosts: BTreeMap<String, String> = names.into_iter().filter(|(_, n)| *n != base_host).collect();
    let redirected = resolved.is_some() || base_host.trim_matches(['[', ']']) != host || !hosts.is_empty();
    let endpoint = Endpoint {
        base,
        resolve_to: redirected.then_some(addr),
        ca_pem,
        path_override: !matches!(parsed.path(), "" | "/"),
        hosts,
    };
    // Say which names verify; a name that does not is the calls' transport.connect FAIL.
    let mut called: Vec<&str> = vec![base_host.as_str()];
    for host in endpoint.hosts.values() {
        if !called.contains(&host.as_str()) {
            called.push(host);
        }
    }
    for name in called {
        let mut named = endpoint.clone();
        named
            .base
            .set_host(Some(name))
            .map_err(|e| Error::target(format!("manifest host {name:?}"), TargetError::Url(e.into())))?;
        match handshake(&named, addr, Duration::from_secs(5)).await {
            Ok(()) => notes.push(format!("TLS verified for {name}, the name the apiserver calls, at {addr}")),
            Err(HandshakeError::NotTls(what)) => {
                notes.push(format!("{what}; the apiserver calls webhooks over HTTPS only"));
                break;
            }
            Err(HandshakeError::WrongName(_) | HandshakeError::Failed(_)) => {}
        }
    }
    let mut target = RunningTarget::external(endpoint, format!("url: {url}"), ca.map(Path::to_path_buf));
    target.user_certificates = true;
    target.notes = notes;
    Ok(target)
}

/// The address DNS gives `host`, within 5 s.
async fn lookup(what: &str, host: &str, port: u16) -> Result<SocketAddr, Error> {
    let lookup = tokio::time::timeout(Duration::from_secs(5), tokio::net::lookup_host((host, port)));
    let addrs: Vec<SocketAddr> = match lookup.await {
        Ok(Ok(addrs)) => addrs.collect(),
        Ok(Err(source)) => {
            return Err(Error::target(what, TargetError::Resolve { host: host.to_string(), port, source }))
        }
        Err(_) => return Err(Error::target(what, TargetError::ResolveTimeout { host: host.to_string(), seconds: 5 })),
    };
    addrs.first().copied().ok_or_else(|| Error::target(what, TargetError::NoAddress { host: host.to_string() }))
}

/// The name the apiserver calls `w` by (its TLS server name): `<service>.<namespace>.svc`, or the
/// host of `clientConfig.url`.
fn apiserver_host(w: &WebhookSpec) -> Option<String> {
    if let Some(svc) = &w.client_config.service {
        return Some(format!("{}.{}.svc", svc.name, svc.namespace));
    }
    let url = reqwest::Url::parse(w.client_config.url.as_deref()?).ok()?;
    url.host_str().map(str::to_ascii_lowercase)
}

/// A TCP connection to `addr`, within 5 s.
async fn tcp_reachable(addr: SocketAddr) -> Result<(), TargetError> {
    match tokio::time::timeout(Duration::from_secs(5), tokio::net::TcpStream::connect(addr)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(source)) => Err(TargetError::Connect { addr, source }),
        Err(_) => Err(TargetError::ConnectTimeout { addr, seconds: 5 }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_entries_parse_as_curl_writes_them_with_an_optional_port() {
        let r: Resolve = "My-Webhook.my-ns.svc:443:127.0.0.1".parse().unwrap();
        assert_eq!(
            r,
            Resolve { host: "my-webhook.my-ns.svc".into(), port: 443, addr: "127.0.0.1:443".parse().unwrap() }
        );
        assert_eq!(r.to_string(), "my-webhook.my-ns.svc:443:127.0.0.1");
        let r: Resolve = "hook.ns.svc:443:127.0.0.1:8443".parse().unwrap();
        assert_eq!(r.addr, "127.0.0.1:8443".parse().unwrap());
        assert_eq!(r.to_string(), "hook.ns.svc:443:127.0.0.1:8443");
        assert_eq!("h:443:::1".parse::<Resolve>().unwrap().addr, "[::1]:443".parse().unwrap());
        assert_eq!("h:443:[::1]".parse::<Resolve>().unwrap().addr, "[::1]:443".parse().unwrap());
        let r: Resolve = "h:443:[::1]:8443".parse().unwrap();
        assert_eq!(r.addr, "[::1]:8443".parse().unwrap());
        assert_eq!(r.to_string(), "h:443:[::1]:8443");
    }

    #[test]
    fn malformed_resolve_entries_say_what_is_wrong() {
        let err = |s: &str| s.parse::<Resolve>().unwrap_err();
        assert_eq!(err("hook.ns.svc"), ResolveError::Shape);
        assert_eq!(err("hook.ns.svc:443"), ResolveError::Shape);
        assert_eq!(err(":443:127.0.0.1"), ResolveError::Host(String::new()));
        assert_eq!(err("10.0.0.1:443:127.0.0.1"), ResolveError::Host("10.0.0.1".into()));
        assert_eq!(err("h:https:127.0.0.1"), ResolveError::Port("https".into()));
        assert_eq!(err("h:0:127.0.0.1"), ResolveError::Port("0".into()));
        assert_eq!(err("h:443:localhost"), ResolveError::Addr("localhost".into()));
        assert_eq!(err("h:443:127.0.0.1:0"), ResolveError::Addr("127.0.0.1:0".into()));
        assert_eq!(err("h:443:127.0.0.1,127.0.0.2"), ResolveError::Addr("127.0.0.1,127.0.0.2".into()));
        assert!(err("h:443:x").to_string().contains("is not an IP address"));
    }
}
