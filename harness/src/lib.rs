//! `webhook-harness` plays the kube-apiserver's part against an admission webhook.
//!
//! The data flows one way: a [`target`] (a URL, a command started with generated [`tls`]) is called by
//! the [`client`] with [`requests`] planned from the user's manifest ([`config`]); every answer goes
//! through the [`checks`] of the [`rules`] catalog, in the order the apiserver processes it, and ends
//! in a [`report`].
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use webhook_harness::{config::Manifest, run, target};
//! let manifest = Manifest::load("webhook.yaml".as_ref())?;
//! let mut target = target::start_command("./my-webhook --tls-cert {cert} --tls-key {key} --port {port}",
//!     &manifest.webhooks, None, std::time::Duration::from_secs(30)).await?;
//! let report = run::run(&manifest.webhooks, &mut target, &run::RunOptions::default()).await?;
//! println!("{}", report.render_text());
//! std::process::exit(report.verdict().exit_code());
//! # }
//! ```

pub mod cases;
pub mod checks;
pub mod client;
pub mod config;
pub mod generate;
pub mod kinds;
pub mod lint;
pub mod report;
pub mod requests;
pub mod rules;
pub mod run;
pub mod target;
pub mod tls;
