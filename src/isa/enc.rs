//! The encoder's working state for one instruction ([`Enc`]: the word being built, its
//! literal, a branch label) and the operand encoders every format shares: scalar registers,
//! scalar and vector sources with inline constants and literals. Below every format; the
//! per-format encoders and the assembler (`encode.rs`) build on it.

use super::inst::AsmError;
use super::operands::{self, LITERAL};
use super::syntax::{Arg, Expr};
use super::tables::{Format, Tables};
use crate::spec::{Arch, Family};

/// The encoder's working state for one instruction.
pub(crate) struct Enc<'t> {
    pub(crate) tables: &'t Tables,
    fmt: &'t Format,
    pub(crate) bits: u128,
    pub(crate) literal: Option<u32>,
    /// A 64-bit literal (gfx1250's source code 0xfe, the `K` of `v_fmamk_f64`), which
    /// replaces `literal`.
    pub(crate) literal64: Option<u64>,
    pub(crate) line: usize,
    pub(crate) label: Option<(String, usize)>,
}

impl<'t> Enc<'t> {
    /// A fresh encoder for `fmt`, its fixed fields set.
    pub(crate) fn new(tables: &'t Tables, fmt: &'t Format, line: usize) -> Enc<'t> {
        let mut e = Enc {
            tables,
            fmt,
            bits: 0,
            literal: None,
            literal64: None,
            line,
            label: None,
        };
        for f in &fmt.fields {
            if let Some(v) = f.fixed {
                f.set(&mut e.bits, v);
            }
        }
        e
    }

    /// The first `size` bytes of the instruction, then the literal if one was set.
    pub(crate) fn finish(&self, size: usize) -> Vec<u8> {
        let mut bytes = self.bits.to_le_bytes()[..size].to_vec();
        self.push_literal(&mut bytes);
        bytes
    }

    /// Appends the literal set, if any (two dwords for a 64-bit one).
    pub(crate) fn push_literal(&self, bytes: &mut Vec<u8>) {
        if let Some(lit) = self.literal64 {
            bytes.extend_from_slice(&lit.to_le_bytes());
        } else if let Some(lit) = self.literal {
            bytes.extend_from_slice(&lit.to_le_bytes());
        }
    }

    /// Sets a 64-bit literal (the instruction then carries two literal dwords).
    pub(crate) fn set_literal64(&mut self, value: u64, col: usize) -> Result<(), AsmError> {
        if self.literal.is_some() || self.literal64.is_some_and(|v| v != value) {
            return Err(self.err(col, "only one unique literal operand is allowed"));
        }
        self.literal64 = Some(value);
        Ok(())
    }

    pub(crate) fn err(&self, col: usize, message: impl Into<String>) -> AsmError {
        AsmError {
            line: self.line,
            col,
            message: message.into(),
        }
    }

    pub(crate) fn set(&mut self, field: &str, value: u64) {
        if let Some(f) = self.fmt.field(field) {
            f.set(&mut self.bits, value);
        }
    }

    /// Whether the format being encoded has `field`.
    pub(crate) fn has_field(&self, field: &str) -> bool {
        self.fmt.field(field).is_some()
    }

    /// The value already stored in `field` (0 when the format has no such field).
    pub(crate) fn get(&self, field: &str) -> u64 {
        self.fmt.field(field).map_or(0, |f| f.get(self.bits))
    }

    /// The name of the format being encoded (`VOP1`, `VOP1_DPP16`...).
    pub(crate) fn format_name(&self) -> &str {
        &self.fmt.name
    }

    /// The literal constant set so far (the low dword of a 64-bit one).
    pub(crate) fn literal(&self) -> Option<u32> {
        self.literal.or(self.literal64.map(|v| v as u32))
    }

    pub(crate) fn set_literal(&mut self, value: u32, col: usize) -> Result<(), AsmError> {
        if self.literal64.is_some() {
            return Err(self.err(col, "only one unique literal operand is allowed"));
        }
        match self.literal {
            Some(v) if v != value => {
                Err(self.err(col, "only one unique literal operand is allowed"))
            }
            _ => {
                self.literal = Some(value);
                Ok(())
            }
        }
    }
}

/// A 64-bit operand given as integer `v` where gfx1250's 64-bit literal is allowed (as
/// llvm-mc-22 -mcpu=gfx1250 encodes it): an integer operand takes the 32-bit literal for
/// 0..=i32::MAX and the 64-bit one otherwise; a float operand takes a value of 32 unsigned
/// bits as the high dword (the 32-bit literal) and any other pattern as 64 bits. A full
/// pattern that is an inline float is that constant unless `forced` (`lit(...)`).
fn encode_int64(
    e: &mut Enc<'_>,
    col: usize,
    v: i64,
    float: bool,
    forced: bool,
) -> Result<u32, AsmError> {
    let fits = if float {
        int_in(v, 0, i64::from(u32::MAX))
    } else {
        int_in(v, 0, i64::from(i32::MAX))
    };
    if fits {
        e.set_literal(v as u32, col)?;
        return Ok(LITERAL);
    }
    if !forced {
        if let Some(code) = operands::literal_inline_code(v as u64, 64) {
            return Ok(code);
        }
    }
    e.set_literal64(v as u64, col)?;
    Ok(operands::LITERAL64)
}

