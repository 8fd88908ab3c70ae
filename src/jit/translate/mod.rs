//! IR → Cranelift IR.
//!
//! Every IR value lives in the smallest integer container that holds its width (i8, i16, i32,
//! i64, i128; `bool` is an i8 of 0 or 1) with the bits above its width kept zero. Floats are
//! their bit patterns; f32/f64 arithmetic, fma and sqrt in the default rounding mode are
//! emitted inline (with the NaN rule of `crate::float`: the first NaN operand quietened, else
//! the positive default NaN), everything else calls a helper of `runtime.rs`.
//!
//! The kernel signature is `fn(slots: *mut u8, ctx: *mut Ctx, n_lanes: u32, exec: u64) -> u32`:
//! it runs the body once per lane below `n_lanes` whose `exec` bit is set (kernels of scalar
//! and wave-level entries run it once and ignore both arguments), reading and writing
//! registers in `slots` (16 bytes per value, per-lane registers 64 values apart), and returns
//! a status of `runtime::status`. In a lane loop the wave-uniform registers (SGPR operands,
//! VCC, a VOPC mask) are loaded once before the loop and stored once after it; per-lane
//! registers are read and written in place, f32/f64 operands straight into float registers.
//!
//! Also inline: `CountBits` up to 64 bits (`popcnt`; the optimiser turns AMD's bit-counting
//! loops into it) and bit reversal (a byte swap and three mask steps).
//!
//! This module holds the layout, the translator's state and the lane loop; `stmt` translates
//! statements and places, `expr` expressions, `float` the inline f32/f64 paths, `values` the
//! container arithmetic, and `regs` register access and helper calls.

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, Block, FuncRef, InstBuilder, MemFlagsData, Opcode, Signature, StackSlotData,
    StackSlotKind, Type, Value,
};
use cranelift_frontend::{FunctionBuilder, Variable};

mod expr;
mod float;
mod inplace;
mod regs;
mod stmt;
mod values;

use super::runtime::{status, Helper};
use super::JitError;
use crate::interp::STEP_BUDGET;
use crate::ir::{Function, RegId, RegRole, Ty};
pub(crate) use expr::int_cc;
pub use inplace::{flush_f32, InPlace, LaneOut, RegLoc};

/// Bytes per value slot.
pub const SLOT: i32 = 16;
/// Lanes reserved per per-lane register.
pub const MAX_LANES: i32 = 64;

/// Where each register lives in the slots buffer.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Byte offset of each register.
    pub offsets: Vec<i32>,
    /// Whether each register has one value per lane.
    pub per_lane: Vec<bool>,
    /// Total bytes.
    pub size: usize,
}

impl Layout {
    /// Lays out the registers of a function.
    pub fn new(per_lane: &[bool]) -> Layout {
        let mut offsets = Vec::new();
        let mut off = 0;
        for &pl in per_lane {
            offsets.push(off);
            off += if pl { SLOT * MAX_LANES } else { SLOT };
        }
        Layout {
            offsets,
            per_lane: per_lane.to_vec(),
            size: off as usize,
        }
    }
}

/// The container type of an IR type.
pub fn container(ty: Ty) -> Result<Type, JitError> {
    let w = ty.width();
    Ok(match w {
        0..=8 => types::I8,
        9..=16 => types::I16,
        17..=32 => types::I32,
        33..=64 => types::I64,
        65..=128 => types::I128,
        _ => {
            return Err(JitError::Unsupported(format!(
                "{w}-bit values (the JIT handles up to 128 bits)"
            )))
        }
    })
}

struct Loop {
    exit: Block,
    cont: Block,
}

/// Translation state of one function.
pub struct Translator<'a, 'b> {
    pub(crate) b: FunctionBuilder<'b>,
    f: &'a Function,
    layout: &'a Layout,
    helpers: &'a mut Vec<Helper>,
    helper_ref: FuncRef,
    ptr: Type,
    slots: Value,
    ctx: Value,
    lane: Variable,
    locals: Vec<Option<Variable>>,
    arrays: HashMap<u32, cranelift_codegen::ir::StackSlot>,
    budget: Variable,
    loops: Vec<Loop>,
    lane_end: Block,
    /// Where a lane's body ends (`Return` jumps here): `lane_end`, or in place a block that
    /// stores the lane's VGPR results first.
    lane_out: Block,
    trap: Block,
    inline_float: bool,
    round_reg: Option<RegId>,
    cfg: cranelift_codegen::isa::TargetFrontendConfig,
    lane_loop: bool,
    /// Wave-uniform registers held in variables across the lane loop (loaded once on entry,
    /// stored once on exit), by register index.
    promoted: Vec<Option<Variable>>,
    /// In place: the lane masks gathered from per-lane registers, by register index.
    gathered: Vec<Option<Variable>>,
    /// In a block: where the registers live in the wave's register files.
    inplace: Option<InPlace>,
}

