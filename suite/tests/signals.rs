//! Ctrl-C and SIGTERM at any moment of `run` and `fuzz` — while the target starts, while requests
//! are in flight, while a failure is being shrunk — stop the target, leave no temporary files and
//! exit 130 or 143, without a panic.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn bin() -> String {
    env!("CARGO_BIN_EXE_webhook-conformance").to_string()
}

/// A CLI run in a directory of its own (its working directory, and its TMPDIR so that every
/// temporary file it makes is seen), its stderr collected as it comes.
struct Run {
    child: Child,
    stderr: Arc<Mutex<String>>,
    reader: Option<std::thread::JoinHandle<()>>,
    dir: tempfile::TempDir,
}

impl Run {
    fn start(args: &[&str], target: &str) -> Run {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        let manifest = dir.path().join("m.yaml");
        std::fs::write(&manifest, reference_webhook::MANIFEST.replace("timeoutSeconds: 5", "timeoutSeconds: 30"))
            .unwrap();
        let cmd = format!(
            "echo $$ > {}; echo {{port}} > {}; exec {target}",
            pidfile(dir.path()).display(),
            portfile(dir.path()).display()
        );
        let mut child = Command::new(bin())
            .args(args)
            .arg("--config")
            .arg(&manifest)
            .arg("--cmd")
            .arg(&cmd)
            .current_dir(dir.path())
            .env("TMPDIR", &tmp)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let pipe = child.stderr.take().unwrap();
        let sink = stderr.clone();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        Run { child, stderr, reader: Some(reader), dir }
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Wait (with a deadline) until `ready` holds.
    fn wait_for(&self, what: &str, mut ready: impl FnMut(&Run) -> bool) {
        let started = Instant::now();
        while !ready(self) {
            assert!(started.elapsed() < Duration::from_secs(60), "never {what}; stderr:\n{}", self.stderr());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn target_pid(&self) -> i32 {
        self.wait_for("started the target", |r| {
            std::fs::read_to_string(pidfile(r.dir.path())).is_ok_and(|s| s.trim().parse::<i32>().is_ok())
        });
        std::fs::read_to_string(pidfile(self.dir.path())).unwrap().trim().parse().unwrap()
    }

    fn target_port(&self) -> u16 {
        self.wait_for("gave the target a port", |r| {
            std::fs::read_to_string(portfile(r.dir.path())).is_ok_and(|s| s.trim().parse::<u16>().is_ok())
        });
        std::fs::read_to_string(portfile(self.dir.path())).unwrap().trim().parse().unwrap()
    }

    /// Send `signal`, wait for the exit, and check everything a signal must leave behind.
    fn interrupt(mut self, signal: i32, pid: i32) {
        assert!(!living_members(pid).is_empty(), "the target runs before the signal");
        // SAFETY: signals the CLI process this test started.
        unsafe { libc::kill(self.child.id() as i32, signal) };
        let started = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(started.elapsed() < Duration::from_secs(30), "no exit within 30 s of the signal");
            std::thread::sleep(Duration::from_millis(20));
        };
        if let Some(r) = self.reader.take() {
            r.join().unwrap();
        }
        let stderr = self.stderr();
        let want = if signal == libc::SIGINT { 130 } else { 143 };
        assert_eq!(status.code(), Some(want), "{stderr}");
        assert!(!stderr.contains("panic"), "a panic on the signal:\n{stderr}");
        assert!(stderr.contains("the target was stopped"), "{stderr}");
        let living = living_members(pid);
        assert!(living.is_empty(), "the target outlived the signal: {living:?}");
        let left: Vec<PathBuf> =
            std::fs::read_dir(self.dir.path().join("tmp")).unwrap().flatten().map(|e| e.path()).collect();
        assert!(left.is_empty(), "temporary files left behind: {left:?}");
    }
}

fn pidfile(dir: &Path) -> PathBuf {
    dir.join("pid")
}

fn portfile(dir: &Path) -> PathBuf {
    dir.join("port")
}

/// The reference webhook as the target command, with extra arguments.
fn reference(extra: &str) -> String {
    format!("{} reference-webhook --cert {{cert}} --key {{key}} --port {{port}} {extra}", bin())
}

/// Processes of process group `pgid` that are not zombies.
fn living_members(pgid: i32) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        let Some(after) = stat.rsplit_once(") ").map(|(_, a)| a) else { continue };
        let fields: Vec<&str> = after.split_whitespace().collect();
        if fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z" {
            out.push(stat);
        }
    }
    out
}

/// Established TCP connections to local port `port` (the suite's calls in flight).
fn established_to(port: u16) -> usize {
    let mut n = 0;
    for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // local_address is ADDR:PORT in hex; state 01 is ESTABLISHED.
            let local_port =
                fields.get(1).and_then(|a| a.rsplit(':').next()).and_then(|p| u16::from_str_radix(p, 16).ok());
            if local_port == Some(port) && fields.get(3) == Some(&"01") {
                n += 1;
            }
        }
    }
    n
}

/// The target never listens: the suite is waiting for it to start.
fn during_startup(args: &[&str], signal: i32) {
    let run = Run::start(args, "sleep 60");
    let pid = run.target_pid();
    std::thread::sleep(Duration::from_millis(300));
    run.interrupt(signal, pid);
}

/// The target hangs: requests are in flight.
fn while_sending(args: &[&str], signal: i32) {
    let run = Run::start(args, &reference("--defect hang"));
    let pid = run.target_pid();
    let port = run.target_port();
    run.wait_for("had requests in flight", |_| established_to(port) >= 2);
    run.interrupt(signal, pid);
}

#[test]
fn run_interrupted_while_the_target_starts() {
    during_startup(&[], libc::SIGINT);
}

#[test]
fn run_terminated_while_requests_are_in_flight() {
    while_sending(&[], libc::SIGTERM);
}

#[test]
fn run_interrupted_while_requests_are_in_flight() {
    while_sending(&["run"], libc::SIGINT);
}

#[test]
fn fuzz_terminated_while_the_target_starts() {
    during_startup(&["fuzz", "--cases", "64"], libc::SIGTERM);
}

#[test]
fn fuzz_interrupted_while_requests_are_in_flight() {
    while_sending(&["fuzz", "--cases", "64"], libc::SIGINT);
}

/// A property fails on a slow webhook: its failure is being shrunk, one slow call at a time.
fn while_shrinking(signal: i32) {
    let run =
        Run::start(&["fuzz", "--cases", "64", "--seed", "7"], &reference("--defect sidecar-every-call --delay-ms 150"));
    let pid = run.target_pid();
    run.wait_for("shrank a failure", |r| r.stderr().contains(", shrinking "));
    run.interrupt(signal, pid);
}

#[test]
fn fuzz_interrupted_while_shrinking() {
    while_shrinking(libc::SIGINT);
}

#[test]
fn fuzz_terminated_while_shrinking() {
    while_shrinking(libc::SIGTERM);
}
