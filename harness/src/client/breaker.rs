//! When to stop calling a webhook: once it has missed its deadline, or closed the connection
//! without an answer, on [`THRESHOLD`] requests in a row, the verdict (`transport.deadline`,
//! `transport.answer`) is known, and every further request to that path would only wait out the
//! same timeout. Those requests are not sent; each path keeps count of them and of why.
//!
//! Until a path has answered once, and while a streak is under way, at most as many requests are in
//! flight to it as it takes to complete the streak: a further request waits for those to settle
//! instead of starting one more wait of its own. An answer lets it go; a completed streak means it
//! is not sent. A request whose missed deadline does not count (an older review version's) waits
//! the same way while counting requests in flight may still complete the streak: sent as the
//! first of them time out, it would wait out one more timeout for nothing.

use std::collections::BTreeMap;
use std::sync::Mutex;

use tokio::sync::Notify;

use super::{FailureKind, Transport};

/// Deadlines missed (or connections closed unanswered) in a row after which a path is no longer
/// called.
pub(crate) const THRESHOLD: u32 = 3;

#[derive(Debug, Default)]
struct PathState {
    /// Missed deadlines and closed connections since the last answer, in order.
    streak: Vec<FailureKind>,
    /// Why the path is no longer called, once it is not.
    open: Option<String>,
    /// Requests not sent since.
    not_sent: u64,
    /// Requests sent and not yet settled.
    in_flight: u32,
    /// The path has answered (or failed otherwise than by a missed deadline) at least once.
    proven: bool,
}

/// Requests a client did not send to one path, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsent {
    /// The webhook's path.
    pub path: String,
    /// How many requests were not sent.
    pub requests: u64,
    /// Why.
    pub why: String,
}

/// The per-path state of a client's calls.
#[derive(Debug, Default)]
pub(crate) struct Breaker {
    paths: Mutex<BTreeMap<String, PathState>>,
    /// Rung whenever a request settles.
    settled: Notify,
}

/// A request let through to a path: record what it got (or drop it if it never completed).
pub(crate) struct Admission<'a> {
    breaker: &'a Breaker,
    path: String,
    /// Whether its missed deadline counts (and it is among the requests in flight that do).
    count: bool,
    settled: bool,
}

impl Admission<'_> {
    /// Record what the request got; a missed deadline of a request that does not count (one whose
    /// breach is only a WARN) neither extends nor ends a streak.
    pub(crate) fn record(mut self, transport: &Transport, timeout_seconds: u32) {
        self.settled = true;
        self.breaker.settle(&self.path, Some((transport, timeout_seconds)), self.count);
    }
}

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        if !self.settled {
            self.breaker.settle(&self.path, None, self.count);
        }
    }
}

fn reason(streak: &[FailureKind], timeout_seconds: u32) -> String {
    let deadlines = streak.iter().filter(|k| **k == FailureKind::Deadline).count();
    let what = if deadlines == streak.len() {
        format!("missed its deadline (timeoutSeconds={timeout_seconds})")
    } else if deadlines == 0 {
        "closed the connection without an answer".to_string()
    } else {
        format!("missed its deadline (timeoutSeconds={timeout_seconds}) or closed the connection without an answer")
    };
    format!(
        "the webhook {what} on {} requests in a row; the verdict is known, so no more were sent to wait out the same timeout",
        streak.len()
    )
}

