//! What the objects of each built-in kind hold besides `apiVersion`, `kind` and `metadata`: a valid,
//! ordinary object of that kind (what `kubectl create` would send), and for kinds with a `/status`
//! subresource a status as their controller writes it. Pod specs are left empty (`{}`) here: the
//! object variants fill them (`objects::pod_spec`).
//!
//! Every fixture decodes as its k8s-openapi type without a field dropped or added (a test holds it
//! to that), so field names and value types are the kind's own.

use serde_json::{json, Value};

use crate::admission::Gvk;

const CSR_PEM_BASE64: &str = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlJQlZEQ0IvQUlCQURBWU1SWXdGQVlEVlFRRERBMWtaVzF2TG1WNFlXMXdiR1V3V1RBVEJnY3Foa2pPUFFJQgotLS0tLUVORCBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K";
const CA_PEM: &str = "-----BEGIN CERTIFICATE-----\nMIIBdzCCAR2gAwIBAgIUQ29uZm9ybWFuY2VUZXN0Q0EwCgYIKoZIzj0EAwIwEjEQ\n-----END CERTIFICATE-----\n";

fn template() -> Value {
    json!({"metadata": {"labels": {"app": "web"}}, "spec": {}})
}

fn selector() -> Value {
    json!({"matchLabels": {"app": "web"}})
}

