//! Where a patch works only because v4 is more lenient than RFC 6902 / RFC 6901.
//!
//! The patch is applied with v4 semantics one operation at a time; before each operation, the
//! operation is checked against the RFC rules on the document as v4 has it at that point. An
//! operation that v4 applies but that breaks an RFC rule yields one [`Leniency`] per broken rule.
//! Analysis stops at the first operation v4 rejects (the apiserver rejects the whole patch then).
//!
//! Not listed, because RFC 6902 allows them too: unknown extra members in an operation, `move`
//! to the same path, a `-` key on an object, numeric-looking keys on objects. The reverse cases,
//! where v4 is stricter than the RFC (e.g. `test` of `1` against `1.0` fails, `add` at the root
//! `""` fails), are not leniencies and not listed either.

use serde_json::Value;

use crate::apply::{apply_op, load_value, move_put, move_take, to_value};
use crate::decode::{Operation, Patch};
use crate::error::ApplyError;
use crate::gojson::{array_elements, dispose, encode_value, object_members, raw_to_value, skip_space, unquote};
use crate::node::{ary_to_value, doc_to_value, Message, Node, PArr, PDoc, Root, State};
use crate::pointer::{atoi, decode_patch_key};

/// `replace` of an object member that does not exist (v4 adds it; RFC 6902 §4.3 requires it).
pub const REPLACE_MISSING_KEY: &str = "replace of a missing key";
/// An array index written with a leading `-`, counting from the end (RFC 6901 has none).
pub const NEGATIVE_INDEX: &str = "negative array index";
/// An array index with a leading zero, such as `01` (RFC 6901 forbids them).
pub const LEADING_ZERO: &str = "array index with a leading zero";
/// An array index with a leading `+` (accepted by Go's `strconv.Atoi`).
pub const PLUS_SIGN: &str = "array index with a '+' sign";
/// `copy` whose `from` names a missing member (v4 copies `null`; RFC 6902 §4.5 requires it).
pub const COPY_MISSING_FROM: &str = "copy from a missing path";
/// `test` of a missing member against `null`, which v4 lets pass.
pub const TEST_MISSING_NULL: &str = "test of a missing key against null";
/// `test` that passes only because of how v4 compares values.
pub const TEST_V4_EQUALITY: &str = "test that passes only by v4's comparison";
/// `add` without a `value` member (v4 adds `null`; RFC 6902 §4.1 requires the member).
pub const ADD_MISSING_VALUE: &str = "add with missing value member";
/// `replace` without a `value` member (v4 writes `null`).
pub const REPLACE_MISSING_VALUE: &str = "replace with missing value member";
/// `test` without a `value` member (v4 passes it when the target is missing or null).
pub const TEST_MISSING_VALUE: &str = "test with missing value member";
/// A pointer that does not start with `/` (v4 ignores the text before the first `/`).
pub const NO_LEADING_SLASH: &str = "pointer without a leading '/'";
/// A `~` not followed by `0` or `1` in a pointer (v4 keeps it literally; RFC 6901 forbids it).
pub const INVALID_ESCAPE: &str = "pointer with an invalid '~' escape";
/// `move` into a location inside the moved value (v4 can succeed when array elements shift).
pub const MOVE_INTO_CHILD: &str = "move into its own child";
/// An operation object naming a member twice (v4 uses the last).
pub const DUPLICATE_MEMBER: &str = "operation with a duplicate member";

/// Every kind [`leniencies`] can report.
pub const ALL_KINDS: &[&str] = &[
    REPLACE_MISSING_KEY,
    NEGATIVE_INDEX,
    LEADING_ZERO,
    PLUS_SIGN,
    COPY_MISSING_FROM,
    TEST_MISSING_NULL,
    TEST_V4_EQUALITY,
    ADD_MISSING_VALUE,
    REPLACE_MISSING_VALUE,
    TEST_MISSING_VALUE,
    NO_LEADING_SLASH,
    INVALID_ESCAPE,
    MOVE_INTO_CHILD,
    DUPLICATE_MEMBER,
];

/// One way an operation relies on v4 leniency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leniency {
    /// 0-based index of the operation.
    pub op_index: usize,
    /// The pointer concerned (`path`, or `from` for source-side findings).
    pub path: String,
    /// One of the constants of this module, e.g. [`REPLACE_MISSING_KEY`].
    pub what: &'static str,
}

