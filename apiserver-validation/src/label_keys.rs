//! The `matchLabelKeys` and `mismatchLabelKeys` of a pod spec's pod affinity terms and topology
//! spread constraints, as kubernetes/kubernetes release-1.36 handles them, with the feature gates
//! of 1.36 (`pkg/features/kube_features.go`): `MatchLabelKeysInPodAffinity` (GA, locked on since
//! 1.33), `MatchLabelKeysInPodTopologySpread` (beta, on since 1.27) and
//! `MatchLabelKeysInPodTopologySpreadSelectorMerge` (beta, on since 1.34).
//!
//! - Validation, `pkg/apis/core/validation/validation.go`:
//!   [`match_and_mismatch_label_keys`] is `ValidateMatchLabelKeysAndMismatchLabelKeys` (with
//!   `validateLabelKeys`), which `validatePodAffinityTerm` runs on every term and
//!   `validateTopologySpreadConstraints` on every constraint (without mismatch keys);
//!   [`legacy_topology_spread_keys`] is `ValidateMatchLabelKeysInTopologySpread`, which
//!   `validateTopologySpreadConstraints` runs instead on an UPDATE whose old spec already fails the
//!   former (`OldPodViolatesMatchLabelKeysValidation`, from `pkg/api/pod/util.go`
//!   `GetValidationOptionsFromPodSpecAndMeta` and `hasInvalidTopologySpreadConstrainMatchLabelKeys`).
//! - The merge, `pkg/registry/core/pod/strategy.go` `PrepareForCreate` (`mutatePodAffinity`,
//!   `applyMatchLabelKeysAndMismatchLabelKeys`, `mutateTopologySpreadConstraints`,
//!   `applyMatchLabelKeys`, `applyLabelKeysToLabelSelector`): on a Pod's CREATE only, before
//!   validation, each key the pod has as a label becomes a `matchExpressions` entry of the term's or
//!   constraint's selector (`In` its value for a match key, `NotIn` for a mismatch key). Pod
//!   templates are not merged: a key in both a template's `matchLabels` and `matchLabelKeys` is
//!   accepted there, while a Pod holding that label is refused.
//!
//! Go's quirk is kept: the error of a key also in the selector is at the term's or constraint's
//! path indexed by the key's position (`fldPath.Index(i)`), without `.matchLabelKeys`.

use serde_json::{Map, Value};

use crate::content;
use crate::field::FieldError;
use crate::field_formats::str_value;
use crate::lookup::member_of;
use crate::lookup::Lookup;
use crate::zero_values::list;

/// "exists in both matchLabelKeys and labelSelector".
const IN_SELECTOR: &str = "exists in both matchLabelKeys and labelSelector";
/// "must not be specified when labelSelector is not set".
const NO_SELECTOR: &str = "must not be specified when labelSelector is not set";

/// A term's or constraint's `labelSelector`, when set (not absent, not `null`).
fn selector(holder: &Value) -> Option<&Value> {
    holder.member("labelSelector").filter(|v| !v.is_null())
}

/// The strings of the list `key` of `holder`.
fn keys<'a>(holder: &'a Value, key: &str) -> Vec<&'a str> {
    list(holder, key).iter().map(|k| k.as_str().unwrap_or("")).collect()
}

/// `ValidateLabelName`: a qualified name.
fn label_name(name: &str, path: &str) -> Vec<FieldError> {
    content::is_qualified_name(name).into_iter().map(|m| FieldError::invalid(path, str_value(name), m)).collect()
}

/// `validateLabelKeys`: forbidden without a selector, else each a label name.
fn label_keys(path: &str, label_keys: &[&str], selector: Option<&Value>) -> Vec<FieldError> {
    if label_keys.is_empty() {
        return Vec::new();
    }
    if selector.is_none() {
        return vec![FieldError::forbidden(path, NO_SELECTOR)];
    }
    label_keys.iter().enumerate().flat_map(|(i, k)| label_name(k, &format!("{path}[{i}]"))).collect()
}

