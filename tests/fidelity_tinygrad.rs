//! Classes of wrong behaviour found by running tinygrad's test suite on amdpcode:
//! each program runs under both engines, which must agree bit for bit, and is checked
//! against concrete bits.

mod common;

use amdpcode::spec::Arch;
use amdpcode::wave::{Engine, Executor, Program, WaveState};

/// Runs machine code given as hex bytes on a fresh wave of `arch` prepared by `init` under the
/// interpreter and the JIT, checks the two final states agree and returns it.
fn run_hex_both(arch: Arch, wave_size: u32, hex: &str, init: &dyn Fn(&mut WaveState)) -> WaveState {
    let db = common::spec().db(arch);
    let mut finals = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let mut ex = Executor::new(db, engine).unwrap();
        let p = Program::from_hex(ex.isa(), hex).unwrap_or_else(|e| panic!("{arch}: {hex}: {e}"));
        let mut w = ex.new_wave(wave_size);
        init(&mut w);
        ex.run(&p, &mut w)
            .unwrap_or_else(|e| panic!("{arch} {engine:?}: {hex}: {e}"));
        finals.push(w);
    }
    assert_eq!(finals[0], finals[1], "interpreter and JIT disagree");
    finals.remove(0)
}

/// CDNA's `V_BITOP3_B16/B32` read their 8-bit truth table from the VOP3 OMOD, ABS and NEG
/// fields (`TTBL = {INST.OMOD[1:0], INST.ABS[2:0], INST.NEG[2:0]}`): those fields are data,
/// not source negation or an output multiplier. They were taken as modifiers and the table
/// as 0, so tinygrad's gfx950 `test_pad_circular_mode` computed a wild index (`(x ^ 2) & 3`
/// via `bitop3:0x6c`) and faulted. Encodings from `llvm-mc-22 -mcpu=gfx950 -show-encoding`.
#[test]
fn cdna_bitop3_truth_table_from_modifier_fields() {
    let program = "\
        02 05 34 d2 01 05 0d 8a \
        03 05 34 d2 01 09 16 1c \
        06 02 33 d2 01 09 16 d4 \
        07 07 34 d2 01 09 16 fc";
    // v_bitop3_b32 v2, v1, 2, 3 bitop3:0x6c
    // v_bitop3_b32 v3, v1, v4, v5 bitop3:0xe8   (majority)
    // v_bitop3_b16 v6, v1, v4, v5 bitop3:0x96   (three-way xor)
    // v_bitop3_b32 v7, v1, v4, v5 bitop3:0xff
    let w = run_hex_both(Arch::Cdna, 64, program, &|w| {
        for lane in 0..64 {
            let v1 = if lane == 5 { 0xffff_ffff } else { 0x1234_5679 };
            w.set_vgpr(lane, 1, v1);
            w.set_vgpr(lane, 4, 0xff00_ff00);
            w.set_vgpr(lane, 5, 0x0f0f_0f0f);
        }
    });
    assert_eq!(w.vgpr(0, 2), 3, "(0x..79 ^ 2) & 3");
    assert_eq!(w.vgpr(5, 2), 1, "(0x..ff ^ 2) & 3");
    assert_eq!(w.vgpr(0, 3), 0x1f04_5f09, "majority");
    assert_eq!(w.vgpr(5, 3), 0xff0f_ff0f, "majority");
    assert_eq!(w.vgpr(0, 6) & 0xffff, 0xa676, "xor3, low half");
    assert_eq!(w.vgpr(5, 6) & 0xffff, 0x0ff0, "xor3, low half");
    assert_eq!(w.vgpr(0, 7), 0xffff_ffff, "table 0xff: all ones");
}

