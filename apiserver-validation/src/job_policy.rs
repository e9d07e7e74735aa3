//! A Job's pod failure policy as kubernetes/kubernetes `pkg/apis/batch/validation/validation.go`
//! validates it (release-1.36): `validatePodFailurePolicy`, `validatePodFailurePolicyRule`,
//! `validatePodFailurePolicyRuleOnExitCodes`, `validatePodFailurePolicyRuleOnPodConditions`.

use serde_json::Value;

use crate::content;
use crate::field::{BadValue, FieldError};
use crate::lookup::Lookup;
use crate::zero_values::{list, present, s};

/// `maxPodFailurePolicyRules`, `maxPodFailurePolicyOnExitCodesValues`,
/// `maxPodFailurePolicyOnPodConditionsPatterns`.
const MAX_RULES: i64 = 20;
const MAX_EXIT_CODES: i64 = 255;
const MAX_CONDITION_PATTERNS: i64 = 20;
/// The supported sets as `sets.List` sorts them.
const ACTIONS: &[&str] = &["Count", "FailIndex", "FailJob", "Ignore"];
const OPERATORS: &[&str] = &["In", "NotIn"];
const STATUSES: &[&str] = &["False", "True", "Unknown"];

/// `fmt.Sprintf("valid values: %q", list)`: Go prints a `[]string` under `%q` as `["a" "b"]`.
fn valid_values(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("\"{v}\"")).collect();
    format!("valid values: [{}]", quoted.join(" "))
}

/// A count as an `int`, for `field.TooMany`.
fn count(items: &[Value]) -> i64 {
    i64::try_from(items.len()).unwrap_or(i64::MAX)
}

/// `validatePodFailurePolicy` of the job spec `spec` at `path` (`spec.podFailurePolicy`).
pub fn pod_failure_policy(spec: &Value, path: &str) -> Vec<FieldError> {
    let Some(policy) = spec.member("podFailurePolicy").filter(|p| !p.is_null()) else { return Vec::new() };
    let rules_path = format!("{path}.rules");
    let rules = list(policy, "rules");
    let mut errs = Vec::new();
    if count(rules) > MAX_RULES {
        errs.push(FieldError::too_many(&rules_path, count(rules), MAX_RULES));
    }
    let template = spec.at("/template/spec").unwrap_or(&Value::Null);
    let names: Vec<&str> =
        list(template, "containers").iter().chain(list(template, "initContainers")).map(|c| s(c, "name")).collect();
    let per_index = present(spec, "backoffLimitPerIndex");
    for (i, rule) in rules.iter().enumerate() {
        errs.extend(policy_rule(rule, per_index, &names, &format!("{rules_path}[{i}]")));
    }
    errs
}

/// `validatePodFailurePolicyRule`.
fn policy_rule(rule: &Value, per_index: bool, names: &[&str], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let action_path = format!("{path}.action");
    match s(rule, "action") {
        "" => errs.push(FieldError::required(&action_path, valid_values(ACTIONS))),
        "FailIndex" if !per_index => errs.push(FieldError::invalid(
            &action_path,
            BadValue::Str("FailIndex".into()),
            "requires the backoffLimitPerIndex to be set",
        )),
        a if ACTIONS.contains(&a) => {}
        a => errs.push(FieldError::not_supported(&action_path, BadValue::Str(a.into()), ACTIONS)),
    }
    let exit_codes = rule.member("onExitCodes").filter(|v| !v.is_null());
    if let Some(on) = exit_codes {
        errs.extend(on_exit_codes(on, names, &format!("{path}.onExitCodes")));
    }
    let conditions = list(rule, "onPodConditions");
    if !conditions.is_empty() {
        errs.extend(on_pod_conditions(conditions, &format!("{path}.onPodConditions")));
    }
    match (exit_codes.is_some(), conditions.is_empty()) {
        (true, false) => errs.push(FieldError::invalid(
            path,
            BadValue::Omit,
            "specifying both OnExitCodes and OnPodConditions is not supported",
        )),
        (false, true) => errs.push(FieldError::invalid(
            path,
            BadValue::Omit,
            "specifying one of OnExitCodes and OnPodConditions is required",
        )),
        _ => {}
    }
    errs
}

