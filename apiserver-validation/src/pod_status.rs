//! An UPDATE of `pods/status` as the registry handles it (release-1.36): kubernetes/kubernetes
//! `pkg/registry/core/pod/strategy.go` `podStatusStrategy.PrepareForUpdate` puts back what a
//! status request may not change ([`prepare_for_update`]), then `podStatusStrategy.ValidateUpdate`
//! runs `pkg/apis/core/validation/validation.go` `ValidatePodStatusUpdate`
//! ([`validate_pod_status_update`], after the metadata's own update rules).
//!
//! Modelled of `ValidatePodStatusUpdate`: `validatePodConditions`, the nominated node's name, the
//! immutable QoS class, `ValidateContainerStateTransition` / `ValidateInitContainerStateTransition`,
//! `validatePodResourceClaimStatuses` (each status names an entry of `spec.resourceClaims`, once,
//! and its `resourceClaimName` is `ValidateResourceClaimName`, a DNS subdomain), `validatePodIPs`
//! and `validateHostIPs`. Not modelled: `ValidatePodSpecificAnnotationUpdates`, the container
//! statuses' users and allocated resources. `status.nodeName`'s check compares the specs, which the
//! reset makes equal: it cannot fail after it.
//!
//! The pod and host IPs: each IP of `podIPs` and `hostIPs` is `IsValidIPForLegacyField` (the
//! `pkg/apis/core/validation` wrapper, whose `validOldIPs` are the old pod's list: an IP the old
//! list holds anywhere is kept without a check; the others must pass `netutils.ParseIPSloppy`, as
//! [`crate::ip`] models the `StrictIPCIDRValidation` gate off), at `status.podIPs[i]` (no `.ip`);
//! a list of more than one IP must be one IPv4 and one IPv6 (`netutils.IsDualStackIPStrings`),
//! else an Invalid whose value is the internal list as `json.Marshal` writes it
//! (`[{"IP":"10.0.0.1"},{"IP":"10.0.0.2"}]`: `core.PodIP` and `core.HostIP` have no JSON tags),
//! preceded, when an IP of the list does not parse, by the Internal error of the failed check
//! (`failed to check for dual stack with error:invalid IP[i]: <ip>`, k8s.io/utils `IsDualStackIPStrings`).
//! A non-empty `hostIPs` must start with `hostIP` (an Invalid at `status.hostIPs[0].ip`); nothing
//! compares `podIP` with `podIPs`: the internal `core.PodStatus` Go validates is what
//! `pkg/apis/core/v1/conversion.go` `Convert_v1_PodStatus_To_core_PodStatus` makes of the v1 one
//! ([`internal_pod_ips`]): a `podIP` with no `podIPs` becomes the list `[podIP]`. A `podIP` that
//! differs from a non-empty `podIPs[0]` is not judged ([`pod_ip_mismatch`]; `unmodelled.rs` names
//! it): the conversion test read has it replace the whole list, a newer one keeps it beside the
//! list, and which of the two release-1.36 does is not known. The old pod, stored, goes through the
//! same conversion.
//!
//! Read from a 1.37 development copy of `validation.go` (`validatePodIPs`, `validateHostIPs`,
//! `validatePodResourceClaimStatuses`, the wrapper `IsValidIPForLegacyField`), k8s.io/utils
//! `net/ipfamily.go` and the `Test_v1_PodStatus_to_core_PodStatus` cases of
//! `pkg/apis/core/v1/conversion_test.go`; not verified against the release-1.36 branch itself.

use serde_json::{Map, Value};

use crate::content::{is_dns1123_subdomain, is_qualified_name};
use crate::field::{go_json_string, BadValue, FieldError};
use crate::field_formats::{dns_subdomain, str_value};
use crate::ip::{is_dual_stack_ip_strings, is_valid_ip_for_legacy_field, parse_sloppy};
use crate::objectmeta::FIELD_IMMUTABLE;
use crate::zero_values::{present, s};

