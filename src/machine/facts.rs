//! What kind each instruction is, decided once per database entry.
//!
//! [`Facts::of`] builds (once per [`SpecDb`], kept with it) an [`InstFacts`] for every entry
//! of the database: its encoding family and memory kind, whether it loads, stores or is
//! atomic, whether it returns data, the counter it increments and the counters it waits on,
//! how the executor treats it ([`Control`]), its lane and branch behaviour and the inputs the
//! hazard rules need, with per-operand facts ([`OperandFacts`]: widths, lane masks). The
//! layers above (wave, SMT wave steps, sanitizer, dispatch) ask these facts and never match
//! on instruction names; the builder (`machine/build.rs`) is the only code that does.
//!
//! The `s_waitcnt` field layout per arch profile is here too ([`waitcnt_fields`]): the
//! assembler prints with it and the sanitizer decodes waits with it.

use std::sync::Arc;

use crate::spec::{Arch, Family as ArchFamily, FastMap, SpecDb, Wheel};

/// An instruction's encoding family: the `enum.py` class (`SOP1`, `VGLOBAL`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Family {
    Sop1,
    Sop2,
    Sopc,
    Sopk,
    Sopp,
    Smem,
    Vop1,
    Vop2,
    Vopc,
    Vop3,
    Vop3sd,
    Vop3p,
    Vop3px2,
    Vopd,
    Vinterp,
    Ldsdir,
    Vdsdir,
    Ds,
    Flat,
    Global,
    Scratch,
    Vflat,
    Vglobal,
    Vscratch,
    Mubuf,
    Mtbuf,
    Vbuffer,
    Mimg,
    Vimage,
    Vsample,
    Exp,
    Vexport,
    /// A family this table does not know (a newer database): no memory, no vector facts.
    Other,
}

/// (family, `enum.py` class name) of every known family.
const FAMILY_NAMES: [(Family, &str); 32] = [
    (Family::Sop1, "SOP1"),
    (Family::Sop2, "SOP2"),
    (Family::Sopc, "SOPC"),
    (Family::Sopk, "SOPK"),
    (Family::Sopp, "SOPP"),
    (Family::Smem, "SMEM"),
    (Family::Vop1, "VOP1"),
    (Family::Vop2, "VOP2"),
    (Family::Vopc, "VOPC"),
    (Family::Vop3, "VOP3"),
    (Family::Vop3sd, "VOP3SD"),
    (Family::Vop3p, "VOP3P"),
    (Family::Vop3px2, "VOP3PX2"),
    (Family::Vopd, "VOPD"),
    (Family::Vinterp, "VINTERP"),
    (Family::Ldsdir, "LDSDIR"),
    (Family::Vdsdir, "VDSDIR"),
    (Family::Ds, "DS"),
    (Family::Flat, "FLAT"),
    (Family::Global, "GLOBAL"),
    (Family::Scratch, "SCRATCH"),
    (Family::Vflat, "VFLAT"),
    (Family::Vglobal, "VGLOBAL"),
    (Family::Vscratch, "VSCRATCH"),
    (Family::Mubuf, "MUBUF"),
    (Family::Mtbuf, "MTBUF"),
    (Family::Vbuffer, "VBUFFER"),
    (Family::Mimg, "MIMG"),
    (Family::Vimage, "VIMAGE"),
    (Family::Vsample, "VSAMPLE"),
    (Family::Exp, "EXP"),
    (Family::Vexport, "VEXPORT"),
];

impl Family {
    /// The family of an `enum.py` class name (`Other` when unknown).
    pub fn of(name: &str) -> Family {
        FAMILY_NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map_or(Family::Other, |&(f, _)| f)
    }