/// CDNA packed f32 (`V_PK_ADD/MUL/FMA_F32`) inline float constants are the f32 value in the
/// low half of the 64-bit operand (LLVM encodes `op_sel_hi` 0 for the constant so the high
/// half selects it too), not the f64 encoding, whose low half is 0: `x - 1.0` gave `x`.
/// tinygrad's gfx950 `test_mod` (floor of a quotient) computed this way. Encodings from
/// `llvm-mc-22 -mcpu=gfx950 -show-encoding`.
#[test]
fn cdna_packed_f32_inline_constants() {
    let program = "\
        06 40 b2 d3 00 e7 01 08 \
        08 40 b1 d3 f0 00 02 10 \
        0a 40 b0 d3 00 e9 09 0c";
    // v_pk_add_f32 v[6:7], v[0:1], -1.0 op_sel_hi:[1,0]
    // v_pk_mul_f32 v[8:9], 0.5, v[0:1] op_sel_hi:[0,1]
    // v_pk_fma_f32 v[10:11], v[0:1], 2.0, v[2:3] op_sel_hi:[1,0,1]
    let w = run_hex_both(Arch::Cdna, 64, program, &|w| {
        for lane in 0..64 {
            w.set_vgpr(lane, 0, 0xc000_0000); // -2.0
            w.set_vgpr(lane, 1, 0x4040_0000); // 3.0
            w.set_vgpr(lane, 2, 0x3f80_0000); // 1.0
            w.set_vgpr(lane, 3, 0x3e80_0000); // 0.25
        }
    });
    assert_eq!(
        (w.vgpr(0, 6), w.vgpr(0, 7)),
        (0xc040_0000, 0x4000_0000),
        "-3, 2"
    );
    assert_eq!(
        (w.vgpr(0, 8), w.vgpr(0, 9)),
        (0xbf80_0000, 0x3fc0_0000),
        "-1, 1.5"
    );
    assert_eq!(
        (w.vgpr(0, 10), w.vgpr(0, 11)),
        (0xc040_0000, 0x40c8_0000),
        "-3, 6.25"
    );
}

/// CDNA `V_PK_MOV_B32` moves 32-bit halves of 64-bit operands: D0's low half from the half of
/// S0 that `op_sel[0]` picks, its high half from the half of S1 that `op_sel[1]` picks. AMD's
/// text reads the halves through 32-bit views, so the high halves were lost (tinygrad's
/// gfx950 padded convolutions gathered operands this way). Encodings from
/// `llvm-mc-22 -mcpu=gfx950 -show-encoding`.
#[test]
fn cdna_pk_mov_b32_selects_32_bit_halves() {
    let program = "\
        26 40 b3 d3 28 0d 02 18 \
        1e 58 b3 d3 28 0d 02 18 \
        20 48 b3 d3 28 0d 02 18";
    // v_pk_mov_b32 v[38:39], v[40:41], v[6:7]
    // v_pk_mov_b32 v[30:31], v[40:41], v[6:7] op_sel:[1,1]
    // v_pk_mov_b32 v[32:33], v[40:41], v[6:7] op_sel:[1,0]
    let w = run_hex_both(Arch::Cdna, 64, program, &|w| {
        for lane in 0..64 {
            w.set_vgpr(lane, 40, 0x1111_1111);
            w.set_vgpr(lane, 41, 0x2222_2222);
            w.set_vgpr(lane, 6, 0x3333_3333);
            w.set_vgpr(lane, 7, 0x4444_4444);
        }
    });
    assert_eq!((w.vgpr(0, 38), w.vgpr(0, 39)), (0x1111_1111, 0x3333_3333));
    assert_eq!((w.vgpr(0, 30), w.vgpr(0, 31)), (0x2222_2222, 0x4444_4444));
    assert_eq!((w.vgpr(63, 32), w.vgpr(63, 33)), (0x2222_2222, 0x3333_3333));
}

