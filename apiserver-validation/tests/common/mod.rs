//! What the vector replays share: reading a vector file.

use serde_json::Value;

/// The vectors of `text` (one of the crate's `vectors/*.json`), with every long string expanded.
pub fn read(text: &str, file: &str) -> Value {
    let mut v = serde_json::from_str(text).unwrap_or_else(|e| panic!("{file} is not JSON: {e}"));
    expand(&mut v);
    v
}

/// A long string is written `{"$repeat": "x", "times": N}` in the file: N times the character.
fn expand(v: &mut Value) {
    match v {
        Value::Object(m) if m.contains_key("$repeat") => {
            let unit = m["$repeat"].as_str().unwrap().to_string();
            let times = m["times"].as_u64().unwrap() as usize;
            *v = Value::String(unit.repeat(times));
        }
        Value::Object(m) => m.values_mut().for_each(expand),
        Value::Array(a) => a.iter_mut().for_each(expand),
        _ => {}
    }
}
