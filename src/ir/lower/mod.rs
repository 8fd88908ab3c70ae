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
//!
//! The `Lowerer` state and the entry point live here; its methods are split by what they
//! lower: `scope` (names), `stmt` (statements), `place` (assignment targets), `expr`
//! (expressions), `slice` (slices, indexing, views), `call` (built-ins and lambdas), and
//! `typing` holds the free helpers for literal types, coercions and IR node builders.

use std::collections::HashMap;
use std::fmt;

pub use super::names::OperandWidths;
use super::types::Ty;
use super::{Expr, Function, LocalId, LocalInfo, RegId, RegInfo, Stmt};
use crate::syntax::ast::{self, Span};

mod call;
mod expr;
mod place;
mod scope;
mod slice;
mod stmt;
mod typing;

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
    /// Widths implied by constant bit slices alone (`S0[31 : 16]` reads a 32-bit register).
    slice_widths: HashMap<String, u32>,
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
    let mut widths = ViewWidths::default();
    collect_view_widths(&program.body, &mut widths);
    let ViewWidths {
        any: view_widths,
        slices: slice_widths,
    } = widths;
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
            slice_widths: slice_widths.clone(),
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

/// The widths the text's views and constant slices imply, per name.
#[derive(Default)]
struct ViewWidths {
    /// The widest typed view or constant slice.
    any: HashMap<String, u32>,
    /// The highest bit of a constant slice, plus one.
    slices: HashMap<String, u32>,
}

impl ViewWidths {
    fn widen(map: &mut HashMap<String, u32>, name: &str, width: u32) {
        let w = map.entry(name.to_string()).or_insert(0);
        *w = (*w).max(width);
    }
}

fn collect_view_widths(body: &[ast::Stmt], out: &mut ViewWidths) {
    fn expr(e: &ast::Expr, out: &mut ViewWidths) {
        match e {
            ast::Expr::Field { base, field, .. } => {
                if let (ast::Expr::Ident { name, .. }, Some(t)) =
                    (base.as_ref(), Ty::from_view(field))
                {
                    ViewWidths::widen(&mut out.any, name, t.width());
                }
                expr(base, out);
            }
            ast::Expr::Slice { base, hi, lo, .. } => {
                if let ast::Expr::Ident { name, .. } = base.as_ref() {
                    for b in [hi, lo] {
                        if let ast::Expr::Int { value, .. } = b.as_ref() {
                            let w = (*value as u32).saturating_add(1);
                            ViewWidths::widen(&mut out.any, name, w);
                            ViewWidths::widen(&mut out.slices, name, w);
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
