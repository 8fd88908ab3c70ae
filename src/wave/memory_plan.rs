//! A memory instruction's decisions, made once per decoded instruction ([`MemPlan::build`])
//! from its encoding, its facts (`machine::InstFacts`: family, size, loads/stores, atomic
//! rule, d16, DS two-address stride) and the arch: how each lane's address is formed, which
//! memory it addresses, the bytes the bounds check covers and the fault rule, the registers
//! the text's operands bind to and what is written back, and the refusals. Every tier reads
//! the plan: the pseudocode step (`memory::execute`) interprets it, the prepared form
//! (`memprep::MemOp`, also what compiled blocks call through `block_mem`) is built from it
//! ([`MemPlan::fast`]) and the fault rule ([`fits`], [`span_fits`]) is the one every
//! bounds check asks. The memory tiers read no encoding field of a memory instruction
//! themselves; the native models (`native.rs`: LDS DMA, transposing loads) take the address
//! form ([`vmem_form`]) and the fault rule from here and read their other operands.

use super::memory_space::{access_bytes, scratch_key, Space, SCRATCH_LANE_SPAN};
use super::state::{Bounds, WaveState};
use super::{Decoded, Entry, WaveError};
use crate::machine::facts::Refusal;
use crate::machine::{DsLanes, Family, InstFacts};
use crate::spec::Arch;

/// How each lane's address is formed (all sums wrap at 64 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// SMEM, one address: the SGPR pair at `sbase` plus `imm` plus each SGPR named in
    /// `sgprs` shifted left by `shift`.
    Scalar {
        sbase: u32,
        imm: u64,
        sgprs: [Option<u32>; 2],
        shift: u32,
    },
    /// DS: the 32-bit address VGPR plus `offset` (the encoding's offset when the text leaves
    /// it out, else 0), kept to 32 bits.
    Lds { vaddr: u32, offset: u64 },
    /// GLOBAL, FLAT (and MTBUF): the SGPR pair `saddr` plus the 32-bit VGPR `vaddr` shifted
    /// left by `shift`, or (no `saddr`) the 64-bit VGPR pair at `vaddr`, plus `offset`.
    Global {
        vaddr: u32,
        saddr: Option<u32>,
        offset: u64,
        shift: u32,
    },
    /// SCRATCH: SGPR `saddr` (32 bits) plus, with `vgpr`, VGPR `vaddr` shifted left by
    /// `shift`, plus `offset`, as a byte of the lane's own scratch.
    Scratch {
        vaddr: u32,
        saddr: Option<u32>,
        vgpr: bool,
        offset: u64,
        shift: u32,
    },
    /// MUBUF: through the V# (`memory_buffer`).
    Buffer(BufferForm),
}

/// The encoding's part of a MUBUF address (the V# is read at run time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct BufferForm {
    /// The first of the V#'s four SGPRs.
    pub srsrc: u32,
    pub vaddr: u32,
    pub offen: bool,
    pub idxen: bool,
    /// SGPR `soffset` or an inline constant; `Err(code)` for an operand code not modelled.
    pub soffset: Result<SOffset, u32>,
    /// The 12-bit instruction offset.
    pub offset: u64,
    /// The range check's step: 4 (dword by dword) or the whole access.
    pub step: u64,
}

/// A MUBUF `soffset` operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SOffset {
    Sgpr(u32),
    Const(u64),
}

/// What the instruction does besides (or instead of) an access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Action {
    /// AMD's text accesses memory.
    Access,
    /// `ds_permute_b32` / `ds_bpermute_b32`: a lane move, no memory.
    Permute { backward: bool },
    /// `ds_swizzle_b32`: AMD's text moves lanes through the VGPR file, no memory.
    Swizzle,
}

