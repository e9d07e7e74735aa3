//! A webhook shipped as a container image: `--image NAME[:TAG]`.
//!
//! The image must already exist on the Docker engine (the harness never pulls). The generated CA,
//! certificate and key are bind-mounted read-only into the container (default `/certs/ca.pem`,
//! `/certs/tls.crt`, `/certs/tls.key`); the container's port (default 8443) is published to a random
//! port on the host's 127.0.0.1, and readiness is a TLS handshake there before a deadline. Inside the
//! container `WEBHOOK_TLS_CERT`, `WEBHOOK_TLS_KEY`, `WEBHOOK_CA` and `WEBHOOK_PORT` name the mounted
//! files and the port, and `{cert}`, `{key}`, `{ca}`, `{port}` in the extra arguments are substituted
//! with the same values.
//!
//! The container also gets the suite's recording Kubernetes API (`crate::apiserver`), served on the
//! host's address on Docker's default bridge (its gateway): `KUBERNETES_SERVICE_HOST`/`PORT`, the
//! service-account files `token`, `ca.crt`, `namespace` mounted read-only at
//! `/var/run/secrets/kubernetes.io/serviceaccount`, a kubeconfig at [`KUBECONFIG_IN_CONTAINER`]
//! (`KUBECONFIG`, `{kubeconfig}`), and `kubernetes.default.svc` resolving to that address. When the
//! engine's bridge has no address the host can listen on, the run goes on without it (and says so).
//!
//! Every container carries the label `webhook-conformance.run=<uuid>` (plus any the caller adds) and
//! is removed (`docker rm -f`) when the target is dropped, also while a panic unwinds.
//!
//! The engine is driven through the `docker` CLI, which negotiates the API version with whatever
//! engine it talks to (`DOCKER_HOST`, `DOCKER_CONTEXT` are honoured). The `testcontainers` crate was
//! the first choice, but its current release (0.28, bollard 0.21) speaks Docker API 1.53 without
//! negotiating, and engines older than Docker 29 refuse that ("client version 1.53 is too new").

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::ready::{wait_ready, NotReady};
use super::{generate_tls, local_endpoint, RunningTarget, TargetMonitor};
use crate::apiserver::{ApiServer, SERVICE_ACCOUNT_MOUNT};
use crate::config::WebhookSpec;
use crate::tls::TlsMaterial;

/// The label every container started by the harness carries; its value is the run's id.
pub const RUN_LABEL: &str = "webhook-conformance.run";

/// Where the recording API's kubeconfig is mounted in the container.
pub(crate) const KUBECONFIG_IN_CONTAINER: &str = "/var/run/webhook-conformance/kubeconfig";

/// Deadline of each `docker` call other than the readiness wait.
const DOCKER_CALL_DEADLINE: Duration = Duration::from_secs(60);

/// How to start an image.
#[derive(Clone, Debug)]
pub struct ImageSpec {
    /// `NAME[:TAG]` or `NAME@DIGEST`, present on the engine.
    pub image: String,
    /// Where the TLS files are mounted in the container (read-only).
    pub cert_dir: String,
    /// File name of the serving certificate in the mount.
    pub cert_name: String,
    /// File name of the key in the mount.
    pub key_name: String,
    /// File name of the CA in the mount.
    pub ca_name: String,
    /// The port the webhook listens on inside the container.
    pub port: u16,
    /// Extra environment, `(name, value)`.
    pub env: Vec<(String, String)>,
    /// Arguments appended to the image's entrypoint; `{cert}` `{key}` `{ca}` `{port}` substituted.
    pub args: Vec<String>,
    /// Extra labels on the container, `(name, value)`.
    pub labels: Vec<(String, String)>,
    /// How long the container has to accept a TLS handshake.
    pub startup_timeout: Duration,
}

impl ImageSpec {
    /// The defaults: files `/certs/{ca.pem,tls.crt,tls.key}`, port 8443, 30 s to become ready.
    pub fn new(image: impl Into<String>) -> Self {
        ImageSpec {
            image: image.into(),
            cert_dir: "/certs".into(),
            cert_name: "tls.crt".into(),
            key_name: "tls.key".into(),
            ca_name: "ca.pem".into(),
            port: 8443,
            env: Vec::new(),
            args: Vec::new(),
            labels: Vec::new(),
            startup_timeout: Duration::from_secs(30),
        }
    }

