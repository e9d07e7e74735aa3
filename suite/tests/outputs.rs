//! The reports for pull requests and code scanning, as CI reads them: `--report-md` parses as
//! Markdown with the webhook's words shown as text, `--sarif` validates against the SARIF 2.1.0
//! schema (vendored in tests/data/sarif), `--github-annotations` are well-formed workflow commands
//! pointing at the manifest's lines and the case files; on a PASS run (with WARNs), a FAIL run and a
//! failing fuzz campaign, and for the `merge` of a sharded campaign.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use serde_json::Value;

#[path = "support/cli.rs"]
mod cli_support;
use cli_support::bin;

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// The files a run wrote.
struct Outputs {
    out: Output,
    json: Value,
    markdown: String,
    sarif: Value,
    /// The `::` lines of stdout.
    annotations: Vec<String>,
}

/// Run the CLI with `args` plus every output, in `dir`.
fn run_with_outputs(dir: &Path, name: &str, args: &[&str]) -> Outputs {
    let (json, md, sarif) =
        (dir.join(format!("{name}.json")), dir.join(format!("{name}.md")), dir.join(format!("{name}.sarif")));
    let out = bin()
        .args(args)
        .arg("--report-json")
        .arg(&json)
        .arg("--report-md")
        .arg(&md)
        .arg("--sarif")
        .arg(&sarif)
        .arg("--github-annotations")
        .env_remove("GITHUB_WORKSPACE")
        .output()
        .expect("the CLI runs");
    let read =
        |p: &PathBuf| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}\n{}", p.display(), text(&out)));
    Outputs {
        json: serde_json::from_str(&read(&json)).unwrap(),
        markdown: read(&md),
        sarif: serde_json::from_str(&read(&sarif)).unwrap(),
        annotations: String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.starts_with("::"))
            .map(String::from)
            .collect(),
        out,
    }
}

// ---- Markdown ----

/// What a Markdown document holds, as GitHub's CommonMark+GFM parser sees it.
#[derive(Default, Debug)]
struct Markdown {
    headings: Vec<String>,
    /// Each table: its rows (the header first), each row its cells' text.
    tables: Vec<Vec<Vec<String>>>,
    /// (language, content) of each fenced block.
    code: Vec<(String, String)>,
    /// Raw HTML the document holds.
    html: Vec<String>,
    /// All text, inline code included.
    text: String,
}

fn parse_markdown(md: &str) -> Markdown {
    let mut m = Markdown::default();
    let (mut heading, mut code, mut cell): (Option<String>, Option<(String, String)>, Option<String>) =
        (None, None, None);
    for event in Parser::new_ext(md, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => m.headings.push(heading.take().unwrap_or_default()),
            Event::Start(Tag::Table(_)) => m.tables.push(Vec::new()),
            Event::Start(Tag::TableHead | Tag::TableRow) => m.tables.last_mut().unwrap().push(Vec::new()),
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => {
                let row = m.tables.last_mut().unwrap().last_mut().unwrap();
                row.push(cell.take().unwrap_or_default());
            }
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang))) => code = Some((lang.to_string(), String::new())),
            Event::End(TagEnd::CodeBlock) => m.code.push(code.take().expect("a fenced block")),
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, c)) = code.as_mut() {
                    c.push_str(&t);
                    continue;
                }
                for open in [heading.as_mut(), cell.as_mut()].into_iter().flatten() {
                    open.push_str(&t);
                }
                m.text.push_str(&t);
                m.text.push(' ');
            }
            Event::Html(h) | Event::InlineHtml(h) => m.html.push(h.to_string()),
            _ => {}
        }
    }
    m
}

/// The Markdown parses; its only HTML is the report's own folding; every table row has the header's
/// cells; the verdict heading says `verdict`.
fn check_markdown(md: &str, verdict: &str) -> Markdown {
    let m = parse_markdown(md);
    assert!(
        m.headings.first().is_some_and(|h| h.ends_with(&format!("webhook-conformance: {verdict}"))),
        "{:?}",
        m.headings
    );
    for html in &m.html {
        let stripped =
            ["<details>", "</details>", "<summary>", "</summary>"].iter().fold(html.clone(), |h, t| h.replace(t, ""));
        assert!(!stripped.contains('<'), "HTML that is not the report's own folding: {html:?}");
    }
    for table in &m.tables {
        let header = table[0].len();
        for row in table {
            assert_eq!(row.len(), header, "a row with another number of cells: {row:?}");
        }
    }
    m
}

// ---- SARIF ----

