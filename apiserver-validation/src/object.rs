//! The whole validation the registry runs on an object after mutating admission: the defaults
//! applied to the patched object ([`crate::defaults`]), the metadata ([`crate::objectmeta`]), then
//! the kind's own spec validation where it is modelled ([`crate::pod`], [`crate::pod_update`],
//! [`crate::workloads`], [`crate::configdata`], [`crate::service`], [`crate::namespace`],
//! [`crate::ingress`]), all in one 422 as the kind's `Validate<Kind>` /
//! `Validate<Kind>Update` returns them (metadata errors first).

use std::borrow::Cow;

use serde_json::Value;

use crate::field::FieldError;
use crate::lookup::Lookup;
use crate::objectmeta::{validate_create, validate_update, Refusal, Scope};
use crate::scheduling::PodOptions;
use crate::{
    configdata, defaults, ingress, job_status, label_keys, namespace, pod, pod_annotations, pod_status, pod_update,
    service, workload_status, workloads,
};

/// The kinds whose spec (not only metadata) is validated here.
pub const SPEC_MODELLED: &[(&str, &str)] = &[
    ("", "Pod"),
    ("apps", "Deployment"),
    ("apps", "ReplicaSet"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("batch", "Job"),
    ("batch", "CronJob"),
    ("", "ConfigMap"),
    ("", "Secret"),
    ("", "Service"),
    ("", "Namespace"),
    ("", "ServiceAccount"),
    ("networking.k8s.io", "Ingress"),
];

/// The kinds whose `status` subresource UPDATE is modelled ([`validate_object_status_update`]).
pub const STATUS_MODELLED: &[(&str, &str)] = &[
    ("", "Pod"),
    ("apps", "Deployment"),
    ("apps", "ReplicaSet"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("batch", "Job"),
    ("batch", "CronJob"),
];

/// Whether an UPDATE of the `status` subresource of `group`/`kind` is validated here.
pub fn status_modelled(group: &str, kind: &str) -> bool {
    STATUS_MODELLED.contains(&(group, kind))
}

/// What the registry keeps of `object` (a `group`/`kind` object as decoded, on UPDATE over `old`)
/// once `PrepareForCreate` or `PrepareForUpdate` dropped the fields whose feature gate is off by
/// default in 1.36 (`DropDisabledPodFields` for a Pod, `DropDisabledTemplateFields` for a
/// workload's pod template, before validation): the projections' `clusterTrustBundle` and
/// `podCertificate` sources, the containers' `lifecycle.stopSignal` and the pod's
/// `schedulingGroup` (`gated.rs`; every other field those functions drop is behind a gate on by
/// default in 1.36). `None` when nothing is dropped (the object is kept as it is), without copying it.
pub fn drop_disabled_fields(group: &str, kind: &str, object: &Value, old: Option<&Value>) -> Option<Value> {
    let pointer = match (group, kind) {
        ("", "Pod") => "/spec".to_string(),
        _ => format!("{}/spec", defaults::template_pointer(group, kind)?),
    };
    if !object.at(&pointer).is_some_and(crate::gated::holds_gated) {
        return None;
    }
    let mut kept = object.clone();
    let spec = kept.pointer_mut(&pointer)?;
    crate::gated::drop_disabled(spec, old.and_then(|o| o.at(&pointer))).then_some(kept)
}

/// The kind's status strategy's `PrepareForUpdate` on `object` over `old` (both as decoded):
/// [`pod_status::prepare_for_update`] or [`workload_status::prepare_for_update`]. Nothing for a
/// kind not in [`STATUS_MODELLED`].
pub fn prepare_status_update(group: &str, kind: &str, object: &mut Value, old: &Value) {
    match (group, kind) {
        ("", "Pod") => pod_status::prepare_for_update(object, old),
        _ if status_modelled(group, kind) => workload_status::prepare_for_update(group, kind, object, old),
        _ => {}
    }
}

/// What the status strategy of `group`/`kind` puts back from the stored object, in words after
/// "the old" (`spec and labels`); `None` for a kind not in [`STATUS_MODELLED`].
pub fn status_reset_words(group: &str, kind: &str) -> Option<&'static str> {
    match (group, kind) {
        _ if !status_modelled(group, kind) => None,
        ("", "Pod") => Some("spec, owner references and deletion timestamp, an emptied qosClass, and the status fields whose feature gate is off (DropDisabledPodFields)"),
        ("apps", "Deployment") => Some("spec and labels"),
        _ => Some("spec"),
    }
}

/// The object the registry stores for an UPDATE of the `status` subresource of `object` over
/// `old`, before validation: both defaulted, then the kind's status strategy's
/// `PrepareForUpdate` ([`prepare_status_update`]). `None` for a kind not in [`STATUS_MODELLED`].
pub fn status_reset(scope: &Scope, object: &Value, old: &Value) -> Option<Value> {
    if !status_modelled(scope.group, scope.kind) {
        return None;
    }
    let mut object = defaults::defaulted_cow(scope.group, scope.kind, object).into_owned();
    let old = defaults::defaulted_cow(scope.group, scope.kind, old);
    prepare_status_update(scope.group, scope.kind, &mut object, &old);
    Some(object)
}

/// The kind's status strategy's `ValidateUpdate` without the metadata's rules.
fn status_errors(group: &str, kind: &str, object: &Value, old: &Value) -> Vec<FieldError> {
    match (group, kind) {
        ("", "Pod") => pod_status::validate_pod_status_update(object, old),
        ("batch", "Job") => job_status::validate_job_status_update(object, old),
        _ => workload_status::validate_status_update(group, kind, object, old),
    }
}

/// What the registry refuses of `object` on an UPDATE of the `status` subresource of `old`:
/// [`status_reset`], then the metadata's update rules (`BeforeUpdate`'s `validateCommonFields`)
/// and the kind's status strategy's `ValidateUpdate` (`ValidatePodStatusUpdate`,
/// `Validate<Kind>StatusUpdate` of the apps kinds, `ValidateJobUpdateStatus`, nothing more for a
/// CronJob). A kind not in
/// [`STATUS_MODELLED`] is accepted.
pub fn validate_object_status_update(scope: &Scope, object: &Value, old: &Value) -> Result<(), Refusal> {
    let Some(object) = status_reset(scope, object, old) else { return Ok(()) };
    let old = defaults::defaulted_cow(scope.group, scope.kind, old);
    let meta = validate_update(scope, &object, &old);
    if let Err(r @ (Refusal::BadRequest(_) | Refusal::Conflict(_))) = meta {
        return Err(r);
    }
    join(meta, status_errors(scope.group, scope.kind, &object, &old))
}

/// Whether the spec of `group`/`kind` is validated here (else only its metadata is).
pub fn spec_modelled(group: &str, kind: &str) -> bool {
    SPEC_MODELLED.contains(&(group, kind))
}

fn spec_errors_create(group: &str, kind: &str, object: &Value) -> Vec<FieldError> {
    match (group, kind) {
        ("", "Pod") => pod::validate_pod_create(object),
        ("", "ConfigMap") => configdata::validate_config_map(object),
        ("", "Secret") => configdata::validate_secret(object),
        ("", "Service") => service::validate_service_create(object),
        ("", "Namespace") => namespace::validate_namespace(object),
        ("", "ServiceAccount") => namespace::validate_service_account(object),
        ("networking.k8s.io", "Ingress") => ingress::validate_ingress_create(object),
        _ => workloads::validate(group, kind, object, None),
    }
}

fn spec_errors_update(group: &str, kind: &str, object: &Value, old: &Value) -> Vec<FieldError> {
    match (group, kind) {
        ("", "Pod") => {
            let old_spec = old.member("spec").unwrap_or(&Value::Null);
            let opts = PodOptions::from_old_spec(old_spec).with_old_meta(old.member("metadata"));
            let mut errs = pod::validate_pod(object, opts);
            // ValidatePodSpecificAnnotationUpdates, which ends with ValidatePodSpecificAnnotations
            // again (its repeats are dropped by ToAggregate).
            errs.extend(pod_annotations::pod_specific_annotation_updates(
                object.member("metadata"),
                old.member("metadata"),
            ));
            let spec = object.member("spec").unwrap_or(&Value::Null);
            errs.extend(pod_annotations::validate_pod_specific_annotations(
                object.member("metadata"),
                spec,
                "metadata.annotations",
                opts,
            ));
            errs.extend(pod_update::validate_pod_update(object, old));
            errs
        }
        ("", "ConfigMap") => {
            let mut errs = configdata::validate_config_map_update(object, old);
            errs.extend(configdata::validate_config_map(object));
            errs
        }
        ("", "Secret") => {
            let mut errs = configdata::validate_secret_update(object, old);
            errs.extend(configdata::validate_secret(object));
            errs
        }
        ("", "Service") => service::validate_service_update(object, old),
        // ValidateNamespaceUpdate: the metadata only (the strategy keeps the old spec).
        ("", "Namespace") => Vec::new(),
        ("", "ServiceAccount") => namespace::validate_service_account(object),
        ("networking.k8s.io", "Ingress") => ingress::validate_ingress_update(object, old),
        _ => {
            let mut errs = workloads::validate(group, kind, object, Some(old));
            errs.extend(workloads::validate_update(group, kind, object, old));
            errs
        }
    }
}

/// The metadata's refusal and the spec's errors in one 422 (metadata errors first); a 400 or 409
/// of the metadata alone.
pub(crate) fn join(meta: Result<(), Refusal>, spec: Vec<FieldError>) -> Result<(), Refusal> {
    match meta {
        Err(Refusal::Invalid(mut errs)) => {
            errs.extend(spec);
            Err(Refusal::Invalid(errs))
        }
        Err(other) => Err(other),
        Ok(()) if spec.is_empty() => Ok(()),
        Ok(()) => Err(Refusal::Invalid(spec)),
    }
}

/// What the registry refuses of `object` on CREATE: defaulted, the strategy's `PrepareForCreate`
/// where it changes what is validated (a Service's cluster IPs, a Pod's label keys merged into its
/// selectors), a Service's cluster IPs as the registry checks them before it allocates, then
/// metadata and spec.
pub fn validate_object_create(scope: &Scope, object: &Value) -> Result<(), Refusal> {
    create(scope, defaults::defaulted_cow(scope.group, scope.kind, object))
}

/// [`validate_object_create`] of an object already defaulted as the apiserver's decoder defaults
/// it (e.g. a defaulted object that a patch changed only where the defaults do not look,
/// [`defaults::patch_keeps_defaults`]): the same answer, without defaulting it again.
pub fn validate_defaulted_create(scope: &Scope, object: &Value) -> Result<(), Refusal> {
    create(scope, Cow::Borrowed(object))
}

/// [`validate_object_create`] of the defaulted object.
fn create(scope: &Scope, mut object: Cow<'_, Value>) -> Result<(), Refusal> {
    if (scope.group, scope.kind) == ("", "Service") {
        service::prepare_create(object.to_mut());
    }
    if (scope.group, scope.kind) == ("", "Pod") && label_keys::merge_changes(&object) {
        label_keys::merge_label_keys(object.to_mut());
    }
    let meta = validate_create(scope, &object).map(|_| ());
    if let Err(r @ (Refusal::BadRequest(_) | Refusal::Conflict(_))) = meta {
        return Err(r);
    }
    if (scope.group, scope.kind) == ("", "Service") {
        let before_allocation = service::cluster_ips_before_allocation(&object, None);
        if !before_allocation.is_empty() {
            return Err(Refusal::Invalid(before_allocation));
        }
    }
    join(meta, spec_errors_create(scope.group, scope.kind, &object))
}

/// What the registry refuses of `object` on UPDATE of `old`: both defaulted, a Service's cluster
/// IPs as the registry checks them before it allocates, then metadata, the spec and the kind's
/// update rules.
pub fn validate_object_update(scope: &Scope, object: &Value, old: &Value) -> Result<(), Refusal> {
    validate_object_update_of_stored(scope, object, &defaults::defaulted_cow(scope.group, scope.kind, old))
}

/// [`validate_object_update`] of an `old` object already defaulted as the apiserver's decoder
/// defaults it (as a stored object is when it is read back): the same answer, without defaulting
/// `old` again.
pub fn validate_object_update_of_stored(scope: &Scope, object: &Value, old: &Value) -> Result<(), Refusal> {
    update(scope, defaults::defaulted_cow(scope.group, scope.kind, object), old)
}

/// [`validate_object_update_of_stored`] of an `object` already defaulted too (as
/// [`validate_defaulted_create`] takes it): the same answer, without defaulting either again.
pub fn validate_defaulted_update_of_stored(scope: &Scope, object: &Value, old: &Value) -> Result<(), Refusal> {
    update(scope, Cow::Borrowed(object), old)
}

/// [`validate_object_update_of_stored`] of the defaulted object.
fn update(scope: &Scope, mut object: Cow<'_, Value>, old: &Value) -> Result<(), Refusal> {
    if (scope.group, scope.kind) == ("", "Service") {
        service::prepare_update(object.to_mut(), old);
    }
    let meta = validate_update(scope, &object, old);
    if let Err(r @ (Refusal::BadRequest(_) | Refusal::Conflict(_))) = meta {
        return Err(r);
    }
    if (scope.group, scope.kind) == ("", "Service") {
        let before_allocation = service::cluster_ips_before_allocation(&object, Some(old));
        if !before_allocation.is_empty() {
            return Err(Refusal::Invalid(before_allocation));
        }
    }
    join(meta, spec_errors_update(scope.group, scope.kind, &object, old))
}
