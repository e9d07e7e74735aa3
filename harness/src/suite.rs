//! The suite as a library: a [`Suite`] is a manifest, a target and what to check; [`Suite::run`] starts
//! the target, plays the apiserver against it, stops it, and returns the [`Report`].

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::auth::Credentials;
use crate::cases::{self, Case, GoldenMode};
use crate::client::HttpVersions;
use crate::conditions::{Authorizer, Policy};
use crate::config::{select_webhooks, Crd, Manifest, WebhookSpec};
use crate::error::{Error, OptionError};
use crate::report::Report;
use crate::requests::ApiResources;
use crate::rules::{rule, RuleKind};
use crate::run::{self, Budget, Progress, Records, RunOptions, Shard};
use crate::targets::{self, ImageSpec, Resolve, RunningTarget, StartFailure, Target};

/// A conformance run to be made: the webhooks of a manifest, the target that serves them, and what
/// to check. Build it, then [`run`](Suite::run) it or [`assert_passes`](Suite::assert_passes).
#[must_use = "a Suite does nothing until it is run or started"]
pub struct Suite {
    manifest: Manifest,
    webhooks: Vec<WebhookSpec>,
    target: Option<Target>,
    resolve: Vec<Resolve>,
    tls_dir: Option<PathBuf>,
    crds: Vec<Crd>,
    authorizer: Authorizer,
    options: RunOptions,
    progress: Arc<Progress>,
}

impl std::fmt::Debug for Suite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Suite")
            .field("manifest", &self.manifest.file)
            .field("webhooks", &self.webhooks.iter().map(|w| &w.name).collect::<Vec<_>>())
            .field("target", &self.target)
            .finish()
    }
}

impl Suite {
    /// A suite for every webhook of `manifest`, with the default checks and no target yet.
    pub fn new(manifest: Manifest) -> Suite {
        let webhooks = manifest.webhooks.clone();
        Suite {
            manifest,
            webhooks,
            target: None,
            resolve: Vec::new(),
            tls_dir: None,
            crds: Vec::new(),
            authorizer: Authorizer::Unknown,
            options: RunOptions::default(),
            progress: Arc::new(Progress::default()),
        }
    }

    /// A suite for the `MutatingWebhookConfiguration`/`ValidatingWebhookConfiguration` in `path`.
    pub fn from_manifest_file(path: impl AsRef<Path>) -> Result<Suite, Error> {
        Ok(Suite::new(Manifest::load(path.as_ref())?))
    }

    /// Only the webhooks of the manifest with these names (all when empty).
    pub fn webhooks<S: AsRef<str>>(mut self, names: &[S]) -> Result<Suite, Error> {
        let names: Vec<String> = names.iter().map(|n| n.as_ref().to_string()).collect();
        self.webhooks = select_webhooks(&self.manifest, &names)?;
        Ok(self)
    }

    /// The webhooks the suite judges.
    pub fn selected_webhooks(&self) -> &[WebhookSpec] {
        &self.webhooks
    }

    /// Where the webhook runs.
    pub fn target(mut self, target: Target) -> Suite {
        self.target = Some(target);
        self
    }

    /// A webhook you already run at `url`, whose certificate the CA in the PEM file `ca` signed.
    pub fn url(self, url: impl Into<String>, ca: impl AsRef<Path>) -> Suite {
        self.target(Target::url(url, ca))
    }

    /// For a [`url`](Suite::url) target: connect to `entry.addr` for the URL's host and port instead
    /// of asking DNS, as curl's `--resolve HOST:PORT:ADDR` does (parse one with `str::parse`). With
    /// `https://my-webhook.my-ns.svc:443` and `my-webhook.my-ns.svc:443:127.0.0.1:8443`, a webhook
    /// running locally is called by its Service's name, and its certificate must be valid for that
    /// name, as in the cluster. Repeatable; an error at start for any other target.
    pub fn resolve(mut self, entry: Resolve) -> Suite {
        self.resolve.push(entry);
        self
    }

    /// A command the suite starts with a fresh CA and serving certificate: `{cert}` `{key}` `{ca}`
    /// `{port}` `{host}` are substituted.
    pub fn command(self, command: impl Into<String>) -> Suite {
        self.target(Target::command(command))
    }

    /// A container image on the local Docker engine.
    pub fn image(self, spec: ImageSpec) -> Suite {
        self.target(Target::Image(spec))
    }

    /// The CustomResourceDefinitions (`apiextensions.k8s.io/v1` YAML) in these files: the custom
    /// resources they define are served as a cluster would, planned and generated objects valid
    /// against each version's `openAPIV3Schema`, with unknown fields pruned and defaults filled as the
    /// apiserver does before any webhook sees them. Without one, a custom resource a webhook's rules
    /// name is sent as plain JSON, and the report says its shape is a guess. Repeatable.
    pub fn crds<P: AsRef<Path>>(mut self, files: &[P]) -> Result<Suite, Error> {
        for file in files {
            self.crds.extend(Crd::load(file.as_ref()).map_err(Error::Crd)?);
        }
        self.options.api = ApiResources::with_crds(&self.crds);
        Ok(self)
    }

