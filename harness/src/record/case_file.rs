//! A recorded request as a case file (`cases/` format, the `request:` form), its name, and the
//! atomic write of it.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::shape::fnv1a;
use crate::error::Error;

/// What the webhook answered a proxied request.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The body, as bytes were received (lossy UTF-8 only if it was not UTF-8).
    pub body: String,
    /// Why there is no answer: the call failed (then `status` is what the proxy answered).
    pub error: Option<String>,
}

impl Answer {
    /// `allowed` or `denied`, when the answer is an AdmissionReview with a response.
    pub fn decision(&self) -> Option<&'static str> {
        if self.status != 200 || self.error.is_some() {
            return None;
        }
        let review: Value = serde_json::from_str(&self.body).ok()?;
        match review.get("response")?.get("allowed")?.as_bool()? {
            true => Some("allowed"),
            false => Some("denied"),
        }
    }
}

/// The case file's text: `description`, `webhook` (when known), `request`, `expect.decision` (from
/// the answer, when it has one) and `answer` (as recorded).
pub fn case_text(description: &str, webhook: Option<&str>, request: &Value, answer: Option<&Answer>) -> String {
    let mut case = Map::new();
    case.insert("description".into(), json!(description));
    if let Some(w) = webhook {
        case.insert("webhook".into(), json!(w));
    }
    case.insert("request".into(), request.clone());
    if let Some(answer) = answer {
        if let Some(decision) = answer.decision() {
            case.insert("expect".into(), json!({ "decision": decision }));
        }
        let mut recorded = Map::new();
        recorded.insert("status".into(), json!(answer.status));
        match &answer.error {
            Some(e) => recorded.insert("error".into(), json!(e)),
            None => recorded.insert("body".into(), json!(answer.body)),
        };
        case.insert("answer".into(), Value::Object(recorded));
    }
    serde_yaml::to_string(&Value::Object(case)).expect("JSON values serialize as YAML")
}

/// `pods-create-1a2b3c4d.yaml`, `deployments-scale-update-….yaml`: resource, subresource,
/// operation and a short hash of the file's content.
pub fn file_name(request: &Value, text: &str) -> String {
    let clean = |s: &str| -> String {
        s.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect()
    };
    let resource = request.pointer("/resource/resource").and_then(Value::as_str).unwrap_or("unknown");
    let mut name = clean(resource);
    if let Some(sub) = request.get("subResource").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        name.push('-');
        name.push_str(&clean(sub));
    }
    let op = request.get("operation").and_then(Value::as_str).unwrap_or("unknown");
    format!("{name}-{}-{:08x}.yaml", clean(op), fnv1a(text.as_bytes()) as u32)
}

/// Write `text` to `dir/name` through a temporary file in `dir` renamed into place: a reader (or a
/// crash) never sees half a case.
pub fn write_atomically(dir: &Path, name: &str, text: &str) -> Result<PathBuf, Error> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let path = dir.join(name);
    let mut temp = tempfile::Builder::new().prefix(".record-").suffix(".tmp").tempfile_in(dir).map_err(io(dir))?;
    temp.write_all(text.as_bytes()).map_err(io(temp.path()))?;
    temp.as_file().sync_all().map_err(io(temp.path()))?;
    temp.persist(&path).map_err(|e| Error::Io { path: path.clone(), source: e.error })?;
    Ok(path)
}
