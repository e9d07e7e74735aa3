//! Replays `vectors/spec.json`: pods, workloads, ConfigMaps, Secrets, Services, Namespaces,
//! ServiceAccounts and Ingresses, created or updated (pods, the apps workloads, Jobs and CronJobs
//! also through their `status` subresource), each defaulted then validated, with the message the Go
//! code gives (see `vectors/README.md`).

use std::borrow::Cow;

use apiserver_validation::{
    defaults, validate_object_create, validate_object_status_update, validate_object_update, Refusal, Scope,
};
use serde_json::Value;

mod common;

fn vectors() -> Value {
    common::read(include_str!("../vectors/spec.json"), "vectors/spec.json")
}

/// Every object of the vectors, defaulted by copying only what its defaults can touch, is the
/// object defaulted whole, member order included; and once defaulted, it is borrowed as it is.
#[test]
fn the_defaults_of_every_vector_object_fill_the_same_members() {
    let v = vectors();
    let mut copied = 0;
    for case in v["objects"].as_array().unwrap() {
        let (group, kind) = (case["scope"]["group"].as_str().unwrap(), case["scope"]["kind"].as_str().unwrap());
        for object in [&case["object"], &case["oldObject"]].into_iter().filter(|o| o.is_object()) {
            let whole = defaults::defaulted(group, kind, object);
            let cow = defaults::defaulted_cow(group, kind, object);
            copied += usize::from(matches!(cow, Cow::Owned(_)));
            assert_eq!(
                serde_json::to_string(&cow).unwrap(),
                serde_json::to_string(&whole).unwrap(),
                "{}",
                case["source"]
            );
            assert!(matches!(defaults::defaulted_cow(group, kind, &whole), Cow::Borrowed(_)), "{}", case["source"]);
        }
    }
    assert!(copied >= 100, "only {copied} vector objects were missing a default");
}

#[test]
fn specs_are_judged_as_the_registry_judges_them() {
    let v = vectors();
    let cases = v["objects"].as_array().unwrap();
    assert!(cases.len() >= 50);
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
        let result: Result<(), Refusal> = match (case["operation"].as_str().unwrap(), case["subresource"].as_str()) {
            ("CREATE", None) => validate_object_create(&scope, object),
            ("UPDATE", None) => validate_object_update(&scope, object, &case["oldObject"]),
            ("UPDATE", Some("status")) => validate_object_status_update(&scope, object, &case["oldObject"]),
            (op, sub) => panic!("operation {op} of subresource {sub:?}"),
        };
        let got = result.as_ref().err().map(|r| (r.code(), r.message(&scope, name)));
        let ok = match (&got, case["code"].as_u64()) {
            (None, None) => true,
            (Some((code, message)), Some(want)) => {
                u64::from(*code) == want
                    && match case.get("messagePrefix").and_then(Value::as_str) {
                        Some(prefix) => message.starts_with(prefix),
                        None => Some(message.as_str()) == case["message"].as_str(),
                    }
            }
            _ => false,
        };
        if !ok {
            let want = case.get("message").or(case.get("messagePrefix"));
            problems.push(format!("[{}]\n  want {want:?}\n  got  {got:?}", case["source"]));
        }
    }
    assert!(problems.is_empty(), "{} mismatch(es):\n{}", problems.len(), problems.join("\n"));
}
