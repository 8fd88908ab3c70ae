//! CDNA accumulation registers (AGPRs, `a0..a255`) in the wave model.
//!
//! An AGPR is a per-lane register like a VGPR, in a second file that MFMA accumulators, the
//! `v_accvgpr_*` moves and memory instructions with their `acc` bit address. The state keeps
//! it as a row of the VGPR file after the 256 VGPRs (`state::AGPR_ROW`), so this module owns
//! exactly one step: at decode, [`rebase`] moves every field that names an AGPR onto its row
//! (a VGPR-number field `k` becomes `AGPR_ROW + k`, a 9-bit source code `256 + k` becomes
//! `256 + AGPR_ROW + k`). After that the operand fetch, the MFMA errata's `VGPR[lane][...]`
//! addressing and the memory paths read and write AGPRs without knowing about them. Which
//! fields are AGPRs is the decoder's knowledge (`Isa::agpr_fields`); the decoded form as
//! encoded is kept for printing.
//!
//! `v_accvgpr_write_b32`, `v_accvgpr_read_b32` and `v_accvgpr_mov_b32` have no pseudocode
//! text in AMD's tables; [`execute`] runs them natively: once the fields are rebased each is a
//! 32-bit copy of `src0` (an AGPR, a VGPR, an SGPR or an inline constant) to `vdst` in the
//! lanes EXEC enables.

use crate::isa::{self, Isa};

use super::state::{WaveState, AGPR_ROW};
use super::WaveError;

/// Rebases the AGPR fields of `inst` onto their VGPR-file rows. Returns the instruction as
/// encoded when anything changed (for printing), `None` otherwise. On matrix instructions
/// the bits that selected the AGPR file (`clmp` as `acc_cd`, `opsel_hi` bits 0 and 1 as
/// `acc`) are cleared in the rebased form: they chose the file, and they modify nothing.
pub(super) fn rebase(
    isa: &Isa,
    facts: &crate::machine::InstFacts,
    inst: &mut isa::Inst,
) -> Option<Box<isa::Inst>> {
    let fields = isa.agpr_fields(inst);
    if fields.is_empty() {
        return None;
    }
    let encoded = Box::new(inst.clone());
    use crate::machine::Matrix;
    let matrix = matches!(facts.matrix, Matrix::Mfma | Matrix::Smfmac);
    for (name, value) in inst.fields.iter_mut() {
        if fields.iter().any(|f| f == name) {
            *value += u64::from(AGPR_ROW);
        } else if matrix && name == "clmp" {
            *value = 0;
        } else if matrix && name == "opsel_hi" {
            *value &= !3;
        }
    }
    Some(encoded)
}

/// The register name of a VGPR-file row: `v5`, or `a5` for row `AGPR_ROW + 5`.
pub fn row_name(row: u32) -> String {
    match row.checked_sub(AGPR_ROW) {
        Some(k) => format!("a{k}"),
        None => format!("v{row}"),
    }
}

/// Runs an AGPR move (`v_accvgpr_write_b32`, `_read_b32`, `_mov_b32`) whose fields were
/// rebased: `vdst = src0` in every lane EXEC enables.
///
/// # Errors
/// [`WaveError::Unsupported`] for a `src0` code that is not a register or an inline
/// constant.
pub(super) fn execute(d: &super::Decoded, w: &mut WaveState) -> Result<(), WaveError> {
    let inst = &d.inst;
    let src = inst.field("src0").unwrap_or(0) as u32;
    let dst = inst.field("vdst").unwrap_or(0) as u32;
    let exec = w.exec();
    let uniform = match src {
        0..=127 => Some(w.read_sgpr(src)),
        128..=192 => Some(src - 128),
        193..=208 => Some((-((src - 192) as i32)) as u32),
        240..=248 => Some(crate::isa::operands::INLINE_FLOATS[(src - 240) as usize].3),
        255 => inst.literal.map(|v| v as u32),
        256.. => None,
        _ => {
            return Err(WaveError::Unsupported {
                addr: d.addr,
                inst: inst.name.clone(),
                reason: format!("source operand code {src} is not modelled for AGPR moves"),
            })
        }
    };
    for lane in 0..w.wave_size {
        if exec >> lane & 1 == 0 {
            continue;
        }
        let v = uniform.unwrap_or_else(|| w.vgpr(lane, src - 256));
        w.set_vgpr(lane, dst, v);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Arch;

    #[test]
    fn agpr_rows_follow_the_vgprs_on_cdna_only() {
        let mut w = WaveState::new(Arch::Cdna, 64);
        w.set_agpr(3, 7, 0xabcd);
        assert_eq!(w.vgpr(3, AGPR_ROW + 7), 0xabcd);
        assert_eq!(w.agpr(3, 7), 0xabcd);
        assert_eq!(w.vgpr(3, 7), 0);
        let mut r = WaveState::new(Arch::Rdna3, 32);
        r.set_agpr(3, 7, 1);
        assert_eq!(r.agpr(3, 7), 0);
        assert_eq!(r.vgpr_rows(), 256);
        assert_eq!(w.vgpr_rows(), 512);
    }
}
