//! Sparse byte-addressed memory in 4 KiB pages: the global memory, LDS and scratch of the
//! wave layer and the byte memory of a single-instruction [`crate::exec::Machine`].
//!
//! Unwritten bytes read as zero and reading never allocates, so a 64-bit address space
//! costs only the pages written. A page lookup is one hash of the page number (a
//! multiplicative hash: page numbers are not attacker-chosen keys), so an access costs one
//! lookup per page it touches rather than one per byte.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Bytes per page.
pub const PAGE: usize = 4096;
const PAGE_BITS: u32 = 12;

/// A hasher for page numbers (Fibonacci hashing of one `u64`).
#[derive(Default)]
pub struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Sparse byte memory.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SparseMemory {
    pages: HashMap<u64, Box<[u8; PAGE]>, BuildHasherDefault<PageHasher>>,
    /// Host memory that absent pages read from (see [`SparseMemory::with_host`]).
    host: Option<HostRanges>,
    /// A watched range and whether a write touched it (see [`SparseMemory::watch_writes`]).
    watch: Watch,
    /// Freed pages kept for the next pages this memory allocates (see
    /// [`SparseMemory::reuse_pages_of`]).
    spare: Spare,
}

/// At most this many spare pages (64 MiB) are kept.
const MAX_SPARE: usize = 16 * 1024;

/// Page buffers kept for reuse. Not part of the memory's contents: memories compare equal
/// whatever they keep, and a clone keeps none.
#[derive(Default)]
struct Spare(Vec<Box<[u8; PAGE]>>);

impl Clone for Spare {
    fn clone(&self) -> Spare {
        Spare::default()
    }
}

impl PartialEq for Spare {
    fn eq(&self, _: &Spare) -> bool {
        true
    }
}

impl Eq for Spare {}

impl Spare {
    fn keep(&mut self, pages: impl Iterator<Item = Box<[u8; PAGE]>>) {
        let room = MAX_SPARE.saturating_sub(self.0.len());
        self.0.extend(pages.take(room));
    }
}

/// A watched `[start, end)` range and whether a write touched it since the last
/// [`SparseMemory::take_watched_write`]. Not part of the memory's contents: memories compare
/// equal whatever they watch.
#[derive(Clone, Debug, Default)]
struct Watch {
    range: Option<(u64, u64)>,
    hit: bool,
}

impl PartialEq for Watch {
    fn eq(&self, _: &Watch) -> bool {
        true
    }
}

impl Eq for Watch {}

/// Disjoint, sorted `[start, end)` ranges of this process's memory.
#[derive(Clone, Debug, PartialEq, Eq)]
struct HostRanges(Vec<(u64, u64)>);

impl HostRanges {
    /// The parts of `[addr, addr + len)` inside the ranges, as (address, length).
    fn parts(&self, addr: u64, len: usize) -> impl Iterator<Item = (u64, usize)> + '_ {
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
    fn fill(&self, addr: u64, out: &mut [u8]) {
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

impl std::fmt::Debug for SparseMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SparseMemory {{ {} page(s) }}", self.pages.len())
    }
}

impl SparseMemory {
    /// An empty memory (every byte reads zero).
    pub fn new() -> SparseMemory {
        SparseMemory::default()
    }

    /// A memory whose unwritten bytes inside `ranges` ((address, length) pairs of this
    /// process's memory) read from the host; the first write to a page copies the page's host
    /// bytes in. The host is never written: see [`SparseMemory::pages`] for what changed.
    ///
    /// # Safety
    /// Every range must be readable memory of this process for as long as this memory (or a
    /// clone of it) is used, and must not change meanwhile except through the owner.
    pub unsafe fn with_host(ranges: &[(u64, u64)]) -> SparseMemory {
        let mut v: Vec<(u64, u64)> = ranges
            .iter()
            .filter(|r| r.1 > 0)
            .map(|&(a, n)| (a, a.saturating_add(n)))
            .collect();
        v.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(v.len());
        for (s, e) in v {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        SparseMemory {
            pages: HashMap::default(),
            host: Some(HostRanges(merged)),
            watch: Watch::default(),
            spare: Spare::default(),
        }
    }

    /// The pages present (every page written, or filled from the host on a write), as the
    /// address of their first byte and their bytes, in no particular order.
    pub fn pages(&self) -> impl Iterator<Item = (u64, &[u8; PAGE])> + '_ {
        self.pages.iter().map(|(&n, p)| (n << PAGE_BITS, &**p))
    }

