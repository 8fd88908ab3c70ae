//! Names: registers, operands, state registers, locals and lambda bindings.

use super::typing::{bool_expr, float_bits, named_constant, Constant};
use super::{err, LowerErrorKind, Lowerer, Result};
use crate::ir::names::wave_reg;
use crate::ir::types::{FloatTy, Ty};
use crate::ir::{Expr, ExprKind, LocalId, LocalInfo, RegId, RegInfo, RegRole};
use crate::syntax::ast::Span;

impl<'a> Lowerer<'a> {
    pub(super) fn reg(&mut self, name: &str, width: u32, role: RegRole) -> RegId {
        if let Some(id) = self.reg_index.get(name) {
            return *id;
        }
        let id = RegId(self.regs.len() as u32);
        self.regs.push(RegInfo {
            name: name.to_string(),
            width,
            role,
            read: false,
            written: false,
        });
        self.reg_types.push(None);
        self.reg_index.insert(name.to_string(), id);
        id
    }

    /// The type a register reads as: its declared type, else bits (`u1` for 1-bit ones).
    pub(super) fn reg_ty(&self, id: RegId) -> Ty {
        let width = self.regs[id.0 as usize].width;
        match self.reg_types[id.0 as usize] {
            Some(t) if t.width() == width => t,
            _ if width == 1 => Ty::U(1),
            _ => Ty::B(width),
        }
    }

    pub(super) fn reg_expr(&mut self, id: RegId, span: Span) -> Expr {
        self.regs[id.0 as usize].read = true;
        Expr {
            ty: self.reg_ty(id),
            kind: ExprKind::Reg(id),
            span,
        }
    }

    /// An operand is as wide as the instruction's operand table says (a wider typed view
    /// reads it zero-extended) or as the highest bit a constant slice names, whichever is
    /// wider (`S_CVT_HI_F32_F16`'s 16-bit `S0` is read as `S0[31 : 16]`); operands the table
    /// does not list are as wide as the widest view the text takes of them, at least the
    /// default.
    pub(super) fn operand_reg(&mut self, name: &str) -> RegId {
        let view = self.view_widths.get(name).copied().unwrap_or(0);
        let slice = self.slice_widths.get(name).copied().unwrap_or(0);
        let width = match self.operands.get(name) {
            Some(table) if table >= 8 => table.max(slice),
            Some(table) => table.max(view),
            // A memory address the table does not list (SMEM's, computed from `sbase`) is a
            // 64-bit address.
            None if name == "ADDR" => 64,
            None => self.operands.default_width.max(view),
        };
        self.reg(name, width, RegRole::Operand)
    }

    /// Resolves a name that is not bound locally to a state register.
    pub(super) fn state_reg(&mut self, name: &str) -> Option<RegId> {
        if let Some(id) = self.reg_index.get(name) {
            return Some(*id);
        }
        if let Some((w, role)) = wave_reg(name) {
            return Some(self.reg(name, w, role));
        }
        if self.operands.is_operand(name) {
            return Some(self.operand_reg(name));
        }
        None
    }

    pub(super) fn new_local(&mut self, name: &str, ty: Ty, len: Option<u32>) -> LocalId {
        let id = LocalId(self.locals.len() as u32);
        self.locals.push(LocalInfo {
            name: name.to_string(),
            ty,
            len,
        });
        self.local_index.insert(name.to_string(), id);
        id
    }

    pub(super) fn temp_local(&mut self, base: &str, ty: Ty) -> LocalId {
        self.temp_counter += 1;
        let name = format!("{base}.{}", self.temp_counter);
        let id = LocalId(self.locals.len() as u32);
        self.locals.push(LocalInfo {
            name,
            ty,
            len: None,
        });
        id
    }

    pub(super) fn binding(&self, name: &str) -> Option<&Expr> {
        self.bindings.iter().rev().find_map(|b| b.get(name))
    }

    pub(super) fn lower_ident(
        &mut self,
        name: &str,
        expected: Option<Ty>,
        span: Span,
    ) -> Result<Expr> {
        if let Some(e) = self.binding(name) {
            return Ok(e.clone());
        }
        if let Some(id) = self.local_index.get(name).copied() {
            let info = &self.locals[id.0 as usize];
            if info.len.is_some() {
                return err(
                    LowerErrorKind::TypeMismatch(format!("array `{name}` used as a value")),
                    span,
                );
            }
            return Ok(Expr {
                ty: info.ty,
                kind: ExprKind::Local(id),
                span,
            });
        }
        if let Some(c) = named_constant(name) {
            return Ok(match c {
                Constant::Bool(b) => bool_expr(b, span),
                Constant::Typed(ty, v) => Expr::constant(ty, v, span),
                Constant::Float(x) => {
                    let f = expected.and_then(|t| t.float()).unwrap_or(FloatTy::F64);
                    Expr::constant(Ty::F(f), float_bits(f, x), span)
                }
            });
        }
        if let Some(id) = self.state_reg(name) {
            return Ok(self.reg_expr(id, span));
        }
        err(LowerErrorKind::UnknownIdentifier(name.to_string()), span)
    }
}
