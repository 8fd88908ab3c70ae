//! Operand fetch and write-back: the part of each instruction the pseudocode leaves to the
//! encoding.
//!
//! Sources come from their encoding fields: scalar codes (SGPRs, VCC, EXEC, M0, `null`,
//! inline integer and float constants, the literal, `src_scc`/`vccz`/`execz`), or VGPRs read
//! per lane. 64-bit operands read register pairs. VOP3 applies `op_sel` (16-bit halves),
//! `abs` and `neg` to float sources; VOP3P builds each packed source from the halves its
//! `op_sel`/`op_sel_hi` pick and negates them by `neg`/`neg_hi`. On RDNA the 16-bit VOP1,
//! VOP2 and VOPC encodings address halves with bit 7 of the VGPR number (`v1.h` is 129).
//! DPP16 and DPP8 read `src0` from another lane of the same register.

use crate::exec::Machine;
use crate::interp::RegValue;
use crate::spec::{Arch, Operand};
use crate::value::Bits;

use super::state::{code, m0_code, WaveState};

pub(super) mod block;
mod clamp;
mod dest;
mod mods;
mod slots;

use super::{Decoded, Entry, Executor, WaveError};
use clamp::int_clamp;
pub(super) use clamp::int_clamp_covers;
use dest::{dest, Dest};
use mods::flush_f32;
use mods::{apply_mods, clamp_float, denorm_flush, flush_denormal, omod_float, Mods};

/// Where a source operand's value comes from.
#[derive(Clone, Debug)]
enum Src {
    /// One value for the wave.
    Uniform(Bits),
    /// A VGPR (first register), read per lane; `hi` reads the upper 16-bit half.
    Vgpr { reg: u32, hi: bool },
}

/// Whether an instruction is float arithmetic whose inputs and results MODE's denormal
/// control flushes: not class tests (they report denormals) and not VOP3P (packed and mixed
/// sources are not one float of the operand's width).
fn flushes_denormals(ii: &Inst<'_>) -> bool {
    ii.family != "VOP3P" && !ii.d.inst.name.contains("CLASS")
}

fn float_bits(format: &str) -> u32 {
    if format.contains("F16") || format.contains("BF16") {
        16
    } else if format.contains("F64") {
        64
    } else if format.contains("_F") {
        32
    } else {
        0
    }
}

fn is_mask_format(format: &str) -> bool {
    format.contains("_M64") || format.contains("_M32")
}

fn words_bits(width: u32, words32: &[u32]) -> Bits {
    let w64: Vec<u64> = words32
        .chunks(2)
        .map(|c| c[0] as u64 | (c.get(1).copied().unwrap_or(0) as u64) << 32)
        .collect();
    Bits::from_words(width, &w64)
}

fn uni(width: u32, v: u64) -> RegValue {
    RegValue::Uniform(Bits::from_u64(width, v))
}

/// Fixed facts about one decoded instruction.
struct Inst<'a> {
    d: &'a Decoded,
    e: &'a Entry,
    family: &'a str,
    arch: Arch,
    /// The wave's MODE register.
    mode: u32,
    /// EXEC at issue, for DPP16 source validity (EXEC itself may have the lanes a DPP16
    /// instruction does not write masked out).
    src_exec: u64,
}

impl Inst<'_> {
    fn field(&self, name: &str) -> u32 {
        self.d.inst.field(name).unwrap_or(0) as u32
    }

    fn has_field(&self, name: &str) -> bool {
        self.d.inst.field(name).is_some()
    }

    /// The operand table's entry of an encoding field. The VOP3 forms of VOP1 entries list
    /// their `src0` as `vsrc0` (AMD's XML), though the field takes any source.
    fn operand(&self, field: &str) -> Option<&Operand> {
        let ops = &self.e.inst.operands;
        ops.iter().find(|o| o.field == field).or_else(|| {
            let alt = match field {
                "src0" => "vsrc0",
                "src1" => "vsrc1",
                "src2" => "vsrc2",
                _ => return None,
            };
            ops.iter().find(|o| o.field == alt)
        })
    }

    fn is_vop3(&self) -> bool {
        matches!(self.family, "VOP3" | "VOP3SD" | "VOP3P")
    }

    /// The encoding field of pseudocode source `k` (0, 1, 2).
    fn src_field(&self, k: usize) -> Option<&'static str> {
        let f: &[&'static str] = match self.family {
            "SOP1" => &["ssrc0"],
            "SOP2" | "SOPC" => &["ssrc0", "ssrc1"],
            "VOP1" => &["src0"],
            "VOP2" | "VOPC" => &["src0", "vsrc1"],
            "VOP3" | "VOP3SD" | "VOP3P" | "VINTERP" => &["src0", "src1", "src2"],
            _ => &[],
        };
        f.get(k).copied()
    }

    /// Whether 16-bit VGPR operands of this encoding address halves with bit 7 (RDNA true16
    /// VOP1/VOP2/VOPC).
    fn half_by_bit7(&self, bits: u32) -> bool {
        bits == 16 && self.arch != Arch::Cdna && matches!(self.family, "VOP1" | "VOP2" | "VOPC")
    }
}

