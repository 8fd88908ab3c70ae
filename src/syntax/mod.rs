//! Lexer and parser for AMD's pseudocode.
//!
//! [`parse`] turns the text of one instruction's pseudocode into an [`ast::Program`]. The
//! pipeline is: `token.rs` (a [`logos`] lexer that decodes literals) → `lexer.rs` (an adapter
//! that decides which line breaks separate statements, see its docs for the newline rule) →
//! `grammar/pcode.lalrpop` (the grammar, compiled by lalrpop into `OUT_DIR`). [`lex`] exposes
//! the token stream for tests and fuzzing, and [`print_program`] dumps a tree.
//!
//! Errors from logos and lalrpop are converted into [`SyntaxError`] in one place; neither
//! library's types appear in this module's API.

pub mod ast;
mod lexer;
mod print;
mod token;

#[cfg(test)]
mod tests;

use std::fmt;

use lalrpop_util::ParseError;

use ast::{BinaryOp, Expr, Span, Stmt, UnaryOp};
pub use print::print_program;
pub use token::{FloatLit, IntLit, Token, MAX_TOKENS};
use token::{LexError, LexErrorKind};

lalrpop_util::lalrpop_mod!(
    #[allow(missing_docs, unused_qualifications, clippy::all, clippy::pedantic)]
    grammar,
    "/pcode.rs"
);

/// What kind of syntax error happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    /// Bytes that start no token, such as `@`, `$`, a stray `'` or a `"` string.
    InvalidToken,
    /// A numeric literal whose value does not fit its type or width, such as `8'256`.
    LiteralOverflow,
    /// A sized literal or type of width zero, such as `0'U`.
    ZeroWidth,
    /// The text has more tokens than [`MAX_TOKENS`].
    TooManyTokens,
    /// An expression standing alone as a statement that is not a call, such as
    /// `expcnt <= WaitEXPCNT`: it would compute a value and drop it.
    NotAStatement,
    /// A token the grammar does not allow here.
    UnexpectedToken {
        /// The token's text (`newline` for a line break).
        found: String,
        /// What would have been accepted, in backticks or as a category such as `expression`.
        expected: Vec<String>,
    },
    /// The text ended too early, for example before an `endif`.
    UnexpectedEof {
        /// What would have been accepted.
        expected: Vec<String>,
    },
}

/// A lexing or parsing error with the byte span it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// What went wrong.
    pub kind: SyntaxErrorKind,
    /// Where: the offending token, or an empty span at the end of the text.
    pub span: Span,
    /// A readable sentence such as "unexpected `endfor`, expected one of `endif`, `else`".
    pub message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SyntaxError {}

/// Parses the pseudocode of one instruction.
///
/// # Errors
///
/// Returns the first lexical or syntax error; the text is never partially accepted.
pub fn parse(src: &str) -> Result<ast::Program, SyntaxError> {
    let program = grammar::ProgramParser::new()
        .parse(lexer::Lexer::new(src))
        .map_err(|error| syntax_error(src, error))?;
    match find_bare_expression(&program.body) {
        None => Ok(program),
        Some(span) => {
            let kind = SyntaxErrorKind::NotAStatement;
            Err(SyntaxError {
                message: message(src, &kind, span),
                kind,
                span,
            })
        }
    }
}

/// The span of the first expression statement that is not a call, at any depth. (A lambda
/// whose body is one expression is a [`Stmt::Lambda`] by now, so its body is not one.)
fn find_bare_expression(body: &[Stmt]) -> Option<Span> {
    body.iter().find_map(|stmt| match stmt {
        Stmt::Expr { expr, span } => (!matches!(expr, Expr::Call { .. })).then_some(*span),
        Stmt::If {
            arms, otherwise, ..
        } => arms
            .iter()
            .find_map(|arm| find_bare_expression(&arm.body))
            .or_else(|| otherwise.as_deref().and_then(find_bare_expression)),
        Stmt::Case { arms, default, .. } => arms
            .iter()
            .find_map(|arm| find_bare_expression(&arm.body))
            .or_else(|| default.as_deref().and_then(find_bare_expression)),
        Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::LambdaBlock { body, .. } => {
            find_bare_expression(body)
        }
        Stmt::Assign { .. }
        | Stmt::Declare { .. }
        | Stmt::Break { .. }
        | Stmt::Continue { .. }
        | Stmt::Return { .. }
        | Stmt::Lambda { .. } => None,
    })
}

