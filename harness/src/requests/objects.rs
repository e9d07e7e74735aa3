//! Objects the suite presents to a webhook, built as the apiserver presents them at each point of an
//! admission: built-in kinds from their fixtures, passed through their k8s-openapi type (unknown
//! fields dropped, as the apiserver's decoding drops them); custom resources of a CRD valid against
//! its schema, pruned and defaulted as the apiserver does; other custom resources as plain JSON.

use serde_json::{json, Map, Value};

use super::fixtures;
use super::generation;
use super::resources::{Origin, Resource};
use super::schema;
use crate::admission::Gvk;

/// Which flavour of an object: the shapes that most often break webhooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Variant {
    /// No labels, no annotations: maps a webhook may wrongly assume exist; only the required fields
    /// of a custom resource.
    Bare,
    /// Labels and annotations, keys with `/` and `~`, several containers; every field of a custom
    /// resource.
    Labelled,
    /// What policy webhooks exist to refuse: a privileged container, an image tagged `latest`, the
    /// host network. Only for kinds that hold a pod spec.
    Risky,
}

impl Variant {
    pub(crate) const ALL: [Variant; 3] = [Variant::Bare, Variant::Labelled, Variant::Risky];
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Variant::Bare => "bare",
            Variant::Labelled => "labelled",
            Variant::Risky => "risky",
        }
    }
}

pub(crate) const NAMESPACE: &str = "conformance-test";

/// The JSON path of the pod spec inside an object of `kind`, for every built-in kind that holds one.
pub(crate) fn pod_spec_path(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "Pod" => &["spec"],
        "PodTemplate" => &["template", "spec"],
        "ReplicationController" | "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job" => {
            &["spec", "template", "spec"]
        }
        "CronJob" => &["spec", "jobTemplate", "spec", "template", "spec"],
        _ => return None,
    })
}

/// Does this kind hold a pod spec (so that the risky variant means something)?
pub(crate) fn holds_pod_spec(kind: &str) -> bool {
    pod_spec_path(kind).is_some()
}

fn pod_spec(variant: Variant) -> Value {
    match variant {
        Variant::Bare => json!({"containers": [{"name": "app", "image": "registry.example/app:1.0"}],
                                "serviceAccountName": "default"}),
        Variant::Risky => json!({
            "hostNetwork": true,
            "containers": [{"name": "app", "image": "registry.example/app:latest",
                            "securityContext": {"privileged": true, "runAsUser": 0}}],
            "serviceAccountName": "default"
        }),
        Variant::Labelled => json!({
            "initContainers": [{"name": "init", "image": "registry.example/init:1.0", "command": ["sh", "-c", "true"]}],
            "containers": [
                {"name": "app", "image": "registry.example/app:1.0",
                 "env": [{"name": "MODE", "value": "prod"}],
                 "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                 "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}},
                 "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
                {"name": "helper", "image": "registry.example/helper:2.1"}
            ],
            "volumes": [{"name": "data", "emptyDir": {}}],
            "serviceAccountName": "default"
        }),
    }
}

/// The pod spec of `object` (of `kind`), if it holds one.
pub(crate) fn pod_spec_mut<'a>(object: &'a mut Value, kind: &str) -> Option<&'a mut Map<String, Value>> {
    let mut at = object;
    for step in pod_spec_path(kind)? {
        at = at.get_mut(*step)?;
    }
    at.as_object_mut()
}

fn labels(variant: Variant) -> Option<Value> {
    match variant {
        Variant::Bare => None,
        Variant::Labelled | Variant::Risky => {
            Some(json!({"app": "web", "app.kubernetes.io/name": "web", "tier": "frontend"}))
        }
    }
}

fn annotations(variant: Variant) -> Option<Value> {
    match variant {
        Variant::Bare | Variant::Risky => None,
        Variant::Labelled => {
            Some(json!({"example.com/owner": "team-a", "example.com/path.key": "x", "note": "héllo ✓"}))
        }
    }
}

