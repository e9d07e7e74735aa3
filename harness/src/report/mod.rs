//! Reports: what a run found, grouped by rule, as text for people and JSON for machines.

mod curl;
mod human;
mod json;
mod junit;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

pub use curl::curl_command;

use crate::rules::{Outcome, Rule, CATALOG};
use crate::run::ExchangeRecord;

/// Everything a run saw.
pub struct RunReport {
    pub target: String,
    /// A CA file that still exists after the run, for the reproducers.
    pub ca_file: Option<PathBuf>,
    pub resolve_to: Option<SocketAddr>,
    pub records: Vec<ExchangeRecord>,
    pub duration: Duration,
    /// Things about the target worth saying (it exited, …).
    pub notes: Vec<String>,
    pub target_log: Option<String>,
    /// Data-driven cases run after the default plan (their calls are in `records` too).
    pub cases: Vec<crate::cases::CaseResult>,
    /// Manifest lint findings.
    pub lint: Vec<crate::lint::LintFinding>,
}

/// The verdict of a whole run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail,
}

impl Verdict {
    /// 0 when nothing FAILs, 1 when something does.
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Pass => 0,
            Verdict::Fail => 1,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
        }
    }
}

/// One rule's results over the exchanges of one webhook.
pub struct RuleSummary<'a> {
    pub rule: &'static Rule,
    pub webhook: String,
    pub outcome: Outcome,
    pub counts: BTreeMap<Outcome, usize>,
    /// The exchanges where the rule was broken (FAIL first), with their finding index.
    pub breaches: Vec<(&'a ExchangeRecord, usize)>,
}

impl RunReport {
    pub fn verdict(&self) -> Verdict {
        let failed = self.records.iter().any(|r| r.findings.iter().any(|f| f.outcome == Outcome::Fail))
            || self.cases.iter().any(|c| c.findings.iter().any(|f| f.outcome == Outcome::Fail))
            || self.lint.iter().any(|f| f.outcome == Outcome::Fail);
        if failed {
            Verdict::Fail
        } else {
            Verdict::Pass
        }
    }

    /// Webhook names in the order they were run.
    pub fn webhooks(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for r in &self.records {
            if !names.contains(&r.webhook.name) {
                names.push(r.webhook.name.clone());
            }
        }
        names
    }

    /// Per webhook, per rule (catalog order).
    pub fn summaries(&self) -> Vec<RuleSummary<'_>> {
        let mut out = Vec::new();
        for webhook in self.webhooks() {
            for (index, rule) in CATALOG.iter().enumerate() {
                let mut counts = BTreeMap::new();
                let mut breaches = Vec::new();
                for record in self.records.iter().filter(|r| r.webhook.name == webhook) {
                    let Some(f) = record.findings.get(index) else { continue };
                    debug_assert_eq!(f.rule, rule.id);
                    *counts.entry(f.outcome).or_insert(0) += 1;
                    if matches!(f.outcome, Outcome::Fail | Outcome::Warn) {
                        breaches.push((record, index));
                    }
                }
                breaches.sort_by_key(|(r, i)| std::cmp::Reverse(r.findings[*i].outcome));
                let outcome = if counts.keys().any(|o| *o == Outcome::Fail) {
                    Outcome::Fail
                } else if counts.keys().any(|o| *o == Outcome::Warn) {
                    Outcome::Warn
                } else if counts.keys().any(|o| *o == Outcome::Pass) {
                    Outcome::Pass
                } else {
                    Outcome::Skip
                };
                out.push(RuleSummary { rule, webhook: webhook.clone(), outcome, counts, breaches });
            }
        }
        out
    }

    /// The rules that FAILed (any webhook), deduplicated, catalog order.
    pub fn failed_rules(&self) -> Vec<&'static str> {
        let mut ids = Vec::new();
        for s in self.summaries() {
            if s.outcome == Outcome::Fail && !ids.contains(&s.rule.id) {
                ids.push(s.rule.id);
            }
        }
        self.extra_rules(Outcome::Fail, &mut ids);
        ids
    }

    /// The rules that WARNed (any webhook), deduplicated, catalog order.
    pub fn warned_rules(&self) -> Vec<&'static str> {
        let mut ids = Vec::new();
        for s in self.summaries() {
            if s.outcome == Outcome::Warn && !ids.contains(&s.rule.id) {
                ids.push(s.rule.id);
            }
        }
        self.extra_rules(Outcome::Warn, &mut ids);
        ids
    }

    /// Case and lint rules with this outcome, appended to `ids` (deduplicated).
    fn extra_rules(&self, outcome: Outcome, ids: &mut Vec<&'static str>) {
        let case_ids =
            self.cases.iter().flat_map(|c| c.findings.iter()).filter(|f| f.outcome == outcome).map(|f| f.rule);
        let lint_ids = self.lint.iter().filter(|f| f.outcome == outcome).map(|f| f.rule);
        for id in case_ids.chain(lint_ids) {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }

    /// The JUnit XML of the run (`--junit`).
    pub fn to_junit(&self) -> String {
        junit::render(self)
    }

    pub fn render_text(&self) -> String {
        human::render(self)
    }

    pub fn to_json(&self) -> serde_json::Value {
        json::render(self)
    }

    /// The reproducer of one exchange.
    pub fn curl(&self, record: &ExchangeRecord) -> String {
        curl_command(record, self.ca_file.as_deref(), self.resolve_to)
    }
}