fn scalar_src(w: &WaveState, ii: &Inst<'_>, src_code: u32, width: u32, format: &str) -> Bits {
    let fbits = float_bits(format);
    let v: u64 = match src_code {
        128..=192 => (src_code - 128) as u64,
        193..=208 => (-((src_code - 192) as i64)) as u64,
        240..=248 => {
            let (_, _, _, f32b, f64b, f16b) =
                crate::isa::operands::INLINE_FLOATS[(src_code - 240) as usize];
            // CDNA's packed f32 operands (64 bits, two f32 halves) take the f32 constant,
            // zero-extended: LLVM selects it for the high half too with op_sel_hi 0.
            if width >= 64 && !format.contains("PK2") {
                f64b
            } else if fbits == 16 || (width == 16 && fbits == 0) {
                f16b as u64
            } else {
                f32b as u64
            }
        }
        // src_shared_base/limit, src_private_base/limit: a 64-bit read gives the aperture's
        // address, a 32-bit read its high half.
        235..=238 => {
            use super::state::{PRIVATE_APERTURE, SHARED_APERTURE};
            let base = if src_code < 237 {
                SHARED_APERTURE
            } else {
                PRIVATE_APERTURE
            };
            let v = if src_code.is_multiple_of(2) {
                base | 0xffff_ffff
            } else {
                base
            };
            if width >= 64 {
                v
            } else {
                v >> 32
            }
        }
        251 => (w.vcc() & w.full_mask() == 0) as u64,
        252 => (w.exec() == 0) as u64,
        253 => w.scc as u64,
        255 => {
            let lit = ii.d.inst.literal.unwrap_or(0) as u64;
            if width >= 64 && fbits == 64 {
                lit << 32
            } else if width >= 64 && format.contains("I64") {
                lit as u32 as i32 as i64 as u64
            } else {
                lit
            }
        }
        c if c < 128 => {
            let n = width.div_ceil(32).max(1);
            let words: Vec<u32> = (0..n).map(|i| w.read_sgpr(c + i)).collect();
            return words_bits(width, &words);
        }
        _ => 0,
    };
    // Inline integers are sign-extended to the operand's width.
    let v = if (193..=208).contains(&src_code) || width > 64 {
        v
    } else {
        v & crate::value::mask64(width)
    };
    Bits::from_u64(width, v)
}

/// The value of a source field (a 9-bit source code, or an 8-bit VGPR field).
fn source(w: &WaveState, ii: &Inst<'_>, field: &str, width: u32) -> Src {
    let raw = ii.field(field);
    let op = ii.operand(field);
    let format = op.map(|o| o.format.as_str()).unwrap_or("");
    let bits = op.map(|o| o.bits).unwrap_or(width);
    let vgpr_field = field.starts_with('v') && field != "vdst";
    let src_code = if vgpr_field { raw + 256 } else { raw };
    // A DPP/SDWA source reads `vsrc0` of the extension dword (SDWA: an SGPR with `s0`).
    if field == "src0" {
        if let Some((kind, ext)) = ii.d.ext {
            if kind == super::sdwa::SDWA && super::sdwa::source_is_sgpr(ext, 0) {
                return Src::Uniform(scalar_src(w, ii, ext & 0xff, width, format));
            }
            return Src::Vgpr {
                reg: ext & 0xff,
                hi: false,
            };
        }
    }
    if field == "vsrc1" && super::sdwa::is_sdwa(ii.d.ext) {
        let ext = ii.d.ext.map(|e| e.1).unwrap_or(0);
        if super::sdwa::source_is_sgpr(ext, 1) {
            return Src::Uniform(scalar_src(w, ii, raw, width, format));
        }
    }
    if src_code >= 256 {
        let mut reg = src_code - 256;
        let mut hi = false;
        if ii.half_by_bit7(bits) && reg >= 128 {
            reg -= 128;
            hi = true;
        }
        return Src::Vgpr { reg, hi };
    }
    Src::Uniform(scalar_src(w, ii, src_code, width, format))
}

fn read_vgpr_lanes(w: &WaveState, reg: u32, hi: bool, width: u32, lane: u32) -> Bits {
    if width <= 64 {
        let mut x = w.vgpr(lane, reg) as u64;
        if width > 32 {
            x |= (w.vgpr(lane, reg + 1) as u64) << 32;
        }
        if hi {
            x >>= 16;
        }
        return Bits::from_u64(width, x & crate::value::mask64(width));
    }
    let n = width.div_ceil(32).max(1);
    let words: Vec<u32> = (0..n).map(|i| w.vgpr(lane, reg + i)).collect();
    let mut v = words_bits(width.max(32 * n), &words);
    if hi {
        v = v.lshr(16);
    }
    v.zext(width)
}

