//! A started target's output as the report shows it: a Rust webhook that panics at startup with
//! `RUST_BACKTRACE=1` set keeps its panic message in the report, the backtrace folded to one line.
//!
//! The panicking webhook is this test binary itself, run by the suite as a `--cmd` target with only
//! the ignored test `panicking_webhook` selected: a real panic, with a real backtrace deeper than
//! the report's tail.

use webhook_harness::{Manifest, Suite, Verdict};

#[inline(never)]
fn deep(n: u32) -> u32 {
    if n == 0 {
        panic!("cannot bind 0.0.0.0:8443: Address already in use (os error 98)");
    }
    std::hint::black_box(deep(std::hint::black_box(n - 1)) + 1)
}

#[test]
#[ignore = "the webhook that panics: started by a_panicking_rust_webhook_keeps_its_panic_message"]
fn panicking_webhook() {
    deep(60);
}

#[test]
fn a_panicking_rust_webhook_keeps_its_panic_message() {
    let exe = std::env::current_exe().unwrap();
    let command = format!(
        "RUST_BACKTRACE=1 '{}' panicking_webhook --exact --ignored --nocapture --test-threads 1",
        exe.display()
    );
    let manifest = Manifest::parse("reference.yaml".as_ref(), reference_webhook::MANIFEST).unwrap();
    let report = Suite::new(manifest).command(command).run_blocking().unwrap();
    assert_eq!(report.verdict(), Verdict::Fail);
    assert_eq!(report.failed_rules(), vec!["target.ready"]);
    let text = report.render_text();
    assert!(text.contains("exited before it became ready"), "{text}");
    assert!(text.contains("panicked at harness/tests/target_output.rs"), "{text}");
    assert!(text.contains("cannot bind 0.0.0.0:8443: Address already in use"), "{text}");
    assert!(text.contains("stack backtrace:"), "the backtrace was there: {text}");
    assert!(text.contains("line(s) of stack trace left out]"), "{text}");
    let frames = text.lines().filter(|l| l.contains("target_output::deep")).count();
    assert!(frames < 2, "the frames are folded, not listed: {text}");
}
