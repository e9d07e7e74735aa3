//! What the run reached of each webhook: requests sent per operation × resource, and how each was
//! answered (allowed, denied, patched, no usable answer).

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::Serialize;

use crate::exchange::{Admission, ExchangeRecord};

/// How the requests of one operation × resource were answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Requests sent.
    pub sent: u64,
    /// Allowed without a patch.
    pub allowed: u64,
    /// Allowed with a patch.
    pub patched: u64,
    /// Denied.
    pub denied: u64,
    /// No answer the apiserver could use (a transport failure, an undecodable body, …).
    pub unusable: u64,
}

impl Counts {
    fn add(&mut self, admission: Admission) {
        self.sent += 1;
        match admission {
            Admission::Allowed => self.allowed += 1,
            Admission::Patched => self.patched += 1,
            Admission::Denied => self.denied += 1,
            Admission::Unusable => self.unusable += 1,
        }
    }

    /// These counts and `other`'s.
    pub fn plus(self, other: Counts) -> Counts {
        Counts {
            sent: self.sent + other.sent,
            allowed: self.allowed + other.allowed,
            patched: self.patched + other.patched,
            denied: self.denied + other.denied,
            unusable: self.unusable + other.unusable,
        }
    }
}

/// Per webhook, per `OPERATION resource[/subresource]`.
pub(crate) type Coverage = BTreeMap<String, BTreeMap<String, Counts>>;

/// Requests sent in all, over every webhook and operation × resource.
pub(crate) fn sent(coverage: &Coverage) -> u64 {
    coverage.values().flat_map(|per| per.values()).map(|c| c.sent).sum()
}

/// `CREATE pods`, `UPDATE deployments/scale`.
fn key(record: &ExchangeRecord) -> String {
    let spec = &record.case.spec;
    match &spec.sub_resource {
        Some(sub) => format!("{} {}/{}", spec.operation, spec.resource.resource, sub),
        None => format!("{} {}", spec.operation, spec.resource.resource),
    }
}

/// Per webhook, per unjudged field (`Pod spec.dnsConfig`), how many answers' patches wrote it.
type Unjudged = BTreeMap<String, BTreeMap<String, u64>>;

/// Counts calls as they are made, from any task: what each webhook was sent and how it answered,
/// and the fields its patches wrote that `object.valid` does not judge.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    coverage: Mutex<Coverage>,
    unjudged: Mutex<Unjudged>,
}

impl Tally {
    /// Count one call (one that was not sent counts for nothing).
    pub(crate) fn record(&self, record: &ExchangeRecord) {
        if !record.sent() {
            return;
        }
        {
            let mut coverage = self.coverage.lock().unwrap_or_else(|e| e.into_inner());
            coverage
                .entry(record.webhook.name.clone())
                .or_default()
                .entry(key(record))
                .or_default()
                .add(record.admission);
        }
        if record.admission == Admission::Patched {
            let fields = crate::checks::object_unjudged(&record.view());
            if !fields.is_empty() {
                let mut unjudged = self.unjudged.lock().unwrap_or_else(|e| e.into_inner());
                let per = unjudged.entry(record.webhook.name.clone()).or_default();
                for field in fields {
                    *per.entry(field).or_default() += 1;
                }
            }
        }
    }

    /// Per webhook whose patches wrote fields `object.valid` does not judge, a note naming them
    /// with the number of answers that wrote each.
    pub(crate) fn unjudged_notes(&self) -> Vec<String> {
        let unjudged = self.unjudged.lock().unwrap_or_else(|e| e.into_inner());
        unjudged
            .iter()
            .map(|(webhook, fields)| {
                let listed: Vec<String> = fields
                    .iter()
                    .map(|(field, n)| format!("{field} ({n} answer{})", if *n == 1 { "" } else { "s" }))
                    .collect();
                format!(
                    "{webhook}: its patches wrote fields whose validation the suite does not model, so object.valid did not judge them (the apiserver does): {}",
                    listed.join(", ")
                )
            })
            .collect()
    }

    /// Everything counted so far.
    pub(crate) fn snapshot(&self) -> Coverage {
        self.coverage.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use serde_json::{json, Value};

    use super::*;
    use crate::client::Transport;
    use crate::config::Manifest;
    use crate::exchange::Stages;
    use crate::requests::{plan_in, ApiResources};

    /// The reference webhook's planned pod CREATE, answered with an allow carrying `ops`, judged.
    fn answered(ops: Value) -> ExchangeRecord {
        let text = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: c}\nwebhooks:\n  - name: a.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: None\n    clientConfig: {url: \"https://hook.example.com/\"}\n    rules: [{operations: [CREATE], apiGroups: [\"\"], apiVersions: [v1], resources: [pods]}]\n";
        let webhook = Arc::new(Manifest::parse(Path::new("m.yaml"), text).unwrap().webhooks.remove(0));
        let case = plan_in(&webhook, &ApiResources::built_in()).into_iter().find(|c| c.object().is_object()).unwrap();
        let transport = Transport::allow_with_patch(case.uid(), &ops);
        let url = "https://hook.example.com/".to_string();
        let stages = Stages::default();
        let view = crate::exchange::Exchange::kept(&webhook, &case, &transport, &url, &stages);
        let findings = crate::run::evaluate(&view);
        let admission = view.admission(&findings);
        drop(view);
        ExchangeRecord { webhook, case, url, transport, findings, admission, stages }
    }

    #[test]
    fn fields_a_patch_writes_that_object_valid_does_not_judge_are_named_per_webhook_with_their_count() {
        let tally = Tally::default();
        let image =
            json!({"name": "img", "image": {"reference": "registry.example/img:1", "pullPolicy": "IfNotPresent"}});
        let record = answered(json!([{"op": "add", "path": "/spec/volumes", "value": [image]}]));
        assert_eq!(record.admission, Admission::Patched);
        tally.record(&record);
        tally.record(&record);
        tally.record(&answered(json!([{"op": "add", "path": "/metadata/labels/x", "value": "y"}])));
        let notes = tally.unjudged_notes();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].starts_with("a.example.com: its patches wrote fields whose validation"), "{}", notes[0]);
        assert!(notes[0].ends_with("Pod spec.volumes[*].image (2 answers)"), "{}", notes[0]);
        // Only labels written: nothing to name.
        let plain = Tally::default();
        plain.record(&answered(json!([{"op": "add", "path": "/metadata/labels/x", "value": "y"}])));
        assert!(plain.unjudged_notes().is_empty());
    }
}
