//! `Patch.Apply` of gopkg.in/evanphx/json-patch.v4 v4.13.0 with the apiserver's settings
//! (negative indices on, accumulated copy size limited to 3 MiB): the operation methods and
//! `findObject`, one for one, with their error texts.

use serde_json::Value;

use crate::decode::{Operation, Patch};
use crate::error::ApplyError;
use crate::gojson::{encode_value, kind_name, nesting, top_value, validate, MAX_NESTING_DEPTH};
use crate::node::{
    deep_copy, equal, marshal_root, root_to_value, unmarshal_ary, unmarshal_doc, value_ary, value_doc, Con, Fault,
    Lazy, Node, Root, State, NIL_DEREF,
};
use crate::pointer::{decode_patch_key, split_tokens};

/// The apiserver's `jsonpatch.AccumulatedCopySizeLimit`: 3 MiB.
pub const ACCUMULATED_COPY_SIZE_LIMIT: i64 = 3 * 1024 * 1024;

/// `findObject`: the container holding the last reference token, and that token decoded. Walking
/// converts the nodes on the way (as Go does), even when it ends up finding nothing.
pub(crate) fn find_object<'a, 'v>(root: &'a mut Root<'v>, path: &str) -> Option<(Con<'a, 'v>, String)> {
    let tokens = split_tokens(path)?;
    let (last, parts) = tokens.split_last()?;
    let mut con = Con::from_root(root);
    for part in parts {
        let next = match con.into_get(&decode_patch_key(part)) {
            Ok(Some(next)) => next,
            _ => return None,
        };
        let lazy: &'a mut Lazy<'v> = next.as_deref_mut()?;
        let array = lazy.raw.as_ref()?.is_array();
        con = if array { Con::Ary(lazy.convert_to_ary()?) } else { Con::Doc(lazy.convert_to_doc()?) };
    }
    Some((con, decode_patch_key(last)))
}

/// Decode the document as `ApplyIndent` does: `[` first means an array, anything else a map.
pub(crate) fn load_root(doc: &[u8]) -> Result<Root<'static>, ApplyError> {
    validate(doc).map_err(|e| ApplyError::Document { message: e.message })?;
    load_valid(doc)
}

/// The document bytes the library would be handed for `doc`.
pub(crate) fn doc_bytes(doc: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    encode_value(doc, &mut out);
    out
}

/// [`load_root`] of [`doc_bytes`], built without writing those bytes: the root's members (its
/// elements) are raw messages that stand for their encodings ([`crate::node::Message`]), written
/// only where the library reads text. Bytes this crate writes are valid JSON by construction, so
/// Go's syntax check is run only when their nesting is deep enough for its depth limit to matter
/// (the one refusal it could still make): the same tree, or the same error, as `load_root` gives.
pub(crate) fn load_value(doc: &Value) -> Result<Root<'_>, ApplyError> {
    if !(doc.is_object() || doc.is_array()) || nesting(doc) >= MAX_NESTING_DEPTH {
        return load_root(&doc_bytes(doc));
    }
    Ok(match value_doc(doc) {
        Some(doc) => Root::Doc(doc),
        None => Root::Ary(value_ary(doc).expect("an array")),
    })
}

/// The patched tree as a value ([`root_to_value`]).
pub(crate) fn to_value(root: &Root<'_>) -> Result<Value, ApplyError> {
    root_to_value(root, false).map_err(|number| ApplyError::Unrepresentable { number })
}

/// [`load_root`] of bytes known to be one valid JSON value.
fn load_valid(doc: &[u8]) -> Result<Root<'static>, ApplyError> {
    let raw = top_value(doc);
    let (root, type_name) = if doc.first() == Some(&b'[') {
        (unmarshal_ary(raw).map(Root::Ary), "jsonpatch.partialArray")
    } else {
        (unmarshal_doc(raw).map(Root::Doc), "jsonpatch.partialDoc")
    };
    root.ok_or_else(|| ApplyError::Document {
        message: format!("json: cannot unmarshal {} into Go value of type {type_name}", kind_name(raw)),
    })
}

struct Ctx {
    index: usize,
}

impl Ctx {
    fn fail(&self, message: String) -> ApplyError {
        ApplyError::Operation { index: self.index, message }
    }

    fn wrap(&self, prefix: &str, fault: Fault) -> ApplyError {
        match fault {
            Fault::Error(e) => self.fail(format!("{prefix}: {e}")),
            Fault::Panic(message) => self.panic(message),
        }
    }

