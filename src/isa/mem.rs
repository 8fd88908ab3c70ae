//! The memory formats DS and FLAT/GLOBAL/SCRATCH (RDNA 4: VFLAT/VGLOBAL/VSCRATCH): operand
//! layout, printer and encoder.
//!
//! The operands and their sizes come from `operands.py` (`vdst`, `addr`, `data0`, `data1` of DS;
//! `vdst`, `addr`/`vaddr`, `data`/`vsrc`, `saddr` of FLAT). What is LLVM's choice is written
//! here once:
//!
//! - DS: `vdst, addr, data0, data1`, then `offset:N` (the two 8-bit offsets as one 16-bit
//!   value), or `offset0:N offset1:N` for the two-address forms (`*2ADDR*`, `READ2*`,
//!   `WRITE2*`, `*XCHG2*`), then `gds` (RDNA 3 only);
//! - FLAT: `vdst, addr[, data]`; GLOBAL and SCRATCH add `saddr`, spelled `off` when it holds
//!   the "no SGPR" code (`null` on RDNA, 0x7f on CDNA). A GLOBAL address is a VGPR pair with
//!   `off` and one VGPR with an SGPR pair base; a SCRATCH address is a VGPR when `sve` is set
//!   and `off` otherwise;
//! - atomics print `vdst` only when they return (`glc` on RDNA 3, `sc0` on CDNA,
//!   `th:TH_ATOMIC_RETURN` on RDNA 4), and the assembler requires that bit with a `vdst`;
//! - cache modifiers: `glc slc dlc` (RDNA 3), `sc0 nt sc1` (CDNA), `th:` and `scope:`
//!   (RDNA 4, LLVM's `TH_*`/`SCOPE_*` names);
//! - CDNA's `acc` bit selects `a` registers for the data operands.

use super::enc::{encode_sreg, Enc};
use super::inst::{AsmError, Inst};
use super::spelling::{src, sreg};
use super::syntax::{Arg, Expr, Statement};
use super::tables::{is_buf, is_ds, is_flat, InstInfo, OperandSpec, Tables};
use crate::spec::{Arch, Wheel};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Seg {
    Flat,
    Global,
    Scratch,
}

fn seg(family: &str) -> Seg {
    match family {
        "GLOBAL" | "VGLOBAL" => Seg::Global,
        "SCRATCH" | "VSCRATCH" => Seg::Scratch,
        _ => Seg::Flat,
    }
}

fn regs(op: &OperandSpec) -> u32 {
    op.bits.div_ceil(32).max(1)
}

fn vreg_text(file: &str, index: u64, regs: u32) -> String {
    if regs == 1 {
        format!("{file}{index}")
    } else {
        format!("{file}[{}:{}]", index, index + u64::from(regs) - 1)
    }
}

/// Whether a DS instruction has two 8-bit offsets.
fn two_offsets(info: &InstInfo) -> bool {
    let n = info.name.as_str();
    n.contains("2ADDR") || n.contains("READ2") || n.contains("WRITE2") || n.contains("XCHG2")
}

/// The FLAT field names of this arch: (address, data, offset).
fn flat_fields(arch: Arch) -> (&'static str, &'static str, &'static str) {
    if arch.wheel() == Wheel::Rdna4 {
        ("vaddr", "vsrc", "ioffset")
    } else {
        ("addr", "data", "offset")
    }
}

/// The `saddr` code spelled `off`.
fn saddr_off(arch: Arch) -> u64 {
    match arch.family() {
        crate::spec::Family::Gfx9 => 0x7f,
        // GFX10's `null` (llvm-mc-22, gfx1030: `global_load_dword v1, v[2:3], off`).
        crate::spec::Family::Gfx10 => 0x7d,
        _ => 124,
    }
}

fn is_atomic(info: &InstInfo) -> bool {
    info.name.contains("ATOMIC")
}

/// The `vdst` size of a FLAT instruction: `operands.py` sizes an RDNA 3 compare-swap's
/// return value like its data (value and compare value), LLVM returns one value; loads to
/// LDS (`*_LOAD_LDS_*`) have no `vdst` operand in LLVM syntax.
fn flat_vdst_regs(info: &InstInfo) -> Option<u32> {
    let op = info.operand("vdst")?;
    if info.name.contains("LOAD_LDS") {
        return None;
    }
    let data = info.operand("data").or_else(|| info.operand("vsrc"));
    match data {
        Some(d) if info.name.contains("CMPSWAP") => Some((regs(d) / 2).max(1)),
        _ => Some(regs(op)),
    }
}

fn is_store(info: &InstInfo) -> bool {
    info.name.contains("STORE")
}

/// Whether the FLAT offset is signed, and its width in bits.
fn flat_offset(tables: &Tables, family: &str) -> (bool, u32) {
    let (_, _, off_f) = flat_fields(tables.arch);
    let width = tables
        .format(family)
        .and_then(|f| f.field(off_f))
        .map_or(13, |f| f.width);
    let signed = tables.arch.wheel() == Wheel::Rdna4 || seg(family) != Seg::Flat;
    let width = if signed { width } else { width.min(12) };
    (signed, width)
}

