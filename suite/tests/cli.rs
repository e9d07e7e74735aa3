//! The CLI as a user meets it: exit codes, reports, errors, and the `--cmd` target's life cycle.

#[path = "support/reference.rs"]
mod reference_support;
use reference_support::start_reference;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

#[path = "support/cli.rs"]
mod cli_support;
use cli_support::bin;

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("the CLI runs")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn reference_manifest(dir: &Path) -> PathBuf {
    let path = dir.join("reference.yaml");
    std::fs::write(&path, reference_webhook::MANIFEST).unwrap();
    path
}

/// The reference webhook started by the suite itself through `--cmd`.
fn reference_cmd(extra: &str) -> String {
    format!(
        "exec {} reference-webhook --cert {{cert}} --key {{key}} --port {{port}} {extra}",
        env!("CARGO_BIN_EXE_webhook-conformance")
    )
}

#[test]
fn default_run_passes_against_the_bundled_reference() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let out = run(bin().arg("--report-json").arg(&json));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("verdict: PASS"), "{}", text(&out));
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["verdict"], "pass");
    let results = report["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r["rule"] == "response.uid" && r["outcome"] == "pass"));
    assert!(results.iter().all(|r| ["pass", "skip"].contains(&r["outcome"].as_str().unwrap())));
}

#[test]
fn a_defect_fails_with_the_rule_the_apiserver_message_and_a_replay() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let out = run(bin()
        .args(["--reference-defect", "missing-parent", "--tls-dir"])
        .arg(dir.path().join("tls"))
        .arg("--report-json")
        .arg(&json));
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("FAIL  patch.applies"), "{t}");
    assert!(t.contains("apiserver says: Internal error occurred: add operation does not apply: doc is missing path: \"/metadata/labels/conformance.example~1mutated\": missing value"), "{t}");
    assert!(t.contains("curl --http1.1 --cacert"), "{t}");
    assert!(t.contains("verdict: FAIL — patch.applies"), "{t}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["verdict"], "fail");
    let applies = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule"] == "patch.applies" && r["outcome"] == "fail")
        .unwrap();
    assert!(applies["breaches"][0]["curl"].as_str().unwrap().contains("--resolve"));
}

