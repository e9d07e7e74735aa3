//! Behaviour of v4 beyond the vector file, worked out from the library's source (patch.go of
//! v4.13.0) and Go's encoding/json.

use apiserver_jsonpatch::{
    apply, apply_bytes, apply_json, decode_patch, ApplyError, DecodeError, Error, Stage, ACCUMULATED_COPY_SIZE_LIMIT,
};
use serde_json::{json, Value};

fn run(doc: Value, patch: Value) -> Result<Value, Error> {
    apply_bytes(&doc, &serde_json::to_vec(&patch).unwrap())
}

fn err_text(doc: Value, patch: Value) -> String {
    run(doc, patch).unwrap_err().to_string()
}

#[test]
fn empty_and_null_patches_change_nothing() {
    for bytes in [&b""[..], b"null", b" [ ] ", b"\nnull\n"] {
        let p = decode_patch(bytes).unwrap();
        assert!(p.is_empty());
        assert_eq!(p.len(), 0);
    }
    let doc = json!({"a": 1});
    assert_eq!(apply_bytes(&doc, b"").unwrap(), doc);
}

#[test]
fn decode_errors_have_go_texts() {
    let cases: &[(&[u8], &str)] = &[
        (b" ", "unexpected end of JSON input"),
        (b"[{\"op\":\"add\"", "unexpected end of JSON input"),
        (b"[{\"op\":\"add\"}] x", "invalid character 'x' after top-level value"),
        (b"\"W3t9XQ==\"", "json: cannot unmarshal string into Go value of type jsonpatch.Patch"),
        (b"true", "json: cannot unmarshal bool into Go value of type jsonpatch.Patch"),
        (b"[{}, [1]]", "json: cannot unmarshal array into Patch.1 of type jsonpatch.Operation"),
        (b"[\"add\"]", "json: cannot unmarshal string into Patch.0 of type jsonpatch.Operation"),
    ];
    for (bytes, want) in cases {
        let e = decode_patch(bytes).unwrap_err();
        assert_eq!(e.to_string(), *want, "{}", String::from_utf8_lossy(bytes));
        assert_eq!(Error::from(e).stage(), Stage::Decode);
    }
    assert!(matches!(decode_patch(b"{").unwrap_err(), DecodeError::Syntax { offset: 1, .. }));
}

#[test]
fn null_element_is_an_operation_of_unknown_kind() {
    let e = err_text(json!({}), json!([null]));
    assert_eq!(e, "Unexpected kind: unknown");
    let p = decode_patch(b"[null]").unwrap();
    assert_eq!(p.len(), 1);
    assert!(p.operations()[0].is_empty());
}