/// The registers the text's operands bind to (RDNA 3 / CDNA field names resolved).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Bind {
    /// `DATA` / `DATA0`.
    pub data: u32,
    /// `DATA1` / `DATA2`.
    pub data1: u32,
    /// `VDATA` read as an input (the store data, or the destination).
    pub vdata: u32,
    /// `RETURN_DATA`, `VDST`.
    pub vdst: u32,
    /// `SDATA`.
    pub sdata: u32,
    /// The address VGPR (`ADDR` of `ds_swizzle_b32`, the VGPR-file texts).
    pub addr: u32,
    /// `OFFSET`, `OFFSET0`, `OFFSET1`.
    pub offset: u64,
    pub offset0: u64,
    pub offset1: u64,
}

/// One memory instruction's decisions.
#[derive(Clone, Debug)]
pub(super) struct MemPlan {
    pub form: Form,
    /// FLAT: each lane's aperture decides the memory (`memory::flat_space`).
    pub flat: bool,
    /// The memory addressed (MUBUF and FLAT: decided per access from the V# / aperture).
    pub space: Space,
    /// Bytes of one element (`InstFacts::bytes`).
    pub size: u64,
    /// `(offset, bytes)` past each lane's address that the bounds check covers.
    pub extents: Vec<(u64, u64)>,
    /// Loads are judged by `Bounds::global_readable`, everything else by mapped bytes.
    pub load_only: bool,
    /// Lanes run the text one at a time (atomics).
    pub lane_serial: bool,
    pub action: Action,
    /// Why the instruction is not executed, if it is not.
    pub refusal: Option<String>,
    pub bind: Bind,
    /// The VGPR `RETURN_DATA`/`VDATA` is written to, when the instruction returns data.
    pub ret_vgpr: Option<u32>,
    /// The instruction returns data (`InstFacts::returns_data`).
    pub returns_data: bool,
    /// Its global stores are recorded in `WaveState::written` (GLOBAL, FLAT, MUBUF).
    pub track_stores: bool,
    /// The width of the text's `ADDR` (sums wrap there), if the text has one.
    pub addr_bits: Option<u32>,
    /// The register the plain-access tiers load into (`vdst`, `sdata`) or store from.
    pub load_reg: Option<u32>,
    pub store_reg: Option<u32>,
    /// The DS offset the text adds itself (`ADDR + OFFSET`), 0 otherwise.
    pub text_offset: u64,
    /// A DS text that leaves the offset out: it is folded into `ADDR` ([`Form::Lds`]).
    pub ds_folded: bool,
}

/// The RDNA 3 / CDNA name of a memory family (RDNA 4's VGLOBAL, VSCRATCH and VFLAT are
/// GLOBAL, SCRATCH and FLAT with other field names).
pub(super) fn canonical(f: Family) -> Family {
    match f {
        Family::Vglobal => Family::Global,
        Family::Vscratch => Family::Scratch,
        Family::Vflat => Family::Flat,
        Family::Vbuffer => Family::Mubuf,
        f => f,
    }
}

/// The encoding's name for field `n` as this module names it (RDNA 3 / CDNA): RDNA 4 calls
/// the address VGPR `vaddr`, the store data `vsrc` and the immediate offset `ioffset`.
pub(super) fn field_name<'a>(has: &dyn Fn(&str) -> bool, n: &'a str) -> &'a str {
    match n {
        "addr" if !has("addr") && has("vaddr") => "vaddr",
        "data" if !has("data") && has("vsrc") => "vsrc",
        // MUBUF: `vdata` is the store data, the load destination and the atomic's operand.
        "data" | "vdst" if !has(n) && has("vdata") => "vdata",
        "offset" if !has("offset") && has("ioffset") => "ioffset",
        other => other,
    }
}

pub(super) fn sext(v: u64, bits: u32) -> i64 {
    ((v << (64 - bits)) as i64) >> (64 - bits)
}

/// Field `n` of `d` (RDNA 3 / CDNA spelling), 0 when absent.
fn field(d: &Decoded, n: &str) -> u64 {
    let in_word = |f: &str| d.inst.field(f).is_some();
    d.inst.field(field_name(&in_word, n)).unwrap_or(0)
}

