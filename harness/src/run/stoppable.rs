//! Generated requests that stop being generated and shrunk the moment a run is cancelled (or a
//! search is over): a proptest `TestRunner` only stops at the end of its cases or of a shrink, and a
//! test that merely returns at once still lets it draw every remaining case and walk every
//! remaining shrinking step. Wrapped in [`Stoppable`], a strategy draws no new case once `stopped`
//! holds (the runner ends with `TestError::Abort`) and a value tree neither simplifies nor
//! complicates any more (the shrink ends where it stands).

use std::fmt;

use proptest::strategy::{NewTree, Strategy, ValueTree};
use proptest::test_runner::TestRunner;

/// Why a runner stopped drawing cases (the `TestError::Abort` it ends with).
pub(crate) const STOPPED: &str = "the search was stopped";

/// `inner`, as long as `stopped` does not hold.
pub(crate) struct Stoppable<'a, S> {
    inner: &'a S,
    stopped: &'a dyn Fn() -> bool,
}

impl<'a, S> Stoppable<'a, S> {
    /// `inner`, drawing and shrinking nothing more once `stopped()` is true.
    pub(crate) fn new(inner: &'a S, stopped: &'a dyn Fn() -> bool) -> Self {
        Stoppable { inner, stopped }
    }
}

impl<S: fmt::Debug> fmt::Debug for Stoppable<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Stoppable").field(self.inner).finish()
    }
}

impl<'a, S: Strategy> Strategy for Stoppable<'a, S> {
    type Tree = StoppableTree<'a, S::Tree>;
    type Value = S::Value;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        if (self.stopped)() {
            return Err(STOPPED.into());
        }
        Ok(StoppableTree { inner: self.inner.new_tree(runner)?, stopped: self.stopped })
    }
}

/// A value tree that stops moving once `stopped` holds.
pub(crate) struct StoppableTree<'a, T> {
    inner: T,
    stopped: &'a dyn Fn() -> bool,
}

impl<T: ValueTree> ValueTree for StoppableTree<'_, T> {
    type Value = T::Value;

    fn current(&self) -> T::Value {
        self.inner.current()
    }

    fn simplify(&mut self) -> bool {
        !(self.stopped)() && self.inner.simplify()
    }

    fn complicate(&mut self) -> bool {
        !(self.stopped)() && self.inner.complicate()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

    use proptest::test_runner::{Config, TestCaseError, TestError};

    use super::*;

    /// Once stopped, the runner draws no more cases: it ends at once instead of running the rest.
    #[test]
    fn a_stopped_runner_draws_no_more_cases() {
        let stop = AtomicBool::new(false);
        let stopped = || stop.load(Ordering::Relaxed);
        let ran = AtomicU32::new(0);
        let inner = 0u32..1000;
        let strategy = Stoppable::new(&inner, &stopped);
        let mut runner = TestRunner::new(Config { cases: 10_000, failure_persistence: None, ..Config::default() });
        let result = runner.run(&strategy, |_| {
            if ran.fetch_add(1, Ordering::Relaxed) == 9 {
                stop.store(true, Ordering::Relaxed);
            }
            Ok(())
        });
        assert_eq!(ran.load(Ordering::Relaxed), 10, "cases were drawn after the stop");
        assert!(matches!(result, Err(TestError::Abort(ref why)) if why.message() == STOPPED), "{result:?}");
    }

    /// Once stopped, a shrink ends at its next step, with the last failing value found.
    #[test]
    fn a_stopped_shrink_ends_at_its_next_step() {
        let stop = AtomicBool::new(false);
        let stopped = || stop.load(Ordering::Relaxed);
        let steps = AtomicU32::new(0);
        let inner = proptest::collection::vec(0u32..1000, 200..400);
        let strategy = Stoppable::new(&inner, &stopped);
        let config = Config { cases: 1, max_shrink_iters: 100_000, failure_persistence: None, ..Config::default() };
        let mut runner = TestRunner::new(config);
        let result = runner.run(&strategy, |v| {
            if steps.fetch_add(1, Ordering::Relaxed) == 3 {
                stop.store(true, Ordering::Relaxed);
            }
            if v.len() > 1 {
                Err(TestCaseError::fail("long"))
            } else {
                Ok(())
            }
        });
        assert_eq!(steps.load(Ordering::Relaxed), 4, "shrinking went on after the stop");
        assert!(matches!(result, Err(TestError::Fail(_, ref v)) if v.len() > 1), "{result:?}");
    }
}
