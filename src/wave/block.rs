//! Block execution under the JIT engine: straight-line runs of fast-path
//! instructions compiled into one native function (`jit::block`) that works on the wave's
//! register files in place, instead of one executor step per instruction.
//!
//! A block starts at an instruction the wave reached by a branch or after a step, and runs
//! through the instructions after it whose binding plans lower to the block ABI
//! (`fetch::block`), ending before the first that does not (memory without a prepared form,
//! DPP, register-file addressing, 16-bit or clamped results, barriers), after a branch,
//! and after `s_endpgm` (the run reports that the wave ended). Lane-mask
//! outputs (VCC, carry-outs, compares, EXEC) stay inside: each instruction reads EXEC from the
//! register file. No-ops (`s_nop`, `s_waitcnt`, ...) inside it count as steps and emit no code.
//!
//! Tiering: each instruction index counts the times the executor loop arrives at it; at
//! [`DEFAULT_BLOCK_THRESHOLD`] arrivals a block is built from the plans the per-instruction
//! path has already made (so its instructions have all run at least once) and compiled. A
//! block that does not loop is compiled quick first (Cranelift's optimiser off), and again
//! optimised once it has run [`DEFAULT_OPTIMISE_THRESHOLD`] lane-instructions per
//! instruction; the optimised code replaces the quick one. A
//! block holds for the MODE and wave size it was built for; another falls back to stepping.
//! Blocks are keyed by the program's id and instruction index, like the plans: a program is
//! immutable once decoded, and running another program drops them.

use crate::jit::block::{BlockFn, BlockInst, BlockSpec, SGPR_WORDS, SIDE_EXIT, VGPR_WORDS};

use super::block_mem::{self, MemCall};

use super::fetch;
use super::{Barrier, Class, Decoded, Executor, Program, WaveError, WaveState};

/// Arrivals at an instruction before a block starting there is compiled.
pub const DEFAULT_BLOCK_THRESHOLD: u32 = 1000;
/// Lane-instructions per block instruction that a quick block runs before it is optimised
/// ([`Executor::block_optimise_threshold`]). Optimising costs about 100 µs per instruction,
/// what a quick block spends in some 200,000 lane-instructions over full 32-lane waves: a
/// block crosses this a quarter of the way there, and one-lane launches of a few thousand
/// waves stay quick (they run as fast quick).
pub const DEFAULT_OPTIMISE_THRESHOLD: u64 = 1 << 16;
/// The most instructions one block holds.
const MAX_BLOCK: usize = 256;

/// What one run of a block did.
#[derive(Clone, Copy, Debug)]
pub(super) struct BlockRun {
    /// Instructions executed (no-ops and a final `s_endpgm` included).
    pub(super) steps: u64,
    /// The block ran the wave's `s_endpgm`: the wave has ended (PC at it, as a step leaves it).
    pub(super) ended: bool,
    /// The block ran a barrier instruction (its last step; PC after it, as a step leaves it).
    pub(super) barrier: Option<Barrier>,
}

/// The block state of one instruction index.
pub(super) enum Tier {
    /// Not compiled yet: arrivals so far.
    Count(u32),
    /// Compiled.
    Ready(Box<Block>),
    /// No block starts here (its first instruction cannot be lowered).
    Never,
}

