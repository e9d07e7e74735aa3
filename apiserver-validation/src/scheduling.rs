//! What a pod says of where it may run, as kubernetes/kubernetes
//! `pkg/apis/core/validation/validation.go` validates it (release-1.36): `validateAffinity`
//! (`validateNodeAffinity` with `ValidateNodeSelector`, `ValidateNodeSelectorTerm`,
//! `ValidateNodeSelectorRequirement`, `ValidateNodeFieldSelectorRequirement`,
//! `ValidatePreferredSchedulingTerms`; `validatePodAffinity` and `validatePodAntiAffinity` with
//! `validatePodAffinityTerm`, `validateWeightedPodAffinityTerms`,
//! `ValidatePodAffinityTermSelector`) and `ValidateTolerations` with `validateTaintEffect`.
//!
//! Label values in a required node selector and in pod affinity terms' selectors are checked
//! unless the old pod spec of an UPDATE already broke those rules ([`PodOptions`], from
//! `pkg/api/pod/util.go` `GetValidationOptionsFromPodSpecAndMeta`). A pod affinity term's
//! `matchLabelKeys` and `mismatchLabelKeys` are checked by [`crate::label_keys`]
//! (`ValidateMatchLabelKeysAndMismatchLabelKeys`).

use serde_json::Value;

use crate::content;
use crate::field::{BadValue, FieldError};
use crate::field_formats::{local_non_reserved_path, str_value};
use crate::host_sysctls;
use crate::label_keys;
use crate::label_selector::{validate_selector, validate_selector_with};
use crate::lookup::Lookup;
use crate::resources;
use crate::zero_values::{list, present, s};

const TOLERATION_OPERATORS: &[&str] = &["Equal", "Exists"];
const TAINT_EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// The fields of `PodValidationOptions` this crate reads: all false on CREATE; on UPDATE each is
/// true when the old pod spec already holds what it lets through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PodOptions {
    /// `AllowInvalidLabelValueInSelector`: pod affinity terms' selectors keep their values unchecked.
    pub allow_invalid_label_value_in_selector: bool,
    /// `AllowInvalidLabelValueInRequiredNodeAffinity`: the required node selector's values likewise.
    pub allow_invalid_label_value_in_required_node_affinity: bool,
    /// `AllowInvalidTopologySpreadConstraintLabelSelector`: topology spread selectors unchecked.
    pub allow_invalid_topology_spread_selector: bool,
    /// `OldPodViolatesMatchLabelKeysValidation`: topology spread match keys held to the legacy
    /// `ValidateMatchLabelKeysInTopologySpread` (see [`crate::label_keys`]).
    pub old_violates_match_label_keys: bool,
    /// Not `AllowOnlyRecursiveSELinuxChangePolicy`: `securityContext.seLinuxChangePolicy` may be
    /// `MountOption` too (`useOnlyRecursiveSELinuxChangePolicy`: the old spec holds a policy; the
    /// SELinuxMount gate, which would allow it always, is beta and off in 1.36).
    pub allow_any_selinux_change_policy: bool,
    /// `AllowInvalidPodDeletionCost`: the old metadata's pod deletion cost annotation does not
    /// parse, so the new one is not checked either (set by [`PodOptions::with_old_meta`]).
    pub allow_invalid_pod_deletion_cost: bool,
    /// `AllowExistingRestartContainerForNonSidecarInitContainer`: an init container of the old spec
    /// that is not a sidecar already resizes with `RestartContainer`, so the new one may too.
    pub allow_existing_restart_container: bool,
    /// Not a `PodValidationOptions` field: the projections' `clusterTrustBundle` sources are kept
    /// for validation, the old spec of an UPDATE holding one (`clusterTrustBundleProjectionInUse`);
    /// otherwise `dropDisabledClusterTrustBundleProjection` drops them, the
    /// ClusterTrustBundleProjection gate being beta and off in 1.36 ([`crate::trust_bundles`]).
    pub keep_cluster_trust_bundles: bool,
    /// `AllowIndivisibleHugePagesValues`: a container's or the overhead's hugepages need not be a
    /// whole number of pages, the old spec having such a value already
    /// (`usesIndivisibleHugePagesValues`, [`crate::resources`]).
    pub allow_indivisible_huge_pages: bool,
    /// `AllowNamespacedSysctlsForHostNetAndHostIPC`: no sysctl is held to `ValidateHostSysctl`, an
    /// old sysctl failing it already ([`crate::host_sysctls`]).
    pub allow_namespaced_sysctls_for_host_namespaces: bool,
    /// `AllowNonLocalProjectedTokenPath`: a projected token's path is not held to
    /// `ValidateLocalNonReservedPath`, an old one failing it already (`hasNonLocalProjectedTokenPath`).
    pub allow_non_local_projected_token_path: bool,
}

