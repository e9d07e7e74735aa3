//! The command line, and the environment of `cargo test`: one clap definition for both (every option
//! of a run also reads its `WEBHOOK_*` variable).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use reference_webhook::Defect;
use webhook_harness::auth::{AdmissionConfiguration, ClientIdentity, Credentials};
use webhook_harness::{Budget, Error, GoldenMode, ImageSpec, Manifest, OptionError, Resolve, Shard, Suite, Target};

use crate::embedded;

#[derive(Parser, Debug)]
#[command(
    name = "webhook-conformance",
    version,
    about = "Conformance suite for Kubernetes admission webhooks: plays the kube-apiserver against your webhook and tells you whether a cluster would accept its answers.",
    long_about = None
)]
/// The command line: a subcommand, or the options of `run` (the default command).
pub struct Cli {
    /// The subcommand (`run` when none is given).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The options of a run without a subcommand.
    #[command(flatten)]
    pub run: RunArgs,
    /// What makes the run fail, without a subcommand.
    #[command(flatten)]
    pub gate: GateArgs,
}

impl Cli {
    /// The options of a run as the environment gives them (`WEBHOOK_CONFIG`, `WEBHOOK_URL`, …), for
    /// the `cargo test` entry points.
    pub fn from_env() -> Result<Cli, clap::Error> {
        Cli::try_parse_from(["webhook-conformance"])
    }
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the checks against a webhook (the default command).
    Run(RunCommand),
    /// Print the rule catalog: id, severity, statement, source, grouped by what each rule judges.
    Rules,
    /// Serve the bundled reference webhook (optionally with a defect), e.g. to try the suite's --cmd.
    ReferenceWebhook(ReferenceArgs),
    /// Hold the webhook to the properties (idempotence, reinvocation, determinism, dry run, …) on
    /// generated requests; failures are shrunk to a minimal request.
    Fuzz(FuzzArgs),
    /// Merge JSON reports (the shards of a `fuzz --shard` campaign, or separate runs) into one
    /// verdict and report.
    Merge(MergeArgs),
    /// Record real traffic as case files: as a proxy in front of the webhook (--listen, --to), or
    /// from the apiserver's audit log (--from-audit). Secrets, credentials, tokens and user names
    /// are redacted unless --keep-sensitive; one case per shape unless --all.
    Record(RecordArgs),
}