/// A value of the library's tree as `root_to_value` would show it, looked at without converting
/// or copying anything: nil pointers, nil raw messages, nil maps and nil slices are `Null`; a node
/// still raw is read from its text, or, when its raw message is a value ([`load_value`]), from
/// that value, whose members and elements are those of the text it stands for.
#[derive(Clone, Copy)]
enum View<'v> {
    Null,
    /// A map (never nil).
    Doc(&'v PDoc<'v>),
    /// A slice (never nil).
    Ary(&'v PArr<'v>),
    /// Raw JSON text, not `null`.
    Raw(&'v [u8]),
    /// A value whose text `encode_value` wrote (the text a `Raw` view would read), not `null`.
    Encoded(&'v Value),
}

impl<'v> View<'v> {
    fn of_root(root: &'v Root<'v>) -> Self {
        match root {
            Root::Doc(doc) => View::of_doc(doc),
            Root::Ary(ary) => View::of_ary(ary),
        }
    }

    fn of_doc(doc: &'v PDoc<'v>) -> Self {
        if doc.is_some() {
            View::Doc(doc)
        } else {
            View::Null
        }
    }

    fn of_ary(ary: &'v PArr<'v>) -> Self {
        if ary.is_some() {
            View::Ary(ary)
        } else {
            View::Null
        }
    }

    fn of_node(node: &'v Node<'v>) -> Self {
        let Some(node) = node.as_deref() else {
            return View::Null;
        };
        match &node.state {
            State::Raw => match &node.raw {
                Some(Message::Value(value)) => View::of_value(value),
                Some(Message::Text(raw)) => View::of_raw(raw),
                None => View::Null,
            },
            State::Doc(doc) => View::of_doc(doc),
            State::Ary(ary) => View::of_ary(ary),
        }
    }

    fn of_raw(raw: &'v [u8]) -> Self {
        let raw = &raw[skip_space(raw, 0)..];
        match raw.first() {
            None | Some(b'n') => View::Null,
            _ => View::Raw(raw),
        }
    }

    /// As [`View::of_raw`] of the value's encoding: `null` is `Null`.
    fn of_value(value: &'v Value) -> Self {
        if value.is_null() {
            View::Null
        } else {
            View::Encoded(value)
        }
    }

    fn is_object(self) -> bool {
        match self {
            View::Doc(..) => true,
            View::Raw(raw) => raw.first() == Some(&b'{'),
            View::Encoded(value) => value.is_object(),
            _ => false,
        }
    }

    /// The member `key` of an object (the last of duplicates, as decoding keeps it; a value
    /// encoded from a map has none).
    fn member(self, key: &str) -> Option<View<'v>> {
        match self {
            View::Doc(Some(map)) => map.get(key).map(View::of_node),
            View::Raw(raw) if raw.first() == Some(&b'{') => {
                object_members(raw).into_iter().rev().find(|(k, _)| key_is(k, key)).map(|(_, v)| View::of_raw(v))
            }
            View::Encoded(Value::Object(map)) => map.get(key).map(View::of_value),
            _ => None,
        }
    }

    /// The elements of an array, `None` for anything else.
    fn elements(self) -> Option<Elements<'v>> {
        match self {
            View::Ary(Some(items)) => Some(Elements::Nodes(items)),
            View::Raw(raw) if raw.first() == Some(&b'[') => Some(Elements::Raw(array_elements(raw))),
            View::Encoded(Value::Array(items)) => Some(Elements::Encoded(items)),
            _ => None,
        }
    }

    /// The value as a `serde_json::Value` (what the same place of `root_to_value` holds).
    fn to_value(self) -> Value {
        match self {
            View::Null => Ok(Value::Null),
            View::Doc(doc) => doc_to_value(doc, true),
            View::Ary(ary) => ary_to_value(ary, true),
            View::Raw(raw) => raw_to_value(raw, true),
            View::Encoded(value) => {
                // Read back from its text, as the library would read it.
                let mut raw = Vec::new();
                encode_value(value, &mut raw);
                raw_to_value(&raw, true)
            }
        }
        .unwrap_or(Value::Null)
    }
}

enum Elements<'v> {
    Nodes(&'v [Node<'v>]),
    Raw(Vec<&'v [u8]>),
    Encoded(&'v [Value]),
}

impl<'v> Elements<'v> {
    fn len(&self) -> usize {
        match self {
            Elements::Nodes(items) => items.len(),
            Elements::Raw(items) => items.len(),
            Elements::Encoded(items) => items.len(),
        }
    }

    fn get(&self, idx: usize) -> Option<View<'v>> {
        match self {
            Elements::Nodes(items) => items.get(idx).map(View::of_node),
            Elements::Raw(items) => items.get(idx).map(|raw| View::of_raw(raw)),
            Elements::Encoded(items) => items.get(idx).map(View::of_value),
        }
    }
}

