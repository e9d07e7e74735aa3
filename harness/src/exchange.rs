//! One call of a webhook: the record of it ([`ExchangeRecord`]: the request sent, what came back,
//! every rule's verdict) and the view the checks take of it ([`Exchange`]: the stages the apiserver
//! would derive from the answer: the body as its decoder reads it, patch bytes, patch, patched
//! object).

use std::sync::{Arc, OnceLock};

use apiserver_jsonpatch::{ApplyError, DecodeError, FieldError, Leniency, Patch, PatchBytes};
use apiserver_validation::lookup::member_of;
use apiserver_validation::managed_fields;
use apiserver_validation::same::same_list;
use serde_json::{Map, Value};

use crate::admission::ReviewVersion;
use crate::client::{HttpAnswer, Transport};
use crate::config::{WebhookKind, WebhookSpec};
use crate::decoder::{self, Decoded, Reading};
use crate::requests::RequestCase;
use crate::verdict::Finding;

/// What the apiserver made of an answer, in one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Admission {
    /// Allowed, nothing changed.
    Allowed,
    /// Allowed with a patch (a mutating webhook).
    Patched,
    /// Denied.
    Denied,
    /// No answer the apiserver could use.
    Unusable,
}

/// One request, its answer, and every exchange rule's verdict on it.
#[derive(Clone, Debug)]
pub struct ExchangeRecord {
    /// The webhook called.
    pub webhook: Arc<WebhookSpec>,
    /// The request sent.
    pub case: RequestCase,
    /// The URL called.
    pub url: String,
    /// What came back.
    pub transport: Transport,
    /// Every exchange rule's verdict, in catalog order, while the run judges the exchange (the
    /// cases and properties read them); once the exchange is placed in the run's records they
    /// move to its one list of findings, about this exchange, and this is empty.
    pub findings: Vec<Finding>,
    /// What the apiserver made of the answer.
    pub admission: Admission,
    /// The answer's stages as the rules derived them when the run judged it (decoded once: every
    /// later reader of this exchange reuses them).
    pub(crate) stages: Stages,
}

impl ExchangeRecord {
    /// The checks' view of this exchange, with the stages of the answer already derived.
    pub fn view(&self) -> Exchange<'_> {
        Exchange::kept(&self.webhook, &self.case, &self.transport, &self.url, &self.stages)
    }

    /// False when the request was not sent (the webhook had already missed its deadline several
    /// times in a row, or the run was cancelled).
    pub fn sent(&self) -> bool {
        !matches!(&self.transport, Transport::Failed(f) if f.kind == crate::client::FailureKind::NotSent)
    }

    /// The FAIL findings, as `rule: detail` lines.
    pub fn failures(&self) -> Vec<String> {
        self.findings
            .iter()
            .filter(|f| f.outcome() == crate::verdict::Outcome::Fail)
            .map(|f| format!("{}: {}", f.rule, f.detail.clone().unwrap_or_default()))
            .collect()
    }
}

/// The stages of one answer (the body as the apiserver's decoder reads it, the patch decoded, the
/// patch applied, whether it left the managedFields as they were), each derived at most once, on
/// demand.
#[derive(Clone, Debug, Default)]
pub struct Stages {
    reading: OnceLock<Option<Reading>>,
    patch: OnceLock<Option<Result<Patch, DecodeError>>>,
    patched: OnceLock<Option<Applied>>,
    managed_fields_kept: OnceLock<bool>,
}

/// The stages a view derives: its own, or those an exchange record keeps.
enum Held<'a> {
    Own(Box<Stages>),
    Kept(&'a Stages),
}

/// One call as the checks see it, with the answer's stages derived once, on demand.
pub struct Exchange<'a> {
    /// The webhook called.
    pub webhook: &'a WebhookSpec,
    /// The request sent.
    pub case: &'a RequestCase,
    /// What came back.
    pub transport: &'a Transport,
    /// The URL the call went to.
    pub url: &'a str,
    stages: Held<'a>,
}

/// The patch applied: the object it makes (or Go's error), and the leniencies it relied on.
type Applied = (Result<Value, ApplyError>, Vec<Leniency>);

impl<'a> Exchange<'a> {
    /// The view of one call.
    pub fn new(webhook: &'a WebhookSpec, case: &'a RequestCase, transport: &'a Transport, url: &'a str) -> Self {
        Exchange { webhook, case, transport, url, stages: Held::Own(Box::default()) }
    }

