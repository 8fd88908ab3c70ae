//! Wave execution: runs a program of machine instructions on a modelled wavefront, every
//! instruction executing AMD's own pseudocode through the interpreter or the JIT.
//!
//! The pseudocode of one instruction reads and writes named operands (`S0`, `D0`, `VCC`,
//! `SCC`, ...) but says nothing about *where* they live: that is the encoding's job. This
//! module does it. [`Executor::step`] decodes the instruction at PC, fetches each source from
//! its encoding field (SGPRs, VGPRs of every lane, inline constants, the literal, 64-bit pairs,
//! VOP3 `neg`/`abs`/`op_sel` and VOP3P packed selection), runs the entry with a single-instruction
//! [`crate::exec::Machine`], and writes the outputs back: `D0` to `vdst`/`sdst` (lanes whose EXEC
//! bit was set at issue only), VOPC lane masks to VCC, VOP3/VOP3SD lane masks to their SGPR
//! destination, `clamp`/`omod` on float results, `SCC`, `EXEC`, `M0` and `PC`. A write to
//! `PC` is a branch; otherwise PC advances by the instruction's size.
//!
//! Lane masks written by vector instructions (VOPC results, carry-outs) hold zeros for lanes
//! that were inactive, as on hardware. In wave32 they write one SGPR, in wave64 a pair.
//!
//! Instructions that only order or wait (`s_nop`, `s_waitcnt*`, `s_delay_alu`, `s_clause`,
//! cache invalidations, `s_barrier` with one wave) are no-ops: this model has no timing.
//! `s_endpgm` ends the program, as does running off its end.
//!
//! ```no_run
//! use amdpcode::spec::{self, Arch, Spec};
//! use amdpcode::wave::{Engine, Executor, Program};
//! let spec = Spec::load(&spec::find_wheel(&spec::Locate::default()).unwrap()).unwrap();
//! let mut ex = Executor::new(spec.db(Arch::Rdna3), Engine::Interp).unwrap();
//! // s_mov_b32 s0, 5; s_add_u32 s1, s0, 7
//! let program = Program::from_hex(ex.isa(), "850080be 00870180").unwrap();
//! let mut wave = ex.new_wave(32);
//! ex.run(&program, &mut wave).unwrap();
//! assert_eq!(wave.sgpr[1], 12);
//! ```

mod agpr;
mod block;
mod block_mem;
pub(crate) mod decode;
pub(crate) mod dpp;
pub(crate) mod fetch;
pub mod fidelity;
mod gpr_idx;
pub mod json;
mod memfast;
mod memory;
mod memory_buffer;
mod memory_space;
pub use memory_buffer::scratch_resource;
mod memory_plan;
pub(crate) use memory_plan::address_regs;
mod memprep;
pub mod native;
mod program;
pub use agpr::row_name;
pub use block::{DEFAULT_BLOCK_THRESHOLD, DEFAULT_OPTIMISE_THRESHOLD};
pub use memory::SCRATCH_LANE_SPAN;
pub use program::{Class, Decoded, Program};
pub(crate) mod sdwa;
mod startup;
pub use startup::{mark_main, prepare_heap};
mod state;
pub(crate) mod vopd;

use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

use crate::exec::{self, Machine, Prepared};
use crate::interp::compiled::{Compiled, Scratch};
use crate::isa::{self, Isa};
use crate::jit::{Jit, Kernel};
use crate::machine::RegSpaces;
use crate::spec::{Arch, Instruction, SpecDb};

pub use state::{
    code, default_mode, dword_code, m0_code, mode, mode_from_rsrc1, n_sgprs, null_code, sgpr_name,
    vgpr_rows, Bounds, LoadRule, MemAccess, MemSpace, WaveState, AGPR_ROW, LANE_SLOTS, N_AGPRS,
    N_VGPRS, PRIVATE_APERTURE, SHARED_APERTURE,
};

/// Which executor runs each instruction's pseudocode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The IR interpreter.
    Interp,
    /// The Cranelift JIT (each entry compiled once, on first use).
    Jit,
}

impl Engine {
    /// `interp` or `jit`.
    pub fn from_name(name: &str) -> Option<Engine> {
        match name {
            "interp" => Some(Engine::Interp),
            "jit" => Some(Engine::Jit),
            _ => None,
        }
    }
}

/// The default number of instructions a run may execute.
pub const DEFAULT_STEP_BUDGET: u64 = 1_000_000;

