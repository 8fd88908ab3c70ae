//! The tokens of AMD's pseudocode, recognised by a [`logos`] state machine, and [`LexError`].
//!
//! Numeric literals are decoded here, once: every literal token carries its value, and a
//! literal whose value does not fit (a decimal wider than 128 bits, `8'256`, `0x1_0000_0000U`)
//! is a [`LexErrorKind::LiteralOverflow`], never a panic.
//!
//! Sized forms are single tokens: `6'60U` and `8'0xff` are [`Token::Int`], `16'1.0` is a
//! [`Token::Float`] and `32'U` or `16'BF` (the type form, with no digit after the tick) is a
//! [`Token::Type`]. A field access `.u32` is one [`Token::Field`], so `x . y` and a
//! sentence-ending `.` are not field accesses. `INF` and `NAN` are ordinary identifiers, `// ...` comments are skipped and a
//! line break is a [`Token::Newline`]; the lexer adapter (`lexer.rs`) decides which line breaks
//! separate statements.

use logos::Logos;

use super::ast::{IntSuffix, Span, TypeLetter, TypeSpec};

/// Why the lexer rejected some input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LexErrorKind {
    /// Bytes that start no token, such as `@`, `$`, a stray `'` or a `"` string.
    #[default]
    InvalidToken,
    /// A numeric literal (or a width, or an array length) whose value does not fit its type.
    LiteralOverflow,
    /// A sized literal or type of width zero, such as `0'U`.
    ZeroWidth,
    /// The text has more than [`MAX_TOKENS`] tokens. The limit bounds the depth of the tree,
    /// so that no later recursive pass over it can overflow the stack.
    TooManyTokens,
}

/// The most tokens one text may have. The largest AMD entry has about 300.
pub const MAX_TOKENS: usize = 8192;

/// A lexical error and where it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LexError {
    /// What went wrong.
    pub kind: LexErrorKind,
    /// The offending bytes.
    pub span: Span,
}

/// A decoded integer literal: `4`, `0xff`, `1ULL`, `6'60U`, `8'0xff`, `1201'0x1f...`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntLit<'src> {
    /// The value's low and high 64 bits (two words rather than a `u128`, whose 16-byte
    /// alignment would make every token twice as costly to move).
    value: [u64; 2],
    /// The significant hex digits of a sized hex literal wider than 128 bits, else empty.
    pub wide: &'src str,
    /// How the literal was written.
    pub suffix: IntSuffix,
}

impl<'src> IntLit<'src> {
    /// A literal with this value (or its low 128 bits when `wide` is not empty).
    pub fn new(value: u128, wide: &'src str, suffix: IntSuffix) -> IntLit<'src> {
        IntLit {
            value: [value as u64, (value >> 64) as u64],
            wide,
            suffix,
        }
    }

    /// The value, or its low 128 bits when `wide` is not empty.
    pub fn value(&self) -> u128 {
        u128::from(self.value[0]) | (u128::from(self.value[1]) << 64)
    }
}

/// A decoded float literal: `0.5`, `1.0F`, `16'1.0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloatLit {
    /// The value.
    pub value: f64,
    /// `Some(32)` for an `F` suffix, `Some(w)` for `w'1.0`, `None` for a bare `0.5`.
    pub width: Option<u32>,
}

