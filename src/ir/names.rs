//! The names the pseudocode reads besides expressions: an instruction's operands and their
//! widths, the wave registers, and the status structures whose fields it addresses.

use std::collections::HashMap;

use super::RegRole;

/// The operand widths of one instruction, keyed by the names the pseudocode uses
/// (`S0`, `D0`, `SIMM16`, ...). Names not listed default to `default_width`.
#[derive(Clone, Debug, Default)]
pub struct OperandWidths {
    widths: HashMap<String, u32>,
    /// The width of operands the table does not list.
    pub default_width: u32,
}

/// Operand names the pseudocode uses besides the encoding's own field names.
const OPERAND_NAMES: &[&str] = &[
    "S0",
    "S1",
    "S2",
    "S3",
    "D0",
    "D1",
    "SIMM16",
    "SIMM32",
    "SRC0",
    "SRC1",
    "SRC2",
    "VDST",
    "SDST",
    "ADDR",
    "ADDR0",
    "ADDR1",
    "ADDR_BASE",
    "DATA",
    "DATA0",
    "DATA1",
    "DATA2",
    "OFFSET",
    "OFFSET0",
    "OFFSET1",
    "RETURN_DATA",
    "VDATA",
    "SDATA",
    "SBASE",
    "SOFFSET",
    "SADDR",
    "VADDR",
    "SRSRC",
    "TADDR",
    "OPSEL",
    "OPSEL_HI",
    "IOFFSET",
    "INST_OFFSET",
    "SGPR_ADDR",
    "VGPR_RTN",
    "DST",
    "GDS",
    "SDWA_SRC0_SEL",
    "INST",
    "NEG",
    "NEG_HI",
    "ABS",
    "OMOD",
    "CLAMP",
    // CDNA matrix fields: the A and B formats of the F8F6F4 MFMAs, and the scale operands
    // of a scaled MFMA (register numbers, like SRC0).
    "CBSZ",
    "BLGP",
    "SCALE_SRC0",
    "SCALE_SRC1",
    // Address inputs of the memory entries, which name them in lower case.
    "vgpr_a",
    "v_addr",
    "v_addr_off",
    "sgpr_base",
    "offset",
    "s_saddr",
    "s_saddr_off",
    "vgpr_d0",
    "vgpr_d1",
    "vgpr_dst",
    "vgpr_rtn",
    "sgpr_o",
];

impl OperandWidths {
    /// Every operand `default_width` bits wide (for user-written text).
    pub fn uniform(default_width: u32) -> OperandWidths {
        OperandWidths {
            widths: HashMap::new(),
            default_width,
        }
    }

    /// Records the width of operand `name` (keeps the widest if given twice).
    pub fn set(&mut self, name: &str, width: u32) {
        let w = self.widths.entry(name.to_string()).or_insert(width);
        *w = (*w).max(width);
    }

    /// Builds the table from an instruction's encoding fields: `ssrc0`/`src0` → `S0`,
    /// `ssrc1`/`src1`/`vsrc1` → `S1`, `src2` → `S2`, `sdst`/`vdst` → `D0`, and every field
    /// also under its own upper-cased name.
    pub fn from_fields<'a>(fields: impl IntoIterator<Item = (&'a str, u32)>) -> OperandWidths {
        let fields: Vec<(&str, u32)> = fields.into_iter().collect();
        // VOP3SD has both: `vdst` is D0, `sdst` its carry-out (VCC in the text).
        let has_vdst = fields.iter().any(|(f, _)| *f == "vdst");
        let mut t = OperandWidths::uniform(32);
        for (field, bits) in fields {
            let alias = match field {
                "ssrc0" | "src0" | "vsrc0" => Some("S0"),
                "ssrc1" | "src1" | "vsrc1" => Some("S1"),
                "src2" | "vsrc2" => Some("S2"),
                "sdst" if has_vdst => None,
                "sdst" | "vdst" | "vdstx" => Some("D0"),
                _ => None,
            };
            if let Some(a) = alias {
                t.set(a, bits);
            }
            // `SRC0`, `VDST`, ... name register numbers, not the operands' data: they keep the
            // default width.
            let register_number = alias.is_some() || field.starts_with("ssrc");
            if !register_number {
                t.set(&field.to_ascii_uppercase(), bits);
            }
        }
        t
    }

    pub(super) fn get(&self, name: &str) -> Option<u32> {
        self.widths.get(name).copied()
    }

    pub(super) fn is_operand(&self, name: &str) -> bool {
        self.widths.contains_key(name) || OPERAND_NAMES.contains(&name)
    }
}

/// Wave state registers and their widths.
pub(super) fn wave_reg(name: &str) -> Option<(u32, RegRole)> {
    Some(match name {
        "SCC" | "VCCZ" | "EXECZ" => (1, RegRole::Wave),
        "VCC" | "EXEC" | "PC" | "TBA" | "TMA" | "flat_scratch" => (64, RegRole::Wave),
        "VCC_LO" | "VCC_HI" | "EXEC_LO" | "EXEC_HI" | "M0" => (32, RegRole::Wave),
        "laneId" | "laneID" => (32, RegRole::Lane),
        "WAVE32" | "WAVE64" | "wave32" | "wave64" => (1, RegRole::Mode),
        "ROUND_MODE" => (32, RegRole::Mode),
        _ => return None,
    })
}

/// Status structures whose fields the pseudocode reads and writes as `BASE.FIELD`.
pub(super) const STATUS_BASES: &[&str] = &["WAVE_MODE", "WAVE_STATUS", "TRAPSTS", "MODE", "STATUS"];

pub(super) fn status_field_width(field: &str) -> u32 {
    match field {
        "IEEE" | "PRIV" | "INVALID" | "COND_DBG_USER" | "COND_DBG_SYS" | "SCALAR_PREFETCH_EN"
        | "GPR_IDX_EN" | "DX10_CLAMP" => 1,
        "CSP" => 3,
        _ => 32,
    }
}
