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

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use base64::Engine as _;
use serde::Serialize;
use serde_json::Value;

use crate::checks::Check;
use crate::client::{tls_handshake, Endpoint};
use crate::config::WebhookSpec;
use crate::rules::{Outcome, Severity};

pub struct LintRule {
    pub id: &'static str,
    pub severity: Severity,
    pub statement: &'static str,
    pub source: &'static str,
    pub check: fn(&WebhookSpec) -> Check,
}

impl std::fmt::Debug for LintRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LintRule").field("id", &self.id).field("severity", &self.severity).finish()
    }
}

const VALIDATION: &str = "pkg/apis/admissionregistration/validation/validation.go";
pub const CA_BUNDLE: &str = "manifest.ca-bundle";

macro_rules! lint {
    ($id:expr, $sev:ident, $check:path, $statement:literal, $source:expr) => {
        LintRule { id: $id, severity: Severity::$sev, statement: $statement, source: $source, check: $check }
    };
}

/// Every lint rule.
pub static LINT_RULES: &[LintRule] = &[
    lint!("manifest.name", Fail, name,
        "The webhook name is a fully qualified DNS subdomain with at least three segments (e.g. pods.policy.example.com).",
        VALIDATION),
    lint!("manifest.side-effects", Fail, side_effects,
        "sideEffects is set to None or NoneOnDryRun (Unknown and Some are refused on create).",
        VALIDATION),
    lint!("manifest.failure-policy", Fail, failure_policy,
        "failurePolicy, when set, is Ignore or Fail.",
        VALIDATION),
    lint!("manifest.match-policy", Fail, match_policy,
        "matchPolicy, when set, is Exact or Equivalent.",
        VALIDATION),
    lint!("manifest.reinvocation-policy", Fail, reinvocation_policy,
        "reinvocationPolicy, when set, is Never or IfNeeded.",
        VALIDATION),
    lint!("manifest.client-config", Fail, client_config,
        "clientConfig.url has no user info, query or fragment; service.path, when set, starts with '/'.",
        VALIDATION),
    lint!(CA_BUNDLE, Fail, ca_bundle,
        "clientConfig.caBundle, when set, is PEM certificates (base64 in YAML) and verifies the certificate the webhook serves.",
        "pkg/apis/admissionregistration/validation/validation.go; pkg/util/webhook/client.go (x509 verification)"),
    lint!("manifest.rules", Fail, rules,
        "Each rule has apiGroups and apiVersions, operations '*' alone, scope Cluster/Namespaced/*, resources like pods, pods/status, pods/*, */scale, * or */* without conflicting entries.",
        VALIDATION),
    lint!("manifest.review-versions", Fail, review_versions,
        "admissionReviewVersions lists no version twice.",
        VALIDATION),
    lint!("manifest.match-conditions", Fail, match_conditions,
        "At most 64 matchConditions, each with a unique non-empty name and an expression.",
        VALIDATION),
    lint!("manifest.timeout", Warn, timeout,
        "timeoutSeconds is 10 or less: a slower webhook holds every matching API request that long.",
        "Kubernetes docs, Dynamic Admission Control: Timeouts"),
    lint!("manifest.failure-policy-set", Warn, failure_policy_set,
        "failurePolicy is set explicitly (the default differs between v1, Fail, and v1beta1, Ignore).",
        "Kubernetes docs, Dynamic Admission Control: Failure policy"),
    lint!("manifest.system-namespaces", Warn, system_namespaces,
        "A webhook with failurePolicy Fail has a namespaceSelector that keeps kube-system and its own namespace out.",
        "Kubernetes docs, Dynamic Admission Control: Avoiding operating on the kube-system namespace, Avoiding deadlocks in self-hosted webhooks"),
    lint!("manifest.dry-run", Warn, dry_run,
        "sideEffects does not block dry-run (Unknown or Some: every dry-run request the webhook matches is refused).",
        "mutating/dispatcher.go, validating/dispatcher.go (does not support dry run)"),
    lint!("manifest.wildcard-resources", Warn, wildcard_resources,
        "Rules name resources instead of '*' or '*/*' (which catch every kind, present and future, and every subresource).",
        "Kubernetes docs, Dynamic Admission Control: Matching requests: rules"),
];