    /// Whether no byte was ever written.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// Forgets every byte (keeping the page buffers for the next writes).
    pub fn clear(&mut self) {
        let pages = std::mem::take(&mut self.pages);
        self.spare.keep(pages.into_values());
    }

    /// Sets the bytes of `[addr, addr + len)` that lie in present pages to zero, allocating
    /// nothing: for a memory without host ranges the range then reads zero, as after
    /// [`SparseMemory::clear`], while pages outside it keep their bytes and every page stays.
    /// (The dispatcher resets a workgroup's LDS this way when accesses are confined to the
    /// allocation: zeroing 256 bytes instead of refilling a 4 KiB page.)
    pub fn zero_present(&mut self, addr: u64, len: u64) {
        let Some(last) = len.checked_sub(1).map(|l| addr.saturating_add(l)) else {
            return;
        };
        for n in addr >> PAGE_BITS..=last >> PAGE_BITS {
            if let Some(p) = self.pages.get_mut(&n) {
                let start = n << PAGE_BITS;
                let lo = addr.max(start) - start;
                let hi = last.min(start + PAGE as u64 - 1) - start;
                p[lo as usize..=hi as usize].fill(0);
            }
        }
    }

    /// Keeps the page buffers of `other` (its contents are dropped) for the pages this memory
    /// allocates next, so a caller that runs many launches does not allocate and fault in
    /// fresh pages for each (the contents of this memory do not change).
    pub fn reuse_pages_of(&mut self, other: SparseMemory) {
        let SparseMemory { pages, spare, .. } = other;
        self.spare
            .keep(spare.0.into_iter().chain(pages.into_values()));
    }

    /// The byte at `addr`.
    pub fn byte(&self, addr: u64) -> u8 {
        match self.pages.get(&(addr >> PAGE_BITS)) {
            Some(p) => p[(addr as usize) & (PAGE - 1)],
            None => {
                let mut b = [0u8];
                if let Some(h) = &self.host {
                    h.fill(addr, &mut b);
                }
                b[0]
            }
        }
    }

    /// Fills `out` with the bytes from `addr` on (wrapping at the end of the address space).
    pub fn read(&self, addr: u64, out: &mut [u8]) {
        let mut at = addr;
        let mut done = 0;
        while done < out.len() {
            let off = (at as usize) & (PAGE - 1);
            let n = (PAGE - off).min(out.len() - done);
            match self.pages.get(&(at >> PAGE_BITS)) {
                Some(p) => out[done..done + n].copy_from_slice(&p[off..off + n]),
                None => match &self.host {
                    Some(h) => h.fill(at, &mut out[done..done + n]),
                    None => out[done..done + n].fill(0),
                },
            }
            done += n;
            at = at.wrapping_add(n as u64);
        }
    }

    /// The page holding byte `addr`, if it has been written (or filled from the host).
    pub fn page_of(&self, addr: u64) -> Option<&[u8; PAGE]> {
        self.pages.get(&(addr >> PAGE_BITS)).map(|p| &**p)
    }

    /// The little-endian 32-bit word at `addr` (as [`SparseMemory::read`] of 4 bytes).
    pub fn read_u32(&self, addr: u64) -> u32 {
        let off = (addr as usize) & (PAGE - 1);
        if off <= PAGE - 4 {
            if let Some(p) = self.pages.get(&(addr >> PAGE_BITS)) {
                let mut b = [0u8; 4];
                b.copy_from_slice(&p[off..off + 4]);
                return u32::from_le_bytes(b);
            }
        }
        let mut b = [0u8; 4];
        self.read(addr, &mut b);
        u32::from_le_bytes(b)
    }

    /// Writes the little-endian 32-bit word `value` at `addr` (as [`SparseMemory::write`]).
    pub fn write_u32(&mut self, addr: u64, value: u32) {
        let off = (addr as usize) & (PAGE - 1);
        let watched = self
            .watch
            .range
            .is_some_and(|(lo, hi)| addr < hi && lo < addr.saturating_add(4));
        if off <= PAGE - 4 && !watched {
            if let Some(p) = self.pages.get_mut(&(addr >> PAGE_BITS)) {
                p[off..off + 4].copy_from_slice(&value.to_le_bytes());
                return;
            }
        }
        self.write(addr, &value.to_le_bytes());
    }

