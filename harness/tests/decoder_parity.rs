//! Every row of the decoder table: a webhook answers these exact bytes over HTTPS, and the verdict
//! is what the kube-apiserver does with them. The apiserver reads the body with
//! `k8s.io/apimachinery/pkg/runtime/serializer/json` (`meta.go` Interpret with Go's encoding/json,
//! then `sigs.k8s.io/json`, a fork of encoding/json, for the typed decode) or, for a body not
//! starting with `{`, its YAML serializer. Line numbers are those of sigs.k8s.io/json @9f7c6b3
//! (`internal/golang/encoding/json/`); the behaviour of every row was observed by running that code
//! wired as the apiserver wires it.
//!
//! A row's expectation lists the rules that do not pass (`rule=fail`, `rule=warn`); an empty list
//! is an answer the apiserver accepts without remark. Rows the suite cannot be sure of (the YAML
//! path) may only WARN.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use webhook_harness::lowlevel::{exchange, plan, Client, Endpoint, HttpVersions};
use webhook_harness::tls::TlsMaterial;
use webhook_harness::{Manifest, Outcome, WebhookSpec};

/// One row: what the webhook answers (`{uid}` is replaced by the request's uid), the verdict, a
/// part of what the apiserver says for the first FAIL, and the Go source that decides it.
struct Row {
    name: &'static str,
    webhook: Hook,
    body: Vec<u8>,
    expect: &'static [&'static str],
    says: &'static str,
    source: &'static str,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Hook {
    Validating,
    Mutating,
    /// A validating webhook whose manifest lists only admission.k8s.io/v1beta1.
    ValidatingV1beta1,
}

const UNQUOTE: &str = "decode.go unquoteBytes L1325-1429: invalid UTF-8 -> U+FFFD per byte";
const SCANNER: &str = "scanner.go (checkValid over the whole body; stateEndTop L326)";
const DEPTH: &str = "scanner.go maxNestingDepth = 10000 L144, pushParseState L176-181";
const FIELDS: &str = "decode.go object: exact-case field lookup, fold only if !caseSensitive (L793)";
const INTERPRET: &str =
    "apimachinery runtime/serializer/json/meta.go Interpret (stdlib encoding/json, case-insensitive)";
const MERGE: &str = "decode.go object + indirect L452: a repeated key decodes into the value already set";
const NULL: &str = "decode.go literalStore case 'n' L1005-1015: null only clears pointers, maps, slices";
const NUMBERS: &str = "decode.go literalStore: strconv.ParseInt + OverflowInt L1112; 'number <literal>'";
const BYTES: &str = "decode.go literalStore L1058-1059: []byte from base64.StdEncoding; array of uint8";
const YAML: &str = "recognizer.go + util/yaml IsJSONBuffer: not '{' -> YAML serializer (yaml.YAMLToJSON)";
const VERIFY: &str = "request/admissionreview.go VerifyAdmissionResponse";
const GO_YAML_DEPTH: &str = "go.yaml.in/yaml/v2 scannerc.go max_flow_level = max_indents = 10000 (yaml_parser_increase_flow_level, yaml_parser_roll_indent: 'exceeded max depth of 10000'), limit_test.go; sigs.k8s.io/yaml YAMLToJSON returns it as it is";
const YAML_SEQUENCE: &str =
    "serializer/json/json.go Decode: YAMLToJSON, then meta.go Interpret into a struct: an array never decodes";