/// The lint rule with this id.
pub fn lint_rule(id: &str) -> Option<&'static LintRule> {
    LINT_RULES.iter().find(|r| r.id == id)
}

/// One lint rule's verdict on one webhook.
#[derive(Clone, Debug, Serialize)]
pub struct LintFinding {
    pub rule: &'static str,
    pub severity: Severity,
    pub webhook: String,
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

fn finding(rule: &'static LintRule, webhook: &WebhookSpec, check: Check) -> LintFinding {
    let (outcome, detail) = match check {
        Check::Pass => (Outcome::Pass, None),
        Check::NotApplicable(why) => (Outcome::Skip, Some(why)),
        Check::Violated(v) => {
            (if rule.severity == Severity::Fail { Outcome::Fail } else { Outcome::Warn }, Some(v.detail))
        }
    };
    LintFinding { rule: rule.id, severity: rule.severity, webhook: webhook.name.clone(), outcome, detail }
}

/// Every lint rule on every webhook (rule order within each webhook).
pub fn lint(webhooks: &[WebhookSpec]) -> Vec<LintFinding> {
    let mut out = Vec::new();
    for w in webhooks {
        for rule in LINT_RULES {
            out.push(finding(rule, w, (rule.check)(w)));
        }
    }
    out
}

fn fail(detail: impl Into<String>) -> Check {
    Check::violated_plain(detail)
}

fn name(w: &WebhookSpec) -> Check {
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
        return fail(format!("{n:?} should be a domain with at least three segments separated by dots"));
    }
    Check::Pass
}

