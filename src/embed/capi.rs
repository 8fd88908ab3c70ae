//! The C ABI (`include/amdpcode.h`): opaque engine and launch handles, host memory ranges,
//! dispatch, and the last error of the calling thread as a string.
//!
//! This module owns the boundary: every function checks its pointers, catches panics
//! (`std::panic::catch_unwind`) and reports failures as an [`amdpcode_status`] code (or a
//! null handle) with the message kept for [`amdpcode_last_error`]. Nothing unwinds into C.
//! The types keep their C names (`amdpcode_engine`, ...) so the header and the Rust side
//! read alike.
#![allow(non_camel_case_types)]

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use super::{run_on_host, HostRange};
use crate::dispatch::{Code, DispatchError, Dispatcher, Launch, Unmapped};
use crate::spec::Arch;
use crate::wave::Engine;

/// The result of a call.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum amdpcode_status {
    /// Success.
    AMDPCODE_OK = 0,
    /// A null pointer, non-UTF-8 text, an unknown arch or another bad argument.
    AMDPCODE_ERROR_ARGUMENT = 1,
    /// The spec wheel could not be found or loaded.
    AMDPCODE_ERROR_SPEC = 2,
    /// The launch or code object is malformed.
    AMDPCODE_ERROR_LAUNCH = 3,
    /// A wave faulted (memory fault, unsupported instruction, step budget) or deadlocked.
    AMDPCODE_ERROR_FAULT = 4,
    /// A bug in amdpcode (a caught panic).
    AMDPCODE_ERROR_INTERNAL = 5,
}
use amdpcode_status::*;

/// An engine: one arch's executor (and its JIT cache), reused across dispatches.
pub struct amdpcode_engine {
    dispatcher: Dispatcher,
    instructions: u64,
}

/// A launch being set up: code, grid and the host ranges it may access.
pub struct amdpcode_launch {
    launch: Launch,
    ranges: Vec<HostRange>,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(message: &str) {
    let text = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

struct Failure(amdpcode_status, String);

fn arg(message: impl Into<String>) -> Failure {
    Failure(AMDPCODE_ERROR_ARGUMENT, message.into())
}

impl From<DispatchError> for Failure {
    fn from(e: DispatchError) -> Failure {
        let status = match e {
            DispatchError::Wave { .. } | DispatchError::Deadlock { .. } => AMDPCODE_ERROR_FAULT,
            _ => AMDPCODE_ERROR_LAUNCH,
        };
        Failure(status, e.to_string())
    }
}

/// Runs `f`, turning a failure or a panic into a status and the thread's last error.
fn guard(f: impl FnOnce() -> Result<(), Failure>) -> amdpcode_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => {
            set_error("");
            AMDPCODE_OK
        }
        Ok(Err(Failure(status, message))) => {
            set_error(&message);
            status
        }
        Err(_) => {
            set_error("internal error (a bug in amdpcode): a panic was caught at the C boundary");
            AMDPCODE_ERROR_INTERNAL
        }
    }
}

/// As [`guard`] for a constructor: the handle, or null.
fn guard_new<T>(f: impl FnOnce() -> Result<T, Failure>) -> *mut T {
    let mut out = std::ptr::null_mut();
    guard(|| {
        out = Box::into_raw(Box::new(f()?));
        Ok(())
    });
    out
}

/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn text<'a>(p: *const c_char, what: &str) -> Result<Option<&'a str>, Failure> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller guarantees `p` is NUL-terminated.
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str()
        .map(Some)
        .map_err(|_| arg(format!("{what} is not UTF-8")))
}

/// # Safety
/// `p` is null (then `len` must be 0) or valid for reads of `len` elements.
unsafe fn slice<'a, T>(p: *const T, len: usize, what: &str) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(arg(format!("{what} is null but its length is {len}")));
    }
    // SAFETY: the caller guarantees `p` is valid for `len` elements.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// # Safety
/// `p` is null or a handle from this library, not freed, used by one thread at a time.
unsafe fn handle<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: the caller guarantees `p` is null or a live, exclusive handle.
    unsafe { p.as_mut() }.ok_or_else(|| arg(format!("{what} is null")))
}

