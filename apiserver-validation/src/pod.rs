//! A pod's spec as kubernetes/kubernetes `pkg/apis/core/validation/validation.go` validates it
//! (release-1.36): `ValidatePodSpec` (`validateContainers`, `validateInitContainers`,
//! `validateEphemeralContainers`, `validateContainerCommon`, `validateContainerPorts`,
//! `ValidateEnv` with relaxed names, `ValidateEnvFrom`, `validatePullPolicy`,
//! `validateResourceRequirements`, `validateResizePolicy` (and the init containers' rule on
//! `RestartContainer`), the probes' and hooks' `validateHandler` (with `validateSleepAction` and
//! the HTTP header names), the containers' own restart
//! policies and rules (`validateContainerRestartPolicy`, `validateInitContainerRestartPolicy`
//! under ContainerRestartRules, beta and on since 1.35), the pod-level resources
//! (`validatePodResources`), `validateRestartPolicy`, `validateDNSPolicy`, node selector,
//! tolerations, names of the service account, node, host and priority class, DNS config, readiness
//! and scheduling gates, topology spread, the hostname override (`validatePodHostName`), host aliases, runtime class, preemption policy and
//! overhead (`validateOverhead`), in Go's order), `validatePodMetadataAndSpec`'s pod-only checks
//! (a projected token needs a service account name, as `Convert_v1_PodSpec_To_core_PodSpec` gives
//! it, the deprecated `serviceAccount` included; no image padded with whitespace) and
//! `ValidatePodCreate`. Run on the defaulted object (see [`crate::defaults`]). The
//! volumes and mounts are [`crate::volumes`], the security contexts, host namespaces and OS rules
//! [`crate::security`], affinity and tolerations [`crate::scheduling`], the resource requirements
//! (a container's, the pod-level ones, the overhead) [`crate::resources`], the smaller fields
//! [`crate::pod_fields`].
//!
//! The pod annotations' own checks (seccomp, AppArmor, mirror pods, and their agreement with the
//! fields) are [`crate::pod_annotations`].
//!
//! The label keys of affinity terms and topology spread constraints are [`crate::label_keys`]
//! (a Pod is validated after `PrepareForCreate` merged its label values into their selectors).
//!
//! The resource claims (`validatePodResourceClaims` after the volumes, and each container's
//! `resources.claims` against them) are [`crate::resource_claims`].
//!
//! The host-port conflicts (`checkHostPortConflicts`: the regular containers' together after
//! their own checks, each init container's alone after its name) are [`crate::host_ports`].
//!
//! A Windows host-process pod's rules (`validateWindowsHostProcessPod`) are [`crate::security`]'s,
//! but for its refusal by an apiserver started with `--allow-privileged=false`, not modelled.

use serde_json::{Map, Value};

use crate::configdata;
use crate::content;
use crate::content::env_var_name;
use crate::field::{BadValue, FieldError};
use crate::field_formats::{
    dns_label, dns_label_at, dns_subdomain, dns_subdomain_at, inclusive_range, path_no_backsteps, str_value,
};
use crate::host_ports;
use crate::lookup::Lookup;
use crate::objectmeta::validate_labels;
use crate::pod_annotations;
use crate::pod_fields;
use crate::resource_claims;
use crate::resources;
use crate::scheduling::{self, PodOptions};
use crate::security;
use crate::volumes::{self, validate_volume_devices, validate_volume_mounts, validate_volumes, ValidVolume};
use crate::zero_values::{list, present, s};

const SUPPORTED_PROTOCOLS: &[&str] = &["SCTP", "TCP", "UDP"];
const SUPPORTED_PULL_POLICIES: &[&str] = &["Always", "IfNotPresent", "Never"];
const RESTART_POLICIES: &[&str] = &["Always", "OnFailure", "Never"];
const DNS_POLICIES: &[&str] = &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const TERMINATION_MESSAGE_POLICIES: &[&str] = &["File", "FallbackToLogsOnError"];
const EPHEMERAL_FORBIDDEN: &[&str] = &[
    "ports",
    "resources",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
    "resizePolicy",
    "restartPolicy",
    "restartPolicyRules",
];

/// `IsValidPortNum`.
fn port_num(port: i64) -> Vec<String> {
    if (1..=65535).contains(&port) {
        Vec::new()
    } else {
        vec![inclusive_range(1, 65535)]
    }
}

/// `IsValidPortName`.
pub fn port_name(port: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if port.len() > 15 {
        errs.push(content::max_len_error(15));
    }
    if port.is_empty() || !port.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-') {
        errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".into());
    }
    if !port.bytes().any(|c| c.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)".into());
    }
    if port.contains("--") {
        errs.push("must not contain consecutive hyphens".into());
    }
    if port.starts_with('-') || port.ends_with('-') {
        errs.push("must not begin or end with a hyphen".into());
    }
    errs
}