/// The fields of an ordinary object of `gvk` other than apiVersion, kind and metadata; `None` for a
/// kind the suite has no fixture of (custom resources).
pub(crate) fn body(gvk: &Gvk) -> Option<Value> {
    let (g, v, k) = (gvk.group.as_str(), gvk.version.as_str(), gvk.kind.as_str());
    Some(match (g, v, k) {
        ("", "v1", "Pod") => json!({"spec": {}}),
        ("", "v1", "PodTemplate") => json!({"template": template()}),
        ("", "v1", "ReplicationController") => {
            json!({"spec": {"replicas": 2, "selector": {"app": "web"}, "template": template()}})
        }
        ("", "v1", "Binding") => json!({"target": {"apiVersion": "v1", "kind": "Node", "name": "node-1"}}),
        ("", "v1", "ConfigMap") => json!({"data": {"config.yaml": "a: 1\n", "empty": ""}}),
        ("", "v1", "Secret") => json!({"type": "Opaque", "data": {"token": "c2VjcmV0"}}),
        ("", "v1", "Endpoints") => json!({"subsets": [{
            "addresses": [{"ip": "10.0.0.12", "targetRef": {"kind": "Pod", "name": "web-1", "namespace": "conformance-test"}}],
            "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]
        }]}),
        ("", "v1", "Event") => json!({
            "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "web-1", "namespace": "conformance-test"},
            "reason": "Started", "message": "Started container app", "type": "Normal",
            "source": {"component": "kubelet", "host": "node-1"}, "count": 1,
            "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:00:00Z"
        }),
        ("", "v1", "LimitRange") => json!({"spec": {"limits": [{
            "type": "Container", "default": {"cpu": "500m", "memory": "256Mi"},
            "defaultRequest": {"cpu": "100m", "memory": "64Mi"}, "max": {"cpu": "2", "memory": "1Gi"}
        }]}}),
        ("", "v1", "Namespace") => json!({"spec": {"finalizers": ["kubernetes"]}}),
        ("", "v1", "Node") => json!({"spec": {
            "podCIDR": "10.244.1.0/24", "podCIDRs": ["10.244.1.0/24"], "providerID": "example://node-1",
            "taints": [{"key": "dedicated", "value": "web", "effect": "NoSchedule"}]
        }}),
        ("", "v1", "PersistentVolumeClaim") => json!({"spec": {
            "accessModes": ["ReadWriteOnce"], "storageClassName": "standard", "volumeMode": "Filesystem",
            "resources": {"requests": {"storage": "1Gi"}}
        }}),
        ("", "v1", "PersistentVolume") => json!({"spec": {
            "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "standard", "volumeMode": "Filesystem",
            "csi": {"driver": "csi.example.com", "volumeHandle": "vol-0001", "fsType": "ext4"}
        }}),
        ("", "v1", "ResourceQuota") => json!({"spec": {
            "hard": {"pods": "10", "requests.cpu": "4", "requests.memory": "8Gi", "limits.cpu": "8"}
        }}),
        ("", "v1", "ServiceAccount") => json!({"automountServiceAccountToken": false}),
        ("", "v1", "Service") => json!({"spec": {
            "type": "ClusterIP", "selector": {"app": "web"},
            "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}]
        }}),
        ("apiextensions.k8s.io", "v1", "CustomResourceDefinition") => json!({"spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object", "properties": {"spec": {"type": "object", "properties": {"size": {"type": "integer"}}}}
            }}}]
        }}),
        ("apiregistration.k8s.io", "v1", "APIService") => json!({"spec": {
            "group": "metrics.example.com", "version": "v1beta1", "groupPriorityMinimum": 100, "versionPriority": 100,
            "service": {"name": "metrics", "namespace": "monitoring", "port": 443}
        }}),
        ("apps", "v1", "ControllerRevision") => {
            json!({"revision": 1, "data": {"spec": {"template": {"$patch": "replace"}}}})
        }
        ("apps", "v1", "Deployment") | ("apps", "v1", "ReplicaSet") => {
            json!({"spec": {"replicas": 2, "selector": selector(), "template": template()}})
        }
        ("apps", "v1", "StatefulSet") => {
            json!({"spec": {"replicas": 1, "serviceName": "web", "selector": selector(), "template": template()}})
        }
        ("apps", "v1", "DaemonSet") => json!({"spec": {"selector": selector(), "template": template()}}),
        ("authentication.k8s.io", "v1", "SelfSubjectReview") => json!({}),
        ("authentication.k8s.io", "v1", "TokenReview") => {
            json!({"spec": {"token": "eyJhbGciOiJSUzI1NiJ9.e30.c2ln", "audiences": ["https://kubernetes.default.svc"]}})
        }
        ("authorization.k8s.io", "v1", "LocalSubjectAccessReview") => json!({"spec": {
            "user": "jane", "groups": ["system:authenticated"],
            "resourceAttributes": {"namespace": "conformance-test", "verb": "get", "resource": "pods"}
        }}),
        ("authorization.k8s.io", "v1", "SelfSubjectAccessReview") => json!({"spec": {
            "resourceAttributes": {"namespace": "conformance-test", "verb": "create", "group": "apps", "resource": "deployments"}
        }}),
        ("authorization.k8s.io", "v1", "SelfSubjectRulesReview") => json!({"spec": {"namespace": "conformance-test"}}),
        ("authorization.k8s.io", "v1", "SubjectAccessReview") => json!({"spec": {
            "user": "jane", "groups": ["system:authenticated"],
            "resourceAttributes": {"namespace": "conformance-test", "verb": "delete", "resource": "secrets"}
        }}),
        ("autoscaling", "v1", "HorizontalPodAutoscaler") => json!({"spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1, "maxReplicas": 5, "targetCPUUtilizationPercentage": 80
        }}),
        ("autoscaling", "v2", "HorizontalPodAutoscaler") => json!({"spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1, "maxReplicas": 5,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]
        }}),
        ("batch", "v1", "Job") => json!({"spec": {"backoffLimit": 2, "template": template()}}),
        ("batch", "v1", "CronJob") => json!({"spec": {
            "schedule": "*/5 * * * *", "concurrencyPolicy": "Forbid",
            "jobTemplate": {"spec": {"template": template()}}
        }}),
        ("certificates.k8s.io", "v1", "CertificateSigningRequest") => json!({"spec": {
            "request": CSR_PEM_BASE64, "signerName": "kubernetes.io/kube-apiserver-client",
            "expirationSeconds": 86400, "usages": ["client auth"]
        }}),
        ("certificates.k8s.io", "v1alpha1" | "v1beta1", "ClusterTrustBundle") => {
            json!({"spec": {"signerName": "example.com/signer", "trustBundle": CA_PEM}})
        }
        ("certificates.k8s.io", "v1beta1", "PodCertificateRequest") => json!({"spec": {
            "signerName": "example.com/signer", "podName": "web-1", "podUID": "0a7c3f1e-0000-4000-8000-0000000000a1",
            "serviceAccountName": "default", "serviceAccountUID": "0a7c3f1e-0000-4000-8000-0000000000a2",
            "nodeName": "node-1", "nodeUID": "0a7c3f1e-0000-4000-8000-0000000000a3",
            "maxExpirationSeconds": 86400, "pkixPublicKey": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQc=",
            "proofOfPossession": "c2lnbmF0dXJl", "stubPKCS10Request": CSR_PEM_BASE64
        }}),
        ("coordination.k8s.io", "v1", "Lease") => json!({"spec": {
            "holderIdentity": "controller-1", "leaseDurationSeconds": 15,
            "acquireTime": "2026-01-01T00:00:00.000000Z", "renewTime": "2026-01-01T00:00:10.000000Z", "leaseTransitions": 0
        }}),
        ("coordination.k8s.io", "v1alpha2" | "v1beta1", "LeaseCandidate") => json!({"spec": {
            "leaseName": "kube-controller-manager", "binaryVersion": "1.36.0", "emulationVersion": "1.36",
            "strategy": "OldestEmulationVersion", "renewTime": "2026-01-01T00:00:10.000000Z"
        }}),
        ("discovery.k8s.io", "v1", "EndpointSlice") => json!({
            "addressType": "IPv4",
            "endpoints": [{"addresses": ["10.0.0.12"], "conditions": {"ready": true}, "nodeName": "node-1",
                           "targetRef": {"kind": "Pod", "name": "web-1", "namespace": "conformance-test"}}],
            "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]
        }),
        ("events.k8s.io", "v1", "Event") => json!({
            "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "kubelet", "reportingInstance": "node-1",
            "action": "Started", "reason": "Started", "note": "Started container app", "type": "Normal",
            "regarding": {"apiVersion": "v1", "kind": "Pod", "name": "web-1", "namespace": "conformance-test"}
        }),
        ("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema") => json!({"spec": {
            "priorityLevelConfiguration": {"name": "workload-low"}, "matchingPrecedence": 1000,
            "distinguisherMethod": {"type": "ByUser"},
            "rules": [{"subjects": [{"kind": "Group", "group": {"name": "system:authenticated"}}],
                       "resourceRules": [{"verbs": ["list"], "apiGroups": [""], "resources": ["pods"], "namespaces": ["*"]}]}]
        }}),
        ("flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration") => json!({"spec": {
            "type": "Limited",
            "limited": {"nominalConcurrencyShares": 10, "lendablePercent": 0,
                        "limitResponse": {"type": "Queue", "queuing": {"queues": 16, "handSize": 4, "queueLengthLimit": 50}}}
        }}),
        ("internal.apiserver.k8s.io", "v1alpha1", "StorageVersion") => json!({"spec": {}}),
        ("networking.k8s.io", "v1", "Ingress") => json!({"spec": {
            "ingressClassName": "nginx",
            "rules": [{"host": "web.example.com", "http": {"paths": [{"path": "/", "pathType": "Prefix",
                       "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]
        }}),
        ("networking.k8s.io", "v1", "IngressClass") => {
            json!({"spec": {"controller": "example.com/ingress-controller"}})
        }
        ("networking.k8s.io", "v1" | "v1beta1", "IPAddress") => {
            json!({"spec": {"parentRef": {"group": "", "resource": "services", "namespace": "conformance-test", "name": "web"}}})
        }
        ("networking.k8s.io", "v1", "NetworkPolicy") => json!({"spec": {
            "podSelector": selector(), "policyTypes": ["Ingress"],
            "ingress": [{"from": [{"podSelector": {"matchLabels": {"role": "frontend"}}}],
                         "ports": [{"protocol": "TCP", "port": 8080}]}]
        }}),
        ("networking.k8s.io", "v1" | "v1beta1", "ServiceCIDR") => json!({"spec": {"cidrs": ["10.96.0.0/16"]}}),
        ("node.k8s.io", "v1", "RuntimeClass") => json!({"handler": "runc", "overhead": {"podFixed": {"cpu": "10m"}}}),
        ("policy", "v1", "PodDisruptionBudget") => json!({"spec": {"minAvailable": 1, "selector": selector()}}),
        ("rbac.authorization.k8s.io", "v1", "ClusterRole") | ("rbac.authorization.k8s.io", "v1", "Role") => {
            json!({"rules": [{"apiGroups": [""], "resources": ["pods", "configmaps"], "verbs": ["get", "list", "watch"]}]})
        }
        ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding") => json!({
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": "conformance-test"}]
        }),
        ("rbac.authorization.k8s.io", "v1", "RoleBinding") => json!({
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "jane"}]
        }),
        ("resource.k8s.io", "v1" | "v1beta1" | "v1beta2", "DeviceClass") => json!({"spec": {
            "selectors": [{"cel": {"expression": "device.driver == \"gpu.example.com\""}}]
        }}),
        ("resource.k8s.io", "v1alpha3" | "v1beta2", "DeviceTaintRule") => json!({"spec": {
            "deviceSelector": {"driver": "gpu.example.com", "pool": "node-1"},
            "taint": {"key": "example.com/unhealthy", "value": "true", "effect": "NoSchedule"}
        }}),
        ("resource.k8s.io", "v1" | "v1beta2", "ResourceClaim") => json!({"spec": claim_spec(false)}),
        ("resource.k8s.io", "v1beta1", "ResourceClaim") => json!({"spec": claim_spec(true)}),
        ("resource.k8s.io", "v1" | "v1beta2", "ResourceClaimTemplate") => {
            json!({"spec": {"metadata": {"labels": {"app": "web"}}, "spec": claim_spec(false)}})
        }
        ("resource.k8s.io", "v1beta1", "ResourceClaimTemplate") => {
            json!({"spec": {"metadata": {"labels": {"app": "web"}}, "spec": claim_spec(true)}})
        }
        ("resource.k8s.io", "v1alpha3", "ResourcePoolStatusRequest") => {
            json!({"spec": {"driver": "gpu.example.com", "poolName": "node-1", "limit": 10}})
        }
        ("resource.k8s.io", "v1" | "v1beta2", "ResourceSlice") => json!({"spec": {
            "driver": "gpu.example.com", "nodeName": "node-1",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": "gpu-0", "attributes": {"model": {"string": "example-1"}}, "capacity": {"memory": {"value": "16Gi"}}}]
        }}),
        ("resource.k8s.io", "v1beta1", "ResourceSlice") => json!({"spec": {
            "driver": "gpu.example.com", "nodeName": "node-1",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": "gpu-0", "basic": {"attributes": {"model": {"string": "example-1"}}, "capacity": {"memory": {"value": "16Gi"}}}}]
        }}),
        ("scheduling.k8s.io", "v1", "PriorityClass") => {
            json!({"value": 1000, "globalDefault": false, "description": "workloads that matter", "preemptionPolicy": "PreemptLowerPriority"})
        }
        ("scheduling.k8s.io", "v1alpha2", "PodGroup") => json!({"spec": {
            "schedulingPolicy": {"gang": {"minCount": 2}},
            "podGroupTemplateRef": {"workload": {"workloadName": "training", "podGroupTemplateName": "workers"}}
        }}),
        ("scheduling.k8s.io", "v1alpha2", "Workload") => json!({"spec": {
            "podGroupTemplates": [{"name": "workers", "schedulingPolicy": {"gang": {"minCount": 2}}}]
        }}),
        ("storage.k8s.io", "v1", "CSIDriver") => json!({"spec": {
            "attachRequired": true, "podInfoOnMount": false, "volumeLifecycleModes": ["Persistent"], "fsGroupPolicy": "File"
        }}),
        ("storage.k8s.io", "v1", "CSINode") => json!({"spec": {"drivers": [{
            "name": "csi.example.com", "nodeID": "node-1", "topologyKeys": ["topology.kubernetes.io/zone"],
            "allocatable": {"count": 16}
        }]}}),
        ("storage.k8s.io", "v1", "CSIStorageCapacity") => json!({
            "storageClassName": "standard", "capacity": "100Gi", "maximumVolumeSize": "10Gi",
            "nodeTopology": {"matchLabels": {"topology.kubernetes.io/zone": "zone-a"}}
        }),
        ("storage.k8s.io", "v1", "StorageClass") => json!({
            "provisioner": "csi.example.com", "reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer",
            "allowVolumeExpansion": true, "parameters": {"type": "ssd"}
        }),
        ("storage.k8s.io", "v1", "VolumeAttachment") => json!({"spec": {
            "attacher": "csi.example.com", "nodeName": "node-1", "source": {"persistentVolumeName": "pv-0001"}
        }}),
        ("storage.k8s.io", "v1" | "v1beta1", "VolumeAttributesClass") => {
            json!({"driverName": "csi.example.com", "parameters": {"iops": "3000"}})
        }
        ("storagemigration.k8s.io", "v1beta1", "StorageVersionMigration") => {
            json!({"spec": {"resource": {"group": "apps", "resource": "deployments"}}})
        }
        _ => return None,
    })
}

