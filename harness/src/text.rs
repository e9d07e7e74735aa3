//! Small text helpers for messages and reports. Imports nothing of the crate.

/// A short, single-line excerpt of a text for messages.
pub(crate) fn snippet(text: &str) -> String {
    let flat: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let flat = flat.trim();
    if flat.chars().count() > 200 {
        format!("{}…", flat.chars().take(200).collect::<String>())
    } else {
        flat.to_string()
    }
}

/// `text` with every line indented by `by`.
pub(crate) fn indent(text: &str, by: &str) -> String {
    text.lines().map(|l| format!("{by}{l}\n")).collect()
}
