//! Which in-place instructions the SIMD lanes take ([`supported`]): the check of the
//! registers' roles and locations and of every statement and expression against the subset
//! `block_simd` translates (see its module documentation).

use super::wide;
use super::{dword, int, is_f32, lane_bit_place, lane_bit_read, lane_bit_regs, narrow, word};
use crate::ir::builtins::Func;
use crate::ir::{
    BinOp, CmpOp, Conv, Expr, ExprKind, Function, Place, RegId, RegRole, Stmt, Ty, UnOp,
};
use crate::jit::block::plan::Plan;
use crate::jit::translate::{LaneOut, RegLoc};

/// Whether `plan` (with register locations `locs`) can run four lanes at a time.
pub(in crate::jit) fn supported(plan: &Plan<'_>, locs: &[RegLoc], lanes: u32) -> bool {
    let ir = plan.ir;
    let f = &*ir.function;
    if !ir.lane_loop || !lanes.is_multiple_of(4) || lanes > 64 || locs.len() != f.regs.len() {
        return false;
    }
    if f.locals
        .iter()
        .any(|l| l.len.is_some() || !(word(l.ty) || int(l.ty)))
    {
        return false;
    }
    let bits = lane_bit_regs(f);
    let mut uniform = vec![false; f.regs.len()];
    let mut pairs = vec![false; f.regs.len()];
    for (i, r) in f.regs.iter().enumerate() {
        if !(r.read || r.written) {
            continue;
        }
        let per_lane = ir.layout.per_lane[i];
        if plan.lane_masks[i] {
            // A per-lane register whose bit 0 is gathered into a lane mask (the carry-out
            // `D1` of `v_mad_u64_u32`): written only, through constant slices.
            let ok = per_lane
                && !bits[i]
                && !r.read
                && r.width == 32
                && r.role != RegRole::Lane
                && plan.lane_outs[i].is_empty();
            if !ok {
                return false;
            }
            continue;
        }
        if bits[i] {
            // A lane mask: whole in a wave-uniform value, its bits read and written per lane.
            let ok = !per_lane
                && r.role != RegRole::Lane
                && (lanes..=64).contains(&r.width)
                && (!r.read || matches!(locs[i], RegLoc::Value(_)))
                && (!r.written || plan.has_out[i])
                && plan.lane_outs[i].is_empty();
            if !ok {
                return false;
            }
            continue;
        }
        if r.role == RegRole::Lane {
            // `laneId` only as a lane-bit index (`expr_ok` rejects other reads).
            if r.written {
                return false;
            }
            continue;
        }
        // A 64-bit per-lane register: a VGPR pair, its words in two rows.
        let pair_reg = r.width == 64 && per_lane;
        if !(r.width == 32 || pair_reg) || plan.has_out[i] {
            return false;
        }
        pairs[i] = pair_reg;
        if !per_lane && r.written {
            return false;
        }
        let outs_ok = |o: &LaneOut| {
            if pair_reg {
                (o.shift == 0 || o.shift == 32) && !o.ftz
            } else {
                o.shift == 0
            }
        };
        if !plan.lane_outs[i].iter().all(outs_ok) {
            return false;
        }
        match locs[i] {
            RegLoc::Vgpr {
                pair,
                shift,
                mask,
                ftz,
                ..
            } => {
                let whole = if pair_reg {
                    pair && mask == u64::MAX && !ftz
                } else {
                    !pair && mask >= u32::MAX as u64
                };
                if !per_lane || shift != 0 || !whole {
                    return false;
                }
            }
            // A wave-uniform value (a per-lane register may hold one: a constant operand).
            RegLoc::Value(_) => uniform[i] = !r.written,
            RegLoc::Slot => {
                if r.read {
                    return false;
                }
            }
        }
    }
    let mut cx = Check {
        f,
        bits,
        assigned: vec![false; f.locals.len()],
        uniform,
        pairs,
        gathered: plan.lane_masks.clone(),
    };
    f.body.iter().all(|s| cx.stmt_ok(s))
}

/// The state of [`supported`]'s walk over the statements.
pub(super) struct Check<'f> {
    f: &'f Function,
    /// The registers accessed as lane bits.
    bits: Vec<bool>,
    /// The locals assigned by the statements walked so far.
    assigned: Vec<bool>,
    /// The registers held as wave-uniform values (read as scalars by [`Check::uniform_ok`]).
    pub(super) uniform: Vec<bool>,
    /// The 64-bit per-lane registers (VGPR pairs).
    pairs: Vec<bool>,
    /// The per-lane registers whose bit 0 is gathered into a lane mask.
    gathered: Vec<bool>,
}

