//! Builds the facts of one database entry from its name, encoding and operands: the only
//! code that decides what an instruction is from its name's spelling (AMD names encode the
//! operation, the memory direction, element size and return forms). Each rule names the
//! spellings it reads; `tests/facts.rs` checks the result per family on every arch.

use super::facts::{
    Barrier, BitOp, Branch, ClampOp, Control, Counter, DsLanes, ElemType, Encoding, Facts, Family,
    InstFacts, IntClamp, LaneOp, Matrix, MemKind, Native, OperandFacts, Refusal, Rtn, Wait,
};
use crate::spec::{Arch, Family as ArchFamily, FastMap, Instruction, SpecDb};

impl Facts {
    /// Builds the facts of every entry of `db` (prefer [`Facts::of`], which caches).
    pub fn build(db: &SpecDb) -> Facts {
        let mut insts = Vec::with_capacity(db.instructions().len());
        let mut operands = Vec::with_capacity(db.instructions().len());
        let mut by_code = FastMap::default();
        for (i, inst) in db.instructions().iter().enumerate() {
            let (f, ops) = entry(db.arch(), i as u32, inst);
            by_code.entry((f.family, inst.opcode)).or_insert(i as u32);
            insts.push(f);
            operands.push(ops);
        }
        Facts {
            arch: db.arch(),
            insts,
            operands,
            by_code,
        }
    }
}

