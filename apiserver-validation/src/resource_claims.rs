//! A pod's resource claims as kubernetes/kubernetes `pkg/apis/core/validation/validation.go`
//! validates them (release-1.36): `validatePodResourceClaims` and `validatePodResourceClaim` for
//! `spec.resourceClaims` (`ValidatePodSpec` runs them after the volumes), `gatherPodResourceClaimNames`
//! for the names the containers may use, and `validateResourceClaimNames`, the last check of
//! `validateResourceRequirements`, for a container's `resources.claims` (every container list, the
//! ephemeral containers included, through `ValidateContainerResourceRequirements`) and the pod-level
//! `spec.resources.claims` (through `validatePodResourceRequirements`, after that list's Forbidden).
//! `ValidateResourceClaimName` and `ValidateResourceClaimTemplateName` are
//! `apimachineryvalidation.NameIsDNSSubdomain`.
//!
//! A Pod carries its metadata into `ValidatePodSpec`; a pod template does not (`ValidatePodTemplateSpec`
//! passes `nil`), so only a Pod's claims meet the mirror pod check: a Pod with the
//! `kubernetes.io/config.mirror` annotation gets, for each claim and instead of that claim's own
//! checks, a Forbidden at `field.NewPath("")`, which prints as `[]`.
//!
//! A claim that is neither by name nor by template, or both, is the bad value of an Invalid: the
//! internal `core.PodResourceClaim` (no JSON tags) as `json.Marshal` writes it, Go field names in the
//! struct's order and a nil pointer as `null`.

use serde_json::Value;

use crate::field::{go_json_string, BadValue, FieldError, WHOLE_OBJECT};
use crate::field_formats::{dns_label, dns_subdomain, str_value};
use crate::lookup::Lookup;
use crate::zero_values::{list, present, s};

/// `validatePodResourceClaim`'s detail when both sources are set.
pub const AT_MOST_ONE: &str = "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified";
/// `validatePodResourceClaim`'s detail when neither source is set.
pub const ONE_OF: &str = "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`";
/// `validatePodResourceClaim`'s detail for a mirror pod.
pub const STATIC_POD: &str = "static pods do not support resource claims";
/// `validateResourceClaimNames`' detail of a name that is not a pod claim's.
const NOT_A_POD_CLAIM: &str = "must be one of the names in pod.spec.resourceClaims";

/// `gatherPodResourceClaimNames`: the pod claims' non-empty names, as `sets.List` gives them
/// (sorted, without repeats), whether or not they are valid.
pub(crate) fn pod_claim_names(spec: &Value) -> Vec<String> {
    let mut names: Vec<String> =
        list(spec, "resourceClaims").iter().map(|c| s(c, "name")).filter(|n| !n.is_empty()).map(String::from).collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// A `*string` of the internal struct as `json.Marshal` writes it.
fn pointer_json(claim: &Value, key: &str) -> String {
    claim.member(key).and_then(Value::as_str).map_or_else(|| "null".to_string(), go_json_string)
}

/// The internal `core.PodResourceClaim` as `json.Marshal` writes it.
fn claim_json(claim: &Value) -> BadValue {
    BadValue::Json(format!(
        "{{\"Name\":{},\"ResourceClaimName\":{},\"ResourceClaimTemplateName\":{}}}",
        go_json_string(s(claim, "name")),
        pointer_json(claim, "resourceClaimName"),
        pointer_json(claim, "resourceClaimTemplateName"),
    ))
}

/// `validatePodResourceClaims` of a pod spec's `resourceClaims` at `path`; `mirror` is whether the
/// metadata Go was given (a Pod's, never a template's) carries the mirror pod annotation.
pub(crate) fn pod_resource_claims(spec: &Value, mirror: bool, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (i, claim) in list(spec, "resourceClaims").iter().enumerate() {
        errs.extend(pod_resource_claim(claim, mirror, &mut seen, &format!("{path}[{i}]")));
    }
    errs
}

/// `validatePodResourceClaim`: a name (required, unique, a DNS label), exactly one source, and that
/// source a DNS subdomain; a mirror pod's claim is refused outright.
fn pod_resource_claim<'a>(claim: &'a Value, mirror: bool, seen: &mut Vec<&'a str>, path: &str) -> Vec<FieldError> {
    if mirror {
        return vec![FieldError::forbidden(WHOLE_OBJECT, STATIC_POD)];
    }
    let mut errs = Vec::new();
    let name = s(claim, "name");
    let name_path = format!("{path}.name");
    if name.is_empty() {
        errs.push(FieldError::required(&name_path, ""));
    } else if seen.contains(&name) {
        errs.push(FieldError::duplicate(&name_path, str_value(name)));
    } else {
        errs.extend(dns_label(name, &name_path));
        seen.push(name);
    }
    let (by_name, by_template) = (present(claim, "resourceClaimName"), present(claim, "resourceClaimTemplateName"));
    if by_name && by_template {
        errs.push(FieldError::invalid(path, claim_json(claim), AT_MOST_ONE));
    }
    if !by_name && !by_template {
        errs.push(FieldError::invalid(path, claim_json(claim), ONE_OF));
    }
    for (present, key) in [(by_name, "resourceClaimName"), (by_template, "resourceClaimTemplateName")] {
        if present {
            errs.extend(dns_subdomain(s(claim, key), &format!("{path}.{key}")));
        }
    }
    errs
}

