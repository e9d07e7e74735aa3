//! Patches on which the apiserver's JSON Patch library (gopkg.in/evanphx/json-patch.v4) and
//! RFC 6902 cannot differ, so that `patch.rfc6902` need not apply them a second time.
//!
//! A patch is plain when each of its operations is an `add` or `replace` with exactly the members
//! `op`, `path` and `value`, or a `remove` with exactly `op` and `path`, and each `path` starts
//! with `/` and escapes only as RFC 6901 does (`~0`, `~1`). What v4 still does differently with
//! such operations is either reported by `apiserver_jsonpatch::leniency` (`replace` of a missing
//! member, array indices written with a sign or a leading zero) or makes v4 refuse the patch (a
//! `null` walked through, `add`/`remove` at the root), so on a plain patch that v4 applied without
//! a leniency both produce the same object, provided the object holds no floating-point number:
//! v4 reads back the containers it touches from their JSON text, and serde_json (without its
//! `float_roundtrip` parsing) does not always read a float's shortest text back as the same float,
//! where json-patch keeps the number it was given. The property test of this module shows the
//! agreement on random documents and patches.

use apiserver_jsonpatch::go_json::unquote;
use apiserver_jsonpatch::{Patch, RawOperation};
use serde_json::Value;

/// True when RFC 6902 (json-patch) makes of `object` the same object as the apiserver's library
/// whenever the library applies `patch` without a leniency: `patch` is [`plain`] and neither
/// `object` nor a value the patch writes holds a floating-point number (a value written into a
/// container that a later operation touches is read back from its text too). Read from the
/// operations' raw members, without building their values.
pub(crate) fn rfc6902_agrees(object: &Value, patch: &Patch) -> bool {
    plain(patch)
        && !holds_float(object)
        && !patch.raw_operations().flatten().filter_map(|op| op.member("value").flatten()).any(text_holds_float)
}

/// True when a number of `value` is held as a float (not as an integer). Iterative.
fn holds_float(value: &Value) -> bool {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Number(n) if n.is_f64() => return true,
            Value::Array(items) => pending.extend(items),
            Value::Object(members) => pending.extend(members.values()),
            _ => {}
        }
    }
    false
}

/// True when `text`, valid JSON, holds a number `serde_json` reads as a float: one with a
/// fraction or an exponent, or an integer beyond `i64` and `u64`. (A number too large for a
/// float, which the operations' views show as a string, counts as one: such a patch is left to
/// the second application.)
fn text_holds_float(text: &[u8]) -> bool {
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'"' => {
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < text.len() && matches!(text[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                    i += 1;
                }
                let number = std::str::from_utf8(&text[start..i]).unwrap_or_default();
                if number.contains(['.', 'e', 'E'])
                    || (number.parse::<i64>().is_err() && number.parse::<u64>().is_err())
                {
                    return true;
                }
            }
            _ => i += 1,
        }
    }
    false
}

/// True when every operation of `patch` is a plain `add`, `replace` or `remove` with a canonical
/// pointer (see the module).
pub(crate) fn plain(patch: &Patch) -> bool {
    patch.raw_operations().all(|op| op.is_some_and(plain_operation))
}

/// A member's text as the string it holds; `None` when absent, `null` or not a string.
fn string_member(op: RawOperation<'_>, name: &str) -> Option<String> {
    op.member(name).flatten().filter(|raw| raw.first() == Some(&b'"')).map(unquote)
}

fn plain_operation(op: RawOperation<'_>) -> bool {
    let members = match string_member(op, "op").as_deref() {
        Some("add" | "replace") => 3,
        Some("remove") => 2,
        _ => return false,
    };
    let with_value = members == 3;
    op.len() == members
        && (op.member("value").is_some() == with_value)
        && string_member(op, "path").is_some_and(|p| canonical_pointer(&p))
}