fn src_mods(ii: &Inst<'_>, k: usize, field: &str, width: u32) -> Mods {
    // The spec lists some VOP3 sources under their VGPR-only name (`vsrc0` for the `src0`
    // field of VOP1-derived and RDNA 4 entries); its format decides whether ABS/NEG apply.
    let operand = ii
        .operand(field)
        .or_else(|| ii.operand(&format!("v{field}")));
    let format = operand.map(|o| o.format.as_str()).unwrap_or("");
    let bits = operand.map(|o| o.bits).unwrap_or(32);
    let mut m = Mods {
        // V_CNDMASK_B32/B16 in VOP3 form take ABS/NEG as sign-bit operations on their
        // untyped sources (the compiler selects fabs/fneg of a select into them).
        float_bits: match ii.d.inst.name.as_str() {
            n if n.starts_with("V_CNDMASK_B32") => 32,
            n if n.starts_with("V_CNDMASK_B16") => 16,
            _ => float_bits(format),
        },
        ..Mods::default()
    };
    // Only float arithmetic flushes: V_CNDMASK's sign-bit modifiers do not make its
    // untyped sources floats.
    m.ftz =
        flushes_denormals(ii) && float_bits(format) != 0 && denorm_flush(ii.mode, m.float_bits).0;
    let reads = |n: &str| reads_field(&ii.e.prepared.function, n);
    match ii.family {
        "VOP3" | "VOP3SD" => {
            if !reads("OPSEL") && (bits == 16 || width == 16) {
                m.opsel_hi = ii.field("opsel") >> k & 1 == 1;
            }
            if !reads("ABS") {
                m.abs = ii.field("abs") >> k & 1 == 1;
            }
            if !reads("NEG") {
                m.neg = ii.field("neg") >> k & 1 == 1;
            }
        }
        "VOP3P" => {
            if !reads("OPSEL") && !reads("OPSEL_HI") {
                let opsel_hi = ii.d.inst.field("opsel_hi").unwrap_or(3) as u32
                    | (ii.d.inst.field("opsel_hi2").unwrap_or(1) as u32) << 2;
                let lo = ii.field("opsel") >> k & 1 == 1;
                let hi = opsel_hi >> k & 1 == 1;
                let packed = format.contains("PK2");
                if packed {
                    m.packed = Some((
                        lo,
                        hi,
                        ii.field("neg") >> k & 1 == 1,
                        ii.field("neg_hi") >> k & 1 == 1,
                    ));
                    m.float_bits = float_bits(format);
                } else if !reads("NEG") {
                    m.neg = ii.field("neg") >> k & 1 == 1;
                    m.abs = ii.field("neg_hi") >> k & 1 == 1;
                }
            }
        }
        _ => {
            if let Some((kind, w)) = ii.d.ext {
                if k <= 1 && (kind == 250) {
                    m.neg = w >> (20 + 2 * k) & 1 == 1;
                    m.abs = w >> (21 + 2 * k) & 1 == 1;
                }
                if k <= 1 && kind == super::sdwa::SDWA && m.float_bits > 0 {
                    m.neg = w >> (20 + 8 * k) & 1 == 1;
                    m.abs = w >> (21 + 8 * k) & 1 == 1;
                }
            }
        }
    }
    m
}

/// The per-lane value of a source with its modifiers.
fn bind_source(w: &WaveState, ii: &Inst<'_>, k: usize, field: &str, width: u32) -> RegValue {
    let mods = src_mods(ii, k, field, width);
    // A high-half select reads the whole register, then narrows; so does an SDWA select of
    // a 16-bit operand (`v_sub_u16_sdwa ... src0_sel:WORD_1` reads the high word).
    let sdwa_source = k <= 1 && super::sdwa::is_sdwa(ii.d.ext);
    let (narrow, width) = if (mods.opsel_hi || sdwa_source) && width < 32 {
        (Some(width), 32)
    } else {
        (None, width)
    };
    let fit = |b: Bits| match narrow {
        Some(n) => b.zext(n),
        None => b,
    };
    let src = source(w, ii, field, width);
    // SDWA selects a byte or word of a 32-bit source before its modifiers.
    let sdwa = match ii.d.ext {
        Some((super::sdwa::SDWA, ext)) if k <= 1 && width == 32 => Some(ext),
        _ => None,
    };
    // The select comes first and narrows to the operand before the modifiers (which read
    // the operand's own width); a high-half select is one of the modifiers.
    let value = |b: Bits| match sdwa {
        Some(ext) => {
            let x = super::sdwa::select_source(ext, k, b.low_u64() as u32) as u64;
            apply_mods(fit(Bits::from_u64(32, x)), &mods)
        }
        None => fit(apply_mods(b, &mods)),
    };
    match src {
        Src::Uniform(b) => RegValue::Uniform(value(b)),
        Src::Vgpr { reg, hi } => {
            let dpp = match ii.d.ext {
                Some(ext) if field == "src0" && ext.0 != super::sdwa::SDWA => Some(ext),
                _ => None,
            };
            let bc = dpp.is_some_and(super::dpp::bound_ctrl);
            RegValue::Lanes(
                (0..w.wave_size)
                    .map(|lane| {
                        let v = match dpp {
                            Some(ext) => {
                                match super::dpp::source_lane(ext, lane, w.wave_size, ii.src_exec) {
                                    Some(l) => read_vgpr_lanes(w, reg, hi, width, l),
                                    None if bc => Bits::zero(width),
                                    // Without bound_ctrl the lane is not written (`dpp::write_mask`).
                                    None => read_vgpr_lanes(w, reg, hi, width, lane),
                                }
                            }
                            None => read_vgpr_lanes(w, reg, hi, width, lane),
                        };
                        value(v)
                    })
                    .collect(),
            )
        }
    }
}

fn write_vgpr_value(w: &mut WaveState, lane: u32, reg: u32, hi: bool, v: &Bits, cdna: bool) {
    let width = v.width();
    if width == 32 || width == 64 {
        let x = v.low_u64();
        w.set_vgpr(lane, reg, x as u32);
        if width == 64 {
            w.set_vgpr(lane, reg + 1, (x >> 32) as u32);
        }
        return;
    }
    if width <= 16 {
        let x = v.low_u64() as u32 & 0xffff;
        let old = w.vgpr(lane, reg);
        let new = if hi {
            (old & 0xffff) | x << 16
        } else if cdna {
            x
        } else {
            (old & 0xffff_0000) | x
        };
        w.set_vgpr(lane, reg, new);
        return;
    }
    let n = width.div_ceil(32);
    for i in 0..n {
        let word = v.extract(i as u64 * 32, 32).low_u64() as u32;
        let bits = (width - i * 32).min(32);
        let mask = if bits >= 32 {
            u32::MAX
        } else {
            (1 << bits) - 1
        };
        let old = w.vgpr(lane, reg + i);
        w.set_vgpr(lane, reg + i, (old & !mask) | (word & mask));
    }
}

