//! Kernel dispatch: runs a whole launch — a code object's kernel or raw code with the
//! registers a command processor would set — over a grid of workgroups, each split into
//! waves that share the workgroup's LDS and meet at barriers, all sharing the dispatch's
//! global memory.
//!
//! This module owns the launch: loading ([`codeobj`]), the launch description ([`launch`]),
//! the initial wave state of AMD's ABI ([`abi`]) and the schedule. Instructions run through
//! [`crate::wave::Executor`], one executor per dispatch, so its per-instruction cache (and the
//! JIT's kernels) are shared by every wave and workgroup.
//!
//! The schedule is deterministic: workgroups run one after another in x, y, z order; within
//! a workgroup, waves run round-robin, each until it reaches a barrier or ends; a barrier
//! releases when every wave still running has arrived (waves that ended count as arrived).
//! Global atomics therefore act in that order.
//!
//! Memory of a code-object launch (addresses chosen away from user ranges, which must not
//! overlap them): the code object image at [`IMAGE_BASE`], the dispatch packet at
//! [`PACKET_ADDR`], a zeroed queue at [`QUEUE_ADDR`] and the kernarg segment at
//! [`KERNARG_ADDR`].

pub mod abi;
pub mod codeobj;
pub mod launch;
mod parallel;
mod pool;
mod run;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::sparse::SparseMemory;
use crate::spec::{Arch, SpecDb};
use crate::wave::{Bounds, Engine, Executor, LoadRule, Program, Step, WaveError, WaveState};

pub use codeobj::{CodeObject, KernelArg, KernelDescriptor, KernelInfo};
pub use launch::{launch_arch, Code, Launch, Unmapped};

/// Where a code object's image is mapped.
pub const IMAGE_BASE: u64 = 0x7f00_0000_0000;
/// The `hsa_kernel_dispatch_packet_t` of a code-object launch.
pub const PACKET_ADDR: u64 = 0x7f10_0000_0000;
/// A zeroed `hsa_queue_t` for the queue pointer.
pub const QUEUE_ADDR: u64 = 0x7f10_0000_1000;
/// The kernarg segment of a code-object launch.
pub const KERNARG_ADDR: u64 = 0x7f10_0001_0000;

/// Why a launch could not be set up or did not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DispatchError {
    /// The launch description is malformed (the message names the key).
    Launch(String),
    /// A file could not be read.
    Io {
        /// The path.
        path: String,
        /// The system's message.
        message: String,
    },
    /// The code object is malformed or unsupported.
    CodeObject(String),
    /// The code object has no kernel of that name.
    NoKernel {
        /// The name asked for.
        name: String,
        /// The kernels it has.
        available: Vec<String>,
    },
    /// The kernel arguments do not match the metadata.
    Kernarg(String),
    /// A wave faulted (bad address, unsupported instruction, step budget).
    Wave {
        /// The workgroup id.
        workgroup: [u32; 3],
        /// The wave's index in the workgroup.
        wave: u32,
        /// What happened.
        error: WaveError,
    },
    /// Every wave still running waits at a barrier that can never release.
    Deadlock {
        /// The workgroup id.
        workgroup: [u32; 3],
        /// The waiting waves: (index, PC) and whether each has arrived.
        waves: Vec<(u32, u64, bool)>,
    },
}

/// A wave whose PC reached a word of its code that decodes to no instruction of the arch
/// (data beside the code, or an instruction the database lacks) stops with that word named,
/// rather than as a jump out of the program. Other errors are returned as they are.
fn undecodable(
    isa: &crate::isa::Isa,
    global: &SparseMemory,
    program: &Program,
    e: WaveError,
) -> WaveError {
    let WaveError::PcOutOfProgram { target, .. } = e else {
        return e;
    };
    if target < program.base || target >= program.end() {
        return e;
    }
    let bytes = global.read_vec(target, (program.end() - target).min(16) as usize);
    match isa.decode(&bytes) {
        Err(err) => WaveError::Undecodable {
            addr: target,
            message: err.to_string(),
        },
        Ok(_) => e,
    }
}

