//! The parts of Go's `encoding/json` that the apiserver's patch path relies on, reproduced on raw
//! bytes: the syntax check with Go's messages, raw-value slicing (what `json.RawMessage` keeps),
//! string unquoting, `json.Compact`, and the encoder's string escaping.
//!
//! Everything except [`validate`] assumes its input has already been validated.

use serde_json::{Map, Number, Value};

/// Go's `*json.SyntaxError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Go's text, e.g. `invalid character 'x' after top-level value`.
    pub message: String,
    /// Bytes read when the error was found.
    pub offset: usize,
}

/// Go's scanner `maxNestingDepth`: more nested arrays and objects than this are a syntax error.
pub(crate) const MAX_NESTING_DEPTH: usize = 10_000;
const HEX: &[u8; 16] = b"0123456789abcdef";

/// JSON whitespace, as Go's scanner has it: space, tab, CR, LF.
pub fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// The index of the first byte at or after `i` that is not JSON whitespace.
pub fn skip_space(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_space(b[i]) {
        i += 1;
    }
    i
}

// ---------------------------------------------------------------------------------------------
// Fast scanning over the plain bytes of strings, eight at a time. The byte loops below only ever
// use these to skip bytes they would have copied or passed over one by one anyway.

/// `"` and `\\` stop a scan (always).
const STOP_QUOTE: u8 = 0;
/// Control characters (below 0x20) stop a scan.
const STOP_CTRL: u8 = 1;
/// `<`, `>`, `&` and 0xe2 (the first byte of U+2028 and U+2029) stop a scan.
const STOP_HTML: u8 = 2;

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

#[inline(always)]
fn has_zero_byte(x: u64) -> bool {
    x.wrapping_sub(LO) & !x & HI != 0
}

#[inline(always)]
fn has_byte(x: u64, c: u8) -> bool {
    has_zero_byte(x ^ (LO * u64::from(c)))
}

/// Some byte is below `n` (`n` at most 0x80).
#[inline(always)]
fn has_below(x: u64, n: u8) -> bool {
    x.wrapping_sub(LO * u64::from(n)) & !x & HI != 0
}

#[inline(always)]
fn stops<const SET: u8>(c: u8) -> bool {
    c == b'"'
        || c == b'\\'
        || (SET & STOP_CTRL != 0 && c < 0x20)
        || (SET & STOP_HTML != 0 && matches!(c, b'<' | b'>' | b'&' | 0xe2))
}

/// The first index at or after `i` whose byte stops a scan of kind `SET` (or `b.len()`).
#[inline]
fn plain_end<const SET: u8>(b: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = b.get(i..i + 8) {
        let x = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let mut hit = has_byte(x, b'"') || has_byte(x, b'\\');
        if SET & STOP_CTRL != 0 {
            hit = hit || has_below(x, 0x20);
        }
        if SET & STOP_HTML != 0 {
            hit = hit || has_byte(x, b'<') || has_byte(x, b'>') || has_byte(x, b'&') || has_byte(x, 0xe2);
        }
        if hit {
            break;
        }
        i += 8;
    }
    while i < b.len() && !stops::<SET>(b[i]) {
        i += 1;
    }
    i
}

// ---------------------------------------------------------------------------------------------
// Syntax check: a port of the state machine of Go's encoding/json scanner, so that messages
// (including the ones produced at end of input) are Go's.

#[derive(Clone, Copy)]
enum Step {
    BeginValue,
    BeginValueOrEmpty,
    BeginStringOrEmpty,
    BeginString,
    EndValue,
    EndTop,
    InString,
    InStringEsc,
    InStringEscU(u8),
    Neg,
    One,
    Zero,
    Dot,
    Dot0,
    E,
    ESign,
    E0,
    Literal(&'static [u8], usize),
    Error,
}

#[derive(Clone, Copy)]
enum ParseState {
    ObjectKey,
    ObjectValue,
    ArrayValue,
}

struct Scanner {
    step: Step,
    parse: Vec<ParseState>,
    end_top: bool,
    bytes: usize,
    err: Option<SyntaxError>,
}

impl Scanner {
    fn error(&mut self, c: u8, context: &str) {
        self.step = Step::Error;
        self.err = Some(SyntaxError {
            message: format!("invalid character {} {}", quote_char(c), context),
            offset: self.bytes,
        });
    }

