//! The typed decode: the body into the Go `AdmissionReview` with the apiserver's non-strict decoder
//! (`sigs.k8s.io/json` `UnmarshalCaseSensitivePreserveInts`, a fork of Go's `encoding/json`,
//! `internal/golang/encoding/json/decode.go`).
//!
//! What it does, and this reproduces: field names match case-sensitively and unknown ones are
//! skipped (`object`); a repeated key decodes into the value already there, so structs, pointers to
//! structs and maps merge while scalars, strings and byte slices take the last value (`object`,
//! `indirect`); `null` empties a pointer, slice or map and leaves a bool, string or number as it was
//! (`literalStore` case `'n'`); an integer field takes only what `strconv.ParseInt` reads and the
//! type holds; `[]byte` takes padded standard base64 or an array of bytes; a value of the wrong
//! type is skipped, decoding goes on, and the first such error in document order is the one
//! reported (`saveError`), as `json: cannot unmarshal <what> into Go struct field
//! <Struct>.<path> of type <type>` (`addErrorContext`).
//!
//! The decoded value is kept as JSON: a struct as an object with the fields that were set, a
//! pointer that is nil or a string never set absent.

use apiserver_jsonpatch::go_json::{array_elements, decode_base64, object_members, unquote};
use apiserver_jsonpatch::{FieldError, FieldForm};
use serde_json::{Map, Value};

use super::schema::{Struct, Ty};

/// One error of the typed decode, in Go's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TypeError {
    /// Go's message, e.g. `json: cannot unmarshal string into Go struct field
    /// AdmissionResponse.response.allowed of type bool`.
    pub message: String,
    /// For an error in the `[]byte` field `response.patch`: the same error as the patch checks
    /// name it.
    pub patch: Option<FieldError>,
}

/// What the typed decode leaves.
#[derive(Debug, Default)]
pub(crate) struct Typed {
    /// The decoded value.
    pub value: Value,
    /// Every type error, in document order; Go reports the first.
    pub errors: Vec<TypeError>,
    /// How `response.patch` was last written (string or array), when it was.
    pub patch_form: Option<FieldForm>,
}

/// Decode the valid JSON value `raw` into `ty`.
pub(crate) fn decode(raw: &[u8], ty: &Ty) -> Typed {
    let mut d = Decoder { errors: Vec::new(), context: None, path: Vec::new(), patch_form: None };
    let mut value = Value::Null;
    d.value(raw, ty, &mut value);
    Typed { value, errors: d.errors, patch_form: d.patch_form }
}

struct Decoder {
    errors: Vec<TypeError>,
    /// The struct holding the field being decoded (Go's `errorContext.Struct`).
    context: Option<&'static str>,
    /// JSON names from the root to it (`errorContext.FieldStack`).
    path: Vec<&'static str>,
    patch_form: Option<FieldForm>,
}

/// Go's name for the kind of JSON value in an `UnmarshalTypeError` (`"number"` for numbers into
/// anything but an integer).
pub(super) fn what(raw: &[u8]) -> &'static str {
    match raw.first() {
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b'"') => "string",
        Some(b't') | Some(b'f') => "bool",
        Some(b'n') => "null",
        _ => "number",
    }
}

fn zero(ty: &Ty) -> Value {
    match ty {
        Ty::Str(_) => Value::String(String::new()),
        Ty::Bool => Value::Bool(false),
        Ty::Int { .. } => Value::from(0),
        Ty::Struct(_) => Value::Object(Map::new()),
        Ty::Bytes | Ty::Slice { .. } | Ty::Map { .. } | Ty::Ptr(_) | Ty::Raw => Value::Null,
    }
}

impl Decoder {
    fn in_patch(&self) -> bool {
        self.path == ["response", "patch"]
    }

    fn type_error(&mut self, what: &str, ty: &Ty, patch: Option<FieldError>) {
        let message = match self.context {
            Some(name) => format!(
                "json: cannot unmarshal {what} into Go struct field {name}.{} of type {}",
                self.path.join("."),
                ty.go_name()
            ),
            None => format!("json: cannot unmarshal {what} into Go value of type {}", ty.go_name()),
        };
        let patch = if self.in_patch() { patch } else { None };
        self.errors.push(TypeError { message, patch });
    }

