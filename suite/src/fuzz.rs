//! `webhook-conformance fuzz`: the properties of the rule catalog on generated requests.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use webhook_harness::client::HttpVersions;
use webhook_harness::generate::property::{fuzz, FuzzOptions, Progress};

use crate::cli::{choose, start_target, RunArgs, RunError, EXIT_USAGE};

#[derive(Args, Debug, Clone)]
pub struct FuzzArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Generated cases per property (PROPTEST_CASES means the same).
    #[arg(long = "cases", env = "PROPTEST_CASES", value_name = "N", default_value_t = 64)]
    pub fuzz_cases: u32,
    /// Run for this long instead of a number of cases, e.g. 90s, 10m, 1h.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// The seed of the generated cases; a run with the same seed, cases and concurrency repeats them.
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Only this property (repeatable), e.g. property.idempotent.
    #[arg(long = "property", value_name = "ID")]
    pub properties: Vec<String>,
    /// Where minimal failing requests are saved and replayed from first.
    #[arg(long, value_name = "DIR", default_value = ".webhook-conformance/regressions")]
    pub regressions: PathBuf,
    /// Neither replay nor save regressions.
    #[arg(long)]
    pub no_regressions: bool,
}

/// `90s`, `10m`, `1h`, or plain seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: u64 = num.parse().map_err(|_| format!("{s:?}: expected e.g. 90s, 10m, 1h"))?;
    let secs = match unit {
        "" | "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        _ => return Err(format!("{s:?}: unknown unit {unit:?} (s, m, h)")),
    };
    Ok(Duration::from_secs(secs))
}

fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0));
    h.finish()
}

/// Run `fuzz` as the CLI does; returns the exit code (0 pass, 1 a FAIL property, 2 could not run).
pub async fn fuzz_cli(args: &FuzzArgs) -> i32 {
    let (choice, webhooks) = match choose(&args.run) {
        Ok(x) => x,
        Err(e) => return report(&e),
    };
    for p in &args.properties {
        if webhook_harness::rules::property(p).is_none() {
            return report(&RunError::Usage(format!(
                "--property {p:?}: no such property (see `webhook-conformance rules`)"
            )));
        }
    }
    if args.fuzz_cases == 0 && args.duration.is_none() {
        return report(&RunError::Usage("--cases must be at least 1".into()));
    }
    let seed = args.seed.unwrap_or_else(fresh_seed);
    eprintln!("webhook-conformance fuzz: seed {seed}");
    let target = match start_target(&choice, &webhooks, args.run.tls_dir.as_deref()).await {
        Ok(t) => t,
        Err(e) => return report(&e),
    };
    let options = FuzzOptions {
        cases: args.fuzz_cases,
        duration: args.duration,
        seed,
        concurrency: args.run.concurrency.max(1),
        regressions: (!args.no_regressions).then(|| args.regressions.clone()),
        only: args.properties.clone(),
        http: if args.run.http2 { HttpVersions::Http2AndHttp1 } else { HttpVersions::Http1 },
        ..FuzzOptions::default()
    };
    let progress = Arc::new(Progress::default());
    let ticker = {
        let progress = progress.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_secs(1));
            every.tick().await;
            loop {
                every.tick().await;
                eprintln!("fuzz: {}", progress.line());
            }
        })
    };
    let result = fuzz(&webhooks, &target, &options, progress.clone()).await;
    ticker.abort();
    let report_ = match result {
        Ok(r) => r,
        Err(e) => return report(&RunError::Usage(format!("{e:#}"))),
    };
    eprintln!("fuzz: {}", progress.line());
    print!("{}", report_.render_text());
    if !report_.failed_rules().is_empty() || !report_.warned_rules().is_empty() {
        eprintln!(
            "webhook-conformance fuzz: seed {seed} (rerun with --seed {seed} --cases {} --concurrency {})",
            args.fuzz_cases, args.run.concurrency
        );
    }
    if let Some(path) = &args.run.report_json {
        let json = serde_json::json!({
            "verdict": report_.verdict().as_str(),
            "seed": seed,
            "results": report_.results.iter().map(|r| serde_json::json!({
                "rule": r.rule.id, "webhook": r.webhook, "outcome": r.outcome, "cases": r.cases,
                "note": r.note, "detail": r.failure.as_ref().map(|f| f.message.clone()),
            })).collect::<Vec<_>>(),
        });
        if let Err(e) = std::fs::write(path, serde_json::to_string_pretty(&json).unwrap_or_default()) {
            return report(&RunError::Usage(format!("--report-json {}: {e}", path.display())));
        }
    }
    report_.verdict().exit_code()
}

fn report(e: &RunError) -> i32 {
    match e {
        RunError::Usage(m) => {
            eprintln!("webhook-conformance fuzz: error: {m}");
            EXIT_USAGE
        }
        RunError::Target(m) => {
            println!("webhook-conformance fuzz: {m}\n\nverdict: FAIL — target.ready");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fuzz_command_parses() {
        use clap::{CommandFactory, Parser};
        crate::cli::Cli::command().debug_assert();
        let cli = crate::cli::Cli::try_parse_from([
            "webhook-conformance",
            "fuzz",
            "--cases",
            "3",
            "--seed",
            "9",
            "--duration",
            "1m",
        ])
        .unwrap();
        let Some(crate::cli::Command::Fuzz(args)) = cli.command else { panic!("not the fuzz command") };
        assert_eq!((args.fuzz_cases, args.seed, args.duration), (3, Some(9), Some(Duration::from_secs(60))));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert!(parse_duration("5d").is_err());
    }
}
