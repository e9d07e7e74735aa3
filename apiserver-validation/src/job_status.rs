//! An UPDATE of a Job's `/status` as the registry handles it (release-1.36):
//! `pkg/registry/batch/job/strategy.go` `jobStatusStrategy.PrepareForUpdate` puts the old spec back
//! (`GetResetFields`: `spec`; [`crate::workload_status::prepare_for_update`] does it), then its
//! `ValidateUpdate` runs `pkg/apis/batch/validation/validation.go` `ValidateJobUpdateStatus` with
//! the options of `getStatusValidationOptions` ([`validate_job_status_update`]: `validateJobStatus`
//! and `ValidateJobStatusUpdate`, after the metadata's update rules, which the caller reports first).
//!
//! The options are those of the `JobManagedBy` feature gate enabled, its default since it became GA
//! in 1.35: most status rules run only when the fields they read changed from the stored Job (a
//! completed Job's `completedIndexes` past a lowered `completions` is left alone until rewritten).
//! `AllowForSuccessCriteriaMetInExtendedScope` is then always set, so the two checks it switches
//! off (`SuccessCriteriaMet` on a NonIndexed Job or one without a success policy) are not modelled;
//! nor are the weaker options of the gate disabled (with or without `JobPodReplacementPolicy`).
//!
//! Go reads the stored object's timestamps as `metav1.Time`s: `startTime` and `completionTime`
//! are compared as instants (a fractional second counts), and printed in an error as
//! `metav1.Time.MarshalJSON` writes them (UTC, whole seconds).

use serde_json::Value;

use crate::field::{go_json_string, BadValue, FieldError};
use crate::lookup::Lookup;
use crate::workload_status::NEGATIVE;

/// `validateJobStatus` and `ValidateJobStatusUpdate` of `new` over `old` (both defaulted, `new`'s
/// spec already put back), with the options `getStatusValidationOptions` gives under
/// `JobManagedBy`, in Go's order.
pub fn validate_job_status_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let null = Value::Null;
    let job = Job::of(new, &null);
    let before = Job::of(old, &null);
    let opts = Options::of(&job, &before);
    let mut errs = validate_job_status(&job, &opts);
    errs.extend(job_status_update(&job, &before, &opts));
    errs
}

/// The options of `getStatusValidationOptions` under `JobManagedBy`; the ones always on are not
/// held here.
struct Options {
    reject_decreasing_succeeded: bool,
    reject_invalid_completed_indexes: bool,
    reject_invalid_failed_indexes: bool,
    reject_failed_indexes_overlapping_completed: bool,
    reject_failed_job_without_failure_target: bool,
    reject_complete_job_without_success_criteria_met: bool,
    reject_finished_job_with_active_pods: bool,
    reject_finished_job_without_start_time: bool,
    reject_finished_job_with_uncounted_terminated_pods: bool,
    reject_start_time_update_for_unsuspended_job: bool,
    reject_completion_time_before_start_time: bool,
    reject_completion_time_without_complete: bool,
    reject_complete_job_with_failed_condition: bool,
    reject_complete_job_with_failure_target_condition: bool,
    reject_more_ready_than_active_pods: bool,
    reject_finished_job_with_terminating_pods: bool,
}

impl Options {
    /// `getStatusValidationOptions(newJob, oldJob)`.
    fn of(new: &Job, old: &Job) -> Self {
        let changed = |kind: &str| new.condition_true(kind) != old.condition_true(kind);
        let finished = new.finished() != old.finished();
        let complete = changed("Complete");
        let failed = changed("Failed");
        let failure_target = changed("FailureTarget");
        let success_criteria_met = changed("SuccessCriteriaMet");
        let completed_indexes = new.completed_indexes != old.completed_indexes;
        let failed_indexes = new.failed_indexes != old.failed_indexes;
        let active = new.active != old.active;
        let start_time = new.start_time != old.start_time;
        let completion_time = new.completion_time != old.completion_time;
        let uncounted = !uncounted_equal(new.uncounted, old.uncounted);
        let ready = new.ready != old.ready;
        let terminating = new.terminating != old.terminating;
        Options {
            // Scaling an Indexed Job down (completions and parallelism together) may lower it.
            reject_decreasing_succeeded: !new.indexed() || new.completions != new.parallelism,
            reject_invalid_completed_indexes: completed_indexes,
            reject_invalid_failed_indexes: failed_indexes,
            reject_failed_indexes_overlapping_completed: failed_indexes || completed_indexes,
            reject_failed_job_without_failure_target: failed || failed_indexes,
            reject_complete_job_without_success_criteria_met: complete || success_criteria_met,
            reject_finished_job_with_active_pods: finished || active,
            reject_finished_job_without_start_time: finished || start_time,
            reject_finished_job_with_uncounted_terminated_pods: finished || uncounted,
            reject_start_time_update_for_unsuspended_job: start_time,
            reject_completion_time_before_start_time: start_time || completion_time,
            reject_completion_time_without_complete: complete || completion_time,
            reject_complete_job_with_failed_condition: complete || failed,
            reject_complete_job_with_failure_target_condition: complete || failure_target,
            reject_more_ready_than_active_pods: ready || active,
            reject_finished_job_with_terminating_pods: finished || terminating,
        }
    }
}

