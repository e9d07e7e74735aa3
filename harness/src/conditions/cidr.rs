//! The Kubernetes CIDR library (`k8s.io/apiserver/pkg/cel/library/cidr.go`): `cidr`, `isCIDR`,
//! and the members `containsIP`, `containsCIDR`, `ip`, `masked`, `prefixLength`, with the
//! equality of `k8s.io/apiserver/pkg/cel/cidr.go` (address and length equal).
//!
//! Ported from kube-cel 0.8 (kube-rs, <https://github.com/kube-rs/kube-cel>, Apache License 2.0:
//! `src/functions/ip.rs`), adapted to the `cel` 0.15 interpreter. `parseCIDR` is
//! `netip.ParsePrefix` (the address as `ip.rs` reads it, the length in decimal without a sign or a
//! leading zero, at most 32 or 128; the address bits past the length are kept), then a refusal of
//! an IPv4-mapped address; `Prefix.Contains`, `Prefix.Overlaps` and `Prefix.Masked` compare the
//! leading bits. `string(<CIDR>)` is not modelled: "cannot evaluate".

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use cel::extractors::Arguments;
use cel::objects::Opaque;
use cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};

use super::calls::{global, receiver, unvouched};
use super::ip::{self, Ip, IpError};

/// A `kubernetes.CIDR`: an address and a prefix length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cidr {
    addr: Ip,
    bits: u32,
}

impl Opaque for Cidr {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.CIDR"
    }
}

/// The address as an integer and its width in bits.
fn number(ip: &Ip) -> (u128, u32) {
    match ip.0 {
        IpAddr::V4(v4) => (u32::from(v4).into(), 32),
        IpAddr::V6(v6) => (u128::from(v6), 128),
    }
}

/// `value` with only its first `bits` of `width` kept.
fn keep(value: u128, width: u32, bits: u32) -> u128 {
    if bits == 0 {
        return 0;
    }
    let all = if width == 128 { u128::MAX } else { (1u128 << width) - 1 };
    value & (all << (width - bits)) & all
}

impl Cidr {
    /// `Prefix.Contains`: same family, same leading bits.
    fn contains(&self, ip: &Ip) -> bool {
        let ((a, wa), (b, wb)) = (number(&self.addr), number(ip));
        wa == wb && keep(a ^ b, wa, self.bits) == 0
    }

    /// `Prefix.Overlaps`: same family, same leading bits over the shorter length.
    fn overlaps(&self, other: &Cidr) -> bool {
        let ((a, wa), (b, wb)) = (number(&self.addr), number(&other.addr));
        wa == wb && keep(a ^ b, wa, self.bits.min(other.bits)) == 0
    }

    /// `Prefix.Masked`.
    fn masked(&self) -> Cidr {
        let (a, width) = number(&self.addr);
        let kept = keep(a, width, self.bits);
        let addr = if width == 32 { IpAddr::V4(Ipv4Addr::from(kept as u32)) } else { IpAddr::V6(Ipv6Addr::from(kept)) };
        Cidr { addr: Ip(addr), bits: self.bits }
    }
}

/// `parseCIDR`.
fn parse(raw: &str) -> Result<Cidr, IpError> {
    let Some(slash) = raw.rfind('/') else { return Err(IpError::Refused("no '/'")) };
    let addr = ip::parse(&raw[..slash])?;
    let text = &raw[slash + 1..];
    if text.len() > 1 && !matches!(text.as_bytes()[0], b'1'..=b'9') {
        return Err(IpError::Refused("bad bits after slash"));
    }
    let bits: u32 = text.parse().map_err(|_| IpError::Refused("bad bits after slash"))?;
    if bits > number(&addr).1 {
        return Err(IpError::Refused("prefix length out of range"));
    }
    Ok(Cidr { addr, bits })
}

/// Register the library's functions on `context` (`<CIDR>.ip()` is answered by `ip.rs`'s `ip`).
pub(crate) fn register(context: &mut Context<'_, '_>) -> Result<(), cel::DeclarationError> {
    context.add_function("cidr", cidr)?;
    context.add_function("isCIDR", is_cidr)?;
    context.add_function("containsIP", contains_ip)?;
    context.add_function("containsCIDR", contains_cidr)?;
    context.add_function("masked", masked)?;
    context.add_function("prefixLength", prefix_length)?;
    Ok(())
}

fn string_argument(ftx: &FunctionContext, args: &[Value]) -> Result<Arc<String>, ExecutionError> {
    global(ftx)?;
    match args {
        [Value::String(s)] => Ok(s.clone()),
        _ => Err(unvouched(ftx.name, "expects one string")),
    }
}

fn as_cidr(ftx: &FunctionContext, value: &Value) -> Result<Cidr, ExecutionError> {
    match value {
        Value::Opaque(o) => o.downcast_ref::<Cidr>().copied().ok_or_else(|| unvouched(ftx.name, "expects a CIDR")),
        _ => Err(unvouched(ftx.name, "expects a CIDR")),
    }
}

/// The receiver and the one argument of a member function.
fn with_argument<'a>(ftx: &FunctionContext, args: &'a [Value]) -> Result<(Cidr, &'a Value), ExecutionError> {
    let this = receiver(ftx)?;
    let [arg] = args else { return Err(unvouched(ftx.name, "expects one argument")) };
    Ok((as_cidr(ftx, &this)?, arg))
}

/// The receiver of a member function of no arguments.
fn this(ftx: &FunctionContext, args: &[Value]) -> Result<Cidr, ExecutionError> {
    let this = receiver(ftx)?;
    if !args.is_empty() {
        return Err(unvouched(ftx.name, "expects no argument"));
    }
    as_cidr(ftx, &this)
}

