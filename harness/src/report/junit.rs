//! JUnit XML (`--junit FILE`): one testcase per rule per webhook, per lint rule per webhook, and per
//! case. A FAIL is a `<failure>` carrying the detail, what the apiserver would say and the replay
//! command; a WARN is a passing testcase whose `<system-out>` starts with `WARN:` (CI dashboards
//! show it without failing the build); a rule that applied to nothing is `<skipped>`.

use std::fmt::Write;

use super::{abbreviate, Report};
use crate::run::PropertyRecord;
use crate::verdict::{Finding, Outcome, Subject};

/// Escape text for XML content and attributes; drop characters XML 1.0 cannot hold.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {
                out.push_str(&format!("[U+{:04X}]", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

struct TestCase {
    classname: String,
    name: String,
    outcome: Outcome,
    /// First line of the failure (attribute) and the full text.
    message: String,
    text: String,
}

struct TestSuite {
    name: String,
    cases: Vec<TestCase>,
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_string()
}

/// One data-driven case (`index`), with its own findings and its calls' breaches.
fn case_test(report: &Report, index: usize, own: &[&Finding]) -> TestCase {
    let records = report.records();
    let c = &records.cases[index];
    let mut text = String::new();
    let _ = writeln!(text, "case {} ({}): {}", c.name, c.file.display(), c.what);
    let mut message = String::new();
    for f in own.iter().filter(|f| f.is_breach()) {
        let d = f.detail.clone().unwrap_or_default();
        if message.is_empty() {
            message = format!("{}: {}", f.rule, first_line(&d));
        }
        let _ = writeln!(text, "{} {:?}:\n{d}", f.rule, f.outcome());
    }
    for (record, findings) in records.case_calls(index) {
        for f in findings.into_iter().filter(|f| f.is_breach()) {
            if message.is_empty() {
                message = format!("{}: {}", f.rule, first_line(f.detail.as_deref().unwrap_or_default()));
            }
            let _ = writeln!(
                text,
                "{} {:?} on {}: {}",
                f.rule,
                f.outcome(),
                record.webhook.name,
                f.detail.as_deref().unwrap_or_default()
            );
            if let Some(m) = &f.apiserver_message {
                let _ = writeln!(text, "apiserver says: {m}");
            }
            let _ = writeln!(text, "replay:\n{}\n", abbreviate::replay(&report.curl(record)));
        }
    }
    TestCase {
        classname: "webhook-conformance.cases".into(),
        name: c.name.clone(),
        outcome: records.case_outcome(index),
        message,
        text,
    }
}

/// One property's run against one webhook, and its verdict.
fn property_test(report: &Report, p: &PropertyRecord, finding: &Finding) -> TestCase {
    let case = p.failure.as_ref().and_then(super::property::on_a_case);
    let mut text = match case {
        Some(_) => format!("{} of the run's cases", p.cases),
        None => p.extent(),
    };
    if let Some(note) = &p.note {
        let _ = write!(text, "; {note}");
    }
    let mut message = p.note.clone().unwrap_or_default();
    if let Some(f) = &p.failure {
        message = first_line(&f.message);
        let _ = write!(text, "\n{}", f.message);
        if let Some(input) = &f.observation.input {
            let title = if case.is_some() { "the case's request" } else { "minimal request" };
            let _ = write!(text, "\n{title}:\n{}", abbreviate::json(&input.review.to_value()).0);
        }
        for c in &f.observation.calls {
            let replay = abbreviate::replay(&report.curl(&c.record));
            let _ = write!(text, "\nreproduce the {} call:\n{}", c.role, replay);
        }
    }
    TestCase {
        classname: format!("webhook-conformance.properties.{}", p.webhook),
        name: p.rule.id.to_string(),
        outcome: finding.outcome(),
        message,
        text,
    }
}

pub(crate) fn render(report: &Report) -> String {
    let mut suites: Vec<TestSuite> = Vec::new();
    // The rule catalog, per webhook.
    let summaries = report.summaries();
    for webhook in report.webhooks() {
        let mut suite = TestSuite { name: format!("rules {webhook}"), cases: Vec::new() };
        for s in summaries.iter().filter(|s| s.webhook == webhook) {
            let mut text = String::new();
            for (record, f) in s.breaches.iter().take(3) {
                let _ = writeln!(
                    text,
                    "{:?} {} [{}] uid {}",
                    f.outcome(),
                    record.case.label,
                    record.case.version(),
                    record.case.uid()
                );
                if let Some(d) = &f.detail {
                    let _ = writeln!(text, "what: {d}");
                }
                if let Some(m) = &f.apiserver_message {
                    let _ = writeln!(text, "apiserver says: {m}");
                }
                let _ = writeln!(text, "replay:\n{}\n", abbreviate::replay(&report.curl(record)));
            }
            let message =
                s.breaches.first().and_then(|(_, f)| f.detail.clone()).unwrap_or_else(|| s.rule.statement.to_string());
            suite.cases.push(TestCase {
                classname: format!("webhook-conformance.rules.{webhook}"),
                name: s.rule.id.to_string(),
                outcome: s.outcome,
                message: first_line(&message),
                text,
            });
        }
        suites.push(suite);
    }
    // Everything else, in one walk of the findings: each goes to the suite of what it judged.
    let records = report.records();
    let (mut lint, mut properties, mut coverage, mut target) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut side_effects = Vec::new();
    let mut own: Vec<Vec<&Finding>> = vec![Vec::new(); records.cases.len()];
    for f in report.findings() {
        let detail = f.detail.clone().unwrap_or_default();
        let plain = |classname: String| TestCase {
            classname,
            name: f.rule.to_string(),
            outcome: f.outcome(),
            message: first_line(&detail),
            text: detail.clone(),
        };
        match &f.subject {
            Subject::Manifest { webhook } => lint.push(plain(format!("webhook-conformance.lint.{webhook}"))),
            Subject::Sent { webhook } => coverage.push(plain(format!("webhook-conformance.coverage.{webhook}"))),
            Subject::Calls { webhook } => {
                side_effects.push(plain(format!("webhook-conformance.side-effects.{webhook}")))
            }
            Subject::Target => target.push(plain("webhook-conformance.target".into())),
            Subject::Property { index } => {
                if let Some(p) = records.properties.get(*index) {
                    properties.push(property_test(report, p, f));
                }
            }
            Subject::Case { index } => {
                if let Some(list) = own.get_mut(*index) {
                    list.push(f);
                }
            }
            _ => {}
        }
    }
    let cases: Vec<TestCase> = (0..records.cases.len()).map(|i| case_test(report, i, &own[i])).collect();
    for (name, cases) in [
        ("lint", lint),
        ("cases", cases),
        ("properties", properties),
        ("coverage", coverage),
        ("side-effects", side_effects),
    ] {
        if !cases.is_empty() {
            suites.push(TestSuite { name: name.into(), cases });
        }
    }
    if !target.is_empty() {
        let suite = TestSuite { name: "target".into(), cases: target };
        suites.insert(0, suite);
    }

    let total: usize = suites.iter().map(|s| s.cases.len()).sum();
    let failures: usize = suites.iter().flat_map(|s| &s.cases).filter(|c| c.outcome == Outcome::Fail).count();
    let mut out = String::new();
    let _ = writeln!(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    let _ = writeln!(out, "<testsuites name=\"webhook-conformance\" tests=\"{total}\" failures=\"{failures}\" errors=\"0\" time=\"{:.3}\">", report.records().duration.as_secs_f64());
    for suite in &suites {
        let n = suite.cases.len();
        let f = suite.cases.iter().filter(|c| c.outcome == Outcome::Fail).count();
        let s = suite.cases.iter().filter(|c| c.outcome == Outcome::Skip).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{n}\" failures=\"{f}\" errors=\"0\" skipped=\"{s}\">",
            escape(&suite.name)
        );
        for c in &suite.cases {
            let open = format!("    <testcase classname=\"{}\" name=\"{}\"", escape(&c.classname), escape(&c.name));
            match c.outcome {
                Outcome::Pass => {
                    let _ = writeln!(out, "{open}/>");
                }
                Outcome::Skip => {
                    let _ = writeln!(
                        out,
                        "{open}>\n      <skipped message=\"{}\"/>\n    </testcase>",
                        escape(if c.message.is_empty() { "not applicable" } else { &c.message })
                    );
                }
                Outcome::Warn => {
                    let _ = writeln!(
                        out,
                        "{open}>\n      <system-out>WARN: {}\n{}</system-out>\n    </testcase>",
                        escape(&c.message),
                        escape(&c.text)
                    );
                }
                Outcome::Fail => {
                    let _ = writeln!(
                        out,
                        "{open}>\n      <failure type=\"FAIL\" message=\"{}\">{}</failure>\n    </testcase>",
                        escape(&c.message),
                        escape(&c.text)
                    );
                }
            }
        }
        let _ = writeln!(out, "  </testsuite>");
    }
    let _ = writeln!(out, "</testsuites>");
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(escape("a<b>&\"c\"'\u{7}"), "a&lt;b&gt;&amp;&quot;c&quot;&apos;[U+0007]");
        assert_eq!(escape("line\nnext\ttab"), "line\nnext\ttab");
    }
}
