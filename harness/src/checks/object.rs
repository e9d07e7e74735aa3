//! Checks on the object a webhook's patch produced, as the apiserver's registry validates it after
//! mutating admission (`apiserver/pkg/registry/rest/create.go` `BeforeCreate`, `update.go`
//! `BeforeUpdate`, then the kind's `Validate<Kind>` / `Validate<Kind>Update`), on the object
//! defaulted as the dispatcher defaults it: modelled in the `apiserver-validation` crate. The
//! metadata of every kind is validated; the spec of the kinds in
//! `apiserver_validation::object::SPEC_MODELLED` (Pod, the workloads, ConfigMap, Secret) too, and the
//! whole of a custom resource of a CRD given (`super::custom_resource`); for the others the check's
//! detail and [`unmodelled_note`] say so; the fields of modelled kinds whose validation is not
//! modelled are named per webhook when a patch writes them ([`unjudged`]). Of the subresource requests, an UPDATE of the
//! `/status` of a Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or CronJob is judged,
//! after the kind's status strategy's reset (`apiserver_validation::pod_status`, `workload_status`,
//! `job_status`), and [`status_reset`] names what of the patch that reset drops; the others are
//! not judged. [`gate_dropped`] names what of the patch the registry drops before validation
//! because its feature gate is off by default (`apiserver_validation::drop_disabled_fields`).

use std::borrow::Cow;

use apiserver_validation::defaults::{defaulted_cow, patch_keeps_defaults};
use apiserver_validation::unmodelled;
use apiserver_validation::{
    drop_disabled_fields, kinds, prepare_status_update, spec_modelled, status_modelled, status_reset_words,
    validate_defaulted_create, validate_defaulted_update_of_stored, validate_object_create,
    validate_object_status_update, validate_object_update, validate_object_update_of_stored, Refusal, Scope,
};
use serde_json::Value;

use super::kubectl::{in_brief, kubectl_line};
use super::{Check, Exchange};
use crate::admission::Operation;
use crate::config::{WebhookKind, WebhookSpec};
use crate::requests::{selected, ApiResources};

/// Which of the objects given to [`refusal`] are already as the apiserver's decoder defaults them
/// (and are not defaulted again).
#[derive(Clone, Copy)]
struct Defaulted {
    /// The object validated.
    object: bool,
    /// The old object of an UPDATE.
    old: bool,
}

/// What the registry says of `object` (after `old` on UPDATE, through the kind's status strategy
/// when `status`); `None` when it accepts it.
fn refusal(
    scope: &Scope,
    operation: Operation,
    status: bool,
    object: &Value,
    old: &Value,
    defaulted: Defaulted,
) -> Option<Refusal> {
    match operation {
        Operation::Create if defaulted.object => validate_defaulted_create(scope, object).err(),
        Operation::Create => validate_object_create(scope, object).err(),
        _ if status => validate_object_status_update(scope, object, old).err(),
        _ if defaulted.object && defaulted.old => validate_defaulted_update_of_stored(scope, object, old).err(),
        _ if defaulted.old => validate_object_update_of_stored(scope, object, old).err(),
        _ => validate_object_update(scope, object, old).err(),
    }
}

/// Whether the request is an UPDATE of the `status` subresource of a kind whose status strategy
/// is modelled (`apiserver_validation::object::STATUS_MODELLED`).
fn modelled_status_update(x: &Exchange) -> bool {
    let spec = &x.case.spec;
    let gvk = x.case.object_kind();
    spec.operation == Operation::Update
        && spec.sub_resource.as_deref() == Some("status")
        && status_modelled(&gvk.group, &gvk.kind)
}

/// object.valid
pub(crate) fn valid(x: &Exchange) -> Check {
    let Some(Ok(patched)) = x.patched() else { return Check::na("no applied patch") };
    let spec = &x.case.spec;
    if !matches!(spec.operation, Operation::Create | Operation::Update) {
        return Check::na("neither CREATE nor UPDATE");
    }
    let status = modelled_status_update(x);
    if let Some(sub) = spec.sub_resource.as_ref().filter(|_| !status) {
        return Check::na(format!("a /{sub} subresource request: its object is not validated as the kind's"));
    }
    let gvk = x.case.object_kind();
    // pkg/registry/authentication and authorization: a review is answered in the request and never
    // stored; its REST Create runs no BeforeCreate and no metadata validation.
    if matches!(gvk.group.as_str(), "authentication.k8s.io" | "authorization.k8s.io") {
        return Check::na(format!("a {} is answered, never stored: the registry does not validate it", gvk.kind));
    }
    let known = crate::kinds::RESOURCES.iter().find(|k| k.group == gvk.group && k.kind == gvk.kind);
    let request_namespace = spec.namespace.as_deref().unwrap_or("");
    let scope = Scope {
        group: &gvk.group,
        kind: &gvk.kind,
        resource: &spec.resource.resource,
        namespaced: known.map_or(!request_namespace.is_empty(), |k| k.namespaced),
        built_in: known.is_some(),
        request_namespace,
    };
    // A cluster's webhook receives the object as the decoder defaulted it, and its patch applies
    // to that object; the dispatcher defaults the result again before validation (the validation
    // below does). The suite's own requests are sent defaulted: the patched object the exchange
    // holds is that patch applied to what the webhook saw.
    let (before, reapplied) = if x.case.sent_defaulted() {
        (Cow::Borrowed(x.case.object()), None)
    } else {
        // An object sent as given (a case file's, a saved review's, a property's re-sent result):
        // defaulted here, and the patch applied to it (defaults only fill absent fields, so a
        // patch written against the bare object applies too). When defaulting fills nothing, that
        // is the patched object the exchange holds.
        let before = defaulted_cow(&gvk.group, &gvk.kind, x.case.object());
        let reapplied = match (x.nonempty_patch(), &before) {
            (Some(p), Cow::Owned(b)) if b != x.case.object() => apiserver_jsonpatch::apply(b, p).ok(),
            _ => None,
        };
        (before, reapplied)
    };
    let patched = reapplied.as_ref().unwrap_or(patched);
    // The admission wrapper puts back managedFields that do not decode (object.managed-fields).
    // For the object sent defaulted, `before` and `patched` are the exchange's own pair.
    let known = if x.case.sent_defaulted() { x.managed_fields_kept() } else { None };
    let kept = super::managed_fields::put_back(&before, patched, known);
    let patched = kept.as_ref();
    if x.case.schema.is_some() {
        return super::custom_resource::valid(x, &scope, patched);
    }
    // A patch that writes only where the defaults do not look (the metadata, the status) leaves
    // the object sent defaulted as defaulted as it was.
    let sent_defaulted = x.case.sent_defaulted();
    let keeps_defaults = |p: &apiserver_jsonpatch::Patch| {
        patch_keeps_defaults(&gvk.group, &gvk.kind, p.pointers().iter().map(String::as_str))
    };
    let patched_defaulted = sent_defaulted && x.nonempty_patch().is_some_and(keeps_defaults);
    let defaulted = Defaulted { object: patched_defaulted, old: sent_defaulted };
    let Some(after) = refusal(&scope, spec.operation, status, patched, &spec.old_object, defaulted) else {
        return Check::Pass;
    };
    let name_of = |o: &Value| o.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
    let sent = Defaulted { object: sent_defaulted, old: sent_defaulted };
    if let Some(refused) = refusal(&scope, spec.operation, status, &before, &spec.old_object, sent) {
        return Check::na(format!(
            "the request was invalid before the webhook: {}",
            refused.message(&scope, &name_of(&before))
        ));
    }
    let name = name_of(patched);
    let said = after.message(&scope, &name);
    let (rule, modelled) = kinds::name_rule(&gvk.group, &gvk.kind);
    let mut notes = String::new();
    if !modelled {
        notes.push_str(&format!(" ({} is validated here with {}, the rule of most kinds)", gvk.kind, rule.go_name()));
    }
    if !spec_modelled(&gvk.group, &gvk.kind) {
        notes.push_str(&format!(" (only the metadata of a {} is validated here, not its spec)", gvk.kind));
    }
    let what = in_brief(&after);
    if status {
        notes.push_str(" (a /status UPDATE: validated after the status strategy puts back the stored spec)");
    }
    let verb = match spec.operation {
        Operation::Create => "create",
        _ if status => "status update",
        _ => "update",
    };
    Check::violated(
        format!(
            "the patched object fails the apiserver's validation (HTTP {}: {what}){notes}: every {verb} of such an object is refused; kubectl prints: {}",
            after.code(),
            kubectl_line(&gvk.kind, &name, &after, &said)
        ),
        said,
    )
}

