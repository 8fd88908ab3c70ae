//! The tokens of AMD's pseudocode, recognised by a [`logos`] state machine, and [`LexError`].
//!
//! Numeric literals are decoded here, once: every literal token carries its value, and a
//! literal whose value does not fit (a decimal wider than 128 bits, `8'256`, `0x100000000U`)
//! is a [`LexErrorKind::LiteralOverflow`], never a panic.
//!
//! Sized forms are single tokens: `6'60U` and `8'0xff` are [`Token::Int`], `16'1.0` is a
//! [`Token::Float`] and `32'U` or `16'BF` (the type form, with no digit after the tick) is a
//! [`Token::Type`]. A field access `.u32` is one [`Token::Field`], so `x . y` and a
//! sentence-ending `.` are not field accesses. `INF` and `NAN` are ordinary identifiers.
//! `// ...` comments are skipped and a line break is a [`Token::Newline`]; the lexer adapter
//! (`lexer.rs`) decides which line breaks separate statements.
//!
//! Integer limits: a `U` literal must fit in 32 bits, `LL` and `ULL` in 64, a bare one in 128,
//! and a sized one (`w'...`) in its width `w`, which must be at least 1.

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
    /// alignment makes every token bigger and costlier to move).
    value: [u64; 2],
    /// The significant hex digits of a sized hex literal wider than 128 bits, else empty.
    pub wide: &'src str,
    /// How the literal was written.
    pub suffix: IntSuffix,
    /// Written in hex (`0xffc00000`, `8'0xff`).
    pub hex: bool,
}