    /// The `enum.py` class name (`"?"` for `Other`).
    pub fn name(self) -> &'static str {
        FAMILY_NAMES
            .iter()
            .find(|(f, _)| *f == self)
            .map_or("?", |&(_, n)| n)
    }

    /// A vector ALU encoding: `VOP1` .. `VOP3PX2` and `VOPD`.
    pub fn is_valu(self) -> bool {
        use Family::*;
        matches!(
            self,
            Vop1 | Vop2 | Vopc | Vop3 | Vop3sd | Vop3p | Vop3px2 | Vopd
        )
    }

    /// A scalar ALU encoding: `SOP1`, `SOP2`, `SOPC`, `SOPK`, `SOPP`.
    pub fn is_salu(self) -> bool {
        use Family::*;
        matches!(self, Sop1 | Sop2 | Sopc | Sopk | Sopp)
    }

    /// An encoding whose memory the wave layer's memory model addresses itself
    /// (`wave/memory.rs`): scalar, LDS, global, flat and scratch memory and MUBUF/MTBUF/VBUFFER
    /// buffers (images and exports run their text or are refused).
    pub fn is_wave_memory(self) -> bool {
        use Family::*;
        matches!(
            self,
            Smem | Ds
                | Flat
                | Global
                | Scratch
                | Vflat
                | Vglobal
                | Vscratch
                | Mubuf
                | Mtbuf
                | Vbuffer
        )
    }

    /// The memory an encoding addresses.
    pub fn mem(self) -> MemKind {
        use Family::*;
        match self {
            Smem => MemKind::Scalar,
            Ds => MemKind::Lds,
            Ldsdir | Vdsdir => MemKind::LdsDirect,
            Global | Vglobal => MemKind::Global,
            Flat | Vflat => MemKind::Flat,
            Scratch | Vscratch => MemKind::Scratch,
            Mubuf | Mtbuf | Vbuffer => MemKind::Buffer,
            Mimg | Vimage | Vsample => MemKind::Image,
            Exp | Vexport => MemKind::Export,
            _ => MemKind::None,
        }
    }
}

/// The memory an instruction's encoding addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemKind {
    /// No memory.
    None,
    /// Scalar memory (`SMEM`).
    Scalar,
    /// The LDS (`DS`).
    Lds,
    /// LDS direct loads and parameter interpolation (`LDSDIR`, `VDSDIR`).
    LdsDirect,
    /// Global memory (`GLOBAL`, `VGLOBAL`).
    Global,
    /// Flat: global or LDS by the address's aperture (`FLAT`, `VFLAT`).
    Flat,
    /// Per-lane scratch (`SCRATCH`, `VSCRATCH`).
    Scratch,
    /// Buffer resources (`MUBUF`, `MTBUF`, `VBUFFER`).
    Buffer,
    /// Images and samplers (`MIMG`, `VIMAGE`, `VSAMPLE`).
    Image,
    /// Exports (`EXP`, `VEXPORT`).
    Export,
}

impl MemKind {
    /// A vector memory kind (global, flat, scratch, buffer, image).
    pub fn is_vector_memory(self) -> bool {
        matches!(
            self,
            MemKind::Global | MemKind::Flat | MemKind::Scratch | MemKind::Buffer | MemKind::Image
        )
    }

    /// A kind whose operations are tracked by a wait counter and by the sanitizer's memory
    /// models: scalar, LDS, global, flat, scratch and buffer memory.
    pub fn is_counted_memory(self) -> bool {
        matches!(
            self,
            MemKind::Scalar
                | MemKind::Lds
                | MemKind::Global
                | MemKind::Flat
                | MemKind::Scratch
                | MemKind::Buffer
        )
    }
}

/// Whether a memory instruction writes its destination (the pre-operation value for an
/// atomic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rtn {
    /// Never (stores, atomics without a return form, non-memory instructions).
    Never,
    /// Always (loads, and every other non-atomic memory instruction with a `vdst`:
    /// `DS_*_RTN_*`, swizzles, permutes).
    Always,
    /// When the return bit is set: RDNA 3 `glc`, CDNA `sc0`, RDNA 4 `th` bit 0
    /// (`*_ATOMIC_*` of global, flat, scratch and buffer memory).
    ReturnBit,
}

/// What a barrier instruction does for its wave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Barrier {
    /// `s_barrier`: arrive and wait for the workgroup's other waves.
    SignalWait,
    /// `s_barrier_signal` (RDNA 4): arrive without waiting.
    Signal,
    /// `s_barrier_wait` (RDNA 4): wait until every wave of the workgroup has arrived.
    Wait,
}