    fn in_container(&self, name: &str) -> String {
        format!("{}/{name}", self.cert_dir.trim_end_matches('/'))
    }

    /// The extra arguments with `{cert}` `{key}` `{ca}` `{client_ca}` `{port}` replaced by their
    /// in-container values.
    pub fn substituted_args(&self) -> Vec<String> {
        self.args
            .iter()
            .map(|a| {
                a.replace("{cert}", &self.in_container(&self.cert_name))
                    .replace("{key}", &self.in_container(&self.key_name))
                    .replace("{client_ca}", &self.in_container(&self.ca_name))
                    .replace("{ca}", &self.in_container(&self.ca_name))
                    .replace("{port}", &self.port.to_string())
                    .replace("{kubeconfig}", KUBECONFIG_IN_CONTAINER)
                    .replace("{serviceaccount}", SERVICE_ACCOUNT_MOUNT)
            })
            .collect()
    }
}

/// Why an image did not become a usable target.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum ContainerError {
    /// Docker or the image is not there, or the container could not be created: the suite cannot run.
    #[error("{0}")]
    Setup(String),
    /// No Docker engine answers.
    #[error("{0}")]
    NoDocker(#[from] DockerUnavailable),
    #[error("the container of {image} exited before it became ready ({status}); last output:\n{tail}")]
    ExitedEarly { image: String, status: String, tail: String },
    #[error("the container of {image} did not accept a TLS handshake on {addr} (container port {port}) within {seconds} s (last attempt: {last}); last output:\n{tail}")]
    NeverReady { image: String, addr: String, port: u16, seconds: u64, last: String, tail: String },
    #[error("the container of {image}: {what}; the apiserver calls webhooks over HTTPS only; last output:\n{tail}")]
    NotTls { image: String, what: String, tail: String },
}

/// A started container; removed (with its anonymous volumes) on drop.
pub(crate) struct ContainerTarget {
    id: String,
    /// The read-only mount source: copies of the TLS files, readable by the container's user.
    _mount: tempfile::TempDir,
}

impl ContainerTarget {
    /// The last lines the container wrote (stdout, then stderr, as `docker logs` replays them), stack
    /// traces folded (enough lines are read for a long backtrace to fold into one line).
    pub(crate) fn log_tail(&self) -> String {
        match docker_blocking(&["logs", "--tail", "2000", &self.id]) {
            Ok(out) => super::tail::tail(out.trim_end()),
            Err(e) => format!("(no container logs: {e})"),
        }
    }

    /// `Some("exited, exit code N")` once the container has stopped.
    pub(crate) fn exit_status(&self) -> Option<String> {
        match docker_blocking(&["inspect", "--format", STATE_FORMAT, &self.id]) {
            Ok(s) => parse_state(&s),
            Err(e) => Some(format!("unknown ({e})")),
        }
    }

    /// [`Self::exit_status`] without blocking the runtime.
    pub(crate) async fn exit_status_async(&self) -> Option<String> {
        match docker(&["inspect".into(), "--format".into(), STATE_FORMAT.into(), self.id.clone()]).await {
            Ok(s) => parse_state(&s),
            Err(e) => Some(format!("unknown ({e})")),
        }
    }

    fn remove(&self) {
        // Best effort, with a deadline: the container must not outlive the run.
        if let Err(e) = docker_blocking(&["rm", "--force", "--volumes", &self.id]) {
            eprintln!("webhook-conformance: could not remove container {}: {e}", self.id);
        }
    }
}

impl Drop for ContainerTarget {
    fn drop(&mut self) {
        self.remove();
    }
}

impl TargetMonitor for ContainerTarget {
    fn log_tail(&self) -> String {
        ContainerTarget::log_tail(self)
    }
    fn exit_status(&mut self) -> Option<String> {
        ContainerTarget::exit_status(self)
    }
}

const STATE_FORMAT: &str = "{{.State.Running}} {{.State.ExitCode}} {{.State.Status}}";

fn parse_state(state: &str) -> Option<String> {
    let mut parts = state.split_whitespace();
    match (parts.next(), parts.next(), parts.next()) {
        (Some("true"), _, _) => None,
        (Some(_), Some(code), Some(status)) => Some(format!("{status}, exit code {code}")),
        _ => Some(format!("unknown state {state:?}")),
    }
}

