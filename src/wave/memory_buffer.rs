//! MUBUF buffer addressing: the buffer resource (V#) in four SGPRs, the address each lane
//! forms from it and the ISA's range check. AMD's CDNA text computes the address with
//! `addr = CalcBufferAddr(VADDR, SRSRC, SOFFSET, OFFSET)` (RDNA 3's reads `ADDR`); the
//! lowering reads that call as the `ADDR` operand, which `memory::execute` binds from
//! [`addresses`], as it does for the GLOBAL, FLAT and SCRATCH helpers.
//!
//! The rules (AMD's GCN/Vega/CDNA and RDNA ISA guides, "Buffer Instructions"):
//! - V#: base = bits 47:0, stride = bits 61:48, swizzle_enable = bit 63 (GFX9, GFX10; GFX11
//!   has a two-bit field at 63:62), num_records = bits 95:64, index_stride = bits 118:117
//!   (8, 16, 32 or 64 lanes), add_tid_enable = bit 119, and on GFX10+ OOB_SELECT = bits
//!   125:124. The swizzle element is 4 bytes (the ELEMENT_SIZE field is not used on GFX9+).
//! - index = (idxen ? VGPR[vaddr] : 0) + (add_tid_enable ? lane : 0); offset = (offen ?
//!   VGPR[vaddr + idxen] : 0) + the instruction's 12-bit offset.
//! - unswizzled: buffer_offset = index * stride + offset; swizzled: with
//!   index = index_msb * index_stride + index_lsb and offset = offset_msb * 4 + offset_lsb,
//!   buffer_offset = (index_msb * stride + offset_msb * 4) * index_stride + index_lsb * 4 +
//!   offset_lsb.
//! - address = base + SGPR[soffset] + buffer_offset.
//! - range (GFX9): add_tid without idxen (scratch) is not checked; a structured buffer
//!   (idxen, stride != 0, no add_tid) is out of range when index >= num_records; a raw buffer
//!   (no idxen, no swizzle, no add_tid) when the offset of the dword (offset + 4 * i, soffset
//!   not included) >= num_records. GFX10+ select the rule by OOB_SELECT: 0 structured with
//!   the offset checked against the stride, 1 structured, 2 none, 3 raw.
//! - out of range: loads return 0, stores write nothing; multi-dword loads and stores are
//!   checked dword by dword, other accesses (bytes, shorts, atomics) all or nothing.
//!
//! A V# whose address falls in [`SCRATCH_BUFFER_BASE`, + 1 TiB) addresses the wave's
//! scratch (the loader's scratch V# has that base; the private aperture of FLAT addresses lies
//! above the 48 bits a V# base holds). Scratch is swizzled by the hardware with 4-byte elements across the wave's lanes, so the wave's
//! scratch byte `x` is lane `(x / 4) % wave` 's byte `x / (4 * wave) * 4 + x % 4`, the same
//! bytes a FLAT access through the private aperture names: the two views share one memory.

use super::memory_plan::{fits, BufferForm, MemPlan, SOffset};
use super::memory_space::{scratch_key, Space, SCRATCH_LANE_SPAN};
use super::state::WaveState;
use super::{Decoded, WaveError};
use crate::spec::Family;

/// A buffer resource as the address unit reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Resource {
    pub base: u64,
    pub stride: u64,
    pub swizzle: bool,
    pub num_records: u64,
    /// Lanes per swizzle row (8, 16, 32, 64).
    pub index_stride: u64,
    pub add_tid: bool,
    /// The range rule.
    pub range: Range,
}

/// Which accesses of a buffer are out of range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Range {
    /// No check (scratch).
    None,
    /// Out of range when index >= num_records.
    Index,
    /// Out of range when index >= num_records or the offset >= stride (GFX10+ OOB_SELECT 0).
    IndexAndStride,
    /// Out of range when the dword's offset >= num_records.
    Offset,
}