/// `validateContainerPorts`.
fn ports(ports: &[Value], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        // A field of this port, its path made for an error only.
        let at = |field: &str| format!("{path}[{i}].{field}");
        let name = s(port, "name");
        if !name.is_empty() {
            let msgs = port_name(name);
            if !msgs.is_empty() {
                errs.extend(msgs.into_iter().map(|m| FieldError::invalid(&at("name"), str_value(name), m)));
            } else if names.contains(&name) {
                errs.push(FieldError::duplicate(&at("name"), str_value(name)));
            } else {
                names.push(name);
            }
        }
        let container_port = port.member("containerPort").and_then(Value::as_i64).unwrap_or(0);
        if container_port == 0 {
            errs.push(FieldError::required(&at("containerPort"), ""));
        } else {
            for m in port_num(container_port) {
                errs.push(FieldError::invalid(&at("containerPort"), BadValue::Int(container_port), m));
            }
        }
        let host_port = port.member("hostPort").and_then(Value::as_i64).unwrap_or(0);
        if host_port != 0 {
            for m in port_num(host_port) {
                errs.push(FieldError::invalid(&at("hostPort"), BadValue::Int(host_port), m));
            }
        }
        let protocol = s(port, "protocol");
        if protocol.is_empty() {
            errs.push(FieldError::required(&at("protocol"), ""));
        } else if !SUPPORTED_PROTOCOLS.contains(&protocol) {
            errs.push(FieldError::not_supported(&at("protocol"), str_value(protocol), SUPPORTED_PROTOCOLS));
        }
    }
    errs
}

/// `ValidateEnv` (relaxed names; `valueFrom` must name exactly one source, its field and resource
/// selectors checked).
fn env(vars: &[Value], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, var) in vars.iter().enumerate() {
        // A field of this variable, its path made when needed only.
        let at = |field: &str| format!("{path}[{i}].{field}");
        let name = s(var, "name");
        if name.is_empty() {
            errs.push(FieldError::required(&at("name"), ""));
        } else {
            for m in env_var_name(name) {
                errs.push(FieldError::invalid(&at("name"), str_value(name), m));
            }
        }
        if let Some(from) = var.member("valueFrom").filter(|v| !v.is_null()) {
            let sources = ["fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef"]
                .iter()
                .filter(|k| present(from, k))
                .count();
            let fp = at("valueFrom");
            // validateEnvVarValueFrom: each source's own checks, in Go's order.
            if let Some(f) = from.member("fieldRef").filter(|v| !v.is_null()) {
                errs.extend(volumes::object_field_selector(f, volumes::ENV_FIELD_PATHS, &format!("{fp}.fieldRef")));
            }
            if let Some(r) = from.member("resourceFieldRef").filter(|v| !v.is_null()) {
                errs.extend(volumes::resource_field_ref(r, &format!("{fp}.resourceFieldRef"), false));
            }
            for selector in ["configMapKeyRef", "secretKeyRef"] {
                if let Some(k) = from.member(selector).filter(|v| !v.is_null()) {
                    errs.extend(key_selector(k, &format!("{fp}.{selector}")));
                }
            }
            if let Some(f) = from.member("fileKeyRef").filter(|v| !v.is_null()) {
                errs.extend(file_key_selector(f, &format!("{fp}.fileKeyRef")));
            }
            if sources == 0 {
                errs.push(FieldError::invalid(
                    &fp,
                    str_value(""),
                    // AllowEnvFilesValidation: EnvFiles is beta and on in 1.35 and 1.36.
                    "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`",
                ));
            } else if !s(var, "value").is_empty() {
                errs.push(FieldError::invalid(&fp, str_value(""), "may not be specified when `value` is not empty"));
            } else if sources > 1 {
                errs.push(FieldError::invalid(
                    &fp,
                    str_value(""),
                    "may not have more than one field specified at a time",
                ));
            }
        }
    }
    errs
}

/// `validateConfigMapKeySelector` and `validateSecretKeySelector`: the name a DNS subdomain
/// (`ValidateSecretName`, even when empty), the key required and a ConfigMap key.
fn key_selector(k: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = dns_subdomain(s(k, "name"), &format!("{path}.name"));
    let key = s(k, "key");
    if key.is_empty() {
        errs.push(FieldError::required(&format!("{path}.key"), ""));
    } else {
        for m in configdata::is_config_map_key(key) {
            errs.push(FieldError::invalid(&format!("{path}.key"), str_value(key), m));
        }
    }
    errs
}

/// `validateFileKeySelector`: the key a (relaxed) environment variable name, the volume a DNS
/// label, the path without `..`, each required.
fn file_key_selector(f: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let key = s(f, "key");
    if key.is_empty() {
        errs.push(FieldError::required(&format!("{path}.key"), ""));
    } else {
        for m in env_var_name(key) {
            errs.push(FieldError::invalid(&format!("{path}.key"), str_value(key), m));
        }
    }
    let volume = s(f, "volumeName");
    if volume.is_empty() {
        errs.push(FieldError::required(&format!("{path}.volumeName"), ""));
    } else {
        errs.extend(dns_label(volume, &format!("{path}.volumeName")));
    }
    let file = s(f, "path");
    if file.is_empty() {
        errs.push(FieldError::required(&format!("{path}.path"), ""));
    } else {
        errs.extend(path_no_backsteps(file, &format!("{path}.path")));
    }
    errs
}

/// `validateFileKeyRefVolumes`, the last check of `ValidatePodSpec`: the volume an environment
/// variable's `fileKeyRef` names exists and is an `emptyDir` (containers visited as
/// `VisitContainersWithPath` does: init, regular, ephemeral).
fn file_key_ref_volumes(spec: &Value, path: &str) -> Vec<FieldError> {
    let volumes = list(spec, "volumes");
    let mut errs = Vec::new();
    for kind in ["initContainers", "containers", "ephemeralContainers"] {
        for (i, c) in list(spec, kind).iter().enumerate() {
            for (j, var) in list(c, "env").iter().enumerate() {
                let Some(f) = var.at("/valueFrom/fileKeyRef").filter(|v| !v.is_null()) else { continue };
                let name = s(f, "volumeName");
                let at = format!("{path}.{kind}[{i}].env[{j}].valueFrom.fileKeyRef.volumeName");
                match volumes.iter().find(|v| s(v, "name") == name) {
                    None => errs.push(FieldError::not_found(&at, str_value(name))),
                    Some(v) if !present(v, "emptyDir") => errs.push(FieldError::invalid(
                        &at,
                        str_value(name),
                        "referenced volume must be of type emptyDir",
                    )),
                    Some(_) => {}
                }
            }
        }
    }
    errs
}

