//! The front-end pipeline of one entry: errata → parse → type check and lower → verify,
//! and the coverage statistics over a whole arch.
//!
//! Errata live in `semantics/errata/<arch>/<INSTRUCTION>.pcode` and are compiled into the
//! binary. A file's `//!` lines are metadata: `//! reason: ...` (required) and
//! `//! informative` for entries that describe behaviour outside the executable model (the
//! rest of the file is then a note); otherwise the rest of the file replaces AMD's text.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::ir::{self, Function, OperandWidths};
use crate::spec::{Arch, Instruction, SpecDb};
use crate::syntax::{self, ast};

mod table {
    include!(concat!(env!("OUT_DIR"), "/errata_table.rs"));
}

/// A documented correction of one AMD entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Erratum {
    /// The arch it applies to.
    pub arch: Arch,
    /// The instruction name (canonical, as in the spec database).
    pub inst: String,
    /// Why AMD's text is not used.
    pub reason: String,
    /// The corrected text; `None` when the entry is informative only.
    pub replacement: Option<String>,
}

/// All errata compiled into this binary. Files with an unknown arch folder or without a
/// `//! reason:` line are a bug caught by the tests.
pub fn errata() -> &'static [Erratum] {
    static ERRATA: OnceLock<Vec<Erratum>> = OnceLock::new();
    ERRATA.get_or_init(|| {
        table::ERRATA
            .iter()
            .filter_map(|(arch, inst, text)| parse_erratum(arch, inst, text))
            .collect()
    })
}

fn parse_erratum(arch: &str, inst: &str, text: &str) -> Option<Erratum> {
    let arch = Arch::from_name(arch)?;
    let mut reason = None;
    let mut informative = false;
    let mut body = String::new();
    for line in text.lines() {
        if let Some(meta) = line.strip_prefix("//!") {
            let meta = meta.trim();
            if let Some(r) = meta.strip_prefix("reason:") {
                reason = Some(r.trim().to_string());
            } else if meta == "informative" {
                informative = true;
            }
            // Keep line numbers of the replacement aligned with the file.
            body.push('\n');
        } else {
            body.push_str(line);
            body.push('\n');
        }
    }
    Some(Erratum {
        arch,
        inst: inst.to_string(),
        reason: reason?,
        replacement: (!informative).then_some(body),
    })
}

/// The erratum for `inst` on `arch`, if there is one: the arch's own
/// (`semantics/errata/<arch>/`), else, for an arch whose text derives from a wheel folder,
/// that folder's (the erratum corrects the text the arch uses). Only that file is parsed
/// (the others are not: parsing all of them was 5% of a small `amdpcode run`).
pub fn erratum(arch: Arch, inst: &str) -> Option<&'static Erratum> {
    own_erratum(arch, inst).or_else(|| {
        let base = arch.wheel().arch();
        (base != arch && arch.shares_text(inst))
            .then(|| own_erratum(base, inst))
            .flatten()
    })
}

/// The erratum for instruction `inst` of `arch`: [`erratum`] by its name, else, for an arch
/// whose text derives from a wheel folder, the folder's erratum of the base instruction it
/// was renamed from (a renamed instruction keeps the base's name as its first alias:
/// gfx908's `V_MFMA_F32_16X16X16F16` is CDNA 4's `V_MFMA_F32_16X16X16_F16`).
pub fn erratum_of(arch: Arch, inst: &Instruction) -> Option<&'static Erratum> {
    erratum(arch, &inst.name).or_else(|| {
        let base = arch.wheel().arch();
        if base == arch {
            return None;
        }
        let old = inst.aliases.first()?;
        arch.shares_text(old)
            .then(|| own_erratum(base, old))
            .flatten()
    })
}