fn v1(response: &str) -> Vec<u8> {
    format!(r#"{{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{response}}}"#).into_bytes()
}

fn raw(body: &[u8]) -> Vec<u8> {
    body.to_vec()
}

/// An allow with an unknown member nested `depth` arrays deep.
fn nested(depth: usize) -> Vec<u8> {
    v1(&format!(r#"{{"uid":"{{uid}}","allowed":true,"x":{}{}}}"#, "[".repeat(depth), "]".repeat(depth)))
}

/// A YAML flow sequence `depth` deep.
fn flow_sequence(depth: usize) -> Vec<u8> {
    ("[".repeat(depth) + &"]".repeat(depth)).into_bytes()
}

/// A YAML block sequence `depth` deep, on one line (`- - - x`).
fn block_sequence(depth: usize) -> Vec<u8> {
    ("- ".repeat(depth) + "x\n").into_bytes()
}

/// A YAML flow mapping `depth` deep under a key (`a: {a: {a: 1}}`).
fn flow_mapping(depth: usize) -> Vec<u8> {
    format!("a: {}1{}\n", "{a: ".repeat(depth), "}".repeat(depth)).into_bytes()
}

/// A YAML block mapping `depth` deep, one more space of indentation per level.
fn block_mapping(depth: usize) -> Vec<u8> {
    let keys: String = (0..depth).map(|i| format!("{}a:\n", " ".repeat(i))).collect();
    format!("{keys}{}1\n", " ".repeat(depth)).into_bytes()
}

/// An allow with an unknown member that is an object nested `depth` deep.
fn nested_object(depth: usize) -> Vec<u8> {
    v1(&format!(r#"{{"uid":"{{uid}}","allowed":true,"x":{}1{}}}"#, r#"{"a":"#.repeat(depth), "}".repeat(depth)))
}

fn rows() -> Vec<Row> {
    use Hook::*;
    let row = |name, webhook, body, expect, says, source| Row { name, webhook, body, expect, says, source };
    let allow = |extra: &str| v1(&format!(r#"{{"uid":"{{uid}}","allowed":true{extra}}}"#));
    vec![
        // 1: invalid UTF-8.
        row("1a warning with a bad byte", Validating, raw(b"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"{uid}\",\"allowed\":true,\"warnings\":[\"a\xffb\"]}}"), &[], "", UNQUOTE),
        row("1a unknown member with bad bytes", Validating, raw(b"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"x\xfe\":\"\xff\",\"response\":{\"uid\":\"{uid}\",\"allowed\":true}}"), &[], "", UNQUOTE),
        row("1a denial message with a bad byte", Validating, raw(b"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"{uid}\",\"allowed\":false,\"status\":{\"code\":403,\"message\":\"bad\xe2\x82msg\"}}}"), &[], "", UNQUOTE),
        row("1a uid with a bad byte", Validating, raw(b"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"{uid}\xff\",\"allowed\":true}}"), &["response.uid=fail"], "expected response.uid=", UNQUOTE),
        row("1b bad byte after the object", Validating, [allow(""), b"\xff".to_vec()].concat(), &["review.body=fail"], "couldn't get version/kind; json parse error: invalid character 'ÿ' after top-level value", SCANNER),
        row("1c bad byte in the key response", Validating, raw(b"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"respons\xff\":{\"uid\":\"{uid}\",\"allowed\":true}}"), &["response.present=fail"], "webhook response was absent", UNQUOTE),
        // 2: nesting.
        row("2a unknown member 127 deep", Validating, nested(127), &[], "", DEPTH),
        row("2a unknown member 200 deep", Validating, nested(200), &[], "", DEPTH),
        row("2a unknown member at the limit (10000 with the top object)", Validating, nested(9_998), &[], "", DEPTH),
        row("2a unknown member past the limit", Validating, nested(10_000), &["review.body=fail"], "json parse error: invalid character '[' exceeded max depth", DEPTH),
        row("2a status.details member 200 deep", Validating, v1(&format!(r#"{{"uid":"{{uid}}","allowed":false,"status":{{"code":403,"message":"no","details":{{"causes":[{{"x":{}{}}}]}}}}}}"#, "{\"a\":".repeat(200), "}".repeat(200) )).replace_zero(), &[], "", DEPTH),
        // 3: letter case.
        row("3a Response", Validating, raw(br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","Response":{"uid":"{uid}","allowed":true}}"#), &["response.present=fail"], "webhook response was absent", FIELDS),
        row("3b UID and Allowed", Validating, v1(r#"{"UID":"{uid}","Allowed":true}"#), &["response.uid=fail"], "got \"\"", FIELDS),
        row("3c APIVersion and Kind", Validating, raw(br#"{"APIVersion":"admission.k8s.io/v1","Kind":"AdmissionReview","response":{"uid":"{uid}","allowed":true}}"#), &["review.gvk-present=fail"], "got /, Kind=", INTERPRET),
        row("3c kind and a later Kind", Validating, raw(br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","Kind":"Foo","response":{"uid":"{uid}","allowed":true}}"#), &["review.gvk=fail"], "no kind \"Foo\" is registered", INTERPRET),
        row("3c Kelvin-sign kind", Validating, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"\u{212A}ind\":\"Foo\",\"response\":{\"uid\":\"{uid}\",\"allowed\":true}}".as_bytes().to_vec(), &["review.gvk=fail"], "no kind \"Foo\"", INTERPRET),
        // 4: repeated keys.
        row("4a response twice, merged", Validating, v1(r#"{"uid":"{uid}","allowed":false},"response":{"allowed":true}"#), &[], "", MERGE),
        row("4b allowed twice, last wins", Validating, allow(r#","allowed":false"#), &["denial.message=warn"], "", MERGE),
        row("4c allowed then null", Validating, allow(r#","allowed":null"#), &[], "", NULL),
        row("4d response then null", Validating, v1(r#"{"uid":"{uid}","allowed":true},"response":null"#), &["response.present=fail"], "webhook response was absent", NULL),
        row("4e status twice, merged", Validating, v1(r#"{"uid":"{uid}","allowed":false,"status":{"code":403,"message":"m"},"status":{"reason":"Forbidden"}}"#), &[], "", MERGE),
        row("4f auditAnnotations twice, merged", Validating, allow(r#","auditAnnotations":{"a":"1"},"auditAnnotations":{"b":"2"}"#), &[], "", MERGE),
        row("4g warnings twice, replaced", Validating, allow(r#","warnings":["a\u0007"],"warnings":["c"]"#), &[], "", "decode.go array: slice length reset"),
        row("4h kind twice, last wins", Validating, raw(br#"{"apiVersion":"admission.k8s.io/v1","kind":"X","kind":"AdmissionReview","response":{"uid":"{uid}","allowed":true}}"#), &[], "", INTERPRET),
        // 5: numbers.
        row("5a code -0", Validating, v1(r#"{"uid":"{uid}","allowed":false,"status":{"code":-0,"message":"no"}}"#), &[], "", NUMBERS),
        row("5b code 400.0", Validating, v1(r#"{"uid":"{uid}","allowed":false,"status":{"code":400.0,"message":"no"}}"#), &["review.decode=fail"], "json: cannot unmarshal number 400.0 into Go struct field Status.response.status.code of type int32", NUMBERS),
        row("5b code 2147483648", Validating, v1(r#"{"uid":"{uid}","allowed":false,"status":{"code":2147483648}}"#), &["review.decode=fail"], "number 2147483648", NUMBERS),
        row("5c code as a string", Validating, v1(r#"{"uid":"{uid}","allowed":false,"status":{"code":"400"}}"#), &["review.decode=fail"], "cannot unmarshal string into Go struct field Status.response.status.code of type int32", NUMBERS),
        row("5d allowed 1", Validating, v1(r#"{"uid":"{uid}","allowed":1}"#), &["review.decode=fail"], "cannot unmarshal number into Go struct field AdmissionResponse.response.allowed of type bool", NUMBERS),
        row("5e uid 5", Validating, v1(r#"{"uid":5,"allowed":true}"#), &["review.decode=fail"], "of type types.UID", NUMBERS),
        row("5f retryAfterSeconds 1.5", Validating, v1(r#"{"uid":"{uid}","allowed":false,"status":{"message":"no","details":{"retryAfterSeconds":1.5}}}"#), &["review.decode=fail"], "StatusDetails.response.status.details.retryAfterSeconds of type int32", NUMBERS),
        row("5g 0400", Validating, allow(r#","x":0400"#), &["review.body=fail"], "invalid character '4' after object key:value pair", SCANNER),
        row("5h 1e999999 in an unknown member", Validating, allow(r#","x":1e999999"#), &[], "", "decode.go value: an unknown member is skipped"),
        // 6: null.
        row("6 response null", Validating, v1("null"), &["response.present=fail"], "webhook response was absent", NULL),
        row("6 allowed null", Validating, allow(r#","allowed":null"#).replace_allowed(), &["response.allowed-present=warn"], "", NULL),
        row("6 uid null", Validating, v1(r#"{"uid":null,"allowed":true}"#), &["response.uid=fail"], "got \"\"", NULL),
        row("6 null patch, patchType, warnings, status, auditAnnotations", Validating, allow(r#","patch":null,"patchType":null,"warnings":null,"status":null,"auditAnnotations":null"#), &[], "", NULL),
        row("6 null warning element", Validating, allow(r#","warnings":[null,"x"]"#), &["warnings.valid=warn"], "", NULL),
        row("6 apiVersion null", Validating, raw(br#"{"apiVersion":null,"kind":"AdmissionReview","response":{"uid":"{uid}","allowed":true}}"#), &["review.gvk-present=fail"], "got /, Kind=AdmissionReview", NULL),
        // 7: types.
        row("7a patch base64", Mutating, allow(r#","patchType":"JSONPatch","patch":"W10=""#), &[], "", BYTES),
        row("7b patch as byte values", Mutating, allow(r#","patchType":"JSONPatch","patch":[91,93]"#), &["patch.base64-string=warn"], "", BYTES),
        row("7c patch without padding", Mutating, allow(r#","patchType":"JSONPatch","patch":"W10""#), &["patch.base64=fail"], "failed to call webhook: illegal base64 data at input byte 0", BYTES),
        row("7c patch byte 256", Mutating, allow(r#","patchType":"JSONPatch","patch":[256]"#), &["patch.base64=fail"], "cannot unmarshal number 256 into Go struct field AdmissionResponse.response.patch of type uint8", BYTES),
        row("7d patch with an escaped newline", Mutating, allow(r#","patchType":"JSONPatch","patch":"W1\n0=""#), &[], "", BYTES),
        row("7e empty patch from a validating webhook", Validating, allow(r#","patch":"""#), &[], "", VERIFY),
        row("7f patch object", Mutating, allow(r#","patchType":"JSONPatch","patch":{}"#), &["patch.base64=fail"], "of type []uint8", BYTES),
        row("7 a type error before a patch error is the one reported", Mutating, allow(r#","warnings":"w","patchType":"JSONPatch","patch":"W10""#), &["review.decode=fail"], "of type []string", "decode.go saveError: the first error"),
        row("7g warnings a string", Validating, allow(r#","warnings":"w""#), &["review.decode=fail"], "of type []string", BYTES),
        row("7h auditAnnotations value a number", Validating, allow(r#","auditAnnotations":{"a":1}"#), &["review.decode=fail"], "AdmissionResponse.response.auditAnnotations of type string", BYTES),
        row("7i status a string", Validating, allow(r#","status":"no""#), &["review.decode=fail"], "of type v1.Status", BYTES),
        row("7i response an array", Validating, v1("[]"), &["review.decode=fail"], "AdmissionReview.response of type v1.AdmissionResponse", BYTES),
        row("7j echoed request with a number uid", Validating, raw(br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":5},"response":{"uid":"{uid}","allowed":true}}"#), &["review.decode=fail"], "AdmissionRequest.request.uid of type types.UID", "AdmissionReview.Request *AdmissionRequest is decoded too"),
        row("7j echoed request well formed", Validating, raw(br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"x","object":{"any":[1]},"dryRun":false},"response":{"uid":"{uid}","allowed":true}}"#), &[], "", "runtime.RawExtension UnmarshalJSON takes any value"),
        // 8: framing.
        row("8a whitespace around", Validating, [b" \t\r\n".to_vec(), allow(""), b"\n".to_vec()].concat(), &[], "", SCANNER),
        row("8b UTF-8 BOM before JSON", Validating, [b"\xef\xbb\xbf".to_vec(), allow("")].concat(), &["review.json=warn"], "", YAML),
        row("8c YAML text", Validating, raw(b"apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\nresponse:\n  uid: \"{uid}\"\n  allowed: true\n"), &["review.json=warn"], "", YAML),
        row("8c YAML 1.1 boolean (unsure: WARN only)", Validating, raw(b"apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\nresponse:\n  uid: \"{uid}\"\n  allowed: yes\n"), &["review.json=warn", "review.decode=warn", "response.allowed-present=warn"], "", YAML),
        row("8c YAML array", Validating, raw(br#"[{"response":{}}]"#), &["review.body=fail"], "cannot unmarshal array into Go value of type struct", YAML),
        row("8c YAML null", Validating, raw(b"null"), &["review.json=warn", "response.present=fail"], "webhook response was absent", YAML),
        row("8c only spaces", Validating, raw(b"   "), &["review.json=warn", "response.present=fail"], "webhook response was absent", YAML),
        row("8d NBSP before the object", Validating, ["\u{a0}".as_bytes().to_vec(), allow("")].concat(), &["review.body=fail"], "invalid character 'Â' looking for beginning of value", "util/yaml IsJSONBuffer trims unicode.IsSpace; scanner.go isSpace does not"),
        row("8e trailing garbage", Validating, [allow(""), b" xyz".to_vec()].concat(), &["review.body=fail"], "invalid character 'x' after top-level value", SCANNER),
        row("8e two objects", Validating, [allow(""), allow("")].concat(), &["review.body=fail"], "invalid character '{' after top-level value", SCANNER),
        row("8e trailing NUL", Validating, [allow(""), b"\x00".to_vec()].concat(), &["review.body=fail"], "invalid character '\\x00' after top-level value", SCANNER),
        row("8f truncated", Validating, allow("")[..40].to_vec(), &["review.body=fail"], "unexpected end of JSON input", SCANNER),
        row("8f trailing comma", Validating, allow(",").to_vec(), &["review.body=fail"], "invalid character '}' looking for beginning of object key string", SCANNER),
        row("8g empty object", Validating, raw(b"{}"), &["response.present=fail"], "webhook response was absent", VERIFY),
        row("8h empty body", Validating, Vec::new(), &["review.body=fail"], "0-length response with status code: 200", "client-go rest/request.go Result.Into"),
        // 9: strings.
        row("9a NUL in a warning", Validating, allow(r#","warnings":["a\u0000b"]"#), &["warnings.valid=warn"], "", "endpoints/filters/warning.go; util/net NewWarningHeader"),
        row("9b lone surrogate in a warning", Validating, allow(r#","warnings":["\ud800"]"#), &[], "", "decode.go unquoteBytes L1405-1413"),
        row("9c \\x escape", Validating, allow(r#","warnings":["\x41"]"#), &["review.body=fail"], "invalid character 'x' in string escape code", SCANNER),
        row("9d raw TAB in a string", Validating, allow(",\"warnings\":[\"a\tb\"]"), &["review.body=fail"], "invalid character '\\t' in string literal", "scanner.go stateInString L344"),
        row("9d raw DEL in a warning", Validating, allow(",\"warnings\":[\"a\u{7f}b\"]"), &["warnings.valid=warn"], "", "scanner.go stateInString takes >= 0x20"),
        row("9e escaped keys and values", Validating, raw(br#"{"apiVersion":"admission.k8s.io\/v1","kind":"AdmissionReview","respons\u0065":{"\u0075id":"{uid}","allowed":true}}"#), &[], "", UNQUOTE),
        // 10: size.
        row("10 a 2 MiB unknown member", Validating, allow(&format!(r#","x":"{}""#, "a".repeat(2 << 20))), &[], "", "client-go rest/request.go io.ReadAll: no size limit"),
        // 11: apiVersion and kind.
        row("11a kind a number", Validating, raw(br#"{"apiVersion":"admission.k8s.io/v1","kind":5,"response":{"uid":"{uid}","allowed":true}}"#), &["review.decode=fail"], "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string", INTERPRET),
        row("11b apiVersion a/b/c", Validating, raw(br#"{"apiVersion":"a/b/c","kind":"AdmissionReview","response":{"uid":"{uid}","allowed":true}}"#), &["review.gvk=fail"], "unexpected GroupVersion string: a/b/c", "apimachinery schema.ParseGroupVersion"),
        row("11c apiVersion without kind", Validating, raw(br#"{"apiVersion":"admission.k8s.io/v1","response":{"uid":"{uid}","allowed":true}}"#), &["review.gvk-present=fail"], "got admission.k8s.io/v1, Kind=", "serializer/json/json.go gvkWithDefaults"),
        row("11d kind with a bad byte", Validating, raw(b"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"Admission\xffReview\",\"response\":{\"uid\":\"{uid}\",\"allowed\":true}}"), &["review.gvk=fail"], "no kind \"Admission\u{fffd}Review\"", "runtime.UseOrCreateObject"),
        // 12: deep YAML (a body not starting with '{') and deep objects.
        row("12a YAML flow sequence 129 deep", Validating, flow_sequence(129), &["review.body=fail"], "cannot unmarshal array into Go value of type struct", YAML_SEQUENCE),
        row("12a YAML flow sequence 10001 deep", Validating, flow_sequence(10_001), &["review.body=fail"], "failed to call webhook: yaml: exceeded max depth of 10000", GO_YAML_DEPTH),
        row("12a YAML flow sequence 100000 deep", Validating, flow_sequence(100_000), &["review.body=fail"], "failed to call webhook: yaml: exceeded max depth of 10000", GO_YAML_DEPTH),
        row("12b YAML block sequence 129 deep", Validating, block_sequence(129), &["review.body=fail"], "cannot unmarshal array into Go value of type struct", YAML_SEQUENCE),
        row("12b YAML block sequence 10001 deep", Validating, block_sequence(10_001), &["review.body=fail"], "failed to call webhook: yaml: exceeded max depth of 10000", GO_YAML_DEPTH),
        row("12b YAML block sequence 100000 deep", Validating, block_sequence(100_000), &["review.body=fail"], "failed to call webhook: yaml: exceeded max depth of 10000", GO_YAML_DEPTH),
        row("12c YAML flow mapping 129 deep (unsure: WARN only)", Validating, flow_mapping(129), &["review.json=warn"], "", GO_YAML_DEPTH),
        row("12c YAML flow mapping 10001 deep", Validating, flow_mapping(10_001), &["review.body=fail"], "failed to call webhook: yaml: exceeded max depth of 10000", GO_YAML_DEPTH),
        row("12c YAML flow mapping 100000 deep", Validating, flow_mapping(100_000), &["review.body=fail"], "failed to call webhook: yaml: exceeded max depth of 10000", GO_YAML_DEPTH),
        row("12d YAML block mapping 129 deep (unsure: WARN only)", Validating, block_mapping(129), &["review.json=warn"], "", GO_YAML_DEPTH),
        row("12e JSON unknown member an object 129 deep", Validating, nested_object(129), &[], "", DEPTH),
        row("12e JSON unknown member an object at the limit (10000 with the top objects)", Validating, nested_object(9_998), &[], "", DEPTH),
        row("12e JSON unknown member an object past the limit", Validating, nested_object(9_999), &["review.body=fail"], "json parse error: invalid character '{' exceeded max depth", DEPTH),
        row("12e JSON unknown member an object 100000 deep", Validating, nested_object(100_000), &["review.body=fail"], "json parse error: invalid character '{' exceeded max depth", DEPTH),
        // admission.k8s.io/v1beta1 is not verified for uid or apiVersion/kind.
        row("v1beta1 answer without kind", ValidatingV1beta1, raw(br#"{"apiVersion":"admission.k8s.io/v1beta1","response":{"uid":"{uid}","allowed":true}}"#), &["review.gvk-present=warn"], "", VERIFY),
        row("v1beta1 answer with repeated response", ValidatingV1beta1, raw(br#"{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"uid":"{uid}"},"response":{"allowed":true}}"#), &[], "", MERGE),
    ]
}

/// Edits of bodies as text.
trait Edit {
    fn replace_zero(self) -> Vec<u8>;
    fn replace_allowed(self) -> Vec<u8>;
}

impl Edit for Vec<u8> {
    /// The `{"a":{"a":…}}` chain of a deep object ends in a value.
    fn replace_zero(self) -> Vec<u8> {
        String::from_utf8(self).unwrap().replace(r#"{"a":}"#, r#"{"a":0}"#).into_bytes()
    }
    /// `"allowed":true,…,"allowed":null` without the first `allowed`.
    fn replace_allowed(self) -> Vec<u8> {
        String::from_utf8(self).unwrap().replacen(r#""allowed":true,"#, "", 1).into_bytes()
    }
}

fn manifest(port: u16, rows: &[Row]) -> Manifest {
    let mut text = String::new();
    for (kind, hook) in
        [("Validating", Hook::Validating), ("Mutating", Hook::Mutating), ("Validating", Hook::ValidatingV1beta1)]
    {
        let versions = if hook == Hook::ValidatingV1beta1 { r#"["v1beta1"]"# } else { r#"["v1"]"# };
        text.push_str(&format!(
            "---\napiVersion: admissionregistration.k8s.io/v1\nkind: {kind}WebhookConfiguration\nmetadata: {{name: rows-{}}}\nwebhooks:\n",
            versions.trim_matches(['[', ']', '"'])
        ));
        let mut any = false;
        for (i, _) in rows.iter().enumerate().filter(|(_, r)| r.webhook == hook) {
            any = true;
            text.push_str(&format!(
                "  - name: row-{i}.decoder.example\n    admissionReviewVersions: {versions}\n    sideEffects: None\n    failurePolicy: Fail\n    timeoutSeconds: 10\n    clientConfig: {{url: \"https://127.0.0.1:{port}/row/{i}\"}}\n    rules: [{{operations: [CREATE], apiGroups: [\"\"], apiVersions: [v1], resources: [pods]}}]\n"
            ));
        }
        if !any {
            text.truncate(text.rfind("---").unwrap());
        }
    }
    Manifest::parse("rows.yaml".as_ref(), &text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// An HTTPS server answering `POST /row/N` with row N's bytes, `{uid}` replaced by the request's uid.
async fn serve(tls: &TlsMaterial, bodies: Arc<Vec<Vec<u8>>>) -> SocketAddr {
    let certs = webhook_harness::tls::parse_certificates(tls.cert_pem.as_bytes()).unwrap();
    let key = rustls_pemfile::private_key(&mut tls.key_pem.as_bytes()).unwrap().unwrap();
    let mut config = rustls::ServerConfig::builder_with_provider(webhook_harness::tls::provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, bodies) = (acceptor.clone(), bodies.clone());
            tokio::spawn(async move {
                let Ok(mut stream) = acceptor.accept(tcp).await else { return };
                let mut buf = Vec::new();
                loop {
                    let mut chunk = [0u8; 65536];
                    let Ok(n) = stream.read(&mut chunk).await else { return };
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
                    let head = String::from_utf8_lossy(&buf[..end]).to_string();
                    let length: usize = head
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap())
                        })
                        .unwrap_or(0);
                    if buf.len() < end + 4 + length {
                        continue;
                    }
                    let request: serde_json::Value = serde_json::from_slice(&buf[end + 4..end + 4 + length]).unwrap();
                    buf.drain(..end + 4 + length);
                    let uid = request["request"]["uid"].as_str().unwrap().to_string();
                    let index: usize = head
                        .split_whitespace()
                        .nth(1)
                        .and_then(|p| p.split('?').next())
                        .and_then(|p| p.strip_prefix("/row/"))
                        .and_then(|i| i.parse().ok())
                        .unwrap();
                    let body = replace(&bodies[index], b"{uid}", uid.as_bytes());
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                        body.len()
                    );
                    if stream.write_all(&[head.as_bytes(), &body].concat()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    addr
}

fn replace(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut i = 0;
    while i < haystack.len() {
        if haystack[i..].starts_with(needle) {
            out.extend_from_slice(with);
            i += needle.len();
        } else {
            out.push(haystack[i]);
            i += 1;
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_row_gets_the_apiservers_verdict_from_a_webhook_answering_it() {
    let rows = rows();
    let tls = TlsMaterial::generate(&Default::default(), None).unwrap();
    let addr = serve(&tls, Arc::new(rows.iter().map(|r| r.body.clone()).collect())).await;
    let manifest = manifest(addr.port(), &rows);
    let endpoint = Endpoint {
        base: reqwest::Url::parse(&format!("https://127.0.0.1:{}/", addr.port())).unwrap(),
        resolve_to: None,
        ca_pem: tls.ca_pem.as_bytes().to_vec(),
        path_override: false,
        hosts: Default::default(),
    };
    let client = Client::new(endpoint, HttpVersions::Http1).unwrap();
    let mut wrong = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let spec: &WebhookSpec =
            manifest.webhooks.iter().find(|w| w.name == format!("row-{i}.decoder.example")).unwrap();
        let case = plan(spec).into_iter().find(|c| c.primary && c.label == "CREATE pods (bare)").unwrap();
        let record = exchange(&client, Arc::new(spec.clone()), case).await;
        let got: Vec<String> = record
            .findings
            .iter()
            .filter(|f| matches!(f.outcome(), Outcome::Fail | Outcome::Warn))
            .map(|f| format!("{}={}", f.rule, if f.outcome() == Outcome::Fail { "fail" } else { "warn" }))
            .collect();
        let said =
            record.findings.iter().find(|f| f.outcome() == Outcome::Fail).and_then(|f| f.apiserver_message.clone());
        let says_ok = row.says.is_empty() || said.as_deref().is_some_and(|s| s.contains(row.says));
        if got != row.expect || !says_ok {
            wrong.push(format!(
                "{} ({}): expected {:?} saying {:?}, got {got:?} saying {said:?}",
                row.name, row.source, row.expect, row.says
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} rows disagree with the apiserver:\n{}",
        wrong.len(),
        rows.len(),
        wrong.join("\n")
    );
}

#[test]
fn unsure_rows_never_fail() {
    // A body read through the YAML path as a mapping is read as the suite cannot be sure the
    // apiserver reads it: those rows only warn. (A scalar, a sequence or nothing at all is sure.)
    let unsure: Vec<Row> = rows()
        .into_iter()
        .filter(|r| r.name.starts_with("8b") || r.name.starts_with("8c YAML text") || r.name.contains("unsure"))
        .collect();
    assert_eq!(unsure.len(), 5);
    for row in unsure {
        assert!(row.expect.iter().all(|e| e.ends_with("=warn")), "{}", row.name);
    }
}