/// Why a child process (a `docker` call, a command a test runs) gave no output.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProcessError {
    /// The program could not be started.
    #[error("cannot run `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Waiting for it failed.
    #[error("waiting for {what}: {source}")]
    Wait {
        /// The process, as the caller names it.
        what: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It ran past its deadline and was killed.
    #[error("{what} did not finish within {deadline:?}")]
    Deadline {
        /// The process, as the caller names it.
        what: String,
        /// The deadline it had.
        deadline: Duration,
    },
    /// It exited unsuccessfully.
    #[error("`{command}` failed ({status}): {stderr}")]
    Failed {
        /// The command line.
        command: String,
        /// How it exited.
        status: std::process::ExitStatus,
        /// What it wrote on stderr.
        stderr: String,
    },
}

/// Run `docker ARGS` and return its stdout; stderr becomes the error. Waits at most
/// [`DOCKER_CALL_DEADLINE`] (blocking, so that it also works inside `Drop` and outside a runtime).
pub fn docker_blocking(args: &[&str]) -> Result<String, ProcessError> {
    let child = Command::new("docker")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| ProcessError::Spawn { program: "docker".into(), source })?;
    let out = wait_with_deadline(child, DOCKER_CALL_DEADLINE, &format!("`docker {}`", args.join(" ")))?;
    output_result(args, out)
}

/// The async form of [`docker_blocking`].
async fn docker(args: &[String]) -> Result<String, ProcessError> {
    let run = tokio::process::Command::new("docker").args(args).stdin(Stdio::null()).kill_on_drop(true).output();
    let out = tokio::time::timeout(DOCKER_CALL_DEADLINE, run)
        .await
        .map_err(|_| ProcessError::Deadline {
            what: format!("`docker {}`", args.join(" ")),
            deadline: DOCKER_CALL_DEADLINE,
        })?
        .map_err(|source| ProcessError::Spawn { program: "docker".into(), source })?;
    output_result(args, out)
}

/// Wait for `child` to exit and collect its output (read while it runs, so a full pipe cannot stall
/// it), at most `deadline`; past that it is killed. Works inside `Drop` and outside a runtime.
pub fn wait_with_deadline(
    child: std::process::Child,
    deadline: Duration,
    what: &str,
) -> Result<std::process::Output, ProcessError> {
    let pid = child.id() as i32;
    let (done, finished) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    match finished.recv_timeout(deadline) {
        Ok(result) => {
            let _ = waiter.join();
            result.map_err(|source| ProcessError::Wait { what: what.to_string(), source })
        }
        Err(_) => {
            // SAFETY: the child has not been reaped (its waiter is still blocked on it), so the pid
            // is still ours.
            #[allow(unsafe_code)]
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
            let _ = waiter.join();
            Err(ProcessError::Deadline { what: what.to_string(), deadline })
        }
    }
}

fn output_result(args: &[impl AsRef<str>], out: std::process::Output) -> Result<String, ProcessError> {
    if out.status.success() {
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        // `docker logs` replays the container's stderr on its own stderr.
        if args.first().map(|a| a.as_ref()) == Some("logs") {
            text.push_str(&String::from_utf8_lossy(&out.stderr));
        }
        Ok(text)
    } else {
        let args: Vec<&str> = args.iter().map(|a| a.as_ref()).collect();
        Err(ProcessError::Failed {
            command: format!("docker {}", args.join(" ")),
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        })
    }
}

/// How long a cancelled `docker create` may take to finish before what it made is removed.
const CANCELLED_CREATE_DEADLINE: Duration = Duration::from_secs(10);

/// `docker create ARGS` for the run `run_id` (its containers carry [`RUN_LABEL`]`=run_id`): the
/// container's id. The engine goes on creating the container when the CLI that asked is killed, so
/// the CLI is never cut short: dropped before it has answered (the run cancelled), the call lets it
/// finish and removes what it made.
async fn create(args: &[String], run_id: &str) -> Result<String, ProcessError> {
    let child = Command::new("docker")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| ProcessError::Spawn { program: "docker".into(), source })?;
    let mut pending = PendingCreate { child: Some(child), run_id: run_id.to_string() };
    let deadline = std::time::Instant::now() + DOCKER_CALL_DEADLINE;
    // Polled rather than waited on by a thread, so that dropping this future leaves the child to
    // `PendingCreate`. Its output (an id, a warning) fits in the pipes.
    loop {
        let child = pending.child.as_mut().expect("taken only below and in drop");
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if std::time::Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(10)).await,
            Ok(None) => {
                let what = "`docker create`".to_string();
                return Err(ProcessError::Deadline { what, deadline: DOCKER_CALL_DEADLINE });
            }
            Err(source) => return Err(ProcessError::Wait { what: "`docker create`".into(), source }),
        }
    }
    let child = pending.child.take().expect("taken only here and in drop");
    let out = child
        .wait_with_output()
        .map_err(|source| ProcessError::Wait { what: "`docker create`'s output".into(), source })?;
    output_result(args, out)
}

