//! A pod UPDATE as kubernetes/kubernetes `pkg/apis/core/validation/validation.go`
//! `ValidatePodUpdate` judges it (release-1.36), after the spec's own validation
//! ([`crate::pod::validate_pod`]): `ValidateContainerUpdates` (no container added or removed,
//! images set), `activeDeadlineSeconds`, `validateOnlyAddedTolerations`,
//! `validateOnlyDeletedSchedulingGates`, then the rest of the spec compared with the old one once
//! the updatable fields are copied over (`updatablePodSpecFields`) — the pod-level `resources` and
//! the `overhead` among the fields that may not change, compared as `apiequality.Semantic` compares
//! them (a quantity by its value, an empty resource list as none, an absent value struct as `{}`,
//! a pointer to a struct not).
//!
//! Go appends `cmp.Diff(old, new)` to the last message; go-cmp randomises its own layout on
//! purpose, so the text after the first line here is this crate's list of the changed fields, not
//! go-cmp's.
//!
//! A pod still gated (the old pod has `schedulingGates`) may also gain `nodeSelector` entries
//! (`validateNodeSelectorMutation`) and node-affinity requirements (`validateNodeAffinityMutation`,
//! `validateNodeSelectorTermHasOnlyAdditions`); its preferred node affinity, and a node affinity
//! the old pod did not require, may change freely. The text of kubernetes master (1.37
//! development) checks no feature gate there (`PodSchedulingReadiness`, GA since 1.30, is gone).

use serde_json::{Map, Value};

use crate::field::{go_json_string, BadValue, FieldError};
use crate::lookup::member_of;
use crate::lookup::Lookup;
use crate::resources::quantity_of;
use crate::same::same;

/// `updatablePodSpecFields`, joined as Go joins them (`,` without a space).
pub const UPDATABLE_POD_SPEC_FIELDS: &str = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";
/// The first line of the message of a forbidden spec change.
pub const SPEC_FORBIDDEN_PREFIX: &str = "pod updates may not change fields other than ";
/// `ValidateContainerUpdates`'s message.
pub const ADD_OR_REMOVE: &str = "pod updates may not add or remove containers";

/// `validateNodeSelectorMutation`'s message.
pub const NODE_SELECTOR_ADDITIONS_ONLY: &str =
    "only additions to spec.nodeSelector are allowed (no mutations or deletions)";
/// `validateNodeAffinityMutation`'s message when the number of required terms changes.
pub const NODE_SELECTOR_TERMS_FIXED: &str = "no additions/deletions to non-empty NodeSelectorTerms list are allowed";
/// `validateNodeAffinityMutation`'s message for a required term changed otherwise than by additions.
pub const TERM_ADDITIONS_ONLY: &str = "only additions are allowed (no mutations or deletions)";
const REQUIRED_TERMS_PATH: &str =
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.member(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// `ValidateContainerUpdates`: `(errors, stop)`.
fn container_updates(new: &[Value], old: &[Value], path: &str) -> (Vec<FieldError>, bool) {
    if new.len() != old.len() {
        return (vec![FieldError::forbidden(path, ADD_OR_REMOVE)], true);
    }
    let mut errs = Vec::new();
    for (i, c) in new.iter().enumerate() {
        let image = c.member("image").and_then(Value::as_str).unwrap_or("");
        if image.is_empty() {
            errs.push(FieldError::required(&format!("{path}[{i}].image"), ""));
        }
        if image.trim() != image {
            errs.push(FieldError::invalid(
                &format!("{path}[{i}].image"),
                BadValue::Str(image.into()),
                "must not have leading or trailing whitespace",
            ));
        }
    }
    (errs, false)
}

/// `validateOnlyAddedTolerations` (without the tolerations' own validation): every old
/// toleration is still there, `tolerationSeconds` aside.
fn only_added_tolerations(new: &[Value], old: &[Value]) -> Vec<FieldError> {
    let strip = |t: &Value| {
        let mut t = t.clone();
        if let Some(o) = t.as_object_mut() {
            o.remove("tolerationSeconds");
        }
        t
    };
    for o in old {
        if !new.iter().any(|n| strip(n) == strip(o)) {
            return vec![FieldError::forbidden(
                "spec.tolerations",
                "existing toleration can not be modified except its tolerationSeconds",
            )];
        }
    }
    Vec::new()
}

/// What a JSON value is to `apiequality.Semantic.DeepEqual`, beyond its JSON shape.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Held {
    /// Compared as JSON.
    Json,
    /// A `ResourceList` (`limits`, `requests`, `overhead`): a Go map, so empty is the same as absent.
    ResourceList,
    /// One of its quantities: equal when `Quantity.Cmp` says so (`1` and `1000m`).
    Quantity,
}

