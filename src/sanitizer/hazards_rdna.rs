//! RDNA 3's software-resolved VALU dependencies (RDNA 3 ISA, "Data Dependency Resolution":
//! the cases that need `s_waitcnt_depctr`; LLVM's `GCNHazardRecognizer` implements the same
//! windows as `fixVALUTransUseHazard`, `fixVALUPartialForwardingHazard` and
//! `fixVALUMaskWriteHazard`). The history is the wave's executed instructions, so a window
//! follows the path the wave took, across branches.

use super::history::{Armed, Past, Step};
use super::{reg_name, Finding, Regs, WaveTrack};
use crate::spec::Arch;
use crate::wave::{code, m0_code};

/// The VGPR source registers of `s`, without repeats.
fn vgpr_sources(s: &Step) -> Vec<Regs> {
    let mut srcs: Vec<Regs> = Vec::new();
    for r in s.reads.iter().filter(|r| r.file == 'v') {
        if !srcs.contains(r) {
            srcs.push(*r);
        }
    }
    srcs
}

/// The first register of `srcs` that `p` writes (explicit destinations).
fn written(p: &Past, srcs: &[Regs]) -> Option<u32> {
    srcs.iter()
        .find_map(|r| p.writes.iter().find_map(|w| w.overlaps(r)))
}

const EXEC: Regs = Regs {
    file: 's',
    first: code::EXEC_LO,
    count: 2,
};

/// RDNA 3 (wave32 and wave64): a VALU reads a VGPR that a transcendental VALU wrote, with
/// at most 5 VALUs and 1 transcendental between and nothing that drained `va_vdst`.
fn trans_use(track: &WaveTrack, s: &Step, now: &Past, found: &mut Vec<Finding>) {
    if !now.valu {
        return;
    }
    let srcs = vgpr_sources(s);
    if srcs.is_empty() {
        return;
    }
    let (mut valus, mut trans) = (0u32, 0u32);
    for p in track.history.iter().rev() {
        if valus > 5 || trans > 1 || p.va_vdst_zero {
            return;
        }
        if p.trans {
            if let Some(at) = written(p, &srcs) {
                found.push(s.finding(
                    (p.pc, &p.text),
                    reg_name('v', at),
                    format!(
                        "a VALU reads the result of a transcendental VALU {valus} VALU(s) later \
                         without s_waitcnt_depctr depctr_va_vdst(0)"
                    ),
                ));
                return;
            }
        }
        valus += p.valu as u32;
        trans += p.trans as u32;
    }
}

/// RDNA 3 wave64: a VALU with two or more VGPR sources reads Va, written by a VALU before
/// a SALU write of EXEC, and Vb, written by a VALU after it, with at most 2 VALUs between
/// Va and Vb's EXEC change, at most 4 after Vb, and nothing that drained `va_vdst`.
fn partial_forwarding(track: &WaveTrack, s: &Step, now: &Past, found: &mut Vec<Finding>) {
    if !s.wave64 || !now.valu {
        return;
    }
    let srcs = vgpr_sources(s);
    if srcs.len() < 2 {
        return;
    }
    // Per source: the VALUs between its last writer and this instruction, and the writer.
    let mut defs: Vec<Option<(u32, &Past, u32)>> = vec![None; srcs.len()];
    let mut exec_pos: Option<u32> = None;
    let mut valus = 0u32;
    for p in track.history.iter().rev() {
        if valus > 8 || p.va_vdst_zero {
            return;
        }
        let mut changed = false;
        if p.valu {
            for (i, r) in srcs.iter().enumerate() {
                if defs[i].is_none() {
                    if let Some(at) = written(p, std::slice::from_ref(r)) {
                        defs[i] = Some((valus, p, at));
                        changed = true;
                    }
                }
            }
        } else if p.salu
            && exec_pos.is_none()
            && defs.iter().any(Option::is_some)
            && p.all_writes.iter().any(|w| w.overlaps(&EXEC).is_some())
        {
            exec_pos = Some(valus);
            changed = true;
        }
        if valus > 4 && defs.iter().all(Option::is_none) {
            return;
        }
        if let (true, Some(exec)) = (changed, exec_pos) {
            let pre = defs
                .iter()
                .flatten()
                .filter(|d| d.0 >= exec)
                .min_by_key(|d| d.0);
            let post = defs
                .iter()
                .flatten()
                .filter(|d| d.0 < exec)
                .map(|d| d.0)
                .min();
            if let Some(post) = post {
                let intv2 = exec - post - 1;
                if post > 4 || intv2 > 2 {
                    return;
                }
                if let Some(&(pre_pos, va, at)) = pre {
                    let intv1 = pre_pos - exec;
                    if intv1 + intv2 > 2 {
                        return;
                    }
                    found.push(
                        s.finding(
                            (va.pc, &va.text),
                            reg_name('v', at),
                            "wave64 VALU reads VGPRs written before and after an EXEC change \
                         (partial forwarding) without s_waitcnt_depctr depctr_va_vdst(0)"
                                .to_string(),
                        ),
                    );
                    return;
                }
            }
        }
        valus += p.valu as u32;
    }
}

