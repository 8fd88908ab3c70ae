//! Assignment targets: registers, locals, memory, status fields and their slices.

use super::typing::{coerce_addr, coerce_index, named_constant};
use super::{err, LowerErrorKind, Lowerer, Result};
use crate::ir::names::{status_field_width, STATUS_BASES};
use crate::ir::types::Ty;
use crate::ir::{Expr, Place, RegId, RegRole, Space};
use crate::syntax::ast::{self, Span};

impl<'a> Lowerer<'a> {
    /// Lowers an assignment target to a place and the type a value must have there.
    pub(super) fn lower_place(&mut self, e: &ast::Expr) -> Result<(Place, Ty)> {
        match e {
            ast::Expr::Ident { name, span } => {
                if let Some(id) = self.local_index.get(name.as_str()).copied() {
                    let info = &self.locals[id.0 as usize];
                    if info.len.is_some() {
                        return err(LowerErrorKind::NotAssignable, *span);
                    }
                    return Ok((Place::Local(id), info.ty));
                }
                if let Some(id) = self.state_reg(name) {
                    let ty = self.reg_ty(id);
                    self.regs[id.0 as usize].written = true;
                    return Ok((Place::Reg(id), ty));
                }
                if self.binding(name).is_none() && named_constant(name).is_none() {
                    // A local first written through a slice or view (`dst[15 : 0].f16 = x`)
                    // is bits as wide as the highest bit the text touches (at least 32).
                    let w = self
                        .view_widths
                        .get(name.as_str())
                        .copied()
                        .unwrap_or(0)
                        .max(32);
                    let id = self.new_local(name, Ty::B(w), None);
                    return Ok((Place::Local(id), Ty::B(w)));
                }
                err(LowerErrorKind::UnknownIdentifier(name.clone()), *span)
            }
            ast::Expr::Field { base, field, span } => {
                if let Some(view) = Ty::from_view(field) {
                    // Memory and register-file views store exactly the view's width.
                    if let Some((space, addr, lane)) = self.memory_target(base)? {
                        return Ok((
                            Place::Store {
                                space,
                                addr,
                                lane,
                                width: view.width(),
                            },
                            view,
                        ));
                    }
                    let (place, ty) = self.lower_place(base)?;
                    if ty.width() == view.width() {
                        return Ok((place, view));
                    }
                    return Ok((
                        Place::Slice {
                            base: Box::new(place),
                            lo: Expr::constant(Ty::U(32), 0, *span),
                            width: view.width(),
                            reversed: false,
                        },
                        view,
                    ));
                }
                let id = self.status_reg(base, field, *span)?;
                self.regs[id.0 as usize].written = true;
                let ty = self.reg_ty(id);
                Ok((Place::Reg(id), ty))
            }
            ast::Expr::Index { base, index, span } => {
                if let Some((space, addr, lane)) = self.memory_target(e)? {
                    return Ok((
                        Place::Store {
                            space,
                            addr,
                            lane,
                            width: 32,
                        },
                        Ty::B(32),
                    ));
                }
                if let ast::Expr::Ident { name, .. } = base.as_ref() {
                    if let Some(id) = self.local_index.get(name.as_str()).copied() {
                        let info = self.locals[id.0 as usize].clone();
                        if info.len.is_some() {
                            let i = coerce_index(self.lower_expr(index, Some(Ty::U(32)))?);
                            return Ok((
                                Place::Elem {
                                    local: id,
                                    index: i,
                                },
                                info.ty,
                            ));
                        }
                    }
                    if let Some(id) = self.reg_index.get(name.as_str()).copied() {
                        if let Some((ety, _)) = self.reg_arrays.get(&id).copied() {
                            self.regs[id.0 as usize].written = true;
                            let lo = self.element_offset(index, ety.width())?;
                            return Ok((
                                Place::Slice {
                                    base: Box::new(Place::Reg(id)),
                                    lo,
                                    width: ety.width(),
                                    reversed: false,
                                },
                                ety,
                            ));
                        }
                    }
                    if name == "TTMP" {
                        let n = self.const_index(index)?;
                        let id = self.reg(&format!("TTMP{n}"), 32, RegRole::Wave);
                        self.regs[id.0 as usize].written = true;
                        return Ok((Place::Reg(id), Ty::B(32)));
                    }
                }
                let (place, _) = self.lower_place(base)?;
                let i = self.lower_expr(index, Some(Ty::U(32)))?;
                let _ = span;
                Ok((
                    Place::Slice {
                        base: Box::new(place),
                        lo: coerce_index(i),
                        width: 1,
                        reversed: false,
                    },
                    Ty::U(1),
                ))
            }
            ast::Expr::Slice { base, hi, lo, span } => {
                let (place, _) = self.lower_place(base)?;
                let (lo, width, reversed) = self.slice_bounds(hi, lo, *span)?;
                Ok((
                    Place::Slice {
                        base: Box::new(place),
                        lo,
                        width,
                        reversed,
                    },
                    Ty::B(width),
                ))
            }
            ast::Expr::PartSelect {
                base,
                start,
                width,
                span,
            } => {
                let (place, _) = self.lower_place(base)?;
                let w = self.const_index(width)? as u32;
                if w == 0 {
                    return err(LowerErrorKind::NonConstantWidth, *span);
                }
                let lo = coerce_index(self.lower_expr(start, Some(Ty::U(32)))?);
                Ok((
                    Place::Slice {
                        base: Box::new(place),
                        lo,
                        width: w,
                        reversed: false,
                    },
                    Ty::B(w),
                ))
            }
            other => err(LowerErrorKind::NotAssignable, other.span()),
        }
    }