/// The facts of entry `index` of an `arch` database, and its operands' facts.
fn entry(arch: Arch, index: u32, inst: &Instruction) -> (InstFacts, Vec<OperandFacts>) {
    let name = inst.name.as_str();
    let family = Family::of(&inst.encoding);
    let mem = family.mem();
    let has = |k: &str| name.contains(k);
    let memory = mem != MemKind::None;
    let atomic = memory && (has("ATOMIC") || family == Family::Ds && ds_atomic(name));
    let store_named = has("STORE") || has("WRITE");
    let has_vdst = inst.operands.iter().any(|o| o.field == "vdst");
    let rtn = if !memory {
        Rtn::Never
    } else if has("ATOMIC") && family != Family::Ds {
        // DS atomics have separate `_RTN` opcodes (only those list `vdst`).
        Rtn::ReturnBit
    } else if has("LOAD") || has("READ") || has_vdst {
        Rtn::Always
    } else {
        Rtn::Never
    };
    let ds_two = if has("2ADDR") || has("READ2") || has("WRITE2") || has("WRXCHG2") {
        if has("STRIDE64") || has("ST64") {
            64
        } else {
            1
        }
    } else {
        0
    };
    let branch = if ["S_SETPC", "S_SWAPPC", "S_RFE", "FORK", "JOIN"]
        .iter()
        .any(|k| has(k))
    {
        Branch::Indirect
    } else if name == "S_BRANCH" {
        Branch::Jump
    } else if name.starts_with("S_CBRANCH_") {
        Branch::Conditional
    } else if name == "S_CALL_B64" {
        Branch::Call
    } else if name.starts_with("S_SUBVECTOR_LOOP") {
        Branch::SubvectorLoop
    } else {
        Branch::None
    };
    let lane = if name.starts_with("V_READLANE") {
        LaneOp::ReadLane
    } else if name.starts_with("V_READFIRSTLANE") {
        LaneOp::ReadFirstLane
    } else if name.starts_with("V_WRITELANE") {
        LaneOp::WriteLane
    } else {
        LaneOp::None
    };
    let matrix = if name.starts_with("V_WMMA") {
        Matrix::Wmma
    } else if name.starts_with("V_SWMMAC") {
        Matrix::Swmmac
    } else if name.starts_with("V_MFMA") {
        Matrix::Mfma
    } else if name.starts_with("V_SMFMAC") {
        Matrix::Smfmac
    } else {
        Matrix::None
    };
    let plain_buffer_load = [
        "UBYTE", "SBYTE", "USHORT", "SSHORT", "DWORD", "DWORDX3", "DWORDX4",
    ];
    let facts = InstFacts {
        index,
        family,
        mem,
        loads: memory && (!store_named || atomic),
        stores: memory && (store_named || atomic),
        load_only: (has("LOAD") || family == Family::Ds && has("READ"))
            && !has("ATOMIC")
            && !has("STORE"),
        atomic,
        lane_serial: memory && lane_serial(family, name),
        rtn,
        bytes: access_bytes(name),
        d16: has("D16"),
        d16_hi: has("D16_HI"),
        ds_two,
        addtid: has("ADDTID"),
        signed: ["_SBYTE", "_SSHORT", "_I8", "_I16"]
            .iter()
            .any(|s| name.ends_with(s)),
        mixhi: has("_MIXHI_"),
        transpose: transpose_shape(name).map(|(b, n)| (b as u8, n as u8)),
        control: control(name),
        refusal: refusal(arch, family, name),
        wait: wait(arch, name),
        depctr: matches!(name, "S_WAITCNT_DEPCTR" | "S_WAIT_ALU"),
        nop: name == "S_NOP",
        lane,
        cross_lane: has("LANE"),
        relative_regs: has("MOVREL") || has("GPR_IDX"),
        compare: name.starts_with("V_CMP"),
        class_test: has("CLASS"),
        branch,
        smov: name.starts_with("S_MOV_B"),
        vmov: name.starts_with("V_MOV_B"),
        matrix,
        call_or_return: ["S_SWAPPC", "S_SETPC", "S_CALL"]
            .iter()
            .any(|k| name.starts_with(k)),
        setreg: name.starts_with("S_SETREG"),
        div_fmas: name.starts_with("V_DIV_FMAS"),
        smears_left: smears_left(name),
        scalar_bitwise: scalar_bitwise(name),
        permutes: ["PERMLANE", "PERMUTE", "SWIZZLE"].iter().any(|k| has(k)),
        cndmask_bits: if name.starts_with("V_CNDMASK_B32") {
            32
        } else if name.starts_with("V_CNDMASK_B16") {
            16
        } else {
            0
        },
        lds_by_bit: family == Family::Mubuf
            && name
                .strip_prefix("BUFFER_LOAD_")
                .is_some_and(|s| plain_buffer_load.contains(&s)),
        ds_lanes: if family != Family::Ds {
            DsLanes::None
        } else if name == "DS_SWIZZLE_B32" {
            DsLanes::Swizzle
        } else if has("PERMUTE") {
            DsLanes::Permute {
                backward: has("BPERMUTE"),
                fetch_inactive: has("_FI_"),
            }
        } else {
            DsLanes::None
        },
        lds_transfer: memory && family != Family::Ds && has("LDS"),
        plain_words: plain_words(family, name),
        getreg: name == "S_GETREG_B32",
        int_clamp: int_clamp(name),
        matrix_c: matrix_c(name),
        vdst_vgpr: inst
            .operands
            .iter()
            .any(|o| o.field == "vdst" && o.kind.contains("VGPR")),
    };
    let compare = facts.compare;
    let operands = inst
        .operands
        .iter()
        .map(|o| OperandFacts {
            field: o.field.clone(),
            bits: o.bits,
            // CDNA's table types VOP3 compare destinations as plain 64-bit numbers
            // (`FMT_NUM_B64`; RDNA's says `FMT_NUM_M64`): they are lane masks all the same.
            lane_mask: o.format.contains("_M64")
                || o.format.contains("_M32")
                || arch.is_gfx9() && o.field == "vdst" && o.kind == "OPR_SREG" && compare,
            scalar: scalar_kind(&o.kind),
            vgpr: o.kind.contains("VGPR"),
        })
        .collect();
    (facts, operands)
}

impl Encoding {
    /// The extension form of an encoding class (`VOP2_SDWA_SDST`, `VOP3_DPP16`, `SOP1_LIT`).
    pub fn of(format: &str) -> Encoding {
        if format.ends_with("_DPP16") {
            Encoding::Dpp16
        } else if format.ends_with("_DPP8") {
            Encoding::Dpp8
        } else if format.contains("_SDWA") {
            Encoding::Sdwa
        } else {
            Encoding::Plain
        }
    }
}

/// Whether a spec operand kind (`OPR_SREG`, `OPR_SDST`, ...) names a scalar register.
fn scalar_kind(kind: &str) -> bool {
    let k = kind.to_ascii_uppercase();
    let k = k.trim_start_matches("OPR_");
    k.starts_with("SREG") || k.starts_with("SDST") || k.starts_with("SGPR")
}

