//! The decoded instruction and its operands (what the decoder produces and every printer and
//! the executors read), the assembler's error and output, and how a field's raw value reads as
//! an operand value. Below every format: the per-format decoders, the encoder and the printer
//! all build on these.

use std::fmt;

use super::operands::{self, Reg, LITERAL};
use super::tables::{Format, InstInfo, Tables};

/// The value of one decoded operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A register or register range.
    Reg(Reg),
    /// An inline integer constant (source codes 128..=208).
    InlineInt(i64),
    /// An inline float constant, by source code (240..=248).
    InlineFloat(u32),
    /// A literal constant that followed the instruction: 32 bits, or 64 for gfx1250's
    /// 64-bit literal (source code 0xfe).
    Literal(u64),
    /// An immediate field (offsets, `simm16`, counters).
    Imm(i64),
    /// A source code with no known meaning on this arch.
    Unknown(u32),
}

/// One operand of a decoded instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    /// The encoding field it came from, e.g. `sdst`, `ssrc0`, `simm16`.
    pub field: String,
    /// Its value.
    pub value: Value,
}

/// A decoded instruction: the data the executor reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    /// The spec's canonical name, e.g. `S_WQM_B64`.
    pub name: String,
    /// The format family, e.g. `SOP1`.
    pub family: String,
    /// The exact `ins.py` class, e.g. `SOP1_LIT`.
    pub format: String,
    /// The opcode.
    pub opcode: u32,
    /// Every non-fixed bit field with its raw value, in `ins.py` order.
    pub fields: Vec<(String, u64)>,
    /// The operands in printed order.
    pub operands: Vec<Operand>,
    /// The literal constant, if one followed the instruction word(s): one dword, or two for
    /// gfx1250's 64-bit literal (source code 0xfe, [`operands::LITERAL64`]) and the `K` of
    /// `v_fmamk_f64`/`v_fmaak_f64`.
    pub literal: Option<u64>,
    /// The encoded size in bytes.
    pub size: usize,
}

impl Inst {
    /// The raw value of field `name`.
    pub fn field(&self, name: &str) -> Option<u64> {
        self.fields.iter().find(|(n, _)| n == name).map(|&(_, v)| v)
    }
}

/// Why bytes could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Fewer bytes than the instruction needs.
    Truncated {
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// No format and opcode of this arch matches the word.
    Unknown {
        /// The first instruction dword.
        word: u32,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Truncated { needed, available } => write!(
                f,
                "truncated instruction: needs {needed} bytes, {available} available"
            ),
            DecodeError::Unknown { word } => write!(f, "invalid instruction word 0x{word:08x}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// An assembly error at a line and column (both 1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// The line.
    pub line: usize,
    /// The column.
    pub col: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for AsmError {}

/// One assembled instruction with its source position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assembled {
    /// The 1-based source line.
    pub line: usize,
    /// The byte offset of the instruction in the output.
    pub offset: usize,
    /// The encoded bytes.
    pub bytes: Vec<u8>,
}

/// How many literal bytes follow an instruction `info` encoded with these fields: 4 for the
/// 32-bit literal (a source field holding 255, a `K` operand, `S_*_IMM32`), 8 for gfx1250's
/// 64-bit literal (a source field holding 0xfe) and the 64-bit `K` of
/// `v_fmamk_f64`/`v_fmaak_f64`, 0 for none.
pub(crate) fn literal_bytes(tables: &Tables, info: &InstInfo, fmt: &Format, bits: u128) -> usize {
    if info.family == "SOPK" {
        return if info.name.contains("IMM32") { 4 } else { 0 };
    }
    if super::layout::has_literal_k(info) {
        return if info.name.contains("F64") { 8 } else { 4 };
    }
    let mut bytes = 0;
    for op in &info.operands {
        if op.kind == "SENDMSG_RTN" || op.kind.starts_with("SIMM") {
            continue;
        }
        let Some(f) = fmt.field(&op.field) else {
            continue;
        };
        if !matches!(f.kind.as_str(), "SSrcField" | "SrcField") {
            continue;
        }
        let code = f.get(bits) as u32;
        if code == LITERAL {
            bytes = bytes.max(4);
        } else if operands::is_literal64(tables.arch, code) {
            bytes = 8;
        }
    }
    bytes
}

/// The structured value of a field.
pub(crate) fn value_of(
    tables: &Tables,
    fmt: &Format,
    field: &str,
    bits: u32,
    raw: u64,
    literal: Option<u64>,
) -> Value {
    let kind = fmt.field(field).map(|f| f.kind.as_str()).unwrap_or("");
    let regs = bits.div_ceil(32).max(1) as u8;
    let code = raw as u32;
    match kind {
        "VGPRField" => Value::Reg(Reg::Vgpr {
            index: code as u16,
            count: regs,
        }),
        "SBaseField" => scalar_value(tables, code * 2, regs),
        "SSrcField" | "SGPRField" | "SrcField" => {
            if code >= 256 {
                return Value::Reg(Reg::Vgpr {
                    index: (code - 256) as u16,
                    count: regs,
                });
            }
            if code == LITERAL || operands::is_literal64(tables.arch, code) {
                return Value::Literal(literal.unwrap_or(0));
            }
            if let Some(v) = operands::inline_int(code) {
                return Value::InlineInt(v);
            }
            if (240..=248).contains(&code) {
                return Value::InlineFloat(code);
            }
            scalar_value(tables, code, regs)
        }
        _ => Value::Imm(raw as i64),
    }
}

fn scalar_value(tables: &Tables, code: u32, regs: u8) -> Value {
    let limit = operands::sgpr_limit(tables.arch);
    if code < limit {
        Value::Reg(Reg::Sgpr {
            index: code as u16,
            count: regs,
        })
    } else if (108..124).contains(&code) {
        Value::Reg(Reg::Ttmp {
            index: (code - 108) as u16,
            count: regs,
        })
    } else if operands::sreg_text(tables.arch, code, 1).is_some() {
        Value::Reg(Reg::Special {
            code: code as u16,
            count: regs,
        })
    } else {
        Value::Unknown(code)
    }
}

/// Whether 9-bit source code `code` names something on this arch (a register, an inline
/// constant or the literal).
pub(crate) fn known_src(tables: &Tables, code: u32) -> bool {
    code >= 256
        || code == LITERAL
        || operands::is_literal64(tables.arch, code)
        || !matches!(value_of_code(tables, code), Value::Unknown(_))
}

fn value_of_code(tables: &Tables, code: u32) -> Value {
    if let Some(v) = operands::inline_int(code) {
        return Value::InlineInt(v);
    }
    if (240..=248).contains(&code) {
        return Value::InlineFloat(code);
    }
    scalar_value(tables, code, 1)
}
