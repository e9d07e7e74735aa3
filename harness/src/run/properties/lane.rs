//! A runner's lane: a current-thread runtime and connections to the webhook of its own, so that
//! the runner's calls are sent, answered and checked on its thread, with no hand-over to the
//! campaign runtime's workers and back for each call. While the runner is not using it (between
//! its rounds and searches) a helper thread drives the lane, so that what its connections do in
//! the background (a connection the client goes on making after a call found another one free)
//! never waits for the runner: a webhook that completes each TLS handshake in its accept loop
//! would wait with it, and so would every connection after it.

use std::sync::mpsc;
use std::sync::Arc;

use tokio::runtime::Runtime;
use tokio::sync::Notify;

use super::observe::Calls;

/// A runner's lane, or the campaign's runtime and client where a lane of its own could not be
/// made.
pub(super) struct Lane {
    calls: Calls,
    own: Option<Own>,
}

/// A lane's own runtime and the helper driving it while no runner does.
struct Own {
    /// Always there until the lane is dropped, when it goes to the helper.
    runtime: Option<Arc<Runtime>>,
    /// Wakes the helper out of the runtime: a runner takes the lane, or it closes.
    asked: Arc<Notify>,
    /// What the helper is told once out of the runtime.
    tell: mpsc::Sender<Told>,
}

enum Told {
    /// The runner hands the lane back: drive it again.
    Back,
    /// The lane is closed: drop the runtime (the last reference, handed over) and end.
    Close(Arc<Runtime>),
}

impl Lane {
    /// A lane calling with `shared`'s identities, breaker and tallies over connections of its own.
    pub(super) fn new(shared: &Calls) -> Lane {
        let calls = |client| Calls { client, tally: shared.tally.clone(), breaches: shared.breaches.clone() };
        match (Own::new(), shared.client.with_own_connections()) {
            (Some(own), Ok(client)) => Lane { calls: calls(Arc::new(client)), own: Some(own) },
            _ => Lane { calls: calls(shared.client.clone()), own: None },
        }
    }

    /// The lane's calls.
    pub(super) fn calls(&self) -> &Calls {
        &self.calls
    }

    /// The lane taken by a runner until the returned value is dropped.
    pub(super) fn take(&self) -> Taken<'_> {
        match &self.own {
            Some(own) => own.take(),
            None => Taken { own: None },
        }
    }
}

impl Own {
    fn new() -> Option<Own> {
        let runtime = Arc::new(tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?);
        let asked = Arc::new(Notify::new());
        let (tell, told) = mpsc::channel();
        let (r, a) = (runtime.clone(), asked.clone());
        std::thread::Builder::new().name("lane".into()).spawn(move || drive(r, a, told)).ok()?;
        Some(Own { runtime: Some(runtime), asked, tell })
    }

    fn take(&self) -> Taken<'_> {
        self.asked.notify_one();
        Taken { own: Some(self) }
    }
}

/// The helper: drive the runtime until asked, then wait to be told what next.
fn drive(runtime: Arc<Runtime>, asked: Arc<Notify>, told: mpsc::Receiver<Told>) {
    loop {
        runtime.block_on(asked.notified());
        match told.recv() {
            Ok(Told::Back) => {}
            Ok(Told::Close(_)) | Err(_) => break,
        }
    }
}

impl Drop for Own {
    fn drop(&mut self) {
        let Some(runtime) = self.runtime.take() else { return };
        // The helper drops the runtime, outside the campaign's runtime where this may run.
        if let Err(mpsc::SendError(Told::Close(runtime))) = self.tell.send(Told::Close(runtime)) {
            // No helper: nothing else holds the runtime.
            if let Ok(runtime) = Arc::try_unwrap(runtime) {
                runtime.shutdown_background();
            }
        }
        self.asked.notify_one();
    }
}

/// A lane a runner has taken.
pub(super) struct Taken<'a> {
    own: Option<&'a Own>,
}

impl Taken<'_> {
    /// Run `future` to completion on the lane (on the campaign's runtime where it has none of its
    /// own).
    pub(super) fn block_on<F: std::future::Future>(&self, handle: &tokio::runtime::Handle, future: F) -> F::Output {
        match self.own.and_then(|own| own.runtime.as_ref()) {
            Some(runtime) => runtime.block_on(future),
            None => handle.block_on(future),
        }
    }
}

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        if let Some(own) = self.own {
            // A helper gone (it cannot be while the lane lives) leaves nothing to tell.
            let _ = own.tell.send(Told::Back);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
    use std::time::Duration;

    use super::*;

    /// A task on a lane `own`, started while taken: once `go` is sent it says so on `done`, then
    /// holds `held` until the runtime drops it.
    fn start_task(own: &Own, go: tokio::sync::oneshot::Receiver<()>, done: mpsc::Sender<()>, held: mpsc::Sender<()>) {
        let taken = own.take();
        let handle = tokio::runtime::Builder::new_current_thread().build().unwrap();
        taken.block_on(handle.handle(), async move {
            tokio::spawn(async move {
                go.await.unwrap();
                done.send(()).unwrap();
                std::future::pending::<()>().await;
                drop(held);
            });
        });
    }

    #[test]
    fn the_helper_drives_a_lane_handed_back_and_drops_it_when_closed() {
        let own = Own::new().expect("a lane");
        let (go, wait) = tokio::sync::oneshot::channel();
        let (done, finished) = mpsc::channel();
        let (held, dropped) = mpsc::channel();
        start_task(&own, wait, done, held);
        // Handed back: nobody here drives the lane any more, the helper does.
        go.send(()).unwrap();
        finished.recv_timeout(Duration::from_secs(5)).expect("the task went on after the lane was handed back");
        assert_eq!(dropped.try_recv(), Err(TryRecvError::Empty));
        // Closed: the helper drops the runtime and the task with it.
        drop(own);
        assert_eq!(dropped.recv_timeout(Duration::from_secs(5)), Err(RecvTimeoutError::Disconnected));
    }

    #[test]
    fn a_lane_taken_again_runs_on_the_runners_thread() {
        let own = Own::new().expect("a lane");
        let handle = tokio::runtime::Builder::new_current_thread().build().unwrap();
        for _ in 0..3 {
            let taken = own.take();
            let here = std::thread::current().id();
            let ran_on = taken.block_on(handle.handle(), async { std::thread::current().id() });
            assert_eq!(ran_on, here);
        }
    }
}
