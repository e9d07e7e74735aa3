//! ConfigMap and Secret data as kubernetes/kubernetes `pkg/apis/core/validation/validation.go`
//! validates it (release-1.36): `ValidateConfigMap` / `ValidateConfigMapUpdate` and
//! `ValidateSecret` / `ValidateSecretUpdate` (keys by `IsConfigMapKey`, at most `MaxSecretSize`
//! bytes of values, the `immutable` flag, a Secret's type unchanged). A Secret's `stringData` is
//! merged into `data` by the v1 conversion before validation. The per-type required keys of
//! Secrets (TLS, docker config, service account tokens, basic/ssh auth) are not modelled.

use base64::Engine as _;
use serde_json::{Map, Value};

use crate::content;
use crate::field::{BadValue, FieldError, WHOLE_OBJECT};
use crate::objectmeta::FIELD_IMMUTABLE;

/// `core.MaxSecretSize`: 1 MiB of values, for Secrets and ConfigMaps alike.
pub const MAX_SECRET_SIZE: usize = 1024 * 1024;
const CONFIG_MAP_KEY_FMT: &str = "[-._a-zA-Z0-9]+";
const CONFIG_MAP_KEY_ERR: &str = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

/// `IsConfigMapKey`.
pub fn is_config_map_key(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > content::DNS1123_SUBDOMAIN_MAX_LENGTH {
        errs.push(content::max_len_error(content::DNS1123_SUBDOMAIN_MAX_LENGTH));
    }
    if value.is_empty() || !value.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_')) {
        errs.push(content::regex_error(CONFIG_MAP_KEY_ERR, CONFIG_MAP_KEY_FMT, &["key.name", "KEY_NAME", "key-name"]));
    }
    // hasChDirPrefix.
    if value == "." {
        errs.push("must not be '.'".into());
    } else if value == ".." {
        errs.push("must not be '..'".into());
    } else if value.starts_with("..") {
        errs.push("must not start with '..'".into());
    }
    errs
}

fn entries(object: &Value, key: &str) -> Vec<(String, Value)> {
    object
        .get(key)
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

/// The length of a `[]byte` field's value: its base64 decoded (undecodable: the text's length).
fn bytes_len(v: &Value) -> usize {
    let text = v.as_str().unwrap_or("");
    base64::engine::general_purpose::STANDARD.decode(text).map_or(text.len(), |b| b.len())
}

fn key_errors(key: &str, path: &str) -> Vec<FieldError> {
    is_config_map_key(key).into_iter().map(|m| FieldError::invalid(path, BadValue::Str(key.into()), m)).collect()
}

/// `ValidateConfigMap` without the metadata.
pub fn validate_config_map(cm: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let data = entries(cm, "data");
    let binary = entries(cm, "binaryData");
    let mut total = 0;
    for (k, v) in &data {
        let p = format!("data[{k}]");
        errs.extend(key_errors(k, &p));
        if binary.iter().any(|(b, _)| b == k) {
            errs.push(FieldError::invalid(&p, BadValue::Str(k.clone()), "duplicate of key present in binaryData"));
        }
        total += v.as_str().map_or(0, str::len);
    }
    for (k, v) in &binary {
        errs.extend(key_errors(k, &format!("binaryData[{k}]")));
        total += bytes_len(v);
    }
    if total > MAX_SECRET_SIZE {
        errs.push(FieldError::too_long(WHOLE_OBJECT, MAX_SECRET_SIZE));
    }
    errs
}

/// The Secret's data as validation sees it: `data`, with `stringData` merged over it.
fn secret_data(secret: &Value) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> =
        entries(secret, "data").iter().map(|(k, v)| (k.clone(), bytes_len(v))).collect();
    for (k, v) in entries(secret, "stringData") {
        let len = v.as_str().map_or(0, str::len);
        match out.iter_mut().find(|(key, _)| *key == k) {
            Some(e) => e.1 = len,
            None => out.push((k, len)),
        }
    }
    out
}

/// `ValidateSecret` without the metadata (keys and size).
pub fn validate_secret(secret: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let data = secret_data(secret);
    for (k, _) in &data {
        errs.extend(key_errors(k, &format!("data[{k}]")));
    }
    if data.iter().map(|(_, n)| n).sum::<usize>() > MAX_SECRET_SIZE {
        errs.push(FieldError::too_long("data", MAX_SECRET_SIZE));
    }
    errs
}

fn immutable_flag(new: &Value, old: &Value, fields: &[&str]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if old.get("immutable").and_then(Value::as_bool) != Some(true) {
        return errs;
    }
    const MSG: &str = "field is immutable when `immutable` is set";
    if new.get("immutable").and_then(Value::as_bool) != Some(true) {
        errs.push(FieldError::forbidden("immutable", MSG));
    }
    let empty = Value::Object(Map::new());
    for f in fields {
        let a = new.get(*f).filter(|v| !v.is_null()).unwrap_or(&empty);
        let b = old.get(*f).filter(|v| !v.is_null()).unwrap_or(&empty);
        if a != b {
            errs.push(FieldError::forbidden(f, MSG));
        }
    }
    errs
}

/// `ValidateConfigMapUpdate` without the metadata and before [`validate_config_map`].
pub fn validate_config_map_update(new: &Value, old: &Value) -> Vec<FieldError> {
    immutable_flag(new, old, &["data", "binaryData"])
}

/// `ValidateSecretUpdate` without the metadata and before [`validate_secret`].
pub fn validate_secret_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let t = |o: &Value| o.get("type").and_then(Value::as_str).unwrap_or("").to_string();
    if t(new) != t(old) {
        errs.push(FieldError::invalid("type", BadValue::Str(t(new)), FIELD_IMMUTABLE));
    }
    errs.extend(immutable_flag(new, old, &["data"]));
    errs
}