#[test]
fn the_replay_command_reproduces_the_request() {
    // The curl reproducer, run as printed, gets the same kind of answer from the same target.
    if Command::new("curl").arg("--version").output().is_err() {
        panic!("curl is needed for this test");
    }
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let manifest = reference_manifest(dir.path());
    let tls = dir.path().join("tls");
    // A long-lived target: the reference webhook started by hand with the suite's kept certificates.
    let out = run(bin()
        .args(["--config"])
        .arg(&manifest)
        .arg("--tls-dir")
        .arg(&tls)
        .arg("--cmd")
        .arg(reference_cmd("--defect wrong-uid"))
        .arg("--report-json")
        .arg(&json));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let uid = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule"] == "response.uid" && r["outcome"] == "fail")
        .unwrap();
    let curl = uid["breaches"][0]["curl"].as_str().unwrap().to_string();
    assert!(curl.contains(&tls.join("ca.pem").display().to_string()), "{curl}");
    // Start the same defect again on a port of our own and replay against it.
    let mut server = Command::new(env!("CARGO_BIN_EXE_webhook-conformance"))
        .args(["reference-webhook", "--defect", "wrong-uid", "--port", "0"])
        .arg("--cert")
        .arg(tls.join("tls.crt"))
        .arg("--key")
        .arg(tls.join("tls.key"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(server.stdout.as_mut().unwrap()), &mut line).unwrap();
    assert!(line.starts_with("listening on"), "{line}");
    let port = line.trim().rsplit(':').next().unwrap().to_string();
    let old_port = curl.split(".svc:").nth(1).and_then(|s| s.split(['/', ':']).next()).unwrap().to_string();
    let replay = curl.replace(&format!(":{old_port}"), &format!(":{port}")).replace("curl ", "curl -sS --max-time 10 ");
    let out = Command::new("sh").arg("-c").arg(&replay).output().unwrap();
    let _ = server.kill();
    let _ = server.wait();
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    let sent: serde_json::Value =
        serde_json::from_str(replay.split("<<'EOF'\n").nth(1).unwrap().split("\nEOF").next().unwrap()).unwrap();
    assert_ne!(body["response"]["uid"], sent["request"]["uid"], "the replay shows the wrong uid again");
    assert_eq!(body["kind"], "AdmissionReview");
}

#[test]
fn rules_prints_the_catalog() {
    let out = run(bin().arg("rules"));
    assert_eq!(out.status.code(), Some(0));
    let t = text(&out);
    for rule in webhook_harness::rules::CATALOG {
        assert!(t.contains(rule.id) && t.contains(rule.statement), "{} missing", rule.id);
    }
}

#[test]
fn broken_manifest_is_exit_2_naming_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, reference_webhook::MANIFEST.replacen("timeoutSeconds: 5", "timeoutSeconds: soon", 1)).unwrap();
    let out = run(bin().arg("--config").arg(&bad).args(["--cmd", "true"]));
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("bad.yaml") && t.contains("webhooks[0].timeoutSeconds"), "{t}");
    let missing = dir.path().join("absent.yaml");
    let out = run(bin().arg("--config").arg(&missing).args(["--cmd", "true"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("absent.yaml"), "{}", text(&out));
}

#[test]
fn a_v1alpha1_configuration_is_exit_2_naming_the_kinds_to_write_instead() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("external.yaml");
    std::fs::write(
        &old,
        "apiVersion: admissionregistration.k8s.io/v1alpha1\nkind: ExternalAdmissionHookConfiguration\nmetadata: {name: example-config}\nexternalAdmissionHooks:\n- name: pod-image.k8s.io\n  rules: [{apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [pods]}]\n  failurePolicy: Ignore\n  clientConfig: {caBundle: eA==, service: {name: image-webhook, namespace: default}}\n",
    )
    .unwrap();
    let out = run(bin().arg("--config").arg(&old).args(["--cmd", "true"]));
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("external.yaml") && t.contains("ExternalAdmissionHookConfiguration"), "{t}");
    assert!(t.contains("ValidatingWebhookConfiguration") && t.contains("admissionregistration.k8s.io/v1 "), "{t}");
}

#[test]
fn unreachable_url_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = reference_manifest(dir.path());
    let ca = dir.path().join("ca.pem");
    let tls = webhook_harness::tls::TlsMaterial::generate(&Default::default(), None).unwrap();
    std::fs::write(&ca, &tls.ca_pem).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let out = run(bin()
        .arg("--config")
        .arg(&manifest)
        .arg("--url")
        .arg(format!("https://127.0.0.1:{port}"))
        .arg("--ca")
        .arg(&ca));
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("cannot connect"), "{t}");
    let out = run(bin().arg("--config").arg(&manifest).args(["--url", "https://127.0.0.1:1"]));
    assert_eq!(out.status.code(), Some(2), "--url without --ca: {}", text(&out));
}

#[test]
fn url_target_with_the_users_ca() {
    // A webhook the user runs: start the reference by hand with certificates the suite generated.
    let dir = tempfile::tempdir().unwrap();
    let manifest = reference_manifest(dir.path());
    let names = webhook_harness::tls::ServingNames::for_service("reference-webhook", "conformance");
    let tls = webhook_harness::tls::TlsMaterial::generate(&names, Some(&dir.path().join("tls"))).unwrap();
    let (mut server, port) = start_reference(&tls);
    let out = run(bin()
        .arg("--config")
        .arg(&manifest)
        .arg("--url")
        .arg(format!("https://localhost:{port}"))
        .arg("--ca")
        .arg(tls.ca_path())
        .arg("--http2"));
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("note: TLS verified for reference-webhook.conformance.svc"), "{}", text(&out));
    // The wrong CA: the webhook's certificate is not trusted, which is the webhook's finding.
    let other = webhook_harness::tls::TlsMaterial::generate(&names, None).unwrap();
    let (mut server, port) = start_reference(&tls);
    let out = run(bin()
        .arg("--config")
        .arg(&manifest)
        .arg("--url")
        .arg(format!("https://localhost:{port}"))
        .arg("--ca")
        .arg(other.ca_path()));
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("verdict: FAIL — transport.connect"), "{}", text(&out));
}