/// What the status rules read of a Job, as the decoder leaves it (a count absent or null is 0, a
/// pointer absent or null is `None`).
struct Job<'a> {
    active: i64,
    succeeded: i64,
    failed: i64,
    ready: Option<i64>,
    terminating: Option<i64>,
    start_time: Option<Time>,
    completion_time: Option<Time>,
    completed_indexes: &'a str,
    failed_indexes: Option<&'a str>,
    uncounted: Option<&'a Value>,
    conditions: &'a [Value],
    indexed_mode: bool,
    completions: Option<i64>,
    parallelism: Option<i64>,
    backoff_limit_per_index: bool,
    suspend: bool,
    success_policy: bool,
}

/// A member of `v` that is set (neither absent nor null).
fn set<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.member(key).filter(|x| !x.is_null())
}

impl<'a> Job<'a> {
    fn of(job: &'a Value, null: &'a Value) -> Self {
        let status = job.member("status").unwrap_or(null);
        let spec = job.member("spec").unwrap_or(null);
        let int = |v: &Value, k: &str| set(v, k).and_then(Value::as_i64);
        let time = |k: &str| set(status, k).and_then(Value::as_str).and_then(Time::parse);
        Job {
            active: int(status, "active").unwrap_or(0),
            succeeded: int(status, "succeeded").unwrap_or(0),
            failed: int(status, "failed").unwrap_or(0),
            ready: int(status, "ready"),
            terminating: int(status, "terminating"),
            start_time: time("startTime"),
            completion_time: time("completionTime"),
            completed_indexes: set(status, "completedIndexes").and_then(Value::as_str).unwrap_or(""),
            failed_indexes: set(status, "failedIndexes").and_then(Value::as_str),
            uncounted: set(status, "uncountedTerminatedPods"),
            conditions: set(status, "conditions").and_then(Value::as_array).map_or(&[], Vec::as_slice),
            indexed_mode: spec.member("completionMode").and_then(Value::as_str) == Some("Indexed"),
            completions: int(spec, "completions"),
            parallelism: int(spec, "parallelism"),
            backoff_limit_per_index: set(spec, "backoffLimitPerIndex").is_some(),
            suspend: spec.member("suspend").and_then(Value::as_bool).unwrap_or(false),
            success_policy: set(spec, "successPolicy").is_some(),
        }
    }

    /// `IsConditionTrue(job.Status.Conditions, kind)`.
    fn condition_true(&self, kind: &str) -> bool {
        self.conditions.iter().any(|c| {
            c.member("type").and_then(Value::as_str) == Some(kind)
                && c.member("status").and_then(Value::as_str) == Some("True")
        })
    }
    /// `IsJobFinished`: Complete=True or Failed=True.
    fn finished(&self) -> bool {
        self.complete() || self.failed()
    }
    /// `IsJobComplete`.
    fn complete(&self) -> bool {
        self.condition_true("Complete")
    }
    /// `IsJobFailed`.
    fn failed(&self) -> bool {
        self.condition_true("Failed")
    }
    /// `isJobFailureTarget`.
    fn failure_target(&self) -> bool {
        self.condition_true("FailureTarget")
    }
    /// `isJobSuccessCriteriaMet`.
    fn success_criteria_met(&self) -> bool {
        self.condition_true("SuccessCriteriaMet")
    }
    /// `completionMode` is `Indexed`.
    fn indexed(&self) -> bool {
        self.indexed_mode
    }
    /// The UIDs of `uncountedTerminatedPods.<list>`: `None` for a nil list.
    fn uncounted_list(&self, list: &str) -> Option<&'a [Value]> {
        self.uncounted.and_then(|u| set(u, list)).and_then(Value::as_array).map(Vec::as_slice)
    }
}