/// Why a program could not be loaded or run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaveError {
    /// The program text is not valid hex.
    BadHex {
        /// The offending text.
        text: String,
    },
    /// A word that decodes to no instruction of the arch.
    Undecodable {
        /// The byte offset.
        addr: u64,
        /// The decoder's message.
        message: String,
    },
    /// Assembly text that does not assemble.
    Asm {
        /// The 1-based line.
        line: usize,
        /// The assembler's message.
        message: String,
    },
    /// PC left the program (a branch to an address that is not an instruction of it).
    PcOutOfProgram {
        /// The instruction that jumped.
        from: u64,
        /// The target.
        target: u64,
    },
    /// The step budget ran out.
    StepBudget {
        /// Instructions executed.
        steps: u64,
    },
    /// An instruction this model cannot execute.
    Unsupported {
        /// The byte offset.
        addr: u64,
        /// The instruction.
        inst: String,
        /// Why.
        reason: String,
    },
    /// The pseudocode faulted.
    Exec {
        /// The byte offset.
        addr: u64,
        /// The instruction.
        inst: String,
        /// The fault.
        message: String,
    },
    /// A memory access outside what the launch mapped.
    MemoryFault {
        /// The instruction's address.
        addr: u64,
        /// The instruction.
        inst: String,
        /// `global`, `LDS` or `scratch`.
        space: &'static str,
        /// The first byte address accessed.
        address: u64,
        /// The bytes accessed.
        bytes: u64,
        /// The lane (0 for scalar memory).
        lane: u32,
    },
    /// The JIT could not be created.
    Jit {
        /// Why.
        message: String,
    },
}

impl fmt::Display for WaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WaveError::BadHex { text } => write!(f, "bad hex in program: `{text}`"),
            WaveError::Undecodable { addr, message } => {
                write!(f, "address 0x{addr:x}: {message}")
            }
            WaveError::Asm { line, message } => write!(f, "line {line}: {message}"),
            WaveError::PcOutOfProgram { from, target } => write!(
                f,
                "address 0x{from:x}: jump to 0x{target:x}, outside the program"
            ),
            WaveError::StepBudget { steps } => write!(
                f,
                "step budget exhausted after {steps} instructions (runaway program?)"
            ),
            WaveError::Unsupported { addr, inst, reason } => {
                write!(f, "address 0x{addr:x}: {inst}: {reason}")
            }
            WaveError::Exec {
                addr,
                inst,
                message,
            } => write!(f, "address 0x{addr:x}: {inst}: {message}"),
            WaveError::MemoryFault {
                addr,
                inst,
                space,
                address,
                bytes,
                lane,
            } => write!(
                f,
                "address 0x{addr:x}: {inst}: memory fault: lane {lane} accesses {bytes} {space} \
                 byte(s) at 0x{address:x}, outside the memory the launch mapped"
            ),
            WaveError::Jit { message } => write!(f, "JIT: {message}"),
        }
    }
}

impl std::error::Error for WaveError {}

/// What one step did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// The wave continues at the new PC.
    Continue,
    /// The program ended (`s_endpgm`, or PC reached the end).
    Ended,
    /// The wave executed a barrier instruction and continues at the new PC once the
    /// barrier releases (a lone wave: at once).
    Barrier(Barrier),
}

/// A per-instruction trace callback: the instruction, the state before and after.
pub type StepTrace<'a> = dyn FnMut(&Decoded, &WaveState, &WaveState) + 'a;

/// What a barrier instruction does for its wave (a fact of the instruction).
pub use crate::machine::Barrier;

/// A compiled instruction: its spec entry, prepared IR and, under the JIT, its kernel.
struct Entry {
    inst: Instruction,
    prepared: Prepared,
    /// The same with optimised IR (constants folded, constant loops unrolled): what the
    /// interpreter runs on the bound fast path.
    optimized: Prepared,
    /// `optimized` compiled into the interpreter's prepared form (`interp::compiled`), when
    /// the interpreter may run the entry (interpreter engine, or JIT tiering) and its values
    /// fit 64 bits.
    compiled: Option<Compiled>,
    /// The kernel, once compiled (`None` inside: the JIT does not compile this entry).
    kernel: std::cell::OnceCell<Option<Kernel>>,
    /// Under the JIT: the JIT and the executions interpreted before the kernel is compiled
    /// ([`Executor::jit_threshold`] when the entry was built).
    jit: Option<(Jit, u32)>,
    /// Executions so far, counted until the kernel is compiled.
    uses: std::cell::Cell<u32>,
    /// The kernel's slot layout (as `Jit::compile` lays it out).
    layout: crate::jit::Layout,
    /// The text addresses the SGPR file itself (`SGPR[...]`).
    sgpr_space: bool,
    /// The text addresses the VGPR file itself (`VGPR[lane][...]`).
    vgpr_space: bool,
    /// The text reads or writes the hardware registers (`HW_REGISTERS[...]`: s_getreg,
    /// s_setreg), which the general path binds to MODE and the clock.
    hwreg_space: bool,
}

impl Entry {
    /// The kernel to run this execution, or `None` to interpret it: under the JIT, an entry
    /// is interpreted for its first `threshold` executions and compiled at the next (tiering).
    fn kernel(&self) -> Option<&Kernel> {
        if let Some(k) = self.kernel.get() {
            return k.as_ref();
        }
        let (_, threshold) = self.jit.as_ref()?;
        let n = self.uses.get().saturating_add(1);
        self.uses.set(n);
        if n <= *threshold {
            return None;
        }
        self.kernel_now()
    }

