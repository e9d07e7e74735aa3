//! What a campaign cost the suite, printed at its end: the suite's own CPU time per request sent
//! (the process's user + system time, without its children and without the threads of the bundled
//! reference webhook), the share of the machine the suite and the webhook took over the campaign,
//! how long a call waited for the webhook's answer, and so which of the two bound the campaign, and
//! the suite's peak memory (`VmHWM`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use webhook_harness::lowlevel::CallTime;

use crate::args::RunArgs;
use crate::embedded;

/// Above this share of the machine's CPU in use (by every process: `/proc/stat`, or the suite and
/// the webhook where it cannot be read) the machine was saturated: the one of the suite and the
/// webhook that used more bound the campaign. Below it neither ran out of CPU: each worker of the
/// campaign spent its time on the suite's work for a request or waiting for the webhook's answer,
/// and the longer of the two per request bound it.
const SATURATED: f64 = 0.75;

/// Where the webhook's CPU time is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WebhookCpu {
    /// The bundled reference webhook: on threads of its own in this process.
    InProcess,
    /// A `--cmd` webhook: the processes it started under the suite, sampled now and then.
    Child,
    /// A webhook at a URL or in a container: not measured here.
    Unknown,
}

impl WebhookCpu {
    /// Where the CPU time of the target of `args` is read.
    pub(crate) fn of(args: &RunArgs) -> WebhookCpu {
        if args.is_reference() {
            WebhookCpu::InProcess
        } else if args.cmd.is_some() {
            WebhookCpu::Child
        } else {
            WebhookCpu::Unknown
        }
    }
}

/// User + system CPU time of `who` (`RUSAGE_SELF`: this process, without its children).
fn rusage(who: libc::c_int) -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    #[allow(unsafe_code)]
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| {
        Duration::new(u64::try_from(t.tv_sec).unwrap_or(0), u32::try_from(t.tv_usec).unwrap_or(0) * 1000)
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// How often the CPU time of a `--cmd` webhook's processes is sampled.
const SAMPLE_EVERY: Duration = Duration::from_millis(500);

/// The parent pid and the CPU time (user + system, in clock ticks) of a process, from its
/// `/proc/PID/stat` line (`ppid` is its 4th field, `utime` and `stime` its 14th and 15th).
fn parent_and_ticks(stat: &str) -> Option<(u32, u64)> {
    // The command name, 2nd field, is in parentheses and may hold spaces: fields are counted
    // after it (the 3rd field, the state, first).
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let ppid = fields.nth(4 - 3)?.parse().ok()?;
    let utime: u64 = fields.nth(14 - 4 - 1)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some((ppid, utime + stime))
}

/// [`parent_and_ticks`] of the process `pid`; `None` when it is gone.
fn read_parent_and_ticks(pid: u32) -> Option<(u32, u64)> {
    parent_and_ticks(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Whether the kernel lists each thread's children (`/proc/PID/task/TID/children`, Linux 3.5 on
/// with `CONFIG_PROC_CHILDREN`).
fn children_listed() -> bool {
    static LISTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *LISTED.get_or_init(|| std::path::Path::new("/proc/thread-self/children").exists())
}

/// The children of `pid`: those of each of its threads (a child belongs to the thread that
/// forked it). A thread or process gone meanwhile lists none.
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    let mut found = Vec::new();
    for task in tasks.flatten() {
        if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
            found.extend(list.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
        }
    }
    found
}

/// CPU time (user + system, in clock ticks) of every process descending from this one, by pid:
/// found through the kernel's lists of children, reading only those processes' `stat`; where
/// the kernel keeps no such list, by reading every process's ([`scanned_descendants_ticks`]).
fn descendants_ticks() -> HashMap<u32, u64> {
    if children_listed() {
        listed_descendants_ticks()
    } else {
        scanned_descendants_ticks()
    }
}

/// [`descendants_ticks`] found through the kernel's lists of children.
fn listed_descendants_ticks() -> HashMap<u32, u64> {
    let mut found = HashMap::new();
    let mut below = children(std::process::id());
    while let Some(pid) = below.pop() {
        if let Some((_, ticks)) = read_parent_and_ticks(pid) {
            if found.insert(pid, ticks).is_none() {
                below.extend(children(pid));
            }
        }
    }
    found
}

/// [`descendants_ticks`] found by reading the `stat` of every process of the machine and
/// following the parent pids down from this one.
fn scanned_descendants_ticks() -> HashMap<u32, u64> {
    let mut parent_and_ticks = HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else { return HashMap::new() };
    for entry in dir.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        if let Some(read) = read_parent_and_ticks(pid) {
            parent_and_ticks.insert(pid, read);
        }
    }
    let mut below = vec![std::process::id()];
    let mut found = HashMap::new();
    while let Some(parent) = below.pop() {
        for (pid, (ppid, ticks)) in &parent_and_ticks {
            if *ppid == parent && found.insert(*pid, *ticks).is_none() {
                below.push(*pid);
            }
        }
    }
    found
}

/// The CPU time of this process's descendants (a `--cmd` webhook's processes), sampled every
/// [`SAMPLE_EVERY`] while the campaign runs: what each used up to its last sample.
struct Descendants {
    seen: Arc<Mutex<HashMap<u32, u64>>>,
    sampler: tokio::task::JoinHandle<()>,
}

impl Descendants {
    fn start() -> Descendants {
        let seen = Arc::new(Mutex::new(HashMap::new()));
        let shared = seen.clone();
        let sampler = tokio::spawn(async move {
            let mut every = tokio::time::interval(SAMPLE_EVERY);
            loop {
                every.tick().await;
                let now = tokio::task::spawn_blocking(descendants_ticks).await.unwrap_or_default();
                shared.lock().unwrap_or_else(|e| e.into_inner()).extend(now);
            }
        });
        Descendants { seen, sampler }
    }

    /// Their CPU time up to the last sample.
    fn cpu(&self) -> Duration {
        self.sampler.abort();
        let ticks: u64 = self.seen.lock().unwrap_or_else(|e| e.into_inner()).values().sum();
        // SAFETY: sysconf only reads a system constant.
        #[allow(unsafe_code)]
        let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1);
        Duration::from_secs_f64(ticks as f64 / per_second as f64)
    }
}