    fn panic(&self, message: String) -> ApplyError {
        ApplyError::Panic { index: self.index, message }
    }
}

/// Apply one operation (one iteration of the loop in `ApplyIndent`).
pub(crate) fn apply_op(root: &mut Root<'_>, op: &Operation, index: usize, copied: &mut i64) -> Result<(), ApplyError> {
    let cx = Ctx { index };
    match op.kind().as_str() {
        "add" => {
            let path = op.path().map_err(|_| cx.fail("add operation failed to decode path: missing value".into()))?;
            let Some((mut con, key)) = find_object(root, &path) else {
                return Err(
                    cx.fail(format!("add operation does not apply: doc is missing path: \"{path}\": missing value"))
                );
            };
            con.add(&key, op.value()).map_err(|f| cx.wrap(&format!("error in add for path: '{path}'"), f))
        }
        "remove" => {
            let path =
                op.path().map_err(|_| cx.fail("remove operation failed to decode path: missing value".into()))?;
            let Some((mut con, key)) = find_object(root, &path) else {
                return Err(
                    cx.fail(format!("remove operation does not apply: doc is missing path: \"{path}\": missing value"))
                );
            };
            con.remove(&key).map(drop).map_err(|f| cx.wrap(&format!("error in remove for path: '{path}'"), f))
        }
        "replace" => {
            let path = op.path().map_err(|e| cx.fail(format!("replace operation failed to decode path: {e}")))?;
            if path.is_empty() {
                let Some(mut val) = op.value() else {
                    return Err(cx.panic(NIL_DEREF.to_string()));
                };
                // A fresh node is raw: tryDoc, then tryAry.
                if val.convert_to_doc().is_none() && val.convert_to_ary().is_none() {
                    // Go wraps a nil error here, which fmt renders as %!w(<nil>).
                    return Err(cx.fail("replace operation value must be object or array: %!w(<nil>)".into()));
                }
                *root = match val.take_state() {
                    State::Doc(doc) => Root::Doc(doc),
                    State::Ary(ary) => Root::Ary(ary),
                    State::Raw => return Err(cx.fail("replace operation hit impossible case: %!w(<nil>)".into())),
                };
                return Ok(());
            }
            let Some((mut con, key)) = find_object(root, &path) else {
                return Err(
                    cx.fail(format!("replace operation does not apply: doc is missing path: {path}: missing value"))
                );
            };
            if con.get(&key).is_err() {
                return Err(
                    cx.fail(format!("replace operation does not apply: doc is missing key: {path}: missing value"))
                );
            }
            con.set(&key, op.value()).map_err(|f| cx.wrap(&format!("error in remove for path: '{path}'"), f))
        }
        "move" => {
            let val = move_take(root, op, index)?;
            move_put(root, op, index, val)
        }
        "test" => {
            let path = op.path().map_err(|e| cx.fail(format!("test operation failed to decode path: {e}")))?;
            if path.is_empty() {
                let taken = std::mem::replace(root, Root::Doc(None));
                let mut this = Lazy::from_state(match taken {
                    Root::Doc(doc) => State::Doc(doc),
                    Root::Ary(ary) => State::Ary(ary),
                });
                let mut val = op.value();
                let result = equal(Some(&mut this), val.as_deref_mut());
                *root = match this.take_state() {
                    State::Ary(ary) => Root::Ary(ary),
                    State::Doc(doc) => Root::Doc(doc),
                    State::Raw => Root::Doc(None),
                };
                return match result {
                    Ok(true) => Ok(()),
                    Ok(false) => Err(cx.fail(format!("testing value {path} failed: test failed"))),
                    Err(f) => Err(cx.wrap("", f)),
                };
            }
            let Some((mut con, key)) = find_object(root, &path) else {
                return Err(cx.fail(format!("test operation does not apply: is missing path: {path}: missing value")));
            };
            let found = con.get(&key).map_err(|f| cx.wrap(&format!("error in test for path: '{path}'"), f))?;
            let failed = || cx.fail(format!("testing value {path} failed: test failed"));
            let mut value = op.value();
            let Some(current) = found.and_then(|n| n.as_deref_mut()) else {
                return match value {
                    None => Ok(()),
                    Some(v) if v.raw.is_none() => Ok(()),
                    Some(_) => Err(failed()),
                };
            };
            let Some(value) = value.as_deref_mut() else {
                return Err(failed());
            };
            match equal(Some(current), Some(value)) {
                Ok(true) => Ok(()),
                Ok(false) => Err(failed()),
                Err(f) => Err(cx.wrap("", f)),
            }
        }
        "copy" => {
            let from = op.from().map_err(|e| cx.fail(format!("copy operation failed to decode from: {e}")))?;
            let missing_from =
                || cx.fail(format!("copy operation does not apply: doc is missing from path: {from}: missing value"));
            {
                let Some((mut con, key)) = find_object(root, &from) else {
                    return Err(missing_from());
                };
                con.get(&key).map_err(|f| cx.wrap(&format!("error in copy for from: '{from}'"), f))?;
            }
            let path = op.path().map_err(|_| cx.fail("copy operation failed to decode path: missing value".into()))?;
            let missing_dest = || {
                cx.fail(format!(
                    "copy operation does not apply: doc is missing destination path: {path}: missing value"
                ))
            };
            if find_object(root, &path).is_none() {
                return Err(missing_dest());
            }
            // Go copies the value only now, after looking up the destination (which may have
            // converted nodes on the way); looking the source up again reaches the same node.
            let (copy, size) = {
                let Some((mut con, key)) = find_object(root, &from) else {
                    return Err(missing_from());
                };
                let found = con.get(&key).map_err(|f| cx.wrap(&format!("error in copy for from: '{from}'"), f))?;
                deep_copy(found.and_then(|n| n.as_deref()))
            };
            *copied += size as i64;
            if ACCUMULATED_COPY_SIZE_LIMIT > 0 && *copied > ACCUMULATED_COPY_SIZE_LIMIT {
                return Err(ApplyError::CopySizeLimit {
                    index,
                    accumulated: *copied,
                    limit: ACCUMULATED_COPY_SIZE_LIMIT,
                });
            }
            let Some((mut con, key)) = find_object(root, &path) else {
                return Err(missing_dest());
            };
            con.add(&key, copy).map_err(|f| cx.wrap("error while adding value during copy", f))
        }
        other => Err(cx.fail(format!("Unexpected kind: {other}"))),
    }
}

