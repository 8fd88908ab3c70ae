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

use crate::builtins::{self, FpEnv};
use crate::float::Round;
use crate::ir::FloatTy;
use crate::ir::{
    BinOp, CmpOp, Conv, Expr, ExprKind, Function, LocalId, Place, RegId, RegRole, Space, Stmt, Ty,
    UnOp,
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

/// f32/f64 `+ - * /` under round-to-nearest-even on the host's IEEE 754 unit, with the
/// spec's NaN rule (the first NaN operand quietened, else the default NaN): bit-identical to
/// the soft-float path (the JIT emits the same instructions; its differential test holds
/// the two together) and several times faster. `None` for other formats and operators.
fn host_arith(f: FloatTy, op: BinOp, x: u64, y: u64) -> Option<u64> {
    fn nan_rule(bits: u32, xs: [u64; 2]) -> u64 {
        let man = if bits == 32 { 23 } else { 52 };
        let exp = ((1u64 << (bits - 1 - man)) - 1) << man;
        let quiet = 1u64 << (man - 1);
        let abs = |v: u64| v & ((1u64 << (bits - 1)) - 1);
        xs.into_iter()
            .find(|&v| abs(v) > exp)
            .map_or(exp | quiet, |v| v | quiet)
    }
    macro_rules! arith {
        ($t:ty, $bits:expr, $a:expr, $b:expr) => {{
            let (a, b) = ($a, $b);
            let r: $t = match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => a / b,
                _ => return None,
            };
            Some(if r.is_nan() {
                nan_rule($bits, [x, y])
            } else {
                r.to_bits() as u64
            })
        }};
    }
    match f {
        FloatTy::F32 => arith!(f32, 32, f32::from_bits(x as u32), f32::from_bits(y as u32)),
        FloatTy::F64 => arith!(f64, 64, f64::from_bits(x), f64::from_bits(y)),
        _ => None,
    }
}

/// Evaluates a binary operator (not `And`/`Or`) on two values of type `ty`; shared by the
/// interpreter and the JIT's helpers so both compute the same bits.
///
/// # Errors
/// Operators that have no meaning on the type.
pub fn eval_binary(op: BinOp, ty: Ty, a: &Bits, b: &Bits, fp: &mut FpEnv) -> Result<Bits> {
    if let Ty::F(f) = ty {
        let fmt = f.format();
        let (x, y) = (a.low_u64(), b.low_u64());
        let rm = fp.round;
        if rm == Round::NearestEven {
            if let Some(r) = host_arith(f, op, x, y) {
                return Ok(Bits::from_u64(f.width(), r));
            }
        }
        let fl = &mut fp.flags;
        let r = match op {
            BinOp::Add => crate::float::add(fmt, x, y, rm, fl),
            BinOp::Sub => crate::float::sub(fmt, x, y, rm, fl),
            BinOp::Mul => crate::float::mul(fmt, x, y, rm, fl),
            BinOp::Div => crate::float::div(fmt, x, y, rm, fl),
            BinOp::Pow => builtins::pow(f, x, y, fp),
            _ => {
                return fault(
                    ExecErrorKind::Unsupported(format!("{op:?} on floats")),
                    Span::default(),
                )
            }
        };
        return Ok(Bits::from_u64(f.width(), r));
    }
    let signed = ty.is_signed();
    Ok(match op {
        BinOp::Add => a.add(b),
        BinOp::Sub => a.sub(b),
        BinOp::Mul => a.mul(b),
        BinOp::Div => {
            let r = if signed { a.sdivrem(b) } else { a.udivrem(b) };
            match r {
                Some((q, _)) => q,
                None => Bits::zero(a.width()).not(),
            }
        }
        BinOp::Rem => {
            let r = if signed { a.sdivrem(b) } else { a.udivrem(b) };
            match r {
                Some((_, r)) => r,
                None => a.clone(),
            }
        }
        BinOp::Pow => {
            return fault(
                ExecErrorKind::Unsupported("integer `**`".into()),
                Span::default(),
            )
        }
        BinOp::Shl => a.shl(shift_amount(b)),
        BinOp::Shr => {
            if signed {
                a.ashr(shift_amount(b))
            } else {
                a.lshr(shift_amount(b))
            }
        }
        BinOp::BitAnd => a.and(b),
        BinOp::BitOr => a.or(b),
        BinOp::BitXor => a.xor(b),
        BinOp::And | BinOp::Or => unreachable!("bug: logical operators handled before"),
    })
}

