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

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, Block, FuncRef, InstBuilder, InstructionData, MemFlagsData, Opcode, Signature,
    StackSlotData, StackSlotKind, Type, Value,
};
use cranelift_frontend::{FunctionBuilder, Variable};

use super::runtime::{status, Helper};
use super::JitError;
use crate::interp::STEP_BUDGET;
use crate::ir::{
    BinOp, CmpOp, Conv, Expr, ExprKind, FloatTy, Function, LocalId, Place, RegId, RegRole, Stmt,
    Ty, UnOp,
};

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
    trap: Block,
    inline_float: bool,
    round_reg: Option<RegId>,
    cfg: cranelift_codegen::isa::TargetFrontendConfig,
    lane_loop: bool,
    /// Wave-uniform registers held in variables across the lane loop (loaded once on entry,
    /// stored once on exit), by register index.
    promoted: Vec<Option<Variable>>,
}

/// Whether evaluating `e` is unobservable and cannot fault: integer and boolean arithmetic
/// without division, helpers, memory or array accesses. Both arms of a select of such
/// expressions may be evaluated (a branch-free `select`).
fn is_cheap(e: &Expr) -> bool {
    let int = |t: Ty| t == Ty::Bool || t.is_int();
    if !int(e.ty) {
        return false;
    }
    match &e.kind {
        ExprKind::Const(_) | ExprKind::Reg(_) | ExprKind::Local(_) => true,
        ExprKind::Unary { arg, .. } => is_cheap(arg),
        ExprKind::Binary { op, lhs, rhs } => {
            !matches!(op, BinOp::Div | BinOp::Rem | BinOp::Pow) && is_cheap(lhs) && is_cheap(rhs)
        }
        ExprKind::Cmp { lhs, rhs, .. } => is_cheap(lhs) && is_cheap(rhs),
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => is_cheap(cond) && is_cheap(then) && is_cheap(otherwise),
        ExprKind::Convert { arg, .. } => is_cheap(arg),
        ExprKind::Slice { arg, lo, .. } => is_cheap(arg) && is_cheap(lo),
        ExprKind::Concat(parts) => parts.iter().all(is_cheap),
        _ => false,
    }
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
        let lane = b.declare_var(types::I32);
        let budget = b.declare_var(types::I64);
        let lane_end = b.create_block();
        let trap = b.create_block();
        b.append_block_param(trap, types::I32);
        let round_reg = f.reg("ROUND_MODE");
        Translator {
            b,
            f,
            layout,
            helpers,
            helper_ref,
            ptr,
            slots: params[0],
            ctx: params[1],
            lane,
            locals: vec![None; f.locals.len()],
            arrays: HashMap::new(),
            budget,
            loops: Vec::new(),
            lane_end,
            trap,
            inline_float: round_reg.is_none(),
            round_reg,
            cfg,
            lane_loop,
            promoted: vec![None; f.regs.len()],
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
        let zero32 = self.b.ins().iconst(types::I32, 0);
        self.b.def_var(self.lane, zero32);
        if self.lane_loop {
            self.promote_uniform_regs()?;
        }
        let body = self.b.create_block();
        let done = self.b.create_block();
        let check = self.b.create_block();
        // A kernel without a lane loop runs its body once, as lane 0. The lane loop tests
        // its bound at the bottom (one branch per lane), after a guard for zero lanes.
        if self.lane_loop {
            let any = self.b.ins().icmp_imm_u(IntCC::NotEqual, n_lanes, 0);
            self.b.ins().brif(any, check, &[], done, &[]);
        } else {
            self.b.ins().jump(body, &[]);
        }

        self.b.switch_to_block(check);
        let lane = self.b.use_var(self.lane);
        let lane64 = self.b.ins().uextend(types::I64, lane);
        let shifted = self.b.ins().ushr(exec, lane64);
        let active = self.b.ins().band_imm_u(shifted, 1);
        self.b.ins().brif(active, body, &[], self.lane_end, &[]);

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
        let body_stmts = &self.f.body;
        self.block(body_stmts)?;
        if !self.is_filled() {
            self.b.ins().jump(self.lane_end, &[]);
        }

        self.b.switch_to_block(self.lane_end);
        if self.lane_loop {
            let lane = self.b.use_var(self.lane);
            let next = self.b.ins().iadd_imm_s(lane, 1);
            self.b.def_var(self.lane, next);
            let more = self.b.ins().icmp(IntCC::UnsignedLessThan, next, n_lanes);
            self.b.ins().brif(more, check, &[], done, &[]);
        } else {
            self.b.ins().jump(done, &[]);
        }

        self.b.switch_to_block(done);
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

    fn zero(&mut self, ty: Type) -> Value {
        self.iconst(ty, 0)
    }

    fn iconst(&mut self, ty: Type, v: u128) -> Value {
        if ty == types::I128 {
            let lo = self.b.ins().iconst(types::I64, v as u64 as i64);
            let hi = self.b.ins().iconst(types::I64, (v >> 64) as u64 as i64);
            self.b.ins().iconcat(lo, hi)
        } else {
            let m = if bits(ty) >= 64 {
                u64::MAX
            } else {
                (1u64 << bits(ty)) - 1
            };
            self.b.ins().iconst(ty, ((v as u64) & m) as i64)
        }
    }

    /// Keeps the low `w` bits of a container value.
    fn mask(&mut self, v: Value, w: u32) -> Value {
        let ty = self.b.func.dfg.value_type(v);
        if w >= bits(ty) {
            return v;
        }
        if ty == types::I128 {
            let m = self.iconst(
                ty,
                if w >= 128 {
                    u128::MAX
                } else {
                    (1u128 << w) - 1
                },
            );
            return self.b.ins().band(v, m);
        }
        let m = (1u64 << w) - 1;
        self.b.ins().band_imm_u(v, m as i64)
    }

    /// Sign-extends a `w`-bit value within its container.
    fn sext_in(&mut self, v: Value, w: u32) -> Value {
        let ty = self.b.func.dfg.value_type(v);
        let c = bits(ty);
        if w >= c {
            return v;
        }
        let s = self.b.ins().ishl_imm_u(v, (c - w) as i64);
        self.b.ins().sshr_imm_u(s, (c - w) as i64)
    }

    /// Converts between containers: `from` bits of `v` (signed or not) to `to` bits.
    fn resize(&mut self, v: Value, from_w: u32, signed: bool, to: Ty) -> Result<Value, JitError> {
        let to_ty = container(to)?;
        let from_ty = self.b.func.dfg.value_type(v);
        let v = if signed { self.sext_in(v, from_w) } else { v };
        let r = if bits(to_ty) > bits(from_ty) {
            if let Some(r) = (from_w == bits(from_ty) || !signed)
                .then(|| self.reload_extended(v, to_ty, signed))
                .flatten()
            {
                r
            } else if signed {
                self.b.ins().sextend(to_ty, v)
            } else {
                self.b.ins().uextend(to_ty, v)
            }
        } else if bits(to_ty) < bits(from_ty) {
            self.b.ins().ireduce(to_ty, v)
        } else {
            v
        };
        Ok(self.mask(r, to.width()))
    }

    fn reg_addr(&mut self, r: RegId) -> Value {
        let off = self.layout.offsets[r.0 as usize];
        if self.layout.per_lane[r.0 as usize] {
            let lane = self.b.use_var(self.lane);
            let lane = self.b.ins().uextend(self.ptr, lane);
            let scaled = self.b.ins().imul_imm_u(lane, SLOT as i64);
            let base = self.b.ins().iadd(self.slots, scaled);
            self.b.ins().iadd_imm_s(base, off as i64)
        } else {
            self.b.ins().iadd_imm_s(self.slots, off as i64)
        }
    }

    fn read_reg(&mut self, r: RegId) -> Result<Value, JitError> {
        let info = &self.f.regs[r.0 as usize];
        let ty = container(Ty::B(info.width))?;
        if info.role == RegRole::Lane {
            let lane = self.b.use_var(self.lane);
            return self.resize(lane, 32, false, Ty::B(info.width));
        }
        if let Some(var) = self.promoted[r.0 as usize] {
            return Ok(self.b.use_var(var));
        }
        let addr = self.reg_addr(r);
        Ok(self.b.ins().load(ty, MemFlagsData::trusted(), addr, 0))
    }

    fn write_reg(&mut self, r: RegId, v: Value) -> Result<(), JitError> {
        if let Some(var) = self.promoted[r.0 as usize] {
            self.b.def_var(var, v);
        } else {
            let addr = self.reg_addr(r);
            let stored = self.unbitcast(v);
            self.b.ins().store(MemFlagsData::trusted(), stored, addr, 0);
        }
        if Some(r) == self.round_reg {
            let w = self.f.regs[r.0 as usize].width;
            let _ = w;
            self.call_helper(Helper::SetRound, &[(v, Ty::U(32))], false)?;
        }
        Ok(())
    }

    /// Calls a helper with `(value, type)` arguments; returns the result (container of `ret`).
    fn call_helper(
        &mut self,
        helper: Helper,
        args: &[(Value, Ty)],
        has_result: bool,
    ) -> Result<Option<Value>, JitError> {
        let id = self.helpers.len() as i64;
        self.helpers.push(helper);
        let n = args.len().max(1) as u32;
        let argslot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            n * SLOT as u32,
            4,
        ));
        for (i, (v, _)) in args.iter().enumerate() {
            let ty = self.b.func.dfg.value_type(*v);
            let v128 = if ty == types::I128 {
                *v
            } else {
                self.b.ins().uextend(types::I128, *v)
            };
            self.b
                .ins()
                .stack_store(self.ptr, v128, argslot, i as i32 * SLOT);
        }
        let outslot =
            self.b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 4));
        let argp = self.b.ins().stack_addr(self.ptr, argslot, 0);
        let outp = self.b.ins().stack_addr(self.ptr, outslot, 0);
        let idv = self.b.ins().iconst(types::I32, id);
        let call = self
            .b
            .ins()
            .call(self.helper_ref, &[self.ctx, idv, argp, outp]);
        let st = self.b.inst_results(call)[0];
        let ok = self.b.create_block();
        self.b.ins().brif(st, self.trap, &[st.into()], ok, &[]);
        self.b.switch_to_block(ok);
        if has_result {
            Ok(Some(self.b.ins().stack_load(
                self.ptr,
                types::I128,
                outslot,
                0,
            )))
        } else {
            Ok(None)
        }
    }

    fn helper_value(
        &mut self,
        helper: Helper,
        args: &[(Value, Ty)],
        ret: Ty,
    ) -> Result<Value, JitError> {
        let r = self
            .call_helper(helper, args, true)?
            .ok_or(JitError::Internal("helper without result".into()))?;
        let ty = container(ret)?;
        Ok(if ty == types::I128 {
            r
        } else {
            self.b.ins().ireduce(ty, r)
        })
    }

    // ----- statements ---------------------------------------------------------------------

    fn block(&mut self, body: &[Stmt]) -> Result<(), JitError> {
        for s in body {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn tick(&mut self) {
        let b = self.b.use_var(self.budget);
        let nb = self.b.ins().iadd_imm_s(b, -1);
        self.b.def_var(self.budget, nb);
        let out = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, nb, 0);
        let ok = self.b.create_block();
        let code = self.b.ins().iconst(types::I32, status::BUDGET as i64);
        self.b.ins().brif(out, self.trap, &[code.into()], ok, &[]);
        self.b.switch_to_block(ok);
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), JitError> {
        match s {
            Stmt::Assign { place, value, .. } => {
                let v = self.expr(value)?;
                self.store(place, v)
            }
            Stmt::AssignConcat { places, value, .. } => {
                let v = self.expr(value)?;
                let total = value.ty.width();
                let mut pos = total;
                for (p, w) in places {
                    pos -= w;
                    let shifted = if pos == 0 {
                        v
                    } else {
                        self.b.ins().ushr_imm_u(v, pos as i64)
                    };
                    let part = self.resize(shifted, total, false, Ty::B(*w))?;
                    self.store(p, part)?;
                }
                Ok(())
            }
            Stmt::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                let c = self.expr(cond)?;
                let (tb, eb, join) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.ins().brif(c, tb, &[], eb, &[]);
                self.b.switch_to_block(tb);
                self.block(then)?;
                if !self.is_filled() {
                    self.b.ins().jump(join, &[]);
                }
                self.b.switch_to_block(eb);
                self.block(otherwise)?;
                if !self.is_filled() {
                    self.b.ins().jump(join, &[]);
                }
                self.b.switch_to_block(join);
                Ok(())
            }
            Stmt::For {
                var,
                start,
                end,
                body,
                ..
            } => {
                let ty = self.f.locals[var.0 as usize].ty;
                let w = ty.width();
                let signed = ty.is_signed();
                let s = self.expr(start)?;
                let e = self.expr(end)?;
                let (ss, es) = if signed {
                    (self.sext_in(s, w), self.sext_in(e, w))
                } else {
                    (s, e)
                };
                let cc = if signed {
                    IntCC::SignedGreaterThan
                } else {
                    IntCC::UnsignedGreaterThan
                };
                let skip = self.b.ins().icmp(cc, ss, es);
                let (head, cont, exit) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                let var_v = self.local_var(*var)?;
                self.b.def_var(var_v, s);
                self.b.ins().brif(skip, exit, &[], head, &[]);
                self.b.switch_to_block(head);
                // A loop between constant bounds ends by itself; others count against the budget.
                let bounded = match (start.as_const_u64(), end.as_const_u64()) {
                    (Some(a), Some(b)) => b.wrapping_sub(a) < STEP_BUDGET,
                    _ => false,
                };
                if !bounded {
                    self.tick();
                }
                self.loops.push(Loop { exit, cont });
                self.block(body)?;
                self.loops.pop();
                if !self.is_filled() {
                    self.b.ins().jump(cont, &[]);
                }
                self.b.switch_to_block(cont);
                let i = self.b.use_var(var_v);
                let last = self.b.ins().icmp(IntCC::Equal, i, e);
                let step = self.b.create_block();
                self.b.ins().brif(last, exit, &[], step, &[]);
                self.b.switch_to_block(step);
                let i = self.b.use_var(var_v);
                let one = self.iconst(self.b.func.dfg.value_type(i), 1);
                let n = self.b.ins().iadd(i, one);
                let n = self.mask(n, w);
                self.b.def_var(var_v, n);
                self.b.ins().jump(head, &[]);
                self.b.switch_to_block(exit);
                Ok(())
            }
            Stmt::While { cond, body, .. } => {
                let (head, bodyb, exit) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.ins().jump(head, &[]);
                self.b.switch_to_block(head);
                self.tick();
                let c = self.expr(cond)?;
                self.b.ins().brif(c, bodyb, &[], exit, &[]);
                self.b.switch_to_block(bodyb);
                self.loops.push(Loop { exit, cont: head });
                self.block(body)?;
                self.loops.pop();
                if !self.is_filled() {
                    self.b.ins().jump(head, &[]);
                }
                self.b.switch_to_block(exit);
                Ok(())
            }
            Stmt::Break { .. } => {
                let exit = self
                    .loops
                    .last()
                    .map(|l| l.exit)
                    .ok_or(JitError::Internal("break outside loop".into()))?;
                self.b.ins().jump(exit, &[]);
                self.continue_after_terminator();
                Ok(())
            }
            Stmt::Continue { .. } => {
                let cont = self
                    .loops
                    .last()
                    .map(|l| l.cont)
                    .ok_or(JitError::Internal("continue outside loop".into()))?;
                self.b.ins().jump(cont, &[]);
                self.continue_after_terminator();
                Ok(())
            }
            Stmt::Return { .. } => {
                self.b.ins().jump(self.lane_end, &[]);
                self.continue_after_terminator();
                Ok(())
            }
            Stmt::Effect { builtin, args, .. } => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push((self.expr(a)?, a.ty));
                }
                let tys = args.iter().map(|a| a.ty).collect();
                self.call_helper(
                    Helper::Effect {
                        builtin: *builtin,
                        args: tys,
                    },
                    &vals,
                    false,
                )?;
                Ok(())
            }
        }
    }

    fn local_var(&mut self, l: LocalId) -> Result<Variable, JitError> {
        self.locals[l.0 as usize].ok_or(JitError::Internal("array used as a scalar".into()))
    }

    fn elem_addr(&mut self, local: LocalId, index: &Expr) -> Result<Value, JitError> {
        let len = self.f.locals[local.0 as usize].len.unwrap_or(1);
        let slot = *self
            .arrays
            .get(&local.0)
            .ok_or(JitError::Internal("scalar used as an array".into()))?;
        let i = self.expr(index)?;
        let oob = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, i, len as i64);
        let ok = self.b.create_block();
        let code = self.b.ins().iconst(types::I32, status::OUT_OF_RANGE as i64);
        self.b.ins().brif(oob, self.trap, &[code.into()], ok, &[]);
        self.b.switch_to_block(ok);
        let i = self.b.ins().uextend(self.ptr, i);
        let off = self.b.ins().imul_imm_u(i, SLOT as i64);
        let base = self.b.ins().stack_addr(self.ptr, slot, 0);
        Ok(self.b.ins().iadd(base, off))
    }

    /// Reads the current value of a place (for slice stores).
    fn read_place(&mut self, p: &Place) -> Result<(Value, u32), JitError> {
        match p {
            Place::Reg(r) => Ok((self.read_reg(*r)?, self.f.regs[r.0 as usize].width)),
            Place::Local(l) => {
                let v = self.local_var(*l)?;
                Ok((self.b.use_var(v), self.f.locals[l.0 as usize].ty.width()))
            }
            Place::Elem { local, index } => {
                let ty = self.f.locals[local.0 as usize].ty;
                let addr = self.elem_addr(*local, index)?;
                let ct = container(ty)?;
                Ok((
                    self.b.ins().load(ct, MemFlagsData::trusted(), addr, 0),
                    ty.width(),
                ))
            }
            Place::Slice {
                base,
                lo,
                width,
                reversed,
            } => {
                let (b, bw) = self.read_place(base)?;
                let lo = self.expr(lo)?;
                let v = self.extract(b, bw, lo, *width)?;
                Ok((
                    if *reversed {
                        self.reverse(v, *width)?
                    } else {
                        v
                    },
                    *width,
                ))
            }
            Place::Store {
                space,
                addr,
                lane,
                width,
            } => {
                let (l, a) = self.mem_args(addr, lane.as_ref())?;
                let v = self.helper_value(
                    Helper::Load {
                        space: *space,
                        width: *width,
                    },
                    &[(l, Ty::U(32)), (a, Ty::U(64))],
                    Ty::B(*width),
                )?;
                Ok((v, *width))
            }
        }
    }

    fn mem_args(&mut self, addr: &Expr, lane: Option<&Expr>) -> Result<(Value, Value), JitError> {
        let a = self.expr(addr)?;
        let a = self.resize(a, addr.ty.width(), false, Ty::U(64))?;
        let l = match lane {
            Some(l) => {
                let v = self.expr(l)?;
                self.resize(v, l.ty.width(), false, Ty::U(32))?
            }
            None => self.b.use_var(self.lane),
        };
        Ok((l, a))
    }

    fn store(&mut self, p: &Place, v: Value) -> Result<(), JitError> {
        match p {
            Place::Reg(r) => {
                let w = self.f.regs[r.0 as usize].width;
                let vw = bits(self.b.func.dfg.value_type(v));
                let v = self.resize(v, vw.min(w), false, Ty::B(w))?;
                self.write_reg(*r, v)
            }
            Place::Local(l) => {
                let var = self.local_var(*l)?;
                self.b.def_var(var, v);
                Ok(())
            }
            Place::Elem { local, index } => {
                let addr = self.elem_addr(*local, index)?;
                self.b.ins().store(MemFlagsData::trusted(), v, addr, 0);
                Ok(())
            }
            Place::Slice {
                base,
                lo,
                width,
                reversed,
            } => {
                let lo = self.expr(lo)?;
                let (old, bw) = self.read_place(base)?;
                let v = if *reversed {
                    self.reverse(v, *width)?
                } else {
                    v
                };
                let new = self.insert(old, bw, lo, *width, v)?;
                self.store(base, new)
            }
            Place::Store {
                space,
                addr,
                lane,
                width,
            } => {
                let (l, a) = self.mem_args(addr, lane.as_ref())?;
                self.call_helper(
                    Helper::Store {
                        space: *space,
                        width: *width,
                    },
                    &[(l, Ty::U(32)), (a, Ty::U(64)), (v, Ty::B(*width))],
                    false,
                )?;
                Ok(())
            }
        }
    }

    /// `width` bits of `v` (a `vw`-bit value) from bit `lo` (a u32 value); zero past the top.
    fn extract(&mut self, v: Value, vw: u32, lo: Value, width: u32) -> Result<Value, JitError> {
        let vty = self.b.func.dfg.value_type(v);
        let lo_c = self.b.ins().uextend(types::I64, lo);
        let shifted = if vty == types::I128 {
            let lo128 = self.b.ins().uextend(types::I128, lo_c);
            self.b.ins().ushr(v, lo128)
        } else {
            let amt = if vty == types::I64 {
                lo_c
            } else {
                self.b.ins().ireduce(vty, lo_c)
            };
            self.b.ins().ushr(v, amt)
        };
        let past = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, lo_c, vw as i64);
        let zero = self.zero(vty);
        let shifted = self.b.ins().select(past, zero, shifted);
        self.resize(shifted, vw, false, Ty::B(width))
    }

    /// `base` (a `bw`-bit value) with `width` bits at `lo` replaced by `v`.
    fn insert(
        &mut self,
        base: Value,
        bw: u32,
        lo: Value,
        width: u32,
        v: Value,
    ) -> Result<Value, JitError> {
        let bty = self.b.func.dfg.value_type(base);
        let vw = bits(self.b.func.dfg.value_type(v)).min(width);
        let v = self.resize(v, vw, false, Ty::B(bw))?;
        let v = self.mask(v, width.min(bw));
        let field = self.iconst(
            bty,
            if width >= 128 {
                u128::MAX
            } else {
                (1u128 << width) - 1
            },
        );
        let lo_c = self.b.ins().uextend(types::I64, lo);
        let amt = if bty == types::I128 {
            self.b.ins().uextend(types::I128, lo_c)
        } else if bty == types::I64 {
            lo_c
        } else {
            self.b.ins().ireduce(bty, lo_c)
        };
        let mask = self.b.ins().ishl(field, amt);
        let placed = self.b.ins().ishl(v, amt);
        let kept = self.b.ins().band_not(base, mask);
        let merged = self.b.ins().bor(kept, placed);
        let merged = self.mask(merged, bw);
        let past = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, lo_c, bw as i64);
        Ok(self.b.ins().select(past, base, merged))
    }

    fn reverse(&mut self, v: Value, w: u32) -> Result<Value, JitError> {
        let ty = self.b.func.dfg.value_type(v);
        let r = if ty == types::I128 {
            self.b.ins().bitrev(v)
        } else {
            self.bitrev(v, ty)
        };
        let c = bits(ty);
        Ok(if c > w {
            self.b.ins().ushr_imm_u(r, (c - w) as i64)
        } else {
            r
        })
    }

    /// All bits of `v` (8 to 64 bits) reversed: a byte swap, then nibbles, pairs and bits
    /// swapped inside each byte (Cranelift's `bitrev` swaps at all six levels with masks).
    fn bitrev(&mut self, v: Value, ty: Type) -> Value {
        let mut x = if ty == types::I8 {
            v
        } else {
            self.b.ins().bswap(v)
        };
        let all = u64::MAX >> (64 - bits(ty));
        for (shift, m) in [
            (4, 0x0f0f_0f0f_0f0f_0f0f_u64),
            (2, 0x3333_3333_3333_3333),
            (1, 0x5555_5555_5555_5555),
        ] {
            let m = (m & all) as i64;
            let hi = self.b.ins().ushr_imm_u(x, shift);
            let hi = self.b.ins().band_imm_u(hi, m);
            let lo = self.b.ins().band_imm_u(x, m);
            let lo = self.b.ins().ishl_imm_u(lo, shift);
            x = self.b.ins().bor(hi, lo);
        }
        x
    }

    // ----- expressions --------------------------------------------------------------------

    /// The bits of a float result `r` (computed from the float operands `inputs`), with the
    /// spec's NaN rule applied: a NaN result becomes the first NaN input quietened, else the
    /// default NaN.
    fn float_nan_fix(&mut self, f: FloatTy, r: Value, inputs: &[Value]) -> Value {
        let w = f.width();
        let ft = self.b.func.dfg.value_type(r);
        let ty = Type::int(w as u16).expect("f32/f64 have integer twins");
        let abs_mask = (1u64 << (w - 1)) - 1;
        let exp_mask = ((1u64 << f.format().exp_bits) - 1) << f.format().man_bits;
        let quiet = 1u64 << (f.format().man_bits - 1);
        let default_nan = exp_mask | quiet;
        // NaN results are rare: the fix-up sits in a cold block off the straight path, and
        // the straight path stays in float registers.
        let rn = self.b.ins().fcmp(FloatCC::Unordered, r, r);
        let (fix_block, join) = (self.b.create_block(), self.b.create_block());
        self.b.append_block_param(join, ft);
        self.b.ins().brif(rn, fix_block, &[], join, &[r.into()]);
        self.b.set_cold_block(fix_block);
        self.b.switch_to_block(fix_block);
        let mut fix = self.b.ins().iconst(ty, default_nan as i64);
        for &x in inputs.iter().rev() {
            let xb = self.float_bits(x, ty);
            let a = self.b.ins().band_imm_u(xb, abs_mask as i64);
            let nan = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedGreaterThan, a, exp_mask as i64);
            let q = self.b.ins().bor_imm_u(xb, quiet as i64);
            fix = self.b.ins().select(nan, q, fix);
        }
        let fix = self.as_float(fix, ft);
        self.b.ins().jump(join, &[fix.into()]);
        self.b.switch_to_block(join);
        let r = self.b.block_params(join)[0];
        self.float_bits(r, ty)
    }

    fn float_ty(f: FloatTy) -> Option<Type> {
        match f {
            FloatTy::F32 => Some(types::F32),
            FloatTy::F64 => Some(types::F64),
            _ => None,
        }
    }

    /// `v`'s bits as a float. When `v` was just loaded from the slot buffer (nothing written
    /// since), the float is loaded afresh instead, straight into a float register (the integer
    /// load then has no use left and is removed).
    fn as_float(&mut self, v: Value, ft: Type) -> Value {
        if let Some(f) = self.reload_as(v, ft) {
            return f;
        }
        self.b.ins().bitcast(ft, MemFlagsData::new(), v)
    }

    /// A load of `v`'s address with type `ty`, when `v` is the result of a plain load in the
    /// current block that no later instruction of the block can have overwritten.
    fn reload_as(&mut self, v: Value, ty: Type) -> Option<Value> {
        let (flags, arg, offset) = self.reusable_load(v)?;
        if self.b.func.dfg.value_type(v).bits() != ty.bits() {
            return None;
        }
        Some(self.b.ins().load(ty, flags, arg, offset))
    }

    /// `v` widened to `to` by a zero- or sign-extending load of its address, when `v` is a
    /// reusable load (x86-64 then needs no separate extension after the load).
    fn reload_extended(&mut self, v: Value, to: Type, signed: bool) -> Option<Value> {
        let from = self.b.func.dfg.value_type(v);
        if !from.is_int() || to.bits() <= from.bits() || to.bits() > 64 {
            return None;
        }
        let (flags, arg, offset) = self.reusable_load(v)?;
        let ins = self.b.ins();
        Some(match (from.bits(), signed) {
            (8, false) => ins.uload8(to, flags, arg, offset),
            (8, true) => ins.sload8(to, flags, arg, offset),
            (16, false) => ins.uload16(to, flags, arg, offset),
            (16, true) => ins.sload16(to, flags, arg, offset),
            (32, false) => ins.uload32(flags, arg, offset),
            (32, true) => ins.sload32(flags, arg, offset),
            _ => return None,
        })
    }

    /// The flags, address and offset of the plain load defining `v`, when it sits in the
    /// current block and no later instruction of the block can have written memory.
    fn reusable_load(&self, v: Value) -> Option<(MemFlagsData, Value, i32)> {
        let block = self.b.current_block()?;
        let dfg = &self.b.func.dfg;
        let inst = dfg.value_def(v).inst()?;
        if self.b.func.layout.inst_block(inst) != Some(block) {
            return None;
        }
        let InstructionData::Load {
            opcode: Opcode::Load,
            arg,
            flags,
            offset,
        } = dfg.insts[inst]
        else {
            return None;
        };
        let layout = &self.b.func.layout;
        let mut at = layout.last_inst(block)?;
        while at != inst {
            let op = dfg.insts[at].opcode();
            if op.can_store() || op.is_call() || op.other_side_effects() {
                return None;
            }
            at = layout.prev_inst(at)?;
        }
        Some((dfg.mem_flags[flags], arg, offset.into()))
    }

    /// The float `v` is the bitcast of, if it is one (to store it without leaving the float
    /// registers); else `v`.
    fn unbitcast(&self, v: Value) -> Value {
        let dfg = &self.b.func.dfg;
        if let Some(inst) = dfg.value_def(v).inst() {
            if let InstructionData::LoadNoOffset {
                opcode: Opcode::Bitcast,
                arg,
                ..
            } = dfg.insts[inst]
            {
                if dfg.value_type(arg).is_float()
                    && dfg.value_type(arg).bits() == dfg.value_type(v).bits()
                {
                    return arg;
                }
            }
        }
        v
    }

    fn float_bits(&mut self, v: Value, it: Type) -> Value {
        self.b.ins().bitcast(it, MemFlagsData::new(), v)
    }

    /// Translates an expression to a value of its container type.
    pub fn expr(&mut self, e: &Expr) -> Result<Value, JitError> {
        let cty = container(e.ty)?;
        match &e.kind {
            ExprKind::Const(b) => Ok(self.iconst(cty, b.low_u128())),
            ExprKind::Reg(r) => self.read_reg(*r),
            ExprKind::Local(l) => {
                let v = self.local_var(*l)?;
                Ok(self.b.use_var(v))
            }
            ExprKind::Elem { local, index } => {
                let addr = self.elem_addr(*local, index)?;
                Ok(self.b.ins().load(cty, MemFlagsData::trusted(), addr, 0))
            }
            ExprKind::Unary { op, arg } => {
                let a = self.expr(arg)?;
                Ok(match (op, e.ty) {
                    (UnOp::Neg, Ty::F(f)) => {
                        let sign = 1u128 << (f.width() - 1);
                        let s = self.iconst(cty, sign);
                        self.b.ins().bxor(a, s)
                    }
                    (UnOp::Neg, _) => {
                        let n = self.b.ins().ineg(a);
                        self.mask(n, e.ty.width())
                    }
                    (UnOp::BitNot, _) => {
                        let n = self.b.ins().bnot(a);
                        self.mask(n, e.ty.width())
                    }
                    (UnOp::Not, _) => {
                        let z = self.b.ins().icmp_imm_u(IntCC::Equal, a, 0);
                        self.resize(z, 1, false, Ty::Bool)?
                    }
                })
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, e.ty, lhs, rhs),
            ExprKind::Cmp { op, lhs, rhs } => {
                let a = self.expr(lhs)?;
                let b = self.expr(rhs)?;
                self.compare(*op, lhs.ty, a, b)
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond)?;
                if is_cheap(then) && is_cheap(otherwise) {
                    // Both arms are pure and cannot fault: a branch-free select.
                    let t = self.expr(then)?;
                    let o = self.expr(otherwise)?;
                    return Ok(self.b.ins().select(c, t, o));
                }
                let (tb, eb, join) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.append_block_param(join, cty);
                self.b.ins().brif(c, tb, &[], eb, &[]);
                self.b.switch_to_block(tb);
                let t = self.expr(then)?;
                self.b.ins().jump(join, &[t.into()]);
                self.b.switch_to_block(eb);
                let o = self.expr(otherwise)?;
                self.b.ins().jump(join, &[o.into()]);
                self.b.switch_to_block(join);
                Ok(self.b.block_params(join)[0])
            }
            ExprKind::Convert { conv, arg } => self.convert(*conv, arg, e.ty),
            ExprKind::Slice {
                arg,
                lo,
                width,
                reversed,
            } => {
                let a = self.expr(arg)?;
                let l = self.expr(lo)?;
                let v = self.extract(a, arg.ty.width(), l, *width)?;
                if *reversed {
                    self.reverse(v, *width)
                } else {
                    Ok(v)
                }
            }
            ExprKind::Concat(parts) => {
                let mut acc = self.zero(cty);
                let total = e.ty.width();
                let mut pos = total;
                for p in parts {
                    let v = self.expr(p)?;
                    let pw = p.ty.width();
                    pos -= pw;
                    let v = self.resize(v, pw, false, Ty::B(total))?;
                    let v = if pos == 0 {
                        v
                    } else {
                        self.b.ins().ishl_imm_u(v, pos as i64)
                    };
                    acc = self.b.ins().bor(acc, v);
                }
                Ok(acc)
            }
            ExprKind::Call { builtin, args } => {
                // sqrt in f32/f64 under the default rounding is emitted inline.
                if builtin.func == crate::ir::builtins::Func::Sqrt && self.inline_float {
                    if let Some(f) = e.ty.float() {
                        if let Some(ft) = Self::float_ty(f) {
                            let a = self.expr(&args[0])?;
                            let x = self.as_float(a, ft);
                            let r = self.b.ins().sqrt(x);
                            return Ok(self.float_nan_fix(f, r, &[x]));
                        }
                    }
                }
                // Counting the set bits of up to 64 bits is one `popcnt`.
                if builtin.func == crate::ir::builtins::Func::CountBits
                    && args[0].ty.is_int()
                    && args[0].ty.width() <= 64
                {
                    let a = self.expr(&args[0])?;
                    let a = self.mask(a, args[0].ty.width());
                    let n = self.b.ins().popcnt(a);
                    let from = bits(self.b.func.dfg.value_type(n));
                    return self.resize(n, from, false, e.ty);
                }
                // Sign extension to 64 bits is a plain `sextend`.
                if builtin.func == crate::ir::builtins::Func::SignExt
                    && args[0].ty.is_int()
                    && args[0].ty.width() <= 64
                    && e.ty.width() == 64
                {
                    let a = self.expr(&args[0])?;
                    return self.resize(a, args[0].ty.width(), true, e.ty);
                }
                if builtin.func == crate::ir::builtins::Func::Fma && self.inline_float {
                    if let Some(f) = e.ty.float() {
                        if let Some(ft) = Self::float_ty(f) {
                            let a = self.expr(&args[0])?;
                            let b = self.expr(&args[1])?;
                            let c = self.expr(&args[2])?;
                            let (x, y, z) = (
                                self.as_float(a, ft),
                                self.as_float(b, ft),
                                self.as_float(c, ft),
                            );
                            let r = self.b.ins().fma(x, y, z);
                            return Ok(self.float_nan_fix(f, r, &[x, y, z]));
                        }
                    }
                }
                let mut vals = Vec::new();
                for a in args {
                    vals.push((self.expr(a)?, a.ty));
                }
                let tys = args.iter().map(|a| a.ty).collect();
                self.helper_value(
                    Helper::Builtin {
                        builtin: *builtin,
                        args: tys,
                        ret: e.ty,
                    },
                    &vals,
                    e.ty,
                )
            }
            ExprKind::Load { space, addr, lane } => {
                let (l, a) = self.mem_args(addr, lane.as_deref())?;
                self.helper_value(
                    Helper::Load {
                        space: *space,
                        width: e.ty.width(),
                    },
                    &[(l, Ty::U(32)), (a, Ty::U(64))],
                    e.ty,
                )
            }
        }
    }

    fn binary(&mut self, op: BinOp, ty: Ty, lhs: &Expr, rhs: &Expr) -> Result<Value, JitError> {
        let cty = container(ty)?;
        if matches!(op, BinOp::And | BinOp::Or) {
            let a = self.expr(lhs)?;
            if is_cheap(rhs) {
                // Evaluating a pure right operand is unobservable: no branch needed.
                let b = self.expr(rhs)?;
                return Ok(if op == BinOp::And {
                    self.b.ins().band(a, b)
                } else {
                    self.b.ins().bor(a, b)
                });
            }
            // Short-circuit, like the interpreter.
            let (rb, join) = (self.b.create_block(), self.b.create_block());
            self.b.append_block_param(join, types::I8);
            if op == BinOp::And {
                self.b.ins().brif(a, rb, &[], join, &[a.into()]);
            } else {
                self.b.ins().brif(a, join, &[a.into()], rb, &[]);
            }
            self.b.switch_to_block(rb);
            let b = self.expr(rhs)?;
            self.b.ins().jump(join, &[b.into()]);
            self.b.switch_to_block(join);
            return Ok(self.b.block_params(join)[0]);
        }
        let a = self.expr(lhs)?;
        let b = self.expr(rhs)?;
        if let Ty::F(f) = ty {
            if let (Some(ft), true) = (Self::float_ty(f), self.inline_float) {
                if matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) {
                    let (x, y) = (self.as_float(a, ft), self.as_float(b, ft));
                    let r = match op {
                        BinOp::Add => self.b.ins().fadd(x, y),
                        BinOp::Sub => self.b.ins().fsub(x, y),
                        BinOp::Mul => self.b.ins().fmul(x, y),
                        _ => self.b.ins().fdiv(x, y),
                    };
                    return Ok(self.float_nan_fix(f, r, &[x, y]));
                }
            }
            return self.helper_value(Helper::Binary { op, ty }, &[(a, ty), (b, rhs.ty)], ty);
        }
        let w = ty.width();
        let signed = ty.is_signed();
        Ok(match op {
            BinOp::Add => {
                let r = self.b.ins().iadd(a, b);
                self.mask(r, w)
            }
            BinOp::Sub => {
                let r = self.b.ins().isub(a, b);
                self.mask(r, w)
            }
            BinOp::Mul => {
                let r = self.b.ins().imul(a, b);
                self.mask(r, w)
            }
            BinOp::Div | BinOp::Rem | BinOp::Pow => {
                if cty == types::I128 || op == BinOp::Pow {
                    return self.helper_value(Helper::Binary { op, ty }, &[(a, ty), (b, ty)], ty);
                }
                let zero = self.b.ins().icmp_imm_u(IntCC::Equal, b, 0);
                let one = self.iconst(cty, 1);
                let safe_b = self.b.ins().select(zero, one, b);
                let r = if signed {
                    let (sa, sb) = (self.sext_in(a, w), self.sext_in(safe_b, w));
                    // INT_MIN / -1 traps in hardware division: compute it as negation.
                    let neg1 = self.b.ins().icmp_imm_s(IntCC::Equal, sb, -1);
                    let sb2 = self.b.ins().select(neg1, one, sb);
                    if op == BinOp::Div {
                        let q = self.b.ins().sdiv(sa, sb2);
                        let n = self.b.ins().ineg(sa);
                        self.b.ins().select(neg1, n, q)
                    } else {
                        let r = self.b.ins().srem(sa, sb2);
                        let z = self.zero(cty);
                        self.b.ins().select(neg1, z, r)
                    }
                } else if op == BinOp::Div {
                    self.b.ins().udiv(a, safe_b)
                } else {
                    self.b.ins().urem(a, safe_b)
                };
                let fallback = if op == BinOp::Div {
                    self.iconst(cty, u128::MAX)
                } else {
                    a
                };
                let r = self.b.ins().select(zero, fallback, r);
                self.mask(r, w)
            }
            BinOp::Shl | BinOp::Shr => {
                let bty = self.b.func.dfg.value_type(b);
                // The amount as u64, saturated.
                let amt = if bty == types::I128 {
                    let (lo, hi) = self.b.ins().isplit(b);
                    let big = self.b.ins().icmp_imm_u(IntCC::NotEqual, hi, 0);
                    let max = self.b.ins().iconst(types::I64, i64::MAX);
                    self.b.ins().select(big, max, lo)
                } else if bty == types::I64 {
                    b
                } else {
                    self.b.ins().uextend(types::I64, b)
                };
                let over =
                    self.b
                        .ins()
                        .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, amt, w as i64);
                let clamp = self.b.ins().iconst(types::I64, (w - 1) as i64);
                let amt_c = self.b.ins().select(over, clamp, amt);
                let amt_t = if cty == types::I128 {
                    self.b.ins().uextend(types::I128, amt_c)
                } else if cty == types::I64 {
                    amt_c
                } else {
                    self.b.ins().ireduce(cty, amt_c)
                };
                if op == BinOp::Shl {
                    let r = self.b.ins().ishl(a, amt_t);
                    let r = self.mask(r, w);
                    let z = self.zero(cty);
                    self.b.ins().select(over, z, r)
                } else if signed {
                    let sa = self.sext_in(a, w);
                    let r = self.b.ins().sshr(sa, amt_t);
                    self.mask(r, w)
                } else {
                    let r = self.b.ins().ushr(a, amt_t);
                    let z = self.zero(cty);
                    self.b.ins().select(over, z, r)
                }
            }
            BinOp::BitAnd => self.b.ins().band(a, b),
            BinOp::BitOr => self.b.ins().bor(a, b),
            BinOp::BitXor => self.b.ins().bxor(a, b),
            BinOp::And | BinOp::Or => unreachable!("bug: handled above"),
        })
    }

    fn compare(&mut self, op: CmpOp, ty: Ty, a: Value, b: Value) -> Result<Value, JitError> {
        if let Ty::F(f) = ty {
            if let Some(ft) = Self::float_ty(f) {
                let (x, y) = (self.as_float(a, ft), self.as_float(b, ft));
                let cc = match op {
                    CmpOp::Eq => FloatCC::Equal,
                    CmpOp::Ne => FloatCC::Equal,
                    CmpOp::Lg => FloatCC::OrderedNotEqual,
                    CmpOp::Lt => FloatCC::LessThan,
                    CmpOp::Le => FloatCC::LessThanOrEqual,
                    CmpOp::Gt => FloatCC::GreaterThan,
                    CmpOp::Ge => FloatCC::GreaterThanOrEqual,
                };
                let r = self.b.ins().fcmp(cc, x, y);
                return Ok(if op == CmpOp::Ne {
                    self.b.ins().bxor_imm_u(r, 1)
                } else {
                    r
                });
            }
            return self.helper_value(Helper::Compare { op, ty }, &[(a, ty), (b, ty)], Ty::Bool);
        }
        let w = ty.width();
        let signed = ty.is_signed();
        let (a, b) = if signed {
            (self.sext_in(a, w), self.sext_in(b, w))
        } else {
            (a, b)
        };
        let cc = match (op, signed) {
            (CmpOp::Eq, _) => IntCC::Equal,
            (CmpOp::Ne | CmpOp::Lg, _) => IntCC::NotEqual,
            (CmpOp::Lt, true) => IntCC::SignedLessThan,
            (CmpOp::Le, true) => IntCC::SignedLessThanOrEqual,
            (CmpOp::Gt, true) => IntCC::SignedGreaterThan,
            (CmpOp::Ge, true) => IntCC::SignedGreaterThanOrEqual,
            (CmpOp::Lt, false) => IntCC::UnsignedLessThan,
            (CmpOp::Le, false) => IntCC::UnsignedLessThanOrEqual,
            (CmpOp::Gt, false) => IntCC::UnsignedGreaterThan,
            (CmpOp::Ge, false) => IntCC::UnsignedGreaterThanOrEqual,
        };
        Ok(self.b.ins().icmp(cc, a, b))
    }

    fn convert(&mut self, conv: Conv, arg: &Expr, to: Ty) -> Result<Value, JitError> {
        let from = arg.ty;
        let a = self.expr(arg)?;
        let cty = container(to)?;
        Ok(match conv {
            Conv::Resize => self.resize(a, from.width(), from.is_signed(), to)?,
            Conv::Bitcast => self.resize(a, from.width(), false, to)?,
            Conv::FromBool => match to {
                Ty::F(f) => {
                    let one = crate::float::from_int(
                        f.format(),
                        1,
                        crate::float::Round::NearestEven,
                        &mut Default::default(),
                    );
                    let one = self.iconst(cty, one as u128);
                    let zero = self.zero(cty);
                    self.b.ins().select(a, one, zero)
                }
                _ => self.resize(a, 1, false, to)?,
            },
            Conv::ToBool => {
                let v = match from {
                    Ty::F(f) => {
                        let m = self.iconst(container(from)?, (1u128 << (f.width() - 1)) - 1);
                        self.b.ins().band(a, m)
                    }
                    _ => a,
                };
                let nz = self.b.ins().icmp_imm_u(IntCC::NotEqual, v, 0);
                let _ = cty;
                nz
            }
            Conv::IntToFloat | Conv::FloatToInt | Conv::FloatToFloat => {
                return self.helper_value(Helper::Convert { conv, from, to }, &[(a, from)], to)
            }
        })
    }
}

/// The kernel's signature.
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
