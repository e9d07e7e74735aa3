//! ConfigMap and Secret data as kubernetes/kubernetes `pkg/apis/core/validation/validation.go`
//! validates it (release-1.36): `ValidateConfigMap` / `ValidateConfigMapUpdate` and
//! `ValidateSecret` / `ValidateSecretUpdate` (keys by `IsConfigMapKey`, at most `MaxSecretSize`
//! bytes of values, the `immutable` flag, a Secret's type unchanged). A Secret's `stringData` is
//! merged into `data` by the v1 conversion before validation.
//!
//! Then `ValidateSecret`'s switch on the type, after the keys and the size: a
//! `kubernetes.io/service-account-token` needs a non-empty `kubernetes.io/service-account.name`
//! annotation; a `kubernetes.io/dockercfg` needs `.dockercfg` and a
//! `kubernetes.io/dockerconfigjson` `.dockerconfigjson`, whose bytes `json.Unmarshal` must take
//! into a `map[string]interface{}`; a `kubernetes.io/basic-auth` needs `username` or `password`
//! (both named when neither is there); a `kubernetes.io/ssh-auth` a non-empty `ssh-privatekey`;
//! a `kubernetes.io/tls` both `tls.crt` and `tls.key`, which may be empty. `Opaque`, the empty
//! type and any other type need nothing. The text read is a 1.37 development copy of
//! `validation.go`; the switch is the one of release-1.36 as far as could be told, not compared
//! line by line.
//!
//! A docker config's refusal embeds the text of Go's `encoding/json` error (`decode.go`,
//! `scanner.go`, without the `jsonv2` experiment), which is reproduced only where it is certain
//! ([`docker_config`]): an empty or blank value (`unexpected end of JSON input`) and JSON
//! serde_json reads that is not an object or `null` (`json: cannot unmarshal array into Go value
//! of type map[string]interface {}`). A value serde_json cannot read is not judged: a syntax error,
//! whose text is the wording of Go's scanner for the byte it stopped at, a number beyond `float64`
//! (Go's `UnmarshalTypeError` then quotes it), and texts serde_json refuses but Go takes (invalid
//! UTF-8 in a string, a lone surrogate escape, nesting deeper than 128); [`unjudged_docker_config`]
//! names such a value for `crate::unmodelled`.

use base64::Engine as _;
use serde_json::Value;

use crate::content;
use crate::field::{BadValue, FieldError, WHOLE_OBJECT};
use crate::lookup::Lookup;
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
        .member(key)
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

/// The bytes of a `[]byte` field's value: its base64 decoded, `None` when undecodable.
fn decoded(v: &Value) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(v.as_str().unwrap_or("")).ok()
}

