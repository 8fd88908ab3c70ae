//! Hazards the ISA makes software avoid: dependencies the hardware does not interlock, which
//! need wait states (`s_nop`, independent instructions) or an `s_waitcnt_depctr`. Fed from
//! [`Sanitizer::observe`] with the wave's recent history; see docs/sanitizer.md for the
//! sources of each rule. CDNA's wait-state table is here, RDNA 3's forwarding and mask rules
//! in `hazards_rdna.rs`.

use super::history::{Past, Step};
use super::{operand_file_regs, reg_name, Finding, Regs, Sanitizer, WaveTrack};
use crate::machine::{Encoding, Family, InstFacts, LaneOp, Matrix, MemKind, Wait};
use crate::spec::{Arch, Family as Gen};
use crate::wave::{code, Decoded};

/// How many instructions of a wave's history the hazard rules look back over (RDNA 3's
/// partial-forwarding window spans up to 8 VALUs with other instructions between).
const HISTORY: usize = 24;

/// The `va_vdst` and `sa_sdst` fields of an `s_waitcnt_depctr` / `s_wait_alu` immediate
/// (bits 15:12 and 0; llvm-mc-22: `depctr_va_vdst(0)` = 0x0f9f, `depctr_sa_sdst(0)` = 0xff9e).
pub(super) fn depctr_fields(imm: u64) -> (u64, u64) {
    ((imm >> 12) & 0xf, imm & 1)
}

/// Whether `d` is a vector memory, LDS or export instruction.
fn vector_memory(f: &InstFacts) -> bool {
    f.mem == MemKind::Export || f.mem.is_counted_memory() && f.mem != MemKind::Scalar
}

impl Sanitizer {
    /// Checks the hazards of `s`'s arch against the wave's history, then records `s`.
    pub(super) fn hazards(&mut self, track: &mut WaveTrack, s: &Step, found: &mut Vec<Finding>) {
        let now = self.past(s);
        // RDNA 4's SGPR state follows the wave into calls (see `hazards_sgpr`).
        if self.arch.family() == Gen::Gfx12 {
            track.sgpr.step(s, found);
        }
        // Calls and returns end every window: LLVM resolves hazards per function, taking a
        // function's entry and the return from a call as clean.
        if s.d.facts.call_or_return {
            track.history.clear();
            track.mask_armed.clear();
            return;
        }
        match self.arch.family() {
            Gen::Gfx9 => cdna_hazards(track, s, &now, self.arch, found),
            Gen::Gfx11 => {
                super::hazards_rdna::rdna3_hazards(track, s, &now, found);
                super::hazards_ldsdir::lds_direct(track, s, false, found);
            }
            Gen::Gfx12 => {
                super::hazards_rdna::wmma_overlap(track, s, &now, found);
                super::hazards_ldsdir::lds_direct(track, s, true, found);
            }
            Gen::Gfx125 => super::hazards_rdna::wmma_overlap(track, s, &now, found),
            // GFX10 (RDNA 1 and 2): its own hazards are not modelled (see docs/sanitizer.md).
            Gen::Gfx10 => {}
        }
        track.history.push_back(now);
        if track.history.len() > HISTORY {
            track.history.pop_front();
        }
    }

