//! SIMD lanes for in-place block instructions: four lanes per iteration of the lane loop.
//!
//! An in-place instruction (`block_inplace`) whose optimised IR is straight-line 32-bit lane
//! arithmetic is emitted a second way: over `i32x4` vectors of four consecutive lanes instead
//! of one lane at a time. The check ([`supported`]) admits only what Cranelift's x86-64 SIMD
//! lowers to the same bits as the scalar translation (`translate::expr`):
//!
//! - statements: assignments of whole 32-bit per-lane registers, of scalar locals (read only
//!   after they are assigned) and of lane-mask bits, nothing else (no `if`, loops, returns);
//! - values: 32-bit integers, bits and f32 as `i32x4`; integer compares as lane masks (all
//!   ones or zero) that only feed selects;
//! - operations: integer `+ - *`, bitwise `& | ^ ~`, integer compares with selects
//!   (`bitselect`), same-width bitcasts and resizes, and f32 `+ - * /`, `sqrt` and `fma` under the
//!   default rounding with the NaN rule of `crate::float` (a NaN result becomes the first NaN
//!   operand quietened, else the default NaN: a vector fix-up in a cold block taken when any
//!   lane's result is a NaN, so x86's own NaN choice never reaches a register);
//! - registers: per-lane sources from whole VGPR words (with the default MODE's f32 denormal
//!   flush as `band` + `icmp` + `bitselect`), wave-uniform sources splatted once before the
//!   loop, results into VGPR rows;
//! - lane masks (VCC or an SGPR mask, read or written only as `R[laneId +: 1]`: carry in and
//!   out, VOPC results, `v_cndmask`): a group's four bits are expanded to lanes of 0 or 1
//!   (splat, `band` with `[1, 2, 4, 8]`, `icmp`); written bits are gathered with `vhigh_bits`
//!   and replace the accumulated mask's bits of the group's EXEC lanes, so the final mask is
//!   the scalar loop's (the caller masks it by EXEC and writes it as the kernel would);
//! - 64-bit integers (locals, `tmp = S0 + S1 + carry`) as low and high `i32x4`: `+ -` with the
//!   carry or borrow from an unsigned compare of the low words, bitwise operations, compares
//!   (signed ones only for equality), zero extension and truncation.
//!
//! - 64-bit VGPR pairs, 65-bit sums, widening multiplies and shifts by a wave-uniform amount:
//!   see `wide.rs`.
//!
//! Anything else (shifts by per-lane amounts, 16-bit lanes, fmin/fmax, float compares,
//! negation, conversions, helper calls, SCC or SGPR word results) keeps the scalar lane loop:
//! the admitted set is the one `tests/block_simd.rs` reaches. With every lane active the
//! groups run in order, each whole; otherwise the loop visits the groups of four lanes that
//! have an EXEC bit (the next group is found with `ctz`); a group whose four bits are set stores its
//! results whole, a partial one merges them into the old row words under a mask built from
//! its EXEC nibble. Each group loads all its sources before it stores a result, as a lane of
//! the scalar loop does, so a result register that is also a source reads the old values; the
//! lanes of one group never read another group's words.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, ConstantData, Endianness, InstBuilder, MemFlagsData, Type, Value,
};
use cranelift_frontend::{FunctionBuilder, Variable};

mod check;
mod wide;

pub(super) use check::supported;
use check::Check;

use super::block::plan::Plan;
use super::translate::{int_cc, RegLoc};
use super::JitError;
use crate::ir::builtins::Func;
use crate::ir::{
    BinOp, CmpOp, Conv, Expr, ExprKind, FloatTy, Function, Place, RegId, RegRole, Stmt, Ty,
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

/// Whether `ty` is one bit (a lane-mask bit, held as 0 or 1 in each `i32x4` lane).
fn narrow(ty: Ty) -> bool {
    matches!(ty, Ty::U(1) | Ty::B(1))
}

/// Whether `ty` is a 64-bit integer (held as two `i32x4`, low and high words).
fn dword(ty: Ty) -> bool {
    matches!(ty, Ty::U(64) | Ty::I(64) | Ty::B(64))
}

/// Whether `ty` is an integer the SIMD lanes hold.
fn int(ty: Ty) -> bool {
    (word(ty) && !is_f32(ty)) || narrow(ty) || dword(ty) || wide::tword(ty)
}

fn is_f32(ty: Ty) -> bool {
    ty == Ty::F(FloatTy::F32)
}

/// Whether `e` is the lane index (`laneId`, possibly bitcast).
fn is_lane_id(f: &Function, e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Reg(r) => f
            .regs
            .get(r.0 as usize)
            .is_some_and(|i| i.role == RegRole::Lane && i.name == "laneId" && i.width == 32),
        ExprKind::Convert {
            conv: Conv::Bitcast,
            arg,
        } => word(e.ty) && !is_f32(e.ty) && is_lane_id(f, arg),
        _ => false,
    }
}