/// object.status-reset
pub(crate) fn status_reset(x: &Exchange) -> Check {
    let Some(Ok(patched)) = x.patched() else { return Check::na("no applied patch") };
    if !modelled_status_update(x) {
        return Check::na("not an UPDATE of the /status subresource of a kind whose status strategy is modelled");
    }
    let gvk = x.case.object_kind();
    let mut kept = patched.clone();
    prepare_status_update(&gvk.group, &gvk.kind, &mut kept, &x.case.spec.old_object);
    let which = format!(
        "the registry puts back from the stored {} on a /status UPDATE (its status strategy's PrepareForUpdate keeps the old {})",
        gvk.kind,
        status_reset_words(&gvk.group, &gvk.kind).unwrap_or("spec")
    );
    super::dropped::finding(x.case.object(), patched, &kept, |_| which)
}

/// The feature gates behind what [`gate_dropped`] names, by the end of its pointers (a source the
/// registry removed, or a stop signal with the lifecycle it leaves empty).
const GATES: [(&[&str], &str); 4] = [
    (&["/clusterTrustBundle"], "a projected clusterTrustBundle: ClusterTrustBundleProjection"),
    (&["/podCertificate"], "a projected podCertificate: PodCertificateRequest"),
    (&["/lifecycle", "/lifecycle/stopSignal"], "a container's lifecycle.stopSignal: ContainerStopSignals"),
    (&["/spec/schedulingGroup"], "the pod's schedulingGroup: GenericWorkload"),
];

/// object.gate-dropped
pub(crate) fn gate_dropped(x: &Exchange) -> Check {
    let Some(Ok(patched)) = x.patched() else { return Check::na("no applied patch") };
    if x.case.spec.sub_resource.is_some() {
        return Check::na("a subresource request: the registry's create and update strategies do not run");
    }
    let gvk = x.case.object_kind();
    let old = (x.case.spec.operation == Operation::Update).then_some(&*x.case.spec.old_object);
    let Some(kept) = drop_disabled_fields(&gvk.group, &gvk.kind, patched, old) else { return Check::Pass };
    let which = |paths: &[String]| {
        let named = |ends: &[&str]| paths.iter().any(|p| ends.iter().any(|end| p.ends_with(end)));
        let gates: Vec<&str> = GATES.iter().filter(|(ends, _)| named(ends)).map(|(_, gate)| *gate).collect();
        format!(
            "the registry drops from the {} before validation while its feature gate is off, as it is by default ({}; PrepareForCreate and PrepareForUpdate: DropDisabledPodFields)",
            gvk.kind,
            gates.join("; ")
        )
    };
    super::dropped::finding(x.case.object(), patched, &kept, which)
}

/// The fields written by the patch a mutating webhook's allow carried whose validation is not
/// modelled for a kind that otherwise is (`apiserver_validation::unmodelled`), as `Kind field`
/// (`Pod spec.dnsConfig`): `object.valid` did not judge them, and the run names them per webhook.
/// Empty where `object.valid` does not judge the object at all (it says so itself), for a custom
/// resource (its whole schema is judged) and for a kind whose spec is not modelled
/// ([`unmodelled_note`] names the kind).
pub(crate) fn unjudged(x: &Exchange) -> Vec<String> {
    let spec = &x.case.spec;
    let status = modelled_status_update(x);
    let gvk = x.case.object_kind();
    let judged_as_kind = matches!(spec.operation, Operation::Create | Operation::Update)
        && (spec.sub_resource.is_none() || status)
        && x.case.schema.is_none()
        && spec_modelled(&gvk.group, &gvk.kind);
    let (Some(patch), Some(Ok(patched))) = (x.nonempty_patch(), x.patched()) else { return Vec::new() };
    if !judged_as_kind {
        return Vec::new();
    }
    let pointers = patch.pointers();
    let touched: Vec<&str> = pointers.iter().map(String::as_str).collect();
    let old = (spec.operation == Operation::Update).then_some(&*spec.old_object);
    unmodelled::written(&gvk.group, &gvk.kind, status, x.case.object(), patched, old, &touched)
        .into_iter()
        .map(|field| format!("{} {field}", gvk.kind))
        .collect()
}

