//! kube-openapi's `SchemaValidator` (`k8s.io/kube-openapi/pkg/validation/validate/schema.go`) on a
//! custom resource, its errors turned into field errors as
//! `apiextensions-apiserver/pkg/apiserver/validation/validation.go`
//! `kubeOpenAPIResultToFieldErrors` turns them.
//!
//! Each node runs the validators in `SchemaValidator`'s order: type (`type.go`
//! `typeValidator.Validate`), string (`validator.go` `stringValidator`: maxLength, minLength,
//! pattern), format (`formatValidator`), number (`numberValidator`: multipleOf, maximum, minimum),
//! slice (`slice_validator.go`: items, minItems, maxItems), enum (`basicCommonValidator`), object
//! (`object_validator.go`: min/maxProperties, additionalProperties, properties, required). The
//! messages are `k8s.io/kube-openapi/pkg/validation/errors/schema.go`'s, with `in body`. A value
//! of the wrong type still meets the validators that apply to what it is (its enum, say), as in
//! Go, where each validator `Applies` by the value's kind. Go walks an object's properties in map order (random);
//! they are walked here in key order.

use serde_json::Value;

use super::format;
use super::value::{bad_value, go_float};
use crate::field::{go_quote, BadValue, FieldError};

/// Every error kube-openapi's validator finds in `object` against the structural schema `schema`
/// (the version's `openAPIV3Schema`), as field errors (`ValidateCustomResource` with a nil path).
pub fn validate_custom_resource(schema: &Value, object: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    node(schema, object, "", &mut errs);
    errs
}

/// The field path of an error named `name` (`strings.TrimPrefix(err.Name, ".")`).
fn field(name: &str) -> &str {
    name.strip_prefix('.').unwrap_or(name)
}

fn flag(schema: &Value, name: &str) -> bool {
    schema.get(name).and_then(Value::as_bool).unwrap_or(false)
}

fn count(schema: &Value, key: &str) -> Option<i64> {
    schema.get(key).and_then(Value::as_i64)
}

/// The JSON type kube-openapi infers for `v` (`schemaInfoForType`).
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The types the schema allows (`x-kubernetes-int-or-string` is `integer,string`); empty for any.
fn types(schema: &Value) -> Vec<&str> {
    if flag(schema, "x-kubernetes-int-or-string") {
        return vec!["integer", "string"];
    }
    schema.get("type").and_then(Value::as_str).into_iter().collect()
}

/// `errors.InvalidType(name, "body", typeName, value)` with a string value, as a field error.
fn invalid_type(name: &str, type_name: &str, value: &str) -> FieldError {
    FieldError::type_invalid(
        field(name),
        BadValue::Str(value.into()),
        format!("{name} in body must be of type {type_name}: {}", go_quote(value)),
    )
}

/// `typeValidator.Validate`: whether `v` is of the schema's type (a float that is an integer passes
/// for `integer`, an integer for `number`).
fn type_error(schema: &Value, v: &Value, name: &str) -> Option<FieldError> {
    let allowed = types(schema);
    if allowed.is_empty() {
        return None;
    }
    let found = json_type(v);
    if v.is_null() {
        return (!flag(schema, "nullable")).then(|| invalid_type(name, &allowed.join(","), "null"));
    }
    let float_int = found == "number" && v.as_f64().is_some_and(|f| f.fract() == 0.0) && allowed.contains(&"integer");
    let int_float = found == "integer" && allowed.contains(&"number");
    if allowed.contains(&found) || float_int || int_float {
        return None;
    }
    Some(invalid_type(name, &allowed.join(","), found))
}

fn node(schema: &Value, v: &Value, name: &str, errs: &mut Vec<FieldError>) {
    if v.is_null() && flag(schema, "nullable") {
        return;
    }
    if let Some(e) = type_error(schema, v, name) {
        errs.push(e);
        if v.is_null() {
            return;
        }
    }
    match v {
        Value::String(s) => string(schema, s, name, errs),
        Value::Number(_) => number(schema, v, name, errs),
        Value::Array(items) => slice(schema, items, name, errs),
        _ => {}
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        if !values.contains(v) {
            let shown: Vec<String> =
                values.iter().map(|a| a.as_str().map_or_else(|| a.to_string(), str::to_string)).collect();
            let shown: Vec<&str> = shown.iter().map(String::as_str).collect();
            errs.push(FieldError::not_supported(field(name), bad_value(v), &shown));
        }
    }
    if let Value::Object(map) = v {
        object(schema, map, name, errs);
    }
}