impl<'src> IntLit<'src> {
    /// A literal with this value (or its low 128 bits when `wide` is not empty).
    pub fn new(value: u128, wide: &'src str, suffix: IntSuffix) -> IntLit<'src> {
        IntLit {
            value: [value as u64, (value >> 64) as u64],
            wide,
            suffix,
            hex: false,
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
    /// The logos entry point for numeric literals; never yielded. Its callback scans the
    /// whole literal by hand (logos 0.15 mis-handles backtracking between overlapping literal
    /// patterns, calling one pattern's callback on another's text) and yields a
    /// [`Token::Int`], [`Token::Float`] or [`Token::Type`] instead.
    #[regex(r"[0-9]+", lex_number)]
    Number,
    /// An integer literal, plain (`63`, `0xffU`, `1ULL`) or sized (`6'60U`, `8'0xff`, `3'0`).
    Int(IntLit<'src>),
    /// A float literal: `0.5`, `1.0F`, `1.5e-3`, `1e-3`, `16'1.0`.
    Float(FloatLit),
    /// A sized type: `32'U`, `32'I`, `32'B`, `64'F`, `16'BF`.
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
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(LexErrorKind::InvalidToken);
    }
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

/// The length of the run of bytes at the start of `text` that satisfy `pred`.
fn run(text: &[u8], pred: impl Fn(u8) -> bool) -> usize {
    text.iter().take_while(|&&byte| pred(byte)).count()
}

/// The length of a complete exponent `[eE][+-]?[0-9]+` at the start of `text`, or 0.
fn exponent(text: &[u8]) -> usize {
    if !matches!(text.first(), Some(b'e' | b'E')) {
        return 0;
    }
    let sign = usize::from(matches!(text.get(1), Some(b'+' | b'-')));
    match run(&text[1 + sign..], |byte| byte.is_ascii_digit()) {
        0 => 0,
        digits => 1 + sign + digits,
    }
}

/// The length of `.digits` at the start of `text`, or 0.
fn fraction(text: &[u8]) -> usize {
    if text.first() != Some(&b'.') {
        return 0;
    }
    match run(&text[1..], |byte| byte.is_ascii_digit()) {
        0 => 0,
        digits => 1 + digits,
    }
}

/// The length of a `ULL`, `LL` or `U` suffix at the start of `text`, or 0.
fn int_suffix(text: &[u8]) -> usize {
    if text.starts_with(b"ULL") {
        3
    } else if text.starts_with(b"LL") {
        2
    } else {
        usize::from(text.first() == Some(&b'U'))
    }
}

/// What the numeric literal at the lexer's position turned out to be.
enum Shape {
    /// `4`, `0xff`, `1ULL`.
    Int,
    /// `6'60U`, `8'0xff`, `3'0`.
    SizedInt,
    /// `0.5`, `1.0F`, `1e-3`.
    Float,
    /// `16'1.0`.
    SizedFloat,
    /// `32'U`.
    Type,
}

/// Finds the longest numeric literal that starts with `digits` (the decimal digits logos
/// matched) and continues into `rest`, by these patterns:
///
/// ```text
/// int         [0-9]+(U|LL|ULL)?   |   0[xX][0-9a-fA-F]+(U|LL|ULL)?
/// sized int   [0-9]+'[0-9]+[UIB]?  |   [0-9]+'0[xX][0-9a-fA-F]+[UI]?
/// float       [0-9]+\.[0-9]+E?F?   |   [0-9]+EF?        where E = [eE][+-]?[0-9]+
/// sized float [0-9]+'[0-9]+\.[0-9]+E?
/// type        [0-9]+'(U|I|B|F|BF)
/// ```
///
/// Returns the shape and how many bytes of `rest` belong to the literal.
fn scan_number(digits: &[u8], rest: &[u8]) -> (Shape, usize) {
    let is_hex_start =
        |text: &[u8]| matches!(text, [b'0', b'x' | b'X', digit, ..] if digit.is_ascii_hexdigit());
    if let Some(after) = rest.strip_prefix(b"'") {
        if is_hex_start(after) {
            let hex_digits = run(&after[2..], |byte| byte.is_ascii_hexdigit());
            let end = 3 + hex_digits;
            let suffix = usize::from(matches!(after.get(2 + hex_digits), Some(b'U' | b'I')));
            return (Shape::SizedInt, end + suffix);
        }
        let value_digits = run(after, |byte| byte.is_ascii_digit());
        if value_digits > 0 {
            let fraction = fraction(&after[value_digits..]);
            if fraction > 0 {
                let end = value_digits + fraction;
                return (Shape::SizedFloat, 1 + end + exponent(&after[end..]));
            }
            let letter = usize::from(matches!(after.get(value_digits), Some(b'U' | b'I' | b'B')));
            return (Shape::SizedInt, 1 + value_digits + letter);
        }
        if after.starts_with(b"BF") {
            return (Shape::Type, 3);
        }
        if matches!(after.first(), Some(b'U' | b'I' | b'B' | b'F')) {
            return (Shape::Type, 2);
        }
        // A lone tick: the literal ends before it, and the tick is an invalid token.
        return (Shape::Int, 0);
    }
    if digits == b"0" && matches!(rest, [b'x' | b'X', digit, ..] if digit.is_ascii_hexdigit()) {
        let hex_digits = run(&rest[1..], |byte| byte.is_ascii_hexdigit());
        return (
            Shape::Int,
            1 + hex_digits + int_suffix(&rest[1 + hex_digits..]),
        );
    }
    let fraction = fraction(rest);
    if fraction > 0 {
        let end = fraction + exponent(&rest[fraction..]);
        return (
            Shape::Float,
            end + usize::from(rest.get(end) == Some(&b'F')),
        );
    }
    let exponent = exponent(rest);
    if exponent > 0 {
        return (
            Shape::Float,
            exponent + usize::from(rest.get(exponent) == Some(&b'F')),
        );
    }
    (Shape::Int, int_suffix(rest))
}

/// Lexes a whole numeric literal starting with the digits logos matched (see
/// [`scan_number`]), and decodes it.
fn lex_number<'src>(
    lex: &mut logos::Lexer<'src, Token<'src>>,
) -> Result<Token<'src>, LexErrorKind> {
    let (shape, extra) = scan_number(lex.slice().as_bytes(), lex.remainder().as_bytes());
    lex.bump(extra);
    let text = lex.slice();
    match shape {
        Shape::Int => lex_int(text).map(Token::Int),
        Shape::SizedInt => lex_sized_int(text).map(Token::Int),
        Shape::Float => lex_float(text).map(Token::Float),
        Shape::SizedFloat => lex_sized_float(text).map(Token::Float),
        Shape::Type => lex_type(text).map(Token::Type),
    }
}

/// `[0-9]+(U|LL|ULL)?` and `0x[0-9a-f]+(U|LL|ULL)?`.
fn lex_int(text: &str) -> Result<IntLit<'_>, LexErrorKind> {
    let (digits, suffix) = split_suffix(text);
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
    let hex = matches!(digits.get(..2), Some("0x" | "0X"));
    Ok(IntLit {
        hex,
        ..IntLit::new(value, "", suffix)
    })
}

/// `6'60U`, `3'0`, `8'0xff`: the value must fit in the width.
fn lex_sized_int(text: &str) -> Result<IntLit<'_>, LexErrorKind> {
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
fn lex_float(text: &str) -> Result<FloatLit, LexErrorKind> {
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
fn lex_sized_float(text: &str) -> Result<FloatLit, LexErrorKind> {
    let (width_text, digits) = text.split_once('\'').ok_or(LexErrorKind::InvalidToken)?;
    Ok(FloatLit {
        width: Some(width(width_text)?),
        value: float_value(digits)?,
    })
}

/// `32'U`, `16'BF`.
fn lex_type(text: &str) -> Result<TypeSpec, LexErrorKind> {
    let (width_text, letter) = text.split_once('\'').ok_or(LexErrorKind::InvalidToken)?;
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
