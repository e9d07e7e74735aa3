//! The suite where the webhook runs: `--url` of the webhook's Service trusting the manifest's
//! caBundle (no `--ca`), the Job manifests of deploy/in-cluster (their arguments are the CLI's), and
//! the in-cluster image itself: built by deploy/in-cluster/build-image.sh (a static glibc build,
//! `FROM scratch`) and run on a Docker network against the reference webhook's container, reached by
//! its Service name as a pod reaches it: the static binary resolves that name through the DNS
//! server and hosts file the container runtime gives it, with nothing else in the image.
//!
//! The image test needs a Docker engine and glibc's static libc.a (libc6-dev, which gcc needs
//! anyway); it FAILs with a message saying so when one is missing.

#[path = "support/image.rs"]
mod image_support;

#[path = "support/cli.rs"]
mod cli_support;
#[path = "support/reference.rs"]
mod reference_support;
use cli_support::bin;
use reference_support::start_reference;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use base64::Engine as _;
use clap::Parser;
use image_support::{containers_labelled, docker, reference_image, unique_label};
use webhook_conformance::args::{Cli, Command as Sub};
use webhook_harness::tls::{ServingNames, TlsMaterial};

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// The reference manifest with `ca_pem` as every webhook's caBundle.
fn manifest_with_ca_bundle(ca_pem: &str) -> String {
    let bundle = base64::engine::general_purpose::STANDARD.encode(ca_pem);
    let manifest = reference_webhook::MANIFEST
        .replace("    clientConfig:\n", &format!("    clientConfig:\n      caBundle: {bundle}\n"));
    assert_eq!(manifest.matches("caBundle").count(), 2, "both webhooks carry the bundle");
    manifest
}

#[test]
fn url_without_ca_trusts_the_manifests_ca_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let names = ServingNames::for_service("reference-webhook", "conformance");
    let tls = TlsMaterial::generate(&names, Some(&dir.path().join("tls"))).unwrap();
    let (mut server, port) = start_reference(&tls);
    let run = |manifest: &str| {
        let file = dir.path().join("webhook.yaml");
        std::fs::write(&file, manifest).unwrap();
        let json = dir.path().join("report.json");
        let out = bin()
            .arg("--config")
            .arg(&file)
            .arg(format!("--url=https://localhost:{port}"))
            .arg("--report-json")
            .arg(&json)
            .env_remove("WEBHOOK_CA")
            .output()
            .unwrap();
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&json).unwrap_or_default()).unwrap_or_default();
        (out, report)
    };
    // The bundle that signed the served certificate: the run passes, and the bundle was checked.
    let (out, report) = run(&manifest_with_ca_bundle(&tls.ca_pem));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("trusting the manifest's clientConfig.caBundle"), "{}", text(&out));
    assert!(text(&out).contains("note: TLS verified for reference-webhook.conformance.svc"), "{}", text(&out));
    let ca_bundle = report["lint"].as_array().unwrap().iter().find(|l| l["rule"] == "manifest.ca-bundle").unwrap();
    assert_eq!(ca_bundle["outcome"], "pass", "{ca_bundle}");
    // Another CA's bundle: the apiserver could not call the webhook, and neither can the suite.
    let other = TlsMaterial::generate(&names, None).unwrap();
    let (out, _) = run(&manifest_with_ca_bundle(&other.ca_pem));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("verdict: FAIL — transport.connect"), "{}", text(&out));
    // No bundle and no --ca: nothing to trust, exit 2 saying so.
    let (out, _) = run(reference_webhook::MANIFEST);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no --ca, and the manifest has no clientConfig.caBundle"), "{}", text(&out));
    let _ = server.kill();
    let _ = server.wait();
}

