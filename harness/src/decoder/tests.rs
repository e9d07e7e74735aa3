//! The decoder against what Go's decoder does with the same bytes (observed with
//! sigs.k8s.io/json, Go's encoding/json and sigs.k8s.io/yaml wired as the apiserver wires them).

use serde_json::{json, Value};

use super::interpret::ParseGroupVersionError;
use super::*;

const V1: ReviewVersion = ReviewVersion::V1;

fn decoded(body: &[u8]) -> Decoded {
    match read(body, V1).result {
        Ok(d) => d,
        Err(e) => panic!("{:?} was rejected: {e:?}", String::from_utf8_lossy(body)),
    }
}

fn rejected(body: &[u8]) -> Rejected {
    match read(body, V1).result {
        Ok(d) => panic!("{:?} decoded: {d:?}", String::from_utf8_lossy(body)),
        Err(e) => e,
    }
}

fn response(body: &[u8]) -> Value {
    decoded(body).review.get("response").cloned().unwrap_or(Value::Null)
}

fn first_error(body: &[u8]) -> String {
    decoded(body).first_error().map(|e| e.message.clone()).unwrap_or_default()
}

fn wrap(response: &str) -> Vec<u8> {
    format!(r#"{{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{response}}}"#).into_bytes()
}

/// `template` with each `@` replaced by the next of `fills` (raw bytes, not UTF-8).
fn bytes(template: &str, fills: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut fills = fills.iter();
    for part in template.split('@').enumerate() {
        if part.0 > 0 {
            out.extend_from_slice(fills.next().expect("a fill per @"));
        }
        out.extend_from_slice(part.1.as_bytes());
    }
    out
}

#[test]
fn invalid_utf8_becomes_one_replacement_character_per_bad_byte() {
    let body = bytes(r#"{"response":{"uid":"u","warnings":["a@b"],"x@":"@"}}"#, &[b"\xff", b"\xfe", b"\xfd"]);
    assert_eq!(response(&body), json!({"uid": "u", "warnings": ["a\u{fffd}b"]}));
    let r = response(&bytes(r#"{"response":{"warnings":["a@Zb"]}}"#, &[b"\xe2\x82"]));
    assert_eq!(r["warnings"], json!(["a\u{fffd}\u{fffd}Zb"]));
    let r = response(&bytes(r#"{"response":{"warnings":["@|@"]}}"#, &[b"\xed\xa0\x80", b"\xc0\xaf"]));
    assert_eq!(r["warnings"], json!(["\u{fffd}\u{fffd}\u{fffd}|\u{fffd}\u{fffd}"]));
    let r = response(&bytes(r#"{"response":{"status":{"message":"bad@msg"}}}"#, &[b"\xff"]));
    assert_eq!(r["status"]["message"], "bad\u{fffd}msg");
    // Outside a string it is a syntax error, the byte quoted as its Latin-1 rune.
    let body = bytes("{}@", &[b"\xff"]);
    assert_eq!(rejected(&body), Rejected::Syntax("invalid character 'ÿ' after top-level value".into()));
    // A key with a bad byte is another key.
    let body = bytes(r#"{"respons@":{}}"#, &[b"\xff"]);
    assert!(decoded(&body).review.get("response").is_none());
}

#[test]
fn nesting_is_limited_at_ten_thousand_levels_anywhere() {
    let nested = |n: usize| format!(r#"{{"x":{}{}}}"#, "[".repeat(n), "]".repeat(n)).into_bytes();
    assert!(read(&nested(9_999), V1).result.is_ok());
    assert_eq!(rejected(&nested(10_000)), Rejected::Syntax("invalid character '[' exceeded max depth".into()));
    let objects = format!(r#"{{"x":{}1{}}}"#, r#"{"a":"#.repeat(10_000), "}".repeat(10_000));
    assert_eq!(rejected(objects.as_bytes()), Rejected::Syntax("invalid character '{' exceeded max depth".into()));
    // Inside a known field too: status.details is an unknown-free struct, its unknown member is skipped.
    let deep = format!(r#"{{"uid":"u","status":{{"details":{{"x":{}{}}}}}}}"#, "[".repeat(300), "]".repeat(300));
    assert_eq!(response(&wrap(&deep))["status"]["details"], json!({}));
}

#[test]
fn field_names_are_case_sensitive_but_interpret_is_not() {
    assert!(decoded(br#"{"Response":{"uid":"u"}}"#).review.get("response").is_none());
    let r = response(&wrap(r#"{"UID":"u","Allowed":true}"#));
    assert_eq!(r, json!({}));
    let d = decoded(br#"{"APIVersion":"admission.k8s.io/v1","Kind":"AdmissionReview","response":{}}"#);
    assert_eq!(d.interpreted.as_ref().unwrap().kind, "AdmissionReview");
    assert_eq!(d.selected, Ok(V1));
    assert_eq!(d.type_meta(), TypeMeta::default());
    // The last of the keys that fold together wins; the Kelvin sign folds to K.
    let d = decoded(br#"{"kind":"AdmissionReview","Kind":"Foo"}"#);
    assert_eq!(
        d.selected.unwrap_err().to_string(),
        "no kind \"Foo\" is registered for version \"admission.k8s.io/v1\" in scheme"
    );
    let d = decoded("{\"\u{212A}ind\":\"X\",\"apiVerſion\":\"v9\"}".as_bytes());
    assert_eq!(d.interpreted, Ok(TypeMeta { api_version: "v9".into(), kind: "X".into() }));
}

#[test]
fn repeated_keys_merge_as_go_does() {
    let r = response(&wrap(
        r#"{"uid":"u1","allowed":true,"warnings":["w"]},"response":{"allowed":false,"status":{"code":403,"message":"m"}},"response":{"status":{"message":"m2"},"auditAnnotations":{"a":"1"}},"response":{"auditAnnotations":{"b":"2","a":"3"}}"#,
    ));
    assert_eq!(
        r,
        json!({"uid": "u1", "allowed": false, "warnings": ["w"], "status": {"code": 403, "message": "m2"}, "auditAnnotations": {"a": "3", "b": "2"}})
    );
    let r = response(&wrap(r#"{"allowed":true,"allowed":null,"warnings":["a","b"],"warnings":["c"]}"#));
    assert_eq!(r, json!({"allowed": true, "warnings": ["c"]}));
    // An element that is null keeps what the earlier array had there.
    let r = response(&wrap(r#"{"warnings":["a","b"],"warnings":[null,"c"]}"#));
    assert_eq!(r["warnings"], json!(["a", "c"]));
    assert!(decoded(&wrap(r#"{"uid":"u"},"response":null"#)).review.get("response").is_none());
    let d = decoded(br#"{"kind":"X","kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1"}"#);
    assert_eq!(d.selected, Ok(V1));
    let patch = decoded(&wrap(r#"{"patch":"W10=","patch":"e30="}"#)).patch.unwrap().unwrap();
    assert_eq!(patch.bytes, b"{}");
}

#[test]
fn numbers_are_read_as_go_reads_them_into_each_type() {
    assert_eq!(response(&wrap(r#"{"status":{"code":400}}"#))["status"]["code"], 400);
    assert_eq!(response(&wrap(r#"{"status":{"code":-0}}"#))["status"]["code"], 0);
    assert_eq!(response(&wrap(r#"{"status":{"code":null}}"#))["status"], json!({}));
    for literal in ["400.0", "4e2", "4E2", "0.5", "-0.0", "1e10", "2147483648", "-2147483649"] {
        assert_eq!(
            first_error(&wrap(&format!(r#"{{"status":{{"code":{literal}}}}}"#))),
            format!("json: cannot unmarshal number {literal} into Go struct field Status.response.status.code of type int32")
        );
    }
    assert_eq!(
        first_error(&wrap(r#"{"status":{"code":"400"}}"#)),
        "json: cannot unmarshal string into Go struct field Status.response.status.code of type int32"
    );
    assert_eq!(
        first_error(&wrap(r#"{"allowed":1}"#)),
        "json: cannot unmarshal number into Go struct field AdmissionResponse.response.allowed of type bool"
    );
    assert_eq!(
        first_error(&wrap(r#"{"uid":5}"#)),
        "json: cannot unmarshal number into Go struct field AdmissionResponse.response.uid of type types.UID"
    );
    assert_eq!(
        first_error(&wrap(r#"{"status":{"details":{"retryAfterSeconds":1.5}}}"#)),
        "json: cannot unmarshal number 1.5 into Go struct field StatusDetails.response.status.details.retryAfterSeconds of type int32"
    );
    assert_eq!(
        first_error(&wrap(r#"{"status":{"metadata":{"remainingItemCount":1.5}}}"#)),
        "json: cannot unmarshal number 1.5 into Go struct field ListMeta.response.status.metadata.remainingItemCount of type int64"
    );
    // An unknown member is skipped whatever it holds.
    assert_eq!(response(&wrap(r#"{"x":1e999999,"uid":"u"}"#)), json!({"uid": "u"}));
    // The first error in document order is the one reported.
    assert_eq!(
        first_error(&wrap(r#"{"warnings":[1],"allowed":"yes"}"#)),
        "json: cannot unmarshal number into Go struct field AdmissionResponse.response.warnings of type string"
    );
}

#[test]
fn null_is_nothing_for_scalars_and_nil_for_the_rest() {
    let r = response(&wrap(
        r#"{"uid":null,"allowed":null,"patch":null,"patchType":null,"warnings":null,"status":null,"auditAnnotations":null}"#,
    ));
    assert_eq!(r, json!({}));
    assert!(decoded(&wrap(r#"{"patch":null}"#)).patch.is_none());
    let r = response(&wrap(r#"{"warnings":[null,"x"],"auditAnnotations":{"a":null}}"#));
    assert_eq!(r, json!({"warnings": ["", "x"], "auditAnnotations": {"a": ""}}));
    let d = decoded(br#"{"apiVersion":null,"kind":"AdmissionReview"}"#);
    assert_eq!(d.selected, Ok(V1));
    assert_eq!(d.type_meta().api_version, "");
}

#[test]
fn byte_slices_take_base64_or_byte_arrays() {
    let p = |body: &str| decoded(&wrap(body)).patch;
    let ok = |body: &str| p(body).unwrap().unwrap();
    assert_eq!(ok(r#"{"patch":"W10="}"#).bytes, b"[]");
    assert_eq!(ok(r#"{"patch":[91,93]}"#).bytes, b"[]");
    assert_eq!(ok(r#"{"patch":[91,93]}"#).form, FieldForm::ByteArray);
    assert_eq!(ok(r#"{"patch":"W1\n0="}"#).bytes, b"[]");
    assert_eq!(ok(r#"{"patch":""}"#).bytes, b"");
    for (patch, message) in [
        (r#""W10""#, "illegal base64 data at input byte 0"),
        (r#""-_8=""#, "illegal base64 data at input byte 0"),
        (r#""W1 0=""#, "illegal base64 data at input byte 2"),
        (
            "[256]",
            "json: cannot unmarshal number 256 into Go struct field AdmissionResponse.response.patch of type uint8",
        ),
        (
            "[-1]",
            "json: cannot unmarshal number -1 into Go struct field AdmissionResponse.response.patch of type uint8",
        ),
        (
            r#"["a"]"#,
            "json: cannot unmarshal string into Go struct field AdmissionResponse.response.patch of type uint8",
        ),
        ("{}", "json: cannot unmarshal object into Go struct field AdmissionResponse.response.patch of type []uint8"),
        ("5", "json: cannot unmarshal number into Go struct field AdmissionResponse.response.patch of type []uint8"),
    ] {
        let body = wrap(&format!(r#"{{"patch":{patch}}}"#));
        assert!(p(&format!(r#"{{"patch":{patch}}}"#)).unwrap().is_err(), "{patch}");
        assert_eq!(first_error(&body), message, "{patch}");
        assert!(decoded(&body).first_error().unwrap().patch.is_some());
    }
}

#[test]
fn other_types_name_the_go_type() {
    for (field, message) in [
        (r#""warnings":"w""#, "json: cannot unmarshal string into Go struct field AdmissionResponse.response.warnings of type []string"),
        (r#""auditAnnotations":{"a":1}"#, "json: cannot unmarshal number into Go struct field AdmissionResponse.response.auditAnnotations of type string"),
        (r#""auditAnnotations":[]"#, "json: cannot unmarshal array into Go struct field AdmissionResponse.response.auditAnnotations of type map[string]string"),
        (r#""status":"no""#, "json: cannot unmarshal string into Go struct field AdmissionResponse.response.status of type v1.Status"),
        (r#""patchType":1"#, "json: cannot unmarshal number into Go struct field AdmissionResponse.response.patchType of type v1.PatchType"),
        (r#""status":{"kind":5}"#, "json: cannot unmarshal number into Go struct field Status.response.status.kind of type string"),
        (r#""status":{"details":{"causes":[{"field":1}]}}"#, "json: cannot unmarshal number into Go struct field StatusCause.response.status.details.causes.field of type string"),
    ] {
        assert_eq!(first_error(&wrap(&format!("{{{field}}}"))), message, "{field}");
    }
    let top = |body: &str| first_error(body.as_bytes());
    assert_eq!(
        top(r#"{"response":[]}"#),
        "json: cannot unmarshal array into Go struct field AdmissionReview.response of type v1.AdmissionResponse"
    );
    assert_eq!(
        top(r#"{"request":{"uid":5}}"#),
        "json: cannot unmarshal number into Go struct field AdmissionRequest.request.uid of type types.UID"
    );
    assert_eq!(top(r#"{"request":{"uid":"u","object":{"any":[1,{"x":null}]},"dryRun":true}}"#), "");
    // A v1beta1 answer is decoded as the v1beta1 type (then refused by the conversion).
    let d =
        decoded(br#"{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"patchType":1}}"#);
    assert_eq!(d.selected, Ok(ReviewVersion::V1beta1));
    assert_eq!(
        d.first_error().unwrap().message,
        "json: cannot unmarshal number into Go struct field AdmissionResponse.response.patchType of type v1beta1.PatchType"
    );
}

#[test]
fn interpret_errors_and_group_versions() {
    let d = decoded(br#"{"kind":5}"#);
    let e = d.interpreted.unwrap_err();
    assert_eq!(e, InterpretError::NotAString { field: "kind", found: "number" });
    assert_eq!(e.to_string(), "json: cannot unmarshal number into Go struct field .kind of type string");
    let d = decoded(br#"{"apiVersion":{}}"#);
    assert_eq!(
        d.interpreted.unwrap_err().to_string(),
        "json: cannot unmarshal object into Go struct field .apiVersion of type string"
    );
    let e = decoded(br#"{"apiVersion":"a/b/c"}"#).selected.unwrap_err();
    assert_eq!(e, SelectError::GroupVersion(ParseGroupVersionError("a/b/c".into())));
    assert_eq!(e.to_string(), "unexpected GroupVersion string: a/b/c");
    let d = decoded(br#"{"apiVersion":"v1","kind":"AdmissionReview"}"#);
    let e = d.selected.clone().unwrap_err();
    assert_eq!(e, SelectError::NotRegistered { kind: "AdmissionReview".into(), group_version: "v1".into() });
    assert_eq!(e.to_string(), "no kind \"AdmissionReview\" is registered for version \"v1\" in scheme");
    assert_eq!(SchemaGvk::of(&d.type_meta()).to_string(), "/v1, Kind=AdmissionReview");
    let d = decoded(br#"{"apiVersion":"admission.k8s.io/v1"}"#);
    assert_eq!(d.selected, Ok(V1));
    assert_eq!(SchemaGvk::of(&d.type_meta()).to_string(), "admission.k8s.io/v1, Kind=");
    let d = decoded(b"{}");
    assert_eq!(d.selected, Ok(V1));
    assert_eq!(SchemaGvk::of(&d.type_meta()).to_string(), "/, Kind=");
    let d = decoded("{\"kind\":\"Admission\u{fffd}Review\"}".as_bytes());
    assert!(d.selected.unwrap_err().to_string().starts_with("no kind \"Admission\u{fffd}Review\""));
}

#[test]
fn framing_and_syntax() {
    assert_eq!(rejected(b""), Rejected::Empty);
    assert!(read(b" \t\r\n{} \n", V1).result.is_ok());
    for (body, message) in [
        (&b"{} xyz"[..], "invalid character 'x' after top-level value"),
        (b"{}{}", "invalid character '{' after top-level value"),
        (b"{}\x00", "invalid character '\\x00' after top-level value"),
        (br#"{"a":1"#, "unexpected end of JSON input"),
        (br#"{"a":1,}"#, "invalid character '}' looking for beginning of object key string"),
        (b"{/*c*/}", "invalid character '/' looking for beginning of object key string"),
        (b"{'a':1}", "invalid character '\\'' looking for beginning of object key string"),
        (br#"{"a":"\x41"}"#, "invalid character 'x' in string escape code"),
        (br#"{"a":"\u12G4"}"#, "invalid character 'G' in \\u hexadecimal character escape"),
        (b"{\"a\":\"\t\"}", "invalid character '\\t' in string literal"),
        (br#"{"a":0400}"#, "invalid character '4' after object key:value pair"),
        ("\u{a0}{}".as_bytes(), "invalid character 'Â' looking for beginning of value"),
        (b"\x0c{}", "invalid character '\\f' looking for beginning of value"),
    ] {
        assert_eq!(read(body, V1).framing, Framing::Json, "{body:?}");
        assert_eq!(rejected(body), Rejected::Syntax(message.into()), "{:?}", String::from_utf8_lossy(body));
    }
    // Escapes are resolved before keys match; lone surrogates become U+FFFD; DEL is accepted.
    let r = response(br#"{"respons\u0065":{"\u0075id":"\ud800x\u007f","warnings":["\ud83d\ude00"]}}"#);
    assert_eq!(r, json!({"uid": "\u{fffd}x\u{7f}", "warnings": ["\u{1f600}"]}));
}

#[test]
fn a_body_not_starting_with_a_brace_is_read_as_yaml() {
    let yaml = |body: &[u8]| read(body, V1);
    // A BOM is not whitespace: the YAML decoder takes the body, and reads the JSON in it.
    let r = yaml(b"\xef\xbb\xbf{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"u\",\"allowed\":true}}");
    assert_eq!(r.framing, Framing::Yaml);
    assert!(r.unsure.is_some());
    assert_eq!(r.result.unwrap().review["response"], json!({"uid": "u", "allowed": true}));
    let r = yaml(b"apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\nresponse:\n  uid: u\n  allowed: true\n");
    assert_eq!(r.result.unwrap().review["response"], json!({"uid": "u", "allowed": true}));
    // Sure: a scalar or a sequence is no object; nothing at all decodes to no response.
    let r = yaml(b"<html>oops</html>");
    assert!(r.unsure.is_none());
    let Err(Rejected::NotAnObject(e)) = r.result else { panic!("{:?}", r.result) };
    assert_eq!(e, InterpretError::NotAnObject { found: "string" });
    assert_eq!(
        e.to_string(),
        r#"json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#
    );
    assert!(matches!(yaml(b"[{}]").result, Err(Rejected::NotAnObject(m)) if m.to_string().contains("unmarshal array")));
    for nothing in [&b"null"[..], b"   ", b"# a comment\n", b"~"] {
        let r = yaml(nothing);
        assert!(r.unsure.is_none(), "{nothing:?}");
        assert!(r.result.unwrap().review.get("response").is_none(), "{nothing:?}");
    }
    let r = yaml(b"a: [\n");
    assert!(matches!(r.result, Err(Rejected::Yaml(_))));
    assert!(r.unsure.is_some());
    assert_eq!(yaml(b"k8s\x00\x0a").framing, Framing::Protobuf);
}

/// What go-yaml refuses at its nesting limit, and the sequences it never makes an object of, are
/// decided by the structure alone, however deep, and read in linear time (the deadline only guards
/// against a hang: the quadratic reading took minutes on these).
#[test]
fn a_yaml_sequence_is_no_review_however_deep_and_go_yamls_depth_limit_is_its_own() {
    let started = std::time::Instant::now();
    let not_an_object = |body: &[u8]| {
        let r = read(body, V1);
        assert!(r.unsure.is_none(), "{:?}", &String::from_utf8_lossy(body)[..40.min(body.len())]);
        match r.result {
            Err(Rejected::NotAnObject(m)) => {
                assert!(m.to_string().contains("cannot unmarshal array into Go value of type struct"))
            }
            other => panic!("{other:?}"),
        }
    };
    let too_deep = |body: &[u8], message: &str| {
        let r = read(body, V1);
        assert!(r.unsure.is_none());
        assert_eq!(r.result.unwrap_err(), Rejected::TooDeep(message.into()));
    };
    let flow = |n: usize| ("[".repeat(n) + &"]".repeat(n)).into_bytes();
    let block = |n: usize| ("- ".repeat(n) + "x\n").into_bytes();
    let limit = "yaml: exceeded max depth of 10000";
    for n in [1, 129, 10_000] {
        not_an_object(&flow(n));
        not_an_object(&block(n));
    }
    for n in [10_001, 100_000] {
        too_deep(&flow(n), limit);
        too_deep(&block(n), limit);
        // Unclosed, or with anything after the limit: go-yaml stops where it counts 10001.
        too_deep("[".repeat(n).as_bytes(), limit);
        // A mapping too, flow or compact block, and on a later line go-yaml says which.
        too_deep(format!("a: {}1{}", "{a: ".repeat(n), "}".repeat(n)).as_bytes(), limit);
        too_deep(format!("# c\n\na:\n  {}", "- ".repeat(n)).as_bytes(), "yaml: line 4: exceeded max depth of 10000");
        too_deep(format!("\u{feff}{{\"x\":{}{}}}", "[".repeat(n), "]".repeat(n)).as_bytes(), limit);
    }
    // Within the limit a deep mapping is read by go-yaml, not by the suite: unsure, never a FAIL.
    for body in [
        format!("a: {}1{}", "{a: ".repeat(9_999), "}".repeat(9_999)),
        format!("\u{feff}{{\"x\":{}{}}}", "[".repeat(9_999), "]".repeat(9_999)),
    ] {
        let r = read(body.as_bytes(), V1);
        assert!(r.unsure.is_some());
        assert!(
            matches!(r.result, Err(Rejected::Unread(ref why)) if why.contains("nests 10000 levels deep")),
            "{:?}",
            r.result
        );
    }
    // Brackets inside scalars and comments nest nothing.
    let r = read(format!("a: '{0}'\nb: \"{0}\"\nc: x{0}\n# {0}\nd: |\n  {0}\n", "[".repeat(20_000)).as_bytes(), V1);
    assert!(r.result.is_ok(), "{:?}", r.result);
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "{:?}", started.elapsed());
}

#[test]
fn the_structure_pass_follows_go_yamls_scanner() {
    use super::yaml_shape::{scan, Top};
    let top = |body: &str| scan(body.as_bytes()).top;
    assert_eq!(top(""), Top::Nothing);
    assert_eq!(top("# only a comment\n"), Top::Nothing);
    assert_eq!(top("[a]"), Top::Sequence);
    assert_eq!(top("--- \n- a\n"), Top::Sequence);
    assert_eq!(top("%YAML 1.1\n---\n[a]"), Top::Sequence);
    assert_eq!(top("[a]: b"), Top::Mapping);
    assert_eq!(top("a: [b]"), Top::Mapping);
    assert_eq!(top("'a': b"), Top::Mapping);
    assert_eq!(top("? a\n: b\n"), Top::Mapping);
    assert_eq!(top("-a"), Top::Scalar);
    assert_eq!(top("<html>oops</html>"), Top::Scalar);
    assert_eq!(top("!!seq [a]"), Top::Unknown);
    // Depth: flow levels plus block indentation levels.
    let depth = |body: &str| scan(body.as_bytes()).depth;
    assert_eq!(depth("a:\n  b:\n    c: [{d: 1}]\n"), 5);
    assert_eq!(depth("- - - x\n"), 3);
    assert_eq!(depth("a: x[[[\n  [[[ continued\n"), 1);
    assert_eq!(depth("a: >\n  [[[\n   {{{\nb: 1\n"), 1);
    assert_eq!(depth("[\"]]]\", ']]]', a]b]"), 1);
    // A second document is never read.
    assert!(scan(format!("a: 1\n---\n{}", "[".repeat(20_000)).as_bytes()).exceeded.is_none());
    // What it does not model ends the pass.
    assert!(!scan(b"a:\n\tb: 1\n").complete);
    assert!(scan(b"a: 1\n").complete);
}
