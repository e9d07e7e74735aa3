//! The `admissionregistration.k8s.io` version a configuration is written in, and the defaults the
//! apiserver fills into a webhook that leaves fields out. v1 requires `sideEffects` and
//! `admissionReviewVersions` and defaults the rest where they are used; v1beta1 (served by
//! Kubernetes 1.9 to 1.21) defaulted every one of them, differently from v1
//! (`pkg/apis/admissionregistration/v1beta1/defaults.go`: failurePolicy Ignore, matchPolicy Exact,
//! timeoutSeconds 30, admissionReviewVersions [v1beta1], sideEffects Unknown).

/// The `admissionregistration.k8s.io` version a configuration is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ConfigVersion {
    /// `admissionregistration.k8s.io/v1`, the version every current apiserver serves.
    V1,
    /// `admissionregistration.k8s.io/v1beta1`: Kubernetes 1.9 to 1.21, no longer served since 1.22.
    V1beta1,
}

impl ConfigVersion {
    /// `admissionregistration.k8s.io/v1` or `admissionregistration.k8s.io/v1beta1`.
    pub fn api_version(self) -> &'static str {
        match self {
            ConfigVersion::V1 => "admissionregistration.k8s.io/v1",
            ConfigVersion::V1beta1 => "admissionregistration.k8s.io/v1beta1",
        }
    }
}

/// The fields of a webhook a version defaults, as the manifest wrote them.
pub(super) struct Defaultable<'a> {
    pub failure_policy: &'a mut Option<String>,
    pub match_policy: &'a mut Option<String>,
    pub timeout_seconds: &'a mut Option<i64>,
    pub admission_review_versions: &'a mut Option<Vec<String>>,
    pub side_effects: &'a mut Option<String>,
}

impl ConfigVersion {
    /// Fill `fields` with this version's defaults; the names of the fields filled.
    pub(super) fn fill_defaults(self, fields: Defaultable<'_>) -> Vec<&'static str> {
        let mut filled = Vec::new();
        if self != ConfigVersion::V1beta1 {
            return filled;
        }
        fn fill<T>(field: &mut Option<T>, value: T, name: &'static str, filled: &mut Vec<&'static str>) {
            if field.is_none() {
                *field = Some(value);
                filled.push(name);
            }
        }
        fill(fields.failure_policy, "Ignore".to_string(), "failurePolicy", &mut filled);
        fill(fields.match_policy, "Exact".to_string(), "matchPolicy", &mut filled);
        fill(fields.timeout_seconds, 30, "timeoutSeconds", &mut filled);
        if fields.admission_review_versions.as_ref().is_none_or(Vec::is_empty) {
            *fields.admission_review_versions = Some(vec!["v1beta1".to_string()]);
            filled.push("admissionReviewVersions");
        }
        fill(fields.side_effects, "Unknown".to_string(), "sideEffects", &mut filled);
        filled
    }
}
