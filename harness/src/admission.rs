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

impl AdmissionRequest {
    /// Append the request's JSON, as its `Serialize` writes it (fields in order, the optional
    /// ones only when set), to `out`.
    fn write_to(&self, out: &mut Vec<u8>) {
        // Every field named: one added to the struct does not compile until it is written here.
        let AdmissionRequest {
            uid,
            kind,
            resource,
            sub_resource,
            request_kind,
            request_resource,
            request_sub_resource,
            name,
            namespace,
            operation,
            user_info,
            object,
            old_object,
            dry_run,
            options,
        } = self;
        out.extend_from_slice(b"{\"uid\":");
        write_str(out, uid);
        member(out, "kind", kind);
        member(out, "resource", resource);
        optional(out, "subResource", sub_resource);
        optional(out, "requestKind", request_kind);
        optional(out, "requestResource", request_resource);
        optional(out, "requestSubResource", request_sub_resource);
        optional(out, "name", name);
        optional(out, "namespace", namespace);
        member(out, "operation", operation);
        member(out, "userInfo", user_info);
        out.extend_from_slice(b",\"object\":");
        write_value(out, object);
        out.extend_from_slice(b",\"oldObject\":");
        write_value(out, old_object);
        member(out, "dryRun", dry_run);
        out.extend_from_slice(b",\"options\":");
        write_value(out, options);
        out.push(b'}');
    }
}

/// `,"key":` and `value` as `serde_json` writes it.
fn member(out: &mut Vec<u8>, key: &str, value: &impl WriteJson) {
    out.push(b',');
    write_str(out, key);
    out.push(b':');
    value.write_json(out);
}

/// [`member`] when `value` is set; nothing otherwise (`skip_serializing_if = "Option::is_none"`).
fn optional(out: &mut Vec<u8>, key: &str, value: &Option<impl WriteJson>) {
    if let Some(value) = value {
        member(out, key, value);
    }
}

/// A field of a review written as its `Serialize` and `serde_json` write it, without going
/// through `Serialize`.
trait WriteJson {
    /// Append the JSON of `self` to `out`.
    fn write_json(&self, out: &mut Vec<u8>);
}

impl WriteJson for String {
    fn write_json(&self, out: &mut Vec<u8>) {
        write_str(out, self);
    }
}

impl WriteJson for bool {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(if *self { b"true" } else { b"false" });
    }
}

impl WriteJson for Operation {
    fn write_json(&self, out: &mut Vec<u8>) {
        write_str(out, self.as_str());
    }
}

impl WriteJson for GroupVersionKind {
    fn write_json(&self, out: &mut Vec<u8>) {
        let GroupVersionKind { group, version, kind } = self;
        write_strings(out, [("group", group), ("version", version), ("kind", kind)]);
    }
}

impl WriteJson for GroupVersionResource {
    fn write_json(&self, out: &mut Vec<u8>) {
        let GroupVersionResource { group, version, resource } = self;
        write_strings(out, [("group", group), ("version", version), ("resource", resource)]);
    }
}

impl WriteJson for UserInfo {
    fn write_json(&self, out: &mut Vec<u8>) {
        // Every field named, and each left out when empty, as its `skip_serializing_if` says.
        let UserInfo { username, uid, groups, extra } = self;
        out.push(b'{');
        let mut first = true;
        let mut key = |out: &mut Vec<u8>, name: &str| {
            if !std::mem::take(&mut first) {
                out.push(b',');
            }
            write_str(out, name);
            out.push(b':');
        };
        if !username.is_empty() {
            key(out, "username");
            write_str(out, username);
        }
        if let Some(uid) = uid {
            key(out, "uid");
            write_str(out, uid);
        }
        if !groups.is_empty() {
            key(out, "groups");
            write_list(out, groups);
        }
        if !extra.is_empty() {
            key(out, "extra");
            write_object(out, extra.iter().map(|(name, values)| (name.as_str(), values)), |out, v| write_list(out, v));
        }
        out.push(b'}');
    }
}

/// An object of string members, in this order.
fn write_strings<const N: usize>(out: &mut Vec<u8>, members: [(&str, &String); N]) {
    write_object(out, members, |out, value| write_str(out, value));
}

