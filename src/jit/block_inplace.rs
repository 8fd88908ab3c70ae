//! In-place block instructions: an instruction's optimised IR translated straight into the
//! block function (`translate::Translator::new_inplace`) instead of a call of its kernel with
//! a slot buffer, and the wave-uniform state (SGPRs, SCC) the block holds in registers across
//! its instructions.
//!
//! An instruction is translated in place when its IR cannot fault (no arrays, memory,
//! effects or `while` loops, only loops between constant bounds), it is a scalar instruction
//! or loops over lanes (not wave-level), and its inputs and outputs fit the register roles:
//! per-lane registers from VGPR rows, SGPRs, SCC, EXEC or constants and out to VGPR rows;
//! wave-uniform registers from SGPRs, SCC, EXEC or constants and out to SGPRs, SCC or their
//! slot (PC, which the block's loop test and the wave layer read there). Anything else keeps
//! the kernel call (`block::emit_inst`).

use std::collections::BTreeMap;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, FuncRef, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::{FunctionBuilder, Variable};

use super::block::plan::{
    BlockInst, Output, Plan, Regs, Source, Src, UniformOut, EXEC_HI, EXEC_LO,
};
use super::block_simd;
use super::translate::{InPlace, RegLoc, Translator};
use super::JitError;

fn flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// The SGPRs and SCC the block holds in variables: read from the register file on first use,
/// written back (when changed) before a kernel call, at a fault exit and at the block's end
/// (before its loop test, so the back-edge starts from the register file again).
#[derive(Default)]
pub(super) struct Cache {
    /// By operand code: the `i32` variable and whether it differs from the file.
    sgpr: BTreeMap<u32, (Variable, bool)>,
    /// The `i8` variable and whether it differs from the file.
    scc: Option<(Variable, bool)>,
}

impl Cache {
    fn sgpr(&mut self, b: &mut FunctionBuilder<'_>, r: &Regs, code: u32) -> Value {
        if let Some((var, _)) = self.sgpr.get(&code) {
            return b.use_var(*var);
        }
        let x = b.ins().load(types::I32, flags(), r.sgpr, (code * 4) as i32);
        let var = b.declare_var(types::I32);
        b.def_var(var, x);
        self.sgpr.insert(code, (var, false));
        x
    }

    fn set_sgpr(&mut self, b: &mut FunctionBuilder<'_>, code: u32, x: Value) {
        let var = match self.sgpr.get(&code) {
            Some((var, _)) => *var,
            None => b.declare_var(types::I32),
        };
        b.def_var(var, x);
        self.sgpr.insert(code, (var, true));
    }

    fn scc(&mut self, b: &mut FunctionBuilder<'_>, r: &Regs) -> Value {
        if let Some((var, _)) = self.scc {
            return b.use_var(var);
        }
        let x = b.ins().load(types::I8, flags(), r.scc, 0);
        let var = b.declare_var(types::I8);
        b.def_var(var, x);
        self.scc = Some((var, false));
        x
    }

    fn set_scc(&mut self, b: &mut FunctionBuilder<'_>, x: Value) {
        let var = match self.scc {
            Some((var, _)) => var,
            None => b.declare_var(types::I8),
        };
        b.def_var(var, x);
        self.scc = Some((var, true));
    }

    /// A 32-bit source, zero-extended to `i64`.
    fn src(&mut self, b: &mut FunctionBuilder<'_>, r: &Regs, s: Src) -> Value {
        match s {
            Src::Zero => b.ins().iconst(types::I64, 0),
            Src::Sgpr(code) => {
                let x = self.sgpr(b, r, code);
                b.ins().uextend(types::I64, x)
            }
            Src::Scc => {
                let x = self.scc(b, r);
                b.ins().uextend(types::I64, x)
            }
        }
    }

    /// `lo | hi << 32` (`i64`) of two 32-bit sources (`hi` may be [`Src::Zero`]).
    fn pair(&mut self, b: &mut FunctionBuilder<'_>, r: &Regs, lo: Src, hi: Src) -> Value {
        let x = self.src(b, r, lo);
        if hi == Src::Zero {
            return x;
        }
        let h = self.src(b, r, hi);
        let h = b.ins().ishl_imm_u(h, 32);
        b.ins().bor(x, h)
    }

