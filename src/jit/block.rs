//! Block compilation: one native function for a straight-line run of instructions.
//!
//! The wave layer (`wave::block`) describes a block as data, a [`BlockSpec`]: for each
//! instruction, its kernel's code address, where its slot buffer lies in the block's arena,
//! which register-file words go into which slots before the call, and which slots go back
//! into the register file after it. This module turns that description into one Cranelift
//! function that reads and writes the wave's register files in place:
//!
//! `extern "C" fn(sgpr: *mut u32, vgpr: *mut u32, scc: *mut u8, arena: *mut u8, ctx: *mut Ctx,
//! iters: *mut u64) -> u64`
//!
//! - `sgpr`: the scalar file by operand code (at least [`SGPR_WORDS`] words); `vgpr`: the VGPR
//!   file, 64 lane words per register (at least [`VGPR_WORDS`] words); `scc`: one byte, 0 or 1;
//!   `arena`: the block's slot buffers, [`BlockSpec::arena_size`] bytes.
//! - EXEC is loaded from the scalar file before each instruction (an instruction may write it),
//!   masked to the wave's lanes, passed to the kernel and used to mask VGPR write-back.
//! - Lane copies are unrolled (the lane count is a constant of the block).
//! - A block that ends with a branch back to its own first instruction ([`BlockSpec::loop_to`])
//!   runs again in place while the branch is taken, at most `*iters` times in all (the caller's
//!   step budget); `*iters` returns the iterations completed.
//! - Returns 0, or `(index << 32) | status` for the first kernel that faulted: the state then
//!   holds the effects of the instructions before `index` and none of its own.
//!
//! Every index is checked against the file sizes when the block is compiled, so the generated
//! code cannot address outside the buffers [`BlockFn::run`] checks.

use std::sync::{Arc, Mutex};

use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData, Signature, Value};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{Linkage, Module};

mod mask;
pub(crate) mod plan;
mod raw;
pub use plan::{
    BlockInst, BlockSpec, Input, KernelIr, Output, Src, SGPR_WORDS, SIDE_EXIT, VGPR_WORDS,
};
use plan::{Regs, EXEC_HI, EXEC_LO};
pub use raw::status_error;

use super::runtime::Ctx;
use super::{block_inplace, status, translate, Inner, Jit, JitError};
use crate::interp::ExecError;

/// Bytes per slot (as the kernels lay them out).
const SLOT: i32 = 16;

