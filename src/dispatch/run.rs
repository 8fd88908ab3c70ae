//! The entry points of a launch: [`Dispatcher::run`] and its variants (traced, owning the
//! launch's buffers, reusing an earlier outcome's, on a caller's memory), all through
//! `run_inner`, which prepares the launch, runs its workgroups (in order, or on threads:
//! `parallel.rs`) and collects the outcome.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::abi;
use super::{overlaps, DispatchError, Dispatcher, Inputs, Launch, Outcome, Trace};
use crate::sparse::SparseMemory;
use crate::wave::LoadRule;

impl Dispatcher {
    /// The scalar codes the loader sets for the waves of `launch` (besides EXEC; v0 holds the
    /// work-item ids): see [`abi::initial_sgpr_codes`].
    ///
    /// # Errors
    /// As [`Dispatcher::run`] for a malformed launch or code object.
    pub fn initial_sgpr_codes(&mut self, launch: &Launch) -> Result<Vec<u32>, DispatchError> {
        let p = self.prepare(launch, SparseMemory::new(), &[], Inputs::Copy(Vec::new()))?;
        Ok(abi::initial_sgpr_codes(p.arch, p.rsrc2, p.user_sgprs.len()))
    }

    /// The registers the loader writes for the waves of `launch`: the scalar codes of
    /// [`Dispatcher::initial_sgpr_codes`] and the number of VGPRs from v0 (v0 alone, or on
    /// gfx908 and GFX10 also v1 and v2 for the y and z work-item ids: [`abi::initial_vgprs`]).
    ///
    /// # Errors
    /// As [`Dispatcher::run`] for a malformed launch or code object.
    pub fn initial_registers(&mut self, launch: &Launch) -> Result<(Vec<u32>, u32), DispatchError> {
        let p = self.prepare(launch, SparseMemory::new(), &[], Inputs::Copy(Vec::new()))?;
        Ok((
            abi::initial_sgpr_codes(p.arch, p.rsrc2, p.user_sgprs.len()),
            abi::initial_vgprs(p.arch, p.rsrc2),
        ))
    }

    /// Runs a launch.
    ///
    /// # Errors
    /// A [`DispatchError`]: a malformed launch or code object before anything runs, or the
    /// first fault of a wave.
    pub fn run(&mut self, launch: &Launch) -> Result<Outcome, DispatchError> {
        self.run_traced(launch, None)
    }

    /// Runs a launch, calling `trace` after every instruction of every wave.
    ///
    /// # Errors
    /// As [`Dispatcher::run`].
    pub fn run_traced(
        &mut self,
        launch: &Launch,
        trace: Option<&mut Trace<'_>>,
    ) -> Result<Outcome, DispatchError> {
        let mut memory = SparseMemory::new();
        memory.reuse_pages_of(std::mem::take(&mut self.spare_pages));
        let (out, global) = self.run_inner(
            launch,
            memory,
            &[],
            trace,
            Inputs::Copy(Vec::new()),
            true,
            LoadRule::Page,
        )?;
        self.spare_pages.reuse_pages_of(global);
        Ok(out)
    }

    /// Runs a launch as [`Dispatcher::run`] does, taking its memory ranges' buffers instead
    /// of copying them: they are the launch's memory while it runs and come back in the
    /// outcome's `memory` (a range that another overlaps is copied out). For a caller done
    /// with the launch afterwards (a batch, a replay) this saves a copy of every range in.
    ///
    /// # Errors
    /// As [`Dispatcher::run`].
    pub fn run_owned(&mut self, mut launch: Launch) -> Result<Outcome, DispatchError> {
        let moved = std::mem::take(&mut launch.memory);
        let mut memory = SparseMemory::new();
        memory.reuse_pages_of(std::mem::take(&mut self.spare_pages));
        let (out, global) = self.run_inner(
            &launch,
            memory,
            &[],
            None,
            Inputs::Moved(moved),
            true,
            LoadRule::Page,
        )?;
        self.spare_pages.reuse_pages_of(global);
        Ok(out)
    }

    /// Runs a launch as [`Dispatcher::run`] does, leaving its outcome in `out` and reading
    /// the memory ranges back into the buffers `out` holds from an earlier run (in order), so
    /// a caller that launches again and again does not allocate (and fault in) fresh output
    /// buffers each time, as a host program reuses its buffers. On an error `out` is left
    /// empty.
    ///
    /// # Errors
    /// As [`Dispatcher::run`].
    pub fn run_reusing(&mut self, launch: &Launch, out: &mut Outcome) -> Result<(), DispatchError> {
        let buffers = std::mem::take(&mut out.memory);
        *out = Outcome::default();
        let mut memory = SparseMemory::new();
        memory.reuse_pages_of(std::mem::take(&mut self.spare_pages));
        let (o, global) = self.run_inner(
            launch,
            memory,
            &[],
            None,
            Inputs::Copy(buffers),
            true,
            LoadRule::Page,
        )?;
        self.spare_pages.reuse_pages_of(global);
        *out = o;
        Ok(())
    }

