//! An object's `metadata.managedFields`, as the apiserver reads them after mutating admission.
//!
//! Two places judge them (release-1.36):
//! - the admission wrapper `NewManagedFieldsValidatingAdmissionController`
//!   (`apiserver/pkg/endpoints/handlers/fieldmanager/admission.go`, wrapped around the whole
//!   admission chain in `handlers/create.go`, `update.go`, `patch.go`): after the mutating plugins
//!   (webhooks included) ran, `managedfields.ValidateManagedFields` decodes the entries
//!   (`internal.DecodeManagedFields`, with structured-merge-diff v6.3's `Set.FromJSON` for each
//!   `fieldsV1`); when that fails, the managedFields from before admission are put back and the
//!   client gets a warning ([`reset_warning`]), the request going on. [`decode_error`] models it.
//! - `ValidateObjectMeta` (`apimachinery/pkg/apis/meta/v1/validation` `ValidateManagedFields`),
//!   run by the registry on what the wrapper kept: operation, fieldsType, the manager's length and
//!   printable characters, the subresource's length. [`validate`] models it; only the manager and
//!   subresource checks can fail there after the wrapper, which refuses the other two first.
//!
//! The decode errors are Go's texts, except that an entry is printed as JSON where Go prints the
//! struct with `%v`, and the JSON tokenizer's errors (jsoniter's) are named without their byte
//! position and context.

use serde_json::Value;

use crate::field::{go_is_print, go_json_string, go_quote, BadValue, FieldError};
use crate::go_strconv::atoi;
use crate::lookup::Lookup;
use crate::zero_values::s;

/// `FieldManagerMaxLength`.
pub const FIELD_MANAGER_MAX_LENGTH: usize = 128;
/// `MaxSubresourceNameLength`.
pub const MAX_SUBRESOURCE_NAME_LENGTH: usize = 256;

/// `InvalidManagedFieldsAfterMutatingAdmissionWarningFormat` with the decode error: the warning a
/// client gets when the managedFields left by mutating admission do not decode.
pub fn reset_warning(error: &str) -> String {
    format!(".metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: {error}")
}

