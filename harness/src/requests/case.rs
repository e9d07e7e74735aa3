//! One request to send, with what the checks need to know about it.

use std::sync::Arc;

use serde_json::Value;

use super::review::{admission_review, fresh_uid, AdmissionSpec};
use crate::admission::{AdmissionReview, Gvk, ReviewVersion};

/// One request to send: what it is about, and the AdmissionReview as sent.
#[derive(Clone, Debug)]
pub struct RequestCase {
    /// Short human description, e.g. `CREATE pods (bare)`.
    pub label: String,
    /// True for the version a cluster sends (the first known one the manifest lists).
    pub primary: bool,
    /// What the admission is about.
    pub spec: AdmissionSpec,
    /// The AdmissionReview as sent.
    pub review: AdmissionReview,
    /// The structural schema (`openAPIV3Schema`) of the object's version when it is a custom
    /// resource of a CustomResourceDefinition given (`--crd`): what the apiextensions-apiserver
    /// prunes, defaults and validates the object by.
    pub schema: Option<Arc<Value>>,
}

impl RequestCase {
    /// A request for `spec` in `version`, with a fresh uid.
    pub fn new(label: String, version: ReviewVersion, primary: bool, spec: AdmissionSpec) -> Self {
        let review = admission_review(version, &spec, &fresh_uid());
        RequestCase { label, primary, spec, review, schema: None }
    }
    /// The AdmissionReview version sent.
    pub fn version(&self) -> ReviewVersion {
        self.review.api_version
    }
    /// The request uid.
    pub fn uid(&self) -> &str {
        &self.review.request.uid
    }
    /// The object a patch would apply to (`Value::Null` for DELETE).
    pub fn object(&self) -> &Value {
        &self.spec.object
    }
    /// Whether the suite sent the objects defaulted as the apiserver's decoder defaults them
    /// (planned and generated requests): a patch then applies to the object exactly as sent.
    pub(crate) fn sent_defaulted(&self) -> bool {
        self.spec.sent_defaulted
    }
    /// The kind of the object.
    pub fn object_kind(&self) -> &Gvk {
        &self.spec.kind
    }
    /// The same request, knowing the custom resource's structural schema (`None`: not a custom
    /// resource of a CRD given).
    pub fn with_schema(mut self, schema: Option<Arc<Value>>) -> Self {
        self.schema = schema;
        self
    }
    /// The same request with a fresh uid, as a second call of the apiserver would carry.
    pub fn with_fresh_uid(&self) -> Self {
        RequestCase::new(self.label.clone(), self.version(), self.primary, self.spec.clone())
            .with_schema(self.schema.clone())
    }
    /// The same request about another object (a fresh uid), sent as it is given (not defaulted).
    pub fn with_object(&self, object: Value) -> Self {
        let mut spec = self.spec.clone();
        spec.object = object.into();
        spec.sent_defaulted = false;
        RequestCase::new(self.label.clone(), self.version(), self.primary, spec).with_schema(self.schema.clone())
    }
    /// The same request with `dryRun` set so (a fresh uid).
    pub fn with_dry_run(&self, dry_run: bool) -> Self {
        let mut spec = self.spec.clone();
        spec.dry_run = dry_run;
        RequestCase::new(self.label.clone(), self.version(), self.primary, spec).with_schema(self.schema.clone())
    }
    /// A request read back from an AdmissionReview as sent (a saved regression): its spec, version and
    /// a fresh uid.
    pub fn from_review(review: &AdmissionReview, label: String, primary: bool) -> Self {
        RequestCase::new(label, review.api_version, primary, AdmissionSpec::from_request(&review.request))
    }
}