/// The containers' arguments of a Job manifest, `$(JOB_COMPLETION_INDEX)` as pod 0 sees it.
fn job_args(file: &str) -> Vec<(String, Vec<String>, serde_json::Value)> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/in-cluster").join(file)).unwrap();
    let mut jobs = Vec::new();
    for doc in serde_yaml::Deserializer::from_str(&text) {
        let doc: serde_json::Value = serde::Deserialize::deserialize(doc).unwrap();
        if doc["kind"] != "Job" {
            continue;
        }
        let args: Vec<String> = doc["spec"]["template"]["spec"]["containers"][0]["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().replace("$(JOB_COMPLETION_INDEX)", "0"))
            .collect();
        jobs.push((doc["metadata"]["name"].as_str().unwrap().to_string(), args, doc));
    }
    jobs
}

fn mounted(job: &serde_json::Value, path: &str) -> bool {
    job["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| path.starts_with(m["mountPath"].as_str().unwrap()))
}

#[test]
fn the_job_manifests_arguments_are_the_clis() {
    let jobs: Vec<_> = job_args("job.yaml").into_iter().chain(job_args("fuzz-job.yaml")).collect();
    assert_eq!(jobs.len(), 3);
    for (name, args, job) in &jobs {
        let cli = Cli::try_parse_from(std::iter::once("webhook-conformance".to_string()).chain(args.iter().cloned()))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(job["spec"]["backoffLimit"], 0, "{name}: a FAIL is not retried");
        assert_eq!(job["spec"]["template"]["spec"]["automountServiceAccountToken"], false, "{name}: no API access");
        match cli.command {
            None => {
                assert!(cli.run.url.as_deref().is_some_and(|u| u.starts_with("https://") && u.contains(".svc:")));
                assert!(cli.run.ca.is_none(), "{name}: the caBundle is trusted");
                assert!(
                    mounted(job, cli.run.config.as_ref().unwrap().to_str().unwrap()),
                    "{name}: the manifest is mounted"
                );
            }
            Some(Sub::Fuzz(fuzz)) => {
                assert_eq!(fuzz.shard_from_job, job["spec"]["completions"].as_u64().map(|n| n as u32), "{name}");
                assert!(fuzz.gate.seed.is_some(), "{name}: the shards share a seed");
                assert!(mounted(job, fuzz.run.report_json.as_ref().unwrap().to_str().unwrap()), "{name}");
                assert!(fuzz.run.url.is_some() && fuzz.run.ca.is_none());
            }
            Some(Sub::Merge(merge)) => {
                assert!(merge.reports.iter().all(|r| mounted(job, r.to_str().unwrap())), "{name}");
            }
            Some(other) => panic!("{name}: unexpected command {other:?}"),
        }
    }
}

// ---- The image ----

const IN_CLUSTER_TAG: &str = "webhook-conformance-in-cluster:test";

/// Build the in-cluster image with the recipe a user runs, here in its debug profile
/// (`PROFILE=dev`, where a user's default is the release profile): the same static build and
/// image, in about two thirds of the release profile's build time on a cold cache.
fn build_in_cluster_image() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    docker(&["version", "--format", "{{.Server.Version}}"]).unwrap_or_else(|e| panic!("Docker is not reachable: {e}"));
    let child = Command::new(root.join("deploy/in-cluster/build-image.sh"))
        .arg(IN_CLUSTER_TAG)
        .env("PROFILE", "dev")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A build of the whole CLI in its own target dir, on a cold cache: minutes.
    let out = webhook_harness::lowlevel::wait_with_deadline(child, Duration::from_secs(1800), "build-image.sh")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.status.success(), "build-image.sh failed:\n{}", text(&out));
    IN_CLUSTER_TAG.to_string()
}

/// A Docker network and the containers on it, removed on drop (also when a test panics).
struct Network {
    name: String,
    label: (String, String),
}

impl Network {
    fn create(label: (String, String)) -> Network {
        let name = format!("wc-{}", label.1);
        // Internal: the containers reach each other, nothing else.
        docker(&["network", "create", "--internal", "--label", &format!("{}={}", label.0, label.1), &name])
            .unwrap_or_else(|e| panic!("{e}"));
        Network { name, label }
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        for id in containers_labelled(&self.label) {
            let _ = docker(&["rm", "--force", &id]);
        }
        let _ = docker(&["network", "rm", &self.name]);
    }
}

