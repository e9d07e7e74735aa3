//! Ctrl-C and SIGTERM at any moment of `run` and `fuzz` — while the target starts, while requests
//! are in flight, while a failure is being shrunk, while a campaign generates for a duration — stop
//! the target (a command's processes, the bundled webhook, a container), leave no temporary files
//! and exit 130 or 143, without a panic, by themselves: within a few seconds of the signal, not at
//! the 10 s after which an interrupted run is dropped (the real figures: `cargo bench -p
//! webhook-conformance --bench signals`).
//!
//! The tests with a container need a Docker engine and FAIL (with a message saying so) when none is
//! reachable.

// These tests signal the processes they start (kill(2)).
#![allow(unsafe_code)]

#[path = "support/image.rs"]
#[allow(dead_code)]
mod image_support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn bin() -> String {
    env!("CARGO_BIN_EXE_webhook-conformance").to_string()
}

/// How soon after the signal the CLI must have exited. An interrupted run that does not wind down
/// by itself is dropped after 10 s: this bound only tells the two apart.
const EXIT_WITHIN: Duration = Duration::from_secs(3);

/// What the suite is run against.
enum Target<'a> {
    /// `--cmd`: this command line (after the test's own bookkeeping of its pid and port).
    Command(&'a str),
    /// No target: the bundled reference webhook, in the suite's process.
    Bundled,
    /// `--image`: this image.
    Image(&'a str),
    /// `--url`: a webhook the test runs, and the CA file that signed its certificate.
    Url(&'a str, &'a Path),
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
        Run::start_with(args, Target::Command(target))
    }

    fn start_with(args: &[&str], target: Target) -> Run {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        let manifest = dir.path().join("m.yaml");
        std::fs::write(&manifest, reference_webhook::MANIFEST.replace("timeoutSeconds: 5", "timeoutSeconds: 30"))
            .unwrap();
        let mut command = Command::new(bin());
        command.args(args);
        match target {
            Target::Command(target) => {
                let cmd = format!(
                    "echo $$ > {}; echo {{port}} > {}; exec {target}",
                    pidfile(dir.path()).display(),
                    portfile(dir.path()).display()
                );
                command.arg("--config").arg(&manifest).arg("--cmd").arg(&cmd);
            }
            Target::Bundled => {}
            Target::Image(image) => {
                command.arg("--config").arg(&manifest).arg("--image").arg(image);
            }
            Target::Url(url, ca) => {
                command.arg("--config").arg(&manifest).arg("--url").arg(url).arg("--ca").arg(ca);
            }
        }
        let mut child = command
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
    fn interrupt(self, signal: i32, pid: i32) {
        self.interrupt_then(signal, || living_members(pid));
    }

    /// [`interrupt`](Run::interrupt) a run whose target is not a command: `living` says what of the
    /// target still runs (nothing once it is stopped).
    fn interrupt_then(self, signal: i32, living: impl Fn() -> Vec<String>) {
        assert!(!living().is_empty(), "the target runs before the signal");
        self.interrupt_starting(signal, living);
    }

    /// [`interrupt_then`](Run::interrupt_then) a run whose target may not be there yet.
    fn interrupt_starting(mut self, signal: i32, living: impl Fn() -> Vec<String>) {
        // SAFETY: signals the CLI process this test started.
        unsafe { libc::kill(self.child.id() as i32, signal) };
        let started = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > EXIT_WITHIN {
                // A second signal drops the run where it stands, which still stops the target.
                // SAFETY: as above.
                unsafe { libc::kill(self.child.id() as i32, signal) };
                let _ = self.child.wait();
                panic!("no exit within {EXIT_WITHIN:?} of the signal: the run did not wind down by itself");
            }
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
        let living = living();
        assert!(living.is_empty(), "the target outlived the signal: {living:?}");
        let left: Vec<PathBuf> =
            std::fs::read_dir(self.dir.path().join("tmp")).unwrap().flatten().map(|e| e.path()).collect();
        assert!(left.is_empty(), "temporary files left behind: {left:?}");
    }
}

impl Drop for Run {
    /// A test that failed before its signal leaves no run behind.
    fn drop(&mut self) {
        if self.child.try_wait().is_ok_and(|s| s.is_none()) {
            // SAFETY: signals the CLI process this test started, which has not been reaped.
            unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
            let _ = self.child.wait();
        }
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

/// The inodes of the sockets process `pid` holds open.
fn sockets_of(pid: u32) -> Vec<String> {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return Vec::new() };
    fds.flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .filter_map(|link| {
            let link = link.to_string_lossy().into_owned();
            link.strip_prefix("socket:[").and_then(|l| l.strip_suffix(']')).map(String::from)
        })
        .collect()
}

/// Established TCP connections process `pid` holds (both ends, for a server in the process).
fn connections_of(pid: u32) -> usize {
    let sockets = sockets_of(pid);
    let mut n = 0;
    for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // state 01 is ESTABLISHED; the inode is the tenth field.
            if fields.get(3) == Some(&"01") && fields.get(9).is_some_and(|i| sockets.iter().any(|s| s == i)) {
                n += 1;
            }
        }
    }
    n
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

/// The command started a daemon in a session of its own, which holds the command's output open:
/// stopping the command does not wait for the daemon to end.
#[test]
fn run_interrupted_while_a_daemon_of_the_target_holds_its_output() {
    let daemon = tempfile::tempdir().unwrap();
    let daemon_pid = daemon.path().join("pid");
    let target = format!(
        "setsid sh -c 'echo $$ > {}; exec sleep 120' & exec {}",
        daemon_pid.display(),
        reference("--defect hang")
    );
    let run = Run::start(&["run"], &target);
    let pid = run.target_pid();
    let port = run.target_port();
    run.wait_for("had requests in flight", |_| established_to(port) >= 2);
    run.wait_for("started the daemon", |_| std::fs::read_to_string(&daemon_pid).is_ok_and(|s| s.ends_with('\n')));
    let daemon_pid: i32 = std::fs::read_to_string(&daemon_pid).unwrap().trim().parse().unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run.interrupt(libc::SIGINT, pid)));
    // SAFETY: the daemon this test's target started (not the suite's to stop: it left the group).
    unsafe { libc::kill(daemon_pid, libc::SIGKILL) };
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// A campaign for a duration against a command: the signal comes while it generates and sends.
fn while_generating(args: &[&str], signal: i32) {
    let run = Run::start(args, &reference(""));
    let pid = run.target_pid();
    let port = run.target_port();
    run.wait_for("sent requests", |_| established_to(port) >= 1);
    run.interrupt(signal, pid);
}

