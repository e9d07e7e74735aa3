//! A CustomResourceDefinition's `x-kubernetes-validations`, evaluated on a custom resource as the
//! apiextensions-apiserver evaluates them (`apiextensions-apiserver/pkg/apiserver/schema/cel/
//! validation.go`, `Validator.validate`, `validateExpressions`): each rule is a CEL expression over
//! `self` (the value of the schema node it is written on; at the root, the object with apiVersion,
//! kind and metadata's name and generateName) and, in a transition rule, `oldSelf` (the value on
//! UPDATE, correlated by property name, map key, or a `map` list's keys; a transition rule is not
//! evaluated without an old value unless `optionalOldSelf`). A false rule is a field error at the
//! node (or at its `fieldPath`): `reason` picks the type (Invalid by default, Forbidden, Required,
//! Duplicate), the detail is `messageExpression`'s value, else `message`, else `failed rule:
//! <rule>`; an object or array is not printed (`field.OmitValueType`). On UPDATE a rule that is not
//! a transition rule and fails on a value the old object had too is only a warning (validation
//! ratcheting).
//!
//! The interpreter is the `cel` crate with the functions of `library.rs`: a rule it cannot parse or
//! evaluate (a function of the Kubernetes libraries it lacks, `optionalOldSelf`, an evaluation error
//! whose wording the suite cannot vouch for) is returned among [`RuleVerdict::unevaluable`], never
//! as a breach and never as a pass.

use apiserver_validation::crd::value::bad_value;
use apiserver_validation::field::{BadValue, FieldError};
use cel::{Context, ExecutionError, Value as CelValue};
use serde_json::{Map, Value};

use super::{environment, library, value};

/// What the rules say of one object.
#[derive(Debug, Default, PartialEq)]
pub struct RuleVerdict {
    /// The rules broken, as field errors in the apiserver's words.
    pub errors: Vec<FieldError>,
    /// The rules the suite could not evaluate: `<field path>: '<rule>': why`.
    pub unevaluable: Vec<String>,
}

/// Whether `schema` has any `x-kubernetes-validations` rule.
pub fn has_rules(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            map.get("x-kubernetes-validations").and_then(Value::as_array).is_some_and(|r| !r.is_empty())
                || map.values().any(has_rules)
        }
        Value::Array(items) => items.iter().any(has_rules),
        _ => false,
    }
}

/// Every rule of `schema` on `object` (and `old` on UPDATE).
pub fn validate(schema: &Value, object: &Value, old: Option<&Value>) -> RuleVerdict {
    let mut verdict = RuleVerdict::default();
    node(schema, object, old, "", true, &mut verdict);
    verdict
}

