//! The rule catalog: every promise the suite holds a webhook to, in the order the apiserver meets
//! them when it processes an answer. Each rule has an id, a severity, a one-line statement, the
//! source it comes from, and one check.
//!
//! Severity: FAIL where the apiserver rejects the answer (or the docs forbid it); WARN where the
//! apiserver tolerates it but it is wrong, risky or unportable. Source paths are in kubernetes/kubernetes,
//! relative to `staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/` unless they say otherwise.

use serde::Serialize;

use crate::checks::{self, Check, Exchange};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Severity {
    Fail,
    Warn,
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Severity::Fail => "FAIL",
            Severity::Warn => "WARN",
        })
    }
}

/// The verdict of a rule on one exchange, or on a whole run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Skip,
    Pass,
    Warn,
    Fail,
}

pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    pub statement: &'static str,
    pub source: &'static str,
    /// The apiserver does not enforce this for `admission.k8s.io/v1beta1` answers: there a breach is
    /// a WARN.
    pub lenient_in_v1beta1: bool,
    pub check: fn(&Exchange) -> Check,
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rule").field("id", &self.id).field("severity", &self.severity).finish()
    }
}

const DISPATCH: &str = "mutating/dispatcher.go, validating/dispatcher.go; pkg/util/webhook/client.go";
const VERIFY: &str = "request/admissionreview.go (VerifyAdmissionResponse)";
const APPLY: &str = "mutating/dispatcher.go (callAttrMutatingHook)";

macro_rules! rule {
    ($id:literal, $sev:ident, $lenient:literal, $check:path, $statement:literal, $source:expr) => {
        Rule {
            id: $id,
            severity: Severity::$sev,
            statement: $statement,
            source: $source,
            lenient_in_v1beta1: $lenient,
            check: $check,
        }
    };
}