/// `podStatusStrategy.GetResetFields`: what a status request cannot change, as JSON pointers.
pub const RESET_FIELDS: &[&str] = &["/spec", "/metadata/deletionTimestamp", "/metadata/ownerReferences"];

/// `ValidateContainerStateTransition`'s message.
pub const NOT_TO_NON_TERMINATED: &str = "may not be transitioned to non-terminated state";
/// `validatePodIPs`' and `validateHostIPs`' detail of a list that is not one IP per family.
pub const ONE_PER_FAMILY: &str = "may specify no more than one IP for each IP family";
/// `validateHostIPs`' detail of a `hostIPs[0]` other than `hostIP`.
pub const NOT_HOST_IP: &str = "must be equal to `hostIP`";
/// `validatePodResourceClaimStatuses`' detail of a status whose name is no pod claim's.
pub const NOT_A_POD_CLAIM: &str = "must match the name of an entry in `spec.resourceClaims`";

/// `podStatusStrategy.PrepareForUpdate`: the old spec and owner references put back, the deletion
/// timestamp cleared (`BeforeUpdate` then takes the old one), an empty QoS class backfilled, and
/// `preserveOldObservedGeneration` (a zero `observedGeneration` of the status or of a condition
/// takes the old one; conditions matched by type, in order), then `DropDisabledPodFields`, which
/// with the old spec put back drops only status fields of gates off by default
/// (`crate::gated`'s `drop_disabled_status`).
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
    crate::gated::drop_disabled_status(status, old.get("status"));
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

/// `validatePodResourceClaimStatuses` against the pod's `spec.resourceClaims` (the old spec, after
/// the reset): each status's name is a claim's (`havePodClaim`) and unique, and a
/// `resourceClaimName` is a DNS subdomain.
fn resource_claim_statuses(statuses: &[Value], spec: &Value) -> Vec<FieldError> {
    let claims = list(spec, "resourceClaims");
    let mut errs = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (i, status) in statuses.iter().enumerate() {
        let path = format!("status.resourceClaimStatuses[{i}]");
        let name = s(status, "name");
        if !claims.iter().any(|c| s(c, "name") == name) {
            errs.push(FieldError::invalid(&format!("{path}.name"), str_value(name), NOT_A_POD_CLAIM));
        }
        if seen.contains(&name) {
            errs.push(FieldError::duplicate(&format!("{path}.name"), str_value(name)));
        } else {
            seen.push(name);
        }
        if present(status, "resourceClaimName") {
            errs.extend(dns_subdomain(s(status, "resourceClaimName"), &format!("{path}.resourceClaimName")));
        }
    }
    errs
}

/// The `ip` of each entry of a list of `{"ip": …}` (`podIPs`, `hostIPs`).
fn ips(status: &Value, key: &str) -> Vec<String> {
    list(status, key).iter().map(|p| s(p, "ip").to_string()).collect()
}

/// The internal `PodIPs` that `Convert_v1_PodStatus_To_core_PodStatus` makes of a v1 status: a
/// non-empty `podIP` that `podIPs` does not start with replaces the list.
pub fn internal_pod_ips(status: &Value) -> Vec<String> {
    let pod_ips = ips(status, "podIPs");
    let pod_ip = s(status, "podIP");
    if !pod_ip.is_empty() && pod_ips.first().is_none_or(|first| first != pod_ip) {
        return vec![pod_ip.to_string()];
    }
    pod_ips
}

/// A list of internal `core.PodIP` or `core.HostIP` as `json.Marshal` writes it.
fn ips_json(ips: &[String]) -> BadValue {
    let items: Vec<String> = ips.iter().map(|ip| format!("{{\"IP\":{}}}", go_json_string(ip))).collect();
    BadValue::Json(format!("[{}]", items.join(",")))
}

