//! Side effects: what a webhook wrote to the Kubernetes API while it admitted the suite's requests,
//! judged against the `sideEffects` it declares.
//!
//! `admissionregistration.k8s.io/v1` `SideEffectClass` (`k8s.io/api` `types.go`): `None` — calling
//! the webhook has no side effects; `NoneOnDryRun` — it may have side effects, suppressed when the
//! request has the dry-run attribute. The apiserver sends a dry-run request only to webhooks that
//! declare one of these two (`mutating/dispatcher.go` `callAttrMutatingHook`,
//! `validating/dispatcher.go` `callHook`: `NewDryRunUnsupportedErr` otherwise): a webhook that writes
//! while admitting one breaks `kubectl apply --dry-run=server` and `kubectl diff` for everyone.

use crate::apiserver::ApiCall;
use crate::checks::property::dry_run_supported;
use crate::config::WebhookSpec;
use crate::verdict::Check;

/// A call to the API and the admission request it is attributed to.
#[derive(Clone, Debug)]
pub(crate) struct AttributedCall {
    /// The call.
    pub call: ApiCall,
    /// The admission request being admitted when it was made (uid, summary), or by its uid.
    pub admission: String,
    /// That admission request was a dry run.
    pub during_dry_run: bool,
}

/// What one webhook did to the API while the suite's requests to it were being admitted.
#[derive(Clone, Debug, Default)]
pub(crate) struct Activity {
    /// The target was given the recording API (a command or an image).
    pub observed: bool,
    /// Dry-run admission requests sent to it.
    pub dry_run_requests: u64,
    /// Other admission requests sent to it.
    pub requests: u64,
    /// Calls attributed to its admission requests, in order.
    pub calls: Vec<AttributedCall>,
}

impl Activity {
    /// Writes that change the cluster (authenticated, without `dryRun=All`) made during dry runs
    /// (`true`) or during other requests (`false`).
    pub(crate) fn writes(&self, during_dry_run: bool) -> Vec<&AttributedCall> {
        self.calls.iter().filter(|c| c.during_dry_run == during_dry_run && c.call.changes_state()).collect()
    }
}

fn first_writes(writes: &[&AttributedCall]) -> String {
    let shown: Vec<String> =
        writes.iter().take(3).map(|w| format!("{} (while admitting {})", w.call.describe(), w.admission)).collect();
    let more =
        if writes.len() > shown.len() { format!("; and {} more", writes.len() - shown.len()) } else { String::new() };
    format!("{}{more}", shown.join("; "))
}

/// `side-effects.dry-run`: no write without `dryRun=All` while a dry-run request is admitted.
pub(crate) fn dry_run(w: &WebhookSpec, activity: &Activity) -> Check {
    if !dry_run_supported(w) {
        return Check::na(
            "the apiserver sends it no dry-run request (sideEffects Some or Unknown; see property.dry-run-config)",
        );
    }
    if !activity.observed {
        return Check::na("the webhook was not given the recording Kubernetes API (only --cmd and --image targets are): its calls are not seen");
    }
    if activity.dry_run_requests == 0 {
        return Check::na("no dry-run request reached the webhook");
    }
    let writes = activity.writes(true);
    if writes.is_empty() {
        return Check::Pass;
    }
    Check::violated_plain(format!(
        "sideEffects {} promises no side effect on a dry run, but the webhook wrote to the API without dryRun=All while admitting a dryRun: true request ({} write(s)): {}",
        w.side_effects.as_deref().unwrap_or_default(),
        writes.len(),
        first_writes(&writes)
    ))
}

/// `side-effects.declared`: a webhook that declares `None` writes nothing, dry run or not.
pub(crate) fn declared(w: &WebhookSpec, activity: &Activity) -> Check {
    if w.side_effects.as_deref() != Some("None") {
        return Check::na(format!(
            "sideEffects {} allows side effects on requests that are not dry runs",
            w.side_effects.as_deref().unwrap_or("(unset)")
        ));
    }
    if !activity.observed {
        return Check::na("the webhook was not given the recording Kubernetes API (only --cmd and --image targets are): its calls are not seen");
    }
    if activity.requests == 0 {
        return Check::na("no request reached the webhook");
    }
    let writes = activity.writes(false);
    if writes.is_empty() {
        return Check::Pass;
    }
    Check::violated_plain(format!(
        "sideEffects None, but the webhook wrote to the API while admitting requests ({} write(s)): declare NoneOnDryRun and skip the writes on dryRun: true: {}",
        writes.len(),
        first_writes(&writes)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn webhook(side_effects: &str) -> WebhookSpec {
        let text = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: c}\nwebhooks:\n  - name: a.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: None\n    clientConfig: {url: \"https://hook.example.com/\"}\n    rules: [{operations: [CREATE], apiGroups: [\"\"], apiVersions: [v1], resources: [pods]}]\n";
        let mut w = crate::config::Manifest::parse(std::path::Path::new("m.yaml"), text).unwrap().webhooks.remove(0);
        w.side_effects = Some(side_effects.into());
        w
    }

    fn call(method: &str, query: &str, during_dry_run: bool) -> AttributedCall {
        AttributedCall {
            call: ApiCall {
                at: Instant::now(),
                method: method.into(),
                path: "/api/v1/namespaces/default/configmaps".into(),
                query: query.into(),
                body: "{}".into(),
                status: 201,
                authenticated: true,
                dry_run: query.contains("dryRun=All"),
                uids: Vec::new(),
            },
            admission: "CREATE pods ns/p (uid u)".into(),
            during_dry_run,
        }
    }

    fn activity(calls: Vec<AttributedCall>) -> Activity {
        Activity { observed: true, dry_run_requests: 2, requests: 2, calls }
    }

    #[test]
    fn a_write_during_a_dry_run_fails_and_reads_or_dry_writes_do_not() {
        let w = webhook("NoneOnDryRun");
        assert!(matches!(dry_run(&w, &activity(vec![call("POST", "", true)])), Check::Violated(_)));
        assert!(matches!(
            dry_run(&w, &activity(vec![call("GET", "", true), call("POST", "dryRun=All", true)])),
            Check::Pass
        ));
        assert!(matches!(dry_run(&w, &activity(vec![call("POST", "", false)])), Check::Pass));
        assert!(matches!(dry_run(&webhook("Some"), &activity(vec![call("POST", "", true)])), Check::NotApplicable(_)));
        assert!(matches!(dry_run(&w, &Activity::default()), Check::NotApplicable(_)));
    }

    #[test]
    fn writes_outside_dry_runs_are_declared_by_none_on_dry_run_only() {
        let writes = activity(vec![call("PATCH", "", false)]);
        assert!(matches!(declared(&webhook("None"), &writes), Check::Violated(_)));
        assert!(matches!(declared(&webhook("NoneOnDryRun"), &writes), Check::NotApplicable(_)));
        assert!(matches!(declared(&webhook("None"), &activity(vec![call("GET", "", false)])), Check::Pass));
    }
}
