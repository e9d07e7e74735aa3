//! Security contexts as kubernetes/kubernetes `pkg/apis/core/validation/validation.go` validates
//! them (release-1.36): a container's `ValidateSecurityContext` (user and group IDs,
//! `ValidateProcMountType`, `allowPrivilegeEscalation: false` against `privileged` and
//! `CAP_SYS_ADMIN`), the pod's `validatePodSpecSecurityContext` (`fsGroup`, user and group IDs,
//! supplemental groups, `shareProcessNamespace` with `hostPID`, `validateSysctls` with
//! `ValidateHostSysctl` ([`crate::host_sysctls`], not held to on an UPDATE whose old spec already
//! broke it), `validateFSGroupChangePolicy`), both with `validateSeccompProfileField`,
//! `ValidateAppArmorProfileField` and `validateWindowsSecurityContextOptions`; and the pod-level
//! rules that read them: `validatePodHostNetworkDeps`, `validateHostUsers`, `validateOS`,
//! `validateLinux`, `validateWindows`; `validateSupplementalGroupsPolicy` (SupplementalGroupsPolicy
//! GA and locked on since 1.35) and `validateSELinuxChangePolicy` (SELinuxChangePolicy GA in 1.36,
//! SELinuxMount beta and off: only `Recursive` unless the old spec holds a policy).
//!
//! A v1 pod's `hostNetwork`, `hostPID`, `hostIPC`, `shareProcessNamespace` and `hostUsers` live
//! in the internal `PodSecurityContext`; Go names them by that path. `runAsNonRoot` with
//! `runAsUser: 0` is not refused here (the kubelet refuses it when it starts the container);
//! capabilities and SELinux options are free text; `privileged: true` is refused only by an
//! apiserver started with `--allow-privileged=false`, which clusters do not use, and is accepted
//! here, and so is a `hostProcess` pod (`validateWindowsHostProcessPod`'s "disallowed by cluster
//! policy" is that same flag).

use regex::Regex;
use serde_json::{Map, Value};

use crate::content;
use crate::field::{go_json_string, BadValue, FieldError};
use crate::field_formats::{inclusive_range, local_descending_path, str_value};
use crate::host_sysctls;
use crate::lookup::Lookup;
use crate::scheduling::PodOptions;
use crate::zero_values::{list, present, s};

/// `math.MaxInt32`, the largest user or group ID.
const MAX_ID: i64 = 2_147_483_647;
const SECCOMP_TYPES: &[&str] = &["Localhost", "RuntimeDefault", "Unconfined"];
const APPARMOR_TYPES: &[&str] = &["Localhost", "RuntimeDefault", "Unconfined"];
const PROC_MOUNT_TYPES: &[&str] = &["Default", "Unmasked"];
const FS_GROUP_CHANGE_POLICIES: &[&str] = &["Always", "OnRootMismatch"];
const OPERATING_SYSTEMS: &[&str] = &["linux", "windows"];
/// `SysctlContainSlashFmt` anchored, as `%s` prints the compiled regex.
const SYSCTL_REGEX: &str = r"^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$";
/// `SysctlMaxLength`.
const SYSCTL_MAX_LENGTH: usize = 253;
const WINDOWS_POD: &str = "cannot be set for a windows pod";

fn bool_at(v: &Value, key: &str) -> Option<bool> {
    v.member(key).and_then(Value::as_bool)
}

/// `check` of the member `key` of `sc` at `{path}.{key}`; nothing when the member is absent or
/// null, which `check` (a profile's or the Windows options' check) reports nothing for.
fn member(sc: &Value, key: &str, path: &str, check: fn(Option<&Value>, &str) -> Vec<FieldError>) -> Vec<FieldError> {
    if !present(sc, key) {
        return Vec::new();
    }
    check(sc.member(key), &format!("{path}.{key}"))
}

/// `IsValidUserID` / `IsValidGroupID`.
fn id(v: &Value, key: &str, path: &str) -> Vec<FieldError> {
    match v.member(key).and_then(Value::as_i64) {
        Some(n) if !(0..=MAX_ID).contains(&n) => {
            vec![FieldError::invalid(&format!("{path}.{key}"), BadValue::Int(n), inclusive_range(0, MAX_ID))]
        }
        _ => Vec::new(),
    }
}

/// A v1 object field printed as `json.Marshal` writes the internal Go struct: Go field names,
/// every field (nil pointers as `null`).
fn go_struct(v: Option<&Value>, fields: &[(&str, &str, GoField)]) -> Value {
    let Some(v) = v.filter(|v| !v.is_null()) else { return Value::Null };
    let mut out = Map::new();
    for (go, json, kind) in fields {
        let x = v.member(json).cloned().unwrap_or(Value::Null);
        let x = match kind {
            GoField::Plain => x,
            GoField::Str if x.is_null() => Value::String(String::new()),
            GoField::Str => x,
            GoField::Struct(inner) => go_struct(Some(&x), inner),
        };
        out.insert((*go).to_string(), x);
    }
    Value::Object(out)
}

