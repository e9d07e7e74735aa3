//! Data-driven cases (`cases/*.yaml`) and their snapshot-tested answers (`golden/*.snap`).
//!
//! A case is an admission request written as YAML: an object (or a whole AdmissionRequest) with the
//! operation and, where needed, the old object, the user, the dry-run flag and the subresource, and
//! optionally what the outcome must be (`expect:`). See `cases/README.md` for the format.
//!
//! Each case goes to the webhooks of the manifest that select it, as the apiserver would call them;
//! every answer is held to the rule catalog like any other exchange, the outcome to the case's
//! expectations (`case.expectation`) and, with a golden directory, to the stored snapshot
//! (`golden.unchanged`). The run's case step sends them; this module reads them and renders answers.

mod load;
mod request;
pub(crate) mod snapshot;

pub(crate) use load::parse;
pub use load::{load_dir, load_file, Case};
#[cfg(test)]
pub(crate) use request::admission_spec;
pub use request::Decision;
pub(crate) use request::{request_case, selected_by, webhooks_for, CaseRun};
pub(crate) use snapshot::Golden;

use std::path::PathBuf;

use crate::config::WebhookSpec;
use crate::error::CaseError;

/// What to do with snapshots.
#[derive(Clone, Debug, Default)]
pub enum GoldenMode {
    /// Do not look at snapshots.
    #[default]
    Off,
    /// Compare with the snapshots in this directory.
    Check(PathBuf),
    /// Write this run's answers as the new snapshots in this directory.
    Update(PathBuf),
}

/// Check every case's `webhook:` names before a run: an unknown name is an error of the case file.
pub(crate) fn validate_webhooks(cases: &[Case], webhooks: &[WebhookSpec]) -> Result<(), CaseError> {
    for case in cases {
        webhooks_for(case, webhooks, &crate::requests::ApiResources::built_in()).map_err(|e| CaseError {
            file: case.file.clone(),
            line: None,
            field: Some("webhook".into()),
            message: e.to_string(),
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
