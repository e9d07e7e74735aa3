//! `k8s.io/apimachinery/pkg/util/validation/field` (errors.go): one field error and its text; the
//! aggregate of a list (`ErrorList.ToAggregate`, `util/errors` `aggregate.Error`); and the message of
//! `api/errors` `NewInvalid`, which the apiserver answers with a 422.

use std::fmt;

/// `field.ErrorType`, the ones metadata validation uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorType {
    /// `FieldValueRequired`.
    Required,
    /// `FieldValueInvalid`.
    Invalid,
    /// `FieldValueForbidden`.
    Forbidden,
    /// `FieldValueTooLong`.
    TooLong,
    /// `FieldValueDuplicate`.
    Duplicate,
    /// `FieldValueNotFound`.
    NotFound,
    /// `FieldValueNotSupported`.
    NotSupported,
    /// `FieldValueTypeInvalid` (printed as `Invalid value`).
    TypeInvalid,
    /// `FieldValueTooMany`.
    TooMany,
    /// `InternalError` (no value printed).
    Internal,
}

impl ErrorType {
    /// `ErrorType.String()`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorType::Required => "Required value",
            ErrorType::Invalid => "Invalid value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::NotFound => "Not found",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::TypeInvalid => "Invalid value",
            ErrorType::TooMany => "Too many",
            ErrorType::Internal => "Internal error",
        }
    }
}

/// A bad value as `ErrorBody` prints it.
#[derive(Clone, Debug, PartialEq)]
pub enum BadValue {
    /// A Go string: printed with `%q`.
    Str(String),
    /// A Go int64: printed with `%v`.
    Int(i64),
    /// Anything else: printed as `json.Marshal` writes it.
    Json(String),
    /// `field.OmitValueType{}`: no value printed.
    Omit,
}

/// `field.NewPath("").String()`, the path Go gives an error about a whole object: a root without a
/// name prints as an empty subscript.
pub const WHOLE_OBJECT: &str = "[]";

/// `field.Error`.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    /// The type.
    pub kind: ErrorType,
    /// The field path, e.g. `metadata.labels`.
    pub field: String,
    /// The bad value (not printed for Required, Forbidden, TooLong and Internal).
    pub bad_value: BadValue,
    /// The detail.
    pub detail: String,
}

