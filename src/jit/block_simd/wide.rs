//! The wider part of the SIMD lanes: 64-bit VGPR pairs, 65-bit sums (`v_mad_u64_u32`'s
//! `{carry, D0}`), widening 32×32→64 multiplies, shifts by a wave-uniform amount, and the
//! statements that split a wide value into several places (`{D1[0 +: 1], D0} = ...`).
//!
//! - A 64-bit lane value is a pair of `i32x4` (low, high words); a 65-bit one adds a third
//!   `i32x4` holding bit 64 as 0 or 1.
//! - A widening multiply of two zero-extended 32-bit values runs as two `i64x2` multiplies of
//!   the widened low and high lane pairs (`pmuludq` on x86-64), whose words are shuffled back
//!   into low and high `i32x4`.
//! - A shift amount must be wave-uniform (constants, SGPR operands, slices and resizes of
//!   them): it is computed once as a scalar before the lane loop, and the shift is a vector
//!   shift by that scalar, with the IR's rule that an amount of the width or more gives zero
//!   (`translate::expr`).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, ConstantData, InstBuilder, Value};

use super::{dword, int, is_f32, lanes_le, unsupported, word, Check, Group, LaneVal};
use crate::ir::{BinOp, Conv, Expr, ExprKind, RegId, Ty};
use crate::jit::JitError;

/// Whether `ty` is a 65-bit integer (a 64-bit sum with its carry).
pub(super) fn tword(ty: Ty) -> bool {
    matches!(ty, Ty::U(65) | Ty::B(65))
}

/// Whether `e` is a zero extension of a 32-bit unsigned lane value.
fn zext32(e: &Expr) -> Option<&Expr> {
    match &e.kind {
        ExprKind::Convert {
            conv: Conv::Resize,
            arg,
        } if word(arg.ty) && !is_f32(arg.ty) && !arg.ty.is_signed() => Some(arg),
        _ => None,
    }
}

/// The low `w` bits set (`w` at most 64).
fn ones(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

impl Check<'_> {
    /// The wide binary operations: a widening multiply into 64 or 65 bits, a 65-bit add,
    /// shifts of 32/64-bit integers by a wave-uniform amount. `None` when `e` is none of them.
    pub(super) fn wide_binary_ok(&self, op: BinOp, lhs: &Expr, rhs: &Expr, t: Ty) -> Option<bool> {
        match op {
            BinOp::Mul if dword(t) || tword(t) => Some(
                lhs.ty == t
                    && rhs.ty == t
                    && zext32(lhs).is_some_and(|a| self.expr_ok(a))
                    && zext32(rhs).is_some_and(|b| self.expr_ok(b)),
            ),
            BinOp::Add if tword(t) => {
                Some(lhs.ty == t && rhs.ty == t && self.expr_ok(lhs) && self.expr_ok(rhs))
            }
            BinOp::Shl | BinOp::Shr if (word(t) && !is_f32(t)) || dword(t) => Some(
                lhs.ty == t
                    && !(dword(t) && op == BinOp::Shr && t.is_signed())
                    && self.expr_ok(lhs)
                    && self.uniform_ok(rhs),
            ),
            _ => None,
        }
    }

    /// Whether `e` is wave-uniform and computable as a scalar before the lane loop: constants,
    /// registers held as wave-uniform values, constant slices, zero extensions and
    /// truncations, bitwise and.
    pub(super) fn uniform_ok(&self, e: &Expr) -> bool {
        let t = e.ty;
        if !t.is_int() || t.width() > 64 {
            return false;
        }
        match &e.kind {
            ExprKind::Const(_) => true,
            ExprKind::Reg(r) => self.uniform.get(r.0 as usize) == Some(&true),
            ExprKind::Slice {
                arg,
                lo,
                width,
                reversed: false,
            } => {
                lo.as_const_u64()
                    .is_some_and(|l| l + *width as u64 <= arg.ty.width() as u64)
                    && *width == t.width()
                    && self.uniform_ok(arg)
            }
            ExprKind::Convert {
                conv: Conv::Resize | Conv::Bitcast,
                arg,
            } => {
                arg.ty.is_int()
                    && (t.width() <= arg.ty.width() || !arg.ty.is_signed())
                    && self.uniform_ok(arg)
            }
            ExprKind::Binary {
                op: BinOp::BitAnd,
                lhs,
                rhs,
            } => self.uniform_ok(lhs) && self.uniform_ok(rhs),
            _ => false,
        }
    }
}

