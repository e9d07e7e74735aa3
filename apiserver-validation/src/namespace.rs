//! Namespace and ServiceAccount as kubernetes/kubernetes validates them (release-1.36).
//!
//! - `pkg/apis/core/validation/validation.go` `ValidateNamespace`: each of `spec.finalizers` is
//!   `validateFinalizerName` (`ValidateFinalizerName`, a qualified name, then
//!   `validateKubeFinalizerName`, a name without `/` must be a standard one), every error at the
//!   path `spec.finalizers` without an index. `ValidateNamespaceUpdate` checks the metadata only,
//!   and the namespace strategy's `PrepareForUpdate` puts the old `spec.finalizers` and status
//!   back: a mutating webhook's change of them on UPDATE is dropped, never refused.
//! - `pkg/apis/core/v1/defaults.go` `SetDefaults_Namespace` sets the label
//!   `kubernetes.io/metadata.name` to the name (and the strategy's `Canonicalize` again after
//!   validation): a webhook's other value for it is replaced, never refused ([`default_namespace`]).
//! - `ValidateServiceAccount` / `ValidateServiceAccountUpdate` check the metadata only: a
//!   ServiceAccount's `secrets` and `imagePullSecrets` references are not validated
//!   ([`validate_service_account`] finds nothing, as Go does).

use serde_json::{json, Value};

use crate::content;
use crate::field::{BadValue, FieldError};
use crate::lookup::Lookup;

/// `v1.LabelMetadataName`.
pub const METADATA_NAME_LABEL: &str = "kubernetes.io/metadata.name";
/// `helper.IsStandardFinalizerName`: `kubernetes` and the garbage collector's two.
const STANDARD_FINALIZERS: &[&str] = &["kubernetes", "orphan", "foregroundDeletion"];

/// `SetDefaults_Namespace`: a named namespace carries its name as the `kubernetes.io/metadata.name`
/// label.
pub fn default_namespace(ns: &mut Value) {
    let name = ns.at("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
    if name.is_empty() {
        return;
    }
    let Some(meta) = ns.get_mut("metadata").and_then(Value::as_object_mut) else { return };
    let labels = meta.entry("labels").or_insert_with(|| json!({}));
    if labels.is_null() {
        *labels = json!({});
    }
    if let Some(l) = labels.as_object_mut() {
        l.insert(METADATA_NAME_LABEL.into(), json!(name));
    }
}

/// `ValidateNamespace` without the metadata: the spec's finalizers.
pub fn validate_namespace(ns: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let finalizers = ns.at("/spec/finalizers").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    for f in finalizers {
        let f = f.as_str().unwrap_or("");
        for m in content::is_qualified_name(f) {
            errs.push(FieldError::invalid("spec.finalizers", BadValue::Str(f.into()), m));
        }
        if !f.contains('/') && !STANDARD_FINALIZERS.contains(&f) {
            errs.push(FieldError::invalid(
                "spec.finalizers",
                BadValue::Str(f.into()),
                "name is neither a standard finalizer name nor is it fully qualified",
            ));
        }
    }
    errs
}

/// `ValidateServiceAccount` without the metadata: nothing (Go validates the metadata only).
pub fn validate_service_account(_sa: &Value) -> Vec<FieldError> {
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_finalizers_are_qualified_or_standard() {
        let good = json!({"spec": {"finalizers": ["kubernetes", "example.com/cleanup"]}});
        assert!(validate_namespace(&good).is_empty());
        let bad = json!({"spec": {"finalizers": ["cleanup"]}});
        assert_eq!(
            validate_namespace(&bad).iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["spec.finalizers: Invalid value: \"cleanup\": name is neither a standard finalizer name nor is it fully qualified"]
        );
    }

    #[test]
    fn the_name_label_follows_the_name() {
        let mut ns = json!({"metadata": {"name": "team-a", "labels": {METADATA_NAME_LABEL: "other"}}});
        default_namespace(&mut ns);
        assert_eq!(ns["metadata"]["labels"][METADATA_NAME_LABEL], "team-a");
        let mut unnamed = json!({"metadata": {"generateName": "team-"}});
        default_namespace(&mut unnamed);
        assert!(unnamed["metadata"].get("labels").is_none());
    }
}