    /// The kernel, compiling it now if it is not yet (blocks need every kernel).
    fn kernel_now(&self) -> Option<&Kernel> {
        self.kernel
            .get_or_init(|| {
                let (jit, _) = self.jit.as_ref()?;
                jit.compile(&self.prepared).ok()
            })
            .as_ref()
    }
}

/// Runs programs on waves of one arch. Prepared instructions (and JIT kernels) are cached per
/// instruction, so a loop compiles each of its instructions once.
pub struct Executor {
    db: SpecDb,
    isa: Isa,
    engine: Engine,
    jit: Option<Jit>,
    cache: HashMap<String, Result<Rc<Entry>, String>>,
    /// The maximum number of instructions one [`Executor::run`] executes.
    pub step_budget: u64,
    /// Lane operations executed by [`Executor::run_until`]: each instruction counts the lanes
    /// EXEC enables when it issues.
    pub lane_ops: u64,
    machine: Machine,
    /// The JIT fast path's slot buffers, one per plan (same index as `plans`), with the
    /// number of lanes its constant operands were written for (0: not yet). Constants are
    /// written once; everything else is rewritten at each step.
    plan_slots: Vec<(Vec<u8>, u32)>,
    /// The slot buffer of plans outside the cache (VOPD halves).
    scratch_slots: Vec<u8>,
    /// The interpreter's register slots and scratch buffers (`interp::compiled`).
    interp_slots: Vec<u64>,
    interp_scratch: Scratch,
    /// Fast-path binding plans per instruction index of the program last run (identified by
    /// its instruction buffer); each is checked against the instruction's address and name.
    plans: Vec<Option<(Rc<Entry>, Rc<fetch::Plan>)>>,
    /// The entries of instructions that do not take the fast path, by the same index.
    slow: Vec<Option<Rc<Entry>>>,
    /// The plans of memory instructions (`memory_plan.rs`), by the same index.
    mem_plans: Vec<Option<Rc<memprep::Planned>>>,
    plans_of: (u64, usize),
    /// EXEC at issue while a DPP16 instruction runs with its disabled lanes masked out of
    /// EXEC (sources are still fetched from every lane active at issue).
    dpp_source_exec: Option<u64>,
    /// Trace callbacks need only the state after each instruction (an observer such as
    /// `crate::sanitizer`): the state is not cloned per step and `before` is `after`.
    pub trace_after_only: bool,
    /// Under the JIT engine, compile hot straight-line runs of instructions into blocks
    /// (`block.rs`) for [`Executor::run_fast`] and untraced [`Executor::run_until`]; on by
    /// default. Off, every instruction is one executor step (the per-instruction JIT).
    pub block_compile: bool,
    /// Arrivals at an instruction before the block starting there is compiled.
    pub block_threshold: u32,
    /// Lane-instructions per instruction of a block (`block.rs`) that its quick code (compiled
    /// without Cranelift's optimiser) runs before it is compiled again with the optimiser.
    pub block_optimise_threshold: u64,
    /// Under the JIT engine, executions of an instruction (by name) that are interpreted
    /// before its kernel is compiled; 0 (the default) compiles on first use. Applies to
    /// entries prepared after it is set. The CLI uses [`DEFAULT_JIT_THRESHOLD`].
    pub jit_threshold: u32,
    /// Run RDNA 3's plain loads and stores (`memfast.rs`) directly instead of through their
    /// pseudocode; on by default, the same under both engines.
    pub memory_fast_path: bool,
    /// Under the interpreter, run fast-path instructions on their prepared form
    /// (`interp::compiled`); on by default. Off, they run on the tree walk, the reference the
    /// prepared form is checked against (`cargo bench --bench wave` reports both).
    pub prepared_interp: bool,
    /// On the prepared form, run entries that have one on the lane-vectorized form
    /// (`interp::lanes`: each node over all active lanes); on by default. Off, every entry
    /// runs lane after lane (`cargo bench --bench wave` reports both).
    pub lane_interp: bool,
    /// Block state per instruction index of the program last run (same key as `plans`).
    blocks: Vec<block::Tier>,
    /// Waves a dispatcher has started on the program last run ([`Executor::wave_starts`]).
    waves_started: u64,
    /// Waves of the current launch that start after the running one, as its dispatcher
    /// last said ([`Executor::wave_starts`]); 0 outside a dispatch.
    waves_to_come: u64,
    /// The plans, prepared memory operations and blocks of programs run before the last
    /// one, by the same key (least recently left first), so launches that alternate between
    /// programs keep them instead of building them again.
    stash: Vec<((u64, usize), ProgramState)>,
    /// VOPD instructions split into their halves (`vopd.rs`).
    vopd_halves: vopd::Halves,
    /// Time spent building and compiling blocks.
    block_compile_time: std::time::Duration,
    /// The lane operations of the last block run (`block.rs`).
    block_lane_ops: u64,
}