impl Group<'_, '_> {
    /// The scalar (`i64`, zero above the type's width) of an expression
    /// [`Check::uniform_ok`] admitted.
    pub(super) fn scalar(&mut self, e: &Expr) -> Result<Value, JitError> {
        let w = e.ty.width();
        Ok(match &e.kind {
            ExprKind::Const(c) => {
                let x = c.low_u128() as u64 & ones(w);
                self.b.ins().iconst(types::I64, x as i64)
            }
            ExprKind::Reg(RegId(r)) => self
                .scalars
                .get(*r as usize)
                .copied()
                .flatten()
                .ok_or_else(unsupported)?,
            ExprKind::Slice { arg, lo, width, .. } => {
                let x = self.scalar(arg)?;
                let lo = lo.as_const_u64().ok_or_else(unsupported)?;
                let x = self.b.ins().ushr_imm_u(x, lo as i64);
                self.b.ins().band_imm_u(x, ones(*width) as i64)
            }
            ExprKind::Convert { arg, .. } => {
                let x = self.scalar(arg)?;
                if w < arg.ty.width() {
                    self.b.ins().band_imm_u(x, ones(w) as i64)
                } else {
                    x
                }
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                let a = self.scalar(lhs)?;
                let b = self.scalar(rhs)?;
                self.b.ins().band(a, b)
            }
            _ => return Err(unsupported()),
        })
    }

    /// The wide binary operations [`Check::wide_binary_ok`] admitted; `None` for others.
    pub(super) fn wide_binary(
        &mut self,
        op: BinOp,
        lhs: &Expr,
        rhs: &Expr,
        t: Ty,
    ) -> Result<Option<LaneVal>, JitError> {
        use LaneVal::{D, T, W};
        Ok(Some(match op {
            BinOp::Mul if dword(t) || tword(t) => {
                let a = zext32(lhs).ok_or_else(unsupported)?;
                let b = zext32(rhs).ok_or_else(unsupported)?;
                let a = self.word(a)?;
                let b = self.word(b)?;
                let (lo, hi) = self.mul_wide(a, b);
                if tword(t) {
                    T(lo, hi, self.splat(0))
                } else {
                    D(lo, hi)
                }
            }
            BinOp::Add if tword(t) => {
                let (a, b) = (self.expr(lhs)?, self.expr(rhs)?);
                let (T(al, ah, at), T(bl, bh, bt)) = (a, b) else {
                    return Err(unsupported());
                };
                self.add65((al, ah, at), (bl, bh, bt))
            }
            BinOp::Shl | BinOp::Shr if (word(t) && !is_f32(t)) || dword(t) => {
                let amount = self.scalar(rhs)?;
                match self.expr(lhs)? {
                    W(x) => W(self.shift32(op, t.is_signed(), x, amount)),
                    D(lo, hi) => {
                        let (lo, hi) = self.shift64(op, (lo, hi), amount);
                        D(lo, hi)
                    }
                    T(..) => return Err(unsupported()),
                }
            }
            _ => return Ok(None),
        }))
    }