fn sarif_errors(log: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(include_str!("data/sarif/sarif-schema-2.1.0.json")).unwrap();
    let validator = jsonschema::options().should_validate_formats(true).build(&schema).expect("the schema compiles");
    validator.iter_errors(log).map(|e| format!("{} at {}", e, e.instance_path())).collect()
}

/// Valid against the schema, every result's rule declared, every result located in a file (as
/// code scanning requires).
fn check_sarif(log: &Value) -> Vec<Value> {
    let errors = sarif_errors(log);
    assert!(errors.is_empty(), "SARIF schema violations: {errors:#?}");
    let run = &log["runs"][0];
    let rules: Vec<&str> =
        run["tool"]["driver"]["rules"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    let results = run["results"].as_array().unwrap().clone();
    for r in &results {
        let id = r["ruleId"].as_str().unwrap();
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index], id);
        assert!(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].is_string(), "{r}");
    }
    results
}

#[test]
fn the_sarif_check_catches_what_the_schema_forbids() {
    let good = serde_json::json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [
        {"ruleId": "r", "level": "error", "message": {"text": "t"}}]}]});
    assert!(sarif_errors(&good).is_empty(), "{:?}", sarif_errors(&good));
    for (path, bad) in [
        ("/runs/0/results/0/level", serde_json::json!("fatal")),
        ("/runs/0/results/0/message", serde_json::json!("not an object")),
        ("/version", serde_json::json!("2.0.0")),
        ("/runs/0/tool/driver/informationUri", serde_json::json!("not a uri")),
    ] {
        let mut log = good.clone();
        let (parent, key) = path.rsplit_once('/').unwrap();
        let parent = if parent.is_empty() { &mut log } else { log.pointer_mut(parent).unwrap() };
        parent.as_object_mut().unwrap().insert(key.to_string(), bad);
        assert!(!sarif_errors(&log).is_empty(), "{path} accepted");
    }
}

// ---- Annotations ----

/// (level, properties, message unescaped) of one workflow command, or why it is not one.
fn parse_annotation(line: &str) -> Result<(String, BTreeMap<String, String>, String), String> {
    let rest = line.strip_prefix("::").ok_or("no leading ::")?;
    let (head, message) = rest.split_once("::").ok_or("no :: before the message")?;
    let (level, props) = head.split_once(' ').unwrap_or((head, ""));
    if !["error", "warning", "notice"].contains(&level) {
        return Err(format!("unknown command {level}"));
    }
    let unescape = |s: &str| {
        s.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")
    };
    let mut properties = BTreeMap::new();
    for p in props.split(',').filter(|p| !p.is_empty()) {
        let (k, v) = p.split_once('=').ok_or(format!("property without '=': {p}"))?;
        if !["file", "line", "endLine", "col", "endColumn", "title"].contains(&k) {
            return Err(format!("unknown property {k}"));
        }
        if v.contains(':') {
            return Err(format!("an unescaped ':' in {k}"));
        }
        properties.insert(k.to_string(), unescape(v));
    }
    if message.contains('\n') || message.contains('\r') {
        return Err("a raw line break in the message".into());
    }
    Ok((level.to_string(), properties, unescape(message)))
}

