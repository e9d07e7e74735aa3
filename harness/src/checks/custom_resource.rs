//! Checks on a custom resource a webhook's patch produced, as the apiextensions-apiserver handles
//! it after mutating admission: the patched object is converted back through the CRD's codec,
//! which prunes the fields the schema does not specify and applies its defaults
//! (`apiextensions-apiserver/pkg/apiserver/customresource_handler.go`: `schemaCoercingConverter`,
//! `unstructuredSchemaCoercer.apply`, `unstructuredDefaulter`; `schema/pruning/algorithm.go`), then
//! the registry validates it (`pkg/registry/customresource/strategy.go` `Validate`,
//! `ValidateUpdate`: metadata, then the structural schema, modelled in `apiserver_validation::crd`;
//! then the CRD's `x-kubernetes-validations` CEL rules, `crate::conditions::validation_rules`).

use std::borrow::Cow;

use apiserver_validation::crd;
use apiserver_validation::field::{BadValue, ErrorType, FieldError};
use apiserver_validation::{Refusal, Scope};
use serde_json::Value;

use super::kubectl::{in_brief, kubectl_line};
use super::{Check, Exchange};
use crate::admission::Operation;
use crate::conditions::validation_rules;
use crate::requests::admit_custom_resource;

/// `object` as the apiextensions-apiserver holds it: pruned, nulls dropped, defaulted.
fn admitted(schema: &Value, object: &Value) -> Value {
    let mut out = object.clone();
    admit_custom_resource(schema, &mut out);
    out
}

/// An object of the request as the apiextensions-apiserver decoded it: the object itself when the
/// suite sent it so (or there is none), else [`admitted`].
fn as_decoded<'v>(x: &Exchange, schema: &Value, object: &'v Value) -> Cow<'v, Value> {
    if x.case.sent_defaulted() || object.is_null() {
        Cow::Borrowed(object)
    } else {
        Cow::Owned(admitted(schema, object))
    }
}

/// Why a custom resource request is not judged here, or its schema.
fn subject<'a>(x: &'a Exchange) -> Result<(&'a Value, &'a Value), Check> {
    let Some(schema) = x.case.schema.as_deref() else {
        return Err(Check::na("not a custom resource of a CustomResourceDefinition given (--crd)"));
    };
    let Some(Ok(patched)) = x.patched() else { return Err(Check::na("no applied patch")) };
    let spec = &x.case.spec;
    if !matches!(spec.operation, Operation::Create | Operation::Update) {
        return Err(Check::na("neither CREATE nor UPDATE"));
    }
    if let Some(sub) = &spec.sub_resource {
        return Err(Check::na(format!("a /{sub} subresource request")));
    }
    Ok((schema, patched))
}

/// object.pruned
pub(crate) fn pruned(x: &Exchange) -> Check {
    let (schema, patched) = match subject(x) {
        Ok(s) => s,
        Err(na) => return na,
    };
    // What the patch wrote that the decoder does not keep: what pruning removed.
    let gvk = x.case.object_kind();
    let which = format!(
        "the apiextensions-apiserver drops from the patched {}.{}/{} (a field its schema does not specify and no x-kubernetes-preserve-unknown-fields keeps, a null the schema does not allow, or a metadata field ObjectMeta does not have)",
        gvk.kind, gvk.group, gvk.version
    );
    super::dropped::finding(x.case.object(), patched, &admitted(schema, patched), |_| which)
}

/// `strategy.go` `hasBlockingErr`: a type, required, enum or size error means the object lacks the
/// shape the CEL rules were written for; they are not evaluated.
fn blocking(errs: &[FieldError]) -> bool {
    errs.iter().any(|e| {
        matches!(
            e.kind,
            ErrorType::NotSupported
                | ErrorType::Required
                | ErrorType::TooLong
                | ErrorType::TooMany
                | ErrorType::TypeInvalid
        )
    })
}