/// `ValidateMatchLabelKeysAndMismatchLabelKeys` at `path` (the term or the constraint): the keys'
/// names, a match key whose selector expression repeats a key already in the selector (after the
/// merge, the key the user also wrote there), a match key also a mismatch key.
pub fn match_and_mismatch_label_keys(
    path: &str,
    match_keys: &[&str],
    mismatch_keys: &[&str],
    selector: Option<&Value>,
) -> Vec<FieldError> {
    let mut errs = label_keys(&format!("{path}.matchLabelKeys"), match_keys, selector);
    errs.extend(label_keys(&format!("{path}.mismatchLabelKeys"), mismatch_keys, selector));
    if let Some(selector) = selector {
        // Go's map keeps the last index of a key written twice.
        let index_of = |key: &str| match_keys.iter().rposition(|k| *k == key);
        let mut seen: Vec<&str> = selector
            .member("matchLabels")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, _)| k.as_str())
            .collect();
        for expression in list(selector, "matchExpressions") {
            let key = expression.member("key").and_then(Value::as_str).unwrap_or("");
            if let Some(i) = index_of(key).filter(|_| seen.contains(&key)) {
                errs.push(FieldError::invalid(&format!("{path}[{i}]"), str_value(key), IN_SELECTOR));
            }
            seen.push(key);
        }
    }
    for (i, key) in match_keys.iter().enumerate() {
        if mismatch_keys.contains(key) {
            errs.push(FieldError::invalid(
                &format!("{path}.matchLabelKeys[{i}]"),
                str_value(key),
                "exists in both matchLabelKeys and mismatchLabelKeys",
            ));
        }
    }
    errs
}

/// `ValidateMatchLabelKeysInTopologySpread` at `path` (`….matchLabelKeys`): forbidden without a
/// selector; each key a label name and in neither the selector's labels nor its expressions.
pub fn legacy_topology_spread_keys(path: &str, match_keys: &[&str], selector: Option<&Value>) -> Vec<FieldError> {
    if match_keys.is_empty() {
        return Vec::new();
    }
    let mut errs = Vec::new();
    let mut in_selector: Vec<&str> = Vec::new();
    match selector {
        Some(selector) => {
            in_selector.extend(
                selector
                    .member("matchLabels")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .map(|(k, _)| k.as_str()),
            );
            in_selector.extend(
                list(selector, "matchExpressions")
                    .iter()
                    .map(|e| e.member("key").and_then(Value::as_str).unwrap_or("")),
            );
        }
        None => errs.push(FieldError::forbidden(path, NO_SELECTOR)),
    }
    for (i, key) in match_keys.iter().enumerate() {
        let p = format!("{path}[{i}]");
        errs.extend(label_name(key, &p));
        if in_selector.contains(key) {
            errs.push(FieldError::invalid(&p, str_value(key), IN_SELECTOR));
        }
    }
    errs
}

/// `validatePodAffinityTerm`'s call for the term at `path`.
pub fn pod_affinity_term_keys(term: &Value, path: &str) -> Vec<FieldError> {
    match_and_mismatch_label_keys(path, &keys(term, "matchLabelKeys"), &keys(term, "mismatchLabelKeys"), selector(term))
}

/// `validateTopologySpreadConstraints`' check of the constraint at `path` under 1.36's gates:
/// [`match_and_mismatch_label_keys`], or [`legacy_topology_spread_keys`] when
/// `old_violates` (`OldPodViolatesMatchLabelKeysValidation`).
pub fn topology_spread_keys(constraint: &Value, path: &str, old_violates: bool) -> Vec<FieldError> {
    let match_keys = keys(constraint, "matchLabelKeys");
    if old_violates {
        legacy_topology_spread_keys(&format!("{path}.matchLabelKeys"), &match_keys, selector(constraint))
    } else {
        match_and_mismatch_label_keys(path, &match_keys, &[], selector(constraint))
    }
}

/// `hasInvalidTopologySpreadConstrainMatchLabelKeys`: a constraint of `spec` whose match keys fail
/// `ValidateMatchLabelKeysAndMismatchLabelKeys`.
pub fn has_invalid_topology_spread_keys(spec: &Value) -> bool {
    list(spec, "topologySpreadConstraints")
        .iter()
        .any(|c| !match_and_mismatch_label_keys("", &keys(c, "matchLabelKeys"), &[], selector(c)).is_empty())
}

