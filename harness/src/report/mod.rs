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

pub(crate) use curl::curl_command;
pub use json_report::JsonReport;
pub use sarif::SARIF_SCHEMA;

use std::collections::BTreeMap;

use crate::exchange::ExchangeRecord;
use crate::rules::{Rule, RuleKind, CATALOG};
use crate::run::{CaseRecord, Coverage, PropertyRecord, Records};
use crate::verdict::{Finding, Outcome, Subject, Verdict};

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
    /// The exchanges where the rule was broken (FAIL first), with the finding.
    pub breaches: Vec<(&'a ExchangeRecord, &'a Finding)>,
}

/// One exchange rule's count of outcomes on one webhook's exchanges, and its breaches.
type Tally<'a> = (BTreeMap<Outcome, usize>, Vec<(&'a ExchangeRecord, &'a Finding)>);

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

    /// Every rule's verdict on everything the run judged: the one list the renderers walk.
    pub fn findings(&self) -> &[Finding] {
        &self.records.findings
    }

    /// The manifest findings, per webhook (manifest order, rule order within each).
    pub fn manifest(&self) -> Vec<&Finding> {
        self.records.findings.iter().filter(|f| matches!(f.subject, Subject::Manifest { .. })).collect()
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
        self.records.findings.iter().map(|f| (f.rule, f.outcome()))
    }

    /// FAIL when any rule FAILs.
    pub fn verdict(&self) -> Verdict {
        Verdict::of(self.outcomes().map(|(_, o)| o))
    }

    /// The worst outcome of `rule` anywhere in the run (for one webhook, when given: the findings
    /// about the target and the cases count for every webhook).
    pub fn outcome(&self, rule: &str, webhook: Option<&str>) -> Outcome {
        let r = &self.records;
        let mine = |f: &Finding| webhook.is_none_or(|w| r.webhook_of(&f.subject).is_none_or(|x| x == w));
        Outcome::worst(r.findings.iter().filter(|f| f.rule == rule && mine(f)).map(Finding::outcome))
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

    /// Per webhook that was sent requests, per exchange rule (catalog order), from one walk of
    /// the findings.
    pub fn summaries(&self) -> Vec<RuleSummary<'_>> {
        let r = &self.records;
        let mut by: BTreeMap<(String, &str), Tally<'_>> = BTreeMap::new();
        for f in &r.findings {
            let Subject::Exchange { index } = f.subject else { continue };
            let Some(x) = r.exchanges.get(index) else { continue };
            let (counts, breaches) = by.entry((x.webhook.name.clone(), f.rule)).or_default();
            *counts.entry(f.outcome()).or_insert(0) += 1;
            if f.is_breach() {
                breaches.push((x, f));
            }
        }
        let mut out = Vec::new();
        for webhook in self.webhooks() {
            if !r.exchanges.iter().any(|x| x.webhook.name == webhook) {
                continue;
            }
            for rule in CATALOG.iter().filter(|r| r.kind() == RuleKind::Exchange) {
                let (counts, mut breaches) = by.remove(&(webhook.clone(), rule.id)).unwrap_or_default();
                breaches.sort_by_key(|(_, f)| std::cmp::Reverse(f.outcome()));
                let outcome = Outcome::worst(counts.keys().copied());
                out.push(RuleSummary { rule, webhook: webhook.clone(), outcome, counts, breaches });
            }
        }
        out
    }

    /// The report for people: FAILs and WARNs in full, the rules that hold one line per webhook,
    /// each replay with its request inline (long strings abbreviated).
    pub fn render_text(&self) -> String {
        human::render(self, &TextOptions::default())
    }

    /// The report for people, written as `options` ask.
    pub fn render_text_with(&self, options: &TextOptions) -> String {
        human::render(self, options)
    }

    /// A replay of `record` for the text report: reading its whole request from a file written in
    /// `options.replays` when there is one, else with the request inline and abbreviated.
    fn replay(&self, record: &ExchangeRecord, options: &TextOptions) -> String {
        if let Some(dir) = &options.replays {
            let name: String = format!("{}-{}.json", record.webhook.name, record.case.uid())
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' })
                .collect();
            let file = dir.join(name);
            let body = serde_json::to_vec_pretty(&record.case.review).expect("JSON serializes");
            if std::fs::write(&file, body).is_ok() {
                let target = &self.records.target;
                return curl::curl_with_body(
                    record,
                    target.ca_file.as_deref(),
                    target.resolve_to,
                    target.auth.get(&record.webhook.name),
                    Some(&file),
                );
            }
        }
        abbreviate::replay(&self.curl(record))
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

/// How the text report is written ([`Report::render_text_with`]).
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct TextOptions {
    /// Every rule of every webhook listed, passing ones included (by default the rules that hold
    /// are one line per webhook).
    pub verbose: bool,
    /// A directory where each replayed request is written whole, the replay reading it with
    /// `--data-binary @file` (by default the request is inline, long strings abbreviated).
    pub replays: Option<std::path::PathBuf>,
}

impl TextOptions {
    /// List every rule, passing ones included.
    #[must_use]
    pub fn verbose(mut self, verbose: bool) -> Self {
        self.verbose = verbose;
        self
    }

    /// Write each replayed request in `dir`.
    #[must_use]
    pub fn replays_in(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.replays = Some(dir.into());
        self
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
