//! Slices, indexing and `.type` views, with the constant bounds and widths they need.

use super::typing::{coerce, coerce_index, float_bits, slice, view_as};
use super::{err, LowerError, LowerErrorKind, Lowerer, Result};
use crate::ir::types::Ty;
use crate::ir::{BinOp, Expr, ExprKind, RegRole};
use crate::syntax::ast::{self, BinaryOp, Span};

impl<'a> Lowerer<'a> {
    pub(super) fn const_index(&mut self, e: &ast::Expr) -> Result<u64> {
        let x = self.lower_expr(e, Some(Ty::U(32)))?;
        match x.as_const_u64() {
            Some(v) => Ok(v),
            None => match &x.kind {
                // A cast of a constant (`6'4U` lowers to a constant already).
                ExprKind::Convert { arg, .. } => arg.as_const_u64().ok_or(LowerError {
                    kind: LowerErrorKind::NonConstantWidth,
                    span: e.span(),
                }),
                _ => err(LowerErrorKind::NonConstantWidth, e.span()),
            },
        }
    }

    pub(super) fn element_offset(&mut self, index: &ast::Expr, width: u32) -> Result<Expr> {
        let i = coerce_index(self.lower_expr(index, Some(Ty::U(32)))?);
        let span = i.span;
        Ok(Expr {
            ty: Ty::U(32),
            kind: ExprKind::Binary {
                op: BinOp::Mul,
                lhs: Box::new(i),
                rhs: Box::new(Expr::constant(Ty::U(32), width as u64, span)),
            },
            span,
        })
    }

    /// The low bit, width and direction of `x[hi : lo]`.
    pub(super) fn slice_bounds(
        &mut self,
        hi: &ast::Expr,
        lo: &ast::Expr,
        span: Span,
    ) -> Result<(Expr, u32, bool)> {
        let h = self.lower_expr(hi, Some(Ty::U(32)))?;
        let l = self.lower_expr(lo, Some(Ty::U(32)))?;
        if let (Some(a), Some(b)) = (h.as_const_u64(), l.as_const_u64()) {
            let (lo_v, w, rev) = if a >= b {
                (b, a - b + 1, false)
            } else {
                (a, b - a + 1, true)
            };
            if w > crate::ir::types::MAX_WIDTH as u64 {
                return err(LowerErrorKind::NonConstantWidth, span);
            }
            return Ok((Expr::constant(Ty::U(32), lo_v, span), w as u32, rev));
        }
        let (hb, ho) = linear(hi);
        let (lb, lo_off) = linear(lo);
        if hb == lb && ho >= lo_off && ho - lo_off < crate::ir::types::MAX_WIDTH as i128 {
            return Ok((coerce_index(l), (ho - lo_off + 1) as u32, false));
        }
        err(LowerErrorKind::NonConstantWidth, span)
    }

    pub(super) fn lower_field(
        &mut self,
        base: &ast::Expr,
        field: &str,
        span: Span,
    ) -> Result<Expr> {
        let Some(view) = Ty::from_view(field) else {
            let id = self.status_reg(base, field, span)?;
            return Ok(self.reg_expr(id, span));
        };
        if let ast::Expr::Ident { name, .. } = base {
            if self.is_free(name) {
                match name.as_str() {
                    "NAN" => {
                        let f = view.float().ok_or(LowerError {
                            kind: LowerErrorKind::TypeMismatch("NAN viewed as an integer".into()),
                            span,
                        })?;
                        return Ok(Expr::constant(view, float_bits(f, f64::NAN), span));
                    }
                    "DENORM" => {
                        return err(
                            LowerErrorKind::Unsupported(
                                "DENORM outside a comparison `x == DENORM.fN`".into(),
                            ),
                            span,
                        )
                    }
                    _ => {}
                }
            }
        }
        if let Some((space, addr, lane)) = self.memory_target(base)? {
            return Ok(Expr {
                ty: view,
                kind: ExprKind::Load {
                    space,
                    addr: Box::new(addr),
                    lane: lane.map(Box::new),
                },
                span,
            });
        }
        let b = self.lower_expr(base, Some(view))?;
        let mut out = view_as(b, view);
        out.span = span;
        Ok(out)
    }

