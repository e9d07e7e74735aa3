//! The bundled reference admission webhook: a correct mutating (`POST /mutate`) and validating
//! (`POST /validate`) webhook served over HTTPS (HTTP/1.1 and HTTP/2), plus [`Defect`] switches
//! that each break exactly one promise of the webhook protocol.

#![warn(unreachable_pub)]

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context as _;

pub mod defect;
pub mod mutate;
pub mod review;
pub mod server;
pub mod tls;
pub mod validate;

#[cfg(test)]
mod tests;

pub use defect::{Defect, UnknownDefect};
pub use review::{Action, Endpoint, Reply};
pub use tls::{server_tls_config, server_tls_config_for_clients};

/// The MutatingWebhookConfiguration and ValidatingWebhookConfiguration describing this webhook.
pub const MANIFEST: &str = include_str!("../manifests/reference.yaml");

/// How the webhook behaves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The protocol defect to commit, none for a correct webhook.
    pub defect: Option<Defect>,
}

/// Harmless ways of answering (not defects): a cluster accepts them. The first two write the same
/// mutation another way and end with the same object. The suite must pass them all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// Send the patch operations in reverse order (they are independent: same result).
    pub reorder_ops: bool,
    /// When nothing needs to change, send a patch anyway: a `test` of the label and a `replace`
    /// of it with the value it already has (same result as no patch).
    pub restate_unchanged: bool,
    /// Also give each pod it admits on CREATE an image volume (`spec.volumes[*].image`): a valid
    /// mutation of a field whose validation the suite does not model (it names the field).
    pub image_volume: bool,
}

/// Serves the webhook on an already-bound listener with the given TLS config; runs until the task
/// running it is aborted.
pub async fn serve(
    listener: tokio::net::TcpListener,
    tls: Arc<rustls::ServerConfig>,
    opts: Options,
) -> anyhow::Result<()> {
    let tls = server::effective_tls(tls, opts)?;
    server::serve_prepared(listener, tls, opts).await
}

/// A webhook served in the background on 127.0.0.1; dropping it stops the server and closes
/// its connections.
#[derive(Debug)]
pub struct RunningWebhook {
    /// The address served.
    pub addr: SocketAddr,
    task: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

impl RunningWebhook {
    /// `https://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        format!("https://{}", self.addr)
    }

    /// Stops the server and waits until it has stopped.
    pub async fn shutdown(mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
            let _ = task.await;
        }
    }
}

impl Drop for RunningWebhook {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

/// Binds 127.0.0.1 on a free port and serves the webhook there in a background task.
pub async fn spawn(tls: Arc<rustls::ServerConfig>, opts: Options) -> anyhow::Result<RunningWebhook> {
    spawn_styled(tls, opts, Style::default()).await
}

/// [`spawn`], writing its mutations in a harmless [`Style`].
pub async fn spawn_styled(
    tls: Arc<rustls::ServerConfig>,
    opts: Options,
    style: Style,
) -> anyhow::Result<RunningWebhook> {
    let tls = server::effective_tls(tls, opts)?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.context("binding 127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let task = tokio::spawn(server::serve_prepared_styled(listener, tls, opts, style));
    Ok(RunningWebhook { addr, task: Some(task) })
}