fn bits(t: Type) -> u32 {
    t.bits()
}

impl<'a, 'b> Translator<'a, 'b> {
    /// Sets up the entry block and the lane loop; `translate` emits the body.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        mut b: FunctionBuilder<'b>,
        f: &'a Function,
        layout: &'a Layout,
        helpers: &'a mut Vec<Helper>,
        helper_ref: FuncRef,
        ptr: Type,
        cfg: cranelift_codegen::isa::TargetFrontendConfig,
        lane_loop: bool,
    ) -> Translator<'a, 'b> {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        Translator::with_parts(
            b, f, layout, helpers, helper_ref, ptr, cfg, lane_loop, params[0], params[1], None,
        )
    }

    /// The translator of `f` into `b` at its current block, with the slots at `slots`, the
    /// context at `ctx` and, for an in-place translation, the registers at `inplace` (whose
    /// lane body ends at its own block, where the lane's VGPR results are stored).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn with_parts(
        mut b: FunctionBuilder<'b>,
        f: &'a Function,
        layout: &'a Layout,
        helpers: &'a mut Vec<Helper>,
        helper_ref: FuncRef,
        ptr: Type,
        cfg: cranelift_codegen::isa::TargetFrontendConfig,
        lane_loop: bool,
        slots: Value,
        ctx: Value,
        inplace: Option<InPlace>,
    ) -> Translator<'a, 'b> {
        let lane = b.declare_var(types::I32);
        let budget = b.declare_var(types::I64);
        let lane_end = b.create_block();
        let lane_out = if inplace.is_some() {
            b.create_block()
        } else {
            lane_end
        };
        let trap = b.create_block();
        b.append_block_param(trap, types::I32);
        let round_reg = f.reg("ROUND_MODE");
        let gathered = if inplace.is_some() {
            vec![None; f.regs.len()]
        } else {
            Vec::new()
        };
        Translator {
            b,
            f,
            layout,
            helpers,
            helper_ref,
            ptr,
            slots,
            ctx,
            lane,
            locals: vec![None; f.locals.len()],
            arrays: HashMap::new(),
            budget,
            loops: Vec::new(),
            lane_end,
            lane_out,
            trap,
            inline_float: round_reg.is_none(),
            round_reg,
            cfg,
            lane_loop,
            promoted: vec![None; f.regs.len()],
            gathered,
            inplace,
        }
    }

    /// Emits the lane loop around the body and finishes the function.
    pub fn translate(mut self) -> Result<(), JitError> {
        let entry = self
            .b
            .current_block()
            .ok_or(JitError::Internal("no entry block".into()))?;
        let params = self.b.block_params(entry).to_vec();
        let (n_lanes, exec) = (params[2], params[3]);
        let done = self.emit_lanes(n_lanes, exec)?;
        debug_assert_eq!(self.b.current_block(), Some(done));
        self.store_promoted();
        let ok = self.b.ins().iconst(types::I32, status::OK as i64);
        self.b.ins().return_(&[ok]);

        self.b.switch_to_block(self.trap);
        self.store_promoted();
        let code = self.b.block_params(self.trap)[0];
        self.b.ins().return_(&[code]);

        self.b.seal_all_blocks();
        self.b.finalize(self.cfg);
        Ok(())
    }

    /// Emits the lane loop (or the single run) around the body, from the current block;
    /// returns the block after it, which is current.
    fn emit_lanes(&mut self, n_lanes: Value, exec: Value) -> Result<Block, JitError> {
        let zero32 = self.b.ins().iconst(types::I32, 0);
        self.b.def_var(self.lane, zero32);
        if self.inplace.is_some() {
            self.promote_inplace()?;
        } else if self.lane_loop {
            self.promote_uniform_regs()?;
        }
        let body = self.b.create_block();
        let done = self.b.create_block();
        let check = self.b.create_block();
        // In place, the lane loop visits the set bits of EXEC (the lowest first, cleared at the
        // bottom): no test of inactive lanes and no bound to compare.
        let by_bits = self.lane_loop && self.inplace.is_some();
        let rest = self.b.declare_var(types::I64);
        // A kernel without a lane loop runs its body once, as lane 0. The lane loop tests
        // its bound at the bottom (one branch per lane), after a guard for zero lanes.
        if by_bits {
            self.b.def_var(rest, exec);
            let any = self.b.ins().icmp_imm_u(IntCC::NotEqual, exec, 0);
            self.b.ins().brif(any, check, &[], done, &[]);
        } else if self.lane_loop {
            let any = self.b.ins().icmp_imm_u(IntCC::NotEqual, n_lanes, 0);
            self.b.ins().brif(any, check, &[], done, &[]);
        } else {
            self.b.ins().jump(body, &[]);
        }

        self.b.switch_to_block(check);
        if by_bits {
            let r = self.b.use_var(rest);
            let lane = self.b.ins().ctz(r);
            let lane = self.b.ins().ireduce(types::I32, lane);
            self.b.def_var(self.lane, lane);
            self.b.ins().jump(body, &[]);
        } else {
            let lane = self.b.use_var(self.lane);
            let lane64 = self.b.ins().uextend(types::I64, lane);
            let shifted = self.b.ins().ushr(exec, lane64);
            let active = self.b.ins().band_imm_u(shifted, 1);
            self.b.ins().brif(active, body, &[], self.lane_end, &[]);
        }

        self.b.switch_to_block(body);
        let budget = self.b.ins().iconst(types::I64, STEP_BUDGET as i64);
        self.b.def_var(self.budget, budget);
        // Locals start at zero in every lane, as in the interpreter.
        for (i, l) in self.f.locals.iter().enumerate() {
            if let Some(n) = l.len {
                let ty = container(l.ty)?;
                let size = (n as u64 * SLOT as u64).min(u32::MAX as u64) as u32;
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    size,
                    4,
                ));
                self.arrays.insert(i as u32, slot);
                let _ = ty;
                self.zero_array(slot, n as i32 * 2);
            } else {
                let ty = container(l.ty)?;
                let var = self.b.declare_var(ty);
                let z = self.zero(ty);
                self.b.def_var(var, z);
                self.locals[i] = Some(var);
            }
        }
        if let Some(r) = self.round_reg {
            let v = self.read_reg(r)?;
            self.call_helper(Helper::SetRound, &[(v, Ty::U(32))], false)?;
        }
        if self.inplace.is_some() {
            self.init_lane_regs()?;
        }
        let body_stmts = &self.f.body;
        self.block(body_stmts)?;
        if !self.is_filled() {
            self.b.ins().jump(self.lane_out, &[]);
        }
        if self.lane_out != self.lane_end {
            self.b.switch_to_block(self.lane_out);
            self.store_lane_outputs()?;
            self.b.ins().jump(self.lane_end, &[]);
        }

        self.b.switch_to_block(self.lane_end);
        if by_bits {
            let r = self.b.use_var(rest);
            let less = self.b.ins().iadd_imm_s(r, -1);
            let next = self.b.ins().band(r, less);
            self.b.def_var(rest, next);
            let more = self.b.ins().icmp_imm_u(IntCC::NotEqual, next, 0);
            self.b.ins().brif(more, check, &[], done, &[]);
        } else if self.lane_loop {
            let lane = self.b.use_var(self.lane);
            let next = self.b.ins().iadd_imm_s(lane, 1);
            self.b.def_var(self.lane, next);
            let more = self.b.ins().icmp(IntCC::UnsignedLessThan, next, n_lanes);
            self.b.ins().brif(more, check, &[], done, &[]);
        } else {
            self.b.ins().jump(done, &[]);
        }

        self.b.switch_to_block(done);
        Ok(done)
    }

    /// Loads every wave-uniform register the text uses into a variable. In a lane loop the
    /// kernel is the only code touching its slot buffer (helpers never see it), so the
    /// registers can live in machine registers across lanes: a VOPC compare then builds its
    /// mask in a register instead of a load-modify-store through memory per lane.
    fn promote_uniform_regs(&mut self) -> Result<(), JitError> {
        for (i, r) in self.f.regs.iter().enumerate() {
            if self.layout.per_lane[i] || r.role == RegRole::Lane || !(r.read || r.written) {
                continue;
            }
            let ty = container(Ty::B(r.width))?;
            let v = self.read_reg(RegId(i as u32))?;
            let var = self.b.declare_var(ty);
            self.b.def_var(var, v);
            self.promoted[i] = Some(var);
        }
        Ok(())
    }

    /// Writes the promoted registers the text writes back to their slots.
    fn store_promoted(&mut self) {
        for (i, var) in self.promoted.clone().into_iter().enumerate() {
            if let (Some(var), true) = (var, self.f.regs[i].written) {
                let v = self.b.use_var(var);
                let addr = self.reg_addr(RegId(i as u32));
                self.b.ins().store(MemFlagsData::trusted(), v, addr, 0);
            }
        }
    }

    /// Zeroes the first `words` 8-byte words of an array's stack slot: straight stores for
    /// small arrays, a loop for large ones (matrix entries hold arrays of thousands).
    fn zero_array(&mut self, slot: cranelift_codegen::ir::StackSlot, words: i32) {
        let z = self.b.ins().iconst(types::I64, 0);
        if words <= 16 {
            for k in 0..words {
                self.b.ins().stack_store(self.ptr, z, slot, k * 8);
            }
            return;
        }
        let base = self.b.ins().stack_addr(self.ptr, slot, 0);
        let end = self.b.ins().iadd_imm_s(base, words as i64 * 8);
        let (head, next) = (self.b.create_block(), self.b.create_block());
        self.b.append_block_param(head, self.ptr);
        self.b.ins().jump(head, &[base.into()]);
        self.b.switch_to_block(head);
        let at = self.b.block_params(head)[0];
        self.b.ins().store(MemFlagsData::trusted(), z, at, 0);
        let after = self.b.ins().iadd_imm_s(at, 8);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, after, end);
        self.b.ins().brif(more, head, &[after.into()], next, &[]);
        self.b.switch_to_block(next);
    }

    fn is_filled(&self) -> bool {
        match self.b.current_block() {
            Some(block) => {
                let layout = &self.b.func.layout;
                match layout.last_inst(block) {
                    Some(inst) => self.b.func.dfg.insts[inst].opcode().is_terminator(),
                    None => false,
                }
            }
            None => true,
        }
    }

    /// Starts a fresh block for code after a terminator (unreachable but well-formed).
    fn continue_after_terminator(&mut self) {
        let dead = self.b.create_block();
        self.b.switch_to_block(dead);
    }
}

