//! The interpreter's lane-vectorized form: one entry's IR compiled into closures that each
//! process every active lane of the wave, so closure dispatch is paid once per node and
//! instruction, not once per node and lane.
//!
//! `compiled.rs` runs the whole entry for one lane, then the next, over closures returning
//! one `u64`. Here each IR node owns a row of 64 temporary slots (one slot when its operands
//! are all wave-uniform: such a node is computed once) and fills it for the lanes of a mask;
//! `if` narrows the mask for its branches, as do `?:`, `&&` and `||` (an operand is only
//! evaluated for the lanes that would evaluate it one lane at a time). Register slots have
//! the layout of `Compiled` (a per-lane register is a row of 64 slots, a uniform one a single
//! slot), locals are rows too, and the temporaries follow them in the same buffer.
//!
//! Running statement by statement over all lanes instead of lane by lane gives the same bits
//! when lanes share nothing they write: entries that write a uniform register are run this
//! way only for a single lane (`LaneForm::run` says so); the FP environment's flags are never
//! read back and its rounding mode comes from a `ROUND_MODE` the entry does not write (or
//! the form is not built). Loops, `break`/`continue`/`return`, side effects, array elements
//! and concatenated stores are left to `compiled.rs`. On any fault or divergence the run
//! stops and the caller hands the instruction to the tree walk, which reports it exactly.

use super::{eval_binary, eval_compare, eval_convert, host_arith, round_of};
use crate::builtins::{self, FpEnv};
use crate::float::Round;
use crate::ir::{
    BinOp, CmpOp, Conv, Expr, ExprKind, FloatTy, Function, Place, RegRole, Stmt, Ty, UnOp,
};
use crate::value::{mask64, Bits};

use super::LANE_SLOTS;

/// A run stopped: a fault, or a built-in result of another width than its type. Nothing the
/// caller can use was computed; it runs the instruction on the tree walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GiveUp;

type R<T> = std::result::Result<T, GiveUp>;
type NodeFn = Box<dyn Fn(&mut Ctx<'_>, u64) -> R<()>>;
type StmtFn = Box<dyn Fn(&mut Ctx<'_>, u64) -> R<()>>;

struct Ctx<'a> {
    buf: &'a mut [u64],
    fp: FpEnv,
    args: &'a mut Vec<Bits>,
}

/// Where a node's value is: a constant, one slot (wave-uniform), a row of lane slots, or the
/// lane's index.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Const(u64),
    Uni(usize),
    Lanes(usize),
    LaneId(u64),
}

impl Op {
    #[inline(always)]
    fn at(self, buf: &[u64], lane: usize) -> u64 {
        match self {
            Op::Const(v) => v,
            Op::Uni(off) => buf[off],
            Op::Lanes(off) => buf[off + lane],
            Op::LaneId(m) => lane as u64 & m,
        }
    }

    fn uniform(self) -> bool {
        matches!(self, Op::Const(_) | Op::Uni(_))
    }
}

/// A compiled expression: where its value is, and the closure that computes it (none for
/// leaves read in place).
struct VExpr {
    op: Op,
    run: Option<NodeFn>,
}

impl VExpr {
    #[inline(always)]
    fn eval(&self, c: &mut Ctx<'_>, mask: u64) -> R<()> {
        match &self.run {
            Some(f) => f(c, mask),
            None => Ok(()),
        }
    }

    fn leaf(op: Op) -> VExpr {
        VExpr { op, run: None }
    }
}

/// Calls `f` for each lane of `mask`, lowest first.
#[inline(always)]
fn for_lanes(mask: u64, mut f: impl FnMut(usize) -> R<()>) -> R<()> {
    let mut rest = mask;
    while rest != 0 {
        let lane = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        f(lane)?;
    }
    Ok(())
}

/// The lanes of `mask` where `op` is non-zero.
#[inline(always)]
fn true_lanes(op: Op, buf: &[u64], mask: u64) -> u64 {
    if op.uniform() {
        if mask != 0 && op.at(buf, 0) != 0 {
            return mask;
        }
        return 0;
    }
    let mut out = 0;
    let mut rest = mask;
    while rest != 0 {
        let lane = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if op.at(buf, lane) != 0 {
            out |= 1 << lane;
        }
    }
    out
}