fn sign_extend(v: u64, width: u32) -> i64 {
    let shift = 64 - width;
    ((v << shift) as i64) >> shift
}

/// Prints a DS or FLAT instruction, or `None` if `info` is not one.
pub(crate) fn print(tables: &Tables, info: &InstInfo, inst: &Inst) -> Option<String> {
    if is_ds(&info.family) {
        Some(print_ds(info, inst))
    } else if is_flat(&info.family) {
        Some(print_flat(tables, info, inst))
    } else {
        None
    }
}

fn print_ds(info: &InstInfo, inst: &Inst) -> String {
    let f = |n: &str| inst.field(n).unwrap_or(0);
    let acc = f("acc") != 0;
    let parts: Vec<String> = ["vdst", "addr", "data0", "data1"]
        .into_iter()
        .filter_map(|field| {
            let op = info.operand(field)?;
            let file = if acc && field != "addr" { "a" } else { "v" };
            Some(vreg_text(file, f(field), regs(op)))
        })
        .collect();
    let mut text = info.mnemonic.clone();
    if !parts.is_empty() {
        text.push(' ');
        text.push_str(&parts.join(", "));
    }
    if two_offsets(info) {
        for name in ["offset0", "offset1"] {
            if f(name) != 0 {
                text.push_str(&format!(" {name}:{}", f(name)));
            }
        }
    } else {
        let off = f("offset0") | f("offset1") << 8;
        if off != 0 {
            text.push_str(&format!(" offset:{off}"));
        }
    }
    if f("gds") != 0 {
        text.push_str(" gds");
    }
    text
}

/// LLVM's `th:` spelling on RDNA 4 (`AMDGPUInstPrinter::printTH`).
fn th_text(info: &InstInfo, th: u64, scope: u64) -> String {
    let hex = format!("0x{th:x}");
    if is_atomic(info) {
        let hex = format!("TH_ATOMIC_{hex}");
        let name = if th & 4 != 0 {
            if scope >= 2 {
                if th & 2 != 0 {
                    "CASCADE_NT"
                } else {
                    "CASCADE_RT"
                }
            } else {
                return hex;
            }
        } else if th & 2 != 0 {
            if th & 1 != 0 {
                "NT_RETURN"
            } else {
                "NT"
            }
        } else if th & 1 != 0 {
            "RETURN"
        } else {
            return hex;
        };
        return format!("TH_ATOMIC_{name}");
    }
    let store = is_store(info);
    if !store && th == 7 {
        return hex;
    }
    let name = match th {
        1 => "NT",
        2 => "HT",
        3 if scope == 3 => "BYPASS",
        3 if store => "WB",
        3 => "LU",
        4 => "NT_RT",
        5 => "RT_NT",
        6 => "NT_HT",
        _ => "NT_WB",
    };
    format!("{}{name}", if store { "TH_STORE_" } else { "TH_LOAD_" })
}

const SCOPES: [&str; 4] = ["SCOPE_CU", "SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS"];

/// The GFX9 cache-policy bits (fields `sc0`, `nt`, `sc1`) and how the target spells them:
/// gfx940 on `sc0 nt sc1`, gfx90a `glc slc scc`, gfx908 `glc slc` (it has no third bit;
/// llvm-mc-22 refuses `scc` there).
fn gfx9_cache_bits(arch: Arch) -> &'static [(&'static str, &'static str)] {
    match arch {
        Arch::Cdna1 => &[("sc0", "glc"), ("nt", "slc")],
        Arch::Cdna2 => &[("sc0", "glc"), ("nt", "slc"), ("sc1", "scc")],
        _ => &[("sc0", "sc0"), ("nt", "nt"), ("sc1", "sc1")],
    }
}

/// The cache-policy field a GFX9 target's modifier `name` sets.
fn gfx9_cache_field(arch: Arch, name: &str) -> Option<&'static str> {
    gfx9_cache_bits(arch)
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(field, _)| *field)
}

/// Whether an atomic returns its pre-op value with these cache bits.
fn returns(arch: Arch, inst: &Inst) -> bool {
    let f = |n: &str| inst.field(n).unwrap_or(0);
    match arch.wheel() {
        Wheel::Rdna3 => f("glc") != 0,
        Wheel::Rdna4 => f("th") & 1 != 0,
        Wheel::Cdna => f("sc0") != 0,
    }
}

