//! Block compilation: programs run with hot straight-line runs compiled into
//! blocks give the same final state, bit for bit, as per-instruction JIT steps and as the
//! interpreter, from random initial states (denormals, random EXEC), in wave32 and wave64.

mod common;

use amdpcode::exec::Rng;
use amdpcode::spec::Arch;
use amdpcode::wave::{code, Engine, Executor, Program, WaveState};

/// ALU mix in a loop (RDNA): SGPR pairs and carries, literals, inline constants, VOP3,
/// 16-bit and 64-bit VALU, no-ops, EXEC written in the middle of a block (`EXEC_OP` is
/// replaced per wave size), VCC (a block boundary), `s_getpc`, SCC selects.
const RDNA_MIX: &str = "
s_mov_b32 s10, 8
loop:
s_add_u32 s2, s2, s3
s_addc_u32 s4, s4, s5
s_mov_b64 s[6:7], s[2:3]
s_lshl_b64 s[8:9], s[6:7], 3
v_mul_f32 v2, v1, v3
v_add_nc_u32 v4, s2, v4
v_mov_b32 v5, 0x12345678
v_xor_b32 v6, v2, v5
v_fma_f32 v7, v1, v3, v2
v_add_f16 v8, v1, v3
v_cvt_f32_u32 v9, v4
s_nop 0
EXEC_AND
v_sub_f32 v10, v1, v2
EXEC_OR
v_add_f64 v[12:13], v[0:1], v[2:3]
v_cmp_gt_u32 vcc_lo, v4, v6
v_cndmask_b32 v14, v4, v6, vcc_lo
s_cselect_b32 s15, s2, s4
s_getpc_b64 s[16:17]
s_waitcnt 0
v_add_f32 v1, 1.0, v1
s_sub_u32 s10, s10, 1
s_cmp_lg_u32 s10, 0
s_cbranch_scc1 loop
s_endpgm
";

/// The same kind of loop in CDNA syntax (wave64).
const CDNA_MIX: &str = "
s_mov_b32 s10, 8
loop:
v_add_f32 v1, 1.0, v1
v_mul_f32 v2, v1, v3
v_add_u32 v4, s2, v4
s_add_u32 s2, s2, s3
s_addc_u32 s4, s4, s5
s_and_b64 exec, exec, s[12:13]
v_mov_b32 v5, s2
v_fma_f32 v7, v1, v3, v2
s_or_b64 exec, exec, s[14:15]
v_add_f64 v[12:13], v[0:1], v[2:3]
s_sub_u32 s10, s10, 1
s_cmp_lg_u32 s10, 0
s_cbranch_scc1 loop
s_endpgm
";

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

fn random_wave(arch: Arch, wave_size: u32, rng: &mut Rng) -> WaveState {
    let mut w = WaveState::new(arch, wave_size);
    let exec = rng.next_u64() & w.full_mask();
    w.set_exec(exec | 1);
    for reg in 0..16 {
        for lane in 0..wave_size {
            let x = rng.next_u64() as u32;
            // Every fourth value an f32 denormal (flushed on input and output by default).
            let x = if x & 3 == 0 { x & 0x807f_ffff } else { x };
            w.set_vgpr(lane, reg, x);
        }
    }
    for c in 0..20 {
        w.write_sgpr(c, rng.next_u64() as u32);
    }
    w.scc = rng.next_u64() & 1 == 1;
    w.write_sgpr(code::VCC_LO, rng.next_u64() as u32);
    w
}

/// Runs `text` from `init` under `engine` (blocks on with `threshold`, or off).
fn run(
    arch: Arch,
    text: &str,
    init: &WaveState,
    engine: Engine,
    blocks: Option<u32>,
) -> (WaveState, u64, usize) {
    let db = common::spec().db(arch);
    let mut ex = Executor::new(db, engine).unwrap();
    ex.block_compile = blocks.is_some();
    ex.block_threshold = blocks.unwrap_or(1);
    let program = Program::assemble(ex.isa(), text).unwrap();
    let mut w = init.clone();
    let steps = ex.run_fast(&program, &mut w).unwrap();
    // A second run on the same executor reuses the compiled blocks from the start.
    let mut w2 = init.clone();
    let steps2 = ex.run_fast(&program, &mut w2).unwrap();
    assert_eq!((steps, &w), (steps2, &w2), "{arch:?}: rerun differs");
    (w, steps, ex.blocks_compiled())
}

fn agree(arch: Arch, wave_size: u32, text: &str, seeds: u64) {
    let mut compiled = 0;
    for seed in 0..seeds {
        let mut rng = Rng::new(0x14_0000 + seed);
        let init = random_wave(arch, wave_size, &mut rng);
        let (interp, n0, _) = run(arch, text, &init, Engine::Interp, None);
        let (step, n1, none) = run(arch, text, &init, Engine::Jit, None);
        assert_eq!(none, 0, "blocks compiled with block_compile off");
        for threshold in [1, 3] {
            let (block, n2, k) = run(arch, text, &init, Engine::Jit, Some(threshold));
            compiled += k;
            assert_eq!(n1, n2, "{arch:?} wave{wave_size} seed {seed}: step counts");
            assert!(
                step == block,
                "{arch:?} wave{wave_size} seed {seed} threshold {threshold}: blocks differ \
                 from per-instruction JIT steps"
            );
        }
        assert_eq!(n0, n1, "{arch:?} wave{wave_size} seed {seed}: step counts");
        assert!(
            interp == step,
            "{arch:?} wave{wave_size} seed {seed}: interpreter and JIT differ"
        );
    }
    assert!(compiled > 0, "no block was compiled");
}

