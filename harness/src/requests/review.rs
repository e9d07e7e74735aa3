//! AdmissionReview requests, with each operation's fields as the apiserver fills them
//! (`request/admissionreview.go`, CreateV1AdmissionReview / CreateV1beta1AdmissionReview).

use serde_json::{json, Value};

use crate::admission::{
    AdmissionRequest, AdmissionReview, GroupVersionResource, Gvk, Operation, ReviewVersion, SharedValue, UserInfo,
};

/// What an admission is about; turned into an AdmissionReview of either version.
#[derive(Clone, Debug, PartialEq)]
pub struct AdmissionSpec {
    pub operation: Operation,
    /// `kind`: the kind of `object` (Scale for `/scale`, PodExecOptions for `pods/exec`, …).
    pub kind: Gvk,
    /// `resource`: what the webhook registered for.
    pub resource: GroupVersionResource,
    pub sub_resource: Option<String>,
    /// `requestKind`/`requestResource` when they differ from `kind`/`resource`: the user's request
    /// was made in an equivalent resource and converted (`matchPolicy: Equivalent`).
    pub request_kind: Option<Gvk>,
    pub request_resource: Option<GroupVersionResource>,
    pub name: String,
    pub namespace: Option<String>,
    /// `Value::Null` where the apiserver sends none (DELETE).
    pub object: SharedValue,
    pub old_object: SharedValue,
    pub dry_run: bool,
    /// How a DELETE was asked for: the DeleteOptions its client sent.
    pub deletion: Deletion,
    pub user: UserInfo,
    /// Whether the suite sent `object` and `oldObject` defaulted as the apiserver's decoder
    /// defaults them (`decoded::default_objects`): the webhook's patch then applies to the object
    /// as sent. False for objects sent as given (case files, saved reviews, a property's re-sent
    /// result).
    pub(crate) sent_defaulted: bool,
}

/// Who deleted an object and how: the DeleteOptions a DELETE request carries
/// (`staging/src/k8s.io/kubectl/pkg/cmd/delete/delete.go` DeleteOptions; the garbage collector's
/// `pkg/controller/garbagecollector/operations.go` deleteObject).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Deletion {
    /// `kubectl delete`: `propagationPolicy: Background`.
    #[default]
    Kubectl,
    /// `kubectl delete --cascade=foreground`: `propagationPolicy: Foreground`.
    Foreground,
    /// `kubectl delete --cascade=orphan`: `propagationPolicy: Orphan`.
    Orphan,
    /// `kubectl delete --force --grace-period=0`: `gracePeriodSeconds: 0`, `propagationPolicy: Background`.
    Force,
    /// The garbage collector deleting a dependent of a deleted owner: `propagationPolicy:
    /// Background` and a precondition on the dependent's uid.
    GarbageCollector(String),
}

impl Deletion {
    /// The DeleteOptions fields of this deletion (besides apiVersion, kind and dryRun).
    fn fields(&self) -> Value {
        match self {
            Deletion::Kubectl => json!({"propagationPolicy": "Background"}),
            Deletion::Foreground => json!({"propagationPolicy": "Foreground"}),
            Deletion::Orphan => json!({"propagationPolicy": "Orphan"}),
            Deletion::Force => json!({"gracePeriodSeconds": 0, "propagationPolicy": "Background"}),
            Deletion::GarbageCollector(uid) => {
                json!({"preconditions": {"uid": uid}, "propagationPolicy": "Background"})
            }
        }
    }

    /// The deletion that `options` (a DELETE request's) describes.
    pub fn of(options: &Value) -> Deletion {
        if let Some(uid) = options.pointer("/preconditions/uid").and_then(Value::as_str) {
            return Deletion::GarbageCollector(uid.to_string());
        }
        if options.get("gracePeriodSeconds").and_then(Value::as_i64) == Some(0) {
            return Deletion::Force;
        }
        match options.get("propagationPolicy").and_then(Value::as_str) {
            Some("Foreground") => Deletion::Foreground,
            Some("Orphan") => Deletion::Orphan,
            _ => Deletion::Kubectl,
        }
    }
}

impl AdmissionSpec {
    /// What `request` is about (its uid, options and request* fields are derived again when sent).
    pub fn from_request(request: &AdmissionRequest) -> AdmissionSpec {
        AdmissionSpec {
            operation: request.operation,
            kind: request.kind.clone(),
            resource: request.resource.clone(),
            sub_resource: request.sub_resource.clone(),
            request_kind: request.request_kind.clone().filter(|k| *k != request.kind),
            request_resource: request.request_resource.clone().filter(|r| *r != request.resource),
            name: request.name.clone().unwrap_or_default(),
            namespace: request.namespace.clone(),
            object: request.object.clone(),
            old_object: request.old_object.clone(),
            dry_run: request.dry_run,
            deletion: if request.operation == Operation::Delete {
                Deletion::of(&request.options)
            } else {
                Deletion::default()
            },
            user: request.user_info.clone(),
            sent_defaulted: false,
        }
    }
}