/// Every rule, in the order the apiserver processes an answer.
pub static CATALOG: &[Rule] = &[
    rule!("transport.connect", Fail, false, checks::connect,
        "The webhook accepts a TLS connection with a certificate the configured CA vouches for, valid for the name called.",
        DISPATCH),
    rule!("transport.answer", Fail, false, checks::answer,
        "The webhook answers with a complete HTTP response instead of closing or resetting the connection.",
        DISPATCH),
    rule!("transport.deadline", Fail, false, checks::deadline,
        "The webhook answers within timeoutSeconds (default 10 s); the apiserver gives up after that.",
        "mutating/dispatcher.go, validating/dispatcher.go (?timeout=Ns, context deadline)"),
    rule!("transport.status", Fail, false, checks::status,
        "The HTTP status is 200–206 (after the retries a 429/5xx with Retry-After earns); any other status is an error of calling the webhook.",
        "k8s.io/client-go/rest/request.go (transformResponse); pkg/util/webhook/client.go"),
    rule!("transport.content-type", Fail, false, checks::content_type,
        "A Content-Type header, when sent, parses as a media type (Go mime.ParseMediaType).",
        "k8s.io/client-go/rest/request.go (transformResponse)"),
    rule!("transport.content-type-json", Warn, false, checks::content_type_json,
        "The answer says Content-Type: application/json (the apiserver does not enforce it).",
        "k8s.io/client-go/rest/request.go; Kubernetes docs, Dynamic Admission Control: Response"),
    rule!("review.body", Fail, false, checks::body,
        "The body is a non-empty JSON object.",
        "k8s.io/client-go/rest/request.go (0-length response); apimachinery json serializer"),
    rule!("patch.base64", Fail, false, checks::base64,
        "response.patch decodes as Go decodes a []byte: standard base64 with padding (line breaks ignored).",
        "k8s.io/api/admission/v1 types.go (Patch []byte); Go encoding/json; vectors/jsonpatch-v4.json base64[]"),
    rule!("patch.base64-string", Warn, false, checks::base64_string,
        "response.patch is a base64 string, as the API documents, not a JSON array of byte values.",
        "k8s.io/api/admission/v1 types.go (Patch []byte)"),
    rule!("review.decode", Fail, false, checks::decode,
        "The AdmissionReview decodes: every field has the type the API gives it (allowed a boolean, uid a string, status a Status, …).",
        "k8s.io/api/admission/v1 types.go; apimachinery json serializer (case-sensitive)"),
    rule!("review.gvk", Fail, false, checks::gvk,
        "apiVersion and kind, where set, are the ones of the request (admission.k8s.io/<sent version>, AdmissionReview).",
        "apimachinery runtime scheme (no kind registered / unknown conversion); request/admissionreview.go"),
    rule!("response.present", Fail, false, checks::present,
        "The AdmissionReview carries a response.",
        VERIFY),
    rule!("response.uid", Fail, true, checks::uid,
        "response.uid equals request.uid.",
        VERIFY),
    rule!("review.gvk-present", Fail, true, checks::gvk_present,
        "The answer sets apiVersion and kind (admission.k8s.io/v1 verifies them).",
        VERIFY),
    rule!("response.allowed-present", Warn, false, checks::allowed_present,
        "response.allowed is set explicitly; a missing allowed is read as a denial.",
        "k8s.io/api/admission/v1 types.go (Allowed bool)"),
    rule!("patch.pairing", Fail, true, checks::pairing,
        "A mutating webhook sends patch and patchType together, or neither; patchType is never empty.",
        VERIFY),
    rule!("validating.no-patch", Fail, true, checks::validating_no_patch,
        "A validating webhook sends neither patch nor patchType.",
        VERIFY),
    rule!("warnings.valid", Warn, false, checks::warnings,
        "Warnings are non-empty, free of control characters, and 4096 characters in total at most.",
        "staging/src/k8s.io/apiserver/pkg/endpoints/filters/warning.go"),
    rule!("audit.keys", Warn, false, checks::audit_keys,
        "auditAnnotations keys are qualified-name parts (at most 63 characters, no '/').",
        "staging/src/k8s.io/apiserver/pkg/admission/attributes.go; mutating/dispatcher.go"),
    rule!("denial.message", Warn, false, checks::denial_message,
        "A denial explains itself in status.message (or status.reason).",
        "errors/statuserror.go (ToStatusErr: 'without explanation')"),
    rule!("denial.code", Warn, false, checks::denial_code,
        "A denial's status.code, when set, is an HTTP error status 400–599.",
        "errors/statuserror.go (codes below 400 become 400)"),
    rule!("denial.no-patch", Warn, false, checks::denial_no_patch,
        "A denial carries no patch; the apiserver ignores it.",
        APPLY),
    rule!("patch.json", Fail, false, checks::patch_json,
        "The decoded patch is a JSON Patch document: a JSON array of operation objects.",
        "mutating/dispatcher.go (jsonpatch.DecodePatch)"),
    rule!("patch.no-object", Fail, false, checks::no_object,
        "No non-empty patch where the request has no object (DELETE).",
        APPLY),
    rule!("patch.type", Fail, true, checks::patch_type,
        "patchType is \"JSONPatch\", the only type the apiserver supports.",
        APPLY),
    rule!("patch.applies", Fail, false, checks::applies,
        "The patch applies to the object with the apiserver's JSON Patch library (evanphx/json-patch v4).",
        "mutating/dispatcher.go (patchObj.Apply); vectors/jsonpatch-v4.json patch[]"),
    rule!("patch.rfc6902", Warn, false, checks::rfc6902,
        "The patch means the same under RFC 6902 as under the apiserver's more lenient library.",
        "RFC 6902; vectors/jsonpatch-v4.json"),
    rule!("patch.kind-decode", Fail, false, checks::kind_decode,
        "The patched object still decodes as its kind (non-strict: unknown fields dropped, wrong types fail).",
        "mutating/dispatcher.go (jsonSerializer.Decode of the patched object)"),
];

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    CATALOG.iter().find(|r| r.id == id)
}