/// How [`go_struct`] writes one field.
#[derive(Clone, Copy)]
enum GoField {
    /// A pointer, slice or map: as it is, `null` when absent.
    Plain,
    /// A Go string: `""` when absent.
    Str,
    /// A pointer to a struct.
    Struct(&'static [(&'static str, &'static str, GoField)]),
}

const CAPABILITIES: &[(&str, &str, GoField)] = &[("Add", "add", GoField::Plain), ("Drop", "drop", GoField::Plain)];
const SELINUX: &[(&str, &str, GoField)] = &[
    ("User", "user", GoField::Str),
    ("Role", "role", GoField::Str),
    ("Type", "type", GoField::Str),
    ("Level", "level", GoField::Str),
];
const WINDOWS: &[(&str, &str, GoField)] = &[
    ("GMSACredentialSpecName", "gmsaCredentialSpecName", GoField::Plain),
    ("GMSACredentialSpec", "gmsaCredentialSpec", GoField::Plain),
    ("RunAsUserName", "runAsUserName", GoField::Plain),
    ("HostProcess", "hostProcess", GoField::Plain),
];
const PROFILE: &[(&str, &str, GoField)] =
    &[("Type", "type", GoField::Str), ("LocalhostProfile", "localhostProfile", GoField::Plain)];
/// `core.SecurityContext`'s fields in Go order.
const SECURITY_CONTEXT: &[(&str, &str, GoField)] = &[
    ("Capabilities", "capabilities", GoField::Struct(CAPABILITIES)),
    ("Privileged", "privileged", GoField::Plain),
    ("SELinuxOptions", "seLinuxOptions", GoField::Struct(SELINUX)),
    ("WindowsOptions", "windowsOptions", GoField::Struct(WINDOWS)),
    ("RunAsUser", "runAsUser", GoField::Plain),
    ("RunAsGroup", "runAsGroup", GoField::Plain),
    ("RunAsNonRoot", "runAsNonRoot", GoField::Plain),
    ("ReadOnlyRootFilesystem", "readOnlyRootFilesystem", GoField::Plain),
    ("AllowPrivilegeEscalation", "allowPrivilegeEscalation", GoField::Plain),
    ("ProcMount", "procMount", GoField::Plain),
    ("SeccompProfile", "seccompProfile", GoField::Struct(PROFILE)),
    ("AppArmorProfile", "appArmorProfile", GoField::Struct(PROFILE)),
];

/// `validateSeccompProfileField`.
fn seccomp_profile(sp: Option<&Value>, path: &str) -> Vec<FieldError> {
    let Some(sp) = sp.filter(|v| !v.is_null()) else { return Vec::new() };
    let mut errs = Vec::new();
    let t = s(sp, "type");
    if t.is_empty() {
        errs.push(FieldError::required(&format!("{path}.type"), "type is required when seccompProfile is set"));
    } else if !SECCOMP_TYPES.contains(&t) {
        errs.push(FieldError::not_supported(&format!("{path}.type"), str_value(t), SECCOMP_TYPES));
    }
    let localhost = sp.member("localhostProfile").and_then(Value::as_str);
    if t == "Localhost" {
        match localhost {
            None => errs.push(FieldError::required(
                &format!("{path}.localhostProfile"),
                "must be set when seccomp type is Localhost",
            )),
            Some(l) => errs.extend(local_descending_path(l, &format!("{path}.localhostProfile"))),
        }
    } else if localhost.is_some() {
        errs.push(FieldError::invalid(
            &format!("{path}.localhostProfile"),
            BadValue::Json(go_struct(Some(sp), PROFILE).to_string()),
            "can only be set when seccomp type is Localhost",
        ));
    }
    errs
}

/// `ValidateAppArmorProfileField`.
fn apparmor_profile(profile: Option<&Value>, path: &str) -> Vec<FieldError> {
    let Some(profile) = profile.filter(|v| !v.is_null()) else { return Vec::new() };
    let mut errs = Vec::new();
    let lp = format!("{path}.localhostProfile");
    let localhost = profile.member("localhostProfile").and_then(Value::as_str);
    match s(profile, "type") {
        "Localhost" => match localhost {
            None => errs.push(FieldError::required(&lp, "must be set when AppArmor type is Localhost")),
            Some(l) => {
                if l.trim() != l {
                    errs.push(FieldError::invalid(&lp, str_value(l), "must not be padded with whitespace"));
                } else if l.is_empty() {
                    errs.push(FieldError::required(&lp, "must be set when AppArmor type is Localhost"));
                }
                if l.len() > 4095 {
                    errs.push(FieldError::too_long(&lp, 4095));
                }
            }
        },
        "RuntimeDefault" | "Unconfined" => {
            if let Some(l) = localhost {
                errs.push(FieldError::invalid(&lp, str_value(l), "can only be set when AppArmor type is Localhost"));
            }
        }
        "" => errs.push(FieldError::required(&format!("{path}.type"), "type is required when appArmorProfile is set")),
        other => errs.push(FieldError::not_supported(&format!("{path}.type"), str_value(other), APPARMOR_TYPES)),
    }
    errs
}

/// `maxRunAsUserNameDomainLength`: a domain of this many bytes or more is refused.
const MAX_RUN_AS_USER_NAME_DOMAIN_LENGTH: usize = 256;
/// `validNetBiosRegex`: 1 to 15 characters, none of `\ / : * ? " < > |`, not starting with a dot.
const NETBIOS_DOMAIN_REGEX: &str = r#"^[^\\/:\*\?"<>|\.][^\\/:\*\?"<>|]{0,14}$"#;
/// `validWindowsUserDomainDNSRegex` (`dnsSubdomainFormat` of `dnsLabelFormat`): dot-separated
/// labels of letters of either case, digits and inner dashes, each of at most 63 characters.
const DNS_DOMAIN_REGEX: &str =
    r"^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$";

/// Whether a `runAsUserName`'s domain matches `validNetBiosRegex` or
/// `validWindowsUserDomainDNSRegex` (Go's and Rust's character classes both match whole
/// characters, and `$` only the end of the text).
fn windows_domain_matches(domain: &str) -> bool {
    [NETBIOS_DOMAIN_REGEX, DNS_DOMAIN_REGEX].iter().any(|re| Regex::new(re).is_ok_and(|re| re.is_match(domain)))
}

/// `validateWindowsSecurityContextOptions`: the credential spec's name a DNS subdomain, its
/// content and the user name not empty, the user name without control characters and with at
/// most one backslash; the domain before the backslash, when there is one, under 256 bytes and
/// a NetBIOS or DNS name; the user part's length and characters.
fn windows_options(w: Option<&Value>, path: &str) -> Vec<FieldError> {
    let Some(w) = w.filter(|v| !v.is_null()) else { return Vec::new() };
    let mut errs = Vec::new();
    if let Some(name) = w.member("gmsaCredentialSpecName").and_then(Value::as_str) {
        for m in content::is_dns1123_subdomain(name) {
            errs.push(FieldError::invalid(&format!("{path}.gmsaCredentialSpecName"), str_value(name), m));
        }
    }
    if let Some(spec) = w.member("gmsaCredentialSpec").and_then(Value::as_str) {
        let p = format!("{path}.gmsaCredentialSpec");
        if spec.is_empty() {
            errs.push(FieldError::invalid(&p, str_value(spec), "gmsaCredentialSpec cannot be an empty string"));
        } else if spec.len() > 64 * 1024 {
            errs.push(FieldError::invalid(&p, str_value(spec), "gmsaCredentialSpec size must be under 64 KiB"));
        }
    }
    if let Some(user) = w.member("runAsUserName").and_then(Value::as_str) {
        let p = format!("{path}.runAsUserName");
        let parts: Vec<&str> = user.split('\\').collect();
        if user.is_empty() {
            errs.push(FieldError::invalid(&p, str_value(user), "runAsUserName cannot be an empty string"));
        } else if user.chars().any(|c| c.is_ascii_control()) {
            errs.push(FieldError::invalid(&p, str_value(user), "runAsUserName cannot contain control characters"));
        } else if parts.len() > 2 {
            errs.push(FieldError::invalid(&p, str_value(user), "runAsUserName cannot contain more than one backslash"));
        } else {
            let (domain, name) = match parts[..] {
                [domain, name] => (Some(domain), name),
                _ => (None, parts[0]),
            };
            if domain.is_some_and(|d| d.len() >= MAX_RUN_AS_USER_NAME_DOMAIN_LENGTH) {
                errs.push(FieldError::invalid(
                    &p,
                    str_value(user),
                    format!(
                        "runAsUserName's Domain length must be under {MAX_RUN_AS_USER_NAME_DOMAIN_LENGTH} characters"
                    ),
                ));
            }
            if domain.is_some_and(|d| !windows_domain_matches(d)) {
                errs.push(FieldError::invalid(
                    &p,
                    str_value(user),
                    "runAsUserName's Domain doesn't match the NetBios nor the DNS format",
                ));
            }
            if name.is_empty() {
                errs.push(FieldError::invalid(&p, str_value(user), "runAsUserName's User cannot be empty"));
            } else if name.len() > 104 {
                errs.push(FieldError::invalid(
                    &p,
                    str_value(user),
                    "runAsUserName's User length must not be longer than 104 characters",
                ));
            }
            if !name.is_empty() && name.chars().all(|c| c == '.' || c == ' ') {
                errs.push(FieldError::invalid(
                    &p,
                    str_value(user),
                    "runAsUserName's User cannot contain only periods or spaces",
                ));
            }
            if name.chars().any(|c| "\"/\\:;|=,+*?<>@[]".contains(c)) {
                errs.push(FieldError::invalid(
                    &p,
                    str_value(user),
                    r#"runAsUserName's User cannot contain the following characters: "/\:;|=,+*?<>@[]"#,
                ));
            }
        }
    }
    errs
}

/// `ValidateSecurityContext` of a container at `path` (`…containers[i].securityContext`);
/// `host_users` is the pod's `hostUsers` (true when unset).
pub fn validate_security_context(sc: Option<&Value>, path: &str, host_users: bool) -> Vec<FieldError> {
    let Some(sc) = sc.filter(|v| !v.is_null()) else { return Vec::new() };
    let mut errs = id(sc, "runAsUser", path);
    errs.extend(id(sc, "runAsGroup", path));
    if let Some(pm) = sc.member("procMount").and_then(Value::as_str) {
        let p = format!("{path}.procMount");
        if !PROC_MOUNT_TYPES.contains(&pm) {
            errs.push(FieldError::not_supported(&p, str_value(pm), PROC_MOUNT_TYPES));
        }
        if host_users && pm == "Unmasked" {
            errs.push(FieldError::invalid(&p, str_value(pm), "`hostUsers` must be false to use `Unmasked`"));
        }
    }
    errs.extend(member(sc, "seccompProfile", path, seccomp_profile));
    if bool_at(sc, "allowPrivilegeEscalation") == Some(false) {
        let whole = || BadValue::Json(go_struct(Some(sc), SECURITY_CONTEXT).to_string());
        if bool_at(sc, "privileged") == Some(true) {
            errs.push(FieldError::invalid(
                path,
                whole(),
                "cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
            ));
        }
        let adds = sc.at("/capabilities/add").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        for cap in adds {
            if cap.as_str() == Some("CAP_SYS_ADMIN") {
                errs.push(FieldError::invalid(
                    path,
                    whole(),
                    "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN",
                ));
            }
        }
    }
    errs.extend(member(sc, "windowsOptions", path, windows_options));
    errs.extend(member(sc, "appArmorProfile", path, apparmor_profile));
    errs
}

/// `validateSysctls` with `ValidateHostSysctl` (a namespaced sysctl refused in a pod sharing
/// that namespace with the host, unless `AllowNamespacedSysctlsForHostNetAndHostIPC`).
fn sysctls(pod_sc: &Value, spec: &Value, opts: PodOptions, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let re = Regex::new(SYSCTL_REGEX).ok();
    let mut names: Vec<&str> = Vec::new();
    for (i, sysctl) in list(pod_sc, "sysctls").iter().enumerate() {
        let p = format!("{path}[{i}].name");
        let name = s(sysctl, "name");
        let valid = name.len() <= SYSCTL_MAX_LENGTH && re.as_ref().is_some_and(|re| re.is_match(name));
        if name.is_empty() {
            errs.push(FieldError::required(&p, ""));
        } else if !valid {
            errs.push(FieldError::invalid(
                &p,
                str_value(name),
                format!("must have at most {SYSCTL_MAX_LENGTH} characters and match regex {SYSCTL_REGEX}"),
            ));
        } else if names.contains(&name) {
            errs.push(FieldError::duplicate(&p, str_value(name)));
        }
        if !opts.allow_namespaced_sysctls_for_host_namespaces {
            if let Some(detail) = host_sysctls::host_sysctl(name, spec) {
                errs.push(FieldError::invalid(&p, str_value(name), detail));
            }
        }
        names.push(name);
    }
    errs
}

/// `validatePodSpecSecurityContext` of a v1 pod spec at `path` (`spec`): the pod's
/// `securityContext` and the host namespaces the internal type holds with it.
pub fn validate_pod_security_context(spec: &Value, path: &str, opts: PodOptions) -> Vec<FieldError> {
    let empty = Value::Object(Map::new());
    let sc = spec.member("securityContext").filter(|v| !v.is_null()).unwrap_or(&empty);
    let scp = format!("{path}.securityContext");
    let mut errs = id(sc, "fsGroup", &scp);
    errs.extend(id(sc, "runAsUser", &scp));
    errs.extend(id(sc, "runAsGroup", &scp));
    for (g, gid) in list(sc, "supplementalGroups").iter().enumerate() {
        if let Some(n) = gid.as_i64().filter(|n| !(0..=MAX_ID).contains(n)) {
            errs.push(FieldError::invalid(
                &format!("{scp}.supplementalGroups[{g}]"),
                BadValue::Int(n),
                inclusive_range(0, MAX_ID),
            ));
        }
    }
    if bool_at(spec, "shareProcessNamespace") == Some(true) && bool_at(spec, "hostPID") == Some(true) {
        errs.push(FieldError::invalid(
            &format!("{scp}.shareProcessNamespace"),
            BadValue::Json("true".into()),
            "ShareProcessNamespace and HostPID cannot both be enabled",
        ));
    }
    if !list(sc, "sysctls").is_empty() {
        errs.extend(sysctls(sc, spec, opts, &format!("{scp}.sysctls")));
    }
    if let Some(policy) = sc.member("fsGroupChangePolicy").and_then(Value::as_str) {
        if !FS_GROUP_CHANGE_POLICIES.contains(&policy) {
            errs.push(FieldError::not_supported(
                &format!("{scp}.fsGroupChangePolicy"),
                str_value(policy),
                FS_GROUP_CHANGE_POLICIES,
            ));
        }
    }
    errs.extend(member(sc, "seccompProfile", &scp, seccomp_profile));
    errs.extend(member(sc, "windowsOptions", &scp, windows_options));
    errs.extend(member(sc, "appArmorProfile", &scp, apparmor_profile));
    if let Some(policy) = sc.member("supplementalGroupsPolicy").and_then(Value::as_str) {
        if !SUPPLEMENTAL_GROUPS_POLICIES.contains(&policy) {
            errs.push(FieldError::not_supported(
                &format!("{scp}.supplementalGroupsPolicy"),
                BadValue::Json(go_json_string(policy)),
                SUPPLEMENTAL_GROUPS_POLICIES,
            ));
        }
    }
    if let Some(policy) = sc.member("seLinuxChangePolicy").and_then(Value::as_str) {
        let allowed: &[&str] =
            if opts.allow_any_selinux_change_policy { SELINUX_CHANGE_POLICIES } else { &["Recursive"] };
        if !allowed.contains(&policy) {
            errs.push(FieldError::not_supported(
                &format!("{scp}.seLinuxChangePolicy"),
                BadValue::Json(go_json_string(policy)),
                allowed,
            ));
        }
    }
    errs
}

/// `validateWindowsHostProcessPod`: a container's `hostProcess` agrees with the pod's where both
/// are set; once any container is a HostProcess one (its own or the pod's value), all are, and the
/// pod runs in the host's network. Containers are visited as `VisitContainersWithPath` does: init
/// containers, containers, ephemeral containers.
pub fn windows_host_process(spec: &Value, path: &str) -> Vec<FieldError> {
    let host_process =
        |sc: Option<&Value>| sc.and_then(|sc| sc.at("/windowsOptions/hostProcess")).and_then(Value::as_bool);
    let pod = host_process(spec.member("securityContext"));
    let mut errs = Vec::new();
    let (mut containers, mut host_process_containers) = (0, 0);
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        for (i, c) in spec.member(list).and_then(Value::as_array).map_or(&[][..], Vec::as_slice).iter().enumerate() {
            containers += 1;
            let own = host_process(c.member("securityContext"));
            if let (Some(p), Some(o)) = (pod, own) {
                if p != o {
                    errs.push(FieldError::invalid(
                        &format!("{path}.{list}[{i}].securityContext.windowsOptions.hostProcess"),
                        BadValue::Json(o.to_string()),
                        format!("pod hostProcess value must be identical if both are specified, was {p}"),
                    ));
                }
            }
            if own.or(pod) == Some(true) {
                host_process_containers += 1;
            }
        }
    }
    if host_process_containers > 0 {
        if host_process_containers != containers {
            errs.push(FieldError::invalid(
                path,
                BadValue::Str(String::new()),
                "If pod contains any hostProcess containers then all containers must be HostProcess containers",
            ));
        }
        if bool_at(spec, "hostNetwork") != Some(true) {
            errs.push(FieldError::invalid(
                &format!("{path}.hostNetwork"),
                BadValue::Json("false".into()),
                "hostNetwork must be true if pod contains any hostProcess containers",
            ));
        }
    }
    errs
}

