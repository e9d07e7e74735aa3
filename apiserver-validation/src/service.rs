//! A Service as kubernetes/kubernetes validates it after mutating admission (release-1.36):
//! `pkg/apis/core/validation/validation.go` `ValidateService` (`validateServicePort`,
//! `ValidatePortNumOrName`, `validateClientIPAffinityConfig`,
//! `ValidateServiceClusterIPsRelatedFields`, `validateLoadBalancerClassField`,
//! `validateServiceExternalTrafficPolicy`, `validateServiceInternalTrafficFieldsValue`),
//! `ValidateServiceCreate` and `ValidateServiceUpdate` (`validateUpgradeDowngradeClusterIPs`,
//! `validateUpgradeDowngradeIPFamilies`, `validateServiceExternalTrafficFieldsUpdate`).
//!
//! Before validation the registry fixes up the object (`pkg/registry/core/service/storage`):
//! [`prepare_create`] is `normalizeClusterIPs` on create (a `clusterIP` alone fills `clusterIPs`);
//! [`prepare_update`] is `patchAllocatedValues` (allocated values the new object omits are taken
//! from the old one), `normalizeClusterIPs` on update and the strategy's `dropTypeDependentFields`
//! (fields the new type no longer uses, left as they were, are cleared). What the allocator
//! assigns (cluster IPs, node ports, the health-check node port, IP families) is not invented:
//! the checks that need an allocated value are left out where the registry allocates it.
//!
//! The IP addresses of `clusterIPs` and `externalIPs` and the CIDRs of `loadBalancerSourceRanges`
//! (and of its annotation) are checked as 1.36 checks these legacy fields: by the sloppy parsers
//! alone (see [`crate::ip`]). The registry checks the cluster IPs before it allocates
//! ([`cluster_ips_before_allocation`]); a refusal there is the whole answer.
//!
//! The topology annotations are held to each other (`service.kubernetes.io/topology-mode` must match
//! the deprecated `service.kubernetes.io/topology-aware-hints` when both are set), the first check of
//! `ValidateService`.
//!
//! Not modelled: what the allocator itself refuses (families or dual-stack the cluster is not
//! configured for, a policy that does not fit the number of IPs or families, an address outside
//! the service CIDRs or already taken).

use serde_json::{json, Map, Value};

use crate::field::{BadValue, FieldError};
use crate::lookup::member_of;
use crate::lookup::Lookup;
use crate::objectmeta::{validate_labels, FIELD_IMMUTABLE};
use crate::{content, ip};

const SERVICE_TYPES: &[&str] = &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const SESSION_AFFINITIES: &[&str] = &["ClientIP", "None"];
const PROTOCOLS: &[&str] = &["SCTP", "TCP", "UDP"];
const TRAFFIC_POLICIES: &[&str] = &["Cluster", "Local"];
const IP_FAMILIES: &[&str] = &["IPv4", "IPv6"];
const IP_FAMILY_POLICIES: &[&str] = &["PreferDualStack", "RequireDualStack", "SingleStack"];
/// `core.MaxClientIPServiceAffinitySeconds`.
pub const MAX_CLIENT_IP_AFFINITY_SECONDS: i64 = 86400;
/// `v1.DefaultClientIPServiceAffinitySeconds`.
pub const DEFAULT_CLIENT_IP_AFFINITY_SECONDS: i64 = 10800;
const ONLY_LOAD_BALANCER: &str = "may only be used when `type` is 'LoadBalancer'";
const EXTERNAL_NAME_FORBIDDEN: &str = "may not be set for ExternalName services";
const MAY_NOT_CHANGE: &str = "may not change once set";

fn spec(svc: &Value) -> &Value {
    svc.member("spec").unwrap_or(&Value::Null)
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.member(key).and_then(Value::as_str).unwrap_or("")
}

fn int(v: &Value, key: &str) -> i64 {
    v.member(key).and_then(Value::as_i64).unwrap_or(0)
}

fn present(v: &Value, key: &str) -> bool {
    v.member(key).is_some_and(|x| !x.is_null())
}

