//! The interpreter: walks the typed IR of one entry over a [`Frame`] of register values.
//!
//! Per-lane entries run once for each lane whose EXEC bit is set (see `crate::exec`); the
//! frame then resolves per-lane registers at the current lane. Loops run under a step budget,
//! and every runtime fault is an [`ExecError`] with the span of the offending node: never a
//! panic, never a hang.

pub mod compiled;
mod lanes;

/// Slots of a per-lane register in the prepared forms: one per lane of the widest wave.
pub const LANE_SLOTS: usize = 64;

use std::cmp::Ordering;

use crate::builtins::ops::host_arith;
pub use crate::builtins::ops::{eval_compare, eval_convert};
use crate::builtins::{self, FpEnv};
use crate::float::Round;
use crate::ir::{
    BinOp, Expr, ExprKind, Function, LocalId, Place, RegId, RegRole, Space, Stmt, Ty, UnOp,
};
use crate::syntax::ast::Span;
use crate::value::Bits;

/// What went wrong at run time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecErrorKind {
    /// The step budget ran out (a loop that does not end).
    StepBudget,
    /// An array index or lane number out of range.
    OutOfRange(String),
    /// A built-in this executor does not implement (named).
    Unsupported(String),
    /// A memory access the machine cannot serve.
    Memory(String),
}

/// A runtime fault, with the span of the IR node that raised it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecError {
    /// What.
    pub kind: ExecErrorKind,
    /// Where.
    pub span: Span,
}

impl std::fmt::Display for ExecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            ExecErrorKind::StepBudget => f.write_str("step budget exhausted"),
            ExecErrorKind::OutOfRange(m) => write!(f, "out of range: {m}"),
            ExecErrorKind::Unsupported(m) => write!(f, "not executable: {m}"),
            ExecErrorKind::Memory(m) => write!(f, "memory: {m}"),
        }
    }
}

impl std::error::Error for ExecError {}

type Result<T> = std::result::Result<T, ExecError>;

fn fault<T>(kind: ExecErrorKind, span: Span) -> Result<T> {
    Err(ExecError { kind, span })
}

/// The value of one register during execution: one value for the wave, or one per lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegValue {
    /// The same value for every lane (scalar operands, wave state, mode bits).
    Uniform(Bits),
    /// One value per lane (vector operands).
    Lanes(Vec<Bits>),
}

/// The memories the pseudocode addresses: `MEM`, `SGPR`, `VGPR`, `HW_REGISTERS`.
pub trait Memory {
    /// Reads `width` bits at byte address / register index `addr` (of lane `lane` for VGPRs).
    ///
    /// # Errors
    /// A message when the access cannot be served.
    fn load(
        &mut self,
        space: Space,
        lane: u32,
        addr: u64,
        width: u32,
    ) -> std::result::Result<Bits, String>;
    /// Writes `value` at `addr`.
    ///
    /// # Errors
    /// A message when the access cannot be served.
    fn store(
        &mut self,
        space: Space,
        lane: u32,
        addr: u64,
        value: &Bits,
    ) -> std::result::Result<(), String>;
}

/// The registers of one execution.
pub struct Frame<'a> {
    /// One value per register of the function.
    pub regs: &'a mut [RegValue],
    /// The memories.
    pub memory: &'a mut dyn Memory,
}

/// Steps one execution may take (statements plus loop iterations).
pub const STEP_BUDGET: u64 = 1_000_000;

enum Flow {
    Normal,
    Break,
    Continue,
    Return,
}

/// Runs `f` for one lane (`lane` is the value of `laneId`).
///
/// # Errors
/// The first runtime fault.
pub fn run_lane(
    f: &Function,
    frame: &mut Frame<'_>,
    lane: u32,
    round_reg: Option<RegId>,
) -> Result<()> {
    let mut it = Interp {
        f,
        frame,
        lane,
        locals: vec![None; f.locals.len()],
        steps: 0,
        fp: FpEnv::default(),
        round_reg,
    };
    it.sync_round_mode();
    it.block(&f.body).map(|_| ())
}