/// The reference's service name, the one the apiserver calls it by.
const SERVICE_NAME: &str = "reference-webhook.conformance.svc";

/// The rules a JSON report FAILs, with the webhooks.
fn failing(json: &Path) -> Vec<(String, String)> {
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    let mut failing: Vec<(String, String)> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .chain(report["lint"].as_array().into_iter().flatten())
        .filter(|r| r["outcome"] == "fail")
        .map(|r| (r["rule"].as_str().unwrap().to_string(), r["webhook"].as_str().unwrap_or_default().to_string()))
        .collect();
    failing.dedup();
    failing
}

#[test]
fn a_url_target_whose_certificate_lacks_the_service_name_fails_transport_connect_naming_both() {
    // A real apiserver calls reference-webhook.conformance.svc and fails every handshake with a
    // certificate for localhost only.
    let dir = tempfile::tempdir().unwrap();
    let manifest = reference_manifest(dir.path());
    let json = dir.path().join("report.json");
    let tls = webhook_harness::tls::TlsMaterial::generate(&Default::default(), Some(&dir.path().join("tls"))).unwrap();
    let (mut server, port) = start_reference(&tls);
    let out = run(bin()
        .arg("--config")
        .arg(&manifest)
        .arg("--url")
        .arg(format!("https://127.0.0.1:{port}"))
        .arg("--ca")
        .arg(tls.ca_path())
        .arg("--report-json")
        .arg(&json));
    let _ = server.kill();
    let _ = server.wait();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains("verdict: FAIL — transport.connect;") || t.ends_with("verdict: FAIL — transport.connect\n"),
        "{t}"
    );
    assert!(
        t.contains(&format!("the webhook's certificate is not valid for {SERVICE_NAME}, the name the apiserver calls: it has DNS names localhost; IP addresses 127.0.0.1, ::1")),
        "{t}"
    );
    assert!(
        t.contains(&format!("failed to call webhook: Post \"https://{SERVICE_NAME}:{port}/mutate?timeout=5s\": tls: failed to verify certificate: x509: certificate is valid for localhost, not {SERVICE_NAME}")),
        "{t}"
    );
    assert!(!t.contains("does not verify for"), "no note instead of the finding: {t}");
    // One finding for one cause: transport.connect on each webhook, nothing else.
    assert_eq!(
        failing(&json),
        [
            ("transport.connect".to_string(), "mutate.reference.conformance.example".to_string()),
            ("transport.connect".to_string(), "validate.reference.conformance.example".to_string())
        ]
    );
}

#[test]
fn a_ca_bundle_that_signed_a_certificate_without_the_name_is_no_second_finding() {
    // The caBundle vouches for the certificate; the name it lacks is transport.connect's finding only.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let tls = webhook_harness::tls::TlsMaterial::generate(&Default::default(), Some(&dir.path().join("tls"))).unwrap();
    let bundle = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &tls.ca_pem);
    let manifest = dir.path().join("bundled.yaml");
    let text_of = reference_webhook::MANIFEST
        .replace("    clientConfig:\n", &format!("    clientConfig:\n      caBundle: {bundle}\n"));
    std::fs::write(&manifest, text_of).unwrap();
    let (mut server, port) = start_reference(&tls);
    let out = run(bin()
        .arg("--config")
        .arg(&manifest)
        .arg("--url")
        .arg(format!("https://localhost:{port}"))
        .arg("--report-json")
        .arg(&json)
        .env_remove("WEBHOOK_CA"));
    let _ = server.kill();
    let _ = server.wait();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let bundles: Vec<&serde_json::Value> =
        report["lint"].as_array().unwrap().iter().filter(|l| l["rule"] == "manifest.ca-bundle").collect();
    assert_eq!(bundles.len(), 2, "{t}");
    assert!(bundles.iter().all(|b| b["outcome"] == "pass"), "{bundles:?}");
    assert_eq!(
        failing(&json),
        [
            ("transport.connect".to_string(), "mutate.reference.conformance.example".to_string()),
            ("transport.connect".to_string(), "validate.reference.conformance.example".to_string())
        ],
        "{t}"
    );
}