fn items<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.member(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

fn strs(v: &Value, key: &str) -> Vec<String> {
    items(v, key).iter().map(|x| x.as_str().unwrap_or("").to_string()).collect()
}

fn json_of(v: &[String]) -> BadValue {
    BadValue::Json(Value::from(v.to_vec()).to_string())
}

/// A pointer-to-string field as `ErrorBody` prints it: `null` when unset.
fn optional_text(v: &Value, key: &str) -> BadValue {
    match v.member(key).and_then(Value::as_str) {
        Some(s) => BadValue::Str(s.into()),
        None => BadValue::Json("null".into()),
    }
}

/// `apiservice.ExternallyAccessible`: a LoadBalancer, a NodePort, or a ClusterIP with external IPs.
fn externally_accessible(spec: &Value) -> bool {
    match text(spec, "type") {
        "LoadBalancer" | "NodePort" => true,
        "ClusterIP" => !items(spec, "externalIPs").is_empty(),
        _ => false,
    }
}

/// `apiservice.NeedsHealthCheck`: a LoadBalancer whose external traffic policy is `Local`.
fn needs_health_check(spec: &Value) -> bool {
    text(spec, "type") == "LoadBalancer" && text(spec, "externalTrafficPolicy") == "Local"
}

/// `isHeadlessService`: `clusterIPs` is `["None"]`.
fn is_headless(spec: &Value) -> bool {
    strs(spec, "clusterIPs") == ["None"]
}

/// `SetDefaults_Service`: session affinity (and its config), type, each port's protocol and target
/// port, the traffic policies, `allocateLoadBalancerNodePorts`.
pub fn default_service(svc: &mut Value) {
    let Some(s) = svc.get_mut("spec").and_then(Value::as_object_mut) else { return };
    let empty = |s: &Map<String, Value>, k: &str| member_of(s, k).is_none_or(|v| v.is_null() || v.as_str() == Some(""));
    if empty(s, "sessionAffinity") {
        s.insert("sessionAffinity".into(), json!("None"));
    }
    match member_of(s, "sessionAffinity").and_then(Value::as_str) {
        Some("None") => {
            s.remove("sessionAffinityConfig");
        }
        Some("ClientIP") => {
            let has_timeout = s
                .get("sessionAffinityConfig")
                .and_then(|c| c.member("clientIP"))
                .is_some_and(|c| present(c, "timeoutSeconds"));
            if !has_timeout {
                s.insert(
                    "sessionAffinityConfig".into(),
                    json!({"clientIP": {"timeoutSeconds": DEFAULT_CLIENT_IP_AFFINITY_SECONDS}}),
                );
            }
        }
        _ => {}
    }
    if empty(s, "type") {
        s.insert("type".into(), json!("ClusterIP"));
    }
    if let Some(ports) = s.get_mut("ports").and_then(Value::as_array_mut) {
        for p in ports.iter_mut().filter_map(Value::as_object_mut) {
            if empty(p, "protocol") {
                p.insert("protocol".into(), json!("TCP"));
            }
            let unset = match member_of(p, "targetPort") {
                None | Some(Value::Null) => true,
                Some(Value::Number(n)) => n.as_i64() == Some(0),
                Some(Value::String(t)) => t.is_empty(),
                Some(_) => false,
            };
            if unset {
                let port = member_of(p, "port").cloned().unwrap_or(json!(0));
                p.insert("targetPort".into(), port);
            }
        }
    }
    let view = Value::Object(s.clone());
    if externally_accessible(&view) && empty(s, "externalTrafficPolicy") {
        s.insert("externalTrafficPolicy".into(), json!("Cluster"));
    }
    let kind = member_of(s, "type").and_then(Value::as_str).unwrap_or("").to_string();
    if member_of(s, "internalTrafficPolicy").is_none_or(Value::is_null)
        && matches!(kind.as_str(), "NodePort" | "LoadBalancer" | "ClusterIP")
    {
        s.insert("internalTrafficPolicy".into(), json!("Cluster"));
    }
    if kind == "LoadBalancer" && member_of(s, "allocateLoadBalancerNodePorts").is_none_or(Value::is_null) {
        s.insert("allocateLoadBalancerNodePorts".into(), json!(true));
    }
}

fn spec_mut(svc: &mut Value) -> Option<&mut Map<String, Value>> {
    svc.get_mut("spec").and_then(Value::as_object_mut)
}

/// `normalizeClusterIPs` on create: a `clusterIP` without `clusterIPs` fills them.
pub fn prepare_create(svc: &mut Value) {
    let Some(s) = spec_mut(svc) else { return };
    let view = Value::Object(s.clone());
    let ip = text(&view, "clusterIP");
    if !ip.is_empty() && items(&view, "clusterIPs").is_empty() {
        s.insert("clusterIPs".into(), json!([ip]));
    }
}

/// `needsClusterIP`: every type but ExternalName.
fn needs_cluster_ip(spec: &Value) -> bool {
    text(spec, "type") != "ExternalName"
}

/// `needsNodePort` (storage.go and strategy.go alike): NodePort and LoadBalancer, whatever
/// `allocateLoadBalancerNodePorts` says.
fn needs_node_port(spec: &Value) -> bool {
    matches!(text(spec, "type"), "NodePort" | "LoadBalancer")
}

/// `patchAllocatedValues`, `normalizeClusterIPs` (update) and `dropTypeDependentFields`, in the
/// registry's order, on the new object against the old one.
pub fn prepare_update(svc: &mut Value, old: &Value) {
    let old_spec = spec(old).clone();
    let Some(s) = spec_mut(svc) else { return };
    let view = Value::Object(s.clone());
    // patchAllocatedValues.
    if needs_cluster_ip(&old_spec) && needs_cluster_ip(&view) {
        if text(&view, "clusterIP").is_empty() && present(&old_spec, "clusterIP") {
            s.insert("clusterIP".into(), old_spec.field("clusterIP").clone());
        }
        if items(&view, "clusterIPs").is_empty() && !items(&old_spec, "clusterIPs").is_empty() {
            s.insert("clusterIPs".into(), old_spec.field("clusterIPs").clone());
        }
    }
    if needs_node_port(&old_spec) && needs_node_port(&view) {
        let used_new: Vec<i64> = items(&view, "ports").iter().map(|p| int(p, "nodePort")).collect();
        let used: Vec<i64> = items(&old_spec, "ports")
            .iter()
            .map(|p| int(p, "nodePort"))
            .filter(|n| *n != 0 && used_new.contains(n))
            .collect();
        if let Some(ports) = s.get_mut("ports").and_then(Value::as_array_mut) {
            for p in ports.iter_mut() {
                if int(p, "nodePort") != 0 {
                    continue;
                }
                let name = text(p, "name").to_string();
                let old_port = items(&old_spec, "ports")
                    .iter()
                    .rev()
                    .find(|o| text(o, "name") == name)
                    .map_or(0, |o| int(o, "nodePort"));
                if !used.contains(&old_port) {
                    if let Some(o) = p.as_object_mut() {
                        o.insert("nodePort".into(), json!(old_port));
                    }
                }
            }
        }
    }
    let view = Value::Object(s.clone());
    if needs_health_check(&old_spec) && needs_health_check(&view) && int(&view, "healthCheckNodePort") == 0 {
        s.insert("healthCheckNodePort".into(), json!(int(&old_spec, "healthCheckNodePort")));
    }
    // normalizeClusterIPs.
    let view = Value::Object(s.clone());
    let same_ips = |v: &Value| strs(v, "clusterIPs") == strs(&old_spec, "clusterIPs");
    if !items(&old_spec, "clusterIPs").is_empty()
        && items(&view, "clusterIPs").is_empty()
        && text(&old_spec, "clusterIP") == text(&view, "clusterIP")
    {
        s.insert("clusterIPs".into(), old_spec.field("clusterIPs").clone());
    }
    let view = Value::Object(s.clone());
    let (old_ip, new_ip) = (text(&old_spec, "clusterIP"), text(&view, "clusterIP"));
    if old_ip != new_ip && same_ips(&view) {
        if !old_ip.is_empty() && new_ip.is_empty() {
            s.remove("clusterIPs");
        } else {
            s.insert("clusterIPs".into(), json!([new_ip]));
        }
    }
    drop_type_dependent_fields(s, &old_spec);
}

/// `dropTypeDependentFields`: each field the old object needed and the new one no longer needs
/// (by its type, or its external IPs) is cleared if the update left it as it was (a changed one is
/// left for validation to refuse).
fn drop_type_dependent_fields(s: &mut Map<String, Value>, old: &Value) {
    let view = Value::Object(s.clone());
    let same = |key: &str| view.member(key).filter(|v| !v.is_null()) == old.member(key).filter(|v| !v.is_null());
    if needs_cluster_ip(old) && !needs_cluster_ip(&view) {
        if same("clusterIP") && same("clusterIPs") {
            s.remove("clusterIP");
            s.remove("clusterIPs");
        }
        if same("ipFamilies") {
            s.remove("ipFamilies");
        }
        if same("ipFamilyPolicy") {
            s.remove("ipFamilyPolicy");
        }
    }
    if needs_node_port(old) && !needs_node_port(&view) {
        // sameNodePorts: the new object adds no node port the old one did not have.
        let old_ports: Vec<i64> = items(old, "ports").iter().map(|p| int(p, "nodePort")).collect();
        let added = items(&view, "ports").iter().map(|p| int(p, "nodePort")).any(|n| n != 0 && !old_ports.contains(&n));
        if !added {
            if let Some(ports) = s.get_mut("ports").and_then(Value::as_array_mut) {
                for p in ports.iter_mut().filter_map(Value::as_object_mut) {
                    p.remove("nodePort");
                }
            }
        }
    }
    if needs_health_check(old) && !needs_health_check(&view) && same("healthCheckNodePort") {
        s.remove("healthCheckNodePort");
    }
    if text(old, "type") == "LoadBalancer" && text(&view, "type") != "LoadBalancer" {
        for key in ["allocateLoadBalancerNodePorts", "loadBalancerClass"] {
            if same(key) {
                s.remove(key);
            }
        }
    }
    if externally_accessible(old) && !externally_accessible(&view) && same("externalTrafficPolicy") {
        s.remove("externalTrafficPolicy");
    }
}

/// `IsValidPortNum`.
fn port_num(port: i64) -> Vec<String> {
    if (1..=65535).contains(&port) {
        Vec::new()
    } else {
        vec!["must be between 1 and 65535, inclusive".to_string()]
    }
}

/// `ValidatePortNumOrName` of an `IntOrString`.
fn port_num_or_name(value: Option<&Value>, path: &str) -> Vec<FieldError> {
    match value {
        Some(Value::String(name)) => crate::pod::port_name(name)
            .into_iter()
            .map(|m| FieldError::invalid(path, BadValue::Str(name.clone()), m))
            .collect(),
        other => {
            let n = other.and_then(Value::as_i64).unwrap_or(0);
            port_num(n).into_iter().map(|m| FieldError::invalid(path, BadValue::Int(n), m)).collect()
        }
    }
}

/// `validateServicePort`.
fn service_port(port: &Value, require_name: bool, names: &mut Vec<String>, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let name = text(port, "name");
    let name_path = format!("{path}.name");
    if require_name && name.is_empty() {
        errs.push(FieldError::required(&name_path, ""));
    } else if !name.is_empty() {
        for m in content::is_dns1123_label(name) {
            errs.push(FieldError::invalid(&name_path, BadValue::Str(name.into()), m));
        }
        if names.iter().any(|n| n == name) {
            errs.push(FieldError::duplicate(&name_path, BadValue::Str(name.into())));
        } else {
            names.push(name.into());
        }
    }
    let number = int(port, "port");
    for m in port_num(number) {
        errs.push(FieldError::invalid(&format!("{path}.port"), BadValue::Int(number), m));
    }
    let protocol = text(port, "protocol");
    let protocol_path = format!("{path}.protocol");
    if protocol.is_empty() {
        errs.push(FieldError::required(&protocol_path, ""));
    } else if !PROTOCOLS.contains(&protocol) {
        errs.push(FieldError::not_supported(&protocol_path, BadValue::Str(protocol.into()), PROTOCOLS));
    }
    errs.extend(port_num_or_name(port.member("targetPort"), &format!("{path}.targetPort")));
    if let Some(app) = port.member("appProtocol").and_then(Value::as_str) {
        for m in content::is_qualified_name(app) {
            errs.push(FieldError::invalid(&format!("{path}.appProtocol"), BadValue::Str(app.into()), m));
        }
    }
    errs
}

/// `ValidateServiceClusterIPsRelatedFields`: `clusterIP` and `clusterIPs` in step, the families
/// and the policy among the supported values, each cluster IP (but a lone leading `None`) an
/// address as `IsValidIPForLegacyField` takes it, at most two of them; then, when none was
/// refused, one address of each family and each address of the family `ipFamilies` names at its
/// index.
fn cluster_ips_related(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if text(spec, "type") == "ExternalName" {
        return errs;
    }
    let ips = strs(spec, "clusterIPs");
    let ip = text(spec, "clusterIP");
    if !ip.is_empty() {
        if ips.is_empty() {
            errs.push(FieldError::required("spec.clusterIPs", ""));
        } else if ips[0] != ip {
            errs.push(FieldError::invalid("spec.clusterIPs", json_of(&ips), "first value must match `clusterIP`"));
        }
    } else if !ips.is_empty() {
        errs.push(FieldError::invalid(
            "spec.clusterIPs",
            json_of(&ips),
            "must be empty when `clusterIP` is not specified",
        ));
    }
    let families = strs(spec, "ipFamilies");
    let mut seen: Vec<&String> = Vec::new();
    for (i, family) in families.iter().enumerate() {
        let p = format!("spec.ipFamilies[{i}]");
        if !IP_FAMILIES.contains(&family.as_str()) {
            errs.push(FieldError::not_supported(&p, BadValue::Str(family.clone()), IP_FAMILIES));
        }
        if seen.contains(&family) {
            errs.push(FieldError::duplicate(&p, BadValue::Str(family.clone())));
        }
        seen.push(family);
    }
    if let Some(policy) = spec.member("ipFamilyPolicy").and_then(Value::as_str) {
        if !IP_FAMILY_POLICIES.contains(&policy) {
            errs.push(FieldError::not_supported(
                "spec.ipFamilyPolicy",
                BadValue::Str(policy.into()),
                IP_FAMILY_POLICIES,
            ));
        }
    }
    let mut has_invalid_ips = false;
    for (i, value) in ips.iter().enumerate() {
        if i == 0 && value == "None" {
            if ips.len() > 1 {
                has_invalid_ips = true;
                errs.push(FieldError::invalid(
                    "spec.clusterIPs",
                    json_of(&ips),
                    "'None' must be the first and only value",
                ));
            }
            continue;
        }
        let bad = ip::is_valid_ip_for_legacy_field(&format!("spec.clusterIPs[{i}]"), value);
        has_invalid_ips |= !bad.is_empty();
        errs.extend(bad);
    }
    if ips.len() > 2 {
        errs.push(FieldError::invalid("spec.clusterIPs", json_of(&ips), "may only hold up to 2 values"));
    }
    if has_invalid_ips {
        return errs;
    }
    if ips.len() > 1 && !ip::is_dual_stack_ip_strings(&ips) {
        errs.push(FieldError::invalid(
            "spec.clusterIPs",
            json_of(&ips),
            "may specify no more than one IP for each IP family",
        ));
    }
    if !is_headless(spec) {
        for (i, (value, family)) in ips.iter().zip(&families).enumerate() {
            let expected = match (family.as_str(), ip::is_ipv6_string(value)) {
                ("IPv4", true) => "IPv4",
                ("IPv6", false) => "IPv6",
                _ => continue,
            };
            errs.push(FieldError::invalid(
                &format!("spec.clusterIPs[{i}]"),
                BadValue::Str(value.clone()),
                format!("expected an {expected} value as indicated by `ipFamilies[{i}]`"),
            ));
        }
    }
    errs
}

/// `isMatchingPreferDualStackClusterIPFields` (`pkg/registry/core/service/storage/alloc.go`): an
/// update of a PreferDualStack Service of the same IP-assigned type that keeps its cluster IPs and
/// families, for which `initIPFamilyFields` does nothing.
fn matching_prefer_dual_stack(spec: &Value, old: &Value) -> bool {
    let policy = |s: &Value| s.member("ipFamilyPolicy").and_then(Value::as_str).map(str::to_string);
    policy(spec).as_deref() == Some("PreferDualStack")
        && matches!(policy(old).as_deref(), None | Some("PreferDualStack"))
        && text(spec, "type") == text(old, "type")
        && matches!(text(spec, "type"), "ClusterIP" | "NodePort" | "LoadBalancer")
        && strs(spec, "clusterIPs") == strs(old, "clusterIPs")
        && strs(spec, "ipFamilies") == strs(old, "ipFamilies")
}

/// The registry's check of the cluster IPs before it allocates (`pkg/registry/core/service/storage`
/// `beginCreate` / `beginUpdate`, `alloc.go` `initIPFamilyFields`: "loose pre-validation"), run
/// before the strategy's validation: `ValidateServiceClusterIPsRelatedFields` of the prepared
/// object, whose errors alone are the refusal (`errors.NewInvalid`). Not run for an ExternalName
/// Service, nor for an update of a PreferDualStack Service that keeps its type, cluster IPs and
/// families (`isMatchingPreferDualStackClusterIPFields`; `old` on update). The policy `initIPFamilyFields`
/// infers first is always a supported one, so it changes nothing here.
pub fn cluster_ips_before_allocation(svc: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let spec = spec(svc);
    if old.is_some_and(|old| matching_prefer_dual_stack(spec, self::spec(old))) {
        return Vec::new();
    }
    cluster_ips_related(spec)
}

/// `validateLoadBalancerClassField` (`old` on update).
fn load_balancer_class(spec: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let is_lb = |s: &Value| text(s, "type") == "LoadBalancer";
    if let Some(old) = old {
        if is_lb(old) && is_lb(spec) && old.member("loadBalancerClass") != spec.member("loadBalancerClass") {
            errs.push(FieldError::invalid(
                "spec.loadBalancerClass",
                optional_text(spec, "loadBalancerClass"),
                MAY_NOT_CHANGE,
            ));
        }
    }
    let class = spec.member("loadBalancerClass").and_then(Value::as_str);
    if is_lb(spec) {
        if let Some(c) = class {
            for m in content::is_qualified_name(c) {
                errs.push(FieldError::invalid("spec.loadBalancerClass", BadValue::Str(c.into()), m));
            }
        }
    } else if class.is_some() {
        errs.push(FieldError::forbidden("spec.loadBalancerClass", ONLY_LOAD_BALANCER));
    }
    errs
}

/// `validateServiceExternalTrafficPolicy`; `allocated` when the registry assigns a missing
/// health-check node port.
fn external_traffic_policy(spec: &Value, allocated: bool) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let policy = text(spec, "externalTrafficPolicy");
    if !externally_accessible(spec) {
        if !policy.is_empty() {
            errs.push(FieldError::invalid(
                "spec.externalTrafficPolicy",
                BadValue::Str(policy.into()),
                "may only be set for externally-accessible services",
            ));
        }
    } else if policy.is_empty() {
        errs.push(FieldError::required("spec.externalTrafficPolicy", ""));
    } else if !TRAFFIC_POLICIES.contains(&policy) {
        errs.push(FieldError::not_supported(
            "spec.externalTrafficPolicy",
            BadValue::Str(policy.into()),
            TRAFFIC_POLICIES,
        ));
    }
    let hc = int(spec, "healthCheckNodePort");
    if !needs_health_check(spec) {
        if hc != 0 {
            errs.push(FieldError::invalid(
                "spec.healthCheckNodePort",
                BadValue::Int(hc),
                "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
            ));
        }
    } else if hc == 0 {
        if !allocated {
            errs.push(FieldError::required("spec.healthCheckNodePort", ""));
        }
    } else {
        for m in port_num(hc) {
            errs.push(FieldError::invalid("spec.healthCheckNodePort", BadValue::Int(hc), m));
        }
    }
    errs
}

