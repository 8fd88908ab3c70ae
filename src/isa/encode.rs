//! Assembly text → bytes. Two passes: encode every line (branch targets that name labels
//! are left as fixups), then patch the fixups once every label's offset is known.

use std::collections::HashMap;

use super::dpp::Ext;
use super::enc::{encode_sreg, encode_ssrc, int_in, scalar_reg, Enc};
use super::inst::{literal_bytes, AsmError, Assembled};
use super::layout::{self, Slot};
use super::operands;
use super::spelling::{
    vmcnt_split, waitcnt_fields, DELAY_INSTID, DELAY_SKIP, DEPCTR, GFX9_GS_OP, GFX9_MSG,
    GFX9_SYSMSG_OP, GPR_IDX,
};
use super::syntax::{self, Arg, Expr, Modifier, Statement};
use super::tables::{is_vop, InstInfo, Tables};
use crate::spec::{Arch, Wheel};

/// Encoded bytes and the label a branch operand names, if any.
type Encoded = (Vec<u8>, Option<(String, usize)>);

/// A branch offset to fill in once labels are known.
struct Fixup {
    index: usize,
    label: String,
    line: usize,
    col: usize,
    field_lo: u32,
}

fn expect_int(e: &Enc<'_>, arg: &Arg, lo: i64, hi: i64) -> Result<i64, AsmError> {
    match &arg.expr {
        Expr::Int(v) if int_in(*v, lo, hi) => Ok(*v),
        Expr::Int(_) => Err(e.err(arg.col, "immediate out of range")),
        _ => Err(e.err(arg.col, "expected an integer")),
    }
}

fn call_args(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::Chain(items) => items.iter().collect(),
        other => vec![other],
    }
}

fn named_int(e: &Enc<'_>, col: usize, expr: &Expr, names: &[&str]) -> Result<u64, AsmError> {
    match expr {
        Expr::Int(v) if *v >= 0 => Ok(*v as u64),
        Expr::Ident(n) => names
            .iter()
            .position(|x| x.eq_ignore_ascii_case(n))
            .map(|p| p as u64)
            .ok_or_else(|| e.err(col, format!("unknown value `{n}`"))),
        _ => Err(e.err(col, "expected a value")),
    }
}