/// The registry's refusal of the custom resource `object` (after `old` on UPDATE): metadata and
/// schema, then the CRD's `x-kubernetes-validations` when nothing blocks them
/// (`customResourceStrategy.Validate`); with the rules the suite could not evaluate.
fn refusal(
    scope: &Scope,
    schema: &Value,
    operation: Operation,
    object: &Value,
    old: &Value,
) -> (Option<Refusal>, Vec<String>) {
    let base = match operation {
        Operation::Create => crd::validate_create(scope, schema, object),
        _ => crd::validate_update(scope, schema, object, old),
    };
    // `cel.NewValidator` is nil for a schema without rules: nothing is added then.
    if !validation_rules::has_rules(schema) {
        return (base.err(), Vec::new());
    }
    let run_rules = || validation_rules::validate(schema, object, (operation == Operation::Update).then_some(old));
    match base {
        Err(Refusal::Invalid(mut errs)) if blocking(&errs) => {
            errs.push(FieldError::invalid(
                "<nil>",
                BadValue::Str("null".into()),
                "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            ));
            (Some(Refusal::Invalid(errs)), Vec::new())
        }
        Err(Refusal::Invalid(mut errs)) => {
            let rules = run_rules();
            errs.extend(rules.errors);
            (Some(Refusal::Invalid(errs)), rules.unevaluable)
        }
        Err(other) => (Some(other), Vec::new()),
        Ok(()) => {
            let rules = run_rules();
            ((!rules.errors.is_empty()).then_some(Refusal::Invalid(rules.errors)), rules.unevaluable)
        }
    }
}

/// object.valid for a custom resource of a CRD given: the patched object, pruned and defaulted,
/// against the metadata rules and the version's structural schema. Only a refusal the patch brings
/// FAILs.
pub(crate) fn valid(x: &Exchange, scope: &Scope, patched: &Value) -> Check {
    let Some(schema) = x.case.schema.as_deref() else { return Check::na("no schema") };
    let spec = &x.case.spec;
    let old = as_decoded(x, schema, &spec.old_object);
    let after = admitted(schema, patched);
    let (refused, unevaluable) = refusal(scope, schema, spec.operation, &after, &old);
    let not_evaluated = if unevaluable.is_empty() {
        String::new()
    } else {
        format!(
            " (rules of the CRD the suite could not evaluate, neither passed nor failed: {})",
            unevaluable.join("; ")
        )
    };
    let Some(refused) = refused else {
        if unevaluable.is_empty() {
            return Check::Pass;
        }
        return Check::na(format!(
            "the patched custom resource passes its schema and the rules the suite evaluates, but not every x-kubernetes-validations rule could be evaluated{not_evaluated}"
        ));
    };
    let name_of = |o: &Value| o.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
    let before = as_decoded(x, schema, x.case.object());
    if let (Some(earlier), _) = refusal(scope, schema, spec.operation, &before, &old) {
        return Check::na(format!(
            "the request was invalid before the webhook: {}",
            earlier.message(scope, &name_of(&before))
        ));
    }
    let name = name_of(&after);
    let said = refused.message(scope, &name);
    let what = in_brief(&refused);
    let verb = if spec.operation == Operation::Create { "create" } else { "update" };
    Check::violated(
        format!(
            "the patched custom resource, pruned and defaulted, fails the apiextensions-apiserver's validation against its CRD's schema and rules (HTTP {}: {what}): every {verb} of such an object is refused; kubectl prints: {}{not_evaluated}",
            refused.code(),
            kubectl_line(scope.kind, &name, &refused, &said)
        ),
        said,
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::admission::{GroupVersionResource, Gvk, ReviewVersion};
    use crate::client::Transport;
    use crate::config::{Manifest, WebhookSpec};
    use crate::requests::{default_user, AdmissionSpec, RequestCase};

    fn webhook() -> WebhookSpec {
        let text = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: c}\nwebhooks:\n  - name: a.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: None\n    clientConfig: {url: \"https://hook.example.com/\"}\n    rules: [{operations: [CREATE, UPDATE], apiGroups: [example.com], apiVersions: [v1], resources: [widgets]}]\n";
        Manifest::parse(Path::new("m.yaml"), text).unwrap().webhooks.remove(0)
    }

    fn schema() -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "required": ["size"], "properties": {
            "size": {"type": "integer", "minimum": 1, "maximum": 9},
            "mode": {"type": "string", "enum": ["fast", "safe"], "default": "safe"},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}})
    }

    fn widget(spec: Value) -> Value {
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "w", "namespace": "default", "uid": "u1", "resourceVersion": "3"}, "spec": spec})
    }

    fn case(op: Operation, object: Value, old: Value) -> RequestCase {
        case_with(op, object, old, schema())
    }

    fn case_with(op: Operation, object: Value, old: Value, schema: Value) -> RequestCase {
        let spec = AdmissionSpec {
            operation: op,
            kind: Gvk::new("example.com", "v1", "Widget"),
            resource: GroupVersionResource::new("example.com", "v1", "widgets"),
            sub_resource: None,
            request_kind: None,
            request_resource: None,
            name: "w".into(),
            namespace: Some("default".into()),
            object: object.into(),
            old_object: old.into(),
            dry_run: false,
            user: default_user(),
            deletion: Default::default(),
            sent_defaulted: false,
        };
        RequestCase::new("test".into(), ReviewVersion::V1, true, spec).with_schema(Some(Arc::new(schema)))
    }

    /// What `check` says of an allow carrying `ops` as its patch.
    fn judge(check: fn(&Exchange) -> Check, case: &RequestCase, ops: Value) -> Check {
        let transport = Transport::allow_with_patch(case.uid(), &ops);
        let webhook = webhook();
        check(&Exchange::new(&webhook, case, &transport, "https://hook.example.com/"))
    }

    fn said(check: &Check) -> String {
        match check {
            Check::Violated(v) => v.apiserver.clone().unwrap_or_else(|| v.detail.clone()),
            other => panic!("expected a breach, got {other:?}"),
        }
    }

    #[test]
    fn a_value_out_of_the_schemas_bounds_or_enum_fails_with_the_apiservers_words() {
        let c = case(Operation::Create, widget(json!({"size": 3, "mode": "safe"})), Value::Null);
        let check =
            judge(super::super::object_valid, &c, json!([{"op": "replace", "path": "/spec/size", "value": 10}]));
        assert_eq!(
            said(&check),
            "Widget.example.com \"w\" is invalid: spec.size: Invalid value: 10: spec.size in body should be less than or equal to 9"
        );
        let Check::Violated(v) = &check else { unreachable!() };
        assert!(
            v.detail.contains("kubectl prints: The Widget \"w\" is invalid: spec.size: Invalid value: 10"),
            "{}",
            v.detail
        );
        let check =
            judge(super::super::object_valid, &c, json!([{"op": "replace", "path": "/spec/mode", "value": "turbo"}]));
        assert_eq!(
            said(&check),
            "Widget.example.com \"w\" is invalid: spec.mode: Unsupported value: \"turbo\": supported values: \"fast\", \"safe\""
        );
        // Removing a field that has a default: the apiserver defaults it again.
        let ok = judge(super::super::object_valid, &c, json!([{"op": "remove", "path": "/spec/mode"}]));
        assert_eq!(ok, Check::Pass);
        let ok = judge(super::super::object_valid, &c, json!([{"op": "replace", "path": "/spec/size", "value": 9}]));
        assert_eq!(ok, Check::Pass);
        // A required field removed.
        let check = judge(super::super::object_valid, &c, json!([{"op": "remove", "path": "/spec/size"}]));
        assert_eq!(said(&check), "Widget.example.com \"w\" is invalid: spec.size: Required value");
    }

    #[test]
    fn an_object_invalid_before_the_webhook_is_not_blamed_on_it_and_ratcheting_lets_old_errors_through() {
        let c = case(Operation::Create, widget(json!({"size": 30})), Value::Null);
        let check =
            judge(super::super::object_valid, &c, json!([{"op": "replace", "path": "/spec/mode", "value": "turbo"}]));
        assert!(
            matches!(&check, Check::NotApplicable(why) if why.contains("invalid before the webhook") && why.contains("spec.size")),
            "{check:?}"
        );
        // On UPDATE an invalid value the stored object already had is let through.
        let old = widget(json!({"size": 30, "mode": "safe"}));
        let c = case(Operation::Update, old.clone(), old);
        let ok = judge(
            super::super::object_valid,
            &c,
            json!([{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}]),
        );
        assert_eq!(ok, Check::Pass);
    }

    /// A request the suite sent as the apiextensions-apiserver decodes it is judged on its objects
    /// as sent: the same verdicts as on the objects admitted by the check.
    #[test]
    fn a_request_sent_decoded_is_judged_on_its_objects_as_sent() {
        let decoded = |op, object: Value, old: Value| {
            let mut c = case(op, object, old);
            c.spec.sent_defaulted = true;
            RequestCase::new("test".into(), ReviewVersion::V1, true, c.spec).with_schema(Some(Arc::new(schema())))
        };
        let c = decoded(Operation::Create, widget(json!({"size": 3, "mode": "safe"})), Value::Null);
        assert!(c.sent_defaulted());
        let check =
            judge(super::super::object_valid, &c, json!([{"op": "replace", "path": "/spec/mode", "value": "turbo"}]));
        assert_eq!(
            said(&check),
            "Widget.example.com \"w\" is invalid: spec.mode: Unsupported value: \"turbo\": supported values: \"fast\", \"safe\""
        );
        assert_eq!(judge(super::super::object_valid, &c, json!([{"op": "remove", "path": "/spec/mode"}])), Check::Pass);
        let invalid = decoded(Operation::Create, widget(json!({"size": 30, "mode": "safe"})), Value::Null);
        let check = judge(
            super::super::object_valid,
            &invalid,
            json!([{"op": "replace", "path": "/spec/mode", "value": "turbo"}]),
        );
        assert!(
            matches!(&check, Check::NotApplicable(why) if why.contains("invalid before the webhook") && why.contains("spec.size")),
            "{check:?}"
        );
        // Ratcheting against the stored object as sent.
        let old = widget(json!({"size": 30, "mode": "safe"}));
        let c = decoded(Operation::Update, old.clone(), old);
        let ok = judge(
            super::super::object_valid,
            &c,
            json!([{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}]),
        );
        assert_eq!(ok, Check::Pass);
    }

    #[test]
    fn a_field_the_schema_does_not_specify_is_pruned_and_said_so() {
        let c = case(Operation::Create, widget(json!({"size": 3, "mode": "safe"})), Value::Null);
        let check = judge(pruned, &c, json!([{"op": "add", "path": "/spec/injected", "value": true}]));
        let text = said(&check);
        assert!(text.starts_with("the patch writes /spec/injected (JSON pointer), which the apiextensions-apiserver drops from the patched Widget.example.com/v1 (a field its schema does not specify"), "{text}");
        // Pruning leaves the object valid: object.valid passes on it.
        assert_eq!(
            judge(super::super::object_valid, &c, json!([{"op": "add", "path": "/spec/injected", "value": true}])),
            Check::Pass
        );
        // Under x-kubernetes-preserve-unknown-fields, or in a field of the schema, nothing is lost.
        let kept = json!([{"op": "add", "path": "/spec/free", "value": {"anything": 1}}, {"op": "replace", "path": "/spec/size", "value": 4}]);
        assert_eq!(judge(pruned, &c, kept), Check::Pass);
        // Metadata is kept at the root.
        assert_eq!(
            judge(pruned, &c, json!([{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}])),
            Check::Pass
        );
    }

    #[test]
    fn requests_without_a_crd_schema_are_not_judged_for_pruning() {
        let mut c = case(Operation::Create, widget(json!({"size": 3})), Value::Null);
        c.schema = None;
        let check = judge(pruned, &c, json!([{"op": "add", "path": "/spec/injected", "value": true}]));
        assert!(matches!(check, Check::NotApplicable(_)), "{check:?}");
    }

    #[test]
    fn a_rule_using_the_quantity_library_is_judged_and_a_quantity_error_is_not() {
        let mut s = schema();
        s["properties"]["spec"]["properties"]["limit"] = json!({"type": "string"});
        s["properties"]["spec"]["x-kubernetes-validations"] = json!([
            {"rule": "!has(self.limit) || quantity(self.limit).isLessThan(quantity('1Gi'))", "message": "limit must be under 1Gi"}
        ]);
        let c = case_with(Operation::Create, widget(json!({"size": 3})), Value::Null, s);
        let set = |limit: &str| json!([{"op": "add", "path": "/spec/limit", "value": limit}]);
        let check = judge(super::super::object_valid, &c, set("2Gi"));
        assert_eq!(said(&check), "Widget.example.com \"w\" is invalid: spec: Invalid value: limit must be under 1Gi");
        assert_eq!(judge(super::super::object_valid, &c, set("512Mi")), Check::Pass);
        // `quantity('lots')` errs in the apiserver, in cel-go's words: named, neither passed nor failed.
        let check = judge(super::super::object_valid, &c, set("lots"));
        assert!(matches!(&check, Check::NotApplicable(why) if why.contains("quantity(self.limit)")), "{check:?}");
    }

    #[test]
    fn a_broken_cel_rule_fails_and_a_rule_the_suite_cannot_evaluate_is_named_not_judged() {
        let mut s = schema();
        s["properties"]["spec"]["x-kubernetes-validations"] = json!([
            {"rule": "self.size <= 5 || self.mode == 'fast'", "message": "a widget larger than 5 must be fast"},
            {"rule": "!has(oldSelf.mode) || self.mode == oldSelf.mode", "message": "mode is immutable", "reason": "FieldValueForbidden", "fieldPath": ".mode"}
        ]);
        let c = case_with(Operation::Create, widget(json!({"size": 3, "mode": "safe"})), Value::Null, s.clone());
        let check = judge(super::super::object_valid, &c, json!([{"op": "replace", "path": "/spec/size", "value": 8}]));
        assert_eq!(
            said(&check),
            "Widget.example.com \"w\" is invalid: spec: Invalid value: a widget larger than 5 must be fast"
        );
        assert_eq!(
            judge(super::super::object_valid, &c, json!([{"op": "replace", "path": "/spec/size", "value": 5}])),
            Check::Pass
        );
        // A schema error blocks the rules: the apiserver says they were not checked.
        let check =
            judge(super::super::object_valid, &c, json!([{"op": "replace", "path": "/spec/size", "value": "8"}]));
        assert!(said(&check).ends_with("<nil>: Invalid value: \"null\": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"), "{check:?}");
        // A transition rule on UPDATE.
        let old = widget(json!({"size": 3, "mode": "safe"}));
        let c = case_with(Operation::Update, old.clone(), old, s.clone());
        let check =
            judge(super::super::object_valid, &c, json!([{"op": "replace", "path": "/spec/mode", "value": "fast"}]));
        assert_eq!(said(&check), "Widget.example.com \"w\" is invalid: spec.mode: Forbidden: mode is immutable");
        // A rule calling a function the suite's interpreter lacks: named, neither passed nor failed.
        s["properties"]["spec"]["x-kubernetes-validations"] =
            json!([{"rule": "self.size < 9 && self.mode.someLibraryFunction()"}]);
        let c = case_with(Operation::Create, widget(json!({"size": 3, "mode": "safe"})), Value::Null, s);
        let check = judge(super::super::object_valid, &c, json!([{"op": "replace", "path": "/spec/size", "value": 4}]));
        assert!(
            matches!(&check, Check::NotApplicable(why) if why.contains("spec: 'self.size < 9 && self.mode.someLibraryFunction()'")),
            "{check:?}"
        );
    }
}