/// Whether `apiequality.Semantic.DeepEqual` tells two typed values apart, as [`differences`] finds.
pub(crate) fn semantic_differs(old: &Value, new: &Value) -> bool {
    let mut out = Vec::new();
    differences(old, new, "", &mut out);
    !out.is_empty()
}

/// The JSON paths at which two values differ (`null` and absent are the same, as Go's zero values).
fn differences(old: &Value, new: &Value, path: &str, out: &mut Vec<String>) {
    differ(old, new, &mut path.to_string(), Held::Json, out);
}

/// [`differences`] under `path`, which it extends for each member and item and restores after.
fn differ(old: &Value, new: &Value, path: &mut String, held: Held, out: &mut Vec<String>) {
    // Two equal values hold no difference at any depth: most of an updated pod is its old self.
    if same(old, new) {
        return;
    }
    let empty_map = |v: &Value| v.is_null() || v.as_object().is_some_and(Map::is_empty);
    if held == Held::ResourceList && empty_map(old) && empty_map(new) {
        return;
    }
    // An absent value struct or map is its zero value: compared as `{}` with what the other holds.
    let empty = Value::Object(Map::new());
    let pointer = is_pointer(path);
    let old = if old.is_null() && new.is_object() && !pointer { &empty } else { old };
    let new = if new.is_null() && old.is_object() && !pointer { &empty } else { new };
    if held == Held::Quantity {
        if let (Some(a), Some(b)) = (quantity_of(old), quantity_of(new)) {
            if a.cmp_value(&b).is_eq() {
                return;
            }
        }
    }
    let at = path.len();
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let x = member_of(a, k).unwrap_or(&Value::Null);
                let y = member_of(b, k).unwrap_or(&Value::Null);
                let child = match (held, k.as_str()) {
                    (Held::ResourceList, _) => Held::Quantity,
                    (_, "limits" | "requests" | "overhead") => Held::ResourceList,
                    _ => Held::Json,
                };
                path.push('.');
                path.push_str(k);
                differ(x, y, path, child, out);
                path.truncate(at);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                use std::fmt::Write as _;
                let _ = write!(path, "[{i}]");
                differ(x, y, path, Held::Json, out);
                path.truncate(at);
            }
        }
        (a, b) if a == b => {}
        (Value::Null, b) if is_zero(b) => {}
        (a, Value::Null) if is_zero(a) => {}
        (a, b) => out.push(format!("{path}: {a} -> {b}")),
    }
}

/// The members of the pod spec (and of what it holds) that are Go pointers to structs: there an
/// object, even `{}`, is not the absent value; every other object member is a map or a value
/// struct, whose `{}` is (`Semantic.DeepEqual` holds an empty map equal to none).
const POINTER_STRUCTS: &[&str] = &[
    "securityContext",
    "affinity",
    "dnsConfig",
    "os",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
    "postStart",
    "preStop",
    "exec",
    "httpGet",
    "tcpSocket",
    "grpc",
    "sleep",
    "seccompProfile",
    "appArmorProfile",
    "seLinuxOptions",
    "windowsOptions",
    "capabilities",
    "nodeAffinity",
    "podAffinity",
    "podAntiAffinity",
    "requiredDuringSchedulingIgnoredDuringExecution",
    "labelSelector",
    "namespaceSelector",
    "selector",
    "valueFrom",
    "configMapKeyRef",
    "secretKeyRef",
    "fieldRef",
    "resourceFieldRef",
    "fileKeyRef",
    "configMapRef",
    "secretRef",
    "emptyDir",
    "hostPath",
    "secret",
    "configMap",
    "persistentVolumeClaim",
    "projected",
    "downwardAPI",
    "csi",
    "ephemeral",
    "volumeClaimTemplate",
    "nfs",
    "iscsi",
    "fc",
    "rbd",
    "cephfs",
    "cinder",
    "flexVolume",
    "flocker",
    "gitRepo",
    "glusterfs",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "azureDisk",
    "azureFile",
    "vsphereVolume",
    "quobyte",
    "photonPersistentDisk",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "image",
    "clusterTrustBundle",
    "serviceAccountToken",
    "podCertificate",
    "dataSource",
    "dataSourceRef",
    "nodePublishSecretRef",
    "persistentVolumeClaimRetentionPolicy",
    "rollingUpdate",
    "ordinals",
];