impl PodOptions {
    /// `GetValidationOptionsFromPodSpecAndMeta`'s options for an UPDATE whose old pod spec is `old`
    /// (`hasInvalidLabelValueInAffinitySelector`, `hasInvalidLabelValueInRequiredNodeAffinity`,
    /// `hasInvalidTopologySpreadConstraintLabelSelector`, with both topology spread gates on
    /// `hasInvalidTopologySpreadConstrainMatchLabelKeys`, `useOnlyRecursiveSELinuxChangePolicy`,
    /// a non-sidecar init container resizing with `RestartContainer`, `usesIndivisibleHugePagesValues`,
    /// `hasNonLocalProjectedTokenPath` and an old sysctl failing `ValidateHostSysctl`), and whether
    /// the old spec keeps the cluster trust bundle sources from being dropped.
    pub fn from_old_spec(old: &Value) -> Self {
        PodOptions {
            allow_invalid_label_value_in_selector: has_invalid_affinity_selector(old),
            allow_invalid_label_value_in_required_node_affinity: has_invalid_required_node_affinity_value(old),
            allow_invalid_topology_spread_selector: has_invalid_topology_spread_selector(old),
            old_violates_match_label_keys: label_keys::has_invalid_topology_spread_keys(old),
            allow_any_selinux_change_policy: old
                .at("/securityContext/seLinuxChangePolicy")
                .is_some_and(|p| !p.is_null()),
            allow_invalid_pod_deletion_cost: false,
            allow_existing_restart_container: list(old, "initContainers").iter().any(|c| {
                s(c, "restartPolicy") != "Always"
                    && list(c, "resizePolicy").iter().any(|p| s(p, "restartPolicy") == "RestartContainer")
            }),
            keep_cluster_trust_bundles: crate::trust_bundles::in_use(old),
            allow_indivisible_huge_pages: resources::uses_indivisible_huge_pages(old),
            allow_namespaced_sysctls_for_host_namespaces: host_sysctls::any_host_sysctl(old),
            allow_non_local_projected_token_path: has_non_local_projected_token_path(old),
        }
    }

    /// These options with what `GetValidationOptionsFromPodSpecAndMeta` derives from the old
    /// object's metadata on UPDATE (`old_meta`, a Pod's or a template's): the pod deletion cost
    /// (PodDeletionCost beta and on) is checked only where the old one parsed.
    pub fn with_old_meta(self, old_meta: Option<&Value>) -> Self {
        let old_cost = old_meta
            .and_then(|m| m.member("annotations"))
            .and_then(|a| a.member(crate::deletion_cost::POD_DELETION_COST))
            .and_then(Value::as_str);
        PodOptions {
            allow_invalid_pod_deletion_cost: old_cost.is_some_and(|c| !crate::deletion_cost::deletion_cost_valid(c)),
            ..self
        }
    }
}

/// `hasNonLocalProjectedTokenPath`: a projected `serviceAccountToken` source whose path fails
/// `ValidateLocalNonReservedPath` (an empty one does not).
fn has_non_local_projected_token_path(spec: &Value) -> bool {
    list(spec, "volumes")
        .iter()
        .filter_map(|v| v.member("projected").filter(|p| !p.is_null()))
        .flat_map(|p| list(p, "sources"))
        .filter_map(|source| source.member("serviceAccountToken").filter(|t| !t.is_null()))
        .any(|t| !local_non_reserved_path(s(t, "path"), "").is_empty())
}

/// `hasInvalidTopologySpreadConstraintLabelSelector`: a constraint's selector fails the strict
/// `ValidateLabelSelector`.
fn has_invalid_topology_spread_selector(spec: &Value) -> bool {
    list(spec, "topologySpreadConstraints")
        .iter()
        .filter_map(|c| c.member("labelSelector").filter(|l| !l.is_null()))
        .any(|l| !validate_selector(l, "").is_empty())
}

