//! SARIF 2.1.0 (`--sarif FILE`) for code scanning: the rule catalog as the tool's rules, every FAIL
//! (`error`) and WARN (`warning`) as a result.
//!
//! Code scanning wants a file location on every result: manifest lint findings and findings about a
//! webhook's answers point at the webhook's entry in the manifest (where the webhook under test is
//! configured), case findings at the case file, a target finding at the manifest. A stable
//! fingerprint (rule, webhook or case) keeps one alert per finding across runs.

use serde_json::{json, Value};

use super::document::{Document, Issue, Location};
use crate::rules::{RuleKind, CATALOG};
use crate::verdict::{Outcome, Severity};

/// The schema the log declares.
pub const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// A path as a SARIF URI: a relative reference for a relative path, a `file://` URI for an absolute
/// one; every character outside the unreserved set and `/` percent-encoded.
pub(crate) fn uri(path: &str) -> String {
    let mut out = String::new();
    if path.starts_with('/') {
        out.push_str("file://");
    }
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Fail => "error",
        Severity::Warn => "warning",
    }
}

fn kind_name(kind: RuleKind) -> &'static str {
    match kind {
        RuleKind::Exchange => "exchange",
        RuleKind::Property => "property",
        RuleKind::Manifest => "manifest",
        RuleKind::Case => "case",
        RuleKind::Target => "target",
        RuleKind::Coverage => "coverage",
        RuleKind::SideEffects => "side-effects",
    }
}

fn physical(at: &Location) -> Value {
    json!({
        "physicalLocation": {
            "artifactLocation": {"uri": uri(&at.file)},
            "region": {"startLine": at.line.max(1)},
        }
    })
}

fn result(issue: &Issue, index: Option<usize>, fallback: Option<&Location>) -> Value {
    let mut text = issue.found.clone();
    if let Some(extent) = &issue.extent {
        text.push_str(&format!(" ({extent})"));
    }
    if let Some(said) = &issue.apiserver {
        text.push_str(&format!("\nThe apiserver says: {said}"));
    }
    if !matches!(issue.kind, RuleKind::Manifest | RuleKind::Case | RuleKind::Coverage) {
        if let Some(subject) = &issue.subject {
            text.push_str(&format!("\n(webhook {subject}: this location is where it is configured)"));
        }
    }
    let mut r = json!({
        "ruleId": issue.rule,
        "level": if issue.outcome == Outcome::Fail { "error" } else { "warning" },
        "message": {"text": text},
        "partialFingerprints": {
            "webhookConformance/v1": format!("{}/{}", issue.rule, issue.subject.as_deref().unwrap_or("target")),
        },
    });
    if let Some(i) = index {
        r["ruleIndex"] = json!(i);
    }
    if let Some(at) = issue.location.as_ref().or(fallback) {
        r["locations"] = json!([physical(at)]);
    }
    if let Some(subject) = &issue.subject {
        r["properties"] = json!({"subject": subject, "kind": kind_name(issue.kind)});
    }
    r
}

/// The SARIF log.
pub(crate) fn render(doc: &Document) -> Value {
    let issues = doc.issues();
    let mut rules: Vec<Value> = CATALOG
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.id,
                "shortDescription": {"text": r.statement},
                "fullDescription": {"text": format!("{} Source: {}", r.statement, r.source)},
                "help": {"text": format!("{}\nSource: {}", r.statement, r.source)},
                "defaultConfiguration": {"level": level(r.severity)},
                "properties": {"tags": ["kubernetes", "admission-webhook", kind_name(r.kind())]},
            })
        })
        .collect();
    // Rules a report from another version of the suite names.
    let mut ids: Vec<String> = CATALOG.iter().map(|r| r.id.to_string()).collect();
    for i in &issues {
        if !ids.contains(&i.rule) {
            ids.push(i.rule.clone());
            rules.push(json!({"id": i.rule, "shortDescription": {"text": i.rule}}));
        }
    }
    let fallback = doc.manifest_file().map(|file| Location { file: file.to_string(), line: 1 });
    let results: Vec<Value> =
        issues.iter().map(|i| result(i, ids.iter().position(|id| id == &i.rule), fallback.as_ref())).collect();
    let mut driver = json!({
        "name": "webhook-conformance",
        "rules": rules,
    });
    if let Some(v) = &doc.suite_version {
        driver["version"] = json!(v);
        driver["semanticVersion"] = json!(v);
    }
    json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "results": results,
            "invocations": [{
                "executionSuccessful": true,
                "properties": {"verdict": doc.verdict, "target": doc.target, "requests": doc.requests},
            }],
            "properties": {"seed": doc.seed},
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri("deploy/webhook.yaml"), "deploy/webhook.yaml");
        assert_eq!(uri("/abs/my hooks.yaml"), "file:///abs/my%20hooks.yaml");
        assert_eq!(uri("<bundled reference manifest>"), "%3Cbundled%20reference%20manifest%3E");
    }
}
