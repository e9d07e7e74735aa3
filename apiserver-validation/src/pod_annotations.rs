//! The pod annotations kubernetes/kubernetes `pkg/apis/core/validation/validation.go` checks
//! (release-1.36), for a Pod and for a pod template:
//!
//! - `ValidatePodSpecificAnnotations`: the mirror pod annotation (`kubernetes.io/config.mirror`)
//!   needs `spec.nodeName`; the tolerations annotation's tolerations
//!   (`ValidateTolerationsInPodAnnotations`, decoded by [`crate::tolerations_annotation`]) are held
//!   to `ValidateTolerations`; the pod deletion cost (`controller.kubernetes.io/pod-deletion-cost`) a
//!   32-bit integer as `GetDeletionCostFromPodAnnotations` reads it, unless the old object's did not
//!   parse (`AllowInvalidPodDeletionCost`); `ValidateSeccompPodAnnotations` (`ValidateSeccompProfile` of
//!   `seccomp.security.alpha.kubernetes.io/pod` and each
//!   `container.seccomp.security.alpha.kubernetes.io/*`); `ValidateAppArmorPodAnnotations` (each
//!   `container.apparmor.security.beta.kubernetes.io/<name>` names a container, its value by
//!   `ValidateAppArmorProfileFormat`);
//! - `validateSeccompAnnotationsAndFields` (`validateSeccompAnnotationsAndFieldsMatch`): an
//!   annotation and the `seccompProfile` field it stands for agree (`ValidatePodCreate`,
//!   `ValidatePodTemplateSpec`);
//! - `validateAppArmorAnnotationsAndFieldsMatchOnCreate`: a container's annotation and its
//!   effective `appArmorProfile` (its own, else the pod's) agree (`ValidatePodCreate`,
//!   `ValidatePodTemplateSpec`). On a Pod's CREATE the registry first runs
//!   `pkg/registry/core/pod/strategy.go` `applyAppArmorVersionSkew` (`PrepareForCreate`): a
//!   container with the annotation and no field of its own gets the field the annotation stands
//!   for (`podutil.ApparmorFieldForAnnotation`) when that is valid, so only an annotation that
//!   cannot be converted is compared with the pod's profile;
//! - `ValidatePodSpecificAnnotationUpdates`: AppArmor and mirror pod annotations are neither
//!   added, changed nor removed on UPDATE (a Pod's, and an UPDATE of its `status`, whose
//!   strategy keeps the annotations written: `pod_status.rs`).
//!
//! Go ranges over the annotations map in no fixed order; the errors here follow the keys' order.
//! Not modelled: a tolerations annotation Go's JSON decoder refuses (its error is
//! `encoding/json`'s text).

use serde_json::{json, Value};

use crate::deletion_cost::{deletion_cost_valid, POD_DELETION_COST};
use crate::field::{go_quote, FieldError};
use crate::field_formats::{local_descending_path, str_value};
use crate::lookup::Lookup;
use crate::scheduling::{validate_tolerations, PodOptions};
use crate::tolerations_annotation::{self, TOLERATIONS_ANNOTATION};
use crate::zero_values::{list, s};

/// `core.MirrorPodAnnotationKey`.
pub const MIRROR_POD: &str = "kubernetes.io/config.mirror";
/// `core.SeccompPodAnnotationKey`.
pub const SECCOMP_POD: &str = "seccomp.security.alpha.kubernetes.io/pod";
/// `core.SeccompContainerAnnotationKeyPrefix`.
pub const SECCOMP_CONTAINER_PREFIX: &str = "container.seccomp.security.alpha.kubernetes.io/";
/// `v1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix`.
pub const APPARMOR_CONTAINER_PREFIX: &str = "container.apparmor.security.beta.kubernetes.io/";

const LOCALHOST_PREFIX: &str = "localhost/";
const RUNTIME_DEFAULT: &str = "runtime/default";
const DOCKER_DEFAULT: &str = "docker/default";
const UNCONFINED: &str = "unconfined";

