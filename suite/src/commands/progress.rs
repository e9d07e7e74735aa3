//! Progress of a long run on stderr: a live bar (a spinner when the end is not known) when stderr is
//! a terminal, a plain line now and then when it is not (a CI log). It never writes to stdout, where
//! the report goes.

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use webhook_harness::Progress;

/// How often a plain line is printed when stderr is not a terminal.
pub(crate) const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// A progress display that runs until [`finish`](Display::finish) (or drop).
pub(crate) struct Display {
    ticker: tokio::task::JoinHandle<()>,
    bar: Option<ProgressBar>,
}

/// True when progress is drawn live: stderr is a terminal that is not `TERM=dumb`.
pub(crate) fn live() -> bool {
    std::io::stderr().is_terminal() && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

impl Display {
    /// Show `progress` under `label` (e.g. `fuzz`); a bar up to `until` when the run has a duration.
    pub(crate) fn start(label: &'static str, progress: Arc<Progress>, until: Option<Duration>) -> Display {
        if !live() {
            let ticker = tokio::spawn(async move {
                let mut every = tokio::time::interval(PLAIN_EVERY);
                every.tick().await;
                loop {
                    every.tick().await;
                    eprintln!("{label}: {}", progress.line());
                }
            });
            return Display { ticker, bar: None };
        }
        let bar = match until {
            Some(d) => {
                let bar = ProgressBar::with_draw_target(Some(d.as_secs().max(1)), ProgressDrawTarget::stderr());
                bar.set_style(
                    ProgressStyle::with_template(
                        "{prefix} [{bar:30.cyan/blue}] {elapsed_precise} of {len}s · {wide_msg}",
                    )
                    .expect("a valid template")
                    .progress_chars("=> "),
                );
                bar
            }
            None => {
                let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                bar.set_style(
                    ProgressStyle::with_template("{prefix} {spinner} {elapsed_precise} · {wide_msg}")
                        .expect("a valid template"),
                );
                bar
            }
        };
        bar.set_prefix(label);
        let shown = bar.clone();
        let ticker = tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_millis(200));
            loop {
                every.tick().await;
                shown.set_position(progress.started.elapsed().as_secs());
                shown.set_message(progress.line());
                shown.tick();
            }
        });
        Display { ticker, bar: Some(bar) }
    }

    /// Stop and clear the live display.
    pub(crate) fn finish(self) {
        self.ticker.abort();
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        self.ticker.abort();
    }
}
