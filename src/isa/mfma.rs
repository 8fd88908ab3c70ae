//! CDNA matrix and accumulation-register instructions: `v_mfma_*`, `v_smfmac_*`,
//! `v_accvgpr_read_b32`, `v_accvgpr_write_b32`, `v_accvgpr_mov_b32`.
//!
//! `operands.py` marks their operands with the `ACCVGPR` kinds (`ACCVGPR`, `SRC_ACCVGPR`,
//! `VGPR_OR_ACCVGPR`, `SRC_VGPR_OR_ACCVGPR`, `SRC_VGPR_OR_ACCVGPR_OR_CONST`). Where an
//! operand may be either file, the VOP3P bits say which (LLVM's reading of them): the
//! `clmp` bit (`acc_cd`) puts `vdst` and a register `src2` in the `a` file, `opsel_hi` bits 0
//! and 1 do the same for `src0` and `src1`. The other VOP3P modifier fields carry the matrix
//! controls: `cbsz` in `neg_hi`, `abid` in `opsel` and `opsel_hi2`, `blgp` in `neg` (printed
//! as `neg:[..]` for the f64 forms, whose `blgp` bits negate the sources).

use super::enc::{encode_src, Enc};
use super::inst::{AsmError, Inst};
use super::operands::LITERAL;
use super::spelling::src;
use super::syntax::{Expr, Statement};
use super::tables::{is_buf, is_ds, is_flat, InstInfo, OperandSpec, Tables};
use crate::spec::Arch;

/// Whether `info` is handled here.
pub(crate) fn applies(arch: Arch, info: &InstInfo) -> bool {
    arch.is_gfx9() && info.operands.iter().any(|o| o.kind.contains("ACCVGPR"))
}

/// The printed operand order: destination, then sources (then a scaled MFMA's scales).
fn ordered(info: &InstInfo) -> Vec<&OperandSpec> {
    ["vdst", "src0", "src1", "src2", "scale_src0", "scale_src1"]
        .iter()
        .filter_map(|f| info.operand(f))
        .collect()
}

fn is_matrix(info: &InstInfo) -> bool {
    info.operand("vdst")
        .is_some_and(|o| o.kind == "VGPR_OR_ACCVGPR")
}

fn is_f64(info: &InstInfo) -> bool {
    info.name.starts_with("V_MFMA_F64")
}

fn regs(op: &OperandSpec) -> u32 {
    op.bits.div_ceil(32).max(1)
}

/// Bits 31:16 of a scaled MFMA's first word: the VOP3P encoding and the opcode of
/// `v_mfma_ld_scale_b32` (44).
const SCALE_LOAD_WORD: u32 = 0xd3ac;

/// Whether `info` is a scaled MFMA (`VOP3PX2`: a `v_mfma_ld_scale_b32` word and the MFMA
/// word, one instruction).
fn is_scaled(info: &InstInfo) -> bool {
    info.family == "VOP3PX2"
}

/// Whether `vdst` and `src2` of a matrix instruction are always AGPRs: on gfx908 (CDNA 1)
/// they are, whatever bit 15 holds (llvm-mc-22 -mcpu=gfx908 refuses `v[..]` there and
/// disassembles the word alike with the bit set or clear); gfx90a on choose by `acc_cd`.
fn accumulators_in_agprs(arch: Arch) -> bool {
    arch == Arch::Cdna1
}

/// The matrix fields of a decoded matrix instruction: `(acc_cd, acc, cbsz, abid, blgp)`.
/// VOP3P-MAI keeps them in the VOP3P modifier fields, VOP3PX2 in fields of their own.
fn matrix_fields(arch: Arch, info: &InstInfo, inst: &Inst) -> (bool, u64, u64, u64, u64) {
    let f = |n: &str| inst.field(n).unwrap_or(0);
    if is_scaled(info) {
        return (f("acc_cd") != 0, f("acc"), f("cbsz"), f("abid"), f("blgp"));
    }
    (
        f("clmp") != 0 || accumulators_in_agprs(arch),
        f("opsel_hi"),
        f("neg_hi"),
        f("opsel") | f("opsel_hi2") << 3,
        f("neg"),
    )
}

/// The VGPRs an `F8F6F4` operand occupies for format code `fmt` (CBSZ for A, BLGP for B):
/// 32 elements a lane of 8 (FP8, BF8), 6 (FP6, BF6) or 4 (FP4) bits; the spec's width for
/// the other matrix instructions.
fn f8f6f4_regs(info: &InstInfo, op: &OperandSpec, cbsz: u64, blgp: u64) -> u32 {
    let fmt = match op.field.as_str() {
        "src0" => cbsz,
        "src1" => blgp,
        _ => return regs(op),
    };
    if !info.name.ends_with("_F8F6F4") {
        return regs(op);
    }
    match fmt {
        0 | 1 => 8,
        2 | 3 => 6,
        _ => 4,
    }
}

