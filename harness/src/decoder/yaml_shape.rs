//! One linear pass over a body the apiserver reads as YAML, following the token rules of go-yaml's
//! scanner (`go.yaml.in/yaml/v2` `scannerc.go`, which `sigs.k8s.io/yaml.YAMLToJSON` runs): what the
//! first node of the first document is, how deep its collections nest, and whether go-yaml stops
//! at its nesting limit. go-yaml refuses a flow level above 10000 (`max_flow_level`,
//! `yaml_parser_increase_flow_level`) and more than 10000 block indentation levels (`max_indents`,
//! `yaml_parser_roll_indent`) with `yaml: exceeded max depth of 10000` (`line N: ` before it when the
//! offending token is past the first line: `parser.fail` in `decode.go`), as soon as it scans that
//! token.
//!
//! The pass models comments, quoted, plain (multi-line) and block scalars, tags, anchors, aliases,
//! flow and block collections, simple keys and document markers. At anything else (a character no
//! token starts with, a tab in indentation, a lone CR or a Unicode line break) it stops and says the
//! rest is unread: what it found before that point still holds, since go-yaml scans the same prefix
//! the same way. Every byte is looked at a bounded number of times: the pass is linear in the body.

/// go-yaml's `max_flow_level` and `max_indents`.
pub(crate) const MAX_DEPTH: usize = 10_000;

/// The first node of the first document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Top {
    /// No node: an empty document (`null`).
    Nothing,
    /// A flow (`[`) or block (`- `) sequence: never an object.
    Sequence,
    /// A mapping (flow `{`, or a key followed by `:`).
    Mapping,
    /// A scalar (or an alias).
    Scalar,
    /// A node the pass cannot classify (tagged, or past where it stopped).
    Unknown,
}

/// What the pass found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// The first node.
    pub top: Top,
    /// go-yaml stops at its nesting limit: its message.
    pub exceeded: Option<String>,
    /// The deepest nesting of collections (flow levels plus block indentation levels) seen.
    pub depth: usize,
    /// The pass read the whole first document.
    pub complete: bool,
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
    line: usize,
    col: usize,
    flow: usize,
    indent: isize,
    indents: Vec<isize>,
    /// A possible simple key at flow level 0: its column, line, byte offset, and whether it is the
    /// document's first node.
    key: Option<(usize, usize, usize, bool)>,
    key_allowed: bool,
    top: Option<Top>,
    /// The next node carries a tag.
    tagged: bool,
    depth: usize,
    exceeded: Option<String>,
}

/// Why the pass ended.
enum End {
    /// The first document was read to its end.
    Done,
    /// go-yaml stops here (`exceeded` is set).
    Exceeded,
    /// Something the pass does not model.
    Unread,
}

fn blank(c: Option<u8>) -> bool {
    matches!(c, Some(b' ') | Some(b'\t'))
}

fn brk(c: Option<u8>) -> bool {
    matches!(c, Some(b'\n') | Some(b'\r'))
}

fn blankz(c: Option<u8>) -> bool {
    c.is_none() || blank(c) || brk(c)
}

fn flow_indicator(c: u8) -> bool {
    matches!(c, b',' | b'[' | b']' | b'{' | b'}')
}

