//! The assembly text lexer and line parser (LLVM AMDGPU syntax).
//!
//! A line is `[label:] [mnemonic [operand {, operand}] {modifier}] [; comment | // comment]`.
//! Operands are comma separated; modifiers (`glc`, `offset:0x10`, `op_sel:[0,1]`) follow the
//! last operand, separated by spaces. Symbolic operands such as `vmcnt(0) & expcnt(1)` are
//! chains of calls; they are parsed generically here and interpreted by the encoder, which
//! knows the operand kind.

use super::inst::AsmError;

/// A parsed operand expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A register range `s[0:1]`, `v[2:3]`, `ttmp[4:7]`, or a single `s5`/`v1`/`v1.h`.
    Reg {
        /// `s`, `v`, `a` or `ttmp`.
        file: String,
        /// The first register.
        lo: u32,
        /// The last register.
        hi: u32,
        /// `Some(false)` for `.l`, `Some(true)` for `.h`.
        half: Option<bool>,
    },
    /// A bare identifier: a special register, a symbolic constant or a label.
    Ident(String),
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// `-x`.
    Neg(Box<Expr>),
    /// `|x|` or `abs(x)`.
    Abs(Box<Expr>),
    /// `name(args)`, e.g. `lit(1)`, `hwreg(HW_REG_MODE, 0, 32)`, `vmcnt(0)`.
    Call {
        /// The function name.
        name: String,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// Calls joined by spaces, `&` or `|`: `vmcnt(0) & expcnt(0)`.
    Chain(Vec<Expr>),
    /// `[a, b, c]`.
    List(Vec<Expr>),
}

/// An operand with its column.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    /// The expression.
    pub expr: Expr,
    /// The 1-based column where it starts.
    pub col: usize,
}

/// A trailing modifier: `glc`, `offset:0x10`.
#[derive(Clone, Debug, PartialEq)]
pub struct Modifier {
    /// The name, lower case.
    pub name: String,
    /// The value after `:`.
    pub value: Option<Expr>,
    /// The 1-based column.
    pub col: usize,
}

/// One parsed instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    /// The mnemonic, lower case.
    pub mnemonic: String,
    /// The mnemonic's column.
    pub col: usize,
    /// Positional operands.
    pub args: Vec<Arg>,
    /// Modifiers.
    pub mods: Vec<Modifier>,
    /// The second half of a VOPD pair (`v_dual_x ... :: v_dual_y ...`).
    pub pair: Option<Box<Statement>>,
}

/// One parsed line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Line {
    /// Labels defined on the line, with their columns.
    pub labels: Vec<(String, usize)>,
    /// The instruction or directive, if any.
    pub stmt: Option<Statement>,
}

struct Cursor<'a> {
    text: &'a [u8],
    pos: usize,
    line: usize,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'.' || c == b'$'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'$'
}