/// What an executor keeps per program (see `Executor::stash`).
#[derive(Default)]
struct ProgramState {
    plans: Vec<Option<(Rc<Entry>, Rc<fetch::Plan>)>>,
    plan_slots: Vec<(Vec<u8>, u32)>,
    slow: Vec<Option<Rc<Entry>>>,
    mem_plans: Vec<Option<Rc<memprep::Planned>>>,
    blocks: Vec<block::Tier>,
    waves_started: u64,
}

/// The most programs an executor keeps the per-instruction state of besides the last one.
const PROGRAM_STASH: usize = 32;

/// Interpreted executions of an instruction before the CLI's JIT engine compiles it
/// ([`Executor::jit_threshold`]; `docs/jit.md`, "Tiering").
pub const DEFAULT_JIT_THRESHOLD: u32 = 256;

/// The CLI's [`Executor::jit_threshold`]: `AMDPCODE_JIT_THRESHOLD` when it is a number,
/// else [`DEFAULT_JIT_THRESHOLD`].
pub fn cli_jit_threshold() -> u32 {
    std::env::var("AMDPCODE_JIT_THRESHOLD")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_JIT_THRESHOLD)
}

/// Why an instruction cannot run although it has text: the text reads its sources or
/// destination (`S0`, `S1`, `S2`, `D0`) and the database knows no operand layout for it on
/// this target, so its fields (a literal among them) would be decoded as nothing.
pub(crate) fn missing_operand_layout(
    inst: &Instruction,
    prepared: &exec::Prepared,
) -> Option<String> {
    let reads = ["S0", "S1", "S2", "D0"]
        .into_iter()
        .any(|r| prepared.function.reg(r).is_some());
    (reads && inst.operands.is_empty()).then(|| {
        "its text reads operands, but the database has no operand layout for it on this \
         target (semantics/targets/: no donor instruction)"
            .to_string()
    })
}

/// AMD's CDNA tables leave the VOP3 (`_E64`) form of some VOP1/VOP2 entries without text;
/// the encoding changes, not the operation, so the `_E32` twin's text runs with the `_E64`
/// entry's operands. `inst` with that text, or `None` when `inst` has text or no twin.
pub(crate) fn e32_twin(db: &SpecDb, inst: &Instruction) -> Option<Instruction> {
    if inst.pcode.is_some() {
        return None;
    }
    let base = inst.name.strip_suffix("_E64")?;
    let text = db.get_all(&format!("{base}_E32")).first()?.pcode.clone()?;
    Some(Instruction {
        pcode: Some(text),
        ..inst.clone()
    })
}

/// The database entry decoded instruction `di` runs and its prepared text, as the executor
/// runs it (the `_E32` twin's text for a textless `_E64` entry; a VOP3SD D0 per lane when
/// the result goes to a VGPR). Other engines that bind operands through `fetch` (the
/// sanitizer's definedness domain) take their entries from here.
pub(crate) fn prepare_entry(
    db: &SpecDb,
    isa: &Isa,
    di: &isa::Inst,
) -> Result<(Instruction, Prepared), String> {
    let all = db.get_all(&di.name);
    let inst = all
        .iter()
        .find(|i| i.encoding == di.family)
        .or_else(|| all.first())
        .ok_or_else(|| "not in the spec database".to_string())?;
    let twin = e32_twin(db, inst);
    let mut prepared = exec::prepare(db.arch(), twin.as_ref().unwrap_or(inst))
        .map_err(|e| format!("no executable pseudocode ({})", e.diagnostic.summary()))?;
    if let Some(why) = missing_operand_layout(inst, &prepared) {
        return Err(why);
    }
    // `exec::Prepared` takes D0's kind from the first of `vdst`/`sdst` in operand order,
    // so a VOP3SD entry listing `sdst` first (v_div_scale_*) gets a per-wave D0; the
    // result goes to the VGPR `vdst`, one value per lane.
    if prepared.vector && !prepared.wave_level && di.family == "VOP3SD" {
        let vgpr_dst = isa.facts().of_code(&di.family, di.opcode).vdst_vgpr;
        if let (true, Some(r)) = (vgpr_dst, prepared.function.reg("D0")) {
            prepared.per_lane[r.0 as usize] = true;
        }
    }
    Ok(((*inst).clone(), prepared))
}

impl Executor {
    /// An executor for `db`'s arch.
    ///
    /// # Errors
    /// [`WaveError::Jit`] when the JIT engine is asked for and the host is not supported.
    pub fn new(db: &SpecDb, engine: Engine) -> Result<Executor, WaveError> {
        let jit = match engine {
            Engine::Jit => Some(Jit::new().map_err(|e| WaveError::Jit {
                message: e.to_string(),
            })?),
            Engine::Interp => None,
        };
        Ok(Executor {
            db: db.clone(),
            isa: Isa::new(db),
            engine,
            jit,
            cache: HashMap::new(),
            step_budget: DEFAULT_STEP_BUDGET,
            lane_ops: 0,
            machine: Machine::new(32),
            plan_slots: Vec::new(),
            scratch_slots: Vec::new(),
            interp_slots: Vec::new(),
            interp_scratch: Scratch::default(),
            plans: Vec::new(),
            slow: Vec::new(),
            mem_plans: Vec::new(),
            plans_of: (0, 0),
            dpp_source_exec: None,
            trace_after_only: false,
            block_compile: true,
            block_threshold: DEFAULT_BLOCK_THRESHOLD,
            block_optimise_threshold: DEFAULT_OPTIMISE_THRESHOLD,
            jit_threshold: 0,
            memory_fast_path: true,
            prepared_interp: true,
            lane_interp: true,
            blocks: Vec::new(),
            waves_started: 0,
            waves_to_come: 0,
            stash: Vec::new(),
            vopd_halves: Default::default(),
            block_compile_time: std::time::Duration::ZERO,
            block_lane_ops: 0,
        })
    }