/// A `docker create` whose container is not yet in anyone's hands: dropped, it waits for the CLI
/// (at most [`CANCELLED_CREATE_DEADLINE`]) and removes every container of the run.
struct PendingCreate {
    child: Option<std::process::Child>,
    run_id: String,
}

impl Drop for PendingCreate {
    fn drop(&mut self) {
        let Some(child) = self.child.take() else { return };
        let _ = wait_with_deadline(child, CANCELLED_CREATE_DEADLINE, "`docker create`");
        let filter = format!("label={RUN_LABEL}={}", self.run_id);
        let made = docker_blocking(&["ps", "--all", "--quiet", "--filter", &filter]).unwrap_or_default();
        for id in made.split_whitespace() {
            if let Err(e) = docker_blocking(&["rm", "--force", "--volumes", id]) {
                eprintln!("webhook-conformance: could not remove container {id}: {e}");
            }
        }
    }
}

/// No Docker engine answers `docker version`.
#[derive(Debug, thiserror::Error)]
#[error("Docker is not reachable (needed for --image): {0}")]
pub(crate) struct DockerUnavailable(#[source] pub ProcessError);

/// Is a Docker engine reachable? `Ok(server version)` or why not.
pub(crate) async fn docker_available() -> Result<String, DockerUnavailable> {
    docker(&["version".into(), "--format".into(), "{{.Server.Version}}".into()])
        .await
        .map(|v| v.trim().to_string())
        .map_err(DockerUnavailable)
}

/// Copy the TLS files into a directory the container's user can read, whatever its uid.
fn mount_dir(spec: &ImageSpec, tls: &TlsMaterial) -> std::io::Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new().prefix("webhook-conformance-mount-").tempdir()?;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))?;
    for (name, contents) in
        [(&spec.ca_name, &tls.ca_pem), (&spec.cert_name, &tls.cert_pem), (&spec.key_name, &tls.key_pem)]
    {
        // A throw-away key of a throw-away CA; 0644 like a Kubernetes secret volume's default.
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o644).open(dir.path().join(name))?;
        f.write_all(contents.as_bytes())?;
    }
    Ok(dir)
}

fn check_file_name(what: &str, name: &str) -> Result<(), ContainerError> {
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return Err(ContainerError::Setup(format!("{what} {name:?} must be a plain file name")));
    }
    Ok(())
}