/// What an object of `resource` holds besides apiVersion, kind and metadata.
fn body(resource: &Resource, variant: Variant) -> Map<String, Value> {
    match &resource.origin {
        Origin::BuiltIn => {
            // Every kind the apiserver sends has a fixture (a test holds it to that); a version the
            // suite does not serve (named in a case file) gets none.
            let mut object = fixtures::body(&resource.gvk()).unwrap_or_else(|| json!({}));
            if let Some(spec) = pod_spec_mut(&mut object, &resource.kind) {
                let filled = pod_spec(variant);
                spec.extend(filled.as_object().cloned().unwrap_or_default());
                match resource.kind.as_str() {
                    "Job" => {
                        spec.insert("restartPolicy".into(), json!("Never"));
                    }
                    "CronJob" => {
                        spec.insert("restartPolicy".into(), json!("OnFailure"));
                    }
                    _ => {}
                }
            }
            object.as_object().cloned().unwrap_or_default()
        }
        Origin::Crd(schema) => schema::instance(schema, variant != Variant::Bare),
        Origin::Guessed => json!({"spec": {"replicas": 1, "note": "plain JSON custom resource"}})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    }
}

/// An object of `resource` as a client sends it on CREATE: no uid, creationTimestamp, generation or
/// resourceVersion yet. Reviews carry no name.
pub(crate) fn new_object(resource: &Resource, variant: Variant, name: &str) -> Value {
    assemble(resource, variant, name, body(resource, variant))
}

/// [`new_object`] for a custom resource of a CRD, its fields varied by `seed` over the schema
/// ([`schema::varied`]); any other resource's object as [`new_object`] builds it.
pub(crate) fn varied_object(resource: &Resource, variant: Variant, name: &str, seed: u64) -> Value {
    match &resource.origin {
        Origin::Crd(s) => assemble(resource, variant, name, schema::varied(s, seed)),
        _ => new_object(resource, variant, name),
    }
}

/// The object of `resource` named `name` with `variant`'s metadata around `body`, as the
/// apiserver's decoding leaves it.
fn assemble(resource: &Resource, variant: Variant, name: &str, body: Map<String, Value>) -> Value {
    let gvk = resource.gvk();
    let mut metadata = Map::new();
    if !resource.review {
        metadata.insert("name".into(), json!(name));
    }
    if resource.namespaced {
        metadata.insert("namespace".into(), json!(NAMESPACE));
    }
    if let Some(l) = labels(variant) {
        metadata.insert("labels".into(), l);
    }
    if let Some(a) = annotations(variant) {
        metadata.insert("annotations".into(), a);
    }
    let mut object = Map::new();
    object.insert("apiVersion".into(), json!(gvk.api_version()));
    object.insert("kind".into(), json!(gvk.kind));
    object.insert("metadata".into(), Value::Object(metadata));
    object.extend(body);
    let mut object = Value::Object(object);
    if variant == Variant::Labelled && !resource.review {
        applied_by_kubectl(&mut object);
    }
    if matches!(resource.origin, Origin::BuiltIn) && gvk.group.is_empty() && gvk.kind == "Namespace" {
        name_label(&mut object, name);
    }
    conform(resource, &mut object);
    object
}

/// The annotation `kubectl apply` keeps the applied configuration in.
pub(crate) const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// `object` as `kubectl apply` sends it: the object as applied, in JSON, in its
/// `kubectl.kubernetes.io/last-applied-configuration` annotation
/// (`staging/src/k8s.io/kubectl/pkg/util/apply.go` GetModifiedConfiguration: the object without that
/// annotation, encoded, a newline after it).
fn applied_by_kubectl(object: &mut Value) {
    let Ok(applied) = serde_json::to_string(object) else { return };
    let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else { return };
    let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
    if let Some(map) = annotations.as_object_mut() {
        map.insert(LAST_APPLIED.into(), json!(format!("{applied}\n")));
    }
}

/// The `kubernetes.io/metadata.name` label the apiserver sets on every namespace, to its name
/// (`pkg/apis/core/v1/defaults.go` SetDefaults_Namespace): webhooks see it on CREATE already.
fn name_label(object: &mut Value, name: &str) {
    let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else { return };
    let labels = meta.entry("labels").or_insert_with(|| json!({}));
    if let Some(map) = labels.as_object_mut() {
        map.insert(crate::config::NAMESPACE_NAME_LABEL.into(), json!(name));
    }
}

/// What the apiserver's decoding makes of `object` before any webhook sees it: a built-in kind
/// through its type (unknown fields dropped), a custom resource of a CRD pruned and defaulted by
/// its schema; other custom resources as they are.
pub(crate) fn conform(resource: &Resource, object: &mut Value) {
    match &resource.origin {
        Origin::BuiltIn => {
            if let Some(Ok(decoded)) = crate::kinds::round_trip(&resource.gvk(), object) {
                *object = decoded;
            }
        }
        Origin::Crd(s) => schema::admit(s, object),
        Origin::Guessed => {}
    }
}