/// One entry's IR compiled to run over all active lanes at once.
pub struct LaneForm {
    body: Vec<StmtFn>,
    n_slots: usize,
    locals: (usize, usize),
    writes_uniform: bool,
    round_slot: Option<usize>,
}

impl std::fmt::Debug for LaneForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaneForm")
            .field("statements", &self.body.len())
            .field("n_slots", &self.n_slots)
            .field("writes_uniform", &self.writes_uniform)
            .finish()
    }
}

impl LaneForm {
    /// Compiles `f` with its registers at `offsets` (as `Compiled` lays them out, `n_reg_slots`
    /// in all); `None` when the entry has a construct this form leaves to `compiled.rs`.
    pub fn new(
        f: &Function,
        per_lane: &[bool],
        offsets: &[usize],
        n_reg_slots: usize,
    ) -> Option<LaneForm> {
        let mut local_offsets = Vec::with_capacity(f.locals.len());
        let mut next = n_reg_slots;
        for l in &f.locals {
            local_offsets.push(next);
            next += l.len.unwrap_or(1) as usize * LANE_SLOTS;
        }
        let locals = (n_reg_slots, next - n_reg_slots);
        let round = f.reg("ROUND_MODE").map(|r| r.0 as usize);
        if round.is_some_and(|r| per_lane[r]) {
            return None;
        }
        let mut c = Compiler {
            f,
            offsets,
            per_lane,
            local_offsets,
            next,
            round,
            writes_uniform: false,
        };
        let body = c.block(&f.body)?;
        Some(LaneForm {
            body,
            n_slots: c.next,
            locals,
            writes_uniform: c.writes_uniform,
            round_slot: round.map(|r| offsets[r]),
        })
    }

    /// The slots a run needs: the registers', then locals and temporaries.
    pub fn n_slots(&self) -> usize {
        self.n_slots
    }

    /// Whether this form runs the lanes of `lanes` exactly as one lane after another would.
    pub fn applies(&self, lanes: u64) -> bool {
        !self.writes_uniform || lanes.count_ones() <= 1
    }

    /// Runs the entry for the lanes of `lanes` over `slots` (`n_slots` long, registers
    /// bound as for `Compiled::run_lanes`).
    ///
    /// # Errors
    /// [`GiveUp`] on a fault or a diverging built-in: the registers are then undefined.
    pub fn run(&self, slots: &mut [u64], lanes: u64, args: &mut Vec<Bits>) -> R<()> {
        // Locals start at zero in the lanes that run (each row up to the highest of them).
        let (start, len) = self.locals;
        let upto = (64 - lanes.leading_zeros()) as usize;
        for row in slots[start..start + len].chunks_mut(LANE_SLOTS) {
            row[..upto].fill(0);
        }
        let mut fp = FpEnv::default();
        if let Some(off) = self.round_slot {
            fp.round = round_of(slots[off]);
        }
        let mut ctx = Ctx {
            buf: slots,
            fp,
            args,
        };
        for s in &self.body {
            s(&mut ctx, lanes)?;
        }
        Ok(())
    }
}

struct Compiler<'a> {
    f: &'a Function,
    offsets: &'a [usize],
    per_lane: &'a [bool],
    local_offsets: Vec<usize>,
    next: usize,
    round: Option<usize>,
    writes_uniform: bool,
}

