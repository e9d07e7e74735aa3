//! Resource requirements as kubernetes/kubernetes `pkg/apis/core/validation/validation.go`
//! validates them (release-1.36): `validateResourceRequirements` with `validateContainerResourceName`
//! (`ValidateContainerResourceRequirements`: a container's `resources`, and `validateOverhead` for
//! `spec.overhead`) or with `validatePodResourceName` (`validatePodResources` for the pod-level
//! `spec.resources`, then `validatePodResourceConsistency`), `ValidateResourceQuantityValue` and
//! `validateResourceQuantityHugePageValue`; the names as `pkg/apis/core/helper/helpers.go` judges them
//! (`IsStandardResourceName`, `IsStandardContainerResourceName`, `IsNativeResource`,
//! `IsExtendedResourceName`, `IsIntegerResourceName`, `IsOvercommitAllowed`,
//! `IsHugePageResourceValueDivisible`), the pod-level ones as `component-helpers/resource/helpers.go`
//! does (`IsSupportedPodLevelResource`), and the containers' aggregate as its
//! `AggregateContainerRequests` and `AggregateContainerLimits` compute it (sidecars counted with the
//! regular containers, each init container on top of the sidecars before it).
//!
//! The `PodLevelResources` feature gate is on (beta, on by default since 1.34). A quantity that does
//! not parse fails decoding before validation and is left alone here. The names in `claims`, checked
//! last (`validateResourceClaimNames`, against the pod's `spec.resourceClaims`), are
//! [`crate::resource_claims`]; a pod-level `claims` is refused first, then its names are checked all
//! the same.

use serde_json::{Map, Value};

use crate::content;
use crate::field::{BadValue, FieldError};
use crate::field_formats::str_value;
use crate::lookup::member_of;
use crate::lookup::Lookup;
use crate::quantity::{self, Quantity};
use crate::resource_claims;
use crate::zero_values::{list, present, s};

const HUGE_PAGES_PREFIX: &str = "hugepages-";

/// `standardResources` of `helpers.go`.
const STANDARD_RESOURCES: &[&str] = &[
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
];

/// `integerResources` of `helpers.go`.
const INTEGER_RESOURCES: &[&str] = &[
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
];

/// `sets.List(SupportedPodLevelResources())`: cpu, memory and the hugepages prefix, sorted.
pub const SUPPORTED_POD_LEVEL_RESOURCES: &[&str] = &["cpu", "hugepages-", "memory"];

/// A JSON value as a `Quantity` decodes it (a string, or a bare number).
pub(crate) fn quantity_of(v: &Value) -> Option<Quantity> {
    match v {
        Value::String(text) => quantity::parse(text),
        Value::Number(n) => quantity::parse(&n.to_string()),
        _ => None,
    }
}

/// `IsHugePageResourceName`.
fn is_huge_page(name: &str) -> bool {
    name.starts_with(HUGE_PAGES_PREFIX)
}

