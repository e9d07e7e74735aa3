//! `reference-webhook`: serves the reference admission webhook over HTTPS.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory as _, Parser};
use reference_webhook::{Defect, Options};

/// The reference admission webhook: POST /mutate (mutating) and POST /validate (validating).
#[derive(Parser, Debug)]
#[command(name = "reference-webhook", version)]
struct Args {
    /// PEM certificate chain to serve.
    #[arg(long, env = "WEBHOOK_TLS_CERT", value_name = "FILE")]
    cert: Option<PathBuf>,
    /// PEM private key of the certificate.
    #[arg(long, env = "WEBHOOK_TLS_KEY", value_name = "FILE")]
    key: Option<PathBuf>,
    /// Port to listen on.
    #[arg(long, env = "WEBHOOK_PORT", default_value_t = 8443)]
    port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Require a client certificate signed by this CA (PEM) from every client.
    #[arg(long, env = "WEBHOOK_CLIENT_CA", value_name = "FILE")]
    client_ca: Option<PathBuf>,
    /// Break one promise of the webhook protocol (see --list-defects).
    #[arg(long, value_name = "NAME")]
    defect: Option<Defect>,
    /// Print the defects (name, suite rule, description; tab-separated) and exit.
    #[arg(long)]
    list_defects: bool,
}

fn usage_error(kind: ErrorKind, message: impl std::fmt::Display) -> ! {
    Args::command().error(kind, message).exit()
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.list_defects {
        let mut out = std::io::stdout().lock();
        for d in Defect::ALL {
            let _ = writeln!(out, "{}\t{}\t{}", d.name(), d.rule(), d.description());
        }
        return ExitCode::SUCCESS;
    }
    let Some(cert) = &args.cert else {
        usage_error(ErrorKind::MissingRequiredArgument, "--cert FILE (or WEBHOOK_TLS_CERT) is required");
    };
    let Some(key) = &args.key else {
        usage_error(ErrorKind::MissingRequiredArgument, "--key FILE (or WEBHOOK_TLS_KEY) is required");
    };
    let cert_pem = std::fs::read(cert).unwrap_or_else(|e| {
        usage_error(ErrorKind::ValueValidation, format!("cannot read --cert {}: {e}", cert.display()))
    });
    let key_pem = std::fs::read(key).unwrap_or_else(|e| {
        usage_error(ErrorKind::ValueValidation, format!("cannot read --key {}: {e}", key.display()))
    });
    let client_ca = args.client_ca.as_ref().map(|path| {
        std::fs::read(path).unwrap_or_else(|e| {
            usage_error(ErrorKind::ValueValidation, format!("cannot read --client-ca {}: {e}", path.display()))
        })
    });
    let tls = reference_webhook::server_tls_config_for_clients(&cert_pem, &key_pem, client_ca.as_deref())
        .unwrap_or_else(|e| usage_error(ErrorKind::ValueValidation, format!("bad --cert/--key/--client-ca: {e:#}")));

    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("reference-webhook: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let opts = Options { defect: args.defect };
    let result = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind((args.host.as_str(), args.port))
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {}:{}: {e}", args.host, args.port))?;
        let addr = listener.local_addr()?;
        let tls = reference_webhook::server::effective_tls(tls, opts)?;
        {
            let mut out = std::io::stdout().lock();
            writeln!(out, "listening on https://{addr}")?;
            out.flush()?;
        }
        let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            served = reference_webhook::server::serve_prepared(listener, tls, opts) => served,
            _ = terminate.recv() => Ok(()),
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    });
    // Do not wait for connections still held open (e.g. under `hang`).
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("reference-webhook: {e:#}");
            ExitCode::FAILURE
        }
    }
}
