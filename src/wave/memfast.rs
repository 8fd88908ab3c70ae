//! The plain loads and stores (`GLOBAL_LOAD_B32`..`B128`, `GLOBAL_STORE_B*`,
//! `S_LOAD_B32`..`B512`, `DS_LOAD_B*`/`DS_STORE_B*`, and CDNA's and GFX10's
//! `GLOBAL_LOAD_DWORD*`, `S_LOAD_DWORD*`, `DS_READ_B*`/`DS_WRITE_B*`) done directly on the wave's memory and
//! registers, without binding and running their pseudocode. Their texts are one
//! `MEM[ADDR + k].b32` per 32-bit word (`ADDR + OFFSET.u32 + k` for DS); the executors apply
//! a store's words lane by lane in lane order (all of lane 0's words, then lane 1's), and so
//! does this, so overlapping lanes end the same way. `Executor::memory_fast_path` turns it off
//! (`tests/dispatch_memory_paths.rs` compares both ways).

use super::state::{WaveState, LANE_SLOTS};
use crate::machine::{Family, InstFacts};
use crate::sparse::{SparseMemory, PAGE};

/// What one plain access does.
#[derive(Clone, Copy, Debug)]
pub(super) enum Plain {
    /// `VDATA`/`RETURN_DATA` = `words` words at each active lane's address.
    Load { words: u32 },
    /// `words` words of the data VGPRs to each active lane's address.
    Store { words: u32 },
    /// `SDATA` = `words` words at the one address.
    ScalarLoad { words: u32 },
}

/// The plain access an instruction (its facts `f`) is, if it is one.
pub(super) fn classify(f: &InstFacts) -> Option<Plain> {
    // DS two-address forms have their own plan (`memprep`).
    if f.plain_words == 0 || f.ds_two > 0 {
        return None;
    }
    let words = u32::from(f.plain_words);
    let scalar = match f.family {
        Family::Smem => true,
        Family::Global
        | Family::Vglobal
        | Family::Ds
        | Family::Flat
        | Family::Vflat
        | Family::Scratch
        | Family::Vscratch => false,
        _ => return None,
    };
    if words > 4 && !scalar {
        return None;
    }
    match (f.load_only, f.stores, scalar) {
        (true, _, true) => Some(Plain::ScalarLoad { words }),
        (true, _, false) => Some(Plain::Load { words }),
        (false, true, false) => Some(Plain::Store { words }),
        _ => None,
    }
}

/// Where the access goes: the address of each lane, the constant added to it (DS `OFFSET`),
/// and the width of the text's `ADDR` (sums wrap there).
pub(super) struct Access<'a> {
    pub addrs: &'a [u64],
    pub offset: u64,
    pub addr_bits: u32,
    pub exec: u64,
    /// The destination (loads: VGPR or SGPR) or source (stores: VGPR) register.
    pub reg: u32,
}

/// Runs the access on `mem` and the wave's registers. Returns false (having changed nothing)
/// when an address sum would wrap, which the caller leaves to the pseudocode.
pub(super) fn run(kind: Plain, w: &mut WaveState, mem: Mem, a: &Access<'_>) -> bool {
    row(kind, w, mem, a) || run_lanes(kind, w, mem, a)
}

/// [`run`] lane by lane (no row).
pub(super) fn run_lanes(kind: Plain, w: &mut WaveState, mem: Mem, a: &Access<'_>) -> bool {
    let mask = if a.addr_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << a.addr_bits) - 1
    };
    let words = match kind {
        Plain::Load { words } | Plain::Store { words } | Plain::ScalarLoad { words } => words,
    };
    let last = 4 * words as u64 - 4;
    let wraps = |x: u64| {
        x.checked_add(a.offset)
            .and_then(|s| s.checked_add(last))
            .is_none_or(|s| s > mask)
    };
    let active = |lane: usize| a.exec >> lane & 1 == 1;
    let lanes = a.addrs.len();
    if a.addrs
        .iter()
        .enumerate()
        .any(|(l, &x)| (matches!(kind, Plain::ScalarLoad { .. }) || active(l)) && wraps(x))
    {
        return false;
    }
    let at = |x: u64, i: u32| x + a.offset + 4 * i as u64;
    match kind {
        Plain::ScalarLoad { words } => {
            // The words are consecutive and their sums do not wrap (checked above): one read.
            let mut vals = [0u32; 16];
            let n = words.min(16);
            mem.get(w)
                .read_u32s_into(at(a.addrs[0], 0), &mut vals[..n as usize]);
            for (i, &v) in (0..n).zip(&vals) {
                w.write_sgpr(a.reg + i, v);
            }
        }
        Plain::Load { words } => {
            // Memory is not a register: reading each lane's words and writing them to the
            // VGPRs lane by lane ends the same as reading every word first.
            let (m, vgpr) = match mem {
                Mem::Global => (&w.memory, &mut w.vgpr),
                Mem::Lds => (&w.lds, &mut w.vgpr),
                Mem::Scratch => (&w.scratch, &mut w.vgpr),
            };
            let mut reader = Reader::new(m);
            for lane in 0..lanes {
                if active(lane) {
                    for i in 0..words.min(4) {
                        let v = reader.read(at(a.addrs[lane], i));
                        if let Some(slot) = vgpr.get_mut((a.reg + i) as usize * LANE_SLOTS + lane) {
                            *slot = v;
                        }
                    }
                }
            }
        }
        Plain::Store { words } => {
            // The words in the order the executors write them (lane by lane), with one page
            // lookup per run of words in a page.
            let (m, vgpr) = match mem {
                Mem::Global => (&mut w.memory, &w.vgpr),
                Mem::Lds => (&mut w.lds, &w.vgpr),
                Mem::Scratch => (&mut w.scratch, &w.vgpr),
            };
            let value = |lane: usize, i: u32| {
                vgpr.get((a.reg + i) as usize * LANE_SLOTS + lane)
                    .copied()
                    .unwrap_or(0)
            };
            m.write_u32s((0..lanes).filter(|&l| active(l)).flat_map(|lane| {
                (0..words.min(4)).map(move |i| (at(a.addrs[lane], i), value(lane, i)))
            }));
        }
    }
    true
}

