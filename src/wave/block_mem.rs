//! Plain loads and stores inside blocks: a block instruction that calls
//! [`access`], an `extern "C"` function with the kernel signature, which runs the access from
//! its prepared form (`memprep.rs`) on the wave, exactly as a step does.
//!
//! The instruction's slot holds a pointer to its [`MemCall`] (owned by the block, so the
//! address is stable); the block's runner stores the wave's address in each call before the
//! block runs. The function returns:
//! - 0 when the access was done and the block goes on;
//! - [`AFTER`] when it was done and wrote the range the wave's memory watches (a store into
//!   the code): the block stops after it, as `run_until` does after such a step;
//! - [`BEFORE`] when the prepared form does not apply (an address sum that wraps): nothing
//!   changed, the block stops before it and the executor steps it through its pseudocode;
//! - [`FAULT`] when the access faulted: the error is in the call, the state is what the
//!   step would have left.

use std::cell::{Cell, RefCell};

use super::memprep::{self, MemOp};
use super::{Decoded, WaveError, WaveState};
use crate::jit::runtime::Ctx;

/// The access was done and wrote the watched range: stop after it.
pub(super) const AFTER: u32 = 0x4d45_0001;
/// The access was not done: stop before it.
pub(super) const BEFORE: u32 = 0x4d45_0002;
/// The access faulted: the error is in [`MemCall::error`].
pub(super) const FAULT: u32 = 0x4d45_0003;

/// One memory instruction of a block.
pub(super) struct MemCall {
    pub(super) op: MemOp,
    pub(super) d: Decoded,
    /// The wave the block runs on (set before each run).
    pub(super) wave: Cell<*mut WaveState>,
    /// The fault of the last run, if any.
    pub(super) error: RefCell<Option<WaveError>>,
}

impl MemCall {
    pub(super) fn new(op: MemOp, d: Decoded) -> Box<MemCall> {
        Box::new(MemCall {
            op,
            d,
            wave: Cell::new(std::ptr::null_mut()),
            error: RefCell::new(None),
        })
    }
}

/// The code address a block instruction calls for a memory access.
pub(super) fn access_address() -> usize {
    access as *const () as usize
}

/// Runs the access of the [`MemCall`] whose address is in the first 8 bytes of `slots`.
extern "C" fn access(slots: *mut u8, _ctx: *mut Ctx<'_>, _lanes: u32, _exec: u64) -> u32 {
    // SAFETY: the block compiled for this call stores a live `MemCall`'s address in its slot
    // (`wave::block`), and its runner set `wave` to the wave the block runs on, whose
    // register files the block code does not touch while this call runs.
    let call = unsafe { &*(std::ptr::read_unaligned(slots as *const usize) as *const MemCall) };
    let wave = call.wave.get();
    if wave.is_null() {
        return BEFORE;
    }
    // SAFETY: as above.
    let w = unsafe { &mut *wave };
    // Unwinding across the `extern "C"` boundary would abort: a panic is a bug, so the access
    // is left to the step path instead.
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        memprep::run(&call.op, &call.d, w)
    }));
    match r {
        Ok(Some(Ok(()))) if w.memory.watched_write() => AFTER,
        Ok(Some(Ok(()))) => 0,
        Ok(Some(Err(e))) => {
            *call.error.borrow_mut() = Some(e);
            FAULT
        }
        Ok(None) | Err(_) => BEFORE,
    }
}
