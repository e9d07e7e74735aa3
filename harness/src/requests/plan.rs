//! The requests a run sends to one webhook: every (resource, subresource, operation) its rules select,
//! in each object variant, in each AdmissionReview version it lists.

use serde_json::Value;

use super::case::RequestCase;
use super::fit::{fit, Selectors};
use super::objects::{self, Variant, NAMESPACE};
use super::resources::{targets_for, SubObject, Target};
use super::review::{default_user, AdmissionSpec};
use crate::admission::{GroupVersionResource, Gvk, Operation};
use crate::config::{WebhookKind, WebhookSpec};

fn variants_for(target: &Target) -> &'static [Variant] {
    match target.subresource.map(|s| s.object) {
        None | Some(SubObject::Parent) if objects::holds_pod_spec(&target.resource.kind) => &Variant::ALL,
        None | Some(SubObject::Parent) => &[Variant::Bare, Variant::Labelled],
        _ => &[Variant::Bare],
    }
}

/// The AdmissionSpec for one target and variant, as a webhook of `kind` would receive it.
pub fn admission_spec(target: &Target, variant: Variant, kind: WebhookKind) -> AdmissionSpec {
    let name = format!("demo-{}", variant.as_str());
    let fresh = objects::new_object(&target.resource, variant, &name);
    admission_spec_from(target, fresh, &name, kind)
}

/// The AdmissionSpec for one target built around `fresh`, the object as a client sends it on CREATE
/// (named `name`): the stored, updated and deleted forms are derived from it as the apiserver would.
pub fn admission_spec_from(target: &Target, fresh: Value, name: &str, kind: WebhookKind) -> AdmissionSpec {
    let resource = &target.resource;
    let name = name.to_string();
    let namespace = resource.namespaced.then(|| NAMESPACE.to_string());
    let stored = objects::stored(fresh.clone(), "5d3e1c9a-6a8f-4c0e-9a6e-0000000000aa", "1001");
    let op = target.operation;
    let (object_kind, object, old_object) = match target.subresource.map(|s| s.object) {
        None | Some(SubObject::Parent) => {
            let gvk = resource.gvk();
            match op {
                Operation::Create => {
                    // Mutating webhooks see the object before the registry fills uid and friends;
                    // validating webhooks see it filled.
                    let object = if kind == WebhookKind::Validating { stored.clone() } else { fresh };
                    (gvk, object, Value::Null)
                }
                Operation::Update => (gvk, objects::updated(&stored), stored),
                Operation::Delete => (gvk, Value::Null, stored),
                Operation::Connect => (gvk, Value::Null, Value::Null),
            }
        }
        Some(SubObject::Scale) => {
            let old = objects::scale(&name, "5d3e1c9a-6a8f-4c0e-9a6e-0000000000aa", 2);
            (
                Gvk::new("autoscaling", "v1", "Scale"),
                objects::scale(&name, "5d3e1c9a-6a8f-4c0e-9a6e-0000000000aa", 3),
                old,
            )
        }
        Some(SubObject::ConnectOptions(k)) => (Gvk::new("", "v1", k), objects::connect_options(k), Value::Null),
        Some(SubObject::Created(g, v, k)) => {
            let gvk = Gvk::new(g, v, k);
            let object = objects::created_through(&gvk, &name);
            (gvk, object, Value::Null)
        }
    };
    AdmissionSpec {
        operation: op,
        kind: object_kind,
        resource: GroupVersionResource::new(&resource.group, &resource.version, &resource.plural),
        sub_resource: target.subresource.map(|s| s.name.to_string()),
        name,
        namespace,
        object,
        old_object,
        dry_run: false,
        user: default_user(),
    }
}

/// Every request of the default run for `webhook`.
pub fn plan(webhook: &WebhookSpec) -> Vec<RequestCase> {
    let versions = webhook.review_versions();
    let selectors = Selectors::of(webhook);
    let mut cases = Vec::new();
    for target in targets_for(&webhook.rules) {
        let what = match target.subresource {
            Some(s) => format!("{} {}/{}", target.operation, target.resource.plural, s.name),
            None => format!("{} {}", target.operation, target.resource.plural),
        };
        for &variant in variants_for(&target) {
            let mut spec = admission_spec(&target, variant, webhook.kind);
            if !fit(&selectors, &mut spec) {
                continue;
            }
            for (i, version) in versions.iter().enumerate() {
                let label = format!("{what} ({})", variant.as_str());
                cases.push(RequestCase::new(label, *version, i == 0, spec.clone()));
            }
        }
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Manifest;

    fn reference() -> Manifest {
        Manifest::parse(std::path::Path::new("reference.yaml"), reference_webhook::MANIFEST).unwrap()
    }

    #[test]
    fn plans_every_operation_variant_and_version() {
        let m = reference();
        let mutating = &m.webhooks[0];
        let cases = plan(mutating);
        assert!(cases.iter().any(|c| c.label == "DELETE pods (bare)" && c.object().is_null()));
        assert!(cases.iter().any(|c| c.label == "UPDATE deployments/scale (bare)" && c.object()["kind"] == "Scale"));
        assert!(cases.iter().any(|c| c.version() == "v1beta1" && !c.primary));
        assert!(cases.iter().filter(|c| c.primary).all(|c| c.version() == "v1"));
        let uids: std::collections::HashSet<_> = cases.iter().map(|c| c.uid().to_string()).collect();
        assert_eq!(uids.len(), cases.len(), "every request has its own uid");
        let create = cases.iter().find(|c| c.label == "CREATE pods (bare)").unwrap();
        assert!(create.object()["metadata"].get("uid").is_none(), "mutating CREATE sees no uid yet");

        let validating = &m.webhooks[1];
        let cases = plan(validating);
        let create = cases.iter().find(|c| c.label == "CREATE pods (bare)").unwrap();
        assert!(create.object()["metadata"]["uid"].is_string(), "validating CREATE sees the stored object");
        assert!(cases.iter().any(|c| c.label == "CONNECT pods/exec (bare)" && c.object()["kind"] == "PodExecOptions"));
        assert!(cases.iter().any(|c| c.label.starts_with("CREATE namespaces") && c.spec.namespace.is_none()));
    }
}
