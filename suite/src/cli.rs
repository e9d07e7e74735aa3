//! The command line: `webhook-conformance [run] …`, `rules`, `reference-webhook`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use reference_webhook::Defect;
use webhook_harness::client::{tls_handshake, Endpoint, HttpVersions};
use webhook_harness::config::{select_webhooks, Manifest, WebhookSpec};
use webhook_harness::rules::CATALOG;
use webhook_harness::run::{run, RunOptions};
use webhook_harness::target::{start_command, start_image, ContainerError, ImageSpec, RunningTarget, StartError};

/// Exit code when the suite itself could not run (bad input, unreachable target).
pub const EXIT_USAGE: i32 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "webhook-conformance",
    version,
    about = "Conformance suite for Kubernetes admission webhooks: plays the kube-apiserver against your webhook and tells you whether a cluster would accept its answers."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub gate: GateArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the checks against a webhook (the default command).
    Run(RunCommand),
    /// Print the rule catalog: id, severity, statement, source.
    Rules,
    /// Serve the bundled reference webhook (optionally with a defect), e.g. to try the suite's --cmd.
    ReferenceWebhook(ReferenceArgs),
    /// Hold the webhook to the properties (idempotence, reinvocation, determinism, dry run, …) on
    /// generated requests; failures are shrunk to a minimal request.
    Fuzz(crate::fuzz::FuzzArgs),
}

#[derive(Args, Debug, Default, Clone)]
pub struct RunArgs {
    /// The webhook's MutatingWebhookConfiguration/ValidatingWebhookConfiguration YAML.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Only this webhook of the manifest (repeatable); all of them by default.
    #[arg(long = "webhook", value_name = "NAME")]
    pub webhooks: Vec<String>,
    /// A webhook you already run: https://host:port[/path]. A path here overrides the manifest's.
    #[arg(long, value_name = "URL", conflicts_with = "cmd")]
    pub url: Option<String>,
    /// The CA bundle (PEM) that signed the --url webhook's certificate.
    #[arg(long, value_name = "FILE", requires = "url")]
    pub ca: Option<PathBuf>,
    /// A command that starts the webhook; {cert} {key} {ca} {port} {host} are substituted.
    #[arg(long, value_name = "COMMAND LINE")]
    pub cmd: Option<String>,
    /// A container image (already on the Docker engine; never pulled) that serves the webhook.
    #[arg(long, value_name = "NAME[:TAG]", conflicts_with_all = ["url", "cmd"])]
    pub image: Option<String>,
    /// --image: the container port the webhook listens on [default: 8443].
    #[arg(long, value_name = "PORT", requires = "image")]
    pub image_port: Option<u16>,
    /// --image: where the generated TLS files are mounted read-only [default: /certs].
    #[arg(long, value_name = "DIR", requires = "image")]
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
    /// --image: an argument appended to the image's entrypoint (repeatable; {cert} {key} {ca} {port}
    /// become the in-container values).
    #[arg(long = "image-arg", value_name = "ARG", requires = "image", allow_hyphen_values = true)]
    pub image_args: Vec<String>,
    /// Seconds a started target has to accept a TLS handshake.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub startup_timeout: u64,
    /// Keep the generated CA, certificate and key in DIR (for the replay commands).
    #[arg(long, value_name = "DIR")]
    pub tls_dir: Option<PathBuf>,
    /// Offer HTTP/2 in ALPN (as the apiserver may for a url webhook on loopback); HTTP/1.1 otherwise.
    #[arg(long)]
    pub http2: bool,
    /// Requests in flight at once.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub concurrency: usize,
    /// Write the machine-readable report here.
    #[arg(long, value_name = "FILE")]
    pub report_json: Option<PathBuf>,
    /// With no target: run the bundled reference webhook with this defect (see `reference-webhook --list-defects`).
    #[arg(long, value_name = "NAME")]
    pub reference_defect: Option<String>,
}

/// The release-gate options of a run: data-driven cases, golden snapshots, JUnit.
#[derive(Args, Debug, Default, Clone)]
pub struct GateArgs {
    /// Data-driven cases (YAML files) to run too [default for the bundled reference: the repo's cases/].
    #[arg(long, value_name = "DIR")]
    pub cases: Option<PathBuf>,
    /// Compare each case's answers with the snapshots (insta .snap files) in DIR: golden.unchanged.
    #[arg(long, value_name = "DIR")]
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
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub gate: GateArgs,
}