/// The options of a run: the webhooks, the target, what is sent, the outputs.
#[derive(Args, Debug, Default, Clone)]
pub struct RunArgs {
    /// The webhook's MutatingWebhookConfiguration/ValidatingWebhookConfiguration YAML.
    #[arg(long, value_name = "FILE", env = "WEBHOOK_CONFIG")]
    pub config: Option<PathBuf>,
    /// A CustomResourceDefinition (YAML) of a custom resource the webhook's rules select (repeatable):
    /// its objects are built from the CRD's schema and pruned as the apiserver does.
    #[arg(long = "crd", value_name = "FILE", env = "WEBHOOK_CRDS", value_delimiter = ',')]
    pub crds: Vec<PathBuf>,
    /// Only this webhook of the manifest (repeatable); all of them by default.
    #[arg(long = "webhook", value_name = "NAME")]
    pub webhooks: Vec<String>,
    /// A webhook you already run: https://host:port[/path]. A path here overrides the manifest's.
    #[arg(long, value_name = "URL", conflicts_with = "cmd", env = "WEBHOOK_URL")]
    pub url: Option<String>,
    /// The CA bundle (PEM) that signed the --url webhook's certificate [default: the manifest's
    /// clientConfig.caBundle].
    #[arg(long, value_name = "FILE", env = "WEBHOOK_CA")]
    pub ca: Option<PathBuf>,
    /// --url: connect to ADDR (an IP address, optionally with :PORT) for HOST:PORT instead of asking
    /// DNS, as curl's --resolve (repeatable). E.g. --url https://my-webhook.my-ns.svc:443 --resolve
    /// my-webhook.my-ns.svc:443:127.0.0.1:8443 calls a local webhook by its Service's name.
    #[arg(
        long = "resolve",
        value_name = "HOST:PORT:ADDR",
        requires = "url",
        env = "WEBHOOK_RESOLVE",
        value_delimiter = ','
    )]
    pub resolve: Vec<Resolve>,
    /// A command that starts the webhook, with these substituted: {cert} and {key} the serving
    /// certificate and key, {ca} the CA that signed them, {client_ca} the CA that issues the client
    /// certificate of `--client-cert generated` (for a webhook that verifies callers), {port} the
    /// port to listen on, {host} the host name the suite calls.
    #[arg(long, value_name = "COMMAND LINE", env = "WEBHOOK_CMD", value_parser = parse_command)]
    pub cmd: Option<String>,
    /// A container image (already on the Docker engine; never pulled) that serves the webhook.
    #[arg(long, value_name = "NAME[:TAG]", conflicts_with_all = ["url", "cmd"], env = "WEBHOOK_IMAGE")]
    pub image: Option<String>,
    /// --image: the container port the webhook listens on [default: 8443].
    #[arg(long, value_name = "PORT", requires = "image", env = "WEBHOOK_IMAGE_PORT")]
    pub image_port: Option<u16>,
    /// --image: where the generated TLS files are mounted read-only [default: /certs].
    #[arg(long, value_name = "DIR", requires = "image", env = "WEBHOOK_IMAGE_CERT_DIR")]
    pub image_cert_dir: Option<String>,
    /// --image: file name of the serving certificate in the mount [default: tls.crt].
    #[arg(long, value_name = "NAME", requires = "image")]
    pub image_cert_name: Option<String>,
    /// --image: file name of the key in the mount [default: tls.key].
    #[arg(long, value_name = "NAME", requires = "image")]
    pub image_key_name: Option<String>,
    /// --image: file name of the CA in the mount [default: ca.pem].
    #[arg(long, value_name = "NAME", requires = "image")]
    pub image_ca_name: Option<String>,
    /// --image: an environment variable for the container (repeatable).
    #[arg(long = "image-env", value_name = "KEY=VALUE", requires = "image")]
    pub image_env: Vec<String>,
    /// --image: an argument appended to the image's entrypoint (repeatable; {cert} {key} {ca}
    /// {client_ca} {port} become the in-container values, as for --cmd).
    #[arg(long = "image-arg", value_name = "ARG", requires = "image", allow_hyphen_values = true)]
    pub image_args: Vec<String>,
    /// The --image-arg list as one whitespace-separated variable (for `cargo test`).
    #[arg(long, hide = true, env = "WEBHOOK_IMAGE_ARGS", value_delimiter = ' ', requires = "image")]
    pub image_args_env: Vec<String>,
    /// Seconds a started target has to accept a TLS handshake (at least 1).
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = parse_startup_timeout)]
    pub startup_timeout: u64,
    /// Keep the generated CA, certificate and key in DIR (for the replay commands).
    #[arg(long, value_name = "DIR")]
    pub tls_dir: Option<PathBuf>,
    /// The client certificate (PEM) the suite presents to the webhook, as an apiserver with webhook
    /// credentials does; `generated`: one the run's CA issues (targets the suite starts; the
    /// webhook trusts {client_ca}).
    #[arg(long, value_name = "FILE|generated", env = "WEBHOOK_CLIENT_CERT")]
    pub client_cert: Option<String>,
    /// The key (PEM) of --client-cert FILE.
    #[arg(long, value_name = "FILE", env = "WEBHOOK_CLIENT_KEY")]
    pub client_key: Option<PathBuf>,
    /// A bearer token the suite sends (Authorization: Bearer); prefer the WEBHOOK_TOKEN variable or
    /// --token-file to keep it out of the process list.
    #[arg(long, value_name = "TOKEN", env = "WEBHOOK_TOKEN", hide_env_values = true, conflicts_with = "token_file")]
    pub token: Option<String>,
    /// A file holding the bearer token the suite sends.
    #[arg(long, value_name = "FILE", env = "WEBHOOK_TOKEN_FILE")]
    pub token_file: Option<PathBuf>,
    /// The apiserver's AdmissionConfiguration (--admission-control-config-file): each webhook gets
    /// the credentials its kubeConfigFile gives the webhook's host name.
    #[arg(
        long,
        value_name = "FILE",
        env = "WEBHOOK_ADMISSION_CONFIG",
        conflicts_with_all = ["client_cert", "client_key", "token", "token_file"]
    )]
    pub admission_config: Option<PathBuf>,
    /// What the cluster's authorizer allows (YAML: RBAC-style grants), for matchConditions that ask
    /// it; without it their authorization checks cannot be evaluated.
    #[arg(long, value_name = "FILE", env = "WEBHOOK_AUTHORIZER")]
    pub authorizer: Option<PathBuf>,
    /// Offer HTTP/2 in ALPN (as the apiserver may for a url webhook on loopback); HTTP/1.1 otherwise.
    #[arg(long)]
    pub http2: bool,
    /// Requests in flight at once (and proptest runners per property).
    #[arg(long, value_name = "N", default_value_t = webhook_harness::DEFAULT_CONCURRENCY)]
    pub concurrency: usize,
    /// Write the machine-readable report here.
    #[arg(long, value_name = "FILE")]
    pub report_json: Option<PathBuf>,
    /// The other report files.
    #[command(flatten)]
    pub outputs: OutputArgs,
    /// With no target: run the bundled reference webhook with this defect (see `reference-webhook --list-defects`).
    #[arg(long, value_name = "NAME")]
    pub reference_defect: Option<String>,
}