/// The lanes of a row access (see [`row`]): the first and last active lane and the address
/// of the first one's first byte, when every active lane `l` accesses the `size` bytes at
/// `first + size * (l - first_lane)` with no sum wrapping (and, with `contiguous`, the active
/// lanes are one run). The access's `ADDR` width is checked too: then no lane's sum wraps
/// there either.
pub(super) fn row_span(a: &Access<'_>, size: u64, contiguous: bool) -> Option<(usize, usize, u64)> {
    let lanes = a.addrs.len().min(64);
    let exec = a.exec
        & if lanes >= 64 {
            u64::MAX
        } else {
            (1u64 << lanes) - 1
        };
    if exec == 0 {
        return None;
    }
    let l0 = exec.trailing_zeros() as usize;
    let l1 = 63 - exec.leading_zeros() as usize;
    if contiguous && (exec >> l0).count_ones() as usize != l1 - l0 + 1 {
        return None;
    }
    let base = a.addrs[l0];
    let lanes = &a.addrs[l0..=l1];
    let run = u64::MAX >> (63 - (l1 - l0));
    let same = if (exec >> l0) & run == run {
        // Every lane between active (the common case): neighbours `size` apart.
        lanes
            .windows(2)
            .fold(true, |same, p| same & (p[1].wrapping_sub(p[0]) == size))
    } else {
        let mut same = true;
        for (k, &x) in lanes.iter().enumerate() {
            let inactive = exec >> (l0 + k) & 1 == 0;
            same &= inactive | (x == base.wrapping_add(size * k as u64));
        }
        same
    };
    // The last byte of the last lane, without wrapping (so no sum in between wraps).
    let last = base
        .checked_add(size * (l1 - l0) as u64)?
        .checked_add(a.offset)?
        .checked_add(size - 1)?;
    let mask = if a.addr_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << a.addr_bits) - 1
    };
    (same && last <= mask).then_some((l0, l1, base + a.offset))
}

/// A plain vector load or store whose active lanes access consecutive elements (lane `l`'s
/// words right after lane `l - 1`'s) done as one read or write of the words from the first
/// active lane's to the last's: the same bytes as lane by lane, since the elements do not
/// overlap. A store needs the active lanes to be one run (no inactive lane's element lies
/// between); a load reads the elements of inactive lanes between and drops them (reading
/// has no effect). False, having done nothing, when the access is not such a row, a sum
/// wraps, or a register it names lies past the file (the lane-by-lane path then decides).
fn row(kind: Plain, w: &mut WaveState, mem: Mem, a: &Access<'_>) -> bool {
    let (words, store) = match kind {
        Plain::Load { words } => (words.min(4) as usize, false),
        Plain::Store { words } => (words.min(4) as usize, true),
        Plain::ScalarLoad { .. } => return false,
    };
    match row_span(a, 4 * words as u64, store) {
        Some(span) => row_at(kind, w, mem, a, span),
        None => false,
    }
}

