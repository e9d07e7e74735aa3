//! matchConditions: the apiserver calls a webhook only when its conditions are all true
//! (`crate::conditions`). Requests are steered to satisfy them, as they are fitted to the selectors:
//! when a request as built does not satisfy them, variations named by the conditions' own string
//! literals are tried (the user's name, a group, a label or annotation set or removed, the
//! namespace), and the first one the conditions accept is sent; with an `--authorizer`
//! description, the users, groups, service accounts and namespaces it grants are tried too. A user
//! steered to carries the groups the apiserver's authenticators give such a name
//! (`system:serviceaccount:ns:name` the service-account groups, `system:node:name` `system:nodes`).
//! A request no variation saves is not sent: a cluster would not send it to this webhook.

use serde_json::{Map, Value};

use super::fit::{fit, labels_are_free, Selectors};
use super::review::{admission_review, AdmissionSpec};
use crate::admission::{ReviewVersion, UserInfo};
use crate::conditions::{Authorizer, Dispatch, MatchConditions, Outcome};
use crate::config::WebhookSpec;

/// The decision of `conditions` on `spec` as it stands.
fn decide(conditions: &MatchConditions, spec: &AdmissionSpec) -> Dispatch {
    if conditions.is_empty() {
        return Dispatch::Call;
    }
    conditions.decide(&admission_review(ReviewVersion::V1, spec, "").request)
}

/// Each condition's outcome on `spec` as it stands.
pub(crate) fn outcomes(conditions: &MatchConditions, spec: &AdmissionSpec) -> Vec<Outcome> {
    conditions.evaluate(&admission_review(ReviewVersion::V1, spec, "").request)
}

fn trues(conditions: &MatchConditions, spec: &AdmissionSpec) -> usize {
    outcomes(conditions, spec).iter().filter(|o| **o == Outcome::True).count()
}

/// At most this many literals take part in the variations.
const LITERALS: usize = 12;

