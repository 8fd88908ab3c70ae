//! Statements and assignments.

use super::typing::{
    bool_expr, coerce, is_untyped, named_constant, to_bool, type_of_spec, view_as,
};
use super::{err, Lambda, LambdaBody, LowerErrorKind, Lowerer, Result};
use crate::ir::builtins::Func;
use crate::ir::names::wave_reg;
use crate::ir::types::Ty;
use crate::ir::{BinOp, CmpOp, Expr, ExprKind, Place, RegRole, Stmt};
use crate::syntax::ast::{self, BinaryOp, Span};

impl<'a> Lowerer<'a> {
    pub(super) fn lower_block(&mut self, body: &[ast::Stmt]) -> Result<Vec<Stmt>> {
        let saved = std::mem::take(&mut self.pre);
        let mut out = Vec::new();
        let mut result = Ok(());
        for s in body {
            let mut stmts = Vec::new();
            result = self.lower_stmt(s, &mut stmts);
            if result.is_err() {
                break;
            }
            out.append(&mut self.pre);
            out.append(&mut stmts);
        }
        self.pre = saved;
        result.map(|()| out)
    }

    pub(super) fn lower_stmt(&mut self, s: &ast::Stmt, out: &mut Vec<Stmt>) -> Result<()> {
        match s {
            ast::Stmt::Assign {
                target,
                op,
                value,
                span,
            } => self.lower_assign(target, *op, value, *span, out),
            ast::Stmt::Declare {
                name,
                ty,
                len,
                span,
            } => {
                let Some(t) = type_of_spec(*ty) else {
                    return err(LowerErrorKind::Unsupported(format!("type {ty}")), *span);
                };
                if self.local_index.contains_key(name) {
                    return Ok(());
                }
                if self.operands.is_operand(name) || wave_reg(name).is_some() {
                    // Declaring an operand fixes its type (and, for arrays, its layout).
                    let width = t.width() * len.unwrap_or(1);
                    let id = self.reg(name, width, RegRole::Operand);
                    let info = &mut self.regs[id.0 as usize];
                    info.width = info.width.max(width);
                    if let Some(n) = len {
                        self.reg_arrays.insert(id, (t, *n));
                    } else {
                        self.reg_types[id.0 as usize] = Some(t);
                    }
                    return Ok(());
                }
                self.new_local(name, t, *len);
                Ok(())
            }
            ast::Stmt::If {
                arms,
                otherwise,
                span,
            } => {
                let mut else_body = match otherwise {
                    Some(b) => self.lower_block(b)?,
                    None => Vec::new(),
                };
                for arm in arms.iter().rev() {
                    let cond = self.lower_expr(&arm.cond, Some(Ty::Bool))?;
                    let then = self.lower_block(&arm.body)?;
                    else_body = vec![Stmt::If {
                        cond: to_bool(cond),
                        then,
                        otherwise: else_body,
                        span: *span,
                    }];
                }
                out.extend(else_body);
                Ok(())
            }
            ast::Stmt::For {
                var,
                start,
                end,
                body,
                span,
            } => {
                let id = match self.local_index.get(var.as_str()).copied() {
                    Some(id) => id,
                    None => {
                        let ty = match (is_untyped(start), is_untyped(end)) {
                            (false, _) => self.lower_expr(start, None)?.ty,
                            (true, false) => self.lower_expr(end, None)?.ty,
                            (true, true) => Ty::I(32),
                        };
                        let ty = if ty.is_int() { ty } else { Ty::I(32) };
                        self.new_local(var, ty, None)
                    }
                };
                let ty = self.locals[id.0 as usize].ty;
                let s = self.lower_expr(start, Some(ty))?;
                let e = self.lower_expr(end, Some(ty))?;
                if let Some(r) = self.returns.last_mut() {
                    r.loop_depth += 1;
                }
                let body = self.lower_block(body);
                if let Some(r) = self.returns.last_mut() {
                    r.loop_depth -= 1;
                }
                let body = body?;
                out.push(Stmt::For {
                    var: id,
                    start: coerce(s, ty),
                    end: coerce(e, ty),
                    body,
                    span: *span,
                });
                Ok(())
            }
            ast::Stmt::While { cond, body, span } => {
                let before = self.pre.len();
                let cond = to_bool(self.lower_expr(cond, Some(Ty::Bool))?);
                if self.pre.len() != before {
                    return err(
                        LowerErrorKind::Unsupported(
                            "a statement lambda in a loop condition".into(),
                        ),
                        *span,
                    );
                }
                if let Some(r) = self.returns.last_mut() {
                    r.loop_depth += 1;
                }
                let body = self.lower_block(body);
                if let Some(r) = self.returns.last_mut() {
                    r.loop_depth -= 1;
                }
                let body = body?;
                out.push(Stmt::While {
                    cond,
                    body,
                    span: *span,
                });
                Ok(())
            }
            ast::Stmt::Case {
                scrutinee,
                arms,
                default,
                span,
            } => {
                let v = self.lower_expr(scrutinee, None)?;
                let tmp = self.temp_local("case", v.ty);
                out.push(Stmt::Assign {
                    place: Place::Local(tmp),
                    value: v.clone(),
                    span: *span,
                });
                let mut else_body = match default {
                    Some(b) => self.lower_block(b)?,
                    None => Vec::new(),
                };
                for arm in arms.iter().rev() {
                    let mut cond: Option<Expr> = None;
                    for value in &arm.values {
                        let x = coerce(self.lower_expr(value, Some(v.ty))?, v.ty);
                        let c = Expr {
                            ty: Ty::Bool,
                            kind: ExprKind::Cmp {
                                op: CmpOp::Eq,
                                lhs: Box::new(Expr {
                                    ty: v.ty,
                                    kind: ExprKind::Local(tmp),
                                    span: *span,
                                }),
                                rhs: Box::new(x),
                            },
                            span: *span,
                        };
                        cond = Some(match cond {
                            None => c,
                            Some(prev) => Expr {
                                ty: Ty::Bool,
                                kind: ExprKind::Binary {
                                    op: BinOp::Or,
                                    lhs: Box::new(prev),
                                    rhs: Box::new(c),
                                },
                                span: *span,
                            },
                        });
                    }
                    let then = self.lower_block(&arm.body)?;
                    else_body = vec![Stmt::If {
                        cond: cond.unwrap_or_else(|| bool_expr(false, *span)),
                        then,
                        otherwise: else_body,
                        span: *span,
                    }];
                }
                out.extend(else_body);
                Ok(())
            }
            ast::Stmt::Break { span } => {
                out.push(Stmt::Break { span: *span });
                Ok(())
            }
            ast::Stmt::Continue { span } => {
                out.push(Stmt::Continue { span: *span });
                Ok(())
            }
            ast::Stmt::Return { value, span } => {
                if let (Some(v), Some(target)) = (value, self.returns.last()) {
                    if target.loop_depth > 0 {
                        return err(
                            LowerErrorKind::Unsupported(
                                "`return` inside a loop of a lambda".into(),
                            ),
                            *span,
                        );
                    }
                    let result = target.result;
                    let x = self.lower_expr(v, result.map(|(_, t)| t))?;
                    match result {
                        Some((id, ty)) => {
                            out.push(Stmt::Assign {
                                place: Place::Local(id),
                                value: coerce(x, ty),
                                span: *span,
                            });
                            out.push(Stmt::Break { span: *span });
                        }
                        None => {
                            if let Some(t) = self.returns.last_mut() {
                                t.types.push(x.ty);
                            }
                        }
                    }
                    return Ok(());
                }
                if value.is_some() {
                    return err(
                        LowerErrorKind::Unsupported("`return` with a value".into()),
                        *span,
                    );
                }
                out.push(Stmt::Return { span: *span });
                Ok(())
            }
            ast::Stmt::Lambda {
                name, params, body, ..
            } => {
                self.lambdas.insert(
                    name.clone(),
                    Lambda {
                        params: params.clone(),
                        body: LambdaBody::Expr(body.clone()),
                    },
                );
                Ok(())
            }
            ast::Stmt::LambdaBlock {
                name, params, body, ..
            } => {
                self.lambdas.insert(
                    name.clone(),
                    Lambda {
                        params: params.clone(),
                        body: LambdaBody::Block(body.clone()),
                    },
                );
                Ok(())
            }
            ast::Stmt::Expr { expr, span } => match expr {
                ast::Expr::Call { name, args, .. } => {
                    let (sig, args) = self.lower_call_args(name, args, *span)?;
                    if sig.ret.is_some() && !matches!(sig.builtin.func, Func::Machine(_)) {
                        return err(
                            LowerErrorKind::Unsupported(format!(
                                "the value of `{name}` is not used"
                            )),
                            *span,
                        );
                    }
                    out.push(Stmt::Effect {
                        builtin: sig.builtin,
                        args,
                        span: *span,
                    });
                    Ok(())
                }
                _ => err(
                    LowerErrorKind::Unsupported("an expression used as a statement".into()),
                    *span,
                ),
            },
        }
    }