/// The number of a single whole VGPR (`v0`..`v255`), if `expr` is one.
pub(crate) fn single_vgpr(expr: &Expr) -> Option<u32> {
    match expr {
        Expr::Reg {
            file,
            lo,
            hi,
            half: None,
        } if file == "v" && lo == hi && *lo < 256 => Some(*lo),
        _ => None,
    }
}

/// The register code and count of a scalar register expression.
pub(crate) fn scalar_reg(arch: Arch, expr: &Expr) -> Option<(u32, u32)> {
    match expr {
        Expr::Reg {
            file,
            lo,
            hi,
            half: None,
        } if hi >= lo => {
            let count = hi - lo + 1;
            let (base, limit) = match file.as_str() {
                "s" => (0, operands::sgpr_limit(arch)),
                "ttmp" => (108, 124),
                _ => return None,
            };
            let code = base + lo;
            if code + count > limit {
                return None;
            }
            // Tuples are aligned: 2 for 64-bit, 4 for wider.
            let align = if count >= 4 { 4 } else { count.min(2) };
            if count > 1 && lo % align != 0 {
                return None;
            }
            Some((code, count))
        }
        Expr::Ident(name) => operands::special_code(arch, &name.to_ascii_lowercase()),
        _ => None,
    }
}

/// Codes that name one register whatever the operand size (`null`, `src_scc`, ...).
fn any_size(arch: Arch, code: u32) -> bool {
    code >= 235
        || code == operands::FLAT_SCRATCH_BASE_LO && arch == Arch::Cdna5
        || operands::special_code(arch, "null").map(|c| c.0) == Some(code)
}

pub(crate) fn int_in(v: i64, lo: i64, hi: i64) -> bool {
    (lo..=hi).contains(&v)
}

/// Encodes a scalar source operand: returns the code (and may set the literal).
pub(crate) fn encode_ssrc(
    e: &mut Enc<'_>,
    arg: &Arg,
    bits: u32,
    float: bool,
) -> Result<u32, AsmError> {
    let arch = e.tables.arch;
    let regs = bits.div_ceil(32).max(1);
    let lit64 = bits == 64 && operands::literal64_allowed(arch, e.format_name());
    match &arg.expr {
        Expr::Int(v) => {
            let v = *v;
            if let Some(code) = operands::int_code(v) {
                return Ok(code);
            }
            if lit64 {
                return encode_int64(e, arg.col, v, float, false);
            }
            // A 16-bit float operand takes a 16-bit literal.
            if bits == 16 && float && !int_in(v, -32768, 65535) {
                return Err(e.err(arg.col, "invalid operand for instruction"));
            }
            let pattern = if bits == 64 {
                if !int_in(v, i64::from(i32::MIN), i64::from(u32::MAX)) {
                    // A full 64-bit pattern is only accepted when it is an inline float.
                    if let Some(code) = operands::literal_inline_code(v as u64, 64) {
                        return Ok(code);
                    }
                    return Err(e.err(arg.col, "invalid operand for instruction"));
                }
                v as u32
            } else {
                if !int_in(v, i64::from(i32::MIN), i64::from(u32::MAX)) {
                    return Err(e.err(arg.col, "invalid operand for instruction"));
                }
                v as u32
            };
            if bits <= 32 {
                if let Some(code) = operands::literal_inline_code(u64::from(pattern), bits.max(32))
                {
                    return Ok(code);
                }
            }
            e.set_literal(pattern, arg.col)?;
            Ok(LITERAL)
        }
        Expr::Float(f) => {
            if let Some(code) = operands::float_code(*f) {
                // For a 64-bit integer operand llvm-mc takes 1/(2*pi) only with the
                // double's digits (`0.15915494309189532`), as it prints it.
                if code == 248
                    && bits == 64
                    && !float
                    && f.to_bits() != operands::INLINE_FLOATS[8].4
                {
                    return Err(e.err(arg.col, "invalid operand for instruction"));
                }
                return Ok(code);
            }
            if bits == 64 {
                let b = f.to_bits();
                if float && b & 0xffff_ffff == 0 {
                    e.set_literal((b >> 32) as u32, arg.col)?;
                    return Ok(LITERAL);
                }
                if lit64 && float {
                    e.set_literal64(b, arg.col)?;
                    return Ok(operands::LITERAL64);
                }
                return Err(e.err(arg.col, "invalid operand for instruction"));
            }
            e.set_literal((*f as f32).to_bits(), arg.col)?;
            Ok(LITERAL)
        }
        Expr::Call { name, args } if name == "lit64" && args.len() == 1 && lit64 => {
            let v = match &args[0] {
                Expr::Int(v) => *v as u64,
                Expr::Float(f) if float => f.to_bits(),
                _ => return Err(e.err(arg.col, "invalid literal")),
            };
            e.set_literal64(v, arg.col)?;
            Ok(operands::LITERAL64)
        }
        Expr::Call { name, args } if name == "lit" && args.len() == 1 && lit64 => match &args[0] {
            Expr::Int(v) => encode_int64(e, arg.col, *v, float, true),
            Expr::Float(f) if float && f.to_bits() & 0xffff_ffff == 0 => {
                e.set_literal((f.to_bits() >> 32) as u32, arg.col)?;
                Ok(LITERAL)
            }
            Expr::Float(f) if float => {
                e.set_literal64(f.to_bits(), arg.col)?;
                Ok(operands::LITERAL64)
            }
            _ => Err(e.err(arg.col, "invalid literal")),
        },
        Expr::Call { name, args } if name == "lit" && args.len() == 1 => {
            let v = match &args[0] {
                Expr::Int(v) if int_in(*v, i64::from(i32::MIN), i64::from(u32::MAX)) => *v as u32,
                Expr::Float(f) => (*f as f32).to_bits(),
                _ => return Err(e.err(arg.col, "invalid literal")),
            };
            e.set_literal(v, arg.col)?;
            Ok(LITERAL)
        }
        other => {
            let Some((code, count)) = scalar_reg(arch, other) else {
                return Err(e.err(arg.col, "invalid operand for instruction"));
            };
            // RDNA has no `src_vccz`/`src_execz` sources ("not available on this GPU").
            if !arch.is_gfx9() && matches!(code, 251 | 252) {
                return Err(e.err(arg.col, "register not available on this GPU"));
            }
            if !any_size(arch, code) && count != regs {
                return Err(e.err(arg.col, "invalid register size for operand"));
            }
            Ok(code)
        }
    }
}