    /// Answer the authorization checks of matchConditions (`authorizer.group(…).resource(…).check(…)`)
    /// as `authorizer` describes the cluster's. Without a description they cannot be evaluated: the
    /// requests they decide are not sent, and the report says so.
    pub fn authorizer(mut self, authorizer: Authorizer) -> Suite {
        self.authorizer = authorizer;
        self
    }

    /// [`authorizer`](Suite::authorizer) from a description file (YAML, see [`Policy`]).
    pub fn authorizer_file(self, path: impl AsRef<Path>) -> Result<Suite, Error> {
        let policy = Policy::load(path.as_ref())?;
        Ok(self.authorizer(Authorizer::Described(Arc::new(policy))))
    }

    /// Authenticate to the webhooks as `credentials` say (anonymous by default): a client
    /// certificate, a bearer token, one the run's CA issues, or an AdmissionConfiguration's kubeconfig.
    pub fn credentials(mut self, credentials: Credentials) -> Suite {
        self.options.credentials = credentials;
        self
    }

    /// Admit these data-driven cases too.
    pub fn cases(mut self, cases: Vec<Case>) -> Result<Suite, Error> {
        cases::validate_webhooks(&cases, &self.webhooks)?;
        self.options.cases = cases;
        Ok(self)
    }

    /// Admit the cases of every `*.yaml` file in `dir` too.
    pub fn cases_dir(self, dir: impl AsRef<Path>) -> Result<Suite, Error> {
        let loaded = cases::load_dir(dir.as_ref())?;
        self.cases(loaded)
    }

    /// Compare (or update) each case's answers with the snapshots of a golden directory.
    pub fn golden(mut self, mode: GoldenMode) -> Suite {
        self.options.golden = mode;
        self
    }

    /// How many generated requests the properties get.
    pub fn budget(mut self, budget: Budget) -> Suite {
        self.options.properties.budget = budget;
        self
    }

    /// The seed of the generated requests.
    pub fn seed(mut self, seed: u64) -> Suite {
        self.options.properties.seed = seed;
        self
    }

    /// Only these properties (all when empty); an unknown id is an error.
    pub fn properties<S: AsRef<str>>(mut self, ids: &[S]) -> Result<Suite, Error> {
        let mut only = Vec::new();
        for id in ids {
            let id = id.as_ref();
            if rule(id).is_none_or(|r| r.kind() != RuleKind::Property) {
                return Err(OptionError::UnknownProperty(id.to_string()).into());
            }
            only.push(id.to_string());
        }
        self.options.properties.only = only;
        Ok(self)
    }

    /// Generate only this shard's part of a campaign's cases (see [`Shard`]); the whole by default.
    pub fn shard(mut self, shard: Shard) -> Suite {
        self.options.properties.shard = shard;
        self
    }

    /// Generate from the cases' requests too: mutations of their objects (labels, annotations,
    /// containers, replicas, sizes) that shrink toward the case as it was; off by default.
    pub fn seeded_generation(mut self, on: bool) -> Suite {
        self.options.properties.seeded_generation = on;
        self
    }

    /// Save minimal failing requests in `dir` and replay them first on the next run.
    pub fn regressions(mut self, dir: Option<PathBuf>) -> Suite {
        self.options.properties.regressions = dir;
        self
    }

    /// Send the planned requests (every selected resource, operation, object variant and version);
    /// on by default.
    pub fn contract(mut self, on: bool) -> Suite {
        self.options.contract = on;
        self
    }

    /// Judge the manifest itself; on by default.
    pub fn lint(mut self, on: bool) -> Suite {
        self.options.lint = on;
        self
    }

    /// Offer HTTP/2 in ALPN, as the apiserver may for a `url` webhook on loopback.
    pub fn http2(mut self, on: bool) -> Suite {
        self.options.http = if on { HttpVersions::Http2AndHttp1 } else { HttpVersions::Http1 };
        self
    }

    /// Requests in flight at once (and property runners per property); [`DEFAULT_CONCURRENCY`]
    /// unless set.
    ///
    /// [`DEFAULT_CONCURRENCY`]: crate::DEFAULT_CONCURRENCY
    pub fn concurrency(mut self, n: usize) -> Suite {
        self.options.concurrency = n.max(1);
        self.options.properties.concurrency = n.max(1);
        self
    }