/// Evaluates a comparison of two values of type `ty`.
pub fn eval_compare(op: CmpOp, ty: Ty, a: &Bits, b: &Bits, fp: &mut FpEnv) -> bool {
    if let Ty::F(f) = ty {
        let fmt = f.format();
        let (x, y) = (a.low_u64(), b.low_u64());
        let fl = &mut fp.flags;
        return match op {
            CmpOp::Eq => crate::float::eq(fmt, x, y, fl),
            CmpOp::Ne => !crate::float::eq(fmt, x, y, fl),
            CmpOp::Lg => crate::float::lg(fmt, x, y, fl),
            CmpOp::Lt => crate::float::lt(fmt, x, y, fl),
            CmpOp::Le => crate::float::le(fmt, x, y, fl),
            CmpOp::Gt => crate::float::lt(fmt, y, x, fl),
            CmpOp::Ge => crate::float::le(fmt, y, x, fl),
        };
    }
    let ord = if ty.is_signed() { a.scmp(b) } else { a.ucmp(b) };
    match op {
        CmpOp::Eq => ord == Ordering::Equal,
        CmpOp::Ne | CmpOp::Lg => ord != Ordering::Equal,
        CmpOp::Lt => ord == Ordering::Less,
        CmpOp::Le => ord != Ordering::Greater,
        CmpOp::Gt => ord == Ordering::Greater,
        CmpOp::Ge => ord != Ordering::Less,
    }
}

/// Evaluates a conversion from `from` to `to`.
pub fn eval_convert(conv: Conv, from: Ty, to: Ty, a: &Bits, fp: &mut FpEnv) -> Bits {
    let w = to.width();
    match conv {
        Conv::Resize => a.resize(w, from.is_signed()),
        Conv::Bitcast => a.zext(w),
        Conv::FromBool => match to {
            Ty::F(f) => {
                let one = if a.is_zero() { 0 } else { 1 };
                let rm = fp.round;
                Bits::from_u64(
                    w,
                    crate::float::from_int(f.format(), one, rm, &mut fp.flags),
                )
            }
            _ => Bits::from_u64(w, !a.is_zero() as u64),
        },
        Conv::ToBool => {
            let nz = match from {
                Ty::F(f) => !crate::float::is_zero(f.format(), a.low_u64()),
                _ => !a.is_zero(),
            };
            Bits::from_u64(1, nz as u64)
        }
        Conv::IntToFloat => {
            let Ty::F(f) = to else {
                unreachable!("bug: verified conversion")
            };
            let rm = fp.round;
            let fl = &mut fp.flags;
            let r = if from.is_signed() {
                crate::float::from_int(f.format(), a.as_i128(), rm, fl)
            } else if a.width() <= 128 {
                crate::float::from_uint(f.format(), a.low_u128(), rm, fl)
            } else {
                // Wider than 128 bits: keep the top 128 significant bits (plus sticky).
                let top = a.width() - 128;
                let hi = a.lshr(top as u64).low_u128();
                let v = crate::float::from_uint(f.format(), hi | 1, rm, fl);
                crate::float::ldexp(f.format(), v, top as i32, rm, fl)
            };
            Bits::from_u64(w, r)
        }
        Conv::FloatToInt => {
            let Ty::F(f) = from else {
                unreachable!("bug: verified conversion")
            };
            let width = w.min(64);
            let r = crate::float::to_int(
                f.format(),
                a.low_u64(),
                to.is_signed(),
                width,
                Round::TowardZero,
                &mut fp.flags,
            );
            Bits::from_u64(width, r).resize(w, to.is_signed())
        }
        Conv::FloatToFloat => {
            let (Ty::F(f), Ty::F(g)) = (from, to) else {
                unreachable!("bug: verified conversion")
            };
            let (ff, gf) = (f.format(), g.format());
            let x = a.low_u64();
            if crate::float::is_nan(ff, x) {
                return Bits::from_u64(w, convert_nan(ff, gf, x));
            }
            let rm = fp.round;
            Bits::from_u64(w, crate::float::convert(ff, gf, x, rm, &mut fp.flags))
        }
    }
}