/// RDNA's VOPD runs its Y half on a copy of the wave; that copy took the whole state,
/// global memory included, so every `v_dual_*` of a tinygrad RDNA 4 kernel copied the
/// dispatch's memory (`test_scaled_dot_product_attention_gqa` crawled for minutes). The copy
/// now leaves the memories out and gives them back: both halves still read the registers
/// from before the instruction, and the memories are intact afterwards. Encoding from
/// `llvm-mc-22 -mcpu=gfx1201 -show-encoding`.
#[test]
fn rdna4_vopd_reads_before_writes_and_keeps_memory() {
    // v_dual_add_f32 v2, v1, v3 :: v_dual_mov_b32 v3, v2
    let program = "01 07 10 c9 02 01 02 02";
    let w = run_hex_both(Arch::Rdna4, 32, program, &|w| {
        for lane in 0..32 {
            w.set_vgpr(lane, 1, 0x3f80_0000); // 1.0
            w.set_vgpr(lane, 2, 0x40a0_0000 + lane); // 5.0 (+ lane ulps)
            w.set_vgpr(lane, 3, 0x4000_0000); // 2.0
        }
        w.memory.write_u32(0x1000, 0xdead_beef);
        w.lds.write_u32(0x40, 0x0123_4567);
        w.scratch.write_u32(0x8, 0x89ab_cdef);
    });
    assert_eq!(w.vgpr(0, 2), 0x4040_0000, "X: 1.0 + the old v3 (2.0)");
    assert_eq!(w.vgpr(0, 3), 0x40a0_0000, "Y: the old v2");
    assert_eq!(w.vgpr(31, 3), 0x40a0_001f, "Y: the old v2, lane 31");
    assert_eq!(w.memory.read_u32(0x1000), 0xdead_beef, "global memory kept");
    assert_eq!(w.lds.read_u32(0x40), 0x0123_4567, "LDS kept");
    assert_eq!(w.scratch.read_u32(0x8), 0x89ab_cdef, "scratch kept");
}

/// RDNA 3.5 / RDNA 4 `S_CVT_HI_F32_F16` converts `S0[31 : 16]`; its operand table lists `S0`
/// as a 16-bit f16, and the operand was made 16 bits wide, so the high half read as zero
/// (tinygrad's gfx1201 `test_uop_sum_dtype`: 1 + 2 + 3 in f16 summed to 4). A constant slice
/// now widens an operand to the highest bit it names. Encodings from `llvm-mc-22
/// -mcpu=gfx1201 -show-encoding`.
#[test]
fn salu_cvt_hi_f32_f16_reads_the_high_half() {
    let program = "\
        02 6a 83 be \
        02 69 84 be \
        06 6a 85 be \
        06 69 87 be";
    // s_cvt_hi_f32_f16 s3, s2 · s_cvt_f32_f16 s4, s2 · s_cvt_hi_f32_f16 s5, s6 ·
    // s_cvt_f32_f16 s7, s6
    for arch in [Arch::Rdna3, Arch::Rdna4] {
        let w = run_hex_both(arch, 32, program, &|w| {
            w.write_sgpr(2, 0x4000_3c00);
            w.write_sgpr(6, 0xbc00_c500);
        });
        assert_eq!(w.read_sgpr(3), 0x4000_0000, "{arch}: high half 2.0");
        assert_eq!(w.read_sgpr(4), 0x3f80_0000, "{arch}: low half 1.0");
        assert_eq!(w.read_sgpr(5), 0xbf80_0000, "{arch}: high half -1.0");
        assert_eq!(w.read_sgpr(7), 0xc0a0_0000, "{arch}: low half -5.0");
    }
}