/// What a native instruction does (the wave layer models it itself; `wave::native`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Native {
    /// GLOBAL/SCRATCH `*_LOAD_LDS_*`: per-lane loads whose data goes to LDS at M0.
    LdsDma,
    /// `DS_READ_B*_TR_B*`, `GLOBAL_LOAD_TR_B*`: loads transposed across 16-lane groups.
    Transpose,
    /// `S_MEMTIME`, `S_MEMREALTIME`, gfx1250's `S_GET_SHADER_CYCLES_U64`: the 64-bit
    /// instruction clock into an SGPR pair.
    MemTime,
    /// `S_ROUND_MODE` (`shift` 0: MODE[3:0], FP_ROUND), `S_DENORM_MODE` (`shift` 4:
    /// MODE[7:4], FP_DENORM): a MODE field from the immediate's low 4 bits.
    SetMode {
        /// The field's low bit in MODE.
        shift: u8,
    },
    /// `S_SENDMSG_RTN_B32/B64`: the message's returned value (`MSG_RTN_GET_REALTIME` only).
    SendMsgRtn,
    /// RDNA 3 `LDS_DIRECT_LOAD`, RDNA 4 `DS_DIRECT_LOAD`: one LDS value at M0 broadcast to
    /// the VGPR.
    LdsDirect,
}

/// How the executor treats an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Runs its pseudocode.
    Execute,
    /// Only waits, orders, hints or invalidates caches: a no-op in this model.
    Noop,
    /// Ends the program.
    End,
    /// A barrier instruction.
    Barrier(Barrier),
    /// A CDNA AGPR move (`v_accvgpr_read/write/mov`).
    AgprMove,
    /// Modelled by the wave layer itself.
    Native(Native),
}

/// An LDS-encoded instruction that moves values between lanes instead of addressing LDS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DsLanes {
    /// None of these.
    None,
    /// `ds_swizzle_b32`: the offset is the lane pattern.
    Swizzle,
    /// `ds_permute_b32` (`backward` false), `ds_bpermute_b32` (true), `ds_bpermute_fi_b32`
    /// (`fetch_inactive`: reads inactive lanes too).
    Permute {
        /// Each lane reads (rather than writes) the lane its address names.
        backward: bool,
        /// Inactive lanes' values are read too.
        fetch_inactive: bool,
    },
}

/// An integer operation whose VOP3 `clamp` saturates the exact result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClampOp {
    /// `S0 + S1` (+ carry-in).
    Add,
    /// `S0 - S1` (- borrow-in).
    Sub,
    /// `S1 - S0` (- borrow-in).
    SubRev,
    /// `S0 * S1 + S2`.
    Mad,
}

/// The integer add/sub/mad whose VOP3 `clamp` the wave layer models (`V_ADD_NC_U16`,
/// `V_SUB_CO_CI_U32`, `V_MAD_I32_I16`, ...; 24-bit multiplies are not covered).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntClamp {
    /// The operation.
    pub op: ClampOp,
    /// The destination type is signed (`I`) rather than unsigned (`U`).
    pub signed: bool,
    /// The destination type's width: 16 or 32.
    pub bits: u8,
    /// It adds a carry-in (subtracts a borrow-in) from VCC (`*_CI_*`).
    pub carry_in: bool,
}

/// The element type of a matrix instruction's accumulator C (the name's first type:
/// `V_WMMA_F16_16X16X16_F16` has f16 C).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType {
    /// IEEE half.
    F16,
    /// bfloat16.
    Bf16,
    /// IEEE single.
    F32,
    /// 32-bit signed integer.
    I32,
    /// IEEE double.
    F64,
}

impl ElemType {
    /// The width in bits.
    pub fn bits(self) -> u32 {
        match self {
            ElemType::F16 | ElemType::Bf16 => 16,
            ElemType::F32 | ElemType::I32 => 32,
            ElemType::F64 => 64,
        }
    }