    /// The history entry of `s`.
    fn past(&self, s: &Step) -> Past {
        let d = s.d;
        let f = &d.facts;
        // VINTERP instructions are VALUs too (they count for the VALU windows).
        let valu = f.family.is_valu() || f.family == Family::Vinterp;
        let salu = f.family.is_salu();
        let vmem = vector_memory(f);
        // VMEM stores and atomics (not LDS).
        let wide_store_data = if f.mem.is_vector_memory() && f.stores {
            data_regs(d).into_iter().filter(|r| r.count > 2).collect()
        } else {
            Vec::new()
        };
        let imm = d.inst.field("simm16").unwrap_or(0);
        let wait_states = if f.nop { (imm % 16) as u32 + 1 } else { 1 };
        let depctr = f.depctr;
        let (va_vdst, sa_sdst) = depctr_fields(imm);
        // An LDS-direct load with its `va_vdst` wait at 0 drains the VALU counter too.
        let lds_direct = matches!(f.family, Family::Ldsdir | Family::Vdsdir);
        let lds_direct_waits_va_vdst =
            lds_direct && d.inst.field("wait_vdst").or(d.inst.field("wait_va_vdst")) == Some(0);
        let vm_vsrc_drained = valu
            || f.mem == MemKind::Export
            || f.wait == Some(Wait::Combined) && imm == 0
            || depctr && (imm >> 2) & 7 == 0
            || lds_direct && d.inst.field("wait_vm_vsrc") == Some(0);
        let mut mask_reads: Vec<Regs> = Vec::new();
        if valu {
            for o in s.ops.iter().filter(|o| o.read && o.mask) {
                mask_reads.push(o.r);
            }
            let vcc = Regs {
                file: 's',
                first: code::VCC_LO,
                count: 2,
            };
            if s.info.implicit.reads_vcc && s.all_reads.contains(&vcc) {
                mask_reads.push(vcc);
            }
        }
        let reads_sgpr_or_literal = valu
            && (d.inst.literal.is_some()
                || !mask_reads.is_empty()
                || s.reads.iter().any(|r| {
                    r.file == 's' && r.first != code::EXEC_LO && r.first != code::EXEC_HI
                }));
        Past {
            pc: d.addr,
            text: s.text.clone(),
            valu,
            salu,
            trans: s.info.trans,
            wmma: matches!(f.matrix, Matrix::Wmma | Matrix::Swmmac),
            reads: s.reads.clone(),
            writes: s.writes.clone(),
            all_writes: s.all_writes.clone(),
            wide_store_data,
            wait_states,
            va_vdst_zero: vmem || depctr && va_vdst == 0 || lds_direct_waits_va_vdst,
            sa_sdst_zero: depctr && sa_sdst == 0,
            va_sdst_zero: depctr && (imm >> 9) & 7 == 0,
            mask_reads,
            reads_sgpr_or_literal,
            setreg: f.setreg.then_some((imm & 0x3f) as u32),
            vmem_or_ds: f.mem.is_vector_memory() || f.mem == MemKind::Lds,
            vm_vsrc_drained,
        }
    }
}

/// One rule of CDNA's wait-state table that `s` triggers: what the earlier instruction
/// must be, how many wait states must separate them, and what the finding says.
struct Rule {
    needed: u32,
    what: &'static str,
    hit: fn(&Past, &Step) -> Option<(char, u32)>,
}

/// The first register of `regs` (of file `file`) that `written` overlaps.
fn overlap(written: &[Regs], regs: &[Regs], file: char) -> Option<(char, u32)> {
    regs.iter()
        .filter(|r| r.file == file)
        .find_map(|r| written.iter().find_map(|w| w.overlaps(r)))
        .map(|at| (file, at))
}

