//! The report says only what is true of the run: what was not sent is not judged, every count comes
//! from the tally of requests sent, large values are abbreviated in the text (never in the JSON).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_webhook-conformance"))
}

fn reference(extra: &str) -> String {
    format!(
        "exec {} reference-webhook --cert {{cert}} --key {{key}} --port {{port}} {extra}",
        env!("CARGO_BIN_EXE_webhook-conformance")
    )
}

/// The bundled manifest and the case that the reference webhook denies, in `dir`.
fn inputs(dir: &Path) -> (PathBuf, PathBuf) {
    let manifest = dir.join("reference.yaml");
    std::fs::write(&manifest, reference_webhook::MANIFEST).unwrap();
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/pod-deny-label.yaml");
    std::fs::copy(case, cases.join("pod-deny-label.yaml")).unwrap();
    (manifest, cases)
}

/// A run's text report (stdout and stderr) and its JSON report.
struct Run {
    text: String,
    json: serde_json::Value,
    markdown: String,
    junit: String,
    /// The replayed requests a FAIL verdict kept, each file's path and bytes (see [`kept_replays`]).
    replays: Vec<(PathBuf, Vec<u8>)>,
}

/// The files of the replay directory the text report names (kept on a FAIL verdict without
/// `--artifacts`), read, and the directory removed: the tests leave nothing in the machine's
/// temporary directory, also for the runs they share.
fn kept_replays(text: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let Some(line) = text.lines().find(|l| l.starts_with("replayed requests: ")) else { return Vec::new() };
    let dir = Path::new(line.trim_start_matches("replayed requests: ").split(" (").next().unwrap());
    let files = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect();
    std::fs::remove_dir_all(dir).unwrap();
    files
}

fn run(args: &[&str], extra: &str) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let (manifest, cases) = inputs(dir.path());
    let json = dir.path().join("report.json");
    let markdown = dir.path().join("report.md");
    let junit = dir.path().join("report.xml");
    let out: Output = bin()
        .args(args)
        .arg("--junit")
        .arg(&junit)
        .arg("--report-md")
        .arg(&markdown)
        .arg("--config")
        .arg(&manifest)
        .arg("--cases")
        .arg(&cases)
        .arg("--report-json")
        .arg(&json)
        .args(["--cmd", &reference(extra)])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let json =
        serde_json::from_slice(&std::fs::read(&json).unwrap_or_default()).unwrap_or_else(|e| panic!("{e}: {text}"));
    let markdown = std::fs::read_to_string(&markdown).unwrap_or_default();
    let junit = std::fs::read_to_string(&junit).unwrap_or_default();
    let replays = kept_replays(&text);
    Run { text, json, markdown, junit, replays }
}

/// One run against a webhook that never answers (its requests stop being sent after three missed
/// deadlines), shared by the tests that read it.
fn hanging() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| run(&[], "--defect hang"))
}

#[test]
fn a_case_that_was_not_sent_says_so_and_its_expectation_is_not_judged() {
    let Run { text, json, .. } = hanging();
    let line = text.lines().find(|l| l.contains("pod-deny-label")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("→ not sent"), "{line}");
    assert!(!line.contains("FAIL"), "{line}");
    assert!(text.contains("not sent to mutate.reference.conformance.example"), "{text}");
    assert!(text.contains("missed its deadline (timeoutSeconds=5) on 3 requests in a row"), "{text}");
    assert!(!text.contains("case.expectation"), "{text}");
    let case = &json["cases"][0];
    assert_eq!(case["decision"], "not sent", "{case}");
    assert_eq!(case["findings"][0]["outcome"], "skip", "{case}");
}

#[test]
fn answers_that_were_all_unusable_are_not_called_not_denied() {
    let Run { text, .. } = hanging();
    assert!(!text.contains("no request was denied"), "{text}");
    assert!(text.contains("no answer was usable (3 sent"), "{text}");
}

/// The bundled pod case, expected to be allowed (the reference webhook denies it).
fn misjudged_case(dir: &Path) -> PathBuf {
    let (manifest, cases) = inputs(dir);
    let file = cases.join("pod-deny-label.yaml");
    let yaml = std::fs::read_to_string(&file).unwrap();
    let yaml =
        yaml.replace("decision: denied", "decision: allowed").replace("  message: conformance.example/deny\n", "");
    std::fs::write(&file, yaml).unwrap();
    manifest
}

