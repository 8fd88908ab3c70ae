//! The reader of `str_pcode.py`: one pseudocode string per instruction.

use std::borrow::Cow;

use super::{for_each_dict_entry, member_key, shape, ExprKind, Keyed, SpecError};

/// Reads `str_pcode.py`: `PCODE = { Enum.MEMBER: 'pseudocode', ... }`, in file order.
pub(crate) fn read_pcode<'a>(
    file: &'a str,
    src: &'a str,
) -> Result<Vec<Keyed<'a, Cow<'a, str>>>, SpecError> {
    let mut out = Vec::new();
    for_each_dict_entry(file, src, "PCODE", |key, value| {
        let (line, class, member) = member_key(file, key)?;
        let ExprKind::Str(text) = value.kind else {
            return Err(shape(
                file,
                value.line,
                format!(
                    "expected a string for `{class}.{member}`, found {}",
                    value.kind.describe()
                ),
            ));
        };
        out.push(Keyed {
            line,
            class,
            member,
            value: text,
        });
        Ok(())
    })?;
    Ok(out)
}