/// CDNA hazards the manual requires software to separate by wait states (CDNA 3 ISA,
/// section 4.5 "Manually Inserted Wait States (NOPs)").
fn cdna_hazards(track: &WaveTrack, s: &Step, now: &Past, arch: Arch, found: &mut Vec<Finding>) {
    let d = s.d;
    let f = &d.facts;
    let vmem = matches!(
        f.mem,
        MemKind::Global | MemKind::Flat | MemKind::Scratch | MemKind::Buffer
    );
    // DPP reads other lanes through the forwarding path; SDWA (also an extension word) does
    // not, and LLVM's DPP rule (`checkDPPHazards`) does not apply to it.
    let sdwa = d.encoding == Encoding::Sdwa;
    let dpp = d.ext.is_some() && !sdwa || d.encoding.is_dpp();
    let mut rules: Vec<Rule> = Vec::new();
    if vmem {
        rules.push(Rule {
            needed: 5,
            what: "a VMEM instruction reads an SGPR a VALU instruction wrote",
            hit: |p, s| p.valu.then(|| overlap(&p.writes, s.reads, 's')).flatten(),
        });
    }
    if dpp {
        rules.push(Rule {
            needed: 2,
            what: "a DPP instruction reads a VGPR a VALU instruction wrote",
            hit: |p, s| p.valu.then(|| overlap(&p.writes, s.reads, 'v')).flatten(),
        });
        rules.push(Rule {
            needed: 5,
            what: "a DPP instruction follows a VALU write of EXEC",
            hit: |p, _| {
                let exec = [Regs {
                    file: 's',
                    first: code::EXEC_LO,
                    count: 2,
                }];
                p.valu.then(|| overlap(&p.all_writes, &exec, 's')).flatten()
            },
        });
    }
    if now.valu {
        // LLVM (`checkVALUHazards`, `has12DWordStoreHazard`): 2 wait states on gfx940 and
        // later (CDNA 3, CDNA 4), 1 before (CDNA 1, CDNA 2).
        let gfx940 = matches!(arch, Arch::Cdna3 | Arch::Cdna);
        rules.push(Rule {
            needed: if gfx940 { 2 } else { 1 },
            what: "a VALU instruction overwrites the data VGPRs of a store of more than 64 bits",
            hit: |p, s| overlap(&p.wide_store_data, s.writes, 'v'),
        });
    }
    if matches!(f.lane, LaneOp::ReadLane | LaneOp::WriteLane) {
        rules.push(Rule {
            needed: 4,
            what: "v_readlane/v_writelane's lane select reads an SGPR a VALU instruction wrote",
            hit: |p, s| {
                let select: Vec<Regs> = s
                    .ops
                    .iter()
                    .filter(|o| o.field == "src1" && o.read)
                    .map(|o| o.r)
                    .collect();
                p.valu.then(|| overlap(&p.writes, &select, 's')).flatten()
            },
        });
    }
    if f.div_fmas {
        rules.push(Rule {
            needed: 4,
            what: "v_div_fmas reads VCC a VALU instruction wrote",
            hit: |p, _| {
                let vcc = [Regs {
                    file: 's',
                    first: code::VCC_LO,
                    count: 2,
                }];
                p.valu.then(|| overlap(&p.all_writes, &vcc, 's')).flatten()
            },
        });
    }
    if d.facts.getreg {
        rules.push(Rule {
            needed: 2,
            what: "s_getreg reads a hardware register an s_setreg wrote",
            hit: |p, s| {
                let id = (s.d.inst.field("simm16")? & 0x3f) as u32;
                (p.setreg == Some(id)).then_some(('h', id))
            },
        });
    }
    if rules.is_empty() {
        return;
    }
    let mut between = 0u32;
    for past in track.history.iter().rev() {
        if between >= 5 {
            break;
        }
        for rule in &rules {
            if between >= rule.needed {
                continue;
            }
            if let Some((file, at)) = (rule.hit)(past, s) {
                let location = if file == 'h' {
                    format!("hwreg {at}")
                } else {
                    reg_name(file, at)
                };
                found.push(s.finding(
                    (past.pc, &past.text),
                    location,
                    format!(
                        "{}: {} wait states required, {between} given",
                        rule.what, rule.needed
                    ),
                ));
                return;
            }
        }
        between += past.wait_states;
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

/// Whether `inst` is a transcendental VALU (RDNA 3's TRANS unit: `v_exp`, `v_log`, `v_rcp`,
/// `v_rsq`, `v_sqrt`, `v_sin`, `v_cos` in every float width). Read from the spec: a VOP1
/// instruction (or the VOP3 form of one) whose pseudocode `text` computes a reciprocal,
/// root, power, logarithm or sine/cosine. No other VOP1 entry's text does.
pub(super) fn is_trans(
    db: &crate::spec::SpecDb,
    inst: &crate::spec::Instruction,
    text: &str,
) -> bool {
    let vop1 = inst.encoding == "VOP1"
        || inst.encoding == "VOP3"
            && inst.name.strip_suffix("_E64").is_some_and(|base| {
                db.get_all(&format!("{base}_E32"))
                    .iter()
                    .any(|i| i.encoding == "VOP1")
            });
    vop1 && ["sqrt(", "log2(", "sin(", "cos(", "pow(", " / "]
        .iter()
        .any(|m| text.contains(m))
}
