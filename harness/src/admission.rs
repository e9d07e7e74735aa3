//! Typed admission requests: `AdmissionReview` and `AdmissionRequest` of `admission.k8s.io/v1` and
//! `v1beta1`, as the kube-apiserver serializes them (`k8s.io/api/admission/v1/types.go`).
//!
//! Requests are built and read back through these types; answers are never decoded through them:
//! the checks judge the bytes a webhook sent, as the apiserver's decoder reads them.
//!
//! This module imports nothing of the crate.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A JSON value shared between the holders of one request (what it is about, and the review as
/// sent) instead of copied; changing it through `&mut` changes only this holder's value (copy on
/// write). It reads, compares and serializes as the value it holds.
#[derive(Clone, Default, PartialEq)]
pub struct SharedValue(Arc<Value>);

impl SharedValue {
    /// The value held, copied only when it is shared.
    pub fn into_value(self) -> Value {
        Arc::try_unwrap(self.0).unwrap_or_else(|shared| (*shared).clone())
    }
}

impl From<Value> for SharedValue {
    fn from(value: Value) -> Self {
        SharedValue(Arc::new(value))
    }
}

impl std::ops::Deref for SharedValue {
    type Target = Value;
    fn deref(&self) -> &Value {
        &self.0
    }
}

impl std::ops::DerefMut for SharedValue {
    fn deref_mut(&mut self) -> &mut Value {
        Arc::make_mut(&mut self.0)
    }
}

impl PartialEq<Value> for SharedValue {
    fn eq(&self, other: &Value) -> bool {
        *self.0 == *other
    }
}

impl std::fmt::Debug for SharedValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::fmt::Display for SharedValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl Serialize for SharedValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SharedValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(SharedValue::from)
    }
}

/// `admission.k8s.io/v1` or `admission.k8s.io/v1beta1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReviewVersion {
    /// `admission.k8s.io/v1`, what every current apiserver sends first.
    V1,
    /// `admission.k8s.io/v1beta1`, what older apiservers sent; verified leniently.
    V1beta1,
}

impl ReviewVersion {
    /// Every version the apiserver knows, in the order it prefers them.
    pub const ALL: [ReviewVersion; 2] = [ReviewVersion::V1, ReviewVersion::V1beta1];

    /// `v1` or `v1beta1`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewVersion::V1 => "v1",
            ReviewVersion::V1beta1 => "v1beta1",
        }
    }

    /// `admission.k8s.io/v1` or `admission.k8s.io/v1beta1`.
    pub fn api_version(self) -> &'static str {
        match self {
            ReviewVersion::V1 => "admission.k8s.io/v1",
            ReviewVersion::V1beta1 => "admission.k8s.io/v1beta1",
        }
    }

    /// The version named `v1` or `v1beta1`.
    pub fn parse(name: &str) -> Option<ReviewVersion> {
        ReviewVersion::ALL.into_iter().find(|v| v.as_str() == name)
    }
}

impl std::fmt::Display for ReviewVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ReviewVersion {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for ReviewVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.api_version())
    }
}

impl<'de> Deserialize<'de> for ReviewVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        ReviewVersion::ALL
            .into_iter()
            .find(|v| v.api_version() == text)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown AdmissionReview apiVersion {text:?}")))
    }
}

/// The operation an admission request is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Operation {
    /// CREATE (also pods/eviction, pods/binding, serviceaccounts/token).
    Create,
    /// UPDATE (also PATCH, and subresource updates such as /status and /scale).
    Update,
    /// DELETE: `object` is null, `oldObject` the object deleted.
    Delete,
    /// CONNECT (exec, attach, portforward, proxy): `object` is the options object.
    Connect,
}

impl Operation {
    /// Every operation.
    pub const ALL: [Operation; 4] = [Operation::Create, Operation::Update, Operation::Delete, Operation::Connect];

    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
            Operation::Connect => "CONNECT",
        }
    }

    /// The operation named so (upper case, as in a manifest or a request).
    pub fn parse(name: &str) -> Option<Operation> {
        Operation::ALL.into_iter().find(|o| o.as_str() == name)
    }

    /// The kind of the `options` object the apiserver sends with this operation, if any.
    pub fn options_kind(self) -> Option<&'static str> {
        match self {
            Operation::Create => Some("CreateOptions"),
            Operation::Update => Some("UpdateOptions"),
            Operation::Delete => Some("DeleteOptions"),
            Operation::Connect => None,
        }
    }
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// group/version/kind of an object (`group` is empty for the core group).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct GroupVersionKind {
    /// API group, `""` for core.
    pub group: String,
    /// API version, e.g. `v1`.
    pub version: String,
    /// Kind, e.g. `Pod`.
    pub kind: String,
}

/// Short name of [`GroupVersionKind`].
pub(crate) type Gvk = GroupVersionKind;

impl GroupVersionKind {
    /// The kind `kind` of `group`/`version`.
    pub fn new(group: &str, version: &str, kind: &str) -> Self {
        GroupVersionKind { group: group.into(), version: version.into(), kind: kind.into() }
    }
    /// The `apiVersion` of an object of this kind: `v1`, `apps/v1`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

/// group/version/resource (the plural name, e.g. `pods`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct GroupVersionResource {
    /// API group, `""` for core.
    pub group: String,
    /// API version.
    pub version: String,
    /// The resource's plural name.
    pub resource: String,
}