fn print_flat(tables: &Tables, info: &InstInfo, inst: &Inst) -> String {
    let arch = tables.arch;
    let f = |n: &str| inst.field(n).unwrap_or(0);
    let (addr_f, data_f, off_f) = flat_fields(arch);
    let sg = seg(&info.family);
    let acc = f("acc") != 0;
    let dfile = if acc { "a" } else { "v" };
    let saddr = f("saddr");
    let off = saddr == saddr_off(arch);
    // Without an `sve` bit (CDNA 1 and 2) a scratch access uses its VGPR when `saddr` is off.
    let sve = inst.field("sve").map_or(off, |v| v != 0);
    let mut parts = Vec::new();
    if let Some(n) = flat_vdst_regs(info) {
        if !is_atomic(info) || returns(arch, inst) {
            parts.push(vreg_text(dfile, f("vdst"), n));
        }
    }
    if let Some(op) = info.operand(addr_f) {
        parts.push(match sg {
            Seg::Flat => vreg_text("v", f(addr_f), regs(op).max(2)),
            Seg::Global if off => vreg_text("v", f(addr_f), 2),
            Seg::Global => vreg_text("v", f(addr_f), 1),
            Seg::Scratch if sve => vreg_text("v", f(addr_f), 1),
            Seg::Scratch => "off".to_string(),
        });
    } else if sg == Seg::Scratch && info.operand("saddr").is_some() {
        parts.push(if sve {
            vreg_text("v", f(addr_f), 1)
        } else {
            "off".to_string()
        });
    }
    if let Some(op) = info.operand(data_f) {
        parts.push(vreg_text(dfile, f(data_f), regs(op)));
    }
    if sg != Seg::Flat && info.operand("saddr").is_some() {
        parts.push(if off {
            "off".to_string()
        } else {
            sreg(tables, saddr as u32, if sg == Seg::Global { 2 } else { 1 })
        });
    }
    let mut text = info.mnemonic.clone();
    if !parts.is_empty() {
        text.push(' ');
        text.push_str(&parts.join(", "));
    }
    let (signed, width) = flat_offset(tables, &info.family);
    let raw = f(off_f);
    let offset = if signed {
        sign_extend(raw, width)
    } else {
        raw as i64
    };
    if offset != 0 {
        text.push_str(&format!(" offset:{offset}"));
    }
    match arch.wheel() {
        Wheel::Rdna3 => {
            for name in ["glc", "slc", "dlc"] {
                if f(name) != 0 {
                    text.push(' ');
                    text.push_str(name);
                }
            }
        }
        Wheel::Cdna => {
            for (field, name) in gfx9_cache_bits(arch) {
                if f(field) != 0 {
                    text.push(' ');
                    text.push_str(name);
                }
            }
        }
        Wheel::Rdna4 => {
            let (th, scope) = (f("th"), f("scope"));
            if f("scale_offset") != 0 {
                text.push_str(" scale_offset");
            }
            if th != 0 {
                text.push_str(&format!(" th:{}", th_text(info, th, scope)));
            }
            if scope != 0 {
                text.push_str(&format!(" scope:{}", SCOPES[(scope & 3) as usize]));
            }
            if f("nv") != 0 {
                text.push_str(" nv");
            }
        }
    }
    text
}

/// A VGPR (or, on CDNA, AGPR) operand: returns (is AGPR, first register).
fn vreg_arg(e: &Enc<'_>, arg: &Arg, regs: u32, agpr_ok: bool) -> Result<(bool, u32), AsmError> {
    let Expr::Reg {
        file,
        lo,
        hi,
        half: None,
    } = &arg.expr
    else {
        return Err(e.err(arg.col, "invalid operand for instruction"));
    };
    let agpr = file == "a";
    if !(file == "v" || (agpr && agpr_ok && e.tables.arch.is_gfx9())) {
        return Err(e.err(arg.col, "invalid operand for instruction"));
    }
    if hi < lo || hi - lo + 1 != regs || *hi > 255 {
        return Err(e.err(arg.col, "invalid register size for operand"));
    }
    if e.tables.arch.is_gfx9() && regs > 1 && lo % 2 != 0 {
        return Err(e.err(arg.col, "invalid register alignment"));
    }
    Ok((agpr, *lo))
}

fn is_off(arg: &Arg) -> bool {
    matches!(&arg.expr, Expr::Ident(n) if n.eq_ignore_ascii_case("off"))
}

fn int_value(expr: &Option<Expr>) -> Option<i64> {
    match expr {
        Some(Expr::Int(v)) => Some(*v),
        Some(Expr::Neg(inner)) => match inner.as_ref() {
            Expr::Int(v) => Some(-*v),
            _ => None,
        },
        _ => None,
    }
}

/// Tracks that every data operand agrees on `acc`.
fn note_acc(e: &Enc<'_>, acc: &mut Option<bool>, agpr: bool, col: usize) -> Result<(), AsmError> {
    // gfx908's memory instructions have no AGPR data (its `acc` bit is fixed at 0).
    if agpr && e.tables.arch == Arch::Cdna1 {
        return Err(e.err(
            col,
            "invalid register class: no AGPR data operands on this GPU",
        ));
    }
    match acc {
        Some(a) if *a != agpr => Err(e.err(col, "invalid register class: agpr and vgpr mixed")),
        _ => {
            *acc = Some(agpr);
            Ok(())
        }
    }
}

/// Encodes a DS or FLAT statement as `info`; `None` if `info` is neither.
pub(crate) fn encode(
    e: &mut Enc<'_>,
    info: &InstInfo,
    stmt: &Statement,
) -> Option<Result<(), AsmError>> {
    if is_ds(&info.family) {
        Some(encode_ds(e, info, stmt))
    } else if is_flat(&info.family) {
        Some(encode_flat(e, info, stmt))
    } else {
        None
    }
}

