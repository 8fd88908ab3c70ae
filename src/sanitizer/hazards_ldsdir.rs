//! The LDS-direct hazards of RDNA 3 and RDNA 4 (LLVM `GCNHazardRecognizer`:
//! `fixLdsDirectVALUHazard`, `fixLdsDirectVMEMHazard`). An LDS-direct or LDS-parameter load
//! (`lds_direct_load`/`lds_param_load`, RDNA 4 `ds_direct_load`/`ds_param_load`) writes its
//! VGPR without waiting for the instructions before it that still use that VGPR:
//!
//! - a VALU that reads or writes it, with fewer VALUs between than the load's
//!   `wait_vdst` (RDNA 4 `wait_va_vdst`) field lets be outstanding: with K VALUs between, the
//!   field must be at most K (15 or more VALUs, or a vector memory, LDS or export instruction
//!   between, which drain the VALU counter, end the window); a transcendental VALU among them
//!   (or as the user) needs 0, since transcendentals complete out of order with other VALUs;
//! - a vector memory, FLAT or LDS instruction that reads or writes it and may not have read its
//!   operands yet: a VALU, an export, `s_waitcnt 0`, `depctr_vm_vsrc(0)` or (RDNA 4) an
//!   LDS-direct load with `wait_vm_vsrc:0` between ends it; on RDNA 4 the load's own
//!   `wait_vm_vsrc:0` is the fix, on RDNA 3 `s_waitcnt_depctr depctr_vm_vsrc(0)` before it.

use super::history::{Past, Step};
use super::{reg_name, Finding, Regs, WaveTrack};
use crate::machine::Family;

/// LLVM's `NoHazardWaitStates` for the VALU rule: VALUs after which the hazard has expired.
const VALU_WINDOW: u32 = 15;

/// The first register of `vdst` that `p` reads or writes (explicit operands).
fn touches(p: &Past, vdst: &[Regs]) -> Option<u32> {
    p.reads
        .iter()
        .chain(p.writes.iter())
        .find_map(|r| vdst.iter().find_map(|v| r.overlaps(v)))
}

/// Checks an LDS-direct load `s` against the wave's history (`rdna4`: RDNA 4's field names
/// and its `wait_vm_vsrc` field).
pub(super) fn lds_direct(track: &WaveTrack, s: &Step, rdna4: bool, found: &mut Vec<Finding>) {
    if !matches!(s.d.facts.family, Family::Ldsdir | Family::Vdsdir) {
        return;
    }
    let vdst: Vec<Regs> = s.writes.iter().filter(|r| r.file == 'v').copied().collect();
    if vdst.is_empty() {
        return;
    }
    let field = |n: &str| s.d.inst.field(n).unwrap_or(0);
    let (wait_name, wait) = if rdna4 {
        ("wait_va_vdst", field("wait_va_vdst"))
    } else {
        ("wait_vdst", field("wait_vdst"))
    };
    let (mut valus, mut trans) = (0u32, false);
    for p in track.history.iter().rev() {
        if p.valu {
            trans |= p.trans;
            if let Some(at) = touches(p, &vdst) {
                let allowed = if trans { 0 } else { valus };
                if wait > u64::from(allowed) {
                    found.push(s.finding(
                        (p.pc, &p.text),
                        reg_name('v', at),
                        format!(
                            "an LDS-direct load writes a VGPR a VALU {valus} VALU(s) earlier \
                             uses, with {wait_name}:{wait} (at most {allowed} waits for it{})",
                            if trans {
                                "; a transcendental VALU is among them"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
                break;
            }
            valus += 1;
            if valus >= VALU_WINDOW {
                break;
            }
        } else if p.va_vdst_zero {
            break;
        }
    }
    if rdna4 && s.d.inst.field("wait_vm_vsrc") == Some(0) {
        return;
    }
    for p in track.history.iter().rev() {
        if p.vmem_or_ds {
            if let Some(at) = touches(p, &vdst) {
                let fix = if rdna4 {
                    "wait_vm_vsrc:0"
                } else {
                    "s_waitcnt_depctr depctr_vm_vsrc(0) before it"
                };
                found.push(s.finding(
                    (p.pc, &p.text),
                    reg_name('v', at),
                    format!(
                        "an LDS-direct load writes a VGPR an earlier vector memory or LDS \
                         instruction may still read or write (needs {fix})"
                    ),
                ));
                return;
            }
        }
        if p.vm_vsrc_drained {
            return;
        }
    }
}
