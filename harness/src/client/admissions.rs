//! The admission requests a client has in flight and had: for each, its uid, the webhook (or path)
//! it went to, whether it was a dry run, and when it was sent and answered. What the webhook does
//! meanwhile (its calls to the recording API) is attributed to them.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Deserialize;

use crate::admission::AdmissionRequest;

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

/// An optional member's text, empty when absent.
fn text(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or_default()
}

/// What the log keeps of a request's own members.
struct Noted {
    uid: String,
    dry_run: bool,
    summary: String,
}

impl Noted {
    /// `CREATE configmaps/status ns/name` (the subresource, namespace and name when not empty),
    /// with the uid lower-cased.
    fn new(uid: &str, dry_run: bool, operation: &str, resource: &str, sub: &str, ns: &str, name: &str) -> Noted {
        let mut summary = format!("{operation} {resource}");
        if !sub.is_empty() {
            summary.push('/');
            summary.push_str(sub);
        }
        summary.push(' ');
        if !ns.is_empty() {
            summary.push_str(ns);
            summary.push('/');
        }
        summary.push_str(name);
        Noted { uid: uid.to_ascii_lowercase(), dry_run, summary: summary.trim_end().to_string() }
    }

    /// Read from the review in `body`: `None` for a body that is not a review with a uid.
    fn of_body(body: &[u8]) -> Option<Noted> {
        let request = serde_json::from_slice::<Review>(body).ok()?.request?;
        Some(Noted::new(
            request.uid.as_deref()?,
            request.dry_run.unwrap_or(false),
            text(&request.operation),
            request.resource.as_ref().and_then(|r| r.resource.as_deref()).unwrap_or_default(),
            text(&request.sub_resource),
            text(&request.namespace),
            text(&request.name),
        ))
    }

    /// Taken from the request the body was written from, as [`Noted::of_body`] reads it back.
    fn of_request(request: &AdmissionRequest) -> Noted {
        Noted::new(
            &request.uid,
            request.dry_run,
            request.operation.as_str(),
            &request.resource.resource,
            text(&request.sub_resource),
            text(&request.namespace),
            text(&request.name),
        )
    }
}

impl AdmissionLog {
    /// Note the review in `body` as sent now to `webhook` at `path` (nothing for a body that is not
    /// a review with a uid).
    pub fn begin(self: &Arc<Self>, webhook: Option<&str>, path: &str, body: &[u8]) -> Option<InFlight> {
        Some(self.push(webhook, path, Noted::of_body(body)?))
    }

    /// [`begin`](AdmissionLog::begin) of a body written from `request` (what `begin` would read
    /// back of it, without reading the body).
    pub fn begin_request(self: &Arc<Self>, webhook: Option<&str>, path: &str, request: &AdmissionRequest) -> InFlight {
        self.push(webhook, path, Noted::of_request(request))
    }

    fn push(self: &Arc<Self>, webhook: Option<&str>, path: &str, noted: Noted) -> InFlight {
        let Noted { uid, dry_run, summary } = noted;
        let admission = Admission {
            uid,
            webhook: webhook.map(str::to_string),
            path: path.to_string(),
            dry_run,
            summary,
            start: Instant::now(),
            end: None,
        };
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.push(admission);
        InFlight { log: self.clone(), index: entries.len() - 1 }
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

    /// The log notes a request the suite wrote as it notes the body written from it: over every
    /// planned request and 100 generated ones per webhook of the reference manifest, and the same
    /// requests with a subresource, without a namespace or name, and dry-run.
    #[test]
    fn a_request_is_noted_as_its_body_is() {
        let compared = std::cell::Cell::new(0);
        crate::requests::each_reference_case(100, |case| {
            let mut variants = vec![case.review.clone()];
            let mut other = case.review.clone();
            other.request.sub_resource = Some("status".into());
            other.request.namespace = None;
            other.request.dry_run = !other.request.dry_run;
            other.request.uid = other.request.uid.to_ascii_uppercase();
            variants.push(other);
            let mut unnamed = case.review.clone();
            unnamed.request.name = Some(String::new());
            unnamed.request.sub_resource = Some(String::new());
            variants.push(unnamed);
            for review in variants {
                let log = Arc::new(AdmissionLog::default());
                drop(log.begin(Some("w"), "/p", &review.to_bytes()).ok_or("a sent review is noted")?);
                drop(log.begin_request(Some("w"), "/p", &review.request));
                let [a, b] = &log.entries()[..] else { return Err("two entries".into()) };
                let key =
                    |e: &Admission| (e.uid.clone(), e.dry_run, e.summary.clone(), e.webhook.clone(), e.path.clone());
                if key(a) != key(b) {
                    return Err(format!("{}: read back {:?}, taken {:?}", case.label, key(a), key(b)));
                }
                compared.set(compared.get() + 1);
            }
            Ok(())
        });
        assert!(compared.get() > 900, "{} requests compared", compared.get());
    }
}