/// A compiled block with its slot arena.
pub(super) struct Block {
    code: BlockFn,
    /// While `code` is quick (compiled without the optimiser): what it was compiled from, to
    /// compile it again optimised once it has run [`Executor::block_optimise_threshold`]
    /// lane-instructions per instruction.
    quick: Option<Box<BlockSpec>>,
    /// Lane-instructions the quick code has run.
    quick_lane_ops: u64,
    arena: Vec<u128>,
    /// The compiled instructions' addresses and names, in block order (a fault names one).
    insts: Vec<(u64, String)>,
    /// Instructions it executes, no-ops included.
    steps: u64,
    mode: u32,
    wave_size: u32,
    /// The arena byte offset of the last instruction's PC output, when it branches.
    pc_off: Option<usize>,
    /// The last instruction's address.
    last: u64,
    /// The address after the last instruction.
    fall_through: u64,
    /// The arena byte offset of the block's lane counter (`BlockSpec::lane_ops`).
    lanes_off: usize,
    /// No-ops after the last compiled instruction (they issue with the EXEC it leaves).
    trailing_noops: u64,
    /// The address of the `s_endpgm` that ends the block, when one does (it counts as a step
    /// after the trailing no-ops and ends the wave).
    endpgm: Option<u64>,
    /// The address after the barrier instruction that ends the block, and its kind, when one
    /// does (it counts as a step after the trailing no-ops; the wave then waits).
    barrier: Option<(u64, Barrier)>,
    /// The side exits (`BlockSpec::exits`): instruction index and the arena byte offset of
    /// its PC output.
    exits: Vec<(usize, usize)>,
    /// For each compiled instruction: the steps of an iteration before it (no-ops included)
    /// and the address after it, for a block that stops at it.
    marks: Vec<(u64, u64)>,
    /// Its memory instructions (`block_mem.rs`), addressed from the arena: boxed so their
    /// addresses stay put while the vector grows.
    #[allow(clippy::vec_box)]
    mem: Vec<Box<MemCall>>,
}

