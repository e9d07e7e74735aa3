//! What the suite presents to a webhook when it calls it as the apiserver: a client certificate, a
//! bearer token, basic credentials, impersonation headers, or nothing.

use std::fmt;
use std::path::{Path, PathBuf};

use base64::Engine as _;

use crate::error::{Error, InputError};

/// Who the suite is to a webhook. The default is anonymous.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ClientIdentity {
    /// A client certificate chain and its private key (PEM).
    pub certificate: Option<(String, String)>,
    /// The files they came from, when they came from files (for replay commands).
    pub certificate_files: Option<(PathBuf, PathBuf)>,
    /// `Authorization: Bearer <token>`.
    pub bearer_token: Option<String>,
    /// `Authorization: Basic` user and password.
    pub basic: Option<(String, String)>,
    /// Impersonation headers (`Impersonate-User`, `Impersonate-Group`, `Impersonate-Extra-*`).
    pub impersonate: Vec<(String, String)>,
    /// Where it comes from, e.g. `--client-cert hook.crt`, `kubeconfig user "*.svc" of /etc/…`.
    pub source: String,
}

impl fmt::Debug for ClientIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Secrets stay out of debug output.
        f.debug_struct("ClientIdentity").field("presents", &self.describe()).field("source", &self.source).finish()
    }
}

/// Read a file, naming it as `what` on error.
fn read_pem(what: &str, path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| Error::input(format!("{what} {}", path.display()), e))
}

impl ClientIdentity {
    /// Nobody: no credentials at all.
    pub fn anonymous() -> ClientIdentity {
        ClientIdentity::default()
    }

    /// True when nothing is presented.
    pub fn is_anonymous(&self) -> bool {
        self.certificate.is_none() && self.bearer_token.is_none() && self.basic.is_none() && self.impersonate.is_empty()
    }

    /// A client certificate and key from PEM files.
    pub fn from_files(cert: &Path, key: &Path) -> Result<ClientIdentity, Error> {
        let cert_pem = read_pem("--client-cert", cert)?;
        let key_pem = read_pem("--client-key", key)?;
        let identity = ClientIdentity {
            certificate: Some((cert_pem, key_pem)),
            certificate_files: Some((cert.to_path_buf(), key.to_path_buf())),
            source: format!("--client-cert {}", cert.display()),
            ..ClientIdentity::default()
        };
        identity.check().map_err(|e| {
            let what = format!("--client-cert {} --client-key {}", cert.display(), key.display());
            Error::input(what, InputError::Invalid(e.into()))
        })?;
        Ok(identity)
    }

    /// The same identity, also sending `Authorization: Bearer <token>`.
    pub fn with_token(mut self, token: impl Into<String>) -> ClientIdentity {
        self.bearer_token = Some(token.into().trim().to_string());
        if self.source.is_empty() {
            self.source = "a bearer token".into();
        }
        self
    }

    /// That the certificate and key parse and that not both a token and basic credentials are set.
    pub(crate) fn check(&self) -> Result<(), IdentityError> {
        if let Some((cert, key)) = &self.certificate {
            crate::tls::parse_certificates(cert.as_bytes()).map_err(IdentityError::Certificate)?;
            match rustls_pemfile::private_key(&mut key.as_bytes()) {
                Ok(Some(_)) => {}
                Ok(None) => return Err(IdentityError::NoKey),
                Err(e) => return Err(IdentityError::Key(e)),
            }
        }
        if self.bearer_token.is_some() && self.basic.is_some() {
            return Err(IdentityError::TokenAndBasic);
        }
        Ok(())
    }

    /// What is presented, in words (no secret), e.g. `a client certificate and a bearer token`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.certificate.is_some() {
            parts.push("a client certificate".to_string());
        }
        if self.bearer_token.is_some() {
            parts.push("a bearer token".into());
        }
        if let Some((user, _)) = &self.basic {
            parts.push(format!("basic credentials of {user:?}"));
        }
        if let Some((_, user)) = self.impersonate.iter().find(|(h, _)| h == "Impersonate-User") {
            parts.push(format!("impersonation of {user:?}"));
        }
        if parts.is_empty() {
            "no credentials".into()
        } else {
            parts.join(" and ")
        }
    }

    /// The `Authorization` header value, if any.
    pub(crate) fn authorization(&self) -> Option<String> {
        if let Some(token) = &self.bearer_token {
            return Some(format!("Bearer {token}"));
        }
        self.basic.as_ref().map(|(user, password)| {
            format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}")))
        })
    }
}

/// Why a client identity cannot be presented.
#[derive(Debug, thiserror::Error)]
pub(crate) enum IdentityError {
    /// The client certificate does not parse.
    #[error("the client certificate: {0}")]
    Certificate(#[source] Error),
    /// The client key file holds no key.
    #[error("the client key: no PEM private key found")]
    NoKey,
    /// The client key file does not parse.
    #[error("the client key: {0}")]
    Key(#[source] std::io::Error),
    /// Two kinds of credentials at once.
    #[error("username/password or bearer token may be set, but not both")]
    TokenAndBasic,
}
