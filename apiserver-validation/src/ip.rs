//! k8s.io/apimachinery `pkg/util/validation/ip.go`:
//!
//! - `IsValidIP` (with `parseIP` in strict mode): an IP address parsed as `netutils.ParseIPSloppy`
//!   parses it (IPv4 octets may have leading zeros), then refused for leading zeros
//!   (`netip.ParseAddr`), for being IPv4-mapped IPv6, or for not being in the canonical form
//!   `net.IP.String()` writes (RFC 5952);
//! - `IsValidIPForLegacyField` and `IsValidCIDRForLegacyField` as release-1.36 runs them for the
//!   fields that predate strict validation (a Service's `clusterIPs`, `externalIPs` and
//!   `loadBalancerSourceRanges`): `pkg/apis/core/validation` passes `strictValidation` as the
//!   `StrictIPCIDRValidation` gate, alpha since 1.33 and off by default in 1.36's
//!   `pkg/features/kube_features.go`, so only `ParseIPSloppy` / `ParseCIDRSloppy` must accept the
//!   value (leading zeros, IPv4-mapped and non-canonical addresses pass, and a CIDR may have bits
//!   set beyond its prefix);
//!
//! and of k8s.io/kubernetes `pkg/apis/core/validation`: `ValidateNonSpecialIP` (unspecified,
//! loopback and link-local addresses refused, by Go's `net.IP` methods) and k8s.io/utils/net
//! `IsIPv6String` and `IsDualStackIPStrings`.

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
pub(crate) fn parse_sloppy(value: &str) -> Option<IpAddr> {
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

/// `IsValidIPForLegacyField` with `strictValidation` off: the errors of `value` at `path`.
pub fn is_valid_ip_for_legacy_field(path: &str, value: &str) -> Vec<FieldError> {
    match parse_sloppy(value) {
        Some(_) => Vec::new(),
        None => vec![FieldError::invalid(
            path,
            str_value(value),
            "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
        )],
    }
}

/// `netutils.ParseCIDRSloppy` (Go 1.16's `ParseCIDR`): an address as `ParseIPSloppy` reads it, a
/// `/`, and a prefix length of decimal digits (leading zeros allowed) no longer than the address.
fn parse_cidr_sloppy(value: &str) -> Option<(IpAddr, u32)> {
    let (address, length) = value.split_once('/')?;
    let ip = parse_sloppy(address)?;
    let bits = if ip.is_ipv4() { 32 } else { 128 };
    if length.is_empty() || !length.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = length.trim_start_matches('0');
    let prefix = if digits.is_empty() { 0 } else { digits.parse::<u32>().ok()? };
    (prefix <= bits).then_some((ip, prefix))
}

/// `IsValidCIDRForLegacyField` with `strictValidation` off: the errors of `value` at `path`.
pub fn is_valid_cidr_for_legacy_field(path: &str, value: &str) -> Vec<FieldError> {
    match parse_cidr_sloppy(value) {
        Some(_) => Vec::new(),
        None => vec![FieldError::invalid(
            path,
            str_value(value),
            "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        )],
    }
}

/// The address as Go's `net.IP.To4` sees it: an IPv4 address, or an IPv4-mapped IPv6 one.
fn as_ipv4(ip: &IpAddr) -> Option<Ipv4Addr> {
    match ip {
        IpAddr::V4(v4) => Some(*v4),
        IpAddr::V6(v6) => v6.to_ipv4_mapped(),
    }
}

/// k8s.io/utils/net `IsIPv6String`: parsed by `ParseIPSloppy` and not IPv4 (IPv4-mapped IPv6
/// counts as IPv4, as `To4` sees it).
pub fn is_ipv6_string(value: &str) -> bool {
    parse_sloppy(value).is_some_and(|ip| as_ipv4(&ip).is_none())
}

/// k8s.io/utils/net `IsDualStackIPStrings`: every value parses, and both families are present.
pub fn is_dual_stack_ip_strings(values: &[String]) -> bool {
    let mut v4 = false;
    let mut v6 = false;
    for value in values {
        match parse_sloppy(value) {
            None => return false,
            Some(ip) if as_ipv4(&ip).is_some() => v4 = true,
            Some(_) => v6 = true,
        }
    }
    v4 && v6
}

/// `ValidateNonSpecialIP` (`pkg/apis/core/validation`): no unspecified, loopback, link-local
/// unicast or link-local multicast address, as Go's `net.IP` methods of those names judge them.
pub fn validate_non_special_ip(path: &str, value: &str) -> Vec<FieldError> {
    let Some(ip) = parse_sloppy(value) else {
        return vec![FieldError::invalid(path, str_value(value), "must be a valid IP address")];
    };
    let (unspecified, loopback, link_local, link_local_multicast) = match (as_ipv4(&ip), ip) {
        (Some(v4), _) => {
            let o = v4.octets();
            (v4.is_unspecified(), o[0] == 127, o[..2] == [169, 254], o[..3] == [224, 0, 0])
        }
        (None, IpAddr::V6(v6)) => {
            let o = v6.octets();
            (
                v6.is_unspecified(),
                v6.is_loopback(),
                o[0] == 0xfe && o[1] & 0xc0 == 0x80,
                o[0] == 0xff && o[1] & 0x0f == 0x02,
            )
        }
        (None, IpAddr::V4(_)) => (false, false, false, false),
    };
    let mut errs = Vec::new();
    let mut refuse = |detail: String| errs.push(FieldError::invalid(path, str_value(value), detail));
    if unspecified {
        refuse(format!("may not be unspecified ({value})"));
    }
    if loopback {
        refuse("may not be in the loopback range (127.0.0.0/8, ::1/128)".into());
    }
    if link_local {
        refuse("may not be in the link-local range (169.254.0.0/16, fe80::/10)".into());
    }
    if link_local_multicast {
        refuse("may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)".into());
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

    #[test]
    fn legacy_fields_take_what_the_sloppy_parser_takes() {
        for ok in ["010.0.0.1", "::ffff:1.2.3.4", "2001:DB8:0:0::1", "10.0.0.1"] {
            assert!(is_valid_ip_for_legacy_field("ip", ok).is_empty(), "{ok}");
        }
        assert_eq!(
            texts(&is_valid_ip_for_legacy_field("ip", "10.0.0.256")),
            ["ip: Invalid value: \"10.0.0.256\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]
        );
        for ok in ["10.0.0.1/8", "010.0.0.0/024", "2001:db8::/64", "::ffff:1.2.3.0/120", "0.0.0.0/0"] {
            assert!(is_valid_cidr_for_legacy_field("c", ok).is_empty(), "{ok}");
        }
        for bad in
            ["10.0.0.0", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/+8", "2001:db8::/129", "10.0.0.0/8/8", " 10.0.0.0/8"]
        {
            assert_eq!(
                texts(&is_valid_cidr_for_legacy_field("c", bad)),
                [format!(
                    "c: Invalid value: \"{bad}\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"
                )],
                "{bad}"
            );
        }
    }

    #[test]
    fn families_count_mapped_addresses_as_ipv4() {
        assert!(is_ipv6_string("2001:db8::1") && !is_ipv6_string("::ffff:1.2.3.4") && !is_ipv6_string("10.0.0.1"));
        let ips = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(is_dual_stack_ip_strings(&ips(&["10.0.0.1", "2001:db8::1"])));
        assert!(!is_dual_stack_ip_strings(&ips(&["10.0.0.1", "::ffff:10.0.0.2"])));
        assert!(!is_dual_stack_ip_strings(&ips(&["2001:db8::1", "2001:db8::2"])));
    }

    #[test]
    fn special_addresses_are_refused_as_go_classifies_them() {
        assert!(
            validate_non_special_ip("ip", "192.0.2.1").is_empty()
                && validate_non_special_ip("ip", "2001:db8::1").is_empty()
        );
        let one = |v: &str| texts(&validate_non_special_ip("ip", v));
        assert_eq!(one("0.0.0.0"), ["ip: Invalid value: \"0.0.0.0\": may not be unspecified (0.0.0.0)"]);
        assert_eq!(one("::"), ["ip: Invalid value: \"::\": may not be unspecified (::)"]);
        assert_eq!(
            one("127.1.2.3"),
            ["ip: Invalid value: \"127.1.2.3\": may not be in the loopback range (127.0.0.0/8, ::1/128)"]
        );
        assert_eq!(
            one("::ffff:127.0.0.1"),
            ["ip: Invalid value: \"::ffff:127.0.0.1\": may not be in the loopback range (127.0.0.0/8, ::1/128)"]
        );
        assert_eq!(
            one("169.254.169.254"),
            ["ip: Invalid value: \"169.254.169.254\": may not be in the link-local range (169.254.0.0/16, fe80::/10)"]
        );
        assert_eq!(
            one("febf::1"),
            ["ip: Invalid value: \"febf::1\": may not be in the link-local range (169.254.0.0/16, fe80::/10)"]
        );
        assert_eq!(one("224.0.0.251"), ["ip: Invalid value: \"224.0.0.251\": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"]);
        assert_eq!(
            one("ff12::1"),
            ["ip: Invalid value: \"ff12::1\": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"]
        );
        // Outside the ranges: 224.0.1.1 and ff05::1 are multicast, not link-local.
        assert!(
            validate_non_special_ip("ip", "224.0.1.1").is_empty()
                && validate_non_special_ip("ip", "ff05::1").is_empty()
        );
    }
}
