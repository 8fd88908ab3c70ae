//! The Cranelift JIT: compiles the typed IR into native kernels that agree bit for bit with the
//! interpreter.
//!
//! A [`Jit`] owns one Cranelift JIT module; [`Jit::compile`] turns a [`Prepared`] instruction
//! into a [`Kernel`] whose lifetime is tied to the `Jit`. Kernels run all lanes of a wave in
//! one call, honouring EXEC in generated code (see `translate/mod.rs` for the ABI). The cheap
//! operations are inline; built-ins, soft-float formats, non-default rounding and memory go
//! through `runtime::amdp_helper`, which evaluates with the interpreter's own functions.

mod abi;
pub(crate) mod block;
mod block_inplace;
mod block_simd;
mod memory;
pub mod runtime;
mod translate;

use std::sync::{Arc, Mutex};

use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};

use crate::exec::{Machine, Outputs, Prepared};
use crate::interp::{ExecError, ExecErrorKind, RegValue};
use crate::ir::RegRole;
use crate::value::Bits;
pub use block::{block_stats, BlockStats};
use runtime::{status, Ctx, Helper};
pub use translate::Layout;

/// Why an entry cannot be compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JitError {
    /// An IR construct the JIT does not compile (named).
    Unsupported(String),
    /// Cranelift rejected the code or the module failed.
    Codegen(String),
    /// A bug in the translator.
    Internal(String),
}

impl std::fmt::Display for JitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JitError::Unsupported(m) => write!(f, "the JIT does not compile {m}"),
            JitError::Codegen(m) => write!(f, "code generation failed: {m}"),
            JitError::Internal(m) => write!(f, "bug in the JIT: {m}"),
        }
    }
}

impl std::error::Error for JitError {}

/// A compiled instruction. It keeps the JIT module that owns its code alive.
pub struct Kernel {
    code: abi::KernelFn,
    layout: Layout,
    helpers: Vec<Helper>,
    /// The instruction it runs.
    pub prepared: Prepared,
    /// Bytes of machine code.
    pub code_size: usize,
    /// Whether the kernel loops over lanes (vector entries that are not wave-level).
    lane_loop: bool,
    /// The optimised IR it was translated from (blocks translate it in place).
    optimized: Arc<crate::ir::Function>,
    /// The Cranelift IR, for `amdpcode jit --dump`.
    pub clif: String,
    /// The generated machine code as text (Cranelift's disassembly of its lowered code), when
    /// the JIT was made [`Jit::with_disasm`]; empty otherwise.
    pub asm: String,
    _owner: Arc<Mutex<Inner>>,
}

struct Inner {
    module: JITModule,
    /// The module's target with Cranelift's optimiser off (`opt_level = none`), for the
    /// first tier of blocks that do not loop (`Jit::compile_block_quick`): they compile about
    /// a third faster (their IR was optimised before translation) and run slower over many
    /// lanes.
    quick_isa: cranelift_codegen::isa::OwnedTargetIsa,
    ctx: Context,
    fctx: FunctionBuilderContext,
    counter: u32,
}

/// A Cranelift JIT module. Kernels compiled by it share ownership of the module, so their
/// code stays valid as long as any of them lives (the module never frees code).
#[derive(Clone)]
pub struct Jit {
    inner: Arc<Mutex<Inner>>,
    /// Keep a disassembly of each kernel (`Kernel::asm`); off by default (it slows compiles).
    disasm: bool,
}