type RawBlock =
    unsafe extern "C" fn(*mut u32, *mut u32, *mut u8, *mut u8, *mut Ctx<'_>, *mut u64) -> u64;

/// A compiled block. It keeps the JIT module that owns its code (and its kernels') alive.
pub struct BlockFn {
    ptr: *const u8,
    arena_size: usize,
    /// Bytes of machine code.
    pub code_size: usize,
    _owner: Arc<Mutex<Inner>>,
}

impl BlockFn {
    /// Runs the block on a wave's register files and the block's arena, at most `max_iters`
    /// times (at least once) when it loops to itself. Returns the iterations completed.
    ///
    /// # Errors
    /// The index of the instruction whose kernel faulted, and the fault.
    ///
    /// # Panics
    /// If a buffer is smaller than the ABI requires (a bug of the caller in this crate).
    pub fn run(
        &self,
        sgpr: &mut [u32],
        vgpr: &mut [u32],
        scc: &mut bool,
        arena: &mut [u128],
        max_iters: u64,
    ) -> Result<u64, (usize, ExecError)> {
        assert!(
            sgpr.len() >= SGPR_WORDS
                && vgpr.len() >= VGPR_WORDS
                && arena.len() * 16 >= self.arena_size,
            "bug: block buffers smaller than the ABI"
        );
        let mut memory = crate::exec::NullMemory;
        let mut ctx = Ctx {
            memory: &mut memory,
            fp: Default::default(),
            helpers: &[],
            error: None,
        };
        let mut scc_byte = *scc as u8;
        let mut iters = max_iters.max(1);
        // SAFETY: `ptr` is finalized code with the `RawBlock` signature, kept alive by
        // `_owner`; the buffers cover what it addresses (checked above; every index in the
        // code was checked against these sizes when it was compiled); the kernels it calls
        // belong to the same module and use no helpers, so `ctx` is never read beyond its
        // fields.
        let r = unsafe {
            let f: RawBlock = std::mem::transmute::<*const u8, RawBlock>(self.ptr);
            f(
                sgpr.as_mut_ptr(),
                vgpr.as_mut_ptr(),
                &mut scc_byte,
                arena.as_mut_ptr() as *mut u8,
                &mut ctx,
                &mut iters,
            )
        };
        *scc = scc_byte & 1 == 1;
        if r == 0 {
            return Ok(iters);
        }
        let code = r as u32;
        let index = (r >> 32) as usize;
        match super::fault(code, ctx.error.take()) {
            Err(e) => Err((index, e)),
            Ok(()) => Ok(iters),
        }
    }
}

impl Jit {
    /// Compiles a block (see the module documentation for the ABI) with Cranelift's
    /// optimiser.
    ///
    /// # Errors
    /// [`JitError::Internal`] when an index lies outside the register files or the arena.
    pub fn compile_block(&self, spec: &BlockSpec) -> Result<BlockFn, JitError> {
        self.compile_block_as(spec, false, false)
    }

    /// Compiles a block as [`Jit::compile_block`], but one that does not loop
    /// (`spec.loop_to` is `None`) with Cranelift's optimiser off: it compiles about a third
    /// faster and runs somewhat slower over many lanes (the first tier; the wave layer
    /// compiles it again with [`Jit::recompile_block`] once it has run enough lanes). A loop
    /// is optimised. Returns whether the code is quick.
    ///
    /// # Errors
    /// As [`Jit::compile_block`].
    pub fn compile_block_quick(&self, spec: &BlockSpec) -> Result<(BlockFn, bool), JitError> {
        let quick = spec.loop_to.is_none();
        self.compile_block_as(spec, quick, false)
            .map(|f| (f, quick))
    }

    /// Compiles a block that [`Jit::compile_block_quick`] compiled quick again, with the
    /// optimiser, to replace it (counted in [`BlockStats::optimised`] only).
    ///
    /// # Errors
    /// As [`Jit::compile_block`].
    pub fn recompile_block(&self, spec: &BlockSpec) -> Result<BlockFn, JitError> {
        self.compile_block_as(spec, false, true)
    }

    /// Compiles a block, optimised or `quick`; one that `replaces` a quick one counts in
    /// [`BlockStats::optimised`] only.
    fn compile_block_as(
        &self,
        spec: &BlockSpec,
        quick: bool,
        replaces: bool,
    ) -> Result<BlockFn, JitError> {
        check(spec)?;
        let mut guard = self
            .inner
            .lock()
            .map_err(|_| JitError::Internal("a previous compile panicked".into()))?;
        let inner = &mut *guard;
        // Instructions in place (four lanes at a time where their IR allows) when they can
        // be; if translating one fails, the whole block again with kernel calls only. SIMD
        // lanes that Cranelift cannot lower (a host without the vector instructions they
        // need) fall back to the scalar lane loops.
        let mut mode = Mode::Simd;
        let (counts, code_size, id) = loop {
            let counts = match build(inner, spec, mode) {
                Ok(n) => n,
                Err(e) if mode == Mode::Calls => return Err(e),
                Err(_) => {
                    inner.fctx = FunctionBuilderContext::new();
                    mode = Mode::Calls;
                    continue;
                }
            };
            match define(inner, quick) {
                Ok((size, id)) => break (counts, size, id),
                Err(_) if counts.simd > 0 => {
                    inner.module.clear_context(&mut inner.ctx);
                    inner.fctx = FunctionBuilderContext::new();
                    mode = Mode::Scalar;
                }
                Err(e) => return Err(e),
            }
        };
        STATS.with(|s| {
            let mut st = s.get();
            if replaces {
                st.optimised += 1;
            } else {
                st.quick += quick as u64;
                st.blocks += 1;
                st.in_place += counts.in_place as u64;
                st.simd += counts.simd as u64;
                st.calls += (spec.insts.len() - counts.in_place) as u64;
            }
            s.set(st);
        });
        inner
            .module
            .finalize_definitions()
            .map_err(|e| JitError::Codegen(e.to_string()))?;
        Ok(BlockFn {
            ptr: inner.module.get_finalized_function(id),
            arena_size: spec.arena_size,
            code_size,
            _owner: Arc::clone(&self.inner),
        })
    }
}

/// How instructions are emitted into a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// In place where possible, four lanes at a time where the IR allows.
    Simd,
    /// In place where possible, one lane at a time.
    Scalar,
    /// Kernel calls only.
    Calls,
}