fn write_sgprs(w: &mut WaveState, code0: u32, v: &Bits) {
    let n = v.width().div_ceil(32);
    for i in 0..n {
        let word = v.extract(i as u64 * 32, 32).low_u64() as u32;
        let bits = (v.width() - i * 32).min(32);
        let mask = if bits >= 32 {
            u32::MAX
        } else {
            (1 << bits) - 1
        };
        let old = w.read_sgpr(code0 + i);
        w.write_sgpr(code0 + i, (old & !mask) | (word & mask));
    }
}

/// Writes a lane mask produced by a vector instruction: bits of lanes inactive at issue are
/// zero, and wave32 writes one register.
fn write_mask(w: &mut WaveState, code0: u32, v: u64, exec: u64, per_lane_run: bool) {
    let v = if per_lane_run { v & exec } else { v } & w.full_mask();
    w.write_sgpr(code0, v as u32);
    if w.wave_size == 64 {
        w.write_sgpr(code0 + 1, (v >> 32) as u32);
    }
}

fn first(v: &RegValue) -> Bits {
    match v {
        RegValue::Uniform(b) => b.clone(),
        RegValue::Lanes(l) => l.first().cloned().unwrap_or_else(|| Bits::zero(1)),
    }
}

/// An output register's value as an executor left it: bound registers (the interpreter) or
/// a kernel's slot buffer (the JIT).
pub(super) enum OutValue<'a> {
    /// A bound register.
    Reg(&'a RegValue),
    /// A register in a slot buffer: 16 bytes per value, one per lane when `per_lane`.
    Slot {
        slots: &'a [u8],
        off: usize,
        width: u32,
        per_lane: bool,
    },
}

impl OutValue<'_> {
    /// The value of `lane` (the one value of a uniform register).
    fn lane(&self, lane: u32) -> Bits {
        match self {
            OutValue::Reg(RegValue::Uniform(b)) => b.clone(),
            OutValue::Reg(RegValue::Lanes(l)) => l[lane as usize].clone(),
            OutValue::Slot {
                slots,
                off,
                width,
                per_lane,
            } => {
                let o = if *per_lane {
                    off + lane as usize * slots::SLOT
                } else {
                    *off
                };
                slots::read(slots, o, *width)
            }
        }
    }

    /// The uniform value, or lane 0's.
    fn first(&self) -> Bits {
        match self {
            OutValue::Reg(v) => first(v),
            OutValue::Slot { .. } => self.lane(0),
        }
    }
}

/// Executes one instruction: binds its operands, runs its pseudocode and writes the results
/// back. Returns the new PC when the instruction wrote one.
pub(super) fn execute(
    ex: &mut Executor,
    e: &Entry,
    d: &Decoded,
    w: &mut WaveState,
) -> Result<Option<u64>, WaveError> {
    let ii = Inst {
        d,
        e,
        family: d.inst.family.as_str(),
        arch: w.arch,
        mode: w.mode,
        src_exec: ex.dpp_source_exec.unwrap_or_else(|| w.exec()),
    };
    if ii.family == "VOPD" {
        return super::vopd::execute(ex, d, w);
    }
    if super::memory::is_memory(ii.family) {
        return super::memory::execute(ex, e, d, w);
    }
    let p = &e.prepared;
    let f = &p.function;
    let exec_at_issue = w.exec();
    let d0_width = f
        .reg("D0")
        .map(|r| f.regs[r.0 as usize].width)
        .unwrap_or(32);
    let dst = dest(&ii, d0_width);
    if fast_path(e, d) {
        let plan = plan(e, d, w);
        return execute_bound(ex, e, &plan, d, w);
    }
    let mut m = std::mem::replace(&mut ex.machine, Machine::new(w.wave_size));
    m.wave_size = w.wave_size;
    m.values.clear();
    m.vgpr.clear();
    m.sgpr.clear();
    m.hwreg.clear();
    for r in &f.regs {
        let v = bind_named(w, &ii, dst, &r.name, r.width, Some(&mut m.vgpr));
        if let Some(v) = v {
            m.values.insert(r.name.clone(), v);
        }
    }
    // The executors run the lanes whose EXEC bit is set.
    m.values
        .entry("EXEC".to_string())
        .or_insert_with(|| uni(64, w.sgpr_pair(code::EXEC_LO)));
    if e.sgpr_space {
        for c in 0..w.sgpr.len() as u32 {
            m.sgpr.insert(c, w.read_sgpr(c));
        }
    }
    let result = match &e.kernel {
        Some(k) => k.run(&mut m),
        None => crate::exec::run_interp(p, &mut m),
    };
    let outputs = match result {
        Ok(o) => o,
        Err(err) => {
            ex.machine = m;
            return Err(WaveError::Exec {
                addr: d.addr,
                inst: d.inst.name.clone(),
                message: err.to_string(),
            });
        }
    };
    // Wave-level entries wrote the register files themselves.
    if e.vgpr_space {
        for (&(lane, reg), &v) in &m.vgpr {
            if (reg as usize) < w.vgpr_rows() && lane < w.wave_size {
                w.set_vgpr(lane, reg, v);
            }
        }
    }
    if e.sgpr_space {
        for (&c, &v) in &m.sgpr {
            w.write_sgpr(c, v);
        }
    }
    let outs = outputs
        .values
        .iter()
        .map(|(n, v)| (n.as_str(), OutValue::Reg(v)));
    let new_pc = write_back(w, &ii, dst, exec_at_issue, outs, write_back_info(&ii));
    ex.machine = m;
    Ok(new_pc)
}

/// The modifier field a register of the text names: `INST.OMOD` (CDNA's V_BITOP3_* read
/// their truth table from the OMOD, ABS and NEG fields this way) is the field `OMOD`.
fn inst_field_name(name: &str) -> &str {
    name.strip_prefix("INST.").unwrap_or(name)
}