/// The first half of `move`: the source looked up and removed.
pub(crate) fn move_take<'v>(root: &mut Root<'v>, op: &Operation, index: usize) -> Result<Node<'v>, ApplyError> {
    let cx = Ctx { index };
    let from = op.from().map_err(|e| cx.fail(format!("move operation failed to decode from: {e}")))?;
    let Some((mut con, key)) = find_object(root, &from) else {
        return Err(cx.fail(format!("move operation does not apply: doc is missing from path: {from}: missing value")));
    };
    let prefix = format!("error in move for path: '{key}'");
    con.get(&key).map_err(|f| cx.wrap(&prefix, f))?;
    con.remove(&key).map_err(|f| cx.wrap(&prefix, f))
}

/// The second half of `move`: the removed value added at the destination.
pub(crate) fn move_put<'v>(root: &mut Root<'v>, op: &Operation, index: usize, val: Node<'v>) -> Result<(), ApplyError> {
    let cx = Ctx { index };
    let path = op.path().map_err(|e| cx.fail(format!("move operation failed to decode path: {e}")))?;
    let Some((mut con, key)) = find_object(root, &path) else {
        return Err(
            cx.fail(format!("move operation does not apply: doc is missing destination path: {path}: missing value"))
        );
    };
    con.add(&key, val).map_err(|f| cx.wrap(&format!("error in move for path: '{path}'"), f))
}

/// Run every operation over a loaded root.
pub(crate) fn apply_all(root: &mut Root<'_>, patch: &Patch) -> Result<(), ApplyError> {
    let mut copied = 0i64;
    for (index, op) in patch.ops.iter().enumerate() {
        apply_op(root, op, index, &mut copied)?;
    }
    Ok(())
}

/// Apply `patch` to `doc` as the kube-apiserver applies a mutating webhook's patch.
///
/// The document is handed to the library as JSON bytes the way the apiserver encodes objects
/// (Go string escaping; numbers as serde_json writes them, so a float `1.0` stays `1.0`). The
/// result is Go's output read back into a `Value`. Errors display Go's text.
pub fn apply(doc: &Value, patch: &Patch) -> Result<Value, ApplyError> {
    let mut root = load_value(doc)?;
    apply_all(&mut root, patch)?;
    to_value(&root)
}

