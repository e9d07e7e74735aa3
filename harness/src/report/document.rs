//! The JSON report read back: a typed view of what `--report-json` writes, and the findings in it as
//! one list ([`Issue`]) that the Markdown, GitHub annotation and SARIF renderers share.
//!
//! These renderers read the JSON report rather than the run's records, so that they render a
//! report of one run and the merge of a sharded campaign's reports alike. Fields a renderer does
//! not read are not listed here (they stay in the JSON); fields an older report lacks default.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::error::ReportError;
use crate::rules::{rule, RuleKind};
use crate::verdict::{Outcome, Verdict};

/// Where a webhook is written in its manifest.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub(crate) struct Location {
    pub file: String,
    pub line: usize,
}

/// One example of a breached exchange rule.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Breach {
    pub outcome: Option<Outcome>,
    pub request: String,
    pub version: String,
    pub detail: Option<String>,
    pub apiserver_message: Option<String>,
    pub curl: Option<String>,
}

/// An exchange rule's results for one webhook, or a target finding (no webhook).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RuleResult {
    pub rule: String,
    pub webhook: Option<String>,
    pub outcome: Option<Outcome>,
    pub counts: BTreeMap<String, u64>,
    pub breaches: Vec<Breach>,
    pub detail: Option<String>,
    pub location: Option<Location>,
}

/// One reproducer of a property's failing case.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Replay {
    pub call: String,
    pub curl: String,
}

/// A property's verdict for one webhook.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct PropertyResult {
    pub rule: String,
    pub webhook: String,
    pub outcome: Option<Outcome>,
    pub cases: u64,
    pub note: Option<String>,
    pub detail: Option<String>,
    pub minimal_request: Option<Value>,
    pub replay: Option<Vec<Replay>>,
    pub location: Option<Location>,
}

/// A manifest rule's verdict for one webhook.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LintResult {
    pub rule: String,
    pub webhook: String,
    pub outcome: Option<Outcome>,
    pub detail: Option<String>,
    pub location: Option<Location>,
}

/// A case rule's verdict.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct CaseFinding {
    pub rule: String,
    pub outcome: Option<Outcome>,
    pub detail: Option<String>,
}

/// A catalog rule's verdict on one answer of a case.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct CaseAnswer {
    pub rule: String,
    pub outcome: Option<Outcome>,
    pub webhook: String,
    pub curl: Option<String>,
}

/// A data-driven case.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct CaseResult {
    pub case: String,
    pub file: String,
    pub request: String,
    pub decision: String,
    pub outcome: Option<Outcome>,
    pub findings: Vec<CaseFinding>,
    pub answers: Vec<CaseAnswer>,
}

/// Requests that reached a webhook for one operation and resource.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct CoverageRow {
    pub operation: String,
    pub resource: String,
    pub sent: u64,
}

/// What a finding of the flat list judged: its kind (`target`, `manifest`, `sent`, `calls`,
/// `exchange`, `case`, `property`, or one a later version adds) and whichever of the rest it has.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct FlatSubject {
    pub kind: String,
    pub webhook: Option<String>,
    pub case: Option<String>,
    pub file: Option<String>,
    pub request: Option<String>,
    pub version: Option<String>,
}

impl FlatSubject {
    /// What an issue names: the webhook, or the case.
    fn label(&self) -> Option<String> {
        self.webhook.clone().or_else(|| self.case.clone())
    }

    /// What the renderers group by: the subject without the one request it may be about.
    fn group(&self) -> SubjectGroup {
        (self.kind.clone(), self.webhook.clone(), self.case.clone().or_else(|| self.file.clone()))
    }

    /// The rule kind a rule the catalog does not know is taken for.
    fn rule_kind(&self) -> RuleKind {
        match self.kind.as_str() {
            "target" => RuleKind::Target,
            "manifest" => RuleKind::Manifest,
            "sent" => RuleKind::Coverage,
            "calls" => RuleKind::SideEffects,
            "case" => RuleKind::Case,
            "property" => RuleKind::Property,
            _ => RuleKind::Exchange,
        }
    }
}

/// A subject's kind, webhook and case (or file): what findings about several requests share.
type SubjectGroup = (String, Option<String>, Option<String>);

/// Something a flat finding carries to reproduce it: a shell command or a JSON request.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct FlatEvidence {
    pub title: String,
    pub language: String,
    pub content: Value,
}

/// One finding of the report's flat `findings` list.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct FlatFinding {
    pub rule: String,
    pub outcome: Option<Outcome>,
    pub detail: Option<String>,
    pub apiserver_message: Option<String>,
    pub subject: FlatSubject,
    pub location: Option<Location>,
    pub note: Option<String>,
    pub extent: Option<String>,
    pub evidence: Vec<FlatEvidence>,
}