impl GroupVersionResource {
    /// The resource `resource` of `group`/`version`.
    pub fn new(group: &str, version: &str, resource: &str) -> Self {
        GroupVersionResource { group: group.into(), version: version.into(), resource: resource.into() }
    }
}

/// Who made the request (`authentication/v1` UserInfo).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserInfo {
    /// The user's name, e.g. `system:serviceaccount:ns:name`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub username: String,
    /// A unique id of the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// The groups the user is in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
    /// Extra attributes of the authenticator.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Vec<String>>,
}

/// An admission request, as the apiserver fills it for each operation
/// (`request/admissionreview.go`, CreateV1AdmissionReview).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionRequest {
    /// A fresh UUID on every call; the answer must echo it.
    pub uid: String,
    /// The kind of `object` as the webhook registered for it.
    pub kind: GroupVersionKind,
    /// The resource as the webhook registered for it.
    pub resource: GroupVersionResource,
    /// The subresource, e.g. `status`, `scale`, `exec`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_resource: Option<String>,
    /// The kind the API client sent (differs from `kind` under `matchPolicy: Equivalent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_kind: Option<GroupVersionKind>,
    /// The resource the API client called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_resource: Option<GroupVersionResource>,
    /// The subresource the API client called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_sub_resource: Option<String>,
    /// The object's name (empty for a CREATE with `generateName`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The object's namespace (none for cluster-scoped resources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The operation.
    pub operation: Operation,
    /// Who asked.
    pub user_info: UserInfo,
    /// The new object (null for DELETE; the options object for CONNECT).
    #[serde(default)]
    pub object: SharedValue,
    /// The old object (UPDATE, DELETE), null otherwise.
    #[serde(default)]
    pub old_object: SharedValue,
    /// Whether nothing will be persisted; always present.
    #[serde(default)]
    pub dry_run: bool,
    /// Create/Update/DeleteOptions (null for CONNECT).
    #[serde(default)]
    pub options: Value,
}

/// The room a serialized review starts with.
const INITIAL_BODY: usize = 16 * 1024;

/// An `AdmissionReview` carrying a request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionReview {
    /// `admission.k8s.io/v1` or `admission.k8s.io/v1beta1`.
    pub api_version: ReviewVersion,
    /// Always `AdmissionReview`.
    pub kind: String,
    /// The request.
    pub request: AdmissionRequest,
}

impl AdmissionReview {
    /// A review of `version` carrying `request`.
    pub fn new(version: ReviewVersion, request: AdmissionRequest) -> Self {
        AdmissionReview { api_version: version, kind: "AdmissionReview".into(), request }
    }

    /// The review as JSON bytes, as sent.
    pub fn to_bytes(&self) -> Vec<u8> {
        // Most reviews of a pod-holding object take a few KiB: start there rather than grow from
        // the serializer's 128 bytes.
        let mut out = Vec::with_capacity(INITIAL_BODY);
        self.write_to(&mut out);
        out
    }

    /// Append the review's JSON bytes, as sent, to `out` (a buffer a caller reuses from one
    /// request to the next).
    pub fn write_to(&self, out: &mut Vec<u8>) {
        serde_json::to_writer(out, self).expect("an AdmissionReview serializes")
    }

    /// The review as a JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("an AdmissionReview serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_as_the_apiserver_writes_it() {
        let sent = json!({
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": {
                "uid": "u-1",
                "kind": {"group": "", "version": "v1", "kind": "Pod"},
                "resource": {"group": "", "version": "v1", "resource": "pods"},
                "requestKind": {"group": "", "version": "v1", "kind": "Pod"},
                "requestResource": {"group": "", "version": "v1", "resource": "pods"},
                "name": "p",
                "namespace": "ns",
                "operation": "DELETE",
                "userInfo": {"username": "admin", "groups": ["system:authenticated"]},
                "object": null,
                "oldObject": {"kind": "Pod"},
                "dryRun": false,
                "options": {"kind": "DeleteOptions"}
            }
        });
        let review: AdmissionReview = serde_json::from_value(sent.clone()).unwrap();
        assert_eq!(review.api_version, ReviewVersion::V1);
        assert_eq!(review.request.operation, Operation::Delete);
        assert!(review.request.object.is_null());
        assert_eq!(review.to_value(), sent);
        let mut reused = b"stale".to_vec();
        reused.clear();
        review.write_to(&mut reused);
        assert_eq!(reused, review.to_bytes());
        assert_eq!(serde_json::from_slice::<Value>(&reused).unwrap(), sent);
    }

    #[test]
    fn unknown_versions_and_operations_are_refused() {
        assert!(serde_json::from_value::<ReviewVersion>(json!("admission.k8s.io/v2")).is_err());
        assert!(serde_json::from_value::<Operation>(json!("PATCH")).is_err());
        assert_eq!(Operation::parse("CONNECT"), Some(Operation::Connect));
        assert_eq!(ReviewVersion::parse("v1beta1"), Some(ReviewVersion::V1beta1));
    }
}