/// Busy and total CPU time of the whole machine so far, in clock ticks (the `cpu` line of
/// `/proc/stat`: idle and iowait are not busy); `None` where there is no such file.
fn machine_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let ticks: Vec<u64> = line.split_whitespace().skip(1).filter_map(|t| t.parse().ok()).collect();
    let total: u64 = ticks.iter().take(8).sum();
    let idle = ticks.get(3)? + ticks.get(4).unwrap_or(&0);
    Some((total - idle, total))
}

/// Peak resident set size of this process (`VmHWM` of `/proc/self/status`), KiB; `None` where
/// there is no such file.
pub(crate) fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The counters at the start of a campaign.
pub(crate) struct Meter {
    wall: Instant,
    process: Duration,
    in_process_webhook: Duration,
    webhook: WebhookCpu,
    machine: Option<(u64, u64)>,
    descendants: Option<Descendants>,
}

/// What a campaign cost.
#[derive(Clone, Debug)]
pub(crate) struct Usage {
    /// Requests sent.
    pub requests: u64,
    /// Wall time of the campaign.
    pub wall: Duration,
    /// The suite's own CPU time.
    pub suite_cpu: Duration,
    /// The webhook's CPU time, where it is known.
    pub webhook_cpu: Option<Duration>,
    /// Where the webhook's CPU time was read.
    pub webhook: WebhookCpu,
    /// CPUs of the machine.
    pub cores: usize,
    /// Share of the machine's CPU in use over the campaign, by every process (`/proc/stat`).
    pub machine_busy: Option<f64>,
    /// Peak resident set size of the suite, KiB.
    pub peak_rss_kib: Option<u64>,
    /// Calls made to the webhook.
    pub calls: u64,
    /// The time a call took on average, from its sending to its answer (`None` without calls).
    pub round_trip: Option<Duration>,
}

impl Meter {
    /// Start counting (before the target is started).
    pub(crate) fn start(webhook: WebhookCpu) -> Meter {
        Meter {
            wall: Instant::now(),
            process: rusage(libc::RUSAGE_SELF),
            in_process_webhook: embedded::webhook_cpu(),
            webhook,
            machine: machine_ticks(),
            descendants: (webhook == WebhookCpu::Child).then(Descendants::start),
        }
    }