/// Whether the text of `f` reads the instruction field `name` (as `NAME` or `INST.NAME`);
/// such a field is data for the text, not a source or output modifier.
fn reads_field(f: &crate::ir::Function, name: &str) -> bool {
    f.reg(name).is_some() || f.reg(&format!("INST.{name}")).is_some()
}

/// The value the wave state gives function register `name`, or `None` for a register the
/// encoding does not supply (it then takes its default). `vgprs` receives the VGPRs that
/// operand numbers (`SRC0`, `VDST`, ...) address, for entries reading the register file.
fn bind_named(
    w: &WaveState,
    ii: &Inst<'_>,
    dst: Dest,
    name: &str,
    width: u32,
    vgprs: Option<&mut std::collections::HashMap<(u32, u32), u32>>,
) -> Option<RegValue> {
    let d = ii.d;
    match inst_field_name(name) {
        "S0" | "S1" | "S2" => {
            let k = (name.as_bytes()[1] - b'0') as usize;
            match ii.src_field(k) {
                Some(field) if ii.has_field(field) => Some(bind_source(w, ii, k, field, width)),
                // SOPK texts name the 16-bit immediate S1 when S0 is the SGPR `sdst` names
                // (CDNA's S_CMPK_*: `S0.i32 == signext(S1.i16)`), and S0 when the SGPR is
                // D0 (RDNA 4's and CDNA's S_MOVK/S_ADDK/S_MULK: `D0 + signext(S0.i16)`).
                _ if ii.family == "SOPK"
                    && (k == 1 || k == 0 && ii.e.prepared.function.reg("D0").is_some()) =>
                {
                    Some(uni(width, (ii.field("simm16") & 0xffff) as u64))
                }
                _ if ii.family == "SOPK" && k == 0 => Some(RegValue::Uniform(scalar_src(
                    w,
                    ii,
                    ii.field("sdst"),
                    width,
                    "",
                ))),
                _ => None,
            }
        }
        "D0" => match dst {
            Dest::Vgpr { reg, hi } => Some(RegValue::Lanes(
                (0..w.wave_size)
                    .map(|lane| read_vgpr_lanes(w, reg, hi, width, lane))
                    .collect(),
            )),
            Dest::Sgpr(c) => Some(RegValue::Uniform(scalar_src(w, ii, c, width, ""))),
            _ => None,
        },
        "SCC" => Some(uni(width, w.scc as u64)),
        "VCC" => {
            // VOP3 forms read the lane mask VOP2 takes from VCC from `src2`.
            let src2_mask = ii.is_vop3()
                && ii
                    .operand("src2")
                    .is_some_and(|o| is_mask_format(&o.format));
            if src2_mask {
                let c = ii.field("src2");
                Some(uni(width, w.sgpr_pair(c)))
            } else {
                Some(uni(width, w.vcc()))
            }
        }
        "EXEC" => Some(uni(width, w.sgpr_pair(code::EXEC_LO))),
        "EXEC_LO" => Some(uni(width, w.read_sgpr(code::EXEC_LO) as u64)),
        "EXEC_HI" => Some(uni(width, w.read_sgpr(code::EXEC_HI) as u64)),
        "VCC_LO" => Some(uni(width, w.read_sgpr(code::VCC_LO) as u64)),
        "VCC_HI" => Some(uni(width, w.read_sgpr(code::VCC_HI) as u64)),
        "VCCZ" => Some(uni(width, (w.vcc() & w.full_mask() == 0) as u64)),
        "EXECZ" => Some(uni(width, (w.exec() == 0) as u64)),
        "M0" => Some(uni(width, w.m0() as u64)),
        "PC" => Some(uni(width, d.addr)),
        "SIMM16" => Some(uni(width, ii.field("simm16") as u64)),
        "SIMM32" => Some(uni(width, d.inst.literal.unwrap_or(0) as u64)),
        "SRC0" | "SRC1" | "SRC2" | "VDST" | "DST" | "SDST" => {
            let field = match name {
                "VDST" | "DST" => "vdst",
                "SDST" => "sdst",
                "SRC0" => ii.src_field(0).unwrap_or("src0"),
                "SRC1" => ii.src_field(1).unwrap_or("src1"),
                _ => ii.src_field(2).unwrap_or("src2"),
            };
            let raw = ii.field(field);
            let is_vgpr = if field == "vdst" {
                ii.operand("vdst").is_some_and(|o| o.kind.contains("VGPR"))
            } else {
                field.starts_with('v') || raw >= 256
            };
            let num = if field.starts_with('v') || field == "vdst" {
                raw
            } else if raw >= 256 {
                raw - 256
            } else {
                raw
            };
            if let (Some(vgprs), true) = (vgprs, is_vgpr) {
                // Entries addressing relative to M0 (v_movrel*, v_swaprel_b32) may reach any
                // register; the others read at most eight from the operand's number.
                let regs = if ii.e.prepared.function.reg("M0").is_some() {
                    0..super::state::N_VGPRS as u32
                } else {
                    num..num + 8
                };
                for lane in 0..w.wave_size {
                    for r in regs.clone() {
                        vgprs.insert((lane, r), w.vgpr(lane, r));
                    }
                }
            }
            Some(uni(width, num as u64))
        }
        "OPSEL" => Some(uni(width, ii.field("opsel") as u64)),
        "OPSEL_HI" => Some(uni(
            width,
            (ii.d.inst.field("opsel_hi").unwrap_or(3) as u32
                | (ii.d.inst.field("opsel_hi2").unwrap_or(1) as u32) << 2) as u64,
        )),
        "NEG" => Some(uni(width, ii.field("neg") as u64)),
        "NEG_HI" => Some(uni(width, ii.field("neg_hi") as u64)),
        "ABS" => Some(uni(width, ii.field("abs") as u64)),
        "OMOD" => Some(uni(width, ii.field("omod") as u64)),
        "CLAMP" => Some(uni(width, ii.field("clmp") as u64)),
        n if n.starts_with("TTMP") => n[4..]
            .parse::<u32>()
            .ok()
            .map(|t| uni(width, w.read_sgpr(code::TTMP0 + t) as u64)),
        _ => None,
    }
}

