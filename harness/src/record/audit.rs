//! The apiserver's audit log as recorded requests: `audit.k8s.io/v1` `Event`s, one JSON object a
//! line, as the log backend writes them (`staging/src/k8s.io/apiserver/pkg/apis/audit/v1/types.go`,
//! `Event` and `ObjectReference`).
//!
//! An event becomes the AdmissionRequest the apiserver sent for it:
//! - `verb` gives the operation: `create` → CREATE, `update` and `patch` → UPDATE, `delete` →
//!   DELETE; other verbs are not admitted by webhooks (`deletecollection` is, per object, but its
//!   event names no object) and are passed over.
//! - `objectRef` gives the resource, subresource, namespace and name; `user` (or
//!   `impersonatedUser`, whom the request acted as) the userInfo; a `dryRun` in `requestURI` the
//!   dry-run flag.
//! - The object: `requestObject` for create and update (levels `Request` and `RequestResponse`);
//!   for a patch `requestObject` holds only the patch, so the object is the `responseObject` (the
//!   patched object as stored, `RequestResponse` only). The old object of an UPDATE is in no event:
//!   the case leaves it out and a replay sends the stored form of the new one. A DELETE's old
//!   object is the `responseObject` when the delete answered with the object (`RequestResponse`;
//!   a delete answered with a `Status` holds none, and is passed over, saying so).
//! - Only the `ResponseComplete` stage is read (each request has one; the other stages repeat it).
//!   Events at level `Metadata` carry no object: passed over, saying so.
//!
//! A line that is not a JSON event (truncated, malformed) is reported with its number and skipped.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::Recorded;

/// A line of the log that gave no request, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The 1-based line number.
    pub line: usize,
    /// Why.
    pub why: String,
}

/// What an audit log gave: the requests, the lines skipped, and how many events were of verbs or
/// stages that hold no admission request.
#[derive(Clone, Debug, Default)]
pub struct Conversion {
    /// The requests, in log order.
    pub requests: Vec<Recorded>,
    /// Lines that are not events or events that cannot give a request.
    pub skipped: Vec<Skipped>,
    /// Events of other stages or of verbs webhooks are not called for (get, list, watch, …).
    pub passed_over: usize,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Event {
    api_version: String,
    kind: String,
    #[serde(default)]
    level: String,
    #[serde(default, rename = "auditID")]
    audit_id: String,
    #[serde(default)]
    stage: String,
    #[serde(default, rename = "requestURI")]
    request_uri: String,
    #[serde(default)]
    verb: String,
    #[serde(default)]
    user: Value,
    #[serde(default)]
    impersonated_user: Option<Value>,
    #[serde(default)]
    object_ref: Option<ObjectRef>,
    #[serde(default)]
    request_object: Option<Value>,
    #[serde(default)]
    response_object: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ObjectRef {
    #[serde(default)]
    resource: String,
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    api_group: String,
    #[serde(default)]
    api_version: String,
    #[serde(default)]
    subresource: String,
}

/// The requests of the audit log `text`; `file` names it in the descriptions.
pub fn convert(file: &str, text: &str) -> Conversion {
    let mut out = Conversion::default();
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let event: Event = match serde_json::from_str(line) {
            Ok(e) => e,
            Err(e) => {
                out.skipped.push(Skipped { line: number, why: format!("not a JSON audit event: {e}") });
                continue;
            }
        };
        match request_of(&event) {
            Ok(Some(request)) => out.requests.push(Recorded {
                request,
                webhook: None,
                answer: None,
                source: format!("{file} line {number} (audit event {})", event.audit_id),
            }),
            Ok(None) => out.passed_over += 1,
            Err(why) => out.skipped.push(Skipped { line: number, why: why.to_string() }),
        }
    }
    out
}

fn is_status(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str) == Some("Status")
}

/// Why an audit event gives no AdmissionRequest although a webhook is called for it.
#[derive(Debug, thiserror::Error)]
enum Unrecordable {
    /// Not an audit event.
    #[error("{api_version} {kind} is not an audit.k8s.io/v1 Event")]
    NotAnEvent { api_version: String, kind: String },
    /// Logged at a level that holds no object.
    #[error("{verb} {resource} at level {level}: the event holds no object (the audit policy must log it at Request or RequestResponse)")]
    Level { verb: String, resource: String, level: String },
    /// A create or update without its requestObject.
    #[error("{verb} {resource}: no requestObject")]
    NoRequestObject { verb: String, resource: String },
    /// A patch without the patched object.
    #[error("patch {0}: the requestObject of a patch is the patch, and the patched object (responseObject) is only at level RequestResponse")]
    NoPatchedObject(String),
    /// A delete without the deleted object.
    #[error("delete {0}: the event holds no deleted object (it is the responseObject at level RequestResponse, when the delete answered with the object rather than a Status)")]
    NoDeletedObject(String),
}