/// Lexes `src` into the `(start, token, end)` triples the parser reads, with the line breaks
/// that separate statements already chosen (see the newline rule in `lexer.rs`).
///
/// # Errors
///
/// Returns the first lexical error.
pub fn lex(src: &str) -> Result<Vec<(usize, Token<'_>, usize)>, SyntaxError> {
    lexer::Lexer::new(src)
        .collect::<Result<Vec<_>, LexError>>()
        .map_err(|error| syntax_error(src, ParseError::User { error }))
}

/// The most names listed after "expected".
const MAX_EXPECTED: usize = 8;

/// Converts a lalrpop error (which wraps our [`LexError`]s) into a [`SyntaxError`]. This is the
/// only place that looks inside lalrpop's and logos' error types.
fn syntax_error(src: &str, error: ParseError<usize, Token<'_>, LexError>) -> SyntaxError {
    let (kind, span) = match error {
        ParseError::User { error } => {
            let kind = match error.kind {
                LexErrorKind::InvalidToken => SyntaxErrorKind::InvalidToken,
                LexErrorKind::LiteralOverflow => SyntaxErrorKind::LiteralOverflow,
                LexErrorKind::ZeroWidth => SyntaxErrorKind::ZeroWidth,
                LexErrorKind::TooManyTokens => SyntaxErrorKind::TooManyTokens,
            };
            (kind, error.span)
        }
        ParseError::InvalidToken { location } => {
            (SyntaxErrorKind::InvalidToken, Span::new(location, location))
        }
        ParseError::UnrecognizedEof { location, expected } => (
            SyntaxErrorKind::UnexpectedEof {
                expected: summarize_expected(&expected),
            },
            Span::new(location, location),
        ),
        ParseError::UnrecognizedToken {
            token: (start, _, end),
            expected,
        } => (
            SyntaxErrorKind::UnexpectedToken {
                found: token_text(src, start, end),
                expected: summarize_expected(&expected),
            },
            Span::new(start, end),
        ),
        ParseError::ExtraToken {
            token: (start, _, end),
        } => (
            SyntaxErrorKind::UnexpectedToken {
                found: token_text(src, start, end),
                expected: Vec::new(),
            },
            Span::new(start, end),
        ),
    };
    let message = message(src, &kind, span);
    SyntaxError {
        kind,
        span,
        message,
    }
}

/// The text of a token for messages: the source slice, or `newline` for a line break.
fn token_text(src: &str, start: usize, end: usize) -> String {
    match src.get(start..end) {
        Some(text) if text.trim().is_empty() => "newline".to_string(),
        Some(text) => text.to_string(),
        None => "?".to_string(),
    }
}

/// Terminals that can start an expression; listed as one `expression`.
const EXPRESSION_STARTS: &[&str] = &[
    "Ident", "Int", "Float", "Type", "\"in\"", "\"(\"", "\"{\"", "\"-\"", "\"+\"", "\"~\"", "\"!\"",
];

/// Binary operators; listed as one `operator` when many are expected.
const OPERATORS: &[&str] = &[
    "\"**\"", "\"*\"", "\"/\"", "\"%\"", "\"+\"", "\"-\"", "\"<<\"", "\">>\"", "\"<\"", "\"<=\"",
    "\">\"", "\">=\"", "\"==\"", "\"!=\"", "\"<>\"", "\"&\"", "\"^\"", "\"|\"", "\"&&\"", "\"||\"",
    "\"?\"", "Field", "\"[\"",
];

/// Keywords that start a statement; with `expression`, listed as one `statement`.
const STATEMENT_STARTS: &[&str] = &[
    "\"if\"",
    "\"for\"",
    "\"while\"",
    "\"case\"",
    "\"declare\"",
    "\"break\"",
    "\"continue\"",
    "\"return\"",
];

/// Assignment operators; listed as one `assignment` when several are expected.
const ASSIGNMENTS: &[&str] = &[
    "\"=\"", "\"+=\"", "\"-=\"", "\"*=\"", "\"|=\"", "\"&=\"", "\"^=\"", "\"<<=\"", "\">>=\"",
];

