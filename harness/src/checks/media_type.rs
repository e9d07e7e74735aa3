//! Go's `mime.ParseMediaType`, which the apiserver's REST client applies to a webhook's Content-Type
//! header: an error there fails the call. Only whether it errors, and with which text, matters here.

fn is_tspecial(c: char) -> bool {
    matches!(c, '(' | ')' | '<' | '>' | '@' | ',' | ';' | ':' | '\\' | '"' | '/' | '[' | ']' | '?' | '=')
}

fn is_token_char(c: char) -> bool {
    (c as u32) > 0x20 && (c as u32) < 0x7f && !is_tspecial(c)
}

fn consume_token(v: &str) -> (&str, &str) {
    let end = v.find(|c: char| !is_token_char(c)).unwrap_or(v.len());
    (&v[..end], &v[end..])
}

fn consume_value(v: &str) -> Option<(String, &str)> {
    if !v.starts_with('"') {
        let (token, rest) = consume_token(v);
        return if token.is_empty() { None } else { Some((token.to_string(), rest)) };
    }
    let mut out = String::new();
    let mut chars = v[1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &v[1 + i + 1..])),
            '\\' => {
                let (_, next) = chars.next()?;
                out.push(next);
            }
            '\r' | '\n' => return None,
            c => out.push(c),
        }
    }
    None
}

fn consume_param(v: &str) -> Option<(String, &str)> {
    let rest = v.trim_start();
    let rest = rest.strip_prefix(';')?.trim_start();
    let (param, rest) = consume_token(rest);
    if param.is_empty() {
        return None;
    }
    let rest = rest.trim_start().strip_prefix('=')?.trim_start();
    let (_, rest) = consume_value(rest)?;
    Some((param.to_ascii_lowercase(), rest))
}

/// Why a Content-Type does not parse: Go's `mime.ParseMediaType` errors, in its words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum MediaTypeError {
    /// Nothing before the slash.
    #[error("mime: no media type")]
    NoMediaType,
    /// A type without a slash and a subtype.
    #[error("mime: expected slash after first token")]
    NoSlash,
    /// Nothing after the slash.
    #[error("mime: expected token after slash")]
    NoSubtype,
    /// More after the subtype.
    #[error("mime: unexpected content after media subtype")]
    AfterSubtype,
    /// A parameter twice.
    #[error("mime: duplicate parameter name")]
    DuplicateParameter,
    /// A parameter that does not parse.
    #[error("mime: invalid media parameter")]
    InvalidParameter,
}

fn check_media_type(media_type: &str) -> Result<(), MediaTypeError> {
    let (typ, rest) = consume_token(media_type);
    if typ.is_empty() {
        return Err(MediaTypeError::NoMediaType);
    }
    if rest.is_empty() {
        return Ok(());
    }
    let Some(rest) = rest.strip_prefix('/') else {
        return Err(MediaTypeError::NoSlash);
    };
    let (subtype, rest) = consume_token(rest);
    if subtype.is_empty() {
        return Err(MediaTypeError::NoSubtype);
    }
    if !rest.is_empty() {
        return Err(MediaTypeError::AfterSubtype);
    }
    Ok(())
}

/// Parse like Go's `mime.ParseMediaType`; returns the lower-cased media type.
pub(crate) fn parse_media_type(value: &str) -> Result<String, MediaTypeError> {
    let base = value.split(';').next().unwrap_or_default();
    let media_type = base.trim().to_ascii_lowercase();
    check_media_type(&media_type)?;
    let mut v = &value[base.len()..];
    let mut seen = std::collections::HashSet::new();
    loop {
        v = v.trim_start();
        if v.is_empty() {
            break;
        }
        match consume_param(v) {
            Some((key, rest)) => {
                if !seen.insert(key) {
                    return Err(MediaTypeError::DuplicateParameter);
                }
                v = rest;
            }
            None if v.trim() == ";" => break,
            None => return Err(MediaTypeError::InvalidParameter),
        }
    }
    Ok(media_type)
}

#[cfg(test)]
mod tests {
    use super::{is_tspecial, parse_media_type};

    /// Go's `isTSpecial` (`mime/grammar.go`): `strings.ContainsRune(` ()<>@,;:\"/[]?= `, r)`.
    #[test]
    fn the_tspecials_are_gos() {
        for c in (0u8..=0x7f).map(char::from).chain(['é', '✓']) {
            assert_eq!(is_tspecial(c), r#"()<>@,;:\"/[]?="#.contains(c), "{c:?}");
        }
    }

    #[test]
    fn accepts_what_go_accepts() {
        for ok in [
            "application/json",
            "application/json; charset=utf-8",
            "Application/JSON;",
            "text/plain",
            "application/json; charset=\"utf-8\"",
            "json",
        ] {
            assert!(parse_media_type(ok).is_ok(), "{ok}");
        }
        assert_eq!(parse_media_type(" Application/JSON ; charset=utf-8").unwrap(), "application/json");
    }

    #[test]
    fn rejects_what_go_rejects() {
        for (bad, why) in [
            ("application/", "mime: expected token after slash"),
            ("", "mime: no media type"),
            ("application json", "mime: expected slash after first token"),
            ("application/json; charset", "mime: invalid media parameter"),
            ("application/json; a=1; a=2", "mime: duplicate parameter name"),
            ("application/json/x", "mime: unexpected content after media subtype"),
        ] {
            assert_eq!(parse_media_type(bad).unwrap_err().to_string(), why, "{bad}");
        }
    }
}
