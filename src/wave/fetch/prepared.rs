//! The interpreter's prepared fast path: operands go from the wave straight into the
//! register slots of the entry's compiled form (`interp::compiled`), the lanes run over
//! them, and results go from the slots straight back by their prepared `Out` kinds. Same
//! bindings and write-back as the tree walk of `bound.rs`, without per-lane `RegValue`
//! vectors or name lookups.

use crate::interp::compiled::{Compiled, Stop};
use crate::interp::RegValue;
use crate::value::{mask64, Bits};

use super::mods::{apply_mods, flush_f32};
use super::operands::{fit_value, read_vgpr_lanes};
use super::plan::{Bind, Out, Plan};
use super::writeback::{write_back_wave, write_sgpr_d0, write_vgpr_d0, OutValue};
use super::{Entry, Executor, Inst, WaveError};
use crate::wave::state::{code, dword_code, WaveState};

/// Writes `v` into register `i`'s slots: every lane of a per-lane register, else its one slot.
fn fill(slots: &mut [u64], c: &Compiled, i: usize, per_lane: bool, lanes: u32, v: u64) {
    let base = c.slot(i, 0);
    let n = if per_lane { lanes as usize } else { 1 };
    slots[base..base + n].fill(v);
}

/// Runs a fast-path instruction on its compiled form. `Ok(None)`: the compiled form
/// diverged from the tree walk (`Stop::Diverged`); nothing was written, run the tree walk.
pub(super) fn execute(
    ex: &mut Executor,
    e: &Entry,
    c: &Compiled,
    plan: &Plan,
    ii: &Inst<'_>,
    w: &mut WaveState,
) -> Result<Option<Option<u64>>, WaveError> {
    let p = &e.prepared;
    let f = &p.function;
    let lanes = w.wave_size;
    let exec_at_issue = w.exec();
    // Every slot a run reads is written below (lanes past the wave's are never read).
    let slots = &mut ex.interp_slots;
    if slots.len() < c.n_slots() {
        slots.resize(c.n_slots(), 0);
    }
    for (i, ((r, &per_lane), bind)) in f.regs.iter().zip(&p.per_lane).zip(&plan.binds).enumerate() {
        let m = mask64(r.width);
        match bind {
            Bind::Vgpr {
                reg,
                hi,
                width,
                mods,
                narrow,
            } if *width <= 64 => {
                let base = c.slot(i, 0);
                let n = if per_lane { lanes } else { 1 };
                let ftz32 = mods.only_ftz32() && *width == 32;
                let direct = mods.is_plain() || ftz32;
                let keep = m & narrow.map_or(u64::MAX, mask64);
                let wm = mask64(*width);
                let shift = if *hi { 16 } else { 0 };
                // Plain operands are read straight from the VGPR rows.
                let rows = (w.vgpr_row(*reg), w.vgpr_row(reg + 1));
                match (direct, rows) {
                    (true, (Some(lo), _)) if *width <= 32 => {
                        let dst = &mut slots[base..base + n as usize];
                        for (d, &x) in dst.iter_mut().zip(lo) {
                            let x = (x as u64 >> shift) & wm;
                            let x = if ftz32 { flush_f32(x as u32) as u64 } else { x };
                            *d = x & keep;
                        }
                    }
                    (true, (Some(lo), Some(hi_row))) => {
                        let dst = &mut slots[base..base + n as usize];
                        for ((d, &x), &y) in dst.iter_mut().zip(lo).zip(hi_row) {
                            *d = ((x as u64 | (y as u64) << 32) >> shift) & wm & keep;
                        }
                    }
                    _ => {
                        for lane in 0..n {
                            let v = apply_mods(read_vgpr_lanes(w, *reg, *hi, *width, lane), mods);
                            slots[base + lane as usize] = v.low_u64() & keep;
                        }
                    }
                }
            }
            Bind::Const(RegValue::Uniform(b)) => {
                fill(slots, c, i, per_lane, lanes, b.low_u64() & m);
            }
            Bind::Sgpr { code, width } => {
                let mut x = w.read_sgpr(*code) as u64;
                if *width > 32 {
                    x |= (w.read_sgpr(dword_code(w.arch, *code, 1)) as u64) << 32;
                }
                fill(slots, c, i, per_lane, lanes, x & mask64(*width) & m);
            }
            Bind::Scc => fill(slots, c, i, per_lane, lanes, w.scc as u64 & m),
            Bind::Exec => {
                let x = w.sgpr_pair(code::EXEC_LO) & m;
                fill(slots, c, i, per_lane, lanes, x);
            }
            // A per-lane D0 written straight to its VGPR is read back only in the lanes that
            // ran, which assigned it in full: its slots need no initial value.
            Bind::Unread
                if per_lane
                    && plan
                        .outputs
                        .iter()
                        .any(|&(j, out)| j == i && matches!(out, Out::VgprD0 { .. })) => {}
            Bind::Unread => fill(slots, c, i, per_lane, lanes, 0),
            _ => {
                let v = super::plan::bind_value(w, ii, plan.dst, r, bind);
                match fit_value(v, per_lane, r.width, lanes) {
                    RegValue::Uniform(b) => fill(slots, c, i, per_lane, lanes, b.low_u64() & m),
                    RegValue::Lanes(l) => {
                        for (lane, b) in (0..lanes).zip(&l) {
                            slots[c.slot(i, lane)] = b.low_u64() & m;
                        }
                    }
                }
            }
        }
    }

    let exec = exec_at_issue & w.full_mask();
    let run = if p.vector && !p.wave_level { exec } else { 1 };
    let ran = if ex.lane_interp {
        c.run_wave(slots, run, &mut ex.interp_scratch)
    } else {
        c.run_lanes(slots, run, &mut ex.interp_scratch)
    };
    match ran {
        Ok(()) => {}
        Err(Stop::Diverged) => return Ok(None),
        Err(Stop::Fault(err)) => {
            return Err(WaveError::Exec {
                addr: ii.d.addr,
                inst: ii.d.inst.name.clone(),
                message: err.to_string(),
            });
        }
    }
    // The common results go straight into the wave; the rest through `write_back`.
    let mut next = None;
    let mut general = false;
    for &(i, out) in &plan.outputs {
        match out {
            Out::VgprD0 { reg, width, ftz } => {
                let (base, pl) = (c.slot(i, 0), p.per_lane[i]);
                write_vgpr_d0(w, (reg, width, ftz), exec_at_issue, |lane| {
                    slots[base + if pl { lane as usize } else { 0 }]
                });
            }
            // No lane ran: nothing to write (see `write_back`).
            Out::SgprD0 { .. } if p.vector && !p.wave_level && exec == 0 => {}
            Out::SgprD0 { code: sc, width } => write_sgpr_d0(w, sc, width, slots[c.slot(i, 0)]),
            Out::Scc => w.scc = slots[c.slot(i, 0)] & 1 == 1,
            Out::Pc => next = Some(slots[c.slot(i, 0)]),
            Out::General => general = true,
        }
    }
    if general {
        let values: Vec<(usize, RegValue)> = plan
            .outputs
            .iter()
            .filter(|(_, out)| *out == Out::General)
            .map(|&(i, _)| {
                let width = f.regs[i].width;
                let v = if p.per_lane[i] {
                    RegValue::Lanes(
                        (0..lanes)
                            .map(|lane| Bits::from_u64(width, slots[c.slot(i, lane)]))
                            .collect(),
                    )
                } else {
                    RegValue::Uniform(Bits::from_u64(width, slots[c.slot(i, 0)]))
                };
                (i, v)
            })
            .collect();
        let outs = values
            .iter()
            .map(|(i, v)| (f.regs[*i].name.as_str(), OutValue::Reg(v)));
        if let Some(pc) = write_back_wave(w, ii, plan.dst, exec_at_issue, outs, plan.wb) {
            next = Some(pc);
        }
    }
    Ok(Some(next))
}