struct Interp<'f, 'a, 'b> {
    f: &'f Function,
    frame: &'b mut Frame<'a>,
    lane: u32,
    /// Scalar locals hold one value, arrays a vector; `None` until first written (reads as 0).
    locals: Vec<Option<Local>>,
    steps: u64,
    fp: FpEnv,
    round_reg: Option<RegId>,
}

#[derive(Clone)]
enum Local {
    Scalar(Bits),
    Array(Vec<Bits>),
}

fn round_of(mode: u64) -> Round {
    match mode & 3 {
        0 => Round::NearestEven,
        1 => Round::Up,
        2 => Round::Down,
        _ => Round::TowardZero,
    }
}

impl Interp<'_, '_, '_> {
    fn sync_round_mode(&mut self) {
        if let Some(r) = self.round_reg {
            let v = self.reg(r).low_u64();
            self.fp.round = round_of(v);
        }
    }

    fn tick(&mut self, span: Span) -> Result<()> {
        self.steps += 1;
        if self.steps > STEP_BUDGET {
            return fault(ExecErrorKind::StepBudget, span);
        }
        Ok(())
    }

    fn reg(&self, r: RegId) -> Bits {
        match &self.frame.regs[r.0 as usize] {
            RegValue::Uniform(b) => b.clone(),
            RegValue::Lanes(v) => v
                .get(self.lane as usize)
                .cloned()
                .unwrap_or_else(|| Bits::zero(self.f.regs[r.0 as usize].width)),
        }
    }

    fn set_reg(&mut self, r: RegId, value: Bits) {
        let lane = self.lane as usize;
        match &mut self.frame.regs[r.0 as usize] {
            RegValue::Uniform(b) => *b = value,
            RegValue::Lanes(v) => {
                if let Some(slot) = v.get_mut(lane) {
                    *slot = value;
                }
            }
        }
        if Some(r) == self.round_reg {
            self.sync_round_mode();
        }
    }

    fn local(&self, l: LocalId) -> Bits {
        match &self.locals[l.0 as usize] {
            Some(Local::Scalar(b)) => b.clone(),
            _ => Bits::zero(self.f.locals[l.0 as usize].ty.width()),
        }
    }

    fn elem(&mut self, l: LocalId, index: u64, span: Span) -> Result<&mut Bits> {
        let info = &self.f.locals[l.0 as usize];
        let len = info.len.unwrap_or(1) as usize;
        let width = info.ty.width();
        let slot = &mut self.locals[l.0 as usize];
        if !matches!(slot, Some(Local::Array(_))) {
            *slot = Some(Local::Array(vec![Bits::zero(width); len]));
        }
        let Some(Local::Array(v)) = slot else {
            unreachable!("bug: array local just initialised")
        };
        let name = &info.name;
        v.get_mut(index as usize).ok_or_else(|| ExecError {
            kind: ExecErrorKind::OutOfRange(format!("index {index} of `{name}[{len}]`")),
            span,
        })
    }

    fn block(&mut self, body: &[Stmt]) -> Result<Flow> {
        for s in body {
            match self.stmt(s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn stmt(&mut self, s: &Stmt) -> Result<Flow> {
        match s {
            Stmt::Assign { place, value, span } => {
                self.tick(*span)?;
                let v = self.eval(value)?;
                self.store(place, v)?;
                Ok(Flow::Normal)
            }
            Stmt::AssignConcat {
                places,
                value,
                span,
            } => {
                self.tick(*span)?;
                let v = self.eval(value)?;
                let mut pos = v.width() as u64;
                for (p, w) in places {
                    pos -= *w as u64;
                    self.store(p, v.extract(pos, *w))?;
                }
                Ok(Flow::Normal)
            }
            Stmt::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                if self.eval(cond)?.is_zero() {
                    self.block(otherwise)
                } else {
                    self.block(then)
                }
            }
            Stmt::For {
                var,
                start,
                end,
                body,
                span,
            } => {
                let ty = self.f.locals[var.0 as usize].ty;
                let s = self.eval(start)?;
                let e = self.eval(end)?;
                let greater = if ty.is_signed() {
                    s.scmp(&e) == Ordering::Greater
                } else {
                    s.ucmp(&e) == Ordering::Greater
                };
                if greater {
                    return Ok(Flow::Normal);
                }
                let mut i = s;
                loop {
                    self.tick(*span)?;
                    self.locals[var.0 as usize] = Some(Local::Scalar(i.clone()));
                    match self.block(body)? {
                        Flow::Break => break,
                        Flow::Return => return Ok(Flow::Return),
                        Flow::Normal | Flow::Continue => {}
                    }
                    if i == e {
                        break;
                    }
                    i = i.add(&Bits::from_u64(i.width(), 1));
                }
                Ok(Flow::Normal)
            }
            Stmt::While { cond, body, span } => {
                loop {
                    self.tick(*span)?;
                    if self.eval(cond)?.is_zero() {
                        break;
                    }
                    match self.block(body)? {
                        Flow::Break => break,
                        Flow::Return => return Ok(Flow::Return),
                        Flow::Normal | Flow::Continue => {}
                    }
                }
                Ok(Flow::Normal)
            }
            Stmt::Break { .. } => Ok(Flow::Break),
            Stmt::Continue { .. } => Ok(Flow::Continue),
            Stmt::Return { .. } => Ok(Flow::Return),
            Stmt::Effect {
                builtin,
                args,
                span,
            } => {
                let vals = args
                    .iter()
                    .map(|a| self.eval(a))
                    .collect::<Result<Vec<_>>>()?;
                builtins::effect(builtin, &vals).map_err(|m| ExecError {
                    kind: ExecErrorKind::Unsupported(m),
                    span: *span,
                })?;
                Ok(Flow::Normal)
            }
        }
    }

    /// The current value of a place (for read-modify-write of slices).
    fn read_place(&mut self, p: &Place, span: Span) -> Result<Bits> {
        match p {
            Place::Reg(r) => Ok(self.reg(*r)),
            Place::Local(l) => Ok(self.local(*l)),
            Place::Elem { local, index } => {
                let i = self.eval(index)?.low_u64();
                Ok(self.elem(*local, i, span)?.clone())
            }
            Place::Slice {
                base,
                lo,
                width,
                reversed,
            } => {
                let b = self.read_place(base, span)?;
                let lo = self.eval(lo)?.low_u64();
                let v = b.extract(lo, *width);
                Ok(if *reversed { v.reverse() } else { v })
            }
            Place::Store {
                space,
                addr,
                lane,
                width,
            } => {
                let a = self.eval(addr)?.low_u64();
                let l = match lane {
                    Some(l) => self.eval(l)?.low_u64() as u32,
                    None => self.lane,
                };
                self.frame
                    .memory
                    .load(*space, l, a, *width)
                    .map_err(|m| ExecError {
                        kind: ExecErrorKind::Memory(m),
                        span,
                    })
            }
        }
    }

    fn store(&mut self, p: &Place, v: Bits) -> Result<()> {
        let span = Span::default();
        match p {
            Place::Reg(r) => {
                let w = self.f.regs[r.0 as usize].width;
                self.set_reg(*r, v.zext(w));
                Ok(())
            }
            Place::Local(l) => {
                self.locals[l.0 as usize] = Some(Local::Scalar(v));
                Ok(())
            }
            Place::Elem { local, index } => {
                let i = self.eval(index)?.low_u64();
                *self.elem(*local, i, span)? = v;
                Ok(())
            }
            Place::Slice {
                base,
                lo,
                width,
                reversed,
            } => {
                let lo = self.eval(lo)?.low_u64();
                let old = self.read_place(base, span)?;
                let v = if *reversed {
                    v.zext(*width).reverse()
                } else {
                    v
                };
                let new = old.insert(lo, *width, &v);
                self.store(base, new)
            }
            Place::Store {
                space, addr, lane, ..
            } => {
                let a = self.eval(addr)?.low_u64();
                let l = match lane {
                    Some(l) => self.eval(l)?.low_u64() as u32,
                    None => self.lane,
                };
                self.frame
                    .memory
                    .store(*space, l, a, &v)
                    .map_err(|m| ExecError {
                        kind: ExecErrorKind::Memory(m),
                        span,
                    })
            }
        }
    }

    fn eval(&mut self, e: &Expr) -> Result<Bits> {
        match &e.kind {
            ExprKind::Const(b) => Ok(b.clone()),
            ExprKind::Reg(r) => {
                if self.f.regs[r.0 as usize].role == RegRole::Lane {
                    return Ok(Bits::from_u64(e.ty.width(), self.lane as u64));
                }
                Ok(self.reg(*r))
            }
            ExprKind::Local(l) => Ok(self.local(*l)),
            ExprKind::Elem { local, index } => {
                let i = self.eval(index)?.low_u64();
                Ok(self.elem(*local, i, e.span)?.clone())
            }
            ExprKind::Unary { op, arg } => {
                let a = self.eval(arg)?;
                Ok(match (op, e.ty) {
                    (UnOp::Neg, Ty::F(f)) => {
                        Bits::from_u64(f.width(), crate::float::neg(f.format(), a.low_u64()))
                    }
                    (UnOp::Neg, _) => a.neg(),
                    (UnOp::BitNot, _) => a.not(),
                    (UnOp::Not, _) => Bits::from_u64(1, a.is_zero() as u64),
                })
            }
            ExprKind::Binary { op, lhs, rhs } => {
                match op {
                    BinOp::And => {
                        if self.eval(lhs)?.is_zero() {
                            return Ok(Bits::from_u64(1, 0));
                        }
                        let b = self.eval(rhs)?;
                        return Ok(Bits::from_u64(1, !b.is_zero() as u64));
                    }
                    BinOp::Or => {
                        if !self.eval(lhs)?.is_zero() {
                            return Ok(Bits::from_u64(1, 1));
                        }
                        let b = self.eval(rhs)?;
                        return Ok(Bits::from_u64(1, !b.is_zero() as u64));
                    }
                    _ => {}
                }
                let a = self.eval(lhs)?;
                let b = self.eval(rhs)?;
                eval_binary(*op, e.ty, &a, &b, &mut self.fp)
            }
            ExprKind::Cmp { op, lhs, rhs } => {
                let a = self.eval(lhs)?;
                let b = self.eval(rhs)?;
                Ok(Bits::from_u64(
                    1,
                    eval_compare(*op, lhs.ty, &a, &b, &mut self.fp) as u64,
                ))
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                if self.eval(cond)?.is_zero() {
                    self.eval(otherwise)
                } else {
                    self.eval(then)
                }
            }
            ExprKind::Convert { conv, arg } => {
                let a = self.eval(arg)?;
                Ok(eval_convert(*conv, arg.ty, e.ty, &a, &mut self.fp))
            }
            ExprKind::Slice {
                arg,
                lo,
                width,
                reversed,
            } => {
                let a = self.eval(arg)?;
                let lo = self.eval(lo)?.low_u64();
                let v = a.extract(lo, *width);
                Ok(if *reversed { v.reverse() } else { v })
            }
            ExprKind::Concat(parts) => {
                let vals = parts
                    .iter()
                    .map(|p| self.eval(p))
                    .collect::<Result<Vec<_>>>()?;
                Ok(Bits::concat(&vals))
            }
            ExprKind::Call { builtin, args } => {
                let vals = args
                    .iter()
                    .map(|a| self.eval(a))
                    .collect::<Result<Vec<_>>>()?;
                builtins::call(builtin, &vals, e.ty, &mut self.fp).map_err(|m| ExecError {
                    kind: ExecErrorKind::Unsupported(m),
                    span: e.span,
                })
            }
            ExprKind::Load { space, addr, lane } => {
                let a = self.eval(addr)?.low_u64();
                let l = match lane {
                    Some(l) => self.eval(l)?.low_u64() as u32,
                    None => self.lane,
                };
                self.frame
                    .memory
                    .load(*space, l, a, e.ty.width())
                    .map_err(|m| ExecError {
                        kind: ExecErrorKind::Memory(m),
                        span: e.span,
                    })
            }
        }
    }
}

/// Evaluates a binary operator (not `And`/`Or`) on two values of type `ty`
/// ([`crate::builtins::ops::eval_binary`] with the interpreter's error).
///
/// # Errors
/// Operators that have no meaning on the type.
pub fn eval_binary(op: BinOp, ty: Ty, a: &Bits, b: &Bits, fp: &mut FpEnv) -> Result<Bits> {
    builtins::ops::eval_binary(op, ty, a, b, fp).map_err(|m| ExecError {
        kind: ExecErrorKind::Unsupported(m),
        span: Span::default(),
    })
}
