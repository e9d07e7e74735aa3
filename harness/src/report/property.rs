//! The properties in the text report: one line per property and webhook, then each failure in full
//! (the minimal request, the answers side by side, a diff of the resulting objects, reproducers).

use super::{abbreviate, Report};
use crate::checks::property::{same, Call};
use crate::client::Transport;
use crate::diff;
use crate::requests::generated::containers_of;
use crate::run::{Failure, PropertyRecord};
use crate::text::indent;
use crate::verdict::Outcome;

/// The properties section of the text report (empty when no property ran).
pub(super) fn render(report: &Report, options: &super::TextOptions) -> String {
    let records = report.records();
    if records.properties.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "\n== properties (seed {}, {} requests sent by the property step)\n",
        records.seed.map(|s| s.to_string()).unwrap_or_else(|| "none: cases only".into()),
        records.property_requests
    );
    if records.contract_cases > 0 {
        let broke = match records.contract_breaches {
            0 => "none of them broke one".to_string(),
            n => format!("{n} broke one (each rule's first breach is reported under the rule above)"),
        };
        s.push_str(&format!(
            "  {} of the property step's requests (each first call: generated of every operation, or a case's again) were held to every exchange rule: {broke}\n",
            records.contract_cases
        ));
    }
    // The property findings, in the one list, each with the run it judged.
    let judged: Vec<(&PropertyRecord, Outcome)> = records.property_findings().map(|(r, f)| (r, f.outcome())).collect();
    for &(r, outcome) in &judged {
        // A failure on one of the run's cases was found before any request was generated.
        let extent = match r.failure.as_ref().and_then(on_a_case) {
            Some(_) => format!("{} of the run's cases", r.cases),
            None => r.extent(),
        };
        s.push_str(&format!(
            "  {:4}  {:26} {}  ({}){}\n",
            outcome.tag(),
            r.rule.id,
            r.webhook,
            extent,
            r.note.as_ref().map(|n| format!(" — {n}")).unwrap_or_default()
        ));
    }
    for &(r, outcome) in &judged {
        if let Some(f) = &r.failure {
            s.push('\n');
            s.push_str(&render_failure(report, r, outcome, f, options));
        }
    }
    s
}

/// The label of the failing request when it is one of the run's cases (`case NAME: …`), which is
/// neither generated nor shrunk.
pub(super) fn on_a_case(f: &Failure) -> Option<&str> {
    let input = f.observation.input.as_ref().filter(|_| f.seed.is_none())?;
    input.label.starts_with("case ").then_some(input.label.as_str())
}

/// The answer of a call as text: HTTP status, the body, and the decoded patch.
fn answer_text(call: &Call) -> String {
    match &call.record.transport {
        Transport::Failed(f) => format!("no answer: {}", f.message),
        Transport::Answered(a) => {
            let body = abbreviate::body(&a.body);
            let mut s = format!("HTTP {}\n{body}", a.status);
            let view = call.record.view();
            if let Some(patch) = view.nonempty_patch_bytes().map(|b| String::from_utf8_lossy(b).into_owned()) {
                let pretty = abbreviate::body(patch.as_bytes());
                s.push_str(&format!("\npatch (decoded):\n{pretty}"));
            }
            s
        }
    }
}

fn side_by_side(left_title: &str, left: &str, right_title: &str, right: &str) -> String {
    const W: usize = 60;
    let cut = |s: &str| {
        let n = s.chars().count();
        if n > W {
            format!("{}…", s.chars().take(W - 1).collect::<String>())
        } else {
            format!("{s}{}", " ".repeat(W - n))
        }
    };
    let clip = |s: &str| {
        if s.chars().count() > W {
            format!("{}…", s.chars().take(W - 1).collect::<String>())
        } else {
            s.to_string()
        }
    };
    let l: Vec<&str> = left.lines().collect();
    let r: Vec<&str> = right.lines().collect();
    let mut out = format!("    {} | {}\n    {} | {}\n", cut(left_title), right_title, "-".repeat(W), "-".repeat(W));
    for i in 0..l.len().max(r.len()) {
        let a = l.get(i).copied().unwrap_or("");
        let b = r.get(i).copied().unwrap_or("");
        out.push_str(&format!("    {} | {}\n", cut(a), clip(b)));
    }
    out
}

fn render_failure(
    report: &Report,
    r: &PropertyRecord,
    outcome: Outcome,
    f: &Failure,
    options: &super::TextOptions,
) -> String {
    let mut s =
        format!("== {} {} — {}\n   {}\n   {}\n", outcome.tag(), r.rule.id, r.webhook, r.rule.statement, f.message);
    if let Some(seed) = f.seed {
        s.push_str(&format!("   seed: {} (runner seed {seed:#x})\n", report.records().seed.unwrap_or_default()));
    }
    let obs = &f.observation;
    if let Some(input) = &obs.input {
        // When shrinking was cut short (the note says why) the request is a failing one, not a minimal one.
        let cut = r.note.as_deref().is_some_and(|n| n.contains("shrinking stopped"));
        let what = if on_a_case(f).is_some() {
            "the case's request"
        } else if cut {
            "failing request (shrinking was cut short)"
        } else {
            "minimal request"
        };
        s.push_str(&format!("   {what} ({}, {}):\n", input.label, input.version()));
        s.push_str(&indent(&abbreviate::json(&input.review.to_value()).0, "    "));
    }
    let pairs: Vec<(&Call, &Call)> = obs.calls.windows(2).map(|w| (&w[0], &w[1])).collect();
    if let Some((a, b)) = pairs.iter().rev().find(|(a, b)| !same(a, b)).or(pairs.last()) {
        s.push_str("   answers side by side:\n");
        s.push_str(&side_by_side(&a.role, &answer_text(a), &b.role, &answer_text(b)));
        if let (Some(x), Some(y)) = (a.resulting(), b.resulting()) {
            s.push_str(&format!("   resulting objects, {} → {}:\n", a.role, b.role));
            s.push_str(&diff::render(&diff::diff(&x, &y), 30));
        }
    } else if let Some(c) = obs.calls.first() {
        s.push_str(&format!("   answer ({}):\n", c.role));
        s.push_str(&indent(&answer_text(c), "    "));
    }
    if let Some(input) = &obs.input {
        let n = containers_of(input.object()).len();
        if n > 0 {
            let whose = if on_a_case(f).is_some() { "the case's" } else { "the minimal" };
            s.push_str(&format!("   ({n} container(s) in {whose} request's object)\n"));
        }
    }
    for c in &obs.calls {
        s.push_str(&format!("   reproduce the {} call:\n", c.role));
        s.push_str(&indent(&report.replay(&c.record, options), "    "));
    }
    s
}
