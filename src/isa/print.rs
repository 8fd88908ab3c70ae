//! [`Inst`] → LLVM-syntax text.

use super::inst::Inst;
use super::layout::{self, Slot};
use super::operands;
use super::spelling::{
    src, src_typed, sreg, vmcnt_split, waitcnt_fields, DELAY_INSTID, DELAY_SKIP, DEPCTR,
    GFX9_GS_OP, GFX9_MSG, GFX9_SYSMSG_OP, GPR_IDX,
};
use super::tables::is_vop;
use super::tables::{InstInfo, Tables};
use crate::spec::{Arch, Wheel};

/// `0x1f`, or `-0x1f` for negative values.
pub(crate) fn signed_hex(v: i64) -> String {
    if v < 0 {
        format!("-0x{:x}", v.unsigned_abs())
    } else {
        format!("0x{v:x}")
    }
}

fn sign_extend(v: u64, width: u32) -> i64 {
    let shift = 64 - width;
    ((v << shift) as i64) >> shift
}

fn hwreg_text(tables: &Tables, v: u64) -> String {
    let id = (v & 0x3f) as u32;
    let offset = (v >> 6) & 0x1f;
    let size = ((v >> 11) & 0x1f) + 1;
    let names = if tables.hwreg_print.is_empty() {
        &tables.hwreg
    } else {
        &tables.hwreg_print
    };
    match names.iter().find(|(_, i)| *i == id) {
        Some((name, _)) if offset == 0 && size == 32 => format!("hwreg({name})"),
        Some((name, _)) => format!("hwreg({name}, {offset}, {size})"),
        None => format!("hwreg({id}, {offset}, {size})"),
    }
}

fn waitcnt_text(arch: Arch, v: u64) -> String {
    let mut parts = Vec::new();
    let mut all = Vec::new();
    for (name, lo, width) in waitcnt_fields(arch) {
        let mut val = (v >> lo) & ((1 << width) - 1);
        let mut max = (1u64 << width) - 1;
        if vmcnt_split(arch) && name == "vmcnt" {
            val |= ((v >> 14) & 3) << 4;
            max = 63;
        }
        let text = format!("{name}({val})");
        if val != max {
            parts.push(text.clone());
        }
        all.push(text);
    }
    if parts.is_empty() {
        all.join(" ")
    } else {
        parts.join(" ")
    }
}

fn delay_text(v: u64) -> String {
    if v == 0 {
        return "0".into();
    }
    let id0 = (v & 0xf) as usize;
    let skip = ((v >> 4) & 7) as usize;
    let id1 = ((v >> 7) & 0xf) as usize;
    // Bits above the three fields are ignored (as llvm-mc does).
    if id0 >= DELAY_INSTID.len() || id1 >= DELAY_INSTID.len() || skip >= 6 {
        return format!("0x{v:x}");
    }
    let mut parts = Vec::new();
    if id0 != 0 {
        parts.push(format!("instid0({})", DELAY_INSTID[id0]));
    }
    if skip != 0 {
        parts.push(format!("instskip({})", DELAY_SKIP[skip]));
    }
    if id1 != 0 {
        parts.push(format!("instid1({})", DELAY_INSTID[id1]));
    }
    parts.join(" | ")
}

fn depctr_text(v: u64) -> String {
    let known: u64 = DEPCTR
        .iter()
        .map(|&(_, lo, w)| ((1u64 << w) - 1) << lo)
        .sum();
    if v & !known & 0xffff != 0 {
        return format!("0x{v:x}");
    }
    let mut parts = Vec::new();
    let mut all = Vec::new();
    for &(name, lo, w) in &DEPCTR {
        let val = (v >> lo) & ((1 << w) - 1);
        let text = format!("{name}({val})");
        if val != (1 << w) - 1 {
            parts.push(text.clone());
        }
        all.push(text);
    }
    if parts.is_empty() {
        all.join(" ")
    } else {
        parts.join(" ")
    }
}

/// The symbolic GFX9 `sendmsg(...)` of `v` (id in bits 3:0, operation in 6:4, stream in
/// 9:8), when llvm-mc has one: a named message with its operation (GS, GS_DONE, SYSMSG) or
/// without any.
fn gfx9_sendmsg(v: u64) -> Option<String> {
    let (id, op, stream) = (v & 0xf, (v >> 4) & 7, (v >> 8) & 3);
    let name = GFX9_MSG.iter().find(|m| m.0 == id)?.1;
    match id {
        2 | 3 if (1..=3).contains(&op) => Some(format!(
            "sendmsg({name}, {}, {stream})",
            GFX9_GS_OP[op as usize]
        )),
        3 if op == 0 && stream == 0 => Some(format!("sendmsg({name}, GS_OP_NOP)")),
        2 | 3 => None,
        15 => {
            let (_, op_name) = GFX9_SYSMSG_OP.iter().find(|o| o.0 == op)?;
            (stream == 0).then(|| format!("sendmsg({name}, {op_name})"))
        }
        _ => (op == 0 && stream == 0).then(|| format!("sendmsg({name})")),
    }
}