/// Turns lalrpop's expected-terminal list into at most [`MAX_EXPECTED`] readable names:
/// categories first (`statement`, `expression`, `operator`, `assignment`), then keywords and
/// punctuation in backticks.
fn summarize_expected(expected: &[String]) -> Vec<String> {
    let has = |name: &str| expected.iter().any(|e| e == name);
    let mut out = Vec::new();
    let wants_expression = has("Ident") && has("Int");
    let count = |group: &[&str]| {
        expected
            .iter()
            .filter(|e| group.contains(&e.as_str()))
            .count()
    };
    let wants_operator = count(OPERATORS) >= 5;
    let wants_assignment = count(ASSIGNMENTS) >= 3;
    let wants_statement = wants_expression && count(STATEMENT_STARTS) >= 3;
    if wants_statement {
        out.push("statement".to_string());
    } else if wants_expression {
        out.push("expression".to_string());
    }
    if wants_operator {
        out.push("operator".to_string());
    }
    if wants_assignment {
        out.push("assignment".to_string());
    }
    for name in expected {
        let name = name.as_str();
        if (wants_expression && EXPRESSION_STARTS.contains(&name))
            || (wants_statement && STATEMENT_STARTS.contains(&name))
            || (wants_operator && OPERATORS.contains(&name))
            || (wants_assignment && ASSIGNMENTS.contains(&name))
            // `in` doubles as a name; listing it beside `identifier` only confuses.
            || (name == "\"in\"" && has("Ident"))
        {
            continue;
        }
        let readable = match name {
            "Ident" => "identifier".to_string(),
            "expression" => "expression".to_string(),
            "Field" => "`.field`".to_string(),
            "Int" => "integer".to_string(),
            "Float" => "float".to_string(),
            "Type" => "sized type".to_string(),
            "Newline" => "newline".to_string(),
            quoted => format!("`{}`", quoted.trim_matches('"')),
        };
        if !out.contains(&readable) {
            out.push(readable);
        }
    }
    out.truncate(MAX_EXPECTED);
    out
}

/// "expected `a`", "expected `a` or `b`", "expected one of `a`, `b`, `c`".
fn expected_phrase(expected: &[String]) -> String {
    match expected {
        [] => String::new(),
        [one] => format!(", expected {one}"),
        [a, b] => format!(", expected {a} or {b}"),
        many => format!(", expected one of {}", many.join(", ")),
    }
}

/// The readable sentence for an error at `span` of `src`.
fn message(src: &str, kind: &SyntaxErrorKind, span: Span) -> String {
    let text = src.get(span.range()).unwrap_or_default();
    match kind {
        SyntaxErrorKind::InvalidToken => format!("invalid token `{text}`"),
        SyntaxErrorKind::LiteralOverflow => format!("literal `{text}` does not fit its type"),
        SyntaxErrorKind::ZeroWidth => format!("`{text}` has width 0; widths start at 1"),
        SyntaxErrorKind::TooManyTokens => format!("text longer than {MAX_TOKENS} tokens"),
        SyntaxErrorKind::NotAStatement => {
            "only a call can stand alone as a statement; this expression's value is unused"
                .to_string()
        }
        SyntaxErrorKind::UnexpectedToken { found, expected } => {
            let found = if found == "newline" {
                found.clone()
            } else {
                format!("`{found}`")
            };
            format!("unexpected {found}{}", expected_phrase(expected))
        }
        SyntaxErrorKind::UnexpectedEof { expected } => {
            format!("unexpected end of text{}", expected_phrase(expected))
        }
    }
}

/// One item of a case body, as the grammar collects it before grouping the arms.
pub(crate) enum CaseBodyItem {
    /// `v1, v2 :`
    Label(Vec<Expr>),
    /// A statement of the current arm.
    Stmt(Parsed),
}

/// What one statement of the text parses to: usually one [`Stmt`], but a chained assignment
/// `a = b = v` stands for several.
pub(crate) enum Parsed {
    /// One statement (boxed: the parser moves its stack entries around, and a `Stmt` is big).
    One(Box<Stmt>),
    /// The assignments of a chain, in execution order.
    Many(Vec<Stmt>),
}

impl Parsed {
    /// The statements as a new list.
    pub(crate) fn into_vec(self) -> Vec<Stmt> {
        match self {
            Parsed::One(stmt) => vec![*stmt],
            Parsed::Many(stmts) => stmts,
        }
    }

    /// Appends the statements to `body`.
    pub(crate) fn push_to(self, body: &mut Vec<Stmt>) {
        match self {
            Parsed::One(stmt) => body.push(*stmt),
            Parsed::Many(stmts) => body.extend(stmts),
        }
    }
}

/// Builds the assignments of a chain `t1 = t2 = ... = tn = value` (at least two targets,
/// given in text order): `tn = value`, `t(n-1) = tn`, ..., `t1 = t2`, each spanning from its
/// target to `end`.
pub(crate) fn chain_assign(targets: Vec<Expr>, value: Expr, end: usize) -> Parsed {
    let mut stmts = Vec::with_capacity(targets.len());
    let mut value = value;
    for target in targets.into_iter().rev() {
        let next_value = target.clone();
        let span = Span::new(target.span().start as usize, end);
        stmts.push(Stmt::Assign {
            target,
            op: None,
            value,
            span,
        });
        value = next_value;
    }
    Parsed::Many(stmts)
}

