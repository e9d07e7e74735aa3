//! The Kubernetes IP library (`k8s.io/apiserver/pkg/cel/library/ip.go`): `ip`, `isIP`,
//! `ip.isCanonical`, and the members `family`, `isUnspecified`, `isLoopback`,
//! `isLinkLocalMulticast`, `isLinkLocalUnicast`, `isGlobalUnicast`, with the equality of
//! `k8s.io/apiserver/pkg/cel/ip.go` (the addresses are equal).
//!
//! Ported from kube-cel 0.8 (kube-rs, <https://github.com/kube-rs/kube-cel>, Apache License 2.0:
//! `src/functions/ip.rs`), adapted to the `cel` 0.15 interpreter. `parseIPAddr` is
//! `netip.ParseAddr`, then a refusal of a zone or an IPv4-mapped IPv6 address; the address is read
//! by `std::net`, and a string it refuses that is made only of the characters of an address (hex
//! digits, `:`, `.`) is "cannot evaluate" rather than "not an IP", the two grammars' corners not
//! being held to each other. The predicates and `String()` follow `net/netip` (`IsLoopback`,
//! `IsMulticast`, `IsLinkLocalUnicast`, `IsLinkLocalMulticast`, `IsGlobalUnicast`,
//! `IsUnspecified`, `appendTo6`). `string(<IP>)` is not modelled: "cannot evaluate".

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use cel::extractors::Arguments;
use cel::objects::Opaque;
use cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};

use super::calls::{global, receiver, unvouched};

/// A `kubernetes.IP`: an address without zone, not IPv4-mapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ip(pub(super) IpAddr);

impl Opaque for Ip {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.IP"
    }
}