/// The object's managedFields entries (none when absent or null).
pub fn entries(object: &Value) -> &[Value] {
    object.at("/metadata/managedFields").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// `DecodeManagedFields`' error for `entries`, `None` when they decode (an empty list does).
pub fn decode_error(entries: &[Value]) -> Option<String> {
    entries.iter().enumerate().find_map(|(i, entry)| entry_error(i, entry))
}

/// The checks `DecodeManagedFields` makes of entry `i`, in its order.
fn entry_error(i: usize, entry: &Value) -> Option<String> {
    if !matches!(s(entry, "operation"), "Apply" | "Update") {
        return Some("operation must be `Apply` or `Update`".into());
    }
    if s(entry, "apiVersion").is_empty() {
        return Some("apiVersion must not be empty".into());
    }
    match s(entry, "fieldsType") {
        "FieldsV1" => {}
        "" => return Some(format!("missing fieldsType in managed fields entry {i}")),
        other => return Some(format!("invalid fieldsType {} in managed fields entry {i}", go_quote(other))),
    }
    let fields = entry.member("fieldsV1").unwrap_or(&Value::Null);
    set_error(fields).map(|e| format!("error decoding versioned set from {entry}: error decoding set: {e}"))
}

/// The first character of a JSON value's text, as jsoniter names what it found.
fn first_char(v: &Value) -> char {
    match v {
        Value::Null => 'n',
        Value::Bool(true) => 't',
        Value::Bool(false) => 'f',
        Value::Number(n) => n.to_string().chars().next().unwrap_or('0'),
        Value::String(_) => '"',
        Value::Array(_) => '[',
        Value::Object(_) => '{',
    }
}

/// `Set.FromJSON` of a fieldsV1 value (`readIterV1`): an object or null whose keys are `.` (any
/// value) or path elements (`DeserializePathElement`) whose values are sets again; a key of an
/// unknown type letter is dropped with its value.
fn set_error(v: &Value) -> Option<String> {
    let members = match v {
        Value::Null => return None,
        Value::Object(m) => m,
        other => return Some(format!("ReadMapCB: expect {{ or n, but found {}", first_char(other))),
    };
    members.iter().find_map(|(key, value)| {
        if key == "." {
            return None;
        }
        match path_element(key) {
            Ok(true) => set_error(value),
            Ok(false) => None,
            Err(e) => Some(format!("parsing key as path element: {e}")),
        }
    })
}

/// `DeserializePathElement`: `Ok(false)` for an unknown type letter (dropped), `Ok(true)` for a
/// path element read.
fn path_element(key: &str) -> Result<bool, String> {
    let b = key.as_bytes();
    if b.len() < 2 {
        return Err("key must be 2 characters long:".into());
    }
    if b[1] != b':' {
        return Err(format!("missing colon: {key}"));
    }
    let rest = &key[2..];
    match b[0] {
        b'f' => Ok(true),
        b'v' => json_value(rest).map(|_| true),
        b'k' => key_fields(rest).map(|_| true),
        b'i' => atoi(rest).map(|_| true).map_err(|e| e.to_string()),
        _ => Ok(false),
    }
}

/// jsoniter's `Read` of the first JSON value of `s` (what follows it is not read).
fn json_value(s: &str) -> Result<Value, String> {
    let mut values = serde_json::Deserializer::from_str(s).into_iter::<Value>();
    match values.next() {
        Some(Ok(v)) => Ok(v),
        _ => Err(format!("Read: unexpected value type: {}", value_type(s))),
    }
}

/// jsoniter's `ValueType` of what `s` starts with (0, invalid, for nothing or an unknown byte).
fn value_type(s: &str) -> u8 {
    match s.trim_start().bytes().next() {
        Some(b'"') => 1,
        Some(b'-' | b'0'..=b'9') => 2,
        Some(b'n') => 3,
        Some(b't' | b'f') => 4,
        Some(b'[') => 5,
        Some(b'{') => 6,
        _ => 0,
    }
}

/// `ReadObjectCB` of a `k:` element: a JSON object (or null) of values.
fn key_fields(text: &str) -> Result<(), String> {
    match text.trim_start().bytes().next() {
        Some(b'{' | b'n') => match json_value(text)? {
            Value::Object(_) | Value::Null => Ok(()),
            _ => Err("ReadObjectCB: expect { or n".into()),
        },
        Some(c) => Err(format!("ReadObjectCB: expect {{ or n, but found {}", c as char)),
        None => Err("ReadObjectCB: expect { or n, but found \u{0}".into()),
    }
}

/// `ValidateManagedFields` (meta/v1 validation) over `entries`, at `metadata.managedFields`.
pub fn validate(entries: &[Value]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        // A field of this entry, its path made for an error only.
        let at = |field: &str| format!("metadata.managedFields[{i}].{field}");
        let operation = s(entry, "operation");
        if !matches!(operation, "Apply" | "Update") {
            errs.push(FieldError::invalid(
                &at("operation"),
                BadValue::Json(go_json_string(operation)),
                "must be `Apply` or `Update`",
            ));
        }
        let fields_type = s(entry, "fieldsType");
        if !fields_type.is_empty() && fields_type != "FieldsV1" {
            errs.push(FieldError::invalid(&at("fieldsType"), BadValue::Str(fields_type.into()), "must be `FieldsV1`"));
        }
        let manager = s(entry, "manager");
        if manager.len() > FIELD_MANAGER_MAX_LENGTH {
            errs.push(FieldError::too_long(&at("manager"), FIELD_MANAGER_MAX_LENGTH));
        }
        for (pos, c) in manager.char_indices().filter(|(_, c)| !go_is_print(*c)) {
            errs.push(FieldError::invalid(
                &at("manager"),
                BadValue::Str(manager.into()),
                format!("invalid character U+{:04X} (at position {pos})", c as u32),
            ));
        }
        if s(entry, "subresource").len() > MAX_SUBRESOURCE_NAME_LENGTH {
            errs.push(FieldError::too_long(&at("subresource"), MAX_SUBRESOURCE_NAME_LENGTH));
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(fields: Value) -> Value {
        json!({"manager": "m", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": fields})
    }

    fn set(fields: Value) -> Option<String> {
        set_error(&fields)
    }

    #[test]
    fn entries_decode_as_decode_managed_fields_checks_them_in_its_order() {
        assert_eq!(decode_error(&[]), None);
        assert_eq!(decode_error(&[entry(json!({"f:metadata": {"f:labels": {"f:a": {}}}}))]), None);
        assert_eq!(decode_error(&[json!({})]).unwrap(), "operation must be `Apply` or `Update`");
        let no_version = json!({"operation": "Apply", "fieldsType": "x"});
        assert_eq!(decode_error(&[no_version]).unwrap(), "apiVersion must not be empty");
        let mut untyped = entry(json!({}));
        untyped.as_object_mut().unwrap().remove("fieldsType");
        assert_eq!(
            decode_error(&[entry(json!(null)), untyped]).unwrap(),
            "missing fieldsType in managed fields entry 1"
        );
        let mut typed = entry(json!({}));
        typed["fieldsType"] = json!("FieldsV2");
        assert_eq!(decode_error(&[typed]).unwrap(), "invalid fieldsType \"FieldsV2\" in managed fields entry 0");
        // The manager is not checked there: an empty one decodes.
        let mut nameless = entry(json!({}));
        nameless["manager"] = json!("");
        assert_eq!(decode_error(&[nameless]), None);
        let bad = entry(json!({"foo": {}}));
        let e = decode_error(std::slice::from_ref(&bad)).unwrap();
        assert_eq!(
            e,
            format!("error decoding versioned set from {bad}: error decoding set: parsing key as path element: missing colon: foo")
        );
        assert!(reset_warning(&e).starts_with(".metadata.managedFields was in an invalid state after admission; "));
    }

    #[test]
    fn a_field_set_is_read_as_structured_merge_diff_v6_3_reads_it() {
        // Accepted.
        for ok in [
            json!({}),
            json!(null),
            json!({".": 5}),
            json!({"f:a": null}),
            json!({"f:": {}}),
            json!({"x:foo": 7}),
            json!({"i:0": {}, "i:-1": {}, "i:+2": {}}),
            json!({"k:{\"name\":\"c\"}": {}}),
            json!({"k:null": {}}),
            json!({"v:\"x\"": {}, "v:1": {}}),
            json!({"k:{\"a\":1}junk": {}}),
        ] {
            assert_eq!(set(ok.clone()), None, "{ok}");
        }
        // Refused, with the reason.
        let refused = [
            (json!([]), "ReadMapCB: expect { or n, but found ["),
            (json!("x"), "ReadMapCB: expect { or n, but found \""),
            (json!({"f:a": 1}), "ReadMapCB: expect { or n, but found 1"),
            (json!({"f:a": {"f:b": []}}), "ReadMapCB: expect { or n, but found ["),
            (json!({"a": {}}), "parsing key as path element: key must be 2 characters long:"),
            (json!({"foo": {}}), "parsing key as path element: missing colon: foo"),
            (json!({"i:a": {}}), "parsing key as path element: strconv.Atoi: parsing \"a\": invalid syntax"),
            (json!({"k:[1]": {}}), "parsing key as path element: ReadObjectCB: expect { or n, but found ["),
            (json!({"v:": {}}), "parsing key as path element: Read: unexpected value type: 0"),
            (json!({"v:abc": {}}), "parsing key as path element: Read: unexpected value type: 0"),
        ];
        for (fields, want) in refused {
            assert_eq!(set(fields.clone()).as_deref(), Some(want), "{fields}");
        }
    }

    #[test]
    fn the_registry_refuses_long_or_unprintable_managers_and_long_subresources() {
        assert!(validate(&[entry(json!({}))]).is_empty());
        let mut long = entry(json!({}));
        long["manager"] = json!("m".repeat(129));
        long["subresource"] = json!("s".repeat(257));
        let texts: Vec<String> = validate(&[entry(json!({})), long]).iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "metadata.managedFields[1].manager: Too long: may not be more than 128 bytes",
                "metadata.managedFields[1].subresource: Too long: may not be more than 256 bytes",
            ]
        );
        let mut tab = entry(json!({}));
        tab["manager"] = json!("a\tb\u{200b}");
        let texts: Vec<String> = validate(&[tab]).iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "metadata.managedFields[0].manager: Invalid value: \"a\\tb\\u200b\": invalid character U+0009 (at position 1)",
                "metadata.managedFields[0].manager: Invalid value: \"a\\tb\\u200b\": invalid character U+200B (at position 3)",
            ]
        );
        let mut op = entry(json!({}));
        op["operation"] = json!("Patch");
        op["fieldsType"] = json!("FieldsV2");
        let texts: Vec<String> = validate(&[op]).iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "metadata.managedFields[0].operation: Invalid value: \"Patch\": must be `Apply` or `Update`",
                "metadata.managedFields[0].fieldsType: Invalid value: \"FieldsV2\": must be `FieldsV1`",
            ]
        );
        // Letters of any script, marks and symbols are printable.
        let mut intl = entry(json!({}));
        intl["manager"] = json!("kübectl-ñ ✓");
        assert!(validate(&[intl]).is_empty());
    }
}
