//! `metadata.managedFields` as the apiserver's field manager writes it for the objects the suite
//! sends. The create and update handlers (apiserver `pkg/endpoints/handlers/create.go`,
//! `update.go`) call `fieldManager.UpdateNoErrors(liveObj, obj, manager)` before mutating
//! admission, so every webhook (mutating and validating) sees the entry, and a stored object keeps
//! it. For an `Update` operation the manager owns what changed from the live object
//! (structured-merge-diff `typed.Compare`: added and modified fields); on CREATE the live object is
//! the kind's empty object (`scope.Creater.New`), whose non-pointer structs (`spec`, a workload's
//! `template`) are there already and so carry no `.` of their own. `apiVersion`, `kind` and the
//! metadata the registry owns (`name`, `namespace`, `uid`, …) are never tracked
//! (`internal/stripmeta.go`).
//!
//! Only kinds whose schema is described here get an entry: the kinds that hold a pod spec,
//! ConfigMap, Secret and Service. Their lists are keyed as their types declare
//! (`+listMapKey`), `LabelSelector`s, `command` and `args` are atomic.

use serde_json::{json, Map, Value};

use super::review::AdmissionSpec;
use crate::admission::Operation;

/// The time of the creating entry (the objects' creationTimestamp).
const CREATED_AT: &str = "2026-01-01T00:00:00Z";
/// The time of an UPDATE's entry.
const UPDATED_AT: &str = "2026-01-01T00:01:00Z";
/// The annotation `kubectl apply` (client-side) writes; its presence says which kubectl made it.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";
/// The manager of an UPDATE's change (the suite's UPDATE changes one annotation).
const UPDATE_MANAGER: &str = "kubectl-annotate";

/// The metadata fields the field manager never tracks (`stripmeta.go`).
const STRIPPED_METADATA: &[&str] =
    &["name", "namespace", "creationTimestamp", "selfLink", "uid", "generation", "managedFields", "resourceVersion"];

fn template_zero() -> Value {
    json!({"metadata": {}, "spec": {"containers": null}})
}

/// The empty object of `kind` as Go serializes it (what the field manager compares a created
/// object with), without its metadata and status; `None` for a kind not described here.
fn zero(kind: &str) -> Option<Value> {
    Some(match kind {
        "Pod" => json!({"spec": {"containers": null}}),
        "PodTemplate" => json!({"template": template_zero()}),
        // ReplicationControllerSpec.Template is a pointer: a created RC's template is all new.
        "ReplicationController" | "Service" => json!({"spec": {}}),
        "Deployment" => json!({"spec": {"selector": null, "template": template_zero(), "strategy": {}}}),
        "ReplicaSet" | "Job" => json!({"spec": {"selector": null, "template": template_zero()}}),
        "StatefulSet" | "DaemonSet" => {
            json!({"spec": {"selector": null, "template": template_zero(), "updateStrategy": {}}})
        }
        "CronJob" => json!({"spec": {"jobTemplate": {"metadata": {}, "spec": {"template": template_zero()}}}}),
        "ConfigMap" | "Secret" => json!({}),
        _ => return None,
    })
}

/// Whether `kind` is described here (has a [`zero`]).
fn described(kind: &str) -> bool {
    matches!(
        kind,
        "Pod"
            | "PodTemplate"
            | "ReplicationController"
            | "Service"
            | "Deployment"
            | "ReplicaSet"
            | "Job"
            | "StatefulSet"
            | "DaemonSet"
            | "CronJob"
            | "ConfigMap"
            | "Secret"
    )
}