    /// Recognises `MEM[addr]`, `SGPR[i]` and `VGPR[lane][reg]`.
    #[allow(clippy::type_complexity)]
    pub(super) fn memory_target(
        &mut self,
        e: &ast::Expr,
    ) -> Result<Option<(Space, Expr, Option<Expr>)>> {
        let ast::Expr::Index { base, index, .. } = e else {
            return Ok(None);
        };
        match base.as_ref() {
            ast::Expr::Ident { name, .. } if self.is_free(name) => match name.as_str() {
                "MEM" => {
                    let a = self.lower_expr(index, Some(Ty::U(64)))?;
                    Ok(Some((Space::Mem, coerce_addr(a), None)))
                }
                "SGPR" => {
                    let a = self.lower_expr(index, Some(Ty::U(32)))?;
                    Ok(Some((Space::Sgpr, coerce_index(a), None)))
                }
                "HW_REGISTERS" => {
                    let a = self.lower_expr(index, Some(Ty::U(32)))?;
                    Ok(Some((Space::HwReg, coerce_index(a), None)))
                }
                _ => Ok(None),
            },
            ast::Expr::Index {
                base: inner,
                index: lane,
                ..
            } => match inner.as_ref() {
                ast::Expr::Ident { name, .. } if name == "VGPR" && self.is_free(name) => {
                    let l = self.lower_expr(lane, Some(Ty::U(32)))?;
                    let r = self.lower_expr(index, Some(Ty::U(32)))?;
                    Ok(Some((Space::Vgpr, coerce_index(r), Some(coerce_index(l)))))
                }
                _ => Ok(None),
            },
            _ => Ok(None),
        }
    }

    pub(super) fn is_free(&self, name: &str) -> bool {
        self.binding(name).is_none() && !self.local_index.contains_key(name)
    }

    pub(super) fn status_reg(
        &mut self,
        base: &ast::Expr,
        field: &str,
        span: Span,
    ) -> Result<RegId> {
        if let ast::Expr::Ident { name, .. } = base {
            if self.is_free(name) && self.operands.is_operand(name) {
                // A component of an operand (`TADDR.X`): supplied by the executor.
                return Ok(self.reg(&format!("{name}.{field}"), 32, RegRole::Operand));
            }
        }
        match base {
            ast::Expr::Ident { name, .. }
                if STATUS_BASES.contains(&name.as_str()) && self.is_free(name) =>
            {
                Ok(self.reg(
                    &format!("{name}.{field}"),
                    status_field_width(field),
                    RegRole::Mode,
                ))
            }
            _ => err(
                LowerErrorKind::Unsupported(format!("field `.{field}`")),
                span,
            ),
        }
    }
}