    /// The view of one call whose stages are kept in `stages` (derived there, or already derived).
    pub fn kept(
        webhook: &'a WebhookSpec,
        case: &'a RequestCase,
        transport: &'a Transport,
        url: &'a str,
        stages: &'a Stages,
    ) -> Self {
        Exchange { webhook, case, transport, url, stages: Held::Kept(stages) }
    }

    fn stages(&self) -> &Stages {
        match &self.stages {
            Held::Own(s) => s,
            Held::Kept(s) => s,
        }
    }

    /// The URL called.
    pub fn call_url(&self) -> &str {
        self.url
    }

    /// True for a mutating webhook.
    pub fn mutating(&self) -> bool {
        self.webhook.kind == WebhookKind::Mutating
    }

    /// True when the request was `admission.k8s.io/v1`.
    pub fn v1(&self) -> bool {
        self.case.version() == ReviewVersion::V1
    }

    /// The HTTP answer, when there was one.
    pub fn answer(&self) -> Option<&HttpAnswer> {
        match self.transport {
            Transport::Answered(a) => Some(a),
            Transport::Failed(_) => None,
        }
    }

    /// The body as the apiserver's decoder reads it, when the status is one it decodes (200–206).
    pub(crate) fn reading(&self) -> Option<&Reading> {
        self.stages()
            .reading
            .get_or_init(|| {
                let answer = self.answer()?;
                if !(200..=206).contains(&answer.status) {
                    return None;
                }
                #[cfg(test)]
                tests::DERIVED.with(|n| n.set(n.get() + 1));
                Some(decoder::read(&answer.body, self.case.version()))
            })
            .as_ref()
    }

    /// The AdmissionReview the apiserver's decoder makes of the body, when it makes one.
    pub(crate) fn decoded(&self) -> Option<&Decoded> {
        self.reading()?.result.as_ref().ok()
    }

    /// The decoded AdmissionReview as JSON: the fields Go's decoder set, with its merging of
    /// repeated keys, its treatment of `null` and invalid UTF-8 replaced.
    pub fn review(&self) -> Option<&Map<String, Value>> {
        self.decoded().map(|d| &d.review)
    }

    /// `response`, when it is a JSON object.
    pub fn response(&self) -> Option<&Map<String, Value>> {
        member_of(self.review()?, "response")?.as_object()
    }

    /// `response.allowed` as the apiserver reads it: missing means false.
    pub fn allowed(&self) -> Option<bool> {
        let response = self.response()?;
        Some(member_of(response, "allowed").and_then(Value::as_bool).unwrap_or(false))
    }

    /// `response.patchType` as a string, when set and not null.
    pub fn patch_type(&self) -> Option<&str> {
        member_of(self.response()?, "patchType")?.as_str()
    }

    /// True when `response.patchType` is present and not null (Go's `PatchType != nil`).
    pub fn patch_type_set(&self) -> bool {
        self.response().and_then(|r| member_of(r, "patchType")).is_some_and(|v| !v.is_null())
    }

    /// `response.patch` decoded as Go decodes a `[]byte` field; `None` when absent or null.
    pub fn patch_bytes(&self) -> Option<&Result<PatchBytes, FieldError>> {
        self.decoded()?.patch.as_ref()
    }

    /// The patch bytes, when they decoded and are not empty.
    pub fn nonempty_patch_bytes(&self) -> Option<&[u8]> {
        match self.patch_bytes()? {
            Ok(p) if !p.bytes.is_empty() => Some(&p.bytes),
            _ => None,
        }
    }

    /// The patch decoded as a JSON Patch document.
    pub fn patch(&self) -> Option<&Result<Patch, DecodeError>> {
        self.stages()
            .patch
            .get_or_init(|| {
                let bytes = self.nonempty_patch_bytes()?;
                Some(apiserver_jsonpatch::decode_patch(bytes))
            })
            .as_ref()
    }

    /// The patch, when it decoded and holds at least one operation.
    pub fn nonempty_patch(&self) -> Option<&Patch> {
        match self.patch()? {
            Ok(p) if !p.is_empty() => Some(p),
            _ => None,
        }
    }

    /// The object after the patch, applied with the apiserver's semantics: only a mutating webhook's
    /// patch, only on an allow (the apiserver ignores a validating webhook's patch in v1beta1 and any
    /// patch sent with a denial).
    pub fn patched(&self) -> Option<&Result<Value, ApplyError>> {
        self.applied().map(|(patched, _)| patched)
    }