/// Encodes the symbolic 16-bit operands (`hwreg`, `sendmsg`, counters) or a plain integer.
fn encode_symbolic(e: &mut Enc<'_>, slot: Slot, args: &[Arg]) -> Result<u64, AsmError> {
    let arch = e.tables.arch;
    let first = &args[0];
    if args.len() == 1 {
        if let Expr::Int(v) = first.expr {
            if !int_in(v, -32768, 65535) {
                return Err(e.err(first.col, "immediate out of range"));
            }
            return Ok(v as u64 & 0xffff);
        }
    }
    let calls: Vec<(&Expr, usize)> = args
        .iter()
        .flat_map(|a| call_args(&a.expr).into_iter().map(move |c| (c, a.col)))
        .collect();
    match slot {
        Slot::Hwreg => {
            let [(Expr::Call { name, args: hargs }, col)] = calls.as_slice() else {
                return Err(e.err(first.col, "expected hwreg(...)"));
            };
            if name != "hwreg" || hargs.is_empty() || hargs.len() > 3 {
                return Err(e.err(*col, "expected hwreg(...)"));
            }
            let id = match &hargs[0] {
                Expr::Int(v) if int_in(*v, 0, 63) => *v as u64,
                Expr::Ident(n) => e
                    .tables
                    .hwreg_print
                    .iter()
                    .chain(&e.tables.hwreg)
                    .find(|(k, _)| k.eq_ignore_ascii_case(n))
                    .map(|(_, v)| u64::from(*v))
                    .ok_or_else(|| e.err(*col, format!("unknown hardware register `{n}`")))?,
                _ => return Err(e.err(*col, "invalid hardware register")),
            };
            let (offset, size) = match &hargs[1..] {
                [] => (0, 32),
                [Expr::Int(o), Expr::Int(s)] if int_in(*o, 0, 31) && int_in(*s, 1, 32) => {
                    (*o as u64, *s as u64)
                }
                _ => return Err(e.err(*col, "invalid bit offset or size")),
            };
            Ok(id | (offset << 6) | ((size - 1) << 11))
        }
        Slot::Sendmsg | Slot::SendmsgRtn => {
            let [(Expr::Call { name, args: margs }, col)] = calls.as_slice() else {
                return Err(e.err(first.col, "expected sendmsg(...)"));
            };
            if name != "sendmsg" || margs.is_empty() || margs.len() > 3 {
                return Err(e.err(*col, "expected sendmsg(...)"));
            }
            let gfx9 = |n: &str| {
                GFX9_MSG
                    .iter()
                    .find(|m| m.1.eq_ignore_ascii_case(n))
                    .map(|m| m.0)
            };
            let id = match &margs[0] {
                Expr::Int(v) if *v >= 0 => *v as u64,
                Expr::Ident(n) if arch.is_gfx9() => {
                    gfx9(n).ok_or_else(|| e.err(*col, format!("unknown message `{n}`")))?
                }
                Expr::Ident(n) => e
                    .tables
                    .msg
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(n))
                    .map(|(_, v)| u64::from(*v))
                    .ok_or_else(|| e.err(*col, format!("unknown message `{n}`")))?,
                _ => return Err(e.err(*col, "invalid message id")),
            };
            let mut rest = [0u64; 2];
            for (i, a) in margs[1..].iter().enumerate() {
                let op_name = |n: &str| {
                    let gs = GFX9_GS_OP
                        .iter()
                        .position(|x| x.eq_ignore_ascii_case(n))
                        .map(|p| p as u64);
                    let sys = GFX9_SYSMSG_OP
                        .iter()
                        .find(|x| x.1.eq_ignore_ascii_case(n))
                        .map(|x| x.0);
                    gs.or(sys)
                };
                match a {
                    Expr::Int(v) if *v >= 0 => rest[i] = *v as u64,
                    Expr::Ident(n) if i == 0 && arch.is_gfx9() => {
                        rest[i] = op_name(n)
                            .ok_or_else(|| e.err(*col, format!("unknown operation `{n}`")))?
                    }
                    _ => return Err(e.err(*col, "invalid message operation")),
                }
            }
            Ok(if arch.is_gfx9() {
                id | (rest[0] << 4) | (rest[1] << 8)
            } else {
                id
            })
        }
        Slot::Waitcnt => {
            let fields = waitcnt_fields(arch);
            let mut v: u64 = 0;
            for &(_, lo, w) in &fields {
                v |= ((1 << w) - 1) << lo;
            }
            if vmcnt_split(arch) {
                v |= 3 << 14;
            }
            for (c, col) in calls {
                let Expr::Call { name, args } = c else {
                    return Err(e.err(col, "expected a counter"));
                };
                let Some(&(_, lo, w)) = fields.iter().find(|f| f.0 == name) else {
                    return Err(e.err(col, format!("unknown counter `{name}`")));
                };
                let [Expr::Int(n)] = args.as_slice() else {
                    return Err(e.err(col, "expected a count"));
                };
                let max = if vmcnt_split(arch) && name == "vmcnt" {
                    63
                } else {
                    (1 << w) - 1
                };
                if !int_in(*n, 0, max) {
                    return Err(e.err(col, "too large value for counter"));
                }
                let n = *n as u64;
                v &= !(((1 << w) - 1) << lo);
                v |= (n & ((1 << w) - 1)) << lo;
                if vmcnt_split(arch) && name == "vmcnt" {
                    v &= !(3 << 14);
                    v |= (n >> 4) << 14;
                }
            }
            Ok(v)
        }
        Slot::DelayAlu => {
            let mut v = 0u64;
            for (c, col) in calls {
                let Expr::Call { name, args } = c else {
                    return Err(e.err(col, "expected instid0/instskip/instid1"));
                };
                let [arg] = args.as_slice() else {
                    return Err(e.err(col, "expected one value"));
                };
                match name.as_str() {
                    "instid0" => v |= named_int(e, col, arg, &DELAY_INSTID)? & 0xf,
                    "instskip" => v |= (named_int(e, col, arg, &DELAY_SKIP)? & 7) << 4,
                    "instid1" => v |= (named_int(e, col, arg, &DELAY_INSTID)? & 0xf) << 7,
                    _ => return Err(e.err(col, format!("unknown field `{name}`"))),
                }
            }
            Ok(v)
        }
        Slot::Depctr => {
            let mut v: u64 = DEPCTR
                .iter()
                .map(|&(_, lo, w)| ((1u64 << w) - 1) << lo)
                .sum();
            for (c, col) in calls {
                let Expr::Call { name, args } = c else {
                    return Err(e.err(col, "expected a depctr counter"));
                };
                let Some(&(_, lo, w)) = DEPCTR.iter().find(|f| f.0 == name) else {
                    return Err(e.err(col, format!("unknown counter `{name}`")));
                };
                let [Expr::Int(n)] = args.as_slice() else {
                    return Err(e.err(col, "expected a count"));
                };
                if !int_in(*n, 0, (1 << w) - 1) {
                    return Err(e.err(col, "invalid value for counter"));
                }
                v &= !(((1 << w) - 1) << lo);
                v |= (*n as u64) << lo;
            }
            Ok(v)
        }
        _ => Err(e.err(first.col, "expected an integer")),
    }
}