/// `stringValidator` (`MaxLength`, `MinLength`, `Pattern`: lengths in runes), then `formatValidator`.
fn string(schema: &Value, s: &str, name: &str, errs: &mut Vec<FieldError>) {
    let runes = s.chars().count() as i64;
    let value = || BadValue::Str(s.into());
    if let Some(max) = count(schema, "maxLength").filter(|m| runes > *m) {
        // kubeOpenAPIResultToFieldErrors: TooLongFailCode is field.TooLongMaxLength.
        errs.push(FieldError::too_long(field(name), max as usize));
    }
    if let Some(min) = count(schema, "minLength").filter(|m| runes < *m) {
        errs.push(FieldError::invalid(
            field(name),
            value(),
            format!("{name} in body should be at least {min} chars long"),
        ));
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        // A pattern Go's regexp does not compile makes the CRD itself invalid: not judged here.
        if let Ok(re) = regex::Regex::new(pattern) {
            if !re.is_match(s) {
                errs.push(FieldError::invalid(
                    field(name),
                    value(),
                    format!("{name} in body should match '{pattern}'"),
                ));
            }
        }
    }
    if let Some(f) = schema.get("format").and_then(Value::as_str) {
        if format::valid(f, s) == Some(false) {
            errs.push(FieldError::type_invalid(
                field(name),
                value(),
                format!("{name} in body must be of type {f}: {}", go_quote(s)),
            ));
        }
    }
}

/// `numberValidator`: `MultipleOf`, `Maximum` (and `exclusiveMaximum`), `Minimum` (and
/// `exclusiveMinimum`), each with the bound printed with `%v`.
fn number(schema: &Value, v: &Value, name: &str, errs: &mut Vec<FieldError>) {
    let Some(x) = v.as_f64() else { return };
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    if let Some(m) = bound("multipleOf").filter(|m| *m > 0.0) {
        if (x / m).fract() != 0.0 {
            errs.push(FieldError::invalid(
                field(name),
                bad_value(v),
                format!("{name} in body should be a multiple of {}", go_float(m)),
            ));
        }
    }
    if let Some(max) = bound("maximum") {
        let exclusive = flag(schema, "exclusiveMaximum");
        if (exclusive && x >= max) || (!exclusive && x > max) {
            let how = if exclusive { "less than" } else { "less than or equal to" };
            errs.push(FieldError::invalid(
                field(name),
                bad_value(v),
                format!("{name} in body should be {how} {}", go_float(max)),
            ));
        }
    }
    if let Some(min) = bound("minimum") {
        let exclusive = flag(schema, "exclusiveMinimum");
        if (exclusive && x <= min) || (!exclusive && x < min) {
            let how = if exclusive { "greater than" } else { "greater than or equal to" };
            errs.push(FieldError::invalid(
                field(name),
                bad_value(v),
                format!("{name} in body should be {how} {}", go_float(min)),
            ));
        }
    }
}

/// `schemaSliceValidator.Validate`: each item (`<path>[i]`), then `MinItems`, `MaxItems`.
fn slice(schema: &Value, items: &[Value], name: &str, errs: &mut Vec<FieldError>) {
    if let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) {
        for (i, item) in items.iter().enumerate() {
            node(item_schema, item, &format!("{name}[{i}]"), errs);
        }
    }
    let size = items.len() as i64;
    if let Some(min) = count(schema, "minItems").filter(|m| size < *m) {
        errs.push(FieldError::invalid(
            field(name),
            BadValue::Int(size),
            format!("{name} in body should have at least {min} items"),
        ));
    }
    if let Some(max) = count(schema, "maxItems").filter(|m| size > *m) {
        errs.push(FieldError::too_many(field(name), size, max));
    }
}

/// `objectValidator.Validate`: too few or too many properties (which do not end the object's
/// validation), then the members `additionalProperties` covers (`<path>.<key>`), the properties
/// (`<key>` at the root, `<path>.<key>` below) and the required ones.
fn object(schema: &Value, map: &serde_json::Map<String, Value>, name: &str, errs: &mut Vec<FieldError>) {
    let keys = map.len() as i64;
    if let Some(min) = count(schema, "minProperties").filter(|m| keys < *m) {
        errs.push(FieldError::invalid(
            field(name),
            BadValue::Int(keys),
            format!("{name} in body should have at least {min} properties"),
        ));
    }
    if let Some(max) = count(schema, "maxProperties").filter(|m| keys > *m) {
        errs.push(FieldError::too_many(field(name), keys, max));
    }
    let properties = schema.get("properties").and_then(Value::as_object);
    let is_property = |k: &str| properties.is_some_and(|p| p.contains_key(k));
    if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
        for (k, v) in map.iter().filter(|(k, _)| !is_property(k)) {
            node(additional, v, &format!("{name}.{k}"), errs);
        }
    }
    if let Some(props) = properties {
        for (k, sub) in props {
            if let Some(v) = map.get(k) {
                let child = if name.is_empty() { k.clone() } else { format!("{name}.{k}") };
                node(sub, v, &child, errs);
            }
        }
    }
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for k in required.iter().filter_map(Value::as_str) {
            if !map.contains_key(k) {
                errs.push(FieldError::required(field(&format!("{name}.{k}")), ""));
            }
        }
    }
}
