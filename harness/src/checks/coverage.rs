//! The check of `coverage.requests`: a verdict needs requests behind it.

use crate::conditions::Authorizer;
use crate::config::WebhookSpec;
use crate::requests::{selected_by_rules, ApiResources};
use crate::verdict::Check;

/// The webhook's rules in one line: `CREATE,UPDATE pods,pods/status in ""/v1; …`.
pub(crate) fn rules_text(webhook: &WebhookSpec) -> String {
    let rules: Vec<String> = webhook
        .rules
        .iter()
        .map(|r| {
            format!(
                "{} {} in {}/{}",
                r.operations.join(","),
                r.resources.join(","),
                r.api_groups.iter().map(|g| format!("{g:?}")).collect::<Vec<_>>().join(","),
                r.api_versions.join(",")
            )
        })
        .collect();
    if rules.is_empty() {
        "no rules".into()
    } else {
        rules.join("; ")
    }
}

/// `sent` requests reached `webhook` in the whole run: none is a FAIL that says why.
pub(crate) fn requests_sent(webhook: &WebhookSpec, sent: u64) -> Check {
    if sent > 0 {
        return Check::Pass;
    }
    let unevaluable: Vec<String> = webhook
        .conditions
        .conditions()
        .iter()
        .filter_map(|c| c.unevaluable().map(|why| format!("{:?} ({why})", c.name)))
        .collect();
    let asks_unknown_authorizer = matches!(webhook.conditions.authorizer(), Authorizer::Unknown)
        && webhook.conditions.conditions().iter().any(|c| c.expression.contains("authorizer"));
    let why = if selected_by_rules(&webhook.rules, &ApiResources::built_in()).is_empty() {
        "the apiserver sends no request for what its rules select (e.g. CONNECT on a resource without a connect subresource, or webhook and admission-policy configurations, which are never sent to webhooks)".to_string()
    } else if !unevaluable.is_empty() {
        format!(
            "the suite cannot evaluate its matchConditions {}, and they decide every request",
            unevaluable.join(", ")
        )
    } else if asks_unknown_authorizer {
        "its matchConditions ask the authorizer, which is not described (--authorizer FILE), and that decides every request".to_string()
    } else {
        "its namespaceSelector, objectSelector or matchConditions leave out every request the suite can build"
            .to_string()
    };
    Check::violated_plain(format!(
        "no request was sent to {}: {why}; its rules: {}. Nothing was tested: fix the rules, or give cases (--cases DIR) for what it should see",
        webhook.name,
        rules_text(webhook)
    ))
}
