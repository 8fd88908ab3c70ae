//! The adapter between the [`logos`] lexer and the generated parser: it yields
//! `(start, token, end)` triples and decides which line breaks separate statements.
//!
//! # The newline rule
//!
//! AMD's text often leaves out the `;` at the end of a line, so a line break may end a
//! statement; but long expressions are also broken over several lines. A run of line breaks
//! (blank lines and `//` comment lines included) becomes one [`Token::Newline`] separator,
//! placed at the first line break of the run, exactly when all three of these hold:
//!
//! 1. **Statement level.** The line break is not inside `( )`, `[ ]` or `{ }`, except that
//!    the parentheses around a lambda's body (the second pair in `F = lambda(a, b) ( ... )`)
//!    are statement level, because that body may be a list of statements. A line break
//!    between `lambda(a, b)` and the body's `(` is dropped.
//! 2. **The previous token can end a statement**: a name (including `in` used as a name, but
//!    not the keyword `in` right after `for NAME`), a field (`.u32`), a literal, a sized type
//!    (`declare x : 32'U`), `)`, `]`, `}`, or one of `endif`, `endfor`, `endwhile`,
//!    `endcase`, `break`, `continue`, `return`.
//! 3. **The next token can start a statement**: a name (including `in`), a literal, a sized
//!    type (a cast such as `32'U(x)`), `(`, `{`, or one of `if`, `for`, `while`, `case`,
//!    `declare`, `break`, `continue`, `return`.
//!
//! Every other line break is dropped, including those at the start and the end of the text.
//! So a line ending in a binary operator, `=`, `,`, `?`, `:`, `then`, `do`, `else` or `lambda`
//! continues, and so does a line starting with a binary or unary operator (`+ b`, `!c`), a
//! field, `=`, `?`, `:`, `then`, `do`, `elsif`, `else`, `default`, `of` or an `end...`
//! keyword. Conversely a line starting with `(` or `{` after a line that could end starts a
//! new statement, so an argument list or a concatenation never begins a line at statement
//! level.
//!
//! The grammar accepts any number of separators (`;` or a kept line break) between and
//! around statements, so a kept line break next to a `;` is harmless, but two statements on
//! one line need a `;` between them.

use logos::{Logos, SpannedIter};

use super::ast::Span;
use super::token::{LexError, LexErrorKind, Token, MAX_TOKENS};

/// A `(start, token, end)` triple, as lalrpop expects from an external lexer.
pub type Spanned<'src> = (usize, Token<'src>, usize);

/// What an open bracket is, for the newline rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bracket {
    /// `(` of a call, a cast, a grouping or a lambda's parameter list.
    Paren,
    /// `(` opening a lambda's parameter list.
    LambdaParams,
    /// `(` opening a lambda's body: statement level inside.
    LambdaBody,
    /// `[`
    Square,
    /// `{`
    Brace,
}

/// Turns source text into the token triples the parser reads (see the module docs).
pub struct Lexer<'src> {
    /// The logos tokens with their byte ranges.
    tokens: SpannedIter<'src, Token<'src>>,
    /// A token read ahead while looking past line breaks.
    pending: Option<Spanned<'src>>,
    /// The open brackets, innermost last.
    brackets: Vec<Bracket>,
    /// Whether the last significant token can end a statement (rule 2).
    previous_can_end: bool,
    /// Whether the last significant token is `lambda`.
    after_lambda: bool,
    /// Where we are in a `for NAME in` header: 1 after `for`, 2 after its name, else 0.
    for_header: u8,
    /// True right after the `)` closing a lambda's parameter list.
    expect_lambda_body: bool,
    /// How many tokens have been yielded.
    count: usize,
    /// Set after an error, so iteration stops.
    failed: bool,
}

