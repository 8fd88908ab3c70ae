//! Hazards the ISA makes software avoid: dependencies the hardware does not interlock, which
//! need wait states (`s_nop`, independent instructions) or an `s_waitcnt_depctr`. Fed from
//! [`Sanitizer::observe`] with the wave's recent history; see docs/sanitizer.md for the
//! sources of each rule.

use super::{operand_file_regs, reg_name, Finding, Kind, Past, Regs, Sanitizer, WaveTrack};
use crate::wave::Decoded;

impl Sanitizer {
    /// CDNA hazards the manual requires software to separate by wait states (CDNA 3 ISA,
    /// section 4.5 "Manually Inserted Wait States (NOPs)").
    #[allow(clippy::too_many_arguments)]
    pub(super) fn hazards(
        &mut self,
        track: &mut WaveTrack,
        wg: [u32; 3],
        wave: u32,
        d: &Decoded,
        text: &str,
        reads: &[Regs],
        writes: &[Regs],
        found: &mut Vec<Finding>,
    ) {
        let family = d.inst.family.as_str();
        let valu = family.starts_with("VOP");
        let vmem = matches!(family, "GLOBAL" | "FLAT" | "SCRATCH" | "MUBUF" | "MTBUF");
        let dpp = d.ext.is_some() || d.inst.format.contains("DPP");
        let mut between = 0u32;
        let mut hit = None;
        for past in track.history.iter().rev() {
            // VALU writes an SGPR, then a VMEM instruction reads it: 5 wait states.
            if vmem && past.valu && between < 5 {
                for r in reads.iter().filter(|r| r.file == 's') {
                    if let Some(at) = past.writes.iter().find_map(|w| w.overlaps(r)) {
                        hit = Some((
                            past.pc,
                            past.text.clone(),
                            reg_name('s', at),
                            5,
                            "a VMEM instruction reads an SGPR a VALU instruction wrote",
                        ));
                    }
                }
            }
            // VALU writes a VGPR, then a DPP instruction reads it: 2 wait states.
            if dpp && past.valu && between < 2 && hit.is_none() {
                for r in reads.iter().filter(|r| r.file == 'v') {
                    if let Some(at) = past.writes.iter().find_map(|w| w.overlaps(r)) {
                        hit = Some((
                            past.pc,
                            past.text.clone(),
                            reg_name('v', at),
                            2,
                            "a DPP instruction reads a VGPR a VALU instruction wrote",
                        ));
                    }
                }
            }
            // A store with more than 64 bits of data, then a VALU write of its data VGPRs:
            // 2 wait states (gfx940 and later).
            if valu && between < 2 && hit.is_none() {
                for w in writes.iter().filter(|r| r.file == 'v') {
                    if let Some(at) = past.wide_store_data.iter().find_map(|s| s.overlaps(w)) {
                        hit = Some((past.pc, past.text.clone(), reg_name('v', at), 2, "a VALU instruction overwrites the data VGPRs of a store of more than 64 bits"));
                    }
                }
            }
            if hit.is_some() {
                break;
            }
            between += past.wait_states;
            if between >= 5 {
                break;
            }
        }
        if let Some((pc, earlier, location, needed, what)) = hit {
            found.push(Finding {
                kind: Kind::Hazard,
                workgroup: wg,
                wave,
                pc: d.addr,
                inst: text.to_string(),
                earlier: Some((wave, pc, earlier)),
                location,
                detail: format!("{what}: {needed} wait states required, {between} given"),
            });
        }
        let name = d.inst.name.as_str();
        let wide_store_data = if vmem && (name.contains("STORE") || name.contains("ATOMIC")) {
            data_regs(d).into_iter().filter(|r| r.count > 2).collect()
        } else {
            Vec::new()
        };
        let wait_states = if name == "S_NOP" {
            d.inst.field("simm16").unwrap_or(0) as u32 % 16 + 1
        } else {
            1
        };
        track.history.push_back(Past {
            pc: d.addr,
            text: text.to_string(),
            valu,
            writes: writes.to_vec(),
            wide_store_data,
            wait_states,
        });
        if track.history.len() > 6 {
            track.history.pop_front();
        }
    }
}

/// The store-data registers of a vector memory instruction.
fn data_regs(d: &Decoded) -> Vec<Regs> {
    d.inst
        .operands
        .iter()
        .filter(|o| {
            matches!(
                o.field.as_str(),
                "data" | "vdata" | "vsrc" | "data0" | "data1"
            )
        })
        .filter_map(|o| operand_file_regs(d, o))
        .collect()
}
