//! How long `webhook-conformance` takes to exit after Ctrl-C or SIGTERM: `run` and `fuzz` for a
//! duration, against the bundled webhook, a `--cmd` target and (with a Docker engine) an `--image`
//! target, each interrupted ten times one second into its requests. The time is from the signal to
//! the exit, which comes after the target is stopped and the generated files removed.
//! `cargo bench -p webhook-conformance --bench signals` prints the figures;
//! `WEBHOOK_CONFORMANCE_BIN=path` measures another build of the CLI, `SIGNALS_RUNS=n` changes the
//! count, `SIGNALS_IMAGE=0` leaves the container out, `SIGNALS_ONLY=--cmd` measures one target.

#[path = "../tests/support/image.rs"]
#[allow(dead_code)]
mod image_support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> String {
    std::env::var("WEBHOOK_CONFORMANCE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_webhook-conformance").to_string())
}

/// Established TCP connections process `pid` holds.
fn connections_of(pid: u32) -> usize {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return 0 };
    let sockets: Vec<String> = fds
        .flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .filter_map(|l| l.to_string_lossy().strip_prefix("socket:[")?.strip_suffix(']').map(String::from))
        .collect();
    let mut n = 0;
    for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.get(3) == Some(&"01") && f.get(9).is_some_and(|i| sockets.iter().any(|s| s == i)) {
                n += 1;
            }
        }
    }
    n
}

/// One interrupted run: the seconds from the signal to the exit, and the exit code.
fn once(args: &[String], signal: i32) -> Result<(f64, Option<i32>), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(dir.path())
        .env("TMPDIR", dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let pid = child.id();
    let started = Instant::now();
    while connections_of(pid) == 0 {
        if started.elapsed() > Duration::from_secs(60) || child.try_wait().map_err(|e| e.to_string())?.is_some() {
            let _ = child.kill();
            let _ = child.wait();
            return Err("no request was sent within 60 s".into());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_secs(1));
    // SAFETY: signals the process this bench started, not yet reaped.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(pid as i32, signal)
    };
    let signalled = Instant::now();
    let status = child.wait().map_err(|e| e.to_string())?;
    Ok((signalled.elapsed().as_secs_f64(), status.code()))
}

fn measure(label: &str, args: &[String], signal: i32, runs: usize) {
    let mut times = Vec::new();
    let mut codes = Vec::new();
    for _ in 0..runs {
        match once(args, signal) {
            Ok((t, code)) => {
                times.push(t);
                codes.push(code);
            }
            Err(e) => {
                println!("  {label:44} {e}");
                return;
            }
        }
    }
    times.sort_by(f64::total_cmp);
    codes.dedup();
    let ms = |t: f64| t * 1000.0;
    println!(
        "  {label:44} min {:6.0} ms  median {:6.0} ms  max {:6.0} ms  (exit {codes:?})",
        ms(times[0]),
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1])
    );
}

fn main() {
    let runs: usize = std::env::var("SIGNALS_RUNS").ok().and_then(|n| n.parse().ok()).unwrap_or(10);
    let manifest_dir = tempfile::tempdir().unwrap();
    let manifest = manifest_dir.path().join("reference.yaml");
    std::fs::write(&manifest, reference_webhook::MANIFEST).unwrap();
    let manifest = manifest.display().to_string();
    let cmd = format!("exec {} reference-webhook --cert {{cert}} --key {{key}} --port {{port}}", bin());
    let strings = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    println!("{}: from the signal to the exit, {runs} runs each, the signal 1 s into the requests:", bin());
    let only = std::env::var("SIGNALS_ONLY").ok();
    let mut targets: Vec<(&str, Vec<String>)> =
        vec![("bundled webhook", Vec::new()), ("--cmd", strings(&["--config", &manifest, "--cmd", &cmd]))];
    if std::env::var("SIGNALS_IMAGE").map_or(true, |v| v != "0") && only.as_deref().is_none_or(|o| o == "--image") {
        targets.push(("--image", strings(&["--config", &manifest, "--image", &image_support::reference_image()])));
    }
    for (target, target_args) in targets.iter().filter(|(t, _)| only.as_deref().is_none_or(|o| o == *t)) {
        for (command, signal, name) in [("run", libc::SIGINT, "SIGINT"), ("fuzz", libc::SIGTERM, "SIGTERM")] {
            let mut args = strings(&[command, "--duration", "10m"]);
            args.extend(target_args.iter().cloned());
            measure(&format!("{command} --duration 10m, {target}, {name}"), &args, signal, runs);
        }
    }
}
