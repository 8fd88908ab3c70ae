//! Free helpers of lowering: named constants, the types of literals and type specs, the
//! conversion and coercion rules, and builders for the IR nodes they produce.

use crate::ir::types::{FloatTy, Ty};
use crate::ir::{BinOp, Conv, Expr, ExprKind, UnOp};
use crate::syntax::ast::{self, BinaryOp, IntSuffix, Span, TypeLetter, TypeSpec, UnaryOp};

/// An untyped constant (the values of `INF`, `PI`, ...).
#[derive(Clone, Copy, Debug)]
pub(super) enum Constant {
    Float(f64),
    Typed(Ty, u64),
    Bool(bool),
}

pub(super) fn named_constant(name: &str) -> Option<Constant> {
    Some(match name {
        "INF" => Constant::Float(f64::INFINITY),
        "NAN" => Constant::Float(f64::NAN),
        "PI" => Constant::Float(std::f64::consts::PI),
        "true" => Constant::Bool(true),
        "false" => Constant::Bool(false),
        "MAX_FLOAT_F32" => Constant::Typed(Ty::F(FloatTy::F32), f32::MAX.to_bits() as u64),
        "OVERFLOW_F32" => Constant::Typed(Ty::F(FloatTy::F32), f32::INFINITY.to_bits() as u64),
        "OVERFLOW_F64" => Constant::Typed(Ty::F(FloatTy::F64), f64::INFINITY.to_bits()),
        "UNDERFLOW_F32" => Constant::Typed(Ty::F(FloatTy::F32), 0),
        "UNDERFLOW_F64" => Constant::Typed(Ty::F(FloatTy::F64), 0),
        "ROUND_NEAREST_EVEN" => Constant::Typed(Ty::U(32), 0),
        "ROUND_UP" => Constant::Typed(Ty::U(32), 1),
        "ROUND_DOWN" => Constant::Typed(Ty::U(32), 2),
        "ROUND_TOWARD_ZERO" => Constant::Typed(Ty::U(32), 3),
        // SDWA operand selectors.
        "BYTE0" => Constant::Typed(Ty::U(32), 0),
        "BYTE1" => Constant::Typed(Ty::U(32), 1),
        "BYTE2" => Constant::Typed(Ty::U(32), 2),
        "BYTE3" => Constant::Typed(Ty::U(32), 3),
        "WORD0" => Constant::Typed(Ty::U(32), 4),
        "WORD1" => Constant::Typed(Ty::U(32), 5),
        "DWORD" => Constant::Typed(Ty::U(32), 6),
        _ => return None,
    })
}

/// Whether an expression has no type of its own: literals and operators over them.
pub(super) fn is_untyped(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Int { suffix, .. } => *suffix == IntSuffix::None,
        ast::Expr::Float { width, .. } => width.is_none(),
        ast::Expr::Ident { name, .. } => {
            matches!(named_constant(name), Some(Constant::Float(_)))
        }
        ast::Expr::Unary { op, operand, .. } => *op != UnaryOp::Not && is_untyped(operand),
        ast::Expr::Binary { op, lhs, rhs, .. } => {
            !matches!(
                op,
                BinaryOp::Lt
                    | BinaryOp::Le
                    | BinaryOp::Gt
                    | BinaryOp::Ge
                    | BinaryOp::Eq
                    | BinaryOp::Ne
                    | BinaryOp::Lg
                    | BinaryOp::And
                    | BinaryOp::Or
            ) && is_untyped(lhs)
                && is_untyped(rhs)
        }
        ast::Expr::Ternary {
            then, otherwise, ..
        } => is_untyped(then) && is_untyped(otherwise),
        _ => false,
    }
}

pub(super) fn is_float_literal(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Float { .. } => true,
        ast::Expr::Ident { name, .. } => matches!(named_constant(name), Some(Constant::Float(_))),
        ast::Expr::Unary { operand, .. } => is_float_literal(operand),
        ast::Expr::Binary { lhs, rhs, .. } => is_float_literal(lhs) || is_float_literal(rhs),
        ast::Expr::Ternary {
            then, otherwise, ..
        } => is_float_literal(then) || is_float_literal(otherwise),
        _ => false,
    }
}

pub(super) fn type_of_spec(ts: TypeSpec) -> Option<Ty> {
    match ts.letter {
        TypeLetter::U => Some(Ty::U(ts.width)),
        TypeLetter::I => Some(Ty::I(ts.width)),
        TypeLetter::B => Some(Ty::B(ts.width)),
        TypeLetter::F => Ty::float_of_width(ts.width).map(Ty::F),
        TypeLetter::BF => (ts.width == 16).then_some(Ty::F(FloatTy::Bf16)),
    }
}

pub(super) fn float_bits(f: FloatTy, x: f64) -> u64 {
    match f {
        FloatTy::F64 => x.to_bits(),
        _ => {
            let mut flags = crate::float::Flags::default();
            crate::float::from_f64(f.format(), x, crate::float::Round::NearestEven, &mut flags)
        }
    }
}

pub(super) fn default_int_ty(v: i128) -> Ty {
    if i32::try_from(v).is_ok() {
        Ty::I(32)
    } else if u32::try_from(v).is_ok() {
        Ty::U(32)
    } else if i64::try_from(v).is_ok() {
        Ty::I(64)
    } else {
        Ty::U(64)
    }
}

pub(super) fn bool_expr(b: bool, span: Span) -> Expr {
    Expr::constant(Ty::Bool, b as u64, span)
}

/// Wraps `e` in a conversion node of type `ty`.
pub(super) fn convert(conv: Conv, ty: Ty, e: Expr) -> Expr {
    let span = e.span;
    Expr {
        ty,
        kind: ExprKind::Convert {
            conv,
            arg: Box::new(e),
        },
        span,
    }
}