/// For a mutating webhook whose requests include kinds whose spec validation is not modelled, a
/// note naming them: `object.valid` judges only their metadata.
pub(crate) fn unmodelled_note(webhook: &WebhookSpec, api: &ApiResources) -> Option<String> {
    if webhook.kind != WebhookKind::Mutating {
        return None;
    }
    let mut kinds: Vec<String> = Vec::new();
    for t in selected(webhook, api) {
        let r = &t.resource;
        let writes = matches!(t.operation, Operation::Create | Operation::Update) && t.subresource.is_none();
        let label = if r.group.is_empty() { r.kind.clone() } else { format!("{}.{}", r.kind, r.group) };
        let modelled = spec_modelled(&r.group, &r.kind) || r.crd_schema().is_some();
        if writes && !r.review && !modelled && !kinds.contains(&label) {
            kinds.push(label);
        }
    }
    if kinds.is_empty() {
        return None;
    }
    Some(format!(
        "{}: object.valid validates only the metadata of {} (the apiserver also validates their spec, which the suite does not model): a patch that breaks their spec is not caught",
        webhook.name,
        kinds.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::admission::{GroupVersionResource, Gvk, ReviewVersion};
    use crate::client::Transport;
    use crate::config::{Manifest, WebhookSpec};
    use crate::requests::RequestCase;
    use crate::requests::{default_user, AdmissionSpec};

    fn webhook() -> WebhookSpec {
        let text = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: c}\nwebhooks:\n  - name: a.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: None\n    clientConfig: {url: \"https://hook.example.com/\"}\n    rules: [{operations: [CREATE, UPDATE], apiGroups: [\"\"], apiVersions: [v1], resources: [pods]}]\n";
        Manifest::parse(Path::new("m.yaml"), text).unwrap().webhooks.remove(0)
    }

    fn case(op: Operation, object: Value, old: Value) -> RequestCase {
        case_of(Gvk::new("", "v1", "Pod"), GroupVersionResource::new("", "v1", "pods"), op, object, old)
    }

    fn case_of(kind: Gvk, resource: GroupVersionResource, op: Operation, object: Value, old: Value) -> RequestCase {
        let spec = AdmissionSpec {
            operation: op,
            kind,
            resource,
            sub_resource: None,
            request_kind: None,
            request_resource: None,
            name: "web".into(),
            namespace: Some("default".into()),
            object: object.into(),
            old_object: old.into(),
            dry_run: false,
            user: default_user(),
            deletion: Default::default(),
            sent_defaulted: false,
        };
        RequestCase::new("test".into(), ReviewVersion::V1, true, spec)
    }

    /// An UPDATE of `pods/status` of `old` to `object`.
    fn status_case(object: Value, old: Value) -> RequestCase {
        let mut c = case(Operation::Update, object, old);
        c.spec.sub_resource = Some("status".into());
        c
    }

    /// The check's verdict on an allow carrying `ops` as its patch.
    fn judge(case: &RequestCase, ops: Value) -> Check {
        judge_by(valid, case, ops)
    }

    /// `check`'s verdict on an allow carrying `ops` as its patch.
    fn judge_by(check: fn(&Exchange) -> Check, case: &RequestCase, ops: Value) -> Check {
        let transport = Transport::allow_with_patch(case.uid(), &ops);
        let webhook = webhook();
        check(&Exchange::new(&webhook, case, &transport, "https://hook.example.com/"))
    }

    /// The unjudged fields of an allow carrying `ops` as its patch.
    fn unjudged_by(case: &RequestCase, ops: Value) -> Vec<String> {
        let transport = Transport::allow_with_patch(case.uid(), &ops);
        let webhook = webhook();
        unjudged(&Exchange::new(&webhook, case, &transport, "https://hook.example.com/"))
    }

    #[test]
    fn a_patch_writing_a_field_whose_validation_is_not_modelled_names_it_and_still_passes() {
        let c = case(Operation::Create, pod(json!({"name": "web", "namespace": "default"})), Value::Null);
        let image =
            json!({"name": "img", "image": {"reference": "registry.example/img:1", "pullPolicy": "IfNotPresent"}});
        let ops = json!([{"op": "add", "path": "/spec/volumes", "value": [image]}]);
        assert_eq!(judge(&c, ops.clone()), Check::Pass);
        assert_eq!(unjudged_by(&c, ops), ["Pod spec.volumes[*].image"]);
        // Resource claims are judged: a valid one passes unnamed, one without a source fails.
        let claims = |claim: Value| json!([{"op": "add", "path": "/spec/resourceClaims", "value": [claim]}]);
        let by_name = claims(json!({"name": "gpu", "resourceClaimName": "gpu"}));
        assert_eq!(judge(&c, by_name.clone()), Check::Pass);
        assert!(unjudged_by(&c, by_name).is_empty());
        let said = apiserver_says(&judge(&c, claims(json!({"name": "gpu"}))));
        assert!(said.starts_with("Pod \"web\" is invalid: spec.resourceClaims[0]: Invalid value: "), "{said}");
        // A field whose validation is modelled: judged, not named.
        let dns = json!([{"op": "add", "path": "/spec/dnsConfig", "value": {"nameservers": ["10.0.0.10"]}}]);
        assert_eq!(judge(&c, dns.clone()), Check::Pass);
        assert!(unjudged_by(&c, dns).is_empty());
        // A patch that writes only judged fields leaves nothing unjudged.
        let labelled = json!([{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}]);
        assert!(unjudged_by(&c, labelled).is_empty());
        // A subresource request's object is not judged as the kind's: object.valid says so itself.
        let mut scale = c.clone();
        scale.spec.sub_resource = Some("ephemeralcontainers".into());
        let ops = json!([{"op": "add", "path": "/spec/resourceClaims", "value": []}]);
        assert!(unjudged_by(&scale, ops).is_empty());
    }

    /// A projected service account token a patch injects is valid in a pod with a service account
    /// name (every pod but a mirror pod has one by then) and refused in a mirror pod, which has none.
    #[test]
    fn an_injected_token_needs_the_pods_service_account() {
        let token = json!([{"op": "add", "path": "/spec/volumes", "value": [{"name": "token", "projected": {"sources": [
            {"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}}]}}]}]);
        let mut named = pod(json!({"name": "web", "namespace": "default"}));
        named["spec"]["serviceAccountName"] = json!("default");
        assert_eq!(judge(&case(Operation::Create, named, Value::Null), token.clone()), Check::Pass);
        let mut mirror = pod(json!({"name": "web", "namespace": "default",
                                    "annotations": {"kubernetes.io/config.mirror": "x"}}));
        mirror["spec"]["nodeName"] = json!("node-1");
        let refused = judge(&case(Operation::Create, mirror, Value::Null), token);
        assert!(
            apiserver_says(&refused).contains(
                "spec.volumes[0].projected.sources[0].serviceAccountToken: Forbidden: must not be specified when serviceAccountName is not set"
            ),
            "{refused:?}"
        );
    }

    /// A projected clusterTrustBundle a patch writes is dropped by the registry while its gate is
    /// off: object.gate-dropped WARNs naming it, and object.valid passes (the kept object is
    /// valid, the bundle not judged). Kept where the stored pod holds one already, and any other
    /// write is kept.
    #[test]
    fn a_cluster_trust_bundle_the_registry_drops_is_named_and_other_writes_pass() {
        let c = case(Operation::Create, pod(json!({"name": "web", "namespace": "default"})), Value::Null);
        let bundle = json!({"signerName": "example.com/ca", "path": "ca.pem"});
        let volume = |source: Value| json!({"name": "ca", "projected": {"sources": [source]}});
        let ops =
            json!([{"op": "add", "path": "/spec/volumes", "value": [volume(json!({"clusterTrustBundle": bundle}))]}]);
        let Check::Violated(v) = judge_by(gate_dropped, &c, ops.clone()) else { panic!("not caught") };
        assert!(
            v.detail.starts_with("the patch writes /spec/volumes/0/projected/sources/0/clusterTrustBundle (JSON pointer), which the registry drops from the Pod before validation"),
            "{}",
            v.detail
        );
        assert!(
            v.detail.contains("(a projected clusterTrustBundle: ClusterTrustBundleProjection; PrepareForCreate"),
            "{}",
            v.detail
        );
        assert_eq!(judge(&c, ops.clone()), Check::Pass);
        // A container's stop signal is dropped too (its lifecycle with it, left without a hook).
        let signal = json!([{"op": "add", "path": "/spec/containers/0/lifecycle", "value": {"stopSignal": "SIGUSR1"}}]);
        let Check::Violated(v) = judge_by(gate_dropped, &c, signal) else { panic!("stop signal not caught") };
        assert!(v.detail.starts_with("the patch writes /spec/containers/0/lifecycle (JSON pointer)"), "{}", v.detail);
        assert!(v.detail.contains("(a container's lifecycle.stopSignal: ContainerStopSignals; "), "{}", v.detail);
        assert!(!v.detail.contains("ClusterTrustBundleProjection"), "{}", v.detail);
        // So is the pod's scheduling group.
        let group = json!([{"op": "add", "path": "/spec/schedulingGroup", "value": {"podGroupName": "g"}}]);
        let Check::Violated(v) = judge_by(gate_dropped, &c, group) else { panic!("scheduling group not caught") };
        assert!(v.detail.starts_with("the patch writes /spec/schedulingGroup (JSON pointer)"), "{}", v.detail);
        assert!(v.detail.contains("(the pod's schedulingGroup: GenericWorkload; "), "{}", v.detail);
        // A projection of a ConfigMap is kept.
        let config_map =
            json!([{"op": "add", "path": "/spec/volumes", "value": [volume(json!({"configMap": {"name": "m"}}))]}]);
        assert_eq!(judge_by(gate_dropped, &c, config_map), Check::Pass);
        // On an UPDATE of a pod that holds a bundle already, the written one is kept.
        let mut held = pod(json!({"name": "web", "namespace": "default"}));
        held["spec"]["volumes"] = json!([volume(json!({"clusterTrustBundle": {"name": "ca", "path": "a.pem"}}))]);
        let u = case(Operation::Update, held.clone(), held);
        let replace = json!([{"op": "replace", "path": "/spec/volumes/0/projected/sources/0/clusterTrustBundle", "value": bundle}]);
        assert_eq!(judge_by(gate_dropped, &u, replace), Check::Pass);
        // A Deployment's template loses it too; a subresource request is not judged.
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}});
        let d = case_of(
            Gvk::new("apps", "v1", "Deployment"),
            GroupVersionResource::new("apps", "v1", "deployments"),
            Operation::Create,
            deployment,
            Value::Null,
        );
        let template = json!([{"op": "add", "path": "/spec/template/spec/volumes", "value": [volume(json!({"clusterTrustBundle": bundle}))]}]);
        let Check::Violated(v) = judge_by(gate_dropped, &d, template) else { panic!("not caught in a template") };
        assert!(
            v.detail.contains("/spec/template/spec/volumes/0/projected/sources/0/clusterTrustBundle"),
            "{}",
            v.detail
        );
        assert!(v.detail.contains("drops from the Deployment"), "{}", v.detail);
        let mut status = c.clone();
        status.spec.sub_resource = Some("status".into());
        assert!(matches!(judge_by(gate_dropped, &status, ops), Check::NotApplicable(_)));
    }

    fn pod(meta: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"containers": [{"name": "c", "image": "i"}]}})
    }

    fn apiserver_says(check: &Check) -> String {
        match check {
            Check::Violated(v) => v.apiserver.clone().unwrap_or_default(),
            other => panic!("expected a breach, got {other:?}"),
        }
    }

    #[test]
    fn a_label_value_the_apiserver_refuses_fails_and_a_valid_one_passes() {
        let c = case(Operation::Create, pod(json!({"name": "web", "namespace": "default", "labels": {}})), Value::Null);
        let bad = judge(&c, json!([{"op": "add", "path": "/metadata/labels/app", "value": "bad value!"}]));
        let said = apiserver_says(&bad);
        assert!(
            said.starts_with("Pod \"web\" is invalid: metadata.labels: Invalid value: \"bad value!\": a valid label must be an empty string"),
            "{said}"
        );
        let good = judge(&c, json!([{"op": "add", "path": "/metadata/labels/app", "value": "web"}]));
        assert_eq!(good, Check::Pass);
    }

    #[test]
    fn annotations_past_256_kib_fail() {
        let c = case(Operation::Create, pod(json!({"name": "web", "namespace": "default"})), Value::Null);
        let big = "x".repeat(256 * 1024);
        let check = judge(&c, json!([{"op": "add", "path": "/metadata/annotations", "value": {"k": big}}]));
        assert_eq!(
            apiserver_says(&check),
            "Pod \"web\" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes"
        );
    }

    #[test]
    fn renaming_on_update_fails_and_an_already_invalid_request_is_not_blamed_on_the_webhook() {
        let old = pod(json!({"name": "web", "namespace": "default", "uid": "u1", "resourceVersion": "3"}));
        let c = case(Operation::Update, old.clone(), old.clone());
        let renamed = judge(&c, json!([{"op": "replace", "path": "/metadata/name", "value": "web2"}]));
        assert_eq!(
            apiserver_says(&renamed),
            "Pod \"web2\" is invalid: metadata.name: Invalid value: \"web2\": field is immutable"
        );
        assert_eq!(judge(&c, json!([{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}])), Check::Pass);

        let invalid = pod(json!({"name": "web", "namespace": "default", "labels": {"app": "bad value!"}}));
        let c = case(Operation::Create, invalid, Value::Null);
        let check = judge(&c, json!([{"op": "add", "path": "/metadata/labels/other", "value": "x y"}]));
        assert!(
            matches!(&check, Check::NotApplicable(why) if why.starts_with("the request was invalid before the webhook")),
            "{check:?}"
        );
    }

    #[test]
    fn a_container_added_on_pod_update_fails_with_the_apiservers_words_and_an_injected_one_on_create_passes() {
        let old = pod(json!({"name": "web", "namespace": "default", "uid": "u1", "resourceVersion": "3"}));
        let sidecar = json!([{"op": "add", "path": "/spec/containers/-", "value": {"name": "sidecar", "image": "registry.example/sidecar:1"}}]);
        let c = case(Operation::Update, old.clone(), old.clone());
        let check = judge(&c, sidecar.clone());
        assert_eq!(
            apiserver_says(&check),
            "Pod \"web\" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers"
        );
        let Check::Violated(v) = &check else { unreachable!() };
        assert!(
            v.detail.contains("kubectl prints: The Pod \"web\" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers"),
            "{}",
            v.detail
        );
        // The same container on CREATE, without imagePullPolicy or terminationMessagePolicy: the
        // dispatcher defaults it before validation.
        let c = case(Operation::Create, pod(json!({"name": "web", "namespace": "default"})), Value::Null);
        assert_eq!(judge(&c, sidecar), Check::Pass);
        // An image change on UPDATE is allowed.
        let c = case(Operation::Update, old.clone(), old);
        assert_eq!(
            judge(&c, json!([{"op": "replace", "path": "/spec/containers/0/image", "value": "j:2"}])),
            Check::Pass
        );
    }

    #[test]
    fn a_container_name_the_apiserver_refuses_fails() {
        let c = case(Operation::Create, pod(json!({"name": "web", "namespace": "default"})), Value::Null);
        let check = judge(
            &c,
            json!([{"op": "add", "path": "/spec/containers/-", "value": {"name": "Side_Car", "image": "s:1"}}]),
        );
        assert!(
            apiserver_says(&check).starts_with("Pod \"web\" is invalid: spec.containers[1].name: Invalid value: \"Side_Car\": a lowercase RFC 1123 label"),
            "{check:?}"
        );
    }

    /// A planned request is sent defaulted: a patch written against a defaulted field applies to
    /// the object as sent, and is judged on the patched object the exchange holds
    /// (`ValidatePodSpec`'s restartPolicy).
    #[test]
    fn a_patch_of_a_defaulted_field_of_a_planned_request_is_judged_as_applied_once() {
        let planned = crate::requests::plan_in(&webhook(), &ApiResources::built_in());
        let find = |label: &str| planned.iter().find(|c| c.label == label && c.primary).expect(label);
        let never = json!([{"op": "replace", "path": "/spec/restartPolicy", "value": "Never"}]);
        let create = find("CREATE pods (bare)");
        assert!(create.sent_defaulted());
        assert_eq!(create.object()["spec"]["restartPolicy"], "Always");
        assert_eq!(judge(create, never.clone()), Check::Pass);
        let bad = judge(create, json!([{"op": "replace", "path": "/spec/restartPolicy", "value": "Sometimes"}]));
        assert!(
            apiserver_says(&bad).ends_with("spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\""),
            "{bad:?}"
        );
        // On UPDATE both objects were sent defaulted; ValidatePodUpdate refuses the change.
        let update = find("UPDATE pods (bare)");
        assert!(update.sent_defaulted());
        assert_eq!(update.spec.old_object["spec"]["restartPolicy"], "Always");
        let refused = judge(update, never);
        assert!(apiserver_says(&refused).contains("pod updates may not change fields other than"), "{refused:?}");
    }

    /// A planned Service UPDATE's stored object holds the cluster IP the registry allocated: a
    /// patch that changes it is refused, one that leaves it out gets it back.
    #[test]
    fn a_planned_service_update_refuses_a_changed_cluster_ip() {
        let text = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: c}\nwebhooks:\n  - name: a.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: None\n    clientConfig: {url: \"https://hook.example.com/\"}\n    rules: [{operations: [UPDATE], apiGroups: [\"\"], apiVersions: [v1], resources: [services]}]\n";
        let services = Manifest::parse(Path::new("m.yaml"), text).unwrap().webhooks.remove(0);
        let planned = crate::requests::plan_in(&services, &ApiResources::built_in());
        let update = planned
            .iter()
            .find(|c| c.primary && c.spec.sub_resource.is_none() && c.object_kind().kind == "Service")
            .expect("a planned Service UPDATE");
        assert_eq!(update.spec.old_object["spec"]["clusterIP"], "10.96.0.10", "{}", update.spec.old_object);
        let moved = judge(update, json!([{"op": "add", "path": "/spec/clusterIP", "value": "10.96.0.99"}]));
        assert!(apiserver_says(&moved).contains("may not change once set"), "{moved:?}");
        let labelled = json!([{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}]);
        assert_eq!(judge(update, labelled), Check::Pass);
    }

    /// A case file's bare object is sent as written: the check judges the patch applied to it
    /// defaulted, as a cluster's webhook would have received it.
    #[test]
    fn a_case_files_bare_object_is_still_defaulted_and_patched_by_the_check() {
        let c = case(Operation::Create, pod(json!({"name": "web", "namespace": "default"})), Value::Null);
        assert!(!c.sent_defaulted());
        assert!(c.object()["spec"].get("restartPolicy").is_none());
        // The apiserver's JSON Patch library adds a missing member on replace: the patch applies
        // to the bare object and to the defaulted one.
        let replace = judge(&c, json!([{"op": "replace", "path": "/spec/restartPolicy", "value": "Never"}]));
        assert_eq!(replace, Check::Pass);
        let add = judge(&c, json!([{"op": "add", "path": "/spec/restartPolicy", "value": "Never"}]));
        assert_eq!(add, Check::Pass);
        let bad = judge(&c, json!([{"op": "add", "path": "/spec/restartPolicy", "value": "Sometimes"}]));
        assert!(apiserver_says(&bad).contains("spec.restartPolicy: Unsupported value: \"Sometimes\""), "{bad:?}");
        // A container injected without its defaults: the patched object is defaulted before validation.
        let sidecar = json!([{"op": "add", "path": "/spec/containers/-", "value": {"name": "s", "image": "s:1"}}]);
        assert_eq!(judge(&c, sidecar), Check::Pass);
    }

    /// managedFields a patch leaves that do not decode are put back by the apiserver: WARN
    /// `object.managed-fields`, and `object.valid` judges the object with the old ones (passing);
    /// entries that decode but name a manager the registry refuses FAIL `object.valid`.
    #[test]
    fn managed_fields_that_do_not_decode_warn_and_a_refused_manager_fails() {
        let entry = |manager: &str| json!({"manager": manager, "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {}}});
        let meta = json!({"name": "web", "namespace": "default", "managedFields": [entry("kubectl")]});
        let c = case(Operation::Create, pod(meta), Value::Null);
        let reset = |ops: Value| judge_by(super::super::managed_fields::reset, &c, ops);
        let untyped = json!([{"op": "add", "path": "/metadata/managedFields/-", "value": {"manager": "hook", "operation": "Update", "apiVersion": "v1"}}]);
        let Check::Violated(v) = reset(untyped.clone()) else { panic!("{:?}", reset(untyped)) };
        assert!(v.detail.contains("missing fieldsType in managed fields entry 1"), "{}", v.detail);
        assert!(v.detail.contains(".metadata.managedFields was in an invalid state after admission"), "{}", v.detail);
        assert_eq!(judge(&c, untyped), Check::Pass);
        // An operation the registry would refuse is put back before it validates.
        let patch_op = json!([{"op": "add", "path": "/metadata/managedFields/0/operation", "value": "Patch"}]);
        assert!(matches!(reset(patch_op.clone()), Check::Violated(_)));
        assert_eq!(judge(&c, patch_op), Check::Pass, "validated with the entries put back");
        let named = json!([{"op": "add", "path": "/metadata/managedFields/-", "value": entry("hook")}]);
        assert_eq!(reset(named.clone()), Check::Pass);
        assert_eq!(judge(&c, named), Check::Pass);
        let cleared = json!([{"op": "remove", "path": "/metadata/managedFields"}]);
        assert_eq!(reset(cleared), Check::Pass, "no managedFields decode");
        let long = json!([{"op": "add", "path": "/metadata/managedFields/-", "value": entry(&"m".repeat(129))}]);
        assert_eq!(reset(long.clone()), Check::Pass, "the manager is not read by the decoder");
        assert_eq!(
            apiserver_says(&judge(&c, long)),
            "Pod \"web\" is invalid: metadata.managedFields[1].manager: Too long: may not be more than 128 bytes"
        );
    }

    /// A Service's spec is validated: a port beyond 65535 added by the patch FAILs; on UPDATE a
    /// patch that drops the allocated cluster IPs passes (the registry puts the old ones back).
    #[test]
    fn a_service_port_the_apiserver_refuses_fails_and_dropped_cluster_ips_pass() {
        let service = |spec: Value| json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"}, "spec": spec});
        let (kind, resource) = (Gvk::new("", "v1", "Service"), GroupVersionResource::new("", "v1", "services"));
        let plain = service(json!({"ports": [{"name": "http", "port": 80}]}));
        let c = case_of(kind.clone(), resource.clone(), Operation::Create, plain, Value::Null);
        let bad =
            judge(&c, json!([{"op": "add", "path": "/spec/ports/-", "value": {"name": "metrics", "port": 70000}}]));
        assert_eq!(
            apiserver_says(&bad),
            "Service \"web\" is invalid: [spec.ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive, \
             spec.ports[1].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive]",
            "the target port defaults to the port"
        );
        let good =
            judge(&c, json!([{"op": "add", "path": "/spec/ports/-", "value": {"name": "metrics", "port": 9090}}]));
        assert_eq!(good, Check::Pass);
        let mut stored = service(
            json!({"clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.10"], "ports": [{"name": "http", "port": 80}]}),
        );
        stored["metadata"]["uid"] = json!("u1");
        stored["metadata"]["resourceVersion"] = json!("7");
        let c = case_of(kind, resource, Operation::Update, stored.clone(), stored);
        let dropped = judge(
            &c,
            json!([{"op": "remove", "path": "/spec/clusterIPs"}, {"op": "remove", "path": "/spec/clusterIP"}]),
        );
        assert_eq!(dropped, Check::Pass);
        let changed = judge(
            &c,
            json!([{"op": "replace", "path": "/spec/clusterIPs", "value": ["10.96.0.11"]},
                   {"op": "replace", "path": "/spec/clusterIP", "value": "10.96.0.11"}]),
        );
        assert!(apiserver_says(&changed)
            .contains("spec.clusterIPs[0]: Invalid value: [\"10.96.0.11\"]: may not change once set"));
        // clusterIPs alone out of step with clusterIP: the registry refuses it before it allocates,
        // and that refusal is the whole answer.
        let out_of_step = judge(&c, json!([{"op": "replace", "path": "/spec/clusterIPs", "value": ["10.96.0.11"]}]));
        assert_eq!(
            apiserver_says(&out_of_step),
            "Service \"web\" is invalid: spec.clusterIPs: Invalid value: [\"10.96.0.11\"]: first value must match `clusterIP`"
        );
    }

    fn stored_pod() -> Value {
        let mut p = pod(json!({"name": "web", "namespace": "default", "uid": "u1", "resourceVersion": "3"}));
        p["spec"]["restartPolicy"] = json!("Never");
        p["status"] = json!({"phase": "Running", "qosClass": "BestEffort"});
        p
    }

    /// On a pods/status UPDATE the status strategy puts the old spec back before validation: a
    /// container added by the patch is not refused (it is dropped); a changed qosClass is.
    #[test]
    fn a_pod_status_update_is_validated_after_the_status_strategys_reset() {
        let c = status_case(stored_pod(), stored_pod());
        let sidecar = json!([{"op": "add", "path": "/spec/containers/-", "value": {"name": "s", "image": "s:1"}}]);
        assert_eq!(judge(&c, sidecar.clone()), Check::Pass);
        let mut plain = c.clone();
        plain.spec.sub_resource = None;
        assert!(apiserver_says(&judge(&plain, sidecar)).contains("pod updates may not add or remove containers"));
        let qos = judge(&c, json!([{"op": "replace", "path": "/status/qosClass", "value": "Burstable"}]));
        assert_eq!(
            apiserver_says(&qos),
            "Pod \"web\" is invalid: status.qosClass: Invalid value: \"Burstable\": field is immutable"
        );
        let condition = judge(
            &c,
            json!([{"op": "add", "path": "/status/conditions", "value": [{"type": "bad type!", "status": "True"}]}]),
        );
        assert!(
            apiserver_says(&condition)
                .starts_with("Pod \"web\" is invalid: metadata.conditions[0].Type: Invalid value: \"bad type!\""),
            "{condition:?}"
        );
        let label = judge(&c, json!([{"op": "add", "path": "/metadata/labels", "value": {"app": "bad value!"}}]));
        assert!(apiserver_says(&label).contains("metadata.labels: Invalid value: \"bad value!\""), "{label:?}");
        assert_eq!(judge(&c, json!([{"op": "replace", "path": "/status/phase", "value": "Succeeded"}])), Check::Pass);
        // Another subresource stays unjudged.
        let mut binding = c.clone();
        binding.spec.sub_resource = Some("ephemeralcontainers".into());
        assert!(matches!(
            judge(&binding, json!([{"op": "replace", "path": "/status/qosClass", "value": "Burstable"}])),
            Check::NotApplicable(_)
        ));
    }

    #[test]
    fn a_spec_write_on_a_pod_status_update_is_reported_as_dropped_and_a_status_write_passes() {
        let c = status_case(stored_pod(), stored_pod());
        let dropped = judge_by(
            status_reset,
            &c,
            json!([
                {"op": "add", "path": "/spec/containers/-", "value": {"name": "s", "image": "s:1"}},
                {"op": "add", "path": "/metadata/ownerReferences", "value": [{"apiVersion": "v1", "kind": "Node", "name": "n", "uid": "x"}]},
                {"op": "add", "path": "/status/message", "value": "kept"}
            ]),
        );
        let Check::Violated(v) = &dropped else { panic!("{dropped:?}") };
        assert!(
            v.detail.starts_with("the patch writes /metadata/ownerReferences, /spec/containers (JSON pointers), which the registry puts back from the stored Pod on a /status UPDATE"),
            "{}",
            v.detail
        );
        let emptied = judge_by(status_reset, &c, json!([{"op": "remove", "path": "/status/qosClass"}]));
        assert!(
            matches!(&emptied, Check::Violated(v) if v.detail.starts_with("the patch writes /status/qosClass (JSON pointer)")),
            "{emptied:?}"
        );
        // A status field whose gate is off by default is dropped too (DropDisabledPodFields).
        let gated = json!([{"op": "add", "path": "/status/nodeAllocatableResourceClaimStatuses",
                            "value": [{"resourceClaimName": "c", "containers": ["c"], "resources": {"cpu": "1"}}]}]);
        let Check::Violated(v) = judge_by(status_reset, &c, gated) else { panic!("a gated status field is kept") };
        assert!(
            v.detail.starts_with("the patch writes /status/nodeAllocatableResourceClaimStatuses (JSON pointer)"),
            "{}",
            v.detail
        );
        let status =
            json!([{"op": "add", "path": "/status/conditions", "value": [{"type": "Ready", "status": "True"}]}]);
        assert_eq!(judge_by(status_reset, &c, status.clone()), Check::Pass);
        assert_eq!(judge_by(status_reset, &c, json!([])), Check::NotApplicable("no applied patch".into()));
        let mut plain = c.clone();
        plain.spec.sub_resource = None;
        let spec_write = json!([{"op": "replace", "path": "/spec/containers/0/image", "value": "j:2"}]);
        assert!(matches!(judge_by(status_reset, &plain, spec_write), Check::NotApplicable(_)));
    }

    /// An UPDATE of `<kind>s/status` (apps/v1) of a stored workload to the same object.
    fn workload_status_case(kind: &str) -> RequestCase {
        let object = json!({"apiVersion": "apps/v1", "kind": kind,
            "metadata": {"name": "web", "namespace": "default", "uid": "u1", "resourceVersion": "3", "labels": {"app": "web"}},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}},
            "status": {"replicas": 2, "readyReplicas": 2, "availableReplicas": 2}});
        let plural = format!("{}s", kind.to_lowercase());
        let gvr = GroupVersionResource::new("apps", "v1", &plural);
        let mut c = case_of(Gvk::new("apps", "v1", kind), gvr, Operation::Update, object.clone(), object);
        c.spec.sub_resource = Some("status".into());
        c
    }

    /// A workload's status is held to its kind's status validation after its strategy's reset; what
    /// the reset drops (a Deployment's spec and labels, a ReplicaSet's spec) is named.
    #[test]
    fn a_workload_status_update_is_validated_and_its_dropped_writes_named() {
        let d = workload_status_case("Deployment");
        let ready = json!([{"op": "replace", "path": "/status/readyReplicas", "value": 5}]);
        assert_eq!(
            apiserver_says(&judge(&d, ready)),
            "Deployment.apps \"web\" is invalid: status.readyReplicas: Invalid value: 5: cannot be greater than status.replicas"
        );
        let writes = json!([
            {"op": "replace", "path": "/spec/replicas", "value": 3},
            {"op": "add", "path": "/metadata/labels/team", "value": "bad value!"},
            {"op": "replace", "path": "/status/replicas", "value": 3}
        ]);
        // The bad label value and the spec are put back: valid.
        assert_eq!(judge(&d, writes.clone()), Check::Pass);
        let dropped = judge_by(status_reset, &d, writes.clone());
        let Check::Violated(v) = &dropped else { panic!("{dropped:?}") };
        assert!(
            v.detail.starts_with("the patch writes /metadata/labels/team, /spec/replicas (JSON pointers), which the registry puts back from the stored Deployment on a /status UPDATE (its status strategy's PrepareForUpdate keeps the old spec and labels)"),
            "{}",
            v.detail
        );
        // A ReplicaSet's labels are kept, so validated.
        let rs = workload_status_case("ReplicaSet");
        let Check::Violated(v) = judge_by(status_reset, &rs, writes.clone()) else { panic!() };
        assert!(v.detail.starts_with("the patch writes /spec/replicas (JSON pointer),"), "{}", v.detail);
        assert!(v.detail.contains("keeps the old spec)"), "{}", v.detail);
        assert!(apiserver_says(&judge(&rs, writes)).contains("metadata.labels: Invalid value: \"bad value!\""));
    }

    /// An UPDATE of `jobs/status` (batch/v1) of a running Job to the same object.
    fn job_status_case() -> RequestCase {
        let labels = json!({"batch.kubernetes.io/controller-uid": "u1", "batch.kubernetes.io/job-name": "web",
            "controller-uid": "u1", "job-name": "web"});
        let object = json!({"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "web", "namespace": "default", "uid": "u1", "resourceVersion": "3"},
            "spec": {"parallelism": 1, "completions": 1, "backoffLimit": 6,
                "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u1"}},
                "template": {"metadata": {"labels": labels},
                    "spec": {"restartPolicy": "Never", "containers": [{"name": "app", "image": "registry.example/app:1"}]}}},
            "status": {"active": 1, "ready": 1, "startTime": "2026-01-01T00:00:05Z"}});
        let gvr = GroupVersionResource::new("batch", "v1", "jobs");
        let mut c = case_of(Gvk::new("batch", "v1", "Job"), gvr, Operation::Update, object.clone(), object);
        c.spec.sub_resource = Some("status".into());
        c
    }

    /// A Job's status is held to `ValidateJobUpdateStatus` after its strategy's reset: a patch
    /// that finishes the Job without what the apiserver requires of a finished Job FAILs, the
    /// controller's own finishing write passes, and a spec write is put back and named.
    #[test]
    fn a_job_status_update_is_validated_and_its_dropped_spec_write_named() {
        let c = job_status_case();
        let complete =
            json!([{"op": "add", "path": "/status/conditions", "value": [{"type": "Complete", "status": "True"}]}]);
        assert_eq!(
            apiserver_says(&judge(&c, complete)),
            "Job.batch \"web\" is invalid: [status.completionTime: Required value: completionTime is required for Complete jobs, status.conditions: Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition, status.active: Invalid value: 1: active>0 is invalid for finished job]"
        );
        let finished = json!([
            {"op": "replace", "path": "/status", "value": {"succeeded": 1, "startTime": "2026-01-01T00:00:05Z",
                "completionTime": "2026-01-01T00:01:00Z", "conditions": [
                    {"type": "SuccessCriteriaMet", "status": "True"}, {"type": "Complete", "status": "True"}]}}
        ]);
        assert_eq!(judge(&c, finished.clone()), Check::Pass);
        assert_eq!(judge_by(status_reset, &c, finished), Check::Pass);
        let spec_write = json!([
            {"op": "replace", "path": "/spec/parallelism", "value": -1},
            {"op": "replace", "path": "/status/ready", "value": 0}
        ]);
        // The negative parallelism is put back: valid.
        assert_eq!(judge(&c, spec_write.clone()), Check::Pass);
        let Check::Violated(v) = judge_by(status_reset, &c, spec_write) else { panic!() };
        assert!(
            v.detail.starts_with("the patch writes /spec/parallelism (JSON pointer), which the registry puts back from the stored Job on a /status UPDATE (its status strategy's PrepareForUpdate keeps the old spec)"),
            "{}",
            v.detail
        );
    }

    #[test]
    fn the_kinds_whose_spec_is_not_validated_are_named_for_a_mutating_webhook_only() {
        let text = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: c}\nwebhooks:\n  - name: a.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: None\n    clientConfig: {url: \"https://hook.example.com/\"}\n    rules: [{operations: [CREATE, UPDATE], apiGroups: [\"\"], apiVersions: [v1], resources: [pods, services, persistentvolumeclaims, configmaps]}]\n";
        let w = Manifest::parse(Path::new("m.yaml"), text).unwrap().webhooks.remove(0);
        let note = unmodelled_note(&w, &ApiResources::built_in()).expect("a note");
        assert!(
            note.starts_with("a.example.com: object.valid validates only the metadata of PersistentVolumeClaim "),
            "{note}"
        );
        assert!(!note.contains("Pod") && !note.contains("ConfigMap") && !note.contains("Service"), "{note}");
        let pods_only = webhook();
        assert_eq!(unmodelled_note(&pods_only, &ApiResources::built_in()), None);
        let validating = Manifest::parse(
            Path::new("v.yaml"),
            &text.replace("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"),
        )
        .unwrap()
        .webhooks
        .remove(0);
        assert_eq!(unmodelled_note(&validating, &ApiResources::built_in()), None);
    }
}
