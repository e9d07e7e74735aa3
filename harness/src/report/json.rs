//! The machine-readable report (`--report-json`).

use serde_json::{json, Value};

use super::Report;
use crate::client::Transport;
use crate::run::PropertyRecord;
use crate::verdict::{Finding, Outcome, Subject};

const MAX_EXAMPLES: usize = 5;

pub(crate) fn render(report: &Report) -> Value {
    // One walk of the findings: each goes to the part of the report that shows what it judged
    // (the exchanges' are summed per rule and webhook by `summaries`, from the same list).
    let records = report.records();
    let (mut target, mut lint, mut reach, mut properties) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut side_effects = Vec::new();
    let mut cases: Vec<Vec<&Finding>> = vec![Vec::new(); records.cases.len()];
    for f in report.findings() {
        let rule = crate::rules::rule(f.rule);
        match &f.subject {
            Subject::Target => target.push(json!({
                "rule": f.rule,
                "severity": rule.map(|r| r.severity),
                "statement": rule.map(|r| r.statement),
                "outcome": f.outcome(),
                "detail": f.detail,
            })),
            Subject::Manifest { webhook } => lint.push(json!({
                "rule": f.rule,
                "severity": rule.map(|r| r.severity),
                "webhook": webhook,
                "outcome": f.outcome(),
                "detail": f.detail,
                "location": location(report, webhook),
            })),
            Subject::Sent { webhook } => reach.push(json!({
                "rule": f.rule,
                "webhook": webhook,
                "outcome": f.outcome(),
                "detail": f.detail,
                "location": location(report, webhook),
            })),
            Subject::Calls { webhook } => side_effects.push(json!({
                "rule": f.rule,
                "webhook": webhook,
                "outcome": f.outcome(),
                "detail": f.detail,
                "location": location(report, webhook),
            })),
            Subject::Property { index } => {
                if let Some(p) = records.properties.get(*index) {
                    properties.push(property(report, p, f));
                }
            }
            Subject::Case { index } => {
                if let Some(own) = cases.get_mut(*index) {
                    own.push(f);
                }
            }
            _ => {}
        }
    }
    let summaries: Vec<Value> = report
        .summaries()
        .iter()
        .map(|s| {
            let counts: serde_json::Map<String, Value> = [Outcome::Pass, Outcome::Fail, Outcome::Warn, Outcome::Skip]
                .iter()
                .map(|o| {
                    (
                        serde_json::to_value(o).unwrap().as_str().unwrap().to_string(),
                        json!(s.counts.get(o).copied().unwrap_or(0)),
                    )
                })
                .collect();
            let examples: Vec<Value> = s
                .breaches
                .iter()
                .take(MAX_EXAMPLES)
                .map(|(record, f)| {
                    json!({
                        "outcome": f.outcome(),
                        "request": record.case.label,
                        "version": record.case.version(),
                        "uid": record.case.uid(),
                        "detail": f.detail,
                        "apiserver_message": f.apiserver_message,
                        "response": response_of(&record.transport),
                        "curl": report.curl(record),
                    })
                })
                .collect();
            json!({
                "rule": s.rule.id,
                "severity": s.rule.severity,
                "statement": s.rule.statement,
                "source": s.rule.source,
                "webhook": s.webhook,
                "outcome": s.outcome,
                "counts": counts,
                "breaches": examples,
                "location": location(report, &s.webhook),
            })
        })
        .collect();
    let results: Vec<Value> = target.into_iter().chain(summaries).collect();
    let coverage: serde_json::Map<String, Value> = report
        .coverage()
        .iter()
        .map(|(webhook, per)| {
            let rows: Vec<Value> = per
                .iter()
                .map(|(what, c)| {
                    let (operation, resource) = what.split_once(' ').unwrap_or((what.as_str(), ""));
                    json!({"operation": operation, "resource": resource, "sent": c.sent, "allowed": c.allowed,
                        "patched": c.patched, "denied": c.denied, "unusable": c.unusable})
                })
                .collect();
            (webhook.clone(), Value::Array(rows))
        })
        .collect();
    json!({
        "verdict": report.verdict().as_str(),
        "coverage": coverage,
        "contract_cases": report.records().contract_cases,
        "contract_breaches": report.records().contract_breaches,
        "coverage_findings": reach,
        "side_effects": side_effects,
        "seed": report.records().seed,
        "properties": properties,
        "target": report.records().target.description,
        "requests": report.requests(),
        "duration_ms": report.records().duration.as_millis() as u64,
        "notes": report.records().target.notes,
        "not_sent": report.records().unsent.iter().map(|u| json!({"webhook": u.webhook, "requests": u.requests, "why": u.why})).collect::<Vec<_>>(),
        "results": results,
        "lint": lint,
        "cases": render_cases(report, &cases),
        "shard": report.records().shard,
        "suite_version": env!("CARGO_PKG_VERSION"),
        "format": FORMAT,
        "findings": flat_findings(report),
    })
}

