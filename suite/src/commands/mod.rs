//! The subcommands: each turns its arguments into a suite, runs it, and writes what was asked for.

mod fuzz;
mod merge;
mod output;
mod progress;
mod record;
mod reference;
mod rules;
mod run;
mod usage;

pub use fuzz::fuzz;
pub use merge::merge;
pub use record::record;
pub use reference::serve_reference;
pub use rules::print_rules;
pub use run::run;

/// Exit code when the suite itself could not run (bad input, unreachable target).
pub const EXIT_USAGE: i32 = webhook_harness::Error::EXIT_CODE;