impl Executor {
    /// Runs the block starting at `wave.pc` if one is compiled (compiling it when the
    /// instruction has become hot) and it executes at most `budget` instructions. Returns the
    /// instructions executed and whether the wave ended, or `None` when no block ran (the
    /// caller steps instead).
    ///
    /// # Errors
    /// As [`Executor::step`]: a faulting instruction leaves the state as it was before it,
    /// with PC at it.
    pub(super) fn run_block(
        &mut self,
        program: &Program,
        wave: &mut WaveState,
        budget: u64,
    ) -> Result<Option<BlockRun>, WaveError> {
        if self.jit.is_none() || !self.block_compile {
            return Ok(None);
        }
        // Arrivals count from the program's first instruction on (a no-op at the entry does
        // not build plans, so the first step may not have adopted the program yet).
        self.adopt(program);
        let Some(idx) = program.position(wave.pc) else {
            return Ok(None);
        };
        if self.blocks.len() < program.insts.len() {
            self.blocks
                .resize_with(program.insts.len(), || Tier::Count(0));
        }
        if let Tier::Count(c) = &mut self.blocks[idx] {
            *c += 1;
            let c = *c;
            if c < self.block_threshold && !self.expected_hot(c) {
                return Ok(None);
            }
            // The block is built from the plans of instructions that have run: wait for its
            // first instruction's (it runs once the caller steps it).
            if !self.has_run(program, idx) {
                return Ok(None);
            }
            let start = std::time::Instant::now();
            let built = self.build_block(program, idx, wave);
            self.block_compile_time += start.elapsed();
            self.blocks[idx] = match built {
                Some(b) => Tier::Ready(Box::new(b)),
                None => Tier::Never,
            };
        }
        let Tier::Ready(b) = &mut self.blocks[idx] else {
            return Ok(None);
        };
        if b.quick.is_some()
            && b.quick_lane_ops >= self.block_optimise_threshold.saturating_mul(b.steps)
        {
            if let (Some(spec), Some(jit)) = (b.quick.take(), self.jit.as_ref()) {
                let start = std::time::Instant::now();
                // Failing, the quick code stays.
                if let Ok(code) = jit.recompile_block(&spec) {
                    b.code = code;
                }
                self.block_compile_time += start.elapsed();
            }
        }
        // (A state whose register files were shrunk through its public fields steps instead.)
        if b.mode != wave.mode
            || b.wave_size != wave.wave_size
            || b.steps > budget
            || wave.sgpr.len() < SGPR_WORDS
            || wave.vgpr.len() < VGPR_WORDS
        {
            return Ok(None);
        }
        if !b.mem.is_empty() && (!self.memory_fast_path || wave.last_access.is_some()) {
            return Ok(None);
        }
        // Only a block that branches back to its start runs more than once.
        let max_iters = if b.pc_off.is_some() {
            budget / b.steps
        } else {
            1
        };
        let wp: *mut WaveState = wave;
        for c in &b.mem {
            c.wave.set(wp);
        }
        let mut scc = wave.scc;
        // SAFETY: the register files have at least the ABI's words (checked above); while
        // the block runs, only its code and its memory calls (`block_mem::access`, through
        // `wp`) touch the wave, one at a time.
        let (r, iters) = unsafe {
            let (sgpr, vgpr) = ((*wp).sgpr.as_mut_ptr(), (*wp).vgpr.as_mut_ptr());
            b.code
                .run_raw(sgpr, vgpr, &mut scc, &mut b.arena, max_iters)
        };
        for c in &b.mem {
            c.wave.set(std::ptr::null_mut());
        }
        wave.scc = scc;
        let counted = b.arena[b.lanes_off / 16] as u64;
        if b.quick.is_some() {
            b.quick_lane_ops += counted;
        }
        if r != 0 {
            let (index, status) = ((r >> 32) as usize, r as u32);
            let (addr, inst) = b.insts[index].clone();
            let (before, next) = b.marks[index];
            let done = iters * b.steps + before;
            match status {
                // A forward branch taken: the wave goes on at its target.
                SIDE_EXIT => {
                    let target = b
                        .exits
                        .iter()
                        .find(|e| e.0 == index)
                        .map(|e| b.arena[e.1 / 16] as u64);
                    let Some(target) = target else {
                        wave.pc = addr;
                        return Err(WaveError::Exec {
                            addr,
                            inst,
                            message: "bug: a side exit the block does not have".into(),
                        });
                    };
                    if target != program.end() && program.at(target).is_none() {
                        wave.pc = addr;
                        // The clock counts what ran before the failing branch, as stepping.
                        wave.retired += done;
                        return Err(WaveError::PcOutOfProgram { from: addr, target });
                    }
                    self.block_lane_ops = counted;
                    wave.pc = target;
                    return Ok(Some(BlockRun {
                        steps: done + 1,
                        ended: false,
                        barrier: None,
                    }));
                }
                // A store into the watched range: stop after it.
                block_mem::AFTER => {
                    self.block_lane_ops = counted;
                    wave.pc = next;
                    return Ok(Some(BlockRun {
                        steps: done + 1,
                        ended: false,
                        barrier: None,
                    }));
                }
                // Left to the step path: stop before it (nothing of it done).
                block_mem::BEFORE => {
                    wave.pc = addr;
                    if done == 0 {
                        return Ok(None);
                    }
                    self.block_lane_ops = counted - wave.exec().count_ones() as u64;
                    return Ok(Some(BlockRun {
                        steps: done,
                        ended: false,
                        barrier: None,
                    }));
                }
                block_mem::FAULT => {
                    wave.pc = addr;
                    wave.retired += done;
                    let call = b.mem.iter().find(|c| c.d.addr == addr);
                    let e = call.and_then(|c| c.error.borrow_mut().take());
                    return Err(e.unwrap_or_else(|| WaveError::Exec {
                        addr,
                        inst,
                        message: "memory access failed".into(),
                    }));
                }
                _ => {
                    wave.pc = addr;
                    wave.retired += done;
                    return Err(WaveError::Exec {
                        addr,
                        inst,
                        message: crate::jit::block::status_error(status).to_string(),
                    });
                }
            }
        }
        let tail = b.trailing_noops + b.endpgm.is_some() as u64 + b.barrier.is_some() as u64;
        self.block_lane_ops = counted;
        if tail > 0 {
            self.block_lane_ops += tail * wave.exec().count_ones() as u64;
        }
        if let Some(at) = b.endpgm {
            wave.pc = at;
            return Ok(Some(BlockRun {
                steps: b.steps,
                ended: true,
                barrier: None,
            }));
        }
        if let Some((next, kind)) = b.barrier {
            wave.pc = next;
            return Ok(Some(BlockRun {
                steps: b.steps,
                ended: false,
                barrier: Some(kind),
            }));
        }
        let target = match b.pc_off {
            Some(off) => b.arena[off / 16] as u64,
            None => b.fall_through,
        };
        if target != program.end() && program.at(target).is_none() {
            wave.pc = b.last;
            // Every instruction ran but the last, whose branch leaves the program.
            wave.retired += (iters * b.steps).saturating_sub(1);
            return Err(WaveError::PcOutOfProgram {
                from: b.last,
                target,
            });
        }
        wave.pc = target;
        Ok(Some(BlockRun {
            steps: iters * b.steps,
            ended: false,
            barrier: None,
        }))
    }

