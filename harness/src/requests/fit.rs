//! namespaceSelector and objectSelector: the apiserver calls a webhook only for objects (and
//! namespaces) they select (`generic/webhook.go` ShouldCallHook, `object/matcher.go`,
//! `namespace/matcher.go`). Requests are fitted to them, so the suite never sends what a cluster would
//! not: a required label is set on the object, a namespace the selector names is used, and a request
//! no object could make match (e.g. a Scale, which has no labels, under a label-requiring
//! objectSelector) is not sent at all.

use serde_json::{Map, Value};

use super::review::AdmissionSpec;
use crate::config::{LabelSelector, WebhookSpec, NAMESPACE_NAME_LABEL};

/// A webhook's selectors.
#[derive(Clone, Debug, Default)]
pub(crate) struct Selectors {
    pub object: Option<LabelSelector>,
    pub namespace: Option<LabelSelector>,
}

impl Selectors {
    /// The webhook's selectors (manifest loading has checked that they parse).
    pub(crate) fn of(webhook: &WebhookSpec) -> Selectors {
        let parse = |v: &Option<Value>| LabelSelector::parse(v.as_ref()).ok().flatten();
        Selectors { object: parse(&webhook.object_selector), namespace: parse(&webhook.namespace_selector) }
    }
}

/// Objects whose labels are the user's to set: not a Scale (which carries none), not connect options
/// or objects created through a subresource.
pub(super) fn labels_are_free(spec: &AdmissionSpec) -> bool {
    let kind = spec.kind.kind.as_str();
    kind != "Scale"
        && !kind.ends_with("Options")
        && !matches!(spec.sub_resource.as_deref(), Some("eviction" | "binding" | "token"))
}

fn labels_of(object: &Value) -> Option<Map<String, Value>> {
    let meta = object.get("metadata")?.as_object()?;
    Some(meta.get("labels").and_then(Value::as_object).cloned().unwrap_or_default())
}

fn fit_object_labels(selector: &LabelSelector, object: &mut Value) {
    let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else { return };
    let mut labels = meta.get("labels").and_then(Value::as_object).cloned().unwrap_or_default();
    if selector.matches(&labels) {
        return;
    }
    selector.satisfy(&mut labels);
    meta.insert("labels".into(), Value::Object(labels));
}

/// Does `selector` select `object` or `old_object`, as the object matcher reads them (a null object,
/// or one without metadata, never matches)?
fn selects_either(selector: &LabelSelector, spec: &AdmissionSpec) -> bool {
    [&spec.object, &spec.old_object].iter().any(|o| labels_of(o).is_some_and(|l| selector.matches(&l)))
}

/// Fit `spec` to the webhook's selectors; false when the apiserver would not call the webhook for
/// any object of this shape (then the request is not sent).
pub(crate) fn fit(selectors: &Selectors, spec: &mut AdmissionSpec) -> bool {
    let free = labels_are_free(spec);
    if let Some(selector) = &selectors.object {
        if free {
            fit_object_labels(selector, &mut spec.object);
            fit_object_labels(selector, &mut spec.old_object);
        }
        if !selects_either(selector, spec) {
            return false;
        }
    }
    if let Some(selector) = &selectors.namespace {
        if spec.kind.kind == "Namespace" && spec.namespace.is_none() {
            // A Namespace is matched by its own labels.
            if free {
                fit_object_labels(selector, &mut spec.object);
                fit_object_labels(selector, &mut spec.old_object);
            }
            let own = if spec.object.is_null() { &spec.old_object } else { &spec.object };
            return labels_of(own).is_some_and(|l| selector.matches(&l));
        }
        let Some(namespace) = spec.namespace.clone() else {
            // Cluster-scoped objects always pass the namespaceSelector.
            return true;
        };
        let name = match selector.allowed_values(NAMESPACE_NAME_LABEL) {
            Some(names) if !names.contains(&namespace) => match names.first() {
                Some(n) => n.clone(),
                None => return false,
            },
            _ => namespace.clone(),
        };
        let mut labels = Map::new();
        labels.insert(NAMESPACE_NAME_LABEL.into(), Value::String(name.clone()));
        // Other labels of the namespace are the cluster's to set; assume a namespace that has them.
        selector.satisfy(&mut labels);
        if labels.get(NAMESPACE_NAME_LABEL).and_then(Value::as_str) != Some(name.as_str()) || !selector.matches(&labels)
        {
            return false;
        }
        if name != namespace {
            move_to_namespace(spec, &name);
        }
    }
    true
}

