//! Targets: where the webhook under test runs. A URL the user runs, a command the harness starts with
//! generated TLS, or anything else that can hand over an [`Endpoint`] (the CLI's embedded reference
//! webhook, a container).

mod command;
pub mod container;

pub use command::{start as start_command, substitute, StartError};
pub use container::{start as start_image, ContainerError, ContainerTarget, ImageSpec};

use std::any::Any;
use std::net::SocketAddr;

pub use command::{CommandTarget, ProcessStatus};

use crate::client::Endpoint;
use crate::config::WebhookSpec;
use crate::tls::{ServingNames, TlsMaterial};

/// A target that is up and reachable.
pub struct RunningTarget {
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
}

/// What a started target (other than a command) can tell about itself: its output and whether it
/// has exited. Dropping it stops the target.
pub trait TargetMonitor: Send + Sync {
    /// The last lines the target wrote.
    fn log_tail(&self) -> String;
    /// `Some(description)` once the target has exited, `None` while it runs.
    fn exit_status(&mut self) -> Option<String>;
}

impl RunningTarget {
    /// A target the harness did not start.
    pub fn external(endpoint: Endpoint, description: String, ca_file: Option<std::path::PathBuf>) -> Self {
        RunningTarget {
            endpoint,
            description,
            tls: None,
            process: None,
            user_ca: ca_file,
            _guard: None,
            monitor: None,
            notes: Vec::new(),
        }
    }

    /// A target kept alive by `guard` (dropped with the target).
    pub fn guarded(
        endpoint: Endpoint,
        description: String,
        tls: Option<TlsMaterial>,
        guard: Box<dyn Any + Send + Sync>,
    ) -> Self {
        RunningTarget {
            endpoint,
            description,
            tls,
            process: None,
            user_ca: None,
            _guard: Some(guard),
            monitor: None,
            notes: Vec::new(),
        }
    }

    /// A target whose `monitor` reports its output and exit, and stops it when dropped.
    pub fn monitored(
        endpoint: Endpoint,
        description: String,
        tls: Option<TlsMaterial>,
        monitor: Box<dyn TargetMonitor>,
    ) -> Self {
        RunningTarget {
            endpoint,
            description,
            tls,
            process: None,
            user_ca: None,
            _guard: None,
            monitor: Some(monitor),
            notes: Vec::new(),
        }
    }

    pub(crate) fn with_process(
        endpoint: Endpoint,
        description: String,
        tls: TlsMaterial,
        process: CommandTarget,
    ) -> Self {
        RunningTarget {
            endpoint,
            description,
            tls: Some(tls),
            process: Some(process),
            user_ca: None,
            _guard: None,
            monitor: None,
            notes: Vec::new(),
        }
    }

    /// The tail of the target's output, when the harness started it.
    pub fn log_tail(&self) -> Option<String> {
        self.process.as_ref().map(|p| p.log_tail()).or_else(|| self.monitor.as_ref().map(|m| m.log_tail()))
    }

    /// Has a started target exited? (`None` when still running or not started by the harness.)
    pub fn exit_status(&mut self) -> Option<String> {
        if let Some(m) = self.monitor.as_mut() {
            return m.exit_status();
        }
        self.process.as_mut().and_then(|p| match p.status() {
            ProcessStatus::Running => None,
            ProcessStatus::Exited(s) => Some(s),
        })
    }

    /// The CA file a reproducer can trust after the run: the user's, or generated files that are kept.
    pub fn reproducer_ca(&self) -> Option<std::path::PathBuf> {
        if let Some(p) = &self.user_ca {
            return Some(p.clone());
        }
        self.tls.as_ref().filter(|t| !t.is_temporary()).map(|t| t.ca_path())
    }
}

/// The TLS names the webhooks' manifests call for: the service DNS names of every webhook that
/// names a service.
pub fn serving_names(webhooks: &[WebhookSpec]) -> ServingNames {
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

/// The endpoint of a local target listening on `addr`: called by the first webhook's service name
/// (resolved to `addr`, as the apiserver's SNI would be) or by `127.0.0.1`.
pub fn local_endpoint(webhooks: &[WebhookSpec], addr: SocketAddr, ca_pem: &[u8]) -> Endpoint {
    let service = webhooks.iter().find_map(|w| w.client_config.service.as_ref());
    let (host, resolve_to) = match service {
        Some(s) => (format!("{}.{}.svc", s.name, s.namespace), Some(addr)),
        None => (addr.ip().to_string(), None),
    };
    let base = reqwest::Url::parse(&format!("https://{host}:{}/", addr.port())).expect("valid URL");
    Endpoint { base, resolve_to, ca_pem: ca_pem.to_vec(), path_override: false }
}

/// Pick a free TCP port on loopback.
pub fn free_port() -> std::io::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}
