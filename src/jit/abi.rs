//! The only place that calls generated code.

use super::runtime::Ctx;

/// A compiled kernel's entry point, valid while the JIT module that owns the code lives.
#[derive(Clone, Copy, Debug)]
pub struct KernelFn {
    ptr: *const u8,
}

// SAFETY: the code pointer refers to immutable, finalized machine code; calling it is
// thread-safe as long as each call gets its own slots and context.
unsafe impl Send for KernelFn {}
// SAFETY: see `Send`.
unsafe impl Sync for KernelFn {}

type RawKernel = unsafe extern "C" fn(*mut u8, *mut Ctx<'_>, u32, u64) -> u32;

impl KernelFn {
    /// Wraps a finalized function pointer.
    ///
    /// # Safety
    /// `ptr` must be the finalized code of a function built with
    /// `translate::kernel_signature`, and must stay valid as long as this value is used.
    pub unsafe fn new(ptr: *const u8) -> KernelFn {
        KernelFn { ptr }
    }

    /// The code's address.
    pub fn ptr(&self) -> *const u8 {
        self.ptr
    }

    /// Runs the kernel over `slots` for lanes below `n_lanes` whose `exec` bit is set.
    ///
    /// # Panics
    /// If `slots` is smaller than the layout the kernel was compiled for (a bug of the caller
    /// in this crate; the public API sizes it).
    #[inline]
    pub fn call(
        &self,
        slots: &mut [u8],
        min_size: usize,
        ctx: &mut Ctx<'_>,
        n_lanes: u32,
        exec: u64,
    ) -> u32 {
        assert!(
            slots.len() >= min_size,
            "bug: slot buffer smaller than the kernel's layout"
        );
        assert!(n_lanes <= 64, "bug: more than 64 lanes");
        // SAFETY: `ptr` is finalized code with the `RawKernel` signature (guaranteed by `new`'s
        // contract); the slot buffer covers the layout the kernel addresses (checked above), and
        // lanes stay below the 64 per-lane slots reserved; `ctx` outlives the call.
        unsafe {
            let f: RawKernel = std::mem::transmute::<*const u8, RawKernel>(self.ptr);
            f(slots.as_mut_ptr(), ctx as *mut Ctx<'_>, n_lanes, exec)
        }
    }
}
