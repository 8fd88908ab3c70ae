//! RDNA 4's SGPR read hazards: an SGPR (or VCC) written by a SALU or a VALU and read again
//! before the write has committed, which software resolves with `s_wait_alu`
//! `depctr_sa_sdst(0)`, `depctr_va_sdst(0)` or `depctr_va_vcc(0)`. The rule is LLVM's
//! (`AMDGPUWaitSGPRHazards`, run for GFX12 targets before GFX12.5), followed along the path the
//! wave took:
//!
//! - Only SGPR pairs a VALU has read are tracked: the first VALU read of a pair (`s[2n:2n+1]`)
//!   arms it, and only writes of armed pairs leave a hazard. Wider operands count by their
//!   first register's pair, as LLVM's pass does. EXEC, M0, `null` and SCC are
//!   never tracked; VCC (`vcc_lo`, `vcc_hi`) has its own state.
//! - A SALU write of an armed SGPR: any SALU or VALU read of it needs `depctr_sa_sdst(0)`.
//! - A VALU write of an armed SGPR: a VALU read of it needs `depctr_va_sdst(0)`; a SALU read of
//!   an armed SGPR waits for all VALU writes (they count as committed after it).
//! - VCC: a VALU write then a VALU read needs `depctr_va_vcc(0)`; a SALU write then any read
//!   `depctr_sa_sdst(0)`; a SALU read after a VALU write clears it.
//! - An `s_wait_alu` / `s_waitcnt_depctr` with a field at 0 clears what it waits for; a
//!   scalar memory instruction or a buffer/image instruction (vector memory that is not FLAT,
//!   global or scratch) clears every pending write; `ds_nop` repeated 4 times (wave32) or 8
//!   (wave64) forgets the armed pairs.
//!
//! Only VALU (LDS DMA loads included) and SALU instructions read or write here. Calls,
//! returns and indirect jumps end every pending write (LLVM waits for them all before one and
//! starts each function with none; the return address a call writes is not pending), and
//! after a call every pair counts as tracked, as LLVM assumes for a callee and for its caller
//! after the call.

use std::rc::Rc;

use super::history::Step;
use super::{reg_name, Finding, Regs};
use crate::machine::{Branch, Control, Family, MemKind, Native};
use crate::wave::code;

/// The per-wave state of the rule.
#[derive(Default)]
pub(super) struct SgprHazards {
    /// SGPR pairs (`n` for `s[2n:2n+1]`) a VALU has read.
    tracked: u64,
    /// Per scalar code below 128: the SALU that wrote it and has not committed.
    salu: Vec<Option<Writer>>,
    /// Per scalar code below 128: the VALU that wrote it and has not committed.
    valu: Vec<Option<Writer>>,
    /// The SALU / VALU that last wrote VCC and has not committed.
    vcc_salu: Option<Writer>,
    vcc_valu: Option<Writer>,
    /// Consecutive `ds_nop`s.
    ds_nops: u32,
}

#[derive(Clone)]
struct Writer {
    pc: u64,
    text: Rc<str>,
}

/// The scalar code an operand's first register has on RDNA 4 (LLVM's hardware register
/// index) when the rule tracks it: SGPRs, VCC and trap temporaries; not M0, `null` or EXEC.
fn tracked_code(r: &Regs) -> Option<u32> {
    let c = match r.file {
        's' => r.first,
        't' => code::TTMP0 + r.first,
        _ => return None,
    };
    // RDNA 4's codes 124 to 127 are `null`, M0 and EXEC.
    (c < code::TTMP0 + 16).then_some(c)
}

fn is_vcc(c: u32) -> bool {
    c == code::VCC_LO || c == code::VCC_HI
}

/// Which of the `va_sdst`, `va_vcc` and `sa_sdst` fields of an `s_wait_alu` immediate are 0
/// (bits 11:9, 1 and 0; llvm-mc-22: `depctr_va_sdst(0)` = 0xf19f, `depctr_va_vcc(0)` =
/// 0xff9d, `depctr_sa_sdst(0)` = 0xff9e).
fn wait_fields(imm: u64) -> (bool, bool, bool) {
    ((imm >> 9) & 7 == 0, (imm >> 1) & 1 == 0, imm & 1 == 0)
}

impl SgprHazards {
    fn clear_salu(&mut self) {
        self.salu.iter_mut().for_each(|w| *w = None);
        self.vcc_salu = None;
    }

    fn clear_valu(&mut self) {
        self.valu.iter_mut().for_each(|w| *w = None);
    }

