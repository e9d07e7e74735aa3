//! The report for people: grouped by rule, what broke, on which request, what the apiserver would
//! say, and a command that replays it.

use std::fmt::Write;

use super::{Report, TextOptions};
use crate::client::Transport;
use crate::run::Counts;
use crate::text::snippet;
use crate::verdict::{Finding, Outcome, Subject};

const MAX_EXAMPLES: usize = 3;

/// One line for the exchange rules of a webhook that held (or did not apply), naming the ones that
/// did not apply; `-v` lists each.
fn render_held(mine: &[&super::RuleSummary], out: &mut String) {
    let held = mine.iter().filter(|s| s.outcome == Outcome::Pass).count();
    let idle: Vec<&str> = mine.iter().filter(|s| s.outcome == Outcome::Skip).map(|s| s.rule.id).collect();
    if held == 0 && idle.is_empty() {
        return;
    }
    let _ = write!(out, "  pass  {held} exchange rules held on every request they judged");
    if !idle.is_empty() {
        let _ = write!(out, "; {} applied to none ({})", idle.len(), idle.join(", "));
    }
    let _ = writeln!(out, " (-v lists each)");
}

/// The text report; `verbose` lists the exchange rules that held one by one, where by default they
/// are one line per webhook.
pub(crate) fn render(report: &Report, options: &TextOptions) -> String {
    let verbose = options.verbose;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "webhook-conformance: {} ({} requests sent in {:.2} s)",
        report.records().target.description,
        report.requests(),
        report.records().duration.as_secs_f64()
    );
    for f in report.findings().iter().filter(|f| f.subject == Subject::Target && f.is_breach()) {
        let _ = writeln!(out, "{} {}: {}", f.rule, f.outcome().tag(), f.detail.as_deref().unwrap_or_default());
    }
    for note in &report.records().target.notes {
        let _ = writeln!(out, "note: {note}");
    }
    for u in &report.records().unsent {
        let _ = writeln!(out, "not sent: {} request(s) to {}: {}", u.requests, u.webhook, u.why);
    }
    let summaries = report.summaries();
    for webhook in report.webhooks() {
        let mine: Vec<_> = summaries.iter().filter(|s| s.webhook == webhook).collect();
        let coverage = report.coverage().get(&webhook);
        let sent = Subject::Sent { webhook: webhook.clone() };
        let calls = Subject::Calls { webhook: webhook.clone() };
        let records = report.records();
        let reach: Vec<_> = records.findings_about(&sent).chain(records.findings_about(&calls)).collect();
        if mine.is_empty() && coverage.is_none() && reach.is_empty() {
            continue;
        }
        let kind = report
            .records()
            .webhooks
            .iter()
            .find(|w| w.name == webhook)
            .map(|w| w.kind.to_string())
            .unwrap_or_default();
        let _ = writeln!(out, "\n== {kind} webhook {webhook}");
        render_coverage(coverage, &reach, &mut out);
        // Requests the breaker held back: every rule skips them, and they were never answered.
        let unsent = report.exchanges().iter().filter(|x| x.webhook.name == webhook && !x.sent()).count();
        if !verbose {
            render_held(&mine, &mut out);
        }
        for s in mine.iter().filter(|s| verbose || matches!(s.outcome, Outcome::Fail | Outcome::Warn)) {
            let n = |o: Outcome| s.counts.get(&o).copied().unwrap_or(0);
            let tag = match s.outcome {
                Outcome::Fail => "FAIL",
                Outcome::Warn => "WARN",
                Outcome::Pass => "pass",
                Outcome::Skip => "skip",
            };
            let _ = writeln!(out, "  {tag:4}  {:26} {}", s.rule.id, s.rule.statement);
            if matches!(s.outcome, Outcome::Fail | Outcome::Warn) {
                let _ = writeln!(
                    out,
                    "        {} fail, {} warn, {} pass, {} not applicable{}; source: {}",
                    n(Outcome::Fail),
                    n(Outcome::Warn),
                    n(Outcome::Pass),
                    n(Outcome::Skip).saturating_sub(unsent),
                    if unsent > 0 { format!(", {unsent} not sent") } else { String::new() },
                    s.rule.source
                );
                for (record, f) in s.breaches.iter().take(MAX_EXAMPLES) {
                    let _ = writeln!(
                        out,
                        "        - {} {} [{}] uid {}",
                        if f.outcome() == Outcome::Fail { "FAIL" } else { "WARN" },
                        record.case.label,
                        record.case.version(),
                        record.case.uid()
                    );
                    if let Some(d) = &f.detail {
                        let _ = writeln!(out, "          what: {d}");
                    }
                    // A calling error under failurePolicy Ignore lets the request through (a
                    // refusal after mutation does not): kubectl prints nothing, nobody is stuck.
                    let ignored =
                        record.webhook.failure_policy.as_deref() == Some("Ignore") && !f.rule.starts_with("object.");
                    let refused = f.outcome() == Outcome::Fail && !ignored;
                    if let Some(m) = &f.apiserver_message {
                        let _ = writeln!(out, "          apiserver says: {m}");
                        if let Some(line) = crate::checks::kubectl_internal_error(m).filter(|_| refused) {
                            let _ = writeln!(out, "          kubectl prints: {line}");
                        }
                    }
                    // A refused controller CREATE leaves the controller stuck.
                    if let Some(stuck) = crate::checks::stuck_controller(&record.case).filter(|_| refused) {
                        let _ = writeln!(out, "          in a cluster: {stuck}");
                    }
                    match &record.transport {
                        Transport::Answered(a) => {
                            let _ = writeln!(
                                out,
                                "          answer: HTTP {} {} ({}), body: {}",
                                a.status,
                                a.content_type.as_deref().unwrap_or("no Content-Type"),
                                a.http_version,
                                snippet(&String::from_utf8_lossy(&a.body))
                            );
                        }
                        Transport::Failed(t) => {
                            let _ = writeln!(
                                out,
                                "          answer: none ({:?} after {:.2} s)",
                                t.kind,
                                t.elapsed.as_secs_f64()
                            );
                        }
                    }
                    let replay = report.replay(record, options);
                    let _ = writeln!(out, "          replay:\n{}", indent(&replay, 12));
                }
                if s.breaches.len() > MAX_EXAMPLES {
                    let _ = writeln!(out, "        … and {} more (see --report-json)", s.breaches.len() - MAX_EXAMPLES);
                }
            }
        }
    }
    render_lint_and_cases(report, &mut out);
    out.push_str(&super::property::render(report, options));
    if report.verdict() == crate::verdict::Verdict::Fail || !report.records().target.notes.is_empty() {
        if let Some(log) = report.records().target.log_tail.as_deref().filter(|l| !l.trim().is_empty()) {
            let _ = writeln!(out, "\ntarget output (last lines):\n{}", indent(&super::abbreviate::log(log), 2));
        }
    }
    let failed = report.failed_rules();
    let warned = report.warned_rules();
    let _ = writeln!(out);
    match report.verdict() {
        crate::verdict::Verdict::Pass => {
            let _ = writeln!(
                out,
                "verdict: PASS — no rule FAILs{}",
                if warned.is_empty() { String::new() } else { format!("; WARN: {}", warned.join(", ")) }
            );
        }
        crate::verdict::Verdict::Fail => {
            let _ = writeln!(
                out,
                "verdict: FAIL — {}{}",
                failed.join(", "),
                if warned.is_empty() { String::new() } else { format!("; WARN: {}", warned.join(", ")) }
            );
        }
    }
    // The replay commands printed above: a breach's examples and a failing property's calls.
    let replays =
        summaries.iter().any(|s| matches!(s.outcome, Outcome::Fail | Outcome::Warn) && !s.breaches.is_empty())
            || report.properties().iter().any(|p| p.failure.as_ref().is_some_and(|f| !f.observation.calls.is_empty()));
    if report.records().target.ca_file.is_none() && replays {
        let _ = writeln!(
            out,
            "(the replay commands trust ca.pem: the generated CA was temporary; run with --tls-dir DIR to keep it)"
        );
    }
    out
}

fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    text.lines().map(|l| format!("{pad}{l}")).collect::<Vec<_>>().join("\n")
}

fn tag(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Fail => "FAIL",
        Outcome::Warn => "WARN",
        Outcome::Pass => "pass",
        Outcome::Skip => "skip",
    }
}

/// What was sent to one webhook, how it was answered, and `coverage.requests`.
fn render_coverage(
    coverage: Option<&std::collections::BTreeMap<String, Counts>>,
    reach: &[&Finding],
    out: &mut String,
) {
    for f in reach.iter().filter(|f| f.is_breach()) {
        let _ = writeln!(out, "  {:4}  {:26} {}", f.outcome().tag(), f.rule, f.detail.as_deref().unwrap_or_default());
    }
    let Some(coverage) = coverage else { return };
    let total = coverage.values().fold(Counts::default(), |a, c| a.plus(*c));
    let _ = writeln!(
        out,
        "  requests: {} sent — {} allowed, {} patched, {} denied, {} without a usable answer",
        total.sent, total.allowed, total.patched, total.denied, total.unusable
    );
    for (what, c) in coverage {
        let _ = writeln!(
            out,
            "        {what:40} {:>6}  ({} allowed, {} patched, {} denied, {} unusable)",
            c.sent, c.allowed, c.patched, c.denied, c.unusable
        );
    }
    let usable = total.allowed + total.patched;
    if total.sent > 0 && usable == 0 && total.denied == 0 {
        let _ = writeln!(
            out,
            "  note: no answer was usable ({} sent, none answered as the apiserver requires: see the FAIL rules), so it is not known what it allows or denies",
            total.sent
        );
    } else if total.sent > 0 && total.denied == 0 {
        let unusable = if total.unusable > 0 {
            format!(" ({} answer(s) were unusable, so whether those were denials is not known)", total.unusable)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  note: no usable answer was a denial{unusable}, so its deny paths (if it has any) were not reached: write cases (cases/README.md) for what it must refuse"
        );
    }
}

