//! Generated TLS: a throw-away CA and a serving certificate signed by it, made per run.
//!
//! The harness trusts this CA and nothing else. Keys are ECDSA P-256; the serving certificate carries
//! `serverAuth` and SANs for `localhost`, `127.0.0.1`, `::1` and, when the manifest names a service,
//! `<service>.<namespace>.svc` and `<service>.<namespace>.svc.cluster.local`. On request the CA also
//! issues a client certificate (`clientAuth`), the one the suite presents as the apiserver, for a
//! webhook that requires client certificates signed by that CA.
//!
//! The PEM files are written into a directory: a temporary one removed when [`TlsMaterial`] is dropped
//! (also during a panic's unwinding), or one the user names, which is kept.

use std::fs;
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::error::Error;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType, PKCS_ECDSA_P256_SHA256,
};

/// Names the serving certificate is valid for, beyond the loopback names it always carries.
#[derive(Clone, Debug, Default)]
pub struct ServingNames {
    /// Extra DNS names, e.g. `webhook.system.svc`.
    pub dns: Vec<String>,
}

impl ServingNames {
    /// The names the apiserver uses for a `clientConfig.service`: `<name>.<namespace>.svc` and the
    /// cluster-local form.
    pub fn for_service(name: &str, namespace: &str) -> Self {
        ServingNames { dns: vec![format!("{name}.{namespace}.svc"), format!("{name}.{namespace}.svc.cluster.local")] }
    }
}

/// Where the PEM files live.
enum Dir {
    Temp(tempfile::TempDir),
    Kept(PathBuf),
}

/// A CA, a serving certificate and its key, as PEM in memory and as files on disk.
pub struct TlsMaterial {
    /// The CA certificate, PEM.
    pub ca_pem: String,
    /// The serving certificate, PEM.
    pub cert_pem: String,
    /// The serving key, PEM.
    pub key_pem: String,
    /// A client certificate the CA issued, and its key (PEM), when one was asked for.
    pub client: Option<(String, String)>,
    dir: Dir,
}

/// The subject of the client certificate the generated CA issues.
pub const CLIENT_COMMON_NAME: &str = "webhook-conformance kube-apiserver client";

fn rcgen_error(e: rcgen::Error) -> Error {
    Error::Tls(format!("generating a certificate: {e}"))
}

impl TlsMaterial {
    /// Make a fresh CA and serving certificate. With `keep_in`, the files go there and stay;
    /// otherwise into a temporary directory removed on drop.
    pub fn generate(names: &ServingNames, keep_in: Option<&Path>) -> Result<Self, Error> {
        Self::generate_for(names, keep_in, false)
    }

    /// [`generate`](Self::generate), with a client certificate issued by the same CA
    /// (`client.crt`, `client.key`).
    pub fn generate_with_client(names: &ServingNames, keep_in: Option<&Path>) -> Result<Self, Error> {
        Self::generate_for(names, keep_in, true)
    }

    fn generate_for(names: &ServingNames, keep_in: Option<&Path>, with_client: bool) -> Result<Self, Error> {
        let ca_key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).map_err(rcgen_error)?;
        let mut ca_params = CertificateParams::default();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        ca_params.distinguished_name = dn("webhook-conformance throw-away CA");
        ca_params.key_usages =
            vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
        let ca_cert = ca_params.self_signed(&ca_key).map_err(rcgen_error)?;
        let issuer = Issuer::new(ca_params, ca_key);

        let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).map_err(rcgen_error)?;
        let mut params = CertificateParams::default();
        params.distinguished_name = dn("webhook-conformance serving certificate");
        params.subject_alt_names = serving_sans(names)?;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let cert = params.signed_by(&key, &issuer).map_err(rcgen_error)?;
        let client = if with_client {
            let client_key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).map_err(rcgen_error)?;
            let mut params = CertificateParams::default();
            params.distinguished_name = dn(CLIENT_COMMON_NAME);
            params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
            params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
            let client_cert = params.signed_by(&client_key, &issuer).map_err(rcgen_error)?;
            Some((client_cert.pem(), client_key.serialize_pem()))
        } else {
            None
        };

        let dir = match keep_in {
            Some(path) => {
                fs::create_dir_all(path)
                    .map_err(|e| Error::Tls(format!("creating TLS directory {}: {e}", path.display())))?;
                Dir::Kept(path.to_path_buf())
            }
            None => Dir::Temp(tempfile::Builder::new().prefix("webhook-conformance-tls-").tempdir().map_err(|e| {
                Error::Tls(format!("creating a temporary directory for the generated certificates: {e}"))
            })?),
        };
        let material =
            TlsMaterial { ca_pem: ca_cert.pem(), cert_pem: cert.pem(), key_pem: key.serialize_pem(), client, dir };
        write_private(&material.ca_path(), &material.ca_pem)?;
        write_private(&material.cert_path(), &material.cert_pem)?;
        write_private(&material.key_path(), &material.key_pem)?;
        if let Some((cert, key)) = &material.client {
            write_private(&material.client_cert_path(), cert)?;
            write_private(&material.client_key_path(), key)?;
        }
        Ok(material)
    }

    /// The directory holding the files.
    pub fn dir(&self) -> &Path {
        match &self.dir {
            Dir::Temp(t) => t.path(),
            Dir::Kept(p) => p,
        }
    }
    /// `ca.pem` in [`dir`](Self::dir).
    pub fn ca_path(&self) -> PathBuf {
        self.dir().join("ca.pem")
    }
    /// `tls.crt` in [`dir`](Self::dir).
    pub fn cert_path(&self) -> PathBuf {
        self.dir().join("tls.crt")
    }
    /// `tls.key` in [`dir`](Self::dir).
    pub fn key_path(&self) -> PathBuf {
        self.dir().join("tls.key")
    }
    /// `client.crt` in [`dir`](Self::dir) (written when a client certificate was issued).
    pub fn client_cert_path(&self) -> PathBuf {
        self.dir().join("client.crt")
    }
    /// `client.key` in [`dir`](Self::dir).
    pub fn client_key_path(&self) -> PathBuf {
        self.dir().join("client.key")
    }
    /// True when the files are removed at the end of the run.
    pub fn is_temporary(&self) -> bool {
        matches!(self.dir, Dir::Temp(_))
    }
}