    /// Keeps the page buffers of `memory` (a memory [`Dispatcher::run_on_memory`] handed
    /// back, once the caller is done with it) for the pages the next launch allocates, as
    /// the other `run` calls do with their own memory: a caller that launches again and
    /// again then does not allocate (and have the kernel zero) fresh pages each time.
    pub fn keep_pages(&mut self, memory: SparseMemory) {
        self.spare_pages.reuse_pages_of(memory);
    }

    /// Runs a launch on `memory` (for example host-backed, [`SparseMemory::with_host`]),
    /// where `extra_ranges` ((address, length) pairs) are mapped besides the launch's own
    /// ranges; returns the outcome and the memory after the run. Ranges are declared memory
    /// ([`LoadRule::Declared`]): a load that touches a byte of a mapped range never faults,
    /// whatever page the range ends in (with [`Unmapped::Fault`]).
    ///
    /// # Errors
    /// As [`Dispatcher::run`].
    pub fn run_on_memory(
        &mut self,
        launch: &Launch,
        mut memory: SparseMemory,
        extra_ranges: &[(u64, u64)],
    ) -> Result<(Outcome, SparseMemory), DispatchError> {
        memory.reuse_pages_of(std::mem::take(&mut self.spare_pages));
        self.run_inner(
            launch,
            memory,
            extra_ranges,
            None,
            Inputs::Copy(Vec::new()),
            false,
            LoadRule::Declared,
        )
    }

    /// Runs `launch` on `memory`. The launch's buffers are copied into `buffers` (kept from
    /// an earlier outcome, in order) and held as regions of the memory; with `hand_back`
    /// they move from there into the outcome without a copy (the memory returned then lacks
    /// them), otherwise the outcome gets copies. `loads` judges loads past the ranges.
    #[allow(clippy::too_many_arguments)]
    fn run_inner(
        &mut self,
        launch: &Launch,
        memory: SparseMemory,
        extra_ranges: &[(u64, u64)],
        mut trace: Option<&mut Trace<'_>>,
        buffers: Inputs,
        hand_back: bool,
        loads: LoadRule,
    ) -> Result<(Outcome, SparseMemory), DispatchError> {
        let mut p = self.prepare(launch, memory, extra_ranges, buffers)?;
        if let Some(b) = &mut p.bounds {
            // Made just now: no other holder, so no copy.
            Arc::make_mut(b).loads = loads;
        }
        let lane_ops_before = self.executor.lane_ops;
        let mut global = std::mem::take(&mut p.memory);
        // A store over the program's own code is seen: the code is decoded again.
        global.watch_writes(p.program.base, p.program.size);
        let mut written = BTreeMap::new();
        let mut out = Outcome::default();
        let threads = self.threads_for(&p, trace.is_some());
        self.ran_on = threads;
        if threads > 1 {
            self.run_parallel(&mut p, &mut global, threads, &mut out)?;
        } else {
            let mut groups_left = p.grid.iter().map(|&g| g as u64).product::<u64>();
            for gz in 0..p.grid[2] {
                for gy in 0..p.grid[1] {
                    for gx in 0..p.grid[0] {
                        groups_left -= 1;
                        p.groups_after = groups_left;
                        self.run_workgroup(
                            &mut p,
                            [gx, gy, gz],
                            &mut global,
                            &mut written,
                            &mut out,
                            trace.as_deref_mut(),
                        )
                        .inspect_err(|_| self.executor.waves_done())?;
                    }
                }
            }
        }
        self.executor.waves_done();
        for (i, &(a, n)) in p.inputs.iter().enumerate() {
            // A region that no other input range overlaps holds exactly this range's bytes.
            let alone = || {
                p.inputs
                    .iter()
                    .enumerate()
                    .all(|(j, &r)| j == i || !overlaps(r, (a, n)))
            };
            let moved = if hand_back && global.region_len(a) == Some(n as usize) && alone() {
                global.take_region(a)
            } else {
                None
            };
            let bytes = moved.unwrap_or_else(|| global.read_vec(a, n as usize));
            out.memory.push((a, bytes));
        }
        let mut runs: Vec<(u64, Vec<u8>)> = Vec::new();
        for (&a, &b) in &written {
            let covered = |r: &(u64, u64)| r.0 <= a && a < r.0 + r.1;
            if p.inputs.iter().any(covered) || p.loader_ranges.iter().any(covered) {
                continue;
            }
            match runs.last_mut() {
                Some((s, bytes)) if *s + bytes.len() as u64 == a => bytes.push(b),
                _ => runs.push((a, vec![b])),
            }
        }
        out.written_elsewhere = runs;
        if threads == 1 {
            out.lane_ops = self.executor.lane_ops - lane_ops_before;
        }
        global.watch_writes(0, 0);
        Ok((out, global))
    }
}