    fn push(&mut self, c: u8, state: ParseState, next: Step) {
        self.parse.push(state);
        if self.parse.len() <= MAX_NESTING_DEPTH {
            self.step = next;
        } else {
            self.error(c, "exceeded max depth");
        }
    }

    fn pop(&mut self) {
        self.parse.pop();
        if self.parse.is_empty() {
            self.step = Step::EndTop;
            self.end_top = true;
        } else {
            self.step = Step::EndValue;
        }
    }

    fn feed(&mut self, c: u8) {
        match self.step {
            Step::BeginValueOrEmpty => {
                if is_space(c) {
                } else if c == b']' {
                    self.end_value(c);
                } else {
                    self.begin_value(c);
                }
            }
            Step::BeginValue => self.begin_value(c),
            Step::BeginStringOrEmpty => {
                if is_space(c) {
                } else if c == b'}' {
                    if let Some(last) = self.parse.last_mut() {
                        *last = ParseState::ObjectValue;
                    }
                    self.end_value(c);
                } else {
                    self.begin_string(c);
                }
            }
            Step::BeginString => self.begin_string(c),
            Step::EndValue => self.end_value(c),
            Step::EndTop => {
                if !is_space(c) {
                    self.error(c, "after top-level value");
                }
            }
            Step::InString => {
                if c == b'"' {
                    self.step = Step::EndValue;
                } else if c == b'\\' {
                    self.step = Step::InStringEsc;
                } else if c < 0x20 {
                    self.error(c, "in string literal");
                }
            }
            Step::InStringEsc => match c {
                b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => self.step = Step::InString,
                b'u' => self.step = Step::InStringEscU(0),
                _ => self.error(c, "in string escape code"),
            },
            Step::InStringEscU(k) => {
                if c.is_ascii_hexdigit() {
                    self.step = if k == 3 { Step::InString } else { Step::InStringEscU(k + 1) };
                } else {
                    self.error(c, "in \\u hexadecimal character escape");
                }
            }
            Step::Neg => match c {
                b'0' => self.step = Step::Zero,
                b'1'..=b'9' => self.step = Step::One,
                _ => self.error(c, "in numeric literal"),
            },
            Step::One => {
                if !c.is_ascii_digit() {
                    self.zero(c);
                }
            }
            Step::Zero => self.zero(c),
            Step::Dot => {
                if c.is_ascii_digit() {
                    self.step = Step::Dot0;
                } else {
                    self.error(c, "after decimal point in numeric literal");
                }
            }
            Step::Dot0 => {
                if c == b'e' || c == b'E' {
                    self.step = Step::E;
                } else if !c.is_ascii_digit() {
                    self.end_value(c);
                }
            }
            Step::E => {
                if c == b'+' || c == b'-' {
                    self.step = Step::ESign;
                } else {
                    self.e_sign(c);
                }
            }
            Step::ESign => self.e_sign(c),
            Step::E0 => {
                if !c.is_ascii_digit() {
                    self.end_value(c);
                }
            }
            Step::Literal(lit, pos) => {
                if c == lit[pos] {
                    self.step = if pos + 1 == lit.len() { Step::EndValue } else { Step::Literal(lit, pos + 1) };
                } else {
                    let context =
                        format!("in literal {} (expecting {})", String::from_utf8_lossy(lit), quote_char(lit[pos]));
                    self.error(c, &context);
                }
            }
            Step::Error => {}
        }
    }

