//! Write-back: the registers an instruction's text assigned, into the wave (EXEC-masked
//! VGPR rows, 16-bit halves, SDWA `dst_sel`, lane masks, SCC, EXEC, M0, the PC), with the
//! VOP3 output modifiers (`clamp`, `omod`) and MODE's denormal flush.

use crate::interp::RegValue;
use crate::value::Bits;

use super::clamp::int_clamp;
use super::domain::{Domain, DomainMut, Step, Wave};
use super::operands::source;
use super::plan::WriteBackInfo;
use super::{slots, Inst, Src};
use crate::wave::decode::Dest;
use crate::wave::state::{code, dword_code, m0_code, WaveState};

/// `v` into the scalar registers from `code0` (a partial top dword merged with the old
/// bits), where the guard holds (`None`: unconditionally).
pub(crate) fn write_sgprs<D: DomainMut>(dom: &mut D, code0: u32, v: &D::Val, g: Option<&D::Guard>) {
    let width = D::width(v);
    let arch = dom.arch();
    for i in 0..width.div_ceil(32) {
        let bits = (width - i * 32).min(32);
        let word = D::extract(v, i * 32, bits);
        let code = dword_code(arch, code0, i);
        let old = dom.sgpr(code);
        let new = if bits == 32 {
            word
        } else {
            D::concat(&D::extract(&old, bits, 32 - bits), &word)
        };
        let new = match g {
            Some(g) => D::select(g, new, old),
            None => new,
        };
        dom.write_sgpr(code, new);
    }
}

/// The low 32 bits of a value (zero-extended when narrower).
fn word<D: Domain>(v: D::Val) -> D::Val {
    D::zext(v, 32)
}

/// An output register's value as an executor left it, read per lane.
pub(crate) trait Output<V> {
    /// The value of `lane` (the one value of a uniform register).
    fn lane(&self, lane: u32) -> V;
    /// The uniform value, or lane 0's.
    fn first(&self) -> V;
}

impl<V, T: Output<V>> Output<V> for &T {
    fn lane(&self, lane: u32) -> V {
        (**self).lane(lane)
    }
    fn first(&self) -> V {
        (**self).first()
    }
}

pub(super) fn first(v: &RegValue) -> Bits {
    match v {
        RegValue::Uniform(b) => b.clone(),
        RegValue::Lanes(l) => l.first().cloned().unwrap_or_else(|| Bits::zero(1)),
    }
}

/// An output register's value as a concrete executor left it: bound registers (the
/// interpreter) or a kernel's slot buffer (the JIT).
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

impl Output<Bits> for OutValue<'_> {
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

    fn first(&self) -> Bits {
        match self {
            OutValue::Reg(v) => first(v),
            OutValue::Slot { .. } => self.lane(0),
        }
    }
}