    /// The arch.
    pub fn arch(&self) -> Arch {
        self.db.arch()
    }

    /// The spec database.
    pub fn db(&self) -> &SpecDb {
        &self.db
    }

    /// The engine.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// The assembler/decoder of the arch.
    pub fn isa(&self) -> &Isa {
        &self.isa
    }

    /// A fresh zeroed wave of this arch (full EXEC).
    pub fn new_wave(&self, wave_size: u32) -> WaveState {
        WaveState::new(self.arch(), wave_size)
    }

    fn entry(&mut self, d: &Decoded) -> Result<Rc<Entry>, WaveError> {
        let name = &d.inst.name;
        if let Some(e) = self.cache.get(name) {
            return e.clone().map_err(|reason| WaveError::Unsupported {
                addr: d.addr,
                inst: name.clone(),
                reason,
            });
        }
        let r = self.build_entry(&d.inst);
        self.cache.insert(name.clone(), r.clone());
        r.map_err(|reason| WaveError::Unsupported {
            addr: d.addr,
            inst: name.clone(),
            reason,
        })
    }

    fn build_entry(&self, di: &isa::Inst) -> Result<Rc<Entry>, String> {
        // The decoder joins `v_mfma_ld_scale_b32` with the scaled MFMA word after it; one
        // that reaches here has no such word after it.
        let facts = self.isa.facts().of_code(&di.family, di.opcode);
        if let Some(why) = facts.refusal.map(native::refused) {
            return Err(format!("not modelled: {why}"));
        }
        if di.name == isa::SCALE_LOAD {
            return Err(
                "v_mfma_ld_scale_b32 is not followed by a scale-capable MFMA word \
                 (v_mfma_scale_f32_16x16x128_f8f6f4 / 32x32x64): the scales it loads are \
                 consumed only by that pair, which runs as one instruction"
                    .to_string(),
            );
        }
        let (inst, prepared) = prepare_entry(&self.db, &self.isa, di)?;
        let inst = &inst;
        // The executed text may be an erratum, not AMD's: look at the prepared IR.
        let spaces = RegSpaces::of(&prepared.function);
        let vgpr_space = spaces.vgpr;
        // An entry the JIT does not compile (values wider than 128 bits, ...) runs on the
        // interpreter, which computes the same function; `jit_fallbacks` lists them. With a
        // tiering threshold the kernel is compiled when the entry has become hot.
        // Entries that address the VGPR file themselves (matrix, cross-lane) are interpreted
        // by the tree walk over the whole wave: one execution of `v_wmma_f32_16x16x16_f16`
        // costs ~2 ms there, more than compiling it, so they are compiled at first use.
        let threshold = if vgpr_space { 0 } else { self.jit_threshold };
        let jit = self.jit.clone().map(|j| (j, threshold));
        let optimized = prepared.optimized();
        // The interpreter's prepared form, for entries the interpreter runs (the interpreter
        // engine, and the JIT's executions before an entry becomes hot).
        let compiled = match &jit {
            Some((_, 0)) => None,
            _ => Compiled::new(&optimized.function, &optimized.per_lane),
        };
        let entry = Entry {
            inst: (*inst).clone(),
            sgpr_space: spaces.sgpr,
            hwreg_space: spaces.hwreg,
            vgpr_space,
            layout: crate::jit::Layout::new(&prepared.per_lane),
            optimized,
            compiled,
            prepared,
            kernel: std::cell::OnceCell::new(),
            jit,
            uses: std::cell::Cell::new(0),
        };
        if threshold == 0 {
            entry.kernel_now();
        }
        Ok(Rc::new(entry))
    }

    /// Instructions used so far that the JIT engine could not compile and ran on the
    /// interpreter instead (with tiering, only those that became hot enough to be tried).
    pub fn jit_fallbacks(&self) -> Vec<String> {
        if self.jit.is_none() {
            return Vec::new();
        }
        let mut v: Vec<String> = self
            .cache
            .iter()
            .filter(|(_, e)| matches!(e, Ok(e) if matches!(e.kernel.get(), Some(None))))
            .map(|(n, _)| n.clone())
            .collect();
        v.sort();
        v
    }

    /// The number of instruction kernels the JIT has compiled so far (with tiering, only
    /// instructions run more than [`Executor::jit_threshold`] times).
    pub fn jit_kernels_compiled(&self) -> usize {
        self.cache
            .values()
            .filter(|e| matches!(e, Ok(e) if matches!(e.kernel.get(), Some(Some(_)))))
            .count()
    }

