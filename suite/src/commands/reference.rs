//! `webhook-conformance reference-webhook`: the bundled reference webhook as a process of its own.

use reference_webhook::Defect;

use super::EXIT_USAGE;
use crate::args::ReferenceArgs;

/// Serve the reference webhook until interrupted; returns the exit code.
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
        let client_ca = match &args.client_ca {
            Some(path) => Some(
                std::fs::read(path)
                    .map_err(|e| std::io::Error::new(e.kind(), format!("--client-ca {}: {e}", path.display())))?,
            ),
            None => None,
        };
        let options = reference_webhook::Options { defect };
        let tls = reference_webhook::server::effective_tls(
            reference_webhook::server_tls_config_for_clients(&cert, &key, client_ca.as_deref())?,
            options,
        )?;
        let listener = tokio::net::TcpListener::bind((args.host.as_str(), args.port)).await?;
        println!("listening on https://{}", listener.local_addr()?);
        let delay = std::time::Duration::from_millis(args.delay_ms);
        let style = reference_webhook::Style::default();
        tokio::select! {
            r = reference_webhook::server::serve_prepared_paced(listener, tls, options, style, delay) => r,
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
