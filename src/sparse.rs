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

    /// Whether no byte was ever written.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// Forgets every byte.
    pub fn clear(&mut self) {
        self.pages.clear();
    }

    /// The byte at `addr`.
    pub fn byte(&self, addr: u64) -> u8 {
        self.pages
            .get(&(addr >> PAGE_BITS))
            .map_or(0, |p| p[(addr as usize) & (PAGE - 1)])
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
                None => out[done..done + n].fill(0),
            }
            done += n;
            at = at.wrapping_add(n as u64);
        }
    }

    /// `n` bytes from `addr` as a vector.
    pub fn read_vec(&self, addr: u64, n: usize) -> Vec<u8> {
        let mut v = vec![0; n];
        self.read(addr, &mut v);
        v
    }

    /// Writes `bytes` from `addr` on.
    pub fn write(&mut self, addr: u64, bytes: &[u8]) {
        let mut at = addr;
        let mut done = 0;
        while done < bytes.len() {
            let off = (at as usize) & (PAGE - 1);
            let n = (PAGE - off).min(bytes.len() - done);
            let page = self
                .pages
                .entry(at >> PAGE_BITS)
                .or_insert_with(|| Box::new([0; PAGE]));
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
}