#[test]
fn run_interrupted_while_generating_for_a_duration() {
    while_generating(&["run", "--duration", "10m"], libc::SIGINT);
}

#[test]
fn fuzz_terminated_while_generating_for_a_duration() {
    while_generating(&["fuzz", "--duration", "10m"], libc::SIGTERM);
}

/// The bundled webhook serves in the suite's own process: the signal comes once the suite holds
/// connections to it (both of their ends), and the listener must be gone with the process.
fn bundled(args: &[&str], signal: i32) {
    let run = Run::start_with(args, Target::Bundled);
    let cli = run.child.id();
    run.wait_for("called the bundled webhook", |_| connections_of(cli) >= 2);
    run.interrupt_then(signal, || {
        let alive = std::fs::read_to_string(format!("/proc/{cli}/stat")).is_ok_and(|s| !s.contains(") Z "));
        if alive {
            vec![format!("process {cli}")]
        } else {
            Vec::new()
        }
    });
}

#[test]
fn run_against_the_bundled_webhook_terminated() {
    bundled(&["run", "--duration", "10m"], libc::SIGTERM);
}

#[test]
fn fuzz_against_the_bundled_webhook_interrupted() {
    bundled(&["fuzz", "--duration", "10m"], libc::SIGINT);
}

#[test]
fn fuzz_against_the_bundled_webhook_interrupted_while_requests_hang() {
    bundled(&["fuzz", "--cases", "64", "--reference-defect", "hang"], libc::SIGINT);
}

