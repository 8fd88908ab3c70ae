//! Code that changes under the executors: a kernel storing a new instruction word
//! over a later instruction runs the new instruction, a relaunch after the embedder rewrote
//! the code bytes runs the new code, and `s_setpc` to a computed address and
//! `s_getpc`-relative loads of code words stay correct, under the interpreter, the
//! per-instruction JIT, blocks and tiering.

mod common;

use amdpcode::dispatch::{Code, Dispatcher, Launch, Outcome, Unmapped};
use amdpcode::spec::Arch;
use amdpcode::wave::Engine;
use common::asm::{assemble, offset_of, word};

const OUT: u64 = 0x1_0000_0000;
const CODE: u64 = 0x7000_0000;

/// One work-item (EXEC = lane 0), s[0:1] = OUT.
fn launch(code: Vec<u8>) -> Launch {
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
        block: [1, 1, 1],
        grid_items: None,
        wave: Some(32),
        lds_bytes: None,
        scratch_bytes: None,
        memory: vec![(OUT, vec![0; 8])],
        unmapped: Unmapped::Fault,
        step_budget: None,
    }
}

/// The engine configurations compared: name, engine, blocks (threshold), JIT tiering
/// threshold.
const CONFIGS: [(&str, Engine, Option<u32>, u32); 4] = [
    ("interp", Engine::Interp, None, 0),
    ("jit-step", Engine::Jit, None, 0),
    ("jit-block", Engine::Jit, Some(2), 0),
    ("jit-tiered", Engine::Jit, Some(3), 1),
];

fn dispatcher(engine: Engine, blocks: Option<u32>, jit_threshold: u32) -> Dispatcher {
    let mut d = Dispatcher::new(common::spec().db(Arch::Rdna3), engine).expect("engine");
    let ex = d.executor_mut();
    ex.block_compile = blocks.is_some();
    ex.block_threshold = blocks.unwrap_or(1);
    ex.jit_threshold = jit_threshold;
    d
}

fn out_words(o: &Outcome) -> [u32; 2] {
    let b = &o.memory[0].1;
    [0, 4].map(|i| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]))
}

/// A loop of three iterations whose body starts with `v_mov_b32 v0, 1` (`target`) and adds
/// v0 to v5; with `STORE` replaced by a global store, each iteration stores `v_mov_b32 v0, 2`
/// over `target`. OUT[0] = v5.
const PATCH_LOOP: &str = "s_getpc_b64 s[4:5]
s_addk_i32 s4, OFF
v_mov_b32 v1, s4
v_mov_b32 v2, s5
v_mov_b32 v3, NEW
v_mov_b32 v5, 0
s_mov_b32 s6, 3
loop:
target: v_mov_b32 v0, 1
v_add_nc_u32 v5, v5, v0
STORE
s_waitcnt 0
s_sub_u32 s6, s6, 1
s_cmp_lg_u32 s6, 0
s_cbranch_scc1 loop
v_mov_b32 v6, 0
global_store_b32 v6, v5, s[0:1]
s_endpgm
";

fn patch_loop(store: bool) -> Vec<u8> {
    let store = if store {
        "global_store_b32 v[1:2], v3, off"
    } else {
        "s_nop 0"
    };
    let new = format!("0x{:08x}", word("v_mov_b32 v0, 2"));
    let text = PATCH_LOOP.replace("STORE", store).replace("NEW", &new);
    // s_getpc gives the address of s_addk_i32 (the next instruction); SOPK's constant has
    // one size, so offsets measured with 0 hold.
    let zero = text.replace("OFF", "0");
    let off = offset_of(&zero, "target:") - offset_of(&zero, "s_addk_i32");
    let text = text
        .replace("OFF", &off.to_string())
        .replace("target: ", "");
    assemble(&text)
}

#[test]
fn store_over_a_later_instruction_runs_the_new_one() {
    let l = launch(patch_loop(true));
    for (name, engine, blocks, tier) in CONFIGS {
        let mut d = dispatcher(engine, blocks, tier);
        let o = d.run(&l).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Iteration 1 runs `v_mov_b32 v0, 1`, then stores `v_mov_b32 v0, 2` over it.
        assert_eq!(out_words(&o)[0], 1 + 2 + 2, "{name}");
        assert_eq!(o.instructions, 7 + 3 * 7 + 3, "{name}");
        if blocks == Some(2) {
            assert!(d.executor().blocks_compiled() > 0, "{name}: no block ran");
        }
        // The dispatcher's cached program of the original bytes still runs them.
        let o = d.run(&l).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(out_words(&o)[0], 5, "{name}: second launch");
    }
}

#[test]
fn relaunch_after_rewriting_the_code_runs_the_new_code() {
    let old = patch_loop(false);
    let (from, to) = (word("v_mov_b32 v0, 1"), word("v_mov_b32 v0, 2"));
    let at = old
        .chunks(4)
        .position(|c| c == from.to_le_bytes())
        .expect("target word")
        * 4;
    let mut new = old.clone();
    new[at..at + 4].copy_from_slice(&to.to_le_bytes());
    for (name, engine, blocks, tier) in CONFIGS {
        let mut d = dispatcher(engine, blocks, tier);
        for (code, want) in [(&old, 3), (&new, 6), (&old, 3)] {
            let o = d
                .run(&launch(code.clone()))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(out_words(&o)[0], want, "{name}");
        }
        if blocks == Some(2) {
            assert!(d.executor().blocks_compiled() > 0, "{name}: no block ran");
        }
    }
}

/// Four iterations of: `s_setpc` to a computed address (skipping `v_add_nc_u32 v5, 100,
/// v5`), add 1 to v5, load the word of that add through the address in s[8:9].
/// OUT = [v5, the loaded word].
const SETPC_LOOP: &str = "s_mov_b32 s6, 4
v_mov_b32 v5, 0
loop:
s_getpc_b64 s[8:9]
s_addk_i32 s8, SKIP
s_setpc_b64 s[8:9]
v_add_nc_u32 v5, 100, v5
after: v_add_nc_u32 v5, 1, v5
s_load_b32 s7, s[8:9], 0x0
s_waitcnt 0
v_mov_b32 v7, s7
s_sub_u32 s6, s6, 1
s_cmp_lg_u32 s6, 0
s_cbranch_scc1 loop
v_mov_b32 v6, 0
global_store_b32 v6, v5, s[0:1]
global_store_b32 v6, v7, s[0:1] offset:4
s_endpgm
";

#[test]
fn setpc_to_computed_address_and_getpc_relative_loads() {
    let zero = SETPC_LOOP.replace("SKIP", "0");
    let skip = offset_of(&zero, "after:") - offset_of(&zero, "s_addk_i32");
    let text = SETPC_LOOP
        .replace("SKIP", &skip.to_string())
        .replace("after: ", "");
    let l = launch(assemble(&text));
    let add = word("v_add_nc_u32 v5, 1, v5");
    for (name, engine, blocks, tier) in CONFIGS {
        let mut d = dispatcher(engine, blocks, tier);
        let o = d.run(&l).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(out_words(&o), [4, add], "{name}");
        assert_eq!(o.instructions, 2 + 4 * 10 + 4, "{name}");
        if blocks == Some(2) {
            assert!(d.executor().blocks_compiled() > 0, "{name}: no block ran");
        }
    }
}
