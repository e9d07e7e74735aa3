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
        object: object.into(),
        old_object: old.into(),
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
    // A result the type check cannot tell (a conditional's arms of different types) is judged when run.
    assert!(matches!(one("object.metadata.name != '' ? object.metadata.name : true", &pod()), Outcome::NotBool(_)));
}

#[test]
fn the_matcher_skips_on_any_false_and_follows_the_failure_policy_on_errors() {
    let r = pod();
    let false_wins =
        conditions(&[("errs", "oldObject.metadata.name == 'x'"), ("no", "request.userInfo.username == 'bob'")], None);
    assert_eq!(false_wins.decide(&r), Dispatch::Skip("no".into()));
    let errs = [("yes", "true"), ("errs", "oldObject.metadata.name == 'x'")];
    match conditions(&errs, Some("Fail")).decide(&r) {
        Dispatch::Reject(errors) => assert_eq!(errors[0].0, "errs"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(conditions(&errs, None).decide(&r), Dispatch::Reject(_)), "no failurePolicy is Fail");
    assert!(matches!(conditions(&errs, Some("Ignore")).decide(&r), Dispatch::Ignore(_)));
    assert_eq!(conditions(&[("yes", "true"), ("also", "object != null")], None).decide(&r), Dispatch::Call);
    assert_eq!(conditions(&[], None).decide(&r), Dispatch::Call);
}

#[test]
fn what_the_interpreter_cannot_evaluate_is_unknown_never_true() {
    let r = pod();
    for (expression, says) in [
        ("cel.bind(x, 1, x == 1)", "cel.bind"),
        ("[1, 2].all(i, v, v > 0)", "two-variable"),
        ("isSemver('1.2.3')", "isSemver"),
        ("request.userInfo.username ==", "cannot parse"),
    ] {
        let c = conditions(&[("c", expression)], None);
        match c.decide(&r) {
            Dispatch::Unknown(why) => assert!(why[0].1.contains(says), "{expression}: {why:?}"),
            other => panic!("{expression}: {other:?}"),
        }
    }
    // A false elsewhere still decides.
    let c = conditions(&[("c", "cel.bind(x, 1, x == 1)"), ("no", "false")], None);
    assert_eq!(c.decide(&r), Dispatch::Skip("no".into()));
}

#[test]
fn quantities_decide_and_a_quantity_error_is_unknown_never_a_rejection() {
    let r = pod();
    let c = conditions(&[("big", "quantity('1Gi').isGreaterThan(quantity('1Mi'))")], None);
    assert_eq!(c.decide(&r), Dispatch::Call);
    let c = conditions(&[("small", "quantity('1Gi').isLessThan(quantity('1Mi'))")], None);
    assert_eq!(c.decide(&r), Dispatch::Skip("small".into()));
    let c = conditions(&[("tls", "url('https://registry.example.com:5000/v2').getScheme() == 'https'")], None);
    assert_eq!(c.decide(&r), Dispatch::Call);
    let c = conditions(&[("private", "ip('10.1.2.3').isLoopback()")], None);
    assert_eq!(c.decide(&r), Dispatch::Skip("private".into()));
    // string(<IP>) is ip.go's, which the interpreter's own `string` does not know.
    let c = conditions(&[("text", "string(ip('10.1.2.3')) == '10.1.2.3'")], None);
    assert!(matches!(c.decide(&r), Dispatch::Unknown(_)), "{:?}", c.decide(&r));
    // `quantity('200K')` errs in the apiserver (ErrSuffix, in cel-go's wording): under failurePolicy
    // Fail that rejects the request there; the suite does not claim the words, so it is unknown.
    let c = conditions(&[("bad", "quantity('200K').isGreaterThan(quantity('1'))")], None);
    match c.decide(&r) {
        Dispatch::Unknown(why) => assert!(why[0].1.contains("quantity() errs"), "{why:?}"),
        other => panic!("{other:?}"),
    }
    // An operator the interpreter does not apply to a quantity (cel-go refuses it at compile time).
    let c = conditions(&[("op", "quantity('1') < quantity('2')")], None);
    match c.decide(&r) {
        Dispatch::Unknown(why) => assert!(why[0].1.contains("Kubernetes CEL library"), "{why:?}"),
        other => panic!("{other:?}"),
    }
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
        Dispatch::Unknown(why) => assert!(why[0].1.contains("--authorizer"), "{why:?}"),
        other => panic!("{other:?}"),
    }
    let policy = Policy::parse(
        "allow:\n  - users: [alice]\n    rules: [{verbs: [breakglass], apiGroups: [admissionregistration.k8s.io], resources: [validatingwebhookconfigurations]}]\n",
    )
    .unwrap();
    let described = c.with_authorizer(Authorizer::Described(std::sync::Arc::new(policy)));
    assert_eq!(described.decide(&r), Dispatch::Skip("not-breakglass".into()), "alice may break glass");
    let mut bob = r.clone();
    bob.user_info.username = "bob".into();
    assert_eq!(described.decide(&bob), Dispatch::Call);
    // authorizer.requestResource is the request's own resource; serviceAccount() changes whom is asked.
    let own = conditions(&[("c", "authorizer.requestResource.check('create').allowed()")], None)
        .with_authorizer(described.authorizer().clone());
    assert_eq!(own.decide(&r), Dispatch::Skip("c".into()), "alice may not create pods");
    let sa = conditions(
        &[("c", "authorizer.serviceAccount('kube-system', 'x').path('/healthz').check('get').allowed() == false")],
        None,
    )
    .with_authorizer(described.authorizer().clone());
    assert_eq!(sa.decide(&r), Dispatch::Call);
    // Absorbed when the answer does not matter.
    let absorbed = conditions(&[("c", &format!("true || {breakglass}"))], None);
    assert_eq!(absorbed.decide(&r), Dispatch::Call);
}

