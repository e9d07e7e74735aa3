//! A Kubernetes API served by the suite to the webhook under test, recording every call: what a
//! webhook that talks to its cluster reads and writes while it admits the suite's requests.
//!
//! The suite serves it over HTTPS with a CA of its own and a bearer token it issues, and hands the
//! webhook the ways real webhooks find their API server ([`ApiServer::command_env`],
//! [`ApiServer::container_env`]):
//!
//! - a kubeconfig file (`KUBECONFIG`; `{kubeconfig}` in a command line), written as JSON (a subset
//!   of YAML every kubeconfig reader takes) with the server, the CA and the token;
//! - in-cluster settings: `KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT`, and the
//!   service-account files `token`, `ca.crt` and `namespace` (`default`) — mounted at
//!   `/var/run/secrets/kubernetes.io/serviceaccount` in a container, in a directory named by
//!   `{serviceaccount}` and `WEBHOOK_SERVICEACCOUNT` for a command.
//!
//! Every call is kept ([`record`]); what it answers is [`store`]'s. A call without the issued
//! token gets 401 and changes nothing. The server and its files go when the [`ApiServer`] is dropped
//! (also while a panic unwinds). Calls to anything but this API (other services, files, clouds)
//! are outside what the suite sees.

pub(crate) mod record;
mod server;
pub(crate) mod store;

use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::json;

pub(crate) use record::{ApiCall, Recording};

use crate::error::Cause;
use crate::tls::{ServingNames, TlsMaterial};

/// Where a container finds the service-account files.
pub(crate) const SERVICE_ACCOUNT_MOUNT: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// Why the recording API could not be served.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ApiServerError {
    /// Its certificate could not be made.
    #[error("the recording Kubernetes API's certificate: {0}")]
    Tls(#[source] crate::error::Cause),
    /// It could not listen on the address.
    #[error("the recording Kubernetes API cannot listen on {addr}: {source}")]
    Bind { addr: String, source: std::io::Error },
    /// Its files could not be written.
    #[error("the recording Kubernetes API's files: {0}")]
    Files(std::io::Error),
}

/// The recording API, serving until dropped.
pub(crate) struct ApiServer {
    addr: SocketAddr,
    token: String,
    ca_pem: String,
    recording: Arc<Recording>,
    files: tempfile::TempDir,
    task: tokio::task::JoinHandle<()>,
    _tls: TlsMaterial,
}

impl std::fmt::Debug for ApiServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiServer").field("addr", &self.addr).field("files", &self.files.path()).finish()
    }
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn write_file(path: &Path, contents: &str, mode: u32) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(mode).open(path)?;
    f.write_all(contents.as_bytes())
}

