//! How operand values are spelled in assembly text, shared by the printer (`print.rs` and
//! each format's printer) and the assembler: source and scalar register codes, and the
//! symbolic names of the 16-bit operands (`s_waitcnt` counters, `s_delay_alu`,
//! `s_waitcnt_depctr`, GFX9 `sendmsg`, `gpr_idx`). Below every format.

use super::operands::{self, LITERAL};
use super::tables::Tables;
use crate::spec::Arch;

/// A scalar register operand (or its raw code when it names nothing).
pub(crate) fn sreg(tables: &Tables, code: u32, regs: u32) -> String {
    operands::sreg_text(tables.arch, code, regs)
        .or_else(|| operands::inline_text(code))
        .unwrap_or_else(|| format!("{code}"))
}

/// A scalar or vector source operand.
pub(crate) fn src(tables: &Tables, code: u32, bits: u32, literal: Option<u64>) -> String {
    src_typed(tables, code, bits, false, literal)
}

/// A scalar or vector source operand of a float (`float`) or integer format.
pub(crate) fn src_typed(
    tables: &Tables,
    code: u32,
    bits: u32,
    float: bool,
    literal: Option<u64>,
) -> String {
    let regs = bits.div_ceil(32).max(1);
    if operands::is_literal64(tables.arch, code) {
        return operands::literal64_text(literal.unwrap_or(0), float, false);
    }
    let literal = literal.map(|v| v as u32);
    if code >= 256 {
        let v = code - 256;
        return if regs == 1 {
            format!("v{v}")
        } else {
            format!("v[{}:{}]", v, v + regs - 1)
        };
    }
    if code == LITERAL {
        let v = literal.unwrap_or(0);
        // A literal whose value is also an inline constant prints as `lit(...)` (LLVM 22's
        // spelling), so that it re-assembles to the literal form rather than the inline code.
        let inline = if bits > 32 {
            operands::int_code(i64::from(v)).is_some()
        } else {
            operands::int_code(i64::from(v)).is_some()
                || operands::literal_inline_code(u64::from(v), 32).is_some()
        };
        return if inline {
            format!("lit(0x{v:x})")
        } else {
            format!("0x{v:x}")
        };
    }
    // 1/(2*pi) of a 64-bit operand prints with the double's digits.
    if code == 248 && bits == 64 {
        return "0.15915494309189532".into();
    }
    if let Some(t) = operands::inline_text(code) {
        return t;
    }
    sreg(tables, code, regs)
}

/// (name, low bit, width) of each `s_waitcnt` counter (the layout is kept once, in
/// `machine::facts::waitcnt_fields`).
pub(crate) fn waitcnt_fields(arch: Arch) -> Vec<(&'static str, u32, u32)> {
    crate::machine::facts::waitcnt_fields(arch)
        .iter()
        .map(|&(c, lo, width)| (c.name(), lo, width))
        .collect()
}

/// Whether `vmcnt` is split: its low 4 bits at 3:0 and its high 2 bits at 15:14 (GFX9, GFX10).
pub(crate) fn vmcnt_split(arch: Arch) -> bool {
    crate::machine::facts::vmcnt_split(arch)
}

/// The `gpr_idx(...)` mode bits, from bit 0.
pub(crate) const GPR_IDX: [&str; 4] = ["SRC0", "SRC1", "SRC2", "DST"];

pub(crate) const DELAY_INSTID: [&str; 12] = [
    "NO_DEP",
    "VALU_DEP_1",
    "VALU_DEP_2",
    "VALU_DEP_3",
    "VALU_DEP_4",
    "TRANS32_DEP_1",
    "TRANS32_DEP_2",
    "TRANS32_DEP_3",
    "FMA_ACCUM_CYCLE_1",
    "SALU_CYCLE_1",
    "SALU_CYCLE_2",
    "SALU_CYCLE_3",
];
pub(crate) const DELAY_SKIP: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];

/// (name, low bit, width) of each `s_waitcnt_depctr` counter, in printed order.
pub(crate) const DEPCTR: [(&str, u32, u32); 7] = [
    ("depctr_hold_cnt", 7, 1),
    ("depctr_sa_sdst", 0, 1),
    ("depctr_va_vdst", 12, 4),
    ("depctr_va_sdst", 9, 3),
    ("depctr_va_ssrc", 8, 1),
    ("depctr_va_vcc", 1, 1),
    ("depctr_vm_vsrc", 2, 3),
];

/// GFX9 message names by id, as llvm-mc-22 prints them for gfx950.
pub(crate) const GFX9_MSG: [(u64, &str); 11] = [
    (1, "MSG_INTERRUPT"),
    (2, "MSG_GS"),
    (3, "MSG_GS_DONE"),
    (4, "MSG_SAVEWAVE"),
    (5, "MSG_STALL_WAVE_GEN"),
    (6, "MSG_HALT_WAVES"),
    (7, "MSG_ORDERED_PS_DONE"),
    (8, "MSG_EARLY_PRIM_DEALLOC"),
    (9, "MSG_GS_ALLOC_REQ"),
    (10, "MSG_GET_DOORBELL"),
    (15, "MSG_SYSMSG"),
];
/// The operations of `MSG_GS`/`MSG_GS_DONE`, by value.
pub(crate) const GFX9_GS_OP: [&str; 4] = ["GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"];
/// The operations of `MSG_SYSMSG` gfx950 accepts, by value.
pub(crate) const GFX9_SYSMSG_OP: [(u64, &str); 3] = [
    (1, "SYSMSG_OP_ECC_ERR_INTERRUPT"),
    (2, "SYSMSG_OP_REG_RD"),
    (4, "SYSMSG_OP_TTRACE_PC"),
];

/// A `bitop3:` table as llvm-mc prints it: decimal up to 10, hex above (and nothing for 0,
/// which callers leave out).
pub(crate) fn bitop3_text(table: u64) -> String {
    if table <= 10 {
        format!("bitop3:{table}")
    } else {
        format!("bitop3:0x{table:x}")
    }
}
