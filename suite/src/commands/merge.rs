//! `webhook-conformance merge`: the JSON reports of a sharded campaign (or of separate runs) as one
//! verdict and one report.

use std::path::PathBuf;

use webhook_harness::{Error, JsonReport, OptionError};

use super::output::{check_report_paths, emit_merged, usage_error};
use crate::args::MergeArgs;

const COMMAND: &str = "webhook-conformance merge";

/// The report files: each file given, and the `*.json` files of each directory given (not of its
/// subdirectories), in name order.
fn report_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let entries = std::fs::read_dir(path).map_err(|source| Error::Io { path: path.clone(), source })?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
            .collect();
        if found.is_empty() {
            return Err(Error::Option(OptionError::Usage(format!(
                "{}: no *.json report in this directory",
                path.display()
            ))));
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

/// Merge the reports; returns the exit code (0 pass, 1 FAIL, 2 the reports cannot be merged).
pub fn merge(args: &MergeArgs) -> i32 {
    if let Err(e) = check_report_paths(args.report_json.as_deref(), None, &args.outputs) {
        return usage_error(COMMAND, &e);
    }
    let files = match report_files(&args.reports) {
        Ok(f) => f,
        Err(e) => return usage_error(COMMAND, &e),
    };
    let mut reports = Vec::new();
    for path in &files {
        match JsonReport::read(path) {
            Ok(r) => reports.push(r),
            Err(e) => return usage_error(COMMAND, &e),
        }
    }
    match JsonReport::merge(&reports) {
        Ok(merged) => emit_merged(COMMAND, &merged, args.report_json.as_deref(), &args.outputs),
        Err(e) => usage_error(COMMAND, &e),
    }
}