fn encode_scalar(
    e: &mut Enc<'_>,
    info: &InstInfo,
    stmt: &Statement,
    slots: &[layout::Pos<'_>],
) -> Result<(), AsmError> {
    if let Some(m) = stmt.mods.first() {
        return Err(e.err(m.col, "invalid operand for instruction"));
    }
    let args = &stmt.args;
    // RDNA 3's `s_waitcnt_{vs,vm,exp,lgkm}cnt` take `null` as their register (llvm-mc: "src0
    // must be null"); the field is decoded and printed whatever it holds.
    if e.tables.arch.wheel() == Wheel::Rdna3
        && info.name.starts_with("S_WAITCNT_")
        && info.family == "SOPK"
    {
        let null = operands::special_code(Arch::Rdna3, "null").map(|c| c.0);
        if let Some(a) = args.first() {
            if scalar_reg(Arch::Rdna3, &a.expr).map(|c| c.0) != null {
                return Err(e.err(a.col, "src0 must be null"));
            }
        }
    }
    // SOPP instructions without a listed operand take an optional immediate (`s_endpgm 3`).
    if slots.is_empty() {
        if info.family == "SOPP" && args.len() == 1 {
            let v = expect_int(e, &args[0], 0, 65535)?;
            e.set("simm16", v as u64);
            return Ok(());
        }
        if let Some(a) = args.first() {
            return Err(e.err(a.col, "invalid operand for instruction"));
        }
        return Ok(());
    }
    let rest_slot = matches!(
        slots.last().map(|p| p.slot),
        Some(Slot::Waitcnt | Slot::Depctr | Slot::DelayAlu)
    );
    if args.len() < slots.len() {
        let col = args.last().map_or(stmt.col, |a| a.col);
        return Err(e.err(col, "too few operands for instruction"));
    }
    if args.len() > slots.len() && !rest_slot {
        return Err(e.err(args[slots.len()].col, "invalid operand for instruction"));
    }
    for (i, pos) in slots.iter().enumerate() {
        let arg = &args[i];
        match pos.slot {
            Slot::SReg { regs } => {
                let code = encode_sreg(e, arg, regs)?;
                e.set(pos.field, u64::from(code));
            }
            Slot::SSrc { bits, float } => {
                let code = encode_ssrc(e, arg, bits, float)?;
                e.set(pos.field, u64::from(code));
            }
            Slot::ImmHex | Slot::ImmSmall => {
                let v = expect_int(e, arg, -32768, 65535)?;
                e.set(pos.field, v as u64 & 0xffff);
            }
            Slot::Label => match &arg.expr {
                Expr::Ident(name) => e.label = Some((name.clone(), arg.col)),
                _ => {
                    let v = expect_int(e, arg, -32768, 65535)?;
                    e.set(pos.field, v as u64 & 0xffff);
                }
            },
            Slot::Literal32 | Slot::LiteralK => {
                let v = match &arg.expr {
                    Expr::Float(f) => (*f as f32).to_bits(),
                    _ => expect_int(e, arg, i64::from(i32::MIN), i64::from(u32::MAX))? as u32,
                };
                e.set_literal(v, arg.col)?;
            }
            Slot::BarrierId => {
                let code = encode_ssrc(e, arg, 32, false)?;
                let m0 = operands::special_code(e.tables.arch, "m0").map(|c| c.0);
                if Some(code) != m0 && operands::inline_int(code).is_none() {
                    return Err(e.err(arg.col, "invalid operand for instruction"));
                }
                e.set(pos.field, u64::from(code));
            }
            Slot::GprIdx => {
                let v = match &arg.expr {
                    Expr::Int(_) => expect_int(e, arg, 0, 15)? as u64,
                    Expr::Call { name, args } if name == "gpr_idx" => {
                        let mut v = 0;
                        for a in args {
                            if !matches!(a, Expr::Ident(_)) {
                                return Err(e.err(arg.col, "expected SRC0, SRC1, SRC2 or DST"));
                            }
                            v |= 1 << named_int(e, arg.col, a, &GPR_IDX)?;
                        }
                        v
                    }
                    _ => return Err(e.err(arg.col, "expected gpr_idx(...)")),
                };
                e.set(pos.field, v);
            }
            Slot::Hwreg | Slot::Sendmsg | Slot::SendmsgRtn => {
                if pos.slot == Slot::SendmsgRtn {
                    if let Expr::Int(_) = arg.expr {
                        let v = expect_int(e, arg, 0, 255)?;
                        e.set(pos.field, v as u64);
                        continue;
                    }
                }
                let v = encode_symbolic(e, pos.slot, std::slice::from_ref(arg))?;
                e.set(pos.field, v);
            }
            Slot::Waitcnt | Slot::Depctr | Slot::DelayAlu => {
                let v = encode_symbolic(e, pos.slot, &args[i..])?;
                e.set(pos.field, v);
            }
        }
    }
    Ok(())
}

fn mod_int(e: &Enc<'_>, m: &Modifier, lo: i64, hi: i64) -> Result<i64, AsmError> {
    match &m.value {
        Some(Expr::Int(v)) if int_in(*v, lo, hi) => Ok(*v),
        Some(Expr::Int(_)) => Err(e.err(m.col, "offset out of range")),
        _ => Err(e.err(m.col, "expected an integer value")),
    }
}

fn encode_smem(e: &mut Enc<'_>, info: &InstInfo, stmt: &Statement) -> Result<(), AsmError> {
    let arch = e.tables.arch;
    let null = operands::special_code(arch, "null").map(|c| c.0);
    let args = &stmt.args;
    let mut i = 0;
    let line = e.line;
    let next = |i: &mut usize| -> Result<&Arg, AsmError> {
        let a = args.get(*i).ok_or_else(|| AsmError {
            line,
            col: stmt.col,
            message: "too few operands for instruction".into(),
        })?;
        *i += 1;
        Ok(a)
    };
    // RDNA 3 and CDNA buffer loads/stores/atomics take a 20-bit unsigned offset (llvm-mc:
    // "expected a 20-bit unsigned offset"), although the field is signed and the decoder
    // prints it so.
    let buffer = info.name.starts_with("S_BUFFER_") || info.name.starts_with("S_ATC_PROBE_BUFFER");
    let (off_lo, off_hi, off_field) = match arch.wheel() {
        Wheel::Rdna3 if buffer => (0, (1 << 20) - 1, "offset"),
        Wheel::Rdna3 => (-(1 << 20), (1 << 20) - 1, "offset"),
        Wheel::Rdna4 => (-(1 << 23), (1 << 23) - 1, "ioffset"),
        Wheel::Cdna if buffer => (0, (1 << 20) - 1, "offset"),
        Wheel::Cdna => (-(1 << 20), (1 << 20) - 1, "offset"),
    };
    let prefetch = info.operand("sdata").is_some_and(|o| o.kind == "SIMM5");
    let pc_rel = info.name.ends_with("_PC_REL");
    let sdata = |e: &mut Enc<'_>, a: &Arg| -> Result<(), AsmError> {
        let op = info.operand("sdata").expect("bug: sdata checked");
        let code = match op.kind.as_str() {
            "SIMM8" => expect_int(e, a, 0, 255)? as u32,
            "SIMM5" => expect_int(e, a, 0, 31)? as u32,
            _ => encode_sreg(e, a, op.bits.div_ceil(32))?,
        };
        e.set("sdata", u64::from(code));
        Ok(())
    };
    let sbase = |e: &mut Enc<'_>, a: &Arg| -> Result<(), AsmError> {
        let regs = info.operand("sbase").map_or(2, |o| o.bits.div_ceil(32));
        let code = encode_sreg(e, a, regs)?;
        // `null` is no buffer resource (llvm-mc rejects it).
        if buffer && Some(code) == null {
            return Err(e.err(a.col, "invalid operand for instruction"));
        }
        e.set("sbase", u64::from(code / 2));
        Ok(())
    };
    let mut th_bypass: Option<bool> = None;
    let mut scope_sys = false;
    let mut offset_mod: Option<i64> = None;
    let mut soffset_reg: Option<u32> = None;
    let mut imm_offset: Option<i64> = None;
    if prefetch {
        if !pc_rel {
            sbase(e, next(&mut i)?)?;
        }
        let a = next(&mut i)?;
        imm_offset = Some(expect_int(e, a, off_lo, off_hi)?);
        let a = next(&mut i)?;
        let code = encode_sreg(e, a, 1)?;
        soffset_reg = Some(code);
        sdata(e, next(&mut i)?)?;
    } else {
        if info.operand("sdata").is_some() {
            sdata(e, next(&mut i)?)?;
        }
        if info.operand("sbase").is_some() {
            sbase(e, next(&mut i)?)?;
        }
        if info.operand("soffset").is_some() {
            let a = next(&mut i)?;
            match &a.expr {
                Expr::Int(v) => {
                    if !int_in(
                        *v,
                        off_lo,
                        off_hi.max(if arch.wheel() == Wheel::Rdna4 {
                            0
                        } else {
                            (1 << 21) - 1
                        }),
                    ) {
                        return Err(e.err(a.col, "offset out of range"));
                    }
                    imm_offset = Some(*v);
                }
                _ => soffset_reg = Some(encode_sreg(e, a, 1)?),
            }
        }
    }
    if let Some(a) = args.get(i) {
        return Err(e.err(a.col, "invalid operand for instruction"));
    }
    for m in &stmt.mods {
        match (arch.wheel(), m.name.as_str()) {
            (_, "offset") if soffset_reg.is_some() && !prefetch => {
                offset_mod = Some(mod_int(e, m, off_lo, off_hi)?)
            }
            (Wheel::Rdna3 | Wheel::Cdna, "glc") if m.value.is_none() => e.set("glc", 1),
            (Wheel::Rdna3, "dlc") if m.value.is_none() => e.set("dlc", 1),
            (Wheel::Rdna4 | Wheel::Cdna, "nv") if m.value.is_none() => e.set("nv", 1),
            (Wheel::Rdna4, "scale_offset") if m.value.is_none() && e.has_field("scale_offset") => {
                e.set("scale_offset", 1);
            }
            (Wheel::Rdna4, "th") => {
                let v = match &m.value {
                    Some(Expr::Ident(n)) if n.eq_ignore_ascii_case("TH_LOAD_BYPASS") => {
                        th_bypass = Some(true);
                        3
                    }
                    Some(x) => named_int(
                        e,
                        m.col,
                        x,
                        &["TH_LOAD_RT", "TH_LOAD_NT", "TH_LOAD_HT", "TH_LOAD_LU"],
                    )?,
                    None => return Err(e.err(m.col, "expected a value")),
                };
                if v > 3 {
                    return Err(e.err(m.col, "invalid th value"));
                }
                if v == 3 && th_bypass.is_none() {
                    th_bypass = Some(false);
                }
                e.set("th", v);
            }
            (Wheel::Rdna4, "scope") => {
                let v = match &m.value {
                    Some(x) => named_int(
                        e,
                        m.col,
                        x,
                        &["SCOPE_CU", "SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS"],
                    )?,
                    None => return Err(e.err(m.col, "expected a value")),
                };
                if v > 3 {
                    return Err(e.err(m.col, "invalid scope value"));
                }
                scope_sys = v == 3;
                e.set("scope", v);
            }
            _ => return Err(e.err(m.col, "invalid modifier for instruction")),
        }
    }
    // th 3 is TH_LOAD_BYPASS with SCOPE_SYS and TH_LOAD_LU with any other scope.
    if th_bypass.is_some_and(|b| b != scope_sys) {
        return Err(e.err(stmt.col, "scope and th combination is not valid"));
    }
    let mask = |v: i64, w: u32| (v as u64) & ((1u64 << w) - 1);
    match arch.wheel() {
        Wheel::Rdna3 | Wheel::Rdna4 => {
            let w = if arch.wheel() == Wheel::Rdna3 { 21 } else { 24 };
            if let Some(v) = imm_offset {
                e.set(off_field, mask(v, w));
                if !prefetch {
                    e.set("soffset", u64::from(null.unwrap_or(124)));
                }
            }
            if let Some(r) = soffset_reg {
                e.set("soffset", u64::from(r));
                if !prefetch {
                    e.set(off_field, mask(offset_mod.unwrap_or(0), w));
                }
            }
        }
        Wheel::Cdna => {
            if let Some(v) = imm_offset {
                e.set("imm", 1);
                e.set("offset", mask(v, 21));
            }
            if let Some(r) = soffset_reg {
                match offset_mod {
                    Some(off) => {
                        e.set("imm", 1);
                        e.set("soffset_en", 1);
                        e.set("soffset", u64::from(r));
                        e.set("offset", mask(off, 21));
                    }
                    None => e.set("offset", u64::from(r)),
                }
            }
        }
    }
    Ok(())
}

