//! Targets: where the webhook under test runs. A URL the user runs, a command the harness starts with
//! generated TLS, a container image, or a server in this process ([`Target`]); [`start`] turns one
//! into a [`RunningTarget`] the client can call, and stops it when that is dropped.

mod command;
pub(crate) mod container;
mod port;
mod ready;
mod tail;
mod url;

pub use container::{ImageSpec, RUN_LABEL};
pub use url::{Resolve, ResolveError};

use std::any::Any;
use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::time::Duration;

use command::{CommandTarget, ProcessStatus, StartError};
use container::ContainerError;
use port::free_port;

use crate::apiserver::{ApiServer, Recording};
use crate::client::Endpoint;
use crate::config::WebhookSpec;
use crate::error::{Error, TargetError};
use crate::tls::{ServingNames, TlsMaterial};

/// The serving certificate and key an in-process server is to use (PEM), issued by the run's CA.
#[derive(Clone, Debug)]
pub struct ServingTls {
    /// The serving certificate chain, PEM.
    pub cert_pem: String,
    /// Its private key, PEM.
    pub key_pem: String,
    /// The CA that signed it, PEM: also the CA of the client certificate the suite presents when it
    /// generates one (a server requiring client certificates trusts this one).
    pub ca_pem: String,
}

/// What an in-process server hands back: where it listens, and a guard that stops it when dropped.
pub struct Served {
    /// The address it accepts connections on.
    pub addr: SocketAddr,
    /// Dropped at the end of the run: stop the server in its `Drop`.
    pub guard: Box<dyn Any + Send + Sync>,
}

/// Why an in-process server did not start: any error of the server's own (`?` converts one, and a
/// message), its sources kept.
pub type ServeError = Box<dyn std::error::Error + Send + Sync>;

/// A future of an in-process server's start.
pub(crate) type ServeFuture = Pin<Box<dyn Future<Output = Result<Served, ServeError>> + Send>>;

/// Starts an in-process server with the given TLS.
pub(crate) type ServeFn = Box<dyn FnOnce(ServingTls) -> ServeFuture + Send>;

/// Where the webhook under test runs.
pub enum Target {
    /// A webhook the user runs: its URL (a path overrides the manifest's) and the CA file (PEM) that
    /// signed its certificate.
    Url {
        /// `https://host:port[/path]`.
        url: String,
        /// The CA bundle file; `None`: the manifest's `clientConfig.caBundle`, as the apiserver trusts.
        ca: Option<PathBuf>,
        /// Where to connect for the URL's host and port instead of asking DNS (`--resolve`).
        resolve: Vec<Resolve>,
    },
    /// A command the suite starts with a fresh CA and serving certificate; `{cert}` `{key}` `{ca}`
    /// `{client_ca}` `{port}` `{host}` are substituted (and exported as `WEBHOOK_TLS_CERT`, …
    /// `WEBHOOK_CLIENT_CA`, `WEBHOOK_PORT`).
    Command {
        /// The command line, run by `sh -c`.
        command: String,
        /// How long it has to accept a TLS handshake.
        startup_timeout: Duration,
    },
    /// A container image on the local Docker engine (never pulled).
    Image(ImageSpec),
    /// A server in this process (e.g. your webhook's router in a test), started with the run's TLS.
    InProcess {
        /// How reports name it.
        description: String,
        /// Starts it.
        serve: ServeFn,
    },
}

impl Target {
    /// A command target with the default startup timeout (30 s).
    pub fn command(command: impl Into<String>) -> Target {
        Target::Command { command: command.into(), startup_timeout: Duration::from_secs(30) }
    }

    /// A URL target trusting the CA in `ca`.
    pub fn url(url: impl Into<String>, ca: impl AsRef<Path>) -> Target {
        Target::Url { url: url.into(), ca: Some(ca.as_ref().to_path_buf()), resolve: Vec::new() }
    }

    /// A URL target trusting what the apiserver trusts: the manifest's `clientConfig.caBundle` (e.g.
    /// the suite run in the cluster, against the webhook's Service).
    pub fn url_trusting_ca_bundle(url: impl Into<String>) -> Target {
        Target::Url { url: url.into(), ca: None, resolve: Vec::new() }
    }

    /// An in-process server: `serve` gets the run's serving certificate and key and returns where
    /// it listens.
    pub fn in_process<F, Fut>(description: impl Into<String>, serve: F) -> Target
    where
        F: FnOnce(ServingTls) -> Fut + Send + 'static,
        Fut: Future<Output = Result<Served, ServeError>> + Send + 'static,
    {
        Target::InProcess { description: description.into(), serve: Box::new(move |tls| Box::pin(serve(tls))) }
    }
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Url { url, ca, resolve } => {
                f.debug_struct("Url").field("url", url).field("ca", ca).field("resolve", resolve).finish()
            }
            Target::Command { command, startup_timeout } => {
                f.debug_struct("Command").field("command", command).field("startup_timeout", startup_timeout).finish()
            }
            Target::Image(spec) => f.debug_tuple("Image").field(spec).finish(),
            Target::InProcess { description, .. } => {
                f.debug_struct("InProcess").field("description", description).finish()
            }
        }
    }
}

