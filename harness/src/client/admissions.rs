//! The admission requests a client has in flight and had: for each, its uid, the webhook (or path)
//! it went to, whether it was a dry run, and when it was sent and answered. What the webhook does
//! meanwhile (its calls to the recording API) is attributed to them.
//!
//! A long campaign sends millions of requests: the log keeps how many went to each webhook and
//! path, dry or not, for all of them, and the requests themselves only while a call of the webhook
//! could still be attributed to them (see [`AdmissionLog::recording_calls`]), so that its memory
//! stays flat.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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

/// Requests the log keeps before it lets go of old ones.
const KEPT: usize = 1 << 16;
/// How long after its answer a request stays in the log at least.
const HORIZON: Duration = Duration::from_secs(60);

/// When the recording API last got a call (`None`: never).
type LastCall = Box<dyn Fn() -> Option<Instant> + Send + Sync>;

/// Every admission request a client sent, in order.
#[derive(Default)]
pub struct AdmissionLog {
    inner: Mutex<Inner>,
    /// Where the log may let go of old requests: when the API last got a call.
    last_call: Option<LastCall>,
}

impl std::fmt::Debug for AdmissionLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        f.debug_struct("AdmissionLog").field("pushed", &inner.pushed).field("kept", &inner.kept.len()).finish()
    }
}

#[derive(Debug, Default)]
struct Inner {
    /// The requests kept, the last ones sent: the first of them is request number `pushed - kept.len()`.
    kept: VecDeque<Admission>,
    /// Requests noted so far.
    pushed: usize,
    /// How many went to each webhook (when the caller said) and path, dry run or not.
    counts: Vec<(Sent, u64)>,
}

impl Inner {
    fn first(&self) -> usize {
        self.pushed - self.kept.len()
    }
}

/// Where requests went: the webhook (when the caller said), the path, and whether they were dry runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sent {
    /// The webhook they were sent to, when the caller said.
    pub webhook: Option<String>,
    /// The path they were sent to.
    pub path: String,
    /// `request.dryRun`.
    pub dry_run: bool,
}

/// Ends its admission's window when dropped (answered, failed or cancelled).
pub struct InFlight {
    log: Arc<AdmissionLog>,
    /// The request's number in the log.
    number: usize,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut inner = self.log.inner.lock().unwrap_or_else(|e| e.into_inner());
        // A request in flight is never let go of.
        if let Some(i) = self.number.checked_sub(inner.first()) {
            if let Some(e) = inner.kept.get_mut(i) {
                e.end = Some(Instant::now());
            }
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
    /// A log of the requests sent to a target whose calls to the recording API are seen by
    /// `last_call` (when the API last got one). Once it holds [`KEPT`] requests it lets go of the
    /// oldest ones answered more than [`HORIZON`] ago and sent after the API's last call: no call
    /// seen so far arrived while they were in flight or carried their uid, and a later call would
    /// carry it only if the webhook made it a minute after answering. Their counts stay.
    pub fn recording_calls(last_call: impl Fn() -> Option<Instant> + Send + Sync + 'static) -> AdmissionLog {
        AdmissionLog { inner: Mutex::default(), last_call: Some(Box::new(last_call)) }
    }

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
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let same = |s: &Sent| s.webhook.as_deref() == webhook && s.path == path && s.dry_run == dry_run;
        match inner.counts.iter_mut().find(|(s, _)| same(s)) {
            Some((_, n)) => *n += 1,
            None => {
                let sent = Sent { webhook: webhook.map(str::to_string), path: path.to_string(), dry_run };
                inner.counts.push((sent, 1));
            }
        }
        if inner.kept.len() >= KEPT {
            if let Some(last_call) = &self.last_call {
                let (now, last) = (Instant::now(), last_call());
                let done = |a: &Admission| {
                    a.end.is_some_and(|end| now.saturating_duration_since(end) >= HORIZON)
                        && last.is_none_or(|l| l < a.start)
                };
                while inner.kept.front().is_some_and(done) {
                    inner.kept.pop_front();
                }
            }
        }
        inner.kept.push_back(admission);
        inner.pushed += 1;
        InFlight { log: self.clone(), number: inner.pushed - 1 }
    }

