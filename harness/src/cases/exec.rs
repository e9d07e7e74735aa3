//! Running a case as the apiserver admits a request: the mutating webhooks that select it in manifest
//! order (each sees the object the previous one patched), then the validating webhooks on the final
//! object; a denial or a rejected answer stops the admission.

use std::sync::Arc;

use serde_json::{json, Value};

use super::load::Case;
use crate::checks::{Exchange, Finding};
use crate::client::Client;
use crate::config::{WebhookKind, WebhookSpec};
use crate::requests::{
    connect_options, default_user, scale, stored, targets_for, AdmissionSpec, Gvk, Operation, RequestCase, SubObject,
};
use crate::rules::Outcome;
use crate::run::{exchange, ExchangeRecord};

/// The uid the registry gives a stored object in cases that do not give one.
pub const CASE_UID: &str = "5d3e1c9a-6a8f-4c0e-9a6e-0000000000cc";

/// How the admission of one case ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Allowed,
    /// Denied by a webhook: (webhook, message).
    Denied(String, String),
    /// The apiserver rejected a webhook's answer (a FAIL rule): (webhook, rule, what it says).
    Rejected(String, String, String),
    /// No webhook of the manifest selects the case.
    NotSelected,
}

impl Decision {
    pub fn as_str(&self) -> &'static str {
        match self {
            Decision::Allowed => "allowed",
            Decision::Denied(..) => "denied",
            Decision::Rejected(..) => "rejected",
            Decision::NotSelected => "not selected",
        }
    }
}

/// What happened to one case.
#[derive(Clone, Debug)]
pub struct CaseRun {
    pub records: Vec<ExchangeRecord>,
    pub decision: Decision,
    /// The object after every mutating webhook's patch (`Value::Null` when the request has none).
    pub final_object: Value,
    pub warnings: Vec<String>,
}

/// The webhooks of `webhooks` the case goes to: the one it names, or every one whose rules select
/// its resource, subresource and operation. Mutating first, each kind in manifest order.
pub fn webhooks_for<'a>(case: &Case, webhooks: &'a [WebhookSpec]) -> Result<Vec<&'a WebhookSpec>, String> {
    let selected: Vec<&WebhookSpec> = match &case.webhook {
        Some(name) => {
            let found: Vec<_> = webhooks.iter().filter(|w| &w.name == name).collect();
            if found.is_empty() {
                let known: Vec<_> = webhooks.iter().map(|w| w.name.as_str()).collect();
                return Err(format!("webhook {name:?} is not in the manifest (it holds {})", known.join(", ")));
            }
            found
        }
        None => webhooks
            .iter()
            .filter(|w| {
                targets_for(&w.rules).iter().any(|t| {
                    t.resource.group == case.resource.group
                        && t.resource.plural == case.resource.plural
                        && t.subresource.map(|s| s.name) == case.subresource.map(|s| s.name)
                        && t.operation == case.operation
                })
            })
            .collect(),
    };
    let mut ordered: Vec<&WebhookSpec> = selected.iter().copied().filter(|w| w.kind == WebhookKind::Mutating).collect();
    ordered.extend(selected.iter().copied().filter(|w| w.kind == WebhookKind::Validating));
    Ok(ordered)
}

fn with_type_meta(mut object: Value, gvk: &Gvk) -> Value {
    if let Some(m) = object.as_object_mut() {
        m.entry("apiVersion").or_insert_with(|| json!(gvk.api_version()));
        m.entry("kind").or_insert_with(|| json!(gvk.kind));
    }
    object
}

fn is_stored(object: &Value) -> bool {
    object.get("metadata").and_then(|m| m.get("uid")).is_some()
}

fn stored_form(object: Value) -> Value {
    if object.is_null() || is_stored(&object) {
        object
    } else {
        stored(object, CASE_UID, "1001")
    }
}