    /// Runs from `wave.pc` until the program ends.
    ///
    /// # Errors
    /// The first [`WaveError`]; `wave` then holds the state before the failing instruction.
    pub fn run(&mut self, program: &Program, wave: &mut WaveState) -> Result<u64, WaveError> {
        self.run_traced(program, wave, &mut |_, _, _| {})
    }

    /// Runs like [`Executor::run`], calling `trace(decoded, before, after)` after each
    /// instruction. Returns the number of instructions executed.
    ///
    /// # Errors
    /// The first [`WaveError`].
    pub fn run_traced(
        &mut self,
        program: &Program,
        wave: &mut WaveState,
        trace: &mut dyn FnMut(&Decoded, &WaveState, &WaveState),
    ) -> Result<u64, WaveError> {
        let mut steps = 0u64;
        loop {
            if steps >= self.step_budget {
                return Err(WaveError::StepBudget { steps });
            }
            let d_addr = wave.pc;
            if self.trace_after_only {
                let r = self.step(program, wave)?;
                steps += 1;
                if let Some(d) = program.at(d_addr) {
                    trace(d, wave, wave);
                }
                if r == Step::Ended {
                    return Ok(steps);
                }
                continue;
            }
            let before = wave.clone();
            let r = self.step(program, wave)?;
            steps += 1;
            if let Some(d) = program.at(d_addr) {
                trace(d, &before, wave);
            }
            if r == Step::Ended {
                return Ok(steps);
            }
        }
    }

    /// Runs without tracing and without cloning the state per step (the fast path).
    ///
    /// # Errors
    /// The first [`WaveError`].
    pub fn run_fast(&mut self, program: &Program, wave: &mut WaveState) -> Result<u64, WaveError> {
        let mut steps = 0u64;
        loop {
            if steps >= self.step_budget {
                return Err(WaveError::StepBudget { steps });
            }
            if let Some(run) = self.run_block(program, wave, self.step_budget - steps)? {
                steps += run.steps;
                wave.retired += run.steps;
                if run.ended || wave.pc == program.end() {
                    return Ok(steps);
                }
                continue;
            }
            let r = self.step(program, wave)?;
            steps += 1;
            if r == Step::Ended {
                return Ok(steps);
            }
        }
    }

    /// Runs until the wave ends or executes a barrier instruction, or until `budget`
    /// instructions have run. Returns what stopped it ([`Step::Continue`] when the budget
    /// ran out, or earlier, right after an instruction that wrote the range the wave's memory
    /// watches: the caller then decodes the code again) and the number of instructions
    /// executed. `trace`, when given, is called as
    /// in [`Executor::run_traced`] (the state is cloned before each step only then).
    ///
    /// # Errors
    /// The first [`WaveError`]; `wave` then holds the state before the failing instruction.
    pub fn run_until(
        &mut self,
        program: &Program,
        wave: &mut WaveState,
        budget: u64,
        mut trace: Option<&mut StepTrace<'_>>,
    ) -> Result<(Step, u64), WaveError> {
        let mut steps = 0u64;
        while steps < budget {
            if trace.is_none() {
                if let Some(run) = self.run_block(program, wave, budget - steps)? {
                    // The block counted each instruction's active lanes at issue.
                    self.lane_ops += self.block_lane_ops;
                    steps += run.steps;
                    wave.retired += run.steps;
                    if run.ended || wave.pc == program.end() {
                        return Ok((Step::Ended, steps));
                    }
                    if let Some(kind) = run.barrier {
                        return Ok((Step::Barrier(kind), steps));
                    }
                    if wave.memory.watched_write() {
                        return Ok((Step::Continue, steps));
                    }
                    continue;
                }
            }
            self.lane_ops += wave.exec().count_ones() as u64;
            let r = match trace.as_mut() {
                Some(t) if self.trace_after_only => {
                    let at = wave.pc;
                    let r = self.step(program, wave)?;
                    if let Some(d) = program.at(at) {
                        t(d, wave, wave);
                    }
                    r
                }
                Some(t) => {
                    let before = wave.clone();
                    let at = wave.pc;
                    let r = self.step(program, wave)?;
                    if let Some(d) = program.at(at) {
                        t(d, &before, wave);
                    }
                    r
                }
                None => self.step(program, wave)?,
            };
            steps += 1;
            if r != Step::Continue {
                return Ok((r, steps));
            }
            // The program's code was written (`SparseMemory::watch_writes`): the caller
            // decodes it again before the wave goes on.
            if wave.memory.watched_write() {
                return Ok((Step::Continue, steps));
            }
        }
        Ok((Step::Continue, steps))
    }

