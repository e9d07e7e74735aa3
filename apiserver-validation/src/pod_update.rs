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
//! go-cmp's. The node-affinity and node-selector relaxations of gated pods are not modelled.

use serde_json::{Map, Value};

use crate::field::{BadValue, FieldError};
use crate::resources::quantity_of;

/// `updatablePodSpecFields`, joined as Go joins them (`,` without a space).
pub const UPDATABLE_POD_SPEC_FIELDS: &str = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";
/// The first line of the message of a forbidden spec change.
pub const SPEC_FORBIDDEN_PREFIX: &str = "pod updates may not change fields other than ";
/// `ValidateContainerUpdates`'s message.
pub const ADD_OR_REMOVE: &str = "pod updates may not add or remove containers";

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// `ValidateContainerUpdates`: `(errors, stop)`.
fn container_updates(new: &[Value], old: &[Value], path: &str) -> (Vec<FieldError>, bool) {
    if new.len() != old.len() {
        return (vec![FieldError::forbidden(path, ADD_OR_REMOVE)], true);
    }
    let mut errs = Vec::new();
    for (i, c) in new.iter().enumerate() {
        let image = c.get("image").and_then(Value::as_str).unwrap_or("");
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
    differ(old, new, path, Held::Json, out);
}

fn differ(old: &Value, new: &Value, path: &str, held: Held, out: &mut Vec<String>) {
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
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let x = a.get(k).unwrap_or(&Value::Null);
                let y = b.get(k).unwrap_or(&Value::Null);
                let child = match (held, k.as_str()) {
                    (Held::ResourceList, _) => Held::Quantity,
                    (_, "limits" | "requests" | "overhead") => Held::ResourceList,
                    _ => Held::Json,
                };
                differ(x, y, &format!("{path}.{k}"), child, out);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differ(x, y, &format!("{path}[{i}]"), Held::Json, out);
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

/// `ValidatePodUpdate` without the metadata, on defaulted pods. The spec's own validation is
/// [`crate::pod::validate_pod`], run before by the caller.
pub fn validate_pod_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let empty = Value::Object(Map::new());
    let new_spec = new.get("spec").unwrap_or(&empty);
    let old_spec = old.get("spec").unwrap_or(&empty);
    let mut errs = Vec::new();
    for key in ["containers", "initContainers"] {
        let (e, stop) = container_updates(list(new_spec, key), list(old_spec, key), &format!("spec.{key}"));
        errs.extend(e);
        if stop {
            return errs;
        }
    }
    let new_deadline = new_spec.get("activeDeadlineSeconds").and_then(Value::as_i64);
    let old_deadline = old_spec.get("activeDeadlineSeconds").and_then(Value::as_i64);
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
    // validateOnlyDeletedSchedulingGates.
    let old_gates: Vec<&str> =
        list(old_spec, "schedulingGates").iter().filter_map(|g| g.get("name").and_then(Value::as_str)).collect();
    for (i, g) in list(new_spec, "schedulingGates").iter().enumerate() {
        let name = g.get("name").and_then(Value::as_str).unwrap_or("");
        if !old_gates.contains(&name) {
            errs.push(FieldError::forbidden(
                &format!("spec.schedulingGates[{i}].name"),
                format!("only deletion is allowed, but found new scheduling gate '{name}'"),
            ));
        }
    }

    // The munged spec: the updatable fields taken from the old one.
    let mut munged = new_spec.clone();
    if let Some(m) = munged.as_object_mut() {
        for key in ["containers", "initContainers"] {
            if let Some(cs) = m.get_mut(key).and_then(Value::as_array_mut) {
                for (i, c) in cs.iter_mut().enumerate() {
                    let old_image = list(old_spec, key).get(i).and_then(|o| o.get("image")).cloned();
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
            match old_spec.get(key) {
                Some(v) => m.insert(key.into(), v.clone()),
                None => m.remove(key),
            };
        }
        let old_grace = old_spec.get("terminationGracePeriodSeconds").and_then(Value::as_i64);
        let new_grace = m.get("terminationGracePeriodSeconds").and_then(Value::as_i64);
        if old_grace.is_some_and(|g| g < 0) && new_grace == Some(1) {
            m.insert("terminationGracePeriodSeconds".into(), Value::from(old_grace.unwrap_or(0)));
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
}