/// An LDS instruction that is neither a plain load or store nor a lane permute.
fn ds_atomic(n: &str) -> bool {
    let plain = [
        "DS_LOAD",
        "DS_READ",
        "DS_STORE",
        "DS_WRITE",
        "DS_SWIZZLE",
        "DS_PERMUTE",
        "DS_BPERMUTE",
        "DS_NOP",
    ];
    n.contains("CMPST") || n.contains("XCHG") || !plain.iter().any(|p| n.starts_with(p))
}

/// Whether the wave layer runs a memory instruction's text lane by lane (it reads and writes
/// the same bytes).
fn lane_serial(family: Family, name: &str) -> bool {
    match family {
        Family::Ds => {
            ![
                "LOAD", "STORE", "READ", "WRITE", "SWIZZLE", "PERMUTE", "NOP", "APPEND", "CONSUME",
                "GWS", "BVH",
            ]
            .iter()
            .any(|k| name.contains(k))
                || name.contains("WRXCHG")
        }
        Family::Smem => false,
        _ => name.contains("ATOMIC"),
    }
}

/// The number of bytes one element of a load, store or atomic accesses, from its name
/// (RDNA `_B32`/`_U16`/... and CDNA `_DWORDX2`/`_UBYTE`/... spellings); 4 when it names none.
fn access_bytes(name: &str) -> u8 {
    // The size is the last token that names one (strides and 2ADDR forms name other
    // numbers; `D16` alone means 16 bits, but `D16_U8` is a byte).
    let mut d16 = false;
    for t in name.rsplit('_') {
        let n = match t {
            "B512" | "DWORDX16" => 64,
            "B256" | "DWORDX8" => 32,
            "B128" | "DWORDX4" | "X4" => 16,
            "B96" | "DWORDX3" | "X3" => 12,
            "B64" | "U64" | "I64" | "F64" | "DWORDX2" | "X2" => 8,
            "B32" | "U32" | "I32" | "F32" | "DWORD" => 4,
            "B16" | "U16" | "I16" | "SHORT" | "USHORT" | "SSHORT" => 2,
            "B8" | "U8" | "I8" | "BYTE" | "UBYTE" | "SBYTE" => 1,
            "D16" => {
                d16 = true;
                continue;
            }
            _ => continue,
        };
        return n;
    }
    if d16 {
        2
    } else {
        4
    }
}

/// Why `name` (of encoding `family`) is refused, when it is.
fn refusal(arch: Arch, family: Family, name: &str) -> Option<Refusal> {
    let buffer = matches!(family, Family::Mubuf | Family::Mtbuf | Family::Vbuffer);
    if buffer && arch.family() == ArchFamily::Gfx125 {
        Some(Refusal::BufferResource)
    } else if family.mem() == MemKind::Image {
        Some(Refusal::Image)
    } else if name.starts_with("DS_GWS_") {
        Some(Refusal::GlobalWaveSync)
    } else if matches!(name, "DS_ORDERED_COUNT" | "GLOBAL_ATOMIC_ORDERED_ADD_B64") {
        Some(Refusal::OrderedAppend)
    } else if buffer && name.contains("FORMAT") {
        Some(Refusal::BufferFormat)
    } else if buffer && name.contains("LDS") && !name.starts_with("BUFFER_LOAD_LDS_") {
        Some(Refusal::BufferLds)
    } else if family == Family::Smem && name.starts_with("S_BUFFER_") {
        Some(Refusal::ScalarBuffer)
    } else {
        None
    }
}

/// How the executor treats `name`.
fn control(name: &str) -> Control {
    if name.starts_with("S_ENDPGM") || name == "S_CODE_END" {
        Control::End
    } else if is_noop(name) {
        Control::Noop
    } else if let Some(b) = match name {
        "S_BARRIER" => Some(Barrier::SignalWait),
        "S_BARRIER_SIGNAL" | "S_BARRIER_SIGNAL_ISFIRST" => Some(Barrier::Signal),
        "S_BARRIER_WAIT" => Some(Barrier::Wait),
        _ => None,
    } {
        Control::Barrier(b)
    } else if name.starts_with("V_ACCVGPR_") {
        Control::AgprMove
    } else if let Some(k) = native(name) {
        Control::Native(k)
    } else {
        Control::Execute
    }
}

