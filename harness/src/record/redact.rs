//! Redaction of what a recorded request must not carry into a case file: Secret data, the
//! last-applied configuration of Secrets, credential-like environment values, service-account
//! tokens and user names. Each value becomes a placeholder that is stable within a recording (the
//! same value, the same placeholder) and derived from nothing of the value (a counter, not a hash:
//! nothing of a secret can be guessed back from it).

use std::collections::{BTreeMap, HashMap};

use base64::Engine as _;
use serde_json::Value;

/// What was redacted, by kind, in a count per kind.
pub type Tally = BTreeMap<&'static str, usize>;

/// The kinds of redacted values, as the summary names them.
pub const SECRET_DATA: &str = "Secret data";
/// `stringData` of a Secret.
pub const SECRET_STRING_DATA: &str = "Secret stringData";
/// `kubectl.kubernetes.io/last-applied-configuration` of a Secret.
pub const LAST_APPLIED: &str = "Secret last-applied-configuration";
/// An environment variable's value whose name looks like a credential.
pub const CREDENTIAL_ENV: &str = "credential env value";
/// A service-account token (a JWT) anywhere in an object.
pub const TOKEN: &str = "service-account token";
/// A user's name, uid or extra values (`system:` users are components and kept).
pub const USER: &str = "user name or uid";

const LAST_APPLIED_ANNOTATION: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Parts of an environment variable's name that make its value a credential.
const CREDENTIAL_WORDS: &[&str] =
    &["TOKEN", "PASSWORD", "PASSWD", "SECRET", "KEY", "CREDENTIAL", "PRIVATE", "AUTH", "CERT", "PASS"];

/// Replaces sensitive values by placeholders, the same one for the same value in one recording.
#[derive(Debug, Default)]
pub struct Redactor {
    seen: HashMap<(&'static str, String), String>,
    counters: HashMap<&'static str, usize>,
    /// The values replaced since the last [`echoes`](Redactor::echoes), with their placeholders.
    replaced: Vec<(String, String)>,
}

/// Values shorter than this are not looked for in an answer (`a`, `1` would match anywhere).
const SHORTEST_ECHO: usize = 4;

/// A value redacted in a request, looked for where the webhook's answer repeats it.
pub const ECHO: &str = "redacted value repeated in the answer";

impl Redactor {
    /// A redactor with no values seen yet.
    pub fn new() -> Redactor {
        Redactor::default()
    }

    fn placeholder(&mut self, kind: &'static str, value: &str, tally: &mut Tally) -> String {
        *tally.entry(kind).or_default() += 1;
        if let Some(p) = self.seen.get(&(kind, value.to_string())) {
            self.replaced.push((value.to_string(), p.clone()));
            return p.clone();
        }
        let n = self.counters.entry(kind).or_default();
        *n += 1;
        let slug: String =
            kind.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
        let p = format!("redacted-{slug}-{n}");
        self.seen.insert((kind, value.to_string()), p.clone());
        self.replaced.push((value.to_string(), p.clone()));
        p
    }

    /// Replace, in `answer` (a webhook's answer to the request just redacted), every value that
    /// redaction replaced in the request where the answer repeats it verbatim (as JSON text too: a
    /// denial message naming the user). Inside a base64 patch nothing can be recognised; such an
    /// answer keeps what it holds.
    pub fn echoes(&mut self, answer: &mut String, tally: &mut Tally) {
        let mut replaced = std::mem::take(&mut self.replaced);
        replaced.sort_by_key(|(value, _)| std::cmp::Reverse(value.len()));
        replaced.dedup();
        for (value, placeholder) in replaced.iter().filter(|(v, _)| v.len() >= SHORTEST_ECHO) {
            let escaped = serde_json::to_string(value).unwrap_or_default();
            let escaped = escaped.trim_matches('"');
            for form in [value.as_str(), escaped] {
                let n = answer.matches(form).count();
                if n > 0 {
                    *answer = answer.replace(form, placeholder);
                    *tally.entry(ECHO).or_default() += n;
                }
            }
        }
    }