    /// Keep the generated CA, certificate and key in `dir` (for the reports' replay commands).
    pub fn tls_dir(mut self, dir: impl AsRef<Path>) -> Suite {
        self.tls_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Cancel the run with `cancel` (e.g. on Ctrl-C): a target still starting is stopped, nothing
    /// more is sent, the run winds down, stops its target, removes its files, and
    /// [`run`](Suite::run) returns [`Error::Interrupted`].
    pub fn cancel_on(mut self, cancel: crate::Cancel) -> Suite {
        self.options.cancel = cancel;
        self
    }

    /// Live counters of the run (requests, cases, failing properties), for a progress display.
    pub fn progress(&self) -> Arc<Progress> {
        self.progress.clone()
    }

    /// Start the target: a [`Session`] that can run the suite, or single cases, against it.
    pub async fn start(mut self) -> Result<Session, Error> {
        for w in &mut self.webhooks {
            w.conditions = w.conditions.with_authorizer(self.authorizer.clone());
        }
        let Some(mut target) = self.target else {
            return Err(OptionError::NoTarget.into());
        };
        match &mut target {
            Target::Url { resolve, .. } => resolve.extend(self.resolve),
            _ if !self.resolve.is_empty() => {
                return Err(OptionError::ResolveWithoutUrl.into());
            }
            _ => {}
        }
        let description = target_description(&target);
        let generated = self.options.credentials.needs_generated_certificate();
        if generated && matches!(target, Target::Url { .. }) {
            return Err(OptionError::GeneratedCertificate { flag: false }.into());
        }
        let cancel = self.options.cancel.clone();
        let started = tokio::select! {
            started = targets::start(target, &self.webhooks, self.tls_dir.as_deref(), generated) => started,
            // Dropping the start stops what it started (the process, the container, the files).
            _ = cancel.cancelled() => return Err(Error::Interrupted),
        };
        let running = match started {
            Ok(t) => Ok(t),
            Err(StartFailure::Input(e)) => return Err(e),
            Err(StartFailure::NotReady(message)) => Err((description, message)),
        };
        Ok(Session { webhooks: self.webhooks, options: self.options, progress: self.progress, target: running })
    }

    /// Start the target, run every check the suite is set up for, stop the target.
    pub async fn run(self) -> Result<Report, Error> {
        let mut session = self.start().await?;
        session.run().await
    }

    /// [`run`](Suite::run) on a runtime of its own (on a thread of its own, so that it also works
    /// from inside an async test).
    pub fn run_blocking(self) -> Result<Report, Error> {
        std::thread::scope(|scope| {
            scope
                .spawn(move || {
                    let runtime = tokio::runtime::Builder::new_multi_thread()
                        .enable_all()
                        .build()
                        .map_err(|e| Error::setup("a tokio runtime", e))?;
                    let report = runtime.block_on(self.run());
                    runtime.shutdown_timeout(Duration::from_secs(5));
                    report
                })
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    /// Run, and panic with the readable report unless the verdict is PASS (for `cargo test`).
    pub fn assert_passes(self) {
        match self.run_blocking() {
            Ok(report) => report.assert_passes(),
            Err(e) => panic!("webhook-conformance could not run: {e}"),
        }
    }
}

fn target_description(target: &Target) -> String {
    match target {
        Target::Url { url, .. } => format!("url: {url}"),
        Target::Command { command, .. } => format!("command: {command}"),
        Target::Image(spec) => format!("image: {}", spec.image),
        Target::InProcess { description, .. } => description.clone(),
    }
}

/// A started target and the suite to run against it. Dropping it stops the target.
pub struct Session {
    webhooks: Vec<WebhookSpec>,
    options: RunOptions,
    progress: Arc<Progress>,
    /// The running target, or (description, why) when it never became ready.
    target: Result<RunningTarget, (String, String)>,
}

impl Session {
    /// The webhooks judged.
    pub fn webhooks(&self) -> &[WebhookSpec] {
        &self.webhooks
    }

    /// Why the target never became ready (then every run is one `target.ready` FAIL).
    pub fn not_ready(&self) -> Option<&str> {
        self.target.as_ref().err().map(|(_, why)| why.as_str())
    }

    /// Where the running target is called (`None` when it never became ready), for custom drivers.
    pub fn endpoint(&self) -> Option<&crate::client::Endpoint> {
        self.target.as_ref().ok().map(|t| &t.endpoint)
    }

    /// `Some(how)` once a target the suite started has exited; `None` while it runs (or when the
    /// suite did not start it).
    pub fn target_exit_status(&mut self) -> Option<String> {
        self.target.as_mut().ok().and_then(|t| t.exit_status())
    }

    /// Run every check the suite is set up for. A target that never became ready is a report with
    /// one `target.ready` FAIL.
    pub async fn run(&mut self) -> Result<Report, Error> {
        let options = self.options.clone();
        self.run_with(&options).await
    }

    /// Admit one case (and judge its answers), nothing else.
    pub async fn run_case(&mut self, case: &Case) -> Result<Report, Error> {
        cases::validate_webhooks(std::slice::from_ref(case), &self.webhooks)?;
        let options = RunOptions {
            lint: false,
            contract: false,
            cases: vec![case.clone()],
            properties: run::PropertyOptions { budget: Budget::NONE, ..self.options.properties.clone() },
            ..self.options.clone()
        };
        self.run_with(&options).await
    }

    async fn run_with(&mut self, options: &RunOptions) -> Result<Report, Error> {
        match &mut self.target {
            Ok(target) => {
                let records = run::run(&self.webhooks, target, options, self.progress.clone()).await?;
                if options.cancel.is_cancelled() {
                    return Err(Error::Interrupted);
                }
                Ok(Report::from(records))
            }
            Err((description, message)) => {
                Ok(Report::from(Records::not_ready(description.clone(), &self.webhooks, message.clone())))
            }
        }
    }
}
