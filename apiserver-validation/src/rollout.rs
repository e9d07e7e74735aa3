//! The workloads' update strategies and counts as kubernetes/kubernetes
//! `pkg/apis/apps/validation/validation.go` validates them (release-1.36):
//! `ValidateDeploymentStrategy`, `ValidateRollingUpdateDeployment`, `ValidateDaemonSetUpdateStrategy`,
//! `ValidateRollingUpdateDaemonSet`, the StatefulSet update strategy of `ValidateStatefulSetSpec`
//! (`validateRollingUpdateStatefulSet`'s partition), `ValidatePositiveIntOrPercent`,
//! `IsNotMoreThan100Percent`, `getIntOrPercentValue`; and `core/validation`'s
//! `ValidateNonnegativeField`. A StatefulSet's `maxUnavailable` is validated as
//! `validateRollingUpdateStatefulSet` does with `MaxUnavailableStatefulSet` in its 1.36 state: beta
//! and on by default since 1.35 (`pkg/features/kube_features.go`), so the strategy keeps the field
//! and `SetDefaults_StatefulSet` defaults it to 1 ([`crate::defaults`]).

use serde_json::{json, Value};

use crate::content::regex_error;
use crate::field::{BadValue, FieldError};
use crate::lookup::Lookup;

/// `IsNegativeErrorMsg`.
pub const NEGATIVE: &str = "must be greater than or equal to 0";

/// `ValidateNonnegativeField`.
pub fn nonnegative(value: i64, path: &str) -> Vec<FieldError> {
    if value < 0 {
        vec![FieldError::invalid(path, BadValue::Int(value), NEGATIVE)]
    } else {
        Vec::new()
    }
}

/// An integer member of `object` (`None` when absent, null or not an integer).
pub fn int(object: &Value, key: &str) -> Option<i64> {
    object.member(key).and_then(Value::as_i64)
}

/// `ValidateNonnegativeField` of an optional integer member, at `{path}.{key}`.
pub fn nonnegative_member(object: &Value, key: &str, path: &str) -> Vec<FieldError> {
    match int(object, key) {
        // Only a negative value is reported, so only it needs the path.
        Some(v) if v < 0 => nonnegative(v, &format!("{path}.{key}")),
        _ => Vec::new(),
    }
}

/// `intstr.IntOrString` as the internal type holds it (an absent one is the integer 0).
#[derive(Clone, Debug, PartialEq)]
enum IntOrString {
    Int(i64),
    Str(String),
}

impl IntOrString {
    fn of(v: Option<&Value>) -> Self {
        match v {
            Some(Value::String(s)) => IntOrString::Str(s.clone()),
            Some(v) => IntOrString::Int(v.as_i64().unwrap_or(0)),
            None => IntOrString::Int(0),
        }
    }

    /// As `json.Marshal` writes it (`MarshalJSON`).
    fn json(&self) -> Value {
        match self {
            IntOrString::Int(i) => json!(i),
            IntOrString::Str(s) => json!(s),
        }
    }

    fn bad_value(&self) -> BadValue {
        BadValue::Json(self.json().to_string())
    }
}

/// `IsValidPercent`'s message, empty for a valid percent.
fn percent_errors(s: &str) -> Vec<String> {
    let valid = s.len() > 1 && s.ends_with('%') && s[..s.len() - 1].bytes().all(|b| b.is_ascii_digit());
    if valid {
        Vec::new()
    } else {
        vec![regex_error(
            "a valid percent string must be a numeric string followed by an ending '%'",
            "[0-9]+%",
            &["1%", "93%"],
        )]
    }
}

/// `strconv.Atoi`, 0 on error (as `IntValue` uses it).
fn atoi(s: &str) -> i64 {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return 0;
    }
    s.parse::<i64>().unwrap_or(0)
}

/// `getPercentValue`.
fn percent_value(v: &IntOrString) -> Option<i64> {
    match v {
        IntOrString::Str(s) if percent_errors(s).is_empty() => Some(atoi(&s[..s.len() - 1])),
        _ => None,
    }
}

