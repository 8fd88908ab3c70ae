//! Write-back: the registers an instruction's text assigned, into the wave (EXEC-masked
//! VGPR rows, 16-bit halves, SDWA `dst_sel`, lane masks, SCC, EXEC, M0, the PC), with the
//! VOP3 output modifiers (`clamp`, `omod`) and MODE's denormal flush.

use crate::interp::RegValue;
use crate::value::Bits;

use super::clamp::int_clamp;
use super::mods::{clamp_float, flush_denormal, omod_float};
use super::operands::source;
use super::plan::WriteBackInfo;
use super::{slots, Inst, Src};
use crate::wave::decode::{Dest, Facts};
use crate::wave::state::{code, dword_code, m0_code, WaveState};

pub(super) fn write_vgpr_value(
    w: &mut WaveState,
    lane: u32,
    reg: u32,
    hi: bool,
    v: &Bits,
    cdna: bool,
) {
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

pub(super) fn write_sgprs(w: &mut WaveState, code0: u32, v: &Bits) {
    let n = v.width().div_ceil(32);
    for i in 0..n {
        let word = v.extract(i as u64 * 32, 32).low_u64() as u32;
        let bits = (v.width() - i * 32).min(32);
        let mask = if bits >= 32 {
            u32::MAX
        } else {
            (1 << bits) - 1
        };
        let code = dword_code(w.arch, code0, i);
        let old = w.read_sgpr(code);
        w.write_sgpr(code, (old & !mask) | (word & mask));
    }
}

/// Writes a lane mask produced by a vector instruction: bits of lanes inactive at issue are
/// zero, and wave32 writes one register.
pub(super) fn write_mask(w: &mut WaveState, code0: u32, v: u64, exec: u64, per_lane_run: bool) {
    let v = if per_lane_run { v & exec } else { v } & w.full_mask();
    w.write_sgpr(code0, v as u32);
    if w.wave_size == 64 {
        w.write_sgpr(dword_code(w.arch, code0, 1), (v >> 32) as u32);
    }
}

pub(super) fn first(v: &RegValue) -> Bits {
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

/// Writes an instruction's outputs back to the wave: `D0` to its destination (EXEC-masked,
/// with the VOP3 output modifiers), lane masks, `SCC`, `EXEC`, `M0`, ... Returns the new PC
/// when the instruction wrote one.
pub(super) fn write_back<'o>(
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
                    let cdna = w.arch.is_gfx9();
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
                        if let (Some((crate::wave::sdwa::SDWA, ext)), 1..=32) =
                            (ii.d.ext, v.width())
                        {
                            let old = w.vgpr(lane, reg);
                            let x = crate::wave::sdwa::merge_dest(ext, old, v.low_u64() as u32);
                            v = Bits::from_u64(32, x as u64);
                        }
                        write_vgpr_value(w, lane, reg, hi, &v, cdna);
                    }
                }
                // A per-lane entry with an SGPR D0 (RDNA 4 `v_s_*`) that issued with no lane
                // active computed nothing: the SGPR keeps its value (found by the fuzzer).
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
                    let cdna = w.arch.is_gfx9();
                    for lane in 0..w.wave_size {
                        if exec_at_issue >> lane & 1 == 1 {
                            write_vgpr_value(w, lane, reg, hi, &value.lane(lane), cdna);
                        }
                    }
                }
            }
            "SCC" => w.scc = value.first().low_u64() & 1 == 1,
            // The carry-out of V_MAD_U64_U32/V_MAD_I64_I32 (`{ D1.u1, D0.u64 } = ...`): bit 0
            // of each lane's D1 into the `sdst` lane mask.
            "D1" if ii.family == "VOP3SD" => {
                let mut v = 0u64;
                for lane in 0..w.wave_size {
                    v |= (value.lane(lane).low_u64() & 1) << lane;
                }
                write_mask(w, ii.field("sdst"), v, exec_at_issue, per_lane_run);
            }
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
                crate::wave::gpr_idx::set_enabled(w, value.first().low_u64() & 1 == 1)
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

/// Writes a per-lane D0 result to VGPR `reg` (and `reg + 1` for 64 bits) in the lanes of
/// `exec`, flushing an f32 denormal when `ftz`: the bound fast paths' direct write-back.
/// `value(lane)` gives the lane's result.
#[inline]
pub(super) fn write_vgpr_d0(
    w: &mut WaveState,
    (reg, width, ftz): (u32, u32, bool),
    exec: u64,
    value: impl Fn(u32) -> u64,
) {
    let n = w.wave_size;
    if width == 32 {
        if let Some(row) = w.vgpr_row_mut(reg) {
            // Every lane's value is read (an inactive lane's may be stale) and kept only
            // where EXEC is set: no branch per lane.
            for (lane, slot) in (0..n).zip(row.iter_mut()) {
                let x = value(lane) as u32;
                let x = if ftz { super::mods::flush_f32(x) } else { x };
                *slot = if exec >> lane & 1 == 1 { x } else { *slot };
            }
            return;
        }
    }
    for lane in 0..n {
        if exec >> lane & 1 == 1 {
            let mut x = value(lane);
            if ftz {
                x = super::mods::flush_f32(x as u32) as u64;
            }
            w.set_vgpr(lane, reg, x as u32);
            if width == 64 {
                w.set_vgpr(lane, reg + 1, (x >> 32) as u32);
            }
        }
    }
}

/// Writes a wave-wide D0 result `x` to SGPR `code` (and `code + 1` for 64 bits).
#[inline]
pub(super) fn write_sgpr_d0(w: &mut WaveState, code: u32, width: u32, x: u64) {
    w.write_sgpr(code, x as u32);
    if width == 64 {
        w.write_sgpr(dword_code(w.arch, code, 1), (x >> 32) as u32);
    }
}