fn opaque(c: Cidr) -> Value {
    Value::Opaque(Arc::new(c))
}

/// `cidr(<string>)`: the prefix, an error when `parseCIDR` refuses the string.
fn cidr(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    let raw = string_argument(ftx, &args)?;
    parse(&raw).map(opaque).map_err(|e| unvouched("cidr", e))
}

/// `isCIDR(<string>)`: whether `parseCIDR` takes it.
fn is_cidr(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    let raw = string_argument(ftx, &args)?;
    match parse(&raw) {
        Ok(_) => Ok(Value::Bool(true)),
        Err(IpError::Refused(_)) => Ok(Value::Bool(false)),
        Err(e) => Err(unvouched("isCIDR", e)),
    }
}

/// `<CIDR>.containsIP(<IP | string>)`: an error when the string is not an address.
fn contains_ip(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    let (c, arg) = with_argument(ftx, &args)?;
    let ip = match arg {
        Value::String(s) => ip::parse(s).map_err(|e| unvouched("containsIP", e))?,
        Value::Opaque(o) => *o.downcast_ref::<Ip>().ok_or_else(|| unvouched("containsIP", "expects an IP"))?,
        _ => return Err(unvouched("containsIP", "expects an IP")),
    };
    Ok(Value::Bool(c.contains(&ip)))
}

/// `<CIDR>.containsCIDR(<CIDR | string>)`: the other overlaps it and is no shorter.
fn contains_cidr(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    let (c, arg) = with_argument(ftx, &args)?;
    let other = match arg {
        Value::String(s) => parse(s).map_err(|e| unvouched("containsCIDR", e))?,
        other => as_cidr(ftx, other)?,
    };
    Ok(Value::Bool(c.overlaps(&other) && c.bits <= other.bits))
}

/// `<CIDR>.ip()`: the address as written (not masked).
pub(super) fn address(ftx: &FunctionContext, args: &[Value]) -> ResolveResult {
    Ok(Value::Opaque(Arc::new(this(ftx, args)?.addr)))
}

/// `<CIDR>.masked()`.
fn masked(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    Ok(opaque(this(ftx, &args)?.masked()))
}

/// `<CIDR>.prefixLength()`.
fn prefix_length(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    Ok(Value::Int(this(ftx, &args)?.bits.into()))
}

#[cfg(test)]
mod tests {

    use super::super::calls::{assert_all, assert_unvouched, eval};

    #[test]
    fn the_examples_of_the_apiserver_cidr_library() {
        // cidr.go's doc examples (its "cidr('192.168.0.1/16') // error" is not what ParsePrefix does:
        // it keeps the bits past the length, as the doc's own `.ip()` and `.masked()` examples show).
        assert_all(&[
            "isCIDR('192.168.0.0/16') && isCIDR('::1/128') && !isCIDR('192.168.0.0/33') && !isCIDR('::1/129')",
            "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1')) && !cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))",
            "cidr('192.168.0.0/24').containsIP('192.168.0.1') && !cidr('192.168.0.0/24').containsIP('192.168.1.1')",
            "cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24')) && !cidr('192.168.1.0/24').containsCIDR(cidr('192.168.2.0/24'))",
            "cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24') && !cidr('192.168.1.0/24').containsCIDR('192.168.2.0/24')",
            "cidr('192.168.0.1/24').ip() == ip('192.168.0.1') && cidr('192.168.0.1/24').ip().family() == 4",
            "cidr('::1/128').ip() == ip('::1') && cidr('::1/128').ip().family() == 6",
            "cidr('192.168.0.0/24').masked() == cidr('192.168.0.0/24') && cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')",
            "cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked() && !(cidr('192.168.0.1/24') == cidr('192.168.0.1/24').masked())",
            "cidr('192.168.0.0/16').prefixLength() == 16 && cidr('::1/128').prefixLength() == 128",
        ]);
        assert_unvouched("cidr('192.168.0.0/33')");
    }

    #[test]
    fn prefixes_follow_parse_prefix_contains_and_overlaps() {
        // ParsePrefix: a '/' is needed, the length has no sign and no leading zero; parseCIDR refuses an
        // IPv4-mapped address; Contains and Overlaps never match across families; a /0 holds all of
        // its family; containsCIDR needs the other to be no shorter.
        assert_all(&[
            "!isCIDR('10.0.0.0') && !isCIDR('10.0.0.0/08') && !isCIDR('10.0.0.0/+8') && !isCIDR('10.0.0.0/') && isCIDR('10.0.0.0/0')",
            "!isCIDR('::ffff:10.0.0.0/104') && !isCIDR('fe80::%eth0/64')",
            "!cidr('0.0.0.0/0').containsIP('::1') && cidr('0.0.0.0/0').containsIP('8.8.8.8') && cidr('::/0').containsIP('2001:db8::1')",
            "!cidr('::/0').containsCIDR('10.0.0.0/8') && !cidr('10.0.0.0/16').containsCIDR('10.0.0.0/8') && cidr('10.0.0.0/8').containsCIDR('10.0.0.0/8')",
            "cidr('2001:db8::/32').containsIP('2001:db8:ffff::1') && !cidr('2001:db8::/32').containsIP('2001:db9::1')",
            "cidr('10.1.2.3/32').containsIP('10.1.2.3') && !cidr('10.1.2.3/32').containsIP('10.1.2.4')",
        ]);
        assert_unvouched("cidr('10.0.0.0/8').containsIP('not-an-ip')");
        // The interpreter's own `string` does not take a CIDR: an error naming its type, cannot-evaluate.
        let e = eval("string(cidr('10.0.0.0/8')) == '10.0.0.0/8'").unwrap_err();
        assert!(super::super::calls::involves_library_type(&e), "{e:?}");
    }
}
