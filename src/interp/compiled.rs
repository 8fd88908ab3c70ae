//! The interpreter's prepared form: one entry's typed IR compiled once into closures over
//! `u64` slots, for the wave executor's hot path.
//!
//! The tree walk (`Interp`) pays per node for matching, `Bits` values and `Result`s of full
//! error values, and per lane for a fresh frame of locals. Here every register of the entry
//! has a fixed slot range (64 lanes for a per-lane register, one slot otherwise), locals live
//! in a reused buffer, and each IR node is a closure that returns its value as a `u64`.
//! Entries whose values are all at most 64 bits wide and that touch no memory are compiled
//! (`Compiled::new` returns `None` for the others, which keep the tree walk).
//!
//! It must compute exactly the bits the tree walk computes: every node's value has the width
//! of its static type (the compiler rejects IR where the tree walk's value could have another
//! width), arithmetic is `u64` arithmetic masked to that width where that is the same as the
//! `Bits` operation, and everything else (division, shifts, float operations other than
//! round-to-nearest-even `+ - * /`, conversions, built-ins) calls the very functions the
//! tree walk calls. `Bits` of at most 64 bits do not allocate.

use std::cmp::Ordering;

use super::{
    eval_binary, eval_compare, eval_convert, host_arith, round_of, ExecError, ExecErrorKind,
    STEP_BUDGET,
};
use crate::builtins::{self, FpEnv};
use crate::float::Round;
use crate::ir::{
    BinOp, CmpOp, Conv, Expr, ExprKind, Function, LocalId, Place, RegRole, Stmt, Ty, UnOp,
};
use crate::syntax::ast::Span;
use crate::value::{mask64, Bits};

use super::lanes::LaneForm;

pub use super::LANE_SLOTS;

/// Why a run stopped early.
#[derive(Debug)]
pub enum Stop {
    /// A runtime fault, as the tree walk reports it.
    Fault(ExecError),
    /// A built-in returned a value of another width than its type: the tree walk would carry
    /// that width on, so the caller runs the entry on the tree walk instead.
    Diverged,
}