fn encode_ds(e: &mut Enc<'_>, info: &InstInfo, stmt: &Statement) -> Result<(), AsmError> {
    let arch = e.tables.arch;
    let ops: Vec<(&str, &OperandSpec)> = ["vdst", "addr", "data0", "data1"]
        .into_iter()
        .filter_map(|f| Some((f, info.operand(f)?)))
        .collect();
    if ops.len() != stmt.args.len() {
        let col = stmt.args.get(ops.len()).map_or(stmt.col, |a| a.col);
        return Err(e.err(col, "invalid operand for instruction"));
    }
    let mut acc = None;
    for (&(field, op), arg) in ops.iter().zip(&stmt.args) {
        let (agpr, lo) = vreg_arg(e, arg, regs(op), field != "addr")?;
        if field != "addr" {
            note_acc(e, &mut acc, agpr, arg.col)?;
        }
        e.set(field, u64::from(lo));
    }
    if acc == Some(true) {
        e.set("acc", 1);
    }
    let two = two_offsets(info);
    let has_gds = arch.wheel() == Wheel::Rdna3
        && e.tables
            .format("DS")
            .is_some_and(|f| f.field("gds").is_some());
    for m in &stmt.mods {
        match m.name.as_str() {
            "offset" if !two => {
                let v = int_value(&m.value)
                    .filter(|v| (0..=65535).contains(v))
                    .ok_or_else(|| e.err(m.col, "invalid offset"))?;
                e.set("offset0", v as u64 & 0xff);
                e.set("offset1", v as u64 >> 8);
            }
            "offset0" | "offset1" if two => {
                let v = int_value(&m.value)
                    .filter(|v| (0..=255).contains(v))
                    .ok_or_else(|| e.err(m.col, "invalid offset"))?;
                e.set(&m.name, v as u64);
            }
            "gds" if has_gds && m.value.is_none() => e.set("gds", 1),
            _ => return Err(e.err(m.col, "invalid modifier for instruction")),
        }
    }
    Ok(())
}

fn th_value(info: &InstInfo, name: &str) -> Option<u64> {
    let name = name.to_ascii_uppercase();
    let table: &[(&str, u64)] = if is_atomic(info) {
        &[
            ("TH_ATOMIC_RT", 0),
            ("TH_ATOMIC_RETURN", 1),
            ("TH_ATOMIC_NT", 2),
            ("TH_ATOMIC_NT_RETURN", 3),
            ("TH_ATOMIC_CASCADE_RT", 4),
            ("TH_ATOMIC_CASCADE_NT", 6),
        ]
    } else if is_store(info) {
        &[
            ("TH_STORE_RT", 0),
            ("TH_STORE_NT", 1),
            ("TH_STORE_HT", 2),
            ("TH_STORE_BYPASS", 3),
            ("TH_STORE_WB", 3),
            ("TH_STORE_NT_RT", 4),
            ("TH_STORE_RT_NT", 5),
            ("TH_STORE_NT_HT", 6),
            ("TH_STORE_NT_WB", 7),
        ]
    } else {
        &[
            ("TH_LOAD_RT", 0),
            ("TH_LOAD_NT", 1),
            ("TH_LOAD_HT", 2),
            ("TH_LOAD_BYPASS", 3),
            ("TH_LOAD_LU", 3),
            ("TH_LOAD_NT_RT", 4),
            ("TH_LOAD_RT_NT", 5),
            ("TH_LOAD_NT_HT", 6),
        ]
    };
    table.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
}