/// Instructions that only wait, order, hint or invalidate caches: no-ops in this model.
/// (AMD's tables give none of them pseudocode; `V_NOP` and `V_PIPEFLUSH` come as `_E32` and
/// `_E64` entries too.)
fn is_noop(name: &str) -> bool {
    let vector = name.strip_suffix("_E32").or(name.strip_suffix("_E64"));
    matches!(vector.unwrap_or(name), "V_NOP" | "V_PIPEFLUSH")
        || name.starts_with("S_WAITCNT")
        || name.starts_with("S_WAIT_")
        || matches!(
            name,
            "S_NOP"
                | "S_DELAY_ALU"
                | "S_CLAUSE"
                | "S_SLEEP"
                | "S_SLEEP_VAR"
                | "DS_NOP"
                | "BUFFER_INV"
                | "S_SETPRIO"
                | "S_SET_INST_PREFETCH_DISTANCE"
                | "S_INST_PREFETCH"
                | "S_DCACHE_INV"
                | "S_DCACHE_WB"
                | "S_GL1_INV"
                | "S_ICACHE_INV"
                | "S_TTRACEDATA"
                | "S_TTRACEDATA_IMM"
                | "S_INCPERFLEVEL"
                | "S_DECPERFLEVEL"
                | "BUFFER_GL0_INV"
                | "BUFFER_GL1_INV"
                | "BUFFER_WBINVL1"
                | "BUFFER_WBINVL1_VOL"
                | "BUFFER_WBL2"
                | "BUFFER_INVL2"
                | "GLOBAL_INV"
                | "GLOBAL_WB"
                | "GLOBAL_WBINV"
                | "S_DCACHE_INV_VOL"
                | "S_DCACHE_WB_VOL"
                | "S_WAKEUP"
                | "S_SETKILL"
                | "S_ATC_PROBE"
                | "S_ATC_PROBE_BUFFER"
                | "S_SET_VALU_COEXEC_MODE"
        )
}

/// The native model of `name`, if it has one.
fn native(name: &str) -> Option<Native> {
    let lds_dma = name.starts_with("GLOBAL_LOAD_LDS_")
        || name.starts_with("SCRATCH_LOAD_LDS_")
        || name.starts_with("BUFFER_LOAD_LDS_") && !name.contains("FORMAT");
    if lds_dma {
        return Some(Native::LdsDma);
    }
    if transpose_shape(name).is_some() {
        return Some(Native::Transpose);
    }
    match name {
        "S_MEMTIME" | "S_MEMREALTIME" | "S_GET_SHADER_CYCLES_U64" => Some(Native::MemTime),
        "S_ROUND_MODE" => Some(Native::SetMode { shift: 0 }),
        "S_DENORM_MODE" => Some(Native::SetMode { shift: 4 }),
        "S_SENDMSG_RTN_B32" | "S_SENDMSG_RTN_B64" => Some(Native::SendMsgRtn),
        "LDS_DIRECT_LOAD" | "DS_DIRECT_LOAD" => Some(Native::LdsDirect),
        _ => None,
    }
}

/// The dword count of a plain load or store, else 0:
/// `<GLOBAL|FLAT|SCRATCH|DS|S>_<LOAD|STORE>_B<bits>` (DS: `_2ADDR` and `_2ADDR_STRIDE64`
/// forms too) as RDNA 3 and later spell them, and the older spellings of the same accesses
/// (CDNA, GFX10): `<GLOBAL|FLAT|SCRATCH>_<LOAD|STORE>_DWORD[X<n>]`, `S_LOAD_DWORD[X<n>]`,
/// `DS_<READ|WRITE>[2|2ST64]_B<bits>`.
fn plain_words(family: Family, name: &str) -> u8 {
    let prefix = match family {
        Family::Global | Family::Vglobal => "GLOBAL_",
        Family::Flat | Family::Vflat => "FLAT_",
        Family::Scratch | Family::Vscratch => "SCRATCH_",
        Family::Ds => "DS_",
        Family::Smem => "S_",
        _ => return 0,
    };
    let Some(rest) = name.strip_prefix(prefix) else {
        return 0;
    };
    let (ops, pairs): (&[&str], &[&str]) = match family {
        Family::Ds => (
            &["LOAD_", "STORE_", "READ_", "WRITE_"],
            &[
                "LOAD_2ADDR_STRIDE64_",
                "LOAD_2ADDR_",
                "STORE_2ADDR_STRIDE64_",
                "STORE_2ADDR_",
                "READ2ST64_",
                "READ2_",
                "WRITE2ST64_",
                "WRITE2_",
            ],
        ),
        Family::Smem => (&["LOAD_"], &[]),
        _ => (&["LOAD_", "STORE_"], &[]),
    };
    let Some(rest) = pairs.iter().chain(ops).find_map(|p| rest.strip_prefix(p)) else {
        return 0;
    };
    match rest {
        "B32" => 1,
        "B64" => 2,
        "B96" => 3,
        "B128" => 4,
        "B256" => 8,
        "B512" => 16,
        // `_DWORD*` names only the vector-memory and SMEM accesses.
        _ if family == Family::Ds => 0,
        "DWORD" => 1,
        "DWORDX2" => 2,
        "DWORDX3" => 3,
        "DWORDX4" => 4,
        "DWORDX8" => 8,
        "DWORDX16" => 16,
        _ => 0,
    }
}

