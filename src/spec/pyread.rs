//! A reader for the generated Python modules in tinygrad's `runtime/autogen/amd/<arch>/`.
//!
//! Those files are data written as Python: enum classes, dict literals of string literals and
//! tuples, and classes whose bodies call bit-field constructors. Running Python to read them
//! would make Python a run-time dependency, so this module reads them directly, in two layers:
//!
//! - a tokenizer ([`Lexer`]) for the Python *literal* syntax the files use: names, integers
//!   (decimal, `0b`, `0o`, `0x`), string literals (single, double and triple quoted, raw or not,
//!   with Python's escapes), brackets with implicit line joining, comments;
//! - a recursive reader ([`parse_module`]) that builds statements (imports, classes,
//!   `name = value` assignments) and values (paths like `Fmt.FMT_ANY`, calls, tuples, lists,
//!   sets, dicts).
//!
//! On top of that, one function per file kind ([`read_enums`], [`read_ins`],
//! [`read_operands`], [`read_pcode`]) checks that every statement has the expected shape.
//! Statements that carry nothing we need (imports, the `functools.partial` helper aliases in
//! `ins.py`) are recognised and skipped on purpose; anything unexpected is a
//! [`SpecError::Shape`] naming the file and line.

use std::borrow::Cow;

use super::{FastMap, SpecError};

/// Nesting limit for values, so hostile input cannot overflow the stack.
const MAX_DEPTH: usize = 64;

/// The lexer and parser box their errors: results are returned for every token, and a
/// full-size [`SpecError`] in each of them made parsing several times slower.
type PResult<T> = Result<T, Box<SpecError>>;

/// Builds a [`SpecError::Shape`].
fn shape(file: &str, line: usize, message: impl Into<String>) -> SpecError {
    SpecError::Shape {
        file: file.to_string(),
        line,
        message: message.into(),
    }
}

// ---------------------------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------------------------

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
    fn describe(&self) -> String {
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

// ---------------------------------------------------------------------------------------------
// Statements and values
// ---------------------------------------------------------------------------------------------

/// A value on the right of `=`, as far as the generated files need.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Expr<'a> {
    /// 1-based line where the value starts.
    pub line: usize,
    /// What the value is.
    pub kind: ExprKind<'a>,
}

/// A call of a (dotted) name with positional and keyword arguments.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Call<'a> {
    pub func: &'a str,
    pub args: Vec<Expr<'a>>,
    pub kwargs: Vec<(&'a str, Expr<'a>)>,
}

/// The kinds of [`Expr`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ExprKind<'a> {
    /// An integer literal, possibly negated.
    Int(i64),
    /// One or more adjacent string literals, concatenated.
    Str(Cow<'a, str>),
    /// A name or a dotted attribute path written without spaces: `NULL`, `Fmt.FMT_ANY`.
    Path(&'a str),
    /// A call of a (dotted) name. Boxed to keep [`Expr`] small: the operand tables hold
    /// tens of thousands of values.
    Call(Box<Call<'a>>),
    /// `(a, b)`.
    Tuple(Vec<Expr<'a>>),
    /// `[a, b]`.
    List(Vec<Expr<'a>>),
    /// `{a, b}`.
    Set(Vec<Expr<'a>>),
    /// `{k: v, ...}`, in source order.
    Dict(Vec<(Expr<'a>, Expr<'a>)>),
}

impl ExprKind<'_> {
    fn describe(&self) -> &'static str {
        match self {
            ExprKind::Int(_) => "an integer",
            ExprKind::Str(_) => "a string",
            ExprKind::Path(_) => "a name",
            ExprKind::Call(_) => "a call",
            ExprKind::Tuple(_) => "a tuple",
            ExprKind::List(_) => "a list",
            ExprKind::Set(_) => "a set",
            ExprKind::Dict(_) => "a dict",
        }
    }
}

/// One logical statement of a module.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Stmt<'a> {
    /// `import ...` or `from ... import ...`; the reader needs nothing from these.
    Import { line: usize },
    /// `class Name(Base, ...):` and its indented body.
    Class {
        line: usize,
        name: &'a str,
        bases: Vec<&'a str>,
        body: Vec<Stmt<'a>>,
    },
    /// `target = value`.
    Assign {
        line: usize,
        target: &'a str,
        value: Expr<'a>,
    },
}

impl Stmt<'_> {
    fn line(&self) -> usize {
        match self {
            Stmt::Import { line } | Stmt::Class { line, .. } | Stmt::Assign { line, .. } => *line,
        }
    }
}

struct Parser<'a> {
    file: &'a str,
    lexer: Lexer<'a>,
    peeked: Option<Token<'a>>,
}

