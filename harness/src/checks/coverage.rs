//! The check of `coverage.requests`: a verdict needs requests behind it.

use crate::config::WebhookSpec;
use crate::requests::{targets_for, ApiResources};
use crate::verdict::Check;

/// The webhook's rules in one line: `CREATE,UPDATE pods,pods/status in ""/v1; …`.
pub fn rules_text(webhook: &WebhookSpec) -> String {
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
pub fn requests_sent(webhook: &WebhookSpec, sent: u64) -> Check {
    if sent > 0 {
        return Check::Pass;
    }
    let why = if targets_for(&webhook.rules, &ApiResources::built_in()).is_empty() {
        "the apiserver sends no request for what its rules select (e.g. CONNECT on a resource without a connect subresource, or webhook and admission-policy configurations, which are never sent to webhooks)"
    } else {
        "its namespaceSelector, objectSelector or matchConditions leave out every request the suite can build"
    };
    Check::violated_plain(format!(
        "no request was sent to {}: {why}; its rules: {}. Nothing was tested: fix the rules, or give cases (--cases DIR) for what it should see",
        webhook.name,
        rules_text(webhook)
    ))
}
