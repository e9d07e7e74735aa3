//! Large values in the text report: a string longer than [`LONG`] bytes is shown as its first
//! characters and its size (`"xxxx…" (204800 bytes)`), a target's output is capped per line and in
//! total. The JSON report keeps every value whole.

use serde_json::Value;

/// Strings longer than this many bytes are abbreviated.
const LONG: usize = 200;
/// How many characters of an abbreviated string are shown.
const SHOWN: usize = 40;
/// A line of a target's output is cut after this many bytes.
const LOG_LINE: usize = 500;
/// At most this many bytes of a target's output are shown (its last lines).
const LOG_TOTAL: usize = 8 * 1024;

/// A character that never appears in JSON text unescaped: marks where an abbreviation goes.
const MARK: char = '\u{1}';

/// `value` as pretty JSON, each string longer than [`LONG`] bytes abbreviated; and how many were.
pub(super) fn json(value: &Value) -> (String, usize) {
    let mut cut = Vec::new();
    let marked = mark(value, &mut cut);
    let mut text = serde_json::to_string_pretty(&marked).unwrap_or_default();
    for (i, s) in cut.iter().enumerate() {
        let shown: String = s.chars().take(SHOWN).collect();
        let shown = serde_json::to_string(&format!("{shown}…")).unwrap_or_default();
        let placeholder = serde_json::to_string(&format!("{MARK}{i}{MARK}")).unwrap_or_default();
        text = text.replacen(&placeholder, &format!("{shown} ({} bytes)", s.len()), 1);
    }
    (text, cut.len())
}

fn mark(value: &Value, cut: &mut Vec<String>) -> Value {
    match value {
        Value::String(s) if s.len() > LONG => {
            cut.push(s.clone());
            Value::String(format!("{MARK}{}{MARK}", cut.len() - 1))
        }
        Value::Array(a) => Value::Array(a.iter().map(|v| mark(v, cut)).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), mark(v, cut))).collect()),
        v => v.clone(),
    }
}

/// A body as text: JSON with its long strings abbreviated, anything else cut after [`LONG`] bytes.
pub(super) fn body(bytes: &[u8]) -> String {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(v) => json(&v).0,
        Err(_) => line(&String::from_utf8_lossy(bytes), LONG),
    }
}

/// A replay command (`… <<'EOF'\n{body}\nEOF`) whose request body has long strings: the body
/// abbreviated, and a line saying the command is no longer a replay as shown.
pub(super) fn replay(command: &str) -> String {
    let Some((head, rest)) = command.split_once("<<'EOF'\n") else { return command.to_string() };
    let Some((body, tail)) = rest.rsplit_once("\nEOF") else { return command.to_string() };
    let Ok(value) = serde_json::from_str::<Value>(body) else { return command.to_string() };
    match json(&value) {
        (_, 0) => command.to_string(),
        (text, n) => format!(
            "{head}<<'EOF'\n{text}\nEOF{tail}\n# {n} long string(s) of the request are abbreviated here: the JSON report (--report-json) holds the whole command"
        ),
    }
}

/// `text` cut after `max` bytes (at a character boundary), saying how long it was.
fn line(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

/// A target's output for the text report: each line cut after [`LOG_LINE`] bytes, the last lines
/// that fit in [`LOG_TOTAL`] bytes, and a first line saying what was cut.
pub(super) fn log(text: &str) -> String {
    let lines: Vec<String> = text.lines().map(|l| line(l, LOG_LINE)).collect();
    let long = text.lines().filter(|l| l.len() > LOG_LINE).count();
    let mut kept = Vec::new();
    let mut size = 0;
    for l in lines.iter().rev() {
        if size + l.len() + 1 > LOG_TOTAL && !kept.is_empty() {
            break;
        }
        size += l.len() + 1;
        kept.push(l.as_str());
    }
    kept.reverse();
    let dropped = lines.len() - kept.len();
    let mut said = Vec::new();
    if dropped > 0 {
        let bytes: usize = text.lines().take(dropped).map(|l| l.len() + 1).sum();
        said.push(format!("{dropped} earlier line(s) ({bytes} bytes) not shown"));
    }
    if long > 0 {
        said.push(format!("{long} line(s) longer than {LOG_LINE} bytes cut"));
    }
    let mut out = String::new();
    if !said.is_empty() {
        out.push_str(&format!("(output cut: {})\n", said.join("; ")));
    }
    out.push_str(&kept.join("\n"));
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_long_string_is_its_start_and_its_size() {
        let (text, n) = super::json(&json!({"a": "x".repeat(204_800), "b": "short"}));
        assert_eq!(n, 1);
        assert!(text.contains(&format!("\"a\": \"{}…\" (204800 bytes)", "x".repeat(40))), "{text}");
        assert!(text.contains("\"b\": \"short\""), "{text}");
    }

    #[test]
    fn a_log_is_capped_per_line_and_in_total_and_says_so() {
        let log = format!("{}\n{}\nlast line", "a".repeat(63_000), "b\n".repeat(10_000));
        let shown = super::log(&log);
        assert!(shown.len() <= 8 * 1024 + 200, "{} bytes", shown.len());
        assert!(shown.starts_with("(output cut: "), "{shown}");
        assert!(shown.contains("earlier line(s)"), "{shown}");
        assert!(shown.ends_with("last line"), "{shown}");
        let one = super::log(&"c".repeat(63_000));
        assert!(one.contains("… (63000 bytes)") && one.contains("1 line(s) longer than 500 bytes cut"), "{one}");
        assert!(one.len() < 1_000, "{}", one.len());
        assert_eq!(super::log("fine\nlines"), "fine\nlines");
    }
}
