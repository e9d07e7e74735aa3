//! The Kubernetes URL library (`k8s.io/apiserver/pkg/cel/library/urls.go`): `url`, `isURL`, and
//! the members `getScheme`, `getHost`, `getHostname`, `getPort`, `getEscapedPath`, `getQuery`, with
//! the equality of `k8s.io/apiserver/pkg/cel/url.go` (the `String()` forms are equal).
//!
//! Ported from kube-cel 0.8 (kube-rs, <https://github.com/kube-rs/kube-cel>, Apache License 2.0:
//! `src/functions/urls.rs`), adapted to the `cel` 0.15 interpreter and reworked to follow Go's
//! `net/url` (`url.go`: `parse`, `getScheme`, `parseHost`, `setPath`, `EscapedPath`, `unescape`,
//! `shouldEscape`, `parseQuery`, `splitHostPort`, `String`) where the port follows WHATWG rules:
//! `url()` is `ParseRequestURI` then `Parse`, `isURL` is `ParseRequestURI` alone. Not modelled, so
//! "cannot evaluate": a fragment (`#`) given to `url()`, and in an authority userinfo (`@`), IP
//! literals (`[`, `]`), `%`-escapes and more than one `:` (which Go releases treat differently).
//! Errors, whose cel-go wording the suite does not reproduce, are "cannot evaluate" too.

use std::sync::Arc;

use cel::extractors::Arguments;
use cel::objects::Opaque;
use cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};

use super::calls::{global, receiver, unvouched};
use super::value;

/// Why `net/url` refuses a string, or why the suite cannot tell.
#[derive(Debug, PartialEq, thiserror::Error)]
enum UrlError {
    /// Go refuses it (the reason, in the suite's words).
    #[error("{0}")]
    Refused(&'static str),
    /// What the suite does not model.
    #[error("{0} is not modelled by the suite")]
    Unmodelled(&'static str),
}

/// The sections of a URL `unescape` and `shouldEscape` tell apart.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Host,
    Path,
    QueryComponent,
}

/// `shouldEscape` for the modes the library reaches.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if mode == Mode::Host && b"!$&'()*+,;=:[]<>\"".contains(&c) {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => c == b'?',
            Mode::Host | Mode::QueryComponent => true,
        },
        _ => true,
    }
}

/// `unescape`: the bytes `%XX` stand for (and `+` a space in a query component), `None` for a
/// malformed escape or a byte a host may not hold.
fn unescape(s: &str, mode: Mode) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = s.get(i + 1..i + 3).filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            c => {
                if mode == Mode::Host && c < 0x80 && should_escape(c, mode) {
                    return None;
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Some(out)
}

/// `escape` for the host and path modes.
fn escape(s: &[u8], mode: Mode) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s {
        if should_escape(c, mode) {
            out.push_str(&format!("%{c:02X}"));
        } else {
            out.push(c as char);
        }
    }
    out
}

fn text(bytes: Vec<u8>) -> Result<String, UrlError> {
    String::from_utf8(bytes).map_err(|_| UrlError::Unmodelled("an escape that is not UTF-8"))
}

/// A `*url.URL` of a string without userinfo or fragment.
#[derive(Clone, Debug, Default)]
pub(crate) struct Url {
    scheme: String,
    opaque: String,
    host: String,
    path: String,
    raw_path: String,
    force_query: bool,
    raw_query: String,
}

impl PartialEq for Url {
    /// `apiservercel.URL.Equal`: the `String()` forms are equal.
    fn eq(&self, other: &Url) -> bool {
        self.string() == other.string()
    }
}

impl Eq for Url {}

impl Opaque for Url {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.URL"
    }
}

/// `getScheme`: the scheme and the rest, or no scheme.
fn split_scheme(raw: &str) -> Result<(&str, &str), UrlError> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err(UrlError::Refused("missing protocol scheme")),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// `validOptionalPort`: empty, or `:` and digits.
fn valid_optional_port(port: &str) -> bool {
    port.is_empty() || port.strip_prefix(':').is_some_and(|digits| digits.bytes().all(|c| c.is_ascii_digit()))
}