/// How many of a block's instructions were translated in place, and how many of those over
/// four lanes at a time.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    in_place: usize,
    simd: usize,
}

/// Declares and defines the function built in `inner.ctx` under a fresh name; returns its
/// code size and id. The context is cleared either way. A `quick` one is compiled with Cranelift's optimiser off
/// (`Inner::quick_isa`).
fn define(inner: &mut Inner, quick: bool) -> Result<(usize, cranelift_module::FuncId), JitError> {
    inner.counter += 1;
    let name = format!("block{}", inner.counter);
    let id = inner
        .module
        .declare_function(&name, Linkage::Export, &inner.ctx.func.signature)
        .map_err(|e| JitError::Codegen(e.to_string()))?;
    let defined = if quick {
        define_quick(inner, id)
    } else {
        inner
            .module
            .define_function(id, &mut inner.ctx)
            .map_err(|e| JitError::Codegen(format!("{e:?}")))
    };
    let code_size = inner
        .ctx
        .compiled_code()
        .map_or(0, |c| c.code_buffer().len());
    inner.module.clear_context(&mut inner.ctx);
    defined.map(|()| (code_size, id))
}

/// Compiles the function in `inner.ctx` for `inner.quick_isa` and defines `id` with its
/// bytes and relocations, as `JITModule::define_function` does for the module's own target.
fn define_quick(inner: &mut Inner, id: cranelift_module::FuncId) -> Result<(), JitError> {
    let alignment = inner
        .ctx
        .compile(&*inner.quick_isa, &mut Default::default())
        .map_err(|e| JitError::Codegen(format!("{:?}", e.inner)))?
        .buffer
        .alignment as u64;
    let compiled = inner
        .ctx
        .compiled_code()
        .ok_or_else(|| JitError::Internal("bug: no code after a compile".into()))?;
    let alignment = alignment
        .max(inner.quick_isa.function_alignment().minimum as u64)
        .max(inner.quick_isa.symbol_alignment());
    let relocs: Vec<cranelift_module::ModuleReloc> = compiled
        .buffer
        .relocs()
        .iter()
        .map(|r| cranelift_module::ModuleReloc::from_mach_reloc(r, &inner.ctx.func, id))
        .collect();
    inner
        .module
        .define_function_bytes(id, alignment, compiled.code_buffer(), &relocs)
        .map_err(|e| JitError::Codegen(format!("{e:?}")))
}

/// What this thread's block compilations produced (cumulative): introspection for tests and
/// measurements of how much of a program runs in place.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockStats {
    /// Blocks compiled.
    pub blocks: u64,
    /// Instructions translated into their block in place.
    pub in_place: u64,
    /// Instructions that call their kernel (or the wave layer's memory access).
    pub calls: u64,
    /// Of the instructions in place, those whose lane loop runs four lanes at a time (SIMD).
    pub simd: u64,
    /// Of the blocks, those compiled with Cranelift's optimiser off
    /// ([`Jit::compile_block_quick`]).
    pub quick: u64,
    /// Quick blocks compiled again with the optimiser, once hot (not counted in `blocks`).
    pub optimised: u64,
}