#[derive(Args, Debug)]
pub struct ReferenceArgs {
    #[arg(long, env = "WEBHOOK_TLS_CERT", value_name = "FILE")]
    pub cert: Option<PathBuf>,
    #[arg(long, env = "WEBHOOK_TLS_KEY", value_name = "FILE")]
    pub key: Option<PathBuf>,
    #[arg(long, env = "WEBHOOK_PORT", default_value_t = 8443)]
    pub port: u16,
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    #[arg(long, value_name = "NAME")]
    pub defect: Option<String>,
    /// Print the defects (name, rule, description) and exit.
    #[arg(long)]
    pub list_defects: bool,
}

/// Where the webhook under test comes from.
#[derive(Clone, Debug)]
pub enum TargetChoice {
    Url { url: String, ca: PathBuf },
    Command { command: String, startup_timeout: Duration },
    Image { spec: ImageSpec },
    Reference { defect: Option<Defect> },
}

/// A run that could not take place, and whose fault it is.
#[derive(Debug)]
pub enum RunError {
    /// Bad input to the suite: exit 2.
    Usage(String),
    /// The target never became usable: a FAIL verdict of its own (exit 1).
    Target(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Usage(m) | RunError::Target(m) => f.write_str(m),
        }
    }
}

fn usage(e: impl std::fmt::Display) -> RunError {
    RunError::Usage(e.to_string())
}

/// Start the chosen target for `webhooks`.
pub async fn start_target(
    choice: &TargetChoice,
    webhooks: &[WebhookSpec],
    tls_dir: Option<&Path>,
) -> Result<RunningTarget, RunError> {
    match choice {
        TargetChoice::Reference { defect } => {
            crate::embedded::start(webhooks, *defect, tls_dir).await.map_err(|e| usage(format!("{e:#}")))
        }
        TargetChoice::Command { command, startup_timeout } => {
            match start_command(command, webhooks, tls_dir, *startup_timeout).await {
                Ok(t) => Ok(t),
                Err(StartError::Spawn(e)) => Err(usage(format!("--cmd: {e}"))),
                Err(e) => Err(RunError::Target(format!("target.ready FAIL: {e}"))),
            }
        }
        TargetChoice::Image { spec } => match start_image(spec, webhooks, tls_dir).await {
            Ok(t) => Ok(t),
            Err(ContainerError::Setup(e)) => Err(usage(format!("--image: {e}"))),
            Err(e) => Err(RunError::Target(format!("target.ready FAIL: {e}"))),
        },
        TargetChoice::Url { url, ca } => {
            let parsed = reqwest::Url::parse(url).map_err(|e| usage(format!("--url {url:?}: {e}")))?;
            if parsed.scheme() != "https" {
                return Err(usage(format!("--url {url:?}: the apiserver calls webhooks over https only")));
            }
            let ca_pem = std::fs::read(ca).map_err(|e| usage(format!("--ca {}: {e}", ca.display())))?;
            webhook_harness::tls::root_store(&ca_pem).map_err(|e| usage(format!("--ca {}: {e:#}", ca.display())))?;
            let path_override = !matches!(parsed.path(), "" | "/");
            let endpoint = Endpoint { base: parsed.clone(), resolve_to: None, ca_pem, path_override };
            let host = parsed.host_str().unwrap_or_default().to_string();
            let port = parsed.port_or_known_default().unwrap_or(443);
            let addrs: Vec<std::net::SocketAddr> = tokio::net::lookup_host((host.trim_matches(['[', ']']), port))
                .await
                .map_err(|e| usage(format!("--url {url:?}: cannot resolve {host}: {e}")))?
                .collect();
            let addr = *addrs.first().ok_or_else(|| usage(format!("--url {url:?}: {host} has no address")))?;
            if let Err(e) = tcp_reachable(addr).await {
                return Err(usage(format!("--url {url:?}: cannot connect to {addr}: {e}")));
            }
            // The apiserver verifies the certificate for the name the manifest gives (the service's
            // DNS name, or the host of clientConfig.url), whatever address --url reaches.
            let mut notes = Vec::new();
            let mut endpoint = endpoint;
            if let Some(name) = apiserver_host(webhooks).filter(|n| n != &host) {
                let mut named = endpoint.clone();
                named.base.set_host(Some(&name)).map_err(|e| usage(format!("manifest host {name:?}: {e}")))?;
                named.resolve_to = Some(addr);
                match tls_handshake(&named, addr, Duration::from_secs(5)).await {
                    Ok(()) => {
                        notes.push(format!("TLS verified for {name}, the name the apiserver calls, at {addr}"));
                        endpoint = named;
                    }
                    Err(e) => notes.push(format!(
                        "the certificate at {addr} does not verify for {name}, the name the apiserver would call ({e}); checked against {host} instead"
                    )),
                }
            }
            // A handshake failure is the webhook's (transport.connect); the run reports it.
            let mut target = RunningTarget::external(endpoint, format!("url: {url}"), Some(ca.clone()));
            target.notes = notes;
            Ok(target)
        }
    }
}