fn check_annotations(lines: &[String]) -> Vec<(String, BTreeMap<String, String>, String)> {
    lines.iter().map(|l| parse_annotation(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

// ---- The runs ----

#[test]
fn a_passing_run_with_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("webhook.yaml");
    let slow = reference_webhook::MANIFEST.replacen("timeoutSeconds: 5", "timeoutSeconds: 30", 1);
    std::fs::write(&manifest, &slow).unwrap();
    let o = run_with_outputs(dir.path(), "pass", &["--config", manifest.to_str().unwrap(), "--cases", "../cases"]);
    assert_eq!(o.out.status.code(), Some(0), "{}", text(&o.out));
    assert_eq!(o.json["verdict"], "pass");

    let m = check_markdown(&o.markdown, "PASS");
    assert!(m.text.contains("timeoutSeconds is 30"), "{}", o.markdown);
    let coverage = m.tables.iter().find(|t| t[0][0] == "webhook").expect("a coverage table");
    let mutate = coverage.iter().find(|r| r[0] == "mutate.reference.conformance.example").unwrap();
    assert!(mutate[1].parse::<u64>().unwrap() > 10, "requests sent: {mutate:?}");
    assert!(m.text.contains("data-driven cases"), "{}", o.markdown);

    let results = check_sarif(&o.sarif);
    assert_eq!(results.len(), 1, "one WARN: {results:#?}");
    assert_eq!(results[0]["level"], "warning");
    assert_eq!(results[0]["ruleId"], "manifest.timeout");

    let annotations = check_annotations(&o.annotations);
    assert_eq!(annotations.len(), 1, "{:?}", o.annotations);
    let (level, props, message) = &annotations[0];
    assert_eq!(level, "warning");
    assert_eq!(props["file"], manifest.display().to_string());
    let line: usize = props["line"].parse().unwrap();
    assert_eq!(slow.lines().nth(line - 1).unwrap().trim(), "- name: mutate.reference.conformance.example");
    assert!(message.starts_with("timeoutSeconds is 30"), "{message}");
    let location = &results[0]["locations"][0]["physicalLocation"];
    assert_eq!(location["region"]["startLine"], line);
}

#[test]
fn a_failing_run_stays_valid_and_shows_the_webhooks_words_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let o = run_with_outputs(dir.path(), "fail", &["--reference-defect", "garbage-body"]);
    assert_eq!(o.out.status.code(), Some(1), "{}", text(&o.out));
    assert_eq!(o.json["verdict"], "fail");

    let m = check_markdown(&o.markdown, "FAIL");
    // The webhook's answer `<html>oops</html>` is text in a table cell, never markup.
    let rows: Vec<&Vec<String>> =
        m.tables.iter().flatten().filter(|r| r.get(1).is_some_and(|c| c == "review.body")).collect();
    assert!(!rows.is_empty(), "{}", o.markdown);
    assert!(
        rows.iter().all(|r| r[3].contains("body is not a JSON object") && r[3].contains("<html>oops<")),
        "{rows:?}"
    );
    assert!(m.html.iter().all(|h| !h.contains("oops")), "{:?}", m.html);
    // The replay is in a code block, exactly as the JSON report has it.
    let breach = o.json["results"].as_array().unwrap().iter().find(|r| r["rule"] == "review.body").unwrap();
    let curl = breach["breaches"][0]["curl"].as_str().unwrap();
    assert!(m.code.iter().any(|(lang, c)| lang == "sh" && c.trim_end() == curl), "{}", o.markdown);
    assert!(m.headings.iter().any(|h| h.contains("review.body")), "{:?}", m.headings);

    let results = check_sarif(&o.sarif);
    assert!(results.iter().any(|r| r["ruleId"] == "review.body" && r["level"] == "error"));
    let case = results.iter().find(|r| r["ruleId"] == "case.expectation").expect("the cases fail too");
    let uri = case["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap();
    assert!(uri.ends_with(".yaml") && uri.contains("/cases/"), "{uri}");

    let annotations = check_annotations(&o.annotations);
    // FAILs are errors, WARNs (the body is not JSON: review.json; other versions) warnings.
    assert!(annotations.iter().all(|(level, p, _)| {
        let title = &p["title"];
        (level == "error" && title.contains(" FAIL")) || (level == "warning" && title.contains(" WARN"))
    }));
    let body = annotations.iter().find(|(_, p, _)| p["title"].starts_with("review.body FAIL")).unwrap();
    assert!(!body.1.contains_key("file"), "an answer's finding has no file: {body:?}");
    assert!(body.2.contains("The apiserver says: "), "{}", body.2);
    let case = annotations.iter().find(|(_, p, _)| p["title"].starts_with("case.expectation FAIL")).unwrap();
    assert!(Path::new(&case.1["file"]).is_file() && case.1["line"] == "1", "{case:?}");
}

#[test]
fn a_failing_property_shows_its_minimal_request_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "fuzz",
        "--reference-defect",
        "sidecar-every-call",
        "--property",
        "property.idempotent",
        "--cases",
        "16",
        "--seed",
        "3",
        "--no-regressions",
    ];
    let o = run_with_outputs(dir.path(), "fuzz", &args);
    assert_eq!(o.out.status.code(), Some(1), "{}", text(&o.out));
    let m = check_markdown(&o.markdown, "FAIL");
    let request = m.code.iter().find(|(lang, _)| lang == "json").expect("the minimal request");
    let review: Value = serde_json::from_str(&request.1).expect("the minimal request is JSON");
    assert_eq!(review["kind"], "AdmissionReview");
    let replays = m.code.iter().filter(|(lang, c)| lang == "sh" && c.starts_with("curl ")).count();
    assert!(replays >= 2, "both calls of the property are replayable: {}", o.markdown);
    // The bundled cases are tried first: the defect shows on one of them, which is said as such.
    assert!(o.markdown.contains("of the run's cases") && o.markdown.contains("the case's request"), "{}", o.markdown);
    let results = check_sarif(&o.sarif);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["ruleId"], "property.idempotent");
    let annotations = check_annotations(&o.annotations);
    assert_eq!(annotations.len(), 1);
}

