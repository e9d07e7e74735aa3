//! Live counters of the property step, for a progress line.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::client::CallTime;

/// Live counters for a progress line.
#[derive(Debug)]
pub struct Progress {
    /// Generated cases judged.
    pub cases: AtomicU64,
    /// Requests sent.
    pub requests: AtomicU64,
    /// Properties that failed.
    pub failures: AtomicU64,
    /// Failures being shrunk right now.
    pub shrinking: AtomicU64,
    /// The calls made and the time they took (the webhook's answers awaited).
    pub call_time: Arc<CallTime>,
    /// When the counting started.
    pub started: Instant,
}

impl Default for Progress {
    fn default() -> Self {
        Progress {
            cases: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            shrinking: AtomicU64::new(0),
            call_time: Arc::default(),
            started: Instant::now(),
        }
    }
}

impl Progress {
    /// One line: generated cases judged, requests sent, rate, failing properties, failures being
    /// shrunk.
    pub fn line(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        let requests = self.requests.load(Ordering::Relaxed);
        let shrinking = match self.shrinking.load(Ordering::Relaxed) {
            0 => String::new(),
            n => format!(", shrinking {n} failure(s)"),
        };
        format!(
            "{} generated cases judged, {} requests sent, {:.0} requests/s, {} failing properties{shrinking}",
            self.cases.load(Ordering::Relaxed),
            requests,
            requests as f64 / secs,
            self.failures.load(Ordering::Relaxed)
        )
    }
}