/// `validateHandler`: exactly one handler type.
fn handler(h: &Value, path: &str, kinds: &[&str], grace: Option<i64>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut n = 0;
    for kind in kinds {
        if !present(h, kind) {
            continue;
        }
        if n > 0 {
            errs.push(FieldError::forbidden(&format!("{path}.{kind}"), "may not specify more than 1 handler type"));
            continue;
        }
        n += 1;
        let hp = format!("{path}.{kind}");
        match *kind {
            "exec" if list(&h[*kind], "command").is_empty() => {
                errs.push(FieldError::required(&format!("{hp}.command"), ""))
            }
            "httpGet" => {
                let http = &h[*kind];
                if s(http, "path").is_empty() {
                    errs.push(FieldError::required(&format!("{hp}.path"), ""));
                }
                errs.extend(port_num_or_name(http.member("port"), &format!("{hp}.port")));
                let scheme = s(http, "scheme");
                if !["HTTP", "HTTPS"].contains(&scheme) {
                    errs.push(FieldError::not_supported(
                        &format!("{hp}.scheme"),
                        str_value(scheme),
                        &["HTTP", "HTTPS"],
                    ));
                }
                // validation.IsHTTPHeaderName, the list named rather than the header.
                for header in list(http, "httpHeaders") {
                    let name = s(header, "name");
                    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
                        errs.push(FieldError::invalid(
                            &format!("{hp}.httpHeaders"),
                            str_value(name),
                            content::regex_error(
                                "a valid HTTP header must consist of alphanumeric characters or '-'",
                                "[-A-Za-z0-9]+",
                                &["X-Header-Name"],
                            ),
                        ));
                    }
                }
            }
            // validateSleepAction under AllowPodLifecycleSleepActionZeroValue
            // (PodLifecycleSleepActionAllowZero, on since 1.33): zero seconds is allowed.
            "sleep" => {
                let seconds = h[*kind].member("seconds").and_then(Value::as_i64).unwrap_or(0);
                if let Some(grace) = grace.filter(|g| seconds < 0 || seconds > *g) {
                    errs.push(FieldError::invalid(
                        &hp,
                        BadValue::Int(seconds),
                        format!("must be non-negative and less than terminationGracePeriodSeconds ({grace})"),
                    ));
                }
            }
            "tcpSocket" | "grpc" => errs.extend(port_num_or_name(h[*kind].member("port"), &format!("{hp}.port"))),
            _ => {}
        }
    }
    if n == 0 {
        errs.push(FieldError::required(path, "must specify a handler type"));
    }
    errs
}

/// `ValidatePortNumOrName`.
fn port_num_or_name(port: Option<&Value>, path: &str) -> Vec<FieldError> {
    match port {
        Some(Value::String(name)) => {
            port_name(name).into_iter().map(|m| FieldError::invalid(path, str_value(name), m)).collect()
        }
        Some(v) => {
            let n = v.as_i64().unwrap_or(0);
            port_num(n).into_iter().map(|m| FieldError::invalid(path, BadValue::Int(n), m)).collect()
        }
        None => port_num(0).into_iter().map(|m| FieldError::invalid(path, BadValue::Int(0), m)).collect(),
    }
}

/// `validateProbe` plus the liveness/startup `successThreshold` of 1 and the readiness probe's
/// missing grace period.
fn probe(c: &Value, key: &str, path: &str) -> Vec<FieldError> {
    let Some(p) = c.member(key).filter(|v| !v.is_null()) else { return Vec::new() };
    let pp = format!("{path}.{key}");
    let mut errs = handler(p, &pp, &["exec", "httpGet", "tcpSocket", "grpc"], None);
    for field in ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"] {
        let v = p.member(field).and_then(Value::as_i64).unwrap_or(0);
        if v < 0 {
            errs.push(FieldError::invalid(
                &format!("{pp}.{field}"),
                BadValue::Int(v),
                "must be greater than or equal to 0",
            ));
        }
    }
    if let Some(g) = p.member("terminationGracePeriodSeconds").and_then(Value::as_i64) {
        if key == "readinessProbe" {
            errs.push(FieldError::invalid(
                &format!("{pp}.terminationGracePeriodSeconds"),
                BadValue::Int(g),
                "must not be set for readinessProbes",
            ));
        } else if g <= 0 {
            errs.push(FieldError::invalid(
                &format!("{pp}.terminationGracePeriodSeconds"),
                BadValue::Int(g),
                "must be greater than 0",
            ));
        }
    }
    let success = p.member("successThreshold").and_then(Value::as_i64).unwrap_or(0);
    if key != "readinessProbe" && success != 1 {
        errs.push(FieldError::invalid(&format!("{pp}.successThreshold"), BadValue::Int(success), "must be 1"));
    }
    errs
}

