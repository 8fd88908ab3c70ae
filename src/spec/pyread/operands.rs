//! The reader of `operands.py`: per instruction, each operand field's format, size and type.

use std::borrow::Cow;

use super::{
    for_each_dict_entry, member_key, prefixed_name, shape, small_uint, ExprKind, Keyed, SpecError,
};

/// One `"field": (Fmt.FMT_X, bits, OpType.OPR_Y)` entry of `operands.py`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OperandDef<'a> {
    pub field: Cow<'a, str>,
    pub format: &'a str,
    pub bits: u32,
    pub kind: &'a str,
}

/// Reads `operands.py`: `OPERANDS = { Enum.MEMBER: {"field": (Fmt.F, bits, OpType.T)}, ... }`.
pub(crate) fn read_operands<'a>(
    file: &'a str,
    src: &'a str,
) -> Result<Vec<Keyed<'a, Vec<OperandDef<'a>>>>, SpecError> {
    let mut out = Vec::new();
    for_each_dict_entry(file, src, "OPERANDS", |key, value| {
        let (line, class, member) = member_key(file, key)?;
        let ExprKind::Dict(fields) = value.kind else {
            return Err(shape(
                file,
                value.line,
                format!(
                    "expected a dict of operands for `{class}.{member}`, found {}",
                    value.kind.describe()
                ),
            ));
        };
        let mut operands = Vec::with_capacity(fields.len());
        let mut field_lines: Vec<usize> = Vec::with_capacity(fields.len());
        for (field, info) in fields {
            let ExprKind::Str(field_name) = field.kind else {
                return Err(shape(
                    file,
                    field.line,
                    format!(
                        "expected a field name string in `{class}.{member}`, found {}",
                        field.kind.describe()
                    ),
                ));
            };
            // Operand dicts are short, so a linear scan beats hashing.
            if let Some(pos) = operands
                .iter()
                .position(|o: &OperandDef<'_>| o.field == field_name)
            {
                return Err(SpecError::Duplicate {
                    file: file.to_string(),
                    line: field.line,
                    first_line: field_lines[pos],
                    name: format!("{class}.{member}[{field_name:?}]"),
                });
            }
            field_lines.push(field.line);
            let ExprKind::Tuple(parts) = &info.kind else {
                return Err(shape(
                    file,
                    info.line,
                    format!(
                        "expected `(Fmt.F, bits, OpType.T)` for `{field_name}`, found {}",
                        info.kind.describe()
                    ),
                ));
            };
            let [format, bits, kind] = parts.as_slice() else {
                return Err(shape(
                    file,
                    info.line,
                    format!(
                        "expected 3 items in the tuple for `{field_name}`, found {}",
                        parts.len()
                    ),
                ));
            };
            operands.push(OperandDef {
                format: prefixed_name(file, format, "Fmt", "operand format")?,
                bits: small_uint(file, bits, "operand size")?,
                kind: prefixed_name(file, kind, "OpType", "operand type")?,
                field: field_name,
            });
        }
        out.push(Keyed {
            line,
            class,
            member,
            value: operands,
        });
        Ok(())
    })?;
    Ok(out)
}
