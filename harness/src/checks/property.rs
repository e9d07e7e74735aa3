//! The checks of the properties: each judges the [`Observation`] of the calls a property made for one
//! generated (or case) request, following its [`Procedure`].

use std::sync::Arc;

use serde_json::Value;

use crate::client::Transport;
use crate::config::{WebhookKind, WebhookSpec};
use crate::diff;
use crate::exchange::ExchangeRecord;
use crate::requests::RequestCase;
use crate::verdict::{Check, Outcome};

/// Which calls a property makes for one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Procedure {
    /// One call.
    Once,
    /// The same request twice, each with a fresh uid.
    Twice,
    /// The request with `dryRun: false` and with `dryRun: true` (and a second `false` when they
    /// differ, to tell non-determinism apart).
    DryRun,
    /// The request, then its own result admitted again.
    Readmit,
    /// The request, its result after another mutator's edit, and that reinvocation's result again.
    Reinvoke,
    /// No call: the property judges the configuration.
    Static,
}

/// One call a property made, and what it was for.
#[derive(Clone, Debug)]
pub struct Call {
    /// e.g. `first`, `again (fresh uid)`, `dryRun=true`.
    pub role: String,
    /// The request was derived by the property (the webhook's own result admitted again, another
    /// mutator's edit, `dryRun` switched on), not the request itself.
    pub derived: bool,
    /// The call and its verdicts.
    pub record: ExchangeRecord,
}

impl Call {
    /// The object the apiserver carries on with after this answer (`None`: the patch did not apply).
    pub fn resulting(&self) -> Option<Value> {
        self.record.view().resulting_object()
    }
    /// `response.allowed` as the apiserver reads it (`None`: no readable answer).
    pub fn allowed(&self) -> Option<bool> {
        self.record.view().allowed()
    }
    /// The FAIL findings of the per-answer rules.
    pub fn failures(&self) -> Vec<String> {
        self.record.failures()
    }
}

/// Every call one property made for one generated case.
#[derive(Clone, Debug)]
pub struct Observation {
    /// The webhook called.
    pub webhook: Arc<WebhookSpec>,
    /// The generated request.
    pub input: Option<RequestCase>,
    /// The calls, in order.
    pub calls: Vec<Call>,
}

impl Observation {
    fn call(&self, role_prefix: &str) -> Option<&Call> {
        self.calls.iter().find(|c| c.role.starts_with(role_prefix))
    }
}

/// The first call of `obs` that got no answer at all (the connection closed, the deadline passed,
/// …). That is its transport rule's finding, reported under that rule whichever request the call
/// carried; the property is not judged on this case.
pub(crate) fn unanswered(obs: &Observation) -> Option<&Call> {
    obs.calls.iter().find(|c| matches!(c.record.transport, Transport::Failed(_)))
}

/// A call got no answer: the property is not judged on this case (the transport rule reports it).
fn no_answer(obs: &Observation) -> Option<Check> {
    let call = unanswered(obs)?;
    let rule = call
        .record
        .findings
        .iter()
        .find(|f| matches!(f.outcome(), Outcome::Fail | Outcome::Warn))
        .map_or("a transport rule", |f| f.rule);
    Some(Check::na(format!("not judged: the {} call got no answer ({rule}, reported under that rule)", call.role)))
}

/// The request itself (not one the property derived from it) breaks a FAIL rule: that is the rule's
/// finding, reported under the rule with this request; the property does not apply.
fn request_breach(obs: &Observation) -> Option<Check> {
    let call = obs.calls.iter().filter(|c| !c.derived).find(|c| !c.failures().is_empty())?;
    let rule = call.record.findings.iter().find(|f| f.outcome() == Outcome::Fail).map(|f| f.rule).unwrap_or_default();
    Some(Check::na(format!("the request itself breaks {rule} (reported under that rule)")))
}

/// A request the property derived breaks a FAIL rule the request itself does not: the property's own
/// finding (e.g. `patchType` without a patch only when re-admitting its own result).
fn derived_breach(obs: &Observation) -> Option<Check> {
    let call = obs.calls.iter().filter(|c| c.derived).find(|c| !c.failures().is_empty())?;
    Some(Check::violated_plain(format!(
        "the {} call's answer breaks the contract, which the request itself does not: {}",
        call.role,
        call.failures().join("; ")
    )))
}