    /// The spec's operand format of one element (`FMT_NUM_F16`, ...).
    pub fn format(self) -> &'static str {
        match self {
            ElemType::F16 => "FMT_NUM_F16",
            ElemType::Bf16 => "FMT_NUM_BF16",
            ElemType::F32 => "FMT_NUM_F32",
            ElemType::I32 => "FMT_NUM_I32",
            ElemType::F64 => "FMT_NUM_F64",
        }
    }
}

/// A lane-crossing scalar/vector move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneOp {
    /// None of these.
    None,
    /// `v_readlane_*`: one lane (selected by an SGPR or constant) into an SGPR.
    ReadLane,
    /// `v_readfirstlane_*`: the first active lane into an SGPR.
    ReadFirstLane,
    /// `v_writelane_*`: a scalar into one lane.
    WriteLane,
}

/// A matrix instruction's kind (the hazard rules and the AGPR layer ask).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matrix {
    /// Not a matrix instruction.
    None,
    /// RDNA `v_wmma_*`.
    Wmma,
    /// RDNA 4 `v_swmmac_*`.
    Swmmac,
    /// CDNA `v_mfma_*`.
    Mfma,
    /// CDNA `v_smfmac_*`.
    Smfmac,
}

/// How an instruction changes the program counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branch {
    /// Falls through.
    None,
    /// `s_branch`: always to the relative target.
    Jump,
    /// `s_cbranch_*`: the relative target or the next instruction.
    Conditional,
    /// `s_call_b64`: the relative target (returning to the next instruction).
    Call,
    /// `s_subvector_loop_begin/end`: the relative target or the next instruction.
    SubvectorLoop,
    /// `s_setpc`, `s_swappc`, `s_rfe`, fork/join: a computed address.
    Indirect,
}

/// An outstanding-operation counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Counter {
    /// RDNA 1-3 / CDNA `vmcnt` (CDNA: loads and stores; RDNA: loads and returning atomics).
    Vm,
    /// RDNA 1-3 `vscnt`: stores and atomics without return.
    Vs,
    /// RDNA 1-3 / CDNA `lgkmcnt`: LDS, scalar memory, messages.
    Lgkm,
    /// `expcnt`: exports and GDS (no compute instruction of this model increments it).
    Exp,
    /// RDNA 4 `loadcnt`.
    Load,
    /// RDNA 4 `storecnt`.
    Store,
    /// RDNA 4 `dscnt`.
    Ds,
    /// RDNA 4 `kmcnt`.
    Km,
    /// RDNA 4 `samplecnt`.
    Sample,
    /// RDNA 4 `bvhcnt`.
    Bvh,
}

impl Counter {
    /// The assembler's name: `vmcnt`, `lgkmcnt`, ...
    pub fn name(self) -> &'static str {
        match self {
            Counter::Vm => "vmcnt",
            Counter::Vs => "vscnt",
            Counter::Lgkm => "lgkmcnt",
            Counter::Exp => "expcnt",
            Counter::Load => "loadcnt",
            Counter::Store => "storecnt",
            Counter::Ds => "dscnt",
            Counter::Km => "kmcnt",
            Counter::Sample => "samplecnt",
            Counter::Bvh => "bvhcnt",
        }
    }
}

/// The kind of event an outstanding operation is; operations of one kind on one counter
/// return in order, except scalar memory, which returns out of order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A vector memory load (or returning atomic; on CDNA every vector memory operation).
    VmemLoad,
    /// A vector memory store (or atomic without return).
    VmemStore,
    /// An LDS operation (DS, or FLAT reaching LDS).
    Lds,
    /// A scalar memory load.
    Smem,
}

/// What a wait instruction waits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// `s_waitcnt`: the fields of [`waitcnt_fields`] in its immediate.
    Combined,
    /// One counter up to the immediate; `sopk`: plus SGPR `sdst` when it is not null
    /// (`s_waitcnt_vscnt`, ...).
    Single {
        /// The counter.
        counter: Counter,
        /// The SOPK form (adds SGPR `sdst`).
        sopk: bool,
    },
    /// RDNA 4 `s_wait_loadcnt_dscnt`/`s_wait_storecnt_dscnt`: the first counter in bits
    /// 13:8, the second in bits 5:0.
    Pair(Counter, Counter),
}

