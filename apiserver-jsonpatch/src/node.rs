//! A model of the library's document tree. v4 decodes the document lazily: a value stays raw
//! JSON text (`eRaw`) until an operation walks into it, which turns it into a map (`eDoc`) or a
//! slice (`eAry`) of further lazy nodes. JSON `null` members and elements become Go nil pointers,
//! while a patch `value` of `null` becomes a node with a nil raw message: the two behave
//! differently, and so do they here.
//!
//! Go types and their counterparts:
//! - `*lazyNode` → [`Node`] (`None` is the nil pointer),
//! - `partialDoc` → [`PDoc`] (`None` is a nil map; writing to it panics in Go),
//! - `partialArray` → [`PArr`] (`None` is a nil slice).

use std::borrow::Cow;
use std::collections::{btree_map, BTreeMap};
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::gojson::{
    array_elements, compact, compact_into, encode_string, encode_value, object_members, raw_to_value, unquote,
};
use crate::pointer::atoi;

pub(crate) type Raw = Arc<[u8]>;
pub(crate) type Node<'v> = Option<Box<Lazy<'v>>>;
pub(crate) type PDoc<'v> = Option<BTreeMap<String, Node<'v>>>;
pub(crate) type PArr<'v> = Option<Vec<Node<'v>>>;

/// Go runtime panic texts.
pub(crate) const NIL_DEREF: &str = "runtime error: invalid memory address or nil pointer dereference";
pub(crate) const NIL_MAP: &str = "assignment to entry in nil map";

/// `lazyNode`: its raw message (possibly nil) and which representation is current.
#[derive(Clone, Debug)]
pub(crate) struct Lazy<'v> {
    pub(crate) raw: Option<Message<'v>>,
    pub(crate) state: State<'v>,
}

#[derive(Clone, Debug)]
pub(crate) enum State<'v> {
    Raw,
    Doc(PDoc<'v>),
    Ary(PArr<'v>),
}

/// A node's raw message (`json.RawMessage`, never nil here): JSON text, or a value of a document
/// loaded from a `serde_json::Value` ([`crate::apply::load_value`]), which stands for the text
/// [`encode_value`] writes of it: that text is written only where the library reads text (a
/// `test` of scalars, `json.Marshal`), and converting such a node cuts its value into children
/// that stand for the texts `json.Unmarshal` would cut out of it (the members of an encoded
/// object are the encodings of its members, a `null` a nil pointer, a key the string it was
/// written from).
#[derive(Clone, Debug)]
pub(crate) enum Message<'v> {
    Text(Raw),
    Value(&'v Value),
}

impl Message<'_> {
    /// The raw text.
    pub(crate) fn text(&self) -> Cow<'_, [u8]> {
        match self {
            Message::Text(raw) => Cow::Borrowed(raw),
            Message::Value(value) => {
                let mut out = Vec::new();
                encode_value(value, &mut out);
                Cow::Owned(out)
            }
        }
    }

    /// The library's `isArray` of the raw text.
    pub(crate) fn is_array(&self) -> bool {
        match self {
            Message::Text(raw) => is_array(raw),
            Message::Value(value) => value.is_array(),
        }
    }
}

/// An error from a container method: an `error` value, or a Go runtime panic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fault {
    Error(String),
    Panic(String),
}

/// The root container (`*partialDoc` or `*partialArray`).
#[derive(Clone, Debug)]
pub(crate) enum Root<'v> {
    Doc(PDoc<'v>),
    Ary(PArr<'v>),
}

/// A child as `json.Unmarshal` stores it into `*lazyNode`: `null` is a nil pointer.
fn child(raw: &[u8]) -> Node<'static> {
    if raw == b"null" {
        None
    } else {
        Some(Box::new(Lazy::from_raw(Some(Arc::from(raw)))))
    }
}

/// [`child`] of the text `value` stands for.
fn value_child(value: &Value) -> Node<'_> {
    if value.is_null() {
        None
    } else {
        Some(Box::new(Lazy::from_value(value)))
    }
}

/// `json.Unmarshal(raw, &partialDoc)`: `None` on a type error.
pub(crate) fn unmarshal_doc(raw: &[u8]) -> Option<PDoc<'static>> {
    match raw.first() {
        Some(b'{') => Some(Some(object_members(raw).into_iter().map(|(k, v)| (unquote(k), child(v))).collect())),
        Some(b'n') => Some(None),
        _ => None,
    }
}

