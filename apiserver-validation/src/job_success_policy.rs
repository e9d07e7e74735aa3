//! A Job's success policy as kubernetes/kubernetes `pkg/apis/batch/validation/validation.go`
//! validates it (release-1.36; `JobSuccessPolicy` is GA and locked on since 1.33):
//! `validateJobSpec`'s requirement of the Indexed completion mode, `validateSuccessPolicy`,
//! `validateSuccessPolicyRule` (the indexes parsed by `validateIndexesFormat`, shared with the
//! status rules of [`crate::job_status`]), and `ValidateJobSpecUpdate`'s immutable success policy.
//!
//! Go dereferences `spec.completions` in `validateSuccessPolicyRule` without a nil check: an
//! Indexed Job whose `parallelism` is set but not its `completions` (so `SetDefaults_Job` leaves
//! them unset) makes the apiserver panic there. The model then skips the checks that read
//! `completions`; the Job is refused all the same (`completions` is required in Indexed mode).

use serde_json::Value;

use crate::field::{go_json_string, BadValue, FieldError};
use crate::job_policy::slice_json;
use crate::job_status::validate_indexes_format;
use crate::lookup::Lookup;
use crate::objectmeta::FIELD_IMMUTABLE;
use crate::rollout::nonnegative;
use crate::zero_values::{list, present};

/// `maxSuccessPolicyRule`.
const MAX_RULES: i64 = 20;
/// `maxJobSuccessPolicySucceededIndexesLimit`: 64 KiB.
const MAX_SUCCEEDED_INDEXES: usize = 64 * 1024;

/// The success policy of the job spec `spec` at `path` (`spec.successPolicy`), as
/// `validateJobSpec` checks it: only with the Indexed completion mode, then its rules.
pub fn success_policy(spec: &Value, path: &str) -> Vec<FieldError> {
    let Some(policy) = spec.member("successPolicy").filter(|p| !p.is_null()) else { return Vec::new() };
    if spec.member("completionMode").and_then(Value::as_str).unwrap_or("NonIndexed") != "Indexed" {
        return vec![FieldError::invalid(
            path,
            BadValue::Json(internal_json(policy)),
            "requires indexed completion mode",
        )];
    }
    let rules_path = format!("{path}.rules");
    let rules = list(policy, "rules");
    let count = i64::try_from(rules.len()).unwrap_or(i64::MAX);
    let mut errs = Vec::new();
    if rules.is_empty() {
        errs.push(FieldError::required(
            &rules_path,
            "at least one rules must be specified when the successPolicy is specified",
        ));
    }
    if count > MAX_RULES {
        errs.push(FieldError::too_many(&rules_path, count, MAX_RULES));
    }
    let completions = spec.member("completions").and_then(Value::as_i64).and_then(|c| i32::try_from(c).ok());
    for (i, rule) in rules.iter().enumerate() {
        errs.extend(success_policy_rule(rule, completions, &format!("{rules_path}[{i}]")));
    }
    errs
}

/// `validateSuccessPolicyRule` of one rule, under the Job's `completions` (`None`: unset, where
/// Go would dereference a nil pointer).
fn success_policy_rule(rule: &Value, completions: Option<i32>, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let indexes = rule.member("succeededIndexes").filter(|v| !v.is_null()).map(|v| v.as_str().unwrap_or(""));
    let count = rule.member("succeededCount").filter(|v| !v.is_null()).map(|v| v.as_i64().unwrap_or(0));
    if indexes.is_none() && count.is_none() {
        errs.push(FieldError::required(path, "at least one of succeededCount or succeededIndexes must be specified"));
    }
    // Go's total stays 0 when the indexes do not parse.
    let mut total = 0;
    if let Some(indexes) = indexes {
        let indexes_path = format!("{path}.succeededIndexes");
        if indexes.len() > MAX_SUCCEEDED_INDEXES {
            errs.push(FieldError::too_long(&indexes_path, MAX_SUCCEEDED_INDEXES));
        }
        match completions.map(|c| validate_indexes_format(indexes, c)) {
            Some(Ok(n)) => total = n,
            Some(Err(e)) => errs.push(FieldError::invalid(
                &indexes_path,
                BadValue::Str(indexes.into()),
                format!("error parsing succeededIndexes: {e}"),
            )),
            None => {}
        }
    }
    if let Some(count) = count {
        let count_path = format!("{path}.succeededCount");
        errs.extend(nonnegative(count, &count_path));
        if let Some(c) = completions.filter(|c| count > i64::from(*c)) {
            errs.push(FieldError::invalid(
                &count_path,
                BadValue::Int(count),
                format!("must be less than or equal to {c} (the number of specified completions)"),
            ));
        }
        if indexes.is_some() && completions.is_some() && count > total {
            errs.push(FieldError::invalid(
                &count_path,
                BadValue::Int(count),
                format!(
                    "must be less than or equal to {total} (the number of indexes in the specified succeededIndexes field)"
                ),
            ));
        }
    }
    errs
}

/// `ValidateJobSpecUpdate`'s `ValidateImmutableField` of the success policy (a nil and an empty
/// rule list are semantically equal), printed as the internal struct.
pub fn success_policy_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let policy = |spec: &Value| spec.member("successPolicy").filter(|p| !p.is_null()).cloned();
    let comparable = |p: &Option<Value>| {
        p.as_ref().map(|p| {
            list(p, "rules")
                .iter()
                .map(|r| (present_member(r, "succeededIndexes"), present_member(r, "succeededCount")))
                .collect::<Vec<_>>()
        })
    };
    let (n, o) = (policy(new), policy(old));
    if comparable(&n) == comparable(&o) {
        return Vec::new();
    }
    let bad = n.as_ref().map_or_else(|| "null".to_string(), internal_json);
    vec![FieldError::invalid("spec.successPolicy", BadValue::Json(bad), FIELD_IMMUTABLE)]
}