/// The extension form of a decoded instruction's encoding (its `ins.py` class): the same
/// database entry runs in any of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// The base encoding (`VOP1`, `VOP3`, `SOP2`, ...), with or without a literal.
    Plain,
    /// A sub-dword-addressing form (`*_SDWA`, `*_SDWA_SDST`; GFX9/GFX10).
    Sdwa,
    /// A 16-lane data-parallel-primitive form (`*_DPP16`).
    Dpp16,
    /// An 8-lane data-parallel-primitive form (`*_DPP8`).
    Dpp8,
}

impl Encoding {
    /// Whether it is a DPP form (DPP16 or DPP8).
    pub fn is_dpp(self) -> bool {
        matches!(self, Encoding::Dpp16 | Encoding::Dpp8)
    }
}

/// The facts of one operand of an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperandFacts {
    /// The encoding field (`vdst`, `src0`, ...).
    pub field: String,
    /// Its size in bits, as the spec gives it.
    pub bits: u32,
    /// The spec formats it as a lane mask (`_M32`/`_M64`): one bit per lane.
    pub lane_mask: bool,
    /// The spec's operand kind names a scalar register (`SREG`, `SDST`, `SGPR`).
    pub scalar: bool,
    /// The spec's operand kind names a VGPR.
    pub vgpr: bool,
}

impl OperandFacts {
    /// The number of 32-bit registers the operand spans in a wave of `wave_size` lanes: a
    /// lane mask is one SGPR in wave32 and a pair in wave64.
    pub fn regs(&self, wave_size: u32) -> u32 {
        if self.lane_mask {
            wave_size.div_ceil(32)
        } else {
            self.bits.div_ceil(32).max(1)
        }
    }
}

/// A scalar bitwise operation (`s_and_b32`, `s_orn2_b64`, `s_not_b32`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitOp {
    /// `and`.
    And,
    /// `andn2` / `and_not1`: the first source and the complement of the second.
    AndNot,
    /// `or`.
    Or,
    /// `orn2` / `or_not1`.
    OrNot,
    /// `xor`, `xnor`.
    Xor,
    /// `not` (one source).
    Not,
}

/// Why an instruction is refused (no single-device model of it is well defined).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `ds_gws_*`: global wave sync resources set up by the driver.
    GlobalWaveSync,
    /// `ds_ordered_count`, `global_atomic_ordered_add_b64`: the graphics pipeline's ordered
    /// wave IDs.
    OrderedAppend,
    /// MUBUF/MTBUF `*_FORMAT_*`: the conversion by the V#'s data and number formats.
    BufferFormat,
    /// MUBUF/MTBUF LDS forms that are not `buffer_load_lds_*` DMA loads (M0-addressed).
    BufferLds,
    /// SMEM `s_buffer_*`: the scalar unit's V# addressing and range rules.
    ScalarBuffer,
    /// Every buffer access of gfx1250: its V# layout is not described by a source we have.
    BufferResource,
    /// MIMG/VIMAGE/VSAMPLE: the image resource (T#) addressing and format conversion.
    Image,
}