/// Which shard of a campaign a report is.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub(crate) struct ShardOf {
    pub index: u32,
    pub count: u32,
}

/// The JSON report, as the renderers read it.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Document {
    pub verdict: String,
    pub target: String,
    pub requests: u64,
    pub duration_ms: u64,
    pub seed: Option<u64>,
    pub notes: Vec<String>,
    pub results: Vec<RuleResult>,
    pub properties: Vec<PropertyResult>,
    pub lint: Vec<LintResult>,
    pub cases: Vec<CaseResult>,
    /// Per webhook: what reached it.
    pub coverage: BTreeMap<String, Vec<CoverageRow>>,
    pub contract_cases: Option<u64>,
    pub coverage_findings: Vec<LintResult>,
    /// What each webhook wrote to the recording API, judged.
    pub side_effects: Vec<LintResult>,
    pub shard: Option<ShardOf>,
    /// In a merged report: how many shard reports it merges.
    pub merged: Option<u64>,
    pub suite_version: Option<String>,
    /// Every finding, whatever it judged (reports of format 2 and later; older ones have only the
    /// per-kind sections).
    pub findings: Option<Vec<FlatFinding>>,
}

/// Something shown with a finding: a replay command or a request.
#[derive(Clone, Debug)]
pub(crate) struct Evidence {
    /// e.g. `replay (CREATE pods [v1])`, `minimal request`.
    pub title: String,
    /// `sh` or `json`.
    pub language: &'static str,
    pub text: String,
}

/// One FAIL or WARN of the report, whatever judged it.
#[derive(Clone, Debug)]
pub(crate) struct Issue {
    pub rule: String,
    pub kind: RuleKind,
    pub outcome: Outcome,
    /// The webhook, or the case for a case rule.
    pub subject: Option<String>,
    /// What was found (may have several lines).
    pub found: String,
    /// What the kube-apiserver would say.
    pub apiserver: Option<String>,
    /// How often, e.g. `3 of 120 requests`.
    pub extent: Option<String>,
    /// Where in the user's files: the webhook's manifest line, or the case file.
    pub location: Option<Location>,
    pub evidence: Vec<Evidence>,
}

impl Issue {
    /// The rule's statement (from the catalog).
    pub(crate) fn statement(&self) -> Option<&'static str> {
        rule(&self.rule).map(|r| r.statement)
    }

    /// The rule's source (from the catalog).
    pub(crate) fn source(&self) -> Option<&'static str> {
        rule(&self.rule).map(|r| r.source)
    }

    /// The first line of what was found.
    pub(crate) fn headline(&self) -> &str {
        self.found.lines().next().unwrap_or_default()
    }
}

fn is_breach(outcome: Option<Outcome>) -> bool {
    matches!(outcome, Some(Outcome::Fail | Outcome::Warn))
}

fn kind_of(rule_id: &str, otherwise: RuleKind) -> RuleKind {
    rule(rule_id).map(|r| r.kind()).unwrap_or(otherwise)
}

impl Document {
    /// Read the JSON report `value`.
    pub(crate) fn from_value(value: &Value) -> Result<Document, ReportError> {
        if !value.get("verdict").is_some_and(Value::is_string) {
            return Err(ReportError::NotAReport);
        }
        serde_json::from_value(value.clone()).map_err(ReportError::Layout)
    }

    /// FAIL when the report says so.
    pub(crate) fn verdict(&self) -> Verdict {
        if self.verdict == "fail" {
            Verdict::Fail
        } else {
            Verdict::Pass
        }
    }

    /// Every FAIL and WARN: FAILs first, then by what judged them (target, manifest, exchanges,
    /// properties, cases), in report order within each.
    pub(crate) fn issues(&self) -> Vec<Issue> {
        let mut out = match &self.findings {
            Some(flat) => flat_issues(flat),
            None => self.section_issues(),
        };
        // FAILs first; the order within each outcome is the report's.
        out.sort_by_key(|i| std::cmp::Reverse(i.outcome));
        out
    }