    /// What the campaign cost, `requests` sent, its calls timed in `call_time` (after the target
    /// has stopped).
    pub(crate) fn finish(&self, requests: u64, call_time: &CallTime) -> Usage {
        let process = rusage(libc::RUSAGE_SELF).saturating_sub(self.process);
        let (suite_cpu, webhook_cpu) = match self.webhook {
            WebhookCpu::InProcess => {
                let webhook = embedded::webhook_cpu().saturating_sub(self.in_process_webhook);
                (process.saturating_sub(webhook), Some(webhook))
            }
            WebhookCpu::Child => (process, self.descendants.as_ref().map(Descendants::cpu)),
            WebhookCpu::Unknown => (process, None),
        };
        Usage {
            requests,
            wall: self.wall.elapsed(),
            suite_cpu,
            webhook_cpu,
            webhook: self.webhook,
            cores: std::thread::available_parallelism().map_or(1, usize::from),
            peak_rss_kib: peak_rss_kib(),
            calls: call_time.calls(),
            round_trip: call_time.mean(),
            machine_busy: match (self.machine, machine_ticks()) {
                (Some((busy0, total0)), Some((busy1, total1))) if total1 > total0 => {
                    Some(busy1.saturating_sub(busy0) as f64 / (total1 - total0) as f64)
                }
                _ => None,
            },
        }
    }
}

impl Usage {
    /// The suite's CPU time per request sent, µs (`None` when none was sent).
    pub(crate) fn suite_us_per_request(&self) -> Option<f64> {
        (self.requests > 0).then(|| self.suite_cpu.as_secs_f64() * 1e6 / self.requests as f64)
    }

    /// Share of the machine's CPU (wall time × cores) that `cpu` is.
    fn share(&self, cpu: Duration) -> f64 {
        cpu.as_secs_f64() / (self.wall.as_secs_f64() * self.cores as f64).max(1e-9)
    }

    /// What bound the campaign: the suite or the webhook, or, on a machine other processes kept
    /// busy, the machine.
    pub(crate) fn bound_by(&self) -> &'static str {
        let suite = self.share(self.suite_cpu);
        let webhook = self.webhook_cpu.map_or(0.0, |w| self.share(w));
        let busy = self.machine_busy.unwrap_or(suite + webhook).max(suite + webhook);
        if busy < SATURATED {
            // Work and wait, per request: the suite's CPU against a call's round trip.
            match (self.suite_us_per_request(), self.round_trip) {
                (Some(work), Some(wait)) if work > wait.as_secs_f64() * 1e6 => "the suite",
                _ => "the webhook",
            }
        } else if suite + webhook < busy / 2.0 {
            if self.webhook_cpu.is_some() {
                "the machine (other processes used most of its CPU)"
            } else {
                "the machine (other processes, the webhook's among them if it runs here, used most of its CPU)"
            }
        } else if suite >= webhook {
            "the suite"
        } else {
            "the webhook"
        }
    }

    /// The lines printed at the end of a campaign, each prefixed with `label: `.
    pub(crate) fn lines(&self, label: &str) -> Vec<String> {
        let per_request = match self.suite_us_per_request() {
            Some(us) => format!("{us:.0} µs per request"),
            None => "no request sent".to_string(),
        };
        let excluded = match (self.webhook, self.webhook_cpu) {
            (WebhookCpu::InProcess, Some(w)) => {
                format!("the bundled webhook's {:.2} s on its own threads not counted", w.as_secs_f64())
            }
            (WebhookCpu::Child, Some(w)) => {
                format!("the --cmd webhook's processes' {:.2} s not counted", w.as_secs_f64())
            }
            _ => "child processes not counted".to_string(),
        };
        let webhook_share = match self.webhook_cpu {
            Some(w) => format!("webhook {:.0}%", 100.0 * self.share(w)),
            None => "webhook not measured (not a process of the suite's)".to_string(),
        };
        let busy = match self.machine_busy {
            Some(b) => format!(", every process {:.0}%", 100.0 * b),
            None => String::new(),
        };
        let mut lines = vec![
            format!(
                "{label}: suite CPU {per_request} ({:.2} s over {} requests; {excluded})",
                self.suite_cpu.as_secs_f64(),
                self.requests
            ),
            format!(
                "{label}: share of the machine over {:.1} s on {} cores: suite {:.0}%, {webhook_share}{busy}: bound by {}",
                self.wall.as_secs_f64(),
                self.cores,
                100.0 * self.share(self.suite_cpu),
                self.bound_by()
            ),
        ];
        if let Some(wait) = self.round_trip {
            lines.push(format!(
                "{label}: a call took {} on average from its sending to the webhook's answer ({} calls)",
                micros(wait),
                self.calls
            ));
        }
        if let Some(kib) = self.peak_rss_kib {
            lines.push(format!("{label}: peak memory (VmHWM) {:.1} MiB", kib as f64 / 1024.0));
        }
        lines
    }
}