/// Why a target could not be used.
#[derive(Debug)]
pub(crate) enum StartFailure {
    /// The input is at fault (exit 2).
    Input(Error),
    /// The target started but never served: a `target.ready` FAIL (its output tail included).
    NotReady(String),
}

impl From<Error> for StartFailure {
    fn from(e: Error) -> Self {
        StartFailure::Input(e)
    }
}

/// The TLS material a started target gets: a fresh CA and serving certificate for `webhooks` (kept
/// in `keep_in` when given), and a client certificate from the same CA when `client_certificate`.
pub(crate) fn generate_tls(
    webhooks: &[WebhookSpec],
    keep_in: Option<&Path>,
    client_certificate: bool,
) -> Result<TlsMaterial, Error> {
    let names = serving_names(webhooks);
    if client_certificate {
        TlsMaterial::generate_with_client(&names, keep_in)
    } else {
        TlsMaterial::generate(&names, keep_in)
    }
}

/// Start `target` for `webhooks`; generated TLS files are kept in `tls_dir` when given, and the
/// generated CA also issues a client certificate when `client_certificate`.
pub(crate) async fn start(
    target: Target,
    webhooks: &[WebhookSpec],
    tls_dir: Option<&Path>,
    client_certificate: bool,
) -> Result<RunningTarget, StartFailure> {
    match target {
        Target::Url { url, ca, resolve } => Ok(url::start(&url, ca.as_deref(), &resolve, webhooks).await?),
        Target::Command { command, startup_timeout } => {
            match command::start(&command, webhooks, tls_dir, client_certificate, startup_timeout).await {
                Ok(t) => Ok(t),
                Err(e @ StartError::Spawn(_)) => Err(Error::target("--cmd", TargetError::Start(e.into())).into()),
                Err(e) => Err(StartFailure::NotReady(e.to_string())),
            }
        }
        Target::Image(spec) => match container::start(&spec, webhooks, tls_dir, client_certificate).await {
            Ok(t) => Ok(t),
            Err(e @ (ContainerError::Setup(_) | ContainerError::NoDocker(_))) => {
                Err(Error::target(format!("--image {}", spec.image), TargetError::Start(e.into())).into())
            }
            Err(e) => Err(StartFailure::NotReady(e.to_string())),
        },
        Target::InProcess { description, serve } => {
            let tls = generate_tls(webhooks, tls_dir, client_certificate)?;
            let serving =
                ServingTls { cert_pem: tls.cert_pem.clone(), key_pem: tls.key_pem.clone(), ca_pem: tls.ca_pem.clone() };
            let served =
                serve(serving).await.map_err(|e| StartFailure::NotReady(format!("{description}: {}", chain(&*e))))?;
            let endpoint = local_endpoint(webhooks, served.addr, tls.ca_pem.as_bytes());
            Ok(RunningTarget::guarded(endpoint, description, Some(tls), served.guard))
        }
    }
}

/// An error and its sources, as one line.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(&format!(": {more}"));
        }
        source = s.source();
    }
    text
}

/// A target that is up and reachable.
pub(crate) struct RunningTarget {
    pub endpoint: Endpoint,
    /// A description for reports, e.g. `command: ./hook --port 8443`.
    pub description: String,
    /// The generated TLS material, when the harness made it (removed on drop unless kept).
    pub tls: Option<TlsMaterial>,
    process: Option<CommandTarget>,
    /// A CA file of the user's, for reproducers.
    user_ca: Option<std::path::PathBuf>,
    /// Anything else whose drop stops the target (an in-process server, a container).
    _guard: Option<Box<dyn Any + Send + Sync>>,
    /// A target started by other means than a command that can still report its output and exit
    /// (a container); dropped, and so stopped, with the target.
    monitor: Option<Box<dyn TargetMonitor>>,
    /// Things about the target the report should say (e.g. which TLS name was verified).
    pub notes: Vec<String>,
    /// The webhook serves the user's own certificate (a URL target): the manifest's caBundle can be
    /// checked against it.
    pub user_certificates: bool,
    /// The recording Kubernetes API the target was given (a command or an image).
    api: Option<ApiServer>,
}

/// What a started target (other than a command) can tell about itself: its output and whether it
/// has exited. Dropping it stops the target.
pub(crate) trait TargetMonitor: Send + Sync {
    /// The last lines the target wrote.
    fn log_tail(&self) -> String;
    /// `Some(description)` once the target has exited, `None` while it runs.
    fn exit_status(&mut self) -> Option<String>;
}

