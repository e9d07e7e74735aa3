//! A spec's JSON read as Go reads its decoded struct: an absent or `null` field is the zero value
//! (an empty string, an empty list).

use serde_json::Value;

use crate::lookup::member;

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
    use serde_json::json;

    /// Absent and `null` members read as Go's zero values: an empty string, an empty list, a nil
    /// pointer.
    #[test]
    fn absent_members_read_as_zero_values() {
        let container = json!({"name": "c", "image": "i", "env": [{"name": "A"}], "securityContext": null});
        assert_eq!((s(&container, "name"), s(&container, "image"), s(&container, "tag")), ("c", "i", ""));
        assert_eq!(list(&container, "env").len(), 1);
        assert!(list(&container, "ports").is_empty() && list(&container, "name").is_empty());
        assert!(present(&container, "env") && !present(&container, "securityContext") && !present(&container, "x"));
    }
}