/// A property over generated requests: a rule whose check looks at every call a property made for
/// one generated case (the first call, repeats, re-admissions), not at a single exchange.
pub struct PropertyRule {
    pub id: &'static str,
    pub severity: Severity,
    pub statement: &'static str,
    pub source: &'static str,
    pub check: fn(&crate::generate::property::Observation) -> Check,
}

impl std::fmt::Debug for PropertyRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PropertyRule").field("id", &self.id).field("severity", &self.severity).finish()
    }
}

const REINVOKE: &str = "mutating/reinvocationcontext.go; pkg/admission/reinvocation.go; Kubernetes docs, Dynamic Admission Control: Reinvocation policy, Idempotence";

/// The properties `webhook-conformance fuzz` holds generated requests to.
pub static PROPERTIES: &[PropertyRule] = &[
    PropertyRule {
        id: "property.contract",
        severity: Severity::Fail,
        statement: "Every FAIL rule of the catalog holds on every generated request (any operation, version, dryRun, object shape).",
        source: VERIFY,
        check: crate::generate::property::check_contract,
    },
    PropertyRule {
        id: "property.operations",
        severity: Severity::Fail,
        statement: "DELETE (null object), CONNECT and subresource requests the rules select get an answer every FAIL rule accepts.",
        source: "request/admissionreview.go (CreateV1AdmissionReview: object/oldObject/options by operation)",
        check: crate::generate::property::check_operations,
    },
    PropertyRule {
        id: "property.idempotent",
        severity: Severity::Fail,
        statement: "A mutating webhook changes nothing more when it admits again the object it just patched (new uid, same operation).",
        source: REINVOKE,
        check: crate::generate::property::check_idempotent,
    },
    PropertyRule {
        id: "property.reinvocation",
        severity: Severity::Fail,
        statement: "After another mutator edits its result, a reinvoked mutating webhook reaches a fixed point and re-adds nothing it already added.",
        source: REINVOKE,
        check: crate::generate::property::check_reinvocation,
    },
    PropertyRule {
        id: "property.deterministic",
        severity: Severity::Warn,
        statement: "The same request with a fresh uid gets the same decision and the same resulting object.",
        source: "request/admissionreview.go (a fresh uid per call); mutating/dispatcher.go",
        check: crate::generate::property::check_deterministic,
    },
    PropertyRule {
        id: "property.dry-run",
        severity: Severity::Warn,
        statement: "dryRun: true gets the same decision and resulting object as dryRun: false (a dry run previews the real thing).",
        source: "Kubernetes docs, Dynamic Admission Control: Side effects; request/admissionreview.go (dryRun)",
        check: crate::generate::property::check_dry_run,
    },
    PropertyRule {
        id: "property.dry-run-config",
        severity: Severity::Fail,
        statement: "sideEffects is None or NoneOnDryRun: otherwise the apiserver refuses every dry-run request the webhook matches.",
        source: "pkg/apis/admissionregistration/validation/validation.go; mutating/dispatcher.go, validating/dispatcher.go (does not support dry run)",
        check: crate::generate::property::check_dry_run_config,
    },
];

/// The property with this id.
pub fn property(id: &str) -> Option<&'static PropertyRule> {
    PROPERTIES.iter().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_statements_one_line() {
        let mut ids: Vec<_> = CATALOG.iter().map(|r| r.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), CATALOG.len());
        let mut pids: Vec<_> = PROPERTIES.iter().map(|r| r.id).chain(CATALOG.iter().map(|r| r.id)).collect();
        pids.sort();
        pids.dedup();
        assert_eq!(pids.len(), CATALOG.len() + PROPERTIES.len());
        for p in PROPERTIES {
            assert!(p.id.starts_with("property.") && !p.statement.contains('\n') && !p.source.is_empty(), "{}", p.id);
        }
        for r in CATALOG {
            assert!(!r.statement.contains('\n') && !r.statement.is_empty(), "{}", r.id);
            assert!(!r.source.is_empty(), "{}", r.id);
        }
    }
}