/// The bits of an immediate VMEM/SMEM offset: RDNA 4's are 24-bit; RDNA 3's and CDNA's VMEM
/// offsets 13-bit, their SMEM offsets 21-bit.
fn offset_bits(d: &Decoded, smem: bool) -> u32 {
    match () {
        _ if d.inst.field("ioffset").is_some() => 24,
        _ if smem => 21,
        _ => 13,
    }
}

fn null(arch: Arch) -> u64 {
    super::state::null_code(arch).unwrap_or(u32::MAX) as u64
}

/// The left shift gfx1250's `scale_offset` bit applies to the register offset of a scalar
/// or flat-family access: log2 of the access size in bytes (LLVM sets the bit when it folds
/// `offset << log2(size)` into the address: `global_load_b32 v1, v0, s[4:5] scale_offset`
/// reads `s[4:5] + v0 * 4`). The register offset is SGPR `soffset` (SMEM), VGPR `vaddr`
/// with an SGPR base (GLOBAL, FLAT) and the `sve` VGPR (SCRATCH). An access with no such
/// register, or of a size that is not a power of two, is refused: what the bit does there
/// is not documented.
pub(super) fn scale_shift(d: &Decoded, arch: Arch) -> Result<u32, String> {
    if d.inst.field("scale_offset").unwrap_or(0) == 0 {
        return Ok(0);
    }
    let bytes = access_bytes(&d.facts);
    if !bytes.is_power_of_two() {
        return Err(format!(
            "scale_offset on a {bytes}-byte access is not modelled (no documented scale)"
        ));
    }
    let null = null(arch);
    let field = |n: &str| d.inst.field(n).unwrap_or(0);
    let has_register = match canonical(d.facts.family) {
        Family::Smem => field("soffset") != null && field("soffset") < 128,
        Family::Scratch => field("sve") == 1,
        _ => {
            let saddr = field("saddr");
            d.inst.field("saddr").is_some() && saddr != null && saddr != 0x7f
        }
    };
    if !has_register {
        return Err(
            "scale_offset without a register offset to scale (SMEM soffset, an SGPR base with \
             GLOBAL/FLAT, sve with SCRATCH) is not modelled"
                .to_string(),
        );
    }
    Ok(bytes.trailing_zeros())
}

/// The address form of a GLOBAL, FLAT or SCRATCH instruction (`family` canonical), its
/// `scale_offset` shift given.
pub(super) fn vmem_form(d: &Decoded, arch: Arch, family: Family, shift: u32) -> Form {
    let null = null(arch);
    let saddr = field(d, "saddr");
    // GFX9 (CDNA) FLAT-segment instructions ignore `saddr` (LLVM encodes 0 there,
    // which is `s[0:1]` to GLOBAL/SCRATCH): only GLOBAL and SCRATCH add it.
    let flat_ignores_saddr = family == Family::Flat && arch.is_gfx9();
    let saddr_on =
        d.inst.field("saddr").is_some() && saddr != null && saddr != 0x7f && !flat_ignores_saddr;
    let offset = sext(field(d, "offset"), offset_bits(d, false)) as u64;
    let vaddr = field(d, "addr") as u32;
    let saddr = saddr_on.then_some(saddr as u32);
    if family == Family::Scratch {
        let vgpr = field(d, "sve") == 1 || !saddr_on && d.inst.field("sve").is_none();
        Form::Scratch {
            vaddr,
            saddr,
            vgpr,
            offset,
            shift,
        }
    } else {
        Form::Global {
            vaddr,
            saddr,
            offset,
            shift,
        }
    }
}