impl<'a> Parser<'a> {
    fn new(file: &'a str, src: &'a str) -> Parser<'a> {
        Parser {
            file,
            lexer: Lexer::new(file, src),
            peeked: None,
        }
    }

    /// See [`for_each_dict_entry`].
    fn stream_dict(
        &mut self,
        name: &str,
        f: &mut dyn FnMut(Expr<'a>, Expr<'a>) -> Result<(), SpecError>,
    ) -> PResult<()> {
        let mut found_line: Option<usize> = None;
        loop {
            let token = self.bump()?;
            let line = token.line;
            match token.tok {
                Tok::Eof => {
                    if found_line.is_none() {
                        let message = format!("no `{name} = {{...}}` assignment in the file");
                        return Err(self.err(line, message));
                    }
                    return Ok(());
                }
                _ if token.col != 0 => return Err(self.err(line, "unexpected indentation")),
                Tok::Name("import" | "from") => {
                    // Imports only bring names into scope; skip to the end of the line.
                    while !matches!(self.bump()?.tok, Tok::Newline | Tok::Eof) {}
                }
                Tok::Name(target) if target == name => {
                    if let Some(first_line) = found_line {
                        return Err(Box::new(SpecError::Duplicate {
                            file: self.file.to_string(),
                            line,
                            first_line,
                            name: name.to_string(),
                        }));
                    }
                    found_line = Some(line);
                    self.expect_punct(b'=', &format!("after `{name}`"))?;
                    self.expect_punct(b'{', &format!("to open the `{name}` dict"))?;
                    loop {
                        if self.peek_is(b'}')? {
                            self.bump()?;
                            break;
                        }
                        let key = self.expr(1)?;
                        self.expect_punct(b':', "after a dict key")?;
                        let value = self.expr(1)?;
                        f(key, value).map_err(Box::new)?;
                        if self.peek_is(b'}')? {
                            self.bump()?;
                            break;
                        }
                        self.expect_punct(b',', "between dict entries")?;
                    }
                    self.expect_newline("after the dict")?;
                }
                other => {
                    let message = format!(
                        "expected only imports and `{name} = {{...}}`, found {}",
                        other.describe()
                    );
                    return Err(self.err(line, message));
                }
            }
        }
    }

    fn err(&self, line: usize, message: impl Into<String>) -> Box<SpecError> {
        Box::new(shape(self.file, line, message))
    }

    fn peek(&mut self) -> PResult<&Token<'a>> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lexer.next_token()?);
        }
        // Just filled above.
        Ok(self.peeked.get_or_insert(Token {
            tok: Tok::Eof,
            line: 0,
            col: 0,
        }))
    }

    fn bump(&mut self) -> PResult<Token<'a>> {
        match self.peeked.take() {
            Some(token) => Ok(token),
            None => self.lexer.next_token(),
        }
    }

    fn peek_is(&mut self, c: u8) -> PResult<bool> {
        Ok(self.peek()?.tok == Tok::Punct(c))
    }

    fn expect_punct(&mut self, c: u8, context: &str) -> PResult<Token<'a>> {
        let token = self.bump()?;
        if token.tok == Tok::Punct(c) {
            return Ok(token);
        }
        Err(self.err(
            token.line,
            format!(
                "expected `{}` {context}, found {}",
                c as char,
                token.tok.describe()
            ),
        ))
    }

    fn expect_name(&mut self, context: &str) -> PResult<(&'a str, usize)> {
        let token = self.bump()?;
        match token.tok {
            Tok::Name(name) => Ok((name, token.line)),
            other => Err(self.err(
                token.line,
                format!("expected a name {context}, found {}", other.describe()),
            )),
        }
    }

    fn expect_newline(&mut self, context: &str) -> PResult<()> {
        let token = self.bump()?;
        match token.tok {
            Tok::Newline => Ok(()),
            other => Err(self.err(
                token.line,
                format!("expected end of line {context}, found {}", other.describe()),
            )),
        }
    }

    /// Python rejects a class header without an indented body; so do we.
    fn check_class_has_body(&self, stmts: &[Stmt<'a>]) -> PResult<()> {
        match stmts.last() {
            Some(Stmt::Class {
                body, line, name, ..
            }) if body.is_empty() => Err(self.err(*line, format!("class `{name}` has no body"))),
            _ => Ok(()),
        }
    }

    /// Reads the whole module, nesting indented statements under the class above them.
    fn module(&mut self) -> PResult<Vec<Stmt<'a>>> {
        let mut stmts: Vec<Stmt<'a>> = Vec::new();
        // The indentation of the open class's body, once its first statement is seen.
        let mut body_indent: Option<usize> = None;
        loop {
            let token = self.peek()?;
            let (indent, line, at_eof) = (token.col, token.line, token.tok == Tok::Eof);
            if at_eof {
                self.check_class_has_body(&stmts)?;
                return Ok(stmts);
            }
            let stmt = self.statement()?;
            if indent == 0 {
                self.check_class_has_body(&stmts)?;
                body_indent = None;
                stmts.push(stmt);
                continue;
            }
            let Some(Stmt::Class { body, .. }) = stmts.last_mut() else {
                return Err(self.err(line, "unexpected indentation"));
            };
            if *body_indent.get_or_insert(indent) != indent {
                return Err(self.err(line, "inconsistent indentation in class body"));
            }
            if let Stmt::Class { name, .. } = &stmt {
                return Err(self.err(line, format!("nested class `{name}` is not supported")));
            }
            body.push(stmt);
        }
    }

    fn statement(&mut self) -> PResult<Stmt<'a>> {
        let token = self.bump()?;
        let line = token.line;
        let Tok::Name(first) = token.tok else {
            return Err(self.err(
                line,
                format!(
                    "expected an import, a class or an assignment, found {}",
                    token.tok.describe()
                ),
            ));
        };
        match first {
            "import" | "from" => {
                // Imports only bring names into scope; skip to the end of the line.
                loop {
                    match self.bump()?.tok {
                        Tok::Newline | Tok::Eof => return Ok(Stmt::Import { line }),
                        _ => {}
                    }
                }
            }
            "class" => {
                let (name, _) = self.expect_name("after `class`")?;
                let mut bases = Vec::new();
                if self.peek_is(b'(')? {
                    self.bump()?;
                    while !self.peek_is(b')')? {
                        bases.push(self.expect_name("as a base class")?.0);
                        if !self.peek_is(b',')? {
                            break;
                        }
                        self.bump()?;
                    }
                    self.expect_punct(b')', "after the base classes")?;
                }
                self.expect_punct(b':', "after the class header")?;
                self.expect_newline("after the class header")?;
                Ok(Stmt::Class {
                    line,
                    name,
                    bases,
                    body: Vec::new(),
                })
            }
            target => {
                self.expect_punct(b'=', &format!("after `{target}`"))?;
                let value = self.expr(0)?;
                self.expect_newline("after the assigned value")?;
                Ok(Stmt::Assign {
                    line,
                    target,
                    value,
                })
            }
        }
    }

    fn expr(&mut self, depth: usize) -> PResult<Expr<'a>> {
        let token = self.bump()?;
        let line = token.line;
        if depth > MAX_DEPTH {
            return Err(self.err(line, "values are nested too deeply"));
        }
        let kind = match token.tok {
            Tok::Punct(b'-') => {
                let inner = self.expr(depth + 1)?;
                match inner.kind {
                    ExprKind::Int(value) => ExprKind::Int(-value),
                    // `-9223372036854775808` is read as the negation of an out-of-range
                    // positive literal; it does not occur in the files.
                    other => {
                        return Err(self.err(
                            line,
                            format!("`-` before {} is not supported", other.describe()),
                        ))
                    }
                }
            }
            Tok::Int(value) => ExprKind::Int(i64::try_from(value).map_err(|_| {
                self.err(
                    line,
                    format!("integer literal {value} does not fit in 64 bits"),
                )
            })?),
            Tok::Str(first) => {
                let mut text = first;
                while let Tok::Str(_) = self.peek()?.tok {
                    if let Tok::Str(more) = self.bump()?.tok {
                        text.to_mut().push_str(&more);
                    }
                }
                ExprKind::Str(text)
            }
            Tok::Name(name) => {
                if self.peek_is(b'(')? {
                    self.bump()?;
                    self.call(name, depth)?
                } else {
                    ExprKind::Path(name)
                }
            }
            Tok::Punct(b'(') => {
                if self.peek_is(b')')? {
                    self.bump()?;
                    ExprKind::Tuple(Vec::new())
                } else {
                    let first = self.expr(depth + 1)?;
                    if self.peek_is(b')')? {
                        // A parenthesised value, not a tuple.
                        self.bump()?;
                        return self.no_trailer(first);
                    }
                    self.expect_punct(b',', "in a tuple")?;
                    let mut items = vec![first];
                    items.extend(self.sequence(b')', depth)?);
                    ExprKind::Tuple(items)
                }
            }
            Tok::Punct(b'[') => ExprKind::List(self.sequence(b']', depth)?),
            Tok::Punct(b'{') => {
                if self.peek_is(b'}')? {
                    self.bump()?;
                    ExprKind::Dict(Vec::new())
                } else {
                    let first = self.expr(depth + 1)?;
                    if self.peek_is(b':')? {
                        self.bump()?;
                        let value = self.expr(depth + 1)?;
                        let mut entries = vec![(first, value)];
                        loop {
                            if self.peek_is(b'}')? {
                                self.bump()?;
                                break;
                            }
                            self.expect_punct(b',', "between dict entries")?;
                            if self.peek_is(b'}')? {
                                self.bump()?;
                                break;
                            }
                            let key = self.expr(depth + 1)?;
                            self.expect_punct(b':', "after a dict key")?;
                            let value = self.expr(depth + 1)?;
                            entries.push((key, value));
                        }
                        ExprKind::Dict(entries)
                    } else {
                        let mut items = vec![first];
                        if !self.peek_is(b'}')? {
                            self.expect_punct(b',', "between set items")?;
                        }
                        items.extend(self.sequence(b'}', depth)?);
                        ExprKind::Set(items)
                    }
                }
            }
            other => {
                return Err(self.err(
                    line,
                    format!("expected a value, found {}", other.describe()),
                ))
            }
        };
        self.no_trailer(Expr { line, kind })
    }

    /// Rejects subscripts, attribute access and calls on anything but a plain dotted name.
    fn no_trailer(&mut self, expr: Expr<'a>) -> PResult<Expr<'a>> {
        let token = self.peek()?;
        if matches!(token.tok, Tok::Punct(b'.' | b'(' | b'[')) {
            let (line, found) = (token.line, token.tok.describe());
            return Err(self.err(
                line,
                format!("unsupported {found} after {}", expr.kind.describe()),
            ));
        }
        Ok(expr)
    }

    /// Reads comma-separated values up to and including `close`; a trailing comma is allowed.
    fn sequence(&mut self, close: u8, depth: usize) -> PResult<Vec<Expr<'a>>> {
        let mut items = Vec::new();
        loop {
            if self.peek_is(close)? {
                self.bump()?;
                return Ok(items);
            }
            items.push(self.expr(depth + 1)?);
            if self.peek_is(close)? {
                self.bump()?;
                return Ok(items);
            }
            self.expect_punct(b',', "between items")?;
        }
    }

    /// Reads call arguments after `(`, up to and including `)`.
    fn call(&mut self, func: &'a str, depth: usize) -> PResult<ExprKind<'a>> {
        let mut args = Vec::new();
        let mut kwargs = Vec::new();
        loop {
            if self.peek_is(b')')? {
                self.bump()?;
                break;
            }
            let arg = self.expr(depth + 1)?;
            if self.peek_is(b'=')? {
                let keyword = match arg.kind {
                    ExprKind::Path(name) if !name.contains('.') => name,
                    _ => return Err(self.err(arg.line, "expected a keyword before `=`")),
                };
                self.bump()?;
                kwargs.push((keyword, self.expr(depth + 1)?));
            } else if !kwargs.is_empty() {
                return Err(self.err(arg.line, "positional argument after keyword argument"));
            } else {
                args.push(arg);
            }
            if self.peek_is(b')')? {
                self.bump()?;
                break;
            }
            self.expect_punct(b',', "between call arguments")?;
        }
        Ok(ExprKind::Call(Box::new(Call { func, args, kwargs })))
    }
}

