//! The fields the registry drops from a pod spec before validation because their feature gate is
//! off by default in 1.36, as kubernetes/kubernetes `pkg/api/pod/util.go` drops them
//! (`DropDisabledPodFields` from a Pod's `PrepareForCreate` and `PrepareForUpdate`,
//! `DropDisabledTemplateFields` from a workload's): a projected volume's `clusterTrustBundle`
//! (`dropDisabledClusterTrustBundleProjection`, the ClusterTrustBundleProjection gate beta and off
//! since 1.33) and `podCertificate` (`dropDisabledPodCertificateProjection`, the
//! PodCertificateRequest gate beta and off since 1.35) sources, each kept when the old spec of an
//! UPDATE holds one already (`clusterTrustBundleProjectionInUse`, `podCertificateProjectionInUse`);
//! and a container's `lifecycle.stopSignal` (`dropContainerStopSignals`, the ContainerStopSignals
//! gate alpha and off since 1.33; a `lifecycle` left with neither hook goes too), kept when a
//! container of the old spec has one (`containerStopSignalsInUse`); and the pod's `schedulingGroup`
//! (`dropDisabledSchedulingGroup`, the GenericWorkload gate alpha and off since 1.35; the field was
//! `workloadRef` in 1.35), kept when the old spec has one.
//! The gates' defaults are those of 1.36 in the generated `versioned_feature_list.yaml` of a 1.37
//! development copy (`pkg/features/kube_features.go`'s entries up to 1.36); the drops are read in a
//! 1.36 development copy of `util.go`. Every other field `dropDisabledFields` drops is behind a gate
//! on by default in 1.36.

use serde_json::Value;

use crate::lookup::member_of;
use crate::lookup::Lookup;
use crate::zero_values::list;

/// The projected source the ClusterTrustBundleProjection gate guards.
pub(crate) const CLUSTER_TRUST_BUNDLE: &str = "clusterTrustBundle";
/// The projected source the PodCertificateRequest gate guards.
pub(crate) const POD_CERTIFICATE: &str = "podCertificate";
/// The pod spec's field the GenericWorkload gate guards.
pub(crate) const SCHEDULING_GROUP: &str = "schedulingGroup";

/// Whether a pod spec sets `schedulingGroup` (the old spec's `SchedulingGroup != nil`).
pub(crate) fn scheduling_group_in_use(spec: &Value) -> bool {
    spec.member(SCHEDULING_GROUP).is_some_and(|v| !v.is_null())
}

/// Whether a pod spec's volumes hold a projection with a `source` source (`*ProjectionInUse`).
pub(crate) fn projection_in_use(spec: &Value, source: &str) -> bool {
    list(spec, "volumes").iter().any(|v| {
        v.at("/projected/sources")
            .and_then(Value::as_array)
            .is_some_and(|sources| sources.iter().any(|s| s.member(source).is_some_and(|v| !v.is_null())))
    })
}

/// The container lists of a pod spec (`VisitContainers` with `AllContainers`).
pub(crate) const CONTAINER_LISTS: [&str; 3] = ["initContainers", "containers", "ephemeralContainers"];

/// Whether a container of a pod spec sets `lifecycle.stopSignal` (`containerStopSignalsInUse`).
pub(crate) fn stop_signals_in_use(spec: &Value) -> bool {
    CONTAINER_LISTS
        .iter()
        .flat_map(|l| list(spec, l))
        .any(|c| c.at("/lifecycle/stopSignal").is_some_and(|v| !v.is_null()))
}

/// Whether a pod spec holds a field the registry may drop.
pub(crate) fn holds_gated(spec: &Value) -> bool {
    [CLUSTER_TRUST_BUNDLE, POD_CERTIFICATE].iter().any(|source| projection_in_use(spec, source))
        || stop_signals_in_use(spec)
        || scheduling_group_in_use(spec)
}

/// `dropContainerStopSignals` without the gate: every container's `lifecycle.stopSignal` removed,
/// and a `lifecycle` then left with neither `postStart` nor `preStop` with it.
fn drop_stop_signals(spec: &mut Value) -> bool {
    let mut dropped = false;
    for name in CONTAINER_LISTS {
        let containers = spec.get_mut(name).and_then(Value::as_array_mut).into_iter().flatten();
        for container in containers.filter_map(Value::as_object_mut) {
            let Some(lifecycle) = container.get_mut("lifecycle").and_then(Value::as_object_mut) else { continue };
            if member_of(lifecycle, "stopSignal").is_none_or(Value::is_null) {
                continue;
            }
            lifecycle.remove("stopSignal");
            dropped = true;
            if ["postStart", "preStop"].iter().all(|h| member_of(lifecycle, h).is_none_or(Value::is_null)) {
                container.remove("lifecycle");
            }
        }
    }
    dropped
}