/// Whether the member at `path` (`spec.containers[0].securityContext`) is a pointer to a struct:
/// one of [`POINTER_STRUCTS`], or `resources` of a pod spec (the pod-level resources; a
/// container's and a claim's are value structs).
fn is_pointer(path: &str) -> bool {
    let Some((parent, key)) = path.rsplit_once('.') else { return false };
    if key == "resources" {
        // Under a container the parent is a list item; under a claim spec it follows a claim template.
        let claim_spec = parent
            .strip_suffix(".spec")
            .and_then(|p| p.rsplit('.').next())
            .is_some_and(|k| k.starts_with("volumeClaimTemplate"));
        return parent.ends_with("spec") && !claim_spec;
    }
    POINTER_STRUCTS.contains(&key)
}

/// Go's zero value in JSON: what decodes to the same Go value as an absent field.
fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(_) => false,
    }
}

/// `validateOnlyDeletedSchedulingGates`: a gate name the old pod lacks, at the last index it holds
/// (Go keys a map by name; it walks the map in random order, this in index order).
fn only_deleted_scheduling_gates(new: &[Value], old: &[Value]) -> Vec<FieldError> {
    let name = |g: &Value| g.member("name").and_then(Value::as_str).unwrap_or("").to_string();
    let old: Vec<String> = old.iter().map(name).collect();
    let mut added: Vec<(String, usize)> = Vec::new();
    for (i, g) in new.iter().enumerate() {
        let n = name(g);
        if old.contains(&n) {
            continue;
        }
        match added.iter_mut().find(|(a, _)| *a == n) {
            Some(entry) => entry.1 = i,
            None => added.push((n, i)),
        }
    }
    added.sort_by_key(|(_, i)| *i);
    added
        .into_iter()
        .map(|(n, i)| {
            FieldError::forbidden(
                &format!("spec.schedulingGates[{i}].name"),
                format!("only deletion is allowed, but found new scheduling gate '{n}'"),
            )
        })
        .collect()
}

/// A member that is there and not `null` (a nil Go pointer, slice or map otherwise).
fn present<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.member(key).filter(|x| !x.is_null())
}

/// A `[]string` as `json.Marshal` writes it.
fn strings_json(v: Option<&Value>) -> String {
    match v.and_then(Value::as_array) {
        None => "null".into(),
        Some(a) => {
            let items: Vec<String> = a.iter().map(|x| go_json_string(x.as_str().unwrap_or(""))).collect();
            format!("[{}]", items.join(","))
        }
    }
}

/// A `map[string]string` as `json.Marshal` writes it: keys sorted, a nil map `null`.
fn string_map_json(v: Option<&Value>) -> String {
    match v.and_then(Value::as_object) {
        None => "null".into(),
        Some(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let items: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", go_json_string(k), go_json_string(m[k].as_str().unwrap_or(""))))
                .collect();
            format!("{{{}}}", items.join(","))
        }
    }
}

