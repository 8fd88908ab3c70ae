//! Workgroups of one launch on several threads.
//!
//! The workgroups of a launch are cut into contiguous runs in the schedule's order (x fastest,
//! then y, z), one run per thread. Every thread runs its run on its own dispatcher (its own
//! executor, JIT kernels, wave pool and LDS) and on its own view of the launch's global memory
//! as it was before any workgroup ran ([`SparseMemory::over`]: reads go to the shared memory,
//! straight into its buffers, and the first write to a page copies that page in, so a thread
//! copies only the pages it writes). Each thread then compares the pages it wrote with the
//! memory before the run and hands back those that differ. When all are done, those pages
//! are written into the launch's memory: a page one thread changed is copied whole; in a page
//! several changed, each byte takes the value of the last thread in workgroup order that
//! changed it, so where two runs wrote one byte the later workgroup's value stays, as when one
//! thread runs them in order.
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
use crate::sparse::{SparseMemory, PAGE};
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

/// A 4 KiB page of memory a thread wrote: its address and its bytes after the run.
pub(super) type Page = (u64, Box<[u8; PAGE]>);

/// What one thread's run of workgroups did.
pub(super) struct Part {
    /// The counts (waves, workgroups, instructions, lane operations).
    pub(super) outcome: Outcome,
    /// The pages the run wrote that differ from the memory before it (`changed_pages`).
    pub(super) changed: Vec<Page>,
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
        let mut changed = Vec::with_capacity(parts.len());
        for part in parts {
            out.waves += part.outcome.waves;
            out.workgroups += part.outcome.workgroups;
            out.instructions += part.outcome.instructions;
            out.lane_ops += part.outcome.lane_ops;
            if let Some(f) = part.fault {
                fault = fault.or(Some(f));
            }
            changed.push(part.changed);
        }
        apply(global, &changed);
        // The page buffers go back to the threads that wrote them, for their next launch.
        let mut changed = changed.into_iter();
        let own = changed.next().unwrap_or_default();
        self.spare_pages.keep_spare(own.into_iter().map(|(_, p)| p));
        for (w, pages) in self.workers.iter_mut().zip(changed) {
            w.0.spare_pages
                .keep_spare(pages.into_iter().map(|(_, p)| p));
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
        let mut changed = memory.take_pages();
        if fault.is_some() {
            changed.clear();
        }
        // Compared here, on this thread: the merge after the threads then copies only
        // pages that changed.
        let (changed, same): (Vec<Page>, Vec<Page>) = changed
            .into_iter()
            .partition(|(addr, page)| differs(before, *addr, page));
        memory.keep_spare(same.into_iter().map(|(_, p)| p));
        self.spare_pages.reuse_pages_of(memory);
        Part {
            outcome: out,
            changed,
            fault,
        }
    }
}

/// Whether `page`, the bytes at `addr` (a page start), differs from `before`'s bytes there.
fn differs(before: &SparseMemory, addr: u64, page: &[u8; PAGE]) -> bool {
    match before.region(addr, PAGE) {
        Some((bytes, _)) => bytes != &page[..],
        None => before.read_vec(addr, PAGE) != page[..],
    }
}

/// Writes the pages each part changed into `memory` (the memory before the run), parts in
/// workgroup order: a page one part changed is that part's page; a page several changed
/// takes, byte by byte, the last part's byte among those that differ from before the run
/// (the others keep the memory's byte).
fn apply(memory: &mut SparseMemory, parts: &[Vec<Page>]) {
    let mut all: Vec<(u64, usize, &[u8; PAGE])> = parts
        .iter()
        .enumerate()
        .flat_map(|(k, pages)| pages.iter().map(move |(a, p)| (*a, k, &**p)))
        .collect();
    all.sort_unstable_by_key(|&(a, k, _)| (a, k));
    let (mut before, mut cur) = (vec![0u8; PAGE], vec![0u8; PAGE]);
    for group in all.chunk_by(|x, y| x.0 == y.0) {
        let addr = group[0].0;
        if let [(_, _, page)] = group {
            memory.write(addr, &page[..]);
            continue;
        }
        memory.read(addr, &mut before);
        cur.copy_from_slice(&before);
        for (_, _, page) in group {
            merge_changed(&mut cur, &page[..], &before);
        }
        memory.write(addr, &cur);
    }
}

