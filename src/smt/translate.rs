//! The typed IR as SMT terms: a symbolic twin of `crate::interp`. Values are constants or
//! terms; an operation whose operands are all constant is computed by the interpreter's own
//! functions (so folding cannot drift from it), the others become terms. Control flow is
//! guarded: every write is `ite(live, new, old)` where `live` says this statement is reached,
//! and `break`/`continue`/`return` move `live` into their own flags. Loops with constant
//! bounds unroll completely; `while` loops unroll up to a bound and fail past it.

use crate::builtins::{self as interp_builtins, FpEnv};
use crate::interp::{eval_binary, eval_compare, eval_convert};
use crate::ir::{
    BinOp, CmpOp, Conv, Expr, ExprKind, Function, LocalId, Place, RegId, RegRole, Space, Stmt, Ty,
    UnOp,
};
use crate::value::Bits;

use super::fp;
use super::term::{self, and, bool_to_bv, bv_to_bool, bvop, bvpred, ite, not, or, Term};
pub use super::unsupported::Unsupported;

type R<T> = Result<T, Unsupported>;

fn unsupported<T>(m: impl Into<String>) -> R<T> {
    Err(Unsupported(m.into()))
}

/// A symbolic value: a constant, or a bit-vector term of the IR type's width.
#[derive(Clone, Debug)]
pub enum Val {
    /// A known value.
    C(Bits),
    /// A term.
    T(Term),
}

impl Val {
    /// The value as a term.
    pub fn term(&self) -> Term {
        match self {
            Val::C(b) => Term::bv(b),
            Val::T(t) => t.clone(),
        }
    }

    /// A term, folded back to a constant when it is one.
    pub fn of(t: Term) -> Val {
        match t.as_bv() {
            Some(b) => Val::C(b.clone()),
            None => Val::T(t),
        }
    }

    /// The width.
    pub fn width(&self) -> u32 {
        match self {
            Val::C(b) => b.width(),
            Val::T(t) => t.width(),
        }
    }

    /// The constant, if known.
    pub fn konst(&self) -> Option<&Bits> {
        match self {
            Val::C(b) => Some(b),
            Val::T(_) => None,
        }
    }

    /// The non-zero test as a boolean term.
    pub fn truth(&self) -> Term {
        bv_to_bool(&self.term())
    }

    /// Zero-extended or truncated.
    pub fn zext(&self, w: u32) -> Val {
        match self {
            Val::C(b) => Val::C(b.zext(w)),
            Val::T(t) => Val::of(term::zext(t, w)),
        }
    }
}

/// `ite(c, a, b)` on values.
pub fn select(c: &Term, a: &Val, b: &Val) -> Val {
    match c.as_bool() {
        Some(true) => a.clone(),
        Some(false) => b.clone(),
        None => match (a, b) {
            (Val::C(x), Val::C(y)) if x == y => a.clone(),
            _ => Val::of(ite(c, &a.term(), &b.term())),
        },
    }
}

/// A register's value during symbolic execution.
#[derive(Clone, Debug)]
pub enum SymReg {
    /// One value for the wave.
    Uniform(Val),
    /// One value per lane.
    Lanes(Vec<Val>),
}

/// The register files and memory as a symbolic execution sees them.
pub trait SymMemory {
    /// Reads `width` bits.
    ///
    /// # Errors
    /// Accesses the model does not translate.
    fn load(&mut self, space: Space, lane: &Val, addr: &Val, width: u32) -> R<Val>;
    /// Writes `value` where `guard` holds.
    ///
    /// # Errors
    /// Accesses the model does not translate.
    fn store(&mut self, space: Space, lane: &Val, addr: &Val, value: &Val, guard: &Term) -> R<()>;
}

/// No register file and no memory: single ALU instructions.
pub struct NoMemory;

impl SymMemory for NoMemory {
    fn load(&mut self, space: Space, _: &Val, _: &Val, _: u32) -> R<Val> {
        unsupported(format!(
            "reads {space:?} (the instruction addresses a register file or memory)"
        ))
    }
    fn store(&mut self, space: Space, _: &Val, _: &Val, _: &Val, _: &Term) -> R<()> {
        unsupported(format!(
            "writes {space:?} (the instruction addresses a register file or memory)"
        ))
    }
}