/// `parseHost` of an authority without userinfo or IP literal.
fn parse_host(authority: &str) -> Result<String, UrlError> {
    if authority.bytes().any(|c| matches!(c, b'@' | b'[' | b']' | b'%')) {
        return Err(UrlError::Unmodelled("an authority with userinfo, an IP literal or an escape"));
    }
    if let Some(i) = authority.rfind(':') {
        if !valid_optional_port(&authority[i..]) {
            return Err(UrlError::Refused("invalid port after host"));
        }
    }
    if authority.matches(':').count() > 1 {
        return Err(UrlError::Unmodelled("a host with more than one ':'"));
    }
    let host = unescape(authority, Mode::Host).ok_or(UrlError::Refused("invalid character in host name"))?;
    text(host)
}

impl Url {
    /// `net/url`'s `parse` (`via_request`: `ParseRequestURI`; otherwise `Parse` of a string
    /// without a fragment).
    fn parse(raw: &str, via_request: bool) -> Result<Url, UrlError> {
        if raw.bytes().any(|c| c < b' ' || c == 0x7f) {
            return Err(UrlError::Refused("net/url: invalid control character in URL"));
        }
        if raw.is_empty() && via_request {
            return Err(UrlError::Refused("empty url"));
        }
        let mut url = Url::default();
        if raw == "*" {
            url.path = "*".into();
            return Ok(url);
        }
        let (scheme, mut rest) = split_scheme(raw)?;
        url.scheme = scheme.to_ascii_lowercase();
        if rest.ends_with('?') && rest.matches('?').count() == 1 {
            url.force_query = true;
            rest = &rest[..rest.len() - 1];
        } else if let Some((before, query)) = rest.split_once('?') {
            url.raw_query = query.to_string();
            rest = before;
        }
        if !rest.starts_with('/') {
            if !url.scheme.is_empty() {
                url.opaque = rest.to_string();
                return Ok(url);
            }
            if via_request {
                return Err(UrlError::Refused("invalid URI for request"));
            }
            if rest.split('/').next().is_some_and(|segment| segment.contains(':')) {
                return Err(UrlError::Refused("first path segment in URL cannot contain colon"));
            }
        }
        if (!url.scheme.is_empty() || !via_request && !rest.starts_with("///")) && rest.starts_with("//") {
            let authority = &rest[2..];
            let (authority, path) = match authority.find('/') {
                Some(i) => (&authority[..i], &authority[i..]),
                None => (authority, ""),
            };
            url.host = parse_host(authority)?;
            rest = path;
        }
        url.set_path(rest)?;
        Ok(url)
    }

    /// `setPath`: the unescaped path, and the raw one when escaping the path does not give it back.
    fn set_path(&mut self, p: &str) -> Result<(), UrlError> {
        let path = unescape(p, Mode::Path).ok_or(UrlError::Refused("invalid URL escape"))?;
        self.raw_path = if escape(&path, Mode::Path) == p { String::new() } else { p.to_string() };
        self.path = text(path)?;
        Ok(())
    }

    /// `EscapedPath`.
    fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && valid_encoded(&self.raw_path)
            && unescape(&self.raw_path, Mode::Path).is_some_and(|p| p == self.path.as_bytes())
        {
            return self.raw_path.clone();
        }
        if self.path == "*" {
            return "*".into();
        }
        escape(self.path.as_bytes(), Mode::Path)
    }

    /// `splitHostPort` of the host (no IP literal).
    fn host_port(&self) -> (&str, &str) {
        match self.host.rfind(':') {
            Some(i) if valid_optional_port(&self.host[i..]) => (&self.host[..i], &self.host[i + 1..]),
            _ => (&self.host, ""),
        }
    }

    /// `String()`, without userinfo or fragment.
    fn string(&self) -> String {
        let mut buf = String::new();
        if !self.scheme.is_empty() {
            buf.push_str(&self.scheme);
            buf.push(':');
        }
        if !self.opaque.is_empty() {
            buf.push_str(&self.opaque);
        } else {
            if !self.scheme.is_empty() || !self.host.is_empty() {
                if !self.host.is_empty() || !self.path.is_empty() {
                    buf.push_str("//");
                }
                buf.push_str(&escape(self.host.as_bytes(), Mode::Host));
            }
            let path = self.escaped_path();
            if !path.is_empty() && !path.starts_with('/') && !self.host.is_empty() {
                buf.push('/');
            }
            if buf.is_empty() && path.split('/').next().is_some_and(|s| s.contains(':')) {
                buf.push_str("./");
            }
            buf.push_str(&path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            buf.push('?');
            buf.push_str(&self.raw_query);
        }
        buf
    }

    /// `Query()` (`parseQuery`, its errors dropped): the values of each key, in order.
    fn query(&self) -> Result<Vec<(String, Vec<String>)>, UrlError> {
        let mut values: Vec<(String, Vec<String>)> = Vec::new();
        for pair in self.raw_query.split('&') {
            if pair.contains(';') || pair.is_empty() {
                continue;
            }
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let (Some(k), Some(v)) = (unescape(k, Mode::QueryComponent), unescape(v, Mode::QueryComponent)) else {
                continue;
            };
            let (k, v) = (text(k)?, text(v)?);
            match values.iter_mut().find(|(key, _)| *key == k) {
                Some((_, list)) => list.push(v),
                None => values.push((k, vec![v])),
            }
        }
        Ok(values)
    }
}