/// The facts of one database entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstFacts {
    /// The entry's index in [`SpecDb::instructions`].
    pub index: u32,
    /// The encoding family.
    pub family: Family,
    /// The memory the encoding addresses.
    pub mem: MemKind,
    /// A memory instruction that reads memory (loads, atomics, `DS_READ*`).
    pub loads: bool,
    /// A memory instruction that writes memory (stores, `DS_WRITE*`, atomics).
    pub stores: bool,
    /// Named a plain load (`LOAD`, or DS `READ` as CDNA and GFX10 spell it; neither atomic
    /// nor store): its global accesses are checked by page.
    pub load_only: bool,
    /// An atomic read-modify-write: `*_ATOMIC_*`, or an LDS instruction that is neither a
    /// plain load or store nor a lane permute (`ds_add_u32`, `ds_cmpstore_b32`,
    /// `ds_storexchg_rtn_b32`, `ds_append`, ...). Atomics order with every other access.
    pub atomic: bool,
    /// The wave layer runs its text lane by lane (it reads and writes the same bytes):
    /// `*_ATOMIC_*` and the DS read-modify-write operations (`ds_wrxchg*` included; DS
    /// loads, stores, permutes, append/consume, GWS and BVH excluded).
    pub lane_serial: bool,
    /// Whether it writes its destination.
    pub rtn: Rtn,
    /// The bytes one element of a memory access covers (4 when the name gives no size).
    pub bytes: u8,
    /// A 16-bit (`D16`) load or store.
    pub d16: bool,
    /// A `D16_HI` load or store (the high half of the VGPR).
    pub d16_hi: bool,
    /// DS two-address forms: the offset multiplier of each address (1, or 64 for
    /// `ST64`/`STRIDE64`); 0 for one address.
    pub ds_two: u8,
    /// The address is the SGPR base plus the lane's own dword (`*_ADDTID_*`).
    pub addtid: bool,
    /// Signed element (`_SBYTE`, `_SSHORT`, `_I8`, `_I16` suffix).
    pub signed: bool,
    /// The D16 mixed-precision `_MIXHI_` form (writes the high half).
    pub mixhi: bool,
    /// A transposing load: (element bits, elements per lane).
    pub transpose: Option<(u8, u8)>,
    /// How the executor treats it.
    pub control: Control,
    /// Why it is refused, when it is.
    pub refusal: Option<Refusal>,
    /// What it waits on, for a counter wait.
    pub wait: Option<Wait>,
    /// `s_waitcnt_depctr` / `s_wait_alu`: a dependency-counter wait.
    pub depctr: bool,
    /// `s_nop`: wait states from its immediate.
    pub nop: bool,
    /// Lane-crossing moves.
    pub lane: LaneOp,
    /// Its name mentions lanes (`readlane`, `writelane`, `permlane`, ...): it may read or
    /// write any lane of a VGPR.
    pub cross_lane: bool,
    /// Relative register addressing (`s_movrel*`, `v_movrel*`, `s_set_gpr_idx_*`).
    pub relative_regs: bool,
    /// A vector compare (`v_cmp*`, `v_cmpx*`): its VOP3 `vdst` names scalar registers.
    pub compare: bool,
    /// A `*_CLASS_*` compare (its second source is a class mask, not a float).
    pub class_test: bool,
    /// How it changes the program counter.
    pub branch: Branch,
    /// `s_mov_b32`/`s_mov_b64`: a plain scalar move.
    pub smov: bool,
    /// `v_mov_b32`/`v_mov_b64`: a plain vector move.
    pub vmov: bool,
    /// Matrix kind.
    pub matrix: Matrix,
    /// A call or return (`s_call_*`, `s_swappc_*`, `s_setpc_*`): LLVM resolves hazards per
    /// function.
    pub call_or_return: bool,
    /// `s_setreg_*`: writes a hardware register field.
    pub setreg: bool,
    /// `v_div_fmas_*`: reads VCC.
    pub div_fmas: bool,
    /// An integer/bitwise operation whose undefined input bits reach only its result's
    /// higher bits (add, sub, mul, mad, shift left, and, or, xor, not; no float).
    pub smears_left: bool,
    /// A scalar bitwise operation and its width in 32-bit words (1 or 2).
    pub scalar_bitwise: Option<(BitOp, u8)>,
    /// It moves values between lanes by its name (`permlane*`, `*permute*`, `*swizzle*`).
    pub permutes: bool,
    /// `v_cndmask_b32`/`_b16`: the width of its selected value, else 0.
    pub cndmask_bits: u8,
    /// A CDNA MUBUF load that becomes an LDS DMA load when its `lds` bit is set
    /// (`buffer_load_dword ... lds`).
    pub lds_by_bit: bool,
    /// An LDS instruction that moves values between lanes.
    pub ds_lanes: DsLanes,
    /// A memory instruction of another family whose data goes to or comes from LDS
    /// (`GLOBAL_LOAD_LDS_*`, `BUFFER_LOAD_LDS_*`, ...).
    pub lds_transfer: bool,
    /// A plain load or store of whole dwords spelled
    /// `<GLOBAL|FLAT|SCRATCH|DS|S>_<LOAD|STORE>_B<bits>` (DS two-address forms
    /// `DS_<LOAD|STORE>_2ADDR[_STRIDE64]_B<bits>` too), or in the older spelling of CDNA and
    /// GFX10 (`GLOBAL_LOAD_DWORDX4`, `S_LOAD_DWORDX16`, `DS_READ2ST64_B64`): its dword count
    /// per address, else 0. No sign or zero extension,
    /// D16 half, address mode or LDS transfer; the wave layer's fast memory paths take these.
    pub plain_words: u8,
    /// `s_getreg_b32`: reads a hardware register field.
    pub getreg: bool,
    /// The integer operation of an add/sub/mad whose VOP3 `clamp` is modelled.
    pub int_clamp: Option<IntClamp>,
    /// The element type of a `V_WMMA_*`/`V_MFMA_*` accumulator that may be an inline
    /// constant or literal.
    pub matrix_c: Option<ElemType>,
    /// The entry lists a `vdst` operand whose kind names a VGPR (not an SGPR or a mask).
    pub vdst_vgpr: bool,
}

