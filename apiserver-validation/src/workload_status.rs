//! An UPDATE of the workloads' `/status` as the registry handles it (release-1.36): the kind's
//! status strategy's `PrepareForUpdate` puts back what a status request may not change
//! ([`prepare_for_update`]), then its `ValidateUpdate` runs ([`validate_status_update`], after the
//! metadata's own update rules, which `BeforeUpdate`'s `validateCommonFields` reports first).
//!
//! - `pkg/registry/apps/deployment/strategy.go` `deploymentStatusStrategy`: the old spec and labels
//!   put back; `pkg/apis/apps/validation/validation.go` `ValidateDeploymentStatusUpdate`
//!   (`ValidateDeploymentStatus`, a decremented `collisionCount`).
//! - `pkg/registry/apps/replicaset/strategy.go` `rsStatusStrategy`: the old spec;
//!   `ValidateReplicaSetStatusUpdate` (`ValidateReplicaSetStatus`).
//! - `pkg/registry/apps/statefulset/strategy.go` `statefulSetStatusStrategy`: the old spec;
//!   `ValidateStatefulSetStatusUpdate` (`ValidateStatefulSetStatus`, a decremented `collisionCount`).
//! - `pkg/registry/apps/daemonset/strategy.go` `daemonSetStatusStrategy`: the old spec;
//!   `ValidateDaemonSetStatusUpdate` (`validateDaemonSetStatus`, a decremented `collisionCount`).
//! - `pkg/registry/batch/cronjob/strategy.go` `cronJobStatusStrategy`: the old spec; its
//!   `ValidateUpdate` returns no error.
//! - `pkg/registry/batch/job/strategy.go` `jobStatusStrategy`: the old spec; its validation is
//!   [`crate::job_status`].
//!
//! Not modelled: `dropDisabledStatusFields` (every feature gate is taken as enabled) and
//! `status.terminatingReplicas` of Deployments and ReplicaSets.

use serde_json::{Map, Value};

use crate::field::{BadValue, FieldError};
use crate::lookup::Lookup;

/// `ValidateNonnegativeField`'s message.
pub const NEGATIVE: &str = "must be greater than or equal to 0";

/// The message of a replica count above `status.replicas`.
pub const ABOVE_REPLICAS: &str = "cannot be greater than status.replicas";

/// The message of a decremented `status.collisionCount`.
pub const DECREMENTED: &str = "cannot be decremented";

/// Whether the status strategy of `group`/`kind` is modelled here.
pub fn modelled(group: &str, kind: &str) -> bool {
    !reset_fields(group, kind).is_empty()
}

/// What the status strategy's `PrepareForUpdate` puts back from the stored object, as JSON
/// pointers (`GetResetFields` where the kind declares them). Empty for a kind not modelled here.
pub fn reset_fields(group: &str, kind: &str) -> &'static [&'static str] {
    match (group, kind) {
        ("apps", "Deployment") => &["/spec", "/metadata/labels"],
        ("apps", "ReplicaSet" | "StatefulSet" | "DaemonSet") | ("batch", "Job" | "CronJob") => &["/spec"],
        _ => &[],
    }
}

/// Puts `old`'s value at `pointer` (a member of the root or of `metadata`) into `new`, or removes
/// it from `new` where `old` has none.
fn put_back(new: &mut Value, old: &Value, pointer: &str) {
    let (parent, key) = match pointer.rsplit_once('/') {
        Some(("", key)) => (None, key),
        Some((parent, key)) => (Some(parent.trim_start_matches('/')), key),
        None => return,
    };
    let Some(root) = new.as_object_mut() else { return };
    let target = match parent {
        None => root,
        Some(p) => match root.entry(p).or_insert_with(|| Value::Object(Map::new())).as_object_mut() {
            Some(m) => m,
            None => return,
        },
    };
    match old.at(pointer) {
        Some(v) => target.insert(key.into(), v.clone()),
        None => target.remove(key),
    };
}

/// The status strategy's `PrepareForUpdate`: each of [`reset_fields`] taken from `old`.
pub fn prepare_for_update(group: &str, kind: &str, new: &mut Value, old: &Value) {
    for pointer in reset_fields(group, kind) {
        put_back(new, old, pointer);
    }
}

/// A status count as the decoder leaves it: absent or null is 0.
fn count(status: &Value, key: &str) -> i64 {
    status.member(key).and_then(Value::as_i64).unwrap_or(0)
}

/// A pointer field of the status: `None` when absent or null.
fn optional(status: &Value, key: &str) -> Option<i64> {
    status.member(key).and_then(Value::as_i64)
}

