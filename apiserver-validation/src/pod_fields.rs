//! The smaller parts of a pod spec that kubernetes/kubernetes
//! `pkg/apis/core/validation/validation.go` validates (release-1.36): `ValidateEnvFrom`
//! (`validateConfigMapEnvSource`, `validateSecretEnvSource`), `validateReadinessGates`,
//! `validateSchedulingGates`, `validatePodDNSConfig` (with `RelaxedDNSSearchValidation` on:
//! `ValidateDNS1123SubdomainWithUnderScore`), `ValidateHostAliases`, `ValidateRuntimeClassName`
//! `ValidatePreemptionPolicy` and `validateTopologySpreadConstraints` (`ValidateMaxSkew`,
//! `ValidateTopologyKey`, `ValidateWhenUnsatisfiable`, `ValidateSpreadConstraintNotRepeat`,
//! `validateMinDomains`, `validateNodeInclusionPolicy`, the strict label selector unless the old
//! spec already held an invalid one; a constraint's `matchLabelKeys` are [`crate::label_keys`]'s).
//! `validateImagePullSecrets` has nothing to refuse: the internal `LocalObjectReference` holds a
//! name only, so an entry is always "only name".

use serde_json::Value;

use crate::content::{self, env_var_name};
use crate::field::{BadValue, FieldError};
use crate::field_formats::{dns_subdomain, str_value};
use crate::ip::is_valid_ip_for_legacy_field;
use crate::kinds::NameRule;
use crate::label_keys;
use crate::label_selector::validate_selector;
use crate::lookup::Lookup;
use crate::scheduling::PodOptions;
use crate::zero_values::{list, present, s};

/// `MaxDNSNameservers`, `MaxDNSSearchPaths`, `MaxDNSSearchListChars`.
const MAX_NAMESERVERS: usize = 3;
const MAX_SEARCH_PATHS: usize = 32;
const MAX_SEARCH_LIST_CHARS: usize = 2048;
const PREEMPTION_POLICIES: &[&str] = &["PreemptLowerPriority", "Never"];

/// `ValidateQualifiedName`.
fn qualified_name(value: &str, path: &str) -> Vec<FieldError> {
    content::is_qualified_name(value).into_iter().map(|m| FieldError::invalid(path, str_value(value), m)).collect()
}

/// `validateConfigMapEnvSource` / `validateSecretEnvSource`: a name, checked as a generated one
/// (`NameIsDNSSubdomain(name, true)`).
fn env_source_name(source: &Value, path: &str) -> Vec<FieldError> {
    let name = s(source, "name");
    let p = format!("{path}.name");
    if name.is_empty() {
        return vec![FieldError::required(&p, "")];
    }
    NameRule::DnsSubdomain.check(name, true).into_iter().map(|m| FieldError::invalid(&p, str_value(name), m)).collect()
}

/// `ValidateEnvFrom` of a container's `envFrom` at `path` (relaxed prefix names).
pub fn env_from(sources: &[Value], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, ev) in sources.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let prefix = s(ev, "prefix");
        if !prefix.is_empty() {
            let pp = format!("{p}.prefix");
            errs.extend(env_var_name(prefix).into_iter().map(|m| FieldError::invalid(&pp, str_value(prefix), m)));
        }
        let mut sources = 0;
        for key in ["configMapRef", "secretRef"] {
            if present(ev, key) {
                sources += 1;
                errs.extend(env_source_name(&ev[key], &format!("{p}.{key}")));
            }
        }
        // Go reports both at the list's path, not the item's.
        match sources {
            0 => errs.push(FieldError::invalid(
                path,
                str_value(""),
                "must specify one of: `configMapRef` or `secretRef`",
            )),
            1 => {}
            _ => errs.push(FieldError::invalid(
                path,
                str_value(""),
                "may not have more than one field specified at a time",
            )),
        }
    }
    errs
}

/// `validateReadinessGates`.
pub fn readiness_gates(spec: &Value, path: &str) -> Vec<FieldError> {
    list(spec, "readinessGates")
        .iter()
        .enumerate()
        .flat_map(|(i, g)| qualified_name(s(g, "conditionType"), &format!("{path}.readinessGates[{i}].conditionType")))
        .collect()
}

