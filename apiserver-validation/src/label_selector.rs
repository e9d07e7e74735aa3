//! A label selector as k8s.io/apimachinery `pkg/apis/meta/v1/validation` validates it.

use serde_json::Value;

use crate::field::{BadValue, FieldError};
use crate::lookup::Lookup;
use crate::objectmeta::validate_labels;

/// A `map[string]string` member's entries in the object's order (a non-string value as "").
pub(crate) fn string_pairs(v: Option<&Value>) -> Vec<(&str, &str)> {
    v.and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.as_str(), v.as_str().unwrap_or(""))).collect())
        .unwrap_or_default()
}

/// `metav1validation.ValidateLabelSelector` with the options of a new object: match labels, and each
/// expression's operator, key and values (`ValidateLabelSelectorRequirement`).
pub(crate) fn validate_selector(selector: &Value, path: &str) -> Vec<FieldError> {
    validate_selector_with(selector, path, false)
}

/// `metav1validation.ValidateLabelSelector`; `allow_invalid_label_value` is
/// `LabelSelectorValidationOptions.AllowInvalidLabelValueInSelector` (the expressions' values are
/// then not checked).
pub(crate) fn validate_selector_with(selector: &Value, path: &str, allow_invalid_label_value: bool) -> Vec<FieldError> {
    let mut errs = validate_labels(&string_pairs(selector.member("matchLabels")), &format!("{path}.matchLabels"));
    let exprs = selector.member("matchExpressions").and_then(Value::as_array).cloned().unwrap_or_default();
    for (i, e) in exprs.iter().enumerate() {
        let p = format!("{path}.matchExpressions[{i}]");
        let op = e.member("operator").and_then(Value::as_str).unwrap_or("");
        let n = e.member("values").and_then(Value::as_array).map_or(0, Vec::len);
        match op {
            "In" | "NotIn" if n == 0 => errs.push(FieldError::required(
                &format!("{p}.values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if n > 0 => errs.push(FieldError::forbidden(
                &format!("{p}.values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            _ => errs.push(FieldError::invalid(
                &format!("{p}.operator"),
                BadValue::Str(op.into()),
                "not a valid selector operator",
            )),
        }
        let key = e.member("key").and_then(Value::as_str).unwrap_or("");
        for m in crate::content::is_qualified_name(key) {
            errs.push(FieldError::invalid(&format!("{p}.key"), BadValue::Str(key.into()), m));
        }
        if allow_invalid_label_value {
            continue;
        }
        for (j, value) in e.member("values").and_then(Value::as_array).into_iter().flatten().enumerate() {
            let value = value.as_str().unwrap_or("");
            for m in crate::content::is_valid_label_value(value) {
                errs.push(FieldError::invalid(&format!("{p}.values[{j}]"), BadValue::Str(value.into()), m));
            }
        }
    }
    errs
}
