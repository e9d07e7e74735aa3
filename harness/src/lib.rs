//! `webhook-harness` plays the kube-apiserver's part against a Kubernetes admission webhook: it
//! starts the webhook with generated TLS (or calls the one you run), sends it the requests a cluster
//! would send, reads every answer as the apiserver does, and judges it by a catalog of rules, each
//! tied to the apiserver source or document it comes from.
//!
//! The data flows one way: a [`Target`] is called by the client with requests planned from your
//! manifest ([`Manifest`]); every answer goes through the checks of the [`rules`] catalog and ends in
//! [`Records`], from which the [`Report`] assembles itself.
//!
//! # In `cargo test`
//!
//! A webhook the suite starts as a command (`{cert}`, `{key}`, `{port}` are substituted):
//!
//! ```
//! use webhook_harness::Suite;
//!
//! Suite::from_manifest_file("../examples/python-webhook/webhook.yaml")
//!     .unwrap()
//!     .command("python3 ../examples/python-webhook/webhook.py --cert {cert} --key {key} --port {port}")
//!     .assert_passes();
//! ```
//!
//! A webhook you already run, with the CA that signed its certificate. It is called by the name the
//! apiserver calls (here the manifest's Service, `python-webhook.python-webhook.svc`), so its
//! certificate must be valid for that name; [`Suite::resolve`] connects that name to where it runs:
//!
//! ```
//! # let dir = tempfile::tempdir().unwrap();
//! # let names = webhook_harness::tls::ServingNames::for_service("python-webhook", "python-webhook");
//! # let tls = webhook_harness::tls::TlsMaterial::generate(&names, Some(dir.path())).unwrap();
//! # let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
//! # let mut webhook = std::process::Command::new("python3")
//! #     .args(["../examples/python-webhook/webhook.py", "--port", &port.to_string()])
//! #     .arg("--cert").arg(tls.cert_path()).arg("--key").arg(tls.key_path())
//! #     .spawn().unwrap();
//! # struct Stop(std::process::Child);
//! # impl Drop for Stop { fn drop(&mut self) { let _ = self.0.kill(); let _ = self.0.wait(); } }
//! # let _stop = Stop(webhook);
//! # let ca_file = tls.ca_path();
//! # for _ in 0..100 { if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() { break } std::thread::sleep(std::time::Duration::from_millis(50)); }
//! use webhook_harness::{Resolve, Suite};
//!
//! // The webhook listens on 127.0.0.1:{port}: call its Service's name there.
//! let local: Resolve = format!("python-webhook.python-webhook.svc:443:127.0.0.1:{port}").parse().unwrap();
//! let report = Suite::from_manifest_file("../examples/python-webhook/webhook.yaml")?
//!     .url("https://python-webhook.python-webhook.svc:443", ca_file)
//!     .resolve(local)
//!     .run_blocking()?;
//! println!("{}", report.render_text());
//! assert_eq!(report.verdict(), webhook_harness::Verdict::Pass);
//! # Ok::<(), webhook_harness::Error>(())
//! ```

#![warn(unreachable_pub)]

mod admission;
mod apiserver;
pub mod auth;
mod cancel;
mod cases;
mod checks;
mod client;
pub mod conditions;
mod config;
mod decoder;
mod diff;
mod error;
mod exchange;
mod kinds;
mod quantity_fields;
pub mod record;
mod report;
mod requests;
pub mod rules;
mod run;
mod suite;
mod targets;
mod text;
pub mod tls;
mod verdict;

pub use admission::{
    AdmissionRequest, AdmissionReview, GroupVersionKind, GroupVersionResource, Operation, ReviewVersion, UserInfo,
};
pub use cancel::Cancel;
pub use cases::{load_dir as load_cases, load_file as load_case, Case, Decision, GoldenMode};
pub use config::{CaBundleError, ConfigVersion, Manifest, ManifestLocation, WebhookKind, WebhookSpec};
pub use error::{CaseError, DirectoryError, Error, InputError, ManifestError, OptionError, ReportError, TargetError};
pub use exchange::ExchangeRecord;
pub use report::{JsonReport, Report, RuleSummary, TextOptions, SARIF_SCHEMA};
pub use rules::{Rule, RuleKind};
pub use run::{
    Budget, CaseRecord, Failure, Progress, PropertyRecord, Records, ReplayAuth, Shard, ShardError, TargetRecord, Unsent,
};
pub use run::{DEFAULT_CASES, DEFAULT_CONCURRENCY};
pub use suite::{Session, Suite};
pub use targets::{ImageSpec, Resolve, ResolveError, ServeError, Served, ServingTls, Target, RUN_LABEL};
pub use verdict::{Finding, Outcome, Severity, Subject, Verdict};

pub mod lowlevel {
    //! Building blocks below [`Suite`](crate::Suite), for benchmarks and custom drivers: the client
    //! that calls a webhook as the apiserver does, generated requests, and the judging of one
    //! exchange by every exchange rule.

    pub use crate::checks::property::{Call, Observation};
    pub use crate::client::{
        CallTime, Client, Endpoint, FailureKind, HttpAnswer, HttpVersions, Transport, TransportFailure,
    };
    pub use crate::exchange::Exchange;
    pub use crate::requests::generated::{containers_of, map_len, Sampler, Scope, LARGE_ANNOTATION};
    pub use crate::requests::{plan, RequestCase};
    pub use crate::run::{evaluate, evaluate_rule, exchange};
    pub use crate::targets::container::{docker_blocking as docker, wait_with_deadline, ProcessError};
}

/// The README's Rust examples, run as doc tests.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
