//! The interpreter's bound fast path: registers filled by index from the wave, the
//! optimised IR run, results written back by their prepared `Out` kinds.

use crate::exec::Machine;
use crate::interp::RegValue;

use super::operands::fit_value;
use super::plan::{bind_value, Out, Plan};
use super::writeback::{first, write_back_wave, write_sgpr_d0, write_vgpr_d0, OutValue};
use super::{slots, Entry, Executor, Inst, WaveError};
use crate::wave::state::WaveState;
use crate::wave::Decoded;

/// The executor's scratch machine emptied, as the memory of a fast-path instruction (which
/// addresses no register file: at most hardware registers, which read as zero).
pub(super) fn empty_memory(m: &mut Machine, lanes: u32) -> impl crate::interp::Memory + '_ {
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
pub(in crate::wave) fn execute_bound(
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
    if let Some(k) = e.kernel() {
        return slots::execute(ex, k, ii, plan, w);
    }
    if let Some(c) = e.compiled.as_ref().filter(|_| ex.prepared_interp) {
        if let Some(next) = super::prepared::execute(ex, e, c, plan, ii, w)? {
            return Ok(next);
        }
    }
    let dst = plan.dst;
    let p = &e.prepared;
    let f = &p.function;
    let lanes = w.wave_size;
    let exec_at_issue = w.exec();
    let mut regs: Vec<RegValue> = Vec::with_capacity(f.regs.len());
    for ((r, &per_lane), bind) in f.regs.iter().zip(&p.per_lane).zip(&plan.binds) {
        let v = bind_value(w, ii, dst, r, bind);
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
                write_vgpr_d0(w, (reg, width, ftz), exec_at_issue, |lane| match v {
                    RegValue::Uniform(b) => b.low_u64(),
                    RegValue::Lanes(l) => l[lane as usize].low_u64(),
                });
            }
            // No lane ran: nothing to write (see `write_back`).
            Out::SgprD0 { .. } if p.vector && !p.wave_level && exec == 0 => {}
            Out::SgprD0 { code: c, width } => write_sgpr_d0(w, c, width, first(v).low_u64()),
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
        if let Some(pc) = write_back_wave(w, ii, dst, exec_at_issue, outs, plan.wb) {
            next = Some(pc);
        }
    }
    Ok(next)
}
