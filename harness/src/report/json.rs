//! The machine-readable report (`--report-json`).

use serde_json::{json, Value};

use super::RunReport;
use crate::client::Transport;
use crate::rules::Outcome;

const MAX_EXAMPLES: usize = 5;

pub fn render(report: &RunReport) -> Value {
    let results: Vec<Value> = report
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
                        "version": record.case.version,
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
            })
        })
        .collect();
    json!({
        "verdict": report.verdict().as_str(),
        "target": report.target,
        "requests": report.records.len(),
        "duration_ms": report.duration.as_millis() as u64,
        "notes": report.notes,
        "results": results,
        "lint": report.lint,
        "cases": cases(report),
    })
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

fn cases(report: &RunReport) -> Vec<Value> {
    report
        .cases
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
