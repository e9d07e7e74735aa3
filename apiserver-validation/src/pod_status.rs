//! An UPDATE of `pods/status` as the registry handles it (release-1.36): kubernetes/kubernetes
//! `pkg/registry/core/pod/strategy.go` `podStatusStrategy.PrepareForUpdate` puts back what a
//! status request may not change ([`prepare_for_update`]), then `podStatusStrategy.ValidateUpdate`
//! runs `pkg/apis/core/validation/validation.go` `ValidatePodStatusUpdate`
//! ([`validate_pod_status_update`], after the metadata's own update rules).
//!
//! Modelled of `ValidatePodStatusUpdate`: `validatePodConditions`, the nominated node's name, the
//! immutable QoS class and `ValidateContainerStateTransition` / `ValidateInitContainerStateTransition`.
//! Not modelled: `ValidatePodSpecificAnnotationUpdates`, the resource claim statuses, the pod and
//! host IPs, the container statuses' users and allocated resources. `status.nodeName`'s check
//! compares the specs, which the reset makes equal: it cannot fail after it.

use serde_json::{Map, Value};

use crate::content::{is_dns1123_subdomain, is_qualified_name};
use crate::field::{BadValue, FieldError};
use crate::objectmeta::FIELD_IMMUTABLE;

/// `podStatusStrategy.GetResetFields`: what a status request cannot change, as JSON pointers.
pub const RESET_FIELDS: &[&str] = &["/spec", "/metadata/deletionTimestamp", "/metadata/ownerReferences"];

/// `ValidateContainerStateTransition`'s message.
pub const NOT_TO_NON_TERMINATED: &str = "may not be transitioned to non-terminated state";

/// `podStatusStrategy.PrepareForUpdate`: the old spec and owner references put back, the deletion
/// timestamp cleared (`BeforeUpdate` then takes the old one), an empty QoS class backfilled, and
/// `preserveOldObservedGeneration` (a zero `observedGeneration` of the status or of a condition
/// takes the old one; conditions matched by type, in order). `DropDisabledPodFields` is not
/// modelled (every field is taken as enabled).
pub fn prepare_for_update(new: &mut Value, old: &Value) {
    let Some(pod) = new.as_object_mut() else { return };
    match old.get("spec") {
        Some(spec) => pod.insert("spec".into(), spec.clone()),
        None => pod.remove("spec"),
    };
    let meta = pod.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if let Some(meta) = meta.as_object_mut() {
        meta.remove("deletionTimestamp");
        match old.pointer("/metadata/ownerReferences") {
            Some(refs) => meta.insert("ownerReferences".into(), refs.clone()),
            None => meta.remove("ownerReferences"),
        };
    }
    let status = pod.entry("status").or_insert_with(|| Value::Object(Map::new()));
    let Some(status) = status.as_object_mut() else { return };
    let empty = |v: Option<&Value>| v.is_none_or(|v| v.is_null() || v.as_str() == Some(""));
    if empty(status.get("qosClass")) {
        match old.pointer("/status/qosClass") {
            Some(q) => status.insert("qosClass".into(), q.clone()),
            None => status.remove("qosClass"),
        };
    }
    let zero = |v: Option<&Value>| v.is_none_or(|v| v.is_null() || v.as_i64() == Some(0));
    if zero(status.get("observedGeneration")) {
        if let Some(g) = old.pointer("/status/observedGeneration") {
            status.insert("observedGeneration".into(), g.clone());
        }
    }
    let mut old_generations: Vec<(Value, Option<Value>)> =
        list(old.get("status").unwrap_or(&Value::Null), "conditions")
            .iter()
            .map(|c| (c.get("type").cloned().unwrap_or(Value::Null), c.get("observedGeneration").cloned()))
            .collect();
    if let Some(Value::Array(conditions)) = status.get_mut("conditions") {
        for condition in conditions.iter_mut().filter_map(Value::as_object_mut) {
            let kind = condition.get("type").cloned().unwrap_or(Value::Null);
            let previous = old_generations.iter().position(|(t, _)| *t == kind).map(|i| old_generations.remove(i).1);
            if zero(condition.get("observedGeneration")) {
                if let Some(Some(g)) = previous {
                    condition.insert("observedGeneration".into(), g);
                }
            }
        }
    }
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

fn text<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// `validatePodConditions`: a condition type other than the system ones is a qualified name. Go
/// builds the path from `metadata`, hence `metadata.conditions[i].Type`.
fn pod_conditions(conditions: &[Value]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, c) in conditions.iter().enumerate() {
        let kind = c.get("type").and_then(Value::as_str).unwrap_or("");
        if matches!(kind, "PodScheduled" | "Ready" | "Initialized") {
            continue;
        }
        for msg in is_qualified_name(kind) {
            errs.push(FieldError::invalid(&format!("metadata.conditions[{i}].Type"), BadValue::Str(kind.into()), msg));
        }
    }
    errs
}

fn terminated(status: &Value) -> Option<&Value> {
    status.pointer("/state/terminated").filter(|t| !t.is_null())
}

