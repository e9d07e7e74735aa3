//! Bad input to the CLI is exit 2 with a message naming the flag or file and what is wrong, before
//! anything is sent to a webhook: unknown manifest fields, type errors, report paths that cannot be
//! written, a missing golden directory, an empty command, a zero startup timeout.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "support/cli.rs"]
mod cli_support;
use cli_support::bin;

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("the CLI runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(out))
}

/// Exit 2, `message` on stderr, and no sign of a run: no verdict, no report, no seed line of `fuzz`.
fn refused_before_the_run(out: &Output, message: &str) {
    let t = text(out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(stderr(out).contains(message), "expected {message:?} in:\n{t}");
    assert!(!t.contains("verdict"), "the run started:\n{t}");
    assert!(!t.contains(": seed "), "the run started:\n{t}");
    assert!(out.stdout.is_empty(), "{t}");
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const MANIFEST: &str = r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: demo}
webhooks:
  - name: validate.demo.example.com
    admissionReviewVersions: ["v1"]
    sideEffects: None
    clientConfig: {service: {name: demo, namespace: demo, path: /validate}}
    rules:
      - {operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"]}
"#;

#[test]
fn unknown_manifest_fields_are_exit_2_naming_file_field_line_and_the_field_meant() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = write(
        dir.path(),
        "webhook.yaml",
        &MANIFEST
            .replace("    sideEffects: None\n", "    sideEfects: None\n    reinvocationPolicy: Never\n")
            .replace("{operations:", "{operation:"),
    );
    // The target is never reached: port 9 on loopback has nothing to answer.
    let out = run(bin().arg("--config").arg(&manifest).args(["--url", "https://127.0.0.1:9/validate"]));
    let file = manifest.display().to_string();
    refused_before_the_run(&out, &format!("{file}: 3 unknown fields, which the apiserver refuses"));
    let e = stderr(&out);
    assert!(e.contains(&format!("{file}:7: webhooks[0].sideEfects: did you mean `sideEffects`?")), "{e}");
    assert!(e.contains(&format!("{file}:8: webhooks[0].reinvocationPolicy: reinvocationPolicy is a field of MutatingWebhookConfiguration webhooks only")), "{e}");
    assert!(e.contains(&format!("{file}:11: webhooks[0].rules[0].operation: did you mean `operations`?")), "{e}");
    assert!(e.contains("apiserver says: ValidatingWebhookConfiguration in version \"v1\" cannot be handled as a ValidatingWebhookConfiguration: strict decoding error: unknown field \"webhooks[0].sideEfects\", unknown field \"webhooks[0].reinvocationPolicy\", unknown field \"webhooks[0].rules[0].operation\""), "{e}");
}

#[test]
fn a_manifest_type_error_names_its_field_once() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = write(
        dir.path(),
        "webhook.yaml",
        &MANIFEST.replace("    sideEffects: None\n", "    sideEffects: None\n    timeoutSeconds: \"ten\"\n"),
    );
    let out = run(bin().arg("--config").arg(&manifest).args(["--url", "https://127.0.0.1:9/validate"]));
    let expected = format!(
        "{}: document 1, webhooks[0].timeoutSeconds: invalid type: string \"ten\", expected i64 at line 8",
        manifest.display()
    );
    refused_before_the_run(&out, &expected);
    assert_eq!(stderr(&out).matches("timeoutSeconds").count(), 1, "{}", stderr(&out));
}

#[test]
fn a_report_path_that_cannot_be_written_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "a-file", "not a directory");
    let under_file = file.join("report");
    let cases: [(&str, PathBuf, String); 5] = [
        ("--report-json", under_file.join("r.json"), format!("{} is not a directory", file.display())),
        ("--junit", under_file.join("deeper/j.xml"), format!("{} is not a directory", file.display())),
        ("--report-md", under_file.join("r.md"), format!("{} is not a directory", file.display())),
        ("--sarif", under_file.join("r.sarif"), format!("{} is not a directory", file.display())),
        ("--report-json", dir.path().to_path_buf(), "is a directory: give a file name".into()),
    ];
    for (option, path, what) in cases {
        // A fuzz campaign of a minute would run for that long before writing its reports.
        let out = run(bin().args(["fuzz", "--no-regressions", "--duration", "60s", option]).arg(&path));
        refused_before_the_run(&out, &format!("{option} {}: {what}", path.display()));
        let out = run(bin().arg(option).arg(&path));
        refused_before_the_run(&out, &format!("{option} {}: {what}", path.display()));
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "nothing is left behind");
}

#[test]
fn a_missing_golden_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("golden");
    let out = run(bin().arg("--golden").arg(&missing));
    refused_before_the_run(
        &out,
        &format!(
            "--golden {}: no such directory (with --update-golden the run writes its snapshots there first)",
            missing.display()
        ),
    );
    let file = write(dir.path(), "file", "");
    let out = run(bin().arg("--golden").arg(&file).arg("--update-golden"));
    refused_before_the_run(&out, &format!("--golden {}: not a directory", file.display()));
}

#[test]
fn an_empty_command_is_refused() {
    for cmd in ["", "   "] {
        let out = run(bin().args(["--cmd", cmd, "--config"]).arg("webhook.yaml"));
        refused_before_the_run(
            &out,
            &format!("invalid value '{cmd}' for '--cmd <COMMAND LINE>': the command is empty: give the command line that starts the webhook"),
        );
    }
}

#[test]
fn a_zero_startup_timeout_is_refused_with_or_without_a_target() {
    let message = "invalid value '0' for '--startup-timeout <SECONDS>': must be at least 1 second";
    let out = run(bin().args(["--startup-timeout", "0"]));
    refused_before_the_run(&out, message);
    let out = run(bin().args(["fuzz", "--startup-timeout", "0", "--cmd", "sleep 60", "--config", "webhook.yaml"]));
    refused_before_the_run(&out, message);
}

#[test]
fn unknown_fields_of_a_crd_file_are_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let crd = write(
        dir.path(),
        "widgets.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {plural: widgets, kind: Widget}\n  versions:\n    - name: v1\n      servd: true\n      storage: true\n      schema: {openAPIV3Schema: {type: object}}\n",
    );
    let out = run(bin().arg("--crd").arg(&crd));
    let file = crd.display().to_string();
    refused_before_the_run(&out, &format!("{file}: 1 unknown field, which the apiserver refuses"));
    assert!(
        stderr(&out).contains(&format!("{file}:10: spec.versions[0].servd: did you mean `served`?")),
        "{}",
        stderr(&out)
    );
}
