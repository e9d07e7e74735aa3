//! Data-driven cases (`cases/*.yaml`) and their snapshot-tested answers (`golden/*.snap`).
//!
//! A case is an admission request written as YAML: an object (or a whole AdmissionRequest) with the
//! operation and, where needed, the old object, the user, the dry-run flag and the subresource, and
//! optionally what the outcome must be (`expect:`). See `cases/README.md` for the format.
//!
//! Each case goes to the webhooks of the manifest that select it, as the apiserver would call them;
//! every answer is held to the rule catalog like any other exchange, the outcome to the case's
//! expectations ([`EXPECTATION`]) and, with a golden directory, to the stored snapshot ([`GOLDEN`]).

mod exec;
mod load;
pub mod snapshot;

pub use exec::{admission_spec, check_expectations, request_case, run_case, webhooks_for, CaseRun, Decision, CASE_UID};
pub use load::{load_dir, load_file, parse, Case, CaseError, Expect};
pub use snapshot::Golden;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::client::{Client, HttpVersions};
use crate::config::WebhookSpec;
use crate::rules::{Outcome, Severity};
use crate::run::ExchangeRecord;
use crate::target::RunningTarget;

/// A rule over a case's outcome rather than over one answer.
#[derive(Debug)]
pub struct CaseRule {
    pub id: &'static str,
    pub severity: Severity,
    pub statement: &'static str,
    pub source: &'static str,
}

pub const EXPECTATION: &str = "case.expectation";
pub const GOLDEN: &str = "golden.unchanged";

/// The rules of cases, for `webhook-conformance rules`.
pub static CASE_RULES: &[CaseRule] = &[
    CaseRule {
        id: EXPECTATION,
        severity: Severity::Fail,
        statement: "A case's outcome is what its `expect:` says: allowed or denied, the message, the warning, the fields the resulting object has and lacks.",
        source: "cases/*.yaml (the user's own expectations)",
    },
    CaseRule {
        id: GOLDEN,
        severity: Severity::Fail,
        statement: "A case's answers (decision, status, warnings, decoded patch, patched object) equal the stored snapshot in the golden directory.",
        source: "golden/*.snap (accepted with --update-golden or cargo insta review)",
    },
];

