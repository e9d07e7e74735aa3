//! `jsonpatch.DecodePatch`: Go's `json.Unmarshal` of the patch bytes into `[]Operation`, where
//! `Operation` is `map[string]*json.RawMessage`. Member values are kept as raw JSON text (numbers
//! keep their spelling), a member whose value is `null` is present but nil, the last of duplicate
//! members wins, and members other than `op`/`path`/`from`/`value` are carried but never read.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use crate::error::DecodeError;
use crate::gojson::{array_elements, dispose, kind_name, object_members, raw_to_value, top_value, unquote, validate};
use crate::node::{Lazy, Node, Raw};

/// One operation as the library holds it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Operation {
    /// `None` for a JSON `null` element (a nil map in Go); member values `None` for `null`.
    pub(crate) members: Option<HashMap<String, Option<Raw>>>,
    /// The object named some member more than once.
    pub(crate) duplicate: bool,
    /// Member names in document order (first occurrence).
    order: Vec<String>,
}

impl Operation {
    fn member(&self, name: &str) -> Option<&Option<Raw>> {
        self.members.as_ref().and_then(|m| m.get(name))
    }

    /// `Kind()`: the `op` string, or `unknown` when absent, null or not a string.
    pub(crate) fn kind(&self) -> String {
        match self.member("op") {
            Some(Some(raw)) if raw.first() == Some(&b'"') => unquote(raw),
            _ => "unknown".to_string(),
        }
    }

    fn string_member(&self, name: &str, missing: &str) -> Result<String, String> {
        match self.member(name) {
            Some(Some(raw)) if raw.first() == Some(&b'"') => Ok(unquote(raw)),
            Some(Some(raw)) => Err(format!("json: cannot unmarshal {} into Go value of type string", kind_name(raw))),
            _ => Err(missing.to_string()),
        }
    }

    /// `Path()`.
    pub(crate) fn path(&self) -> Result<String, String> {
        self.string_member("path", "operation missing path field: missing value")
    }

    /// `From()`.
    pub(crate) fn from(&self) -> Result<String, String> {
        self.string_member("from", "operation, missing from field: missing value")
    }

    /// `value()`: nil when the member is absent, a node with a nil raw message when it is `null`.
    pub(crate) fn value(&self) -> Node<'static> {
        self.member("value").map(|raw| Box::new(Lazy::from_raw(raw.clone())))
    }

    pub(crate) fn has_value(&self) -> bool {
        self.member("value").is_some()
    }

    /// The operation as a JSON object (see [`Patch::operations`]).
    fn view(&self) -> Map<String, Value> {
        let mut view = Map::new();
        let Some(members) = &self.members else {
            return view;
        };
        let mut names: Vec<&String> = members.keys().collect();
        names.sort_by_key(|name| self.order.iter().position(|n| n == *name));
        for name in names {
            let value = match &members[name] {
                Some(raw) => raw_to_value(raw, true).unwrap_or(Value::Null),
                None => Value::Null,
            };
            view.insert(name.clone(), value);
        }
        view
    }

    /// The raw text of a member, `None` when absent or null.
    pub(crate) fn raw_member(&self, name: &str) -> Option<&[u8]> {
        self.member(name).and_then(|r| r.as_deref())
    }
}

/// One operation's members as raw JSON text (see [`Patch::raw_operations`]); of a name given
/// more than once, the last value.
#[derive(Clone, Copy, Debug)]
pub struct RawOperation<'p> {
    members: &'p HashMap<String, Option<Raw>>,
}

impl<'p> RawOperation<'p> {
    /// The number of distinct member names.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// No member at all.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The text of member `name`: `None` when absent, `Some(None)` when `null`.
    pub fn member(&self, name: &str) -> Option<Option<&'p [u8]>> {
        self.members.get(name).map(|raw| raw.as_deref())
    }
}

/// A decoded JSON Patch: the operations in order. `Send + Sync`, cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct Patch {
    pub(crate) ops: Vec<Operation>,
    views: OnceLock<Vec<Map<String, Value>>>,
}

impl Patch {
    /// No operations: the apiserver leaves the object untouched.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The number of operations.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// The JSON pointers the operations name as strings (each one's `path`, then its `from`), in
    /// order: where the patch writes or reads. A member absent or not a string is left out.
    pub fn pointers(&self) -> Vec<String> {
        self.ops.iter().flat_map(|op| [op.path().ok(), op.from().ok()]).flatten().collect()
    }