/// A member's value unless absent or null (a nil Go pointer).
fn present_member(v: &Value, key: &str) -> Option<Value> {
    present(v, key).then(|| v[key].clone())
}

/// The success policy as `json.Marshal` writes the internal `batch.SuccessPolicy` (no JSON tags:
/// Go's field names in the struct's order, nil pointers as `null`).
pub fn internal_json(policy: &Value) -> String {
    let rule = |r: &Value| {
        let indexes = present_member(r, "succeededIndexes")
            .map_or_else(|| "null".to_string(), |v| go_json_string(v.as_str().unwrap_or("")));
        let count = present_member(r, "succeededCount").map_or_else(|| "null".to_string(), |v| v.to_string());
        format!("{{\"SucceededIndexes\":{indexes},\"SucceededCount\":{count}}}")
    };
    format!("{{\"Rules\":{}}}", slice_json(policy, "rules", rule))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::field::texts;

    fn indexed(completions: i64, rules: Value) -> Value {
        json!({"completionMode": "Indexed", "completions": completions, "successPolicy": {"rules": rules}})
    }

    #[test]
    fn a_valid_policy_passes() {
        let spec = indexed(5, json!([{"succeededIndexes": "0,2-4", "succeededCount": 4}, {"succeededCount": 5}]));
        assert!(success_policy(&spec, "spec.successPolicy").is_empty());
    }

    #[test]
    fn a_non_indexed_job_may_not_have_one() {
        let spec = json!({"completionMode": "NonIndexed", "successPolicy": {"rules": [{"succeededCount": 1}]}});
        assert_eq!(
            texts(&success_policy(&spec, "spec.successPolicy")),
            ["spec.successPolicy: Invalid value: {\"Rules\":[{\"SucceededIndexes\":null,\"SucceededCount\":1}]}: requires indexed completion mode"]
        );
    }

    #[test]
    fn rules_are_required_and_bounded() {
        assert_eq!(
            texts(&success_policy(&indexed(3, json!([])), "spec.successPolicy")),
            ["spec.successPolicy.rules: Required value: at least one rules must be specified when the successPolicy is specified"]
        );
        let many: Vec<Value> = (0..21).map(|_| json!({"succeededCount": 1})).collect();
        assert_eq!(
            texts(&success_policy(&indexed(3, json!(many)), "spec.successPolicy")),
            ["spec.successPolicy.rules: Too many: 21: must have at most 20 items"]
        );
        assert_eq!(
            texts(&success_policy(&indexed(3, json!([{}])), "spec.successPolicy")),
            ["spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified"]
        );
    }

    #[test]
    fn indexes_must_parse_in_order_below_completions() {
        let errs = success_policy(&indexed(3, json!([{"succeededIndexes": "2,1"}, {"succeededIndexes": "3"}])), "p");
        assert_eq!(
            texts(&errs),
            [
                "p.rules[0].succeededIndexes: Invalid value: \"2,1\": error parsing succeededIndexes: non-increasing order, previous: 2, current: 1",
                "p.rules[1].succeededIndexes: Invalid value: \"3\": error parsing succeededIndexes: too large index: \"3\""
            ]
        );
    }

    #[test]
    fn counts_are_bounded_by_completions_and_by_the_indexes() {
        let errs = success_policy(
            &indexed(3, json!([{"succeededCount": -1}, {"succeededIndexes": "0-1", "succeededCount": 4}])),
            "p",
        );
        assert_eq!(
            texts(&errs),
            [
                "p.rules[0].succeededCount: Invalid value: -1: must be greater than or equal to 0",
                "p.rules[1].succeededCount: Invalid value: 4: must be less than or equal to 3 (the number of specified completions)",
                "p.rules[1].succeededCount: Invalid value: 4: must be less than or equal to 2 (the number of indexes in the specified succeededIndexes field)"
            ]
        );
        // Unparsable indexes count as none.
        let errs = success_policy(&indexed(3, json!([{"succeededIndexes": "x", "succeededCount": 1}])), "p");
        assert_eq!(errs.len(), 2);
        assert!(errs[1].detail.contains("must be less than or equal to 0 (the number of indexes"));
    }

    #[test]
    fn unset_completions_skip_what_reads_them() {
        let spec = json!({"completionMode": "Indexed", "parallelism": 2, "successPolicy": {"rules": [{"succeededIndexes": "9", "succeededCount": 9}]}});
        assert!(success_policy(&spec, "p").is_empty());
    }

    #[test]
    fn the_policy_is_immutable() {
        let old = indexed(3, json!([{"succeededCount": 1}]));
        assert!(success_policy_update(&old, &old.clone()).is_empty());
        let new = indexed(3, json!([{"succeededCount": 2}]));
        assert_eq!(
            texts(&success_policy_update(&new, &old)),
            ["spec.successPolicy: Invalid value: {\"Rules\":[{\"SucceededIndexes\":null,\"SucceededCount\":2}]}: field is immutable"]
        );
        let removed = json!({"completionMode": "Indexed", "completions": 3});
        assert_eq!(
            texts(&success_policy_update(&removed, &old)),
            ["spec.successPolicy: Invalid value: null: field is immutable"]
        );
        // A nil and an empty rule list are the same.
        let empty = json!({"successPolicy": {"rules": []}});
        assert!(success_policy_update(&empty, &json!({"successPolicy": {}})).is_empty());
    }
}