thread_local! {
    static STATS: std::cell::Cell<BlockStats> = const {
        std::cell::Cell::new(BlockStats {
            blocks: 0,
            in_place: 0,
            calls: 0,
            simd: 0,
            quick: 0,
            optimised: 0,
        })
    };
}

/// The block compilations of the calling thread so far (compilation runs on the thread that
/// runs the wave, so a test reads its own figures).
pub fn block_stats() -> BlockStats {
    STATS.with(|s| s.get())
}

/// Builds the block function in `inner.ctx.func` (verified), with instructions in place
/// where [`plan::plan`] allows unless `mode` is [`Mode::Calls`]; returns how many
/// were in place.
fn build(inner: &mut Inner, spec: &BlockSpec, mode: Mode) -> Result<Counts, JitError> {
    let inplace = mode != Mode::Calls;
    let ptr = inner.module.target_config().pointer_type();
    let cc = inner.module.target_config().default_call_conv;
    inner.module.clear_context(&mut inner.ctx);
    let mut sig = Signature::new(cc);
    for _ in 0..6 {
        sig.params.push(AbiParam::new(ptr));
    }
    sig.returns.push(AbiParam::new(types::I64));
    inner.ctx.func.signature = sig;
    let kernel_sig = translate::kernel_signature(ptr, cc);
    let helper_sig = translate::helper_signature(ptr, cc);
    let helper_id = inner
        .module
        .declare_function("amdp_helper", Linkage::Import, &helper_sig)
        .map_err(|e| JitError::Codegen(e.to_string()))?;
    let helper_ref = inner
        .module
        .declare_func_in_func(helper_id, &mut inner.ctx.func);
    let cfg = inner.module.target_config();
    let mut b = FunctionBuilder::new(&mut inner.ctx.func, &mut inner.fctx);
    let sig_ref = b.import_signature(kernel_sig);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let p = b.block_params(entry).to_vec();
    let regs = Regs {
        sgpr: p[0],
        vgpr: p[1],
        scc: p[2],
        arena: p[3],
        ptr,
    };
    let fail = b.create_block();
    b.append_block_param(fail, types::I64);
    // The iteration loop: `*iters` holds the completed iterations at each start.
    let max = b.ins().load(types::I64, flags(), p[5], 0);
    // The lane count in a register, stored into its arena word when the function returns.
    let lane_count = b.declare_var(types::I64);
    let zero = b.ins().iconst(types::I64, 0);
    b.def_var(lane_count, zero);
    let top = b.create_block();
    b.append_block_param(top, types::I64);
    let zero = b.ins().iconst(types::I64, 0);
    b.ins().jump(top, &[zero.into()]);
    b.switch_to_block(top);
    let done = b.block_params(top)[0];
    b.ins().store(flags(), done, p[5], 0);
    let emit = block_inplace::Emit {
        regs: &regs,
        lanes: spec.lanes,
        ctx: p[4],
        helper_ref,
        ptr,
        cfg,
        fail,
        simd: mode == Mode::Simd,
    };
    let mut cache = block_inplace::Cache::default();
    let mut counts = Counts::default();
    for (index, inst) in spec.insts.iter().enumerate() {
        if let Some((_, counts)) = &spec.lane_ops {
            // (A count of 0: an instruction that issues with the one before it, such as
            // the second half of a VOPD word.)
            let count = counts.get(index).copied().unwrap_or(1);
            if count > 0 {
                let exec = cache.exec(&mut b, &regs, spec.lanes);
                mask::emit_count_lanes(&mut b, exec, lane_count, count);
            }
        }
        match inplace.then(|| plan::plan(inst, spec.lanes)).flatten() {
            Some(plan) => {
                let (nb, simd) = block_inplace::emit(b, &emit, index, inst, &plan, &mut cache)?;
                b = nb;
                counts.in_place += 1;
                counts.simd += simd as usize;
            }
            None => {
                cache.flush(&mut b, &regs);
                emit_inst(&mut b, &regs, spec.lanes, index, inst, p[4], sig_ref, fail);
                if inst.ir.is_some() {
                    cache.forget(inst);
                } else {
                    // Not a kernel of this JIT (a memory access of the wave layer): it may
                    // write any register (an SMEM load's SGPRs), so nothing cached holds.
                    cache.clear();
                }
            }
        }
        if let Some(&(_, pc_off, fall_through)) = spec.exits.iter().find(|e| e.0 as usize == index)
        {
            // A taken branch leaves the block with the register files up to date; the
            // cached values stay valid on the fall-through path.
            use cranelift_codegen::ir::condcodes::IntCC;
            cache.flush(&mut b, &regs);
            let pc = b.ins().load(types::I64, flags(), regs.arena, pc_off as i32);
            let taken = b.ins().icmp_imm_u(IntCC::NotEqual, pc, fall_through as i64);
            let (side, next) = (b.create_block(), b.create_block());
            b.ins().brif(taken, side, &[], next, &[]);
            b.switch_to_block(side);
            let code = b
                .ins()
                .iconst(types::I64, ((index as i64) << 32) | SIDE_EXIT as i64);
            b.ins().jump(fail, &[code.into()]);
            b.switch_to_block(next);
        }
    }
    cache.flush(&mut b, &regs);
    let done = b.ins().iadd_imm_s(done, 1);
    let exit = b.create_block();
    if let Some((head, pc_off)) = spec.loop_to {
        use cranelift_codegen::ir::condcodes::IntCC;
        let pc = b.ins().load(types::I64, flags(), regs.arena, pc_off as i32);
        let back = b.ins().icmp_imm_u(IntCC::Equal, pc, head as i64);
        let more = b.ins().icmp(IntCC::UnsignedLessThan, done, max);
        let again = b.ins().band(back, more);
        b.ins().brif(again, top, &[done.into()], exit, &[]);
    } else {
        b.ins().jump(exit, &[]);
    }
    b.switch_to_block(exit);
    b.ins().store(flags(), done, p[5], 0);
    store_lane_count(&mut b, &regs, spec, lane_count);
    let zero = b.ins().iconst(types::I64, 0);
    b.ins().return_(&[zero]);
    b.switch_to_block(fail);
    let code = b.block_params(fail)[0];
    store_lane_count(&mut b, &regs, spec, lane_count);
    b.ins().return_(&[code]);
    b.seal_all_blocks();
    b.finalize(cfg);
    translate::prune_dead_loads(&mut inner.ctx.func);
    cranelift_codegen::verifier::verify_function(&inner.ctx.func, inner.module.isa())
        .map_err(|e| JitError::Internal(format!("CLIF verifier (block): {e}")))?;
    Ok(counts)
}