fn label_name_ok(s: &str) -> bool {
    let bytes = s.as_bytes();
    !s.is_empty()
        && s.len() <= 63
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn label_key_ok(key: &str) -> bool {
    match key.split_once('/') {
        Some((prefix, name)) => {
            !prefix.is_empty()
                && prefix.len() <= 253
                && prefix.split('.').all(|l| label_name_ok(l) && !l.contains('_'))
                && label_name_ok(name)
        }
        None => label_name_ok(key),
    }
}

fn label_value_ok(value: &str) -> bool {
    value.is_empty() || label_name_ok(value)
}

fn dns_label_ok(s: &str) -> bool {
    label_name_ok(s) && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The user named `name` as the apiserver's authenticators present it: the groups its kind of name
/// comes with (`pkg/serviceaccount/util.go` MakeGroupNames, `system:nodes` for a node's client
/// certificate), and `system:authenticated` (`authentication/group/authenticated_group_adder.go`).
/// The suite's default user keeps its own.
fn user_named(name: &str, current: &UserInfo) -> UserInfo {
    if name == current.username {
        return current.clone();
    }
    let default = super::review::default_user();
    if name == default.username {
        return default;
    }
    let mut groups: Vec<String> = Vec::new();
    let mut uid = None;
    if let Some(rest) = name.strip_prefix("system:serviceaccount:") {
        if let Some((namespace, _)) = rest.split_once(':') {
            groups.push("system:serviceaccounts".into());
            groups.push(format!("system:serviceaccounts:{namespace}"));
            uid = Some("5a0c1d2e-0000-4000-8000-00000000005a".to_string());
        }
    } else if name.starts_with("system:node:") {
        groups.push("system:nodes".into());
    }
    if name == "system:anonymous" {
        groups.push("system:unauthenticated".into());
    } else {
        groups.push("system:authenticated".into());
    }
    UserInfo { username: name.to_string(), uid, groups, extra: Default::default() }
}

/// Who an `--authorizer` description grants something to, and where: a user name or a group, and
/// the namespace its rules hold in (the whole cluster when `None`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Subject {
    user: Option<String>,
    group: Option<String>,
    namespace: Option<String>,
}

/// Every [`Subject`] of `authorizer`'s grants (service accounts as their user names).
fn granted(authorizer: &Authorizer) -> Vec<Subject> {
    let mut out: Vec<Subject> = Vec::new();
    let Authorizer::Described(policy) = authorizer else { return out };
    for grant in &policy.allow {
        let namespace = grant.namespace.clone();
        let service_accounts = grant
            .service_accounts
            .iter()
            .filter_map(|sa| sa.split_once('/').map(|(ns, name)| format!("system:serviceaccount:{ns}:{name}")));
        let users = grant.users.iter().cloned().chain(service_accounts);
        let mut subjects: Vec<Subject> =
            users.map(|u| Subject { user: Some(u), group: None, namespace: namespace.clone() }).collect();
        subjects.extend(grant.groups.iter().map(|g| Subject {
            user: None,
            group: Some(g.clone()),
            namespace: namespace.clone(),
        }));
        if subjects.is_empty() && namespace.is_some() {
            subjects.push(Subject { user: None, group: None, namespace });
        }
        for s in subjects {
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out
}

/// Move `spec` (object and old object too) to `namespace`.
fn set_namespace(s: &mut AdmissionSpec, namespace: &str) {
    s.namespace = Some(namespace.to_string());
    for o in [&mut s.object, &mut s.old_object] {
        if let Some(meta) = o.get_mut("metadata").and_then(Value::as_object_mut) {
            if meta.contains_key("namespace") {
                meta.insert("namespace".into(), Value::String(namespace.to_string()));
            }
        }
    }
}

/// The variations of `spec` that the literals name, and those of the subjects an authorizer
/// description grants (one variation per subject, its namespace with it).
fn variations(spec: &AdmissionSpec, literals: &[String], subjects: &[Subject]) -> Vec<AdmissionSpec> {
    let mut out = Vec::new();
    let mut push = |f: &dyn Fn(&mut AdmissionSpec)| {
        let mut v = spec.clone();
        f(&mut v);
        if v != *spec && !out.contains(&v) {
            out.push(v);
        }
    };
    let add_group = |s: &mut AdmissionSpec, group: &String| {
        if !s.user.groups.contains(group) {
            s.user.groups.push(group.clone());
        }
    };
    for l in literals {
        push(&|s| s.user = user_named(l, &s.user));
        push(&|s| add_group(s, l));
        push(&|s| s.user.groups.retain(|g| g != l));
        if spec.namespace.is_some() && dns_label_ok(l) {
            push(&|s| set_namespace(s, l));
        }
    }
    for subject in subjects {
        push(&|s| {
            if let Some(user) = &subject.user {
                s.user = user_named(user, &s.user);
            }
            if let Some(group) = &subject.group {
                add_group(s, group);
            }
            if let (Some(ns), Some(_)) = (&subject.namespace, &s.namespace) {
                set_namespace(s, ns);
            }
        });
    }
    if labels_are_free(spec) {
        for field in ["labels", "annotations"] {
            for key in literals.iter().filter(|k| label_key_ok(k)) {
                push(&|s| edit_map(s, field, key, None));
                for value in literals.iter().filter(|v| *v != key && (field == "annotations" || label_value_ok(v))) {
                    push(&|s| edit_map(s, field, key, Some(value)));
                }
            }
        }
    }
    out
}

/// Set (or with `None` remove) `key` of the object's and old object's `metadata.<field>`.
fn edit_map(spec: &mut AdmissionSpec, field: &str, key: &str, value: Option<&String>) {
    for o in [&mut spec.object, &mut spec.old_object] {
        let Some(meta) = o.get_mut("metadata").and_then(Value::as_object_mut) else { continue };
        let mut map = meta.get(field).and_then(Value::as_object).cloned().unwrap_or_else(Map::new);
        match value {
            Some(v) => {
                map.insert(key.to_string(), Value::String(v.clone()));
            }
            None => {
                if map.remove(key).is_none() {
                    continue;
                }
            }
        }
        meta.insert(field.into(), Value::Object(map));
    }
}

/// Steer `spec` to satisfy the conditions (keeping it inside the selectors); false when neither it
/// nor any variation does (then it is not sent).
pub(crate) fn steer(conditions: &MatchConditions, selectors: &Selectors, spec: &mut AdmissionSpec) -> bool {
    if conditions.is_empty() || decide(conditions, spec).calls() {
        return true;
    }
    let mut literals: Vec<String> = Vec::new();
    for c in conditions.conditions() {
        for l in &c.literals {
            if !literals.contains(l) && literals.len() < LITERALS {
                literals.push(l.clone());
            }
        }
    }
    let subjects = granted(conditions.authorizer());
    // Two rounds: a single variation, then one more on the variation that satisfied the most.
    let mut current = spec.clone();
    for _ in 0..2 {
        let mut best: Option<(usize, AdmissionSpec)> = None;
        let base = trues(conditions, &current);
        for mut v in variations(&current, &literals, &subjects) {
            if !fit(selectors, &mut v) {
                continue;
            }
            if decide(conditions, &v).calls() {
                *spec = v;
                return true;
            }
            let n = trues(conditions, &v);
            if n > base && best.as_ref().is_none_or(|(b, _)| n > *b) {
                best = Some((n, v));
            }
        }
        match best {
            Some((_, v)) => current = v,
            None => return false,
        }
    }
    false
}

/// What a webhook's matchConditions did to the requests of the default run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Requests the rules and selectors select (one per object variant).
    pub planned: usize,
    /// Sent as built: every condition held.
    pub as_built: usize,
    /// Sent after steering.
    pub steered: usize,
    /// Not sent: a condition is false whatever the variation.
    pub skipped: usize,
    /// Not sent: conditions error (and none is false), so the apiserver rejects the request
    /// (failurePolicy Fail) or skips the webhook (Ignore).
    pub errored: usize,
    /// Not sent: a condition the suite cannot evaluate decides it.
    pub unknown: usize,
}

/// The [`Tally`] of `webhook`'s matchConditions over `planned` (the default run's requests as built).
pub(crate) fn tally(webhook: &WebhookSpec, planned: Vec<AdmissionSpec>) -> Tally {
    let selectors = Selectors::of(webhook);
    let mut t = Tally { planned: planned.len(), ..Tally::default() };
    for mut spec in planned {
        match decide(&webhook.conditions, &spec) {
            Dispatch::Call => t.as_built += 1,
            _ if steer(&webhook.conditions, &selectors, &mut spec) => t.steered += 1,
            Dispatch::Skip(_) => t.skipped += 1,
            Dispatch::Reject(_) | Dispatch::Ignore(_) => t.errored += 1,
            Dispatch::Unknown(_) => t.unknown += 1,
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::Operation;
    use crate::config::WebhookKind;
    use crate::requests::{admission_spec, built_ins, Selected, Variant};
    use serde_json::json;

    fn pod(op: Operation, variant: Variant) -> AdmissionSpec {
        let resource = built_ins().iter().find(|r| r.plural == "pods").unwrap().clone();
        let target = Selected { resource, subresource: None, operation: op, named: true, converted_from: None };
        admission_spec(&target, variant, WebhookKind::Validating)
    }

    fn conditions(list: &[&str]) -> MatchConditions {
        let raw: Vec<Value> =
            list.iter().enumerate().map(|(i, e)| json!({"name": format!("c{i}"), "expression": e})).collect();
        MatchConditions::compile(&raw, None)
    }

    #[test]
    fn a_request_the_conditions_accept_is_left_alone() {
        let c = conditions(&["request.userInfo.username != 'alice'"]);
        let mut spec = pod(Operation::Create, Variant::Labelled);
        let before = spec.clone();
        assert!(steer(&c, &Selectors::default(), &mut spec));
        assert_eq!(spec, before);
    }

    #[test]
    fn requests_are_steered_by_the_literals_of_the_conditions() {
        let mut spec = pod(Operation::Create, Variant::Bare);
        let c = conditions(&["request.userInfo.username == 'alice'"]);
        assert!(steer(&c, &Selectors::default(), &mut spec));
        assert_eq!(spec.user.username, "alice");
        let c = conditions(&["object.metadata.labels['team'] == 'payments'"]);
        let mut spec = pod(Operation::Create, Variant::Bare);
        assert!(steer(&c, &Selectors::default(), &mut spec));
        assert_eq!(spec.object["metadata"]["labels"]["team"], "payments");
        // Excluding a label removes it.
        let c = conditions(&["!has(object.metadata.labels) || !('app' in object.metadata.labels)"]);
        let mut spec = pod(Operation::Create, Variant::Labelled);
        assert!(steer(&c, &Selectors::default(), &mut spec));
        assert!(spec.object["metadata"]["labels"].get("app").is_none(), "{}", spec.object);
        // Two conditions needing two changes.
        let c = conditions(&["'ops' in request.userInfo.groups", "request.namespace == 'payments'"]);
        let mut spec = pod(Operation::Create, Variant::Bare);
        assert!(steer(&c, &Selectors::default(), &mut spec));
        assert!(spec.user.groups.contains(&"ops".to_string()) && spec.namespace.as_deref() == Some("payments"));
        assert_eq!(spec.object["metadata"]["namespace"], "payments");
    }

    #[test]
    fn a_steered_user_carries_the_groups_of_its_name() {
        let c = conditions(&["request.userInfo.username == 'system:serviceaccount:team-a:deployer'"]);
        let mut spec = pod(Operation::Create, Variant::Bare);
        assert!(steer(&c, &Selectors::default(), &mut spec));
        assert_eq!(spec.user.username, "system:serviceaccount:team-a:deployer");
        assert_eq!(
            spec.user.groups,
            ["system:serviceaccounts", "system:serviceaccounts:team-a", "system:authenticated"].map(String::from)
        );
        let c = conditions(&[
            "request.userInfo.username.startsWith('system:node:') || request.userInfo.username == 'system:node:n1'",
        ]);
        let mut spec = pod(Operation::Create, Variant::Bare);
        assert!(steer(&c, &Selectors::default(), &mut spec));
        assert_eq!(spec.user.groups, ["system:nodes", "system:authenticated"].map(String::from));
        // The admin's group goes with the admin.
        let c = conditions(&["request.userInfo.username == 'alice'"]);
        let mut spec = pod(Operation::Create, Variant::Bare);
        assert!(steer(&c, &Selectors::default(), &mut spec));
        assert_eq!(spec.user.groups, ["system:authenticated"].map(String::from));
        assert_eq!(spec.user.uid, None);
    }

    fn described(policy: Value) -> Authorizer {
        Authorizer::Described(std::sync::Arc::new(serde_json::from_value(policy).unwrap()))
    }

    #[test]
    fn requests_are_steered_to_the_subjects_an_authorizer_description_grants() {
        let check = "authorizer.group('').resource('pods').check('create').allowed()";
        let cases = [
            (
                json!({"allow": [{"users": ["alice"], "rules": [{"verbs": ["create"], "apiGroups": [""], "resources": ["pods"]}]}]}),
                "alice",
                None,
            ),
            (
                json!({"allow": [{"groups": ["deployers"], "rules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}]}]}),
                "kubernetes-admin",
                Some("deployers"),
            ),
            (
                json!({"allow": [{"serviceAccounts": ["ci/builder"], "rules": [{"verbs": ["create"], "apiGroups": [""], "resources": ["pods"]}]}]}),
                "system:serviceaccount:ci:builder",
                Some("system:serviceaccounts:ci"),
            ),
        ];
        for (policy, user, group) in cases {
            let c = conditions(&[check]).with_authorizer(described(policy));
            let mut spec = pod(Operation::Create, Variant::Bare);
            assert!(!decide(&c, &spec).calls(), "the default user is not granted it");
            assert!(steer(&c, &Selectors::default(), &mut spec), "{user}");
            assert_eq!(spec.user.username, user);
            if let Some(g) = group {
                assert!(spec.user.groups.iter().any(|x| x == g), "{:?}", spec.user.groups);
            }
        }
        // A grant that holds in one namespace moves a namespaced request there.
        let policy = json!({"allow": [{"users": ["alice"], "namespace": "team-b", "rules": [{"verbs": ["create"], "apiGroups": [""], "resources": ["pods"]}]}]});
        let c =
            conditions(&["authorizer.requestResource.check('create').allowed()"]).with_authorizer(described(policy));
        let mut spec = pod(Operation::Create, Variant::Bare);
        assert!(steer(&c, &Selectors::default(), &mut spec));
        assert_eq!((spec.user.username.as_str(), spec.namespace.as_deref()), ("alice", Some("team-b")));
    }

    #[test]
    fn what_no_variation_saves_is_not_sent() {
        // DELETE has no object: a condition on the object errors, whatever the labels.
        let c = conditions(&["object.metadata.labels['team'] == 'payments'"]);
        let mut spec = pod(Operation::Delete, Variant::Bare);
        assert!(!steer(&c, &Selectors::default(), &mut spec));
        assert!(!steer(&conditions(&["false"]), &Selectors::default(), &mut pod(Operation::Create, Variant::Bare)));
        // Unevaluable is never taken as true.
        let c = conditions(&["cel.bind(x, 1, x == 1)"]);
        assert!(!steer(&c, &Selectors::default(), &mut pod(Operation::Create, Variant::Bare)));
    }

    #[test]
    fn steering_stays_inside_the_selectors() {
        let selectors = Selectors {
            object: None,
            namespace: crate::config::LabelSelector::parse(Some(&json!({"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["payments"]}]}))).unwrap(),
        };
        let c = conditions(&["request.namespace == 'payments'"]);
        assert!(!steer(&c, &selectors, &mut pod(Operation::Create, Variant::Bare)));
    }

    #[test]
    fn literals_that_are_not_label_keys_are_not_made_labels() {
        assert!(label_key_ok("app.kubernetes.io/name") && label_key_ok("team"));
        assert!(!label_key_ok("system:nodes") && !label_key_ok("a b") && !label_key_ok("/x"));
        assert!(label_value_ok("") && !label_value_ok("héllo"));
    }
}