/// Make `dir` and its files readable by the image's non-root user.
fn readable(dir: &Path) {
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(0o644)).unwrap();
    }
}

/// `docker run` of the suite's image on `network`, as the Job runs it; its output.
fn run_suite(image: &str, network: &Network, config: &Path, args: &[&str]) -> Output {
    let child = Command::new("docker")
        .args(["run", "--rm", "--network", &network.name, "--label"])
        .arg(format!("{}={}", network.label.0, network.label.1))
        .args(["--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "-v"])
        .arg(format!("{}:/config:ro", config.display()))
        .arg(image)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    webhook_harness::lowlevel::wait_with_deadline(child, Duration::from_secs(180), "docker run")
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_in_cluster_image_judges_the_webhook_by_its_service_name() {
    let image = build_in_cluster_image();
    let reference = reference_image();
    let label = unique_label("in-cluster");
    let network = Network::create(label.clone());
    let dir = tempfile::tempdir().unwrap();

    // The webhook's pod: the reference image with a certificate for its Service name, reachable on
    // the network under that name.
    let service = "reference-webhook.conformance.svc";
    let tls = TlsMaterial::generate(
        &ServingNames::for_service("reference-webhook", "conformance"),
        Some(&dir.path().join("tls")),
    )
    .unwrap();
    readable(&dir.path().join("tls"));
    docker(&[
        "run",
        "--detach",
        "--network",
        &network.name,
        "--network-alias",
        service,
        "--label",
        &format!("{}={}", label.0, label.1),
        "-v",
        &format!("{}:/certs:ro", dir.path().join("tls").display()),
        "-e",
        "WEBHOOK_TLS_CERT=/certs/tls.crt",
        "-e",
        "WEBHOOK_TLS_KEY=/certs/tls.key",
        "-e",
        "WEBHOOK_PORT=8443",
        &reference,
    ])
    .unwrap_or_else(|e| panic!("{e}"));
    let started = std::time::Instant::now();
    let id = containers_labelled(&label).pop().expect("the webhook's container runs");
    while !docker(&["logs", &id]).unwrap_or_default().contains("listening on") {
        assert!(started.elapsed() < Duration::from_secs(30), "the reference webhook did not start");
        std::thread::sleep(Duration::from_millis(100));
    }

    // The suite's Job: the manifest (with the caBundle) mounted, the Service's URL.
    let config = dir.path().join("config");
    std::fs::create_dir(&config).unwrap();
    std::fs::write(config.join("webhook.yaml"), manifest_with_ca_bundle(&tls.ca_pem)).unwrap();
    readable(&config);
    let url = format!("--url=https://{service}:8443");
    let out = run_suite(&image, &network, &config, &["--config=/config/webhook.yaml", &url, "-v"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("verdict: PASS"), "{t}");
    assert!(t.contains("trusting the manifest's clientConfig.caBundle"), "{t}");
    // Called by the Service's name, TLS verified for it (transport.connect holds).
    assert!(t.contains(&format!("webhook-conformance: url: https://{service}:8443")), "{t}");
    assert!(t.contains("pass  transport.connect"), "{t}");

    // A sharded fuzz campaign from the same image: shard 2 of 2.
    let fuzz =
        ["fuzz", "--config=/config/webhook.yaml", &url, "--shard=2/2", "--seed=4", "--cases=8", "--no-regressions"];
    let out = run_suite(&image, &network, &config, &fuzz);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("seed 4, shard 2/2"), "{}", text(&out));

    // A manifest whose caBundle is not the webhook's CA: what the apiserver could not call FAILs.
    let other = TlsMaterial::generate(&Default::default(), None).unwrap();
    std::fs::write(config.join("webhook.yaml"), manifest_with_ca_bundle(&other.ca_pem)).unwrap();
    let out = run_suite(&image, &network, &config, &["--config=/config/webhook.yaml", &url, "-v"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("transport.connect"), "{}", text(&out));

    drop(network);
    assert!(containers_labelled(&label).is_empty(), "no container outlives the test");
}