/// Stores the lane count into its arena word (`BlockSpec::lane_ops`).
fn store_lane_count(
    b: &mut FunctionBuilder<'_>,
    r: &Regs,
    spec: &BlockSpec,
    lane_count: cranelift_frontend::Variable,
) {
    if let Some((off, _)) = &spec.lane_ops {
        let n = b.use_var(lane_count);
        b.ins().store(flags(), n, r.arena, *off as i32);
    }
}

/// Checks every index of a block against the ABI's buffer sizes.
fn check(spec: &BlockSpec) -> Result<(), JitError> {
    let bad = |what: &str| Err(JitError::Internal(format!("block: {what} out of range")));
    if spec.lanes != 32 && spec.lanes != 64 {
        return bad("lane count");
    }
    let lanes = spec.lanes as usize;
    let slot_ok = |off: u32, n: u32| (off as usize + n as usize * SLOT as usize) <= spec.arena_size;
    let src_ok = |s: Src| !matches!(s, Src::Sgpr(c) if c as usize >= SGPR_WORDS);
    for inst in &spec.insts {
        if matches!(spec.loop_to, Some((_, off)) if !slot_ok(off, 1))
            || matches!(&spec.lane_ops, Some((off, c)) if !slot_ok(*off, 1) || c.len() != spec.insts.len())
        {
            return bad("loop");
        }
        if spec
            .exits
            .iter()
            .any(|&(i, off, _)| i as usize >= spec.insts.len() || !slot_ok(off, 1))
        {
            return bad("side exit");
        }
        if inst.code == 0 || inst.slots as usize > spec.arena_size {
            return bad("kernel");
        }
        for i in &inst.inputs {
            let ok = match *i {
                Input::Vgpr {
                    row, pair, off, n, ..
                } => (row as usize + pair as usize) < 256 && n as usize <= lanes && slot_ok(off, n),
                Input::Scalar { lo, hi, off, n, .. } => {
                    src_ok(lo) && src_ok(hi) && n as usize <= lanes && slot_ok(off, n)
                }
                Input::IsZero { lo, hi, off, n, .. } => {
                    src_ok(lo) && src_ok(hi) && n as usize <= lanes && slot_ok(off, n)
                }
                Input::Const { off, n, .. } => n as usize <= lanes && slot_ok(off, n),
            };
            if !ok {
                return bad("input");
            }
        }
        for o in &inst.outputs {
            let ok = match *o {
                Output::Vgpr { row, off, .. } => row < 256 && slot_ok(off, spec.lanes),
                Output::Sgpr { code, off, .. } => (code as usize) < SGPR_WORDS && slot_ok(off, 1),
                Output::Mask {
                    lo,
                    hi,
                    off,
                    per_lane,
                    ..
                } => mask::codes_ok(lo, hi) && slot_ok(off, if per_lane { spec.lanes } else { 1 }),
                Output::Scc { off } => slot_ok(off, 1),
            };
            if !ok {
                return bad("output");
            }
        }
    }
    Ok(())
}

