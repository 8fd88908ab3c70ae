//! Workgroups of one launch on several threads.
//!
//! The workgroups of a launch are cut into contiguous runs in the schedule's order (x fastest,
//! then y, z), one run per thread. Every thread runs its run on its own dispatcher (its own
//! executor, JIT kernels, wave pool and LDS) and on its own view of the launch's global memory
//! as it was before any workgroup ran ([`SparseMemory::over`]: reads go to the shared memory,
//! and the first write to a page copies that page in, so a thread copies only the pages it
//! writes). When all are done, the bytes each thread changed (its written pages against the
//! memory before the run) are written into the launch's memory, thread after
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
use std::sync::Arc;

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
    /// The pieces of memory the run changed (`changed_pieces`).
    pub(super) changed: Vec<Changed>,
    /// The first fault, with the linear index of its workgroup.
    pub(super) fault: Option<(u64, DispatchError)>,
}

impl Dispatcher {
    /// The threads launch `p` runs on: 1 unless its workgroups may run in parallel and are
    /// enough to gain (`parallel.rs`).
    pub(super) fn threads_for(&self, p: &Prepared, traced: bool) -> usize {
        let groups = p.grid.iter().map(|&g| g as u64).product::<u64>();
        let per_group = p.block.iter().map(|&b| b as u64).product::<u64>();
        let waves = groups.saturating_mul(per_group.div_ceil(p.wave_size as u64));
        if self.threads < 2
            || traced
            || groups < 2
            || p.bounds.is_none()
            || waves < MIN_WAVES
            || orders_workgroups(&p.program)
        {
            return 1;
        }
        self.threads.min(groups as usize)
    }

