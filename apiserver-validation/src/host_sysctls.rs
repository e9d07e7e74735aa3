//! `ValidateHostSysctl` of kubernetes/kubernetes `pkg/apis/core/validation/validation.go`
//! (release-1.36), with `utilsysctl.GetNamespace` (`component-helpers/node/util/sysctl`): a
//! namespaced sysctl is refused in a pod that shares that namespace with the host. The pod spec
//! validates its sysctls with it, and an UPDATE whose old spec already breaks it
//! (`GetValidationOptionsFromPodSpecAndMeta`'s `AllowNamespacedSysctlsForHostNetAndHostIPC`) is
//! not held to it.

use serde_json::Value;

use crate::lookup::Lookup;
use crate::zero_values::{list, s};

/// The namespace `utilsysctl.GetNamespace` gives a sysctl (`net` or `ipc`), after
/// `NormalizeName` (a name whose first separator is `/` has its `/` and `.` swapped).
fn sysctl_namespace(name: &str) -> Option<&'static str> {
    let normalized: String = match name.find(['.', '/']) {
        Some(i) if name.as_bytes()[i] == b'/' => name
            .chars()
            .map(|c| {
                if c == '/' {
                    '.'
                } else if c == '.' {
                    '/'
                } else {
                    c
                }
            })
            .collect(),
        _ => name.to_string(),
    };
    if normalized == "kernel.sem" {
        return Some("ipc");
    }
    if ["kernel.shm", "kernel.msg", "fs.mqueue."].iter().any(|p| normalized.starts_with(p)) {
        return Some("ipc");
    }
    normalized.starts_with("net.").then_some("net")
}

/// `ValidateHostSysctl`'s detail for the sysctl `name` in the v1 pod spec `spec` (whose
/// `hostNetwork` and `hostIPC` the internal `PodSecurityContext` holds), or `None`.
pub(crate) fn host_sysctl(name: &str, spec: &Value) -> Option<&'static str> {
    let on = |key: &str| spec.member(key).and_then(Value::as_bool) == Some(true);
    match sysctl_namespace(name) {
        Some("net") if on("hostNetwork") => Some("may not be specified when 'hostNetwork' is true"),
        Some("ipc") if on("hostIPC") => Some("may not be specified when 'hostIPC' is true"),
        _ => None,
    }
}

/// Whether a sysctl of the (old) pod spec `spec` fails [`host_sysctl`]: then
/// `AllowNamespacedSysctlsForHostNetAndHostIPC` is set for the UPDATE, and no sysctl of the new
/// spec is held to it.
pub(crate) fn any_host_sysctl(spec: &Value) -> bool {
    let sc = spec.member("securityContext").unwrap_or(&Value::Null);
    list(sc, "sysctls").iter().any(|sysctl| host_sysctl(s(sysctl, "name"), spec).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn namespaced_sysctls_under_host_namespaces() {
        let spec = json!({"hostNetwork": true, "hostIPC": true});
        assert_eq!(host_sysctl("net.core.somaxconn", &spec), Some("may not be specified when 'hostNetwork' is true"));
        assert_eq!(host_sysctl("net/ipv4/ip_forward", &spec), Some("may not be specified when 'hostNetwork' is true"));
        assert_eq!(host_sysctl("kernel.shm_rmid_forced", &spec), Some("may not be specified when 'hostIPC' is true"));
        assert_eq!(host_sysctl("fs.mqueue.msg_max", &spec), Some("may not be specified when 'hostIPC' is true"));
        assert_eq!(host_sysctl("kernel.sem", &spec), Some("may not be specified when 'hostIPC' is true"));
        assert_eq!(host_sysctl("kernel.semx", &spec), None);
        assert_eq!(host_sysctl("net.core.somaxconn", &json!({"hostIPC": true})), None);
        let old = |host_network: bool| {
            json!({"hostNetwork": host_network, "securityContext": {"sysctls": [
                {"name": "kernel.msgmax", "value": "1"}, {"name": "net.core.somaxconn", "value": "1"}]}})
        };
        assert!(any_host_sysctl(&old(true)));
        assert!(!any_host_sysctl(&old(false)));
        assert!(!any_host_sysctl(&json!({"hostNetwork": true})));
    }
}
