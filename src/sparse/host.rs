//! What absent pages read from: host ranges (memory of this process) or a base memory.

use std::sync::Arc;

use super::SparseMemory;

/// Where the bytes of absent pages come from.
#[derive(Clone, Debug)]
pub(super) enum HostRanges {
    /// Disjoint, sorted `[start, end)` ranges of this process's memory.
    Ranges(Vec<(u64, u64)>),
    /// Another memory, shared and never written through this one.
    Base(Arc<SparseMemory>),
}

impl PartialEq for HostRanges {
    fn eq(&self, other: &HostRanges) -> bool {
        match (self, other) {
            (HostRanges::Ranges(a), HostRanges::Ranges(b)) => a == b,
            (HostRanges::Base(a), HostRanges::Base(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for HostRanges {}

impl HostRanges {
    /// Fills `out` with the bytes at `addr`: the host's inside the ranges (others read
    /// zero), or the base memory's.
    pub(super) fn fill(&self, addr: u64, out: &mut [u8]) {
        match self {
            HostRanges::Ranges(r) => fill_ranges(r, addr, out),
            HostRanges::Base(m) => m.read(addr, out),
        }
    }
}

/// The parts of `[addr, addr + len)` inside `ranges`, as (address, length).
fn parts(ranges: &[(u64, u64)], addr: u64, len: usize) -> impl Iterator<Item = (u64, usize)> + '_ {
    let end = addr.saturating_add(len as u64);
    let first = ranges.partition_point(|&(_, e)| e <= addr);
    ranges[first..]
        .iter()
        .take_while(move |&&(s, _)| s < end)
        .map(move |&(s, e)| {
            let (lo, hi) = (s.max(addr), e.min(end));
            (lo, (hi - lo) as usize)
        })
}

/// Fills `out` with the host bytes at `addr` inside `ranges`; other bytes read zero.
fn fill_ranges(ranges: &[(u64, u64)], addr: u64, out: &mut [u8]) {
    out.fill(0);
    for (lo, n) in parts(ranges, addr, out.len()) {
        let at = (lo - addr) as usize;
        // SAFETY: `lo..lo + n` lies inside a range that `SparseMemory::with_host`'s
        // caller guaranteed readable for the memory's lifetime; `out[at..at + n]` is in
        // bounds (the part lies inside `addr..addr + out.len()`).
        unsafe {
            std::ptr::copy_nonoverlapping(lo as *const u8, out[at..].as_mut_ptr(), n);
        }
    }
}