/// The internal `[]core.NodeSelectorRequirement` (no JSON tags) as `json.Marshal` writes it.
fn requirements_json(v: Option<&Value>) -> String {
    match v.and_then(Value::as_array) {
        None => "null".into(),
        Some(a) => {
            let items: Vec<String> = a
                .iter()
                .map(|r| {
                    format!(
                        "{{\"Key\":{},\"Operator\":{},\"Values\":{}}}",
                        go_json_string(r.member("key").and_then(Value::as_str).unwrap_or("")),
                        go_json_string(r.member("operator").and_then(Value::as_str).unwrap_or("")),
                        strings_json(present(r, "values")),
                    )
                })
                .collect();
            format!("[{}]", items.join(","))
        }
    }
}

/// The internal `core.NodeSelectorTerm` as `json.Marshal` writes it.
fn term_json(term: &Value) -> String {
    format!(
        "{{\"MatchExpressions\":{},\"MatchFields\":{}}}",
        requirements_json(present(term, "matchExpressions")),
        requirements_json(present(term, "matchFields")),
    )
}

/// The internal `[]core.NodeSelectorTerm` as `json.Marshal` writes it.
fn terms_json(v: Option<&Value>) -> String {
    match v.and_then(Value::as_array) {
        None => "null".into(),
        Some(a) => format!("[{}]", a.iter().map(term_json).collect::<Vec<_>>().join(",")),
    }
}

/// `validateNodeSelectorMutation`: every old entry kept with its value, else one error.
fn node_selector_mutation(new: Option<&Value>, old: Option<&Value>) -> Vec<FieldError> {
    let Some(old) = old.and_then(Value::as_object) else { return Vec::new() };
    let kept =
        |k: &String, v: &Value| new.and_then(|n| n.member(k)).and_then(Value::as_str) == Some(v.as_str().unwrap_or(""));
    if old.iter().all(|(k, v)| kept(k, v)) {
        return Vec::new();
    }
    vec![FieldError::invalid("spec.nodeSelector", BadValue::Json(string_map_json(new)), NODE_SELECTOR_ADDITIONS_ONLY)]
}

/// `validateNodeSelectorTermHasOnlyAdditions`.
fn term_has_only_additions(new: &Value, old: &Value) -> bool {
    let (old_exprs, old_fields) = (list(old, "matchExpressions"), list(old, "matchFields"));
    let (new_exprs, new_fields) = (list(new, "matchExpressions"), list(new, "matchFields"));
    if old_exprs.is_empty() && old_fields.is_empty() && (!new_exprs.is_empty() || !new_fields.is_empty()) {
        return false;
    }
    [(old_exprs, new_exprs), (old_fields, new_fields)].into_iter().all(|(o, n)| {
        o.is_empty()
            || (n.len() >= o.len()
                && !semantic_differs(&Value::Array(o.to_vec()), &Value::Array(n[..o.len()].to_vec())))
    })
}

/// `validateNodeAffinityMutation`: a required node affinity the old pod held keeps its terms, each
/// only gaining requirements.
fn node_affinity_mutation(new: Option<&Value>, old: Option<&Value>) -> Vec<FieldError> {
    fn required(na: Option<&Value>) -> Option<&Value> {
        na.and_then(|n| present(n, "requiredDuringSchedulingIgnoredDuringExecution"))
    }
    let Some(old_required) = required(old) else { return Vec::new() };
    let old_terms = list(old_required, "nodeSelectorTerms");
    let new_terms_value = required(new).and_then(|r| present(r, "nodeSelectorTerms"));
    let new_terms = new_terms_value.and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    if !old_terms.is_empty() && old_terms.len() != new_terms.len() {
        return vec![FieldError::invalid(
            REQUIRED_TERMS_PATH,
            BadValue::Json(terms_json(new_terms_value)),
            NODE_SELECTOR_TERMS_FIXED,
        )];
    }
    old_terms
        .iter()
        .zip(new_terms)
        .enumerate()
        .filter(|(_, (o, n))| !term_has_only_additions(n, o))
        .map(|(i, (_, n))| {
            FieldError::invalid(
                &format!("{REQUIRED_TERMS_PATH}[{i}]"),
                BadValue::Json(term_json(n)),
                TERM_ADDITIONS_ONLY,
            )
        })
        .collect()
}

