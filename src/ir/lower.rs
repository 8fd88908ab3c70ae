//! AST → typed IR: name resolution, type checking and explicit conversions.
//!
//! The rules implemented here are the language reference (`semantics/LANGUAGE.md`); the
//! main ones:
//! - Untyped literals (`4`, `0.5`, `-1`, and operators/ternaries over only such literals)
//!   take the type their context expects: the other operand of a binary operator, the
//!   assignment target, the parameter of a call, the type of a cast. Without context an
//!   integer literal is `i32` (`i64`/`u64` if it does not fit) and a float literal `f64`.
//! - Mixed integer operands widen to the wider width; signed wins over unsigned, both over
//!   bits. Each operand is extended according to its own signedness.
//! - A float operand beside an integer one converts the integer by value.
//! - Locals take the type of their declaration, else of their first typed assignment.
//! - `x.u32` views the low 32 bits of `x` as `u32` (zero-extending when `x` is narrower).

use std::collections::HashMap;
use std::fmt;

use super::builtins::{self, Builtin, Func, SigError};
pub use super::names::OperandWidths;
use super::names::{status_field_width, wave_reg, STATUS_BASES};
use super::types::{FloatTy, Ty};
use super::{
    BinOp, CmpOp, Conv, Expr, ExprKind, Function, LocalId, LocalInfo, Place, RegId, RegInfo,
    RegRole, Space, Stmt, UnOp,
};
use crate::syntax::ast::{self, BinaryOp, IntSuffix, Span, TypeLetter, TypeSpec, UnaryOp};
use crate::value::Bits;

/// What went wrong while lowering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LowerErrorKind {
    /// A name that is no local, operand, state register or constant.
    UnknownIdentifier(String),
    /// A call of a function the built-in library does not have, or with bad arguments.
    BadCall {
        /// The function.
        name: String,
        /// Why.
        reason: String,
    },
    /// Operand types that do not fit the operator.
    TypeMismatch(String),
    /// An expression that cannot be assigned to.
    NotAssignable,
    /// A slice or part-select whose width is not a constant.
    NonConstantWidth,
    /// A construct the IR does not model (named in the message).
    Unsupported(String),
}

/// An error from lowering, with the span of the offending text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerError {
    /// What.
    pub kind: LowerErrorKind,
    /// Where.
    pub span: Span,
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            LowerErrorKind::UnknownIdentifier(n) => write!(f, "unknown identifier `{n}`"),
            LowerErrorKind::BadCall { name, reason } => write!(f, "call of `{name}`: {reason}"),
            LowerErrorKind::TypeMismatch(m) => write!(f, "type mismatch: {m}"),
            LowerErrorKind::NotAssignable => f.write_str("this expression cannot be assigned to"),
            LowerErrorKind::NonConstantWidth => {
                f.write_str("the width of this slice is not a constant")
            }
            LowerErrorKind::Unsupported(m) => write!(f, "unsupported: {m}"),
        }
    }
}

impl std::error::Error for LowerError {}

type Result<T> = std::result::Result<T, LowerError>;

fn err<T>(kind: LowerErrorKind, span: Span) -> Result<T> {
    Err(LowerError { kind, span })
}

/// An untyped constant (the values of `INF`, `PI`, ...).
#[derive(Clone, Copy, Debug)]
enum Constant {
    Float(f64),
    Typed(Ty, u64),
    Bool(bool),
}