    fn begin_value(&mut self, c: u8) {
        match c {
            _ if is_space(c) => {}
            b'{' => self.push(c, ParseState::ObjectKey, Step::BeginStringOrEmpty),
            b'[' => self.push(c, ParseState::ArrayValue, Step::BeginValueOrEmpty),
            b'"' => self.step = Step::InString,
            b'-' => self.step = Step::Neg,
            b'0' => self.step = Step::Zero,
            b'1'..=b'9' => self.step = Step::One,
            b't' => self.step = Step::Literal(b"true", 1),
            b'f' => self.step = Step::Literal(b"false", 1),
            b'n' => self.step = Step::Literal(b"null", 1),
            _ => self.error(c, "looking for beginning of value"),
        }
    }

    fn begin_string(&mut self, c: u8) {
        if is_space(c) {
        } else if c == b'"' {
            self.step = Step::InString;
        } else {
            self.error(c, "looking for beginning of object key string");
        }
    }

    fn end_value(&mut self, c: u8) {
        let Some(&ps) = self.parse.last() else {
            self.step = Step::EndTop;
            self.end_top = true;
            if !is_space(c) {
                self.error(c, "after top-level value");
            }
            return;
        };
        if is_space(c) {
            self.step = Step::EndValue;
            return;
        }
        let n = self.parse.len() - 1;
        match ps {
            ParseState::ObjectKey => {
                if c == b':' {
                    self.parse[n] = ParseState::ObjectValue;
                    self.step = Step::BeginValue;
                } else {
                    self.error(c, "after object key");
                }
            }
            ParseState::ObjectValue => {
                if c == b',' {
                    self.parse[n] = ParseState::ObjectKey;
                    self.step = Step::BeginString;
                } else if c == b'}' {
                    self.pop();
                } else {
                    self.error(c, "after object key:value pair");
                }
            }
            ParseState::ArrayValue => {
                if c == b',' {
                    self.step = Step::BeginValue;
                } else if c == b']' {
                    self.pop();
                } else {
                    self.error(c, "after array element");
                }
            }
        }
    }

    fn zero(&mut self, c: u8) {
        if c == b'.' {
            self.step = Step::Dot;
        } else if c == b'e' || c == b'E' {
            self.step = Step::E;
        } else {
            self.end_value(c);
        }
    }

    fn e_sign(&mut self, c: u8) {
        if c.is_ascii_digit() {
            self.step = Step::E0;
        } else {
            self.error(c, "in exponent of numeric literal");
        }
    }
}

/// Go's `checkValid`: the whole input must be exactly one JSON value (surrounding whitespace
/// allowed). Invalid UTF-8 inside strings is accepted, as Go does.
pub fn validate(data: &[u8]) -> Result<(), SyntaxError> {
    let mut s = Scanner { step: Step::BeginValue, parse: Vec::new(), end_top: false, bytes: 0, err: None };
    let mut i = 0;
    while i < data.len() {
        if let Step::InString = s.step {
            // Plain string bytes change nothing but the count.
            let end = plain_end::<STOP_CTRL>(data, i);
            s.bytes += end - i;
            i = end;
            if i == data.len() {
                break;
            }
        }
        let c = data[i];
        i += 1;
        s.bytes += 1;
        s.feed(c);
        if let Some(err) = s.err.take() {
            return Err(err);
        }
    }
    // Go's scanner.eof(): finish a pending number or literal as if a space followed.
    if s.end_top {
        return Ok(());
    }
    s.feed(b' ');
    if let Some(err) = s.err.take() {
        return Err(err);
    }
    if s.end_top {
        return Ok(());
    }
    Err(SyntaxError { message: "unexpected end of JSON input".to_string(), offset: s.bytes })
}

/// Go's `quoteChar`: the byte read as a rune (Latin-1), quoted with single quotes.
pub fn quote_char(c: u8) -> String {
    if c == b'\'' {
        return r"'\''".to_string();
    }
    if c == b'"' {
        return "'\"'".to_string();
    }
    let quoted = go_quote(&char::from(c).to_string());
    format!("'{}'", &quoted[1..quoted.len() - 1])
}

// ---------------------------------------------------------------------------------------------
// Raw slicing of already valid JSON.

/// The JSON kind of a raw value, as Go names it in `UnmarshalTypeError`.
pub fn kind_name(raw: &[u8]) -> &'static str {
    match raw.first() {
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b'"') => "string",
        Some(b't') | Some(b'f') => "bool",
        Some(b'n') => "null",
        _ => "number",
    }
}