/// CDNA's fp8/bf8 conversions take bytes of a 32-bit VGPR (their texts slice `S0` by
/// `SDWA_SRC0_SEL`). The `FMT_NUM_FP8` operand format was taken for an f32, so a source
/// whose 32 bits look like an f32 denormal would be flushed under a flushing MODE before its
/// byte was selected. Encodings from `llvm-mc-22 -mcpu=gfx950 -show-encoding`.
#[test]
fn cdna_fp8_sources_are_bytes_not_f32() {
    let program = "\
        00 a9 02 7e \
        f9 a8 04 7e 00 06 01 00 \
        f9 a8 06 7e 00 06 03 00 \
        f9 aa 08 7e 00 06 02 00 \
        f9 ac 0c 7e 00 06 05 00";
    // v_cvt_f32_fp8_e32 v1, v0 · v_cvt_f32_fp8_sdwa v2, v0 src0_sel:BYTE_1 ·
    // v_cvt_f32_fp8_sdwa v3, v0 src0_sel:BYTE_3 · v_cvt_f32_bf8_sdwa v4, v0 src0_sel:BYTE_2 ·
    // v_cvt_pk_f32_fp8_sdwa v[6:7], v0 src0_sel:WORD_1
    let w = run_hex_both(Arch::Cdna, 64, program, &|w| {
        // f32 denormals flushed (MODE bits 5:4 clear).
        w.mode &= !amdpcode::wave::mode::FP_DENORM_F32;
        for lane in 0..64 {
            let v0 = if lane == 1 { 0x0000_0028 } else { 0x4038_3028 };
            w.set_vgpr(lane, 0, v0);
        }
    });
    assert_eq!(w.vgpr(0, 1), 0x3e80_0000, "fp8 0x28 = 0.25");
    assert_eq!(
        w.vgpr(1, 1),
        0x3e80_0000,
        "fp8 0x28 = 0.25 (not a flushed f32)"
    );
    assert_eq!(w.vgpr(0, 2), 0x3f00_0000, "byte 1: fp8 0x30 = 0.5");
    assert_eq!(w.vgpr(1, 2), 0, "byte 1 of 0x28");
    assert_eq!(w.vgpr(0, 3), 0x4000_0000, "byte 3: fp8 0x40 = 2.0");
    assert_eq!(w.vgpr(0, 4), 0x3f00_0000, "byte 2: bf8 0x38 = 0.5");
    assert_eq!(
        w.vgpr(0, 6),
        0x3f80_0000,
        "word 1, low byte: fp8 0x38 = 1.0"
    );
    assert_eq!(
        w.vgpr(0, 7),
        0x4000_0000,
        "word 1, high byte: fp8 0x40 = 2.0"
    );
}

/// `V_NOP` and `V_PIPEFLUSH` have no pseudocode in AMD's tables (nothing to do): they were
/// refused as "no executable pseudocode", so every tinygrad gfx1100 kernel that LLVM padded
/// with `v_nop` (`test_kernel_opts.py::test_upcasts`) faulted. They are no-ops in both
/// encodings on every arch. Encodings from `llvm-mc-22 -show-encoding` (gfx1100, gfx1200,
/// gfx950: `v_nop`, `v_pipeflush` where the arch has it, `v_mov_b32 v1, 7`, `v_nop_e64`).
#[test]
fn v_nop_and_v_pipeflush_are_no_ops() {
    let rdna = "00 00 00 7e  00 36 00 7e  87 02 02 7e  00 00 80 d5 00 00 00 00";
    let cdna = "00 00 00 7e  87 02 02 7e  00 00 40 d1 00 00 00 00";
    for (arch, hex) in [(Arch::Rdna3, rdna), (Arch::Rdna4, rdna), (Arch::Cdna, cdna)] {
        let w = run_hex_both(arch, 32, hex, &|w| w.set_vgpr(3, 1, 0xdead));
        let fresh = {
            let mut f = WaveState::new(arch, 32);
            for lane in 0..32 {
                f.set_vgpr(lane, 1, 7);
            }
            f
        };
        assert_eq!(w.vgpr(3, 1), 7, "{arch}");
        assert_eq!(
            w.pc,
            hex.split_whitespace().count() as u64,
            "{arch}: ran to the end"
        );
        assert_eq!(w.vgpr, fresh.vgpr, "{arch}: only v1 changed");
        assert_eq!(w.sgpr, fresh.sgpr, "{arch}: no scalar register changed");
    }
}

