//! `leniencies`: each kind is detected on a case taken from (or built on) the vector file, and is
//! absent from a strictly RFC 6902 counterpart; every vector v4 accepts gets exactly the expected
//! findings.

use apiserver_jsonpatch::leniency::{self, *};
use apiserver_jsonpatch::{apply, decode_patch, leniencies, Leniency, Patch};
use serde_json::{json, Value};

const VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/vectors/jsonpatch-v4.json");

fn vectors() -> Vec<Value> {
    let text =
        std::fs::read_to_string(VECTORS).unwrap_or_else(|e| panic!("the vector file {VECTORS} could not be read: {e}"));
    let all: Value = serde_json::from_str(&text).expect("vector file is JSON");
    all["patch"].as_array().expect("`patch` is an array").clone()
}

/// (doc, patch) of the named vector.
fn vector(name: &str) -> (Value, Value) {
    let v = vectors().into_iter().find(|v| v["name"] == name).unwrap_or_else(|| panic!("no vector named {name:?}"));
    (v["doc"].clone(), v["patch"].clone())
}

fn patch_of(p: &Value) -> Patch {
    decode_patch(&serde_json::to_vec(p).unwrap()).unwrap()
}

fn kinds(doc: &Value, patch: &Patch) -> Vec<&'static str> {
    // Every case here must be accepted by v4: a leniency is only meaningful for a patch that works.
    apply(doc, patch).unwrap_or_else(|e| panic!("v4 rejects the case: {e}"));
    leniencies(doc, patch).into_iter().map(|l| l.what).collect()
}

/// `lenient` must report `kind` (and only findings of that kind); `strict` must report nothing.
fn check(kind: &str, doc: &Value, lenient: &Patch, strict: &Patch) {
    let found = kinds(doc, lenient);
    assert!(found.contains(&kind), "{kind}: not detected, found {found:?}");
    assert!(found.iter().all(|k| *k == kind), "{kind}: extra findings {found:?}");
    let clean = kinds(doc, strict);
    assert!(clean.is_empty(), "{kind}: strict counterpart reported {clean:?}");
}

#[test]
fn replace_of_a_missing_key() {
    let (doc, p) = vector("replace missing key, parent exists");
    let strict = json!([{"op": "add", "path": "/metadata/labels/missing", "value": "v"}]);
    check(REPLACE_MISSING_KEY, &doc, &patch_of(&p), &patch_of(&strict));
    let found = leniencies(&doc, &patch_of(&p));
    assert_eq!(
        found,
        vec![Leniency { op_index: 0, path: "/metadata/labels/missing".into(), what: REPLACE_MISSING_KEY }]
    );
}

#[test]
fn negative_array_index() {
    let (_, strict) = vector("append container with -");
    for name in [
        "add at negative index -1",
        "add at negative index -2",
        "replace at negative index -1",
        "remove at negative index -1",
    ] {
        let (doc, p) = vector(name);
        check(NEGATIVE_INDEX, &doc, &patch_of(&p), &patch_of(&strict));
    }
    // Also in the middle of a path and in a `from`.
    let (doc, _) = vector("replace array element field");
    let mid = json!([{"op": "copy", "from": "/spec/containers/-2/image", "path": "/spec/containers/-1/name"}]);
    let strict = json!([{"op": "copy", "from": "/spec/containers/0/image", "path": "/spec/containers/1/name"}]);
    check(NEGATIVE_INDEX, &doc, &patch_of(&mid), &patch_of(&strict));
    assert_eq!(leniencies(&doc, &patch_of(&mid)).len(), 2);
}

#[test]
fn array_index_with_a_leading_zero() {
    let (doc, p) = vector("index with leading zero");
    let (_, strict) = vector("replace array element field");
    check(LEADING_ZERO, &doc, &patch_of(&p), &patch_of(&strict));
}

