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

/// Counts calls as they are made, from any task.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    coverage: Mutex<Coverage>,
}

impl Tally {
    /// Count one call (one that was not sent counts for nothing).
    pub(crate) fn record(&self, record: &ExchangeRecord) {
        if !record.sent() {
            return;
        }
        let mut coverage = self.coverage.lock().unwrap_or_else(|e| e.into_inner());
        coverage.entry(record.webhook.name.clone()).or_default().entry(key(record)).or_default().add(record.admission);
    }

    /// Everything counted so far.
    pub(crate) fn snapshot(&self) -> Coverage {
        self.coverage.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}