/// [`unmarshal_doc`] of the text `value` stands for.
pub(crate) fn value_doc(value: &Value) -> Option<PDoc<'_>> {
    match value {
        Value::Object(map) => Some(Some(map.iter().map(|(k, v)| (k.clone(), value_child(v))).collect())),
        Value::Null => Some(None),
        _ => None,
    }
}

/// `json.Unmarshal(raw, &partialArray)`: `None` on a type error.
pub(crate) fn unmarshal_ary(raw: &[u8]) -> Option<PArr<'static>> {
    match raw.first() {
        Some(b'[') => Some(Some(array_elements(raw).into_iter().map(child).collect())),
        Some(b'n') => Some(None),
        _ => None,
    }
}

/// [`unmarshal_ary`] of the text `value` stands for.
pub(crate) fn value_ary(value: &Value) -> Option<PArr<'_>> {
    match value {
        Value::Array(items) => Some(Some(items.iter().map(value_child).collect())),
        Value::Null => Some(None),
        _ => None,
    }
}

/// The library's `isArray`: skips spaces, newlines and tabs (not `\r`), then looks for `[`.
pub(crate) fn is_array(raw: &[u8]) -> bool {
    for &c in raw {
        match c {
            b' ' | b'\n' | b'\t' => continue,
            b'[' => return true,
            _ => return false,
        }
    }
    false
}

/// Move a node's children out, leaving it raw, so that dropping it does not recurse.
#[allow(clippy::vec_box)] // the children are boxed in the tree; moving the boxes avoids copies
fn detach_children<'v>(state: &mut State<'v>, into: &mut Vec<Box<Lazy<'v>>>) {
    match std::mem::replace(state, State::Raw) {
        State::Doc(Some(map)) => into.extend(map.into_values().flatten()),
        State::Ary(Some(items)) => into.extend(items.into_iter().flatten()),
        _ => {}
    }
}

impl Drop for Lazy<'_> {
    /// Dismantles the subtree iteratively: Go allows 10000 levels of nesting.
    fn drop(&mut self) {
        let mut pending = Vec::new();
        detach_children(&mut self.state, &mut pending);
        while let Some(mut node) = pending.pop() {
            detach_children(&mut node.state, &mut pending);
        }
    }
}

impl<'v> Lazy<'v> {
    /// Take the current representation, leaving the node raw.
    pub(crate) fn take_state(&mut self) -> State<'v> {
        std::mem::replace(&mut self.state, State::Raw)
    }

    pub(crate) fn from_raw(raw: Option<Raw>) -> Self {
        Lazy { raw: raw.map(Message::Text), state: State::Raw }
    }

    /// A raw node whose message is the text `value` stands for.
    pub(crate) fn from_value(value: &'v Value) -> Self {
        Lazy { raw: Some(Message::Value(value)), state: State::Raw }
    }

    /// A node whose current representation is `state` (no raw text).
    pub(crate) fn from_state(state: State<'v>) -> Self {
        Lazy { raw: None, state }
    }

    fn is_raw(&self) -> bool {
        matches!(self.state, State::Raw)
    }

    /// `tryDoc`.
    fn try_doc(&mut self) -> bool {
        let doc = match &self.raw {
            None => None,
            Some(Message::Text(raw)) => unmarshal_doc(raw),
            Some(Message::Value(value)) => value_doc(value),
        };
        match doc {
            Some(doc) => {
                self.state = State::Doc(doc);
                true
            }
            None => false,
        }
    }

    /// `tryAry`.
    fn try_ary(&mut self) -> bool {
        let ary = match &self.raw {
            None => None,
            Some(Message::Text(raw)) => unmarshal_ary(raw),
            Some(Message::Value(value)) => value_ary(value),
        };
        match ary {
            Some(ary) => {
                self.state = State::Ary(ary);
                true
            }
            None => false,
        }
    }

    /// `intoDoc`.
    pub(crate) fn convert_to_doc(&mut self) -> Option<&mut PDoc<'v>> {
        if !matches!(self.state, State::Doc(_)) && !self.try_doc() {
            return None;
        }
        match &mut self.state {
            State::Doc(doc) => Some(doc),
            _ => None,
        }
    }

    /// `intoAry`.
    pub(crate) fn convert_to_ary(&mut self) -> Option<&mut PArr<'v>> {
        if !matches!(self.state, State::Ary(_)) && !self.try_ary() {
            return None;
        }
        match &mut self.state {
            State::Ary(ary) => Some(ary),
            _ => None,
        }
    }
}

