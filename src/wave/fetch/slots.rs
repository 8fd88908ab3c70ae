//! The JIT's bound fast path: operands go from the wave straight into the kernel's slot
//! buffer (reused across steps), and results go from the slot buffer straight back into the
//! wave, with no per-lane `RegValue` vectors in between.

use super::{
    apply_mods, read_vgpr_lanes, write_back_wave, Bind, Inst, Out, OutValue, Plan, RegValue,
    WaveError,
};
use crate::jit::Kernel;
use crate::value::{mask64, Bits};
use crate::wave::state::{code, dword_code, WaveState, LANE_SLOTS};
use crate::wave::Executor;

/// Bytes per value in a slot buffer (two little-endian words).
pub(super) const SLOT: usize = 16;

/// Reads a `width`-bit value at byte `off`.
pub(super) fn read(slots: &[u8], off: usize, width: u32) -> Bits {
    let word = |o: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&slots[o..o + 8]);
        u64::from_le_bytes(b)
    };
    if width <= 64 {
        Bits::from_u64(width, word(off))
    } else {
        Bits::from_words(width, &[word(off), word(off + 8)])
    }
}

/// Writes the low `width` bits of (`lo`, `hi`) at byte `off`.
#[inline]
fn put(slots: &mut [u8], off: usize, width: u32, lo: u64, hi: u64) {
    let (lo, hi) = if width >= 128 {
        (lo, hi)
    } else if width > 64 {
        (lo, hi & mask64(width - 64))
    } else {
        (lo & mask64(width), 0)
    };
    slots[off..off + 8].copy_from_slice(&lo.to_le_bytes());
    slots[off + 8..off + 16].copy_from_slice(&hi.to_le_bytes());
}

fn put_bits(slots: &mut [u8], off: usize, width: u32, b: &Bits) {
    let w = b.words();
    put(slots, off, width, w[0], w.get(1).copied().unwrap_or(0));
}

/// Writes one value for every lane of a per-lane register, or once for a uniform one
/// (`width` at most 64: only the low word, the one a kernel reads).
pub(super) fn put_uniform(
    slots: &mut [u8],
    off: usize,
    width: u32,
    per_lane: bool,
    lanes: u32,
    x: u64,
) {
    let n = if per_lane { lanes as usize } else { 1 };
    let bytes = (x & mask64(width.min(64))).to_le_bytes();
    for chunk in slots[off..off + n * SLOT].chunks_exact_mut(SLOT) {
        chunk[..8].copy_from_slice(&bytes);
    }
}

/// Writes a bound value, adapted to the register's shape as `fit_value` does: a uniform
/// value fills every lane, a per-lane value bound to a scalar register takes lane 0.
pub(super) fn put_value(
    slots: &mut [u8],
    off: usize,
    width: u32,
    per_lane: bool,
    lanes: u32,
    v: &RegValue,
) {
    match v {
        RegValue::Uniform(b) => {
            let n = if per_lane { lanes as usize } else { 1 };
            for lane in 0..n {
                put_bits(slots, off + lane * SLOT, width, b);
            }
        }
        RegValue::Lanes(l) => {
            let n = if per_lane { lanes as usize } else { 1 };
            for lane in 0..n {
                match l.get(lane) {
                    Some(b) => put_bits(slots, off + lane * SLOT, width, b),
                    None => put(slots, off + lane * SLOT, width, 0, 0),
                }
            }
        }
    }
}