/// `IsNativeResource`: no domain, or one in `kubernetes.io/`.
fn is_native(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// `IsOvercommitAllowed`: native and not hugepages.
pub(crate) fn overcommit_allowed(name: &str) -> bool {
    is_native(name) && !is_huge_page(name)
}

/// `IsExtendedResourceName`: not native, not `requests.`-prefixed, and a qualified name once
/// `requests.` is put in front.
fn is_extended(name: &str) -> bool {
    !is_native(name)
        && !name.starts_with("requests.")
        && content::is_qualified_name(&format!("requests.{name}")).is_empty()
}

/// `IsStandardResourceName`.
fn is_standard(name: &str) -> bool {
    STANDARD_RESOURCES.contains(&name) || is_huge_page(name) || name.starts_with("requests.hugepages-")
}

/// `IsStandardContainerResourceName`.
fn is_standard_for_containers(name: &str) -> bool {
    matches!(name, "cpu" | "memory" | "ephemeral-storage") || is_huge_page(name)
}

/// `IsIntegerResourceName`.
fn is_integer(name: &str) -> bool {
    INTEGER_RESOURCES.contains(&name) || is_extended(name)
}

/// `IsSupportedPodLevelResource`: cpu, memory and hugepages.
pub(crate) fn is_supported_pod_level(name: &str) -> bool {
    matches!(name, "cpu" | "memory") || is_huge_page(name)
}

/// The bad value of a name check: a `core.ResourceName`, which `ErrorBody` prints without quotes.
fn name_value(name: &str) -> BadValue {
    BadValue::Json(name.to_string())
}

/// `validateResourceName`: a qualified name (its errors alone), and a standard one without a domain.
fn resource_name(name: &str, path: &str) -> Vec<FieldError> {
    let errs: Vec<FieldError> =
        content::is_qualified_name(name).into_iter().map(|m| FieldError::invalid(path, name_value(name), m)).collect();
    if !errs.is_empty() {
        return errs;
    }
    if !name.contains('/') && !is_standard(name) {
        return vec![FieldError::invalid(
            path,
            name_value(name),
            "must be a standard resource type or fully qualified",
        )];
    }
    errs
}

/// `validateContainerResourceName`.
fn container_resource_name(name: &str, path: &str) -> Vec<FieldError> {
    let mut errs = resource_name(name, path);
    if !name.contains('/') {
        if !is_standard_for_containers(name) {
            errs.push(FieldError::invalid(path, name_value(name), "must be a standard resource for containers"));
        }
    } else if !is_native(name) && !is_extended(name) {
        errs.push(FieldError::invalid(path, name_value(name), "doesn't follow extended resource name standard"));
    }
    errs
}

/// `validatePodResourceName`: a valid name, then one of the pod-level resources.
fn pod_resource_name(name: &str, path: &str) -> Vec<FieldError> {
    let errs = resource_name(name, path);
    if !errs.is_empty() {
        return errs;
    }
    if !is_supported_pod_level(name) {
        return vec![FieldError::not_supported(path, name_value(name), SUPPORTED_POD_LEVEL_RESOURCES)];
    }
    errs
}

/// `ValidateResourceQuantityValue`: not negative, whole for the integer resources.
fn quantity_value(name: &str, q: &Quantity, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if q.milli < 0 {
        errs.push(FieldError::invalid(path, str_value(&q.canonical()), "must be greater than or equal to 0"));
    }
    if is_integer(name) && q.milli % 1000 != 0 {
        errs.push(FieldError::invalid(path, str_value(&q.canonical()), "must be an integer"));
    }
    errs
}

/// `Quantity.Value()`: the value rounded up to a whole number (away from zero).
fn whole_value(q: &Quantity) -> i128 {
    let whole = q.milli / 1000;
    if q.milli % 1000 == 0 {
        whole
    } else {
        whole + q.milli.signum()
    }
}

/// `IsHugePageResourceValueDivisible`: the page size (the name after `hugepages-`) parses, is a
/// positive whole number, and divides the value.
fn huge_page_divisible(name: &str, q: &Quantity) -> bool {
    let Some(page) = quantity::parse(&name[HUGE_PAGES_PREFIX.len()..]) else { return false };
    if page.milli <= 0 || page.milli % 1000 != 0 {
        return false;
    }
    whole_value(q) % (page.milli / 1000) == 0
}

/// `validateResourceQuantityHugePageValue`: nothing under `AllowIndivisibleHugePagesValues`
/// (`allow_indivisible`).
fn huge_page_value(name: &str, q: &Quantity, allow_indivisible: bool, path: &str) -> Option<FieldError> {
    (is_huge_page(name) && !allow_indivisible && !huge_page_divisible(name, q)).then(|| {
        FieldError::invalid(
            path,
            str_value(&q.canonical()),
            format!("{} is not positive integer multiple of {name}", q.canonical()),
        )
    })
}

/// `usesIndivisibleHugePagesValues` (`pkg/api/pod/util.go`): a hugepages limit or request of a
/// container (init, regular or ephemeral) or of the overhead that is not a whole number of pages.
/// An UPDATE whose old spec has one may keep such values (`AllowIndivisibleHugePagesValues`);
/// the pod-level `resources` are not read.
pub(crate) fn uses_indivisible_huge_pages(spec: &Value) -> bool {
    let indivisible = |list: Option<&Value>| {
        list.and_then(Value::as_object).is_some_and(|m| {
            m.iter()
                .any(|(name, v)| is_huge_page(name) && quantity_of(v).is_some_and(|q| !huge_page_divisible(name, &q)))
        })
    };
    let containers = ["initContainers", "containers", "ephemeralContainers"].into_iter().flat_map(|k| list(spec, k));
    containers
        .filter_map(|c| c.member("resources"))
        .any(|r| indivisible(r.member("limits")) || indivisible(r.member("requests")))
        || indivisible(spec.member("overhead"))
}

/// `validateResourceRequirements`: names (by `names`), values (hugepages whole pages unless
/// `allow_indivisible`), requests ≤ limits (= for the resources that cannot be overcommitted),
/// hugepages only beside cpu or memory, then the claims' names against the pod's (`pod_claims`,
/// [`resource_claims::pod_claim_names`]).
fn requirements(
    r: &Value,
    names: fn(&str, &str) -> Vec<FieldError>,
    pod_claims: &[String],
    allow_indivisible: bool,
    path: &str,
) -> Vec<FieldError> {
    let empty = Map::new();
    let limits = r.member("limits").and_then(Value::as_object).unwrap_or(&empty);
    let requests = r.member("requests").and_then(Value::as_object).unwrap_or(&empty);
    // The lists' paths, made for an error only.
    let lim_path = || format!("{path}.limits");
    let req_path = || format!("{path}.requests");
    let mut errs = Vec::new();
    let (mut cpu_or_memory, mut huge_pages) = (false, false);
    for (name, value) in limits {
        let p = format!("{path}.limits[{name}]");
        errs.extend(names(name, &p));
        if let Some(q) = quantity_of(value) {
            errs.extend(quantity_value(name, &q, &p));
            errs.extend(huge_page_value(name, &q, allow_indivisible, &p));
        }
        huge_pages |= is_huge_page(name);
        cpu_or_memory |= matches!(name.as_str(), "cpu" | "memory");
    }
    for (name, value) in requests {
        let p = format!("{path}.requests[{name}]");
        errs.extend(names(name, &p));
        huge_pages |= is_huge_page(name);
        cpu_or_memory |= matches!(name.as_str(), "cpu" | "memory");
        let Some(q) = quantity_of(value) else { continue };
        errs.extend(quantity_value(name, &q, &p));
        match member_of(limits, name) {
            Some(limit) => {
                if let Some(limit) = quantity_of(limit) {
                    if q.cmp_value(&limit).is_ne() && !overcommit_allowed(name) {
                        errs.push(FieldError::invalid(
                            &req_path(),
                            str_value(&q.canonical()),
                            format!("must be equal to {name} limit of {}", limit.canonical()),
                        ));
                    } else if q.cmp_value(&limit).is_gt() {
                        errs.push(FieldError::invalid(
                            &req_path(),
                            str_value(&q.canonical()),
                            format!("must be less than or equal to {name} limit of {}", limit.canonical()),
                        ));
                    }
                }
            }
            None if !overcommit_allowed(name) => {
                errs.push(FieldError::required(&lim_path(), "Limit must be set for non overcommitable resources"));
            }
            None => {}
        }
        errs.extend(huge_page_value(name, &q, allow_indivisible, &p));
    }
    if huge_pages && !cpu_or_memory {
        errs.push(FieldError::forbidden(path, "HugePages require cpu or memory"));
    }
    // No claims are no claim errors.
    let claims = list(r, "claims");
    if !claims.is_empty() {
        errs.extend(resource_claims::claim_names(claims, pod_claims, &format!("{path}.claims")));
    }
    errs
}

/// `ValidateContainerResourceRequirements` of a container's `resources` at `path`, its claims
/// checked against the pod's claim names `pod_claims` (`allow_indivisible`:
/// `AllowIndivisibleHugePagesValues`, [`uses_indivisible_huge_pages`] of an UPDATE's old spec).
pub(crate) fn container_resources(
    resources: Option<&Value>,
    pod_claims: &[String],
    allow_indivisible: bool,
    path: &str,
) -> Vec<FieldError> {
    match resources.filter(|v| !v.is_null()) {
        Some(r) => requirements(r, container_resource_name, pod_claims, allow_indivisible, path),
        None => Vec::new(),
    }
}

/// `validateOverhead`: `spec.overhead` checked as a container's limits would be (so its paths are
/// `<path>.overhead.limits[<name>]`).
pub(crate) fn overhead(spec: &Value, allow_indivisible: bool, path: &str) -> Vec<FieldError> {
    let Some(overhead) = spec.member("overhead").filter(|v| !v.is_null()) else { return Vec::new() };
    let mut as_limits = Map::new();
    as_limits.insert("limits".into(), overhead.clone());
    requirements(
        &Value::Object(as_limits),
        container_resource_name,
        &[],
        allow_indivisible,
        &format!("{path}.overhead"),
    )
}

/// `validatePodResources`: nothing more than a Forbidden on a Windows pod; else no claims, the
/// requirements under the pod-level names (the claims' names checked against the pod's
/// `pod_claims` all the same), then `validatePodResourceConsistency`.
pub(crate) fn pod_resources(
    spec: &Value,
    pod_claims: &[String],
    allow_indivisible: bool,
    path: &str,
) -> Vec<FieldError> {
    let Some(r) = spec.member("resources").filter(|v| !v.is_null()) else { return Vec::new() };
    let rpath = format!("{path}.resources");
    if spec.member("os").is_some_and(|os| s(os, "name") == "windows") {
        return vec![FieldError::forbidden(&rpath, "may not be set for a windows pod")];
    }
    let mut errs = Vec::new();
    if present(r, "claims") {
        errs.push(FieldError::forbidden(
            &format!("{rpath}.claims"),
            "claims may not be set for Resources at pod-level",
        ));
    }
    errs.extend(requirements(r, pod_resource_name, pod_claims, allow_indivisible, &rpath));
    errs.extend(consistency(spec, r, &rpath));
    errs
}

/// `validatePodResourceConsistency`: the pod-level requests cover the containers' aggregate
/// requests, a pod-level hugepages limit their aggregate hugepages limit, and no regular
/// container's limit exceeds the pod's.
fn consistency(spec: &Value, r: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let pod_requests = resource_list(r.member("requests"));
    let pod_limits = resource_list(r.member("limits"));
    for (name, aggregate) in aggregate_containers(spec, "requests") {
        let Some(request) = lookup(&pod_requests, &name) else { continue };
        if aggregate.cmp_value(request).is_gt() {
            errs.push(FieldError::invalid(
                &format!("{path}.requests[{name}]"),
                str_value(&request.canonical()),
                format!("must be greater than or equal to aggregate container requests of {}", aggregate.canonical()),
            ));
        }
    }
    for (name, aggregate) in aggregate_containers(spec, "limits") {
        if !is_huge_page(&name) {
            continue;
        }
        let Some(limit) = lookup(&pod_limits, &name) else { continue };
        if aggregate.cmp_value(limit).is_gt() {
            errs.push(FieldError::invalid(
                &format!("{path}.limits[{name}]"),
                str_value(&limit.canonical()),
                format!("must be greater than or equal to aggregate container limits of {}", aggregate.canonical()),
            ));
        }
    }
    for (i, c) in list(spec, "containers").iter().enumerate() {
        for (name, limit) in resource_list(c.member("resources").and_then(|r| r.member("limits"))) {
            let Some(pod_limit) = lookup(&pod_limits, &name) else { continue };
            if limit.cmp_value(pod_limit).is_gt() {
                errs.push(FieldError::invalid(
                    &format!("{path}.containers[{i}][{name}].limits"),
                    str_value(&limit.canonical()),
                    format!("must be less than or equal to pod limits of {}", pod_limit.canonical()),
                ));
            }
        }
    }
    errs
}

/// A `ResourceList`: the names in the object's order with the quantities that parse.
pub(crate) type ResourceList = Vec<(String, Quantity)>;

/// The resource list a JSON object holds.
pub(crate) fn resource_list(v: Option<&Value>) -> ResourceList {
    let Some(o) = v.and_then(Value::as_object) else { return Vec::new() };
    o.iter().filter_map(|(k, v)| quantity_of(v).map(|q| (k.clone(), q))).collect()
}

/// The quantity of `name` in `list`.
pub(crate) fn lookup<'a>(list: &'a ResourceList, name: &str) -> Option<&'a Quantity> {
    list.iter().find(|(k, _)| k == name).map(|(_, q)| q)
}