/// Writes an instruction's outputs back to the wave: `D0` to its destination (EXEC-masked,
/// with the VOP3 output modifiers), lane masks, `SCC`, `EXEC`, `M0`, ... Returns the new PC
/// when the instruction wrote one.
fn write_back<'o>(
    w: &mut WaveState,
    ii: &Inst<'_>,
    dst: Dest,
    exec_at_issue: u64,
    outputs: impl IntoIterator<Item = (&'o str, OutValue<'o>)>,
    wb: WriteBackInfo,
) -> Option<u64> {
    let p = &ii.e.prepared;
    let per_lane_run = p.vector && !p.wave_level;
    let mut new_pc = None;
    let WriteBackInfo {
        clamp,
        omod,
        d_fbits,
        vdst_bits,
        ftz,
        dx10,
    } = wb;
    // Integer clamp saturates the unwrapped result to the destination type's range; the
    // pseudocode computes the wrapped one, so it is recomputed here from the sources.
    let saturated = if clamp && d_fbits == 0 {
        int_clamp(w, ii, dst)
    } else {
        None
    };
    for (name, value) in outputs {
        match name {
            "D0" => match dst {
                Dest::Vgpr { reg, hi } => {
                    let cdna = w.arch == Arch::Cdna;
                    for lane in 0..w.wave_size {
                        if per_lane_run && exec_at_issue >> lane & 1 == 0 {
                            continue;
                        }
                        let mut v = value.lane(lane);
                        // A D0 wider than the VGPR destination (VOP3SD entries whose text
                        // types D0 by the lane-mask operand) writes only the destination.
                        if vdst_bits >= 32 && vdst_bits < v.width() {
                            v = v.zext(vdst_bits);
                        }
                        if let Some(sat) = &saturated {
                            v = Bits::from_u64(v.width(), sat[lane as usize]);
                        }
                        if d_fbits > 0 && (omod != 0 || clamp) {
                            v = omod_float(&v, d_fbits, omod);
                            if clamp {
                                v = clamp_float(&v, d_fbits, dx10);
                            }
                        }
                        if ftz {
                            v = flush_denormal(v, d_fbits);
                        }
                        // A 16-bit result is placed by `dst_sel` like a 32-bit one.
                        if let (Some((super::sdwa::SDWA, ext)), 1..=32) = (ii.d.ext, v.width()) {
                            let old = w.vgpr(lane, reg);
                            let x = super::sdwa::merge_dest(ext, old, v.low_u64() as u32);
                            v = Bits::from_u64(32, x as u64);
                        }
                        write_vgpr_value(w, lane, reg, hi, &v, cdna);
                    }
                }
                // A per-lane entry with an SGPR D0 (RDNA 4 `v_s_*`) that issued with no lane
                // active computed nothing: the SGPR keeps its value (fuzzer, issue 14).
                Dest::Sgpr(_) if per_lane_run && exec_at_issue & w.full_mask() == 0 => {}
                Dest::Sgpr(c) => {
                    let v = value.first();
                    let v = if ftz { flush_denormal(v, d_fbits) } else { v };
                    write_sgprs(w, c, &v)
                }
                Dest::Mask(c) => {
                    let v = value.first().low_u64();
                    write_mask(w, c, v, exec_at_issue, per_lane_run)
                }
                Dest::None => {}
            },
            // An entry that writes a source (v_swap_*: `S0.b32 = tmp`) writes its VGPR.
            "S0" | "S1" | "S2" => {
                let k = (name.as_bytes()[1] - b'0') as usize;
                let Some(field) = ii.src_field(k) else {
                    continue;
                };
                let width = value.lane(0).width();
                if let Src::Vgpr { reg, hi } = source(w, ii, field, width) {
                    let cdna = w.arch == Arch::Cdna;
                    for lane in 0..w.wave_size {
                        if exec_at_issue >> lane & 1 == 1 {
                            write_vgpr_value(w, lane, reg, hi, &value.lane(lane), cdna);
                        }
                    }
                }
            }
            "SCC" => w.scc = value.first().low_u64() & 1 == 1,
            "VCC" => {
                let v = value.first().low_u64();
                if ii.family == "VOP3SD" {
                    write_mask(w, ii.field("sdst"), v, exec_at_issue, per_lane_run);
                } else if p.vector {
                    write_mask(w, code::VCC_LO, v, exec_at_issue, per_lane_run);
                } else {
                    w.write_sgpr(code::VCC_LO, v as u32);
                    w.write_sgpr(code::VCC_HI, (v >> 32) as u32);
                }
            }
            "EXEC" => {
                let v = value.first().low_u64();
                if p.vector {
                    write_mask(w, code::EXEC_LO, v, exec_at_issue, per_lane_run);
                } else {
                    w.set_exec(v);
                }
            }
            "EXEC_LO" => w.write_sgpr(code::EXEC_LO, value.first().low_u64() as u32),
            "EXEC_HI" => w.write_sgpr(code::EXEC_HI, value.first().low_u64() as u32),
            "VCC_LO" => w.write_sgpr(code::VCC_LO, value.first().low_u64() as u32),
            "VCC_HI" => w.write_sgpr(code::VCC_HI, value.first().low_u64() as u32),
            "M0" => w.write_sgpr(m0_code(w.arch), value.first().low_u64() as u32),
            "WAVE_MODE.GPR_IDX_EN" => {
                super::gpr_idx::set_enabled(w, value.first().low_u64() & 1 == 1)
            }
            "PC" => new_pc = Some(value.first().low_u64()),
            n if n.starts_with("TTMP") => {
                if let Ok(t) = n[4..].parse::<u32>() {
                    w.write_sgpr(code::TTMP0 + t, value.first().low_u64() as u32);
                }
            }
            _ => {}
        }
    }
    new_pc
}