fn lifecycle(c: &Value, grace: Option<i64>, path: &str) -> Vec<FieldError> {
    let Some(l) = c.member("lifecycle").filter(|v| !v.is_null()) else { return Vec::new() };
    let mut errs = Vec::new();
    for hook in ["postStart", "preStop"] {
        if let Some(h) = l.member(hook).filter(|v| !v.is_null()) {
            let kinds = ["exec", "httpGet", "tcpSocket", "sleep"];
            errs.extend(handler(h, &format!("{path}.lifecycle.{hook}"), &kinds, grace));
        }
    }
    errs
}

/// `supportedContainerRestartPolicies`, `supportedContainerRestartPolicyOperators` and
/// `supportedContainerRestartRuleActions` (`RestartAllContainers` needs
/// RestartAllContainersOnContainerExits, alpha and off), sorted as `sets.List` sorts them.
const CONTAINER_RESTART_POLICIES: &[&str] = &["Always", "Never", "OnFailure"];
const RESTART_RULE_OPERATORS: &[&str] = &["In", "NotIn"];
const RESTART_RULE_ACTIONS: &[&str] = &["Restart"];

/// `validateContainerRestartPolicy`: a supported policy, which restart rules need; at most 20
/// rules, each with a supported action and exit codes (a supported operator, at most 255 values).
fn container_restart_policy(c: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let rules = list(c, "restartPolicyRules");
    let policy_path = || format!("{path}.restartPolicy");
    match c.member("restartPolicy").filter(|p| !p.is_null()) {
        None if rules.is_empty() => return errs,
        None => {
            errs.push(FieldError::required(&policy_path(), "must specify restartPolicy when restart rules are used"))
        }
        Some(policy) => {
            let policy = policy.as_str().unwrap_or("");
            if !CONTAINER_RESTART_POLICIES.contains(&policy) {
                errs.push(FieldError::not_supported(&policy_path(), str_value(policy), CONTAINER_RESTART_POLICIES));
            }
        }
    }
    // No rules, nothing more to report.
    if rules.is_empty() {
        return errs;
    }
    let rules_path = format!("{path}.restartPolicyRules");
    if rules.len() > 20 {
        errs.push(FieldError::too_many(&rules_path, rules.len() as i64, 20));
    }
    for (i, rule) in rules.iter().enumerate() {
        let p = format!("{rules_path}[{i}]");
        let action = s(rule, "action");
        if !RESTART_RULE_ACTIONS.contains(&action) {
            errs.push(FieldError::not_supported(&format!("{p}.action"), str_value(action), RESTART_RULE_ACTIONS));
        }
        match rule.member("exitCodes").filter(|e| !e.is_null()) {
            Some(codes) => {
                let operator = s(codes, "operator");
                if !RESTART_RULE_OPERATORS.contains(&operator) {
                    errs.push(FieldError::not_supported(
                        &format!("{p}.exitCodes.operator"),
                        str_value(operator),
                        RESTART_RULE_OPERATORS,
                    ));
                }
                let values = list(codes, "values");
                if values.len() > 255 {
                    errs.push(FieldError::too_many(&format!("{p}.exitCodes.values"), values.len() as i64, 255));
                }
            }
            None => errs.push(FieldError::required(&format!("{p}.exitCodes"), "must be specified")),
        }
    }
    errs
}

/// `validateInitContainerRestartPolicy` with `AllowContainerRestartPolicyRules` (and without
/// `AllowRestartAllContainers`): a sidecar (`Always`) takes no restart rules; any other policy is
/// held to [`container_restart_policy`].
fn init_container_restart_policy(c: &Value, path: &str) -> Vec<FieldError> {
    let rules = list(c, "restartPolicyRules");
    match c.member("restartPolicy").filter(|p| !p.is_null()).map(|p| p.as_str().unwrap_or("")) {
        None if rules.is_empty() => Vec::new(),
        None => vec![FieldError::required(
            &format!("{path}.restartPolicy"),
            "must specify restartPolicy when restart rules are used",
        )],
        Some("Always") if !rules.is_empty() => vec![FieldError::forbidden(
            &format!("{path}.restartPolicyRules"),
            "restartPolicyRules are not allowed for init containers with restart policy Always",
        )],
        Some("Always") => Vec::new(),
        Some(_) => container_restart_policy(c, path),
    }
}

/// `validatePodHostName` (HostnameOverride beta and on since 1.35): a `hostnameOverride` neither
/// with `setHostnameAsFQDN` nor with the host network, at most 64 bytes, a DNS subdomain.
fn hostname_override(spec: &Value, path: &str) -> Vec<FieldError> {
    let Some(name) = spec.member("hostnameOverride").filter(|v| !v.is_null()) else { return Vec::new() };
    let name = name.as_str().unwrap_or("");
    let p = format!("{path}.hostnameOverride");
    let mut errs = Vec::new();
    if spec.member("setHostnameAsFQDN").and_then(Value::as_bool) == Some(true) {
        errs.push(FieldError::forbidden(&p, "may not be specified when setHostnameAsFQDN is true"));
    }
    if spec.member("hostNetwork").and_then(Value::as_bool) == Some(true) {
        errs.push(FieldError::forbidden(&p, "may not be specified when hostNetwork is true"));
    }
    if name.len() > 64 {
        errs.push(FieldError::too_long(&p, 64));
    }
    errs.extend(dns_subdomain(name, &p));
    errs
}