/// The user every generated request comes from unless a case says otherwise.
pub(crate) fn default_user() -> UserInfo {
    UserInfo {
        username: "kubernetes-admin".into(),
        uid: Some("a1b2c3d4-0000-4000-8000-000000000001".into()),
        groups: vec!["kubeadm:cluster-admins".into(), "system:authenticated".into()],
        extra: Default::default(),
    }
}

/// The options object the apiserver sends with `spec`'s operation (null for CONNECT).
fn options(spec: &AdmissionSpec) -> Value {
    let Some(kind) = spec.operation.options_kind() else { return Value::Null };
    let mut o = json!({"apiVersion": "meta.k8s.io/v1", "kind": kind});
    if spec.dry_run {
        o["dryRun"] = json!(["All"]);
    }
    if spec.operation == Operation::Delete {
        if let (Some(o), Value::Object(fields)) = (o.as_object_mut(), spec.deletion.fields()) {
            o.extend(fields);
        }
    }
    o
}

/// The full AdmissionReview of `version` for `spec`, with request uid `uid`.
pub(crate) fn admission_review(version: ReviewVersion, spec: &AdmissionSpec, uid: &str) -> AdmissionReview {
    let request = AdmissionRequest {
        uid: uid.to_string(),
        kind: spec.kind.clone(),
        resource: spec.resource.clone(),
        sub_resource: spec.sub_resource.clone(),
        request_kind: Some(spec.request_kind.clone().unwrap_or_else(|| spec.kind.clone())),
        request_resource: Some(spec.request_resource.clone().unwrap_or_else(|| spec.resource.clone())),
        request_sub_resource: spec.sub_resource.clone(),
        name: (!spec.name.is_empty()).then(|| spec.name.clone()),
        namespace: spec.namespace.clone(),
        operation: spec.operation,
        user_info: spec.user.clone(),
        object: spec.object.clone(),
        old_object: spec.old_object.clone(),
        dry_run: spec.dry_run,
        options: options(spec),
    };
    AdmissionReview::new(version, request)
}

/// A fresh request uid, as the apiserver makes for every call: an RFC 4122 version 4 UUID, never
/// the same twice in a process. The operating system's randomness is read once, for a key; each
/// uid is then the key's keyed mix of a process-wide counter, in user space. The mix is a
/// bijection of the counter, and the 64 bits it gives are all kept beside the version and variant
/// bits, so two uids of one process never collide; the key makes them unpredictable from one run
/// to the next, as random ones are.
pub(crate) fn fresh_uid() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;
    static KEY: OnceLock<(u64, u64)> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let &(k0, k1) = KEY.get_or_init(|| uuid::Uuid::new_v4().as_u64_pair());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let (high, low) = uid_bits(n, k0, k1);
    let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
    uuid::Uuid::from_u64_pair(high, low).hyphenated().encode_lower(&mut text).to_string()
}

