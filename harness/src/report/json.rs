//! The machine-readable report (`--report-json`).

use serde_json::{json, Value};

use super::Report;
use crate::client::Transport;
use crate::verdict::Outcome;

const MAX_EXAMPLES: usize = 5;

pub fn render(report: &Report) -> Value {
    let target: Vec<Value> = report
        .records()
        .target_findings
        .iter()
        .map(|f| {
            let rule = crate::rules::rule(f.rule);
            json!({
                "rule": f.rule,
                "severity": rule.map(|r| r.severity),
                "statement": rule.map(|r| r.statement),
                "outcome": f.outcome,
                "detail": f.detail,
            })
        })
        .collect();
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
                .map(|(record, i)| {
                    let f = &record.findings[*i];
                    json!({
                        "outcome": f.outcome,
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
    let properties: Vec<Value> = report
        .properties()
        .iter()
        .map(|p| {
            json!({
                "rule": p.rule.id,
                "severity": p.rule.severity,
                "webhook": p.webhook,
                "outcome": p.outcome,
                "cases": p.cases,
                "note": p.note,
                "detail": p.failure.as_ref().map(|f| f.message.clone()),
                "minimal_request": p.failure.as_ref().and_then(|f| f.observation.input.as_ref()).map(|i| i.review.to_value()),
                "statement": p.rule.statement,
                "replay": p.failure.as_ref().map(|f| f.observation.calls.iter().map(|c| json!({"call": c.role, "curl": report.curl(&c.record)})).collect::<Vec<_>>()),
                "location": location(report, &p.webhook),
            })
        })
        .collect();
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
    let reach: Vec<Value> = report
        .records()
        .coverage_findings
        .iter()
        .map(|m| json!({"rule": m.finding.rule, "webhook": m.webhook, "outcome": m.finding.outcome, "detail": m.finding.detail, "location": location(report, &m.webhook)}))
        .collect();
    let side_effects: Vec<Value> = report
        .records()
        .side_effects
        .iter()
        .map(|m| json!({"rule": m.finding.rule, "webhook": m.webhook, "outcome": m.finding.outcome, "detail": m.finding.detail, "location": location(report, &m.webhook)}))
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
        "lint": report.manifest().iter().map(|m| json!({
            "rule": m.finding.rule,
            "severity": crate::rules::rule(m.finding.rule).map(|r| r.severity),
            "webhook": m.webhook,
            "outcome": m.finding.outcome,
            "detail": m.finding.detail,
            "location": location(report, &m.webhook),
        })).collect::<Vec<_>>(),
        "cases": cases(report),
        "shard": report.records().shard,
        "suite_version": env!("CARGO_PKG_VERSION"),
    })
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

fn cases(report: &Report) -> Vec<Value> {
    report
        .cases()
        .iter()
        .map(|c| {
            let failed: Vec<Value> = c
                .records
                .iter()
                .flat_map(|r| r.findings.iter().filter(|f| matches!(f.outcome, Outcome::Fail | Outcome::Warn)).map(move |f| (r, f)))
                .map(|(r, f)| json!({"rule": f.rule, "outcome": f.outcome, "webhook": r.webhook.name, "detail": f.detail, "apiserver_message": f.apiserver_message, "curl": report.curl(r)}))
                .collect();
            json!({
                "case": c.name,
                "file": c.file.display().to_string(),
                "request": c.what,
                "decision": c.decision.as_str(),
                "outcome": c.outcome(),
                "findings": c.findings,
                "answers": failed,
            })
        })
        .collect()
}
