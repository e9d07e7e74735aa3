//! A case as the requests the apiserver would send for it: which webhooks it goes to, the request
//! each gets, and what the admission came to ([`CaseRun`]).

use serde_json::{json, Value};

use super::load::Case;
use crate::admission::{GroupVersionResource, Gvk, Operation};
use crate::config::{WebhookKind, WebhookSpec};
use crate::exchange::ExchangeRecord;
use crate::requests::{
    connect_options, created, default_user, fit_selectors, scale, selected_by_rules, stored, AdmissionSpec,
    ApiResources, RequestCase, Selectors, SubObject,
};

/// The uid the registry gives a stored object in cases that do not give one.
pub(crate) const CASE_UID: &str = "5d3e1c9a-6a8f-4c0e-9a6e-0000000000cc";

/// How the admission of one case ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Every webhook that was called allowed it.
    Allowed,
    /// Denied by a webhook: (webhook, message).
    Denied(String, String),
    /// The apiserver rejected a webhook's answer (a FAIL rule): (webhook, rule, what it says).
    Rejected(String, String, String),
    /// No webhook of the manifest selects the case.
    NotSelected,
    /// The request was never sent to a webhook (it had stopped answering): (webhook, why).
    NotSent(String, String),
}

impl Decision {
    /// `allowed`, `denied`, `rejected`, `not selected` or `not sent`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Decision::Allowed => "allowed",
            Decision::Denied(..) => "denied",
            Decision::Rejected(..) => "rejected",
            Decision::NotSelected => "not selected",
            Decision::NotSent(..) => "not sent",
        }
    }
}

/// What happened to one case.
#[derive(Clone, Debug)]
pub(crate) struct CaseRun {
    pub records: Vec<ExchangeRecord>,
    pub decision: Decision,
    /// The object after every mutating webhook's patch (`Value::Null` when the request has none).
    pub final_object: Value,
    pub warnings: Vec<String>,
}

/// A case names a webhook the manifest does not hold.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("webhook {name:?} is not in the manifest (it holds {})", known.join(", "))]
pub(crate) struct UnknownWebhook {
    /// The name the case gives.
    pub name: String,
    /// The manifest's webhooks.
    pub known: Vec<String>,
}

/// The webhooks of `webhooks` the case goes to: the one it names, or every one whose rules select
/// its resource, subresource and operation among the resources of `api`. Mutating first, each kind
/// in manifest order.
pub(crate) fn webhooks_for<'a>(
    case: &Case,
    webhooks: &'a [WebhookSpec],
    api: &ApiResources,
) -> Result<Vec<&'a WebhookSpec>, UnknownWebhook> {
    let selected: Vec<&WebhookSpec> = match &case.webhook {
        Some(name) => {
            let found: Vec<_> = webhooks.iter().filter(|w| &w.name == name).collect();
            if found.is_empty() {
                let known = webhooks.iter().map(|w| w.name.clone()).collect();
                return Err(UnknownWebhook { name: name.clone(), known });
            }
            found
        }
        None => webhooks
            .iter()
            .filter(|w| {
                selected_by_rules(&w.rules, api).iter().any(|t| {
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
pub(crate) fn admission_spec(case: &Case, kind: WebhookKind, current: &Value) -> AdmissionSpec {
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
                // Validating webhooks see it as the registry prepared it, before storage.
                Operation::Create if is_stored(&current) => (gvk, current, Value::Null),
                Operation::Create => (gvk, created(current, CASE_UID), Value::Null),
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
            let ns = case.namespace.as_deref();
            let object = if current.is_null() {
                scale(&case.object_name, ns, CASE_UID, 3)
            } else {
                with_type_meta(current.clone(), &gvk)
            };
            let old = if case.old_object.is_null() {
                scale(&case.object_name, ns, CASE_UID, 2)
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
        resource: GroupVersionResource::new(&resource.group, &resource.version, &resource.plural),
        sub_resource: case.subresource.map(|s| s.name.to_string()),
        request_kind: None,
        request_resource: None,
        name: case.object_name.clone(),
        namespace: case.namespace.clone(),
        object: object.into(),
        old_object: old_object.into(),
        dry_run: case.dry_run,
        deletion: Default::default(),
        user: case.user_info.clone().unwrap_or_else(default_user),
        // A case file holds the objects as the apiserver sent them: they are not defaulted again.
        sent_defaulted: false,
    }
}

/// The request sent to `webhook` for `case` around `current`, in the version a cluster sends.
/// A custom resource of a CRD the run was given carries its version's schema (not a subresource's
/// own kind, such as a Scale), so that `object.valid` holds the patched object to it.
pub(crate) fn request_case(case: &Case, webhook: &WebhookSpec, current: &Value) -> RequestCase {
    let spec = admission_spec(case, webhook.kind, current);
    let schema = match case.subresource.map(|s| s.object) {
        None | Some(SubObject::Parent) => case.resource.crd_schema(),
        Some(_) => None,
    };
    RequestCase::new(format!("case {}: {}", case.name, case.what()), webhook.primary_review_version(), true, spec)
        .with_schema(schema)
}

/// Do the webhook's namespaceSelector and objectSelector select the case's request as it is?
pub(crate) fn selected_by(webhook: &WebhookSpec, request: &RequestCase) -> bool {
    let selectors = Selectors::of(webhook);
    let mut fitted = request.spec.clone();
    fit_selectors(&selectors, &mut fitted)
        && fitted.object == request.spec.object
        && fitted.old_object == request.spec.old_object
        && fitted.namespace == request.spec.namespace
}