/// Runs a fast-path instruction with its kernel.
pub(super) fn execute(
    ex: &mut Executor,
    k: &Kernel,
    ii: &Inst<'_>,
    plan: &Plan,
    w: &mut WaveState,
) -> Result<Option<u64>, WaveError> {
    let e = ii.e;
    let f = &e.prepared.function;
    let layout = &e.layout;
    let lanes = w.wave_size;
    let exec_at_issue = w.exec();
    let per_lane_run = e.prepared.vector && !e.prepared.wave_level;
    let (mut slots, consts_for) = match plan.index {
        Some(i) => {
            if ex.plan_slots.len() <= i {
                ex.plan_slots.resize_with(i + 1, Default::default);
            }
            std::mem::take(&mut ex.plan_slots[i])
        }
        None => (std::mem::take(&mut ex.scratch_slots), 0),
    };
    // Constant operands the kernel does not overwrite are still in place from the last run.
    let consts_ready = consts_for == lanes;
    // Sized once for the plan's layout.
    if slots.len() < layout.size {
        slots.resize(layout.size, 0);
    }
    for (i, (r, bind)) in f.regs.iter().zip(&plan.binds).enumerate() {
        let off = layout.offsets[i] as usize;
        let per_lane = layout.per_lane[i];
        let width = r.width;
        match bind {
            Bind::Vgpr {
                reg,
                hi,
                width: read_width,
                mods,
                narrow,
            } => {
                let n = if per_lane { lanes } else { 1 };
                let plain = mods.is_plain();
                // Flushing f32 denormal inputs (the default MODE) stays on the word path.
                let ftz = mods.only_ftz32() && *read_width == 32;
                if (plain || ftz) && *read_width <= 64 {
                    let mask = mask64(width.min(narrow.unwrap_or(*read_width)));
                    let shift = if *hi { 16 } else { 0 };
                    let zeros = [0u32; LANE_SLOTS];
                    let row0 = w.vgpr_row(*reg).unwrap_or(&zeros);
                    let row1 = if *read_width > 32 {
                        w.vgpr_row(reg + 1).unwrap_or(&zeros)
                    } else {
                        &zeros
                    };
                    let dst = &mut slots[off..off + n as usize * SLOT];
                    if *read_width == 32 && shift == 0 && mask == u32::MAX as u64 {
                        // The common case: a whole 32-bit VGPR per lane.
                        for (chunk, &lo) in dst.chunks_exact_mut(SLOT).zip(row0) {
                            let lo = if ftz { super::flush_f32(lo) } else { lo };
                            chunk[..8].copy_from_slice(&(lo as u64).to_le_bytes());
                        }
                    } else {
                        for ((chunk, &lo), &hi) in dst.chunks_exact_mut(SLOT).zip(row0).zip(row1) {
                            let lo = if ftz { super::flush_f32(lo) } else { lo };
                            let x = ((lo as u64 | (hi as u64) << 32) >> shift) & mask;
                            chunk[..8].copy_from_slice(&x.to_le_bytes());
                        }
                    }
                } else {
                    for lane in 0..n {
                        let mut v =
                            apply_mods(read_vgpr_lanes(w, *reg, *hi, *read_width, lane), mods);
                        if let Some(nw) = narrow {
                            v = v.zext(*nw);
                        }
                        put_bits(
                            &mut slots,
                            off + lane as usize * SLOT,
                            width.min(v.width()),
                            &v,
                        );
                    }
                }
            }
            Bind::Const(_) if consts_ready && !r.written => {}
            Bind::Const(RegValue::Uniform(b)) if b.width() <= 64 => put_uniform(
                &mut slots,
                off,
                width.min(b.width()),
                per_lane,
                lanes,
                b.low_u64(),
            ),
            Bind::Const(v) => put_value(&mut slots, off, width, per_lane, lanes, v),
            Bind::Sgpr { code: c, width: sw } => {
                let mut x = w.read_sgpr(*c) as u64;
                if *sw > 32 {
                    x |= (w.read_sgpr(dword_code(w.arch, *c, 1)) as u64) << 32;
                }
                put_uniform(&mut slots, off, width.min(*sw), per_lane, lanes, x);
            }
            Bind::Scc => put_uniform(&mut slots, off, width, per_lane, lanes, w.scc as u64),
            Bind::Exec => put_uniform(
                &mut slots,
                off,
                width,
                per_lane,
                lanes,
                w.sgpr_pair(code::EXEC_LO),
            ),
            Bind::Unread => {}
            Bind::ByName => {
                let v = super::bind_named(w, ii, plan.dst, &r.name, width, None)
                    .unwrap_or_else(|| RegValue::Uniform(super::wave_default(w, &r.name, width)));
                put_value(&mut slots, off, width, per_lane, lanes, &v);
            }
        }
    }

    let exec = exec_at_issue & w.full_mask();
    let result = if k.uses_helpers() {
        let mut memory = super::empty_memory(&mut ex.machine, lanes);
        k.bind(&mut memory).run(&mut slots, lanes, exec)
    } else {
        k.bind(&mut crate::exec::NullMemory)
            .run(&mut slots, lanes, exec)
    };
    if let Err(err) = result {
        give_back(ex, plan, slots, 0);
        return Err(WaveError::Exec {
            addr: ii.d.addr,
            inst: ii.d.inst.name.clone(),
            message: err.to_string(),
        });
    }
    // The common results are written straight from the slots; the rest (masks, VCC/EXEC,
    // clamp/omod, 16-bit halves, wide results) through `write_back`.
    let word = |off: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&slots[off..off + 8]);
        u64::from_le_bytes(b)
    };
    let mut next = None;
    let mut general = false;
    for &(i, out) in &plan.outputs {
        let off = layout.offsets[i] as usize;
        match out {
            Out::VgprD0 { reg, width, ftz } => {
                let halves: &[(u32, u32)] = if width == 64 {
                    &[(0, 0), (1, 32)]
                } else {
                    &[(0, 0)]
                };
                let all = exec_at_issue & w.full_mask() == w.full_mask();
                for &(k, shift) in halves {
                    if let Some(row) = w.vgpr_row_mut(reg + k) {
                        let src = slots[off..off + lanes as usize * SLOT].chunks_exact(SLOT);
                        for (lane, (v, chunk)) in row.iter_mut().zip(src).enumerate() {
                            if all || exec_at_issue >> lane & 1 == 1 {
                                let mut b = [0u8; 8];
                                b.copy_from_slice(&chunk[..8]);
                                let x = (u64::from_le_bytes(b) >> shift) as u32;
                                *v = if ftz { super::flush_f32(x) } else { x };
                            }
                        }
                    }
                }
            }
            // No lane ran, and the slot holds the previous call's value: nothing to write
            // (as the interpreter; see `write_back`).
            Out::SgprD0 { .. } if per_lane_run && exec == 0 => {}
            Out::SgprD0 { code: c, width } => {
                let x = word(off);
                w.write_sgpr(c, x as u32);
                if width == 64 {
                    w.write_sgpr(dword_code(w.arch, c, 1), (x >> 32) as u32);
                }
            }
            Out::Scc => w.scc = word(off) & 1 == 1,
            Out::Pc => next = Some(word(off)),
            Out::General => general = true,
        }
    }
    if general {
        let outs = plan
            .outputs
            .iter()
            .filter(|(_, out)| *out == Out::General)
            .map(|&(i, _)| {
                let r = &f.regs[i];
                (
                    r.name.as_str(),
                    OutValue::Slot {
                        slots: &slots,
                        off: layout.offsets[i] as usize,
                        width: r.width,
                        per_lane: layout.per_lane[i],
                    },
                )
            });
        if let Some(pc) = write_back_wave(w, ii, plan.dst, exec_at_issue, outs, plan.wb) {
            next = Some(pc);
        }
    }
    give_back(ex, plan, slots, lanes);
    Ok(next)
}

/// Returns a slot buffer to the plan it belongs to (constants valid for `lanes` lanes) or to
/// the scratch buffer.
fn give_back(ex: &mut Executor, plan: &Plan, slots: Vec<u8>, lanes: u32) {
    match plan.index {
        Some(i) => ex.plan_slots[i] = (slots, lanes),
        None => ex.scratch_slots = slots,
    }
}