/// The annotation `loadBalancerSourceRanges` replaced (`core.AnnotationLoadBalancerSourceRangesKey`).
const SOURCE_RANGES_ANNOTATION: &str = "service.beta.kubernetes.io/load-balancer-source-ranges";

/// `ValidateService`'s source ranges: `loadBalancerSourceRanges` when it has any (each value
/// space-trimmed, a CIDR as `IsValidCIDRForLegacyField` takes it), else the annotation (trimmed,
/// split on commas, each part trimmed and checked at the annotation's path); either only on a
/// LoadBalancer. The field's path is spelt `spec.LoadBalancerSourceRanges` in Go. On update the
/// annotation's CIDRs are checked only when its value differs from the old object's (`old`), so a
/// stored invalid value may stay.
fn source_ranges(svc: &Value, kind: &str, old: Option<&Value>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let ranges = strs(spec(svc), "loadBalancerSourceRanges");
    if !ranges.is_empty() {
        let path = "spec.LoadBalancerSourceRanges";
        if kind != "LoadBalancer" {
            errs.push(FieldError::forbidden(path, ONLY_LOAD_BALANCER));
        }
        for (i, value) in ranges.iter().enumerate() {
            errs.extend(ip::is_valid_cidr_for_legacy_field(&format!("{path}[{i}]"), value.trim()));
        }
        return errs;
    }
    let annotation = svc.at("/metadata/annotations").and_then(|a| a.member(SOURCE_RANGES_ANNOTATION));
    let Some(value) = annotation.and_then(Value::as_str) else { return errs };
    let path = format!("metadata.annotations[{SOURCE_RANGES_ANNOTATION}]");
    if kind != "LoadBalancer" {
        errs.push(FieldError::forbidden(&path, ONLY_LOAD_BALANCER));
    }
    let old_value = old.and_then(|o| o.at("/metadata/annotations")).and_then(|a| a.member(SOURCE_RANGES_ANNOTATION));
    if old.is_some() && old_value.and_then(Value::as_str).unwrap_or("") == value {
        return errs;
    }
    let value = value.trim();
    if !value.is_empty() {
        for part in value.split(',') {
            errs.extend(ip::is_valid_cidr_for_legacy_field(&path, part.trim()));
        }
    }
    errs
}

