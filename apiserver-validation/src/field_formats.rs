//! The field errors of the common string formats and ranges of `pkg/apis/core/validation`:
//! `ValidateDNS1123Label`, a DNS-subdomain name, `InclusiveRangeError`.

use crate::content;
use crate::field::{BadValue, FieldError};

/// A Go string as the bad value (`%q`).
pub(crate) fn str_value(v: &str) -> BadValue {
    BadValue::Str(v.into())
}

/// `ValidateDNS1123Label`.
pub(crate) fn dns_label(value: &str, path: &str) -> Vec<FieldError> {
    content::is_dns1123_label(value).into_iter().map(|m| FieldError::invalid(path, str_value(value), m)).collect()
}

/// `ValidateDNS1123Subdomain` (and the names checked with `NameIsDNSSubdomain`).
pub(crate) fn dns_subdomain(value: &str, path: &str) -> Vec<FieldError> {
    content::is_dns1123_subdomain(value).into_iter().map(|m| FieldError::invalid(path, str_value(value), m)).collect()
}

/// `InclusiveRangeError`.
pub(crate) fn inclusive_range(lo: i64, hi: i64) -> String {
    format!("must be between {lo} and {hi}, inclusive")
}
