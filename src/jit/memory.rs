//! Executable memory for kernels, placed near this crate's own code.
//!
//! Why: on x86-64 an indirect call from Rust into a kernel whose code lies gigabytes away
//! (where `mmap` puts anonymous memory by default, ~0x7f.. while a PIE binary sits at
//! ~0x55..) costs about 0.45 ns more per call than the same bytes placed within a gigabyte of
//! the caller (measured on the bench machine: S_ADD_U32's kernel 2.0 ns far, 1.55 ns near; the
//! branch predictors keep partial targets). Kernels of one or two nanoseconds feel that, so
//! each JIT module reserves its address space close to the crate's text and carves pages
//! out of it. When no room is found nearby the reservation goes anywhere: slower calls,
//! same results.
//!
//! Only on x86-64 Linux (elsewhere [`provider`] returns `None` and Cranelift's default
//! provider is used). Memory is returned to the system when the module is dropped, which
//! happens only after the last kernel of the module is gone (kernels own the module).

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub(super) use imp::provider;

/// Cranelift's default provider serves other hosts.
#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
pub(super) fn provider() -> Option<Box<dyn cranelift_jit::JITMemoryProvider + Send>> {
    None
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod imp {
    use std::io;

    use cranelift_jit::{BranchProtection, JITMemoryKind, JITMemoryProvider};
    use cranelift_module::ModuleResult;

    const PAGE: usize = 4096;
    /// Address space reserved at a time (committed page by page as code is written).
    pub(super) const CHUNK: usize = 64 << 20;
    /// How far from the anchor a reservation may lie.
    pub(super) const REACH: usize = 1 << 30;

    /// A provider for a new JIT module, or `None` when no address space can be reserved at
    /// all (the caller then uses Cranelift's default).
    pub(in crate::jit) fn provider() -> Option<Box<dyn JITMemoryProvider + Send>> {
        let anchor = crate::jit::runtime::amdp_helper as *const u8 as usize;
        let chunk = Chunk::reserve_near(anchor)?;
        Some(Box::new(NearArena {
            anchor,
            chunks: vec![chunk],
            open: [None, None, None],
            closed: Vec::new(),
        }))
    }

    /// A reserved range of address space; pages below `used` are handed out.
    struct Chunk {
        base: usize,
        used: usize,
    }

    impl Chunk {
        fn reserve_near(anchor: usize) -> Option<Chunk> {
            let anchor = anchor & !(PAGE - 1);
            // Below the binary first (the heap grows upwards from its end), then above.
            let below = (1..=REACH / CHUNK).filter_map(|k| anchor.checked_sub(k * CHUNK));
            let above = (1..=REACH / CHUNK).map(|k| anchor + REACH / 2 + k * CHUNK);
            for hint in below.chain(above) {
                if let Some(base) = map(hint, libc::MAP_FIXED_NOREPLACE) {
                    if base == hint {
                        return Some(Chunk { base, used: 0 });
                    }
                    // An old kernel treats the flag as a hint: give back a far mapping.
                    unmap(base, CHUNK);
                }
            }
            map(0, 0).map(|base| Chunk { base, used: 0 })
        }

        fn room(&self) -> usize {
            CHUNK - self.used
        }
    }

    fn map(hint: usize, extra: i32) -> Option<usize> {
        // SAFETY: an anonymous PROT_NONE mapping; with a hint and MAP_FIXED_NOREPLACE the
        // kernel never replaces an existing mapping.
        let p = unsafe {
            libc::mmap(
                hint as *mut libc::c_void,
                CHUNK,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | extra,
                -1,
                0,
            )
        };
        (p != libc::MAP_FAILED).then_some(p as usize)
    }

    fn unmap(base: usize, len: usize) {
        // SAFETY: `base..base + len` is a mapping this module made and nothing points into.
        unsafe {
            libc::munmap(base as *mut libc::c_void, len);
        }
    }

    fn protect(base: usize, len: usize, prot: i32) -> io::Result<()> {
        // SAFETY: `base..base + len` lies inside a chunk this module reserved.
        let r = unsafe { libc::mprotect(base as *mut libc::c_void, len, prot) };
        if r == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// Pages handed out for one kind of memory, writable until the next `finalize`.
    struct Segment {
        base: usize,
        len: usize,
        used: usize,
        kind: usize,
    }

    struct NearArena {
        anchor: usize,
        chunks: Vec<Chunk>,
        /// The writable segment of each kind (executable, writable, read-only).
        open: [Option<Segment>; 3],
        /// Segments written since the last `finalize`, no longer open.
        closed: Vec<Segment>,
    }

    // SAFETY: the arena only holds addresses; the module that owns it serialises access.
    unsafe impl Send for NearArena {}

    fn kind_index(kind: &JITMemoryKind) -> usize {
        match kind {
            JITMemoryKind::Executable => 0,
            JITMemoryKind::Writable => 1,
            JITMemoryKind::ReadOnly => 2,
        }
    }

    const FINAL_PROT: [i32; 3] = [
        libc::PROT_READ | libc::PROT_EXEC,
        libc::PROT_READ | libc::PROT_WRITE,
        libc::PROT_READ,
    ];

    fn align_up(x: usize, a: usize) -> usize {
        x.div_ceil(a) * a
    }

    impl NearArena {
        /// Fresh writable pages for at least `bytes`, after the pages already given out.
        fn pages(&mut self, bytes: usize) -> io::Result<(usize, usize)> {
            let len = align_up(bytes.max(1), PAGE);
            if len > CHUNK {
                return Err(io::Error::other("a JIT allocation larger than a chunk"));
            }
            if self.chunks.last().is_none_or(|c| c.room() < len) {
                let c = Chunk::reserve_near(self.anchor)
                    .ok_or_else(|| io::Error::other("cannot reserve JIT memory"))?;
                self.chunks.push(c);
            }
            let c = self.chunks.last_mut().expect("a chunk was just ensured");
            let base = c.base + c.used;
            protect(base, len, libc::PROT_READ | libc::PROT_WRITE)?;
            c.used += len;
            Ok((base, len))
        }
    }

    impl JITMemoryProvider for NearArena {
        fn allocate(
            &mut self,
            size: usize,
            align: u64,
            kind: JITMemoryKind,
        ) -> io::Result<*mut u8> {
            let align = usize::try_from(align)
                .ok()
                .filter(|a| a.is_power_of_two() && *a <= PAGE)
                .ok_or_else(|| io::Error::other("JIT alignment above a page"))?;
            let k = kind_index(&kind);
            if let Some(s) = &mut self.open[k] {
                let at = align_up(s.base + s.used, align);
                if at + size <= s.base + s.len {
                    s.used = at + size - s.base;
                    return Ok(at as *mut u8);
                }
                // Grow in place when the segment ends where the chunk's free pages begin.
                let c = self.chunks.last().expect("an open segment has a chunk");
                let end = s.base + s.len;
                let need = align_up(at + size - end, PAGE);
                if end == c.base + c.used && need <= c.room() {
                    protect(end, need, libc::PROT_READ | libc::PROT_WRITE)?;
                    self.chunks.last_mut().expect("checked").used += need;
                    s.len += need;
                    s.used = at + size - s.base;
                    return Ok(at as *mut u8);
                }
            }
            if let Some(s) = self.open[k].take() {
                self.closed.push(s);
            }
            let (base, len) = self.pages(size)?;
            self.open[k] = Some(Segment {
                base,
                len,
                used: size,
                kind: k,
            });
            Ok(base as *mut u8)
        }

        unsafe fn free_memory(&mut self) {
            for c in self.chunks.drain(..) {
                unmap(c.base, CHUNK);
            }
            self.open = [None, None, None];
            self.closed.clear();
        }

        fn finalize(&mut self, _branch_protection: BranchProtection) -> ModuleResult<()> {
            // x86-64 keeps instruction fetch coherent with stores: no cache maintenance.
            let segments = self
                .closed
                .drain(..)
                .chain(self.open.iter_mut().filter_map(Option::take));
            for s in segments.collect::<Vec<_>>() {
                protect(s.base, s.len, FINAL_PROT[s.kind])
                    .map_err(|e| cranelift_module::ModuleError::Allocation { err: e })?;
            }
            Ok(())
        }
    }

    impl Drop for NearArena {
        fn drop(&mut self) {
            // SAFETY: the arena is dropped with its JIT module, after every kernel (each
            // holds the module) is gone, so no code in it can run again.
            unsafe { self.free_memory() }
        }
    }
}

#[cfg(all(test, target_os = "linux", target_arch = "x86_64"))]
mod tests {
    use cranelift_jit::{BranchProtection, JITMemoryKind};

    use super::imp::{provider, CHUNK, REACH};

    fn anchor() -> usize {
        crate::jit::runtime::amdp_helper as *const u8 as usize
    }

    #[test]
    fn allocations_are_aligned_and_near_the_crate() {
        let mut p = provider().expect("address space");
        for (size, align) in [(1, 1), (100, 16), (5000, 64), (3, 8), (4096, 4096)] {
            let a = p
                .allocate(size, align, JITMemoryKind::Executable)
                .expect("allocates") as usize;
            assert_eq!(a % align as usize, 0, "{size} bytes aligned {align}");
            assert!(a.abs_diff(anchor()) <= REACH + CHUNK, "{a:#x} is far");
        }
        let d = p.allocate(64, 8, JITMemoryKind::Writable).expect("data") as usize;
        assert!(d.abs_diff(anchor()) <= REACH + CHUNK);
    }

    #[test]
    fn finalized_code_runs_and_later_code_gets_new_pages() {
        let mut p = provider().expect("address space");
        let mut code = |imm: u8| {
            let a = p.allocate(6, 16, JITMemoryKind::Executable).expect("code");
            // mov eax, imm32; ret
            let bytes = [0xb8, imm, 0, 0, 0, 0xc3];
            // SAFETY: `a` points at 6 writable bytes the provider just handed out.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), a, 6) };
            p.finalize(BranchProtection::None).expect("protects");
            a as usize
        };
        let (f, g) = (code(42), code(7));
        assert_ne!(
            f / 4096,
            g / 4096,
            "code after a finalize must not share a page"
        );
        for (at, want) in [(f, 42), (g, 7)] {
            // SAFETY: `at` holds the finalized `mov eax, imm; ret` written above.
            let run: extern "C" fn() -> u32 = unsafe { std::mem::transmute(at) };
            assert_eq!(run(), want);
        }
    }

    #[test]
    fn grows_past_a_chunk_and_rejects_oversized_requests() {
        let mut p = provider().expect("address space");
        let part = CHUNK / 2 + 4096;
        let a = p
            .allocate(part, 16, JITMemoryKind::ReadOnly)
            .expect("first") as usize;
        let b = p
            .allocate(part, 16, JITMemoryKind::ReadOnly)
            .expect("second") as usize;
        let c = p
            .allocate(part, 16, JITMemoryKind::ReadOnly)
            .expect("third") as usize;
        for (x, y) in [(a, b), (b, c), (a, c)] {
            assert!(x + part <= y || y + part <= x, "{x:#x} and {y:#x} overlap");
        }
        let err = p
            .allocate(CHUNK + 1, 16, JITMemoryKind::Executable)
            .expect_err("bigger than a chunk");
        assert!(err.to_string().contains("larger than a chunk"), "{err}");
        assert!(p.allocate(8, 8192, JITMemoryKind::Executable).is_err());
    }
}