/// An object of `members`, in their order, each value written by `write`.
fn write_object<'a, V>(
    out: &mut Vec<u8>,
    members: impl IntoIterator<Item = (&'a str, V)>,
    write: impl Fn(&mut Vec<u8>, V),
) {
    out.push(b'{');
    for (i, (name, value)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, name);
        out.push(b':');
        write(out, value);
    }
    out.push(b'}');
}

/// A list of strings.
fn write_list(out: &mut Vec<u8>, items: &[String]) {
    write_array(out, items, |out, item| write_str(out, item));
}

/// An array of `items`, each written by `write`.
fn write_array<T>(out: &mut Vec<u8>, items: &[T], write: impl Fn(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(out, item);
    }
    out.push(b']');
}

/// `value` as `serde_json` writes it (compact, members in the map's order), its strings through
/// [`write_str`].
fn write_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Number(n) => serde_json::to_writer(&mut *out, n).expect("a number serializes"),
        Value::String(s) => write_str(out, s),
        Value::Array(items) => write_array(out, items, write_value),
        Value::Object(map) => write_object(out, map.iter().map(|(key, item)| (key.as_str(), item)), write_value),
    }
}

/// The bytes a JSON string escapes: control characters, `"` and `\`.
const fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// How many bytes of a string [`clean`] looks at together, as one word.
const WORD: usize = 8;

/// Whether `bytes` hold none of [`needs_escape`]. Eight bytes are tested at once, as one word:
/// each test sets a byte's high bit where a byte is below 0x20 or equals `"` or `\` (exactly: a
/// lane borrows only from one that holds such a byte). A string of eight bytes or more is tested
/// word by word, the bytes after the last whole word within the last eight; one of four to seven
/// bytes as its first four and its last four; a shorter one byte by byte.
fn clean(bytes: &[u8]) -> bool {
    let n = bytes.len();
    if n >= WORD {
        let word = |w: &[u8]| u64::from_ne_bytes(w.try_into().expect("a whole word"));
        let mut hit = 0;
        for w in bytes.chunks_exact(WORD) {
            hit |= dirty(word(w));
        }
        hit | dirty(word(&bytes[n - WORD..])) == 0
    } else if n >= 4 {
        let half = |at: usize| u64::from(u32::from_ne_bytes(bytes[at..at + 4].try_into().expect("four bytes")));
        dirty(half(0) | half(n - 4) << 32) == 0
    } else {
        !bytes.iter().any(|&b| needs_escape(b))
    }
}

/// A word with a byte's high bit set where that byte of `w` needs an escape, or above such a byte
/// (a borrow); zero exactly when none of its bytes does.
fn dirty(w: u64) -> u64 {
    const ONES: u64 = u64::from_ne_bytes([1; WORD]);
    const HIGH: u64 = ONES << 7;
    // A byte of `w` below `n` (`n` at most 0x80).
    let below = |w: u64, n: u8| w.wrapping_sub(ONES * u64::from(n)) & !w & HIGH;
    below(w, 0x20) | below(w ^ (ONES * u64::from(b'"')), 1) | below(w ^ (ONES * u64::from(b'\\')), 1)
}

/// `s` as a JSON string, escaped as `serde_json` escapes it. A string with nothing to escape
/// (nearly all of them) is found so a word at a time and copied whole, where `serde_json` looks
/// each byte up on its own.
fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    if clean(bytes) {
        out.extend_from_slice(bytes);
    } else {
        // Bytes before `start` are written.
        let mut start = 0;
        for (at, &b) in bytes.iter().enumerate() {
            if needs_escape(b) {
                out.extend_from_slice(&bytes[start..at]);
                write_escape(out, b);
                start = at + 1;
            }
        }
        out.extend_from_slice(&bytes[start..]);
    }
    out.push(b'"');
}

