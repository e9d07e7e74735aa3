//! A JSON report read back ([`JsonReport`]): rendered as Markdown, GitHub annotations or SARIF,
//! or merged with the other reports of a sharded campaign.

use std::path::Path;

use serde_json::Value;

use super::document::Document;
use super::{annotations, markdown, merge, sarif};
use crate::error::{Error, ReportError};
use crate::verdict::Verdict;

/// A JSON report as `--report-json` writes it, read back: to render it as Markdown, GitHub
/// annotations or SARIF, or to merge the reports of a sharded campaign into one verdict.
#[derive(Clone, Debug)]
pub struct JsonReport {
    value: Value,
    document: Document,
    /// Where it was read from.
    name: Option<String>,
}

impl JsonReport {
    /// A report from its JSON value; an error when it is not a webhook-conformance report.
    pub fn from_value(value: Value) -> Result<JsonReport, Error> {
        let document = Document::from_value(&value).map_err(|source| Error::Report { at: None, source })?;
        Ok(JsonReport { value, document, name: None })
    }

    /// Read the report file `path`.
    pub fn read(path: &Path) -> Result<JsonReport, Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
        let at = || Some(path.to_path_buf());
        let value: Value =
            serde_json::from_str(&text).map_err(|e| Error::Report { at: at(), source: ReportError::NotJson(e) })?;
        let document = Document::from_value(&value).map_err(|source| Error::Report { at: at(), source })?;
        Ok(JsonReport { value, document, name: Some(path.display().to_string()) })
    }

    /// One report of several: the shards of one campaign (each exactly once), or reports of separate
    /// runs. FAIL when any of them FAILs; counts add up; each rule keeps its worst outcome.
    pub fn merge(reports: &[JsonReport]) -> Result<JsonReport, Error> {
        let named: Vec<(String, &Value)> = reports
            .iter()
            .enumerate()
            .map(|(i, r)| (r.name.clone().unwrap_or_else(|| format!("report {}", i + 1)), &r.value))
            .collect();
        JsonReport::from_value(merge::merge(&named).map_err(|source| Error::Report { at: None, source })?)
    }

    /// PASS or FAIL.
    pub fn verdict(&self) -> Verdict {
        self.document.verdict()
    }

    /// The JSON value.
    pub fn to_json(&self) -> &Value {
        &self.value
    }

    /// Markdown for a pull request or `$GITHUB_STEP_SUMMARY`.
    pub fn to_markdown(&self) -> String {
        markdown::render(&self.document)
    }

    /// GitHub Actions workflow commands (`::error file=…,line=…::…`), one per FAIL or WARN.
    pub fn to_github_annotations(&self) -> String {
        annotations::render(&self.document)
    }

    /// A SARIF 2.1.0 log for code scanning.
    pub fn to_sarif(&self) -> Value {
        sarif::render(&self.document)
    }

    /// A few lines for people: the verdict, each FAIL and WARN in one line, the counts.
    pub fn render_summary(&self) -> String {
        markdown::summary_text(&self.document)
    }
}