/// `ValidatePodUpdate`'s branch for a pod the old one shows gated: the node selector and the node
/// affinity checked by their own rules, then taken from the old spec into the munged one.
fn gated_pod_mutations(munged: &mut Map<String, Value>, old_spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut diff = Vec::new();
    let old_selector = present(old_spec, "nodeSelector");
    let new_selector = member_of(munged, "nodeSelector").filter(|v| !v.is_null());
    differences(
        old_selector.unwrap_or(&Value::Null),
        new_selector.unwrap_or(&Value::Null),
        "spec.nodeSelector",
        &mut diff,
    );
    if !diff.is_empty() {
        errs.extend(node_selector_mutation(new_selector, old_selector));
        match old_selector {
            Some(v) => munged.insert("nodeSelector".into(), v.clone()),
            None => munged.remove("nodeSelector"),
        };
    }

    let old_affinity = present(old_spec, "affinity");
    let old_na = old_affinity.and_then(|a| present(a, "nodeAffinity")).cloned();
    let new_affinity = member_of(munged, "affinity").filter(|v| !v.is_null());
    let new_na = new_affinity.and_then(|a| present(a, "nodeAffinity")).cloned();
    let mut diff = Vec::new();
    differences(
        old_na.as_ref().unwrap_or(&Value::Null),
        new_na.as_ref().unwrap_or(&Value::Null),
        "spec.affinity.nodeAffinity",
        &mut diff,
    );
    if diff.is_empty() {
        return errs;
    }
    errs.extend(node_affinity_mutation(new_na.as_ref(), old_na.as_ref()));
    let only_node_affinity =
        new_affinity.is_some_and(|a| present(a, "podAntiAffinity").is_none() && present(a, "podAffinity").is_none());
    match (new_affinity.is_some(), &old_na) {
        (false, None) => {}
        (false, Some(na)) => {
            munged.insert("affinity".into(), serde_json::json!({ "nodeAffinity": na }));
        }
        (true, _) if old_affinity.is_none() && only_node_affinity => {
            munged.remove("affinity");
        }
        (true, _) => {
            if let Some(a) = munged.get_mut("affinity").and_then(Value::as_object_mut) {
                match old_na {
                    Some(na) => a.insert("nodeAffinity".into(), na),
                    None => a.remove("nodeAffinity"),
                };
            }
        }
    }
    errs
}