/// `Quantity.Add`: the sum keeps the first one's format, unless the first one is zero.
fn add(a: &Quantity, b: &Quantity) -> Quantity {
    Quantity { milli: a.milli + b.milli, format: if a.milli == 0 { b.format } else { a.format } }
}

/// `addResourceList`.
fn add_list(list: &mut ResourceList, other: &ResourceList) {
    for (name, q) in other {
        match list.iter_mut().find(|(k, _)| k == name) {
            Some((_, have)) => *have = add(have, q),
            None => list.push((name.clone(), *q)),
        }
    }
}

/// `maxResourceList`: the greater of each (the one already there on a tie).
fn max_list(list: &mut ResourceList, other: &ResourceList) {
    for (name, q) in other {
        match list.iter_mut().find(|(k, _)| k == name) {
            Some((_, have)) => {
                if q.cmp_value(have).is_gt() {
                    *have = *q;
                }
            }
            None => list.push((name.clone(), *q)),
        }
    }
}

/// `AggregateContainerRequests` (`key` `requests`) or `AggregateContainerLimits` (`limits`) of a
/// pod spec, with no status: the regular containers and the sidecars summed, then the greater of
/// that and each init container on top of the sidecars declared before it.
pub(crate) fn aggregate_containers(spec: &Value, key: &str) -> ResourceList {
    spec.as_object().map(|s| aggregate_of(s, key)).unwrap_or_default()
}

