//! A JSON-pointer-level diff of two JSON values, for failure reports.

use serde_json::Value;

/// One difference: the JSON pointer, and the value on each side (`None`: absent).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Change {
    pub pointer: String,
    pub before: Option<Value>,
    pub after: Option<Value>,
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn walk(path: &str, a: Option<&Value>, b: Option<&Value>, out: &mut Vec<Change>) {
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            for (k, v) in x {
                walk(&format!("{path}/{}", escape(k)), Some(v), y.get(k), out);
            }
            for (k, v) in y {
                if !x.contains_key(k) {
                    walk(&format!("{path}/{}", escape(k)), None, Some(v), out);
                }
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            for i in 0..x.len().max(y.len()) {
                walk(&format!("{path}/{i}"), x.get(i), y.get(i), out);
            }
        }
        (x, y) if x == y => {}
        (x, y) => out.push(Change {
            pointer: if path.is_empty() { "/".into() } else { path.into() },
            before: x.cloned(),
            after: y.cloned(),
        }),
    }
}

/// Every leaf-level difference between `a` and `b`.
pub(crate) fn diff(a: &Value, b: &Value) -> Vec<Change> {
    let mut out = Vec::new();
    walk("", Some(a), Some(b), &mut out);
    out
}

fn short(v: &Option<Value>) -> String {
    match v {
        None => "(absent)".into(),
        Some(v) => crate::text::snippet(&v.to_string()),
    }
}

/// The diff as text, one line per change (at most `limit` lines).
pub(crate) fn render(changes: &[Change], limit: usize) -> String {
    let mut s = String::new();
    for c in changes.iter().take(limit) {
        s.push_str(&format!("  {}: {} → {}\n", c.pointer, short(&c.before), short(&c.after)));
    }
    if changes.len() > limit {
        s.push_str(&format!("  … and {} more\n", changes.len() - limit));
    }
    if changes.is_empty() {
        s.push_str("  (no difference)\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_escape_and_arrays_index() {
        let a = json!({"metadata": {"labels": {"a/b": "1"}}, "c": [1, 2]});
        let b = json!({"metadata": {"labels": {"a/b": "2", "n": "x"}}, "c": [1]});
        let d = diff(&a, &b);
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].pointer, "/metadata/labels/a~1b");
        assert_eq!(d[1].pointer, "/metadata/labels/n");
        assert_eq!(d[1].before, None);
        assert_eq!(d[2].pointer, "/c/1");
        assert!(diff(&a, &a).is_empty());
    }
}