/// The manifest lint and the data-driven cases, after the rule catalog.
fn render_lint_and_cases(report: &Report, out: &mut String) {
    let lint = report.manifest();
    if !lint.is_empty() {
        let _ = writeln!(out, "\n== manifest lint");
        let passed = lint.iter().filter(|f| f.outcome() == Outcome::Pass).count();
        for f in lint.iter().filter(|f| f.outcome() != Outcome::Pass) {
            let Subject::Manifest { webhook } = &f.subject else { continue };
            let statement = crate::rules::rule(f.rule).map(|r| r.statement).unwrap_or_default();
            if f.outcome() == Outcome::Skip {
                // Only these skips say something worth reading: the caBundle was not checked, or a
                // matchCondition could not be evaluated.
                let unevaluated = f.rule == crate::rules::CONDITION_ERRORS
                    && f.detail.as_deref().is_some_and(|d| d.contains("cannot evaluate"));
                if f.rule != crate::rules::CA_BUNDLE && !unevaluated {
                    continue;
                }
                let _ = writeln!(out, "  skip  {:26} {}: {}", f.rule, webhook, f.detail.as_deref().unwrap_or_default());
                continue;
            }
            // The headline is what was found; the rule's statement (the ideal) follows as the rule.
            let detail = f.detail.as_deref().unwrap_or(statement);
            let mut lines = detail.lines();
            let _ = writeln!(
                out,
                "  {:4}  {:26} {}: {}",
                f.outcome().tag(),
                f.rule,
                webhook,
                lines.next().unwrap_or_default()
            );
            for more in lines {
                let _ = writeln!(out, "          {more}");
            }
            if let Some(at) =
                report.records().webhooks.iter().find(|w| &w.name == webhook).and_then(|w| w.location.as_ref())
            {
                let _ = writeln!(out, "          at: {}:{}", at.file.display(), at.line);
            }
            if let Some(says) = &f.apiserver_message {
                let _ = writeln!(out, "          apiserver says: {says}");
            }
            let _ = writeln!(out, "          rule: {statement}");
        }
        let skipped = lint.iter().filter(|f| f.outcome() == Outcome::Skip).count();
        let _ = writeln!(out, "  ({passed} lint checks pass, {skipped} not applicable)");
    }
    if !report.cases().is_empty() {
        let _ = writeln!(out, "\n== cases ({})", report.cases().len());
        let records = report.records();
        for (index, c) in report.cases().iter().enumerate() {
            let _ = writeln!(
                out,
                "  {:4}  {:26} {} → {} ({})",
                tag(records.case_outcome(index)),
                c.name,
                c.what,
                c.decision.as_str(),
                c.file.display()
            );
            if let crate::cases::Decision::NotSent(w, why) = &c.decision {
                let _ = writeln!(out, "        not sent to {w}, so its expect: was not judged: {why}");
            }
            for f in records.findings_about(&Subject::Case { index }).filter(|f| f.is_breach()) {
                let _ = writeln!(
                    out,
                    "        {} {}:\n{}",
                    tag(f.outcome()),
                    f.rule,
                    indent(f.detail.as_deref().unwrap_or_default(), 10)
                );
            }
            for (record, findings) in records.case_calls(index) {
                for f in findings.into_iter().filter(|f| f.is_breach()) {
                    let _ = writeln!(
                        out,
                        "        {} {} on {}: {}",
                        tag(f.outcome()),
                        f.rule,
                        record.webhook.name,
                        f.detail.as_deref().unwrap_or_default()
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::render;
    use crate::client::{HttpAnswer, Transport};
    use crate::config::Manifest;
    use crate::exchange::{Exchange, ExchangeRecord, Stages};
    use crate::report::Report;
    use crate::requests::generated::LARGE_ANNOTATION;
    use crate::run::{Records, TargetRecord};

    const MANIFEST: &str = "\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: demo}
webhooks:
  - name: pods.policy.example.com
    admissionReviewVersions: [v1]
    sideEffects: None
    timeoutSeconds: 30
    clientConfig: {service: {name: hook, namespace: policy, path: /validate}}
    rules: [{operations: [CREATE], apiGroups: [\"\"], apiVersions: [v1], resources: [pods]}]
";

    /// The text report of the lint of `MANIFEST` alone.
    fn lint_report() -> String {
        let manifest = Manifest::parse(Path::new("deploy/webhook.yaml"), MANIFEST).unwrap();
        let records = Records {
            findings: crate::run::lint(&manifest.webhooks),
            webhooks: manifest.webhooks.into_iter().map(std::sync::Arc::new).collect(),
            ..Records::default()
        };
        render(&Report::from(records), &super::TextOptions::default())
    }

    /// A report of one request to the webhook of `MANIFEST` carrying a 200 KiB annotation, answered
    /// with another uid (a `response.uid` FAIL), by a target that wrote a 63 KB line.
    fn large_report() -> Report {
        let manifest = Manifest::parse(Path::new("deploy/webhook.yaml"), MANIFEST).unwrap();
        let webhook = std::sync::Arc::new(manifest.webhooks[0].clone());
        let planned = crate::requests::plan_in(&webhook, &crate::requests::ApiResources::built_in());
        let case = planned.into_iter().find(|c| c.object().is_object()).expect("a request with an object");
        let mut object = case.object().clone();
        object["metadata"]["annotations"] = serde_json::json!({LARGE_ANNOTATION: "x".repeat(204_800)});
        let case = case.with_object(object);
        let body = br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"another","allowed":true}}"#;
        let transport = Transport::Answered(HttpAnswer {
            status: 200,
            content_type: Some("application/json".into()),
            body: body.to_vec(),
            http_version: "HTTP/1.1".into(),
            elapsed: std::time::Duration::ZERO,
        });
        let url = "https://hook.policy.svc:443/validate?timeout=30s".to_string();
        let stages = Stages::default();
        let view = Exchange::kept(&webhook, &case, &transport, &url, &stages);
        let findings = crate::run::evaluate(&view);
        let admission = view.admission(&findings);
        drop(view);
        let record = ExchangeRecord { webhook: webhook.clone(), case, url, transport, findings, admission, stages };
        let mut records = Records {
            webhooks: vec![webhook],
            target: TargetRecord {
                notes: vec!["the target exited during the run".into()],
                log_tail: Some(format!("started\n{}\nstopped", "y".repeat(63_000))),
                ..TargetRecord::default()
            },
            ..Records::default()
        };
        records.add_exchange(record);
        Report::from(records)
    }

    #[test]
    fn large_values_are_abbreviated_in_the_text_and_whole_in_the_json() {
        let report = large_report();
        assert_eq!(report.failed_rules(), ["response.uid"]);
        let text = render(&report, &super::TextOptions::default());
        assert!(text.len() < 20_000, "{} bytes of text for one finding", text.len());
        assert!(text.contains(&format!("\"{}…\" (204800 bytes)", "x".repeat(40))), "{text}");
        assert!(text.contains("abbreviated here: the JSON report (--report-json) holds the whole command"), "{text}");
        // The target's long line is cut, and the report says so.
        assert!(text.contains("… (63000 bytes)") && text.contains("1 line(s) longer than 500 bytes cut"), "{text}");
        assert!(text.contains("  stopped"), "{text}");
        let json = report.to_json().to_string();
        assert!(json.contains(&"x".repeat(204_800)), "the JSON report keeps the request whole");
    }

    #[test]
    fn large_values_are_abbreviated_in_junit_and_markdown() {
        let report = large_report();
        let short = format!("{}…", "x".repeat(40));
        for (what, text) in [("JUnit", report.to_junit()), ("Markdown", report.to_markdown())] {
            assert!(text.len() < 20_000, "{what}: {} bytes for one finding", text.len());
            assert!(text.contains(&short) && text.contains(" (204800 bytes)"), "{what}: {text}");
        }
    }

    #[test]
    fn a_lint_headline_says_what_was_found_not_the_rule() {
        let text = lint_report();
        let line = |rule: &str| text.lines().find(|l| l.contains(rule)).unwrap_or_else(|| panic!("{rule}: {text}"));
        let timeout = line("manifest.timeout");
        assert!(timeout.contains("WARN") && timeout.contains("timeoutSeconds is 30"), "{timeout}");
        assert!(!timeout.contains("10 or less"), "the headline is the finding, not the statement: {timeout}");
        let policy = line("manifest.failure-policy-set");
        assert!(policy.contains("failurePolicy is not set"), "{policy}");
        assert!(!policy.contains("is set explicitly"), "{policy}");
        // The statement is still there, marked as the rule, and the webhook's line in the manifest.
        assert!(text.contains("rule: timeoutSeconds is 10 or less"), "{text}");
        assert!(text.contains("at: deploy/webhook.yaml:5"), "{text}");
    }
}