/// The AdmissionSpec of `case` for a webhook of `kind`, around `current` (the case's object as
/// the previous mutating webhooks left it), with the fields the apiserver fills.
pub fn admission_spec(case: &Case, kind: WebhookKind, current: &Value) -> AdmissionSpec {
    let resource = &case.resource;
    let sub = case.subresource.map(|s| s.object);
    let (gvk, object, old_object) = match sub {
        None | Some(SubObject::Parent) => {
            let gvk = resource.gvk();
            let current = with_type_meta(current.clone(), &gvk);
            let old = with_type_meta(case.old_object.clone(), &gvk);
            match case.operation {
                // Mutating webhooks see the object before the registry fills uid and friends.
                Operation::Create if kind == WebhookKind::Mutating => (gvk, current, Value::Null),
                Operation::Create => (gvk, stored_form(current), Value::Null),
                Operation::Update => {
                    let old = if old.is_null() { stored_form(current.clone()) } else { stored_form(old) };
                    (gvk, stored_form(current), old)
                }
                // The object being deleted is sent as oldObject; object is null.
                Operation::Delete => {
                    let old = if old.is_null() { current } else { old };
                    (gvk, Value::Null, stored_form(old))
                }
                Operation::Connect => (gvk, Value::Null, Value::Null),
            }
        }
        Some(SubObject::Scale) => {
            let gvk = Gvk::new("autoscaling", "v1", "Scale");
            let object = if current.is_null() {
                scale(&case.object_name, CASE_UID, 3)
            } else {
                with_type_meta(current.clone(), &gvk)
            };
            let old = if case.old_object.is_null() {
                scale(&case.object_name, CASE_UID, 2)
            } else {
                with_type_meta(case.old_object.clone(), &gvk)
            };
            (gvk, object, old)
        }
        Some(SubObject::ConnectOptions(k)) => {
            let gvk = Gvk::new("", "v1", k);
            let object = if current.is_null() { connect_options(k) } else { with_type_meta(current.clone(), &gvk) };
            (gvk, object, Value::Null)
        }
        Some(SubObject::Created(g, v, k)) => {
            let gvk = Gvk::new(g, v, k);
            let object = with_type_meta(current.clone(), &gvk);
            (gvk, object, Value::Null)
        }
    };
    AdmissionSpec {
        operation: case.operation,
        kind: gvk,
        resource: (resource.group.clone(), resource.version.clone(), resource.plural.clone()),
        sub_resource: case.subresource.map(|s| s.name.to_string()),
        name: case.object_name.clone(),
        namespace: case.namespace.clone(),
        object,
        old_object,
        dry_run: case.dry_run,
        user: case.user_info.clone().unwrap_or_else(default_user),
    }
}

/// The request sent to `webhook` for `case` around `current`, in the version a cluster sends.
pub fn request_case(case: &Case, webhook: &WebhookSpec, current: &Value) -> RequestCase {
    let spec = admission_spec(case, webhook.kind, current);
    RequestCase::new(format!("case {}: {}", case.name, case.what()), webhook.primary_review_version(), true, spec)
}

/// Do the webhook's namespaceSelector and objectSelector select the case's request as it is?
fn selected_by(webhook: &WebhookSpec, request: &RequestCase) -> bool {
    let Ok(selectors) = crate::requests::Selectors::of(webhook) else { return false };
    let mut fitted = request.spec.clone();
    crate::requests::fit_selectors(&selectors, &mut fitted)
        && fitted.object == request.spec.object
        && fitted.old_object == request.spec.old_object
        && fitted.namespace == request.spec.namespace
}

fn first_fail(findings: &[Finding]) -> Option<&Finding> {
    findings.iter().find(|f| f.outcome == Outcome::Fail)
}