fn reg_text(file: char, index: u32, n: u32) -> String {
    if n == 1 {
        format!("{file}{index}")
    } else {
        format!("{file}[{}:{}]", index, index + n - 1)
    }
}

/// Which file (`'a'` or `'v'`) a register operand of `op` lives in, given the fields.
fn file_of(op: &OperandSpec, acc_cd: bool, acc: u64) -> char {
    let a = match (op.kind.as_str(), op.field.as_str()) {
        ("ACCVGPR" | "SRC_ACCVGPR", _) => true,
        ("VGPR_OR_ACCVGPR", _) | ("SRC_VGPR_OR_ACCVGPR_OR_CONST", _) => acc_cd,
        ("SRC_VGPR_OR_ACCVGPR", "src0") => acc & 1 != 0,
        ("SRC_VGPR_OR_ACCVGPR", "src1") => acc & 2 != 0,
        _ => false,
    };
    if a {
        'a'
    } else {
        'v'
    }
}

/// The register fields of a decoded CDNA instruction that name accumulation registers
/// (`a0..a255`) instead of VGPRs: the `a`-file operands of the instructions above (by the same
/// bits the printer reads), and the data fields (`vdst`, `data`, `data0`, `data1`, `vdata`)
/// of a DS, FLAT/GLOBAL/SCRATCH or buffer instruction with its `acc` bit set. Address fields
/// are always VGPRs. Other arches have no AGPRs: empty.
pub(crate) fn agpr_fields(tables: &Tables, inst: &Inst) -> Vec<String> {
    if !tables.arch.is_gfx9() {
        return Vec::new();
    }
    let f = |n: &str| inst.field(n).unwrap_or(0);
    let memory = is_ds(&inst.family) || is_flat(&inst.family) || is_buf(&inst.family);
    if memory {
        if f("acc") == 0 {
            return Vec::new();
        }
        return ["vdst", "data", "data0", "data1", "vdata"]
            .into_iter()
            .filter(|n| inst.field(n).is_some())
            .map(String::from)
            .collect();
    }
    let Some(&idx) = tables.by_opcode.get(&(inst.family.clone(), inst.opcode)) else {
        return Vec::new();
    };
    let info = &tables.insts[idx];
    if applies(tables.arch, info) {
        let (acc_cd, acc) = if is_matrix(info) {
            let (acc_cd, acc, ..) = matrix_fields(tables.arch, info, inst);
            (acc_cd, acc)
        } else {
            (false, 0)
        };
        return ordered(info)
            .into_iter()
            .filter(|op| {
                file_of(op, acc_cd, acc) == 'a' && (op.field == "vdst" || f(&op.field) >= 256)
            })
            .map(|op| op.field.clone())
            .collect();
    }
    Vec::new()
}

/// Whether a decoded word is one of these instructions in a form LLVM can spell: register
/// operands hold registers, and no source is the literal.
pub(crate) fn valid(info: &InstInfo, inst: &Inst) -> bool {
    ordered(info).iter().all(|op| {
        let raw = inst.field(&op.field).unwrap_or(0) as u32;
        match op.kind.as_str() {
            "SRC_ACCVGPR" | "SRC_VGPR_OR_ACCVGPR" | "SRC_VGPR" => raw >= 256,
            "SRC_VGPR_OR_ACCVGPR_OR_CONST" | "SRC_NOLIT" | "SRC_SIMPLE" => raw != LITERAL,
            _ => true,
        }
    })
}

