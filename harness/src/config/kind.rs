//! Which kind of configuration a webhook comes from: what the manifest's reader and the list of
//! fields each kind may hold both need.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
/// Which kind of configuration a webhook comes from.
pub enum WebhookKind {
    /// From a MutatingWebhookConfiguration.
    Mutating,
    /// From a ValidatingWebhookConfiguration.
    Validating,
}

impl fmt::Display for WebhookKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WebhookKind::Mutating => "mutating",
            WebhookKind::Validating => "validating",
        })
    }
}
