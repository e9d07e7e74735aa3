//! The shape of a recorded request, for keeping one case per shape: the resource, subresource,
//! operation and webhook, and the set of field paths its object holds (array positions folded, so
//! that a pod with two containers has the shape of one with three).

use std::collections::BTreeSet;

use serde_json::Value;

/// FNV-1a, 64 bits: stable across runs and platforms (file names and shapes must not change with
/// the compiler's hasher).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn paths(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                paths(v, &format!("{prefix}/{k}"), out);
            }
            if map.is_empty() {
                out.insert(format!("{prefix}{{}}"));
            }
        }
        Value::Array(items) => {
            for v in items {
                paths(v, &format!("{prefix}/*"), out);
            }
            if items.is_empty() {
                out.insert(format!("{prefix}[]"));
            }
        }
        _ => {
            out.insert(prefix.to_string());
        }
    }
}

/// The shape of an AdmissionRequest (JSON) sent to `webhook`.
pub fn shape(request: &Value, webhook: Option<&str>) -> u64 {
    let field = |k: &str| request.get(k).map(Value::to_string).unwrap_or_default();
    let mut fields = BTreeSet::new();
    for side in ["object", "oldObject"] {
        if let Some(v) = request.get(side).filter(|v| !v.is_null()) {
            paths(v, &format!("/{side}"), &mut fields);
        }
    }
    let resource = request.get("resource").map(|r| {
        let g = r.get("group").and_then(Value::as_str).unwrap_or_default();
        let p = r.get("resource").and_then(Value::as_str).unwrap_or_default();
        format!("{g}/{p}")
    });
    let mut key = format!(
        "{}\n{}\n{}\n{}\n{}\n",
        resource.unwrap_or_default(),
        field("subResource"),
        field("operation"),
        field("dryRun"),
        webhook.unwrap_or_default()
    );
    for f in fields {
        key.push_str(&f);
        key.push('\n');
    }
    fnv1a(key.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_and_array_lengths_do_not_change_a_shape_fields_do() {
        let pod = |names: &[&str], label: &str| {
            let containers: Vec<Value> = names.iter().map(|n| json!({"name": n, "image": "x"})).collect();
            json!({"operation": "CREATE", "resource": {"group": "", "version": "v1", "resource": "pods"},
                   "object": {"metadata": {"name": "p", "labels": {label: "v"}}, "spec": {"containers": containers}}})
        };
        assert_eq!(shape(&pod(&["a"], "app"), None), shape(&pod(&["b", "c"], "app"), None));
        assert_ne!(shape(&pod(&["a"], "app"), None), shape(&pod(&["a"], "tier"), None));
        assert_ne!(shape(&pod(&["a"], "app"), Some("w")), shape(&pod(&["a"], "app"), None));
        let mut update = pod(&["a"], "app");
        update["operation"] = json!("UPDATE");
        assert_ne!(shape(&pod(&["a"], "app"), None), shape(&update, None));
    }
}
