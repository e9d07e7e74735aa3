//! The last lines of a target's output, as the report shows them: stack traces (a Rust backtrace
//! under `RUST_BACKTRACE=1`, Go's goroutine dumps, Java's and Node's `at …` frames) are folded into
//! one line each, so that the message that came before them (the panic, the exception) stays in
//! the tail instead of being pushed out by frames.

/// How many lines of a target's output the report keeps.
pub(crate) const TAIL_LINES: usize = 40;

/// True for one frame line of a stack trace.
fn is_frame(line: &str) -> bool {
    let trimmed = line.trim_start();
    let indented = trimmed.len() < line.len();
    if !indented {
        return false;
    }
    // Rust: "   12: crate::module::function" / "  0:     0x55d… - std::…"
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && trimmed[digits..].starts_with(':') {
        return true;
    }
    // Rust ("             at src/main.rs:4:5"), Java ("\tat com.example.Main.main(Main.java:3)"), Node.
    // Java's "\t... 12 more".
    trimmed.starts_with("at ") || (trimmed.starts_with("... ") && trimmed.ends_with(" more"))
}

/// Rust's hint after a short backtrace.
fn is_backtrace_note(line: &str) -> bool {
    line.starts_with("note: Some details are omitted, run with `RUST_BACKTRACE=full`")
}

/// A Go goroutine header: "goroutine 1 [running]:".
fn is_goroutine_header(line: &str) -> bool {
    line.strip_prefix("goroutine ").and_then(|rest| rest.split_once(' ')).is_some_and(|(n, state)| {
        n.bytes().all(|b| b.is_ascii_digit()) && state.starts_with('[') && state.ends_with("]:")
    })
}

fn left_out(n: usize) -> String {
    format!("  [… {n} line(s) of stack trace left out]")
}

/// `text` with every run of stack-frame lines folded into one line.
pub(crate) fn fold_stack_traces(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if is_goroutine_header(line) {
            // Its frames run up to the next blank line.
            out.push(line.to_string());
            let start = i + 1;
            let mut end = start;
            while end < lines.len() && !lines[end].trim().is_empty() {
                end += 1;
            }
            if end > start {
                out.push(left_out(end - start));
            }
            i = end;
            continue;
        }
        if is_frame(line) || is_backtrace_note(line) {
            let start = i;
            while i < lines.len() && (is_frame(lines[i]) || is_backtrace_note(lines[i])) {
                i += 1;
            }
            if i - start == 1 && !is_backtrace_note(line) {
                out.push(line.to_string());
            } else {
                out.push(left_out(i - start));
            }
            continue;
        }
        out.push(line.to_string());
        i += 1;
    }
    out
}

/// The last [`TAIL_LINES`] lines of `text`, stack traces folded.
pub(crate) fn tail(text: &str) -> String {
    let lines = fold_stack_traces(text);
    let start = lines.len().saturating_sub(TAIL_LINES);
    lines[start..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a Rust program prints when it panics 60 calls deep under `RUST_BACKTRACE=1`.
    fn rust_panic() -> String {
        let mut s = String::from(
            "listening on https://0.0.0.0:8443\nthread 'main' panicked at src/main.rs:12:9:\ncannot bind 0.0.0.0:8443: Address in use (os error 98)\nstack backtrace:\n   0: __rustc::rust_begin_unwind\n             at /rustc/59807616e/library/std/src/panicking.rs:697:5\n   1: core::panicking::panic_fmt\n             at /rustc/59807616e/library/core/src/panicking.rs:75:14\n",
        );
        for n in 2..62 {
            s.push_str(&format!("  {n:>2}: my_webhook::deep\n             at ./src/main.rs:{n}:5\n"));
        }
        s.push_str("note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n");
        s
    }

    #[test]
    fn a_rust_backtrace_keeps_the_panic_message_in_the_tail() {
        let text = rust_panic();
        // Cut at 40 lines, the frames alone would fill the tail.
        let naive: Vec<&str> = text.lines().rev().take(TAIL_LINES).collect();
        assert!(!naive.iter().any(|l| l.contains("cannot bind")));
        let tail = tail(&text);
        assert!(tail.contains("thread 'main' panicked at src/main.rs:12:9:"), "{tail}");
        assert!(tail.contains("cannot bind 0.0.0.0:8443: Address in use"), "{tail}");
        assert!(tail.contains("stack backtrace:\n  [… 125 line(s) of stack trace left out]"), "{tail}");
        assert!(tail.starts_with("listening on"), "{tail}");
    }

    #[test]
    fn a_full_rust_backtrace_is_folded_too() {
        let mut text = String::from("thread 'main' panicked at src/main.rs:2:5:\nboom\nstack backtrace:\n");
        for n in 0..80 {
            text.push_str(&format!(
                "  {n:>2}:     0x55d1c5d0b1a5 - std::backtrace_rs::backtrace::trace::h0123\n                               at /rustc/x/library/std/src/backtrace.rs:116:5\n"
            ));
        }
        let tail = tail(&text);
        assert_eq!(tail, "thread 'main' panicked at src/main.rs:2:5:\nboom\nstack backtrace:\n  [… 160 line(s) of stack trace left out]");
    }

    #[test]
    fn go_and_java_traces_are_folded() {
        let mut go = String::from("panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation]\n\ngoroutine 1 [running]:\n");
        for n in 0..30 {
            go.push_str(&format!("main.handler{n}(0xc000010000)\n\t/src/main.go:{n} +0x25\n"));
        }
        go.push_str("\ngoroutine 7 [IO wait]:\ninternal/poll.runtime_pollWait()\n\t/go/src/runtime/netpoll.go:345 +0x85\nexit status 2\n");
        let folded = tail(&go);
        assert!(folded.starts_with("panic: runtime error: invalid memory address"), "{folded}");
        assert!(folded.contains("goroutine 1 [running]:\n  [… 60 line(s) of stack trace left out]"), "{folded}");
        assert!(folded.contains("goroutine 7 [IO wait]:\n  [… 3 line(s) of stack trace left out]"), "{folded}");

        let mut java = String::from("Exception in thread \"main\" java.net.BindException: Address already in use\n");
        for n in 0..50 {
            java.push_str(&format!("\tat sun.nio.ch.Net.bind{n}(Net.java:{n})\n"));
        }
        java.push_str("Caused by: java.io.IOException: nope\n\tat a.B.c(B.java:1)\n\t... 12 more\n");
        let folded = tail(&java);
        assert!(folded.starts_with("Exception in thread \"main\" java.net.BindException"), "{folded}");
        assert!(folded.contains("Caused by: java.io.IOException: nope\n  [… 2 line(s)"), "{folded}");
    }

    #[test]
    fn ordinary_output_is_cut_to_the_last_lines() {
        let text: String = (0..100).map(|n| format!("request {n} at path /x\n")).collect();
        let tail = tail(&text);
        assert_eq!(tail.lines().count(), TAIL_LINES);
        assert!(tail.ends_with("request 99 at path /x"));
        // A lone indented "at" line is output, not a trace.
        assert_eq!(fold_stack_traces("error:\n  at the door\nbye"), vec!["error:", "  at the door", "bye"]);
    }
}
