//! What kubernetes/kubernetes `pkg/apis/apps/validation/validation.go` (release-1.36) checks of a
//! StatefulSet beyond the other apps workloads ([`crate::workloads`] runs them in Go's order):
//! `StatefulSetValidationOptions` as `ValidateStatefulSet` and `ValidateStatefulSetUpdate` set them,
//! `validateVolumeClaimTemplates` (each claim template's spec as
//! `ValidatePersistentVolumeClaimSpec` checks it, [`crate::claim_spec`]), the `serviceName` DNS
//! label, and the pod template `ValidateStatefulSetSpec` validates in place of the stored one
//! (`volumesToAddForTemplates`: the claims the controller mounts, and no `hostname` or `subdomain`,
//! which the controller overwrites).
//!
//! The rolling update's `maxUnavailable` is [`crate::rollout`]'s; `revisionHistoryLimit` is not
//! validated at all (`statefulSetStrategy.WarningsOnCreate` only warns of a negative one) and may
//! change on UPDATE.

use std::borrow::Cow;

use serde_json::{json, Value};

use crate::claim_spec::validate_claim_spec;
use crate::field::FieldError;
use crate::field_formats::dns_label;
use crate::lookup::member_of;
use crate::lookup::Lookup;
use crate::zero_values::{list, s};

/// `StatefulSetValidationOptions`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatefulSetOptions {
    /// `AllowInvalidServiceName`: the service name is immutable, an old invalid one is kept.
    pub allow_invalid_service_name: bool,
    /// `SkipValidatePodTemplateSpec`: set on UPDATE when the old spec does not validate.
    pub skip_pod_template_spec: bool,
    /// `SkipValidateVolumeClaimTemplates`: the claim templates are immutable, checked on CREATE only.
    pub skip_volume_claim_templates: bool,
}

impl StatefulSetOptions {
    /// The options of `ValidateStatefulSetUpdate` before it judges the old spec with them (an old
    /// spec with any error then sets [`StatefulSetOptions::skip_pod_template_spec`]).
    pub fn update() -> Self {
        StatefulSetOptions {
            allow_invalid_service_name: true,
            skip_pod_template_spec: false,
            skip_volume_claim_templates: true,
        }
    }
}

/// `validateVolumeClaimTemplates` of the spec's claim templates, at `spec.volumeClaimTemplates`.
pub fn volume_claim_templates(spec: &Value, opts: StatefulSetOptions) -> Vec<FieldError> {
    if opts.skip_volume_claim_templates {
        return Vec::new();
    }
    let null = Value::Null;
    list(spec, "volumeClaimTemplates")
        .iter()
        .enumerate()
        .flat_map(|(i, claim)| {
            validate_claim_spec(claim.member("spec").unwrap_or(&null), &format!("spec.volumeClaimTemplates[{i}].spec"))
        })
        .collect()
}

/// `ValidateDNS1123Label` of a set `serviceName`, unless the options allow an invalid one.
pub fn service_name(spec: &Value, opts: StatefulSetOptions) -> Vec<FieldError> {
    let name = s(spec, "serviceName");
    if opts.allow_invalid_service_name || name.is_empty() {
        return Vec::new();
    }
    dns_label(name, "spec.serviceName")
}

/// The claim templates' names, each once, in the order they first appear. Go gathers them in a map
/// and lists its values in random order; only a template whose name fails the volume checks makes
/// the order show (its error's index).
fn claim_names(spec: &Value) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for claim in list(spec, "volumeClaimTemplates") {
        let name = claim.at("/metadata/name").and_then(Value::as_str).unwrap_or("");
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The template `ValidateStatefulSetSpec` validates: without `hostname` and `subdomain`, and, with
/// claim templates, with a `persistentVolumeClaim` volume per claim name first, then the template's
/// volumes of other names (a template volume named as a claim is replaced, not validated).
pub fn template_to_validate(spec: &Value) -> Cow<'_, Value> {
    let template = spec.member("template").unwrap_or(&Value::Null);
    let pod = template.member("spec");
    let names = claim_names(spec);
    let has = |key: &str| pod.and_then(|p| p.member(key)).and_then(Value::as_str).is_some_and(|v| !v.is_empty());
    if names.is_empty() && !has("hostname") && !has("subdomain") {
        return Cow::Borrowed(template);
    }
    let mut copy = template.clone();
    if !copy.is_object() {
        copy = json!({});
    }
    let pod = copy.as_object_mut().and_then(|t| {
        if !member_of(t, "spec").is_some_and(Value::is_object) {
            t.insert("spec".into(), json!({}));
        }
        t.get_mut("spec").and_then(Value::as_object_mut)
    });
    let Some(pod) = pod else { return Cow::Owned(copy) };
    pod.remove("hostname");
    pod.remove("subdomain");
    if !names.is_empty() {
        let mut volumes: Vec<Value> =
            names.iter().map(|n| json!({"name": n, "persistentVolumeClaim": {"claimName": n}})).collect();
        let own = member_of(pod, "volumes").and_then(Value::as_array).cloned().unwrap_or_default();
        volumes.extend(
            own.into_iter().filter(|v| !names.contains(&v.member("name").and_then(Value::as_str).unwrap_or(""))),
        );
        pod.insert("volumes".into(), Value::Array(volumes));
    }
    Cow::Owned(copy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::texts;

    #[test]
    fn claim_templates_are_checked_on_create_only() {
        let spec = json!({"volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}}}}, {"metadata": {"name": "logs"}, "spec": {}}]});
        assert_eq!(
            texts(&volume_claim_templates(&spec, StatefulSetOptions::default())),
            [
                "spec.volumeClaimTemplates[1].spec.accessModes: Required value: at least 1 access mode is required",
                "spec.volumeClaimTemplates[1].spec.resources[storage]: Required value"
            ]
        );
        assert!(volume_claim_templates(&spec, StatefulSetOptions::update()).is_empty());
    }

    #[test]
    fn the_service_name_is_a_dns_label_on_create() {
        let spec = json!({"serviceName": "Web.svc"});
        let errs = service_name(&spec, StatefulSetOptions::default());
        assert_eq!(errs.len(), 1);
        assert!(errs[0]
            .to_string()
            .starts_with("spec.serviceName: Invalid value: \"Web.svc\": a lowercase RFC 1123 label"));
        assert!(service_name(&spec, StatefulSetOptions::update()).is_empty());
        assert!(service_name(&json!({"serviceName": "web"}), StatefulSetOptions::default()).is_empty());
    }

    #[test]
    fn the_validated_template_mounts_the_claims_and_drops_the_identity() {
        let spec = json!({
            "volumeClaimTemplates": [{"metadata": {"name": "data"}}, {"metadata": {"name": "data"}}],
            "template": {"spec": {"hostname": "Not_A_Label", "subdomain": "x",
                "volumes": [{"name": "data", "hostPath": {"path": "relative"}}, {"name": "cfg", "emptyDir": {}}]}}
        });
        let t = template_to_validate(&spec);
        assert_eq!(
            t["spec"],
            json!({"volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
                               {"name": "cfg", "emptyDir": {}}]})
        );
        // Nothing to change: the template itself.
        let plain = json!({"template": {"spec": {"volumes": [{"name": "cfg", "emptyDir": {}}]}}});
        assert!(matches!(template_to_validate(&plain), Cow::Borrowed(_)));
    }
}