impl RunningTarget {
    fn new(endpoint: Endpoint, description: String, tls: Option<TlsMaterial>) -> Self {
        RunningTarget {
            endpoint,
            description,
            tls,
            process: None,
            user_ca: None,
            _guard: None,
            monitor: None,
            notes: Vec::new(),
            user_certificates: false,
            api: None,
        }
    }

    /// The same target, given the recording API `api` (stopped with the target).
    pub(crate) fn serving_api(mut self, api: ApiServer) -> Self {
        self.api = Some(api);
        self
    }

    /// The calls the target made to the recording API, when it was given one.
    pub(crate) fn api_recording(&self) -> Option<&std::sync::Arc<Recording>> {
        self.api.as_ref().map(|a| a.recording())
    }

    /// A target the harness did not start.
    pub(crate) fn external(endpoint: Endpoint, description: String, ca_file: Option<PathBuf>) -> Self {
        RunningTarget { user_ca: ca_file, ..RunningTarget::new(endpoint, description, None) }
    }

    /// A target kept alive by `guard` (dropped with the target).
    pub(crate) fn guarded(
        endpoint: Endpoint,
        description: String,
        tls: Option<TlsMaterial>,
        guard: Box<dyn Any + Send + Sync>,
    ) -> Self {
        RunningTarget { _guard: Some(guard), ..RunningTarget::new(endpoint, description, tls) }
    }

    /// A target whose `monitor` reports its output and exit, and stops it when dropped.
    pub(crate) fn monitored(
        endpoint: Endpoint,
        description: String,
        tls: Option<TlsMaterial>,
        monitor: Box<dyn TargetMonitor>,
    ) -> Self {
        RunningTarget { monitor: Some(monitor), ..RunningTarget::new(endpoint, description, tls) }
    }

    pub(crate) fn with_process(
        endpoint: Endpoint,
        description: String,
        tls: TlsMaterial,
        process: CommandTarget,
    ) -> Self {
        RunningTarget { process: Some(process), ..RunningTarget::new(endpoint, description, Some(tls)) }
    }

    /// The tail of the target's output, when the harness started it.
    pub(crate) fn log_tail(&self) -> Option<String> {
        self.process.as_ref().map(|p| p.log_tail()).or_else(|| self.monitor.as_ref().map(|m| m.log_tail()))
    }

    /// Has a started target exited? (`None` when still running or not started by the harness.)
    pub(crate) fn exit_status(&mut self) -> Option<String> {
        if let Some(m) = self.monitor.as_mut() {
            return m.exit_status();
        }
        self.process.as_mut().and_then(|p| match p.status() {
            ProcessStatus::Running => None,
            ProcessStatus::Exited(s) => Some(s),
        })
    }

    /// The CA file a reproducer can trust after the run: the user's, or generated files that are kept.
    pub(crate) fn reproducer_ca(&self) -> Option<std::path::PathBuf> {
        if let Some(p) = &self.user_ca {
            return Some(p.clone());
        }
        self.tls.as_ref().filter(|t| !t.is_temporary()).map(|t| t.ca_path())
    }
}

/// The TLS names the webhooks' manifests call for: the service DNS names of every webhook that
/// names a service.
pub(crate) fn serving_names(webhooks: &[WebhookSpec]) -> ServingNames {
    let mut names = ServingNames::default();
    for w in webhooks {
        if let Some(svc) = &w.client_config.service {
            for n in ServingNames::for_service(&svc.name, &svc.namespace).dns {
                if !names.dns.contains(&n) {
                    names.dns.push(n);
                }
            }
        }
    }
    names
}

/// The endpoint of a local target listening on `addr`: each webhook that names a service called by
/// its service name (resolved to `addr`, as the apiserver's SNI would be), the others by the first
/// service name or by `127.0.0.1`.
pub(crate) fn local_endpoint(webhooks: &[WebhookSpec], addr: SocketAddr, ca_pem: &[u8]) -> Endpoint {
    let services: Vec<(&str, String)> = webhooks
        .iter()
        .filter_map(|w| {
            w.client_config.service.as_ref().map(|s| (w.name.as_str(), format!("{}.{}.svc", s.name, s.namespace)))
        })
        .collect();
    let (host, resolve_to) = match services.first() {
        Some((_, name)) => (name.clone(), Some(addr)),
        None => (addr.ip().to_string(), None),
    };
    let base = reqwest::Url::parse(&format!("https://{host}:{}/", addr.port())).expect("valid URL");
    let hosts = services.into_iter().filter(|(_, n)| *n != host).map(|(w, n)| (w.to_string(), n)).collect();
    Endpoint { base, resolve_to, ca_pem: ca_pem.to_vec(), path_override: false, hosts }
}
