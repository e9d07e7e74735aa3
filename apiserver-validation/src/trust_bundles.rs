//! A projected volume's `clusterTrustBundle` source as kubernetes/kubernetes release-1.36 handles
//! it: `pkg/api/pod/util.go` `dropDisabledClusterTrustBundleProjection` first, then
//! `pkg/apis/core/validation/validation.go` `validateProjectionSources` (the source's own checks;
//! its path's collision with the other sources' paths is checked with the volumes' own), with
//! `pkg/apis/core/validation/names.go` `ValidateSignerName`, `ValidateClusterTrustBundleName` and
//! `extractSignerNameFromClusterTrustBundleName`, and `apimachinery` `ValidateLabelSelector`
//! ([`crate::label_selector`]).
//!
//! The `ClusterTrustBundleProjection` feature gate is beta and off by default in 1.36
//! (`pkg/features/kube_features.go`: beta since 1.33, default false). With the gate off the
//! registry's `PrepareForCreate` and `PrepareForUpdate` (a Pod's, and every workload's template
//! through `DropDisabledTemplateFields`) set every projection's `clusterTrustBundle` to nil before
//! validation, unless the old spec of an UPDATE already holds one
//! (`clusterTrustBundleProjectionInUse`): the source is then neither checked, nor counted among
//! the projection's sources, nor its path among their paths. Such a write is lost, not refused
//! (`PodOptions::keep_cluster_trust_bundles` says which case applies).
//!
//! Checked when kept: exactly one of `name` and `signerName` (each a set pointer, an empty one
//! included); a name of a bundle, by the signer its last `:` names or without one; a `labelSelector`
//! only with a signer name; a signer name `<domain>/<path>`; a `path` that is set, relative and
//! without `..`. The source in the "only one of" error is the internal
//! `core.ClusterTrustBundleProjection` (no JSON tags) as `json.Marshal` writes it: Go field names
//! in the struct's order (`Name`, `SignerName`, `LabelSelector`, `Optional`, `Path`), a nil
//! pointer as `null`, the selector as `metav1.LabelSelector` writes itself (`matchLabels` with its
//! keys sorted, `matchExpressions`, each omitted when empty). Go names the source
//! `clusterTrustBundle` (release-1.29's `clusterTrustBundlePEM` was renamed before the gate went
//! beta).

use serde_json::Value;

use crate::content;
use crate::field::{go_json_string, go_quote, BadValue, FieldError};
use crate::field_formats::{local_non_reserved_path, str_value};
use crate::label_selector::validate_selector_with;
use crate::lookup::Lookup;
use crate::zero_values::{present, s};

/// The detail of a source that names a bundle both ways.
pub const ONLY_ONE: &str = "only one of name and signerName may be used";
/// The detail of a source that names no bundle.
pub const EITHER: &str = "either name or signerName must be specified";
/// The detail of a selector beside a bundle's name.
pub const SELECTOR_WITH_NAME: &str = "labelSelector must be unset if name is specified";
/// `ValidateSignerName`'s detail of a text without exactly one `/`.
const SIGNER_FORM: &str = "must be a fully qualified domain and path of the form 'example.com/signer-name'";
/// `DNS1123SubdomainMaxLength`, the longest domain part of a signer name.
const MAX_DOMAIN: usize = 253;
/// The longest signer name: the domain, a `/`, and a path of a label, a `.` and a subdomain.
const MAX_SIGNER: usize = MAX_DOMAIN + (253 + 63 + 1) + 1;

/// Whether a pod spec's volumes hold a projection with a cluster trust bundle
/// (`clusterTrustBundleProjectionInUse`).
pub(crate) fn in_use(spec: &Value) -> bool {
    crate::gated::projection_in_use(spec, crate::gated::CLUSTER_TRUST_BUNDLE)
}

/// The first of `parts` `check` refuses, with its messages (Go's loops `break` after it).
fn first_bad<'a>(parts: &[&'a str], check: fn(&str) -> Vec<String>) -> Option<(&'a str, Vec<String>)> {
    parts.iter().find_map(|l| Some((*l, check(l))).filter(|(_, e)| !e.is_empty()))
}