#[test]
fn blocks_agree_rdna3_wave32() {
    let text = RDNA_MIX
        .replace("EXEC_AND", "s_and_b32 exec_lo, exec_lo, s11")
        .replace("EXEC_OR", "s_or_b32 exec_lo, exec_lo, s14");
    agree(Arch::Rdna3, 32, &text, 6);
    agree(Arch::Rdna3, 32, BENCH_LOOP, 2);
}

#[test]
fn blocks_agree_rdna3_wave64() {
    let text = RDNA_MIX
        .replace("EXEC_AND", "s_and_b64 exec, exec, s[12:13]")
        .replace("EXEC_OR", "s_or_b64 exec, exec, s[14:15]");
    agree(Arch::Rdna3, 64, &text, 4);
    agree(Arch::Rdna3, 64, BENCH_LOOP, 2);
}

#[test]
fn blocks_agree_rdna4_wave32() {
    let text = RDNA_MIX
        .replace("EXEC_AND", "s_and_b32 exec_lo, exec_lo, s11")
        .replace("EXEC_OR", "s_or_b32 exec_lo, exec_lo, s14");
    agree(Arch::Rdna4, 32, &text, 3);
}

#[test]
fn blocks_agree_cdna_wave64() {
    agree(Arch::Cdna, 64, CDNA_MIX, 4);
}

/// The bench loop compiles into one block (four instructions, ending at the branch), which
/// runs once per iteration after the threshold.
#[test]
fn loop_is_one_block() {
    let db = common::spec().db(Arch::Rdna3);
    let mut ex = Executor::new(db, Engine::Jit).unwrap();
    ex.block_threshold = 2;
    let program = Program::assemble(ex.isa(), BENCH_LOOP).unwrap();
    let mut w = WaveState::new(Arch::Rdna3, 32);
    assert_eq!(ex.run_fast(&program, &mut w).unwrap(), 4 * 50 + 2);
    assert_eq!(ex.blocks_compiled(), 1);
    // 1.0 added 50 times.
    assert_eq!(w.vgpr(31, 1), 50f32.to_bits());
    assert_eq!(w.read_sgpr(0), 0);
}

/// The step budget still stops a runaway loop at exactly the budget, blocks or not.
#[test]
fn step_budget_is_exact_with_blocks() {
    let db = common::spec().db(Arch::Rdna3);
    let mut ex = Executor::new(db, Engine::Jit).unwrap();
    ex.block_threshold = 1;
    ex.step_budget = 103;
    let program = Program::assemble(ex.isa(), "loop:\ns_add_u32 s1, s1, 1\ns_branch loop").unwrap();
    let mut w = WaveState::new(Arch::Rdna3, 32);
    let e = ex.run_fast(&program, &mut w).unwrap_err();
    assert_eq!(
        e.to_string(),
        "step budget exhausted after 103 instructions (runaway program?)"
    );
    assert_eq!(w.read_sgpr(1), 52);
}

/// A state whose register files were cut short through the public fields runs by steps (no
/// panic in the block's buffer check), with the same result as without blocks.
#[test]
fn short_register_file_steps_instead() {
    let db = common::spec().db(Arch::Rdna3);
    let program_text =
        "loop:\ns_add_u32 s1, s1, 1\ns_cmp_lg_u32 s1, 40\ns_cbranch_scc1 loop\ns_endpgm";
    let mut results = Vec::new();
    for blocks in [false, true] {
        let mut ex = Executor::new(db, Engine::Jit).unwrap();
        ex.block_compile = blocks;
        ex.block_threshold = 1;
        let program = Program::assemble(ex.isa(), program_text).unwrap();
        let mut w = WaveState::new(Arch::Rdna3, 32);
        w.vgpr.truncate(64);
        let steps = ex.run_fast(&program, &mut w).unwrap();
        assert_eq!(w.read_sgpr(1), 40);
        results.push((steps, w));
    }
    assert_eq!(results[0], results[1]);
}