/// Where a pair compared by [`equal`] came from, which decides what a nil node means.
#[derive(Clone, Copy)]
enum Pair {
    /// The top-level call or an array element: a nil node is dereferenced (Go panics).
    Deref,
    /// A map member: both nil is equal, one nil is unequal.
    Member,
}

fn nil_deref() -> Fault {
    Fault::Panic(NIL_DEREF.to_string())
}

/// `(*lazyNode).equal`, including its nil dereferences (a nil node on either side panics, which
/// happens for arrays holding `null`) and its comparison of scalars by their compacted raw text
/// (`1` and `1.0` differ). Go visits map members in random order; this visits them as Go does when
/// it happens to check the key sets first, then values in key order. Iterative (depth-first, in
/// Go's order), so deep values do not exhaust the stack.
pub(crate) fn equal<'a, 'v>(n: Option<&'a mut Lazy<'v>>, o: Option<&'a mut Lazy<'v>>) -> Result<bool, Fault> {
    let mut stack: Vec<(Option<&'a mut Lazy<'v>>, Option<&'a mut Lazy<'v>>, Pair)> = vec![(n, o, Pair::Deref)];
    while let Some((n, o, pair)) = stack.pop() {
        if let Pair::Member = pair {
            match (&n, &o) {
                (None, None) => continue,
                (None, Some(_)) | (Some(_), None) => return Ok(false),
                _ => {}
            }
        }
        let n = n.ok_or_else(nil_deref)?;
        if n.is_raw() && !n.try_doc() && !n.try_ary() {
            let o = o.ok_or_else(nil_deref)?;
            if !o.is_raw() {
                return Ok(false);
            }
            let a = n.raw.as_ref().map(|r| compact(&r.text(), false));
            let b = o.raw.as_ref().map(|r| compact(&r.text(), false));
            if a.unwrap_or_default() != b.unwrap_or_default() {
                return Ok(false);
            }
            continue;
        }
        let o = o.ok_or_else(nil_deref)?;
        let Lazy { state: n_state, .. } = n;
        match n_state {
            State::Doc(nd) => {
                if o.is_raw() && !o.try_doc() {
                    return Ok(false);
                }
                let Lazy { state: State::Doc(od), .. } = o else {
                    return Ok(false);
                };
                let empty_n = BTreeMap::new();
                let empty_o = BTreeMap::new();
                if nd.as_ref().unwrap_or(&empty_n).len() != od.as_ref().unwrap_or(&empty_o).len() {
                    return Ok(false);
                }
                if let (Some(nm), Some(om)) = (nd.as_mut(), od.as_mut()) {
                    if !nm.keys().eq(om.keys()) {
                        return Ok(false);
                    }
                    let pairs: Vec<_> = nm
                        .values_mut()
                        .zip(om.values_mut())
                        .map(|(a, b)| (a.as_deref_mut(), b.as_deref_mut(), Pair::Member))
                        .collect();
                    stack.extend(pairs.into_iter().rev());
                }
            }
            State::Ary(na) => {
                if !matches!(o.state, State::Ary(_)) && !o.try_ary() {
                    return Ok(false);
                }
                let Lazy { state: State::Ary(oa), .. } = o else {
                    return Ok(false);
                };
                let nlen = na.as_ref().map_or(0, Vec::len);
                let olen = oa.as_ref().map_or(0, Vec::len);
                if nlen != olen {
                    return Ok(false);
                }
                if let (Some(na), Some(oa)) = (na.as_mut(), oa.as_mut()) {
                    let pairs: Vec<_> = na
                        .iter_mut()
                        .zip(oa.iter_mut())
                        .map(|(a, b)| (a.as_deref_mut(), b.as_deref_mut(), Pair::Deref))
                        .collect();
                    stack.extend(pairs.into_iter().rev());
                }
            }
            State::Raw => return Ok(false),
        }
    }
    Ok(true)
}

