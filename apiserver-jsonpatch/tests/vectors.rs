//! Replays every vector of `vectors/jsonpatch-v4.json` (what gopkg.in/evanphx/json-patch.v4
//! v4.13.0 and Go's encoding/json did with each input) and reports all mismatches at once.

use apiserver_jsonpatch::{apply, apply_json, decode_patch, decode_patch_field, Stage};
use serde_json::Value;

const VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/vectors/jsonpatch-v4.json");

fn load() -> Value {
    let text = std::fs::read_to_string(VECTORS).unwrap_or_else(|e| {
        panic!("the vector file {VECTORS} could not be read ({e}); it is part of the repository (vectors/README.md)")
    });
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{VECTORS} is not JSON: {e}"))
}

/// Value equality where numbers compare by numeric value: the vectors' results were read back
/// through Go's `interface{}` (float64), so `1.0` in a patched document is written `1` there.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn name(v: &Value) -> String {
    v["name"].as_str().unwrap_or("<unnamed>").to_string()
}

#[test]
fn every_base64_vector() {
    let vectors = load();
    let list = vectors["base64"].as_array().expect("`base64` must be an array");
    assert!(!list.is_empty(), "no base64 vectors");
    let mut mismatches = Vec::new();
    for v in list {
        let ok = v["ok"].as_bool().expect("`ok` must be a boolean");
        let Ok(decoded) = std::panic::catch_unwind(|| decode_patch_field(&v["field"])) else {
            mismatches.push(format!("{}: the Rust code panicked", name(v)));
            continue;
        };
        match (decoded, ok) {
            (Ok(got), true) => {
                let want = v["decoded"].as_str().unwrap_or("").as_bytes();
                if got.bytes != want {
                    mismatches.push(format!(
                        "{}: decoded {:?}, want {:?}",
                        name(v),
                        String::from_utf8_lossy(&got.bytes),
                        String::from_utf8_lossy(want)
                    ));
                }
            }
            (Ok(got), false) => mismatches.push(format!(
                "{}: decoded {:?}, want error {}",
                name(v),
                String::from_utf8_lossy(&got.bytes),
                v["error"]
            )),
            (Err(e), true) => mismatches.push(format!("{}: error {e}, want success", name(v))),
            (Err(e), false) => {
                let want = v["error"].as_str().unwrap_or("");
                if e.to_string() != want {
                    mismatches.push(format!("{}: error\n  got  {e}\n  want {want}", name(v)));
                }
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} base64 vectors differ:\n{}",
        mismatches.len(),
        list.len(),
        mismatches.join("\n")
    );
}

#[test]
fn every_patch_vector() {
    let vectors = load();
    let list = vectors["patch"].as_array().expect("`patch` must be an array");
    assert!(!list.is_empty(), "no patch vectors");
    let mut mismatches = Vec::new();
    for v in list {
        let ok = v["ok"].as_bool().expect("`ok` must be a boolean");
        let bytes = serde_json::to_vec(&v["patch"]).expect("patch serializes");
        let run = || {
            decode_patch(&bytes)
                .map_err(|e| (Stage::Decode, e.to_string()))
                .and_then(|p| apply(&v["doc"], &p).map_err(|e| (Stage::Apply, e.to_string())))
        };
        // A crash on one vector must not hide the others.
        let Ok(outcome) = std::panic::catch_unwind(run) else {
            mismatches.push(format!("{}: the Rust code panicked", name(v)));
            continue;
        };
        match (outcome, ok) {
            (Ok(got), true) => {
                if !same(&got, &v["result"]) {
                    mismatches.push(format!("{}: result\n  got  {got}\n  want {}", name(v), v["result"]));
                }
                // The byte-level entry point must agree.
                let patch = decode_patch(&bytes).expect("decoded above");
                let doc = serde_json::to_vec(&v["doc"]).expect("doc serializes");
                let via_bytes = std::panic::catch_unwind(|| apply_json(&doc, &patch))
                    .map_err(|_| "the Rust code panicked".to_string())
                    .and_then(|r| r.map_err(|e| e.to_string()))
                    .and_then(|b| serde_json::from_slice::<Value>(&b).map_err(|e| e.to_string()));
                match via_bytes {
                    Ok(b) if same(&b, &v["result"]) => {}
                    other => mismatches.push(format!("{}: apply_json gave {other:?}", name(v))),
                }
            }
            (Ok(got), false) => {
                mismatches.push(format!("{}: succeeded with {got}, want {} error {}", name(v), v["stage"], v["error"]))
            }
            (Err((stage, e)), true) => {
                mismatches.push(format!("{}: {} error {e}, want success", name(v), stage.as_str()))
            }
            (Err((stage, e)), false) => {
                let want = v["error"].as_str().unwrap_or("");
                let want_stage = v["stage"].as_str().unwrap_or("");
                if e != want || stage.as_str() != want_stage {
                    mismatches.push(format!(
                        "{}: error\n  got  [{}] {e}\n  want [{want_stage}] {want}",
                        name(v),
                        stage.as_str()
                    ));
                }
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} patch vectors differ:\n{}",
        mismatches.len(),
        list.len(),
        mismatches.join("\n")
    );
}
