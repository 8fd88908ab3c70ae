//! The reader of `enum.py`: opcode enum classes with their aliases.

use super::{parse_module, shape, ExprKind, FastMap, SpecError, Stmt};

/// One `class Name(ReprEnum):` block of `enum.py`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct EnumClass<'a> {
    pub name: &'a str,
    pub line: usize,
    pub members: Vec<EnumMember<'a>>,
}

/// One `NAME = 123` or `NAME = OTHER` line of an enum class.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct EnumMember<'a> {
    pub name: &'a str,
    pub line: usize,
    /// The member's value (an alias has its target's value).
    pub value: i64,
    /// For an alias, the index of the canonical member it stands for. As in Python's `Enum`,
    /// a member whose value repeats an earlier member's value is an alias of that member.
    pub alias_of: Option<usize>,
}

/// Reads `enum.py`: imports, then enum classes whose bodies are `NAME = int` or `NAME = NAME`.
pub(crate) fn read_enums<'a>(file: &'a str, src: &'a str) -> Result<Vec<EnumClass<'a>>, SpecError> {
    let module = parse_module(file, src).map_err(|e| *e)?;
    let mut classes = Vec::new();
    for stmt in module {
        let (line, name, body) = match stmt {
            Stmt::Import { .. } => continue,
            Stmt::Class {
                line, name, body, ..
            } => (line, name, body),
            Stmt::Assign { line, target, .. } => {
                return Err(shape(
                    file,
                    line,
                    format!("expected an enum class, found an assignment to `{target}`"),
                ))
            }
        };
        let mut members: Vec<EnumMember<'a>> = Vec::with_capacity(body.len());
        let mut by_name: FastMap<&'a str, usize> = FastMap::default();
        let mut by_value: FastMap<i64, usize> = FastMap::default();
        for stmt in body {
            let Stmt::Assign {
                line,
                target,
                value,
            } = stmt
            else {
                return Err(shape(
                    file,
                    stmt.line(),
                    format!("expected `NAME = value` in enum `{name}`"),
                ));
            };
            if let Some(&first) = by_name.get(target) {
                return Err(SpecError::Duplicate {
                    file: file.to_string(),
                    line,
                    first_line: members[first].line,
                    name: format!("{name}.{target}"),
                });
            }
            let (value, alias_of) = match value.kind {
                ExprKind::Int(value) => (value, by_value.get(&value).copied()),
                ExprKind::Path(alias_target) if !alias_target.contains('.') => {
                    let Some(&target_idx) = by_name.get(alias_target) else {
                        return Err(SpecError::UnknownName {
                            file: file.to_string(),
                            line,
                            name: format!("{name}.{alias_target}"),
                        });
                    };
                    let canonical = members[target_idx].alias_of.unwrap_or(target_idx);
                    (members[canonical].value, Some(canonical))
                }
                other => {
                    return Err(shape(
                        file,
                        line,
                        format!(
                            "expected an integer or a member name for `{name}.{target}`, found {}",
                            other.describe()
                        ),
                    ))
                }
            };
            by_name.insert(target, members.len());
            if alias_of.is_none() {
                by_value.insert(value, members.len());
            }
            members.push(EnumMember {
                name: target,
                line,
                value,
                alias_of,
            });
        }
        classes.push(EnumClass {
            name,
            line,
            members,
        });
    }
    Ok(classes)
}
