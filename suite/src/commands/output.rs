//! Writing a report where the options ask for it, and errors where the user reads them.

use std::path::Path;

use webhook_harness::{Error, Report};

use super::EXIT_USAGE;

/// Print an error of the suite's input and return its exit code (2). An interrupted run is no error
/// of the input: the signal's handler says what happened and chooses the exit code.
pub fn usage_error(command: &str, e: &Error) -> i32 {
    if matches!(e, Error::Interrupted) {
        return EXIT_USAGE;
    }
    eprintln!("{command}: error: {e}");
    EXIT_USAGE
}

fn write(path: &Path, text: &str, option: &str) -> Result<(), Error> {
    std::fs::write(path, text)
        .map_err(|source| Error::Io { path: path.to_path_buf(), source })
        .map_err(|e| Error::Option(format!("{option} {e}")))
}

/// Print the text report and write the JSON and JUnit files asked for; the exit code of the verdict.
pub fn emit(command: &str, report: &Report, json: Option<&Path>, junit: Option<&Path>) -> i32 {
    print!("{}", report.render_text());
    if let Some(path) = junit {
        if let Err(e) = write(path, &report.to_junit(), "--junit") {
            return usage_error(command, &e);
        }
    }
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&report.to_json()).expect("JSON serializes");
        if let Err(e) = write(path, &text, "--report-json") {
            return usage_error(command, &e);
        }
    }
    report.verdict().exit_code()
}