    /// Redact an AdmissionRequest (JSON) in place: its object, old object and user; what was
    /// replaced is counted in `tally`.
    pub fn request(&mut self, request: &mut Value, tally: &mut Tally) {
        for field in ["object", "oldObject"] {
            if let Some(object) = request.get_mut(field) {
                self.object(object, tally);
            }
        }
        if let Some(user) = request.get_mut("userInfo") {
            self.user(user, tally);
        }
    }

    /// Redact a user's name, uid and extra values; `system:` users (components, service accounts)
    /// keep their names, which webhooks often decide on.
    pub fn user(&mut self, user: &mut Value, tally: &mut Tally) {
        let Some(user) = user.as_object_mut() else { return };
        let name = user.get("username").and_then(Value::as_str).unwrap_or_default().to_string();
        let component = name.starts_with("system:");
        if !name.is_empty() && !component {
            let p = self.placeholder(USER, &name, tally);
            user.insert("username".into(), Value::String(p));
        }
        if !component {
            if let Some(uid) = user.get("uid").and_then(Value::as_str).filter(|u| !u.is_empty()).map(String::from) {
                let p = self.placeholder(USER, &uid, tally);
                user.insert("uid".into(), Value::String(p));
            }
        }
        if let Some(extra) = user.get_mut("extra").and_then(Value::as_object_mut) {
            for values in extra.values_mut() {
                if let Some(list) = values.as_array_mut() {
                    for v in list.iter_mut() {
                        if let Some(s) = v.as_str().map(String::from) {
                            *v = Value::String(self.placeholder(USER, &s, tally));
                        }
                    }
                }
            }
        }
    }

    /// Redact one object: a Secret's data, stringData and last-applied configuration, then
    /// credential-like env values and tokens anywhere in it.
    pub fn object(&mut self, object: &mut Value, tally: &mut Tally) {
        if object.get("kind").and_then(Value::as_str) == Some("Secret") {
            self.secret(object, tally);
        }
        self.walk(object, tally);
    }

    fn secret(&mut self, secret: &mut Value, tally: &mut Tally) {
        let Some(map) = secret.as_object_mut() else { return };
        if let Some(data) = map.get_mut("data").and_then(Value::as_object_mut) {
            for v in data.values_mut() {
                let text = v.as_str().unwrap_or_default().to_string();
                let p = self.placeholder(SECRET_DATA, &text, tally);
                // `data` holds base64: the placeholder stays decodable.
                *v = Value::String(base64::engine::general_purpose::STANDARD.encode(p));
            }
        }
        if let Some(data) = map.get_mut("stringData").and_then(Value::as_object_mut) {
            for v in data.values_mut() {
                let text = v.as_str().unwrap_or_default().to_string();
                *v = Value::String(self.placeholder(SECRET_STRING_DATA, &text, tally));
            }
        }
        let annotation = map
            .get_mut("metadata")
            .and_then(|m| m.get_mut("annotations"))
            .and_then(Value::as_object_mut)
            .and_then(|a| a.get_mut(LAST_APPLIED_ANNOTATION));
        if let Some(v) = annotation {
            let text = v.as_str().unwrap_or_default().to_string();
            *v = Value::String(self.placeholder(LAST_APPLIED, &text, tally));
        }
    }