/// RDNA 3 wave64: a VALU reads an SGPR as a lane mask, a SALU then writes that SGPR, and a
/// SALU reads it before `s_waitcnt_depctr depctr_sa_sdst(0)`. Between the VALU and the
/// SALU write, a VALU reading another SGPR or a literal, a VALU writing that SGPR, a wait on
/// `sa_sdst` or `va_sdst` ends the hazard; after the write only the `sa_sdst` wait does.
fn mask_write(track: &mut WaveTrack, s: &Step, now: &Past, found: &mut Vec<Finding>) {
    if !s.wave64 {
        return;
    }
    if now.sa_sdst_zero {
        track.mask_armed.clear();
        return;
    }
    if !now.salu {
        return;
    }
    let mut hit = None;
    for (i, a) in track.mask_armed.iter().enumerate() {
        if let Some(at) = s.all_reads.iter().find_map(|r| a.regs.overlaps(r)) {
            hit = Some((i, at));
            break;
        }
    }
    if let Some((i, at)) = hit {
        let a = track.mask_armed.remove(i);
        found.push(
            s.finding(
                (a.pc, &a.text),
                reg_name('s', at),
                "a SALU reads an SGPR a SALU wrote after a VALU read it as a lane mask, without \
             s_waitcnt_depctr depctr_sa_sdst(0)"
                    .to_string(),
            ),
        );
    }
    let m0 = m0_code(Arch::Rdna3);
    for w in s.writes.iter().filter(|w| w.file == 's') {
        if w.overlaps(&EXEC).is_some() || (w.first..w.first + w.count).contains(&m0) {
            continue;
        }
        for p in track.history.iter().rev() {
            if p.valu && p.mask_reads.iter().any(|m| m.overlaps(w).is_some()) {
                track.mask_armed.push(Armed {
                    regs: *w,
                    pc: now.pc,
                    text: now.text.clone(),
                });
                break;
            }
            // A later VALU write of the SGPR (or a wait for VALU SGPR writes) means the
            // VALU's mask read is done: VALUs complete in order.
            let valu_wrote = p.valu && p.all_writes.iter().any(|x| x.overlaps(w).is_some());
            if p.sa_sdst_zero || p.va_sdst_zero || valu_wrote || p.valu && p.reads_sgpr_or_literal {
                break;
            }
        }
    }
}

/// RDNA 3 and RDNA 4: a WMMA reads, as its A or B matrix (`src0`, `src1`), the result of the
/// previous WMMA with no VALU between (LLVM `fixWMMAHazards` inserts a `v_nop`; `s_nop`
/// does not help). RDNA 4's SWMMAC also may not read it as its sparsity index (`src2`; its
/// C matrix may overlap: the hardware stalls for that).
pub(super) fn wmma_overlap(track: &WaveTrack, s: &Step, now: &Past, found: &mut Vec<Finding>) {
    if !now.wmma {
        return;
    }
    let Some(p) = track.history.iter().rev().find(|p| p.valu) else {
        return;
    };
    if !p.wmma {
        return;
    }
    let swmmac = s.d.facts.matrix == crate::machine::Matrix::Swmmac;
    let ab: Vec<Regs> = s
        .ops
        .iter()
        .filter(|o| o.read && matches!(o.field.as_str(), "src0" | "src1"))
        .map(|o| o.r)
        .collect();
    let index: Vec<Regs> = s
        .ops
        .iter()
        .filter(|o| swmmac && o.read && o.field == "src2")
        .map(|o| o.r)
        .collect();
    if let Some(at) = written(p, &ab) {
        found.push(
            s.finding(
                (p.pc, &p.text),
                reg_name('v', at),
                "a WMMA reads the previous WMMA's result as matrix A or B with no VALU between"
                    .to_string(),
            ),
        );
    } else if let Some(at) = written(p, &index) {
        found.push(
            s.finding(
                (p.pc, &p.text),
                reg_name('v', at),
                "an SWMMAC reads the previous WMMA's result as its sparsity index with no VALU \
                 between"
                    .to_string(),
            ),
        );
    }
}

/// The RDNA 3 hazards `s` exposes against the wave's history.
pub(super) fn rdna3_hazards(track: &mut WaveTrack, s: &Step, now: &Past, found: &mut Vec<Finding>) {
    wmma_overlap(track, s, now, found);
    trans_use(track, s, now, found);
    partial_forwarding(track, s, now, found);
    mask_write(track, s, now, found);
}