/// The register of a lane-bit read `R[laneId +: 1]` (`R` possibly bitcast).
fn lane_bit_read(f: &Function, e: &Expr) -> Option<RegId> {
    let ExprKind::Slice {
        arg,
        lo,
        width: 1,
        reversed: false,
    } = &e.kind
    else {
        return None;
    };
    if !is_lane_id(f, lo) {
        return None;
    }
    let mut a = &**arg;
    while let ExprKind::Convert {
        conv: Conv::Bitcast,
        arg,
    } = &a.kind
    {
        a = arg;
    }
    match a.kind {
        ExprKind::Reg(r) => Some(r),
        _ => None,
    }
}

/// The register of a lane-bit write `R[laneId +: 1] = ...`.
fn lane_bit_place(f: &Function, p: &Place) -> Option<RegId> {
    let Place::Slice {
        base,
        lo,
        width: 1,
        reversed: false,
    } = p
    else {
        return None;
    };
    match **base {
        Place::Reg(r) if is_lane_id(f, lo) => Some(r),
        _ => None,
    }
}

/// The registers accessed as lane bits somewhere in `body`.
fn lane_bit_regs(f: &Function) -> Vec<bool> {
    let mut bits = vec![false; f.regs.len()];
    fn walk(f: &Function, e: &Expr, bits: &mut [bool]) {
        if let Some(r) = lane_bit_read(f, e) {
            if let Some(b) = bits.get_mut(r.0 as usize) {
                *b = true;
            }
            return;
        }
        match &e.kind {
            ExprKind::Unary { arg, .. } | ExprKind::Convert { arg, .. } => walk(f, arg, bits),
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::Cmp { lhs, rhs, .. } => {
                walk(f, lhs, bits);
                walk(f, rhs, bits);
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                walk(f, cond, bits);
                walk(f, then, bits);
                walk(f, otherwise, bits);
            }
            ExprKind::Call { args, .. } => args.iter().for_each(|a| walk(f, a, bits)),
            _ => {}
        }
    }
    for s in &f.body {
        if let Stmt::Assign { place, value, .. } = s {
            if let Some(r) = lane_bit_place(f, place) {
                if let Some(b) = bits.get_mut(r.0 as usize) {
                    *b = true;
                }
            }
            walk(f, value, &mut bits);
        }
    }
    bits
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
    f: &'a Function,
    /// Each register's current value: a variable (per-lane, or a lane mask's bits as 0 or 1)
    /// or a splat (wave-uniform).
    regs: Vec<Option<RegVal>>,
    /// Each local's current value.
    locals: Vec<Option<LaneVal>>,
    /// The scalar (`i64`) of each register held as a wave-uniform value.
    scalars: Vec<Option<Value>>,
}

#[derive(Clone, Copy)]
enum RegVal {
    Var(Variable),
    Splat(Value),
    /// A 64-bit per-lane register: its low and high words.
    Pair(Variable, Variable),
    /// A wave-uniform 64-bit value, splatted.
    SplatPair(Value, Value),
}

/// A value of four lanes: one `i32x4` (32-bit values, bits as 0 or 1, booleans as all ones
/// or zero), the low and high words of 64-bit values, or those and bit 64 (0 or 1) of 65-bit
/// values.
#[derive(Clone, Copy)]
enum LaneVal {
    W(Value),
    D(Value, Value),
    T(Value, Value, Value),
}

impl Group<'_, '_> {
    fn splat(&mut self, bits: u32) -> Value {
        self.vconst([bits; 4])
    }

