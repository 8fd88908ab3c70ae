//! Operand encodings shared by every format: scalar register codes, inline constants and the
//! 9-bit source operand space.
//!
//! The spec wheel gives fields and sizes but not the meaning of each source code (that lives
//! in AMD's prose), so the code map is written here once per arch family. It is a description
//! of the operand space, not a list of instructions.

use crate::spec::{Arch, Wheel};

/// A register operand: a file, a first index and a count of 32-bit registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reg {
    /// `s5`, `s[0:1]`.
    Sgpr {
        /// The first register.
        index: u16,
        /// The number of registers.
        count: u8,
    },
    /// `v5`, `v[2:3]`; `hi` selects the upper 16-bit half (`v1.h`).
    Vgpr {
        /// The first register.
        index: u16,
        /// The number of registers.
        count: u8,
    },
    /// `a5`, `a[0:1]` (CDNA accumulation registers).
    Agpr {
        /// The first register.
        index: u16,
        /// The number of registers.
        count: u8,
    },
    /// `ttmp5`, `ttmp[4:5]`.
    Ttmp {
        /// The first register.
        index: u16,
        /// The number of registers.
        count: u8,
    },
    /// A named special register or constant source (`vcc`, `exec_lo`, `m0`, `null`, `scc`...),
    /// by its source code.
    Special {
        /// The source code.
        code: u16,
        /// The number of 32-bit registers (2 for `vcc`, `exec`).
        count: u8,
    },
}

/// The first SGPR code that is not a numbered SGPR.
pub fn sgpr_limit(arch: Arch) -> u32 {
    arch.profile().sgprs
}

/// Named scalar codes of one arch: (code, 32-bit name, 64-bit name).
fn specials(arch: Arch) -> &'static [(u32, &'static str, Option<&'static str>)] {
    if arch.family() == crate::spec::Family::Gfx10 {
        // GFX10 keeps GFX9's `m0` (124) and puts `null` after it (llvm-mc-22, gfx1030).
        return &[
            (106, "vcc_lo", Some("vcc")),
            (107, "vcc_hi", None),
            (124, "m0", None),
            (125, "null", Some("null")),
            (126, "exec_lo", Some("exec")),
            (127, "exec_hi", None),
            (235, "src_shared_base", Some("src_shared_base")),
            (236, "src_shared_limit", Some("src_shared_limit")),
            (237, "src_private_base", Some("src_private_base")),
            (238, "src_private_limit", Some("src_private_limit")),
            (239, "src_pops_exiting_wave_id", None),
            (251, "src_vccz", None),
            (252, "src_execz", None),
            (253, "src_scc", None),
            (254, "src_lds_direct", None),
        ];
    }
    if arch == Arch::Cdna5 {
        // gfx1250 (llvm-mc-22): no `src_lds_direct` (its code 0xfe is the 64-bit literal);
        // `src_flat_scratch_base_lo/hi` (0xe6/0xe7) read the wave's flat scratch base, which a
        // 64-bit read takes whole (printed `src_flat_scratch_base_lo`).
        return &[
            (106, "vcc_lo", Some("vcc")),
            (107, "vcc_hi", None),
            (124, "null", Some("null")),
            (125, "m0", None),
            (126, "exec_lo", Some("exec")),
            (127, "exec_hi", None),
            (
                FLAT_SCRATCH_BASE_LO,
                "src_flat_scratch_base_lo",
                Some("src_flat_scratch_base_lo"),
            ),
            (FLAT_SCRATCH_BASE_LO + 1, "src_flat_scratch_base_hi", None),
            (235, "src_shared_base", Some("src_shared_base")),
            (236, "src_shared_limit", Some("src_shared_limit")),
            (237, "src_private_base", Some("src_private_base")),
            (238, "src_private_limit", Some("src_private_limit")),
            (251, "src_vccz", None),
            (252, "src_execz", None),
            (253, "src_scc", None),
        ];
    }
    match arch.wheel() {
        Wheel::Cdna => &[
            (102, "flat_scratch_lo", Some("flat_scratch")),
            (103, "flat_scratch_hi", None),
            (104, "xnack_mask_lo", Some("xnack_mask")),
            (105, "xnack_mask_hi", None),
            (106, "vcc_lo", Some("vcc")),
            (107, "vcc_hi", None),
            (124, "m0", None),
            (126, "exec_lo", Some("exec")),
            (127, "exec_hi", None),
            (235, "src_shared_base", Some("src_shared_base")),
            (236, "src_shared_limit", Some("src_shared_limit")),
            (237, "src_private_base", Some("src_private_base")),
            (238, "src_private_limit", Some("src_private_limit")),
            (239, "src_pops_exiting_wave_id", None),
            (251, "src_vccz", None),
            (252, "src_execz", None),
            (253, "src_scc", None),
            (254, "src_lds_direct", None),
        ],
        _ => &[
            (106, "vcc_lo", Some("vcc")),
            (107, "vcc_hi", None),
            (124, "null", Some("null")),
            (125, "m0", None),
            (126, "exec_lo", Some("exec")),
            (127, "exec_hi", None),
            (235, "src_shared_base", Some("src_shared_base")),
            (236, "src_shared_limit", Some("src_shared_limit")),
            (237, "src_private_base", Some("src_private_base")),
            (238, "src_private_limit", Some("src_private_limit")),
            (251, "src_vccz", None),
            (252, "src_execz", None),
            (253, "src_scc", None),
            (254, "src_lds_direct", None),
        ],
    }
}