/// The TLS name the apiserver uses for the first webhook: `<service>.<namespace>.svc`, or the host
/// of `clientConfig.url`.
fn apiserver_host(webhooks: &[WebhookSpec]) -> Option<String> {
    let w = webhooks.first()?;
    if let Some(svc) = &w.client_config.service {
        return Some(format!("{}.{}.svc", svc.name, svc.namespace));
    }
    let url = reqwest::Url::parse(w.client_config.url.as_deref()?).ok()?;
    url.host_str().map(str::to_string)
}

async fn tcp_reachable(addr: std::net::SocketAddr) -> Result<(), String> {
    match tokio::time::timeout(Duration::from_secs(5), tokio::net::TcpStream::connect(addr)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("no answer within 5 s".into()),
    }
}

/// Resolve the run's manifest and target from the arguments.
pub fn choose(args: &RunArgs) -> Result<(TargetChoice, Vec<WebhookSpec>), RunError> {
    let defect = match &args.reference_defect {
        Some(name) => Some(name.parse::<Defect>().map_err(|e| usage(format!("--reference-defect: {e}")))?),
        None => None,
    };
    let choice = match (&args.url, &args.cmd) {
        _ if args.image.is_some() => TargetChoice::Image { spec: image_spec(args)? },
        (Some(url), None) => {
            let ca = args.ca.clone().ok_or_else(|| {
                usage("--url needs --ca FILE: the CA bundle that signed the webhook's serving certificate")
            })?;
            TargetChoice::Url { url: url.clone(), ca }
        }
        (None, Some(cmd)) => {
            TargetChoice::Command { command: cmd.clone(), startup_timeout: Duration::from_secs(args.startup_timeout) }
        }
        (None, None) => TargetChoice::Reference { defect },
        (Some(_), Some(_)) => return Err(usage("give --url or --cmd, not both")),
    };
    if defect.is_some() && !matches!(choice, TargetChoice::Reference { .. }) {
        return Err(usage("--reference-defect applies to the bundled reference webhook only (no --url/--cmd/--image)"));
    }
    let manifest = match &args.config {
        Some(path) => Manifest::load(path).map_err(usage)?,
        None if matches!(choice, TargetChoice::Reference { .. }) => crate::embedded::reference_manifest(),
        None => return Err(usage("--config FILE is required with --url, --cmd or --image: the webhook's MutatingWebhookConfiguration/ValidatingWebhookConfiguration")),
    };
    let webhooks = select_webhooks(&manifest, &args.webhooks).map_err(usage)?;
    Ok((choice, webhooks))
}

/// The `--image*` arguments as an [`ImageSpec`].
fn image_spec(args: &RunArgs) -> Result<ImageSpec, RunError> {
    if args.url.is_some() || args.cmd.is_some() {
        return Err(usage("give one of --url, --cmd, --image"));
    }
    let mut spec = ImageSpec::new(args.image.clone().unwrap_or_default());
    spec.startup_timeout = Duration::from_secs(args.startup_timeout);
    if let Some(p) = args.image_port {
        spec.port = p;
    }
    for (field, value) in [
        (&mut spec.cert_dir, &args.image_cert_dir),
        (&mut spec.cert_name, &args.image_cert_name),
        (&mut spec.key_name, &args.image_key_name),
        (&mut spec.ca_name, &args.image_ca_name),
    ] {
        if let Some(v) = value {
            *field = v.clone();
        }
    }
    for kv in &args.image_env {
        let (k, v) = kv.split_once('=').ok_or_else(|| usage(format!("--image-env {kv:?}: expected KEY=VALUE")))?;
        spec.env.push((k.to_string(), v.to_string()));
    }
    spec.args = args.image_args.clone();
    Ok(spec)
}

