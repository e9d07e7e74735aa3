//! The requests a run sends to one webhook: every (resource, subresource, operation) its rules select,
//! in each object variant, in each AdmissionReview version it lists.
//!
//! Targets a rule names get every variant in every version. Targets reached only through a wildcard
//! (`*`, `*/*`, `*/scale`) are sampled so that a rule on `*` (a hundred resources) stays a few hundred
//! requests: each gets one variant, taken in turn from the ones its kind has, in the version a
//! cluster sends; the first wildcard target of each operation is also sent in the other versions.
//! Requests are steered to satisfy the webhook's matchConditions; one none satisfies is not sent.

use serde_json::Value;

use super::case::RequestCase;
use super::conditions::steer;
use super::decoded;
use super::fit::{fit, Selectors};
use super::managed_fields;
use super::objects::{self, Variant, NAMESPACE};
use super::owned::{self, Maker};
use super::resources::{selected, ApiResources, Selected, SubObject};
use super::review::{default_user, AdmissionSpec, Deletion};
use crate::admission::{GroupVersionResource, Gvk, Operation};
use crate::conditions::MatchConditions;
use crate::config::{WebhookKind, WebhookSpec};

/// The uid of the stored object in planned and generated requests.
const STORED_UID: &str = "5d3e1c9a-6a8f-4c0e-9a6e-0000000000aa";

/// The variants that mean something for a target.
pub(crate) fn variants_for(target: &Selected) -> &'static [Variant] {
    if target.resource.review {
        return &[Variant::Bare];
    }
    match target.subresource.map(|s| s.object) {
        None | Some(SubObject::Parent) if objects::holds_pod_spec(&target.resource.kind) => &Variant::ALL,
        None | Some(SubObject::Parent) => &[Variant::Bare, Variant::Labelled],
        _ => &[Variant::Bare],
    }
}

/// The AdmissionSpec for one target and variant, as a webhook of `kind` would receive it.
pub(crate) fn admission_spec(target: &Selected, variant: Variant, kind: WebhookKind) -> AdmissionSpec {
    let name = format!("demo-{}", variant.as_str());
    let fresh = objects::new_object(&target.resource, variant, &name);
    let mut spec = admission_spec_from(target, fresh, &name, kind);
    // Each variant deleted as kubectl deletes in one of its ways.
    spec.deletion = match variant {
        Variant::Bare => Deletion::Kubectl,
        // A kind with dependents (a Deployment's ReplicaSets, a Job's pods) may be left orphaned.
        Variant::Labelled if target.resource.kind != "Pod" && objects::holds_pod_spec(&target.resource.kind) => {
            Deletion::Orphan
        }
        Variant::Labelled => Deletion::Foreground,
        Variant::Risky => Deletion::Force,
    };
    spec
}

