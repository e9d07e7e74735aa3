//! The admission requests a client has in flight and had: for each, its uid, the webhook (or path)
//! it went to, whether it was a dry run, and when it was sent and answered. What the webhook does
//! meanwhile (its calls to the recording API) is attributed to them.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Deserialize;

/// One admission request sent.
#[derive(Clone, Debug)]
pub struct Admission {
    /// `request.uid`.
    pub uid: String,
    /// The webhook it was sent to, when the caller said.
    pub webhook: Option<String>,
    /// The path it was sent to.
    pub path: String,
    /// `request.dryRun`.
    pub dry_run: bool,
    /// `CREATE configmaps ns/name`.
    pub summary: String,
    /// When it was sent.
    pub start: Instant,
    /// When its call returned (`None` while in flight).
    pub end: Option<Instant>,
}

#[derive(Deserialize)]
struct Review {
    request: Option<Request>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Request {
    uid: Option<String>,
    dry_run: Option<bool>,
    operation: Option<String>,
    resource: Option<Resource>,
    sub_resource: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
}

#[derive(Deserialize)]
struct Resource {
    resource: Option<String>,
}

/// Every admission request a client sent, in order.
#[derive(Debug, Default)]
pub struct AdmissionLog {
    entries: Mutex<Vec<Admission>>,
}

/// Ends its admission's window when dropped (answered, failed or cancelled).
pub struct InFlight {
    log: Arc<AdmissionLog>,
    index: usize,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut entries = self.log.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = entries.get_mut(self.index) {
            e.end = Some(Instant::now());
        }
    }
}

impl AdmissionLog {
    /// Note the review in `body` as sent now to `webhook` at `path` (nothing for a body that is not
    /// a review with a uid).
    pub fn begin(self: &Arc<Self>, webhook: Option<&str>, path: &str, body: &[u8]) -> Option<InFlight> {
        let request = serde_json::from_slice::<Review>(body).ok()?.request?;
        let uid = request.uid?.to_ascii_lowercase();
        let mut summary = format!(
            "{} {}",
            request.operation.unwrap_or_default(),
            request.resource.and_then(|r| r.resource).unwrap_or_default()
        );
        if let Some(sub) = request.sub_resource.filter(|s| !s.is_empty()) {
            summary.push('/');
            summary.push_str(&sub);
        }
        let name = request.name.unwrap_or_default();
        match request.namespace.filter(|n| !n.is_empty()) {
            Some(ns) => summary.push_str(&format!(" {ns}/{name}")),
            None => summary.push_str(&format!(" {name}")),
        }
        let admission = Admission {
            uid,
            webhook: webhook.map(str::to_string),
            path: path.to_string(),
            dry_run: request.dry_run.unwrap_or(false),
            summary: summary.trim_end().to_string(),
            start: Instant::now(),
            end: None,
        };
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.push(admission);
        Some(InFlight { log: self.clone(), index: entries.len() - 1 })
    }

    /// Every admission so far.
    pub fn entries(&self) -> Vec<Admission> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_review_is_noted_and_its_window_closed() {
        let log = Arc::new(AdmissionLog::default());
        let body = br#"{"request":{"uid":"ABC","dryRun":true,"operation":"CREATE","resource":{"resource":"pods"},"namespace":"ns","name":"p"}}"#;
        let flight = log.begin(Some("w"), "/mutate", body).unwrap();
        assert!(log.entries()[0].end.is_none());
        drop(flight);
        let e = &log.entries()[0];
        assert_eq!((e.uid.as_str(), e.dry_run, e.summary.as_str()), ("abc", true, "CREATE pods ns/p"));
        assert!(e.end.is_some());
        assert!(log.begin(None, "/x", b"not json").is_none());
    }
}
