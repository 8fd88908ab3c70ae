//! Expressions: literals, operators and conditionals.

use super::typing::{
    binary, coerce, coerce_index, default_int_ty, float_bits, is_float_literal, is_untyped,
    literal_hint, promote_narrow_product, slice, to_bool, type_of_spec, unary, unify, view_as,
};
use super::{err, LowerError, LowerErrorKind, Lowerer, Result};
use crate::ir::builtins::{Builtin, Func};
use crate::ir::types::{FloatTy, Ty};
use crate::ir::{BinOp, CmpOp, Expr, ExprKind, RegRole, UnOp};
use crate::syntax::ast::{self, BinaryOp, IntSuffix, Span, TypeLetter, UnaryOp};
use crate::value::Bits;

impl<'a> Lowerer<'a> {
    /// Lowers `e`; untyped expressions take `expected` as their type.
    pub(super) fn lower_expr(&mut self, e: &ast::Expr, expected: Option<Ty>) -> Result<Expr> {
        let span = e.span();
        match e {
            ast::Expr::Int {
                value,
                wide,
                suffix,
                ..
            } => Ok(self.int_literal(*value, wide, *suffix, expected, span)?),
            ast::Expr::Float { value, width, .. } => {
                let f = match width {
                    Some(w) => Ty::float_of_width(*w).ok_or(LowerError {
                        kind: LowerErrorKind::Unsupported(format!("{w}-bit float literal")),
                        span,
                    })?,
                    None => expected.and_then(|t| t.float()).unwrap_or(FloatTy::F64),
                };
                Ok(Expr::constant(Ty::F(f), float_bits(f, *value), span))
            }
            ast::Expr::Ident { name, .. } => self.lower_ident(name, expected, span),
            ast::Expr::Field { base, field, .. } => self.lower_field(base, field, span),
            ast::Expr::Index { base, index, .. } => self.lower_index(e, base, index, span),
            ast::Expr::Slice { base, hi, lo, .. } => {
                let b = self.lower_expr(base, None)?;
                let (lo, width, reversed) = self.slice_bounds(hi, lo, span)?;
                Ok(slice(b, lo, width, reversed, span))
            }
            ast::Expr::PartSelect {
                base, start, width, ..
            } => {
                let b = self.lower_expr(base, None)?;
                let w = self.const_index(width)? as u32;
                if w == 0 || w > crate::ir::types::MAX_WIDTH {
                    return err(LowerErrorKind::NonConstantWidth, span);
                }
                let lo = coerce_index(self.lower_expr(start, Some(Ty::U(32)))?);
                Ok(slice(b, lo, w, false, span))
            }
            ast::Expr::Unary { op, operand, .. } => {
                let x = self.lower_expr(operand, expected)?;
                Ok(match op {
                    UnaryOp::Plus => x,
                    UnaryOp::Neg => {
                        let ty = if x.ty == Ty::Bool { Ty::I(32) } else { x.ty };
                        let x = coerce(x, ty);
                        if let (Some(f), ExprKind::Const(bits)) = (ty.float(), &x.kind) {
                            // Fold the sign of float literals so `-INF` stays a constant.
                            let sign = 1u64 << (f.width() - 1);
                            Expr::constant(ty, bits.low_u64() ^ sign, span)
                        } else {
                            unary(UnOp::Neg, x, span)
                        }
                    }
                    UnaryOp::BitNot => {
                        if x.ty == Ty::Bool {
                            unary(UnOp::Not, x, span)
                        } else {
                            let x = match x.ty {
                                Ty::F(f) => view_as(x, Ty::B(f.width())),
                                _ => x,
                            };
                            unary(UnOp::BitNot, x, span)
                        }
                    }
                    UnaryOp::Not => unary(UnOp::Not, to_bool(x), span),
                })
            }
            ast::Expr::Binary { op, lhs, rhs, .. } => {
                self.lower_binary(*op, lhs, rhs, expected, span)
            }
            ast::Expr::Ternary {
                cond,
                then,
                otherwise,
                ..
            } => {
                let c = to_bool(self.lower_expr(cond, Some(Ty::Bool))?);
                let (a, b) = self.lower_pair(then, otherwise, expected)?;
                let ty = unify(a.ty, b.ty);
                Ok(Expr {
                    ty,
                    kind: ExprKind::Select {
                        cond: Box::new(c),
                        then: Box::new(coerce(a, ty)),
                        otherwise: Box::new(coerce(b, ty)),
                    },
                    span,
                })
            }
            ast::Expr::Cast { ty, operand, .. } => {
                let Some(t) = type_of_spec(*ty) else {
                    return err(LowerErrorKind::Unsupported(format!("cast to {ty}")), span);
                };
                // AMD writes float bit patterns as hex literals in a float cast
                // (`32'F(0xffc00000)`, the default NaN): those reinterpret, where a decimal
                // integer converts by value.
                if let (
                    Ty::F(f),
                    ast::Expr::Int {
                        value,
                        suffix: IntSuffix::None | IntSuffix::U | IntSuffix::LL | IntSuffix::ULL,
                        hex: true,
                        ..
                    },
                ) = (t, operand.as_ref())
                {
                    let bits = f.width();
                    if bits <= 64 && *value >> bits == 0 {
                        let lit =
                            self.int_literal(*value, "", IntSuffix::None, Some(Ty::B(bits)), span)?;
                        let mut out = coerce(lit, t);
                        out.span = span;
                        return Ok(out);
                    }
                }
                let x = self.lower_expr(operand, Some(t))?;
                if let (Ty::F(_), Ty::B(_)) = (x.ty, t) {
                    // `23'B(mantissa(x))` keeps the low bits of the float's encoding;
                    // `1201'B(2.0 / PI)` would need the exact real value and is not defined.
                    if x.ty.width() < t.width() {
                        return err(
                            LowerErrorKind::Unsupported(format!("cast of a {} to {}", x.ty, ty)),
                            span,
                        );
                    }
                }
                let mut out = coerce(x, t);
                out.span = span;
                Ok(out)
            }
            ast::Expr::Call { name, args, .. } => {
                if self.lambdas.contains_key(name.as_str()) {
                    return self.lower_lambda_call(name, args, span);
                }
                // The address helpers of RDNA 4 and CDNA memory entries compute from the
                // encoding's fields what RDNA 3's text reads as `ADDR`: the wave layer
                // computes that address and binds it as the `ADDR` operand, so a call is a
                // read of it (see LANGUAGE.md, "Memory addresses").
                if matches!(
                    name.as_str(),
                    "CalcDsAddr"
                        | "CalcBufferAddr"
                        | "CalcGlobalAddr"
                        | "CalcFlatAddr"
                        | "CalcScratchAddr"
                        | "CalcScalarGlobalAddr"
                ) {
                    let id = self.reg("ADDR", 64, RegRole::Operand);
                    let x = self.reg_expr(id, span);
                    let mut out = coerce(x, Ty::U(64));
                    out.span = span;
                    return Ok(out);
                }
                let (sig, args) = self.lower_call_args(name, args, span)?;
                let Some(ret) = sig.ret else {
                    return err(
                        LowerErrorKind::BadCall {
                            name: name.clone(),
                            reason: "has no value".into(),
                        },
                        span,
                    );
                };
                Ok(Expr {
                    ty: ret,
                    kind: ExprKind::Call {
                        builtin: sig.builtin,
                        args,
                    },
                    span,
                })
            }
            ast::Expr::Concat { parts, .. } => {
                let mut out = Vec::new();
                let mut width = 0;
                for p in parts {
                    let x = self.lower_expr(p, None)?;
                    let x = match x.ty {
                        Ty::Bool => coerce(x, Ty::U(1)),
                        _ => x,
                    };
                    width += x.ty.width();
                    out.push(x);
                }
                if width > crate::ir::types::MAX_WIDTH {
                    return err(
                        LowerErrorKind::Unsupported("concatenation too wide".into()),
                        span,
                    );
                }
                Ok(Expr {
                    ty: Ty::B(width),
                    kind: ExprKind::Concat(out),
                    span,
                })
            }
        }
    }