impl Breaker {
    /// Let a request to `path` through, or `Err(why)` when requests to it are no longer sent (this
    /// one counted as not sent). A request whose missed deadline would `count` waits while a streak
    /// is being settled by requests already in flight; one that would not waits while requests
    /// that count are in flight to a path that has not answered since its last miss.
    pub(crate) async fn admit(&self, path: &str, count: bool) -> Result<Admission<'_>, String> {
        loop {
            let settled = self.settled.notified();
            tokio::pin!(settled);
            settled.as_mut().enable();
            {
                let mut paths = self.paths.lock().unwrap_or_else(|e| e.into_inner());
                let state = paths.entry(path.to_string()).or_default();
                if let Some(why) = &state.open {
                    state.not_sent += 1;
                    return Err(why.clone());
                }
                let streak = state.streak.len() as u32;
                let answering = state.proven && streak == 0;
                let free = if count { state.in_flight + streak < THRESHOLD } else { state.in_flight == 0 };
                if answering || free {
                    if count {
                        state.in_flight += 1;
                    }
                    return Ok(Admission { breaker: self, path: path.to_string(), count, settled: false });
                }
            }
            settled.await;
        }
    }

    /// A request to `path` settled: with what it got, or `None` when it never completed.
    fn settle(&self, path: &str, outcome: Option<(&Transport, u32)>, count: bool) {
        {
            let mut paths = self.paths.lock().unwrap_or_else(|e| e.into_inner());
            let state = paths.entry(path.to_string()).or_default();
            if count {
                state.in_flight = state.in_flight.saturating_sub(1);
            }
            match outcome {
                Some((Transport::Failed(f), _))
                    if matches!(f.kind, FailureKind::Deadline | FailureKind::Closed) && !count => {}
                Some((Transport::Failed(f), timeout_seconds))
                    if matches!(f.kind, FailureKind::Deadline | FailureKind::Closed) =>
                {
                    state.streak.push(f.kind);
                    if state.open.is_none() && state.streak.len() >= THRESHOLD as usize {
                        state.open = Some(reason(&state.streak, timeout_seconds));
                    }
                }
                Some(_) => {
                    state.streak.clear();
                    state.proven = true;
                }
                None => {}
            }
        }
        self.settled.notify_waiters();
    }

    /// Every path with requests not sent.
    pub(crate) fn unsent(&self) -> Vec<Unsent> {
        let paths = self.paths.lock().unwrap_or_else(|e| e.into_inner());
        paths
            .iter()
            .filter(|(_, s)| s.not_sent > 0)
            .map(|(path, s)| Unsent {
                path: path.clone(),
                requests: s.not_sent,
                why: s.open.clone().unwrap_or_default(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::client::{HttpAnswer, TransportFailure};

    fn failed(kind: FailureKind) -> Transport {
        Transport::Failed(TransportFailure { kind, message: String::new(), go_error: None, elapsed: Duration::ZERO })
    }

    fn answered() -> Transport {
        Transport::Answered(HttpAnswer {
            status: 200,
            content_type: None,
            body: Vec::new(),
            http_version: "HTTP/1.1".into(),
            elapsed: Duration::ZERO,
        })
    }

    fn record(b: &Breaker, path: &str, transport: Transport) {
        let admitted = futures_ready(b.admit(path, true)).expect("admitted");
        admitted.record(&transport, 5);
    }

    /// Poll a future that must be ready at once.
    fn futures_ready<F: std::future::Future>(f: F) -> F::Output {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        runtime.block_on(async { tokio::time::timeout(Duration::from_secs(1), f).await.expect("ready at once") })
    }

    #[test]
    fn opens_after_a_streak_and_only_for_that_path() {
        let b = Breaker::default();
        record(&b, "/a", failed(FailureKind::Deadline));
        record(&b, "/a", failed(FailureKind::Deadline));
        record(&b, "/a", answered());
        record(&b, "/a", failed(FailureKind::Deadline));
        record(&b, "/a", failed(FailureKind::Closed));
        record(&b, "/a", failed(FailureKind::Connect));
        record(&b, "/a", failed(FailureKind::Deadline));
        record(&b, "/a", failed(FailureKind::Deadline));
        assert!(b.unsent().is_empty(), "an answer or a refused connection ends a streak");
        record(&b, "/a", failed(FailureKind::Deadline));
        let why = futures_ready(b.admit("/a", true)).err().expect("not sent after three in a row");
        assert!(why.contains("missed its deadline (timeoutSeconds=5) on 3 requests in a row"), "{why}");
        assert!(futures_ready(b.admit("/b", true)).is_ok());
        let _ = futures_ready(b.admit("/a", true));
        assert_eq!(b.unsent(), vec![Unsent { path: "/a".into(), requests: 2, why }]);
    }

    #[test]
    fn misses_that_do_not_count_neither_extend_nor_end_a_streak() {
        let b = Breaker::default();
        let miss =
            |count| futures_ready(b.admit("/a", count)).expect("admitted").record(&failed(FailureKind::Deadline), 5);
        miss(true);
        miss(false);
        miss(false);
        miss(false);
        miss(true);
        // Two that count, three that do not: one more that counts may go, and it settles the streak.
        let last = futures_ready(b.admit("/a", true)).expect("admitted");
        last.record(&failed(FailureKind::Deadline), 5);
        assert!(futures_ready(b.admit("/a", true)).is_err(), "the third that counts");
        assert!(futures_ready(b.admit("/a", false)).is_err(), "nor one that does not count");
    }

    #[test]
    fn a_request_that_does_not_count_waits_while_a_streak_may_complete() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        // Two misses recorded and the third in flight (a webhook that hangs, its first requests
        // timing out one after the other): the request that does not count is not sent.
        runtime.block_on(async {
            let b = Breaker::default();
            let mut in_flight = futures::join_all_admit(&b, 3).await.into_iter();
            in_flight.next().unwrap().record(&failed(FailureKind::Deadline), 5);
            in_flight.next().unwrap().record(&failed(FailureKind::Deadline), 5);
            let older = b.admit("/a", false);
            tokio::pin!(older);
            assert!(tokio::time::timeout(Duration::from_millis(50), older.as_mut()).await.is_err(), "held back");
            in_flight.next().unwrap().record(&failed(FailureKind::Deadline), 5);
            assert!(older.await.is_err(), "the streak completed: not sent");
        });
        // An answer lets it go; so does a path with nothing in flight that could end the streak.
        runtime.block_on(async {
            let b = Breaker::default();
            let first = b.admit("/a", true).await.expect("admitted");
            let older = b.admit("/a", false);
            tokio::pin!(older);
            assert!(tokio::time::timeout(Duration::from_millis(50), older.as_mut()).await.is_err(), "held back");
            first.record(&answered(), 5);
            older.await.expect("sent once the path answered").record(&failed(FailureKind::Deadline), 5);
            b.admit("/a", true).await.expect("admitted").record(&failed(FailureKind::Deadline), 5);
            let after_one_miss = tokio::time::timeout(Duration::from_millis(50), b.admit("/a", false)).await;
            assert!(after_one_miss.expect("nothing in flight: not held back").is_ok());
        });
    }

    #[test]
    fn during_a_streak_new_requests_wait_for_those_in_flight() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        runtime.block_on(async {
            let b = Breaker::default();
            b.admit("/a", true).await.expect("admitted").record(&answered(), 5);
            let in_flight: Vec<_> = futures::join_all_admit(&b, 4).await;
            let mut in_flight = in_flight.into_iter();
            in_flight.next().unwrap().record(&failed(FailureKind::Deadline), 5);
            // One miss and three in flight: enough to complete the streak, so a fifth waits.
            let fifth = b.admit("/a", true);
            tokio::pin!(fifth);
            assert!(tokio::time::timeout(Duration::from_millis(50), fifth.as_mut()).await.is_err());
            in_flight.next().unwrap().record(&failed(FailureKind::Deadline), 5);
            in_flight.next().unwrap().record(&failed(FailureKind::Deadline), 5);
            assert!(fifth.await.is_err(), "the streak completed: not sent");
            drop(in_flight);
        });
        // An answer instead lets the waiting request go.
        runtime.block_on(async {
            let b = Breaker::default();
            // A path that never answered gets three requests in flight, no more.
            let mut in_flight = futures::join_all_admit(&b, 3).await.into_iter();
            let fourth = b.admit("/a", true);
            tokio::pin!(fourth);
            assert!(tokio::time::timeout(Duration::from_millis(50), fourth.as_mut()).await.is_err());
            in_flight.next().unwrap().record(&failed(FailureKind::Deadline), 5);
            let waiting = b.admit("/a", true);
            tokio::pin!(waiting);
            assert!(tokio::time::timeout(Duration::from_millis(50), waiting.as_mut()).await.is_err());
            in_flight.next().unwrap().record(&answered(), 5);
            assert!(waiting.await.is_ok());
            assert!(fourth.await.is_ok());
        });
    }

    mod futures {
        use super::*;

        /// `n` requests to `/a` let through at once.
        pub(crate) async fn join_all_admit(b: &Breaker, n: usize) -> Vec<Admission<'_>> {
            let mut out = Vec::new();
            for _ in 0..n {
                out.push(b.admit("/a", true).await.expect("admitted"));
            }
            out
        }
    }
}
