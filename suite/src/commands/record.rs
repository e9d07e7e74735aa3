//! `webhook-conformance record`: real traffic as case files, through the recording proxy or from
//! an audit log.

use std::time::Duration;

use webhook_harness::auth::ClientIdentity;
use webhook_harness::record::proxy::{self, ProxyConfig};
use webhook_harness::record::{audit, Outcome, RecordOptions, Recorder};
use webhook_harness::tls::{ServingNames, TlsMaterial};
use webhook_harness::{Cancel, Error, InputError, Manifest, OptionError, TargetError};

use super::output::usage_error;
use crate::args::RecordArgs;

const COMMAND: &str = "webhook-conformance record";

/// Record as the arguments say; returns the exit code (2 on bad input).
pub async fn record(args: &RecordArgs, cancel: &Cancel) -> i32 {
    match run(args, cancel).await {
        Ok(()) => 0,
        Err(e) => usage_error(COMMAND, &e),
    }
}

fn option(message: impl Into<String>) -> Error {
    Error::Option(OptionError::Usage(message.into()))
}

async fn run(args: &RecordArgs, cancel: &Cancel) -> Result<(), Error> {
    let manifest = Manifest::load(&args.config)?;
    let options = RecordOptions { keep_sensitive: args.keep_sensitive, all: args.all };
    match (&args.from_audit, &args.listen) {
        (Some(log), None) => {
            // Read the log before anything is written: a log that cannot be read leaves no directory.
            let text = std::fs::read_to_string(log)
                .map_err(|e| Error::input(format!("--from-audit {}", log.display()), InputError::Unreadable(e)))?;
            let mut recorder = Recorder::new(&manifest, &args.out, options)?;
            from_audit(&mut recorder, &log.display().to_string(), &text)
        }
        (None, Some(_)) => through_proxy(args, &manifest, options, cancel).await,
        _ => Err(option("give --listen ADDR --to URL (a recording proxy) or --from-audit FILE")),
    }
}

fn print_outcome(outcome: &Result<Outcome, Error>) {
    match outcome {
        Ok(Outcome::Written(path)) => println!("recorded {}", path.display()),
        Ok(Outcome::Unusable(why)) => eprintln!("{COMMAND}: not recorded: {why}"),
        Ok(Outcome::Folded | Outcome::NotSelected) => {}
        Err(e) => eprintln!("{COMMAND}: error: {e}"),
    }
}

fn from_audit(recorder: &mut Recorder, file: &str, text: &str) -> Result<(), Error> {
    let conversion = audit::convert(file, text);
    for skipped in &conversion.skipped {
        eprintln!("{file}:{}: skipped: {}", skipped.line, skipped.why);
    }
    for request in conversion.requests {
        let outcome = recorder.record(request);
        print_outcome(&outcome);
        outcome?;
    }
    println!(
        "{} audit line(s) skipped, {} event(s) of other stages or verbs passed over",
        conversion.skipped.len(),
        conversion.passed_over
    );
    print!("{}", recorder.summary().render(recorder.options().keep_sensitive));
    Ok(())
}

async fn through_proxy(
    args: &RecordArgs,
    manifest: &Manifest,
    options: RecordOptions,
    cancel: &Cancel,
) -> Result<(), Error> {
    let (Some(listen), Some(to)) = (args.listen, &args.to) else {
        return Err(option("--listen needs --to URL: the webhook to forward to"));
    };
    let upstream = reqwest_url(to)?;
    let ca = match &args.ca {
        Some(file) => std::fs::read(file).map_err(|e| Error::input(format!("--ca {}", file.display()), e))?,
        None => manifest.webhooks.iter().find_map(|w| w.ca_bundle_pem()).transpose().map_err(|e| option(e.to_string()))?.ok_or_else(
            || option("--ca FILE is required: the manifest has no clientConfig.caBundle for the --to webhook's certificate"),
        )?,
    };
    let mut identity = match (&args.client_cert, &args.client_key) {
        (Some(cert), Some(key)) => ClientIdentity::from_files(cert, key)?,
        _ => ClientIdentity::anonymous(),
    };
    if let Some(file) = &args.token_file {
        let token = std::fs::read_to_string(file)
            .map_err(|e| Error::input(format!("--token-file {}", file.display()), e))?
            .trim()
            .to_string();
        if token.is_empty() {
            return Err(option(format!("--token-file {}: the token is empty", file.display())));
        }
        identity = identity.with_token(token);
    }
    // The serving certificate: given, or issued by a CA made for this recording.
    let mut generated = None;
    let serving = match (&args.cert, &args.key) {
        (Some(cert), Some(key)) => {
            let read = |p: &std::path::Path| std::fs::read(p).map_err(|e| Error::input(p.display().to_string(), e));
            proxy::serving_config(&read(cert)?, &read(key)?)?
        }
        _ => {
            let mut names = ServingNames::default();
            for w in &manifest.webhooks {
                if let Some(s) = &w.client_config.service {
                    names.dns.extend(ServingNames::for_service(&s.name, &s.namespace).dns);
                }
            }
            names.dns.dedup();
            let tls = TlsMaterial::generate(&names, args.tls_dir.as_deref())?;
            let config = proxy::serving_config(tls.cert_pem.as_bytes(), tls.key_pem.as_bytes())?;
            generated = Some(tls);
            config
        }
    };
    let recorder = Recorder::new(manifest, &args.out, options)?;
    let config = ProxyConfig {
        listen,
        upstream,
        upstream_ca_pem: ca,
        identity,
        serving,
        deadline: Duration::from_secs(args.timeout),
    };
    let running = proxy::start(config, recorder, print_outcome).await?;
    if let Some(tls) = &generated {
        println!("serving a certificate of the CA {}", tls.ca_path().display());
    }
    println!("recording on https://{} -> {}", running.addr, args.to.as_deref().unwrap_or_default());
    cancel.cancelled().await;
    let recorder = running.stop().await;
    print!("{}", recorder.summary().render(options.keep_sensitive));
    drop(generated);
    Ok(())
}

fn reqwest_url(to: &str) -> Result<webhook_harness::record::proxy::Url, Error> {
    webhook_harness::record::proxy::Url::parse(to)
        .map_err(|e| Error::target(format!("--to {to:?}"), TargetError::NotAUrl(e.into())))
}
