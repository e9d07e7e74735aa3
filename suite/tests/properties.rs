//! The properties over generated requests: the correct reference webhook passes them (also when it
//! writes its patches differently but harmlessly), each property defect of the reference webhook is
//! caught by its property and shrunk to a small request, and failures are saved and replayed.

use std::path::PathBuf;

use reference_webhook::{Defect, Style};
use webhook_conformance::embedded;
use webhook_harness::lowlevel::{containers_of, map_len, LARGE_ANNOTATION};
use webhook_harness::rules::{of_kind, RuleKind};
use webhook_harness::{Budget, Manifest, Outcome, Report, Subject, Suite, Verdict, WebhookKind};

const SEED: u64 = 20_260_101;

/// Generated cases per property for the correct reference webhook: with 6 properties on 2 webhooks,
/// thousands of cases in all.
const REFERENCE_CASES: u32 = 200;

fn mutating() -> Manifest {
    let mut manifest = embedded::reference_manifest();
    manifest.webhooks.retain(|w| w.kind == WebhookKind::Mutating);
    manifest
}

/// What a fuzz campaign runs: the properties only.
#[derive(Clone)]
struct Options {
    cases: u32,
    seed: u64,
    concurrency: usize,
    only: Vec<String>,
    regressions: Option<PathBuf>,
}

fn options(cases: u32, only: &[&str]) -> Options {
    Options { cases, seed: SEED, concurrency: 2, only: only.iter().map(|s| s.to_string()).collect(), regressions: None }
}

async fn fuzz_reference(manifest: &Manifest, defect: Option<Defect>, style: Style, opts: &Options) -> Report {
    Suite::new(manifest.clone())
        .target(embedded::target(defect, style))
        .contract(false)
        .lint(false)
        .concurrency(opts.concurrency)
        .properties(&opts.only)
        .expect("known properties")
        .budget(Budget::cases(opts.cases))
        .seed(opts.seed)
        .regressions(opts.regressions.clone())
        .run()
        .await
        .expect("fuzz completes")
}

