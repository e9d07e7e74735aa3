//! What the recording API keeps of every call it gets: when, the method, path, query, the body
//! (the first [`BODY_LIMIT`] bytes), the status answered, whether the issued token came with it,
//! whether it was a dry run, and every UUID it carried (in the path, query, headers or body: the
//! admission request's uid, when the webhook passes it on).

use std::sync::Mutex;
use std::time::Instant;

/// How much of a body is kept.
pub(crate) const BODY_LIMIT: usize = 4096;

/// One call to the API.
#[derive(Clone, Debug)]
pub(crate) struct ApiCall {
    /// When it arrived.
    pub at: Instant,
    /// `GET`, `POST`, …
    pub method: String,
    /// The path, e.g. `/api/v1/namespaces/ns/configmaps`.
    pub path: String,
    /// The query, without `?` (empty when none).
    pub query: String,
    /// The body (lossy UTF-8, cut at [`BODY_LIMIT`] bytes).
    pub body: String,
    /// The status answered.
    pub status: u16,
    /// It carried the token the recorder issued (otherwise it was refused with 401).
    pub authenticated: bool,
    /// It asked for `dryRun=All`.
    pub dry_run: bool,
    /// The UUIDs it carried anywhere (path, query, headers, body).
    pub uids: Vec<String>,
}

impl ApiCall {
    /// A write: POST, PUT, PATCH or DELETE (reads are GET, HEAD, OPTIONS).
    pub(crate) fn is_write(&self) -> bool {
        matches!(self.method.as_str(), "POST" | "PUT" | "PATCH" | "DELETE")
    }

    /// A write that changes the cluster: authenticated, not a dry run, and carried out (a 2xx
    /// answer; a refused write changes nothing).
    pub(crate) fn changes_state(&self) -> bool {
        self.is_write() && self.authenticated && !self.dry_run && (200..300).contains(&self.status)
    }

    /// `POST /api/v1/namespaces/ns/configmaps?x=y → 201`.
    pub(crate) fn describe(&self) -> String {
        let query = if self.query.is_empty() { String::new() } else { format!("?{}", self.query) };
        let body = if self.body.is_empty() { String::new() } else { format!(" {}", crate::text::snippet(&self.body)) };
        format!("{} {}{query} → {}{body}", self.method, self.path, self.status)
    }
}

/// Every call, in arrival order.
#[derive(Debug, Default)]
pub(crate) struct Recording {
    calls: Mutex<Vec<ApiCall>>,
    /// When the latest of them arrived.
    latest: Mutex<Option<Instant>>,
}

impl Recording {
    /// Keep `call`.
    pub(crate) fn push(&self, call: ApiCall) {
        let at = call.at;
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).push(call);
        let mut latest = self.latest.lock().unwrap_or_else(|e| e.into_inner());
        *latest = Some(latest.map_or(at, |l| l.max(at)));
    }

    /// When the latest call arrived (`None`: no call so far).
    pub(crate) fn last_at(&self) -> Option<Instant> {
        *self.latest.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The calls so far.
    pub(crate) fn calls(&self) -> Vec<ApiCall> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// How many calls so far.
    pub(crate) fn len(&self) -> usize {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// No call so far.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Every UUID (8-4-4-4-12 hex digits, as an admission request's uid is written) in `text`.
pub(crate) fn uuids(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i + 36 <= bytes.len() {
        let candidate = &bytes[i..i + 36];
        let is_uuid = candidate.iter().enumerate().all(|(j, b)| match j {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        });
        let bounded = i == 0 || !bytes[i - 1].is_ascii_hexdigit();
        if is_uuid && bounded {
            let uid = String::from_utf8_lossy(candidate).to_ascii_lowercase();
            if !out.contains(&uid) {
                out.push(uid);
            }
            i += 36;
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_found_wherever_they_are() {
        let text = r#"{"metadata":{"name":"from-705ab4f5-6393-11e8-b7cc-42010a800002","annotations":{"u":"705AB4F5-6393-11E8-B7CC-42010A800002"}}}"#;
        assert_eq!(uuids(text), vec!["705ab4f5-6393-11e8-b7cc-42010a800002"]);
        assert!(uuids("705ab4f5-6393-11e8-b7cc-42010a80000").is_empty());
        assert!(uuids("").is_empty());
    }

    #[test]
    fn the_latest_call_is_the_one_that_arrived_last() {
        let call = |at| ApiCall {
            at,
            method: "GET".into(),
            path: "/api".into(),
            query: String::new(),
            body: String::new(),
            status: 200,
            authenticated: true,
            dry_run: false,
            uids: Vec::new(),
        };
        let recording = Recording::default();
        assert_eq!(recording.last_at(), None);
        let (early, late) = (Instant::now(), Instant::now() + std::time::Duration::from_secs(1));
        recording.push(call(late));
        // Pushed once answered: a call that arrived earlier may be pushed after it.
        recording.push(call(early));
        assert_eq!(recording.last_at(), Some(late));
    }
}
