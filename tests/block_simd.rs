//! SIMD lanes in blocks (issue 14): in-place instructions whose IR is straight-line 32-bit
//! lane arithmetic run four lanes at a time. They must give the bits the scalar lane loop and
//! the interpreter give: NaN payloads and the default NaN, signed zeros, f32 denormals flushed
//! on input and output, partial EXEC groups (inactive lanes keep their old values).

mod common;

use amdpcode::spec::Arch;
use amdpcode::wave::{Engine, Executor, Program, WaveState};

/// The loop of `benches/wave.rs`.
const BENCH_LOOP: &str = "
s_mov_b32 s0, 50
loop:
v_add_f32 v1, 1.0, v1
s_sub_u32 s0, s0, 1
s_cmp_lg_u32 s0, 0
s_cbranch_scc1 loop
s_endpgm
";

/// Runs `text` from `init` (blocks at threshold 2 when `blocks`); returns the final state
/// and the change of `jit::block_stats()`.
fn run(
    arch: Arch,
    text: &str,
    init: &WaveState,
    engine: Engine,
    blocks: bool,
) -> (WaveState, amdpcode::jit::BlockStats) {
    let db = common::spec().db(arch);
    let mut ex = Executor::new(db, engine).unwrap();
    ex.block_compile = blocks;
    ex.block_threshold = 2;
    let program = Program::assemble(ex.isa(), text).unwrap();
    let mut w = init.clone();
    let before = amdpcode::jit::block_stats();
    ex.run_fast(&program, &mut w).unwrap();
    let after = amdpcode::jit::block_stats();
    let delta = amdpcode::jit::BlockStats {
        blocks: after.blocks - before.blocks,
        in_place: after.in_place - before.in_place,
        calls: after.calls - before.calls,
        simd: after.simd - before.simd,
    };
    (w, delta)
}

#[test]
fn issue_14_simd_bench_loop() {
    for wave in [32, 64] {
        let init = WaveState::new(Arch::Rdna3, wave);
        let (w, st) = run(Arch::Rdna3, BENCH_LOOP, &init, Engine::Jit, true);
        eprintln!("{st:?}");
        assert_eq!(st.simd, 1, "wave{wave}: {st:?}");
        for lane in 0..wave {
            assert_eq!(w.vgpr(lane, 1), 50.0f32.to_bits(), "wave{wave} lane {lane}");
        }
    }
}
