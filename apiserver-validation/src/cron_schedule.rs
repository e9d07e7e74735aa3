//! github.com/robfig/cron/v3 v3.0.1 `parser.go` as kube-apiserver calls it: `ParseStandard`, the
//! parser of `Minute | Hour | Dom | Month | Dow | Descriptor` (`Parser.Parse`, `normalizeFields`,
//! `getField`, `getRange`, `parseIntOrName`, `mustParseInt`, `parseDescriptor`) with the bounds and
//! names of `spec.go`. Only whether a schedule parses is kept, with the parser's error text.
//!
//! A `TZ=` or `CRON_TZ=` prefix with no space after it makes `Parse` slice `spec[eq+1:-1]`, a Go
//! runtime panic, which the apiserver's panic recovery answers with a 500 rather than a field
//! error ([`ScheduleError::PrefixWithoutSpace`]).

use crate::go_duration::{parse_duration, DurationError};
use crate::go_strconv::{atoi, AtoiError};
use crate::time_zone::{load_location, LocationError};

/// Why `ParseStandard` refuses a schedule; `Display` is the parser's `err.Error()`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// An empty schedule.
    #[error("empty spec string")]
    Empty,
    /// A `TZ=`/`CRON_TZ=` prefix with no space: Go panics (the text is the runtime's).
    #[error("runtime error: slice bounds out of range [:-1]")]
    PrefixWithoutSpace,
    /// The prefix's zone refused by `time.LoadLocation`.
    #[error("provided bad location {name}: {error}")]
    BadLocation {
        /// The zone as written between `=` and the first space.
        name: String,
        /// `time.LoadLocation`'s error.
        error: LocationError,
    },
    /// `@every ` followed by what `time.ParseDuration` refuses.
    #[error("failed to parse duration {descriptor}: {error}")]
    Duration {
        /// The whole descriptor.
        descriptor: String,
        /// `time.ParseDuration`'s error.
        error: DurationError,
    },
    /// Any other word starting with `@`.
    #[error("unrecognized descriptor: {0}")]
    UnrecognizedDescriptor(String),
    /// Not five fields (`%s` of a `[]string`: `[a b c]`).
    #[error("expected exactly 5 fields, found {}: [{}]", .0.len(), .0.join(" "))]
    FieldCount(Vec<String>),
    /// A number that `strconv.Atoi` refuses (and is no name of the field).
    #[error("failed to parse int from {expr}: {error}")]
    Int {
        /// The number as written.
        expr: String,
        /// `strconv.Atoi`'s error.
        error: AtoiError,
    },
    /// A negative number (only a step can be one: a range splits on `-`).
    #[error("negative number ({number}) not allowed: {expr}")]
    Negative {
        /// The value.
        number: i64,
        /// The number as written.
        expr: String,
    },
    /// More than one `-` after a number.
    #[error("too many hyphens: {0}")]
    TooManyHyphens(String),
    /// More than one `/`.
    #[error("too many slashes: {0}")]
    TooManySlashes(String),
    /// A range starting below the field's minimum.
    #[error("beginning of range ({start}) below minimum ({min}): {expr}")]
    BelowMinimum {
        /// The start.
        start: u64,
        /// The field's minimum.
        min: u64,
        /// The range as written.
        expr: String,
    },
    /// A range ending above the field's maximum.
    #[error("end of range ({end}) above maximum ({max}): {expr}")]
    AboveMaximum {
        /// The end.
        end: u64,
        /// The field's maximum.
        max: u64,
        /// The range as written.
        expr: String,
    },
    /// A range whose start is after its end.
    #[error("beginning of range ({start}) beyond end of range ({end}): {expr}")]
    Reversed {
        /// The start.
        start: u64,
        /// The end.
        end: u64,
        /// The range as written.
        expr: String,
    },
    /// A step of zero.
    #[error("step of range should be a positive number: {0}")]
    ZeroStep(String),
}

/// `bounds`: a field's values and the names it accepts (lower case).
struct Bounds {
    min: u64,
    max: u64,
    names: &'static [(&'static str, u64)],
}

const MONTH_NAMES: &[(&str, u64)] = &[
    ("jan", 1),
    ("feb", 2),
    ("mar", 3),
    ("apr", 4),
    ("may", 5),
    ("jun", 6),
    ("jul", 7),
    ("aug", 8),
    ("sep", 9),
    ("oct", 10),
    ("nov", 11),
    ("dec", 12),
];
const DAY_NAMES: &[(&str, u64)] = &[("sun", 0), ("mon", 1), ("tue", 2), ("wed", 3), ("thu", 4), ("fri", 5), ("sat", 6)];

/// The five fields of a standard schedule, in order: minute, hour, day of month, month, day of
/// week (the seconds field the parser adds is `0`, always valid).
const FIELDS: [Bounds; 5] = [
    Bounds { min: 0, max: 59, names: &[] },
    Bounds { min: 0, max: 23, names: &[] },
    Bounds { min: 1, max: 31, names: &[] },
    Bounds { min: 1, max: 12, names: MONTH_NAMES },
    Bounds { min: 0, max: 6, names: DAY_NAMES },
];