/// `validEncoded` in the path mode: no byte escaping would change.
fn valid_encoded(s: &str) -> bool {
    s.bytes().all(|c| b"!$&'()*+,;=:@[]%".contains(&c) || !should_escape(c, Mode::Path))
}

/// `url()`: `ParseRequestURI`, then `Parse`.
fn parse_url(raw: &str) -> Result<Url, UrlError> {
    Url::parse(raw, true)?;
    if raw.contains('#') {
        return Err(UrlError::Unmodelled("a fragment"));
    }
    Url::parse(raw, false)
}

/// Register the library's functions on `context`.
pub(crate) fn register(context: &mut Context<'_, '_>) -> Result<(), cel::DeclarationError> {
    context.add_function("url", url)?;
    context.add_function("isURL", is_url)?;
    context.add_function("getScheme", get_scheme)?;
    context.add_function("getHost", get_host)?;
    context.add_function("getHostname", get_hostname)?;
    context.add_function("getPort", get_port)?;
    context.add_function("getEscapedPath", get_escaped_path)?;
    context.add_function("getQuery", get_query)?;
    Ok(())
}

fn string_argument(ftx: &FunctionContext, args: &[Value]) -> Result<Arc<String>, ExecutionError> {
    global(ftx)?;
    match args {
        [Value::String(s)] => Ok(s.clone()),
        _ => Err(unvouched(ftx.name, "expects one string")),
    }
}

/// The receiver of a getter.
fn this(ftx: &FunctionContext, args: &[Value]) -> Result<Url, ExecutionError> {
    let this = receiver(ftx)?;
    if !args.is_empty() {
        return Err(unvouched(ftx.name, "expects no argument"));
    }
    match &this {
        Value::Opaque(o) => o.downcast_ref::<Url>().cloned().ok_or_else(|| unvouched(ftx.name, "expects a URL")),
        _ => Err(unvouched(ftx.name, "expects a URL")),
    }
}

/// `url(<string>)`: the URL, an error when `ParseRequestURI` or `Parse` refuses the string.
fn url(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    let raw = string_argument(ftx, &args)?;
    parse_url(&raw).map(|u| Value::Opaque(Arc::new(u))).map_err(|e| unvouched("url", e))
}

/// `isURL(<string>)`: whether `ParseRequestURI` takes it.
fn is_url(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    let raw = string_argument(ftx, &args)?;
    match Url::parse(&raw, true) {
        Ok(_) => Ok(Value::Bool(true)),
        Err(UrlError::Refused(_)) => Ok(Value::Bool(false)),
        Err(e) => Err(unvouched("isURL", e)),
    }
}

/// `<URL>.getScheme()`.
fn get_scheme(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    Ok(value::string(&this(ftx, &args)?.scheme))
}

/// `<URL>.getHost()`: host and port as written.
fn get_host(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    Ok(value::string(&this(ftx, &args)?.host))
}

/// `<URL>.getHostname()`: the host without its port.
fn get_hostname(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    Ok(value::string(this(ftx, &args)?.host_port().0))
}

/// `<URL>.getPort()`: the port, "" when there is none.
fn get_port(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    Ok(value::string(this(ftx, &args)?.host_port().1))
}

/// `<URL>.getEscapedPath()`.
fn get_escaped_path(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    Ok(value::string(&this(ftx, &args)?.escaped_path()))
}