impl Scanner<'_> {
    fn at(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }

    /// Advance one byte: a line break starts a new line; a UTF-8 continuation byte is no column.
    /// `false` at a break go-yaml reads otherwise than the pass (a lone CR, NEL, LS, PS).
    fn bump(&mut self) -> bool {
        let Some(c) = self.at(0) else { return true };
        match c {
            b'\n' => {
                self.line += 1;
                self.col = 0;
            }
            b'\r' if self.at(1) == Some(b'\n') => {}
            b'\r' => return false,
            0xC2 if self.at(1) == Some(0x85) => return false,
            0xE2 if self.at(1) == Some(0x80) && matches!(self.at(2), Some(0xA8) | Some(0xA9)) => return false,
            c if c & 0xC0 == 0x80 => {}
            _ => self.col += 1,
        }
        self.i += 1;
        true
    }

    fn note_depth(&mut self) {
        self.depth = self.depth.max(self.flow + self.indents.len());
    }

    fn exceed(&mut self) -> End {
        let message = if self.line == 0 {
            format!("yaml: exceeded max depth of {MAX_DEPTH}")
        } else {
            format!("yaml: line {}: exceeded max depth of {MAX_DEPTH}", self.line + 1)
        };
        self.exceeded = Some(message);
        End::Exceeded
    }

    /// `yaml_parser_roll_indent`.
    fn roll(&mut self, column: usize) -> Result<(), End> {
        if self.flow > 0 {
            return Ok(());
        }
        if self.indent < column as isize {
            self.indents.push(self.indent);
            self.indent = column as isize;
            self.note_depth();
            if self.indents.len() > MAX_DEPTH {
                return Err(self.exceed());
            }
        }
        Ok(())
    }

    /// `yaml_parser_unroll_indent`.
    fn unroll(&mut self, column: isize) {
        if self.flow > 0 {
            return;
        }
        while self.indent > column {
            self.indent = self.indents.pop().unwrap_or(-1);
        }
    }

    /// A node starts here: the first one is the document's.
    fn node(&mut self, kind: Top) {
        if self.top.is_none() {
            self.top = Some(if self.tagged { Top::Unknown } else { kind });
        }
        self.tagged = false;
    }

    /// `yaml_parser_save_simple_key`, at flow level 0 (where keys roll the indentation).
    fn save_key(&mut self) {
        if self.flow == 0 && self.key_allowed {
            self.key = Some((self.col, self.line, self.i, self.top.is_none()));
        }
    }

    /// Whitespace, comments and line breaks before the next token (`yaml_parser_scan_to_next_token`).
    fn skip_to_token(&mut self) -> Result<(), End> {
        loop {
            match self.at(0) {
                Some(b' ') => {}
                Some(b'\t') if self.flow > 0 || !self.key_allowed => {}
                Some(b'\t') => return Err(End::Unread),
                Some(b'#') => {
                    while !brk(self.at(0)) && self.at(0).is_some() {
                        if !self.bump() {
                            return Err(End::Unread);
                        }
                    }
                    continue;
                }
                Some(b'\n') | Some(b'\r') => {
                    if self.flow == 0 {
                        self.key_allowed = true;
                    }
                }
                _ => return Ok(()),
            }
            if !self.bump() {
                return Err(End::Unread);
            }
        }
    }

    fn skip_while(&mut self, mut keep: impl FnMut(Option<u8>) -> bool) -> Result<(), End> {
        while self.at(0).is_some() && keep(self.at(0)) {
            if !self.bump() {
                return Err(End::Unread);
            }
        }
        Ok(())
    }

    fn document_marker(&self) -> bool {
        self.col == 0
            && (self.b[self.i..].starts_with(b"---") || self.b[self.i..].starts_with(b"..."))
            && blankz(self.at(3))
    }

    fn run(&mut self) -> End {
        loop {
            if let Err(end) = self.skip_to_token() {
                return end;
            }
            let Some(c) = self.at(0) else { return End::Done };
            // A simple key in the block context lives on its line, for at most 1024 characters.
            if let Some((_, line, at, _)) = self.key {
                if line != self.line || self.i > at + 1024 {
                    self.key = None;
                }
            }
            self.unroll(self.col as isize);
            if self.col == 0 && c == b'%' {
                if self.top.is_some() {
                    return End::Done;
                }
                if let Err(end) = self.skip_while(|c| !brk(c)) {
                    return end;
                }
                continue;
            }
            if self.document_marker() {
                if self.top.is_some() {
                    return End::Done;
                }
                self.unroll(-1);
                for _ in 0..3 {
                    self.bump();
                }
                self.key_allowed = false;
                continue;
            }
            let next = self.at(1);
            let step = match c {
                b'[' | b'{' => {
                    self.save_key();
                    self.node(if c == b'[' { Top::Sequence } else { Top::Mapping });
                    self.flow += 1;
                    self.note_depth();
                    if self.flow > MAX_DEPTH {
                        return self.exceed();
                    }
                    self.key_allowed = true;
                    self.bump();
                    Ok(())
                }
                b']' | b'}' => {
                    if self.flow == 0 {
                        return End::Unread;
                    }
                    self.flow -= 1;
                    self.key_allowed = false;
                    self.bump();
                    Ok(())
                }
                b',' if self.flow > 0 => {
                    self.key_allowed = true;
                    self.bump();
                    Ok(())
                }
                b'-' if self.flow == 0 && blankz(next) => {
                    if !self.key_allowed {
                        return End::Unread;
                    }
                    if let Err(end) = self.roll(self.col) {
                        return end;
                    }
                    self.node(Top::Sequence);
                    self.key = None;
                    self.key_allowed = true;
                    self.bump();
                    Ok(())
                }
                // No token starts with `- ` in the flow context.
                b'-' if blankz(next) => return End::Unread,
                b'?' if self.flow > 0 || blankz(next) => {
                    if self.flow == 0 {
                        if !self.key_allowed {
                            return End::Unread;
                        }
                        if let Err(end) = self.roll(self.col) {
                            return end;
                        }
                    }
                    self.node(Top::Mapping);
                    self.key = None;
                    self.key_allowed = self.flow == 0;
                    self.bump();
                    Ok(())
                }
                b':' if self.flow > 0 || blankz(next) => {
                    match self.key.take() {
                        Some((column, _, _, first)) => {
                            if let Err(end) = self.roll(column) {
                                return end;
                            }
                            if first {
                                self.top = Some(Top::Mapping);
                            }
                        }
                        None if self.flow == 0 => {
                            if !self.key_allowed {
                                return End::Unread;
                            }
                            if let Err(end) = self.roll(self.col) {
                                return end;
                            }
                            self.node(Top::Mapping);
                        }
                        None => {}
                    }
                    self.key_allowed = self.flow == 0;
                    self.bump();
                    Ok(())
                }
                b'*' | b'&' | b'!' => {
                    self.save_key();
                    match c {
                        b'*' => self.node(Top::Scalar),
                        b'!' => self.tagged = true,
                        _ => {}
                    }
                    self.key_allowed = false;
                    let flow = self.flow > 0;
                    self.skip_while(|c| !(blankz(c) || (flow && c.is_some_and(flow_indicator))))
                }
                b'|' | b'>' if self.flow == 0 => {
                    self.node(Top::Scalar);
                    self.key = None;
                    self.key_allowed = true;
                    self.bump();
                    self.block_scalar()
                }
                b'\'' | b'"' => {
                    self.save_key();
                    self.node(Top::Scalar);
                    self.key_allowed = false;
                    self.quoted(c)
                }
                b'%' | b'@' | b'`' | b',' | b'#' => return End::Unread,
                _ => {
                    // A plain scalar (also `-x`, `?x`, `:x`).
                    self.save_key();
                    self.node(Top::Scalar);
                    self.key_allowed = false;
                    self.plain()
                }
            };
            if let Err(end) = step {
                return end;
            }
        }
    }

    /// A single- or double-quoted scalar (`yaml_parser_scan_flow_scalar`).
    fn quoted(&mut self, quote: u8) -> Result<(), End> {
        self.bump();
        loop {
            match self.at(0) {
                None => return Err(End::Unread),
                Some(c) if c == quote => {
                    if quote == b'\'' && self.at(1) == Some(b'\'') {
                        self.bump();
                        self.bump();
                        continue;
                    }
                    self.bump();
                    return Ok(());
                }
                Some(b'\\') if quote == b'"' => {
                    self.bump();
                    if self.at(0).is_some() && !self.bump() {
                        return Err(End::Unread);
                    }
                }
                Some(_) => {
                    if self.document_marker() {
                        return Err(End::Unread);
                    }
                    if !self.bump() {
                        return Err(End::Unread);
                    }
                }
            }
        }
    }

    /// A plain scalar, over as many lines as it continues (`yaml_parser_scan_plain_scalar`).
    fn plain(&mut self) -> Result<(), End> {
        let limit = self.indent + 1;
        loop {
            if self.document_marker() || self.at(0) == Some(b'#') {
                return Ok(());
            }
            while !blankz(self.at(0)) {
                let c = self.at(0).unwrap_or(b' ');
                if (c == b':' && blankz(self.at(1))) || (self.flow > 0 && (flow_indicator(c) || c == b'?')) {
                    return Ok(());
                }
                if !self.bump() {
                    return Err(End::Unread);
                }
            }
            if !(blank(self.at(0)) || brk(self.at(0))) {
                return Ok(());
            }
            let mut broke = false;
            while blank(self.at(0)) || brk(self.at(0)) {
                if self.at(0) == Some(b'\t') && broke && (self.col as isize) < limit {
                    return Err(End::Unread);
                }
                broke |= brk(self.at(0));
                if !self.bump() {
                    return Err(End::Unread);
                }
            }
            if broke {
                self.key_allowed = true;
            }
            if self.flow == 0 && (self.col as isize) < limit {
                return Ok(());
            }
        }
    }

    /// A literal or folded block scalar after its indicator (`yaml_parser_scan_block_scalar`).
    fn block_scalar(&mut self) -> Result<(), End> {
        let mut increment = 0usize;
        for _ in 0..2 {
            match self.at(0) {
                Some(b'+') | Some(b'-') => {
                    self.bump();
                }
                Some(d @ b'1'..=b'9') if increment == 0 => {
                    increment = usize::from(d - b'0');
                    self.bump();
                }
                _ => {}
            }
        }
        self.skip_while(blank)?;
        if self.at(0) == Some(b'#') {
            self.skip_while(|c| !brk(c))?;
        }
        if !blankz(self.at(0)) {
            return Err(End::Unread);
        }
        if brk(self.at(0)) && !self.bump() {
            return Err(End::Unread);
        }
        let parent = self.indent;
        let mut indent = match increment {
            0 => 0,
            n if parent >= 0 => parent as usize + n,
            n => n,
        };
        let mut widest = 0;
        self.block_breaks(&mut indent, &mut widest)?;
        if indent == 0 {
            indent = widest.max((parent + 1).max(1) as usize);
        }
        while self.col == indent && self.at(0).is_some() {
            self.skip_while(|c| !brk(c))?;
            if brk(self.at(0)) && !self.bump() {
                return Err(End::Unread);
            }
            self.block_breaks(&mut indent, &mut widest)?;
        }
        Ok(())
    }

    /// The indentation and empty lines before a block scalar's next line
    /// (`yaml_parser_scan_block_scalar_breaks`).
    fn block_breaks(&mut self, indent: &mut usize, widest: &mut usize) -> Result<(), End> {
        loop {
            while (*indent == 0 || self.col < *indent) && self.at(0) == Some(b' ') {
                self.bump();
            }
            *widest = (*widest).max(self.col);
            if (*indent == 0 || self.col < *indent) && self.at(0) == Some(b'\t') {
                return Err(End::Unread);
            }
            if !brk(self.at(0)) {
                return Ok(());
            }
            if !self.bump() {
                return Err(End::Unread);
            }
        }
    }
}

/// The shape of `body` as go-yaml scans it.
pub(crate) fn scan(body: &[u8]) -> Shape {
    let start = if body.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
    let mut s = Scanner {
        b: body,
        i: start,
        line: 0,
        col: 0,
        flow: 0,
        indent: -1,
        indents: Vec::new(),
        key: None,
        key_allowed: true,
        top: None,
        tagged: false,
        depth: 0,
        exceeded: None,
    };
    let end = s.run();
    let complete = matches!(end, End::Done);
    let top = match (s.top, &end) {
        (Some(top), _) => top,
        (None, End::Done) => Top::Nothing,
        (None, _) => Top::Unknown,
    };
    Shape { top, exceeded: s.exceeded, depth: s.depth, complete }
}
