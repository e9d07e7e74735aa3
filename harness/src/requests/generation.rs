//! Which objects the registry gives `metadata.generation: 1` on CREATE. There is no generic step
//! that sets it: each kind's strategy does in its `PrepareForCreate` (called by `rest.BeforeCreate`,
//! `registry/rest/create.go`), and most do not, so a ConfigMap, a Service or a Secret is stored
//! without one. Custom resources always get it (apiextensions-apiserver
//! `pkg/registry/customresource/strategy.go` PrepareForCreate: `accessor.SetGeneration(1)`).

use serde_json::Value;

/// The built-in kinds whose strategy sets `Generation = 1` in `PrepareForCreate`, as
/// (group, kind, strategy file under kubernetes `pkg/registry/`). Every other built-in kind is
/// created without a generation. The HorizontalPodAutoscaler sets it only behind the
/// `HPAGeneration` feature gate, not counted here.
const SETS_GENERATION: &[(&str, &str, &str)] = &[
    ("", "Pod", "core/pod/strategy.go"),
    ("", "ReplicationController", "core/replicationcontroller/strategy.go"),
    ("apps", "Deployment", "apps/deployment/strategy.go"),
    ("apps", "ReplicaSet", "apps/replicaset/strategy.go"),
    ("apps", "StatefulSet", "apps/statefulset/strategy.go"),
    ("apps", "DaemonSet", "apps/daemonset/strategy.go"),
    ("batch", "Job", "batch/job/strategy.go"),
    ("batch", "CronJob", "batch/cronjob/strategy.go"),
    ("networking.k8s.io", "Ingress", "networking/ingress/strategy.go"),
    ("networking.k8s.io", "NetworkPolicy", "networking/networkpolicy/strategy.go"),
    ("policy", "PodDisruptionBudget", "policy/poddisruptionbudget/strategy.go"),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema", "flowcontrol/flowschema/strategy.go"),
    (
        "flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration",
        "flowcontrol/prioritylevelconfiguration/strategy.go",
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        "admissionregistration/mutatingwebhookconfiguration/strategy.go",
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        "admissionregistration/validatingwebhookconfiguration/strategy.go",
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        "admissionregistration/validatingadmissionpolicy/strategy.go",
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
        "admissionregistration/validatingadmissionpolicybinding/strategy.go",
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicy",
        "admissionregistration/mutatingadmissionpolicy/strategy.go",
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicyBinding",
        "admissionregistration/mutatingadmissionpolicybinding/strategy.go",
    ),
    // apiextensions-apiserver pkg/registry/customresourcedefinition/strategy.go
    ("apiextensions.k8s.io", "CustomResourceDefinition", "(apiextensions) customresourcedefinition/strategy.go"),
    ("resource.k8s.io", "DeviceClass", "resource/deviceclass/strategy.go"),
    ("resource.k8s.io", "ResourceSlice", "resource/resourceslice/strategy.go"),
    ("resource.k8s.io", "DeviceTaintRule", "resource/devicetaintrule/strategy.go"),
];

/// The group of an `apiVersion` (`""` for the core group's `v1`).
fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// Does the registry set `metadata.generation` to 1 when it creates `object` (read by its
/// apiVersion and kind)? Built-in kinds as [`SETS_GENERATION`] lists; any kind the targeted
/// version does not build in is a custom resource, which always gets it.
pub(crate) fn set_on_create(object: &Value) -> bool {
    let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or_default();
    let group = group_of(api_version);
    let built_in = crate::kinds::RESOURCES.iter().any(|k| k.group == group && k.kind == kind);
    !built_in || SETS_GENERATION.iter().any(|(g, k, _)| *g == group && *k == kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_listed_kind_is_a_built_in_of_the_targeted_version() {
        for (group, kind, _) in SETS_GENERATION {
            assert!(crate::kinds::RESOURCES.iter().any(|k| k.group == *group && k.kind == *kind), "{group} {kind}");
        }
    }

    #[test]
    fn only_kinds_whose_strategy_sets_it_and_custom_resources_get_a_generation() {
        let of = |api_version: &str, kind: &str| set_on_create(&json!({"apiVersion": api_version, "kind": kind}));
        assert!(of("v1", "Pod"));
        assert!(of("apps/v1", "Deployment"));
        assert!(of("batch/v1", "CronJob"));
        assert!(of("networking.k8s.io/v1", "Ingress"));
        assert!(of("stable.example.com/v1", "CronTab"), "a custom resource");
        assert!(!of("v1", "ConfigMap"));
        assert!(!of("v1", "Service"));
        assert!(!of("v1", "PersistentVolumeClaim"));
        assert!(!of("v1", "Namespace"));
        assert!(!of("rbac.authorization.k8s.io/v1", "Role"));
        // The same kind name in another group is not the built-in.
        assert!(!of("networking.k8s.io/v1", "IngressClass"));
    }
}