/// A dispatcher that says how many waves of the launch are still to come
/// (`Executor::wave_starts`) gets a block every wave reaches compiled at its second arrival,
/// not its thousandth; a launch too small to reach the threshold compiles none. The waves'
/// final states are those of stepping.
#[test]
fn waves_to_come_compile_blocks_early() {
    let db = common::spec().db(Arch::Rdna3);
    let text = "v_add_f32 v1, 1.0, v1\nv_mul_f32 v2, v1, v1\ns_add_u32 s1, s1, 7\n\
                v_fma_f32 v3, v2, v1, v2\ns_endpgm";
    let wave = |k: u32| {
        let mut w = WaveState::new(Arch::Rdna3, 32);
        w.set_vgpr(0, 1, (k as f32 * 0.25).to_bits());
        w
    };
    let mut stepped = Executor::new(db, Engine::Jit).unwrap();
    stepped.block_compile = false;
    let program = Program::assemble(stepped.isa(), text).unwrap();
    for (waves, compiled_after) in [(1000u32, Some(2u32)), (100, None)] {
        let mut ex = Executor::new(db, Engine::Jit).unwrap();
        assert_eq!(ex.block_threshold, 1000);
        for k in 0..waves {
            ex.wave_starts(&program, (waves - k - 1) as u64);
            let mut w = wave(k);
            let mut s = wave(k);
            assert_eq!(ex.run_until(&program, &mut w, u64::MAX, None).unwrap().1, 5);
            stepped.run_fast(&program, &mut s).unwrap();
            assert_eq!(w, s, "wave {k} of {waves}");
            let expect = usize::from(compiled_after.is_some_and(|at| k + 1 >= at));
            assert_eq!(ex.blocks_compiled(), expect, "after wave {k} of {waves}");
        }
        ex.waves_done();
    }
}

#[test]
fn tiering_interprets_cold_instructions_first() {
    // Two instructions run once, the loop's four run 50 times.
    let text = "v_mov_b32 v3, 5\n".to_string() + BENCH_LOOP;
    let db = common::spec().db(Arch::Rdna3);
    let mut rng = Rng::new(7);
    let init = random_wave(Arch::Rdna3, 32, &mut rng);
    let (want, want_steps, _) = run(Arch::Rdna3, &text, &init, Engine::Interp, None);
    assert_eq!(want_steps, 2 + 50 * 4 + 1);
    for (threshold, blocks, kernels) in [
        (0, None, 6),
        (10, None, 4),
        (10, Some(20), 4),
        (60, None, 0),
    ] {
        let mut ex = Executor::new(db, Engine::Jit).unwrap();
        ex.jit_threshold = threshold;
        ex.block_compile = blocks.is_some();
        ex.block_threshold = blocks.unwrap_or(1);
        let program = Program::assemble(ex.isa(), &text).unwrap();
        let mut w = init.clone();
        let steps = ex.run_fast(&program, &mut w).unwrap();
        assert_eq!((steps, &w), (want_steps, &want), "threshold {threshold}");
        // s_endpgm has no kernel; v_mov_b32 and s_mov_b32 run once.
        assert_eq!(ex.jit_kernels_compiled(), kernels, "threshold {threshold}");
        assert_eq!(ex.blocks_compiled(), usize::from(blocks.is_some()));
    }
}

#[test]
fn wave_level_instructions_compile_at_first_use() {
    // Instructions that address the VGPR file themselves (matrix, cross-lane) cost more to
    // interpret once than to compile: they skip the tiering threshold. The plain ones wait.
    let text = "v_wmma_f32_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[0:7]\n\
                v_permlane16_b32 v30, v31, s0, s1\n\
                v_add_f32 v32, v33, v34\n\
                s_endpgm\n";
    let db = common::spec().db(Arch::Rdna3);
    let mut rng = Rng::new(11);
    let init = random_wave(Arch::Rdna3, 32, &mut rng);
    let (want, _, _) = run(Arch::Rdna3, text, &init, Engine::Interp, None);
    let mut ex = Executor::new(db, Engine::Jit).unwrap();
    ex.jit_threshold = 60;
    let program = Program::assemble(ex.isa(), text).unwrap();
    let mut w = init.clone();
    ex.run_fast(&program, &mut w).unwrap();
    assert_eq!(w, want);
    // v_wmma and v_permlane16 compiled; v_add_f32 (run once) still interpreted.
    assert_eq!(ex.jit_kernels_compiled(), 2);
}

/// Lane masks inside blocks: carry chains through VCC and SGPR pairs
/// (`v_add_co_u32`, `v_add_co_ci_u32`, `v_sub_co_*`, `v_mad_u64_u32`), `v_cndmask_b32` reading
/// VCC or a pair, VOPC results, EXEC written by `s_and_saveexec`, `v_cmpx` and `s_or` in the
/// middle of a block, and `s_cbranch_execz`/`s_cbranch_vccz`. Vector operands name masks as
/// in wave32 (the encoding is the same; wave64 reads and writes the pair); `P(n)`, `VCC`,
/// `EXEC` and `B` are the scalar instructions' masks, names and width for the wave size.
const RDNA_MASKS: &str = "
s_mov_b32 s10, 6
loop:
v_add_co_u32 v2, vcc_lo, v1, v3
v_add_co_ci_u32_e32 v3, vcc_lo, v4, v3, vcc_lo
v_add_co_u32 v4, s20, s2, v4
v_add_co_ci_u32_e64 v5, s22, s3, v5, s20
v_sub_co_u32 v6, vcc_lo, v6, v1
v_sub_co_ci_u32_e32 v7, vcc_lo, v7, v2, vcc_lo
MAD v[8:9], s24, v1, v2, v[8:9]
v_cndmask_b32_e64 v10, v1, v2, s22
v_cndmask_b32_e32 v11, v2, v3, vcc_lo
v_cmp_lt_u32_e64 s26, v1, v2
v_cmp_eq_u32_e32 vcc_lo, v3, v4
s_mov_bB P(28), VCC
s_and_saveexec_bB P(30), P(26)
v_add_nc_u32 v12, v12, v1
v_cmpx_gt_u32_e32 v2, v3
v_add_nc_u32 v13, v13, v2
s_or_bB EXEC, EXEC, P(30)
s_cbranch_execz skip
v_add_nc_u32 v14, v14, 1
skip:
s_cbranch_vccz skip2
v_add_nc_u32 v15, v15, 2
skip2:
s_sub_u32 s10, s10, 1
s_cmp_lg_u32 s10, 0
s_cbranch_scc1 loop
s_endpgm
";