/// `supportedResizeResources` and `supportedResizePolicies`, sorted as `sets.List` sorts them.
const RESIZE_RESOURCES: &[&str] = &["cpu", "memory"];
const RESIZE_POLICIES: &[&str] = &["NotRequired", "RestartContainer"];

/// `validateResizePolicy`: each resource once, cpu or memory, a supported restart policy, and
/// `NotRequired` only under a pod `restartPolicy` of Never. Go names the list, not the entry, but
/// for a repeated resource.
fn resize_policy(c: &Value, pod_restart: &str, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (i, policy) in list(c, "resizePolicy").iter().enumerate() {
        let resource = s(policy, "resourceName");
        if seen.contains(&resource) {
            errs.push(FieldError::duplicate(&format!("{path}[{i}]"), str_value(resource)));
        }
        seen.push(resource);
        match resource {
            "cpu" | "memory" => {}
            "" => errs.push(FieldError::required(path, "")),
            other => errs.push(FieldError::not_supported(path, str_value(other), RESIZE_RESOURCES)),
        }
        let restart = s(policy, "restartPolicy");
        match restart {
            "NotRequired" | "RestartContainer" => {}
            "" => errs.push(FieldError::required(path, "")),
            other => errs.push(FieldError::not_supported(path, str_value(other), RESIZE_POLICIES)),
        }
        if pod_restart == "Never" && restart != "NotRequired" {
            errs.push(FieldError::invalid(
                path,
                str_value(restart),
                "must be 'NotRequired' when pod `restartPolicy` is 'Never'",
            ));
        }
    }
    errs
}

/// `validateContainerCommon`, the container's security context last; `pod_claims` are the pod's
/// claim names (`gatherPodResourceClaimNames`).
fn container_common(
    c: &Value,
    volumes: &[ValidVolume<'_>],
    pod_claims: &[String],
    host_users: bool,
    pod_restart: &str,
    opts: PodOptions,
    path: &str,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let name = s(c, "name");
    if name.is_empty() {
        errs.push(FieldError::required(&format!("{path}.name"), ""));
    } else {
        errs.extend(dns_label_at(name, || format!("{path}.name")));
    }
    if s(c, "image").is_empty() {
        errs.push(FieldError::required(&format!("{path}.image"), ""));
    }
    let tmp = s(c, "terminationMessagePolicy");
    if tmp.is_empty() {
        errs.push(FieldError::required(&format!("{path}.terminationMessagePolicy"), ""));
    } else if !TERMINATION_MESSAGE_POLICIES.contains(&tmp) {
        errs.push(FieldError::not_supported(
            &format!("{path}.terminationMessagePolicy"),
            str_value(tmp),
            TERMINATION_MESSAGE_POLICIES,
        ));
    }
    // Each list's check reports nothing for an empty list: its path is made only for a list.
    let (port_list, env_list, env_from_list) = (list(c, "ports"), list(c, "env"), list(c, "envFrom"));
    if !port_list.is_empty() {
        errs.extend(ports(port_list, &format!("{path}.ports")));
    }
    if !env_list.is_empty() {
        errs.extend(env(env_list, &format!("{path}.env")));
    }
    if !env_from_list.is_empty() {
        errs.extend(pod_fields::env_from(env_from_list, &format!("{path}.envFrom")));
    }
    let (mounts, devices) = (list(c, "volumeMounts"), list(c, "volumeDevices"));
    if !mounts.is_empty() {
        errs.extend(validate_volume_mounts(mounts, devices, volumes, c, &format!("{path}.volumeMounts")));
    }
    if !devices.is_empty() {
        errs.extend(validate_volume_devices(devices, mounts, volumes, &format!("{path}.volumeDevices")));
    }
    let pull = s(c, "imagePullPolicy");
    if pull.is_empty() {
        errs.push(FieldError::required(&format!("{path}.imagePullPolicy"), ""));
    } else if !SUPPORTED_PULL_POLICIES.contains(&pull) {
        errs.push(FieldError::not_supported(
            &format!("{path}.imagePullPolicy"),
            str_value(pull),
            SUPPORTED_PULL_POLICIES,
        ));
    }
    // Neither absent resources nor an absent security context nor an empty resize policy is
    // reported.
    if present(c, "resources") {
        errs.extend(resources::container_resources(
            c.member("resources"),
            pod_claims,
            opts.allow_indivisible_huge_pages,
            &format!("{path}.resources"),
        ));
    }
    if !list(c, "resizePolicy").is_empty() {
        errs.extend(resize_policy(c, pod_restart, &format!("{path}.resizePolicy")));
    }
    if present(c, "securityContext") {
        errs.extend(security::validate_security_context(
            c.member("securityContext"),
            &format!("{path}.securityContext"),
            host_users,
        ));
    }
    errs
}

/// `ValidatePodSpec` at `path` (`spec.template.spec` of a workload: a template's host port may
/// be 0 under `hostNetwork`) under the affinity options `opts`.
pub fn validate_pod_spec(spec: &Value, opts: PodOptions, path: &str) -> Vec<FieldError> {
    pod_spec(spec, PodMeta { name: "", mirror: false }, path, false, opts)
}

/// What `ValidatePodSpec` reads of the pod metadata it is given (none for a template).
#[derive(Clone, Copy)]
struct PodMeta<'a> {
    /// The pod's name (empty for a template).
    name: &'a str,
    /// Whether the pod carries the mirror pod annotation (never for a template).
    mirror: bool,
}