/// Start `spec.image` for `webhooks` and wait until it completes a TLS handshake.
pub(crate) async fn start(
    spec: &ImageSpec,
    webhooks: &[WebhookSpec],
    keep_tls_in: Option<&Path>,
    client_certificate: bool,
) -> Result<RunningTarget, ContainerError> {
    check_file_name("the certificate file name", &spec.cert_name)?;
    check_file_name("the key file name", &spec.key_name)?;
    check_file_name("the CA file name", &spec.ca_name)?;
    if !spec.cert_dir.starts_with('/') {
        return Err(ContainerError::Setup(format!(
            "the certificate directory {:?} must be an absolute path in the container",
            spec.cert_dir
        )));
    }
    docker_available().await?;
    docker(&["image".into(), "inspect".into(), "--format".into(), "{{.Id}}".into(), spec.image.clone()])
        .await
        .map_err(|e| {
            ContainerError::Setup(format!(
                "image {} is not on the Docker engine (the suite never pulls; build or pull it first): {e}",
                spec.image
            ))
        })?;

    let tls =
        generate_tls(webhooks, keep_tls_in, client_certificate).map_err(|e| ContainerError::Setup(e.to_string()))?;
    let mount =
        mount_dir(spec, &tls).map_err(|e| ContainerError::Setup(format!("preparing the certificate mount: {e}")))?;
    let run_id = uuid::Uuid::new_v4().to_string();

    let mut args: Vec<String> = vec!["create".into(), "--pull".into(), "never".into()];
    args.push("--label".into());
    args.push(format!("{RUN_LABEL}={run_id}"));
    for (k, v) in &spec.labels {
        args.push("--label".into());
        args.push(format!("{k}={v}"));
    }
    args.push("--mount".into());
    args.push(format!("type=bind,source={},target={},readonly", mount.path().display(), spec.cert_dir));
    args.push("--publish".into());
    args.push(format!("127.0.0.1::{}/tcp", spec.port));
    let (api, api_note) = match bridge_gateway().await {
        Ok(ip) => match ApiServer::start(ip).await {
            Ok(api) => (Some(api), None),
            Err(e) => (None, Some(e.to_string())),
        },
        Err(e) => (None, Some(e.to_string())),
    };
    if let Some(api) = &api {
        args.push("--mount".into());
        args.push(format!(
            "type=bind,source={},target={SERVICE_ACCOUNT_MOUNT},readonly",
            api.service_account_dir().display()
        ));
        args.push("--mount".into());
        args.push(format!(
            "type=bind,source={},target={KUBECONFIG_IN_CONTAINER},readonly",
            api.kubeconfig_path().display()
        ));
        for name in
            ["kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"]
        {
            args.push("--add-host".into());
            args.push(format!("{name}:{}", api.addr().ip()));
        }
    }
    let own_env = [
        ("WEBHOOK_TLS_CERT".to_string(), spec.in_container(&spec.cert_name)),
        ("WEBHOOK_TLS_KEY".to_string(), spec.in_container(&spec.key_name)),
        ("WEBHOOK_CA".to_string(), spec.in_container(&spec.ca_name)),
        ("WEBHOOK_CLIENT_CA".to_string(), spec.in_container(&spec.ca_name)),
        ("WEBHOOK_PORT".to_string(), spec.port.to_string()),
    ];
    let api_env = api.as_ref().map(|a| a.container_env(KUBECONFIG_IN_CONTAINER)).unwrap_or_default();
    for (k, v) in own_env.iter().chain(api_env.iter()).chain(spec.env.iter()) {
        args.push("--env".into());
        args.push(format!("{k}={v}"));
    }
    args.push(spec.image.clone());
    args.extend(spec.substituted_args());

    let id = create(&args, &run_id)
        .await
        .map_err(|e| ContainerError::Setup(format!("creating a container of {}: {e}", spec.image)))?;
    let container = ContainerTarget { id: id.trim().to_string(), _mount: mount };
    if container.id.is_empty() {
        return Err(ContainerError::Setup(format!("creating a container of {}: docker printed no id", spec.image)));
    }
    // From here on, `container` removes the container on every return path (and on panic).
    docker(&["start".into(), container.id.clone()]).await.map_err(|e| ContainerError::ExitedEarly {
        image: spec.image.clone(),
        status: e.to_string(),
        tail: container.log_tail(),
    })?;
    let published = docker(&["port".into(), container.id.clone(), format!("{}/tcp", spec.port)]).await;
    let addr = match published.as_deref().map(parse_published) {
        Ok(Some(addr)) => addr,
        _ => {
            // The port is only listed while the container runs.
            let status = container
                .exit_status_async()
                .await
                .unwrap_or_else(|| format!("running, but its port is not published: {published:?}"));
            return Err(ContainerError::ExitedEarly { image: spec.image.clone(), status, tail: container.log_tail() });
        }
    };
    let endpoint = local_endpoint(webhooks, addr, tls.ca_pem.as_bytes());

    let monitor = &container;
    let ready = wait_ready(&endpoint, addr, spec.startup_timeout, Duration::from_millis(100), move || {
        monitor.exit_status_async()
    })
    .await;
    match ready {
        Ok(()) => {}
        Err(NotReady::Exited(status)) => {
            return Err(ContainerError::ExitedEarly { image: spec.image.clone(), status, tail: container.log_tail() })
        }
        Err(NotReady::NotTls(what)) => {
            return Err(ContainerError::NotTls { image: spec.image.clone(), what, tail: container.log_tail() })
        }
        Err(NotReady::Timeout { last }) => {
            return Err(ContainerError::NeverReady {
                image: spec.image.clone(),
                addr: addr.to_string(),
                port: spec.port,
                seconds: spec.startup_timeout.as_secs(),
                last,
                tail: container.log_tail(),
            })
        }
    }
    let description = format!("image: {} (container {})", spec.image, &container.id[..container.id.len().min(12)]);
    let mut running = RunningTarget::monitored(endpoint, description, Some(tls), Box::new(container));
    match api {
        Some(api) => running = running.serving_api(api),
        None => running.notes.push(format!(
            "the container was given no recording Kubernetes API ({}): its calls to an API server are not seen",
            api_note.unwrap_or_default()
        )),
    }
    Ok(running)
}