/// The two halves of the uid of counter `n` under key `(k0, k1)`: `a`, a bijection of `n`, fills
/// the 62 free bits of the low half and two of the high half; the rest of the high half is a
/// second mix, with the version (4) and the variant (`10`) set.
fn uid_bits(n: u64, k0: u64, k1: u64) -> (u64, u64) {
    let a = mix(n ^ k0);
    let b = mix(a ^ k1);
    let high = (b & !0xF003) | 0x4000 | (a >> 62);
    let low = (a & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000;
    (high, low)
}

/// SplitMix64's finalizer: a bijection of `u64` (shifts xored in, multiplications by odd numbers).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(op: Operation) -> AdmissionSpec {
        AdmissionSpec {
            operation: op,
            kind: Gvk::new("", "v1", "Pod"),
            resource: GroupVersionResource::new("", "v1", "pods"),
            sub_resource: None,
            request_kind: None,
            request_resource: None,
            name: "p".into(),
            namespace: Some("ns".into()),
            object: if op == Operation::Delete { Value::Null } else { json!({"kind": "Pod"}) }.into(),
            old_object: if op == Operation::Create { Value::Null } else { json!({"kind": "Pod"}) }.into(),
            dry_run: false,
            deletion: Deletion::default(),
            user: default_user(),
            sent_defaulted: false,
        }
    }

    #[test]
    fn fields_by_operation() {
        let r = admission_review(ReviewVersion::V1, &spec(Operation::Delete), "u1").to_value();
        assert_eq!(r["apiVersion"], "admission.k8s.io/v1");
        assert_eq!(r["request"]["uid"], "u1");
        assert!(r["request"]["object"].is_null());
        assert!(r["request"].as_object().unwrap().contains_key("object"), "object is sent as null");
        assert_eq!(r["request"]["options"]["kind"], "DeleteOptions");
        assert_eq!(r["request"]["dryRun"], false);
        assert!(r["request"].get("subResource").is_none());

        let mut connect = spec(Operation::Connect);
        connect.sub_resource = Some("exec".into());
        let r = admission_review(ReviewVersion::V1beta1, &connect, "u2").to_value();
        assert_eq!(r["apiVersion"], "admission.k8s.io/v1beta1");
        assert!(r["request"]["options"].is_null());
        assert_eq!(r["request"]["subResource"], "exec");
        assert_eq!(r["request"]["requestSubResource"], "exec");
    }

    #[test]
    fn a_sent_request_reads_back_as_its_spec() {
        let mut s = spec(Operation::Update);
        s.dry_run = true;
        let review = admission_review(ReviewVersion::V1, &s, "u3");
        let back: AdmissionReview = serde_json::from_slice(&review.to_bytes()).unwrap();
        assert_eq!(AdmissionSpec::from_request(&back.request), s);
    }

    #[test]
    fn a_converted_request_keeps_what_the_user_sent() {
        let mut s = spec(Operation::Create);
        s.kind = Gvk::new("autoscaling", "v2", "HorizontalPodAutoscaler");
        s.resource = GroupVersionResource::new("autoscaling", "v2", "horizontalpodautoscalers");
        s.request_kind = Some(Gvk::new("autoscaling", "v1", "HorizontalPodAutoscaler"));
        s.request_resource = Some(GroupVersionResource::new("autoscaling", "v1", "horizontalpodautoscalers"));
        let review = admission_review(ReviewVersion::V1, &s, "u4");
        let r = review.to_value();
        assert_eq!(r["request"]["kind"]["version"], "v2");
        assert_eq!(r["request"]["requestKind"]["version"], "v1");
        assert_eq!(r["request"]["requestResource"]["version"], "v1");
        let back: AdmissionReview = serde_json::from_slice(&review.to_bytes()).unwrap();
        assert_eq!(AdmissionSpec::from_request(&back.request), s);
    }

    #[test]
    fn each_deletion_reads_back_from_its_options() {
        let mut s = spec(Operation::Delete);
        for deletion in [
            Deletion::Kubectl,
            Deletion::Foreground,
            Deletion::Orphan,
            Deletion::Force,
            Deletion::GarbageCollector("5d3e1c9a-6a8f-4c0e-9a6e-0000000000aa".into()),
        ] {
            s.deletion = deletion.clone();
            let review = admission_review(ReviewVersion::V1, &s, "u5");
            let options = &review.to_value()["request"]["options"];
            assert_eq!(options["kind"], "DeleteOptions");
            assert!(options["propagationPolicy"].is_string(), "{options}");
            let back: AdmissionReview = serde_json::from_slice(&review.to_bytes()).unwrap();
            assert_eq!(AdmissionSpec::from_request(&back.request).deletion, deletion);
        }
    }

    #[test]
    fn uids_are_fresh_version_4_uuids() {
        let uids: Vec<String> = (0..2)
            .flat_map(|_| std::thread::spawn(|| (0..20_000).map(|_| fresh_uid()).collect::<Vec<_>>()).join().unwrap())
            .collect();
        let distinct: std::collections::HashSet<&String> = uids.iter().collect();
        assert_eq!(distinct.len(), uids.len());
        for uid in &uids {
            let parsed = uuid::Uuid::parse_str(uid).unwrap();
            assert_eq!(parsed.get_version(), Some(uuid::Version::Random), "{uid}");
            assert_eq!(parsed.get_variant(), uuid::Variant::RFC4122, "{uid}");
            assert_eq!(uid, &parsed.hyphenated().to_string(), "lower-case and hyphenated as Go writes it");
        }
    }

    #[test]
    fn the_counter_is_kept_whole_in_the_uid() {
        // Counters that differ only in the bits the version and variant overwrite in a plain mix
        // still give different uids, under any key.
        for (k0, k1) in [(0, 0), (u64::MAX, 7), (0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210)] {
            let bits: std::collections::HashSet<(u64, u64)> = (0..4096).map(|n| uid_bits(n, k0, k1)).collect();
            assert_eq!(bits.len(), 4096);
            // `a` is read back whole from the uid: two of its bits in the high half, the rest low.
            for n in [0, 1, 1 << 62, 3 << 62, u64::MAX] {
                let (high, low) = uid_bits(n, k0, k1);
                let a = ((high & 3) << 62) | (low & 0x3FFF_FFFF_FFFF_FFFF);
                assert_eq!(a, mix(n ^ k0));
            }
        }
    }
}
