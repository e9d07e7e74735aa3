//! An UPDATE of `pods/status` as the registry handles it (release-1.36): kubernetes/kubernetes
//! `pkg/registry/core/pod/strategy.go` `podStatusStrategy.PrepareForUpdate` puts back what a
//! status request may not change ([`prepare_for_update`]), then `podStatusStrategy.ValidateUpdate`
//! runs `pkg/apis/core/validation/validation.go` `ValidatePodStatusUpdate`
//! ([`validate_pod_status_update`], after the metadata's own update rules).
//!
//! Modelled of `ValidatePodStatusUpdate`, in Go's order: `ValidatePodSpecificAnnotationUpdates`
//! (AppArmor and mirror pod annotations neither added, changed nor removed, then
//! `ValidatePodSpecificAnnotations` of the new annotations with the reset spec and the options
//! `GetValidationOptionsFromPodSpecAndMeta` gives: [`crate::pod_annotations`]; the status strategy
//! does not reset the annotations), `validatePodConditions`, the nominated node's name and, under
//! ClearingNominatedNodeNameAfterBinding (beta and on since 1.34), no nominated node set or
//! changed on a pod the old spec binds (`spec.nodeName`), the immutable QoS class,
//! `ValidateContainerStateTransition` / `ValidateInitContainerStateTransition` as
//! `AllowContainerRestartPolicyRules` (ContainerRestartRules, on) runs them ([`state_transitions`]:
//! `podutil.ContainerShouldRestart`), `ValidateEphemeralContainerStateTransition`,
//! `validatePodResourceClaimStatuses` (each status names an entry of `spec.resourceClaims`, once,
//! and its `resourceClaimName` is `ValidateResourceClaimName`, a DNS subdomain), `validatePodIPs`,
//! `validateHostIPs`, and `validateContainerStatusAllocatedResourcesStatus` /
//! `validateContainerStatusNoAllocatedResourcesStatus` ([`allocated_resources_status`]; the
//! ResourceHealthStatus and ResourceHealthStatusMessage gates are on, so the registry keeps the
//! field and its messages). Not modelled (`unmodelled.rs` names them): the container statuses'
//! users, and the state transitions of a pod whose old spec holds a `RestartAllContainers` restart
//! rule or a sidecar's restart rules (`restartAllContainersActionInUse` turns on
//! `AllowRestartAllContainers`, whose `podutil.AllContainersCouldRestart` was not read:
//! [`restart_all_containers_in_use`]). `status.nodeName`'s check compares the specs, which the
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
//! Read from a 1.37 development copy of `validation.go` (`ValidatePodStatusUpdate`, the state
//! transitions, `validatePodIPs`, `validateHostIPs`, `validatePodResourceClaimStatuses`,
//! `validateContainerStatusAllocatedResourcesStatus`, the wrapper `IsValidIPForLegacyField`), of
//! `pkg/api/pod/util.go` (`GetValidationOptionsFromPodSpecAndMeta`,
//! `restartAllContainersActionInUse`), of `pkg/api/v1/pod/util.go` (`ContainerShouldRestart`,
//! `findMatchingContainerRestartRule`), k8s.io/utils `net/ipfamily.go` and the `Test_v1_PodStatus_to_core_PodStatus` cases of
//! `pkg/apis/core/v1/conversion_test.go`; not verified against the release-1.36 branch itself.

use serde_json::{Map, Value};

use crate::content::{is_dns1123_subdomain, is_qualified_name};
use crate::field::{go_json_string, BadValue, FieldError};
use crate::field_formats::{dns_subdomain, str_value};
use crate::ip::{is_dual_stack_ip_strings, is_valid_ip_for_legacy_field, parse_sloppy};
use crate::lookup::member_of;
use crate::lookup::Lookup;
use crate::objectmeta::FIELD_IMMUTABLE;
use crate::pod_annotations::{pod_specific_annotation_updates, validate_pod_specific_annotations};
use crate::scheduling::PodOptions;
use crate::zero_values::{present, s};

/// `podStatusStrategy.GetResetFields`: what a status request cannot change, as JSON pointers.
pub const RESET_FIELDS: &[&str] = &["/spec", "/metadata/deletionTimestamp", "/metadata/ownerReferences"];