    /// Executes the instruction at `wave.pc`.
    ///
    /// # Errors
    /// [`WaveError::PcOutOfProgram`], [`WaveError::Unsupported`] or [`WaveError::Exec`].
    pub fn step(&mut self, program: &Program, wave: &mut WaveState) -> Result<Step, WaveError> {
        // The clock counts executed instructions (a step at the program's end executes none).
        let executes = wave.pc != program.end();
        let r = self.step_dpp(program, wave);
        startup::note_step();
        if r.is_ok() && executes {
            wave.retired += 1;
        }
        r
    }

    fn step_dpp(&mut self, program: &Program, wave: &mut WaveState) -> Result<Step, WaveError> {
        // A DPP16 instruction whose row/bank masks (or invalid sources without bound_ctrl)
        // switch lanes off runs with those lanes out of EXEC: they keep their destination
        // and write no lane-mask bit, as lanes inactive at issue do.
        let dpp = program
            .position(wave.pc)
            .and_then(|i| program.insts[i].ext)
            .and_then(|ext| {
                let exec = wave.exec();
                let gfx9 = wave.arch.is_gfx9();
                dpp::write_mask(ext, wave.wave_size, exec, gfx9).map(|m| (exec, m))
            });
        let Some((exec, mask)) = dpp.filter(|(exec, m)| m != exec) else {
            return self.step_inner(program, wave);
        };
        wave.set_exec(mask);
        self.dpp_source_exec = Some(exec);
        let r = self.step_inner(program, wave);
        self.dpp_source_exec = None;
        // Unless the instruction wrote EXEC itself (V_CMPX), EXEC is what it was.
        if wave.exec() == mask {
            wave.set_exec(exec);
        }
        r
    }

    fn step_inner(&mut self, program: &Program, wave: &mut WaveState) -> Result<Step, WaveError> {
        if wave.pc == program.end() {
            return Ok(Step::Ended);
        }
        let idx = program.position(wave.pc).ok_or(WaveError::PcOutOfProgram {
            from: wave.pc,
            target: wave.pc,
        })?;
        let d = &program.insts[idx];
        // CDNA VGPR indexing mode: VALU operands moved by M0, run off the plan cache.
        if gpr_idx::enabled(wave) {
            if let Some(moved) = gpr_idx::indexed(d, wave.m0()) {
                let entry = self.entry(&moved)?;
                let next = fetch::execute(self, &entry, &moved, wave)?;
                return self.advance(program, d, next, wave);
            }
        }
        // An instruction with a cached plan is neither a no-op nor the end. The plan is
        // taken out of its slot while it runs (no reference counting on the hot path).
        if let Some((entry, plan)) = self.plan_take(program, idx, wave.mode) {
            let r = fetch::execute_bound(self, &entry, &plan, d, wave);
            self.plans[idx] = Some((entry, plan));
            return self.advance(program, d, r?, wave);
        }
        match d.class {
            Class::End => return Ok(Step::Ended),
            Class::Noop => {
                wave.pc += d.size as u64;
                return Ok(self.check_pc(program, d, wave.pc));
            }
            Class::Barrier(kind) => {
                wave.pc += d.size as u64;
                return Ok(match self.check_pc(program, d, wave.pc) {
                    Step::Continue => Step::Barrier(kind),
                    other => other,
                });
            }
            Class::AgprMove => {
                agpr::execute(d, wave)?;
                return self.advance(program, d, None, wave);
            }
            Class::Native(kind) => {
                native::execute(kind, d, wave)?;
                return self.advance(program, d, None, wave);
            }
            Class::Execute => {}
        }
        let next = if d.inst.family == "VOPD" {
            vopd::execute(self, (program.id, idx), d, wave)?
        } else if let Some(entry) = self.slow_entry(program, idx) {
            // An instruction off the bound fast path (memory, register-file addressing)
            // whose entry is cached: no name lookup. A plain load or store runs from its
            // prepared form when it has one (and no observer wants its accesses).
            let plan = self.mem_plans[idx].clone();
            let prepared = match plan.as_deref().and_then(|p| p.fast.as_ref()) {
                Some(op) if self.memory_fast_path && wave.last_access.is_none() => {
                    memprep::run(op, d, wave)
                }
                _ => None,
            };
            match (prepared, plan) {
                (Some(r), _) => {
                    r?;
                    None
                }
                (None, Some(plan)) => memory::run(self, &entry, &plan, d, wave)?,
                (None, None) => fetch::execute(self, &entry, d, wave)?,
            }
        } else if let Some((entry, plan)) = self.cached_plan(program, idx, wave)? {
            fetch::execute_bound(self, &entry, &plan, d, wave)?
        } else {
            let entry = self.entry(d)?;
            fetch::execute(self, &entry, d, wave)?
        };
        self.advance(program, d, next, wave)
    }

    /// Moves PC to the branch target `next` or past `d`.
    fn advance(
        &self,
        program: &Program,
        d: &Decoded,
        next: Option<u64>,
        wave: &mut WaveState,
    ) -> Result<Step, WaveError> {
        let target = next.unwrap_or(d.addr + d.size as u64);
        if target != program.end() && program.at(target).is_none() {
            return Err(WaveError::PcOutOfProgram {
                from: d.addr,
                target,
            });
        }
        wave.pc = target;
        Ok(if target == program.end() {
            Step::Ended
        } else {
            Step::Continue
        })
    }

