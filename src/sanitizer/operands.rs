//! What an instruction reads and writes, as the sanitizer's models see it: its register
//! operands (AGPRs included), the registers its text names implicitly (VCC, EXEC, M0, SCC),
//! and which memory instructions return data.

use super::{defined, Counter, Event, Regs};
use crate::isa::{self, Reg};
use crate::machine::{Family, MemKind, Rtn};
use crate::spec::Arch;
use crate::wave::{Class, Decoded, MemSpace, WaveState};

/// Whether `d` addresses memory the wait counters and the memory models track (scalar,
/// LDS, global, flat, scratch, buffer).
pub(super) fn is_memory(d: &Decoded) -> bool {
    d.facts.mem.is_counted_memory()
}

/// The counter and event kind of a memory instruction, from its facts, whether it returns
/// data and (FLAT) the memory its lanes reached.
pub(super) fn memory_event(d: &Decoded, after: &WaveState) -> Option<(Counter, Event)> {
    // Cache invalidations (`buffer_gl0_inv`, ...) are memory-encoded but move no data.
    if d.class != Class::Execute {
        return None;
    }
    let flat_lds = d.facts.mem == MemKind::Flat
        && after
            .last_access
            .as_ref()
            .is_some_and(|l| !l.is_empty() && l.iter().all(|a| a.space == MemSpace::Lds));
    d.facts.event(after.arch, returns_data(d), flat_lds)
}

/// Whether a memory instruction writes its destination registers: a load, or an atomic
/// with its return bit (RDNA 3 `glc`, CDNA `sc0`, RDNA 4 `th` bit 0) set.
pub(super) fn returns_data(d: &Decoded) -> bool {
    d.facts.returns_data(|f| d.inst.field(f))
}

/// The registers of an operand value.
/// The registers operand `o` of `d` names: as [`value_regs`], with the fields the wave layer
/// rebased onto the AGPR file (CDNA `acc`/`acc_cd`; `Decoded::as_encoded` keeps them as
/// encoded) in file `a`.
pub(super) fn operand_file_regs(d: &Decoded, o: &isa::Operand) -> Option<Regs> {
    let mut r = value_regs(&o.value)?;
    let rebased = d
        .as_encoded
        .as_deref()
        .is_some_and(|e| r.file == 'v' && e.field(&o.field) != d.inst.field(&o.field));
    if rebased {
        r.file = 'a';
    }
    Some(r)
}

fn value_regs(v: &isa::Value) -> Option<Regs> {
    match *v {
        isa::Value::Reg(Reg::Sgpr { index, count }) => Some(Regs {
            file: 's',
            first: index as u32,
            count: count as u32,
        }),
        isa::Value::Reg(Reg::Vgpr { index, count }) => Some(Regs {
            file: 'v',
            first: index as u32,
            count: count as u32,
        }),
        isa::Value::Reg(Reg::Agpr { index, count }) => Some(Regs {
            file: 'a',
            first: index as u32,
            count: count as u32,
        }),
        isa::Value::Reg(Reg::Ttmp { index, count }) => Some(Regs {
            file: 't',
            first: index as u32,
            count: count as u32,
        }),
        isa::Value::Reg(Reg::Special { code, count }) => Some(Regs {
            file: 's',
            first: code as u32,
            count: count as u32,
        }),
        _ => None,
    }
}

/// Whether operand field `field` of `d` is written (else read).
pub(super) fn is_written(d: &Decoded, field: &str) -> bool {
    match field {
        f if f.starts_with("vdst") || f.starts_with("sdst") => {
            // SOPK waits name a (null) SGPR they read.
            d.class != Class::Noop
        }
        "sdata" => d.facts.mem == MemKind::Scalar && d.facts.rtn == Rtn::Always,
        "vdata" => returns_data(d),
        _ => false,
    }
}

/// One register operand of a decoded instruction: its registers, field and direction.
#[derive(Clone, Debug)]
pub(super) struct Opnd {
    pub(super) r: Regs,
    pub(super) field: String,
    pub(super) read: bool,
    pub(super) written: bool,
    /// Its size in bits (32 unless the spec says otherwise; set by `Sanitizer::prepared`).
    pub(super) bits: u32,
    /// The spec formats it as a lane mask (`_M32`/`_M64`; set by `Sanitizer::prepared`).
    pub(super) mask: bool,
}

