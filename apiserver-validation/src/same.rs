//! Equality of JSON values as serde_json's `==` decides it (an object's members in any order),
//! comparing two objects member by member, without a hash lookup per member, for as long as both
//! list their members in the same order (as an object and its copy do).

use crate::lookup::member_of;
use serde_json::Value;

/// `a == b`.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() {
                return false;
            }
            for ((kx, vx), (ky, vy)) in x.iter().zip(y) {
                if kx != ky {
                    // The orders part: look every member up, as `==` does.
                    return x.iter().all(|(k, v)| member_of(y, k).is_some_and(|w| same(v, w)));
                }
                if !same(vx, vy) {
                    return false;
                }
            }
            true
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        _ => a == b,
    }
}

/// [`same`] of two lists.
pub fn same_list(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| same(p, q))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn it_decides_as_serde_json_does() {
        let values = [
            json!({"a": 1, "b": {"c": [1, 2, {"d": null}]}}),
            json!({"b": {"c": [1, 2, {"d": null}]}, "a": 1}),
            json!({"a": 1, "b": {"c": [1, 2, {"d": false}]}}),
            json!({"a": 1.0, "b": {"c": [1, 2, {"d": null}]}}),
            json!({"a": 1, "b": {"c": [1, 2]}}),
            json!({"a": 1, "c": {"c": [1, 2, {"d": null}]}}),
            json!({"a": 1, "b": {"c": [1, 2, {"d": null}]}, "e": "x"}),
            json!({"e": "x", "a": 1, "b": {"c": [2, 1, {"d": null}]}}),
            json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}]),
            json!([{"b": 2, "a": 1}, {"a": 1, "b": 2}]),
            json!("x"),
            json!(null),
        ];
        for a in &values {
            for b in &values {
                assert_eq!(same(a, b), a == b, "{a} {b}");
            }
        }
        assert!(same_list(&values[..2], &[values[1].clone(), values[0].clone()]));
        assert!(!same_list(&values[..2], &values[..1]));
    }
}