    /// Whether a block start with `arrivals` so far is expected to reach the threshold
    /// within the current launch: at least two arrivals, and as many per wave still to come
    /// as per wave started so far ([`Executor::wave_starts`]).
    fn expected_hot(&self, arrivals: u32) -> bool {
        if arrivals < 2 || self.waves_started == 0 || self.waves_to_come == 0 {
            return false;
        }
        let a = arrivals as u128;
        let expected = a + a * self.waves_to_come as u128 / self.waves_started as u128;
        expected >= self.block_threshold as u128
    }

    /// Whether the first instruction from `idx` on that is not a no-op has run (stepping it
    /// cached its plan, or its entry when it is off the fast path); true when there is none.
    fn has_run(&self, program: &Program, idx: usize) -> bool {
        let Some(i) = (idx..program.insts.len()).find(|&i| program.insts[i].class != Class::Noop)
        else {
            return true;
        };
        program.insts[i].class != Class::Execute
            || matches!(self.plans.get(i), Some(Some(_)))
            || matches!(self.slow.get(i), Some(Some(_)))
            || self
                .vopd_halves
                .get(&(program.id, i))
                .is_some_and(|h| h.is_bound())
    }

    /// The two halves of the VOPD word at instruction `idx` lowered to block instructions
    /// in an order that runs them as the word does, both reading the state from before it:
    /// X then Y when Y reads no register X writes, else Y then X when X reads none Y writes.
    /// `None` (and `arena` as it was) when the halves have not been bound for this MODE and
    /// wave size, a half does not lower, each reads the other's destination, a half writes
    /// anything but VGPRs, or the second could fault (the first's effects would stay).
    fn vopd_block_halves(
        &self,
        program: &Program,
        idx: usize,
        wave: &WaveState,
        arena: &mut Vec<u8>,
    ) -> Option<[BlockInst; 2]> {
        let [(yd, (ye, yp)), (xd, (xe, xp))] =
            super::vopd::bound_halves(self, (program.id, idx), wave.mode, wave.wave_size)?;
        let base = arena.len();
        let lower = |e: &super::Entry, p: &fetch::Plan, h: &Decoded, arena: &mut Vec<u8>| {
            fetch::block::lower(e, p, h, wave.arch, wave.wave_size, arena)
                .filter(|l| l.pc_off.is_none())
                .map(|l| l.inst)
        };
        let halves =
            lower(&xe, &xp, &xd, arena).and_then(|x| Some((x, lower(&ye, &yp, &yd, arena)?)));
        let order = halves.and_then(|(x, y)| {
            let (xw, yw) = (vgpr_writes(&x)?, vgpr_writes(&y)?);
            let pair = if !reads_any(&y, &xw) {
                [x, y]
            } else if !reads_any(&x, &yw) {
                [y, x]
            } else {
                return None;
            };
            crate::jit::block::plan::plan(&pair[1], wave.wave_size)
                .is_some()
                .then_some(pair)
        });
        if order.is_none() {
            arena.truncate(base);
        }
        order
    }