/// Containers of `image`, running or not. The container tests take turns, so that each sees its own.
fn containers_of(image: &str) -> Vec<String> {
    let out = image_support::docker(&["ps", "--all", "--quiet", "--filter", &format!("ancestor={image}")])
        .unwrap_or_else(|e| panic!("listing containers: {e}"));
    out.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect()
}

static ONE_CONTAINER_AT_A_TIME: Mutex<()> = Mutex::new(());

fn container(args: &[&str], signal: i32, ready: impl Fn(&Run) -> bool) {
    let _turn = ONE_CONTAINER_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let image = image_support::reference_image();
    assert!(containers_of(&image).is_empty(), "a container of {image} from elsewhere: {:?}", containers_of(&image));
    let run = Run::start_with(args, Target::Image(&image));
    run.wait_for("started the container", |_| !containers_of(&image).is_empty());
    run.wait_for("reached its step", ready);
    run.interrupt_then(signal, || containers_of(&image));
}

#[test]
fn fuzz_against_a_container_terminated_while_generating() {
    container(&["fuzz", "--duration", "10m"], libc::SIGTERM, |r| connections_of(r.child.id()) >= 1);
}

#[test]
fn run_against_a_container_interrupted_while_it_starts() {
    container(&["run"], libc::SIGINT, |_| true);
}

/// Process `pid`'s children whose command line contains `word`.
fn children_running(pid: u32, word: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let parent = stat.rsplit_once(") ").and_then(|(_, a)| a.split_whitespace().nth(1).map(String::from));
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        parent.as_deref() == Some(pid.to_string().as_str())
            && cmdline.split(|b| *b == 0).any(|arg| arg == word.as_bytes())
    })
}

/// The engine creates the container even when the CLI that asked is gone: a signal while `docker
/// create` runs still leaves no container behind.
#[test]
fn run_against_a_container_interrupted_while_it_is_created() {
    let _turn = ONE_CONTAINER_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let image = image_support::reference_image();
    assert!(containers_of(&image).is_empty(), "a container of {image} from elsewhere: {:?}", containers_of(&image));
    let run = Run::start_with(&["run"], Target::Image(&image));
    run.wait_for("ran docker create", |r| children_running(r.child.id(), "create"));
    run.interrupt_starting(libc::SIGINT, || containers_of(&image));
}

/// A webhook the user runs (`--url`) is not the suite's to stop: a signal while calls to it hang
/// ends the run, and with it every connection the suite held.
#[test]
fn run_against_a_url_interrupted_while_requests_are_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let names = webhook_harness::tls::ServingNames::for_service("reference-webhook", "conformance");
    let tls = webhook_harness::tls::TlsMaterial::generate(&names, Some(&dir.path().join("tls"))).unwrap();
    // Port 0: the webhook binds a port of its own and says which (a port found free and released
    // here could be taken by another test's connection before the webhook binds it).
    let mut server = Command::new(bin())
        .args(["reference-webhook", "--defect", "hang", "--port", "0", "--cert"])
        .arg(tls.cert_path())
        .arg("--key")
        .arg(tls.key_path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let port: u16 = line.trim().rsplit(':').next().and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("{line}"));
    let url = format!("https://localhost:{port}");
    let run = Run::start_with(&["run", "--duration", "10m"], Target::Url(&url, &tls.ca_path()));
    let cli = run.child.id();
    run.wait_for("had requests in flight", |_| established_to(port) >= 2);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run.interrupt_then(libc::SIGINT, || {
            let held = connections_of(cli);
            if held == 0 {
                Vec::new()
            } else {
                vec![format!("{held} connection(s) of the suite")]
            }
        })
    }));
    let _ = server.kill();
    let _ = server.wait();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}
