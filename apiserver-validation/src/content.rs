//! The string formats of `k8s.io/apimachinery/pkg/util/validation` (validation.go) and
//! `pkg/api/validate/content` (dns.go, kube.go, errors.go, path.go): each returns the list of messages Go
//! returns, empty when the value is valid. Lengths are in bytes, as Go's `len`.

/// `DNS1123LabelMaxLength`.
pub const DNS1123_LABEL_MAX_LENGTH: usize = 63;
/// `DNS1123SubdomainMaxLength`.
pub const DNS1123_SUBDOMAIN_MAX_LENGTH: usize = 253;
/// `DNS1035LabelMaxLength`.
pub const DNS1035_LABEL_MAX_LENGTH: usize = 63;
/// `LabelValueMaxLength`, also the maximum of a qualified name's name part.
pub const LABEL_VALUE_MAX_LENGTH: usize = 63;

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_ERR: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_ERR: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_ERR: &str =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_ERR: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// `MaxLenError`.
pub fn max_len_error(length: usize) -> String {
    format!("must be no more than {length} characters")
}

/// `EmptyError`.
pub fn empty_error() -> &'static str {
    "must be non-empty"
}

/// `RegexError`: the message, then the examples each followed by `, ` and joined by ` or `
/// (hence Go's double space), then the regex.
pub fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{fmt}')");
    }
    let mut out = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push_str(&format!("'{e}', "));
    }
    out.push_str(&format!("regex used for validation is '{fmt}')"));
    out
}

/// `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$` (`first` decides the first character).
fn matches_label(value: &str, first: fn(u8) -> bool) -> bool {
    let b = value.as_bytes();
    let alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    match b {
        [] => false,
        [only] => first(*only),
        [head, middle @ .., last] => first(*head) && alnum(*last) && middle.iter().all(|&c| alnum(c) || c == b'-'),
    }
}

fn lower_alnum(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

fn matches_dns1123_label(value: &str) -> bool {
    matches_label(value, lower_alnum)
}

fn matches_dns1123_subdomain(value: &str) -> bool {
    value.split('.').all(matches_dns1123_label)
}

/// `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`.
fn matches_label_key_name(value: &str) -> bool {
    let b = value.as_bytes();
    let alnum = |c: u8| c.is_ascii_alphanumeric();
    match b {
        [] => false,
        [only] => alnum(*only),
        [head, middle @ .., last] => {
            alnum(*head) && alnum(*last) && middle.iter().all(|&c| alnum(c) || matches!(c, b'-' | b'_' | b'.'))
        }
    }
}

/// `IsDNS1123Label`: a lowercase RFC 1123 label (a valid subdomain with dots is told so).
pub fn is_dns1123_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_LABEL_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_LABEL_MAX_LENGTH));
    }
    if !matches_dns1123_label(value) {
        if matches_dns1123_subdomain(value) {
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, &["my-name", "123-abc"]));
        }
    }
    errs
}

/// `IsDNS1123Subdomain`: a lowercase RFC 1123 subdomain.
pub fn is_dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH));
    }
    if !matches_dns1123_subdomain(value) {
        errs.push(regex_error(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, &["example.com"]));
    }
    errs
}

/// `dns1123LabelFmtWithUnderscore`: `_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?`.
fn matches_dns1123_label_with_underscore(value: &str) -> bool {
    let rest = value.strip_prefix('_').unwrap_or(value);
    let b = rest.as_bytes();
    match b {
        [] => false,
        [only] => lower_alnum(*only),
        [head, middle @ .., last] => {
            lower_alnum(*head) && lower_alnum(*last) && middle.iter().all(|&c| lower_alnum(c) || c == b'-' || c == b'_')
        }
    }
}

/// `IsDNS1123SubdomainWithUnderscore`: a subdomain whose labels may hold `_` (and start with one).
pub fn is_dns1123_subdomain_with_underscore(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH));
    }
    if !value.split('.').all(matches_dns1123_label_with_underscore) {
        let msg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character";
        let fmt = r"_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*";
        errs.push(regex_error(msg, fmt, &["example.com"]));
    }
    errs
}

/// `IsDNS1035Label`: starts with a letter.
pub fn is_dns1035_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1035_LABEL_MAX_LENGTH {
        errs.push(max_len_error(DNS1035_LABEL_MAX_LENGTH));
    }
    if !matches_label(value, |c| c.is_ascii_lowercase()) {
        errs.push(regex_error(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, &["my-name", "abc-123"]));
    }
    errs
}

/// `IsQualifiedName` (= `content.IsLabelKey`): an optional DNS-subdomain prefix and `/`, then a
/// name of at most 63 characters.
pub fn is_qualified_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push(format!("prefix part {}", empty_error()));
            } else {
                errs.extend(is_dns1123_subdomain(prefix).into_iter().map(|m| format!("prefix part {m}")));
            }
            *name
        }
        _ => {
            errs.push(format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_ERR, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push(format!("name part {}", empty_error()));
    } else if name.len() > LABEL_VALUE_MAX_LENGTH {
        errs.push(format!("name part {}", max_len_error(LABEL_VALUE_MAX_LENGTH)));
    }
    if !matches_label_key_name(name) {
        errs.push(format!(
            "name part {}",
            regex_error(LABEL_KEY_ERR, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
        ));
    }
    errs
}

/// `IsValidLabelValue` (= `content.IsLabelValue`): empty, or a qualified name's name part.
pub fn is_valid_label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_VALUE_MAX_LENGTH {
        errs.push(max_len_error(LABEL_VALUE_MAX_LENGTH));
    }
    if !value.is_empty() && !matches_label_key_name(value) {
        errs.push(regex_error(LABEL_VALUE_ERR, LABEL_VALUE_FMT, &["MyValue", "my_value", "12345"]));
    }
    errs
}

/// `relaxedEnvVarNameFmtErrMsg` (`RelaxedEnvironmentVariableValidation`, on by default).
pub const RELAXED_ENV_NAME_ERR: &str =
    "a valid environment variable name must consist only of printable ASCII characters other than '='";

/// `IsRelaxedEnvVarName`.
pub fn env_var_name(name: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if name.is_empty() {
        errs.push(format!("environment variable name {}", empty_error()));
    }
    if name.chars().any(|c| !(' '..='~').contains(&c) || c == '=') {
        errs.push(RELAXED_ENV_NAME_ERR.into());
    }
    errs
}

/// `IsPathSegmentName` (content/path.go): not `.` or `..`, else neither `/` nor `%` within
/// (`IsPathSegmentPrefix`); an empty name passes, as in Go.
pub fn is_path_segment_name(name: &str) -> Vec<String> {
    if let Some(bad) = [".", ".."].into_iter().find(|b| *b == name) {
        return vec![format!("may not be '{bad}'")];
    }
    ["/", "%"].into_iter().filter(|c| name.contains(c)).map(|c| format!("may not contain '{c}'")).collect()
}
