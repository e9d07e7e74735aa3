//! Time zone names: Go's `time.LoadLocation` (`src/time/zoneinfo.go`, `zoneinfo_read.go`) as the
//! kube-apiserver runs it, and kubernetes/kubernetes `pkg/apis/batch/validation/validation.go`
//! `validateTimeZone` (release-1.36) for a CronJob's `spec.timeZone`.
//!
//! The zone database is `chrono-tz`'s list of IANA names (tzdata 2025b in chrono-tz 0.10.4:
//! [`chrono_tz::IANA_TZDB_VERSION`]), every zone and backward link, plus `Factory`, which Go's
//! `lib/time/zoneinfo.zip` (tz's `posix_only` target) and the distributions' tzdata hold and
//! chrono-tz leaves out. The apiserver reads its host's zoneinfo before the copy embedded by
//! `time/tzdata`, so a name its host's file system answers with another error than "no such file"
//! (a directory such as `America`, a data file such as `zone.tab`) gets that error there; here it
//! is an unknown time zone.

use std::str::FromStr;

use crate::field::{go_json_string, BadValue, FieldError};

/// Why `time.LoadLocation` refuses a name; `Display` is Go's `err.Error()`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LocationError {
    /// `errLocation`: a name with `..`, or starting with `/` or `\`.
    #[error("time: invalid location name")]
    InvalidName,
    /// No such zone in the database.
    #[error("unknown time zone {0}")]
    Unknown(String),
}

/// The zones Go's zoneinfo holds that chrono-tz does not (tz's `factory` file).
const OUTSIDE_CHRONO_TZ: &[&str] = &["Factory"];

/// Whether the zone database holds `name` (case-sensitive, as file names are).
pub fn is_zone_name(name: &str) -> bool {
    OUTSIDE_CHRONO_TZ.contains(&name) || chrono_tz::Tz::from_str(name).is_ok()
}

/// `time.LoadLocation(name)`: `""` and `UTC` are UTC, `Local` the local zone, the rest looked up.
pub fn load_location(name: &str) -> Result<(), LocationError> {
    if name.is_empty() || name == "UTC" || name == "Local" {
        return Ok(());
    }
    if name.contains("..") || name.starts_with(['/', '\\']) {
        return Err(LocationError::InvalidName);
    }
    if is_zone_name(name) {
        Ok(())
    } else {
        Err(LocationError::Unknown(name.to_string()))
    }
}

/// `validTimeZoneCharacters`: `^[A-Za-z\.\-_0-9+]{1,14}$`, one component of a name.
fn valid_component(part: &str) -> bool {
    (1..=14).contains(&part.len())
        && part.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_' | b'+'))
}

/// `validateTimeZone` of `spec.timeZone` at `path` (`None` when nil): an empty name; a component
/// that is `.`, `..`, starts with `-` or breaks `validTimeZoneCharacters` (`unknown time zone`,
/// before any lookup); `Local` in any case; then `time.LoadLocation`'s error. The value is a
/// `*string`, which `ErrorBody` marshals as JSON.
pub fn validate_time_zone(time_zone: Option<&str>, path: &str) -> Vec<FieldError> {
    let Some(tz) = time_zone else { return Vec::new() };
    let invalid = |detail: String| FieldError::invalid(path, BadValue::Json(go_json_string(tz)), detail);
    if tz.is_empty() {
        return vec![invalid("timeZone must be nil or non-empty string".into())];
    }
    let bad_component = |part: &str| part == "." || part == ".." || part.starts_with('-') || !valid_component(part);
    if tz.split('/').any(bad_component) {
        return vec![invalid(format!("unknown time zone {tz}"))];
    }
    let mut errs = Vec::new();
    if tz.eq_ignore_ascii_case("Local") {
        errs.push(invalid(
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones".into(),
        ));
    }
    if let Err(e) = load_location(tz) {
        errs.push(invalid(e.to_string()));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::texts;

    #[test]
    fn load_location_knows_zones_links_and_the_special_names() {
        for ok in [
            "",
            "UTC",
            "Local",
            "Europe/Paris",
            "America/Argentina/Buenos_Aires",
            "US/Pacific",
            "Etc/GMT+5",
            "GMT",
            "Factory",
        ] {
            assert_eq!(load_location(ok), Ok(()), "{ok}");
        }
        assert_eq!(load_location("europe/paris"), Err(LocationError::Unknown("europe/paris".into())));
        assert_eq!(load_location("Mars/Olympus").unwrap_err().to_string(), "unknown time zone Mars/Olympus");
        for bad in ["../etc/passwd", "Europe/..", "/etc/localtime", "\\x"] {
            assert_eq!(load_location(bad), Err(LocationError::InvalidName), "{bad}");
        }
        assert_eq!(LocationError::InvalidName.to_string(), "time: invalid location name");
    }

    #[test]
    fn the_zone_list_is_chrono_tz_2025b() {
        assert_eq!(chrono_tz::IANA_TZDB_VERSION, "2025b");
        // New in 2025b.
        assert!(is_zone_name("America/Coyhaique"));
    }

    #[test]
    fn validate_time_zone_as_go() {
        let p = "spec.timeZone";
        assert!(validate_time_zone(None, p).is_empty());
        assert!(validate_time_zone(Some("Asia/Tokyo"), p).is_empty());
        assert_eq!(
            texts(&validate_time_zone(Some(""), p)),
            [r#"spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string"#]
        );
        // A component check fails before any lookup, with the lookup's text.
        for bad in ["America/New York", "-x", "Europe/.", "ABCDEFGHIJKLMNO", "a//b", "/UTC"] {
            assert_eq!(
                texts(&validate_time_zone(Some(bad), p)),
                [format!("spec.timeZone: Invalid value: {}: unknown time zone {bad}", go_json_string(bad))],
                "{bad}"
            );
        }
        let local = "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones";
        assert_eq!(
            texts(&validate_time_zone(Some("Local"), p)),
            [format!(r#"spec.timeZone: Invalid value: "Local": {local}"#)]
        );
        assert_eq!(
            texts(&validate_time_zone(Some("local"), p)),
            [
                format!(r#"spec.timeZone: Invalid value: "local": {local}"#),
                r#"spec.timeZone: Invalid value: "local": unknown time zone local"#.to_string()
            ]
        );
        assert_eq!(
            texts(&validate_time_zone(Some("a..b"), p)),
            [r#"spec.timeZone: Invalid value: "a..b": time: invalid location name"#]
        );
        assert_eq!(
            texts(&validate_time_zone(Some("Mars/Olympus"), p)),
            [r#"spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus"#]
        );
    }
}
