//! Running a block whose instructions include calls to the caller's own `extern "C"`
//! functions (`BlockInst::code` may be any function with the kernel signature, such as the
//! wave layer's memory accesses): the raw status is returned, so the caller can give its own
//! codes a meaning (stop before or after an instruction), with the iterations completed.

use super::{BlockFn, RawBlock};
use crate::jit::runtime::Ctx;

impl BlockFn {
    /// Runs the block like [`BlockFn::run`] on raw register files. Returns the block's
    /// return value (0, or `index << 32 | status` for the first call that returned a nonzero
    /// status) and the iterations completed before the one that stopped (all of them when
    /// it returned 0).
    ///
    /// # Safety
    /// `sgpr` must address [`super::SGPR_WORDS`] and `vgpr` [`super::VGPR_WORDS`] words that nothing else
    /// reads or writes during the call except the functions the block calls; those must have
    /// the kernel signature and not read their context beyond its fields.
    ///
    /// # Panics
    /// If the arena is smaller than the block's (a bug of the caller in this crate).
    pub unsafe fn run_raw(
        &self,
        sgpr: *mut u32,
        vgpr: *mut u32,
        scc: &mut bool,
        arena: &mut [u128],
        max_iters: u64,
    ) -> (u64, u64) {
        assert!(
            arena.len() * 16 >= self.arena_size,
            "bug: block arena smaller than the ABI"
        );
        let mut memory = crate::exec::NullMemory;
        let mut ctx = Ctx {
            memory: &mut memory,
            fp: Default::default(),
            helpers: &[],
            error: None,
        };
        let mut scc_byte = *scc as u8;
        let mut iters = max_iters.max(1);
        // SAFETY: `ptr` is finalized code with the `RawBlock` signature, kept alive by
        // `_owner`; the caller vouches for the register files and the functions called; the
        // arena covers the block's offsets (checked above and when it was compiled).
        let r = unsafe {
            let f: RawBlock = std::mem::transmute::<*const u8, RawBlock>(self.ptr);
            f(
                sgpr,
                vgpr,
                &mut scc_byte,
                arena.as_mut_ptr() as *mut u8,
                &mut ctx,
                &mut iters,
            )
        };
        *scc = scc_byte & 1 == 1;
        (r, iters)
    }
}

/// The error of a kernel status a block returned (block kernels call no helpers, so there is
/// no message beyond the kind).
pub fn status_error(status: u32) -> crate::interp::ExecError {
    match super::super::fault(status, None) {
        Err(e) => e,
        Ok(()) => crate::interp::ExecError {
            kind: crate::interp::ExecErrorKind::Unsupported(format!("block status {status}")),
            span: Default::default(),
        },
    }
}