/// A duration as µs, or as ms from 10 ms on.
fn micros(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 10_000.0 {
        format!("{us:.0} µs")
    } else {
        format!("{:.1} ms", us / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(suite: u64, webhook: Option<u64>, wall: u64) -> Usage {
        Usage {
            requests: 1000,
            wall: Duration::from_millis(wall),
            suite_cpu: Duration::from_millis(suite),
            webhook_cpu: webhook.map(Duration::from_millis),
            webhook: if webhook.is_some() { WebhookCpu::InProcess } else { WebhookCpu::Unknown },
            cores: 2,
            peak_rss_kib: Some(2048),
            machine_busy: None,
            calls: 0,
            round_trip: None,
        }
    }

    #[test]
    fn per_request_is_suite_cpu_over_requests() {
        assert_eq!(usage(150, Some(0), 1000).suite_us_per_request(), Some(150.0));
        let none = Usage { requests: 0, ..usage(150, None, 1000) };
        assert_eq!(none.suite_us_per_request(), None);
        assert!(none.lines("fuzz")[0].contains("no request sent"));
    }

    #[test]
    fn the_bigger_user_of_a_saturated_machine_binds_and_an_idle_machine_waits_on_the_webhook() {
        assert_eq!(usage(1200, Some(600), 1000).bound_by(), "the suite");
        assert_eq!(usage(600, Some(1200), 1000).bound_by(), "the webhook");
        assert_eq!(usage(300, Some(300), 1000).bound_by(), "the webhook", "the machine had idle CPU");
        assert_eq!(usage(1800, None, 1000).bound_by(), "the suite");
        let shared = Usage { machine_busy: Some(0.95), ..usage(900, Some(200), 1000) };
        assert_eq!(shared.bound_by(), "the suite", "other processes took the rest of the machine");
        let crowded = Usage { machine_busy: Some(1.0), ..usage(180, Some(20), 1000) };
        assert_eq!(crowded.bound_by(), "the machine (other processes used most of its CPU)");
        let idle = Usage { machine_busy: Some(0.4), ..usage(700, Some(100), 1000) };
        assert_eq!(idle.bound_by(), "the webhook");
        assert!(
            idle.lines("fuzz")[1].contains(", every process 40%: bound by the webhook"),
            "{:?}",
            idle.lines("fuzz")
        );
    }

    #[test]
    fn below_saturation_the_longer_of_the_suites_work_and_a_calls_round_trip_binds() {
        // 700 µs of suite CPU per request on a machine 40 % busy.
        let idle = |wait_us: u64| Usage {
            machine_busy: Some(0.4),
            calls: 1000,
            round_trip: Some(Duration::from_micros(wait_us)),
            ..usage(700, Some(100), 1000)
        };
        assert_eq!(idle(2500).bound_by(), "the webhook", "each call waited longer than the suite worked");
        assert_eq!(idle(300).bound_by(), "the suite", "the suite worked longer than each call waited");
        assert!(idle(300).lines("fuzz")[1].ends_with(", every process 40%: bound by the suite"));
        // Saturated, the CPU shares decide whatever the calls took.
        let saturated = Usage { machine_busy: Some(0.95), ..idle(300) };
        assert_eq!(Usage { webhook_cpu: Some(Duration::from_millis(1200)), ..saturated }.bound_by(), "the webhook");
        // No call timed: the webhook, as before the calls were timed.
        assert_eq!(Usage { round_trip: None, calls: 0, ..idle(300) }.bound_by(), "the webhook");
    }

    #[test]
    fn lines_say_what_is_counted() {
        let lines = usage(150, Some(500), 1000).lines("fuzz");
        assert_eq!(lines[0], "fuzz: suite CPU 150 µs per request (0.15 s over 1000 requests; the bundled webhook's 0.50 s on its own threads not counted)");
        assert_eq!(
            lines[1],
            "fuzz: share of the machine over 1.0 s on 2 cores: suite 8%, webhook 25%: bound by the webhook"
        );
        assert_eq!(lines[2], "fuzz: peak memory (VmHWM) 2.0 MiB");
        let unknown = usage(150, None, 1000).lines("run");
        assert!(unknown[1].contains("webhook not measured"), "{unknown:?}");
        let timed = Usage { calls: 1200, round_trip: Some(Duration::from_micros(850)), ..usage(150, Some(500), 1000) };
        let lines = timed.lines("fuzz");
        assert_eq!(
            lines[2],
            "fuzz: a call took 850 µs on average from its sending to the webhook's answer (1200 calls)"
        );
        assert_eq!(lines[3], "fuzz: peak memory (VmHWM) 2.0 MiB");
        let slow = Usage { round_trip: Some(Duration::from_micros(12_345)), ..timed };
        assert!(slow.lines("fuzz")[2].contains(" took 12.3 ms on average "), "{:?}", slow.lines("fuzz"));
    }

    #[test]
    fn a_child_process_is_a_descendant_and_its_cpu_is_counted() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; sleep 5"])
            .spawn()
            .unwrap();
        let pid = child.id();
        let mut ticks = 0;
        for _ in 0..100 {
            ticks = descendants_ticks().get(&pid).copied().unwrap_or(0);
            if ticks > 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        assert!(ticks > 0, "the busy child's CPU time is read");
    }

    #[test]
    fn a_stat_line_gives_the_parent_and_the_cpu_ticks_whatever_the_command_name() {
        let stat = "7 (we) ird) S 45 7 7 0 -1 4194560 100 0 0 0 11 22 0 0 20 0 1 0";
        assert_eq!(parent_and_ticks(stat), Some((45, 33)));
        assert_eq!(parent_and_ticks("7 (short) S 45 7"), None);
    }

    #[test]
    fn a_grandchild_is_a_descendant_found_as_the_scan_of_every_process_finds_it() {
        // The child shell starts a busy grandchild (bounded: it ends by itself within seconds)
        // and waits for it.
        let busy = "i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done";
        let mut child =
            std::process::Command::new("sh").args(["-c", &format!("sh -c '{busy}' & wait")]).spawn().unwrap();
        let pid = child.id();
        let mut listed = HashMap::new();
        let mut grandchild = None;
        for _ in 0..100 {
            listed = descendants_ticks();
            grandchild = listed
                .iter()
                .find(|(p, ticks)| **ticks > 0 && read_parent_and_ticks(**p).is_some_and(|(ppid, _)| ppid == pid))
                .map(|(p, _)| *p);
            if grandchild.is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let scanned = scanned_descendants_ticks();
        if let Some(g) = grandchild {
            // SAFETY: kill only sends a signal, to the grandchild this test started.
            #[allow(unsafe_code)]
            unsafe {
                libc::kill(i32::try_from(g).unwrap(), libc::SIGKILL);
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        let grandchild = grandchild.expect("the busy grandchild is found, with its CPU time");
        assert!(listed.contains_key(&pid), "the child itself: {listed:?}");
        assert!(scanned.contains_key(&pid) && scanned.contains_key(&grandchild), "{scanned:?}");
        assert!(!listed.contains_key(&1) && !scanned.contains_key(&1), "init is no descendant");
        assert!(!listed.contains_key(&std::process::id()), "nor is this process itself");
    }

    #[test]
    fn this_process_has_a_peak_rss() {
        assert!(peak_rss_kib().is_some_and(|k| k > 0));
    }
}