    /// Writes each `(address, word)` of `words` in order (as [`SparseMemory::write_u32`] of
    /// each): consecutive words in one present page cost one page lookup.
    pub fn write_u32s(&mut self, words: impl IntoIterator<Item = (u64, u32)>) {
        let fits = |a: u64| (a as usize) & (PAGE - 1) <= PAGE - 4;
        let mut words = words.into_iter().peekable();
        while let Some((addr, value)) = words.next() {
            let n = addr >> PAGE_BITS;
            let start = n << PAGE_BITS;
            let watched = self
                .watch
                .range
                .is_some_and(|(lo, hi)| start < hi && lo < start.saturating_add(PAGE as u64));
            let page = match self.pages.get_mut(&n) {
                Some(p) if fits(addr) && !watched => p,
                _ => {
                    self.write_u32(addr, value);
                    continue;
                }
            };
            let off = (addr as usize) & (PAGE - 1);
            page[off..off + 4].copy_from_slice(&value.to_le_bytes());
            while let Some(&(a, v)) = words.peek() {
                if a >> PAGE_BITS != n || !fits(a) {
                    break;
                }
                let off = (a as usize) & (PAGE - 1);
                page[off..off + 4].copy_from_slice(&v.to_le_bytes());
                words.next();
            }
        }
    }