/// `ValidateNonnegativeField` on each of `keys` (0 when absent), then on each of `optional_keys`
/// that is set.
fn nonnegative(status: &Value, keys: &[&str], optional_keys: &[&str]) -> Vec<FieldError> {
    let present = keys.iter().map(|k| (*k, count(status, k)));
    let set = optional_keys.iter().filter_map(|k| optional(status, k).map(|v| (*k, v)));
    present
        .chain(set)
        .filter(|(_, v)| *v < 0)
        .map(|(k, v)| FieldError::invalid(&format!("status.{k}"), BadValue::Int(v), NEGATIVE))
        .collect()
}

/// Each of `keys` above `bound`'s count, with `message`.
fn not_above(status: &Value, keys: &[&str], bound: &str, message: &str) -> Vec<FieldError> {
    let limit = count(status, bound);
    keys.iter()
        .map(|k| (*k, count(status, k)))
        .filter(|(_, v)| *v > limit)
        .map(|(k, v)| FieldError::invalid(&format!("status.{k}"), BadValue::Int(v), message))
        .collect()
}

/// `IsDecremented` on `status.collisionCount`: set before and now lower or unset. The bad value is
/// the new count, 0 when unset.
fn collision_decremented(new: &Value, old: &Value) -> Vec<FieldError> {
    let (now, before) = (optional(new, "collisionCount"), optional(old, "collisionCount"));
    let decremented = match (now, before) {
        (None, Some(_)) => true,
        (Some(n), Some(b)) => n < b,
        _ => false,
    };
    if !decremented {
        return Vec::new();
    }
    vec![FieldError::invalid("status.collisionCount", BadValue::Int(now.unwrap_or(0)), DECREMENTED)]
}

/// `ValidateDeploymentStatus`.
fn deployment_status(status: &Value) -> Vec<FieldError> {
    let counts = [
        "observedGeneration",
        "replicas",
        "updatedReplicas",
        "readyReplicas",
        "availableReplicas",
        "unavailableReplicas",
    ];
    let mut errs = nonnegative(status, &counts, &["collisionCount"]);
    errs.extend(not_above(
        status,
        &["updatedReplicas", "readyReplicas", "availableReplicas"],
        "replicas",
        ABOVE_REPLICAS,
    ));
    errs.extend(not_above(status, &["availableReplicas"], "readyReplicas", "cannot be greater than readyReplicas"));
    errs
}

/// `ValidateReplicaSetStatus`.
fn replica_set_status(status: &Value) -> Vec<FieldError> {
    let counts = ["replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"];
    let mut errs = nonnegative(status, &counts, &[]);
    let bounded = ["fullyLabeledReplicas", "readyReplicas", "availableReplicas"];
    errs.extend(not_above(status, &bounded, "replicas", ABOVE_REPLICAS));
    errs.extend(not_above(status, &["availableReplicas"], "readyReplicas", "cannot be greater than readyReplicas"));
    errs
}

/// `ValidateStatefulSetStatus`.
fn stateful_set_status(status: &Value) -> Vec<FieldError> {
    let counts = ["replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"];
    let mut errs = nonnegative(status, &counts, &["observedGeneration", "collisionCount"]);
    let bounded = ["readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"];
    errs.extend(not_above(status, &bounded, "replicas", ABOVE_REPLICAS));
    errs.extend(not_above(
        status,
        &["availableReplicas"],
        "readyReplicas",
        "cannot be greater than status.readyReplicas",
    ));
    errs
}

/// `validateDaemonSetStatus`.
fn daemon_set_status(status: &Value) -> Vec<FieldError> {
    let counts = [
        "currentNumberScheduled",
        "numberMisscheduled",
        "desiredNumberScheduled",
        "numberReady",
        "observedGeneration",
        "updatedNumberScheduled",
        "numberAvailable",
        "numberUnavailable",
    ];
    nonnegative(status, &counts, &["collisionCount"])
}