impl InstFacts {
    /// Whether a memory instruction with fields `field` writes its destination: [`Rtn`],
    /// with the return bit read from `glc`, `sc0` or `th` bit 0 (the first present; set
    /// when none is).
    pub fn returns_data(&self, field: impl Fn(&str) -> Option<u64>) -> bool {
        match self.rtn {
            Rtn::Never => false,
            Rtn::Always => true,
            Rtn::ReturnBit => ["glc", "sc0", "th"]
                .iter()
                .find_map(|f| field(f))
                .is_none_or(|v| v & 1 == 1),
        }
    }

    /// The counter a memory operation increments and its event kind on `arch`: `returns`
    /// as [`InstFacts::returns_data`] decided it, `flat_lds` when a FLAT operation's lanes
    /// all reached the LDS. `None` for instructions no counter tracks.
    pub fn event(&self, arch: Arch, returns: bool, flat_lds: bool) -> Option<(Counter, Event)> {
        if !self.mem.is_counted_memory() {
            return None;
        }
        let event = if self.mem == MemKind::Scalar {
            Event::Smem
        } else if self.mem == MemKind::Lds || self.mem == MemKind::Flat && flat_lds {
            Event::Lds
        } else if returns {
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

    /// The counters a wait waits on and their thresholds, from its immediate `imm` on
    /// `arch`; `sopk` adds the SGPR of a SOPK wait to its immediate.
    pub fn wait_thresholds(
        &self,
        arch: Arch,
        imm: u32,
        sopk: &dyn Fn(u32) -> u32,
    ) -> Vec<(Counter, u32)> {
        match self.wait {
            None => Vec::new(),
            Some(Wait::Combined) => waitcnt_decode(arch, imm),
            Some(Wait::Single { counter, sopk: s }) => {
                vec![(counter, if s { sopk(imm) } else { imm })]
            }
            Some(Wait::Pair(a, b)) => vec![(a, imm >> 8 & 0x3f), (b, imm & 0x3f)],
        }
    }
}

/// (counter, low bit, width) of each `s_waitcnt` field on `arch`, in the assembler's printed
/// order; on GFX9 and GFX10 `vmcnt` has 2 more bits at 15:14 ([`vmcnt_split`]).
pub fn waitcnt_fields(arch: Arch) -> &'static [(Counter, u32, u32)] {
    match arch.family() {
        ArchFamily::Gfx9 => &[
            (Counter::Vm, 0, 4),
            (Counter::Exp, 4, 3),
            (Counter::Lgkm, 8, 4),
        ],
        // llvm-mc-22 (gfx1030): `s_waitcnt vmcnt(1) expcnt(2) lgkmcnt(3)` is 0x0321.
        ArchFamily::Gfx10 => &[
            (Counter::Vm, 0, 4),
            (Counter::Exp, 4, 3),
            (Counter::Lgkm, 8, 6),
        ],
        _ => &[
            (Counter::Vm, 10, 6),
            (Counter::Exp, 0, 3),
            (Counter::Lgkm, 4, 6),
        ],
    }
}

/// Whether `vmcnt` is split: its low 4 bits at 3:0 and its high 2 bits at 15:14 (GFX9, GFX10).
pub fn vmcnt_split(arch: Arch) -> bool {
    matches!(arch.family(), ArchFamily::Gfx9 | ArchFamily::Gfx10)
}

/// The `s_waitcnt` thresholds of immediate `imm` on `arch`, in [`waitcnt_fields`] order.
pub fn waitcnt_decode(arch: Arch, imm: u32) -> Vec<(Counter, u32)> {
    waitcnt_fields(arch)
        .iter()
        .map(|&(c, lo, width)| {
            let mut v = imm >> lo & ((1 << width) - 1);
            if c == Counter::Vm && vmcnt_split(arch) {
                v |= (imm >> 14 & 3) << 4;
            }
            (c, v)
        })
        .collect()
}

/// The facts of every entry of one database.
#[derive(Debug)]
pub struct Facts {
    pub(super) arch: Arch,
    pub(super) insts: Vec<InstFacts>,
    pub(super) operands: Vec<Vec<OperandFacts>>,
    /// (family, opcode) → entry index.
    pub(super) by_code: FastMap<(Family, u32), u32>,
}

impl Facts {
    /// The facts of `db`, built on the first call for a database and shared by later calls
    /// for it (and its clones); `Facts::build` (in `machine/build.rs`) builds them.
    pub fn of(db: &SpecDb) -> Arc<Facts> {
        db.derived(Facts::build)
    }