impl Resource {
    /// Decodes the four words of a V# for `family`, with the fields `idxen` of the
    /// instruction (GFX9 picks the range rule from them).
    pub fn decode(v: [u32; 4], family: Family, idxen: bool) -> Result<Resource, String> {
        let base = v[0] as u64 | ((v[1] & 0xffff) as u64) << 32;
        let stride = ((v[1] >> 16) & 0x3fff) as u64;
        let swizzle = match family {
            Family::Gfx9 | Family::Gfx10 => v[1] >> 31 == 1,
            // GFX12 keeps GFX11's base, stride, swizzle, record count, index stride, add_tid and
            // OOB_SELECT fields; only its format field (not read here) is narrower.
            Family::Gfx11 | Family::Gfx12 => {
                if v[1] >> 30 != 0 {
                    return Err("swizzled buffers (V# swizzle_enable) on GFX11 and GFX12".into());
                }
                false
            }
            _ => return Err("the GFX12.5 (gfx1250) buffer resource layout".into()),
        };
        let num_records = v[2] as u64;
        let index_stride = 8 << ((v[3] >> 21) & 3);
        let add_tid = v[3] >> 23 & 1 == 1;
        let range = if family == Family::Gfx9 {
            match (add_tid, idxen, swizzle, stride) {
                (true, false, _, _) => Range::None,
                (false, true, _, s) if s != 0 => Range::Index,
                (false, false, false, _) => Range::Offset,
                _ => {
                    return Err(format!(
                        "the range rule of a GFX9 V# with add_tid_enable={}, idxen={}, \
                         swizzle_enable={} and stride {stride} (the ISA defines scratch, \
                         structured and raw buffers only)",
                        add_tid as u8, idxen as u8, swizzle as u8
                    ))
                }
            }
        } else {
            match (v[3] >> 28) & 3 {
                0 => Range::IndexAndStride,
                1 => Range::Index,
                2 => Range::None,
                _ => Range::Offset,
            }
        };
        Ok(Resource {
            base,
            stride,
            swizzle,
            num_records,
            index_stride,
            add_tid,
            range,
        })
    }

    /// The byte offset into the buffer of `index` and `offset`.
    pub fn buffer_offset(&self, index: u64, offset: u64) -> u64 {
        if self.swizzle {
            let (index_msb, index_lsb) = (index / self.index_stride, index % self.index_stride);
            let (offset_msb, offset_lsb) = (offset / 4, offset % 4);
            (index_msb * self.stride + offset_msb * 4) * self.index_stride
                + index_lsb * 4
                + offset_lsb
        } else {
            index * self.stride + offset
        }
    }

    /// Whether the access of the dword at `offset` (of an access at `index`) is in range.
    pub fn in_range(&self, index: u64, offset: u64) -> bool {
        match self.range {
            Range::None => true,
            Range::Index => index < self.num_records,
            Range::IndexAndStride => index < self.num_records && offset < self.stride,
            Range::Offset => offset < self.num_records,
        }
    }
}

/// The 48-bit buffer address of the wave's scratch: the base of the loader's scratch V#. The
/// terabyte above it is reserved (like the loader's other ranges at 0x7f00_0000_0000 and up):
/// a buffer access there addresses the wave's scratch.
pub const SCRATCH_BUFFER_BASE: u64 = 0x7e00_0000_0000;

/// The bytes above [`SCRATCH_BUFFER_BASE`] that address scratch.
const SCRATCH_BUFFER_SPAN: u64 = 1 << 40;

/// The scratch buffer resource the loader gives a kernel that enables the private segment
/// buffer (as the HSA runtime's): base = [`SCRATCH_BUFFER_BASE`] (the wave's scratch), stride 0,
/// swizzle_enable, num_records = 4 GiB - 1, index stride = the wave size, add_tid_enable, and
/// (GFX10+) OOB_SELECT 2 (no range check; on GFX9 add_tid without idxen is not checked).
pub fn scratch_resource(arch: crate::spec::Arch, wave_size: u32) -> [u32; 4] {
    let index_stride = if wave_size == 64 { 3 } else { 2 };
    let oob_select = if arch.is_gfx9() { 0 } else { 2 << 28 };
    [
        SCRATCH_BUFFER_BASE as u32,
        (SCRATCH_BUFFER_BASE >> 32) as u32 | 1 << 31,
        u32::MAX,
        index_stride << 21 | 1 << 23 | oob_select,
    ]
}

/// Where a MUBUF instruction's lanes access.
pub(super) struct Lanes {
    /// Global memory or the wave's scratch (every lane the same).
    pub space: Space,
    /// Each lane's address: a global address or a scratch-map key.
    pub addrs: Vec<u64>,
    /// Each lane's bytes in range, from the start of its access (0 ..= the access size).
    pub in_range: Vec<u64>,
}

