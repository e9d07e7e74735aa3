//! Go's `time.ParseDuration` (`src/time/format.go`: `ParseDuration`, `leadingInt`,
//! `leadingFraction`, `unitMap`) as far as a cron `@every` descriptor needs it: whether a string is
//! a duration, and the error text when it is not (`quote` of the same file). The duration's value
//! is not kept: `cron.Every` accepts any, rounding it up to a second.

/// `1<<63`, the bound Go's unsigned accumulators are checked against.
const OVERFLOW: u64 = 1 << 63;

/// Why `time.ParseDuration` refuses a string; `Display` is Go's `err.Error()`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// No number where one must start, a number too large, or nothing after the sign.
    #[error("time: invalid duration {}", time_quote(.0))]
    Invalid(String),
    /// A number not followed by a unit.
    #[error("time: missing unit in duration {}", time_quote(.0))]
    MissingUnit(String),
    /// A unit outside `ns`, `us`, `µs`, `μs`, `ms`, `s`, `m`, `h`.
    #[error("time: unknown unit {} in duration {}", time_quote(unit), time_quote(duration))]
    UnknownUnit {
        /// The unit as written.
        unit: String,
        /// The whole duration.
        duration: String,
    },
}

/// Package time's `quote`: in double quotes, `"` and `\` escaped, every byte of a non-ASCII or
/// control character as `\xNN` (unlike `strconv.Quote`).
pub fn time_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if (c as u32) >= 0x80 || (c as u32) < 0x20 {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        } else {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out.push('"');
    out
}

/// Nanoseconds in each unit of `unitMap`.
fn unit_nanos(unit: &str) -> Option<u64> {
    Some(match unit {
        "ns" => 1,
        "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => return None,
    })
}

/// `leadingInt`: the leading digits' value and the rest; `None` past `1<<63`.
fn leading_int(s: &str) -> Option<(u64, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let mut x: u64 = 0;
    for c in s[..digits].bytes() {
        if x > OVERFLOW / 10 {
            return None;
        }
        x = x * 10 + u64::from(c - b'0');
        if x > OVERFLOW {
            return None;
        }
    }
    Some((x, &s[digits..]))
}

/// `leadingFraction`: the leading digits' value, its scale (10 per digit kept) and the rest; the
/// digits past overflow are consumed and dropped.
fn leading_fraction(s: &str) -> (u64, f64, &str) {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let (mut x, mut scale, mut overflow) = (0u64, 1f64, false);
    for c in s[..digits].bytes() {
        if overflow {
            continue;
        }
        if x > (OVERFLOW - 1) / 10 {
            overflow = true;
            continue;
        }
        let y = x * 10 + u64::from(c - b'0');
        if y > OVERFLOW {
            overflow = true;
            continue;
        }
        x = y;
        scale *= 10.0;
    }
    (x, scale, &s[digits..])
}

/// `time.ParseDuration(orig)`: `Ok` when Go returns a duration.
pub fn parse_duration(orig: &str) -> Result<(), DurationError> {
    let invalid = || DurationError::Invalid(orig.to_string());
    let neg = orig.starts_with('-');
    let mut s = orig.strip_prefix(['-', '+']).unwrap_or(orig);
    if s == "0" {
        return Ok(());
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: u64 = 0;
    while let Some(&first) = s.as_bytes().first() {
        if !(first == b'.' || first.is_ascii_digit()) {
            return Err(invalid());
        }
        let before = s.len();
        let (whole, rest) = leading_int(s).ok_or_else(invalid)?;
        s = rest;
        let pre = before != s.len();
        let (mut fraction, mut scale, mut post) = (0u64, 1f64, false);
        if let Some(rest) = s.strip_prefix('.') {
            let (f, sc, after) = leading_fraction(rest);
            post = rest.len() != after.len();
            (fraction, scale, s) = (f, sc, after);
        }
        if !pre && !post {
            return Err(invalid());
        }
        let unit_len = s.bytes().take_while(|c| *c != b'.' && !c.is_ascii_digit()).count();
        if unit_len == 0 {
            return Err(DurationError::MissingUnit(orig.to_string()));
        }
        let (unit, rest) = s.split_at(unit_len);
        s = rest;
        let Some(nanos) = unit_nanos(unit) else {
            return Err(DurationError::UnknownUnit { unit: unit.to_string(), duration: orig.to_string() });
        };
        if whole > OVERFLOW / nanos {
            return Err(invalid());
        }
        let mut v = whole * nanos;
        if fraction > 0 {
            v += (fraction as f64 * (nanos as f64 / scale)) as u64;
            if v > OVERFLOW {
                return Err(invalid());
            }
        }
        // Go's uint64 addition wraps.
        total = total.wrapping_add(v);
        if total > OVERFLOW {
            return Err(invalid());
        }
    }
    if !neg && total > OVERFLOW - 1 {
        return Err(invalid());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> String {
        parse_duration(s).err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn durations_go_accepts() {
        for ok in
            ["0", "-0", "+0", "1h", "1h30m", "1.5h", ".5s", "5.s", "300ms", "-1.5h", "2h45m0s", "1\u{b5}s", "1\u{3bc}s"]
        {
            assert_eq!(parse_duration(ok), Ok(()), "{ok}");
        }
        // 2562047h is the largest whole number of hours below 1<<63 ns.
        assert_eq!(parse_duration("2562047h"), Ok(()));
    }

    #[test]
    fn refusals_carry_go_texts() {
        assert_eq!(text(""), r#"time: invalid duration """#);
        assert_eq!(text("-"), r#"time: invalid duration "-""#);
        assert_eq!(text("x"), r#"time: invalid duration "x""#);
        assert_eq!(text(".s"), r#"time: invalid duration ".s""#);
        assert_eq!(text("1"), r#"time: missing unit in duration "1""#);
        assert_eq!(text("1h1"), r#"time: missing unit in duration "1h1""#);
        assert_eq!(text("1d"), r#"time: unknown unit "d" in duration "1d""#);
        assert_eq!(text("1h "), r#"time: unknown unit "h " in duration "1h ""#);
        assert_eq!(text("2562048h"), r#"time: invalid duration "2562048h""#);
        assert_eq!(text("9223372036854775808ns"), r#"time: invalid duration "9223372036854775808ns""#);
        // The minimum duration is allowed only negative.
        assert_eq!(parse_duration("-9223372036854775808ns"), Ok(()));
    }

    #[test]
    fn quote_escapes_bytes_of_non_ascii_characters() {
        assert_eq!(time_quote("1é"), r#""1\xc3\xa9""#);
        assert_eq!(time_quote("a\"b\\\t"), r#""a\"b\\\x09""#);
        assert_eq!(text("1é"), r#"time: unknown unit "\xc3\xa9" in duration "1\xc3\xa9""#);
    }
}