/// What `validatePodIPs` and `validateHostIPs` share, for the list at `path`: every IP the old
/// list lacks is `IsValidIPForLegacyField`, and more than one IP must be a dual-stack pair.
fn ip_list(path: &str, ips: &[String], old: &[String]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, ip) in ips.iter().enumerate() {
        if !old.contains(ip) {
            errs.extend(is_valid_ip_for_legacy_field(&format!("{path}[{i}]"), ip));
        }
    }
    if ips.len() > 1 {
        let unparsed = ips.iter().position(|ip| parse_sloppy(ip).is_none());
        if let Some(i) = unparsed {
            errs.push(FieldError::internal(
                path,
                format!("failed to check for dual stack with error:invalid IP[{i}]: {}", ips[i]),
            ));
        }
        if unparsed.is_some() || !is_dual_stack_ip_strings(ips) || ips.len() > 2 {
            errs.push(FieldError::invalid(path, ips_json(ips), ONE_PER_FAMILY));
        }
    }
    errs
}

/// Whether a status sets a `podIP` that its non-empty `podIPs` does not start with: what Go
/// validates of it then depends on a conversion whose release-1.36 form is not known (the `podIP`
/// replacing the list, or kept beside it), so its pod IPs are not judged (`unmodelled.rs` names
/// them).
pub fn pod_ip_mismatch(status: &Value) -> bool {
    let pod_ip = s(status, "podIP");
    !pod_ip.is_empty() && ips(status, "podIPs").first().is_some_and(|first| first != pod_ip)
}

/// `validatePodIPs` of the converted statuses; nothing when either sets a `podIP` its `podIPs`
/// does not start with ([`pod_ip_mismatch`]).
fn pod_ips(new_status: &Value, old_status: &Value) -> Vec<FieldError> {
    if pod_ip_mismatch(new_status) || pod_ip_mismatch(old_status) {
        return Vec::new();
    }
    ip_list("status.podIPs", &internal_pod_ips(new_status), &internal_pod_ips(old_status))
}

