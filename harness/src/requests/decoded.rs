//! The objects of a request the suite builds, as the apiserver holds them when it calls admission:
//! the handlers decode the body with the kind's defaulting decoder before mutating admission
//! (`apiserver/pkg/endpoints/handlers/create.go`, `update.go`: `decoder.Decode`, which runs the
//! scheme's `SetDefaults_*`, `pkg/apis/core/v1/defaults.go` and the apps and batch ones), and a
//! stored object (an UPDATE's or DELETE's oldObject) was defaulted when it was decoded from storage.
//! A custom resource is pruned and defaulted by its structural schema instead
//! (`apiextensions-apiserver/pkg/apiserver/customresource_handler.go`, [`super::schema::admit`]).
//!
//! Case files are not passed through here: they hold the objects as the apiserver sent them.

use serde_json::Value;

use super::review::AdmissionSpec;
use super::schema;
use crate::admission::Gvk;

/// Default `spec`'s object and oldObject as the decoder does before admission, and record on the
/// spec that they were sent so (`AdmissionSpec::sent_defaulted`). `schema` is the structural
/// schema of `spec.kind` when that kind is a custom resource of a CRD given (`None` for a built-in
/// kind, and for a subresource's own kind such as a custom resource's Scale).
pub(super) fn default_objects(spec: &mut AdmissionSpec, schema: Option<&Value>) {
    let AdmissionSpec { kind, object, old_object, .. } = spec;
    default_object(kind, schema, object);
    default_object(kind, schema, old_object);
    spec.sent_defaulted = true;
}

/// One object of kind `kind` as the decoder leaves it; `null` (no object) stays so.
fn default_object(kind: &Gvk, schema: Option<&Value>, object: &mut Value) {
    if object.is_null() {
        return;
    }
    match schema {
        Some(schema) => schema::admit(schema, object),
        None if apiserver_validation::defaults::has_defaults(&kind.group, &kind.kind) => {
            apiserver_validation::defaults::set_defaults(&kind.group, &kind.kind, object)
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::admission::{GroupVersionResource, Operation};
    use crate::requests::default_user;

    fn spec(kind: Gvk, object: Value, old: Value) -> AdmissionSpec {
        AdmissionSpec {
            operation: Operation::Update,
            resource: GroupVersionResource::new(&kind.group, &kind.version, "things"),
            kind,
            sub_resource: None,
            request_kind: None,
            request_resource: None,
            name: "a".into(),
            namespace: Some("default".into()),
            object: object.into(),
            old_object: old.into(),
            dry_run: false,
            deletion: Default::default(),
            user: default_user(),
            sent_defaulted: false,
        }
    }

    #[test]
    fn both_objects_of_a_built_in_kind_get_its_defaults_and_the_spec_says_so() {
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "a"}});
        let mut s = spec(Gvk::new("", "v1", "Secret"), secret.clone(), secret);
        default_objects(&mut s, None);
        assert_eq!(s.object["type"], "Opaque");
        assert_eq!(s.old_object["type"], "Opaque");
        assert!(s.sent_defaulted);
        // A type given is kept.
        let typed =
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "a"}, "type": "kubernetes.io/tls"});
        let mut s = spec(Gvk::new("", "v1", "Secret"), typed, Value::Null);
        default_objects(&mut s, None);
        assert_eq!(s.object["type"], "kubernetes.io/tls");
        assert!(s.old_object.is_null(), "no oldObject stays none");
    }

    #[test]
    fn a_custom_resource_is_pruned_and_defaulted_by_its_schema() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "mode": {"type": "string", "default": "safe"}}}}});
        let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                            "spec": {"unknown": 1}});
        let mut s = spec(Gvk::new("example.com", "v1", "Widget"), widget.clone(), widget);
        default_objects(&mut s, Some(&schema));
        for o in [&s.object, &s.old_object] {
            assert_eq!(o["spec"], json!({"mode": "safe"}), "{o}");
        }
        // A kind without defaults and no schema is left as it is.
        let scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": {"replicas": 3}});
        let mut s = spec(Gvk::new("autoscaling", "v1", "Scale"), scale.clone(), Value::Null);
        default_objects(&mut s, None);
        assert_eq!(*s.object, scale);
    }
}