    /// Takes the cached entry and plan of instruction `idx` of `program` out of the cache,
    /// if built (the caller puts them back).
    #[allow(clippy::type_complexity)]
    fn plan_take(
        &mut self,
        program: &Program,
        idx: usize,
        mode: u32,
    ) -> Option<(Rc<Entry>, Rc<fetch::Plan>)> {
        if self.plans_of != (program.id, program.insts.len()) {
            return None;
        }
        // Programs never change once built, so (id, index) identifies the instruction; a
        // plan holds for the MODE it was made under.
        let slot = self.plans.get_mut(idx)?;
        if slot.as_ref().is_some_and(|(_, p)| p.mode != mode) {
            return None;
        }
        slot.take()
    }

    /// The cached entry and binding plan of instruction `idx`, building them on first use;
    /// `None` for instructions that do not take the fast path.
    #[allow(clippy::type_complexity)]
    fn cached_plan(
        &mut self,
        program: &Program,
        idx: usize,
        wave: &WaveState,
    ) -> Result<Option<(Rc<Entry>, Rc<fetch::Plan>)>, WaveError> {
        self.adopt(program);
        if self.plans.len() < program.insts.len() {
            self.plans.resize(program.insts.len(), None);
            self.slow.resize(program.insts.len(), None);
            self.mem_plans.resize(program.insts.len(), None);
            self.plan_slots
                .resize_with(program.insts.len(), Default::default);
        }
        let d = &program.insts[idx];
        if let Some((e, p)) = &self.plans[idx] {
            if p.addr == d.addr && p.name == d.inst.name && p.mode == wave.mode {
                return Ok(Some((e.clone(), p.clone())));
            }
        }
        let entry = self.entry(d)?;
        if !fetch::fast_path(&entry, d) {
            self.mem_plans[idx] = memory::is_memory(&d.facts)
                .then(|| Rc::new(memprep::Planned::build(&entry, d, self.arch())));
            self.slow[idx] = Some(entry);
            return Ok(None);
        }
        let mut plan = fetch::plan(&entry, d, wave);
        plan.index = Some(idx);
        let plan = Rc::new(plan);
        self.plans[idx] = Some((entry.clone(), plan.clone()));
        self.plan_slots[idx] = Default::default();
        Ok(Some((entry, plan)))
    }

    /// Makes `program` the one whose plans and blocks the executor caches: the last one's
    /// go to the stash, and `program`'s come back from it when it ran before.
    fn adopt(&mut self, program: &Program) {
        let key = (program.id, program.insts.len());
        if self.plans_of == key {
            return;
        }
        let left = ProgramState {
            plans: std::mem::take(&mut self.plans),
            plan_slots: std::mem::take(&mut self.plan_slots),
            slow: std::mem::take(&mut self.slow),
            mem_plans: std::mem::take(&mut self.mem_plans),
            blocks: std::mem::take(&mut self.blocks),
            waves_started: std::mem::take(&mut self.waves_started),
        };
        self.waves_to_come = 0;
        if self.plans_of != (0, 0) {
            if self.stash.len() >= PROGRAM_STASH {
                self.stash.remove(0);
            }
            self.stash.push((self.plans_of, left));
        }
        self.plans_of = key;
        if let Some(i) = self.stash.iter().position(|(k, _)| *k == key) {
            let (_, back) = self.stash.remove(i);
            self.plans = back.plans;
            self.plan_slots = back.plan_slots;
            self.slow = back.slow;
            self.mem_plans = back.mem_plans;
            self.blocks = back.blocks;
            self.waves_started = back.waves_started;
        }
    }

    /// Tells the executor that a dispatcher starts a wave of `program` and that `to_come`
    /// more waves of the same launch start after it. Block tiering then extrapolates: a block
    /// whose start has had at least two arrivals is compiled once the arrivals so far, plus
    /// as many per wave still to come as per wave started, reach
    /// [`Executor::block_threshold`] (a block every wave of a large launch reaches is compiled
    /// at its second arrival instead of its thousandth; one that few waves reach still waits).
    /// Results do not depend on it: only when blocks are compiled.
    pub fn wave_starts(&mut self, program: &Program, to_come: u64) {
        self.adopt(program);
        self.waves_started += 1;
        self.waves_to_come = to_come;
    }

    /// Ends what [`Executor::wave_starts`] said: no more waves are expected.
    pub fn waves_done(&mut self) {
        self.waves_to_come = 0;
    }

    /// The cached entry of instruction `idx` of `program` when it is off the fast path.
    fn slow_entry(&self, program: &Program, idx: usize) -> Option<Rc<Entry>> {
        if self.plans_of != (program.id, program.insts.len()) {
            return None;
        }
        self.slow.get(idx)?.clone()
    }

    fn check_pc(&self, program: &Program, _d: &Decoded, pc: u64) -> Step {
        if pc >= program.end() {
            Step::Ended
        } else {
            Step::Continue
        }
    }
}