#[test]
fn array_index_with_a_plus_sign() {
    let (doc, strict) = vector("replace array element field");
    let p = json!([{"op": "replace", "path": "/spec/containers/+1/image", "value": "alpine"}]);
    check(PLUS_SIGN, &doc, &patch_of(&p), &patch_of(&strict));
}

#[test]
fn copy_from_a_missing_path() {
    let (doc, p) = vector("copy missing from");
    let (_, strict) = vector("copy key");
    check(COPY_MISSING_FROM, &doc, &patch_of(&p), &patch_of(&strict));
    assert_eq!(leniencies(&doc, &patch_of(&p))[0].path, "/zzz");
}

#[test]
fn test_of_a_missing_key_against_null() {
    let (doc, p) = vector("test missing key with null");
    let (_, strict) = vector("test null member with null");
    check(TEST_MISSING_NULL, &doc, &patch_of(&p), &patch_of(&strict));
}

#[test]
fn add_with_missing_value_member() {
    let (doc, p) = vector("add missing value field");
    let (_, strict) = vector("add null value");
    check(ADD_MISSING_VALUE, &doc, &patch_of(&p), &patch_of(&strict));
}

#[test]
fn replace_with_missing_value_member() {
    let (doc, p) = vector("replace missing value field");
    let strict = json!([{"op": "replace", "path": "/metadata/labels/app", "value": null}]);
    check(REPLACE_MISSING_VALUE, &doc, &patch_of(&p), &patch_of(&strict));
}

#[test]
fn test_with_missing_value_member() {
    let (doc, _) = vector("test null member with null");
    let p = json!([{"op": "test", "path": "/a/n"}]);
    let strict = json!([{"op": "test", "path": "/a/n", "value": null}]);
    check(TEST_MISSING_VALUE, &doc, &patch_of(&p), &patch_of(&strict));
}

#[test]
fn pointer_with_an_invalid_escape() {
    let (doc, p) = vector("invalid escape ~2");
    let (_, strict) = vector("key with ~0 escape");
    check(INVALID_ESCAPE, &doc, &patch_of(&p), &patch_of(&strict));
    let trailing = json!([{"op": "add", "path": "/a/x~", "value": 1}]);
    check(INVALID_ESCAPE, &doc, &patch_of(&trailing), &patch_of(&strict));
}

#[test]
fn pointer_without_a_leading_slash() {
    // The vector's "metadata/labels/z" fails in v4 (the first segment is dropped); with one more
    // segment in front it works.
    let (doc, _) = vector("path without leading slash");
    let p = json!([{"op": "add", "path": "x/metadata/labels/z", "value": "x"}]);
    let strict = json!([{"op": "add", "path": "/metadata/labels/z", "value": "x"}]);
    check(NO_LEADING_SLASH, &doc, &patch_of(&p), &patch_of(&strict));
    assert_eq!(apply(&doc, &patch_of(&p)).unwrap()["metadata"]["labels"]["z"], "x");
}

#[test]
fn test_passing_only_by_v4_comparison() {
    // A value copied from a null the patch added is the text `null`, which v4 compares equal to {}.
    let (doc, _) = vector("add null value");
    let setup = json!([
        {"op": "add", "path": "/metadata/labels/z", "value": null},
        {"op": "copy", "from": "/metadata/labels/z", "path": "/metadata/labels/y"}
    ]);
    let mut p = setup.clone();
    p.as_array_mut().unwrap().push(json!({"op": "test", "path": "/metadata/labels/y", "value": {}}));
    // (Testing the copy against null fails in v4; the original added null does test equal.)
    let mut strict = setup;
    strict.as_array_mut().unwrap().push(json!({"op": "test", "path": "/metadata/labels/z", "value": null}));
    check(TEST_V4_EQUALITY, &doc, &patch_of(&p), &patch_of(&strict));
}

