//! Sparse byte-addressed memory in 4 KiB pages: the global memory, LDS and scratch of the
//! wave layer and the byte memory of a single-instruction [`crate::exec::Machine`].
//!
//! Unwritten bytes read as zero and reading never allocates, so a 64-bit address space
//! costs only the pages written. A page lookup is one hash of the page number (a
//! multiplicative hash: page numbers are not attacker-chosen keys), so an access costs one
//! lookup per page it touches rather than one per byte.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

mod host;
mod region;
#[cfg(test)]
mod tests;

use host::HostRanges;
use region::{Place, Region};

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
                host: Some(HostRanges::Ranges(merged)),
                ..Extra::default()
            })),
            ..SparseMemory::default()
        }
    }

    /// A memory that reads as `base` until written: the first write to a page copies the
    /// page's bytes from `base` in, and `base` is never written. [`SparseMemory::pages`]
    /// then yields only the pages written, so what changed is found without reading all of
    /// `base` (threads of one launch each run on one over the launch's memory).
    pub fn over(base: Arc<SparseMemory>) -> SparseMemory {
        SparseMemory {
            extra: Some(Box::new(Extra {
                host: Some(HostRanges::Base(base)),
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
            // A page the write covers whole needs no first contents.
            let page = self.page_entry(at, n < PAGE);
            page[off..off + n].copy_from_slice(&bytes[done..done + n]);
            done += n;
            at = at.wrapping_add(n as u64);
        }
    }

    /// The page holding `addr`, made if absent (from a spare buffer when there is one), and
    /// then, with `fill`, given the bytes it reads as (zero, or the host's).
    fn page_entry(&mut self, addr: u64, fill: bool) -> &mut [u8; PAGE] {
        let (host, spare) = match self.extra.as_deref_mut() {
            Some(e) => (e.host.as_ref(), Some(&mut e.spare)),
            None => (None, None),
        };
        self.pages.entry(addr >> PAGE_BITS).or_insert_with(|| {
            let mut p = spare
                .and_then(|s| s.0.pop())
                .unwrap_or_else(|| Box::new([0; PAGE]));
            if fill {
                match host {
                    Some(h) => h.fill(addr & !(PAGE as u64 - 1), &mut p[..]),
                    None => p.fill(0),
                }
            }
            p
        })
    }

    /// The page holding `addr` of a memory without regions, to write: made from the bytes it
    /// reads as when absent. (A view writes a span of its base's regions here.)
    fn page_mut(&mut self, addr: u64) -> &mut [u8; PAGE] {
        self.page_entry(addr, true)
    }

    /// The memory a view reads through ([`SparseMemory::over`]).
    #[inline]
    fn base(&self) -> Option<&SparseMemory> {
        match self.host()? {
            HostRanges::Base(b) => Some(b),
            HostRanges::Ranges(_) => None,
        }
    }

    /// Takes the written pages of a view ([`SparseMemory::over`]) out, whole, as
    /// (address, page) pairs: a view holds no regions, so each page holds exactly the bytes
    /// at its addresses. The view keeps its base and reads as the base again.
    pub(crate) fn take_pages(&mut self) -> Vec<(u64, Box<[u8; PAGE]>)> {
        debug_assert!(self.regions.is_empty());
        self.pages
            .drain()
            .map(|(n, p)| (n << PAGE_BITS, p))
            .collect()
    }

    /// Keeps `pages` as spare buffers for the pages this memory allocates next.
    pub(crate) fn keep_spare(&mut self, pages: impl Iterator<Item = Box<[u8; PAGE]>>) {
        self.extra_mut().spare.keep(pages);
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
