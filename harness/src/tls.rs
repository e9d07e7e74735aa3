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

mod der;

/// Names the serving certificate is valid for, beyond the loopback names it always carries.
#[derive(Clone, Debug, Default)]
pub struct ServingNames {
    /// Extra DNS names, e.g. `webhook.system.svc`.
    pub dns: Vec<String>,
    /// Extra IP addresses (e.g. the address a container reaches the host on).
    pub ips: Vec<IpAddr>,
}

impl ServingNames {
    /// The names the apiserver uses for a `clientConfig.service`: `<name>.<namespace>.svc` and the
    /// cluster-local form.
    pub fn for_service(name: &str, namespace: &str) -> Self {
        ServingNames {
            dns: vec![format!("{name}.{namespace}.svc"), format!("{name}.{namespace}.svc.cluster.local")],
            ips: Vec::new(),
        }
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
    Error::tls("generating a certificate", e)
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
                    .map_err(|e| Error::tls(format!("creating TLS directory {}", path.display()), e))?;
                Dir::Kept(path.to_path_buf())
            }
            None => Dir::Temp(
                tempfile::Builder::new()
                    .prefix("webhook-conformance-tls-")
                    .tempdir()
                    .map_err(|e| Error::tls("creating a temporary directory for the generated certificates", e))?,
            ),
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
    for ip in &names.ips {
        if !ip.is_loopback() {
            sans.push(SanType::IpAddress(*ip));
        }
    }
    for name in &names.dns {
        sans.push(SanType::DnsName(
            name.as_str().try_into().map_err(|e| Error::tls(format!("{name:?} is not a DNS name"), e))?,
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
        .map_err(|e| Error::tls("reading PEM certificates", e))?;
    if certs.is_empty() {
        return Err(Error::Tls { what: "no PEM certificate found".into(), source: None });
    }
    Ok(certs)
}

/// A rustls root store that holds exactly the given CA bundle.
pub fn root_store(ca_pem: &[u8]) -> Result<rustls::RootCertStore, Error> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in parse_certificates(ca_pem)? {
        roots.add(cert).map_err(|e| Error::tls("adding a CA certificate to the trust store", e))?;
    }
    Ok(roots)
}

/// The names a certificate is valid for: its subjectAltName DNS names and IP addresses (and the
/// Common Name, which Go no longer matches but names in its error).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CertificateNames {
    /// The DNS names of its subjectAltName extension, as written (wildcards included).
    pub dns: Vec<String>,
    /// The IP addresses of its subjectAltName extension.
    pub ips: Vec<IpAddr>,
    /// True when it has a subjectAltName extension at all.
    pub has_san_extension: bool,
    /// The subject's Common Name, when it has one.
    pub common_name: Option<String>,
}

impl CertificateNames {
    /// The names of the DER certificate `der`.
    pub fn of(der: &[u8]) -> Result<CertificateNames, Error> {
        let read = der::names(der).map_err(|e| Error::tls("reading the served certificate", e))?;
        let (has_san_extension, (dns, ips)) = match read.san {
            Some(san) => (true, san),
            None => (false, Default::default()),
        };
        Ok(CertificateNames { dns, ips, has_san_extension, common_name: read.common_name })
    }

    /// The names, in words: `DNS names a, b; IP addresses 127.0.0.1` (or that it has none).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.dns.is_empty() {
            parts.push(format!("DNS names {}", self.dns.join(", ")));
        }
        if !self.ips.is_empty() {
            let ips: Vec<String> = self.ips.iter().map(IpAddr::to_string).collect();
            parts.push(format!("IP addresses {}", ips.join(", ")));
        }
        if parts.is_empty() {
            let cn =
                self.common_name.as_deref().map(|cn| format!(" (only the Common Name {cn:?}, which is not matched)"));
            return format!("no subjectAltName names{}", cn.unwrap_or_default());
        }
        parts.join("; ")
    }

    /// What Go's crypto/x509 says when a certificate with these names is not valid for `host`
    /// (`HostnameError.Error()`, verify.go): the names of the kind `host` is (IP addresses for an IP,
    /// DNS names otherwise), or why there are none.
    pub fn go_hostname_error(&self, host: &str) -> String {
        let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
        if !self.has_san_extension && self.common_name.as_deref().is_some_and(|cn| go_match_hostnames(cn, host)) {
            return "x509: certificate relies on legacy Common Name field, use SANs instead".into();
        }
        let valid = if host.parse::<IpAddr>().is_ok() {
            if self.ips.is_empty() {
                return format!("x509: cannot validate certificate for {host} because it doesn't contain any IP SANs");
            }
            self.ips.iter().map(IpAddr::to_string).collect::<Vec<_>>().join(", ")
        } else {
            self.dns.join(", ")
        };
        if valid.is_empty() {
            return format!("x509: certificate is not valid for any names, but wanted to match {host}");
        }
        format!("x509: certificate is valid for {valid}, not {host}")
    }
}

