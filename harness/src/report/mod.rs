//! Reports: what a run found, assembled from its [`Records`], as text for people, JSON for
//! machines and JUnit XML for CI. Markdown, GitHub annotations and SARIF render the JSON report
//! ([`JsonReport`]), so that the merge of a sharded campaign's reports renders like one run's.

mod abbreviate;
mod annotations;
mod curl;
mod document;
mod human;
mod json;
mod json_report;
mod junit;
mod markdown;
mod merge;
mod property;
mod sarif;

pub use curl::curl_command;
pub use json_report::JsonReport;
pub use sarif::SARIF_SCHEMA;

use std::collections::BTreeMap;

use crate::exchange::ExchangeRecord;
use crate::rules::{Rule, RuleKind, CATALOG};
use crate::run::{CaseRecord, Coverage, PropertyRecord, Records, WebhookFinding};
use crate::verdict::{Outcome, Verdict};

/// A run's report: its records, and every view of them.
#[derive(Clone, Debug)]
pub struct Report {
    records: Records,
}

/// One exchange rule's results over the exchanges of one webhook.
pub struct RuleSummary<'a> {
    /// The rule.
    pub rule: &'static Rule,
    /// The webhook.
    pub webhook: String,
    /// The worst outcome.
    pub outcome: Outcome,
    /// How many exchanges had each outcome.
    pub counts: BTreeMap<Outcome, usize>,
    /// The exchanges where the rule was broken (FAIL first), with their finding index.
    pub breaches: Vec<(&'a ExchangeRecord, usize)>,
}

impl From<Records> for Report {
    fn from(records: Records) -> Self {
        Report { records }
    }
}

impl Report {
    /// The records behind the report.
    pub fn records(&self) -> &Records {
        &self.records
    }

    /// Every planned and case exchange.
    pub fn exchanges(&self) -> &[ExchangeRecord] {
        &self.records.exchanges
    }

    /// Each case's record.
    pub fn cases(&self) -> &[CaseRecord] {
        &self.records.cases
    }

    /// Each property's record, per webhook.
    pub fn properties(&self) -> &[PropertyRecord] {
        &self.records.properties
    }

    /// The manifest findings, per webhook.
    pub fn manifest(&self) -> &[WebhookFinding] {
        &self.records.manifest
    }

    /// Requests sent per webhook and operation × resource.
    pub fn coverage(&self) -> &Coverage {
        &self.records.coverage
    }

    /// Requests sent in all (planned, cases, properties), as the tally of `coverage` counted them.
    pub fn requests(&self) -> u64 {
        self.records.coverage.values().flat_map(|per| per.values()).map(|c| c.sent).sum()
    }

    /// Every outcome of every rule in the run.
    fn outcomes(&self) -> impl Iterator<Item = (&'static str, Outcome)> + '_ {
        let r = &self.records;
        let exchanges = r.exchanges.iter().flat_map(|x| x.findings.iter().map(|f| (f.rule, f.outcome)));
        let cases = r.cases.iter().flat_map(|c| c.findings.iter().map(|f| (f.rule, f.outcome)));
        let manifest = r
            .manifest
            .iter()
            .chain(&r.coverage_findings)
            .chain(&r.side_effects)
            .map(|f| (f.finding.rule, f.finding.outcome));
        let properties = r.properties.iter().map(|p| (p.rule.id, p.outcome));
        let target = r.target_findings.iter().map(|f| (f.rule, f.outcome));
        exchanges.chain(cases).chain(manifest).chain(properties).chain(target)
    }

    /// FAIL when any rule FAILs.
    pub fn verdict(&self) -> Verdict {
        Verdict::of(self.outcomes().map(|(_, o)| o))
    }

    /// The worst outcome of `rule` anywhere in the run (for one webhook, when given).
    pub fn outcome(&self, rule: &str, webhook: Option<&str>) -> Outcome {
        let r = &self.records;
        let mine = |w: &str| webhook.is_none_or(|x| x == w);
        let mut outcomes: Vec<Outcome> = Vec::new();
        outcomes.extend(
            r.exchanges
                .iter()
                .filter(|x| mine(&x.webhook.name))
                .flat_map(|x| x.findings.iter())
                .filter(|f| f.rule == rule)
                .map(|f| f.outcome),
        );
        outcomes.extend(r.cases.iter().flat_map(|c| c.findings.iter()).filter(|f| f.rule == rule).map(|f| f.outcome));
        outcomes.extend(
            r.manifest
                .iter()
                .chain(&r.coverage_findings)
                .chain(&r.side_effects)
                .filter(|f| f.finding.rule == rule && mine(&f.webhook))
                .map(|f| f.finding.outcome),
        );
        outcomes.extend(r.properties.iter().filter(|p| p.rule.id == rule && mine(&p.webhook)).map(|p| p.outcome));
        outcomes.extend(r.target_findings.iter().filter(|f| f.rule == rule).map(|f| f.outcome));
        Outcome::worst(outcomes)
    }

    fn rules_with(&self, outcome: Outcome) -> Vec<&'static str> {
        let hit: std::collections::HashSet<&str> =
            self.outcomes().filter(|(_, o)| *o == outcome).map(|(id, _)| id).collect();
        CATALOG.iter().map(|r| r.id).filter(|id| hit.contains(id)).collect()
    }