/// Pass a fixture through its k8s-openapi type so that what the suite sends is what that kind can
/// hold (the fixtures are the suite's own: one that does not decode is a bug of the suite).
fn typed(gvk: &Gvk, value: Value) -> Value {
    match crate::kinds::round_trip(gvk, &value) {
        Some(Ok(v)) => v,
        Some(Err(e)) => panic!("fixture for {gvk:?} does not decode as its kind: {e}"),
        None => value,
    }
}

/// The object of a CREATE as validating admission sees it: the registry has filled uid and
/// creationTimestamp (`registry/generic/registry/store.go` Create: rest.FillObjectMetaSystemFields)
/// and, for the kinds whose strategy's PrepareForCreate sets it, generation 1 ([`generation`], in
/// `rest.BeforeCreate`), and validating
/// admission runs before the object is written (`createValidation` in store.go Create): it has no
/// resourceVersion yet, which only storage assigns (and refuses on a create). A mutating webhook
/// sees a CREATE's object before all of this (`endpoints/handlers/create.go`: mutating admission
/// runs before `r.Create`).
pub(crate) fn created(mut object: Value, uid: &str) -> Value {
    let object_kind = json!({"apiVersion": object.get("apiVersion"), "kind": object.get("kind")});
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("uid".into(), json!(uid));
        meta.insert("creationTimestamp".into(), json!("2026-01-01T00:00:00Z"));
        if generation::set_on_create(&object_kind) {
            meta.insert("generation".into(), json!(1));
        }
        meta.remove("resourceVersion");
    }
    object
}

/// The object as the registry holds it once stored: what [`created`] fills, and the
/// resourceVersion storage assigned. UPDATE and DELETE carry it as oldObject (an UPDATE's new
/// object starts from it).
pub(crate) fn stored(object: Value, uid: &str, resource_version: &str) -> Value {
    let mut object = created(object, uid);
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("resourceVersion".into(), json!(resource_version));
    }
    object
}

/// The new object of an UPDATE: the stored object with one annotation changed by the user.
pub(crate) fn updated(old: &Value) -> Value {
    let mut object = old.clone();
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
        if let Some(map) = annotations.as_object_mut() {
            map.insert("suite.conformance.example/revision".into(), json!("2"));
        }
    }
    object
}

/// The new object of an UPDATE through subresource `sub` of `resource` (one that carries the parent
/// kind), from `old`, the stored object: a status written by its controller, an approval, an
/// ephemeral container added, a container resized, the finalizers cleared.
pub(crate) fn updated_through(resource: &Resource, sub: &str, old: &Value) -> Value {
    let mut object = edited_through(resource, sub, old);
    conform(resource, &mut object);
    object
}

/// The kubelet writes the QoS class the stored pod holds (`ValidatePodStatusUpdate` refuses a
/// changed one): `old`'s `status.qosClass`, none where it has none.
fn keep_qos_class(object: &mut Value, old: &Value) {
    let Some(status) = object.get_mut("status").and_then(Value::as_object_mut) else { return };
    match old.pointer("/status/qosClass") {
        Some(class) => status.insert("qosClass".into(), class.clone()),
        None => status.remove("qosClass"),
    };
}

/// [`updated_through`] before the apiserver's decoding.
fn edited_through(resource: &Resource, sub: &str, old: &Value) -> Value {
    let mut object = old.clone();
    match sub {
        "status" => {
            let status = match &resource.origin {
                Origin::BuiltIn => fixtures::status(&resource.gvk()),
                Origin::Crd(s) => schema::status_instance(s),
                Origin::Guessed => Some(json!({"observedGeneration": 1, "ready": true})),
            };
            object["status"] = status.unwrap_or_else(|| json!({}));
            if resource.kind == "Pod" {
                keep_qos_class(&mut object, old);
            }
        }
        "approval" => {
            object["status"] = json!({"conditions": [{"type": "Approved", "status": "True", "reason": "ApprovedByAdmin",
                "message": "approved", "lastUpdateTime": "2026-01-01T00:01:00Z"}]});
        }
        "ephemeralcontainers" => {
            if let Some(spec) = pod_spec_mut(&mut object, &resource.kind) {
                spec.insert(
                    "ephemeralContainers".into(),
                    json!([{"name": "debugger", "image": "registry.example/debug:1.0", "targetContainerName": "app",
                            "stdin": true, "tty": true}]),
                );
            }
        }
        "resize" => {
            if let Some(first) = object.pointer_mut("/spec/containers/0").and_then(Value::as_object_mut) {
                first.insert("resources".into(), json!({"requests": {"cpu": "200m"}, "limits": {"cpu": "500m"}}));
            }
        }
        "finalize" => {
            object["spec"] = json!({"finalizers": []});
        }
        _ => return updated(old),
    }
    object
}