fn dn(common_name: &str) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, common_name);
    dn
}

fn serving_sans(names: &ServingNames) -> Result<Vec<SanType>, Error> {
    let mut sans = vec![
        SanType::DnsName("localhost".try_into().map_err(rcgen_error)?),
        SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)),
        SanType::IpAddress(IpAddr::V6(Ipv6Addr::LOCALHOST)),
    ];
    for name in &names.dns {
        sans.push(SanType::DnsName(
            name.as_str().try_into().map_err(|e| Error::Tls(format!("{name:?} is not a DNS name: {e}")))?,
        ));
    }
    Ok(sans)
}

/// Write a file readable by its owner only (0600), whatever the umask.
fn write_private(path: &Path, contents: &str) -> Result<(), Error> {
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    file.write_all(contents.as_bytes()).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    Ok(())
}

/// Parse PEM certificates (a CA bundle) into DER.
pub fn parse_certificates(pem: &[u8]) -> Result<Vec<rustls::pki_types::CertificateDer<'static>>, Error> {
    let certs = rustls_pemfile::certs(&mut &pem[..])
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::Tls(format!("reading PEM certificates: {e}")))?;
    if certs.is_empty() {
        return Err(Error::Tls("no PEM certificate found".into()));
    }
    Ok(certs)
}

/// A rustls root store that holds exactly the given CA bundle.
pub fn root_store(ca_pem: &[u8]) -> Result<rustls::RootCertStore, Error> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in parse_certificates(ca_pem)? {
        roots.add(cert).map_err(|e| Error::Tls(format!("adding a CA certificate to the trust store: {e}")))?;
    }
    Ok(roots)
}

/// The crypto provider every TLS config of the harness uses.
pub fn provider() -> std::sync::Arc<rustls::crypto::CryptoProvider> {
    std::sync::Arc::new(rustls::crypto::ring::default_provider())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn files_are_private_and_removed_on_drop() {
        let names = ServingNames::for_service("hook", "system");
        let tls = TlsMaterial::generate(&names, None).unwrap();
        let dir = tls.dir().to_path_buf();
        for path in [tls.ca_path(), tls.cert_path(), tls.key_path()] {
            let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", path.display());
        }
        assert!(tls.key_pem.contains("PRIVATE KEY"));
        drop(tls);
        assert!(!dir.exists(), "temporary TLS directory survived the drop");
    }

    #[test]
    fn the_ca_issues_a_client_certificate_on_request() {
        let tls = TlsMaterial::generate_with_client(&ServingNames::default(), None).unwrap();
        let (cert, key) = tls.client.clone().unwrap();
        assert!(key.contains("PRIVATE KEY"));
        assert_eq!(fs::read_to_string(tls.client_cert_path()).unwrap(), cert);
        let der = parse_certificates(cert.as_bytes()).unwrap().remove(0);
        let (_, parsed) = x509_parser::parse_x509_certificate(&der).unwrap();
        assert!(parsed.extended_key_usage().unwrap().unwrap().value.client_auth);
        let ca_der = parse_certificates(tls.ca_pem.as_bytes()).unwrap().remove(0);
        let (_, ca) = x509_parser::parse_x509_certificate(&ca_der).unwrap();
        assert_eq!(parsed.issuer(), ca.subject());
        assert!(TlsMaterial::generate(&ServingNames::default(), None).unwrap().client.is_none());
    }

    #[test]
    fn serving_cert_names_loopback_and_service() {
        let names = ServingNames::for_service("hook", "system");
        let tls = TlsMaterial::generate(&names, None).unwrap();
        let der = parse_certificates(tls.cert_pem.as_bytes()).unwrap().remove(0);
        let (_, cert) = x509_parser::parse_x509_certificate(&der).unwrap();
        let san = cert.subject_alternative_name().unwrap().unwrap().value;
        let text = format!("{:?}", san.general_names);
        for want in [
            "localhost",
            "hook.system.svc",
            "hook.system.svc.cluster.local",
            "[127, 0, 0, 1]",
            "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]",
        ] {
            assert!(text.contains(want), "SAN {want} missing from {text}");
        }
        let eku = cert.extended_key_usage().unwrap().unwrap().value;
        assert!(eku.server_auth);
        assert!(!cert.is_ca());
        let ca_der = parse_certificates(tls.ca_pem.as_bytes()).unwrap().remove(0);
        let (_, ca) = x509_parser::parse_x509_certificate(&ca_der).unwrap();
        assert!(ca.is_ca());
        assert_eq!(cert.issuer(), ca.subject());
    }
}
