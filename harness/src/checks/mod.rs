//! The checks behind the rule catalog: each is a function from what its rule judges to a [`Check`].
//!
//! | kind | module | judges |
//! |---|---|---|
//! | exchange | [`transport`], [`review`], [`patch`], [`denial`], [`object`], [`managed_fields`], [`custom_resource`] (kubectl's line: [`kubectl`]) | one [`Exchange`] |
//! | property | [`property`] | the [`Observation`] of one request's calls |
//! | manifest | [`manifest`] | one webhook's configuration |
//! | case | [`case`] | a case's outcome |
//! | coverage | [`coverage`] | what the run reached of a webhook |
//! | side effects | [`side_effects`] | what a webhook wrote to the recording API while admitting |

pub(crate) mod case;
pub(crate) mod coverage;
mod custom_resource;
mod denial;
mod dropped;
mod http_status;
mod kubectl;
mod managed_fields;
pub(crate) mod manifest;
mod media_type;
mod object;
mod patch;
mod plain_patch;
pub(crate) mod property;
mod review;
pub(crate) mod side_effects;
mod transport;

pub(crate) use crate::exchange::Exchange;
pub(crate) use property::Observation;
pub(crate) use property::Procedure;

pub(crate) use custom_resource::pruned as object_pruned;
pub(crate) use denial::{
    audit_keys, code as denial_code, message as denial_message, no_patch as denial_no_patch, warnings,
};
pub(crate) use kubectl::{kubectl_internal_error, stuck_controller};
pub(crate) use managed_fields::reset as object_managed_fields;
pub(crate) use object::{
    gate_dropped as object_gate_dropped, status_reset as object_status_reset, unjudged as object_unjudged,
    unmodelled_note as object_unmodelled_note, valid as object_valid,
};
pub(crate) use patch::{
    applies, base64, base64_string, json as patch_json, kind_decode, no_object, pairing, patch_type, rfc6902,
    validating_no_patch,
};
pub(crate) use review::{allowed_present, decode, gvk, gvk_present, present, uid};
pub(crate) use transport::{answer, body, connect, content_type, content_type_json, deadline, json_framing, status};

pub(crate) use crate::text::snippet;
pub(crate) use crate::verdict::Check;

/// The apiserver's wording for an error of calling a webhook.
pub(crate) fn calling_error(webhook: &str, reason: &str) -> String {
    format!("Internal error occurred: failed calling webhook {webhook:?}: {reason}")
}

/// The apiserver's wording for a response that fails VerifyAdmissionResponse.
pub(crate) fn invalid_response(webhook: &str, reason: &str) -> String {
    calling_error(webhook, &format!("received invalid webhook response: {reason}"))
}

/// The apiserver's wording for an internal error (patch decode/apply, typed decode).
pub(crate) fn internal_error(reason: &str) -> String {
    format!("Internal error occurred: {reason}")
}