/// `apiequality.Semantic.DeepEqual` of two `*UncountedTerminatedPods`: nil only equals nil; a nil
/// list equals an empty one.
fn uncounted_equal(a: Option<&Value>, b: Option<&Value>) -> bool {
    let list = |u: &Value, k: &str| set(u, k).and_then(Value::as_array).map_or(&[][..], Vec::as_slice).to_vec();
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => ["succeeded", "failed"].iter().all(|k| list(a, k) == list(b, k)),
        _ => false,
    }
}

/// A UID as `json.Marshal` writes a `types.UID` (not a Go `string`, so `ErrorBody` marshals it).
fn uid(v: &Value) -> (String, BadValue) {
    let text = v.as_str().unwrap_or("").to_string();
    let bad = BadValue::Json(go_json_string(&text));
    (text, bad)
}

/// The internal `batch.UncountedTerminatedPods` as `json.Marshal` writes it (Go field names, a nil
/// list as `null`).
fn uncounted_json(job: &Job) -> String {
    let list = |k: &str| match job.uncounted_list(k) {
        None => "null".to_string(),
        Some(items) => {
            let texts: Vec<String> = items.iter().map(|v| go_json_string(v.as_str().unwrap_or(""))).collect();
            format!("[{}]", texts.join(","))
        }
    };
    format!("{{\"Succeeded\":{},\"Failed\":{}}}", list("succeeded"), list("failed"))
}

/// `field.Invalid(status.conditions, field.OmitValueType{}, detail)`.
fn conditions_error(detail: impl Into<String>) -> FieldError {
    FieldError::invalid("status.conditions", BadValue::Omit, detail)
}

/// `validateJobStatus`.
fn validate_job_status(job: &Job, opts: &Options) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (key, value) in [("active", job.active), ("succeeded", job.succeeded), ("failed", job.failed)] {
        if value < 0 {
            errs.push(FieldError::invalid(&format!("status.{key}"), BadValue::Int(value), NEGATIVE));
        }
    }
    for (key, value) in [("ready", job.ready), ("terminating", job.terminating)] {
        if let Some(v) = value.filter(|v| *v < 0) {
            errs.push(FieldError::invalid(&format!("status.{key}"), BadValue::Int(v), NEGATIVE));
        }
    }
    if job.uncounted.is_some() {
        let mut seen: Vec<String> = Vec::new();
        for list in ["succeeded", "failed"] {
            for (i, v) in job.uncounted_list(list).unwrap_or(&[]).iter().enumerate() {
                let path = format!("status.uncountedTerminatedPods.{list}[{i}]");
                let (text, bad) = uid(v);
                if text.is_empty() {
                    errs.push(FieldError::invalid(&path, bad, "must not be empty"));
                } else if seen.contains(&text) {
                    errs.push(FieldError::duplicate(&path, bad));
                } else {
                    seen.push(text);
                }
            }
        }
    }
    let complete = job.complete();
    if opts.reject_complete_job_with_failed_condition && complete && job.failed() {
        errs.push(conditions_error("cannot set Complete=True and Failed=true conditions"));
    }
    if opts.reject_complete_job_with_failure_target_condition && complete && job.failure_target() {
        errs.push(conditions_error("cannot set Complete=True and FailureTarget=true conditions"));
    }
    if opts.reject_completion_time_without_complete {
        match &job.completion_time {
            Some(t) if !complete => errs.push(FieldError::invalid(
                "status.completionTime",
                t.bad_value(),
                "cannot set completionTime when there is no Complete=True condition",
            )),
            None if complete => {
                errs.push(FieldError::required("status.completionTime", "completionTime is required for Complete jobs"))
            }
            _ => {}
        }
    }
    if opts.reject_completion_time_before_start_time {
        if let (Some(start), Some(end)) = (&job.start_time, &job.completion_time) {
            if end < start {
                errs.push(FieldError::invalid(
                    "status.completionTime",
                    end.bad_value(),
                    "completionTime cannot be set before startTime",
                ));
            }
        }
    }
    if opts.reject_failed_job_without_failure_target && job.failed() && !job.failure_target() {
        errs.push(conditions_error("cannot set Failed=True condition without the FailureTarget=true condition"));
    }
    if opts.reject_complete_job_without_success_criteria_met && complete && !job.success_criteria_met() {
        errs.push(conditions_error("cannot set Complete=True condition without the SuccessCriteriaMet=true condition"));
    }
    let finished = job.finished();
    if opts.reject_finished_job_with_active_pods && job.active > 0 && finished {
        errs.push(FieldError::invalid(
            "status.active",
            BadValue::Int(job.active),
            "active>0 is invalid for finished job",
        ));
    }
    if opts.reject_finished_job_without_start_time && job.start_time.is_none() && finished {
        errs.push(FieldError::required("status.startTime", "startTime is required for finished job"));
    }
    let uncounted_len = job.uncounted_list("failed").map_or(0, <[Value]>::len)
        + job.uncounted_list("succeeded").map_or(0, <[Value]>::len);
    if opts.reject_finished_job_with_uncounted_terminated_pods && finished && uncounted_len > 0 {
        errs.push(FieldError::invalid(
            "status.uncountedTerminatedPods",
            BadValue::Json(uncounted_json(job)),
            "uncountedTerminatedPods needs to be empty for finished job",
        ));
    }
    errs.extend(indexes_errors(job, opts));
    if opts.reject_finished_job_with_terminating_pods && finished {
        if let Some(t) = job.terminating.filter(|t| *t > 0) {
            errs.push(FieldError::invalid(
                "status.terminating",
                BadValue::Int(t),
                "terminating>0 is invalid for finished job",
            ));
        }
    }
    if opts.reject_more_ready_than_active_pods {
        if let Some(ready) = job.ready.filter(|r| *r > job.active) {
            errs.push(FieldError::invalid(
                "status.ready",
                BadValue::Int(ready),
                "cannot set more ready pods than active",
            ));
        }
    }
    let success_criteria_met = job.success_criteria_met();
    if success_criteria_met && job.failed() {
        errs.push(conditions_error("cannot set SuccessCriteriaMet=True and Failed=true conditions"));
    }
    if success_criteria_met && job.failure_target() {
        errs.push(conditions_error("cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"));
    }
    if job.success_policy && !success_criteria_met && complete {
        errs.push(conditions_error(
            "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True",
        ));
    }
    errs
}

