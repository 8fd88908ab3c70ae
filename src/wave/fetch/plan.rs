//! The binding plan of a fast-path instruction, resolved once per decoded instruction:
//! where each function register comes from (`Bind`) and how each written one goes back
//! (`Out`), so a step does no name lookups.

use crate::interp::RegValue;

use super::mods::apply_mods;
use super::operands::{
    bind_named, bind_source, read_vgpr_lanes, reg_value, source, wave, wave_default,
};
use super::{uni, Entry, Inst, Src};
use crate::wave::decode::{dest, src_mods, Dest, Facts, Mods};
pub(super) use crate::wave::decode::{write_back_info, WriteBackInfo};
use crate::wave::state::{code, dword_code, WaveState};
use crate::wave::Decoded;

/// How one function register is filled, resolved once per decoded instruction.
#[derive(Clone, Debug)]
pub(super) enum Bind {
    /// A VGPR source without DPP: read `width` bits per lane from `reg` (upper half when
    /// `hi`), apply `mods`, then narrow to `narrow` bits if set.
    Vgpr {
        reg: u32,
        hi: bool,
        width: u32,
        mods: Mods,
        narrow: Option<u32>,
    },
    /// A value fixed by the encoding (an encoding field, PC, ...).
    Const(RegValue),
    /// SGPRs from `code` (no modifiers), read at each step.
    Sgpr { code: u32, width: u32 },
    /// `SCC`.
    Scc,
    /// The EXEC pair.
    Exec,
    /// Anything else: resolved by name at each step.
    ByName,
    /// Never read, and assigned in full before the function ends: no input value needed.
    Unread,
}

/// The per-decoded-instruction binding plan of the fast path: where each function register
/// comes from and the facts write-back needs, so a step does no name lookups for them.
pub(in crate::wave) struct Plan {
    /// The instruction's address and name (the cache is checked against them).
    pub(in crate::wave) addr: u64,
    pub(in crate::wave) name: String,
    /// The instruction's index in its program, when the executor's cache holds the plan (its
    /// slot buffer then keeps constant operands between runs).
    pub(in crate::wave) index: Option<usize>,
    /// The MODE the plan was made for (modifiers and write-back depend on it).
    pub(in crate::wave) mode: u32,
    pub(super) dst: Dest,
    pub(super) binds: Vec<Bind>,
    pub(super) wb: WriteBackInfo,
    /// The registers the instruction writes, in function order, with how each is written.
    pub(super) outputs: Vec<(usize, Out)>,
}

