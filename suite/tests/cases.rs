//! One test per data-driven case (`cases/*.yaml`, or `WEBHOOK_CASES=DIR`), against the environment's
//! target (`WEBHOOK_URL`/`WEBHOOK_CMD`/`WEBHOOK_IMAGE` with `WEBHOOK_CONFIG`: the CLI's options, read
//! from the environment; the bundled reference webhook by default, started once for all cases).
//!
//! `cargo test -p webhook-conformance --test cases -- pod-bare` runs one case. Each test fails on a
//! FAIL rule of an answer, on a breach of the case's `expect:`, and on a changed snapshot: the
//! answers are snapshot-tested with insta in the golden directory (`WEBHOOK_GOLDEN`; else
//! `$WEBHOOK_CASES/golden` for your own cases; else the repository's `golden/` for the bundled
//! reference webhook). Review changes with `cargo insta review`, or accept them all with
//! `INSTA_UPDATE=always cargo test -p webhook-conformance --test cases`. A case file that does not
//! load is a failing test named after the file.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use libtest_mimic::{Arguments, Failed, Trial};
use webhook_conformance::args::{CasesArg, Cli};
use webhook_conformance::embedded;
use webhook_harness::rules::GOLDEN_UNCHANGED;
use webhook_harness::{Case, Decision, GoldenMode, Outcome, Session, Subject};

struct Shared {
    runtime: tokio::runtime::Runtime,
    session: Mutex<Session>,
    golden: Option<PathBuf>,
}

/// Check the snapshot with insta (which writes a pending `.snap.new` for `cargo insta review`, or
/// accepts the change under `INSTA_UPDATE=always`): `Err` with insta's message when it differs.
fn insta_check(dir: &Path, case: &Case, snapshot: &str) -> Result<(), String> {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(dir);
    settings.set_prepend_module_to_snapshot(false);
    settings.set_input_file(&case.file);
    settings.set_description(case.description.clone().unwrap_or_else(|| case.what()));
    let name = case.name.clone();
    let snapshot = snapshot.to_string();
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        settings.bind(|| insta::assert_snapshot!(name.as_str(), snapshot));
    }))
    .map_err(|panic| {
        panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

fn run_one(shared: &Shared, case: &Case) -> Result<(), Failed> {
    let report = {
        let mut session = shared.session.lock().unwrap_or_else(|e| e.into_inner());
        shared.runtime.block_on(session.run_case(case)).map_err(|e| Failed::from(e.to_string()))?
    };
    let result = report.cases().first().ok_or_else(|| Failed::from("the case was not run"))?;
    let records = report.records();
    let insta = match (&shared.golden, result.decision == Decision::NotSelected) {
        (Some(dir), false) => Some(insta_check(dir, case, &result.snapshot)),
        _ => None,
    };
    let mut problems = Vec::new();
    for f in records.findings_about(&Subject::Case { index: 0 }).filter(|f| f.outcome() == Outcome::Fail) {
        // insta decides about the snapshot (it may have accepted the change).
        if f.rule == GOLDEN_UNCHANGED && matches!(insta, Some(Ok(()))) {
            continue;
        }
        problems.push(format!("{}: {}", f.rule, f.detail.as_deref().unwrap_or_default()));
    }
    if let Some(Err(text)) = &insta {
        problems.push(format!("golden.unchanged: review with `cargo insta review`: {text}"));
    }
    for (record, findings) in records.case_calls(0) {
        for f in findings.into_iter().filter(|f| f.outcome() == Outcome::Fail) {
            problems.push(format!(
                "{} on {}: {}\n  apiserver says: {}\n  replay:\n{}",
                f.rule,
                record.webhook.name,
                f.detail.as_deref().unwrap_or_default(),
                f.apiserver_message.as_deref().unwrap_or("-"),
                report.curl(record)
            ));
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
    let cli = Cli::from_env().unwrap_or_else(|e| {
        eprintln!("cases: {e}");
        std::process::exit(2);
    });
    let (run, gate) = (cli.run, cli.gate);
    let user_cases = gate.cases.iter().rev().find_map(|c| match c {
        CasesArg::Dir(d) => Some(d.clone()),
        CasesArg::Count(_) => None,
    });
    let dir = user_cases.clone().unwrap_or_else(embedded::cases_dir);
    let golden = match (&gate.golden, &user_cases) {
        (Some(g), _) => Some(g.clone()),
        (None, Some(c)) => Some(c.join("golden")),
        (None, None) if run.is_reference() && run.config.is_none() => Some(embedded::golden_dir()),
        (None, None) => None,
    };

    // Each file is loaded on its own: a broken one is a failing test named after it.
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cases directory {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")))
        .collect();
    files.sort();
    let loaded: Vec<_> = files.iter().map(|f| webhook_harness::load_case(f)).collect();

    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("tokio runtime");
    let suite = run.suite().map(|s| s.golden(golden.clone().map(GoldenMode::Check).unwrap_or_default()));
    let session = suite.and_then(|s| runtime.block_on(s.start())).unwrap_or_else(|e| {
        eprintln!("cases: {e}");
        std::process::exit(2);
    });
    let shared = Arc::new(Shared { runtime, session: Mutex::new(session), golden });

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
    drop(shared);
    conclusion.exit();
}
