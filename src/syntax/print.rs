//! A deterministic s-expression dump of the AST, for `amdpcode show --ast` and tests.
//!
//! Expressions print on one line. Names print as themselves; integers print in decimal up to
//! 64 bits and in hex above, with their suffix (`60U`, `6'60U`, `8'255` for `8'0xff`); floats
//! print with a fraction (`1.0F`, `16'0.5`). Every other node prints as `(head operands...)`:
//! `(. S0 u64)`, `(index tmp i)`, `(slice x hi lo)`, `(part x start width)`, `(- x)` for unary
//! and `(- a b)` for binary operators, `(? c a b)`, `(cast 32'U x)`, `(call f a b)`,
//! `(concat a b)`. Statements print one per line, `(= target value)`, `(+= target value)`,
//! `(declare name 32'B 64)`, `(expr call)`, ..., with nested bodies indented by two spaces
//! and closed by a `)` on its own line. Spans are not printed.

use std::fmt::Write;

use super::ast::{BinaryOp, Expr, IntSuffix, Program, Stmt, TypeLetter, UnaryOp};

/// Prints a program as indented s-expressions, one top-level statement per line.
pub fn print_program(program: &Program) -> String {
    let mut out = String::new();
    for stmt in &program.body {
        print_stmt(&mut out, stmt, 0);
    }
    out
}

/// Appends `depth` levels of indentation.
fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// Appends the statements of a body, one per line, at `depth`.
fn print_body(out: &mut String, body: &[Stmt], depth: usize) {
    for stmt in body {
        print_stmt(out, stmt, depth);
    }
}

/// Appends one statement and a line break.
fn print_stmt(out: &mut String, stmt: &Stmt, depth: usize) {
    indent(out, depth);
    match stmt {
        Stmt::Assign {
            target, op, value, ..
        } => {
            let head = match op {
                None => "=".to_string(),
                Some(op) => format!("{}=", op.symbol()),
            };
            let _ = writeln!(out, "({head} {} {})", expr(target), expr(value));
        }
        Stmt::Declare { name, ty, len, .. } => match len {
            None => {
                let _ = writeln!(out, "(declare {name} {ty})");
            }
            Some(len) => {
                let _ = writeln!(out, "(declare {name} {ty} {len})");
            }
        },
        Stmt::If {
            arms, otherwise, ..
        } => {
            out.push_str("(if\n");
            for arm in arms {
                indent(out, depth + 1);
                let _ = writeln!(out, "(arm {}", expr(&arm.cond));
                print_body(out, &arm.body, depth + 2);
                close(out, depth + 1);
            }
            if let Some(body) = otherwise {
                indent(out, depth + 1);
                out.push_str("(else\n");
                print_body(out, body, depth + 2);
                close(out, depth + 1);
            }
            close(out, depth);
        }
        Stmt::For {
            var,
            start,
            end,
            body,
            ..
        } => {
            let _ = writeln!(out, "(for {var} {} {}", expr(start), expr(end));
            print_body(out, body, depth + 1);
            close(out, depth);
        }
        Stmt::While { cond, body, .. } => {
            let _ = writeln!(out, "(while {}", expr(cond));
            print_body(out, body, depth + 1);
            close(out, depth);
        }
        Stmt::Case {
            scrutinee,
            arms,
            default,
            ..
        } => {
            let _ = writeln!(out, "(case {}", expr(scrutinee));
            for arm in arms {
                indent(out, depth + 1);
                let values: Vec<String> = arm.values.iter().map(expr).collect();
                let _ = writeln!(out, "(arm ({})", values.join(" "));
                print_body(out, &arm.body, depth + 2);
                close(out, depth + 1);
            }
            if let Some(body) = default {
                indent(out, depth + 1);
                out.push_str("(default\n");
                print_body(out, body, depth + 2);
                close(out, depth + 1);
            }
            close(out, depth);
        }
        Stmt::Break { .. } => out.push_str("(break)\n"),
        Stmt::Continue { .. } => out.push_str("(continue)\n"),
        Stmt::Return { value, .. } => match value {
            None => out.push_str("(return)\n"),
            Some(value) => {
                let _ = writeln!(out, "(return {})", expr(value));
            }
        },
        Stmt::Lambda {
            name, params, body, ..
        } => {
            let _ = writeln!(out, "(lambda {name} ({}) {})", params.join(" "), expr(body));
        }
        Stmt::LambdaBlock {
            name, params, body, ..
        } => {
            let _ = writeln!(out, "(lambda {name} ({})", params.join(" "));
            print_body(out, body, depth + 1);
            close(out, depth);
        }
        Stmt::Expr { expr: value, .. } => {
            let _ = writeln!(out, "(expr {})", expr(value));
        }
    }
}