#[test]
fn a_certificate_neither_trusted_nor_for_the_name_is_reported_by_its_name_as_go_does() {
    // Go's x509 checks the host name before the chain: the apiserver names the missing name.
    let dir = tempfile::tempdir().unwrap();
    let manifest = reference_manifest(dir.path());
    let tls = webhook_harness::tls::TlsMaterial::generate(&Default::default(), Some(&dir.path().join("tls"))).unwrap();
    let other = webhook_harness::tls::TlsMaterial::generate(&Default::default(), None).unwrap();
    let (mut server, port) = start_reference(&tls);
    let out = run(bin()
        .arg("--config")
        .arg(&manifest)
        .arg("--url")
        .arg(format!("https://localhost:{port}"))
        .arg("--ca")
        .arg(other.ca_path()));
    let _ = server.kill();
    let _ = server.wait();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains(&format!(
            "tls: failed to verify certificate: x509: certificate is valid for localhost, not {SERVICE_NAME}"
        )),
        "{t}"
    );
    // Another CA of the same name: the signature does not verify.
    assert!(
        t.contains(
            "it has DNS names localhost; IP addresses 127.0.0.1, ::1; nor does it chain to a CA trusted (BadSignature)"
        ),
        "{t}"
    );
}

#[test]
fn each_webhook_is_called_by_its_own_service_name() {
    // The validating webhook's service is another one, which the certificate does not name.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let manifest = dir.path().join("two-services.yaml");
    let validate = "name: reference-webhook\n        namespace: conformance\n        path: /validate";
    assert!(reference_webhook::MANIFEST.contains(validate));
    let text_of = reference_webhook::MANIFEST
        .replace(validate, "name: reference-policy\n        namespace: conformance\n        path: /validate");
    std::fs::write(&manifest, text_of).unwrap();
    let names = webhook_harness::tls::ServingNames::for_service("reference-webhook", "conformance");
    let tls = webhook_harness::tls::TlsMaterial::generate(&names, Some(&dir.path().join("tls"))).unwrap();
    let (mut server, port) = start_reference(&tls);
    let out = run(bin()
        .arg("--config")
        .arg(&manifest)
        .arg("--url")
        .arg(format!("https://localhost:{port}"))
        .arg("--ca")
        .arg(tls.ca_path())
        .arg("--report-json")
        .arg(&json));
    let _ = server.kill();
    let _ = server.wait();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_eq!(
        failing(&json),
        [("transport.connect".to_string(), "validate.reference.conformance.example".to_string())],
        "{t}"
    );
    assert!(t.contains("x509: certificate is valid for localhost, reference-webhook.conformance.svc, reference-webhook.conformance.svc.cluster.local, not reference-policy.conformance.svc"), "{t}");
    assert!(t.contains(&format!("note: TLS verified for {SERVICE_NAME}")), "{t}");
}

