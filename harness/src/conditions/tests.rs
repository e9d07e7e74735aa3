//! matchConditions against the apiserver's semantics: the variables, the matcher's order, the
//! failure policy, and what the interpreter cannot evaluate.

use serde_json::json;

use super::*;
use crate::admission::{GroupVersionKind, GroupVersionResource, Operation, UserInfo};

fn request(operation: Operation, object: serde_json::Value, old: serde_json::Value) -> AdmissionRequest {
    AdmissionRequest {
        uid: "u-1".into(),
        kind: GroupVersionKind::new("", "v1", "Pod"),
        resource: GroupVersionResource::new("", "v1", "pods"),
        sub_resource: None,
        request_kind: Some(GroupVersionKind::new("", "v1", "Pod")),
        request_resource: Some(GroupVersionResource::new("", "v1", "pods")),
        request_sub_resource: None,
        name: Some("demo-pod".into()),
        namespace: Some("team-a".into()),
        operation,
        user_info: UserInfo {
            username: "alice".into(),
            uid: None,
            groups: vec!["system:authenticated".into()],
            extra: Default::default(),
        },
        object,
        old_object: old,
        dry_run: false,
        options: json!({"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}),
    }
}

fn pod() -> AdmissionRequest {
    let object = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "demo-pod", "namespace": "team-a", "labels": {"env": "prod", "app.kubernetes.io/name": "web"}},
        "spec": {"replicas": 3, "containers": [{"name": "a", "image": "nginx:1.27"}]}
    });
    request(Operation::Create, object, serde_json::Value::Null)
}

fn conditions(list: &[(&str, &str)], failure_policy: Option<&str>) -> MatchConditions {
    let raw: Vec<serde_json::Value> = list.iter().map(|(n, e)| json!({"name": n, "expression": e})).collect();
    MatchConditions::compile(&raw, failure_policy)
}

fn one(expression: &str, r: &AdmissionRequest) -> Outcome {
    conditions(&[("c", expression)], None).evaluate(r).remove(0)
}

#[test]
fn the_variables_are_the_apiservers() {
    let r = pod();
    for expression in [
        "request.userInfo.username == 'alice'",
        "'system:authenticated' in request.userInfo.groups",
        "request.operation == 'CREATE' && request.resource.resource == 'pods' && request.kind.kind == 'Pod'",
        "request.namespace == 'team-a' && request.name == 'demo-pod'",
        "request.uid == '' && request.object == null",
        "!has(request.subResource) && !has(request.userInfo.extra)",
        "request.options.kind == 'CreateOptions' && request.dryRun == false",
        "oldObject == null",
        "object.metadata.labels['app.kubernetes.io/name'] == 'web'",
        "object.spec.replicas == 3 && object.spec.replicas == 3u && object.spec.replicas == 3.0",
        "object.spec.containers.all(c, c.image.contains(':'))",
        "object.metadata.name.startsWith('demo') && object.metadata.name.matches('^demo-')",
        "'TacoCat'.lowerAscii() == 'tacocat'",
        "sets.intersects(request.userInfo.groups, ['system:authenticated', 'x'])",
    ] {
        assert_eq!(one(expression, &r), Outcome::True, "{expression}");
    }
    assert_eq!(one("has(object.metadata.annotations)", &r), Outcome::False);
}

#[test]
fn a_field_of_null_is_an_error_not_false() {
    let r = pod();
    for expression in ["oldObject.metadata.name == 'x'", "oldObject.x.y != 'z'", "object.nonexistent.field == 1"] {
        assert!(matches!(one(expression, &r), Outcome::Error(ref e) if e.contains(expression)), "{expression}");
    }
    // Errors are absorbed as CEL absorbs them.
    assert_eq!(one("oldObject == null || oldObject.metadata.name == 'x'", &r), Outcome::True);
    assert_eq!(one("false && oldObject.metadata.name == 'x'", &r), Outcome::False);
}

#[test]
fn a_non_boolean_result_is_not_taken_as_true() {
    assert!(matches!(one("object.metadata.name", &pod()), Outcome::NotBool(_)));
}

