//! Replays `vectors/crd.json`: custom resources held to one structural schema (and its list types),
//! each with the field errors the apiextensions-apiserver gives (see `vectors/README.md`).

use apiserver_validation::crd::listtype::validate_lists;
use apiserver_validation::crd::validate_custom_resource;
use apiserver_validation::invalid_message;
use serde_json::Value;

mod common;

#[test]
fn custom_resources_are_judged_as_kube_openapi_judges_them() {
    let v = common::read(include_str!("../vectors/crd.json"), "vectors/crd.json");
    let schema = &v["schema"];
    let cases = v["objects"].as_array().unwrap();
    assert!(cases.len() >= 20);
    let mut problems = Vec::new();
    for case in cases {
        let mut errs = validate_custom_resource(schema, &case["object"]);
        errs.extend(validate_lists(schema, &case["object"]));
        let got: Vec<String> = errs.iter().map(ToString::to_string).collect();
        let want: Vec<String> =
            case["errors"].as_array().unwrap().iter().map(|e| e.as_str().unwrap().to_string()).collect();
        if got != want {
            problems.push(format!("[{}]\n  want {want:?}\n  got  {got:?}", case["source"]));
        }
    }
    assert!(problems.is_empty(), "{} mismatch(es):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn the_refusal_reads_as_the_apiserver_writes_it() {
    let v = common::read(include_str!("../vectors/crd.json"), "vectors/crd.json");
    let case =
        v["objects"].as_array().unwrap().iter().find(|c| c["errors"].as_array().is_some_and(|e| e.len() == 2)).unwrap();
    let errs = validate_custom_resource(&v["schema"], &case["object"]);
    let said = invalid_message("example.com", "Widget", "w", &errs);
    assert!(said.starts_with("Widget.example.com \"w\" is invalid: [spec."), "{said}");
    let one =
        v["objects"].as_array().unwrap().iter().find(|c| c["errors"].as_array().is_some_and(|e| e.len() == 1)).unwrap();
    let errs = validate_custom_resource(&v["schema"], &one["object"]);
    assert_eq!(
        invalid_message("example.com", "Widget", "w", &errs),
        format!("Widget.example.com \"w\" is invalid: {}", one["errors"][0].as_str().unwrap())
    );
    let _: &Value = &v;
}