/// `ValidatePodSpec`; `meta` is what it reads of the pod's metadata, `resource_is_pod` is
/// `PodValidationOptions.ResourceIsPod`.
fn pod_spec(spec: &Value, meta: PodMeta<'_>, path: &str, resource_is_pod: bool, opts: PodOptions) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if !present(spec, "terminationGracePeriodSeconds") {
        errs.push(FieldError::required(&format!("{path}.terminationGracePeriodSeconds"), ""));
    }
    let host_users = security::host_users(spec);
    let pod_restart = s(spec, "restartPolicy");
    let grace = spec.member("terminationGracePeriodSeconds").and_then(Value::as_i64);
    // No volumes are no volume errors, no resource claims no claim errors.
    let volume_list = list(spec, "volumes");
    let (vols, verrs) = if volume_list.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        validate_volumes(volume_list, meta.name, opts, &format!("{path}.volumes"))
    };
    errs.extend(verrs);
    let pod_claims = resource_claims::pod_claim_names(spec);
    if !list(spec, "resourceClaims").is_empty() {
        errs.extend(resource_claims::pod_resource_claims(spec, meta.mirror, &format!("{path}.resourceClaims")));
    }

    // validateContainers.
    let containers = list(spec, "containers");
    let cpath = format!("{path}.containers");
    if containers.is_empty() {
        errs.push(FieldError::required(&cpath, ""));
    }
    let mut names: Vec<&str> = Vec::new();
    for (i, c) in containers.iter().enumerate() {
        let p = format!("{cpath}[{i}]");
        errs.extend(container_common(c, &vols, &pod_claims, host_users, pod_restart, opts, &p));
        let name = s(c, "name");
        if names.contains(&name) {
            errs.push(FieldError::duplicate(&format!("{p}.name"), str_value(name)));
        } else {
            names.push(name);
        }
        errs.extend(lifecycle(c, grace, &p));
        for key in ["livenessProbe", "readinessProbe", "startupProbe"] {
            errs.extend(probe(c, key, &p));
        }
        // AllowContainerRestartPolicyRules: ContainerRestartRules is beta and on since 1.35.
        errs.extend(container_restart_policy(c, &p));
    }
    // Port conflicts are checked across all containers.
    errs.extend(host_ports::check_host_port_conflicts(containers, &cpath));

    // validateInitContainers (the list's path only needed for an entry).
    let inits = list(spec, "initContainers");
    let ipath = if inits.is_empty() { String::new() } else { format!("{path}.initContainers") };
    let mut all: Vec<&str> = containers.iter().map(|c| s(c, "name")).collect();
    for (i, c) in inits.iter().enumerate() {
        let p = format!("{ipath}[{i}]");
        errs.extend(container_common(c, &vols, &pod_claims, host_users, pod_restart, opts, &p));
        let always = s(c, "restartPolicy") == "Always";
        errs.extend(init_container_restart_policy(c, &p));
        let name = s(c, "name");
        if all.contains(&name) {
            errs.push(FieldError::duplicate(&format!("{p}.name"), str_value(name)));
        } else if !name.is_empty() {
            all.push(name);
        }
        // Each init container alone (they run one by one), at the list's index 0 as Go names it.
        errs.extend(host_ports::check_host_port_conflicts(std::slice::from_ref(c), &ipath));
        if always {
            errs.extend(lifecycle(c, grace, &p));
            for key in ["livenessProbe", "readinessProbe", "startupProbe"] {
                errs.extend(probe(c, key, &p));
            }
        } else {
            for key in ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"] {
                if present(c, key) {
                    errs.push(FieldError::forbidden(
                        &format!("{p}.{key}"),
                        "may not be set for init containers without restartPolicy=Always",
                    ));
                }
            }
        }
        // AllowSidecarResizePolicy (InPlacePodVerticalScaling is GA): any init container may carry
        // a resize policy, but only a sidecar may restart to resize.
        if !always && !opts.allow_existing_restart_container {
            for (j, policy) in list(c, "resizePolicy").iter().enumerate() {
                if s(policy, "restartPolicy") == "RestartContainer" {
                    errs.push(FieldError::invalid(
                        &format!("{p}.resizePolicy[{j}].restartPolicy"),
                        str_value("RestartContainer"),
                        "must not be set to 'RestartContainer' for non-sidecar initContainers",
                    ));
                }
            }
        }
    }

    // validateEphemeralContainers (the list's path only needed for an entry).
    let ephemerals = list(spec, "ephemeralContainers");
    let epath = if ephemerals.is_empty() { String::new() } else { format!("{path}.ephemeralContainers") };
    let others: Vec<&str> = containers.iter().chain(inits).map(|c| s(c, "name")).collect();
    let mut all: Vec<&str> = others.clone();
    for (i, c) in ephemerals.iter().enumerate() {
        let p = format!("{epath}[{i}]");
        errs.extend(container_common(c, &vols, &pod_claims, host_users, pod_restart, opts, &p));
        errs.extend(image_whitespace(c, || p.clone()));
        let name = s(c, "name");
        if all.contains(&name) {
            errs.push(FieldError::duplicate(&format!("{p}.name"), str_value(name)));
        } else {
            all.push(name);
        }
        let target = s(c, "targetContainerName");
        if !target.is_empty() && !others.contains(&target) {
            errs.push(FieldError::not_found(&format!("{p}.targetContainerName"), str_value(target)));
        }
        for key in EPHEMERAL_FORBIDDEN {
            if present(c, key) && c[*key] != Value::Object(Map::new()) && c[*key] != Value::Array(Vec::new()) {
                errs.push(FieldError::forbidden(&format!("{p}.{key}"), "cannot be set for an Ephemeral Container"));
            }
        }
        // Sub paths are bind mounts left until the pod exits: forbidden after the allow-list.
        for (j, m) in list(c, "volumeMounts").iter().enumerate() {
            for key in ["subPath", "subPathExpr"] {
                if !s(m, key).is_empty() {
                    errs.push(FieldError::forbidden(
                        &format!("{p}.volumeMounts[{j}].{key}"),
                        "cannot be set for an Ephemeral Container",
                    ));
                }
            }
        }
    }

    errs.extend(resources::pod_resources(spec, &pod_claims, opts.allow_indivisible_huge_pages, path));
    errs.extend(security::host_network_deps(spec, path, resource_is_pod));
    let restart = s(spec, "restartPolicy");
    if restart.is_empty() {
        errs.push(FieldError::required(&format!("{path}.restartPolicy"), ""));
    } else if !RESTART_POLICIES.contains(&restart) {
        errs.push(FieldError::not_supported(&format!("{path}.restartPolicy"), str_value(restart), RESTART_POLICIES));
    }
    let dns = s(spec, "dnsPolicy");
    if dns.is_empty() {
        errs.push(FieldError::required(&format!("{path}.dnsPolicy"), ""));
    } else if !DNS_POLICIES.contains(&dns) {
        errs.push(FieldError::not_supported(&format!("{path}.dnsPolicy"), str_value(dns), DNS_POLICIES));
    }
    if let Some(selector) = spec.member("nodeSelector").and_then(Value::as_object) {
        let pairs: Vec<(&str, &str)> = selector.iter().map(|(k, v)| (k.as_str(), v.as_str().unwrap_or(""))).collect();
        errs.extend(validate_labels(&pairs, &format!("{path}.nodeSelector")));
    }
    errs.extend(security::validate_pod_security_context(spec, path, opts));
    errs.extend(scheduling::validate_affinity(spec, opts, path));
    errs.extend(pod_fields::dns_config(spec, path));
    errs.extend(pod_fields::readiness_gates(spec, path));
    errs.extend(pod_fields::scheduling_gates(spec, path));
    errs.extend(pod_fields::topology_spread_constraints(spec, path, opts));
    errs.extend(security::windows_host_process(spec, path));
    errs.extend(security::validate_host_users(spec, path));
    errs.extend(hostname_override(spec, path));
    for (key, v) in [("serviceAccountName", service_account_name(spec)), ("nodeName", s(spec, "nodeName"))] {
        if !v.is_empty() {
            errs.extend(dns_subdomain_at(v, || format!("{path}.{key}")));
        }
    }
    if let Some(d) = spec.member("activeDeadlineSeconds").and_then(Value::as_i64) {
        if !(1..=i64::from(i32::MAX)).contains(&d) {
            errs.push(FieldError::invalid(
                &format!("{path}.activeDeadlineSeconds"),
                BadValue::Int(d),
                inclusive_range(1, i64::from(i32::MAX)),
            ));
        }
    }
    for key in ["hostname", "subdomain"] {
        let v = s(spec, key);
        if !v.is_empty() {
            errs.extend(dns_label_at(v, || format!("{path}.{key}")));
        }
    }
    // No tolerations are no toleration errors.
    let tolerations = list(spec, "tolerations");
    if !tolerations.is_empty() {
        errs.extend(scheduling::validate_tolerations(tolerations, &format!("{path}.tolerations")));
    }
    errs.extend(pod_fields::host_aliases(spec, path));
    let priority_class = s(spec, "priorityClassName");
    if !priority_class.is_empty() {
        errs.extend(dns_subdomain_at(priority_class, || format!("{path}.priorityClassName")));
    }
    errs.extend(pod_fields::runtime_class_and_preemption(spec, path));
    errs.extend(resources::overhead(spec, opts.allow_indivisible_huge_pages, path));
    errs.extend(security::validate_os(spec, path));
    errs.extend(file_key_ref_volumes(spec, path));
    errs
}

