//! SIMD lanes in blocks: in-place instructions whose IR is straight-line 32-bit
//! lane arithmetic run four lanes at a time. They must give the bits the scalar lane loop and
//! the interpreter give: NaN payloads and the default NaN, signed zeros, f32 denormals flushed
//! on input and output, partial EXEC groups (inactive lanes keep their old values).

mod common;

use amdpcode::exec::Rng;
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
        quick: after.quick - before.quick,
        optimised: after.optimised - before.optimised,
    };
    (w, delta)
}

#[test]
fn simd_bench_loop() {
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

/// Instructions whose IR the SIMD lanes cover (f32 `+ - * /` and sqrt with the NaN rule,
/// integer arithmetic, bitwise operations, compares with selects, SGPR and constant operands),
/// results that are also sources, and `v1`/`v2` fed back across iterations. `SET_MODE` is
/// replaced by a MODE write or nothing.
const SIMD_MIX: &str = "
SET_MODE
s_mov_b32 s10, 6
loop:
v_add_f32 v3, v1, v2
v_sub_f32 v4, v1, v2
v_mul_f32 v5, v5, v2
v_subrev_f32 v6, v1, v2
v_sqrt_f32 v7, v1
v_rcp_f32 v8, v2
v_xor_b32 v9, v1, v9
v_and_or_b32 v10, v1, v2, v10
v_mul_lo_u32 v11, v1, v11
v_min_u32 v12, v1, v2
v_max_i32 v13, v1, v2
ADD v14, s2, v14
v_bfi_b32 v15, v1, v2, v15
v_add3_u32 v0, v1, v2, v0
v_fma_f32 v16, v1, v2, v3
v_fmac_f32 v17, v2, v4
v_mov_b32 v1, v3
v_add_f32 v2, 1.0, v2
s_sub_u32 s10, s10, 1
s_cmp_lg_u32 s10, 0
s_cbranch_scc1 loop
s_endpgm
";

/// The vector instructions of [`SIMD_MIX`].
const SIMD_MIX_VALU: u64 = 18;

/// f32 values that exercise the NaN rule, signed zeros, infinities and denormals.
const SPECIAL: [u32; 12] = [
    0x7f80_0001, // signalling NaN
    0xffc1_2345, // quiet NaN, negative, with a payload
    0x7fa0_0000, // signalling NaN
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x0000_0001, // smallest denormal
    0x807f_ffff, // largest negative denormal
    0x0080_0000, // smallest normal
    0x3f80_0000, // 1.0
    0x7f7f_ffff, // largest finite
];

/// A state with random VGPRs (one value in four special, one in eight a random denormal),
/// SGPRs and SCC, and EXEC as `exec` (masked to the wave).
fn random_wave(arch: Arch, wave_size: u32, exec: u64, rng: &mut Rng) -> WaveState {
    let mut w = WaveState::new(arch, wave_size);
    w.set_exec(exec & w.full_mask());
    for reg in 0..18 {
        for lane in 0..wave_size {
            let x = rng.next_u64();
            let v = match x & 7 {
                0 | 1 => SPECIAL[(x >> 8) as usize % SPECIAL.len()],
                2 => (x >> 32) as u32 & 0x807f_ffff,
                _ => (x >> 32) as u32,
            };
            w.set_vgpr(lane, reg, v);
        }
    }
    for c in 0..20 {
        w.write_sgpr(c, rng.next_u64() as u32);
    }
    w.scc = rng.next_u64() & 1 == 1;
    w
}

/// Runs [`SIMD_MIX`] from random states and EXEC masks (random, all lanes, one lane, the
/// lanes of one partial group, none): blocks give the per-instruction JIT's and the
/// interpreter's final state, and `simd` of its instructions run four lanes at a time.
fn simd_mix_agrees(arch: Arch, wave_size: u32, mode: &str, simd: u64, seeds: u64) {
    let add = if arch == Arch::Cdna {
        "v_add_u32"
    } else {
        "v_add_nc_u32"
    };
    let text = SIMD_MIX.replace("SET_MODE", mode).replace("ADD", add);
    for seed in 0..seeds {
        let mut rng = Rng::new(0x5140 + seed);
        let random = rng.next_u64();
        for exec in [
            random,
            u64::MAX,
            1 << (seed % wave_size as u64),
            0b1011 << 8,
            0,
        ] {
            let init = random_wave(arch, wave_size, exec, &mut rng);
            let (interp, _) = run(arch, &text, &init, Engine::Interp, false);
            let (step, _) = run(arch, &text, &init, Engine::Jit, false);
            let (block, st) = run(arch, &text, &init, Engine::Jit, true);
            let what = format!("{arch:?} wave{wave_size} seed {seed} exec {exec:#x} {mode:?}");
            assert!(interp == step, "{what}: interpreter and JIT differ");
            assert!(block == step, "{what}: blocks differ from JIT steps");
            assert_eq!((st.blocks, st.simd), (1, simd), "{what}: {st:?}");
        }
    }
}

#[test]
fn simd_mix_rdna3_wave32() {
    simd_mix_agrees(Arch::Rdna3, 32, "", SIMD_MIX_VALU, 8);
}

#[test]
fn simd_mix_rdna3_wave64() {
    simd_mix_agrees(Arch::Rdna3, 64, "", SIMD_MIX_VALU, 6);
}

#[test]
fn simd_mix_rdna4_wave32() {
    simd_mix_agrees(Arch::Rdna4, 32, "", SIMD_MIX_VALU, 4);
}

#[test]
fn simd_mix_cdna_wave64() {
    simd_mix_agrees(Arch::Cdna, 64, "", SIMD_MIX_VALU, 4);
}

/// With f32 denormals kept (MODE.FP_DENORM all on): no input or output flush.
#[test]
fn simd_mix_denormals_on() {
    let mode = "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 0xf";
    simd_mix_agrees(Arch::Rdna3, 32, mode, SIMD_MIX_VALU, 4);
    simd_mix_agrees(Arch::Rdna3, 64, mode, SIMD_MIX_VALU, 3);
}

/// Concrete results under the default MODE (f32 denormals flushed), with EXEC `0xf7` (lanes
/// 0-2 of the first group, lane 3 off: a merged store; lanes 4-7 whole; the rest skipped),
/// and in wave64 the same lanes mirrored into the top group.
#[test]
fn simd_nan_denormal_partial_exec() {
    let text = "
s_mov_b32 s0, 3
loop:
v_add_f32 v3, v1, v2
v_sub_f32 v4, v1, v2
v_mul_f32 v5, v1, v2
v_xor_b32 v6, v1, v2
v_fma_f32 v7, v1, v2, v2
s_sub_u32 s0, s0, 1
s_cmp_lg_u32 s0, 0
s_cbranch_scc1 loop
s_endpgm
";
    let one = 0x3f80_0000;
    let v1 = [
        0x7f80_0001,
        one,
        0x7f80_0000,
        one,
        0x0000_0001,
        0x0080_0001,
        0x8000_0000,
        one,
    ];
    let v2 = [
        one,
        0xffc1_2345,
        0xff80_0000,
        one,
        0x8000_0000,
        0x0080_0000,
        0x8000_0000,
        0x7fa0_0000,
    ];
    let old = 0xdead_beef;
    // Lane 0: a signalling NaN quietened; 1: the NaN operand kept (sign and payload); 2: the
    // positive default NaN for inf - inf (x86's own would be negative); 3: inactive; 4: the
    // denormal flushed to +0, then +0 + -0 = +0; 5: 2^-126 (1 + 2^-23) + 2^-126 rounds to
    // 2^-125 (ties to even), and their difference (2^-149) and product flush to +0; 6: signed
    // zeros; 7: a signalling NaN in the second operand quietened.
    let add = [
        0x7fc0_0001,
        0xffc1_2345,
        0x7fc0_0000,
        old,
        0,
        0x0100_0000,
        0x8000_0000,
        0x7fe0_0000,
    ];
    let sub = [
        0x7fc0_0001,
        0xffc1_2345,
        0x7f80_0000,
        old,
        0,
        0,
        0,
        0x7fe0_0000,
    ];
    let mul = [
        0x7fc0_0001,
        0xffc1_2345,
        0xff80_0000,
        old,
        0x8000_0000,
        0,
        0,
        0x7fe0_0000,
    ];
    // v1 * v2 + v2, fused: lane 5's product is far below half an ulp of 2^-126.
    let fma = [
        0x7fc0_0001,
        0xffc1_2345,
        0xff80_0000,
        old,
        0x8000_0000,
        0x0080_0000,
        0,
        0x7fe0_0000,
    ];
    for wave in [32u32, 64] {
        let mut init = WaveState::new(Arch::Rdna3, wave);
        let top = wave - 8;
        let exec = if wave == 64 { 0xf7 | 0xf7 << top } else { 0xf7 };
        init.set_exec(exec);
        for lane in 0..wave {
            let k = (lane % 8) as usize;
            init.set_vgpr(lane, 1, v1[k]);
            init.set_vgpr(lane, 2, v2[k]);
            for reg in 3..=7 {
                init.set_vgpr(lane, reg, old);
            }
        }
        let (w, st) = run(Arch::Rdna3, text, &init, Engine::Jit, true);
        assert_eq!((st.blocks, st.simd), (1, 5), "wave{wave}: {st:?}");
        for lane in 0..wave {
            let k = (lane % 8) as usize;
            let active = exec >> lane & 1 == 1;
            let want = |v: u32| if active { v } else { old };
            let got = [3, 4, 5, 6, 7].map(|r| w.vgpr(lane, r));
            let expect = [
                want(add[k]),
                want(sub[k]),
                want(mul[k]),
                want(v1[k] ^ v2[k]),
                want(fma[k]),
            ];
            assert_eq!(
                got, expect,
                "wave{wave} lane {lane}: {got:08x?} vs {expect:08x?}"
            );
        }
        let (interp, _) = run(Arch::Rdna3, text, &init, Engine::Interp, false);
        let (scalar, _) = run(Arch::Rdna3, text, &init, Engine::Jit, false);
        assert!(w == interp && w == scalar, "wave{wave}: engines differ");
    }
}

/// The program fuzzer's random programs (all operand kinds, EXEC writes, memory, loops), each
/// run twice on the same executors with blocks at threshold 2 so that the second run's
/// blocks start from cached plans: blocks (with SIMD lanes) give the interpreter's and the
/// per-instruction JIT's final state, and the SIMD lanes are reached. (`amdpcode fuzz`'s
/// `jit-block` uses threshold 1 and one run per program, where no block is compiled.)
#[test]
fn simd_fuzzer_programs() {
    use amdpcode::fuzz::{self, Generator};
    use amdpcode::isa::Isa;
    let mut simd = 0;
    let mut in_place = 0;
    for (k, (arch, wave_size)) in [
        (Arch::Rdna3, 32),
        (Arch::Rdna3, 64),
        (Arch::Rdna4, 32),
        (Arch::Cdna, 64),
    ]
    .into_iter()
    .enumerate()
    {
        let db = common::spec().db(arch);
        let isa = Isa::new(db);
        let gen = Generator::new(&isa, &|_| true).unwrap();
        let mut engines = Vec::new();
        for (engine, blocks) in [
            (Engine::Interp, false),
            (Engine::Jit, false),
            (Engine::Jit, true),
        ] {
            let mut ex = Executor::new(db, engine).unwrap();
            ex.block_compile = blocks;
            ex.block_threshold = 2;
            ex.step_budget = 5_000;
            engines.push(ex);
        }
        for index in 0..150u64 {
            let mut rng = Rng::new(0x5141 ^ (k as u64) << 32 ^ index);
            let items = gen.program(&isa, &mut rng, 16);
            let init = fuzz::initial_state(arch, wave_size, &mut rng);
            let program = Program::from_bytes(&isa, &gen.layout(&items), &[]).unwrap();
            let before = amdpcode::jit::block_stats();
            let mut results = Vec::new();
            for ex in &mut engines {
                let mut w = init.clone();
                let _ = ex.run_fast(&program, &mut w);
                let mut w = init.clone();
                let r = ex.run_fast(&program, &mut w);
                results.push((r, w));
            }
            let after = amdpcode::jit::block_stats();
            simd += after.simd - before.simd;
            in_place += after.in_place - before.in_place;
            let (r0, w0) = &results[0];
            for (r, w) in &results[1..] {
                let d = fuzz::difference(r0, w0, r, w);
                assert!(
                    d.is_none(),
                    "{arch:?} wave{wave_size} program {index}:\n{}\n{d:?}",
                    fuzz::listing(&isa, &gen.layout(&items))
                );
            }
        }
    }
    println!("SIMD lanes: {simd} of {in_place} in-place instructions");
    assert!(simd >= 20, "{simd} of {in_place}");
}

/// Carry chains and lane masks: a carry out into VCC read back in the same block
/// (`v_add_co_ci_u32`, `v_cndmask_b32`), a compare into VCC, a borrow into an SGPR mask and a
/// carry-in from it. `VCC`/`SDST` are the wave's VCC and an SGPR mask.
const MASK_CHAIN: &str = "
s_mov_b32 s0, 2
loop:
v_add_co_u32 v3, VCC, v1, v2
v_add_co_ci_u32_e32 v4, VCC, v1, v2, VCC
v_cndmask_b32_e32 v5, v1, v2, VCC
v_cmp_gt_u32_e32 VCC, v1, v2
v_cndmask_b32_e32 v6, v3, v4, VCC
v_sub_co_u32 v7, SDST, v1, v2
v_add_co_ci_u32_e64 v8, null, s3, v1, SDST
s_sub_u32 s0, s0, 1
s_cmp_lg_u32 s0, 0
s_cbranch_scc1 loop
s_endpgm
";

/// The instructions of [`MASK_CHAIN`] that run four lanes at a time: all its vector ones.
const MASK_CHAIN_VALU: u64 = 7;

/// [`MASK_CHAIN`] in wave32 syntax, which assembles the same encodings for wave64 (that reads
/// and writes the pairs `vcc` and `s[10:11]`).
fn mask_chain() -> String {
    MASK_CHAIN.replace("VCC", "vcc_lo").replace("SDST", "s10")
}

/// Concrete carries: lanes whose sum wraps (carry into the next add), one that wraps only
/// with the carry in, none; EXEC `0x7f` off lane 7 (a partial second group), in wave64
/// also the top group whole and the groups between off (their VCC bits cleared, the SGPR
/// mask's cleared too).
#[test]
fn simd_carry_chain_values() {
    let v1: [u32; 8] = [
        0xffff_ffff,
        0x8000_0000,
        0xffff_ffff,
        1,
        0,
        0x7fff_ffff,
        5,
        9,
    ];
    let v2: [u32; 8] = [1, 0x8000_0000, 0, 2, 0, 0x8000_0000, 7, 9];
    let s3 = 0xffff_fff0u32;
    let old = 0xdead_beef;
    for wave in [32u32, 64] {
        let text = mask_chain();
        let mut init = WaveState::new(Arch::Rdna3, wave);
        let exec: u64 = if wave == 64 { 0x7f | 0xf << 60 } else { 0x7f };
        init.set_exec(exec);
        // VCC and the SGPR mask start with every bit set: inactive lanes must come out 0.
        init.write_sgpr(106, u32::MAX);
        init.write_sgpr(107, u32::MAX);
        init.write_sgpr(10, u32::MAX);
        init.write_sgpr(11, u32::MAX);
        init.write_sgpr(3, s3);
        for lane in 0..wave {
            let k = (lane % 8) as usize;
            init.set_vgpr(lane, 1, v1[k]);
            init.set_vgpr(lane, 2, v2[k]);
            for reg in 3..=8 {
                init.set_vgpr(lane, reg, old);
            }
        }
        let (w, st) = run(Arch::Rdna3, &text, &init, Engine::Jit, true);
        assert_eq!(
            (st.blocks, st.simd),
            (1, MASK_CHAIN_VALU),
            "wave{wave}: {st:?}"
        );
        let mut vcc = 0u64;
        let mut borrow = 0u64;
        for lane in 0..wave {
            let k = (lane % 8) as usize;
            let active = exec >> lane & 1 == 1;
            let (a, b) = (v1[k] as u64, v2[k] as u64);
            let sum = a + b;
            let carry = sum >> 32;
            let sum_ci = sum + carry;
            let gt = v1[k] > v2[k];
            let expect = [
                sum as u32,
                sum_ci as u32,
                // v_cndmask reads the carry of v_add_co_ci_u32.
                if sum_ci >> 32 == 1 { v2[k] } else { v1[k] },
                if gt { sum_ci as u32 } else { sum as u32 },
                v1[k].wrapping_sub(v2[k]),
                s3.wrapping_add(v1[k]).wrapping_add((v2[k] > v1[k]) as u32),
            ];
            let expect = expect.map(|v| if active { v } else { old });
            let got = [3, 4, 5, 6, 7, 8].map(|r| w.vgpr(lane, r));
            assert_eq!(got, expect, "wave{wave} lane {lane}: {got:08x?}");
            if active {
                vcc |= (gt as u64) << lane;
                borrow |= ((v2[k] > v1[k]) as u64) << lane;
            }
        }
        let pair = |lo: u32| w.read_sgpr(lo) as u64 | (w.read_sgpr(lo + 1) as u64) << 32;
        let hi_kept = if wave == 32 { 0xffff_ffffu64 << 32 } else { 0 };
        assert_eq!(pair(106), vcc | hi_kept, "wave{wave} VCC");
        assert_eq!(pair(10), borrow | hi_kept, "wave{wave} SGPR mask");
        let (interp, _) = run(Arch::Rdna3, &text, &init, Engine::Interp, false);
        let (scalar, _) = run(Arch::Rdna3, &text, &init, Engine::Jit, false);
        assert!(w == interp && w == scalar, "wave{wave}: engines differ");
    }
}

/// [`MASK_CHAIN`] from random states, VCC and SGPR masks, and EXEC random, all ones, one
/// lane, one partial group and zero: blocks agree with JIT steps and the interpreter.
#[test]
fn simd_carry_chain_random() {
    for wave in [32u32, 64] {
        let text = mask_chain();
        for seed in 0..6u64 {
            let mut rng = Rng::new(0x5142 + seed);
            let random = rng.next_u64();
            for exec in [
                random,
                u64::MAX,
                1 << (seed * 5 % wave as u64),
                0b1011 << 8,
                0,
            ] {
                let mut init = random_wave(Arch::Rdna3, wave, exec, &mut rng);
                for c in [106, 107] {
                    init.write_sgpr(c, rng.next_u64() as u32);
                }
                let (interp, _) = run(Arch::Rdna3, &text, &init, Engine::Interp, false);
                let (step, _) = run(Arch::Rdna3, &text, &init, Engine::Jit, false);
                let (block, st) = run(Arch::Rdna3, &text, &init, Engine::Jit, true);
                let what = format!("wave{wave} seed {seed} exec {exec:#x}");
                assert!(interp == step, "{what}: interpreter and JIT differ");
                assert!(block == step, "{what}: blocks differ from JIT steps");
                assert_eq!((st.blocks, st.simd), (1, MASK_CHAIN_VALU), "{what}: {st:?}");
            }
        }
    }
}

/// The vector instructions of the vector add's main block (`tests/dispatch/fixture-gfx1100.hsaco`,
/// kernel `vadd`, as `llvm-objdump-22 -d --mcpu=gfx1100` prints them; its loads and store
/// left out) in a loop: all of them, the 64-bit shift of a register pair too, run four lanes
/// at a time, with the interpreter's results.
#[test]
fn simd_vadd_main_block() {
    let text = "
s_mov_b32 s20, 2
loop:
v_mov_b32_e32 v2, 0
v_lshlrev_b64 v[0:1], 2, v[1:2]
v_add_co_u32 v2, vcc_lo, s4, v0
v_add_co_ci_u32_e64 v3, null, s5, v1, vcc_lo
v_add_co_u32 v4, vcc_lo, s6, v0
v_add_co_ci_u32_e64 v5, null, s7, v1, vcc_lo
v_add_co_u32 v0, vcc_lo, s0, v0
v_add_co_ci_u32_e64 v1, null, s1, v1, vcc_lo
v_add_f32_e32 v2, v2, v3
s_sub_u32 s20, s20, 1
s_cmp_lg_u32 s20, 0
s_cbranch_scc1 loop
s_endpgm
";
    for wave in [32u32, 64] {
        let mut init = WaveState::new(Arch::Rdna3, wave);
        init.set_exec(init.full_mask() & !0x10);
        // Buffer addresses whose low words carry when lane offsets are added.
        for (c, v) in [
            (0, 0xffff_ff00u32),
            (1, 3),
            (4, 0xffff_fff0),
            (5, 1),
            (6, 0x100),
            (7, 2),
        ] {
            init.write_sgpr(c, v);
        }
        for lane in 0..wave {
            init.set_vgpr(lane, 1, lane * 0x1000_0001);
        }
        let (w, st) = run(Arch::Rdna3, text, &init, Engine::Jit, true);
        assert_eq!((st.blocks, st.simd), (1, 9), "wave{wave}: {st:?}");
        let (interp, _) = run(Arch::Rdna3, text, &init, Engine::Interp, false);
        assert!(w == interp, "wave{wave}: blocks and interpreter differ");
        // Each active lane, two iterations of 64-bit address arithmetic.
        let pair = |lo: u32| (lo..=lo + 1).map(|c| init.read_sgpr(c) as u64);
        let sgpr64 = |lo: u32| {
            let v: Vec<u64> = pair(lo).collect();
            v[0] | v[1] << 32
        };
        for lane in 0..wave {
            let mut v1 = init.vgpr(lane, 1);
            let mut expect = [init.vgpr(lane, 0), v1, 0, 0, 0];
            for _ in 0..2 {
                let x = (v1 as u64) << 2;
                let b = sgpr64(4).wrapping_add(x);
                let c = sgpr64(6).wrapping_add(x);
                let d = sgpr64(0).wrapping_add(x);
                v1 = (d >> 32) as u32;
                expect = [d as u32, v1, (b >> 32) as u32, c as u32, (c >> 32) as u32];
            }
            let got = [0, 1, 3, 4, 5].map(|r| w.vgpr(lane, r));
            if lane == 4 {
                assert_eq!(
                    got,
                    [0, 4 * 0x1000_0001, 0, 0, 0],
                    "wave{wave} lane 4 (off)"
                );
            } else {
                assert_eq!(got, expect, "wave{wave} lane {lane}: {got:08x?}");
            }
        }
    }
}

/// The vector add's first block (`tests/dispatch/fixture-gfx1100.hsaco`, kernel `vadd`): the
/// global index `v_mad_u64_u32` (a 32×32→64 multiply plus a 64-bit VGPR pair) and the bounds
/// test `v_cmpx_gt_u32` writing EXEC, in a loop that restores EXEC; with the carry-out of
/// the 65-bit sum into VCC and an SGPR mask too. All vector instructions run four lanes at a
/// time and give the interpreter's state.
const VADD_FIRST: &str = "
s_mov_b32 s20, 3
loop:
s_and_b32 s2, s2, 0xffff
v_mad_u64_u32 v[1:2], null, s15, s2, v[0:1]
v_mad_u64_u32 v[3:4], vcc_lo, v5, v6, v[7:8]
v_mad_u64_u32 v[9:10], s12, s15, v5, v[9:10]
s_mov_b32 s2, exec_lo
v_cmpx_gt_u32_e64 s3, v1
v_add_co_u32 v0, vcc_lo, v0, 0x10
s_mov_b32 exec_lo, s2
s_sub_u32 s20, s20, 1
s_cmp_lg_u32 s20, 0
s_cbranch_scc1 loop
s_endpgm
";

#[test]
fn simd_vadd_first_block() {
    let mut rng = Rng::new(0x5eed_0014);
    let configs = [
        (32u32, 0xffff_ffffu64),
        (32, 0x0000_f7f1),
        (64, u64::MAX),
        (64, 0xf0f0_0000_0000_00f7),
    ];
    for (wave, exec) in configs {
        let mut init = random_wave(Arch::Rdna3, wave, exec, &mut rng);
        init.write_sgpr(15, 0x0001_0001);
        init.write_sgpr(2, 0xdead_0100);
        init.write_sgpr(3, 0x8000_0000);
        // Sums whose low words carry, products with high words, sums past 64 bits.
        for lane in 0..wave {
            init.set_vgpr(lane, 0, lane.wrapping_mul(0x0800_0123));
            init.set_vgpr(lane, 1, 0xffff_ffff - lane);
            init.set_vgpr(lane, 5, 0xffff_0000 | lane);
            init.set_vgpr(lane, 6, 0xfff0_0000 + lane * 0x1111);
            init.set_vgpr(lane, 7, 0xffff_fff0 + lane);
            init.set_vgpr(lane, 8, if lane % 3 == 0 { u32::MAX } else { lane });
            init.set_vgpr(lane, 9, lane << 28);
            init.set_vgpr(lane, 10, if lane % 2 == 0 { u32::MAX } else { 7 });
        }
        let (w, st) = run(Arch::Rdna3, VADD_FIRST, &init, Engine::Jit, true);
        assert_eq!(
            (st.blocks, st.simd, st.calls),
            (1, 5, 0),
            "wave{wave}: {st:?}"
        );
        let (interp, _) = run(Arch::Rdna3, VADD_FIRST, &init, Engine::Interp, false);
        assert!(w == interp, "wave{wave}: blocks and interpreter differ");
        let (steps, _) = run(Arch::Rdna3, VADD_FIRST, &init, Engine::Jit, false);
        assert!(w == steps, "wave{wave}: blocks and JIT steps differ");
        // Concrete values: three iterations of the loop, lane by lane.
        let mut s12 = 0u64;
        for lane in 0..wave {
            let v = |r: u32| init.vgpr(lane, r) as u64;
            let (mut v0, mut v1) = (v(0), v(1));
            let mut v9_10 = v(9) | v(10) << 32;
            // `v_cmpx` turns lanes off; `s_mov_b32 exec_lo, s2` turns lanes 0-31 back on.
            let mut on = exec >> lane & 1 == 1;
            let (mut carry, mut v2) = (0, v(2));
            for k in 0..3 {
                if !on {
                    carry = 0;
                    break;
                }
                // `s2` is 0xdead_0100, then EXEC's low word, masked to 16 bits.
                let s2 = if k == 0 { 0x0100 } else { exec & 0xffff };
                let pair = (0x0001_0001u64 * s2).wrapping_add(v0 | v1 << 32);
                (v1, v2) = (pair & 0xffff_ffff, pair >> 32);
                let wide = 0x0001_0001u128 * v(5) as u128 + v9_10 as u128;
                v9_10 = wide as u64;
                carry = (wide >> 64) as u64;
                if 0x8000_0000u64 > v1 {
                    v0 = (v0 + 0x10) & 0xffff_ffff;
                } else if lane >= 32 {
                    on = false;
                }
            }
            s12 |= carry << lane;
            let want = [v0, v1, v2, v9_10, v9_10 >> 32].map(|x| x as u32);
            let got = [0, 1, 2, 9, 10].map(|r| w.vgpr(lane, r));
            assert_eq!(got, want, "wave{wave} lane {lane}");
        }
        let s12_got = w.read_sgpr(12) as u64
            | if wave == 64 {
                (w.read_sgpr(13) as u64) << 32
            } else {
                0
            };
        assert_eq!(s12_got, s12, "wave{wave}: carry-out mask");
    }
}

/// Shifts by wave-uniform amounts (inline constants and SGPRs, amounts past the width masked
/// by the instruction) of 64-bit VGPR pairs and 32-bit lanes, each amount class of the 64-bit
/// shift (zero, under 32, 32, over 32, 63), with results that are also sources, and
/// `v_mul_hi_u32` (a widening multiply shifted by 32). Not in SIMD lanes: an amount per lane
/// (`v13`) and the arithmetic 64-bit shift.
const SHIFTS: &str = "
s_mov_b32 s20, 2
loop:
v_lshlrev_b64 v[2:3], 0, v[0:1]
v_lshlrev_b64 v[4:5], 1, v[0:1]
v_lshlrev_b64 v[6:7], 31, v[0:1]
v_lshlrev_b64 v[8:9], 32, v[0:1]
v_lshlrev_b64 v[10:11], 33, v[0:1]
v_lshlrev_b64 v[16:17], 63, v[0:1]
v_lshrrev_b64 v[18:19], s4, v[0:1]
v_lshrrev_b64 v[20:21], s5, v[0:1]
v_lshlrev_b64 v[22:23], s6, v[22:23]
v_lshrrev_b32 v24, s4, v24
v_ashrrev_i32 v25, s5, v0
v_lshlrev_b32 v26, s6, v1
v_lshlrev_b32 v12, v13, v14
v_ashrrev_i64 v[28:29], s5, v[0:1]
v_mul_hi_u32 v27, v0, v1
s_sub_u32 s20, s20, 1
s_cmp_lg_u32 s20, 0
s_cbranch_scc1 loop
s_endpgm
";

#[test]
fn simd_blocks_agree_with_steps_on_shifts() {
    let mut rng = Rng::new(0x5eed_5417);
    let configs = [
        (Arch::Rdna3, 32u32, 0xffff_ffffu64),
        (Arch::Rdna3, 32, 0x8000_7ff1),
        (Arch::Rdna3, 64, 0x0f00_ffff_0000_00f7),
        (Arch::Rdna4, 32, 0x00ff_f00f),
    ];
    for (arch, wave, exec) in configs {
        // Amounts 0x41 (1 after the mask), 0x7fff_ffe5 (37 for 64 bits, 5 for 32), 0x20 (32
        // for 64 bits, 0 for 32).
        for amounts in [[0x41u32, 0x7fff_ffe5, 0x20], [0, 63, 31]] {
            let mut init = random_wave(arch, wave, exec, &mut rng);
            for (k, a) in amounts.into_iter().enumerate() {
                init.write_sgpr(4 + k as u32, a);
            }
            let (w, st) = run(arch, SHIFTS, &init, Engine::Jit, true);
            assert_eq!((st.blocks, st.simd), (1, 13), "{arch:?} wave{wave}: {st:?}");
            let (interp, _) = run(arch, SHIFTS, &init, Engine::Interp, false);
            assert!(
                w == interp,
                "{arch:?} wave{wave}: blocks and interpreter differ"
            );
            let (steps, _) = run(arch, SHIFTS, &init, Engine::Jit, false);
            assert!(
                w == steps,
                "{arch:?} wave{wave}: blocks and JIT steps differ"
            );
            for lane in 0..wave {
                let v = |r: u32| init.vgpr(lane, r) as u64 | (init.vgpr(lane, r + 1) as u64) << 32;
                let x = v(0);
                let pair = |r: u32| w.vgpr(lane, r) as u64 | (w.vgpr(lane, r + 1) as u64) << 32;
                if exec >> lane & 1 == 0 {
                    assert_eq!(pair(8), v(8), "{arch:?} wave{wave} lane {lane} off");
                    continue;
                }
                let sh = |n: u32| if n < 64 { x << n } else { 0 };
                let want = [
                    x,
                    sh(1),
                    sh(31),
                    sh(32),
                    sh(33),
                    sh(63),
                    x >> (amounts[0] & 63),
                    x >> (amounts[1] & 63),
                    v(22) << (2 * (amounts[2] & 63)) as u64,
                ];
                let got = [2, 4, 6, 8, 10, 16, 18, 20, 22].map(pair);
                let mut want = want;
                // Two iterations shift `v[22:23]` twice: as one shift of twice the amount
                // when that stays under 64.
                if 2 * (amounts[2] & 63) >= 64 {
                    want[8] = 0;
                }
                assert_eq!(got, want, "{arch:?} wave{wave} lane {lane}");
                let (a0, a1, a2) = (amounts[0] & 31, amounts[1] & 31, amounts[2] & 31);
                let v24 = init.vgpr(lane, 24) >> a0 >> a0;
                let v25 = ((x as u32 as i32) >> a1) as u32;
                let v26 = ((x >> 32) as u32) << a2;
                let v27 = ((x as u32 as u64 * (x >> 32)) >> 32) as u32;
                let got = [24, 25, 26, 27].map(|r| w.vgpr(lane, r));
                let want = [v24, v25, v26, v27];
                assert_eq!(got, want, "{arch:?} wave{wave} lane {lane} (32-bit)");
            }
        }
    }
}
