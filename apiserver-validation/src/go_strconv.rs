//! Go's `strconv.Atoi` on a 64-bit platform (`src/strconv/atoi.go`: `Atoi`'s fast path for fewer
//! than 19 bytes, else `ParseInt(s, 10, 0)` over `ParseUint`), with its `NumError` text.

use crate::field::go_quote;

/// Why `strconv.Atoi` refuses a string; `Display` is `NumError.Error()` with `Func` `Atoi`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AtoiError {
    /// `ErrSyntax`: empty, a lone sign, or a byte that is not a decimal digit.
    #[error("strconv.Atoi: parsing {}: invalid syntax", go_quote(.0))]
    Syntax(String),
    /// `ErrRange`: outside int64.
    #[error("strconv.Atoi: parsing {}: value out of range", go_quote(.0))]
    Range(String),
}

/// `strconv.Atoi(s)`.
pub fn atoi(s: &str) -> Result<i64, AtoiError> {
    let syntax = || AtoiError::Syntax(s.to_string());
    let neg = s.starts_with('-');
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if (1..19).contains(&s.len()) {
        if digits.is_empty() {
            return Err(syntax());
        }
        let mut n: i64 = 0;
        for c in digits.bytes() {
            if !c.is_ascii_digit() {
                return Err(syntax());
            }
            n = n * 10 + i64::from(c - b'0');
        }
        return Ok(if neg { -n } else { n });
    }
    if s.is_empty() {
        return Err(syntax());
    }
    // ParseUint(digits, 10, 64): a range error as soon as the value passes u64, a syntax error at the
    // first byte that is not a digit, whichever comes first.
    let mut n: u64 = 0;
    for c in digits.bytes() {
        if !c.is_ascii_digit() {
            return Err(syntax());
        }
        match n.checked_mul(10).and_then(|m| m.checked_add(u64::from(c - b'0'))) {
            Some(m) => n = m,
            None => return Err(AtoiError::Range(s.to_string())),
        }
    }
    let cutoff: u64 = 1 << 63;
    match (neg, n) {
        (false, n) if n >= cutoff => Err(AtoiError::Range(s.to_string())),
        (true, n) if n > cutoff => Err(AtoiError::Range(s.to_string())),
        (true, n) => Ok((n as i64).wrapping_neg()),
        (false, n) => Ok(n as i64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_signs() {
        assert_eq!(atoi("0"), Ok(0));
        assert_eq!(atoi("+5"), Ok(5));
        assert_eq!(atoi("-12"), Ok(-12));
        assert_eq!(atoi("007"), Ok(7));
        assert_eq!(atoi("9223372036854775807"), Ok(i64::MAX));
        assert_eq!(atoi("-9223372036854775808"), Ok(i64::MIN));
    }

    #[test]
    fn refusals_carry_go_texts() {
        let text = |s: &str| atoi(s).unwrap_err().to_string();
        assert_eq!(text(""), r#"strconv.Atoi: parsing "": invalid syntax"#);
        assert_eq!(text("+"), r#"strconv.Atoi: parsing "+": invalid syntax"#);
        assert_eq!(text("1_0"), r#"strconv.Atoi: parsing "1_0": invalid syntax"#);
        assert_eq!(text("MON"), r#"strconv.Atoi: parsing "MON": invalid syntax"#);
        assert_eq!(text("9223372036854775808"), r#"strconv.Atoi: parsing "9223372036854775808": value out of range"#);
        // Past u64 the range is found before the stray byte; before it, the byte.
        assert_eq!(
            text("99999999999999999999x"),
            r#"strconv.Atoi: parsing "99999999999999999999x": value out of range"#
        );
        assert_eq!(text("1234567890123456789x"), r#"strconv.Atoi: parsing "1234567890123456789x": invalid syntax"#);
    }
}
