//! Expressions: operators, compares, selects, conversions and built-in calls.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};

use super::super::runtime::Helper;
use super::super::JitError;
use super::{bits, container, Translator};
use crate::ir::{BinOp, CmpOp, Conv, Expr, ExprKind, Ty, UnOp};

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

impl Translator<'_, '_> {
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

    pub(super) fn binary(
        &mut self,
        op: BinOp,
        ty: Ty,
        lhs: &Expr,
        rhs: &Expr,
    ) -> Result<Value, JitError> {
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

    pub(super) fn compare(
        &mut self,
        op: CmpOp,
        ty: Ty,
        a: Value,
        b: Value,
    ) -> Result<Value, JitError> {
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
        Ok(self.b.ins().icmp(int_cc(op, signed), a, b))
    }

    pub(super) fn convert(&mut self, conv: Conv, arg: &Expr, to: Ty) -> Result<Value, JitError> {
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

/// The integer condition of comparison `op` (`signed` operands or unsigned).
pub(crate) fn int_cc(op: CmpOp, signed: bool) -> IntCC {
    match (op, signed) {
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
    }
}
