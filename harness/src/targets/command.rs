//! A webhook the harness starts itself: `--cmd '<command line>'`.
//!
//! The command runs under `sh -c` in its own process group with the generated certificate files.
//! `{cert}`, `{key}`, `{ca}`, `{client_ca}`, `{port}` and `{host}` in the command are substituted, and
//! the same values are exported as `WEBHOOK_TLS_CERT`, `WEBHOOK_TLS_KEY`, `WEBHOOK_CA`,
//! `WEBHOOK_CLIENT_CA`, `WEBHOOK_PORT` (and `WEBHOOK_HOST`). `{client_ca}` is the CA of the client
//! certificates the suite may present (the generated CA: a webhook requiring client certificates
//! trusts it). Its output is kept (the last 64 KiB). The whole process group is killed when the
//! target is dropped, also while a panic unwinds; if the harness itself is killed, the kernel sends
//! the shell SIGKILL (PR_SET_PDEATHSIG).
//!
//! The command also gets the suite's recording Kubernetes API (`crate::apiserver`): `KUBECONFIG`
//! (`{kubeconfig}`), `KUBERNETES_SERVICE_HOST`/`KUBERNETES_SERVICE_PORT`, and the service-account
//! files `token`, `ca.crt`, `namespace` in the directory `WEBHOOK_SERVICEACCOUNT` (`{serviceaccount}`).

use std::collections::VecDeque;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::ready::{wait_ready, NotReady};
use super::{free_port, generate_tls, local_endpoint, RunningTarget};
use crate::apiserver::ApiServer;
use crate::config::WebhookSpec;
use crate::tls::TlsMaterial;

const LOG_LIMIT: usize = 64 * 1024;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ProcessStatus {
    Running,
    Exited(String),
}

/// A started command and its captured output.
pub(crate) struct CommandTarget {
    child: Child,
    log: Arc<Mutex<VecDeque<u8>>>,
    readers: Vec<std::thread::JoinHandle<()>>,
}

impl CommandTarget {
    pub(crate) fn status(&mut self) -> ProcessStatus {
        match self.child.try_wait() {
            Ok(Some(status)) => ProcessStatus::Exited(status.to_string()),
            Ok(None) => ProcessStatus::Running,
            Err(e) => ProcessStatus::Exited(format!("unknown ({e})")),
        }
    }

    /// The last lines the command wrote to stdout and stderr (stack traces folded).
    pub(crate) fn log_tail(&self) -> String {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let bytes: Vec<u8> = log.iter().copied().collect();
        super::tail::tail(&String::from_utf8_lossy(&bytes))
    }

    fn kill_group(&mut self) {
        let pgid = self.child.id() as i32;
        // SAFETY: kill(2) with a negative pid signals the process group we created for the child.
        #[allow(unsafe_code)]
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl CommandTarget {
    /// Let the output readers reach the end of the output, waiting at most `deadline`: a process
    /// that left the group (a daemon the command started in a session of its own) may hold the
    /// pipes open long after the command is gone, and its readers are then left to end with it.
    fn finish_readers(&mut self, deadline: Duration) {
        let until = Instant::now() + deadline;
        while self.readers.iter().any(|r| !r.is_finished()) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        for r in self.readers.drain(..).filter(|r| r.is_finished()) {
            let _ = r.join();
        }
    }
}

/// How long a stopped command's output readers may take to reach the end of its output.
const READERS_DEADLINE: Duration = Duration::from_millis(200);

impl Drop for CommandTarget {
    fn drop(&mut self) {
        self.kill_group();
        self.finish_readers(READERS_DEADLINE);
    }
}

fn capture(mut source: impl Read + Send + 'static, log: Arc<Mutex<VecDeque<u8>>>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        loop {
            match source.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
                    log.extend(&buf[..n]);
                    while log.len() > LOG_LIMIT {
                        log.pop_front();
                    }
                }
            }
        }
    })
}

