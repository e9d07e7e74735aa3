//! Requests: what the suite sends, built for the resources a webhook's rules name.

mod objects;
mod plan;
mod resources;
mod review;
mod selector;

pub use objects::{
    connect_options, created_through, holds_pod_spec, new_object, scale, stored, updated, Variant, NAMESPACE,
};
pub use plan::{admission_spec, admission_spec_from, plan, RequestCase};
pub use resources::{built_ins, targets_for, Gvk, Operation, Resource, SubObject, Subresource, Target};
pub use review::{admission_review, default_user, fresh_uid, AdmissionSpec};
pub use selector::{fit as fit_selectors, LabelSelector, Selectors, NAMESPACE_NAME_LABEL};
