//! The bundled reference webhook: its manifest, cases and snapshots, and the webhook itself as an
//! in-process target served with the run's TLS.

use std::path::{Path, PathBuf};

use reference_webhook::{Defect, Options, Style};
use webhook_harness::{Manifest, Served, ServingTls, Target};

/// The reference webhook's own manifest.
pub fn reference_manifest() -> Manifest {
    Manifest::parse(Path::new("<bundled reference manifest>"), reference_webhook::MANIFEST)
        .expect("the bundled manifest is valid")
}

/// The repository's own `cases/` directory (the built-in cases of the bundled reference webhook).
pub fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new("..")).join("cases")
}

/// The repository's own `golden/` directory.
pub fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new("..")).join("golden")
}

/// The reference webhook (with `defect`, if any, writing its mutations in `style`) as a target.
pub fn target(defect: Option<Defect>, style: Style) -> Target {
    let description = match defect {
        Some(d) => format!("bundled reference webhook with defect {d}"),
        None => "bundled reference webhook".to_string(),
    };
    Target::in_process(description, move |tls: ServingTls| async move {
        let server_tls = reference_webhook::server_tls_config(tls.cert_pem.as_bytes(), tls.key_pem.as_bytes())
            .map_err(|e| format!("{e:#}"))?;
        let running = reference_webhook::spawn_styled(server_tls, Options { defect }, style)
            .await
            .map_err(|e| format!("starting the bundled reference webhook: {e:#}"))?;
        Ok(Served { addr: running.addr, guard: Box::new(running) })
    })
}