/// The register operands of `d`, each with its field and whether it is read or written.
pub(super) fn operand_list(arch: Arch, d: &Decoded, scalar: &[String]) -> Vec<Opnd> {
    let mut out = Vec::new();
    for o in &d.inst.operands {
        let Some(mut r) = operand_file_regs(d, o) else {
            continue;
        };
        if r.file == 'v' && scalar.iter().any(|f| f == &o.field) {
            r.file = 's';
        }
        // An atomic without return writes no VGPR (its `vdst` field is unused).
        if o.field == "vdst" && d.facts.rtn == Rtn::ReturnBit && !returns_data(d) {
            continue;
        }
        // Address registers are read as the wave layer's memory plan forms the address:
        // a global VGPR pair, or one offset VGPR with an SGPR base; the buffer index and
        // offset VGPRs by `idxen`/`offen`; the scratch VGPR with SVE; the SMEM offset SGPRs.
        match crate::wave::address_regs(d, arch, &o.field) {
            Some(0) => continue,
            Some(n) => r.count = n,
            None => {}
        }
        let written = is_written(d, &o.field);
        // A store-and-return atomic also reads its data register (`vdata`).
        let read = !written || o.field == "vdata" && d.facts.atomic;
        out.push(Opnd {
            r,
            field: o.field.clone(),
            read,
            written,
            bits: 32,
            mask: false,
        });
    }
    // VOPD lists only the VGPR second sources; the first sources are source codes.
    if d.facts.family == Family::Vopd {
        for f in ["srcx0", "srcy0"] {
            if let Some(code) = d.inst.field(f) {
                let code = code as u32;
                let r = if code >= 256 {
                    Regs {
                        file: 'v',
                        first: code - 256,
                        count: 1,
                    }
                } else if code < 106 {
                    Regs {
                        file: 's',
                        first: code,
                        count: 1,
                    }
                } else {
                    continue;
                };
                out.push(Opnd {
                    r,
                    field: f.to_string(),
                    read: true,
                    written: false,
                    bits: 32,
                    mask: false,
                });
            }
        }
    }
    out
}

/// Adds the registers `d` reads and writes implicitly (from its pseudocode: VCC, EXEC, M0;
/// every vector instruction reads EXEC; CDNA LDS instructions read M0, their limit) to
/// `reads` and `writes`. VCC and EXEC are lane masks: `vcc_lo` and `exec_lo` alone in wave32
/// (LLVM allocates `vcc_hi` as an ordinary SGPR there).
pub(super) fn implicit_regs(
    arch: Arch,
    wave_size: u32,
    d: &Decoded,
    info: &defined::InstInfo,
    reads: &mut Vec<Regs>,
    writes: &mut Vec<Regs>,
) {
    let imp = &info.implicit;
    let pair = |first: u32| Regs {
        file: 's',
        first,
        count: wave_size.div_ceil(32),
    };
    let f = &d.facts;
    let vector = f.family.is_valu()
        || f.family == Family::Vinterp
        || f.mem.is_counted_memory() && f.mem != MemKind::Scalar;
    if vector || imp.reads_exec {
        reads.push(pair(crate::wave::code::EXEC_LO));
    }
    if imp.writes_exec {
        writes.push(pair(crate::wave::code::EXEC_LO));
    }
    if imp.reads_vcc && !info.mask_src {
        reads.push(pair(crate::wave::code::VCC_LO));
    }
    let vopc_vcc = f.family == Family::Vopc && imp.writes_d0 && !imp.writes_exec;
    if (imp.writes_vcc || vopc_vcc) && !info.mask_dst {
        writes.push(pair(crate::wave::code::VCC_LO));
    }
    if imp.reads_m0 || arch.is_gfx9() && f.mem == MemKind::Lds {
        reads.push(Regs {
            file: 's',
            first: crate::wave::m0_code(arch),
            count: 1,
        });
    }
}