/// Why `parseIPAddr` refuses a string, or why the suite cannot tell.
#[derive(Debug, PartialEq, thiserror::Error)]
pub(super) enum IpError {
    /// Go refuses it.
    #[error("{0}")]
    Refused(&'static str),
    /// Whether Go takes it is not modelled.
    #[error("whether net/netip parses {0:?} is not modelled by the suite")]
    Unmodelled(String),
}

/// `parseIPAddr`.
pub(super) fn parse(raw: &str) -> Result<Ip, IpError> {
    match raw.parse::<IpAddr>() {
        Ok(IpAddr::V6(v6)) if v6.to_ipv4_mapped().is_some() => {
            Err(IpError::Refused("IPv4-mapped IPv6 address is not allowed"))
        }
        Ok(addr) => Ok(Ip(addr)),
        // A zone (`%`) is refused whether the address before it parses or not.
        Err(_) if raw.contains('%') => Err(IpError::Refused("IP address with zone value is not allowed")),
        Err(_) if raw.is_empty() || raw.bytes().any(|c| !(c.is_ascii_hexdigit() || c == b':' || c == b'.')) => {
            Err(IpError::Refused("not an IP address"))
        }
        // Digits and dots: netip's parseIPv4 and std's parser take the same four decimal fields
        // (each at most 255, without a leading zero); no IPv6 text holds ":::".
        Err(_) if raw.bytes().all(|c| c.is_ascii_digit() || c == b'.') || raw.contains(":::") => {
            Err(IpError::Refused("not an IP address"))
        }
        Err(_) => Err(IpError::Unmodelled(raw.to_string())),
    }
}

/// `netip.Addr.String()`: dotted decimal, or RFC 5952 (`appendTo6`: the first longest run of at
/// least two zero fields is `::`, hex in lower case without leading zeros).
pub(super) fn string(ip: &Ip) -> String {
    match ip.0 {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => string6(&v6),
    }
}

fn string6(v6: &Ipv6Addr) -> String {
    let fields = v6.segments();
    let (mut start, mut end) = (8usize, 8usize);
    for i in 0..8 {
        let j = (i..8).find(|&j| fields[j] != 0).unwrap_or(8);
        if j - i >= 2 && j - i > end - start {
            (start, end) = (i, j);
        }
    }
    let mut out = String::new();
    let mut i = 0;
    while i < 8 {
        if i == start {
            out.push_str("::");
            i = end;
            if i >= 8 {
                break;
            }
        } else if i > 0 {
            out.push(':');
        }
        out.push_str(&format!("{:x}", fields[i]));
        i += 1;
    }
    out
}

fn is_loopback(ip: &Ip) -> bool {
    match ip.0 {
        IpAddr::V4(v4) => v4.octets()[0] == 127,
        IpAddr::V6(v6) => v6 == Ipv6Addr::LOCALHOST,
    }
}

fn is_multicast(ip: &Ip) -> bool {
    match ip.0 {
        IpAddr::V4(v4) => v4.octets()[0] & 0xf0 == 0xe0,
        IpAddr::V6(v6) => v6.octets()[0] == 0xff,
    }
}

fn is_link_local_unicast(ip: &Ip) -> bool {
    match ip.0 {
        IpAddr::V4(v4) => v4.octets()[..2] == [169, 254],
        IpAddr::V6(v6) => v6.segments()[0] & 0xffc0 == 0xfe80,
    }
}

fn is_link_local_multicast(ip: &Ip) -> bool {
    match ip.0 {
        IpAddr::V4(v4) => v4.octets()[..3] == [224, 0, 0],
        IpAddr::V6(v6) => v6.segments()[0] & 0xff0f == 0xff02,
    }
}

fn is_unspecified(ip: &Ip) -> bool {
    ip.0 == IpAddr::V4(Ipv4Addr::UNSPECIFIED) || ip.0 == IpAddr::V6(Ipv6Addr::UNSPECIFIED)
}

/// `IsGlobalUnicast`: not unspecified, broadcast, loopback, multicast or link-local unicast
/// (private and unique local addresses are global unicast).
fn is_global_unicast(ip: &Ip) -> bool {
    ip.0 != IpAddr::V4(Ipv4Addr::BROADCAST)
        && !is_unspecified(ip)
        && !is_loopback(ip)
        && !is_multicast(ip)
        && !is_link_local_unicast(ip)
}

/// Register the library's functions on `context`.
pub(crate) fn register(context: &mut Context<'_, '_>) -> Result<(), cel::DeclarationError> {
    context.add_function("isIP", is_ip)?;
    context.add_function("ip.isCanonical", is_canonical)?;
    context.add_function("family", family)?;
    context.add_function("isUnspecified", predicate(is_unspecified))?;
    context.add_function("isLoopback", predicate(is_loopback))?;
    context.add_function("isLinkLocalMulticast", predicate(is_link_local_multicast))?;
    context.add_function("isLinkLocalUnicast", predicate(is_link_local_unicast))?;
    context.add_function("isGlobalUnicast", predicate(is_global_unicast))?;
    Ok(())
}

fn string_argument(ftx: &FunctionContext, args: &[Value]) -> Result<Arc<String>, ExecutionError> {
    global(ftx)?;
    match args {
        [Value::String(s)] => Ok(s.clone()),
        _ => Err(unvouched(ftx.name, "expects one string")),
    }
}

/// The receiver of a member function of no arguments.
pub(super) fn this(ftx: &FunctionContext, args: &[Value]) -> Result<Ip, ExecutionError> {
    let this = receiver(ftx)?;
    if !args.is_empty() {
        return Err(unvouched(ftx.name, "expects no argument"));
    }
    match &this {
        Value::Opaque(o) => o.downcast_ref::<Ip>().copied().ok_or_else(|| unvouched(ftx.name, "expects an IP")),
        _ => Err(unvouched(ftx.name, "expects an IP")),
    }
}

/// `ip(<string>)`: the address, an error when `parseIPAddr` refuses the string. Registered by
/// `library::register` with cidr.go's member `<CIDR>.ip()`, which has the same name.
pub(super) fn ip(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    let raw = string_argument(ftx, &args)?;
    parse(&raw).map(|ip| Value::Opaque(Arc::new(ip))).map_err(|e| unvouched("ip", e))
}

/// `isIP(<string>)`: whether `parseIPAddr` takes it.
fn is_ip(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    let raw = string_argument(ftx, &args)?;
    match parse(&raw) {
        Ok(_) => Ok(Value::Bool(true)),
        Err(IpError::Refused(_)) => Ok(Value::Bool(false)),
        Err(e) => Err(unvouched("isIP", e)),
    }
}

/// `ip.isCanonical(<string>)`: whether the string is the address's `String()`, an error when it is
/// not an address.
fn is_canonical(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    let raw = string_argument(ftx, &args)?;
    let ip = parse(&raw).map_err(|e| unvouched("ip.isCanonical", e))?;
    Ok(Value::Bool(string(&ip) == *raw))
}

/// `<IP>.family()`: 4 or 6.
fn family(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    Ok(Value::Int(match this(ftx, &args)?.0 {
        IpAddr::V4(_) => 4,
        IpAddr::V6(_) => 6,
    }))
}

/// A member predicate of an IP.
fn predicate(test: fn(&Ip) -> bool) -> impl Fn(&FunctionContext, Arguments) -> ResolveResult + Send + Sync + 'static {
    move |ftx: &FunctionContext, Arguments(args): Arguments| Ok(Value::Bool(test(&this(ftx, &args)?)))
}