impl Jit {
    /// A JIT for the host machine.
    ///
    /// # Errors
    /// [`JitError::Codegen`] when the host ISA is not supported.
    pub fn new() -> Result<Jit, JitError> {
        let mut flags = settings::builder();
        let set = |f: &mut settings::Builder, k: &str, v: &str| {
            f.set(k, v)
                .map_err(|e| JitError::Codegen(format!("{k}={v}: {e}")))
        };
        set(&mut flags, "use_colocated_libcalls", "false")?;
        set(&mut flags, "is_pic", "false")?;
        set(&mut flags, "opt_level", "speed")?;
        // Cranelift's IR verifier costs about a tenth of each compile. Debug builds and
        // `AMDPCODE_JIT_VERIFY=1` (the fuzzer's CI run sets it) keep it: a translation bug
        // then is an error, not wrong code.
        let verify = cfg!(debug_assertions) || std::env::var_os("AMDPCODE_JIT_VERIFY").is_some();
        set(
            &mut flags,
            "enable_verifier",
            if verify { "true" } else { "false" },
        )?;
        let isa_builder =
            cranelift_native::builder().map_err(|e| JitError::Codegen(e.to_string()))?;
        let mut quick_flags = flags.clone();
        set(&mut quick_flags, "opt_level", "none")?;
        let quick_isa = cranelift_native::builder()
            .map_err(|e| JitError::Codegen(e.to_string()))?
            .finish(settings::Flags::new(quick_flags))
            .map_err(|e| JitError::Codegen(e.to_string()))?;
        let isa = isa_builder
            .finish(settings::Flags::new(flags))
            .map_err(|e| JitError::Codegen(e.to_string()))?;
        let mut builder = JITBuilder::with_isa(isa, default_libcall_names());
        builder.symbol("amdp_helper", runtime::amdp_helper as *const u8);
        if let Some(p) = memory::provider() {
            builder.memory_provider(p);
        }
        let module = JITModule::new(builder);
        let ctx = module.make_context();
        Ok(Jit {
            disasm: false,
            inner: Arc::new(Mutex::new(Inner {
                module,
                quick_isa,
                ctx,
                fctx: FunctionBuilderContext::new(),
                counter: 0,
            })),
        })
    }

    /// The same JIT, keeping a disassembly of every kernel it compiles from now on.
    pub fn with_disasm(mut self) -> Jit {
        self.disasm = true;
        self
    }

    /// Compiles a prepared instruction.
    ///
    /// # Errors
    /// [`JitError`] naming the construct that cannot be compiled.
    pub fn compile(&self, p: &Prepared) -> Result<Kernel, JitError> {
        let mut guard = self
            .inner
            .lock()
            .map_err(|_| JitError::Internal("a previous compile panicked".into()))?;
        let inner = &mut *guard;
        let f = &p.function;
        for r in &f.regs {
            if r.width > 128 {
                return Err(JitError::Unsupported(format!(
                    "the {}-bit register {}",
                    r.width, r.name
                )));
            }
        }
        let layout = Layout::new(&p.per_lane);
        let ptr = inner.module.target_config().pointer_type();
        let cc = inner.module.target_config().default_call_conv;
        inner.module.clear_context(&mut inner.ctx);
        inner.ctx.set_disasm(self.disasm);
        inner.ctx.func.signature = translate::kernel_signature(ptr, cc);
        let helper_sig = translate::helper_signature(ptr, cc);
        let helper_id = inner
            .module
            .declare_function("amdp_helper", Linkage::Import, &helper_sig)
            .map_err(|e| JitError::Codegen(e.to_string()))?;
        let lane_loop = p.vector && !p.wave_level;
        let helper_ref = inner
            .module
            .declare_func_in_func(helper_id, &mut inner.ctx.func);
        let mut helpers = Vec::new();
        let optimized = crate::ir::opt::optimize(f);
        let f = &optimized;
        {
            let b = FunctionBuilder::new(&mut inner.ctx.func, &mut inner.fctx);
            let cfg = inner.module.target_config();
            let t = translate::Translator::new(
                b,
                f,
                &layout,
                &mut helpers,
                helper_ref,
                ptr,
                cfg,
                lane_loop,
            );
            if let Err(e) = t.translate() {
                // A half-built function leaves the builder context dirty: start afresh.
                inner.fctx = FunctionBuilderContext::new();
                inner.module.clear_context(&mut inner.ctx);
                return Err(e);
            }
        }
        translate::prune_dead_loads(&mut inner.ctx.func);
        cranelift_codegen::verifier::verify_function(&inner.ctx.func, inner.module.isa())
            .map_err(|e| JitError::Internal(format!("CLIF verifier: {e}")))?;
        let clif = inner.ctx.func.display().to_string();
        inner.counter += 1;
        let name = format!("k{}_{}", inner.counter, p.name);
        let id = inner
            .module
            .declare_function(&name, Linkage::Export, &inner.ctx.func.signature)
            .map_err(|e| JitError::Codegen(e.to_string()))?;
        inner
            .module
            .define_function(id, &mut inner.ctx)
            .map_err(|e| JitError::Codegen(format!("{e:?}")))?;
        let code_size = inner
            .ctx
            .compiled_code()
            .map_or(0, |c| c.code_buffer().len());
        let asm = inner
            .ctx
            .compiled_code()
            .and_then(|c| c.vcode.clone())
            .unwrap_or_default();
        inner.module.clear_context(&mut inner.ctx);
        inner
            .module
            .finalize_definitions()
            .map_err(|e| JitError::Codegen(e.to_string()))?;
        let ptr = inner.module.get_finalized_function(id);
        Ok(Kernel {
            // SAFETY: `ptr` is the finalized code of the function just built with the kernel
            // signature; the module that owns it is kept alive by `_owner` and never frees code.
            code: unsafe { abi::KernelFn::new(ptr) },
            layout,
            helpers,
            prepared: p.clone(),
            code_size,
            lane_loop,
            optimized: Arc::new(optimized),
            clif,
            asm,
            _owner: Arc::clone(&self.inner),
        })
    }
}