pub(crate) fn encode_sreg(e: &Enc<'_>, arg: &Arg, regs: u32) -> Result<u32, AsmError> {
    let Some((code, count)) = scalar_reg(e.tables.arch, &arg.expr) else {
        return Err(e.err(arg.col, "invalid operand for instruction"));
    };
    if count != regs && !any_size(e.tables.arch, code) {
        return Err(e.err(arg.col, "invalid register size for operand"));
    }
    Ok(code)
}

/// Encodes a 9-bit source operand; returns the code and the `.h` flag.
pub(crate) fn encode_src(
    e: &mut Enc<'_>,
    expr: &Expr,
    col: usize,
    bits: u32,
    float: bool,
) -> Result<(u32, bool), AsmError> {
    let regs = bits.div_ceil(32).max(1);
    match expr {
        Expr::Reg {
            file, lo, hi, half, ..
        } if file == "v" => {
            if hi < lo || hi - lo + 1 != regs || *hi > 255 {
                return Err(e.err(col, "invalid register size for operand"));
            }
            if e.tables.arch.is_gfx9() && regs > 1 && lo % 2 != 0 {
                return Err(e.err(col, "invalid register alignment"));
            }
            if half.is_some() && (bits != 16 || e.tables.arch.family() != Family::Gfx11) {
                return Err(e.err(col, "invalid operand for instruction"));
            }
            Ok((256 + lo, *half == Some(true)))
        }
        Expr::Int(v) if bits == 16 => {
            let v = *v;
            if let Some(code) = operands::int_code(v) {
                return Ok((code, false));
            }
            if !(-32768..=65535).contains(&v) {
                return Err(e.err(col, "invalid operand for instruction"));
            }
            if float {
                if let Some(code) = operands::literal_inline_code(v as u64 & 0xffff, 16) {
                    return Ok((code, false));
                }
            }
            e.set_literal(v as u32 & 0xffff, col)?;
            Ok((LITERAL, false))
        }
        Expr::Float(fv) if bits == 16 => {
            if let Some(code) = operands::float_code(*fv) {
                return Ok((code, false));
            }
            let h = half_bits(*fv).ok_or_else(|| e.err(col, "invalid operand for instruction"))?;
            e.set_literal(u32::from(h), col)?;
            Ok((LITERAL, false))
        }
        _ => {
            let arg = Arg {
                expr: expr.clone(),
                col,
            };
            let code = encode_ssrc(e, &arg, bits.max(32), float)?;
            Ok((code, false))
        }
    }
}

/// The IEEE half bits of `v`, if exactly representable.
fn half_bits(v: f64) -> Option<u16> {
    let f = v as f32;
    if f64::from(f) != v {
        return None;
    }
    let b = f.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let mant = b & 0x7f_ffff;
    if f == 0.0 {
        return Some(sign);
    }
    if !(1..31).contains(&exp) || mant & 0x1fff != 0 {
        return None;
    }
    Some(sign | ((exp as u16) << 10) | (mant >> 13) as u16)
}

/// Whether a VALU source may name `code`: RDNA has no `src_vccz`/`src_execz`, and no arch
/// here has `src_lds_direct` (llvm-mc: "not available on this GPU"; on gfx1250 the code is
/// the 64-bit literal).
pub(crate) fn source_available(arch: Arch, code: u32) -> bool {
    match code {
        254 => operands::is_literal64(arch, code),
        251 | 252 => arch.is_gfx9(),
        _ => true,
    }
}