/// Appends the `)` closing a multi-line form.
fn close(out: &mut String, depth: usize) {
    indent(out, depth);
    out.push_str(")\n");
}

/// The letter of a sized literal.
fn letter(letter: TypeLetter) -> &'static str {
    match letter {
        TypeLetter::U => "U",
        TypeLetter::I => "I",
        TypeLetter::B => "B",
        TypeLetter::F => "F",
        TypeLetter::BF => "BF",
    }
}

/// A float in a form that reads back as a float (`1.0`, not `1`).
fn float_text(value: f64) -> String {
    format!("{value:?}")
}

/// One expression on one line.
fn expr(e: &Expr) -> String {
    match e {
        Expr::Int {
            value,
            wide,
            suffix,
            ..
        } => {
            let digits = if !wide.is_empty() {
                format!("0x{wide}")
            } else if *value > u128::from(u64::MAX) {
                format!("{value:#x}")
            } else {
                value.to_string()
            };
            match suffix {
                IntSuffix::None => digits,
                IntSuffix::U => format!("{digits}U"),
                IntSuffix::LL => format!("{digits}LL"),
                IntSuffix::ULL => format!("{digits}ULL"),
                IntSuffix::Sized(width, None) => format!("{width}'{digits}"),
                IntSuffix::Sized(width, Some(l)) => format!("{width}'{digits}{}", letter(*l)),
            }
        }
        Expr::Float { value, width, .. } => match width {
            None => float_text(*value),
            Some(32) => format!("{}F", float_text(*value)),
            Some(width) => format!("{width}'{}", float_text(*value)),
        },
        Expr::Ident { name, .. } => name.clone(),
        Expr::Field { base, field, .. } => format!("(. {} {field})", expr(base)),
        Expr::Index { base, index, .. } => format!("(index {} {})", expr(base), expr(index)),
        Expr::Slice { base, hi, lo, .. } => {
            format!("(slice {} {} {})", expr(base), expr(hi), expr(lo))
        }
        Expr::PartSelect {
            base, start, width, ..
        } => format!("(part {} {} {})", expr(base), expr(start), expr(width)),
        Expr::Unary { op, operand, .. } => {
            let symbol = match op {
                UnaryOp::Neg => "-",
                UnaryOp::Plus => "+",
                UnaryOp::BitNot => "~",
                UnaryOp::Not => "!",
            };
            format!("({symbol} {})", expr(operand))
        }
        Expr::Binary { op, lhs, rhs, .. } => {
            let symbol = BinaryOp::symbol(*op);
            format!("({symbol} {} {})", expr(lhs), expr(rhs))
        }
        Expr::Ternary {
            cond,
            then,
            otherwise,
            ..
        } => format!("(? {} {} {})", expr(cond), expr(then), expr(otherwise)),
        Expr::Cast { ty, operand, .. } => format!("(cast {ty} {})", expr(operand)),
        Expr::Call { name, args, .. } => {
            let mut text = format!("(call {name}");
            for arg in args {
                text.push(' ');
                text.push_str(&expr(arg));
            }
            text.push(')');
            text
        }
        Expr::Concat { parts, .. } => {
            let parts: Vec<String> = parts.iter().map(expr).collect();
            format!("(concat {})", parts.join(" "))
        }
    }
}