/// `parseDescriptor`'s fixed schedules.
const DESCRIPTORS: &[&str] = &["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"];

/// Whether `ParseStandard(schedule)` panics: a zone prefix with no space after it.
pub fn panics(schedule: &str) -> bool {
    (schedule.starts_with("TZ=") || schedule.starts_with("CRON_TZ=")) && !schedule.contains(' ')
}

/// `cron.ParseStandard(spec)`: `Ok` when it returns a schedule.
pub fn parse_standard(spec: &str) -> Result<(), ScheduleError> {
    if spec.is_empty() {
        return Err(ScheduleError::Empty);
    }
    let mut spec = spec;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let Some(space) = spec.find(' ') else { return Err(ScheduleError::PrefixWithoutSpace) };
        let eq = spec.find('=').unwrap_or_default();
        let name = &spec[eq + 1..space];
        load_location(name).map_err(|error| ScheduleError::BadLocation { name: name.to_string(), error })?;
        // strings.TrimSpace: Unicode white space, as `str::trim`.
        spec = spec[space..].trim();
    }
    if spec.starts_with('@') {
        return parse_descriptor(spec);
    }
    // strings.Fields: split on Unicode white space, as `split_whitespace`.
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != FIELDS.len() {
        return Err(ScheduleError::FieldCount(fields.iter().map(|f| f.to_string()).collect()));
    }
    for (field, bounds) in fields.iter().zip(&FIELDS) {
        // getField: the comma-separated ranges, empty ones dropped (strings.FieldsFunc).
        for expr in field.split(',').filter(|e| !e.is_empty()) {
            parse_range(expr, bounds)?;
        }
    }
    Ok(())
}

/// `parseDescriptor`: the fixed names, or `@every ` and a duration.
fn parse_descriptor(descriptor: &str) -> Result<(), ScheduleError> {
    if DESCRIPTORS.contains(&descriptor) {
        return Ok(());
    }
    if let Some(duration) = descriptor.strip_prefix("@every ") {
        return parse_duration(duration)
            .map_err(|error| ScheduleError::Duration { descriptor: descriptor.to_string(), error });
    }
    Err(ScheduleError::UnrecognizedDescriptor(descriptor.to_string()))
}

/// `mustParseInt`: `strconv.Atoi`, not negative.
fn must_parse_int(expr: &str) -> Result<u64, ScheduleError> {
    let number = atoi(expr).map_err(|error| ScheduleError::Int { expr: expr.to_string(), error })?;
    u64::try_from(number).map_err(|_| ScheduleError::Negative { number, expr: expr.to_string() })
}

/// `parseIntOrName`: a name of the field (any case), else a number.
fn parse_int_or_name(expr: &str, names: &[(&str, u64)]) -> Result<u64, ScheduleError> {
    let lower = expr.to_lowercase();
    match names.iter().find(|(name, _)| *name == lower) {
        Some((_, value)) => Ok(*value),
        None => must_parse_int(expr),
    }
}