/// Other spellings the assembler accepts for special codes.
fn special_aliases(name: &str) -> Option<&'static str> {
    Some(match name {
        "vccz" => "src_vccz",
        "execz" => "src_execz",
        "scc" => "src_scc",
        "lds_direct" => "src_lds_direct",
        "shared_base" => "src_shared_base",
        "shared_limit" => "src_shared_limit",
        "private_base" => "src_private_base",
        "private_limit" => "src_private_limit",
        "pops_exiting_wave_id" => "src_pops_exiting_wave_id",
        _ => return None,
    })
}

/// The inline float constants: (code, value, text, f32 bits, f64 bits, f16 bits).
pub const INLINE_FLOATS: [(u32, f64, &str, u32, u64, u16); 9] = [
    (240, 0.5, "0.5", 0x3f00_0000, 0x3fe0_0000_0000_0000, 0x3800),
    (
        241,
        -0.5,
        "-0.5",
        0xbf00_0000,
        0xbfe0_0000_0000_0000,
        0xb800,
    ),
    (242, 1.0, "1.0", 0x3f80_0000, 0x3ff0_0000_0000_0000, 0x3c00),
    (
        243,
        -1.0,
        "-1.0",
        0xbf80_0000,
        0xbff0_0000_0000_0000,
        0xbc00,
    ),
    (244, 2.0, "2.0", 0x4000_0000, 0x4000_0000_0000_0000, 0x4000),
    (
        245,
        -2.0,
        "-2.0",
        0xc000_0000,
        0xc000_0000_0000_0000,
        0xc000,
    ),
    (246, 4.0, "4.0", 0x4080_0000, 0x4010_0000_0000_0000, 0x4400),
    (
        247,
        -4.0,
        "-4.0",
        0xc080_0000,
        0xc010_0000_0000_0000,
        0xc400,
    ),
    (
        248,
        0.159_154_943_091_895_35,
        "0.15915494",
        0x3e22_f983,
        0x3fc4_5f30_6dc9_c882,
        0x3118,
    ),
];

/// The literal-constant source code.
pub const LITERAL: u32 = 255;

/// gfx1250's 64-bit literal source code: two dwords follow the instruction (on the other
/// arches the code is `src_lds_direct`).
pub const LITERAL64: u32 = 254;

/// gfx1250's `src_flat_scratch_base_lo` source code (`_hi` is the next one).
pub const FLAT_SCRATCH_BASE_LO: u32 = 230;

/// Whether source code `code` is the 64-bit literal on `arch`.
pub fn is_literal64(arch: Arch, code: u32) -> bool {
    code == LITERAL64 && arch == Arch::Cdna5
}

/// Whether an instruction of format `format` takes the 64-bit literal for a 64-bit source
/// on `arch`: gfx1250's 32-bit VALU and scalar ALU encodings (llvm-mc-22 refuses it in VOP3).
pub fn literal64_allowed(arch: Arch, format: &str) -> bool {
    arch == Arch::Cdna5
        && matches!(
            format,
            "VOP1"
                | "VOP2"
                | "VOPC"
                | "SOP1"
                | "SOP2"
                | "SOPC"
                | "VOP1_LIT"
                | "VOP2_LIT"
                | "VOPC_LIT"
                | "SOP1_LIT"
                | "SOP2_LIT"
                | "SOPC_LIT"
        )
}

/// How LLVM prints a 64-bit literal `v` (gfx1250's code 0xfe, or the `K` of
/// `v_fmamk_f64`/`v_fmaak_f64` when `k`): a value that fits in 32 unsigned bits as
/// `lit64(0x..)` (so it re-assembles to the 64-bit form), a source that equals an inline
/// constant as that constant, a float whose low dword is zero as its high dword (the 32-bit
/// literal spelling), anything else in full hex (measured with llvm-mc-22 -mcpu=gfx1250).
pub fn literal64_text(v: u64, float: bool, k: bool) -> String {
    if v <= u64::from(u32::MAX) {
        return format!("lit64(0x{v:x})");
    }
    if !k {
        if let Some(c) = literal_inline_code(v, 64) {
            if let Some(t) = inline_text(c) {
                return if c == 248 {
                    "0.15915494309189532".into()
                } else {
                    t
                };
            }
        }
    }
    if float && v as u32 == 0 {
        format!("0x{:x}", v >> 32)
    } else {
        format!("0x{v:x}")
    }
}