impl Compiler<'_> {
    fn temp(&mut self) -> usize {
        let at = self.next;
        self.next += LANE_SLOTS;
        at
    }

    fn local_width(&self, l: crate::ir::LocalId) -> Option<u32> {
        let info = &self.f.locals[l.0 as usize];
        if info.len.is_some_and(|n| n != 1) {
            return None;
        }
        let w = info.ty.width();
        (w > 0 && w <= 64).then_some(w)
    }

    fn block(&mut self, body: &[Stmt]) -> Option<Vec<StmtFn>> {
        body.iter().map(|s| self.stmt(s)).collect()
    }

    fn stmt(&mut self, s: &Stmt) -> Option<StmtFn> {
        match s {
            Stmt::Assign { place, value, .. } => self.assign(place, value),
            Stmt::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                let cond = self.expr(cond, None)?;
                let then = self.block(then)?;
                let otherwise = self.block(otherwise)?;
                Some(Box::new(move |c, mask| {
                    cond.eval(c, mask)?;
                    let yes = true_lanes(cond.op, c.buf, mask);
                    let no = mask & !yes;
                    if yes != 0 {
                        for s in &then {
                            s(c, yes)?;
                        }
                    }
                    if no != 0 {
                        for s in &otherwise {
                            s(c, no)?;
                        }
                    }
                    Ok(())
                }))
            }
            _ => None,
        }
    }

    fn assign(&mut self, place: &Place, value: &Expr) -> Option<StmtFn> {
        let vw = value.ty.width();
        match place {
            Place::Reg(r) => {
                let i = r.0 as usize;
                if Some(i) == self.round {
                    return None;
                }
                let (off, pl) = (self.offsets[i], self.per_lane[i]);
                let rw = self.f.regs[i].width;
                let m = mask64(rw);
                if !pl {
                    self.writes_uniform = true;
                    let v = self.expr(value, None)?;
                    return Some(Box::new(move |c, mask| {
                        v.eval(c, mask)?;
                        if mask != 0 {
                            let lane = mask.trailing_zeros() as usize;
                            let x = v.op.at(c.buf, lane) & m;
                            c.buf[off] = x;
                        }
                        Ok(())
                    }));
                }
                // A value of the register's width is computed straight into its row.
                let hint = (vw == rw).then_some(off);
                let v = self.expr(value, hint)?;
                Some(store_row(v, off, m))
            }
            Place::Local(l) => {
                if self.local_width(*l)? != vw {
                    return None;
                }
                let off = self.local_offsets[l.0 as usize];
                let v = self.expr(value, Some(off))?;
                Some(store_row(v, off, u64::MAX))
            }
            Place::Slice {
                base,
                lo,
                width,
                reversed,
            } => {
                let (base_op, bw, row) = match &**base {
                    Place::Reg(r) => {
                        let i = r.0 as usize;
                        if Some(i) == self.round {
                            return None;
                        }
                        if !self.per_lane[i] {
                            self.writes_uniform = true;
                        }
                        let off = self.offsets[i];
                        let op = if self.per_lane[i] {
                            Op::Lanes(off)
                        } else {
                            Op::Uni(off)
                        };
                        (op, self.f.regs[i].width, self.per_lane[i])
                    }
                    Place::Local(l) => {
                        let off = self.local_offsets[l.0 as usize];
                        (Op::Lanes(off), self.local_width(*l)?, true)
                    }
                    _ => return None,
                };
                let lo = self.expr(lo, None)?;
                let v = self.expr(value, None)?;
                let (width, reversed) = (*width, *reversed);
                let (Op::Uni(at) | Op::Lanes(at)) = base_op else {
                    return None;
                };
                let bm = mask64(bw);
                Some(Box::new(move |c, mask| {
                    lo.eval(c, mask)?;
                    v.eval(c, mask)?;
                    for_lanes(mask, |lane| {
                        let old = base_op.at(c.buf, lane);
                        let lo = lo.op.at(c.buf, lane);
                        let x = Bits::from_u64(vw, v.op.at(c.buf, lane));
                        let x = if reversed { x.zext(width).reverse() } else { x };
                        let new = Bits::from_u64(bw, old).insert(lo, width, &x).low_u64();
                        c.buf[at + if row { lane } else { 0 }] = new & bm;
                        Ok(())
                    })
                }))
            }
            _ => None,
        }
    }

    /// Compiles `e`; a per-lane node writes its lanes at `into` when given (a row the value
    /// is stored to: each lane reads its operands before writing its own slot).
    fn expr(&mut self, e: &Expr, into: Option<usize>) -> Option<VExpr> {
        let w = e.ty.width();
        if w > 64 || w == 0 {
            return None;
        }
        let m = mask64(w);
        match &e.kind {
            ExprKind::Const(b) => {
                (b.width() == w).then_some(())?;
                Some(VExpr::leaf(Op::Const(b.low_u64())))
            }
            ExprKind::Reg(r) => {
                let i = r.0 as usize;
                if self.f.regs[i].role == RegRole::Lane {
                    return Some(VExpr::leaf(Op::LaneId(m)));
                }
                (self.f.regs[i].width == w).then_some(())?;
                let off = self.offsets[i];
                Some(VExpr::leaf(if self.per_lane[i] {
                    Op::Lanes(off)
                } else {
                    Op::Uni(off)
                }))
            }
            ExprKind::Local(l) => {
                (self.local_width(*l)? == w).then_some(())?;
                Some(VExpr::leaf(Op::Lanes(self.local_offsets[l.0 as usize])))
            }
            ExprKind::Unary { op, arg } => {
                let aw = arg.ty.width();
                let a = self.expr(arg, None)?;
                match (op, e.ty) {
                    (UnOp::Neg, Ty::F(f)) => {
                        let fmt = f.format();
                        Some(self.map(vec![a], into, move |x, _| {
                            Ok(crate::float::neg(fmt, x[0]) & m)
                        }))
                    }
                    (UnOp::Neg, _) if aw == w => {
                        Some(self.map(vec![a], into, move |x, _| Ok(x[0].wrapping_neg() & m)))
                    }
                    (UnOp::BitNot, _) if aw == w => {
                        Some(self.map(vec![a], into, move |x, _| Ok(!x[0] & m)))
                    }
                    (UnOp::Not, _) if w == 1 => {
                        Some(self.map(vec![a], into, move |x, _| Ok((x[0] == 0) as u64)))
                    }
                    _ => None,
                }
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, e.ty, lhs, rhs, into),
            ExprKind::Cmp { op, lhs, rhs } => {
                if w != 1 {
                    return None;
                }
                let (lw, rw) = (lhs.ty.width(), rhs.ty.width());
                let ty = lhs.ty;
                let (a, b) = (self.expr(lhs, None)?, self.expr(rhs, None)?);
                let op = *op;
                if matches!(ty, Ty::F(_)) || ty.is_signed() {
                    return Some(self.map(vec![a, b], into, move |x, c| {
                        let (p, q) = (Bits::from_u64(lw, x[0]), Bits::from_u64(rw, x[1]));
                        Ok(eval_compare(op, ty, &p, &q, c.fp) as u64)
                    }));
                }
                Some(match op {
                    CmpOp::Eq => self.map(vec![a, b], into, |x, _| Ok((x[0] == x[1]) as u64)),
                    CmpOp::Ne | CmpOp::Lg => {
                        self.map(vec![a, b], into, |x, _| Ok((x[0] != x[1]) as u64))
                    }
                    CmpOp::Lt => self.map(vec![a, b], into, |x, _| Ok((x[0] < x[1]) as u64)),
                    CmpOp::Le => self.map(vec![a, b], into, |x, _| Ok((x[0] <= x[1]) as u64)),
                    CmpOp::Gt => self.map(vec![a, b], into, |x, _| Ok((x[0] > x[1]) as u64)),
                    CmpOp::Ge => self.map(vec![a, b], into, |x, _| Ok((x[0] >= x[1]) as u64)),
                })
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                if then.ty.width() != w || otherwise.ty.width() != w {
                    return None;
                }
                let k = self.expr(cond, None)?;
                let t = self.expr(then, None)?;
                let o = self.expr(otherwise, None)?;
                Some(self.pick(k, t, o, into))
            }
            ExprKind::Convert { conv, arg } => {
                let (from, to) = (arg.ty, e.ty);
                let fw = from.width();
                let a = self.expr(arg, into)?;
                match conv {
                    Conv::Bitcast if fw == w => Some(a),
                    Conv::Bitcast => Some(self.map(vec![a], into, move |x, _| Ok(x[0] & m))),
                    Conv::Resize if !from.is_signed() || w <= fw => {
                        Some(self.map(vec![a], into, move |x, _| Ok(x[0] & m)))
                    }
                    Conv::ToBool if w != 1 => None,
                    Conv::Resize => {
                        let sign = 1u64 << (fw - 1);
                        Some(self.map(vec![a], into, move |x, _| {
                            let x = x[0];
                            Ok(if x & sign != 0 { x | !mask64(fw) } else { x } & m)
                        }))
                    }
                    _ => {
                        let conv = *conv;
                        Some(self.map(vec![a], into, move |x, c| {
                            let b = Bits::from_u64(fw, x[0]);
                            Ok(eval_convert(conv, from, to, &b, c.fp).low_u64())
                        }))
                    }
                }
            }
            ExprKind::Slice {
                arg,
                lo,
                width,
                reversed,
            } => {
                let aw = arg.ty.width();
                if *width != w {
                    return None;
                }
                let (a, lo) = (self.expr(arg, None)?, self.expr(lo, None)?);
                let reversed = *reversed;
                Some(self.map(vec![a, lo], into, move |x, _| {
                    let v = Bits::from_u64(aw, x[0]).extract(x[1], w);
                    Ok(if reversed { v.reverse() } else { v }.low_u64())
                }))
            }
            ExprKind::Concat(parts) => {
                if parts.iter().map(|p| p.ty.width()).sum::<u32>() != w {
                    return None;
                }
                let widths: Vec<u32> = parts.iter().map(|p| p.ty.width()).collect();
                let parts = parts
                    .iter()
                    .map(|p| self.expr(p, None))
                    .collect::<Option<Vec<_>>>()?;
                Some(self.map(parts, into, move |x, _| {
                    let mut v = 0u64;
                    for (x, pw) in x.iter().zip(&widths) {
                        v = if *pw >= 64 { 0 } else { v << pw } | x;
                    }
                    Ok(v & m)
                }))
            }
            // `SignExt` to 64 bits (the built-in's result width) as a shift-free mask.
            ExprKind::Call { builtin, args }
                if builtin.func == crate::ir::builtins::Func::SignExt
                    && args.len() == 1
                    && w == 64 =>
            {
                let aw = args[0].ty.width();
                let a = self.expr(&args[0], None)?;
                let (sign, high) = (1u64 << (aw - 1), !mask64(aw));
                Some(self.map(vec![a], into, move |x, _| {
                    let x = x[0];
                    Ok(if x & sign != 0 { x | high } else { x })
                }))
            }
            ExprKind::Call { builtin, args } => {
                let builtin = *builtin;
                let widths: Vec<u32> = args.iter().map(|a| a.ty.width()).collect();
                let args = args
                    .iter()
                    .map(|a| self.expr(a, None))
                    .collect::<Option<Vec<_>>>()?;
                let ty = e.ty;
                Some(self.map(args, into, move |x, c| {
                    c.args.clear();
                    for (x, aw) in x.iter().zip(&widths) {
                        c.args.push(Bits::from_u64(*aw, *x));
                    }
                    match builtins::call(&builtin, &c.args[..], ty, c.fp) {
                        Ok(b) if b.width() == w => Ok(b.low_u64()),
                        _ => Err(GiveUp),
                    }
                }))
            }
            ExprKind::Elem { .. } | ExprKind::Load { .. } => None,
        }
    }

    fn binary(
        &mut self,
        op: BinOp,
        ty: Ty,
        lhs: &Expr,
        rhs: &Expr,
        into: Option<usize>,
    ) -> Option<VExpr> {
        let w = ty.width();
        let m = mask64(w);
        let (lw, rw) = (lhs.ty.width(), rhs.ty.width());
        let a = self.expr(lhs, None)?;
        let b = self.expr(rhs, None)?;
        Some(match op {
            // `&&` and `||` evaluate the right operand only where the left does not decide.
            BinOp::And | BinOp::Or if w == 1 => {
                let and = op == BinOp::And;
                let tb = VExpr::leaf(Op::Const(1));
                let fb = VExpr::leaf(Op::Const(0));
                let rhs_bool = self.map(vec![b], None, |x, _| Ok((x[0] != 0) as u64));
                if and {
                    self.pick(a, rhs_bool, fb, into)
                } else {
                    self.pick(a, tb, rhs_bool, into)
                }
            }
            BinOp::And | BinOp::Or => return None,
            _ if matches!(ty, Ty::F(_)) => {
                let Ty::F(f) = ty else { return None };
                if f.width() != w {
                    return None;
                }
                let host = matches!(f, FloatTy::F32 | FloatTy::F64)
                    && matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div)
                    && !(a.op.uniform() && b.op.uniform());
                if host {
                    return Some(self.host_float(f, op, a, b, into));
                }
                self.map(vec![a, b], into, move |x, c| {
                    if c.fp.round == Round::NearestEven {
                        if let Some(r) = host_arith(f, op, x[0], x[1]) {
                            return Ok(r & m);
                        }
                    }
                    let (p, q) = (Bits::from_u64(lw, x[0]), Bits::from_u64(rw, x[1]));
                    eval_binary(op, ty, &p, &q, c.fp)
                        .map(|r| r.low_u64())
                        .map_err(|_| GiveUp)
                })
            }
            // Integer results have the left operand's width.
            _ if lw != w => return None,
            BinOp::Add => self.map(
                vec![a, b],
                into,
                move |x, _| Ok(x[0].wrapping_add(x[1]) & m),
            ),
            BinOp::Sub => self.map(
                vec![a, b],
                into,
                move |x, _| Ok(x[0].wrapping_sub(x[1]) & m),
            ),
            BinOp::Mul => self.map(
                vec![a, b],
                into,
                move |x, _| Ok(x[0].wrapping_mul(x[1]) & m),
            ),
            BinOp::BitAnd => self.map(vec![a, b], into, |x, _| Ok(x[0] & x[1])),
            BinOp::BitOr => self.map(vec![a, b], into, move |x, _| Ok((x[0] | x[1]) & m)),
            BinOp::BitXor => self.map(vec![a, b], into, move |x, _| Ok((x[0] ^ x[1]) & m)),
            _ => self.map(vec![a, b], into, move |x, c| {
                let (p, q) = (Bits::from_u64(lw, x[0]), Bits::from_u64(rw, x[1]));
                eval_binary(op, ty, &p, &q, c.fp)
                    .map(|r| r.low_u64())
                    .map_err(|_| GiveUp)
            }),
        })
    }

    /// f32/f64 `+ - * /` of two per-lane operands: under round-to-nearest-even (checked once
    /// per run) the host's operation lane by lane, a NaN result taken from `host_arith` (the
    /// spec's NaN rule); in other rounding modes `eval_binary`, as the lane-by-lane form does.
    fn host_float(
        &mut self,
        f: FloatTy,
        op: BinOp,
        a: VExpr,
        b: VExpr,
        into: Option<usize>,
    ) -> VExpr {
        let ty = Ty::F(f);
        let w = f.width();
        let out = into.unwrap_or_else(|| self.temp());
        let (ao, bo) = (a.op, b.op);
        let run: NodeFn = Box::new(move |c, mask| {
            a.eval(c, mask)?;
            b.eval(c, mask)?;
            let buf = &mut *c.buf;
            if c.fp.round != Round::NearestEven {
                let fp = &mut c.fp;
                return for_lanes(mask, |lane| {
                    let p = Bits::from_u64(w, ao.at(buf, lane));
                    let q = Bits::from_u64(w, bo.at(buf, lane));
                    let r = eval_binary(op, ty, &p, &q, fp).map_err(|_| GiveUp)?;
                    buf[out + lane] = r.low_u64();
                    Ok(())
                });
            }
            // One loop per format and operator, the operation inlined in it.
            macro_rules! lanes {
                ($t:ty, $from:expr, $to:expr, $g:expr) => {
                    for_lanes(mask, |lane| {
                        let (x, y) = (ao.at(buf, lane), bo.at(buf, lane));
                        let r: $t = $g($from(x), $from(y));
                        buf[out + lane] = if r.is_nan() {
                            host_arith(f, op, x, y).ok_or(GiveUp)?
                        } else {
                            $to(r)
                        };
                        Ok(())
                    })
                };
            }
            let f32_of = |x: u64| f32::from_bits(x as u32);
            let f32_bits = |r: f32| r.to_bits() as u64;
            let f64_bits = |r: f64| r.to_bits();
            match (f, op) {
                (FloatTy::F32, BinOp::Add) => lanes!(f32, f32_of, f32_bits, |x, y| x + y),
                (FloatTy::F32, BinOp::Sub) => lanes!(f32, f32_of, f32_bits, |x, y| x - y),
                (FloatTy::F32, BinOp::Mul) => lanes!(f32, f32_of, f32_bits, |x, y| x * y),
                (FloatTy::F32, _) => lanes!(f32, f32_of, f32_bits, |x, y| x / y),
                (_, BinOp::Add) => lanes!(f64, f64::from_bits, f64_bits, |x, y| x + y),
                (_, BinOp::Sub) => lanes!(f64, f64::from_bits, f64_bits, |x, y| x - y),
                (_, BinOp::Mul) => lanes!(f64, f64::from_bits, f64_bits, |x, y| x * y),
                _ => lanes!(f64, f64::from_bits, f64_bits, |x, y| x / y),
            }
        });
        VExpr {
            op: Op::Lanes(out),
            run: Some(run),
        }
    }

    /// A node computing `f` of its operands' values lane by lane (once when they are all
    /// wave-uniform), into its own row or `into`.
    fn map<F>(&mut self, args: Vec<VExpr>, into: Option<usize>, f: F) -> VExpr
    where
        F: Fn(&[u64], &mut Lane<'_, '_>) -> R<u64> + 'static,
    {
        let uniform = args.iter().all(|a| a.op.uniform());
        let out = match into {
            Some(at) if !uniform => at,
            _ => self.temp(),
        };
        let ops: Vec<Op> = args.iter().map(|a| a.op).collect();
        let n = ops.len();
        let run: NodeFn = match n {
            1 | 2 => {
                let (a0, a1) = (ops[0], ops.get(1).copied().unwrap_or(Op::Const(0)));
                Box::new(move |c, mask| {
                    for a in &args {
                        a.eval(c, mask)?;
                    }
                    let mut lane_ctx = Lane {
                        fp: &mut c.fp,
                        args: &mut *c.args,
                    };
                    if uniform {
                        if mask != 0 {
                            let x = [a0.at(c.buf, 0), a1.at(c.buf, 0)];
                            c.buf[out] = f(&x[..n], &mut lane_ctx)?;
                        }
                        return Ok(());
                    }
                    let buf = &mut *c.buf;
                    for_lanes(mask, |lane| {
                        let x = [a0.at(buf, lane), a1.at(buf, lane)];
                        buf[out + lane] = f(&x[..n], &mut lane_ctx)?;
                        Ok(())
                    })
                })
            }
            _ => Box::new(move |c, mask| {
                for a in &args {
                    a.eval(c, mask)?;
                }
                let mut lane_ctx = Lane {
                    fp: &mut c.fp,
                    args: &mut *c.args,
                };
                let mut x = [0u64; 16];
                let x = x.get_mut(..n).ok_or(GiveUp)?;
                let buf = &mut *c.buf;
                let lanes = if uniform {
                    mask & mask.wrapping_neg()
                } else {
                    mask
                };
                for_lanes(lanes, |lane| {
                    for (x, op) in x.iter_mut().zip(&ops) {
                        *x = op.at(buf, lane);
                    }
                    let v = f(x, &mut lane_ctx)?;
                    buf[out + if uniform { 0 } else { lane }] = v;
                    Ok(())
                })
            }),
        };
        VExpr {
            op: if uniform {
                Op::Uni(out)
            } else {
                Op::Lanes(out)
            },
            run: Some(run),
        }
    }

    /// `k ? t : o` lane by lane, each side evaluated only for the lanes that take it.
    fn pick(&mut self, k: VExpr, t: VExpr, o: VExpr, into: Option<usize>) -> VExpr {
        let all_uniform = k.op.uniform() && t.op.uniform() && o.op.uniform();
        let out = match into {
            Some(at) if !all_uniform => at,
            _ => self.temp(),
        };
        let run: NodeFn = Box::new(move |c, mask| {
            k.eval(c, mask)?;
            let yes = true_lanes(k.op, c.buf, mask);
            let no = mask & !yes;
            if yes != 0 {
                t.eval(c, yes)?;
            }
            if no != 0 {
                o.eval(c, no)?;
            }
            if all_uniform {
                if mask != 0 {
                    let x = if yes != 0 {
                        t.op.at(c.buf, 0)
                    } else {
                        o.op.at(c.buf, 0)
                    };
                    c.buf[out] = x;
                }
                return Ok(());
            }
            for_lanes(mask, |lane| {
                let side = if yes >> lane & 1 == 1 { t.op } else { o.op };
                let x = side.at(c.buf, lane);
                c.buf[out + lane] = x;
                Ok(())
            })
        });
        VExpr {
            op: if all_uniform {
                Op::Uni(out)
            } else {
                Op::Lanes(out)
            },
            run: Some(run),
        }
    }
}

/// What a lane's computation may use besides its operands.
struct Lane<'a, 'b> {
    fp: &'a mut FpEnv,
    args: &'b mut Vec<Bits>,
}

/// Stores a value into a row of lane slots (masked by `m`), unless it was computed there.
fn store_row(v: VExpr, off: usize, m: u64) -> StmtFn {
    if v.op == Op::Lanes(off) {
        return Box::new(move |c, mask| v.eval(c, mask));
    }
    Box::new(move |c, mask| {
        v.eval(c, mask)?;
        let op = v.op;
        let buf = &mut *c.buf;
        for_lanes(mask, |lane| {
            let x = op.at(buf, lane) & m;
            buf[off + lane] = x;
            Ok(())
        })
    })
}