    /// EXEC (`i64`), masked to the wave's lanes.
    pub(super) fn exec(&mut self, b: &mut FunctionBuilder<'_>, r: &Regs, lanes: u32) -> Value {
        let lo = self.src(b, r, Src::Sgpr(EXEC_LO));
        if lanes != 64 {
            return lo;
        }
        let hi = self.src(b, r, Src::Sgpr(EXEC_HI));
        let hi = b.ins().ishl_imm_u(hi, 32);
        b.ins().bor(lo, hi)
    }

    /// Writes the changed values back to the register file.
    pub(super) fn store(&self, b: &mut FunctionBuilder<'_>, r: &Regs) {
        for (&code, &(var, dirty)) in &self.sgpr {
            if dirty {
                let x = b.use_var(var);
                b.ins().store(flags(), x, r.sgpr, (code * 4) as i32);
            }
        }
        if let Some((var, true)) = self.scc {
            let x = b.use_var(var);
            b.ins().store(flags(), x, r.scc, 0);
        }
    }

    /// Writes the changed values back and marks them unchanged.
    pub(super) fn flush(&mut self, b: &mut FunctionBuilder<'_>, r: &Regs) {
        self.store(b, r);
        for e in self.sgpr.values_mut() {
            e.1 = false;
        }
        if let Some(e) = &mut self.scc {
            e.1 = false;
        }
    }

    /// Forgets every cached value (after a call that may write any register; the caller
    /// flushed before it).
    pub(super) fn clear(&mut self) {
        self.sgpr.clear();
        self.scc = None;
    }

    /// Forgets the values a kernel call wrote to the register file.
    pub(super) fn forget(&mut self, inst: &BlockInst) {
        for o in &inst.outputs {
            match *o {
                Output::Sgpr { code, .. } => {
                    self.sgpr.remove(&code);
                }
                Output::Mask { lo, hi, .. } => {
                    for code in lo.into_iter().chain(hi) {
                        self.sgpr.remove(&code);
                    }
                }
                Output::Scc { .. } => self.scc = None,
                Output::Vgpr { .. } => {}
            }
        }
    }
}

/// The block function's context for one instruction.
pub(super) struct Emit<'r> {
    pub(super) regs: &'r Regs,
    pub(super) lanes: u32,
    pub(super) ctx: Value,
    pub(super) helper_ref: FuncRef,
    pub(super) ptr: Type,
    pub(super) cfg: cranelift_codegen::isa::TargetFrontendConfig,
    pub(super) fail: Block,
    /// Whether instructions whose IR allows it run four lanes at a time (`block_simd`).
    pub(super) simd: bool,
}

/// Emits instruction `index` in place; the builder comes back after it, with whether the
/// instruction runs four lanes at a time.
///
/// # Errors
/// When the translator cannot translate the IR (the caller compiles the block without
/// in-place instructions).
pub(super) fn emit<'b>(
    mut b: FunctionBuilder<'b>,
    e: &Emit<'_>,
    index: usize,
    inst: &BlockInst,
    plan: &Plan<'_>,
    cache: &mut Cache,
) -> Result<(FunctionBuilder<'b>, bool), JitError> {
    let r = e.regs;
    let exec = cache.exec(&mut b, r, e.lanes);
    let mut locs = Vec::with_capacity(plan.sources.len());
    for s in &plan.sources {
        locs.push(match *s {
            Source::Slot => RegLoc::Slot,
            Source::Scalar { lo, hi, mask } => {
                let mut x = cache.pair(&mut b, r, lo, hi);
                if mask != u64::MAX {
                    x = b.ins().band_imm_u(x, mask as i64);
                }
                RegLoc::Value(x)
            }
            Source::Const(v) => RegLoc::Value(b.ins().iconst(types::I64, v as i64)),
            Source::IsZero { lo, hi, mask } => {
                let x = cache.pair(&mut b, r, lo, hi);
                let x = b.ins().band_imm_u(x, mask as i64);
                let z = b.ins().icmp_imm_u(IntCC::Equal, x, 0);
                RegLoc::Value(b.ins().uextend(types::I64, z))
            }
            Source::Vgpr {
                row,
                pair,
                shift,
                mask,
                ftz,
            } => RegLoc::Vgpr {
                row,
                pair,
                shift,
                mask,
                ftz,
            },
        });
    }
    if e.simd && block_simd::supported(plan, &locs, e.lanes) {
        let finals = block_simd::emit(&mut b, plan, &locs, r.vgpr, exec, e.lanes)?;
        finish(&mut b, r, inst, plan, cache, exec, &finals)?;
        return Ok((b, true));
    }
    // A fault leaves the state as before the instruction: the cache's changes are stored.
    let landing = b.create_block();
    b.append_block_param(landing, types::I32);
    let start = b.create_block();
    b.ins().jump(start, &[]);
    b.switch_to_block(landing);
    b.seal_block(landing);
    cache.store(&mut b, r);
    let st = b.block_params(landing)[0];
    let st64 = b.ins().uextend(types::I64, st);
    let code = b.ins().bor_imm_u(st64, (index as i64) << 32);
    b.ins().jump(e.fail, &[code.into()]);
    b.switch_to_block(start);
    b.seal_block(start);

    let slots = b.ins().iadd_imm_s(r.arena, inst.slots as i64);
    let ir = plan.ir;
    let mut helpers = Vec::new();
    let t = Translator::new_inplace(
        b,
        &ir.function,
        &ir.layout,
        &mut helpers,
        e.helper_ref,
        e.ptr,
        e.cfg,
        ir.lane_loop,
        slots,
        e.ctx,
        InPlace {
            vgpr: r.vgpr,
            exec,
            lanes: e.lanes,
            locs,
            lane_outs: plan.lane_outs.clone(),
            lane_masks: plan.lane_masks.clone(),
        },
    );
    let (mut b, finals) = t.translate_inplace(landing)?;
    finish(&mut b, r, inst, plan, cache, exec, &finals)?;
    Ok((b, false))
}

