//! The recursive reader: statements (imports, classes, assignments) and values.

use std::borrow::Cow;

use super::{shape, Lexer, PResult, SpecError, Tok, Token, MAX_DEPTH};

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
    pub(super) fn describe(&self) -> &'static str {
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
    pub(super) fn line(&self) -> usize {
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

/// Reads a data module made of imports and a single `name = {...}` dict, handing each entry
/// to `f` as soon as it is read. Streaming keeps memory low: the operand and pseudocode
/// dicts are large, and building them as trees first made loading measurably slower.
pub(super) fn for_each_dict_entry<'a>(
    file: &'a str,
    src: &'a str,
    name: &str,
    mut f: impl FnMut(Expr<'a>, Expr<'a>) -> Result<(), SpecError>,
) -> Result<(), SpecError> {
    Parser::new(file, src)
        .stream_dict(name, &mut f)
        .map_err(|e| *e)
}
