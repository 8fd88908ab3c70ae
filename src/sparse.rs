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
///
/// Besides pages it can hold a few *regions*: large contiguous buffers at an address
/// ([`SparseMemory::add_region`]), consulted before the pages, so a dispatch maps a launch's
/// buffers with one move (or one copy) and hands them back without copying. Every method
/// reads and writes region bytes exactly as it would page bytes; memories compare equal when
/// every address reads the same (with the same host ranges), however the bytes are held.
#[derive(Clone, Default)]
pub struct SparseMemory {
    pages: HashMap<u64, Box<[u8; PAGE]>, BuildHasherDefault<PageHasher>>,
    /// Disjoint regions sorted by start (see [`SparseMemory::add_region`]). Page bytes that a
    /// region covers are zero and never read.
    regions: Vec<Region>,
    /// Host ranges, the watch and spare pages, behind one pointer (absent while all are
    /// unset) so the memory itself stays small: a dispatcher moves memories in and out of a
    /// wave every time the wave resumes.
    extra: Option<Box<Extra>>,
}

/// The rarely set parts of a [`SparseMemory`].
#[derive(Clone, Default)]
struct Extra {
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

/// A region: `bytes` at `start` (the range never wraps the address space).
#[derive(Clone)]
struct Region {
    start: u64,
    bytes: Vec<u8>,
    /// The owner's word that the whole region is mapped memory (see
    /// [`SparseMemory::add_region`]).
    mapped: bool,
}

impl Region {
    fn end(&self) -> u64 {
        self.start + self.bytes.len() as u64
    }
}

/// `n` bytes inside one region, as [`SparseMemory::region_span`] found them: region `index`
/// from its byte `at` on, at address `addr`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RegionSpan {
    addr: u64,
    index: usize,
    at: usize,
    n: usize,
}

/// Where the bytes of an access are held.
enum Place {
    /// Outside every region: in the pages (or absent).
    Pages,
    /// Inside region `index`, from its byte `at` on.
    Region { index: usize, at: usize },
    /// Partly in a region, or wrapping the address space: split at region edges.
    Mixed,
}

