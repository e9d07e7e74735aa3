//! `k8s.io/apimachinery/pkg/api/resource` (quantity.go): a `Quantity`'s parse, its value after
//! `SetDefaults_ResourceList` rounds it up to milli scale, and `Quantity.String()`'s canonical form.

use std::borrow::Cow;
use std::cmp::Ordering;

/// `Quantity.Format`: how the canonical string is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `DecimalSI`: `m`, ``, `k`, `M`, `G`, `T`, `P`, `E` (and `n`, `u` when parsed so).
    DecimalSi,
    /// `BinarySI`: `Ki`, `Mi`, `Gi`, `Ti`, `Pi`, `Ei`.
    BinarySi,
    /// `DecimalExponent`: `e3`, `E-6`, ….
    DecimalExponent,
}

/// A parsed quantity: its value in thousandths (rounded up, as `RoundUp(-3)` does) and its format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quantity {
    /// The value × 1000.
    pub milli: i128,
    /// The format the canonical string keeps.
    pub format: Format,
}

/// The regular expression a quantity must match, as `ErrQuantityFormat` words it.
pub const QUANTITY_REGEX: &str = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

const LIMIT: i128 = 1 << 100;

/// `ParseQuantity`: `None` when Go refuses the text.
pub fn parse(text: &str) -> Option<Quantity> {
    let s = text.trim();
    if s.is_empty() {
        return None;
    }
    let (negative, rest) = match s.as_bytes()[0] {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let number_len = rest.bytes().take_while(|c| c.is_ascii_digit() || *c == b'.').count();
    let (number, suffix) = rest.split_at(number_len);
    if number.is_empty() || number.matches('.').count() > 1 || number == "." {
        return None;
    }
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    // Base-10 mantissa and exponent of the number part (the digits joined only for a fraction).
    let digits: Cow<'_, str> =
        if fraction.is_empty() { Cow::Borrowed(whole) } else { Cow::Owned(format!("{whole}{fraction}")) };
    let digits = digits.trim_start_matches('0');
    if digits.len() > 30 {
        return None;
    }
    let mantissa: i128 = if digits.is_empty() { 0 } else { digits.parse().ok()? };
    let mut exp10: i32 = -(fraction.len() as i32);
    let mut factor: i128 = 1;
    let format = match suffix {
        "" => Format::DecimalSi,
        "n" => {
            exp10 -= 9;
            Format::DecimalSi
        }
        "u" => {
            exp10 -= 6;
            Format::DecimalSi
        }
        "m" => {
            exp10 -= 3;
            Format::DecimalSi
        }
        "k" => {
            exp10 += 3;
            Format::DecimalSi
        }
        "M" => {
            exp10 += 6;
            Format::DecimalSi
        }
        "G" => {
            exp10 += 9;
            Format::DecimalSi
        }
        "T" => {
            exp10 += 12;
            Format::DecimalSi
        }
        "P" => {
            exp10 += 15;
            Format::DecimalSi
        }
        "E" => {
            exp10 += 18;
            Format::DecimalSi
        }
        "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei" => {
            let power = "KMGTPE".find(&suffix[..1]).unwrap_or(0) as u32 + 1;
            factor = 1i128 << (10 * power);
            Format::BinarySi
        }
        other if other.starts_with(['e', 'E']) => {
            let e: i32 = other[1..].parse().ok()?;
            if !(-40..=40).contains(&e) {
                return None;
            }
            exp10 += e;
            Format::DecimalExponent
        }
        _ => return None,
    };
    // value × 1000 = mantissa × factor × 10^(exp10 + 3), rounded up (away from zero, as RoundUp).
    let scaled = mantissa.checked_mul(factor)?;
    let e = exp10 + 3;
    let milli = if e >= 0 {
        scaled.checked_mul(10i128.checked_pow(e as u32)?)?
    } else {
        let div = 10i128.checked_pow((-e) as u32).unwrap_or(i128::MAX);
        let q = scaled / div;
        if scaled % div != 0 {
            q + 1
        } else {
            q
        }
    };
    if milli > LIMIT {
        return None;
    }
    Some(Quantity { milli: if negative { -milli } else { milli }, format })
}

/// Why `ParseQuantity` refuses a text: its three errors, with Go's texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// `ErrFormatWrong`.
    #[error("quantities must match the regular expression '{QUANTITY_REGEX}'")]
    Format,
    /// `ErrSuffix`.
    #[error("unable to parse quantity's suffix")]
    Suffix,
    /// `ErrNumeric`.
    #[error("unable to parse numeric part of quantity")]
    Numeric,
}

