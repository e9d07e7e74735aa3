//! Stopping a run from outside (Ctrl-C, SIGTERM, a caller's own deadline): a [`Cancel`] handle is
//! given to the suite, and once it is cancelled every wait of the run ends at once — a call in flight
//! returns unsent, generation and shrinking stop, a target still starting is stopped — so that the
//! run winds down, stops its target and removes its files before the process exits.
//!
//! This module imports nothing of the crate.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::Notify;

/// What a call, a search or a step that a cancel cut short says of it.
pub(crate) const INTERRUPTED: &str = "the run was interrupted";

/// A handle that cancels a run; clones share one state.
#[derive(Clone, Debug, Default)]
pub struct Cancel {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    cancelled: AtomicBool,
    notify: Notify,
}

impl Cancel {
    /// A handle not yet cancelled.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Cancel the run (idempotent).
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::SeqCst);
        self.inner.notify.notify_waiters();
    }

    /// True once [`cancel`](Cancel::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// Completes when the run is cancelled (at once if it already is).
    pub async fn cancelled(&self) {
        let notified = self.inner.notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if self.is_cancelled() {
            return;
        }
        notified.await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cancelled_completes_for_waiters_before_and_after() {
        let cancel = Cancel::new();
        let waiter = tokio::spawn({
            let c = cancel.clone();
            async move { c.cancelled().await }
        });
        tokio::task::yield_now().await;
        assert!(!cancel.is_cancelled());
        cancel.clone().cancel();
        tokio::time::timeout(std::time::Duration::from_secs(5), waiter).await.unwrap().unwrap();
        tokio::time::timeout(std::time::Duration::from_secs(5), cancel.cancelled()).await.unwrap();
    }
}
