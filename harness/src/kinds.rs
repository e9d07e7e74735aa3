//! The kinds of the Kubernetes version the suite targets (k8s-openapi's `v1_36`), and typed decoding
//! of objects with them, as the apiserver decodes a patched object: non-strict (unknown fields are
//! dropped), case-sensitive, and a value of the wrong type is an error.
//!
//! [`RESOURCES`] is every kind k8s-openapi serves as a resource of the apiserver, read from the types
//! themselves (group, version, kind, plural and scope from their `Resource` impl); [`round_trip`] also
//! knows the kinds only sent through subresources (Scale, Eviction, TokenRequest) and the connect
//! options, which k8s-openapi has no types for (written here from `k8s.io/api/core/v1/types.go`).

use k8s_openapi::api::{
    admissionregistration, apiserverinternal, apps, authentication, authorization, autoscaling, batch, certificates,
    coordination, core, discovery, events, flowcontrol, networking, node, policy, rbac, resource, scheduling, storage,
    storagemigration,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions;
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::admission::Gvk;

/// Why a value does not decode as a kind's type (serde's message, as the apiserver's `json:` error
/// reads close to it).
#[derive(Debug, thiserror::Error)]
pub(crate) enum DecodeError {
    /// The value does not decode into the kind's type.
    #[error("{0}")]
    Decode(#[source] serde_json::Error),
    /// The decoded value does not encode back to JSON.
    #[error("{0}")]
    Encode(#[source] serde_json::Error),
    /// A `Quantity` field holds a string that `ParseQuantity` refuses: the field's path and Go's
    /// message.
    #[error("{0}")]
    Quantity(String),
}

/// Decoding with one kind's type: into the type and back to JSON, or into the type only.
#[derive(Clone, Copy, Debug)]
struct Codec {
    round_trip: fn(&Value) -> Result<Value, DecodeError>,
    decodes: fn(&Value) -> Result<(), DecodeError>,
}

impl Codec {
    const fn of<T: serde::de::DeserializeOwned + serde::Serialize>() -> Codec {
        Codec { round_trip: round_trip_as::<T>, decodes: decodes_into::<T> }
    }
}

fn round_trip_as<T: serde::de::DeserializeOwned + serde::Serialize>(value: &Value) -> Result<Value, DecodeError> {
    let typed = T::deserialize(value).map_err(DecodeError::Decode)?;
    serde_json::to_value(typed).map_err(DecodeError::Encode)
}

/// Decode as `T` the way the apiserver does, which also refuses every `Quantity` that `ParseQuantity`
/// refuses (k8s-openapi keeps any string): the quantity's path and Go's error, or serde's error.
fn decodes_into<T: serde::de::DeserializeOwned>(value: &Value) -> Result<(), DecodeError> {
    match crate::quantity_fields::decode::<T>(value) {
        Ok(()) => Ok(()),
        Err(e) if e.is_quantity() => Err(DecodeError::Quantity(e.to_string())),
        Err(_) => T::deserialize(value).map(drop).map_err(DecodeError::Decode),
    }
}

/// Whether a k8s-openapi scope is namespaced.
trait Scope {
    const NAMESPACED: bool;
}
impl Scope for k8s_openapi::NamespaceResourceScope {
    const NAMESPACED: bool = true;
}
impl Scope for k8s_openapi::ClusterResourceScope {
    const NAMESPACED: bool = false;
}
impl Scope for k8s_openapi::SubResourceScope {
    const NAMESPACED: bool = true;
}

/// A kind of the targeted version, as its k8s-openapi type describes it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KindInfo {
    /// API group (`""` for core).
    pub group: &'static str,
    /// API version.
    pub version: &'static str,
    /// Kind.
    pub kind: &'static str,
    /// The resource's plural (its URL path segment).
    pub plural: &'static str,
    /// Namespaced or cluster-scoped.
    pub namespaced: bool,
    codec: Codec,
}

impl KindInfo {
    const fn of<T>() -> KindInfo
    where
        T: k8s_openapi::Resource + serde::de::DeserializeOwned + serde::Serialize,
        T::Scope: Scope,
    {
        KindInfo {
            group: T::GROUP,
            version: T::VERSION,
            kind: T::KIND,
            plural: T::URL_PATH_SEGMENT,
            namespaced: <T::Scope as Scope>::NAMESPACED,
            codec: Codec::of::<T>(),
        }
    }

    /// Its group/version/kind.
    #[cfg(test)]
    pub(crate) fn gvk(&self) -> Gvk {
        Gvk::new(self.group, self.version, self.kind)
    }
}

macro_rules! kinds {
    ($($ty:ty),* $(,)?) => { &[$(KindInfo::of::<$ty>()),*] };
}

/// Every kind of the targeted version that is a resource of the apiserver (k8s-openapi's types with a
/// namespaced or cluster scope and a URL path segment), whether or not the apiserver ever sends it to
/// a webhook (see `requests::resources` for that).
pub(crate) static RESOURCES: &[KindInfo] = kinds![
    core::v1::Binding,
    core::v1::ComponentStatus,
    core::v1::ConfigMap,
    core::v1::Endpoints,
    core::v1::Event,
    core::v1::LimitRange,
    core::v1::Namespace,
    core::v1::Node,
    core::v1::PersistentVolumeClaim,
    core::v1::PersistentVolume,
    core::v1::Pod,
    core::v1::PodTemplate,
    core::v1::ReplicationController,
    core::v1::ResourceQuota,
    core::v1::Secret,
    core::v1::ServiceAccount,
    core::v1::Service,
    admissionregistration::v1::MutatingAdmissionPolicy,
    admissionregistration::v1alpha1::MutatingAdmissionPolicy,
    admissionregistration::v1beta1::MutatingAdmissionPolicy,
    admissionregistration::v1::MutatingAdmissionPolicyBinding,
    admissionregistration::v1alpha1::MutatingAdmissionPolicyBinding,
    admissionregistration::v1beta1::MutatingAdmissionPolicyBinding,
    admissionregistration::v1::MutatingWebhookConfiguration,
    admissionregistration::v1::ValidatingAdmissionPolicy,
    admissionregistration::v1::ValidatingAdmissionPolicyBinding,
    admissionregistration::v1::ValidatingWebhookConfiguration,
    apiextensions::v1::CustomResourceDefinition,
    apiregistration::v1::APIService,
    apps::v1::ControllerRevision,
    apps::v1::DaemonSet,
    apps::v1::Deployment,
    apps::v1::ReplicaSet,
    apps::v1::StatefulSet,
    authentication::v1::SelfSubjectReview,
    authentication::v1::TokenReview,
    authorization::v1::LocalSubjectAccessReview,
    authorization::v1::SelfSubjectAccessReview,
    authorization::v1::SelfSubjectRulesReview,
    authorization::v1::SubjectAccessReview,
    autoscaling::v1::HorizontalPodAutoscaler,
    autoscaling::v2::HorizontalPodAutoscaler,
    batch::v1::CronJob,
    batch::v1::Job,
    certificates::v1::CertificateSigningRequest,
    certificates::v1alpha1::ClusterTrustBundle,
    certificates::v1beta1::ClusterTrustBundle,
    certificates::v1beta1::PodCertificateRequest,
    coordination::v1alpha2::LeaseCandidate,
    coordination::v1beta1::LeaseCandidate,
    coordination::v1::Lease,
    discovery::v1::EndpointSlice,
    events::v1::Event,
    flowcontrol::v1::FlowSchema,
    flowcontrol::v1::PriorityLevelConfiguration,
    apiserverinternal::v1alpha1::StorageVersion,
    networking::v1::IngressClass,
    networking::v1::Ingress,
    networking::v1::IPAddress,
    networking::v1beta1::IPAddress,
    networking::v1::NetworkPolicy,
    networking::v1::ServiceCIDR,
    networking::v1beta1::ServiceCIDR,
    node::v1::RuntimeClass,
    policy::v1::PodDisruptionBudget,
    rbac::v1::ClusterRoleBinding,
    rbac::v1::ClusterRole,
    rbac::v1::RoleBinding,
    rbac::v1::Role,
    resource::v1::DeviceClass,
    resource::v1beta1::DeviceClass,
    resource::v1beta2::DeviceClass,
    resource::v1alpha3::DeviceTaintRule,
    resource::v1beta2::DeviceTaintRule,
    resource::v1::ResourceClaim,
    resource::v1beta1::ResourceClaim,
    resource::v1beta2::ResourceClaim,
    resource::v1::ResourceClaimTemplate,
    resource::v1beta1::ResourceClaimTemplate,
    resource::v1beta2::ResourceClaimTemplate,
    resource::v1alpha3::ResourcePoolStatusRequest,
    resource::v1::ResourceSlice,
    resource::v1beta1::ResourceSlice,
    resource::v1beta2::ResourceSlice,
    scheduling::v1alpha2::PodGroup,
    scheduling::v1::PriorityClass,
    scheduling::v1alpha2::Workload,
    storage::v1::CSIDriver,
    storage::v1::CSINode,
    storage::v1::CSIStorageCapacity,
    storage::v1::StorageClass,
    storage::v1::VolumeAttachment,
    storage::v1::VolumeAttributesClass,
    storage::v1beta1::VolumeAttributesClass,
    storagemigration::v1beta1::StorageVersionMigration,
];

/// Kinds sent only through a subresource: what `/scale`, `pods/eviction` and `serviceaccounts/token`
/// carry.
static SUBRESOURCE_KINDS: &[KindInfo] =
    kinds![autoscaling::v1::Scale, policy::v1::Eviction, authentication::v1::TokenRequest];

/// The connect options of core/v1 (`PodExecOptions`, …): k8s-openapi has no types for them.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ConnectOptions<T> {
    #[serde(skip_serializing_if = "Option::is_none")]
    api_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    #[serde(flatten)]
    fields: T,
}

/// `PodExecOptions` and `PodAttachOptions` (attach has no `command`).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StreamOptions {
    #[serde(skip_serializing_if = "Option::is_none")]
    stdin: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stdout: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stderr: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tty: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    container: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    command: Option<Vec<String>>,
}