    /// Runs the workgroups of `p` on `threads` threads, each on its own copy of `global`,
    /// and writes the bytes each changed into `global` in workgroup order (`parallel.rs`).
    pub(super) fn run_parallel(
        &mut self,
        p: &mut Prepared,
        global: &mut SparseMemory,
        threads: usize,
        out: &mut Outcome,
    ) -> Result<(), DispatchError> {
        let groups = p.grid.iter().map(|&g| g as u64).product::<u64>();
        let mut workers = std::mem::take(&mut self.workers);
        while workers.len() < threads - 1 {
            let d = Dispatcher::new(&self.executor.db().clone(), self.executor.engine())
                .map_err(|e| DispatchError::Launch(format!("threads: {e}")))?;
            workers.push(Worker(d));
        }
        for w in &mut workers {
            copy_options(&self.executor, &mut w.0.executor);
        }
        let cut: Vec<u64> = (0..=threads)
            .map(|t| groups * t as u64 / threads as u64)
            .collect();
        // The memory before the run, shared read-only by every thread while they run.
        let base = Arc::new(std::mem::take(global));
        let before: &Arc<SparseMemory> = &base;
        let shared: &Prepared = p;
        let mut mine = shared.clone();
        let parts = std::thread::scope(|s| {
            let handles: Vec<_> = workers[..threads - 1]
                .iter_mut()
                .enumerate()
                .map(|(k, w)| {
                    let (first, end) = (cut[k + 1], cut[k + 2]);
                    let mut theirs = shared.clone();
                    let memory = SparseMemory::over(before.clone());
                    s.spawn(move || w.0.run_part(&mut theirs, first, end, memory, before))
                })
                .collect();
            let memory = SparseMemory::over(before.clone());
            let mut parts = vec![self.run_part(&mut mine, cut[0], cut[1], memory, before)];
            for h in handles {
                parts.push(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
            }
            parts
        });
        self.workers = workers;
        // Every view is gone with its thread's part: the memory is the only owner again.
        *global = Arc::try_unwrap(base).unwrap_or_else(|b| (*b).clone());
        let mut fault = None;
        for part in parts {
            out.waves += part.outcome.waves;
            out.workgroups += part.outcome.workgroups;
            out.instructions += part.outcome.instructions;
            out.lane_ops += part.outcome.lane_ops;
            if let Some(f) = part.fault {
                fault = fault.or(Some(f));
            }
            apply(global, &part.changed);
        }
        // The parts are in workgroup order: the first fault found is the earliest.
        match fault {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }

    /// Runs workgroups `first..end` (linear indices) of `p` on `memory`, a view over the
    /// launch's memory before any workgroup ran (`before`), and reports the bytes changed.
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
        memory.reuse_pages_of(std::mem::take(&mut self.spare_pages));
        memory.watch_writes(p.program.base, p.program.size);
        for i in first..end {
            let wg = workgroup_at(p.grid, i);
            p.groups_after = end - i - 1;
            if let Err(e) = self.run_workgroup(p, wg, &mut memory, &mut written, &mut out, None) {
                fault = Some((i, e));
                break;
            }
        }
        self.executor.waves_done();
        out.lane_ops = self.executor.lane_ops - lane_ops;
        let changed = if fault.is_some() {
            Vec::new()
        } else {
            changed_pieces(&memory, before)
        };
        self.spare_pages.reuse_pages_of(memory);
        Part {
            outcome: out,
            changed,
            fault,
        }
    }
}

/// A piece of memory (within one page) a thread wrote: its address, its bytes after the run
/// and before it. The bytes that changed are those where the two differ.
pub(super) struct Changed {
    addr: u64,
    after: Vec<u8>,
    before: Vec<u8>,
}

/// The pieces of `after` (a view over `before`: only the pages written are present) in which
/// some byte differs from `before`.
fn changed_pieces(after: &SparseMemory, before: &SparseMemory) -> Vec<Changed> {
    let mut out = Vec::new();
    for (addr, bytes) in after.pages() {
        let old = before.read_vec(addr, bytes.len());
        if old.as_slice() != bytes {
            out.push(Changed {
                addr,
                after: bytes.to_vec(),
                before: old,
            });
        }
    }
    out
}

/// Writes the changed bytes of `pieces` into `memory` (each byte where a piece's after and
/// before differ; the others keep what `memory` holds, which an earlier part may have
/// written).
fn apply(memory: &mut SparseMemory, pieces: &[Changed]) {
    let mut cur = Vec::new();
    for c in pieces {
        cur.resize(c.after.len(), 0);
        memory.read(c.addr, &mut cur);
        for ((m, &new), &old) in cur.iter_mut().zip(&c.after).zip(&c.before) {
            if new != old {
                *m = new;
            }
        }
        memory.write(c.addr, &cur);
    }
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
    fn parts_apply_only_the_bytes_they_changed_later_parts_last() {
        let mut before = SparseMemory::new();
        before.write(0x1000, &[1, 2, 3, 4, 5, 6, 7, 8]);
        let base = std::sync::Arc::new(before.clone());
        // Two threads write neighbouring bytes of one word, and one byte both write.
        let mut one = SparseMemory::over(base.clone());
        one.write(0x1001, &[9, 9]);
        one.write(0x3000, &[0, 5]); // a new page: only the non-zero byte differs
        let mut two = SparseMemory::over(base.clone());
        two.write(0x1000, &[1, 7, 3, 6]); // 0x1000 and 0x1002 rewritten unchanged
        let (p1, p2) = (changed_pieces(&one, &base), changed_pieces(&two, &base));
        assert_eq!((p1.len(), p2.len()), (2, 1));
        let mut merged = before.clone();
        apply(&mut merged, &p1);
        apply(&mut merged, &p2);
        assert_eq!(merged.read_vec(0x1000, 8), vec![1, 7, 9, 6, 5, 6, 7, 8]);
        assert_eq!(merged.read_vec(0x3000, 2), vec![0, 5]);
        // A view that wrote nothing different changed nothing.
        let mut same = SparseMemory::over(base.clone());
        same.write(0x1004, &[5, 6]);
        assert!(changed_pieces(&same, &base).is_empty());
    }
}