/// The calling thread's last error message ("" after a success). The text stays valid
/// until the thread's next call into the library.
#[no_mangle]
pub extern "C" fn amdpcode_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// Creates an engine for `arch` (`rdna3`, `rdna4` or `cdna`). `spec_path` is the spec
/// wheel, or null for the CLI's lookup (`$AMDPCODE_SPEC`, the user cache). `jit` nonzero
/// selects the Cranelift JIT, zero the interpreter. Returns null on failure.
///
/// # Safety
/// `arch` and `spec_path` are null or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn amdpcode_engine_new(
    arch: *const c_char,
    spec_path: *const c_char,
    jit: c_int,
) -> *mut amdpcode_engine {
    guard_new(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { text(arch, "arch") }?.ok_or_else(|| arg("arch is null"))?;
        let arch = Arch::from_name(name).ok_or_else(|| {
            arg(format!(
                "unknown arch `{name}` (expected one of {})",
                Arch::names()
            ))
        })?;
        // SAFETY: the caller's contract.
        let path = unsafe { text(spec_path, "spec_path") }?.map(PathBuf::from);
        let spec = super::spec(path).map_err(|e| Failure(AMDPCODE_ERROR_SPEC, e.to_string()))?;
        let engine = if jit != 0 {
            Engine::Jit
        } else {
            Engine::Interp
        };
        let db = spec
            .get(arch)
            .map_err(|e| Failure(AMDPCODE_ERROR_ARGUMENT, e.to_string()))?;
        let mut dispatcher = Dispatcher::new(db, engine)
            .map_err(|e| Failure(AMDPCODE_ERROR_ARGUMENT, e.to_string()))?;
        // Tiering as in the CLI (`AMDPCODE_JIT_THRESHOLD`): hot instructions are compiled.
        dispatcher.executor_mut().jit_threshold = crate::wave::cli_jit_threshold();
        // Workgroups on every core, as the CLI's default (`amdpcode_engine_set_threads`).
        dispatcher.set_threads(crate::dispatch::all_cores());
        Ok(amdpcode_engine {
            dispatcher,
            instructions: 0,
        })
    })
}

/// Frees an engine (null is ignored).
///
/// # Safety
/// `engine` is null or a handle from [`amdpcode_engine_new`], not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn amdpcode_engine_free(engine: *mut amdpcode_engine) {
    if !engine.is_null() {
        // SAFETY: the caller passes a live handle made by Box::into_raw, freed once.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(engine) })));
    }
}

fn new_launch(code: Code) -> amdpcode_launch {
    amdpcode_launch {
        launch: Launch {
            arch: None,
            code,
            grid: [1, 1, 1],
            block: [1, 1, 1],
            grid_items: None,
            wave: None,
            lds_bytes: None,
            scratch_bytes: None,
            memory: Vec::new(),
            unmapped: Unmapped::Fault,
            step_budget: None,
        },
        ranges: Vec::new(),
    }
}

/// A launch of `kernel` in the code object `bytes[0..len]` (copied), with the explicit
/// kernel arguments `kernarg[0..kernarg_len]` (copied; the loader adds the hidden ones).
/// The grid is 1x1x1 workgroups of 1x1x1 until [`amdpcode_launch_set_grid`]. Null on failure.
///
/// # Safety
/// `bytes` and `kernarg` are valid for their lengths (or null with length 0); `kernel` is a
/// NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn amdpcode_launch_code_object(
    bytes: *const u8,
    len: usize,
    kernel: *const c_char,
    kernarg: *const u8,
    kernarg_len: usize,
) -> *mut amdpcode_launch {
    guard_new(|| {
        // SAFETY: the caller's contract, for each argument.
        let bytes = unsafe { slice(bytes, len, "bytes") }?.to_vec();
        let kernel = unsafe { text(kernel, "kernel") }?.ok_or_else(|| arg("kernel is null"))?;
        let kernarg = unsafe { slice(kernarg, kernarg_len, "kernarg") }?.to_vec();
        Ok(new_launch(Code::Object {
            bytes,
            path: "<code object>".into(),
            kernel: kernel.into(),
            kernarg,
        }))
    })
}

/// A raw launch: the code `code[0..len]` (copied) runs from its first byte, mapped at
/// `addr`; `rsrc1..3` are COMPUTE_PGM_RSRC1..3 and `user_sgprs[0..n_user_sgprs]` the
/// COMPUTE_USER_DATA values loaded into s0, s1, ... Null on failure.
///
/// # Safety
/// `code` and `user_sgprs` are valid for their lengths (or null with length 0).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn amdpcode_launch_raw(
    arch: *const c_char,
    code: *const u8,
    len: usize,
    addr: u64,
    rsrc1: u32,
    rsrc2: u32,
    rsrc3: u32,
    user_sgprs: *const u32,
    n_user_sgprs: usize,
) -> *mut amdpcode_launch {
    guard_new(|| {
        // SAFETY: the caller's contract, for each argument.
        let name = unsafe { text(arch, "arch") }?.ok_or_else(|| arg("arch is null"))?;
        let arch = Arch::from_name(name).ok_or_else(|| {
            arg(format!(
                "unknown arch `{name}` (expected one of {})",
                Arch::names()
            ))
        })?;
        let bytes = unsafe { slice(code, len, "code") }?.to_vec();
        let user_sgprs = unsafe { slice(user_sgprs, n_user_sgprs, "user_sgprs") }?.to_vec();
        let mut l = new_launch(Code::Raw {
            bytes,
            addr,
            rsrc1,
            rsrc2,
            rsrc3,
            user_sgprs,
        });
        l.launch.arch = Some(arch);
        Ok(l)
    })
}

