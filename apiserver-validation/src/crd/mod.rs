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
//! | [`listtype`] | `schema/listtype/validation.go`: `x-kubernetes-list-type` `set` and `map` uniqueness |
//! | [`format`] | the string formats of the apiextensions registry the suite checks |
//! | [`value`] | how `field.Error` prints a value decoded from JSON (`%v`, `%q`, `%#v`) |
//!
//! The CRD's `x-kubernetes-validations` (CEL) are evaluated by the caller (the harness holds the
//! CEL interpreter). Not modelled: embedded resources' metadata rules (`schema/objectmeta/validation.go`), the formats [`format::CHECKED`]
//! does not list; ratcheting on UPDATE is approximated by the value at the error's field path.

pub mod format;
pub mod listtype;
pub mod schema;
pub mod value;

pub use schema::validate_custom_resource;

use serde_json::Value;

use crate::field::FieldError;
use crate::object::join;
use crate::objectmeta::{validate_create as meta_create, validate_update as meta_update, Refusal, Scope};

/// What the apiserver refuses of the custom resource `object` (pruned and defaulted) on CREATE:
/// its metadata (`customResourceValidator.Validate`: `ValidateObjectMetaAccessor` with
/// `NameIsDNSSubdomain`, after the registry's `BeforeCreate`), then its schema.
pub fn validate_create(scope: &Scope, schema: &Value, object: &Value) -> Result<(), Refusal> {
    let meta = meta_create(scope, object).map(|_| ());
    if let Err(r @ (Refusal::BadRequest(_) | Refusal::Conflict(_))) = meta {
        return Err(r);
    }
    join(meta, body_errors(schema, object))
}

/// The schema's errors, then the list invariants' (`customResourceStrategy.Validate`'s order).
fn body_errors(schema: &Value, object: &Value) -> Vec<FieldError> {
    let mut errs = validate_custom_resource(schema, object);
    errs.extend(listtype::validate_lists(schema, object));
    errs
}

/// What the apiserver refuses of the custom resource `object` on UPDATE of `old`: the metadata's
/// update rules, then the schema, with validation ratcheting (`CRDValidationRatcheting`, on by
/// default: `apiextensions-apiserver/pkg/apiserver/validation/ratcheting.go`
/// `ratchetingValueValidator`): an
/// error at a field whose value `old` already had is let through.
pub fn validate_update(scope: &Scope, schema: &Value, object: &Value, old: &Value) -> Result<(), Refusal> {
    let meta = meta_update(scope, object, old);
    if let Err(r @ (Refusal::BadRequest(_) | Refusal::Conflict(_))) = meta {
        return Err(r);
    }
    let errs: Vec<FieldError> =
        body_errors(schema, object).into_iter().filter(|e| at(object, &e.field) != at(old, &e.field)).collect();
    join(meta, errs)
}

/// The value at a field path as field errors write it (`spec.tags[0].name`); `None` when absent.
pub fn at<'a>(object: &'a Value, path: &str) -> Option<&'a Value> {
    let mut here = object;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, indices) = part.split_once('[').map_or((part, ""), |(k, rest)| (k, rest));
        if !key.is_empty() {
            here = here.get(key)?;
        }
        for index in indices.split('[').filter(|i| !i.is_empty()) {
            let i: usize = index.trim_end_matches(']').parse().ok()?;
            here = here.get(i)?;
        }
    }
    Some(here)
}
