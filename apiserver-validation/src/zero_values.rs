//! A spec's JSON read as Go reads its decoded struct: an absent or `null` field is the zero value
//! (an empty string, an empty list).

use serde_json::Value;

/// The string at `key`, `""` when absent or not a string.
pub(crate) fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The list at `key`, empty when absent or not a list.
pub(crate) fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// Whether `key` holds a value other than `null` (a non-nil Go pointer).
pub(crate) fn present(v: &Value, key: &str) -> bool {
    v.get(key).is_some_and(|x| !x.is_null())
}
