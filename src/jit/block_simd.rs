//! SIMD lanes for in-place block instructions: four lanes per iteration of the lane loop.
//!
//! An in-place instruction (`block_inplace`) whose optimised IR is straight-line 32-bit lane
//! arithmetic is emitted a second way: over `i32x4` vectors of four consecutive lanes instead
//! of one lane at a time. The check ([`supported`]) admits only what Cranelift's x86-64 SIMD
//! lowers to the same bits as the scalar translation (`translate::expr`):
//!
//! - statements: assignments of whole 32-bit per-lane registers, nothing else (no `if`,
//!   loops, locals, slices, returns);
//! - values: 32-bit integers, bits and f32 as `i32x4`; integer compares as lane masks (all
//!   ones or zero) that only feed selects;
//! - operations: integer `+ - *`, bitwise `& | ^ ~`, integer compares with selects
//!   (`bitselect`), same-width bitcasts and resizes, and f32 `+ - * /`, `sqrt` and `fma` under the
//!   default rounding with the NaN rule of `crate::float` (a NaN result becomes the first NaN
//!   operand quietened, else the default NaN: a vector fix-up in a cold block taken when any
//!   lane's result is a NaN, so x86's own NaN choice never reaches a register);
//! - registers: per-lane sources from whole VGPR words (with the default MODE's f32 denormal
//!   flush as `band` + `icmp` + `bitselect`), wave-uniform sources splatted once before the
//!   loop, results into VGPR rows; no lane masks, no wave-uniform results.
//!
//! Anything else (shifts, 16/64-bit lanes, fmin/fmax, float compares, negation,
//! booleans beyond a select's condition, conversions, helper calls, VCC or SGPR results) keeps
//! the scalar lane loop: the admitted set is the one `tests/block_simd.rs` reaches. The loop visits the groups of four lanes that have an
//! EXEC bit (the next group is found with `ctz`); a group whose four bits are set stores its
//! results whole, a partial one merges them into the old row words under a mask built from
//! its EXEC nibble. Each group loads all its sources before it stores a result, as a lane of
//! the scalar loop does, so a result register that is also a source reads the old values; the
//! lanes of one group never read another group's words.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, ConstantData, Endianness, InstBuilder, MemFlagsData, Type, Value,
};
use cranelift_frontend::{FunctionBuilder, Variable};

use super::block_inplace::Plan;
use super::translate::RegLoc;
use super::JitError;
use crate::ir::builtins::Func;
use crate::ir::{
    BinOp, CmpOp, Conv, Expr, ExprKind, FloatTy, Function, Place, RegRole, Stmt, Ty, UnOp,
};

const SIGN: u32 = 0x8000_0000;
const EXP: u32 = 0x7f80_0000;
const QUIET: u32 = 0x0040_0000;
const DEFAULT_NAN: u32 = 0x7fc0_0000;

/// Whether `ty` is a 32-bit lane value (integer, bits or f32).
fn word(ty: Ty) -> bool {
    match ty {
        Ty::U(32) | Ty::I(32) | Ty::B(32) => true,
        Ty::F(f) => f == FloatTy::F32,
        _ => false,
    }
}

fn is_f32(ty: Ty) -> bool {
    ty == Ty::F(FloatTy::F32)
}

