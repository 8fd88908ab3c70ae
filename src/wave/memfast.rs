//! The plain loads and stores of RDNA 3 (`GLOBAL_LOAD_B32`..`B128`, `GLOBAL_STORE_B*`,
//! `S_LOAD_B32`..`B512`, `DS_LOAD_B*`/`DS_STORE_B*`) done directly on the wave's memory and
//! registers, without binding and running their pseudocode. Their texts are one
//! `MEM[ADDR + k].b32` per 32-bit word (`ADDR + OFFSET.u32 + k` for DS); the executors apply
//! a store's words lane by lane in lane order (all of lane 0's words, then lane 1's), and so
//! does this, so overlapping lanes end the same way. `Executor::memory_fast_path` turns it off
//! (`tests/dispatch.rs` compares both ways).

use super::state::{WaveState, LANE_SLOTS};
use crate::sparse::{SparseMemory, PAGE};

/// What one plain access does.
#[derive(Clone, Copy)]
pub(super) enum Plain {
    /// `VDATA`/`RETURN_DATA` = `words` words at each active lane's address.
    Load { words: u32 },
    /// `words` words of the data VGPRs to each active lane's address.
    Store { words: u32 },
    /// `SDATA` = `words` words at the one address.
    ScalarLoad { words: u32 },
}

/// The plain access `name` is, for RDNA 3 family `family` (canonical name), if it is one.
pub(super) fn classify(family: &str, name: &str) -> Option<Plain> {
    let (rest, scalar) = match family {
        "GLOBAL" => (name.strip_prefix("GLOBAL_")?, false),
        "DS" => (name.strip_prefix("DS_")?, false),
        "SMEM" => (name.strip_prefix("S_")?, true),
        _ => return None,
    };
    let (op, bits) = rest.split_once("_B")?;
    let words = match bits {
        "32" => 1,
        "64" => 2,
        "96" => 3,
        "128" => 4,
        "256" if scalar => 8,
        "512" if scalar => 16,
        _ => return None,
    };
    match (op, scalar) {
        ("LOAD", true) => Some(Plain::ScalarLoad { words }),
        ("LOAD", false) => Some(Plain::Load { words }),
        ("STORE", false) => Some(Plain::Store { words }),
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
            let m = mem.get(w);
            let mut vals = [0u32; 16];
            for i in 0..words.min(16) {
                vals[i as usize] = read32(m, at(a.addrs[0], i));
            }
            for i in 0..words.min(16) {
                w.write_sgpr(a.reg + i, vals[i as usize]);
            }
        }
        Plain::Load { words } => {
            // Memory is not a register: reading each lane's words and writing them to the
            // VGPRs lane by lane ends the same as reading every word first.
            let (m, vgpr) = match mem {
                Mem::Global => (&w.memory, &mut w.vgpr),
                Mem::Lds => (&w.lds, &mut w.vgpr),
            };
            let mut page: Option<(u64, &[u8; PAGE])> = None;
            for lane in 0..lanes {
                if active(lane) {
                    for i in 0..words.min(4) {
                        let v = read_cached(m, &mut page, at(a.addrs[lane], i));
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

fn read32(m: &SparseMemory, addr: u64) -> u32 {
    m.read_u32(addr)
}

/// The word at `addr`, looking its page up only when it is not the page of the last word
/// read (lanes of a wave mostly read one page).
fn read_cached<'m>(
    m: &'m SparseMemory,
    page: &mut Option<(u64, &'m [u8; PAGE])>,
    addr: u64,
) -> u32 {
    let off = (addr as usize) & (PAGE - 1);
    if off > PAGE - 4 {
        return m.read_u32(addr);
    }
    let n = addr / PAGE as u64;
    let p = match *page {
        Some((k, p)) if k == n => p,
        _ => match m.page_of(addr) {
            Some(p) => {
                *page = Some((n, p));
                p
            }
            None => return m.read_u32(addr),
        },
    };
    u32::from_le_bytes([p[off], p[off + 1], p[off + 2], p[off + 3]])
}

/// Which of the wave's memories an access uses.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mem {
    Global,
    Lds,
}

impl Mem {
    fn get(self, w: &WaveState) -> &SparseMemory {
        match self {
            Mem::Lds => &w.lds,
            Mem::Global => &w.memory,
        }
    }
}