/// The `dropDisabled*Projection`s, `dropContainerStopSignals` and `dropDisabledSchedulingGroup` on
/// a pod spec: every projection's gated source, every stop signal and the scheduling group removed,
/// unless the old spec of an UPDATE (`old`) holds one of that kind. Whether anything was removed.
pub(crate) fn drop_disabled(spec: &mut Value, old: Option<&Value>) -> bool {
    let mut dropped = false;
    for source in [CLUSTER_TRUST_BUNDLE, POD_CERTIFICATE] {
        if old.is_some_and(|o| projection_in_use(o, source)) {
            continue;
        }
        let volumes = spec.get_mut("volumes").and_then(Value::as_array_mut).into_iter().flatten();
        for sources in volumes.filter_map(|v| v.pointer_mut("/projected/sources").and_then(Value::as_array_mut)) {
            for s in sources.iter_mut().filter_map(Value::as_object_mut) {
                dropped |= s.remove(source).is_some();
            }
        }
    }
    if !old.is_some_and(stop_signals_in_use) {
        dropped |= drop_stop_signals(spec);
    }
    if !old.is_some_and(scheduling_group_in_use) {
        dropped |= spec.as_object_mut().and_then(|s| s.remove(SCHEDULING_GROUP)).is_some();
    }
    dropped
}

/// The container status lists of a pod status.
const CONTAINER_STATUS_LISTS: [&str; 3] = ["initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"];