/// The AdmissionRequest of one event; `None` for an event no webhook is called for.
fn request_of(event: &Event) -> Result<Option<Value>, Unrecordable> {
    if event.api_version != "audit.k8s.io/v1" || event.kind != "Event" {
        return Err(Unrecordable::NotAnEvent { api_version: event.api_version.clone(), kind: event.kind.clone() });
    }
    if !event.stage.is_empty() && event.stage != "ResponseComplete" {
        return Ok(None);
    }
    let operation = match event.verb.as_str() {
        "create" => "CREATE",
        "update" | "patch" => "UPDATE",
        "delete" => "DELETE",
        _ => return Ok(None),
    };
    let Some(r) = &event.object_ref else { return Ok(None) };
    if matches!(event.level.as_str(), "Metadata" | "None") {
        return Err(Unrecordable::Level {
            verb: event.verb.clone(),
            resource: r.resource.clone(),
            level: event.level.clone(),
        });
    }
    let not_status = |v: &Option<Value>| v.clone().filter(|v| !v.is_null() && !is_status(v));
    let (object, old_object) = match event.verb.as_str() {
        "create" | "update" => {
            let object = not_status(&event.request_object).ok_or_else(|| Unrecordable::NoRequestObject {
                verb: event.verb.clone(),
                resource: r.resource.clone(),
            })?;
            (object, Value::Null)
        }
        "patch" => {
            let object =
                not_status(&event.response_object).ok_or_else(|| Unrecordable::NoPatchedObject(r.resource.clone()))?;
            (object, Value::Null)
        }
        _ => {
            let old =
                not_status(&event.response_object).ok_or_else(|| Unrecordable::NoDeletedObject(r.resource.clone()))?;
            (Value::Null, old)
        }
    };
    let source = if object.is_null() { &old_object } else { &object };
    let api_version = source.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let kind = source.get("kind").and_then(Value::as_str).unwrap_or_default();
    let user = event.impersonated_user.clone().filter(|u| !u.is_null()).unwrap_or_else(|| event.user.clone());
    let dry_run = event.request_uri.contains("dryRun=All");
    let mut request = Map::new();
    request.insert("uid".into(), json!(event.audit_id));
    request.insert("kind".into(), json!({"group": group, "version": version, "kind": kind}));
    request.insert("resource".into(), json!({"group": r.api_group, "version": r.api_version, "resource": r.resource}));
    if !r.subresource.is_empty() {
        request.insert("subResource".into(), json!(r.subresource));
    }
    let name = if r.name.is_empty() {
        source.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_string()
    } else {
        r.name.clone()
    };
    request.insert("name".into(), json!(name));
    if !r.namespace.is_empty() {
        request.insert("namespace".into(), json!(r.namespace));
    }
    request.insert("operation".into(), json!(operation));
    request.insert("userInfo".into(), user);
    request.insert("object".into(), object);
    request.insert("oldObject".into(), old_object);
    request.insert("dryRun".into(), json!(dry_run));
    Ok(Some(Value::Object(request)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_become_requests_and_bad_lines_are_reported_by_number() {
        let log = concat!(
            r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"a1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/team-a/configmaps?dryRun=All","verb":"create","user":{"username":"alice","groups":["dev"]},"objectRef":{"resource":"configmaps","namespace":"team-a","name":"c","apiVersion":"v1"},"requestObject":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}}"#,
            "\n",
            r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a2","stage":"ResponseComplete","verb":"get","objectRef":{"resource":"pods"}}"#,
            "\n",
            r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","auditID":"a3","stage":"ResponseComplete","verb":"delete","user":{"username":"bob"},"objectRef":{"resource":"pods","namespace":"team-a","name":"p","apiVersion":"v1"}}"#,
            "\n",
            r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request"#,
            "\n",
        );
        let c = convert("audit.log", log);
        assert_eq!(c.requests.len(), 1);
        let r = &c.requests[0].request;
        assert_eq!((r["operation"].as_str(), r["dryRun"].as_bool()), (Some("CREATE"), Some(true)));
        assert_eq!(r["kind"]["kind"], "ConfigMap");
        assert_eq!(c.passed_over, 1);
        assert_eq!(c.skipped.iter().map(|s| s.line).collect::<Vec<_>>(), vec![3, 4]);
        assert!(c.skipped[0].why.contains("no deleted object"), "{:?}", c.skipped);
        assert!(c.skipped[1].why.contains("not a JSON audit event"), "{:?}", c.skipped);
    }
}