    /// The 64-bit products of the lanes of `a` and `b` (unsigned), as low and high words.
    fn mul_wide(&mut self, a: Value, b: Value) -> (Value, Value) {
        let (al, ah) = (self.b.ins().uwiden_low(a), self.b.ins().uwiden_high(a));
        let (bl, bh) = (self.b.ins().uwiden_low(b), self.b.ins().uwiden_high(b));
        let p01 = self.b.ins().imul(al, bl);
        let p23 = self.b.ins().imul(ah, bh);
        let x = self.b.ins().bitcast(types::I8X16, lanes_le(), p01);
        let y = self.b.ins().bitcast(types::I8X16, lanes_le(), p23);
        // Words 0, 2 (of x) and 4, 6 (of y): the products' low words; 1, 3, 5, 7 the high.
        let pick = |words: [u8; 4]| -> Vec<u8> {
            words
                .iter()
                .flat_map(|&w| (0..4).map(move |k| w * 4 + k))
                .collect()
        };
        let mut half = |words: [u8; 4]| {
            let mask = self
                .b
                .func
                .dfg
                .immediates
                .push(ConstantData::from(pick(words)));
            let s = self.b.ins().shuffle(x, y, mask);
            self.b.ins().bitcast(types::I32X4, lanes_le(), s)
        };
        let lo = half([0, 2, 4, 6]);
        (lo, half([1, 3, 5, 7]))
    }

    /// `a + b` of 65-bit lanes (bit 64 as 0 or 1), wrapping at 65 bits.
    fn add65(&mut self, a: (Value, Value, Value), b: (Value, Value, Value)) -> LaneVal {
        let lo = self.b.ins().iadd(a.0, b.0);
        // All ones in a lane whose low words carry.
        let c0 = self.b.ins().icmp(IntCC::UnsignedLessThan, lo, a.0);
        let hs = self.b.ins().iadd(a.1, b.1);
        let c1 = self.b.ins().icmp(IntCC::UnsignedLessThan, hs, a.1);
        let hi = self.b.ins().isub(hs, c0);
        // The carry in wrapped the high word to zero (it was all ones).
        let zero = self.splat(0);
        let wrapped = self.b.ins().icmp(IntCC::Equal, hi, zero);
        let c2 = self.b.ins().band(c0, wrapped);
        let top = self.b.ins().iadd(a.2, b.2);
        let top = self.b.ins().isub(top, c1);
        let top = self.b.ins().isub(top, c2);
        let one = self.splat(1);
        LaneVal::T(lo, hi, self.b.ins().band(top, one))
    }

    /// All ones in every lane when `cond` (a scalar `i8` boolean) holds, else zero.
    fn splat_if(&mut self, cond: Value) -> Value {
        let all = self.b.ins().iconst(types::I32, -1);
        let none = self.b.ins().iconst(types::I32, 0);
        let m = self.b.ins().select(cond, all, none);
        self.b.ins().splat(types::I32X4, m)
    }