/// The pod affinity terms of a spec, mutable, in `mutatePodAffinity`'s order: of `podAffinity` then
/// `podAntiAffinity`, the preferred terms' `podAffinityTerm`s then the required terms.
fn affinity_terms_mut(spec: &mut Value) -> Vec<&mut Value> {
    let mut terms = Vec::new();
    let Some(affinity) = spec.get_mut("affinity").and_then(Value::as_object_mut) else { return terms };
    for (name, kind) in affinity.iter_mut() {
        if name != "podAffinity" && name != "podAntiAffinity" {
            continue;
        }
        let Some(kind) = kind.as_object_mut() else { continue };
        for (list_name, items) in kind.iter_mut() {
            let Some(items) = items.as_array_mut() else { continue };
            match list_name.as_str() {
                "preferredDuringSchedulingIgnoredDuringExecution" => {
                    terms.extend(items.iter_mut().filter_map(|t| t.get_mut("podAffinityTerm")))
                }
                "requiredDuringSchedulingIgnoredDuringExecution" => terms.extend(items.iter_mut()),
                _ => {}
            }
        }
    }
    terms
}

/// `applyLabelKeysToLabelSelector`: for each key the pod has as a label, an expression `key
/// operator [value]` appended to the selector's `matchExpressions`.
fn apply_label_keys(holder: &mut Value, keys_name: &str, operator: &str, labels: &Value) {
    let additions: Vec<Value> = keys(holder, keys_name)
        .into_iter()
        .filter_map(|k| labels.member(k).and_then(Value::as_str).map(|v| (k, v)))
        .map(|(k, v)| serde_json::json!({"key": k, "operator": operator, "values": [v]}))
        .collect();
    if additions.is_empty() {
        return;
    }
    let Some(selector) = holder.get_mut("labelSelector").and_then(Value::as_object_mut) else { return };
    let expressions = selector.entry("matchExpressions").or_insert_with(|| Value::Array(Vec::new()));
    if !expressions.is_array() {
        *expressions = Value::Array(Vec::new());
    }
    if let Some(expressions) = expressions.as_array_mut() {
        expressions.extend(additions);
    }
}

/// Whether the pod's label keys would add an expression to any selector (so that the pod need not
/// be copied when none would): the merge run on a copy of only what it reads and writes (the
/// labels, the affinity and the spread constraints).
pub fn merge_changes(pod: &Value) -> bool {
    let Some(spec) = pod.member("spec").and_then(Value::as_object) else { return false };
    let read: Map<String, Value> = ["affinity", "topologySpreadConstraints"]
        .into_iter()
        .filter_map(|k| member_of(spec, k).map(|v| (k.to_string(), v.clone())))
        .collect();
    if read.is_empty() {
        return false;
    }
    let labels = pod.at("/metadata/labels").cloned().unwrap_or(Value::Null);
    let mut shell = serde_json::json!({"metadata": {"labels": labels}, "spec": read});
    merge_label_keys(&mut shell);
    shell.field("spec").as_object().is_some_and(|merged| merged.iter().any(|(k, v)| member_of(spec, k) != Some(v)))
}