/// The reports for pull requests and code scanning (every command that judges writes them).
#[derive(Args, Debug, Default, Clone)]
pub struct OutputArgs {
    /// Write a Markdown report here (fits $GITHUB_STEP_SUMMARY): the verdict, each failing rule with
    /// its minimal request and replay, the coverage.
    #[arg(long, value_name = "FILE")]
    pub report_md: Option<PathBuf>,
    /// Print GitHub Actions annotations (::error/::warning workflow commands) after the report: lint
    /// findings point at the manifest's lines, case findings at the case files.
    #[arg(long)]
    pub github_annotations: bool,
    /// Write a SARIF 2.1.0 log here, for code scanning.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// List every rule of every webhook in the text report, passing ones included (by default the
    /// rules that hold are one line per webhook; FAILs and WARNs are always in full).
    #[arg(short, long, env = "WEBHOOK_VERBOSE")]
    pub verbose: bool,
    /// Write each request the text report replays here, whole, the replay reading it with
    /// `--data-binary @file` (default: a temporary directory, kept and named only when the verdict
    /// is FAIL).
    #[arg(long, value_name = "DIR", env = "WEBHOOK_ARTIFACTS")]
    pub artifacts: Option<PathBuf>,
}

/// `--cases`: a number of generated cases, or a directory of case files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CasesArg {
    /// Generated cases per property and webhook.
    Count(u32),
    /// A directory of data-driven case files.
    Dir(PathBuf),
}

/// A value of an option that does not parse.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// `--cases ""`.
    #[error("expected a number of generated cases or a directory of case files")]
    NoCases,
    /// `--cmd ""`.
    #[error("the command is empty: give the command line that starts the webhook")]
    EmptyCommand,
    /// `--startup-timeout 0`.
    #[error("must be at least 1 second: a started target needs time to listen")]
    ZeroStartupTimeout,
    /// `--startup-timeout` that is not a number.
    #[error("{text:?} is not a whole number of seconds")]
    NotSeconds {
        /// The value given.
        text: String,
        /// Why it is not a number.
        #[source]
        source: std::num::ParseIntError,
    },
    /// A duration without a number.
    #[error("{text:?}: expected e.g. 90s, 10m, 1h")]
    NotADuration {
        /// The value given.
        text: String,
        /// Why its number does not parse.
        #[source]
        source: std::num::ParseIntError,
    },
    /// A duration of an unknown unit.
    #[error("{text:?}: unknown unit {unit:?} (s, m, h)")]
    DurationUnit {
        /// The value given.
        text: String,
        /// Its unit.
        unit: String,
    },
}

fn parse_cases(s: &str) -> Result<CasesArg, ValueError> {
    match s.parse::<u32>() {
        Ok(n) => Ok(CasesArg::Count(n)),
        Err(_) if s.is_empty() => Err(ValueError::NoCases),
        Err(_) => Ok(CasesArg::Dir(PathBuf::from(s))),
    }
}

