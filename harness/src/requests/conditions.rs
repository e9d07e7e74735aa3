//! matchConditions: the apiserver calls a webhook only when its conditions are all true
//! (`crate::conditions`). Requests are steered to satisfy them, as they are fitted to the selectors:
//! when a request as built does not satisfy them, variations named by the conditions' own string
//! literals are tried (the user's name, a group, a label or annotation set or removed, the
//! namespace), and the first one the conditions accept is sent. A request no variation saves is not
//! sent: a cluster would not send it to this webhook.

use serde_json::{Map, Value};

use super::fit::{fit, labels_are_free, Selectors};
use super::review::{admission_review, AdmissionSpec};
use crate::admission::ReviewVersion;
use crate::conditions::{Decision, MatchConditions, Outcome};
use crate::config::WebhookSpec;

/// The decision of `conditions` on `spec` as it stands.
fn decide(conditions: &MatchConditions, spec: &AdmissionSpec) -> Decision {
    if conditions.is_empty() {
        return Decision::Call;
    }
    conditions.decide(&admission_review(ReviewVersion::V1, spec, "").request)
}

/// Each condition's outcome on `spec` as it stands.
pub fn outcomes(conditions: &MatchConditions, spec: &AdmissionSpec) -> Vec<Outcome> {
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

/// The variations of `spec` that the literals name.
fn variations(spec: &AdmissionSpec, literals: &[String]) -> Vec<AdmissionSpec> {
    let mut out = Vec::new();
    let mut push = |f: &dyn Fn(&mut AdmissionSpec)| {
        let mut v = spec.clone();
        f(&mut v);
        if v != *spec && !out.contains(&v) {
            out.push(v);
        }
    };
    for l in literals {
        push(&|s| s.user.username = l.clone());
        push(&|s| {
            if !s.user.groups.contains(l) {
                s.user.groups.push(l.clone());
            }
        });
        push(&|s| s.user.groups.retain(|g| g != l));
        if spec.namespace.is_some() && dns_label_ok(l) {
            push(&|s| {
                s.namespace = Some(l.clone());
                for o in [&mut s.object, &mut s.old_object] {
                    if let Some(meta) = o.get_mut("metadata").and_then(Value::as_object_mut) {
                        if meta.contains_key("namespace") {
                            meta.insert("namespace".into(), Value::String(l.clone()));
                        }
                    }
                }
            });
        }
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
pub fn steer(conditions: &MatchConditions, selectors: &Selectors, spec: &mut AdmissionSpec) -> bool {
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
    // Two rounds: a single variation, then one more on the variation that satisfied the most.
    let mut current = spec.clone();
    for _ in 0..2 {
        let mut best: Option<(usize, AdmissionSpec)> = None;
        let base = trues(conditions, &current);
        for mut v in variations(&current, &literals) {
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
pub struct Tally {
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
pub fn tally(webhook: &WebhookSpec, planned: Vec<AdmissionSpec>) -> Tally {
    let selectors = Selectors::of(webhook);
    let mut t = Tally { planned: planned.len(), ..Tally::default() };
    for mut spec in planned {
        match decide(&webhook.conditions, &spec) {
            Decision::Call => t.as_built += 1,
            _ if steer(&webhook.conditions, &selectors, &mut spec) => t.steered += 1,
            Decision::Skip(_) => t.skipped += 1,
            Decision::Reject(_) | Decision::Ignore(_) => t.errored += 1,
            Decision::Unknown(_) => t.unknown += 1,
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::Operation;
    use crate::config::WebhookKind;
    use crate::requests::{admission_spec, built_ins, Target, Variant};
    use serde_json::json;

    fn pod(op: Operation, variant: Variant) -> AdmissionSpec {
        let resource = built_ins().iter().find(|r| r.plural == "pods").unwrap().clone();
        let target = Target { resource, subresource: None, operation: op, named: true, converted_from: None };
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
