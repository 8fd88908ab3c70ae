//! Loads and stores inside compiled blocks: a loop whose body loads, stores and
//! stores into its own code runs as one block and gives what stepping gives; a store into
//! the code range stops the block right after it; a fault in the middle of a block reports
//! the same wave, PC and instruction as a step, after the same earlier effects. Every tier
//! (the pseudocode step, the prepared plan, blocks) refuses what the memory plan refuses.

mod common;

use amdpcode::dispatch::{Code, Dispatcher, Launch, Outcome, Unmapped};
use amdpcode::spec::Arch;
use amdpcode::wave::{Engine, Executor, Program};
use common::asm::{assemble, offset_of, word};

const OUT: u64 = 0x1_0000_0000;
const CODE: u64 = 0x7000_0000;

/// One wave of `wave` lanes (all active), s[0:1] = OUT, OUT holding 128 words 0, 1, 2, ...
fn launch(code: Vec<u8>, wave: u32) -> Launch {
    Launch {
        arch: Some(Arch::Rdna3),
        code: Code::Raw {
            bytes: code,
            addr: CODE,
            rsrc1: 0xc0 << 12 | 1 << 21 | 1 << 23,
            rsrc2: 2 << 1,
            rsrc3: 0,
            user_sgprs: vec![OUT as u32, (OUT >> 32) as u32],
        },
        grid: [1, 1, 1],
        block: [wave, 1, 1],
        grid_items: None,
        wave: Some(wave),
        lds_bytes: Some(1024),
        scratch_bytes: None,
        memory: vec![(OUT, (0..128u32).flat_map(|i| i.to_le_bytes()).collect())],
        unmapped: Unmapped::Fault,
        step_budget: None,
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

fn words(o: &Outcome) -> Vec<u32> {
    o.memory[0]
        .1
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Ten iterations of: v5 += v0 (`target: v_mov_b32 v0, 1`), a global load, an LDS store and
/// load, a scalar load, a global store, then a store of a code word over `target`: its own
/// bytes, except in the iteration with s6 == 2, which stores `v_mov_b32 v0, 2`. So the last
/// iteration adds 2: v5 = 9 + 2 only if the block stopped right after that store. With
/// `patch` false the compare is never true: the code keeps its bytes, v5 = 10.
const LOOP: &str = "s_getpc_b64 s[4:5]
s_addk_i32 s4, OFF
v_mov_b32 v1, s4
v_mov_b32 v2, s5
v_lshlrev_b32 v9, 2, v0
v_mov_b32 v5, 0
v_mov_b32 v8, 0
s_mov_b32 s6, 10
s_mov_b32 s9, NEW
loop:
target: v_mov_b32 v0, 1
v_add_nc_u32 v5, v5, v0
global_load_b32 v10, v9, s[0:1]
s_waitcnt 0
v_add_nc_u32 v8, v8, v10
ds_store_b32 v9, v8
ds_load_b32 v11, v9
s_load_b32 s7, s[0:1], 0x4
s_waitcnt 0
v_add_nc_u32 v8, s7, v11
global_store_b32 v9, v8, s[0:1] offset:128
s_cmp_eq_u32 s6, WHEN
s_cselect_b32 s8, s9, OLD
v_mov_b32 v3, s8
global_store_b32 v[1:2], v3, off
s_waitcnt 0
s_sub_u32 s6, s6, 1
s_cmp_lg_u32 s6, 0
s_cbranch_scc1 loop
global_store_b32 v9, v5, s[0:1]
s_endpgm
";

fn patch_loop(patch: bool) -> Vec<u8> {
    let text = LOOP
        .replace("WHEN", if patch { "2" } else { "100" })
        .replace("NEW", &format!("0x{:08x}", word("v_mov_b32 v0, 2")))
        .replace("OLD", &format!("0x{:08x}", word("v_mov_b32 v0, 1")));
    let zero = text.replace("OFF", "0");
    // s_getpc gives the address of s_addk_i32; `v_lshlrev_b32 v9, 2, v0` reads the
    // work-item id before `target` overwrites v0.
    let off = offset_of(&zero, "target:") - offset_of(&zero, "s_addk_i32");
    let text = text
        .replace("OFF", &off.to_string())
        .replace("target: ", "");
    assemble(&text)
}

#[test]
fn memory_in_blocks_and_store_into_code() {
    for (wave, patch) in [(32, true), (32, false), (64, true), (64, false)] {
        let l = launch(patch_loop(patch), wave);
        let mut results = Vec::new();
        for (name, mut d) in configs() {
            // Twice on one dispatcher: the second launch runs the compiled blocks from the
            // start (the program of the original bytes is cached).
            for round in 0..2 {
                let o = d.run(&l).unwrap_or_else(|e| panic!("{name}: {e}"));
                let w = words(&o);
                let want = if patch { 11 } else { 10 };
                assert_eq!(w[0], want, "{name} wave{wave} round {round}: v5");
                results.push((name, w, o.instructions, o.lane_ops));
            }
            if name == "jit-block" && !patch {
                // The loop body, loads and stores included, is one block.
                let longest = d.executor().blocks().iter().map(|b| b.1).max();
                assert!(
                    longest >= Some(19),
                    "wave{wave}: blocks {:x?}",
                    d.executor().blocks()
                );
            }
        }
        for r in &results[1..] {
            assert_eq!(r.1, results[0].1, "{} wave{wave}: memory", r.0);
            assert_eq!(
                (r.2, r.3),
                (results[0].2, results[0].3),
                "{} wave{wave}: instructions, lane operations",
                r.0
            );
        }
    }
}

/// A loop storing to OUT + 128 * k: the fifth store leaves the 512 mapped bytes. The error
/// (wave, PC, instruction, address) and the run up to it are the same with blocks.
#[test]
fn fault_in_the_middle_of_a_block() {
    let text = "v_lshlrev_b32 v9, 2, v0
s_mov_b32 s6, 0
v_mov_b32 v5, 0
loop:
v_add_nc_u32 v5, 1, v5
global_store_b32 v9, v5, s[0:1]
s_waitcnt 0
v_add_nc_u32 v9, 0x80, v9
s_add_u32 s6, s6, 1
s_cmp_lg_u32 s6, 100
s_cbranch_scc1 loop
s_endpgm
";
    let l = launch(assemble(text), 32);
    let mut errors = Vec::new();
    for (name, mut d) in configs() {
        for _ in 0..2 {
            let e = d.run(&l).expect_err(name).to_string();
            assert!(e.contains("GLOBAL_STORE_B32"), "{name}: {e}");
            assert!(e.contains("0x100000200"), "{name}: {e}");
            errors.push((name, e));
        }
        if name == "jit-block" {
            assert!(
                d.executor().blocks().iter().any(|b| b.1 >= 7),
                "blocks {:x?}",
                d.executor().blocks()
            );
        }
    }
    for (name, e) in &errors[1..] {
        assert_eq!(e, &errors[0].1, "{name}");
    }
}

/// A scalar load inside a block into an SGPR the block's in-place instructions hold in a
/// register (s7), from an address the block keeps updating (s2): the load must see the
/// written-back address and the instructions after it the loaded value. 100 + 1 + 1 + 2 +
/// 2 + 3 + 3 + 4 = 116 in every lane.
#[test]
fn scalar_load_into_a_cached_sgpr() {
    let text = "v_lshlrev_b32 v9, 2, v0
s_mov_b64 s[2:3], s[0:1]
s_mov_b32 s6, 4
s_mov_b32 s7, 100
v_mov_b32 v5, 0
loop:
v_add_nc_u32 v5, s7, v5
s_load_b32 s7, s[2:3], 0x4
s_waitcnt 0
v_add_nc_u32 v5, s7, v5
s_add_u32 s2, s2, 4
s_addc_u32 s3, s3, 0
s_sub_u32 s6, s6, 1
s_cmp_lg_u32 s6, 0
s_cbranch_scc1 loop
global_store_b32 v9, v5, s[0:1] offset:256
s_endpgm
";
    for wave in [32, 64] {
        let l = launch(assemble(text), wave);
        for (name, mut d) in configs() {
            for round in 0..3 {
                let o = d.run(&l).unwrap_or_else(|e| panic!("{name}: {e}"));
                let w = words(&o);
                for lane in 0..wave as usize {
                    assert_eq!(
                        w[64 + lane],
                        116,
                        "{name} wave{wave} round {round} lane {lane}"
                    );
                }
            }
        }
    }
}

/// Word `i` of the row tests' 8 KiB buffer.
fn row_init(i: u32) -> u32 {
    0x1000_0000 + 3 * i
}

/// The row tests' configurations: `configs()` plus the interpreter with every memory
/// instruction run through its pseudocode (the reference).
fn row_configs() -> Vec<(&'static str, Dispatcher)> {
    let mut all: Vec<_> = configs().into_iter().collect();
    let mut d = Dispatcher::new(common::spec().db(Arch::Rdna3), Engine::Interp).expect("interp");
    d.executor_mut().memory_fast_path = false;
    all.push(("pseudocode", d));
    all
}

/// Loads and stores whose lanes access consecutive elements run as one read or write of
/// the row (`wave::memfast`): rows crossing a page, B128 and B64 rows, loads with holes in
/// EXEC, a contiguous partial EXEC, an LDS store and two-address load, beside accesses
/// that are not rows (reversed lanes, a store with holes in EXEC) — every engine gives the
/// pseudocode's memory.
#[test]
fn row_loads_and_stores_match_lane_by_lane() {
    let text = "v_lshlrev_b32 v1, 2, v0
v_lshlrev_b32 v2, 4, v0
v_sub_nc_u32 v3, 0xfc, v1
v_add_nc_u32 v5, 0x1200, v1
v_add_nc_u32 v6, 0xfa0, v1
v_add_nc_u32 v7, 0x1400, v2
v_lshlrev_b32 v8, 3, v0
v_add_nc_u32 v8, 0x1900, v8
v_add_nc_u32 v9, 0x1c00, v1
global_load_b32 v10, v1, s[0:1] offset:4032
global_load_b128 v[12:15], v2, s[0:1] offset:16
global_load_b32 v11, v3, s[0:1]
s_waitcnt 0
ds_store_b32 v1, v10
ds_load_2addr_b32 v[16:17], v1 offset1:1
v_and_b32 v4, 5, v0
v_cmpx_eq_u32 0, v4
global_load_b32 v18, v1, s[0:1] offset:512
s_waitcnt 0
global_store_b32 v5, v18, s[0:1]
EXECALL
global_store_b32 v1, v10, s[0:1] offset:2048
global_store_b32 v6, v11, s[0:1] offset:64
v_cmpx_gt_u32 20, v0
global_store_b128 v7, v[12:15], s[0:1]
global_store_b64 v8, v[16:17], s[0:1]
EXECALL
global_store_b32 v9, v18, s[0:1]
s_endpgm
";
    for wave in [32u32, 64] {
        let all = if wave == 32 {
            "s_mov_b32 exec_lo, -1"
        } else {
            "s_mov_b64 exec, -1"
        };
        let mut l = launch(assemble(&text.replace("EXECALL", all)), wave);
        l.memory = vec![(
            OUT,
            (0..2048).flat_map(|i| row_init(i).to_le_bytes()).collect(),
        )];
        let mut results = Vec::new();
        for (name, mut d) in row_configs() {
            for round in 0..3 {
                let o = d.run(&l).unwrap_or_else(|e| panic!("{name}: {e}"));
                results.push((name, round, words(&o)));
            }
        }
        let (_, _, want) = results.last().expect("the reference ran");
        for (name, round, w) in &results {
            assert!(w == want, "{name} wave{wave} round {round}");
        }
        let hole = |l: u32| l & 5 != 0;
        for lane in 0..wave {
            // The page-crossing load (words 1008..), stored at 2048 and as the LDS pair.
            assert_eq!(
                want[(512 + lane) as usize],
                row_init(1008 + lane),
                "lane {lane}"
            );
            // The reversed load, stored across the page at 4064.
            assert_eq!(
                want[(1016 + lane) as usize],
                row_init(63 - lane),
                "lane {lane}"
            );
            // The load with holes: the store with holes leaves those words; v18 of a hole is 0.
            let kept = row_init(1152 + lane);
            let v18 = if hole(lane) { 0 } else { row_init(128 + lane) };
            let at_hole = if hole(lane) { kept } else { v18 };
            assert_eq!(want[(1152 + lane) as usize], at_hole, "lane {lane}");
            assert_eq!(want[(1792 + lane) as usize], v18, "lane {lane}");
            // B128 and B64 rows of lanes 0..20.
            for i in 0..4 {
                let at = 1280 + 4 * lane + i;
                let v = if lane < 20 {
                    row_init(4 + 4 * lane + i)
                } else {
                    row_init(at)
                };
                assert_eq!(want[at as usize], v, "lane {lane} word {i}");
            }
            let (at, next) = (1600 + 2 * lane, row_init(1009 + lane));
            if lane < 20 {
                assert_eq!(
                    want[at as usize..at as usize + 2],
                    [row_init(1008 + lane), next]
                );
            }
        }
    }
}

/// A row store whose last lanes leave the mapped buffer faults at the first byte outside
/// it, naming the instruction, and stores nothing, as lane by lane.
#[test]
fn row_store_past_the_buffer_faults() {
    let text = "v_lshlrev_b32 v1, 2, v0
v_add_nc_u32 v1, 0x1c0, v1
global_store_b32 v1, v0, s[0:1]
s_endpgm
";
    let l = launch(assemble(text), 32);
    let mut errors = Vec::new();
    for (name, mut d) in row_configs() {
        let e = d.run(&l).expect_err(name).to_string();
        assert!(e.contains("GLOBAL_STORE_B32"), "{name}: {e}");
        assert!(e.contains("0x100000200"), "{name}: {e}");
        errors.push((name, e));
    }
    for (name, e) in &errors[1..] {
        assert_eq!(e, &errors[0].1, "{name}");
    }
}

/// A DS load or store with the GDS bit addresses the global data share, which the model does
/// not have: it is refused on every run of the program, not only on its first execution
/// (later runs on the same executor take the prepared plan, built from the same decision),
/// and the destination keeps its value.
#[test]
fn gds_accesses_are_refused_on_every_run() {
    let db = common::spec().db(Arch::Rdna3);
    for engine in [Engine::Interp, Engine::Jit] {
        let mut ex = Executor::new(db, engine).expect("engine");
        for text in ["ds_load_b32 v1, v0 gds", "ds_store_b32 v0, v1 gds"] {
            let program = Program::assemble(ex.isa(), &format!("{text}\ns_endpgm")).unwrap();
            for run in 0..3 {
                let mut w = ex.new_wave(32);
                w.set_vgpr(0, 1, 0x1234);
                let e = ex
                    .run_fast(&program, &mut w)
                    .expect_err("a GDS access must be refused");
                let e = e.to_string();
                assert!(
                    e.contains("GDS form") && e.contains("global data share"),
                    "{engine:?} {text} run {run}: {e}"
                );
                assert_eq!(w.vgpr(0, 1), 0x1234, "{engine:?} {text} run {run}");
                assert_eq!(w.lds.read_u32(0), 0, "{engine:?} {text} run {run}");
            }
        }
    }
}
