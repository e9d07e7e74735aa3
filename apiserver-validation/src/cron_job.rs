//! A CronJob's schedule and time zone as kubernetes/kubernetes
//! `pkg/apis/batch/validation/validation.go` validates them (release-1.36): `validateCronJobSpec`'s
//! schedule (`Required`, else `validateScheduleFormat`) and time zone (`validateTimeZone`, run on
//! CREATE and on an UPDATE that changes it), under the options `ValidateCronJobUpdate` passes: the
//! old schedule holding `TZ` allows it in the new one (`allowTZInSchedule`). The schedule is parsed
//! by [`crate::cron_schedule`] on every CREATE and UPDATE, so an unchanged schedule the parser
//! refuses is refused again; an unchanged time zone is not looked up again.
//!
//! A schedule on which the parser panics ([`crate::cron_schedule::panics`]) gets no field error
//! here: the apiserver answers 500, and [`crate::unmodelled`] names `spec.schedule` instead.

use serde_json::Value;

use crate::cron_schedule::{parse_standard, ScheduleError};
use crate::field::{BadValue, FieldError};
use crate::lookup::Lookup;
use crate::time_zone::validate_time_zone;

/// `spec.timeZone` as the decoded `*string`: `None` when absent or null.
fn time_zone(spec: &Value) -> Option<&str> {
    spec.member("timeZone").and_then(Value::as_str)
}

/// `validateCronJobSpec`'s schedule checks of `spec`, with the old spec on UPDATE.
pub fn schedule(spec: &Value, old_spec: Option<&Value>) -> Vec<FieldError> {
    let path = "spec.schedule";
    let schedule = spec.member("schedule").and_then(Value::as_str).unwrap_or("");
    if schedule.is_empty() {
        return vec![FieldError::required(path, "")];
    }
    let old_schedule = old_spec.and_then(|o| o.member("schedule")).and_then(Value::as_str);
    let allow_tz = old_schedule.is_some_and(|s| s.contains("TZ"));
    validate_schedule_format(schedule, allow_tz, time_zone(spec).is_some(), path)
}

/// `validateScheduleFormat`: the parser's error, then the `TZ` rules: refused unless the old
/// schedule had it, and even then not beside `spec.timeZone` (`time_zone_set`, an empty one too).
pub fn validate_schedule_format(schedule: &str, allow_tz: bool, time_zone_set: bool, path: &str) -> Vec<FieldError> {
    let invalid = |detail: String| FieldError::invalid(path, BadValue::Str(schedule.into()), detail);
    let mut errs = Vec::new();
    match parse_standard(schedule) {
        Ok(()) => {}
        Err(ScheduleError::PrefixWithoutSpace) => return errs,
        Err(e) => errs.push(invalid(e.to_string())),
    }
    let has_tz = schedule.contains("TZ");
    if allow_tz && has_tz && time_zone_set {
        errs.push(invalid("cannot use both timeZone field and TZ or CRON_TZ in schedule".into()));
    } else if !allow_tz && has_tz {
        errs.push(invalid("cannot use TZ or CRON_TZ in schedule, use timeZone field instead".into()));
    }
    errs
}

/// `validateCronJobSpec`'s time zone check: on CREATE, and on UPDATE when `ptr.Equal` finds the
/// old and new `*string` different (nil and `""` differ).
pub fn time_zone_checks(spec: &Value, old_spec: Option<&Value>) -> Vec<FieldError> {
    let new = time_zone(spec);
    match old_spec {
        Some(old) if time_zone(old) == new => Vec::new(),
        _ => validate_time_zone(new, "spec.timeZone"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::field::texts;

    #[test]
    fn a_schedule_is_required_then_parsed() {
        assert_eq!(texts(&schedule(&json!({}), None)), ["spec.schedule: Required value"]);
        assert_eq!(texts(&schedule(&json!({"schedule": ""}), None)), ["spec.schedule: Required value"]);
        assert!(schedule(&json!({"schedule": "@hourly"}), None).is_empty());
        assert_eq!(
            texts(&schedule(&json!({"schedule": "* * * *"}), None)),
            [r#"spec.schedule: Invalid value: "* * * *": expected exactly 5 fields, found 4: [* * * *]"#]
        );
    }

    #[test]
    fn an_unchanged_bad_schedule_is_refused_again() {
        let old = json!({"schedule": "61 * * * *"});
        assert_eq!(
            texts(&schedule(&old, Some(&old))),
            [r#"spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61"#]
        );
    }

    #[test]
    fn tz_in_a_schedule_is_kept_only_from_an_old_one() {
        let tz = json!({"schedule": "TZ=UTC 0 * * * *"});
        let no_tz = "cannot use TZ or CRON_TZ in schedule, use timeZone field instead";
        assert_eq!(
            texts(&schedule(&tz, None)),
            [format!(r#"spec.schedule: Invalid value: "TZ=UTC 0 * * * *": {no_tz}"#)]
        );
        assert_eq!(
            texts(&schedule(&tz, Some(&json!({"schedule": "0 * * * *"})))),
            [format!(r#"spec.schedule: Invalid value: "TZ=UTC 0 * * * *": {no_tz}"#)]
        );
        assert!(schedule(&tz, Some(&json!({"schedule": "CRON_TZ=Asia/Tokyo 5 * * * *"}))).is_empty());
        let both = json!({"schedule": "TZ=UTC 0 * * * *", "timeZone": "UTC"});
        assert_eq!(
            texts(&schedule(&both, Some(&tz))),
            [
                r#"spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use both timeZone field and TZ or CRON_TZ in schedule"#
            ]
        );
        // Go's strings.Contains: "TZ" anywhere, a parse error first.
        let bad_zone = json!({"schedule": "TZ=Mars 0 * * * *"});
        assert_eq!(
            texts(&schedule(&bad_zone, None)),
            [
                r#"spec.schedule: Invalid value: "TZ=Mars 0 * * * *": provided bad location Mars: unknown time zone Mars"#
                    .to_string(),
                format!(r#"spec.schedule: Invalid value: "TZ=Mars 0 * * * *": {no_tz}"#)
            ]
        );
    }

    #[test]
    fn a_panicking_schedule_has_no_field_error() {
        assert!(schedule(&json!({"schedule": "TZ=UTC"}), None).is_empty());
    }

    #[test]
    fn a_time_zone_is_checked_when_created_or_changed() {
        let tz = |v: Value| json!({"timeZone": v});
        let mars = r#"spec.timeZone: Invalid value: "Mars": unknown time zone Mars"#;
        assert_eq!(texts(&time_zone_checks(&tz(json!("Mars")), None)), [mars]);
        assert!(time_zone_checks(&tz(json!("Mars")), Some(&tz(json!("Mars")))).is_empty());
        assert_eq!(texts(&time_zone_checks(&tz(json!("Mars")), Some(&tz(json!("UTC"))))), [mars]);
        assert!(time_zone_checks(&tz(json!(null)), Some(&tz(json!("Mars")))).is_empty());
        assert_eq!(
            texts(&time_zone_checks(&tz(json!("")), Some(&json!({})))),
            [r#"spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string"#]
        );
    }
}
