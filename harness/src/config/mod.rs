//! The user's real `MutatingWebhookConfiguration` / `ValidatingWebhookConfiguration` as the suite's
//! configuration: which webhooks exist, what they are called for, and how the apiserver calls them.

mod manifest;
mod select;

pub use manifest::{
    ClientConfig, Manifest, ManifestError, RuleWithOperations, ServiceReference, WebhookKind, WebhookSpec,
};
pub use select::select_webhooks;

/// The AdmissionReview versions the apiserver knows, in the order it prefers them.
pub const KNOWN_REVIEW_VERSIONS: [&str; 2] = ["v1", "v1beta1"];
