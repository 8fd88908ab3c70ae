//! Checks the invariants both backends rely on: every node's operands have the types its
//! kind requires, every store gets a value of the place's width, and every id is in range.
//! A failure here is a bug in lowering (or in a hand-built IR), reported as the `lower` stage.

use super::{BinOp, Conv, Expr, ExprKind, Function, Place, Stmt, Ty};
use crate::syntax::ast::Span;

/// A broken invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// What is wrong.
    pub message: String,
    /// The source text of the node.
    pub span: Span,
}

type Result<T> = std::result::Result<T, VerifyError>;

fn fail<T>(message: String, span: Span) -> Result<T> {
    Err(VerifyError { message, span })
}

/// Verifies a function.
///
/// # Errors
/// The first broken invariant.
pub fn verify(f: &Function) -> Result<()> {
    let v = Verifier { f };
    v.block(&f.body, 0)
}

struct Verifier<'a> {
    f: &'a Function,
}

impl Verifier<'_> {
    fn block(&self, body: &[Stmt], loops: u32) -> Result<()> {
        for s in body {
            self.stmt(s, loops)?;
        }
        Ok(())
    }

    fn stmt(&self, s: &Stmt, loops: u32) -> Result<()> {
        match s {
            Stmt::Assign { place, value, span } => {
                self.expr(value)?;
                let w = self.place(place, *span)?;
                if w != value.ty.width() {
                    return fail(
                        format!("stores {} bits into a {w}-bit place", value.ty.width()),
                        *span,
                    );
                }
                Ok(())
            }
            Stmt::AssignConcat {
                places,
                value,
                span,
            } => {
                self.expr(value)?;
                let mut total = 0;
                for (p, w) in places {
                    let pw = self.place(p, *span)?;
                    if pw != *w {
                        return fail(
                            format!("concat part declared {w} bits, place has {pw}"),
                            *span,
                        );
                    }
                    total += w;
                }
                if total != value.ty.width() {
                    return fail(
                        "concatenated places and value differ in width".into(),
                        *span,
                    );
                }
                Ok(())
            }
            Stmt::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                self.expect(cond, Ty::Bool)?;
                self.block(then, loops)?;
                self.block(otherwise, loops)
            }
            Stmt::For {
                var,
                start,
                end,
                body,
                span,
            } => {
                let Some(l) = self.f.locals.get(var.0 as usize) else {
                    return fail("loop variable out of range".into(), *span);
                };
                self.expect(start, l.ty)?;
                self.expect(end, l.ty)?;
                self.block(body, loops + 1)
            }
            Stmt::While { cond, body, .. } => {
                self.expect(cond, Ty::Bool)?;
                self.block(body, loops + 1)
            }
            Stmt::Break { span } | Stmt::Continue { span } => {
                if loops == 0 {
                    return fail("`break`/`continue` outside a loop".into(), *span);
                }
                Ok(())
            }
            Stmt::Return { .. } => Ok(()),
            Stmt::Effect { args, .. } => args.iter().try_for_each(|a| self.expr(a)),
        }
    }

    /// Checks a place and returns its width.
    fn place(&self, p: &Place, span: Span) -> Result<u32> {
        match p {
            Place::Reg(r) => match self.f.regs.get(r.0 as usize) {
                Some(info) => Ok(info.width),
                None => fail("register out of range".into(), span),
            },
            Place::Local(l) => match self.f.locals.get(l.0 as usize) {
                Some(info) if info.len.is_none() => Ok(info.ty.width()),
                _ => fail("bad local".into(), span),
            },
            Place::Elem { local, index } => {
                self.expect(index, Ty::U(32))?;
                match self.f.locals.get(local.0 as usize) {
                    Some(info) if info.len.is_some() => Ok(info.ty.width()),
                    _ => fail("element of a non-array".into(), span),
                }
            }
            Place::Slice {
                base, lo, width, ..
            } => {
                self.expect(lo, Ty::U(32))?;
                self.place(base, span)?;
                Ok(*width)
            }
            Place::Store {
                addr, lane, width, ..
            } => {
                self.expr(addr)?;
                if let Some(l) = lane {
                    self.expr(l)?;
                }
                Ok(*width)
            }
        }
    }

    fn expect(&self, e: &Expr, ty: Ty) -> Result<()> {
        self.expr(e)?;
        if e.ty != ty {
            return fail(format!("expected {ty}, found {}", e.ty), e.span);
        }
        Ok(())
    }

    fn expr(&self, e: &Expr) -> Result<()> {
        let span = e.span;
        match &e.kind {
            ExprKind::Const(b) => {
                if b.width() != e.ty.width() {
                    return fail(
                        format!("constant of {} bits typed {}", b.width(), e.ty),
                        span,
                    );
                }
            }
            ExprKind::Reg(r) => match self.f.regs.get(r.0 as usize) {
                Some(info) if info.width == e.ty.width() => {}
                _ => return fail("register read of the wrong width".into(), span),
            },
            ExprKind::Local(l) => match self.f.locals.get(l.0 as usize) {
                Some(info) if info.ty == e.ty && info.len.is_none() => {}
                _ => return fail("local read of the wrong type".into(), span),
            },
            ExprKind::Elem { local, index } => {
                self.expect(index, Ty::U(32))?;
                match self.f.locals.get(local.0 as usize) {
                    Some(info) if info.ty == e.ty && info.len.is_some() => {}
                    _ => return fail("element read of the wrong type".into(), span),
                }
            }
            ExprKind::Unary { arg, .. } => self.expect(arg, e.ty)?,
            ExprKind::Binary { op, lhs, rhs } => match op {
                BinOp::Shl | BinOp::Shr => {
                    self.expect(lhs, e.ty)?;
                    self.expr(rhs)?;
                    if !rhs.ty.is_int() || !e.ty.is_int() {
                        return fail("shift of a non-integer".into(), span);
                    }
                }
                BinOp::And | BinOp::Or => {
                    self.expect(lhs, Ty::Bool)?;
                    self.expect(rhs, Ty::Bool)?;
                }
                _ => {
                    self.expect(lhs, e.ty)?;
                    self.expect(rhs, e.ty)?;
                }
            },
            ExprKind::Cmp { lhs, rhs, .. } => {
                self.expr(lhs)?;
                self.expect(rhs, lhs.ty)?;
                if e.ty != Ty::Bool {
                    return fail("comparison not typed bool".into(), span);
                }
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                self.expect(cond, Ty::Bool)?;
                self.expect(then, e.ty)?;
                self.expect(otherwise, e.ty)?;
            }
            ExprKind::Convert { conv, arg } => {
                self.expr(arg)?;
                let (from, to) = (arg.ty, e.ty);
                let ok = match conv {
                    Conv::Resize => from.is_int() && to.is_int(),
                    Conv::Bitcast => from.width() == to.width(),
                    Conv::IntToFloat => from.is_int() && to.float().is_some(),
                    Conv::FloatToInt => from.float().is_some() && to.is_int(),
                    Conv::FloatToFloat => from.float().is_some() && to.float().is_some(),
                    Conv::FromBool => from == Ty::Bool,
                    Conv::ToBool => to == Ty::Bool,
                };
                if !ok {
                    return fail(format!("bad conversion {conv:?} from {from} to {to}"), span);
                }
            }
            ExprKind::Slice { arg, lo, width, .. } => {
                self.expr(arg)?;
                self.expect(lo, Ty::U(32))?;
                if !arg.ty.is_int() || *width != e.ty.width() {
                    return fail("bad slice".into(), span);
                }
            }
            ExprKind::Concat(parts) => {
                let mut total = 0;
                for p in parts {
                    self.expr(p)?;
                    total += p.ty.width();
                }
                if total != e.ty.width() {
                    return fail("concatenation width mismatch".into(), span);
                }
            }
            ExprKind::Call { args, .. } => {
                for a in args {
                    self.expr(a)?;
                }
            }
            ExprKind::Load { addr, lane, .. } => {
                self.expr(addr)?;
                if let Some(l) = lane {
                    self.expr(l)?;
                }
            }
        }
        Ok(())
    }
}
