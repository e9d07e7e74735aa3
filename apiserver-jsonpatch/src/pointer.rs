//! How v4 reads a JSON Pointer: `strings.Split` on `/` (the text before the first `/` is ignored,
//! so a missing leading `/` is not an error by itself), a single left-to-right pass replacing `~1`
//! and `~0` (any other `~` stays as it is), and array indices parsed with Go's `strconv.Atoi`
//! (sign allowed, leading zeros allowed).

use crate::gojson::go_quote;

/// The library's `decodePatchKey`: `~1` becomes `/`, `~0` becomes `~`, in one pass.
pub(crate) fn decode_patch_key(k: &str) -> String {
    if !k.contains('~') {
        return k.to_string();
    }
    let mut out = String::with_capacity(k.len());
    let mut rest = k;
    while let Some(pos) = rest.find('~') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos..];
        if let Some(tail) = after.strip_prefix("~1") {
            out.push('/');
            rest = tail;
        } else if let Some(tail) = after.strip_prefix("~0") {
            out.push('~');
            rest = tail;
        } else {
            out.push('~');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    out
}

/// The pieces of `path` the library looks at: `None` when the path has no `/` at all (the
/// library's `findObject` then finds nothing); otherwise the raw (undecoded) reference tokens
/// after the first `/`, the last being the key.
pub(crate) fn split_tokens(path: &str) -> Option<Vec<&str>> {
    let split: Vec<&str> = path.split('/').collect();
    if split.len() < 2 {
        return None;
    }
    Some(split[1..].to_vec())
}

/// Go's `strconv.Atoi` on a 64-bit platform, with its error text.
pub(crate) fn atoi(s: &str) -> Result<i64, String> {
    let syntax = || format!("strconv.Atoi: parsing {}: invalid syntax", go_quote(s));
    let range = || format!("strconv.Atoi: parsing {}: value out of range", go_quote(s));
    let bytes = s.as_bytes();
    let (neg, digits) = match bytes.first() {
        None => return Err(syntax()),
        Some(b'+') => (false, &bytes[1..]),
        Some(b'-') => (true, &bytes[1..]),
        Some(_) => (false, bytes),
    };
    if digits.is_empty() {
        return Err(syntax());
    }
    let mut n: u64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return Err(syntax());
        }
        n = match n.checked_mul(10).and_then(|v| v.checked_add(u64::from(c - b'0'))) {
            Some(v) => v,
            None => return Err(range()),
        };
    }
    if neg {
        if n > 1u64 << 63 {
            return Err(range());
        }
        Ok((n as i64).wrapping_neg())
    } else {
        i64::try_from(n).map_err(|_| range())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys() {
        assert_eq!(decode_patch_key("a~1b~0c"), "a/b~c");
        assert_eq!(decode_patch_key("~01"), "~1");
        assert_eq!(decode_patch_key("x~2y~"), "x~2y~");
        assert_eq!(decode_patch_key("~~1"), "~/");
    }

    #[test]
    fn split() {
        assert_eq!(split_tokens(""), None);
        assert_eq!(split_tokens("abc"), None);
        assert_eq!(split_tokens("/"), Some(vec![""]));
        assert_eq!(split_tokens("x/a/b"), Some(vec!["a", "b"]));
    }

    #[test]
    fn atoi_like_go() {
        assert_eq!(atoi("01"), Ok(1));
        assert_eq!(atoi("+7"), Ok(7));
        assert_eq!(atoi("-0"), Ok(0));
        assert_eq!(atoi("-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(
            atoi("9223372036854775808").unwrap_err(),
            "strconv.Atoi: parsing \"9223372036854775808\": value out of range"
        );
        assert_eq!(atoi("-").unwrap_err(), "strconv.Atoi: parsing \"-\": invalid syntax");
        assert_eq!(atoi("").unwrap_err(), "strconv.Atoi: parsing \"\": invalid syntax");
        assert_eq!(atoi("1_0").unwrap_err(), "strconv.Atoi: parsing \"1_0\": invalid syntax");
        assert_eq!(atoi(" 1").unwrap_err(), "strconv.Atoi: parsing \" 1\": invalid syntax");
        assert_eq!(
            atoi("99999999999999999999x").unwrap_err(),
            "strconv.Atoi: parsing \"99999999999999999999x\": value out of range"
        );
    }
}