/// The raw quoted `raw` key, unquoted, equals `key`.
fn key_is(raw: &[u8], key: &str) -> bool {
    let inner = &raw[1..raw.len().saturating_sub(1).max(1)];
    if !inner.contains(&b'\\') && std::str::from_utf8(inner).is_ok() {
        // Nothing to unescape and nothing to replace: the key is its text.
        return inner == key.as_bytes();
    }
    unquote(raw) == key
}

/// Where a pointer leads in a document, read the way v4 reads it.
struct Walk<'v> {
    /// The container of the last token (`None` for the root pointer or when the walk broke off).
    parent: Option<View<'v>>,
    /// The value the pointer names, if it exists.
    target: Option<View<'v>>,
    /// The decoded tokens.
    tokens: Vec<String>,
}

fn index_findings(token: &str, out: &mut Vec<&'static str>) {
    let digits = token.strip_prefix(['-', '+']).unwrap_or(token);
    if token.starts_with('-') && token.len() > 1 {
        out.push(NEGATIVE_INDEX);
    }
    if token.starts_with('+') {
        out.push(PLUS_SIGN);
    }
    if digits.len() > 1 && digits.starts_with('0') {
        out.push(LEADING_ZERO);
    }
}

fn resolve_index(token: &str, len: usize) -> Option<usize> {
    let len = len as i64;
    let idx = atoi(token).ok()?;
    let idx = if idx < 0 { idx + len } else { idx };
    (0..len).contains(&idx).then_some(idx as usize)
}

/// Walk `pointer` through `doc`, collecting RFC 6901 findings. `append_ok` says a final `-` on
/// an array is legitimate (add-like destinations).
fn walk<'v>(doc: View<'v>, pointer: &str, append_ok: bool, out: &mut Vec<&'static str>) -> Walk<'v> {
    if pointer.is_empty() {
        return Walk { parent: None, target: Some(doc), tokens: Vec::new() };
    }
    if !pointer.starts_with('/') {
        out.push(NO_LEADING_SLASH);
    }
    let raw_tokens: Vec<&str> = pointer.split('/').skip(1).collect();
    if raw_tokens.iter().any(|t| bad_escape(t)) {
        out.push(INVALID_ESCAPE);
    }
    let tokens: Vec<String> = raw_tokens.iter().map(|t| decode_patch_key(t)).collect();
    let mut cur = Some(doc);
    let mut parent = None;
    for (i, token) in tokens.iter().enumerate() {
        let last = i + 1 == tokens.len();
        let Some(here) = cur else { break };
        parent = Some(here);
        cur = if here.is_object() {
            here.member(token)
        } else if let Some(items) = here.elements() {
            if token == "-" && last && append_ok {
                None
            } else {
                index_findings(token, out);
                resolve_index(token, items.len()).and_then(|idx| items.get(idx))
            }
        } else {
            None
        };
    }
    Walk { parent, target: cur, tokens }
}

fn bad_escape(token: &str) -> bool {
    let b = token.as_bytes();
    b.iter().enumerate().any(|(i, &c)| c == b'~' && !matches!(b.get(i + 1), Some(b'0') | Some(b'1')))
}

/// The member named by the walk is missing from an object (not merely null).
fn missing_member(w: &Walk<'_>) -> bool {
    w.parent.is_some_and(View::is_object) && w.target.is_none()
}

/// RFC 6902 §4.6 equality: numbers by numeric value, everything else structurally. Iterative.
pub(crate) fn rfc_equal(a: &Value, b: &Value) -> bool {
    let mut pending = vec![(a, b)];
    while let Some((a, b)) = pending.pop() {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => {
                if x != y && !matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q) {
                    return false;
                }
            }
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                pending.extend(x.iter().zip(y));
            }
            (Value::Object(x), Value::Object(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                for (k, v) in x {
                    match y.get(k) {
                        Some(w) => pending.push((v, w)),
                        None => return false,
                    }
                }
            }
            _ => {
                if a != b {
                    return false;
                }
            }
        }
    }
    true
}