/// A metadata's annotations, string values only (what decodes into `map[string]string`), in the
/// keys' order.
fn annotations(meta: Option<&Value>) -> Vec<(&str, &str)> {
    let mut out: Vec<(&str, &str)> = meta
        .and_then(|m| m.member("annotations"))
        .and_then(Value::as_object)
        .map(|m| m.iter().filter_map(|(k, v)| Some((k.as_str(), v.as_str()?))).collect())
        .unwrap_or_default();
    out.sort_unstable();
    out
}

fn lookup<'a>(pairs: &[(&str, &'a str)], key: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

/// `VisitContainersWithPath`: init containers, containers, ephemeral containers, each with the
/// list holding it and its index there (its field path is [`container_path`]'s).
fn containers(spec: &Value) -> impl Iterator<Item = (&Value, &'static str, usize)> {
    ["initContainers", "containers", "ephemeralContainers"]
        .into_iter()
        .flat_map(move |key| list(spec, key).iter().enumerate().map(move |(i, c)| (c, key, i)))
}

/// The field path of the container at `index` of the list `key` of the spec at `spec_path`.
fn container_path(spec_path: &str, key: &str, index: usize) -> String {
    format!("{spec_path}.{key}[{index}]")
}

/// The value of the annotation `{prefix}{name}` (a container's, by its name).
fn container_annotation<'a>(pairs: &[(&str, &'a str)], prefix: &str, name: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| k.strip_prefix(prefix) == Some(name)).map(|(_, v)| *v)
}

/// `ValidateSeccompProfile` of an annotation's value.
fn seccomp_profile(p: &str, path: &str) -> Vec<FieldError> {
    if p == RUNTIME_DEFAULT || p == DOCKER_DEFAULT || p == UNCONFINED {
        return Vec::new();
    }
    match p.strip_prefix(LOCALHOST_PREFIX) {
        Some(rest) => local_descending_path(rest, path),
        None => vec![FieldError::invalid(path, str_value(p), "must be a valid seccomp profile")],
    }
}

/// `ValidateAppArmorProfileFormat`'s error text.
fn apparmor_format(profile: &str) -> Option<String> {
    if profile.is_empty()
        || profile == RUNTIME_DEFAULT
        || profile == UNCONFINED
        || profile.starts_with(LOCALHOST_PREFIX)
    {
        None
    } else {
        Some(format!("invalid AppArmor profile name: {}", go_quote(profile)))
    }
}

/// `ValidatePodSpecificAnnotations` (the mirror pod, pod deletion cost, seccomp and AppArmor annotations) of the
/// metadata `meta` with the pod spec `spec`, under `path` (`metadata.annotations`, or a template's
/// `….template.annotations`).
pub fn validate_pod_specific_annotations(
    meta: Option<&Value>,
    spec: &Value,
    path: &str,
    opts: PodOptions,
) -> Vec<FieldError> {
    let pairs = annotations(meta);
    let mut errs = Vec::new();
    if let Some(value) = lookup(&pairs, MIRROR_POD) {
        if s(spec, "nodeName").is_empty() {
            errs.push(FieldError::invalid(
                &format!("{path}[{MIRROR_POD}]"),
                str_value(value),
                "must set spec.nodeName if mirror pod annotation is set",
            ));
        }
    }
    // ValidateTolerationsInPodAnnotations, for a text Go decodes as this model reads it (see
    // crate::tolerations_annotation: the others are named by crate::unmodelled).
    if let Some(value) = lookup(&pairs, TOLERATIONS_ANNOTATION).filter(|v| !v.is_empty()) {
        if let Some(tolerations) = tolerations_annotation::decode(value) {
            errs.extend(validate_tolerations(&tolerations, &format!("{path}.{TOLERATIONS_ANNOTATION}")));
        }
    }
    if let Some(value) = lookup(&pairs, POD_DELETION_COST).filter(|_| !opts.allow_invalid_pod_deletion_cost) {
        if !deletion_cost_valid(value) {
            errs.push(FieldError::invalid(
                &format!("{path}[{POD_DELETION_COST}]"),
                str_value(value),
                "must be a 32bit integer",
            ));
        }
    }
    // ValidateSeccompPodAnnotations: fldPath.Child(key), a dotted path.
    if let Some(p) = lookup(&pairs, SECCOMP_POD) {
        errs.extend(seccomp_profile(p, &format!("{path}.{SECCOMP_POD}")));
    }
    for (k, p) in &pairs {
        if k.starts_with(SECCOMP_CONTAINER_PREFIX) {
            errs.extend(seccomp_profile(p, &format!("{path}.{k}")));
        }
    }
    // ValidateAppArmorPodAnnotations.
    let names: Vec<&str> = containers(spec).map(|(c, _, _)| s(c, "name")).collect();
    for (k, p) in &pairs {
        let Some(name) = k.strip_prefix(APPARMOR_CONTAINER_PREFIX) else { continue };
        let key_path = format!("{path}[{k}]");
        if !names.contains(&name) {
            errs.push(FieldError::invalid(&key_path, str_value(name), "container not found"));
        }
        if let Some(msg) = apparmor_format(p) {
            errs.push(FieldError::invalid(&key_path, str_value(p), msg));
        }
    }
    errs
}

