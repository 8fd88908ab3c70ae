//! Regions: large contiguous buffers held at an address inside a [`SparseMemory`] and
//! consulted before the pages (a dispatch's launch buffers, code, kernarg and LDS), and how an
//! access finds where its bytes are held.

use super::{SparseMemory, PAGE, PAGE_BITS};

/// A region: `bytes` at `start` (the range never wraps the address space).
#[derive(Clone)]
pub(super) struct Region {
    pub(super) start: u64,
    pub(super) bytes: Vec<u8>,
    /// The owner's word that the whole region is mapped memory (see
    /// [`SparseMemory::add_region`]).
    pub(super) mapped: bool,
}

impl Region {
    pub(super) fn end(&self) -> u64 {
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
    /// The region is the base memory's ([`SparseMemory::over`]): reading reads it there,
    /// writing first copies the one page the span lies in (as [`SparseMemory::write`]).
    in_base: bool,
}

/// Where the bytes of an access are held.
pub(super) enum Place {
    /// Outside every region: in the pages (or absent).
    Pages,
    /// Inside region `index`, from its byte `at` on.
    Region { index: usize, at: usize },
    /// Partly in a region, or wrapping the address space: split at region edges.
    Mixed,
}

impl SparseMemory {
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
            Place::Pages => {
                let (base, index, at) = self.base_span(addr, n)?;
                let r = &base.regions[index];
                Some((&r.bytes[at..at + n], r.mapped))
            }
            Place::Mixed => None,
        }
    }

    /// For a view ([`SparseMemory::over`]): where the `n` bytes at `addr` lie in a region of
    /// the base memory, when they lie in one page this view has not written (so they read
    /// as the base's bytes) and inside one region of the base.
    #[inline]
    fn base_span(&self, addr: u64, n: usize) -> Option<(&SparseMemory, usize, usize)> {
        let base = self.base()?;
        let off = (addr as usize) & (PAGE - 1);
        if n == 0 || off + n > PAGE || self.pages.contains_key(&(addr >> PAGE_BITS)) {
            return None;
        }
        match base.place(addr, n) {
            Place::Region { index, at } => Some((base, index, at)),
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
                RegionSpan {
                    addr,
                    index,
                    at,
                    n,
                    in_base: false,
                },
                self.regions[index].mapped,
            )),
            Place::Pages => {
                let (base, index, at) = self.base_span(addr, n)?;
                let span = RegionSpan {
                    addr,
                    index,
                    at,
                    n,
                    in_base: true,
                };
                Some((span, base.regions[index].mapped))
            }
            Place::Mixed => None,
        }
    }

    /// The bytes of a span this memory gave (regions and pages unchanged since).
    #[inline]
    pub(crate) fn span_bytes(&self, s: RegionSpan) -> &[u8] {
        let regions = match self.base() {
            Some(base) if s.in_base => &base.regions,
            _ => &self.regions,
        };
        &regions[s.index].bytes[s.at..s.at + s.n]
    }

    /// The bytes of a span this memory gave (regions and pages unchanged since), to write;
    /// the write is recorded for the watched range as [`SparseMemory::region_mut`] records
    /// it. A span in the base memory's regions writes this view's copy of its page (made
    /// now from the base's bytes).
    #[inline]
    pub(crate) fn span_bytes_mut(&mut self, s: RegionSpan) -> &mut [u8] {
        self.note_write(s.addr, s.addr + s.n as u64);
        if s.in_base {
            let off = (s.addr as usize) & (PAGE - 1);
            return &mut self.page_mut(s.addr)[off..off + s.n];
        }
        &mut self.regions[s.index].bytes[s.at..s.at + s.n]
    }

    /// How many regions start before `addr` (a binary search written out: regions are few
    /// and this runs on every access).
    #[inline]
    pub(super) fn regions_before(&self, addr: u64) -> usize {
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
    pub(super) fn note_write(&mut self, addr: u64, end: u64) {
        if let Some(e) = &mut self.extra {
            if let Some((lo, hi)) = e.watch.range {
                if addr < hi && lo < end {
                    e.watch.hit = true;
                }
            }
        }
    }

    /// Drops (or zeroes the parts of) the pages under `[addr, end)`.
    pub(super) fn drop_pages_in(&mut self, addr: u64, end: u64) {
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
    pub(super) fn place(&self, addr: u64, n: usize) -> Place {
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
    pub(super) fn split(
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
}