/// The address of each lane of a MUBUF instruction (the encoding's part of it in `form`, an
/// access of `size` bytes) and the bytes of its access in range.
pub(super) fn addresses(
    d: &Decoded,
    form: &BufferForm,
    size: u64,
    w: &WaveState,
) -> Result<Lanes, WaveError> {
    let refuse = |reason: String| WaveError::Unsupported {
        addr: d.addr,
        inst: d.inst.name.clone(),
        reason,
    };
    let words = [0, 1, 2, 3].map(|i| w.read_sgpr(form.srsrc + i));
    let (offen, idxen) = (form.offen, form.idxen);
    let res = Resource::decode(words, w.arch.family(), idxen)
        .map_err(|what| refuse(format!("{what} is not modelled")))?;
    let soffset = match form.soffset {
        Ok(SOffset::Sgpr(c)) => w.read_sgpr(c) as u64,
        Ok(SOffset::Const(v)) => v,
        Err(c) => return Err(refuse(format!("soffset operand code {c} is not modelled"))),
    };
    let vaddr = form.vaddr;
    let inst_offset = form.offset;
    let step = form.step;
    let exec = w.exec() & w.full_mask();
    let private = res.base.wrapping_sub(SCRATCH_BUFFER_BASE) < SCRATCH_BUFFER_SPAN;
    if res.swizzle && !private && size > 4 {
        // Each dword of the access has its own swizzled address; AMD's text reads one
        // contiguous range.
        return Err(refuse(
            "a multi-dword access to a swizzled global buffer is not modelled".into(),
        ));
    }
    let lanes = w.wave_size as u64;
    let mut out = Lanes {
        space: if private {
            Space::Scratch
        } else {
            Space::Global
        },
        addrs: Vec::with_capacity(lanes as usize),
        in_range: Vec::with_capacity(lanes as usize),
    };
    for lane in 0..w.wave_size {
        let mut index = if idxen { w.vgpr(lane, vaddr) as u64 } else { 0 };
        if res.add_tid {
            index += lane as u64;
        }
        let voffset = if offen {
            w.vgpr(lane, vaddr + idxen as u32) as u64
        } else {
            0
        };
        let offset = voffset + inst_offset;
        let at = res
            .base
            .wrapping_add(soffset)
            .wrapping_add(res.buffer_offset(index, offset));
        let mut bytes = 0;
        while bytes < size && res.in_range(index, offset + bytes) {
            bytes += step;
        }
        out.in_range.push(bytes.min(size));
        out.addrs.push(if private {
            // The wave's scratch byte `x` in the hardware's swizzled layout.
            let x = at.wrapping_sub(SCRATCH_BUFFER_BASE);
            let owner = x / 4 % lanes;
            let byte = x / (4 * lanes) * 4 + x % 4;
            if exec >> lane & 1 == 1 && byte > u32::MAX as u64 {
                return Err(refuse(format!(
                    "lane {lane} addresses scratch byte 0x{byte:x} of lane {owner}, past 4 GiB"
                )));
            }
            scratch_key(owner as u32, byte as u32)
        } else {
            at
        });
    }
    Ok(out)
}

/// Checks each active lane's in-range bytes against the launch's bounds (global: as
/// `memory::check_bounds` does; scratch: the owning lane's bytes below the scratch size).
pub(super) fn check_bounds(
    b: &super::state::Bounds,
    space: Space,
    d: &Decoded,
    addrs: &[u64],
    exec: u64,
    in_range: &[u64],
    load_only: bool,
) -> Result<(), WaveError> {
    for (lane, (&a, &n)) in addrs.iter().zip(in_range).enumerate() {
        if exec >> lane & 1 == 0 || n == 0 {
            continue;
        }
        let at = match space {
            Space::Scratch => a % SCRATCH_LANE_SPAN,
            _ => a,
        };
        let space = if space == Space::Scratch {
            Space::Scratch
        } else {
            Space::Global
        };
        if !fits(b, space, load_only, at, n) {
            return Err(WaveError::MemoryFault {
                addr: d.addr,
                inst: d.inst.name.clone(),
                space: if space == Space::Scratch {
                    "scratch"
                } else {
                    "global"
                },
                address: at,
                bytes: n,
                lane: lane as u32,
            });
        }
    }
    Ok(())
}

/// The lanes of a buffer access that did not run AMD's text because part or all of their
/// access is out of range: a load returns zeros for the out-of-range dwords (and the in-range
/// ones of a multi-dword load), a store writes its in-range dwords only, an atomic does
/// nothing and, when it returns data, returns zero (the read of an out-of-range address).
/// D16 loads zero only the half they write.
pub(super) fn finish(
    d: &Decoded,
    plan: &MemPlan,
    w: &mut WaveState,
    space: Space,
    addrs: &[u64],
    exec: u64,
    in_range: &[u64],
) {
    let f = &d.facts;
    let size = plan.size;
    let returns_data = plan.returns_data;
    let vdata = plan.bind.vdst;
    let atomic = f.atomic;
    let load = f.load_only;
    let store = f.stores && !atomic;
    for lane in 0..w.wave_size {
        let l = lane as usize;
        let n = in_range[l];
        if exec >> lane & 1 == 0 || n == size {
            continue;
        }
        let mut bytes = [0u8; 16];
        if load || atomic && returns_data {
            if load && n > 0 {
                let mem = if space == Space::Scratch {
                    &w.scratch
                } else {
                    &w.memory
                };
                mem.read(addrs[l], &mut bytes[..n as usize]);
                log(w, space, lane, addrs[l], n);
            }
            if f.d16 {
                let keep = if f.d16_hi { 0xffff } else { 0xffff_0000 };
                let v = w.vgpr(lane, vdata) & keep;
                w.set_vgpr(lane, vdata, v);
            } else {
                for i in 0..size.div_ceil(4) as u32 {
                    let at = 4 * i as usize;
                    let word = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
                    w.set_vgpr(lane, vdata + i, word);
                }
            }
        } else if store && n > 0 {
            for i in 0..n.div_ceil(4) as u32 {
                let at = 4 * i as usize;
                bytes[at..at + 4].copy_from_slice(&w.vgpr(lane, vdata + i).to_le_bytes());
            }
            let data = &bytes[..n as usize];
            if space == Space::Scratch {
                w.scratch.write(addrs[l], data);
            } else {
                w.memory.write(addrs[l], data);
                if w.track_writes {
                    for (i, &v) in data.iter().enumerate() {
                        w.written.insert(addrs[l].wrapping_add(i as u64), v);
                    }
                }
            }
            log(w, space, lane, addrs[l], n);
        }
    }
}