/// The version of the report's layout. 2: every finding also in one flat `findings` list, each
/// with what it judged (`subject`); the per-kind sections stay as they were.
pub(crate) const FORMAT: u64 = 2;

/// How many replays a breached finding carries.
const MAX_EVIDENCE: usize = 3;

/// Every finding of the run, in the records' order: its rule, severity, outcome, detail, what the
/// apiserver would say, what it judged (`subject`), where that is written and, for a breach, what
/// reproduces it (`evidence`: `{title, language, content}`).
fn flat_findings(report: &Report) -> Vec<Value> {
    report
        .findings()
        .iter()
        .map(|f| {
            let (subject, location, extra) = subject_of(report, f);
            let mut entry = json!({
                "rule": f.rule,
                "severity": crate::rules::rule(f.rule).map(|r| r.severity),
                "outcome": f.outcome(),
                "detail": f.detail,
                "apiserver_message": f.apiserver_message,
                "subject": subject,
                "location": location,
            });
            if let (Some(obj), Value::Object(more)) = (entry.as_object_mut(), extra) {
                obj.extend(more);
            }
            if !f.is_breach() {
                if let Some(obj) = entry.as_object_mut() {
                    obj.remove("evidence");
                }
            }
            entry
        })
        .collect()
}

/// A finding's subject as JSON, its location, and fields it adds to the entry (`note`, `extent`,
/// `evidence`).
fn subject_of(report: &Report, f: &Finding) -> (Value, Value, Value) {
    let records = report.records();
    let on =
        |kind: &str, webhook: &str| (json!({"kind": kind, "webhook": webhook}), location(report, webhook), json!({}));
    match &f.subject {
        Subject::Target => (json!({"kind": "target"}), Value::Null, json!({})),
        Subject::Manifest { webhook } => on("manifest", webhook),
        Subject::Sent { webhook } => on("sent", webhook),
        Subject::Calls { webhook } => on("calls", webhook),
        Subject::Exchange { index } => match records.exchanges.get(*index) {
            Some(r) => (
                json!({"kind": "exchange", "index": index, "webhook": r.webhook.name,
                    "request": r.case.label, "version": r.case.version()}),
                location(report, &r.webhook.name),
                match f.is_breach() {
                    true => json!({"evidence": [{"title": format!("replay: {} [{}]", r.case.label, r.case.version()),
                        "language": "sh", "content": report.curl(r)}]}),
                    false => json!({}),
                },
            ),
            None => (json!({"kind": "exchange", "index": index}), Value::Null, json!({})),
        },
        Subject::Case { index } => match records.cases.get(*index) {
            Some(c) => {
                let evidence: Vec<Value> = records
                    .case_calls(*index)
                    .filter(|_| f.is_breach())
                    .take(MAX_EVIDENCE)
                    .map(|(r, _)| {
                        json!({"title": format!("replay the call to {}", r.webhook.name),
                        "language": "sh", "content": report.curl(r)})
                    })
                    .collect();
                let file = c.file.display().to_string();
                (
                    json!({"kind": "case", "index": index, "case": c.name, "file": file, "request": c.what}),
                    json!({"file": file, "line": 1}),
                    json!({"evidence": evidence}),
                )
            }
            None => (json!({"kind": "case", "index": index}), Value::Null, json!({})),
        },
        Subject::Property { index } => match records.properties.get(*index) {
            Some(p) => {
                let on_a_case = p.note.as_deref().is_some_and(|n| n.starts_with("on case "));
                let mut evidence = Vec::new();
                if let Some(failure) = p.failure.as_ref().filter(|_| f.is_breach()) {
                    if let Some(input) = &failure.observation.input {
                        let title = if on_a_case { "the case's request" } else { "minimal request" };
                        evidence.push(json!({"title": title, "language": "json", "content": input.review.to_value()}));
                    }
                    for c in &failure.observation.calls {
                        evidence.push(json!({"title": format!("replay the {} call", c.role), "language": "sh",
                            "content": report.curl(&c.record)}));
                    }
                }
                let extent = if on_a_case { format!("{} of the run's cases", p.cases) } else { p.rule.extent(p.cases) };
                (
                    json!({"kind": "property", "index": index, "webhook": p.webhook}),
                    location(report, &p.webhook),
                    json!({"note": p.note, "extent": extent, "evidence": evidence}),
                )
            }
            None => (json!({"kind": "property", "index": index}), Value::Null, json!({})),
        },
        _ => (json!({"kind": "unplaced"}), Value::Null, json!({})),
    }
}