/// Returns `expr` with its span replaced (to take in the parentheses around it).
pub(crate) fn with_span(mut expr: Expr, new_span: Span) -> Expr {
    match &mut expr {
        Expr::Int { span, .. }
        | Expr::Float { span, .. }
        | Expr::Ident { span, .. }
        | Expr::Field { span, .. }
        | Expr::Index { span, .. }
        | Expr::Slice { span, .. }
        | Expr::PartSelect { span, .. }
        | Expr::Unary { span, .. }
        | Expr::Binary { span, .. }
        | Expr::Ternary { span, .. }
        | Expr::Cast { span, .. }
        | Expr::Call { span, .. }
        | Expr::Concat { span, .. } => *span = new_span,
    }
    expr
}

/// Builds a case statement from its first label, the items after it (labels, statements and
/// lone separators as `None`), a last statement not followed by a separator, and the `default`
/// body.
pub(crate) fn case(
    scrutinee: Expr,
    first: Vec<Expr>,
    items: Vec<Option<CaseBodyItem>>,
    last: Option<Parsed>,
    default: Option<Vec<Stmt>>,
    span: Span,
) -> Stmt {
    let mut arms = vec![ast::CaseArm {
        values: first,
        body: Vec::new(),
    }];
    let last = last.map(|stmt| Some(CaseBodyItem::Stmt(stmt)));
    for item in items.into_iter().chain(last).flatten() {
        match item {
            CaseBodyItem::Label(values) => arms.push(ast::CaseArm {
                values,
                body: Vec::new(),
            }),
            CaseBodyItem::Stmt(stmt) => {
                if let Some(arm) = arms.last_mut() {
                    stmt.push_to(&mut arm.body);
                }
            }
        }
    }
    Stmt::Case {
        scrutinee,
        arms,
        default,
        span,
    }
}

/// How tightly a binary operator binds; higher binds tighter. `**` is not here: the grammar
/// handles it above the unary operators.
fn precedence(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Or => 1,
        BinaryOp::And => 2,
        BinaryOp::BitOr => 3,
        BinaryOp::BitXor => 4,
        BinaryOp::BitAnd => 5,
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lg => 6,
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => 7,
        BinaryOp::Shl | BinaryOp::Shr => 8,
        BinaryOp::Add | BinaryOp::Sub => 9,
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 10,
        BinaryOp::Pow => 11,
    }
}

/// Groups `first op1 operand1 op2 operand2 ...` by [`precedence`], every level left
/// associative. A node spans from its left operand's start to its right operand's end.
pub(crate) fn climb(first: Expr, rest: Vec<(BinaryOp, Expr)>) -> Expr {
    let mut rest = rest.into_iter().peekable();
    climb_from(first, 0, &mut rest)
}

/// Precedence climbing: folds operators of precedence at least `min` into `lhs`. It recurses
/// only for a tighter operator, so the depth is at most the number of precedence levels.
fn climb_from(
    mut lhs: Expr,
    min: u8,
    rest: &mut std::iter::Peekable<std::vec::IntoIter<(BinaryOp, Expr)>>,
) -> Expr {
    while let Some((op, mut rhs)) = rest.next_if(|(op, _)| precedence(*op) >= min) {
        let level = precedence(op);
        while rest
            .peek()
            .is_some_and(|(next, _)| precedence(*next) > level)
        {
            rhs = climb_from(rhs, level + 1, rest);
        }
        let span = lhs.span().to(rhs.span());
        lhs = binary(op, lhs, rhs, span);
    }
    lhs
}

/// Builds `lhs op rhs`.
pub(crate) fn binary(op: BinaryOp, lhs: Expr, rhs: Expr, span: Span) -> Expr {
    Expr::Binary {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
        span,
    }
}

/// Builds `op operand`.
pub(crate) fn unary(op: UnaryOp, operand: Expr, span: Span) -> Expr {
    Expr::Unary {
        op,
        operand: Box::new(operand),
        span,
    }
}

/// Builds a lambda definition: a [`Stmt::Lambda`] when the body is one expression, else a
/// [`Stmt::LambdaBlock`].
pub(crate) fn lambda(name: String, params: Vec<&str>, mut body: Vec<Stmt>, span: Span) -> Stmt {
    let params = params.into_iter().map(str::to_string).collect();
    if let [Stmt::Expr { .. }] = body.as_slice() {
        if let Some(Stmt::Expr { expr, .. }) = body.pop() {
            return Stmt::Lambda {
                name,
                params,
                body: expr,
                span,
            };
        }
    }
    Stmt::LambdaBlock {
        name,
        params,
        body,
        span,
    }
}