/// Encodes one instruction as `info`.
fn encode_as(
    tables: &Tables,
    info: &InstInfo,
    stmt: &Statement,
    line: usize,
    ext: Option<Ext>,
) -> Result<Encoded, AsmError> {
    let fmt = match ext {
        Some(x) => super::dpp::ext_format(tables, &info.family, x),
        None => tables.format(&info.family),
    };
    let Some(fmt) = fmt else {
        return Err(AsmError {
            line,
            col: stmt.col,
            message: match ext {
                Some(_) => "dpp/sdwa variant of this instruction is not supported".into(),
                None => format!("format {} is not supported", info.family),
            },
        });
    };
    let mut e = Enc::new(tables, fmt, line);
    e.set("op", u64::from(info.opcode));
    let hex = tables.hex_imm.contains(&info.mnemonic);
    if let Some(slots) = layout::scalar_layout(info, hex) {
        encode_scalar(&mut e, info, stmt, &slots)?;
    } else if info.family == "SMEM" {
        encode_smem(&mut e, info, stmt)?;
    } else if is_vop(&info.family) && super::mfma::applies(tables.arch, info) {
        // A matrix instruction is a VOP3P word with its own operand files.
        super::vop::check_form(&e, info, stmt)?;
        if super::dpp::ext_of_format(e.format_name()).is_some() {
            return Err(e.err(
                stmt.col,
                "dpp/sdwa variant of this instruction is not supported",
            ));
        }
        super::mfma::encode(&mut e, info, stmt)?;
    } else if is_vop(&info.family) {
        super::vop::encode(&mut e, info, stmt)?;
    } else if info.family == "VOP3PX2" {
        super::mfma::encode(&mut e, info, stmt)?;
    } else if let Some(result) = super::mem::encode(&mut e, info, stmt) {
        result?;
    } else if let Some(result) = super::mem::encode_buffer(&mut e, info, stmt) {
        result?;
    } else if let Some(result) = super::ldsdir::encode(&mut e, info, stmt) {
        result?;
    } else {
        return Err(e.err(
            stmt.col,
            format!(
                "{} instructions are not supported by the assembler yet",
                info.family
            ),
        ));
    }
    let mut bytes = e.bits.to_le_bytes()[..fmt.size].to_vec();
    if e.literal.is_some() || e.literal64.is_some() {
        e.push_literal(&mut bytes);
    } else {
        let n = literal_bytes(tables, info, fmt, e.bits);
        bytes.extend(std::iter::repeat_n(0u8, n));
    }
    Ok((bytes, e.label))
}