/// Where the webhook is written in the manifest: `{"file", "line"}`, or null.
fn location(report: &Report, webhook: &str) -> Value {
    let spec = report.records().webhooks.iter().find(|w| w.name == webhook);
    match spec.and_then(|w| w.location.as_ref()) {
        Some(at) => json!({"file": at.file.display().to_string(), "line": at.line}),
        None => Value::Null,
    }
}

fn response_of(t: &Transport) -> Value {
    match t {
        Transport::Answered(a) => json!({
            "status": a.status,
            "content_type": a.content_type,
            "http_version": a.http_version,
            "body": String::from_utf8_lossy(&a.body),
        }),
        Transport::Failed(f) => json!({"failure": f.kind, "message": f.message}),
    }
}

/// A property's run and verdict.
fn property(report: &Report, p: &PropertyRecord, f: &Finding) -> Value {
    json!({
        "rule": p.rule.id,
        "severity": p.rule.severity,
        "webhook": p.webhook,
        "outcome": f.outcome(),
        "cases": p.cases,
        "note": p.note,
        "detail": p.failure.as_ref().map(|f| f.message.clone()),
        "minimal_request": p.failure.as_ref().and_then(|f| f.observation.input.as_ref()).map(|i| i.review.to_value()),
        "statement": p.rule.statement,
        "replay": p.failure.as_ref().map(|f| f.observation.calls.iter().map(|c| json!({"call": c.role, "curl": report.curl(&c.record)})).collect::<Vec<_>>()),
        "location": location(report, &p.webhook),
    })
}

/// Each case, with its own findings (`own[i]` for case `i`) and its calls' breaches.
fn render_cases(report: &Report, own: &[Vec<&Finding>]) -> Vec<Value> {
    let records = report.records();
    records
        .cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let failed: Vec<Value> = records
                .case_calls(i)
                .flat_map(|(r, findings)| findings.into_iter().filter(|f| f.is_breach()).map(move |f| (r, f)))
                .map(|(r, f)| json!({"rule": f.rule, "outcome": f.outcome(), "webhook": r.webhook.name, "detail": f.detail, "apiserver_message": f.apiserver_message, "curl": report.curl(r)}))
                .collect();
            json!({
                "case": c.name,
                "file": c.file.display().to_string(),
                "request": c.what,
                "decision": c.decision.as_str(),
                "outcome": records.case_outcome(i),
                "findings": own.get(i).cloned().unwrap_or_default(),
                "answers": failed,
            })
        })
        .collect()
}