/// An autoscaling/v1 Scale, as a `/scale` request carries it in place of the parent kind.
pub(crate) fn scale(name: &str, namespace: Option<&str>, uid: &str, replicas: i32) -> Value {
    let mut metadata =
        json!({"name": name, "uid": uid, "resourceVersion": "1001", "creationTimestamp": "2026-01-01T00:00:00Z"});
    if let Some(ns) = namespace {
        metadata["namespace"] = json!(ns);
    }
    json!({
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": metadata,
        "spec": {"replicas": replicas},
        "status": {"replicas": 2, "selector": "app=web"},
    })
}

/// A connect options object (e.g. PodExecOptions) of core/v1: k8s-openapi has no types for them;
/// their fields are `k8s.io/api/core/v1/types.go`'s.
pub(crate) fn connect_options(kind: &str) -> Value {
    let mut v = json!({"apiVersion": "v1", "kind": kind});
    let extra = match kind {
        "PodExecOptions" => {
            json!({"stdin": true, "stdout": true, "stderr": true, "tty": true, "container": "app", "command": ["sh"]})
        }
        "PodAttachOptions" => json!({"stdin": true, "stdout": true, "stderr": true, "container": "app"}),
        "PodPortForwardOptions" => json!({"ports": [8080]}),
        _ => json!({"path": "/healthz"}),
    };
    if let (Some(m), Some(e)) = (v.as_object_mut(), extra.as_object()) {
        m.extend(e.clone());
    }
    v
}