impl PartialEq for SparseMemory {
    /// Equal when every address reads the same byte (with the same host ranges), whether the
    /// bytes are held in pages or regions.
    fn eq(&self, other: &SparseMemory) -> bool {
        if self.host() != other.host() {
            return false;
        }
        if self.regions.is_empty() && other.regions.is_empty() && self.pages == other.pages {
            return true;
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (addr, chunk) in self.pages().chain(other.pages()) {
            a.resize(chunk.len(), 0);
            b.resize(chunk.len(), 0);
            self.read(addr, &mut a);
            other.read(addr, &mut b);
            if a != b {
                return false;
            }
        }
        true
    }
}

impl Eq for SparseMemory {}

impl std::fmt::Debug for SparseMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SparseMemory {{ {} page(s), {} region(s) }}",
            self.pages.len(),
            self.regions.len()
        )
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
            extra: Some(Box::new(Extra {
                host: Some(HostRanges(merged)),
                ..Extra::default()
            })),
            ..SparseMemory::default()
        }
    }

    /// The bytes present, in no particular order, as (address, bytes) chunks that each lie
    /// inside one 4 KiB page: every page written (or filled from the host on a write) less
    /// the bytes regions hold, and the regions' bytes cut at page boundaries. A memory
    /// without regions yields its pages whole.
    pub fn pages(&self) -> impl Iterator<Item = (u64, &[u8])> + '_ {
        let pages = self
            .pages
            .iter()
            .flat_map(move |(&n, p)| self.page_pieces(n << PAGE_BITS, &p[..]));
        let regions = self.regions.iter().flat_map(|r| {
            let mut pieces = Vec::new();
            let mut at = 0;
            while at < r.bytes.len() {
                let addr = r.start + at as u64;
                let n = (PAGE - (addr as usize & (PAGE - 1))).min(r.bytes.len() - at);
                pieces.push((addr, &r.bytes[at..at + n]));
                at += n;
            }
            pieces
        });
        pages.chain(regions)
    }

    /// The parts of the page at `start` that no region covers.
    fn page_pieces<'a>(&self, start: u64, page: &'a [u8]) -> Vec<(u64, &'a [u8])> {
        let mut out = Vec::new();
        let mut lo = 0usize;
        let last = start + (PAGE as u64 - 1);
        let first = self.regions.partition_point(|r| r.end() <= start);
        for r in self.regions[first..].iter().take_while(|r| r.start <= last) {
            let rs = r.start.saturating_sub(start) as usize;
            let re = (r.end() - start).min(PAGE as u64) as usize;
            if rs > lo {
                out.push((start + lo as u64, &page[lo..rs]));
            }
            lo = lo.max(re);
        }
        if lo < PAGE {
            out.push((start + lo as u64, &page[lo..]));
        }
        out
    }

    /// Whether no byte was ever written (no page and no region).
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty() && self.regions.is_empty()
    }

    /// Forgets every byte (keeping the page buffers for the next writes; regions are
    /// dropped).
    pub fn clear(&mut self) {
        let pages = std::mem::take(&mut self.pages);
        if !pages.is_empty() {
            self.extra_mut().spare.keep(pages.into_values());
        }
        self.regions.clear();
    }

    /// Sets the bytes of `[addr, addr + len)` that lie in present pages or regions to zero,
    /// allocating nothing: for a memory without host ranges the range then reads zero, as
    /// after [`SparseMemory::clear`], while bytes outside it keep their values and every page
    /// and region stays. (The dispatcher resets a workgroup's LDS this way when accesses are
    /// confined to the allocation.)
    pub fn zero_present(&mut self, addr: u64, len: u64) {
        let Some(last) = len.checked_sub(1).map(|l| addr.saturating_add(l)) else {
            return;
        };
        for r in &mut self.regions {
            if r.start <= last && addr < r.end() {
                let lo = (addr.max(r.start) - r.start) as usize;
                let hi = (last.min(r.end() - 1) - r.start) as usize;
                r.bytes[lo..=hi].fill(0);
            }
        }
        if self.pages.is_empty() {
            return;
        }
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
        let SparseMemory { pages, extra, .. } = other;
        let spare = extra.map(|e| e.spare.0).unwrap_or_default();
        if pages.is_empty() && spare.is_empty() {
            return;
        }
        self.extra_mut()
            .spare
            .keep(spare.into_iter().chain(pages.into_values()));
    }

    /// Holds `bytes` at `addr` as one region: afterwards the memory reads them there as after
    /// `write(addr, &bytes)` (a write to the watched range is recorded the same way), but
    /// they stay in this one buffer, which [`SparseMemory::take_region`] hands back without a
    /// copy. Page bytes under the region are dropped. `mapped` is the owner's word that the
    /// whole range is mapped memory (a dispatch's launch buffers): [`SparseMemory::region`]
    /// reports it, so an access inside needs no other bounds check. Gives `bytes` back,
    /// changing nothing, when they are empty, their range wraps the address space or it
    /// overlaps a region already held.
    ///
    /// # Errors
    /// `bytes`, as above.
    pub fn add_region(&mut self, addr: u64, bytes: Vec<u8>, mapped: bool) -> Result<(), Vec<u8>> {
        let Some(end) = addr.checked_add(bytes.len() as u64) else {
            return Err(bytes);
        };
        let i = self.regions_before(addr);
        let clash = bytes.is_empty()
            || (i > 0 && self.regions[i - 1].end() > addr)
            || self.regions.get(i).is_some_and(|r| r.start < end);
        if clash {
            return Err(bytes);
        }
        self.note_write(addr, end);
        self.drop_pages_in(addr, end);
        self.regions.insert(
            i,
            Region {
                start: addr,
                bytes,
                mapped,
            },
        );
        Ok(())
    }

    /// Removes the region that starts at `addr` and returns its bytes; its addresses then
    /// read as never written (zero, or the host's bytes).
    pub fn take_region(&mut self, addr: u64) -> Option<Vec<u8>> {
        let i = self.regions.iter().position(|r| r.start == addr)?;
        Some(self.regions.remove(i).bytes)
    }

    /// The length of the region that starts at `addr`, if there is one.
    pub fn region_len(&self, addr: u64) -> Option<usize> {
        self.regions
            .iter()
            .find(|r| r.start == addr)
            .map(|r| r.bytes.len())
    }

    /// The `n` bytes at `addr` when they all lie inside one region, and whether the region
    /// was added as mapped.
    #[inline]
    pub fn region(&self, addr: u64, n: usize) -> Option<(&[u8], bool)> {
        match self.place(addr, n) {
            Place::Region { index, at } => {
                let r = &self.regions[index];
                Some((&r.bytes[at..at + n], r.mapped))
            }
            _ => None,
        }
    }

    /// Where the `n` bytes at `addr` lie when they all lie inside one region, and whether the
    /// region was added as mapped: one lookup for a caller that checks before it reads or
    /// writes them ([`SparseMemory::span_bytes`], [`SparseMemory::span_bytes_mut`]).
    #[inline]
    pub(crate) fn region_span(&self, addr: u64, n: usize) -> Option<(RegionSpan, bool)> {
        match self.place(addr, n) {
            Place::Region { index, at } => Some((
                RegionSpan { addr, index, at, n },
                self.regions[index].mapped,
            )),
            _ => None,
        }
    }

    /// The bytes of a span this memory gave (regions unchanged since).
    #[inline]
    pub(crate) fn span_bytes(&self, s: RegionSpan) -> &[u8] {
        &self.regions[s.index].bytes[s.at..s.at + s.n]
    }

    /// The bytes of a span this memory gave (regions unchanged since), to write; the write
    /// is recorded for the watched range as [`SparseMemory::region_mut`] records it.
    #[inline]
    pub(crate) fn span_bytes_mut(&mut self, s: RegionSpan) -> &mut [u8] {
        self.note_write(s.addr, s.addr + s.n as u64);
        &mut self.regions[s.index].bytes[s.at..s.at + s.n]
    }

    /// How many regions start before `addr` (a binary search written out: regions are few
    /// and this runs on every access).
    #[inline]
    fn regions_before(&self, addr: u64) -> usize {
        let (mut lo, mut hi) = (0, self.regions.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.regions[mid].start < addr {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The `n` bytes at `addr`, to write, when they all lie inside one region. The write is
    /// recorded for the watched range as [`SparseMemory::write`] records it.
    #[inline]
    pub fn region_mut(&mut self, addr: u64, n: usize) -> Option<&mut [u8]> {
        match self.place(addr, n) {
            Place::Region { index, at } => {
                self.note_write(addr, addr + n as u64);
                Some(&mut self.regions[index].bytes[at..at + n])
            }
            _ => None,
        }
    }

    /// Records a write of `[addr, end)` for the watched range.
    #[inline]
    fn note_write(&mut self, addr: u64, end: u64) {
        if let Some(e) = &mut self.extra {
            if let Some((lo, hi)) = e.watch.range {
                if addr < hi && lo < end {
                    e.watch.hit = true;
                }
            }
        }
    }

    /// Drops (or zeroes the parts of) the pages under `[addr, end)`.
    fn drop_pages_in(&mut self, addr: u64, end: u64) {
        if self.pages.is_empty() || end <= addr {
            return;
        }
        let (first, last) = (addr >> PAGE_BITS, (end - 1) >> PAGE_BITS);
        let keys: Vec<u64> = if (last - first) as usize >= self.pages.len() {
            let mut k: Vec<u64> = self.pages.keys().copied().collect();
            k.retain(|n| (first..=last).contains(n));
            k
        } else {
            (first..=last)
                .filter(|n| self.pages.contains_key(n))
                .collect()
        };
        for n in keys {
            let start = n << PAGE_BITS;
            if addr <= start && start + (PAGE as u64 - 1) < end {
                if let Some(p) = self.pages.remove(&n) {
                    self.extra_mut().spare.keep(std::iter::once(p));
                }
            } else if let Some(p) = self.pages.get_mut(&n) {
                let lo = addr.max(start) - start;
                let hi = (end - 1).min(start + PAGE as u64 - 1) - start;
                p[lo as usize..=hi as usize].fill(0);
            }
        }
    }

    /// Where the `n` bytes at `addr` are held.
    #[inline]
    fn place(&self, addr: u64, n: usize) -> Place {
        if self.regions.is_empty() {
            return Place::Pages;
        }
        let Some(end) = addr.checked_add(n as u64) else {
            return Place::Mixed;
        };
        // The last region starting before `end`: regions are disjoint and sorted, so it is
        // the only one that can reach past `addr`.
        let i = self.regions_before(end);
        let Some(r) = i.checked_sub(1).map(|k| &self.regions[k]) else {
            return Place::Pages;
        };
        if r.end() <= addr {
            Place::Pages
        } else if r.start <= addr && end <= r.end() {
            Place::Region {
                index: i - 1,
                at: (addr - r.start) as usize,
            }
        } else {
            Place::Mixed
        }
    }

    /// Splits `[addr, addr + len)` (wrapping) at region edges and address-space end, calling
    /// `f(address, offset into the access, length, region)` for each part, with the region's
    /// index and the part's offset in it when a region holds the part.
    fn split(
        &self,
        addr: u64,
        len: usize,
        mut f: impl FnMut(u64, usize, usize, Option<(usize, usize)>),
    ) {
        let mut at = addr;
        let mut done = 0;
        while done < len {
            let rest = len - done;
            let i = self.regions.partition_point(|r| r.start <= at);
            let inside = i.checked_sub(1).filter(|&k| at < self.regions[k].end());
            let n = match inside {
                Some(k) => {
                    let off = (at - self.regions[k].start) as usize;
                    let n = rest.min(self.regions[k].bytes.len() - off);
                    f(at, done, n, Some((k, off)));
                    n
                }
                None => {
                    let to_top = (u64::MAX - at) as u128 + 1;
                    let to_next = self
                        .regions
                        .get(i)
                        .map_or(u128::MAX, |r| (r.start - at) as u128);
                    let n = (rest as u128).min(to_top).min(to_next) as usize;
                    f(at, done, n, None);
                    n
                }
            };
            done += n;
            at = at.wrapping_add(n as u64);
        }
    }

    /// The byte at `addr`.
    pub fn byte(&self, addr: u64) -> u8 {
        if let Place::Region { index, at } = self.place(addr, 1) {
            return self.regions[index].bytes[at];
        }
        match self.pages.get(&(addr >> PAGE_BITS)) {
            Some(p) => p[(addr as usize) & (PAGE - 1)],
            None => {
                let mut b = [0u8];
                if let Some(h) = self.host() {
                    h.fill(addr, &mut b);
                }
                b[0]
            }
        }
    }

    /// Fills `out` with the bytes from `addr` on (wrapping at the end of the address space).
    pub fn read(&self, addr: u64, out: &mut [u8]) {
        match self.place(addr, out.len()) {
            Place::Pages => self.read_pages(addr, out),
            Place::Region { index, at } => {
                out.copy_from_slice(&self.regions[index].bytes[at..at + out.len()]);
            }
            Place::Mixed => self.split(addr, out.len(), |a, o, n, r| match r {
                Some((k, off)) => {
                    out[o..o + n].copy_from_slice(&self.regions[k].bytes[off..off + n])
                }
                None => self.read_pages(a, &mut out[o..o + n]),
            }),
        }
    }

    /// [`SparseMemory::read`] of bytes no region holds.
    fn read_pages(&self, addr: u64, out: &mut [u8]) {
        let mut at = addr;
        let mut done = 0;
        while done < out.len() {
            let off = (at as usize) & (PAGE - 1);
            let n = (PAGE - off).min(out.len() - done);
            match self.pages.get(&(at >> PAGE_BITS)) {
                Some(p) => out[done..done + n].copy_from_slice(&p[off..off + n]),
                None => match self.host() {
                    Some(h) => h.fill(at, &mut out[done..done + n]),
                    None => out[done..done + n].fill(0),
                },
            }
            done += n;
            at = at.wrapping_add(n as u64);
        }
    }

    /// The page holding byte `addr`, if it has been written (or filled from the host) and no
    /// region holds any byte of it (read those with [`SparseMemory::read`]).
    pub fn page_of(&self, addr: u64) -> Option<&[u8; PAGE]> {
        let p = self.pages.get(&(addr >> PAGE_BITS))?;
        let start = addr & !(PAGE as u64 - 1);
        match self.place(start, PAGE) {
            Place::Pages => Some(&**p),
            _ => None,
        }
    }

    /// The little-endian 32-bit word at `addr` (as [`SparseMemory::read`] of 4 bytes).
    pub fn read_u32(&self, addr: u64) -> u32 {
        match self.place(addr, 4) {
            Place::Region { index, at } => {
                let b = &self.regions[index].bytes[at..at + 4];
                return u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            Place::Pages => {
                let off = (addr as usize) & (PAGE - 1);
                if off <= PAGE - 4 {
                    if let Some(p) = self.pages.get(&(addr >> PAGE_BITS)) {
                        let mut b = [0u8; 4];
                        b.copy_from_slice(&p[off..off + 4]);
                        return u32::from_le_bytes(b);
                    }
                }
            }
            Place::Mixed => {}
        }
        let mut b = [0u8; 4];
        self.read(addr, &mut b);
        u32::from_le_bytes(b)
    }

    /// Whether `[addr, addr + n)` touches the watched range.
    #[inline]
    fn watched(&self, addr: u64, n: u64) -> bool {
        self.extra
            .as_ref()
            .and_then(|e| e.watch.range)
            .is_some_and(|(lo, hi)| addr < hi && lo < addr.saturating_add(n))
    }

    /// Writes the little-endian 32-bit word `value` at `addr` (as [`SparseMemory::write`]).
    pub fn write_u32(&mut self, addr: u64, value: u32) {
        if !self.watched(addr, 4) {
            match self.place(addr, 4) {
                Place::Region { index, at } => {
                    self.regions[index].bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
                    return;
                }
                Place::Pages => {
                    let off = (addr as usize) & (PAGE - 1);
                    if off <= PAGE - 4 {
                        if let Some(p) = self.pages.get_mut(&(addr >> PAGE_BITS)) {
                            p[off..off + 4].copy_from_slice(&value.to_le_bytes());
                            return;
                        }
                    }
                }
                Place::Mixed => {}
            }
        }
        self.write(addr, &value.to_le_bytes());
    }

    /// Writes each `(address, word)` of `words` in order (as [`SparseMemory::write_u32`] of
    /// each): consecutive words in one present page cost one page lookup.
    pub fn write_u32s(&mut self, words: impl IntoIterator<Item = (u64, u32)>) {
        if !self.regions.is_empty() {
            for (addr, value) in words {
                self.write_u32(addr, value);
            }
            return;
        }
        let fits = |a: u64| (a as usize) & (PAGE - 1) <= PAGE - 4;
        let mut words = words.into_iter().peekable();
        while let Some((addr, value)) = words.next() {
            let n = addr >> PAGE_BITS;
            let start = n << PAGE_BITS;
            let watched = self.watched(start, PAGE as u64);
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
    /// their bytes): one lookup when they lie in one region or one present page.
    pub fn read_u32s_into(&self, addr: u64, out: &mut [u32]) {
        let n = 4 * out.len();
        match self.place(addr, n) {
            Place::Region { index, at } => {
                words_from_bytes(&self.regions[index].bytes[at..at + n], out);
                return;
            }
            Place::Pages => {
                let off = (addr as usize) & (PAGE - 1);
                if off + n <= PAGE {
                    if let Some(p) = self.pages.get(&(addr >> PAGE_BITS)) {
                        words_from_bytes(&p[off..off + n], out);
                        return;
                    }
                }
            }
            Place::Mixed => {}
        }
        let mut at = addr;
        for chunk in out.chunks_mut(64) {
            let mut bytes = [0u8; 256];
            let b = &mut bytes[..4 * chunk.len()];
            self.read(at, b);
            words_from_bytes(b, chunk);
            at = at.wrapping_add(b.len() as u64);
        }
    }

    /// Writes `words` little-endian from `addr` on (as [`SparseMemory::write`] of their
    /// bytes): one lookup when they lie in one region or one present page outside the
    /// watched range.
    pub fn write_u32s_from(&mut self, addr: u64, words: &[u32]) {
        let n = 4 * words.len();
        if !self.watched(addr, n as u64) {
            match self.place(addr, n) {
                Place::Region { index, at } => {
                    bytes_from_words(words, &mut self.regions[index].bytes[at..at + n]);
                    return;
                }
                Place::Pages => {
                    let off = (addr as usize) & (PAGE - 1);
                    if off + n <= PAGE {
                        if let Some(p) = self.pages.get_mut(&(addr >> PAGE_BITS)) {
                            bytes_from_words(words, &mut p[off..off + n]);
                            return;
                        }
                    }
                }
                Place::Mixed => {}
            }
        }
        let mut at = addr;
        for chunk in words.chunks(64) {
            let mut bytes = [0u8; 256];
            let b = &mut bytes[..4 * chunk.len()];
            bytes_from_words(chunk, b);
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
        if len == 0 && self.extra.is_none() {
            return;
        }
        self.extra_mut().watch = Watch {
            range: (len > 0).then(|| (addr, addr.saturating_add(len))),
            hit: false,
        };
    }

    /// Whether a write touched the watched range since the last call (clears the record).
    pub fn take_watched_write(&mut self) -> bool {
        self.extra
            .as_mut()
            .is_some_and(|e| std::mem::take(&mut e.watch.hit))
    }

    /// Whether a write touched the watched range since the last
    /// [`SparseMemory::take_watched_write`].
    #[inline]
    pub fn watched_write(&self) -> bool {
        self.extra.as_ref().is_some_and(|e| e.watch.hit)
    }

    /// The host ranges, if any.
    #[inline]
    fn host(&self) -> Option<&HostRanges> {
        self.extra.as_ref()?.host.as_ref()
    }

    /// The rarely set parts, made when first needed.
    fn extra_mut(&mut self) -> &mut Extra {
        self.extra.get_or_insert_with(Box::default)
    }

    /// Writes `bytes` from `addr` on.
    pub fn write(&mut self, addr: u64, bytes: &[u8]) {
        if !bytes.is_empty() {
            self.note_write(addr, addr.saturating_add(bytes.len() as u64));
        }
        match self.place(addr, bytes.len()) {
            Place::Pages => self.write_pages(addr, bytes),
            Place::Region { index, at } => {
                self.regions[index].bytes[at..at + bytes.len()].copy_from_slice(bytes);
            }
            Place::Mixed => {
                let mut parts = Vec::new();
                self.split(addr, bytes.len(), |a, o, n, r| parts.push((a, o, n, r)));
                for (a, o, n, r) in parts {
                    match r {
                        Some((k, off)) => {
                            self.regions[k].bytes[off..off + n].copy_from_slice(&bytes[o..o + n]);
                        }
                        None => self.write_pages(a, &bytes[o..o + n]),
                    }
                }
            }
        }
    }

    /// [`SparseMemory::write`] of bytes no region holds.
    fn write_pages(&mut self, addr: u64, bytes: &[u8]) {
        let mut at = addr;
        let mut done = 0;
        while done < bytes.len() {
            let off = (at as usize) & (PAGE - 1);
            let n = (PAGE - off).min(bytes.len() - done);
            let (host, spare) = match self.extra.as_deref_mut() {
                Some(e) => (e.host.as_ref(), Some(&mut e.spare)),
                None => (None, None),
            };
            let whole = n == PAGE;
            let page = self.pages.entry(at >> PAGE_BITS).or_insert_with(|| {
                let mut p = spare
                    .and_then(|s| s.0.pop())
                    .unwrap_or_else(|| Box::new([0; PAGE]));
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

/// Little-endian words of `bytes` (`4 * out.len()` of them) into `out`.
#[inline]
pub fn words_from_bytes(bytes: &[u8], out: &mut [u32]) {
    for (o, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
        *o = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
}

/// `words` little-endian into `out` (`4 * words.len()` bytes).
#[inline]
pub fn bytes_from_words(words: &[u32], out: &mut [u8]) {
    for (b, w) in out.chunks_exact_mut(4).zip(words) {
        b.copy_from_slice(&w.to_le_bytes());
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

    /// The same operations on a memory holding `[0x1ff0, 0x2030)` as a region and on one
    /// with pages only.
    fn region_pair() -> (SparseMemory, SparseMemory) {
        let bytes: Vec<u8> = (0..0x40).map(|i| i as u8 ^ 0x5a).collect();
        let mut m = SparseMemory::new();
        m.write(0x1fe0, &[1; 0x60]);
        m.add_region(0x1ff0, bytes.clone(), false)
            .expect("free range");
        let mut want = SparseMemory::new();
        want.write(0x1fe0, &[1; 0x60]);
        want.write(0x1ff0, &bytes);
        (m, want)
    }

    #[test]
    fn issue_11_region_reads_and_writes_cross_its_edges_into_pages() {
        let (mut m, mut want) = region_pair();
        assert_eq!(m, want, "a region equals the same bytes in pages");
        assert_eq!(m.read_vec(0x1fe8, 0x58), want.read_vec(0x1fe8, 0x58));
        assert_eq!((m.byte(0x1fef), m.byte(0x1ff0)), (1, 0x5a));
        assert_eq!(m.read_u32(0x1fee), u32::from_le_bytes([1, 1, 0x5a, 0x5b]));
        assert_eq!(m.read_u32(0x202e), u32::from_le_bytes([0x64, 0x65, 1, 1]));
        // Writes across the lower edge, inside, across the upper edge and past it.
        for m in [&mut m, &mut want] {
            m.write(0x1fec, &[9; 8]);
            m.write_u32(0x2000, 0xdead_beef);
            m.write_u32s_from(0x2028, &[0x0403_0201, 0x0807_0605, 0x0c0b_0a09]);
            m.write_u32s([(0x202e, 0x1122_3344), (0x1ff2, 7), (0x3000, 8)]);
            m.set(0x2030, 0xee);
        }
        assert_eq!(m, want);
        let mut words = [0u32; 20];
        let mut wanted = [0u32; 20];
        m.read_u32s_into(0x1fe4, &mut words);
        want.read_u32s_into(0x1fe4, &mut wanted);
        assert_eq!(words, wanted);
        assert_eq!(m.read_u32(0x2000), 0xdead_beef);
        assert_eq!(
            m.region(0x2000, 4),
            Some((&[0xef, 0xbe, 0xad, 0xde][..], false))
        );
        assert_eq!(m.region(0x202e, 4), None, "past the region's end");
        // The chunks `pages()` yields hold every byte once, as the pages-only memory's bytes.
        let mut seen = std::collections::BTreeMap::new();
        for (a, chunk) in m.pages() {
            assert!(
                chunk.len() <= PAGE - (a as usize & (PAGE - 1)),
                "inside one page"
            );
            for (i, &b) in chunk.iter().enumerate() {
                assert!(
                    seen.insert(a + i as u64, b).is_none(),
                    "0x{:x} twice",
                    a + i as u64
                );
            }
        }
        for (&a, &b) in &seen {
            assert_eq!(want.byte(a), b, "0x{a:x}");
        }
        assert_eq!(
            seen.len(),
            3 * PAGE,
            "three pages, part of two as the region"
        );
        // One byte different: not equal, either way round.
        m.write(0x2010, &[m.byte(0x2010) ^ 1]);
        assert_ne!(m, want);
        assert_ne!(want, m);
        // A page a region touches is not handed out whole.
        assert!(m.page_of(0x1000).is_none() && m.page_of(0x3000).is_some());
    }

    #[test]
    fn issue_11_regions_place_take_and_refuse_overlaps() {
        let (mut m, _) = region_pair();
        assert_eq!(
            m.add_region(0x2020, vec![1; 0x20], false),
            Err(vec![1; 0x20])
        );
        assert_eq!(
            m.add_region(0x1fe0, vec![1; 0x11], false),
            Err(vec![1; 0x11])
        );
        assert_eq!(
            m.add_region(u64::MAX - 3, vec![1; 8], false),
            Err(vec![1; 8])
        );
        assert_eq!(m.add_region(0x9000, Vec::new(), false), Err(Vec::new()));
        // Touching regions are fine; a read across both reads both.
        m.add_region(0x2030, vec![0xaa; 0x10], false)
            .expect("touches, no overlap");
        assert_eq!(m.read_vec(0x202f, 3), vec![0x65, 0xaa, 0xaa]);
        assert_eq!(m.region_len(0x2030), Some(0x10));
        // Taking a region back hands its bytes over; its addresses then read as unwritten.
        let bytes = m.take_region(0x1ff0).expect("held");
        assert_eq!((bytes.len(), bytes[0]), (0x40, 0x5a));
        assert_eq!(m.read_vec(0x1fee, 4), vec![1, 1, 0, 0]);
        assert_eq!(m.take_region(0x1ff0), None);
        // A region over whole pages drops them; wrapping reads cross from the top to 0.
        let mut w = SparseMemory::new();
        w.write(0x4000, &[3; 3 * PAGE]);
        w.add_region(0x4ff0, vec![4; PAGE + 0x20], false)
            .expect("free");
        assert_eq!(w.pages.len(), 2, "the page inside the region is dropped");
        assert_eq!(w.read_vec(0x4fef, 2), vec![3, 4]);
        assert_eq!(w.read_vec(0x600f, 3), vec![4, 3, 3]);
        w.add_region(0, vec![6; 4], true).expect("free");
        assert_eq!(
            w.region(1, 2),
            Some((&[6, 6][..], true)),
            "the owner's mapped flag"
        );
        w.write(u64::MAX - 1, &[7; 4]);
        assert_eq!(w.read_vec(u64::MAX - 2, 6), vec![0, 7, 7, 7, 7, 6]);
        w.zero_present(0x5000, 0x1010);
        assert_eq!(w.read_vec(0x4fff, 3), vec![4, 0, 0]);
        assert_eq!(w.read_vec(0x600f, 3), vec![0, 3, 3]);
        w.clear();
        assert!(w.is_empty() && w.read_vec(0, 4) == vec![0; 4]);
    }

    #[test]
    fn issue_11_memory_stays_small_to_move() {
        // A dispatcher moves the global memory and the LDS into a wave at every resume.
        assert!(std::mem::size_of::<SparseMemory>() <= 64);
    }

    #[test]
    fn issue_14_watched_range_inside_a_region_sees_every_writer() {
        let (mut m, _) = region_pair();
        m.watch_writes(0x2004, 4);
        m.write_u32(0x2000, 1);
        m.write_u32s_from(0x2008, &[2, 3]);
        assert!(m.region_mut(0x2010, 16).is_some());
        assert!(!m.take_watched_write(), "writes beside the watched bytes");
        m.write_u32(0x2006, 1);
        assert!(m.take_watched_write(), "write_u32");
        m.write_u32s_from(0x1ffc, &[5; 4]);
        assert!(m.take_watched_write(), "write_u32s_from");
        m.write_u32s([(0x2007, 5)]);
        assert!(m.take_watched_write(), "write_u32s");
        assert!(m.region_mut(0x2000, 8).is_some());
        assert!(m.take_watched_write(), "region_mut");
        let mut n = SparseMemory::new();
        n.watch_writes(0x2004, 4);
        assert!(n.add_region(0x2000, vec![0; 8], false).is_ok());
        assert!(n.take_watched_write(), "placing a region is a write");
    }
}