/// Matrix instructions whose accumulator (`SRC2`) is an inline constant: every element of C
/// is that constant in C's element type (gfx12 WMMA and gfx950 MFMA take one; LLVM starts
/// a chain of WMMAs with C = 0). The generated texts read C as `VGPR[lane][SRC2 + r]`, so the
/// constant's code (128 for 0, 242 for 1.0) was taken as a register number and C came from
/// VGPRs 128.. (tinygrad's gfx1201 `test_tensor_core_opts`: 37% of the outputs wrong).
/// A and B are all ones, so each element of D is 16 + C. Encodings from `llvm-mc-22
/// -show-encoding` (gfx1200: `v_wmma_f16_16x16x16_f16 v[8:11], v[0:3], v[4:7], 0` and `, 1.0`;
/// gfx950: `v_mfma_f32_16x16x16_f16 v[8:11], v[0:1], v[4:5], 0` and `, 1.0`).
#[test]
fn matrix_accumulator_inline_constants() {
    let garbage = |w: &mut WaveState, from: u32| {
        for lane in 0..64 {
            for r in 128..136 {
                w.set_vgpr(lane, r, 0x4900_4900 + lane);
            }
            for r in 0..from {
                // f16 1.0 in both halves (A and B rows).
                w.set_vgpr(lane, r, 0x3c00_3c00);
            }
        }
    };
    let cases: [(Arch, u32, &str, [u32; 2]); 2] = [
        (
            Arch::Rdna4,
            32,
            "08 40 42 cc 00 09 02 1a",
            [0x4c00_4c00, 0x4c40_4c40],
        ),
        (
            Arch::Cdna,
            64,
            "08 00 cd d3 00 09 02 02",
            [0x4180_0000, 0x4188_0000],
        ),
    ];
    for (arch, wave, zero, [d_zero, d_one]) in cases {
        let one = zero.replace("02 1a", "ca 1b").replace("02 02", "ca 03");
        for (hex, want) in [(zero.to_string(), d_zero), (one, d_one)] {
            let w = run_hex_both(arch, wave, &hex, &|w| garbage(w, 8));
            for lane in [0, 5, 17, wave - 1] {
                for r in 8..12 {
                    assert_eq!(w.vgpr(lane, r), want, "{arch} {hex}: lane {lane} v{r}");
                }
            }
        }
    }
}

/// Runs assembly text on a fresh wave of `arch` prepared by `init` under every engine
/// (`common::engines::run_all`) and returns the final state they agree on.
fn run_asm_all(arch: Arch, wave_size: u32, text: &str, init: &dyn Fn(&mut WaveState)) -> WaveState {
    let load = |ex: &Executor| Program::assemble(ex.isa(), text).map_err(|e| e.to_string());
    common::engines::run_all(arch, wave_size, "assembly", &load, init)
}

/// Branch entries add `signext(SIMM16.i16 * 16'4)` to PC: the byte offset of a branch over
/// more than 32 KB needs 18 bits, but the product was computed in 16 bits and wrapped, so
/// `s_branch 17264` of tinygrad's gfx1100 `test_two_overlapping_binops_no_rerun` convolution
/// (a 140 KB kernel) landed 64 KB short and the kernel faulted. Products of integers narrower
/// than 32 bits are computed in 32 bits now. Forward, backward and `s_call_b64` offsets of
/// 9,000 words, every arch.
#[test]
fn branch_offsets_beyond_32_kb() {
    const FILL: i32 = 9000;
    let far = FILL + 3;
    let mut text = format!(
        "s_mov_b32 s0, 1\n\
         s_branch {far}\n\
         s_mov_b32 s4, 9\n\
         s_call_b64 s[6:7], {far}\n\
         s_endpgm\n"
    );
    for _ in 0..FILL {
        // Landing anywhere in here shows in s2.
        text.push_str("s_mov_b32 s2, 7\n");
    }
    text.push_str(&format!(
        "s_cmp_eq_u32 s0, 1\n\
         s_cbranch_scc1 {}\n\
         s_mov_b32 s5, 3\n\
         s_setpc_b64 s[6:7]\n",
        -(FILL + 5)
    ));
    for arch in [Arch::Rdna3, Arch::Rdna4, Arch::Cdna] {
        let wave = if arch == Arch::Cdna { 64 } else { 32 };
        let w = run_asm_all(arch, wave, &text, &|_| {});
        assert_eq!(w.read_sgpr(4), 9, "{arch}: the backward branch landed");
        assert_eq!(w.read_sgpr(5), 3, "{arch}: the call landed");
        assert_eq!(w.read_sgpr(2), 0, "{arch}: no filler ran");
        assert_eq!(w.read_sgpr(6), 16, "{arch}: return address (low)");
        assert_eq!(w.read_sgpr(7), 0, "{arch}: return address (high)");
        assert_eq!(w.pc, 16, "{arch}: ended at the s_endpgm after the call");
    }
}