/// The registers a function body assigns whole in a top-level statement before any
/// statement that may `return` (so on every path that completes).
pub(super) fn assigned_in_full(body: &[crate::ir::Stmt]) -> Vec<usize> {
    use crate::ir::{Place, Stmt};
    fn may_return(st: &Stmt) -> bool {
        match st {
            Stmt::Return { .. } => true,
            Stmt::If {
                then, otherwise, ..
            } => then.iter().chain(otherwise).any(may_return),
            Stmt::For { body, .. } | Stmt::While { body, .. } => body.iter().any(may_return),
            _ => false,
        }
    }
    let mut out = Vec::new();
    for st in body {
        if may_return(st) {
            break;
        }
        match st {
            Stmt::Assign {
                place: Place::Reg(id),
                ..
            } => out.push(id.0 as usize),
            Stmt::AssignConcat { places, .. } => {
                for (p, _) in places {
                    if let Place::Reg(id) = p {
                        out.push(id.0 as usize);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// How one written register reaches the wave, resolved once per decoded instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Out {
    /// A plain per-lane 32/64-bit D0 into VGPR `reg` (active lanes only); `ftz`: an f32
    /// result with denormals flushed.
    VgprD0 { reg: u32, width: u32, ftz: bool },
    /// A 32/64-bit D0 into the scalar registers from `code`.
    SgprD0 { code: u32, width: u32 },
    /// SCC (bit 0).
    Scc,
    /// The program counter (a branch).
    Pc,
    /// Everything else: through `write_back`.
    General,
}

/// Resolves how each written register of an instruction is written back.
pub(super) fn outputs(ii: &Inst<'_>, dst: Dest, wb: WriteBackInfo) -> Vec<(usize, Out)> {
    let p = &ii.e.prepared;
    let f = &p.function;
    f.regs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.written && r.role != crate::ir::RegRole::Lane)
        .map(|(i, r)| {
            let plain_width = matches!(r.width, 32 | 64);
            let out = match (r.name.as_str(), dst) {
                ("D0", Dest::Vgpr { reg, hi: false })
                    if p.vector
                        && !p.wave_level
                        && p.per_lane[i]
                        && plain_width
                        && !wb.clamp
                        && wb.omod == 0
                        && !(wb.vdst_bits >= 32 && wb.vdst_bits < r.width)
                        && (!wb.ftz || (wb.d_fbits == 32 && r.width == 32))
                        && !crate::wave::sdwa::is_sdwa(ii.d.ext) =>
                {
                    Out::VgprD0 {
                        reg,
                        width: r.width,
                        ftz: wb.ftz,
                    }
                }
                ("D0", Dest::Sgpr(code)) if plain_width && !p.per_lane[i] && !wb.ftz => {
                    Out::SgprD0 {
                        code,
                        width: r.width,
                    }
                }
                ("SCC", _) if !p.per_lane[i] => Out::Scc,
                ("PC", _) if !p.per_lane[i] => Out::Pc,
                _ => Out::General,
            };
            (i, out)
        })
        .collect()
}

/// Whether an instruction runs on the bound fast path (no register-file addressing, no
/// memory, no dual issue).
pub(in crate::wave) fn fast_path(e: &Entry, d: &Decoded) -> bool {
    !e.vgpr_space
        && !e.sgpr_space
        && !e.hwreg_space
        && d.inst.family != "VOPD"
        && !crate::wave::memory::is_memory(&d.facts)
}

/// Resolves the binding plan of a decoded instruction (fast-path entries only).
pub(in crate::wave) fn plan(e: &Entry, d: &Decoded, w: &WaveState) -> Plan {
    let ii = Inst {
        d,
        e,
        family: d.inst.family.as_str(),
        arch: w.arch,
        mode: w.mode,
        src_exec: w.exec(),
    };
    let f = &e.prepared.function;
    let d0_width = f
        .reg("D0")
        .map(|r| f.regs[r.0 as usize].width)
        .unwrap_or(32);
    let dst = dest(&ii, d0_width);
    let assigned = assigned_in_full(&f.body);
    let binds = f
        .regs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if !r.read && assigned.contains(&i) {
                return Bind::Unread;
            }
            let width = r.width;
            let uni_field = |v: u64| Bind::Const(uni(width, v));
            match super::inst_field_name(&r.name) {
                "S0" | "S1" | "S2" => {
                    let k = (r.name.as_bytes()[1] - b'0') as usize;
                    let Some(field) = ii.src_field(k).filter(|f| ii.has_field(f)) else {
                        return Bind::ByName;
                    };
                    if field == "src0" && d.ext.is_some() || crate::wave::sdwa::is_sdwa(d.ext) {
                        return Bind::ByName;
                    }
                    let mods = src_mods(&ii, k, field, width);
                    let (narrow, read_width) = if mods.opsel_hi && width < 32 {
                        (Some(width), 32)
                    } else {
                        (None, width)
                    };
                    // `source` reads no wave state for a VGPR operand.
                    match source(&mut wave(w, &ii), &ii, field, read_width) {
                        Src::Vgpr { reg, hi } => Bind::Vgpr {
                            reg,
                            hi,
                            width: read_width,
                            mods,
                            narrow,
                        },
                        Src::Uniform(_) => {
                            let raw = ii.field(field);
                            let plain =
                                mods.packed.is_none() && !mods.opsel_hi && !mods.abs && !mods.neg;
                            match raw {
                                // Scalar registers (codes below 128): read at each step.
                                c if c < 128 && plain && width <= 64 => {
                                    Bind::Sgpr { code: c, width }
                                }
                                // Inline constants and the literal are fixed by the encoding.
                                128..=208 | 240..=248 | 255 => {
                                    match reg_value(bind_source(
                                        &mut wave(w, &ii),
                                        &ii,
                                        k,
                                        field,
                                        width,
                                    )) {
                                        v @ RegValue::Uniform(_) => Bind::Const(v),
                                        RegValue::Lanes(_) => Bind::ByName,
                                    }
                                }
                                _ => Bind::ByName,
                            }
                        }
                    }
                }
                // The destination's current value (for entries that write part of it).
                "D0" => match dst {
                    Dest::Vgpr { reg, hi } => Bind::Vgpr {
                        reg,
                        hi,
                        width,
                        mods: Mods::default(),
                        narrow: None,
                    },
                    Dest::Sgpr(code) if code < 128 && width <= 64 => Bind::Sgpr { code, width },
                    _ => Bind::ByName,
                },
                "SCC" => Bind::Scc,
                "EXEC" => Bind::Exec,
                "PC" => uni_field(d.addr),
                "SIMM16" => uni_field(ii.field("simm16") as u64),
                "SIMM32" => uni_field(d.inst.literal.unwrap_or(0)),
                "OPSEL" => uni_field(ii.field("opsel") as u64),
                "NEG" => uni_field(ii.field("neg") as u64),
                "NEG_HI" => uni_field(ii.field("neg_hi") as u64),
                "ABS" => uni_field(ii.field("abs") as u64),
                "OMOD" => uni_field(ii.field("omod") as u64),
                "CLAMP" => uni_field(ii.field("clmp") as u64),
                _ => Bind::ByName,
            }
        })
        .collect();
    let wb = write_back_info(&ii);
    Plan {
        addr: d.addr,
        name: d.inst.name.clone(),
        index: None,
        mode: w.mode,
        dst,
        binds,
        wb,
        outputs: outputs(&ii, dst, wb),
    }
}

/// The value a plan's binding gives function register `r`, before it is fitted to the
/// register's lanes: the fast paths' operand read (the tree walk's and the prepared form's).
pub(super) fn bind_value(
    w: &WaveState,
    ii: &Inst<'_>,
    dst: crate::wave::decode::Dest,
    r: &crate::ir::RegInfo,
    bind: &Bind,
) -> RegValue {
    let lanes = w.wave_size;
    match bind {
        Bind::Vgpr {
            reg,
            hi,
            width,
            mods,
            narrow,
        } => RegValue::Lanes(
            (0..lanes)
                .map(|lane| {
                    let v = apply_mods(read_vgpr_lanes(w, *reg, *hi, *width, lane), mods);
                    match narrow {
                        Some(n) => v.zext(*n),
                        None => v,
                    }
                })
                .collect(),
        ),
        Bind::Const(v) => v.clone(),
        Bind::Sgpr { code, width } => {
            let mut x = w.read_sgpr(*code) as u64;
            if *width > 32 {
                x |= (w.read_sgpr(dword_code(w.arch, *code, 1)) as u64) << 32;
            }
            uni(*width, x & crate::value::mask64(*width))
        }
        Bind::Scc => uni(r.width, w.scc as u64),
        Bind::Exec => uni(r.width, w.sgpr_pair(code::EXEC_LO)),
        Bind::ByName => bind_named(w, ii, dst, &r.name, r.width, None)
            .unwrap_or_else(|| RegValue::Uniform(wave_default(w, &r.name, r.width))),
        Bind::Unread => uni(r.width, 0),
    }
}