fn sendmsg_text(tables: &Tables, v: u64) -> String {
    if tables.arch.is_gfx9() {
        // llvm-mc names what it can whatever the unused bits (7, 15:10) hold, and prints
        // the raw value of anything else that has them set.
        if let Some(text) = gfx9_sendmsg(v) {
            return text;
        }
        if v & !0x37f != 0 {
            return v.to_string();
        }
        return format!("sendmsg({}, {}, {})", v & 0xf, (v >> 4) & 7, (v >> 8) & 3);
    }
    // RDNA message ids are 8 bits: llvm-mc names a known id whatever the bits above hold,
    // and prints an unknown one with stray high bits as the number.
    match tables.msg.iter().find(|(_, i)| u64::from(*i) == v & 0xff) {
        Some((name, _)) => format!("sendmsg({name})"),
        None if v > 0xff => v.to_string(),
        None => format!("sendmsg({v}, 0, 0)"),
    }
}

fn imm_small(v: u64) -> String {
    if v <= 64 {
        v.to_string()
    } else {
        format!("0x{v:x}")
    }
}

fn slot_text(tables: &Tables, inst: &Inst, field: &str, slot: Slot) -> String {
    let raw = if field == "literal" {
        inst.literal.unwrap_or(0)
    } else {
        inst.field(field).unwrap_or(0)
    };
    match slot {
        Slot::SReg { regs } => sreg(tables, raw as u32, regs),
        Slot::SSrc { bits, float } => src_typed(tables, raw as u32, bits, float, inst.literal),
        Slot::BarrierId => src(tables, raw as u32, 32, inst.literal),
        Slot::ImmHex => format!("0x{raw:x}"),
        Slot::ImmSmall => imm_small(raw),
        // llvm-mc (without a symbolizer) prints branch offsets as unsigned 16-bit values;
        // the assembler takes both signs.
        Slot::Label => (raw & 0xffff).to_string(),
        Slot::Hwreg => hwreg_text(tables, raw),
        Slot::Waitcnt => waitcnt_text(tables.arch, raw),
        Slot::DelayAlu => delay_text(raw),
        Slot::Depctr => depctr_text(raw),
        Slot::Sendmsg => sendmsg_text(tables, raw),
        Slot::GprIdx if raw <= 15 => {
            let names: Vec<&str> = GPR_IDX
                .iter()
                .enumerate()
                .filter(|(i, _)| raw >> i & 1 != 0)
                .map(|(_, n)| *n)
                .collect();
            format!("gpr_idx({})", names.join(","))
        }
        Slot::GprIdx => format!("0x{raw:x}"),
        Slot::SendmsgRtn => match tables.msg.iter().find(|(_, i)| u64::from(*i) == raw) {
            Some((name, _)) => format!("sendmsg({name})"),
            None => format!("sendmsg({raw}, 0, 0)"),
        },
        Slot::LiteralK => format!("0x{raw:x}"),
        Slot::Literal32 => {
            let v = raw as u32;
            match operands::inline_int(operands::int_code(i64::from(v as i32)).unwrap_or(0)) {
                Some(_) if (0..=64).contains(&(v as i32)) => v.to_string(),
                _ => format!("0x{v:x}"),
            }
        }
    }
}

pub(crate) fn print(tables: &Tables, inst: &Inst) -> String {
    if inst.format == "VOPD3" {
        return super::vopd3::print(tables, inst);
    }
    if inst.family == "VOPD" {
        return super::vopd::print(tables, inst);
    }
    let Some(&idx) = tables.by_opcode.get(&(inst.family.clone(), inst.opcode)) else {
        return format!("; unknown {} opcode {}", inst.family, inst.opcode);
    };
    let info = &tables.insts[idx];
    let hex = tables.hex_imm.contains(&info.mnemonic);
    if let Some(slots) = layout::scalar_layout(info, hex) {
        let ops: Vec<String> = slots
            .iter()
            .map(|p| slot_text(tables, inst, p.field, p.slot))
            .collect();
        // A SOPP immediate the spec does not list (`s_endpgm 3`) is printed when non-zero.
        let mut text = info.mnemonic.clone();
        if !ops.is_empty() {
            text.push(' ');
            text.push_str(&ops.join(", "));
        } else if info.family == "SOPP" {
            let v = inst.field("simm16").unwrap_or(0);
            if v != 0 {
                text.push(' ');
                text.push_str(&v.to_string());
            }
        }
        return text;
    }
    if info.family == "SMEM" {
        return print_smem(tables, info, inst);
    }
    // A matrix instruction is a VOP3P word (or a scaled MFMA's `VOP3PX2` pair) with its
    // own operand files.
    if (is_vop(&info.family) || info.family == "VOP3PX2") && super::mfma::applies(tables.arch, info)
    {
        let mnemonic = super::vop::mnemonic(tables, info);
        return super::mfma::print(tables, info, inst, &mnemonic);
    }
    if let Some(text) = super::vop::print(tables, info, inst) {
        return text;
    }
    if let Some(text) = super::mem::print(tables, info, inst) {
        return text;
    }
    if let Some(text) = super::mem::print_buffer(tables, info, inst) {
        return text;
    }
    if let Some(text) = super::ldsdir::print(info, inst) {
        return text;
    }
    let fields: Vec<String> = inst
        .fields
        .iter()
        .map(|(n, v)| format!("{n}={v:#x}"))
        .collect();
    format!("{} ; {}", info.mnemonic, fields.join(" "))
}