/// `ValidateContainerStateTransition`'s message.
pub const NOT_TO_NON_TERMINATED: &str = "may not be transitioned to non-terminated state";
/// The Forbidden detail of a nominated node set or changed on a bound pod
/// (ClearingNominatedNodeNameAfterBinding).
pub const ALREADY_BOUND: &str = "may not be set on pods that are already bound to a node";
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
    match old.member("spec") {
        Some(spec) => pod.insert("spec".into(), spec.clone()),
        None => pod.remove("spec"),
    };
    let meta = pod.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if let Some(meta) = meta.as_object_mut() {
        meta.remove("deletionTimestamp");
        match old.at("/metadata/ownerReferences") {
            Some(refs) => meta.insert("ownerReferences".into(), refs.clone()),
            None => meta.remove("ownerReferences"),
        };
    }
    let status = pod.entry("status").or_insert_with(|| Value::Object(Map::new()));
    let Some(status) = status.as_object_mut() else { return };
    let empty = |v: Option<&Value>| v.is_none_or(|v| v.is_null() || v.as_str() == Some(""));
    if empty(member_of(status, "qosClass")) {
        match old.at("/status/qosClass") {
            Some(q) => status.insert("qosClass".into(), q.clone()),
            None => status.remove("qosClass"),
        };
    }
    let zero = |v: Option<&Value>| v.is_none_or(|v| v.is_null() || v.as_i64() == Some(0));
    if zero(member_of(status, "observedGeneration")) {
        if let Some(g) = old.at("/status/observedGeneration") {
            status.insert("observedGeneration".into(), g.clone());
        }
    }
    let mut old_generations: Vec<(Value, Option<Value>)> =
        list(old.member("status").unwrap_or(&Value::Null), "conditions")
            .iter()
            .map(|c| (c.member("type").cloned().unwrap_or(Value::Null), c.member("observedGeneration").cloned()))
            .collect();
    if let Some(Value::Array(conditions)) = status.get_mut("conditions") {
        for condition in conditions.iter_mut().filter_map(Value::as_object_mut) {
            let kind = member_of(condition, "type").cloned().unwrap_or(Value::Null);
            let previous = old_generations.iter().position(|(t, _)| *t == kind).map(|i| old_generations.remove(i).1);
            if zero(member_of(condition, "observedGeneration")) {
                if let Some(Some(g)) = previous {
                    condition.insert("observedGeneration".into(), g);
                }
            }
        }
    }
    crate::gated::drop_disabled_status(status, old.member("status"));
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.member(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

fn text<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.at(pointer).and_then(Value::as_str).unwrap_or("")
}

/// `validatePodConditions`: a condition type other than the system ones is a qualified name. Go
/// builds the path from `metadata`, hence `metadata.conditions[i].Type`.
fn pod_conditions(conditions: &[Value]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, c) in conditions.iter().enumerate() {
        let kind = c.member("type").and_then(Value::as_str).unwrap_or("");
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
    status.at("/state/terminated").filter(|t| !t.is_null())
}

/// `findMatchingContainerRestartRule`: the first of a container's restart rules whose exit codes
/// match `exit_code` (`In`: one of the values; `NotIn`: none of them; a rule without exit codes or
/// of another operator matches nothing).
fn matching_restart_rule(container: &Value, exit_code: i64) -> Option<&Value> {
    list(container, "restartPolicyRules").iter().find(|rule| {
        let Some(codes) = rule.member("exitCodes").filter(|c| !c.is_null()) else { return false };
        let matched = list(codes, "values").iter().any(|v| v.as_i64() == Some(exit_code));
        match s(codes, "operator") {
            "In" => matched,
            "NotIn" => !matched,
            _ => false,
        }
    })
}

/// `podutil.ContainerShouldRestart` (`pkg/api/v1/pod/util.go`): with a restart policy of its own, a
/// container's first matching restart rule of action `Restart` restarts it, else its own policy
/// decides (`Always`; `OnFailure` for a non-zero exit code; `Never`; another value falls through);
/// then the pod's policy (`Always` or empty: restart; `OnFailure`: a non-zero exit code; `Never`).
fn container_should_restart(container: &Value, spec: &Value, exit_code: i64) -> bool {
    if let Some(policy) = container.member("restartPolicy").filter(|p| !p.is_null()) {
        if matching_restart_rule(container, exit_code).is_some_and(|r| s(r, "action") == "Restart") {
            return true;
        }
        match policy.as_str().unwrap_or("") {
            "Always" => return true,
            "OnFailure" => return exit_code != 0,
            "Never" => return false,
            _ => {}
        }
    }
    match s(spec, "restartPolicy") {
        "OnFailure" => exit_code != 0,
        "Never" => false,
        _ => true,
    }
}