fn encode_flat(e: &mut Enc<'_>, info: &InstInfo, stmt: &Statement) -> Result<(), AsmError> {
    let arch = e.tables.arch;
    let (addr_f, data_f, off_f) = flat_fields(arch);
    let sg = seg(&info.family);
    let atomic = is_atomic(info);
    let has_saddr = sg != Seg::Flat && info.operand("saddr").is_some();
    let has_addr = info.operand(addr_f).is_some() || (sg == Seg::Scratch && has_saddr);
    let n_fixed = usize::from(has_addr)
        + usize::from(info.operand(data_f).is_some())
        + usize::from(has_saddr);
    let has_vdst_op = flat_vdst_regs(info).is_some();
    let args = &stmt.args;
    let with_vdst = has_vdst_op && args.len() == n_fixed + 1;
    if args.len() != n_fixed + usize::from(with_vdst) || (has_vdst_op && !atomic && !with_vdst) {
        let col = args.get(n_fixed).map_or(stmt.col, |a| a.col);
        return Err(e.err(col, "invalid operand for instruction"));
    }
    let mut acc = None;
    let mut i = 0;
    if with_vdst {
        let n = flat_vdst_regs(info).expect("bug: vdst checked");
        let (agpr, lo) = vreg_arg(e, &args[0], n, true)?;
        note_acc(e, &mut acc, agpr, args[0].col)?;
        e.set("vdst", u64::from(lo));
        i = 1;
    }
    let addr_arg = has_addr.then(|| {
        i += 1;
        &args[i - 1]
    });
    if let Some(op) = info.operand(data_f) {
        let (agpr, lo) = vreg_arg(e, &args[i], regs(op), true)?;
        note_acc(e, &mut acc, agpr, args[i].col)?;
        e.set(data_f, u64::from(lo));
        i += 1;
    }
    if acc == Some(true) {
        e.set("acc", 1);
    }
    // The SGPR base: `off` or a register.
    let saddr_is_off = match has_saddr.then(|| &args[i]) {
        Some(a) if is_off(a) => {
            e.set("saddr", saddr_off(arch));
            true
        }
        Some(a) => {
            let code = encode_sreg(e, a, if sg == Seg::Global { 2 } else { 1 })?;
            if u64::from(code) == saddr_off(arch) {
                return Err(e.err(a.col, "invalid operand for instruction"));
            }
            e.set("saddr", u64::from(code));
            false
        }
        None => {
            e.set("saddr", if arch.is_gfx9() { 0 } else { saddr_off(arch) });
            true
        }
    };
    if let Some(a) = addr_arg {
        // Without an `sve` bit (CDNA 1 and 2) a scratch access has exactly one of its VGPR
        // and its SGPR (llvm-mc-22 refuses `off, off` and `v2, s2` for gfx90a).
        if sg == Seg::Scratch && !e.has_field("sve") && is_off(a) == saddr_is_off {
            return Err(e.err(a.col, "operands are not valid for this GPU or mode"));
        }
        match sg {
            Seg::Scratch if is_off(a) => {}
            Seg::Scratch => {
                let (_, lo) = vreg_arg(e, a, 1, false)?;
                e.set(addr_f, u64::from(lo));
                e.set("sve", 1);
            }
            _ => {
                let n = if sg == Seg::Flat || saddr_is_off {
                    2
                } else {
                    1
                };
                let (_, lo) = vreg_arg(e, a, n, false)?;
                e.set(addr_f, u64::from(lo));
            }
        }
    }
    let (signed, width) = flat_offset(e.tables, &info.family);
    // GFX10's FLAT segment takes an 11-bit unsigned offset (llvm-mc-22, gfx1030: "expected
    // a 11-bit unsigned offset"); the disassembler still prints all 12 bits.
    let width = if !signed && arch.family() == crate::spec::Family::Gfx10 {
        width.min(11)
    } else {
        width
    };
    let (lo, hi) = if signed {
        (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1)
    } else {
        (0, (1i64 << width) - 1)
    };
    let mut ret = false;
    let mut th_bypass: Option<bool> = None;
    let mut scope_sys = false;
    for m in &stmt.mods {
        let flag = m.value.is_none();
        match (arch.wheel(), m.name.as_str()) {
            (_, "offset") => {
                let v = int_value(&m.value)
                    .filter(|v| (lo..=hi).contains(v))
                    .ok_or_else(|| e.err(m.col, "invalid offset"))?;
                e.set(off_f, v as u64);
            }
            (Wheel::Rdna3, "glc" | "slc" | "dlc") if flag => {
                ret |= m.name == "glc";
                e.set(&m.name, 1);
            }
            (Wheel::Cdna, name) if flag && gfx9_cache_field(arch, name).is_some() => {
                let field = gfx9_cache_field(arch, name).unwrap_or(name);
                ret |= field == "sc0";
                e.set(field, 1);
            }
            (Wheel::Rdna4, "nv") if flag => e.set("nv", 1),
            (Wheel::Rdna4, "scale_offset") if flag && e.has_field("scale_offset") => {
                e.set("scale_offset", 1);
            }
            (Wheel::Rdna4, "th") => {
                // Only names: llvm-mc prints reserved values (`th:0x7`, `TH_ATOMIC_0x6`) that
                // it does not accept back, and so do we.
                let (v, name) = match &m.value {
                    Some(Expr::Ident(n)) => (th_value(info, n), n.to_ascii_uppercase()),
                    _ => (None, String::new()),
                };
                let v = v.ok_or_else(|| e.err(m.col, "invalid th value"))?;
                if v == 3 {
                    th_bypass = Some(name.ends_with("BYPASS"));
                }
                ret = v & 1 != 0;
                e.set("th", v);
            }
            (Wheel::Rdna4, "scope") => {
                let v = match &m.value {
                    Some(Expr::Ident(n)) => SCOPES
                        .iter()
                        .position(|s| s.eq_ignore_ascii_case(n))
                        .map(|p| p as u64),
                    _ => None,
                }
                .ok_or_else(|| e.err(m.col, "invalid scope value"))?;
                scope_sys = v == 3;
                e.set("scope", v);
            }
            _ => return Err(e.err(m.col, "invalid modifier for instruction")),
        }
    }
    // th value 3 is BYPASS with SCOPE_SYS and LU/WB/NT_RETURN with any other scope.
    if th_bypass.is_some_and(|b| b != scope_sys) {
        return Err(e.err(stmt.col, "scope and th combination is not valid"));
    }
    if atomic && has_vdst_op && ret != with_vdst {
        let what = match arch.wheel() {
            Wheel::Rdna3 => "glc",
            Wheel::Rdna4 => "th:TH_ATOMIC_RETURN",
            Wheel::Cdna => gfx9_cache_bits(arch)[0].1,
        };
        let msg = if with_vdst {
            format!("instruction must use {what}")
        } else {
            format!("instruction must not use {what}")
        };
        return Err(e.err(stmt.col, msg));
    }
    Ok(())
}