/// Whether `plan` (with register locations `locs`) can run four lanes at a time.
pub(super) fn supported(plan: &Plan<'_>, locs: &[RegLoc], lanes: u32) -> bool {
    let ir = plan.ir;
    let f = &*ir.function;
    if !ir.lane_loop || !lanes.is_multiple_of(4) || lanes > 64 || locs.len() != f.regs.len() {
        return false;
    }
    if plan.lane_masks.iter().any(|&m| m) || plan.has_uniform_outs() {
        return false;
    }
    if f.locals
        .iter()
        .any(|l| l.len.is_some() || !(word(l.ty) || l.ty == Ty::Bool))
    {
        return false;
    }
    for (i, r) in f.regs.iter().enumerate() {
        if !(r.read || r.written) {
            continue;
        }
        if r.role == RegRole::Lane || r.width != 32 {
            return false;
        }
        let per_lane = ir.layout.per_lane[i];
        if !per_lane && (r.written || plan.has_out[i]) {
            return false;
        }
        if plan.lane_outs[i].iter().any(|o| o.shift != 0) {
            return false;
        }
        match locs[i] {
            RegLoc::Vgpr {
                pair, shift, mask, ..
            } => {
                if !per_lane || pair || shift != 0 || mask < u32::MAX as u64 {
                    return false;
                }
            }
            // A wave-uniform value (a per-lane register may hold one: a constant operand).
            RegLoc::Value(_) => {}
            RegLoc::Slot => {
                if r.read {
                    return false;
                }
            }
        }
    }
    f.body.iter().all(|s| stmt_ok(f, s))
}

fn stmt_ok(f: &Function, s: &Stmt) -> bool {
    let Stmt::Assign {
        place: Place::Reg(r),
        value,
        ..
    } = s
    else {
        return false;
    };
    f.regs
        .get(r.0 as usize)
        .is_some_and(|info| info.width == 32)
        && word(value.ty)
        && expr_ok(value)
}

fn expr_ok(e: &Expr) -> bool {
    let t = e.ty;
    match &e.kind {
        ExprKind::Const(_) | ExprKind::Reg(_) => word(t),
        ExprKind::Unary { op, arg } => {
            *op == UnOp::BitNot && arg.ty == t && word(t) && !is_f32(t) && expr_ok(arg)
        }
        ExprKind::Binary { op, lhs, rhs } => {
            lhs.ty == t
                && rhs.ty == t
                && word(t)
                && expr_ok(lhs)
                && expr_ok(rhs)
                && match op {
                    BinOp::Add | BinOp::Sub | BinOp::Mul => true,
                    BinOp::Div => is_f32(t),
                    BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => !is_f32(t),
                    _ => false,
                }
        }
        // Integer compares only (as the conditions of selects).
        ExprKind::Cmp { lhs, rhs, .. } => {
            t == Ty::Bool
                && lhs.ty == rhs.ty
                && word(lhs.ty)
                && !is_f32(lhs.ty)
                && expr_ok(lhs)
                && expr_ok(rhs)
        }
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => {
            matches!(cond.kind, ExprKind::Cmp { .. })
                && then.ty == t
                && otherwise.ty == t
                && word(t)
                && expr_ok(cond)
                && expr_ok(then)
                && expr_ok(otherwise)
        }
        ExprKind::Convert { conv, arg } => {
            matches!(conv, Conv::Resize | Conv::Bitcast) && word(t) && word(arg.ty) && expr_ok(arg)
        }
        ExprKind::Call { builtin, args } => {
            let arity = match builtin.func {
                Func::Sqrt => 1,
                Func::Fma => 3,
                _ => return false,
            };
            is_f32(t) && args.len() == arity && args.iter().all(|a| is_f32(a.ty) && expr_ok(a))
        }
        _ => false,
    }
}

/// Plain loads and stores of VGPR words: no alignment promised (a row is 4-byte aligned).
fn mem() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

fn lanes_le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// The translation of one instruction's body over a group of four lanes.
struct Group<'a, 'b> {
    b: &'a mut FunctionBuilder<'b>,
    /// Each register's current value: a variable (per-lane) or a splat (wave-uniform).
    regs: Vec<Option<RegVal>>,
}

#[derive(Clone, Copy)]
enum RegVal {
    Var(Variable),
    Splat(Value),
}

impl Group<'_, '_> {
    fn splat(&mut self, bits: u32) -> Value {
        let bytes: Vec<u8> = (0..4).flat_map(|_| bits.to_le_bytes()).collect();
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        self.b.ins().vconst(types::I32X4, c)
    }

