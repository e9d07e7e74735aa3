use clap::Parser;
use webhook_conformance::args::{Cli, Command};
use webhook_conformance::commands::{self, EXIT_USAGE};

fn main() {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let code = runtime.block_on(async {
        let work = async {
            match &cli.command {
                Some(Command::Rules) => {
                    commands::print_rules();
                    0
                }
                Some(Command::ReferenceWebhook(args)) => commands::serve_reference(args).await,
                Some(Command::Run(args)) => commands::run(&args.run, &args.gate).await,
                Some(Command::Fuzz(args)) => commands::fuzz(args).await,
                Some(Command::Merge(args)) => commands::merge(args),
                None => commands::run(&cli.run, &cli.gate).await,
            }
        };
        // On Ctrl-C or SIGTERM (a cancelled CI job) the run is dropped, and with it the target:
        // a started command's process group is killed and a container removed.
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler");
        tokio::select! {
            code = work => code,
            _ = tokio::signal::ctrl_c() => {
                eprintln!("webhook-conformance: interrupted; the target was stopped");
                130
            }
            _ = terminate.recv() => {
                eprintln!("webhook-conformance: terminated; the target was stopped");
                143
            }
        }
    });
    // Targets are stopped when dropped inside the run; exit only after the runtime is gone.
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    std::process::exit(code);
}