/// `restartAllContainersActionInUse` (`pkg/api/pod/util.go`) of the old spec: a container's or init
/// container's restart rule of action `RestartAllContainers`, or a sidecar (an init container of
/// restart policy `Always`) with restart rules. It turns on `AllowRestartAllContainers`, under
/// which the state transitions first ask `podutil.AllContainersCouldRestart`, not read: such a
/// pod's container and init container state transitions are not judged (`unmodelled.rs` names them).
pub fn restart_all_containers_in_use(spec: &Value) -> bool {
    let restart_all =
        |c: &Value| list(c, "restartPolicyRules").iter().any(|r| s(r, "action") == "RestartAllContainers");
    list(spec, "containers").iter().any(restart_all)
        || list(spec, "initContainers")
            .iter()
            .any(|c| restart_all(c) || (s(c, "restartPolicy") == "Always" && !list(c, "restartPolicyRules").is_empty()))
}

/// `ValidateContainerStateTransition` (`containers` the spec's `containers`) and
/// `ValidateInitContainerStateTransition` (its `initContainers`) with
/// `AllowContainerRestartPolicyRules` (ContainerRestartRules, beta and on): a terminated old status
/// whose first same-named new status is not terminated must be of a container of `containers` that
/// [`container_should_restart`] restarts at the old exit code; a status of no container of the
/// spec may not leave the terminated state, whatever the pod's restart policy.
fn state_transitions(new: &[Value], old: &[Value], path: &str, containers: &[Value], spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, before) in old.iter().enumerate() {
        let Some(t) = terminated(before) else { continue };
        let name = s(before, "name");
        let Some(_) = new.iter().find(|after| s(after, "name") == name && terminated(after).is_none()) else {
            continue;
        };
        let exit_code = t.member("exitCode").and_then(Value::as_i64).unwrap_or(0);
        let allowed = containers
            .iter()
            .find(|c| s(c, "name") == name)
            .is_some_and(|c| container_should_restart(c, spec, exit_code));
        if !allowed {
            errs.push(FieldError::forbidden(&format!("{path}[{i}].state"), NOT_TO_NON_TERMINATED));
        }
    }
    errs
}

/// `ValidateEphemeralContainerStateTransition`: a terminated ephemeral container stays terminated
/// (an error for each same-named new status that is not).
fn ephemeral_state_transitions(new: &[Value], old: &[Value]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, before) in old.iter().enumerate() {
        if terminated(before).is_none() {
            continue;
        }
        let name = s(before, "name");
        for _ in new.iter().filter(|after| s(after, "name") == name && terminated(after).is_none()) {
            errs.push(FieldError::forbidden(
                &format!("status.ephemeralContainerStatuses[{i}].state"),
                NOT_TO_NON_TERMINATED,
            ));
        }
    }
    errs
}

/// `ResourceHealthStatusHealthy`, `…Unhealthy`, `…Unknown`, as `sets.List` sorts them.
const RESOURCE_HEALTH: &[&str] = &["Healthy", "Unhealthy", "Unknown"];
/// `v1.ResourceHealthMessageMaxLength`.
const RESOURCE_HEALTH_MESSAGE_MAX: usize = 1024;
/// `validateContainerStatusAllocatedResourcesStatus`' detail of a `claim:` name no claim of the
/// container's has.
pub const NOT_A_CONTAINER_CLAIM: &str = "must match one of the container's resource claims in a format 'claim:<claimName>/<request>' or 'claim:<claimName>' if request is empty";
/// Its detail of another name no request of the container's has.
pub const NOT_A_CONTAINER_REQUEST: &str = "must match one of the container's resource requests";