    pub(super) fn lower_index(
        &mut self,
        whole: &ast::Expr,
        base: &ast::Expr,
        index: &ast::Expr,
        span: Span,
    ) -> Result<Expr> {
        if let Some((space, addr, lane)) = self.memory_target(whole)? {
            return Ok(Expr {
                ty: Ty::B(32),
                kind: ExprKind::Load {
                    space,
                    addr: Box::new(addr),
                    lane: lane.map(Box::new),
                },
                span,
            });
        }
        if let ast::Expr::Ident { name, .. } = base {
            if let Some(id) = self.local_index.get(name.as_str()).copied() {
                let info = self.locals[id.0 as usize].clone();
                if info.len.is_some() {
                    let i = coerce_index(self.lower_expr(index, Some(Ty::U(32)))?);
                    return Ok(Expr {
                        ty: info.ty,
                        kind: ExprKind::Elem {
                            local: id,
                            index: Box::new(i),
                        },
                        span,
                    });
                }
            }
            if self.is_free(name) {
                if name == "TTMP" {
                    let n = self.const_index(index)?;
                    let id = self.reg(&format!("TTMP{n}"), 32, RegRole::Wave);
                    return Ok(self.reg_expr(id, span));
                }
                if matches!(name.as_str(), "BARRIER_STATE" | "VGPR") {
                    return err(
                        LowerErrorKind::Unsupported(format!("indexing `{name}` this way")),
                        span,
                    );
                }
                if let Some(id) = self.state_reg(name) {
                    if let Some((ety, _)) = self.reg_arrays.get(&id).copied() {
                        let r = self.reg_expr(id, span);
                        let lo = self.element_offset(index, ety.width())?;
                        let s = slice(r, lo, ety.width(), false, span);
                        return Ok(view_as(s, ety));
                    }
                }
            }
        }
        let b = self.lower_expr(base, None)?;
        let b = match b.ty {
            Ty::F(f) => view_as(b, Ty::B(f.width())),
            Ty::Bool => coerce(b, Ty::U(1)),
            _ => b,
        };
        let i = coerce_index(self.lower_expr(index, Some(Ty::U(32)))?);
        let mut s = slice(b, i, 1, false, span);
        s.ty = Ty::U(1);
        Ok(s)
    }
}

/// A linear form `base + offset` of a slice bound, for computing widths of slices whose
/// bounds share a variable part (`x[i * 4 + 3 : i * 4]`).
fn linear(e: &ast::Expr) -> (Option<String>, i128) {
    match e {
        ast::Expr::Int { value, .. } => (None, *value as i128),
        ast::Expr::Binary {
            op: BinaryOp::Add,
            lhs,
            rhs,
            ..
        } => {
            if let ast::Expr::Int { value, .. } = rhs.as_ref() {
                let (b, o) = linear(lhs);
                (b, o + *value as i128)
            } else if let ast::Expr::Int { value, .. } = lhs.as_ref() {
                let (b, o) = linear(rhs);
                (b, o + *value as i128)
            } else {
                (Some(fingerprint(e)), 0)
            }
        }
        ast::Expr::Binary {
            op: BinaryOp::Sub,
            lhs,
            rhs,
            ..
        } => {
            if let ast::Expr::Int { value, .. } = rhs.as_ref() {
                let (b, o) = linear(lhs);
                (b, o - *value as i128)
            } else {
                (Some(fingerprint(e)), 0)
            }
        }
        _ => (Some(fingerprint(e)), 0),
    }
}

/// A span-free rendering of an expression, to compare two expressions structurally.
fn fingerprint(e: &ast::Expr) -> String {
    let mut s = format!("{e:?}");
    // Spans differ between occurrences; drop them.
    while let Some(i) = s.find("span: Span {") {
        match s[i..].find('}') {
            Some(j) => s.replace_range(i..i + j + 1, ""),
            None => break,
        }
    }
    s
}
