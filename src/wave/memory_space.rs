//! The facts about memory both the general memory path (`memory`) and buffer addressing
//! (`memory_buffer`) use: element sizes, the scratch map's layout and the address spaces.

/// The number of bytes one element of a load, store or atomic accesses, from its name
/// (RDNA `_B32`/`_U16`/... and CDNA `_DWORDX2`/`_UBYTE`/... spellings).
pub(super) fn access_bytes(name: &str) -> u64 {
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
#[derive(Clone, Copy, PartialEq, Eq)]
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