/// `core.DeprecatedAnnotationTopologyAwareHints`.
pub const TOPOLOGY_AWARE_HINTS_ANNOTATION: &str = "service.kubernetes.io/topology-aware-hints";
/// `core.AnnotationTopologyMode`.
pub const TOPOLOGY_MODE_ANNOTATION: &str = "service.kubernetes.io/topology-mode";

/// `ValidateService`'s first check: the topology mode annotation and the deprecated topology-aware
/// hints one, when both are set, hold the same value.
fn topology_annotations(svc: &Value) -> Option<FieldError> {
    let annotations = svc.at("/metadata/annotations")?;
    let mode = annotations.member(TOPOLOGY_MODE_ANNOTATION)?.as_str().unwrap_or("");
    let hints = annotations.member(TOPOLOGY_AWARE_HINTS_ANNOTATION)?.as_str().unwrap_or("");
    (mode != hints).then(|| {
        FieldError::invalid(
            &format!("metadata.annotations[{TOPOLOGY_MODE_ANNOTATION}]"),
            BadValue::Str(mode.into()),
            format!("must match annotations[{TOPOLOGY_AWARE_HINTS_ANNOTATION}] when both are specified"),
        )
    })
}

/// `ValidateService` without the metadata, on the defaulted and prepared object; `hc_allocated`
/// when the registry allocates a missing health-check node port (on create, and on an update
/// that newly needs one); `old` the old object on update.
fn validate_service(svc: &Value, hc_allocated: bool, old: Option<&Value>) -> Vec<FieldError> {
    let mut errs: Vec<FieldError> = topology_annotations(svc).into_iter().collect();
    let spec = spec(svc);
    let kind = text(spec, "type");
    let ports = items(spec, "ports");
    let headless = is_headless(spec);
    if ports.is_empty() && !headless && kind != "ExternalName" {
        errs.push(FieldError::required("spec.ports", ""));
    }
    match kind {
        "LoadBalancer" | "NodePort" if headless => errs.push(FieldError::invalid(
            "spec.clusterIPs[0]",
            BadValue::Str("None".into()),
            format!("may not be set to 'None' for {kind} services"),
        )),
        "ExternalName" => {
            if !items(spec, "clusterIPs").is_empty() {
                errs.push(FieldError::forbidden("spec.clusterIPs", EXTERNAL_NAME_FORBIDDEN));
            }
            if !items(spec, "ipFamilies").is_empty() {
                errs.push(FieldError::forbidden("spec.ipFamilies", EXTERNAL_NAME_FORBIDDEN));
            }
            if present(spec, "ipFamilyPolicy") {
                errs.push(FieldError::forbidden("spec.ipFamilyPolicy", EXTERNAL_NAME_FORBIDDEN));
            }
            let name = text(spec, "externalName");
            let cname = name.strip_suffix('.').unwrap_or(name);
            if cname.is_empty() {
                errs.push(FieldError::required("spec.externalName", ""));
            } else {
                for m in content::is_dns1123_subdomain(cname) {
                    errs.push(FieldError::invalid("spec.externalName", BadValue::Str(cname.into()), m));
                }
            }
        }
        _ => {}
    }
    let mut names = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        errs.extend(service_port(port, ports.len() > 1, &mut names, &format!("spec.ports[{i}]")));
    }
    if let Some(selector) = spec.member("selector").and_then(Value::as_object) {
        let pairs: Vec<(&str, &str)> = selector.iter().map(|(k, v)| (k.as_str(), v.as_str().unwrap_or(""))).collect();
        errs.extend(validate_labels(&pairs, "spec.selector"));
    }
    let affinity = text(spec, "sessionAffinity");
    if affinity.is_empty() {
        errs.push(FieldError::required("spec.sessionAffinity", ""));
    } else if !SESSION_AFFINITIES.contains(&affinity) {
        errs.push(FieldError::not_supported(
            "spec.sessionAffinity",
            BadValue::Str(affinity.into()),
            SESSION_AFFINITIES,
        ));
    }
    if affinity == "ClientIP" {
        if let Some(timeout) = spec.at("/sessionAffinityConfig/clientIP/timeoutSeconds").and_then(Value::as_i64) {
            if timeout <= 0 || timeout > MAX_CLIENT_IP_AFFINITY_SECONDS {
                errs.push(FieldError::invalid(
                    "spec.sessionAffinityConfig.clientIP.timeoutSeconds",
                    BadValue::Int(timeout),
                    format!("must be greater than 0 and less than {MAX_CLIENT_IP_AFFINITY_SECONDS}"),
                ));
            }
        }
    }
    errs.extend(cluster_ips_related(spec));
    for (i, value) in strs(spec, "externalIPs").iter().enumerate() {
        let path = format!("spec.externalIPs[{i}]");
        let bad = ip::is_valid_ip_for_legacy_field(&path, value);
        if bad.is_empty() {
            errs.extend(ip::validate_non_special_ip(&path, value));
        } else {
            errs.extend(bad);
        }
    }
    if kind.is_empty() {
        errs.push(FieldError::required("spec.type", ""));
    } else if !SERVICE_TYPES.contains(&kind) {
        errs.push(FieldError::not_supported("spec.type", BadValue::Str(kind.into()), SERVICE_TYPES));
    }
    if kind == "ClusterIP" {
        for (i, port) in ports.iter().enumerate() {
            if int(port, "nodePort") != 0 {
                errs.push(FieldError::forbidden(
                    &format!("spec.ports[{i}].nodePort"),
                    "may not be used when `type` is 'ClusterIP'",
                ));
            }
        }
    }
    let mut node_ports: Vec<(&str, i64)> = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        let key = (text(port, "protocol"), int(port, "nodePort"));
        if key.1 == 0 {
            continue;
        }
        if node_ports.contains(&key) {
            errs.push(FieldError::duplicate(&format!("spec.ports[{i}].nodePort"), BadValue::Int(key.1)));
        }
        node_ports.push(key);
    }
    let mut seen: Vec<(&str, i64)> = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        let key = (text(port, "protocol"), int(port, "port"));
        if seen.contains(&key) {
            // The value is the internal `core.ServicePort{Protocol, Port}` as json.Marshal writes it.
            let value = format!(
                "{{\"Name\":\"\",\"Protocol\":{},\"AppProtocol\":null,\"Port\":{},\"TargetPort\":0,\"NodePort\":0}}",
                Value::from(key.0),
                key.1
            );
            errs.push(FieldError::duplicate(&format!("spec.ports[{i}]"), BadValue::Json(value)));
        }
        seen.push(key);
    }
    errs.extend(source_ranges(svc, kind, old));
    if present(spec, "allocateLoadBalancerNodePorts") && kind != "LoadBalancer" {
        errs.push(FieldError::forbidden("spec.allocateLoadBalancerNodePorts", ONLY_LOAD_BALANCER));
    }
    if kind == "LoadBalancer" && !present(spec, "allocateLoadBalancerNodePorts") {
        errs.push(FieldError::required("allocateLoadBalancerNodePorts", ""));
    }
    errs.extend(load_balancer_class(spec, None));
    errs.extend(external_traffic_policy(spec, hc_allocated));
    let itp = spec.member("internalTrafficPolicy").and_then(Value::as_str);
    match itp {
        None if matches!(kind, "NodePort" | "LoadBalancer" | "ClusterIP") => {
            errs.push(FieldError::required("spec.internalTrafficPolicy", ""));
        }
        Some(p) if !TRAFFIC_POLICIES.contains(&p) => {
            errs.push(FieldError::not_supported(
                "spec.internalTrafficPolicy",
                BadValue::Str(p.into()),
                TRAFFIC_POLICIES,
            ));
        }
        _ => {}
    }
    errs.extend(traffic_distribution(spec));
    errs
}