impl<'a> Cursor<'a> {
    fn err(&self, message: impl Into<String>) -> AsmError {
        AsmError {
            line: self.line,
            col: self.pos + 1,
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn peek_at(&self, off: usize) -> Option<u8> {
        self.text.get(self.pos + off).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r')) {
            self.pos += 1;
        }
    }

    fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos >= self.text.len()
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), AsmError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(format!("expected `{}`", c as char)))
        }
    }

    fn ident(&mut self) -> Option<String> {
        self.skip_ws();
        let start = self.pos;
        if !self.peek().is_some_and(is_ident_start) {
            return None;
        }
        while self.peek().is_some_and(is_ident_char) {
            self.pos += 1;
        }
        Some(String::from_utf8_lossy(&self.text[start..self.pos]).into_owned())
    }

    fn number(&mut self) -> Result<Expr, AsmError> {
        self.skip_ws();
        let start = self.pos;
        if self.peek() == Some(b'0') && matches!(self.peek_at(1), Some(b'x' | b'X')) {
            self.pos += 2;
            let ds = self.pos;
            while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                self.pos += 1;
            }
            let digits = std::str::from_utf8(&self.text[ds..self.pos]).unwrap_or("");
            if digits.is_empty() {
                return Err(self.err("expected hex digits"));
            }
            return u64::from_str_radix(digits, 16)
                .ok()
                .and_then(|v| i64::try_from(v).ok())
                .map(Expr::Int)
                .ok_or_else(|| AsmError {
                    line: self.line,
                    col: start + 1,
                    message: "integer constant is too large".into(),
                });
        }
        let mut is_float = false;
        while let Some(c) = self.peek() {
            if c.is_ascii_digit() {
                self.pos += 1;
            } else if c == b'.' || c == b'e' || c == b'E' {
                is_float = true;
                self.pos += 1;
                if (c == b'e' || c == b'E') && matches!(self.peek(), Some(b'-' | b'+')) {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
        let text = std::str::from_utf8(&self.text[start..self.pos]).unwrap_or("");
        let bad = || AsmError {
            line: self.line,
            col: start + 1,
            message: format!("invalid number `{text}`"),
        };
        if is_float {
            text.parse::<f64>().map(Expr::Float).map_err(|_| bad())
        } else {
            text.parse::<i64>().map(Expr::Int).map_err(|_| AsmError {
                line: self.line,
                col: start + 1,
                message: "integer constant is too large".into(),
            })
        }
    }

    fn reg_index(&mut self) -> Result<u32, AsmError> {
        self.skip_ws();
        match self.number()? {
            Expr::Int(v) if (0..=u32::MAX as i64).contains(&v) => Ok(v as u32),
            _ => Err(self.err("expected a register index")),
        }
    }

    /// Parses a primary expression.
    fn primary(&mut self) -> Result<Expr, AsmError> {
        self.skip_ws();
        let Some(c) = self.peek() else {
            return Err(self.err("expected an operand"));
        };
        match c {
            b'-' => {
                self.pos += 1;
                let inner = self.primary()?;
                Ok(match inner {
                    Expr::Int(v) => Expr::Int(-v),
                    Expr::Float(v) => Expr::Float(-v),
                    other => Expr::Neg(Box::new(other)),
                })
            }
            b'|' => {
                self.pos += 1;
                let inner = self.primary()?;
                self.expect(b'|')?;
                Ok(Expr::Abs(Box::new(inner)))
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                if !self.eat(b']') {
                    loop {
                        items.push(self.primary()?);
                        if self.eat(b']') {
                            break;
                        }
                        self.expect(b',')?;
                    }
                }
                Ok(Expr::List(items))
            }
            b'(' => {
                self.pos += 1;
                let e = self.primary()?;
                self.expect(b')')?;
                Ok(e)
            }
            b'0'..=b'9' => self.number(),
            c if is_ident_start(c) => {
                let name = self.ident().unwrap_or_default();
                let lower = name.to_ascii_lowercase();
                // Register ranges: s[0:1], v[2:3], ttmp[4:5], a[0:1].
                if matches!(lower.as_str(), "s" | "v" | "a" | "ttmp" | "acc")
                    && self.peek() == Some(b'[')
                {
                    self.pos += 1;
                    let lo = self.reg_index()?;
                    let hi = if self.eat(b':') {
                        self.reg_index()?
                    } else {
                        lo
                    };
                    self.expect(b']')?;
                    let file = if lower == "acc" { "a".into() } else { lower };
                    return Ok(Expr::Reg {
                        file,
                        lo,
                        hi,
                        half: None,
                    });
                }
                if let Some(reg) = single_reg(&lower) {
                    return Ok(reg);
                }
                if self.peek() == Some(b'(') {
                    self.pos += 1;
                    let mut args = Vec::new();
                    if !self.eat(b')') {
                        loop {
                            args.push(self.primary()?);
                            if self.eat(b')') {
                                break;
                            }
                            self.expect(b',')?;
                        }
                    }
                    if lower == "abs" && args.len() == 1 {
                        return Ok(Expr::Abs(Box::new(args.remove(0))));
                    }
                    return Ok(Expr::Call { name: lower, args });
                }
                Ok(Expr::Ident(name))
            }
            _ => Err(self.err(format!("unexpected character `{}`", c as char))),
        }
    }

    /// Parses an operand: a primary, or a chain of calls.
    fn operand(&mut self) -> Result<Expr, AsmError> {
        let first = self.primary()?;
        if !matches!(first, Expr::Call { .. }) {
            return Ok(first);
        }
        let mut items = vec![first];
        loop {
            let save = self.pos;
            self.skip_ws();
            let sep = matches!(self.peek(), Some(b'&' | b'|'));
            if sep {
                self.pos += 1;
            }
            self.skip_ws();
            let save2 = self.pos;
            if self.ident().is_some() && self.peek() == Some(b'(') {
                self.pos = save2;
                items.push(self.primary()?);
            } else {
                self.pos = save;
                break;
            }
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Expr::Chain(items)
        })
    }
}

/// `s5`, `v7`, `v1.l`, `ttmp3`, `a2` as a register.
fn single_reg(lower: &str) -> Option<Expr> {
    let (file, rest) = if let Some(r) = lower.strip_prefix("ttmp") {
        ("ttmp", r)
    } else if let Some(r) = lower.strip_prefix("acc") {
        ("a", r)
    } else {
        let (f, r) = lower.split_at(1);
        if !matches!(f, "s" | "v" | "a") {
            return None;
        }
        (f, r)
    };
    let (num, half) = match rest.split_once('.') {
        Some((n, "l")) if file == "v" => (n, Some(false)),
        Some((n, "h")) if file == "v" => (n, Some(true)),
        Some(_) => return None,
        None => (rest, None),
    };
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) || num.len() > 4 {
        return None;
    }
    let idx: u32 = num.parse().ok()?;
    Some(Expr::Reg {
        file: file.into(),
        lo: idx,
        hi: idx,
        half,
    })
}

