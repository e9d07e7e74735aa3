//! A spec's JSON read as Go reads its decoded struct: an absent or `null` field is the zero value
//! (an empty string, an empty list).

use serde_json::Value;

/// Objects of at most this many members are searched by comparing keys in order.
const SCANNED: usize = 16;

/// The member `key` of `v` (`None` when absent, or when `v` is no object): what `Value::get`
/// gives, found in a small object by comparing its keys in order rather than by hashing `key`
/// (the map's SipHash costs more than comparing the few keys of a container or a pod spec).
pub(crate) fn member<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    let map = v.as_object()?;
    if map.len() <= SCANNED {
        map.iter().find_map(|(k, value)| (k == key).then_some(value))
    } else {
        map.get(key)
    }
}

/// The string at `key`, `""` when absent or not a string.
pub(crate) fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    member(v, key).and_then(Value::as_str).unwrap_or("")
}

/// The list at `key`, empty when absent or not a list.
pub(crate) fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    member(v, key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// Whether `key` holds a value other than `null` (a non-nil Go pointer).
pub(crate) fn present(v: &Value, key: &str) -> bool {
    member(v, key).is_some_and(|x| !x.is_null())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    /// `member` finds what `Value::get` finds, in objects below, at and above the size searched in
    /// order, for present, absent and `null` members, and nothing in a value that is no object.
    #[test]
    fn a_member_is_what_value_get_gives() {
        for size in [0, 1, SCANNED - 1, SCANNED, SCANNED + 1, 3 * SCANNED] {
            let object: Map<String, Value> =
                (0..size).map(|i| (format!("k{i}"), if i % 3 == 0 { Value::Null } else { json!(i) })).collect();
            let object = Value::Object(object);
            for key in (0..size + 2).map(|i| format!("k{i}")).chain(["".to_string(), "K1".to_string()]) {
                assert_eq!(member(&object, &key), object.get(&key), "{size} members, {key}");
            }
        }
        for not_an_object in [json!(null), json!("k0"), json!(["k0"]), json!(1)] {
            assert_eq!(member(&not_an_object, "k0"), None, "{not_an_object}");
        }
        let container = json!({"name": "c", "image": "i", "env": [{"name": "A"}], "securityContext": null});
        assert_eq!((s(&container, "name"), s(&container, "image"), s(&container, "tag")), ("c", "i", ""));
        assert_eq!(list(&container, "env").len(), 1);
        assert!(list(&container, "ports").is_empty() && list(&container, "name").is_empty());
        assert!(present(&container, "env") && !present(&container, "securityContext") && !present(&container, "x"));
    }
}