impl Form {
    /// The one address of a scalar form.
    pub(super) fn scalar_address(&self, w: &WaveState) -> u64 {
        let Form::Scalar {
            sbase,
            imm,
            sgprs,
            shift,
        } = *self
        else {
            return 0;
        };
        let off = sgprs.iter().flatten().fold(imm, |off, &s| {
            off.wrapping_add((w.read_sgpr(s) as u64) << shift)
        });
        w.sgpr_pair(sbase).wrapping_add(off)
    }

    /// Lane `lane`'s address of a vector form (LDS: 32 bits; SCRATCH: a scratch-map key).
    pub(super) fn lane_address(&self, w: &WaveState, lane: u32) -> u64 {
        match *self {
            Form::Lds { vaddr, offset } => (w.vgpr(lane, vaddr) as u64 + offset) & 0xffff_ffff,
            Form::Global {
                vaddr,
                saddr: Some(s),
                offset,
                shift,
            } => w
                .sgpr_pair(s)
                .wrapping_add((w.vgpr(lane, vaddr) as u64) << shift)
                .wrapping_add(offset),
            Form::Global {
                vaddr,
                saddr: None,
                offset,
                ..
            } => (w.vgpr(lane, vaddr) as u64 | (w.vgpr(lane, vaddr + 1) as u64) << 32)
                .wrapping_add(offset),
            Form::Scratch {
                vaddr,
                saddr,
                vgpr,
                offset,
                shift,
            } => {
                let mut a = saddr.map_or(0, |s| w.read_sgpr(s) as u64);
                if vgpr {
                    a = a.wrapping_add((w.vgpr(lane, vaddr) as u64) << shift);
                }
                scratch_key(lane, a.wrapping_add(offset) as u32)
            }
            Form::Scalar { .. } => self.scalar_address(w),
            Form::Buffer(_) => 0,
        }
    }

    /// Every lane's address of a vector form.
    pub(super) fn lane_addresses(&self, w: &WaveState) -> Vec<u64> {
        (0..w.wave_size)
            .map(|lane| self.lane_address(w, lane))
            .collect()
    }
}

/// Whether the access of `n` bytes at `at` (LDS: a 32-bit address; scratch: the lane's byte
/// offset) passes the fault rule: global loads by `Bounds::global_readable` (by page, or by
/// declared bytes), global stores and atomics by mapped byte, LDS below the workgroup's
/// allocation, scratch below the lane's size.
pub(super) fn fits(b: &Bounds, space: Space, load_only: bool, at: u64, n: u64) -> bool {
    match space {
        Space::Global if load_only => b.global_readable(at, n),
        Space::Global => b.global_mapped(at, n),
        Space::Lds => at + n <= b.lds,
        Space::Scratch => at.saturating_add(n) <= b.scratch,
    }
}

/// Whether the bytes `lo..end`, holding every active lane's access, pass the fault rule as a
/// whole (then each lane's access does). False says nothing: the lane-by-lane check decides.
/// Scratch spans are left to it.
pub(super) fn span_fits(b: &Bounds, space: Space, load_only: bool, lo: u64, end: u64) -> bool {
    match space {
        Space::Global if load_only => b.global_span_readable(lo, end - lo),
        Space::Global => b.global_mapped(lo, end - lo),
        Space::Lds => end <= b.lds.min(1 << 32),
        Space::Scratch => false,
    }
}

/// Whether a DS instruction moves values between lanes and its offset is a pattern or
/// nothing (`ds_swizzle_b32`, `ds_permute_b32`, `ds_bpermute_b32`): no LDS byte is accessed.
fn is_lane_move(f: &InstFacts) -> bool {
    matches!(
        f.ds_lanes,
        DsLanes::Swizzle
            | DsLanes::Permute {
                fetch_inactive: false,
                ..
            }
    )
}

/// Whether a DS instruction's text leaves the encoding's offset out (it reads none of `OFFSET`,
/// `OFFSET0`, `OFFSET1`), so that ADDR must include it.
fn ds_offset_in_addr(e: &Entry, facts: &InstFacts) -> bool {
    let f = &e.prepared.function;
    !is_lane_move(facts)
        && ["OFFSET", "OFFSET0", "OFFSET1"]
            .iter()
            .all(|n| f.reg(n).is_none())
}