    pub(super) fn int_literal(
        &mut self,
        value: u128,
        wide: &str,
        suffix: IntSuffix,
        expected: Option<Ty>,
        span: Span,
    ) -> Result<Expr> {
        let ty = match suffix {
            IntSuffix::U => Ty::U(32),
            IntSuffix::LL => Ty::I(64),
            IntSuffix::ULL => Ty::U(64),
            IntSuffix::Sized(w, letter) => {
                if w == 0 || w > crate::ir::types::MAX_WIDTH {
                    return err(
                        LowerErrorKind::Unsupported(format!("{w}-bit literal")),
                        span,
                    );
                }
                match letter {
                    Some(TypeLetter::U) => Ty::U(w),
                    Some(TypeLetter::I) => Ty::I(w),
                    Some(TypeLetter::F) | Some(TypeLetter::BF) => {
                        return err(
                            LowerErrorKind::Unsupported("integer literal typed as float".into()),
                            span,
                        )
                    }
                    _ => Ty::B(w),
                }
            }
            IntSuffix::None => match expected {
                Some(Ty::F(f)) => {
                    return Ok(Expr::constant(Ty::F(f), float_bits(f, value as f64), span))
                }
                Some(t @ (Ty::U(_) | Ty::I(_) | Ty::B(_))) => t,
                _ => default_int_ty(value as i128),
            },
        };
        let bits = if wide.is_empty() {
            Bits::from_u128(ty.width(), value)
        } else {
            Bits::from_hex(ty.width(), wide).ok_or(LowerError {
                kind: LowerErrorKind::Unsupported("malformed wide literal".into()),
                span,
            })?
        };
        Ok(Expr {
            ty,
            kind: ExprKind::Const(bits),
            span,
        })
    }