/// The length of a `[]byte` field's value: its base64 decoded (undecodable: the text's length).
fn bytes_len(v: &Value) -> usize {
    decoded(v).map_or_else(|| v.as_str().map_or(0, str::len), |b| b.len())
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

/// A value of the Secret's data as validation sees it.
struct SecretValue {
    /// Its length in bytes.
    len: usize,
    /// Its bytes, `None` for `data` whose base64 is undecodable.
    bytes: Option<Vec<u8>>,
    /// The member it comes from: `data`, or `stringData`, which overrides it.
    from: &'static str,
}

/// The Secret's data as validation sees it: `data`, with `stringData` merged over it.
fn secret_data(secret: &Value) -> Vec<(String, SecretValue)> {
    let mut out: Vec<(String, SecretValue)> = entries(secret, "data")
        .iter()
        .map(|(k, v)| (k.clone(), SecretValue { len: bytes_len(v), bytes: decoded(v), from: "data" }))
        .collect();
    for (k, v) in entries(secret, "stringData") {
        let text = v.as_str().unwrap_or("");
        let value = SecretValue { len: text.len(), bytes: Some(text.as_bytes().to_vec()), from: "stringData" };
        match out.iter_mut().find(|(key, _)| *key == k) {
            Some(e) => e.1 = value,
            None => out.push((k, value)),
        }
    }
    out
}

/// `SecretTypeServiceAccountToken`.
pub const SERVICE_ACCOUNT_TOKEN: &str = "kubernetes.io/service-account-token";
/// `ServiceAccountNameKey`, the annotation a service account token Secret needs.
pub const SERVICE_ACCOUNT_NAME_KEY: &str = "kubernetes.io/service-account.name";
/// `SecretTypeDockercfg`.
pub const DOCKERCFG: &str = "kubernetes.io/dockercfg";
/// `DockerConfigKey`.
pub const DOCKER_CONFIG_KEY: &str = ".dockercfg";
/// `SecretTypeDockerConfigJSON`.
pub const DOCKER_CONFIG_JSON: &str = "kubernetes.io/dockerconfigjson";
/// `DockerConfigJSONKey`.
pub const DOCKER_CONFIG_JSON_KEY: &str = ".dockerconfigjson";
/// `SecretTypeBasicAuth`.
pub const BASIC_AUTH: &str = "kubernetes.io/basic-auth";
/// `BasicAuthUsernameKey` and `BasicAuthPasswordKey`.
pub const BASIC_AUTH_KEYS: [&str; 2] = ["username", "password"];
/// `SecretTypeSSHAuth`.
pub const SSH_AUTH: &str = "kubernetes.io/ssh-auth";
/// `SSHAuthPrivateKey`.
pub const SSH_AUTH_PRIVATE_KEY: &str = "ssh-privatekey";
/// `SecretTypeTLS`.
pub const TLS: &str = "kubernetes.io/tls";
/// `TLSCertKey` and `TLSPrivateKeyKey`.
pub const TLS_KEYS: [&str; 2] = ["tls.crt", "tls.key"];
/// The value `ValidateSecret` gives for a docker config it cannot parse.
const REDACTED: &str = "<secret contents redacted>";

/// What `json.Unmarshal(value, &map[string]interface{}{})` answers, where it is certain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DockerConfig {
    /// A JSON object, or `null`: no error.
    Parsed,
    /// Go's error text.
    Refused(String),
    /// A text serde_json does not read: Go's answer is not modelled.
    Unjudged,
}

/// A docker config's bytes as `json.Unmarshal` into a `map[string]interface{}` judges them: an
/// empty or blank text ends early (`checkValid`'s `SyntaxError`), well-formed JSON of another type
/// is an `UnmarshalTypeError` naming the JSON type (`array`, `string`, `number`, `bool`).
pub fn docker_config(bytes: &[u8]) -> DockerConfig {
    if bytes.iter().all(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r')) {
        return DockerConfig::Refused("unexpected end of JSON input".into());
    }
    let found = match serde_json::from_slice::<Value>(bytes) {
        Err(_) => return DockerConfig::Unjudged,
        Ok(Value::Object(_) | Value::Null) => return DockerConfig::Parsed,
        Ok(Value::Array(_)) => "array",
        Ok(Value::String(_)) => "string",
        Ok(Value::Number(_)) => "number",
        Ok(Value::Bool(_)) => "bool",
    };
    DockerConfig::Refused(format!("json: cannot unmarshal {found} into Go value of type map[string]interface {{}}"))
}

/// The key a docker config Secret of type `t` needs.
fn docker_config_key(t: &str) -> Option<&'static str> {
    match t {
        DOCKERCFG => Some(DOCKER_CONFIG_KEY),
        DOCKER_CONFIG_JSON => Some(DOCKER_CONFIG_JSON_KEY),
        _ => None,
    }
}

/// The docker config key of `secret` whose value [`docker_config`] does not judge, with the member
/// (`data` or `stringData`) it comes from.
pub fn unjudged_docker_config(secret: &Value) -> Option<(&'static str, &'static str)> {
    let key = docker_config_key(secret.member("type").and_then(Value::as_str).unwrap_or(""))?;
    let data = secret_data(secret);
    let (_, value) = data.iter().find(|(k, _)| k == key)?;
    let unjudged = value.bytes.as_deref().is_none_or(|b| docker_config(b) == DockerConfig::Unjudged);
    unjudged.then_some((value.from, key))
}