#[test]
fn a_url_webhook_is_called_by_its_urls_host() {
    // clientConfig.url with a host of its own: the apiserver calls hooks.example.com; --url says
    // where it runs here. A certificate for the service names only FAILs that webhook.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let manifest = dir.path().join("url.yaml");
    let mutate =
        "      service:\n        name: reference-webhook\n        namespace: conformance\n        path: /mutate\n";
    assert!(reference_webhook::MANIFEST.contains(mutate));
    std::fs::write(
        &manifest,
        reference_webhook::MANIFEST.replace(mutate, "      url: https://hooks.example.com/mutate\n"),
    )
    .unwrap();
    let names = webhook_harness::tls::ServingNames::for_service("reference-webhook", "conformance");
    let tls = webhook_harness::tls::TlsMaterial::generate(&names, Some(&dir.path().join("tls"))).unwrap();
    let (mut server, port) = start_reference(&tls);
    let out = run(bin()
        .arg("--config")
        .arg(&manifest)
        .arg("--url")
        .arg(format!("https://127.0.0.1:{port}"))
        .arg("--ca")
        .arg(tls.ca_path())
        .arg("--report-json")
        .arg(&json));
    let _ = server.kill();
    let _ = server.wait();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_eq!(
        failing(&json),
        [("transport.connect".to_string(), "mutate.reference.conformance.example".to_string())],
        "{t}"
    );
    assert!(t.contains(&format!("Post \"https://hooks.example.com:{port}/mutate?timeout=5s\": tls: failed to verify certificate: x509: certificate is valid for localhost, reference-webhook.conformance.svc, reference-webhook.conformance.svc.cluster.local, not hooks.example.com")), "{t}");
}

/// `--url https://<service>:443 --resolve <service>:443:127.0.0.1:<port>` against the reference
/// serving `tls`: the output and the JSON report.
fn run_resolved(dir: &Path, tls: &webhook_harness::tls::TlsMaterial) -> (Output, serde_json::Value, String) {
    let manifest = reference_manifest(dir);
    let json = dir.join("report.json");
    let (mut server, port) = start_reference(tls);
    let out = run(bin()
        .arg("--config")
        .arg(&manifest)
        .arg("--url")
        .arg(format!("https://{SERVICE_NAME}:443"))
        .arg("--resolve")
        .arg(format!("{SERVICE_NAME}:443:127.0.0.1:{port}"))
        .arg("--ca")
        .arg(tls.ca_path())
        .arg("--report-json")
        .arg(&json));
    let _ = server.kill();
    let _ = server.wait();
    let report = serde_json::from_slice(&std::fs::read(&json).unwrap_or_default()).unwrap_or_default();
    (out, report, port)
}

#[test]
fn resolve_calls_a_service_name_at_a_local_port() {
    let dir = tempfile::tempdir().unwrap();
    let names = webhook_harness::tls::ServingNames::for_service("reference-webhook", "conformance");
    let tls = webhook_harness::tls::TlsMaterial::generate(&names, Some(&dir.path().join("tls"))).unwrap();
    let (out, _, port) = run_resolved(dir.path(), &tls);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(
        t.contains(&format!(
            "note: TLS verified for {SERVICE_NAME}, the name the apiserver calls, at 127.0.0.1:{port}"
        )),
        "{t}"
    );
}

#[test]
fn resolve_to_a_webhook_whose_certificate_lacks_the_service_name_fails_with_a_replay_that_reproduces_it() {
    let dir = tempfile::tempdir().unwrap();
    let tls = webhook_harness::tls::TlsMaterial::generate(&Default::default(), Some(&dir.path().join("tls"))).unwrap();
    let (out, report, port) = run_resolved(dir.path(), &tls);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains(&format!("Post \"https://{SERVICE_NAME}/mutate?timeout=5s\": tls: failed to verify certificate: x509: certificate is valid for localhost, not {SERVICE_NAME}")), "{t}");
    let connect = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule"] == "transport.connect" && r["outcome"] == "fail")
        .unwrap_or_else(|| panic!("{t}"));
    let curl = connect["breaches"][0]["curl"].as_str().unwrap();
    assert!(curl.contains(&format!(" --connect-to '{SERVICE_NAME}:443:127.0.0.1:{port}' ")), "{curl}");
    assert!(curl.contains(&format!("'https://{SERVICE_NAME}/mutate?timeout=5s'")), "{curl}");
}