    /// Builds and compiles the block starting at instruction `idx` from the cached plans;
    /// `None` when its first instruction cannot be lowered or compiling fails.
    fn build_block(&self, program: &Program, idx: usize, wave: &WaveState) -> Option<Block> {
        let jit = self.jit.as_ref()?;
        let lanes = wave.wave_size;
        let mut arena = Vec::new();
        let mut spec = BlockSpec {
            lanes,
            insts: Vec::new(),
            arena_size: 0,
            loop_to: None,
            exits: Vec::new(),
            lane_ops: None,
        };
        let mut counts = Vec::new();
        let mut noops = 0u32;
        let mut marks = Vec::new();
        let mut mem = Vec::new();
        let mut before = 0u64;
        let mut insts = Vec::new();
        let mut steps = 0u64;
        let mut pc_off = None;
        let mut last = None;
        let mut endpgm = None;
        let mut barrier = None;
        let mut exits = Vec::new();
        for (i, d) in program.insts.iter().enumerate().skip(idx).take(MAX_BLOCK) {
            match d.class {
                Class::Noop => {
                    steps += 1;
                    noops += 1;
                    last = Some(d);
                    continue;
                }
                // The wave's end closes the block (a block of nothing else is not built).
                Class::End => {
                    if !spec.insts.is_empty() {
                        endpgm = Some(d.addr);
                        steps += 1;
                    }
                    break;
                }
                // A barrier closes the block too: the wave then waits for the others.
                Class::Barrier(kind) => {
                    if !spec.insts.is_empty() {
                        barrier = Some((d.addr + d.size as u64, kind));
                        steps += 1;
                    }
                    break;
                }
                Class::AgprMove | Class::Native(_) => break,
                Class::Execute => {}
            }
            // A VOPD word: its two halves, in an order that reads what both read before
            // either writes.
            if d.inst.family == "VOPD" {
                let Some([first, second]) = self.vopd_block_halves(program, i, wave, &mut arena)
                else {
                    break;
                };
                before += noops as u64;
                for (k, inst) in [first, second].into_iter().enumerate() {
                    marks.push((before, d.addr + d.size as u64));
                    spec.insts.push(inst);
                    // The word is one step: its lanes count once.
                    counts.push(if k == 0 { 1 + noops } else { 0 });
                    insts.push((d.addr, d.inst.name.clone()));
                }
                before += 1;
                noops = 0;
                steps += 1;
                last = Some(d);
                continue;
            }
            let (inst, pc_off_here) = match self.plans.get(i) {
                Some(Some((e, p))) => {
                    if p.mode != wave.mode || p.addr != d.addr || p.name != d.inst.name {
                        break;
                    }
                    let Some(l) = fetch::block::lower(e, p, d, wave.arch, lanes, &mut arena) else {
                        break;
                    };
                    (l.inst, l.pc_off)
                }
                // A plain load or store with a prepared form: a call into `block_mem`.
                _ => match self
                    .mem_plans
                    .get(i)
                    .and_then(|p| p.as_deref()?.fast.as_ref())
                {
                    Some(op) if self.memory_fast_path => {
                        let call = MemCall::new(op.clone(), d.clone());
                        let off = arena.len().next_multiple_of(16);
                        arena.resize(off + 16, 0);
                        let ptr = &*call as *const MemCall as usize;
                        arena[off..off + 8].copy_from_slice(&ptr.to_le_bytes());
                        mem.push(call);
                        let inst = BlockInst {
                            code: block_mem::access_address(),
                            slots: off as u32,
                            inputs: Vec::new(),
                            outputs: Vec::new(),
                            consts: Vec::new(),
                            ir: None,
                        };
                        (inst, None)
                    }
                    _ => break,
                },
            };
            let l = fetch::block::Lowered {
                inst,
                pc_off: pc_off_here,
            };
            before += noops as u64;
            marks.push((before, d.addr + d.size as u64));
            before += 1;
            spec.insts.push(l.inst);
            counts.push(1 + noops);
            noops = 0;
            insts.push((d.addr, d.inst.name.clone()));
            steps += 1;
            last = Some(d);
            if let Some(off) = l.pc_off {
                // A forward conditional branch leaves the block only when taken.
                if forward_branch(d) {
                    let index = spec.insts.len() - 1;
                    spec.exits.push((index as u32, off, d.addr + d.size as u64));
                    exits.push((index, off as usize));
                    continue;
                }
                pc_off = Some(off);
                break;
            }
        }
        let last = last?;
        if spec.insts.is_empty() {
            return None;
        }
        let lanes_off = arena.len().next_multiple_of(16);
        arena.resize(lanes_off + 16, 0);
        spec.lane_ops = Some((lanes_off as u32, counts));
        spec.arena_size = arena.len();
        spec.loop_to = pc_off.map(|off| (program.insts[idx].addr, off));
        let (code, quick) = jit.compile_block_quick(&spec).ok()?;
        let arena = arena
            .chunks_exact(16)
            .map(|c| u128::from_le_bytes(c.try_into().unwrap_or([0; 16])))
            .collect();
        Some(Block {
            code,
            quick: quick.then(|| Box::new(spec)),
            quick_lane_ops: 0,
            arena,
            insts,
            steps,
            mode: wave.mode,
            wave_size: lanes,
            pc_off: pc_off.map(|o| o as usize),
            last: last.addr,
            fall_through: last.addr + last.size as u64,
            lanes_off,
            trailing_noops: noops as u64,
            endpgm,
            barrier,
            exits,
            marks,
            mem,
        })
    }
}