/// Removes slot loads whose value nothing uses (left behind by `Translator::reload_as`);
/// Cranelift keeps loads it is not told are free to drop.
pub fn prune_dead_loads(func: &mut cranelift_codegen::ir::Function) {
    let mut used = std::collections::HashSet::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            used.extend(
                func.dfg
                    .inst_values(inst)
                    .map(|v| func.dfg.resolve_aliases(v)),
            );
        }
    }
    let dead: Vec<_> = func
        .layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b))
        .filter(|&inst| {
            let data = &func.dfg.insts[inst];
            data.opcode() == Opcode::Load
                && data
                    .memflags()
                    .is_some_and(|f| func.dfg.mem_flags[f].notrap())
                && func
                    .dfg
                    .inst_results(inst)
                    .iter()
                    .all(|v| !used.contains(v))
        })
        .collect();
    for inst in dead {
        func.layout.remove_inst(inst);
    }
}

/// The kernel's signature.
pub fn kernel_signature(ptr: Type, call_conv: cranelift_codegen::isa::CallConv) -> Signature {
    let mut sig = Signature::new(call_conv);
    sig.params.push(AbiParam::new(ptr));
    sig.params.push(AbiParam::new(ptr));
    sig.params.push(AbiParam::new(types::I32));
    sig.params.push(AbiParam::new(types::I64));
    sig.returns.push(AbiParam::new(types::I32));
    sig
}

/// The helper's signature.
pub fn helper_signature(ptr: Type, call_conv: cranelift_codegen::isa::CallConv) -> Signature {
    let mut sig = Signature::new(call_conv);
    sig.params.push(AbiParam::new(ptr));
    sig.params.push(AbiParam::new(types::I32));
    sig.params.push(AbiParam::new(ptr));
    sig.params.push(AbiParam::new(ptr));
    sig.returns.push(AbiParam::new(types::I32));
    sig
}