    /// Lowers two operands, letting an untyped one take the other's type.
    pub(super) fn lower_pair(
        &mut self,
        a: &ast::Expr,
        b: &ast::Expr,
        expected: Option<Ty>,
    ) -> Result<(Expr, Expr)> {
        match (is_untyped(a), is_untyped(b)) {
            (false, true) => {
                let x = self.lower_expr(a, None)?;
                let hint = literal_hint(&x.ty, b);
                let y = self.lower_expr(b, hint)?;
                Ok((x, y))
            }
            (true, false) => {
                let y = self.lower_expr(b, None)?;
                let hint = literal_hint(&y.ty, a);
                let x = self.lower_expr(a, hint)?;
                Ok((x, y))
            }
            (true, true) => {
                let hint = match expected {
                    Some(Ty::Bool) => None,
                    e => e,
                };
                let hint = if hint.is_none() && (is_float_literal(a) || is_float_literal(b)) {
                    Some(Ty::F(FloatTy::F64))
                } else {
                    hint
                };
                Ok((self.lower_expr(a, hint)?, self.lower_expr(b, hint)?))
            }
            (false, false) => Ok((self.lower_expr(a, None)?, self.lower_expr(b, None)?)),
        }
    }

    pub(super) fn lower_binary(
        &mut self,
        op: BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        expected: Option<Ty>,
        span: Span,
    ) -> Result<Expr> {
        // `x == DENORM.f32` tests whether x is a denormal.
        if matches!(op, BinaryOp::Eq | BinaryOp::Ne) {
            if let ast::Expr::Field { base, field, .. } = rhs {
                if matches!(base.as_ref(), ast::Expr::Ident { name, .. } if name == "DENORM") {
                    let x = self.lower_expr(lhs, Ty::from_view(field))?;
                    let f = x.ty.float().ok_or(LowerError {
                        kind: LowerErrorKind::TypeMismatch("DENORM compares floats".into()),
                        span,
                    })?;
                    let test = Expr {
                        ty: Ty::Bool,
                        kind: ExprKind::Call {
                            builtin: Builtin {
                                func: Func::IsDenorm,
                                ty: Ty::F(f),
                                aux: Ty::F(f),
                            },
                            args: vec![x],
                        },
                        span,
                    };
                    return Ok(if op == BinaryOp::Ne {
                        unary(UnOp::Not, test, span)
                    } else {
                        test
                    });
                }
            }
        }
        match op {
            BinaryOp::And | BinaryOp::Or => {
                let a = to_bool(self.lower_expr(lhs, Some(Ty::Bool))?);
                let b = to_bool(self.lower_expr(rhs, Some(Ty::Bool))?);
                let op = if op == BinaryOp::And {
                    BinOp::And
                } else {
                    BinOp::Or
                };
                Ok(binary(op, Ty::Bool, a, b, span))
            }
            BinaryOp::Shl | BinaryOp::Shr => {
                let a = self.lower_expr(lhs, expected.filter(|t| t.is_int()))?;
                let a = match a.ty {
                    Ty::Bool => coerce(a, Ty::U(1)),
                    Ty::F(f) => view_as(a, Ty::B(f.width())),
                    _ => a,
                };
                let b = self.lower_expr(rhs, Some(Ty::U(32)))?;
                let b = match b.ty {
                    Ty::Bool | Ty::F(_) => coerce(b, Ty::U(32)),
                    _ => b,
                };
                let op = if op == BinaryOp::Shl {
                    BinOp::Shl
                } else {
                    BinOp::Shr
                };
                Ok(binary(op, a.ty, a, b, span))
            }
            BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge
            | BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::Lg => {
                let (a, b) = self.lower_pair(lhs, rhs, None)?;
                let ty = unify(a.ty, b.ty);
                let cmp = match op {
                    BinaryOp::Lt => CmpOp::Lt,
                    BinaryOp::Le => CmpOp::Le,
                    BinaryOp::Gt => CmpOp::Gt,
                    BinaryOp::Ge => CmpOp::Ge,
                    BinaryOp::Eq => CmpOp::Eq,
                    // On integers `<>` and `!=` agree; on floats `<>` is ordered.
                    BinaryOp::Lg if ty.float().is_some() => CmpOp::Lg,
                    _ => CmpOp::Ne,
                };
                Ok(Expr {
                    ty: Ty::Bool,
                    kind: ExprKind::Cmp {
                        op: cmp,
                        lhs: Box::new(coerce(a, ty)),
                        rhs: Box::new(coerce(b, ty)),
                    },
                    span,
                })
            }
            BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => {
                let (a, b) = self.lower_pair(lhs, rhs, expected)?;
                let bop = match op {
                    BinaryOp::BitAnd => BinOp::BitAnd,
                    BinaryOp::BitOr => BinOp::BitOr,
                    _ => BinOp::BitXor,
                };
                if a.ty == Ty::Bool && b.ty == Ty::Bool {
                    return Ok(binary(bop, Ty::Bool, a, b, span));
                }
                // Bitwise operators see floats as their bits.
                let bits = |x: Expr| match x.ty {
                    Ty::F(f) => view_as(x, Ty::B(f.width())),
                    _ => x,
                };
                let (a, b) = (bits(a), bits(b));
                let ty = unify(a.ty, b.ty);
                Ok(binary(bop, ty, coerce(a, ty), coerce(b, ty), span))
            }
            BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::Mul
            | BinaryOp::Div
            | BinaryOp::Rem
            | BinaryOp::Pow => {
                let (a, b) = self.lower_pair(lhs, rhs, expected)?;
                let mut ty = unify(a.ty, b.ty);
                if ty == Ty::Bool {
                    ty = Ty::U(1);
                }
                let bop = match op {
                    BinaryOp::Add => BinOp::Add,
                    BinaryOp::Sub => BinOp::Sub,
                    BinaryOp::Mul => BinOp::Mul,
                    BinaryOp::Div => BinOp::Div,
                    BinaryOp::Rem => BinOp::Rem,
                    _ => BinOp::Pow,
                };
                if bop == BinOp::Pow && ty.float().is_none() {
                    return err(
                        LowerErrorKind::TypeMismatch("`**` needs a float operand".into()),
                        span,
                    );
                }
                if bop == BinOp::Rem && ty.float().is_some() {
                    return err(
                        LowerErrorKind::TypeMismatch("`%` needs integer operands".into()),
                        span,
                    );
                }
                if bop == BinOp::Mul {
                    ty = promote_narrow_product(ty);
                }
                Ok(binary(bop, ty, coerce(a, ty), coerce(b, ty), span))
            }
        }
    }
}