#[test]
fn a_malformed_resolve_is_exit_2_naming_the_flag_and_the_fault() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = reference_manifest(dir.path());
    let url = format!("https://{SERVICE_NAME}:443");
    let out = run(bin().arg("--config").arg(&manifest).args([
        "--url",
        &url,
        "--resolve",
        &format!("{SERVICE_NAME}:443:localhost"),
    ]));
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("--resolve") && t.contains("ADDR \"localhost\" is not an IP address"), "{t}");
    let out = run(bin().arg("--config").arg(&manifest).args(["--url", &url]).env("WEBHOOK_RESOLVE", SERVICE_NAME));
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("--resolve") && t.contains("expected HOST:PORT:ADDR"), "{t}");
    // Only a --url target has a host to resolve.
    let out = run(bin().arg("--config").arg(&manifest).args([
        "--cmd",
        "true",
        "--resolve",
        &format!("{SERVICE_NAME}:443:127.0.0.1"),
    ]));
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("--resolve") && t.contains("--url"), "{t}");
}

#[test]
fn cmd_target_passes_and_its_process_group_is_gone_afterwards() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = reference_manifest(dir.path());
    let pidfile = dir.path().join("pid");
    // A shell that starts the webhook as a grandchild: the whole group must be killed at the end.
    let cmd = format!(
        "echo $$ > {}; {} reference-webhook --cert {{cert}} --key {{key}} --port {{port}} & wait",
        pidfile.display(),
        env!("CARGO_BIN_EXE_webhook-conformance")
    );
    let out = run(bin().arg("--config").arg(&manifest).arg("--cmd").arg(&cmd));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let pid: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
    let living = living_members(pid);
    assert!(living.is_empty(), "process group {pid} outlived the run: {living:?}");
}

/// Processes of process group `pgid` that are not zombies (a killed orphan may wait to be reaped
/// by init; it no longer runs).
fn living_members(pgid: i32) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // pid (comm) state ppid pgrp ...
        let Some(after) = stat.rsplit_once(") ").map(|(_, a)| a) else { continue };
        let fields: Vec<&str> = after.split_whitespace().collect();
        if fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z" {
            out.push(stat);
        }
    }
    out
}

#[test]
fn cmd_target_that_exits_early_gets_a_verdict_with_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = reference_manifest(dir.path());
    let json = dir.path().join("r.json");
    let out = run(bin()
        .arg("--config")
        .arg(&manifest)
        .args(["--cmd", "echo 'cannot open {cert}: boom' >&2; exit 3"])
        .arg("--report-json")
        .arg(&json));
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains("target.ready FAIL") && t.contains("exited before it became ready") && t.contains("boom"),
        "{t}"
    );
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["verdict"], "fail");
    assert_eq!(report["results"][0]["rule"], "target.ready");
}

#[test]
fn cmd_target_that_never_listens_gets_a_verdict_within_the_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = reference_manifest(dir.path());
    let start = std::time::Instant::now();
    let out = run(bin().arg("--config").arg(&manifest).args([
        "--startup-timeout",
        "1",
        "--cmd",
        "echo starting; exec sleep 60",
    ]));
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("did not accept a TLS handshake") && t.contains("starting"), "{t}");
    assert!(start.elapsed() < Duration::from_secs(30), "the startup deadline was not kept");
}

#[test]
fn hanging_webhook_is_a_deadline_fail_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("m.yaml");
    std::fs::write(&manifest, reference_webhook::MANIFEST.replace("timeoutSeconds: 5", "timeoutSeconds: 1")).unwrap();
    let out = run(bin()
        .arg("--config")
        .arg(&manifest)
        .args(["--concurrency", "64", "--webhook", "validate.reference.conformance.example"])
        .arg("--cmd")
        .arg(reference_cmd("--defect hang")));
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("verdict: FAIL — transport.deadline"), "{t}");
    assert!(t.contains("context deadline exceeded"), "{t}");
}

