//! Every lint rule fails (or warns) on a manifest that breaks it and passes on one that honours it.

use std::path::Path;

use base64::Engine as _;

use super::*;
use crate::config::Manifest;
use crate::rules::{of_kind, RuleKind};
use crate::verdict::Outcome;

fn manifest_rules() -> impl Iterator<Item = &'static crate::rules::Rule> {
    of_kind(RuleKind::Manifest)
}
use crate::tls::{ServingNames, TlsMaterial};

fn bundle() -> String {
    let tls = TlsMaterial::generate(&ServingNames::for_service("hook", "policy"), None).unwrap();
    base64::engine::general_purpose::STANDARD.encode(tls.ca_pem.as_bytes())
}

fn good() -> String {
    format!(
        r#"
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {{name: demo}}
webhooks:
  - name: pods.policy.example.com
    admissionReviewVersions: ["v1", "v1beta1"]
    sideEffects: None
    failurePolicy: Fail
    matchPolicy: Equivalent
    reinvocationPolicy: IfNeeded
    timeoutSeconds: 5
    namespaceSelector:
      matchExpressions:
        - {{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, policy]}}
    matchConditions:
      - {{name: not-a-node, expression: "!request.userInfo.username.startsWith('system:node:')"}}
    clientConfig:
      service: {{name: hook, namespace: policy, path: /validate}}
      caBundle: {}
    rules:
      - {{operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods", "pods/status"], scope: Namespaced}}
"#,
        bundle()
    )
}

fn lint_text(text: &str) -> Vec<crate::verdict::Finding> {
    let m = Manifest::parse(Path::new("hooks.yaml"), text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    lint(&m.webhooks)
}

fn outcome(text: &str, rule: &str) -> (Outcome, String) {
    let f = lint_text(text).into_iter().find(|f| f.rule == rule).unwrap();
    (f.outcome(), f.detail.unwrap_or_default())
}

fn replaced(from: &str, to: &str) -> String {
    let g = good();
    assert!(g.contains(from), "{from}");
    g.replacen(from, to, 1)
}

#[test]
fn the_honouring_manifest_passes_every_rule() {
    let findings = lint_text(&good());
    assert_eq!(findings.len(), manifest_rules().count());
    for f in &findings {
        assert_eq!(f.outcome(), Outcome::Pass, "{f:?}");
    }
}

#[test]
fn each_rule_catches_its_breach() {
    let cases: Vec<(&str, String, Outcome, &str)> = vec![
        ("manifest.api-version", replaced("admissionregistration.k8s.io/v1\n", "admissionregistration.k8s.io/v1beta1\n"), Outcome::Fail, "no longer served"),
        ("manifest.name", replaced("pods.policy.example.com", "hook"), Outcome::Fail, "has 1 segment(s)"),
        ("manifest.name", replaced("pods.policy.example.com", "Pods.Policy.example.com"), Outcome::Fail, "DNS subdomain"),
        ("manifest.side-effects", replaced("    sideEffects: None\n", ""), Outcome::Fail, "sideEffects is not set"),
        ("manifest.side-effects", replaced("sideEffects: None", "sideEffects: Some"), Outcome::Fail, "refused on create"),
        ("manifest.failure-policy", replaced("failurePolicy: Fail", "failurePolicy: Never"), Outcome::Fail, "Ignore, Fail"),
        ("manifest.match-policy", replaced("matchPolicy: Equivalent", "matchPolicy: Fuzzy"), Outcome::Fail, "Exact, Equivalent"),
        ("manifest.reinvocation-policy", replaced("reinvocationPolicy: IfNeeded", "reinvocationPolicy: Always"), Outcome::Fail, "Never, IfNeeded"),
        ("manifest.client-config", replaced("path: /validate", "path: validate"), Outcome::Fail, "service.path \"validate\" does not start with '/'"),
        ("manifest.client-config", replaced("service: {name: hook, namespace: policy, path: /validate}", "url: \"https://user@hook.example.com/v?x=1#f\""), Outcome::Fail, "user info and a query and a fragment"),
        ("manifest.ca-bundle", with_bundle_line("      caBundle: bm90IGEgY2VydGlmaWNhdGU="), Outcome::Fail, "PEM"),
        ("manifest.ca-bundle", with_bundle_line("      caBundle: \"%%%\""), Outcome::Fail, "base64"),
        ("manifest.rules", replaced("operations: [\"CREATE\", \"UPDATE\"]", "operations: [\"*\", \"CREATE\"]"), Outcome::Fail, "[\"*\", \"CREATE\"] has '*' next to"),
        ("manifest.rules", replaced("scope: Namespaced", "scope: Everywhere"), Outcome::Fail, "scope"),
        ("manifest.rules", replaced("resources: [\"pods\", \"pods/status\"]", "resources: [\"*\", \"pods\"]"), Outcome::Fail, "without subresources"),
        ("manifest.rules", replaced("resources: [\"pods\", \"pods/status\"]", "resources: [\"pods/*\", \"pods/status\"]"), Outcome::Fail, "has both 'pods/*' and \"pods/status\""),
        ("manifest.rules", replaced("resources: [\"pods\", \"pods/status\"]", "resources: [\"pods/status/x\"]"), Outcome::Fail, "not resource"),
        ("manifest.rules", replaced("apiGroups: [\"\"]", "apiGroups: []"), Outcome::Fail, "apiGroups is empty"),
        ("manifest.review-versions", replaced("[\"v1\", \"v1beta1\"]", "[\"v1\", \"v1\"]"), Outcome::Fail, "twice"),
        ("manifest.match-conditions", replaced("    matchConditions:\n", &format!("    matchConditions:\n{}", (0..64).map(|i| format!("      - {{name: c{i}, expression: \"true\"}}\n")).collect::<String>())), Outcome::Fail, "65 matchConditions"),
        ("manifest.match-conditions", replaced("    matchConditions:\n", "    matchConditions:\n      - {name: not-a-node, expression: \"true\"}\n"), Outcome::Fail, "used twice"),
        ("manifest.match-conditions", replaced("    matchConditions:\n", "    matchConditions:\n      - {expression: \"true\"}\n"), Outcome::Fail, "matchConditions[0] has no name"),
        ("manifest.match-conditions", replaced("    matchConditions:\n", "    matchConditions:\n      - {name: empty, expression: \" \"}\n"), Outcome::Fail, "(\"empty\") has no expression"),
        ("manifest.match-conditions", replaced("!request.userInfo.username.startsWith('system:node:')", "params.enabled == true"), Outcome::Fail, "uses params"),
        ("manifest.match-conditions", replaced("!request.userInfo.username.startsWith('system:node:')", "request.userInfo.username"), Outcome::Fail, "(\"not-a-node\") does not compile: typed string, not bool"),
        ("manifest.match-conditions", replaced("!request.userInfo.username.startsWith('system:node:')", "request.userInfo.username == 1"), Outcome::Fail, "(\"not-a-node\") does not compile: found no matching overload for '_==_' applied to '(string, int)'"),
        ("manifest.match-conditions", replaced("!request.userInfo.username.startsWith('system:node:')", "request.dryRun == 'true'"), Outcome::Fail, "(\"not-a-node\") does not compile: found no matching overload for '_==_' applied to '(bool, string)'"),
        ("manifest.match-conditions", replaced("!request.userInfo.username.startsWith('system:node:')", "request.userInfo.nme == 'alice'"), Outcome::Fail, "(\"not-a-node\") does not compile: undefined field 'nme'"),
        ("manifest.condition-errors", replaced("!request.userInfo.username.startsWith('system:node:')", "object.metadata.labels['team'] != 'x'"), Outcome::Warn, "failurePolicy Fail the apiserver rejects"),
        ("manifest.condition-errors", replaced("!request.userInfo.username.startsWith('system:node:')", "object.metadata.labels['team'] != 'x'").replacen("failurePolicy: Fail", "failurePolicy: Ignore", 1), Outcome::Warn, "skips the webhook"),
        ("manifest.timeout", replaced("timeoutSeconds: 5", "timeoutSeconds: 15"), Outcome::Warn, "15"),
        ("manifest.failure-policy-set", replaced("    failurePolicy: Fail\n", ""), Outcome::Warn, "not set"),
        ("manifest.system-namespaces", replaced("values: [kube-system, policy]", "values: [kube-system]"), Outcome::Warn, "policy"),
        ("manifest.system-namespaces", replaced("    namespaceSelector:\n      matchExpressions:\n        - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, policy]}\n", ""), Outcome::Warn, "kube-system"),
        ("manifest.dry-run", replaced("sideEffects: None", "sideEffects: Unknown"), Outcome::Warn, "dry-run"),
        ("manifest.wildcard-resources", replaced("resources: [\"pods\", \"pods/status\"]", "resources: [\"*/*\"]"), Outcome::Warn, "*/*"),
    ];
    let mut covered: Vec<&str> = Vec::new();
    for (rule, text, want, says) in &cases {
        let (got, detail) = outcome(text, rule);
        assert_eq!(got, *want, "{rule}: {detail}");
        assert!(detail.contains(says), "{rule}: {detail:?} lacks {says:?}");
        // A finding says what the manifest has, not what the rule wants (the statement does that).
        for ideal in ["must ", "should ", "is required", "needs "] {
            assert!(!detail.contains(ideal), "{rule}: {detail:?} states the ideal ({ideal:?}), not the finding");
        }
        let statement = crate::rules::rule(rule).unwrap().statement;
        assert!(!detail.contains(statement), "{rule}: the finding repeats the rule's statement");
        covered.push(rule);
    }
    for r in manifest_rules() {
        assert!(covered.contains(&r.id), "no breaking manifest for {}", r.id);
    }
}

fn with_bundle_line(line: &str) -> String {
    let g = good();
    let old = bundle_line(&g);
    g.replacen(&old, line, 1)
}

fn bundle_line(text: &str) -> String {
    text.lines().find(|l| l.trim_start().starts_with("caBundle:")).unwrap().to_string()
}

#[test]
fn opt_in_selectors_keep_system_namespaces_out_and_ignore_needs_none() {
    let opt_in = replaced(
        "      matchExpressions:\n        - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, policy]}\n",
        "      matchLabels: {policy.example.com/enforce: \"true\"}\n",
    );
    assert_eq!(outcome(&opt_in, "manifest.system-namespaces").0, Outcome::Pass);
    let ignore = replaced("failurePolicy: Fail", "failurePolicy: Ignore")
        .replacen("    namespaceSelector:\n      matchExpressions:\n        - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, policy]}\n", "", 1);
    assert_eq!(outcome(&ignore, "manifest.system-namespaces").0, Outcome::Skip);
}

#[test]
fn the_bundled_reference_manifest_is_lint_clean() {
    let m = Manifest::parse(Path::new("reference.yaml"), reference_webhook::MANIFEST).unwrap();
    for f in lint(&m.webhooks) {
        assert!(matches!(f.outcome(), Outcome::Pass | Outcome::Skip), "{f:?}");
    }
}

/// A ValidatingWebhookConfiguration in the shape OpenShift's documentation still shows: v1beta1, no
/// admissionReviewVersions, `sideEffects: Unknown`, served by the `kubernetes` service in `default`
/// (an aggregated API server behind the apiserver), the caBundle left as a placeholder.
const OPENSHIFT_V1BETA1: &str = r#"
apiVersion: admissionregistration.k8s.io/v1beta1
kind: ValidatingWebhookConfiguration
metadata:
  name: namespacereservations.admission.online.openshift.io
webhooks:
- name: namespacereservations.admission.online.openshift.io
  clientConfig:
    service:
      namespace: default
      name: kubernetes
      path: /apis/admission.online.openshift.io/v1beta1/namespacereservations
    caBundle: <ca_signing_certificate>
  rules:
  - operations:
    - CREATE
    apiGroups:
    - project.openshift.io
    apiVersions:
    - "*"
    resources:
    - projectrequests
  - operations:
    - CREATE
    apiGroups:
    - ""
    apiVersions:
    - "*"
    resources:
    - namespaces
  failurePolicy: Fail
  sideEffects: Unknown
"#;

#[test]
fn an_openshift_v1beta1_configuration_loads_and_is_linted_as_a_current_apiserver_would() {
    let m = Manifest::parse(Path::new("openshift.yaml"), OPENSHIFT_V1BETA1).unwrap();
    let w = &m.webhooks[0];
    assert_eq!(w.api_version, crate::config::ConfigVersion::V1beta1);
    assert_eq!(w.admission_review_versions, vec!["v1beta1".to_string()], "v1beta1's default");
    assert_eq!(w.timeout_seconds, 30, "v1beta1's default");
    assert_eq!(w.match_policy.as_deref(), Some("Exact"), "v1beta1's default");
    assert_eq!(w.failure_policy.as_deref(), Some("Fail"), "as written");
    let findings = lint_text(OPENSHIFT_V1BETA1);
    let get = |rule: &str| findings.iter().find(|f| f.rule == rule).unwrap().clone();
    let api = get("manifest.api-version");
    assert_eq!(api.outcome(), Outcome::Fail);
    let detail = api.detail.unwrap();
    for says in [
        "no longer served",
        "admissionReviewVersions is required",
        "timeoutSeconds defaults to 10",
        "matchPolicy defaults to Equivalent",
    ] {
        assert!(detail.contains(says), "{detail}");
    }
    assert!(!detail.contains("sideEffects is required"), "sideEffects is written: {detail}");
    assert_eq!(get("manifest.side-effects").outcome(), Outcome::Fail);
    assert_eq!(get("manifest.ca-bundle").outcome(), Outcome::Fail, "the placeholder is not base64");
    let timeout = get("manifest.timeout");
    assert_eq!(timeout.outcome(), Outcome::Warn);
    assert!(timeout.detail.unwrap().contains("v1beta1 default"));
    assert_eq!(get("manifest.failure-policy-set").outcome(), Outcome::Pass, "failurePolicy is written");
    assert_eq!(get("manifest.dry-run").outcome(), Outcome::Warn);
    // Left out, sideEffects takes v1beta1's default, and the lint says so.
    let unwritten = OPENSHIFT_V1BETA1.replace("  sideEffects: Unknown\n", "").replace("  failurePolicy: Fail\n", "");
    let findings = lint_text(&unwritten);
    let get = |rule: &str| findings.iter().find(|f| f.rule == rule).unwrap().clone();
    assert!(get("manifest.side-effects").detail.unwrap().contains("v1beta1 default"));
    assert!(get("manifest.api-version").detail.unwrap().contains("sideEffects is required"));
    assert_eq!(get("manifest.failure-policy-set").outcome(), Outcome::Warn);
    assert_eq!(get("manifest.system-namespaces").outcome(), Outcome::Skip, "v1beta1 defaults to Ignore");
}

#[test]
fn an_erroring_condition_says_what_the_apiserver_answers_and_an_unevaluable_one_is_named() {
    let errs =
        replaced("!request.userInfo.username.startsWith('system:node:')", "object.metadata.labels['team'] != 'x'");
    let m = Manifest::parse(Path::new("hooks.yaml"), &errs).unwrap();
    let f = lint(&m.webhooks).into_iter().find(|f| f.rule == "manifest.condition-errors").unwrap();
    let says = f.apiserver_message.unwrap();
    assert!(
        says.starts_with(
            "pods \"demo-bare\" is forbidden: expression 'object.metadata.labels['team'] != 'x'' resulted in error"
        ),
        "{says}"
    );
    let unevaluable = replaced(
        "!request.userInfo.username.startsWith('system:node:')",
        "cel.bind(u, request.userInfo.username, u != '')",
    );
    let (outcome, detail) = outcome(&unevaluable, "manifest.condition-errors");
    assert_eq!(outcome, Outcome::Skip);
    assert!(detail.contains("cannot evaluate") && detail.contains("cel.bind"), "{detail}");
    // Not refused for using `u`: the suite does not know cel.bind, it does not call it undeclared.
    assert_eq!(
        super::super::lint::lint(&Manifest::parse(Path::new("h.yaml"), &unevaluable).unwrap().webhooks)
            .into_iter()
            .find(|f| f.rule == "manifest.match-conditions")
            .unwrap()
            .outcome(),
        Outcome::Pass
    );
}

#[test]
fn a_condition_that_does_not_type_check_is_refused_in_the_apiservers_words() {
    let text = replaced("!request.userInfo.username.startsWith('system:node:')", "request.userInfo.username == 1");
    let f = lint_text(&text).into_iter().find(|f| f.rule == "manifest.match-conditions").unwrap();
    assert_eq!(f.outcome(), Outcome::Fail);
    assert_eq!(
        f.apiserver_message.as_deref(),
        Some("matchConditions[0].expression: Invalid value: \"request.userInfo.username == 1\": compilation failed: ERROR: <input>:1:27: found no matching overload for '_==_' applied to '(string, int)'\n | request.userInfo.username == 1\n | ..........................^")
    );
    // Its requests are not sent, and the report names why.
    let unknown = outcome(&text, "manifest.condition-errors").1;
    assert!(unknown.contains("refuses to compile"), "{unknown}");
}
