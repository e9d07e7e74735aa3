//! What other mutating webhooks do to an object between two calls of the one judged.

use serde_json::{json, Value};

use crate::requests::generated::pod_spec_path;

/// What another mutating webhook does between two calls: adds a label, an annotation, a container.
pub(super) fn other_mutator(object: &Value) -> Value {
    let mut o = object.clone();
    if let Some(meta) = o.get_mut("metadata").and_then(Value::as_object_mut) {
        for (field, key, value) in
            [("labels", "other.example/injected", "1"), ("annotations", "other.example/touched", "yes")]
        {
            let map = meta.entry(field).or_insert_with(|| json!({}));
            if !map.is_object() {
                *map = json!({});
            }
            map[key] = json!(value);
        }
    }
    let kind = o.get("kind").and_then(Value::as_str).unwrap_or_default().to_string();
    if let Some(path) = pod_spec_path(&kind) {
        let mut spec = &mut o;
        for step in path {
            match spec.get_mut(*step) {
                Some(next) => spec = next,
                None => return o,
            }
        }
        if let Some(containers) = spec.get_mut("containers").and_then(Value::as_array_mut) {
            containers.push(json!({"name": "other-mutator", "image": "registry.example/other:1"}));
        }
    }
    o
}