#[test]
fn unknown_webhook_name_lists_the_known_ones() {
    let out = run(bin().args(["--webhook", "nope.example"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("mutate.reference.conformance.example"), "{}", text(&out));
}

#[test]
fn sigterm_during_a_run_stops_the_target() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("m.yaml");
    std::fs::write(&manifest, reference_webhook::MANIFEST.replace("timeoutSeconds: 5", "timeoutSeconds: 30")).unwrap();
    let pidfile = dir.path().join("pid");
    let cmd = format!(
        "echo $$ > {}; exec {} reference-webhook --cert {{cert}} --key {{key}} --port {{port}} --defect hang",
        pidfile.display(),
        env!("CARGO_BIN_EXE_webhook-conformance")
    );
    // The command (and its temporary directory) held while the CLI runs.
    let mut cli = bin();
    let mut child = cli
        .arg("--config")
        .arg(&manifest)
        .arg("--cmd")
        .arg(&cmd)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait (with a deadline) until the target has started and the run is hanging on it.
    let started = std::time::Instant::now();
    while !pidfile.exists() || std::fs::read_to_string(&pidfile).unwrap_or_default().trim().is_empty() {
        assert!(started.elapsed() < Duration::from_secs(20), "the target never started");
        std::thread::yield_now();
    }
    let pid: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
    assert!(!living_members(pid).is_empty(), "the target is running before the signal");
    // SAFETY: signals the CLI process we started.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM)
    };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    let living = living_members(pid);
    assert!(living.is_empty(), "the target outlived SIGTERM: {living:?}");
}

#[test]
fn an_authorizer_description_answers_the_authorization_checks_of_match_conditions() {
    let dir = tempfile::tempdir().unwrap();
    let breakglass = "    matchConditions:\n      - name: not-breakglass\n        expression: \"!authorizer.group('admissionregistration.k8s.io').resource('validatingwebhookconfigurations').check('breakglass').allowed()\"\n";
    let manifest = dir.path().join("hooks.yaml");
    std::fs::write(
        &manifest,
        reference_webhook::MANIFEST
            .replace("    failurePolicy: Fail\n", &format!("    failurePolicy: Fail\n{breakglass}")),
    )
    .unwrap();
    let cmd = reference_cmd("");
    // Not described: the condition cannot be evaluated, nothing is sent, and the run says why.
    let out = run(bin().arg("--config").arg(&manifest).args(["--cmd", &cmd, "--cases", "4"]));
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("coverage.requests") && t.contains("--authorizer FILE"), "{t}");
    // Described: only system:masters may break glass, so the suite's users are all sent.
    let authz = dir.path().join("authz.yaml");
    std::fs::write(&authz, "allow:\n  - groups: [system:masters]\n    rules: [{verbs: [breakglass], apiGroups: [admissionregistration.k8s.io], resources: [\"*\"]}]\n").unwrap();
    let out =
        run(bin().arg("--config").arg(&manifest).args(["--cmd", &cmd, "--cases", "4"]).arg("--authorizer").arg(&authz));
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(t.contains("sent as built") && !t.contains("not described"), "{t}");
    // A condition only the granted user satisfies: the requests are steered to that user.
    let deployers = "    matchConditions:\n      - name: deployers-only\n        expression: \"authorizer.group('').resource('configmaps').check('create').allowed()\"\n";
    std::fs::write(
        &manifest,
        reference_webhook::MANIFEST
            .replace("    failurePolicy: Fail\n", &format!("    failurePolicy: Fail\n{deployers}")),
    )
    .unwrap();
    std::fs::write(&authz, "allow:\n  - serviceAccounts: [ci/deployer]\n    rules: [{verbs: [\"*\"], apiGroups: [\"\"], resources: [\"*\"]}]\n").unwrap();
    let out =
        run(bin().arg("--config").arg(&manifest).args(["--cmd", &cmd, "--cases", "4"]).arg("--authorizer").arg(&authz));
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(!t.contains("FAIL  coverage.requests"), "{t}");
    // A description that does not parse is exit 2, naming the file.
    std::fs::write(&authz, "allow:\n  - user: alice\n").unwrap();
    let out = run(bin().arg("--config").arg(&manifest).args(["--cmd", &cmd]).arg("--authorizer").arg(&authz));
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("authz.yaml") && t.contains("unknown field"), "{t}");
}