/// What a run checks beyond the planned requests: data-driven cases, generated requests for the
/// properties, golden snapshots, JUnit.
#[derive(Args, Debug, Default, Clone)]
pub struct GateArgs {
    /// N: generated cases per property and webhook [run: 16, fuzz: 64]; DIR: data-driven cases (YAML
    /// files) to run too [default for the bundled reference: the repo's cases/]. Repeatable.
    #[arg(long = "cases", value_name = "N|DIR", value_parser = parse_cases, env = "WEBHOOK_CASES")]
    pub cases: Vec<CasesArg>,
    /// The number of generated cases, as proptest's variable names it (same as --cases N).
    #[arg(long, hide = true, env = "PROPTEST_CASES")]
    pub proptest_cases: Option<u32>,
    /// Generate requests for this long instead of a number of cases, e.g. 90s, 10m, 1h.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// The seed of the generated requests; the same seed, cases and concurrency repeat them [default: fresh].
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Only this property (repeatable), e.g. property.idempotent.
    #[arg(long = "property", value_name = "ID")]
    pub properties: Vec<String>,
    /// Compare each case's answers with the snapshots (insta .snap files) in DIR: golden.unchanged.
    #[arg(long, value_name = "DIR", env = "WEBHOOK_GOLDEN")]
    pub golden: Option<PathBuf>,
    /// With --golden: write this run's answers as the new snapshots instead of failing on changes.
    #[arg(long, requires = "golden")]
    pub update_golden: bool,
    /// Write a JUnit XML report here (one testcase per rule and webhook, per lint rule, per case).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

/// `webhook-conformance run`.
#[derive(Args, Debug, Default, Clone)]
pub struct RunCommand {
    /// The options of the run.
    #[command(flatten)]
    pub run: RunArgs,
    /// What makes the run fail.
    #[command(flatten)]
    pub gate: GateArgs,
}

/// `webhook-conformance fuzz`: the run with a long budget, minimal failing requests saved.
#[derive(Args, Debug, Clone)]
pub struct FuzzArgs {
    /// The options of the run.
    #[command(flatten)]
    pub run: RunArgs,
    /// What makes the run fail.
    #[command(flatten)]
    pub gate: GateArgs,
    /// Where minimal failing requests are saved and replayed from first.
    #[arg(long, value_name = "DIR", default_value = ".webhook-conformance/regressions")]
    pub regressions: PathBuf,
    /// Neither replay nor save regressions.
    #[arg(long)]
    pub no_regressions: bool,
    /// Case files (e.g. recorded by `record`) to start generation from: they run as cases, and
    /// most generated requests are mutations of their objects (labels, annotations, containers,
    /// replicas, sizes), shrinking toward the case as it was.
    #[arg(long, value_name = "DIR")]
    pub seed_cases: Option<PathBuf>,
    /// Generate only this shard's part of the campaign (I of N, e.g. 2/4): N machines with the same
    /// --seed, --cases and --concurrency cover disjoint cases, and `merge` gives their verdict.
    /// --cases is the campaign's total; --duration is each shard's.
    #[arg(long, value_name = "I/N", env = "WEBHOOK_SHARD")]
    pub shard: Option<Shard>,
    /// In a Kubernetes Job with `completionMode: Indexed`: this pod's shard of N, its index the
    /// pod's JOB_COMPLETION_INDEX (0-based) plus one.
    #[arg(long, value_name = "N", conflicts_with = "shard")]
    pub shard_from_job: Option<u32>,
}

/// `webhook-conformance merge`.
#[derive(Args, Debug, Clone)]
pub struct MergeArgs {
    /// The JSON reports (--report-json) to merge: every shard of a campaign once, or separate runs;
    /// a directory stands for the *.json files in it.
    #[arg(required = true, value_name = "REPORT.json|DIR")]
    pub reports: Vec<PathBuf>,
    /// Write the merged JSON report here.
    #[arg(long, value_name = "FILE")]
    pub report_json: Option<PathBuf>,
    /// The other report files.
    #[command(flatten)]
    pub outputs: OutputArgs,
}

/// `webhook-conformance record`.
#[derive(Args, Debug, Clone)]
pub struct RecordArgs {
    /// The webhook's MutatingWebhookConfiguration/ValidatingWebhookConfiguration YAML: only requests
    /// its rules select are recorded, each case naming the webhook it went to.
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// Where the case files are written (made when missing), one file per request.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Serve the recording proxy here (e.g. 0.0.0.0:8443); it runs until interrupted.
    #[arg(long, value_name = "ADDR", requires = "to", conflicts_with = "from_audit")]
    pub listen: Option<std::net::SocketAddr>,
    /// The webhook the proxy forwards to: https://host:port (each request's path and query kept).
    #[arg(long, value_name = "URL", requires = "listen")]
    pub to: Option<String>,
    /// The CA bundle (PEM) the --to webhook's certificate must chain to [default: the manifest's
    /// clientConfig.caBundle]. Verification is never switched off.
    #[arg(long, value_name = "FILE", requires = "to")]
    pub ca: Option<PathBuf>,
    /// The certificate (PEM) the proxy serves [default: one the suite's CA issues for localhost and
    /// the manifest's Service names].
    #[arg(long, value_name = "FILE", requires_all = ["key", "listen"])]
    pub cert: Option<PathBuf>,
    /// The key (PEM) of --cert.
    #[arg(long, value_name = "FILE", requires = "cert")]
    pub key: Option<PathBuf>,
    /// Keep the generated CA, certificate and key in DIR (the caBundle callers of the proxy trust).
    #[arg(long, value_name = "DIR", requires = "listen", conflicts_with = "cert")]
    pub tls_dir: Option<PathBuf>,
    /// The client certificate (PEM) the proxy presents to the webhook.
    #[arg(long, value_name = "FILE", requires_all = ["client_key", "to"])]
    pub client_cert: Option<PathBuf>,
    /// The key (PEM) of --client-cert.
    #[arg(long, value_name = "FILE", requires = "client_cert")]
    pub client_key: Option<PathBuf>,
    /// A file holding the bearer token the proxy sends to the webhook (instead of the caller's).
    #[arg(long, value_name = "FILE", requires = "to")]
    pub token_file: Option<PathBuf>,
    /// The longest a call to the webhook may take, in seconds (1 to 30, the apiserver's largest
    /// timeoutSeconds); a shorter `timeout` in the caller's query wins.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=30))]
    pub timeout: u64,
    /// Convert this audit log (audit.k8s.io/v1 Event JSON lines, level Request or RequestResponse).
    #[arg(long, value_name = "FILE")]
    pub from_audit: Option<PathBuf>,
    /// Keep Secret data, credential-like env values, tokens and user names as recorded.
    #[arg(long)]
    pub keep_sensitive: bool,
    /// Write every request; by default alike requests (same resource, operation, webhook and field
    /// set) are folded into one case.
    #[arg(long)]
    pub all: bool,
}

/// Generated cases per property in a `fuzz` campaign unless `--cases N` says otherwise.
pub const FUZZ_CASES: u32 = 64;

/// The options of `reference-webhook`.
#[derive(Args, Debug)]
pub struct ReferenceArgs {
    /// The serving certificate (PEM).
    #[arg(long, env = "WEBHOOK_TLS_CERT", value_name = "FILE")]
    pub cert: Option<PathBuf>,
    /// The serving certificate's key (PEM).
    #[arg(long, env = "WEBHOOK_TLS_KEY", value_name = "FILE")]
    pub key: Option<PathBuf>,
    /// The port to listen on.
    #[arg(long, env = "WEBHOOK_PORT", default_value_t = 8443)]
    pub port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Require a client certificate signed by this CA (PEM) from every client.
    #[arg(long, value_name = "FILE")]
    pub client_ca: Option<PathBuf>,
    /// Break the protocol this way (see --list-defects).
    #[arg(long, value_name = "NAME")]
    pub defect: Option<String>,
    /// Answer every request only after this many milliseconds (a slow webhook).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub delay_ms: u64,
    /// Print the defects (name, rule, description) and exit.
    #[arg(long)]
    pub list_defects: bool,
}

/// `--cmd`: a command line with something to run.
fn parse_command(s: &str) -> Result<String, ValueError> {
    if s.trim().is_empty() {
        return Err(ValueError::EmptyCommand);
    }
    Ok(s.to_string())
}

/// `--startup-timeout`: whole seconds, at least one (no target is ready the moment it starts).
fn parse_startup_timeout(s: &str) -> Result<u64, ValueError> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err(ValueError::ZeroStartupTimeout),
        Ok(n) => Ok(n),
        Err(source) => Err(ValueError::NotSeconds { text: s.to_string(), source }),
    }
}

