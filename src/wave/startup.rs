//! Start-up timing: with `AMDPCODE_TIME_FIRST` set, the first instruction the
//! process executes prints how long the process took to get there, on stderr:
//!
//! `amdpcode: first instruction done: 8.1 ms CPU since exec (1.2 before main), 9.3 ms since
//! main[, 10.9 ms since T0]`
//!
//! - CPU: the process's CPU time (`CLOCK_PROCESS_CPUTIME_ID`, which starts at `exec`, so it
//!   includes the kernel's `exec` work and the dynamic loader), and the part spent before
//!   [`mark_main`]; Linux x86-64 only, elsewhere left out.
//! - since main: wall time since [`mark_main`] (the CLI calls it first thing).
//! - since T0: when the variable's value is a Unix time in nanoseconds (for example
//!   `AMDPCODE_TIME_FIRST=$(date +%s%N)`), wall time since then, which includes `exec`.
//!
//! Unset, the cost is one relaxed atomic load per executor step.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

static DONE: AtomicBool = AtomicBool::new(false);
static MAIN: OnceLock<(Instant, Option<f64>)> = OnceLock::new();

/// Records the time `main` started (the reference of "since main").
pub fn mark_main() {
    let _ = MAIN.set((Instant::now(), process_cpu_ms()));
}

/// Called after every executor step; reports the first one when asked to.
#[inline]
pub(super) fn note_step() {
    if !DONE.load(Ordering::Relaxed) {
        first_step();
    }
}

#[cold]
fn first_step() {
    DONE.store(true, Ordering::Relaxed);
    let Some(value) = std::env::var_os("AMDPCODE_TIME_FIRST") else {
        return;
    };
    let mut parts = Vec::new();
    if let Some(cpu) = process_cpu_ms() {
        let before = match MAIN.get() {
            Some((_, Some(at_main))) => format!(" ({at_main:.2} before main)"),
            _ => String::new(),
        };
        parts.push(format!("{cpu:.2} ms CPU since exec{before}"));
    }
    if let Some((t, _)) = MAIN.get() {
        parts.push(format!(
            "{:.2} ms since main",
            t.elapsed().as_secs_f64() * 1e3
        ));
    }
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    if let Some(t0) = value.to_str().and_then(|v| v.trim().parse::<u128>().ok()) {
        if t0 > 1_000_000_000 && t0 <= now {
            parts.push(format!("{:.2} ms since T0", (now - t0) as f64 / 1e6));
        }
    }
    eprintln!("amdpcode: first instruction done: {}", parts.join(", "));
}

/// Sets the C allocator up for a short process that builds a few megabytes of tables at
/// start-up (the CLI calls this first thing; a library user need not). Without it, each
/// 4 KiB page the heap grows into costs a page fault: about 1,100 faults and a quarter of
/// the CPU time of a small `amdpcode run`. With it, blocks up to 32 MiB come from the main
/// heap (not one `mmap` each), the heap grows by 16 MiB at a time and is not trimmed, and
/// that range is marked for transparent huge pages, so a fault maps 2 MiB at once where the
/// kernel allows it (`/sys/kernel/mm/transparent_hugepage/enabled` not `never`). Nothing is
/// touched in advance: untouched pages cost nothing. glibc on Linux x86-64 only.
#[cfg(all(target_os = "linux", target_arch = "x86_64", target_env = "gnu"))]
pub fn prepare_heap() {
    const HUGE: usize = 2 << 20;
    // SAFETY: mallopt and malloc/free take plain values; sbrk(0) only reads the break;
    // madvise is given a range inside the heap mapping, page-aligned, with a hint that does
    // not change the memory's contents.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
        libc::mallopt(libc::M_TOP_PAD, 16 << 20);
        // Grow the heap now (by the pad), so the range to mark exists. Only untouched 2 MiB
        // ranges can get a huge page, and splitting this block wrote a chunk header at its
        // end: a 4 MiB block leaves at least one untouched range between its start and end.
        let block = libc::malloc(2 * HUGE);
        if block.is_null() {
            return;
        }
        let start = (block as usize).next_multiple_of(HUGE);
        libc::free(block);
        let end = libc::sbrk(0) as usize / HUGE * HUGE;
        if end > start {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            // Fill the gap below the marked range with one block that is never used nor
            // freed (its pages are never touched, so it costs address space only), so
            // that the next blocks come from the marked range.
            let gap = start - block as usize;
            if gap > 64 {
                // `black_box`: an unused `malloc` may otherwise be removed by the optimizer.
                std::hint::black_box(libc::malloc(gap - 32));
            }
        }
    }
}

/// Elsewhere: nothing to do.
#[cfg(not(all(target_os = "linux", target_arch = "x86_64", target_env = "gnu")))]
pub fn prepare_heap() {}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn process_cpu_ms() -> Option<f64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the call only writes it.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    (r == 0).then(|| ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6)
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
fn process_cpu_ms() -> Option<f64> {
    None
}