/// What the apiserver answers on create for a condition, if it refuses it.
fn refused(expression: &str) -> Option<String> {
    conditions(&[("c", expression)], None).conditions()[0].refused.clone().map(|r| r.apiserver)
}

#[test]
fn the_apiservers_type_check_refuses_what_cel_go_refuses_in_its_words() {
    let cases = [
        (
            "request.userInfo.username == 1",
            "compilation failed: ERROR: <input>:1:27: found no matching overload for '_==_' applied to '(string, int)'\n | request.userInfo.username == 1\n | ..........................^",
        ),
        (
            "request.dryRun == 'true'",
            "compilation failed: ERROR: <input>:1:16: found no matching overload for '_==_' applied to '(bool, string)'\n | request.dryRun == 'true'\n | ...............^",
        ),
        (
            "request.userInfo.nme == 'alice'",
            "compilation failed: ERROR: <input>:1:17: undefined field 'nme'\n | request.userInfo.nme == 'alice'\n | ................^",
        ),
        // Trimmed before it is compiled: the column counts from the first non-blank character. A
        // macro's expansion is placed where the macro is called (its parenthesis), as cel-go places it.
        (
            "  has(request.uid)",
            "compilation failed: ERROR: <input>:1:4: undefined field 'uid'\n | has(request.uid)\n | ...^",
        ),
        ("request.userInfo.username", "must evaluate to bool but got string"),
        ("object.metadata.name", "must evaluate to bool but got dyn"),
        ("request.userInfo.groups", "must evaluate to bool but got list(string)"),
        (
            "1 in request.userInfo.groups",
            "compilation failed: ERROR: <input>:1:3: found no matching overload for '@in' applied to '(int, list(string))'\n | 1 in request.userInfo.groups\n | ..^",
        ),
        (
            "request.name.startsWith(1)",
            "compilation failed: ERROR: <input>:1:24: found no matching overload for 'startsWith' applied to 'string.(int)'\n | request.name.startsWith(1)\n | .......................^",
        ),
        (
            "authorizer.group('').resource('pods').check(1).allowed()",
            "compilation failed: ERROR: <input>:1:44: found no matching overload for 'check' applied to 'kubernetes.authorization.ResourceCheck.(int)'\n | authorizer.group('').resource('pods').check(1).allowed()\n | ...........................................^",
        ),
        (
            "request.userInfo.username == 1 || request.kind.knd == 'Pod'",
            "compilation failed: ERROR: <input>:1:27: found no matching overload for '_==_' applied to '(string, int)'\n | request.userInfo.username == 1 || request.kind.knd == 'Pod'\n | ..........................^\nERROR: <input>:1:47: undefined field 'knd'\n | request.userInfo.username == 1 || request.kind.knd == 'Pod'\n | ..............................................^",
        ),
    ];
    for (expression, says) in cases {
        assert_eq!(refused(expression).as_deref(), Some(says), "{expression}");
        // The requests it would decide are not sent, and the reason is named.
        let outcome = one(expression, &pod());
        assert!(matches!(&outcome, Outcome::Unevaluable(why) if why.contains(says)), "{expression}: {outcome:?}");
    }
}

#[test]
fn the_type_check_accepts_what_the_apiserver_compiles() {
    for expression in [
        "request.userInfo.username == 'alice'",
        "'system:authenticated' in request.userInfo.groups",
        "request.operation == 'CREATE' && request.resource.resource == 'pods' && request.kind.kind == 'Pod'",
        "request.namespace == 'team-a' && request.name == 'demo-pod'",
        "!has(request.subResource) && !has(request.userInfo.extra)",
        "request.options.kind == 'CreateOptions' && request.dryRun == false",
        "oldObject == null",
        "object.metadata.labels['app.kubernetes.io/name'] == 'web'",
        "object.spec.replicas == 3 && object.spec.replicas == 3u && object.spec.replicas == 3.0",
        "object.spec.containers.all(c, c.image.contains(':'))",
        "object.spec.containers.exists_one(c, c.name == 'a') && object.spec.containers.map(c, c.name).size() > 0",
        "object.spec.containers.filter(c, c.name == 'a').size() == 1",
        "request.userInfo.groups.exists(g, g.startsWith('system:'))",
        "request.userInfo.extra.exists(k, k == 'scopes') || size(request.userInfo.extra) == 0",
        "object.metadata.name.startsWith('demo') && object.metadata.name.matches('^demo-')",
        "'TacoCat'.lowerAscii() == 'tacocat'",
        "sets.intersects(request.userInfo.groups, ['system:authenticated', 'x'])",
        "size(request.userInfo.groups) < 3.5 && request.requestKind.version in ['v1', 'v2']",
        "authorizer.group('').resource('pods').namespace('a').check('create').allowed()",
        "authorizer.requestResource.check('update').reason() != '' || authorizer.path('/x').check('get').allowed()",
        "authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('get').allowed()",
        "object.spec.enabled ? true : request.dryRun",
        "  request.userInfo.username != ''  ",
    ] {
        assert_eq!(refused(expression), None, "{expression}");
    }
}