/// `<URL>.getQuery()`: a map of each key to its values.
fn get_query(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    let query = this(ftx, &args)?.query().map_err(|e| unvouched("getQuery", e))?;
    let entries = query
        .iter()
        .map(|(k, vs)| (k.as_str(), Value::List(Arc::new(vs.iter().map(|v| value::string(v)).collect()))))
        .collect();
    Ok(value::map(entries))
}

#[cfg(test)]
mod tests {

    use super::super::calls::{assert_all, assert_unvouched};

    #[test]
    fn the_examples_of_the_apiserver_urls_library() {
        // urls.go's doc examples (those without userinfo, IP literals or a fragment).
        assert_all(&[
            "isURL('/absolute-path') && !isURL('https://a:b:c/') && !isURL('../relative-path')",
            "url('/path').getScheme() == '' && url('https://example.com/').getScheme() == 'https'",
            "url('https://example.com:80/').getHost() == 'example.com:80' && url('https://example.com/').getHost() == 'example.com'",
            "url('/path').getHost() == '' && url('/path').getHostname() == '' && url('/path').getPort() == ''",
            "url('https://example.com:80/').getHostname() == 'example.com' && url('https://127.0.0.1:80/').getHostname() == '127.0.0.1'",
            "url('https://example.com:80/').getPort() == '80' && url('https://example.com/').getPort() == ''",
            "url('https://example.com/path').getEscapedPath() == '/path'",
            "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
            "url('https://example.com').getEscapedPath() == ''",
            "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
            "url('https://example.com/path?key with spaces=value with spaces').getQuery() == {'key with spaces': ['value with spaces']}",
            "url('https://example.com/path?').getQuery() == {} && url('https://example.com/path').getQuery() == {}",
        ]);
        assert_unvouched("url('https://a:b:c/')");
        assert_unvouched("url('../relative-path')");
        // Userinfo, IP literals and fragments are not modelled: not judged.
        assert_unvouched("url('https://user:pass@example.com:80/path?query=val#fragment')");
        assert_unvouched("url('https://[::1]:80/').getHost()");
    }

    #[test]
    fn parsing_follows_net_url() {
        // net/url parse: the scheme is lowercased; a rootless path after a scheme is opaque; without a
        // scheme ParseRequestURI takes only an absolute path, and "//x" is a path to it but an
        // authority to Parse; a query ending the string in a lone "?" forces an empty query; a bad
        // escape or a host byte shouldEscape refuses is an error; EscapedPath keeps a RawPath that is
        // validEncoded ("%2F", "%41" stay) and otherwise escapes the path; parseQuery drops pairs with ';' or a bad escape and
        // reads '+' as a space; URL.Equal compares String().
        assert_all(&[
            "url('HTTPS://Example.com/A').getScheme() == 'https' && url('HTTPS://Example.com/A').getHost() == 'Example.com'",
            "isURL('mailto:someone') && url('mailto:someone').getEscapedPath() == '' && url('mailto:someone').getHost() == ''",
            "isURL('*') && !isURL('') && !isURL('example.com/path') && !isURL(':80') && !isURL('http://a b/')",
            "isURL('//host/p') && url('//host/p').getHost() == 'host' && url('//host/p').getEscapedPath() == '/p'",
            "!isURL('/a%zz') && !isURL('/a%4') && !isURL('http://a/\\n') && !isURL('http://a^b/')",
            "url('/a%2Fb').getEscapedPath() == '/a%2Fb' && url('/a%41').getEscapedPath() == '/a%41'",
            "url('/a%41 b').getEscapedPath() == '/aA%20b' && url('/a\"b').getEscapedPath() == '/a%22b'",
            "url('http://h:/p').getPort() == '' && url('http://h:/p').getHostname() == 'h' && url('http://h:/p').getHost() == 'h:'",
            "url('/p?a=1;b=2&c=%zz&d=x+y&e&=f').getQuery() == {'d': ['x y'], 'e': [''], '': ['f']}",
            "url('HTTP://h/p') == url('http://h/p') && !(url('http://h/p') == url('http://h/q'))",
            "url('/p?') == url('/p?') && !(url('/p?') == url('/p'))",
        ]);
        assert_unvouched("url('http://a/b').getScheme(1)");
        assert_unvouched("getScheme(url('http://a/b'))");
        assert_unvouched("'http://a/b'.url()");
    }
}