/// `validateSchedulingGates`: qualified names, each once.
pub fn scheduling_gates(spec: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (i, g) in list(spec, "schedulingGates").iter().enumerate() {
        let p = format!("{path}.schedulingGates[{i}]");
        let name = s(g, "name");
        errs.extend(qualified_name(name, &p));
        if seen.contains(&name) {
            errs.push(FieldError::duplicate(&p, str_value(name)));
        }
        seen.push(name);
    }
    errs
}

/// A list of strings as `json.Marshal` writes a `[]string`.
fn strings_json(items: &[Value]) -> BadValue {
    let strings: Vec<&str> = items.iter().map(|v| v.as_str().unwrap_or("")).collect();
    BadValue::Json(serde_json::to_string(&strings).unwrap_or_default())
}

/// `validatePodDNSConfig` of the (defaulted) `dnsPolicy` and `dnsConfig`.
pub fn dns_config(spec: &Value, path: &str) -> Vec<FieldError> {
    let config = spec.member("dnsConfig").filter(|c| !c.is_null());
    let nameservers = config.map_or(&[][..], |c| list(c, "nameservers"));
    if s(spec, "dnsPolicy") == "None" {
        let Some(_) = config else {
            return vec![FieldError::required(
                &format!("{path}.dnsConfig"),
                "must provide `dnsConfig` when `dnsPolicy` is None",
            )];
        };
        if nameservers.is_empty() {
            return vec![FieldError::required(
                &format!("{path}.dnsConfig.nameservers"),
                "must provide at least one DNS nameserver when `dnsPolicy` is None",
            )];
        }
    }
    let Some(config) = config else { return Vec::new() };
    let p = format!("{path}.dnsConfig");
    let mut errs = Vec::new();
    let np = format!("{p}.nameservers");
    if nameservers.len() > MAX_NAMESERVERS {
        let detail = format!("must not have more than {MAX_NAMESERVERS} nameservers");
        errs.push(FieldError::invalid(&np, strings_json(nameservers), detail));
    }
    for (i, ns) in nameservers.iter().enumerate() {
        errs.extend(is_valid_ip_for_legacy_field(&format!("{np}[{i}]"), ns.as_str().unwrap_or("")));
    }
    errs.extend(searches(list(config, "searches"), &format!("{p}.searches")));
    for (i, option) in list(config, "options").iter().enumerate() {
        if s(option, "name").is_empty() {
            errs.push(FieldError::required(&format!("{p}.options[{i}]"), "must not be empty"));
        }
    }
    errs
}

/// `validatePodDNSConfig`'s search paths: their number, their length joined by spaces, and each
/// (a trailing dot dropped, `.` alone allowed) a DNS subdomain that may hold underscores.
fn searches(items: &[Value], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let strings: Vec<&str> = items.iter().map(|v| v.as_str().unwrap_or("")).collect();
    if strings.len() > MAX_SEARCH_PATHS {
        let detail = format!("must not have more than {MAX_SEARCH_PATHS} search paths");
        errs.push(FieldError::invalid(path, strings_json(items), detail));
    }
    if strings.join(" ").len() > MAX_SEARCH_LIST_CHARS {
        let detail =
            format!("must not have more than {MAX_SEARCH_LIST_CHARS} characters (including spaces) in the search list");
        errs.push(FieldError::invalid(path, strings_json(items), detail));
    }
    for (i, search) in strings.iter().enumerate() {
        if *search == "." {
            continue;
        }
        let trimmed = search.strip_suffix('.').unwrap_or(search);
        let p = format!("{path}[{i}]");
        let msgs = content::is_dns1123_subdomain_with_underscore(trimmed);
        errs.extend(msgs.into_iter().map(|m| FieldError::invalid(&p, str_value(trimmed), m)));
    }
    errs
}

/// `ValidateHostAliases`: each IP, each host name a DNS subdomain.
pub fn host_aliases(spec: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, alias) in list(spec, "hostAliases").iter().enumerate() {
        let p = format!("{path}.hostAliases[{i}]");
        errs.extend(is_valid_ip_for_legacy_field(&format!("{p}.ip"), s(alias, "ip")));
        for (j, host) in list(alias, "hostnames").iter().enumerate() {
            errs.extend(dns_subdomain(host.as_str().unwrap_or(""), &format!("{p}.hostnames[{j}]")));
        }
    }
    errs
}