/// `90s`, `10m`, `1h`, or plain seconds.
pub fn parse_duration(s: &str) -> Result<Duration, ValueError> {
    let s = s.trim();
    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: u64 = num.parse().map_err(|source| ValueError::NotADuration { text: s.to_string(), source })?;
    let secs = match unit {
        "" | "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        _ => return Err(ValueError::DurationUnit { text: s.to_string(), unit: unit.to_string() }),
    };
    Ok(Duration::from_secs(secs))
}

fn option(message: impl Into<String>) -> Error {
    Error::Option(OptionError::Usage(message.into()))
}

impl RunArgs {
    /// True when no target is given: the bundled reference webhook is the target.
    pub fn is_reference(&self) -> bool {
        self.url.is_none() && self.cmd.is_none() && self.image.is_none()
    }

    /// The target these arguments name.
    pub fn target(&self) -> Result<Target, Error> {
        let defect = match &self.reference_defect {
            Some(name) => Some(name.parse::<Defect>().map_err(|e| option(format!("--reference-defect: {e}")))?),
            None => None,
        };
        if defect.is_some() && !self.is_reference() {
            return Err(option(
                "--reference-defect applies to the bundled reference webhook only (no --url/--cmd/--image)",
            ));
        }
        Ok(match (&self.url, &self.cmd, &self.image) {
            (None, None, Some(_)) => Target::Image(self.image_spec()?),
            (Some(url), None, None) => match &self.ca {
                Some(ca) => Target::url(url, ca),
                None => Target::url_trusting_ca_bundle(url),
            },
            (None, Some(cmd), None) => {
                Target::Command { command: cmd.clone(), startup_timeout: Duration::from_secs(self.startup_timeout) }
            }
            (None, None, None) => embedded::target(defect, reference_webhook::Style::default()),
            _ => return Err(option("give one of --url, --cmd, --image")),
        })
    }