/// The checks of `validateJobStatus` on `completedIndexes` and `failedIndexes`.
fn indexes_errors(job: &Job, opts: &Options) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let completions = job.completions.map(|c| c as i32);
    let completed = job.completed_indexes;
    if let Some(c) = completions.filter(|_| opts.reject_invalid_completed_indexes) {
        if let Err(e) = validate_indexes_format(completed, c) {
            let detail = format!("error parsing completedIndexes: {e}");
            errs.push(FieldError::invalid("status.completedIndexes", BadValue::Str(completed.into()), detail));
        }
    }
    if opts.reject_invalid_failed_indexes && job.backoff_limit_per_index {
        if let (Some(c), Some(failed)) = (completions, job.failed_indexes) {
            if let Err(e) = validate_indexes_format(failed, c) {
                // A `*string`: `ErrorBody` marshals it.
                let bad = BadValue::Json(go_json_string(failed));
                errs.push(FieldError::invalid(
                    "status.failedIndexes",
                    bad,
                    format!("error parsing failedIndexes: {e}"),
                ));
            }
        }
    }
    if opts.reject_invalid_completed_indexes && !completed.is_empty() && !job.indexed() {
        errs.push(FieldError::invalid(
            "status.completedIndexes",
            BadValue::Str(completed.into()),
            "cannot set non-empty completedIndexes when non-indexed completion mode",
        ));
    }
    if opts.reject_invalid_failed_indexes && !job.backoff_limit_per_index {
        if let Some(failed) = job.failed_indexes {
            errs.push(FieldError::invalid(
                "status.failedIndexes",
                BadValue::Str(failed.into()),
                "cannot set non-null failedIndexes when backoffLimitPerIndex is null",
            ));
        }
    }
    if opts.reject_failed_indexes_overlapping_completed {
        if let (Some(c), Some(failed)) = (completions, job.failed_indexes) {
            if let Some(e) = failed_indexes_overlap_completed(completed, failed, c) {
                errs.push(FieldError::invalid("status.failedIndexes", BadValue::Str(failed.into()), e));
            }
        }
    }
    errs
}

