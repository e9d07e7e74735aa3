//! The validating webhook's decision.

use serde_json::Value;

/// A label with the value `"true"` makes the validating webhook deny the request.
pub const DENY_LABEL: &str = "conformance.example/deny";
/// An annotation (any value) makes the validating webhook send a warning.
pub const WARN_ANNOTATION: &str = "conformance.example/warn";
/// The denial message.
pub const DENY_MESSAGE: &str = "label conformance.example/deny is set to true";
/// The denial message for a privileged container.
pub const PRIVILEGED_MESSAGE: &str = "privileged containers are not allowed";
/// The warning sent when [`WARN_ANNOTATION`] is present.
pub const WARNING: &str = "conformance.example/warn is set";

/// What the validating webhook decides about one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Whether the request is allowed.
    pub allowed: bool,
    /// Why, when denied.
    pub message: &'static str,
    /// The warnings returned with the answer.
    pub warnings: Vec<String>,
}

/// The object judged: `request.object`, or `request.oldObject` when the object is null or absent
/// (DELETE).
pub fn judged_object(request: &Value) -> &Value {
    match request.get("object") {
        Some(object) if !object.is_null() => object,
        _ => request.get("oldObject").unwrap_or(&Value::Null),
    }
}

fn metadata_entry<'a>(object: &'a Value, field: &str, key: &str) -> Option<&'a Value> {
    object.get("metadata")?.get(field)?.as_object()?.get(key)
}

/// Decides on `request` (the AdmissionReview's `request` member).
pub fn verdict(request: &Value) -> Verdict {
    let object = judged_object(request);
    let labelled = metadata_entry(object, "labels", DENY_LABEL).and_then(Value::as_str) == Some("true");
    let privileged = has_privileged_container(object);
    let denied = labelled || privileged;
    let message = if labelled {
        DENY_MESSAGE
    } else if privileged {
        PRIVILEGED_MESSAGE
    } else {
        ""
    };
    let warnings = if metadata_entry(object, "annotations", WARN_ANNOTATION).is_some() {
        vec![WARNING.to_string()]
    } else {
        Vec::new()
    };
    Verdict { allowed: !denied, message, warnings }
}

/// The pod spec of a Pod, of a workload's template, or of a CronJob's job template.
fn pod_spec(object: &Value) -> Option<&Value> {
    let spec = object.get("spec")?;
    if spec.get("containers").is_some() {
        return Some(spec);
    }
    if let Some(t) = spec.get("template").and_then(|t| t.get("spec")) {
        return Some(t);
    }
    spec.get("jobTemplate")?.get("spec")?.get("template")?.get("spec")
}

/// Does any container or init container ask for `securityContext.privileged: true`?
pub fn has_privileged_container(object: &Value) -> bool {
    let Some(spec) = pod_spec(object) else { return false };
    ["containers", "initContainers"].iter().any(|field| {
        spec.get(field).and_then(Value::as_array).is_some_and(|list| {
            list.iter().any(|c| c.pointer("/securityContext/privileged") == Some(&Value::Bool(true)))
        })
    })
}