    /// The manifest: `--config`, or the bundled reference's own for the bundled reference.
    pub fn manifest(&self) -> Result<Manifest, Error> {
        match &self.config {
            Some(path) => Ok(Manifest::load(path)?),
            None if self.is_reference() => Ok(embedded::reference_manifest()),
            None => Err(option(
                "--config FILE is required with --url, --cmd or --image: the webhook's MutatingWebhookConfiguration/ValidatingWebhookConfiguration",
            )),
        }
    }

    /// The `--image*` arguments as an [`ImageSpec`].
    fn image_spec(&self) -> Result<ImageSpec, Error> {
        let mut spec = ImageSpec::new(self.image.clone().unwrap_or_default());
        spec.startup_timeout = Duration::from_secs(self.startup_timeout);
        if let Some(p) = self.image_port {
            spec.port = p;
        }
        for (field, value) in [
            (&mut spec.cert_dir, &self.image_cert_dir),
            (&mut spec.cert_name, &self.image_cert_name),
            (&mut spec.key_name, &self.image_key_name),
            (&mut spec.ca_name, &self.image_ca_name),
        ] {
            if let Some(v) = value {
                *field = v.clone();
            }
        }
        for kv in &self.image_env {
            let (k, v) = kv.split_once('=').ok_or_else(|| option(format!("--image-env {kv:?}: expected KEY=VALUE")))?;
            spec.env.push((k.to_string(), v.to_string()));
        }
        spec.args =
            self.image_args.iter().chain(self.image_args_env.iter().filter(|a| !a.is_empty())).cloned().collect();
        Ok(spec)
    }

    /// A suite of these arguments: manifest, selected webhooks, target and client options.
    pub fn suite(&self) -> Result<Suite, Error> {
        let mut suite = Suite::new(self.manifest()?)
            .webhooks(&self.webhooks)?
            .target(self.target()?)
            .http2(self.http2)
            .concurrency(self.concurrency)
            .crds(&self.crds)?;
        for entry in &self.resolve {
            suite = suite.resolve(entry.clone());
        }
        if let Some(dir) = &self.tls_dir {
            suite = suite.tls_dir(dir);
        }
        if let Some(file) = &self.authorizer {
            suite = suite.authorizer_file(file)?;
        }
        Ok(suite.credentials(self.credentials()?))
    }

    /// How the suite authenticates to the webhooks, from `--client-cert`, `--client-key`, `--token`,
    /// `--token-file` and `--admission-config`.
    pub fn credentials(&self) -> Result<Credentials, Error> {
        if let Some(file) = &self.admission_config {
            return Ok(Credentials::AdmissionConfiguration(Arc::new(AdmissionConfiguration::load(file)?)));
        }
        let token = match (&self.token, &self.token_file) {
            (Some(t), _) => Some((t.clone(), "--token".to_string())),
            (None, Some(file)) => {
                let text = std::fs::read_to_string(file)
                    .map_err(|e| Error::input(format!("--token-file {}", file.display()), e))?;
                Some((text.trim().to_string(), format!("--token-file {}", file.display())))
            }
            (None, None) => None,
        };
        if token.as_ref().is_some_and(|(t, _)| t.is_empty()) {
            return Err(option("the bearer token is empty"));
        }
        Ok(match (self.client_cert.as_deref(), &self.client_key) {
            (Some("generated"), None) => Credentials::Generated { token: token.map(|(t, _)| t) },
            (Some("generated"), Some(_)) => {
                return Err(option("--client-key goes with --client-cert FILE, not with --client-cert generated"))
            }
            (Some(cert), Some(key)) => {
                let identity = ClientIdentity::from_files(Path::new(cert), key)?;
                match token {
                    Some((t, _)) => Credentials::Identity(identity.with_token(t)),
                    None => Credentials::Identity(identity),
                }
            }
            (Some(_), None) => return Err(option("--client-cert FILE needs --client-key FILE")),
            (None, Some(_)) => return Err(option("--client-key needs --client-cert FILE")),
            (None, None) => match token {
                Some((t, source)) => {
                    Credentials::Identity(ClientIdentity { source, ..ClientIdentity::anonymous() }.with_token(t))
                }
                None => Credentials::None,
            },
        })
    }
}