/// Fill the managedFields of the objects of `spec` as a cluster holds them when the webhook is
/// called: a CREATE's object (both phases), the stored oldObject of an UPDATE or DELETE, and an
/// UPDATE's new object. Objects of another kind than the resource's (Scale, options, a Binding)
/// and kinds not described here are left alone; an UPDATE through a subresource keeps the stored
/// entries without adding the subresource writer's.
pub(crate) fn record(spec: &mut AdmissionSpec) {
    if !described(&spec.kind.kind) {
        return;
    }
    match spec.operation {
        Operation::Create if spec.sub_resource.is_none() => record_created(&mut spec.object),
        Operation::Update => {
            record_created(&mut spec.old_object);
            record_updated(&mut spec.object, &spec.old_object, spec.sub_resource.is_none());
        }
        Operation::Delete => record_created(&mut spec.old_object),
        _ => {}
    }
}

/// How a list or map at a path is merged (its `x-kubernetes-list-type` / `map-type`).
enum Shape {
    /// One value: owned whole.
    Atomic,
    /// A list whose items are told apart by these fields.
    Keyed(&'static [&'static str]),
    /// A list of scalars, each owned on its own.
    Set,
    /// A struct or a map: each field owned on its own.
    Granular,
}

/// The shape of `value` at `path` (field names, list items left out) of an object of `kind`,
/// whose pod spec (if it holds one) is at `pod_spec`.
fn shape(kind: &str, pod_spec: Option<&[&str]>, path: &[&str], value: &Value) -> Shape {
    let last = path.last().copied().unwrap_or_default();
    if last == "selector" && matches!(kind, "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job") {
        return Shape::Atomic;
    }
    match value {
        Value::Array(_) => {
            let in_pod_spec = || pod_spec.is_some_and(|p| path.len() > p.len() && path.starts_with(p));
            match last {
                "ownerReferences" if path.len() == 2 => Shape::Keyed(&["uid"]),
                "finalizers" if path.len() == 2 => Shape::Set,
                "ports" if kind == "Service" => Shape::Keyed(&["port", "protocol"]),
                "containers" | "initContainers" | "ephemeralContainers" | "volumes" | "imagePullSecrets" | "env"
                    if in_pod_spec() =>
                {
                    Shape::Keyed(&["name"])
                }
                "ports" if in_pod_spec() => Shape::Keyed(&["containerPort", "protocol"]),
                "volumeMounts" if in_pod_spec() => Shape::Keyed(&["mountPath"]),
                _ => Shape::Atomic,
            }
        }
        Value::Object(m) if !m.is_empty() => Shape::Granular,
        _ => Shape::Atomic,
    }
}

/// One FieldsV1 being built for an object of `kind`: the path of the node being built and the
/// entries of the nodes still open, innermost last (one buffer for the whole tree, each node's
/// entries taken from its end when it is done).
struct Fields<'a> {
    kind: &'a str,
    pod_spec: Option<&'static [&'static str]>,
    path: Vec<&'a str>,
    entries: Vec<(String, Value)>,
}

impl<'a> Fields<'a> {
    fn new(kind: &'a str) -> Self {
        Fields { kind, pod_spec: super::objects::pod_spec_path(kind), path: Vec::new(), entries: Vec::new() }
    }

    fn at_top_level_metadata(&self) -> bool {
        self.path.len() == 1 && self.path[0] == "metadata"
    }