    /// The issues of a report written before the flat list: from its per-kind sections.
    fn section_issues(&self) -> Vec<Issue> {
        let mut out = Vec::new();
        for r in self.results.iter().filter(|r| is_breach(r.outcome)) {
            let outcome = r.outcome.unwrap_or(Outcome::Fail);
            let Some(webhook) = &r.webhook else {
                out.push(Issue {
                    rule: r.rule.clone(),
                    kind: kind_of(&r.rule, RuleKind::Target),
                    outcome,
                    subject: None,
                    found: r.detail.clone().unwrap_or_default(),
                    apiserver: None,
                    extent: None,
                    location: None,
                    evidence: Vec::new(),
                });
                continue;
            };
            let first = r.breaches.first();
            let found = match first {
                Some(b) => format!("{} [{}]: {}", b.request, b.version, b.detail.as_deref().unwrap_or_default()),
                None => String::new(),
            };
            let total: u64 = r.counts.values().sum();
            let bad: u64 = ["fail", "warn"].iter().filter_map(|k| r.counts.get(*k)).sum();
            let evidence = r
                .breaches
                .iter()
                .take(3)
                .filter_map(|b| {
                    b.curl.as_ref().map(|c| Evidence {
                        title: format!("replay: {} [{}]", b.request, b.version),
                        language: "sh",
                        text: super::abbreviate::replay(c),
                    })
                })
                .collect();
            out.push(Issue {
                rule: r.rule.clone(),
                kind: kind_of(&r.rule, RuleKind::Exchange),
                outcome,
                subject: Some(webhook.clone()),
                found,
                apiserver: first.and_then(|b| b.apiserver_message.clone()),
                extent: (total > 0).then(|| format!("{bad} of {total} requests")),
                location: r.location.clone(),
                evidence,
            });
        }
        let lint = self.lint.iter().map(|l| (l, RuleKind::Manifest));
        let reach = self.coverage_findings.iter().map(|l| (l, RuleKind::Coverage));
        let effects = self.side_effects.iter().map(|l| (l, RuleKind::SideEffects));
        for (l, kind) in lint.chain(reach).chain(effects).filter(|(l, _)| is_breach(l.outcome)) {
            out.push(Issue {
                rule: l.rule.clone(),
                kind,
                outcome: l.outcome.unwrap_or(Outcome::Fail),
                subject: Some(l.webhook.clone()),
                found: l.detail.clone().unwrap_or_default(),
                apiserver: None,
                extent: None,
                location: l.location.clone(),
                evidence: Vec::new(),
            });
        }
        for p in self.properties.iter().filter(|p| is_breach(p.outcome)) {
            let mut evidence = Vec::new();
            // A failure on one of the run's cases (found before any generated request) was not shrunk.
            let on_a_case = p.note.as_deref().is_some_and(|n| n.starts_with("on case "));
            if let Some(request) = &p.minimal_request {
                evidence.push(Evidence {
                    title: if on_a_case { "the case's request" } else { "minimal request" }.into(),
                    language: "json",
                    text: super::abbreviate::json(request).0,
                });
            }
            for r in p.replay.iter().flatten() {
                evidence.push(Evidence {
                    title: format!("replay the {} call", r.call),
                    language: "sh",
                    text: super::abbreviate::replay(&r.curl),
                });
            }
            let mut found = p.detail.clone().unwrap_or_default();
            if let Some(note) = &p.note {
                found.push_str(&format!(" ({note})"));
            }
            out.push(Issue {
                rule: p.rule.clone(),
                kind: RuleKind::Property,
                outcome: p.outcome.unwrap_or(Outcome::Fail),
                subject: Some(p.webhook.clone()),
                found,
                apiserver: None,
                extent: Some(match rule(&p.rule) {
                    _ if on_a_case => format!("{} of the run's cases", p.cases),
                    Some(r) => r.extent(p.cases),
                    None => format!("{} generated cases", p.cases),
                }),
                location: p.location.clone(),
                evidence,
            });
        }
        for c in &self.cases {
            for f in c.findings.iter().filter(|f| is_breach(f.outcome)) {
                out.push(Issue {
                    rule: f.rule.clone(),
                    kind: RuleKind::Case,
                    outcome: f.outcome.unwrap_or(Outcome::Fail),
                    subject: Some(c.case.clone()),
                    found: format!("{}: {}", c.request, f.detail.as_deref().unwrap_or_default()),
                    apiserver: None,
                    extent: None,
                    location: Some(Location { file: c.file.clone(), line: 1 }),
                    evidence: c
                        .answers
                        .iter()
                        .filter_map(|a| a.curl.as_ref().map(|curl| (a, curl)))
                        .take(3)
                        .map(|(a, curl)| Evidence {
                            title: format!("replay the call to {}", a.webhook),
                            language: "sh",
                            text: super::abbreviate::replay(curl),
                        })
                        .collect(),
                });
            }
        }
        out
    }

    /// The manifest file the report's locations point into, if any.
    pub(crate) fn manifest_file(&self) -> Option<&str> {
        let lint = self.lint.iter().filter_map(|l| l.location.as_ref());
        let results = self.results.iter().filter_map(|r| r.location.as_ref());
        let properties = self.properties.iter().filter_map(|p| p.location.as_ref());
        let flat =
            self.findings.iter().flatten().filter(|f| f.subject.webhook.is_some()).filter_map(|f| f.location.as_ref());
        lint.chain(results).chain(properties).chain(flat).map(|l| l.file.as_str()).next()
    }
}