impl GateArgs {
    /// The cases directory: `--cases DIR`, or the repository's `cases/` for the bundled reference
    /// webhook with its own manifest (when that directory exists).
    pub fn cases_dir(&self, run: &RunArgs) -> Option<PathBuf> {
        let given = self.cases.iter().rev().find_map(|c| match c {
            CasesArg::Dir(d) => Some(d.clone()),
            CasesArg::Count(_) => None,
        });
        match given {
            Some(d) => Some(d),
            None if run.is_reference() && run.config.is_none() => Some(embedded::cases_dir()).filter(|d| d.is_dir()),
            None => None,
        }
    }

    /// Generated cases per property: `--cases N`, `PROPTEST_CASES`, or `default`.
    pub fn generated(&self, default: u32) -> u32 {
        let given = self.cases.iter().rev().find_map(|c| match c {
            CasesArg::Count(n) => Some(*n),
            CasesArg::Dir(_) => None,
        });
        given.or(self.proptest_cases).unwrap_or(default)
    }

    /// `--golden DIR` can be used: a directory of snapshots to compare with, or, with
    /// `--update-golden`, a directory (made when missing) to write them to.
    pub fn check_golden(&self) -> Result<(), Error> {
        let Some(dir) = &self.golden else { return Ok(()) };
        if dir.is_dir() {
            return Ok(());
        }
        if dir.exists() {
            return Err(option(format!("--golden {}: not a directory", dir.display())));
        }
        if self.update_golden {
            return Ok(());
        }
        Err(option(format!(
            "--golden {}: no such directory (with --update-golden the run writes its snapshots there first)",
            dir.display()
        )))
    }

    /// What `--golden` / `--update-golden` ask for.
    pub fn golden_mode(&self) -> GoldenMode {
        match (&self.golden, self.update_golden) {
            (Some(d), true) => GoldenMode::Update(d.clone()),
            (Some(d), false) => GoldenMode::Check(d.clone()),
            (None, _) => GoldenMode::Off,
        }
    }

    /// The seed of this run's generated requests: `--seed`, or a fresh one.
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or_else(fresh_seed)
    }

    /// `suite` with these cases, snapshots and generated requests (`default_cases` per property
    /// unless `--cases N` or `--duration` say otherwise), from `seed`.
    pub fn apply(&self, run: &RunArgs, suite: Suite, default_cases: u32, seed: u64) -> Result<Suite, Error> {
        self.check_golden()?;
        let suite = match self.cases_dir(run) {
            Some(dir) => suite.cases_dir(dir)?,
            None => suite,
        };
        let budget = match self.duration {
            Some(d) => Budget::duration(d),
            None => Budget::cases(self.generated(default_cases)),
        };
        Ok(suite.golden(self.golden_mode()).properties(&self.properties)?.budget(budget).seed(seed))
    }
}

/// A seed from the clock and the process's hash keys.
pub fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0));
    h.finish()
}

impl FuzzArgs {
    /// This run's shard: `--shard I/N`, or `--shard-from-job N` with the pod's completion index.
    pub fn shard(&self) -> Result<Shard, Error> {
        if let Some(count) = self.shard_from_job {
            let index = std::env::var("JOB_COMPLETION_INDEX").map_err(|_| {
                option("--shard-from-job: JOB_COMPLETION_INDEX is not set (a Kubernetes Job with completionMode: Indexed sets it)")
            })?;
            let index: u32 = index
                .trim()
                .parse()
                .map_err(|_| option(format!("--shard-from-job: JOB_COMPLETION_INDEX {index:?} is not a number")))?;
            return format!("{}/{count}", index + 1)
                .parse()
                .map_err(|e| option(format!("--shard-from-job {count} with JOB_COMPLETION_INDEX {index}: {e}")));
        }
        Ok(self.shard.unwrap_or_default())
    }