/// In-place block instructions (VALU translated straight into the block function): D0 that
/// is also a source (32-bit, 64-bit pairs, scalar), 16-bit halves read through `op_sel`,
/// 64-bit pairs across rows, SGPR and constant operands, f32 denormal inputs (one value in
/// four of `random_wave`), in wave32 and wave64: the same final state as per-instruction
/// steps and the interpreter.
const INPLACE_ALIAS: &str = "
s_mov_b32 s10, 6
loop:
v_add_f32 v1, v1, v1
v_sub_f32 v2, v3, v2
v_mul_f32 v3, v3, v2
v_fma_f32 v4, v4, v4, v5
v_add_f16_e64 v8, v1, v3 op_sel:[1,0,0]
v_mul_f16_e64 v9, v9, v9 op_sel:[0,1,0]
v_add_f64 v[10:11], v[10:11], v[12:13]
v_lshlrev_b64 v[12:13], 1, v[12:13]
v_add_nc_u32 v6, s2, v6
v_xor_b32 v7, 0x80000000, v7
s_add_u32 s2, s2, s2
s_lshl_b64 s[4:5], s[4:5], 1
s_sub_u32 s10, s10, 1
s_cmp_lg_u32 s10, 0
s_cbranch_scc1 loop
s_endpgm
";

/// The same in CDNA syntax (wave64; VOP2 carries through VCC, `v_cmpx` also writes VCC).
const CDNA_MASKS: &str = "
s_mov_b32 s10, 6
loop:
v_add_co_u32 v2, vcc, v1, v3
v_addc_co_u32 v3, vcc, v4, v3, vcc
v_add_co_u32 v4, s[20:21], s2, v4
v_addc_co_u32_e64 v5, s[22:23], v3, v5, s[20:21]
v_sub_co_u32 v6, vcc, v6, v1
v_subb_co_u32 v7, vcc, v7, v2, vcc
v_mad_u64_u32 v[8:9], s[24:25], v1, v2, v[8:9]
v_cndmask_b32_e64 v10, v1, v2, s[22:23]
v_cndmask_b32 v11, v2, v3, vcc
v_cmp_lt_u32_e64 s[26:27], v1, v2
v_cmp_eq_u32 vcc, v3, v4
s_mov_b64 s[28:29], vcc
s_and_saveexec_b64 s[30:31], s[26:27]
v_add_u32 v12, v12, v1
v_cmpx_gt_u32 vcc, v2, v3
v_add_u32 v13, v13, v2
s_or_b64 exec, exec, s[30:31]
s_cbranch_execz skip
v_add_u32 v14, v14, 1
skip:
s_cbranch_vccz skip2
v_add_u32 v15, v15, 2
skip2:
s_sub_u32 s10, s10, 1
s_cmp_lg_u32 s10, 0
s_cbranch_scc1 loop
s_endpgm
";

fn rdna_masks(arch: Arch, wave_size: u32) -> String {
    let mad = if arch == Arch::Rdna4 {
        "v_mad_co_u64_u32"
    } else {
        "v_mad_u64_u32"
    };
    let mut t = RDNA_MASKS.replace("MAD", mad);
    for n in (26..=30).step_by(2) {
        let m = if wave_size == 64 {
            format!("s[{n}:{}]", n + 1)
        } else {
            format!("s{n}")
        };
        t = t.replace(&format!("P({n})"), &m);
    }
    let (vcc, exec, b) = if wave_size == 64 {
        ("vcc", "exec", "64")
    } else {
        ("vcc_lo", "exec_lo", "32")
    };
    t.replace("VCC", vcc)
        .replace("EXEC", exec)
        .replace("_bB", &format!("_b{b}"))
}

/// The lane operations `run_until` counts (dispatch's figure) with and without blocks.
fn lane_ops(arch: Arch, text: &str, init: &WaveState, blocks: bool) -> (u64, WaveState) {
    let db = common::spec().db(arch);
    let mut ex = Executor::new(db, Engine::Jit).unwrap();
    ex.block_compile = blocks;
    ex.block_threshold = 2;
    let program = Program::assemble(ex.isa(), text).unwrap();
    let mut w = init.clone();
    let (_, steps) = ex.run_until(&program, &mut w, 100_000, None).unwrap();
    assert!(steps > 50, "{arch:?}: {steps} steps");
    (ex.lane_ops, w)
}