fn string_end(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        i = plain_end::<STOP_QUOTE>(b, i);
        if i == b.len() {
            break;
        }
        match b[i] {
            b'"' => return i + 1,
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    b.len()
}

/// End (exclusive) of the valid JSON value starting at `start`.
pub fn value_end(b: &[u8], start: usize) -> usize {
    let mut i = start;
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = string_end(b, i);
                if depth == 0 {
                    return i;
                }
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
                if depth == 0 {
                    return i;
                }
            }
            _ if depth == 0 => {
                while i < b.len() && !matches!(b[i], b',' | b'}' | b']') && !is_space(b[i]) {
                    i += 1;
                }
                return i;
            }
            _ => i += 1,
        }
    }
    i
}

/// The single top-level value of a valid document, without surrounding whitespace: a valid
/// document ([`validate`]) is one value with only whitespace around it, so the value is what is
/// left of the document with that whitespace trimmed (no scan of the value).
pub fn top_value(b: &[u8]) -> &[u8] {
    let start = skip_space(b, 0);
    let end = b.iter().rposition(|&c| !is_space(c)).map_or(start, |last| last + 1).max(start);
    &b[start..end]
}

/// Members of a raw object: (raw quoted key, raw value), in document order, duplicates kept.
pub fn object_members(raw: &[u8]) -> Vec<(&[u8], &[u8])> {
    let mut out = Vec::new();
    let mut i = skip_space(raw, 1);
    if raw.get(i) == Some(&b'}') {
        return out;
    }
    while i < raw.len() {
        let key_end = string_end(raw, i);
        let key = &raw[i..key_end];
        i = skip_space(raw, key_end) + 1; // the ':'
        i = skip_space(raw, i);
        let end = value_end(raw, i);
        out.push((key, &raw[i..end]));
        i = skip_space(raw, end);
        if raw.get(i) == Some(&b',') {
            i = skip_space(raw, i + 1);
        } else {
            break;
        }
    }
    out
}

/// Elements of a raw array.
pub fn array_elements(raw: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut i = skip_space(raw, 1);
    if raw.get(i) == Some(&b']') {
        return out;
    }
    while i < raw.len() {
        let end = value_end(raw, i);
        out.push(&raw[i..end]);
        i = skip_space(raw, end);
        if raw.get(i) == Some(&b',') {
            i = skip_space(raw, i + 1);
        } else {
            break;
        }
    }
    out
}

/// Go's `utf8.DecodeRune`: `None` for an invalid or truncated sequence (which Go consumes as one
/// byte).
pub fn decode_rune(b: &[u8]) -> Option<(char, usize)> {
    let first = *b.first()?;
    let n = match first {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return None,
    };
    let s = std::str::from_utf8(b.get(..n)?).ok()?;
    s.chars().next().map(|c| (c, n))
}

fn hex4(b: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(b.get(..4)?).ok()?;
    u32::from_str_radix(s, 16).ok()
}