fn own_erratum(arch: Arch, inst: &str) -> Option<&'static Erratum> {
    type Index = std::collections::HashMap<(Arch, &'static str), usize>;
    static INDEX: OnceLock<(Index, Vec<OnceLock<Option<Erratum>>>)> = OnceLock::new();
    let (index, parsed) = INDEX.get_or_init(|| {
        let index = table::ERRATA
            .iter()
            .enumerate()
            .filter_map(|(i, (arch, inst, _))| Some(((Arch::from_name(arch)?, *inst), i)))
            .collect();
        let parsed = table::ERRATA.iter().map(|_| OnceLock::new()).collect();
        (index, parsed)
    });
    let &i = index.get(&(arch, inst))?;
    parsed[i]
        .get_or_init(|| {
            let (arch, inst, text) = table::ERRATA[i];
            parse_erratum(arch, inst, text)
        })
        .as_ref()
}

/// A front-end stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Lexing and parsing.
    Parse,
    /// Name resolution and type checking (lowering to IR).
    Type,
    /// Verification of the lowered IR.
    Lower,
}

impl Stage {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::Type => "type",
            Stage::Lower => "lower",
        }
    }
}

/// Why an entry did not make it through the front end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrontError {
    /// The stage that failed.
    pub stage: Stage,
    /// What and where.
    pub diagnostic: Diagnostic,
}

/// An entry that went through every stage.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The text that was compiled (AMD's, or an erratum's).
    pub text: String,
    /// Whether an erratum replaced AMD's text.
    pub erratum: bool,
    /// The syntax tree.
    pub program: ast::Program,
    /// The typed IR.
    pub function: Function,
}

/// The operand widths of an instruction, from its operand table.
pub fn operand_widths(inst: &Instruction) -> OperandWidths {
    OperandWidths::from_fields(inst.operands.iter().map(|o| (o.field.as_str(), o.bits)))
}

/// Parses, type-checks, lowers and verifies a text.
///
/// # Errors
/// The first failing stage, with a diagnostic naming `origin`, line and column.
pub fn compile_text(
    origin: &str,
    name: &str,
    text: &str,
    operands: &OperandWidths,
) -> Result<Compiled, FrontError> {
    let diag = |message: String, span: ast::Span| Diagnostic {
        message,
        origin: origin.to_string(),
        source: text.to_string(),
        span,
        notes: Vec::new(),
    };
    let program = syntax::parse(text).map_err(|e| FrontError {
        stage: Stage::Parse,
        diagnostic: diag(e.message.clone(), e.span),
    })?;
    let function = ir::lower_program(name, &program, operands).map_err(|e| FrontError {
        stage: Stage::Type,
        diagnostic: diag(e.to_string(), e.span),
    })?;
    ir::verify(&function).map_err(|e| FrontError {
        stage: Stage::Lower,
        diagnostic: diag(e.message, e.span),
    })?;
    Ok(Compiled {
        text: text.to_string(),
        erratum: false,
        program,
        function,
    })
}

/// Why an instruction has no compiled semantics at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unavailable {
    /// The spec has no pseudocode for it.
    NoPseudocode,
    /// An erratum marks the entry informative only; the reason.
    Informative(String),
}

/// The text the pipeline uses for an instruction: an erratum's replacement, or AMD's text.
///
/// # Errors
/// [`Unavailable`] when there is no executable text.
pub fn entry_text(arch: Arch, inst: &Instruction) -> Result<(String, bool), Unavailable> {
    if let Some(e) = erratum_of(arch, inst) {
        return match &e.replacement {
            Some(t) => Ok((t.clone(), true)),
            None => Err(Unavailable::Informative(e.reason.clone())),
        };
    }
    inst.pcode
        .clone()
        .map(|t| (t, false))
        .ok_or(Unavailable::NoPseudocode)
}

/// Compiles one instruction's entry (after errata).
///
/// # Errors
/// [`FrontError`] for the failing stage; an entry without executable text fails at the parse
/// stage with the reason.
pub fn compile_instruction(arch: Arch, inst: &Instruction) -> Result<Compiled, FrontError> {
    let origin = format!("{arch}:{}", inst.name);
    let (text, is_erratum) = entry_text(arch, inst).map_err(|u| FrontError {
        stage: Stage::Parse,
        diagnostic: Diagnostic {
            message: match u {
                Unavailable::NoPseudocode => "the spec has no pseudocode for it".to_string(),
                Unavailable::Informative(r) => format!("informative only (erratum): {r}"),
            },
            origin: origin.clone(),
            source: String::new(),
            span: ast::Span::default(),
            notes: Vec::new(),
        },
    })?;
    let origin = if is_erratum {
        format!("semantics/errata/{arch}/{}.pcode", inst.name)
    } else {
        origin
    };
    let mut c = compile_text(&origin, &inst.name, &text, &operand_widths(inst))?;
    c.erratum = is_erratum;
    Ok(c)
}

