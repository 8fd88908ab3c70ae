//! Calls: built-in functions with their arguments, and inlined lambdas.

use std::collections::HashMap;

use super::typing::{coerce, is_float_literal, is_untyped, unify};
use super::{err, LambdaBody, LowerError, LowerErrorKind, Lowerer, Result, ReturnTarget};
use crate::ir::builtins::{self, SigError};
use crate::ir::types::Ty;
use crate::ir::{Expr, ExprKind, Place, Stmt};
use crate::syntax::ast::{self, Span};

impl<'a> Lowerer<'a> {
    pub(super) fn lower_call_args(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Result<(builtins::Signature, Vec<Expr>)> {
        // Typed arguments first; untyped ones then take the first float type among them
        // (so `fma(S0.f32, 2.0, x)` stays in f32).
        let mut lowered: Vec<Option<Expr>> = vec![None; args.len()];
        let mut float_ctx = None;
        for (i, a) in args.iter().enumerate() {
            if !is_untyped(a) {
                let x = self.lower_expr(a, None)?;
                if float_ctx.is_none() {
                    float_ctx = x.ty.float().map(Ty::F);
                }
                lowered[i] = Some(x);
            }
        }
        for (i, a) in args.iter().enumerate() {
            if lowered[i].is_none() {
                let hint = if is_float_literal(a) { float_ctx } else { None };
                lowered[i] = Some(self.lower_expr(a, hint)?);
            }
        }
        let lowered: Vec<Expr> = lowered.into_iter().flatten().collect();
        let tys: Vec<Ty> = lowered.iter().map(|e| e.ty).collect();
        let sig = builtins::resolve(name, &tys).map_err(|e| LowerError {
            kind: match e {
                SigError::Unknown => LowerErrorKind::BadCall {
                    name: name.to_string(),
                    reason: "unknown function".into(),
                },
                other => LowerErrorKind::BadCall {
                    name: name.to_string(),
                    reason: other.to_string(),
                },
            },
            span,
        })?;
        let mut sig = sig;
        let mut args: Vec<Expr> = lowered
            .into_iter()
            .zip(&sig.params)
            .map(|(a, t)| coerce(a, *t))
            .collect();
        if builtins::saturates_by_clamp(&sig) {
            // The encoding's clamp bit selects saturation (see `Func::Convert`).
            let id = self.operand_reg("CLAMP");
            let clamp = self.reg_expr(id, span);
            sig.params.push(clamp.ty);
            args.push(clamp);
        }
        Ok((sig, args))
    }

    pub(super) fn lower_lambda_call(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Result<Expr> {
        let Some(lambda) = self.lambdas.get(name) else {
            return err(LowerErrorKind::UnknownIdentifier(name.to_string()), span);
        };
        if lambda.params.len() != args.len() {
            return err(
                LowerErrorKind::BadCall {
                    name: name.to_string(),
                    reason: format!("takes {} argument(s)", lambda.params.len()),
                },
                span,
            );
        }
        let params = lambda.params.clone();
        let block = match &lambda.body {
            LambdaBody::Expr(body) => {
                let body = body.clone();
                let mut frame = HashMap::new();
                for (p, a) in params.iter().zip(args) {
                    let x = self.lower_expr(a, None)?;
                    frame.insert(p.clone(), x);
                }
                self.bindings.push(frame);
                let out = self.lower_expr(&body, None);
                self.bindings.pop();
                return out;
            }
            LambdaBody::Block(b) => b.clone(),
        };
        // A statement lambda is inlined before the current statement: its arguments go to
        // temporaries, its body runs in a one-iteration loop, and `return e` stores `e` in a
        // result temporary and leaves the loop.
        let mut frame = HashMap::new();
        for (p, a) in params.iter().zip(args) {
            let x = self.lower_expr(a, None)?;
            let tmp = self.temp_local(p, x.ty);
            self.pre.push(Stmt::Assign {
                place: Place::Local(tmp),
                value: x.clone(),
                span,
            });
            frame.insert(
                p.clone(),
                Expr {
                    ty: x.ty,
                    kind: ExprKind::Local(tmp),
                    span,
                },
            );
        }
        self.bindings.push(frame);
        // First pass: learn the result type from the returned expressions.
        self.returns.push(ReturnTarget {
            result: None,
            types: Vec::new(),
            loop_depth: 0,
        });
        let probe = self.lower_block(&block);
        let target = self.returns.pop();
        if let Err(e) = probe {
            self.bindings.pop();
            return Err(e);
        }
        let types = target.map(|t| t.types).unwrap_or_default();
        let Some(mut ty) = types.first().copied() else {
            self.bindings.pop();
            return err(
                LowerErrorKind::Unsupported(format!("lambda `{name}` returns no value")),
                span,
            );
        };
        for t in &types[1..] {
            ty = unify(ty, *t);
        }
        let result = self.temp_local(name, ty);
        self.returns.push(ReturnTarget {
            result: Some((result, ty)),
            types: Vec::new(),
            loop_depth: 0,
        });
        let body = self.lower_block(&block);
        self.returns.pop();
        self.bindings.pop();
        let body = body?;
        let once = self.temp_local("once", Ty::U(1));
        self.pre.push(Stmt::For {
            var: once,
            start: Expr::constant(Ty::U(1), 0, span),
            end: Expr::constant(Ty::U(1), 0, span),
            body,
            span,
        });
        Ok(Expr {
            ty,
            kind: ExprKind::Local(result),
            span,
        })
    }
}