fn flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

fn load_sgpr(b: &mut FunctionBuilder<'_>, r: &Regs, code: u32) -> Value {
    let x = b.ins().load(types::I32, flags(), r.sgpr, (code * 4) as i32);
    b.ins().uextend(types::I64, x)
}

fn load_src(b: &mut FunctionBuilder<'_>, r: &Regs, s: Src) -> Value {
    match s {
        Src::Zero => b.ins().iconst(types::I64, 0),
        Src::Sgpr(code) => load_sgpr(b, r, code),
        Src::Scc => {
            let x = b.ins().load(types::I8, flags(), r.scc, 0);
            b.ins().uextend(types::I64, x)
        }
    }
}

/// A VGPR word's address offset.
fn vgpr_off(row: u32, lane: u32) -> i32 {
    ((row * 64 + lane) * 4) as i32
}

fn flush(b: &mut FunctionBuilder<'_>, x: Value) -> Value {
    translate::flush_f32(b, x)
}

#[allow(clippy::too_many_arguments)]
fn emit_inst(
    b: &mut FunctionBuilder<'_>,
    r: &Regs,
    lanes: u32,
    index: usize,
    inst: &BlockInst,
    ctx: Value,
    sig: cranelift_codegen::ir::SigRef,
    fail: cranelift_codegen::ir::Block,
) {
    use cranelift_codegen::ir::condcodes::IntCC;
    // EXEC at issue, masked to the wave's lanes.
    let mut exec = load_sgpr(b, r, EXEC_LO);
    if lanes == 64 {
        let hi = load_sgpr(b, r, EXEC_HI);
        let hi = b.ins().ishl_imm_u(hi, 32);
        exec = b.ins().bor(exec, hi);
    }
    for i in &inst.inputs {
        match *i {
            Input::Vgpr {
                row,
                pair,
                shift,
                mask,
                ftz,
                off,
                n,
            } => {
                lane_loop(b, r, n, |b, vp, ap, _, k| {
                    let lo = b.ins().load(types::I32, flags(), vp, vgpr_off(row, k));
                    let lo = if ftz { flush(b, lo) } else { lo };
                    let mut x = b.ins().uextend(types::I64, lo);
                    if pair {
                        let hi = b.ins().load(types::I32, flags(), vp, vgpr_off(row + 1, k));
                        let hi = b.ins().uextend(types::I64, hi);
                        let hi = b.ins().ishl_imm_u(hi, 32);
                        x = b.ins().bor(x, hi);
                    }
                    if shift != 0 {
                        x = b.ins().ushr_imm_u(x, shift as i64);
                    }
                    if mask != u64::MAX && (pair || mask != u32::MAX as u64) {
                        x = b.ins().band_imm_u(x, mask as i64);
                    }
                    b.ins().store(flags(), x, ap, off as i32 + k as i32 * SLOT);
                });
            }
            Input::Scalar {
                lo,
                hi,
                mask,
                off,
                n,
            } => {
                let mut x = load_src(b, r, lo);
                if hi != Src::Zero {
                    let h = load_src(b, r, hi);
                    let h = b.ins().ishl_imm_u(h, 32);
                    x = b.ins().bor(x, h);
                }
                if mask != u64::MAX {
                    x = b.ins().band_imm_u(x, mask as i64);
                }
                lane_loop(b, r, n, |b, _, ap, _, k| {
                    b.ins().store(flags(), x, ap, off as i32 + k as i32 * SLOT);
                });
            }
            Input::IsZero {
                lo,
                hi,
                mask,
                off,
                n,
            } => mask::emit_is_zero(b, r, lo, hi, mask, off, n),
            Input::Const { value, off, n } => {
                let x = b.ins().iconst(types::I64, value as i64);
                lane_loop(b, r, n, |b, _, ap, _, k| {
                    b.ins().store(flags(), x, ap, off as i32 + k as i32 * SLOT);
                });
            }
        }
    }
    let slots = b.ins().iadd_imm_s(r.arena, inst.slots as i64);
    let callee = b.ins().iconst(r.ptr, inst.code as i64);
    let n_lanes = b.ins().iconst(types::I32, lanes as i64);
    let call = b
        .ins()
        .call_indirect(sig, callee, &[slots, ctx, n_lanes, exec]);
    let st = b.inst_results(call)[0];
    let ok = b.create_block();
    let st64 = b.ins().uextend(types::I64, st);
    let code = b.ins().bor_imm_u(st64, (index as i64) << 32);
    let failed = b.ins().icmp_imm_u(IntCC::NotEqual, st, status::OK as i64);
    b.ins().brif(failed, fail, &[code.into()], ok, &[]);
    b.switch_to_block(ok);
    b.seal_block(ok);
    for o in &inst.outputs {
        match *o {
            Output::Vgpr {
                row,
                shift,
                ftz,
                off,
            } => emit_vgpr_out(b, r, lanes, exec, row, shift, ftz, off),
            Output::Sgpr { code, shift, off } => {
                let x = b.ins().load(types::I64, flags(), r.arena, off as i32);
                let x = if shift != 0 {
                    b.ins().ushr_imm_u(x, shift as i64)
                } else {
                    x
                };
                let x = b.ins().ireduce(types::I32, x);
                b.ins().store(flags(), x, r.sgpr, (code * 4) as i32);
            }
            Output::Mask {
                lo,
                hi,
                mask,
                by_exec,
                per_lane,
                off,
            } => {
                let lanes = per_lane.then_some(lanes);
                mask::emit_mask_out(b, r, by_exec.then_some(exec), (lo, hi), mask, off, lanes)
            }
            Output::Scc { off } => {
                let x = b.ins().load(types::I8, flags(), r.arena, off as i32);
                let x = b.ins().band_imm_u(x, 1);
                b.ins().store(flags(), x, r.scc, 0);
            }
        }
    }
}