/// The values of `spec.trafficDistribution`, in Go's order (`PreferSameTrafficDistribution` GA and
/// locked on since 1.35, so all three).
const TRAFFIC_DISTRIBUTIONS: &[&str] = &["PreferClose", "PreferSameZone", "PreferSameNode"];

/// `validateServiceTrafficDistribution`, the last check of `validateService`: a value that is set
/// (even empty) is one of [`TRAFFIC_DISTRIBUTIONS`]; an old value is not kept on UPDATE either.
fn traffic_distribution(spec: &Value) -> Option<FieldError> {
    let value = spec.member("trafficDistribution").and_then(Value::as_str)?;
    (!TRAFFIC_DISTRIBUTIONS.contains(&value)).then(|| {
        FieldError::not_supported("spec.trafficDistribution", BadValue::Str(value.into()), TRAFFIC_DISTRIBUTIONS)
    })
}

/// `ValidateServiceCreate` without the metadata.
pub fn validate_service_create(svc: &Value) -> Vec<FieldError> {
    validate_service(svc, true, None)
}

/// `validateUpgradeDowngradeClusterIPs`.
fn upgrade_downgrade_cluster_ips(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if text(new, "type") == "ExternalName" || text(old, "type") == "ExternalName" {
        return errs;
    }
    if is_headless(old) && is_headless(new) {
        return errs;
    }
    let (was, now) = (strs(old, "clusterIPs"), strs(new, "clusterIPs"));
    let at = |i: usize| format!("spec.clusterIPs[{i}]");
    if was.len() == now.len() {
        for (i, ip) in was.iter().enumerate() {
            if *ip != now[i] {
                errs.push(FieldError::invalid(&at(i), json_of(&now), MAY_NOT_CHANGE));
            }
        }
    } else if was.len() > now.len() {
        if now.is_empty() {
            errs.push(FieldError::invalid(&at(0), json_of(&now), "primary clusterIP can not be unset"));
        }
        if !was.is_empty() && !now.is_empty() && now[0] != was[0] {
            errs.push(FieldError::invalid(&at(0), json_of(&now), MAY_NOT_CHANGE));
        }
        if now.len() == 1 && text(new, "ipFamilyPolicy") != "SingleStack" {
            errs.push(FieldError::invalid(
                "spec.ipFamilyPolicy",
                optional_text(new, "ipFamilyPolicy"),
                "must be set to 'SingleStack' when releasing the secondary clusterIP",
            ));
        }
    } else if !was.is_empty() && now[0] != was[0] {
        errs.push(FieldError::invalid(&at(0), json_of(&now), MAY_NOT_CHANGE));
    }
    errs
}