    /// The operations as the apiserver's decoding holds their members, raw JSON text, in order
    /// (`None` for a `null` element): what [`Patch::operations`] shows, without building values.
    pub fn raw_operations(&self) -> impl Iterator<Item = Option<RawOperation<'_>>> {
        self.ops.iter().map(|op| op.members.as_ref().map(|members| RawOperation { members }))
    }

    /// The operations as JSON objects, in order, for inspection (built on first use). A `null`
    /// element appears as an empty object; of duplicate members the last is shown; a number
    /// `serde_json` cannot hold (e.g. `1e400`) appears as a string of its text. Applying always
    /// uses the raw text, not these values.
    pub fn operations(&self) -> &[Map<String, Value>] {
        self.views.get_or_init(|| self.ops.iter().map(Operation::view).collect())
    }
}

impl Drop for Patch {
    fn drop(&mut self) {
        if let Some(views) = self.views.take() {
            for view in views {
                dispose(Value::Object(view));
            }
        }
    }
}

fn parse_operation(raw: &[u8]) -> Operation {
    let mut members = HashMap::new();
    let mut order = Vec::new();
    let mut duplicate = false;
    for (k, v) in object_members(raw) {
        let key = unquote(k);
        let value: Option<Raw> = if v == b"null" { None } else { Some(Arc::from(v)) };
        if members.insert(key.clone(), value).is_some() {
            duplicate = true;
        } else {
            order.push(key);
        }
    }
    Operation { members: Some(members), duplicate, order }
}

/// Decode patch bytes as `jsonpatch.DecodePatch` does.
///
/// Empty bytes decode to an empty patch (the apiserver skips an empty `patch` before decoding),
/// as does `null`. Anything that is not a JSON array of objects (or nulls) is an error with Go's
/// text, e.g. `json: cannot unmarshal object into Go value of type jsonpatch.Patch`.
pub fn decode_patch(bytes: &[u8]) -> Result<Patch, DecodeError> {
    if bytes.is_empty() {
        return Ok(Patch::default());
    }
    validate(bytes).map_err(|e| DecodeError::Syntax { message: e.message, offset: e.offset })?;
    let raw = top_value(bytes);
    let mut patch = Patch::default();
    match raw.first() {
        Some(b'n') => {}
        Some(b'[') => {
            for (i, element) in array_elements(raw).into_iter().enumerate() {
                match element.first() {
                    Some(b'{') => patch.ops.push(parse_operation(element)),
                    Some(b'n') => patch.ops.push(Operation::default()),
                    _ => {
                        return Err(DecodeError::Type {
                            message: format!(
                                "json: cannot unmarshal {} into Patch.{i} of type jsonpatch.Operation",
                                kind_name(element)
                            ),
                        })
                    }
                }
            }
        }
        _ => {
            return Err(DecodeError::Type {
                message: format!("json: cannot unmarshal {} into Go value of type jsonpatch.Patch", kind_name(raw)),
            })
        }
    }
    Ok(patch)
}

#[cfg(test)]
mod tests {
    /// The raw members are what the views show, as text: the last of a repeated name, `null` as
    /// present without text, a number in its own spelling; a `null` operation has none.
    #[test]
    fn raw_operations_hold_each_members_text() {
        let text =
            br#"[{"op":"add","path":"/a","value":1.50,"op":"replace"},{"op":"remove","path":"/b","value":null},null]"#;
        let patch = super::decode_patch(text).expect("a patch");
        let raw: Vec<_> = patch.raw_operations().collect();
        assert_eq!(raw.len(), 3);
        let (first, second) = (raw[0].unwrap(), raw[1].unwrap());
        assert_eq!(
            (first.len(), first.member("op"), first.member("value")),
            (3, Some(Some(&br#""replace""#[..])), Some(Some(&b"1.50"[..])))
        );
        assert_eq!((second.member("value"), second.member("from")), (Some(None), None));
        assert!(raw[2].is_none());
        assert_eq!(patch.operations()[0]["op"], "replace");
    }

    #[test]
    fn pointers_are_each_operations_path_then_its_from() {
        let text =
            br#"[{"op":"move","from":"/a","path":"/b"},{"op":"add","path":"/c","value":1},{"op":"remove","path":7}]"#;
        let patch = super::decode_patch(text).expect("a patch");
        assert_eq!(patch.pointers(), ["/b", "/a", "/c"]);
    }
}
