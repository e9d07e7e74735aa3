//! `webhook-conformance`: the conformance suite for Kubernetes admission webhooks as a CLI and as the
//! tests a user runs with `cargo test`. The work is done by the `webhook-harness` library; this
//! crate reads the command line (or the `WEBHOOK_*` environment), picks the target (a URL, a
//! command, an image, or the bundled reference webhook) and writes the reports.
//!
//! Modules depend one way: `commands` → `args` → `embedded`.

#![warn(unreachable_pub)]

pub mod args;
pub mod commands;
pub mod embedded;