/// A NaN converted between float formats keeps its sign, its quiet bit and the top of its
/// payload: the pseudocode classifies NaNs after widening them (`isSignalNAN(64'F(S0.f32))`),
/// so the conversion must not quieten them. A payload that narrows to zero becomes the quiet
/// NaN; formats without NaN take their default.
fn convert_nan(from: crate::float::Format, to: crate::float::Format, x: u64) -> u64 {
    use crate::float::SpecialKind;
    if to.kind != SpecialKind::Ieee || from.kind != SpecialKind::Ieee {
        return crate::float::convert(from, to, x, Round::NearestEven, &mut Default::default());
    }
    let sign = (x >> (from.exp_bits + from.man_bits)) & 1;
    let payload = x & ((1u64 << from.man_bits) - 1);
    let payload = if to.man_bits >= from.man_bits {
        payload << (to.man_bits - from.man_bits)
    } else {
        payload >> (from.man_bits - to.man_bits)
    };
    let payload = if payload == 0 {
        1 << (to.man_bits - 1)
    } else {
        payload
    };
    let exp = ((1u64 << to.exp_bits) - 1) << to.man_bits;
    (sign << (to.exp_bits + to.man_bits)) | exp | payload
}

fn shift_amount(b: &Bits) -> u64 {
    if b.width() > 64 && b.words()[1..].iter().any(|w| *w != 0) {
        u64::MAX
    } else {
        b.low_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Edge-biased float bits: zeros, denormals, infinities, quiet and signalling NaNs.
    fn float_bits(bits: u32) -> impl Strategy<Value = u64> {
        let (man, exp) = if bits == 32 { (23, 8) } else { (52, 11) };
        let sign = 1u64 << (bits - 1);
        let inf = ((1u64 << exp) - 1) << man;
        let edges = vec![
            0,
            sign,
            1,
            sign | 1,
            (1u64 << man) - 1,
            inf,
            sign | inf,
            inf | 1u64 << (man - 1),
            inf | 1,
            sign | inf | 5,
        ];
        let mask = if bits == 32 {
            u32::MAX as u64
        } else {
            u64::MAX
        };
        prop_oneof![
            proptest::sample::select(edges),
            any::<u64>().prop_map(move |v| v & mask),
        ]
    }

    fn soft(op: BinOp, f: FloatTy, x: u64, y: u64) -> u64 {
        let mut fl = Default::default();
        let (fmt, rm) = (f.format(), Round::NearestEven);
        match op {
            BinOp::Add => crate::float::add(fmt, x, y, rm, &mut fl),
            BinOp::Sub => crate::float::sub(fmt, x, y, rm, &mut fl),
            BinOp::Mul => crate::float::mul(fmt, x, y, rm, &mut fl),
            _ => crate::float::div(fmt, x, y, rm, &mut fl),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig {
        cases: 20_000,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed),
        ..ProptestConfig::default()
    })]

        /// The host fast path computes exactly the soft-float's bits.
        #[test]
        fn host_arithmetic_matches_soft_float(
            x32 in float_bits(32), y32 in float_bits(32),
            x64 in float_bits(64), y64 in float_bits(64),
            op in proptest::sample::select(vec![BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div]),
        ) {
            prop_assert_eq!(host_arith(FloatTy::F32, op, x32, y32), Some(soft(op, FloatTy::F32, x32, y32)));
            prop_assert_eq!(host_arith(FloatTy::F64, op, x64, y64), Some(soft(op, FloatTy::F64, x64, y64)));
        }
    }
}
