//! Container images as targets (`--image`): the reference webhook's image, built locally by
//! `support/image.rs`, passes; with a defect it fails exactly that rule; an image that never becomes
//! ready is a target.ready FAIL with the container's output; no container outlives a run.
//!
//! These tests need a Docker engine and FAIL (with a message saying so) when none is reachable.

#[path = "support/image.rs"]
mod image_support;

#[path = "support/cli.rs"]
mod cli_support;
use cli_support::bin;
use std::time::Duration;

use image_support::{containers_labelled, reference_image, unique_label};
use webhook_conformance::embedded;
use webhook_harness::{ImageSpec, Session, Suite, Verdict, RUN_LABEL};

fn spec(label: &(String, String), args: &[&str]) -> ImageSpec {
    let mut spec = ImageSpec::new(reference_image());
    spec.labels.push(label.clone());
    spec.args = args.iter().map(|a| a.to_string()).collect();
    spec
}

/// The reference manifest's suite with `spec` as its target, started.
async fn start(spec: ImageSpec) -> Session {
    Suite::new(embedded::reference_manifest())
        .image(spec)
        .start()
        .await
        .unwrap_or_else(|e| panic!("the image's suite starts: {e}"))
}

/// Why a target that must not become ready did not, as the report says it.
async fn not_ready(spec: ImageSpec) -> String {
    let mut session = start(spec).await;
    assert!(session.not_ready().is_some(), "the target must not become ready");
    let report = session.run().await.unwrap();
    assert_eq!(report.failed_rules(), vec!["target.ready"]);
    let text = report.render_text();
    text.lines().skip_while(|l| !l.starts_with("target.ready FAIL: ")).collect::<Vec<_>>().join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reference_image_passes_the_whole_suite() {
    let label = unique_label("pass");
    let mut target = start(spec(&label, &[])).await;
    assert_eq!(containers_labelled(&label).len(), 1, "one container runs, labelled");
    let report = target.run().await.expect("run completes");
    assert_eq!(report.verdict(), Verdict::Pass, "{}", report.render_text());
    assert!(report.warned_rules().is_empty(), "{}", report.render_text());
    assert!(report.exchanges().len() > 50, "the default plan sends a real number of requests");
    let description = &report.records().target.description;
    assert!(description.starts_with("image: webhook-conformance-reference:"), "{description}");
    let log = report.records().target.log_tail.clone().expect("a container target reports its log");
    assert!(log.contains("listening on https://0.0.0.0:8443"), "container log: {log}");
    assert_eq!(target.target_exit_status(), None, "the container still runs after the run");
    drop(target);
    assert!(containers_labelled(&label).is_empty(), "the container was removed with the target");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn defect_in_the_image_fails_exactly_its_rule() {
    let label = unique_label("defect");
    let mut target = start(spec(&label, &["--defect", "status-500"])).await;
    let report = target.run().await.expect("run completes");
    assert_eq!(report.failed_rules(), vec!["transport.status"], "{}", report.render_text());
    assert_eq!(report.verdict(), Verdict::Fail);
    drop(target);
    assert!(containers_labelled(&label).is_empty(), "the container was removed with the target");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn image_that_exits_is_a_target_ready_fail_with_its_output() {
    let label = unique_label("exits");
    let message = not_ready(spec(&label, &["--defect", "no-such-defect"])).await;
    assert!(message.starts_with("target.ready FAIL: the container of webhook-conformance-reference:"), "{message}");
    assert!(message.contains("exited before it became ready"), "{message}");
    assert!(message.contains("exit code 2"), "{message}");
    assert!(
        message.contains("unknown defect `no-such-defect`"),
        "the container's log tail is in the verdict: {message}"
    );
    assert!(containers_labelled(&label).is_empty(), "the exited container was removed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn image_listening_elsewhere_never_becomes_ready() {
    let label = unique_label("never-ready");
    let mut spec = spec(&label, &["--port", "9443"]);
    spec.startup_timeout = Duration::from_secs(3);
    let started = std::time::Instant::now();
    let message = not_ready(spec).await;
    assert!(started.elapsed() < Duration::from_secs(30), "the startup deadline holds: {:?}", started.elapsed());
    assert!(message.starts_with("target.ready FAIL: "), "{message}");
    assert!(message.contains("did not accept a TLS handshake") && message.contains("within 3 s"), "{message}");
    assert!(
        message.contains("listening on https://0.0.0.0:9443"),
        "the container's log tail is in the verdict: {message}"
    );
    assert!(containers_labelled(&label).is_empty(), "the container was removed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn container_is_removed_when_a_test_panics_holding_it() {
    let label = unique_label("panic");
    let spec = spec(&label, &[]);
    let probe = label.clone();
    let outcome = tokio::spawn(async move {
        let _target = start(spec).await;
        assert_eq!(containers_labelled(&probe).len(), 1);
        panic!("deliberate panic while the container runs");
    })
    .await;
    let panic = outcome.expect_err("the task panicked");
    assert!(panic.is_panic());
    assert!(containers_labelled(&label).is_empty(), "the container was removed while the panic unwound");
}

#[test]
fn cli_runs_an_image_and_exits_by_verdict() {
    let image = reference_image();
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../reference-webhook/manifests/reference.yaml");
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let out = bin()
        .current_dir(dir.path())
        .args([
            "--config",
            manifest,
            "--image",
            &image,
            "--image-arg=--defect",
            "--image-arg",
            "status-500",
            "--report-json",
        ])
        .arg(&report)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("transport.status"), "{stdout}");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(json["verdict"], "fail", "{json}");

    assert_no_container_left(&stdout);

    let out = bin().current_dir(dir.path()).args(["--config", manifest, "--image", &image]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_no_container_left(&stdout);
}

/// The report names the container (`image: NAME (container ID)`); it must be gone after the run.
fn assert_no_container_left(stdout: &str) {
    let id = stdout
        .split("(container ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("the report names the container: {stdout}"));
    assert_eq!(id.len(), 12, "{stdout}");
    let listed = image_support::docker(&[
        "ps",
        "--all",
        "--quiet",
        "--filter",
        &format!("id={id}"),
        "--filter",
        &format!("label={RUN_LABEL}"),
    ])
    .unwrap();
    assert_eq!(listed.trim(), "", "container {id} of the CLI's run is left");
}

#[test]
fn cli_refuses_a_missing_image_and_an_unreachable_docker_with_exit_2() {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../reference-webhook/manifests/reference.yaml");
    let out =
        bin().args(["--config", manifest, "--image", "webhook-conformance-no-such-image:never"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is not on the Docker engine (the suite never pulls"), "{stderr}");

    let out = bin()
        .env("DOCKER_HOST", "unix:///nonexistent/docker.sock")
        .args(["--config", manifest, "--image", "anything:latest"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("Docker is not reachable"), "{stderr}");
}