#[derive(Serialize, Deserialize)]
struct PortForwardOptions {
    #[serde(skip_serializing_if = "Option::is_none")]
    ports: Option<Vec<i32>>,
}

/// `PodProxyOptions`, `ServiceProxyOptions`, `NodeProxyOptions`.
#[derive(Serialize, Deserialize)]
struct ProxyOptions {
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
}

/// The connect options kinds of core/v1, as `(kind, decode)`.
static CONNECT_OPTIONS: &[(&str, Codec)] = &[
    ("PodExecOptions", Codec::of::<ConnectOptions<StreamOptions>>()),
    ("PodAttachOptions", Codec::of::<ConnectOptions<StreamOptions>>()),
    ("PodPortForwardOptions", Codec::of::<ConnectOptions<PortForwardOptions>>()),
    ("PodProxyOptions", Codec::of::<ConnectOptions<ProxyOptions>>()),
    ("ServiceProxyOptions", Codec::of::<ConnectOptions<ProxyOptions>>()),
    ("NodeProxyOptions", Codec::of::<ConnectOptions<ProxyOptions>>()),
];

/// The typed model of `gvk`, if the suite has one.
fn codec(gvk: &Gvk) -> Option<Codec> {
    let (group, version, kind) = (gvk.group.as_str(), gvk.version.as_str(), gvk.kind.as_str());
    if let Some(k) =
        RESOURCES.iter().chain(SUBRESOURCE_KINDS).find(|k| k.group == group && k.version == version && k.kind == kind)
    {
        return Some(k.codec);
    }
    if group.is_empty() && version == "v1" {
        return CONNECT_OPTIONS.iter().find(|(k, _)| *k == kind).map(|(_, d)| *d);
    }
    None
}

