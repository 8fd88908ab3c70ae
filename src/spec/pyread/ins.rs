//! The reader of `ins.py`: encoding classes and their bit fields.

use super::parser::Call;
use super::{
    parse_module, prefixed_name, shape, small_uint, Expr, ExprKind, FastMap, SpecError, Stmt,
};

/// One `class NAME(Base):` block of `ins.py`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct InsClass<'a> {
    pub name: &'a str,
    pub line: usize,
    /// The base encoding class, or `None` for a direct subclass of `Inst`.
    pub base: Option<&'a str>,
    /// The fields defined in this class body (not the inherited ones), in order.
    pub fields: Vec<FieldDef<'a>>,
}

/// One `name = XField(hi, lo, ...)` line of an `ins.py` class.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FieldDef<'a> {
    pub name: &'a str,
    pub line: usize,
    /// The constructor: `BitField`, `VGPRField`, `EnumBitField`, `FixedBitField`, ...
    pub ctor: &'a str,
    pub hi: u32,
    pub lo: u32,
    /// The value of a `FixedBitField`.
    pub fixed: Option<u64>,
    /// The `default=` argument, as written (`NULL`, `0`).
    pub default: Option<String>,
    /// The enum class of an `EnumBitField`.
    pub op_enum: Option<&'a str>,
    /// The members listed in an `EnumBitField`'s set, as `(line, member)`.
    pub members: Vec<(usize, &'a str)>,
}

/// Reads `ins.py`: imports, encoding classes with bit-field lines, and the
/// `name = functools.partial(...)` helpers, which are skipped on purpose.
pub(crate) fn read_ins<'a>(file: &'a str, src: &'a str) -> Result<Vec<InsClass<'a>>, SpecError> {
    let module = parse_module(file, src).map_err(|e| *e)?;
    let mut classes: Vec<InsClass<'a>> = Vec::new();
    let mut class_lines: FastMap<&'a str, usize> = FastMap::default();
    for stmt in module {
        match stmt {
            Stmt::Import { .. } => {}
            Stmt::Assign {
                value:
                    Expr {
                        kind: ExprKind::Call(ref call),
                        ..
                    },
                ..
            } if call.func == "functools.partial" => {
                // `s_mov_b32 = functools.partial(SOP1, SOP1Op.S_MOV_B32)`: an assembler
                // convenience that repeats what the enum and the class already say.
            }
            Stmt::Assign { line, target, .. } => {
                return Err(shape(
                    file,
                    line,
                    format!(
                        "expected a class or a `functools.partial` helper, found an assignment to `{target}`"
                    ),
                ))
            }
            Stmt::Class {
                line,
                name,
                bases,
                body,
            } => {
                let base = match bases.as_slice() {
                    ["Inst"] => None,
                    [base] if !base.contains('.') => {
                        if !class_lines.contains_key(base) {
                            return Err(SpecError::UnknownName {
                                file: file.to_string(),
                                line,
                                name: base.to_string(),
                            });
                        }
                        Some(*base)
                    }
                    _ => {
                        return Err(shape(
                            file,
                            line,
                            format!("expected `class {name}(Inst)` or a single encoding base"),
                        ))
                    }
                };
                if let Some(first_line) = class_lines.insert(name, line) {
                    return Err(SpecError::Duplicate {
                        file: file.to_string(),
                        line,
                        first_line,
                        name: name.to_string(),
                    });
                }
                let mut fields: Vec<FieldDef<'a>> = Vec::with_capacity(body.len());
                for stmt in body {
                    let field = field_def(file, name, stmt)?;
                    if let Some(first) = fields.iter().find(|f| f.name == field.name) {
                        return Err(SpecError::Duplicate {
                            file: file.to_string(),
                            line: field.line,
                            first_line: first.line,
                            name: format!("{name}.{}", field.name),
                        });
                    }
                    fields.push(field);
                }
                classes.push(InsClass {
                    name,
                    line,
                    base,
                    fields,
                });
            }
        }
    }
    Ok(classes)
}