/// Sets each byte of `cur` where `new` and `old` differ to `new`'s, comparing eight bytes at
/// a time.
fn merge_changed(cur: &mut [u8], new: &[u8], old: &[u8]) {
    let word = |b: &[u8]| u64::from_ne_bytes(b.try_into().expect("eight bytes"));
    for ((c, n), o) in cur
        .chunks_exact_mut(8)
        .zip(new.chunks_exact(8))
        .zip(old.chunks_exact(8))
    {
        let (nw, ow) = (word(n), word(o));
        if nw == ow {
            continue;
        }
        if word(c) == ow {
            c.copy_from_slice(n);
            continue;
        }
        for ((c, &n), &o) in c.iter_mut().zip(n).zip(o) {
            if n != o {
                *c = n;
            }
        }
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

    /// The pages of `view` that differ from `base`, as a part hands them back.
    fn changed(mut view: SparseMemory, base: &SparseMemory) -> Vec<Page> {
        let mut pages = view.take_pages();
        pages.retain(|(a, p)| differs(base, *a, p));
        pages.sort_by_key(|p| p.0);
        pages
    }

    #[test]
    fn parts_apply_only_the_bytes_they_changed_later_parts_last() {
        let mut before = SparseMemory::new();
        before.write(0x1000, &[1, 2, 3, 4, 5, 6, 7, 8]);
        before.write(0x5000, &[0xaa; 16]);
        let base = std::sync::Arc::new(before.clone());
        // Two threads write neighbouring bytes of one word, and one byte both write.
        let mut one = SparseMemory::over(base.clone());
        one.write(0x1001, &[9, 9]);
        one.write(0x3000, &[0, 5]); // a new page: only the non-zero byte differs
        one.write(0x5008, &[0xaa, 0xbb]); // only the second byte differs
        let mut two = SparseMemory::over(base.clone());
        two.write(0x1000, &[1, 7, 3, 6]); // 0x1000 and 0x1002 rewritten unchanged
        let (p1, p2) = (changed(one, &base), changed(two, &base));
        let addrs = |p: &[Page]| p.iter().map(|x| x.0).collect::<Vec<_>>();
        assert_eq!(addrs(&p1), vec![0x1000, 0x3000, 0x5000]);
        assert_eq!(addrs(&p2), vec![0x1000]);
        let mut merged = before.clone();
        apply(&mut merged, &[p1, p2]);
        assert_eq!(merged.read_vec(0x1000, 8), vec![1, 7, 9, 6, 5, 6, 7, 8]);
        assert_eq!(merged.read_vec(0x3000, 2), vec![0, 5]);
        assert_eq!(
            merged.read_vec(0x5006, 5),
            vec![0xaa, 0xaa, 0xaa, 0xbb, 0xaa]
        );
        // A view that wrote nothing different changed nothing.
        let mut same = SparseMemory::over(base.clone());
        same.write(0x1004, &[5, 6]);
        assert!(changed(same, &base).is_empty());
    }

    #[test]
    fn merge_takes_the_changed_bytes_of_a_word_only() {
        let old = [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
        let mut new = old;
        new[3] = 40;
        new[9] = 90;
        // The current bytes differ from before in the first word (an earlier part wrote
        // byte 0) and match it in the second.
        let mut cur = old;
        cur[0] = 100;
        merge_changed(&mut cur, &new, &old);
        assert_eq!(
            cur,
            [100, 2, 3, 40, 5, 6, 7, 8, 9, 90, 11, 12, 13, 14, 15, 16]
        );
    }

    #[test]
    fn a_view_reads_its_base_regions_in_place_and_writes_a_copy_of_the_page() {
        let mut before = SparseMemory::new();
        before
            .add_region(0x2000, (0..=255u8).cycle().take(3 * PAGE).collect(), true)
            .unwrap();
        let base = std::sync::Arc::new(before);
        let mut view = SparseMemory::over(base.clone());
        assert_eq!(
            view.region(0x2010, 4),
            Some((&[16u8, 17, 18, 19][..], true))
        );
        // Not inside one page: not one span.
        assert!(view.region(0x2ffe, 4).is_none());
        let (span, mapped) = view.region_span(0x3004, 4).expect("a span in the base");
        assert!(mapped);
        assert_eq!(view.span_bytes(span), &[4, 5, 6, 7]);
        view.span_bytes_mut(span).copy_from_slice(&[9, 9, 9, 9]);
        // The page is now the view's: no span into the base, the base unchanged.
        assert!(view.region_span(0x3100, 4).is_none());
        assert_eq!(view.read_vec(0x3002, 8), vec![2, 3, 9, 9, 9, 9, 8, 9]);
        assert_eq!(view.read_vec(0x3100, 2), vec![0, 1]);
        assert_eq!(base.read_vec(0x3004, 4), vec![4, 5, 6, 7]);
        let pages = view.take_pages();
        assert_eq!(pages.len(), 1);
        assert_eq!(pages[0].0, 0x3000);
    }
}