/// `ValidatePodUpdate` without the metadata, on defaulted pods. The spec's own validation is
/// [`crate::pod::validate_pod`], run before by the caller.
pub fn validate_pod_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let empty = Value::Object(Map::new());
    let new_spec = new.member("spec").unwrap_or(&empty);
    let old_spec = old.member("spec").unwrap_or(&empty);
    let mut errs = Vec::new();
    for key in ["containers", "initContainers"] {
        let (e, stop) = container_updates(list(new_spec, key), list(old_spec, key), &format!("spec.{key}"));
        errs.extend(e);
        if stop {
            return errs;
        }
    }
    let new_deadline = new_spec.member("activeDeadlineSeconds").and_then(Value::as_i64);
    let old_deadline = old_spec.member("activeDeadlineSeconds").and_then(Value::as_i64);
    match (new_deadline, old_deadline) {
        (Some(n), _) if !(0..=i64::from(i32::MAX)).contains(&n) => {
            errs.push(FieldError::invalid(
                "spec.activeDeadlineSeconds",
                BadValue::Int(n),
                format!("must be between 0 and {}, inclusive", i32::MAX),
            ));
            return errs;
        }
        (Some(n), Some(o)) if o < n => {
            errs.push(FieldError::invalid(
                "spec.activeDeadlineSeconds",
                BadValue::Int(n),
                "must be less than or equal to previous value",
            ));
            return errs;
        }
        (None, Some(_)) => errs.push(FieldError::invalid(
            "spec.activeDeadlineSeconds",
            BadValue::Json("null".into()),
            "must not update from a positive integer to nil value",
        )),
        _ => {}
    }
    errs.extend(only_added_tolerations(list(new_spec, "tolerations"), list(old_spec, "tolerations")));
    errs.extend(only_deleted_scheduling_gates(list(new_spec, "schedulingGates"), list(old_spec, "schedulingGates")));

    // The munged spec: the updatable fields taken from the old one.
    let mut munged = new_spec.clone();
    if let Some(m) = munged.as_object_mut() {
        for key in ["containers", "initContainers"] {
            if let Some(cs) = m.get_mut(key).and_then(Value::as_array_mut) {
                for (i, c) in cs.iter_mut().enumerate() {
                    let old_image = list(old_spec, key).get(i).and_then(|o| o.member("image")).cloned();
                    if let Some(obj) = c.as_object_mut() {
                        match old_image {
                            Some(img) => obj.insert("image".into(), img),
                            None => obj.remove("image"),
                        };
                    }
                }
            }
        }
        for key in ["activeDeadlineSeconds", "schedulingGates", "tolerations"] {
            match old_spec.member(key) {
                Some(v) => m.insert(key.into(), v.clone()),
                None => m.remove(key),
            };
        }
        let old_grace = old_spec.member("terminationGracePeriodSeconds").and_then(Value::as_i64);
        let new_grace = member_of(m, "terminationGracePeriodSeconds").and_then(Value::as_i64);
        if old_grace.is_some_and(|g| g < 0) && new_grace == Some(1) {
            m.insert("terminationGracePeriodSeconds".into(), Value::from(old_grace.unwrap_or(0)));
        }
        if !list(old_spec, "schedulingGates").is_empty() {
            errs.extend(gated_pod_mutations(m, old_spec));
        }
    }
    let mut diff = Vec::new();
    differences(old_spec, &munged, "spec", &mut diff);
    if !diff.is_empty() {
        errs.push(FieldError::forbidden(
            "spec",
            format!("{SPEC_FORBIDDEN_PREFIX}{UPDATABLE_POD_SPEC_FIELDS}\n{}", diff.join("\n")),
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(extra: Value) -> Value {
        let mut spec = json!({"containers": [{"name": "a", "image": "x:1", "resources": {"limits": {"cpu": "1"}}}]});
        for (k, v) in extra.as_object().unwrap() {
            spec[k] = v.clone();
        }
        json!({"spec": spec})
    }

    /// `ValidatePodUpdate`: the overhead and the pod-level resources may not change, but the same
    /// quantity written otherwise, or an empty resource list for none, is no change.
    #[test]
    fn overhead_and_pod_level_resources_are_immutable_by_value() {
        let old = pod(json!({"overhead": {"cpu": "1"}, "resources": {"limits": {"memory": "1Gi"}}}));
        let same =
            pod(json!({"overhead": {"cpu": "1000m"}, "resources": {"limits": {"memory": "1024Mi"}, "requests": {}}}));
        assert!(validate_pod_update(&same, &old).is_empty());
        let mut same_container = old.clone();
        same_container["spec"]["containers"][0]["resources"]["limits"]["cpu"] = json!(1);
        assert!(validate_pod_update(&same_container, &old).is_empty());
        let changed = pod(json!({"overhead": {"cpu": "2"}, "resources": {"limits": {"memory": "1Gi"}}}));
        let errs = validate_pod_update(&changed, &old);
        assert_eq!(errs.len(), 1);
        assert!(errs[0].detail.ends_with("\nspec.overhead.cpu: \"1\" -> \"2\""), "{}", errs[0].detail);
        let dropped = pod(json!({"overhead": {"cpu": "1"}}));
        let errs = validate_pod_update(&dropped, &old);
        assert!(
            errs[0].detail.ends_with("\nspec.resources: {\"limits\":{\"memory\":\"1Gi\"}} -> null"),
            "{}",
            errs[0].detail
        );
    }

    fn texts(errs: &[FieldError]) -> Vec<String> {
        errs.iter().map(ToString::to_string).collect()
    }

    fn gated(extra: Value) -> Value {
        let mut p = pod(extra);
        p["spec"]["schedulingGates"] = json!([{"name": "example.com/queue"}]);
        p
    }

    fn required(terms: Value) -> Value {
        json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}})
    }

    /// `ValidatePodUpdate`'s gated branch, `validateNodeSelectorMutation`: a gated pod may gain
    /// node-selector entries (and lose its gates at the same time), not change or drop one.
    #[test]
    fn a_gated_pod_may_only_add_node_selector_entries() {
        let old = gated(json!({"nodeSelector": {"zone": "a"}}));
        let added = gated(json!({"nodeSelector": {"zone": "a", "pool": "x"}}));
        assert!(validate_pod_update(&added, &old).is_empty());
        let ungated = pod(json!({"nodeSelector": {"zone": "a", "pool": "x"}}));
        assert!(validate_pod_update(&ungated, &old).is_empty());
        let from_none = gated(json!({"nodeSelector": {"pool": "x"}}));
        assert!(validate_pod_update(&from_none, &gated(json!({}))).is_empty());
        let changed = gated(json!({"nodeSelector": {"zone": "b", "pool": "x"}}));
        assert_eq!(
            texts(&validate_pod_update(&changed, &old)),
            [format!(
                "spec.nodeSelector: Invalid value: {{\"pool\":\"x\",\"zone\":\"b\"}}: {NODE_SELECTOR_ADDITIONS_ONLY}"
            )]
        );
        let dropped = gated(json!({}));
        assert_eq!(
            texts(&validate_pod_update(&dropped, &old)),
            [format!("spec.nodeSelector: Invalid value: null: {NODE_SELECTOR_ADDITIONS_ONLY}")]
        );
        // An empty map is no map to apiequality.Semantic.
        assert!(validate_pod_update(&gated(json!({"nodeSelector": {}})), &gated(json!({}))).is_empty());
    }

    /// Without gates on the old pod the node selector is one of the fields that may not change.
    #[test]
    fn an_ungated_pod_may_not_change_its_node_selector() {
        let old = pod(json!({}));
        let errs = validate_pod_update(&pod(json!({"nodeSelector": {"zone": "a"}})), &old);
        assert_eq!(errs.len(), 1);
        assert!(errs[0].detail.starts_with(SPEC_FORBIDDEN_PREFIX));
        assert!(errs[0].detail.ends_with("\nspec.nodeSelector.zone: null -> \"a\""), "{}", errs[0].detail);
        // Gates added by the update make no gated pod: the old pod is the one that counts.
        let errs = validate_pod_update(&gated(json!({"nodeSelector": {"zone": "a"}})), &old);
        assert_eq!(errs.len(), 2);
        assert_eq!(errs[0].field, "spec.schedulingGates[0].name");
        assert_eq!(errs[1].field, "spec");
    }

    /// `validateNodeAffinityMutation`, `validateNodeSelectorTermHasOnlyAdditions`.
    #[test]
    fn a_gated_pod_may_only_add_required_node_affinity_requirements() {
        let expr = |k: &str| json!({"key": k, "operator": "In", "values": ["v"]});
        let old = gated(required(json!([{"matchExpressions": [expr("a")]}])));
        let more = gated(required(json!([{"matchExpressions": [expr("a"), expr("b")]}])));
        assert!(validate_pod_update(&more, &old).is_empty());
        let fields = json!([{"key": "metadata.name", "operator": "In", "values": ["n1"]}]);
        let with_fields = gated(required(json!([{"matchExpressions": [expr("a")], "matchFields": fields}])));
        assert!(validate_pod_update(&with_fields, &old).is_empty());

        let changed = gated(required(json!([{"matchExpressions": [expr("b"), expr("a")]}])));
        assert_eq!(
            texts(&validate_pod_update(&changed, &old)),
            [format!(
                "{REQUIRED_TERMS_PATH}[0]: Invalid value: {{\"MatchExpressions\":[{{\"Key\":\"b\",\"Operator\":\"In\",\"Values\":[\"v\"]}},{{\"Key\":\"a\",\"Operator\":\"In\",\"Values\":[\"v\"]}}],\"MatchFields\":null}}: {TERM_ADDITIONS_ONLY}"
            )]
        );
        let another_term =
            gated(required(json!([{"matchExpressions": [expr("a")]}, {"matchExpressions": [expr("b")]}])));
        let errs = validate_pod_update(&another_term, &old);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, REQUIRED_TERMS_PATH);
        assert!(errs[0].to_string().ends_with(&format!("\"MatchFields\":null}}]: {NODE_SELECTOR_TERMS_FIXED}")));
        let no_affinity = gated(json!({}));
        assert_eq!(
            texts(&validate_pod_update(&no_affinity, &old)),
            [format!("{REQUIRED_TERMS_PATH}: Invalid value: null: {NODE_SELECTOR_TERMS_FIXED}")]
        );
        // An old term with no requirement may gain none.
        let empty_term = gated(required(json!([{}])));
        let errs = validate_pod_update(&gated(required(json!([{"matchExpressions": [expr("a")]}]))), &empty_term);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, format!("{REQUIRED_TERMS_PATH}[0]"));
        // Ungated, the same addition is a spec change.
        let errs = validate_pod_update(
            &pod(required(json!([{"matchExpressions": [expr("a"), expr("b")]}]))),
            &pod(required(json!([{"matchExpressions": [expr("a")]}]))),
        );
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, "spec");
    }

    /// What the old pod did not require, and the preferred terms, a gated pod may set freely; the
    /// pod (anti-)affinity stays immutable.
    #[test]
    fn a_gated_pod_may_set_a_node_affinity_it_did_not_require() {
        let expr = json!({"key": "a", "operator": "Exists"});
        let preferred = json!({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {"matchExpressions": [expr]}}]}}});
        let old = gated(json!({}));
        assert!(validate_pod_update(&gated(required(json!([{"matchExpressions": [expr]}]))), &old).is_empty());
        assert!(validate_pod_update(&gated(preferred.clone()), &old).is_empty());
        assert!(validate_pod_update(&old, &gated(preferred.clone())).is_empty());
        let mut both = required(json!([{"matchExpressions": [expr]}]));
        both["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] =
            preferred["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"].clone();
        assert!(validate_pod_update(&gated(both.clone()), &gated(required(json!([{"matchExpressions": [expr]}]))))
            .is_empty());
        assert!(validate_pod_update(&gated(required(json!([{"matchExpressions": [expr]}]))), &gated(both)).is_empty());

        let pod_affinity = json!({"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "x"}}}]});
        let mut with_pod_affinity = required(json!([{"matchExpressions": [expr]}]));
        with_pod_affinity["affinity"]["podAffinity"] = pod_affinity.clone();
        let errs = validate_pod_update(&gated(with_pod_affinity.clone()), &old);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, "spec");
        assert!(errs[0].detail.contains("\nspec.affinity: null -> {\"podAffinity\""), "{}", errs[0].detail);
        // Dropping the whole affinity drops the pod affinity too.
        let mut old_pod_affinity = json!({"affinity": {"podAffinity": pod_affinity}});
        let errs = validate_pod_update(&old, &gated(old_pod_affinity.clone()));
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, "spec");
        // Adding a node affinity beside it is fine.
        old_pod_affinity["affinity"]["nodeAffinity"] = with_pod_affinity["affinity"]["nodeAffinity"].clone();
        assert!(validate_pod_update(
            &gated(old_pod_affinity),
            &gated(json!({"affinity": {"podAffinity": with_pod_affinity["affinity"]["podAffinity"].clone()}}))
        )
        .is_empty());
        // An empty affinity is a pointer set: not the absent one.
        let errs = validate_pod_update(&gated(json!({"affinity": {}})), &old);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, "spec");
    }

    /// `validateOnlyDeletedSchedulingGates`: a new name once, at the last index that holds it.
    #[test]
    fn scheduling_gates_may_only_be_removed() {
        let old = gated(json!({}));
        let mut removed = pod(json!({}));
        removed["spec"]["schedulingGates"] = json!([]);
        assert!(validate_pod_update(&removed, &old).is_empty());
        let mut added = pod(json!({}));
        added["spec"]["schedulingGates"] = json!([{"name": "b"}, {"name": "example.com/queue"}, {"name": "b"}]);
        assert_eq!(
            texts(&validate_pod_update(&added, &old)),
            ["spec.schedulingGates[2].name: Forbidden: only deletion is allowed, but found new scheduling gate 'b'"]
        );
    }
}