/// Reads one `name = XField(hi, lo, ...)` statement of class `class`.
fn field_def<'a>(file: &str, class: &str, stmt: Stmt<'a>) -> Result<FieldDef<'a>, SpecError> {
    let Stmt::Assign {
        line,
        target,
        value,
    } = stmt
    else {
        return Err(shape(
            file,
            stmt.line(),
            format!("expected `field = XField(hi, lo, ...)` in class `{class}`"),
        ));
    };
    let ExprKind::Call(call) = value.kind else {
        return Err(shape(
            file,
            line,
            format!(
                "expected a bit-field constructor for `{class}.{target}`, found {}",
                value.kind.describe()
            ),
        ));
    };
    let Call { func, args, kwargs } = *call;
    if !func.ends_with("Field") || func.contains('.') {
        let message = format!(
            "expected a `...Field(hi, lo)` constructor for `{class}.{target}`, found `{func}(...)`"
        );
        return Err(shape(file, line, message));
    }
    let ctor = func;
    let (hi, lo, rest) = match args.as_slice() {
        [hi, lo, rest @ ..] => (
            small_uint(file, hi, "high bit")?,
            small_uint(file, lo, "low bit")?,
            rest,
        ),
        _ => {
            return Err(shape(
                file,
                line,
                format!("`{ctor}` for `{class}.{target}` needs (hi, lo)"),
            ))
        }
    };
    if hi < lo {
        return Err(shape(
            file,
            line,
            format!("`{class}.{target}` has high bit {hi} below low bit {lo}"),
        ));
    }
    let mut field = FieldDef {
        name: target,
        line,
        ctor,
        hi,
        lo,
        fixed: None,
        default: None,
        op_enum: None,
        members: Vec::new(),
    };
    match (ctor, rest) {
        ("FixedBitField", [value]) => match value.kind {
            ExprKind::Int(v) if v >= 0 => field.fixed = Some(v.unsigned_abs()),
            _ => {
                return Err(shape(
                    file,
                    value.line,
                    format!("expected a non-negative integer for fixed field `{class}.{target}`"),
                ))
            }
        },
        ("EnumBitField", [enum_class, members @ ..]) if members.len() <= 1 => {
            let enum_name = match enum_class.kind {
                ExprKind::Path(name) if !name.contains('.') => name,
                _ => {
                    return Err(shape(
                        file,
                        enum_class.line,
                        format!("expected an enum class name for `{class}.{target}`"),
                    ))
                }
            };
            field.op_enum = Some(enum_name);
            if let Some(set) = members.first() {
                let ExprKind::Set(items) = &set.kind else {
                    return Err(shape(
                        file,
                        set.line,
                        format!(
                            "expected a set of `{enum_name}.MEMBER` for `{class}.{target}`, found {}",
                            set.kind.describe()
                        ),
                    ));
                };
                for item in items {
                    let member = prefixed_name(file, item, enum_name, "opcode set item")?;
                    field.members.push((item.line, member));
                }
            }
        }
        (_, []) if ctor != "FixedBitField" && ctor != "EnumBitField" => {}
        _ => {
            return Err(shape(
                file,
                line,
                format!(
                    "unexpected arguments to `{ctor}` for `{class}.{target}` ({} positional)",
                    args.len()
                ),
            ))
        }
    }
    for (keyword, value) in kwargs {
        if keyword != "default" || field.default.is_some() {
            return Err(shape(
                file,
                value.line,
                format!("unexpected keyword argument `{keyword}` to `{ctor}`"),
            ));
        }
        let default = match value.kind {
            ExprKind::Int(v) => v.to_string(),
            ExprKind::Path(path) => path.to_string(),
            other => {
                let found = other.describe();
                let message = format!(
                    "expected an integer or a name as the default of `{class}.{target}`, found {found}"
                );
                return Err(shape(file, value.line, message));
            }
        };
        field.default = Some(default);
    }
    Ok(field)
}