/// Decode `value` as the built-in kind `gvk` and re-encode it. `None` when the suite has no typed
/// model of that kind (custom resources): such objects are checked as plain JSON.
pub(crate) fn round_trip(gvk: &Gvk, value: &Value) -> Option<Result<Value, DecodeError>> {
    codec(gvk).map(|c| (c.round_trip)(value))
}

/// Check that `value` decodes as `gvk` the way the apiserver decodes a patched object. Go's decoder
/// leaves a field at its zero value when the JSON holds `null`; members that are `null` are dropped
/// first so that they do not count against the object.
pub(crate) fn decodes_as(gvk: &Gvk, value: &Value) -> Option<Result<(), DecodeError>> {
    let decodes = codec(gvk)?.decodes;
    if !has_null_member(value) {
        return Some(decodes(value));
    }
    let mut cleaned = value.clone();
    drop_null_members(&mut cleaned);
    Some(decodes(&cleaned))
}

/// Whether the `metadata` of `value`, an object of the typed kind `gvk`, decodes as `ObjectMeta`
/// the way the apiserver decodes it, its `null` members dropped as [`decodes_as`] drops them.
/// `None` when the kind has no typed model or `metadata` is not an object. A `gvk` object that
/// decodes as its kind, changed only within its metadata, still decodes when this is
/// `Some(true)`: the members of a kind's struct decode each on its own.
pub(crate) fn metadata_decodes(gvk: &Gvk, value: &Value) -> Option<bool> {
    codec(gvk)?;
    let metadata = value.get("metadata").filter(|m| m.is_object())?;
    type ObjectMeta = k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    let decoded = if has_null_member(metadata) {
        let mut cleaned = metadata.clone();
        drop_null_members(&mut cleaned);
        decodes_into::<ObjectMeta>(&cleaned)
    } else {
        decodes_into::<ObjectMeta>(metadata)
    };
    Some(decoded.is_ok())
}