    /// The rules that FAILed (any webhook), catalog order.
    pub fn failed_rules(&self) -> Vec<&'static str> {
        self.rules_with(Outcome::Fail)
    }

    /// The rules that WARNed (any webhook), catalog order.
    pub fn warned_rules(&self) -> Vec<&'static str> {
        self.rules_with(Outcome::Warn)
    }

    /// Webhook names in manifest order.
    pub fn webhooks(&self) -> Vec<String> {
        self.records.webhooks.iter().map(|w| w.name.clone()).collect()
    }

    /// Per webhook that was sent requests, per exchange rule (catalog order).
    pub fn summaries(&self) -> Vec<RuleSummary<'_>> {
        let mut out = Vec::new();
        let exchange_rules: Vec<&'static Rule> = CATALOG.iter().filter(|r| r.kind() == RuleKind::Exchange).collect();
        for webhook in self.webhooks() {
            let mine: Vec<&ExchangeRecord> =
                self.records.exchanges.iter().filter(|r| r.webhook.name == webhook).collect();
            if mine.is_empty() {
                continue;
            }
            for (index, rule) in exchange_rules.iter().enumerate() {
                let mut counts = BTreeMap::new();
                let mut breaches = Vec::new();
                for record in &mine {
                    let Some(f) = record.findings.get(index) else { continue };
                    debug_assert_eq!(f.rule, rule.id);
                    *counts.entry(f.outcome).or_insert(0) += 1;
                    if f.is_breach() {
                        breaches.push((*record, index));
                    }
                }
                breaches.sort_by_key(|(r, i)| std::cmp::Reverse(r.findings[*i].outcome));
                let outcome = Outcome::worst(counts.keys().copied());
                out.push(RuleSummary { rule, webhook: webhook.clone(), outcome, counts, breaches });
            }
        }
        out
    }

    /// The report for people.
    pub fn render_text(&self) -> String {
        human::render(self)
    }

    /// The machine-readable report (`--report-json`).
    pub fn to_json(&self) -> serde_json::Value {
        json::render(self)
    }

    /// The JUnit XML of the run (`--junit`).
    pub fn to_junit(&self) -> String {
        junit::render(self)
    }

    /// The JSON report, read back for the renderers that work on it.
    pub fn to_json_report(&self) -> JsonReport {
        JsonReport::from_value(self.to_json()).expect("the JSON report of a run reads back")
    }

    /// Markdown for a pull request or `$GITHUB_STEP_SUMMARY` (`--report-md`).
    pub fn to_markdown(&self) -> String {
        self.to_json_report().to_markdown()
    }

    /// GitHub Actions annotations, one workflow command per FAIL and WARN (`--github-annotations`).
    pub fn to_github_annotations(&self) -> String {
        self.to_json_report().to_github_annotations()
    }

    /// A SARIF 2.1.0 log for code scanning (`--sarif`).
    pub fn to_sarif(&self) -> serde_json::Value {
        self.to_json_report().to_sarif()
    }

    /// The reproducer of one exchange.
    pub fn curl(&self, record: &ExchangeRecord) -> String {
        let target = &self.records.target;
        curl_command(record, target.ca_file.as_deref(), target.resolve_to, target.auth.get(&record.webhook.name))
    }
}

impl Report {
    /// Panic with the readable report unless the verdict is PASS (for `cargo test`).
    pub fn assert_passes(&self) {
        if self.verdict() == Verdict::Fail {
            panic!("webhook-conformance: FAIL — {}\n\n{}", self.failed_rules().join(", "), self.render_text());
        }
    }
}