/// `validateSeccompAnnotationsAndFieldsMatch`.
fn seccomp_match(annotation: &str, profile: &Value, path: &str) -> Option<FieldError> {
    let type_error =
        || Some(FieldError::forbidden(&format!("{path}.type"), "seccomp type in annotation and field must match"));
    match s(profile, "type") {
        "Unconfined" if annotation != UNCONFINED => type_error(),
        "RuntimeDefault" if annotation != RUNTIME_DEFAULT && annotation != DOCKER_DEFAULT => type_error(),
        "Localhost" => match annotation.strip_prefix(LOCALHOST_PREFIX) {
            None => type_error(),
            Some(rest) if profile.member("localhostProfile").and_then(Value::as_str) != Some(rest) => {
                Some(FieldError::forbidden(
                    &format!("{path}.localhostProfile"),
                    "seccomp profile in annotation and field must match",
                ))
            }
            Some(_) => None,
        },
        _ => None,
    }
}

fn profile_of<'a>(holder: &'a Value, key: &str) -> Option<&'a Value> {
    holder.member("securityContext").and_then(|sc| sc.member(key)).filter(|p| !p.is_null())
}

/// `validateSeccompAnnotationsAndFields`: the pod's annotation against the pod's field, each
/// container's against the container's own field, under `spec_path`.
pub fn seccomp_annotations_and_fields(meta: Option<&Value>, spec: &Value, spec_path: &str) -> Vec<FieldError> {
    let pairs = annotations(meta);
    let mut errs = Vec::new();
    if let (Some(profile), Some(annotation)) = (profile_of(spec, "seccompProfile"), lookup(&pairs, SECCOMP_POD)) {
        errs.extend(seccomp_match(annotation, profile, &format!("{spec_path}.securityContext.seccompProfile")));
    }
    for (c, key, i) in containers(spec) {
        let Some(profile) = profile_of(c, "seccompProfile") else { continue };
        if let Some(annotation) = container_annotation(&pairs, SECCOMP_CONTAINER_PREFIX, s(c, "name")) {
            let c_path = container_path(spec_path, key, i);
            errs.extend(seccomp_match(annotation, profile, &format!("{c_path}.securityContext.seccompProfile")));
        }
    }
    errs
}

/// `podutil.ApparmorFieldForAnnotation`, kept only when `ValidateAppArmorProfileField` accepts it:
/// the field `applyAppArmorVersionSkew` copies into a container.
fn apparmor_field_for_annotation(annotation: &str) -> Option<Value> {
    match annotation {
        UNCONFINED => Some(json!({"type": "Unconfined"})),
        RUNTIME_DEFAULT => Some(json!({"type": "RuntimeDefault"})),
        _ => {
            let profile = annotation.strip_prefix(LOCALHOST_PREFIX).filter(|p| !p.is_empty())?;
            (profile.trim() == profile && profile.len() <= 4095)
                .then(|| json!({"type": "Localhost", "localhostProfile": profile}))
        }
    }
}