/// [`row`] of the span `row_span` gave (false, having done nothing, when a register the
/// access names lies past the file).
pub(super) fn row_at(
    kind: Plain,
    w: &mut WaveState,
    mem: Mem,
    a: &Access<'_>,
    (l0, l1, first): (usize, usize, u64),
) -> bool {
    let (words, store) = match kind {
        Plain::Load { words } => (words.min(4) as usize, false),
        Plain::Store { words } => (words.min(4) as usize, true),
        Plain::ScalarLoad { .. } => return false,
    };
    if (a.reg as usize + words) * LANE_SLOTS > w.vgpr.len() {
        return false;
    }
    let (memory, vgpr) = match mem {
        Mem::Global => (&mut w.memory, &mut w.vgpr),
        Mem::Lds => (&mut w.lds, &mut w.vgpr),
        Mem::Scratch => (&mut w.scratch, &mut w.vgpr),
    };
    let reg = a.reg as usize * LANE_SLOTS;
    let n = l1 - l0 + 1;
    let run = (u64::MAX >> (64 - n)) << l0;
    if words == 1 && a.exec & run == run {
        // Every lane of the run active: the row's words are one slice of the VGPR.
        let lanes = &mut vgpr[reg + l0..reg + l0 + n];
        if store {
            memory.write_u32s_from(first, lanes);
        } else {
            memory.read_u32s_into(first, lanes);
        }
        return true;
    }
    let mut buf = [0u32; 256];
    let buf = &mut buf[..n * words];
    if store {
        for (k, v) in buf.iter_mut().enumerate() {
            *v = vgpr[reg + (k % words) * LANE_SLOTS + l0 + k / words];
        }
        memory.write_u32s_from(first, buf);
    } else {
        memory.read_u32s_into(first, buf);
        for (k, &v) in buf.iter().enumerate() {
            let lane = l0 + k / words;
            if a.exec >> lane & 1 == 1 {
                vgpr[reg + (k % words) * LANE_SLOTS + lane] = v;
            }
        }
    }
    true
}

/// The word at `addr`, looking its page up only when it is not the page of the last word
/// read (lanes of a wave mostly read one page).
/// Words of one memory read lane by lane for one instruction, each as
/// [`SparseMemory::read_u32`] reads it, with the page last read kept (a page held whole) or
/// the [`Window`] last read (bytes the memory does not hold as a page: the host's before any
/// write, regions). Only loads use one: nothing writes the memory while it reads.
pub(super) struct Reader<'m> {
    m: &'m SparseMemory,
    page: Option<(u64, &'m [u8; PAGE])>,
    window: Window,
}

impl<'m> Reader<'m> {
    pub(super) fn new(m: &'m SparseMemory) -> Reader<'m> {
        Reader {
            m,
            page: None,
            window: Window::new(),
        }
    }

    /// The little-endian word at `addr`.
    #[inline]
    pub(super) fn read(&mut self, addr: u64) -> u32 {
        let off = (addr as usize) & (PAGE - 1);
        if off > PAGE - 4 {
            return self.m.read_u32(addr);
        }
        let n = addr / PAGE as u64;
        let p = match self.page {
            Some((k, p)) if k == n => p,
            _ => {
                if let Some(v) = self.window.get(addr) {
                    return v;
                }
                match self.m.page_of(addr) {
                    Some(p) => {
                        self.page = Some((n, p));
                        p
                    }
                    None => {
                        return self
                            .window
                            .fill(self.m, addr)
                            .unwrap_or_else(|| self.m.read_u32(addr))
                    }
                }
            }
        };
        u32::from_le_bytes([p[off], p[off + 1], p[off + 2], p[off + 3]])
    }
}

/// Bytes [`WINDOW`]-aligned that a load read from memory in one piece, for the lanes after
/// the first that read inside them: a page not held as a whole (the host's bytes before any
/// write, regions) costs one [`SparseMemory::read`] per window instead of one per lane.
/// Reading never changes memory, so a window holds for the rest of the instruction.
struct Window {
    /// The address of `bytes[0]`, once read.
    base: Option<u64>,
    bytes: [u8; WINDOW],
}

/// The bytes of a [`Window`]: a power of two, at most a page (a wave's 64 consecutive words
/// span one or two).
const WINDOW: usize = 256;

impl Window {
    fn new() -> Window {
        Window {
            base: None,
            bytes: [0; WINDOW],
        }
    }

    /// The word at `addr` when the window holds its four bytes.
    #[inline]
    fn get(&self, addr: u64) -> Option<u32> {
        let off = addr.wrapping_sub(self.base?);
        if off > (WINDOW - 4) as u64 {
            return None;
        }
        let b = &self.bytes[off as usize..off as usize + 4];
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Reads the window holding `addr` and returns the word there, or `None` when the word
    /// crosses the window's end.
    fn fill(&mut self, m: &SparseMemory, addr: u64) -> Option<u32> {
        let base = addr & !(WINDOW as u64 - 1);
        if addr - base > (WINDOW - 4) as u64 {
            return None;
        }
        m.read(base, &mut self.bytes);
        self.base = Some(base);
        self.get(addr)
    }
}

/// Which of the wave's memories an access uses.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mem {
    Global,
    Lds,
    /// The scratch map (addresses are `memory_space::scratch_key`s).
    Scratch,
}

impl From<super::memory_space::Space> for Mem {
    fn from(space: super::memory_space::Space) -> Mem {
        match space {
            super::memory_space::Space::Global => Mem::Global,
            super::memory_space::Space::Lds => Mem::Lds,
            super::memory_space::Space::Scratch => Mem::Scratch,
        }
    }
}

impl Mem {
    fn get(self, w: &WaveState) -> &SparseMemory {
        match self {
            Mem::Lds => &w.lds,
            Mem::Global => &w.memory,
            Mem::Scratch => &w.scratch,
        }
    }
}