/// Encodes one statement, trying every instruction its mnemonic names.
fn encode_stmt(tables: &Tables, stmt: &Statement, line: usize) -> Result<Encoded, AsmError> {
    if let Some(y) = &stmt.pair {
        // gfx1250 takes a pair VOPD cannot hold as VOPD3 (llvm-mc-22 does the same); when
        // neither holds it, the error of the form that got further is reported.
        return match super::vopd::encode(tables, stmt, y, line) {
            Ok(bytes) => Ok((bytes, None)),
            Err(e) if tables.arch == Arch::Cdna5 => {
                match super::vopd3::encode(tables, stmt, y, line) {
                    Ok(bytes) => Ok((bytes, None)),
                    Err(e3) if e3.col > e.col => Err(e3),
                    Err(_) => Err(e),
                }
            }
            Err(e) => Err(e),
        };
    }
    // `_dpp`/`_e64_dpp`/`_sdwa` select an extension form; RDNA's VOPC DPP forms have no
    // suffix and are recognised by their DPP modifiers.
    let m = stmt.mnemonic.as_str();
    let (name, ext) = if tables.by_mnemonic.contains_key(m) {
        (m, super::dpp::wants_dpp(&stmt.mods))
    } else if let Some(base) = m.strip_suffix("_dpp") {
        let kind = super::dpp::wants_dpp(&stmt.mods).unwrap_or(Ext::Dpp16);
        (base, Some(kind))
    } else if let Some(base) = m.strip_suffix("_sdwa") {
        (base, Some(Ext::Sdwa))
    } else {
        (m, super::dpp::wants_dpp(&stmt.mods))
    };
    if ext.is_some() && name != m {
        let mut plain = stmt.clone();
        plain.mnemonic = name.to_string();
        // VOP3P has no `_e32` twin, so its mnemonics carry no `_e64` (`v_dot2_f32_f16_e64_dpp`).
        if !tables.by_mnemonic.contains_key(name) {
            if let Some(bare) = name.strip_suffix("_e64") {
                plain.mnemonic = bare.to_string();
            }
        }
        return encode_cands(tables, &plain, line, ext);
    }
    encode_cands(tables, stmt, line, ext)
}

