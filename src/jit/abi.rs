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

/// A slot buffer checked once against a kernel's layout size, so that runs over it need no
/// check (its length cannot change while it is borrowed).
pub struct CheckedSlots<'s> {
    buf: &'s mut [u8],
}

impl<'s> CheckedSlots<'s> {
    /// `buf` when it covers `min_size` bytes.
    pub fn new(buf: &'s mut [u8], min_size: usize) -> Option<CheckedSlots<'s>> {
        (buf.len() >= min_size).then_some(CheckedSlots { buf })
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        self.buf
    }

    /// The bytes, writable (the length stays).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        self.buf
    }
}

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
        let mut checked = CheckedSlots::new(slots, min_size)
            .expect("bug: slot buffer smaller than the kernel's layout");
        self.call_checked(&mut checked, ctx, n_lanes, exec)
    }

    /// Runs the kernel over a slot buffer checked when it was bound: `checked` must have been
    /// made with the size of this kernel's layout (the callers in `jit` pair them).
    #[inline]
    pub fn call_checked(
        &self,
        checked: &mut CheckedSlots<'_>,
        ctx: &mut Ctx<'_>,
        n_lanes: u32,
        exec: u64,
    ) -> u32 {
        assert!(n_lanes <= 64, "bug: more than 64 lanes");
        // SAFETY: `ptr` is finalized code with the `RawKernel` signature (guaranteed by `new`'s
        // contract); the slot buffer covers the layout the kernel addresses (checked when
        // `checked` was made, with the layout size of the kernel it is used with), and lanes
        // stay below the 64 per-lane slots reserved; `ctx` outlives the call.
        unsafe {
            let f: RawKernel = std::mem::transmute::<*const u8, RawKernel>(self.ptr);
            f(checked.buf.as_mut_ptr(), ctx as *mut Ctx<'_>, n_lanes, exec)
        }
    }
}