/// One entry that failed, for `spec stats`.
#[derive(Clone, Debug, Serialize)]
pub struct Failure {
    /// The instruction.
    pub inst: String,
    /// Its encoding.
    pub encoding: String,
    /// The failing stage.
    pub stage: Stage,
    /// `line:col: message`.
    pub error: String,
}

/// Counts for one encoding or a whole arch.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Counts {
    /// Entries with pseudocode.
    pub total: usize,
    /// Entries that parse.
    pub parsed: usize,
    /// Entries that type-check.
    pub typed: usize,
    /// Entries lowered to verified IR.
    pub lowered: usize,
    /// Entries whose text came from an erratum (counted above only if it went through).
    pub errata: usize,
}

/// Front-end coverage of one arch.
#[derive(Clone, Debug, Serialize)]
pub struct ArchStats {
    /// Totals.
    #[serde(flatten)]
    pub counts: Counts,
    /// Per encoding.
    pub encodings: BTreeMap<String, Counts>,
    /// Every failure with its reason.
    pub failures: Vec<Failure>,
}

/// Runs every pseudocode entry of an arch through the front end.
pub fn arch_stats(db: &SpecDb) -> ArchStats {
    let arch = db.arch();
    let mut counts = Counts::default();
    let mut encodings: BTreeMap<String, Counts> = BTreeMap::new();
    let mut failures = Vec::new();
    for inst in db.with_pcode() {
        let enc = encodings.entry(inst.encoding.clone()).or_default();
        let has_erratum = erratum_of(arch, inst).is_some();
        let result = compile_instruction(arch, inst);
        for c in [&mut counts, &mut *enc] {
            c.total += 1;
            if has_erratum {
                c.errata += 1;
            }
            match &result {
                Ok(_) => {
                    c.parsed += 1;
                    c.typed += 1;
                    c.lowered += 1;
                }
                Err(e) => match e.stage {
                    Stage::Parse => {}
                    Stage::Type => c.parsed += 1,
                    Stage::Lower => {
                        c.parsed += 1;
                        c.typed += 1;
                    }
                },
            }
        }
        if let Err(e) = result {
            let (l, col) = e.diagnostic.line_col();
            failures.push(Failure {
                inst: inst.name.clone(),
                encoding: inst.encoding.clone(),
                stage: e.stage,
                error: format!("{l}:{col}: {}", e.diagnostic.message),
            });
        }
    }
    ArchStats {
        counts,
        encodings,
        failures,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_erratum_file_is_well_formed() {
        assert_eq!(
            errata().len(),
            table::ERRATA.len(),
            "an erratum lacks `//! reason:` or has an unknown arch folder"
        );
        for e in errata() {
            assert!(!e.reason.is_empty(), "{} has an empty reason", e.inst);
        }
    }

    #[test]
    fn user_text_compiles_with_default_widths() {
        let c = compile_text(
            "t.pcode",
            "T",
            "D0.u32 = S0.u32 + S1.u32;\nSCC = D0.u32 < S0.u32",
            &OperandWidths::uniform(32),
        )
        .expect("compiles");
        assert_eq!(
            c.function
                .reg("D0")
                .map(|r| c.function.regs[r.0 as usize].width),
            Some(32)
        );
    }

    #[test]
    fn unknown_identifier_is_a_type_error_with_position() {
        let e = compile_text(
            "t.pcode",
            "T",
            "D0 = 1;\nD0 = foo + 1",
            &OperandWidths::uniform(32),
        )
        .expect_err("must fail");
        assert_eq!(e.stage, Stage::Type);
        assert_eq!(e.diagnostic.line_col(), (2, 6));
    }
}
