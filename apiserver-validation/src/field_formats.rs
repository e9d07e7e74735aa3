//! The field errors of the common string formats and ranges of `pkg/apis/core/validation`:
//! `ValidateDNS1123Label`, a DNS-subdomain name, `InclusiveRangeError`, and the relative paths of
//! files in a volume (`validatePathNoBacksteps`, `validateLocalDescendingPath`,
//! `ValidateLocalNonReservedPath`).

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

/// [`dns_label`] at the path `path` makes, made only when the value is not a DNS label.
pub(crate) fn dns_label_at(value: &str, path: impl FnOnce() -> String) -> Vec<FieldError> {
    invalid_at(value, content::is_dns1123_label(value), path)
}

/// `value` invalid with each of `msgs` at the path `path` makes, made only when there is one.
fn invalid_at(value: &str, msgs: Vec<String>, path: impl FnOnce() -> String) -> Vec<FieldError> {
    if msgs.is_empty() {
        return Vec::new();
    }
    let path = path();
    msgs.into_iter().map(|m| FieldError::invalid(&path, str_value(value), m)).collect()
}

/// `ValidateDNS1123Subdomain` (and the names checked with `NameIsDNSSubdomain`).
pub(crate) fn dns_subdomain(value: &str, path: &str) -> Vec<FieldError> {
    content::is_dns1123_subdomain(value).into_iter().map(|m| FieldError::invalid(path, str_value(value), m)).collect()
}

/// [`dns_subdomain`] at the path `path` makes, made only when the value is not a DNS subdomain.
pub(crate) fn dns_subdomain_at(value: &str, path: impl FnOnce() -> String) -> Vec<FieldError> {
    invalid_at(value, content::is_dns1123_subdomain(value), path)
}

/// `InclusiveRangeError`.
pub(crate) fn inclusive_range(lo: i64, hi: i64) -> String {
    format!("must be between {lo} and {hi}, inclusive")
}

/// `validatePathNoBacksteps`: no `..` element (one error however many; `/` is the apiserver's
/// separator, `filepath.ToSlash` changes nothing on Linux).
pub(crate) fn path_no_backsteps(target: &str, path: &str) -> Vec<FieldError> {
    if target.split('/').any(|p| p == "..") {
        vec![FieldError::invalid(path, str_value(target), "must not contain '..'")]
    } else {
        Vec::new()
    }
}

/// `validateLocalDescendingPath`: relative, without `..`.
pub(crate) fn local_descending_path(target: &str, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if target.starts_with('/') {
        errs.push(FieldError::invalid(path, str_value(target), "must be a relative path"));
    }
    errs.extend(path_no_backsteps(target, path));
    errs
}

/// `ValidateLocalNonReservedPath`: [`local_descending_path`], and not starting with `..`.
pub(crate) fn local_non_reserved_path(target: &str, path: &str) -> Vec<FieldError> {
    let mut errs = local_descending_path(target, path);
    if target.starts_with("..") && !target.starts_with("../") {
        errs.push(FieldError::invalid(path, str_value(target), "must not start with '..'"));
    }
    errs
}
