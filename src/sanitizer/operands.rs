//! What an instruction reads and writes, as the sanitizer's models see it: its register
//! operands (AGPRs included), the registers its text names implicitly (VCC, EXEC, M0, SCC),
//! and which memory instructions return data.

use super::{defined, Counter, Event, Regs};
use crate::isa::{self, Reg};
use crate::spec::{Arch, Wheel};
use crate::wave::{Class, Decoded, MemSpace, WaveState};

pub(super) fn is_memory_family(family: &str) -> bool {
    matches!(
        family,
        "SMEM"
            | "DS"
            | "FLAT"
            | "GLOBAL"
            | "SCRATCH"
            | "VFLAT"
            | "VGLOBAL"
            | "VSCRATCH"
            | "MUBUF"
            | "MTBUF"
    )
}

/// The counter and event kind of a memory instruction, from its family, whether it returns
/// data and (FLAT) the memory its lanes reached.
pub(super) fn memory_event(d: &Decoded, after: &WaveState) -> Option<(Counter, Event)> {
    let family = d.inst.family.as_str();
    // Cache invalidations (`buffer_gl0_inv`, ...) are memory-encoded but move no data.
    if !is_memory_family(family) || d.class != Class::Execute {
        return None;
    }
    let arch = after.arch;
    let flat_lds = matches!(family, "FLAT" | "VFLAT")
        && after
            .last_access
            .as_ref()
            .is_some_and(|l| !l.is_empty() && l.iter().all(|a| a.space == MemSpace::Lds));
    let event = if family == "SMEM" {
        Event::Smem
    } else if family == "DS" || flat_lds {
        Event::Lds
    } else if returns_data(d) {
        Event::VmemLoad
    } else {
        Event::VmemStore
    };
    // CDNA's vmcnt counts loads and stores as one in-order stream (GFX9: vector memory
    // operations return in issue order).
    let event = match (arch.wheel(), event) {
        (Wheel::Cdna, Event::VmemStore) => Event::VmemLoad,
        (_, e) => e,
    };
    let counter = match (arch.wheel(), event) {
        (Wheel::Rdna4, Event::Smem) => Counter::Km,
        (Wheel::Rdna4, Event::Lds) => Counter::Ds,
        (Wheel::Rdna4, Event::VmemLoad) => Counter::Load,
        (Wheel::Rdna4, Event::VmemStore) => Counter::Store,
        (_, Event::Smem | Event::Lds) => Counter::Lgkm,
        (Wheel::Rdna3, Event::VmemStore) => Counter::Vs,
        _ => Counter::Vm,
    };
    Some((counter, event))
}