impl Check<'_> {
    fn stmt_ok(&mut self, s: &Stmt) -> bool {
        match s {
            Stmt::Assign { place, value, .. } => {
                self.expr_ok(value) && self.place_ok(place, value.ty)
            }
            // `{a, b} = x`: parts of a 64- or 65-bit value, most significant first.
            Stmt::AssignConcat { places, value, .. } => {
                let total: u32 = places.iter().map(|(_, w)| *w).sum();
                if total != value.ty.width() || !self.expr_ok(value) {
                    return false;
                }
                let mut pos = total;
                places.iter().all(|(p, w)| {
                    pos -= w;
                    wide::part_ok(value.ty, pos, *w) && self.place_ok(p, Ty::B(*w))
                })
            }
            _ => false,
        }
    }

    /// Whether a value of type `ty` can be stored into `place`.
    fn place_ok(&mut self, place: &Place, ty: Ty) -> bool {
        if let Some(r) = lane_bit_place(self.f, place) {
            return self.bits.get(r.0 as usize) == Some(&true) && narrow(ty);
        }
        let at = |v: &Vec<bool>, r: RegId| v.get(r.0 as usize).copied().unwrap_or(false);
        match place {
            Place::Reg(r) => {
                !self.bits.get(r.0 as usize).copied().unwrap_or(true)
                    && !at(&self.gathered, *r)
                    && self
                        .f
                        .regs
                        .get(r.0 as usize)
                        .is_some_and(|info| info.role != RegRole::Lane)
                    && if at(&self.pairs, *r) {
                        dword(ty)
                    } else {
                        self.f.regs[r.0 as usize].width == 32 && word(ty)
                    }
            }
            // A constant bit range of a per-lane word (the gathered carry `D1[0 +: 1]`).
            Place::Slice {
                base,
                lo,
                width,
                reversed: false,
            } => {
                let Place::Reg(r) = **base else {
                    return false;
                };
                let Some(info) = self.f.regs.get(r.0 as usize) else {
                    return false;
                };
                info.width == 32
                    && info.role != RegRole::Lane
                    && !at(&self.bits, r)
                    && !at(&self.pairs, r)
                    && *width == ty.width()
                    && (narrow(ty) || word(ty))
                    && !is_f32(ty)
                    && lo.as_const_u64().is_some_and(|l| l + *width as u64 <= 32)
            }
            Place::Local(l) => {
                let ok = self.f.locals.get(l.0 as usize).is_some_and(|info| {
                    info.len.is_none() && info.ty == ty && (word(info.ty) || int(info.ty))
                });
                if ok {
                    self.assigned[l.0 as usize] = true;
                }
                ok
            }
            _ => false,
        }
    }

    pub(super) fn expr_ok(&self, e: &Expr) -> bool {
        let t = e.ty;
        match &e.kind {
            ExprKind::Const(_) => word(t) || int(t),
            ExprKind::Reg(r) => {
                let pair = self.pairs.get(r.0 as usize) == Some(&true);
                (if pair { dword(t) } else { word(t) })
                    && !self.bits.get(r.0 as usize).copied().unwrap_or(true)
                    && self
                        .f
                        .regs
                        .get(r.0 as usize)
                        .is_some_and(|i| i.role != RegRole::Lane)
            }
            ExprKind::Local(l) => {
                self.assigned.get(l.0 as usize) == Some(&true)
                    && self.f.locals[l.0 as usize].ty == t
            }
            ExprKind::Slice { .. } => lane_bit_read(self.f, e)
                .is_some_and(|r| self.bits.get(r.0 as usize) == Some(&true) && narrow(t)),
            ExprKind::Unary { op, arg } => {
                *op == UnOp::BitNot && arg.ty == t && word(t) && !is_f32(t) && self.expr_ok(arg)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                if let Some(ok) = self.wide_binary_ok(*op, lhs, rhs, t) {
                    return ok;
                }
                lhs.ty == t
                    && rhs.ty == t
                    && self.expr_ok(lhs)
                    && self.expr_ok(rhs)
                    && if dword(t) {
                        matches!(
                            op,
                            BinOp::Add | BinOp::Sub | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
                        )
                    } else {
                        word(t)
                            && match op {
                                BinOp::Add | BinOp::Sub | BinOp::Mul => true,
                                BinOp::Div => is_f32(t),
                                BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => !is_f32(t),
                                _ => false,
                            }
                    }
            }
            // Integer compares (as the conditions of selects): 64-bit ones unsigned.
            ExprKind::Cmp { op, lhs, rhs } => {
                t == Ty::Bool
                    && lhs.ty == rhs.ty
                    && ((word(lhs.ty) && !is_f32(lhs.ty))
                        || (dword(lhs.ty)
                            && (!lhs.ty.is_signed()
                                || matches!(op, CmpOp::Eq | CmpOp::Ne | CmpOp::Lg))))
                    && self.expr_ok(lhs)
                    && self.expr_ok(rhs)
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                cond.ty == Ty::Bool
                    && then.ty == t
                    && otherwise.ty == t
                    && (word(t) || int(t))
                    && !wide::tword(t)
                    && self.expr_ok(cond)
                    && self.expr_ok(then)
                    && self.expr_ok(otherwise)
            }
            ExprKind::Convert { conv, arg } => {
                let a = arg.ty;
                self.expr_ok(arg)
                    && match conv {
                        Conv::Resize | Conv::Bitcast if word(t) && word(a) => true,
                        Conv::Bitcast => {
                            (dword(t) && dword(a))
                                || (narrow(t) && narrow(a))
                                || (wide::tword(t) && wide::tword(a))
                        }
                        // Zero extension (signed sources would sign-extend) and truncation.
                        Conv::Resize => {
                            int(t) && int(a) && !a.is_signed() && !is_f32(t) && !is_f32(a)
                        }
                        Conv::ToBool => t == Ty::Bool && int(a) && !wide::tword(a),
                        Conv::FromBool => a == Ty::Bool && int(t) && !wide::tword(t),
                        _ => false,
                    }
            }
            ExprKind::Call { builtin, args } => {
                let arity = match builtin.func {
                    Func::Sqrt => 1,
                    Func::Fma => 3,
                    _ => return false,
                };
                is_f32(t)
                    && args.len() == arity
                    && args.iter().all(|a| is_f32(a.ty) && self.expr_ok(a))
            }
            _ => false,
        }
    }
}