/// Why the host's address on Docker's default bridge is not known.
#[derive(Debug, thiserror::Error)]
enum BridgeError {
    /// `docker network inspect bridge` failed.
    #[error(transparent)]
    Docker(#[from] ProcessError),
    /// It answered with no IPv4 gateway or subnet.
    #[error("the bridge network has no IPv4 gateway ({0:?})")]
    NoGateway(String),
}

/// The host's address on Docker's default bridge: its gateway, or the first address of its subnet.
async fn bridge_gateway() -> Result<std::net::IpAddr, BridgeError> {
    let format = "{{range .IPAM.Config}}{{.Gateway}} {{.Subnet}}{{end}}";
    let out = docker(&["network".into(), "inspect".into(), "bridge".into(), "--format".into(), format.into()]).await?;
    gateway_of(&out).ok_or_else(|| BridgeError::NoGateway(out.trim().to_string()))
}

/// `172.17.0.1 172.17.0.0/16` or ` 172.17.0.0/16` → `172.17.0.1`.
fn gateway_of(text: &str) -> Option<std::net::IpAddr> {
    let mut words = text.split_whitespace();
    let first = words.next()?;
    if let Ok(ip @ std::net::IpAddr::V4(_)) = first.parse() {
        return Some(ip);
    }
    let (net, _) = first.split_once('/')?;
    let net: std::net::Ipv4Addr = net.parse().ok()?;
    Some(std::net::IpAddr::V4(std::net::Ipv4Addr::from(u32::from(net) + 1)))
}

/// The first IPv4 address of `docker port` output such as `127.0.0.1:49153`.
fn parse_published(text: &str) -> Option<std::net::SocketAddr> {
    text.lines().filter_map(|l| l.trim().parse::<std::net::SocketAddr>().ok()).find(|a| a.is_ipv4())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_on_a_child_keeps_its_deadline_and_its_output() {
        let spawn = |script: &str| {
            Command::new("sh").args(["-c", script]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
        };
        // More output than a pipe holds: it is read while the child runs.
        let out = wait_with_deadline(spawn("head -c 200000 /dev/zero; echo done >&2"), Duration::from_secs(20), "big")
            .unwrap();
        assert_eq!(out.stdout.len(), 200_000);
        assert_eq!(String::from_utf8_lossy(&out.stderr).trim(), "done");
        let started = std::time::Instant::now();
        let err = wait_with_deadline(spawn("exec sleep 30"), Duration::from_millis(200), "sleeper").unwrap_err();
        assert!(matches!(&err, ProcessError::Deadline { what, .. } if what == "sleeper"), "{err:?}");
        assert!(err.to_string().contains("sleeper did not finish within"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(10), "the child was not killed at the deadline");
    }

    #[test]
    fn state_and_port_parsing() {
        assert_eq!(parse_state("true 0 running"), None);
        assert_eq!(parse_state("false 2 exited").as_deref(), Some("exited, exit code 2"));
        assert_eq!(parse_published("127.0.0.1:49153\n").unwrap().port(), 49153);
        assert_eq!(parse_published("[::1]:1\n127.0.0.1:2\n").unwrap().port(), 2);
        assert!(parse_published("").is_none());
    }

    #[test]
    fn the_bridge_gateway_is_read_or_derived_from_the_subnet() {
        assert_eq!(gateway_of("172.18.0.1 172.18.0.0/16").unwrap().to_string(), "172.18.0.1");
        assert_eq!(gateway_of(" 172.17.0.0/16\n").unwrap().to_string(), "172.17.0.1");
        assert!(gateway_of("").is_none());
    }

    #[test]
    fn args_are_substituted_with_container_paths() {
        let mut spec = ImageSpec::new("x");
        spec.cert_dir = "/etc/webhook/certs/".into();
        spec.args = vec!["--tls-cert={cert}".into(), "{key}".into(), "{ca}".into(), "--port={port}".into()];
        assert_eq!(
            spec.substituted_args(),
            vec![
                "--tls-cert=/etc/webhook/certs/tls.crt",
                "/etc/webhook/certs/tls.key",
                "/etc/webhook/certs/ca.pem",
                "--port=8443"
            ]
        );
    }
}
