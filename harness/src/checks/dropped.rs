//! The writes of a patch that the registry does not keep, by JSON pointer: what `object.pruned`
//! and `object.status-reset` name.

use serde_json::Value;

/// The JSON pointers at which `patched` differs from `before` and `kept` (what the registry keeps
/// of it) does not hold the patched value: the writes of the patch that are dropped (by the pod
/// status strategy's reset here, by a custom resource's pruning in `custom_resource`). What `kept`
/// adds (a default) is not a write of the patch.
pub(super) fn dropped(
    before: Option<&Value>,
    patched: Option<&Value>,
    kept: Option<&Value>,
    path: &str,
    out: &mut Vec<String>,
) {
    if patched == before || patched == kept {
        return;
    }
    match (patched, kept) {
        (Some(Value::Object(p)), Some(Value::Object(k))) => {
            let was = before.and_then(Value::as_object);
            let mut keys: Vec<&String> =
                p.keys().chain(k.keys()).chain(was.into_iter().flat_map(|b| b.keys())).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let token = format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"));
                dropped(was.and_then(|b| b.get(key)), p.get(key), k.get(key), &token, out);
            }
        }
        (Some(Value::Array(p)), Some(Value::Array(k))) if p.len() == k.len() => {
            for (i, (item, kept_item)) in p.iter().zip(k).enumerate() {
                dropped(before.and_then(|b| b.get(i)), Some(item), Some(kept_item), &format!("{path}/{i}"), out);
            }
        }
        _ => out.push(path.to_string()),
    }
}