fn masks_agree(arch: Arch, wave_size: u32, text: &str, seeds: u64) {
    agree(arch, wave_size, text, seeds);
    let db = common::spec().db(arch);
    let mut ex = Executor::new(db, Engine::Jit).unwrap();
    ex.block_compile = true;
    ex.block_threshold = 2;
    let program = Program::assemble(ex.isa(), text).unwrap();
    let mut w = random_wave(arch, wave_size, &mut Rng::new(11));
    let before = amdpcode::jit::block_stats();
    ex.run_fast(&program, &mut w).unwrap();
    let after = amdpcode::jit::block_stats();
    // Every instruction of these blocks (carry chains, compares into VCC or an SGPR pair,
    // `v_cmpx`, `s_and_saveexec`, EXECZ/VCCZ branches) is translated in place: no kernel call.
    assert_eq!(
        after.calls - before.calls,
        0,
        "{arch:?} wave{wave_size}: {before:?} -> {after:?}"
    );
    assert!(
        after.in_place - before.in_place >= 20,
        "{arch:?} wave{wave_size}: {before:?} -> {after:?}"
    );
    // The carry chains, compares and EXEC writes sit inside blocks: the loop body is at most
    // four blocks (split by the conditional branches), not one per carry.
    let longest = ex.blocks().iter().map(|b| b.1).max().unwrap_or(0);
    assert!(
        longest >= 17,
        "{arch:?} wave{wave_size}: blocks {:?}",
        ex.blocks()
    );
    for seed in 0..seeds {
        let init = random_wave(arch, wave_size, &mut Rng::new(0x11_0000 + seed));
        let (step_ops, step_w) = lane_ops(arch, text, &init, false);
        let (block_ops, block_w) = lane_ops(arch, text, &init, true);
        assert!(
            step_w == block_w,
            "{arch:?} wave{wave_size} seed {seed}: states"
        );
        assert_eq!(step_ops, block_ops, "{arch:?} wave{wave_size} seed {seed}");
    }
}

#[test]
fn lane_masks_in_blocks_rdna3_wave32() {
    masks_agree(Arch::Rdna3, 32, &rdna_masks(Arch::Rdna3, 32), 6);
}

#[test]
fn lane_masks_in_blocks_rdna3_wave64() {
    masks_agree(Arch::Rdna3, 64, &rdna_masks(Arch::Rdna3, 64), 4);
}

#[test]
fn lane_masks_in_blocks_rdna4_wave32() {
    masks_agree(Arch::Rdna4, 32, &rdna_masks(Arch::Rdna4, 32), 3);
}

#[test]
fn lane_masks_in_blocks_cdna_wave64() {
    masks_agree(Arch::Cdna, 64, CDNA_MASKS, 4);
}

#[test]
fn inplace_aliasing_halves_pairs_denormals() {
    agree(Arch::Rdna3, 32, INPLACE_ALIAS, 6);
    agree(Arch::Rdna3, 64, INPLACE_ALIAS, 4);
    agree(Arch::Rdna4, 32, INPLACE_ALIAS, 3);
}

/// A kernel-shaped program: it starts with `s_clause` and ends with `s_endpgm`,
/// and the block that starts at its entry takes both, so a hot wave runs it in one block
/// entry. `run_until` (dispatch's path) reports the end, the step count and the lane
/// operations that stepping reports, and the final state (PC at `s_endpgm`) is the
/// interpreter's.
#[test]
fn wave_ends_in_block() {
    let text = "
s_clause 0x1
s_mov_b32 s0, 5
v_add_nc_u32 v1, s0, v1
s_mov_b32 exec_lo, 0x3f
v_mul_lo_u32 v2, v1, v1
s_nop 0
s_endpgm
";
    for wave in [32u32, 64] {
        let mut init = WaveState::new(Arch::Rdna3, wave);
        let exec1 = init.full_mask() & !0x100;
        let exec2 = exec1 & !0xffff_ffff | 0x3f;
        init.set_exec(exec1);
        for lane in 0..wave {
            init.set_vgpr(lane, 1, lane * 3);
        }
        let db = common::spec().db(Arch::Rdna3);
        let mut interp = Executor::new(db, Engine::Interp).unwrap();
        let program = Program::assemble(interp.isa(), text).unwrap();
        let mut want = init.clone();
        let (end, want_steps) = interp.run_until(&program, &mut want, 100, None).unwrap();
        assert_eq!((end, want_steps), (amdpcode::wave::Step::Ended, 7));
        let mut ex = Executor::new(db, Engine::Jit).unwrap();
        ex.block_compile = true;
        ex.block_threshold = 2;
        for run in 0..4 {
            let mut w = init.clone();
            let ops = ex.lane_ops;
            let r = ex.run_until(&program, &mut w, 100, None).unwrap();
            assert_eq!(r, (amdpcode::wave::Step::Ended, 7), "wave{wave} run {run}");
            assert!(
                w == want,
                "wave{wave} run {run}: state differs from the interpreter"
            );
            // Four instructions issue under the first EXEC (s_clause too), three under the
            // second (EXEC's low word 0x3f).
            let (first, second) = (exec1.count_ones() as u64, exec2.count_ones() as u64);
            assert_eq!(
                ex.lane_ops - ops,
                4 * first + 3 * second,
                "wave{wave} run {run}"
            );
        }
        assert_eq!(ex.blocks(), vec![(program.base + 4, 7)], "wave{wave}");
        for lane in 0..wave {
            let v1 = if lane == 8 { lane * 3 } else { lane * 3 + 5 };
            let v2 = if exec2 >> lane & 1 == 1 {
                v1 * v1
            } else {
                init.vgpr(lane, 2)
            };
            assert_eq!(
                (want.vgpr(lane, 1), want.vgpr(lane, 2)),
                (v1, v2),
                "lane {lane}"
            );
        }
        assert_eq!(want.pc, program.base + 28, "PC at s_endpgm");
    }
}