fn child(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// `self` at the resource root (`model.WithTypeAndObjectMeta`): apiVersion, kind and metadata's
/// name and generateName beside what the schema specifies.
fn root_self(object: &Value) -> Value {
    let mut out = object.clone();
    if let Some(meta) = object.get("metadata").and_then(Value::as_object) {
        let kept: Map<String, Value> = meta
            .iter()
            .filter(|(k, _)| matches!(k.as_str(), "name" | "generateName"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        out["metadata"] = Value::Object(kept);
    }
    out
}

fn node(schema: &Value, v: &Value, old: Option<&Value>, path: &str, root: bool, out: &mut RuleVerdict) {
    if let Some(rules) = schema.get("x-kubernetes-validations").and_then(Value::as_array) {
        let (this, previous) = if root { (root_self(v), old.map(root_self)) } else { (v.clone(), old.cloned()) };
        for rule in rules {
            evaluate(schema, rule, &this, previous.as_ref(), v, old, path, out);
        }
    }
    match v {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                for (k, sub) in map.iter().filter(|(k, _)| !properties.is_some_and(|p| p.contains_key(*k))) {
                    let was = old.and_then(|o| o.get(k));
                    node(
                        additional,
                        sub,
                        was,
                        &format!("{}[{k}]", if path.is_empty() { "<nil>" } else { path }),
                        false,
                        out,
                    );
                }
            }
            if let Some(props) = properties {
                for (k, sub_schema) in props {
                    if let Some(sub) = map.get(k) {
                        node(sub_schema, sub, old.and_then(|o| o.get(k)), &child(path, k), false, out);
                    }
                }
            }
        }
        Value::Array(items) => {
            let Some(item_schema) = schema.get("items") else { return };
            let keys: Vec<&str> = schema
                .get("x-kubernetes-list-map-keys")
                .and_then(Value::as_array)
                .map(|k| k.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let is_map_list = schema.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("map");
            let old_items = old.and_then(Value::as_array);
            for (i, item) in items.iter().enumerate() {
                // Only the items of a `map` list are correlated with the old ones (by their keys).
                let was = old_items
                    .filter(|_| is_map_list && !keys.is_empty())
                    .and_then(|olds| olds.iter().find(|o| keys.iter().all(|k| o.get(k) == item.get(k))));
                node(item_schema, item, was, &format!("{path}[{i}]"), false, out);
            }
        }
        _ => {}
    }
}

/// Whether the rule reads `oldSelf` (a transition rule).
fn uses_old_self(rule: &str) -> bool {
    rule.match_indices("oldSelf").any(|(at, _)| {
        let before = rule[..at].chars().last();
        let after = rule[at + "oldSelf".len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(before) && !ident(after)
    })
}

/// A rule's `fieldPath` (`.a.b`, `.a['k']`) as a field path below `path`.
fn with_field_path(path: &str, field_path: &str) -> String {
    let relative = field_path.trim().trim_start_matches('.').replace("['", "[").replace("']", "]");
    if relative.is_empty() {
        return if path.is_empty() { "<nil>".into() } else { path.into() };
    }
    child(path, &relative)
}

fn context(this: &Value, previous: Option<&Value>) -> Result<Context<'static, 'static>, cel::DeclarationError> {
    let mut context = Context::with_env(environment());
    context.add_variable_from_value("self", value::to_cel(this));
    if let Some(p) = previous {
        context.add_variable_from_value("oldSelf", value::to_cel(p));
    }
    library::register(&mut context)?;
    Ok(context)
}

#[allow(clippy::too_many_arguments)]
fn evaluate(
    schema: &Value,
    rule: &Value,
    this: &Value,
    previous: Option<&Value>,
    v: &Value,
    old: Option<&Value>,
    path: &str,
    out: &mut RuleVerdict,
) {
    let text = rule.get("rule").and_then(Value::as_str).unwrap_or("").trim();
    if text.is_empty() {
        return;
    }
    let shown = if path.is_empty() { "<nil>" } else { path };
    let mut unevaluable = |why: String| out.unevaluable.push(format!("{shown}: '{text}': {why}"));
    let transition = uses_old_self(text);
    if rule.get("optionalOldSelf").and_then(Value::as_bool) == Some(true) {
        return unevaluable(
            "optionalOldSelf (oldSelf as an optional) is not supported by the suite's CEL interpreter".into(),
        );
    }
    if transition && previous.is_none() {
        return;
    }
    let env = environment();
    let program = match env.compile(text) {
        Ok(p) => p,
        Err(e) => return unevaluable(format!("the suite's CEL interpreter cannot parse it: {e}")),
    };
    let context = match context(this, previous) {
        Ok(c) => c,
        Err(e) => return unevaluable(format!("the evaluation context cannot be built: {e}")),
    };
    match program.execute(&context) {
        Ok(CelValue::Bool(true)) => return,
        Ok(CelValue::Bool(false)) => {}
        Ok(other) => return unevaluable(format!("it gives {other:?}, not a bool")),
        Err(ExecutionError::UndeclaredReference(name)) => {
            return unevaluable(format!(
                "the suite's CEL interpreter does not know {name:?} (a function of a Kubernetes CEL library it lacks?)"
            ))
        }
        Err(e) => {
            return unevaluable(format!(
                "it errs in the suite's CEL interpreter ({e}); the apiserver refuses an object on which a rule errs, in cel-go's words, which the suite does not reproduce"
            ))
        }
    }
    // Validation ratcheting: an unchanged value only warns on a rule that is not a transition rule.
    if !transition && old == Some(v) {
        return;
    }
    let message = rule.get("message").and_then(Value::as_str).map(str::trim).filter(|m| !m.is_empty());
    let mut detail = match message {
        Some(m) => m.to_string(),
        None => format!("failed rule: {text}"),
    };
    if let Some(expression) = rule.get("messageExpression").and_then(Value::as_str) {
        let said = env.compile(expression.trim()).ok().and_then(|p| p.execute(&context).ok());
        match said {
            Some(CelValue::String(s)) if !s.trim().is_empty() && !s.contains('\n') => detail = s.trim().to_string(),
            _ => out.unevaluable.push(format!(
                "{shown}: messageExpression '{}' of '{text}': not evaluated by the suite's CEL interpreter; the detail shown is the message",
                expression.trim()
            )),
        }
    }
    let at = match rule.get("fieldPath").and_then(Value::as_str) {
        Some(fp) => with_field_path(path, fp),
        None => shown.to_string(),
    };
    let kind = schema.get("type").and_then(Value::as_str).unwrap_or("");
    let shown_value =
        if matches!(kind, "object" | "array") || v.is_object() || v.is_array() { BadValue::Omit } else { bad_value(v) };
    out.errors.push(match rule.get("reason").and_then(Value::as_str) {
        Some("FieldValueForbidden") => FieldError::forbidden(&at, detail),
        Some("FieldValueRequired") => FieldError::required(&at, detail),
        Some("FieldValueDuplicate") => FieldError::duplicate(&at, shown_value),
        _ => FieldError::invalid(&at, shown_value, detail),
    });
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object",
            "x-kubernetes-validations": [
                {"rule": "self.min <= self.max", "message": "min must not exceed max"},
                {"rule": "self.max - self.min < 100", "messageExpression": "'spread ' + string(self.max - self.min) + ' is too wide'"},
                {"rule": "!has(self.locked) || !has(oldSelf.locked) || self.locked == oldSelf.locked", "reason": "FieldValueForbidden", "fieldPath": ".locked", "message": "locked is immutable"},
                {"rule": "self.name.matches('^[a-z]+$')"}
            ],
            "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}, "locked": {"type": "boolean"}, "name": {"type": "string"},
                "size": {"type": "integer", "x-kubernetes-validations": [{"rule": "self % 2 == 0"}]},
                "when": {"type": "string", "x-kubernetes-validations": [{"rule": "self.someLibraryFunction()"}]}}}}})
    }

    fn widget(spec: Value) -> Value {
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec})
    }

    fn texts(v: &RuleVerdict) -> Vec<String> {
        v.errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_false_rule_is_a_field_error_with_its_message_message_expression_or_rule() {
        let ok = validate(&schema(), &widget(json!({"min": 1, "max": 5, "name": "abc", "size": 2})), None);
        assert_eq!(ok, RuleVerdict::default());
        let bad = validate(&schema(), &widget(json!({"min": 9, "max": 5, "name": "ABC", "size": 3})), None);
        assert_eq!(
            texts(&bad),
            vec![
                "spec: Invalid value: min must not exceed max".to_string(),
                "spec: Invalid value: failed rule: self.name.matches('^[a-z]+$')".to_string(),
                "spec.size: Invalid value: 3: failed rule: self % 2 == 0".to_string(),
            ]
        );
        let wide = validate(&schema(), &widget(json!({"min": 0, "max": 500, "name": "abc"})), None);
        assert_eq!(texts(&wide), vec!["spec: Invalid value: spread 500 is too wide"]);
    }

    #[test]
    fn transition_rules_run_on_update_only_and_unchanged_values_are_ratcheted() {
        let s = schema();
        let old = widget(json!({"min": 1, "max": 5, "name": "abc", "locked": true}));
        let new = widget(json!({"min": 1, "max": 5, "name": "abc", "locked": false}));
        assert_eq!(validate(&s, &new, None), RuleVerdict::default(), "no oldSelf on CREATE");
        assert_eq!(texts(&validate(&s, &new, Some(&old))), vec!["spec.locked: Forbidden: locked is immutable"]);
        // An invalid spec the old object already had is let through (a warning in the apiserver).
        let bad = widget(json!({"min": 9, "max": 5, "name": "abc"}));
        assert_eq!(validate(&s, &bad, Some(&bad)), RuleVerdict::default());
    }

    #[test]
    fn a_rule_the_interpreter_cannot_evaluate_is_named_never_judged() {
        let v = validate(&schema(), &widget(json!({"min": 1, "max": 5, "name": "abc", "when": "x"})), None);
        assert!(v.errors.is_empty(), "{v:?}");
        assert_eq!(v.unevaluable.len(), 1, "{v:?}");
        assert!(v.unevaluable[0].starts_with("spec.when: 'self.someLibraryFunction()': "), "{v:?}");
        assert!(has_rules(&schema()) && !has_rules(&json!({"type": "object"})));
        assert!(uses_old_self("self == oldSelf") && !uses_old_self("self.oldSelfish"));
    }
}