fn claim_spec(v1beta1: bool) -> Value {
    let request = if v1beta1 {
        json!({"name": "gpu", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1})
    } else {
        json!({"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}})
    };
    json!({"devices": {"requests": [request]}})
}

fn condition(kind: &str, status: &str, reason: &str) -> Value {
    json!({"type": kind, "status": status, "reason": reason, "lastTransitionTime": "2026-01-01T00:01:00Z"})
}

/// A write of the Job controller (`pkg/controller/job/job_controller.go`) through a Job's `/status`,
/// as an (old, new) pair of statuses over one spec, each accepted by `ValidateJobUpdateStatus`
/// (`pkg/apis/batch/validation`) under `JobManagedBy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JobWrite {
    /// The first write: a pod created and ready, `startTime` set ([`status`]'s Job status).
    Started,
    /// Pods finishing: `active`, `ready` and `succeeded` moving, finished pods' UIDs in
    /// `uncountedTerminatedPods` until counted, a pod `terminating`.
    Progress,
    /// `completions` reached: `SuccessCriteriaMet` written first (`CompletionsReached`), then, with
    /// every pod counted, `Complete` and a `completionTime` after `startTime`.
    Succeeded,
    /// `backoffLimit` exceeded: `FailureTarget` written first (`BackoffLimitExceeded`), then,
    /// with the last failed pod counted, `Failed`.
    Failed,
    /// An Indexed Job: one more index in `completedIndexes`.
    Indexed,
    /// An Indexed Job with `backoffLimitPerIndex`: an index that used up its retries goes to
    /// `failedIndexes`.
    FailedIndex,
}

/// When the generated Job started (its first write's `startTime`).
const JOB_START: &str = "2026-01-01T00:00:05Z";

/// `job_controller.go` `newCondition` as the controller writes it.
fn job_condition(kind: &str, reason: &str, message: &str, at: &str) -> Value {
    json!({"type": kind, "status": "True", "reason": reason, "message": message,
           "lastProbeTime": at, "lastTransitionTime": at})
}

impl JobWrite {
    /// What the write's Job spec sets over the fixture's (the same in the old and the new object).
    pub(crate) fn spec(self) -> Value {
        match self {
            JobWrite::Started | JobWrite::Succeeded | JobWrite::Failed => json!({}),
            JobWrite::Progress => json!({"completions": 3, "parallelism": 2}),
            JobWrite::Indexed => json!({"completionMode": "Indexed", "completions": 5, "parallelism": 2}),
            JobWrite::FailedIndex => json!({"completionMode": "Indexed", "completions": 5, "parallelism": 2,
                                            "backoffLimitPerIndex": 1}),
        }
    }

    /// The stored Job's status (`None`: none yet) and the status the controller writes over it.
    pub(crate) fn statuses(self) -> (Option<Value>, Value) {
        let started = json!({"active": 1, "startTime": JOB_START, "ready": 1});
        match self {
            JobWrite::Started => (None, started),
            JobWrite::Progress => (
                Some(json!({"startTime": JOB_START, "active": 2, "ready": 2, "succeeded": 0, "terminating": 0,
                            "uncountedTerminatedPods": {"succeeded": ["6f1c2a40-0000-4000-8000-000000000c01"]}})),
                json!({"startTime": JOB_START, "active": 1, "ready": 1, "succeeded": 1, "terminating": 1,
                       "uncountedTerminatedPods": {"succeeded": ["6f1c2a40-0000-4000-8000-000000000c02"]}}),
            ),
            JobWrite::Succeeded => {
                let met = job_condition(
                    "SuccessCriteriaMet",
                    "CompletionsReached",
                    "Reached expected number of succeeded pods",
                    "2026-01-01T00:01:50Z",
                );
                let complete = job_condition(
                    "Complete",
                    "CompletionsReached",
                    "Reached expected number of succeeded pods",
                    "2026-01-01T00:02:00Z",
                );
                (
                    Some(json!({"startTime": JOB_START, "active": 0, "ready": 0, "succeeded": 1, "terminating": 0,
                                "uncountedTerminatedPods": {}, "conditions": [met]})),
                    json!({"startTime": JOB_START, "completionTime": "2026-01-01T00:02:00Z", "active": 0, "ready": 0,
                           "succeeded": 1, "terminating": 0, "uncountedTerminatedPods": {},
                           "conditions": [met, complete]}),
                )
            }
            JobWrite::Failed => {
                let message = "Job has reached the specified backoff limit";
                let target = job_condition("FailureTarget", "BackoffLimitExceeded", message, "2026-01-01T00:03:00Z");
                let failed = job_condition("Failed", "BackoffLimitExceeded", message, "2026-01-01T00:03:10Z");
                (
                    Some(json!({"startTime": JOB_START, "active": 0, "ready": 0, "failed": 2, "terminating": 0,
                                "uncountedTerminatedPods": {"failed": ["6f1c2a40-0000-4000-8000-000000000f03"]},
                                "conditions": [target]})),
                    json!({"startTime": JOB_START, "active": 0, "ready": 0, "failed": 3, "terminating": 0,
                           "uncountedTerminatedPods": {}, "conditions": [target, failed]}),
                )
            }
            JobWrite::Indexed => (
                Some(json!({"startTime": JOB_START, "active": 2, "ready": 2, "succeeded": 3, "terminating": 0,
                            "completedIndexes": "0-2", "uncountedTerminatedPods": {}})),
                json!({"startTime": JOB_START, "active": 1, "ready": 1, "succeeded": 4, "terminating": 0,
                       "completedIndexes": "0-2,4", "uncountedTerminatedPods": {}}),
            ),
            JobWrite::FailedIndex => (
                Some(json!({"startTime": JOB_START, "active": 2, "ready": 2, "succeeded": 3, "failed": 1,
                            "terminating": 0, "completedIndexes": "0-2", "failedIndexes": "",
                            "uncountedTerminatedPods": {}})),
                json!({"startTime": JOB_START, "active": 1, "ready": 1, "succeeded": 3, "failed": 2, "terminating": 0,
                       "completedIndexes": "0-2", "failedIndexes": "3", "uncountedTerminatedPods": {}}),
            ),
        }
    }
}

/// The status its controller writes through `/status` for an object of `gvk` (`None`: the kind has no
/// status the suite knows).
pub(crate) fn status(gvk: &Gvk) -> Option<Value> {
    let (g, v, k) = (gvk.group.as_str(), gvk.version.as_str(), gvk.kind.as_str());
    Some(match (g, v, k) {
        ("", "v1", "Pod") => json!({
            "phase": "Running", "podIP": "10.244.1.12", "hostIP": "192.168.0.11", "startTime": "2026-01-01T00:00:05Z",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:30Z"}],
            "qosClass": "BestEffort"
        }),
        ("", "v1", "ReplicationController") => {
            json!({"replicas": 2, "readyReplicas": 2, "availableReplicas": 2, "observedGeneration": 1})
        }
        ("", "v1", "Service") => json!({"loadBalancer": {"ingress": [{"ip": "203.0.113.10", "ipMode": "VIP"}]}}),
        ("", "v1", "Node") => json!({
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                            "lastHeartbeatTime": "2026-01-01T00:01:00Z", "lastTransitionTime": "2026-01-01T00:00:00Z"}],
            "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
            "allocatable": {"cpu": "3800m", "memory": "15Gi", "pods": "110"},
            "addresses": [{"type": "InternalIP", "address": "192.168.0.11"}]
        }),
        ("", "v1", "PersistentVolume") => json!({"phase": "Bound"}),
        ("", "v1", "PersistentVolumeClaim") => {
            json!({"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}})
        }
        ("", "v1", "ResourceQuota") => json!({"hard": {"pods": "10"}, "used": {"pods": "3"}}),
        ("", "v1", "Namespace") => json!({"phase": "Active"}),
        ("apps", "v1", "Deployment") => json!({
            "observedGeneration": 1, "replicas": 2, "updatedReplicas": 2, "readyReplicas": 2, "availableReplicas": 2,
            "conditions": [condition("Available", "True", "MinimumReplicasAvailable")]
        }),
        ("apps", "v1", "ReplicaSet") | ("apps", "v1", "StatefulSet") => {
            json!({"observedGeneration": 1, "replicas": 2, "readyReplicas": 2, "availableReplicas": 2})
        }
        ("apps", "v1", "DaemonSet") => json!({
            "currentNumberScheduled": 3, "desiredNumberScheduled": 3, "numberMisscheduled": 0, "numberReady": 3,
            "observedGeneration": 1
        }),
        ("batch", "v1", "Job") => JobWrite::Started.statuses().1,
        ("batch", "v1", "CronJob") => json!({"lastScheduleTime": "2026-01-01T00:05:00Z"}),
        ("autoscaling", "v1", "HorizontalPodAutoscaler") => {
            json!({"currentReplicas": 2, "desiredReplicas": 3, "currentCPUUtilizationPercentage": 95})
        }
        ("autoscaling", "v2", "HorizontalPodAutoscaler") => json!({
            "currentReplicas": 2, "desiredReplicas": 3,
            "conditions": [condition("AbleToScale", "True", "SucceededRescale")]
        }),
        ("certificates.k8s.io", "v1", "CertificateSigningRequest") => {
            json!({"conditions": [condition("Approved", "True", "AutoApproved")], "certificate": "Y2VydGlmaWNhdGU="})
        }
        ("certificates.k8s.io", "v1beta1", "PodCertificateRequest") => {
            json!({"conditions": [{"type": "Issued", "status": "True", "reason": "Issued", "message": "",
                   "lastTransitionTime": "2026-01-01T00:01:00Z"}]})
        }
        ("networking.k8s.io", "v1", "Ingress") => json!({"loadBalancer": {"ingress": [{"ip": "203.0.113.20"}]}}),
        ("networking.k8s.io", "v1" | "v1beta1", "ServiceCIDR") => json!({"conditions": [{
            "type": "Ready", "status": "True", "reason": "", "message": "", "lastTransitionTime": "2026-01-01T00:01:00Z"
        }]}),
        ("resource.k8s.io", "v1" | "v1beta1" | "v1beta2", "ResourceClaim") => {
            json!({"reservedFor": [{"resource": "pods", "name": "web-1", "uid": "0a7c3f1e-0000-4000-8000-0000000000a1"}]})
        }
        ("resource.k8s.io", "v1alpha3" | "v1beta2", "DeviceTaintRule") => {
            json!({"conditions": [{"type": "EvictionInProgress", "status": "False", "reason": "Completed",
                   "message": "", "lastTransitionTime": "2026-01-01T00:01:00Z"}]})
        }
        ("resource.k8s.io", "v1alpha3", "ResourcePoolStatusRequest") => json!({"poolCount": 1}),
        ("policy", "v1", "PodDisruptionBudget") => json!({
            "observedGeneration": 1, "disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2
        }),
        ("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema")
        | ("flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration") => {
            json!({"conditions": [{"type": "Dangling", "status": "False", "reason": "Found",
                   "message": "", "lastTransitionTime": "2026-01-01T00:01:00Z"}]})
        }
        ("storage.k8s.io", "v1", "VolumeAttachment") => {
            json!({"attached": true, "attachmentMetadata": {"devicePath": "/dev/sdb"}})
        }
        ("internal.apiserver.k8s.io", "v1alpha1", "StorageVersion") => json!({
            "commonEncodingVersion": "apps/v1",
            "storageVersions": [{"apiServerID": "kube-apiserver-1", "encodingVersion": "apps/v1",
                                 "decodableVersions": ["apps/v1"], "servedVersions": ["apps/v1"]}]
        }),
        ("storagemigration.k8s.io", "v1beta1", "StorageVersionMigration") => {
            json!({"resourceVersion": "1001", "conditions": [{"type": "Running", "status": "True", "reason": "Started",
                   "message": "", "lastTransitionTime": "2026-01-01T00:01:00Z"}]})
        }
        ("scheduling.k8s.io", "v1alpha2", "PodGroup") => json!({"conditions": [{
            "type": "PodGroupScheduled", "status": "True", "reason": "Scheduled", "message": "",
            "lastTransitionTime": "2026-01-01T00:01:00Z"
        }]}),
        ("apiextensions.k8s.io", "v1", "CustomResourceDefinition") => json!({
            "acceptedNames": {"plural": "gadgets", "kind": "Gadget"}, "storedVersions": ["v1"],
            "conditions": [{"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                            "lastTransitionTime": "2026-01-01T00:01:00Z"}]
        }),
        ("apiregistration.k8s.io", "v1", "APIService") => json!({"conditions": [{
            "type": "Available", "status": "True", "reason": "Passed", "lastTransitionTime": "2026-01-01T00:01:00Z"
        }]}),
        _ => return None,
    })
}

/// What a subresource request creates: an Eviction, a Binding or a TokenRequest, named like the
/// object it is about.
pub(crate) fn created_body(gvk: &Gvk) -> Value {
    match (gvk.group.as_str(), gvk.kind.as_str()) {
        ("policy", "Eviction") => json!({"deleteOptions": {"gracePeriodSeconds": 30}}),
        ("", "Binding") => json!({"target": {"apiVersion": "v1", "kind": "Node", "name": "node-1"}}),
        ("authentication.k8s.io", "TokenRequest") => {
            json!({"spec": {"audiences": ["https://kubernetes.default.svc"], "expirationSeconds": 3600}})
        }
        _ => json!({}),
    }
}
