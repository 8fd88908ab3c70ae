//! A reader for the generated Python modules in tinygrad's `runtime/autogen/amd/<arch>/`.
//!
//! Those files are data written as Python: enum classes, dict literals of string literals and
//! tuples, and classes whose bodies call bit-field constructors. Running Python to read them
//! would make Python a run-time dependency, so this module reads them directly, in two layers:
//!
//! - a tokenizer ([`lexer::Lexer`]) for the Python *literal* syntax the files use: names, integers
//!   (decimal, `0b`, `0o`, `0x`), string literals (single, double and triple quoted, raw or not,
//!   with Python's escapes), brackets with implicit line joining, comments;
//! - a recursive reader ([`parser::parse_module`]) that builds statements (imports, classes,
//!   `name = value` assignments) and values (paths like `Fmt.FMT_ANY`, calls, tuples, lists,
//!   sets, dicts).
//!
//! On top of that, one function per file kind ([`enums::read_enums`], [`ins::read_ins`],
//! [`operands::read_operands`], [`pcode::read_pcode`]) checks that every statement has the expected shape.
//! Statements that carry nothing we need (imports, the `functools.partial` helper aliases in
//! `ins.py`) are recognised and skipped on purpose; anything unexpected is a
//! [`SpecError::Shape`] naming the file and line.
//!
//! The modules follow those layers: `lexer` (tokens), `parser` (statements and values),
//! one reader per file kind (`enums`, `ins`, `operands`, `pcode`), and here the value checks
//! that several readers share.

use super::{FastMap, SpecError};

mod enums;
mod ins;
mod lexer;
mod operands;
mod parser;
mod pcode;
#[cfg(test)]
mod tests;

pub(crate) use enums::read_enums;
pub(crate) use ins::{read_ins, FieldDef, InsClass};
pub(crate) use lexer::{Lexer, Tok, Token};
pub(crate) use operands::read_operands;
use parser::for_each_dict_entry;
pub(crate) use parser::{parse_module, Expr, ExprKind, Stmt};
pub(crate) use pcode::read_pcode;

/// Nesting limit for values, so hostile input cannot overflow the stack.
const MAX_DEPTH: usize = 64;

/// The lexer and parser box their errors: results are returned for every token, and a
/// full-size [`SpecError`] in each of them made parsing several times slower.
type PResult<T> = Result<T, Box<SpecError>>;

/// Builds a [`SpecError::Shape`].
fn shape(file: &str, line: usize, message: impl Into<String>) -> SpecError {
    SpecError::Shape {
        file: file.to_string(),
        line,
        message: message.into(),
    }
}

/// A dict entry keyed by an enum member, e.g. `SOP1Op.S_MOV_B32: ...`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Keyed<'a, V> {
    pub line: usize,
    pub class: &'a str,
    pub member: &'a str,
    pub value: V,
}

/// Splits a dict key `Class.MEMBER`. Repeated keys are caught by the caller, which also
/// sees keys that differ but name the same instruction through an alias.
fn member_key<'a>(file: &str, key: Expr<'a>) -> Result<(usize, &'a str, &'a str), SpecError> {
    let line = key.line;
    let ExprKind::Path(path) = key.kind else {
        return Err(shape(
            file,
            line,
            format!(
                "expected an `Enum.MEMBER` key, found {}",
                key.kind.describe()
            ),
        ));
    };
    let Some((class, member)) = path.split_once('.').filter(|(_, m)| !m.contains('.')) else {
        return Err(shape(
            file,
            line,
            format!("expected an `Enum.MEMBER` key, found `{path}`"),
        ));
    };
    Ok((line, class, member))
}

/// Checks that `expr` is `Prefix.NAME` and returns `NAME`.
fn prefixed_name<'a>(
    file: &str,
    expr: &Expr<'a>,
    prefix: &str,
    what: &str,
) -> Result<&'a str, SpecError> {
    match &expr.kind {
        ExprKind::Path(path) => match path.split_once('.') {
            Some((first, name)) if first == prefix && !name.contains('.') => Ok(name),
            _ => Err(shape(
                file,
                expr.line,
                format!("expected `{prefix}.NAME` as the {what}, found `{path}`"),
            )),
        },
        other => Err(shape(
            file,
            expr.line,
            format!(
                "expected `{prefix}.NAME` as the {what}, found {}",
                other.describe()
            ),
        )),
    }
}

/// Reads a non-negative integer that fits in `u32`.
fn small_uint(file: &str, expr: &Expr<'_>, what: &str) -> Result<u32, SpecError> {
    match expr.kind {
        ExprKind::Int(value) => u32::try_from(value)
            .map_err(|_| shape(file, expr.line, format!("{what} {value} is out of range"))),
        ref other => Err(shape(
            file,
            expr.line,
            format!(
                "expected an integer as the {what}, found {}",
                other.describe()
            ),
        )),
    }
}