/// `validateHostIPs`: nothing without `hostIPs`; else its first IP is `hostIP`, and the list is
/// checked as the pod IPs are.
fn host_ips(new_status: &Value, old_status: &Value) -> Vec<FieldError> {
    let host_ips = ips(new_status, "hostIPs");
    let Some(first) = host_ips.first() else { return Vec::new() };
    let mut errs = Vec::new();
    if s(new_status, "hostIP") != first {
        errs.push(FieldError::invalid("status.hostIPs[0].ip", str_value(first), NOT_HOST_IP));
    }
    errs.extend(ip_list("status.hostIPs", &host_ips, &ips(old_status, "hostIPs")));
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
    errs.extend(resource_claim_statuses(list(new_status, "resourceClaimStatuses"), new.get("spec").unwrap_or(&null)));
    errs.extend(pod_ips(new_status, old_status));
    errs.extend(host_ips(new_status, old_status));
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

    fn ips_pod(status: Value) -> Value {
        pod(
            json!({"restartPolicy": "Always", "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}]}),
            status,
        )
    }

    fn status_texts(new: Value, old: Value) -> Vec<String> {
        crate::field::texts(&validate_pod_status_update(&ips_pod(new), &ips_pod(old)))
    }

    #[test]
    fn pod_ips_are_legacy_ips_and_a_dual_stack_pair_at_most() {
        let ok = json!({"podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}, {"ip": "fd00::1"}]});
        assert!(status_texts(ok, json!({})).is_empty());
        // The sloppy parse takes leading zeros.
        assert!(status_texts(json!({"podIPs": [{"ip": "010.0.0.1"}]}), json!({})).is_empty());
        assert_eq!(
            status_texts(json!({"podIPs": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}]}), json!({})),
            ["status.podIPs: Invalid value: [{\"IP\":\"10.0.0.1\"},{\"IP\":\"10.0.0.2\"}]: may specify no more than one IP for each IP family"]
        );
        assert_eq!(
            status_texts(json!({"podIPs": [{"ip": "10.0.0.1"}, {"ip": "fd00::1"}, {"ip": "10.0.0.2"}]}), json!({})),
            ["status.podIPs: Invalid value: [{\"IP\":\"10.0.0.1\"},{\"IP\":\"fd00::1\"},{\"IP\":\"10.0.0.2\"}]: may specify no more than one IP for each IP family"]
        );
        assert_eq!(
            status_texts(json!({"podIPs": [{"ip": "fd00::1"}, {"ip": "bad"}]}), json!({})),
            [
                "status.podIPs[1]: Invalid value: \"bad\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                "status.podIPs: Internal error: failed to check for dual stack with error:invalid IP[1]: bad",
                "status.podIPs: Invalid value: [{\"IP\":\"fd00::1\"},{\"IP\":\"bad\"}]: may specify no more than one IP for each IP family"
            ]
        );
    }

    #[test]
    fn an_invalid_pod_ip_of_the_old_pod_may_stay() {
        let bad = json!({"podIPs": [{"ip": "bad"}]});
        assert!(status_texts(bad.clone(), bad.clone()).is_empty());
        assert_eq!(
            status_texts(json!({"podIPs": [{"ip": "worse"}]}), bad),
            ["status.podIPs[0]: Invalid value: \"worse\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]
        );
    }

    #[test]
    fn the_conversion_folds_pod_ip_into_the_list() {
        assert_eq!(internal_pod_ips(&json!({"podIP": "10.0.0.1"})), ["10.0.0.1"]);
        assert_eq!(internal_pod_ips(&json!({"podIPs": [{"ip": "a"}, {"ip": "b"}]})), ["a", "b"]);
        assert_eq!(internal_pod_ips(&json!({"podIP": "a", "podIPs": [{"ip": "a"}, {"ip": "b"}]})), ["a", "b"]);
        // A podIP other than podIPs[0]: not judged, even a list Go refuses in either reading.
        let mismatched = json!({"podIP": "10.0.0.3", "podIPs": [{"ip": "bad"}, {"ip": "10.0.0.2"}]});
        assert!(pod_ip_mismatch(&mismatched));
        assert!(!pod_ip_mismatch(&json!({"podIP": "a", "podIPs": [{"ip": "a"}, {"ip": "b"}]})));
        assert!(!pod_ip_mismatch(&json!({"podIP": "a"})));
        assert!(status_texts(mismatched.clone(), json!({})).is_empty());
        assert!(status_texts(json!({"podIPs": [{"ip": "bad"}]}), mismatched).is_empty());
        assert_eq!(
            status_texts(json!({"podIP": "bad"}), json!({})),
            ["status.podIPs[0]: Invalid value: \"bad\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]
        );
    }

    #[test]
    fn host_ips_start_with_the_host_ip() {
        assert!(status_texts(json!({"hostIP": "bad"}), json!({})).is_empty());
        let pair = json!({"hostIP": "10.0.0.1", "hostIPs": [{"ip": "10.0.0.1"}, {"ip": "fd00::1"}]});
        assert!(status_texts(pair, json!({})).is_empty());
        assert_eq!(
            status_texts(json!({"hostIPs": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}]}), json!({})),
            [
                "status.hostIPs[0].ip: Invalid value: \"10.0.0.1\": must be equal to `hostIP`",
                "status.hostIPs: Invalid value: [{\"IP\":\"10.0.0.1\"},{\"IP\":\"10.0.0.2\"}]: may specify no more than one IP for each IP family"
            ]
        );
    }

    #[test]
    fn resource_claim_statuses_name_a_pod_claim_once() {
        let ok = json!({"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "web-gpu-x1"}]});
        assert!(status_texts(ok, json!({})).is_empty());
        let bad = json!({"resourceClaimStatuses": [
            {"name": "gpu"}, {"name": "gpu", "resourceClaimName": "Web"}, {"name": "tpu"}
        ]});
        assert_eq!(
            status_texts(bad, json!({})),
            [
                "status.resourceClaimStatuses[1].name: Duplicate value: \"gpu\"",
                "status.resourceClaimStatuses[1].resourceClaimName: Invalid value: \"Web\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "status.resourceClaimStatuses[2].name: Invalid value: \"tpu\": must match the name of an entry in `spec.resourceClaims`"
            ]
        );
    }
}