/// Hands the final values of the wave-uniform registers an instruction wrote (`finals`, by
/// register) to their slots and to the cache, as the kernel call would write them.
fn finish(
    b: &mut FunctionBuilder<'_>,
    r: &Regs,
    inst: &BlockInst,
    plan: &Plan<'_>,
    cache: &mut Cache,
    exec: Value,
    finals: &[Option<Value>],
) -> Result<(), JitError> {
    let ir = plan.ir;
    let mut v64s = vec![None; finals.len()];
    for (i, v) in finals.iter().enumerate() {
        let Some(v) = *v else { continue };
        let slot_read = matches!(plan.sources[i], Source::Slot) && ir.function.regs[i].read;
        if !plan.has_out[i] || (slot_read && !plan.lane_masks[i]) {
            // A written register without a register-file output (PC), or one whose next run
            // reads its slot as the kernel would: into its slot.
            let off = inst.slots as i32 + ir.layout.offsets[i];
            b.ins().store(flags(), v, r.arena, off);
            if !plan.has_out[i] {
                continue;
            }
        }
        let ty = b.func.dfg.value_type(v);
        v64s[i] = Some(if ty == types::I64 {
            v
        } else if ty.bits() > 64 {
            b.ins().ireduce(types::I64, v)
        } else {
            b.ins().uextend(types::I64, v)
        });
    }
    for &(i, o) in &plan.uniform_outs {
        let Some(v64) = v64s[i] else {
            return Err(JitError::Internal(format!(
                "bug: an in-place output of {} ({}) without a final value",
                ir.function.name, ir.function.regs[i].name
            )));
        };
        match o {
            UniformOut::Sgpr { code, shift } => {
                let x = if shift != 0 {
                    b.ins().ushr_imm_u(v64, shift as i64)
                } else {
                    v64
                };
                let x = b.ins().ireduce(types::I32, x);
                cache.set_sgpr(b, code, x);
            }
            UniformOut::Scc => {
                let x = b.ins().band_imm_u(v64, 1);
                let x = b.ins().ireduce(types::I8, x);
                cache.set_scc(b, x);
            }
            UniformOut::Mask {
                lo,
                hi,
                mask,
                by_exec,
            } => {
                // As `mask::emit_mask_out`, into the cache: later instructions (and the
                // next one's EXEC) read the merged value.
                let mut x = if mask != u64::MAX {
                    b.ins().band_imm_u(v64, mask as i64)
                } else {
                    v64
                };
                if by_exec {
                    x = b.ins().band(x, exec);
                }
                if let Some(c) = lo {
                    let w = b.ins().ireduce(types::I32, x);
                    cache.set_sgpr(b, c, w);
                }
                if let Some(c) = hi {
                    let h = b.ins().ushr_imm_u(x, 32);
                    let w = b.ins().ireduce(types::I32, h);
                    cache.set_sgpr(b, c, w);
                }
            }
        }
    }
    Ok(())
}
