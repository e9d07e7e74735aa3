//! The CLI's data-driven cases (`--cases`), snapshots (`--golden`, `--update-golden`), manifest
//! lint and JUnit output (`--junit`).

use std::path::{Path, PathBuf};

use webhook_harness::cases::{self, Case, GoldenMode, CASE_RULES};
use webhook_harness::client::HttpVersions;
use webhook_harness::config::WebhookSpec;
use webhook_harness::lint::{self, LINT_RULES};
use webhook_harness::report::RunReport;
use webhook_harness::target::RunningTarget;

use crate::cli::{GateArgs, RunArgs, RunError, TargetChoice};

/// The cases of a run: `--cases DIR`, or the repository's `cases/` for the bundled reference
/// webhook (when that directory exists), or none. A broken case file is a usage error (exit 2).
pub fn load_cases(
    args: &RunArgs,
    gate: &GateArgs,
    choice: &TargetChoice,
    webhooks: &[WebhookSpec],
) -> Result<Vec<Case>, RunError> {
    let dir: Option<PathBuf> = match &gate.cases {
        Some(d) => Some(d.clone()),
        None if matches!(choice, TargetChoice::Reference { .. }) && args.config.is_none() => {
            Some(cases::builtin_dir()).filter(|d| d.is_dir())
        }
        None => None,
    };
    let Some(dir) = dir else { return Ok(Vec::new()) };
    let loaded = cases::load_dir(&dir).map_err(|e| RunError::Usage(format!("case file {e}")))?;
    cases::validate_webhooks(&loaded, webhooks).map_err(|e| RunError::Usage(format!("case file {e}")))?;
    Ok(loaded)
}

/// What `--golden` / `--update-golden` ask for.
pub fn golden_mode(gate: &GateArgs) -> GoldenMode {
    match (&gate.golden, gate.update_golden) {
        (Some(d), true) => GoldenMode::Update(d.clone()),
        (Some(d), false) => GoldenMode::Check(d.clone()),
        (None, _) => GoldenMode::Off,
    }
}

/// Add the manifest lint (with the caBundle checked against the served certificate when the user
/// runs the target with their own certificates) and the cases to `report`.
pub async fn extend_report(
    report: &mut RunReport,
    gate: &GateArgs,
    choice: &TargetChoice,
    webhooks: &[WebhookSpec],
    target: &RunningTarget,
    loaded: &[Case],
    http: HttpVersions,
) -> Result<(), RunError> {
    let mut findings = lint::lint(webhooks);
    let user_certs = matches!(choice, TargetChoice::Url { .. }).then_some(&target.endpoint);
    let served = lint::check_ca_bundle_served(webhooks, user_certs).await;
    lint::merge_ca_bundle(&mut findings, served);
    report.lint = findings;
    if !loaded.is_empty() {
        let results = cases::run_cases(loaded, webhooks, target, http, &golden_mode(gate))
            .await
            .map_err(|e| RunError::Usage(format!("{e:#}")))?;
        for r in &results {
            report.records.extend(r.records.iter().cloned());
        }
        report.cases = results;
    }
    Ok(())
}

/// Write the JUnit XML of `report` to `path`.
pub fn write_junit(report: &RunReport, path: &Path) -> Result<(), RunError> {
    std::fs::write(path, report.to_junit()).map_err(|e| RunError::Usage(format!("--junit {}: {e}", path.display())))
}

/// The lint and case rules, for `webhook-conformance rules`.
pub fn print_rules() {
    println!("\nMANIFEST LINT (the webhook configuration itself)");
    for r in LINT_RULES {
        println!("{:26} {:4}  {}\n{:33}source: {}", r.id, r.severity, r.statement, "", r.source);
    }
    println!("\nCASES (--cases DIR, --golden DIR)");
    for r in CASE_RULES {
        println!("{:26} {:4}  {}\n{:33}source: {}", r.id, r.severity, r.statement, "", r.source);
    }
}