/// [`aggregate_containers`] of a pod spec's members.
pub(crate) fn aggregate_of(spec: &Map<String, Value>, key: &str) -> ResourceList {
    let of = |c: &Value| resource_list(c.member("resources").and_then(|r| r.member(key)));
    let list = |name: &str| member_of(spec, name).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let mut result = ResourceList::new();
    for c in list("containers") {
        add_list(&mut result, &of(c));
    }
    let mut sidecars = ResourceList::new();
    let mut init = ResourceList::new();
    for c in list("initContainers") {
        let own = of(c);
        if s(c, "restartPolicy") == "Always" {
            add_list(&mut result, &own);
            add_list(&mut sidecars, &own);
            max_list(&mut init, &sidecars);
        } else {
            let mut combined = ResourceList::new();
            add_list(&mut combined, &own);
            add_list(&mut combined, &sidecars);
            max_list(&mut init, &combined);
        }
    }
    max_list(&mut result, &init);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(errs: Vec<FieldError>) -> Vec<String> {
        errs.iter().map(ToString::to_string).collect()
    }

    fn spec(extra: Value) -> Value {
        let mut spec = json!({"containers": [{"name": "a", "image": "x"}]});
        for (k, v) in extra.as_object().unwrap() {
            spec[k] = v.clone();
        }
        spec
    }

    /// `validateOverhead`: the container rules under `overhead.limits`.
    #[test]
    fn overhead_is_checked_as_container_limits() {
        assert!(overhead(&spec(json!({"overhead": {"cpu": "250m", "memory": "120Mi"}})), false, "spec").is_empty());
        assert!(overhead(&spec(json!({"overhead": {}})), false, "spec").is_empty());
        assert_eq!(
            texts(overhead(&spec(json!({"overhead": {"cpu": "-1"}})), false, "spec")),
            ["spec.overhead.limits[cpu]: Invalid value: \"-1\": must be greater than or equal to 0"]
        );
        assert_eq!(
            texts(overhead(&spec(json!({"overhead": {"pods": "1"}})), false, "spec")),
            ["spec.overhead.limits[pods]: Invalid value: pods: must be a standard resource for containers"]
        );
        assert_eq!(
            texts(overhead(&spec(json!({"overhead": {"hugepages-2Mi": "4Mi"}})), false, "spec")),
            ["spec.overhead: Forbidden: HugePages require cpu or memory"]
        );
    }

    /// `validateResourceName` and `validateContainerResourceName`: a name without a domain must be
    /// a standard one (both messages when it is neither); a domain outside `kubernetes.io` must make
    /// an extended resource name.
    #[test]
    fn container_resource_names() {
        assert!(container_resource_name("example.com/gpu", "p").is_empty());
        assert!(container_resource_name("kubernetes.io/x", "p").is_empty());
        assert_eq!(
            texts(container_resource_name("gpu", "p")),
            [
                "p: Invalid value: gpu: must be a standard resource type or fully qualified",
                "p: Invalid value: gpu: must be a standard resource for containers",
            ]
        );
        assert!(container_resource_name("example.com/requests.x", "p").is_empty());
        assert_eq!(
            texts(container_resource_name("requests.example.com/x", "p")),
            ["p: Invalid value: requests.example.com/x: doesn't follow extended resource name standard"]
        );
    }

    /// `validateResourceQuantityHugePageValue`: a hugepages quantity is a whole number of pages.
    #[test]
    fn huge_pages_are_whole_pages() {
        let r = json!({"limits": {"memory": "1Gi", "hugepages-2Mi": "3Mi"}, "requests": {"memory": "1Gi", "hugepages-2Mi": "3Mi"}});
        assert_eq!(
            texts(container_resources(Some(&r), &[], false, "c")),
            [
                "c.limits[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi",
                "c.requests[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi",
            ]
        );
        let r = json!({"limits": {"memory": "1Gi", "hugepages-2Mi": "4Mi"}, "requests": {"memory": "1Gi", "hugepages-2Mi": "4Mi"}});
        assert!(container_resources(Some(&r), &[], false, "c").is_empty());
    }

    /// `AllowIndivisibleHugePagesValues` lets any hugepages quantity through (the other checks
    /// stay); `usesIndivisibleHugePagesValues` looks for one in every container and the overhead,
    /// not in the pod-level resources.
    #[test]
    fn indivisible_huge_pages_ratchet() {
        let r = json!({"limits": {"hugepages-2Mi": "3Mi"}});
        assert_eq!(
            texts(container_resources(Some(&r), &[], true, "c")),
            ["c: Forbidden: HugePages require cpu or memory"]
        );
        let with = |key: &str, r: Value| {
            let mut spec = spec(json!({}));
            match key {
                "overhead" | "resources" => spec[key] = r,
                list => spec[list] = json!([{"name": "x", "image": "x", "resources": r}]),
            }
            uses_indivisible_huge_pages(&spec)
        };
        for key in ["initContainers", "containers", "ephemeralContainers"] {
            assert!(with(key, json!({"requests": {"hugepages-1Gi": "1Mi"}})), "{key}");
            assert!(!with(key, json!({"limits": {"hugepages-2Mi": "4Mi", "memory": "3"}})), "{key}");
        }
        assert!(with("overhead", json!({"hugepages-2Mi": "1"})));
        assert!(!with("resources", json!({"limits": {"hugepages-2Mi": "1"}})));
        assert!(!uses_indivisible_huge_pages(&json!({})));
    }

    /// `validatePodResourceName`: only cpu, memory and hugepages at the pod level.
    #[test]
    fn pod_level_names() {
        let good = spec(json!({"resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}));
        assert!(pod_resources(&good, &[], false, "spec").is_empty());
        let bad = spec(json!({"resources": {"limits": {"ephemeral-storage": "1Gi"}}}));
        assert_eq!(
            texts(pod_resources(&bad, &[], false, "spec")),
            ["spec.resources.limits[ephemeral-storage]: Unsupported value: ephemeral-storage: supported values: \"cpu\", \"hugepages-\", \"memory\""]
        );
        let bad = spec(json!({"resources": {"requests": {"gpu": "1"}}}));
        assert_eq!(
            texts(pod_resources(&bad, &[], false, "spec")),
            ["spec.resources.requests[gpu]: Invalid value: gpu: must be a standard resource type or fully qualified"]
        );
    }

    /// `validatePodResources`: a Windows pod gets only the Forbidden; claims are refused.
    #[test]
    fn pod_level_windows_and_claims() {
        let windows = spec(json!({"os": {"name": "windows"}, "resources": {"limits": {"gpu": "1"}}}));
        assert_eq!(
            texts(pod_resources(&windows, &[], false, "spec")),
            ["spec.resources: Forbidden: may not be set for a windows pod"]
        );
        let linux = spec(json!({"os": {"name": "linux"}, "resources": {"limits": {"cpu": "1"}}}));
        assert!(pod_resources(&linux, &[], false, "spec").is_empty());
        let claims = spec(json!({"resources": {"claims": []}}));
        assert_eq!(
            texts(pod_resources(&claims, &[], false, "spec")),
            ["spec.resources.claims: Forbidden: claims may not be set for Resources at pod-level"]
        );
        assert!(pod_resources(&spec(json!({"resources": {}})), &[], false, "spec").is_empty());
        // validatePodResourceRequirements still checks the refused claims' names, last.
        let claims =
            spec(json!({"resources": {"claims": [{"name": "gpu"}, {"name": "tpu"}], "limits": {"cpu": "-1"}}}));
        assert_eq!(
            texts(pod_resources(&claims, &["gpu".to_string()], false, "spec")),
            [
                "spec.resources.claims: Forbidden: claims may not be set for Resources at pod-level",
                "spec.resources.limits[cpu]: Invalid value: \"-1\": must be greater than or equal to 0",
                "spec.resources.claims[1]: Not found: \"tpu\": must be one of the names in pod.spec.resourceClaims: gpu",
            ]
        );
    }

    /// `validateResourceRequirements`: a container's claims are checked last, against the pod's.
    #[test]
    fn container_claims_are_checked_last() {
        let r = json!({"claims": [{"name": "gpu"}, {"name": "fpga"}], "requests": {"gpu": "1"}});
        assert_eq!(
            texts(container_resources(Some(&r), &["gpu".to_string()], false, "c")),
            [
                "c.requests[gpu]: Invalid value: gpu: must be a standard resource type or fully qualified",
                "c.requests[gpu]: Invalid value: gpu: must be a standard resource for containers",
                "c.claims[1]: Not found: \"fpga\": must be one of the names in pod.spec.resourceClaims: gpu",
            ]
        );
        let r = json!({"claims": [{"name": "gpu", "request": "one"}]});
        assert!(container_resources(Some(&r), &["gpu".to_string()], false, "c").is_empty());
    }

    /// `validatePodResourceConsistency`: the aggregate requests (sidecars and init containers as
    /// `AggregateContainerRequests` counts them), hugepages limits, each container's limits.
    #[test]
    fn pod_level_consistency() {
        let mut s = json!({
            "containers": [
                {"name": "a", "resources": {"requests": {"cpu": "500m"}, "limits": {"memory": "1Gi"}}},
                {"name": "b", "resources": {"requests": {"cpu": "500m"}}}
            ],
            "initContainers": [
                {"name": "side", "restartPolicy": "Always", "resources": {"requests": {"cpu": "200m"}}},
                {"name": "init", "resources": {"requests": {"cpu": "1"}}}
            ],
            "resources": {"requests": {"cpu": "1200m"}, "limits": {"memory": "1Gi"}}
        });
        assert!(pod_resources(&s, &[], false, "spec").is_empty());
        s["resources"]["requests"]["cpu"] = json!("1100m");
        s["resources"]["limits"]["memory"] = json!("512Mi");
        assert_eq!(
            texts(pod_resources(&s, &[], false, "spec")),
            [
                "spec.resources.requests[cpu]: Invalid value: \"1100m\": must be greater than or equal to aggregate container requests of 1200m",
                "spec.resources.containers[0][memory].limits: Invalid value: \"1Gi\": must be less than or equal to pod limits of 512Mi",
            ]
        );
        // The init container alone (1 on top of the 200m sidecar) outweighs the rest.
        s["initContainers"][1]["resources"]["requests"]["cpu"] = json!("2");
        s["resources"] = json!({"requests": {"cpu": "2"}});
        assert_eq!(
            texts(pod_resources(&s, &[], false, "spec")),
            ["spec.resources.requests[cpu]: Invalid value: \"2\": must be greater than or equal to aggregate container requests of 2200m"]
        );
        let huge = json!({
            "containers": [
                {"name": "a", "resources": {"limits": {"memory": "1Gi", "hugepages-2Mi": "4Mi"}, "requests": {"memory": "1Gi", "hugepages-2Mi": "4Mi"}}},
                {"name": "b", "resources": {"limits": {"memory": "1Gi", "hugepages-2Mi": "4Mi"}, "requests": {"memory": "1Gi", "hugepages-2Mi": "4Mi"}}}
            ],
            "resources": {"limits": {"memory": "4Gi", "hugepages-2Mi": "6Mi"}, "requests": {"memory": "4Gi", "hugepages-2Mi": "6Mi"}}
        });
        assert_eq!(
            texts(pod_resources(&huge, &[], false, "spec")),
            [
                "spec.resources.requests[hugepages-2Mi]: Invalid value: \"6Mi\": must be greater than or equal to aggregate container requests of 8Mi",
                "spec.resources.limits[hugepages-2Mi]: Invalid value: \"6Mi\": must be greater than or equal to aggregate container limits of 8Mi",
            ]
        );
    }

    /// `Quantity.Add` keeps the first addend's format; `maxResourceList` keeps the first on a tie.
    #[test]
    fn aggregates_keep_go_formats() {
        let s = json!({"containers": [
            {"resources": {"requests": {"memory": "512Mi", "cpu": "0"}}},
            {"resources": {"requests": {"memory": "512Mi", "cpu": "1"}}}
        ]});
        let total = aggregate_containers(&s, "requests");
        assert_eq!(lookup(&total, "memory").unwrap().canonical(), "1Gi");
        assert_eq!(lookup(&total, "cpu").unwrap().canonical(), "1");
    }
}
