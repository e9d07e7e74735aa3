//! Real traffic as cases: the requests a cluster sends a webhook, written as case files (`cases/`
//! format) that `--cases DIR` replays and `fuzz --seed-cases DIR` starts from.
//!
//! Two sources: a recording proxy in front of the webhook ([`proxy`]), which forwards every
//! AdmissionReview unchanged and hands back the webhook's answer byte for byte, and the apiserver's
//! audit log ([`audit`]). Both give [`Recorded`] requests to a [`Recorder`], which redacts them
//! ([`redact`]), keeps those the manifest's webhooks select, folds alike ones ([`shape`]) and writes
//! each remaining one atomically as a case file ([`case_file`]).

pub mod audit;
pub mod case_file;
pub mod proxy;
pub mod redact;
pub mod shape;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub use case_file::Answer;
pub use redact::Tally;

use crate::cases;
use crate::config::{Manifest, WebhookSpec};
use crate::error::{DirectoryError, Error, OptionError};
use crate::requests::ApiResources;

/// How a recording treats what it is given.
#[derive(Clone, Copy, Debug, Default)]
pub struct RecordOptions {
    /// Keep Secret data, credentials, tokens and user names as they are.
    pub keep_sensitive: bool,
    /// Write every request, not one per shape.
    pub all: bool,
}

/// One request to record.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// The AdmissionRequest (JSON), as the webhook receives it.
    pub request: Value,
    /// The webhook of the manifest it went to, when known (the proxy knows it from the path).
    pub webhook: Option<String>,
    /// What the webhook answered, for the proxy.
    pub answer: Option<Answer>,
    /// Where it came from, for the case's description: `proxied POST /validate`, `audit.log line 7`.
    pub source: String,
}

/// What became of one recorded request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Written as this case file.
    Written(PathBuf),
    /// Alike (same shape) to one written before: not written.
    Folded,
    /// No webhook of the manifest selects it: not written.
    NotSelected,
    /// Not a request a case can hold: not written (why).
    Unusable(String),
}

/// What a recording did, for its summary.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Case files written.
    pub written: Vec<PathBuf>,
    /// Requests folded into a case of the same shape.
    pub folded: usize,
    /// Requests no webhook of the manifest selects.
    pub not_selected: usize,
    /// Requests a case cannot hold, with why.
    pub unusable: Vec<String>,
    /// Values redacted in the written cases, by kind.
    pub redacted: Tally,
}

impl Summary {
    /// Lines saying what was written, folded, left out and redacted.
    pub fn render(&self, keep_sensitive: bool) -> String {
        let mut out = format!("{} case file(s) written", self.written.len());
        out.push_str(&format!(", {} folded into a case of the same shape", self.folded));
        out.push_str(&format!(", {} not selected by the manifest's rules", self.not_selected));
        if !self.unusable.is_empty() {
            out.push_str(&format!(", {} not usable as a case", self.unusable.len()));
        }
        out.push('\n');
        for why in &self.unusable {
            out.push_str(&format!("  not usable: {why}\n"));
        }
        if keep_sensitive {
            out.push_str("redacted: nothing (--keep-sensitive)\n");
        } else if self.redacted.is_empty() {
            out.push_str("redacted: nothing found to redact\n");
        } else {
            let parts: Vec<String> = self.redacted.iter().map(|(k, n)| format!("{k}: {n}")).collect();
            out.push_str(&format!("redacted: {}\n", parts.join(", ")));
        }
        out
    }
}

/// Writes recorded requests as case files under one directory.
pub struct Recorder {
    out: PathBuf,
    options: RecordOptions,
    webhooks: Vec<WebhookSpec>,
    api: ApiResources,
    redactor: redact::Redactor,
    shapes: HashSet<u64>,
    summary: Summary,
}

impl Recorder {
    /// A recorder writing into `out` (made when missing) for the webhooks of `manifest`.
    pub fn new(manifest: &Manifest, out: &Path, options: RecordOptions) -> Result<Recorder, Error> {
        let bad = |problem| Error::from(OptionError::Out { path: out.to_path_buf(), problem });
        if out.exists() && !out.is_dir() {
            return Err(bad(DirectoryError::NotADirectory));
        }
        std::fs::create_dir_all(out).map_err(|e| bad(DirectoryError::Make(e)))?;
        // A directory that takes no new file fails now, not at the first request.
        tempfile::Builder::new().prefix(".record-").tempfile_in(out).map_err(|e| bad(DirectoryError::Write(e)))?;
        Ok(Recorder {
            out: out.to_path_buf(),
            options,
            webhooks: manifest.webhooks.clone(),
            api: ApiResources::built_in(),
            redactor: redact::Redactor::new(),
            shapes: HashSet::new(),
            summary: Summary::default(),
        })
    }

    /// The webhook of the manifest served at `path` (the url's path or `service.path`), if exactly
    /// one is.
    pub fn webhook_at(&self, path: &str) -> Option<String> {
        let found: Vec<&WebhookSpec> = self.webhooks.iter().filter(|w| w.path() == path).collect();
        match found.as_slice() {
            [one] => Some(one.name.clone()),
            _ => None,
        }
    }

    /// Redact, select, fold and write one request.
    pub fn record(&mut self, mut recorded: Recorded) -> Result<Outcome, Error> {
        let mut tally = Tally::new();
        if !self.options.keep_sensitive {
            self.redactor.request(&mut recorded.request, &mut tally);
            let mut body = recorded.answer.as_ref().map(|a| a.body.clone()).unwrap_or_default();
            self.redactor.echoes(&mut body, &mut tally);
            if let Some(answer) = recorded.answer.as_mut() {
                answer.body = body;
            }
        }
        let description = format!("Recorded from {}.", recorded.source);
        let text = case_file::case_text(
            &description,
            recorded.webhook.as_deref(),
            &recorded.request,
            recorded.answer.as_ref(),
        );
        let name = case_file::file_name(&recorded.request, &text);
        // The case must load as any case file does; one that does not is reported, not written.
        let case = match cases::parse(&self.out.join(&name), &text) {
            Ok(c) => c,
            Err(e) => {
                let why = format!("{}: {}", recorded.source, e.message);
                self.summary.unusable.push(why.clone());
                return Ok(Outcome::Unusable(why));
            }
        };
        // Selected by the rules of the webhook it went to (or of any webhook, when that is unknown).
        let selecting =
            cases::webhooks_for(&cases::Case { webhook: None, ..case }, &self.webhooks, &self.api).unwrap_or_default();
        let selected = match &recorded.webhook {
            Some(name) => selecting.iter().any(|w| &w.name == name),
            None => !selecting.is_empty(),
        };
        if !selected {
            self.summary.not_selected += 1;
            return Ok(Outcome::NotSelected);
        }
        if !self.options.all && !self.shapes.insert(shape::shape(&recorded.request, recorded.webhook.as_deref())) {
            self.summary.folded += 1;
            return Ok(Outcome::Folded);
        }
        let path = case_file::write_atomically(&self.out, &name, &text)?;
        for (k, n) in tally {
            *self.summary.redacted.entry(k).or_default() += n;
        }
        self.summary.written.push(path.clone());
        Ok(Outcome::Written(path))
    }

    /// Count a request that never became a case (`why`), e.g. a body that is no AdmissionReview.
    pub fn unusable(&mut self, why: String) -> Outcome {
        self.summary.unusable.push(why.clone());
        Outcome::Unusable(why)
    }

    /// What the recording did so far.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The options it records with.
    pub fn options(&self) -> RecordOptions {
        self.options
    }
}