/// The VGPR rows `inst` writes; `None` when it writes anything else (an SGPR, a lane mask,
/// SCC).
fn vgpr_writes(inst: &BlockInst) -> Option<Vec<u32>> {
    use crate::jit::block::Output;
    inst.outputs
        .iter()
        .map(|o| match o {
            Output::Vgpr { row, .. } => Some(*row),
            _ => None,
        })
        .collect()
}

/// Whether `inst` reads any of the VGPR `rows`.
fn reads_any(inst: &BlockInst, rows: &[u32]) -> bool {
    use crate::jit::block::Input;
    inst.inputs.iter().any(|i| match i {
        Input::Vgpr { row, pair, .. } => rows.contains(row) || (*pair && rows.contains(&(row + 1))),
        _ => false,
    })
}

/// Whether `d` is a conditional branch to a later instruction (`s_cbranch_*` with a
/// non-negative offset): a block goes on past it while it falls through. A branch back (a
/// loop) ends its block, which then loops in place.
fn forward_branch(d: &Decoded) -> bool {
    d.facts.branch == crate::machine::Branch::Conditional
        && d.inst.field("simm16").is_some_and(|v| v as u16 as i16 >= 0)
}

impl Executor {
    /// Time spent building and compiling blocks since the executor was made.
    pub fn block_compile_time(&self) -> std::time::Duration {
        self.block_compile_time
    }

    /// The compiled blocks of the program last run: first address and instructions.
    pub fn blocks(&self) -> Vec<(u64, u64)> {
        self.blocks
            .iter()
            .filter_map(|t| match t {
                Tier::Ready(b) => Some((b.insts.first().map_or(b.last, |i| i.0), b.steps)),
                _ => None,
            })
            .collect()
    }

    /// The number of blocks compiled for the program last run.
    pub fn blocks_compiled(&self) -> usize {
        self.blocks
            .iter()
            .filter(|t| matches!(t, Tier::Ready(_)))
            .count()
    }
}