#[test]
fn move_into_its_own_child() {
    let (doc, strict) = vector("move array element");
    let p = json!([{"op": "move", "from": "/arr/0", "path": "/arr/0/y"}]);
    check(MOVE_INTO_CHILD, &doc, &patch_of(&p), &patch_of(&strict));
}

#[test]
fn operation_with_a_duplicate_member() {
    let (doc, strict) = vector("extra unknown member in op");
    let p = decode_patch(br#"[{"op":"add","path":"/zzz","path":"/t","value":1}]"#).unwrap();
    check(DUPLICATE_MEMBER, &doc, &p, &patch_of(&strict));
}

#[test]
fn every_kind_has_a_test_above() {
    assert_eq!(leniency::ALL_KINDS.len(), 14);
}

#[test]
fn analysis_follows_the_patched_document_and_stops_at_a_failure() {
    let (doc, _) = vector("replace missing key, parent exists");
    // The second replace targets a key the first op created: not a leniency.
    let p = json!([
        {"op": "add", "path": "/metadata/labels/new", "value": "1"},
        {"op": "replace", "path": "/metadata/labels/new", "value": "2"},
        {"op": "replace", "path": "/metadata/labels/other", "value": "3"},
        {"op": "remove", "path": "/nope"},
        {"op": "replace", "path": "/metadata/labels/never", "value": "4"}
    ]);
    let found = leniencies(&doc, &patch_of(&p));
    assert_eq!(found, vec![Leniency { op_index: 2, path: "/metadata/labels/other".into(), what: REPLACE_MISSING_KEY }]);
}

#[test]
fn every_accepted_vector_gets_the_expected_findings() {
    let expected = |name: &str| -> Vec<&'static str> {
        match name {
            "replace missing key, parent exists" => vec![REPLACE_MISSING_KEY],
            "add at negative index -1"
            | "add at negative index -2"
            | "add at negative index -3"
            | "replace at negative index -1"
            | "remove at negative index -1" => vec![NEGATIVE_INDEX],
            "index with leading zero" => vec![LEADING_ZERO],
            "add missing value field" => vec![ADD_MISSING_VALUE],
            "replace missing value field" => vec![REPLACE_MISSING_VALUE],
            "invalid escape ~2" => vec![INVALID_ESCAPE],
            "copy missing from" => vec![COPY_MISSING_FROM],
            "test missing key with null" => vec![TEST_MISSING_NULL],
            _ => vec![],
        }
    };
    let mut mismatches = Vec::new();
    let mut accepted = 0;
    for v in vectors() {
        if v["ok"] != json!(true) {
            continue;
        }
        accepted += 1;
        let name = v["name"].as_str().unwrap();
        let found = kinds(&v["doc"], &patch_of(&v["patch"]));
        if found != expected(name) {
            mismatches.push(format!("{name}: found {found:?}, expected {:?}", expected(name)));
        }
    }
    assert!(accepted > 0);
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// Applying and noting the leniencies in one pass gives what `apply` and `leniencies` give apart,
/// on every vector whose patch decodes.
#[test]
fn one_pass_equals_apply_and_leniencies() {
    let mut checked = 0;
    for v in vectors() {
        let bytes = match &v["patch"] {
            Value::String(text) => text.clone().into_bytes(),
            other => serde_json::to_vec(other).unwrap(),
        };
        let Ok(patch) = decode_patch(&bytes) else {
            continue;
        };
        let doc = &v["doc"];
        let (applied, noted) = apiserver_jsonpatch::apply_noting_leniencies(doc, &patch);
        let apart = apiserver_jsonpatch::apply(doc, &patch);
        assert_eq!(
            applied.as_ref().map_err(ToString::to_string),
            apart.as_ref().map_err(ToString::to_string),
            "{}",
            v["name"]
        );
        assert_eq!(noted, leniencies(doc, &patch), "{}", v["name"]);
        checked += 1;
    }
    assert!(checked > 50, "only {checked} vectors with a decodable patch");
}