/// Parses a whole module into its top-level statements. `file` labels errors.
pub(crate) fn parse_module<'a>(file: &'a str, src: &'a str) -> PResult<Vec<Stmt<'a>>> {
    Parser::new(file, src).module()
}

// ---------------------------------------------------------------------------------------------
// File readers
// ---------------------------------------------------------------------------------------------

/// One `class Name(ReprEnum):` block of `enum.py`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct EnumClass<'a> {
    pub name: &'a str,
    pub line: usize,
    pub members: Vec<EnumMember<'a>>,
}

/// One `NAME = 123` or `NAME = OTHER` line of an enum class.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct EnumMember<'a> {
    pub name: &'a str,
    pub line: usize,
    /// The member's value (an alias has its target's value).
    pub value: i64,
    /// For an alias, the index of the canonical member it stands for. As in Python's `Enum`,
    /// a member whose value repeats an earlier member's value is an alias of that member.
    pub alias_of: Option<usize>,
}

/// Reads `enum.py`: imports, then enum classes whose bodies are `NAME = int` or `NAME = NAME`.
pub(crate) fn read_enums<'a>(file: &'a str, src: &'a str) -> Result<Vec<EnumClass<'a>>, SpecError> {
    let module = parse_module(file, src).map_err(|e| *e)?;
    let mut classes = Vec::new();
    for stmt in module {
        let (line, name, body) = match stmt {
            Stmt::Import { .. } => continue,
            Stmt::Class {
                line, name, body, ..
            } => (line, name, body),
            Stmt::Assign { line, target, .. } => {
                return Err(shape(
                    file,
                    line,
                    format!("expected an enum class, found an assignment to `{target}`"),
                ))
            }
        };
        let mut members: Vec<EnumMember<'a>> = Vec::with_capacity(body.len());
        let mut by_name: FastMap<&'a str, usize> = FastMap::default();
        let mut by_value: FastMap<i64, usize> = FastMap::default();
        for stmt in body {
            let Stmt::Assign {
                line,
                target,
                value,
            } = stmt
            else {
                return Err(shape(
                    file,
                    stmt.line(),
                    format!("expected `NAME = value` in enum `{name}`"),
                ));
            };
            if let Some(&first) = by_name.get(target) {
                return Err(SpecError::Duplicate {
                    file: file.to_string(),
                    line,
                    first_line: members[first].line,
                    name: format!("{name}.{target}"),
                });
            }
            let (value, alias_of) = match value.kind {
                ExprKind::Int(value) => (value, by_value.get(&value).copied()),
                ExprKind::Path(alias_target) if !alias_target.contains('.') => {
                    let Some(&target_idx) = by_name.get(alias_target) else {
                        return Err(SpecError::UnknownName {
                            file: file.to_string(),
                            line,
                            name: format!("{name}.{alias_target}"),
                        });
                    };
                    let canonical = members[target_idx].alias_of.unwrap_or(target_idx);
                    (members[canonical].value, Some(canonical))
                }
                other => {
                    return Err(shape(
                        file,
                        line,
                        format!(
                            "expected an integer or a member name for `{name}.{target}`, found {}",
                            other.describe()
                        ),
                    ))
                }
            };
            by_name.insert(target, members.len());
            if alias_of.is_none() {
                by_value.insert(value, members.len());
            }
            members.push(EnumMember {
                name: target,
                line,
                value,
                alias_of,
            });
        }
        classes.push(EnumClass {
            name,
            line,
            members,
        });
    }
    Ok(classes)
}

