//! Progress of a long run: a live bar on stderr when it is a terminal (here a pseudo-terminal), plain
//! lines without terminal control codes when it is not (a CI log); the report on stdout is the same
//! either way.

use std::io::Read;
use std::os::fd::FromRawFd;
use std::process::{Command, Stdio};
use std::time::Duration;

fn fuzz(extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_webhook-conformance"));
    cmd.args(["fuzz", "--property", "property.idempotent", "--seed", "1", "--no-regressions"]).args(extra);
    cmd
}

#[test]
fn not_a_terminal_gets_plain_lines() {
    let out = fuzz(&["--cases", "8"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains('\u{1b}') && !stderr.contains('\r'), "terminal control codes in a log: {stderr:?}");
    assert!(stderr.lines().any(|l| l.starts_with("fuzz: ") && l.contains(" generated cases judged, ")), "{stderr}");
}

#[test]
fn a_terminal_gets_a_live_bar() {
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize { ws_row: 24, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: openpty writes two fresh descriptors into the integers given.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &size) };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned here alone.
    #[allow(unsafe_code)]
    let (mut terminal, slave) = unsafe { (std::fs::File::from_raw_fd(master), Stdio::from_raw_fd(slave)) };
    let mut child = fuzz(&["--duration", "3s"])
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(slave)
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let report = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    // The terminal's side: read until the child is gone (EIO once no process holds the slave).
    let screen = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = terminal.read(&mut buf) {
            if n == 0 {
                break;
            }
            bytes.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let status = webhook_harness::lowlevel::wait_with_deadline(child, Duration::from_secs(60), "fuzz --duration 3s")
        .unwrap_or_else(|e| panic!("{e}"))
        .status;
    assert_eq!(status.code(), Some(0));
    let screen = screen.join().unwrap();
    let report = report.join().unwrap();
    assert!(screen.contains("fuzz [") && screen.contains(" of 3s"), "no bar on the terminal: {screen:?}");
    assert!(screen.contains("\u{1b}["), "the bar redraws in place: {screen:?}");
    assert!(report.contains("== properties") && !report.contains('\u{1b}'), "the report stays plain: {report:?}");
}

/// The number written just before `marker` in `line` (e.g. `412` in `412 requests sent`).
fn number_before(line: &str, marker: &str) -> f64 {
    let head = &line[..line.find(marker).unwrap_or_else(|| panic!("{marker:?} in {line:?}"))];
    head.trim_end().rsplit([' ', '(']).next().unwrap().parse().unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

#[test]
fn the_end_says_what_the_campaign_cost_the_suite() {
    let out = fuzz(&["--cases", "8"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = |prefix: &str| {
        stderr.lines().rfind(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("no {prefix:?} line: {stderr}"))
    };
    // The last progress line counts every request of the campaign.
    let progress = stderr.lines().rfind(|l| l.contains(" requests sent, ")).unwrap_or_else(|| panic!("{stderr}"));
    let sent = number_before(progress, " requests sent");
    let cpu = line("fuzz: suite CPU ");
    assert!(cpu.contains("the bundled webhook's ") && cpu.ends_with(" s on its own threads not counted)"), "{cpu}");
    let per_request = number_before(cpu, " µs per request");
    let seconds = number_before(cpu, " s over ");
    assert_eq!(number_before(cpu, " requests;"), sent, "the same count as the progress line: {stderr}");
    assert!(sent > 0.0 && per_request > 0.0, "{cpu}");
    // The figure per request is the total over the count, both as printed (rounded).
    let total = per_request * sent / 1e6;
    assert!((total - seconds).abs() <= 0.005 + sent * 0.5e-6 + seconds * 0.01, "{total} s vs {seconds} s: {cpu}");
    let share = line("fuzz: share of the machine over ");
    assert!(share.contains(" cores: suite ") && share.contains("%, webhook "), "{share}");
    let bound = share.rsplit_once(": bound by ").map(|(_, b)| b).unwrap_or_else(|| panic!("{share}"));
    assert!(
        bound == "the suite" || bound == "the webhook" || bound.starts_with("the machine (other processes"),
        "{share}"
    );
    // Every request was a call, timed from its sending to the answer.
    let calls = line("fuzz: a call took ");
    assert!(number_before(calls, " calls)") >= sent, "{calls}");
    let unit = if calls.contains(" µs on average") { " µs on average" } else { " ms on average" };
    assert!(number_before(calls, unit) > 0.0, "{calls}");
    let peak = line("fuzz: peak memory (VmHWM) ");
    assert!(number_before(peak, " MiB") > 1.0, "{peak}");
}
