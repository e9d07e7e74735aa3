//! `k8s.io/apimachinery/pkg/api/resource` (quantity.go): a `Quantity`'s parse, its value after
//! `SetDefaults_ResourceList` rounds it up to milli scale, and `Quantity.String()`'s canonical form.

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
    // Base-10 mantissa and exponent of the number part.
    let digits: String = format!("{whole}{fraction}");
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
}