/// The escape of `b` (one of [`needs_escape`]) as `serde_json` writes it: the short forms where
/// JSON has one, `\u00xx` in lower-case hex otherwise.
fn write_escape(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        _ => 0,
    };
    if short == 0 {
        out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]);
    } else {
        out.extend_from_slice(&[b'\\', short]);
    }
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
    /// request to the next): what `serde_json` writes for it, byte for byte, with the objects'
    /// strings written by [`write_str`].
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"apiVersion\":");
        write_str(out, self.api_version.api_version());
        member(out, "kind", &self.kind);
        out.extend_from_slice(b",\"request\":");
        self.request.write_to(out);
        out.push(b'}');
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

    /// A request with every optional field `set` or none, its objects holding what JSON escapes.
    fn request(set: bool) -> AdmissionRequest {
        let tricky = "q\"b\\s/\u{0}\u{1f}\u{7f}\u{8}\u{c}\n\r\t é✓𝄞 ".repeat(3) + &"x".repeat(100);
        let gvk = GroupVersionKind::new("apps", "v1", "Deployment");
        let gvr = GroupVersionResource::new("apps", "v1", "deployments");
        AdmissionRequest {
            uid: "u-\"1".into(),
            kind: gvk.clone(),
            resource: gvr.clone(),
            sub_resource: set.then(|| "scale".into()),
            request_kind: set.then_some(gvk),
            request_resource: set.then_some(gvr),
            request_sub_resource: set.then(|| "status".into()),
            name: set.then(|| "n\n".into()),
            namespace: set.then(|| "ns".into()),
            operation: Operation::Update,
            // Unset, every field of the user is empty and left out.
            user_info: if set {
                UserInfo {
                    username: "jöhn".into(),
                    uid: Some("1".into()),
                    groups: vec!["g\t".into(), "".into()],
                    extra: [("k\"".to_string(), vec!["v".to_string(), "w".to_string()]), ("a".to_string(), vec![])]
                        .into_iter()
                        .collect(),
                }
            } else {
                UserInfo::default()
            },
            object: json!({tricky.clone(): [tricky.clone(), 1, -2, 3.5, 1e300, 18446744073709551615u64, null, true, false, {}, []], "": ""}).into(),
            old_object: if set { json!({"a": {"b": [tricky]}}) } else { Value::Null }.into(),
            dry_run: set,
            options: if set { json!({"kind": "UpdateOptions", "dryRun": ["All"]}) } else { Value::Null },
        }
    }

    #[test]
    fn a_review_is_written_as_serde_json_writes_it() {
        for version in ReviewVersion::ALL {
            for set in [true, false] {
                let review = AdmissionReview::new(version, request(set));
                let ours = review.to_bytes();
                let theirs = serde_json::to_vec(&review).unwrap();
                assert_eq!(String::from_utf8(ours).unwrap(), String::from_utf8(theirs).unwrap(), "{version} {set}");
            }
        }
    }

    #[test]
    fn every_mix_of_a_users_fields_is_written_as_serde_json_writes_it() {
        for present in 0..16u8 {
            let has = |bit: u8| present & (1 << bit) != 0;
            let user = UserInfo {
                username: if has(0) { "u".into() } else { String::new() },
                uid: has(1).then(|| "1".into()),
                groups: if has(2) { vec!["a".into(), "b".into()] } else { vec![] },
                extra: if has(3) {
                    [("k".to_string(), vec!["v".to_string()])].into_iter().collect()
                } else {
                    BTreeMap::new()
                },
            };
            let mut ours = Vec::new();
            user.write_json(&mut ours);
            assert_eq!(String::from_utf8(ours).unwrap(), serde_json::to_string(&user).unwrap(), "{present:04b}");
        }
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let sample = ['"', '\\', '\u{0}', '\u{1}', '\u{8}', '\u{1f}', ' ', '\u{7f}', 'é', '✓', '𝄞', 'a'];
        let mut strings: Vec<String> = Vec::new();
        // Every byte value alone and inside a few words (ASCII and, as two-byte characters, the
        // rest); the escapes at every place of a word, at its ends and across the border of two.
        for c in (0u8..=0xff).map(char::from) {
            strings.push(c.to_string());
            strings.push(format!("{}{c}{}", "a".repeat(10), "b".repeat(60)));
        }
        for len in (0..=2 * WORD).chain([4 * WORD + 1]) {
            for at in 0..=len {
                for c in sample {
                    let mut s = "a".repeat(len);
                    s.insert(at, c);
                    strings.push(s);
                }
            }
        }
        // Mixed strings of every length up to a few blocks (a fixed linear congruential draw).
        let mut x = 1u64;
        for len in 0..(12 * WORD) {
            for _ in 0..8 {
                strings.push(
                    (0..len)
                        .map(|_| {
                            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                            sample[(x >> 33) as usize % sample.len()]
                        })
                        .collect(),
                );
            }
        }
        for s in strings {
            let mut ours = Vec::new();
            write_str(&mut ours, &s);
            assert_eq!(ours, serde_json::to_vec(&s).unwrap(), "{s:?}");
        }
    }

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
