//! Snapshots of a case's answers, readable as YAML: the decision, each webhook's status, warnings,
//! the decoded patch and the patched object, with per-run values (request uids) redacted. Stored in
//! insta's `.snap` format (a `---` header, then the body) so `cargo insta review` works on them.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::load::Case;
use super::request::{CaseRun, Decision};
use crate::client::Transport;
use crate::exchange::ExchangeRecord;
use crate::text::snippet;

/// What replaces a request uid in snapshots.
pub(crate) const REDACTED_UID: &str = "[request uid]";

/// Replace every string equal to one of `uids` by [`REDACTED_UID`].
fn redact(value: &mut Value, uids: &[String]) {
    match value {
        Value::String(s) if uids.iter().any(|u| u == s) => *s = REDACTED_UID.to_string(),
        Value::Array(a) => a.iter_mut().for_each(|v| redact(v, uids)),
        Value::Object(m) => m.values_mut().for_each(|v| redact(v, uids)),
        _ => {}
    }
}

/// The snapshot of one case's run, as YAML text.
pub(crate) fn render(case: &Case, run: &CaseRun) -> String {
    let uids: Vec<String> = run.records.iter().map(|r| r.case.uid().to_string()).collect();
    let mut top = Map::new();
    top.insert("case".into(), json!(case.name));
    top.insert("request".into(), json!(case.what()));
    let mut decision = Map::new();
    decision.insert("result".into(), json!(run.decision.as_str()));
    match &run.decision {
        Decision::Denied(w, m) => {
            decision.insert("by".into(), json!(w));
            decision.insert("message".into(), json!(m));
        }
        Decision::Rejected(w, rule, m) => {
            decision.insert("by".into(), json!(w));
            decision.insert("rule".into(), json!(rule));
            decision.insert("apiserver".into(), json!(m));
        }
        Decision::NotSent(w, why) => {
            decision.insert("by".into(), json!(w));
            decision.insert("why".into(), json!(why));
        }
        _ => {}
    }
    top.insert("decision".into(), Value::Object(decision));
    let answers: Vec<Value> = run.records.iter().map(answer).collect();
    top.insert("answers".into(), Value::Array(answers));
    let mut value = Value::Object(top);
    redact(&mut value, &uids);
    serde_yaml::to_string(&value).unwrap_or_else(|e| format!("# cannot render: {e}\n"))
}

fn answer(record: &ExchangeRecord) -> Value {
    let x = record.view();
    let mut out = Map::new();
    out.insert("webhook".into(), json!(record.webhook.name));
    out.insert("version".into(), json!(record.case.version().as_str()));
    let answered = match &record.transport {
        Transport::Failed(f) => {
            out.insert("transport".into(), json!(format!("{:?}", f.kind)));
            return Value::Object(out);
        }
        Transport::Answered(a) => a,
    };
    if answered.status != 200 {
        out.insert("http".into(), json!(answered.status));
    }
    let Some(response) = x.response() else {
        out.insert("body".into(), json!(snippet(&String::from_utf8_lossy(&answered.body))));
        return Value::Object(out);
    };
    out.insert("allowed".into(), json!(x.allowed()));
    let uid = response.get("uid").and_then(Value::as_str);
    out.insert(
        "uid".into(),
        json!(match uid {
            Some(u) if u == record.case.uid() => "matches the request",
            Some(_) => "differs from the request",
            None => "missing",
        }),
    );
    if let Some(status) = response.get("status").filter(|s| !s.is_null()) {
        let mut s = Map::new();
        for k in ["code", "message", "reason"] {
            if let Some(v) = status.get(k).filter(|v| !v.is_null()) {
                s.insert(k.into(), v.clone());
            }
        }
        out.insert("status".into(), Value::Object(s));
    }
    for k in ["warnings", "auditAnnotations"] {
        if let Some(v) = response.get(k).filter(|v| !v.is_null()) {
            out.insert(k.into(), v.clone());
        }
    }
    if let Some(t) = response.get("patchType").filter(|v| !v.is_null()) {
        out.insert("patchType".into(), t.clone());
    }
    match x.patch_bytes() {
        None => {}
        Some(Err(e)) => {
            out.insert("patch".into(), json!(format!("undecodable: {e}")));
        }
        Some(Ok(bytes)) => {
            let decoded = serde_json::from_slice::<Value>(&bytes.bytes)
                .unwrap_or_else(|_| json!(String::from_utf8_lossy(&bytes.bytes)));
            out.insert("patch".into(), decoded);
        }
    }
    match x.patched() {
        Some(Ok(object)) => {
            out.insert("patched".into(), object.clone());
        }
        Some(Err(e)) => {
            out.insert("patched".into(), json!(format!("the patch does not apply: {e}")));
        }
        None => {}
    }
    Value::Object(out)
}

/// Where the snapshot of case `name` lives in `dir` (insta's naming: `<name>.snap`).
pub(crate) fn snap_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.snap"))
}

/// The body of an insta `.snap` file: what follows the `---` header.
pub(crate) fn snap_body(text: &str) -> &str {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(rest) = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")) {
        if let Some(end) = rest.find("\n---\n") {
            return &rest[end + 5..];
        }
        if let Some(end) = rest.find("\r\n---\r\n") {
            return &rest[end + 7..];
        }
    }
    text
}

/// Normalized as insta compares snapshots: line endings unified, trailing whitespace trimmed.
fn normalize(text: &str) -> String {
    let t = text.replace("\r\n", "\n");
    t.trim_end().to_string() + "\n"
}

/// An insta-compatible `.snap` file holding `body`.
pub(crate) fn snap_file(body: &str) -> String {
    format!("---\nsource: suite/tests/cases.rs\nexpression: snapshot\n---\n{}", normalize(body))
}

/// Comparison with a stored snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Golden {
    Unchanged,
    /// No snapshot stored yet.
    Missing(PathBuf),
    /// The answer changed: a unified diff, stored → this run.
    Changed(PathBuf, String),
}

/// Compare `body` with the stored snapshot of `name` in `dir`.
pub(crate) fn compare(dir: &Path, name: &str, body: &str) -> Golden {
    let path = snap_path(dir, name);
    let Ok(stored) = std::fs::read_to_string(&path) else { return Golden::Missing(path) };
    let old = normalize(snap_body(&stored));
    let new = normalize(body);
    if old == new {
        Golden::Unchanged
    } else {
        Golden::Changed(path.clone(), diff(&old, &new, &path.display().to_string()))
    }
}

/// A unified line diff, `old` → `new`.
pub(crate) fn diff(old: &str, new: &str, name: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("{name} (stored)"), "this run")
        .to_string()
}

/// Write the snapshot of `name` to `dir` (created when missing).
pub(crate) fn write(dir: &Path, name: &str, body: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = snap_path(dir, name);
    std::fs::write(&path, snap_file(body))?;
    Ok(path)
}