/// `fuzz --shard I/3` for each I against the reference webhook with its manifest given (so without
/// its data-driven cases, which the first shard alone would try), then `merge`.
fn campaign(dir: &Path, defect: Option<&str>) -> (Vec<PathBuf>, Vec<Output>) {
    let manifest = dir.join("reference.yaml");
    std::fs::write(&manifest, reference_webhook::MANIFEST).unwrap();
    let mut files = Vec::new();
    let mut outs = Vec::new();
    for i in 1..=3 {
        let file = dir.join(format!("shard-{i}.json"));
        let mut cmd = bin();
        cmd.arg("fuzz").arg("--config").arg(&manifest);
        cmd.args(["--property", "property.idempotent", "--cases", "12", "--concurrency", "2", "--seed", "5"])
            .args(["--no-regressions", "--shard", &format!("{i}/3"), "--report-json"])
            .arg(&file);
        if let Some(d) = defect {
            cmd.args(["--reference-defect", d]);
        }
        outs.push(cmd.output().unwrap());
        files.push(file);
    }
    (files, outs)
}

fn merge(dir: &Path, files: &[PathBuf]) -> Outputs {
    let mut args = vec!["merge".to_string()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_with_outputs(dir, "merged", &args)
}

#[test]
fn a_sharded_campaign_merges_into_one_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let (files, outs) = campaign(dir.path(), None);
    for o in &outs {
        assert_eq!(o.status.code(), Some(0), "{}", text(o));
    }
    // 3 shards × 2 runners share the 12 cases of the property per webhook: 2 cases per runner.
    for f in &files {
        let v: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        let judged: Vec<&Value> =
            v["properties"].as_array().unwrap().iter().filter(|p| p["outcome"] != "skip").collect();
        assert!(!judged.is_empty(), "{v}");
        for p in judged {
            assert_eq!(p["cases"], 4, "each shard's part: {p}");
        }
    }
    let merged = merge(dir.path(), &files);
    assert_eq!(merged.out.status.code(), Some(0), "{}", text(&merged.out));
    assert_eq!(merged.json["merged"], 3);
    for p in merged.json["properties"].as_array().unwrap().iter().filter(|p| p["outcome"] != "skip") {
        assert_eq!(p["cases"], 12, "the campaign's cases, per webhook: {p}");
    }
    check_markdown(&merged.markdown, "PASS");
    assert!(merged.markdown.contains("3 reports merged"), "{}", merged.markdown);
    assert!(check_sarif(&merged.sarif).is_empty());
    assert!(text(&merged.out).contains("verdict: PASS"), "{}", text(&merged.out));

    // A campaign with a shard missing has no verdict.
    let out = bin().arg("merge").arg(&files[0]).arg(&files[2]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("shard 2/3 is missing"), "{}", text(&out));
}

#[test]
fn one_failing_shard_fails_the_campaign() {
    let dir = tempfile::tempdir().unwrap();
    let (files, outs) = campaign(dir.path(), Some("sidecar-every-call"));
    let codes: Vec<Option<i32>> = outs.iter().map(|o| o.status.code()).collect();
    assert!(codes.contains(&Some(1)), "a shard finds the defect: {codes:?}");
    let merged = merge(dir.path(), &files);
    assert_eq!(merged.out.status.code(), Some(1), "{}", text(&merged.out));
    let p = merged.json["properties"].as_array().unwrap().iter().find(|p| p["outcome"] == "fail").unwrap();
    assert!(p["note"].as_str().unwrap().starts_with("shard "), "{p}");
    assert!(p["minimal_request"].is_object(), "{p}");
    let m = check_markdown(&merged.markdown, "FAIL");
    assert!(m.code.iter().any(|(lang, _)| lang == "json"), "{}", merged.markdown);
    assert_eq!(check_sarif(&merged.sarif)[0]["ruleId"], "property.idempotent");
    assert!(!check_annotations(&merged.annotations).is_empty());
}

#[test]
fn sharding_needs_a_shared_seed_and_a_valid_shard() {
    let out = bin().args(["fuzz", "--shard", "1/2", "--cases", "2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--shard needs --seed"), "{}", text(&out));
    let out = bin().args(["fuzz", "--shard", "3/2", "--seed", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let out = bin()
        .args(["fuzz", "--shard-from-job", "4", "--seed", "1"])
        .env_remove("JOB_COMPLETION_INDEX")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("JOB_COMPLETION_INDEX is not set"), "{}", text(&out));
}