    /// The admissions kept (every one, unless the log let go of old ones).
    pub fn entries(&self) -> Vec<Admission> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).kept.iter().cloned().collect()
    }

    /// How many requests were noted so far.
    pub fn pushed(&self) -> usize {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).pushed
    }

    /// The uid of request number `number` (counted from 0), if the log still holds it.
    pub fn uid_of(&self, number: usize) -> Option<String> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let i = number.checked_sub(inner.first())?;
        inner.kept.get(i).map(|a| a.uid.clone())
    }

    /// How many requests went where, for every request noted.
    pub fn counts(&self) -> Vec<(Sent, u64)> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).counts.clone()
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

    /// `count` requests noted and answered, the first `open` of them left in flight.
    fn noted(log: &Arc<AdmissionLog>, count: usize, open: usize) -> Vec<InFlight> {
        let mut held = Vec::new();
        for i in 0..count {
            let body = format!(r#"{{"request":{{"uid":"u{i}","dryRun":{},"operation":"CREATE"}}}}"#, i % 2 == 0);
            let flight = log.begin(Some("w"), "/p", body.as_bytes()).unwrap();
            if i < open {
                held.push(flight);
            }
        }
        held
    }

    /// Every request of `log` answered so far, as if answered just over [`HORIZON`] ago.
    fn age(log: &AdmissionLog) {
        let long_ago = HORIZON + Duration::from_secs(1);
        for a in log.inner.lock().unwrap().kept.iter_mut() {
            a.end = a.end.map(|e| e.checked_sub(long_ago).expect("the clock runs longer than a minute"));
        }
    }

    #[test]
    fn a_log_of_a_silent_api_lets_go_of_requests_long_answered_and_counts_them_all() {
        // No call to the API: requests answered a minute ago are let go of, once there are many.
        let log = Arc::new(AdmissionLog::recording_calls(|| None));
        drop(noted(&log, KEPT, 0));
        age(&log);
        drop(noted(&log, 3, 0));
        assert_eq!((log.pushed(), log.entries().len()), (KEPT + 3, 3));
        assert_eq!(log.uid_of(KEPT - 1), None);
        assert_eq!(log.uid_of(KEPT + 2).as_deref(), Some("u2"));
        let total: u64 = log.counts().iter().map(|(_, n)| n).sum();
        let dry: u64 = log.counts().iter().filter(|(s, _)| s.dry_run).map(|(_, n)| n).sum();
        assert_eq!((total, dry), ((KEPT + 3) as u64, (KEPT / 2 + 2) as u64));
    }

    #[test]
    fn a_log_keeps_requests_in_flight_recent_or_after_an_api_call() {
        // Answered just now: kept.
        let log = Arc::new(AdmissionLog::recording_calls(|| None));
        drop(noted(&log, KEPT + 1, 0));
        assert_eq!(log.entries().len(), KEPT + 1);
        // The API got a call after they were sent: it may be theirs, they are kept.
        let called = Instant::now() + Duration::from_secs(3600);
        let log = Arc::new(AdmissionLog::recording_calls(move || Some(called)));
        drop(noted(&log, KEPT, 0));
        age(&log);
        drop(noted(&log, 1, 0));
        assert_eq!(log.entries().len(), KEPT + 1);
        // The first one still in flight: nothing after it is let go of either, and its window
        // closes when it is answered.
        let log = Arc::new(AdmissionLog::recording_calls(|| None));
        let held = noted(&log, KEPT, 1);
        age(&log);
        drop(noted(&log, 1, 0));
        assert_eq!(log.entries().len(), KEPT + 1);
        drop(held);
        assert!(log.entries()[0].end.is_some());
        // A log with no API to watch keeps everything.
        let log = Arc::new(AdmissionLog::default());
        drop(noted(&log, KEPT, 0));
        age(&log);
        drop(noted(&log, 1, 0));
        assert_eq!(log.entries().len(), KEPT + 1);
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
