//! Host memory exactly as declared (`amdpcode::embed::run_on_host`), under the interpreter,
//! the per-instruction JIT and compiled blocks: a load past a declared buffer reads zero for
//! the undeclared bytes (never the host's), and faults only when it touches no declared byte
//! and reaches a page that holds none; a store past a declared buffer faults at the first
//! such store, and the host's memory is unchanged. Buffers live at fixed offsets inside
//! page-aligned host pages filled with a sentinel, so no outcome depends on where the
//! allocator put anything.

mod common;

use std::alloc::{alloc_zeroed, dealloc, Layout};

use amdpcode::dispatch::{Code, DispatchError, Dispatcher, Launch, Outcome, Unmapped};
use amdpcode::embed::{run_on_host, HostRange};
use amdpcode::spec::Arch;
use amdpcode::wave::Engine;
use common::asm::assemble;

const PAGE: usize = 4096;
const CODE: u64 = 0x7000_0000;

/// Four page-aligned pages of host memory, word `i` holding `SENTINEL + i`.
struct Pages {
    ptr: *mut u8,
    layout: Layout,
}

const SENTINEL: u32 = 0x5e00_0000;

impl Pages {
    fn new() -> Pages {
        let layout = Layout::from_size_align(4 * PAGE, PAGE).expect("layout");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        assert!(!ptr.is_null(), "allocation failed");
        let mut p = Pages { ptr, layout };
        for (i, w) in p.words_mut().iter_mut().enumerate() {
            *w = SENTINEL + i as u32;
        }
        p
    }

    fn words_mut(&mut self) -> &mut [u32] {
        // SAFETY: the allocation is 4 * PAGE bytes, aligned to a page, owned by `self`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut u32, 4 * PAGE / 4) }
    }

    fn words(&self) -> Vec<u32> {
        // SAFETY: as in `words_mut`.
        unsafe { std::slice::from_raw_parts(self.ptr as *const u32, 4 * PAGE / 4) }.to_vec()
    }

    /// The host address of byte `offset`.
    fn addr(&self, offset: usize) -> u64 {
        self.ptr as u64 + offset as u64
    }
}