fn named_constant(name: &str) -> Option<Constant> {
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
fn is_untyped(e: &ast::Expr) -> bool {
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

fn is_float_literal(e: &ast::Expr) -> bool {
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

fn type_of_spec(ts: TypeSpec) -> Option<Ty> {
    match ts.letter {
        TypeLetter::U => Some(Ty::U(ts.width)),
        TypeLetter::I => Some(Ty::I(ts.width)),
        TypeLetter::B => Some(Ty::B(ts.width)),
        TypeLetter::F => Ty::float_of_width(ts.width).map(Ty::F),
        TypeLetter::BF => (ts.width == 16).then_some(Ty::F(FloatTy::Bf16)),
    }
}

fn float_bits(f: FloatTy, x: f64) -> u64 {
    match f {
        FloatTy::F64 => x.to_bits(),
        _ => {
            let mut flags = crate::float::Flags::default();
            crate::float::from_f64(f.format(), x, crate::float::Round::NearestEven, &mut flags)
        }
    }
}

enum LambdaBody {
    Expr(ast::Expr),
    Block(Vec<ast::Stmt>),
}

struct Lambda {
    params: Vec<String>,
    body: LambdaBody,
}

/// While inlining a statement lambda: where `return e` stores, and the types seen.
struct ReturnTarget {
    result: Option<(LocalId, Ty)>,
    types: Vec<Ty>,
    loop_depth: u32,
}

/// The lowering state of one entry.
struct Lowerer<'a> {
    operands: &'a OperandWidths,
    regs: Vec<RegInfo>,
    reg_types: Vec<Option<Ty>>,
    reg_arrays: HashMap<RegId, (Ty, u32)>,
    reg_index: HashMap<String, RegId>,
    locals: Vec<LocalInfo>,
    local_index: HashMap<String, LocalId>,
    lambdas: HashMap<String, Lambda>,
    bindings: Vec<HashMap<String, Expr>>,
    /// Widths of operands implied by views and slices in the text.
    view_widths: HashMap<String, u32>,
    /// Types learnt for locals in an earlier round (from later typed assignments).
    hints: HashMap<String, Ty>,
    /// Types of typed assignments seen this round, per local.
    assigned: HashMap<String, Ty>,
    /// Locals whose first assignment was an untyped literal.
    literal_first: Vec<String>,
    temp_counter: u32,
    /// Statements that must run before the statement being lowered (inlined statement
    /// lambdas).
    pre: Vec<Stmt>,
    returns: Vec<ReturnTarget>,
}

/// Lowers a parsed entry to a typed [`Function`].
///
/// # Errors
/// The first [`LowerError`] met, with its span.
pub fn lower_program(
    name: &str,
    program: &ast::Program,
    operands: &OperandWidths,
) -> std::result::Result<Function, LowerError> {
    let mut view_widths = HashMap::new();
    collect_view_widths(&program.body, &mut view_widths);
    let mut hints: HashMap<String, Ty> = HashMap::new();
    // Locals first assigned an untyped literal take the type of a later typed assignment,
    // which a second round learns from the first.
    for _round in 0..3 {
        let mut l = Lowerer {
            operands,
            regs: Vec::new(),
            reg_types: Vec::new(),
            reg_arrays: HashMap::new(),
            reg_index: HashMap::new(),
            locals: Vec::new(),
            local_index: HashMap::new(),
            lambdas: HashMap::new(),
            bindings: Vec::new(),
            view_widths: view_widths.clone(),
            hints: hints.clone(),
            assigned: HashMap::new(),
            literal_first: Vec::new(),
            temp_counter: 0,
            pre: Vec::new(),
            returns: Vec::new(),
        };
        let body = l.lower_block(&program.body)?;
        let mut changed = false;
        for local in &l.literal_first {
            if let Some(t) = l.assigned.get(local) {
                if hints.get(local) != Some(t) {
                    hints.insert(local.clone(), *t);
                    changed = true;
                }
            }
        }
        if !changed {
            return Ok(Function {
                name: name.to_string(),
                regs: l.regs,
                locals: l.locals,
                body,
            });
        }
    }
    err(
        LowerErrorKind::Unsupported("local types do not settle".into()),
        Span::default(),
    )
}

fn collect_view_widths(body: &[ast::Stmt], out: &mut HashMap<String, u32>) {
    fn expr(e: &ast::Expr, out: &mut HashMap<String, u32>) {
        match e {
            ast::Expr::Field { base, field, .. } => {
                if let (ast::Expr::Ident { name, .. }, Some(t)) =
                    (base.as_ref(), Ty::from_view(field))
                {
                    let w = out.entry(name.clone()).or_insert(0);
                    *w = (*w).max(t.width());
                }
                expr(base, out);
            }
            ast::Expr::Slice { base, hi, lo, .. } => {
                if let ast::Expr::Ident { name, .. } = base.as_ref() {
                    for b in [hi, lo] {
                        if let ast::Expr::Int { value, .. } = b.as_ref() {
                            let w = out.entry(name.clone()).or_insert(0);
                            *w = (*w).max((*value as u32).saturating_add(1));
                        }
                    }
                }
                expr(base, out);
                expr(hi, out);
                expr(lo, out);
            }
            ast::Expr::Index { base, index, .. } => {
                expr(base, out);
                expr(index, out);
            }
            ast::Expr::PartSelect {
                base, start, width, ..
            } => {
                expr(base, out);
                expr(start, out);
                expr(width, out);
            }
            ast::Expr::Unary { operand, .. } | ast::Expr::Cast { operand, .. } => {
                expr(operand, out)
            }
            ast::Expr::Binary { lhs, rhs, .. } => {
                expr(lhs, out);
                expr(rhs, out);
            }
            ast::Expr::Ternary {
                cond,
                then,
                otherwise,
                ..
            } => {
                expr(cond, out);
                expr(then, out);
                expr(otherwise, out);
            }
            ast::Expr::Call { args, .. } => args.iter().for_each(|a| expr(a, out)),
            ast::Expr::Concat { parts, .. } => parts.iter().for_each(|a| expr(a, out)),
            _ => {}
        }
    }
    for s in body {
        match s {
            ast::Stmt::Assign { target, value, .. } => {
                expr(target, out);
                expr(value, out);
            }
            ast::Stmt::If {
                arms, otherwise, ..
            } => {
                for a in arms {
                    expr(&a.cond, out);
                    collect_view_widths(&a.body, out);
                }
                if let Some(o) = otherwise {
                    collect_view_widths(o, out);
                }
            }
            ast::Stmt::For {
                start, end, body, ..
            } => {
                expr(start, out);
                expr(end, out);
                collect_view_widths(body, out);
            }
            ast::Stmt::While { cond, body, .. } => {
                expr(cond, out);
                collect_view_widths(body, out);
            }
            ast::Stmt::Case {
                scrutinee,
                arms,
                default,
                ..
            } => {
                expr(scrutinee, out);
                for a in arms {
                    collect_view_widths(&a.body, out);
                }
                if let Some(d) = default {
                    collect_view_widths(d, out);
                }
            }
            ast::Stmt::Return { value: Some(v), .. } => expr(v, out),
            ast::Stmt::Lambda { body, .. } => expr(body, out),
            ast::Stmt::Expr { expr: e, .. } => expr(e, out),
            _ => {}
        }
    }
}

fn default_int_ty(v: i128) -> Ty {
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

fn bool_expr(b: bool, span: Span) -> Expr {
    Expr::constant(Ty::Bool, b as u64, span)
}

/// Wraps `e` in a conversion node of type `ty`.
fn convert(conv: Conv, ty: Ty, e: Expr) -> Expr {
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
fn view_as(e: Expr, ty: Ty) -> Expr {
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
fn coerce(e: Expr, ty: Ty) -> Expr {
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

fn to_bool(e: Expr) -> Expr {
    coerce(e, Ty::Bool)
}

/// The common type of two operands of an arithmetic, bitwise or comparison operator.
fn unify(a: Ty, b: Ty) -> Ty {
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

impl<'a> Lowerer<'a> {
    // ----- names -------------------------------------------------------------------------

    fn reg(&mut self, name: &str, width: u32, role: RegRole) -> RegId {
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
    fn reg_ty(&self, id: RegId) -> Ty {
        let width = self.regs[id.0 as usize].width;
        match self.reg_types[id.0 as usize] {
            Some(t) if t.width() == width => t,
            _ if width == 1 => Ty::U(1),
            _ => Ty::B(width),
        }
    }

    fn reg_expr(&mut self, id: RegId, span: Span) -> Expr {
        self.regs[id.0 as usize].read = true;
        Expr {
            ty: self.reg_ty(id),
            kind: ExprKind::Reg(id),
            span,
        }
    }

    /// An operand is as wide as the instruction's operand table says (a wider view reads it
    /// zero-extended); operands the table does not list are as wide as the widest view the
    /// text takes of them, at least the default.
    fn operand_reg(&mut self, name: &str) -> RegId {
        let view = self.view_widths.get(name).copied().unwrap_or(0);
        let width = match self.operands.get(name) {
            Some(table) if table >= 8 => table,
            Some(table) => table.max(view),
            // A memory address the table does not list (SMEM's, computed from `sbase`) is a
            // 64-bit address.
            None if name == "ADDR" => 64,
            None => self.operands.default_width.max(view),
        };
        self.reg(name, width, RegRole::Operand)
    }

    /// Resolves a name that is not bound locally to a state register.
    fn state_reg(&mut self, name: &str) -> Option<RegId> {
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

    fn new_local(&mut self, name: &str, ty: Ty, len: Option<u32>) -> LocalId {
        let id = LocalId(self.locals.len() as u32);
        self.locals.push(LocalInfo {
            name: name.to_string(),
            ty,
            len,
        });
        self.local_index.insert(name.to_string(), id);
        id
    }

    fn temp_local(&mut self, base: &str, ty: Ty) -> LocalId {
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

    fn binding(&self, name: &str) -> Option<&Expr> {
        self.bindings.iter().rev().find_map(|b| b.get(name))
    }

    fn lower_ident(&mut self, name: &str, expected: Option<Ty>, span: Span) -> Result<Expr> {
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

    // ----- statements --------------------------------------------------------------------

    fn lower_block(&mut self, body: &[ast::Stmt]) -> Result<Vec<Stmt>> {
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

    fn lower_stmt(&mut self, s: &ast::Stmt, out: &mut Vec<Stmt>) -> Result<()> {
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

    fn lower_assign(
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
    fn assignable_as_local(&self, name: &str) -> bool {
        name.starts_with(|c: char| c.is_ascii_lowercase())
            && !self.reg_index.contains_key(name)
            && wave_reg(name).is_none()
            && self.operands.get(name).is_none()
    }

    fn state_reg_known(&self, name: &str) -> Option<()> {
        (self.reg_index.contains_key(name)
            || wave_reg(name).is_some()
            || self.operands.is_operand(name))
        .then_some(())
    }

    /// Lowers an assignment target to a place and the type a value must have there.
    fn lower_place(&mut self, e: &ast::Expr) -> Result<(Place, Ty)> {
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
    fn memory_target(&mut self, e: &ast::Expr) -> Result<Option<(Space, Expr, Option<Expr>)>> {
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

    fn is_free(&self, name: &str) -> bool {
        self.binding(name).is_none() && !self.local_index.contains_key(name)
    }

    fn status_reg(&mut self, base: &ast::Expr, field: &str, span: Span) -> Result<RegId> {
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

    fn const_index(&mut self, e: &ast::Expr) -> Result<u64> {
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

    fn element_offset(&mut self, index: &ast::Expr, width: u32) -> Result<Expr> {
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
    fn slice_bounds(
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
            if w > super::types::MAX_WIDTH as u64 {
                return err(LowerErrorKind::NonConstantWidth, span);
            }
            return Ok((Expr::constant(Ty::U(32), lo_v, span), w as u32, rev));
        }
        let (hb, ho) = linear(hi);
        let (lb, lo_off) = linear(lo);
        if hb == lb && ho >= lo_off && ho - lo_off < super::types::MAX_WIDTH as i128 {
            return Ok((coerce_index(l), (ho - lo_off + 1) as u32, false));
        }
        err(LowerErrorKind::NonConstantWidth, span)
    }

    // ----- expressions -------------------------------------------------------------------

    /// Lowers `e`; untyped expressions take `expected` as their type.
    fn lower_expr(&mut self, e: &ast::Expr, expected: Option<Ty>) -> Result<Expr> {
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
                if w == 0 || w > super::types::MAX_WIDTH {
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
                if width > super::types::MAX_WIDTH {
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

    fn int_literal(
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
                if w == 0 || w > super::types::MAX_WIDTH {
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
    fn lower_pair(
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

    fn lower_binary(
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
                Ok(binary(bop, ty, coerce(a, ty), coerce(b, ty), span))
            }
        }
    }

    fn lower_field(&mut self, base: &ast::Expr, field: &str, span: Span) -> Result<Expr> {
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

    fn lower_index(
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

    fn lower_call_args(
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

    fn lower_lambda_call(&mut self, name: &str, args: &[ast::Expr], span: Span) -> Result<Expr> {
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

/// The type an untyped operand takes beside a typed one.
fn literal_hint(other: &Ty, untyped: &ast::Expr) -> Option<Ty> {
    match other {
        Ty::Bool => None,
        Ty::F(_) => Some(*other),
        _ if is_float_literal(untyped) => Some(Ty::F(FloatTy::F64)),
        t => Some(*t),
    }
}

/// Indices and bit positions are `u32`.
fn coerce_index(e: Expr) -> Expr {
    coerce(e, Ty::U(32))
}

fn coerce_addr(e: Expr) -> Expr {
    match e.ty {
        Ty::U(64) => e,
        Ty::I(64) | Ty::B(64) => convert(Conv::Bitcast, Ty::U(64), e),
        _ => coerce(e, Ty::U(64)),
    }
}

fn unary(op: UnOp, x: Expr, span: Span) -> Expr {
    Expr {
        ty: x.ty,
        kind: ExprKind::Unary {
            op,
            arg: Box::new(x),
        },
        span,
    }
}

fn binary(op: BinOp, ty: Ty, a: Expr, b: Expr, span: Span) -> Expr {
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

fn slice(base: Expr, lo: Expr, width: u32, reversed: bool, span: Span) -> Expr {
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
