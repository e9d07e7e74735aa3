//! JSON as CEL sees it in the apiserver: objects become untyped maps (keys as written, no escaping),
//! numbers that fit an `int64` are `int` (JSON integers never become `uint`), other numbers `double`,
//! `null` stays `null`.

use std::collections::HashMap;
use std::sync::Arc;

use cel::objects::{Key, Map};
use cel::Value;

/// `value` as a CEL value.
pub(crate) fn to_cel(value: &serde_json::Value) -> Value {
    match value {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => match n.as_u64() {
                Some(u) => Value::UInt(u),
                None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
        },
        serde_json::Value::String(s) => Value::String(Arc::new(s.clone())),
        serde_json::Value::Array(items) => Value::List(Arc::new(items.iter().map(to_cel).collect())),
        serde_json::Value::Object(fields) => {
            map(fields.iter().map(|(k, v)| (k.as_str(), to_cel(v))).collect::<Vec<_>>())
        }
    }
}

/// A CEL map of string keys.
pub(crate) fn map(entries: Vec<(&str, Value)>) -> Value {
    let map: HashMap<Key, Value> =
        entries.into_iter().map(|(k, v)| (Key::String(Arc::new(k.to_string())), v)).collect();
    Value::Map(Map { map: Arc::new(map) })
}

/// A CEL string.
pub(crate) fn string(s: &str) -> Value {
    Value::String(Arc::new(s.to_string()))
}

/// The member `key` of a CEL map.
pub(crate) fn get(value: &Value, key: &str) -> Option<Value> {
    match value {
        Value::Map(m) => m.map.get(&Key::String(Arc::new(key.to_string()))).cloned(),
        _ => None,
    }
}

/// The string member `key` of a CEL map ("" when absent or not a string).
pub(crate) fn get_str(value: &Value, key: &str) -> String {
    match get(value, key) {
        Some(Value::String(s)) => s.to_string(),
        _ => String::new(),
    }
}

/// `value` (a map) with `key` set to `member`.
pub(crate) fn with(value: &Value, key: &str, member: Value) -> Value {
    let mut entries = match value {
        Value::Map(m) => (*m.map).clone(),
        _ => HashMap::new(),
    };
    entries.insert(Key::String(Arc::new(key.to_string())), member);
    Value::Map(Map { map: Arc::new(entries) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integers_are_ints_and_keys_are_kept_as_written() {
        let v = to_cel(
            &json!({"a": 1, "big": 18446744073709551615u64, "f": 1.5, "n": null, "app.kubernetes.io/name": "x"}),
        );
        assert_eq!(get(&v, "a"), Some(Value::Int(1)));
        assert_eq!(get(&v, "big"), Some(Value::UInt(u64::MAX)));
        assert_eq!(get(&v, "f"), Some(Value::Float(1.5)));
        assert_eq!(get(&v, "n"), Some(Value::Null));
        assert_eq!(get_str(&v, "app.kubernetes.io/name"), "x");
    }
}