#[cfg(test)]
mod tests {

    use super::super::calls::{assert_all, assert_unvouched};

    #[test]
    fn the_examples_of_the_apiserver_ip_library() {
        // ip.go's doc examples.
        assert_all(&[
            "isIP('127.0.0.1') && isIP('::1') && !isIP('127.0.0.256') && !isIP(':::1')",
            "ip.isCanonical('127.0.0.1') && ip.isCanonical('2001:db8::abcd')",
            "!ip.isCanonical('2001:DB8::ABCD') && !ip.isCanonical('2001:db8::0:0:0:abcd')",
            "ip('127.0.0.1').family() == 4 && ip('::1').family() == 6",
            "ip('0.0.0.0').isUnspecified() && !ip('127.0.0.1').isUnspecified() && ip('::').isUnspecified() && !ip('::1').isUnspecified()",
            "ip('127.0.0.1').isLoopback() && !ip('192.168.0.1').isLoopback() && ip('::1').isLoopback() && !ip('2001:db8::abcd').isLoopback()",
            "ip('224.0.0.1').isLinkLocalMulticast() && !ip('224.0.1.1').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast() && !ip('fd00::1').isLinkLocalMulticast()",
            "ip('169.254.169.254').isLinkLocalUnicast() && !ip('192.168.0.1').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast() && !ip('fd80::1').isLinkLocalUnicast()",
            "ip('192.168.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast() && ip('2001:db8::abcd').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast()",
        ]);
        assert_unvouched("ip('127.0.0.256')");
        assert_unvouched("ip(':::1')");
    }

    #[test]
    fn addresses_follow_parse_ip_addr_and_netip() {
        // parseIPAddr refuses zones and IPv4-mapped addresses; Addr equality; appendTo6 elides the
        // first longest zero run of two or more fields, not a single one; IsLinkLocalMulticast masks
        // the scope (ff12::1 is one); IsGlobalUnicast counts private and unique local addresses in.
        assert_all(&[
            "!isIP('fe80::1%eth0') && !isIP('::ffff:1.2.3.4') && !isIP('') && !isIP('localhost') && !isIP(' 1.2.3.4')",
            "!isIP('01.2.3.4') && !isIP('1.2.3') && !isIP('1.2.3.4.') && !isIP('256.1.1.1')",
            "ip('2001:DB8::1') == ip('2001:db8::1') && !(ip('::1') == ip('::2'))",
            "ip.isCanonical('1:0:0:2:0:0:0:3') == false && ip.isCanonical('1:0:0:2::3') && ip.isCanonical('1::2:0:0:3')",
            "ip.isCanonical('1:0:2:3:4:5:6:7') && !ip.isCanonical('1::2:3:4:5:6:7') && ip.isCanonical('::102:304')",
            "ip('ff12::1').isLinkLocalMulticast() && ip('10.0.0.1').isGlobalUnicast() && ip('fd00::1').isGlobalUnicast()",
            "!ip('224.0.0.1').isGlobalUnicast() && !ip('fe80::1').isGlobalUnicast() && !ip('::').isGlobalUnicast()",
        ]);
        assert_unvouched("ip('::ffff:1.2.3.4')");
        // An IPv6-looking string std refuses: whether netip takes it is not claimed.
        assert_unvouched("isIP('1:2:3:4:5:6:7:8:9')");
        assert_unvouched("ip('1.2.3.4').family(1)");
        assert_unvouched("family(ip('1.2.3.4'))");
    }
}