/// `validateContainerOnlyForPod` of the container at the path `path` makes (made for an error only).
fn image_whitespace(c: &Value, path: impl FnOnce() -> String) -> Vec<FieldError> {
    let image = s(c, "image");
    if image.trim() != image {
        vec![FieldError::invalid(
            &format!("{}.image", path()),
            str_value(image),
            "must not have leading or trailing whitespace",
        )]
    } else {
        Vec::new()
    }
}

/// The internal `ServiceAccountName` of a v1 pod spec (`Convert_v1_PodSpec_To_core_PodSpec`):
/// `serviceAccountName`, or when that is empty its deprecated alias `serviceAccount`.
fn service_account_name(spec: &Value) -> &str {
    match s(spec, "serviceAccountName") {
        "" => s(spec, "serviceAccount"),
        name => name,
    }
}

/// `validatePodMetadataAndSpec`'s pod-only check (not a template's): with no service account name,
/// no projected volume may hold a `serviceAccountToken` source.
fn token_sources_without_service_account(spec: &Value) -> Vec<FieldError> {
    if !service_account_name(spec).is_empty() {
        return Vec::new();
    }
    let mut errs = Vec::new();
    for (vi, volume) in list(spec, "volumes").iter().enumerate() {
        let Some(projected) = volume.member("projected").filter(|p| !p.is_null()) else { continue };
        for (si, source) in list(projected, "sources").iter().enumerate() {
            if source.member("serviceAccountToken").is_some_and(|t| !t.is_null()) {
                errs.push(FieldError::forbidden(
                    &format!("spec.volumes[{vi}].projected.sources[{si}].serviceAccountToken"),
                    "must not be specified when serviceAccountName is not set",
                ));
            }
        }
    }
    errs
}