/// `ValidateJobStatusUpdate`'s own checks (after `validateJobStatus`).
fn job_status_update(job: &Job, old: &Job, opts: &Options) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for kind in ["Failed", "Complete", "FailureTarget"] {
        if old.condition_true(kind) && !job.condition_true(kind) {
            errs.push(conditions_error(format!("cannot disable the terminal {kind}=True condition")));
        }
    }
    if job.failed < old.failed {
        errs.push(FieldError::invalid(
            "status.failed",
            BadValue::Int(job.failed),
            "cannot decrease the failed counter",
        ));
    }
    if opts.reject_decreasing_succeeded && job.succeeded < old.succeeded {
        errs.push(FieldError::invalid(
            "status.succeeded",
            BadValue::Int(job.succeeded),
            "cannot decrease the succeeded counter",
        ));
    }
    if let (Some(now), Some(before)) = (&job.completion_time, &old.completion_time) {
        if now != before {
            errs.push(FieldError::invalid(
                "status.completionTime",
                now.bad_value(),
                "completionTime cannot be mutated",
            ));
        }
    }
    if opts.reject_start_time_update_for_unsuspended_job
        && old.start_time.is_some()
        && old.start_time != job.start_time
        && !job.suspend
    {
        errs.push(FieldError::required("status.startTime", "startTime cannot be removed for unsuspended job"));
    }
    if old.success_criteria_met() && !job.success_criteria_met() {
        errs.push(conditions_error("cannot disable the SuccessCriteriaMet=True condition"));
    }
    if old.complete() && !old.success_criteria_met() && job.success_criteria_met() {
        errs.push(conditions_error("cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"));
    }
    errs
}

/// `strconv.Atoi`: an optional sign and decimal digits within an `int64`.
fn atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok()
}

/// `parseIndexInterval`: `x` or `x-y` with `x < y < completions`.
fn parse_index_interval(interval: &str, completions: i32) -> Result<(i64, i64), String> {
    let limits: Vec<&str> = interval.split('-').collect();
    if limits.len() > 2 {
        return Err(format!(
            "the fragment {} violates the requirement that an index interval can have at most two parts separated by '-'",
            crate::field::go_quote(interval)
        ));
    }
    let number = |s: &str| {
        let quoted = crate::field::go_quote(s);
        let n = atoi(s).ok_or_else(|| format!("cannot convert string to integer for index: {quoted}"))?;
        if n >= i64::from(completions) {
            return Err(format!("too large index: {quoted}"));
        }
        Ok(n)
    };
    let x = number(limits[0])?;
    let Some(second) = limits.get(1) else { return Ok((x, x)) };
    let y = number(second)?;
    if x >= y {
        return Err(format!("non-increasing order, previous: {x}, current: {y}"));
    }
    Ok((x, y))
}

/// `validateIndexesFormat`: comma-separated intervals in increasing order; the number of indexes
/// they hold, or Go's error text.
pub(crate) fn validate_indexes_format(indexes: &str, completions: i32) -> Result<i64, String> {
    if indexes.is_empty() {
        return Ok(0);
    }
    let mut last: Option<i64> = None;
    let mut total = 0;
    for interval in indexes.split(',') {
        let (x, y) = parse_index_interval(interval, completions)?;
        if let Some(last) = last.filter(|l| *l >= x) {
            return Err(format!("non-increasing order, previous: {last}, current: {x}"));
        }
        total += y - x + 1;
        last = Some(y);
    }
    Ok(total)
}

/// `validateFailedIndexesNotOverlapCompleted`: the first index both lists hold, walking their
/// intervals as Go does (an interval that does not parse is stepped over).
fn failed_indexes_overlap_completed(completed: &str, failed: &str, completions: i32) -> Option<String> {
    if completed.is_empty() || failed.is_empty() {
        return None;
    }
    let completed: Vec<&str> = completed.split(',').collect();
    let failed: Vec<&str> = failed.split(',').collect();
    let (mut cp, mut fp) = (0, 0);
    let mut c = parse_index_interval(completed[0], completions);
    let mut f = parse_index_interval(failed[0], completions);
    while cp < completed.len() && fp < failed.len() {
        match (&c, &f) {
            (Err(_), _) => {
                cp += 1;
                if cp < completed.len() {
                    c = parse_index_interval(completed[cp], completions);
                }
            }
            (_, Err(_)) => {
                fp += 1;
                if fp < failed.len() {
                    f = parse_index_interval(failed[fp], completions);
                }
            }
            (Ok((cx, cy)), Ok((fx, fy))) => {
                if cx <= fy && fx <= cy {
                    return Some(format!("failedIndexes and completedIndexes overlap at index: {}", cx.max(fx)));
                }
                if cx <= fx {
                    cp += 1;
                    if cp < completed.len() {
                        c = parse_index_interval(completed[cp], completions);
                    }
                } else {
                    fp += 1;
                    if fp < failed.len() {
                        f = parse_index_interval(failed[fp], completions);
                    }
                }
            }
        }
    }
    None
}