/// The verdict of the attribution rules, if they decide: a call without an answer is its transport
/// rule's finding and the request's own breach is not the property's (neither is judged); a derived
/// request's breach is.
fn attributed(obs: &Observation) -> Option<Check> {
    no_answer(obs).or_else(|| request_breach(obs)).or_else(|| derived_breach(obs))
}

pub(crate) fn same(a: &Call, b: &Call) -> bool {
    let (a, b) = (a.record.view(), b.record.view());
    // `same` is `==`, with members that stand in the same order compared without a lookup.
    a.allowed() == b.allowed()
        && match (a.resulting(), b.resulting()) {
            (Some(x), Some(y)) => apiserver_validation::same::same(x, y),
            (x, y) => x.is_none() && y.is_none(),
        }
}

pub(crate) fn difference(a: &Call, b: &Call) -> String {
    if a.allowed() != b.allowed() {
        return format!("decision {:?} on the {} call, {:?} on the {} call", a.allowed(), a.role, b.allowed(), b.role);
    }
    match (a.resulting(), b.resulting()) {
        (Some(x), Some(y)) => {
            let d = diff::diff(&x, &y);
            let first = d.first().map(|c| c.pointer.clone()).unwrap_or_default();
            format!("the resulting objects differ at {} place(s), first {first}", d.len())
        }
        _ => "the patch of one call does not apply".to_string(),
    }
}

fn mutating_first(obs: &Observation) -> Result<&Call, Check> {
    if obs.webhook.kind != WebhookKind::Mutating {
        return Err(Check::na("a validating webhook does not mutate"));
    }
    if let Some(c) = attributed(obs) {
        return Err(c);
    }
    let first = obs.call("first").ok_or_else(|| Check::na("no request"))?;
    if first.allowed() != Some(true) {
        return Err(Check::na("the first call denied the request"));
    }
    if first.record.case.object().is_null() {
        return Err(Check::na("no object to mutate"));
    }
    Ok(first)
}

pub(crate) fn check_idempotent(obs: &Observation) -> Check {
    let first = match mutating_first(obs) {
        Ok(f) => f,
        Err(c) => return c,
    };
    let Some(again) = obs.call("again") else { return Check::na("no re-admission") };
    if same(first, again) {
        return Check::Pass;
    }
    Check::violated_plain(format!(
        "admitting its own result again changes it: {} (a reinvoked or repeated admission would change the object again)",
        difference(first, again)
    ))
}

fn policy_note(w: &WebhookSpec) -> String {
    match w.reinvocation_policy.as_deref() {
        Some("IfNeeded") => " [reinvocationPolicy: IfNeeded: a cluster calls it again after other mutations]".into(),
        p => format!(
            " [reinvocationPolicy: {}: a cluster calls it once per admission, but the docs require every mutating webhook to be idempotent, and the object can already contain its change]",
            p.unwrap_or("Never (default)")
        ),
    }
}

/// Names that occur more than once in an array of named items (containers, env, volumes, …), as
/// `/path/of/the/array: "name"`.
fn duplicated_names(value: &Value, out: &mut Vec<String>) {
    let mut path = Vec::new();
    walk_named(value, &mut path, out);
}

/// [`duplicated_names`] under the object members `path` leads through (the path written only for
/// a duplicate).
fn walk_named<'v>(value: &'v Value, path: &mut Vec<&'v str>, out: &mut Vec<String>) {
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                path.push(k);
                walk_named(v, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            let mut seen = std::collections::HashSet::new();
            for item in items {
                if let Some(name) = item.get("name").and_then(Value::as_str) {
                    if !seen.insert(name) {
                        out.push(format!("{}: {name:?}", path.iter().map(|k| format!("/{k}")).collect::<String>()));
                    }
                }
                walk_named(item, path, out);
            }
        }
        _ => {}
    }
}