/// Admit `case` through `webhooks` (already chosen by [`webhooks_for`]).
pub async fn run_case(client: &Client, case: &Case, webhooks: &[&WebhookSpec]) -> CaseRun {
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    let mut current = case.object.clone();
    if webhooks.is_empty() {
        return CaseRun { records, decision: Decision::NotSelected, final_object: current, warnings };
    }
    let mut decision = Decision::Allowed;
    for webhook in webhooks {
        let request = request_case(case, webhook, &current);
        if !selected_by(webhook, &request) {
            // The apiserver does not call a webhook whose selectors leave this object out.
            continue;
        }
        let record = exchange(client, Arc::new((*webhook).clone()), request).await;
        let x = Exchange::new(&record.webhook, &record.case, &record.transport, &record.url);
        if let Some(list) = x.response().and_then(|r| r.get("warnings")).and_then(Value::as_array) {
            warnings.extend(list.iter().filter_map(Value::as_str).map(String::from));
        }
        if let Some(f) = first_fail(&record.findings) {
            let says = f.apiserver_message.clone().or_else(|| f.detail.clone()).unwrap_or_default();
            decision = Decision::Rejected(webhook.name.clone(), f.rule.to_string(), says);
        } else if x.allowed() != Some(true) {
            let status = x.response().and_then(|r| r.get("status"));
            let text = |k: &str| status.and_then(|s| s.get(k)).and_then(Value::as_str).unwrap_or_default().to_string();
            let message = if text("message").is_empty() { text("reason") } else { text("message") };
            decision = Decision::Denied(webhook.name.clone(), message);
        } else if webhook.kind == WebhookKind::Mutating {
            // The next webhook sees the patched object.
            if let Some(Ok(patched)) = x.patched() {
                current = patched.clone();
            }
        }
        let stop = decision != Decision::Allowed;
        records.push(record);
        if stop {
            break;
        }
    }
    let final_object = current;
    CaseRun { records, decision, final_object, warnings }
}

/// The case's `expect:` held against what happened: `Ok(())` or every breach, one per line.
pub fn check_expectations(case: &Case, run: &CaseRun) -> Result<(), String> {
    let e = &case.expect;
    let mut breaches = Vec::new();
    if let Some(allowed) = e.allowed {
        let got = run.decision == Decision::Allowed;
        if got != allowed || run.decision == Decision::NotSelected {
            let detail = match &run.decision {
                Decision::Denied(w, m) => format!(" by {w}: {m:?}"),
                Decision::Rejected(w, r, m) => format!(" ({r} of {w}: {m})"),
                _ => String::new(),
            };
            breaches.push(format!(
                "expected the request to be {}, it was {}{detail}",
                if allowed { "allowed" } else { "denied" },
                run.decision.as_str()
            ));
        }
    }
    if let Some(sub) = &e.message {
        match &run.decision {
            Decision::Denied(_, m) | Decision::Rejected(_, _, m) if m.contains(sub.as_str()) => {}
            Decision::Denied(_, m) | Decision::Rejected(_, _, m) => {
                breaches.push(format!("expected the message to contain {sub:?}; it is {m:?}"))
            }
            other => breaches
                .push(format!("expected a denial message containing {sub:?}; the request was {}", other.as_str())),
        }
    }
    if let Some(sub) = &e.warning {
        if !run.warnings.iter().any(|w| w.contains(sub.as_str())) {
            breaches.push(format!("expected a warning containing {sub:?}; warnings: {:?}", run.warnings));
        }
    }
    for (path, value) in &e.has {
        match (run.final_object.pointer(path), value) {
            (None, _) => breaches.push(format!("expected the resulting object to have {path}; it does not")),
            (Some(got), Some(want)) if got != want => {
                breaches.push(format!("expected {path} to be {want}; it is {got}"))
            }
            _ => {}
        }
    }
    for path in &e.lacks {
        if let Some(got) = run.final_object.pointer(path) {
            breaches.push(format!("expected the resulting object to lack {path}; it is {got}"));
        }
    }
    if breaches.is_empty() {
        Ok(())
    } else {
        Err(breaches.join("\n"))
    }
}