/// The AdmissionSpec for one target built around `fresh`, the object as a client sends it on CREATE
/// (named `name`): the stored, updated and deleted forms are derived from it as the apiserver would,
/// and every object is sent defaulted as the apiserver's decoder defaults it
/// ([`decoded::default_objects`]).
pub(crate) fn admission_spec_from(target: &Selected, fresh: Value, name: &str, kind: WebhookKind) -> AdmissionSpec {
    let resource = &target.resource;
    // Reviews are never stored and carry no name.
    let name = if resource.review { String::new() } else { name.to_string() };
    let namespace = resource.namespaced.then(|| NAMESPACE.to_string());
    // The stored form is built only where the request carries it (moved, not copied).
    let stored = move |fresh: Value| objects::stored(fresh, STORED_UID, "1001");
    let op = target.operation;
    let (object_kind, object, old_object) = match target.subresource {
        None => {
            let gvk = resource.gvk();
            match op {
                // Mutating webhooks see the object before the registry fills uid and friends;
                // validating webhooks see it filled, not yet stored (reviews are never stored).
                Operation::Create if kind == WebhookKind::Mutating || resource.review => (gvk, fresh, Value::Null),
                Operation::Create => (gvk, objects::created(fresh, STORED_UID), Value::Null),
                Operation::Update => {
                    let stored = stored(fresh);
                    (gvk, objects::updated(&stored), stored)
                }
                Operation::Delete => (gvk, Value::Null, stored(fresh)),
                Operation::Connect => (gvk, Value::Null, Value::Null),
            }
        }
        Some(sub) => match sub.object {
            SubObject::Parent => {
                let stored = stored(fresh);
                (resource.gvk(), objects::updated_through(resource, sub.name, &stored), stored)
            }
            SubObject::Scale => (
                Gvk::new("autoscaling", "v1", "Scale"),
                objects::scale(&name, namespace.as_deref(), STORED_UID, 3),
                objects::scale(&name, namespace.as_deref(), STORED_UID, 2),
            ),
            SubObject::ConnectOptions(k) => (Gvk::new("", "v1", k), objects::connect_options(k), Value::Null),
            SubObject::Created(g, v, k) => {
                let gvk = Gvk::new(g, v, k);
                let object = objects::created_through(&gvk, &name, namespace.as_deref());
                (gvk, object, Value::Null)
            }
        },
    };
    let (request_kind, request_resource) = match &target.converted_from {
        Some(from) => (Some(from.gvk()), Some(GroupVersionResource::new(&from.group, &from.version, &from.plural))),
        None => (None, None),
    };
    let mut spec = AdmissionSpec {
        operation: op,
        kind: object_kind,
        resource: GroupVersionResource::new(&resource.group, &resource.version, &resource.plural),
        sub_resource: target.subresource.map(|s| s.name.to_string()),
        request_kind,
        request_resource,
        name,
        namespace,
        object: object.into(),
        old_object: old_object.into(),
        dry_run: false,
        deletion: Deletion::default(),
        user: default_user(),
        sent_defaulted: false,
    };
    // The objects as the decoder hands them to admission; a custom resource's schema is its own
    // kind's, not a subresource's (Scale, options).
    let schema = match target.subresource.map(|s| s.object) {
        None | Some(SubObject::Parent) => resource.crd_schema(),
        Some(_) => None,
    };
    decoded::default_objects(&mut spec, schema.as_deref());
    spec
}

/// Every request of the default run for `webhook`, among the built-in resources.
pub fn plan(webhook: &WebhookSpec) -> Vec<RequestCase> {
    plan_in(webhook, &ApiResources::built_in())
}

/// Every request of the default run for `webhook`, among the resources of `api`.
pub(crate) fn plan_in(webhook: &WebhookSpec, api: &ApiResources) -> Vec<RequestCase> {
    let versions = webhook.review_versions();
    let selectors = Selectors::of(webhook);
    let mut cases = Vec::new();
    let mut wildcard_index = 0usize;
    let mut wildcard_ops_seen = Vec::new();
    // The first CREATE of a stored object a rule names, and of a ConfigMap: sent at the limits.
    let mut limit_targets: Vec<(Selected, Limit)> = Vec::new();
    for target in selected(webhook, api) {
        let plain_create = target.named
            && target.converted_from.is_none()
            && target.subresource.is_none()
            && target.operation == Operation::Create
            && !target.resource.review;
        if plain_create && !limit_targets.iter().any(|(_, l)| *l == Limit::Annotations) {
            limit_targets.push((target.clone(), Limit::Annotations));
        }
        if plain_create && target.resource.group.is_empty() && target.resource.kind == "ConfigMap" {
            limit_targets.push((target.clone(), Limit::ConfigMapData));
        }
        let what = target.describe();
        let all = variants_for(&target);
        // Sampling for targets only a wildcard reaches, and for converted requests.
        let sampled = !target.named || target.converted_from.is_some();
        let (variants, versions): (Vec<Variant>, &[_]) = if sampled {
            let variant = all[wildcard_index % all.len()];
            wildcard_index += 1;
            let first_of_op = target.converted_from.is_none() && !wildcard_ops_seen.contains(&target.operation);
            if first_of_op {
                wildcard_ops_seen.push(target.operation);
            }
            (vec![variant], if first_of_op { &versions[..] } else { &versions[..1] })
        } else {
            (all.to_vec(), &versions[..])
        };
        for variant in variants {
            let mut spec = admission_spec(&target, variant, webhook.kind);
            if !fit(&selectors, &mut spec) || !steer(&webhook.conditions, &selectors, &mut spec) {
                continue;
            }
            managed_fields::record(&mut spec);
            for (i, version) in versions.iter().enumerate() {
                let label = format!("{what} ({})", variant.as_str());
                cases.push(
                    RequestCase::new(label, *version, i == 0, spec.clone()).with_schema(target.resource.crd_schema()),
                );
            }
        }
        // Objects as the cluster's controllers make them, for every target a rule names.
        if sampled || target.subresource.is_some() {
            continue;
        }
        for &maker in Maker::of(&target.resource) {
            let Some(mut spec) = controller_made(&target, maker, webhook.kind) else { continue };
            if !fit(&selectors, &mut spec) || !steer(&webhook.conditions, &selectors, &mut spec) {
                continue;
            }
            for (i, version) in versions.iter().enumerate() {
                cases.push(
                    RequestCase::new(format!("{what} ({})", maker.label()), *version, i == 0, spec.clone())
                        .with_schema(target.resource.crd_schema()),
                );
            }
        }
    }
    // At the limits: in the version a cluster sends only (the size is what is judged, not the version).
    for (target, limit) in limit_targets {
        let mut spec = admission_spec(&target, Variant::Bare, webhook.kind);
        limit.apply(&mut spec.object, webhook.kind);
        if !fit(&selectors, &mut spec) || !steer(&webhook.conditions, &selectors, &mut spec) {
            continue;
        }
        let label = format!("{} ({})", target.describe(), limit.label());
        cases.push(RequestCase::new(label, versions[0], true, spec).with_schema(target.resource.crd_schema()));
    }
    cases
}

