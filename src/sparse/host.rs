//! Host ranges: memory of this process that absent pages read from.

/// Disjoint, sorted `[start, end)` ranges of this process's memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct HostRanges(pub(super) Vec<(u64, u64)>);

impl HostRanges {
    /// The parts of `[addr, addr + len)` inside the ranges, as (address, length).
    pub(super) fn parts(&self, addr: u64, len: usize) -> impl Iterator<Item = (u64, usize)> + '_ {
        let end = addr.saturating_add(len as u64);
        let first = self.0.partition_point(|&(_, e)| e <= addr);
        self.0[first..]
            .iter()
            .take_while(move |&&(s, _)| s < end)
            .map(move |&(s, e)| {
                let (lo, hi) = (s.max(addr), e.min(end));
                (lo, (hi - lo) as usize)
            })
    }

    /// Fills `out` with the host bytes at `addr` inside the ranges; other bytes read zero.
    pub(super) fn fill(&self, addr: u64, out: &mut [u8]) {
        out.fill(0);
        for (lo, n) in self.parts(addr, out.len()) {
            let at = (lo - addr) as usize;
            // SAFETY: `lo..lo + n` lies inside a range that `SparseMemory::with_host`'s
            // caller guaranteed readable for the memory's lifetime; `out[at..at + n]` is in
            // bounds (the part lies inside `addr..addr + out.len()`).
            unsafe {
                std::ptr::copy_nonoverlapping(lo as *const u8, out[at..].as_mut_ptr(), n);
            }
        }
    }
}