/// A `metav1.Time` read from RFC 3339 (`time.Parse(time.RFC3339, …)`): seconds since the Unix
/// epoch and nanoseconds, so that ordering and equality are those of the instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Time {
    seconds: i64,
    nanos: u32,
}

/// Days from 1970-01-01 to the civil date (proleptic Gregorian).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day count from 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Go's zero `time.Time` (0001-01-01T00:00:00Z), which `MarshalJSON` writes as `null`.
const ZERO_TIME: i64 = -62_135_596_800;

impl Time {
    /// `2006-01-02T15:04:05[.fraction](Z|±hh:mm)`; `None` for anything else (the decoder refuses it).
    fn parse(s: &str) -> Option<Time> {
        let b = s.as_bytes();
        let num = |from: usize, len: usize| -> Option<i64> {
            let part = s.get(from..from + len)?;
            part.bytes().all(|c| c.is_ascii_digit()).then(|| part.parse().ok()).flatten()
        };
        if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
            return None;
        }
        let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
        let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
        if !(1..=12).contains(&month) || day < 1 || day > month_days[(month - 1) as usize] {
            return None;
        }
        if hour > 23 || minute > 59 || second > 59 {
            return None;
        }
        let mut rest = &s[19..];
        let mut nanos = 0u32;
        if let Some(fraction) = rest.strip_prefix('.') {
            let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return None;
            }
            let padded: String = fraction[..digits].chars().chain(std::iter::repeat('0')).take(9).collect();
            nanos = padded.parse().ok()?;
            rest = &fraction[digits..];
        }
        let offset = match rest.as_bytes() {
            [b'Z'] => 0,
            [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
                let two = |a: u8, b: u8| -> Option<i64> {
                    (a.is_ascii_digit() && b.is_ascii_digit()).then(|| i64::from((a - b'0') * 10 + (b - b'0')))
                };
                let (h, m) = (two(*h1, *h2)?, two(*m1, *m2)?);
                if h > 23 || m > 59 {
                    return None;
                }
                let minutes = h * 60 + m;
                if *sign == b'-' {
                    -minutes * 60
                } else {
                    minutes * 60
                }
            }
            _ => return None,
        };
        let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset;
        Some(Time { seconds, nanos })
    }

    /// `json.Marshal` of a `*metav1.Time`: RFC 3339 in UTC, whole seconds, quoted (`null` for the
    /// zero time).
    fn bad_value(&self) -> BadValue {
        if self.seconds == ZERO_TIME && self.nanos == 0 {
            return BadValue::Json("null".into());
        }
        let (days, secs) = (self.seconds.div_euclid(86_400), self.seconds.rem_euclid(86_400));
        let (y, m, d) = civil_from_days(days);
        let text = format!("\"{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z\"", secs / 3600, secs / 60 % 60, secs % 60);
        BadValue::Json(text)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::field::texts;

    fn job(spec: Value, status: Value) -> Value {
        json!({"metadata": {"name": "pi"}, "spec": spec, "status": status})
    }

    fn errors(new: Value, old: Value) -> Vec<String> {
        texts(&validate_job_status_update(&new, &old))
    }

    fn non_indexed() -> Value {
        json!({"completions": 1, "parallelism": 1, "completionMode": "NonIndexed"})
    }

    fn condition(kind: &str) -> Value {
        json!({"type": kind, "status": "True"})
    }

    #[test]
    fn times_are_instants_printed_in_utc_whole_seconds() {
        let t = Time::parse("2026-01-01T01:00:00.5+01:00").unwrap();
        assert_eq!(t, Time { seconds: Time::parse("2026-01-01T00:00:00Z").unwrap().seconds, nanos: 500_000_000 });
        assert_eq!(t.bad_value(), BadValue::Json("\"2026-01-01T00:00:00Z\"".into()));
        assert!(Time::parse("2026-01-01T00:00:00Z").unwrap() < t);
        assert_eq!(Time::parse("1969-12-31T23:59:59Z").unwrap().seconds, -1);
        assert_eq!(Time::parse("0001-01-01T00:00:00Z").unwrap().bad_value(), BadValue::Json("null".into()));
        for bad in ["2026-02-30T00:00:00Z", "2026-01-01 00:00:00Z", "2026-01-01T00:00:00", "2026-01-01T24:00:00Z"] {
            assert_eq!(Time::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn counts_and_uncounted_pods_are_checked_on_every_update() {
        let old = job(non_indexed(), json!({}));
        let new = job(
            non_indexed(),
            json!({"active": -1, "ready": -2, "uncountedTerminatedPods": {"succeeded": ["a", ""], "failed": ["a"]}}),
        );
        assert_eq!(
            errors(new, old),
            [
                "status.active: Invalid value: -1: must be greater than or equal to 0",
                "status.ready: Invalid value: -2: must be greater than or equal to 0",
                "status.uncountedTerminatedPods.succeeded[1]: Invalid value: \"\": must not be empty",
                "status.uncountedTerminatedPods.failed[0]: Duplicate value: \"a\"",
            ]
        );
    }

    #[test]
    fn a_job_finishing_needs_its_conditions_and_times_in_order() {
        let old = job(non_indexed(), json!({"active": 1, "startTime": "2026-01-01T00:00:05Z"}));
        // Complete without SuccessCriteriaMet nor completionTime, still active.
        let new = job(
            non_indexed(),
            json!({"active": 1, "startTime": "2026-01-01T00:00:05Z", "conditions": [condition("Complete")]}),
        );
        assert_eq!(
            errors(new, old.clone()),
            [
                "status.completionTime: Required value: completionTime is required for Complete jobs",
                "status.conditions: Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition",
                "status.active: Invalid value: 1: active>0 is invalid for finished job",
            ]
        );
        // The Job controller's own write: SuccessCriteriaMet and Complete, completionTime, no pods.
        let done = job(
            non_indexed(),
            json!({"succeeded": 1, "startTime": "2026-01-01T00:00:05Z", "completionTime": "2026-01-01T00:01:00Z",
                   "conditions": [condition("SuccessCriteriaMet"), condition("Complete")],
                   "uncountedTerminatedPods": {}}),
        );
        assert!(errors(done.clone(), old.clone()).is_empty(), "{:?}", errors(done.clone(), old));
        // Once there, it stays: the terminal condition, the counter and the time.
        let undone = job(
            non_indexed(),
            json!({"startTime": "2026-01-01T00:00:05Z", "completionTime": "2026-01-01T00:02:00Z",
                   "conditions": [condition("SuccessCriteriaMet")]}),
        );
        assert_eq!(
            errors(undone, done),
            [
                "status.completionTime: Invalid value: \"2026-01-01T00:02:00Z\": cannot set completionTime when there is no Complete=True condition",
                "status.conditions: Invalid value: cannot disable the terminal Complete=True condition",
                "status.succeeded: Invalid value: 0: cannot decrease the succeeded counter",
                "status.completionTime: Invalid value: \"2026-01-01T00:02:00Z\": completionTime cannot be mutated",
            ]
        );
    }

    #[test]
    fn rules_on_unchanged_fields_are_left_alone() {
        // A bad stored status is not refused again when the update leaves those fields as they are.
        let bad = json!({"active": 2, "ready": 3, "completedIndexes": "9", "conditions": [condition("Failed")]});
        let old = job(non_indexed(), bad.clone());
        assert_eq!(errors(job(non_indexed(), bad.clone()), old.clone()), Vec::<String>::new());
        let mut active = bad;
        active["active"] = json!(1);
        assert_eq!(
            errors(job(non_indexed(), active), old),
            [
                "status.active: Invalid value: 1: active>0 is invalid for finished job",
                "status.ready: Invalid value: 3: cannot set more ready pods than active",
            ]
        );
    }

    #[test]
    fn indexes_are_parsed_as_go_parses_them() {
        let spec = json!({"completions": 5, "parallelism": 5, "completionMode": "Indexed", "backoffLimitPerIndex": 1});
        let old = job(spec.clone(), json!({}));
        let status = |completed: &str, failed: &str| json!({"completedIndexes": completed, "failedIndexes": failed});
        assert_eq!(
            errors(job(spec.clone(), status("1-3,2", "x-1")), old.clone()),
            [
                "status.completedIndexes: Invalid value: \"1-3,2\": error parsing completedIndexes: non-increasing order, previous: 3, current: 2",
                "status.failedIndexes: Invalid value: \"x-1\": error parsing failedIndexes: cannot convert string to integer for index: \"x\"",
            ]
        );
        assert_eq!(
            errors(job(spec.clone(), status("0,2-4", "1,3")), old.clone()),
            ["status.failedIndexes: Invalid value: \"1,3\": failedIndexes and completedIndexes overlap at index: 3"]
        );
        assert_eq!(
            errors(job(spec.clone(), status("5", "1-2-3")), old.clone()),
            [
                "status.completedIndexes: Invalid value: \"5\": error parsing completedIndexes: too large index: \"5\"",
                "status.failedIndexes: Invalid value: \"1-2-3\": error parsing failedIndexes: the fragment \"1-2-3\" violates the requirement that an index interval can have at most two parts separated by '-'",
            ]
        );
        assert!(errors(job(spec, status("0,+2-4", "1")), old).is_empty());
        // Without a per-index backoff limit, or on a NonIndexed Job.
        let plain = job(non_indexed(), json!({"completedIndexes": "0", "failedIndexes": ""}));
        assert_eq!(
            errors(plain, job(non_indexed(), json!({}))),
            [
                "status.completedIndexes: Invalid value: \"0\": cannot set non-empty completedIndexes when non-indexed completion mode",
                "status.failedIndexes: Invalid value: \"\": cannot set non-null failedIndexes when backoffLimitPerIndex is null",
            ]
        );
    }

    #[test]
    fn uncounted_pods_of_a_finished_job_print_as_the_internal_struct() {
        let old = job(
            non_indexed(),
            json!({"startTime": "2026-01-01T00:00:05Z", "conditions": [condition("FailureTarget")]}),
        );
        let new = job(
            non_indexed(),
            json!({"startTime": "2026-01-01T00:00:05Z", "conditions": [condition("FailureTarget"), condition("Failed")],
                   "uncountedTerminatedPods": {"failed": ["<a>"]}, "terminating": 1}),
        );
        assert_eq!(
            errors(new, old),
            [
                "status.uncountedTerminatedPods: Invalid value: {\"Succeeded\":null,\"Failed\":[\"\\u003ca\\u003e\"]}: uncountedTerminatedPods needs to be empty for finished job",
                "status.terminating: Invalid value: 1: terminating>0 is invalid for finished job",
            ]
        );
    }

    #[test]
    fn a_start_time_changes_only_while_suspended_and_success_criteria_stay() {
        let started = json!({"startTime": "2026-01-01T00:00:05Z", "conditions": [condition("SuccessCriteriaMet")]});
        let old = job(non_indexed(), started);
        let moved = json!({"startTime": "2026-01-01T00:00:06Z"});
        assert_eq!(
            errors(job(non_indexed(), moved.clone()), old.clone()),
            [
                "status.startTime: Required value: startTime cannot be removed for unsuspended job",
                "status.conditions: Invalid value: cannot disable the SuccessCriteriaMet=True condition",
            ]
        );
        let mut suspended = non_indexed();
        suspended["suspend"] = json!(true);
        let mut old_suspended = old;
        old_suspended["spec"] = suspended.clone();
        assert_eq!(
            errors(job(suspended, moved), old_suspended),
            ["status.conditions: Invalid value: cannot disable the SuccessCriteriaMet=True condition"]
        );
    }

    #[test]
    fn an_indexed_job_scaled_down_may_lower_its_succeeded_count() {
        let spec = json!({"completions": 2, "parallelism": 2, "completionMode": "Indexed"});
        let old = job(spec.clone(), json!({"succeeded": 3}));
        assert!(errors(job(spec, json!({"succeeded": 2})), old).is_empty());
        let old = job(non_indexed(), json!({"succeeded": 3, "failed": 2}));
        assert_eq!(
            errors(job(non_indexed(), json!({"succeeded": 2, "failed": 1})), old),
            [
                "status.failed: Invalid value: 1: cannot decrease the failed counter",
                "status.succeeded: Invalid value: 2: cannot decrease the succeeded counter",
            ]
        );
    }
}
