//! Verifying the webhook's certificate against the one CA bundle trusted, as webpki does, with a
//! certificate that is not valid for the name called reported with the names it has.
//!
//! Every decision is webpki's ([`WebPkiServerVerifier`]); only the error of a name mismatch is
//! replaced by a [`NameMismatch`] that carries the certificate's names and the name called, so that
//! the finding can say both and word it as the apiserver's Go client does.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{verify_server_name, WebPkiServerVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{CertificateError, DigitallySignedStruct, OtherError, SignatureScheme};

use crate::error::Error;
use crate::tls::CertificateNames;

/// The served certificate is trusted but not valid for the name called.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NameMismatch {
    /// The name the client called (the TLS server name): a host name or an IP address.
    pub called: String,
    /// The names the certificate is valid for.
    pub names: CertificateNames,
    /// Why the certificate is not trusted either (no chain to the CA), when it is not: Go checks the
    /// name first, so the apiserver reports the name.
    pub untrusted: Option<String>,
}

impl std::fmt::Display for NameMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the webhook's certificate is not valid for {}, the name the apiserver calls: it has {}",
            self.called,
            self.names.describe()
        )?;
        if let Some(why) = &self.untrusted {
            write!(f, "; nor does it chain to a CA trusted ({why})")?;
        }
        Ok(())
    }
}

impl std::error::Error for NameMismatch {}

impl NameMismatch {
    /// What the apiserver's Go client reports for it (crypto/tls `CertificateVerificationError`
    /// around crypto/x509 `HostnameError`).
    pub(crate) fn go_error(&self) -> String {
        format!("tls: failed to verify certificate: {}", self.names.go_hostname_error(&self.called))
    }
}

/// webpki's verification with the roots of `ca_pem`, a name mismatch reported as a [`NameMismatch`].
#[derive(Debug)]
struct NamingVerifier {
    webpki: Arc<WebPkiServerVerifier>,
}

impl ServerCertVerifier for NamingVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let verified = self.webpki.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now);
        let untrusted = match &verified {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => None,
            // Go's x509 Certificate.Verify checks the name before it builds a chain: a certificate
            // without the name and without a chain to the CA is, to the apiserver, one without the name.
            Err(rustls::Error::InvalidCertificate(
                e @ (CertificateError::UnknownIssuer | CertificateError::BadSignature),
            )) if ParsedCertificate::try_from(end_entity)
                .is_ok_and(|cert| verify_server_name(&cert, server_name).is_err()) =>
            {
                Some(format!("{e:?}"))
            }
            _ => return verified,
        };
        let Ok(names) = CertificateNames::of(end_entity) else { return verified };
        let called = match server_name {
            ServerName::DnsName(d) => d.as_ref().to_string(),
            ServerName::IpAddress(ip) => std::net::IpAddr::from(*ip).to_string(),
            other => format!("{other:?}"),
        };
        let mismatch = NameMismatch { called, names, untrusted };
        Err(rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(Arc::new(mismatch)))))
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.webpki.supported_verify_schemes()
    }
}

/// A rustls client config builder that trusts only `ca_pem`, verifying as webpki does and naming
/// the certificate's names when it is not valid for the name called.
pub(crate) fn verifying(
    ca_pem: &[u8],
) -> Result<rustls::ConfigBuilder<rustls::ClientConfig, rustls::client::WantsClientCert>, Error> {
    let provider = crate::tls::provider();
    let roots = crate::tls::root_store(ca_pem)?;
    let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| Error::tls("the CA bundle to trust", e))?;
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::tls("", e))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(NamingVerifier { webpki })))
}

/// The [`NameMismatch`] a TLS error carries, if it is one.
pub(crate) fn name_mismatch(e: &rustls::Error) -> Option<&NameMismatch> {
    match e {
        rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(other))) => other.downcast_ref(),
        _ => None,
    }
}