/// Reinterprets the bits of `e` as `ty`: resize as bits, then bitcast.
pub(super) fn view_as(e: Expr, ty: Ty) -> Expr {
    if e.ty == ty {
        return e;
    }
    let w = ty.width();
    let e = match e.ty {
        Ty::Bool => convert(Conv::FromBool, Ty::B(1), e),
        Ty::F(_) => {
            let bw = e.ty.width();
            convert(Conv::Bitcast, Ty::B(bw), e)
        }
        _ => e,
    };
    let e = if e.ty.width() != w {
        // Views zero-extend: re-type as bits first so that resizing does not sign-extend.
        let e = if e.ty.is_signed() {
            let bw = e.ty.width();
            convert(Conv::Bitcast, Ty::B(bw), e)
        } else {
            e
        };
        convert(Conv::Resize, Ty::B(w), e)
    } else {
        e
    };
    if e.ty == ty {
        e
    } else {
        convert(Conv::Bitcast, ty, e)
    }
}

/// Converts a value to `ty` the way an assignment or a cast does.
pub(super) fn coerce(e: Expr, ty: Ty) -> Expr {
    if e.ty == ty {
        return e;
    }
    match (e.ty, ty) {
        (Ty::Bool, _) => convert(Conv::FromBool, ty, e),
        (_, Ty::Bool) => convert(Conv::ToBool, ty, e),
        (Ty::F(_), Ty::F(_)) => convert(Conv::FloatToFloat, ty, e),
        (Ty::F(_), Ty::B(_)) => view_as(e, ty),
        (Ty::F(_), _) => convert(Conv::FloatToInt, ty, e),
        (Ty::B(w), Ty::F(f)) if w == f.width() => convert(Conv::Bitcast, ty, e),
        (_, Ty::F(_)) => convert(Conv::IntToFloat, ty, e),
        (from, to) if from.width() == to.width() => convert(Conv::Bitcast, ty, e),
        _ => convert(Conv::Resize, ty, e),
    }
}

pub(super) fn to_bool(e: Expr) -> Expr {
    coerce(e, Ty::Bool)
}

/// The common type of two operands of an arithmetic, bitwise or comparison operator.
pub(super) fn unify(a: Ty, b: Ty) -> Ty {
    match (a, b) {
        (Ty::F(x), Ty::F(y)) => Ty::F(Ty::wider_float(x, y)),
        (Ty::F(x), _) | (_, Ty::F(x)) => Ty::F(x),
        (Ty::Bool, Ty::Bool) => Ty::Bool,
        (Ty::Bool, t) | (t, Ty::Bool) => t,
        _ => {
            let w = a.width().max(b.width());
            match (a, b) {
                (Ty::I(_), _) | (_, Ty::I(_)) => Ty::I(w),
                (Ty::U(_), _) | (_, Ty::U(_)) => Ty::U(w),
                _ => Ty::B(w),
            }
        }
    }
}

/// The type a product of integers of type `ty` (the operands' unified type) is computed in:
/// narrower than 32 bits, 32 bits of the same kind (C's integer promotion, as tinygrad's
/// emulator does too). AMD's branch entries add `signext(SIMM16.i16 * 16'4)` to PC: the
/// byte offset needs 18 bits, and LLVM emits `s_branch` over more than 32 KB of code
/// (tinygrad's large convolution kernels). Every other product of 16-bit operands in AMD's
/// text is truncated back to 16 bits, so widening changes no other result.
pub(super) fn promote_narrow_product(ty: Ty) -> Ty {
    match ty {
        Ty::U(w) if w < 32 => Ty::U(32),
        Ty::I(w) if w < 32 => Ty::I(32),
        Ty::B(w) if w < 32 => Ty::B(32),
        t => t,
    }
}

/// The type an untyped operand takes beside a typed one.
pub(super) fn literal_hint(other: &Ty, untyped: &ast::Expr) -> Option<Ty> {
    match other {
        Ty::Bool => None,
        Ty::F(_) => Some(*other),
        _ if is_float_literal(untyped) => Some(Ty::F(FloatTy::F64)),
        t => Some(*t),
    }
}

/// Indices and bit positions are `u32`.
pub(super) fn coerce_index(e: Expr) -> Expr {
    coerce(e, Ty::U(32))
}

pub(super) fn coerce_addr(e: Expr) -> Expr {
    match e.ty {
        Ty::U(64) => e,
        Ty::I(64) | Ty::B(64) => convert(Conv::Bitcast, Ty::U(64), e),
        _ => coerce(e, Ty::U(64)),
    }
}

pub(super) fn unary(op: UnOp, x: Expr, span: Span) -> Expr {
    Expr {
        ty: x.ty,
        kind: ExprKind::Unary {
            op,
            arg: Box::new(x),
        },
        span,
    }
}

pub(super) fn binary(op: BinOp, ty: Ty, a: Expr, b: Expr, span: Span) -> Expr {
    Expr {
        ty,
        kind: ExprKind::Binary {
            op,
            lhs: Box::new(a),
            rhs: Box::new(b),
        },
        span,
    }
}

pub(super) fn slice(base: Expr, lo: Expr, width: u32, reversed: bool, span: Span) -> Expr {
    let base = match base.ty {
        Ty::F(f) => view_as(base, Ty::B(f.width())),
        Ty::Bool => coerce(base, Ty::U(1)),
        _ => base,
    };
    Expr {
        ty: Ty::B(width),
        kind: ExprKind::Slice {
            arg: Box::new(base),
            lo: Box::new(lo),
            width,
            reversed,
        },
        span,
    }
}