#[inline]
fn status_to_result(code: u32, error: Option<String>) -> Result<(), ExecError> {
    if code == status::OK {
        return Ok(());
    }
    fault(code, error)
}

#[cold]
#[inline(never)]
fn fault(code: u32, error: Option<String>) -> Result<(), ExecError> {
    let kind = match code {
        status::BUDGET => ExecErrorKind::StepBudget,
        status::OUT_OF_RANGE => ExecErrorKind::OutOfRange("array index".into()),
        status::MEMORY => ExecErrorKind::Memory(error.unwrap_or_default()),
        _ => ExecErrorKind::Unsupported(error.unwrap_or_default()),
    };
    Err(ExecError {
        kind,
        span: Default::default(),
    })
}

fn write_slot(slots: &mut [u8], off: usize, b: &Bits) {
    let w = b.words();
    slots[off..off + 8].copy_from_slice(&w[0].to_le_bytes());
    let hi = w.get(1).copied().unwrap_or(0);
    slots[off + 8..off + 16].copy_from_slice(&hi.to_le_bytes());
}

fn read_slot(slots: &[u8], off: usize, width: u32) -> Bits {
    let mut lo = [0u8; 8];
    let mut hi = [0u8; 8];
    lo.copy_from_slice(&slots[off..off + 8]);
    hi.copy_from_slice(&slots[off + 8..off + 16]);
    Bits::from_words(width, &[u64::from_le_bytes(lo), u64::from_le_bytes(hi)])
}

impl Kernel {
    /// The slot buffer of this kernel's layout holding `regs` (from `exec::bind_inputs`).
    pub fn slots(&self, regs: &[RegValue]) -> Vec<u8> {
        let mut slots = vec![0u8; self.layout.size];
        for (i, v) in regs.iter().enumerate() {
            let off = self.layout.offsets[i] as usize;
            match v {
                RegValue::Uniform(b) => write_slot(&mut slots, off, b),
                RegValue::Lanes(l) => {
                    for (lane, b) in l.iter().enumerate().take(translate::MAX_LANES as usize) {
                        write_slot(&mut slots, off + lane * translate::SLOT as usize, b);
                    }
                }
            }
        }
        slots
    }

    /// Runs the kernel on a slot buffer made by [`Kernel::slots`]: the raw entry point for
    /// simulators and benches. Vector kernels run lanes below `lanes` whose `exec` bit is set.
    ///
    /// # Errors
    /// A runtime fault.
    #[inline]
    pub fn run_slots(
        &self,
        slots: &mut [u8],
        lanes: u32,
        exec: u64,
        memory: &mut dyn crate::interp::Memory,
    ) -> Result<(), ExecError> {
        let (n, mask) = if self.lane_loop {
            (lanes.min(64), exec)
        } else {
            (1, 1)
        };
        let mut ctx = Ctx {
            memory,
            fp: Default::default(),
            helpers: &self.helpers,
            error: None,
        };
        let code = self.code.call(slots, self.layout.size, &mut ctx, n, mask);
        status_to_result(code, ctx.error)
    }

    /// The address of the kernel's machine code (for profilers' symbol maps and tests of
    /// where code is placed).
    pub fn code_address(&self) -> usize {
        self.code.ptr() as usize
    }

    /// What a block needs to translate this kernel's instruction in place: its optimised
    /// IR, slot layout and whether it loops over lanes.
    pub fn block_ir(&self) -> block::KernelIr {
        block::KernelIr {
            function: Arc::clone(&self.optimized),
            layout: self.layout.clone(),
            lane_loop: self.lane_loop,
        }
    }

