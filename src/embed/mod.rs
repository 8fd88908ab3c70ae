//! Embedding: dispatches on memory the host process owns, for callers that link the library
//! (the C ABI in [`capi`], the Python package in `python/`).
//!
//! This module owns the host-memory mode of a dispatch: global addresses are the host's own
//! addresses, restricted to the ranges the embedder declares (plus the code image and the
//! kernarg segment the loader places). It is copy-in / copy-out around an ordinary
//! [`Dispatcher::run`]: each declared range is read from the host into the launch's memory,
//! the dispatch runs with [`Unmapped::Fault`] (so an access outside the declared ranges is a
//! [`DispatchError::Wave`] with a [`crate::wave::WaveError::MemoryFault`] naming the wave,
//! PC, instruction and address, and never touches the host), and only the bytes the dispatch
//! changed are written back, so a range the kernel only reads is never written. A dispatch that
//! fails writes nothing back.

pub mod capi;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::dispatch::{DispatchError, Dispatcher, Launch, Outcome, Unmapped};
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

/// Runs `launch` on host memory: `ranges` are added to `launch.memory` (read from the
/// host), the launch runs with every access outside mapped memory a fault, and the bytes
/// the dispatch changed in each range are written back to the host. The returned
/// [`Outcome::memory`] holds the launch's own ranges first, then the host ranges' final
/// bytes in the order given.
///
/// # Errors
/// [`DispatchError::Launch`] for a null, wrapping or oversized range; any error of
/// [`Dispatcher::run`] (the host memory is then left as it was).
///
/// # Safety
/// For the whole call, every range in `ranges` must be memory of this process that is valid
/// for reads and writes of `len` bytes, and nothing else may access it concurrently. A range
/// that the dispatch does not change is only read.
pub unsafe fn run_on_host(
    dispatcher: &mut Dispatcher,
    launch: &Launch,
    ranges: &[HostRange],
) -> Result<Outcome, DispatchError> {
    check_ranges(ranges)?;
    let mut l = launch.clone();
    l.unmapped = Unmapped::Fault;
    let own = l.memory.len();
    for r in ranges {
        // SAFETY: the caller guarantees `r` is readable for `len` bytes; the length fits
        // in memory (checked against MAX_RANGE above, and the copy below allocates it).
        let host = unsafe { std::slice::from_raw_parts(r.addr as *const u8, r.len as usize) };
        l.memory.push((r.addr, host.to_vec()));
    }
    let out = dispatcher.run(&l)?;
    for (r, ((_, before), (_, after))) in ranges
        .iter()
        .zip(l.memory[own..].iter().zip(&out.memory[own..]))
    {
        // Write back the changed bytes only, in 64-byte blocks (compared whole first).
        const BLOCK: usize = 64;
        let mut i = 0;
        while i < after.len() {
            let end = (i + BLOCK).min(after.len());
            if after[i..end] != before[i..end] {
                // SAFETY: `i..end` lies inside the range, which the caller guarantees is
                // writable (it changed, so the kernel wrote it) and not accessed concurrently.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        after[i..end].as_ptr(),
                        (r.addr as *mut u8).add(i),
                        end - i,
                    );
                }
            }
            i = end;
        }
    }
    Ok(out)
}