/// An RDNA 4 VALU instruction with an SGPR result (`v_s_rsq_f32 s1, ...`) that issues with
/// no lane active keeps the SGPR: it is not a block instruction, so a block around it does
/// not write the SGPR unconditionally. The fuzzer's program 2889 of seed 1411 (rdna4 wave64,
/// EXEC zero after a `v_cmpx`), regenerated here, wrote 0 over `s1 = 0xf03b` in blocks.
#[test]
fn valu_sgpr_result_with_no_lane_active() {
    use amdpcode::fuzz::{self, Generator};
    let (arch, wave) = (Arch::Rdna4, 64u32);
    let db = common::spec().db(arch);
    let isa = amdpcode::isa::Isa::new(db);
    let runs = |name: &str| {
        db.get_all(name)
            .iter()
            .any(|i| amdpcode::exec::prepare(arch, i).is_ok())
    };
    let keep = |info: &amdpcode::isa::tables::InstInfo| {
        runs(&info.name)
            || info
                .name
                .strip_suffix("_E64")
                .is_some_and(|b| runs(&format!("{b}_E32")))
    };
    let gen = Generator::new(&isa, &keep).unwrap();
    let index = 2889u64;
    let mut rng = Rng::new(1411 ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let items = gen.program(&isa, &mut rng, 16);
    let init = fuzz::initial_state(arch, wave, &mut rng);
    let bytes = gen.layout(&items);
    let listing = fuzz::listing(&isa, &bytes);
    assert!(listing.contains("v_s_rsq_f32 s1"), "{listing}");
    let program = Program::from_bytes(&isa, &bytes, &[]).unwrap();
    let mut results = Vec::new();
    for blocks in [None, Some(1)] {
        let mut ex = Executor::new(db, Engine::Jit).unwrap();
        ex.block_compile = blocks.is_some();
        ex.block_threshold = 1;
        for _ in 0..2 {
            let mut w = init.clone();
            let steps = ex.run_fast(&program, &mut w).unwrap();
            results.push((steps, w));
        }
        assert_eq!(ex.blocks_compiled() > 0, blocks.is_some());
    }
    let mut interp = Executor::new(db, Engine::Interp).unwrap();
    let mut want = init.clone();
    let steps = interp.run_fast(&program, &mut want).unwrap();
    assert_eq!((want.exec(), want.read_sgpr(1)), (0, 0xf03b));
    for (k, (n, w)) in results.iter().enumerate() {
        assert_eq!((*n, w.read_sgpr(1)), (steps, 0xf03b), "run {k}");
        assert!(*w == want, "run {k}: differs from the interpreter");
    }
}

/// A loop whose body has forward conditional branches (SCC on alternate iterations, EXECZ
/// after a `v_cmpx` that random EXEC and data switch every lane off in some waves). Each
/// branch is a side exit of the block it sits in: the block goes on past it while it falls
/// through, and a taken one leaves the block (inside an in-place loop iteration too). States,
/// step counts and `run_until`'s lane operations are those of stepping and the interpreter.
const FORWARD_BRANCHES: &str = "
s_mov_b32 s10, 7
loop:
v_add_nc_u32 v1, 1, v1
s_and_b32 s11, s10, 1
s_cmp_eq_u32 s11, 0
s_cbranch_scc1 even
v_mul_lo_u32 v2, v1, v1
s_add_u32 s12, s12, 3
s_nop 0
even:
s_mov_b32 s13, exec_lo
v_cmpx_gt_u32 0x7fffffff, v3
s_cbranch_execz none
v_xor_b32 v4, v3, v1
s_add_u32 s14, s14, s10
none:
s_mov_b32 exec_lo, s13
s_sub_u32 s10, s10, 1
s_cmp_lg_u32 s10, 0
s_cbranch_scc1 loop
s_endpgm
";

#[test]
fn forward_branches_are_side_exits() {
    agree(Arch::Rdna3, 32, FORWARD_BRANCHES, 8);
    let db = common::spec().db(Arch::Rdna3);
    let mut ex = Executor::new(db, Engine::Jit).unwrap();
    ex.block_threshold = 1;
    let program = Program::assemble(ex.isa(), FORWARD_BRANCHES).unwrap();
    let mut w = random_wave(Arch::Rdna3, 32, &mut Rng::new(5));
    // Every lane passes the v_cmpx: each iteration falls through the EXECZ branch.
    for lane in 0..32 {
        w.set_vgpr(lane, 3, lane);
    }
    ex.run_fast(&program, &mut w.clone()).unwrap();
    ex.run_fast(&program, &mut w).unwrap();
    // The block at `loop` runs through both forward branches to the loop's back branch
    // (16 instructions, the s_nop included), instead of ending at the first branch.
    let at_loop = program.base + 4;
    let blocks = ex.blocks();
    assert!(blocks.contains(&(at_loop, 16)), "{blocks:x?}");
    for seed in 0..6 {
        let mut init = random_wave(Arch::Rdna3, 32, &mut Rng::new(0x14_5e00 + seed));
        if seed % 2 == 0 {
            for lane in 0..32 {
                init.set_vgpr(lane, 3, lane);
            }
        }
        let (step_ops, step_w) = lane_ops_of(Arch::Rdna3, FORWARD_BRANCHES, &init, false);
        let (block_ops, block_w) = lane_ops_of(Arch::Rdna3, FORWARD_BRANCHES, &init, true);
        assert!(step_w == block_w, "seed {seed}: states");
        assert_eq!(step_ops, block_ops, "seed {seed}: lane operations");
    }
}

/// `lane_ops` for programs of any length (blocks at threshold 1, run twice).
fn lane_ops_of(arch: Arch, text: &str, init: &WaveState, blocks: bool) -> (u64, WaveState) {
    let db = common::spec().db(arch);
    let mut ex = Executor::new(db, Engine::Jit).unwrap();
    ex.block_compile = blocks;
    ex.block_threshold = 1;
    let program = Program::assemble(ex.isa(), text).unwrap();
    ex.run_until(&program, &mut init.clone(), 100_000, None)
        .unwrap();
    let before = ex.lane_ops;
    let mut w = init.clone();
    let (end, _) = ex.run_until(&program, &mut w, 100_000, None).unwrap();
    assert_eq!(end, amdpcode::wave::Step::Ended);
    (ex.lane_ops - before, w)
}

/// A taken forward branch whose target lies past the program (a side exit in the middle of
/// a block) is the error stepping reports, with the same state (PC at the branch).
#[test]
fn side_exit_out_of_the_program() {
    let text = "
s_add_u32 s1, s1, 1
s_cmp_gt_u32 s1, 2
s_cbranch_scc1 100
v_add_nc_u32 v1, 1, v1
s_endpgm
";
    let db = common::spec().db(Arch::Rdna3);
    let mut results = Vec::new();
    for blocks in [false, true] {
        let mut ex = Executor::new(db, Engine::Jit).unwrap();
        ex.block_compile = blocks;
        ex.block_threshold = 1;
        let program = Program::assemble(ex.isa(), text).unwrap();
        let mut w = WaveState::new(Arch::Rdna3, 32);
        let mut runs = Vec::new();
        // s1 counts the runs: the branch falls through twice (compiling the block), then
        // is taken.
        for _ in 0..3 {
            w.pc = program.base;
            runs.push(
                ex.run_until(&program, &mut w, 100, None)
                    .map_err(|e| e.to_string()),
            );
        }
        assert!(runs[..2].iter().all(|r| r.is_ok()), "{runs:?}");
        assert!(runs[2].is_err(), "{runs:?}");
        assert_eq!(w.pc, program.base + 8, "PC at the branch");
        assert_eq!(w.read_sgpr(1), 3);
        results.push((runs, w));
    }
    assert_eq!(results[0], results[1]);
}

/// A block that does not loop is compiled first without Cranelift's optimiser (quick) and,
/// once it has run `block_optimise_threshold` lane-instructions per instruction, again with
/// it; the optimised code replaces the quick one, with the same results bit for bit.
#[test]
fn quick_block_is_optimised_once_hot() {
    let text = "
v_add_f32 v1, v2, v3
v_mul_f32 v4, v1, v5
v_fma_f32 v6, v4, v7, v8
v_xor_b32 v9, v6, v10
v_add_nc_u32 v11, v9, v12
s_add_u32 s2, s2, s3
s_endpgm
";
    let db = common::spec().db(Arch::Rdna3);
    let mut rng = Rng::new(0x51_0000);
    let init = random_wave(Arch::Rdna3, 32, &mut rng);
    let (expect, n, _) = run(Arch::Rdna3, text, &init, Engine::Interp, None);
    let mut ex = Executor::new(db, Engine::Jit).unwrap();
    ex.block_threshold = 1;
    // Any lane-instruction run through the quick code makes it hot.
    ex.block_optimise_threshold = 1;
    let program = Program::assemble(ex.isa(), text).unwrap();
    let before = amdpcode::jit::block_stats();
    let mut tiers = Vec::new();
    for _ in 0..4 {
        let mut w = init.clone();
        assert_eq!(ex.run_fast(&program, &mut w).unwrap(), n);
        assert!(w == expect, "blocks differ from the interpreter");
        let now = amdpcode::jit::block_stats();
        tiers.push((now.quick - before.quick, now.optimised - before.optimised));
    }
    // The first run steps (the block's first instruction has not run before it arrives);
    // the second compiles the block quick and runs it; the third, arriving at a block that
    // has run its lanes, compiles it again optimised and runs that; the fourth compiles
    // nothing.
    assert_eq!(tiers, [(0, 0), (1, 0), (1, 1), (1, 1)]);

    // Never hot enough: the quick code stays, with the same results.
    let mut ex = Executor::new(db, Engine::Jit).unwrap();
    ex.block_threshold = 1;
    ex.block_optimise_threshold = u64::MAX;
    let before = amdpcode::jit::block_stats();
    for _ in 0..4 {
        let mut w = init.clone();
        assert_eq!(ex.run_fast(&program, &mut w).unwrap(), n);
        assert!(w == expect, "quick blocks differ from the interpreter");
    }
    let now = amdpcode::jit::block_stats();
    assert!(now.quick > before.quick);
    assert_eq!(now.optimised, before.optimised);
}

/// VOPD words in a loop: both halves read the state from before the word, so a block runs
/// them X then Y when Y reads nothing X writes, Y then X when X reads nothing Y writes, and
/// steps a word whose halves each read the other's destination (the swap).
const VOPD_LOOP: &str = "
s_mov_b32 s10, 6
loop:
v_dual_add_f32 v1, v2, v3 :: v_dual_mul_f32 v4, v5, v6
v_dual_mov_b32 v7, v1 :: v_dual_add_nc_u32 v8, v2, v4
v_dual_add_f32 v2, v3, v9 :: v_dual_mul_f32 v5, v2, v6
v_dual_mov_b32 v3, v6 :: v_dual_mov_b32 v6, v3
v_dual_cndmask_b32 v9, v1, v4 :: v_dual_fmaak_f32 v10, v2, v7, 0x3f800000
v_dual_fmac_f32 v11, v1, v2 :: v_dual_sub_f32 v12, v11, v4
s_sub_u32 s10, s10, 1
s_cmp_lg_u32 s10, 0
s_cbranch_scc1 loop
s_endpgm
";

#[test]
fn vopd_halves_in_blocks() {
    agree(Arch::Rdna3, 32, VOPD_LOOP, 6);
    agree(Arch::Rdna4, 32, VOPD_LOOP, 3);
    // The three words before the swap make one block, the two after it one with the loop's
    // end (the swap steps, so the loop's branch back is not to that block's start).
    let mut rng = Rng::new(0x52_0000);
    let init = random_wave(Arch::Rdna3, 32, &mut rng);
    let db = common::spec().db(Arch::Rdna3);
    let mut ex = Executor::new(db, Engine::Jit).unwrap();
    ex.block_threshold = 1;
    let program = Program::assemble(ex.isa(), VOPD_LOOP).unwrap();
    let before = amdpcode::jit::block_stats();
    for _ in 0..2 {
        let mut w = init.clone();
        ex.run_fast(&program, &mut w).unwrap();
    }
    let mut sizes: Vec<u64> = ex.blocks().iter().map(|b| b.1).collect();
    sizes.sort_unstable();
    assert!(sizes.contains(&3) && sizes.contains(&5), "blocks {sizes:?}");
    let now = amdpcode::jit::block_stats();
    // Ten halves, all in place, and no kernel call.
    assert_eq!(now.calls - before.calls, 0);
    assert!(now.in_place - before.in_place >= 10);
}

/// CDNA's packed f32 with the default `op_sel`/`op_sel_hi` reads each source as it is, so it
/// binds like a plain 64-bit source (a VGPR pair or an SGPR pair) and runs in a block; the
/// last multiply swaps its first source's halves and ends the block.
const PACKED_F32_LOOP: &str = "
s_mov_b32 s10, 3
loop:
v_pk_mul_f32 v[4:5], v[6:7], v[8:9]
v_pk_add_f32 v[10:11], v[4:5], s[2:3]
v_pk_fma_f32 v[12:13], v[4:5], v[6:7], v[10:11]
v_pk_mul_f32 v[14:15], v[6:7], v[8:9] op_sel:[1,0] op_sel_hi:[0,1]
s_sub_u32 s10, s10, 1
s_cmp_lg_u32 s10, 0
s_cbranch_scc1 loop
s_endpgm
";

#[test]
fn packed_f32_in_blocks() {
    agree(Arch::Cdna, 64, PACKED_F32_LOOP, 4);
    let mut rng = Rng::new(0x53_0000);
    let init = random_wave(Arch::Cdna, 64, &mut rng);
    let db = common::spec().db(Arch::Cdna);
    let mut ex = Executor::new(db, Engine::Jit).unwrap();
    ex.block_threshold = 1;
    let program = Program::assemble(ex.isa(), PACKED_F32_LOOP).unwrap();
    for _ in 0..2 {
        let mut w = init.clone();
        ex.run_fast(&program, &mut w).unwrap();
    }
    // The loop's first three instructions, from its start (after the 4-byte `s_mov_b32`).
    assert!(ex.blocks().contains(&(4, 3)), "blocks {:?}", ex.blocks());
}