/// `validateUpgradeDowngradeIPFamilies`: the primary family may not change.
fn upgrade_downgrade_ip_families(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if text(new, "type") == "ExternalName" || text(old, "type") == "ExternalName" {
        return errs;
    }
    if is_headless(new) || is_headless(old) {
        return errs;
    }
    let (was, now) = (strs(old, "ipFamilies"), strs(new, "ipFamilies"));
    if was.len() == now.len() {
        for (i, f) in was.iter().enumerate() {
            if *f != now[i] {
                errs.push(FieldError::invalid("spec.ipFamilies[0]", json_of(&now), MAY_NOT_CHANGE));
            }
        }
    } else if was.len() > now.len() {
        if strs(new, "clusterIPs").is_empty() {
            errs.push(FieldError::invalid("spec.ipFamilies[0]", json_of(&now), "primary ipFamily can not be unset"));
        }
        if !now.is_empty() && now[0] != was[0] {
            errs.push(FieldError::invalid("spec.ipFamilies[0]", json_of(&strs(new, "clusterIPs")), MAY_NOT_CHANGE));
        }
        if now.len() == 1 && text(new, "ipFamilyPolicy") != "SingleStack" {
            errs.push(FieldError::invalid(
                "spec.ipFamilyPolicy",
                optional_text(new, "ipFamilyPolicy"),
                "must be set to 'SingleStack' when releasing the secondary ipFamily",
            ));
        }
    } else if !was.is_empty() && !now.is_empty() && now[0] != was[0] {
        errs.push(FieldError::invalid("spec.ipFamilies[0]", json_of(&strs(new, "clusterIPs")), MAY_NOT_CHANGE));
    }
    errs
}