/// The byte ranges `(offset, bytes)` past its address that a DS instruction accesses.
fn ds_extents(f: &InstFacts, offset0: u64, offset1: u64) -> Vec<(u64, u64)> {
    let size = access_bytes(f);
    if f.ds_two > 0 {
        let stride = size * u64::from(f.ds_two);
        vec![(offset0 * stride, size), (offset1 * stride, size)]
    } else {
        vec![(offset0 | offset1 << 8, size)]
    }
}

/// The refusal of a MUBUF encoding, if it has one (the bits this model does not have).
fn buffer_refusal(d: &Decoded) -> Option<String> {
    if field(d, "tfe") == 1 {
        return Some("the tfe bit (a texture-fault status VGPR) is not modelled".into());
    }
    (field(d, "addr64") == 1).then(|| "the addr64 form (GFX6/7) is not modelled".into())
}

impl MemPlan {
    /// The plan of memory instruction `d` (its entry `e`) on `arch`.
    pub(super) fn build(e: &Entry, d: &Decoded, arch: Arch) -> MemPlan {
        let facts = &d.facts;
        let family = canonical(facts.family);
        let field = |n: &str| field(d, n);
        let listed = |n: &str| e.inst.operands.iter().any(|o| o.field == n);
        let has_op = |n: &str| listed(field_name(&listed, n));
        let size = access_bytes(facts);
        let mut refusals: Vec<String> = Vec::new();
        let shift = scale_shift(d, arch).unwrap_or_else(|why| {
            refusals.push(why);
            0
        });
        // The GDS forms address the device's global data share, which a dispatch of one
        // device's waves does not model (its contents and allocation belong to the driver).
        if family == Family::Ds && field("gds") == 1 {
            refusals.push(
                "the GDS form (gds bit set) addresses the global data share, which this model \
                 does not have (only the LDS form is modelled)"
                    .into(),
            );
        }
        let action = match facts.ds_lanes {
            DsLanes::Permute {
                backward,
                fetch_inactive: false,
            } => Action::Permute { backward },
            DsLanes::Permute { .. } => {
                refusals.push("not modelled yet".into());
                Action::Access
            }
            _ if facts.lds_transfer => {
                refusals.push("not modelled yet".into());
                Action::Access
            }
            DsLanes::Swizzle => Action::Swizzle,
            _ => Action::Access,
        };
        let ds_folded = family == Family::Ds && ds_offset_in_addr(e, facts);
        let ds_offset = field("offset0") | field("offset1") << 8;
        let form = match family {
            Family::Smem => scalar_form(d, arch),
            // The texts of the DS atomics read `MEM[ADDR]` without the instruction's offset
            // (the loads and stores add `OFFSET` themselves): it is folded into ADDR.
            Family::Ds => Form::Lds {
                vaddr: field("addr") as u32,
                offset: if ds_folded { ds_offset } else { 0 },
            },
            Family::Mubuf => {
                if let Some(why) = buffer_refusal(d) {
                    refusals.push(why);
                }
                Form::Buffer(buffer_form(d))
            }
            f => vmem_form(d, arch, f, shift),
        };
        let space = match family {
            Family::Ds => Space::Lds,
            Family::Scratch => Space::Scratch,
            _ => Space::Global,
        };
        let extents = if action == Action::Swizzle {
            // A lane swizzle: the offset is the pattern and no LDS byte is accessed.
            Vec::new()
        } else if family == Family::Ds && !ds_folded {
            ds_extents(facts, field("offset0"), field("offset1"))
        } else {
            vec![(0, size)]
        };
        let data = if has_op("data") { "data" } else { "data0" };
        let bind = Bind {
            data: field(data) as u32,
            data1: field("data1") as u32,
            vdata: if has_op("data") && !has_op("vdst") {
                field("data")
            } else {
                field("vdst")
            } as u32,
            vdst: field("vdst") as u32,
            sdata: field("sdata") as u32,
            addr: field("addr") as u32,
            offset: if family == Family::Ds {
                ds_offset
            } else {
                field("offset")
            },
            offset0: field("offset0"),
            offset1: field("offset1"),
        };
        let returns_data = facts.returns_data(|f| d.inst.field(f));
        let store_reg = if family == Family::Ds {
            Some(bind.data)
        } else {
            (has_op("data") && !has_op("vdst")).then_some(bind.data)
        };
        let plan = MemPlan {
            form,
            flat: family == Family::Flat,
            space,
            size,
            extents,
            load_only: facts.load_only,
            lane_serial: facts.lane_serial,
            action,
            refusal: (!refusals.is_empty()).then(|| refusals.remove(0)),
            bind,
            ret_vgpr: (has_op("vdst") && returns_data).then_some(bind.vdst),
            returns_data,
            track_stores: facts.stores
                && matches!(family, Family::Global | Family::Flat | Family::Mubuf),
            addr_bits: e
                .prepared
                .function
                .regs
                .iter()
                .find(|r| r.name == "ADDR")
                .map(|r| r.width),
            load_reg: if family == Family::Smem {
                Some(bind.sdata)
            } else {
                has_op("vdst").then_some(bind.vdst)
            },
            store_reg,
            text_offset: if family == Family::Ds && !ds_folded {
                ds_offset
            } else {
                0
            },
            ds_folded,
        };
        plan
    }
}