/// `Quantity.UnmarshalJSON` of a JSON string: `ParseQuantity(strings.TrimSpace(s))`, accepting exactly
/// what Go accepts (`"1.G"`, `"-"`, `"Ki"` and `"1e100"` included, the last capped) and refusing with
/// Go's error otherwise. Follows `parseQuantityString`, `suffixHandler.interpret` and the fast and
/// `inf.Dec` paths of `ParseQuantity`.
pub fn accepts(text: &str) -> Result<(), ParseError> {
    let s = text.trim();
    if s.is_empty() {
        return Err(ParseError::Format);
    }
    if s == "0" {
        return Ok(());
    }
    let b = s.as_bytes();
    let end = b.len();
    let mut pos = usize::from(matches!(b[0], b'-' | b'+'));
    // Leading zeros; a text that is only a sign and zeros is 0.
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        return Ok(());
    }
    let num_start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos >= end {
        return Ok(());
    }
    let num_len = (pos - num_start).max(1);
    let mut denom_len = 0;
    if b[pos] == b'.' {
        pos += 1;
        let denom_start = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        if pos >= end {
            return Ok(());
        }
        denom_len = pos - denom_start;
    }
    let value = &s[..pos];
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && matches!(b[pos], b'-' | b'+') {
        pos += 1;
    }
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < end {
        return Err(ParseError::Format);
    }
    let suffix = &s[suffix_start..];
    // suffixHandler.interpret: (base, exponent, binary?).
    let (exponent, binary): (i64, bool) = match suffix {
        "n" => (-9, false),
        "u" => (-6, false),
        "m" => (-3, false),
        "" => (0, false),
        "k" => (3, false),
        "M" => (6, false),
        "G" => (9, false),
        "T" => (12, false),
        "P" => (15, false),
        "E" => (18, false),
        "Ki" => (10, true),
        "Mi" => (20, true),
        "Gi" => (30, true),
        "Ti" => (40, true),
        "Pi" => (50, true),
        "Ei" => (60, true),
        other if other.len() > 1 && other.starts_with(['e', 'E']) => {
            // strconv.ParseInt(suffix[1:], 10, 64), then int32(parsed).
            let parsed: i64 = other[1..].parse().map_err(|_| ParseError::Suffix)?;
            (i64::from(parsed as i32), false)
        }
        _ => return Err(ParseError::Suffix),
    };
    // The fast path (int64 arithmetic) needs neither a digit in `value` nor `inf.Dec`; the slow
    // path's `inf.Dec.SetString(value)` fails when `value` holds no digit.
    let digits = (num_len + denom_len) as i64;
    let (precision, scale) = if binary {
        if denom_len == 0 {
            (15 - num_len as i64 - exponent * 3 / 10 - 1, 0)
        } else {
            (-1, 0)
        }
    } else {
        (18 - digits, exponent)
    };
    let fast = precision >= 0 && scale - denom_len as i64 >= -9 && {
        // strconv.ParseInt(num+denom) fits (precision ≥ 0 keeps it under 19 digits); int64Multiply
        // by the binary mantissa must not overflow.
        let shifted: i64 = s[num_start..suffix_start].replace('.', "").parse().unwrap_or(0);
        !binary || shifted.checked_mul(1i64 << exponent).is_some()
    };
    if !fast && !value.bytes().any(|c| c.is_ascii_digit()) {
        return Err(ParseError::Numeric);
    }
    Ok(())
}

impl Quantity {
    /// `Quantity.Cmp`.
    pub fn cmp_value(&self, other: &Quantity) -> Ordering {
        self.milli.cmp(&other.milli)
    }