/// A dict entry keyed by an enum member, e.g. `SOP1Op.S_MOV_B32: ...`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Keyed<'a, V> {
    pub line: usize,
    pub class: &'a str,
    pub member: &'a str,
    pub value: V,
}

/// Reads a data module made of imports and a single `name = {...}` dict, handing each entry
/// to `f` as soon as it is read. Streaming keeps memory low: the operand and pseudocode
/// dicts are large, and building them as trees first made loading measurably slower.
fn for_each_dict_entry<'a>(
    file: &'a str,
    src: &'a str,
    name: &str,
    mut f: impl FnMut(Expr<'a>, Expr<'a>) -> Result<(), SpecError>,
) -> Result<(), SpecError> {
    Parser::new(file, src)
        .stream_dict(name, &mut f)
        .map_err(|e| *e)
}

/// Splits a dict key `Class.MEMBER`. Repeated keys are caught by the caller, which also
/// sees keys that differ but name the same instruction through an alias.
fn member_key<'a>(file: &str, key: Expr<'a>) -> Result<(usize, &'a str, &'a str), SpecError> {
    let line = key.line;
    let ExprKind::Path(path) = key.kind else {
        return Err(shape(
            file,
            line,
            format!(
                "expected an `Enum.MEMBER` key, found {}",
                key.kind.describe()
            ),
        ));
    };
    let Some((class, member)) = path.split_once('.').filter(|(_, m)| !m.contains('.')) else {
        return Err(shape(
            file,
            line,
            format!("expected an `Enum.MEMBER` key, found `{path}`"),
        ));
    };
    Ok((line, class, member))
}

/// Reads `str_pcode.py`: `PCODE = { Enum.MEMBER: 'pseudocode', ... }`, in file order.
pub(crate) fn read_pcode<'a>(
    file: &'a str,
    src: &'a str,
) -> Result<Vec<Keyed<'a, Cow<'a, str>>>, SpecError> {
    let mut out = Vec::new();
    for_each_dict_entry(file, src, "PCODE", |key, value| {
        let (line, class, member) = member_key(file, key)?;
        let ExprKind::Str(text) = value.kind else {
            return Err(shape(
                file,
                value.line,
                format!(
                    "expected a string for `{class}.{member}`, found {}",
                    value.kind.describe()
                ),
            ));
        };
        out.push(Keyed {
            line,
            class,
            member,
            value: text,
        });
        Ok(())
    })?;
    Ok(out)
}

/// One `"field": (Fmt.FMT_X, bits, OpType.OPR_Y)` entry of `operands.py`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OperandDef<'a> {
    pub field: Cow<'a, str>,
    pub format: &'a str,
    pub bits: u32,
    pub kind: &'a str,
}

/// Checks that `expr` is `Prefix.NAME` and returns `NAME`.
fn prefixed_name<'a>(
    file: &str,
    expr: &Expr<'a>,
    prefix: &str,
    what: &str,
) -> Result<&'a str, SpecError> {
    match &expr.kind {
        ExprKind::Path(path) => match path.split_once('.') {
            Some((first, name)) if first == prefix && !name.contains('.') => Ok(name),
            _ => Err(shape(
                file,
                expr.line,
                format!("expected `{prefix}.NAME` as the {what}, found `{path}`"),
            )),
        },
        other => Err(shape(
            file,
            expr.line,
            format!(
                "expected `{prefix}.NAME` as the {what}, found {}",
                other.describe()
            ),
        )),
    }
}