/// Whether a vector memory instruction returns data to VGPRs: a load, or an atomic with its
/// return bit (RDNA 3 `glc`, CDNA `sc0`, RDNA 4 `th` bit 0) set.
pub(super) fn returns_data(d: &Decoded) -> bool {
    let name = d.inst.name.as_str();
    if name.contains("ATOMIC") {
        for f in ["glc", "sc0"] {
            if let Some(v) = d.inst.field(f) {
                return v == 1;
            }
        }
        return d.inst.field("th").is_some_and(|t| t & 1 == 1);
    }
    name.contains("LOAD") || name.contains("READ")
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

pub(super) fn value_regs(v: &isa::Value) -> Option<Regs> {
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
    let name = d.inst.name.as_str();
    match field {
        f if f.starts_with("vdst") || f.starts_with("sdst") => {
            // SOPK waits name a (null) SGPR they read.
            d.class != Class::Noop
        }
        "sdata" => d.inst.family == "SMEM" && name.contains("LOAD"),
        "vdata" => returns_data(d),
        _ => false,
    }
}

/// Whether a spec operand kind (`OPR_SREG`, `OPR_SDST`, ...) names a scalar register.
pub(super) fn is_scalar_kind(kind: &str) -> bool {
    let k = kind.to_ascii_uppercase();
    let k = k.trim_start_matches("OPR_");
    k.starts_with("SREG") || k.starts_with("SDST") || k.starts_with("SGPR")
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

/// The registers `d` reads and writes, from its operand table (`scalar`: fields the spec
/// types as SGPRs).
pub(super) fn operand_regs(d: &Decoded, scalar: &[String]) -> (Vec<Regs>, Vec<Regs>) {
    let ops = operand_list(d, scalar);
    let reads = ops.iter().filter(|o| o.read).map(|o| o.r).collect();
    let writes = ops.iter().filter(|o| o.written).map(|o| o.r).collect();
    (reads, writes)
}

/// The register operands of `d`, each with its field and whether it is read or written.
pub(super) fn operand_list(d: &Decoded, scalar: &[String]) -> Vec<Opnd> {
    let mut out = Vec::new();
    // With an SGPR base (`saddr`), a global address VGPR is a 32-bit offset, not a pair.
    let sgpr_base = d
        .inst
        .operands
        .iter()
        .any(|o| o.field == "saddr" && matches!(o.value, isa::Value::Reg(Reg::Sgpr { .. })));
    for o in &d.inst.operands {
        let Some(mut r) = operand_file_regs(d, o) else {
            continue;
        };
        if r.file == 'v' && scalar.iter().any(|f| f == &o.field) {
            r.file = 's';
        }
        let addr_field = matches!(o.field.as_str(), "addr" | "vaddr");
        let family = d.inst.family.as_str();
        // An atomic without return writes no VGPR (its `vdst` field is unused).
        let memory = is_memory_family(family);
        if memory && o.field == "vdst" && d.inst.name.contains("ATOMIC") && !returns_data(d) {
            continue;
        }
        // GFX9 (CDNA) SMEM: `soffset` is read only with `soffset_en`, `offset` names an SGPR
        // only without `imm` (as the memory layer forms the address).
        if family == "SMEM" {
            if o.field == "soffset" && d.inst.field("soffset_en") == Some(0) {
                continue;
            }
            if o.field == "offset" && d.inst.field("imm") == Some(1) {
                continue;
            }
        }
        // A scratch address VGPR is read only with SVE set (RDNA) or without an SGPR base
        // (CDNA, no SVE bit): as the memory layer forms the address.
        if addr_field && matches!(family, "SCRATCH" | "VSCRATCH") {
            let used = match d.inst.field("sve") {
                Some(sve) => sve == 1,
                None => !sgpr_base,
            };
            if !used {
                continue;
            }
        }
        if addr_field && (sgpr_base || matches!(family, "SCRATCH" | "VSCRATCH")) {
            r.count = 1;
        }
        let written = is_written(d, &o.field);
        // A store-and-return atomic also reads its data register (`vdata`).
        let read = !written || o.field == "vdata" && d.inst.name.contains("ATOMIC");
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
    if d.inst.family == "VOPD" {
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
/// `reads` and `writes`.
pub(super) fn implicit_regs(
    arch: Arch,
    d: &Decoded,
    info: &defined::InstInfo,
    reads: &mut Vec<Regs>,
    writes: &mut Vec<Regs>,
) {
    let family = d.inst.family.as_str();
    let imp = &info.implicit;
    let pair = |first: u32| Regs {
        file: 's',
        first,
        count: 2,
    };
    let vector = family.starts_with("VOP")
        || family == "VINTERP"
        || is_memory_family(family) && family != "SMEM";
    if vector || imp.reads_exec {
        reads.push(pair(crate::wave::code::EXEC_LO));
    }
    if imp.writes_exec {
        writes.push(pair(crate::wave::code::EXEC_LO));
    }
    let mask_src = d
        .inst
        .operands
        .iter()
        .any(|o| info.ops.get(&o.field).is_some_and(|x| x.1) && !is_written(d, &o.field));
    let mask_dst = d
        .inst
        .operands
        .iter()
        .any(|o| info.ops.get(&o.field).is_some_and(|x| x.1) && is_written(d, &o.field));
    if imp.reads_vcc && !mask_src {
        reads.push(pair(crate::wave::code::VCC_LO));
    }
    let vopc_vcc = family == "VOPC" && imp.writes_d0 && !imp.writes_exec;
    if (imp.writes_vcc || vopc_vcc) && !mask_dst {
        writes.push(pair(crate::wave::code::VCC_LO));
    }
    if imp.reads_m0 || arch.is_gfx9() && family == "DS" {
        reads.push(Regs {
            file: 's',
            first: crate::wave::m0_code(arch),
            count: 1,
        });
    }
}