/// `validateAppArmorAnnotationsAndFieldsMatchOnCreate` under `spec_path`; `version_skew` for a
/// Pod's CREATE, whose `applyAppArmorVersionSkew` has filled a container's field from its
/// annotation first.
pub fn apparmor_annotations_and_fields_on_create(
    meta: Option<&Value>,
    spec: &Value,
    spec_path: &str,
    version_skew: bool,
) -> Vec<FieldError> {
    if spec.member("os").map(|os| s(os, "name")) == Some("windows") {
        return Vec::new();
    }
    let pairs = annotations(meta);
    let pod_profile = profile_of(spec, "appArmorProfile");
    let mut errs = Vec::new();
    for (c, key, i) in containers(spec) {
        let Some(annotation) = container_annotation(&pairs, APPARMOR_CONTAINER_PREFIX, s(c, "name")) else { continue };
        let synced = if version_skew && profile_of(c, "appArmorProfile").is_none() {
            apparmor_field_for_annotation(annotation)
        } else {
            None
        };
        let Some(profile) = synced.as_ref().or(profile_of(c, "appArmorProfile")).or(pod_profile) else { continue };
        let path = format!("{}.securityContext.appArmorProfile", container_path(spec_path, key, i));
        let type_error =
            || FieldError::forbidden(&format!("{path}.type"), "apparmor type in annotation and field must match");
        match s(profile, "type") {
            "Unconfined" if annotation != UNCONFINED => errs.push(type_error()),
            "RuntimeDefault" if annotation != RUNTIME_DEFAULT => errs.push(type_error()),
            "Localhost" => match annotation.strip_prefix(LOCALHOST_PREFIX) {
                None => errs.push(type_error()),
                Some(rest) if profile.member("localhostProfile").and_then(Value::as_str) != Some(rest) => {
                    errs.push(FieldError::forbidden(
                        &format!("{path}.localhostProfile"),
                        "apparmor profile in annotation and field must match",
                    ));
                }
                Some(_) => {}
            },
            _ => {}
        }
    }
    errs
}

/// `ValidatePodSpecificAnnotationUpdates` without its closing `ValidatePodSpecificAnnotations`
/// (the caller's [`validate_pod_specific_annotations`] of the new pod): AppArmor and mirror pod
/// annotations changed or removed, then added.
pub fn pod_specific_annotation_updates(new_meta: Option<&Value>, old_meta: Option<&Value>) -> Vec<FieldError> {
    let new = annotations(new_meta);
    let old = annotations(old_meta);
    let path = "metadata.annotations";
    let mut errs = Vec::new();
    for (k, old_value) in &old {
        if lookup(&new, k) == Some(*old_value) {
            continue;
        }
        if k.starts_with(APPARMOR_CONTAINER_PREFIX) {
            errs.push(FieldError::forbidden(&format!("{path}[{k}]"), "may not remove or update AppArmor annotations"));
        }
        if *k == MIRROR_POD {
            errs.push(FieldError::forbidden(&format!("{path}[{k}]"), "may not remove or update mirror pod annotation"));
        }
    }
    for (k, _) in &new {
        if lookup(&old, k).is_some() {
            continue;
        }
        if k.starts_with(APPARMOR_CONTAINER_PREFIX) {
            errs.push(FieldError::forbidden(&format!("{path}[{k}]"), "may not add AppArmor annotations"));
        }
        if *k == MIRROR_POD {
            errs.push(FieldError::forbidden(&format!("{path}[{k}]"), "may not add mirror pod annotation"));
        }
    }
    errs
}

