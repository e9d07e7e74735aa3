//! k8s.io/apimachinery `pkg/util/validation/ip.go` `IsValidIP` (with `parseIP` in strict mode): an
//! IP address parsed as `netutils.ParseIPSloppy` parses it (IPv4 octets may have leading zeros),
//! then refused for leading zeros (`netip.ParseAddr`), for being IPv4-mapped IPv6, or for not being
//! in the canonical form `net.IP.String()` writes (RFC 5952).

use std::net::{IpAddr, Ipv4Addr};

use crate::field::FieldError;
use crate::field_formats::str_value;

/// An IPv4 address as Go 1.16's `parseIPv4` reads it: four decimal fields of any number of
/// digits, each at most 255.
fn sloppy_ipv4(s: &str) -> Option<Ipv4Addr> {
    let fields: Vec<&str> = s.split('.').collect();
    if fields.len() != 4 {
        return None;
    }
    let mut octets = [0u8; 4];
    for (o, f) in octets.iter_mut().zip(&fields) {
        if f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut n: u32 = 0;
        for b in f.bytes() {
            n = n * 10 + u32::from(b - b'0');
            if n > 0xff {
                return None;
            }
        }
        *o = u8::try_from(n).ok()?;
    }
    Some(Ipv4Addr::from(octets))
}

/// `netutils.ParseIPSloppy`: an IPv4 address, or an IPv6 one whose trailing IPv4 part may have
/// leading zeros.
fn parse_sloppy(value: &str) -> Option<IpAddr> {
    if !value.contains(':') {
        return sloppy_ipv4(value).map(IpAddr::V4);
    }
    let normalized = match value.rsplit_once(':') {
        Some((head, tail)) if tail.contains('.') => format!("{head}:{}", sloppy_ipv4(tail)?),
        _ => value.to_string(),
    };
    normalized.parse::<std::net::Ipv6Addr>().ok().map(IpAddr::V6)
}

/// Whether an address is IPv4-mapped IPv6 (`netip.Addr.Is4In6`).
fn is_4_in_6(addr: &IpAddr) -> bool {
    matches!(addr, IpAddr::V6(v6) if v6.segments()[..6] == [0, 0, 0, 0, 0, 0xffff])
}

/// `IsValidIP`: the errors of `value` at `path`.
pub fn is_valid_ip(path: &str, value: &str) -> Vec<FieldError> {
    let Some(ip) = parse_sloppy(value) else {
        return vec![FieldError::invalid(
            path,
            str_value(value),
            "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
        )];
    };
    let mut errs = Vec::new();
    match value.parse::<IpAddr>() {
        Err(_) => errs.push(FieldError::invalid(path, str_value(value), "must not have leading 0s")),
        Ok(strict) if is_4_in_6(&strict) => {
            errs.push(FieldError::invalid(path, str_value(value), "must not be an IPv4-mapped IPv6 address"));
        }
        Ok(_) => {}
    }
    if !errs.is_empty() {
        return errs;
    }
    let canonical = ip.to_string();
    if value != canonical {
        errs.push(FieldError::invalid(path, str_value(value), format!("must be in canonical form (\"{canonical}\")")));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::texts;

    #[test]
    fn leading_zeros_mapped_addresses_and_long_forms_are_refused() {
        assert!(is_valid_ip("ip", "10.0.0.1").is_empty() && is_valid_ip("ip", "2001:db8::1").is_empty());
        assert_eq!(
            texts(&is_valid_ip("ip", "010.0.0.1")),
            ["ip: Invalid value: \"010.0.0.1\": must not have leading 0s"]
        );
        assert_eq!(
            texts(&is_valid_ip("ip", "::ffff:1.2.3.4")),
            ["ip: Invalid value: \"::ffff:1.2.3.4\": must not be an IPv4-mapped IPv6 address"]
        );
        assert_eq!(
            texts(&is_valid_ip("ip", "2001:DB8:0:0::1")),
            ["ip: Invalid value: \"2001:DB8:0:0::1\": must be in canonical form (\"2001:db8::1\")"]
        );
        assert_eq!(
            texts(&is_valid_ip("ip", "1.2.3")),
            ["ip: Invalid value: \"1.2.3\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]
        );
    }
}
