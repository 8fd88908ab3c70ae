//! The tokenizer for the Python literal syntax the generated files use.

use std::borrow::Cow;

use super::{shape, PResult, SpecError};

/// One token of Python source.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok<'a> {
    /// An identifier or keyword, or a dotted name written without spaces (`Fmt.FMT_ANY`).
    Name(&'a str),
    /// A non-negative integer literal (a leading `-` is a separate token).
    Int(u64),
    /// A string literal, with escapes already resolved.
    Str(Cow<'a, str>),
    /// One of `( ) [ ] { } , : . = -`.
    Punct(u8),
    /// The end of a logical line (never emitted inside brackets).
    Newline,
    /// The end of the file.
    Eof,
}

impl Tok<'_> {
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Name(name) => format!("name `{name}`"),
            Tok::Int(value) => format!("integer {value}"),
            Tok::Str(_) => "a string literal".to_string(),
            Tok::Punct(c) => format!("`{}`", *c as char),
            Tok::Newline => "end of line".to_string(),
            Tok::Eof => "end of file".to_string(),
        }
    }
}

/// A token with its position.
#[derive(Clone, Debug)]
pub(crate) struct Token<'a> {
    pub tok: Tok<'a>,
    /// 1-based line of the token's first character.
    pub line: usize,
    /// 0-based column (in bytes) of the token's first character.
    pub col: usize,
}

/// Splits Python source into tokens. Newlines inside brackets are joined, as in Python.
pub(crate) struct Lexer<'a> {
    file: &'a str,
    src: &'a str,
    pos: usize,
    line: usize,
    line_start: usize,
    /// The open brackets, with the line each was opened on.
    open: Vec<(u8, usize)>,
    /// Whether the current logical line has produced a token yet.
    in_line: bool,
}

