//! The kube-apiserver's validation of an object's metadata, modelled on k8s.io/apimachinery
//! (release-1.36) and the kinds' own name rules in kubernetes/kubernetes `pkg/apis/*/validation`.
//!
//! | module | models |
//! |---|---|
//! | [`content`] | `util/validation` and `api/validate/content`: `IsDNS1123Label`, `IsDNS1123Subdomain`, `IsDNS1035Label`, `IsQualifiedName` (`IsLabelKey`), `IsValidLabelValue`, with their messages |
//! | [`field`] | `util/validation/field`: `field.Error` and its `Error()` text, `ErrorList.ToAggregate`, and `errors.NewInvalid`'s message |
//! | [`objectmeta`] | `api/validation/objectmeta.go`: `ValidateObjectMeta`, `ValidateObjectMetaUpdate`, `ValidateAnnotations`, `ValidateOwnerReferences`, `ValidateFinalizers`; `apis/meta/v1/validation`: `ValidateLabels` |
//! | [`kinds`] | which name rule (`NameIsDNSSubdomain`, `NameIsDNSLabel`, …) each kind's validation passes |
//!
//! Only metadata is modelled: a kind's own validation (a pod's spec, …) is not.

#![warn(unreachable_pub)]

pub mod content;
pub mod field;
pub mod kinds;
pub mod objectmeta;

pub use field::{invalid_message, FieldError};
pub use kinds::{name_rule, NameRule};
pub use objectmeta::{validate_create, validate_update, Refusal, Scope};
