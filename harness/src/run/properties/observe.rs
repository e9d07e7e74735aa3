//! The calls one request makes (its property's procedure), what they share, and the contract
//! breaches they show.

use std::sync::{Arc, Mutex};

use super::mutators::other_mutator;
use crate::checks::property::{same, Call};
use crate::checks::{Observation, Procedure};
use crate::client::{Client, Transport};
use crate::config::WebhookSpec;
use crate::exchange::ExchangeRecord;
use crate::requests::RequestCase;
use crate::run::coverage::Tally;
use crate::run::send::exchange;
use crate::verdict::Outcome;

/// What every call of the property step shares: the client, the tally of what was sent, and the
/// contract breaches seen on requests themselves (reported under their exchange rules).
pub(crate) struct Calls {
    pub client: Arc<Client>,
    pub tally: Arc<Tally>,
    pub breaches: Breaches,
}

/// Contract breaches on requests themselves: the first per webhook and rule, replaced by a minimal
/// one when the contract sweep shrinks one; and the tally of the requests held to the exchange
/// rules this way (sent, and how many of them broke one).
#[derive(Clone, Debug, Default)]
pub(crate) struct Breaches(Arc<Mutex<Vec<(String, ExchangeRecord)>>>, Arc<Mutex<(u64, u64)>>);

impl Breaches {
    pub(super) fn first_fail(record: &ExchangeRecord) -> Option<&'static str> {
        record.findings.iter().find(|f| f.outcome() == Outcome::Fail).map(|f| f.rule)
    }

    /// Keep `record` if it is the first breach of its rule for its webhook (or `minimal`).
    pub(super) fn note(&self, record: &ExchangeRecord, minimal: bool) {
        if !minimal && record.sent() {
            let mut tally = self.1.lock().unwrap_or_else(|e| e.into_inner());
            tally.0 += 1;
            tally.1 += u64::from(Self::first_fail(record).is_some());
        }
        let Some(rule) = Self::first_fail(record) else { return };
        let key = format!("{}\u{0}{rule}", record.webhook.name);
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match kept.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) if minimal => slot.1 = record.clone(),
            Some(_) => {}
            None => kept.push((key, record.clone())),
        }
    }

    /// The breaches kept, in the order they were first seen.
    pub(crate) fn records(&self) -> Vec<ExchangeRecord> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(_, r)| r.clone()).collect()
    }

    /// Requests held to the exchange rules, and how many of them broke one.
    pub(crate) fn tally(&self) -> (u64, u64) {
        *self.1.lock().unwrap_or_else(|e| e.into_inner())
    }
}

async fn call(calls: &Calls, webhook: &Arc<WebhookSpec>, role: &str, derived: bool, case: RequestCase) -> Call {
    let record = exchange(&calls.client, webhook.clone(), case).await;
    calls.tally.record(&record);
    // A call that got no answer is its transport rule's finding, whichever request it carried.
    if !derived || matches!(record.transport, Transport::Failed(_)) {
        calls.breaches.note(&record, false);
    }
    Call { role: role.to_string(), derived, record }
}

pub(super) async fn observe(
    proc: Procedure,
    calls: &Calls,
    webhook: &Arc<WebhookSpec>,
    input: &RequestCase,
) -> Observation {
    let mut made = Vec::new();
    match proc {
        Procedure::Static => {}
        Procedure::Once => made.push(call(calls, webhook, "first", false, input.clone()).await),
        Procedure::Twice => {
            let (a, b) = tokio::join!(
                call(calls, webhook, "first", false, input.clone()),
                call(calls, webhook, "again (fresh uid)", false, input.with_fresh_uid())
            );
            made.extend([a, b]);
        }
        Procedure::DryRun => {
            let (a, b) = tokio::join!(
                call(calls, webhook, "dryRun=false", false, input.with_dry_run(false)),
                call(calls, webhook, "dryRun=true", true, input.with_dry_run(true))
            );
            let differ = !same(&a, &b);
            made.extend([a, b]);
            if differ {
                made.push(call(calls, webhook, "again dryRun=false", false, input.with_dry_run(false)).await);
            }
        }
        Procedure::Readmit | Procedure::Reinvoke => {
            let first = call(calls, webhook, "first", false, input.clone()).await;
            let next = (first.allowed() == Some(true) && !input.object().is_null() && first.failures().is_empty())
                .then(|| first.resulting())
                .flatten();
            made.push(first);
            if let Some(r1) = next {
                if proc == Procedure::Readmit {
                    let again = input.with_object(r1);
                    made.push(call(calls, webhook, "again (its own result, fresh uid)", true, again).await);
                } else {
                    let edited = input.with_object(other_mutator(&r1));
                    let second = call(calls, webhook, "second (after another mutator)", true, edited).await;
                    let r2 = (second.allowed() == Some(true) && second.failures().is_empty())
                        .then(|| second.resulting())
                        .flatten();
                    made.push(second);
                    if let Some(r2) = r2 {
                        let third = input.with_object(r2);
                        made.push(call(calls, webhook, "third (its reinvoked result)", true, third).await);
                    }
                }
            }
        }
    }
    Observation { webhook: webhook.clone(), input: Some(input.clone()), calls: made }
}

/// Why `obs` tells nothing: a call of it was not sent (the path no longer called, or the run
/// cancelled).
pub(super) fn unsent(obs: &Observation) -> Option<String> {
    obs.calls.iter().find(|c| !c.record.sent()).map(|c| match &c.record.transport {
        Transport::Failed(f) => f.message.clone(),
        Transport::Answered(_) => String::new(),
    })
}

/// The requests of `obs` that were sent.
pub(super) fn sent(obs: &Observation) -> u64 {
    obs.calls.iter().filter(|c| c.record.sent()).count() as u64
}