impl fmt::Display for DispatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DispatchError::Launch(m) => write!(f, "launch: {m}"),
            DispatchError::Io { path, message } => write!(f, "cannot read {path}: {message}"),
            DispatchError::CodeObject(m) => write!(f, "code object: {m}"),
            DispatchError::NoKernel { name, available } => write!(
                f,
                "no kernel `{name}` in the code object (it has: {})",
                available.join(", ")
            ),
            DispatchError::Kernarg(m) => write!(f, "kernel arguments: {m}"),
            DispatchError::Wave {
                workgroup: [x, y, z],
                wave,
                error,
            } => write!(f, "workgroup ({x},{y},{z}) wave {wave}: {error}"),
            DispatchError::Deadlock {
                workgroup: [x, y, z],
                waves,
            } => {
                write!(f, "workgroup ({x},{y},{z}): barrier deadlock:")?;
                for (i, pc, arrived) in waves {
                    let how = if *arrived {
                        "arrived, waiting"
                    } else {
                        "waiting without having arrived"
                    };
                    write!(f, " wave {i} at 0x{pc:x} ({how});")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for DispatchError {}

/// The number of cores this process may run on (1 when unknown): `--threads`' default.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// What a dispatch did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Every input memory range after the run, in the launch's order.
    pub memory: Vec<(u64, Vec<u8>)>,
    /// Bytes written outside the input ranges (and outside the loader's own ranges), as
    /// runs of consecutive bytes.
    pub written_elsewhere: Vec<(u64, Vec<u8>)>,
    /// Waves run.
    pub waves: u64,
    /// Workgroups run.
    pub workgroups: u64,
    /// Dynamic wave instructions executed.
    pub instructions: u64,
    /// Dynamic lane operations (instructions times the lanes active when each issued).
    pub lane_ops: u64,
}

/// A launch resolved to what the waves need.
#[derive(Clone)]
struct Prepared {
    arch: Arch,
    wave_size: u32,
    program: Program,
    entry: u64,
    rsrc1: u32,
    rsrc2: u32,
    user_sgprs: Vec<u32>,
    grid: [u32; 3],
    block: [u32; 3],
    items: [u32; 3],
    memory: SparseMemory,
    bounds: Option<Arc<Bounds>>,
    /// The VGPR slots the program may write (`pool::vgpr_bound`).
    vgpr_bound: pool::Dirty,
    inputs: Vec<(u64, u64)>,
    loader_ranges: Vec<(u64, u64)>,
    step_budget: u64,
    /// Workgroups of this run (or of this thread's part) that start after the running one:
    /// the executor's block tiering counts on their waves (`Executor::wave_starts`).
    groups_after: u64,
}

/// Where the bytes of a launch's memory ranges come from.
enum Inputs {
    /// Copied from the launch into these buffers (kept from an earlier outcome, in order;
    /// new ones when they run out).
    Copy(Vec<(u64, Vec<u8>)>),
    /// The launch's own buffers, moved in (the launch's `memory` is then empty).
    Moved(Vec<(u64, Vec<u8>)>),
}

fn overlaps(a: (u64, u64), b: (u64, u64)) -> bool {
    a.0 < b.0.saturating_add(b.1) && b.0 < a.0.saturating_add(a.1)
}

/// Runs launches of one arch; keeps its executor (and so the JIT's kernels) across them.
pub struct Dispatcher {
    executor: Executor,
    /// Programs decoded by earlier launches, by base address and code bytes (with a hash of
    /// the bytes, compared first): a launch of the same code gets a clone that shares the
    /// program's id, so the executor keeps its per-instruction plans and compiled blocks
    /// across launches instead of rebuilding them.
    programs: Vec<(u64, u64, Vec<u8>, Program)>,
    /// The VGPR slots each (program id, entry, RSRC1, wave size) may write
    /// (`pool::vgpr_bound`), kept for as many programs.
    vgpr_bounds: Vec<((u64, u64, u32, u32), pool::Dirty)>,
    /// Wave states reused across workgroups (`pool.rs`).
    pool: pool::WavePool,
    /// Empty; holds the page buffers of the last launch's memory for the next launch.
    spare_pages: SparseMemory,
    /// The LDS of the running workgroup, cleared (keeping its page buffers) for each.
    lds: SparseMemory,
    /// The schedule of the running workgroup's waves and its free states, kept so that a
    /// workgroup allocates nothing.
    slots: Vec<Slot>,
    free: Vec<usize>,
    /// The most threads a launch's workgroups run on (`parallel.rs`).
    threads: usize,
    /// The dispatchers of the other threads, made on first use and kept (with their JIT
    /// kernels) across launches.
    workers: Vec<parallel::Worker>,
    /// The threads the last launch's workgroups ran on.
    ran_on: usize,
}

/// Where a wave of the running workgroup is in the schedule.
#[derive(Clone, Copy, Default)]
struct Slot {
    /// The pool state the wave runs on, once it has started.
    state: Option<usize>,
    ended: bool,
    arrived: bool,
    waiting: bool,
    steps: u64,
}

/// The workgroup being run: its id, its size in work-items and its number of waves.
struct WorkgroupShape {
    wg: [u32; 3],
    size: [u32; 3],
    n_waves: u32,
}

/// The largest LDS allocation held as one region (larger ones, which no arch has, stay in
/// pages).
const LDS_REGION_MAX: u64 = 1 << 20;

/// The most programs a dispatcher keeps decoded (least recently used dropped first); the
/// executor keeps the per-instruction state of as many (`wave::PROGRAM_STASH`).
const PROGRAM_CACHE: usize = 32;

/// A trace callback: workgroup, wave index, instruction, state before and after.
pub type Trace<'a> = dyn FnMut([u32; 3], u32, &crate::wave::Decoded, &WaveState, &WaveState) + 'a;

impl Dispatcher {
    /// A dispatcher for `db`'s arch.
    ///
    /// # Errors
    /// [`WaveError::Jit`] when the JIT is asked for and the host is not supported.
    pub fn new(db: &SpecDb, engine: Engine) -> Result<Dispatcher, WaveError> {
        Ok(Dispatcher {
            executor: Executor::new(db, engine)?,
            programs: Vec::new(),
            vgpr_bounds: Vec::new(),
            pool: pool::WavePool::default(),
            spare_pages: SparseMemory::new(),
            lds: SparseMemory::new(),
            slots: Vec::new(),
            free: Vec::new(),
            threads: 1,
            workers: Vec::new(),
            ran_on: 1,
        })
    }

    /// Lets the workgroups of a launch run on up to `n` threads (at least 1; 1, the default,
    /// runs everything on the calling thread). Results are those of the one-thread schedule
    /// for race-free kernels; launches with global atomics, traced launches and small
    /// launches run on the calling thread (see `docs/dispatch.md`, "Threads").
    pub fn set_threads(&mut self, n: usize) {
        self.threads = n.max(1);
    }

    /// The most threads a launch runs on ([`Dispatcher::set_threads`]).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The threads the last launch's workgroups ran on (1 when it ran on the calling thread
    /// only: one thread set, a traced or small launch, global atomics).
    pub fn last_threads(&self) -> usize {
        self.ran_on
    }

    /// The program of `bytes` at `base`, decoded once per dispatcher (see `programs`).
    fn program(&mut self, bytes: &[u8], base: u64) -> Result<Program, WaveError> {
        let hash = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            bytes.hash(&mut h);
            h.finish()
        };
        if let Some(i) = self
            .programs
            .iter()
            .position(|(b, h, code, _)| *b == base && *h == hash && code.as_slice() == bytes)
        {
            let hit = self.programs.remove(i);
            let program = hit.3.clone();
            self.programs.push(hit);
            return Ok(program);
        }
        let program = Program::from_image(self.executor.isa(), bytes, base)?;
        if self.programs.len() >= PROGRAM_CACHE {
            self.programs.remove(0);
        }
        self.programs
            .push((base, hash, bytes.to_vec(), program.clone()));
        Ok(program)
    }

    /// The arch.
    pub fn arch(&self) -> Arch {
        self.executor.arch()
    }

    /// The executor (its ISA, engine, JIT fallbacks).
    pub fn executor(&self) -> &Executor {
        &self.executor
    }

    /// The executor, to set its options (`step_budget`, `trace_after_only`).
    pub fn executor_mut(&mut self) -> &mut Executor {
        &mut self.executor
    }

    fn run_workgroup(
        &mut self,
        p: &mut Prepared,
        wg: [u32; 3],
        global: &mut SparseMemory,
        written: &mut BTreeMap<u64, u8>,
        out: &mut Outcome,
        trace: Option<&mut Trace<'_>>,
    ) -> Result<(), DispatchError> {
        // A partial workgroup at the grid's edge has only the remaining work-items.
        let size: [u32; 3] = [0, 1, 2].map(|d| p.block[d].min(p.items[d] - wg[d] * p.block[d]));
        let threads: u32 = size.iter().product();
        let n_waves = threads.div_ceil(p.wave_size);
        let observed = trace.is_some();
        let mut slots = std::mem::take(&mut self.slots);
        slots.clear();
        slots.resize(n_waves as usize, Slot::default());
        let mut free = std::mem::take(&mut self.free);
        out.workgroups += 1;
        out.waves += n_waves as u64;
        let mut lds = std::mem::take(&mut self.lds);
        match &p.bounds {
            // Accesses stay inside the allocation: zeroing it is a fresh LDS (bytes past it,
            // left by a launch with more LDS, are out of reach). The allocation is one region
            // (made once per launch size), so DS rows copy straight to and from it.
            Some(b) if !observed => {
                let n = b.lds as usize;
                if b.lds <= LDS_REGION_MAX && n > 0 && lds.region_len(0) != Some(n) {
                    lds.clear();
                    place(&mut lds, 0, vec![0; n]);
                } else {
                    lds.zero_present(0, b.lds);
                }
            }
            _ => lds.clear(),
        }
        let mut pool = std::mem::take(&mut self.pool);
        let waves = pool.states(p.arch, p.wave_size, n_waves as usize);
        let shape = WorkgroupShape { wg, size, n_waves };
        let r = self.run_waves(
            p, &shape, waves, &mut slots, &mut free, global, &mut lds, written, out, trace,
        );
        self.pool = pool;
        self.lds = lds;
        self.slots = slots;
        self.free = free;
        r
    }

    /// Sets a freshly reset state up as wave `index` of the workgroup (AMD's initial state,
    /// the launch's bounds, write tracking, the observer's access record).
    fn start_wave(
        &self,
        p: &Prepared,
        shape: &WorkgroupShape,
        index: u32,
        observed: bool,
        w: &mut WaveState,
    ) {
        abi::init_wave(
            &abi::WaveSetup {
                arch: p.arch,
                wave_size: p.wave_size,
                rsrc1: p.rsrc1,
                rsrc2: p.rsrc2,
                user_sgprs: &p.user_sgprs,
                entry: p.entry,
                workgroup: shape.wg,
                size: shape.size,
                wave_index: index,
                n_waves: shape.n_waves,
            },
            w,
        );
        w.bounds.clone_from(&p.bounds);
        // With every access checked against mapped ranges, stores land in known places:
        // recording each written byte is only needed otherwise.
        w.track_writes = p.bounds.is_none();
        // An observer (the sanitizer) sees the bytes each memory instruction accessed.
        if observed {
            w.last_access = Some(Vec::new());
        }
    }

    /// Runs the waves of workgroup `wg` round-robin to their ends (see `run_workgroup`).
    ///
    /// A wave gets its state when it first runs (reset and set up then), and gives it back
    /// when it ends: the next wave to start takes the state last given back. Waves of a
    /// program without barriers each run to their end in turn, so they all use one state,
    /// which stays in the cache; the order in which instructions run is the same either way.
    #[allow(clippy::too_many_arguments)]
    fn run_waves(
        &mut self,
        p: &mut Prepared,
        shape: &WorkgroupShape,
        waves: &mut [(WaveState, pool::Dirty)],
        slots: &mut [Slot],
        free: &mut Vec<usize>,
        global: &mut SparseMemory,
        lds: &mut SparseMemory,
        written: &mut BTreeMap<u64, u8>,
        out: &mut Outcome,
        mut trace: Option<&mut Trace<'_>>,
    ) -> Result<(), DispatchError> {
        let wg = shape.wg;
        let observed = trace.is_some();
        // States free to start a wave on, the next one last.
        free.clear();
        free.extend((0..waves.len()).rev());
        loop {
            for (i, s) in slots.iter_mut().enumerate() {
                if s.ended || s.waiting {
                    continue;
                }
                let state = match s.state {
                    Some(j) => j,
                    None => {
                        let j = free
                            .pop()
                            .expect("bug: more waves started than the workgroup has states");
                        let (w, dirty) = &mut waves[j];
                        pool::reset(w, dirty, p.arch, p.wave_size, p.vgpr_bound);
                        self.start_wave(p, shape, i as u32, observed, w);
                        // Waves still to start: the rest of this workgroup's and of the
                        // workgroups after it (full ones).
                        let per_group = p.block.iter().product::<u32>().div_ceil(p.wave_size);
                        let to_come = (shape.n_waves as u64 - i as u64 - 1)
                            + p.groups_after * per_group as u64;
                        self.executor.wave_starts(&p.program, to_come);
                        s.state = Some(j);
                        j
                    }
                };
                let (w, _) = &mut waves[state];
                std::mem::swap(&mut w.memory, global);
                std::mem::swap(&mut w.lds, lds);
                std::mem::swap(&mut w.written, written);
                let mut wave_trace = trace.as_deref_mut().map(|t| {
                    move |d: &crate::wave::Decoded, a: &WaveState, b: &WaveState| {
                        t(wg, i as u32, d, a, b)
                    }
                });
                let budget = p.step_budget.saturating_sub(s.steps);
                let r = self.executor.run_until(
                    &p.program,
                    w,
                    budget,
                    wave_trace.as_mut().map(|t| {
                        t as &mut dyn FnMut(&crate::wave::Decoded, &WaveState, &WaveState)
                    }),
                );
                std::mem::swap(&mut w.memory, global);
                std::mem::swap(&mut w.lds, lds);
                std::mem::swap(&mut w.written, written);
                let fail = |error| DispatchError::Wave {
                    workgroup: wg,
                    wave: i as u32,
                    error,
                };
                let (step, n) =
                    r.map_err(|e| fail(undecodable(self.executor.isa(), global, &p.program, e)))?;
                s.steps += n;
                out.instructions += n;
                match step {
                    Step::Ended => {
                        s.ended = true;
                        free.push(state);
                    }
                    Step::Barrier(crate::wave::Barrier::SignalWait) => {
                        s.arrived = true;
                        s.waiting = true;
                    }
                    Step::Barrier(crate::wave::Barrier::Signal) => s.arrived = true,
                    Step::Barrier(crate::wave::Barrier::Wait) => s.waiting = true,
                    // The wave stored over the code: decode it again (a new program, so
                    // the executor drops the old one's plans and blocks) and go on.
                    Step::Continue if global.take_watched_write() => {
                        let bytes = global.read_vec(p.program.base, p.program.size as usize);
                        p.program = self.program(&bytes, p.program.base).map_err(fail)?;
                        // The new code may name more VGPR slots: the pool zeroes them later.
                        // Waves are part way through: every instruction may run.
                        let bound =
                            pool::vgpr_bound(&p.program, None, p.arch, p.rsrc1, p.wave_size);
                        p.vgpr_bound = p.vgpr_bound.max(bound);
                        for (_, dirty) in waves.iter_mut() {
                            *dirty = dirty.max(p.vgpr_bound);
                        }
                    }
                    Step::Continue => {
                        return Err(fail(WaveError::StepBudget { steps: s.steps }));
                    }
                }
            }
            if slots.iter().all(|s| s.ended) {
                return Ok(());
            }
            if slots.iter().all(|s| s.ended || s.waiting) {
                if slots.iter().all(|s| s.ended || s.arrived) {
                    for s in slots.iter_mut() {
                        s.arrived = false;
                        s.waiting = false;
                    }
                } else {
                    return Err(DispatchError::Deadlock {
                        workgroup: wg,
                        waves: slots
                            .iter()
                            .enumerate()
                            .filter(|(_, s)| !s.ended)
                            .map(|(i, s)| {
                                let pc = s.state.map_or(p.entry, |j| waves[j].0.pc);
                                (i as u32, pc, s.arrived)
                            })
                            .collect(),
                    });
                }
            }
        }
    }

    fn prepare(
        &mut self,
        launch: &Launch,
        mut memory: SparseMemory,
        extra_ranges: &[(u64, u64)],
        buffers: Inputs,
    ) -> Result<Prepared, DispatchError> {
        let arch = self.arch();
        let bad = |m: String| DispatchError::Launch(m);
        if let Some(a) = launch.arch {
            if a != arch {
                return Err(bad(format!(
                    "arch: the launch says {} but runs on {}",
                    a.name(),
                    arch.name()
                )));
            }
        }
        let mut ranges: Vec<(u64, u64)> = extra_ranges.to_vec();
        let mut inputs = Vec::new();
        match buffers {
            Inputs::Copy(buffers) => {
                let mut buffers = buffers.into_iter();
                for (a, bytes) in &launch.memory {
                    // One copy into a buffer of the last outcome (no fresh allocation to
                    // fault in).
                    let mut buf = buffers.next().map(|b| b.1).unwrap_or_default();
                    buf.clear();
                    buf.extend_from_slice(bytes);
                    place(&mut memory, *a, buf);
                    ranges.push((*a, bytes.len() as u64));
                    inputs.push((*a, bytes.len() as u64));
                }
            }
            Inputs::Moved(moved) => {
                for (a, buf) in moved {
                    let n = buf.len() as u64;
                    place(&mut memory, a, buf);
                    ranges.push((a, n));
                    inputs.push((a, n));
                }
            }
        }
        let mut loader_ranges = Vec::new();
        let items = launch
            .grid_items
            .unwrap_or([0, 1, 2].map(|d| launch.grid[d].saturating_mul(launch.block[d])));
        let default_wave = arch.default_wave();
        let (program, entry, rsrc1, rsrc2, user_sgprs, wave_size, lds, scratch) = match &launch.code
        {
            Code::Raw {
                bytes,
                addr,
                rsrc1,
                rsrc2,
                rsrc3: _,
                user_sgprs,
            } => {
                let program = self
                    .program(bytes, *addr)
                    .map_err(|e| DispatchError::CodeObject(format!("code_hex: {e}")))?;
                if program.at(*addr).is_none() {
                    return Err(bad(format!(
                        "code_hex: the first word at 0x{addr:x} is not an instruction of {}",
                        arch.name()
                    )));
                }
                place(&mut memory, *addr, bytes.clone());
                ranges.push((*addr, bytes.len() as u64));
                let count = abi::rsrc2::user_sgpr_count(*rsrc2) as usize;
                if user_sgprs.len() > count.max(16) {
                    return Err(bad(format!(
                        "user_sgprs: {} values, but RSRC2 enables {count} user SGPRs",
                        user_sgprs.len()
                    )));
                }
                (
                    program,
                    *addr,
                    *rsrc1,
                    *rsrc2,
                    user_sgprs.clone(),
                    launch.wave.unwrap_or(default_wave),
                    launch.lds_bytes.unwrap_or(abi::rsrc2::lds_bytes(*rsrc2)),
                    launch.scratch_bytes.unwrap_or(0),
                )
            }
            Code::Object {
                bytes,
                path,
                kernel,
                kernarg,
            } => {
                let co = CodeObject::parse(bytes).map_err(|e| match e {
                    DispatchError::CodeObject(m) => {
                        DispatchError::CodeObject(format!("{path}: {m}"))
                    }
                    other => other,
                })?;
                if co.arch != arch {
                    return Err(bad(format!(
                        "{path} is for {} ({}), not {}",
                        co.processor,
                        co.arch.name(),
                        arch.name()
                    )));
                }
                let k = co.kernel(kernel)?;
                let wave_size = match launch.wave {
                    Some(w) if w != k.wave_size => {
                        return Err(bad(format!(
                            "wave: kernel {kernel} was compiled for wave{}, not wave{w}",
                            k.wave_size
                        )))
                    }
                    _ => k.wave_size,
                };
                let image_range = (IMAGE_BASE, co.image.len() as u64);
                place(&mut memory, IMAGE_BASE, co.image.clone());
                let &(seg, seg_len) = co
                    .code
                    .iter()
                    .find(|&&(s, n)| s <= k.entry && k.entry < s + n)
                    .ok_or_else(|| {
                        DispatchError::CodeObject(format!("{path}: entry outside code"))
                    })?;
                let code = &co.image[seg as usize..(seg + seg_len) as usize];
                let program = self
                    .program(code, IMAGE_BASE + seg)
                    .map_err(|e| DispatchError::CodeObject(format!("{path}: {e}")))?;
                let entry = IMAGE_BASE + k.entry;
                if program.at(entry).is_none() {
                    return Err(DispatchError::CodeObject(format!(
                        "{path}: kernel {kernel}: entry 0x{:x} does not decode",
                        k.entry
                    )));
                }
                let kernarg_bytes = build_kernarg(k, kernarg, launch, items)?;
                let kernarg_len = (kernarg_bytes.len() as u64).div_ceil(64) * 64 + 256;
                place(&mut memory, KERNARG_ADDR, kernarg_bytes.clone());
                let lds = launch
                    .lds_bytes
                    .unwrap_or(k.descriptor.group_segment_fixed_size as u64);
                let dynamic_stack =
                    k.descriptor.code_properties & codeobj::props::USES_DYNAMIC_STACK != 0;
                let scratch = launch.scratch_bytes.unwrap_or(
                    k.descriptor.private_segment_fixed_size as u64
                        + if dynamic_stack { 64 * 1024 } else { 0 },
                );
                let packet = dispatch_packet(launch.block, items, scratch as u32, lds as u32, k);
                place(&mut memory, PACKET_ADDR, packet.to_vec());
                loader_ranges = vec![
                    image_range,
                    (PACKET_ADDR, 64),
                    (QUEUE_ADDR, 256),
                    (KERNARG_ADDR, kernarg_len),
                ];
                for r in &loader_ranges {
                    if let Some(u) = inputs
                        .iter()
                        .chain(extra_ranges)
                        .find(|u| overlaps(**u, *r))
                    {
                        return Err(bad(format!(
                            "memory range 0x{:x}+{} overlaps the loader's range 0x{:x}+{} \
                             (code image, dispatch packet, queue or kernarg)",
                            u.0, u.1, r.0, r.1
                        )));
                    }
                }
                ranges.extend(loader_ranges.iter().copied());
                let user_sgprs = user_sgprs_of(k, &kernarg_bytes, scratch as u32, arch, wave_size);
                (
                    program,
                    entry,
                    k.descriptor.rsrc1,
                    k.descriptor.rsrc2,
                    user_sgprs,
                    wave_size,
                    lds,
                    scratch,
                )
            }
        };
        if scratch > crate::wave::SCRATCH_LANE_SPAN {
            return Err(bad(format!(
                "scratch_bytes: {scratch} bytes per lane (this model keeps at most {} per lane)",
                crate::wave::SCRATCH_LANE_SPAN
            )));
        }
        if !arch.supports_wave(wave_size) {
            return Err(bad(format!(
                "wave: {} does not run wave{wave_size} (it runs wave{})",
                arch.name(),
                arch.default_wave()
            )));
        }
        for (d, (&n, (&g, &b))) in items
            .iter()
            .zip(launch.grid.iter().zip(&launch.block))
            .enumerate()
        {
            if n.div_ceil(b) != g {
                return Err(bad(format!(
                    "grid_items: {n} work-items in dimension {d} do not make {g} workgroups of {b}"
                )));
            }
        }
        let block_threads = launch.block.iter().map(|&b| b as u64).product::<u64>();
        if block_threads > 1024 {
            return Err(bad(format!(
                "block: {block_threads} work-items per workgroup (at most 1024)"
            )));
        }
        let bounds = match launch.unmapped {
            Unmapped::Fault => Some(Arc::new(Bounds {
                global: ranges
                    .iter()
                    .map(|&(a, n)| (a, a.saturating_add(n)))
                    .collect(),
                lds,
                scratch,
                loads: LoadRule::Page,
            })),
            Unmapped::Zero => None,
        };
        let key = (program.id(), entry, rsrc1, wave_size);
        let vgpr_bound = match self.vgpr_bounds.iter().find(|(k, _)| *k == key) {
            Some(&(_, b)) => b,
            None => {
                let b = pool::vgpr_bound(&program, Some(entry), arch, rsrc1, wave_size);
                if self.vgpr_bounds.len() >= PROGRAM_CACHE {
                    self.vgpr_bounds.remove(0);
                }
                self.vgpr_bounds.push((key, b));
                b
            }
        };
        Ok(Prepared {
            arch,
            wave_size,
            vgpr_bound,
            program,
            entry,
            rsrc1,
            rsrc2,
            user_sgprs,
            grid: launch.grid,
            block: launch.block,
            items,
            memory,
            bounds,
            inputs,
            loader_ranges,
            step_budget: launch
                .step_budget
                .unwrap_or(crate::wave::DEFAULT_STEP_BUDGET),
            groups_after: 0,
        })
    }
}