/// `getIntOrPercentValue`.
fn int_or_percent_value(v: &IntOrString) -> i64 {
    match (percent_value(v), v) {
        (Some(p), _) => p,
        (None, IntOrString::Int(i)) => *i,
        (None, IntOrString::Str(s)) => atoi(s),
    }
}

/// `ValidatePositiveIntOrPercent`.
fn positive_int_or_percent(v: &IntOrString, path: &str) -> Vec<FieldError> {
    match v {
        IntOrString::Str(s) => {
            percent_errors(s).into_iter().map(|m| FieldError::invalid(path, v.bad_value(), m)).collect()
        }
        IntOrString::Int(i) => nonnegative(*i, path),
    }
}

/// `IsNotMoreThan100Percent`.
fn not_more_than_100_percent(v: &IntOrString, path: &str) -> Vec<FieldError> {
    match percent_value(v) {
        Some(p) if p > 100 => vec![FieldError::invalid(path, v.bad_value(), "must not be greater than 100%")],
        _ => Vec::new(),
    }
}

/// The `maxUnavailable` and `maxSurge` of a `rollingUpdate` object.
fn surge_and_unavailable(rolling: &Value) -> (IntOrString, IntOrString) {
    (IntOrString::of(rolling.member("maxUnavailable")), IntOrString::of(rolling.member("maxSurge")))
}

/// How the internal rolling-update struct holds one member.
#[derive(Clone, Copy)]
enum Member {
    /// An `int32` (absent: 0).
    Int(&'static str, &'static str),
    /// An `intstr.IntOrString` (absent: the integer 0).
    IntOrString(&'static str, &'static str),
    /// A `*intstr.IntOrString` (absent: `null`).
    IntOrStringPointer(&'static str, &'static str),
}

/// The internal `RollingUpdateDeployment` and `RollingUpdateDaemonSet`.
const SURGE_MEMBERS: &[Member] =
    &[Member::IntOrString("MaxUnavailable", "maxUnavailable"), Member::IntOrString("MaxSurge", "maxSurge")];
/// The internal `RollingUpdateStatefulSetStrategy`.
const PARTITION_MEMBERS: &[Member] =
    &[Member::Int("Partition", "partition"), Member::IntOrStringPointer("MaxUnavailable", "maxUnavailable")];

/// A rolling update as `json.Marshal` writes its internal struct (`null` when absent).
fn rolling_json(rolling: Option<&Value>, members: &[Member]) -> String {
    let Some(r) = rolling else { return "null".into() };
    let present = |key: &str| r.member(key).filter(|v| !v.is_null());
    let items: Vec<String> = members
        .iter()
        .map(|m| match *m {
            Member::Int(go, key) => format!("\"{go}\":{}", present(key).and_then(Value::as_i64).unwrap_or(0)),
            Member::IntOrString(go, key) => format!("\"{go}\":{}", IntOrString::of(present(key)).json()),
            Member::IntOrStringPointer(go, key) => {
                format!("\"{go}\":{}", present(key).map_or(Value::Null, |v| IntOrString::of(Some(v)).json()))
            }
        })
        .collect();
    format!("{{{}}}", items.join(","))
}

/// A strategy as `json.Marshal` writes the internal `{Type, RollingUpdate}` struct.
fn strategy_json(strategy: &Value, members: &[Member]) -> BadValue {
    let kind = strategy.member("type").and_then(Value::as_str).unwrap_or("");
    let rolling = rolling_json(strategy.member("rollingUpdate").filter(|r| !r.is_null()), members);
    BadValue::Json(format!("{{\"Type\":{},\"RollingUpdate\":{rolling}}}", json!(kind)))
}

