//! Choosing which webhooks of a manifest a run exercises (`--webhook NAME`).

use super::{Manifest, WebhookSpec};
use crate::error::ManifestError;

/// The webhooks named, or all of them when no name is given. An unknown name is an error that lists
/// the names the manifest holds.
pub(crate) fn select_webhooks(manifest: &Manifest, names: &[String]) -> Result<Vec<WebhookSpec>, ManifestError> {
    if names.is_empty() {
        return Ok(manifest.webhooks.clone());
    }
    let mut out = Vec::new();
    for name in names {
        let found: Vec<_> = manifest.webhooks.iter().filter(|w| &w.name == name).cloned().collect();
        if found.is_empty() {
            let known: Vec<_> = manifest.webhooks.iter().map(|w| w.name.as_str()).collect();
            return Err(ManifestError {
                file: manifest.file.clone(),
                location: "--webhook".into(),
                message: format!("no webhook named {name:?}; the manifest holds {}", known.join(", ")),
            });
        }
        out.extend(found);
    }
    Ok(out)
}
