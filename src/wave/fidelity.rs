//! The fidelity report (`amdpcode spec fidelity`): for every instruction of an arch, how the
//! wave executor runs it. It owns nothing but this classification, read from the same places
//! execution reads (the errata table, the compiled entry, the wave layer's native paths), so
//! the report cannot drift from what runs.

use serde::Serialize;

use crate::frontend;
use crate::machine::{Control, DsLanes, Facts, Family, InstFacts};
use crate::spec::{Instruction, SpecDb};

/// How one instruction is executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum How {
    /// AMD's pseudocode as written.
    AsWritten,
    /// An erratum's text replaces AMD's; `detail` is its reason and evidence.
    Erratum,
    /// The wave layer models it (or part of it) natively; `detail` names what.
    Native,
    /// The text calls built-ins the hardware only approximates; `detail` says how.
    Approximated,
    /// Not executable; `detail` is the reason.
    NotExecutable,
}

impl How {
    /// The snake_case name used in the report.
    pub fn name(self) -> &'static str {
        match self {
            How::AsWritten => "as_written",
            How::Erratum => "erratum",
            How::Native => "native",
            How::Approximated => "approximated",
            How::NotExecutable => "not_executable",
        }
    }
}

/// One instruction's row.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The instruction name.
    pub inst: String,
    /// Its encoding family (`VOP3`, `DS`, ...).
    pub encoding: String,
    /// How it is executed.
    pub how: How,
    /// The erratum reason, the native model, the approximation or the failure.
    pub detail: String,
}

/// What the wave layer models natively for `name` (facts `f`), if anything.
fn native(name: &str, f: &InstFacts) -> Option<&'static str> {
    if let DsLanes::Permute {
        fetch_inactive: false,
        ..
    } = f.ds_lanes
    {
        return Some(
            "ds_permute: AMD's algorithm run over the wave's VGPRs (its text addresses VGPRs by \
             operand number through locals)",
        );
    }
    if name == crate::isa::SCALE_LOAD {
        return Some(
            "scaled MFMA pairing (CDNA 4, no pseudocode text in AMD's tables): the decoder joins \
             it with the V_MFMA_SCALE_F32_* word that follows into one instruction (the \
             VOP3PX2 erratum); alone it is refused as an error",
        );
    }
    if f.control == Control::AgprMove {
        return Some(
            "AGPR move (CDNA, no pseudocode text in AMD's tables): a 32-bit copy of src0 (AGPR, \
             VGPR, SGPR or inline constant) to vdst in the lanes EXEC enables; AGPRs are rows \
             256..511 of the vector register file",
        );
    }
    if f.family == Family::Vopd {
        return Some(
            "VOPD pairing: both halves read the state before the instruction; each half runs \
             its VOP1/VOP2 counterpart's pseudocode",
        );
    }
    if f.int_clamp.is_some() {
        return Some(
            "integer clamp: with `clamp` the exact result (carry-in included) is saturated to \
             the destination type, recomputed from the sources (AMD's text computes the \
             wrapped value); otherwise AMD's text",
        );
    }
    None
}

/// The approximated built-ins an entry calls, as text (empty when none).
fn approximation(p: &crate::exec::Prepared) -> String {
    use crate::ir::builtins::Func;
    use crate::ir::ExprKind;
    let mut funcs: Vec<&'static str> = Vec::new();
    crate::exec::walk_prepared_exprs(p, &mut |e| {
        if let ExprKind::Call { builtin, .. } = &e.kind {
            let how = match builtin.func {
                Func::Sin | Func::Cos => {
                    "sin/cos: the input in revolutions reduced exactly (fraction of the \
                     argument), then the correctly rounded sine/cosine of 2*pi times it"
                }
                Func::Log2 => "log2: the correctly rounded result (hardware: about 1 ulp)",
                Func::Pow => "pow/exp2: the correctly rounded result (hardware: about 1 ulp)",
                Func::Prng => "prng: AMD's LFSR step",
                _ => return,
            };
            if !funcs.contains(&how) {
                funcs.push(how);
            }
        }
    });
    funcs.join("; ")
}

