//! The bundled reference webhook as a target, served in-process with generated TLS.

use std::path::Path;

use anyhow::Context;
use reference_webhook::{Defect, Options};
use webhook_harness::config::{Manifest, WebhookSpec};
use webhook_harness::target::{local_endpoint, serving_names, RunningTarget};
use webhook_harness::tls::TlsMaterial;

/// The reference webhook's own manifest.
pub fn reference_manifest() -> Manifest {
    Manifest::parse(Path::new("<bundled reference manifest>"), reference_webhook::MANIFEST)
        .expect("the bundled manifest is valid")
}

/// Start the reference webhook (with `defect`, if any) for `webhooks`, trusting a fresh CA.
pub async fn start(
    webhooks: &[WebhookSpec],
    defect: Option<Defect>,
    keep_tls_in: Option<&Path>,
) -> anyhow::Result<RunningTarget> {
    start_styled(webhooks, defect, reference_webhook::Style::default(), keep_tls_in).await
}

/// [`start`], with the reference webhook writing its mutations in a harmless style (same results).
pub async fn start_styled(
    webhooks: &[WebhookSpec],
    defect: Option<Defect>,
    style: reference_webhook::Style,
    keep_tls_in: Option<&Path>,
) -> anyhow::Result<RunningTarget> {
    let tls = TlsMaterial::generate(&serving_names(webhooks), keep_tls_in)?;
    let server_tls = reference_webhook::server_tls_config(tls.cert_pem.as_bytes(), tls.key_pem.as_bytes())?;
    let running = reference_webhook::spawn_styled(server_tls, Options { defect }, style)
        .await
        .context("starting the bundled reference webhook")?;
    let endpoint = local_endpoint(webhooks, running.addr, tls.ca_pem.as_bytes());
    let description = match defect {
        Some(d) => format!("bundled reference webhook with defect {d}"),
        None => "bundled reference webhook".to_string(),
    };
    Ok(RunningTarget::guarded(endpoint, description, Some(tls), Box::new(running)))
}