/// Limits of the translation.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Iterations a `while` loop whose condition stays symbolic is unrolled.
    pub while_unroll: u32,
    /// Iterations of a constant-bound `for` loop.
    pub for_iterations: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            while_unroll: 130,
            for_iterations: 1 << 16,
        }
    }
}

#[derive(Clone)]
enum Local {
    Scalar(Val),
    Array(Vec<Val>),
}

/// Runs `f` symbolically for one lane (the value of `laneId`), starting reached where
/// `guard` holds. `regs` holds one value per function register, updated in place.
///
/// # Errors
/// The first construct the translation does not model.
pub fn run_lane(
    f: &Function,
    regs: &mut [SymReg],
    lane: u32,
    guard: Term,
    memory: &mut dyn SymMemory,
    limits: Limits,
) -> R<()> {
    let mut s = Sym {
        f,
        regs,
        lane,
        locals: vec![None; f.locals.len()],
        live: guard,
        brk: Term::bool(false),
        cont: Term::bool(false),
        ret: Term::bool(false),
        memory,
        limits,
        round_reg: f.reg("ROUND_MODE"),
    };
    s.block(&f.body)
}

struct Sym<'f, 'r, 'm> {
    f: &'f Function,
    regs: &'r mut [SymReg],
    lane: u32,
    locals: Vec<Option<Local>>,
    live: Term,
    brk: Term,
    cont: Term,
    ret: Term,
    memory: &'m mut dyn SymMemory,
    limits: Limits,
    round_reg: Option<RegId>,
}

fn round_of(mode: u64) -> crate::float::Round {
    use crate::float::Round;
    match mode & 3 {
        0 => Round::NearestEven,
        1 => Round::Up,
        2 => Round::Down,
        _ => Round::TowardZero,
    }
}

fn is_float(t: Ty) -> bool {
    matches!(t, Ty::F(_))
}