/// `ValidateRuntimeClassName` (when set) and `ValidatePreemptionPolicy` (when set).
pub fn runtime_class_and_preemption(spec: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if present(spec, "runtimeClassName") {
        errs.extend(dns_subdomain(s(spec, "runtimeClassName"), &format!("{path}.runtimeClassName")));
    }
    if present(spec, "preemptionPolicy") {
        let p = format!("{path}.preemptionPolicy");
        match s(spec, "preemptionPolicy") {
            "" => errs.push(FieldError::required(&p, "")),
            v if PREEMPTION_POLICIES.contains(&v) => {}
            v => errs.push(FieldError::not_supported(
                &p,
                BadValue::Json(Value::from(v).to_string()),
                PREEMPTION_POLICIES,
            )),
        }
    }
    errs
}

/// `supportedScheduleActions`, `supportedPodTopologySpreadNodePolicies` (as `sets.List` sorts them).
const SCHEDULE_ACTIONS: &[&str] = &["DoNotSchedule", "ScheduleAnyway"];
const NODE_INCLUSION_POLICIES: &[&str] = &["Honor", "Ignore"];
/// `isNotPositiveErrorMsg`.
const NOT_POSITIVE: &str = "must be greater than zero";

/// `validateTopologySpreadConstraints` under `opts`
/// (`AllowInvalidTopologySpreadConstraintLabelSelector`, `OldPodViolatesMatchLabelKeysValidation`);
/// the match keys are [`crate::label_keys`].
pub fn topology_spread_constraints(spec: &Value, path: &str, opts: PodOptions) -> Vec<FieldError> {
    let constraints = list(spec, "topologySpreadConstraints");
    let mut errs = Vec::new();
    for (i, c) in constraints.iter().enumerate() {
        let p = format!("{path}.topologySpreadConstraints[{i}]");
        errs.extend(spread_constraint(c, &constraints[i + 1..], &p));
        errs.extend(label_keys::topology_spread_keys(c, &p, opts.old_violates_match_label_keys));
        if !opts.allow_invalid_topology_spread_selector {
            if let Some(selector) = c.member("labelSelector").filter(|l| !l.is_null()) {
                errs.extend(validate_selector(selector, &format!("{p}.labelSelector")));
            }
        }
    }
    errs
}

/// One constraint's own checks, `rest` the constraints after it.
fn spread_constraint(c: &Value, rest: &[Value], p: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let skew = c.member("maxSkew").and_then(Value::as_i64).unwrap_or(0);
    if skew <= 0 {
        errs.push(FieldError::invalid(&format!("{p}.maxSkew"), BadValue::Int(skew), NOT_POSITIVE));
    }
    let key = s(c, "topologyKey");
    if key.is_empty() {
        errs.push(FieldError::required(&format!("{p}.topologyKey"), "can not be empty"));
    }
    let action = s(c, "whenUnsatisfiable");
    if !SCHEDULE_ACTIONS.contains(&action) {
        errs.push(FieldError::not_supported(&format!("{p}.whenUnsatisfiable"), str_value(action), SCHEDULE_ACTIONS));
    }
    if rest.iter().any(|r| s(r, "topologyKey") == key && s(r, "whenUnsatisfiable") == action) {
        let pair = format!("{{{key}, {action}}}");
        errs.push(FieldError::duplicate(&format!("{p}.{{topologyKey, whenUnsatisfiable}}"), str_value(&pair)));
    }
    if let Some(min) = c.member("minDomains").and_then(Value::as_i64) {
        let mp = format!("{p}.minDomains");
        if min <= 0 {
            errs.push(FieldError::invalid(&mp, BadValue::Int(min), NOT_POSITIVE));
        }
        if action != "DoNotSchedule" {
            let detail = format!("can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}");
            errs.push(FieldError::invalid(&mp, BadValue::Int(min), detail));
        }
    }
    for key in ["nodeAffinityPolicy", "nodeTaintsPolicy"] {
        if present(c, key) && !NODE_INCLUSION_POLICIES.contains(&s(c, key)) {
            let bad = BadValue::Json(Value::from(s(c, key)).to_string());
            errs.push(FieldError::not_supported(&format!("{p}.{key}"), bad, NODE_INCLUSION_POLICIES));
        }
    }
    errs
}