/// `ValidateRollingUpdateDeployment`.
fn rolling_update_deployment(rolling: &Value, path: &str) -> Vec<FieldError> {
    let (unavailable, surge) = surge_and_unavailable(rolling);
    let pu = format!("{path}.maxUnavailable");
    let mut errs = positive_int_or_percent(&unavailable, &pu);
    errs.extend(positive_int_or_percent(&surge, &format!("{path}.maxSurge")));
    if int_or_percent_value(&unavailable) == 0 && int_or_percent_value(&surge) == 0 {
        errs.push(FieldError::invalid(&pu, unavailable.bad_value(), "may not be 0 when `maxSurge` is 0"));
    }
    errs.extend(not_more_than_100_percent(&unavailable, &pu));
    errs
}

/// `ValidateDeploymentStrategy` of the (defaulted) `spec.strategy`.
pub fn deployment_strategy(strategy: &Value, path: &str) -> Vec<FieldError> {
    let rolling = strategy.member("rollingUpdate").filter(|r| !r.is_null());
    match strategy.member("type").and_then(Value::as_str).unwrap_or("") {
        "Recreate" if rolling.is_some() => vec![FieldError::forbidden(
            &format!("{path}.rollingUpdate"),
            "may not be specified when strategy `type` is 'Recreate'",
        )],
        "Recreate" => Vec::new(),
        // SetDefaults_Deployment fills the rolling update of this type.
        "RollingUpdate" => {
            rolling.map_or_else(Vec::new, |r| rolling_update_deployment(r, &format!("{path}.rollingUpdate")))
        }
        _ => vec![FieldError::not_supported(
            path,
            strategy_json(strategy, SURGE_MEMBERS),
            &["Recreate", "RollingUpdate"],
        )],
    }
}

/// `ValidateRollingUpdateDaemonSet`.
fn rolling_update_daemon_set(rolling: &Value, path: &str) -> Vec<FieldError> {
    let (unavailable, surge) = surge_and_unavailable(rolling);
    let (pu, ps) = (format!("{path}.maxUnavailable"), format!("{path}.maxSurge"));
    let mut errs = positive_int_or_percent(&unavailable, &pu);
    errs.extend(positive_int_or_percent(&surge, &ps));
    errs.extend(not_more_than_100_percent(&unavailable, &pu));
    errs.extend(not_more_than_100_percent(&surge, &ps));
    let has_unavailable = int_or_percent_value(&unavailable) != 0;
    let has_surge = int_or_percent_value(&surge) != 0;
    if has_unavailable && has_surge {
        errs.push(FieldError::invalid(&ps, surge.bad_value(), "may not be set when maxUnavailable is non-zero"));
    } else if !has_unavailable && !has_surge {
        errs.push(FieldError::required(&pu, "cannot be 0 when maxSurge is 0"));
    }
    errs
}

/// `ValidateDaemonSetUpdateStrategy` of the (defaulted) `spec.updateStrategy`.
pub fn daemon_set_update_strategy(strategy: &Value, path: &str) -> Vec<FieldError> {
    match strategy.member("type").and_then(Value::as_str).unwrap_or("") {
        "OnDelete" => Vec::new(),
        "RollingUpdate" => match strategy.member("rollingUpdate").filter(|r| !r.is_null()) {
            Some(r) => rolling_update_daemon_set(r, &format!("{path}.rollingUpdate")),
            None => vec![FieldError::required(&format!("{path}.rollingUpdate"), "")],
        },
        _ => vec![FieldError::not_supported(
            path,
            strategy_json(strategy, SURGE_MEMBERS),
            &["RollingUpdate", "OnDelete"],
        )],
    }
}

/// `validateRollingUpdateStatefulSet`: the partition not negative; a set `maxUnavailable` a valid
/// integer or percent, not 0 (a value that does not parse counts as 0), at most 100%.
fn rolling_update_stateful_set(rolling: &Value, path: &str) -> Vec<FieldError> {
    let mut errs =
        nonnegative(rolling.member("partition").and_then(Value::as_i64).unwrap_or(0), &format!("{path}.partition"));
    if let Some(v) = rolling.member("maxUnavailable").filter(|v| !v.is_null()) {
        let unavailable = IntOrString::of(Some(v));
        let pu = format!("{path}.maxUnavailable");
        errs.extend(positive_int_or_percent(&unavailable, &pu));
        if int_or_percent_value(&unavailable) == 0 {
            errs.push(FieldError::invalid(&pu, unavailable.bad_value(), "cannot be 0"));
        }
        errs.extend(not_more_than_100_percent(&unavailable, &pu));
    }
    errs
}