#[test]
fn the_matcher_skips_on_any_false_and_follows_the_failure_policy_on_errors() {
    let r = pod();
    let false_wins =
        conditions(&[("errs", "oldObject.metadata.name == 'x'"), ("no", "request.userInfo.username == 'bob'")], None);
    assert_eq!(false_wins.decide(&r), Decision::Skip("no".into()));
    let errs = [("yes", "true"), ("errs", "oldObject.metadata.name == 'x'")];
    match conditions(&errs, Some("Fail")).decide(&r) {
        Decision::Reject(errors) => assert_eq!(errors[0].0, "errs"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(conditions(&errs, None).decide(&r), Decision::Reject(_)), "no failurePolicy is Fail");
    assert!(matches!(conditions(&errs, Some("Ignore")).decide(&r), Decision::Ignore(_)));
    assert_eq!(conditions(&[("yes", "true"), ("also", "object != null")], None).decide(&r), Decision::Call);
    assert_eq!(conditions(&[], None).decide(&r), Decision::Call);
}

#[test]
fn what_the_interpreter_cannot_evaluate_is_unknown_never_true() {
    let r = pod();
    for (expression, says) in [
        ("cel.bind(x, 1, x == 1)", "cel.bind"),
        ("[1, 2].all(i, v, v > 0)", "two-variable"),
        ("quantity('1Gi').isGreaterThan(quantity('1Mi'))", "quantity"),
        ("request.userInfo.username ==", "cannot parse"),
    ] {
        let c = conditions(&[("c", expression)], None);
        match c.decide(&r) {
            Decision::Unknown(why) => assert!(why[0].1.contains(says), "{expression}: {why:?}"),
            other => panic!("{expression}: {other:?}"),
        }
    }
    // A false elsewhere still decides.
    let c = conditions(&[("c", "cel.bind(x, 1, x == 1)"), ("no", "false")], None);
    assert_eq!(c.decide(&r), Decision::Skip("no".into()));
}

#[test]
fn identifiers_that_are_not_variables_are_named() {
    let c = conditions(
        &[("c", "params.enabled && object.spec.containers.exists(c, c.name == 'x') && [1].map(y, y + 1) == [2]")],
        None,
    );
    assert_eq!(c.conditions()[0].undeclared, vec!["params".to_string()]);
    let c = conditions(&[("c", "sets.contains(['a'], ['a']) && type(1) == int")], None);
    assert!(c.conditions()[0].undeclared.is_empty(), "{:?}", c.conditions()[0].undeclared);
}

#[test]
fn the_authorizer_is_answered_by_the_description_or_reported_unknown() {
    let r = pod();
    let breakglass = "authorizer.group('admissionregistration.k8s.io').resource('validatingwebhookconfigurations').name('my-webhook.example.com').check('breakglass').allowed()";
    let c = conditions(&[("not-breakglass", &format!("!{breakglass}"))], None);
    match c.decide(&r) {
        Decision::Unknown(why) => assert!(why[0].1.contains("--authorizer"), "{why:?}"),
        other => panic!("{other:?}"),
    }
    let policy = Policy::parse(
        "allow:\n  - users: [alice]\n    rules: [{verbs: [breakglass], apiGroups: [admissionregistration.k8s.io], resources: [validatingwebhookconfigurations]}]\n",
    )
    .unwrap();
    let described = c.with_authorizer(Authorizer::Described(std::sync::Arc::new(policy)));
    assert_eq!(described.decide(&r), Decision::Skip("not-breakglass".into()), "alice may break glass");
    let mut bob = r.clone();
    bob.user_info.username = "bob".into();
    assert_eq!(described.decide(&bob), Decision::Call);
    // authorizer.requestResource is the request's own resource; serviceAccount() changes whom is asked.
    let own = conditions(&[("c", "authorizer.requestResource.check('create').allowed()")], None)
        .with_authorizer(described.authorizer().clone());
    assert_eq!(own.decide(&r), Decision::Skip("c".into()), "alice may not create pods");
    let sa = conditions(
        &[("c", "authorizer.serviceAccount('kube-system', 'x').path('/healthz').check('get').allowed() == false")],
        None,
    )
    .with_authorizer(described.authorizer().clone());
    assert_eq!(sa.decide(&r), Decision::Call);
    // Absorbed when the answer does not matter.
    let absorbed = conditions(&[("c", &format!("true || {breakglass}"))], None);
    assert_eq!(absorbed.decide(&r), Decision::Call);
}