type Fault = Box<Stop>;
type R<T> = std::result::Result<T, Fault>;
type ExprFn = Box<dyn Fn(&mut Ctx<'_>) -> R<u64>>;
type StmtFn = Box<dyn Fn(&mut Ctx<'_>) -> R<Flow>>;
type StoreFn = Box<dyn Fn(&mut Ctx<'_>, u64) -> R<()>>;

/// A compiled value: leaves (constants, register slots, locals) are read in place, other
/// nodes through their closure.
enum Val {
    Const(u64),
    Uniform(usize),
    Lane(usize),
    Local(usize),
    Node(ExprFn),
}

impl Val {
    #[inline(always)]
    fn get(&self, c: &mut Ctx<'_>) -> R<u64> {
        match self {
            Val::Const(v) => Ok(*v),
            Val::Uniform(off) => Ok(c.regs[*off]),
            Val::Lane(off) => Ok(c.regs[*off + c.lane]),
            Val::Local(slot) => Ok(c.locals[*slot]),
            Val::Node(f) => f(c),
        }
    }
}

/// A compiled store: whole registers in place, other places through their closure.
enum Store {
    Uniform(usize, u64),
    Lane(usize, u64),
    Node(StoreFn),
}

impl Store {
    #[inline(always)]
    fn put(&self, c: &mut Ctx<'_>, v: u64) -> R<()> {
        match self {
            Store::Uniform(off, m) => c.regs[*off] = v & m,
            Store::Lane(off, m) => c.regs[*off + c.lane] = v & m,
            Store::Node(f) => return f(c, v),
        }
        Ok(())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flow {
    Normal,
    Break,
    Continue,
    Return,
}

fn fault<T>(kind: ExecErrorKind, span: Span) -> R<T> {
    Err(Box::new(Stop::Fault(ExecError { kind, span })))
}

/// Buffers reused between runs (locals and built-in argument lists), so a run allocates
/// nothing once they have grown.
#[derive(Default)]
pub struct Scratch {
    locals: Vec<u64>,
    args: Vec<Vec<Bits>>,
    lane_args: Vec<Bits>,
}

struct Ctx<'a> {
    regs: &'a mut [u64],
    lane: usize,
    locals: &'a mut [u64],
    args: &'a mut Vec<Vec<Bits>>,
    steps: u64,
    fp: FpEnv,
}

impl Ctx<'_> {
    fn tick(&mut self, span: Span) -> R<()> {
        self.steps += 1;
        if self.steps > STEP_BUDGET {
            return fault(ExecErrorKind::StepBudget, span);
        }
        Ok(())
    }
}

/// One entry's IR compiled into closures over register slots.
pub struct Compiled {
    body: Vec<StmtFn>,
    offsets: Vec<usize>,
    per_lane: Vec<bool>,
    n_slots: usize,
    n_locals: usize,
    round_slot: Option<(usize, bool)>,
    /// The same entry over all lanes at once, when it has that form.
    lanes: Option<LaneForm>,
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("statements", &self.body.len())
            .field("n_slots", &self.n_slots)
            .field("n_locals", &self.n_locals)
            .field("lanes", &self.lanes)
            .finish()
    }
}

impl Compiled {
    /// Compiles `f` whose registers are per lane as `per_lane` says; `None` when it has a
    /// value wider than 64 bits or addresses memory.
    pub fn new(f: &Function, per_lane: &[bool]) -> Option<Compiled> {
        if f.regs.iter().any(|r| r.width > 64 || r.width == 0)
            || f.locals.iter().any(|l| l.ty.width() > 64)
            || per_lane.len() != f.regs.len()
        {
            return None;
        }
        let mut offsets = Vec::with_capacity(f.regs.len());
        let mut n_slots = 0;
        for &pl in per_lane {
            offsets.push(n_slots);
            n_slots += if pl { LANE_SLOTS } else { 1 };
        }
        let mut local_offsets = Vec::with_capacity(f.locals.len());
        let mut n_locals = 0;
        for l in &f.locals {
            local_offsets.push(n_locals);
            n_locals += l.len.unwrap_or(1) as usize;
        }
        let round_slot = f
            .reg("ROUND_MODE")
            .map(|r| (offsets[r.0 as usize], per_lane[r.0 as usize]));
        let c = Compiler {
            f,
            offsets: &offsets,
            per_lane,
            local_offsets: &local_offsets,
            round_slot,
        };
        let body = c.block(&f.body)?;
        let lanes = LaneForm::new(f, per_lane, &offsets, n_slots);
        Some(Compiled {
            body,
            offsets,
            per_lane: per_lane.to_vec(),
            n_slots,
            n_locals,
            round_slot,
            lanes,
        })
    }

    /// The slots a run needs (`run_lanes` or `run_wave`).
    pub fn n_slots(&self) -> usize {
        self.lanes
            .as_ref()
            .map_or(self.n_slots, |l| l.n_slots().max(self.n_slots))
    }

    /// Whether the entry has the lane-vectorized form (`interp::lanes`).
    pub fn has_lane_form(&self) -> bool {
        self.lanes.is_some()
    }

    /// Whether `run_wave` runs the lanes of `lanes` on the lane-vectorized form.
    pub fn uses_lane_form(&self, lanes: u64) -> bool {
        self.lanes.as_ref().is_some_and(|l| l.applies(lanes))
    }

    /// Runs the entry for the lanes of `lanes` like `run_lanes`, on the lane-vectorized form
    /// when the entry has one that applies to this mask. A fault there is reported as
    /// `Stop::Diverged` (the tree walk then reports it exactly).
    ///
    /// # Errors
    /// The first runtime fault, or `Stop::Diverged`.
    pub fn run_wave(
        &self,
        slots: &mut [u64],
        lanes: u64,
        scratch: &mut Scratch,
    ) -> std::result::Result<(), Stop> {
        match &self.lanes {
            Some(form) if form.applies(lanes) => form
                .run(slots, lanes, &mut scratch.lane_args)
                .map_err(|_| Stop::Diverged),
            _ => self.run_lanes(slots, lanes, scratch),
        }
    }

    /// The slot of register `reg` at `lane` (the one slot of a uniform register).
    #[inline]
    pub fn slot(&self, reg: usize, lane: u32) -> usize {
        self.offsets[reg] + if self.per_lane[reg] { lane as usize } else { 0 }
    }

    /// Runs the entry for `lane` over `slots` (`n_slots` long, each value masked to its
    /// register's width).
    ///
    /// # Errors
    /// The first runtime fault, or `Stop::Diverged`.
    pub fn run_lane(
        &self,
        slots: &mut [u64],
        lane: u32,
        scratch: &mut Scratch,
    ) -> std::result::Result<(), Stop> {
        self.run_lanes(slots, 1 << lane.min(63), scratch)
    }

    /// Runs the entry for each lane whose bit is set in `lanes`, in order, as the tree walk
    /// runs a per-lane entry (fresh locals, step count and FP environment per lane).
    ///
    /// # Errors
    /// The first runtime fault, or `Stop::Diverged`.
    pub fn run_lanes(
        &self,
        slots: &mut [u64],
        lanes: u64,
        scratch: &mut Scratch,
    ) -> std::result::Result<(), Stop> {
        scratch.locals.clear();
        scratch.locals.resize(self.n_locals, 0);
        let mut ctx = Ctx {
            regs: slots,
            lane: 0,
            locals: &mut scratch.locals,
            args: &mut scratch.args,
            steps: 0,
            fp: FpEnv::default(),
        };
        let mut rest = lanes;
        while rest != 0 {
            let lane = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            ctx.lane = lane;
            ctx.steps = 0;
            ctx.fp = FpEnv::default();
            ctx.locals.fill(0);
            if let Some((off, pl)) = self.round_slot {
                ctx.fp.round = round_of(ctx.regs[off + if pl { lane } else { 0 }]);
            }
            run_block(&self.body, &mut ctx).map_err(|e| *e)?;
        }
        Ok(())
    }
}

fn run_block(body: &[StmtFn], ctx: &mut Ctx<'_>) -> R<Flow> {
    for s in body {
        match s(ctx)? {
            Flow::Normal => {}
            other => return Ok(other),
        }
    }
    Ok(Flow::Normal)
}

fn bits(width: u32, v: u64) -> Bits {
    Bits::from_u64(width, v)
}

struct Compiler<'a> {
    f: &'a Function,
    offsets: &'a [usize],
    per_lane: &'a [bool],
    local_offsets: &'a [usize],
    round_slot: Option<(usize, bool)>,
}

impl Compiler<'_> {
    fn local_width(&self, l: LocalId) -> u32 {
        self.f.locals[l.0 as usize].ty.width()
    }

    fn block(&self, body: &[Stmt]) -> Option<Vec<StmtFn>> {
        body.iter().map(|s| self.stmt(s)).collect()
    }

    fn stmt(&self, s: &Stmt) -> Option<StmtFn> {
        Some(match s {
            Stmt::Assign { place, value, span } => {
                let span = *span;
                let v = self.expr(value)?;
                let st = self.place_store(place, value.ty.width())?;
                Box::new(move |c| {
                    c.tick(span)?;
                    let x = v.get(c)?;
                    st.put(c, x)?;
                    Ok(Flow::Normal)
                })
            }
            Stmt::AssignConcat {
                places,
                value,
                span,
            } => {
                let span = *span;
                let total = value.ty.width();
                let v = self.expr(value)?;
                let mut parts = Vec::new();
                let mut pos = total as u64;
                for (p, w) in places {
                    pos = pos.checked_sub(*w as u64)?;
                    parts.push((pos, *w, self.place_store(p, *w)?));
                }
                Box::new(move |c| {
                    c.tick(span)?;
                    let x = v.get(c)?;
                    for (pos, w, st) in &parts {
                        st.put(c, bits(total, x).extract(*pos, *w).low_u64())?;
                    }
                    Ok(Flow::Normal)
                })
            }
            Stmt::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                let cond = self.expr(cond)?;
                let then = self.block(then)?;
                let otherwise = self.block(otherwise)?;
                Box::new(move |c| {
                    if cond.get(c)? == 0 {
                        run_block(&otherwise, c)
                    } else {
                        run_block(&then, c)
                    }
                })
            }
            Stmt::For {
                var,
                start,
                end,
                body,
                span,
            } => {
                let span = *span;
                let ty = self.f.locals[var.0 as usize].ty;
                let w = ty.width();
                if start.ty.width() != w || end.ty.width() != w {
                    return None;
                }
                let slot = self.local_offsets[var.0 as usize];
                let (start, end) = (self.expr(start)?, self.expr(end)?);
                let body = self.block(body)?;
                let signed = ty.is_signed();
                Box::new(move |c| {
                    let s = start.get(c)?;
                    let e = end.get(c)?;
                    let greater = if signed {
                        bits(w, s).scmp(&bits(w, e)) == Ordering::Greater
                    } else {
                        s > e
                    };
                    if greater {
                        return Ok(Flow::Normal);
                    }
                    let mut i = s;
                    loop {
                        c.tick(span)?;
                        c.locals[slot] = i;
                        match run_block(&body, c)? {
                            Flow::Break => break,
                            Flow::Return => return Ok(Flow::Return),
                            Flow::Normal | Flow::Continue => {}
                        }
                        if i == e {
                            break;
                        }
                        i = i.wrapping_add(1) & mask64(w);
                    }
                    Ok(Flow::Normal)
                })
            }
            Stmt::While { cond, body, span } => {
                let span = *span;
                let cond = self.expr(cond)?;
                let body = self.block(body)?;
                Box::new(move |c| {
                    loop {
                        c.tick(span)?;
                        if cond.get(c)? == 0 {
                            break;
                        }
                        match run_block(&body, c)? {
                            Flow::Break => break,
                            Flow::Return => return Ok(Flow::Return),
                            Flow::Normal | Flow::Continue => {}
                        }
                    }
                    Ok(Flow::Normal)
                })
            }
            Stmt::Break { .. } => Box::new(|_| Ok(Flow::Break)),
            Stmt::Continue { .. } => Box::new(|_| Ok(Flow::Continue)),
            Stmt::Return { .. } => Box::new(|_| Ok(Flow::Return)),
            Stmt::Effect {
                builtin,
                args,
                span,
            } => {
                let span = *span;
                let builtin = *builtin;
                let args = self.args(args)?;
                Box::new(move |c| {
                    let vals = eval_args(&args, c)?;
                    let r = builtins::effect(&builtin, &vals);
                    c.args.push(vals);
                    if let Err(m) = r {
                        return fault(ExecErrorKind::Unsupported(m), span);
                    }
                    Ok(Flow::Normal)
                })
            }
        })
    }

    fn args(&self, args: &[Expr]) -> Option<Vec<(Val, u32)>> {
        args.iter()
            .map(|a| Some((self.expr(a)?, a.ty.width())))
            .collect()
    }

    /// The width a place holds (the width of the value reading it gives).
    fn place_width(&self, p: &Place) -> Option<u32> {
        match p {
            Place::Reg(r) => Some(self.f.regs[r.0 as usize].width),
            Place::Local(l) | Place::Elem { local: l, .. } => Some(self.local_width(*l)),
            Place::Slice { width, .. } => Some(*width),
            Place::Store { .. } => None,
        }
    }

    /// An array element's slot, checked like the tree walk's `elem`.
    fn elem_index(&self, local: LocalId, index: &Expr, span: Span) -> Option<Val> {
        let info = &self.f.locals[local.0 as usize];
        let len = info.len.unwrap_or(1) as u64;
        let base = self.local_offsets[local.0 as usize] as u64;
        let name = info.name.clone();
        let idx = self.expr(index)?;
        Some(Val::Node(Box::new(move |c| {
            let i = idx.get(c)?;
            if i >= len {
                return fault(
                    ExecErrorKind::OutOfRange(format!("index {i} of `{name}[{len}]`")),
                    span,
                );
            }
            Ok(base + i)
        })))
    }

    /// Reads a place for read-modify-write (the tree walk's `read_place`).
    fn place_read(&self, p: &Place) -> Option<Val> {
        Some(match p {
            Place::Reg(r) => self.reg_read(r.0 as usize),
            Place::Local(l) => Val::Local(self.local_offsets[l.0 as usize]),
            Place::Elem { local, index } => {
                let at = self.elem_index(*local, index, Span::default())?;
                Val::Node(Box::new(move |c| {
                    let i = at.get(c)? as usize;
                    Ok(c.locals[i])
                }))
            }
            Place::Slice {
                base,
                lo,
                width,
                reversed,
            } => {
                let bw = self.place_width(base)?;
                let b = self.place_read(base)?;
                let lo = self.expr(lo)?;
                let (width, reversed) = (*width, *reversed);
                Val::Node(Box::new(move |c| {
                    let old = b.get(c)?;
                    let lo = lo.get(c)?;
                    let v = bits(bw, old).extract(lo, width);
                    Ok(if reversed { v.reverse() } else { v }.low_u64())
                }))
            }
            Place::Store { .. } => return None,
        })
    }

    /// Stores a value of width `vw` into a place (the tree walk's `store`).
    fn place_store(&self, p: &Place, vw: u32) -> Option<Store> {
        Some(match p {
            Place::Reg(r) => {
                let i = r.0 as usize;
                let (off, pl) = (self.offsets[i], self.per_lane[i]);
                let m = mask64(self.f.regs[i].width);
                let round = self.round_slot == Some((off, pl));
                match (pl, round) {
                    (true, false) => Store::Lane(off, m),
                    (false, false) => Store::Uniform(off, m),
                    (_, true) => Store::Node(Box::new(move |c, v| {
                        let at = off + if pl { c.lane } else { 0 };
                        c.regs[at] = v & m;
                        c.fp.round = round_of(c.regs[at]);
                        Ok(())
                    })),
                }
            }
            Place::Local(l) => {
                if vw != self.local_width(*l) {
                    return None;
                }
                let slot = self.local_offsets[l.0 as usize];
                Store::Node(Box::new(move |c, v| {
                    c.locals[slot] = v;
                    Ok(())
                }))
            }
            Place::Elem { local, index } => {
                if vw != self.local_width(*local) {
                    return None;
                }
                let at = self.elem_index(*local, index, Span::default())?;
                Store::Node(Box::new(move |c, v| {
                    let i = at.get(c)? as usize;
                    c.locals[i] = v;
                    Ok(())
                }))
            }
            Place::Slice {
                base,
                lo,
                width,
                reversed,
            } => {
                let bw = self.place_width(base)?;
                let lo = self.expr(lo)?;
                let read = self.place_read(base)?;
                let store = self.place_store(base, bw)?;
                let (width, reversed) = (*width, *reversed);
                Store::Node(Box::new(move |c, v| {
                    let lo = lo.get(c)?;
                    let old = read.get(c)?;
                    let v = bits(vw, v);
                    let v = if reversed { v.zext(width).reverse() } else { v };
                    let new = bits(bw, old).insert(lo, width, &v).low_u64();
                    store.put(c, new)
                }))
            }
            Place::Store { .. } => return None,
        })
    }

    fn reg_read(&self, i: usize) -> Val {
        let off = self.offsets[i];
        if self.per_lane[i] {
            Val::Lane(off)
        } else {
            Val::Uniform(off)
        }
    }

    fn expr(&self, e: &Expr) -> Option<Val> {
        let w = e.ty.width();
        if w > 64 || w == 0 {
            return None;
        }
        let m = mask64(w);
        Some(Val::Node(match &e.kind {
            ExprKind::Const(b) => {
                if b.width() != w {
                    return None;
                }
                return Some(Val::Const(b.low_u64()));
            }
            ExprKind::Reg(r) => {
                let i = r.0 as usize;
                if self.f.regs[i].role == RegRole::Lane {
                    Box::new(move |c| Ok(c.lane as u64 & m))
                } else if self.f.regs[i].width != w {
                    return None;
                } else {
                    return Some(self.reg_read(i));
                }
            }
            ExprKind::Local(l) => {
                if self.local_width(*l) != w {
                    return None;
                }
                return Some(Val::Local(self.local_offsets[l.0 as usize]));
            }
            ExprKind::Elem { local, index } => {
                if self.local_width(*local) != w {
                    return None;
                }
                let at = self.elem_index(*local, index, e.span)?;
                Box::new(move |c| {
                    let i = at.get(c)? as usize;
                    Ok(c.locals[i])
                })
            }
            ExprKind::Unary { op, arg } => {
                let aw = arg.ty.width();
                let a = self.expr(arg)?;
                match (op, e.ty) {
                    (UnOp::Neg, Ty::F(f)) => {
                        let fmt = f.format();
                        Box::new(move |c| Ok(crate::float::neg(fmt, a.get(c)?) & m))
                    }
                    (UnOp::Neg, _) if aw == w => {
                        Box::new(move |c| Ok(a.get(c)?.wrapping_neg() & m))
                    }
                    (UnOp::BitNot, _) if aw == w => Box::new(move |c| Ok(!a.get(c)? & m)),
                    (UnOp::Not, _) if w == 1 => Box::new(move |c| Ok((a.get(c)? == 0) as u64)),
                    _ => return None,
                }
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, e.ty, lhs, rhs)?,
            ExprKind::Cmp { op, lhs, rhs } => {
                if w != 1 {
                    return None;
                }
                let (lw, rw) = (lhs.ty.width(), rhs.ty.width());
                let ty = lhs.ty;
                let (a, b) = (self.expr(lhs)?, self.expr(rhs)?);
                let op = *op;
                match ty {
                    Ty::F(_) => Box::new(move |c| {
                        let (x, y) = (a.get(c)?, b.get(c)?);
                        Ok(eval_compare(op, ty, &bits(lw, x), &bits(rw, y), &mut c.fp) as u64)
                    }),
                    _ if ty.is_signed() => Box::new(move |c| {
                        let (x, y) = (a.get(c)?, b.get(c)?);
                        Ok(eval_compare(op, ty, &bits(lw, x), &bits(rw, y), &mut c.fp) as u64)
                    }),
                    _ => {
                        let f: fn(u64, u64) -> bool = match op {
                            CmpOp::Eq => |x, y| x == y,
                            CmpOp::Ne | CmpOp::Lg => |x, y| x != y,
                            CmpOp::Lt => |x, y| x < y,
                            CmpOp::Le => |x, y| x <= y,
                            CmpOp::Gt => |x, y| x > y,
                            CmpOp::Ge => |x, y| x >= y,
                        };
                        Box::new(move |c| {
                            let x = a.get(c)?;
                            Ok(f(x, b.get(c)?) as u64)
                        })
                    }
                }
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                if then.ty.width() != w || otherwise.ty.width() != w {
                    return None;
                }
                let (k, t, o) = (self.expr(cond)?, self.expr(then)?, self.expr(otherwise)?);
                Box::new(move |c| if k.get(c)? == 0 { o.get(c) } else { t.get(c) })
            }
            ExprKind::Convert { conv, arg } => {
                let (from, to) = (arg.ty, e.ty);
                let fw = from.width();
                let a = self.expr(arg)?;
                match conv {
                    Conv::Bitcast if fw == w => return Some(a),
                    Conv::Bitcast => Box::new(move |c| Ok(a.get(c)? & m)),
                    Conv::Resize if !from.is_signed() || w <= fw => {
                        Box::new(move |c| Ok(a.get(c)? & m))
                    }
                    Conv::ToBool if w != 1 => return None,
                    Conv::Resize => {
                        let sign = 1u64 << (fw - 1);
                        Box::new(move |c| {
                            let x = a.get(c)?;
                            Ok(if x & sign != 0 { x | !mask64(fw) } else { x } & m)
                        })
                    }
                    _ => {
                        let conv = *conv;
                        Box::new(move |c| {
                            let x = a.get(c)?;
                            Ok(eval_convert(conv, from, to, &bits(fw, x), &mut c.fp).low_u64())
                        })
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
                let (a, lo) = (self.expr(arg)?, self.expr(lo)?);
                let reversed = *reversed;
                Box::new(move |c| {
                    let x = a.get(c)?;
                    let lo = lo.get(c)?;
                    let v = bits(aw, x).extract(lo, w);
                    Ok(if reversed { v.reverse() } else { v }.low_u64())
                })
            }
            ExprKind::Concat(parts) => {
                if parts.iter().map(|p| p.ty.width()).sum::<u32>() != w {
                    return None;
                }
                let parts = self.args(parts)?;
                Box::new(move |c| {
                    let mut v = 0u64;
                    for (p, pw) in &parts {
                        let x = p.get(c)?;
                        v = if *pw >= 64 { 0 } else { v << pw } | x;
                    }
                    Ok(v & m)
                })
            }
            ExprKind::Call { builtin, args } => {
                let builtin = *builtin;
                let args = self.args(args)?;
                let (ty, span) = (e.ty, e.span);
                Box::new(move |c| {
                    let vals = eval_args(&args, c)?;
                    let r = builtins::call(&builtin, &vals, ty, &mut c.fp);
                    c.args.push(vals);
                    match r {
                        Ok(b) if b.width() == w => Ok(b.low_u64()),
                        Ok(_) => Err(Box::new(Stop::Diverged)),
                        Err(m) => fault(ExecErrorKind::Unsupported(m), span),
                    }
                })
            }
            ExprKind::Load { .. } => return None,
        }))
    }

    fn binary(&self, op: BinOp, ty: Ty, lhs: &Expr, rhs: &Expr) -> Option<ExprFn> {
        let w = ty.width();
        let m = mask64(w);
        let (lw, rw) = (lhs.ty.width(), rhs.ty.width());
        let (a, b) = (self.expr(lhs)?, self.expr(rhs)?);
        Some(match op {
            BinOp::And if w == 1 => Box::new(move |c| {
                if a.get(c)? == 0 {
                    return Ok(0);
                }
                Ok((b.get(c)? != 0) as u64)
            }),
            BinOp::Or if w == 1 => Box::new(move |c| {
                if a.get(c)? != 0 {
                    return Ok(1);
                }
                Ok((b.get(c)? != 0) as u64)
            }),
            BinOp::And | BinOp::Or => return None,
            _ if matches!(ty, Ty::F(_)) => {
                let Ty::F(f) = ty else { return None };
                if f.width() != w {
                    return None;
                }
                Box::new(move |c| {
                    let (x, y) = (a.get(c)?, b.get(c)?);
                    if c.fp.round == Round::NearestEven {
                        if let Some(r) = host_arith(f, op, x, y) {
                            return Ok(r & m);
                        }
                    }
                    eval_binary(op, ty, &bits(lw, x), &bits(rw, y), &mut c.fp)
                        .map(|r| r.low_u64())
                        .map_err(|e| Box::new(Stop::Fault(e)))
                })
            }
            // Integer results have the left operand's width.
            _ if lw != w => return None,
            BinOp::Add => Box::new(move |c| Ok(a.get(c)?.wrapping_add(b.get(c)?) & m)),
            BinOp::Sub => Box::new(move |c| Ok(a.get(c)?.wrapping_sub(b.get(c)?) & m)),
            BinOp::Mul => Box::new(move |c| Ok(a.get(c)?.wrapping_mul(b.get(c)?) & m)),
            BinOp::BitAnd => Box::new(move |c| Ok(a.get(c)? & b.get(c)?)),
            BinOp::BitOr => Box::new(move |c| Ok((a.get(c)? | b.get(c)?) & m)),
            BinOp::BitXor => Box::new(move |c| Ok((a.get(c)? ^ b.get(c)?) & m)),
            _ => Box::new(move |c| {
                let (x, y) = (a.get(c)?, b.get(c)?);
                eval_binary(op, ty, &bits(lw, x), &bits(rw, y), &mut c.fp)
                    .map(|r| r.low_u64())
                    .map_err(|e| Box::new(Stop::Fault(e)))
            }),
        })
    }
}

/// Evaluates built-in arguments into a list from the scratch pool (given back by the caller).
fn eval_args(args: &[(Val, u32)], c: &mut Ctx<'_>) -> R<Vec<Bits>> {
    let mut vals = c.args.pop().unwrap_or_default();
    vals.clear();
    for (a, w) in args {
        match a.get(c) {
            Ok(x) => vals.push(bits(*w, x)),
            Err(e) => {
                c.args.push(vals);
                return Err(e);
            }
        }
    }
    Ok(vals)
}