fn side_effects(w: &WebhookSpec) -> Check {
    match w.side_effects.as_deref() {
        None => fail("sideEffects is required (None or NoneOnDryRun)"),
        Some("None" | "NoneOnDryRun") => Check::Pass,
        Some(v @ ("Unknown" | "Some")) => fail(format!(
            "sideEffects {v:?} is refused on create: use None or NoneOnDryRun (and honour request.dryRun)"
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

fn failure_policy(w: &WebhookSpec) -> Check {
    one_of("failurePolicy", w.failure_policy.as_deref(), &["Ignore", "Fail"])
}

fn match_policy(w: &WebhookSpec) -> Check {
    one_of("matchPolicy", w.match_policy.as_deref(), &["Exact", "Equivalent"])
}

fn reinvocation_policy(w: &WebhookSpec) -> Check {
    one_of("reinvocationPolicy", w.reinvocation_policy.as_deref(), &["Never", "IfNeeded"])
}

fn client_config(w: &WebhookSpec) -> Check {
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
            return fail(format!("service.path {path:?} must start with '/'"));
        }
    }
    Check::Pass
}

/// The caBundle's PEM, decoded from the manifest's base64.
pub fn ca_bundle_pem(w: &WebhookSpec) -> Option<Result<Vec<u8>, String>> {
    let text = w.client_config.ca_bundle.as_deref()?;
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.is_empty() {
        return None;
    }
    let pem = match base64::engine::general_purpose::STANDARD.decode(compact.as_bytes()) {
        Ok(b) => b,
        Err(e) => return Some(Err(format!("caBundle is not base64: {e}"))),
    };
    match crate::tls::parse_certificates(&pem) {
        Ok(_) => Some(Ok(pem)),
        Err(e) => Some(Err(format!("caBundle does not hold PEM certificates: {e:#}"))),
    }
}

fn ca_bundle(w: &WebhookSpec) -> Check {
    match ca_bundle_pem(w) {
        None => Check::na("no caBundle (injected at deploy time?)"),
        Some(Ok(_)) => Check::Pass,
        Some(Err(e)) => fail(e),
    }
}

fn rules(w: &WebhookSpec) -> Check {
    let mut problems = Vec::new();
    for (i, r) in w.rules.iter().enumerate() {
        let at = format!("rules[{i}]");
        if r.api_groups.is_empty() {
            problems.push(format!("{at}.apiGroups: must include at least one group ('' is core)"));
        }
        if r.api_versions.is_empty() {
            problems.push(format!("{at}.apiVersions: must include at least one version"));
        }
        if r.operations.len() > 1 && r.operations.iter().any(|o| o == "*") {
            problems.push(format!("{at}.operations: if '*' is present, it must be alone"));
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
                    problems.push(format!("{at}.resources: if '{r0}/*' is present, must not specify {res}"));
                }
                if wildcard_res.contains(&s0) {
                    problems.push(format!("{at}.resources: if '*/{s0}' is present, must not specify {res}"));
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
            problems.push(format!("{at}.resources: if '*/*' is present, must not specify other resources"));
        }
        if single && plain {
            problems.push(format!(
                "{at}.resources: if '*' is present, must not specify other resources without subresources"
            ));
        }
    }
    if problems.is_empty() {
        Check::Pass
    } else {
        fail(problems.join("; "))
    }
}

fn review_versions(w: &WebhookSpec) -> Check {
    let mut seen = Vec::new();
    for v in &w.admission_review_versions {
        if seen.contains(&v) {
            return fail(format!("admissionReviewVersions lists {v:?} twice"));
        }
        seen.push(v);
    }
    Check::Pass
}

fn match_conditions(w: &WebhookSpec) -> Check {
    let n = w.match_conditions.len();
    if n == 0 {
        return Check::na("no matchConditions");
    }
    if n > 64 {
        return fail(format!("{n} matchConditions: at most 64 are allowed"));
    }
    let mut names = Vec::new();
    for (i, c) in w.match_conditions.iter().enumerate() {
        let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
        let expression = c.get("expression").and_then(Value::as_str).unwrap_or_default();
        if name.is_empty() || expression.trim().is_empty() {
            return fail(format!("matchConditions[{i}] needs a name and an expression"));
        }
        if names.contains(&name) {
            return fail(format!("matchConditions[{i}]: name {name:?} is used twice"));
        }
        names.push(name);
    }
    Check::Pass
}

fn timeout(w: &WebhookSpec) -> Check {
    if w.timeout_seconds > 10 {
        fail(format!("timeoutSeconds is {} (the v1 default is 10): every matching API request may wait that long when the webhook is slow or down", w.timeout_seconds))
    } else {
        Check::Pass
    }
}

fn failure_policy_set(w: &WebhookSpec) -> Check {
    if w.failure_policy.is_none() {
        fail("failurePolicy is not set: v1 defaults to Fail, v1beta1 to Ignore; say which one you mean")
    } else {
        Check::Pass
    }
}

/// Does a label selector (metav1.LabelSelector as JSON) select an object with these labels? An
/// absent or empty selector selects everything.
pub fn selector_matches(selector: Option<&Value>, labels: &BTreeMap<&str, &str>) -> bool {
    let Some(selector) = selector.filter(|s| !s.is_null()) else { return true };
    if let Some(ml) = selector.get("matchLabels").and_then(Value::as_object) {
        for (k, v) in ml {
            if labels.get(k.as_str()).copied() != v.as_str() {
                return false;
            }
        }
    }
    if let Some(exprs) = selector.get("matchExpressions").and_then(Value::as_array) {
        for e in exprs {
            let key = e.get("key").and_then(Value::as_str).unwrap_or_default();
            let values: Vec<&str> = e
                .get("values")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let have = labels.get(key).copied();
            let ok = match e.get("operator").and_then(Value::as_str).unwrap_or_default() {
                "In" => have.is_some_and(|h| values.contains(&h)),
                "NotIn" => !have.is_some_and(|h| values.contains(&h)),
                "Exists" => have.is_some(),
                "DoesNotExist" => have.is_none(),
                _ => false,
            };
            if !ok {
                return false;
            }
        }
    }
    true
}

fn system_namespaces(w: &WebhookSpec) -> Check {
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
    let caught: Vec<&String> = namespaces
        .iter()
        .filter(|ns| {
            let labels = BTreeMap::from([("kubernetes.io/metadata.name", ns.as_str())]);
            selector_matches(w.namespace_selector.as_ref(), &labels)
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

fn dry_run(w: &WebhookSpec) -> Check {
    match w.side_effects.as_deref() {
        Some(v @ ("Unknown" | "Some")) => fail(format!("sideEffects {v}: the apiserver refuses every dry-run request this webhook matches (kubectl --dry-run=server, diff)")),
        _ => Check::Pass,
    }
}

fn wildcard_resources(w: &WebhookSpec) -> Check {
    for (i, r) in w.rules.iter().enumerate() {
        if let Some(res) = r.resources.iter().find(|res| res.as_str() == "*" || res.as_str() == "*/*") {
            return fail(format!("rules[{i}].resources has {res:?}: the webhook is called for every kind (leases, events, …), including kinds added later"));
        }
    }
    Check::Pass
}

/// `manifest.ca-bundle` against the certificate the target really serves: a handshake trusting
/// only the caBundle. `endpoint` is `None` when the suite generated the certificate itself (then the
/// caBundle is not checked: it cannot vouch for a certificate minted for this run).
pub async fn check_ca_bundle_served(webhooks: &[WebhookSpec], endpoint: Option<&Endpoint>) -> Vec<LintFinding> {
    let rule = lint_rule(CA_BUNDLE).expect("the ca-bundle rule exists");
    let mut out = Vec::new();
    for w in webhooks {
        let check = match (ca_bundle_pem(w), endpoint) {
            (None, _) => Check::na("no caBundle in the manifest: the served certificate was not checked against it"),
            (Some(Err(e)), _) => fail(e),
            (Some(Ok(_)), None) => {
                Check::na("the suite generated the serving certificate for this run: the caBundle was not checked")
            }
            (Some(Ok(pem)), Some(endpoint)) => match served_addr(endpoint).await {
                Err(e) => Check::na(format!("cannot reach the target to check the caBundle: {e}")),
                Ok(addr) => {
                    let with_bundle = Endpoint { ca_pem: pem, ..endpoint.clone() };
                    match tls_handshake(&with_bundle, addr, Duration::from_secs(5)).await {
                        Ok(()) => Check::Pass,
                        Err(e) => fail(format!(
                            "the caBundle does not verify the certificate the webhook serves at {}: {e}",
                            endpoint.base
                        )),
                    }
                }
            },
        };
        out.push(finding(rule, w, check));
    }
    out
}

async fn served_addr(endpoint: &Endpoint) -> Result<SocketAddr, String> {
    if let Some(a) = endpoint.resolve_to {
        return Ok(a);
    }
    let host = endpoint.base.host_str().unwrap_or("localhost").trim_matches(['[', ']']).to_string();
    let port = endpoint.base.port_or_known_default().unwrap_or(443);
    let lookup = tokio::time::timeout(Duration::from_secs(5), tokio::net::lookup_host((host.as_str(), port)));
    let result = match lookup.await {
        Ok(Ok(mut addrs)) => addrs.next().ok_or_else(|| format!("{host} has no address")),
        Ok(Err(e)) => Err(format!("cannot resolve {host}: {e}")),
        Err(_) => Err(format!("resolving {host}: no answer within 5 s")),
    };
    result
}

/// Replace the static `manifest.ca-bundle` findings by the served-certificate ones.
pub fn merge_ca_bundle(findings: &mut Vec<LintFinding>, served: Vec<LintFinding>) {
    for s in served {
        if let Some(f) = findings.iter_mut().find(|f| f.rule == CA_BUNDLE && f.webhook == s.webhook) {
            *f = s;
        } else {
            findings.push(s);
        }
    }
}

#[cfg(test)]
mod tests;