/// `ValidateSecret`'s switch on the type.
fn type_errors(secret: &Value, data: &[(String, SecretValue)]) -> Vec<FieldError> {
    let get = |key: &str| data.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    let required = |key: &str| FieldError::required(&format!("data[{key}]"), "");
    let mut errs = Vec::new();
    match secret.member("type").and_then(Value::as_str).unwrap_or("") {
        SERVICE_ACCOUNT_TOKEN => {
            let name = secret.at("/metadata/annotations").and_then(|a| a.member(SERVICE_ACCOUNT_NAME_KEY));
            if name.and_then(Value::as_str).unwrap_or("").is_empty() {
                errs.push(FieldError::required(&format!("metadata.annotations[{SERVICE_ACCOUNT_NAME_KEY}]"), ""));
            }
        }
        t @ (DOCKERCFG | DOCKER_CONFIG_JSON) => {
            let key = docker_config_key(t).unwrap_or_default();
            match get(key).map(|v| v.bytes.as_deref().map(docker_config)) {
                None => errs.push(required(key)),
                Some(Some(DockerConfig::Refused(msg))) => {
                    errs.push(FieldError::invalid(&format!("data[{key}]"), BadValue::Str(REDACTED.into()), msg))
                }
                Some(_) => {}
            }
        }
        // Username or password may be empty, but one must be there.
        BASIC_AUTH if BASIC_AUTH_KEYS.iter().all(|k| get(k).is_none()) => {
            errs.extend(BASIC_AUTH_KEYS.map(required));
        }
        SSH_AUTH if get(SSH_AUTH_PRIVATE_KEY).is_none_or(|v| v.len == 0) => errs.push(required(SSH_AUTH_PRIVATE_KEY)),
        TLS => errs.extend(TLS_KEYS.iter().filter(|k| get(k).is_none()).map(|k| required(k))),
        _ => {}
    }
    errs
}

/// `ValidateSecret` without the metadata: keys, size, then the type's keys.
pub fn validate_secret(secret: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let data = secret_data(secret);
    for (k, _) in &data {
        errs.extend(key_errors(k, &format!("data[{k}]")));
    }
    if data.iter().map(|(_, v)| v.len).sum::<usize>() > MAX_SECRET_SIZE {
        errs.push(FieldError::too_long("data", MAX_SECRET_SIZE));
    }
    errs.extend(type_errors(secret, &data));
    errs
}