pub(crate) fn check_reinvocation(obs: &Observation) -> Check {
    let first = match mutating_first(obs) {
        Ok(f) => f,
        Err(c) => return c,
    };
    let note = policy_note(&obs.webhook);
    let (Some(second), Some(third)) = (obs.call("second"), obs.call("third")) else {
        return Check::na("no reinvocation");
    };
    if second.allowed() != Some(true) {
        return Check::violated_plain(format!("after another mutator's edit the reinvocation denies the object{note}"));
    }
    let (second_view, first_view) = (second.record.view(), first.record.view());
    let (Some(r2), Some(_)) = (second_view.resulting(), first_view.resulting()) else {
        return Check::na("a patch did not apply");
    };
    let mut before = Vec::new();
    duplicated_names(second.record.case.object(), &mut before);
    let mut after = Vec::new();
    duplicated_names(r2, &mut after);
    let added: Vec<&String> = after.iter().filter(|d| !before.contains(d)).collect();
    if !added.is_empty() {
        return Check::violated_plain(format!(
            "the reinvocation re-adds what the first call already added: duplicate {}{note}",
            added.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    if !same(second, third) {
        return Check::violated_plain(format!(
            "the reinvoked result is not a fixed point: {}{note}",
            difference(second, third)
        ));
    }
    Check::Pass
}

pub(crate) fn check_deterministic(obs: &Observation) -> Check {
    if let Some(c) = attributed(obs) {
        return c;
    }
    let (Some(a), Some(b)) = (obs.call("first"), obs.call("again")) else { return Check::na("no repeat") };
    if same(a, b) {
        Check::Pass
    } else {
        Check::violated_plain(format!("the same request with a fresh uid gets another answer: {}", difference(a, b)))
    }
}

pub(crate) fn dry_run_supported(w: &WebhookSpec) -> bool {
    matches!(w.side_effects.as_deref(), Some("None") | Some("NoneOnDryRun"))
}

pub(crate) fn check_dry_run(obs: &Observation) -> Check {
    if !dry_run_supported(&obs.webhook) {
        return Check::na("the apiserver sends it no dry-run request (see property.dry-run-config)");
    }
    if let Some(c) = attributed(obs) {
        return c;
    }
    let (Some(real), Some(dry)) = (obs.call("dryRun=false"), obs.call("dryRun=true")) else {
        return Check::na("no pair");
    };
    if same(real, dry) {
        return Check::Pass;
    }
    if let Some(again) = obs.call("again dryRun=false") {
        if !same(real, again) {
            return Check::na("the webhook answers the same request differently anyway (see property.deterministic)");
        }
    }
    Check::violated_plain(format!("dryRun: true is answered differently from dryRun: false: {}", difference(real, dry)))
}

pub(crate) fn check_dry_run_config(obs: &Observation) -> Check {
    match obs.webhook.side_effects.as_deref() {
        Some("None") | Some("NoneOnDryRun") => Check::Pass,
        other => Check::violated(
            format!("sideEffects is {}: only None and NoneOnDryRun are accepted on create, and dry-run requests to this webhook are refused", other.map(|s| format!("{s:?}")).unwrap_or_else(|| "not set".into())),
            format!("admission webhook {:?} does not support dry run", obs.webhook.name),
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn duplicated_names_are_found_with_their_arrays_path() {
        let pod = json!({
            "metadata": {"name": "p", "ownerReferences": [{"name": "o"}, {"name": "o2"}]},
            "spec": {
                "containers": [
                    {"name": "app", "env": [{"name": "A"}, {"name": "B"}, {"name": "A"}]},
                    {"name": "sidecar"},
                    {"name": "app"}
                ],
                "volumes": [{"name": "v"}, {"name": 1}, {"name": 1}]
            }
        });
        let mut found = Vec::new();
        duplicated_names(&pod, &mut found);
        assert_eq!(found, ["/spec/containers/env: \"A\"", "/spec/containers: \"app\""]);
        let mut none = Vec::new();
        duplicated_names(&pod["metadata"], &mut none);
        assert!(none.is_empty(), "{none:?}");
    }
}