    /// Whether the kernel calls helpers (built-ins, soft-float, memory); one that does not
    /// never touches the memory it is given.
    pub fn uses_helpers(&self) -> bool {
        !self.helpers.is_empty()
    }

    /// The kernel bound to a memory, for running it many times without rebuilding the
    /// helper context on each call (the fast path for simulators and benches).
    pub fn bind<'a>(&'a self, memory: &'a mut dyn crate::interp::Memory) -> Bound<'a> {
        Bound {
            code: self.code,
            size: self.layout.size,
            reset_fp: !self.helpers.is_empty(),
            ctx: Ctx {
                memory,
                fp: Default::default(),
                helpers: &self.helpers,
                error: None,
            },
        }
    }

    /// The kernel bound to a memory and to one slot buffer (from [`Kernel::slots`]), whose
    /// size is checked here once: the fastest way to run one instruction many times. Write
    /// inputs and read results through [`BoundSlots::slots_mut`] / [`BoundSlots::slots`].
    ///
    /// # Errors
    /// When `slots` is smaller than this kernel's layout.
    pub fn bind_slots<'a>(
        &'a self,
        memory: &'a mut dyn crate::interp::Memory,
        slots: &'a mut [u8],
    ) -> Result<BoundSlots<'a>, ExecError> {
        let len = slots.len();
        let slots = abi::CheckedSlots::new(slots, self.layout.size).ok_or_else(|| ExecError {
            kind: ExecErrorKind::OutOfRange(format!(
                "a slot buffer of {len} bytes; {} needs {}",
                self.prepared.name, self.layout.size
            )),
            span: Default::default(),
        })?;
        Ok(BoundSlots {
            code: self.code,
            slots,
            reset_fp: !self.helpers.is_empty(),
            ctx: Ctx {
                memory,
                fp: Default::default(),
                helpers: &self.helpers,
                error: None,
            },
        })
    }

    /// Runs the kernel once per input set: `sets[i]` is a slot buffer from [`Kernel::slots`].
    /// The batch entry point for validation sweeps; stops at the first fault.
    ///
    /// # Errors
    /// The index of the failing set and its fault.
    pub fn run_batch(
        &self,
        sets: &mut [Vec<u8>],
        lanes: u32,
        exec: u64,
        memory: &mut dyn crate::interp::Memory,
    ) -> Result<(), (usize, ExecError)> {
        for (i, s) in sets.iter_mut().enumerate() {
            self.run_slots(s, lanes, exec, memory).map_err(|e| (i, e))?;
        }
        Ok(())
    }

    /// Runs the kernel on a machine, like `exec::run_interp`.
    ///
    /// # Errors
    /// A runtime fault (step budget, index out of range, a helper's error).
    pub fn run(&self, m: &mut Machine) -> Result<Outputs, ExecError> {
        self.run_with(m, None)
    }

    /// Runs like [`Kernel::run`], with byte memory served by `mem` when given (see
    /// [`crate::exec::machine_memory_with`]).
    ///
    /// # Errors
    /// As [`Kernel::run`].
    pub fn run_with(
        &self,
        m: &mut Machine,
        mem: Option<&mut crate::sparse::SparseMemory>,
    ) -> Result<Outputs, ExecError> {
        let p = &self.prepared;
        let f = &p.function;
        let lanes = m.wave_size;
        let (regs, virtual_vgprs) = crate::exec::bind_inputs(p, m);
        let mut slots = vec![0u8; self.layout.size];
        for (i, (r, v)) in f.regs.iter().zip(&regs).enumerate() {
            let off = self.layout.offsets[i] as usize;
            match v {
                RegValue::Uniform(b) => write_slot(&mut slots, off, b),
                RegValue::Lanes(l) => {
                    for (lane, b) in l.iter().enumerate() {
                        write_slot(&mut slots, off + lane * translate::SLOT as usize, b);
                    }
                }
            }
            let _ = r;
        }
        let exec = crate::exec::exec_mask(m);
        let (n, mask) = if p.vector && !p.wave_level {
            (lanes, exec)
        } else {
            (1, 1)
        };
        let code = {
            let mut memory = crate::exec::machine_memory_with(m, mem);
            let mut ctx = Ctx {
                memory: &mut memory,
                fp: Default::default(),
                helpers: &self.helpers,
                error: None,
            };
            let code = self
                .code
                .call(&mut slots, self.layout.size, &mut ctx, n, mask);
            (code, ctx.error)
        };
        status_to_result(code.0, code.1)?;
        let mut values = Vec::new();
        for (i, r) in f.regs.iter().enumerate() {
            if !r.written || r.role == RegRole::Lane {
                continue;
            }
            let off = self.layout.offsets[i] as usize;
            let v = if self.layout.per_lane[i] {
                RegValue::Lanes(
                    (0..lanes as usize)
                        .map(|l| read_slot(&slots, off + l * translate::SLOT as usize, r.width))
                        .collect(),
                )
            } else {
                RegValue::Uniform(read_slot(&slots, off, r.width))
            };
            values.push((r.name.clone(), v));
        }
        Ok(crate::exec::finish_outputs(m, values, virtual_vgprs))
    }
}