/// Go's unquoting of a valid raw JSON string (quotes included): escapes resolved, invalid UTF-8
/// and unpaired surrogates replaced by U+FFFD.
pub fn unquote(raw: &[u8]) -> String {
    let s = &raw[1..raw.len().saturating_sub(1).max(1)];
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        // A run without escapes that is valid UTF-8 is taken as it is.
        let end = plain_end::<STOP_QUOTE>(s, i);
        if end > i {
            match std::str::from_utf8(&s[i..end]) {
                Ok(text) => {
                    out.push_str(text);
                    i = end;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    out.push_str(std::str::from_utf8(&s[i..i + valid]).unwrap_or_default());
                    i += valid;
                }
            }
            if i == s.len() {
                break;
            }
        }
        let c = s[i];
        if c == b'\\' {
            let e = s.get(i + 1).copied().unwrap_or(b'\\');
            i += 2;
            match e {
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'n' => out.push('\n'),
                b'r' => out.push('\r'),
                b't' => out.push('\t'),
                b'u' => {
                    let r = hex4(&s[i.min(s.len())..]).unwrap_or(0xfffd);
                    i += 4;
                    if (0xd800..0xe000).contains(&r) {
                        // A surrogate: valid only as a high half followed by an escaped low half.
                        let low = if s.get(i) == Some(&b'\\') && s.get(i + 1) == Some(&b'u') {
                            hex4(&s[(i + 2).min(s.len())..])
                        } else {
                            None
                        };
                        match low {
                            Some(lo) if (0xd800..0xdc00).contains(&r) && (0xdc00..0xe000).contains(&lo) => {
                                let cp = 0x10000 + ((r - 0xd800) << 10) + (lo - 0xdc00);
                                out.push(char::from_u32(cp).unwrap_or('\u{fffd}'));
                                i += 6;
                            }
                            _ => out.push('\u{fffd}'),
                        }
                    } else {
                        out.push(char::from_u32(r).unwrap_or('\u{fffd}'));
                    }
                }
                other => out.push(char::from(other)),
            }
        } else if c < 0x80 {
            out.push(char::from(c));
            i += 1;
        } else {
            match decode_rune(&s[i..]) {
                Some((ch, n)) => {
                    out.push(ch);
                    i += n;
                }
                None => {
                    out.push('\u{fffd}');
                    i += 1;
                }
            }
        }
    }
    out
}

/// Go's `json.Compact` (`escape_html == false`) or the compaction `json.Marshal` applies to a
/// `json.RawMessage` (`escape_html == true`: `<`, `>`, `&`, U+2028 and U+2029 escaped).
pub(crate) fn compact(raw: &[u8], escape_html: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    compact_into(raw, escape_html, &mut out);
    out
}

/// [`compact`], appending to `out`.
pub(crate) fn compact_into(raw: &[u8], escape_html: bool, out: &mut Vec<u8>) {
    out.reserve(raw.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut i = 0;
    while i < raw.len() {
        if in_string && !escaped {
            // Plain string bytes are copied as they are.
            let end = if escape_html { plain_end::<STOP_HTML>(raw, i) } else { plain_end::<STOP_QUOTE>(raw, i) };
            out.extend_from_slice(&raw[i..end]);
            i = end;
            if i == raw.len() {
                break;
            }
        }
        let c = raw[i];
        if escape_html && matches!(c, b'<' | b'>' | b'&') {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(c >> 4)]);
            out.push(HEX[usize::from(c & 0xf)]);
            i += 1;
            continue;
        }
        if escape_html && c == 0xe2 && i + 2 < raw.len() && raw[i + 1] == 0x80 && raw[i + 2] & !1 == 0xa8 {
            out.extend_from_slice(b"\\u202");
            out.push(HEX[usize::from(raw[i + 2] & 0xf)]);
            i += 3;
            continue;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_string = false;
            }
        } else if c == b'"' {
            in_string = true;
        } else if is_space(c) {
            i += 1;
            continue;
        }
        out.push(c);
        i += 1;
    }
}

/// Go's encoder for a string (`json.Marshal`, HTML escaping on).
pub(crate) fn encode_string(s: &str, out: &mut Vec<u8>) {
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.push(b'"');
    let mut i = 0;
    while i < b.len() {
        let end = plain_end::<{ STOP_CTRL | STOP_HTML }>(b, i);
        out.extend_from_slice(&b[i..end]);
        i = end;
        let Some(&c) = b.get(i) else { break };
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x8 => out.extend_from_slice(b"\\b"),
            0xc => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'<' | b'>' | b'&' | 0x00..=0x1f => {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(c >> 4)]);
                out.push(HEX[usize::from(c & 0xf)]);
            }
            _ => {
                // 0xe2: U+2028 and U+2029 are escaped, any other character starting with it is not.
                if b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0xa8 | 0xa9)) {
                    out.extend_from_slice(b"\\u202");
                    out.push(HEX[usize::from(b[i + 2] & 0xf)]);
                    i += 3;
                    continue;
                }
                out.push(c);
            }
        }
        i += 1;
    }
    out.push(b'"');
}