/// Reads a non-negative integer that fits in `u32`.
fn small_uint(file: &str, expr: &Expr<'_>, what: &str) -> Result<u32, SpecError> {
    match expr.kind {
        ExprKind::Int(value) => u32::try_from(value)
            .map_err(|_| shape(file, expr.line, format!("{what} {value} is out of range"))),
        ref other => Err(shape(
            file,
            expr.line,
            format!(
                "expected an integer as the {what}, found {}",
                other.describe()
            ),
        )),
    }
}

/// Reads `operands.py`: `OPERANDS = { Enum.MEMBER: {"field": (Fmt.F, bits, OpType.T)}, ... }`.
pub(crate) fn read_operands<'a>(
    file: &'a str,
    src: &'a str,
) -> Result<Vec<Keyed<'a, Vec<OperandDef<'a>>>>, SpecError> {
    let mut out = Vec::new();
    for_each_dict_entry(file, src, "OPERANDS", |key, value| {
        let (line, class, member) = member_key(file, key)?;
        let ExprKind::Dict(fields) = value.kind else {
            return Err(shape(
                file,
                value.line,
                format!(
                    "expected a dict of operands for `{class}.{member}`, found {}",
                    value.kind.describe()
                ),
            ));
        };
        let mut operands = Vec::with_capacity(fields.len());
        let mut field_lines: Vec<usize> = Vec::with_capacity(fields.len());
        for (field, info) in fields {
            let ExprKind::Str(field_name) = field.kind else {
                return Err(shape(
                    file,
                    field.line,
                    format!(
                        "expected a field name string in `{class}.{member}`, found {}",
                        field.kind.describe()
                    ),
                ));
            };
            // Operand dicts are short, so a linear scan beats hashing.
            if let Some(pos) = operands
                .iter()
                .position(|o: &OperandDef<'_>| o.field == field_name)
            {
                return Err(SpecError::Duplicate {
                    file: file.to_string(),
                    line: field.line,
                    first_line: field_lines[pos],
                    name: format!("{class}.{member}[{field_name:?}]"),
                });
            }
            field_lines.push(field.line);
            let ExprKind::Tuple(parts) = &info.kind else {
                return Err(shape(
                    file,
                    info.line,
                    format!(
                        "expected `(Fmt.F, bits, OpType.T)` for `{field_name}`, found {}",
                        info.kind.describe()
                    ),
                ));
            };
            let [format, bits, kind] = parts.as_slice() else {
                return Err(shape(
                    file,
                    info.line,
                    format!(
                        "expected 3 items in the tuple for `{field_name}`, found {}",
                        parts.len()
                    ),
                ));
            };
            operands.push(OperandDef {
                format: prefixed_name(file, format, "Fmt", "operand format")?,
                bits: small_uint(file, bits, "operand size")?,
                kind: prefixed_name(file, kind, "OpType", "operand type")?,
                field: field_name,
            });
        }
        out.push(Keyed {
            line,
            class,
            member,
            value: operands,
        });
        Ok(())
    })?;
    Ok(out)
}

/// One `class NAME(Base):` block of `ins.py`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct InsClass<'a> {
    pub name: &'a str,
    pub line: usize,
    /// The base encoding class, or `None` for a direct subclass of `Inst`.
    pub base: Option<&'a str>,
    /// The fields defined in this class body (not the inherited ones), in order.
    pub fields: Vec<FieldDef<'a>>,
}

/// One `name = XField(hi, lo, ...)` line of an `ins.py` class.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FieldDef<'a> {
    pub name: &'a str,
    pub line: usize,
    /// The constructor: `BitField`, `VGPRField`, `EnumBitField`, `FixedBitField`, ...
    pub ctor: &'a str,
    pub hi: u32,
    pub lo: u32,
    /// The value of a `FixedBitField`.
    pub fixed: Option<u64>,
    /// The `default=` argument, as written (`NULL`, `0`).
    pub default: Option<String>,
    /// The enum class of an `EnumBitField`.
    pub op_enum: Option<&'a str>,
    /// The members listed in an `EnumBitField`'s set, as `(line, member)`.
    pub members: Vec<(usize, &'a str)>,
}

/// Reads `ins.py`: imports, encoding classes with bit-field lines, and the
/// `name = functools.partial(...)` helpers, which are skipped on purpose.
pub(crate) fn read_ins<'a>(file: &'a str, src: &'a str) -> Result<Vec<InsClass<'a>>, SpecError> {
    let module = parse_module(file, src).map_err(|e| *e)?;
    let mut classes: Vec<InsClass<'a>> = Vec::new();
    let mut class_lines: FastMap<&'a str, usize> = FastMap::default();
    for stmt in module {
        match stmt {
            Stmt::Import { .. } => {}
            Stmt::Assign {
                value:
                    Expr {
                        kind: ExprKind::Call(ref call),
                        ..
                    },
                ..
            } if call.func == "functools.partial" => {
                // `s_mov_b32 = functools.partial(SOP1, SOP1Op.S_MOV_B32)`: an assembler
                // convenience that repeats what the enum and the class already say.
            }
            Stmt::Assign { line, target, .. } => {
                return Err(shape(
                    file,
                    line,
                    format!(
                        "expected a class or a `functools.partial` helper, found an assignment to `{target}`"
                    ),
                ))
            }
            Stmt::Class {
                line,
                name,
                bases,
                body,
            } => {
                let base = match bases.as_slice() {
                    ["Inst"] => None,
                    [base] if !base.contains('.') => {
                        if !class_lines.contains_key(base) {
                            return Err(SpecError::UnknownName {
                                file: file.to_string(),
                                line,
                                name: base.to_string(),
                            });
                        }
                        Some(*base)
                    }
                    _ => {
                        return Err(shape(
                            file,
                            line,
                            format!("expected `class {name}(Inst)` or a single encoding base"),
                        ))
                    }
                };
                if let Some(first_line) = class_lines.insert(name, line) {
                    return Err(SpecError::Duplicate {
                        file: file.to_string(),
                        line,
                        first_line,
                        name: name.to_string(),
                    });
                }
                let mut fields: Vec<FieldDef<'a>> = Vec::with_capacity(body.len());
                for stmt in body {
                    let field = field_def(file, name, stmt)?;
                    if let Some(first) = fields.iter().find(|f| f.name == field.name) {
                        return Err(SpecError::Duplicate {
                            file: file.to_string(),
                            line: field.line,
                            first_line: first.line,
                            name: format!("{name}.{}", field.name),
                        });
                    }
                    fields.push(field);
                }
                classes.push(InsClass {
                    name,
                    line,
                    base,
                    fields,
                });
            }
        }
    }
    Ok(classes)
}