/// The verdict of one case rule on one case.
#[derive(Clone, Debug, Serialize)]
pub struct CaseFinding {
    pub rule: &'static str,
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// One case's run and verdicts.
#[derive(Clone, Debug)]
pub struct CaseResult {
    pub name: String,
    pub file: PathBuf,
    pub what: String,
    pub decision: Decision,
    /// The calls made, also held to the rule catalog (they are part of the run's records).
    pub records: Vec<ExchangeRecord>,
    pub snapshot: String,
    pub findings: Vec<CaseFinding>,
}

impl CaseResult {
    /// The worst outcome over the case's own rules and its answers' catalog rules.
    pub fn outcome(&self) -> Outcome {
        let own = self.findings.iter().map(|f| f.outcome);
        let answers = self.records.iter().flat_map(|r| r.findings.iter().map(|f| f.outcome));
        own.chain(answers).filter(|o| *o != Outcome::Skip).max().unwrap_or(Outcome::Skip)
    }
}

/// What to do with snapshots.
#[derive(Clone, Debug)]
pub enum GoldenMode {
    /// Do not look at snapshots.
    Off,
    /// Compare with the snapshots in this directory.
    Check(PathBuf),
    /// Write this run's answers as the new snapshots in this directory.
    Update(PathBuf),
}

/// Judge one case's run: expectations and snapshot.
pub fn judge(case: &Case, run: CaseRun, golden: &GoldenMode) -> CaseResult {
    let snapshot = snapshot::render(case, &run);
    let mut findings = Vec::new();
    let expectation = if run.decision == Decision::NotSelected && case.webhook.is_none() {
        CaseFinding {
            rule: EXPECTATION,
            outcome: Outcome::Skip,
            detail: Some("no webhook of the manifest selects this case".into()),
        }
    } else if case.expect.is_empty() {
        CaseFinding { rule: EXPECTATION, outcome: Outcome::Skip, detail: Some("the case has no expect:".into()) }
    } else {
        match check_expectations(case, &run) {
            Ok(()) => CaseFinding { rule: EXPECTATION, outcome: Outcome::Pass, detail: None },
            Err(d) => CaseFinding { rule: EXPECTATION, outcome: Outcome::Fail, detail: Some(d) },
        }
    };
    findings.push(expectation);
    let golden_finding = match golden {
        GoldenMode::Off => {
            CaseFinding { rule: GOLDEN, outcome: Outcome::Skip, detail: Some("no golden directory given".into()) }
        }
        _ if run.decision == Decision::NotSelected => CaseFinding {
            rule: GOLDEN,
            outcome: Outcome::Skip,
            detail: Some("no webhook of the manifest selects this case".into()),
        },
        GoldenMode::Check(dir) => match snapshot::compare(dir, &case.name, &snapshot) {
            Golden::Unchanged => CaseFinding { rule: GOLDEN, outcome: Outcome::Pass, detail: None },
            Golden::Missing(p) => CaseFinding {
                rule: GOLDEN,
                outcome: Outcome::Fail,
                detail: Some(format!(
                    "no snapshot {}: run with --update-golden to accept this run's answers",
                    p.display()
                )),
            },
            Golden::Changed(p, diff) => CaseFinding {
                rule: GOLDEN,
                outcome: Outcome::Fail,
                detail: Some(format!("the answer differs from {} (accept with --update-golden):\n{diff}", p.display())),
            },
        },
        GoldenMode::Update(dir) => match snapshot::compare(dir, &case.name, &snapshot) {
            Golden::Unchanged => CaseFinding { rule: GOLDEN, outcome: Outcome::Pass, detail: None },
            _ => match snapshot::write(dir, &case.name, &snapshot) {
                Ok(p) => CaseFinding {
                    rule: GOLDEN,
                    outcome: Outcome::Pass,
                    detail: Some(format!("snapshot written: {}", p.display())),
                },
                Err(e) => CaseFinding {
                    rule: GOLDEN,
                    outcome: Outcome::Fail,
                    detail: Some(format!("cannot write the snapshot to {}: {e}", dir.display())),
                },
            },
        },
    };
    findings.push(golden_finding);
    CaseResult {
        name: case.name.clone(),
        file: case.file.clone(),
        what: case.what(),
        decision: run.decision,
        records: run.records,
        snapshot,
        findings,
    }
}

/// Check every case's `webhook:` names before a run: an unknown name is an error of the case file.
pub fn validate_webhooks(cases: &[Case], webhooks: &[WebhookSpec]) -> Result<(), CaseError> {
    for case in cases {
        webhooks_for(case, webhooks).map_err(|message| CaseError {
            file: case.file.clone(),
            line: None,
            field: Some("webhook".into()),
            message,
        })?;
    }
    Ok(())
}

/// Run every case against the target, one after the other.
pub async fn run_cases(
    cases: &[Case],
    webhooks: &[WebhookSpec],
    target: &RunningTarget,
    http: HttpVersions,
    golden: &GoldenMode,
) -> anyhow::Result<Vec<CaseResult>> {
    let client = Client::new(target.endpoint.clone(), http)?;
    let mut out = Vec::with_capacity(cases.len());
    for case in cases {
        let chosen = webhooks_for(case, webhooks).map_err(|m| anyhow::anyhow!("{}: {m}", case.file.display()))?;
        let run = run_case(&client, case, &chosen).await;
        out.push(judge(case, run, golden));
    }
    Ok(out)
}

/// The repository's own `cases/` directory (the built-in cases for the bundled reference webhook).
pub fn builtin_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new("..")).join("cases")
}

/// The repository's own `golden/` directory.
pub fn builtin_golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new("..")).join("golden")
}

#[cfg(test)]
mod tests;