/// The kind's status strategy's `ValidateUpdate` without the metadata's update rules (the
/// caller's), on objects already reset by [`prepare_for_update`]; nothing for a CronJob (a Job's
/// is [`crate::job_status::validate_job_status_update`]).
pub fn validate_status_update(group: &str, kind: &str, new: &Value, old: &Value) -> Vec<FieldError> {
    let null = Value::Null;
    let status = new.member("status").unwrap_or(&null);
    let old_status = old.member("status").unwrap_or(&null);
    let mut errs = match (group, kind) {
        ("apps", "Deployment") => deployment_status(status),
        ("apps", "ReplicaSet") => return replica_set_status(status),
        ("apps", "StatefulSet") => stateful_set_status(status),
        ("apps", "DaemonSet") => daemon_set_status(status),
        _ => return Vec::new(),
    };
    errs.extend(collision_decremented(status, old_status));
    errs
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn workload(labels: Value, spec: Value, status: Value) -> Value {
        json!({"metadata": {"name": "web", "labels": labels}, "spec": spec, "status": status})
    }

    fn texts(errs: &[FieldError]) -> Vec<String> {
        errs.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_deployment_status_request_keeps_the_old_spec_and_labels() {
        let old = workload(json!({"app": "web"}), json!({"replicas": 2}), json!({}));
        let mut new = workload(json!({"app": "x"}), json!({"replicas": 5}), json!({"replicas": 2}));
        prepare_for_update("apps", "Deployment", &mut new, &old);
        assert_eq!(new, workload(json!({"app": "web"}), json!({"replicas": 2}), json!({"replicas": 2})));
        let mut unlabelled = json!({"metadata": {"name": "web"}, "spec": {}});
        let mut new = workload(json!({"a": "b"}), json!({}), json!({}));
        prepare_for_update("apps", "Deployment", &mut new, &unlabelled);
        assert!(new["metadata"].get("labels").is_none(), "{new}");
        // A ReplicaSet keeps the labels the request writes.
        unlabelled["spec"] = json!({"replicas": 1});
        let mut new = workload(json!({"a": "b"}), json!({"replicas": 3}), json!({}));
        prepare_for_update("apps", "ReplicaSet", &mut new, &unlabelled);
        assert_eq!((&new["metadata"]["labels"], &new["spec"]), (&json!({"a": "b"}), &json!({"replicas": 1})));
    }

    #[test]
    fn negative_and_excess_counts_are_refused_in_go_order() {
        let status = json!({"replicas": 1, "readyReplicas": 2, "availableReplicas": -1, "updatedReplicas": 3});
        let new = workload(json!({}), json!({}), status);
        assert_eq!(
            texts(&validate_status_update("apps", "Deployment", &new, &new)),
            [
                "status.availableReplicas: Invalid value: -1: must be greater than or equal to 0",
                "status.updatedReplicas: Invalid value: 3: cannot be greater than status.replicas",
                "status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas",
            ]
        );
        let sts = workload(json!({}), json!({}), json!({"replicas": 2, "readyReplicas": 1, "availableReplicas": 2}));
        assert_eq!(
            texts(&validate_status_update("apps", "StatefulSet", &sts, &sts)),
            ["status.availableReplicas: Invalid value: 2: cannot be greater than status.readyReplicas"]
        );
        let ds = workload(json!({}), json!({}), json!({"numberReady": -2, "collisionCount": -1}));
        assert_eq!(
            texts(&validate_status_update("apps", "DaemonSet", &ds, &ds)),
            [
                "status.numberReady: Invalid value: -2: must be greater than or equal to 0",
                "status.collisionCount: Invalid value: -1: must be greater than or equal to 0",
            ]
        );
    }

    #[test]
    fn a_collision_count_may_not_go_down_or_away() {
        let old = workload(json!({}), json!({}), json!({"collisionCount": 2}));
        for (kind, status, want) in [
            ("Deployment", json!({"collisionCount": 1}), Some(1)),
            ("StatefulSet", json!({}), Some(0)),
            ("DaemonSet", json!({"collisionCount": 3}), None),
            ("ReplicaSet", json!({}), None),
        ] {
            let new = workload(json!({}), json!({}), status);
            let errs = validate_status_update("apps", kind, &new, &old);
            let expected: Vec<String> = want
                .map(|v| format!("status.collisionCount: Invalid value: {v}: cannot be decremented"))
                .into_iter()
                .collect();
            assert_eq!(texts(&errs), expected, "{kind}");
        }
    }

    #[test]
    fn a_cron_job_status_request_keeps_the_spec_and_is_not_otherwise_refused() {
        let old = workload(json!({}), json!({"schedule": "* * * * *"}), json!({}));
        let mut new = workload(json!({}), json!({"schedule": "bad"}), json!({"active": "anything"}));
        prepare_for_update("batch", "CronJob", &mut new, &old);
        assert_eq!(new["spec"], old["spec"]);
        assert!(validate_status_update("batch", "CronJob", &new, &old).is_empty());
        assert!(modelled("batch", "CronJob") && modelled("batch", "Job") && !modelled("", "Pod"));
    }
}
