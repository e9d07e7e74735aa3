//! The suite is black-box: a webhook in another language (Python, standard library only) passes when
//! it honours the protocol, and its bugs are caught by the rules the apiserver would reject them with.

#[path = "support/cli.rs"]
mod cli_support;
use cli_support::bin;

fn run_python(bug: &str) -> (i32, String) {
    run_python_with(bug, reference_webhook::MANIFEST)
}

fn run_python_with(bug: &str, manifest_text: &str) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("hook.yaml");
    std::fs::write(&manifest, manifest_text).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/python-webhook/webhook.py");
    let cmd = format!("exec python3 {script} --cert {{cert}} --key {{key}} --port {{port}} --bug '{bug}'");
    let out = bin().arg("--config").arg(&manifest).arg("--cmd").arg(cmd).output().expect("the CLI runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn python_webhook_that_honours_the_protocol_passes() {
    let (code, text) = run_python("");
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("verdict: PASS"), "{text}");
}

#[test]
fn python_webhook_bugs_fail_their_rules() {
    for (bug, rule) in [("uid-on-error", "response.uid"), ("labels-map", "patch.applies"), ("mime-type", "patch.type")]
    {
        let (code, text) = run_python(bug);
        assert_eq!(code, 1, "{bug}: {text}");
        assert!(text.contains(&format!("verdict: FAIL — {rule}")), "{bug}: {text}");
    }
}

#[test]
fn an_object_selector_keeps_out_what_a_cluster_never_sends() {
    // The labels-map bug breaks only on objects without labels. Under an objectSelector that requires
    // a label, the apiserver never sends such an object, so the webhook is accepted: no FAIL here.
    let selected = reference_webhook::MANIFEST.replacen(
        "    reinvocationPolicy: IfNeeded\n",
        "    reinvocationPolicy: IfNeeded\n    objectSelector:\n      matchLabels: {py.example/inject: \"true\"}\n",
        1,
    );
    assert_ne!(selected, reference_webhook::MANIFEST);
    let (code, text) = run_python_with("labels-map", &selected);
    assert_eq!(code, 0, "{text}");
    // Without the selector the same webhook FAILs (shown above): the selector is what decides.
    let (code, text) = run_python("labels-map");
    assert_eq!(code, 1, "{text}");
}