    /// Whether the applied patch left `metadata.managedFields` as the request's object holds them
    /// (compared once for the rules that ask); `None` when no patch applied.
    pub(crate) fn managed_fields_kept(&self) -> Option<bool> {
        let Some(Ok(patched)) = self.patched() else { return None };
        let kept = self
            .stages()
            .managed_fields_kept
            .get_or_init(|| same_list(managed_fields::entries(self.case.object()), managed_fields::entries(patched)));
        Some(*kept)
    }

    /// The ways the applied patch relies on the apiserver's leniency rather than RFC 6902 (those
    /// of the operations that applied); empty when no patch was applied.
    pub fn leniencies(&self) -> &[Leniency] {
        self.applied().map_or(&[], |(_, noted)| noted.as_slice())
    }

    /// The patch applied (once, noting its leniencies on the way).
    fn applied(&self) -> Option<&Applied> {
        self.stages()
            .patched
            .get_or_init(|| {
                if !self.mutating() || self.allowed() != Some(true) {
                    return None;
                }
                let patch = self.nonempty_patch()?;
                let object = self.case.object();
                if object.is_null() {
                    return None;
                }
                #[cfg(test)]
                tests::DERIVED.with(|n| n.set(n.get() + 1));
                Some(apiserver_jsonpatch::apply_noting_leniencies(object, patch))
            })
            .as_ref()
    }

    /// What the apiserver made of the answer (a FAIL finding makes it unusable).
    pub fn admission(&self, findings: &[Finding]) -> Admission {
        if findings.iter().any(|f| f.outcome() == crate::verdict::Outcome::Fail) {
            return Admission::Unusable;
        }
        match self.allowed() {
            None => Admission::Unusable,
            Some(false) => Admission::Denied,
            Some(true) if self.mutating() && self.nonempty_patch().is_some() => Admission::Patched,
            Some(true) => Admission::Allowed,
        }
    }

    /// The object the apiserver carries on with after this answer: the patched object, or the
    /// object unchanged when there is no patch.
    pub fn resulting_object(&self) -> Option<Value> {
        self.resulting().cloned()
    }

    /// [`resulting_object`](Exchange::resulting_object), borrowed.
    pub(crate) fn resulting(&self) -> Option<&Value> {
        match self.patched() {
            Some(Ok(v)) => Some(v),
            Some(Err(_)) => None,
            None => Some(self.case.object()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::config::Manifest;
    use crate::requests::{plan_in, ApiResources};

    thread_local! {
        /// How many times this thread read an answer body or applied a patch.
        pub(super) static DERIVED: Cell<usize> = const { Cell::new(0) };
    }

    /// The run reads the answer and applies its patch once, while it judges the exchange; every
    /// later view of the record (the cases, the properties, the snapshot, the report) reuses them.
    #[test]
    fn an_answer_is_decoded_once() {
        let text = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: c}\nwebhooks:\n  - name: a.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: None\n    clientConfig: {url: \"https://hook.example.com/\"}\n    rules: [{operations: [CREATE], apiGroups: [\"\"], apiVersions: [v1], resources: [pods]}]\n";
        let webhook = Arc::new(Manifest::parse(Path::new("m.yaml"), text).unwrap().webhooks.remove(0));
        let case = plan_in(&webhook, &ApiResources::built_in()).into_iter().find(|c| c.object().is_object()).unwrap();
        let transport = Transport::allow_with_patch(
            case.uid(),
            &json!([{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}]),
        );
        let url = "https://hook.example.com/".to_string();
        DERIVED.with(|n| n.set(0));
        let stages = Stages::default();
        let view = Exchange::kept(&webhook, &case, &transport, &url, &stages);
        let findings = crate::run::evaluate(&view);
        let admission = view.admission(&findings);
        drop(view);
        assert_eq!(DERIVED.with(Cell::get), 2, "the rules read the answer and applied the patch");
        let record = ExchangeRecord { webhook, case, url, transport, findings, admission, stages };
        for _ in 0..3 {
            let x = record.view();
            assert_eq!(x.allowed(), Some(true));
            assert!(matches!(x.patched(), Some(Ok(o)) if o["metadata"]["labels"]["a"] == "b"));
        }
        assert_eq!(DERIVED.with(Cell::get), 2, "a later view decoded the answer again");
    }
}