/// `ValidateSignerName`: `<domain>/<path>`, the domain's labels DNS labels (at least two), the
/// path's dot-separated parts DNS subdomains; only the first failing label of each is told.
pub fn validate_signer_name(signer: &str, path: &str) -> Vec<FieldError> {
    if signer.is_empty() {
        return vec![FieldError::required(path, "")];
    }
    let segments: Vec<&str> = signer.split('/').collect();
    let [domain, signer_path] = segments[..] else {
        return vec![FieldError::invalid(path, str_value(signer), SIGNER_FORM)];
    };
    let mut errs = Vec::new();
    if domain.len() > MAX_DOMAIN {
        errs.push(FieldError::too_long(path, MAX_DOMAIN));
    }
    let labels: Vec<&str> = domain.split('.').collect();
    if let Some((label, msgs)) = first_bad(&labels, content::is_dns1123_label) {
        for m in msgs {
            errs.push(FieldError::invalid(
                path,
                str_value(domain),
                format!("validating label {}: {m}", go_quote(label)),
            ));
        }
    }
    if labels.len() < 2 {
        errs.push(FieldError::invalid(
            path,
            str_value(domain),
            "should be a domain with at least two segments separated by dots",
        ));
    }
    let parts: Vec<&str> = signer_path.split('.').collect();
    if let Some((label, msgs)) = first_bad(&parts, content::is_dns1123_subdomain) {
        for m in msgs {
            errs.push(FieldError::invalid(
                path,
                str_value(signer_path),
                format!("validating label {}: {m}", go_quote(label)),
            ));
        }
    }
    if signer.len() > MAX_SIGNER {
        errs.push(FieldError::too_long(path, MAX_SIGNER));
    }
    errs
}

/// `ValidateClusterTrustBundleName(signer)(name, false)` with the signer
/// `extractSignerNameFromClusterTrustBundleName` reads in the name (its text before the last `:`,
/// each `:` a `/`; none without a `:`).
pub fn bundle_name_errors(name: &str) -> Vec<String> {
    let Some(split) = name.rfind(':') else { return content::is_dns1123_subdomain(name) };
    let signer = name[..split].replace(':', "/");
    if signer.is_empty() {
        return vec!["ClusterTrustBundle without signer name must not have \":\" in its name".to_string()];
    }
    let prefix = format!("{}:", signer.replace('/', ":"));
    match name.strip_prefix(&prefix) {
        Some(rest) => content::is_dns1123_subdomain(rest),
        None => vec![format!("ClusterTrustBundle for signerName {signer} must be named with prefix {prefix}")],
    }
}

/// A `*string` of the internal struct as `json.Marshal` writes it.
fn pointer_json(v: &Value, key: &str) -> String {
    v.member(key).and_then(Value::as_str).map_or_else(|| "null".to_string(), go_json_string)
}

/// A `*metav1.LabelSelector` as `json.Marshal` writes it (`null` when unset).
pub(crate) fn selector_json(selector: Option<&Value>) -> String {
    let Some(selector) = selector.filter(|v| !v.is_null()) else { return "null".to_string() };
    let mut members = Vec::new();
    if let Some(labels) = selector.member("matchLabels").and_then(Value::as_object).filter(|m| !m.is_empty()) {
        let mut keys: Vec<&String> = labels.keys().collect();
        keys.sort_unstable();
        let pairs: Vec<String> = keys
            .iter()
            .map(|k| format!("{}:{}", go_json_string(k), go_json_string(labels[*k].as_str().unwrap_or(""))))
            .collect();
        members.push(format!("\"matchLabels\":{{{}}}", pairs.join(",")));
    }
    if let Some(exprs) = selector.member("matchExpressions").and_then(Value::as_array).filter(|a| !a.is_empty()) {
        let items: Vec<String> = exprs
            .iter()
            .map(|e| {
                let mut item = format!(
                    "{{\"key\":{},\"operator\":{}",
                    go_json_string(s(e, "key")),
                    go_json_string(s(e, "operator"))
                );
                if let Some(values) = e.member("values").and_then(Value::as_array).filter(|a| !a.is_empty()) {
                    let values: Vec<String> = values.iter().map(|v| go_json_string(v.as_str().unwrap_or(""))).collect();
                    item.push_str(&format!(",\"values\":[{}]", values.join(",")));
                }
                item.push('}');
                item
            })
            .collect();
        members.push(format!("\"matchExpressions\":[{}]", items.join(",")));
    }
    format!("{{{}}}", members.join(","))
}

