//! The defaults the apiserver fills into a webhook the manifest leaves fields out of. v1 requires
//! `sideEffects` and `admissionReviewVersions` and defaults the rest where they are used; v1beta1
//! (served by Kubernetes 1.9 to 1.21) defaulted every one of them, differently from v1
//! (`pkg/apis/admissionregistration/v1beta1/defaults.go`: failurePolicy Ignore, matchPolicy Exact,
//! timeoutSeconds 30, admissionReviewVersions [v1beta1], sideEffects Unknown).

use super::manifest::{ConfigVersion, RawWebhook};

/// `raw` with its version's defaults filled in, and the names of the fields they filled.
pub(super) fn apply(version: ConfigVersion, mut raw: RawWebhook) -> (RawWebhook, Vec<&'static str>) {
    let mut filled = Vec::new();
    if version != ConfigVersion::V1beta1 {
        return (raw, filled);
    }
    fn fill<T>(field: &mut Option<T>, value: T, name: &'static str, filled: &mut Vec<&'static str>) {
        if field.is_none() {
            *field = Some(value);
            filled.push(name);
        }
    }
    fill(&mut raw.failure_policy, "Ignore".to_string(), "failurePolicy", &mut filled);
    fill(&mut raw.match_policy, "Exact".to_string(), "matchPolicy", &mut filled);
    fill(&mut raw.timeout_seconds, 30, "timeoutSeconds", &mut filled);
    if raw.admission_review_versions.as_ref().is_none_or(Vec::is_empty) {
        raw.admission_review_versions = Some(vec!["v1beta1".to_string()]);
        filled.push("admissionReviewVersions");
    }
    fill(&mut raw.side_effects, "Unknown".to_string(), "sideEffects", &mut filled);
    (raw, filled)
}