/// Prints one of these instructions.
pub(crate) fn print(tables: &Tables, info: &InstInfo, inst: &Inst, mnemonic: &str) -> String {
    let f = |n: &str| inst.field(n).unwrap_or(0);
    let (acc_cd, acc, cbsz, abid, blgp) = if is_matrix(info) {
        matrix_fields(tables.arch, info, inst)
    } else {
        (false, 0, 0, 0, 0)
    };
    let parts: Vec<String> = ordered(info)
        .iter()
        .map(|op| {
            let raw = f(&op.field) as u32;
            let n = f8f6f4_regs(info, op, cbsz, blgp);
            let file = file_of(op, acc_cd, acc);
            let is_src = op.field != "vdst";
            if !is_src {
                reg_text(file, raw, n)
            } else if raw >= 256 {
                reg_text(file, raw - 256, n)
            } else {
                src(tables, raw, op.bits, inst.literal)
            }
        })
        .collect();
    let mut text = mnemonic.to_string();
    if !parts.is_empty() {
        text.push(' ');
        text.push_str(&parts.join(", "));
    }
    if is_scaled(info) {
        // The scale bytes: `op_sel[0]`/`op_sel_hi[0]` for A's scale, `[1]` for B's
        // (llvm-mc prints `op_sel_hi` always, `op_sel` when set).
        let (sel, sel_hi) = (f("opsel"), f("opsel_hi"));
        let list = |v: u64| {
            let bits: Vec<String> = (0..3).map(|i| (v >> i & 1).to_string()).collect();
            bits.join(",")
        };
        if sel != 0 {
            text.push_str(&format!(" op_sel:[{}]", list(sel)));
        }
        text.push_str(&format!(" op_sel_hi:[{}]", list(sel_hi)));
    }
    if is_matrix(info) {
        if cbsz != 0 {
            text.push_str(&format!(" cbsz:{cbsz}"));
        }
        // llvm-mc sets the low ABID bit of a scaled MFMA's word and does not print it.
        if abid != 0 && !(is_scaled(info) && abid == 1) {
            text.push_str(&format!(" abid:{abid}"));
        }
        if blgp != 0 && is_f64(info) {
            let bits: Vec<String> = (0..3).map(|i| (blgp >> i & 1).to_string()).collect();
            text.push_str(&format!(" neg:[{}]", bits.join(",")));
        } else if blgp != 0 {
            text.push_str(&format!(" blgp:{blgp}"));
        }
    }
    text
}

