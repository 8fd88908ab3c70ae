//! What the hazard rules read: a wave's recent history (one entry per instruction), the
//! lane-mask SGPRs armed by a SALU write, and the instruction being observed. Shared by the
//! CDNA rules (`hazards.rs`) and RDNA's (`hazards_rdna.rs`).

use std::rc::Rc;

use super::operands::Opnd;
use super::{defined, Finding, Kind, Regs};
use crate::wave::Decoded;

/// One instruction of a wave's recent history.
#[derive(Clone, Debug)]
pub(super) struct Past {
    pub(super) pc: u64,
    pub(super) text: Rc<str>,
    pub(super) valu: bool,
    pub(super) salu: bool,
    /// A transcendental VALU (RDNA 3's TRANS unit).
    pub(super) trans: bool,
    /// A WMMA / SWMMAC matrix instruction.
    pub(super) wmma: bool,
    /// Explicit register reads.
    pub(super) reads: Rc<[Regs]>,
    /// Explicit register writes.
    pub(super) writes: Rc<[Regs]>,
    /// Register writes including the implicit ones (VCC, EXEC).
    pub(super) all_writes: Rc<[Regs]>,
    /// VGPRs of a store with more than 64 bits of data.
    pub(super) wide_store_data: Vec<Regs>,
    /// Wait states this instruction provides (1, or N+1 for `s_nop N`).
    pub(super) wait_states: u32,
    /// It drains the VALU result counter: a vector memory, LDS or export instruction,
    /// `s_waitcnt_depctr` / `s_wait_alu` with `va_vdst` = 0, or an LDS-direct load whose
    /// `wait_vdst` / `wait_va_vdst` is 0.
    pub(super) va_vdst_zero: bool,
    /// `s_waitcnt_depctr` / `s_wait_alu` with `sa_sdst` = 0.
    pub(super) sa_sdst_zero: bool,
    /// `s_waitcnt_depctr` / `s_wait_alu` with `va_sdst` = 0 (bits 11:9; `depctr_va_sdst(0)`
    /// = 0xf19f).
    pub(super) va_sdst_zero: bool,
    /// SGPRs a VALU reads as a lane mask (VCC implicitly, or a mask operand).
    pub(super) mask_reads: Vec<Regs>,
    /// A VALU that reads some SGPR (or VCC) or a literal constant.
    pub(super) reads_sgpr_or_literal: bool,
    /// The hardware register an `s_setreg*` writes.
    pub(super) setreg: Option<u32>,
    /// A vector memory, FLAT or LDS instruction (it reads its VGPRs after issue: LLVM's
    /// `isVMEM || isFLAT || isDS`).
    pub(super) vmem_or_ds: bool,
    /// It waits until no vector memory instruction still reads its source VGPRs: an
    /// export or VALU (LLVM's expiry for the LDS-direct rule), `s_waitcnt 0`,
    /// `s_waitcnt_depctr`/`s_wait_alu` with `vm_vsrc` = 0 (bits 4:2; `depctr_vm_vsrc(0)` =
    /// 0xff83), or an RDNA 4 LDS-direct load with `wait_vm_vsrc:0`.
    pub(super) vm_vsrc_drained: bool,
}

/// An SGPR a SALU wrote after a VALU read it as a lane mask (RDNA 3 wave64): reading it
/// again needs `s_waitcnt_depctr depctr_sa_sdst(0)` first.
#[derive(Clone, Debug)]
pub(super) struct Armed {
    pub(super) regs: Regs,
    pub(super) pc: u64,
    pub(super) text: Rc<str>,
}

/// What the hazard rules see of the instruction being observed.
pub(super) struct Step<'a> {
    pub(super) wg: [u32; 3],
    pub(super) wave: u32,
    pub(super) wave64: bool,
    pub(super) d: &'a Decoded,
    pub(super) text: &'a Rc<str>,
    /// Explicit operands.
    pub(super) reads: &'a Rc<[Regs]>,
    pub(super) writes: &'a Rc<[Regs]>,
    /// Explicit and implicit operands.
    pub(super) all_reads: &'a Rc<[Regs]>,
    pub(super) all_writes: &'a Rc<[Regs]>,
    pub(super) ops: &'a [Opnd],
    pub(super) info: &'a defined::InstInfo,
}

impl Step<'_> {
    /// A finding at this instruction against `earlier`.
    pub(super) fn finding(
        &self,
        earlier: (u64, &str),
        location: String,
        detail: String,
    ) -> Finding {
        Finding {
            kind: Kind::Hazard,
            workgroup: self.wg,
            wave: self.wave,
            pc: self.d.addr,
            inst: self.text.to_string(),
            earlier: Some((self.wave, earlier.0, earlier.1.to_string())),
            location,
            detail,
        }
    }
}