/// The integer add/sub/mad whose VOP3 `clamp` the wave layer models: the operation from the
/// name's prefix, the destination type from the first token after it (`U16`, `I32`, ...).
fn int_clamp(full: &str) -> Option<IntClamp> {
    let name = full.trim_end_matches("_E64");
    let (op, rest) = [
        ("V_ADD_NC_", ClampOp::Add),
        ("V_ADD_CO_CI_", ClampOp::Add),
        ("V_ADD_CO_", ClampOp::Add),
        ("V_ADD_", ClampOp::Add),
        ("V_SUB_NC_", ClampOp::Sub),
        ("V_SUB_CO_CI_", ClampOp::Sub),
        ("V_SUB_CO_", ClampOp::Sub),
        ("V_SUB_", ClampOp::Sub),
        ("V_SUBREV_CO_CI_", ClampOp::SubRev),
        ("V_SUBREV_CO_", ClampOp::SubRev),
        ("V_SUBREV_", ClampOp::SubRev),
        ("V_MAD_", ClampOp::Mad),
    ]
    .into_iter()
    .find_map(|(prefix, op)| name.strip_prefix(prefix).map(|r| (op, r)))?;
    // 24-bit multiplies read part of their sources; they are not covered.
    if rest.contains("24") {
        return None;
    }
    let ty = rest.split('_').next()?;
    let signed = match ty.as_bytes().first()? {
        b'U' => false,
        b'I' => true,
        _ => return None,
    };
    let bits: u8 = ty[1..].parse().ok()?;
    if !matches!(bits, 16 | 32) {
        return None;
    }
    Some(IntClamp {
        op,
        signed,
        bits,
        carry_in: rest.contains("CI") || full.contains("_CI_"),
    })
}

/// The accumulator element type of a `V_WMMA_*`/`V_MFMA_*` instruction (its name's first
/// type).
fn matrix_c(name: &str) -> Option<ElemType> {
    let ty = name
        .strip_prefix("V_WMMA_")
        .or_else(|| name.strip_prefix("V_MFMA_"))?
        .split('_')
        .next()?;
    Some(match ty {
        "F16" => ElemType::F16,
        "BF16" => ElemType::Bf16,
        "F32" => ElemType::F32,
        "I32" => ElemType::I32,
        "F64" => ElemType::F64,
        _ => return None,
    })
}

/// Element bits and elements per lane of a transposing load.
fn transpose_shape(name: &str) -> Option<(u32, u32)> {
    Some(match name {
        "DS_READ_B64_TR_B4" => (4, 16),
        "DS_READ_B64_TR_B8" => (8, 8),
        "DS_READ_B64_TR_B16" => (16, 4),
        "DS_READ_B96_TR_B6" => (6, 16),
        "GLOBAL_LOAD_TR_B64" => (8, 8),
        "GLOBAL_LOAD_TR_B128" => (16, 8),
        // gfx1250 spells the element size first: the same four shapes, LDS and global.
        "DS_LOAD_TR4_B64" | "GLOBAL_LOAD_TR4_B64" => (4, 16),
        "DS_LOAD_TR8_B64" | "GLOBAL_LOAD_TR8_B64" => (8, 8),
        "DS_LOAD_TR16_B128" | "GLOBAL_LOAD_TR16_B128" => (16, 8),
        "DS_LOAD_TR6_B96" | "GLOBAL_LOAD_TR6_B96" => (6, 16),
        _ => return None,
    })
}