/// Encodes one of these instructions.
pub(crate) fn encode(e: &mut Enc<'_>, info: &InstInfo, stmt: &Statement) -> Result<(), AsmError> {
    let ops = ordered(info);
    if stmt.args.len() != ops.len() {
        let col = stmt.args.get(ops.len()).map_or(stmt.col, |a| a.col);
        return Err(e.err(col, "invalid operand for instruction"));
    }
    let matrix = is_matrix(info);
    let mut acc_cd: Option<bool> = None;
    let mut acc = 0u64;
    // The F8F6F4 formats decide how many registers A and B take; the modifiers (checked
    // below) follow the operands.
    let format_mod = |name: &str| {
        stmt.mods.iter().find_map(|m| match m.value {
            Some(Expr::Int(v)) if m.name == name && (0..=7).contains(&v) => Some(v as u64),
            _ => None,
        })
    };
    let (cbsz_fmt, blgp_fmt) = (
        format_mod("cbsz").unwrap_or(0),
        format_mod("blgp").unwrap_or(0),
    );
    for (op, arg) in ops.iter().zip(&stmt.args) {
        let n = f8f6f4_regs(info, op, cbsz_fmt, blgp_fmt);
        let reg = match &arg.expr {
            Expr::Reg {
                file,
                lo,
                hi,
                half: None,
            } if file == "a" || file == "v" => {
                if hi < lo || hi - lo + 1 != n || *hi > 255 || (n > 1 && lo % 2 != 0) {
                    return Err(e.err(arg.col, "invalid register for operand"));
                }
                Some((file == "a", *lo))
            }
            _ => None,
        };
        let kind = op.kind.as_str();
        let fixed_acc = accumulators_in_agprs(e.tables.arch);
        let want_acc = match (kind, op.field.as_str()) {
            ("ACCVGPR" | "SRC_ACCVGPR", _) => Some(true),
            ("VGPR" | "SRC_VGPR", _) => Some(false),
            ("VGPR_OR_ACCVGPR" | "SRC_VGPR_OR_ACCVGPR_OR_CONST", _) if matrix && fixed_acc => {
                Some(true)
            }
            _ => None,
        };
        match reg {
            Some((is_a, lo)) => {
                if want_acc.is_some_and(|w| w != is_a) {
                    return Err(e.err(arg.col, "invalid register class for operand"));
                }
                match (kind, op.field.as_str()) {
                    ("VGPR_OR_ACCVGPR", _) | ("SRC_VGPR_OR_ACCVGPR_OR_CONST", _) => {
                        // `vdst` and a register `src2` share the `acc_cd` bit.
                        if acc_cd.is_some_and(|c| c != is_a) {
                            return Err(e.err(arg.col, "invalid register class for operand"));
                        }
                        acc_cd = Some(is_a);
                    }
                    ("SRC_VGPR_OR_ACCVGPR", "src0") => acc |= u64::from(is_a),
                    ("SRC_VGPR_OR_ACCVGPR", "src1") => acc |= u64::from(is_a) << 1,
                    _ => {}
                }
                let code = if op.field == "vdst" { lo } else { 256 + lo };
                e.set(&op.field, u64::from(code));
            }
            None => {
                if !matches!(kind, "SRC_NOLIT" | "SRC_VGPR_OR_ACCVGPR_OR_CONST")
                    || (matrix && fixed_acc)
                {
                    return Err(e.err(arg.col, "invalid operand for instruction"));
                }
                let (code, half) = encode_src(e, &arg.expr, arg.col, op.bits, false)?;
                if half || code == LITERAL || e.literal().is_some() {
                    return Err(e.err(arg.col, "invalid operand for instruction"));
                }
                e.set(&op.field, u64::from(code));
            }
        }
    }
    if !matrix {
        if let Some(m) = stmt.mods.first() {
            return Err(e.err(m.col, "invalid operand for instruction"));
        }
        if info.family == "VOP3P" {
            // The defaults llvm-mc encodes for `v_accvgpr_read`/`_write`.
            e.set("opsel_hi", 3);
            e.set("opsel_hi2", 1);
        }
        return Ok(());
    }
    // A scaled MFMA's first word: `v_mfma_ld_scale_b32`'s (llvm-mc sets the low ABID bit of
    // the MFMA word).
    let scaled = is_scaled(info);
    let (mut cbsz, mut abid, mut blgp) = (0u64, u64::from(scaled), 0u64);
    let (mut sel, mut sel_hi) = (0u64, 0u64);
    for m in &stmt.mods {
        let bit_list = |out: &mut u64| {
            let Some(Expr::List(items)) = &m.value else {
                return Err(e.err(m.col, "expected a list"));
            };
            if items.is_empty() || items.len() > 3 {
                return Err(e.err(m.col, "invalid list length"));
            }
            for (i, it) in items.iter().enumerate() {
                match it {
                    Expr::Int(b @ 0..=1) => *out |= (*b as u64) << i,
                    _ => return Err(e.err(m.col, "expected 0 or 1")),
                }
            }
            Ok(())
        };
        if scaled && m.name == "op_sel" {
            bit_list(&mut sel)?;
            continue;
        }
        if scaled && m.name == "op_sel_hi" {
            bit_list(&mut sel_hi)?;
            if sel_hi >> 2 != 0 {
                return Err(e.err(m.col, "invalid op_sel_hi operand"));
            }
            continue;
        }
        let int = |hi: i64| match m.value {
            Some(Expr::Int(v)) if (0..=hi).contains(&v) => Ok(v as u64),
            _ => Err(e.err(m.col, "invalid modifier value")),
        };
        match m.name.as_str() {
            "cbsz" => cbsz = int(7)?,
            "abid" => abid = int(15)?,
            "blgp" if !is_f64(info) => blgp = int(7)?,
            "neg" if is_f64(info) => {
                let Some(Expr::List(items)) = &m.value else {
                    return Err(e.err(m.col, "expected a list"));
                };
                if items.len() != 3 {
                    return Err(e.err(m.col, "invalid list length"));
                }
                for (i, it) in items.iter().enumerate() {
                    match it {
                        Expr::Int(b @ 0..=1) => blgp |= (*b as u64) << i,
                        _ => return Err(e.err(m.col, "expected 0 or 1")),
                    }
                }
            }
            _ => return Err(e.err(m.col, "invalid modifier for instruction")),
        }
    }
    if scaled {
        e.set("x2encoding", u64::from(SCALE_LOAD_WORD));
        e.set("opsel", sel);
        e.set("opsel_hi", sel_hi);
        e.set("acc_cd", u64::from(acc_cd.unwrap_or(false)));
        e.set("acc", acc);
        e.set("cbsz", cbsz);
        e.set("abid", abid);
        e.set("blgp", blgp);
        return Ok(());
    }
    // gfx908 has no `acc_cd` bit: its accumulators are AGPRs with the bit clear.
    let acc_cd = acc_cd.unwrap_or(false) && !accumulators_in_agprs(e.tables.arch);
    e.set("clmp", u64::from(acc_cd));
    e.set("opsel_hi", acc);
    e.set("opsel_hi2", abid >> 3 & 1);
    e.set("opsel", abid & 7);
    e.set("neg_hi", cbsz);
    e.set("neg", blgp);
    Ok(())
}