/// The document bytes for a `serde_json::Value`: Go's string escaping (as the apiserver's own
/// encoder writes strings), serde_json's number text (so `1.0` stays `1.0`), no whitespace. The
/// bytes are valid JSON by construction: their [`nesting`] is all Go's scanner could still refuse
/// of them.
pub(crate) fn encode_value(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => encode_number(n, out),
        Value::String(s) => encode_string(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                encode_value(item, out);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                encode_string(k, out);
                out.push(b':');
                encode_value(item, out);
            }
            out.push(b'}');
        }
    }
}

/// The deepest nesting of arrays and objects in `v` (0 for a scalar): that of the text
/// [`encode_value`] writes of it.
pub(crate) fn nesting(v: &Value) -> usize {
    match v {
        Value::Array(items) => 1 + items.iter().map(nesting).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}

/// A number's text as serde_json writes it (its `Display`), without an intermediate `String`.
fn encode_number(n: &serde_json::Number, out: &mut Vec<u8>) {
    use std::io::Write as _;
    // Writing to a Vec cannot fail.
    let _ = write!(out, "{n}");
}

/// A raw (valid) JSON value as a `serde_json::Value`. Strings are unquoted as Go does; for
/// duplicate object keys the last wins. A number serde_json cannot hold is an error carrying its
/// text, or with `lossy` becomes a string of that text. Iterative, so that deep nesting (Go allows
/// 10000 levels) does not exhaust the stack.
pub(crate) fn raw_to_value(raw: &[u8], lossy: bool) -> Result<Value, String> {
    // serde_json's parser reads the same value whenever it accepts the text at all (valid
    // UTF-8, no unpaired surrogate escapes, numbers it can hold, at most 128 levels): its number
    // parsing is the one used below, and duplicate keys resolve to the last one as below.
    // Anything it rejects goes the long way, which reproduces Go's reading of it.
    if let Ok(value) = serde_json::from_slice::<Value>(raw) {
        return Ok(value);
    }
    raw_to_value_go(raw, lossy)
}

/// [`raw_to_value`] the long way, for any valid input.
fn raw_to_value_go(raw: &[u8], lossy: bool) -> Result<Value, String> {
    enum Frame {
        Array(Vec<Value>),
        Object(Map<String, Value>, Option<String>),
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    loop {
        while i < raw.len() && (is_space(raw[i]) || raw[i] == b',' || raw[i] == b':') {
            i += 1;
        }
        let Some(&c) = raw.get(i) else {
            return Ok(Value::Null);
        };
        let value = match c {
            b'{' => {
                stack.push(Frame::Object(Map::new(), None));
                i += 1;
                continue;
            }
            b'[' => {
                stack.push(Frame::Array(Vec::new()));
                i += 1;
                continue;
            }
            b'}' | b']' => {
                i += 1;
                match stack.pop() {
                    Some(Frame::Array(items)) => Value::Array(items),
                    Some(Frame::Object(map, _)) => Value::Object(map),
                    None => Value::Null,
                }
            }
            b'"' => {
                let end = string_end(raw, i);
                let text = unquote(&raw[i..end]);
                i = end;
                if let Some(Frame::Object(_, pending @ None)) = stack.last_mut() {
                    *pending = Some(text);
                    continue;
                }
                Value::String(text)
            }
            _ => {
                let end = value_end(raw, i);
                let token = &raw[i..end];
                i = end;
                match c {
                    b't' => Value::Bool(true),
                    b'f' => Value::Bool(false),
                    b'n' => Value::Null,
                    _ => match serde_json::from_slice::<Number>(token) {
                        Ok(n) => Value::Number(n),
                        Err(_) if lossy => Value::String(String::from_utf8_lossy(token).into_owned()),
                        Err(_) => return Err(String::from_utf8_lossy(token).into_owned()),
                    },
                }
            }
        };
        match stack.last_mut() {
            None => return Ok(value),
            Some(Frame::Array(items)) => items.push(value),
            Some(Frame::Object(map, pending)) => {
                map.insert(pending.take().unwrap_or_default(), value);
            }
        }
    }
}

/// Drop a `Value` without recursing (serde_json's drop recurses once per nesting level).
pub(crate) fn dispose(value: Value) {
    let mut pending = vec![value];
    while let Some(v) = pending.pop() {
        match v {
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// Go's `unicode.IsPrint`, approximated without Unicode tables: control, format, separator,
/// private-use and non-character code points are not printable.
fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let u = c as u32;
    !matches!(u,
        0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x890..=0x891 | 0x8e2 | 0x180e
        | 0x200b..=0x200f | 0x202a..=0x202e | 0x2060..=0x2064 | 0x2066..=0x206f
        | 0xe000..=0xf8ff | 0xfdd0..=0xfdef | 0xfeff | 0xfff9..=0xfffb | 0xfffe..=0xffff
        | 0x110bd | 0x110cd | 0x1bca0..=0x1bca3 | 0x1d173..=0x1d17a | 0xe0001 | 0xe0020..=0xe007f
        | 0xf0000..=0x10ffff)
        && (u & 0xfffe) != 0xfffe
}

/// Go's `strconv.Quote`.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            _ if is_print(c) => out.push(c),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            _ if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            _ if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            _ => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> String {
        validate(s.as_bytes()).unwrap_err().message
    }

    #[test]
    fn go_syntax_messages() {
        assert_eq!(err(""), "unexpected end of JSON input");
        assert_eq!(err("[{"), "unexpected end of JSON input");
        assert_eq!(err("x"), "invalid character 'x' looking for beginning of value");
        assert_eq!(err("[1,]"), "invalid character ']' looking for beginning of value");
        assert_eq!(err("[] x"), "invalid character 'x' after top-level value");
        assert_eq!(err("01"), "invalid character '1' after top-level value");
        assert_eq!(err("{\"a\" 1}"), "invalid character '1' after object key");
        assert_eq!(err("{\"a\":1 2}"), "invalid character '2' after object key:value pair");
        assert_eq!(err("[1 2]"), "invalid character '2' after array element");
        assert_eq!(err("{1:2}"), "invalid character '1' looking for beginning of object key string");
        assert_eq!(err("1."), "invalid character ' ' after decimal point in numeric literal");
        assert_eq!(err("[tru"), "invalid character ' ' in literal true (expecting 'e')");
        assert_eq!(err("nul x"), "invalid character ' ' in literal null (expecting 'l')");
        assert_eq!(err("\"\\x\""), "invalid character 'x' in string escape code");
        assert_eq!(err("\"\u{1}\""), "invalid character '\\x01' in string literal");
        assert_eq!(err("'a'"), "invalid character '\\'' looking for beginning of value");
        assert_eq!(
            validate(b"\xef\xbb\xbf[]").unwrap_err().message,
            "invalid character '\u{ef}' looking for beginning of value"
        );
        assert!(validate(b" [1, {\"a\": \"\xff\"}] ").is_ok());
    }

    /// The trimmed top value is the one value a scan from its start finds, over every valid
    /// document of the library's vectors (each patch and each document) with whitespace around.
    #[test]
    fn the_top_value_of_a_valid_document_is_it_trimmed() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/vectors/jsonpatch-v4.json")).unwrap();
        let all: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut documents: Vec<Vec<u8>> =
            vec![b"1".to_vec(), b"\"a b\"".to_vec(), b"null".to_vec(), b"-0.5e3".to_vec()];
        for vector in all["patch"].as_array().unwrap() {
            for field in ["doc", "patch"] {
                documents.push(serde_json::to_vec(&vector[field]).unwrap());
                documents.push(serde_json::to_vec_pretty(&vector[field]).unwrap());
            }
        }
        let mut compared = 0;
        for doc in documents {
            for (before, after) in [("", ""), (" \n", "\r\n\t "), ("\t", "")] {
                let framed = [before.as_bytes(), &doc, after.as_bytes()].concat();
                assert!(validate(&framed).is_ok());
                let start = skip_space(&framed, 0);
                assert_eq!(top_value(&framed), &framed[start..value_end(&framed, start)]);
                compared += 1;
            }
        }
        assert!(compared > 300, "{compared} documents");
    }

    #[test]
    fn unquote_like_go() {
        assert_eq!(unquote(br#""a\u0041\/\n""#), "aA/\n");
        assert_eq!(unquote(br#""\ud83d\ude00""#), "\u{1f600}");
        assert_eq!(unquote(br#""\ud83dx""#), "\u{fffd}x");
        assert_eq!(unquote(br#""\ud83d\u0041""#), "\u{fffd}A");
        assert_eq!(unquote(b"\"\xe2\x82A\""), "\u{fffd}\u{fffd}A");
    }

    #[test]
    fn raw_values_read_alike_both_ways() {
        let cases: &[&[u8]] = &[
            br#"{"a":1,"b":[1.0,-0,0.5e-3,1E5,18446744073709551615,18446744073709551616,-9223372036854775809]}"#,
            br#"{"a":1,"a":2,"b":{"c":null,"c":[true,false]}}"#,
            br#"["\u003c\u0026\u003e","\ud83d\ude00","\u2028","\/\b\f\n\r\t\"\\","\u00e9x"]"#,
            " [ 1 , { \"k\" : \"v\" } ] ".as_bytes(),
            "\"héllo ✓ \u{2028}\"".as_bytes(),
            br#""\ud83dx""#,
            br#""\udc00""#,
            br#""\ud83d\u0041""#,
            b"\"\xe2\x82A\"",
            b"\"\xff\"",
            b"[1e400]",
            b"-0.0",
            b"{}",
            b"[]",
            b"null",
        ];
        for raw in cases {
            let slow = raw_to_value_go(raw, true).unwrap();
            assert_eq!(raw_to_value(raw, true).unwrap(), slow, "{}", String::from_utf8_lossy(raw));
            if let Ok(fast) = serde_json::from_slice::<Value>(raw) {
                // Same values, numbers of the same kind.
                assert_eq!(fast, slow, "{}", String::from_utf8_lossy(raw));
                assert_eq!(fast.to_string(), slow.to_string());
            }
        }
        assert_eq!(raw_to_value(b"[1e400]", false), Err("1e400".to_string()));
        let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
        let fast = raw_to_value(deep.as_bytes(), false).unwrap();
        let slow = raw_to_value_go(deep.as_bytes(), false).unwrap();
        assert!(fast == slow);
        dispose(fast);
        dispose(slow);
    }

    #[test]
    fn compact_and_encode() {
        assert_eq!(compact(b"{ \"a\" : [1, \"x y\"] }", false), b"{\"a\":[1,\"x y\"]}");
        assert_eq!(compact(b"\"<&>\"", true), b"\"\\u003c\\u0026\\u003e\"");
        let mut out = Vec::new();
        encode_string("a<\u{1}\u{8}\u{2028}é", &mut out);
        assert_eq!(out, "\"a\\u003c\\u0001\\b\\u2028é\"".as_bytes());
    }

    #[test]
    fn quoting() {
        assert_eq!(go_quote("a\"b\\\n\u{0}\u{a0}ü"), "\"a\\\"b\\\\\\n\\x00\\u00a0ü\"");
        assert_eq!(quote_char(b'"'), "'\"'");
        assert_eq!(quote_char(0x85), "'\\u0085'");
    }
}