/// Byte-exact variant of [`apply`]: `doc` is the JSON the library receives, and the result is the
/// bytes `json.Marshal` produces (unchanged subtrees compacted as written, rewritten maps with
/// sorted keys, `<`, `>`, `&` escaped). Empty input is returned unchanged, as Go does.
pub fn apply_json(doc: &[u8], patch: &Patch) -> Result<Vec<u8>, ApplyError> {
    if doc.is_empty() {
        return Ok(Vec::new());
    }
    let mut root = load_root(doc)?;
    apply_all(&mut root, patch)?;
    Ok(marshal_root(&root))
}

/// The document and patch of every patch vector of the library (`vectors/jsonpatch-v4.json`).
#[cfg(test)]
pub(crate) fn vector_cases() -> Vec<(Value, Value)> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/vectors/jsonpatch-v4.json")).unwrap();
    let all: Value = serde_json::from_str(&text).unwrap();
    all["patch"].as_array().unwrap().iter().map(|v| (v["doc"].clone(), v["patch"].clone())).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// `depth` arrays nested in one another around an object.
    fn nested(depth: usize) -> Value {
        (1..depth).fold(json!({"a": 1}), |inner, _| Value::Array(vec![inner]))
    }

    /// A patched value is what reading back the library's output gives, whatever the patch does
    /// with the members it was loaded with (moved, copied, replaced, removed, walked into, tested).
    #[test]
    fn a_patched_value_is_the_library_output_read_back() {
        let doc = json!({"kind": "Pod", "metadata": {"name": "a", "labels": {"x": "<1>"}}, "spec": {"n": [1, 2.5, -3]}, "z": null});
        let patches = [
            r#"[{"op": "move", "from": "/spec", "path": "/moved"}]"#,
            r#"[{"op": "copy", "from": "/metadata", "path": "/copied"}, {"op": "remove", "path": "/metadata"}]"#,
            r#"[{"op": "replace", "path": "/spec", "value": {"n": 1}}, {"op": "add", "path": "/metadata/labels/y", "value": "2"}]"#,
            r#"[{"op": "test", "path": "/kind", "value": "Pod"}, {"op": "move", "from": "/metadata/labels", "path": "/spec/labels"}]"#,
            r#"[{"op": "replace", "path": "", "value": {"a": 1}}]"#,
            r#"[{"op": "add", "path": "/spec/n/-1", "value": 1.0}, {"op": "move", "from": "/kind", "path": "/k"}]"#,
            r#"[{"op": "move", "from": "/spec/n/0", "path": "/spec/n/-"}, {"op": "add", "path": "/metadata/labels/z", "value": "<"}]"#,
            r#"[{"op": "move", "from": "/metadata/labels", "path": "/spec/n/1"}, {"op": "copy", "from": "/spec/n/0", "path": "/spec/m"}]"#,
            r#"[{"op": "replace", "path": "/spec/n/1", "value": 2.50}, {"op": "remove", "path": "/spec/n/0"}]"#,
            r#"[{"op": "add", "path": "/metadata/labels/x", "value": "<1>"}, {"op": "move", "from": "/metadata/name", "path": "/metadata/labels/n"}]"#,
        ];
        for patch in patches {
            let patch = crate::decode::decode_patch(patch.as_bytes()).expect("a patch");
            let bytes = apply_json(&doc_bytes(&doc), &patch).expect("applies");
            let read_back: Value = serde_json::from_slice(&bytes).expect("JSON");
            assert_eq!(apply(&doc, &patch), Ok(read_back.clone()));
            assert_eq!(crate::leniency::apply_noting_leniencies(&doc, &patch).0, Ok(read_back));
        }
    }

    /// The members a patch leaves untouched, or moves, are copied from the document, at any
    /// depth: only the values the patch wrote (its values and its copies) are read back from
    /// text.
    #[test]
    fn only_what_the_patch_wrote_is_read_back() {
        let doc = json!({"metadata": {"name": "a", "labels": {"x": "1"}}, "spec": {"containers": [
            {"name": "a", "image": "x", "env": [{"name": "A", "value": "1.0"}], "ports": [{"containerPort": 80}]},
            {"name": "b", "image": "y", "args": ["-v", "2"]}
        ], "volumes": [{"name": "v", "emptyDir": {}}]}});
        for (patch, written) in [
            (r#"[{"op": "add", "path": "/spec/containers/0/env/-", "value": {"name": "B", "value": "2"}}]"#, 1),
            (
                r#"[{"op": "add", "path": "/metadata/labels/y", "value": "2"}, {"op": "replace", "path": "/spec/containers/1/image", "value": "z"}]"#,
                2,
            ),
            (r#"[{"op": "move", "from": "/spec/containers/0", "path": "/spec/containers/-"}]"#, 0),
            // A member moved to another container is the value it was, wherever it goes.
            (r#"[{"op": "move", "from": "/spec/volumes/0", "path": "/spec/containers/1/volume"}]"#, 0),
            // A copy is the text the library marshalled (deepCopy), read back.
            (r#"[{"op": "copy", "from": "/spec/volumes/0", "path": "/spec/containers/1/volume"}]"#, 1),
        ] {
            let patch = crate::decode::decode_patch(patch.as_bytes()).expect("a patch");
            crate::node::READ_BACK.with(|n| n.set(0));
            let applied = apply(&doc, &patch).expect("applies");
            assert_eq!(crate::node::READ_BACK.with(|n| n.get()), written, "{:?}", patch.operations());
            let read_back: Value = serde_json::from_slice(&apply_json(&doc_bytes(&doc), &patch).unwrap()).unwrap();
            assert_eq!(applied, read_back);
        }
    }

    /// A document loaded as a value patches as its encoded text does: the same value, or the same
    /// error (Go's panics included), for every patch vector of the library and for patches that
    /// test, copy and move values of the document.
    #[test]
    fn a_value_patches_as_its_text_does() {
        let mut cases = vector_cases();
        let doc = json!({"a": {"b": [1, 2.5, {"c": null, "d": "x<y"}], "n": null, "e": [null, [null]]}, "z": "s"});
        for patch in [
            json!([{"op": "test", "path": "/a/b", "value": [1, 2.5, {"c": null, "d": "x<y"}]}]),
            json!([{"op": "test", "path": "/a/b/2/d", "value": "x<y"}]),
            json!([{"op": "test", "path": "/a/e", "value": [null, [null]]}]),
            json!([{"op": "test", "path": "", "value": {"z": "s"}}]),
            json!([{"op": "copy", "from": "/a", "path": "/a/b/-"}, {"op": "test", "path": "/a/b/3/b/1", "value": 2.5}]),
            json!([{"op": "move", "from": "/a/e", "path": "/z2"}, {"op": "add", "path": "/z2/1/0", "value": 1}]),
            json!([{"op": "add", "path": "/a/n/x", "value": 1}]),
            json!([{"op": "replace", "path": "", "value": [1]}, {"op": "add", "path": "/-", "value": 2}]),
        ] {
            cases.push((doc.clone(), patch));
        }
        let mut compared = 0;
        for (doc, patch) in &cases {
            let Ok(patch) = crate::decode::decode_patch(&serde_json::to_vec(patch).unwrap()) else { continue };
            let through_text = load_root(&doc_bytes(doc)).and_then(|mut root| {
                apply_all(&mut root, &patch)?;
                to_value(&root)
            });
            assert_eq!(apply(doc, &patch), through_text, "{doc} {:?}", patch.operations());
            compared += 1;
        }
        assert!(compared > 80, "only {compared} cases compared");
    }

    /// Loading a value skips Go's syntax check only where it could not refuse: the same tree, or
    /// the same error, as the checked load of the same bytes, at and around the depth limit.
    #[test]
    fn a_value_loads_as_its_bytes_load() {
        // serde_json drops a value recursively: room for 10001 levels.
        let run = std::thread::Builder::new().stack_size(256 << 20).spawn(|| {
            let shallow = json!({"metadata": {"name": "a<b", "labels": {"x": "1.0"}}, "n": [1, 1.5, -2, null, true]});
            for doc in
                [shallow, nested(MAX_NESTING_DEPTH - 1), nested(MAX_NESTING_DEPTH), nested(MAX_NESTING_DEPTH + 1)]
            {
                let checked = load_root(&doc_bytes(&doc)).map(|r| (root_to_value(&r, true), marshal_root(&r)));
                let loaded = load_value(&doc).map(|l| (root_to_value(&l, true), marshal_root(&l)));
                // Untouched, the tree gives back the document itself.
                if let Ok(l) = load_value(&doc) {
                    assert_eq!(to_value(&l), Ok(doc.clone()));
                }
                assert_eq!(loaded, checked);
            }
            let refused = load_value(&nested(MAX_NESTING_DEPTH + 1)).map(|_| ()).unwrap_err();
            assert!(refused.to_string().contains("exceeded max depth"), "{refused}");
        });
        run.expect("a thread").join().expect("no panic");
    }
}