/// What a wait instruction waits on.
fn wait(arch: Arch, name: &str) -> Option<Wait> {
    let single = |counter, sopk| Some(Wait::Single { counter, sopk });
    // GFX12 lists `S_WAITCNT` in its table but has no such instruction (LLVM rejects it;
    // its waits are the `S_WAIT_*CNT` forms).
    let combined = matches!(
        arch.family(),
        ArchFamily::Gfx9 | ArchFamily::Gfx10 | ArchFamily::Gfx11
    );
    match name {
        "S_WAITCNT" if combined => Some(Wait::Combined),
        "S_WAITCNT_VSCNT" => single(Counter::Vs, true),
        "S_WAITCNT_VMCNT" => single(Counter::Vm, true),
        "S_WAITCNT_LGKMCNT" => single(Counter::Lgkm, true),
        "S_WAITCNT_EXPCNT" => single(Counter::Exp, true),
        "S_WAIT_LOADCNT" => single(Counter::Load, false),
        "S_WAIT_STORECNT" => single(Counter::Store, false),
        "S_WAIT_DSCNT" => single(Counter::Ds, false),
        "S_WAIT_KMCNT" => single(Counter::Km, false),
        "S_WAIT_SAMPLECNT" => single(Counter::Sample, false),
        "S_WAIT_BVHCNT" => single(Counter::Bvh, false),
        "S_WAIT_EXPCNT" => single(Counter::Exp, false),
        "S_WAIT_LOADCNT_DSCNT" => Some(Wait::Pair(Counter::Load, Counter::Ds)),
        "S_WAIT_STORECNT_DSCNT" => Some(Wait::Pair(Counter::Store, Counter::Ds)),
        _ => None,
    }
}

/// The bitwise operation of a scalar `S_<op>_B32`/`_B64` and its width in words.
fn scalar_bitwise(name: &str) -> Option<(BitOp, u8)> {
    let words = if name.ends_with("_B64") {
        2
    } else if name.ends_with("_B32") {
        1
    } else {
        return None;
    };
    let op = match name.strip_prefix("S_")?.rsplit_once('_')?.0 {
        "AND" => BitOp::And,
        "ANDN2" | "AND_NOT1" => BitOp::AndNot,
        "OR" => BitOp::Or,
        "ORN2" | "OR_NOT1" => BitOp::OrNot,
        "XOR" | "XNOR" => BitOp::Xor,
        "NOT" => BitOp::Not,
        _ => return None,
    };
    Some((op, words))
}

/// Whether undefined input bits of `name` reach only its result's higher bits: integer and
/// bitwise add, sub, mul, mad, shift left, and, or, xor, not (no float, conversion, packed
/// or high-half forms).
fn smears_left(name: &str) -> bool {
    let float = ["_F16", "_F32", "_F64", "BF16", "_HI", "CVT", "PK_"]
        .iter()
        .any(|k| name.contains(k));
    let op = [
        "_ADD", "_SUB", "_MUL", "_MAD", "_LSHL", "_AND", "_OR", "_XOR", "_NOT",
    ]
    .iter()
    .any(|k| name.contains(k));
    op && !float
}

#[cfg(test)]
mod tests {
    use super::access_bytes;

    #[test]
    fn access_sizes_from_names() {
        for (name, n) in [
            ("GLOBAL_LOAD_B32", 4),
            ("GLOBAL_LOAD_DWORDX4", 16),
            ("DS_STORE_2ADDR_STRIDE64_B32", 4),
            ("DS_READ2ST64_B64", 8),
            ("GLOBAL_LOAD_D16_HI_U8", 1),
            ("GLOBAL_LOAD_UBYTE_D16_HI", 1),
            ("GLOBAL_LOAD_D16_B16", 2),
            ("GLOBAL_LOAD_SHORT_D16", 2),
            ("GLOBAL_ATOMIC_PK_ADD_F16", 4),
            ("GLOBAL_ATOMIC_CMPSWAP_X2", 8),
            ("GLOBAL_ATOMIC_ADD_F64", 8),
            ("S_LOAD_B512", 64),
            ("S_LOAD_DWORDX8", 32),
            ("SCRATCH_LOAD_DWORDX3", 12),
            ("GLOBAL_ATOMIC_ADD_U32", 4),
        ] {
            assert_eq!(access_bytes(name), n, "{name}");
        }
    }
}