fn push_all(kinds: Vec<&'static str>, pointer: &str, found: &mut Vec<(&'static str, String)>) {
    for k in kinds {
        found.push((k, pointer.to_string()));
    }
}

fn op_findings(op: &Operation, doc: View<'_>, found: &mut Vec<(&'static str, String)>) {
    let path = op.path().unwrap_or_default();
    let from = op.from().unwrap_or_default();
    if op.duplicate {
        found.push((DUPLICATE_MEMBER, path.clone()));
    }
    match op.kind().as_str() {
        "add" => {
            let mut kinds = Vec::new();
            walk(doc, &path, true, &mut kinds);
            push_all(kinds, &path, found);
            if !op.has_value() {
                found.push((ADD_MISSING_VALUE, path.clone()));
            }
        }
        "remove" => {
            let mut kinds = Vec::new();
            walk(doc, &path, false, &mut kinds);
            push_all(kinds, &path, found);
        }
        "replace" => {
            let mut kinds = Vec::new();
            let w = walk(doc, &path, false, &mut kinds);
            push_all(kinds, &path, found);
            if !path.is_empty() && missing_member(&w) {
                found.push((REPLACE_MISSING_KEY, path.clone()));
            }
            if !op.has_value() {
                found.push((REPLACE_MISSING_VALUE, path.clone()));
            }
        }
        "test" => {
            let mut kinds = Vec::new();
            let w = walk(doc, &path, false, &mut kinds);
            push_all(kinds, &path, found);
            let value = op.raw_member("value").map(|raw| raw_to_value(raw, true).unwrap_or(Value::Null));
            if !op.has_value() {
                found.push((TEST_MISSING_VALUE, path.clone()));
            } else if w.target.is_none() {
                if value.is_none() || value == Some(Value::Null) {
                    found.push((TEST_MISSING_NULL, path.clone()));
                }
            } else if let Some(target) = w.target {
                let target = target.to_value();
                if !rfc_equal(&target, value.as_ref().unwrap_or(&Value::Null)) {
                    found.push((TEST_V4_EQUALITY, path.clone()));
                }
                dispose(target);
            }
            if let Some(value) = value {
                dispose(value);
            }
        }
        "copy" => {
            let mut kinds = Vec::new();
            let w = walk(doc, &from, false, &mut kinds);
            push_all(kinds, &from, found);
            if missing_member(&w) {
                found.push((COPY_MISSING_FROM, from.clone()));
            }
            let mut kinds = Vec::new();
            walk(doc, &path, true, &mut kinds);
            push_all(kinds, &path, found);
        }
        "move" => {
            // The source side only: the destination is looked up after the source is removed
            // (see `move_findings`).
            let mut kinds = Vec::new();
            walk(doc, &from, false, &mut kinds);
            push_all(kinds, &from, found);
        }
        _ => {}
    }
}

/// The destination side of a `move`, on the document as it is once the source is removed.
fn move_findings(op: &Operation, doc: View<'_>, found: &mut Vec<(&'static str, String)>) {
    let path = op.path().unwrap_or_default();
    let from = op.from().unwrap_or_default();
    let from_tokens = walk(View::Null, &from, false, &mut Vec::new()).tokens;
    let mut kinds = Vec::new();
    let wp = walk(doc, &path, true, &mut kinds);
    push_all(kinds, &path, found);
    if from_tokens.len() < wp.tokens.len() && wp.tokens.starts_with(&from_tokens) && !from.is_empty() {
        found.push((MOVE_INTO_CHILD, path.clone()));
    }
}

/// The ways `patch` relies on v4 leniency rather than RFC 6902 when applied to `doc` (empty if
/// none). See the module constants for the kinds.
///
/// Each operation is checked on the library's own tree as it stands before the operation (a
/// `move`'s destination once its source is removed), read in place: nothing is re-encoded or
/// copied beyond the values a `test` compares.
pub fn leniencies(doc: &Value, patch: &Patch) -> Vec<Leniency> {
    let mut out = Vec::new();
    let _ = walk_patch(doc, patch, &mut out);
    out
}

/// [`apply`](crate::apply) and [`leniencies`] in one pass: the document is loaded and the patch
/// applied once, each operation looked at before it is applied. The leniencies are those of the
/// operations that applied (all of them when the patch applies).
pub fn apply_noting_leniencies(doc: &Value, patch: &Patch) -> (Result<Value, ApplyError>, Vec<Leniency>) {
    let mut out = Vec::new();
    let applied = walk_patch(doc, patch, &mut out).and_then(|root| to_value(&root));
    (applied, out)
}