/// Run the suite as the CLI does; returns the exit code.
pub async fn run_cli(args: &RunArgs, gate: &GateArgs) -> i32 {
    let (choice, webhooks) = match choose(args) {
        Ok(x) => x,
        Err(e) => return report_error(&e),
    };
    let cases = match crate::cases_cli::load_cases(args, gate, &choice, &webhooks) {
        Ok(c) => c,
        Err(e) => return report_error(&e),
    };
    let mut target = match start_target(&choice, &webhooks, args.tls_dir.as_deref()).await {
        Ok(t) => t,
        Err(e) => {
            if let (RunError::Target(m), Some(path)) = (&e, &args.report_json) {
                let json = serde_json::json!({"verdict": "fail", "results": [{"rule": "target.ready", "outcome": "fail", "detail": m}]});
                let _ = std::fs::write(path, serde_json::to_string_pretty(&json).unwrap_or_default());
            }
            if let (RunError::Target(m), Some(path)) = (&e, &gate.junit) {
                let _ = std::fs::write(path, target_ready_junit(m));
            }
            return report_error(&e);
        }
    };
    let options = RunOptions {
        http: if args.http2 { HttpVersions::Http2AndHttp1 } else { HttpVersions::Http1 },
        concurrency: args.concurrency,
    };
    let mut report = match run(&webhooks, &mut target, &options).await {
        Ok(r) => r,
        Err(e) => return report_error(&usage(format!("{e:#}"))),
    };
    if let Err(e) =
        crate::cases_cli::extend_report(&mut report, gate, &choice, &webhooks, &target, &cases, options.http).await
    {
        return report_error(&e);
    }
    print!("{}", report.render_text());
    if let Some(path) = &gate.junit {
        if let Err(e) = crate::cases_cli::write_junit(&report, path) {
            return report_error(&e);
        }
    }
    if let Some(path) = &args.report_json {
        let text = serde_json::to_string_pretty(&report.to_json()).expect("JSON serializes");
        if let Err(e) = std::fs::write(path, text) {
            return report_error(&usage(format!("--report-json {}: {e}", path.display())));
        }
    }
    report.verdict().exit_code()
}

/// JUnit XML for a target that never became ready: one failing testcase, target.ready.
fn target_ready_junit(message: &str) -> String {
    let escaped = message.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"webhook-conformance\" tests=\"1\" failures=\"1\">\n  <testsuite name=\"target\" tests=\"1\" failures=\"1\">\n    <testcase classname=\"target\" name=\"target.ready\">\n      <failure message=\"the target never became ready\">{escaped}</failure>\n    </testcase>\n  </testsuite>\n</testsuites>\n"
    )
}

fn report_error(e: &RunError) -> i32 {
    match e {
        RunError::Usage(m) => {
            eprintln!("webhook-conformance: error: {m}");
            EXIT_USAGE
        }
        RunError::Target(m) => {
            println!("webhook-conformance: {m}\n\nverdict: FAIL — target.ready");
            1
        }
    }
}

/// `webhook-conformance rules`.
pub fn print_rules() {
    println!("{:26} {:4}  STATEMENT (SOURCE)", "ID", "SEV");
    for r in CATALOG {
        let lenient = if r.lenient_in_v1beta1 { " [WARN only for admission.k8s.io/v1beta1]" } else { "" };
        println!("{:26} {:4}  {}{}\n{:33}source: {}", r.id, r.severity, r.statement, lenient, "", r.source);
    }
    println!(
        "{:26} {:4}  A started target (--cmd, --image) accepts a TLS handshake before its startup deadline and does not exit.",
        "target.ready",
        "FAIL"
    );
    crate::cases_cli::print_rules();
    println!("\nPROPERTIES (webhook-conformance fuzz: generated requests)");
    for p in webhook_harness::rules::PROPERTIES {
        println!("{:26} {:4}  {}\n{:33}source: {}", p.id, p.severity, p.statement, "", p.source);
    }
}

/// `webhook-conformance reference-webhook`.
pub async fn serve_reference(args: &ReferenceArgs) -> i32 {
    if args.list_defects {
        for d in Defect::ALL {
            println!("{d}\t{}\t{}", d.rule(), d.description());
        }
        return 0;
    }
    let defect = match args.defect.as_deref().map(str::parse::<Defect>) {
        None => None,
        Some(Ok(d)) => Some(d),
        Some(Err(e)) => {
            eprintln!("webhook-conformance reference-webhook: {e}");
            return EXIT_USAGE;
        }
    };
    let (Some(cert), Some(key)) = (&args.cert, &args.key) else {
        eprintln!("webhook-conformance reference-webhook: --cert and --key (or WEBHOOK_TLS_CERT / WEBHOOK_TLS_KEY) are required");
        return EXIT_USAGE;
    };
    let result = async {
        let cert = std::fs::read(cert)?;
        let key = std::fs::read(key)?;
        let tls = reference_webhook::server_tls_config(&cert, &key)?;
        let listener = tokio::net::TcpListener::bind((args.host.as_str(), args.port)).await?;
        println!("listening on https://{}", listener.local_addr()?);
        tokio::select! {
            r = reference_webhook::serve(listener, tls, reference_webhook::Options { defect }) => r,
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    }
    .await;
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("webhook-conformance reference-webhook: {e:#}");
            EXIT_USAGE
        }
    }
}