    /// `Quantity.String()`: the canonical form (`CanonicalizeBytes`). A binary quantity between
    /// -1024 and 1024 exclusive, or with a fraction, is written in decimal.
    pub fn canonical(&self) -> String {
        let sign = if self.milli < 0 { "-" } else { "" };
        let abs = self.milli.abs();
        let mut format = self.format;
        if format == Format::BinarySi && (abs < 1024 * 1000 || abs % 1000 != 0) {
            format = Format::DecimalSi;
        }
        if abs == 0 {
            return "0".into();
        }
        match format {
            Format::BinarySi => {
                let mut n = abs / 1000;
                let mut power = 0;
                while n % 1024 == 0 && power < 6 {
                    n /= 1024;
                    power += 1;
                }
                let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][power];
                format!("{sign}{n}{suffix}")
            }
            Format::DecimalSi | Format::DecimalExponent => {
                // Strip trailing zeros of the value in thousandths: mantissa × 10^exp.
                let (mut m, mut exp) = (abs, -3i32);
                while m % 10 == 0 {
                    m /= 10;
                    exp += 1;
                }
                if format == Format::DecimalExponent {
                    while exp % 3 != 0 {
                        m *= 10;
                        exp -= 1;
                    }
                    return if exp == 0 { format!("{sign}{m}") } else { format!("{sign}{m}e{exp}") };
                }
                while exp % 3 != 0 || exp > 18 {
                    m *= 10;
                    exp -= 1;
                }
                let suffix = match exp {
                    -3 => "m",
                    0 => "",
                    3 => "k",
                    6 => "M",
                    9 => "G",
                    12 => "T",
                    15 => "P",
                    _ => "E",
                };
                format!("{sign}{m}{suffix}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_as_go_does() {
        for (input, canonical) in [
            ("100m", "100m"),
            ("0.5", "500m"),
            ("1.5", "1500m"),
            ("1", "1"),
            ("1000m", "1"),
            ("1500", "1500"),
            ("2000", "2k"),
            ("1Gi", "1Gi"),
            ("1536Mi", "1536Mi"),
            ("1024Mi", "1Gi"),
            ("512Ki", "512Ki"),
            ("1e3", "1e3"),
            ("128974848", "128974848"),
            ("129M", "129M"),
            ("0", "0"),
            ("-1", "-1"),
            ("1n", "1m"),
        ] {
            let q = parse(input).unwrap_or_else(|| panic!("{input} parses"));
            assert_eq!(q.canonical(), canonical, "{input}");
        }
        for bad in ["", "abc", "1.2.3", "1Q", "1ki", ".", "1 Gi"] {
            assert!(parse(bad).is_none(), "{bad:?}");
        }
        assert_eq!(parse("1Gi").unwrap().cmp_value(&parse("1073741824").unwrap()), Ordering::Equal);
        assert_eq!(parse("500m").unwrap().cmp_value(&parse("1").unwrap()), Ordering::Less);
    }

    /// Vectors of `ParseQuantity` (k8s.io/apimachinery/pkg/api/resource/quantity.go, and its
    /// quantity_test.go `TestQuantityParse` / `TestQuantityParseZero` / invalid inputs).
    #[test]
    fn accepts_what_go_parse_quantity_accepts() {
        for ok in [
            "0",
            "1",
            "100m",
            "1.5",
            "1.G",
            ".5",
            "5.",
            "+1",
            "-1",
            "-",
            "+",
            "00",
            "-00",
            "1Ki",
            "1Ei",
            "Ki",
            "m",
            "1e3",
            "1E-6",
            "1e+3",
            "1e100",
            "1n",
            "1u",
            "9223372036854775807",
            "99999999999999999999999Ei",
            "0.1m",
            " 1Gi ",
            "1.5Gi",
            "5e-20",
        ] {
            assert_eq!(accepts(ok), Ok(()), "{ok:?}");
        }
        for (bad, err) in [
            ("", ParseError::Format),
            ("   ", ParseError::Format),
            ("lots", ParseError::Format),
            ("1.1.M", ParseError::Format),
            ("1+1.0M", ParseError::Format),
            ("0.1mi", ParseError::Suffix),
            ("0.1am", ParseError::Format),
            ("aoeu", ParseError::Format),
            (".5i", ParseError::Suffix),
            ("1i", ParseError::Suffix),
            ("-3.01i", ParseError::Suffix),
            ("-3.01e-", ParseError::Suffix),
            ("1ki", ParseError::Suffix),
            ("1 Gi", ParseError::Format),
            ("1e", ParseError::Suffix),
            ("1e3k", ParseError::Format),
            ("Ei", ParseError::Numeric),
            ("e-20", ParseError::Numeric),
            ("1Q", ParseError::Format),
        ] {
            assert_eq!(accepts(bad), Err(err), "{bad:?}");
        }
        assert_eq!(
            ParseError::Format.to_string(),
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
        assert_eq!(ParseError::Suffix.to_string(), "unable to parse quantity's suffix");
        assert_eq!(ParseError::Numeric.to_string(), "unable to parse numeric part of quantity");
    }
}
