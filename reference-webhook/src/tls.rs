//! TLS configuration (rustls with the ring provider).

use std::sync::Arc;

use anyhow::{anyhow, Context as _};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::ServerConfig;

/// The ALPN protocols offered, in order of preference.
pub const ALPN: [&[u8]; 2] = [b"h2", b"http/1.1"];

fn config(
    certs: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    client_ca: Option<&[u8]>,
) -> anyhow::Result<Arc<ServerConfig>> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .context("TLS protocol versions")?;
    let builder = match client_ca {
        None => builder.with_no_client_auth(),
        Some(pem) => {
            let mut roots = rustls::RootCertStore::empty();
            for cert in rustls_pemfile::certs(&mut &pem[..]) {
                roots.add(cert.context("reading the client CA")?).context("adding the client CA")?;
            }
            if roots.is_empty() {
                return Err(anyhow!("no PEM certificate found in the client CA"));
            }
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .context("the client certificate verifier")?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config =
        builder.with_single_cert(certs, key).context("the TLS certificate and key do not make a usable pair")?;
    config.alpn_protocols = ALPN.iter().map(|p| p.to_vec()).collect();
    Ok(Arc::new(config))
}

/// A server config from a PEM certificate chain and PEM private key (PKCS#8, PKCS#1 or SEC1),
/// offering ALPN `h2` and `http/1.1`.
pub fn server_tls_config(cert_pem: &[u8], key_pem: &[u8]) -> anyhow::Result<Arc<ServerConfig>> {
    server_tls_config_for_clients(cert_pem, key_pem, None)
}

/// [`server_tls_config`], requiring with `client_ca` (PEM) that every client present a certificate
/// that CA signed: the handshake of a client without one fails.
pub fn server_tls_config_for_clients(
    cert_pem: &[u8],
    key_pem: &[u8],
    client_ca: Option<&[u8]>,
) -> anyhow::Result<Arc<ServerConfig>> {
    let certs = rustls_pemfile::certs(&mut &cert_pem[..])
        .collect::<Result<Vec<_>, _>>()
        .context("reading the PEM certificate")?;
    if certs.is_empty() {
        return Err(anyhow!("no PEM certificate found"));
    }
    let key = rustls_pemfile::private_key(&mut &key_pem[..])
        .context("reading the PEM private key")?
        .ok_or_else(|| anyhow!("no PEM private key found"))?;
    config(certs, key, client_ca)
}

/// A server config with a fresh self-signed certificate for localhost/127.0.0.1/::1, trusted by
/// nobody (the `untrusted-cert` defect).
pub fn self_signed_config() -> anyhow::Result<Arc<ServerConfig>> {
    let names = vec!["localhost".to_string(), "127.0.0.1".to_string(), "::1".to_string()];
    let certified = rcgen::generate_simple_self_signed(names).context("minting a self-signed certificate")?;
    let cert = certified.cert.der().clone();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der()));
    config(vec![cert], key, None)
}