/// Reads one `name = XField(hi, lo, ...)` statement of class `class`.
fn field_def<'a>(file: &str, class: &str, stmt: Stmt<'a>) -> Result<FieldDef<'a>, SpecError> {
    let Stmt::Assign {
        line,
        target,
        value,
    } = stmt
    else {
        return Err(shape(
            file,
            stmt.line(),
            format!("expected `field = XField(hi, lo, ...)` in class `{class}`"),
        ));
    };
    let ExprKind::Call(call) = value.kind else {
        return Err(shape(
            file,
            line,
            format!(
                "expected a bit-field constructor for `{class}.{target}`, found {}",
                value.kind.describe()
            ),
        ));
    };
    let Call { func, args, kwargs } = *call;
    if !func.ends_with("Field") || func.contains('.') {
        let message = format!(
            "expected a `...Field(hi, lo)` constructor for `{class}.{target}`, found `{func}(...)`"
        );
        return Err(shape(file, line, message));
    }
    let ctor = func;
    let (hi, lo, rest) = match args.as_slice() {
        [hi, lo, rest @ ..] => (
            small_uint(file, hi, "high bit")?,
            small_uint(file, lo, "low bit")?,
            rest,
        ),
        _ => {
            return Err(shape(
                file,
                line,
                format!("`{ctor}` for `{class}.{target}` needs (hi, lo)"),
            ))
        }
    };
    if hi < lo {
        return Err(shape(
            file,
            line,
            format!("`{class}.{target}` has high bit {hi} below low bit {lo}"),
        ));
    }
    let mut field = FieldDef {
        name: target,
        line,
        ctor,
        hi,
        lo,
        fixed: None,
        default: None,
        op_enum: None,
        members: Vec::new(),
    };
    match (ctor, rest) {
        ("FixedBitField", [value]) => match value.kind {
            ExprKind::Int(v) if v >= 0 => field.fixed = Some(v.unsigned_abs()),
            _ => {
                return Err(shape(
                    file,
                    value.line,
                    format!("expected a non-negative integer for fixed field `{class}.{target}`"),
                ))
            }
        },
        ("EnumBitField", [enum_class, members @ ..]) if members.len() <= 1 => {
            let enum_name = match enum_class.kind {
                ExprKind::Path(name) if !name.contains('.') => name,
                _ => {
                    return Err(shape(
                        file,
                        enum_class.line,
                        format!("expected an enum class name for `{class}.{target}`"),
                    ))
                }
            };
            field.op_enum = Some(enum_name);
            if let Some(set) = members.first() {
                let ExprKind::Set(items) = &set.kind else {
                    return Err(shape(
                        file,
                        set.line,
                        format!(
                            "expected a set of `{enum_name}.MEMBER` for `{class}.{target}`, found {}",
                            set.kind.describe()
                        ),
                    ));
                };
                for item in items {
                    let member = prefixed_name(file, item, enum_name, "opcode set item")?;
                    field.members.push((item.line, member));
                }
            }
        }
        (_, []) if ctor != "FixedBitField" && ctor != "EnumBitField" => {}
        _ => {
            return Err(shape(
                file,
                line,
                format!(
                    "unexpected arguments to `{ctor}` for `{class}.{target}` ({} positional)",
                    args.len()
                ),
            ))
        }
    }
    for (keyword, value) in kwargs {
        if keyword != "default" || field.default.is_some() {
            return Err(shape(
                file,
                value.line,
                format!("unexpected keyword argument `{keyword}` to `{ctor}`"),
            ));
        }
        let default = match value.kind {
            ExprKind::Int(v) => v.to_string(),
            ExprKind::Path(path) => path.to_string(),
            other => {
                let found = other.describe();
                let message = format!(
                    "expected an integer or a name as the default of `{class}.{target}`, found {found}"
                );
                return Err(shape(file, value.line, message));
            }
        };
        field.default = Some(default);
    }
    Ok(field)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(src: &str) -> Vec<Tok<'_>> {
        let mut lexer = Lexer::new("t.py", src);
        let mut out = Vec::new();
        loop {
            let token = lexer
                .next_token()
                .unwrap_or_else(|e| panic!("lex error: {e}"));
            if token.tok == Tok::Eof {
                return out;
            }
            out.push(token.tok);
        }
    }

    fn string_value(src: &str) -> String {
        match tokens(src).as_slice() {
            [Tok::Str(s), Tok::Newline] => s.to_string(),
            other => panic!("expected one string, got {other:?}"),
        }
    }

    fn shape_line(err: SpecError) -> (String, usize) {
        match err {
            SpecError::Shape { file, line, .. } => (file, line),
            other => panic!("expected a Shape error, got {other:?}"),
        }
    }

    #[test]
    fn escapes_in_single_and_double_quotes() {
        assert_eq!(
            string_value(r#"'a\nb\tc\\d\'e"f\x41\u00e9\101'"#),
            "a\nb\tc\\d'e\"fAéA"
        );
        assert_eq!(string_value(r#""6'0U \"q\" \U0001F600""#), "6'0U \"q\" 😀");
        // Unknown escapes keep their backslash, as in Python.
        assert_eq!(string_value(r"'a\db'"), "a\\db");
    }

    #[test]
    fn strings_without_escapes_are_borrowed() {
        let toks = tokens("'D0.u32 = S0.u32'");
        assert!(matches!(
            &toks[0],
            Tok::Str(Cow::Borrowed("D0.u32 = S0.u32"))
        ));
    }

    #[test]
    fn raw_triple_and_adjacent_strings() {
        assert_eq!(string_value(r"r'a\nb\''"), "a\\nb\\'");
        let module = parse_module("t.py", "X = '''one\n'two'\n''' 'three'\nY = 2\n")
            .unwrap_or_else(|e| panic!("{e}"));
        match &module[..] {
            [Stmt::Assign { value: x, .. }, Stmt::Assign { line, value: y, .. }] => {
                assert_eq!(x.kind, ExprKind::Str(Cow::Borrowed("one\n'two'\nthree")));
                assert_eq!(*line, 4);
                assert_eq!(y.kind, ExprKind::Int(2));
            }
            other => panic!("unexpected statements {other:?}"),
        }
    }

    #[test]
    fn integers_names_and_punctuation() {
        assert_eq!(
            tokens("a = Fmt.FMT_ANY(0b101, 0x1F, 0o17, 1_000, -3)  # comment\n"),
            vec![
                Tok::Name("a"),
                Tok::Punct(b'='),
                Tok::Name("Fmt.FMT_ANY"),
                Tok::Punct(b'('),
                Tok::Int(5),
                Tok::Punct(b','),
                Tok::Int(31),
                Tok::Punct(b','),
                Tok::Int(15),
                Tok::Punct(b','),
                Tok::Int(1000),
                Tok::Punct(b','),
                Tok::Punct(b'-'),
                Tok::Int(3),
                Tok::Punct(b')'),
                Tok::Newline,
            ]
        );
    }

    #[test]
    fn newlines_inside_brackets_are_joined() {
        let module = parse_module("t.py", "D = {\n  A.B: (1,\n   2),\n}\nE = 3\n")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(module.len(), 2);
        let Stmt::Assign { value, .. } = &module[0] else {
            panic!("expected an assignment");
        };
        let ExprKind::Dict(entries) = &value.kind else {
            panic!("expected a dict");
        };
        assert_eq!(entries[0].0.kind, ExprKind::Path("A.B"));
        assert_eq!(entries[0].0.line, 2);
        assert_eq!(
            entries[0].1.kind,
            ExprKind::Tuple(vec![
                Expr {
                    line: 2,
                    kind: ExprKind::Int(1)
                },
                Expr {
                    line: 3,
                    kind: ExprKind::Int(2)
                },
            ])
        );
    }

    #[test]
    fn enums_with_aliases() {
        let src = "from m import ReprEnum\n\nclass VOP2Op(ReprEnum):\n  V_ADD_F32_E32 = 3\n  V_SUB_F32_E32 = 0x4\n  V_ADD_F32 = V_ADD_F32_E32\n  V_PLUS = V_ADD_F32\n  V_SAME = 4\n\nclass MSG(ReprEnum):\n  MSG_X = -1\n";
        let classes = read_enums("e.py", src).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(classes.len(), 2);
        let members: Vec<(&str, i64, Option<usize>)> = classes[0]
            .members
            .iter()
            .map(|m| (m.name, m.value, m.alias_of))
            .collect();
        assert_eq!(
            members,
            vec![
                ("V_ADD_F32_E32", 3, None),
                ("V_SUB_F32_E32", 4, None),
                ("V_ADD_F32", 3, Some(0)),
                ("V_PLUS", 3, Some(0)),
                // A repeated value is an alias too, as in Python's Enum.
                ("V_SAME", 4, Some(1)),
            ]
        );
        assert_eq!(classes[1].members[0].value, -1);
        assert_eq!(classes[1].members[0].line, 11);
    }

    #[test]
    fn enum_alias_to_unknown_member() {
        let err = read_enums("e.py", "class XOp(ReprEnum):\n  A = B\n").unwrap_err();
        assert!(
            matches!(err, SpecError::UnknownName { ref name, line: 2, .. } if name == "XOp.B"),
            "{err:?}"
        );
    }

    #[test]
    fn enum_member_of_wrong_shape() {
        let err = read_enums("e.py", "class XOp(ReprEnum):\n  A = 1\n  B = f(2)\n").unwrap_err();
        assert_eq!(shape_line(err), ("e.py".to_string(), 3));
        let err = read_enums("e.py", "class XOp(ReprEnum):\n  A = 1\n  B = 2 3\n").unwrap_err();
        assert_eq!(shape_line(err), ("e.py".to_string(), 3));
        let err = read_enums("e.py", "class XOp(ReprEnum):\n  A = 1\nB = 2\n").unwrap_err();
        assert_eq!(shape_line(err), ("e.py".to_string(), 3));
    }

    #[test]
    fn malformed_literals_report_their_line() {
        for (src, line) in [
            ("P = {\n  A.B: 'open\n}\n", 2),
            ("P = {\n  A.B: 'x',\n  A.C: b'y',\n}\n", 3),
            ("P = {\n  A.B: 1.5,\n}\n", 2),
            ("P = {\n  A.B: '\\x4',\n}\n", 2),
            ("P = {\n  A.B: 'x'\n  A.C: 'y',\n}\n", 3),
            ("X = 1\n  Y = 2\n", 2),
            ("X = 99999999999999999999\n", 1),
            ("X = {\n", 1),
            ("X = (1,\n 2]\n", 2),
            ("X = a . b\n", 1),
            ("X = a[0]\n", 1),
        ] {
            let err = parse_module("p.py", src).map_err(|e| *e).unwrap_err();
            assert_eq!(shape_line(err), ("p.py".to_string(), line), "{src:?}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let src = format!("X = {}1{}\n", "(".repeat(500), ")".repeat(500));
        let err = parse_module("p.py", &src).map_err(|e| *e).unwrap_err();
        assert_eq!(shape_line(err), ("p.py".to_string(), 1));
    }

    #[test]
    fn pcode_dict() {
        let src = "from m import SOP1Op\n\nPCODE = {\n  SOP1Op.S_MOV_B32: 'D0.b32 = S0.b32',\n  SOP1Op.S_WQM_B64: \"for i in 6'0U : 6'63U do\\nendfor\",\n}\n";
        let entries = read_pcode("s.py", src).unwrap_or_else(|e| panic!("{e}"));
        let got: Vec<(usize, &str, &str, &str)> = entries
            .iter()
            .map(|e| (e.line, e.class, e.member, e.value.as_ref()))
            .collect();
        assert_eq!(
            got,
            vec![
                (4, "SOP1Op", "S_MOV_B32", "D0.b32 = S0.b32"),
                (5, "SOP1Op", "S_WQM_B64", "for i in 6'0U : 6'63U do\nendfor"),
            ]
        );
    }

    #[test]
    fn pcode_value_must_be_a_string() {
        let err = read_pcode("s.py", "PCODE = {\n  A.B: 'x',\n  A.C: 3,\n}\n").unwrap_err();
        assert_eq!(shape_line(err), ("s.py".to_string(), 3));
        let err = read_pcode("s.py", "X = 1\n").unwrap_err();
        assert_eq!(shape_line(err), ("s.py".to_string(), 1));
        let err = read_pcode("s.py", "import m\n").unwrap_err();
        assert_eq!(shape_line(err), ("s.py".to_string(), 2));
    }

    #[test]
    fn operands_dict() {
        let src = "OPERANDS = {\n  VOP2Op.V_ADD_F32: {\"src0\": (Fmt.FMT_NUM_F32, 32, OpType.OPR_SRC), \"vdst\": (Fmt.FMT_NUM_F32, 32, OpType.OPR_VGPR)},\n}\n";
        let entries = read_operands("o.py", src).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(entries.len(), 1);
        assert_eq!(
            (entries[0].class, entries[0].member),
            ("VOP2Op", "V_ADD_F32")
        );
        assert_eq!(
            entries[0].value,
            vec![
                OperandDef {
                    field: Cow::Borrowed("src0"),
                    format: "FMT_NUM_F32",
                    bits: 32,
                    kind: "OPR_SRC"
                },
                OperandDef {
                    field: Cow::Borrowed("vdst"),
                    format: "FMT_NUM_F32",
                    bits: 32,
                    kind: "OPR_VGPR"
                },
            ]
        );
        let bad = "OPERANDS = {\n  A.B: {\"x\": (Fmt.F, 32)},\n}\n";
        assert_eq!(
            shape_line(read_operands("o.py", bad).unwrap_err()),
            ("o.py".to_string(), 2)
        );
        let bad = "OPERANDS = {\n  A.B: {\"x\": (Fmt.F, 32, Other.T)},\n}\n";
        assert_eq!(
            shape_line(read_operands("o.py", bad).unwrap_err()),
            ("o.py".to_string(), 2)
        );
    }

    const INS: &str = "# generated\nfrom m import BitField\nimport functools\n\nclass DS(Inst):\n  encoding = FixedBitField(31, 26, 0b110110)\n  op = EnumBitField(25, 18, DSOp, {DSOp.DS_ADD_U32, DSOp.DS_SUB_U32})\n  vdst = VGPRField(63, 56)\n  saddr = SGPRField(54, 48, default=NULL)\n\nclass DS_LIT(DS):\n  literal = BitField(95, 64)\n\nclass VOPD(Inst):\n  opx = EnumBitField(25, 22, VOPDOp)\n\n# instruction helpers\nds_add_u32 = functools.partial(DS, DSOp.DS_ADD_U32)\n";

    #[test]
    fn ins_classes_and_fields() {
        let classes = read_ins("i.py", INS).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<(&str, Option<&str>)> = classes.iter().map(|c| (c.name, c.base)).collect();
        assert_eq!(
            names,
            vec![("DS", None), ("DS_LIT", Some("DS")), ("VOPD", None)]
        );
        let ds = &classes[0];
        assert_eq!(ds.fields.len(), 4);
        assert_eq!(
            (
                ds.fields[0].ctor,
                ds.fields[0].hi,
                ds.fields[0].lo,
                ds.fields[0].fixed
            ),
            ("FixedBitField", 31, 26, Some(0b110110))
        );
        assert_eq!(ds.fields[1].op_enum, Some("DSOp"));
        assert_eq!(
            ds.fields[1].members,
            vec![(7, "DS_ADD_U32"), (7, "DS_SUB_U32")]
        );
        assert_eq!(ds.fields[3].default.as_deref(), Some("NULL"));
        assert_eq!(classes[2].fields[0].op_enum, Some("VOPDOp"));
        assert!(classes[2].fields[0].members.is_empty());
    }

    #[test]
    fn ins_unexpected_statements() {
        for (src, line) in [
            ("class A(Inst):\n  x = BitField(1)\n", 2),
            ("class A(Inst):\n  x = BitField(1, 2)\n", 2),
            ("class A(Inst):\n  x = Thing(1, 0)\n", 2),
            ("class A(Inst):\n  x = BitField(1, 0, size=3)\n", 2),
            (
                "class A(Inst):\n  x = EnumBitField(3, 0, XOp, {YOp.A})\n",
                2,
            ),
            ("class A(Inst):\n  x = 3\n", 2),
            ("class A(Inst):\n  x = BitField(1, 0)\nSIZE = 4\n", 3),
            (
                "class A(Inst):\n  x = BitField(1, 0)\nclass B(A, A):\n  y = BitField(1, 0)\n",
                3,
            ),
            ("class A(Inst):\n\nx = 1\n", 1),
        ] {
            let err = read_ins("i.py", src).unwrap_err();
            assert_eq!(shape_line(err), ("i.py".to_string(), line), "{src:?}");
        }
        let err = read_ins("i.py", "class A(B):\n  x = BitField(1, 0)\n").unwrap_err();
        assert!(
            matches!(err, SpecError::UnknownName { line: 1, .. }),
            "{err:?}"
        );
    }
}