/// Checks every active lane's access against the launch's bounds by the fault rule
/// (`memory_plan::fits`): global loads by `Bounds::global_readable` (by page, or by declared
/// bytes), stores and atomics byte by byte, LDS and scratch below their sizes. The error
/// names the first failing lane.
pub(super) fn check_bounds(
    b: &super::state::Bounds,
    space: Space,
    d: &Decoded,
    addrs: &[u64],
    active: &dyn Fn(usize) -> bool,
    extents: &[(u64, u64)],
    load_only: bool,
) -> Result<(), WaveError> {
    for (lane, &a) in addrs.iter().enumerate() {
        if !active(lane) {
            continue;
        }
        for &(off, n) in extents {
            let at = match space {
                Space::Global => a.wrapping_add(off),
                Space::Lds => (a.wrapping_add(off)) & 0xffff_ffff,
                Space::Scratch => (a - lane as u64 * SCRATCH_LANE_SPAN).wrapping_add(off),
            };
            if !fits(b, space, load_only, at, n) {
                return Err(WaveError::MemoryFault {
                    addr: d.addr,
                    inst: d.inst.name.clone(),
                    space: space.name(),
                    address: at,
                    bytes: n,
                    lane: lane as u32,
                });
            }
        }
    }
    Ok(())
}

/// Whether the access of `name` is range-checked dword by dword (plain multi-dword loads and
/// stores) rather than all or nothing.
pub(super) fn per_dword(f: &InstFacts) -> bool {
    !f.atomic && f.refusal != Some(Refusal::BufferFormat) && access_bytes(f) > 4
}