/// The internal `core.ClusterTrustBundleProjection` as `json.Marshal` writes it.
fn projection_json(ctb: &Value) -> BadValue {
    let optional = ctb.member("optional").and_then(Value::as_bool).map_or("null".to_string(), |b| b.to_string());
    BadValue::Json(format!(
        "{{\"Name\":{},\"SignerName\":{},\"LabelSelector\":{},\"Optional\":{optional},\"Path\":{}}}",
        pointer_json(ctb, "name"),
        pointer_json(ctb, "signerName"),
        selector_json(ctb.member("labelSelector")),
        go_json_string(s(ctb, "path")),
    ))
}

/// `validateProjectionSources`' checks of one `clusterTrustBundle` source at `path` (the
/// source's path, `…sources[i].clusterTrustBundle`), in Go's order, but for the collision of its
/// path with the other sources' (the caller's, after these).
pub fn validate_cluster_trust_bundle(ctb: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let selector = ctb.member("labelSelector").filter(|v| !v.is_null());
    match (present(ctb, "name"), present(ctb, "signerName")) {
        (true, true) => errs.push(FieldError::invalid(path, projection_json(ctb), ONLY_ONE)),
        (true, false) => {
            let name = s(ctb, "name");
            let name_path = format!("{path}.name");
            if name.is_empty() {
                errs.push(FieldError::required(&name_path, "must be a valid object name"));
            }
            for m in bundle_name_errors(name) {
                errs.push(FieldError::invalid(
                    &name_path,
                    str_value(name),
                    format!("not a valid clustertrustbundlename: {m}"),
                ));
            }
            if selector.is_some() {
                errs.push(FieldError::invalid(
                    &format!("{path}.labelSelector"),
                    BadValue::Json(selector_json(selector)),
                    SELECTOR_WITH_NAME,
                ));
            }
        }
        (false, true) => {
            let signer = s(ctb, "signerName");
            let signer_path = format!("{path}.signerName");
            if signer.is_empty() {
                errs.push(FieldError::required(&signer_path, "must be a valid signer name"));
            }
            errs.extend(validate_signer_name(signer, &signer_path));
            if let Some(selector) = selector {
                errs.extend(validate_selector_with(selector, &format!("{path}.labelSelector"), false));
            }
        }
        (false, false) => errs.push(FieldError::required(path, EITHER)),
    }
    let file = s(ctb, "path");
    if file.is_empty() {
        errs.push(FieldError::required(&format!("{path}.path"), ""));
    }
    errs.extend(local_non_reserved_path(file, &format!("{path}.path")));
    errs
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::field::texts;

    const P: &str = "spec.volumes[0].projected.sources[0].clusterTrustBundle";

    #[test]
    fn a_bundle_by_name_or_by_signer_passes() {
        for ctb in [
            json!({"name": "bundle", "path": "ca.pem"}),
            json!({"name": "example.com:signer:live", "path": "ca.pem", "optional": true}),
            json!({"signerName": "example.com/signer", "path": "dir/ca.pem"}),
            json!({"signerName": "example.com/ns.name", "labelSelector": {"matchLabels": {"v": "live"}}, "path": "ca.pem"}),
        ] {
            assert!(validate_cluster_trust_bundle(&ctb, P).is_empty(), "{ctb}");
        }
    }

    #[test]
    fn both_or_neither_source_is_refused() {
        let both = json!({"name": "a", "signerName": "example.com/s", "labelSelector": {"matchLabels": {"b": "2", "a": "1"},
            "matchExpressions": [{"key": "k", "operator": "Exists", "values": []}]}, "path": "ca.pem"});
        assert_eq!(
            texts(&validate_cluster_trust_bundle(&both, P)),
            [format!(
                "{P}: Invalid value: {{\"Name\":\"a\",\"SignerName\":\"example.com/s\",\"LabelSelector\":{{\"matchLabels\":{{\"a\":\"1\",\"b\":\"2\"}},\"matchExpressions\":[{{\"key\":\"k\",\"operator\":\"Exists\"}}]}},\"Optional\":null,\"Path\":\"ca.pem\"}}: {ONLY_ONE}"
            )]
        );
        assert_eq!(
            texts(&validate_cluster_trust_bundle(&json!({"path": "ca.pem"}), P)),
            [format!("{P}: Required value: {EITHER}")]
        );
    }

    #[test]
    fn a_name_is_checked_against_the_signer_it_names() {
        let by_name = |name: &str| texts(&validate_cluster_trust_bundle(&json!({"name": name, "path": "p"}), P));
        assert_eq!(
            by_name("a/b:c"),
            [format!("{P}.name: Invalid value: \"a/b:c\": not a valid clustertrustbundlename: ClusterTrustBundle for signerName a/b must be named with prefix a:b:")]
        );
        assert_eq!(
            by_name(":x"),
            [format!("{P}.name: Invalid value: \":x\": not a valid clustertrustbundlename: ClusterTrustBundle without signer name must not have \":\" in its name")]
        );
        let empty = by_name("");
        assert_eq!(empty[0], format!("{P}.name: Required value: must be a valid object name"));
        assert!(
            empty[1].starts_with(&format!(
                "{P}.name: Invalid value: \"\": not a valid clustertrustbundlename: a lowercase RFC 1123 subdomain"
            )),
            "{empty:?}"
        );
        assert_eq!(by_name("example.com:s:Bad").len(), 1);
        let with_selector = json!({"name": "b", "labelSelector": {}, "path": "p"});
        assert_eq!(
            texts(&validate_cluster_trust_bundle(&with_selector, P)),
            [format!("{P}.labelSelector: Invalid value: {{}}: {SELECTOR_WITH_NAME}")]
        );
    }

    #[test]
    fn a_signer_name_is_a_domain_and_a_path() {
        let by_signer = |signer: &str| texts(&validate_signer_name(signer, "s"));
        assert_eq!(by_signer(""), ["s: Required value"]);
        assert_eq!(by_signer("a/b/c"), [format!("s: Invalid value: \"a/b/c\": {SIGNER_FORM}")]);
        assert_eq!(
            by_signer("com/x"),
            ["s: Invalid value: \"com\": should be a domain with at least two segments separated by dots"]
        );
        let bad_label = by_signer("Example.com/x");
        assert_eq!(bad_label.len(), 1);
        assert!(bad_label[0].starts_with(
            "s: Invalid value: \"Example.com\": validating label \"Example\": a lowercase RFC 1123 label"
        ));
        let bad_path = by_signer("example.com/a._b");
        assert!(bad_path[0]
            .starts_with("s: Invalid value: \"a._b\": validating label \"_b\": a lowercase RFC 1123 subdomain"));
        let long = format!("example.com/{}", vec!["a".repeat(63); 9].join("."));
        assert_eq!(by_signer(&long), ["s: Too long: may not be more than 571 bytes"]);
        // An empty signer name is told twice: by the projection and by ValidateSignerName.
        let empty = json!({"signerName": "", "path": "p"});
        assert_eq!(
            texts(&validate_cluster_trust_bundle(&empty, P)),
            [
                format!("{P}.signerName: Required value: must be a valid signer name"),
                format!("{P}.signerName: Required value")
            ]
        );
    }

    #[test]
    fn the_path_is_required_relative_and_without_backsteps() {
        let at = |path: &str| {
            texts(&validate_cluster_trust_bundle(&json!({"signerName": "example.com/s", "path": path}), P))
        };
        assert_eq!(at(""), [format!("{P}.path: Required value")]);
        assert_eq!(at("/ca.pem"), [format!("{P}.path: Invalid value: \"/ca.pem\": must be a relative path")]);
        assert_eq!(at("..ca"), [format!("{P}.path: Invalid value: \"..ca\": must not start with '..'")]);
    }

    #[test]
    fn a_spec_uses_bundles_when_a_projection_holds_one() {
        assert!(in_use(
            &json!({"volumes": [{"name": "v", "projected": {"sources": [{"clusterTrustBundle": {"name": "b"}}]}}]})
        ));
        assert!(!in_use(
            &json!({"volumes": [{"name": "v", "projected": {"sources": [{"clusterTrustBundle": null}]}}]})
        ));
        assert!(!in_use(&json!({})));
    }
}
