//! The report as GitHub-flavoured Markdown (`--report-md FILE`, e.g. `$GITHUB_STEP_SUMMARY`): the
//! verdict, a table of every FAIL and WARN, each FAIL with what was found, what the apiserver says,
//! the minimal request and the replay commands, then the WARNs (folded) and what the run covered.
//!
//! Everything that comes from the webhook or the user's files is escaped: it shows as text, never as
//! markup. Code blocks are fenced with more backticks than they contain. The whole stays well under
//! GitHub's 1 MiB step-summary limit (long blocks are cut, with a pointer to the JSON report).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::document::{Document, Evidence, Issue};
use crate::verdict::{Outcome, Verdict};

/// A code block longer than this is cut.
const MAX_BLOCK: usize = 12 * 1024;
/// At most this many findings are shown in full; the table lists all of them.
const MAX_DETAILED: usize = 40;
/// At most this many rows in the findings table.
const MAX_ROWS: usize = 200;

/// Escape `text` for inline Markdown: every character that could start markup is escaped, HTML
/// included; line breaks become spaces.
pub(crate) fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '#' | '!' | '&' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    // Text that starts like a list item would still be one.
    if out.starts_with(['-', '+', '=']) {
        out.insert(0, '\\');
    }
    let digits = out.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && out[digits..].starts_with(['.', ')']) {
        out.insert(digits, '\\');
    }
    out
}

/// `text` as a table cell: inline, cut to its first line and 240 characters.
fn cell(text: &str) -> String {
    let first = text.lines().next().unwrap_or_default();
    let cut: String = first.chars().take(240).collect();
    let more = if cut.len() < first.len() || text.lines().nth(1).is_some() { " …" } else { "" };
    format!("{}{more}", inline(&cut))
}

/// `code` as inline code (for ids and names): backticks inside are not expected, but handled.
fn code(text: &str) -> String {
    if text.contains('`') {
        inline(text)
    } else {
        format!("`{text}`")
    }
}

/// A fenced code block holding `text` exactly (cut past [`MAX_BLOCK`]).
pub(crate) fn fenced(text: &str, language: &str) -> String {
    let (body, cut) = if text.len() > MAX_BLOCK {
        let mut end = MAX_BLOCK;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        (&text[..end], true)
    } else {
        (text, false)
    };
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((longest + 1).max(3));
    let mut out = format!("{fence}{language}\n{body}\n{fence}\n");
    if cut {
        let _ = writeln!(out, "\n*(cut at {} KiB: the JSON report has all of it)*", MAX_BLOCK / 1024);
    }
    out
}

fn mark(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Fail => "❌ FAIL",
        Outcome::Warn => "⚠️ WARN",
        Outcome::Pass => "✅ pass",
        Outcome::Skip => "skip",
    }
}

fn ids(issues: &[&Issue]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for i in issues {
        if !seen.contains(&i.rule.as_str()) {
            seen.push(&i.rule);
        }
    }
    seen.iter().map(|id| code(id)).collect::<Vec<_>>().join(", ")
}

fn subject(issue: &Issue) -> String {
    issue.subject.as_deref().map(code).unwrap_or_else(|| "—".into())
}

/// One finding in full.
fn detailed(issue: &Issue, out: &mut String) {
    let _ = writeln!(out, "#### {} {} · {}\n", mark(issue.outcome), code(&issue.rule), subject(issue));
    if let Some(statement) = issue.statement() {
        let _ = writeln!(out, "> {}\n", inline(statement));
    }
    if issue.found.contains('\n') {
        let _ = writeln!(out, "**Found:**\n\n{}", fenced(&issue.found, "text"));
    } else {
        let _ = writeln!(out, "**Found:** {}\n", inline(&issue.found));
    }
    if let Some(extent) = &issue.extent {
        let _ = writeln!(out, "**How often:** {}\n", inline(extent));
    }
    if let Some(said) = &issue.apiserver {
        let _ = writeln!(out, "**The apiserver says:** {}\n", inline(said));
    }
    let mut facts = Vec::new();
    if let Some(at) = &issue.location {
        facts.push(format!("where: {}", code(&format!("{}:{}", at.file, at.line))));
    }
    if let Some(source) = issue.source() {
        facts.push(format!("source: {}", inline(source)));
    }
    if !facts.is_empty() {
        let _ = writeln!(out, "{}\n", facts.join(" · "));
    }
    for e in &issue.evidence {
        evidence(e, out);
    }
}

