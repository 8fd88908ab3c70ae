//! Wave states reused across the workgroups of a dispatcher, so a wave's set-up does not
//! allocate and zero a whole vector register file (64 KiB, 128 KiB on CDNA) each time.
//!
//! The states stay in the pool while their workgroup runs (a state is a few hundred bytes
//! besides its register files, so moving it per wave costs more than running its
//! instructions); a reused state is reset to what `WaveState::new` gives, zeroing only the VGPR rows a
//! program can have written: every row named by an operand of the decoded program, and every
//! row the kernel's COMPUTE_PGM_RSRC1 allocates. A program that addresses the register file
//! relative to M0 (`v_movrel*`, `s_set_gpr_idx_*`) or names AGPRs gets the whole file. Each
//! pooled state remembers the bound of the program that last ran on it, and a reset zeroes
//! up to the larger of that and the new one, so rows past the bound are always zero and a
//! reused state equals a new one.

use crate::isa::{Reg, Value};
use crate::spec::Arch;
use crate::wave::{vgpr_rows, Program, WaveState};

/// The wave states of the running workgroup, kept (in place, never moved) for the next.
#[derive(Default)]
pub(super) struct WavePool {
    /// Each state and the VGPR rows it may have written.
    states: Vec<(WaveState, usize)>,
}

impl WavePool {
    /// `n` states, each equal to `WaveState::new(arch, wave_size)`, for a program whose VGPR
    /// rows stay below `rows`.
    pub(super) fn take(
        &mut self,
        arch: Arch,
        wave_size: u32,
        rows: usize,
        n: usize,
    ) -> &mut [(WaveState, usize)] {
        if self.states.len() < n {
            self.states
                .resize_with(n, || (WaveState::new(arch, wave_size), 0));
        }
        for (w, dirty) in &mut self.states[..n] {
            if w.arch == arch {
                w.reset(wave_size, (*dirty).max(rows));
            } else {
                *w = WaveState::new(arch, wave_size);
            }
            // Rows past `rows` are zero now; the program may write those below.
            *dirty = rows;
        }
        &mut self.states[..n]
    }

    /// The first `n` states (as the last [`WavePool::take`] left them).
    pub(super) fn states_mut(&mut self, n: usize) -> &mut [(WaveState, usize)] {
        &mut self.states[..n]
    }
}

/// The VGPR rows (`vgpr[row * 64 + lane]`) that `program` may write, with RSRC1's
/// granulated VGPR count (blocks of 8 registers counted, the larger granule of any arch).
pub(super) fn vgpr_rows_bound(program: &Program, arch: Arch, rsrc1: u32) -> usize {
    let all = vgpr_rows(arch);
    let mut rows = ((rsrc1 & 0x3f) as usize + 1) * 8;
    for d in program.insts() {
        let name = d.inst.name.as_str();
        if d.as_encoded.is_some() || name.contains("MOVREL") || name.contains("GPR_IDX") {
            return all;
        }
        // A compare's VOP3 destination field names scalar registers (the decoder shows the
        // field's raw code as a VGPR number): compares write no VGPR.
        let compare = name.starts_with("V_CMP");
        for o in &d.inst.operands {
            if compare && o.field == "vdst" {
                continue;
            }
            match o.value {
                Value::Reg(Reg::Vgpr { index, count }) => {
                    rows = rows.max(index as usize + count.max(1) as usize);
                }
                Value::Reg(Reg::Agpr { .. }) => return all,
                _ => {}
            }
        }
    }
    rows.min(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reused_state_equals_a_new_one() {
        for arch in [Arch::Rdna3, Arch::Cdna] {
            let mut pool = WavePool::default();
            let (w, _) = &mut pool.take(arch, 64, 12, 1)[0];
            w.write_sgpr(5, 7);
            w.scc = true;
            w.pc = 0x40;
            w.mode = 0;
            w.set_exec(3);
            for lane in 0..64 {
                w.set_vgpr(lane, 11, 0xdead);
                w.set_vgpr(lane, 0, lane);
            }
            w.memory.write(0x1000, &[1, 2, 3]);
            w.lds.write(0, &[4]);
            w.scratch.write(8, &[5]);
            w.written.insert(1, 2);
            w.track_writes = false;
            // A later program with a smaller bound still gets rows 0..12 zeroed.
            let states = pool.take(arch, 32, 4, 2);
            assert!(states[0].0 == WaveState::new(arch, 32), "{arch:?}");
            assert!(states[1].0 == WaveState::new(arch, 32), "{arch:?}");
            assert_eq!((states[0].1, states[1].1), (4, 4));
            // A state of another arch is replaced.
            let other = if arch == Arch::Cdna {
                Arch::Rdna3
            } else {
                Arch::Cdna
            };
            let states = pool.take(other, 64, 4, 1);
            assert!(states[0].0 == WaveState::new(other, 64), "{other:?}");
            assert_eq!(pool.states.len(), 2);
        }
    }
}