/// Sets the number of workgroups (`grid`) and the work-items per workgroup (`block`).
///
/// # Safety
/// `launch` is a live launch handle; `grid` and `block` point to 3 values each.
#[no_mangle]
pub unsafe extern "C" fn amdpcode_launch_set_grid(
    launch: *mut amdpcode_launch,
    grid: *const u32,
    block: *const u32,
) -> amdpcode_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let l = unsafe { handle(launch, "launch") }?;
        let g = unsafe { slice(grid, 3, "grid") }?;
        let b = unsafe { slice(block, 3, "block") }?;
        if g.contains(&0) || b.contains(&0) {
            return Err(arg("grid and block sizes must be at least 1"));
        }
        l.launch.grid = [g[0], g[1], g[2]];
        l.launch.block = [b[0], b[1], b[2]];
        Ok(())
    })
}

/// Sets the wave size, the LDS bytes per workgroup and the scratch bytes per lane; 0 keeps
/// each default (the code object's or RSRC2's).
///
/// # Safety
/// `launch` is a live launch handle.
#[no_mangle]
pub unsafe extern "C" fn amdpcode_launch_set_sizes(
    launch: *mut amdpcode_launch,
    wave: u32,
    lds_bytes: u64,
    scratch_bytes: u64,
) -> amdpcode_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let l = unsafe { handle(launch, "launch") }?;
        l.launch.wave = (wave != 0).then_some(wave);
        l.launch.lds_bytes = (lds_bytes != 0).then_some(lds_bytes);
        l.launch.scratch_bytes = (scratch_bytes != 0).then_some(scratch_bytes);
        Ok(())
    })
}

/// Declares `len` bytes of this process's memory at `addr` as global memory the kernel may
/// read and write (at the same addresses). A store outside the declared ranges faults; a
/// load reads zero outside them (see [`super`] for when it faults).
///
/// # Safety
/// `launch` is a live launch handle. The range must stay valid for reads and writes, and
/// untouched by other threads, during every [`amdpcode_dispatch`] of this launch.
#[no_mangle]
pub unsafe extern "C" fn amdpcode_launch_add_range(
    launch: *mut amdpcode_launch,
    addr: *mut c_void,
    len: usize,
) -> amdpcode_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let l = unsafe { handle(launch, "launch") }?;
        let r = HostRange {
            addr: addr as u64,
            len: len as u64,
        };
        super::check_ranges(&[r]).map_err(Failure::from)?;
        l.ranges.push(r);
        Ok(())
    })
}

/// Frees a launch (null is ignored).
///
/// # Safety
/// `launch` is null or a launch handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn amdpcode_launch_free(launch: *mut amdpcode_launch) {
    if !launch.is_null() {
        // SAFETY: the caller passes a live handle made by Box::into_raw, freed once.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(launch) })));
    }
}

/// Runs `launch` on `engine`. On success the declared ranges hold the results; on failure
/// they are unchanged and [`amdpcode_last_error`] says what happened (for a memory fault:
/// the workgroup, wave, PC, instruction and address).
///
/// # Safety
/// `engine` and `launch` are live handles; the launch's ranges are valid as
/// [`amdpcode_launch_add_range`] requires.
#[no_mangle]
pub unsafe extern "C" fn amdpcode_dispatch(
    engine: *mut amdpcode_engine,
    launch: *const amdpcode_launch,
) -> amdpcode_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let e = unsafe { handle(engine, "engine") }?;
        // SAFETY: the caller's contract.
        let l = unsafe { launch.as_ref() }.ok_or_else(|| arg("launch is null"))?;
        // SAFETY: the ranges were declared valid by the caller of add_range.
        let out = unsafe { run_on_host(&mut e.dispatcher, &l.launch, &l.ranges) }?;
        e.instructions = out.instructions;
        Ok(())
    })
}

/// Lets the engine's dispatches run their workgroups on up to `threads` threads (0: as many
/// as the cores this process may run on, the default; 1: the calling thread only). Results
/// are those of one thread for race-free kernels; launches with global atomics run on one
/// thread (see `docs/dispatch.md`, "Threads").
///
/// # Safety
/// `engine` is a live engine handle.
#[no_mangle]
pub unsafe extern "C" fn amdpcode_engine_set_threads(
    engine: *mut amdpcode_engine,
    threads: u32,
) -> amdpcode_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let e = unsafe { handle(engine, "engine") }?;
        let n = match threads {
            0 => crate::dispatch::all_cores(),
            n => n as usize,
        };
        e.dispatcher.set_threads(n);
        Ok(())
    })
}

/// The threads the engine's last dispatch ran its workgroups on (0 for null; 1 when it ran on
/// the calling thread only: one thread set, a small launch, global atomics).
///
/// # Safety
/// `engine` is null or a live engine handle.
#[no_mangle]
pub unsafe extern "C" fn amdpcode_engine_last_threads(engine: *const amdpcode_engine) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { engine.as_ref() }.map_or(0, |e| e.dispatcher.last_threads() as u32)
}

/// The dynamic wave instructions of the engine's last successful dispatch (0 for null).
///
/// # Safety
/// `engine` is null or a live engine handle.
#[no_mangle]
pub unsafe extern "C" fn amdpcode_engine_instructions(engine: *const amdpcode_engine) -> u64 {
    // SAFETY: the caller's contract.
    unsafe { engine.as_ref() }.map_or(0, |e| e.instructions)
}