/// The text of a scalar register code holding `count` registers, or `None` if the code is
/// not a register (or cannot hold that many).
pub fn sreg_text(arch: Arch, code: u32, count: u32) -> Option<String> {
    let count = count.max(1);
    if code < sgpr_limit(arch) {
        if count == 1 {
            return Some(format!("s{code}"));
        }
        if code + count > sgpr_limit(arch) {
            return None;
        }
        return Some(format!("s[{}:{}]", code, code + count - 1));
    }
    if (108..124).contains(&code) {
        let t = code - 108;
        if count == 1 {
            return Some(format!("ttmp{t}"));
        }
        if code + count > 124 {
            return None;
        }
        return Some(format!("ttmp[{}:{}]", t, t + count - 1));
    }
    let &(_, lo, wide) = specials(arch).iter().find(|s| s.0 == code)?;
    if count == 1 || lo == "null" || code >= FLAT_SCRATCH_BASE_LO {
        Some(lo.to_string())
    } else if count == 2 {
        wide.map(str::to_string)
    } else {
        None
    }
}

/// The 32-bit name of special scalar code `code` (`vcc_lo`, `exec_hi`, `m0`, ...).
pub fn special_name(arch: Arch, code: u32) -> Option<&'static str> {
    specials(arch).iter().find(|s| s.0 == code).map(|s| s.1)
}

/// The code of a named special register (`vcc`, `exec_lo`, `m0`, `null`, `src_scc`...)
/// and its register count.
pub fn special_code(arch: Arch, name: &str) -> Option<(u32, u32)> {
    let name = special_aliases(name).unwrap_or(name);
    for &(code, lo, wide) in specials(arch) {
        if wide == Some(name) && lo != name {
            return Some((code, 2));
        }
        if lo == name {
            return Some((code, 1));
        }
    }
    None
}

/// The text of an inline constant code, as LLVM prints it.
pub fn inline_text(code: u32) -> Option<String> {
    match code {
        128..=192 => Some((code - 128).to_string()),
        193..=208 => Some(format!("-{}", code - 192)),
        240..=248 => Some(INLINE_FLOATS[(code - 240) as usize].2.to_string()),
        _ => None,
    }
}

/// The inline integer value of a code.
pub fn inline_int(code: u32) -> Option<i64> {
    match code {
        128..=192 => Some(i64::from(code) - 128),
        193..=208 => Some(192 - i64::from(code)),
        _ => None,
    }
}

/// The inline constant code of an integer value, if it has one.
pub fn int_code(value: i64) -> Option<u32> {
    match value {
        0..=64 => Some(128 + value as u32),
        -16..=-1 => Some((192 - value) as u32),
        _ => None,
    }
}

/// How many bytes of literal a value of this many bits needs, and how the literal is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// An integer or bit pattern.
    Int,
    /// An IEEE float (of the operand's size).
    Float,
}

/// The value kind of an operand data format (`NUM_F32` → Float).
pub fn value_kind(format: &str) -> ValueKind {
    // 8-, 6- and 4-bit floats travel as packed integers (LLVM gives them no float
    // modifiers or float constants).
    let tiny = ["FP8", "BF8", "FP6", "BF6", "FP4"]
        .iter()
        .any(|t| format.contains(t));
    if !tiny && (format.contains("_F") || format.contains("BF16")) {
        ValueKind::Float
    } else {
        ValueKind::Int
    }
}

/// The inline code (if any) whose meaning equals the 32-bit literal pattern `value` for an
/// operand of `bits` bits.
pub fn literal_inline_code(value: u64, bits: u32) -> Option<u32> {
    let as_int = match bits {
        64 => value as i64,
        16 => i64::from(value as u16 as i16),
        _ => i64::from(value as u32 as i32),
    };
    if let Some(c) = int_code(as_int) {
        return Some(c);
    }
    for &(code, _, _, f32b, f64b, f16b) in &INLINE_FLOATS {
        let hit = match bits {
            64 => value == f64b,
            16 => value == u64::from(f16b),
            _ => value == u64::from(f32b),
        };
        if hit {
            return Some(code);
        }
    }
    None
}

/// The inline code of a float value, if it is one of the inline floats.
pub fn float_code(value: f64) -> Option<u32> {
    INLINE_FLOATS
        .iter()
        .find(|f| f.1.to_bits() == value.to_bits() || (f.0 == 248 && (value - f.1).abs() < 1e-7))
        .map(|f| f.0)
}