    fn vconst(&mut self, lanes: [u32; 4]) -> Value {
        let bytes: Vec<u8> = lanes.iter().flat_map(|v| v.to_le_bytes()).collect();
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        self.b.ins().vconst(types::I32X4, c)
    }

    fn as_floats(&mut self, v: Value) -> Value {
        self.b.ins().bitcast(types::F32X4, lanes_le(), v)
    }

    fn as_ints(&mut self, v: Value) -> Value {
        self.b.ins().bitcast(types::I32X4, lanes_le(), v)
    }

    /// Bits `base .. base + 4` of the lane mask `mask` (`i64`) as four lanes of 0 or 1.
    fn expand(&mut self, mask: Value, base: Value) -> Value {
        let x = self.b.ins().ushr(mask, base);
        let x = self.b.ins().ireduce(types::I32, x);
        let x = self.b.ins().splat(types::I32X4, x);
        let bit = self.vconst([1, 2, 4, 8]);
        let on = self.b.ins().band(x, bit);
        let zero = self.splat(0);
        let set = self.b.ins().icmp(IntCC::NotEqual, on, zero);
        let one = self.splat(1);
        self.b.ins().band(set, one)
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), JitError> {
        match s {
            Stmt::Assign { place, value, .. } => {
                let v = self.expr(value)?;
                self.store(place, v)
            }
            Stmt::AssignConcat { places, value, .. } => {
                let v = self.expr(value)?;
                let mut pos = value.ty.width();
                for (p, w) in places {
                    pos = pos.checked_sub(*w).ok_or_else(unsupported)?;
                    let part = self.part(v, pos, *w)?;
                    self.store(p, part)?;
                }
                Ok(())
            }
            _ => Err(unsupported()),
        }
    }

    fn store(&mut self, place: &Place, v: LaneVal) -> Result<(), JitError> {
        let r = match place {
            Place::Local(l) => {
                *self.locals.get_mut(l.0 as usize).ok_or_else(unsupported)? = Some(v);
                return Ok(());
            }
            Place::Reg(r) => *r,
            Place::Slice {
                base, lo, width, ..
            } if lane_bit_place(self.f, place).is_none() => {
                // A constant bit range of a per-lane word: the other bits kept.
                let (Place::Reg(r), Some(lo), LaneVal::W(x)) = (&**base, lo.as_const_u64(), v)
                else {
                    return Err(unsupported());
                };
                let Some(RegVal::Var(var)) = self.regs.get(r.0 as usize).copied().flatten() else {
                    return Err(unsupported());
                };
                let field = (((1u64 << width) - 1) << lo) as u32;
                let old = self.b.use_var(var);
                let keep = self.splat(!field);
                let kept = self.b.ins().band(old, keep);
                let x = self.b.ins().ishl_imm_u(x, lo as i64);
                let m = self.splat(field);
                let x = self.b.ins().band(x, m);
                let new = self.b.ins().bor(kept, x);
                self.b.def_var(var, new);
                return Ok(());
            }
            _ => lane_bit_place(self.f, place).ok_or_else(unsupported)?,
        };
        match (self.regs.get(r.0 as usize).copied().flatten(), v) {
            (Some(RegVal::Var(var)), LaneVal::W(v)) => self.b.def_var(var, v),
            (Some(RegVal::Pair(lo, hi)), LaneVal::D(l, h)) => {
                self.b.def_var(lo, l);
                self.b.def_var(hi, h);
            }
            _ => return Err(unsupported()),
        }
        Ok(())
    }

    fn word(&mut self, e: &Expr) -> Result<Value, JitError> {
        match self.expr(e)? {
            LaneVal::W(v) => Ok(v),
            _ => Err(unsupported()),
        }
    }

    fn dword(&mut self, e: &Expr) -> Result<(Value, Value), JitError> {
        match self.expr(e)? {
            LaneVal::D(lo, hi) => Ok((lo, hi)),
            _ => Err(unsupported()),
        }
    }

    /// `a < b`, unsigned, of 64-bit lanes.
    fn ult64(&mut self, (al, ah): (Value, Value), (bl, bh): (Value, Value)) -> Value {
        let hi_lt = self.b.ins().icmp(IntCC::UnsignedLessThan, ah, bh);
        let hi_eq = self.b.ins().icmp(IntCC::Equal, ah, bh);
        let lo_lt = self.b.ins().icmp(IntCC::UnsignedLessThan, al, bl);
        let low = self.b.ins().band(hi_eq, lo_lt);
        self.b.ins().bor(hi_lt, low)
    }