    fn as_floats(&mut self, v: Value) -> Value {
        self.b.ins().bitcast(types::F32X4, lanes_le(), v)
    }

    fn as_ints(&mut self, v: Value) -> Value {
        self.b.ins().bitcast(types::I32X4, lanes_le(), v)
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), JitError> {
        let Stmt::Assign { place, value, .. } = s else {
            return Err(unsupported());
        };
        let v = self.expr(value)?;
        let Place::Reg(r) = place else {
            return Err(unsupported());
        };
        match self.regs.get(r.0 as usize).copied().flatten() {
            Some(RegVal::Var(var)) => self.b.def_var(var, v),
            _ => return Err(unsupported()),
        }
        Ok(())
    }

    fn expr(&mut self, e: &Expr) -> Result<Value, JitError> {
        Ok(match &e.kind {
            ExprKind::Const(c) => self.splat(c.low_u128() as u32),
            ExprKind::Reg(r) => match self.regs.get(r.0 as usize).copied().flatten() {
                Some(RegVal::Var(var)) => self.b.use_var(var),
                Some(RegVal::Splat(v)) => v,
                None => return Err(unsupported()),
            },
            ExprKind::Unary { arg, .. } => {
                let a = self.expr(arg)?;
                self.b.ins().bnot(a)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.expr(lhs)?;
                let b = self.expr(rhs)?;
                if is_f32(e.ty) {
                    let (x, y) = (self.as_floats(a), self.as_floats(b));
                    let r = match op {
                        BinOp::Add => self.b.ins().fadd(x, y),
                        BinOp::Sub => self.b.ins().fsub(x, y),
                        BinOp::Mul => self.b.ins().fmul(x, y),
                        BinOp::Div => self.b.ins().fdiv(x, y),
                        _ => return Err(unsupported()),
                    };
                    return Ok(self.nan_fix(r, &[a, b]));
                }
                match op {
                    BinOp::Add => self.b.ins().iadd(a, b),
                    BinOp::Sub => self.b.ins().isub(a, b),
                    BinOp::Mul => self.b.ins().imul(a, b),
                    BinOp::BitAnd => self.b.ins().band(a, b),
                    BinOp::BitOr => self.b.ins().bor(a, b),
                    BinOp::BitXor => self.b.ins().bxor(a, b),
                    _ => return Err(unsupported()),
                }
            }
            ExprKind::Cmp { op, lhs, rhs } => {
                let a = self.expr(lhs)?;
                let b = self.expr(rhs)?;
                let signed = lhs.ty.is_signed();
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
                self.b.ins().icmp(cc, a, b)
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond)?;
                let t = self.expr(then)?;
                let o = self.expr(otherwise)?;
                self.b.ins().bitselect(c, t, o)
            }
            // Same-width bitcasts and resizes keep the bits.
            ExprKind::Convert { arg, .. } => self.expr(arg)?,
            ExprKind::Call { builtin, args } => {
                let mut bits = Vec::with_capacity(args.len());
                for a in args {
                    bits.push(self.expr(a)?);
                }
                let x: Vec<Value> = bits.iter().map(|&v| self.as_floats(v)).collect();
                let r = match (builtin.func, x.as_slice()) {
                    (Func::Sqrt, &[a]) => self.b.ins().sqrt(a),
                    (Func::Fma, &[a, b, c]) => self.b.ins().fma(a, b, c),
                    _ => return Err(unsupported()),
                };
                self.nan_fix(r, &bits)
            }
            _ => return Err(unsupported()),
        })
    }

    /// The bits of the f32 result `r` with the NaN rule applied per lane (`inputs` are the
    /// operands' bits): taken in a cold block when any lane is a NaN.
    fn nan_fix(&mut self, r: Value, inputs: &[Value]) -> Value {
        let nan = self.b.ins().fcmp(FloatCC::Unordered, r, r);
        let nan = self.as_ints(nan);
        let bits = self.as_ints(r);
        let any = self.b.ins().vany_true(nan);
        let (fix, join) = (self.b.create_block(), self.b.create_block());
        self.b.append_block_param(join, types::I32X4);
        self.b.ins().brif(any, fix, &[], join, &[bits.into()]);
        self.b.set_cold_block(fix);
        self.b.switch_to_block(fix);
        self.b.seal_block(fix);
        let mut v = self.splat(DEFAULT_NAN);
        let (abs, exp, quiet) = (self.splat(!SIGN), self.splat(EXP), self.splat(QUIET));
        for &x in inputs.iter().rev() {
            // `|x| > exp` as a signed compare: `|x|` has its sign bit clear.
            let a = self.b.ins().band(x, abs);
            let is_nan = self.b.ins().icmp(IntCC::SignedGreaterThan, a, exp);
            let q = self.b.ins().bor(x, quiet);
            v = self.b.ins().bitselect(is_nan, q, v);
        }
        let fixed = self.b.ins().bitselect(nan, v, bits);
        self.b.ins().jump(join, &[fixed.into()]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.b.block_params(join)[0]
    }

    /// Flushes denormal f32 lanes to a zero of their sign.
    fn flush(&mut self, x: Value) -> Value {
        let (exp_m, sign_m, zero) = (self.splat(EXP), self.splat(SIGN), self.splat(0));
        let exp = self.b.ins().band(x, exp_m);
        let sign = self.b.ins().band(x, sign_m);
        let den = self.b.ins().icmp(IntCC::Equal, exp, zero);
        self.b.ins().bitselect(den, sign, x)
    }
}