/// Whether `family` is a buffer family (MUBUF, MTBUF; RDNA 4's VBUFFER holds both).
fn is_tbuffer(info: &InstInfo) -> bool {
    info.name.starts_with("TBUFFER")
}

/// The register code of the resource descriptor and its field: RDNA 4 stores the SGPR code,
/// the others the code divided by 4.
fn rsrc_field(arch: Arch) -> (&'static str, u64) {
    if arch.wheel() == Wheel::Rdna4 {
        ("rsrc", 1)
    } else {
        ("srsrc", 4)
    }
}

/// The buffer format value as one number (CDNA: `dfmt | nfmt << 4`) and LLVM's default.
fn buf_format(arch: Arch, inst: &Inst) -> (u64, u64) {
    let f = |n: &str| inst.field(n).unwrap_or(0);
    if arch.is_gfx9() {
        (f("dfmt") | f("nfmt") << 4, 1)
    } else {
        (f("format"), 1)
    }
}

/// The number of `vdata` registers: `tfe` adds one (stores included, as LLVM prints them).
fn buf_vdata_regs(info: &InstInfo, tfe: bool) -> Option<u32> {
    let op = info.operand("vdata")?;
    Some(regs(op) + u32::from(tfe && !is_atomic(info)))
}

/// CDNA's `dfmt` and `nfmt` names (LLVM's `BUF_DATA_FORMAT_*`, `BUF_NUM_FORMAT_*`).
const DFMT: [&str; 16] = [
    "INVALID",
    "8",
    "16",
    "8_8",
    "32",
    "16_16",
    "10_11_11",
    "11_11_10",
    "10_10_10_2",
    "2_10_10_10",
    "8_8_8_8",
    "32_32",
    "16_16_16_16",
    "32_32_32",
    "32_32_32_32",
    "RESERVED_15",
];
const NFMT: [&str; 8] = [
    "UNORM",
    "SNORM",
    "USCALED",
    "SSCALED",
    "UINT",
    "SINT",
    "RESERVED_6",
    "FLOAT",
];

/// RDNA's unified buffer format names by value, from `semantics/ALIASES.md`.
fn rdna_formats() -> &'static [(u64, String)] {
    static TABLE: std::sync::OnceLock<Vec<(u64, String)>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        super::tables::alias_rows("Buffer formats", Arch::Rdna3)
            .into_iter()
            .filter_map(|row| match row.as_slice() {
                [v, name, ..] => Some((v.parse().ok()?, name.clone())),
                _ => None,
            })
            .collect()
    })
}

/// The `format:` text LLVM prints for a typed buffer access, if not the default.
fn format_text(arch: Arch, inst: &Inst) -> Option<String> {
    let (v, default) = buf_format(arch, inst);
    if v == default {
        return None;
    }
    if !arch.is_gfx9() {
        return Some(match rdna_formats().iter().find(|(x, _)| *x == v) {
            Some((_, name)) => format!("format:[{name}]"),
            None => format!("format:{v}"),
        });
    }
    let (dfmt, nfmt) = ((v & 15) as usize, (v >> 4 & 7) as usize);
    let mut names = Vec::new();
    if dfmt != 1 {
        names.push(format!("BUF_DATA_FORMAT_{}", DFMT[dfmt]));
    }
    if nfmt != 0 {
        names.push(format!("BUF_NUM_FORMAT_{}", NFMT[nfmt]));
    }
    Some(format!("format:[{}]", names.join(",")))
}

/// Reads `format:N` or CDNA's `format:[BUF_DATA_FORMAT_x,BUF_NUM_FORMAT_y]`.
fn parse_format(arch: Arch, value: &Option<Expr>) -> Option<u64> {
    if let Some(v) = int_value(value) {
        return (0..=127).contains(&v).then_some(v as u64);
    }
    let Some(Expr::List(items)) = value else {
        return None;
    };
    if !arch.is_gfx9() {
        let [Expr::Ident(n)] = items.as_slice() else {
            return None;
        };
        return rdna_formats()
            .iter()
            .find(|(_, name)| name.eq_ignore_ascii_case(n))
            .map(|(v, _)| *v);
    }
    if items.is_empty() || items.len() > 2 {
        return None;
    }
    let (mut dfmt, mut nfmt) = (1u64, 0u64);
    for it in items {
        let Expr::Ident(n) = it else { return None };
        let n = n.to_ascii_uppercase();
        if let Some(d) = n.strip_prefix("BUF_DATA_FORMAT_") {
            dfmt = DFMT.iter().position(|x| *x == d)? as u64;
        } else if let Some(f) = n.strip_prefix("BUF_NUM_FORMAT_") {
            nfmt = NFMT.iter().position(|x| *x == f)? as u64;
        } else {
            return None;
        }
    }
    Some(dfmt | nfmt << 4)
}