/// An object created through a subresource (an Eviction through `pods/eviction`, a Binding through
/// `pods/binding`, a TokenRequest through `serviceaccounts/token`), named like its parent.
pub(crate) fn created_through(gvk: &Gvk, name: &str, namespace: Option<&str>) -> Value {
    let mut metadata = json!({"name": name});
    if let Some(ns) = namespace {
        metadata["namespace"] = json!(ns);
    }
    let mut object = json!({"apiVersion": gvk.api_version(), "kind": gvk.kind, "metadata": metadata});
    if let (Some(m), Some(b)) = (object.as_object_mut(), fixtures::created_body(gvk).as_object()) {
        m.extend(b.clone());
    }
    typed(gvk, object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::requests::resources::built_ins;

    #[test]
    fn every_built_in_fixture_is_typed_and_shaped() {
        for resource in built_ins() {
            for variant in Variant::ALL {
                let o = new_object(resource, variant, "demo");
                assert_eq!(o["kind"], resource.kind);
                assert!(o["metadata"].get("uid").is_none(), "CREATE objects carry no uid");
                // A Namespace always has its name label, which the apiserver sets.
                let labelled = variant != Variant::Bare || resource.kind == "Namespace";
                assert_eq!(o["metadata"].get("labels").is_some(), labelled, "{}", resource.kind);
                if resource.kind == "Namespace" {
                    assert_eq!(o["metadata"]["labels"][crate::config::NAMESPACE_NAME_LABEL], "demo");
                }
                // The labelled variant comes from `kubectl apply`, with the applied object as JSON.
                if variant == Variant::Labelled && !resource.review {
                    let applied = o["metadata"]["annotations"][LAST_APPLIED].as_str().unwrap();
                    let applied: Value = serde_json::from_str(applied).unwrap();
                    assert_eq!(applied["metadata"]["name"], "demo");
                    assert_eq!(applied["kind"], resource.kind);
                    assert!(applied["metadata"]["annotations"].get(LAST_APPLIED).is_none());
                }
                assert_eq!(o["metadata"].get("name").is_some(), !resource.review, "{}", resource.kind);
                let s = stored(o, "u", "7");
                assert_eq!(s["metadata"]["uid"], "u");
                assert_eq!(s["metadata"]["resourceVersion"], "7");
            }
        }
    }

    /// A fixture that decodes as its kind and re-encodes to itself has no field the kind lacks and
    /// every field the kind requires, with values of the kind's types.
    #[test]
    fn every_fixture_is_exactly_what_its_kind_holds() {
        let mut problems = Vec::new();
        for resource in built_ins() {
            let gvk = resource.gvk();
            for variant in Variant::ALL {
                let mut raw = Map::new();
                raw.insert("apiVersion".into(), json!(gvk.api_version()));
                raw.insert("kind".into(), json!(gvk.kind));
                raw.insert("metadata".into(), json!({"name": "demo"}));
                raw.extend(body(resource, variant));
                let raw = Value::Object(raw);
                let back = crate::kinds::round_trip(&gvk, &raw).unwrap().unwrap();
                if back != raw {
                    problems.push(format!("{gvk:?} ({variant:?}):\n  fixture {raw}\n  typed   {back}"));
                }
                // Its quantities parse as ParseQuantity parses them.
                if let Err(e) = crate::kinds::decodes_as(&gvk, &raw).unwrap() {
                    problems.push(format!("{gvk:?} ({variant:?}): {e}"));
                }
            }
            let old = stored(new_object(resource, Variant::Bare, "demo"), "u", "7");
            for sub in resource.subresources.iter().filter(|s| s.object == super::super::resources::SubObject::Parent) {
                if sub.name == "status" && fixtures::status(&gvk).is_none() {
                    problems.push(format!("{gvk:?} has a /status but no status fixture"));
                }
                let raw = edited_through(resource, sub.name, &old);
                let back = crate::kinds::round_trip(&gvk, &raw).unwrap().unwrap();
                if back != raw {
                    problems.push(format!("{gvk:?} /{}:\n  fixture {raw}\n  typed   {back}", sub.name));
                }
                if let Err(e) = crate::kinds::decodes_as(&gvk, &raw).unwrap() {
                    problems.push(format!("{gvk:?} /{}: {e}", sub.name));
                }
            }
        }
        assert!(problems.is_empty(), "{} fixtures are not their kind's:\n{}", problems.len(), problems.join("\n"));
    }

    /// A pod reaches the mutating webhooks with a service account name: the ServiceAccount
    /// admission plugin, which runs before them, sets `default` on every pod without one (but a
    /// mirror pod). A webhook that injects a projected token then is not refused for a pod a
    /// cluster never sends.
    #[test]
    fn every_pod_variant_has_the_service_account_the_admission_plugin_sets() {
        for variant in [Variant::Bare, Variant::Labelled, Variant::Risky] {
            assert_eq!(pod_spec(variant)["serviceAccountName"], "default", "{variant:?}");
        }
    }

    #[test]
    fn update_changes_only_an_annotation() {
        let pods = built_ins().iter().find(|r| r.plural == "pods").unwrap();
        let old = stored(new_object(pods, Variant::Bare, "p"), "u", "7");
        let new = updated(&old);
        assert_ne!(old, new);
        assert_eq!(new["metadata"]["annotations"]["suite.conformance.example/revision"], "2");
        assert_eq!(old["spec"], new["spec"]);
    }

    #[test]
    fn subresource_updates_change_what_the_subresource_writes() {
        let pods = built_ins().iter().find(|r| r.plural == "pods").unwrap();
        let old = stored(new_object(pods, Variant::Bare, "p"), "u", "7");
        assert_eq!(updated_through(pods, "status", &old)["status"]["phase"], "Running");
        assert_eq!(
            updated_through(pods, "ephemeralcontainers", &old)["spec"]["ephemeralContainers"][0]["name"],
            "debugger"
        );
        assert_eq!(
            updated_through(pods, "resize", &old)["spec"]["containers"][0]["resources"]["limits"]["cpu"],
            "500m"
        );
        assert_eq!(updated_through(pods, "status", &old)["spec"], old["spec"]);
        // The QoS class is the stored pod's: none here, Burstable once stored so.
        assert!(updated_through(pods, "status", &old)["status"].get("qosClass").is_none());
        let mut burstable = old.clone();
        burstable["status"] = json!({"phase": "Pending", "qosClass": "Burstable"});
        assert_eq!(updated_through(pods, "status", &burstable)["status"]["qosClass"], "Burstable");
    }

    #[test]
    fn scale_is_autoscaling_v1() {
        let s = scale("web", Some(NAMESPACE), "u", 3);
        assert_eq!(s["apiVersion"], "autoscaling/v1");
        assert!(crate::kinds::decodes_as(&Gvk::new("autoscaling", "v1", "Scale"), &s).unwrap().is_ok());
    }
}