/// `metadata` as `ObjectMeta` holds it: unknown fields dropped (what the apiserver's decoding does to
/// the metadata of every object, custom resources included).
pub(crate) fn object_meta(value: &Value) -> Result<Value, DecodeError> {
    round_trip_as::<k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta>(value)
}

fn has_null_member(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.values().any(|v| v.is_null() || has_null_member(v)),
        Value::Array(items) => items.iter().any(has_null_member),
        _ => false,
    }
}

fn drop_null_members(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_null_members);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_members),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_fields_are_dropped_wrong_types_fail() {
        let gvk = Gvk::new("", "v1", "Pod");
        let ok = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "extra": 1},
                        "spec": {"containers": [{"name": "a", "image": "x", "unknownField": true}]}});
        assert_eq!(decodes_as(&gvk, &ok).map(|r| r.map_err(|e| e.to_string())), Some(Ok(())));
        let bad = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "annotations": {"a": 1}}});
        assert!(decodes_as(&gvk, &bad).unwrap().is_err());
        let nulls = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": null, "labels": null}});
        assert_eq!(decodes_as(&gvk, &nulls).map(|r| r.map_err(|e| e.to_string())), Some(Ok(())));
    }

    #[test]
    fn quantities_accept_numbers_like_the_apiserver() {
        let gvk = Gvk::new("", "v1", "Pod");
        let v = json!({"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "a",
                       "resources": {"limits": {"cpu": 1, "memory": "64Mi"}}}]}});
        assert_eq!(decodes_as(&gvk, &v).map(|r| r.map_err(|e| e.to_string())), Some(Ok(())));
    }

    /// `Quantity.UnmarshalJSON` → `ParseQuantity` (apimachinery pkg/api/resource/quantity.go): the
    /// decode of a kind refuses a quantity Go refuses, with Go's error, wherever the kind holds one.
    #[test]
    fn quantities_that_parse_quantity_refuses_fail_the_decode() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "a",
                         "resources": {"limits": {"cpu": "lots"}}}]}});
        assert_eq!(
            decodes_as(&Gvk::new("", "v1", "Pod"), &pod).map(|r| r.map_err(|e| e.to_string())),
            Some(Err("spec.containers[0].resources.limits.cpu: quantities must match the regular expression \
                      '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
                .to_string()))
        );
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"selector": {},
            "template": {"spec": {"containers": [{"name": "a", "resources": {"requests": {"memory": "1ki"}}}]}}}});
        assert_eq!(
            decodes_as(&Gvk::new("apps", "v1", "Deployment"), &deployment).map(|r| r.map_err(|e| e.to_string())),
            Some(Err("spec.template.spec.containers[0].resources.requests.memory: unable to parse quantity's suffix"
                .to_string()))
        );
        // The wrong type keeps serde's message.
        let wrong = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"annotations": {"a": 1}}});
        assert!(decodes_as(&Gvk::new("", "v1", "Pod"), &wrong)
            .unwrap()
            .unwrap_err()
            .to_string()
            .starts_with("invalid type"));
    }

    #[test]
    fn unknown_kinds_are_untyped() {
        assert!(decodes_as(&Gvk::new("example.com", "v1", "Widget"), &json!({})).is_none());
    }

    #[test]
    fn connect_options_have_their_go_types() {
        let gvk = Gvk::new("", "v1", "PodExecOptions");
        let ok = json!({"apiVersion": "v1", "kind": "PodExecOptions", "stdin": true, "command": ["sh"]});
        assert_eq!(round_trip(&gvk, &ok).map(|r| r.map_err(|e| e.to_string())), Some(Ok(ok.clone())));
        let bad = json!({"apiVersion": "v1", "kind": "PodExecOptions", "command": "sh"});
        assert!(decodes_as(&gvk, &bad).unwrap().is_err());
        let ports = json!({"kind": "PodPortForwardOptions", "ports": ["http"]});
        assert!(decodes_as(&Gvk::new("", "v1", "PodPortForwardOptions"), &ports).unwrap().is_err());
    }

    #[test]
    fn metadata_keeps_only_object_meta_fields() {
        let meta = object_meta(&json!({"name": "a", "labels": {"x": "y"}, "x-unknown": 1})).unwrap();
        assert_eq!(meta, json!({"name": "a", "labels": {"x": "y"}}));
    }

    /// The k8s-openapi source this crate is built against: the version Cargo.lock pins (the one
    /// with the targeted Kubernetes version's module; the lock may hold others for other crates), in
    /// Cargo's registry sources.
    fn k8s_openapi_source() -> std::path::PathBuf {
        let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock")).unwrap();
        let versions: Vec<&str> = lock
            .split("name = \"k8s-openapi\"\nversion = \"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect();
        assert!(!versions.is_empty(), "k8s-openapi in Cargo.lock");
        let home = std::env::var_os("CARGO_HOME")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| std::path::Path::new(&std::env::var_os("HOME").unwrap()).join(".cargo"));
        let registries = home.join("registry/src");
        let found = std::fs::read_dir(&registries)
            .unwrap_or_else(|e| panic!("{}: {e}", registries.display()))
            .filter_map(|e| e.ok())
            .flat_map(|e| versions.iter().map(move |v| e.path().join(format!("k8s-openapi-{v}/src/v1_36"))))
            .find(|p| p.is_dir());
        found.unwrap_or_else(|| panic!("k8s-openapi {versions:?} sources are not under {}", registries.display()))
    }

    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    fn constant<'a>(text: &'a str, name: &str) -> Option<&'a str> {
        let at = text.find(&format!("const {name}: &'static str = \""))?;
        let rest = &text[at..];
        let start = rest.find('"')? + 1;
        let end = start + rest[start..].find('"')?;
        Some(&rest[start..end])
    }

    #[test]
    fn the_kind_list_is_every_resource_of_k8s_openapi() {
        let mut files = Vec::new();
        rust_files(&k8s_openapi_source(), &mut files);
        let mut theirs = std::collections::BTreeSet::new();
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            if !text.contains("impl crate::Resource for ") {
                continue;
            }
            let scope_namespaced = text.contains("type Scope = crate::NamespaceResourceScope;");
            let scope_cluster = text.contains("type Scope = crate::ClusterResourceScope;");
            let plural = constant(&text, "URL_PATH_SEGMENT").unwrap_or_default();
            if plural.is_empty() || !(scope_namespaced || scope_cluster) {
                continue;
            }
            let (group, version, kind) = (
                constant(&text, "GROUP").unwrap(),
                constant(&text, "VERSION").unwrap(),
                constant(&text, "KIND").unwrap(),
            );
            theirs.insert(format!("{group}|{version}|{kind}|{plural}|{scope_namespaced}"));
        }
        let ours: std::collections::BTreeSet<String> = RESOURCES
            .iter()
            .map(|k| format!("{}|{}|{}|{}|{}", k.group, k.version, k.kind, k.plural, k.namespaced))
            .collect();
        assert_eq!(ours.len(), RESOURCES.len(), "no kind listed twice");
        assert_eq!(ours, theirs, "the kind list and k8s-openapi's resources differ");
        assert_eq!(ours.len(), 95);
    }
}