impl ApiServer {
    /// Serve on `bind` (port chosen by the system), with a fresh CA, certificate and token. Must be
    /// called inside a tokio runtime.
    pub(crate) async fn start(bind: IpAddr) -> Result<ApiServer, ApiServerError> {
        let names = ServingNames {
            dns: ["kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"]
                .map(String::from)
                .to_vec(),
            ips: vec![bind],
        };
        let tls = TlsMaterial::generate(&names, None).map_err(|e| ApiServerError::Tls(e.into()))?;
        let config = server_config(&tls).map_err(ApiServerError::Tls)?;
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(bind, 0))
            .await
            .map_err(|source| ApiServerError::Bind { addr: bind.to_string(), source })?;
        let addr = listener.local_addr().map_err(|source| ApiServerError::Bind { addr: bind.to_string(), source })?;
        let token = format!("wc-{}", uuid::Uuid::new_v4().simple());
        let recording = Arc::new(Recording::default());
        let shared = Arc::new(server::Shared {
            token: token.clone(),
            store: Mutex::new(store::Store::default()),
            recording: recording.clone(),
        });
        let task = tokio::spawn(server::serve(listener, config, shared));
        let files =
            tempfile::Builder::new().prefix("webhook-conformance-api-").tempdir().map_err(ApiServerError::Files);
        let files = match files {
            Ok(f) => f,
            Err(e) => {
                task.abort();
                return Err(e);
            }
        };
        let server = ApiServer { addr, token, ca_pem: tls.ca_pem.clone(), recording, files, task, _tls: tls };
        server.write_files().map_err(ApiServerError::Files)?;
        Ok(server)
    }

    fn write_files(&self) -> std::io::Result<()> {
        // Readable by a container's user whatever its uid, as a projected service-account volume is.
        std::fs::set_permissions(self.files.path(), std::fs::Permissions::from_mode(0o755))?;
        std::fs::create_dir(self.service_account_dir())?;
        std::fs::set_permissions(self.service_account_dir(), std::fs::Permissions::from_mode(0o755))?;
        write_file(&self.service_account_dir().join("token"), &self.token, 0o644)?;
        write_file(&self.service_account_dir().join("ca.crt"), &self.ca_pem, 0o644)?;
        write_file(&self.service_account_dir().join("namespace"), "default", 0o644)?;
        write_file(&self.kubeconfig_path(), &self.kubeconfig(&self.url()), 0o644)
    }

    /// A kubeconfig (JSON) reaching the API at `server`.
    pub(crate) fn kubeconfig(&self, server: &str) -> String {
        use base64::Engine as _;
        let ca = base64::engine::general_purpose::STANDARD.encode(&self.ca_pem);
        let config = json!({
            "apiVersion": "v1", "kind": "Config", "preferences": {},
            "clusters": [{"name": "webhook-conformance", "cluster": {"server": server, "certificate-authority-data": ca}}],
            "users": [{"name": "webhook", "user": {"token": self.token}}],
            "contexts": [{"name": "webhook-conformance", "context": {"cluster": "webhook-conformance", "user": "webhook", "namespace": "default"}}],
            "current-context": "webhook-conformance",
        });
        serde_json::to_string_pretty(&config).expect("a JSON value serializes")
    }

    /// `https://ADDR:PORT`.
    pub(crate) fn url(&self) -> String {
        format!("https://{}", self.addr)
    }

    /// Where it listens.
    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The kubeconfig file.
    pub(crate) fn kubeconfig_path(&self) -> PathBuf {
        self.files.path().join("kubeconfig")
    }

    /// The directory holding `token`, `ca.crt` and `namespace`.
    pub(crate) fn service_account_dir(&self) -> PathBuf {
        self.files.path().join("serviceaccount")
    }

    /// The calls recorded so far.
    pub(crate) fn recording(&self) -> &Arc<Recording> {
        &self.recording
    }

    /// The environment a command gets.
    pub(crate) fn command_env(&self) -> Vec<(String, String)> {
        vec![
            ("KUBECONFIG".into(), self.kubeconfig_path().display().to_string()),
            ("KUBERNETES_SERVICE_HOST".into(), self.addr.ip().to_string()),
            ("KUBERNETES_SERVICE_PORT".into(), self.addr.port().to_string()),
            ("KUBERNETES_SERVICE_PORT_HTTPS".into(), self.addr.port().to_string()),
            ("WEBHOOK_SERVICEACCOUNT".into(), self.service_account_dir().display().to_string()),
        ]
    }

    /// The environment a container gets (its kubeconfig and service-account files mounted at
    /// `kubeconfig_in` and [`SERVICE_ACCOUNT_MOUNT`]).
    pub(crate) fn container_env(&self, kubeconfig_in: &str) -> Vec<(String, String)> {
        vec![
            ("KUBECONFIG".into(), kubeconfig_in.to_string()),
            ("KUBERNETES_SERVICE_HOST".into(), self.addr.ip().to_string()),
            ("KUBERNETES_SERVICE_PORT".into(), self.addr.port().to_string()),
            ("KUBERNETES_SERVICE_PORT_HTTPS".into(), self.addr.port().to_string()),
            ("WEBHOOK_SERVICEACCOUNT".into(), SERVICE_ACCOUNT_MOUNT.to_string()),
        ]
    }

    /// The directory of its files (the kubeconfig and `serviceaccount/`).
    #[cfg(test)]
    pub(crate) fn files_dir(&self) -> &Path {
        self.files.path()
    }
}

/// The recording API's TLS: its certificate, HTTP/2 or HTTP/1.1.
fn server_config(tls: &TlsMaterial) -> Result<Arc<rustls::ServerConfig>, Cause> {
    let certs = crate::tls::parse_certificates(tls.cert_pem.as_bytes())?;
    let key = rustls_pemfile::private_key(&mut tls.key_pem.as_bytes())?.ok_or("no private key")?;
    let mut config = rustls::ServerConfig::builder_with_provider(crate::tls::provider())
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(certs, key)?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests;