/// The number of registers operand `field` of memory instruction `d` supplies to its address
/// on `arch`, as the plan's [`Form`] forms the address: 0 when the form does not read it
/// (buffer `off`, a scratch VGPR without SVE, a GFX9 FLAT `saddr`, an SMEM offset register
/// the `imm`/`soffset_en` bits leave out). `None` when `field` is not an address register
/// of `d` (data registers, the SMEM base pair, the buffer V#): its decoded size stands.
pub(crate) fn address_regs(d: &Decoded, arch: Arch, field_name: &str) -> Option<u32> {
    let family = canonical(d.facts.family);
    let form = match family {
        Family::Global | Family::Flat | Family::Scratch => {
            vmem_form(d, arch, family, scale_shift(d, arch).unwrap_or(0))
        }
        Family::Smem => scalar_form(d, arch),
        // MTBUF forms its address as MUBUF does (the plan refuses it for its format).
        Family::Mubuf | Family::Mtbuf => Form::Buffer(buffer_form(d)),
        _ => return None,
    };
    let vaddr = matches!(field_name, "addr" | "vaddr");
    match form {
        Form::Global { saddr, .. } if vaddr => Some(if saddr.is_some() { 1 } else { 2 }),
        Form::Global { saddr, .. } if field_name == "saddr" => Some(2 * saddr.is_some() as u32),
        Form::Scratch { vgpr, .. } if vaddr => Some(vgpr as u32),
        Form::Scratch { saddr, .. } if field_name == "saddr" => Some(saddr.is_some() as u32),
        Form::Buffer(b) if field_name == "vaddr" => Some(b.offen as u32 + b.idxen as u32),
        Form::Scalar { sgprs, .. } => {
            // GFX9 (CDNA): `offset` may name the first offset SGPR, `soffset` the second.
            let gfx9 = d.inst.field("soffset_en").is_some();
            let slot = match field_name {
                "offset" if gfx9 => 0,
                "soffset" if gfx9 => 1,
                "soffset" => 0,
                _ => return None,
            };
            Some(sgprs[slot].is_some() as u32)
        }
        _ => None,
    }
}

/// The address form of an SMEM instruction (the SGPR base pair, immediate and offset
/// SGPRs): GFX9 (CDNA) `imm` selects the 21-bit offset, else its low bits name an SGPR
/// (unless `soffset_en` supplies the SGPR instead); `soffset_en` adds SGPR[soffset].
fn scalar_form(d: &Decoded, arch: Arch) -> Form {
    let field = |n: &str| field(d, n);
    if d.inst.field("soffset_en").is_some() {
        let imm = field("imm") == 1;
        let en = field("soffset_en") == 1;
        return Form::Scalar {
            sbase: field("sbase") as u32 * 2,
            imm: if imm {
                sext(field("offset"), 21) as u64
            } else {
                0
            },
            sgprs: [
                (!imm && !en).then_some(field("offset") as u32 & 0x7f),
                en.then_some(field("soffset") as u32),
            ],
            shift: 0,
        };
    }
    let soff = field("soffset");
    let named = d.inst.field("soffset").is_some() && soff != null(arch) && soff < 128;
    Form::Scalar {
        sbase: field("sbase") as u32 * 2,
        imm: sext(field("offset"), offset_bits(d, true)) as u64,
        sgprs: [named.then_some(soff as u32), None],
        shift: scale_shift(d, arch).unwrap_or(0),
    }
}

/// The encoding's part of a MUBUF address.
fn buffer_form(d: &Decoded) -> BufferForm {
    let field = |n: &str| field(d, n);
    // RDNA 4's VBUFFER names the V#'s first SGPR (`rsrc`) and has a 24-bit offset; MUBUF names
    // the SGPR quad (`srsrc`, in fours) and has a 12-bit one.
    let (srsrc, offset_mask) = match d.inst.field("rsrc") {
        Some(r) => (r as u32, 0xff_ffff),
        None => (field("srsrc") as u32 * 4, 0xfff),
    };
    BufferForm {
        srsrc,
        vaddr: field("vaddr") as u32,
        offen: field("offen") == 1,
        idxen: field("idxen") == 1,
        soffset: match field("soffset") as u32 {
            c @ 0..=127 => Ok(SOffset::Sgpr(c)),
            c @ 128..=192 => Ok(SOffset::Const((c - 128) as u64)),
            c => Err(c),
        },
        offset: field("offset") & offset_mask,
        step: if per_dword(&d.facts) {
            4
        } else {
            access_bytes(&d.facts)
        },
    }
}
