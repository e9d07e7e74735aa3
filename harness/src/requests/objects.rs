//! Objects the suite presents to a webhook, built as the apiserver presents them at each point of an
//! admission: typed built-in kinds (checked against k8s-openapi) and plain JSON for custom resources.

use serde_json::{json, Map, Value};

use super::resources::Resource;
use crate::admission::Gvk;

/// Which flavour of an object: the shapes that most often break webhooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// No labels, no annotations: maps a webhook may wrongly assume exist.
    Bare,
    /// Labels and annotations, keys with `/` and `~`, several containers.
    Labelled,
    /// What policy webhooks exist to refuse: a privileged container, an image tagged `latest`, the
    /// host network. Only for kinds that hold a pod spec.
    Risky,
}

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::Bare, Variant::Labelled, Variant::Risky];
    pub fn as_str(self) -> &'static str {
        match self {
            Variant::Bare => "bare",
            Variant::Labelled => "labelled",
            Variant::Risky => "risky",
        }
    }
}

pub const NAMESPACE: &str = "conformance-test";

fn pod_spec(variant: Variant) -> Value {
    match variant {
        Variant::Bare => json!({"containers": [{"name": "app", "image": "registry.example/app:1.0"}]}),
        Variant::Risky => json!({
            "hostNetwork": true,
            "containers": [{"name": "app", "image": "registry.example/app:latest",
                            "securityContext": {"privileged": true, "runAsUser": 0}}]
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

fn template(variant: Variant) -> Value {
    json!({"metadata": {"labels": {"app": "web"}}, "spec": pod_spec(variant)})
}

fn spec_for(kind: &str, variant: Variant) -> Option<(&'static str, Value)> {
    let selector = json!({"matchLabels": {"app": "web"}});
    Some(match kind {
        "Pod" => ("spec", pod_spec(variant)),
        "ConfigMap" => (
            "data",
            match variant {
                Variant::Bare => json!({}),
                Variant::Labelled | Variant::Risky => json!({"config.yaml": "a: 1\n", "empty": ""}),
            },
        ),
        "Secret" => ("data", json!({"token": "c2VjcmV0"})),
        "Service" => (
            "spec",
            json!({"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080, "protocol": "TCP"}]}),
        ),
        "ServiceAccount" | "Namespace" => return None,
        "Deployment" | "ReplicaSet" => {
            ("spec", json!({"replicas": 2, "selector": selector, "template": template(variant)}))
        }
        "StatefulSet" => {
            ("spec", json!({"replicas": 1, "serviceName": "web", "selector": selector, "template": template(variant)}))
        }
        "DaemonSet" => ("spec", json!({"selector": selector, "template": template(variant)})),
        "Job" => (
            "spec",
            json!({"template": {"spec": {"restartPolicy": "Never", "containers": pod_spec(variant)["containers"].clone()}}}),
        ),
        "CronJob" => (
            "spec",
            json!({"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure", "containers": pod_spec(variant)["containers"].clone()}}}}}),
        ),
        "Ingress" => (
            "spec",
            json!({"rules": [{"host": "web.example.com", "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}),
        ),
        _ => ("spec", json!({"replicas": 1, "note": "plain JSON custom resource"})),
    })
}

/// Does this kind hold a pod spec (so that the risky variant means something)?
pub fn holds_pod_spec(kind: &str) -> bool {
    matches!(kind, "Pod" | "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job" | "CronJob")
}

/// An object of `resource` as a client sends it on CREATE: no uid, creationTimestamp, generation or
/// resourceVersion yet.
pub fn new_object(resource: &Resource, variant: Variant, name: &str) -> Value {
    let gvk = resource.gvk();
    let mut metadata = Map::new();
    metadata.insert("name".into(), json!(name));
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
    if let Some((field, value)) = spec_for(&gvk.kind, variant) {
        object.insert(field.into(), value);
    }
    typed(&gvk, Value::Object(object))
}

/// Pass a built-in object through its k8s-openapi type so that what the suite sends is what that
/// kind can hold.
fn typed(gvk: &Gvk, value: Value) -> Value {
    match crate::kinds::round_trip(gvk, &value) {
        Some(Ok(v)) => v,
        Some(Err(e)) => panic!("fixture for {gvk:?} does not decode as its kind: {e}"),
        None => value,
    }
}

/// The object as the registry holds it once stored: uid, creationTimestamp, generation and
/// resourceVersion set. A validating webhook sees a CREATE's object this way.
pub fn stored(mut object: Value, uid: &str, resource_version: &str) -> Value {
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("uid".into(), json!(uid));
        meta.insert("creationTimestamp".into(), json!("2026-01-01T00:00:00Z"));
        meta.insert("generation".into(), json!(1));
        meta.insert("resourceVersion".into(), json!(resource_version));
    }
    object
}

/// The new object of an UPDATE: the stored object with one annotation changed by the user.
pub fn updated(old: &Value) -> Value {
    let mut object = old.clone();
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
        if let Some(map) = annotations.as_object_mut() {
            map.insert("suite.conformance.example/revision".into(), json!("2"));
        }
    }
    object
}

/// An autoscaling/v1 Scale, as a `/scale` request carries it in place of the parent kind.
pub fn scale(name: &str, uid: &str, replicas: i32) -> Value {
    json!({
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": {"name": name, "namespace": NAMESPACE, "uid": uid, "resourceVersion": "1001",
                     "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"replicas": replicas},
        "status": {"replicas": 2, "selector": "app=web"},
    })
}

/// A connect options object (e.g. PodExecOptions) of core/v1.
pub fn connect_options(kind: &str) -> Value {
    let mut v = json!({"apiVersion": "v1", "kind": kind});
    let extra = match kind {
        "PodExecOptions" => json!({"stdin": true, "stdout": true, "tty": true, "container": "app", "command": ["sh"]}),
        "PodAttachOptions" => json!({"stdin": true, "stdout": true, "container": "app"}),
        "PodPortForwardOptions" => json!({"ports": [8080]}),
        _ => json!({"path": "/"}),
    };
    if let (Some(m), Some(e)) = (v.as_object_mut(), extra.as_object()) {
        m.extend(e.clone());
    }
    v
}

/// An object created through a subresource (e.g. an Eviction through `pods/eviction`).
pub fn created_through(gvk: &Gvk, name: &str) -> Value {
    let object = json!({
        "apiVersion": gvk.api_version(),
        "kind": gvk.kind,
        "metadata": {"name": name, "namespace": NAMESPACE},
    });
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
                let o = new_object(&resource, variant, "demo");
                assert_eq!(o["kind"], resource.kind);
                assert!(o["metadata"].get("uid").is_none(), "CREATE objects carry no uid");
                assert_eq!(o["metadata"].get("labels").is_some(), variant != Variant::Bare, "{}", resource.kind);
                let s = stored(o, "u", "7");
                assert_eq!(s["metadata"]["uid"], "u");
                assert_eq!(s["metadata"]["resourceVersion"], "7");
            }
        }
    }

    #[test]
    fn update_changes_only_an_annotation() {
        let pods = &built_ins()[0];
        let old = stored(new_object(pods, Variant::Bare, "p"), "u", "7");
        let new = updated(&old);
        assert_ne!(old, new);
        assert_eq!(new["metadata"]["annotations"]["suite.conformance.example/revision"], "2");
        assert_eq!(old["spec"], new["spec"]);
    }

    #[test]
    fn scale_is_autoscaling_v1() {
        let s = scale("web", "u", 3);
        assert_eq!(s["apiVersion"], "autoscaling/v1");
        assert!(crate::kinds::decodes_as(&Gvk::new("autoscaling", "v1", "Scale"), &s).unwrap().is_ok());
    }
}