/// Writes an instruction's outputs back: `D0` to its destination (EXEC-masked, with the
/// VOP3 output modifiers; `saturated` holds the per-lane results of an integer clamp),
/// lane masks, `SCC`, `EXEC`, `M0`, ... `exec` is EXEC at issue (64 bits). Returns the new
/// PC when the instruction wrote one.
pub(crate) fn write_back<'o, D: DomainMut, O: Output<D::Val>>(
    dom: &mut D,
    ii: &impl Step,
    dst: Dest,
    exec: &D::Val,
    outputs: impl IntoIterator<Item = (&'o str, O)>,
    wb: WriteBackInfo,
    saturated: Option<Vec<u64>>,
) -> Option<D::Val> {
    let p = ii.prepared();
    let per_lane_run = ii.per_lane_run();
    let vop3sd = ii.family() == "VOP3SD";
    let ext = ii.decoded().ext;
    let mut new_pc = None;
    let lanes = dom.wave_size();
    let guard = |dom: &D, lane: u32| -> Option<D::Guard> {
        if per_lane_run {
            dom.lane_guard(exec, lane)
        } else {
            dom.lane_guard(&D::constant(Bits::from_u64(64, u64::MAX)), lane)
        }
    };
    for (name, value) in outputs {
        match name {
            "D0" => match dst {
                Dest::Vgpr { reg, hi } => {
                    for lane in 0..lanes {
                        let Some(g) = guard(dom, lane) else {
                            continue;
                        };
                        let mut v = value.lane(lane);
                        // A D0 wider than the VGPR destination (VOP3SD entries whose text
                        // types D0 by the lane-mask operand) writes only the destination.
                        if wb.vdst_bits >= 32 && wb.vdst_bits < D::width(&v) {
                            v = D::zext(v, wb.vdst_bits);
                        }
                        if let Some(sat) = &saturated {
                            v = D::constant(Bits::from_u64(D::width(&v), sat[lane as usize]));
                        }
                        if wb.d_fbits > 0 && (wb.omod != 0 || wb.clamp) {
                            v = dom.result_mods(v, &wb);
                        }
                        if wb.ftz {
                            v = D::flush_denormal(v, wb.d_fbits);
                        }
                        // A 16-bit result is placed by `dst_sel` like a 32-bit one.
                        if let (Some((crate::wave::sdwa::SDWA, ext)), 1..=32) = (ext, D::width(&v))
                        {
                            let old = dom.vgpr(lane, reg);
                            v = dom.sdwa_merge(ext, old, word::<D>(v));
                        }
                        dom.write_vgpr_value(lane, (reg, hi), &v, &g);
                    }
                }
                Dest::Sgpr(c) => {
                    let v = value.first();
                    let v = if wb.ftz {
                        D::flush_denormal(v, wb.d_fbits)
                    } else {
                        v
                    };
                    // A per-lane entry with an SGPR D0 (RDNA 4 `v_s_*`) that issued with no
                    // lane active computed nothing: the SGPR keeps its value (found by the
                    // fuzzer).
                    if per_lane_run {
                        if let Some(g) = dom.any_guard(exec) {
                            write_sgprs(dom, c, &v, Some(&g));
                        }
                    } else {
                        write_sgprs(dom, c, &v, None);
                    }
                }
                Dest::Mask(c) => dom.write_mask(c, value.first(), exec, per_lane_run),
                Dest::None => {}
            },
            // An entry that writes a source (v_swap_*: `S0.b32 = tmp`) writes its VGPR.
            "S0" | "S1" | "S2" => {
                let k = (name.as_bytes()[1] - b'0') as usize;
                let Some(field) = ii.src_field(k) else {
                    continue;
                };
                let width = D::width(&value.lane(0));
                if let Src::Vgpr { reg, hi } = source(dom, ii, field, width) {
                    for lane in 0..lanes {
                        if let Some(g) = dom.lane_guard(exec, lane) {
                            dom.write_vgpr_value(lane, (reg, hi), &value.lane(lane), &g);
                        }
                    }
                }
            }
            "SCC" => dom.set_scc(D::extract(&value.first(), 0, 1)),
            // The carry-out of V_MAD_U64_U32/V_MAD_I64_I32 (`{ D1.u1, D0.u64 } = ...`): bit 0
            // of each lane's D1 into the `sdst` lane mask.
            "D1" if vop3sd => {
                let mut v = D::extract(&value.lane(0), 0, 1);
                for lane in 1..lanes {
                    v = D::concat(&D::extract(&value.lane(lane), 0, 1), &v);
                }
                dom.write_mask(ii.field("sdst"), v, exec, per_lane_run);
            }
            "VCC" => {
                let v = value.first();
                if vop3sd {
                    dom.write_mask(ii.field("sdst"), v, exec, per_lane_run);
                } else if p.vector {
                    dom.write_mask(code::VCC_LO, v, exec, per_lane_run);
                } else {
                    write_sgprs(dom, code::VCC_LO, &D::zext(v, 64), None);
                }
            }
            "EXEC" => {
                let v = value.first();
                if p.vector {
                    dom.write_mask(code::EXEC_LO, v, exec, per_lane_run);
                } else {
                    write_sgprs(dom, code::EXEC_LO, &D::zext(v, 64), None);
                }
            }
            "EXEC_LO" => dom.write_sgpr(code::EXEC_LO, word::<D>(value.first())),
            "EXEC_HI" => dom.write_sgpr(code::EXEC_HI, word::<D>(value.first())),
            "VCC_LO" => dom.write_sgpr(code::VCC_LO, word::<D>(value.first())),
            "VCC_HI" => dom.write_sgpr(code::VCC_HI, word::<D>(value.first())),
            "M0" => {
                let m0 = m0_code(dom.arch());
                dom.write_sgpr(m0, word::<D>(value.first()))
            }
            "WAVE_MODE.GPR_IDX_EN" => dom.set_gpr_idx_enabled(value.first()),
            "PC" => new_pc = Some(value.first()),
            n if n.starts_with("TTMP") => {
                if let Ok(t) = n[4..].parse::<u32>() {
                    dom.write_sgpr(code::TTMP0 + t, word::<D>(value.first()));
                }
            }
            _ => {}
        }
    }
    new_pc
}

/// [`write_back`] into the wave state: the concrete executors' outputs, with the VOP3
/// integer clamp recomputed from the sources.
pub(super) fn write_back_wave<'o>(
    w: &mut WaveState,
    ii: &Inst<'_>,
    dst: Dest,
    exec_at_issue: u64,
    outputs: impl IntoIterator<Item = (&'o str, OutValue<'o>)>,
    wb: WriteBackInfo,
) -> Option<u64> {
    // Integer clamp saturates the unwrapped result to the destination type's range; the
    // pseudocode computes the wrapped one, so it is recomputed here from the sources.
    let saturated = if wb.clamp && wb.d_fbits == 0 {
        int_clamp(w, ii, dst)
    } else {
        None
    };
    let mut dom = Wave {
        w,
        src_exec: ii.src_exec,
    };
    let exec = Bits::from_u64(64, exec_at_issue);
    write_back(&mut dom, ii, dst, &exec, outputs, wb, saturated).map(|pc| pc.low_u64())
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
