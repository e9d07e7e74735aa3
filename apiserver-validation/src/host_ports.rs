//! The host-port conflicts of a pod's containers, as kubernetes/kubernetes
//! `pkg/apis/core/validation/validation.go` checks them (release-1.36): `checkHostPortConflicts`
//! and `AccumulateUniqueHostPorts`.
//!
//! Each container port with a non-zero `hostPort` makes the key `<protocol>/<hostIP>/<hostPort>`
//! (`fmt.Sprintf("%s/%s/%d", …)`, on the defaulted port: the protocol `TCP` when unset, the host IP
//! as written, `""` when unset); a key already seen is `field.Duplicate` at the port's `hostPort`.
//! So the same port under another protocol or another host IP (even an empty one, which binds all
//! addresses) is no conflict.
//!
//! `validateContainers` checks all regular containers together, after each container's own checks.
//! `validateInitContainers` checks each init container on its own (they run one by one), sidecars
//! included, never against the regular containers, as `checkHostPortConflicts([]core.Container{ctr},
//! fldPath)`: the path it gives is the list's with index 0, whatever the init container's index
//! (`spec.initContainers[0].ports[1].hostPort` for the second init container's second port).
//! Ephemeral containers are not checked (their ports are forbidden).

use std::collections::HashSet;

use serde_json::Value;

use crate::field::FieldError;
use crate::field_formats::str_value;
use crate::lookup::Lookup;
use crate::zero_values::{list, s};

/// `AccumulateUniqueHostPorts`: the host ports of `containers`, the list at `path`, added to
/// `accumulator`; a duplicate of a key already there (from these containers or before) is an error.
pub fn accumulate_unique_host_ports(
    containers: &[Value],
    accumulator: &mut HashSet<String>,
    path: &str,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (ci, c) in containers.iter().enumerate() {
        for (pi, port) in list(c, "ports").iter().enumerate() {
            let host_port = port.member("hostPort").and_then(Value::as_i64).unwrap_or(0);
            if host_port == 0 {
                continue;
            }
            let key = format!("{}/{}/{host_port}", s(port, "protocol"), s(port, "hostIP"));
            if accumulator.contains(&key) {
                errs.push(FieldError::duplicate(&format!("{path}[{ci}].ports[{pi}].hostPort"), str_value(&key)));
            } else {
                accumulator.insert(key);
            }
        }
    }
    errs
}

/// `checkHostPortConflicts`: the host ports of `containers`, the list at `path`, each used once.
pub fn check_host_port_conflicts(containers: &[Value], path: &str) -> Vec<FieldError> {
    accumulate_unique_host_ports(containers, &mut HashSet::new(), path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(errs: Vec<FieldError>) -> Vec<String> {
        errs.iter().map(ToString::to_string).collect()
    }

    fn container(ports: Value) -> Value {
        json!({"name": "c", "ports": ports})
    }

    #[test]
    fn a_host_port_used_twice_is_a_duplicate_of_its_key() {
        let cs = [
            container(json!([{"containerPort": 80, "hostPort": 8080, "protocol": "TCP"}])),
            container(json!([
                {"containerPort": 81, "protocol": "TCP"},
                {"containerPort": 82, "hostPort": 8080, "protocol": "TCP"}
            ])),
        ];
        assert_eq!(
            texts(check_host_port_conflicts(&cs, "spec.containers")),
            [r#"spec.containers[1].ports[1].hostPort: Duplicate value: "TCP//8080""#]
        );
    }

    #[test]
    fn the_protocol_and_host_ip_are_part_of_the_key() {
        let cs = [container(json!([
            {"containerPort": 53, "hostPort": 53, "protocol": "TCP"},
            {"containerPort": 53, "hostPort": 53, "protocol": "UDP"},
            {"containerPort": 53, "hostPort": 53, "protocol": "SCTP"},
            {"containerPort": 53, "hostPort": 53, "protocol": "TCP", "hostIP": "192.0.2.1"},
            {"containerPort": 53, "hostPort": 53, "protocol": "TCP", "hostIP": "192.0.2.2"}
        ]))];
        assert!(check_host_port_conflicts(&cs, "spec.containers").is_empty());
        let cs = [container(json!([
            {"containerPort": 53, "hostPort": 53, "protocol": "UDP", "hostIP": "192.0.2.1"},
            {"containerPort": 54, "hostPort": 53, "protocol": "UDP", "hostIP": "192.0.2.1"},
            {"containerPort": 55, "hostPort": 53, "protocol": "UDP", "hostIP": "192.0.2.1"}
        ]))];
        assert_eq!(
            texts(check_host_port_conflicts(&cs, "spec.containers")),
            [
                r#"spec.containers[0].ports[1].hostPort: Duplicate value: "UDP/192.0.2.1/53""#,
                r#"spec.containers[0].ports[2].hostPort: Duplicate value: "UDP/192.0.2.1/53""#,
            ]
        );
    }

    /// A zero (or absent) host port is skipped; an out-of-range one still makes a key (its range
    /// is `validateContainerPorts`' error).
    #[test]
    fn only_non_zero_host_ports_count() {
        let cs = [
            container(json!([{"containerPort": 80, "hostPort": 0, "protocol": "TCP"}])),
            container(json!([{"containerPort": 80, "protocol": "TCP"}])),
            container(json!([{"containerPort": 80, "hostPort": -1, "protocol": "TCP"}])),
            container(json!([{"containerPort": 80, "hostPort": -1, "protocol": "TCP"}])),
        ];
        assert_eq!(
            texts(check_host_port_conflicts(&cs, "spec.containers")),
            [r#"spec.containers[3].ports[0].hostPort: Duplicate value: "TCP//-1""#]
        );
    }

    #[test]
    fn the_accumulator_carries_keys_across_calls() {
        let mut seen = HashSet::new();
        let first = [container(json!([{"containerPort": 80, "hostPort": 80, "protocol": "TCP"}]))];
        assert!(accumulate_unique_host_ports(&first, &mut seen, "a").is_empty());
        assert_eq!(
            texts(accumulate_unique_host_ports(&first, &mut seen, "b")),
            [r#"b[0].ports[0].hostPort: Duplicate value: "TCP//80""#]
        );
    }
}
