//! The apiextensions-apiserver's validation of a custom resource after mutating admission
//! (`apiextensions-apiserver/pkg/registry/customresource/strategy.go` `customResourceStrategy.Validate`
//! and `ValidateUpdate`): the object, already pruned and defaulted, is held to its version's
//! structural schema by kube-openapi's validator (`k8s.io/kube-openapi/pkg/validation/validate`),
//! whose errors become field errors in `apiextensions-apiserver/pkg/apiserver/validation/validation.go`
//! `kubeOpenAPIResultToFieldErrors`.
//!
//! | module | models |
//! |---|---|
//! | [`schema`] | `SchemaValidator` and its type, string, format, number, slice, enum and object validators |
//! | [`format`] | the string formats of the apiextensions registry the suite checks |
//! | [`value`] | how `field.Error` prints a value decoded from JSON (`%v`, `%q`, `%#v`) |
//!
//! Not modelled: `x-kubernetes-validations` (CEL), `x-kubernetes-list-type` and `map-keys`
//! uniqueness, `multipleOf`, the formats [`format::CHECKED`] does not list, and validation
//! ratcheting on UPDATE (`CRDValidationRatcheting`: an unchanged invalid field is let through).

pub mod format;
pub mod schema;
pub mod value;

pub use schema::validate_custom_resource;
