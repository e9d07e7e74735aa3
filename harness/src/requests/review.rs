//! AdmissionReview requests, with each operation's fields as the apiserver fills them
//! (`request/admissionreview.go`, CreateV1AdmissionReview / CreateV1beta1AdmissionReview).

use serde_json::{json, Map, Value};

use super::resources::{Gvk, Operation};

/// What an admission is about; turned into an AdmissionReview of either version.
#[derive(Clone, Debug)]
pub struct AdmissionSpec {
    pub operation: Operation,
    /// `kind`: the kind of `object` (Scale for `/scale`, PodExecOptions for `pods/exec`, …).
    pub kind: Gvk,
    /// `resource`: (group, version, plural) the webhook registered for.
    pub resource: (String, String, String),
    pub sub_resource: Option<String>,
    pub name: String,
    pub namespace: Option<String>,
    /// `Value::Null` where the apiserver sends none (DELETE).
    pub object: Value,
    pub old_object: Value,
    pub dry_run: bool,
    pub user: Value,
}

/// The user every generated request comes from unless a case says otherwise.
pub fn default_user() -> Value {
    json!({
        "username": "kubernetes-admin",
        "uid": "a1b2c3d4-0000-4000-8000-000000000001",
        "groups": ["kubeadm:cluster-admins", "system:authenticated"]
    })
}

/// The full `admission.k8s.io/<version>` AdmissionReview for `spec`, with request uid `uid`.
pub fn admission_review(version: &str, spec: &AdmissionSpec, uid: &str) -> Value {
    let kind = json!({"group": spec.kind.group, "version": spec.kind.version, "kind": spec.kind.kind});
    let (group, res_version, plural) = &spec.resource;
    let resource = json!({"group": group, "version": res_version, "resource": plural});
    let mut request = Map::new();
    request.insert("uid".into(), json!(uid));
    request.insert("kind".into(), kind.clone());
    request.insert("resource".into(), resource.clone());
    if let Some(sub) = &spec.sub_resource {
        request.insert("subResource".into(), json!(sub));
    }
    request.insert("requestKind".into(), kind);
    request.insert("requestResource".into(), resource);
    if let Some(sub) = &spec.sub_resource {
        request.insert("requestSubResource".into(), json!(sub));
    }
    if !spec.name.is_empty() {
        request.insert("name".into(), json!(spec.name));
    }
    if let Some(ns) = &spec.namespace {
        request.insert("namespace".into(), json!(ns));
    }
    request.insert("operation".into(), json!(spec.operation.as_str()));
    request.insert("userInfo".into(), spec.user.clone());
    request.insert("object".into(), spec.object.clone());
    request.insert("oldObject".into(), spec.old_object.clone());
    request.insert("dryRun".into(), json!(spec.dry_run));
    let options = match spec.operation.options_kind() {
        Some(kind) => {
            let mut o = json!({"apiVersion": "meta.k8s.io/v1", "kind": kind});
            if spec.dry_run {
                o["dryRun"] = json!(["All"]);
            }
            if spec.operation == Operation::Delete {
                o["propagationPolicy"] = json!("Background");
            }
            o
        }
        None => Value::Null,
    };
    request.insert("options".into(), options);
    json!({
        "apiVersion": format!("admission.k8s.io/{version}"),
        "kind": "AdmissionReview",
        "request": Value::Object(request),
    })
}

/// A fresh request uid, as the apiserver makes for every call.
pub fn fresh_uid() -> String {
    uuid::Uuid::new_v4().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(op: Operation) -> AdmissionSpec {
        AdmissionSpec {
            operation: op,
            kind: Gvk::new("", "v1", "Pod"),
            resource: ("".into(), "v1".into(), "pods".into()),
            sub_resource: None,
            name: "p".into(),
            namespace: Some("ns".into()),
            object: if op == Operation::Delete { Value::Null } else { json!({"kind": "Pod"}) },
            old_object: if op == Operation::Create { Value::Null } else { json!({"kind": "Pod"}) },
            dry_run: false,
            user: default_user(),
        }
    }

    #[test]
    fn fields_by_operation() {
        let r = admission_review("v1", &spec(Operation::Delete), "u1");
        assert_eq!(r["apiVersion"], "admission.k8s.io/v1");
        assert_eq!(r["request"]["uid"], "u1");
        assert!(r["request"]["object"].is_null());
        assert!(r["request"].as_object().unwrap().contains_key("object"), "object is sent as null");
        assert_eq!(r["request"]["options"]["kind"], "DeleteOptions");
        assert_eq!(r["request"]["dryRun"], false);
        assert!(r["request"].get("subResource").is_none());

        let mut connect = spec(Operation::Connect);
        connect.sub_resource = Some("exec".into());
        let r = admission_review("v1beta1", &connect, "u2");
        assert_eq!(r["apiVersion"], "admission.k8s.io/v1beta1");
        assert!(r["request"]["options"].is_null());
        assert_eq!(r["request"]["subResource"], "exec");
        assert_eq!(r["request"]["requestSubResource"], "exec");
    }

    #[test]
    fn uids_are_fresh() {
        assert_ne!(fresh_uid(), fresh_uid());
    }
}