fn unsupported() -> JitError {
    JitError::Unsupported("bug: an IR node outside the SIMD lane subset".into())
}

/// A VGPR word's byte offset from lane 0's word of register 0.
fn row_off(row: u32) -> i32 {
    (row * 64 * 4) as i32
}

/// Emits the instruction of `plan` over groups of four lanes (the caller checked
/// [`supported`]): `vgpr` is the VGPR file, `exec` EXEC at issue (`i64`, masked to the wave's
/// lanes). The builder comes back at a block after the instruction.
///
/// # Errors
/// Only on a bug (a node [`supported`] admitted but this does not translate).
pub(super) fn emit(
    b: &mut FunctionBuilder<'_>,
    plan: &Plan<'_>,
    locs: &[RegLoc],
    vgpr: Value,
    exec: Value,
) -> Result<(), JitError> {
    let f = &*plan.ir.function;
    let per_lane = &plan.ir.layout.per_lane;
    // Wave-uniform sources, splatted once.
    let mut uniform = vec![None; f.regs.len()];
    for (i, r) in f.regs.iter().enumerate() {
        if let (true, RegLoc::Value(v)) = (r.read, locs[i]) {
            let w = match b.func.dfg.value_type(v) {
                types::I32 => v,
                _ => b.ins().ireduce(types::I32, v),
            };
            uniform[i] = Some(b.ins().splat(types::I32X4, w));
        }
    }
    let head = b.create_block();
    b.append_block_param(head, types::I64);
    b.append_block_param(head, vgpr_ty(b, vgpr));
    let done = b.create_block();
    let any = b.ins().icmp_imm_u(IntCC::NotEqual, exec, 0);
    b.ins()
        .brif(any, head, &[exec.into(), vgpr.into()], done, &[]);

    // The group of the lowest set bit: skip to it (its lane index rounded down to 4).
    b.switch_to_block(head);
    let (rest, p) = (b.block_params(head)[0], b.block_params(head)[1]);
    let tz = b.ins().ctz(rest);
    let tz = b.ins().band_imm_u(tz, !3);
    let rest = b.ins().ushr(rest, tz);
    let skip = b.ins().ishl_imm_u(tz, 2);
    let ptr_ty = b.func.dfg.value_type(p);
    let skip = if ptr_ty == types::I64 {
        skip
    } else {
        b.ins().ireduce(ptr_ty, skip)
    };
    let p = b.ins().iadd(p, skip);
    let nib = b.ins().band_imm_u(rest, 15);

    let mut g = Group {
        b,
        regs: vec![None; f.regs.len()],
    };
    // Sources first (all loads before any store), then the per-lane results' variables.
    for (i, r) in f.regs.iter().enumerate() {
        if let (Some(v), false) = (uniform[i], r.written) {
            g.regs[i] = Some(RegVal::Splat(v));
            continue;
        }
        if !per_lane[i] || !(r.read || r.written) {
            continue;
        }
        let v = match locs[i] {
            RegLoc::Value(_) if r.read => uniform[i].ok_or_else(unsupported)?,
            RegLoc::Vgpr { row, ftz, .. } if r.read => {
                let x = g.b.ins().load(types::I32X4, mem(), p, row_off(row));
                if ftz {
                    g.flush(x)
                } else {
                    x
                }
            }
            _ => g.splat(0),
        };
        let var = g.b.declare_var(types::I32X4);
        g.b.def_var(var, v);
        g.regs[i] = Some(RegVal::Var(var));
    }
    for s in &f.body {
        g.stmt(s)?;
    }
    let mut outs = Vec::new();
    for (i, lane_outs) in plan.lane_outs.iter().enumerate() {
        if lane_outs.is_empty() {
            continue;
        }
        let Some(RegVal::Var(var)) = g.regs[i] else {
            return Err(unsupported());
        };
        let v = g.b.use_var(var);
        for o in lane_outs {
            let x = if o.ftz { g.flush(v) } else { v };
            outs.push((o.row, x));
        }
    }
    let (full, partial, next) = (g.b.create_block(), g.b.create_block(), g.b.create_block());
    let all = g.b.ins().icmp_imm_u(IntCC::Equal, nib, 15);
    g.b.ins().brif(all, full, &[], partial, &[]);
    g.b.switch_to_block(full);
    g.b.seal_block(full);
    for &(row, x) in &outs {
        g.b.ins().store(mem(), x, p, row_off(row));
    }
    g.b.ins().jump(next, &[]);
    g.b.switch_to_block(partial);
    g.b.seal_block(partial);
    // Lane k of the group is active when bit k of the nibble is set.
    let n32 = g.b.ins().ireduce(types::I32, nib);
    let n = g.b.ins().splat(types::I32X4, n32);
    let bytes: Vec<u8> = [1u32, 2, 4, 8]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let c = g.b.func.dfg.constants.insert(ConstantData::from(bytes));
    let bit = g.b.ins().vconst(types::I32X4, c);
    let on = g.b.ins().band(n, bit);
    let zero = g.splat(0);
    let active = g.b.ins().icmp(IntCC::NotEqual, on, zero);
    for &(row, x) in &outs {
        let old = g.b.ins().load(types::I32X4, mem(), p, row_off(row));
        let merged = g.b.ins().bitselect(active, x, old);
        g.b.ins().store(mem(), merged, p, row_off(row));
    }
    g.b.ins().jump(next, &[]);
    let b = g.b;
    b.switch_to_block(next);
    b.seal_block(next);
    let rest = b.ins().ushr_imm_u(rest, 4);
    let p = b.ins().iadd_imm_s(p, 16);
    let more = b.ins().icmp_imm_u(IntCC::NotEqual, rest, 0);
    b.ins()
        .brif(more, head, &[rest.into(), p.into()], done, &[]);
    b.seal_block(head);
    b.switch_to_block(done);
    b.seal_block(done);
    Ok(())
}

fn vgpr_ty(b: &FunctionBuilder<'_>, vgpr: Value) -> Type {
    b.func.dfg.value_type(vgpr)
}