/// Writes `bytes` at `addr` as a region of `memory` ([`SparseMemory::add_region`]), or as
/// pages where a region cannot go (an empty range, or one overlapping an earlier range:
/// then the later bytes win, as with plain writes). Every range placed is mapped: it is one
/// of the launch's ranges (the LDS region is its allocation).
fn place(memory: &mut SparseMemory, addr: u64, bytes: Vec<u8>) {
    if let Err(bytes) = memory.add_region(addr, bytes, true) {
        memory.write(addr, &bytes);
    }
}

/// The user SGPRs a code object's descriptor enables, in the ABI's order.
fn user_sgprs_of(
    k: &KernelInfo,
    kernarg: &[u8],
    scratch: u32,
    arch: crate::spec::Arch,
    wave_size: u32,
) -> Vec<u32> {
    use codeobj::props;
    let p = k.descriptor.code_properties;
    let mut v = Vec::new();
    let pair = |v: &mut Vec<u32>, a: u64| {
        v.push(a as u32);
        v.push((a >> 32) as u32);
    };
    if p & props::PRIVATE_SEGMENT_BUFFER != 0 {
        v.extend(crate::wave::scratch_resource(arch, wave_size));
    }
    if p & props::DISPATCH_PTR != 0 {
        pair(&mut v, PACKET_ADDR);
    }
    if p & props::QUEUE_PTR != 0 {
        pair(&mut v, QUEUE_ADDR);
    }
    if p & props::KERNARG_SEGMENT_PTR != 0 {
        pair(&mut v, KERNARG_ADDR);
    }
    if p & props::DISPATCH_ID != 0 {
        pair(&mut v, 0);
    }
    if p & props::FLAT_SCRATCH_INIT != 0 {
        pair(&mut v, crate::wave::PRIVATE_APERTURE);
    }
    if p & props::PRIVATE_SEGMENT_SIZE != 0 {
        v.push(scratch);
    }
    // Preloaded kernel arguments follow.
    let preload = (k.descriptor.kernarg_preload & 0x7f) as usize;
    let offset = (k.descriptor.kernarg_preload >> 7) as usize * 4;
    for i in 0..preload {
        let at = offset + 4 * i;
        let word = kernarg
            .get(at..at + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        v.push(word);
    }
    v
}

/// The kernarg segment: the explicit arguments given, then the hidden arguments of the
/// metadata filled in as the loader does.
fn build_kernarg(
    k: &KernelInfo,
    given: &[u8],
    launch: &Launch,
    items: [u32; 3],
) -> Result<Vec<u8>, DispatchError> {
    let explicit_end = k
        .args
        .iter()
        .filter(|a| !a.kind.starts_with("hidden_"))
        .map(|a| a.offset + a.size)
        .max()
        .unwrap_or(0) as usize;
    if given.len() < explicit_end {
        let missing: Vec<String> = k
            .args
            .iter()
            .filter(|a| {
                !a.kind.starts_with("hidden_") && (a.offset + a.size) as usize > given.len()
            })
            .map(|a| {
                format!(
                    "{} ({} at offset {}, {} bytes)",
                    a.name.as_deref().unwrap_or("?"),
                    a.kind,
                    a.offset,
                    a.size
                )
            })
            .collect();
        return Err(DispatchError::Kernarg(format!(
            "kernel {}: kernarg_hex has {} bytes, the metadata's explicit arguments need {}; \
             missing: {}",
            k.name,
            given.len(),
            explicit_end,
            missing.join(", ")
        )));
    }
    let size = (k.kernarg_size as usize).max(given.len());
    let mut out = given.to_vec();
    out.resize(size, 0);
    let dims = if items[2] > 1 {
        3
    } else if items[1] > 1 {
        2
    } else {
        1
    };
    for a in &k.args {
        let d = match a.kind.chars().last() {
            Some('x') => 0,
            Some('y') => 1,
            Some('z') => 2,
            _ => 0,
        };
        let value: u64 = match a.kind.as_str() {
            "hidden_block_count_x" | "hidden_block_count_y" | "hidden_block_count_z" => {
                launch.grid[d] as u64
            }
            "hidden_group_size_x" | "hidden_group_size_y" | "hidden_group_size_z" => {
                launch.block[d] as u64
            }
            "hidden_remainder_x" | "hidden_remainder_y" | "hidden_remainder_z" => {
                (items[d] % launch.block[d]) as u64
            }
            "hidden_grid_dims" => dims,
            "hidden_private_base" => crate::wave::PRIVATE_APERTURE >> 32,
            "hidden_shared_base" => crate::wave::SHARED_APERTURE >> 32,
            "hidden_queue_ptr" => QUEUE_ADDR,
            k if k.starts_with("hidden_") => 0,
            _ => continue,
        };
        let (at, n) = (a.offset as usize, a.size.min(8) as usize);
        if at + n > out.len() {
            out.resize(at + n, 0);
        }
        out[at..at + n].copy_from_slice(&value.to_le_bytes()[..n]);
    }
    Ok(out)
}

/// The `hsa_kernel_dispatch_packet_t` of a launch.
fn dispatch_packet(
    block: [u32; 3],
    items: [u32; 3],
    scratch: u32,
    lds: u32,
    k: &KernelInfo,
) -> [u8; 64] {
    let mut p = [0u8; 64];
    let dims: u16 = if items[2] > 1 {
        3
    } else if items[1] > 1 {
        2
    } else {
        1
    };
    // header: KERNEL_DISPATCH packet type (2).
    p[0..2].copy_from_slice(&2u16.to_le_bytes());
    p[2..4].copy_from_slice(&dims.to_le_bytes());
    for d in 0..3 {
        p[4 + 2 * d..6 + 2 * d].copy_from_slice(&(block[d] as u16).to_le_bytes());
        p[12 + 4 * d..16 + 4 * d].copy_from_slice(&items[d].to_le_bytes());
    }
    p[24..28].copy_from_slice(&scratch.to_le_bytes());
    p[28..32].copy_from_slice(&lds.to_le_bytes());
    p[32..40].copy_from_slice(&(IMAGE_BASE + k.descriptor_addr).to_le_bytes());
    p[40..48].copy_from_slice(&KERNARG_ADDR.to_le_bytes());
    p
}