/// Substitute the placeholders of a command line (`{kubeconfig}` and `{serviceaccount}` when the
/// recording API is served).
pub(crate) fn substitute(command: &str, tls: &TlsMaterial, host: &str, port: u16, api: Option<&ApiServer>) -> String {
    let command = match api {
        Some(api) => command
            .replace("{kubeconfig}", &api.kubeconfig_path().display().to_string())
            .replace("{serviceaccount}", &api.service_account_dir().display().to_string()),
        None => command.to_string(),
    };
    command
        .replace("{cert}", &tls.cert_path().display().to_string())
        .replace("{key}", &tls.key_path().display().to_string())
        .replace("{client_ca}", &tls.ca_path().display().to_string())
        .replace("{ca}", &tls.ca_path().display().to_string())
        .replace("{port}", &port.to_string())
        .replace("{host}", host)
}

/// Why a started command did not become a usable target.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum StartError {
    #[error("the target command could not be started: {0}")]
    Spawn(String),
    #[error("the target command exited before it became ready ({status}); last output:\n{tail}")]
    ExitedEarly { status: String, tail: String },
    #[error("the target command did not accept a TLS handshake on {addr} within {seconds} s (last attempt: {last}); last output:\n{tail}")]
    NeverReady { addr: String, seconds: u64, last: String, tail: String },
    #[error("{what}; the apiserver calls webhooks over HTTPS only; last output:\n{tail}")]
    NotTls { what: String, tail: String },
}

/// Start `command` for `webhooks` and wait until it completes a TLS handshake.
pub(crate) async fn start(
    command: &str,
    webhooks: &[WebhookSpec],
    keep_tls_in: Option<&std::path::Path>,
    client_certificate: bool,
    startup_timeout: Duration,
) -> Result<RunningTarget, StartError> {
    let tls = generate_tls(webhooks, keep_tls_in, client_certificate).map_err(|e| StartError::Spawn(e.to_string()))?;
    let host = "127.0.0.1";
    let port = free_port().map_err(|e| StartError::Spawn(format!("no free port: {e}")))?;
    let api = ApiServer::start(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST))
        .await
        .map_err(|e| StartError::Spawn(e.to_string()))?;
    let line = substitute(command, &tls, host, port, Some(&api));
    let log = Arc::new(Mutex::new(VecDeque::new()));
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(&line)
        .env("WEBHOOK_TLS_CERT", tls.cert_path())
        .env("WEBHOOK_TLS_KEY", tls.key_path())
        .env("WEBHOOK_CA", tls.ca_path())
        .env("WEBHOOK_CLIENT_CA", tls.ca_path())
        .env("WEBHOOK_PORT", port.to_string())
        .env("WEBHOOK_HOST", host)
        .envs(api.command_env())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    // SAFETY: prctl is async-signal-safe; it asks the kernel to SIGKILL the child if we die.
    #[allow(unsafe_code)]
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let mut child = cmd.spawn().map_err(|e| StartError::Spawn(format!("spawning sh: {e}")))?;
    let readers = vec![
        capture(child.stdout.take().expect("piped stdout"), log.clone()),
        capture(child.stderr.take().expect("piped stderr"), log.clone()),
    ];
    let mut process = CommandTarget { child, log, readers };
    let addr: std::net::SocketAddr = format!("{host}:{port}").parse().expect("valid address");
    let endpoint = local_endpoint(webhooks, addr, tls.ca_pem.as_bytes());

    let ready = wait_ready(&endpoint, addr, startup_timeout, Duration::from_millis(50), || {
        let status = process.status();
        std::future::ready(match status {
            ProcessStatus::Exited(s) => Some(s),
            ProcessStatus::Running => None,
        })
    })
    .await;
    match ready {
        Ok(()) => {}
        Err(NotReady::Exited(status)) => {
            // Let the readers drain what the process wrote before it died.
            process.finish_readers(Duration::from_secs(1));
            return Err(StartError::ExitedEarly { status, tail: process.log_tail() });
        }
        Err(NotReady::NotTls(what)) => return Err(StartError::NotTls { what, tail: process.log_tail() }),
        Err(NotReady::Timeout { last }) => {
            return Err(StartError::NeverReady {
                addr: addr.to_string(),
                seconds: startup_timeout.as_secs(),
                last,
                tail: process.log_tail(),
            })
        }
    }
    Ok(RunningTarget::with_process(endpoint, format!("command: {command}"), tls, process).serving_api(api))
}
