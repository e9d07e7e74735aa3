//! GitHub Actions annotations (`--github-annotations`): one workflow command per FAIL (`::error`) and
//! WARN (`::warning`), printed on stdout where the runner reads them. Manifest lint and coverage
//! findings point at the webhook's line in the manifest, case findings at the case file; findings
//! about the webhook's answers carry no file (they are about its behaviour, not a line of
//! configuration).
//!
//! Paths are written as the run was given them; an absolute path under `$GITHUB_WORKSPACE` is made
//! relative to it, as annotations want.

use std::fmt::Write;

use super::document::{Document, Issue};
use crate::rules::RuleKind;
use crate::verdict::Outcome;

/// Escape a command's message (`%`, CR, LF), as the runner's `toCommandValue` does.
pub(crate) fn escape_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escape a command property (also `:` and `,`).
pub(crate) fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

fn relative(file: &str) -> String {
    if let Ok(workspace) = std::env::var("GITHUB_WORKSPACE") {
        let base = workspace.trim_end_matches('/');
        if let Some(rest) = file.strip_prefix(base).and_then(|r| r.strip_prefix('/')) {
            return rest.to_string();
        }
    }
    file.to_string()
}

fn command(issue: &Issue) -> String {
    let level = if issue.outcome == Outcome::Fail { "error" } else { "warning" };
    let mut properties = Vec::new();
    if matches!(issue.kind, RuleKind::Manifest | RuleKind::Case | RuleKind::Coverage) {
        if let Some(at) = &issue.location {
            properties.push(format!("file={}", escape_property(&relative(&at.file))));
            properties.push(format!("line={}", at.line));
        }
    }
    let title = match &issue.subject {
        Some(s) => format!("{} {} ({s})", issue.rule, issue.outcome.tag()),
        None => format!("{} {}", issue.rule, issue.outcome.tag()),
    };
    properties.push(format!("title={}", escape_property(&title)));
    let mut message = issue.found.clone();
    if let Some(extent) = &issue.extent {
        let _ = write!(message, " ({extent})");
    }
    if let Some(said) = &issue.apiserver {
        let _ = write!(message, "\nThe apiserver says: {said}");
    }
    if let Some(statement) = issue.statement() {
        let _ = write!(message, "\nRule: {statement}");
    }
    format!("::{level} {}::{}", properties.join(","), escape_data(&message))
}

/// One line per FAIL and WARN (FAILs first).
pub(crate) fn render(doc: &Document) -> String {
    doc.issues().iter().map(|i| command(i) + "\n").collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_properties_are_escaped() {
        assert_eq!(escape_data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(escape_property("a:b,c\n"), "a%3Ab%2Cc%0A");
    }
}
