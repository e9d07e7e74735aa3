//! Manifest lint: the MutatingWebhookConfiguration/ValidatingWebhookConfiguration itself, held to what
//! the apiserver's validation accepts (FAIL: it refuses to create the object) and to choices that
//! are risky in a cluster (WARN). Source: pkg/apis/admissionregistration/validation/validation.go
//! unless a rule says otherwise.
//!
//! Some breaches stop manifest loading instead (exit 2), because the suite cannot run without them:
//! a missing name, clientConfig or admissionReviewVersions, a url that is not https, timeoutSeconds
//! outside 1..30, operations other than CREATE/UPDATE/DELETE/CONNECT/*, empty operations or
//! resources, duplicate webhook names. Lint covers the rest as findings.
//!
//! Choices (documented): `manifest.timeout` WARNs above 10 s (the v1 default; a slower webhook holds
//! every matching API request that long, and kubectl's and controllers' own deadlines are often
//! shorter); `manifest.system-namespaces` applies to webhooks whose failure policy is Fail (set or
//! defaulted), where catching kube-system or the webhook's own namespace can deadlock the cluster or
//! the webhook's own restart.

use serde_json::Value;

use crate::conditions::{rejection, Dispatch, Outcome};
use crate::config::{ConfigVersion, LabelSelector, WebhookSpec, NAMESPACE_NAME_LABEL};
use crate::requests::{candidates, condition_outcomes};
use crate::verdict::Check;

fn fail(detail: impl Into<String>) -> Check {
    Check::violated_plain(detail)
}

/// ` (v1beta1's default: the manifest leaves it out)` when `field` was filled by the version's
/// defaults, empty otherwise.
fn defaulted(w: &WebhookSpec, field: &str) -> String {
    if w.defaulted.contains(&field) {
        format!(" ({} default: the manifest leaves it out)", w.api_version.api_version())
    } else {
        String::new()
    }
}

pub(crate) fn api_version(w: &WebhookSpec) -> Check {
    match w.api_version {
        ConfigVersion::V1 => Check::Pass,
        ConfigVersion::V1beta1 => {
            let mut detail = format!(
                "{} {} configurations are no longer served (removed in Kubernetes 1.22): a current apiserver refuses to create it. Write it as admissionregistration.k8s.io/v1",
                w.api_version.api_version(),
                w.kind
            );
            let changes: Vec<&str> = w
                .defaulted
                .iter()
                .filter_map(|field| {
                    Some(match *field {
                        "sideEffects" => {
                            "sideEffects is required (None or NoneOnDryRun; v1beta1 defaulted it to Unknown)"
                        }
                        "admissionReviewVersions" => {
                            "admissionReviewVersions is required (v1beta1 defaulted it to [v1beta1])"
                        }
                        "failurePolicy" => "failurePolicy defaults to Fail, not Ignore",
                        "matchPolicy" => "matchPolicy defaults to Equivalent, not Exact",
                        "timeoutSeconds" => "timeoutSeconds defaults to 10, not 30",
                        _ => return None,
                    })
                })
                .collect();
            if !changes.is_empty() {
                detail.push_str(&format!("; in v1 {}", changes.join(", ")));
            }
            fail(detail)
        }
    }
}

