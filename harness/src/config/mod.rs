//! The user's real `MutatingWebhookConfiguration` / `ValidatingWebhookConfiguration` as the suite's
//! configuration: which webhooks exist, what they are called for, and how the apiserver calls them.

mod crd;
mod documents;
mod fields;
mod kind;
mod lines;
mod manifest;
mod select;
mod selector;
mod version;

pub(crate) use crd::Crd;
pub(crate) use manifest::RuleWithOperations;
pub use manifest::{CaBundleError, Manifest, ManifestLocation, WebhookKind, WebhookSpec};
pub(crate) use select::select_webhooks;
pub(crate) use selector::{LabelSelector, NAMESPACE_NAME_LABEL};
pub use version::ConfigVersion;