    fn expr(&mut self, e: &Expr) -> Result<LaneVal, JitError> {
        use LaneVal::{D, W};
        if let Some(r) = lane_bit_read(self.f, e) {
            return match self.regs.get(r.0 as usize).copied().flatten() {
                Some(RegVal::Var(var)) => Ok(W(self.b.use_var(var))),
                _ => Err(unsupported()),
            };
        }
        Ok(match &e.kind {
            ExprKind::Const(c) => {
                let x = c.low_u128();
                if wide::tword(e.ty) {
                    let (lo, hi) = (self.splat(x as u32), self.splat((x >> 32) as u32));
                    LaneVal::T(lo, hi, self.splat((x >> 64) as u32 & 1))
                } else if dword(e.ty) {
                    D(self.splat(x as u32), self.splat((x >> 32) as u32))
                } else {
                    W(self.splat(x as u32))
                }
            }
            ExprKind::Reg(r) => match self.regs.get(r.0 as usize).copied().flatten() {
                Some(RegVal::Var(var)) => W(self.b.use_var(var)),
                Some(RegVal::Splat(v)) => W(v),
                Some(RegVal::Pair(lo, hi)) => D(self.b.use_var(lo), self.b.use_var(hi)),
                Some(RegVal::SplatPair(lo, hi)) => D(lo, hi),
                None => return Err(unsupported()),
            },
            ExprKind::Local(l) => self
                .locals
                .get(l.0 as usize)
                .copied()
                .flatten()
                .ok_or_else(unsupported)?,
            ExprKind::Unary { arg, .. } => {
                let a = self.word(arg)?;
                W(self.b.ins().bnot(a))
            }
            ExprKind::Binary { op, lhs, rhs }
                if matches!(op, BinOp::Mul | BinOp::Add | BinOp::Shl | BinOp::Shr)
                    && (wide::tword(e.ty)
                        || matches!(op, BinOp::Shl | BinOp::Shr)
                        || (dword(e.ty) && *op == BinOp::Mul)) =>
            {
                self.wide_binary(*op, lhs, rhs, e.ty)?
                    .ok_or_else(unsupported)?
            }
            ExprKind::Binary { op, lhs, rhs } if dword(e.ty) => {
                let (al, ah) = self.dword(lhs)?;
                let (bl, bh) = self.dword(rhs)?;
                match op {
                    BinOp::Add => {
                        let lo = self.b.ins().iadd(al, bl);
                        let carry = self.b.ins().icmp(IntCC::UnsignedLessThan, lo, al);
                        let hi = self.b.ins().iadd(ah, bh);
                        // The carry is all ones (-1) in a lane that carries.
                        D(lo, self.b.ins().isub(hi, carry))
                    }
                    BinOp::Sub => {
                        let lo = self.b.ins().isub(al, bl);
                        let borrow = self.b.ins().icmp(IntCC::UnsignedLessThan, al, bl);
                        let hi = self.b.ins().isub(ah, bh);
                        D(lo, self.b.ins().iadd(hi, borrow))
                    }
                    BinOp::BitAnd => {
                        let lo = self.b.ins().band(al, bl);
                        D(lo, self.b.ins().band(ah, bh))
                    }
                    BinOp::BitOr => {
                        let lo = self.b.ins().bor(al, bl);
                        D(lo, self.b.ins().bor(ah, bh))
                    }
                    BinOp::BitXor => {
                        let lo = self.b.ins().bxor(al, bl);
                        D(lo, self.b.ins().bxor(ah, bh))
                    }
                    _ => return Err(unsupported()),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.word(lhs)?;
                let b = self.word(rhs)?;
                if is_f32(e.ty) {
                    let (x, y) = (self.as_floats(a), self.as_floats(b));
                    let r = match op {
                        BinOp::Add => self.b.ins().fadd(x, y),
                        BinOp::Sub => self.b.ins().fsub(x, y),
                        BinOp::Mul => self.b.ins().fmul(x, y),
                        BinOp::Div => self.b.ins().fdiv(x, y),
                        _ => return Err(unsupported()),
                    };
                    return Ok(W(self.nan_fix(r, &[a, b])));
                }
                W(match op {
                    BinOp::Add => self.b.ins().iadd(a, b),
                    BinOp::Sub => self.b.ins().isub(a, b),
                    BinOp::Mul => self.b.ins().imul(a, b),
                    BinOp::BitAnd => self.b.ins().band(a, b),
                    BinOp::BitOr => self.b.ins().bor(a, b),
                    BinOp::BitXor => self.b.ins().bxor(a, b),
                    _ => return Err(unsupported()),
                })
            }
            ExprKind::Cmp { op, lhs, rhs } if dword(lhs.ty) => {
                let a = self.dword(lhs)?;
                let b = self.dword(rhs)?;
                W(match op {
                    CmpOp::Eq | CmpOp::Ne | CmpOp::Lg => {
                        let lo = self.b.ins().icmp(IntCC::Equal, a.0, b.0);
                        let hi = self.b.ins().icmp(IntCC::Equal, a.1, b.1);
                        let eq = self.b.ins().band(lo, hi);
                        if *op == CmpOp::Eq {
                            eq
                        } else {
                            self.b.ins().bnot(eq)
                        }
                    }
                    CmpOp::Lt => self.ult64(a, b),
                    CmpOp::Gt => self.ult64(b, a),
                    CmpOp::Ge => {
                        let lt = self.ult64(a, b);
                        self.b.ins().bnot(lt)
                    }
                    CmpOp::Le => {
                        let gt = self.ult64(b, a);
                        self.b.ins().bnot(gt)
                    }
                })
            }
            ExprKind::Cmp { op, lhs, rhs } => {
                let a = self.word(lhs)?;
                let b = self.word(rhs)?;
                let signed = lhs.ty.is_signed();
                W(self.b.ins().icmp(int_cc(*op, signed), a, b))
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                let c = self.word(cond)?;
                match (self.expr(then)?, self.expr(otherwise)?) {
                    (W(t), W(o)) => W(self.b.ins().bitselect(c, t, o)),
                    (D(tl, th), D(ol, oh)) => {
                        let lo = self.b.ins().bitselect(c, tl, ol);
                        D(lo, self.b.ins().bitselect(c, th, oh))
                    }
                    _ => return Err(unsupported()),
                }
            }
            ExprKind::Convert { conv, arg } => self.convert(*conv, arg, e.ty)?,
            ExprKind::Call { builtin, args } => {
                let mut bits = Vec::with_capacity(args.len());
                for a in args {
                    bits.push(self.word(a)?);
                }
                let x: Vec<Value> = bits.iter().map(|&v| self.as_floats(v)).collect();
                let r = match (builtin.func, x.as_slice()) {
                    (Func::Sqrt, &[a]) => self.b.ins().sqrt(a),
                    (Func::Fma, &[a, b, c]) => self.b.ins().fma(a, b, c),
                    _ => return Err(unsupported()),
                };
                W(self.nan_fix(r, &bits))
            }
            _ => return Err(unsupported()),
        })
    }

    /// A conversion [`Check::expr_ok`] admitted: same-width bitcasts and resizes keep the
    /// bits, resizes zero-extend or truncate, booleans are all-ones or zero lanes.
    fn convert(&mut self, conv: Conv, arg: &Expr, t: Ty) -> Result<LaneVal, JitError> {
        use LaneVal::{D, W};
        let a = self.expr(arg)?;
        let zero = self.splat(0);
        let one = self.splat(1);
        Ok(match (conv, a) {
            (Conv::ToBool, W(x)) => W(self.b.ins().icmp(IntCC::NotEqual, x, zero)),
            (Conv::ToBool, D(lo, hi)) => {
                let x = self.b.ins().bor(lo, hi);
                W(self.b.ins().icmp(IntCC::NotEqual, x, zero))
            }
            (Conv::FromBool, W(m)) => {
                let x = self.b.ins().band(m, one);
                if dword(t) {
                    D(x, zero)
                } else {
                    W(x)
                }
            }
            (Conv::Resize | Conv::Bitcast, v) if wide::tword(t) || matches!(v, LaneVal::T(..)) => {
                self.resize(v, t.width())
            }
            (Conv::Resize | Conv::Bitcast, W(x)) if dword(t) => D(x, zero),
            (Conv::Resize | Conv::Bitcast, W(x)) if narrow(t) && !narrow(arg.ty) => {
                W(self.b.ins().band(x, one))
            }
            (Conv::Resize | Conv::Bitcast, W(x)) => W(x),
            (Conv::Resize | Conv::Bitcast, D(lo, hi)) if dword(t) => D(lo, hi),
            (Conv::Resize, D(lo, _)) if narrow(t) => W(self.b.ins().band(lo, one)),
            (Conv::Resize, D(lo, _)) => W(lo),
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
/// `lanes`). With every lane active the groups run in order, all whole; otherwise the loop
/// visits the groups that have an EXEC bit. The builder comes back at a block after the instruction. Returns the final value
/// (`i64`) of each lane mask the instruction writes: the old value (zero when unread) with
/// the bits of the lanes EXEC enables replaced by theirs, as the scalar lane loop leaves it.
///
/// # Errors
/// Only on a bug (a node [`supported`] admitted but this does not translate).
pub(super) fn emit(
    b: &mut FunctionBuilder<'_>,
    plan: &Plan<'_>,
    locs: &[RegLoc],
    vgpr: Value,
    exec: Value,
    lanes: u32,
) -> Result<Vec<Option<Value>>, JitError> {
    let f = &*plan.ir.function;
    let per_lane = &plan.ir.layout.per_lane;
    let bits = lane_bit_regs(f);
    // Wave-uniform sources, splatted once; lane masks whole, and the accumulators of the
    // written ones.
    let mut uniform = vec![None; f.regs.len()];
    let mut mask_in = vec![None; f.regs.len()];
    let mut acc = vec![None; f.regs.len()];
    let mut scalars = vec![None; f.regs.len()];
    for (i, r) in f.regs.iter().enumerate() {
        if plan.lane_masks[i] {
            // Gathered from the lanes the loop visits; the others read zero.
            let var = b.declare_var(types::I64);
            let zero = b.ins().iconst(types::I64, 0);
            b.def_var(var, zero);
            acc[i] = Some(var);
            continue;
        }
        let RegLoc::Value(v) = locs[i] else {
            if bits[i] && r.written {
                let var = b.declare_var(types::I64);
                let zero = b.ins().iconst(types::I64, 0);
                b.def_var(var, zero);
                acc[i] = Some(var);
            }
            continue;
        };
        if bits[i] {
            let v = match b.func.dfg.value_type(v) {
                types::I64 => v,
                _ => b.ins().uextend(types::I64, v),
            };
            mask_in[i] = Some(v);
            if r.written {
                let var = b.declare_var(types::I64);
                b.def_var(var, v);
                acc[i] = Some(var);
            }
        } else if r.read {
            let v64 = match b.func.dfg.value_type(v) {
                types::I64 => v,
                ty if ty.bits() < 64 => b.ins().uextend(types::I64, v),
                _ => b.ins().ireduce(types::I64, v),
            };
            scalars[i] = Some(v64);
            let lo = b.ins().ireduce(types::I32, v64);
            let lo = b.ins().splat(types::I32X4, lo);
            uniform[i] = Some(if r.width == 64 && per_lane[i] {
                let hi = b.ins().ushr_imm_u(v64, 32);
                let hi = b.ins().ireduce(types::I32, hi);
                RegVal::SplatPair(lo, b.ins().splat(types::I32X4, hi))
            } else {
                RegVal::Splat(lo)
            });
        }
    }
    let pre = Prelude {
        plan,
        locs,
        bits,
        uniform,
        mask_in,
        acc,
        scalars,
    };
    let done = b.create_block();
    // Every lane active (the common case): each group whole, no search for the next one.
    let all_lanes = if lanes >= 64 {
        u64::MAX
    } else {
        (1u64 << lanes) - 1
    };
    let (fast, search) = (b.create_block(), b.create_block());
    b.append_block_param(fast, vgpr_ty(b, vgpr));
    b.append_block_param(fast, types::I64);
    let all = b.ins().icmp_imm_u(IntCC::Equal, exec, all_lanes as i64);
    let zero = b.ins().iconst(types::I64, 0);
    b.ins()
        .brif(all, fast, &[vgpr.into(), zero.into()], search, &[]);
    b.switch_to_block(fast);
    let (p, base) = (b.block_params(fast)[0], b.block_params(fast)[1]);
    let nib = b.ins().iconst(types::I64, 15);
    group(b, &pre, p, base, nib, true)?;
    let p = b.ins().iadd_imm_s(p, 16);
    let base = b.ins().iadd_imm_s(base, 4);
    let more = b
        .ins()
        .icmp_imm_u(IntCC::UnsignedLessThan, base, lanes as i64);
    b.ins()
        .brif(more, fast, &[p.into(), base.into()], done, &[]);
    b.seal_block(fast);
    b.switch_to_block(search);
    b.seal_block(search);

    let head = b.create_block();
    b.append_block_param(head, types::I64);
    b.append_block_param(head, vgpr_ty(b, vgpr));
    b.append_block_param(head, types::I64);
    let any = b.ins().icmp_imm_u(IntCC::NotEqual, exec, 0);
    b.ins().brif(
        any,
        head,
        &[exec.into(), vgpr.into(), zero.into()],
        done,
        &[],
    );

    // The group of the lowest set bit: skip to it (its lane index rounded down to 4).
    b.switch_to_block(head);
    let params = b.block_params(head);
    let (rest, p, base) = (params[0], params[1], params[2]);
    let tz = b.ins().ctz(rest);
    let tz = b.ins().band_imm_u(tz, !3);
    let rest = b.ins().ushr(rest, tz);
    let base = b.ins().iadd(base, tz);
    let skip = b.ins().ishl_imm_u(tz, 2);
    let ptr_ty = b.func.dfg.value_type(p);
    let skip = if ptr_ty == types::I64 {
        skip
    } else {
        b.ins().ireduce(ptr_ty, skip)
    };
    let p = b.ins().iadd(p, skip);
    let nib = b.ins().band_imm_u(rest, 15);
    group(b, &pre, p, base, nib, false)?;
    let rest = b.ins().ushr_imm_u(rest, 4);
    let p = b.ins().iadd_imm_s(p, 16);
    let base = b.ins().iadd_imm_s(base, 4);
    let more = b.ins().icmp_imm_u(IntCC::NotEqual, rest, 0);
    b.ins()
        .brif(more, head, &[rest.into(), p.into(), base.into()], done, &[]);
    b.seal_block(head);
    b.switch_to_block(done);
    b.seal_block(done);
    Ok(pre
        .acc
        .iter()
        .map(|a| a.map(|var| b.use_var(var)))
        .collect())
}

/// What [`emit`] computes before the lane loop, for each group's body.
struct Prelude<'p, 'a> {
    plan: &'p Plan<'a>,
    locs: &'p [RegLoc],
    /// The registers accessed as lane bits.
    bits: Vec<bool>,
    /// Wave-uniform sources, splatted.
    uniform: Vec<Option<RegVal>>,
    /// Lane masks read, whole (`i64`).
    mask_in: Vec<Option<Value>>,
    /// The accumulators of the lane masks written.
    acc: Vec<Option<Variable>>,
    /// The scalars of the wave-uniform registers.
    scalars: Vec<Option<Value>>,
}

/// Emits one group of four lanes starting at lane `base` (`i64`), whose words are at `p`
/// (the VGPR file advanced to lane `base`), with its EXEC bits `nib` (`i64`, 0..=15); `whole`
/// when all four are known to be set (results stored whole). The builder comes back in a
/// block after the group.
fn group(
    b: &mut FunctionBuilder<'_>,
    pre: &Prelude<'_, '_>,
    p: Value,
    base: Value,
    nib: Value,
    whole: bool,
) -> Result<(), JitError> {
    let Prelude {
        plan,
        locs,
        bits,
        uniform,
        mask_in,
        acc,
        scalars,
    } = pre;
    let f = &*plan.ir.function;
    let per_lane = &plan.ir.layout.per_lane;
    let mut g = Group {
        b,
        f,
        regs: vec![None; f.regs.len()],
        locals: vec![None; f.locals.len()],
        scalars: scalars.clone(),
    };
    // Sources first (all loads before any store), then the per-lane results' variables.
    for (i, r) in f.regs.iter().enumerate() {
        if bits[i] {
            let v = match mask_in[i] {
                Some(m) => g.expand(m, base),
                None => g.splat(0),
            };
            let var = g.b.declare_var(types::I32X4);
            g.b.def_var(var, v);
            g.regs[i] = Some(RegVal::Var(var));
            continue;
        }
        if let (Some(v), false) = (uniform[i], r.written) {
            g.regs[i] = Some(v);
            continue;
        }
        if !per_lane[i] || r.role == RegRole::Lane || !(r.read || r.written) {
            continue;
        }
        if r.width == 64 {
            // A VGPR pair: its two rows.
            let (lo, hi) = match (locs[i], uniform[i]) {
                (RegLoc::Value(_), Some(RegVal::SplatPair(lo, hi))) if r.read => (lo, hi),
                (RegLoc::Vgpr { row, .. }, _) if r.read => (
                    g.b.ins().load(types::I32X4, mem(), p, row_off(row)),
                    g.b.ins().load(types::I32X4, mem(), p, row_off(row + 1)),
                ),
                _ => (g.splat(0), g.splat(0)),
            };
            let (vl, vh) = (g.b.declare_var(types::I32X4), g.b.declare_var(types::I32X4));
            g.b.def_var(vl, lo);
            g.b.def_var(vh, hi);
            g.regs[i] = Some(RegVal::Pair(vl, vh));
            continue;
        }
        let v = match locs[i] {
            RegLoc::Value(_) if r.read => match uniform[i] {
                Some(RegVal::Splat(v)) => v,
                _ => return Err(unsupported()),
            },
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
    // The written lane masks: the group's four bits (bit 0 of each lane) replace the
    // accumulator's bits of the group's active lanes.
    let zero4 = g.splat(0);
    for (i, a) in acc.iter().enumerate() {
        let (Some(a), Some(RegVal::Var(var))) = (*a, g.regs[i]) else {
            continue;
        };
        let mut v = g.b.use_var(var);
        if plan.lane_masks[i] {
            // Bit 0 of a per-lane word.
            let one = g.splat(1);
            v = g.b.ins().band(v, one);
        }
        let set = g.b.ins().icmp(IntCC::NotEqual, v, zero4);
        let got = g.b.ins().vhigh_bits(types::I64, set);
        let got = g.b.ins().band(got, nib);
        let got = g.b.ins().ishl(got, base);
        let lanes = g.b.ins().ishl(nib, base);
        let old = g.b.use_var(a);
        let kept = g.b.ins().band_not(old, lanes);
        let new = g.b.ins().bor(kept, got);
        g.b.def_var(a, new);
    }
    let mut outs = Vec::new();
    for (i, lane_outs) in plan.lane_outs.iter().enumerate() {
        if lane_outs.is_empty() {
            continue;
        }
        match g.regs[i] {
            Some(RegVal::Var(var)) => {
                let v = g.b.use_var(var);
                for o in lane_outs {
                    let x = if o.ftz { g.flush(v) } else { v };
                    outs.push((o.row, x));
                }
            }
            Some(RegVal::Pair(lo, hi)) => {
                for o in lane_outs {
                    let var = if o.shift == 32 { hi } else { lo };
                    outs.push((o.row, g.b.use_var(var)));
                }
            }
            _ => return Err(unsupported()),
        }
    }
    if whole {
        for &(row, x) in &outs {
            g.b.ins().store(mem(), x, p, row_off(row));
        }
        return Ok(());
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
    if !outs.is_empty() {
        let n32 = g.b.ins().ireduce(types::I32, nib);
        let n = g.b.ins().splat(types::I32X4, n32);
        let bit = g.vconst([1, 2, 4, 8]);
        let on = g.b.ins().band(n, bit);
        let active = g.b.ins().icmp(IntCC::NotEqual, on, zero4);
        for &(row, x) in &outs {
            let old = g.b.ins().load(types::I32X4, mem(), p, row_off(row));
            let merged = g.b.ins().bitselect(active, x, old);
            g.b.ins().store(mem(), merged, p, row_off(row));
        }
    }
    g.b.ins().jump(next, &[]);
    g.b.switch_to_block(next);
    g.b.seal_block(next);
    Ok(())
}

fn vgpr_ty(b: &FunctionBuilder<'_>, vgpr: Value) -> Type {
    b.func.dfg.value_type(vgpr)
}
