//! The command line: `webhook-conformance [run] …`, `rules`, `reference-webhook`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use reference_webhook::Defect;
use webhook_harness::client::{tls_handshake, Endpoint, HttpVersions};
use webhook_harness::config::{select_webhooks, Manifest, WebhookSpec};
use webhook_harness::rules::CATALOG;
use webhook_harness::run::{run, RunOptions};
use webhook_harness::target::{start_command, RunningTarget, StartError};

/// Exit code when the suite itself could not run (bad input, unreachable target).
pub const EXIT_USAGE: i32 = 2;

#[derive(Parser, Debug)]
#[command(name = "webhook-conformance", version, about = "Conformance suite for Kubernetes admission webhooks: plays the kube-apiserver against your webhook and tells you whether a cluster would accept its answers.")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the checks against a webhook (the default command).
    Run(RunArgs),
    /// Print the rule catalog: id, severity, statement, source.
    Rules,
    /// Serve the bundled reference webhook (optionally with a defect), e.g. to try the suite's --cmd.
    ReferenceWebhook(ReferenceArgs),
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
pub async fn start_target(choice: &TargetChoice, webhooks: &[WebhookSpec], tls_dir: Option<&Path>) -> Result<RunningTarget, RunError> {
    match choice {
        TargetChoice::Reference { defect } => crate::embedded::start(webhooks, *defect, tls_dir).await.map_err(|e| usage(format!("{e:#}"))),
        TargetChoice::Command { command, startup_timeout } => match start_command(command, webhooks, tls_dir, *startup_timeout).await {
            Ok(t) => Ok(t),
            Err(StartError::Spawn(e)) => Err(usage(format!("--cmd: {e}"))),
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
            // A handshake failure is the webhook's (transport.connect); the run reports it.
            let _ = tls_handshake(&endpoint, addr, Duration::from_secs(5)).await;
            Ok(RunningTarget::external(endpoint, format!("url: {url}"), Some(ca.clone())))
        }
    }
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
        (Some(url), None) => {
            let ca = args.ca.clone().ok_or_else(|| usage("--url needs --ca FILE: the CA bundle that signed the webhook's serving certificate"))?;
            TargetChoice::Url { url: url.clone(), ca }
        }
        (None, Some(cmd)) => TargetChoice::Command { command: cmd.clone(), startup_timeout: Duration::from_secs(args.startup_timeout) },
        (None, None) => TargetChoice::Reference { defect },
        (Some(_), Some(_)) => return Err(usage("give --url or --cmd, not both")),
    };
    if defect.is_some() && !matches!(choice, TargetChoice::Reference { .. }) {
        return Err(usage("--reference-defect applies to the bundled reference webhook only (no --url/--cmd)"));
    }
    let manifest = match &args.config {
        Some(path) => Manifest::load(path).map_err(usage)?,
        None if matches!(choice, TargetChoice::Reference { .. }) => crate::embedded::reference_manifest(),
        None => return Err(usage("--config FILE is required with --url or --cmd: the webhook's MutatingWebhookConfiguration/ValidatingWebhookConfiguration")),
    };
    let webhooks = select_webhooks(&manifest, &args.webhooks).map_err(usage)?;
    Ok((choice, webhooks))
}

/// Run the suite as the CLI does; returns the exit code.
pub async fn run_cli(args: &RunArgs) -> i32 {
    let (choice, webhooks) = match choose(args) {
        Ok(x) => x,
        Err(e) => return report_error(&e),
    };
    let mut target = match start_target(&choice, &webhooks, args.tls_dir.as_deref()).await {
        Ok(t) => t,
        Err(e) => {
            if let (RunError::Target(m), Some(path)) = (&e, &args.report_json) {
                let json = serde_json::json!({"verdict": "fail", "results": [{"rule": "target.ready", "outcome": "fail", "detail": m}]});
                let _ = std::fs::write(path, serde_json::to_string_pretty(&json).unwrap_or_default());
            }
            return report_error(&e);
        }
    };
    let options = RunOptions {
        http: if args.http2 { HttpVersions::Http2AndHttp1 } else { HttpVersions::Http1 },
        concurrency: args.concurrency,
    };
    let report = match run(&webhooks, &mut target, &options).await {
        Ok(r) => r,
        Err(e) => return report_error(&usage(format!("{e:#}"))),
    };
    print!("{}", report.render_text());
    if let Some(path) = &args.report_json {
        let text = serde_json::to_string_pretty(&report.to_json()).expect("JSON serializes");
        if let Err(e) = std::fs::write(path, text) {
            return report_error(&usage(format!("--report-json {}: {e}", path.display())));
        }
    }
    report.verdict().exit_code()
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
    println!("{:26} {:4}  {}", "target.ready", "FAIL", "A started target (--cmd) accepts a TLS handshake before its startup deadline and does not exit.");
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
