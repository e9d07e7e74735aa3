//! Writing a report where the options ask for it, and errors where the user reads them.

use std::path::Path;

use webhook_harness::{Error, JsonReport, OptionError, Report, TextOptions, Verdict};

use super::EXIT_USAGE;
use crate::args::OutputArgs;

/// Print an error of the suite's input and return its exit code (2). An interrupted run is no error
/// of the input: the signal's handler says what happened and chooses the exit code.
pub(crate) fn usage_error(command: &str, e: &Error) -> i32 {
    if matches!(e, Error::Interrupted) {
        return EXIT_USAGE;
    }
    eprintln!("{command}: error: {e}");
    EXIT_USAGE
}

/// `path` can be written at the end of the run: it is not a directory, and it is a file that can be
/// opened for writing or its directory (or the nearest one that exists, under which the rest is
/// made) takes a new file. Nothing is left behind.
fn check_writable(path: &Path, option: &str) -> Result<(), Error> {
    let fail = |what: String| Err(Error::Option(OptionError::Usage(format!("{option} {}: {what}", path.display()))));
    if path.is_dir() {
        return fail("is a directory: give a file name".into());
    }
    if path.exists() {
        return match std::fs::OpenOptions::new().append(true).open(path) {
            Ok(_) => Ok(()),
            Err(e) => fail(format!("cannot be written: {e}")),
        };
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let Some(existing) = parent.ancestors().find(|a| a.as_os_str().is_empty() || a.exists()) else {
        return Ok(());
    };
    let existing = if existing.as_os_str().is_empty() { Path::new(".") } else { existing };
    if !existing.is_dir() {
        return fail(format!("{} is not a directory", existing.display()));
    }
    let probe = existing.join(format!(".webhook-conformance-write-check-{}", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        // Left by an earlier process of the same id: the directory took a new file then.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => fail(format!("cannot write in {}: {e}", existing.display())),
    }
}

/// Check, before a run starts, that every report file asked for can be written: `--report-json`,
/// `--junit` (when the command has it), `--report-md`, `--sarif`.
pub(crate) fn check_report_paths(json: Option<&Path>, junit: Option<&Path>, outputs: &OutputArgs) -> Result<(), Error> {
    let paths = [
        (json, "--report-json"),
        (junit, "--junit"),
        (outputs.report_md.as_deref(), "--report-md"),
        (outputs.sarif.as_deref(), "--sarif"),
    ];
    for (path, option) in paths {
        if let Some(path) = path {
            check_writable(path, option)?;
        }
    }
    if let Some(dir) = &outputs.artifacts {
        if dir.exists() && !dir.is_dir() {
            return Err(Error::Option(OptionError::Usage(format!("--artifacts {}: not a directory", dir.display()))));
        }
    }
    Ok(())
}

/// Write `text` to `path` (its directory made when missing).
fn write(path: &Path, text: &str, option: &str) -> Result<(), Error> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty() && !p.exists());
    parent
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(path, text))
        .map_err(|source| Error::Io { path: path.to_path_buf(), source })
        .map_err(|e| Error::Option(OptionError::Usage(format!("{option} {e}"))))
}

/// Write the JSON, Markdown and SARIF files asked for and print the annotations asked for.
fn write_json_views(report: &JsonReport, json: Option<&Path>, outputs: &OutputArgs) -> Result<(), Error> {
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(report.to_json()).expect("JSON serializes");
        write(path, &text, "--report-json")?;
    }
    if let Some(path) = &outputs.report_md {
        write(path, &report.to_markdown(), "--report-md")?;
    }
    if let Some(path) = &outputs.sarif {
        let text = serde_json::to_string_pretty(&report.to_sarif()).expect("JSON serializes");
        write(path, &text, "--sarif")?;
    }
    if outputs.github_annotations {
        print!("{}", report.to_github_annotations());
    }
    Ok(())
}

/// Print the text report, its replayed requests written whole in `--artifacts` (or in a temporary
/// directory kept, and named, only when the verdict is FAIL).
fn print_text(report: &Report, outputs: &OutputArgs) -> Result<(), Error> {
    let options = TextOptions::default().verbose(outputs.verbose);
    match &outputs.artifacts {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::Option(OptionError::Usage(format!("--artifacts {}: {e}", dir.display()))))?;
            print!("{}", report.render_text_with(&options.replays_in(dir)));
        }
        None => {
            let temp = tempfile::Builder::new().prefix("webhook-conformance-replays-").tempdir();
            match temp {
                Ok(temp) => {
                    print!("{}", report.render_text_with(&options.replays_in(temp.path())));
                    if report.verdict() == Verdict::Fail
                        && std::fs::read_dir(temp.path()).is_ok_and(|mut d| d.next().is_some())
                    {
                        let kept = temp.keep();
                        println!("replayed requests: {} (--artifacts DIR chooses where)", kept.display());
                    }
                }
                Err(_) => print!("{}", report.render_text_with(&options)),
            }
        }
    }
    Ok(())
}

/// Print the text report and write the files asked for; the exit code of the verdict.
pub(crate) fn emit(
    command: &str,
    report: &Report,
    json: Option<&Path>,
    junit: Option<&Path>,
    outputs: &OutputArgs,
) -> i32 {
    if let Err(e) = print_text(report, outputs) {
        return usage_error(command, &e);
    }
    if let Some(path) = junit {
        if let Err(e) = write(path, &report.to_junit(), "--junit") {
            return usage_error(command, &e);
        }
    }
    // The JSON report is built only for the views written from it.
    let views = json.is_some() || outputs.report_md.is_some() || outputs.sarif.is_some() || outputs.github_annotations;
    if views {
        if let Err(e) = write_json_views(&report.to_json_report(), json, outputs) {
            return usage_error(command, &e);
        }
    }
    report.verdict().exit_code()
}

/// Print the summary of a merged report and write the files asked for; the exit code of its verdict.
pub(crate) fn emit_merged(command: &str, report: &JsonReport, json: Option<&Path>, outputs: &OutputArgs) -> i32 {
    print!("{}", report.render_summary());
    if let Err(e) = write_json_views(report, json, outputs) {
        return usage_error(command, &e);
    }
    report.verdict().exit_code()
}
