//! The target of `cargo test`: `WEBHOOK_URL` + `WEBHOOK_CA`, or `WEBHOOK_CMD`, or `WEBHOOK_IMAGE`
//! (with optional `WEBHOOK_IMAGE_PORT`, `WEBHOOK_IMAGE_CERT_DIR` and whitespace-separated
//! `WEBHOOK_IMAGE_ARGS`), with `WEBHOOK_CONFIG`;
//! the bundled reference webhook when none is set.

use std::path::PathBuf;

use webhook_harness::config::{Manifest, WebhookSpec};
use webhook_harness::target::RunningTarget;

use crate::cli::{start_target, TargetChoice};

/// Read the target and manifest from the environment.
pub fn from_env() -> anyhow::Result<(TargetChoice, Manifest)> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let choice = match (var("WEBHOOK_URL"), var("WEBHOOK_CMD")) {
        (Some(_), Some(_)) => anyhow::bail!("set WEBHOOK_URL or WEBHOOK_CMD, not both"),
        (Some(_), _) | (_, Some(_)) if var("WEBHOOK_IMAGE").is_some() => {
            anyhow::bail!("set one of WEBHOOK_URL, WEBHOOK_CMD, WEBHOOK_IMAGE")
        }
        (Some(url), None) => {
            let ca = var("WEBHOOK_CA").ok_or_else(|| {
                anyhow::anyhow!("WEBHOOK_URL needs WEBHOOK_CA (the CA bundle that signed the webhook's certificate)")
            })?;
            TargetChoice::Url { url, ca: PathBuf::from(ca) }
        }
        (None, Some(cmd)) => {
            TargetChoice::Command { command: cmd, startup_timeout: std::time::Duration::from_secs(30) }
        }
        (None, None) if var("WEBHOOK_IMAGE").is_some() => {
            let mut spec = webhook_harness::target::ImageSpec::new(var("WEBHOOK_IMAGE").unwrap_or_default());
            if let Some(port) = var("WEBHOOK_IMAGE_PORT") {
                spec.port = port.parse().map_err(|e| anyhow::anyhow!("WEBHOOK_IMAGE_PORT {port:?}: {e}"))?;
            }
            if let Some(dir) = var("WEBHOOK_IMAGE_CERT_DIR") {
                spec.cert_dir = dir;
            }
            spec.args =
                var("WEBHOOK_IMAGE_ARGS").map(|a| a.split_whitespace().map(String::from).collect()).unwrap_or_default();
            TargetChoice::Image { spec }
        }
        (None, None) => TargetChoice::Reference { defect: None },
    };
    let manifest = match var("WEBHOOK_CONFIG") {
        Some(path) => Manifest::load(path.as_ref())?,
        None if matches!(choice, TargetChoice::Reference { .. }) => crate::embedded::reference_manifest(),
        None => anyhow::bail!("WEBHOOK_CONFIG must name the webhook's MutatingWebhookConfiguration/ValidatingWebhookConfiguration manifest"),
    };
    Ok((choice, manifest))
}

/// Start the environment's target for `webhooks`.
pub async fn start(choice: &TargetChoice, webhooks: &[WebhookSpec]) -> anyhow::Result<RunningTarget> {
    start_target(choice, webhooks, None).await.map_err(|e| anyhow::anyhow!("{e}"))
}