impl<'src> Lexer<'src> {
    /// A lexer over `src`.
    pub fn new(src: &'src str) -> Lexer<'src> {
        Lexer {
            tokens: Token::lexer(src).spanned(),
            pending: None,
            brackets: Vec::new(),
            previous_can_end: false,
            after_lambda: false,
            for_header: 0,
            expect_lambda_body: false,
            count: 0,
            failed: false,
        }
    }

    /// The next logos token, with its error wrapped and the token limit applied.
    fn next_raw(&mut self) -> Option<Result<Spanned<'src>, LexError>> {
        let (token, range) = self.tokens.next()?;
        let span = Span::new(range.start, range.end);
        self.count += 1;
        if self.count > MAX_TOKENS {
            return Some(Err(LexError {
                kind: LexErrorKind::TooManyTokens,
                span,
            }));
        }
        Some(match token {
            Ok(token) => Ok((range.start, token, range.end)),
            Err(kind) => Err(LexError { kind, span }),
        })
    }

    /// Whether a line break here is at statement level (rule 1).
    fn at_statement_level(&self) -> bool {
        !self.expect_lambda_body && matches!(self.brackets.last(), None | Some(Bracket::LambdaBody))
    }

    /// Updates the bracket stack and what we remember of the previous tokens with a token about
    /// to be yielded.
    fn observe(&mut self, token: &Token<'src>) {
        let expect_lambda_body = std::mem::take(&mut self.expect_lambda_body);
        match token {
            Token::LParen => {
                let bracket = if self.after_lambda {
                    Bracket::LambdaParams
                } else if expect_lambda_body {
                    Bracket::LambdaBody
                } else {
                    Bracket::Paren
                };
                self.brackets.push(bracket);
            }
            Token::LBracket => self.brackets.push(Bracket::Square),
            Token::LBrace => self.brackets.push(Bracket::Brace),
            Token::RParen | Token::RBracket | Token::RBrace => {
                // Mismatched brackets are the parser's to report; just keep the depth.
                let closed = self.brackets.pop();
                self.expect_lambda_body = closed == Some(Bracket::LambdaParams);
            }
            _ => {}
        }
        self.after_lambda = matches!(token, Token::Lambda);
        // `for i in` is the keyword; any other `in` is a name.
        let for_keyword_in = self.for_header == 2 && matches!(token, Token::In);
        self.previous_can_end = can_end(token) && !for_keyword_in;
        self.for_header = match token {
            Token::For => 1,
            Token::Ident(_) | Token::In if self.for_header == 1 => 2,
            _ => 0,
        };
    }
}

/// Whether `token` can be the last token of a statement.
fn can_end(token: &Token<'_>) -> bool {
    matches!(
        token,
        Token::Ident(_)
            | Token::In
            | Token::Field(_)
            | Token::Int(_)
            | Token::Float(_)
            | Token::Type(_)
            | Token::RParen
            | Token::RBracket
            | Token::RBrace
            | Token::Endif
            | Token::Endfor
            | Token::Endwhile
            | Token::Endcase
            | Token::Break
            | Token::Continue
            | Token::Return
    )
}

/// Whether `token` can be the first token of a statement.
fn can_start(token: &Token<'_>) -> bool {
    matches!(
        token,
        Token::Ident(_)
            | Token::In
            | Token::Int(_)
            | Token::Float(_)
            | Token::Type(_)
            | Token::LParen
            | Token::LBrace
            | Token::If
            | Token::For
            | Token::While
            | Token::Case
            | Token::Declare
            | Token::Break
            | Token::Continue
            | Token::Return
    )
}

impl<'src> Iterator for Lexer<'src> {
    type Item = Result<Spanned<'src>, LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            let item = match self.pending.take() {
                Some(triple) => Ok(triple),
                None => self.next_raw()?,
            };
            let (start, token, end) = match item {
                Ok(triple) => triple,
                Err(error) => {
                    self.failed = true;
                    return Some(Err(error));
                }
            };
            if !matches!(token, Token::Newline) {
                self.observe(&token);
                return Some(Ok((start, token, end)));
            }
            // Skip the rest of the run of line breaks to see the next significant token.
            let next = loop {
                match self.next_raw() {
                    Some(Ok((_, Token::Newline, _))) => continue,
                    other => break other,
                }
            };
            let next = match next {
                None => return None,
                Some(Err(error)) => {
                    self.failed = true;
                    return Some(Err(error));
                }
                Some(Ok(next)) => next,
            };
            let keep = self.at_statement_level() && self.previous_can_end && can_start(&next.1);
            self.pending = Some(next);
            if keep {
                return Some(Ok((start, Token::Newline, end)));
            }
        }
    }
}
