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
//! reused state equals a new one. The same holds for lanes: a wave writes only the lanes
//! below its size (every write is under EXEC), so a wave32 program zeroes lanes 0..32 of its
//! rows, unless it has an instruction that names a lane itself (`*LANE*`: `v_writelane`,
//! `v_permlane*`), which gets all 64 lane slots.

use crate::isa::{Reg, Value};
use crate::machine::{Branch, Control};
use crate::spec::Arch;
use crate::wave::{vgpr_rows, Program, WaveState, LANE_SLOTS};

/// The VGPR slots a program may write: lane slots below `lanes` of the rows below `rows`
/// (`vgpr[row * 64 + lane]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Dirty {
    pub rows: usize,
    pub lanes: usize,
}

impl Dirty {
    /// The slots of both.
    pub fn max(self, other: Dirty) -> Dirty {
        Dirty {
            rows: self.rows.max(other.rows),
            lanes: self.lanes.max(other.lanes),
        }
    }
}

/// The wave states of the running workgroup, kept (in place, never moved) for the next.
#[derive(Default)]
pub(super) struct WavePool {
    /// Each state and the VGPR slots it may have written.
    states: Vec<(WaveState, Dirty)>,
}

impl WavePool {
    /// At least `n` states (new ones equal to `WaveState::new(arch, wave_size)`), as the last
    /// use left them: [`reset`] one before a wave starts on it.
    pub(super) fn states(
        &mut self,
        arch: Arch,
        wave_size: u32,
        n: usize,
    ) -> &mut [(WaveState, Dirty)] {
        if self.states.len() < n {
            self.states
                .resize_with(n, || (WaveState::new(arch, wave_size), Dirty::default()));
        }
        &mut self.states[..n]
    }

    /// `n` states, each reset for a program that writes only the slots of `bound`.
    #[cfg(test)]
    fn take(
        &mut self,
        arch: Arch,
        wave_size: u32,
        bound: Dirty,
        n: usize,
    ) -> &mut [(WaveState, Dirty)] {
        let states = self.states(arch, wave_size, n);
        for (w, dirty) in states.iter_mut() {
            reset(w, dirty, arch, wave_size, bound);
        }
        states
    }
}

/// Makes pooled state `w` (which may have written the slots of `dirty`) equal to
/// `WaveState::new(arch, wave_size)`, for a program that writes only the slots of `bound`.
pub(super) fn reset(
    w: &mut WaveState,
    dirty: &mut Dirty,
    arch: Arch,
    wave_size: u32,
    bound: Dirty,
) {
    if w.arch == arch {
        let zero = dirty.max(bound);
        w.reset(wave_size, zero.rows, zero.lanes);
    } else {
        *w = WaveState::new(arch, wave_size);
    }
    // Slots outside `bound` are zero now; the program may write those inside.
    *dirty = bound;
}

/// The VGPR slots that `program`, run as waves of `wave_size` lanes, may write: the rows of
/// RSRC1's granulated VGPR count (blocks of 8 registers counted, the larger granule of any
/// arch) and of every VGPR operand, and the lanes below `wave_size`.
pub(super) fn vgpr_bound(
    program: &Program,
    entry: Option<u64>,
    arch: Arch,
    rsrc1: u32,
    wave_size: u32,
) -> Dirty {
    let all = Dirty {
        rows: vgpr_rows(arch),
        lanes: LANE_SLOTS,
    };
    let mut lanes = (wave_size as usize).min(LANE_SLOTS);
    let mut rows = ((rsrc1 & 0x3f) as usize + 1) * 8;
    let reached = entry.and_then(|e| reachable(program, e));
    let insts = program.insts().iter().enumerate();
    for (_, d) in insts.filter(|(i, _)| reached.as_ref().is_none_or(|r| r[*i])) {
        if d.as_encoded.is_some() || d.facts.relative_regs {
            return all;
        }
        if d.facts.cross_lane {
            lanes = LANE_SLOTS;
        }
        // A compare's VOP3 destination field names scalar registers (the decoder shows the
        // field's raw code as a VGPR number): compares write no VGPR.
        let compare = d.facts.compare;
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
    Dirty {
        rows: rows.min(all.rows),
        lanes,
    }
}

/// The instructions a wave entering at `entry` can reach, following fall-through and the
/// relative branches (`s_branch`, `s_cbranch_*`, `s_call_b64`, subvector loops) from it, or
/// `None` (every instruction may run) when one jumps to a computed address (`s_setpc`,
/// `s_swappc`, `s_rfe`, fork/join) or a branch lands where no instruction starts. A code
/// object holds every kernel of its source: the others' registers need no zeroing.
fn reachable(program: &Program, entry: u64) -> Option<Vec<bool>> {
    let insts = program.insts();
    let mut seen = vec![false; insts.len()];
    let mut todo = vec![program.position(entry)?];
    while let Some(i) = todo.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        let d = &insts[i];
        let next = d.addr.wrapping_add(d.size as u64);
        let relative = || {
            let simm = d.inst.field("simm16").unwrap_or(0) as u16 as i16 as i64;
            program.position(d.addr.wrapping_add(4).wrapping_add((simm * 4) as u64))
        };
        let (target, falls) = match d.facts.branch {
            Branch::Indirect => return None,
            _ if d.facts.control == Control::End => (None, false),
            Branch::Jump => (Some(relative()?), false),
            Branch::Conditional | Branch::Call | Branch::SubvectorLoop => (Some(relative()?), true),
            Branch::None => (None, true),
        };
        todo.extend(target);
        if falls {
            // Running off the end stops the wave (`PcOutOfProgram`).
            todo.extend(program.position(next));
        }
    }
    Some(seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(rows: usize, lanes: usize) -> Dirty {
        Dirty { rows, lanes }
    }

    #[test]
    fn a_reused_state_equals_a_new_one() {
        for arch in [Arch::Rdna3, Arch::Cdna] {
            let mut pool = WavePool::default();
            let (w, _) = &mut pool.take(arch, 64, slots(12, 64), 1)[0];
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
            // A later program with a smaller bound still gets rows 0..12, lanes 0..64 zeroed.
            let states = pool.take(arch, 32, slots(4, 32), 2);
            assert!(states[0].0 == WaveState::new(arch, 32), "{arch:?}");
            assert!(states[1].0 == WaveState::new(arch, 32), "{arch:?}");
            assert_eq!((states[0].1, states[1].1), (slots(4, 32), slots(4, 32)));
            // A wave32 program zeroes only lanes 0..32 of its rows: lane 40 stays as written.
            let (w, _) = &mut pool.take(arch, 32, slots(4, 32), 1)[0];
            w.set_vgpr(3, 2, 9);
            w.set_vgpr(40, 2, 9);
            let (w, _) = &mut pool.take(arch, 32, slots(4, 32), 1)[0];
            assert_eq!((w.vgpr(3, 2), w.vgpr(40, 2)), (0, 9));
            w.set_vgpr(40, 2, 0);
            // A state of another arch is replaced.
            let other = if arch.is_gfx9() {
                Arch::Rdna3
            } else {
                Arch::Cdna
            };
            let states = pool.take(other, 64, slots(4, 64), 1);
            assert!(states[0].0 == WaveState::new(other, 64), "{other:?}");
            assert_eq!(pool.states.len(), 2);
        }
    }
}