    /// The FieldsV1 node of `value` at the current path, owned by whoever changed it from `base`
    /// (the live value there, `None` where the live object has nothing); `None` when nothing there
    /// changed.
    fn node(&mut self, value: &'a Value, base: Option<&Value>) -> Option<Value> {
        let start = self.entries.len();
        match shape(self.kind, self.pod_spec, &self.path, value) {
            Shape::Atomic => return (base != Some(value)).then(empty),
            Shape::Granular => {
                let map = value.as_object()?;
                let top_level_metadata = self.at_top_level_metadata();
                let mut live = Members::of(base);
                for (field, child) in map {
                    if top_level_metadata && STRIPPED_METADATA.contains(&field.as_str()) {
                        live.pass(field);
                        continue;
                    }
                    let before = live.member(field);
                    self.path.push(field);
                    let below = self.node(child, before);
                    self.path.pop();
                    if let Some(n) = below {
                        self.entries.push((prefixed("f:", field), n));
                    }
                }
            }
            Shape::Keyed(keys) => {
                let base_items = base.and_then(Value::as_array);
                let base_keys: Vec<String> = base_items.into_iter().flatten().map(|i| item_key(i, keys)).collect();
                for item in value.as_array()?.iter().filter(|i| i.is_object()) {
                    let key = item_key(item, keys);
                    let before =
                        base_keys.iter().position(|k| *k == key).and_then(|i| base_items.and_then(|b| b.get(i)));
                    if let Some(n) = self.node(item, before) {
                        self.entries.push((key, n));
                    }
                }
            }
            Shape::Set => {
                for item in value.as_array()? {
                    let before = base.and_then(Value::as_array).is_some_and(|b| b.contains(item));
                    if !before {
                        self.entries.push((format!("v:{item}"), empty()));
                    }
                }
            }
        }
        // A struct, map or list the live object did not hold is owned itself (`.`), besides its
        // fields.
        let owned = self.entries.len() > start;
        if owned && base.is_none() && !self.at_top_level_metadata() {
            self.entries.push((".".into(), empty()));
        }
        owned.then(|| self.take(start))
    }

    /// The FieldsV1 node of the entries from `start` on, in the order of their names; of two
    /// entries of one name the later one is kept (a stable sort puts it after the earlier one,
    /// and inserting it replaces the earlier one's value where that one stands).
    fn take(&mut self, start: usize) -> Value {
        self.entries[start..].sort_by(|a, b| a.0.cmp(&b.0));
        let mut map = Map::with_capacity(self.entries.len() - start);
        map.extend(self.entries.drain(start..));
        Value::Object(map)
    }
}

/// The members of a live value, looked up by the names of an object's members in their order:
/// an object made from the live one (an UPDATE's) lists its members in the same order, so each is
/// found as the next live member; where the two part, by a lookup.
struct Members<'b> {
    map: Option<&'b Map<String, Value>>,
    next: Option<std::iter::Peekable<serde_json::map::Iter<'b>>>,
}

impl<'b> Members<'b> {
    /// The members of `base` (none unless it is an object).
    fn of(base: Option<&'b Value>) -> Self {
        let map = base.and_then(Value::as_object);
        Members { map, next: map.map(|m| m.iter().peekable()) }
    }

    /// The live member named `field`.
    fn member(&mut self, field: &str) -> Option<&'b Value> {
        let (map, next) = (self.map?, self.next.as_mut()?);
        match next.next_if(|(name, _)| name.as_str() == field) {
            Some((_, value)) => Some(value),
            None => map.get(field),
        }
    }

    /// Pass over the member named `field`, not looked at.
    fn pass(&mut self, field: &str) {
        if let Some(next) = self.next.as_mut() {
            next.next_if(|(name, _)| name.as_str() == field);
        }
    }
}

/// An empty FieldsV1 node: the field itself is owned.
fn empty() -> Value {
    Value::Object(Map::new())
}

/// `name` after `prefix` (`f:`, `k:`), in one allocation.
fn prefixed(prefix: &str, name: &str) -> String {
    let mut key = String::with_capacity(prefix.len() + name.len());
    key.push_str(prefix);
    key.push_str(name);
    key
}

/// A list item's key as FieldsV1 writes it, `k:` and its key fields, sorted by name, as compact
/// JSON. `keys` are sorted by name already.
fn item_key(item: &Value, keys: &[&str]) -> String {
    debug_assert!(keys.is_sorted());
    let mut key = String::with_capacity(32);
    key.push_str("k:{");
    for (i, (k, v)) in keys.iter().filter_map(|k| Some((k, item.get(*k)?))).enumerate() {
        if i > 0 {
            key.push(',');
        }
        // A key field's name needs no escape.
        key.push('"');
        key.push_str(k);
        key.push_str("\":");
        compact(&mut key, v);
    }
    key.push('}');
    key
}