/// `ValidateServiceUpdate` without the metadata (the update rules, then `ValidateService`).
pub fn validate_service_update(svc: &Value, old: &Value) -> Vec<FieldError> {
    let (new_spec, old_spec) = (spec(svc), spec(old));
    let mut errs = upgrade_downgrade_cluster_ips(new_spec, old_spec);
    errs.extend(upgrade_downgrade_ip_families(new_spec, old_spec));
    // validateLoadBalancerClassField(old, new) runs here and again, without the old object,
    // inside ValidateService: its format and type errors appear twice and are dropped as repeats
    // by the aggregate.
    errs.extend(load_balancer_class(new_spec, Some(old_spec)));
    // validateServiceExternalTrafficFieldsUpdate.
    if needs_health_check(old_spec)
        && needs_health_check(new_spec)
        && int(new_spec, "healthCheckNodePort") != int(old_spec, "healthCheckNodePort")
    {
        errs.push(FieldError::forbidden("spec.healthCheckNodePort", FIELD_IMMUTABLE));
    }
    // The registry allocates a health-check node port the update newly needs; one it needed
    // before was put back by patchAllocatedValues.
    errs.extend(validate_service(svc, !needs_health_check(old_spec), Some(old)));
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn svc(spec: Value) -> Value {
        let mut s = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": spec});
        default_service(&mut s);
        s
    }

    use crate::field::texts;

    #[test]
    fn defaults_fill_type_protocol_target_port_and_policies() {
        let s = svc(json!({"ports": [{"port": 80}, {"port": 81, "targetPort": "http"}]}));
        assert_eq!(s["spec"]["type"], "ClusterIP");
        assert_eq!(s["spec"]["sessionAffinity"], "None");
        assert_eq!(s["spec"]["internalTrafficPolicy"], "Cluster");
        assert_eq!(s["spec"]["ports"][0]["protocol"], "TCP");
        assert_eq!(s["spec"]["ports"][0]["targetPort"], 80);
        assert_eq!(s["spec"]["ports"][1]["targetPort"], "http");
        assert!(s["spec"].get("externalTrafficPolicy").is_none());
        let lb = svc(json!({"type": "LoadBalancer", "ports": [{"port": 80}]}));
        assert_eq!(lb["spec"]["externalTrafficPolicy"], "Cluster");
        assert_eq!(lb["spec"]["allocateLoadBalancerNodePorts"], true);
        let sticky = svc(json!({"sessionAffinity": "ClientIP", "ports": [{"port": 80}]}));
        assert_eq!(sticky["spec"]["sessionAffinityConfig"]["clientIP"]["timeoutSeconds"], 10800);
    }

    #[test]
    fn a_plain_service_passes_and_a_port_out_of_range_fails() {
        let good =
            svc(json!({"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": 8080}]}));
        assert!(validate_service_create(&good).is_empty(), "{:?}", texts(&validate_service_create(&good)));
        let bad = svc(json!({"ports": [{"name": "http", "port": 70000, "targetPort": 8080}]}));
        assert_eq!(
            texts(&validate_service_create(&bad)),
            ["spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive"]
        );
    }

    #[test]
    fn several_ports_need_unique_names() {
        let bad = svc(json!({"ports": [{"name": "a", "port": 80}, {"port": 81}, {"name": "a", "port": 82}]}));
        assert_eq!(
            texts(&validate_service_create(&bad)),
            ["spec.ports[1].name: Required value", "spec.ports[2].name: Duplicate value: \"a\""]
        );
    }

    #[test]
    fn external_name_needs_a_name_and_no_cluster_ips() {
        let good = svc(json!({"type": "ExternalName", "externalName": "db.example.com."}));
        assert!(validate_service_create(&good).is_empty(), "{:?}", texts(&validate_service_create(&good)));
        let bad = svc(json!({"type": "ExternalName", "clusterIP": "10.0.0.1"}));
        let mut bad = bad;
        prepare_create(&mut bad);
        assert_eq!(
            texts(&validate_service_create(&bad)),
            [
                "spec.clusterIPs: Forbidden: may not be set for ExternalName services",
                "spec.externalName: Required value"
            ]
        );
    }

    #[test]
    fn a_changed_cluster_ip_is_refused_and_an_omitted_one_is_kept() {
        let old = svc(json!({"clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1"], "ports": [{"port": 80}]}));
        let mut changed = svc(json!({"clusterIP": "10.0.0.2", "ports": [{"port": 80}]}));
        prepare_update(&mut changed, &old);
        assert_eq!(
            texts(&validate_service_update(&changed, &old)),
            ["spec.clusterIPs[0]: Invalid value: [\"10.0.0.2\"]: may not change once set"]
        );
        let mut omitted = svc(json!({"ports": [{"port": 80}]}));
        prepare_update(&mut omitted, &old);
        assert_eq!(omitted["spec"]["clusterIPs"], json!(["10.0.0.1"]));
        assert!(validate_service_update(&omitted, &old).is_empty());
    }

    #[test]
    fn a_health_check_node_port_is_allocated_when_newly_needed_and_kept_otherwise() {
        let lb = |policy: &str, hc: i64| {
            let mut s = svc(json!({"type": "LoadBalancer", "externalTrafficPolicy": policy, "clusterIP": "10.0.0.1",
                                   "clusterIPs": ["10.0.0.1"], "ports": [{"port": 80, "nodePort": 30080}]}));
            if hc != 0 {
                s["spec"]["healthCheckNodePort"] = json!(hc);
            }
            s
        };
        // Cluster to Local: the registry allocates the port.
        let mut newly = lb("Local", 0);
        prepare_update(&mut newly, &lb("Cluster", 0));
        assert!(validate_service_update(&newly, &lb("Cluster", 0)).is_empty());
        // Local kept: the omitted port is the old one; a changed one is refused.
        let mut omitted = lb("Local", 0);
        prepare_update(&mut omitted, &lb("Local", 31000));
        assert_eq!(omitted["spec"]["healthCheckNodePort"], 31000);
        assert!(validate_service_update(&omitted, &lb("Local", 31000)).is_empty());
        let mut changed = lb("Local", 31001);
        prepare_update(&mut changed, &lb("Local", 31000));
        assert_eq!(
            texts(&validate_service_update(&changed, &lb("Local", 31000))),
            ["spec.healthCheckNodePort: Forbidden: field is immutable"]
        );
    }

    #[test]
    fn a_load_balancer_without_allocated_node_ports_still_needs_its_node_ports() {
        let lb = |allocate: bool, node_port: Option<i64>| {
            let mut port = json!({"name": "http", "port": 80});
            if let Some(n) = node_port {
                port["nodePort"] = json!(n);
            }
            svc(json!({"type": "LoadBalancer", "allocateLoadBalancerNodePorts": allocate, "clusterIP": "10.0.0.1",
                       "clusterIPs": ["10.0.0.1"], "ports": [port]}))
        };
        // patchAllocatedValues: an omitted node port is the old one.
        let mut omitted = lb(false, None);
        prepare_update(&mut omitted, &lb(false, Some(30080)));
        assert_eq!(omitted["spec"]["ports"][0]["nodePort"], 30080);
        // dropTypeDependentFields: turning allocation off is no change of type, the port stays.
        let mut off = lb(false, Some(30080));
        prepare_update(&mut off, &lb(true, Some(30080)));
        assert_eq!(off["spec"]["ports"][0]["nodePort"], 30080);
        // Such a load balancer turned ClusterIP has its unchanged node port cleared.
        let mut to_cluster_ip = lb(false, Some(30080));
        to_cluster_ip["spec"]["type"] = json!("ClusterIP");
        to_cluster_ip["spec"]["externalTrafficPolicy"] = json!("Cluster");
        let old = lb(false, Some(30080));
        prepare_update(&mut to_cluster_ip, &old);
        assert!(to_cluster_ip["spec"]["ports"][0].get("nodePort").is_none());
        assert!(validate_service_update(&to_cluster_ip, &old).is_empty());
    }

    #[test]
    fn node_ports_are_kept_on_update_and_refused_on_cluster_ip() {
        let old = svc(json!({"type": "NodePort", "clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1"],
                             "ports": [{"name": "http", "port": 80, "nodePort": 30080}]}));
        let mut omitted = svc(json!({"type": "NodePort", "ports": [{"name": "http", "port": 80}]}));
        prepare_update(&mut omitted, &old);
        assert_eq!(omitted["spec"]["ports"][0]["nodePort"], 30080);
        let bad = svc(json!({"ports": [{"port": 80, "nodePort": 30080}]}));
        assert_eq!(
            texts(&validate_service_create(&bad)),
            ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]
        );
    }

    #[test]
    fn cluster_ips_are_matched_to_their_families_once_all_parse() {
        let with = |ips: Value, families: Value| {
            svc(json!({"clusterIP": ips[0], "clusterIPs": ips, "ipFamilies": families, "ports": [{"port": 80}]}))
        };
        let good = with(json!(["10.0.0.1", "2001:db8::1"]), json!(["IPv4", "IPv6"]));
        assert!(cluster_ips_before_allocation(&good, None).is_empty());
        let swapped = with(json!(["10.0.0.1", "2001:db8::1"]), json!(["IPv6", "IPv4"]));
        assert_eq!(
            texts(&cluster_ips_before_allocation(&swapped, None)),
            [
                "spec.clusterIPs[0]: Invalid value: \"10.0.0.1\": expected an IPv6 value as indicated by `ipFamilies[0]`",
                "spec.clusterIPs[1]: Invalid value: \"2001:db8::1\": expected an IPv4 value as indicated by `ipFamilies[1]`"
            ]
        );
        // An address that does not parse stops the checks: no family or dual-stack error follows.
        let bad = with(json!(["10.0.0.1", "2001:db8::g"]), json!(["IPv6", "IPv4"]));
        assert_eq!(
            texts(&cluster_ips_before_allocation(&bad, None)),
            ["spec.clusterIPs[1]: Invalid value: \"2001:db8::g\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]
        );
        // ExternalName Services are not checked here.
        let external = svc(
            json!({"type": "ExternalName", "externalName": "a.example.com", "clusterIP": "x", "clusterIPs": ["x"]}),
        );
        assert!(cluster_ips_before_allocation(&external, None).is_empty());
    }

    #[test]
    fn an_unchanged_prefer_dual_stack_update_skips_the_check_before_allocation() {
        let with = |policy: &str| {
            svc(json!({"clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1", "10.0.0.2"], "ipFamilyPolicy": policy,
                       "ports": [{"port": 80}]}))
        };
        let old = with("PreferDualStack");
        assert!(cluster_ips_before_allocation(&with("PreferDualStack"), Some(&old)).is_empty());
        let refusal = ["spec.clusterIPs: Invalid value: [\"10.0.0.1\",\"10.0.0.2\"]: may specify no more than one IP for each IP family"];
        assert_eq!(texts(&cluster_ips_before_allocation(&with("RequireDualStack"), Some(&old))), refusal);
        assert_eq!(texts(&cluster_ips_before_allocation(&with("PreferDualStack"), None)), refusal);
        // ValidateService still runs the check on such an update.
        assert_eq!(texts(&validate_service_update(&with("PreferDualStack"), &old)), refusal);
    }

    #[test]
    fn the_topology_annotations_must_agree_when_both_are_set() {
        let with = |annotations: Value| {
            let mut s = svc(json!({"ports": [{"port": 80}]}));
            s["metadata"]["annotations"] = annotations;
            s
        };
        let mode = with(json!({TOPOLOGY_MODE_ANNOTATION: "Auto"}));
        assert!(validate_service_create(&mode).is_empty());
        let same = with(json!({TOPOLOGY_MODE_ANNOTATION: "Auto", TOPOLOGY_AWARE_HINTS_ANNOTATION: "Auto"}));
        assert!(validate_service_create(&same).is_empty());
        let differ = with(json!({TOPOLOGY_MODE_ANNOTATION: "Auto", TOPOLOGY_AWARE_HINTS_ANNOTATION: "auto"}));
        assert_eq!(
            texts(&validate_service_create(&differ)),
            ["metadata.annotations[service.kubernetes.io/topology-mode]: Invalid value: \"Auto\": must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified"]
        );
    }

    #[test]
    fn an_unchanged_source_ranges_annotation_is_not_checked_again_on_update() {
        let lb = |ranges: &str| {
            let mut s = svc(json!({"type": "LoadBalancer", "clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1"],
                                   "ports": [{"port": 80, "nodePort": 30080}]}));
            s["metadata"]["annotations"] = json!({SOURCE_RANGES_ANNOTATION: ranges});
            s
        };
        let old = lb("10.0.0.0/33");
        assert!(validate_service_update(&lb("10.0.0.0/33"), &old).is_empty());
        assert_eq!(
            texts(&validate_service_update(&lb("10.0.0.0/34"), &old)),
            ["metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: Invalid value: \"10.0.0.0/34\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"]
        );
        assert_eq!(validate_service_create(&old).len(), 1);
    }
}