/// `validSupplementalGroupsPolicies`, as `sets.List` sorts them.
const SUPPLEMENTAL_GROUPS_POLICIES: &[&str] = &["Merge", "Strict"];
/// `validSELinuxChangePolicies`, as `sets.List` sorts them.
const SELINUX_CHANGE_POLICIES: &[&str] = &["MountOption", "Recursive"];

/// The pod's `hostUsers` (true when unset), which a container's `procMount` reads.
pub fn host_users(spec: &Value) -> bool {
    bool_at(spec, "hostUsers") != Some(false)
}

/// `validatePodHostNetworkDeps`: under `hostNetwork`, a host port equal to the container port
/// (in a pod; in a template, 0 is allowed too).
pub fn host_network_deps(spec: &Value, path: &str, resource_is_pod: bool) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if bool_at(spec, "hostNetwork") != Some(true) {
        return errs;
    }
    for (i, c) in list(spec, "containers").iter().enumerate() {
        for (j, port) in list(c, "ports").iter().enumerate() {
            let hp = port.member("hostPort").and_then(Value::as_i64).unwrap_or(0);
            let cp = port.member("containerPort").and_then(Value::as_i64).unwrap_or(0);
            if (resource_is_pod || hp != 0) && hp != cp {
                errs.push(FieldError::invalid(
                    &format!("{path}.containers[{i}].ports[{j}].hostPort"),
                    BadValue::Int(hp),
                    "must match `containerPort` when `hostNetwork` is true",
                ));
            }
        }
    }
    errs
}