/// A map member's content as Go compares it on update (`reflect.DeepEqual` of the internal
/// object's map): each key with its bytes, in key order. A Secret's `data` is the one validation
/// sees, `stringData` merged over it; `binaryData` and a Secret's `data` are base64 decoded (so two
/// spellings of the same bytes are equal; `None` for an undecodable value, which the decoder
/// refuses first). A missing or null member is taken as an empty one.
fn map_content(object: &Value, member: &str, secret: bool) -> Vec<(String, Option<Vec<u8>>)> {
    let mut out: Vec<(String, Option<Vec<u8>>)> = if secret {
        secret_data(object).into_iter().map(|(k, v)| (k, v.bytes)).collect()
    } else if member == "binaryData" {
        entries(object, member).into_iter().map(|(k, v)| (k, decoded(&v))).collect()
    } else {
        entries(object, member)
            .into_iter()
            .map(|(k, v)| (k, Some(v.as_str().unwrap_or("").as_bytes().to_vec())))
            .collect()
    };
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The members of an UPDATE's new object that are written as an empty map (`{}`, not null nor
/// missing) while the `immutable` old object holds none there. Go's `reflect.DeepEqual` tells a nil
/// map (what the stored object decodes to) from an empty one (what the JSON decoder makes of `{}`),
/// which [`immutable_flag`] takes as equal; whether the admission chain keeps that distinction up
/// to validation was not traced, so such a member is left unjudged and named (`crate::unmodelled`).
pub fn empty_map_on_immutable(object: &Value, old: &Value, secret: bool) -> Vec<&'static str> {
    if old.member("immutable").and_then(Value::as_bool) != Some(true) {
        return Vec::new();
    }
    let members: &[&'static str] = if secret { &["data"] } else { &["data", "binaryData"] };
    members
        .iter()
        .copied()
        .filter(|m| object.member(m).and_then(Value::as_object).is_some_and(serde_json::Map::is_empty))
        .filter(|m| map_content(old, m, secret).is_empty())
        .filter(|_| !secret || entries(object, "stringData").is_empty())
        .collect()
}

/// The checks of an `immutable` old object: the flag kept, each of `fields` unchanged (a Secret's
/// `data` as the merged, decoded map `ValidateSecretUpdate` compares).
fn immutable_flag(new: &Value, old: &Value, fields: &[&str], secret: bool) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if old.member("immutable").and_then(Value::as_bool) != Some(true) {
        return errs;
    }
    const MSG: &str = "field is immutable when `immutable` is set";
    if new.member("immutable").and_then(Value::as_bool) != Some(true) {
        errs.push(FieldError::forbidden("immutable", MSG));
    }
    for f in fields {
        if map_content(new, f, secret) != map_content(old, f, secret) {
            errs.push(FieldError::forbidden(f, MSG));
        }
    }
    errs
}

/// `ValidateConfigMapUpdate` without the metadata and before [`validate_config_map`].
pub fn validate_config_map_update(new: &Value, old: &Value) -> Vec<FieldError> {
    immutable_flag(new, old, &["data", "binaryData"], false)
}