enum Task<'a, 'v> {
    Node(Option<&'a Lazy<'v>>),
    Doc(&'a PDoc<'v>),
    Ary(&'a PArr<'v>),
    Key(&'a str),
    Byte(u8),
}

/// `json.Marshal`, driven by an explicit task stack so that depth costs no stack.
fn run_marshal(first: Task<'_, '_>, out: &mut Vec<u8>) {
    let mut tasks = vec![first];
    while let Some(task) = tasks.pop() {
        match task {
            Task::Byte(b) => out.push(b),
            Task::Key(k) => {
                encode_string(k, out);
                out.push(b':');
            }
            Task::Node(None) => out.extend_from_slice(b"null"),
            Task::Node(Some(node)) => match &node.state {
                State::Raw => match &node.raw {
                    Some(raw) => compact_into(&raw.text(), true, out),
                    None => out.extend_from_slice(b"null"),
                },
                State::Doc(doc) => tasks.push(Task::Doc(doc)),
                State::Ary(ary) => tasks.push(Task::Ary(ary)),
            },
            Task::Doc(None) | Task::Ary(None) => out.extend_from_slice(b"null"),
            Task::Doc(Some(map)) => {
                out.push(b'{');
                tasks.push(Task::Byte(b'}'));
                for (i, (k, v)) in map.iter().enumerate().rev() {
                    tasks.push(Task::Node(v.as_deref()));
                    tasks.push(Task::Key(k));
                    if i > 0 {
                        tasks.push(Task::Byte(b','));
                    }
                }
            }
            Task::Ary(Some(items)) => {
                out.push(b'[');
                tasks.push(Task::Byte(b']'));
                for (i, v) in items.iter().enumerate().rev() {
                    tasks.push(Task::Node(v.as_deref()));
                    if i > 0 {
                        tasks.push(Task::Byte(b','));
                    }
                }
            }
        }
    }
}

/// `json.Marshal` of a node: raw text compacted with HTML escaping, maps with sorted keys, nil
/// pointers, nil raw messages, nil maps and nil slices as `null`.
pub(crate) fn marshal(node: Option<&Lazy<'_>>, out: &mut Vec<u8>) {
    run_marshal(Task::Node(node), out);
}

/// `json.Marshal(pd)` of the root container.
pub(crate) fn marshal_root(root: &Root<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    match root {
        Root::Doc(doc) => run_marshal(Task::Doc(doc), &mut out),
        Root::Ary(ary) => run_marshal(Task::Ary(ary), &mut out),
    }
    out
}

/// A container of [`root_to_value`] being filled: the value so far and the children still to
/// come.
enum Build<'a, 'v> {
    Doc(Map<String, Value>, btree_map::Iter<'a, String, Node<'v>>, Option<&'a String>),
    Ary(Vec<Value>, std::slice::Iter<'a, Node<'v>>),
}

/// A nil map as `null`, or `None` after pushing a frame for a map.
fn open_doc<'a, 'v>(doc: &'a PDoc<'v>, stack: &mut Vec<Build<'a, 'v>>) -> Option<Value> {
    let Some(map) = doc else { return Some(Value::Null) };
    stack.push(Build::Doc(Map::new(), map.iter(), None));
    None
}

/// A nil slice as `null`, or `None` after pushing a frame for a slice.
fn open_ary<'a, 'v>(ary: &'a PArr<'v>, stack: &mut Vec<Build<'a, 'v>>) -> Option<Value> {
    let Some(items) = ary else { return Some(Value::Null) };
    stack.push(Build::Ary(Vec::with_capacity(items.len()), items.iter()));
    None
}

/// The value the root stands for: what Go's output bytes (`json.Marshal` of the root) read back
/// with [`raw_to_value`] give. Unconverted raw values keep their text order, converted maps are in
/// key order. Built from the tree without writing those bytes: a raw text is read back itself
/// (compacting and HTML escaping, which `json.Marshal` applies to it, change no value), a raw
/// message that is a value is that value, copied (reading back this crate's encoding of a `Value`
/// gives that `Value`); nil pointers, nil raw messages, nil maps and nil slices are `null`; the
/// first number that `raw_to_value` cannot hold, in output order, is the error. Iterative, like
/// the marshalling.
pub(crate) fn root_to_value(root: &Root<'_>, lossy: bool) -> Result<Value, String> {
    let mut stack = Vec::new();
    let ready = match root {
        Root::Doc(doc) => open_doc(doc, &mut stack),
        Root::Ary(ary) => open_ary(ary, &mut stack),
    };
    build_value(stack, ready, lossy)
}

/// A map as [`root_to_value`] gives it.
pub(crate) fn doc_to_value(doc: &PDoc<'_>, lossy: bool) -> Result<Value, String> {
    let mut stack = Vec::new();
    let ready = open_doc(doc, &mut stack);
    build_value(stack, ready, lossy)
}

/// A slice as [`root_to_value`] gives it.
pub(crate) fn ary_to_value(ary: &PArr<'_>, lossy: bool) -> Result<Value, String> {
    let mut stack = Vec::new();
    let ready = open_ary(ary, &mut stack);
    build_value(stack, ready, lossy)
}

/// Fill the containers on `stack` (the value is `ready` when there is none).
fn build_value(mut stack: Vec<Build<'_, '_>>, mut ready: Option<Value>, lossy: bool) -> Result<Value, String> {
    loop {
        if let Some(value) = ready.take() {
            match stack.last_mut() {
                None => return Ok(value),
                Some(Build::Doc(map, _, key)) => {
                    let key = key.take().expect("a member's key is set before its value");
                    map.insert(key.clone(), value);
                }
                Some(Build::Ary(items, ..)) => items.push(value),
            }
        }
        let child = match stack.last_mut().expect("a container is being built") {
            Build::Doc(_, members, key) => members.next().map(|(k, v)| {
                *key = Some(k);
                v
            }),
            Build::Ary(_, items) => items.next(),
        };
        ready = match child {
            None => match stack.pop() {
                Some(Build::Doc(map, ..)) => Some(Value::Object(map)),
                Some(Build::Ary(items, ..)) => Some(Value::Array(items)),
                None => unreachable!("the container was just looked at"),
            },
            Some(None) => Some(Value::Null),
            Some(Some(node)) => match &node.state {
                State::Raw => match &node.raw {
                    Some(Message::Value(value)) => Some((*value).clone()),
                    Some(Message::Text(raw)) => {
                        #[cfg(test)]
                        READ_BACK.with(|n| n.set(n.get() + 1));
                        Some(raw_to_value(raw, lossy)?)
                    }
                    None => Some(Value::Null),
                },
                State::Doc(doc) => open_doc(doc, &mut stack),
                State::Ary(ary) => open_ary(ary, &mut stack),
            },
        };
    }
}

#[cfg(test)]
thread_local! {
    /// How many raw texts `root_to_value` read back (this thread).
    pub(crate) static READ_BACK: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// `deepCopy`: the node re-created from its marshalled bytes, and the number of those bytes.
pub(crate) fn deep_copy(node: Option<&Lazy<'_>>) -> (Node<'static>, usize) {
    let Some(node) = node else { return (None, 0) };
    let mut bytes = Vec::new();
    marshal(Some(node), &mut bytes);
    let size = bytes.len();
    (Some(Box::new(Lazy::from_raw(Some(Arc::from(bytes))))), size)
}

/// A container the library's `findObject` returns: a map or a slice, somewhere in the tree.
pub(crate) enum Con<'a, 'v> {
    Doc(&'a mut PDoc<'v>),
    Ary(&'a mut PArr<'v>),
}

fn invalid_index(idx: i64) -> Fault {
    Fault::Error(format!("Unable to access invalid index: {idx}: invalid index referenced"))
}

fn len_i64(ary: &PArr<'_>) -> i64 {
    ary.as_ref().map_or(0, |v| v.len() as i64)
}

impl<'a, 'v> Con<'a, 'v> {
    pub(crate) fn from_root(root: &'a mut Root<'v>) -> Self {
        match root {
            Root::Doc(doc) => Con::Doc(doc),
            Root::Ary(ary) => Con::Ary(ary),
        }
    }

    /// `get`, consuming the borrow so the child can outlive this container handle. `Ok(None)` is
    /// a missing map key (Go returns a nil node for it, as for a `null` member).
    pub(crate) fn into_get(self, key: &str) -> Result<Option<&'a mut Node<'v>>, Fault> {
        match self {
            Con::Doc(doc) => Ok(doc.as_mut().and_then(|m| m.get_mut(key))),
            Con::Ary(ary) => {
                let len = len_i64(ary);
                let mut idx = atoi(key).map_err(Fault::Error)?;
                if idx < 0 {
                    if idx < -len {
                        return Err(invalid_index(idx));
                    }
                    idx += len;
                }
                if idx >= len {
                    return Err(invalid_index(idx));
                }
                Ok(ary.as_mut().and_then(|v| v.get_mut(idx as usize)))
            }
        }
    }

    pub(crate) fn get(&mut self, key: &str) -> Result<Option<&mut Node<'v>>, Fault> {
        match self {
            Con::Doc(doc) => Con::Doc(doc).into_get(key),
            Con::Ary(ary) => Con::Ary(ary).into_get(key),
        }
    }

    /// `add`.
    pub(crate) fn add(&mut self, key: &str, val: Node<'v>) -> Result<(), Fault> {
        match self {
            Con::Doc(doc) => match doc.as_mut() {
                Some(map) => {
                    map.insert(key.to_string(), val);
                    Ok(())
                }
                None => Err(Fault::Panic(NIL_MAP.to_string())),
            },
            Con::Ary(ary) => {
                if key == "-" {
                    ary.get_or_insert_with(Vec::new).push(val);
                    return Ok(());
                }
                let mut idx =
                    atoi(key).map_err(|e| Fault::Error(format!("value was not a proper array index: '{key}': {e}")))?;
                let size = len_i64(ary) + 1;
                if idx >= size {
                    return Err(invalid_index(idx));
                }
                if idx < 0 {
                    if idx < -size {
                        return Err(invalid_index(idx));
                    }
                    idx += size;
                }
                ary.get_or_insert_with(Vec::new).insert(idx as usize, val);
                Ok(())
            }
        }
    }

    /// `set` (used by `replace` after a successful `get`).
    pub(crate) fn set(&mut self, key: &str, val: Node<'v>) -> Result<(), Fault> {
        match self {
            Con::Doc(doc) => match doc.as_mut() {
                Some(map) => {
                    map.insert(key.to_string(), val);
                    Ok(())
                }
                None => Err(Fault::Panic(NIL_MAP.to_string())),
            },
            Con::Ary(ary) => {
                let len = len_i64(ary);
                let mut idx = atoi(key).map_err(Fault::Error)?;
                if idx < 0 {
                    if idx < -len {
                        return Err(invalid_index(idx));
                    }
                    idx += len;
                }
                match ary.as_mut().and_then(|v| v.get_mut(idx as usize)) {
                    Some(slot) => {
                        *slot = val;
                        Ok(())
                    }
                    None => Err(Fault::Panic(format!("runtime error: index out of range [{idx}] with length {len}"))),
                }
            }
        }
    }

    /// `remove`, returning the removed node (what `move` carries to its destination).
    pub(crate) fn remove(&mut self, key: &str) -> Result<Node<'v>, Fault> {
        match self {
            Con::Doc(doc) => match doc.as_mut().and_then(|m| m.remove(key)) {
                Some(node) => Ok(node),
                None => Err(Fault::Error(format!("Unable to remove nonexistent key: {key}: missing value"))),
            },
            Con::Ary(ary) => {
                let len = len_i64(ary);
                let mut idx = atoi(key).map_err(Fault::Error)?;
                if idx >= len {
                    return Err(invalid_index(idx));
                }
                if idx < 0 {
                    if idx < -len {
                        return Err(invalid_index(idx));
                    }
                    idx += len;
                }
                match ary.as_mut() {
                    Some(items) if (idx as usize) < items.len() => Ok(items.remove(idx as usize)),
                    _ => Err(invalid_index(idx)),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::apply::{apply_all, doc_bytes, load_root};
    use crate::decode::decode_patch;

    /// The tree built from `doc` and patched by `patch`.
    fn patched(doc: &[u8], patch: &[u8]) -> Option<Root<'static>> {
        let mut root = load_root(doc).ok()?;
        apply_all(&mut root, &decode_patch(patch).ok()?).ok()?;
        Some(root)
    }

    /// `root_to_value` gives what reading back `json.Marshal`'s bytes gives: the same value, its
    /// members in the same order, the same error.
    fn agrees(root: &Root, lossy: bool) -> Result<(), String> {
        let direct = root_to_value(root, lossy);
        let read_back = raw_to_value(&marshal_root(root), lossy);
        let text =
            |r: &Result<Value, String>| r.as_ref().map(|v| serde_json::to_string(v).unwrap()).map_err(Clone::clone);
        if text(&direct) == text(&read_back) && direct == read_back {
            Ok(())
        } else {
            Err(format!("direct {direct:?}\n read back {read_back:?}"))
        }
    }

    #[test]
    fn the_value_is_what_the_marshalled_bytes_read_back_give() {
        let cases: &[(&[u8], &[u8])] = &[
            // Untouched raw text: whitespace, escapes, key order, duplicate keys, nulls.
            (br#" { "b" : [1, 2.50, -0, 1e2] , "a":"\u003c&>\u2028", "d":1, "d":{"x":null} } "#, b"[]"),
            // Converted maps (key order), raw values inside them, nil members, added values
            // with whitespace.
            (
                br#"{"z":{"y":1,"x":null,"w":[null,{"v":"<"}]},"a":0}"#,
                br#"[{"op":"add","path":"/z/u","value": { "t" : [ 1 , 2 ] }},{"op":"replace","path":"/z/w/1/v","value":null},{"op":"add","path":"/z/w/-","value":"&"}]"#,
            ),
            // Values without a value member (nil raw messages), copies, moves and removals.
            (
                br#"{"a":{"b":[1,2,3]},"c":"d"}"#,
                br#"[{"op":"add","path":"/n"},{"op":"copy","from":"/a","path":"/e"},{"op":"move","from":"/a/b/0","path":"/f"},{"op":"remove","path":"/c"}]"#,
            ),
            // A root array, converted and not.
            (br#"[ {"b":1,"a":2}, [3], null ]"#, br#"[{"op":"add","path":"/0/c","value":3}]"#),
            (br#"[1, 2]"#, b"[]"),
            // A null document: a nil map.
            (b"null", b"[]"),
            // Invalid UTF-8 and unpaired surrogates go Go's way in both.
            (b"{\"a\":\"\\ud800\",\"b\":\"\xff\"}", br#"[{"op":"add","path":"/c","value":"\udc00"}]"#),
        ];
        for (doc, patch) in cases {
            let show = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            let root = patched(doc, patch).unwrap_or_else(|| panic!("{} {} applies", show(doc), show(patch)));
            agrees(&root, false).unwrap_or_else(|e| panic!("{} + {}:\n{e}", show(doc), show(patch)));
        }
    }

    #[test]
    fn numbers_it_cannot_hold_are_the_same_error_or_the_same_string() {
        for (doc, patch) in [
            (r#"{"a":1e400,"b":{"c":2e400}}"#, "[]"),
            (r#"{"a":{"b":1},"c":3e400}"#, r#"[{"op":"add","path":"/a/c","value":4e400}]"#),
        ] {
            let root = patched(doc.as_bytes(), patch.as_bytes()).unwrap();
            assert!(root_to_value(&root, false).is_err());
            agrees(&root, false).unwrap();
            agrees(&root, true).unwrap();
        }
    }

    #[test]
    fn deep_values_converted_or_raw() {
        let depth = 2_000;
        let value = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        // A `test` of the value converts every level of it; the raw copy stays text.
        let patch = format!(
            r#"[{{"op":"add","path":"/d","value":{value}}},{{"op":"test","path":"/d","value":{value}}},{{"op":"add","path":"/r","value":{value}}}]"#
        );
        let root = patched(b"{}", patch.as_bytes()).unwrap();
        agrees(&root, false).unwrap();
    }

    #[test]
    fn every_vector_that_applies() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/vectors/jsonpatch-v4.json");
        let vectors: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("vector file")).unwrap();
        let mut compared = 0;
        for v in vectors["patch"].as_array().expect("patch vectors") {
            let patch = serde_json::to_vec(&v["patch"]).unwrap();
            let Some(root) = patched(&doc_bytes(&v["doc"]), &patch) else { continue };
            agrees(&root, true).unwrap_or_else(|e| panic!("{}: {e}", v["name"]));
            compared += 1;
        }
        assert!(compared > 50, "only {compared} vectors applied");
    }
}