fn print_buf(tables: &Tables, info: &InstInfo, inst: &Inst) -> String {
    let arch = tables.arch;
    let f = |n: &str| inst.field(n).unwrap_or(0);
    let (rsrc_f, scale) = rsrc_field(arch);
    let lds = f("lds") != 0;
    let dfile = if f("acc") != 0 { "a" } else { "v" };
    let mut parts = Vec::new();
    if let Some(n) = buf_vdata_regs(info, f("tfe") != 0) {
        if !lds {
            parts.push(vreg_text(dfile, f("vdata"), n));
        }
    }
    if info.operand("srsrc").is_some() || info.operand("rsrc").is_some() {
        let (offen, idxen) = (f("offen") != 0, f("idxen") != 0);
        parts.push(match (offen, idxen) {
            (true, true) => vreg_text("v", f("vaddr"), 2),
            (false, false) => "off".to_string(),
            _ => vreg_text("v", f("vaddr"), 1),
        });
        parts.push(sreg(tables, (f(rsrc_f) * scale) as u32, 4));
        parts.push(src(tables, f("soffset") as u32, 32, None));
    }
    let mut text = info.mnemonic.clone();
    if !parts.is_empty() {
        text.push(' ');
        text.push_str(&parts.join(", "));
    }
    if is_tbuffer(info) {
        if let Some(t) = format_text(arch, inst) {
            text.push(' ');
            text.push_str(&t);
        }
    }
    for name in ["idxen", "offen"] {
        if f(name) != 0 {
            text.push(' ');
            text.push_str(name);
        }
    }
    let off_f = if arch.wheel() == Wheel::Rdna4 {
        "ioffset"
    } else {
        "offset"
    };
    if f(off_f) != 0 {
        text.push_str(&format!(" offset:{}", f(off_f)));
    }
    cache_text(arch, info, inst, &mut text);
    if lds {
        text.push_str(" lds");
    }
    if f("tfe") != 0 {
        text.push_str(" tfe");
    }
    text
}

/// Appends the cache-policy modifiers.
fn cache_text(arch: Arch, info: &InstInfo, inst: &Inst, text: &mut String) {
    let f = |n: &str| inst.field(n).unwrap_or(0);
    let flags: &[&str] = match arch.wheel() {
        Wheel::Rdna3 => &["glc", "slc", "dlc"],
        Wheel::Cdna => {
            for (field, name) in gfx9_cache_bits(arch) {
                if f(field) != 0 {
                    text.push(' ');
                    text.push_str(name);
                }
            }
            &[]
        }
        Wheel::Rdna4 => {
            let (th, scope) = (f("th"), f("scope"));
            if f("scale_offset") != 0 {
                text.push_str(" scale_offset");
            }
            if th != 0 {
                text.push_str(&format!(" th:{}", th_text(info, th, scope)));
            }
            if scope != 0 {
                text.push_str(&format!(" scope:{}", SCOPES[(scope & 3) as usize]));
            }
            &["nv"]
        }
    };
    for name in flags {
        if f(name) != 0 {
            text.push(' ');
            text.push_str(name);
        }
    }
}

/// Prints a buffer instruction, or `None` if `info` is not one.
pub(crate) fn print_buffer(tables: &Tables, info: &InstInfo, inst: &Inst) -> Option<String> {
    is_buf(&info.family).then(|| print_buf(tables, info, inst))
}

/// Encodes a buffer statement as `info`; `None` if `info` is not one.
pub(crate) fn encode_buffer(
    e: &mut Enc<'_>,
    info: &InstInfo,
    stmt: &Statement,
) -> Option<Result<(), AsmError>> {
    is_buf(&info.family).then(|| encode_buf(e, info, stmt))
}