/// The issues of the flat list: its findings grouped by rule and subject (the requests to one
/// webhook together), one issue per group with a FAIL or WARN, in first-seen order. Nothing here
/// depends on the kind of rule: a new kind renders as the others do.
fn flat_issues(flat: &[FlatFinding]) -> Vec<Issue> {
    let mut keys: Vec<(&str, SubjectGroup)> = Vec::new();
    let mut groups: Vec<Vec<&FlatFinding>> = Vec::new();
    for f in flat {
        let key = (f.rule.as_str(), f.subject.group());
        match keys.iter().position(|k| *k == key) {
            Some(i) => groups[i].push(f),
            None => {
                keys.push(key);
                groups.push(vec![f]);
            }
        }
    }
    groups
        .into_iter()
        .filter_map(|group| {
            let breaches: Vec<&FlatFinding> = group.iter().copied().filter(|f| is_breach(f.outcome)).collect();
            let outcome = Outcome::worst(breaches.iter().filter_map(|f| f.outcome));
            let first = *breaches.iter().find(|f| f.outcome == Some(outcome))?;
            let mut found = match (&first.subject.request, &first.subject.version) {
                (Some(request), Some(version)) => format!("{request} [{version}]: "),
                (Some(request), None) => format!("{request}: "),
                _ => String::new(),
            };
            found.push_str(first.detail.as_deref().unwrap_or_default());
            if let Some(note) = &first.note {
                found.push_str(&format!(" ({note})"));
            }
            let per_request = group.iter().any(|f| f.subject.version.is_some());
            let extent = first
                .extent
                .clone()
                .or_else(|| per_request.then(|| format!("{} of {} requests", breaches.len(), group.len())));
            let evidence = breaches
                .iter()
                .flat_map(|f| &f.evidence)
                .take(3)
                .map(|e| Evidence {
                    title: e.title.clone(),
                    language: if e.language == "json" { "json" } else { "sh" },
                    text: match &e.content {
                        Value::String(command) => super::abbreviate::replay(command),
                        other => super::abbreviate::json(other).0,
                    },
                })
                .collect();
            Some(Issue {
                rule: first.rule.clone(),
                kind: kind_of(&first.rule, first.subject.rule_kind()),
                outcome,
                subject: first.subject.label(),
                found,
                apiserver: first.apiserver_message.clone(),
                extent,
                location: first.location.clone(),
                evidence,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_flat_list_renders_whatever_judged_a_finding() {
        let doc = Document::from_value(&json!({"verdict": "fail", "findings": [
            {"rule": "response.uid", "outcome": "pass", "subject": {"kind": "exchange", "webhook": "a", "request": "CREATE pods", "version": "v1"}},
            {"rule": "response.uid", "outcome": "fail", "detail": "uid differs", "apiserver_message": "said",
             "subject": {"kind": "exchange", "webhook": "a", "request": "UPDATE pods", "version": "v1"},
             "evidence": [{"title": "replay: UPDATE pods [v1]", "language": "sh", "content": "curl x"}]},
            {"rule": "later.kind", "outcome": "warn", "detail": "seen", "subject": {"kind": "later", "webhook": "b"},
             "location": {"file": "m.yaml", "line": 3}},
            {"rule": "manifest.timeout", "outcome": "pass", "subject": {"kind": "manifest", "webhook": "a"}},
        ],
        // Sections a reader ignores once the flat list is there.
        "lint": [{"rule": "manifest.timeout", "webhook": "a", "outcome": "fail"}]}))
        .unwrap();
        let issues = doc.issues();
        assert_eq!(issues.len(), 2, "{issues:?}");
        let uid = &issues[0];
        assert_eq!(
            (uid.rule.as_str(), uid.outcome, uid.subject.as_deref()),
            ("response.uid", Outcome::Fail, Some("a"))
        );
        assert_eq!(uid.found, "UPDATE pods [v1]: uid differs");
        assert_eq!(uid.extent.as_deref(), Some("1 of 2 requests"));
        assert_eq!((uid.apiserver.as_deref(), uid.evidence.len()), (Some("said"), 1));
        let later = &issues[1];
        assert_eq!((later.rule.as_str(), later.outcome, later.found.as_str()), ("later.kind", Outcome::Warn, "seen"));
        assert_eq!(later.location, Some(Location { file: "m.yaml".into(), line: 3 }));
        assert_eq!(doc.manifest_file(), Some("m.yaml"));
    }
}
