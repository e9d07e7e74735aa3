//! One test per data-driven case (`cases/*.yaml`, or `WEBHOOK_CASES=DIR`), against the environment's
//! target (`WEBHOOK_URL`/`WEBHOOK_CMD`/`WEBHOOK_IMAGE` with `WEBHOOK_CONFIG`; the bundled reference
//! webhook by default, started once for all cases).
//!
//! `cargo test -p webhook-conformance --test cases -- pod-bare` runs one case. Each test fails on a
//! FAIL rule of an answer, on a breach of the case's `expect:`, and on a changed snapshot: the
//! answers are snapshot-tested with insta in the golden directory (`WEBHOOK_GOLDEN`; else
//! `$WEBHOOK_CASES/golden` for your own cases; else the repository's `golden/` for the bundled
//! reference webhook). Review changes with `cargo insta review`, or accept them all with
//! `INSTA_UPDATE=always cargo test -p webhook-conformance --test cases`. A case file that does not
//! load is a failing test named after the file.

use std::path::PathBuf;
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};
use webhook_conformance::cli::TargetChoice;
use webhook_conformance::env_target;
use webhook_harness::cases::{self, Case, GoldenMode};
use webhook_harness::client::{Client, HttpVersions};
use webhook_harness::config::WebhookSpec;
use webhook_harness::report::curl_command;
use webhook_harness::rules::Outcome;

struct Shared {
    runtime: tokio::runtime::Runtime,
    endpoint: webhook_harness::client::Endpoint,
    ca_file: Option<PathBuf>,
    webhooks: Vec<WebhookSpec>,
    golden: Option<PathBuf>,
}

fn var(k: &str) -> Option<String> {
    std::env::var(k).ok().filter(|v| !v.is_empty())
}

fn run_one(shared: &Shared, case: &Case) -> Result<(), Failed> {
    let chosen = cases::webhooks_for(case, &shared.webhooks)
        .map_err(|e| Failed::from(format!("{}: {e}", case.file.display())))?;
    let client =
        Client::new(shared.endpoint.clone(), HttpVersions::Http1).map_err(|e| Failed::from(format!("{e:#}")))?;
    let run = shared.runtime.block_on(cases::run_case(&client, case, &chosen));
    let result = cases::judge(case, run, &GoldenMode::Off);
    let mut problems = Vec::new();
    for f in result.findings.iter().filter(|f| f.outcome == Outcome::Fail) {
        problems.push(format!("{}: {}", f.rule, f.detail.as_deref().unwrap_or_default()));
    }
    for record in &result.records {
        for f in record.findings.iter().filter(|f| f.outcome == Outcome::Fail) {
            problems.push(format!(
                "{} on {}: {}\n  apiserver says: {}\n  replay:\n{}",
                f.rule,
                record.webhook.name,
                f.detail.as_deref().unwrap_or_default(),
                f.apiserver_message.as_deref().unwrap_or("-"),
                curl_command(record, shared.ca_file.as_deref(), shared.endpoint.resolve_to)
            ));
        }
    }
    if let (Some(dir), false) = (&shared.golden, result.decision == cases::Decision::NotSelected) {
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(dir);
        settings.set_prepend_module_to_snapshot(false);
        settings.set_input_file(&case.file);
        settings.set_description(case.description.clone().unwrap_or_else(|| case.what()));
        let snapshot = result.snapshot.clone();
        let name = case.name.clone();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            settings.bind(|| insta::assert_snapshot!(name.as_str(), snapshot));
        }));
        if let Err(panic) = outcome {
            let text = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let diff = match cases::snapshot::compare(dir, &case.name, &result.snapshot) {
                cases::Golden::Changed(_, diff) => diff,
                cases::Golden::Missing(p) => format!("no snapshot {}", p.display()),
                cases::Golden::Unchanged => String::new(),
            };
            problems.push(format!("golden.unchanged: the answer differs from the snapshot (review with `cargo insta review`): {text}\n{diff}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failed::from(format!("case {} ({}):\n{}", case.name, case.file.display(), problems.join("\n"))))
    }
}

fn main() {
    let args = Arguments::from_args();
    let (choice, manifest) = match env_target::from_env() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("cases: {e:#}");
            std::process::exit(2);
        }
    };
    let user_cases = var("WEBHOOK_CASES").map(PathBuf::from);
    let dir = user_cases.clone().unwrap_or_else(cases::builtin_dir);
    let golden = match (var("WEBHOOK_GOLDEN"), &user_cases) {
        (Some(g), _) => Some(PathBuf::from(g)),
        (None, Some(c)) => Some(c.join("golden")),
        (None, None) if matches!(choice, TargetChoice::Reference { .. }) && var("WEBHOOK_CONFIG").is_none() => {
            Some(cases::builtin_golden_dir())
        }
        (None, None) => None,
    };

    // Each file is loaded on its own: a broken one is a failing test named after it.
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cases directory {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")))
        .collect();
    files.sort();
    let loaded: Vec<Result<Case, cases::CaseError>> = files.iter().map(|f| cases::load_file(f)).collect();

    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("tokio runtime");
    let webhooks = manifest.webhooks.clone();
    let any_runnable = loaded.iter().any(Result::is_ok);
    let target = if any_runnable {
        match runtime.block_on(env_target::start(&choice, &webhooks)) {
            Ok(t) => Some(t),
            Err(e) => {
                eprintln!("cases: the target did not start: {e:#}");
                std::process::exit(2);
            }
        }
    } else {
        None
    };
    let endpoint = target.as_ref().map(|t| t.endpoint.clone());
    let ca_file = target.as_ref().and_then(|t| t.reproducer_ca());
    let shared = Arc::new(Shared {
        runtime,
        endpoint: endpoint.unwrap_or_else(|| webhook_harness::client::Endpoint {
            base: "https://localhost/".parse().unwrap(),
            resolve_to: None,
            ca_pem: Vec::new(),
            path_override: false,
        }),
        ca_file,
        webhooks,
        golden,
    });

    let mut trials = Vec::new();
    for (file, case) in files.iter().zip(loaded) {
        match case {
            Ok(case) => {
                let shared = shared.clone();
                trials.push(Trial::test(case.name.clone(), move || run_one(&shared, &case)));
            }
            Err(e) => {
                let name = file.file_stem().and_then(|s| s.to_str()).unwrap_or("case").to_string();
                trials.push(Trial::test(name, move || Err(Failed::from(format!("the case file does not load: {e}")))));
            }
        }
    }
    let conclusion = libtest_mimic::run(&args, trials);
    drop(target);
    conclusion.exit();
}