fn outcome(report: &Report, id: &str, webhook: &str) -> Outcome {
    report
        .records()
        .property_findings()
        .find(|(r, _)| r.rule.id == id && r.webhook == webhook)
        .map(|(_, f)| f.outcome())
        .unwrap_or_else(|| panic!("no result for {id}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reference_webhook_holds_every_property() {
    let manifest = embedded::reference_manifest();
    let webhooks = &manifest.webhooks;
    let report = fuzz_reference(&manifest, None, Style::default(), &options(REFERENCE_CASES, &[])).await;
    let text = report.render_text();
    assert_eq!(report.verdict(), Verdict::Pass, "{text}");
    assert!(report.warned_rules().is_empty(), "{text}");
    assert_eq!(report.properties().len(), of_kind(RuleKind::Property).count() * webhooks.len());
    let mutate = &webhooks[0].name;
    for id in [
        "property.idempotent",
        "property.reinvocation",
        "property.deterministic",
        "property.dry-run",
        "property.dry-run-config",
    ] {
        assert_eq!(outcome(&report, id, mutate), Outcome::Pass, "{id}\n{text}");
    }
    for (r, _) in report
        .records()
        .property_findings()
        .filter(|(r, f)| f.outcome() == Outcome::Pass && r.rule.id != "property.dry-run-config")
    {
        assert_eq!(r.cases, u64::from(REFERENCE_CASES), "{} ran {} cases", r.rule.id, r.cases);
    }
    let total: u64 = report.properties().iter().map(|r| r.cases).sum::<u64>() + report.records().contract_cases;
    assert!(total >= 2000, "only {total} cases in all");
    // A validating webhook has nothing to be idempotent about.
    assert_eq!(outcome(&report, "property.idempotent", &webhooks[1].name), Outcome::Skip);
    let requests = report.records().property_requests;
    assert!(requests > u64::from(REFERENCE_CASES) * 10, "{requests} requests");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_property_defect_is_caught_and_shrunk_to_a_small_request() {
    let webhooks = mutating();
    let name = webhooks.webhooks[0].name.clone();
    let mut problems = Vec::new();
    // A defect of recorded shapes needs a recorded case to start from (tests/record.rs), and its
    // minimal request is a pod of three containers.
    for &defect in Defect::ALL.iter().filter(|d| d.is_property() && !d.needs_recorded_shapes()) {
        let report = fuzz_reference(&webhooks, Some(defect), Style::default(), &options(48, &[defect.rule()])).await;
        let text = report.render_text();
        let expected = if defect.level() == "FAIL" { Outcome::Fail } else { Outcome::Warn };
        let got = outcome(&report, defect.rule(), &name);
        if got != expected {
            problems.push(format!("{defect}: {} is {got:?}, expected {expected:?}\n{text}", defect.rule()));
            continue;
        }
        if !report.exchanges().is_empty() {
            problems.push(format!("{defect}: a single answer breaks a contract rule\n{text}"));
            continue;
        }
        let result = report.properties().iter().find(|r| r.rule.id == defect.rule()).unwrap();
        let failure = result.failure.as_ref().expect("a failing property has its evidence");
        let input = failure.observation.input.as_ref().expect("the minimal request");
        let object = input.object();
        let small = containers_of(object).len() <= 1
            && map_len(object, "labels") == 0
            && map_len(object, "annotations") <= 1
            && object["metadata"]["annotations"].get(LARGE_ANNOTATION).is_none()
            && object.get("x-unknown").is_none();
        if !small {
            problems.push(format!("{defect}: the minimal request is not small:\n{text}"));
        }
        for part in
            ["minimal request", "reproduce the", "curl --http1.1", "answers side by side", &format!("seed: {SEED}")]
        {
            if !text.contains(part) {
                problems.push(format!("{defect}: the report lacks {part:?}:\n{text}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn harmless_but_different_patches_pass() {
    let webhooks = mutating();
    let only = ["property.idempotent", "property.reinvocation", "property.deterministic", "property.dry-run"];
    for style in [
        Style { reorder_ops: true, restate_unchanged: false, ..Style::default() },
        Style { reorder_ops: false, restate_unchanged: true, ..Style::default() },
        Style { reorder_ops: true, restate_unchanged: true, ..Style::default() },
    ] {
        let report = fuzz_reference(&webhooks, None, style, &options(24, &only)).await;
        let text = report.render_text();
        assert_eq!(report.verdict(), Verdict::Pass, "{style:?}\n{text}");
        assert!(report.warned_rules().is_empty(), "{style:?}\n{text}");
        assert!(
            report.records().property_findings().all(|(r, f)| f.outcome() == Outcome::Pass && r.cases >= 24),
            "{style:?}\n{text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_are_saved_and_replayed_first() {
    let webhooks = mutating();
    let dir = tempfile::tempdir().unwrap();
    let mut opts = options(32, &["property.idempotent"]);
    opts.regressions = Some(dir.path().to_path_buf());
    let first = fuzz_reference(&webhooks, Some(Defect::SidecarEveryCall), Style::default(), &opts).await;
    assert_eq!(first.failed_rules(), vec!["property.idempotent"]);
    let saved: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(saved.len(), 1, "one regression file");
    // Another seed: the saved request is replayed before any new case is generated.
    opts.seed = SEED + 1;
    let second = fuzz_reference(&webhooks, Some(Defect::SidecarEveryCall), Style::default(), &opts).await;
    let result = &second.properties()[0];
    assert_eq!(second.records().outcome_of(&Subject::Property { index: 0 }), Outcome::Fail);
    assert_eq!(result.cases, 1, "failed on the replayed case");
    assert!(result.note.as_deref().unwrap_or_default().contains("replayed"), "{:?}", result.note);
    // The fixed webhook passes the replayed case and the new ones.
    let fixed = fuzz_reference(&webhooks, None, Style::default(), &opts).await;
    assert_eq!(fixed.verdict(), Verdict::Pass, "{}", fixed.render_text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn side_effects_that_refuse_dry_run_fail_the_config_property() {
    let mut webhooks = mutating();
    webhooks.webhooks[0].side_effects = Some("Some".into());
    let report = fuzz_reference(
        &webhooks,
        None,
        Style::default(),
        &options(4, &["property.dry-run-config", "property.dry-run"]),
    )
    .await;
    assert_eq!(report.failed_rules(), vec!["property.dry-run-config"], "{}", report.render_text());
    assert_eq!(outcome(&report, "property.dry-run", &webhooks.webhooks[0].name), Outcome::Skip);
    assert!(report.render_text().contains("does not support dry run"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cases_means_cases_per_property_whatever_the_concurrency() {
    // As PROPTEST_CASES: N generated cases per property, also when N does not divide evenly.
    let webhooks = mutating();
    let opts = Options { cases: 5, concurrency: 4, ..options(5, &["property.idempotent", "property.deterministic"]) };
    let report = fuzz_reference(&webhooks, None, Style::default(), &opts).await;
    for (r, _) in report.records().property_findings().filter(|(_, f)| f.outcome() == Outcome::Pass) {
        assert_eq!(r.cases, 5, "{}", r.rule.id);
    }
    assert!(
        report.records().property_findings().filter(|(_, f)| f.outcome() == Outcome::Pass).count() >= 2,
        "{}",
        report.render_text()
    );
}
