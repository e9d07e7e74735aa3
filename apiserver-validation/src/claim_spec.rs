//! A persistent volume claim's spec as kubernetes/kubernetes `pkg/apis/core/validation/validation.go`
//! validates it (release-1.36): `ValidatePersistentVolumeClaimSpec` under the options of
//! `ValidationOptionsForPersistentVolumeClaimCreate` (a label selector's values checked,
//! `VolumeAttributesClass` on: GA since 1.34), with `validateDataSource`, `validateDataSourceRef`,
//! `isDataSourceEqualDataSourceRef`, `ValidatePositiveQuantityValue` and `ValidateClassName`. A
//! StatefulSet's volume claim templates are validated so ([`crate::stateful_set`]).
//!
//! The `must match dataSourceRef` and `may not be specified when dataSourceRef.namespace is
//! specified` errors carry a `*field.Path` as their value: `ErrorBody` dereferences it and
//! marshals the `field.Path` struct, whose members are unexported, as `{}`.

use serde_json::Value;

use crate::content;
use crate::field::{BadValue, FieldError};
use crate::field_formats::{dns_subdomain, str_value};
use crate::label_selector::validate_selector;
use crate::lookup::Lookup;
use crate::resources::quantity_of;
use crate::zero_values::{list, s};

/// `sets.List(supportedAccessModes)`.
const ACCESS_MODES: &[&str] = &["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];
/// `sets.List(supportedVolumeModes)`.
const VOLUME_MODES: &[&str] = &["Block", "Filesystem"];

/// `ValidatePersistentVolumeClaimSpec` of `spec` at `path`.
pub fn validate_claim_spec(spec: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let modes_path = format!("{path}.accessModes");
    let modes = list(spec, "accessModes");
    if modes.is_empty() {
        errs.push(FieldError::required(&modes_path, "at least 1 access mode is required"));
    }
    if let Some(selector) = spec.member("selector").filter(|v| !v.is_null()) {
        errs.extend(validate_selector(selector, &format!("{path}.selector")));
    }
    let (mut read_write_once_pod, mut other) = (false, false);
    for mode in modes.iter().map(|m| m.as_str().unwrap_or("")) {
        if !ACCESS_MODES.contains(&mode) {
            errs.push(FieldError::not_supported(&modes_path, str_value(mode), ACCESS_MODES));
        }
        if mode == "ReadWriteOncePod" {
            read_write_once_pod = true;
        } else if ACCESS_MODES.contains(&mode) {
            other = true;
        }
    }
    if read_write_once_pod && other {
        errs.push(FieldError::forbidden(&modes_path, "may not use ReadWriteOncePod with other access modes"));
    }
    errs.extend(storage_request(spec, path));
    if let Some(class) = spec.member("storageClassName").and_then(Value::as_str).filter(|c| !c.is_empty()) {
        errs.extend(dns_subdomain(class, &format!("{path}.storageClassName")));
    }
    if let Some(mode) = spec.member("volumeMode").filter(|v| !v.is_null()) {
        let mode = mode.as_str().unwrap_or("");
        if !VOLUME_MODES.contains(&mode) {
            errs.push(FieldError::not_supported(&format!("{path}.volumeMode"), str_value(mode), VOLUME_MODES));
        }
    }
    errs.extend(data_sources(spec, path));
    if let Some(class) = spec.member("volumeAttributesClassName").and_then(Value::as_str).filter(|c| !c.is_empty()) {
        errs.extend(dns_subdomain(class, &format!("{path}.volumeAttributesClassName")));
    }
    errs
}

/// The storage request: required (at `resources[storage]`, `Key` of `resources`), positive
/// (`ValidatePositiveQuantityValue`, the value as `Quantity.String()` writes it). A positive value
/// passes `ValidateResourceQuantityValue` (storage is not an integer resource). A quantity the
/// decoder would refuse is not judged here.
fn storage_request(spec: &Value, path: &str) -> Vec<FieldError> {
    let at = format!("{path}.resources[storage]");
    match spec.at("/resources/requests/storage") {
        None => vec![FieldError::required(&at, "")],
        Some(v) => match quantity_of(v) {
            Some(q) if q.milli <= 0 => {
                vec![FieldError::invalid(&at, str_value(&q.canonical()), "must be greater than zero")]
            }
            _ => Vec::new(),
        },
    }
}

/// The API group of a data source (`None`: a nil pointer).
fn api_group(source: &Value) -> Option<&str> {
    source.member("apiGroup").filter(|v| !v.is_null()).map(|v| v.as_str().unwrap_or(""))
}

/// `validateDataSource` and `validateDataSourceRef` (the reference may name a namespace), at
/// `path`.
fn data_source(source: &Value, reference: bool, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if s(source, "name").is_empty() {
        errs.push(FieldError::required(&format!("{path}.name"), ""));
    }
    let kind = s(source, "kind");
    if kind.is_empty() {
        errs.push(FieldError::required(&format!("{path}.kind"), ""));
    }
    let group = api_group(source).unwrap_or("");
    if group.is_empty() && kind != "PersistentVolumeClaim" {
        errs.push(FieldError::invalid(
            path,
            str_value(kind),
            "must be 'PersistentVolumeClaim' when referencing the default apiGroup",
        ));
    }
    if !group.is_empty() {
        errs.extend(dns_subdomain(group, &format!("{path}.apiGroup")));
    }
    let namespace = source.member("namespace").and_then(Value::as_str).filter(|n| !n.is_empty());
    if let Some(ns) = namespace.filter(|_| reference) {
        let ns_path = format!("{path}.namespace");
        errs.extend(content::is_dns1123_label(ns).into_iter().map(|m| FieldError::invalid(&ns_path, str_value(ns), m)));
    }
    errs
}

/// The data source and data source reference, each validated, then held to each other.
fn data_sources(spec: &Value, path: &str) -> Vec<FieldError> {
    let source = spec.member("dataSource").filter(|v| !v.is_null());
    let reference = spec.member("dataSourceRef").filter(|v| !v.is_null());
    let mut errs = Vec::new();
    if let Some(src) = source {
        errs.extend(data_source(src, false, &format!("{path}.dataSource")));
    }
    if let Some(r) = reference {
        errs.extend(data_source(r, true, &format!("{path}.dataSourceRef")));
    }
    let path_value = || BadValue::Json("{}".into());
    match (source, reference) {
        (Some(_), Some(r)) if r.member("namespace").and_then(Value::as_str).is_some_and(|n| !n.is_empty()) => {
            errs.push(FieldError::invalid(
                path,
                path_value(),
                "may not be specified when dataSourceRef.namespace is specified",
            ));
        }
        (Some(src), Some(r)) => {
            let same =
                api_group(src) == api_group(r) && s(src, "kind") == s(r, "kind") && s(src, "name") == s(r, "name");
            if !same {
                errs.push(FieldError::invalid(path, path_value(), "must match dataSourceRef"));
            }
        }
        _ => {}
    }
    errs
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::field::texts;

    fn claim(extra: Value) -> Value {
        let mut spec = json!({"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                              "volumeMode": "Filesystem"});
        for (k, v) in extra.as_object().unwrap() {
            spec[k] = v.clone();
        }
        spec
    }

    #[test]
    fn a_valid_claim_passes() {
        let spec = claim(json!({"storageClassName": "fast", "selector": {"matchLabels": {"tier": "db"}},
            "dataSource": {"kind": "PersistentVolumeClaim", "name": "src"},
            "dataSourceRef": {"kind": "PersistentVolumeClaim", "name": "src"}}));
        assert!(validate_claim_spec(&spec, "p").is_empty());
    }

    #[test]
    fn access_modes_are_required_known_and_read_write_once_pod_alone() {
        assert_eq!(
            texts(&validate_claim_spec(&claim(json!({"accessModes": []})), "p")),
            ["p.accessModes: Required value: at least 1 access mode is required"]
        );
        assert_eq!(
            texts(&validate_claim_spec(&claim(json!({"accessModes": ["ReadWriteOncePod", "ReadOnlyMany", "Sometimes"]})), "p")),
            [
                "p.accessModes: Unsupported value: \"Sometimes\": supported values: \"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\"",
                "p.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"
            ]
        );
    }

    #[test]
    fn storage_is_required_and_positive() {
        assert_eq!(
            texts(&validate_claim_spec(&claim(json!({"resources": {}})), "p")),
            ["p.resources[storage]: Required value"]
        );
        assert_eq!(
            texts(&validate_claim_spec(&claim(json!({"resources": {"requests": {"storage": "0Gi"}}})), "p")),
            ["p.resources[storage]: Invalid value: \"0\": must be greater than zero"]
        );
    }

    #[test]
    fn classes_and_volume_modes_are_checked() {
        let errs = validate_claim_spec(
            &claim(json!({"storageClassName": "Fast", "volumeMode": "Raw", "volumeAttributesClassName": "gold_"})),
            "p",
        );
        assert_eq!(errs.len(), 3);
        assert!(errs[0]
            .to_string()
            .starts_with("p.storageClassName: Invalid value: \"Fast\": a lowercase RFC 1123 subdomain"));
        assert_eq!(
            errs[1].to_string(),
            "p.volumeMode: Unsupported value: \"Raw\": supported values: \"Block\", \"Filesystem\""
        );
        assert!(errs[2].to_string().starts_with("p.volumeAttributesClassName: Invalid value: \"gold_\""));
    }

    #[test]
    fn data_sources_are_complete_and_agree() {
        let spec = claim(json!({"dataSource": {"kind": "Snapshot", "name": ""},
            "dataSourceRef": {"kind": "VolumeSnapshot", "apiGroup": "snapshot.storage.k8s.io", "name": "s"}}));
        assert_eq!(
            texts(&validate_claim_spec(&spec, "p")),
            [
                "p.dataSource.name: Required value",
                "p.dataSource: Invalid value: \"Snapshot\": must be 'PersistentVolumeClaim' when referencing the default apiGroup",
                "p: Invalid value: {}: must match dataSourceRef"
            ]
        );
        let spec = claim(json!({"dataSource": {"kind": "PersistentVolumeClaim", "name": "s"},
            "dataSourceRef": {"kind": "PersistentVolumeClaim", "name": "s", "namespace": "Other"}}));
        let errs = texts(&validate_claim_spec(&spec, "p"));
        assert_eq!(errs.len(), 2);
        assert!(errs[0].starts_with("p.dataSourceRef.namespace: Invalid value: \"Other\": a lowercase RFC 1123 label"));
        assert_eq!(errs[1], "p: Invalid value: {}: may not be specified when dataSourceRef.namespace is specified");
    }
}