/// `validateHostUsers`: a pod in its own user namespace shares no other namespace with the host
/// (Go names two of the paths with capitals).
pub fn validate_host_users(spec: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if host_users(spec) {
        return errs;
    }
    for (key, named) in [("hostNetwork", "hostNetwork"), ("hostPID", "HostPID"), ("hostIPC", "HostIPC")] {
        if bool_at(spec, key) == Some(true) {
            errs.push(FieldError::forbidden(&format!("{path}.{named}"), "when `pod.Spec.HostUsers` is false"));
        }
    }
    errs
}

/// Every container of the spec with its path, in `VisitContainersWithPath`'s order.
fn containers_with_path<'a>(spec: &'a Value, path: &str) -> Vec<(&'a Value, String)> {
    ["initContainers", "containers", "ephemeralContainers"]
        .iter()
        .flat_map(|kind| list(spec, kind).iter().enumerate().map(move |(i, c)| (c, format!("{path}.{kind}[{i}]"))))
        .collect()
}

/// `validateOS`, then `validateLinux` or `validateWindows`.
pub fn validate_os(spec: &Value, path: &str) -> Vec<FieldError> {
    let Some(os) = spec.member("os").filter(|v| !v.is_null()) else { return Vec::new() };
    let name = s(os, "name");
    let op = format!("{path}.os");
    if name.is_empty() {
        return vec![FieldError::required(&format!("{op}.name"), "cannot be empty")];
    }
    if !OPERATING_SYSTEMS.contains(&name) {
        return vec![FieldError::not_supported(&op, str_value(name), OPERATING_SYSTEMS)];
    }
    let mut errs = Vec::new();
    let empty = Value::Object(Map::new());
    let sc = spec.member("securityContext").filter(|v| !v.is_null()).unwrap_or(&empty);
    let scp = format!("{path}.securityContext");
    if name == "linux" {
        if present(sc, "windowsOptions") {
            errs.push(FieldError::forbidden(
                &format!("{scp}.windowsOptions"),
                "windows options cannot be set for a linux pod",
            ));
        }
        for (c, cp) in containers_with_path(spec, path) {
            if c.member("securityContext").is_some_and(|sc| present(sc, "windowsOptions")) {
                errs.push(FieldError::forbidden(
                    &format!("{cp}.securityContext.windowsOptions"),
                    "windows options cannot be set for a linux pod",
                ));
            }
        }
        return errs;
    }
    for key in ["appArmorProfile", "seLinuxOptions"] {
        if present(sc, key) {
            errs.push(FieldError::forbidden(&format!("{scp}.{key}"), WINDOWS_POD));
        }
    }
    if present(spec, "hostUsers") {
        errs.push(FieldError::forbidden(&format!("{path}.hostUsers"), WINDOWS_POD));
    }
    for key in ["hostPID", "hostIPC"] {
        if bool_at(spec, key) == Some(true) {
            errs.push(FieldError::forbidden(&format!("{path}.{key}"), WINDOWS_POD));
        }
    }
    for key in ["seccompProfile", "fsGroup", "fsGroupChangePolicy"] {
        if present(sc, key) {
            errs.push(FieldError::forbidden(&format!("{scp}.{key}"), WINDOWS_POD));
        }
    }
    if !list(sc, "sysctls").is_empty() {
        errs.push(FieldError::forbidden(&format!("{scp}.sysctls"), WINDOWS_POD));
    }
    if present(spec, "shareProcessNamespace") {
        errs.push(FieldError::forbidden(&format!("{path}.shareProcessNamespace"), WINDOWS_POD));
    }
    for key in ["runAsUser", "runAsGroup", "supplementalGroups", "supplementalGroupsPolicy", "seLinuxChangePolicy"] {
        if present(sc, key) {
            errs.push(FieldError::forbidden(&format!("{scp}.{key}"), WINDOWS_POD));
        }
    }
    for (c, cp) in containers_with_path(spec, path) {
        let Some(csc) = c.member("securityContext").filter(|v| !v.is_null()) else { continue };
        for key in [
            "appArmorProfile",
            "seLinuxOptions",
            "seccompProfile",
            "capabilities",
            "readOnlyRootFilesystem",
            "privileged",
            "allowPrivilegeEscalation",
            "procMount",
            "runAsUser",
            "runAsGroup",
        ] {
            if present(csc, key) {
                errs.push(FieldError::forbidden(&format!("{cp}.securityContext.{key}"), WINDOWS_POD));
            }
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
    fn container_ids_are_between_0_and_max_int32() {
        let p = "spec.containers[0].securityContext";
        let good = json!({"runAsUser": 0, "runAsGroup": 2147483647, "runAsNonRoot": true});
        assert!(validate_security_context(Some(&good), p, true).is_empty());
        let bad = json!({"runAsUser": -1, "runAsGroup": 2147483648_i64});
        assert_eq!(
            texts(&validate_security_context(Some(&bad), p, true)),
            [
                "spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive",
                "spec.containers[0].securityContext.runAsGroup: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive",
            ]
        );
    }

    #[test]
    fn no_privilege_escalation_contradicts_privileged() {
        let p = "c.securityContext";
        let good =
            json!({"allowPrivilegeEscalation": false, "privileged": false, "capabilities": {"add": ["NET_ADMIN"]}});
        assert!(validate_security_context(Some(&good), p, true).is_empty());
        let bad = json!({"allowPrivilegeEscalation": false, "privileged": true});
        let errs = validate_security_context(Some(&bad), p, true);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].detail, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true");
        let text = errs[0].to_string();
        assert!(
            text.starts_with("c.securityContext: Invalid value: {\"Capabilities\":null,\"Privileged\":true,"),
            "{text}"
        );
        let sys_admin = json!({"allowPrivilegeEscalation": false, "capabilities": {"add": ["CAP_SYS_ADMIN"]}});
        assert_eq!(validate_security_context(Some(&sys_admin), p, true).len(), 1);
    }

    #[test]
    fn profiles_and_proc_mount() {
        let p = "c.securityContext";
        let good = json!({"seccompProfile": {"type": "Localhost", "localhostProfile": "profiles/a.json"},
                          "appArmorProfile": {"type": "RuntimeDefault"}, "procMount": "Default"});
        assert!(validate_security_context(Some(&good), p, true).is_empty());
        let bad = json!({"seccompProfile": {"type": "Localhost"}, "appArmorProfile": {"type": "Strict"},
                         "procMount": "Unmasked"});
        assert_eq!(
            texts(&validate_security_context(Some(&bad), p, true)),
            [
                "c.securityContext.procMount: Invalid value: \"Unmasked\": `hostUsers` must be false to use `Unmasked`",
                "c.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost",
                "c.securityContext.appArmorProfile.type: Unsupported value: \"Strict\": supported values: \"Localhost\", \"RuntimeDefault\", \"Unconfined\"",
            ]
        );
        assert!(validate_security_context(Some(&json!({"procMount": "Unmasked"})), p, false).is_empty());
    }

    #[test]
    fn pod_context_and_sysctls() {
        let good = json!({"securityContext": {"fsGroup": 2000, "supplementalGroups": [1, 2],
                          "sysctls": [{"name": "net.ipv4.ip_local_port_range", "value": "1 2"}, {"name": "kernel/shm_rmid_forced", "value": "1"}]}});
        assert!(validate_pod_security_context(&good, "spec", PodOptions::default()).is_empty());
        let bad = json!({"hostNetwork": true, "securityContext": {"fsGroup": -5, "supplementalGroups": [-1],
                         "sysctls": [{"name": "net.core.somaxconn", "value": "1"}, {"name": "Bad!", "value": "1"},
                                     {"name": "net.core.somaxconn", "value": "2"}],
                         "fsGroupChangePolicy": "Never"}});
        let errs = texts(&validate_pod_security_context(&bad, "spec", PodOptions::default()));
        assert_eq!(
            errs[0],
            "spec.securityContext.fsGroup: Invalid value: -5: must be between 0 and 2147483647, inclusive"
        );
        assert_eq!(
            errs[1],
            "spec.securityContext.supplementalGroups[0]: Invalid value: -1: must be between 0 and 2147483647, inclusive"
        );
        assert_eq!(
            errs[2],
            "spec.securityContext.sysctls[0].name: Invalid value: \"net.core.somaxconn\": may not be specified when 'hostNetwork' is true"
        );
        assert!(errs[3].starts_with("spec.securityContext.sysctls[1].name: Invalid value: \"Bad!\": must have at most 253 characters and match regex ^("));
        assert_eq!(errs[4], "spec.securityContext.sysctls[2].name: Duplicate value: \"net.core.somaxconn\"");
        assert_eq!(
            errs[6],
            "spec.securityContext.fsGroupChangePolicy: Unsupported value: \"Never\": supported values: \"Always\", \"OnRootMismatch\""
        );
    }

    #[test]
    fn windows_options() {
        let p = "c.securityContext";
        let good = json!({"windowsOptions": {"gmsaCredentialSpecName": "webapp-gmsa", "runAsUserName": "NT AUTHORITY\\NETWORK SERVICE"}});
        assert!(validate_security_context(Some(&good), p, true).is_empty());
        let bad = json!({"windowsOptions": {"gmsaCredentialSpec": "", "runAsUserName": "a\\b\\c"}});
        assert_eq!(
            texts(&validate_security_context(Some(&bad), p, true)),
            [
                "c.securityContext.windowsOptions.gmsaCredentialSpec: Invalid value: \"\": gmsaCredentialSpec cannot be an empty string",
                "c.securityContext.windowsOptions.runAsUserName: Invalid value: \"a\\\\b\\\\c\": runAsUserName cannot contain more than one backslash",
            ]
        );
        let user = json!({"windowsOptions": {"runAsUserName": "dom\\us:er"}});
        assert_eq!(
            texts(&validate_security_context(Some(&user), p, true)),
            ["c.securityContext.windowsOptions.runAsUserName: Invalid value: \"dom\\\\us:er\": runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[]"]
        );
    }

    /// `validateWindowsSecurityContextOptions`' domain checks: under 256 bytes, and a NetBIOS name
    /// (up to 15 characters, few refused) or a DNS name; both before the user part's checks.
    #[test]
    fn windows_user_name_domains() {
        let errs = |user: &str| {
            let sc = json!({"windowsOptions": {"runAsUserName": user}});
            texts(&validate_security_context(Some(&sc), "c", true))
        };
        let label = "a".repeat(63);
        let dns_255 = [label.as_str(); 4].join(".");
        for ok in [
            "NT AUTHORITY\\NETWORK SERVICE",
            "my_domain\\u",
            "0123456789abcdef\\u",
            "Corp.\\u",
            &format!("{dns_255}\\u"),
        ] {
            assert!(errs(ok).is_empty(), "{ok}");
        }
        let bad = |user: &str, detail: &str| {
            format!("c.windowsOptions.runAsUserName: Invalid value: {}: {detail}", go_json_string(user))
        };
        let format = "runAsUserName's Domain doesn't match the NetBios nor the DNS format";
        let length = "runAsUserName's Domain length must be under 256 characters";
        for user in ["\\u", ".corp\\u", "a*b\\u", "0123456789_abcdef\\u"] {
            assert_eq!(errs(user), [bad(user, format)]);
        }
        let long = format!("a.{dns_255}\\u");
        assert_eq!(errs(&long), [bad(&long, length)]);
        let longer = format!("{}\\u", "a".repeat(256));
        assert_eq!(errs(&longer), [bad(&longer, length), bad(&longer, format)]);
        assert_eq!(errs("a|b\\"), [bad("a|b\\", format), bad("a|b\\", "runAsUserName's User cannot be empty")]);
    }

    #[test]
    fn host_users_and_os() {
        let spec = json!({"hostUsers": false, "hostPID": true, "containers": []});
        assert_eq!(
            texts(&validate_host_users(&spec, "spec")),
            ["spec.HostPID: Forbidden: when `pod.Spec.HostUsers` is false"]
        );
        let windows =
            json!({"os": {"name": "windows"}, "containers": [{"name": "a", "securityContext": {"privileged": false}}]});
        assert_eq!(
            texts(&validate_os(&windows, "spec")),
            ["spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod"]
        );
        assert!(validate_os(&json!({"os": {"name": "linux"}}), "spec").is_empty());
    }

    #[test]
    fn group_and_selinux_change_policies() {
        let spec = |sc: Value| json!({"securityContext": sc});
        let create = PodOptions::default();
        let ok = spec(json!({"supplementalGroupsPolicy": "Strict", "seLinuxChangePolicy": "Recursive"}));
        assert!(validate_pod_security_context(&ok, "spec", create).is_empty());
        let bad = spec(json!({"supplementalGroupsPolicy": "merge", "seLinuxChangePolicy": "MountOption"}));
        assert_eq!(
            texts(&validate_pod_security_context(&bad, "spec", create)),
            [
                "spec.securityContext.supplementalGroupsPolicy: Unsupported value: \"merge\": supported values: \"Merge\", \"Strict\"",
                "spec.securityContext.seLinuxChangePolicy: Unsupported value: \"MountOption\": supported values: \"Recursive\"",
            ]
        );
        // An UPDATE of a spec that held a policy may hold MountOption.
        let old = spec(json!({"seLinuxChangePolicy": "Recursive"}));
        let update = PodOptions::from_old_spec(&old);
        let mount = spec(json!({"seLinuxChangePolicy": "MountOption"}));
        assert!(validate_pod_security_context(&mount, "spec", update).is_empty());
        let odd = spec(json!({"seLinuxChangePolicy": "Relabel"}));
        assert_eq!(
            texts(&validate_pod_security_context(&odd, "spec", update)),
            ["spec.securityContext.seLinuxChangePolicy: Unsupported value: \"Relabel\": supported values: \"MountOption\", \"Recursive\""]
        );
    }

    #[test]
    fn host_process_pods() {
        let hp = |v: bool| json!({"windowsOptions": {"hostProcess": v}});
        let all = json!({"hostNetwork": true, "securityContext": hp(true), "containers": [{"name": "a"}, {"name": "b", "securityContext": hp(true)}]});
        assert!(windows_host_process(&all, "spec").is_empty());
        let none = json!({"securityContext": hp(false), "containers": [{"name": "a", "securityContext": hp(false)}]});
        assert!(windows_host_process(&none, "spec").is_empty());
        let mixed = json!({"securityContext": hp(true), "initContainers": [{"name": "i", "securityContext": hp(false)}], "containers": [{"name": "a"}]});
        assert_eq!(
            texts(&windows_host_process(&mixed, "spec")),
            [
                "spec.initContainers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true",
                "spec: Invalid value: \"\": If pod contains any hostProcess containers then all containers must be HostProcess containers",
                "spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers",
            ]
        );
    }

    /// `AllowNamespacedSysctlsForHostNetAndHostIPC`: no sysctl is held to `ValidateHostSysctl`,
    /// the others checks stay.
    #[test]
    fn host_sysctls_ratchet() {
        let spec = json!({"hostIPC": true, "securityContext": {"sysctls": [
            {"name": "kernel.shm_rmid_forced", "value": "1"}, {"name": "kernel.shm_rmid_forced", "value": "1"}]}});
        let strict = texts(&validate_pod_security_context(&spec, "spec", PodOptions::default()));
        assert_eq!(strict.len(), 3);
        let relaxed = PodOptions { allow_namespaced_sysctls_for_host_namespaces: true, ..PodOptions::default() };
        assert_eq!(
            texts(&validate_pod_security_context(&spec, "spec", relaxed)),
            ["spec.securityContext.sysctls[1].name: Duplicate value: \"kernel.shm_rmid_forced\""]
        );
        assert_eq!(PodOptions::from_old_spec(&spec), relaxed);
    }
}