/// The annotation that brings an object's annotations to their limit.
pub(crate) const AT_LIMIT_ANNOTATION: &str = "suite.conformance.example/at-limit";
/// The most all of an object's annotations may hold, keys and values
/// (`apimachinery/pkg/api/validation/objectmeta.go` TotalAnnotationSizeLimitB).
pub(crate) const ANNOTATIONS_LIMIT: usize = 256 * 1024;
/// The most a ConfigMap's data and binaryData values may hold (`pkg/apis/core/validation/validation.go`
/// ValidateConfigMap, `core.MaxSecretSize`).
pub(crate) const CONFIG_MAP_LIMIT: usize = 1024 * 1024;
/// What a request to a mutating webhook leaves below a limit, for what the webhook itself adds
/// (the apiserver validates the object once mutating admission is done).
const MUTATOR_ROOM: usize = 1024;

/// An object at one of the apiserver's size limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Limit {
    /// Annotations of 256 KiB, keys and values.
    Annotations,
    /// A ConfigMap whose data holds 1 MiB.
    ConfigMapData,
}

impl Limit {
    fn label(self) -> &'static str {
        match self {
            Limit::Annotations => "annotations at the limit",
            Limit::ConfigMapData => "data at the limit",
        }
    }

    /// Bring `object` to this limit (less room for a mutating webhook's own additions).
    fn apply(self, object: &mut Value, kind: WebhookKind) {
        let room = if kind == WebhookKind::Mutating { MUTATOR_ROOM } else { 0 };
        match self {
            Limit::Annotations => {
                let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else { return };
                let annotations = meta.entry("annotations").or_insert_with(|| serde_json::json!({}));
                let Some(map) = annotations.as_object_mut() else { return };
                let used: usize = map.iter().map(|(k, v)| k.len() + v.as_str().map_or(0, str::len)).sum();
                let value = ANNOTATIONS_LIMIT - room - used - AT_LIMIT_ANNOTATION.len();
                map.insert(AT_LIMIT_ANNOTATION.into(), Value::String("x".repeat(value)));
            }
            Limit::ConfigMapData => {
                let value = CONFIG_MAP_LIMIT - room;
                object["data"] = serde_json::json!({"payload": "x".repeat(value)});
            }
        }
    }
}

/// The request about an object `maker` made, for a CREATE, UPDATE or DELETE `target` (none for
/// other operations). On CREATE a controller that sends a `generateName` sends no name: the request
/// carries none, and the object none before mutating admission (the registry generates it in
/// `rest.BeforeCreate`, which runs between mutating and validating admission).
fn controller_made(target: &Selected, maker: Maker, kind: WebhookKind) -> Option<AdmissionSpec> {
    if !matches!(target.operation, Operation::Create | Operation::Update | Operation::Delete) {
        return None;
    }
    let name = maker.name();
    let mut spec = admission_spec_from(target, maker.object(&target.resource), &name, kind);
    // A dependent is deleted by the garbage collector once its owner is gone.
    spec.deletion = Deletion::GarbageCollector(STORED_UID.to_string());
    if target.operation == Operation::Create && maker.generate_name().is_some() {
        spec.name = String::new();
        if kind == WebhookKind::Mutating {
            owned::without_name(&mut spec.object);
        }
    }
    Some(spec)
}

