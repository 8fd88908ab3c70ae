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
//!
//! Files: `operands.rs` (sources, modifiers, registers bound by name), `writeback.rs`
//! (results into the wave), `plan.rs` (the per-instruction binding plan of the fast path),
//! `bound.rs` (the interpreter's fast path), `slots.rs` (the JIT's), `block.rs` (plans
//! lowered for the block compiler), `mods.rs`, `clamp.rs`; this file holds the general path
//! (`execute`) and the per-instruction facts (`Inst`) the others share. The decoding that
//! needs no register values (source fields, modifiers, destinations) is `wave::decode`,
//! shared with the symbolic executor.

use crate::exec::Machine;
use crate::interp::RegValue;
use crate::spec::Arch;
use crate::value::Bits;

use super::state::{code, WaveState};

pub(super) mod block;
mod bound;
mod clamp;
pub(crate) mod domain;
mod mods;
pub(crate) mod operands;
mod plan;
mod prepared;
mod slots;
pub(crate) mod writeback;

use super::decode::{dest, Dest};
use super::{Decoded, Entry, Executor, WaveError};
use bound::empty_memory;
pub(super) use bound::execute_bound;
use mods::{apply_mods, flush_f32};
use operands::{bind_named, read_vgpr_lanes, wave_default};
pub(super) use plan::{fast_path, plan, Plan};
use plan::{write_back_info, Bind, Out};
use writeback::{write_back_wave, OutValue};

/// Where a source operand's value comes from.
#[derive(Clone, Debug)]
pub(crate) enum Src<V = Bits> {
    /// One value for the wave.
    Uniform(V),
    /// A VGPR (first register), read per lane; `hi` reads the upper 16-bit half.
    Vgpr { reg: u32, hi: bool },
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

impl super::decode::Facts for Inst<'_> {
    fn decoded(&self) -> &Decoded {
        self.d
    }
    fn entry_inst(&self) -> &crate::spec::Instruction {
        &self.e.inst
    }
    fn text(&self) -> &crate::ir::Function {
        &self.e.prepared.function
    }
    fn mode(&self) -> u32 {
        self.mode
    }
    fn arch(&self) -> Arch {
        self.arch
    }
}

impl domain::Step for Inst<'_> {
    fn prepared(&self) -> &crate::exec::Prepared {
        &self.e.prepared
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
    if super::memory::is_memory(&d.facts) {
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
    // s_getreg/s_setreg: MODE is the wave's MODE register, the clock registers read the
    // instruction count (`wave::native`); other hardware registers read as zero and keep
    // nothing written to them.
    if e.hwreg_space {
        m.hwreg.insert(super::native::HW_REG_MODE, w.mode);
        for (id, v) in super::native::clock_hwregs(w.arch, w.retired) {
            m.hwreg.insert(id, v);
        }
    }
    let result = match e.kernel() {
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
    if e.hwreg_space {
        if let Some(&mode) = m.hwreg.get(&super::native::HW_REG_MODE) {
            w.mode = mode;
        }
    }
    let outs = outputs
        .values
        .iter()
        .map(|(n, v)| (n.as_str(), OutValue::Reg(v)));
    let new_pc = write_back_wave(w, &ii, dst, exec_at_issue, outs, write_back_info(&ii));
    ex.machine = m;
    Ok(new_pc)
}

/// The modifier field a register of the text names: `INST.OMOD` (CDNA's V_BITOP3_* read
/// their truth table from the OMOD, ABS and NEG fields this way) is the field `OMOD`.
pub(super) fn inst_field_name(name: &str) -> &str {
    name.strip_prefix("INST.").unwrap_or(name)
}