/// The status fields `dropDisabledPodStatusFields` drops while their gate is off by default in
/// 1.36 (it runs from `DropDisabledPodFields`, which `podStatusStrategy.PrepareForUpdate` calls
/// last): `nodeAllocatableResourceClaimStatuses` (DRANodeAllocatableResources, alpha and off since
/// 1.36; kept when the old status's list is not empty) and every container status's
/// `volumeMounts[*].volumeStatus` (ImageVolumeWithDigest, alpha and off since 1.35; kept when one of
/// the old status has one). Every other status field it drops is behind a gate on by default.
pub(crate) fn drop_disabled_status(status: &mut serde_json::Map<String, Value>, old_status: Option<&Value>) {
    let old_status = old_status.unwrap_or(&Value::Null);
    if list(old_status, "nodeAllocatableResourceClaimStatuses").is_empty() {
        status.remove("nodeAllocatableResourceClaimStatuses");
    }
    let volume_status_in_use = CONTAINER_STATUS_LISTS
        .iter()
        .flat_map(|l| list(old_status, l))
        .any(|c| list(c, "volumeMounts").iter().any(|m| m.member("volumeStatus").is_some_and(|v| !v.is_null())));
    if volume_status_in_use {
        return;
    }
    for name in CONTAINER_STATUS_LISTS {
        let statuses = status.get_mut(name).and_then(Value::as_array_mut).into_iter().flatten();
        for mounts in statuses.filter_map(|c| c.get_mut("volumeMounts").and_then(Value::as_array_mut)) {
            for mount in mounts.iter_mut().filter_map(Value::as_object_mut) {
                mount.remove("volumeStatus");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The registry drops a written bundle or pod certificate from a Pod's spec and a workload's
    /// template, keeps each where the old spec of an UPDATE holds one of its kind, and copies
    /// nothing where there is none.
    #[test]
    fn gated_sources_are_dropped_unless_the_old_spec_holds_one() {
        let bundle = json!({"signerName": "example.com/ca", "path": "ca.pem"});
        let certificate =
            json!({"signerName": "example.com/pods", "keyType": "ED25519", "credentialBundlePath": "c.pem"});
        let spec = json!({"containers": [{"name": "c", "image": "i"}], "volumes": [
            {"name": "ca", "projected": {"sources": [{"clusterTrustBundle": bundle}, {"configMap": {"name": "m"}}]}},
            {"name": "cert", "projected": {"sources": [{"podCertificate": certificate}]}},
            {"name": "e", "emptyDir": {}}]});
        let pod = json!({"kind": "Pod", "spec": spec});
        let kept = crate::drop_disabled_fields("", "Pod", &pod, None).expect("the sources are dropped");
        assert_eq!(kept["spec"]["volumes"][0]["projected"]["sources"], json!([{}, {"configMap": {"name": "m"}}]));
        assert_eq!(kept["spec"]["volumes"][1]["projected"]["sources"], json!([{}]));
        assert_eq!(kept["spec"]["volumes"][2], pod["spec"]["volumes"][2]);
        assert_eq!(crate::drop_disabled_fields("", "Pod", &pod, Some(&pod)), None);
        // An old spec with a bundle only keeps the bundles; the certificate is still dropped.
        let mut old = pod.clone();
        old["spec"]["volumes"] = json!([pod["spec"]["volumes"][0].clone()]);
        let kept = crate::drop_disabled_fields("", "Pod", &pod, Some(&old)).expect("the certificate is dropped");
        assert!(projection_in_use(&kept["spec"], CLUSTER_TRUST_BUNDLE));
        assert!(!projection_in_use(&kept["spec"], POD_CERTIFICATE));
        let deployment = json!({"kind": "Deployment", "spec": {"template": {"spec": pod["spec"].clone()}}});
        let kept = crate::drop_disabled_fields("apps", "Deployment", &deployment, None).expect("dropped");
        assert!(!holds_gated(&kept["spec"]["template"]["spec"]));
        let plain = json!({"kind": "Pod", "spec": {"containers": [{"name": "c", "image": "i"}]}});
        assert_eq!(crate::drop_disabled_fields("", "Pod", &plain, None), None);
        assert_eq!(crate::drop_disabled_fields("", "ConfigMap", &json!({"data": {}}), None), None);
    }

    /// A container's stop signal is dropped, with a lifecycle it leaves empty; kept where a
    /// container of the old spec has one.
    #[test]
    fn stop_signals_are_dropped_unless_the_old_spec_holds_one() {
        let pod = json!({"kind": "Pod", "spec": {
            "initContainers": [{"name": "i", "image": "i", "lifecycle": {"stopSignal": "SIGTERM"}}],
            "containers": [{"name": "c", "image": "i", "lifecycle": {"stopSignal": "SIGUSR1", "preStop": {"sleep": {"seconds": 1}}}},
                           {"name": "d", "image": "i", "lifecycle": {"preStop": {"sleep": {"seconds": 1}}}}]}});
        let kept = crate::drop_disabled_fields("", "Pod", &pod, None).expect("the signals are dropped");
        assert_eq!(kept["spec"]["initContainers"][0], json!({"name": "i", "image": "i"}));
        assert_eq!(kept["spec"]["containers"][0]["lifecycle"], json!({"preStop": {"sleep": {"seconds": 1}}}));
        assert_eq!(kept["spec"]["containers"][1], pod["spec"]["containers"][1]);
        assert_eq!(crate::drop_disabled_fields("", "Pod", &pod, Some(&pod)), None);
        let hooks_only = json!({"kind": "Pod", "spec": {"containers": [pod["spec"]["containers"][1].clone()]}});
        assert_eq!(crate::drop_disabled_fields("", "Pod", &hooks_only, None), None);
    }

    /// On a status UPDATE the node-allocatable claim statuses and the volume mounts' image volume
    /// statuses are dropped, each unless the old status holds some.
    #[test]
    fn gated_status_fields_are_dropped_unless_the_old_status_holds_some() {
        let status = json!({"phase": "Running", "nodeAllocatableResourceClaimStatuses": [{"resourceClaimName": "c"}],
            "containerStatuses": [{"name": "c", "volumeMounts": [{"name": "v", "mountPath": "/v",
                "volumeStatus": {"image": {"imageRef": "r@sha256:0"}}}]}]});
        let mut kept = status.as_object().unwrap().clone();
        drop_disabled_status(&mut kept, None);
        assert_eq!(
            Value::Object(kept),
            json!({"phase": "Running", "containerStatuses": [{"name": "c", "volumeMounts": [{"name": "v", "mountPath": "/v"}]}]})
        );
        let mut kept = status.as_object().unwrap().clone();
        drop_disabled_status(&mut kept, Some(&status));
        assert_eq!(Value::Object(kept), status);
    }

    /// A pod's scheduling group is dropped, of a Pod and of a template, unless the old spec has one.
    #[test]
    fn a_scheduling_group_is_dropped_unless_the_old_spec_has_one() {
        let spec = json!({"containers": [{"name": "c", "image": "i"}], "schedulingGroup": {"podGroupName": "g"}});
        let pod = json!({"kind": "Pod", "spec": spec});
        let kept = crate::drop_disabled_fields("", "Pod", &pod, None).expect("the group is dropped");
        assert_eq!(kept["spec"], json!({"containers": [{"name": "c", "image": "i"}]}));
        assert_eq!(crate::drop_disabled_fields("", "Pod", &pod, Some(&pod)), None);
        let job = json!({"kind": "Job", "spec": {"template": {"spec": spec}}});
        let kept = crate::drop_disabled_fields("batch", "Job", &job, None).expect("dropped");
        assert!(!holds_gated(&kept["spec"]["template"]["spec"]));
    }
}