    /// Checks `s` against the wave's pending SGPR writes, then records its writes.
    pub(super) fn step(&mut self, s: &Step, found: &mut Vec<Finding>) {
        if self.salu.is_empty() {
            self.salu = vec![None; 128];
            self.valu = vec![None; 128];
        }
        let f = &s.d.facts;
        if f.family == Family::Ds && f.control == Control::Noop {
            self.ds_nops += 1;
            if self.ds_nops >= if s.wave64 { 8 } else { 4 } {
                self.tracked = 0;
            }
            return;
        }
        self.ds_nops = 0;
        if matches!(f.mem, MemKind::Scalar | MemKind::Buffer | MemKind::Image) {
            self.clear_salu();
            self.clear_valu();
            self.vcc_valu = None;
            return;
        }
        if f.depctr {
            let (va_sdst, va_vcc, sa_sdst) = wait_fields(s.d.inst.field("simm16").unwrap_or(0));
            if va_vcc {
                self.vcc_valu = None;
            }
            if sa_sdst {
                self.clear_salu();
            }
            if va_sdst {
                self.clear_valu();
            }
            return;
        }
        let lds_dma = f.control == Control::Native(Native::LdsDma)
            || f.lds_by_bit && s.d.inst.field("lds") == Some(1);
        let valu = f.family.is_valu() || lds_dma;
        let salu = f.family.is_salu();
        if !valu && !salu {
            return;
        }
        // Calls, returns and indirect jumps: LLVM waits for every pending write before them
        // and starts a function with none pending (the jump's own write of the return
        // address included); after a call every pair counts as read by a VALU (the callee's
        // and, back in the caller, whatever the callee read).
        if f.call_or_return || f.branch == Branch::Indirect {
            self.clear_salu();
            self.clear_valu();
            self.vcc_valu = None;
            // `s_call_b64` and `s_swappc_b64` write the return address; `s_setpc_b64` does not.
            let call = f.branch == Branch::Call || f.call_or_return && !s.writes.is_empty();
            if call {
                self.tracked = u64::MAX;
            }
            return;
        }
        // Reads: each register once.
        let mut seen: Vec<Regs> = Vec::new();
        // (field, register, writer) of the first read that needs each wait.
        let mut need_sa: Option<(u32, Writer)> = None;
        let mut need_va: Option<(u32, Writer)> = None;
        let mut need_vcc: Option<(u32, Writer)> = None;
        for r in s.all_reads.iter() {
            if seen.contains(r) {
                continue;
            }
            seen.push(*r);
            let Some(c) = tracked_code(r) else {
                continue;
            };
            let pair = (c >> 1) & 0x3f;
            if self.tracked >> pair & 1 == 0 {
                if valu {
                    self.tracked |= 1 << pair;
                }
                continue;
            }
            let vcc = is_vcc(c);
            if salu {
                if vcc {
                    if self.vcc_valu.is_some() {
                        self.vcc_valu = None;
                        self.vcc_salu = None;
                    }
                } else {
                    self.clear_valu();
                }
            }
            for x in c..(c + r.count).min(128) {
                if let (None, Some(w)) = (&need_sa, &self.salu[x as usize]) {
                    need_sa = Some((x, w.clone()));
                }
                if let (true, None, Some(w)) = (valu, &need_va, &self.valu[x as usize]) {
                    need_va = Some((x, w.clone()));
                }
            }
            if vcc {
                if let (None, Some(w)) = (&need_sa, &self.vcc_salu) {
                    need_sa = Some((c, w.clone()));
                }
                if let (None, Some(w)) = (&need_vcc, &self.vcc_valu) {
                    need_vcc = Some((c, w.clone()));
                }
            }
        }
        let who = if valu { "a VALU" } else { "a SALU" };
        for (need, by, wait) in [
            (&need_vcc, "a VALU wrote VCC", "depctr_va_vcc(0)"),
            (&need_sa, "a SALU wrote it", "depctr_sa_sdst(0)"),
            (&need_va, "a VALU wrote it", "depctr_va_sdst(0)"),
        ] {
            if let Some((at, w)) = need {
                found.push(s.finding(
                    (w.pc, &w.text),
                    reg_name('s', *at),
                    format!(
                        "{who} reads an SGPR a VALU has read before and {by} since, without \
                         s_wait_alu {wait} (RDNA 4 SGPR read hazard)"
                    ),
                ));
            }
        }
        // A reported hazard counts as waited for, as the wait LLVM inserts would.
        if need_vcc.is_some() {
            self.vcc_valu = None;
        }
        if need_sa.is_some() {
            self.clear_salu();
        }
        if need_va.is_some() {
            self.clear_valu();
        }
        // Writes.
        let mut seen: Vec<Regs> = Vec::new();
        for r in s.all_writes.iter() {
            if seen.contains(r) {
                continue;
            }
            seen.push(*r);
            let Some(c) = tracked_code(r) else {
                continue;
            };
            if self.tracked >> ((c >> 1) & 0x3f) & 1 == 0 {
                continue;
            }
            let w = Writer {
                pc: s.d.addr,
                text: s.text.clone(),
            };
            if is_vcc(c) {
                if salu {
                    (self.vcc_salu, self.vcc_valu) = (Some(w), None);
                } else {
                    (self.vcc_salu, self.vcc_valu) = (None, Some(w));
                }
                continue;
            }
            for x in c..(c + r.count).min(128) {
                if salu {
                    self.salu[x as usize] = Some(w.clone());
                } else {
                    self.valu[x as usize] = Some(w.clone());
                }
            }
        }
    }
}