/// Writes a VGPR result back: with every lane active, the slots' words straight into the row;
/// otherwise each lane's word or its old value by its EXEC bit.
#[allow(clippy::too_many_arguments)]
fn emit_vgpr_out(
    b: &mut FunctionBuilder<'_>,
    r: &Regs,
    lanes: u32,
    exec: Value,
    row: u32,
    shift: u32,
    ftz: bool,
    off: u32,
) {
    use cranelift_codegen::ir::condcodes::IntCC;
    let full_mask = if lanes == 64 {
        u64::MAX
    } else {
        (1u64 << lanes) - 1
    };
    let all = b.ins().icmp_imm_u(IntCC::Equal, exec, full_mask as i64);
    let (fast, slow, join) = (b.create_block(), b.create_block(), b.create_block());
    b.ins().brif(all, fast, &[], slow, &[]);
    for (block, masked) in [(fast, false), (slow, true)] {
        b.switch_to_block(block);
        b.seal_block(block);
        lane_loop(b, r, lanes, |b, vp, ap, lane, k| {
            // Bits `shift + 31 : shift` of the slot's little-endian low word.
            let at = off as i32 + k as i32 * SLOT + (shift / 8) as i32;
            let x = b.ins().load(types::I32, flags(), ap, at);
            let x = if ftz { flush(b, x) } else { x };
            let v = if masked {
                let old = b.ins().load(types::I32, flags(), vp, vgpr_off(row, k));
                let bits = b.ins().ushr(exec, lane);
                let bit = b.ins().band_imm_u(bits, 1 << k);
                let on = b.ins().icmp_imm_u(IntCC::NotEqual, bit, 0);
                b.ins().select(on, x, old)
            } else {
                x
            };
            b.ins().store(flags(), v, vp, vgpr_off(row, k));
        });
        b.ins().jump(join, &[]);
    }
    b.switch_to_block(join);
    b.seal_block(join);
}