/// The pod affinity terms of a spec: required ones and the preferred ones' `podAffinityTerm`s.
fn pod_affinity_terms(spec: &Value) -> Vec<&Value> {
    let mut terms = Vec::new();
    for key in ["podAffinity", "podAntiAffinity"] {
        let Some(pa) = spec.member("affinity").and_then(|a| a.member(key)).filter(|v| !v.is_null()) else { continue };
        terms.extend(list(pa, "requiredDuringSchedulingIgnoredDuringExecution"));
        terms.extend(
            list(pa, "preferredDuringSchedulingIgnoredDuringExecution")
                .iter()
                .filter_map(|t| t.member("podAffinityTerm")),
        );
    }
    terms
}

/// `ValidatePodAffinityTermSelector`: the term's label and namespace selectors.
fn pod_affinity_term_selector(term: &Value, allow_invalid_label_value: bool, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for key in ["labelSelector", "namespaceSelector"] {
        if let Some(selector) = term.member(key).filter(|v| !v.is_null()) {
            errs.extend(validate_selector_with(selector, &format!("{path}.{key}"), allow_invalid_label_value));
        }
    }
    errs
}

/// `hasInvalidLabelValueInAffinitySelector`: a pod affinity term whose selectors fail the strict
/// check (for any reason, not only a label value).
fn has_invalid_affinity_selector(spec: &Value) -> bool {
    pod_affinity_terms(spec).into_iter().any(|t| !pod_affinity_term_selector(t, false, "").is_empty())
}

/// `hasInvalidLabelValueInRequiredNodeAffinity` (`HasInvalidLabelValueInNodeSelectorTerms`): a value
/// of a required node selector term's expression that is not a label value.
fn has_invalid_required_node_affinity_value(spec: &Value) -> bool {
    let path = "/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution";
    let Some(required) = spec.at(path).filter(|v| !v.is_null()) else { return false };
    list(required, "nodeSelectorTerms")
        .iter()
        .flat_map(|t| list(t, "matchExpressions"))
        .any(|e| list(e, "values").iter().any(|v| !content::is_valid_label_value(v.as_str().unwrap_or("")).is_empty()))
}

/// `ValidateLabelName`: a qualified name.
fn label_name(name: &str, path: &str) -> Vec<FieldError> {
    content::is_qualified_name(name).into_iter().map(|m| FieldError::invalid(path, str_value(name), m)).collect()
}

fn weight(term: &Value, path: &str) -> Vec<FieldError> {
    let w = term.member("weight").and_then(Value::as_i64).unwrap_or(0);
    if w <= 0 || w > 100 {
        vec![FieldError::invalid(&format!("{path}.weight"), BadValue::Int(w), "must be in the range 1-100")]
    } else {
        Vec::new()
    }
}

/// `ValidateNodeSelectorRequirement`.
fn node_selector_requirement(rq: &Value, check_values: bool, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let values = list(rq, "values");
    let op = s(rq, "operator");
    match op {
        "In" | "NotIn" if values.is_empty() => errs.push(FieldError::required(
            &format!("{path}.values"),
            "must be specified when `operator` is 'In' or 'NotIn'",
        )),
        "Exists" | "DoesNotExist" if !values.is_empty() => errs.push(FieldError::forbidden(
            &format!("{path}.values"),
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        )),
        "Gt" | "Lt" if values.len() != 1 => errs.push(FieldError::required(
            &format!("{path}.values"),
            "must be specified single value when `operator` is 'Lt' or 'Gt'",
        )),
        "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt" => {}
        _ => {
            errs.push(FieldError::invalid(&format!("{path}.operator"), str_value(op), "not a valid selector operator"))
        }
    }
    errs.extend(label_name(s(rq, "key"), &format!("{path}.key")));
    if check_values {
        for (i, v) in values.iter().enumerate() {
            let v = v.as_str().unwrap_or("");
            for m in content::is_valid_label_value(v) {
                errs.push(FieldError::invalid(&format!("{path}.values[{i}]"), str_value(v), m));
            }
        }
    }
    errs
}