/// `validatePodFailurePolicyRuleOnExitCodes`.
fn on_exit_codes(on: &Value, names: &[&str], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let operator_path = format!("{path}.operator");
    let operator = s(on, "operator");
    if operator.is_empty() {
        errs.push(FieldError::required(&operator_path, valid_values(OPERATORS)));
    } else if !OPERATORS.contains(&operator) {
        errs.push(FieldError::not_supported(&operator_path, BadValue::Str(operator.into()), OPERATORS));
    }
    if present(on, "containerName") && !names.contains(&s(on, "containerName")) {
        errs.push(FieldError::invalid(
            &format!("{path}.containerName"),
            BadValue::Str(s(on, "containerName").into()),
            "must be one of the container or initContainer names in the pod template",
        ));
    }
    let values_path = format!("{path}.values");
    let items = list(on, "values");
    // A nil slice marshals as null, an empty one as [].
    let values_json =
        || BadValue::Json(on.member("values").filter(|v| v.is_array()).map_or("null".into(), Value::to_string));
    if items.is_empty() {
        errs.push(FieldError::invalid(&values_path, values_json(), "at least one value is required"));
    } else if count(items) > MAX_EXIT_CODES {
        errs.push(FieldError::too_many(&values_path, count(items), MAX_EXIT_CODES));
    }
    let values: Vec<i64> = items.iter().map(|v| v.as_i64().unwrap_or(0)).collect();
    let mut seen: Vec<i64> = Vec::new();
    for (j, v) in values.iter().enumerate() {
        let p = format!("{values_path}[{j}]");
        if operator == "In" && *v == 0 {
            errs.push(FieldError::invalid(&p, BadValue::Int(0), "must not be 0 for the In operator"));
        }
        if seen.contains(v) {
            errs.push(FieldError::duplicate(&p, BadValue::Int(*v)));
        } else {
            seen.push(*v);
        }
    }
    if values.windows(2).any(|w| w[0] > w[1]) {
        errs.push(FieldError::invalid(&values_path, values_json(), "must be ordered"));
    }
    errs
}

/// `validatePodFailurePolicyRuleOnPodConditions`.
fn on_pod_conditions(patterns: &[Value], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if count(patterns) > MAX_CONDITION_PATTERNS {
        errs.push(FieldError::too_many(path, count(patterns), MAX_CONDITION_PATTERNS));
    }
    for (j, pattern) in patterns.iter().enumerate() {
        let p = format!("{path}[{j}]");
        let kind = s(pattern, "type");
        let type_path = format!("{p}.type");
        errs.extend(
            content::is_qualified_name(kind)
                .into_iter()
                .map(|m| FieldError::invalid(&type_path, BadValue::Str(kind.into()), m)),
        );
        let status_path = format!("{p}.status");
        match s(pattern, "status") {
            "" => errs.push(FieldError::required(&status_path, valid_values(STATUSES))),
            st if STATUSES.contains(&st) => {}
            st => errs.push(FieldError::not_supported(&status_path, BadValue::Str(st.into()), STATUSES)),
        }
    }
    errs
}

/// A list member as `json.Marshal` writes a Go slice: `null` when absent (nil), else its items.
pub(crate) fn slice_json(v: &Value, key: &str, item: impl Fn(&Value) -> String) -> String {
    match v.member(key).and_then(Value::as_array) {
        Some(items) => format!("[{}]", items.iter().map(item).collect::<Vec<_>>().join(",")),
        None => "null".into(),
    }
}

/// The pod failure policy as `json.Marshal` writes the internal `batch.PodFailurePolicy` (no JSON
/// tags: Go's field names, in the struct's order), as `ValidateImmutableField` prints it.
pub fn internal_json(policy: &Value) -> String {
    let text = |v: &Value, key: &str| Value::from(s(v, key)).to_string();
    let pattern = |p: &Value| format!("{{\"Type\":{},\"Status\":{}}}", text(p, "type"), text(p, "status"));
    let exit_codes = |rule: &Value| match rule.member("onExitCodes").filter(|v| !v.is_null()) {
        None => "null".to_string(),
        Some(on) => {
            let name = on
                .member("containerName")
                .filter(|v| !v.is_null())
                .map_or("null".into(), |_| text(on, "containerName"));
            let values = slice_json(on, "values", |v| v.as_i64().unwrap_or(0).to_string());
            format!("{{\"ContainerName\":{name},\"Operator\":{},\"Values\":{values}}}", text(on, "operator"))
        }
    };
    let rule = |r: &Value| {
        let conditions = slice_json(r, "onPodConditions", pattern);
        format!(
            "{{\"Action\":{},\"OnExitCodes\":{},\"OnPodConditions\":{conditions}}}",
            text(r, "action"),
            exit_codes(r)
        )
    };
    format!("{{\"Rules\":{}}}", slice_json(policy, "rules", rule))
}