/// The requests of the default run for `webhook` as built, before its matchConditions: the label and
/// spec of each request in the version a cluster sends.
pub(crate) fn candidates(webhook: &WebhookSpec) -> Vec<(String, AdmissionSpec)> {
    let unconditioned = WebhookSpec { conditions: MatchConditions::default(), ..webhook.clone() };
    plan(&unconditioned).into_iter().filter(|c| c.primary).map(|c| (c.label, c.spec)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Manifest, RuleWithOperations};

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

    /// The system fields of an object's metadata the apiserver sets, as (uid, creationTimestamp,
    /// generation, resourceVersion) present.
    fn system_fields(object: &serde_json::Value) -> [bool; 4] {
        let meta = &object["metadata"];
        ["uid", "creationTimestamp", "generation", "resourceVersion"].map(|f| meta.get(f).is_some())
    }

    #[test]
    fn each_operation_and_phase_carries_the_metadata_the_apiserver_has_set_by_then() {
        let m = reference();
        for (webhook, phase) in [(&m.webhooks[0], "mutating"), (&m.webhooks[1], "validating")] {
            let cases = plan(webhook);
            let find = |label: &str| cases.iter().find(|c| c.label == label).unwrap_or_else(|| panic!("{label}"));
            let create = find("CREATE pods (bare)");
            let update = find("UPDATE pods (bare)");
            let delete = find("DELETE pods (bare)");
            // CREATE: mutating admission runs before the registry fills anything (handlers/create.go);
            // validating admission after uid, creationTimestamp and generation, before storage gives a
            // resourceVersion (store.go Create).
            let want = if phase == "mutating" { [false; 4] } else { [true, true, true, false] };
            assert_eq!(system_fields(create.object()), want, "{phase} CREATE object");
            assert!(create.spec.old_object.is_null(), "{phase} CREATE oldObject");
            // UPDATE: the stored object as oldObject, and the new object keeps its uid, timestamp,
            // generation and the resourceVersion the client read.
            let (old, new) = (&update.spec.old_object, update.object());
            assert_eq!(system_fields(old), [true; 4], "{phase} UPDATE oldObject");
            assert_eq!(system_fields(new), [true; 4], "{phase} UPDATE object");
            assert_eq!(new["metadata"]["resourceVersion"], old["metadata"]["resourceVersion"]);
            assert_eq!(new["metadata"]["uid"], old["metadata"]["uid"]);
            // DELETE: the stored object as oldObject, no object.
            assert_eq!(system_fields(&delete.spec.old_object), [true; 4], "{phase} DELETE oldObject");
            assert!(delete.object().is_null(), "{phase} DELETE object");
            // managedFields: the field manager runs before mutating admission on CREATE and UPDATE
            // (handlers/create.go, update.go), and the stored object keeps its entry.
            let managers = |o: &serde_json::Value| -> Vec<String> {
                o["metadata"]["managedFields"]
                    .as_array()
                    .map(|a| a.iter().map(|e| e["manager"].as_str().unwrap_or_default().to_string()).collect())
                    .unwrap_or_default()
            };
            assert_eq!(managers(create.object()), ["kubectl-create"], "{phase} CREATE object");
            assert_eq!(managers(old), ["kubectl-create"], "{phase} UPDATE oldObject");
            assert_eq!(managers(new), ["kubectl-create", "kubectl-annotate"], "{phase} UPDATE object");
            assert_eq!(managers(&delete.spec.old_object), ["kubectl-create"], "{phase} DELETE oldObject");
        }
    }

    /// A validating webhook runs after the apiserver's validation: every planned object it is sent,
    /// for every kind a rule can select, passes that validation. So does every planned object a
    /// mutating webhook is sent: the apiserver would accept it as it is, so that a refusal after
    /// the webhook's patch is the webhook's. The `/status` UPDATEs of every kind whose status
    /// strategy is modelled are among them.
    #[test]
    fn planned_objects_pass_the_apiservers_validation() {
        let m = reference();
        let mut problems = Vec::new();
        let mut judged = 0;
        let mut status_kinds = std::collections::BTreeSet::new();
        let cases: Vec<RequestCase> = m.webhooks.iter().flat_map(|w| plan(&everything(w))).collect();
        for case in &cases {
            let spec = &case.spec;
            // Reviews are answered, never stored: their registries validate no metadata.
            let review = matches!(spec.kind.group.as_str(), "authentication.k8s.io" | "authorization.k8s.io");
            let status = spec.sub_resource.as_deref() == Some("status")
                && apiserver_validation::status_modelled(&spec.kind.group, &spec.kind.kind);
            let judged_sub = spec.sub_resource.is_none() || status;
            if review || !judged_sub || !matches!(spec.operation, Operation::Create | Operation::Update) {
                continue;
            }
            judged += 1;
            if status {
                status_kinds.insert(spec.kind.kind.clone());
            }
            if let Some(refusal) = super::super::refusal_of(spec) {
                problems.push(format!("{}: {refusal}", case.label));
            }
        }
        assert!(judged > 50, "{judged}");
        assert!(problems.is_empty(), "{}", problems.join("\n"));
        let modelled: std::collections::BTreeSet<String> =
            apiserver_validation::object::STATUS_MODELLED.iter().map(|(_, k)| k.to_string()).collect();
        assert_eq!(status_kinds, modelled);
    }

    /// generation is set on CREATE only for the kinds whose strategy sets it (and custom
    /// resources): a validating webhook sees a Deployment with generation 1 and a ConfigMap
    /// without one; a mutating webhook sees neither; the stored form keeps what CREATE set.
    #[test]
    fn generation_is_set_on_create_only_for_the_kinds_whose_strategy_sets_it() {
        let m = reference();
        for (webhook, phase) in [(&m.webhooks[0], "mutating"), (&m.webhooks[1], "validating")] {
            let cases = plan(&everything(webhook));
            let find = |op: Operation, plural: &str| {
                cases
                    .iter()
                    .find(|c| {
                        c.spec.operation == op && c.spec.resource.resource == plural && c.spec.sub_resource.is_none()
                    })
                    .unwrap_or_else(|| panic!("{phase} {op} {plural}"))
            };
            let generation = |o: &serde_json::Value| o["metadata"].get("generation").cloned();
            let validating = phase == "validating";
            for (plural, sets) in [
                ("deployments", true),
                ("pods", true),
                ("ingresses", true),
                ("configmaps", false),
                ("services", false),
                ("persistentvolumeclaims", false),
            ] {
                let create = find(Operation::Create, plural);
                let want = (validating && sets).then(|| serde_json::json!(1));
                assert_eq!(generation(create.object()), want, "{phase} CREATE {plural}");
                let update = find(Operation::Update, plural);
                let want = sets.then(|| serde_json::json!(1));
                assert_eq!(generation(&update.spec.old_object), want, "{phase} UPDATE {plural} oldObject");
            }
        }
    }

    fn everything(webhook: &WebhookSpec) -> WebhookSpec {
        let mut w = webhook.clone();
        w.namespace_selector = None;
        w.rules = vec![RuleWithOperations {
            operations: vec!["*".into()],
            api_groups: vec!["*".into()],
            api_versions: vec!["*".into()],
            resources: vec!["*".into(), "*/*".into()],
            scope: None,
        }];
        w
    }

    /// Every built-in resource of the targeted version the apiserver sends to webhooks yields at
    /// least one planned request whose object decodes as its kind, exactly (nothing dropped).
    #[test]
    fn every_built_in_resource_yields_a_request_of_its_kind() {
        for webhook in &reference().webhooks {
            let cases = plan(&everything(webhook));
            for kind in crate::kinds::RESOURCES {
                let mine: Vec<_> = cases
                    .iter()
                    .filter(|c| {
                        c.spec.resource.group == kind.group
                            && c.spec.resource.version == kind.version
                            && c.spec.resource.resource == kind.plural
                            && c.spec.sub_resource.is_none()
                    })
                    .collect();
                if super::super::resources::never_sent(kind).is_some() {
                    assert!(mine.is_empty(), "{} is never sent", kind.kind);
                    continue;
                }
                assert!(!mine.is_empty(), "no request for {} {}/{}", kind.kind, kind.group, kind.version);
                for c in &mine {
                    let object = if c.object().is_null() { &c.spec.old_object } else { c.object() };
                    assert_eq!(c.spec.kind, kind.gvk(), "{}", c.label);
                    let back = crate::kinds::round_trip(&kind.gvk(), object).unwrap().map_err(|e| e.to_string());
                    assert_eq!(back.as_ref(), Ok(object), "{}", c.label);
                }
            }
            // Every subresource request's object decodes as the kind it says.
            for c in cases.iter().filter(|c| c.spec.sub_resource.is_some()) {
                let object = c.object();
                let result = crate::kinds::decodes_as(&c.spec.kind, object).map(|r| r.map_err(|e| e.to_string()));
                assert_eq!(result, Some(Ok(())), "{}: {object}", c.label);
            }
        }
    }

    #[test]
    fn a_wildcard_plan_stays_small_and_still_reaches_every_variant_and_version() {
        let m = reference();
        let all = everything(&m.webhooks[0]);
        let cases = plan(&all);
        let targets = selected(&all, &ApiResources::built_in());
        assert!(cases.len() < targets.len() + 8, "{} requests for {} targets", cases.len(), targets.len());
        for variant in Variant::ALL {
            assert!(cases.iter().any(|c| c.label.ends_with(&format!("({})", variant.as_str()))), "{variant:?}");
        }
        for op in Operation::ALL {
            assert!(cases.iter().any(|c| !c.primary && c.spec.operation == op), "{op} in v1beta1");
        }
        // Named resources keep every variant and version.
        let named = plan(&m.webhooks[0]);
        // Three variants and two controller-made pods (a ReplicaSet's, a Job's), in both versions.
        assert_eq!(named.iter().filter(|c| c.label.starts_with("CREATE pods (")).count(), 10);
    }

    #[test]
    fn controller_made_objects_arrive_as_a_cluster_sends_them() {
        let m = reference();
        for (webhook, phase) in [(&m.webhooks[0], "mutating"), (&m.webhooks[1], "validating")] {
            let cases = plan(webhook);
            let find = |label: &str| {
                cases.iter().find(|c| c.label == label && c.primary).unwrap_or_else(|| panic!("{phase}: {label}"))
            };
            for label in ["CREATE pods (made by a ReplicaSet)", "CREATE pods (made by a Job)"] {
                let create = find(label);
                let request = create.review.to_value()["request"].clone();
                assert!(request.get("name").is_none(), "{phase} {label}: no request.name");
                let meta = &create.object()["metadata"];
                assert!(meta["generateName"].as_str().unwrap().ends_with('-'), "{phase} {label}");
                assert_eq!(meta["ownerReferences"][0]["controller"], true, "{phase} {label}");
                // Mutating admission runs before the registry generates the name; validating after.
                assert_eq!(meta.get("name").is_some(), phase == "validating", "{phase} {label}: {meta}");
                let back =
                    crate::kinds::round_trip(&create.spec.kind, create.object()).unwrap().map_err(|e| e.to_string());
                assert_eq!(back.as_ref(), Ok(create.object()), "{phase} {label}");
            }
            let rs = find("CREATE pods (made by a ReplicaSet)");
            assert_eq!(rs.object()["metadata"]["labels"]["pod-template-hash"], "7d4b9c6f5d");
            let job = find("CREATE pods (made by a Job)");
            assert_eq!(job.object()["metadata"]["labels"]["batch.kubernetes.io/job-name"], "nightly-29380125");
            // Once created, the pod has its generated name.
            let update = find("UPDATE pods (made by a ReplicaSet)");
            assert_eq!(update.spec.name, "web-7d4b9c6f5d-x2k9p");
            assert_eq!(update.spec.old_object["metadata"]["name"], "web-7d4b9c6f5d-x2k9p");
            let delete = find("DELETE pods (made by a Job)");
            assert_eq!(delete.spec.old_object["metadata"]["ownerReferences"][0]["kind"], "Job");
            let options = &delete.review.to_value()["request"]["options"];
            assert_eq!(options["preconditions"]["uid"], delete.spec.old_object["metadata"]["uid"], "{options}");
        }
    }

    /// The total size of an object's annotations, as the apiserver counts it.
    fn annotations_size(object: &Value) -> usize {
        let map = object["metadata"]["annotations"].as_object().cloned().unwrap_or_default();
        map.iter().map(|(k, v)| k.len() + v.as_str().map_or(0, str::len)).sum()
    }

    #[test]
    fn every_webhook_meets_an_object_at_the_limits() {
        let m = reference();
        for (webhook, room) in [(&m.webhooks[0], MUTATOR_ROOM), (&m.webhooks[1], 0)] {
            let cases = plan(webhook);
            let at_limit: Vec<_> = cases.iter().filter(|c| c.label.ends_with("(annotations at the limit)")).collect();
            assert_eq!(at_limit.len(), 1, "{}", webhook.name);
            assert_eq!(annotations_size(at_limit[0].object()), ANNOTATIONS_LIMIT - room, "{}", webhook.name);
            let back = crate::kinds::round_trip(&at_limit[0].spec.kind, at_limit[0].object())
                .unwrap()
                .map_err(|e| e.to_string());
            assert_eq!(back.as_ref(), Ok(at_limit[0].object()));
            // Every other planned object stays well inside the limit.
            assert!(cases
                .iter()
                .filter(|c| !c.label.contains("at the limit"))
                .all(|c| annotations_size(c.object()) < 64 * 1024));
        }
        // Only the mutating webhook selects ConfigMaps.
        let data = |w: &WebhookSpec| {
            plan(w).into_iter().filter(|c| c.label == "CREATE configmaps (data at the limit)").collect::<Vec<_>>()
        };
        let mutating = data(&m.webhooks[0]);
        assert_eq!(mutating.len(), 1);
        let values: usize =
            mutating[0].object()["data"].as_object().unwrap().values().map(|v| v.as_str().unwrap().len()).sum();
        assert_eq!(values, CONFIG_MAP_LIMIT - MUTATOR_ROOM);
        assert!(data(&m.webhooks[1]).is_empty());
    }

    #[test]
    fn deletes_carry_the_options_kubectl_sends_in_each_of_its_ways() {
        let m = reference();
        let cases = plan(&m.webhooks[1]);
        let options = |label: &str| {
            let c = cases.iter().find(|c| c.label == label).unwrap_or_else(|| panic!("{label}"));
            c.review.to_value()["request"]["options"].clone()
        };
        assert_eq!(options("DELETE pods (bare)")["propagationPolicy"], "Background");
        assert_eq!(options("DELETE pods (labelled)")["propagationPolicy"], "Foreground");
        assert_eq!(options("DELETE pods (risky)")["gracePeriodSeconds"], 0);
        assert_eq!(options("DELETE deployments (labelled)")["propagationPolicy"], "Orphan");
    }

    #[test]
    fn equivalent_requests_carry_the_users_kind() {
        let m = reference();
        let mut w = m.webhooks[1].clone();
        w.rules = vec![RuleWithOperations {
            operations: vec!["CREATE".into()],
            api_groups: vec!["autoscaling".into()],
            api_versions: vec!["v2".into()],
            resources: vec!["horizontalpodautoscalers".into()],
            scope: None,
        }];
        let cases = plan(&w);
        let converted = cases.iter().find(|c| c.spec.request_kind.is_some()).expect("a converted request");
        let r = converted.review.to_value();
        assert_eq!(r["request"]["kind"]["version"], "v2");
        assert_eq!(r["request"]["object"]["apiVersion"], "autoscaling/v2");
        assert_eq!(r["request"]["requestKind"]["version"], "v1");
        assert_eq!(r["request"]["requestResource"]["version"], "v1");
        w.match_policy = Some("Exact".into());
        assert!(plan(&w).iter().all(|c| c.spec.request_kind.is_none()));
    }

    #[test]
    fn reviews_and_created_objects() {
        let m = reference();
        let mut w = m.webhooks[1].clone();
        w.namespace_selector = None;
        w.rules = vec![RuleWithOperations {
            operations: vec!["*".into()],
            api_groups: vec!["".into(), "authentication.k8s.io".into()],
            api_versions: vec!["v1".into()],
            resources: vec!["tokenreviews".into(), "pods/binding".into(), "serviceaccounts/token".into()],
            scope: None,
        }];
        let cases = plan(&w);
        let review = cases.iter().find(|c| c.spec.resource.resource == "tokenreviews").unwrap();
        assert_eq!(review.spec.operation, Operation::Create);
        assert!(review.review.to_value()["request"].get("name").is_none(), "a review has no name");
        assert!(review.object()["metadata"].get("uid").is_none(), "a review is never stored");
        let binding = cases.iter().find(|c| c.spec.sub_resource.as_deref() == Some("binding")).unwrap();
        assert_eq!(binding.object()["kind"], "Binding");
        assert_eq!(binding.object()["target"]["kind"], "Node");
        let token = cases.iter().find(|c| c.spec.sub_resource.as_deref() == Some("token")).unwrap();
        assert_eq!(token.spec.kind, Gvk::new("authentication.k8s.io", "v1", "TokenRequest"));
        assert_eq!(token.review.to_value()["request"]["options"]["kind"], "CreateOptions");
    }
}