    /// Decode `raw` into `slot` (`Null`: the type's zero value, or nil).
    fn value(&mut self, raw: &[u8], ty: &Ty, slot: &mut Value) {
        let first = raw.first().copied().unwrap_or(b'n');
        match ty {
            Ty::Raw => {}
            Ty::Ptr(elem) => {
                if first == b'n' {
                    *slot = Value::Null;
                } else {
                    self.value(raw, elem, slot);
                }
            }
            Ty::Str(_) => match first {
                b'n' => {}
                b'"' => *slot = Value::String(unquote(raw)),
                _ => self.type_error(what(raw), ty, None),
            },
            Ty::Bool => match first {
                b'n' => {}
                b't' | b'f' => *slot = Value::Bool(first == b't'),
                _ => self.type_error(what(raw), ty, None),
            },
            Ty::Int { bits, .. } => match first {
                b'n' => {}
                b'-' | b'0'..=b'9' => {
                    let text = String::from_utf8_lossy(raw);
                    let fits = |n: i64| *bits >= 64 || (n >= -(1i64 << (bits - 1)) && n < (1i64 << (bits - 1)));
                    match text.parse::<i64>() {
                        Ok(n) if fits(n) => *slot = Value::from(n),
                        _ => self.type_error(&format!("number {text}"), ty, None),
                    }
                }
                _ => self.type_error(what(raw), ty, None),
            },
            Ty::Bytes => self.bytes(raw, ty, slot),
            Ty::Slice { elem, .. } => match first {
                b'n' => *slot = Value::Null,
                b'[' => {
                    // Go reuses the elements already there (a repeated key): a `null` element
                    // leaves the old value, a struct element merges into it.
                    let mut old = match std::mem::take(slot) {
                        Value::Array(items) => items,
                        _ => Vec::new(),
                    };
                    let mut items = Vec::new();
                    for (i, element) in array_elements(raw).into_iter().enumerate() {
                        let mut item = old.get_mut(i).map(std::mem::take).unwrap_or_else(|| zero(elem));
                        self.value(element, elem, &mut item);
                        if item.is_null() {
                            item = zero(elem);
                        }
                        items.push(item);
                    }
                    *slot = Value::Array(items);
                }
                _ => self.type_error(what(raw), ty, None),
            },
            Ty::Map { elem, .. } => match first {
                b'n' => *slot = Value::Null,
                b'{' => {
                    if !slot.is_object() {
                        *slot = Value::Object(Map::new());
                    }
                    for (key, value) in object_members(raw) {
                        // Each value decodes into a fresh zero element, then replaces the key's.
                        let mut item = zero(elem);
                        self.value(value, elem, &mut item);
                        if let Some(map) = slot.as_object_mut() {
                            map.insert(unquote(key), item);
                        }
                    }
                }
                _ => self.type_error(what(raw), ty, None),
            },
            Ty::Struct(s) => match first {
                b'n' => {}
                b'{' => self.object(raw, s, slot),
                _ => self.type_error(what(raw), ty, None),
            },
        }
    }

    fn object(&mut self, raw: &[u8], s: &Struct, slot: &mut Value) {
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        for (key, value) in object_members(raw) {
            let key = unquote(key);
            let Some((name, ty)) = s.field(&key) else { continue };
            let saved = self.context.replace(s.name);
            self.path.push(name);
            let mut field = slot.as_object_mut().and_then(|m| m.remove(*name)).unwrap_or(Value::Null);
            self.value(value, ty, &mut field);
            if !field.is_null() {
                if let Some(map) = slot.as_object_mut() {
                    map.insert(name.to_string(), field);
                }
            }
            self.path.pop();
            self.context = saved;
        }
    }

    /// A `[]byte`: kept as an array of byte values.
    fn bytes(&mut self, raw: &[u8], ty: &Ty, slot: &mut Value) {
        match raw.first().copied().unwrap_or(b'n') {
            b'n' => *slot = Value::Null,
            b'"' => {
                let text = unquote(raw);
                match decode_base64(text.as_bytes()) {
                    Ok(bytes) => {
                        *slot = Value::Array(bytes.into_iter().map(Value::from).collect());
                        if self.in_patch() {
                            self.patch_form = Some(FieldForm::Base64String);
                        }
                    }
                    Err(offset) => {
                        // A base64.CorruptInputError: saved as it is, without a field path.
                        let patch = self.in_patch().then_some(FieldError::Base64 { offset });
                        self.errors
                            .push(TypeError { message: format!("illegal base64 data at input byte {offset}"), patch });
                    }
                }
            }
            b'[' => {
                let old: Vec<Value> = match std::mem::take(slot) {
                    Value::Array(items) => items,
                    _ => Vec::new(),
                };
                let byte = Ty::Int { name: "uint8", bits: 8 };
                let mut items = Vec::new();
                for (index, element) in array_elements(raw).into_iter().enumerate() {
                    let previous = old.get(index).cloned().unwrap_or_else(|| Value::from(0));
                    let item = match what(element) {
                        "null" => previous,
                        "number" => {
                            let text = String::from_utf8_lossy(element);
                            match text.parse::<u64>() {
                                Ok(n) if n <= 255 => Value::from(n),
                                _ => {
                                    let value = format!("number {text}");
                                    self.type_error(
                                        &value,
                                        &byte,
                                        Some(FieldError::Element { index, value: value.clone() }),
                                    );
                                    previous
                                }
                            }
                        }
                        other => {
                            self.type_error(
                                other,
                                &byte,
                                Some(FieldError::Element { index, value: other.to_string() }),
                            );
                            previous
                        }
                    };
                    items.push(item);
                }
                *slot = Value::Array(items);
                if self.in_patch() {
                    self.patch_form = Some(FieldForm::ByteArray);
                }
            }
            other => {
                let kind = match other {
                    b'{' => "object",
                    b't' | b'f' => "bool",
                    _ => "number",
                };
                self.type_error(kind, ty, Some(FieldError::WrongType { kind }));
            }
        }
    }
}