fn print_smem(tables: &Tables, info: &InstInfo, inst: &Inst) -> String {
    let f = |n: &str| inst.field(n).unwrap_or(0);
    let arch = tables.arch;
    let null = operands::special_code(arch, "null").map(|c| c.0);
    let mut ops: Vec<String> = Vec::new();
    let mut mods: Vec<String> = Vec::new();
    let prefetch = info.operand("sdata").is_some_and(|o| o.kind == "SIMM5");
    let pc_rel = info.name.ends_with("_PC_REL");
    let sbase_regs = info
        .operand("sbase")
        .map(|o| o.bits.div_ceil(32))
        .unwrap_or(2);
    let sdata_text = |ops: &mut Vec<String>| {
        if let Some(op) = info.operand("sdata") {
            let v = f("sdata");
            ops.push(match op.kind.as_str() {
                "SIMM8" | "SIMM5" if arch.wheel() != Wheel::Rdna4 => imm_small(v),
                "SIMM8" | "SIMM5" => v.to_string(),
                _ => sreg(tables, v as u32, op.bits.div_ceil(32)),
            });
        }
    };
    if prefetch {
        if !pc_rel {
            ops.push(sreg(tables, f("sbase") as u32 * 2, sbase_regs));
        }
        ops.push(signed_hex(sign_extend(f("ioffset"), 24)));
        ops.push(sreg(tables, f("soffset") as u32, 1));
        sdata_text(&mut ops);
    } else {
        sdata_text(&mut ops);
        if info.operand("sbase").is_some() {
            ops.push(sreg(tables, f("sbase") as u32 * 2, sbase_regs));
        }
        if info.operand("soffset").is_some() {
            match arch.wheel() {
                Wheel::Rdna3 | Wheel::Rdna4 => {
                    let (off, width) = if arch.wheel() == Wheel::Rdna3 {
                        (f("offset"), 21)
                    } else {
                        (f("ioffset"), 24)
                    };
                    let off = sign_extend(off, width);
                    let so = f("soffset") as u32;
                    if Some(so) == null {
                        ops.push(signed_hex(off));
                    } else {
                        ops.push(sreg(tables, so, 1));
                        if off != 0 || arch.wheel() == Wheel::Rdna4 {
                            mods.push(format!("offset:{}", signed_hex(off)));
                        }
                    }
                }
                Wheel::Cdna => {
                    let imm = f("imm") != 0;
                    let soe = f("soffset_en") != 0;
                    let off = sign_extend(f("offset"), 21);
                    match (imm, soe) {
                        (true, false) => ops.push(signed_hex(off)),
                        (false, false) => ops.push(sreg(tables, f("offset") as u32 & 0x7f, 1)),
                        (_, true) => {
                            ops.push(sreg(tables, f("soffset") as u32, 1));
                            if imm {
                                mods.push(format!("offset:{}", signed_hex(off)));
                            }
                        }
                    }
                }
            }
        }
    }
    match arch.wheel() {
        Wheel::Rdna3 => {
            if f("glc") != 0 {
                mods.push("glc".into());
            }
            if f("dlc") != 0 {
                mods.push("dlc".into());
            }
        }
        Wheel::Rdna4 => {
            const TH: [&str; 4] = ["TH_LOAD_RT", "TH_LOAD_NT", "TH_LOAD_HT", "TH_LOAD_LU"];
            const SCOPE: [&str; 4] = ["SCOPE_CU", "SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS"];
            if f("scale_offset") != 0 {
                mods.push("scale_offset".into());
            }
            // th 3 is BYPASS with SCOPE_SYS and LU otherwise.
            if f("th") == 3 && f("scope") == 3 {
                mods.push("th:TH_LOAD_BYPASS".into());
            } else if f("th") != 0 {
                mods.push(format!("th:{}", TH[f("th") as usize & 3]));
            }
            if f("scope") != 0 {
                mods.push(format!("scope:{}", SCOPE[f("scope") as usize & 3]));
            }
            if f("nv") != 0 {
                mods.push("nv".into());
            }
        }
        Wheel::Cdna => {
            if f("glc") != 0 {
                mods.push("glc".into());
            }
            if f("nv") != 0 {
                mods.push("nv".into());
            }
        }
    }
    let mut text = info.mnemonic.clone();
    if !ops.is_empty() {
        text.push(' ');
        text.push_str(&ops.join(", "));
    }
    for m in mods {
        text.push(' ');
        text.push_str(&m);
    }
    text
}
