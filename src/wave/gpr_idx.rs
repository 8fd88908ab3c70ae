//! CDNA VGPR indexing mode (`s_set_gpr_idx_on` ... `s_set_gpr_idx_off`).
//!
//! While MODE.GPR_IDX_EN (bit 27, GFX9 layout) is set, a VALU instruction's VGPR operands are
//! offset by M0[7:0]: `src0` when M0 bit 12 is set, `src1` with bit 13, `src2` with bit 14 and
//! the VGPR destination with bit 15 (AMD's CDNA ISA manual, "VGPR Indexing"). AMD's texts of
//! the `s_set_gpr_idx_*` instructions set the enable bit and M0's fields; nothing in an entry's
//! text says how the offset applies, so this module applies it: [`indexed`] returns the
//! instruction with its enabled VGPR fields moved by the index, which then runs like any
//! other. LLVM uses the mode for dynamic indexing of private arrays kept in VGPRs.

use super::state::WaveState;
use super::Decoded;

/// MODE.GPR_IDX_EN.
pub(super) const MODE_GPR_IDX_EN: u32 = 1 << 27;

/// Whether VGPR indexing is on.
pub(super) fn enabled(w: &WaveState) -> bool {
    w.mode & MODE_GPR_IDX_EN != 0 && w.arch.is_gfx9()
}

/// Sets or clears MODE.GPR_IDX_EN (the `WAVE_MODE.GPR_IDX_EN` the texts write).
pub(super) fn set_enabled(w: &mut WaveState, on: bool) {
    if on {
        w.mode |= MODE_GPR_IDX_EN;
    } else {
        w.mode &= !MODE_GPR_IDX_EN;
    }
}

/// `d` with the VGPR operands M0 enables moved by M0[7:0], or `None` when `d` is not a VALU
/// instruction (indexing leaves the others alone).
pub(super) fn indexed(d: &Decoded, m0: u32) -> Option<Decoded> {
    let family = d.inst.family.as_str();
    if !matches!(family, "VOP1" | "VOP2" | "VOPC" | "VOP3" | "VOP3P") {
        return None;
    }
    let index = u64::from(m0 & 0xff);
    let on = |bit: u32| m0 >> bit & 1 == 1;
    // The destination is a VGPR except for compares and lane reads (SGPR destinations).
    let vgpr_dst = !d.facts.compare
        && !matches!(
            d.facts.lane,
            crate::machine::LaneOp::ReadLane | crate::machine::LaneOp::ReadFirstLane
        );
    let mut out = d.clone();
    for (field, value) in out.inst.fields.iter_mut() {
        match field.as_str() {
            "src0" if on(12) && *value >= 256 && d.ext.is_none() => *value += index,
            "vsrc1" if on(13) => *value += index,
            "src1" if on(13) && *value >= 256 => *value += index,
            "src2" if on(14) && *value >= 256 => *value += index,
            "vdst" if on(15) && vgpr_dst => *value += index,
            _ => {}
        }
    }
    // A DPP/SDWA source names its VGPR in the extension dword.
    if let Some((kind, ext)) = out.ext {
        let sgpr = kind == super::sdwa::SDWA && super::sdwa::source_is_sgpr(ext, 0);
        if on(12) && !sgpr {
            let reg = ((ext & 0xff) + index as u32) & 0xff;
            out.ext = Some((kind, ext & !0xff | reg));
        }
    }
    Some(out)
}
