//! Wave states reused across the workgroups of a dispatcher, so a wave's set-up does not
//! allocate and zero a whole vector register file (64 KiB, 128 KiB on CDNA) each time.
//!
//! A reused state is reset to what `WaveState::new` gives, zeroing only the VGPR rows a
//! program can have written: every row named by an operand of the decoded program, and every
//! row the kernel's COMPUTE_PGM_RSRC1 allocates. A program that addresses the register file
//! relative to M0 (`v_movrel*`, `s_set_gpr_idx_*`) or names AGPRs gets the whole file. Each
//! pooled state remembers the bound of the program that last ran on it, and a reset zeroes
//! up to the larger of that and the new one, so rows past the bound are always zero and a
//! reused state equals a new one.

use crate::isa::{Reg, Value};
use crate::spec::Arch;
use crate::wave::{vgpr_rows, Program, WaveState};

/// Idle wave states with the VGPR rows each may have written.
#[derive(Default)]
pub(super) struct WavePool {
    free: Vec<(WaveState, usize)>,
}

impl WavePool {
    /// A state equal to `WaveState::new(arch, wave_size)` for a program whose VGPR rows
    /// stay below `rows`.
    pub(super) fn take(&mut self, arch: Arch, wave_size: u32, rows: usize) -> WaveState {
        while let Some((mut w, dirty)) = self.free.pop() {
            if w.arch == arch {
                w.reset(wave_size, dirty.max(rows));
                return w;
            }
        }
        WaveState::new(arch, wave_size)
    }

    /// Returns `w`, on which a program with VGPR bound `rows` ran, to the pool.
    pub(super) fn give(&mut self, w: WaveState, rows: usize) {
        // A workgroup has at most 1,024 work-items: 32 waves of 32.
        if self.free.len() < 32 {
            self.free.push((w, rows));
        }
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
            let mut w = pool.take(arch, 64, 12);
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
            pool.give(w, 12);
            // A later program with a smaller bound still gets rows 0..12 zeroed.
            let w = pool.take(arch, 32, 4);
            assert!(w == WaveState::new(arch, 32), "{arch:?}");
            assert!(pool.free.is_empty());
        }
    }
}