/// `value` as compact JSON, as serde_json writes it: a string that needs no escape directly.
fn compact(out: &mut String, value: &Value) {
    match value {
        Value::String(s) if !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) => {
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        _ => {
            use std::fmt::Write;
            let _ = write!(out, "{value}");
        }
    }
}

/// The FieldsV1 of what `object` changed from `base` (the whole object as the live one).
fn fields_v1(kind: &str, object: &Value, base: &Value) -> Value {
    // The object's root is always there; apiVersion, kind and status are left out.
    let Some(map) = object.as_object() else { return empty() };
    let mut fields = Fields::new(kind);
    let mut live = Members::of(Some(base));
    for (field, child) in map {
        if matches!(field.as_str(), "apiVersion" | "kind" | "status") {
            live.pass(field);
            continue;
        }
        let before = live.member(field);
        fields.path.push(field.as_str());
        if let Some(n) = fields.node(child, before) {
            fields.entries.push((prefixed("f:", field), n));
        }
        fields.path.pop();
    }
    fields.take(0)
}

/// One managedFields entry, its fields in the order Go writes them.
fn entry(manager: &str, api_version: &Value, time: &str, fields: Value) -> Value {
    // Built field by field: `json!` would copy `fields` through serialization.
    let mut e = Map::with_capacity(6);
    e.insert("manager".into(), Value::from(manager));
    e.insert("operation".into(), Value::from("Update"));
    e.insert("apiVersion".into(), api_version.clone());
    e.insert("time".into(), Value::from(time));
    e.insert("fieldsType".into(), Value::from("FieldsV1"));
    e.insert("fieldsV1".into(), fields);
    Value::Object(e)
}

fn kind_of(object: &Value) -> &str {
    object.get("kind").and_then(Value::as_str).unwrap_or_default()
}

/// The manager a kubectl-made object is recorded under: `kubectl-client-side-apply` when it
/// carries `kubectl apply`'s annotation, `kubectl-create` otherwise.
fn creator(object: &Value) -> &'static str {
    if object["metadata"]["annotations"].get(LAST_APPLIED).is_some() {
        "kubectl-client-side-apply"
    } else {
        "kubectl-create"
    }
}

/// `object` as created by kubectl: one entry owning every field it set. Kinds not described here
/// are left as they are.
fn record_created(object: &mut Value) {
    let kind = kind_of(object);
    let Some(base) = zero(kind) else { return };
    let fields = fields_v1(kind, object, &base);
    let e = entry(creator(object), &object["apiVersion"], CREATED_AT, fields);
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("managedFields".into(), Value::Array(vec![e]));
    }
}

