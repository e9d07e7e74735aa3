//! The string formats of kube-openapi's registry (`k8s.io/kube-openapi/pkg/validation/strfmt`
//! `default.go`) that the suite checks. The apiextensions-apiserver keeps only the formats it
//! supports (`apiextensions-apiserver/pkg/apiserver/validation/formats.go`
//! `StripUnsupportedFormatsPostProcess`); of those, the ones listed in [`CHECKED`] are checked here,
//! the others are let through.

use std::net::IpAddr;

use base64::Engine as _;

/// The formats [`valid`] checks.
pub const CHECKED: &[&str] = &["byte", "date", "date-time", "datetime", "uuid", "ipv4", "ipv6", "cidr"];

/// Whether `value` is of `format` (`strfmt.Registry.Validates`); `None` when the format is not
/// checked here.
pub fn valid(format: &str, value: &str) -> Option<bool> {
    Some(match format {
        // strfmt `byte`: base64.StdEncoding.DecodeString.
        "byte" => base64::engine::general_purpose::STANDARD.decode(value).is_ok(),
        // strfmt `date`: time.Parse("2006-01-02").
        "date" => date(value).is_some(),
        // strfmt `date-time`: ParseDateTime (RFC 3339, fractional seconds, or no zone).
        "date-time" | "datetime" => date_time(value),
        // strfmt `uuid`: UUIDPattern, case-insensitive, dashes optional.
        "uuid" => uuid(value),
        // strfmt `isIPv4`/`isIPv6`: net.ParseIP, with a dot / a colon in the text.
        "ipv4" => value.parse::<IpAddr>().is_ok() && value.contains('.'),
        "ipv6" => value.parse::<IpAddr>().is_ok() && value.contains(':'),
        // strfmt `cidr`: net.ParseCIDR.
        "cidr" => cidr(value),
        _ => return None,
    })
}

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
}

/// `(year, month, day)` of a full date, checked against the month's length.
fn date(s: &str) -> Option<(u32, u32, u32)> {
    let mut parts = s.split('-');
    let (y, m, d) = (digits(parts.next()?, 4)?, digits(parts.next()?, 2)?, digits(parts.next()?, 2)?);
    if parts.next().is_some() || !(1..=12).contains(&m) {
        return None;
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    (1..=days).contains(&d).then_some((y, m, d))
}

fn date_time(s: &str) -> bool {
    let Some((day, rest)) = s.split_once(['T', 't']) else { return false };
    if date(day).is_none() || rest.len() < 8 {
        return false;
    }
    let (clock, mut zone) = rest.split_at(8);
    let mut hms = clock.split(':');
    let ok = |p: Option<&str>, max: u32| p.and_then(|p| digits(p, 2)).is_some_and(|n| n <= max);
    if !(ok(hms.next(), 23) && ok(hms.next(), 59) && ok(hms.next(), 60)) {
        return false;
    }
    if let Some(frac) = zone.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        zone = &frac[n..];
    }
    match zone {
        "" | "Z" | "z" => true,
        z => {
            let Some(offset) = z.strip_prefix(['+', '-']) else { return false };
            let Some((h, m)) = offset.split_once(':') else { return false };
            digits(h, 2).is_some_and(|h| h <= 23) && digits(m, 2).is_some_and(|m| m <= 59)
        }
    }
}

fn uuid(s: &str) -> bool {
    let hex: Vec<u8> = s.bytes().filter(|b| *b != b'-').collect();
    let dashes_at_groups = {
        let groups: Vec<&str> = s.split('-').collect();
        match groups.len() {
            1 => true,
            5 => groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12]),
            _ => false,
        }
    };
    hex.len() == 32 && hex.iter().all(u8::is_ascii_hexdigit) && dashes_at_groups
}

fn cidr(s: &str) -> bool {
    let Some((ip, bits)) = s.split_once('/') else { return false };
    let Ok(ip) = ip.parse::<IpAddr>() else { return false };
    let max = if ip.is_ipv4() { 32 } else { 128 };
    !bits.is_empty()
        && bits.len() <= 3
        && bits.bytes().all(|b| b.is_ascii_digit())
        && bits.parse::<u32>().is_ok_and(|n| n <= max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_accept_and_refuse_as_strfmt_does() {
        for (format, good, bad) in [
            ("byte", "ZXhhbXBsZQ==", "not base64!"),
            ("date", "2024-02-29", "2023-02-29"),
            ("date-time", "2026-01-01T00:00:00Z", "2026-01-01 00:00"),
            ("date-time", "2026-01-01T10:20:30.5+02:00", "2026-13-01T00:00:00Z"),
            ("uuid", "5d3e1c9a-6a8f-4c0e-9a6e-0000000000ee", "5d3e1c9a-6a8f"),
            ("ipv4", "192.0.2.10", "2001:db8::1"),
            ("ipv6", "2001:db8::10", "192.0.2.10"),
            ("cidr", "192.0.2.0/24", "192.0.2.0/33"),
        ] {
            assert_eq!(valid(format, good), Some(true), "{format} {good}");
            assert_eq!(valid(format, bad), Some(false), "{format} {bad}");
        }
        assert_eq!(valid("email", "x"), None);
    }
}