/// Lanes per trip of a lane loop.
const UNROLL: u32 = 4;

/// Emits `body(b, vgpr_lane, arena_lane, lane, k)` for lanes `lane + k` in `0..n`, as a loop
/// unrolled [`UNROLL`] times (`k` in `0..UNROLL`): `vgpr_lane` is the VGPR file advanced to
/// `lane`'s word (`vgpr + 4 * lane`), `arena_lane` the arena advanced to `lane`'s slot
/// (`arena + 16 * lane`), `lane` the index (`i64`); the body adds `k`'s offsets. A count that is
/// not a multiple of [`UNROLL`] (one lane) runs inline.
fn lane_loop(
    b: &mut FunctionBuilder<'_>,
    r: &Regs,
    n: u32,
    mut body: impl FnMut(&mut FunctionBuilder<'_>, Value, Value, Value, u32),
) {
    use cranelift_codegen::ir::condcodes::IntCC;
    if !n.is_multiple_of(UNROLL) {
        let zero = b.ins().iconst(types::I64, 0);
        for k in 0..n {
            body(b, r.vgpr, r.arena, zero, k);
        }
        return;
    }
    let header = b.create_block();
    b.append_block_param(header, types::I64);
    let exit = b.create_block();
    let zero = b.ins().iconst(types::I64, 0);
    b.ins().jump(header, &[zero.into()]);
    b.switch_to_block(header);
    let lane = b.block_params(header)[0];
    let v = b.ins().ishl_imm_u(lane, 2);
    let vp = b.ins().iadd(r.vgpr, v);
    let a = b.ins().ishl_imm_u(lane, 4);
    let ap = b.ins().iadd(r.arena, a);
    for k in 0..UNROLL {
        body(b, vp, ap, lane, k);
    }
    let next = b.ins().iadd_imm_s(lane, UNROLL as i64);
    let more = b.ins().icmp_imm_u(IntCC::UnsignedLessThan, next, n as i64);
    b.ins().brif(more, header, &[next.into()], exit, &[]);
    b.seal_block(header);
    b.switch_to_block(exit);
    b.seal_block(exit);
}