/// A JSON Pointer (RFC 6901) other than the root: a leading `/`, and every `~` followed by `0`
/// or `1`.
fn canonical_pointer(pointer: &str) -> bool {
    let bytes = pointer.as_bytes();
    bytes.first() == Some(&b'/')
        && bytes.iter().enumerate().all(|(i, &c)| c != b'~' || matches!(bytes.get(i + 1), Some(b'0' | b'1')))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    use serde_json::json;

    use super::*;

    fn ops(patch: Value) -> Patch {
        let bytes = serde_json::to_vec(&patch).unwrap();
        apiserver_jsonpatch::decode_patch(&bytes).unwrap()
    }

    #[test]
    fn plain_patches_are_add_remove_replace_with_canonical_pointers() {
        assert!(plain(&ops(json!([
            {"op": "add", "path": "/metadata/labels/a~1b", "value": "x"},
            {"op": "replace", "path": "/spec/replicas", "value": 2},
            {"op": "remove", "path": "/metadata/annotations/~0k"},
            {"op": "add", "path": "/spec/containers/-", "value": {"name": "c"}},
            {"op": "add", "path": "/metadata/labels/n", "value": null},
        ]))));
        assert!(plain(&ops(json!([]))), "no operation: nothing to tell apart");
    }

    #[test]
    fn other_patches_are_not_plain() {
        for patch in [
            json!([{"op": "move", "from": "/a", "path": "/b"}]),
            json!([{"op": "copy", "from": "/a", "path": "/b"}]),
            json!([{"op": "test", "path": "/a", "value": 1}]),
            json!([{"op": "add", "path": "/a"}]),
            json!([{"op": "replace", "path": "/a"}]),
            json!([{"op": "remove", "path": "/a", "value": 1}]),
            json!([{"op": "add", "path": "/a", "value": 1, "extra": true}]),
            json!([{"op": "add", "path": "a", "value": 1}]),
            json!([{"op": "add", "path": "", "value": {}}]),
            json!([{"op": "add", "path": "/a~2", "value": 1}]),
            json!([{"op": "add", "path": "/a~", "value": 1}]),
            json!([{"op": "add", "path": 1, "value": 1}]),
            json!([{"op": "ADD", "path": "/a", "value": 1}]),
            json!([{"path": "/a", "value": 1}]),
            json!([null]),
            json!([{"op": "add", "path": "/a", "value": 1}, {"op": "move", "from": "/a", "path": "/b"}]),
        ] {
            assert!(!plain(&ops(patch.clone())), "{patch}");
        }
    }

    /// A float read back from its shortest text by serde_json may come out as another float unless
    /// serde_json is built with `float_roundtrip` (which another crate of a build may turn on, so
    /// `cargo test -p` and `--workspace` differ). The patched value copies a member the patch did
    /// not write from the document, so in either build the float of the touched container stays
    /// itself; an object holding a float is still left to the second application.
    #[test]
    fn an_object_holding_a_float_is_not_left_to_the_plain_path() {
        let float = 1.8666243147302502e-97_f64;
        let doc = json!({"a": {"b": float}});
        let patch = json!([{"op": "add", "path": "/a/c", "value": 1}]);
        let decoded = apiserver_jsonpatch::decode_patch(&serde_json::to_vec(&patch).unwrap()).unwrap();
        let (applied, leniencies) = apiserver_jsonpatch::apply_noting_leniencies(&doc, &decoded);
        assert!(leniencies.is_empty());
        let mut by_rfc = doc.clone();
        let rfc: json_patch::Patch = serde_json::from_value(patch).unwrap();
        json_patch::patch(&mut by_rfc, &rfc).unwrap();
        let applied = applied.unwrap();
        assert_eq!(applied, by_rfc, "the float the patch did not write is copied, not read back");
        assert_eq!(applied["a"]["b"].as_f64(), Some(float));
        assert!(plain(&decoded));
        assert!(!rfc6902_agrees(&doc, &decoded));
        assert!(rfc6902_agrees(&json!({"a": {"b": 2}}), &decoded));
        let writes_float = ops(json!([{"op": "add", "path": "/a/c", "value": {"f": 0.5}}]));
        assert!(plain(&writes_float) && !rfc6902_agrees(&json!({"a": {"b": 2}}), &writes_float));
    }

    /// Keys, including ones that need escaping and ones that look like array indices.
    fn key() -> impl Strategy<Value = String> {
        prop::sample::select(vec!["a", "b", "c", "a/b", "m~n", "-", "0", "1", "01", "", "<&>", "é"])
            .prop_map(String::from)
    }

    /// Scalars, floats among them only when `floats` (an object holding one, or a patch writing
    /// one, is never on the plain path: see [`an_object_holding_a_float_is_not_left_to_the_plain_path`]).
    fn scalar(floats: bool) -> BoxedStrategy<Value> {
        let others = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            "[a-c<>&\"\\\\/é\u{1F600}]{0,4}".prop_map(Value::String),
        ];
        if !floats {
            return others.boxed();
        }
        prop_oneof![
            4 => others,
            1 => prop::num::f64::NORMAL.prop_map(Value::from),
            1 => prop::sample::select(vec![0.0, 1.0, -1.5, 1e300, 2.5e-8]).prop_map(Value::from),
        ]
        .boxed()
    }

    fn value(floats: bool) -> impl Strategy<Value = Value> {
        scalar(floats).prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((key(), inner), 0..4)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    fn document() -> impl Strategy<Value = Value> {
        prop::collection::vec((key(), value(false)), 0..5)
            .prop_map(|members| Value::Object(members.into_iter().collect()))
    }

    /// Every pointer to a value inside `doc` (the root excluded), escaped as RFC 6901 escapes.
    fn pointers(doc: &Value, prefix: &str, out: &mut Vec<String>) {
        let children: Vec<(String, &Value)> = match doc {
            Value::Object(map) => map.iter().map(|(k, v)| (k.replace('~', "~0").replace('/', "~1"), v)).collect(),
            Value::Array(items) => items.iter().enumerate().map(|(i, v)| (i.to_string(), v)).collect(),
            _ => return,
        };
        for (token, child) in children {
            let pointer = format!("{prefix}/{token}");
            out.push(pointer.clone());
            pointers(child, &pointer, out);
        }
    }

    /// One operation drawn against the pointers of the document: which kind, which existing
    /// pointer, a token appended to it or not, and the value.
    type Drawn = (u8, usize, Option<String>, Value);

    fn drawn() -> impl Strategy<Value = Drawn> {
        let token = prop::sample::select(vec!["a", "x", "-", "0", "1", "2", "01", "-1", "+1", "~1", "~2", "b~0"]);
        // Values with floats too: a patch writing one is never on the plain path.
        let value = prop_oneof![3 => value(false), 1 => value(true)];
        (0u8..3, any::<usize>(), prop::option::of(token.prop_map(String::from)), value)
    }

    fn operation(doc: &Value, (kind, pick, tail, value): Drawn) -> Value {
        let mut all = Vec::new();
        pointers(doc, "", &mut all);
        let base = if all.is_empty() { String::new() } else { all[pick % all.len()].clone() };
        let path = match tail {
            Some(token) => format!("{base}/{token}"),
            None if base.is_empty() => "/a".to_string(),
            None => base,
        };
        match kind {
            0 => json!({"op": "add", "path": path, "value": value}),
            1 => json!({"op": "replace", "path": path, "value": value}),
            _ => json!({"op": "remove", "path": path}),
        }
    }

    /// On a plain patch that the apiserver's library applies without a leniency, an RFC 6902
    /// implementation (json-patch) applies it too and produces an equal object: skipping the
    /// second application in `patch.rfc6902` changes no verdict.
    #[test]
    fn on_plain_patches_without_leniency_rfc6902_agrees_with_the_apiserver() {
        let agreed = AtomicUsize::new(0);
        let mut runner = TestRunner::new_with_rng(
            Config { cases: 3000, failure_persistence: None, ..Config::default() },
            TestRng::deterministic_rng(RngAlgorithm::ChaCha),
        );
        let strategy = (document(), prop::collection::vec(drawn(), 1..5));
        runner
            .run(&strategy, |(doc, drawn)| {
                let patch: Vec<Value> = drawn.into_iter().map(|d| operation(&doc, d)).collect();
                let bytes = serde_json::to_vec(&patch).unwrap();
                let decoded = apiserver_jsonpatch::decode_patch(&bytes).unwrap();
                let (applied, leniencies) = apiserver_jsonpatch::apply_noting_leniencies(&doc, &decoded);
                let Ok(by_apiserver) = applied else { return Ok(()) };
                if !leniencies.is_empty() || !rfc6902_agrees(&doc, &decoded) {
                    return Ok(());
                }
                // As `patch.rfc6902` reads it: the operations as the apiserver's decoding shows them.
                let views = decoded.operations().iter().cloned().map(Value::Object).collect();
                let rfc: json_patch::Patch = serde_json::from_value(Value::Array(views)).unwrap();
                let mut by_rfc = doc.clone();
                let result = json_patch::patch(&mut by_rfc, &rfc);
                prop_assert!(result.is_ok(), "RFC 6902 refuses {patch:?} on {doc}: {result:?}");
                prop_assert_eq!(&by_rfc, &by_apiserver, "{:?} on {}", patch, doc);
                agreed.fetch_add(1, Ordering::Relaxed);
                Ok(())
            })
            .unwrap();
        let agreed = agreed.into_inner();
        assert!(agreed >= 600, "only {agreed} of 3000 draws were plain patches the apiserver applied");
    }

    /// The raw reading of the operations agrees with their views: a value's text holds a float
    /// exactly where the value serde_json reads from it does (floats, integers at and beyond the
    /// ends of `i64` and `u64`, numbers inside strings and keys), and an escaped `op` or `path`
    /// reads as its string.
    #[test]
    fn the_raw_operations_read_as_their_views() {
        let mut runner = TestRunner::new_with_rng(
            Config { cases: 2000, failure_persistence: None, ..Config::default() },
            TestRng::deterministic_rng(RngAlgorithm::ChaCha),
        );
        runner
            .run(&value(true), |v| {
                let text = serde_json::to_vec(&v).unwrap();
                prop_assert_eq!(text_holds_float(&text), holds_float(&v), "{}", v);
                Ok(())
            })
            .unwrap();
        for (text, float) in [
            ("9223372036854775807", false),
            ("-9223372036854775808", false),
            ("18446744073709551615", false),
            ("18446744073709551616", true),
            ("-9223372036854775809", true),
            ("1E2", true),
            ("-0.0", true),
            (r#"{"1.5": "2e3", "k\"1.5": [1, -2, "x\\"]}"#, false),
            (r#"[{"a": 0}, 3.25]"#, true),
        ] {
            let read: Value = serde_json::from_str(text).unwrap();
            assert_eq!(holds_float(&read), float, "{text}");
            assert_eq!(text_holds_float(text.as_bytes()), float, "{text}");
        }
        let escaped = apiserver_jsonpatch::decode_patch(br#"[{"op": "\u0061dd", "path": "\/a", "value": 1}]"#).unwrap();
        assert!(plain(&escaped) && rfc6902_agrees(&json!({}), &escaped));
    }
}