    /// The suite of a fuzz campaign: the whole run, with a long budget and regressions kept.
    pub fn suite(&self, seed: u64) -> Result<Suite, Error> {
        if self.gate.generated(FUZZ_CASES) == 0 && self.gate.duration.is_none() {
            return Err(option("--cases must be at least 1"));
        }
        let mut suite = self.gate.apply(&self.run, self.run.suite()?, FUZZ_CASES, seed)?;
        if let Some(dir) = &self.seed_cases {
            if self.gate.cases.iter().any(|c| matches!(c, CasesArg::Dir(_))) {
                return Err(option("--seed-cases DIR runs its cases as the run's cases: give no --cases DIR with it"));
            }
            suite = suite.cases_dir(dir)?.seeded_generation(true);
        }
        Ok(suite.shard(self.shard()?).regressions((!self.no_regressions).then(|| self.regressions.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use webhook_harness::DEFAULT_CASES;

    #[test]
    fn the_fuzz_command_parses() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
        let cli =
            Cli::try_parse_from(["webhook-conformance", "fuzz", "--cases", "3", "--seed", "9", "--duration", "1m"])
                .unwrap();
        let Some(Command::Fuzz(args)) = cli.command else { panic!("not the fuzz command") };
        assert_eq!(
            (args.gate.generated(FUZZ_CASES), args.gate.seed, args.gate.duration),
            (3, Some(9), Some(Duration::from_secs(60)))
        );
        let cli = Cli::try_parse_from(["webhook-conformance", "--cases", "7", "--cases", "my-cases"]).unwrap();
        assert_eq!(cli.gate.generated(DEFAULT_CASES), 7);
        assert_eq!(cli.gate.cases_dir(&cli.run), Some(PathBuf::from("my-cases")));
        let cli = Cli::try_parse_from(["webhook-conformance"]).unwrap();
        assert_eq!(cli.gate.generated(DEFAULT_CASES), DEFAULT_CASES);
        let cli = Cli::try_parse_from(["webhook-conformance", "fuzz", "--shard", "2/4"]).unwrap();
        let Some(Command::Fuzz(args)) = cli.command else { panic!("not the fuzz command") };
        assert_eq!(args.shard, Some(Shard { index: 2, count: 4 }));
        let e = Cli::try_parse_from(["webhook-conformance", "fuzz", "--shard", "5/4"]).unwrap_err();
        assert!(e.to_string().contains("expected I/N with 1 <= I <= N"), "{e}");
    }

    #[test]
    fn golden_directories() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("golden");
        let gate = |args: &[&str]| {
            let mut all = vec!["webhook-conformance".to_string()];
            all.extend(args.iter().map(|a| a.to_string()));
            Cli::try_parse_from(all).unwrap().gate
        };
        let golden = missing.to_str().unwrap();
        let e = gate(&["--golden", golden]).check_golden().unwrap_err().to_string();
        assert!(e.contains("no such directory"), "{e}");
        // --update-golden writes the snapshots: a missing directory is made then.
        gate(&["--golden", golden, "--update-golden"]).check_golden().unwrap();
        std::fs::create_dir(&missing).unwrap();
        gate(&["--golden", golden]).check_golden().unwrap();
        gate(&[]).check_golden().unwrap();
    }

    #[test]
    fn help_names_every_placeholder_a_started_target_gets() {
        use clap::CommandFactory;
        let help = Cli::command().render_long_help().to_string();
        let paragraph = |flag: &str| {
            let at = help.find(flag).unwrap_or_else(|| panic!("{flag} in --help"));
            let rest = &help[at..];
            rest[..rest[flag.len()..].find("\n      --").map_or(rest.len(), |e| e + flag.len())].to_string()
        };
        // Those of harness targets/command.rs `substitute` and targets/container.rs.
        let cmd = paragraph("--cmd <COMMAND LINE>");
        for p in ["{cert}", "{key}", "{ca}", "{client_ca}", "{port}", "{host}"] {
            assert!(cmd.contains(p), "--cmd does not name {p}: {cmd}");
        }
        let image = paragraph("--image-arg <ARG>");
        for p in ["{cert}", "{key}", "{ca}", "{client_ca}", "{port}"] {
            assert!(image.contains(p), "--image-arg does not name {p}: {image}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("5d").unwrap_err().to_string(), "\"5d\": unknown unit \"d\" (s, m, h)");
        assert_eq!(parse_duration("m").unwrap_err().to_string(), "\"m\": expected e.g. 90s, 10m, 1h");
    }
}