/// `ValidateNodeFieldSelectorRequirement`: `metadata.name` with `In` or `NotIn` and one node name.
fn node_field_selector_requirement(rq: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let values = list(rq, "values");
    let op = s(rq, "operator");
    match op {
        "In" | "NotIn" if values.len() != 1 => errs.push(FieldError::required(
            &format!("{path}.values"),
            "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        )),
        "In" | "NotIn" => {}
        _ => {
            errs.push(FieldError::invalid(&format!("{path}.operator"), str_value(op), "not a valid selector operator"))
        }
    }
    let key = s(rq, "key");
    if key != "metadata.name" {
        errs.push(FieldError::invalid(&format!("{path}.key"), str_value(key), "not a valid field selector key"));
    } else {
        for (i, v) in values.iter().enumerate() {
            let v = v.as_str().unwrap_or("");
            for m in content::is_dns1123_subdomain(v) {
                errs.push(FieldError::invalid(&format!("{path}.values[{i}]"), str_value(v), m));
            }
        }
    }
    errs
}

/// `ValidateNodeSelectorTerm`.
fn node_selector_term(term: &Value, check_values: bool, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (j, rq) in list(term, "matchExpressions").iter().enumerate() {
        errs.extend(node_selector_requirement(rq, check_values, &format!("{path}.matchExpressions[{j}]")));
    }
    for (j, rq) in list(term, "matchFields").iter().enumerate() {
        errs.extend(node_field_selector_requirement(rq, &format!("{path}.matchFields[{j}]")));
    }
    errs
}

/// `validateNodeAffinity`.
fn node_affinity(na: &Value, opts: PodOptions, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Some(required) = na.member("requiredDuringSchedulingIgnoredDuringExecution").filter(|v| !v.is_null()) {
        let tp = format!("{path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
        let terms = list(required, "nodeSelectorTerms");
        if terms.is_empty() {
            errs.push(FieldError::required(&tp, "must have at least one node selector term"));
        }
        for (i, term) in terms.iter().enumerate() {
            let check_values = !opts.allow_invalid_label_value_in_required_node_affinity;
            errs.extend(node_selector_term(term, check_values, &format!("{tp}[{i}]")));
        }
    }
    let pp = format!("{path}.preferredDuringSchedulingIgnoredDuringExecution");
    for (i, term) in list(na, "preferredDuringSchedulingIgnoredDuringExecution").iter().enumerate() {
        let p = format!("{pp}[{i}]");
        errs.extend(weight(term, &p));
        // Invalid label values are always allowed in a preferred term.
        let empty = Value::Null;
        errs.extend(node_selector_term(term.member("preference").unwrap_or(&empty), false, &format!("{p}.preference")));
    }
    errs
}

/// `validatePodAffinityTerm`: its selectors, namespaces, label keys and a topology key.
fn pod_affinity_term(term: &Value, allow_invalid_label_value: bool, path: &str) -> Vec<FieldError> {
    let mut errs = pod_affinity_term_selector(term, allow_invalid_label_value, path);
    for ns in list(term, "namespaces") {
        let ns = ns.as_str().unwrap_or("");
        for m in content::is_dns1123_label(ns) {
            // Go names the list `namespace`.
            errs.push(FieldError::invalid(&format!("{path}.namespace"), str_value(ns), m));
        }
    }
    errs.extend(label_keys::pod_affinity_term_keys(term, path));
    let topology_key = s(term, "topologyKey");
    if topology_key.is_empty() {
        errs.push(FieldError::required(&format!("{path}.topologyKey"), "can not be empty"));
    }
    errs.extend(label_name(topology_key, &format!("{path}.topologyKey")));
    errs
}

/// `validatePodAffinity` / `validatePodAntiAffinity`.
fn pod_affinity(pa: &Value, allow_invalid_label_value: bool, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let rp = format!("{path}.requiredDuringSchedulingIgnoredDuringExecution");
    for (i, term) in list(pa, "requiredDuringSchedulingIgnoredDuringExecution").iter().enumerate() {
        errs.extend(pod_affinity_term(term, allow_invalid_label_value, &format!("{rp}[{i}]")));
    }
    let pp = format!("{path}.preferredDuringSchedulingIgnoredDuringExecution");
    for (i, term) in list(pa, "preferredDuringSchedulingIgnoredDuringExecution").iter().enumerate() {
        let p = format!("{pp}[{i}]");
        errs.extend(weight(term, &p));
        let empty = Value::Null;
        let term = term.member("podAffinityTerm").unwrap_or(&empty);
        errs.extend(pod_affinity_term(term, allow_invalid_label_value, &format!("{p}.podAffinityTerm")));
    }
    errs
}

/// `validateAffinity` of a pod spec at `path` (`spec`) under `opts`.
pub fn validate_affinity(spec: &Value, opts: PodOptions, path: &str) -> Vec<FieldError> {
    let Some(affinity) = spec.member("affinity").filter(|v| !v.is_null()) else { return Vec::new() };
    let ap = format!("{path}.affinity");
    let mut errs = Vec::new();
    if let Some(na) = affinity.member("nodeAffinity").filter(|v| !v.is_null()) {
        errs.extend(node_affinity(na, opts, &format!("{ap}.nodeAffinity")));
    }
    for key in ["podAffinity", "podAntiAffinity"] {
        if let Some(pa) = affinity.member(key).filter(|v| !v.is_null()) {
            errs.extend(pod_affinity(pa, opts.allow_invalid_label_value_in_selector, &format!("{ap}.{key}")));
        }
    }
    errs
}

/// `ValidateTolerations` at `path` (`spec.tolerations`).
pub fn validate_tolerations(tolerations: &[Value], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, t) in tolerations.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let (key, op, value, effect) = (s(t, "key"), s(t, "operator"), s(t, "value"), s(t, "effect"));
        if !key.is_empty() {
            errs.extend(label_name(key, &format!("{p}.key")));
        }
        if key.is_empty() && op != "Exists" {
            errs.push(FieldError::invalid(
                &format!("{p}.operator"),
                str_value(op),
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            ));
        }
        if present(t, "tolerationSeconds") && effect != "NoExecute" {
            errs.push(FieldError::invalid(
                &format!("{p}.effect"),
                str_value(effect),
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            ));
        }
        match op {
            "Equal" | "" => {
                let msgs = content::is_valid_label_value(value);
                if !msgs.is_empty() {
                    errs.push(FieldError::invalid(&format!("{p}.operator"), str_value(value), msgs.join(";")));
                }
            }
            "Exists" => {
                if !value.is_empty() {
                    errs.push(FieldError::invalid(
                        &format!("{p}.operator"),
                        str_value(value),
                        "value must be empty when `operator` is 'Exists'",
                    ));
                }
            }
            other => {
                errs.push(FieldError::not_supported(&format!("{p}.operator"), str_value(other), TOLERATION_OPERATORS))
            }
        }
        if !effect.is_empty() && !TAINT_EFFECTS.contains(&effect) {
            errs.push(FieldError::not_supported(&format!("{p}.effect"), str_value(effect), TAINT_EFFECTS));
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::field::texts;

    #[test]
    fn node_affinity_terms() {
        let good = json!({"affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
                                      {"key": "gpu", "operator": "Exists"},
                                      {"key": "cores", "operator": "Gt", "values": ["4"]}],
                 "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]},
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 100, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["not valid!"]}]}}]}}});
        assert!(validate_affinity(&good, PodOptions::default(), "spec").is_empty());
        let bad = json!({"affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []},
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 0, "preference": {"matchExpressions": [{"key": "zone", "operator": "Near", "values": ["a"]}]}}]}}});
        let na = "spec.affinity.nodeAffinity";
        assert_eq!(
            texts(&validate_affinity(&bad, PodOptions::default(), "spec")),
            [
                format!("{na}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term"),
                format!("{na}.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100"),
                format!("{na}.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].operator: Invalid value: \"Near\": not a valid selector operator"),
            ]
        );
        let values = json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}, {"key": "b", "operator": "Lt", "values": []}]}]}}}});
        assert_eq!(validate_affinity(&values, PodOptions::default(), "spec").len(), 2);
    }

    #[test]
    fn pod_affinity_terms_need_a_topology_key() {
        let good = json!({"affinity": {"podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}],
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "zone", "namespaces": ["default"]}}]}}});
        assert!(validate_affinity(&good, PodOptions::default(), "spec").is_empty());
        let bad_value = json!({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["not valid!"]}]}, "topologyKey": "zone"}]}}});
        let errs = texts(&validate_affinity(&bad_value, PodOptions::default(), "spec"));
        assert_eq!(errs.len(), 1);
        assert!(errs[0].starts_with("spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values[0]: Invalid value: \"not valid!\": a valid label must be"), "{errs:?}");
        let bad = json!({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}}]}}});
        let errs = texts(&validate_affinity(&bad, PodOptions::default(), "spec"));
        let t = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey";
        assert_eq!(errs[0], format!("{t}: Required value: can not be empty"));
        assert_eq!(errs[1], format!("{t}: Invalid value: \"\": name part must be non-empty"));
        assert_eq!(errs.len(), 3);
    }

    #[test]
    fn an_update_keeps_the_invalid_label_values_the_old_spec_had() {
        let term = |op: &str, value: &str| {
            json!({"labelSelector": {"matchExpressions": [{"key": "app", "operator": op, "values": [value]}]},
                   "topologyKey": "zone"})
        };
        let pod_affinity = |t: Value| json!({"affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": t}]}}});
        let node_affinity = |value: &str, op: &str| {
            json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": op, "values": [value]}]}]}}}})
        };
        assert_eq!(PodOptions::from_old_spec(&json!({})), PodOptions::default());
        // Any error of an old selector counts, not only a label value; a node selector's values only.
        let old = PodOptions::from_old_spec(&pod_affinity(term("Near", "ok")));
        assert!(old.allow_invalid_label_value_in_selector);
        assert!(!old.allow_invalid_label_value_in_required_node_affinity);
        assert!(
            !PodOptions::from_old_spec(&node_affinity("ok", "Near"))
                .allow_invalid_label_value_in_required_node_affinity
        );
        let old = PodOptions::from_old_spec(&node_affinity("not valid!", "In"));
        assert!(old.allow_invalid_label_value_in_required_node_affinity);
        assert!(!old.allow_invalid_label_value_in_selector);
        // Allowed: the values go unchecked, the operator still is.
        let relaxed = PodOptions { allow_invalid_label_value_in_selector: true, ..PodOptions::default() };
        assert!(validate_affinity(&pod_affinity(term("In", "not valid!")), relaxed, "spec").is_empty());
        assert_eq!(validate_affinity(&pod_affinity(term("In", "not valid!")), PodOptions::default(), "spec").len(), 1);
        assert_eq!(validate_affinity(&pod_affinity(term("Near", "not valid!")), relaxed, "spec").len(), 1);
        assert_eq!(validate_affinity(&node_affinity("not valid!", "In"), relaxed, "spec").len(), 1);
        let relaxed_node =
            PodOptions { allow_invalid_label_value_in_required_node_affinity: true, ..PodOptions::default() };
        assert!(validate_affinity(&node_affinity("not valid!", "In"), relaxed_node, "spec").is_empty());
    }

    #[test]
    fn tolerations() {
        let good = [
            json!({"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}),
            json!({"operator": "Exists"}),
            json!({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}),
        ];
        assert!(validate_tolerations(&good, "spec.tolerations").is_empty());
        let bad = [
            json!({"key": "dedicated", "operator": "Exists", "value": "gpu"}),
            json!({"value": "x"}),
            json!({"key": "k", "operator": "Equal", "effect": "NoSchedule", "tolerationSeconds": 10}),
            json!({"key": "k", "operator": "Matches", "effect": "Evict"}),
        ];
        assert_eq!(
            texts(&validate_tolerations(&bad, "spec.tolerations")),
            [
                "spec.tolerations[0].operator: Invalid value: \"gpu\": value must be empty when `operator` is 'Exists'",
                "spec.tolerations[1].operator: Invalid value: \"\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
                "spec.tolerations[2].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
                "spec.tolerations[3].operator: Unsupported value: \"Matches\": supported values: \"Equal\", \"Exists\"",
                "spec.tolerations[3].effect: Unsupported value: \"Evict\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
            ]
        );
    }

    /// The ratchets `GetValidationOptionsFromPodSpecAndMeta` sets from an old spec breaking the
    /// hugepages, host sysctl and token path rules.
    #[test]
    fn ratchets_from_the_old_spec() {
        let huge = json!({"containers": [{"name": "a", "resources": {"limits": {"hugepages-2Mi": "3Mi"}}}]});
        let sysctl = json!({"hostNetwork": true, "securityContext": {"sysctls": [{"name": "net.core.somaxconn"}]}});
        let token = json!({"volumes": [{"projected": {"sources": [{"serviceAccountToken": {"path": "..token"}}]}}]});
        let opts = |spec: &Value| {
            let o = PodOptions::from_old_spec(spec);
            [
                o.allow_indivisible_huge_pages,
                o.allow_namespaced_sysctls_for_host_namespaces,
                o.allow_non_local_projected_token_path,
            ]
        };
        assert_eq!(opts(&huge), [true, false, false]);
        assert_eq!(opts(&sysctl), [false, true, false]);
        assert_eq!(opts(&token), [false, false, true]);
        let mut fine = sysctl.clone();
        fine["hostNetwork"] = json!(false);
        assert_eq!(opts(&fine), [false; 3]);
    }
}