/// `getRange`: `*` or `?`, a number or name, or `a-b`, each optionally `/step`; checked in Go's
/// order (the start parsed before the hyphens are counted, the slashes counted after).
fn parse_range(expr: &str, bounds: &Bounds) -> Result<(), ScheduleError> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_and_high: Vec<&str> = range_and_step[0].split('-').collect();
    let single = low_and_high.len() == 1;
    let (start, mut end) = if low_and_high[0] == "*" || low_and_high[0] == "?" {
        // The rest of `*-…` is not looked at.
        (bounds.min, bounds.max)
    } else {
        let start = parse_int_or_name(low_and_high[0], bounds.names)?;
        let end = match low_and_high.len() {
            1 => start,
            2 => parse_int_or_name(low_and_high[1], bounds.names)?,
            _ => return Err(ScheduleError::TooManyHyphens(expr.to_string())),
        };
        (start, end)
    };
    let step = match range_and_step.len() {
        1 => 1,
        2 => {
            let step = must_parse_int(range_and_step[1])?;
            // "N/step" means "N-max/step".
            if single {
                end = bounds.max;
            }
            step
        }
        _ => return Err(ScheduleError::TooManySlashes(expr.to_string())),
    };
    let expr = expr.to_string();
    if start < bounds.min {
        return Err(ScheduleError::BelowMinimum { start, min: bounds.min, expr });
    }
    if end > bounds.max {
        return Err(ScheduleError::AboveMaximum { end, max: bounds.max, expr });
    }
    if start > end {
        return Err(ScheduleError::Reversed { start, end, expr });
    }
    if step == 0 {
        return Err(ScheduleError::ZeroStep(expr));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> String {
        parse_standard(s).err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn schedules_go_accepts() {
        for ok in [
            "*/5 * * * *",
            "0 0 1 1 *",
            "? ? ? ? ?",
            "0-59/15 0-23 1-31 1-12 0-6",
            "5/15 * * * *",
            "1,2,,3 * * * *",
            "0 9 * jan-MAR mon-Fri",
            "0 9 * DEC SUN",
            "*/60 * * * *",
            "*-5 * * * *",
            "+5 * * * */+2",
            "0\t0\u{a0}*  * *",
            "@yearly",
            "@annually",
            "@monthly",
            "@weekly",
            "@daily",
            "@midnight",
            "@hourly",
            "@every 1h30m",
            "@every -1s",
            "@every 0",
            "TZ=UTC 0 0 * * *",
            "CRON_TZ=Europe/Paris @daily",
            "TZ= * * * * *",
            "TZ=Local  */5 * * * *",
        ] {
            assert_eq!(parse_standard(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn field_count_and_descriptors() {
        assert_eq!(text("* * * *"), "expected exactly 5 fields, found 4: [* * * *]");
        assert_eq!(text("0 * * * * *"), "expected exactly 5 fields, found 6: [0 * * * * *]");
        assert_eq!(text("   "), "expected exactly 5 fields, found 0: []");
        assert_eq!(text(" @daily"), "expected exactly 5 fields, found 1: [@daily]");
        assert_eq!(text("@reboot"), "unrecognized descriptor: @reboot");
        assert_eq!(text("@Daily"), "unrecognized descriptor: @Daily");
        assert_eq!(text("@every"), "unrecognized descriptor: @every");
        assert_eq!(text("@daily "), "unrecognized descriptor: @daily ");
        assert_eq!(text("@every 1d"), r#"failed to parse duration @every 1d: time: unknown unit "d" in duration "1d""#);
        assert_eq!(text("@every  1h"), r#"failed to parse duration @every  1h: time: invalid duration " 1h""#);
        assert_eq!(text("@every 10"), r#"failed to parse duration @every 10: time: missing unit in duration "10""#);
    }

    #[test]
    fn ranges_steps_and_numbers() {
        assert_eq!(text("60 * * * *"), "end of range (60) above maximum (59): 60");
        assert_eq!(text("* 24 * * *"), "end of range (24) above maximum (23): 24");
        assert_eq!(text("* * 0 * *"), "beginning of range (0) below minimum (1): 0");
        assert_eq!(text("* * * 13 *"), "end of range (13) above maximum (12): 13");
        assert_eq!(text("* * * * 7"), "end of range (7) above maximum (6): 7");
        assert_eq!(text("30-10 * * * *"), "beginning of range (30) beyond end of range (10): 30-10");
        assert_eq!(text("*/0 * * * *"), "step of range should be a positive number: */0");
        assert_eq!(text("1-2-3 * * * *"), "too many hyphens: 1-2-3");
        assert_eq!(text("1/2/3 * * * *"), "too many slashes: 1/2/3");
        assert_eq!(text("*/-1 * * * *"), "negative number (-1) not allowed: -1");
        assert_eq!(text("-1 * * * *"), r#"failed to parse int from : strconv.Atoi: parsing "": invalid syntax"#);
        assert_eq!(text("a * * * *"), r#"failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax"#);
        assert_eq!(
            text("* * * * MONDAY"),
            r#"failed to parse int from MONDAY: strconv.Atoi: parsing "MONDAY": invalid syntax"#
        );
        // A month name is no day of the week.
        assert_eq!(text("* * * * jan"), r#"failed to parse int from jan: strconv.Atoi: parsing "jan": invalid syntax"#);
        assert_eq!(
            text("99999999999999999999 * * * *"),
            r#"failed to parse int from 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out of range"#
        );
        // The first error wins, fields in order.
        assert_eq!(text("0 99 * * 9"), "end of range (99) above maximum (23): 99");
        // The start is parsed before the hyphens are counted.
        assert_eq!(text("x-1-2 * * * *"), r#"failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax"#);
    }

    #[test]
    fn zone_prefixes() {
        assert_eq!(
            text("TZ=Mars/Olympus * * * * *"),
            "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"
        );
        assert_eq!(text("CRON_TZ=../x @daily"), "provided bad location ../x: time: invalid location name");
        // The rest after the prefix is trimmed, then parsed.
        assert_eq!(text("TZ=UTC "), "expected exactly 5 fields, found 0: []");
        assert_eq!(text("TZ=UTC 61 * * * *"), "end of range (61) above maximum (59): 61");
        // Only a leading prefix is one.
        assert_eq!(text(" TZ=UTC * * * * *"), "expected exactly 5 fields, found 6: [TZ=UTC * * * * *]");
        assert!(panics("TZ=UTC") && panics("CRON_TZ=") && !panics("TZ=UTC * * * * *") && !panics("@daily"));
        assert_eq!(parse_standard("TZ=Europe/Paris"), Err(ScheduleError::PrefixWithoutSpace));
    }
}