    /// The arch.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// The facts of every entry, in [`SpecDb::instructions`] order.
    pub fn all(&self) -> &[InstFacts] {
        &self.insts
    }

    /// The facts of entry `index`.
    pub fn get(&self, index: u32) -> Option<&InstFacts> {
        self.insts.get(index as usize)
    }

    /// The operand facts of entry `index`.
    pub fn operands(&self, index: u32) -> &[OperandFacts] {
        self.operands.get(index as usize).map_or(&[], Vec::as_slice)
    }

    /// The entry of encoding family `family` (an `enum.py` class name) and `opcode`.
    pub fn find(&self, family: &str, opcode: u32) -> Option<&InstFacts> {
        let i = *self.by_code.get(&(Family::of(family), opcode))?;
        self.insts.get(i as usize)
    }

    /// The facts of the instruction of encoding family `family` and `opcode` (a decoded
    /// instruction's), or, when the database has no such entry, [`InstFacts::unlisted`].
    pub fn of_code(&self, family: &str, opcode: u32) -> InstFacts {
        self.find(family, opcode)
            .copied()
            .unwrap_or_else(|| InstFacts::unlisted(Family::of(family)))
    }
}

impl InstFacts {
    /// The facts of an instruction no database entry describes: its family's memory kind,
    /// nothing else.
    pub fn unlisted(family: Family) -> InstFacts {
        InstFacts {
            index: u32::MAX,
            family,
            mem: family.mem(),
            loads: false,
            stores: false,
            load_only: false,
            atomic: false,
            lane_serial: false,
            rtn: Rtn::Never,
            bytes: 4,
            d16: false,
            d16_hi: false,
            ds_two: 0,
            addtid: false,
            signed: false,
            mixhi: false,
            transpose: None,
            control: Control::Execute,
            refusal: None,
            wait: None,
            depctr: false,
            nop: false,
            lane: LaneOp::None,
            cross_lane: false,
            relative_regs: false,
            compare: false,
            class_test: false,
            branch: Branch::None,
            smov: false,
            vmov: false,
            matrix: Matrix::None,
            call_or_return: false,
            setreg: false,
            div_fmas: false,
            smears_left: false,
            scalar_bitwise: None,
            permutes: false,
            cndmask_bits: 0,
            lds_by_bit: false,
            ds_lanes: DsLanes::None,
            lds_transfer: false,
            plain_words: 0,
            getreg: false,
            int_clamp: None,
            matrix_c: None,
            vdst_vgpr: false,
        }
    }
}