/// `ValidateStatefulSetSpec`'s switch on the (defaulted) `spec.updateStrategy`.
pub fn stateful_set_update_strategy(strategy: &Value, path: &str) -> Vec<FieldError> {
    let rolling = strategy.member("rollingUpdate").filter(|r| !r.is_null());
    match strategy.member("type").and_then(Value::as_str).unwrap_or("") {
        "" => vec![FieldError::required(path, "")],
        "OnDelete" => match rolling {
            Some(_) => vec![FieldError::invalid(
                &format!("{path}.rollingUpdate"),
                BadValue::Json(rolling_json(rolling, PARTITION_MEMBERS)),
                "only allowed for updateStrategy 'RollingUpdate'",
            )],
            None => Vec::new(),
        },
        "RollingUpdate" => {
            rolling.map_or_else(Vec::new, |r| rolling_update_stateful_set(r, &format!("{path}.rollingUpdate")))
        }
        _ => vec![FieldError::invalid(
            path,
            strategy_json(strategy, PARTITION_MEMBERS),
            "must be 'RollingUpdate' or 'OnDelete'",
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::texts;

    #[test]
    fn percents_and_integers() {
        assert_eq!(int_or_percent_value(&IntOrString::Str("25%".into())), 25);
        assert_eq!(int_or_percent_value(&IntOrString::Str("5".into())), 5);
        assert_eq!(int_or_percent_value(&IntOrString::Str("x".into())), 0);
        assert!(percent_errors("%").len() == 1 && percent_errors("100%").is_empty());
    }

    #[test]
    fn a_deployment_may_not_stand_still() {
        let errs = deployment_strategy(
            &json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": "0%"}}),
            "spec.strategy",
        );
        assert_eq!(
            texts(&errs),
            ["spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"]
        );
    }

    #[test]
    fn a_daemon_set_surges_or_drains_not_both() {
        let errs = daemon_set_update_strategy(
            &json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": "150%"}}),
            "spec.updateStrategy",
        );
        assert_eq!(
            texts(&errs),
            [
                "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: \"150%\": must not be greater than 100%",
                "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: \"150%\": may not be set when maxUnavailable is non-zero"
            ]
        );
    }

    #[test]
    fn a_stateful_set_may_not_stand_still_nor_exceed_all() {
        let strategy =
            |v: Value| json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": v}});
        let errs = |v: Value| texts(&stateful_set_update_strategy(&strategy(v), "s"));
        assert!(errs(json!(2)).is_empty() && errs(json!("50%")).is_empty());
        assert_eq!(errs(json!(0)), ["s.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0"]);
        assert_eq!(errs(json!("0%")), ["s.rollingUpdate.maxUnavailable: Invalid value: \"0%\": cannot be 0"]);
        assert_eq!(
            errs(json!("101%")),
            ["s.rollingUpdate.maxUnavailable: Invalid value: \"101%\": must not be greater than 100%"]
        );
        assert_eq!(
            errs(json!(-1)),
            ["s.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"]
        );
        let bad = errs(json!("x"));
        assert_eq!(bad.len(), 2);
        assert!(bad[0].contains("a valid percent string must be a numeric string followed by an ending '%'"));
        assert_eq!(bad[1], "s.rollingUpdate.maxUnavailable: Invalid value: \"x\": cannot be 0");
    }

    #[test]
    fn a_stateful_set_on_delete_takes_no_rolling_update() {
        let errs = stateful_set_update_strategy(
            &json!({"type": "OnDelete", "rollingUpdate": {"partition": 2}}),
            "spec.updateStrategy",
        );
        assert_eq!(
            texts(&errs),
            ["spec.updateStrategy.rollingUpdate: Invalid value: {\"Partition\":2,\"MaxUnavailable\":null}: only allowed for updateStrategy 'RollingUpdate'"]
        );
    }
}