/// What the wave layer does itself for control, wait and hint instructions (which AMD's
/// tables leave without text or whose text only names the hardware's own bookkeeping).
fn wave_level(f: &InstFacts) -> Option<&'static str> {
    if f.control == Control::End {
        return Some("ends the wave (the dispatcher retires it)");
    }
    if let Control::Barrier(kind) = f.control {
        return Some(match kind {
            super::Barrier::SignalWait => {
                "workgroup barrier: the wave waits until every live wave of its workgroup                  has arrived (a lone wave passes)"
            }
            super::Barrier::Signal => "workgroup barrier: arrive without waiting",
            super::Barrier::Wait => "workgroup barrier: wait until every live wave has arrived",
        });
    }
    if f.control == Control::Noop {
        return Some(
            "no-op in this model: waits, hints and cache control (every memory operation              completes at issue; `--check` models the wait counters)",
        );
    }
    None
}

fn row(db: &SpecDb, inst: &Instruction, f: &InstFacts) -> Row {
    let arch = db.arch();
    let make = |how: How, detail: String| Row {
        inst: inst.name.clone(),
        encoding: inst.encoding.clone(),
        how,
        detail,
    };
    let native_model = match f.control {
        Control::Native(k) => Some(super::native::describe(k)),
        _ => None,
    };
    if let Some(what) = native(&inst.name, f)
        .or(native_model)
        .or_else(|| wave_level(f))
    {
        return make(How::Native, what.to_string());
    }
    if let Some(why) = f.refusal.map(super::native::refused) {
        return make(How::NotExecutable, format!("not modelled: {why}"));
    }
    if !arch.shares_text(&inst.name) {
        return make(
            How::NotExecutable,
            format!(
                "{arch}'s FP8/BF8 formats are {:?}; the {} text describes {:?}",
                arch.profile().fp8,
                arch.wheel().arch().profile().title,
                arch.wheel().arch().profile().fp8
            ),
        );
    }
    if !arch.is_wheel()
        && inst.pcode.is_none()
        && inst.operands.is_empty()
        && frontend::erratum_of(arch, inst).is_none()
    {
        return make(
            How::NotExecutable,
            format!(
                "only {} has it ({} lacks it): no AMD text",
                arch.target(),
                arch.wheel().arch().target()
            ),
        );
    }
    let twin = super::e32_twin(db, inst);
    let prepared = match crate::exec::prepare(arch, twin.as_ref().unwrap_or(inst)) {
        Ok(p) => p,
        Err(e) => return make(How::NotExecutable, e.diagnostic.summary()),
    };
    if let Some(why) = super::missing_operand_layout(inst, &prepared) {
        return make(How::NotExecutable, why);
    }
    if prepared.is_approximate() {
        return make(How::Approximated, approximation(&prepared));
    }
    match frontend::erratum_of(arch, inst) {
        Some(e) => make(How::Erratum, e.reason.clone()),
        None => match twin {
            Some(_) => make(
                How::AsWritten,
                "AMD's text of the `_E32` form (the table has none for this VOP3 form)".into(),
            ),
            None if !arch.is_wheel() && crate::spec::lent_text(arch, &inst.name).is_some() => {
                make(
                    How::AsWritten,
                    format!(
                        "AMD's CDNA 4 text of the instruction of the same name: {} has it and \
                         {} does not (operands and text lent by `cdna:{}` in \
                         semantics/targets/{}.tsv)",
                        arch.target(),
                        arch.wheel().arch().target(),
                        inst.name,
                        arch.target()
                    ),
                )
            }
            None if !arch.is_wheel() => make(
                How::AsWritten,
                format!(
                    "AMD's {} text; {} has the instruction at the same opcode (semantics/targets/{}.tsv)",
                    arch.wheel().arch().profile().title,
                    arch.target(),
                    arch.target()
                ),
            ),
            None => make(How::AsWritten, String::new()),
        },
    }
}

/// The report for every instruction of `db`, in database order.
pub fn report(db: &SpecDb) -> Vec<Row> {
    let facts = Facts::of(db);
    db.instructions()
        .iter()
        .zip(facts.all())
        .map(|(i, f)| row(db, i, f))
        .collect()
}

/// The number of rows of each kind, in [`How`] order.
pub fn totals(rows: &[Row]) -> Vec<(How, usize)> {
    let mut out: Vec<(How, usize)> = Vec::new();
    for how in [
        How::AsWritten,
        How::Erratum,
        How::Native,
        How::Approximated,
        How::NotExecutable,
    ] {
        out.push((how, rows.iter().filter(|r| r.how == how).count()));
    }
    out
}