#[test]
fn operation_members_are_read_like_go() {
    // Escapes in member names and values are decoded; the last duplicate wins.
    let got = apply_bytes(&json!({"s": 1, "t": 2}), br#"[{"\u006fp":"\u0072emove","path":"/s","path":"/t"}]"#).unwrap();
    assert_eq!(got, json!({"s": 1}));
    // A non-string op is "unknown"; a non-string path has type-error texts that differ per op.
    assert_eq!(err_text(json!({}), json!([{"op": 1}])), "Unexpected kind: unknown");
    assert_eq!(
        err_text(json!({}), json!([{"op": "replace", "path": 5, "value": 1}])),
        "replace operation failed to decode path: json: cannot unmarshal number into Go value of type string"
    );
    assert_eq!(
        err_text(json!({}), json!([{"op": "replace", "value": 1}])),
        "replace operation failed to decode path: operation missing path field: missing value"
    );
    assert_eq!(
        err_text(json!({}), json!([{"op": "remove", "path": null}])),
        "remove operation failed to decode path: missing value"
    );
    assert_eq!(
        err_text(json!({"a": 1}), json!([{"op": "copy", "from": ["/a"], "path": "/b"}])),
        "copy operation failed to decode from: json: cannot unmarshal array into Go value of type string"
    );
    assert_eq!(
        err_text(json!({"a": 1}), json!([{"op": "test", "path": true, "value": 1}])),
        "test operation failed to decode path: json: cannot unmarshal bool into Go value of type string"
    );
    let p = decode_patch(br#"[{"op":"add","path":"/x","value":1.50,"note":null}]"#).unwrap();
    assert_eq!(p.operations()[0]["value"], json!(1.5));
    assert_eq!(p.operations()[0]["note"], Value::Null);
}

#[test]
fn text_before_the_first_slash_is_ignored() {
    let got = run(json!({"s": 1}), json!([{"op": "replace", "path": "anything/s", "value": 2}]));
    assert_eq!(got.unwrap(), json!({"s": 2}));
    assert_eq!(
        err_text(json!({"s": 1}), json!([{"op": "replace", "path": "s", "value": 2}])),
        "replace operation does not apply: doc is missing path: s: missing value"
    );
}

#[test]
fn array_indices_follow_strconv_atoi() {
    let doc = json!({"a": [0, 1, 2]});
    let got = run(doc.clone(), json!([{"op": "replace", "path": "/a/+1", "value": "x"}])).unwrap();
    assert_eq!(got, json!({"a": [0, "x", 2]}));
    let got = run(doc.clone(), json!([{"op": "remove", "path": "/a/-0"}])).unwrap();
    assert_eq!(got, json!({"a": [1, 2]}));
    assert_eq!(
        err_text(doc.clone(), json!([{"op": "add", "path": "/a/-5", "value": 1}])),
        "error in add for path: '/a/-5': Unable to access invalid index: -5: invalid index referenced"
    );
    assert_eq!(
        err_text(doc.clone(), json!([{"op": "remove", "path": "/a/-4"}])),
        "error in remove for path: '/a/-4': Unable to access invalid index: -4: invalid index referenced"
    );
    assert_eq!(
        err_text(doc.clone(), json!([{"op": "replace", "path": "/a/-", "value": 1}])),
        "replace operation does not apply: doc is missing key: /a/-: missing value"
    );
    assert_eq!(
        err_text(doc.clone(), json!([{"op": "test", "path": "/a/x", "value": 1}])),
        "error in test for path: '/a/x': strconv.Atoi: parsing \"x\": invalid syntax"
    );
    assert_eq!(
        err_text(doc.clone(), json!([{"op": "copy", "from": "/a/7", "path": "/b"}])),
        "error in copy for from: '/a/7': Unable to access invalid index: 7: invalid index referenced"
    );
    assert_eq!(
        err_text(doc, json!([{"op": "move", "from": "/a/9", "path": "/b"}])),
        "error in move for path: '9': Unable to access invalid index: 9: invalid index referenced"
    );
}

#[test]
fn test_compares_scalars_by_their_text() {
    let doc = json!({"n": 1, "f": 1.5, "s": "A", "h": "a<b", "o": {"k": [1, {"z": null}]}});
    let pass = |patch: &[u8]| apply_bytes(&doc, patch).is_ok();
    assert!(pass(br#"[{"op":"test","path":"/n","value":1}]"#));
    assert!(!pass(br#"[{"op":"test","path":"/n","value":1.0}]"#));
    assert!(!pass(br#"[{"op":"test","path":"/n","value":1e0}]"#));
    assert!(pass(br#"[{"op":"test","path":"/f","value":1.5}]"#));
    assert!(!pass(br#"[{"op":"test","path":"/f","value":1.50}]"#));
    assert!(pass(br#"[{"op":"test","path":"/s","value":"A"}]"#));
    assert!(!pass(br#"[{"op":"test","path":"/s","value":"\u0041"}]"#));
    // The apiserver's encoder writes '<' as \u003c; only that spelling matches.
    assert!(!pass(br#"[{"op":"test","path":"/h","value":"a<b"}]"#));
    assert!(pass(br#"[{"op":"test","path":"/h","value":"a\u003cb"}]"#));
    // Objects compare member by member, whatever the order or whitespace.
    assert!(pass(br#"[{"op":"test","path":"/o","value":{ "k" : [ 1 , {"z":null} ] }}]"#));
    assert!(!pass(br#"[{"op":"test","path":"/o","value":{"k":[1,{}]}}]"#));
    // The whole document.
    assert!(pass(
        br#"[{"op":"test","path":"","value":{"n":1,"f":1.5,"s":"A","h":"a\u003cb","o":{"k":[1,{"z":null}]}}}]"#
    ));
    assert_eq!(
        apply_bytes(&doc, br#"[{"op":"test","path":"","value":{}}]"#).unwrap_err().to_string(),
        "testing value  failed: test failed"
    );
    // A missing member and a null member both pass against null, and without a value member.
    assert!(pass(br#"[{"op":"test","path":"/o/k/1/z","value":null}]"#));
    assert!(pass(br#"[{"op":"test","path":"/o/k/1/nope"}]"#));
    assert!(!pass(br#"[{"op":"test","path":"/n"}]"#));
}

#[test]
fn go_panics_are_reported() {
    let panic = |doc: Value, patch: Value| match run(doc, patch) {
        Err(Error::Apply(ApplyError::Panic { message, index })) => (index, message),
        other => panic!("expected a panic, got {other:?}"),
    };
    // Comparing arrays that hold null dereferences a nil node.
    let (i, m) = panic(json!({"a": [null]}), json!([{"op": "test", "path": "/a", "value": [null]}]));
    assert_eq!((i, m.as_str()), (0, "runtime error: invalid memory address or nil pointer dereference"));
    let (_, m) = panic(json!({"a": [1]}), json!([{"op": "test", "path": "/a", "value": [null]}]));
    assert_eq!(m, "runtime error: invalid memory address or nil pointer dereference");
    // So does a root test or replace without a value member.
    panic(json!({}), json!([{"op": "test", "path": ""}]));
    panic(json!({}), json!([{"op": "replace", "path": ""}]));
    // A value copied from a null that the patch added is the text "null", which decodes to a nil
    // map: writing into it panics.
    let (i, m) = panic(
        json!({}),
        json!([
            {"op": "add", "path": "/x", "value": null},
            {"op": "copy", "from": "/x", "path": "/y"},
            {"op": "add", "path": "/y/z", "value": 1}
        ]),
    );
    assert_eq!((i, m.as_str()), (2, "assignment to entry in nil map"));
    // Without the copy, the added null cannot be walked into: an ordinary error.
    assert_eq!(
        err_text(
            json!({}),
            json!([
                {"op": "add", "path": "/x", "value": null},
                {"op": "add", "path": "/x/z", "value": 1}
            ])
        ),
        "add operation does not apply: doc is missing path: \"/x/z\": missing value"
    );
    // Before anything is written into it, that copy is compared as a nil map: equal to {},
    // unequal to null.
    let copied_null = json!([
        {"op": "add", "path": "/x", "value": null},
        {"op": "copy", "from": "/x", "path": "/y"}
    ]);
    let with_test = |value: Value| {
        let mut p = copied_null.clone();
        p.as_array_mut().unwrap().push(json!({"op": "test", "path": "/y", "value": value}));
        run(json!({}), p)
    };
    assert!(with_test(json!({})).is_ok());
    assert!(with_test(json!([])).is_err());
    assert_eq!(with_test(Value::Null).unwrap_err().to_string(), "testing value /y failed: test failed");
    // A null document is a nil map too.
    let (_, m) = panic(Value::Null, json!([{"op": "add", "path": "/a", "value": 1}]));
    assert_eq!(m, "assignment to entry in nil map");
}

#[test]
fn root_operations() {
    let doc = json!({"a": 1});
    assert_eq!(run(doc.clone(), json!([{"op": "replace", "path": "", "value": [1, 2]}])).unwrap(), json!([1, 2]));
    assert_eq!(
        err_text(doc.clone(), json!([{"op": "replace", "path": "", "value": "x"}])),
        "replace operation value must be object or array: %!w(<nil>)"
    );
    assert_eq!(
        err_text(doc.clone(), json!([{"op": "replace", "path": "", "value": null}])),
        "replace operation value must be object or array: %!w(<nil>)"
    );
    // After replacing the root with an array, array indices apply to it.
    assert_eq!(
        run(
            doc,
            json!([
                {"op": "replace", "path": "", "value": [1]},
                {"op": "add", "path": "/0", "value": 0}
            ])
        )
        .unwrap(),
        json!([0, 1])
    );
    assert_eq!(run(json!([1, 2]), json!([{"op": "remove", "path": "/-1"}])).unwrap(), json!([1]));
}

#[test]
fn move_is_remove_then_add() {
    // The destination is looked up after removal: elements shift under the moved index.
    let doc = json!({"arr": [{"x": 1}, {"x": 2}]});
    let got = run(doc, json!([{"op": "move", "from": "/arr/0", "path": "/arr/0/y"}])).unwrap();
    assert_eq!(got, json!({"arr": [{"x": 2, "y": {"x": 1}}]}));
    assert_eq!(
        err_text(json!({"a": {}}), json!([{"op": "move", "from": "/b/c", "path": "/a/c"}])),
        "move operation does not apply: doc is missing from path: /b/c: missing value"
    );
    assert_eq!(
        err_text(json!({"a": {}}), json!([{"op": "move", "from": "/a", "path": "/b/c"}])),
        "move operation does not apply: doc is missing destination path: /b/c: missing value"
    );
    assert_eq!(
        err_text(json!({"a": {}}), json!([{"op": "move", "from": "/a", "path": "/b/c", "x": 1, "y": 2}])),
        "move operation does not apply: doc is missing destination path: /b/c: missing value"
    );
    assert_eq!(
        err_text(json!({"a": 1}), json!([{"op": "move", "from": "/a"}])),
        "move operation failed to decode path: operation missing path field: missing value"
    );
}

#[test]
fn copy_errors_and_size_limit() {
    assert_eq!(
        err_text(json!({"a": 1}), json!([{"op": "copy", "path": "/b"}])),
        "copy operation failed to decode from: operation, missing from field: missing value"
    );
    assert_eq!(
        err_text(json!({"a": 1}), json!([{"op": "copy", "from": "/a"}])),
        "copy operation failed to decode path: missing value"
    );
    assert_eq!(
        err_text(json!({"a": 1}), json!([{"op": "copy", "from": "/x/y", "path": "/b"}])),
        "copy operation does not apply: doc is missing from path: /x/y: missing value"
    );
    assert_eq!(
        err_text(json!({"a": 1}), json!([{"op": "copy", "from": "/a", "path": "/x/y"}])),
        "copy operation does not apply: doc is missing destination path: /x/y: missing value"
    );
    assert_eq!(
        err_text(json!({"a": [1]}), json!([{"op": "copy", "from": "/a/0", "path": "/a/5"}])),
        "error while adding value during copy: Unable to access invalid index: 5: invalid index referenced"
    );
    // Each copy counts the bytes of the copied JSON; the sum may not pass 3 MiB.
    let big = "x".repeat(1024 * 1024); // 1 MiB + 2 quote bytes per copy
    let doc = json!({ "big": big });
    let copies = |n: usize| {
        Value::Array((0..n).map(|i| json!({"op": "copy", "from": "/big", "path": format!("/c{i}")})).collect())
    };
    assert!(run(doc.clone(), copies(2)).is_ok());
    let copy_size = 1024 * 1024 + 2;
    match run(doc, copies(3)).unwrap_err() {
        Error::Apply(ApplyError::CopySizeLimit { index, accumulated, limit }) => {
            assert_eq!((index, accumulated, limit), (2, 3 * copy_size, ACCUMULATED_COPY_SIZE_LIMIT));
        }
        other => panic!("unexpected {other:?}"),
    }
    let msg = format!(
        "Unable to complete the copy, the accumulated size increase of copy is {}, exceeding the limit 3145728",
        3 * copy_size
    );
    let e = ApplyError::CopySizeLimit { index: 2, accumulated: 3 * copy_size, limit: 3145728 };
    assert_eq!(e.to_string(), msg);
}

#[test]
fn copy_size_counts_go_marshal_bytes() {
    // '<' becomes \u003c (6 bytes) when Go marshals the copied value.
    let lt = "<".repeat(524_288); // 3 MiB once escaped, plus the quotes
    let doc = json!({ "s": lt });
    let e = run(doc, json!([{"op": "copy", "from": "/s", "path": "/t"}])).unwrap_err();
    assert!(matches!(e, Error::Apply(ApplyError::CopySizeLimit { accumulated: 3_145_730, .. })), "{e:?}");
}

#[test]
fn apply_json_is_byte_exact() {
    let doc = br#"{"b": 1, "a": {"z": 1, "y": "<"}, "n": 1.0, "e": 1E2 }"#;
    let patch = decode_patch(br#"[{"op":"add","path":"/c","value":[ 1 ,2 ]}]"#).unwrap();
    let out = apply_json(doc, &patch).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), r#"{"a":{"z":1,"y":"\u003c"},"b":1,"c":[1,2],"e":1E2,"n":1.0}"#);
    assert_eq!(apply_json(b"", &patch).unwrap(), b"");
    assert_eq!(
        apply_json(b"5", &patch).unwrap_err().to_string(),
        "json: cannot unmarshal number into Go value of type jsonpatch.partialDoc"
    );
    assert_eq!(
        apply_json(b" [1]", &patch).unwrap_err().to_string(),
        "json: cannot unmarshal array into Go value of type jsonpatch.partialDoc"
    );
    assert_eq!(apply_json(b"{", &patch).unwrap_err().to_string(), "unexpected end of JSON input");
}

#[test]
fn numbers_keep_their_kind() {
    let got = run(json!({"f": 1.0}), json!([{"op": "add", "path": "/i", "value": 2}])).unwrap();
    assert!(got["f"].is_f64());
    assert!(got["i"].is_u64());
    let patch = decode_patch(br#"[{"op":"add","path":"/n","value":1e400}]"#).unwrap();
    assert_eq!(apply(&json!({}), &patch).unwrap_err(), ApplyError::Unrepresentable { number: "1e400".into() });
    assert_eq!(apply_json(b"{}", &patch).unwrap(), br#"{"n":1e400}"#);
    assert_eq!(patch.operations()[0]["value"], json!("1e400"));
}

#[test]
fn invalid_utf8_in_a_patch_is_accepted_as_go_does() {
    let got = apply_bytes(&json!({}), b"[{\"op\":\"add\",\"path\":\"/k\",\"value\":\"a\xffb\"}]").unwrap();
    assert_eq!(got, json!({"k": "a\u{fffd}b"}));
}

#[test]
fn nesting_as_deep_as_go_allows() {
    // Go's decoder accepts 10000 levels; the patch array and operation object take two.
    let depth = 9_990;
    let value = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let patch = format!(
        r#"[{{"op":"add","path":"/d","value":{value}}},{{"op":"test","path":"/d","value":{value}}},{{"op":"add","path":"/e","value":1}}]"#
    );
    let p = decode_patch(patch.as_bytes()).unwrap();
    // The test converts every level of the value and compares it, without recursion.
    let out = apply_json(b"{}", &p).unwrap();
    assert_eq!(out, format!(r#"{{"d":{value},"e":1}}"#).as_bytes());
    assert_eq!(p.operations().len(), 3);
    assert!(apiserver_jsonpatch::leniencies(&json!({}), &p).is_empty());
    drop(p);

    let too_deep = format!("[{}{}]", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(decode_patch(too_deep.as_bytes()).unwrap_err().to_string(), "invalid character '[' exceeded max depth");
}

#[test]
fn patches_can_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<apiserver_jsonpatch::Patch>();
    send_sync::<Error>();
}