impl Sym<'_, '_, '_> {
    fn dead(&self) -> bool {
        self.live.as_bool() == Some(false)
    }

    fn guarded(&self, new: Val, old: Val) -> Val {
        select(&self.live, &new, &old)
    }

    fn reg(&self, r: RegId) -> Val {
        let w = self.f.regs[r.0 as usize].width;
        match &self.regs[r.0 as usize] {
            SymReg::Uniform(v) => v.clone(),
            SymReg::Lanes(v) => v
                .get(self.lane as usize)
                .cloned()
                .unwrap_or_else(|| Val::C(Bits::zero(w))),
        }
    }

    fn set_reg(&mut self, r: RegId, v: Val) {
        let old = self.reg(r);
        let new = self.guarded(v, old);
        let lane = self.lane as usize;
        match &mut self.regs[r.0 as usize] {
            SymReg::Uniform(b) => *b = new,
            SymReg::Lanes(l) => {
                if let Some(slot) = l.get_mut(lane) {
                    *slot = new;
                }
            }
        }
    }

    /// The rounding mode: a constant when `ROUND_MODE` is known (or absent).
    fn round_const(&self) -> Option<crate::float::Round> {
        match self.round_reg {
            None => Some(crate::float::Round::NearestEven),
            Some(r) => self.reg(r).konst().map(|b| round_of(b.low_u64())),
        }
    }

    fn rm(&self) -> Term {
        match self.round_reg {
            None => fp::rm_const(0),
            Some(r) => fp::rm_of(&self.reg(r).term()),
        }
    }

    fn fp_env(&self) -> Option<FpEnv> {
        self.round_const().map(|round| FpEnv {
            round,
            ..FpEnv::default()
        })
    }

    fn local(&self, l: LocalId) -> Val {
        match &self.locals[l.0 as usize] {
            Some(Local::Scalar(v)) => v.clone(),
            _ => Val::C(Bits::zero(self.f.locals[l.0 as usize].ty.width())),
        }
    }

    fn array(&mut self, l: LocalId) -> &mut Vec<Val> {
        let info = &self.f.locals[l.0 as usize];
        let len = info.len.unwrap_or(1) as usize;
        let width = info.ty.width();
        let slot = &mut self.locals[l.0 as usize];
        if !matches!(slot, Some(Local::Array(_))) {
            *slot = Some(Local::Array(vec![Val::C(Bits::zero(width)); len]));
        }
        match slot {
            Some(Local::Array(v)) => v,
            _ => unreachable!("bug: array local just initialised"),
        }
    }

    fn elem_read(&mut self, l: LocalId, index: &Val) -> R<Val> {
        let name = self.f.locals[l.0 as usize].name.clone();
        let arr = self.array(l).clone();
        match index.konst() {
            Some(i) => arr
                .get(i.low_u64() as usize)
                .cloned()
                .ok_or_else(|| Unsupported(format!("index {} of `{name}` faults", i.low_u64()))),
            None => {
                let idx = index.term();
                let mut v = arr.last().cloned().unwrap_or(Val::C(Bits::zero(1)));
                for (i, e) in arr.iter().enumerate().rev().skip(1) {
                    let c = term::eq(&idx, &Term::bv_u64(idx.width(), i as u64));
                    v = select(&c, e, &v);
                }
                Ok(v)
            }
        }
    }

    fn block(&mut self, body: &[Stmt]) -> R<()> {
        for s in body {
            if self.dead() {
                break;
            }
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> R<()> {
        match s {
            Stmt::Assign { place, value, .. } => {
                let v = self.eval(value)?;
                self.store(place, v)
            }
            Stmt::AssignConcat { places, value, .. } => {
                let v = self.eval(value)?;
                let mut pos = v.width();
                for (p, w) in places {
                    pos -= *w;
                    let part = match &v {
                        Val::C(b) => Val::C(b.extract(pos as u64, *w)),
                        Val::T(t) => Val::of(term::extract(t, pos, *w)),
                    };
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
                let c = self.eval(cond)?.truth();
                match c.as_bool() {
                    Some(true) => self.block(then),
                    Some(false) => self.block(otherwise),
                    None => {
                        // Both arms from the same state, merged by the condition (reads in
                        // the second arm then see the values before the first).
                        let live0 = self.live.clone();
                        let (regs0, locals0) = (self.regs.to_vec(), self.locals.clone());
                        self.live = and(&live0, &c);
                        self.block(then)?;
                        let after_then = std::mem::replace(&mut self.live, and(&live0, &not(&c)));
                        let regs_t = self.regs.to_vec();
                        self.regs.clone_from_slice(&regs0);
                        let locals_t = std::mem::replace(&mut self.locals, locals0);
                        self.block(otherwise)?;
                        for (r, t) in self.regs.iter_mut().zip(regs_t) {
                            *r = merge_reg(&c, &t, r);
                        }
                        for (i, t) in locals_t.into_iter().enumerate() {
                            let width = self.f.locals[i].ty.width();
                            self.locals[i] = merge_local(&c, t, self.locals[i].take(), width);
                        }
                        self.live = or(&after_then, &self.live);
                        Ok(())
                    }
                }
            }
            Stmt::For {
                var,
                start,
                end,
                body,
                ..
            } => {
                let ty = self.f.locals[var.0 as usize].ty;
                let (s, e) = (self.eval(start)?, self.eval(end)?);
                let (Some(s), Some(e)) = (s.konst().cloned(), e.konst().cloned()) else {
                    return unsupported("a `for` loop with a bound that depends on the inputs");
                };
                let greater = if ty.is_signed() {
                    s.scmp(&e) == std::cmp::Ordering::Greater
                } else {
                    s.ucmp(&e) == std::cmp::Ordering::Greater
                };
                if greater {
                    return Ok(());
                }
                if e.sub(&s).zext(64.max(e.width())).ucmp(&Bits::from_u64(
                    64.max(e.width()),
                    self.limits.for_iterations,
                )) == std::cmp::Ordering::Greater
                {
                    return unsupported("a `for` loop of more than 65,536 iterations");
                }
                let (outer_brk, outer_cont) = (
                    std::mem::replace(&mut self.brk, Term::bool(false)),
                    self.cont.clone(),
                );
                let mut i = s;
                loop {
                    if self.dead() {
                        break;
                    }
                    self.cont = Term::bool(false);
                    let old = self.local(*var);
                    self.locals[var.0 as usize] =
                        Some(Local::Scalar(self.guarded(Val::C(i.clone()), old)));
                    self.block(body)?;
                    self.live = or(&self.live, &self.cont);
                    if i == e {
                        break;
                    }
                    i = i.add(&Bits::from_u64(i.width(), 1));
                }
                self.live = or(&self.live, &self.brk);
                self.brk = outer_brk;
                self.cont = outer_cont;
                Ok(())
            }
            Stmt::While { cond, body, .. } => {
                let (outer_brk, outer_cont) = (
                    std::mem::replace(&mut self.brk, Term::bool(false)),
                    self.cont.clone(),
                );
                let mut exited = Term::bool(false);
                let mut n = 0;
                loop {
                    if self.dead() {
                        break;
                    }
                    if n == self.limits.while_unroll {
                        return unsupported(format!(
                            "a `while` loop that may run more than {} iterations",
                            self.limits.while_unroll
                        ));
                    }
                    n += 1;
                    let c = self.eval(cond)?.truth();
                    exited = or(&exited, &and(&self.live, &not(&c)));
                    self.live = and(&self.live, &c);
                    if self.dead() {
                        break;
                    }
                    self.cont = Term::bool(false);
                    self.block(body)?;
                    self.live = or(&self.live, &self.cont);
                }
                self.live = or(&exited, &self.brk);
                self.brk = outer_brk;
                self.cont = outer_cont;
                Ok(())
            }
            Stmt::Break { .. } => {
                self.brk = or(&self.brk, &self.live);
                self.live = Term::bool(false);
                Ok(())
            }
            Stmt::Continue { .. } => {
                self.cont = or(&self.cont, &self.live);
                self.live = Term::bool(false);
                Ok(())
            }
            Stmt::Return { .. } => {
                self.ret = or(&self.ret, &self.live);
                self.live = Term::bool(false);
                Ok(())
            }
            Stmt::Effect { builtin, args, .. } => {
                for a in args {
                    self.eval(a)?;
                }
                match builtin.func {
                    crate::ir::builtins::Func::Nop => Ok(()),
                    other => unsupported(format!("the effect {other:?}")),
                }
            }
        }
    }

    fn read_place(&mut self, p: &Place) -> R<Val> {
        match p {
            Place::Reg(r) => Ok(self.reg(*r)),
            Place::Local(l) => Ok(self.local(*l)),
            Place::Elem { local, index } => {
                let i = self.eval(index)?;
                self.elem_read(*local, &i)
            }
            Place::Slice {
                base,
                lo,
                width,
                reversed,
            } => {
                let b = self.read_place(base)?;
                let lo = self.eval(lo)?;
                let v = slice(&b, &lo, *width);
                Ok(if *reversed { reverse(&v) } else { v })
            }
            Place::Store {
                space,
                addr,
                lane,
                width,
            } => {
                let a = self.eval(addr)?;
                let l = self.lane_of(lane.as_ref())?;
                self.memory.load(*space, &l, &a, *width)
            }
        }
    }

    fn lane_of(&mut self, lane: Option<&Expr>) -> R<Val> {
        match lane {
            None => Ok(Val::C(Bits::from_u64(32, self.lane as u64))),
            Some(l) => self.eval(l),
        }
    }

    fn store(&mut self, p: &Place, v: Val) -> R<()> {
        match p {
            Place::Reg(r) => {
                let w = self.f.regs[r.0 as usize].width;
                self.set_reg(*r, v.zext(w));
                Ok(())
            }
            Place::Local(l) => {
                let old = self.local(*l);
                self.locals[l.0 as usize] = Some(Local::Scalar(self.guarded(v, old)));
                Ok(())
            }
            Place::Elem { local, index } => {
                let i = self.eval(index)?;
                let live = self.live.clone();
                let name = self.f.locals[local.0 as usize].name.clone();
                let arr = self.array(*local);
                match i.konst() {
                    Some(k) => {
                        let k = k.low_u64() as usize;
                        let Some(slot) = arr.get_mut(k) else {
                            return unsupported(format!("index {k} of `{name}` faults"));
                        };
                        *slot = select(&live, &v, slot);
                    }
                    None => {
                        let idx = i.term();
                        for (k, slot) in arr.iter_mut().enumerate() {
                            let c =
                                and(&live, &term::eq(&idx, &Term::bv_u64(idx.width(), k as u64)));
                            *slot = select(&c, &v, slot);
                        }
                    }
                }
                Ok(())
            }
            Place::Slice {
                base,
                lo,
                width,
                reversed,
            } => {
                let lo = self.eval(lo)?;
                let old = self.read_place(base)?;
                let v = if *reversed {
                    reverse(&v.zext(*width))
                } else {
                    v
                };
                let new = insert(&old, &lo, *width, &v);
                self.store(base, new)
            }
            Place::Store {
                space, addr, lane, ..
            } => {
                let a = self.eval(addr)?;
                let l = self.lane_of(lane.as_ref())?;
                let live = self.live.clone();
                self.memory.store(*space, &l, &a, &v, &live)
            }
        }
    }

    fn eval(&mut self, e: &Expr) -> R<Val> {
        match &e.kind {
            ExprKind::Const(b) => Ok(Val::C(b.clone())),
            ExprKind::Reg(r) => {
                if self.f.regs[r.0 as usize].role == RegRole::Lane {
                    return Ok(Val::C(Bits::from_u64(e.ty.width(), self.lane as u64)));
                }
                Ok(self.reg(*r))
            }
            ExprKind::Local(l) => Ok(self.local(*l)),
            ExprKind::Elem { local, index } => {
                let i = self.eval(index)?;
                self.elem_read(*local, &i)
            }
            ExprKind::Unary { op, arg } => {
                let a = self.eval(arg)?;
                if let Val::C(a) = &a {
                    return Ok(Val::C(match (op, e.ty) {
                        (UnOp::Neg, Ty::F(f)) => {
                            Bits::from_u64(f.width(), crate::float::neg(f.format(), a.low_u64()))
                        }
                        (UnOp::Neg, _) => a.neg(),
                        (UnOp::BitNot, _) => a.not(),
                        (UnOp::Not, _) => Bits::from_u64(1, a.is_zero() as u64),
                    }));
                }
                let t = a.term();
                Ok(Val::of(match (op, e.ty) {
                    (UnOp::Neg, Ty::F(f)) => {
                        fp::check(f)?;
                        fp::neg(f, &t)
                    }
                    (UnOp::Neg, _) => bvop("bvneg", &[&t]),
                    (UnOp::BitNot, _) => bvop("bvnot", &[&t]),
                    (UnOp::Not, _) => bool_to_bv(&not(&bv_to_bool(&t))),
                }))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                if matches!(op, BinOp::And | BinOp::Or) {
                    let a = self.eval(lhs)?;
                    if let Some(k) = a.konst() {
                        let decided = if *op == BinOp::And {
                            k.is_zero()
                        } else {
                            !k.is_zero()
                        };
                        if decided {
                            return Ok(Val::C(Bits::from_u64(1, !k.is_zero() as u64)));
                        }
                        let b = self.eval(rhs)?;
                        return Ok(Val::of(bool_to_bv(&b.truth())));
                    }
                    let b = self.eval(rhs)?;
                    let (x, y) = (a.truth(), b.truth());
                    let r = if *op == BinOp::And {
                        and(&x, &y)
                    } else {
                        or(&x, &y)
                    };
                    return Ok(Val::of(bool_to_bv(&r)));
                }
                let a = self.eval(lhs)?;
                let b = self.eval(rhs)?;
                if let (Val::C(x), Val::C(y)) = (&a, &b) {
                    if !is_float(e.ty) || self.round_const().is_some() {
                        let mut env = self.fp_env().unwrap_or_default();
                        return eval_binary(*op, e.ty, x, y, &mut env)
                            .map(Val::C)
                            .map_err(|er| Unsupported(er.to_string()));
                    }
                }
                self.binary(*op, e.ty, &a.term(), &b.term()).map(Val::of)
            }
            ExprKind::Cmp { op, lhs, rhs } => {
                let a = self.eval(lhs)?;
                let b = self.eval(rhs)?;
                if let (Val::C(x), Val::C(y)) = (&a, &b) {
                    let mut env = FpEnv::default();
                    let r = eval_compare(*op, lhs.ty, x, y, &mut env);
                    return Ok(Val::C(Bits::from_u64(1, r as u64)));
                }
                let (x, y) = (a.term(), b.term());
                let r = match lhs.ty {
                    Ty::F(f) => {
                        fp::check(f)?;
                        fp::compare(*op, f, &x, &y)
                    }
                    t => int_compare(*op, t.is_signed(), &x, &y),
                };
                Ok(Val::of(bool_to_bv(&r)))
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                let c = self.eval(cond)?.truth();
                match c.as_bool() {
                    Some(true) => self.eval(then),
                    Some(false) => self.eval(otherwise),
                    None => {
                        let a = self.eval(then)?;
                        let b = self.eval(otherwise)?;
                        Ok(select(&c, &a, &b))
                    }
                }
            }
            ExprKind::Convert { conv, arg } => {
                let a = self.eval(arg)?;
                if let Val::C(x) = &a {
                    if let Some(mut env) = self.fp_env() {
                        return Ok(Val::C(eval_convert(*conv, arg.ty, e.ty, x, &mut env)));
                    }
                }
                let rm = self.rm();
                convert(*conv, arg.ty, e.ty, &a.term(), &rm).map(Val::of)
            }
            ExprKind::Slice {
                arg,
                lo,
                width,
                reversed,
            } => {
                let a = self.eval(arg)?;
                let lo = self.eval(lo)?;
                let v = slice(&a, &lo, *width);
                Ok(if *reversed { reverse(&v) } else { v })
            }
            ExprKind::Concat(parts) => {
                let vals = parts.iter().map(|p| self.eval(p)).collect::<R<Vec<_>>>()?;
                if vals.iter().all(|v| v.konst().is_some()) {
                    let bits: Vec<Bits> = vals.iter().filter_map(|v| v.konst().cloned()).collect();
                    return Ok(Val::C(Bits::concat(&bits)));
                }
                let terms: Vec<Term> = vals.iter().map(Val::term).collect();
                Ok(Val::of(term::concat(&terms)))
            }
            ExprKind::Call { builtin, args } => {
                let vals = args.iter().map(|a| self.eval(a)).collect::<R<Vec<_>>>()?;
                if vals.iter().all(|v| v.konst().is_some()) {
                    if let Some(mut env) = self.fp_env() {
                        let bits: Vec<Bits> =
                            vals.iter().filter_map(|v| v.konst().cloned()).collect();
                        return interp_builtins::call(builtin, &bits, e.ty, &mut env)
                            .map(Val::C)
                            .map_err(Unsupported);
                    }
                }
                let terms: Vec<Term> = vals.iter().map(Val::term).collect();
                let rm = self.rm();
                super::builtins::call(builtin, &terms, e.ty, &rm).map(Val::of)
            }
            ExprKind::Load { space, addr, lane } => {
                let a = self.eval(addr)?;
                let l = self.lane_of(lane.as_deref())?;
                self.memory.load(*space, &l, &a, e.ty.width())
            }
        }
    }

    fn binary(&self, op: BinOp, ty: Ty, a: &Term, b: &Term) -> R<Term> {
        if let Ty::F(f) = ty {
            fp::check(f)?;
            let rm = self.rm();
            let name = match op {
                BinOp::Add => "fp.add",
                BinOp::Sub => "fp.sub",
                BinOp::Mul => "fp.mul",
                BinOp::Div => "fp.div",
                BinOp::Pow => return unsupported("float `**` (approximate on hardware)"),
                _ => return unsupported(format!("{op:?} on floats")),
            };
            return Ok(fp::arith(name, f, &rm, a, b));
        }
        let signed = ty.is_signed();
        let zero = Term::bv(&Bits::zero(a.width()));
        Ok(match op {
            BinOp::Add => bvop("bvadd", &[a, b]),
            BinOp::Sub => bvop("bvsub", &[a, b]),
            BinOp::Mul => bvop("bvmul", &[a, b]),
            BinOp::Div if signed => ite(
                &term::eq(b, &zero),
                &Term::bv(&Bits::zero(a.width()).not()),
                &bvop("bvsdiv", &[a, b]),
            ),
            BinOp::Div => bvop("bvudiv", &[a, b]),
            BinOp::Rem if signed => ite(&term::eq(b, &zero), a, &bvop("bvsrem", &[a, b])),
            BinOp::Rem => bvop("bvurem", &[a, b]),
            BinOp::Pow => return unsupported("integer `**`"),
            BinOp::Shl => bvop("bvshl", &[a, &shift_amount(b, a.width())]),
            BinOp::Shr if signed => bvop("bvashr", &[a, &shift_amount(b, a.width())]),
            BinOp::Shr => bvop("bvlshr", &[a, &shift_amount(b, a.width())]),
            BinOp::BitAnd => bvop("bvand", &[a, b]),
            BinOp::BitOr => bvop("bvor", &[a, b]),
            BinOp::BitXor => bvop("bvxor", &[a, b]),
            BinOp::And | BinOp::Or => unreachable!("bug: logical operators handled before"),
        })
    }
}

fn merge_reg(c: &Term, a: &SymReg, b: &SymReg) -> SymReg {
    match (a, b) {
        (SymReg::Uniform(x), SymReg::Uniform(y)) => SymReg::Uniform(select(c, x, y)),
        (SymReg::Lanes(x), SymReg::Lanes(y)) => {
            SymReg::Lanes(x.iter().zip(y).map(|(p, q)| select(c, p, q)).collect())
        }
        _ => b.clone(),
    }
}

fn merge_local(c: &Term, a: Option<Local>, b: Option<Local>, width: u32) -> Option<Local> {
    let zero = || Val::C(Bits::zero(width));
    match (a, b) {
        (None, None) => None,
        (Some(Local::Array(x)), Some(Local::Array(y))) => Some(Local::Array(
            x.iter().zip(&y).map(|(p, q)| select(c, p, q)).collect(),
        )),
        (Some(Local::Array(x)), None) => Some(Local::Array(
            x.iter().map(|p| select(c, p, &zero())).collect(),
        )),
        (None, Some(Local::Array(y))) => Some(Local::Array(
            y.iter().map(|q| select(c, &zero(), q)).collect(),
        )),
        (a, b) => {
            let v = |l: Option<Local>| match l {
                Some(Local::Scalar(v)) => v,
                _ => zero(),
            };
            Some(Local::Scalar(select(c, &v(a), &v(b))))
        }
    }
}

/// A shift amount `b` brought to width `w`, saturating (amounts at or past `w` shift
/// everything out, as the interpreter's).
pub fn shift_amount(b: &Term, w: u32) -> Term {
    let bw = b.width();
    if bw <= w {
        return term::zext(b, w);
    }
    let ones = Bits::zero(w).not();
    let limit = Term::bv(&ones.zext(bw));
    ite(
        &bvpred("bvugt", b, &limit),
        &Term::bv(&ones),
        &term::extract(b, 0, w),
    )
}

/// A comparison of integers.
pub fn int_compare(op: CmpOp, signed: bool, x: &Term, y: &Term) -> Term {
    let (lt, le) = if signed {
        ("bvslt", "bvsle")
    } else {
        ("bvult", "bvule")
    };
    match op {
        CmpOp::Eq => term::eq(x, y),
        CmpOp::Ne | CmpOp::Lg => not(&term::eq(x, y)),
        CmpOp::Lt => bvpred(lt, x, y),
        CmpOp::Le => bvpred(le, x, y),
        CmpOp::Gt => bvpred(lt, y, x),
        CmpOp::Ge => bvpred(le, y, x),
    }
}

/// `width` bits of `a` from bit `lo` (bits past the top read as zero).
pub fn slice(a: &Val, lo: &Val, width: u32) -> Val {
    if let (Val::C(x), Some(l)) = (a, lo.konst()) {
        return Val::C(x.extract(l.low_u64(), width));
    }
    let t = a.term();
    let w = t.width();
    match lo.konst() {
        Some(l) => {
            let l = l.low_u64();
            if l >= w as u64 {
                return Val::C(Bits::zero(width));
            }
            let l = l as u32;
            let wide = term::zext(&t, w.max(l + width));
            Val::of(term::extract(&wide, l, width))
        }
        None => {
            let big = w + width;
            let wide = term::zext(&t, big);
            let amount = shift_amount(&lo.term(), big);
            Val::of(term::extract(&bvop("bvlshr", &[&wide, &amount]), 0, width))
        }
    }
}

/// `old` with bits `lo .. lo + width` replaced by `v` (bits past the top dropped).
pub fn insert(old: &Val, lo: &Val, width: u32, v: &Val) -> Val {
    if let (Val::C(o), Some(l), Val::C(x)) = (old, lo.konst(), v) {
        return Val::C(o.insert(l.low_u64(), width, x));
    }
    let w = old.width();
    let big = w + width;
    let mask = Term::bv(&Bits::zero(width).not().zext(big));
    let value = bvop("bvand", &[&term::zext(&v.term(), big), &mask]);
    let amount = match lo.konst() {
        Some(l) => Term::bv_u64(big, l.low_u64().min(big as u64)),
        None => shift_amount(&lo.term(), big),
    };
    let o = term::zext(&old.term(), big);
    let cleared = bvop(
        "bvand",
        &[&o, &bvop("bvnot", &[&bvop("bvshl", &[&mask, &amount])])],
    );
    let new = bvop("bvor", &[&cleared, &bvop("bvshl", &[&value, &amount])]);
    Val::of(term::zext(&new, w))
}

/// The bits of `v` in reverse order.
pub fn reverse(v: &Val) -> Val {
    match v {
        Val::C(b) => Val::C(b.reverse()),
        Val::T(t) => {
            let bits: Vec<Term> = (0..t.width()).map(|i| term::extract(t, i, 1)).collect();
            Val::of(term::concat(&bits))
        }
    }
}

/// A conversion of a symbolic value.
fn convert(conv: Conv, from: Ty, to: Ty, a: &Term, rm: &Term) -> R<Term> {
    let w = to.width();
    Ok(match conv {
        Conv::Resize => {
            if from.is_signed() {
                term::sext(a, w)
            } else {
                term::zext(a, w)
            }
        }
        Conv::Bitcast => term::zext(a, w),
        Conv::FromBool => match to {
            Ty::F(f) => {
                fp::check(f)?;
                let one = crate::float::from_int(
                    f.format(),
                    1,
                    crate::float::Round::NearestEven,
                    &mut Default::default(),
                );
                ite(
                    &bv_to_bool(a),
                    &Term::bv_u64(w, one),
                    &Term::bv(&Bits::zero(w)),
                )
            }
            _ => term::zext(&bool_to_bv(&bv_to_bool(a)), w),
        },
        Conv::ToBool => match from {
            Ty::F(f) => {
                fp::check(f)?;
                bool_to_bv(&not(&fp::is_zero(f, a)))
            }
            _ => bool_to_bv(&bv_to_bool(a)),
        },
        Conv::IntToFloat => {
            let Ty::F(f) = to else {
                return unsupported("bug: int-to-float into an integer");
            };
            fp::check(f)?;
            if a.width() > 128 {
                return unsupported("integer wider than 128 bits to float");
            }
            fp::from_int(f, rm, a, from.is_signed())
        }
        Conv::FloatToInt => {
            let Ty::F(f) = from else {
                return unsupported("bug: float-to-int from an integer");
            };
            fp::check(f)?;
            let width = w.min(64);
            let r = fp::to_int(f, a, to.is_signed(), width);
            if to.is_signed() {
                term::sext(&r, w)
            } else {
                term::zext(&r, w)
            }
        }
        Conv::FloatToFloat => {
            let (Ty::F(f), Ty::F(g)) = (from, to) else {
                return unsupported("bug: float conversion of integers");
            };
            fp::check(f)?;
            fp::check(g)?;
            fp::convert(f, g, rm, a, false)
        }
    })
}
