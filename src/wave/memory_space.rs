//! The facts about memory both the general memory path (`memory`) and buffer addressing
//! (`memory_buffer`) use: element sizes, the scratch map's layout and the address spaces.

use crate::machine::InstFacts;

/// The number of bytes one element of a load, store or atomic accesses (the facts' `bytes`).
pub(super) fn access_bytes(f: &InstFacts) -> u64 {
    u64::from(f.bytes)
}

/// The bytes of scratch each lane has room for in the scratch map: lane `l`'s byte `a` is
/// kept at `l * SCRATCH_LANE_SPAN + a`. AMD's scratch entries address `MEM[ADDR]` with a
/// 32-bit ADDR, and 64 lanes of 64 MiB fill exactly 32 bits, so the key survives the text's
/// truncation; launches with more scratch per lane are refused, and a launch's bounds keep
/// every access below its scratch size.
pub const SCRATCH_LANE_SPAN: u64 = 64 << 20;

/// The scratch-map key of lane `lane`'s scratch byte `offset`.
pub(super) fn scratch_key(lane: u32, offset: u32) -> u64 {
    lane as u64 * SCRATCH_LANE_SPAN + offset as u64
}

/// The memory an instruction addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Space {
    Global,
    Lds,
    Scratch,
}

impl Space {
    pub(super) fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Lds => "LDS",
            Space::Scratch => "scratch",
        }
    }
}

/// The memory flat address `a` addresses on `arch`: the shared aperture is LDS, the private
/// aperture (gfx1250: the window from its flat scratch base) the lane's scratch, anything
/// else global memory. Each aperture is one contiguous window of addresses.
pub(super) fn aperture(arch: crate::spec::Arch, a: u64) -> Space {
    use super::state::{FLAT_SCRATCH_BASE, PRIVATE_APERTURE, SHARED_APERTURE};
    let gfx1250 = arch == crate::spec::Arch::Cdna5;
    match a >> 32 {
        x if x == SHARED_APERTURE >> 32 => Space::Lds,
        _ if gfx1250 && a.wrapping_sub(FLAT_SCRATCH_BASE) >> 57 == 0 => Space::Scratch,
        x if x == PRIVATE_APERTURE >> 32 && !gfx1250 => Space::Scratch,
        _ => Space::Global,
    }
}