    /// Fills `out` with the little-endian words from `addr` on (as [`SparseMemory::read`] of
    /// their bytes): one page lookup when they lie in one present page.
    pub fn read_u32s_into(&self, addr: u64, out: &mut [u32]) {
        let off = (addr as usize) & (PAGE - 1);
        let n = 4 * out.len();
        if off + n <= PAGE {
            if let Some(p) = self.pages.get(&(addr >> PAGE_BITS)) {
                for (o, b) in out.iter_mut().zip(p[off..off + n].chunks_exact(4)) {
                    *o = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
                return;
            }
        }
        let mut at = addr;
        for chunk in out.chunks_mut(64) {
            let mut bytes = [0u8; 256];
            let b = &mut bytes[..4 * chunk.len()];
            self.read(at, b);
            for (o, b) in chunk.iter_mut().zip(b.chunks_exact(4)) {
                *o = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            at = at.wrapping_add(b.len() as u64);
        }
    }

    /// Writes `words` little-endian from `addr` on (as [`SparseMemory::write`] of their
    /// bytes): one page lookup when they lie in one present page outside the watched range.
    pub fn write_u32s_from(&mut self, addr: u64, words: &[u32]) {
        let off = (addr as usize) & (PAGE - 1);
        let n = 4 * words.len();
        let watched = self
            .watch
            .range
            .is_some_and(|(lo, hi)| addr < hi && lo < addr.saturating_add(n as u64));
        if off + n <= PAGE && !watched {
            if let Some(p) = self.pages.get_mut(&(addr >> PAGE_BITS)) {
                for (b, w) in p[off..off + n].chunks_exact_mut(4).zip(words) {
                    b.copy_from_slice(&w.to_le_bytes());
                }
                return;
            }
        }
        let mut at = addr;
        for chunk in words.chunks(64) {
            let mut bytes = [0u8; 256];
            let b = &mut bytes[..4 * chunk.len()];
            for (b, w) in b.chunks_exact_mut(4).zip(chunk) {
                b.copy_from_slice(&w.to_le_bytes());
            }
            self.write(at, b);
            at = at.wrapping_add(b.len() as u64);
        }
    }

    /// `n` bytes from `addr` as a vector.
    pub fn read_vec(&self, addr: u64, n: usize) -> Vec<u8> {
        let mut v = vec![0; n];
        self.read(addr, &mut v);
        v
    }

    /// Watches `len` bytes from `addr` (replacing any earlier range): a later write touching
    /// them is recorded for [`SparseMemory::take_watched_write`]. The dispatcher watches the
    /// code it runs, so a kernel that stores over its own instructions runs the new ones.
    pub fn watch_writes(&mut self, addr: u64, len: u64) {
        self.watch = Watch {
            range: (len > 0).then(|| (addr, addr.saturating_add(len))),
            hit: false,
        };
    }

    /// Whether a write touched the watched range since the last call (clears the record).
    pub fn take_watched_write(&mut self) -> bool {
        std::mem::take(&mut self.watch.hit)
    }

    /// Whether a write touched the watched range since the last
    /// [`SparseMemory::take_watched_write`].
    #[inline]
    pub fn watched_write(&self) -> bool {
        self.watch.hit
    }

    /// Writes `bytes` from `addr` on.
    pub fn write(&mut self, addr: u64, bytes: &[u8]) {
        if let Some((lo, hi)) = self.watch.range {
            let end = addr.saturating_add(bytes.len() as u64);
            if addr < hi && lo < end && !bytes.is_empty() {
                self.watch.hit = true;
            }
        }
        let mut at = addr;
        let mut done = 0;
        while done < bytes.len() {
            let off = (at as usize) & (PAGE - 1);
            let n = (PAGE - off).min(bytes.len() - done);
            let (host, spare) = (&self.host, &mut self.spare);
            let whole = n == PAGE;
            let page = self.pages.entry(at >> PAGE_BITS).or_insert_with(|| {
                let mut p = spare.0.pop().unwrap_or_else(|| Box::new([0; PAGE]));
                // A page the write covers whole needs no first contents.
                if !whole {
                    match host {
                        Some(h) => h.fill(at & !(PAGE as u64 - 1), &mut p[..]),
                        None => p.fill(0),
                    }
                }
                p
            });
            page[off..off + n].copy_from_slice(&bytes[done..done + n]);
            done += n;
            at = at.wrapping_add(n as u64);
        }
    }

    /// Writes one byte.
    pub fn set(&mut self, addr: u64, byte: u8) {
        self.write(addr, &[byte]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_zero_and_crosses_pages() {
        let mut m = SparseMemory::new();
        assert_eq!(m.read_vec(0xffff_fff0, 4), vec![0; 4]);
        assert!(m.is_empty());
        m.write(0x1ffe, &[1, 2, 3, 4]);
        assert_eq!(m.read_vec(0x1ffd, 6), vec![0, 1, 2, 3, 4, 0]);
        assert_eq!((m.byte(0x1fff), m.byte(0x2000)), (2, 3));
        m.write(u64::MAX, &[9, 8]);
        assert_eq!((m.byte(u64::MAX), m.byte(0)), (9, 8));
        let mut other = SparseMemory::new();
        other.write(0x1ffe, &[1, 2, 3, 4]);
        other.write(u64::MAX - 1, &[0, 9, 8]);
        assert_eq!(m, other);
    }

    #[test]
    fn issue_13_host_backed_reads_host_and_copies_pages_on_write() {
        // Two host ranges straddling a page boundary, with a gap between them.
        let host: Vec<u8> = (0..3 * PAGE).map(|i| (i % 251) as u8).collect();
        let base = host.as_ptr() as u64;
        let ranges = [(base + 100, PAGE as u64), (base + PAGE as u64 + 200, 300)];
        // SAFETY: `host` outlives `m` and is not changed while `m` is used.
        let mut m = unsafe { SparseMemory::with_host(&ranges) };
        assert_eq!(m.byte(base + 100), host[100]);
        assert_eq!(m.byte(base + 99), 0, "outside the ranges reads zero");
        let at = base + PAGE as u64 + 190;
        let mut want = vec![0u8; 30];
        want[10..].copy_from_slice(&host[PAGE + 200..PAGE + 220]);
        assert_eq!(m.read_vec(at, 30), want);
        assert!(m.is_empty(), "reading allocates nothing");
        m.write(base + 150, &[7, 7]);
        assert_eq!(m.read_vec(base + 149, 4), vec![host[149], 7, 7, host[152]]);
        assert_eq!(host[150], 150, "the host is never written");
        let pages: Vec<u64> = m.pages().map(|(a, _)| a).collect();
        assert_eq!(pages, vec![(base + 150) & !(PAGE as u64 - 1)]);
    }

    #[test]
    fn issue_14_watched_range_records_overlapping_writes_only() {
        let mut m = SparseMemory::new();
        m.watch_writes(0x1000, 8);
        m.write(0xff8, &[1; 8]);
        m.write(0x1008, &[2; 4]);
        assert!(!m.watched_write(), "writes beside the range");
        m.write(0xffe, &[3; 3]);
        assert!(m.watched_write());
        assert!(m.take_watched_write());
        assert!(!m.take_watched_write(), "taken once");
        m.set(0x1007, 9);
        assert!(m.take_watched_write());
        let mut other = SparseMemory::new();
        other.write(0xff8, &[1; 8]);
        other.write(0x1008, &[2; 4]);
        other.write(0xffe, &[3; 3]);
        other.set(0x1007, 9);
        assert_eq!(m, other, "watching is not part of the contents");
    }

    #[test]
    fn issue_11_word_rows_read_and_write_as_their_bytes() {
        let words: Vec<u32> = (0..40).map(|i| 0x0101_0101 * i).collect();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        // In one present page, across a page boundary, in an absent page, over the watch.
        for at in [0x1010u64, 0x1fc0, 0x5000, 0x2ffe] {
            let mut m = SparseMemory::new();
            m.write(0x1000, &[7; 8]);
            m.watch_writes(0x2ffe, 1);
            m.write_u32s_from(at, &words);
            let mut want = SparseMemory::new();
            want.write(0x1000, &[7; 8]);
            want.write(at, &bytes);
            assert_eq!(m, want, "0x{at:x}");
            assert_eq!(m.take_watched_write(), at == 0x2ffe, "0x{at:x}");
            let mut back = vec![0u32; 41];
            m.read_u32s_into(at - 4, &mut back);
            let before = if at == 0x1010 { 0 } else { m.read_u32(at - 4) };
            assert_eq!(back[0], before, "0x{at:x}");
            assert_eq!(&back[1..], &words[..], "0x{at:x}");
        }
        // An absent page reads zero, through the host when there is one.
        let mut out = [1u32; 3];
        SparseMemory::new().read_u32s_into(0x9000, &mut out);
        assert_eq!(out, [0; 3]);
    }

    #[test]
    fn issue_11_word_runs_and_reused_pages_write_as_single_writes() {
        let words = [
            (0x1ff8, 0x0403_0201),
            (0x1ffc, 0x0807_0605),
            (0x1ffe, 0xaabb_ccdd),
            (0x5000, 7),
            (0x1000, 0x1122_3344),
            (0xfff, 0xdead_beef),
        ];
        let mut m = SparseMemory::new();
        m.write(0x1000, &[9; 16]);
        m.watch_writes(0x5002, 1);
        m.write_u32s(words);
        let mut want = SparseMemory::new();
        want.write(0x1000, &[9; 16]);
        for (a, v) in words {
            want.write(a, &u32::to_le_bytes(v));
        }
        assert_eq!(m, want);
        assert_eq!(m.read_u32(0x1ffc), 0xccdd_0605, "the later word wins");
        assert_eq!(m.read_u32(0x1000), 0x11de_adbe);
        assert!(
            m.take_watched_write(),
            "a word over the watched byte is seen"
        );
        // Pages kept from another memory come back zeroed (or filled from the host).
        let mut fresh = SparseMemory::new();
        fresh.reuse_pages_of(m);
        assert!(fresh.is_empty());
        fresh.write(0x3004, &[5]);
        assert_eq!(fresh.read_vec(0x3000, 8), vec![0, 0, 0, 0, 5, 0, 0, 0]);
        fresh.write(0x8000, &[1; PAGE]);
        assert_eq!(fresh.read_vec(0x8ffe, 4), vec![1, 1, 0, 0]);
        fresh.clear();
        fresh.write(0x8001, &[2]);
        assert_eq!(fresh.read_vec(0x8000, 3), vec![0, 2, 0]);
        // Zeroing present bytes only: across a page boundary, an absent page untouched.
        fresh.write(0x8ffe, &[3; 4]);
        fresh.zero_present(0x8000, 0x1001);
        assert_eq!(fresh.read_vec(0x8000, 3), vec![0, 0, 0]);
        assert_eq!(fresh.read_vec(0x8ffe, 4), vec![0, 0, 0, 3]);
        fresh.zero_present(0x20000, 0x3000);
        fresh.zero_present(0x8000, 0);
        assert_eq!(fresh.pages().count(), 2);
    }
}