/// The value of a register the encoding does not supply (as `exec::Machine` defaults it).
fn default_value(w: &WaveState, name: &str, width: u32) -> Bits {
    let v = match name {
        "EXEC" => w.exec(),
        "EXEC_LO" => w.exec() & 0xffff_ffff,
        "EXEC_HI" => w.exec() >> 32,
        "WAVE32" | "wave32" => (w.wave_size == 32) as u64,
        "WAVE64" | "wave64" => (w.wave_size == 64) as u64,
        // MODE.IEEE; RDNA 4 has no IEEE mode bit, and its texts' IEEE branch is the one its
        // hardware follows.
        "WAVE_MODE.IEEE" => (w.arch == Arch::Rdna4 || w.ieee()) as u64,
        // The f32 rounding mode (MODE bits 1:0; the pseudocode's ROUND_* constants match).
        "ROUND_MODE" => (w.mode & 3) as u64,
        "EXECZ" => (w.exec() == 0) as u64,
        "VCCZ" => (w.vcc() & w.full_mask() == 0) as u64,
        _ => 0,
    };
    Bits::from_u64(width, v)
}

/// Adapts a bound value to the register's shape: a uniform value fills every lane of a
/// per-lane register, a per-lane value bound to a scalar register takes lane 0.
fn fit_value(v: RegValue, per_lane: bool, width: u32, lanes: u32) -> RegValue {
    let fit = |b: Bits| if b.width() == width { b } else { b.zext(width) };
    match (v, per_lane) {
        (RegValue::Uniform(b), false) => RegValue::Uniform(fit(b)),
        (RegValue::Uniform(b), true) => RegValue::Lanes(vec![fit(b); lanes as usize]),
        (RegValue::Lanes(l), false) => RegValue::Uniform(
            l.into_iter()
                .next()
                .map(fit)
                .unwrap_or_else(|| Bits::zero(width)),
        ),
        (RegValue::Lanes(mut l), true) => {
            l.resize(lanes as usize, Bits::zero(width));
            RegValue::Lanes(l.into_iter().map(fit).collect())
        }
    }
}