    fn walk(&mut self, value: &mut Value, tally: &mut Tally) {
        match value {
            Value::Object(map) => {
                if let Some(Value::Array(env)) = map.get_mut("env") {
                    for var in env.iter_mut() {
                        let name = var.get("name").and_then(Value::as_str).unwrap_or_default();
                        if !looks_like_credential(name) {
                            continue;
                        }
                        if let Some(text) = var.get("value").and_then(Value::as_str).map(String::from) {
                            let p = self.placeholder(CREDENTIAL_ENV, &text, tally);
                            var["value"] = Value::String(p);
                        }
                    }
                }
                for v in map.values_mut() {
                    self.walk(v, tally);
                }
            }
            Value::Array(items) => {
                for v in items {
                    self.walk(v, tally);
                }
            }
            Value::String(s) if looks_like_jwt(s) => {
                let text = s.clone();
                *s = self.placeholder(TOKEN, &text, tally);
            }
            _ => {}
        }
    }
}

/// An environment variable's name that looks like it holds a credential (`DB_PASSWORD`,
/// `apiToken`, `AWS_SECRET_ACCESS_KEY`).
pub fn looks_like_credential(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    CREDENTIAL_WORDS.iter().any(|w| upper.contains(w))
}

/// A JSON Web Token as service-account tokens are: three base64url parts, the header a JSON object.
pub fn looks_like_jwt(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 3
        && s.starts_with("eyJ")
        && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_secret_and_its_user_are_redacted_with_stable_placeholders() {
        let mut r = Redactor::new();
        let mut tally = Tally::new();
        let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl";
        let mut request = json!({
            "object": {"apiVersion": "v1", "kind": "Secret",
                "metadata": {"name": "db", "annotations": {LAST_APPLIED_ANNOTATION: "{\"data\":{\"password\":\"aHVudGVyMg==\"}}"}},
                "data": {"password": "aHVudGVyMg==", "copy": "aHVudGVyMg=="},
                "stringData": {"token": jwt}},
            "oldObject": {"kind": "Pod", "spec": {"containers": [{"name": "a",
                "env": [{"name": "DB_PASSWORD", "value": "hunter2"}, {"name": "MODE", "value": "blue"}]}]}},
            "userInfo": {"username": "alice@example.com", "uid": "1234", "groups": ["dev"]},
        });
        r.request(&mut request, &mut tally);
        let text = request.to_string();
        for secret in ["aHVudGVyMg==", "hunter2", jwt, "alice@example.com", "1234"] {
            assert!(!text.contains(secret), "{secret} left in {text}");
        }
        assert_eq!(
            request["object"]["data"]["password"], request["object"]["data"]["copy"],
            "same value, same placeholder"
        );
        assert_eq!(request["oldObject"]["spec"]["containers"][0]["env"][1]["value"], "blue");
        assert_eq!(request["userInfo"]["groups"], json!(["dev"]));
        assert_eq!(tally[SECRET_DATA], 2);
        assert_eq!(tally[SECRET_STRING_DATA], 1);
        assert_eq!(tally[LAST_APPLIED], 1);
        assert_eq!(tally[CREDENTIAL_ENV], 1);
        assert_eq!(tally[USER], 2);
        // The same user in a later request gets the same placeholder.
        let mut again = json!({"userInfo": {"username": "alice@example.com"}});
        r.request(&mut again, &mut Tally::new());
        assert_eq!(again["userInfo"]["username"], request["userInfo"]["username"]);
        // The answer repeating the user's name gets the same placeholder.
        let mut answer =
            r#"{"response":{"allowed":false,"status":{"message":"alice@example.com may not"}}}"#.to_string();
        let mut again = json!({"userInfo": {"username": "alice@example.com"}});
        r.request(&mut again, &mut Tally::new());
        let mut counted = Tally::new();
        r.echoes(&mut answer, &mut counted);
        assert!(
            !answer.contains("alice") && answer.contains(again["userInfo"]["username"].as_str().unwrap()),
            "{answer}"
        );
        assert_eq!(counted[ECHO], 1);
        // Components keep their names.
        let mut sa = json!({"userInfo": {"username": "system:serviceaccount:kube-system:replicaset-controller"}});
        r.request(&mut sa, &mut Tally::new());
        assert_eq!(sa["userInfo"]["username"], "system:serviceaccount:kube-system:replicaset-controller");
    }

    #[test]
    fn only_tokens_look_like_tokens() {
        assert!(looks_like_jwt("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"));
        assert!(!looks_like_jwt("registry.example/app:1.0"));
        assert!(!looks_like_jwt("a.b.c"));
        assert!(looks_like_credential("AWS_SECRET_ACCESS_KEY"));
        assert!(!looks_like_credential("LOG_LEVEL"));
    }
}
