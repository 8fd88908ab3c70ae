//! Workgroups of one launch on several threads.
//!
//! The workgroups of a launch are cut into contiguous runs in the schedule's order (x fastest,
//! then y, z), one run per thread. Every thread runs its run on its own dispatcher (its own
//! executor, JIT kernels, wave pool and LDS) and on its own copy of the launch's global memory
//! as it was before any workgroup ran. When all are done, the bytes each thread changed (its
//! copy against the memory before the run) are written into the launch's memory, thread after
//! thread in workgroup order, so where two runs wrote one byte the later workgroup's value
//! stays, as when one thread runs them in order.
//!
//! A workgroup of a race-free kernel never reads bytes another workgroup of the launch writes
//! (nothing orders workgroups but atomics), so it computes the same on its copy as in the
//! one-thread schedule, and the merged memory is the one-thread result. Atomics on global
//! memory are the exception — they order workgroups by the memory itself — so a launch whose
//! code has any (global, flat, buffer or scalar atomics, GWS) runs on one thread, as do
//! traced launches (the trace follows the one-thread schedule), launches with
//! `"unmapped": "zero"` (they record every written byte) and launches too small to gain.
//!
//! A fault stops the thread that hit it; the launch reports the fault of the earliest
//! workgroup in schedule order, the one the one-thread schedule would have stopped at
//! (later runs may have faulted too, or not: their outcome is dropped either way).

use std::collections::BTreeMap;

use super::{DispatchError, Dispatcher, Outcome, Prepared};
use crate::sparse::SparseMemory;
use crate::wave::{Executor, Program};

/// Fewer waves than this in a launch run on one thread: starting threads, copying the memory
/// and merging it back would cost more than the waves.
pub(super) const MIN_WAVES: u64 = 64;

/// A dispatcher of another thread. Each thread of a parallel launch borrows one exclusively.
pub(super) struct Worker(pub(super) Dispatcher);

// SAFETY: a dispatcher's reference-counted values (the executor's entries and plans, the JIT
// handle its entries share) are created by that dispatcher and referenced only from it; no
// `Rc` in it is shared with another dispatcher or with anything outside it. Moving the whole
// dispatcher (or handing out the only `&mut` to it) to another thread moves every owner of each
// count together, so no count is ever touched from two threads. The JIT's code and data live
// in memory the dispatcher owns.
unsafe impl Send for Worker {}

/// Whether `program` has an instruction whose result depends on other workgroups through
/// memory: atomics outside LDS, and the global wave sync.
pub(super) fn orders_workgroups(program: &Program) -> bool {
    use crate::machine::{facts::Refusal, MemKind};
    program.insts().iter().any(|d| {
        let f = &d.facts;
        f.atomic && f.mem != MemKind::Lds || f.refusal == Some(Refusal::GlobalWaveSync)
    })
}

/// Copies the options callers set on an executor (budget, tiering, blocks, fast paths).
pub(super) fn copy_options(from: &Executor, to: &mut Executor) {
    to.step_budget = from.step_budget;
    to.block_compile = from.block_compile;
    to.block_threshold = from.block_threshold;
    to.jit_threshold = from.jit_threshold;
    to.memory_fast_path = from.memory_fast_path;
    to.prepared_interp = from.prepared_interp;
    to.lane_interp = from.lane_interp;
}

/// The workgroup of linear index `i` (x fastest, then y, z).
pub(super) fn workgroup_at(grid: [u32; 3], i: u64) -> [u32; 3] {
    let (gx, gy) = (grid[0] as u64, grid[1] as u64);
    [
        (i % gx) as u32,
        ((i / gx) % gy) as u32,
        (i / (gx * gy)) as u32,
    ]
}

/// What one thread's run of workgroups did.
pub(super) struct Part {
    /// The counts (waves, workgroups, instructions, lane operations).
    pub(super) outcome: Outcome,
    /// The bytes the run changed, as (address, bytes) runs.
    pub(super) changed: Vec<(u64, Vec<u8>)>,
    /// The first fault, with the linear index of its workgroup.
    pub(super) fault: Option<(u64, DispatchError)>,
}

impl Dispatcher {
    /// Runs workgroups `first..end` (linear indices) of `p` on `memory`, a copy of the launch's
    /// memory before any workgroup ran, and reports the bytes changed against `before`.
    pub(super) fn run_part(
        &mut self,
        p: &mut Prepared,
        first: u64,
        end: u64,
        mut memory: SparseMemory,
        before: &SparseMemory,
    ) -> Part {
        let lane_ops = self.executor.lane_ops;
        let mut out = Outcome::default();
        let mut written = BTreeMap::new();
        let mut fault = None;
        memory.watch_writes(p.program.base, p.program.size);
        for i in first..end {
            let wg = workgroup_at(p.grid, i);
            if let Err(e) = self.run_workgroup(p, wg, &mut memory, &mut written, &mut out, None) {
                fault = Some((i, e));
                break;
            }
        }
        out.lane_ops = self.executor.lane_ops - lane_ops;
        let changed = if fault.is_some() {
            Vec::new()
        } else {
            changed_bytes(&memory, before)
        };
        self.spare_pages.reuse_pages_of(memory);
        Part {
            outcome: out,
            changed,
            fault,
        }
    }
}

/// The bytes of `after` that differ from `before`, as runs of consecutive bytes.
fn changed_bytes(after: &SparseMemory, before: &SparseMemory) -> Vec<(u64, Vec<u8>)> {
    let mut runs: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut old = Vec::new();
    for (addr, bytes) in after.pages() {
        old.resize(bytes.len(), 0);
        before.read(addr, &mut old);
        if old.as_slice() == bytes {
            continue;
        }
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == old[i] {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && bytes[i] != old[i] {
                i += 1;
            }
            let a = addr + start as u64;
            match runs.last_mut() {
                Some((s, run)) if *s + run.len() as u64 == a => {
                    run.extend_from_slice(&bytes[start..i]);
                }
                _ => runs.push((a, bytes[start..i].to_vec())),
            }
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workgroups_in_schedule_order_x_fastest() {
        let grid = [3, 2, 2];
        let all: Vec<[u32; 3]> = (0..12).map(|i| workgroup_at(grid, i)).collect();
        assert_eq!(all[0], [0, 0, 0]);
        assert_eq!(all[1], [1, 0, 0]);
        assert_eq!(all[3], [0, 1, 0]);
        assert_eq!(all[5], [2, 1, 0]);
        assert_eq!(all[6], [0, 0, 1]);
        assert_eq!(all[11], [2, 1, 1]);
    }

    #[test]
    fn changed_bytes_are_the_differing_runs() {
        let mut before = SparseMemory::new();
        before.write(0x1000, &[1, 2, 3, 4, 5, 6, 7, 8]);
        let mut after = before.clone();
        after.write(0x1001, &[9, 9]);
        after.write(0x1006, &[7, 0]); // byte 0x1006 unchanged, 0x1007 changed
        after.write(0x3000, &[0, 5]); // a new page: only the non-zero byte differs
        let mut runs = changed_bytes(&after, &before);
        runs.sort();
        assert_eq!(
            runs,
            vec![(0x1001, vec![9, 9]), (0x1007, vec![0]), (0x3001, vec![5])]
        );
    }
}