impl Drop for Pages {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// Interpreter, per-instruction JIT, and blocks compiled at the second arrival.
fn configs() -> [(&'static str, Dispatcher); 3] {
    let db = common::spec().db(Arch::Rdna3);
    let make = |engine, blocks: bool| {
        let mut d = Dispatcher::new(db, engine).expect("engine");
        d.executor_mut().block_compile = blocks;
        d.executor_mut().block_threshold = 2;
        d
    };
    [
        ("interp", make(Engine::Interp, false)),
        ("jit-step", make(Engine::Jit, false)),
        ("jit-block", make(Engine::Jit, true)),
    ]
}

/// One wave of `lanes` work-items running `code` with s[0:1] = `out`, s[2:3] = `x`.
fn launch(code: Vec<u8>, lanes: u32, out: u64, x: u64) -> Launch {
    Launch {
        arch: Some(Arch::Rdna3),
        code: Code::Raw {
            bytes: code,
            addr: CODE,
            rsrc1: 0xc0 << 12 | 1 << 21 | 1 << 23,
            rsrc2: 4 << 1,
            rsrc3: 0,
            user_sgprs: vec![out as u32, (out >> 32) as u32, x as u32, (x >> 32) as u32],
        },
        grid: [1, 1, 1],
        block: [lanes, 1, 1],
        grid_items: None,
        wave: Some(32),
        lds_bytes: None,
        scratch_bytes: None,
        memory: Vec::new(),
        unmapped: Unmapped::Fault,
        step_budget: None,
    }
}

/// `iterations` rounds of: each of 8 lanes loads x[lane + 8k] and stores it at
/// out[lane + 8k] (round k). Blocks compile at the loop's second arrival, so from round 2
/// on the accesses run inside a compiled block.
fn copy_loop(iterations: u32) -> Vec<u8> {
    assemble(&format!(
        "v_lshlrev_b32 v1, 2, v0
s_mov_b32 s6, 0
loop:
global_load_b32 v2, v1, s[2:3]
s_waitcnt vmcnt(0)
global_store_b32 v1, v2, s[0:1]
v_add_nc_u32 v1, 32, v1
s_add_u32 s6, s6, 1
s_cmp_lg_u32 s6, {iterations}
s_cbranch_scc1 loop
s_endpgm
"
    ))
}

/// Runs `l` on `pages` with the declared `ranges` under every config; returns each config's
/// result and the host words after it (the pages are restored between configs). `looped`:
/// the program loops, so the block config must have compiled the loop's body.
fn run_all(
    l: &Launch,
    pages: &mut Pages,
    ranges: &[HostRange],
    looped: bool,
) -> Vec<(&'static str, Result<Outcome, DispatchError>, Vec<u32>)> {
    let before = pages.words();
    let mut results = Vec::new();
    for (name, mut d) in configs() {
        pages.words_mut().copy_from_slice(&before);
        // SAFETY: every range lies inside `pages`, alive and untouched during the call.
        let r = unsafe { run_on_host(&mut d, l, ranges) };
        if looped && name == "jit-block" {
            assert!(
                d.executor().blocks().iter().any(|b| b.1 >= 5),
                "{name}: no block holds the loop: {:x?}",
                d.executor().blocks()
            );
        }
        results.push((name, r, pages.words()));
    }
    results
}

#[test]
fn over_read_past_a_declared_buffer_in_its_page_reads_zero() {
    // x: 16 words at several places inside page 0 (its start, its middle, ending 64 bytes
    // before its end); out: 32 words at the start of page 2. Rounds 2 and 3 read x[16..32]:
    // host words (the sentinel) that were never declared, in x's page.
    for x_at in [0, PAGE / 2, PAGE - 128] {
        let mut pages = Pages::new();
        let (x, out) = (pages.addr(x_at), pages.addr(2 * PAGE));
        let ranges = [
            HostRange { addr: x, len: 64 },
            HostRange {
                addr: out,
                len: 128,
            },
        ];
        let before = pages.words();
        for (name, r, after) in run_all(&launch(copy_loop(4), 8, out, x), &mut pages, &ranges, true)
        {
            r.unwrap_or_else(|e| panic!("{name}, x at {x_at}: {e}"));
            let mut want = before.clone();
            let o = 2 * PAGE / 4;
            want[o..o + 16].copy_from_slice(&before[x_at / 4..x_at / 4 + 16]);
            want[o + 16..o + 32].fill(0);
            assert_eq!(after, want, "{name}, x at {x_at}");
        }
    }
}

#[test]
fn load_wholly_in_an_undeclared_page_faults_and_memory_is_unchanged() {
    // x: 16 words ending at page 0's end; page 1 holds no declared byte, so round 2's first
    // lane (x[16], the first byte of page 1) faults.
    let mut pages = Pages::new();
    let (x, out) = (pages.addr(PAGE - 64), pages.addr(2 * PAGE));
    let ranges = [
        HostRange { addr: x, len: 64 },
        HostRange {
            addr: out,
            len: 128,
        },
    ];
    let before = pages.words();
    let results = run_all(&launch(copy_loop(4), 8, out, x), &mut pages, &ranges, true);
    for (name, r, after) in &results {
        let e = r.as_ref().expect_err(name).to_string();
        assert!(e.contains("GLOBAL_LOAD_B32"), "{name}: {e}");
        assert!(
            e.contains(&format!(
                "lane 0 accesses 4 global byte(s) at 0x{:x},",
                x + 64
            )),
            "{name}: {e}"
        );
        // Rounds 0 and 1 stored into out: nothing is written back after a fault.
        assert_eq!(after, &before, "{name}");
    }
    for (name, r, _) in &results[1..] {
        assert_eq!(
            r.as_ref().unwrap_err().to_string(),
            results[0].1.as_ref().unwrap_err().to_string(),
            "{name}"
        );
    }
}

#[test]
fn store_past_a_declared_buffer_faults_at_the_first_such_store() {
    // out: 16 words at page 2's start (the rest of page 2 is not declared); round 2 stores
    // out[16..24]: the first store past the buffer, inside its page, faults at out[16].
    let mut pages = Pages::new();
    let (x, out) = (pages.addr(0), pages.addr(2 * PAGE));
    let ranges = [
        HostRange { addr: x, len: 128 },
        HostRange { addr: out, len: 64 },
    ];
    let before = pages.words();
    let results = run_all(&launch(copy_loop(4), 8, out, x), &mut pages, &ranges, true);
    for (name, r, after) in &results {
        let e = r.as_ref().expect_err(name).to_string();
        assert!(e.contains("GLOBAL_STORE_B32"), "{name}: {e}");
        assert!(
            e.contains(&format!(
                "lane 0 accesses 4 global byte(s) at 0x{:x},",
                out + 64
            )),
            "{name}: {e}"
        );
        assert_eq!(after, &before, "{name}");
    }
    for (name, r, _) in &results[1..] {
        assert_eq!(
            r.as_ref().unwrap_err().to_string(),
            results[0].1.as_ref().unwrap_err().to_string(),
            "{name}"
        );
    }
}

#[test]
fn wide_load_across_a_page_end_reads_the_declared_bytes_and_zeros() {
    // A 12-byte buffer ends page 0, and page 1 holds no declared byte: s_load_b128 and
    // global_load_b128 of it (as compilers load a 12-byte argument block) read its three
    // words and a zero, where the host holds the sentinel; the page rule of a raw launch
    // would fault here.
    let mut pages = Pages::new();
    let (x, out) = (pages.addr(PAGE - 12), pages.addr(2 * PAGE));
    let ranges = [
        HostRange { addr: x, len: 12 },
        HostRange { addr: out, len: 32 },
    ];
    let code = assemble(
        "s_load_b128 s[8:11], s[2:3], 0x0
v_mov_b32 v1, 0
global_load_b128 v[6:9], v1, s[2:3]
s_waitcnt 0
v_mov_b32 v2, s8
v_mov_b32 v3, s9
v_mov_b32 v4, s10
v_mov_b32 v5, s11
global_store_b128 v1, v[2:5], s[0:1]
global_store_b128 v1, v[6:9], s[0:1] offset:16
s_endpgm
",
    );
    let before = pages.words();
    for (name, r, after) in run_all(&launch(code, 1, out, x), &mut pages, &ranges, false) {
        if let Err(e) = r {
            panic!("{name}: {e}");
        }
        let x_words = &before[(PAGE - 12) / 4..PAGE / 4];
        let o = 2 * PAGE / 4;
        let mut want = before.clone();
        want[o..o + 3].copy_from_slice(x_words);
        want[o + 3] = 0;
        want[o + 4..o + 7].copy_from_slice(x_words);
        want[o + 7] = 0;
        assert_eq!(after, want, "{name}");
    }
}