#[test]
fn no_replay_hint_when_the_report_has_no_replay_command() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = misjudged_case(dir.path());
    let out = bin()
        .args(["--cases", "2", "--config"])
        .arg(&manifest)
        .arg("--cases")
        .arg(dir.path().join("cases"))
        .args(["--cmd", &reference("")])
        .current_dir(dir.path())
        .env("TMPDIR", dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("verdict: FAIL — case.expectation"), "{text}");
    assert!(!text.contains("curl "), "{text}");
    assert!(!text.contains("replay commands"), "{text}");
}

/// A run against a webhook that breaks `response.uid` on its answers, generated ones included.
fn no_uid() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| run(&["--cases", "4", "--seed", "7"], "--defect no-uid"))
}

/// The number just before `suffix` in `line`.
fn number_before(line: &str, suffix: &str) -> u64 {
    let head = &line[..line.find(suffix).unwrap_or_else(|| panic!("{suffix:?} in {line:?}"))];
    let digits: String = head.trim_end().chars().rev().take_while(char::is_ascii_digit).collect();
    digits.chars().rev().collect::<String>().parse().unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

#[test]
fn the_contract_sweep_line_says_when_generated_requests_broke_a_rule() {
    let Run { text, json, .. } = no_uid();
    assert!(!text.contains("every exchange rule held"), "{text}");
    let line =
        text.lines().find(|l| l.contains("were held to every exchange rule")).unwrap_or_else(|| panic!("{text}"));
    let judged = number_before(line, " of the property step's requests");
    let broke = number_before(line, " broke one");
    assert!(broke > 0 && broke <= judged, "{line}");
    assert_eq!(json["contract_cases"], judged, "{line}");
    assert_eq!(json["contract_breaches"], broke, "{line}");
}

#[test]
fn every_request_count_of_a_report_comes_from_the_tally_of_requests_sent() {
    for Run { text, json, .. } in [hanging(), no_uid()] {
        let coverage = json["coverage"].as_object().unwrap();
        let sent: u64 =
            coverage.values().flat_map(|rows| rows.as_array().unwrap()).map(|r| r["sent"].as_u64().unwrap()).sum();
        assert_eq!(json["requests"], sent, "{text}");
        let header = text.lines().find(|l| l.starts_with("webhook-conformance: ")).unwrap();
        assert_eq!(number_before(header, " requests"), sent, "{header}");
        let per_webhook: u64 =
            text.lines().filter(|l| l.starts_with("  requests: ")).map(|l| number_before(l, "sent —")).sum();
        assert_eq!(per_webhook, sent, "{text}");
        if let Some(properties) = text.lines().find(|l| l.starts_with("== properties")) {
            assert!(number_before(properties, " requests") <= sent, "{properties}");
        }
    }
}

#[test]
fn fuzz_counts_the_requests_it_sent() {
    let dir = tempfile::tempdir().unwrap();
    let (manifest, _) = inputs(dir.path());
    let json = dir.path().join("report.json");
    let out = bin()
        .args(["fuzz", "--cases", "4", "--seed", "1", "--config"])
        .arg(&manifest)
        .arg("--report-json")
        .arg(&json)
        .args(["--cmd", &reference("--defect hang")])
        .current_dir(dir.path())
        .env("TMPDIR", dir.path())
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let line = text
        .lines()
        .rev()
        .find(|l| l.starts_with("fuzz: ") && l.contains("requests sent"))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(json["requests"], number_before(line, "requests sent"), "{line}\n{text}");
    assert_eq!(number_before(line, "generated cases judged"), 0, "{line}");
}

#[test]
fn a_property_failing_on_a_users_case_does_not_call_it_generated() {
    let Run { text, markdown, junit, .. } = {
        static RUN: OnceLock<Run> = OnceLock::new();
        RUN.get_or_init(|| run(&["--cases", "4", "--seed", "7"], "--defect sidecar-every-call"))
    };
    let line = text
        .lines()
        .find(|l| l.contains("property.idempotent") && l.contains("mutate.reference"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("on case pod-deny-label"), "{line}");
    assert!(!line.contains("generated"), "{line}");
    assert!(!text.contains("minimal request (case pod-deny-label"), "{text}");
    assert!(text.contains("the case's request (case pod-deny-label"), "{text}");
    assert!(!text.contains("in the minimal request's object"), "{text}");
    for (what, report) in [("Markdown", markdown.clone()), ("JUnit", junit.replace("&apos;", "'"))] {
        assert!(report.contains("1 of the run's cases"), "{what}: {report}");
        assert!(report.contains("the case's request"), "{what}: {report}");
        assert!(!report.contains("minimal request"), "{what}: {report}");
    }
}

#[test]
fn the_markdown_coverage_counts_the_requests_sent_to_each_webhook() {
    for Run { json, markdown, .. } in [hanging(), no_uid()] {
        let coverage = json["coverage"].as_object().unwrap();
        for (webhook, rows) in coverage {
            let sent: u64 = rows.as_array().unwrap().iter().map(|r| r["sent"].as_u64().unwrap()).sum();
            let row = markdown
                .lines()
                .find(|l| l.starts_with(&format!("| `{webhook}` |")))
                .unwrap_or_else(|| panic!("{webhook}: {markdown}"));
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            assert_eq!(cells[2], sent.to_string(), "{row}\n{markdown}");
        }
        assert!(markdown.contains("| requests sent |"), "{markdown}");
    }
}

#[test]
fn a_rules_counts_tell_requests_not_sent_from_requests_it_does_not_apply_to() {
    let Run { text, json, .. } = hanging();
    let line = text.lines().find(|l| l.trim_start().starts_with("3 fail, ")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("0 not applicable"), "{line}");
    let not_sent = number_before(line, " not sent;");
    let unsent: u64 = json["not_sent"].as_array().unwrap().iter().map(|u| u["requests"].as_u64().unwrap()).sum();
    assert!(not_sent > 0 && not_sent <= unsent, "{line}");
}

#[test]
fn the_rules_that_hold_are_one_line_per_webhook_and_a_failing_one_is_in_full() {
    let Run { text, .. } = no_uid();
    let fail = text.lines().position(|l| l.starts_with("  FAIL  response.uid")).unwrap_or_else(|| panic!("{text}"));
    assert!(text.lines().nth(fail + 1).is_some_and(|l| l.contains(" fail, ")), "{text}");
    assert!(!text.contains("pass  transport.connect"), "{text}");
    let held: Vec<&str> = text.lines().filter(|l| l.contains("exchange rules held on every request")).collect();
    assert_eq!(held.len(), 2, "one line per webhook: {text}");
    assert!(held.iter().all(|l| l.ends_with("(-v lists each)")), "{held:?}");

    let verbose = run(&["--cases", "4", "--seed", "7", "-v"], "--defect no-uid");
    assert!(verbose.text.contains("  pass  transport.connect"), "{}", verbose.text);
    assert!(verbose.text.contains("  FAIL  response.uid"), "{}", verbose.text);
    assert!(!verbose.text.contains("exchange rules held on every request"), "{}", verbose.text);
}

#[test]
fn a_webhook_whose_every_answer_fails_gets_a_report_a_person_can_read() {
    let Run { text, json, replays, .. } = no_uid();
    assert_eq!(json["verdict"], "fail");
    let lines = text.lines().count();
    assert!(lines < 200, "{lines} lines:\n{text}");
    assert!(text.len() < 64 * 1024, "{} bytes", text.len());
    // The replays read the whole requests from files in a directory the report names, kept on FAIL
    // (read by `run`, which removes the directory).
    assert!(text.lines().any(|l| l.starts_with("replayed requests: ")), "{text}");
    assert!(!replays.is_empty(), "{text}");
    for (file, bytes) in replays {
        assert!(
            text.contains(&format!("--data-binary '@{}'", file.display())),
            "{} not replayed: {text}",
            file.display()
        );
        let review: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        let uid = review["request"]["uid"].as_str().unwrap();
        assert!(file.to_string_lossy().contains(uid), "{}", file.display());
    }
}

#[test]
fn a_passing_run_keeps_no_replay_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin().env("TMPDIR", dir.path()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(!text.contains("replayed requests:"), "{text}");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}