/// `validateContainerStatusAllocatedResourcesStatus` of the statuses at `path` against the spec's
/// `containers`: for a status of a container of the spec (others are ignored), each entry's name
/// is `claim:<name>[/<request>]` of one of its `resources.claims`, or else a key of its
/// `resources.requests`; for every status, each resource's `health` is Healthy, Unhealthy or
/// Unknown, a `message` set is non-empty and at most 1024 bytes, and the `resourceID`s of an
/// entry are unique.
fn allocated_resources_status(statuses: &[Value], path: &str, containers: &[Value]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, status) in statuses.iter().enumerate() {
        let container = containers.iter().find(|c| s(c, "name") == s(status, "name"));
        for (j, entry) in list(status, "allocatedResourcesStatus").iter().enumerate() {
            let entry_path = format!("{path}[{i}].allocatedResourcesStatus[{j}]");
            let name = s(entry, "name");
            if let Some(c) = container {
                let resources = c.member("resources").unwrap_or(&Value::Null);
                let (found, detail) = if name.starts_with("claim:") {
                    let found = list(resources, "claims").iter().any(|claim| {
                        let request = s(claim, "request");
                        let mut full = format!("claim:{}", s(claim, "name"));
                        if !request.is_empty() {
                            full = format!("{full}/{request}");
                        }
                        full == name
                    });
                    (found, NOT_A_CONTAINER_CLAIM)
                } else {
                    let found =
                        resources.member("requests").and_then(Value::as_object).is_some_and(|r| r.contains_key(name));
                    (found, NOT_A_CONTAINER_REQUEST)
                };
                if !found {
                    errs.push(FieldError::invalid(&format!("{entry_path}.name"), str_value(name), detail));
                }
            }
            let mut ids: Vec<&str> = Vec::new();
            for (k, resource) in list(entry, "resources").iter().enumerate() {
                let resource_path = format!("{entry_path}.resources[{k}]");
                let health = s(resource, "health");
                if !RESOURCE_HEALTH.contains(&health) {
                    errs.push(FieldError::not_supported(
                        &format!("{resource_path}.health"),
                        str_value(health),
                        RESOURCE_HEALTH,
                    ));
                }
                if let Some(message) = resource.member("message").filter(|m| !m.is_null()) {
                    let message = message.as_str().unwrap_or("");
                    if message.is_empty() {
                        errs.push(FieldError::required(
                            &format!("{resource_path}.message"),
                            "must be non-empty if specified",
                        ));
                    } else if message.len() > RESOURCE_HEALTH_MESSAGE_MAX {
                        errs.push(FieldError::too_long(
                            &format!("{resource_path}.message"),
                            RESOURCE_HEALTH_MESSAGE_MAX,
                        ));
                    }
                }
                let id = s(resource, "resourceID");
                if ids.contains(&id) {
                    errs.push(FieldError::duplicate(&format!("{resource_path}.resourceID"), str_value(id)));
                } else {
                    ids.push(id);
                }
            }
        }
    }
    errs
}