    pub(super) fn lower_assign(
        &mut self,
        target: &ast::Expr,
        op: Option<BinaryOp>,
        value: &ast::Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Result<()> {
        // A new local: typed by its first assignment (or a hint from a later one).
        if let ast::Expr::Ident { name, .. } = target {
            if op.is_none()
                && self.binding(name).is_none()
                && !self.local_index.contains_key(name.as_str())
                && (self.state_reg_known(name).is_none() || self.assignable_as_local(name))
                && named_constant(name).is_none()
            {
                let hint = self.hints.get(name.as_str()).copied();
                let v = self.lower_expr(value, hint)?;
                let ty = match hint {
                    Some(h) => h,
                    None => {
                        if is_untyped(value) {
                            self.literal_first.push(name.clone());
                        }
                        v.ty
                    }
                };
                let id = self.new_local(name, ty, None);
                out.push(Stmt::Assign {
                    place: Place::Local(id),
                    value: coerce(v, ty),
                    span,
                });
                return Ok(());
            }
        }
        if let ast::Expr::Concat { parts, .. } = target {
            if op.is_some() {
                return err(
                    LowerErrorKind::Unsupported("compound assignment to a concatenation".into()),
                    span,
                );
            }
            let mut places = Vec::new();
            let mut total = 0;
            for p in parts {
                let (place, ty) = self.lower_place(p)?;
                total += ty.width();
                places.push((place, ty.width()));
            }
            let v = self.lower_expr(value, Some(Ty::B(total)))?;
            let v = view_as(v, Ty::B(total));
            out.push(Stmt::AssignConcat {
                places,
                value: v,
                span,
            });
            return Ok(());
        }
        let value_ast = value;
        let (place, ty) = self.lower_place(target)?;
        let value = match op {
            None => self.lower_expr(value, Some(ty))?,
            Some(op) => {
                let synthetic = ast::Expr::Binary {
                    op,
                    lhs: Box::new(target.clone()),
                    rhs: Box::new(value.clone()),
                    span,
                };
                self.lower_expr(&synthetic, Some(ty))?
            }
        };
        if let (ast::Expr::Ident { name, .. }, None) = (target, op) {
            if self.local_index.contains_key(name.as_str()) && !is_untyped(value_ast) {
                self.assigned.entry(name.clone()).or_insert(value.ty);
            }
        }
        let value = coerce(value, ty);
        out.push(Stmt::Assign { place, value, span });
        Ok(())
    }

    /// The memory entries' lower-case operand names (`offset`, `v_addr`) are inputs only
    /// when read first; an entry that assigns one before reading it (S_SETREG's `offset`)
    /// means a local.
    pub(super) fn assignable_as_local(&self, name: &str) -> bool {
        name.starts_with(|c: char| c.is_ascii_lowercase())
            && !self.reg_index.contains_key(name)
            && wave_reg(name).is_none()
            && self.operands.get(name).is_none()
    }

    pub(super) fn state_reg_known(&self, name: &str) -> Option<()> {
        (self.reg_index.contains_key(name)
            || wave_reg(name).is_some()
            || self.operands.is_operand(name))
        .then_some(())
    }
}