/// `object`, the new object of an UPDATE of `old` (which [`record_created`] recorded): `old`'s
/// entries, and, when `changed_by_user` (an UPDATE of the resource itself, not of a
/// subresource), one more owning what the user changed.
fn record_updated(object: &mut Value, old: &Value, changed_by_user: bool) {
    let kind = kind_of(object);
    if !described(kind) {
        return;
    }
    let mut entries = old["metadata"]["managedFields"].as_array().cloned().unwrap_or_default();
    if changed_by_user {
        let fields = fields_v1(kind, object, old);
        if fields.as_object().is_some_and(|f| !f.is_empty()) {
            entries.push(entry(UPDATE_MANAGER, &object["apiVersion"], UPDATED_AT, fields));
        }
    }
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("managedFields".into(), Value::Array(entries));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every path of `fields` (a FieldsV1), as `a.b.k:{…}.c`; a `.` adds its parent itself.
    fn paths(fields: &Value, prefix: &str, out: &mut Vec<String>) {
        for (k, v) in fields.as_object().unwrap() {
            if k == "." {
                out.push(prefix.to_string());
                continue;
            }
            let p = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            if v.as_object().unwrap().is_empty() {
                out.push(p);
            } else {
                paths(v, &p, out);
            }
        }
    }

    #[test]
    fn the_described_kinds_are_those_with_an_empty_object() {
        let kinds = [
            "Pod",
            "PodTemplate",
            "ReplicationController",
            "Service",
            "Deployment",
            "ReplicaSet",
            "Job",
            "StatefulSet",
            "DaemonSet",
            "CronJob",
            "ConfigMap",
            "Secret",
            "Endpoints",
            "Scale",
            "Namespace",
            "",
        ];
        for kind in kinds {
            assert_eq!(described(kind), zero(kind).is_some(), "{kind}");
        }
    }

    #[test]
    fn a_created_pod_lists_each_of_its_fields_as_the_field_manager_writes_them() {
        let mut pod = json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "n", "labels": {"app": "web"}, "finalizers": ["example.com/f"]},
            "spec": {
                "initContainers": [{"name": "init", "image": "i", "command": ["sh", "-c", "true"]}],
                "containers": [
                    {"name": "app", "image": "a",
                     "env": [{"name": "MODE", "value": "prod"}],
                     "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                     "resources": {"limits": {"cpu": "500m"}},
                     "securityContext": {"privileged": true},
                     "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
                    {"name": "helper", "image": "h"}
                ],
                "volumes": [{"name": "data", "emptyDir": {}}],
                "hostNetwork": true
            }
        });
        record_created(&mut pod);
        let entries = pod["metadata"]["managedFields"].as_array().unwrap();
        assert_eq!(entries.len(), 1);
        let e = &entries[0];
        assert_eq!(e["manager"], "kubectl-create");
        assert_eq!(e["operation"], "Update");
        assert_eq!(e["apiVersion"], "v1");
        assert_eq!(e["fieldsType"], "FieldsV1");
        let keys: Vec<&String> = e.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1"]);
        let mut got = Vec::new();
        paths(&e["fieldsV1"], "", &mut got);
        got.sort();
        let c = r#"f:spec.f:containers.k:{"name":"app"}"#;
        let mut want: Vec<String> = [
            "f:metadata.f:labels",
            "f:metadata.f:labels.f:app",
            "f:metadata.f:finalizers",
            r#"f:metadata.f:finalizers.v:"example.com/f""#,
            "f:spec.f:hostNetwork",
            "f:spec.f:initContainers",
            r#"f:spec.f:initContainers.k:{"name":"init"}"#,
            r#"f:spec.f:initContainers.k:{"name":"init"}.f:name"#,
            r#"f:spec.f:initContainers.k:{"name":"init"}.f:image"#,
            r#"f:spec.f:initContainers.k:{"name":"init"}.f:command"#,
            c,
            &format!("{c}.f:name"),
            &format!("{c}.f:image"),
            &format!("{c}.f:env"),
            &format!(r#"{c}.f:env.k:{{"name":"MODE"}}"#),
            &format!(r#"{c}.f:env.k:{{"name":"MODE"}}.f:name"#),
            &format!(r#"{c}.f:env.k:{{"name":"MODE"}}.f:value"#),
            &format!("{c}.f:ports"),
            &format!(r#"{c}.f:ports.k:{{"containerPort":8080,"protocol":"TCP"}}"#),
            &format!(r#"{c}.f:ports.k:{{"containerPort":8080,"protocol":"TCP"}}.f:containerPort"#),
            &format!(r#"{c}.f:ports.k:{{"containerPort":8080,"protocol":"TCP"}}.f:protocol"#),
            &format!("{c}.f:resources"),
            &format!("{c}.f:resources.f:limits"),
            &format!("{c}.f:resources.f:limits.f:cpu"),
            &format!("{c}.f:securityContext"),
            &format!("{c}.f:securityContext.f:privileged"),
            &format!("{c}.f:volumeMounts"),
            &format!(r#"{c}.f:volumeMounts.k:{{"mountPath":"/data"}}"#),
            &format!(r#"{c}.f:volumeMounts.k:{{"mountPath":"/data"}}.f:name"#),
            &format!(r#"{c}.f:volumeMounts.k:{{"mountPath":"/data"}}.f:mountPath"#),
            r#"f:spec.f:containers.k:{"name":"helper"}"#,
            r#"f:spec.f:containers.k:{"name":"helper"}.f:name"#,
            r#"f:spec.f:containers.k:{"name":"helper"}.f:image"#,
            "f:spec.f:volumes",
            r#"f:spec.f:volumes.k:{"name":"data"}"#,
            r#"f:spec.f:volumes.k:{"name":"data"}.f:name"#,
            r#"f:spec.f:volumes.k:{"name":"data"}.f:emptyDir"#,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        want.sort();
        assert_eq!(got, want);
        // The pod's spec and its containers list are in the empty Pod already: no `.` of their own;
        // a keyed item carries one, and the registry's metadata is not tracked.
        let f = &e["fieldsV1"];
        assert!(f["f:spec"].get(".").is_none() && f["f:spec"]["f:containers"].get(".").is_none());
        assert!(f["f:spec"]["f:containers"][r#"k:{"name":"app"}"#].get(".").is_some());
        assert!(f["f:metadata"].get(".").is_none() && f["f:metadata"].get("f:name").is_none());
        assert_eq!(f.as_object().unwrap().keys().collect::<Vec<_>>(), ["f:metadata", "f:spec"]);
    }

    #[test]
    fn a_workloads_template_is_there_before_its_fields_and_its_selector_is_atomic() {
        let mut d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "app", "image": "a"}]}}}});
        record_created(&mut d);
        let f = &d["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"];
        assert_eq!(f["f:replicas"], json!({}));
        assert_eq!(f["f:selector"], json!({}), "a LabelSelector is atomic");
        assert!(f["f:template"].get(".").is_none() && f["f:template"]["f:metadata"].get(".").is_none());
        assert_eq!(f["f:template"]["f:metadata"]["f:labels"], json!({".": {}, "f:app": {}}));
        // A ReplicationController's template is a pointer: all of it is new, and its selector a map.
        let mut rc = json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "r"},
            "spec": {"selector": {"app": "web"}, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "app", "image": "a"}]}}}});
        record_created(&mut rc);
        let f = &rc["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"];
        assert_eq!(f["f:selector"], json!({".": {}, "f:app": {}}));
        assert!(f["f:template"].get(".").is_some() && f["f:template"]["f:spec"]["f:containers"].get(".").is_some());
    }

    #[test]
    fn an_applied_object_names_client_side_apply_and_an_update_adds_the_changers_entry() {
        let mut cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "annotations": {LAST_APPLIED: "{}"}}, "data": {"k": "v"}});
        record_created(&mut cm);
        assert_eq!(cm["metadata"]["managedFields"][0]["manager"], "kubectl-client-side-apply");
        assert_eq!(
            cm["metadata"]["managedFields"][0]["fieldsV1"],
            json!({"f:data": {".": {}, "f:k": {}}, "f:metadata": {"f:annotations": {".": {}, format!("f:{LAST_APPLIED}"): {}}}})
        );
        let mut new = cm.clone();
        new["metadata"]["annotations"]["rev"] = json!("2");
        record_updated(&mut new, &cm, true);
        let entries = new["metadata"]["managedFields"].as_array().unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0], cm["metadata"]["managedFields"][0]);
        assert_eq!(entries[1]["manager"], UPDATE_MANAGER);
        assert_eq!(entries[1]["fieldsV1"], json!({"f:metadata": {"f:annotations": {"f:rev": {}}}}));
        // A kind the suite does not describe is left alone.
        let mut other = json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "e"}});
        record_created(&mut other);
        assert!(other["metadata"].get("managedFields").is_none());
    }
}
