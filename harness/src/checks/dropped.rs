//! The writes of a patch that the registry does not keep, by JSON pointer: what `object.pruned`
//! and `object.status-reset` name.

use serde_json::Value;

use super::Check;

/// The finding of a rule that names the writes of a patch (on `before`, giving `patched`) that the
/// registry does not keep of it (`kept`): a pass when it keeps them all, else a breach whose detail
/// is "the patch writes <pointers> (JSON pointer[s]), which <the registry does …>: it does so
/// without a word, so this mutation never reaches storage", `which` telling, from the pointers,
/// what drops them.
pub(super) fn finding(before: &Value, patched: &Value, kept: &Value, which: impl FnOnce(&[String]) -> String) -> Check {
    let mut paths = Vec::new();
    dropped(Some(before), Some(patched), Some(kept), "", &mut paths);
    if paths.is_empty() {
        return Check::Pass;
    }
    Check::violated_plain(format!(
        "the patch writes {} (JSON pointer{}), which {}: it does so without a word, so this mutation never reaches storage",
        paths.join(", "),
        if paths.len() == 1 { "" } else { "s" },
        which(&paths),
    ))
}

/// The JSON pointers at which `patched` differs from `before` and `kept` (what the registry keeps
/// of it) does not hold the patched value: the writes of the patch that are dropped (by the pod
/// status strategy's reset here, by a custom resource's pruning in `custom_resource`). What `kept`
/// adds (a default) is not a write of the patch.
fn dropped(before: Option<&Value>, patched: Option<&Value>, kept: Option<&Value>, path: &str, out: &mut Vec<String>) {
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