/// `ValidateSecretUpdate` without the metadata and before [`validate_secret`].
pub fn validate_secret_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let t = |o: &Value| o.member("type").and_then(Value::as_str).unwrap_or("").to_string();
    if t(new) != t(old) {
        errs.push(FieldError::invalid("type", BadValue::Str(t(new)), FIELD_IMMUTABLE));
    }
    errs.extend(immutable_flag(new, old, &["data"], true));
    errs
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    use crate::field::texts;

    fn secret(t: &str, data: Value) -> Value {
        json!({"metadata": {"name": "s"}, "type": t, "data": data})
    }

    #[test]
    fn a_docker_config_is_judged_where_go_json_text_is_certain() {
        assert_eq!(docker_config(b"{\"auths\": {}}"), DockerConfig::Parsed);
        assert_eq!(docker_config(b" null "), DockerConfig::Parsed);
        assert_eq!(docker_config(b" \t\r\n"), DockerConfig::Refused("unexpected end of JSON input".into()));
        assert_eq!(docker_config(b""), DockerConfig::Refused("unexpected end of JSON input".into()));
        let wrong = |t: &str| {
            DockerConfig::Refused(format!("json: cannot unmarshal {t} into Go value of type map[string]interface {{}}"))
        };
        assert_eq!(docker_config(b"[]"), wrong("array"));
        assert_eq!(docker_config(b"\"x\""), wrong("string"));
        assert_eq!(docker_config(b"12"), wrong("number"));
        assert_eq!(docker_config(b"true"), wrong("bool"));
        // Go's syntax errors, and what serde_json refuses but Go takes, are not judged.
        for text in [&b"{x"[..], b"{\"a\": 1e400}", b"\"\\ud800\"", b"\"\xff\"", b"{\"a\":1} x"] {
            assert_eq!(docker_config(text), DockerConfig::Unjudged, "{text:?}");
        }
    }

    /// An immutable Secret's data is compared as validation sees it: `stringData` merged over
    /// `data`, base64 decoded.
    #[test]
    fn an_immutable_secret_compares_its_merged_data() {
        let old = json!({"metadata": {"name": "s"}, "type": "Opaque", "immutable": true, "data": {"k": "dg=="}});
        let same = json!({"metadata": {"name": "s"}, "type": "Opaque", "immutable": true, "stringData": {"k": "v"}});
        assert!(validate_secret_update(&same, &old).is_empty());
        let changed = json!({"metadata": {"name": "s"}, "type": "Opaque", "immutable": true, "data": {"k": "dg=="},
                             "stringData": {"k": "w"}});
        assert_eq!(
            texts(&validate_secret_update(&changed, &old)),
            ["data: Forbidden: field is immutable when `immutable` is set"]
        );
        // A ConfigMap's binary data is compared by its bytes.
        let cm = |b: &str| json!({"metadata": {"name": "c"}, "immutable": true, "binaryData": {"b": b}});
        assert!(validate_config_map_update(&cm("YWI="), &cm("YWI=")).is_empty());
        assert_eq!(
            texts(&validate_config_map_update(&cm("YWM="), &cm("YWI="))),
            ["binaryData: Forbidden: field is immutable when `immutable` is set"]
        );
    }

    #[test]
    fn each_type_needs_its_keys() {
        let errs = |s: &Value| texts(&validate_secret(s));
        assert!(errs(&secret("Opaque", json!({}))).is_empty());
        assert!(errs(&secret("example.com/custom", json!({}))).is_empty());
        assert_eq!(
            errs(&secret("kubernetes.io/tls", json!({}))),
            ["data[tls.crt]: Required value", "data[tls.key]: Required value"]
        );
        assert!(errs(&secret("kubernetes.io/tls", json!({"tls.crt": "", "tls.key": null}))).is_empty());
        assert_eq!(
            errs(&secret("kubernetes.io/basic-auth", json!({}))),
            ["data[username]: Required value", "data[password]: Required value"]
        );
        assert!(errs(&secret("kubernetes.io/basic-auth", json!({"password": ""}))).is_empty());
        assert_eq!(
            errs(&secret("kubernetes.io/ssh-auth", json!({"ssh-privatekey": ""}))),
            ["data[ssh-privatekey]: Required value"]
        );
        let mut ssh = secret("kubernetes.io/ssh-auth", json!({}));
        ssh["stringData"] = json!({"ssh-privatekey": "k"});
        assert!(errs(&ssh).is_empty());
        let token = secret("kubernetes.io/service-account-token", json!({}));
        assert_eq!(errs(&token), ["metadata.annotations[kubernetes.io/service-account.name]: Required value"]);
        let mut named = token.clone();
        named["metadata"]["annotations"] = json!({"kubernetes.io/service-account.name": "build"});
        assert!(errs(&named).is_empty());
    }

    #[test]
    fn a_docker_config_needs_its_key_and_a_json_object() {
        let errs = |s: &Value| texts(&validate_secret(s));
        assert_eq!(
            errs(&secret("kubernetes.io/dockercfg", json!({".dockerconfigjson": "e30="}))),
            ["data[.dockercfg]: Required value"]
        );
        assert!(errs(&secret("kubernetes.io/dockerconfigjson", json!({".dockerconfigjson": "eyJhdXRocyI6e319"})))
            .is_empty());
        assert_eq!(errs(&secret("kubernetes.io/dockerconfigjson", json!({".dockerconfigjson": "W10="}))), [
            "data[.dockerconfigjson]: Invalid value: \"<secret contents redacted>\": json: cannot unmarshal array into Go value of type map[string]interface {}"
        ]);
        // Not judged: no error, and named by `unjudged_docker_config`.
        let syntax = secret("kubernetes.io/dockercfg", json!({".dockercfg": "e3g="}));
        assert!(errs(&syntax).is_empty());
        assert_eq!(unjudged_docker_config(&syntax), Some(("data", ".dockercfg")));
        assert_eq!(unjudged_docker_config(&secret("kubernetes.io/dockercfg", json!({".dockercfg": "W10="}))), None);
        assert_eq!(unjudged_docker_config(&secret("Opaque", json!({".dockercfg": "e3g="}))), None);
    }
}
