//! Authenticating to the webhook as an apiserver with webhook credentials does: a client
//! certificate (given, issued by the run's CA, or from an AdmissionConfiguration's kubeconfig by the
//! webhook's host name) or a bearer token. A webhook that demands credentials and gets none is a
//! clear finding, quickly, never a hang.

#[path = "support/cli.rs"]
mod cli_support;
use cli_support::bin;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use webhook_harness::tls::{ServingNames, TlsMaterial};

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

struct Run {
    dir: tempfile::TempDir,
}

impl Run {
    fn new() -> Run {
        let run = Run { dir: tempfile::tempdir().unwrap() };
        std::fs::write(run.path("reference.yaml"), reference_webhook::MANIFEST).unwrap();
        run
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A CA of the test's own, with a client certificate it issued, in `name/`.
    fn client_pki(&self, name: &str) -> TlsMaterial {
        TlsMaterial::generate_with_client(&ServingNames::default(), Some(&self.path(name))).unwrap()
    }

    /// The CLI against the reference webhook started with `--client-ca <client_ca>`, plus `args`;
    /// the exit code, the output, and how long it took.
    fn cli(&self, client_ca: &str, args: &[&str]) -> (i32, String, Duration) {
        let cmd = format!(
            "exec {} reference-webhook --cert {{cert}} --key {{key}} --port {{port}} --client-ca {client_ca}",
            env!("CARGO_BIN_EXE_webhook-conformance")
        );
        let started = Instant::now();
        let out = bin()
            .arg("--config")
            .arg(self.path("reference.yaml"))
            .args(["--cmd", &cmd, "--cases", "4"])
            .args(args)
            .output()
            .expect("the CLI runs");
        (out.status.code().unwrap_or(-1), text(&out), started.elapsed())
    }
}

fn display(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn a_webhook_requiring_a_client_certificate_passes_with_one_and_gets_a_clear_finding_without() {
    let run = Run::new();
    // The run's CA issues the client certificate; the webhook trusts it through {client_ca}.
    let (code, out, _) = run.cli("{client_ca}", &["--client-cert", "generated"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("verdict: PASS"), "{out}");
    assert!(out.contains("the suite presents a client certificate"), "{out}");

    let (code, out, took) = run.cli("{client_ca}", &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("verdict: FAIL — transport.connect"), "{out}");
    assert!(out.contains("it demands a client certificate, and none was presented"), "{out}");
    assert!(out.contains("apiserver says: Internal error occurred: failed calling webhook \"mutate.reference.conformance.example\": failed to call webhook: Post \"https://reference-webhook.conformance.svc:"), "{out}");
    assert!(out.contains("/mutate?timeout=5s\": remote error: tls: certificate required"), "{out}");
    assert!(took < Duration::from_secs(120), "a refused handshake is answered at once, not waited out: {took:?}");
}

#[test]
fn a_refused_handshake_is_one_connect_failure_never_also_a_closed_connection() {
    let run = Run::new();
    // The requests waiting on a connection the webhook closes after refusing the handshake see it
    // closed; which of them does varies from run to run, so several runs are judged.
    for attempt in 0..6 {
        let (code, out, _) = run.cli("{client_ca}", &[]);
        assert_eq!(code, 1, "{out}");
        let verdict = out.lines().find(|l| l.starts_with("verdict:")).unwrap_or_default();
        // The FAILing rules, before the WARNs: transport.connect, and never transport.answer.
        let failing = verdict.trim_start_matches("verdict: FAIL — ").split(';').next().unwrap_or_default();
        let failing: Vec<&str> = failing.split(", ").collect();
        assert!(failing.contains(&"transport.connect"), "run {attempt}: {verdict}\n{out}");
        assert!(!failing.contains(&"transport.answer"), "run {attempt}: {verdict}\n{out}");
        assert!(!out.contains("FAIL  transport.answer"), "run {attempt}: {out}");
        assert!(!out.contains("connection was not ready"), "run {attempt}: {out}");
    }
}

#[test]
fn a_client_certificate_from_files_is_presented_and_one_the_webhook_does_not_trust_is_named() {
    let run = Run::new();
    let trusted = run.client_pki("trusted");
    let (cert, key) = (display(&trusted.client_cert_path()), display(&trusted.client_key_path()));
    let ca = display(&trusted.ca_path());
    let (code, out, _) = run.cli(&ca, &["--client-cert", &cert, "--client-key", &key]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(&format!("(--client-cert {cert})")), "{out}");

    let other = run.client_pki("other");
    let (cert, key) = (display(&other.client_cert_path()), display(&other.client_key_path()));
    let (code, out, _) = run.cli(&ca, &["--client-cert", &cert, "--client-key", &key]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("refused the client certificate presented"), "{out}");
    // The replay presents it too.
    assert!(out.contains(&format!("--cert '{cert}' --key '{key}'")), "{out}");
}

#[test]
fn an_admission_configuration_gives_each_webhook_the_kubeconfig_user_of_its_host_name() {
    let run = Run::new();
    let trusted = run.client_pki("trusted");
    let other = run.client_pki("other");
    let kubeconfig = |matching: &str| {
        let text = format!(
            "apiVersion: v1\nkind: Config\nusers:\n- name: {matching}\n  user:\n    client-certificate: {}\n    client-key: {}\n- name: '*'\n  user:\n    client-certificate: other/client.crt\n    client-key: other/client.key\n",
            display(&trusted.client_cert_path()),
            display(&trusted.client_key_path()),
        );
        let path = run.path("webhook-kubeconfig.yaml");
        std::fs::write(&path, text).unwrap();
        let config = format!(
            "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionWebhook\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    kubeConfigFile: {0}\n- name: MutatingAdmissionWebhook\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    kubeConfigFile: {0}\n",
            display(&path)
        );
        std::fs::write(run.path("admission.yaml"), config).unwrap();
        display(&run.path("admission.yaml"))
    };
    let ca = display(&trusted.ca_path());
    // The service's host name (port 443 left out) picks the trusted certificate.
    let config = kubeconfig("reference-webhook.conformance.svc");
    let (code, out, _) = run.cli(&ca, &["--admission-config", &config]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("user \"reference-webhook.conformance.svc\""), "{out}");
    // Named for another host, it is passed over for the default user, whose certificate the
    // webhook does not trust.
    let config = kubeconfig("elsewhere.conformance.svc");
    let (code, out, _) = run.cli(&ca, &["--admission-config", &config]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("refused the client certificate presented (user \"*\""), "{out}");
    assert!(other.client.is_some());
    // A kubeConfigFile that is not absolute is refused, as the apiserver refuses it: exit 2.
    std::fs::write(
        run.path("relative.yaml"),
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionWebhook\n  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: WebhookAdmissionConfiguration, kubeConfigFile: webhook-kubeconfig.yaml}\n",
    )
    .unwrap();
    let (code, out, _) = run.cli(&ca, &["--admission-config", &display(&run.path("relative.yaml"))]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("relative.yaml") && out.contains("absolute"), "{out}");
}

#[test]
fn a_bearer_token_is_sent_and_a_webhook_that_wants_one_says_so_without_it() {
    let run = Run::new();
    std::fs::write(run.path("token"), "s3cret-token\n").unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/python-webhook/webhook.py");
    let python = |args: &[&str]| {
        let out = bin()
            .arg("--config")
            .arg(run.path("reference.yaml"))
            .arg("--cmd")
            .arg(format!(
                "exec python3 {script} --cert {{cert}} --key {{key}} --port {{port}} --token \"$(cat {})\"",
                display(&run.path("token"))
            ))
            .args(["--cases", "4"])
            .args(args)
            .output()
            .unwrap();
        (out.status.code().unwrap_or(-1), text(&out))
    };
    let (code, out) = python(&["--token-file", &display(&run.path("token"))]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("s3cret-token"), "the token is never printed: {out}");
    let (code, out) = python(&[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("HTTP status 401") && out.contains("refuses the caller"), "{out}");
    // In the words of the apiserver's webhook client (errors.NewGenericServerResponse).
    assert!(
        out.contains("failed to call webhook: the server has asked for the client to provide credentials"),
        "{out}"
    );
}