/// `PrepareForCreate`'s `mutatePodAffinity` and `mutateTopologySpreadConstraints` on a Pod: the
/// pod's label values merged into the selectors of its terms and constraints that name them. A
/// term or constraint without a selector (Go's nil) is left as it is.
pub fn merge_label_keys(pod: &mut Value) {
    let labels = pod.at("/metadata/labels").cloned().unwrap_or(Value::Null);
    let Some(spec) = pod.get_mut("spec") else { return };
    for term in affinity_terms_mut(spec) {
        if selector(term).is_some() {
            apply_label_keys(term, "matchLabelKeys", "In", &labels);
            apply_label_keys(term, "mismatchLabelKeys", "NotIn", &labels);
        }
    }
    if let Some(constraints) = spec.get_mut("topologySpreadConstraints").and_then(Value::as_array_mut) {
        for constraint in constraints {
            if selector(constraint).is_some() {
                apply_label_keys(constraint, "matchLabelKeys", "In", &labels);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::field::texts;

    #[test]
    fn keys_need_a_selector_and_label_names() {
        let errs = texts(&match_and_mismatch_label_keys("t", &["app"], &["x"], None));
        assert_eq!(
            errs,
            [
                "t.matchLabelKeys: Forbidden: must not be specified when labelSelector is not set",
                "t.mismatchLabelKeys: Forbidden: must not be specified when labelSelector is not set"
            ]
        );
        let selector = json!({});
        let errs = texts(&match_and_mismatch_label_keys("t", &["bad key"], &[], Some(&selector)));
        assert_eq!(errs.len(), 1);
        assert!(errs[0].starts_with("t.matchLabelKeys[0]: Invalid value: \"bad key\": name part must consist of"));
        assert!(match_and_mismatch_label_keys("t", &["app"], &["tier"], Some(&selector)).is_empty());
    }

    #[test]
    fn a_key_repeated_by_an_expression_is_refused_at_the_holder_path() {
        // Only in matchLabels (a template, not merged): accepted.
        let labels_only = json!({"matchLabels": {"app": "web"}});
        assert!(match_and_mismatch_label_keys("t", &["app"], &[], Some(&labels_only)).is_empty());
        // In matchLabels and, merged, in matchExpressions: refused.
        let merged = json!({"matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]});
        assert_eq!(
            texts(&match_and_mismatch_label_keys("t", &["zone", "app"], &[], Some(&merged))),
            ["t[1]: Invalid value: \"app\": exists in both matchLabelKeys and labelSelector"]
        );
        // A key both matched and mismatched.
        assert_eq!(
            texts(&match_and_mismatch_label_keys("t", &["app"], &["app"], Some(&labels_only))),
            ["t.matchLabelKeys[0]: Invalid value: \"app\": exists in both matchLabelKeys and mismatchLabelKeys"]
        );
    }

    #[test]
    fn the_legacy_check_refuses_any_key_of_the_selector() {
        let labels_only = json!({"matchLabels": {"app": "web"}});
        assert_eq!(
            texts(&legacy_topology_spread_keys("c.matchLabelKeys", &["app"], Some(&labels_only))),
            ["c.matchLabelKeys[0]: Invalid value: \"app\": exists in both matchLabelKeys and labelSelector"]
        );
        assert_eq!(
            texts(&legacy_topology_spread_keys("c.matchLabelKeys", &["app"], None)),
            ["c.matchLabelKeys: Forbidden: must not be specified when labelSelector is not set"]
        );
        assert!(legacy_topology_spread_keys("c.matchLabelKeys", &["zone"], Some(&labels_only)).is_empty());
        // The old spec decides which check runs.
        let old = json!({"topologySpreadConstraints": [{"matchLabelKeys": ["app"]}]});
        assert!(has_invalid_topology_spread_keys(&old));
        assert!(!has_invalid_topology_spread_keys(&json!({"topologySpreadConstraints": [{"labelSelector": {}}]})));
    }

    #[test]
    fn the_merge_appends_the_pod_label_values() {
        let mut pod = json!({"metadata": {"labels": {"app": "web", "tier": "db"}}, "spec": {
            "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {}, "matchLabelKeys": ["app", "missing"], "mismatchLabelKeys": ["tier"], "topologyKey": "h"},
                {"matchLabelKeys": ["app"], "topologyKey": "h"}]}},
            "topologySpreadConstraints": [{"labelSelector": {"matchLabels": {"x": "y"}}, "matchLabelKeys": ["app"]}]}});
        assert!(merge_changes(&pod));
        merge_label_keys(&mut pod);
        let terms = &pod["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
        assert_eq!(
            terms[0]["labelSelector"]["matchExpressions"],
            json!([{"key": "app", "operator": "In", "values": ["web"]}, {"key": "tier", "operator": "NotIn", "values": ["db"]}])
        );
        assert!(terms[1].get("labelSelector").is_none());
        assert_eq!(
            pod["spec"]["topologySpreadConstraints"][0]["labelSelector"]["matchExpressions"],
            json!([{"key": "app", "operator": "In", "values": ["web"]}])
        );
        // Without the label there is nothing to merge.
        let unlabelled =
            json!({"spec": {"topologySpreadConstraints": [{"labelSelector": {}, "matchLabelKeys": ["app"]}]}});
        assert!(!merge_changes(&unlabelled));
        // A selector that is no object takes no expression; a spec that is none holds no terms.
        let odd = json!({"metadata": {"labels": {"app": "web"}}, "spec": {
            "topologySpreadConstraints": [{"labelSelector": "x", "matchLabelKeys": ["app"]}]}});
        assert!(!merge_changes(&odd));
        assert!(!merge_changes(&json!({"metadata": {"labels": {"app": "web"}}, "spec": [1]})));
        // What the merge changes on the copy it changes on the pod.
        for pod in [pod.clone(), unlabelled, odd] {
            let mut merged = pod.clone();
            merge_label_keys(&mut merged);
            assert_eq!(merge_changes(&pod), merged != pod, "{pod}");
        }
    }
}