/// Go's `matchHostnames` (crypto/x509 verify.go): label by label, ASCII case-insensitive, a `*`
/// left-most label of the pattern matching any one label, a trailing dot of the host ignored.
fn go_match_hostnames(pattern: &str, host: &str) -> bool {
    let pattern = pattern.to_ascii_lowercase();
    let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    if pattern.is_empty() || host.is_empty() {
        return false;
    }
    let (p, h): (Vec<&str>, Vec<&str>) = (pattern.split('.').collect(), host.split('.').collect());
    p.len() == h.len() && p.iter().zip(&h).enumerate().all(|(i, (p, h))| (i == 0 && *p == "*") || p == h)
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

    /// A self-signed certificate with `sans` and the Common Name `cn`, DER.
    fn certificate(cn: &str, sans: Vec<SanType>) -> Vec<u8> {
        let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).unwrap();
        let mut params = CertificateParams::default();
        params.distinguished_name = dn(cn);
        params.subject_alt_names = sans;
        params.self_signed(&key).unwrap().der().to_vec()
    }

    #[test]
    fn the_served_names_are_the_san_dns_names_and_ip_addresses() {
        let tls = TlsMaterial::generate(&ServingNames::for_service("hook", "system"), None).unwrap();
        let der = parse_certificates(tls.cert_pem.as_bytes()).unwrap().remove(0);
        let names = CertificateNames::of(&der).unwrap();
        assert_eq!(names.dns, ["localhost", "hook.system.svc", "hook.system.svc.cluster.local"]);
        assert_eq!(names.ips, [IpAddr::V4(Ipv4Addr::LOCALHOST), IpAddr::V6(Ipv6Addr::LOCALHOST)]);
        assert!(names.has_san_extension);
        assert_eq!(names.common_name.as_deref(), Some("webhook-conformance serving certificate"));
        assert_eq!(
            names.describe(),
            "DNS names localhost, hook.system.svc, hook.system.svc.cluster.local; IP addresses 127.0.0.1, ::1"
        );
        // Go names the DNS names for a host name, the IP addresses for an IP.
        assert_eq!(
            names.go_hostname_error("other.system.svc"),
            "x509: certificate is valid for localhost, hook.system.svc, hook.system.svc.cluster.local, not other.system.svc"
        );
        assert_eq!(names.go_hostname_error("10.0.0.1"), "x509: certificate is valid for 127.0.0.1, ::1, not 10.0.0.1");
        assert_eq!(names.go_hostname_error("[::2]"), "x509: certificate is valid for 127.0.0.1, ::1, not ::2");
    }

    #[test]
    fn go_words_a_certificate_without_names_of_the_kind_called() {
        let dns_only = CertificateNames::of(&certificate("x", vec![SanType::DnsName("a.example".try_into().unwrap())]));
        let dns_only = dns_only.unwrap();
        assert!(dns_only.ips.is_empty());
        assert_eq!(
            dns_only.go_hostname_error("10.0.0.1"),
            "x509: cannot validate certificate for 10.0.0.1 because it doesn't contain any IP SANs"
        );
        let ip_only = CertificateNames::of(&certificate("x", vec![SanType::IpAddress(Ipv4Addr::LOCALHOST.into())]));
        assert_eq!(
            ip_only.unwrap().go_hostname_error("hook.system.svc"),
            "x509: certificate is not valid for any names, but wanted to match hook.system.svc"
        );
        // No subjectAltName at all, the Common Name matching: Go blames the legacy field.
        let legacy = CertificateNames::of(&certificate("Hook.System.svc", vec![])).unwrap();
        assert!(!legacy.has_san_extension);
        assert_eq!(
            legacy.describe(),
            "no subjectAltName names (only the Common Name \"Hook.System.svc\", which is not matched)"
        );
        assert_eq!(
            legacy.go_hostname_error("hook.system.svc."),
            "x509: certificate relies on legacy Common Name field, use SANs instead"
        );
        assert_eq!(
            legacy.go_hostname_error("other.system.svc"),
            "x509: certificate is not valid for any names, but wanted to match other.system.svc"
        );
        let wildcard = CertificateNames::of(&certificate("*.system.svc", vec![])).unwrap();
        assert!(wildcard.go_hostname_error("hook.system.svc").contains("legacy Common Name"));
        assert!(!wildcard.go_hostname_error("a.hook.system.svc").contains("legacy Common Name"));
    }
}