/// `ValidateContainerStateTransition` (and, with `restartable` naming the init containers whose
/// own restartPolicy is Always, `ValidateInitContainerStateTransition`): under a pod restartPolicy
/// other than Always, a terminated container (a failed one under OnFailure aside) stays terminated.
fn state_transitions(
    new: &[Value],
    old: &[Value],
    path: &str,
    restart_policy: &str,
    restartable: &[&str],
) -> Vec<FieldError> {
    if restart_policy == "Always" {
        return Vec::new();
    }
    let mut errs = Vec::new();
    for (i, before) in old.iter().enumerate() {
        let Some(t) = terminated(before) else { continue };
        if t.get("exitCode").and_then(Value::as_i64).unwrap_or(0) != 0 && restart_policy == "OnFailure" {
            continue;
        }
        let name = before.get("name").and_then(Value::as_str).unwrap_or("");
        if restartable.contains(&name) {
            continue;
        }
        for after in new {
            if after.get("name").and_then(Value::as_str).unwrap_or("") == name && terminated(after).is_none() {
                errs.push(FieldError::forbidden(&format!("{path}[{i}].state"), NOT_TO_NON_TERMINATED));
            }
        }
    }
    errs
}

/// `ValidatePodStatusUpdate` without the metadata's update rules (the caller's), on pods already
/// reset by [`prepare_for_update`].
pub fn validate_pod_status_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let null = Value::Null;
    let new_status = new.get("status").unwrap_or(&null);
    let old_status = old.get("status").unwrap_or(&null);
    let mut errs = pod_conditions(list(new_status, "conditions"));
    let nominated = text(new, "/status/nominatedNodeName");
    if nominated != text(old, "/status/nominatedNodeName") && !nominated.is_empty() {
        for msg in is_dns1123_subdomain(nominated) {
            errs.push(FieldError::invalid("status.nominatedNodeName", BadValue::Str(nominated.into()), msg));
        }
    }
    let qos = text(new, "/status/qosClass");
    if qos != text(old, "/status/qosClass") {
        errs.push(FieldError::invalid("status.qosClass", BadValue::Str(qos.into()), FIELD_IMMUTABLE));
    }
    let policy = text(old, "/spec/restartPolicy");
    let restartable: Vec<&str> = list(old.get("spec").unwrap_or(&null), "initContainers")
        .iter()
        .filter(|c| c.get("restartPolicy").and_then(Value::as_str) == Some("Always"))
        .filter_map(|c| c.get("name").and_then(Value::as_str))
        .collect();
    for (key, policy, restartable) in [
        ("containerStatuses", policy, &[][..]),
        ("initContainerStatuses", policy, &restartable[..]),
        ("ephemeralContainerStatuses", "Never", &[][..]),
    ] {
        errs.extend(state_transitions(
            list(new_status, key),
            list(old_status, key),
            &format!("status.{key}"),
            policy,
            restartable,
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod(spec: Value, status: Value) -> Value {
        json!({"metadata": {"name": "web", "ownerReferences": [{"kind": "ReplicaSet"}]}, "spec": spec, "status": status})
    }

    #[test]
    fn the_reset_puts_back_the_old_spec_and_owners_and_backfills_the_qos_class() {
        let old = pod(json!({"nodeName": "n1"}), json!({"qosClass": "BestEffort", "observedGeneration": 3}));
        let mut new = pod(json!({"nodeName": "n2"}), json!({"phase": "Running"}));
        new["metadata"]["ownerReferences"] = json!([]);
        new["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
        prepare_for_update(&mut new, &old);
        assert_eq!(new["spec"], old["spec"]);
        assert_eq!(new["metadata"]["ownerReferences"], old["metadata"]["ownerReferences"]);
        assert!(new["metadata"].get("deletionTimestamp").is_none());
        assert_eq!(new["status"], json!({"phase": "Running", "qosClass": "BestEffort", "observedGeneration": 3}));
    }

    #[test]
    fn a_condition_keeps_its_old_observed_generation_by_type() {
        let old = pod(json!({}), json!({"conditions": [{"type": "Ready", "observedGeneration": 2}]}));
        let mut new = pod(json!({}), json!({"conditions": [{"type": "X"}, {"type": "Ready"}]}));
        prepare_for_update(&mut new, &old);
        assert_eq!(new["status"]["conditions"], json!([{"type": "X"}, {"type": "Ready", "observedGeneration": 2}]));
    }

    #[test]
    fn a_terminated_container_of_a_never_restarting_pod_may_not_run_again() {
        let statuses = |state: Value| json!({"containerStatuses": [{"name": "c", "state": state}]});
        let done = json!({"terminated": {"exitCode": 0}});
        let never = pod(json!({"restartPolicy": "Never"}), statuses(done.clone()));
        let running = pod(json!({"restartPolicy": "Never"}), statuses(json!({"running": {}})));
        let errs = validate_pod_status_update(&running, &never);
        assert_eq!(errs.len(), 1);
        assert_eq!(
            errs[0].to_string(),
            "status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state"
        );
        assert!(validate_pod_status_update(&never, &never).is_empty());
        let always = pod(json!({"restartPolicy": "Always"}), statuses(done));
        assert!(validate_pod_status_update(&running, &always).is_empty());
    }
}
