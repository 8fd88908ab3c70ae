//! Where an instruction's `D0` goes: VGPRs (either 16-bit half), SGPRs, a lane mask or
//! nowhere, by encoding and destination operand.

use super::super::state::code;
use super::{is_mask_format, Inst};
use crate::spec::Arch;

/// Where `D0` goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dest {
    /// VGPRs from `reg` (per lane); `hi` writes the upper 16-bit half.
    Vgpr { reg: u32, hi: bool },
    /// SGPRs from this code (one value for the wave).
    Sgpr(u32),
    /// A lane mask to SGPRs from this code.
    Mask(u32),
    /// Nowhere (VOP3 V_CMPX writes EXEC itself).
    None,
}

/// A CDNA VOP3 compare (`v_cmp*_e64`): its SGPR destination is a lane mask, though AMD's CDNA
/// table types it as a plain 64-bit number (`FMT_NUM_B64`; RDNA's says `FMT_NUM_M64`), so
/// bits of lanes inactive at issue must be written as zeros.
fn cdna_vop3_compare(ii: &Inst<'_>, kind: &str) -> bool {
    ii.arch == Arch::Cdna && kind == "OPR_SREG" && ii.d.inst.name.starts_with("V_CMP")
}

pub(super) fn dest(ii: &Inst<'_>, width: u32) -> Dest {
    match ii.family {
        "SOP1" | "SOP2" | "SOPK" => Dest::Sgpr(ii.field("sdst")),
        "VOPC" => match ii.d.ext {
            Some((super::super::sdwa::SDWA, ext)) => {
                Dest::Mask(super::super::sdwa::vopc_sdst(ext).unwrap_or(code::VCC_LO))
            }
            _ => Dest::Mask(code::VCC_LO),
        },
        "VOP1" | "VOP2" | "VOP3" | "VOP3SD" | "VOP3P" | "VINTERP" => {
            let op = ii.operand("vdst");
            let kind = op.map(|o| o.kind.as_str()).unwrap_or("OPR_VGPR");
            let format = op.map(|o| o.format.as_str()).unwrap_or("");
            let raw = ii.field("vdst");
            if kind == "OPR_EXEC" {
                Dest::None
            } else if kind.contains("VGPR") {
                let bits = op.map(|o| o.bits).unwrap_or(width);
                if ii.half_by_bit7(bits) && raw >= 128 {
                    Dest::Vgpr {
                        reg: raw - 128,
                        hi: true,
                    }
                } else {
                    let hi = ii.is_vop3()
                        && bits == 16
                        && ii.family != "VOP3P"
                        && ii.field("opsel") >> 3 & 1 == 1
                        // The MIXHI forms write their 16-bit result to the high half (see
                        // their errata).
                        || ii.family == "VOP3P" && ii.d.inst.name.contains("_MIXHI_");
                    Dest::Vgpr { reg: raw, hi }
                }
            } else if is_mask_format(format) || cdna_vop3_compare(ii, kind) {
                Dest::Mask(raw)
            } else {
                Dest::Sgpr(raw)
            }
        }
        _ => Dest::None,
    }
}