/// Removes a trailing `;` or `//` comment.
pub fn strip_comment(line: &str) -> &str {
    let cut = [line.find(';'), line.find("//")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(line.len());
    &line[..cut]
}

/// Parses one line (1-based `line_no`, used in errors).
///
/// # Errors
/// An [`AsmError`] with the column of the first token that does not fit the grammar.
pub fn parse_line(text: &str, line_no: usize) -> Result<Line, AsmError> {
    let body = strip_comment(text);
    // A VOPD pair: parse each half, the second with its columns shifted.
    if let Some(at) = body.find("::") {
        let mut first = parse_line(&body[..at], line_no)?;
        let mut second = parse_line(&body[at + 2..], line_no).map_err(|mut e| {
            e.col += at + 2;
            e
        })?;
        let (Some(stmt), Some(mut y)) = (first.stmt.as_mut(), second.stmt.take()) else {
            return Err(AsmError {
                line: line_no,
                col: at + 1,
                message: "expected an instruction on both sides of `::`".into(),
            });
        };
        if !second.labels.is_empty() || y.pair.is_some() {
            return Err(AsmError {
                line: line_no,
                col: at + 1,
                message: "invalid VOPD pair".into(),
            });
        }
        let shift = at + 2;
        y.col += shift;
        for a in &mut y.args {
            a.col += shift;
        }
        for m in &mut y.mods {
            m.col += shift;
        }
        stmt.pair = Some(Box::new(y));
        return Ok(first);
    }
    let mut cur = Cursor {
        text: body.as_bytes(),
        pos: 0,
        line: line_no,
    };
    let mut out = Line::default();
    loop {
        if cur.at_end() {
            return Ok(out);
        }
        let col = cur.pos + 1;
        let Some(word) = cur.ident() else {
            return Err(cur.err("expected a mnemonic or label"));
        };
        if cur.peek() == Some(b':') {
            cur.pos += 1;
            out.labels.push((word, col));
            continue;
        }
        let mut stmt = Statement {
            mnemonic: word.to_ascii_lowercase(),
            col,
            args: Vec::new(),
            mods: Vec::new(),
            pair: None,
        };
        if word.starts_with('.') {
            // Directives are accepted and ignored.
            out.stmt = Some(stmt);
            return Ok(out);
        }
        // Positional operands.
        if !cur.at_end() {
            loop {
                cur.skip_ws();
                let col = cur.pos + 1;
                // A modifier may directly follow the mnemonic (`s_endpgm` has none, but
                // e.g. `s_load ... glc`); detect `ident:` or a bare known modifier later.
                let save = cur.pos;
                if cur.ident().is_some() && cur.peek() == Some(b':') && stmt.args.is_empty() {
                    cur.pos = save;
                    break;
                }
                cur.pos = save;
                let expr = cur.operand()?;
                stmt.args.push(Arg { expr, col });
                if !cur.eat(b',') {
                    break;
                }
            }
        }
        // Modifiers.
        while !cur.at_end() {
            let col = cur.pos + 1;
            let Some(name) = cur.ident() else {
                return Err(cur.err("expected a modifier"));
            };
            let value = if cur.peek() == Some(b':') {
                cur.pos += 1;
                Some(cur.operand()?)
            } else if cur.peek() == Some(b'(') {
                // `name(...)` after operands, e.g. `row_shl(1)`: keep as a call value.
                cur.pos = col - 1;
                let e = cur.operand()?;
                stmt.mods.push(Modifier {
                    name: String::new(),
                    value: Some(e),
                    col,
                });
                continue;
            } else {
                None
            };
            stmt.mods.push(Modifier {
                name: name.to_ascii_lowercase(),
                value,
                col,
            });
            cur.eat(b',');
        }
        out.stmt = Some(stmt);
        return Ok(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_operands_and_modifiers() {
        let line = parse_line("lbl: s_load_b32 s5, s[2:3], s0 offset:0x10 glc // x", 1).unwrap();
        assert_eq!(line.labels, vec![("lbl".to_string(), 1)]);
        let stmt = line.stmt.unwrap();
        assert_eq!(stmt.mnemonic, "s_load_b32");
        assert_eq!(stmt.args.len(), 3);
        assert_eq!(stmt.mods.len(), 2);
        assert_eq!(stmt.mods[0].value, Some(Expr::Int(16)));
    }

    #[test]
    fn parses_call_chains() {
        let stmt = parse_line("s_waitcnt vmcnt(0) & expcnt(1)", 1)
            .unwrap()
            .stmt
            .unwrap();
        assert!(matches!(stmt.args[0].expr, Expr::Chain(ref v) if v.len() == 2));
    }
}