impl<'a> Lexer<'a> {
    /// Starts lexing `src`; `file` labels errors.
    pub fn new(file: &'a str, src: &'a str) -> Lexer<'a> {
        Lexer {
            file,
            src,
            pos: 0,
            line: 1,
            line_start: 0,
            open: Vec::new(),
            in_line: false,
        }
    }

    fn err(&self, line: usize, message: impl Into<String>) -> Box<SpecError> {
        Box::new(shape(self.file, line, message))
    }

    fn peek_byte(&self, offset: usize) -> Option<u8> {
        self.src.as_bytes().get(self.pos + offset).copied()
    }

    /// Returns the next token.
    pub fn next_token(&mut self) -> PResult<Token<'a>> {
        loop {
            while let Some(b' ' | b'\t' | b'\r' | b'\x0c') = self.peek_byte(0) {
                self.pos += 1;
            }
            let Some(c) = self.peek_byte(0) else {
                if let Some(&(bracket, line)) = self.open.last() {
                    return Err(self.err(line, format!("`{}` is never closed", bracket as char)));
                }
                if self.in_line {
                    self.in_line = false;
                    return Ok(self.token_here(Tok::Newline));
                }
                return Ok(self.token_here(Tok::Eof));
            };
            match c {
                b'#' => {
                    while let Some(b) = self.peek_byte(0) {
                        if b == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                b'\\' => {
                    // An explicit line continuation.
                    let skip = match (self.peek_byte(1), self.peek_byte(2)) {
                        (Some(b'\n'), _) => 2,
                        (Some(b'\r'), Some(b'\n')) => 3,
                        _ => return Err(self.err(self.line, "stray `\\` outside a string")),
                    };
                    self.pos += skip;
                    self.newline_seen();
                }
                b'\n' => {
                    let line = self.line;
                    self.pos += 1;
                    self.newline_seen();
                    if self.open.is_empty() && self.in_line {
                        self.in_line = false;
                        return Ok(Token {
                            tok: Tok::Newline,
                            line,
                            col: 0,
                        });
                    }
                }
                _ => {
                    let line = self.line;
                    let col = self.pos - self.line_start;
                    self.in_line = true;
                    let tok = self.token_at(c)?;
                    return Ok(Token { tok, line, col });
                }
            }
        }
    }

    fn token_here(&self, tok: Tok<'a>) -> Token<'a> {
        Token {
            tok,
            line: self.line,
            col: self.pos - self.line_start,
        }
    }

    fn newline_seen(&mut self) {
        self.line += 1;
        self.line_start = self.pos;
    }

    /// Lexes the token starting with byte `c` at `self.pos`.
    fn token_at(&mut self, c: u8) -> PResult<Tok<'a>> {
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = self.pos;
            while let Some(b) = self.peek_byte(0) {
                let continues_dotted = b == b'.'
                    && self
                        .peek_byte(1)
                        .is_some_and(|n| n.is_ascii_alphabetic() || n == b'_');
                if b.is_ascii_alphanumeric() || b == b'_' || continues_dotted {
                    self.pos += 1;
                } else {
                    break;
                }
            }
            let name = &self.src[start..self.pos];
            if let Some(q @ (b'\'' | b'"')) = self.peek_byte(0) {
                let prefix = name.to_ascii_lowercase();
                return match prefix.as_str() {
                    "r" | "u" => self.string(q, prefix == "r"),
                    "b" | "br" | "rb" | "f" | "fr" | "rf" => Err(self.err(
                        self.line,
                        format!("`{name}` string literals are not supported"),
                    )),
                    _ => Err(self.err(self.line, format!("unexpected string after `{name}`"))),
                };
            }
            return Ok(Tok::Name(name));
        }
        if c.is_ascii_digit() {
            return self.number();
        }
        match c {
            b'\'' | b'"' => self.string(c, false),
            b'(' | b'[' | b'{' => {
                self.open.push((c, self.line));
                self.pos += 1;
                Ok(Tok::Punct(c))
            }
            b')' | b']' | b'}' => {
                let expected = match self.open.pop() {
                    Some((b'(', _)) => b')',
                    Some((b'[', _)) => b']',
                    Some(_) => b'}',
                    None => 0,
                };
                if c != expected {
                    return Err(self.err(self.line, format!("unmatched `{}`", c as char)));
                }
                self.pos += 1;
                Ok(Tok::Punct(c))
            }
            b',' | b':' | b'.' | b'=' | b'-' => {
                if c == b'=' && self.peek_byte(1) == Some(b'=') {
                    return Err(self.err(self.line, "unexpected `==`"));
                }
                self.pos += 1;
                Ok(Tok::Punct(c))
            }
            _ => {
                let ch = self.src[self.pos..].chars().next().unwrap_or('?');
                Err(self.err(self.line, format!("unexpected character {ch:?}")))
            }
        }
    }

    /// Lexes an integer literal: decimal, `0b`, `0o` or `0x`, with `_` separators.
    fn number(&mut self) -> PResult<Tok<'a>> {
        let line = self.line;
        let radix = match (self.peek_byte(0), self.peek_byte(1)) {
            (Some(b'0'), Some(b'b' | b'B')) => 2,
            (Some(b'0'), Some(b'o' | b'O')) => 8,
            (Some(b'0'), Some(b'x' | b'X')) => 16,
            _ => 10,
        };
        if radix != 10 {
            self.pos += 2;
        }
        let start = self.pos;
        while let Some(b) = self.peek_byte(0) {
            if b.is_ascii_alphanumeric() || b == b'_' {
                self.pos += 1;
            } else {
                break;
            }
        }
        let text = &self.src[start..self.pos];
        if self.peek_byte(0) == Some(b'.') && self.peek_byte(1).is_some_and(|b| b.is_ascii_digit())
        {
            return Err(self.err(line, "float literals are not supported"));
        }
        let malformed = || self.err(line, format!("malformed integer literal `{text}`"));
        if text.is_empty() || text.starts_with('_') || text.ends_with('_') || text.contains("__") {
            return Err(malformed());
        }
        let mut value: u64 = 0;
        for b in text.bytes() {
            if b == b'_' {
                continue;
            }
            let digit = (b as char).to_digit(radix).ok_or_else(malformed)?;
            value = value
                .checked_mul(u64::from(radix))
                .and_then(|v| v.checked_add(u64::from(digit)))
                .ok_or_else(|| self.err(line, format!("integer literal `{text}` is too large")))?;
        }
        if radix == 10 && text.len() > 1 && text.starts_with('0') && value != 0 {
            return Err(self.err(line, format!("leading zeros in `{text}`")));
        }
        Ok(Tok::Int(value))
    }

    /// Lexes a string literal whose opening quote `q` is at `self.pos`.
    fn string(&mut self, q: u8, raw: bool) -> PResult<Tok<'a>> {
        let start_line = self.line;
        let triple = self.peek_byte(1) == Some(q) && self.peek_byte(2) == Some(q);
        self.pos += if triple { 3 } else { 1 };
        let mut owned: Option<String> = None;
        let mut seg_start = self.pos;
        loop {
            let Some(b) = self.peek_byte(0) else {
                return Err(self.err(start_line, "unterminated string literal"));
            };
            if b == q {
                if !triple {
                    let seg = &self.src[seg_start..self.pos];
                    self.pos += 1;
                    return Ok(Tok::Str(finish(owned, seg)));
                }
                if self.peek_byte(1) == Some(q) && self.peek_byte(2) == Some(q) {
                    let seg = &self.src[seg_start..self.pos];
                    self.pos += 3;
                    return Ok(Tok::Str(finish(owned, seg)));
                }
                self.pos += 1;
            } else if b == b'\n' {
                if !triple {
                    return Err(self.err(start_line, "unterminated string literal"));
                }
                self.pos += 1;
                self.newline_seen();
            } else if b == b'\\' {
                if raw {
                    // A raw string keeps the backslash; it only stops the next character from
                    // ending the literal.
                    self.pos += 1;
                    match self.peek_byte(0) {
                        Some(b'\n') => {
                            self.pos += 1;
                            self.newline_seen();
                        }
                        Some(c) if c.is_ascii() => self.pos += 1,
                        _ => {}
                    }
                    continue;
                }
                let buf = owned.get_or_insert_with(String::new);
                buf.push_str(&self.src[seg_start..self.pos]);
                self.pos += 1;
                self.escape(start_line, buf)?;
                seg_start = self.pos;
            } else {
                self.pos += 1;
            }
        }
    }

    /// Resolves the escape after a backslash (`self.pos` is just past the backslash),
    /// appending the result to `buf`.
    fn escape(&mut self, start_line: usize, buf: &mut String) -> PResult<()> {
        let line = self.line;
        let Some(c) = self.peek_byte(0) else {
            return Err(self.err(start_line, "unterminated string literal"));
        };
        let simple = match c {
            b'\\' => Some('\\'),
            b'\'' => Some('\''),
            b'"' => Some('"'),
            b'a' => Some('\x07'),
            b'b' => Some('\x08'),
            b'f' => Some('\x0c'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'v' => Some('\x0b'),
            _ => None,
        };
        if let Some(ch) = simple {
            self.pos += 1;
            buf.push(ch);
            return Ok(());
        }
        match c {
            b'\n' => {
                // A backslash-newline inside a literal joins the lines.
                self.pos += 1;
                self.newline_seen();
            }
            b'\r' if self.peek_byte(1) == Some(b'\n') => {
                self.pos += 2;
                self.newline_seen();
            }
            b'0'..=b'7' => {
                let mut value = 0u32;
                let mut len = 0;
                while len < 3 {
                    match self.peek_byte(len) {
                        Some(d @ b'0'..=b'7') => value = value * 8 + u32::from(d - b'0'),
                        _ => break,
                    }
                    len += 1;
                }
                self.pos += len;
                // At most 0o777, which is always a scalar value.
                buf.extend(char::from_u32(value));
            }
            b'x' | b'u' | b'U' => {
                let len = match c {
                    b'x' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                let digits = self.src.get(self.pos + 1..self.pos + 1 + len).unwrap_or("");
                if digits.len() != len || !digits.bytes().all(|d| d.is_ascii_hexdigit()) {
                    return Err(self.err(line, format!("`\\{}` needs {len} hex digits", c as char)));
                }
                let ch = u32::from_str_radix(digits, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| {
                        self.err(
                            line,
                            format!(
                                "escape `\\{}{digits}` is not a Unicode scalar value",
                                c as char
                            ),
                        )
                    })?;
                self.pos += 1 + len;
                buf.push(ch);
            }
            b'N' => return Err(self.err(line, "`\\N{...}` escapes are not supported")),
            // Python keeps an unknown escape as written: the backslash stays and the next
            // character is read normally.
            _ => buf.push('\\'),
        }
        Ok(())
    }
}

fn finish<'a>(owned: Option<String>, seg: &'a str) -> Cow<'a, str> {
    match owned {
        None => Cow::Borrowed(seg),
        Some(mut buf) => {
            buf.push_str(seg);
            Cow::Owned(buf)
        }
    }
}
