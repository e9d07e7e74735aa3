//! `field.Error`'s `ErrorBody` prints the bad value by its Go type: a string with `%q`; an int64,
//! float64 or bool with `%v`; nil as the string `"null"`; anything else (a decoded JSON list or
//! map) with `%#v` (`k8s.io/apimachinery/pkg/util/validation/field/errors.go`).

use serde_json::Value;

use crate::field::{go_quote, BadValue};

/// The bad value of `v` as `ErrorBody` prints it.
pub fn bad_value(v: &Value) -> BadValue {
    match v {
        Value::Null => BadValue::Str("null".into()),
        Value::String(s) => BadValue::Str(s.clone()),
        Value::Number(n) => match n.as_i64() {
            Some(i) => BadValue::Int(i),
            None => BadValue::Json(go_float(n.as_f64().unwrap_or(f64::NAN))),
        },
        Value::Bool(b) => BadValue::Json(b.to_string()),
        other => BadValue::Json(go_syntax(other)),
    }
}

/// Go's `%v` of a float64: the shortest text that reads back, with an exponent (`e+21`, `e-05`)
/// below 1e-4 and from 1e21 on.
pub fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    let a = f.abs();
    if a == 0.0 || (1e-4..1e21).contains(&a) {
        return format!("{f}");
    }
    let text = format!("{f:e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let (sign, digits) = match exponent.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exponent),
    };
    format!("{mantissa}e{sign}{digits:0>2}")
}

/// Go's `%#v` of a value decoded from JSON into `interface{}`.
pub fn go_syntax(v: &Value) -> String {
    match v {
        Value::Null => "interface {}(nil)".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => go_float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => go_quote(s),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(go_syntax).collect();
            format!("[]interface {{}}{{{}}}", inner.join(", "))
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let inner: Vec<String> = keys.iter().map(|k| format!("{}:{}", go_quote(k), go_syntax(&map[*k]))).collect();
            format!("map[string]interface {{}}{{{}}}", inner.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn values_print_as_go_prints_them() {
        assert_eq!(go_float(9.5), "9.5");
        assert_eq!(go_float(3.0), "3");
        assert_eq!(go_float(1e21), "1e+21");
        assert_eq!(go_float(0.00001), "1e-05");
        assert_eq!(
            go_syntax(&json!(["a", 1, {"k": true, "a": null}])),
            "[]interface {}{\"a\", 1, map[string]interface {}{\"a\":interface {}(nil), \"k\":true}}"
        );
        assert_eq!(bad_value(&json!(null)), BadValue::Str("null".into()));
        assert_eq!(bad_value(&json!(2.5)), BadValue::Json("2.5".into()));
    }
}