/// A child process killed and reaped when the test ends, however it ends.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `cmd`'s exit status and its stdout then stderr, the process killed after `deadline`.
fn output_within(cmd: &mut Command, deadline: Duration) -> (Option<i32>, String) {
    let child = cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let out = webhook_harness::lowlevel::wait_with_deadline(child, deadline, "the command")
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    (out.status.code(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn the_replay_written_to_artifacts_reproduces_a_failing_answer_of_a_url_target() {
    if Command::new("curl").arg("--version").output().is_err() {
        println!("skipped: curl is not installed, and this test runs the replay command with it");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let manifest = reference_manifest(dir.path());
    let names = webhook_harness::tls::ServingNames::for_service("reference-webhook", "conformance");
    let tls = webhook_harness::tls::TlsMaterial::generate(&names, Some(&dir.path().join("tls"))).unwrap();
    // A webhook the user runs: the reference with a defect, served over TLS on a port of its own.
    let mut server = Command::new(env!("CARGO_BIN_EXE_webhook-conformance"))
        .args(["reference-webhook", "--defect", "wrong-uid", "--port", "0"])
        .arg("--cert")
        .arg(tls.cert_path())
        .arg("--key")
        .arg(tls.key_path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = server.stdout.take().unwrap();
    let server = Reaped(server);
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line).unwrap();
    let port = line.trim().strip_prefix("listening on https://").and_then(|a| a.rsplit(':').next());
    let port = port.unwrap_or_else(|| panic!("{line}")).to_string();
    let artifacts = dir.path().join("artifacts");
    let (code, t) = output_within(
        bin()
            .arg("--config")
            .arg(&manifest)
            .arg("--url")
            .arg(format!("https://localhost:{port}"))
            .arg("--ca")
            .arg(tls.ca_path())
            .arg("--artifacts")
            .arg(&artifacts),
        Duration::from_secs(300),
    );
    assert_eq!(code, Some(1), "{t}");
    // The first example of response.uid's breaches: its uid, and the replay printed under it.
    let section = t.split("FAIL  response.uid").nth(1).unwrap_or_else(|| panic!("{t}"));
    let uid = section.split(" uid ").nth(1).and_then(|s| s.lines().next()).unwrap().trim().to_string();
    let curl = section.split("replay:\n").nth(1).and_then(|s| s.lines().next()).unwrap().trim().to_string();
    let body_file = curl.split("--data-binary '@").nth(1).and_then(|s| s.split('\'').next()).unwrap();
    assert!(Path::new(body_file).starts_with(&artifacts), "{curl}");
    let sent: serde_json::Value = serde_json::from_slice(&std::fs::read(body_file).unwrap()).unwrap();
    assert_eq!(sent["request"]["uid"], uid.as_str(), "the file holds the request of the breach: {curl}");
    // Run the replay as printed (curl told to stop after 10 s and to fail loudly).
    let replay = curl.replacen("curl ", "curl -sS --max-time 10 ", 1);
    let (code, answer) = output_within(Command::new("sh").arg("-c").arg(&replay), Duration::from_secs(30));
    drop(server);
    assert_eq!(code, Some(0), "{replay}\n{answer}");
    let answer: serde_json::Value = serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{e}: {answer}"));
    assert_eq!(answer["kind"], "AdmissionReview", "{answer}");
    assert!(answer["response"]["uid"].is_string(), "{answer}");
    assert_ne!(answer["response"]["uid"], sent["request"]["uid"], "the replay gets the wrong uid again: {answer}");
}