/// One token. Line breaks are tokens; blanks and `//` comments are skipped.
#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(error = LexErrorKind)]
#[logos(skip r"[ \t\r\f]+")]
#[logos(skip r"//[^\n]*")]
pub enum Token<'src> {
    /// A line break (`\n`).
    #[token("\n")]
    Newline,

    /// `if`
    #[token("if")]
    If,
    /// `then`
    #[token("then")]
    Then,
    /// `elsif`
    #[token("elsif")]
    Elsif,
    /// `else`
    #[token("else")]
    Else,
    /// `endif`
    #[token("endif")]
    Endif,
    /// `for`
    #[token("for")]
    For,
    /// `in`; also usable as a name (`V_PERM_B32` declares an array called `in`).
    #[token("in")]
    In,
    /// `do`
    #[token("do")]
    Do,
    /// `endfor`
    #[token("endfor")]
    Endfor,
    /// `while`
    #[token("while")]
    While,
    /// `endwhile`
    #[token("endwhile")]
    Endwhile,
    /// `break`
    #[token("break")]
    Break,
    /// `continue`
    #[token("continue")]
    Continue,
    /// `return`
    #[token("return")]
    Return,
    /// `declare`
    #[token("declare")]
    Declare,
    /// `lambda`
    #[token("lambda")]
    Lambda,
    /// `case`
    #[token("case")]
    Case,
    /// `of`
    #[token("of")]
    Of,
    /// `default`
    #[token("default")]
    Default,
    /// `endcase`
    #[token("endcase")]
    Endcase,

    /// A name: `S0`, `tmp`, `WAVE_MODE`, `INF`.
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice())]
    Ident(&'src str),
    /// `.name` right after a value, with no blank around the dot: `S0.u32`, `WAVE_MODE.IEEE`.
    /// Holds the name without the dot; any word works, keywords included.
    #[regex(r"\.[A-Za-z_][A-Za-z0-9_]*", |lex| &lex.slice()[1..])]
    Field(&'src str),
    /// An integer literal, plain (`63`, `0xffU`, `1ULL`) or sized (`6'60U`, `8'0xff`, `3'0`).
    #[regex(r"[0-9]+(U|LL|ULL)?", lex_int)]
    #[regex(r"0[xX][0-9a-fA-F]+(U|LL|ULL)?", lex_int)]
    #[regex(r"[0-9]+'[0-9]+[UIB]?", lex_sized_int)]
    #[regex(r"[0-9]+'0[xX][0-9a-fA-F]+[UI]?", lex_sized_int)]
    Int(IntLit<'src>),
    /// A float literal: `0.5`, `1.0F`, `1.5e-3`, `1e-3`, `16'1.0`.
    #[regex(r"[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?F?", lex_float)]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+F?", lex_float)]
    #[regex(r"[0-9]+'[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?", lex_sized_float)]
    Float(FloatLit),
    /// A sized type: `32'U`, `32'I`, `32'B`, `64'F`, `16'BF`.
    #[regex(r"[0-9]+'(U|I|B|F|BF)", lex_type)]
    Type(TypeSpec),

    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `*`
    #[token("*")]
    Star,
    /// `/`
    #[token("/")]
    Slash,
    /// `%`
    #[token("%")]
    Percent,
    /// `**`
    #[token("**")]
    StarStar,
    /// `<<`
    #[token("<<")]
    Shl,
    /// `>>`
    #[token(">>")]
    Shr,
    /// `<`
    #[token("<")]
    Lt,
    /// `<=`
    #[token("<=")]
    Le,
    /// `>`
    #[token(">")]
    Gt,
    /// `>=`
    #[token(">=")]
    Ge,
    /// `==`
    #[token("==")]
    EqEq,
    /// `!=`
    #[token("!=")]
    NotEq,
    /// `<>`, another spelling of `!=`.
    #[token("<>")]
    LtGt,
    /// `&`
    #[token("&")]
    Amp,
    /// `|`
    #[token("|")]
    Pipe,
    /// `^`
    #[token("^")]
    Caret,
    /// `~`
    #[token("~")]
    Tilde,
    /// `!`
    #[token("!")]
    Bang,
    /// `&&`
    #[token("&&")]
    AmpAmp,
    /// `||`
    #[token("||")]
    PipePipe,
    /// `?`
    #[token("?")]
    Question,
    /// `:`
    #[token(":")]
    Colon,
    /// `=`
    #[token("=")]
    Assign,
    /// `+=`
    #[token("+=")]
    PlusAssign,
    /// `-=`
    #[token("-=")]
    MinusAssign,
    /// `*=`
    #[token("*=")]
    StarAssign,
    /// `|=`
    #[token("|=")]
    PipeAssign,
    /// `&=`
    #[token("&=")]
    AmpAssign,
    /// `^=`
    #[token("^=")]
    CaretAssign,
    /// `<<=`
    #[token("<<=")]
    ShlAssign,
    /// `>>=`
    #[token(">>=")]
    ShrAssign,
    /// `+:`, the width separator of a part-select `x[start +: width]`.
    #[token("+:")]
    PlusColon,
    /// A `.` not followed by a name: no construct uses it (it ends prose sentences), so the
    /// parser reports it.
    #[token(".")]
    Dot,
    /// `,`
    #[token(",")]
    Comma,
    /// `;`
    #[token(";")]
    Semi,
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `[`
    #[token("[")]
    LBracket,
    /// `]`
    #[token("]")]
    RBracket,
    /// `{`
    #[token("{")]
    LBrace,
    /// `}`
    #[token("}")]
    RBrace,
}

/// Splits a trailing `ULL`, `LL` or `U` off a plain integer literal.
fn split_suffix(text: &str) -> (&str, IntSuffix) {
    if let Some(digits) = text.strip_suffix("ULL") {
        (digits, IntSuffix::ULL)
    } else if let Some(digits) = text.strip_suffix("LL") {
        (digits, IntSuffix::LL)
    } else if let Some(digits) = text.strip_suffix('U') {
        (digits, IntSuffix::U)
    } else {
        (text, IntSuffix::None)
    }
}

/// Decodes decimal digits, failing when the value needs more than 128 bits.
fn decimal(digits: &str) -> Result<u128, LexErrorKind> {
    digits.bytes().try_fold(0u128, |acc, digit| {
        acc.checked_mul(10)
            .and_then(|acc| acc.checked_add(u128::from(digit - b'0')))
            .ok_or(LexErrorKind::LiteralOverflow)
    })
}

/// Hex digits decoded: the low 128 bits, the significant digits, and the number of significant
/// bits.
struct Hex<'src> {
    low: u128,
    significant: &'src str,
    bits: u32,
}

/// Decodes hex digits of any length.
fn hex(digits: &str) -> Hex<'_> {
    let significant = digits.trim_start_matches('0');
    let low_digits = &significant[significant.len().saturating_sub(32)..];
    let low = low_digits.chars().fold(0u128, |acc, digit| {
        (acc << 4) | u128::from(digit.to_digit(16).unwrap_or(0))
    });
    let bits = match significant.chars().next().and_then(|c| c.to_digit(16)) {
        None => 0,
        Some(lead) => {
            let rest = u32::try_from(significant.len() - 1).unwrap_or(u32::MAX / 8);
            rest.saturating_mul(4)
                .saturating_add(32 - lead.leading_zeros())
        }
    };
    Hex {
        low,
        significant,
        bits,
    }
}