/// `validatePodMetadataAndSpec` without `ValidateObjectMeta`: `ValidatePodSpecificAnnotations`
/// ([`pod_annotations`]), the spec (under `opts`), the projected tokens' service account, then
/// the pod-only image check of containers and init containers.
pub fn validate_pod(pod: &Value, opts: PodOptions) -> Vec<FieldError> {
    let spec = pod.member("spec").unwrap_or(&Value::Null);
    let mut errs =
        pod_annotations::validate_pod_specific_annotations(pod.member("metadata"), spec, "metadata.annotations", opts);
    let name = pod.at("/metadata/name").and_then(Value::as_str).unwrap_or("");
    let meta = PodMeta { name, mirror: pod_annotations::is_mirror(pod.member("metadata")) };
    errs.extend(pod_spec(spec, meta, "spec", true, opts));
    errs.extend(token_sources_without_service_account(spec));
    for list_name in ["containers", "initContainers"] {
        for (i, c) in list(spec, list_name).iter().enumerate() {
            errs.extend(image_whitespace(c, || format!("spec.{list_name}[{i}]")));
        }
    }
    errs
}

/// `ValidatePodCreate` without `ValidateObjectMeta`, on the pod `PrepareForCreate` left
/// (`applyAppArmorVersionSkew`, see [`pod_annotations`]).
pub fn validate_pod_create(pod: &Value) -> Vec<FieldError> {
    let mut errs = validate_pod(pod, PodOptions::default());
    let spec = pod.member("spec").unwrap_or(&Value::Null);
    if !list(spec, "ephemeralContainers").is_empty() {
        errs.push(FieldError::forbidden("spec.ephemeralContainers", "cannot be set on create"));
    }
    if !s(spec, "nodeName").is_empty() && !list(spec, "schedulingGates").is_empty() {
        errs.push(FieldError::forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"));
    }
    errs.extend(pod_annotations::seccomp_annotations_and_fields(pod.member("metadata"), spec, "spec"));
    errs.extend(pod_annotations::apparmor_annotations_and_fields_on_create(pod.member("metadata"), spec, "spec", true));
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `validateEphemeralContainers`: a sub path is forbidden, after the allow-list's errors.
    #[test]
    fn an_ephemeral_container_mounts_no_sub_path() {
        let mut spec = json!({
            "terminationGracePeriodSeconds": 30, "restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
            "volumes": [{"name": "data", "emptyDir": {}}],
            "containers": [{"name": "app", "image": "a:1", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}],
            "ephemeralContainers": [{"name": "debug", "image": "d:1", "imagePullPolicy": "IfNotPresent",
                                     "terminationMessagePolicy": "File",
                                     "volumeMounts": [{"name": "data", "mountPath": "/data"}]}]});
        assert!(validate_pod_spec(&spec, PodOptions::default(), "spec").is_empty());
        spec["ephemeralContainers"][0]["volumeMounts"][0]["subPath"] = json!("app");
        spec["ephemeralContainers"][0]["ports"] = json!([{"containerPort": 80, "protocol": "TCP"}]);
        let texts: Vec<String> =
            validate_pod_spec(&spec, PodOptions::default(), "spec").iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container",
                "spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container",
            ]
        );
    }

    /// `validatePodMetadataAndSpec`: a Pod's projected token needs a service account name (the
    /// deprecated `serviceAccount` one too, as conversion takes it), checked after the spec; a
    /// template's does not.
    #[test]
    fn a_pod_token_needs_a_service_account() {
        let mut pod = crate::defaults::defaulted(
            "",
            "Pod",
            &json!({"metadata": {"name": "web"}, "spec": {
                "containers": [{"name": "app", "image": " a:1"}],
                "volumes": [{"name": "c", "configMap": {"name": "c"}},
                            {"name": "t", "projected": {"sources": [
                                {"configMap": {"name": "c"}},
                                {"serviceAccountToken": {"path": "token", "expirationSeconds": 60}}]}}]}}),
        );
        let texts =
            |pod: &Value| validate_pod(pod, PodOptions::default()).iter().map(ToString::to_string).collect::<Vec<_>>();
        assert_eq!(
            texts(&pod),
            [
                "spec.volumes[1].projected.sources[1].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes",
                "spec.volumes[1].projected.sources[1].serviceAccountToken: Forbidden: must not be specified when serviceAccountName is not set",
                "spec.containers[0].image: Invalid value: \" a:1\": must not have leading or trailing whitespace",
            ]
        );
        assert_eq!(validate_pod_spec(&pod["spec"], PodOptions::default(), "spec").len(), 1);
        pod["spec"]["serviceAccount"] = json!("Legacy");
        assert_eq!(
            texts(&pod)[1],
            "spec.serviceAccountName: Invalid value: \"Legacy\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
        );
        pod["spec"]["serviceAccount"] = json!("legacy");
        assert_eq!(texts(&pod).len(), 2);
        pod["spec"]["serviceAccountName"] = json!("web");
        pod["spec"]["serviceAccount"] = json!("Ignored");
        assert_eq!(texts(&pod).len(), 2);
    }
}