    /// A 32-bit shift by the scalar `amount` (`i64`): zero (or the sign, `sshr`) when it is
    /// 32 or more.
    fn shift32(&mut self, op: BinOp, signed: bool, x: Value, amount: Value) -> Value {
        let big = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, amount, 32);
        let a = self.b.ins().ireduce(types::I32, amount);
        if op == BinOp::Shr && signed {
            let max = self.b.ins().iconst(types::I32, 31);
            let a = self.b.ins().select(big, max, a);
            return self.b.ins().sshr(x, a);
        }
        let a = self.b.ins().band_imm_u(a, 31);
        let r = if op == BinOp::Shl {
            self.b.ins().ishl(x, a)
        } else {
            self.b.ins().ushr(x, a)
        };
        let small = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, amount, 32);
        let keep = self.splat_if(small);
        self.b.ins().band(r, keep)
    }

    /// A 64-bit (`lo`, `hi`) left or logical right shift by the scalar `amount` (`i64`): zero
    /// when it is 64 or more.
    fn shift64(&mut self, op: BinOp, (lo, hi): (Value, Value), amount: Value) -> (Value, Value) {
        let a = self.b.ins().ireduce(types::I32, amount);
        let a = self.b.ins().band_imm_u(a, 31);
        // `31 - a`: with the extra shift by one, the bits crossing words (none when a = 0).
        let thirty_one = self.b.ins().iconst(types::I32, 31);
        let back = self.b.ins().isub(thirty_one, a);
        let lt32 = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, amount, 32);
        let lt64 = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, amount, 64);
        let (m32, m64) = (self.splat_if(lt32), self.splat_if(lt64));
        // `near`: the word the bits stay in; `far`: the other one; `cross`: the bits moving
        // from `far` into `near`'s neighbour.
        let (near, far) = if op == BinOp::Shl { (lo, hi) } else { (hi, lo) };
        let (near_sh, far_sh, cross) = if op == BinOp::Shl {
            let n = self.b.ins().ishl(near, a);
            let f = self.b.ins().ishl(far, a);
            let c = self.b.ins().ushr_imm_u(near, 1);
            (n, f, self.b.ins().ushr(c, back))
        } else {
            let n = self.b.ins().ushr(near, a);
            let f = self.b.ins().ushr(far, a);
            let c = self.b.ins().ishl_imm_u(near, 1);
            (n, f, self.b.ins().ishl(c, back))
        };
        // Under 32: near' = near << a, far' = far << a | cross; 32..63: near' = 0,
        // far' = near << (a - 32); 64 or more: both zero.
        let joined = self.b.ins().bor(far_sh, cross);
        let moved = self.b.ins().band(near_sh, m64);
        let far_new = self.b.ins().bitselect(m32, joined, moved);
        let near_new = self.b.ins().band(near_sh, m32);
        if op == BinOp::Shl {
            (near_new, far_new)
        } else {
            (far_new, near_new)
        }
    }

    /// Bits `pos .. pos + w` of a lane value, for the parts of a concatenated assignment:
    /// 64 bits from bit 0, 32 bits from bit 0 or 32, or one bit anywhere.
    pub(super) fn part(&mut self, v: LaneVal, pos: u32, w: u32) -> Result<LaneVal, JitError> {
        use LaneVal::{D, T, W};
        let (lo, hi, top) = match v {
            W(x) => (x, None, None),
            D(lo, hi) => (lo, Some(hi), None),
            T(lo, hi, top) => (lo, Some(hi), Some(top)),
        };
        let word_at = |k: u32| match k {
            0 => Some(lo),
            1 => hi,
            2 => top,
            _ => None,
        };
        Ok(match (pos, w) {
            (0, 64) => D(lo, hi.ok_or_else(unsupported)?),
            (0 | 32, 32) => W(word_at(pos / 32).ok_or_else(unsupported)?),
            (_, 1) => {
                let x = word_at(pos / 32).ok_or_else(unsupported)?;
                let x = self.b.ins().ushr_imm_u(x, (pos % 32) as i64);
                let one = self.splat(1);
                W(self.b.ins().band(x, one))
            }
            _ => return Err(unsupported()),
        })
    }

    /// Resizes and bitcasts between the integer lane values (zero extension, truncation).
    pub(super) fn resize(&mut self, v: LaneVal, to: u32) -> LaneVal {
        use LaneVal::{D, T, W};
        let zero = self.splat(0);
        let (lo, hi, top) = match v {
            W(x) => (x, zero, zero),
            D(lo, hi) => (lo, hi, zero),
            T(lo, hi, top) => (lo, hi, top),
        };
        match to {
            65 => T(lo, hi, top),
            64 => D(lo, hi),
            32 => W(lo),
            w => {
                let m = self.splat(ones(w) as u32);
                W(self.b.ins().band(lo, m))
            }
        }
    }
}

/// Whether a part of a concatenated assignment can be taken ([`Group::part`]).
pub(super) fn part_ok(ty: Ty, pos: u32, w: u32) -> bool {
    let width = ty.width();
    int(ty)
        && pos + w <= width
        && match w {
            64 => pos == 0 && width >= 64,
            32 => pos == 0 || pos == 32,
            1 => pos < 96,
            _ => false,
        }
}