fn log(w: &mut WaveState, space: Space, lane: u32, addr: u64, bytes: u64) {
    if let Some(log) = w.last_access.as_mut() {
        log.push(super::state::MemAccess {
            space: if space == Space::Scratch {
                super::state::MemSpace::Scratch
            } else {
                super::state::MemSpace::Global
            },
            lane,
            addr,
            bytes,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(base: u64, stride: u32, swizzle: bool, records: u32, word3: u32) -> [u32; 4] {
        [
            base as u32,
            (base >> 32) as u32 & 0xffff | stride << 16 | (swizzle as u32) << 31,
            records,
            word3,
        ]
    }

    #[test]
    fn raw_buffer_offsets_and_dword_range() {
        let r = Resource::decode(v(0x1_0000_1000, 0, false, 10, 0), Family::Gfx9, false).unwrap();
        assert_eq!(r.base, 0x1_0000_1000);
        assert_eq!(r.range, Range::Offset);
        assert_eq!(r.buffer_offset(0, 12), 12);
        assert!(r.in_range(0, 9));
        assert!(!r.in_range(0, 10));
    }

    #[test]
    fn structured_buffer_checks_the_index() {
        let r = Resource::decode(v(0x2000, 16, false, 4, 0), Family::Gfx9, true).unwrap();
        assert_eq!(r.range, Range::Index);
        assert_eq!(r.buffer_offset(3, 4), 52);
        assert!(r.in_range(3, 1000));
        assert!(!r.in_range(4, 0));
    }

    #[test]
    fn scratch_swizzle_interleaves_dwords_by_lane() {
        // The dispatcher's scratch V#: swizzled, add_tid, index stride 64 lanes.
        let r = Resource::decode(
            v(SCRATCH_BUFFER_BASE, 0, true, u32::MAX, 3 << 21 | 1 << 23),
            Family::Gfx9,
            false,
        )
        .unwrap();
        assert_eq!(r.range, Range::None);
        assert_eq!(r.index_stride, 64);
        // Lane 5's byte 9 (dword 2, byte 1): row 2 of 64 dwords, column 5.
        assert_eq!(r.buffer_offset(5, 9), 2 * 256 + 5 * 4 + 1);
        // GFX10 index stride 32 (wave32) with OOB_SELECT 2.
        let r = Resource::decode(
            v(
                SCRATCH_BUFFER_BASE,
                0,
                true,
                u32::MAX,
                2 << 21 | 1 << 23 | 2 << 28,
            ),
            Family::Gfx10,
            false,
        )
        .unwrap();
        assert_eq!(r.range, Range::None);
        assert_eq!(r.buffer_offset(31, 4), 128 + 31 * 4);
    }

    #[test]
    fn undefined_gfx9_range_combinations_are_refused() {
        // Swizzled without add_tid and without an index: not one of the ISA's buffer kinds.
        assert!(Resource::decode(v(0, 0, true, 1, 0), Family::Gfx9, false).is_err());
        assert!(Resource::decode(v(0, 0, false, 1, 0), Family::Gfx11, false).is_ok());
        assert!(Resource::decode(v(0, 0, false, 1, 1 << 30), Family::Gfx11, false).is_ok());
        assert!(Resource::decode([0, 1 << 30, 0, 0], Family::Gfx11, false).is_err());
    }

    #[test]
    fn gfx10_range_rule_from_oob_select() {
        for (sel, range) in [
            (0, Range::IndexAndStride),
            (1, Range::Index),
            (2, Range::None),
            (3, Range::Offset),
        ] {
            let r = Resource::decode(v(0, 8, false, 4, sel << 28), Family::Gfx10, true).unwrap();
            assert_eq!(r.range, range);
        }
        let r = Resource::decode(v(0, 8, false, 4, 0), Family::Gfx10, true).unwrap();
        assert!(r.in_range(3, 7));
        assert!(!r.in_range(3, 8));
        assert!(!r.in_range(4, 0));
    }
}