fn evidence(e: &Evidence, out: &mut String) {
    let title = e.title.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let _ = writeln!(out, "<details><summary>{title}</summary>\n\n{}\n</details>\n", fenced(&e.text, e.language));
}

/// Per webhook: requests sent (the coverage's tally), rule outcomes, lint, property cases.
fn coverage(doc: &Document, out: &mut String) {
    #[derive(Default)]
    struct Row {
        rules: BTreeMap<Outcome, u64>,
        lint: BTreeMap<Outcome, u64>,
        properties: BTreeMap<Outcome, u64>,
        cases: u64,
    }
    let mut order: Vec<String> = Vec::new();
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let mut row = |name: &str| {
        if !order.iter().any(|o| o == name) {
            order.push(name.to_string());
        }
        name.to_string()
    };
    let mut keys = Vec::new();
    for r in &doc.results {
        if let Some(w) = &r.webhook {
            keys.push((row(w), 0usize, r.outcome, 0));
        }
    }
    for l in &doc.lint {
        keys.push((row(&l.webhook), 1, l.outcome, 0));
    }
    for p in &doc.properties {
        keys.push((row(&p.webhook), 2, p.outcome, p.cases));
    }
    for (name, what, outcome, n) in keys {
        let r = rows.entry(name).or_default();
        let outcome = outcome.unwrap_or(Outcome::Skip);
        match what {
            0 => *r.rules.entry(outcome).or_default() += 1,
            1 => *r.lint.entry(outcome).or_default() += 1,
            _ => {
                r.cases += n;
                *r.properties.entry(outcome).or_default() += 1;
            }
        }
    }
    if order.is_empty() && doc.cases.is_empty() {
        return;
    }
    let counts = |m: &BTreeMap<Outcome, u64>| {
        if m.is_empty() {
            return "—".to_string();
        }
        [Outcome::Pass, Outcome::Fail, Outcome::Warn, Outcome::Skip]
            .iter()
            .map(|o| format!("{} {}", m.get(o).copied().unwrap_or(0), o.tag().to_lowercase()))
            .collect::<Vec<_>>()
            .join(" · ")
    };
    let _ = writeln!(out, "### Coverage\n");
    let _ = writeln!(
        out,
        "| webhook | requests sent | operation × resource reached | exchange rules | manifest lint | properties | property cases |\n|---|---:|---|---|---|---|---:|"
    );
    for name in &order {
        let r = &rows[name];
        let reached = match doc.coverage.get(name) {
            Some(per) => {
                let hit: Vec<String> =
                    per.iter().filter(|c| c.sent > 0).map(|c| format!("{} {}", c.operation, c.resource)).collect();
                format!("{}: {}", hit.len(), cell(&hit.join(", ")))
            }
            None => "—".to_string(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            code(name),
            doc.coverage.get(name).map_or(0, |per| per.iter().map(|c| c.sent).sum::<u64>()),
            reached,
            counts(&r.rules),
            counts(&r.lint),
            counts(&r.properties),
            r.cases
        );
    }
    if !doc.cases.is_empty() {
        let mut by: BTreeMap<Outcome, u64> = BTreeMap::new();
        for c in &doc.cases {
            *by.entry(c.outcome.unwrap_or(Outcome::Skip)).or_default() += 1;
        }
        let _ = writeln!(out, "\n{} data-driven cases: {}", doc.cases.len(), counts(&by));
    }
    let _ = writeln!(out);
}

/// The one line under the heading: target, requests, time, seed, shards.
fn facts(doc: &Document) -> String {
    let mut facts = vec![
        format!("target {}", code(&doc.target)),
        format!("{} requests sent in {:.1} s", doc.requests, doc.duration_ms as f64 / 1000.0),
    ];
    if let Some(n) = doc.contract_cases.filter(|n| *n > 0) {
        facts.push(format!("{n} requests of the property step judged by every exchange rule"));
    }
    if let Some(seed) = doc.seed {
        facts.push(format!("seed {seed}"));
    }
    if let Some(s) = doc.shard {
        facts.push(format!("shard {}/{}", s.index, s.count));
    }
    if let Some(n) = doc.merged {
        facts.push(format!("{n} reports merged"));
    }
    facts.join(" · ")
}

/// The Markdown report.
pub(crate) fn render(doc: &Document) -> String {
    let issues = doc.issues();
    let fails: Vec<&Issue> = issues.iter().filter(|i| i.outcome == Outcome::Fail).collect();
    let warns: Vec<&Issue> = issues.iter().filter(|i| i.outcome == Outcome::Warn).collect();
    let mut out = String::new();
    match doc.verdict() {
        Verdict::Fail => {
            let _ = writeln!(out, "## ❌ webhook-conformance: FAIL\n");
        }
        Verdict::Pass => {
            let _ = writeln!(out, "## ✅ webhook-conformance: PASS\n");
        }
    }
    let mut counts = Vec::new();
    if !fails.is_empty() {
        counts.push(format!("**FAIL:** {}", ids(&fails)));
    }
    if !warns.is_empty() {
        counts.push(format!("**WARN:** {}", ids(&warns)));
    }
    if counts.is_empty() {
        counts.push("no rule FAILs or WARNs".into());
    }
    let _ = writeln!(out, "{}\n\n{}\n", counts.join(" · "), facts(doc));
    if !issues.is_empty() {
        let _ = writeln!(out, "| | rule | webhook or case | found |\n|---|---|---|---|");
        for i in issues.iter().take(MAX_ROWS) {
            let _ =
                writeln!(out, "| {} | {} | {} | {} |", mark(i.outcome), code(&i.rule), subject(i), cell(i.headline()));
        }
        if issues.len() > MAX_ROWS {
            let _ = writeln!(out, "\n*… and {} more in the JSON report*", issues.len() - MAX_ROWS);
        }
        let _ = writeln!(out);
    }
    if !fails.is_empty() {
        let _ = writeln!(out, "### What fails\n");
        for i in fails.iter().take(MAX_DETAILED) {
            detailed(i, &mut out);
        }
    }
    if !warns.is_empty() {
        let _ = writeln!(
            out,
            "### Warnings\n\n<details><summary>{} WARN finding(s): the apiserver accepts these</summary>\n",
            warns.len()
        );
        for i in warns.iter().take(MAX_DETAILED.saturating_sub(fails.len().min(MAX_DETAILED)).max(10)) {
            detailed(i, &mut out);
        }
        let _ = writeln!(out, "</details>\n");
    }
    coverage(doc, &mut out);
    if !doc.notes.is_empty() {
        let _ = writeln!(out, "### Notes\n");
        for n in &doc.notes {
            let _ = writeln!(out, "- {}", inline(n));
        }
        let _ = writeln!(out);
    }
    out
}

/// The verdict and each FAIL/WARN in one line, as plain text.
pub(crate) fn summary_text(doc: &Document) -> String {
    let issues = doc.issues();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "webhook-conformance: {} ({} requests sent in {:.2} s{})",
        doc.target,
        doc.requests,
        doc.duration_ms as f64 / 1000.0,
        doc.merged.map(|n| format!(", {n} reports merged")).unwrap_or_default()
    );
    for i in &issues {
        let _ = writeln!(
            out,
            "  {:4}  {:28} {}: {}",
            i.outcome.tag(),
            i.rule,
            i.subject.as_deref().unwrap_or("target"),
            i.headline()
        );
    }
    let list = |o: Outcome| {
        let mut ids: Vec<&str> = Vec::new();
        for i in issues.iter().filter(|i| i.outcome == o) {
            if !ids.contains(&i.rule.as_str()) {
                ids.push(&i.rule);
            }
        }
        ids.join(", ")
    };
    let warned = list(Outcome::Warn);
    let warned = if warned.is_empty() { String::new() } else { format!("; WARN: {warned}") };
    match doc.verdict() {
        Verdict::Fail => {
            let _ = writeln!(out, "\nverdict: FAIL — {}{warned}", list(Outcome::Fail));
        }
        Verdict::Pass => {
            let _ = writeln!(out, "\nverdict: PASS — no rule FAILs{warned}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_text_is_escaped() {
        assert_eq!(inline("<html>oops</html> | *x* _y_ `z`"), "\\<html\\>oops\\</html\\> \\| \\*x\\* \\_y\\_ \\`z\\`");
        assert_eq!(inline("- a\nb"), "\\- a b");
        assert_eq!(inline("1. first"), "1\\. first");
    }

    #[test]
    fn a_fence_is_longer_than_the_backticks_inside() {
        assert_eq!(fenced("a ``` b", "sh"), "````sh\na ``` b\n````\n");
        assert_eq!(fenced("plain", "json"), "```json\nplain\n```\n");
        let long = "x".repeat(MAX_BLOCK + 10);
        assert!(fenced(&long, "text").contains("cut at 12 KiB"));
    }
}