fn encode_buf(e: &mut Enc<'_>, info: &InstInfo, stmt: &Statement) -> Result<(), AsmError> {
    let arch = e.tables.arch;
    let (rsrc_f, scale) = rsrc_field(arch);
    let has_addr = info.operand("srsrc").is_some() || info.operand("rsrc").is_some();
    let flag = |n: &str| stmt.mods.iter().any(|m| m.name == n && m.value.is_none());
    let (tfe, lds) = (flag("tfe"), flag("lds") && arch.is_gfx9());
    // llvm-mc prints `tfe` stores (with the extra register) but does not accept them.
    if tfe && is_store(info) {
        return Err(e.err(stmt.col, "invalid operand for instruction"));
    }
    let vdata = buf_vdata_regs(info, tfe).filter(|_| !lds);
    let n_args = usize::from(vdata.is_some()) + if has_addr { 3 } else { 0 };
    let args = &stmt.args;
    if args.len() != n_args {
        let col = args.get(n_args).map_or(stmt.col, |a| a.col);
        return Err(e.err(col, "invalid operand for instruction"));
    }
    let mut i = 0;
    if let Some(n) = vdata {
        let (agpr, lo) = vreg_arg(e, &args[0], n, true)?;
        if agpr {
            note_acc(e, &mut None, true, args[0].col)?;
            e.set("acc", 1);
        }
        e.set("vdata", u64::from(lo));
        i = 1;
    }
    let (offen, idxen) = (flag("offen"), flag("idxen"));
    if has_addr {
        let a = &args[i];
        match (offen || idxen, is_off(a)) {
            (false, true) => {}
            (true, false) => {
                let n = if offen && idxen { 2 } else { 1 };
                let (_, lo) = vreg_arg(e, a, n, false)?;
                e.set("vaddr", u64::from(lo));
            }
            _ => return Err(e.err(a.col, "invalid operand for instruction")),
        }
        if !matches!(&args[i + 1].expr, Expr::Reg { .. }) {
            return Err(e.err(args[i + 1].col, "invalid operand for instruction"));
        }
        let code = encode_sreg(e, &args[i + 1], 4)?;
        if code % 4 != 0 {
            return Err(e.err(args[i + 1].col, "invalid register alignment"));
        }
        e.set(rsrc_f, u64::from(code) / scale);
        let soff = &args[i + 2];
        let code = match &soff.expr {
            Expr::Int(v) => super::operands::int_code(*v),
            Expr::Ident(_) | Expr::Reg { .. } => encode_sreg(e, soff, 1).ok(),
            _ => None,
        }
        .filter(|&c| arch.is_gfx9() || !matches!(c, 251 | 252 | 254))
        .ok_or_else(|| e.err(soff.col, "invalid operand for instruction"))?;
        e.set("soffset", u64::from(code));
    }
    // LLVM's default format (and the fixed `format` of RDNA 4 non-typed buffer ops).
    if arch.is_gfx9() {
        if is_tbuffer(info) {
            e.set("dfmt", 1);
        }
    } else if is_tbuffer(info) || arch.wheel() == Wheel::Rdna4 {
        e.set("format", 1);
    }
    let off_f = if arch.wheel() == Wheel::Rdna4 {
        "ioffset"
    } else {
        "offset"
    };
    let max_off = if arch.wheel() == Wheel::Rdna4 {
        (1 << 23) - 1
    } else {
        4095
    };
    let mut th_bypass: Option<bool> = None;
    let mut scope_sys = false;
    for m in &stmt.mods {
        let is_flag = m.value.is_none();
        match (arch.wheel(), m.name.as_str()) {
            (_, "offen" | "idxen") if is_flag => e.set(&m.name, 1),
            (_, "tfe") if is_flag => e.set("tfe", 1),
            (Wheel::Cdna, "lds") if is_flag => e.set("lds", 1),
            (_, "offset") => {
                let v = int_value(&m.value)
                    .filter(|v| (0..=max_off).contains(v))
                    .ok_or_else(|| e.err(m.col, "invalid offset"))?;
                e.set(off_f, v as u64);
            }
            (_, "format") if is_tbuffer(info) => {
                let v =
                    parse_format(arch, &m.value).ok_or_else(|| e.err(m.col, "invalid format"))?;
                if arch.is_gfx9() {
                    e.set("dfmt", v & 15);
                    e.set("nfmt", v >> 4);
                } else {
                    e.set("format", v);
                }
            }
            (Wheel::Rdna3, "glc" | "slc" | "dlc") if is_flag => e.set(&m.name, 1),
            (Wheel::Cdna, name) if is_flag && gfx9_cache_field(arch, name).is_some() => {
                e.set(gfx9_cache_field(arch, name).unwrap_or(name), 1)
            }
            (Wheel::Rdna4, "nv") if is_flag => e.set("nv", 1),
            (Wheel::Rdna4, "th") => {
                let (v, name) = match &m.value {
                    Some(Expr::Ident(n)) => (th_value(info, n), n.to_ascii_uppercase()),
                    _ => (None, String::new()),
                };
                let v = v.ok_or_else(|| e.err(m.col, "invalid th value"))?;
                if v == 3 {
                    th_bypass = Some(name.ends_with("BYPASS"));
                }
                e.set("th", v);
            }
            (Wheel::Rdna4, "scope") => {
                let v = match &m.value {
                    Some(Expr::Ident(n)) => SCOPES
                        .iter()
                        .position(|s| s.eq_ignore_ascii_case(n))
                        .map(|p| p as u64),
                    _ => None,
                }
                .ok_or_else(|| e.err(m.col, "invalid scope value"))?;
                scope_sys = v == 3;
                e.set("scope", v);
            }
            _ => return Err(e.err(m.col, "invalid modifier for instruction")),
        }
    }
    if th_bypass.is_some_and(|b| b != scope_sys) {
        return Err(e.err(stmt.col, "scope and th combination is not valid"));
    }
    Ok(())
}