/// `validateContainerStatusNoAllocatedResourcesStatus` of the ephemeral container statuses.
fn no_allocated_resources_status(statuses: &[Value]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, status) in statuses.iter().enumerate() {
        if !list(status, "allocatedResourcesStatus").is_empty() {
            errs.push(FieldError::forbidden(
                &format!("status.ephemeralContainerStatuses[{i}].allocatedResourcesStatus"),
                "must not be specified in container status",
            ));
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
    let new_status = new.member("status").unwrap_or(&null);
    let old_status = old.member("status").unwrap_or(&null);
    let new_spec = new.member("spec").unwrap_or(&null);
    let old_spec = old.member("spec").unwrap_or(&null);
    // ValidatePodSpecificAnnotationUpdates, ending with ValidatePodSpecificAnnotations of the new
    // annotations (with the options podStatusStrategy.ValidateUpdate takes of the two pods).
    let opts = PodOptions::from_old_spec(old_spec).with_old_meta(old.member("metadata"));
    let mut errs = pod_specific_annotation_updates(new.member("metadata"), old.member("metadata"));
    errs.extend(validate_pod_specific_annotations(new.member("metadata"), new_spec, "metadata.annotations", opts));
    errs.extend(pod_conditions(list(new_status, "conditions")));
    let nominated = text(new, "/status/nominatedNodeName");
    let nominated_changed = nominated != text(old, "/status/nominatedNodeName") && !nominated.is_empty();
    if nominated_changed {
        for msg in is_dns1123_subdomain(nominated) {
            errs.push(FieldError::invalid("status.nominatedNodeName", BadValue::Str(nominated.into()), msg));
        }
    }
    // ClearingNominatedNodeNameAfterBinding (beta and on since 1.34).
    if nominated_changed && !s(old_spec, "nodeName").is_empty() {
        errs.push(FieldError::forbidden("status.nominatedNodeName", ALREADY_BOUND));
    }
    let qos = text(new, "/status/qosClass");
    if qos != text(old, "/status/qosClass") {
        errs.push(FieldError::invalid("status.qosClass", BadValue::Str(qos.into()), FIELD_IMMUTABLE));
    }
    if !restart_all_containers_in_use(old_spec) {
        for (key, containers) in [("containerStatuses", "containers"), ("initContainerStatuses", "initContainers")] {
            errs.extend(state_transitions(
                list(new_status, key),
                list(old_status, key),
                &format!("status.{key}"),
                list(old_spec, containers),
                old_spec,
            ));
        }
    }
    errs.extend(ephemeral_state_transitions(
        list(new_status, "ephemeralContainerStatuses"),
        list(old_status, "ephemeralContainerStatuses"),
    ));
    errs.extend(resource_claim_statuses(list(new_status, "resourceClaimStatuses"), new_spec));
    errs.extend(pod_ips(new_status, old_status));
    errs.extend(host_ips(new_status, old_status));
    for (key, containers) in [("containerStatuses", "containers"), ("initContainerStatuses", "initContainers")] {
        errs.extend(allocated_resources_status(
            list(new_status, key),
            &format!("status.{key}"),
            list(new_spec, containers),
        ));
    }
    errs.extend(no_allocated_resources_status(list(new_status, "ephemeralContainerStatuses")));
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
        let spec = |policy: &str| json!({"restartPolicy": policy, "containers": [{"name": "c"}]});
        let done = json!({"terminated": {"exitCode": 0}});
        let never = pod(spec("Never"), statuses(done.clone()));
        let running = pod(spec("Never"), statuses(json!({"running": {}})));
        let errs = validate_pod_status_update(&running, &never);
        assert_eq!(errs.len(), 1);
        assert_eq!(
            errs[0].to_string(),
            "status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state"
        );
        assert!(validate_pod_status_update(&never, &never).is_empty());
        let always = pod(spec("Always"), statuses(done));
        assert!(validate_pod_status_update(&running, &always).is_empty());
    }

    fn transition_texts(spec: Value, key: &str, exit_code: i64) -> Vec<String> {
        let old = pod(spec.clone(), json!({key: [{"name": "c", "state": {"terminated": {"exitCode": exit_code}}}]}));
        let new = pod(spec, json!({key: [{"name": "c", "state": {"running": {}}}]}));
        crate::field::texts(&validate_pod_status_update(&new, &old))
    }

    const NOT_TO_RUNNING: &str = "state: Forbidden: may not be transitioned to non-terminated state";

    #[test]
    fn a_container_restarts_by_its_own_policy_and_rules_first() {
        // The container's own policy overrides the pod's, both ways.
        let own = |pod_policy: &str, policy: &str| json!({"restartPolicy": pod_policy, "containers": [{"name": "c", "restartPolicy": policy}]});
        assert_eq!(
            transition_texts(own("Always", "Never"), "containerStatuses", 0),
            [format!("status.containerStatuses[0].{NOT_TO_RUNNING}")]
        );
        assert!(transition_texts(own("Never", "Always"), "containerStatuses", 0).is_empty());
        assert!(transition_texts(own("Never", "OnFailure"), "containerStatuses", 3).is_empty());
        assert_eq!(transition_texts(own("Always", "OnFailure"), "containerStatuses", 0).len(), 1);
        // A matching rule of action Restart restarts it; another exit code falls to its policy.
        let rules = |operator: &str| {
            json!({"restartPolicy": "Never", "containers": [{"name": "c", "restartPolicy": "Never",
                "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": operator, "values": [42]}}]}]})
        };
        assert!(transition_texts(rules("In"), "containerStatuses", 42).is_empty());
        assert_eq!(transition_texts(rules("In"), "containerStatuses", 1).len(), 1);
        assert!(transition_texts(rules("NotIn"), "containerStatuses", 1).is_empty());
        assert_eq!(transition_texts(rules("NotIn"), "containerStatuses", 42).len(), 1);
        // Without a policy of its own, the rules are not read; an unknown policy falls to the pod's.
        let unset = json!({"restartPolicy": "OnFailure", "containers": [{"name": "c"}]});
        assert!(transition_texts(unset.clone(), "containerStatuses", 1).is_empty());
        assert_eq!(transition_texts(unset, "containerStatuses", 0).len(), 1);
        assert!(transition_texts(own("Always", "Sometimes"), "containerStatuses", 0).is_empty());
        // An init container is looked up among the init containers: a sidecar restarts.
        let sidecar = json!({"restartPolicy": "Never", "initContainers": [{"name": "c", "restartPolicy": "Always"}], "containers": [{"name": "m"}]});
        assert!(transition_texts(sidecar.clone(), "initContainerStatuses", 0).is_empty());
        assert_eq!(
            transition_texts(sidecar, "containerStatuses", 0),
            [format!("status.containerStatuses[0].{NOT_TO_RUNNING}")]
        );
    }

    #[test]
    fn a_status_of_no_container_of_the_spec_may_not_run_again_even_under_always() {
        let spec = json!({"restartPolicy": "Always", "containers": [{"name": "other"}]});
        assert_eq!(
            transition_texts(spec.clone(), "containerStatuses", 0),
            [format!("status.containerStatuses[0].{NOT_TO_RUNNING}")]
        );
        assert_eq!(
            transition_texts(spec, "initContainerStatuses", 1),
            [format!("status.initContainerStatuses[0].{NOT_TO_RUNNING}")]
        );
        // Ephemeral containers never leave the terminated state.
        let spec = json!({"restartPolicy": "Always", "containers": [{"name": "c"}]});
        assert_eq!(
            transition_texts(spec, "ephemeralContainerStatuses", 1),
            [format!("status.ephemeralContainerStatuses[0].{NOT_TO_RUNNING}")]
        );
    }

    #[test]
    fn a_pod_with_a_restart_all_containers_rule_is_not_judged() {
        let rule = json!([{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [1]}}]);
        let spec = json!({"restartPolicy": "Never", "containers": [{"name": "c", "restartPolicy": "Never", "restartPolicyRules": rule}]});
        assert!(restart_all_containers_in_use(&spec));
        assert!(transition_texts(spec, "containerStatuses", 0).is_empty());
        let sidecar_rules = json!({"initContainers": [{"name": "s", "restartPolicy": "Always",
            "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [1]}}]}]});
        assert!(restart_all_containers_in_use(&sidecar_rules));
        assert!(!restart_all_containers_in_use(&json!({"containers": [{"name": "c", "restartPolicy": "Never"}]})));
    }

    fn bound(node: &str, nominated: Option<&str>) -> Value {
        let mut status = json!({});
        if let Some(n) = nominated {
            status["nominatedNodeName"] = json!(n);
        }
        pod(json!({"nodeName": node, "containers": [{"name": "c"}]}), status)
    }

    #[test]
    fn a_bound_pod_takes_no_new_nominated_node() {
        let texts = |new: Value, old: Value| crate::field::texts(&validate_pod_status_update(&new, &old));
        let forbidden = "status.nominatedNodeName: Forbidden: may not be set on pods that are already bound to a node";
        assert_eq!(texts(bound("n1", Some("n2")), bound("n1", None)), [forbidden]);
        assert_eq!(texts(bound("n1", Some("n3")), bound("n1", Some("n2"))), [forbidden]);
        // Kept, cleared, or set on a pod not yet bound: accepted.
        assert!(texts(bound("n1", Some("n2")), bound("n1", Some("n2"))).is_empty());
        assert!(texts(bound("n1", None), bound("n1", Some("n2"))).is_empty());
        assert!(texts(bound("", Some("n2")), bound("", None)).is_empty());
        // After the name's own check.
        let errs = texts(bound("n1", Some("N2")), bound("n1", None));
        assert_eq!(errs.len(), 2);
        assert!(errs[0].starts_with("status.nominatedNodeName: Invalid value: \"N2\": a lowercase RFC 1123 subdomain"));
        assert_eq!(errs[1], forbidden);
    }

    fn annotated(annotations: Value, node: &str) -> Value {
        let mut p = pod(json!({"nodeName": node, "containers": [{"name": "c"}]}), json!({}));
        p["metadata"]["annotations"] = annotations;
        p
    }

    #[test]
    fn the_pod_annotations_are_judged_on_a_status_update() {
        let texts = |new: Value, old: Value| crate::field::texts(&validate_pod_status_update(&new, &old));
        assert_eq!(
            texts(annotated(json!({"kubernetes.io/config.mirror": "x"}), ""), annotated(json!({}), "")),
            [
                "metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod annotation",
                "metadata.annotations[kubernetes.io/config.mirror]: Invalid value: \"x\": must set spec.nodeName if mirror pod annotation is set"
            ]
        );
        let apparmor = "container.apparmor.security.beta.kubernetes.io/c";
        assert_eq!(
            texts(annotated(json!({}), "n1"), annotated(json!({apparmor: "runtime/default"}), "n1")),
            [format!("metadata.annotations[{apparmor}]: Forbidden: may not remove or update AppArmor annotations")]
        );
        // The deletion cost is checked unless the old one did not parse either.
        let cost = |v: &str| annotated(json!({"controller.kubernetes.io/pod-deletion-cost": v}), "n1");
        assert_eq!(
            texts(cost("x"), annotated(json!({}), "n1")),
            ["metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: \"x\": must be a 32bit integer"]
        );
        assert!(texts(cost("y"), cost("x")).is_empty());
        // Before the status's own errors.
        let mut both = annotated(json!({"kubernetes.io/config.mirror": "x"}), "n1");
        both["status"]["qosClass"] = json!("Burstable");
        let errs = texts(both, annotated(json!({}), "n1"));
        assert_eq!(errs.len(), 2);
        assert!(errs[0].starts_with("metadata.annotations[kubernetes.io/config.mirror]: Forbidden"));
        assert!(errs[1].starts_with("status.qosClass: Invalid value"));
    }

    fn health_texts(status: Value) -> Vec<String> {
        let spec = json!({"containers": [{"name": "c", "resources": {
            "requests": {"example.com/gpu": "1"}, "claims": [{"name": "dra", "request": "r"}, {"name": "whole"}]}}],
            "initContainers": [{"name": "i"}]});
        crate::field::texts(&validate_pod_status_update(&pod(spec.clone(), status), &pod(spec, json!({}))))
    }

    #[test]
    fn allocated_resources_status_names_a_request_or_claim_of_the_container() {
        let entry = |name: &str| {
            json!({"containerStatuses": [{"name": "c", "allocatedResourcesStatus": [
            {"name": name, "resources": [{"resourceID": "d0", "health": "Healthy"}]}]}]})
        };
        for ok in ["example.com/gpu", "claim:dra/r", "claim:whole"] {
            assert!(health_texts(entry(ok)).is_empty(), "{ok}");
        }
        assert_eq!(
            health_texts(entry("claim:dra")),
            [format!("status.containerStatuses[0].allocatedResourcesStatus[0].name: Invalid value: \"claim:dra\": {NOT_A_CONTAINER_CLAIM}")]
        );
        assert_eq!(
            health_texts(entry("cpu")),
            [format!("status.containerStatuses[0].allocatedResourcesStatus[0].name: Invalid value: \"cpu\": {NOT_A_CONTAINER_REQUEST}")]
        );
        // A status of no container of the spec: its names are not checked, its resources are.
        let stray = json!({"initContainerStatuses": [{"name": "gone", "allocatedResourcesStatus": [
            {"name": "x", "resources": [{"resourceID": "d0", "health": "Sick"}]}]}]});
        assert_eq!(
            health_texts(stray),
            ["status.initContainerStatuses[0].allocatedResourcesStatus[0].resources[0].health: Unsupported value: \"Sick\": supported values: \"Healthy\", \"Unhealthy\", \"Unknown\""]
        );
    }

    #[test]
    fn allocated_resources_health_messages_and_ids() {
        let long = "m".repeat(1025);
        let status = json!({"containerStatuses": [{"name": "c", "allocatedResourcesStatus": [
            {"name": "example.com/gpu", "resources": [
                {"resourceID": "d0", "health": "Unknown", "message": ""},
                {"resourceID": "d0", "health": "Unhealthy", "message": long},
                {"resourceID": "d1", "message": "m".repeat(1024)}]}]}],
            "ephemeralContainerStatuses": [{"name": "e", "allocatedResourcesStatus": []},
                {"name": "f", "allocatedResourcesStatus": [{"name": "x"}]}]});
        let p = "status.containerStatuses[0].allocatedResourcesStatus[0].resources";
        assert_eq!(
            health_texts(status),
            [
                format!("{p}[0].message: Required value: must be non-empty if specified"),
                format!("{p}[1].message: Too long: may not be more than 1024 bytes"),
                format!("{p}[1].resourceID: Duplicate value: \"d0\""),
                format!("{p}[2].health: Unsupported value: \"\": supported values: \"Healthy\", \"Unhealthy\", \"Unknown\""),
                "status.ephemeralContainerStatuses[1].allocatedResourcesStatus: Forbidden: must not be specified in container status".to_string()
            ]
        );
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
