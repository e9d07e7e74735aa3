//! `x-kubernetes-list-type` invariants (`apiextensions-apiserver/pkg/apiserver/schema/listtype/
//! validation.go`, `ValidateListSetsAndMaps`): the items of a `set` are unique, the items of a `map`
//! are objects unique by their `x-kubernetes-list-map-keys`. Each first repeat is a
//! `field.Duplicate` at its index (a set's item as it is; a map item's keys as a map).

use serde_json::{Map, Value};

use super::value::{bad_value, go_syntax};
use crate::field::{BadValue, FieldError};

/// Every list invariant `object` breaks under `schema`.
pub fn validate_lists(schema: &Value, object: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Value::Object(map) = object {
        members(schema, map, "", &mut errs);
    }
    errs
}

/// `ValidateListSetsAndMaps`: additionalProperties members (`<path>[key]`), then properties.
fn members(schema: &Value, map: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
        for (k, v) in map {
            node(additional, v, &format!("{path}[{k}]"), errs);
        }
    }
    if let Some(props) = properties {
        for (k, v) in map {
            if let Some(sub) = props.get(k) {
                let child = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                node(sub, v, &child, errs);
            }
        }
    }
}

fn node(schema: &Value, v: &Value, path: &str, errs: &mut Vec<FieldError>) {
    match v {
        Value::Object(map) => members(schema, map, path, errs),
        Value::Array(items) => array(schema, items, path, errs),
        _ => {}
    }
}

/// A compound value as `%#v` prints it, a scalar as `ErrorBody` prints it.
fn shown(v: &Value) -> BadValue {
    if v.is_object() || v.is_array() {
        BadValue::Json(go_syntax(v))
    } else {
        bad_value(v)
    }
}

/// `validateListSet`: the index of each value's second appearance.
fn first_repeats(values: &[Value]) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, x) in values.iter().enumerate() {
        let earlier = values[..i].iter().filter(|y| *y == x).count();
        if earlier == 1 {
            out.push(i);
        }
    }
    out
}

fn array(schema: &Value, items: &[Value], path: &str, errs: &mut Vec<FieldError>) {
    let at = |i: usize| format!("{path}[{i}]");
    match schema.get("x-kubernetes-list-type").and_then(Value::as_str) {
        Some("set") => {
            for i in first_repeats(items) {
                errs.push(FieldError::duplicate(&at(i), shown(&items[i])));
            }
        }
        Some("map") => list_map(schema, items, path, errs),
        _ => {}
    }
    if let Some(item_schema) = schema.get("items") {
        for (i, item) in items.iter().enumerate() {
            node(item_schema, item, &at(i), errs);
        }
    }
}

/// `validateListMap`: only objects (or null); unique by the map keys, an absent key being a value
/// of its own.
fn list_map(schema: &Value, items: &[Value], path: &str, errs: &mut Vec<FieldError>) {
    if let Some((i, x)) = items.iter().enumerate().find(|(_, x)| !x.is_null() && !x.is_object()) {
        errs.push(FieldError::invalid(
            &format!("{path}[{i}]"),
            shown(x),
            "must be an object for an array of list-type map",
        ));
        return;
    }
    let key_fields: Vec<&str> = schema
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .map(|k| k.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let keys: Vec<Value> = items
        .iter()
        .map(|x| {
            let present: Map<String, Value> =
                key_fields.iter().filter_map(|k| x.get(*k).map(|v| (k.to_string(), v.clone()))).collect();
            Value::Object(present)
        })
        .collect();
    for i in first_repeats(&keys) {
        errs.push(FieldError::duplicate(&format!("{path}[{i}]"), BadValue::Json(go_syntax(&keys[i]))));
    }
}
