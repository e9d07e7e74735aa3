//! `webhook-conformance`: the conformance suite for Kubernetes admission webhooks, as a CLI and as
//! the tests a user runs with `cargo test`. The work is done by `webhook-harness`; this crate picks
//! the target (a URL, a command, or the bundled reference webhook) and turns a run into a verdict.

pub mod cases_cli;
pub mod cli;
pub mod embedded;
pub mod env_target;
pub mod fuzz;