/// How one function register is filled, resolved once per decoded instruction.
#[derive(Clone, Debug)]
enum Bind {
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
pub(super) struct Plan {
    /// The instruction's address and name (the cache is checked against them).
    pub(super) addr: u64,
    pub(super) name: String,
    /// The instruction's index in its program, when the executor's cache holds the plan (its
    /// slot buffer then keeps constant operands between runs).
    pub(super) index: Option<usize>,
    /// The MODE the plan was made for (modifiers and write-back depend on it).
    pub(super) mode: u32,
    dst: Dest,
    binds: Vec<Bind>,
    wb: WriteBackInfo,
    /// The registers the instruction writes, in function order, with how each is written.
    outputs: Vec<(usize, Out)>,
}

/// The registers a function body assigns whole in a top-level statement before any
/// statement that may `return` (so on every path that completes).
fn assigned_in_full(body: &[crate::ir::Stmt]) -> Vec<usize> {
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
enum Out {
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
fn outputs(ii: &Inst<'_>, dst: Dest, wb: WriteBackInfo) -> Vec<(usize, Out)> {
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
                        && !super::sdwa::is_sdwa(ii.d.ext) =>
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

/// Facts about an instruction's write-back, fixed by the encoding.
#[derive(Clone, Copy, Debug)]
struct WriteBackInfo {
    clamp: bool,
    /// The output modifier: the encoding's, or 0 while IEEE mode is on (the hardware ignores
    /// it then).
    omod: u32,
    d_fbits: u32,
    vdst_bits: u32,
    /// Flush a denormal float result (MODE `FP_DENORM` of the result's format).
    ftz: bool,
    /// `clamp` turns NaN into 0 (MODE `DX10_CLAMP`); otherwise NaN passes.
    dx10: bool,
}

fn write_back_info(ii: &Inst<'_>) -> WriteBackInfo {
    let f = &ii.e.prepared.function;
    let dst_op = ii.operand("vdst").or_else(|| ii.operand("sdst"));
    let d_fbits = dst_op.map(|o| float_bits(&o.format)).unwrap_or(0);
    let ieee = ii.mode & super::state::mode::IEEE != 0;
    WriteBackInfo {
        clamp: ii.is_vop3() && ii.field("clmp") == 1 && !reads_field(f, "CLAMP"),
        omod: if ii.is_vop3() && !reads_field(f, "OMOD") && !ieee {
            ii.field("omod")
        } else {
            0
        },
        d_fbits,
        vdst_bits: ii.operand("vdst").map(|o| o.bits).unwrap_or(0),
        ftz: flushes_denormals(ii) && denorm_flush(ii.mode, d_fbits).1,
        dx10: ii.mode & super::state::mode::DX10_CLAMP != 0,
    }
}

/// Whether an instruction runs on the bound fast path (no register-file addressing, no
/// memory, no dual issue).
pub(super) fn fast_path(e: &Entry, d: &Decoded) -> bool {
    !e.vgpr_space
        && !e.sgpr_space
        && d.inst.family != "VOPD"
        && !super::memory::is_memory(&d.inst.family)
}

/// Resolves the binding plan of a decoded instruction (fast-path entries only).
pub(super) fn plan(e: &Entry, d: &Decoded, w: &WaveState) -> Plan {
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
            match inst_field_name(&r.name) {
                "S0" | "S1" | "S2" => {
                    let k = (r.name.as_bytes()[1] - b'0') as usize;
                    let Some(field) = ii.src_field(k).filter(|f| ii.has_field(f)) else {
                        return Bind::ByName;
                    };
                    if field == "src0" && d.ext.is_some() || super::sdwa::is_sdwa(d.ext) {
                        return Bind::ByName;
                    }
                    let mods = src_mods(&ii, k, field, width);
                    let (narrow, read_width) = if mods.opsel_hi && width < 32 {
                        (Some(width), 32)
                    } else {
                        (None, width)
                    };
                    // `source` reads no wave state for a VGPR operand.
                    match source(w, &ii, field, read_width) {
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
                                    match bind_source(w, &ii, k, field, width) {
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
                "SIMM32" => uni_field(d.inst.literal.unwrap_or(0) as u64),
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

/// The executor's scratch machine emptied, as the memory of a fast-path instruction (which
/// addresses no register file: at most hardware registers, which read as zero).
fn empty_memory(m: &mut Machine, lanes: u32) -> impl crate::interp::Memory + '_ {
    m.wave_size = lanes;
    // (An allocated map's `clear` writes its whole table even when empty.)
    if !m.vgpr.is_empty() {
        m.vgpr.clear();
    }
    if !m.sgpr.is_empty() {
        m.sgpr.clear();
    }
    if !m.hwreg.is_empty() {
        m.hwreg.clear();
    }
    crate::exec::machine_memory(m)
}

/// The bound fast path for entries that do not address the register files: registers are
/// filled by index straight from the wave (no named `exec::Machine` values), run with
/// `exec::run_bound_interp` or the kernel's slot buffer, and written back by index.
pub(super) fn execute_bound(
    ex: &mut Executor,
    e: &Entry,
    plan: &Plan,
    d: &Decoded,
    w: &mut WaveState,
) -> Result<Option<u64>, WaveError> {
    let ii = &Inst {
        d,
        e,
        family: d.inst.family.as_str(),
        arch: w.arch,
        mode: w.mode,
        src_exec: ex.dpp_source_exec.unwrap_or_else(|| w.exec()),
    };
    if let Some(k) = &e.kernel {
        return slots::execute(ex, k, ii, plan, w);
    }
    let dst = plan.dst;
    let p = &e.prepared;
    let f = &p.function;
    let lanes = w.wave_size;
    let exec_at_issue = w.exec();
    let mut regs: Vec<RegValue> = Vec::with_capacity(f.regs.len());
    for ((r, &per_lane), bind) in f.regs.iter().zip(&p.per_lane).zip(&plan.binds) {
        let v = match bind {
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
                    x |= (w.read_sgpr(code + 1) as u64) << 32;
                }
                uni(*width, x & crate::value::mask64(*width))
            }
            Bind::Scc => uni(r.width, w.scc as u64),
            Bind::Exec => uni(r.width, w.sgpr_pair(code::EXEC_LO)),
            Bind::ByName => bind_named(w, ii, dst, &r.name, r.width, None)
                .unwrap_or_else(|| RegValue::Uniform(default_value(w, &r.name, r.width))),
            Bind::Unread => uni(r.width, 0),
        };
        regs.push(fit_value(v, per_lane, r.width, lanes));
    }

    let exec = exec_at_issue & w.full_mask();
    let mut memory = empty_memory(&mut ex.machine, lanes);
    let result = crate::exec::run_bound_interp(&e.optimized, &mut regs, lanes, exec, &mut memory);
    if let Err(err) = result {
        return Err(WaveError::Exec {
            addr: ii.d.addr,
            inst: ii.d.inst.name.clone(),
            message: err.to_string(),
        });
    }
    // The common results go straight into the wave; the rest through `write_back`.
    let mut next = None;
    let mut general = false;
    for &(i, out) in &plan.outputs {
        let v = &regs[i];
        match out {
            Out::VgprD0 { reg, width, ftz } => {
                for lane in 0..lanes {
                    if exec_at_issue >> lane & 1 == 1 {
                        let mut x = match v {
                            RegValue::Uniform(b) => b.low_u64(),
                            RegValue::Lanes(l) => l[lane as usize].low_u64(),
                        };
                        if ftz {
                            x = flush_f32(x as u32) as u64;
                        }
                        w.set_vgpr(lane, reg, x as u32);
                        if width == 64 {
                            w.set_vgpr(lane, reg + 1, (x >> 32) as u32);
                        }
                    }
                }
            }
            // No lane ran: nothing to write (see `write_back`).
            Out::SgprD0 { .. } if p.vector && !p.wave_level && exec == 0 => {}
            Out::SgprD0 { code: c, width } => {
                let x = first(v).low_u64();
                w.write_sgpr(c, x as u32);
                if width == 64 {
                    w.write_sgpr(c + 1, (x >> 32) as u32);
                }
            }
            Out::Scc => w.scc = first(v).low_u64() & 1 == 1,
            Out::Pc => next = Some(first(v).low_u64()),
            Out::General => general = true,
        }
    }
    if general {
        let outs = plan
            .outputs
            .iter()
            .filter(|(_, out)| *out == Out::General)
            .map(|&(i, _)| (f.regs[i].name.as_str(), OutValue::Reg(&regs[i])));
        if let Some(pc) = write_back(w, ii, dst, exec_at_issue, outs, plan.wb) {
            next = Some(pc);
        }
    }
    Ok(next)
}
