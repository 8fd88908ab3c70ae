//! Embedding: dispatches on memory the host process owns, for callers that link the library
//! (the C ABI in [`capi`], the Python package in `python/`).
//!
//! This module owns the host-memory mode of a dispatch: global addresses are the host's own
//! addresses, restricted to the ranges the embedder declares (plus the code image and the
//! kernarg segment the loader places). The dispatch's global memory is a [`SparseMemory`]
//! backed by the host ([`SparseMemory::with_host`]: pages not yet written read the host, a
//! page's first write copies it in), run by [`Dispatcher::run_on_memory`] with
//! [`Unmapped::Fault`] and the declared ranges mapped. No byte outside the declared ranges
//! is ever read from the host or written to it:
//! - a load reads the declared bytes it covers and zero for every other byte; it faults
//!   only when it touches no declared byte and reaches a 4 KiB page that holds none
//!   ([`crate::wave::LoadRule::Declared`]), so an over-read at a buffer's end (a compiler's
//!   wide load of a short tail) never faults, wherever the host placed the buffer;
//! - a store or atomic faults unless every byte it writes is declared, at the first such
//!   instruction, and the dispatch then ends.
//!
//! A fault is a [`DispatchError::Wave`] with a [`crate::wave::WaveError::MemoryFault`]
//! naming the wave, PC, instruction and address. After a successful dispatch only the bytes
//! that changed are written back, so a range the kernel only reads is never written; a
//! dispatch that fails writes nothing back.

pub mod capi;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::dispatch::{Code, DispatchError, Dispatcher, Launch, Outcome, Unmapped};
use crate::sparse::SparseMemory;
use crate::spec::{Locate, Spec, SpecError};

/// The spec wheel at `path` (default: the CLI's lookup), loaded once per process and path.
///
/// # Errors
/// Any error of [`crate::spec::find_wheel`] or [`Spec::load`].
pub fn spec(path: Option<PathBuf>) -> Result<Arc<Spec>, SpecError> {
    static LOADED: Mutex<Vec<(Option<PathBuf>, Arc<Spec>)>> = Mutex::new(Vec::new());
    let mut loaded = LOADED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, s)) = loaded.iter().find(|(p, _)| *p == path) {
        return Ok(s.clone());
    }
    let wheel = crate::spec::find_wheel(&Locate {
        explicit: path.clone(),
        offline: false,
    })?;
    let s = Arc::new(Spec::load(&wheel)?);
    loaded.push((path, s.clone()));
    Ok(s)
}

/// One range of host memory a dispatch may access: `len` bytes at the host address `addr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostRange {
    /// The first byte's address in this process.
    pub addr: u64,
    /// The length in bytes.
    pub len: u64,
}

/// The largest range accepted (the copy is held in memory during the dispatch).
pub const MAX_RANGE: u64 = 1 << 40;

fn check_ranges(ranges: &[HostRange]) -> Result<(), DispatchError> {
    for (i, r) in ranges.iter().enumerate() {
        if r.addr == 0 {
            return Err(DispatchError::Launch(format!(
                "host range {i}: null address"
            )));
        }
        if r.len > MAX_RANGE || r.addr.checked_add(r.len).is_none() {
            return Err(DispatchError::Launch(format!(
                "host range {i}: 0x{:x}+{} wraps or is too large",
                r.addr, r.len
            )));
        }
    }
    Ok(())
}

/// Runs `launch` on host memory: global memory is this process's memory, restricted to
/// `ranges` (plus the launch's own ranges, code image and kernarg): a store outside them is
/// a fault, and a load reads zero for the bytes outside them (it faults when it touches no
/// declared byte and reaches a page that holds none; see the module's documentation).
/// Reads of the ranges go to the host; a page's first write copies it into the
/// dispatch; when the dispatch succeeds, the bytes it changed are written back to the host
/// (in 64-byte blocks that differ), so a range the kernel only reads is never written.
///
/// # Errors
/// [`DispatchError::Launch`] for a null, wrapping or oversized range; any error of
/// [`Dispatcher::run`] (the host memory is then left as it was).
///
/// # Safety
/// For the whole call, every range in `ranges` must be memory of this process that is valid
/// for reads (and for writes where the kernel writes), and nothing else may access it
/// concurrently.
pub unsafe fn run_on_host(
    dispatcher: &mut Dispatcher,
    launch: &Launch,
    ranges: &[HostRange],
) -> Result<Outcome, DispatchError> {
    check_ranges(ranges)?;
    let mut l = launch.clone();
    l.unmapped = Unmapped::Fault;
    let pairs: Vec<(u64, u64)> = ranges.iter().map(|r| (r.addr, r.len)).collect();
    if let Code::Raw { bytes, addr, .. } = &l.code {
        // Raw code is mapped at its address; inside a declared range the host must hold the
        // same bytes, or writing back would copy the code over the host's memory.
        for r in ranges {
            let lo = r.addr.max(*addr);
            let hi = (r.addr + r.len).min(addr.saturating_add(bytes.len() as u64));
            if lo < hi {
                // SAFETY: `lo..hi` lies inside a range the caller guarantees readable.
                let host =
                    unsafe { std::slice::from_raw_parts(lo as *const u8, (hi - lo) as usize) };
                let code = &bytes[(lo - addr) as usize..(hi - addr) as usize];
                if host != code {
                    return Err(DispatchError::Launch(format!(
                        "code at 0x{addr:x} overlaps host range 0x{:x}+{} whose bytes differ",
                        r.addr, r.len
                    )));
                }
            }
        }
    }
    // SAFETY: the caller guarantees the ranges are readable for the whole call, which is
    // the memory's whole life (it is dropped below).
    let memory = unsafe { SparseMemory::with_host(&pairs) };
    let (out, memory) = dispatcher.run_on_memory(&l, memory, &pairs)?;
    const BLOCK: usize = 64;
    for (page_addr, page) in memory.pages() {
        for r in ranges {
            let lo = r.addr.max(page_addr);
            let hi = (r.addr + r.len).min(page_addr + page.len() as u64);
            let mut at = lo;
            while at < hi {
                let end = (at + BLOCK as u64 - at % BLOCK as u64).min(hi);
                let n = (end - at) as usize;
                let new = &page[(at - page_addr) as usize..][..n];
                // SAFETY: `at..end` lies inside a declared range, readable and writable by
                // the caller's guarantee (a changed block was written by the kernel, so the
                // caller vouched for writes there), and not accessed concurrently.
                unsafe {
                    let host = std::slice::from_raw_parts(at as *const u8, n);
                    if host != new {
                        std::ptr::copy_nonoverlapping(new.as_ptr(), at as *mut u8, n);
                    }
                }
                at = end;
            }
        }
    }
    // The page buffers serve the next launch on this dispatcher.
    dispatcher.keep_pages(memory);
    Ok(out)
}