pub(crate) fn name(w: &WebhookSpec) -> Check {
    let n = &w.name;
    let labels: Vec<&str> = n.split('.').collect();
    let label_ok = |l: &&str| {
        !l.is_empty()
            && l.len() <= 63
            && l.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    if n.len() > 253 || !labels.iter().all(label_ok) {
        return fail(format!("{n:?} is not a DNS subdomain (lowercase letters, digits, '-' and '.')"));
    }
    if labels.len() < 3 {
        return fail(format!(
            "{n:?} has {} segment(s): the apiserver wants a domain with at least three separated by dots",
            labels.len()
        ));
    }
    Check::Pass
}

pub(crate) fn side_effects(w: &WebhookSpec) -> Check {
    match w.side_effects.as_deref() {
        None => fail("sideEffects is not set: the apiserver refuses a webhook without it (None or NoneOnDryRun)"),
        Some("None" | "NoneOnDryRun") => Check::Pass,
        Some(v @ ("Unknown" | "Some")) => fail(format!(
            "sideEffects {v:?}{} is refused on create: use None or NoneOnDryRun (and honour request.dryRun)",
            defaulted(w, "sideEffects")
        )),
        Some(v) => fail(format!("sideEffects {v:?} is not one of None, NoneOnDryRun")),
    }
}

fn one_of(field: &str, value: Option<&str>, allowed: &[&str]) -> Check {
    match value {
        None => Check::na(format!("{field} not set")),
        Some(v) if allowed.contains(&v) => Check::Pass,
        Some(v) => fail(format!("{field} {v:?} is not one of {}", allowed.join(", "))),
    }
}

pub(crate) fn failure_policy(w: &WebhookSpec) -> Check {
    one_of("failurePolicy", w.failure_policy.as_deref(), &["Ignore", "Fail"])
}

pub(crate) fn match_policy(w: &WebhookSpec) -> Check {
    one_of("matchPolicy", w.match_policy.as_deref(), &["Exact", "Equivalent"])
}

pub(crate) fn reinvocation_policy(w: &WebhookSpec) -> Check {
    one_of("reinvocationPolicy", w.reinvocation_policy.as_deref(), &["Never", "IfNeeded"])
}

pub(crate) fn client_config(w: &WebhookSpec) -> Check {
    if let Some(url) = &w.client_config.url {
        let Ok(parsed) = reqwest::Url::parse(url) else { return fail(format!("url {url:?} does not parse")) };
        let mut problems = Vec::new();
        if !parsed.username().is_empty() || parsed.password().is_some() {
            problems.push("user info");
        }
        if parsed.query().is_some() {
            problems.push("a query");
        }
        if parsed.fragment().is_some() {
            problems.push("a fragment");
        }
        if !problems.is_empty() {
            return fail(format!("url {url:?} has {}: the apiserver refuses it", problems.join(" and ")));
        }
    }
    if let Some(path) = w.client_config.service.as_ref().and_then(|s| s.path.as_deref()) {
        if !path.starts_with('/') {
            return fail(format!("service.path {path:?} does not start with '/'"));
        }
    }
    Check::Pass
}

pub(crate) fn ca_bundle(w: &WebhookSpec) -> Check {
    match w.ca_bundle_pem() {
        None => Check::na("no caBundle (injected at deploy time?)"),
        Some(Ok(_)) => Check::Pass,
        Some(Err(e)) => fail(e.to_string()),
    }
}

pub(crate) fn rules(w: &WebhookSpec) -> Check {
    let mut problems = Vec::new();
    for (i, r) in w.rules.iter().enumerate() {
        let at = format!("rules[{i}]");
        if r.api_groups.is_empty() {
            problems.push(format!("{at}.apiGroups is empty (list at least one group; '' is core)"));
        }
        if r.api_versions.is_empty() {
            problems.push(format!("{at}.apiVersions is empty (list at least one version)"));
        }
        if r.operations.len() > 1 && r.operations.iter().any(|o| o == "*") {
            problems.push(format!("{at}.operations {:?} has '*' next to other operations", r.operations));
        }
        if let Some(scope) = &r.scope {
            if !["Cluster", "Namespaced", "*"].contains(&scope.as_str()) {
                problems.push(format!("{at}.scope: {scope:?} is not Cluster, Namespaced or *"));
            }
        }
        let mut wildcard_sub: Vec<&str> = Vec::new();
        let mut wildcard_res: Vec<&str> = Vec::new();
        let (mut double, mut single, mut plain) = (false, false, false);
        for res in &r.resources {
            let parts: Vec<&str> = res.splitn(2, '/').collect();
            if res.is_empty() || parts.iter().any(|p| p.is_empty()) || res.matches('/').count() > 1 {
                problems.push(format!("{at}.resources: {res:?} is not resource, resource/subresource, * or */*"));
                continue;
            }
            match res.as_str() {
                "*/*" => double = true,
                "*" => single = true,
                _ if parts.len() == 1 => plain = true,
                _ => {}
            }
            if parts.len() == 2 {
                let (r0, s0) = (parts[0], parts[1]);
                if wildcard_sub.contains(&r0) {
                    problems.push(format!("{at}.resources has both '{r0}/*' and {res:?}"));
                }
                if wildcard_res.contains(&s0) {
                    problems.push(format!("{at}.resources has both '*/{s0}' and {res:?}"));
                }
                if s0 == "*" {
                    wildcard_sub.push(r0);
                }
                if r0 == "*" {
                    wildcard_res.push(s0);
                }
            }
        }
        if double && r.resources.len() > 1 {
            problems.push(format!("{at}.resources {:?} has '*/*' next to other resources", r.resources));
        }
        if single && plain {
            problems
                .push(format!("{at}.resources {:?} has '*' next to other resources without subresources", r.resources));
        }
    }
    if problems.is_empty() {
        Check::Pass
    } else {
        fail(problems.join("; "))
    }
}

pub(crate) fn review_versions(w: &WebhookSpec) -> Check {
    let mut seen = Vec::new();
    for v in &w.admission_review_versions {
        if seen.contains(&v) {
            return fail(format!("admissionReviewVersions lists {v:?} twice"));
        }
        seen.push(v);
    }
    Check::Pass
}

pub(crate) fn match_conditions(w: &WebhookSpec) -> Check {
    let n = w.match_conditions.len();
    if n == 0 {
        return Check::na("no matchConditions");
    }
    if n > 64 {
        return fail(format!("{n} matchConditions: the apiserver allows at most 64"));
    }
    let mut names = Vec::new();
    for (i, c) in w.match_conditions.iter().enumerate() {
        let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
        let expression = c.get("expression").and_then(Value::as_str).unwrap_or_default();
        if name.is_empty() {
            return fail(format!("matchConditions[{i}] has no name"));
        }
        if expression.trim().is_empty() {
            return fail(format!("matchConditions[{i}] ({name:?}) has no expression"));
        }
        if names.contains(&name) {
            return fail(format!("matchConditions[{i}]: name {name:?} is used twice"));
        }
        names.push(name);
    }
    for (i, c) in w.conditions.conditions().iter().enumerate() {
        if !c.undeclared.is_empty() {
            return fail(format!(
                "matchConditions[{i}] ({:?}) uses {}, which matchConditions do not declare (only object, oldObject, request and authorizer): the apiserver refuses to compile it",
                c.name,
                c.undeclared.join(", ")
            ));
        }
    }
    for (i, c) in w.conditions.conditions().iter().enumerate() {
        if let Some(why) = &c.refused {
            // field.Invalid on the trimmed expression (validateMatchCondition, convertCELErrorToValidationError).
            return Check::violated(
                format!("matchConditions[{i}] ({:?}) does not compile: {}", c.name, why.summary),
                format!("matchConditions[{i}].expression: Invalid value: {:?}: {}", c.expression.trim(), why.apiserver),
            );
        }
    }
    for (label, outcomes) in evaluated(w) {
        if let Some(Outcome::NotBool(e)) = outcomes.iter().find(|o| matches!(o, Outcome::NotBool(_))) {
            return fail(format!("on {label}: {e}"));
        }
    }
    Check::Pass
}

/// Every condition's outcome on each request of the default run as built (before steering).
fn evaluated(w: &WebhookSpec) -> Vec<(String, Vec<Outcome>)> {
    if w.conditions.is_empty() {
        return Vec::new();
    }
    candidates(w).into_iter().map(|(label, spec)| (label, condition_outcomes(&w.conditions, &spec))).collect()
}

pub(crate) fn match_conditions_errors(w: &WebhookSpec) -> Check {
    if w.conditions.is_empty() {
        return Check::na("no matchConditions");
    }
    let planned = candidates(w);
    let total = planned.len();
    let mut errored: Vec<(String, Dispatch, String)> = Vec::new();
    let mut unknown: Vec<(String, String)> = Vec::new();
    for (label, spec) in planned {
        match w.conditions.combine(&condition_outcomes(&w.conditions, &spec)) {
            d @ Dispatch::Reject(_) => {
                let Dispatch::Reject(errors) = &d else { unreachable!() };
                let says = rejection(&spec.resource, &spec.name, errors);
                errored.push((label, d, says));
            }
            d @ Dispatch::Ignore(_) => errored.push((label, d, String::new())),
            Dispatch::Unknown(why) => {
                for (name, reason) in why {
                    if !unknown.iter().any(|(n, _)| *n == name) {
                        unknown.push((name, reason));
                    }
                }
            }
            Dispatch::Call | Dispatch::Skip(_) => {}
        }
    }
    let cannot = || unknown.iter().map(|(n, why)| format!("{n:?}: {why}")).collect::<Vec<_>>().join("; ");
    let Some((label, decision, says)) = errored.first() else {
        if unknown.is_empty() {
            return Check::Pass;
        }
        return Check::na(format!("the suite cannot evaluate every condition ({})", cannot()));
    };
    let errors = match decision {
        Dispatch::Reject(e) | Dispatch::Ignore(e) => e,
        _ => unreachable!(),
    };
    let what: Vec<String> = errors.iter().map(|(n, e)| format!("{n:?}: {e}")).collect();
    let n = errored.len();
    let mut detail = if w.conditions.fail_closed() {
        format!(
            "matchConditions error on {n} of the {total} requests the rules select, e.g. {label} ({}): with failurePolicy Fail the apiserver rejects those requests without calling the webhook",
            what.join("; ")
        )
    } else {
        format!(
            "matchConditions error on {n} of the {total} requests the rules select, e.g. {label} ({}): with failurePolicy Ignore the apiserver skips the webhook for them, so what it enforces does not apply",
            what.join("; ")
        )
    };
    if !unknown.is_empty() {
        detail.push_str(&format!("; the suite cannot evaluate {}", cannot()));
    }
    if says.is_empty() {
        fail(detail)
    } else {
        Check::violated(detail, says.clone())
    }
}

pub(crate) fn timeout(w: &WebhookSpec) -> Check {
    if w.timeout_seconds > 10 {
        fail(format!("timeoutSeconds is {}{} (the v1 default is 10): every matching API request may wait that long when the webhook is slow or down", w.timeout_seconds, defaulted(w, "timeoutSeconds")))
    } else {
        Check::Pass
    }
}

pub(crate) fn failure_policy_set(w: &WebhookSpec) -> Check {
    if w.failure_policy.is_none() || w.defaulted.contains(&"failurePolicy") {
        fail("failurePolicy is not set: v1 defaults to Fail, v1beta1 to Ignore; say which one you mean")
    } else {
        Check::Pass
    }
}

pub(crate) fn system_namespaces(w: &WebhookSpec) -> Check {
    if w.failure_policy.as_deref() == Some("Ignore") {
        return Check::na("failurePolicy Ignore: a webhook that is down does not block these namespaces");
    }
    let namespaced = w.rules.iter().any(|r| r.scope.as_deref() != Some("Cluster"));
    if !namespaced {
        return Check::na("the rules select cluster-scoped resources only");
    }
    let mut namespaces = vec!["kube-system".to_string()];
    if let Some(s) = &w.client_config.service {
        if !namespaces.contains(&s.namespace) {
            namespaces.push(s.namespace.clone());
        }
    }
    let selector = match LabelSelector::parse(w.namespace_selector.as_ref()) {
        Ok(s) => s,
        Err(e) => return Check::na(format!("the namespaceSelector does not parse: {e}")),
    };
    let caught: Vec<&String> = namespaces
        .iter()
        .filter(|ns| {
            let mut labels = serde_json::Map::new();
            labels.insert(NAMESPACE_NAME_LABEL.into(), Value::String(ns.to_string()));
            selector.as_ref().is_none_or(|s| s.matches(&labels))
        })
        .collect();
    if caught.is_empty() {
        Check::Pass
    } else {
        let names: Vec<&str> = caught.iter().map(|s| s.as_str()).collect();
        fail(format!(
            "with failurePolicy Fail the webhook catches namespace(s) {}: exclude them with a namespaceSelector such as matchExpressions [{{key: kubernetes.io/metadata.name, operator: NotIn, values: [{}]}}]",
            names.join(", "),
            names.join(", ")
        ))
    }
}

pub(crate) fn dry_run(w: &WebhookSpec) -> Check {
    match w.side_effects.as_deref() {
        Some(v @ ("Unknown" | "Some")) => fail(format!("sideEffects {v}{}: the apiserver refuses every dry-run request this webhook matches (kubectl --dry-run=server, diff)", defaulted(w, "sideEffects"))),
        _ => Check::Pass,
    }
}

pub(crate) fn wildcard_resources(w: &WebhookSpec) -> Check {
    for (i, r) in w.rules.iter().enumerate() {
        if let Some(res) = r.resources.iter().find(|res| res.as_str() == "*" || res.as_str() == "*/*") {
            return fail(format!("rules[{i}].resources has {res:?}: the webhook is called for every kind (leases, events, …), including kinds added later"));
        }
    }
    Check::Pass
}