impl FieldError {
    /// `field.Invalid`.
    pub fn invalid(field: &str, bad_value: BadValue, detail: impl Into<String>) -> Self {
        FieldError { kind: ErrorType::Invalid, field: field.into(), bad_value, detail: detail.into() }
    }
    /// `field.Required`.
    pub fn required(field: &str, detail: impl Into<String>) -> Self {
        FieldError {
            kind: ErrorType::Required,
            field: field.into(),
            bad_value: BadValue::Str(String::new()),
            detail: detail.into(),
        }
    }
    /// `field.Forbidden`.
    pub fn forbidden(field: &str, detail: impl Into<String>) -> Self {
        FieldError {
            kind: ErrorType::Forbidden,
            field: field.into(),
            bad_value: BadValue::Str(String::new()),
            detail: detail.into(),
        }
    }
    /// `field.Duplicate`.
    pub fn duplicate(field: &str, bad_value: BadValue) -> Self {
        FieldError { kind: ErrorType::Duplicate, field: field.into(), bad_value, detail: String::new() }
    }
    /// `field.NotFound`.
    pub fn not_found(field: &str, bad_value: BadValue) -> Self {
        FieldError { kind: ErrorType::NotFound, field: field.into(), bad_value, detail: String::new() }
    }
    /// `field.NotSupported`: the detail lists the valid values, each quoted (`strconv.Quote`).
    pub fn not_supported(field: &str, bad_value: BadValue, valid: &[&str]) -> Self {
        let detail = if valid.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = valid.iter().map(|v| go_quote(v)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        FieldError { kind: ErrorType::NotSupported, field: field.into(), bad_value, detail }
    }
    /// `field.TypeInvalid`.
    pub fn type_invalid(field: &str, bad_value: BadValue, detail: impl Into<String>) -> Self {
        FieldError { kind: ErrorType::TypeInvalid, field: field.into(), bad_value, detail: detail.into() }
    }
    /// `field.TooMany`: `must have at most N items` (`item` for one), the actual count as the value.
    pub fn too_many(field: &str, actual: i64, max: i64) -> Self {
        let unit = if max == 1 { "item" } else { "items" };
        FieldError {
            kind: ErrorType::TooMany,
            field: field.into(),
            bad_value: BadValue::Int(actual),
            detail: format!("must have at most {max} {unit}"),
        }
    }
    /// `field.InternalError`: the error's text as the detail.
    pub fn internal(field: &str, detail: impl Into<String>) -> Self {
        FieldError { kind: ErrorType::Internal, field: field.into(), bad_value: BadValue::Omit, detail: detail.into() }
    }
    /// `field.TooLong` (the value is never printed; the detail says the limit in bytes).
    pub fn too_long(field: &str, max_length: usize) -> Self {
        let unit = if max_length == 1 { "byte" } else { "bytes" };
        FieldError {
            kind: ErrorType::TooLong,
            field: field.into(),
            bad_value: BadValue::Str("<value omitted>".into()),
            detail: format!("may not be more than {max_length} {unit}"),
        }
    }

    /// `ErrorBody`: the type, the value for the types that print it, the detail.
    pub fn body(&self) -> String {
        let mut s = match (self.kind, &self.bad_value) {
            (ErrorType::Required | ErrorType::Forbidden | ErrorType::TooLong | ErrorType::Internal, _)
            | (_, BadValue::Omit) => self.kind.as_str().to_string(),
            (_, BadValue::Str(v)) => format!("{}: {}", self.kind.as_str(), go_quote(v)),
            (_, BadValue::Int(v)) => format!("{}: {v}", self.kind.as_str()),
            (_, BadValue::Json(v)) => format!("{}: {v}", self.kind.as_str()),
        };
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }
}

impl fmt::Display for FieldError {
    /// `Error()`: `<field>: <body>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

/// Go's `%q` of a string: Go escapes (`\"`, `\\`, `\n`, `\t`, …, `\x..` for bytes below 0x20 and
/// 0x7f, `\u....` for non-printable runes); printable Unicode stays as it is.
pub fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\x7f' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if !go_is_print(c) => {
                if (c as u32) <= 0xffff {
                    out.push_str(&format!("\\u{:04x}", c as u32))
                } else {
                    out.push_str(&format!("\\U{:08x}", c as u32))
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `unicode.IsPrint` (and `strconv.IsPrint`): letters, marks, numbers, punctuation, symbols
/// and the ASCII space; not the other spaces, control, format, private-use or unassigned runes.
pub fn go_is_print(c: char) -> bool {
    use unicode_general_category::{get_general_category, GeneralCategory as G};
    c == ' '
        || !matches!(
            get_general_category(c),
            G::Control
                | G::Format
                | G::Surrogate
                | G::PrivateUse
                | G::Unassigned
                | G::SpaceSeparator
                | G::LineSeparator
                | G::ParagraphSeparator
        )
}

/// A Go string as `json.Marshal` writes it (what `ErrorBody` prints for a named string type such as
/// `types.UID`, or a `*string`): quoted, with `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other
/// control characters as `\u00XX`, and the HTML-sensitive `<`, `>`, `&` and U+2028, U+2029 as
/// `\uXXXX`.
pub fn go_json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `ErrorList.ToAggregate().Error()`: the errors' texts without repeats; one alone as it is,
/// several as `[a, b]`; empty for none.
pub fn aggregate(errs: &[FieldError]) -> String {
    let mut seen: Vec<String> = Vec::new();
    for e in errs {
        let text = e.to_string();
        if !seen.contains(&text) {
            seen.push(text);
        }
    }
    match seen.len() {
        0 => String::new(),
        1 => seen.remove(0),
        _ => format!("[{}]", seen.join(", ")),
    }
}

/// `errors.NewInvalid(qualifiedKind, name, errs)`'s message: `<Kind>[.<group>] "<name>" is invalid: <aggregate>`.
pub fn invalid_message(group: &str, kind: &str, name: &str, errs: &[FieldError]) -> String {
    let qualified = if group.is_empty() { kind.to_string() } else { format!("{kind}.{group}") };
    let name = go_quote(name);
    if errs.is_empty() {
        format!("{qualified} {name} is invalid")
    } else {
        format!("{qualified} {name} is invalid: {}", aggregate(errs))
    }
}

/// Each error as the apiserver prints it (for the tests of the kinds' validation).
#[cfg(test)]
pub(crate) fn texts(errs: &[FieldError]) -> Vec<String> {
    errs.iter().map(ToString::to_string).collect()
}
