//! `webhook-conformance`: the command line (`args.rs`) run by `commands/`.

use std::time::Duration;

use clap::Parser;
use webhook_conformance::args::{Cli, Command};
use webhook_conformance::commands::{self, EXIT_USAGE};
use webhook_harness::Cancel;

/// How long an interrupted run may take to wind down (stop its target, remove its files) before it
/// is dropped where it stands.
const WIND_DOWN: Duration = Duration::from_secs(10);

/// The suite allocates and frees many short-lived values per request (the drawn object, its bytes,
/// the answer, the patched object); with mimalloc a fuzz campaign against the bundled webhook runs
/// 15-25 % more requests per second than with the system allocator (README, Fuzzing). The static
/// build of the in-cluster image links it statically like everything else.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    let (code, interrupted) = runtime.block_on(async {
        let cancel = Cancel::new();
        let mut work = Box::pin(async {
            match &cli.command {
                Some(Command::Rules) => {
                    commands::print_rules();
                    0
                }
                Some(Command::ReferenceWebhook(args)) => commands::serve_reference(args).await,
                Some(Command::Run(args)) => commands::run(&args.run, &args.gate, &cancel).await,
                Some(Command::Fuzz(args)) => commands::fuzz(args, &cancel).await,
                Some(Command::Merge(args)) => commands::merge(args),
                Some(Command::Record(args)) => commands::record(args, &cancel).await,
                None => commands::run(&cli.run, &cli.gate, &cancel).await,
            }
        });
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler");
        // On Ctrl-C or SIGTERM (a cancelled CI job) the run is cancelled and winds down by itself:
        // calls in flight return, generation and shrinking stop, the step it is in ends without
        // judging or writing anything, the target is stopped (a started command's process group
        // killed, a container removed) and the generated files removed.
        let (code, what) = tokio::select! {
            code = &mut work => return (code, false),
            _ = tokio::signal::ctrl_c() => (130, "interrupted"),
            _ = terminate.recv() => (143, "terminated"),
        };
        cancel.cancel();
        tokio::select! {
            _ = tokio::time::timeout(WIND_DOWN, &mut work) => {}
            // A second signal: drop the run where it stands (which still stops the target).
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
        }
        // A run that did not wind down by itself stops its target and removes its files here.
        drop(work);
        eprintln!("webhook-conformance: {what}; the target was stopped");
        (code, true)
    });
    if interrupted {
        // The run is over and its target stopped: a blocking task still running (a name lookup of a
        // target that never answered) holds nothing to clean up and is not waited for.
        runtime.shutdown_background();
    } else {
        // Targets are stopped when dropped inside the run; exit only after the runtime is gone.
        runtime.shutdown_timeout(Duration::from_secs(5));
    }
    std::process::exit(code);
}
