//! A JSON object's members found as serde_json finds them (`Value::get`, `value["key"]`,
//! `Value::pointer`), by comparing the keys of a small object in order rather than hashing the
//! key: the map's SipHash costs more than comparing the few keys of a container or a pod spec,
//! and `Value::pointer` allocates each token of its pointer.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// Objects of at most this many members are searched by comparing keys in order.
const SCANNED: usize = 16;

/// What `Value::get`, `value["key"]` and `Value::pointer` give, found without hashing keys.
pub trait Lookup {
    /// The member `key` (`None` when absent, or when this is no object): `Value::get(key)`.
    fn member(&self, key: &str) -> Option<&Value>;
    /// The member `key`, `null` when absent or when this is no object: `value[key]`.
    fn field(&self, key: &str) -> &Value;
    /// The value a JSON pointer (RFC 6901) points to: `Value::pointer(pointer)`.
    fn at(&self, pointer: &str) -> Option<&Value>;
}

impl Lookup for Value {
    fn member(&self, key: &str) -> Option<&Value> {
        member(self, key)
    }

    fn field(&self, key: &str) -> &Value {
        static NULL: Value = Value::Null;
        member(self, key).unwrap_or(&NULL)
    }

    fn at(&self, pointer: &str) -> Option<&Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let tokens = pointer.strip_prefix('/')?;
        tokens.split('/').try_fold(self, |target, token| {
            let token = if token.as_bytes().contains(&b'~') {
                Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
            } else {
                Cow::Borrowed(token)
            };
            match target {
                Value::Object(_) => member(target, &token),
                Value::Array(list) => index(&token).and_then(|i| list.get(i)),
                _ => None,
            }
        })
    }
}

/// The member `key` of `v` (`None` when absent, or when `v` is no object).
pub(crate) fn member<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    member_of(v.as_object()?, key)
}

/// The member `key` of `map`: what `map.get(key)` gives.
pub fn member_of<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if map.len() <= SCANNED {
        map.iter().find_map(|(k, value)| (k == key).then_some(value))
    } else {
        map.get(key)
    }
}

/// An array index as `Value::pointer` reads one: digits, no sign, no leading zero.
fn index(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
        return None;
    }
    token.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    /// `member`, `member_of` and `field` find what `Value::get` and `value[key]` find, in objects below, at and
    /// above the size searched in order, for present, absent and `null` members, and nothing in a
    /// value that is no object.
    #[test]
    fn a_member_is_what_serde_json_gives() {
        for size in [0, 1, SCANNED - 1, SCANNED, SCANNED + 1, 3 * SCANNED] {
            let object: Map<String, Value> =
                (0..size).map(|i| (format!("k{i}"), if i % 3 == 0 { Value::Null } else { json!(i) })).collect();
            let object = Value::Object(object);
            for key in (0..size + 2).map(|i| format!("k{i}")).chain(["".to_string(), "K1".to_string()]) {
                assert_eq!(object.member(&key), object.get(&key), "{size} members, {key}");
                assert_eq!(member_of(object.as_object().unwrap(), &key), object.get(&key), "{size} members, {key}");
                assert_eq!(object.field(&key), &object[key.as_str()], "{size} members, {key}");
            }
        }
        for not_an_object in [json!(null), json!("k0"), json!(["k0"]), json!(1)] {
            assert_eq!(not_an_object.member("k0"), None, "{not_an_object}");
            assert_eq!(not_an_object.field("k0"), &Value::Null, "{not_an_object}");
        }
    }

    /// `at` points where `Value::pointer` points: the whole value, members, escaped keys (`~0`,
    /// `~1`), array indexes and the indexes it refuses (a sign, a leading zero, past the end), a
    /// pointer without its leading `/`, and through values that are neither object nor array.
    #[test]
    fn a_pointer_is_what_serde_json_gives() {
        let many: Map<String, Value> = (0..40).map(|i| (format!("m{i}"), json!({ "i": i }))).collect();
        let doc = json!({
            "a": {"b": [10, {"c": "d"}, null], "": {"": 1}},
            "x/y": {"m~n": 2, "~1": 3, "~01": 4},
            "s": "text",
            "many": many,
        });
        let pointers = [
            "",
            "/",
            "a",
            "/a",
            "/a/b",
            "/a/b/0",
            "/a/b/1/c",
            "/a/b/2",
            "/a/b/3",
            "/a/b/01",
            "/a/b/+1",
            "/a/b/-1",
            "/a/b/-",
            "/a/b/1/c/d",
            "/a/",
            "/a//",
            "/x~1y",
            "/x~1y/m~0n",
            "/x~1y/~01",
            "/x~1y/~001",
            "/x~1y/~2",
            "/x/y",
            "/s/0",
            "/s",
            "/many/m0/i",
            "/many/m39/i",
            "/many/m40",
            "/a/b/18446744073709551616",
        ];
        for pointer in pointers {
            assert_eq!(doc.at(pointer), doc.pointer(pointer), "{pointer:?}");
        }
    }
}
