//! Replays `vectors/objectmeta.json`: every string format and every object, with the messages the
//! Go code gives (see `vectors/README.md`).

use apiserver_validation::{content, validate_create, validate_update, NameRule, Refusal, Scope};
use serde_json::Value;

mod common;

fn vectors() -> Value {
    common::read(include_str!("../vectors/objectmeta.json"), "vectors/objectmeta.json")
}

fn run_string(func: &str, value: &str) -> Vec<String> {
    match func {
        "IsDNS1123Label" => content::is_dns1123_label(value),
        "IsDNS1123Subdomain" => content::is_dns1123_subdomain(value),
        "IsDNS1035Label" => content::is_dns1035_label(value),
        "IsQualifiedName" => content::is_qualified_name(value),
        "IsValidLabelValue" => content::is_valid_label_value(value),
        "NameIsDNSSubdomain(prefix)" => NameRule::DnsSubdomain.check(value, true),
        "NameIsDNSLabel(prefix)" => NameRule::DnsLabel.check(value, true),
        other => panic!("unknown function {other} in the vectors"),
    }
}

#[test]
fn string_formats_match_go() {
    let v = vectors();
    let cases = v["strings"].as_array().unwrap();
    assert!(cases.len() > 100);
    let mut problems = Vec::new();
    for case in cases {
        let func = case["func"].as_str().unwrap();
        let value = case["value"].as_str().unwrap();
        let got = run_string(func, value);
        let valid = case["valid"].as_bool().unwrap();
        let ok = match case.get("errors").and_then(Value::as_array) {
            Some(want) => got == want.iter().map(|m| m.as_str().unwrap().to_string()).collect::<Vec<_>>(),
            None => got.is_empty() == valid,
        };
        if !ok {
            problems.push(format!("{func}({value:?}) [{}]: got {got:?}", case["source"]));
        }
    }
    assert!(problems.is_empty(), "{} mismatch(es):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn objects_are_judged_as_the_registry_judges_them() {
    let v = vectors();
    let cases = v["objects"].as_array().unwrap();
    let mut problems = Vec::new();
    for case in cases {
        let s = &case["scope"];
        let scope = Scope {
            group: s["group"].as_str().unwrap(),
            kind: s["kind"].as_str().unwrap(),
            resource: s["resource"].as_str().unwrap(),
            namespaced: s["namespaced"].as_bool().unwrap(),
            built_in: s["builtIn"].as_bool().unwrap(),
            request_namespace: case["requestNamespace"].as_str().unwrap(),
        };
        let object = &case["object"];
        let name = object["metadata"]["name"].as_str().unwrap_or("");
        let result: Result<(), Refusal> = match case["operation"].as_str().unwrap() {
            "CREATE" => validate_create(&scope, object).map(|_| ()),
            "UPDATE" => validate_update(&scope, object, &case["oldObject"]),
            other => panic!("operation {other}"),
        };
        let got = result.as_ref().err().map(|r| (r.code(), r.message(&scope, name)));
        let want = case["code"].as_u64().map(|c| (c as u16, case["message"].as_str().unwrap().to_string()));
        if got != want {
            problems.push(format!("[{}]\n  want {want:?}\n  got  {got:?}", case["source"]));
        }
    }
    assert!(problems.is_empty(), "{} mismatch(es):\n{}", problems.len(), problems.join("\n"));
}