/// A kernel with its helper context, made by [`Kernel::bind`]. It copies what a run needs
/// out of the kernel, so a run reads no memory but its own fields and the slots.
pub struct Bound<'a> {
    code: abi::KernelFn,
    size: usize,
    /// Whether helpers run (they may change the rounding mode, so every run resets it).
    reset_fp: bool,
    ctx: Ctx<'a>,
}

impl Bound<'_> {
    /// Runs the kernel on a slot buffer made by [`Kernel::slots`], like [`Kernel::run_slots`].
    ///
    /// # Errors
    /// A runtime fault.
    #[inline]
    pub fn run(&mut self, slots: &mut [u8], lanes: u32, exec: u64) -> Result<(), ExecError> {
        // Kernels without a lane loop ignore the lane count and EXEC: no need to tell them
        // apart here.
        if self.reset_fp {
            self.ctx.fp = Default::default();
        }
        let code = self
            .code
            .call(slots, self.size, &mut self.ctx, lanes.min(64), exec);
        if code == status::OK {
            Ok(())
        } else {
            fault(code, self.ctx.error.take())
        }
    }
}

/// A kernel with its helper context and its slot buffer, made by [`Kernel::bind_slots`].
pub struct BoundSlots<'a> {
    code: abi::KernelFn,
    slots: abi::CheckedSlots<'a>,
    reset_fp: bool,
    ctx: Ctx<'a>,
}

impl BoundSlots<'_> {
    /// The slot buffer (results after a run).
    pub fn slots(&self) -> &[u8] {
        self.slots.bytes()
    }

    /// The slot buffer, to write inputs (its length cannot change).
    pub fn slots_mut(&mut self) -> &mut [u8] {
        self.slots.bytes_mut()
    }

    /// Runs the kernel over the bound slots for lanes below `lanes` whose `exec` bit is set.
    ///
    /// # Errors
    /// A runtime fault.
    #[inline]
    pub fn run(&mut self, lanes: u32, exec: u64) -> Result<(), ExecError> {
        if self.reset_fp {
            self.ctx.fp = Default::default();
        }
        let code = self
            .code
            .call_checked(&mut self.slots, &mut self.ctx, lanes.min(64), exec);
        if code == status::OK {
            Ok(())
        } else {
            fault(code, self.ctx.error.take())
        }
    }
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Kernel({}, {} bytes)",
            self.prepared.name, self.code_size
        )
    }
}

/// Compiles and runs in one step (a fresh module per call; for tests and the CLI).
///
/// # Errors
/// A compile error (as text) or a runtime fault.
pub fn run_once(p: &Prepared, m: &mut Machine) -> Result<Outputs, String> {
    let jit = Jit::new().map_err(|e| e.to_string())?;
    let k = jit.compile(p).map_err(|e| e.to_string())?;
    k.run(m).map_err(|e| e.to_string())
}

/// How many ALU entries of an arch the JIT compiles, with the reason for each it does not.
pub fn coverage(db: &crate::spec::SpecDb) -> (usize, Vec<(String, String)>) {
    let arch = db.arch();
    let Ok(jit) = Jit::new() else {
        return (0, vec![("*".into(), "no JIT for this host".into())]);
    };
    let mut ok = 0;
    let mut failures = Vec::new();
    for inst in db
        .with_pcode()
        .filter(|i| crate::exec::ALU_ENCODINGS.contains(&i.encoding.as_str()))
    {
        match crate::exec::prepare(arch, inst) {
            Err(e) => failures.push((inst.name.clone(), e.diagnostic.summary())),
            Ok(p) => match jit.compile(&p) {
                Ok(_) => ok += 1,
                Err(e) => failures.push((inst.name.clone(), e.to_string())),
            },
        }
    }
    (ok, failures)
}
