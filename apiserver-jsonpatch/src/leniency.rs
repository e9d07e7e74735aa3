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

use crate::apply::{apply_op, doc_bytes, load_root};
use crate::decode::{Operation, Patch};
use crate::gojson::{dispose, raw_to_value};
use crate::node::{root_to_value, Root};
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

/// Where a pointer leads in a document, read the way v4 reads it.
struct Walk<'v> {
    /// The container of the last token (`None` for the root pointer or when the walk broke off).
    parent: Option<&'v Value>,
    /// The value the pointer names, if it exists.
    target: Option<&'v Value>,
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
fn walk<'v>(
    doc: &'v Value,
    pointer: &str,
    append_ok: bool,
    out: &mut Vec<&'static str>,
) -> Walk<'v> {
    if pointer.is_empty() {
        return Walk {
            parent: None,
            target: Some(doc),
            tokens: Vec::new(),
        };
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
        cur = match here {
            Value::Object(map) => map.get(token.as_str()),
            Value::Array(items) => {
                if token == "-" && last && append_ok {
                    None
                } else {
                    index_findings(token, out);
                    resolve_index(token, items.len()).and_then(|idx| items.get(idx))
                }
            }
            _ => None,
        };
    }
    Walk {
        parent,
        target: cur,
        tokens,
    }
}

fn bad_escape(token: &str) -> bool {
    let b = token.as_bytes();
    b.iter()
        .enumerate()
        .any(|(i, &c)| c == b'~' && !matches!(b.get(i + 1), Some(b'0') | Some(b'1')))
}

/// The member named by the walk is missing from an object (not merely null).
fn missing_member(w: &Walk<'_>) -> bool {
    matches!(w.parent, Some(Value::Object(_))) && w.target.is_none()
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

fn op_findings(op: &Operation, doc: &Value, root: &Root, index: usize) -> Vec<Leniency> {
    let mut found: Vec<(&'static str, String)> = Vec::new();
    let path = op.path().unwrap_or_default();
    let from = op.from().unwrap_or_default();
    if op.duplicate {
        found.push((DUPLICATE_MEMBER, path.clone()));
    }
    match op.kind().as_str() {
        "add" => {
            let mut kinds = Vec::new();
            walk(doc, &path, true, &mut kinds);
            push_all(kinds, &path, &mut found);
            if !op.has_value() {
                found.push((ADD_MISSING_VALUE, path.clone()));
            }
        }
        "remove" => {
            let mut kinds = Vec::new();
            walk(doc, &path, false, &mut kinds);
            push_all(kinds, &path, &mut found);
        }
        "replace" => {
            let mut kinds = Vec::new();
            let w = walk(doc, &path, false, &mut kinds);
            push_all(kinds, &path, &mut found);
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
            push_all(kinds, &path, &mut found);
            let value = op
                .raw_member("value")
                .map(|raw| raw_to_value(raw, true).unwrap_or(Value::Null));
            if !op.has_value() {
                found.push((TEST_MISSING_VALUE, path.clone()));
            } else if w.target.is_none() {
                if value.is_none() || value == Some(Value::Null) {
                    found.push((TEST_MISSING_NULL, path.clone()));
                }
            } else if let Some(target) = w.target {
                if !rfc_equal(target, value.as_ref().unwrap_or(&Value::Null)) {
                    found.push((TEST_V4_EQUALITY, path.clone()));
                }
            }
            if let Some(value) = value {
                dispose(value);
            }
        }
        "copy" => {
            let mut kinds = Vec::new();
            let w = walk(doc, &from, false, &mut kinds);
            push_all(kinds, &from, &mut found);
            if missing_member(&w) {
                found.push((COPY_MISSING_FROM, from.clone()));
            }
            let mut kinds = Vec::new();
            walk(doc, &path, true, &mut kinds);
            push_all(kinds, &path, &mut found);
        }
        "move" => {
            let mut kinds = Vec::new();
            let wf = walk(doc, &from, false, &mut kinds);
            push_all(kinds, &from, &mut found);
            // The destination is looked up after the source is removed.
            let mut after = root.clone();
            let removal = Operation::remove_of(&from);
            let doc_after = match apply_op(&mut after, &removal, index, &mut 0) {
                Ok(()) => root_to_value(&after, true).unwrap_or(Value::Null),
                Err(_) => doc.clone(),
            };
            let mut kinds = Vec::new();
            let wp = walk(&doc_after, &path, true, &mut kinds);
            push_all(kinds, &path, &mut found);
            if wf.tokens.len() < wp.tokens.len()
                && wp.tokens.starts_with(&wf.tokens)
                && !from.is_empty()
            {
                found.push((MOVE_INTO_CHILD, path.clone()));
            }
            dispose(doc_after);
        }
        _ => {}
    }
    found
        .into_iter()
        .map(|(what, path)| Leniency {
            op_index: index,
            path,
            what,
        })
        .collect()
}

/// The ways `patch` relies on v4 leniency rather than RFC 6902 when applied to `doc` (empty if
/// none). See the module constants for the kinds.
pub fn leniencies(doc: &Value, patch: &Patch) -> Vec<Leniency> {
    let mut out = Vec::new();
    let Ok(mut root) = load_root(&doc_bytes(doc)) else {
        return out;
    };
    let mut copied = 0i64;
    for (index, op) in patch.ops.iter().enumerate() {
        let Ok(snapshot) = root_to_value(&root, true) else {
            break;
        };
        let findings = op_findings(op, &snapshot, &root, index);
        dispose(snapshot);
        if apply_op(&mut root, op, index, &mut copied).is_err() {
            break;
        }
        out.extend(findings);
    }
    out
}