/// `validateResourceClaimNames` of a `claims` list at `path` against the pod's claim names
/// (`pod_claims`, from [`pod_claim_names`]): each entry names a pod claim, once, or once per
/// request (a DNS label); a whole claim and one of its requests overlap.
pub(crate) fn claim_names(claims: &[Value], pod_claims: &[String], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    for (i, claim) in claims.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let name = s(claim, "name");
        if name.is_empty() {
            errs.push(FieldError::required(&p, ""));
            continue;
        }
        if keys.iter().any(|k| k == name) {
            // Every request of that claim is already referenced.
            errs.push(FieldError::duplicate(&p, str_value(name)));
        } else {
            let request = s(claim, "request");
            let mut key = name.to_string();
            if !request.is_empty() {
                errs.extend(dns_label(request, &format!("{p}.request")));
                key = format!("{name}/{request}");
            }
            if keys.contains(&key) {
                errs.push(FieldError::duplicate(&p, str_value(&key)));
            } else if request.is_empty() {
                // One Duplicate per request of this claim referenced before (Go walks its set in
                // random order; the errors are all alike).
                for k in &keys {
                    if k.split_once('/').is_some_and(|(claim_name, _)| claim_name == name) {
                        errs.push(FieldError::duplicate(&p, str_value(name)));
                    }
                }
            }
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        if !pod_claims.iter().any(|n| n == name) {
            let mut e = FieldError::not_found(&p, str_value(name));
            e.detail = if pod_claims.is_empty() {
                format!("{NOT_A_POD_CLAIM} which is empty")
            } else {
                format!("{NOT_A_POD_CLAIM}: {}", pod_claims.join(", "))
            };
            errs.push(e);
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::texts;
    use serde_json::json;

    fn claims(spec: Value, mirror: bool) -> Vec<String> {
        texts(&pod_resource_claims(&spec, mirror, "spec.resourceClaims"))
    }

    /// `validatePodResourceClaim`: one source by name or by template is valid.
    #[test]
    fn a_claim_by_name_or_by_template_is_valid() {
        let spec = json!({"resourceClaims": [
            {"name": "gpu", "resourceClaimName": "shared-gpu"},
            {"name": "fpga", "resourceClaimTemplateName": "fpga-template"}
        ]});
        assert!(claims(spec.clone(), false).is_empty());
        assert_eq!(pod_claim_names(&spec), ["fpga", "gpu"]);
        assert!(claims(json!({}), true).is_empty());
    }

    /// `validatePodResourceClaim`: the name is required, unique and a DNS label; a duplicate is not
    /// checked again.
    #[test]
    fn claim_names_are_required_unique_labels() {
        let spec = json!({"resourceClaims": [
            {"resourceClaimName": "a"},
            {"name": "gpu", "resourceClaimName": "a"},
            {"name": "gpu", "resourceClaimName": "b"},
            {"name": "Bad_Name", "resourceClaimName": "c"}
        ]});
        assert_eq!(
            claims(spec.clone(), false),
            [
                "spec.resourceClaims[0].name: Required value",
                "spec.resourceClaims[2].name: Duplicate value: \"gpu\"",
                "spec.resourceClaims[3].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
            ]
        );
        // Every non-empty name is one the containers may use, valid or not.
        assert_eq!(pod_claim_names(&spec), ["Bad_Name", "gpu"]);
    }

    /// `validatePodResourceClaim`: exactly one source, the claim printed as the internal struct.
    #[test]
    fn exactly_one_source() {
        assert_eq!(
            claims(json!({"resourceClaims": [{"name": "gpu", "resourceClaimName": "a", "resourceClaimTemplateName": "b<"}]}), false),
            ["spec.resourceClaims[0]: Invalid value: {\"Name\":\"gpu\",\"ResourceClaimName\":\"a\",\"ResourceClaimTemplateName\":\"b\\u003c\"}: at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified",
             "spec.resourceClaims[0].resourceClaimTemplateName: Invalid value: \"b<\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]
        );
        assert_eq!(
            claims(json!({"resourceClaims": [{"name": "gpu", "resourceClaimName": null}]}), false),
            ["spec.resourceClaims[0]: Invalid value: {\"Name\":\"gpu\",\"ResourceClaimName\":null,\"ResourceClaimTemplateName\":null}: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"]
        );
    }

    /// `ValidateResourceClaimName` is `NameIsDNSSubdomain`: an empty name set is still checked.
    #[test]
    fn source_names_are_subdomains() {
        assert_eq!(
            claims(json!({"resourceClaims": [{"name": "gpu", "resourceClaimName": ""}]}), false),
            ["spec.resourceClaims[0].resourceClaimName: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]
        );
        assert!(claims(json!({"resourceClaims": [{"name": "gpu", "resourceClaimName": "a.b-c"}]}), false).is_empty());
    }

    /// A mirror pod's claims are each refused, at the empty path, and nothing else about them.
    #[test]
    fn a_static_pod_takes_no_claim() {
        let spec = json!({"resourceClaims": [{"name": "Bad_Name"}, {"name": "gpu", "resourceClaimName": "a"}]});
        assert_eq!(
            claims(spec, true),
            [
                "[]: Forbidden: static pods do not support resource claims",
                "[]: Forbidden: static pods do not support resource claims"
            ]
        );
    }

    fn names(claims: Value, pod: &[&str]) -> Vec<String> {
        let pod: Vec<String> = pod.iter().map(|n| n.to_string()).collect();
        texts(&claim_names(claims.as_array().unwrap(), &pod, "c.resources.claims"))
    }

    /// `validateResourceClaimNames`: names of pod claims, each once (or once per request).
    #[test]
    fn container_claims_name_pod_claims() {
        assert!(names(
            json!([{"name": "gpu"}, {"name": "fpga", "request": "r1"}, {"name": "fpga", "request": "r2"}]),
            &["fpga", "gpu"]
        )
        .is_empty());
        assert_eq!(
            names(json!([{"name": "gpu"}, {}]), &[]),
            [
                "c.resources.claims[0]: Not found: \"gpu\": must be one of the names in pod.spec.resourceClaims which is empty",
                "c.resources.claims[1]: Required value",
            ]
        );
        assert_eq!(
            names(json!([{"name": "tpu"}]), &["fpga", "gpu"]),
            ["c.resources.claims[0]: Not found: \"tpu\": must be one of the names in pod.spec.resourceClaims: fpga, gpu"]
        );
    }

    /// `validateResourceClaimNames`: a repeated claim, a repeated request, a claim after one of its
    /// requests, a request after its whole claim; the request a DNS label.
    #[test]
    fn container_claims_do_not_overlap() {
        assert_eq!(
            names(json!([{"name": "gpu"}, {"name": "gpu"}, {"name": "gpu", "request": "r"}]), &["gpu"]),
            ["c.resources.claims[1]: Duplicate value: \"gpu\"", "c.resources.claims[2]: Duplicate value: \"gpu\""]
        );
        assert_eq!(
            names(json!([{"name": "gpu", "request": "r"}, {"name": "gpu", "request": "r"}, {"name": "gpu"}]), &["gpu"]),
            ["c.resources.claims[1]: Duplicate value: \"gpu/r\"", "c.resources.claims[2]: Duplicate value: \"gpu\""]
        );
        assert_eq!(
            names(json!([{"name": "gpu", "request": "Bad_R"}]), &["gpu"]),
            ["c.resources.claims[0].request: Invalid value: \"Bad_R\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]
        );
    }
}