/// The same request in namespace `name` (a namespaced request's objects move with it).
pub(crate) fn move_to_namespace(spec: &mut AdmissionSpec, name: &str) {
    if spec.namespace.is_none() {
        return;
    }
    spec.namespace = Some(name.to_string());
    for o in [&mut spec.object, &mut spec.old_object] {
        if let Some(meta) = o.get_mut("metadata").and_then(Value::as_object_mut) {
            if meta.contains_key("namespace") {
                meta.insert("namespace".into(), Value::String(name.to_string()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::Operation;
    use crate::config::WebhookKind;
    use crate::requests::{admission_spec, built_ins, Selected, SubObject, Variant};
    use serde_json::json;

    fn target(plural: &str, sub: Option<&str>, op: Operation) -> Selected {
        let resource = built_ins().iter().find(|r| r.plural == plural).unwrap().clone();
        let subresource = sub.map(|s| *resource.subresources.iter().find(|x| x.name == s).unwrap());
        Selected { resource, subresource, operation: op, named: true, converted_from: None }
    }

    fn selectors(object: Value, namespace: Value) -> Selectors {
        Selectors {
            object: LabelSelector::parse(Some(&object)).unwrap(),
            namespace: LabelSelector::parse(Some(&namespace)).unwrap(),
        }
    }

    #[test]
    fn bare_objects_get_the_labels_the_object_selector_requires() {
        let s = selectors(json!({"matchLabels": {"inject": "true"}}), json!({}));
        let mut spec = admission_spec(&target("pods", None, Operation::Create), Variant::Bare, WebhookKind::Mutating);
        assert!(fit(&s, &mut spec));
        assert_eq!(spec.object["metadata"]["labels"]["inject"], "true");
        let mut delete = admission_spec(&target("pods", None, Operation::Delete), Variant::Bare, WebhookKind::Mutating);
        assert!(fit(&s, &mut delete));
        assert_eq!(delete.old_object["metadata"]["labels"]["inject"], "true");
    }

    #[test]
    fn scale_and_connect_requests_never_match_a_label_requiring_object_selector() {
        let s = selectors(json!({"matchLabels": {"inject": "true"}}), json!({}));
        let mut scale = admission_spec(
            &target("deployments", Some("scale"), Operation::Update),
            Variant::Bare,
            WebhookKind::Mutating,
        );
        assert_eq!(scale.kind.kind, "Scale");
        assert!(!fit(&s, &mut scale));
        let mut exec =
            admission_spec(&target("pods", Some("exec"), Operation::Connect), Variant::Bare, WebhookKind::Validating);
        assert!(!fit(&s, &mut exec));
        // Without a selector they are sent.
        assert!(fit(&Selectors::default(), &mut exec));
        let _ = SubObject::Scale;
    }

    #[test]
    fn namespace_selectors_pick_the_namespace() {
        let s = selectors(
            json!({}),
            json!({"matchExpressions": [{"key": NAMESPACE_NAME_LABEL, "operator": "In", "values": ["prod"]}]}),
        );
        let mut spec = admission_spec(&target("pods", None, Operation::Create), Variant::Bare, WebhookKind::Mutating);
        assert!(fit(&s, &mut spec));
        assert_eq!(spec.namespace.as_deref(), Some("prod"));
        assert_eq!(spec.object["metadata"]["namespace"], "prod");
        let excluded = selectors(
            json!({}),
            json!({"matchExpressions": [{"key": NAMESPACE_NAME_LABEL, "operator": "NotIn", "values": [crate::requests::NAMESPACE]}]}),
        );
        let mut spec = admission_spec(&target("pods", None, Operation::Create), Variant::Bare, WebhookKind::Mutating);
        assert!(!fit(&excluded, &mut spec));
        // A cluster-scoped object other than a Namespace always passes.
        let mut ns =
            admission_spec(&target("namespaces", None, Operation::Create), Variant::Bare, WebhookKind::Mutating);
        let team = selectors(json!({}), json!({"matchLabels": {"team": "a"}}));
        assert!(fit(&team, &mut ns), "a Namespace is fitted by its own labels");
        assert_eq!(ns.object["metadata"]["labels"]["team"], "a");
    }
}