fn encode_cands(
    tables: &Tables,
    stmt: &Statement,
    line: usize,
    ext: Option<Ext>,
) -> Result<Encoded, AsmError> {
    let Some(cands) = tables.by_mnemonic.get(&stmt.mnemonic) else {
        return Err(AsmError {
            line,
            col: stmt.col,
            message: format!("unknown instruction `{}`", stmt.mnemonic),
        });
    };
    let mut first_err = None;
    // The 32-bit VALU forms first: LLVM picks `_e32` whenever the operands allow it.
    let mut cands = cands.clone();
    cands.sort_by_key(|&i| !matches!(tables.insts[i].family.as_str(), "VOP1" | "VOP2" | "VOPC"));
    for &idx in &cands {
        if ext.is_some() && !is_vop(&tables.insts[idx].family) {
            continue;
        }
        match encode_as(tables, &tables.insts[idx], stmt, line, ext) {
            Ok(v) => return Ok(v),
            Err(err) => {
                first_err.get_or_insert(err);
            }
        }
    }
    Err(first_err.unwrap_or(AsmError {
        line,
        col: stmt.col,
        message: "invalid instruction".into(),
    }))
}

pub(crate) fn assemble(tables: &Tables, text: &str) -> Result<Vec<Assembled>, AsmError> {
    let mut out: Vec<Assembled> = Vec::new();
    let mut labels: HashMap<String, usize> = HashMap::new();
    let mut fixups: Vec<Fixup> = Vec::new();
    let mut offset = 0usize;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let parsed = syntax::parse_line(raw, line_no)?;
        for (name, col) in parsed.labels {
            if labels.insert(name.clone(), offset).is_some() {
                return Err(AsmError {
                    line: line_no,
                    col,
                    message: format!("label `{name}` is defined twice"),
                });
            }
        }
        let Some(stmt) = parsed.stmt else { continue };
        if stmt.mnemonic.starts_with('.') {
            continue;
        }
        let (bytes, label) = encode_stmt(tables, &stmt, line_no)?;
        if let Some((label, col)) = label {
            fixups.push(Fixup {
                index: out.len(),
                label,
                line: line_no,
                col,
                field_lo: 0,
            });
        }
        let len = bytes.len();
        out.push(Assembled {
            line: line_no,
            offset,
            bytes,
        });
        offset += len;
    }
    for fix in fixups {
        let Some(&target) = labels.get(&fix.label) else {
            return Err(AsmError {
                line: fix.line,
                col: fix.col,
                message: format!("undefined label `{}`", fix.label),
            });
        };
        let inst = &mut out[fix.index];
        let delta = (target as i64 - (inst.offset as i64 + 4)) / 4;
        if !int_in(delta, -32768, 32767) {
            return Err(AsmError {
                line: fix.line,
                col: fix.col,
                message: "branch target is out of range".into(),
            });
        }
        let v = (delta as u16).to_le_bytes();
        let at = (fix.field_lo / 8) as usize;
        inst.bytes[at] = v[0];
        inst.bytes[at + 1] = v[1];
    }
    Ok(out)
}