/// The number of bits needed to hold `value`.
fn bit_len(value: u128) -> u32 {
    128 - value.leading_zeros()
}

/// Decodes the width before a tick; it must be a positive `u32`.
fn width(text: &str) -> Result<u32, LexErrorKind> {
    let value = decimal(text)?;
    match u32::try_from(value) {
        Ok(0) => Err(LexErrorKind::ZeroWidth),
        Ok(width) => Ok(width),
        Err(_) => Err(LexErrorKind::LiteralOverflow),
    }
}

/// `[0-9]+(U|LL|ULL)?` and `0x[0-9a-f]+(U|LL|ULL)?`.
fn lex_int<'src>(lex: &mut logos::Lexer<'src, Token<'src>>) -> Result<IntLit<'src>, LexErrorKind> {
    let (digits, suffix) = split_suffix(lex.slice());
    let (value, bits) = match digits.get(..2) {
        Some("0x" | "0X") => {
            let hex = hex(&digits[2..]);
            (hex.low, hex.bits)
        }
        _ => {
            let value = decimal(digits)?;
            (value, bit_len(value))
        }
    };
    let limit = match suffix {
        IntSuffix::U => 32,
        IntSuffix::LL | IntSuffix::ULL => 64,
        _ => 128,
    };
    if bits > limit {
        return Err(LexErrorKind::LiteralOverflow);
    }
    Ok(IntLit::new(value, "", suffix))
}