/// Whether a Pod's metadata carries the mirror pod annotation (with any value).
pub(crate) fn is_mirror(metadata: Option<&Value>) -> bool {
    metadata
        .and_then(|m| m.member("annotations"))
        .and_then(Value::as_object)
        .is_some_and(|a| a.contains_key(MIRROR_POD))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::field::texts;

    /// A mirror pod is one whose annotations hold the mirror pod key, whatever its value.
    #[test]
    fn a_mirror_pod_carries_the_annotation() {
        assert!(is_mirror(Some(&json!({"annotations": {MIRROR_POD: ""}}))));
        assert!(!is_mirror(Some(&json!({"annotations": {"team": "a"}}))));
        assert!(!is_mirror(None));
    }

    fn meta(annotations: Value) -> Value {
        json!({"name": "p", "annotations": annotations})
    }

    fn spec(pod_sc: Value, container_sc: Value) -> Value {
        json!({"securityContext": pod_sc, "containers": [{"name": "app", "image": "a", "securityContext": container_sc}]})
    }

    /// The annotations' errors of a pod with one container `app` and no security contexts, on CREATE.
    fn bare_pod_errors(meta: &Value) -> Vec<FieldError> {
        validate_pod_specific_annotations(
            Some(meta),
            &spec(json!({}), json!({})),
            "metadata.annotations",
            PodOptions::default(),
        )
    }

    #[test]
    fn seccomp_annotations_take_the_known_profiles_and_relative_localhost_paths() {
        let ok = meta(
            json!({SECCOMP_POD: "runtime/default", "container.seccomp.security.alpha.kubernetes.io/app": "localhost/p.json"}),
        );
        assert!(bare_pod_errors(&ok).is_empty());
        let bad = meta(
            json!({SECCOMP_POD: "strict", "container.seccomp.security.alpha.kubernetes.io/app": "localhost/../p"}),
        );
        assert_eq!(
            texts(&bare_pod_errors(&bad)),
            [
                "metadata.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: \"strict\": must be a valid seccomp profile",
                "metadata.annotations.container.seccomp.security.alpha.kubernetes.io/app: Invalid value: \"../p\": must not contain '..'",
            ]
        );
    }

    #[test]
    fn apparmor_annotations_name_a_container_and_a_known_profile() {
        let ok = meta(json!({"container.apparmor.security.beta.kubernetes.io/app": "localhost/k8s-default"}));
        assert!(bare_pod_errors(&ok).is_empty());
        let bad = meta(json!({"container.apparmor.security.beta.kubernetes.io/db": "strict"}));
        assert_eq!(
            texts(&bare_pod_errors(&bad)),
            [
                "metadata.annotations[container.apparmor.security.beta.kubernetes.io/db]: Invalid value: \"db\": container not found",
                "metadata.annotations[container.apparmor.security.beta.kubernetes.io/db]: Invalid value: \"strict\": invalid AppArmor profile name: \"strict\"",
            ]
        );
    }

    #[test]
    fn a_pod_deletion_cost_is_a_32_bit_integer_without_sign_or_leading_zeros() {
        for ok in ["0", "10", "-10", "-007", "2147483647", "-2147483648"] {
            assert!(deletion_cost_valid(ok), "{ok}");
        }
        for bad in ["", "+10", "007", "00", "-", "1.5", "2147483648", "ten", " 1"] {
            assert!(!deletion_cost_valid(bad), "{bad:?}");
        }
        let meta = |v: &str| json!({"annotations": {POD_DELETION_COST: v}});
        let spec = spec(json!({}), json!({}));
        let create = PodOptions::default();
        assert_eq!(
            texts(&validate_pod_specific_annotations(Some(&meta("+10")), &spec, "metadata.annotations", create)),
            ["metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: \"+10\": must be a 32bit integer"]
        );
        // An UPDATE of an object whose cost did not parse checks none.
        let lax = create.with_old_meta(Some(&meta("x")));
        assert!(validate_pod_specific_annotations(Some(&meta("y")), &spec, "metadata.annotations", lax).is_empty());
        let strict = create.with_old_meta(Some(&meta("5")));
        assert_eq!(validate_pod_specific_annotations(Some(&meta("y")), &spec, "metadata.annotations", strict).len(), 1);
    }

    #[test]
    fn a_mirror_pod_needs_a_node() {
        let m = meta(json!({MIRROR_POD: "abc"}));
        assert_eq!(
            texts(&bare_pod_errors(&m)),
            ["metadata.annotations[kubernetes.io/config.mirror]: Invalid value: \"abc\": must set spec.nodeName if mirror pod annotation is set"]
        );
        let mut on_node = spec(json!({}), json!({}));
        on_node["nodeName"] = json!("n1");
        assert!(validate_pod_specific_annotations(Some(&m), &on_node, "metadata.annotations", PodOptions::default())
            .is_empty());
    }

    #[test]
    fn seccomp_annotations_and_fields_must_agree() {
        let m = meta(
            json!({SECCOMP_POD: "runtime/default", "container.seccomp.security.alpha.kubernetes.io/app": "localhost/a.json"}),
        );
        let agree = spec(
            json!({"seccompProfile": {"type": "RuntimeDefault"}}),
            json!({"seccompProfile": {"type": "Localhost", "localhostProfile": "a.json"}}),
        );
        assert!(seccomp_annotations_and_fields(Some(&m), &agree, "spec").is_empty());
        let differ = spec(
            json!({"seccompProfile": {"type": "Unconfined"}}),
            json!({"seccompProfile": {"type": "Localhost", "localhostProfile": "b.json"}}),
        );
        assert_eq!(
            texts(&seccomp_annotations_and_fields(Some(&m), &differ, "spec")),
            [
                "spec.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match",
                "spec.containers[0].securityContext.seccompProfile.localhostProfile: Forbidden: seccomp profile in annotation and field must match",
            ]
        );
        // A field without its annotation, or an annotation without its field: nothing to compare.
        assert!(seccomp_annotations_and_fields(Some(&meta(json!({}))), &differ, "spec").is_empty());
        assert!(seccomp_annotations_and_fields(Some(&m), &spec(json!({}), json!({})), "spec").is_empty());
    }

    #[test]
    fn apparmor_annotations_meet_the_effective_field_after_the_version_skew() {
        let m = meta(json!({"container.apparmor.security.beta.kubernetes.io/app": "localhost/custom"}));
        let pod_level = spec(json!({"appArmorProfile": {"type": "RuntimeDefault"}}), json!({}));
        // A Pod: the container takes the annotation's field, which agrees with it.
        assert!(apparmor_annotations_and_fields_on_create(Some(&m), &pod_level, "spec", true).is_empty());
        // A template: no version skew, the pod's profile is compared.
        assert_eq!(
            texts(&apparmor_annotations_and_fields_on_create(Some(&m), &pod_level, "spec.template.spec", false)),
            ["spec.template.spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match"]
        );
        // The container's own field is never replaced.
        let own = spec(json!({}), json!({"appArmorProfile": {"type": "Localhost", "localhostProfile": "other"}}));
        assert_eq!(
            texts(&apparmor_annotations_and_fields_on_create(Some(&m), &own, "spec", true)),
            ["spec.containers[0].securityContext.appArmorProfile.localhostProfile: Forbidden: apparmor profile in annotation and field must match"]
        );
        // Windows pods are skipped.
        let mut windows = own.clone();
        windows["os"] = json!({"name": "windows"});
        assert!(apparmor_annotations_and_fields_on_create(Some(&m), &windows, "spec", true).is_empty());
    }

    #[test]
    fn apparmor_and_mirror_annotations_do_not_change_on_update() {
        let old = meta(json!({"container.apparmor.security.beta.kubernetes.io/app": "runtime/default", "team": "a"}));
        let new = meta(
            json!({"container.apparmor.security.beta.kubernetes.io/app": "unconfined", MIRROR_POD: "x", "team": "b"}),
        );
        assert_eq!(
            texts(&pod_specific_annotation_updates(Some(&new), Some(&old))),
            [
                "metadata.annotations[container.apparmor.security.beta.kubernetes.io/app]: Forbidden: may not remove or update AppArmor annotations",
                "metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod annotation",
            ]
        );
        assert!(pod_specific_annotation_updates(Some(&old), Some(&old)).is_empty());
    }
}