/// Load `doc` and apply `patch` operation by operation, noting each one's leniencies before it
/// applies; stops at the first operation that fails.
fn walk_patch<'v>(doc: &'v Value, patch: &Patch, out: &mut Vec<Leniency>) -> Result<Root<'v>, ApplyError> {
    walk_loaded(load_value(doc)?, patch, out)
}

/// [`walk_patch`] on a document already loaded.
fn walk_loaded<'v>(mut root: Root<'v>, patch: &Patch, out: &mut Vec<Leniency>) -> Result<Root<'v>, ApplyError> {
    let mut copied = 0i64;
    let mut found = Vec::new();
    for (index, op) in patch.ops.iter().enumerate() {
        found.clear();
        op_findings(op, View::of_root(&root), &mut found);
        if op.kind() == "move" {
            // Apply the move in its two halves, looking at the destination in between.
            let val = move_take(&mut root, op, index)?;
            move_findings(op, View::of_root(&root), &mut found);
            move_put(&mut root, op, index, val)?;
        } else {
            apply_op(&mut root, op, index, &mut copied)?;
        }
        out.extend(found.drain(..).map(|(what, path)| Leniency { op_index: index, path, what }));
    }
    Ok(root)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::decode::decode_patch;

    /// The leniencies noted and whether the patch applies, read through the values the document
    /// was loaded as, or from the document's encoded text.
    fn noted(doc: &Value, patch: &Patch, through_values: bool) -> (bool, Vec<Leniency>) {
        let root = if through_values {
            load_value(doc).unwrap()
        } else {
            crate::apply::load_root(&crate::apply::doc_bytes(doc)).unwrap()
        };
        let mut out = Vec::new();
        let applied = walk_loaded(root, patch, &mut out).is_ok();
        (applied, out)
    }

    /// Reading a raw message that is a value finds the same leniencies as reading the text it
    /// stands for: on every patch vector of the library, and on patches that walk, test,
    /// copy and move inside encoded children.
    #[test]
    fn values_note_the_same_leniencies_as_their_text() {
        let mut cases = crate::apply::vector_cases();
        let doc = json!({"a": {"b": [1, 2.5, {"c": null, "d/e": "x<y", "~": [true]}], "n": null}, "z": "s"});
        for patch in [
            json!([{"op": "replace", "path": "/a/missing", "value": 1}]),
            json!([{"op": "add", "path": "/a/b/-1", "value": 1}]),
            json!([{"op": "remove", "path": "/a/b/01"}]),
            json!([{"op": "replace", "path": "/a/b/+1", "value": 0}]),
            json!([{"op": "test", "path": "/a/b/1", "value": 2.5}]),
            json!([{"op": "test", "path": "/a/b/1", "value": 2.50}]),
            json!([{"op": "test", "path": "/a/b/2/d~1e", "value": "x<y"}]),
            json!([{"op": "test", "path": "/a/n", "value": null}]),
            json!([{"op": "test", "path": "/a/missing", "value": null}]),
            json!([{"op": "test", "path": "/a/b/2/~0"}]),
            json!([{"op": "copy", "from": "/a/nothing", "path": "/a/b/2/f"}]),
            json!([{"op": "copy", "from": "/a/b/2", "path": "/z2"}]),
            json!([{"op": "move", "from": "/a/b", "path": "/a/b/2/g"}]),
            json!([{"op": "move", "from": "/a/b/0", "path": "/a/b/-"}]),
            json!([{"op": "add", "path": "a/b/0", "value": 0}, {"op": "replace", "path": "/a/b/2/~2", "value": 1}]),
            json!([{"op": "add", "path": "/z/q", "value": 1}]),
            json!([{"op": "add", "path": "/a/n/q", "value": 1}]),
        ] {
            cases.push((doc.clone(), patch));
        }
        let mut compared = 0;
        for (doc, patch) in &cases {
            let Ok(patch) = decode_patch(&serde_json::to_vec(patch).unwrap()) else { continue };
            if load_value(doc).is_err() {
                continue;
            }
            let through_values = noted(doc, &patch, true);
            assert_eq!(through_values, noted(doc, &patch, false), "{doc} {:?}", patch.operations());
            compared += usize::from(!through_values.1.is_empty());
        }
        assert!(compared >= 15, "only {compared} cases noted a leniency");
    }
}