/// `6'60U`, `3'0`, `8'0xff`: the value must fit in the width.
fn lex_sized_int<'src>(
    lex: &mut logos::Lexer<'src, Token<'src>>,
) -> Result<IntLit<'src>, LexErrorKind> {
    let text = lex.slice();
    let (width_text, rest) = text.split_once('\'').ok_or(LexErrorKind::InvalidToken)?;
    let width = width(width_text)?;
    let (digits, letter) = match rest.as_bytes().last() {
        Some(b'U') => (&rest[..rest.len() - 1], Some(TypeLetter::U)),
        Some(b'I') => (&rest[..rest.len() - 1], Some(TypeLetter::I)),
        // A trailing `B` is a hex digit in `8'0xfB`; the regex only allows it after decimals.
        Some(b'B') if !rest.starts_with("0x") && !rest.starts_with("0X") => {
            (&rest[..rest.len() - 1], Some(TypeLetter::B))
        }
        _ => (rest, None),
    };
    let (value, wide, bits) = match digits.get(..2) {
        Some("0x" | "0X") => {
            let hex = hex(&digits[2..]);
            let wide = if hex.bits > 128 { hex.significant } else { "" };
            (hex.low, wide, hex.bits)
        }
        _ => {
            let value = decimal(digits)?;
            (value, "", bit_len(value))
        }
    };
    if bits > width {
        return Err(LexErrorKind::LiteralOverflow);
    }
    Ok(IntLit::new(value, wide, IntSuffix::Sized(width, letter)))
}

/// Decodes a float's digits; an infinite result (`1e999`) is an overflow.
fn float_value(text: &str) -> Result<f64, LexErrorKind> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(value),
        Ok(_) => Err(LexErrorKind::LiteralOverflow),
        Err(_) => Err(LexErrorKind::InvalidToken),
    }
}

/// `0.5`, `1.0F`.
fn lex_float<'src>(lex: &mut logos::Lexer<'src, Token<'src>>) -> Result<FloatLit, LexErrorKind> {
    let text = lex.slice();
    let (digits, width) = match text.strip_suffix('F') {
        Some(digits) => (digits, Some(32)),
        None => (text, None),
    };
    Ok(FloatLit {
        value: float_value(digits)?,
        width,
    })
}

/// `16'1.0`.
fn lex_sized_float<'src>(
    lex: &mut logos::Lexer<'src, Token<'src>>,
) -> Result<FloatLit, LexErrorKind> {
    let (width_text, digits) = lex
        .slice()
        .split_once('\'')
        .ok_or(LexErrorKind::InvalidToken)?;
    Ok(FloatLit {
        width: Some(width(width_text)?),
        value: float_value(digits)?,
    })
}

/// `32'U`, `16'BF`.
fn lex_type<'src>(lex: &mut logos::Lexer<'src, Token<'src>>) -> Result<TypeSpec, LexErrorKind> {
    let (width_text, letter) = lex
        .slice()
        .split_once('\'')
        .ok_or(LexErrorKind::InvalidToken)?;
    let letter = match letter {
        "U" => TypeLetter::U,
        "I" => TypeLetter::I,
        "B" => TypeLetter::B,
        "F" => TypeLetter::F,
        "BF" => TypeLetter::BF,
        _ => return Err(LexErrorKind::InvalidToken),
    };
    Ok(TypeSpec {
        width: width(width_text)?,
        letter,
    })
}
