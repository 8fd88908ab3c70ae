//! CDNA 4's scaled matrix instructions: `v_mfma_ld_scale_b32` followed by
//! `v_mfma_f32_16x16x128_f8f6f4` / `v_mfma_f32_32x32x64_f8f6f4` is one instruction,
//! `V_MFMA_SCALE_F32_*_F8F6F4` (LLVM's `VOP3PX2` pair), whose A and B elements are multiplied
//! by E8M0 block scales; and the F8F6F4 formats CBSZ (A) and BLGP (B) select. Each program
//! runs under the interpreter and the JIT (per-instruction steps and blocks), which must agree
//! bit for bit, and is checked against hand-computed values. Encodings from `llvm-mc-22
//! --arch=amdgcn --mcpu=gfx950 -show-encoding` (the instruction is in each test's comment).

mod common;

use amdpcode::spec::Arch;
use amdpcode::wave::{Engine, Executor, Program, WaveError, WaveState};

/// `v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3], v20, v21`.
const SCALE_16: &str = "00 00 ac d3 14 2b 02 00 00 08 ad d3 04 19 02 04";
/// The same with `op_sel:[1,1,0] op_sel_hi:[0,1,0]`: A's scale from byte 1, B's from byte 3.
const SCALE_16_OPSEL: &str = "00 18 ac d3 14 2b 02 10 00 08 ad d3 04 19 02 04";
/// `v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:7], v[12:15], v[0:3], v20, v21 cbsz:4
/// blgp:4` (FP4 A and B).
const SCALE_16_FP4: &str = "00 00 ac d3 14 2b 02 00 00 0c ad d3 04 19 02 84";
/// `v_mfma_scale_f32_32x32x64_f8f6f4 v[32:47], v[4:11], v[12:19], v[32:47], v20, v21`.
const SCALE_32: &str = "00 00 ac d3 14 2b 02 00 20 08 ae d3 04 19 82 04";
/// `v_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[4:11], v[12:19], a[0:3], v20, v21`.
const SCALE_16_AGPR: &str = "00 00 ac d3 14 2b 02 00 00 88 ad d3 04 19 02 04";
/// `v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:9], v[12:15], v[0:3] cbsz:2 blgp:4` (FP6 A,
/// FP4 B, unscaled).
const PLAIN_16_FP6_FP4: &str = "00 02 ad d3 04 19 02 84";
/// `v_mfma_ld_scale_b32 v20, v21`.
const LD_SCALE: &str = "00 40 ac d3 14 2b 02 18";

const F32_ONE: u32 = 0x3f80_0000;

/// Runs `hex` on a fresh wave64 prepared by `init` under every engine
/// (`common::engines::run_all`) and returns the final state they agree on.
fn run_all(hex: &str, init: &dyn Fn(&mut WaveState)) -> WaveState {
    let load = |ex: &Executor| Program::from_hex(ex.isa(), hex).map_err(|e| e.to_string());
    common::engines::run_all(Arch::Cdna, 64, hex, &load, init)
}

/// The error running `hex` gives under each engine (they must give the same one).
fn run_err(hex: &str) -> WaveError {
    let db = common::spec().db(Arch::Cdna);
    let mut errs = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let mut ex = Executor::new(db, engine).unwrap();
        let p = Program::from_hex(ex.isa(), hex).unwrap_or_else(|e| panic!("{hex}: {e}"));
        let mut w = ex.new_wave(64);
        match ex.run(&p, &mut w) {
            Ok(_) => panic!("{engine:?}: {hex} ran"),
            Err(e) => errs.push(e),
        }
    }
    assert_eq!(errs[0].to_string(), errs[1].to_string());
    errs.remove(0)
}

/// Sets byte `byte` of VGPR `reg` in `lane`.
fn set_byte(w: &mut WaveState, lane: u32, reg: u32, byte: u32, value: u8) {
    let old = w.vgpr(lane, reg);
    let shift = 8 * byte;
    w.set_vgpr(
        lane,
        reg,
        old & !(0xff << shift) | u32::from(value) << shift,
    );
}

/// D[i][j] of a 16x16 f32 result from `base` (lane j + 16 * (i / 4), VGPR i % 4).
fn d16(w: &WaveState, base: u32, i: u32, j: u32) -> u32 {
    w.vgpr(j + 16 * (i / 4), base + i % 4)
}

/// D[i][j] of a 32x32 f32 result from `base` (lane j + 32 * ((i / 4) % 2), VGPR
/// 4 * (i / 8) + i % 4).
fn d32(w: &WaveState, base: u32, i: u32, j: u32) -> u32 {
    w.vgpr(j + 32 * ((i / 4) % 2), base + 4 * (i / 8) + i % 4)
}

fn f32_bits(x: f32) -> u32 {
    x.to_bits()
}

/// FP8 (E4M3) A = identity in its first 16 columns (A[i][i] = 1.0: lane i, byte i of
/// v[4:11]), B = 2.0 everywhere, C = 1.0. Scales: A's VGPR v20 holds bytes [2^1, 2^-1, 2^0,
/// 2^0] in every lane, B's v21 [2^1, 2^0, 2^-1, 2^2]; lane 3 of v21 has byte 0 = 2^2 (B's
/// column 3, k block 0) and lane 40 of v20 byte 0 = 0xff, NaN (A's row 8, k block 2: a block
/// where A is zero, so only the NaN reaches D).
fn init_fp8(w: &mut WaveState) {
    for lane in 0..64 {
        for r in 4..12 {
            w.set_vgpr(lane, r, 0);
        }
        for r in 12..20 {
            w.set_vgpr(lane, r, 0x4040_4040);
        }
        for r in 0..4 {
            w.set_vgpr(lane, r, F32_ONE);
        }
        w.set_vgpr(lane, 20, 0x7f7f_7e80);
        w.set_vgpr(lane, 21, 0x817e_7f80);
    }
    for i in 0..16 {
        set_byte(w, i, 4 + i / 4, i % 4, 0x38);
    }
    set_byte(w, 3, 21, 0, 0x81);
    set_byte(w, 40, 20, 0, 0xff);
}

/// Scales from byte 0: D = 1 + (1 * 2) * (2 * 2) = 9, column 3 (B scale 2^2) 1 + 2 * 8 = 17,
/// row 8 NaN (its A scale of k block 2 is NaN).
#[test]
fn scale_16x16x128_fp8_byte0() {
    let w = run_all(SCALE_16, &init_fp8);
    for i in 0..16 {
        for j in 0..16 {
            let want = match (i, j) {
                (8, _) => 0x7fc0_0000,
                (_, 3) => f32_bits(17.0),
                _ => f32_bits(9.0),
            };
            assert_eq!(d16(&w, 0, i, j), want, "D[{i}][{j}]");
        }
    }
    // The sources are unchanged.
    assert_eq!(w.vgpr(40, 20), 0x7f7f_7eff);
    assert_eq!(w.vgpr(0, 12), 0x4040_4040);
}

/// op_sel picks the scale bytes: A byte { op_sel_hi[0], op_sel[0] } = 1 (2^-1), B byte
/// { op_sel_hi[1], op_sel[1] } = 3 (2^2): D = 1 + (1 * 0.5) * (2 * 4) = 5 everywhere (row 8's
/// NaN is in byte 0, not read).
#[test]
fn scale_16x16x128_fp8_op_sel_bytes() {
    let w = run_all(SCALE_16_OPSEL, &init_fp8);
    for i in 0..16 {
        for j in 0..16 {
            assert_eq!(d16(&w, 0, i, j), f32_bits(5.0), "D[{i}][{j}]");
        }
    }
}

/// The accumulator in AccVGPRs (`a[0:3]`, rows 256.. of the vector file): D = C + 8 with
/// C = 2.0 in a[0:3] and 9/17/NaN as above shifted by one.
#[test]
fn scale_16x16x128_fp8_agpr_accumulator() {
    let w = run_all(SCALE_16_AGPR, &|w| {
        init_fp8(w);
        for lane in 0..64 {
            for r in 0..4 {
                w.set_vgpr(lane, 256 + r, f32_bits(2.0));
            }
        }
    });
    assert_eq!(d16(&w, 256, 0, 0), f32_bits(10.0));
    assert_eq!(d16(&w, 256, 5, 3), f32_bits(18.0));
    assert_eq!(d16(&w, 256, 8, 1), 0x7fc0_0000);
    // v[0:3] (C of the other tests) is not written.
    assert_eq!(d16(&w, 0, 0, 0), F32_ONE);
}

/// FP4 (E2M1) A and B (cbsz:4 blgp:4): 32 nibbles a lane in 4 VGPRs. A[i][i] = 1.0 (0x2 in
/// nibble i of lane i), B = 2.0 (0x4) everywhere; v[8:11] and v[16:19] hold FP8 ones, which
/// FP4 does not read. A scale 2^0 but lane 5 (row 5, k block 0) 2^-2; B scale 2^0:
/// D = 1 + 1 * 2 = 3, row 5: 1 + 0.25 * 2 = 1.5.
#[test]
fn scale_16x16x128_fp4() {
    let w = run_all(SCALE_16_FP4, &|w| {
        for lane in 0..64 {
            for r in 4..8 {
                w.set_vgpr(lane, r, 0);
            }
            for r in 12..16 {
                w.set_vgpr(lane, r, 0x4444_4444);
            }
            for r in (8..12).chain(16..20) {
                w.set_vgpr(lane, r, 0x3838_3838);
            }
            for r in 0..4 {
                w.set_vgpr(lane, r, F32_ONE);
            }
            w.set_vgpr(lane, 20, 0x0000_007f);
            w.set_vgpr(lane, 21, 0x0000_007f);
        }
        for i in 0..16 {
            let r = 4 + i / 8;
            let v = w.vgpr(i, r) | 0x2 << (4 * (i % 8));
            w.set_vgpr(i, r, v);
        }
        w.set_vgpr(5, 20, 0x0000_007d);
    });
    for i in 0..16 {
        for j in 0..16 {
            let want = if i == 5 { 1.5 } else { 3.0 };
            assert_eq!(d16(&w, 0, i, j), f32_bits(want), "D[{i}][{j}]");
        }
    }
}

/// 32x32x64, FP8: A[i][i] = 1.0 for i < 32 (lane i, byte i of v[4:11]), B = 2.0, C = 0.
/// A scale 2^0 but lane 7 (row 7, k block 0) 2^2; B scale 2^0 but lane 5 (column 5, k block
/// 0) 2^-1: D = 2, row 7: 8, column 5: 1, D[7][5] = 4.
#[test]
fn scale_32x32x64_fp8() {
    let w = run_all(SCALE_32, &|w| {
        for lane in 0..64 {
            for r in 4..12 {
                w.set_vgpr(lane, r, 0);
            }
            for r in 12..20 {
                w.set_vgpr(lane, r, 0x4040_4040);
            }
            for r in 32..48 {
                w.set_vgpr(lane, r, 0);
            }
            w.set_vgpr(lane, 20, 0x7f);
            w.set_vgpr(lane, 21, 0x7f);
        }
        for i in 0..32 {
            set_byte(w, i, 4 + i / 4, i % 4, 0x38);
        }
        w.set_vgpr(7, 20, 0x81);
        w.set_vgpr(5, 21, 0x7e);
    });
    for i in 0..32 {
        for j in 0..32 {
            let want = match (i, j) {
                (7, 5) => 4.0,
                (7, _) => 8.0,
                (_, 5) => 1.0,
                _ => 2.0,
            };
            assert_eq!(d32(&w, 32, i, j), f32_bits(want), "D[{i}][{j}]");
        }
    }
}

/// The unscaled F8F6F4 MFMA reads the formats CBSZ and BLGP select (it read FP8 always):
/// FP6 (E2M3) A over 6 VGPRs, FP4 B over 4. A[i][i] = 1.0 (E2M3 0b001000) at bits 6i of
/// lane i, so element 5 straddles v4 and v5; B = 0.5 (E2M1 0x1) everywhere; C = 1:
/// D = 1.5. With the format taken as FP8 the result would differ.
#[test]
fn plain_16x16x128_fp6_a_fp4_b() {
    let w = run_all(PLAIN_16_FP6_FP4, &|w| {
        for lane in 0..64 {
            for r in 4..12 {
                w.set_vgpr(lane, r, 0);
            }
            for r in 12..16 {
                w.set_vgpr(lane, r, 0x1111_1111);
            }
            for r in 0..4 {
                w.set_vgpr(lane, r, F32_ONE);
            }
        }
        for i in 0..16u32 {
            let bit = 6 * i;
            let wide =
                u64::from(w.vgpr(i, 4 + bit / 32 + 1)) << 32 | u64::from(w.vgpr(i, 4 + bit / 32));
            let wide = wide | 0b00_1000 << (bit % 32);
            w.set_vgpr(i, 4 + bit / 32, wide as u32);
            w.set_vgpr(i, 4 + bit / 32 + 1, (wide >> 32) as u32);
        }
    });
    assert_eq!(w.vgpr(5, 4) >> 30, 0, "element 5 starts at bit 30 of v4");
    assert_eq!(w.vgpr(5, 5) & 3, 0b10, "and ends in v5");
    for i in 0..16 {
        for j in 0..16 {
            assert_eq!(d16(&w, 0, i, j), f32_bits(1.5), "D[{i}][{j}]");
        }
    }
}

/// A scale from an SGPR (the first word's `scale_src0` = s2, hand-edited from `v20`; the
/// decoder accepts the code, llvm-mc's assembler only VGPRs): every lane reads s2's byte 0,
/// 2^2, so D = 1 + (1 * 4) * (2 * 2) = 17, column 3: 1 + 4 * 8 = 33 (B as in `init_fp8`).
#[test]
fn scale_from_sgpr() {
    let hex = SCALE_16.replacen("14 2b", "02 2a", 1);
    let w = run_all(&hex, &|w| {
        init_fp8(w);
        w.write_sgpr(2, 0x7f7f_7f81);
    });
    assert_eq!(d16(&w, 0, 0, 0), f32_bits(17.0));
    assert_eq!(d16(&w, 0, 8, 0), f32_bits(17.0), "v20's NaN is not read");
    assert_eq!(d16(&w, 0, 2, 3), f32_bits(33.0));
}

/// A `v_mfma_ld_scale_b32` not followed by a scaled MFMA word is an error naming it, not a
/// silent no-op or a panic: at the end of the program, and before another instruction.
#[test]
fn lone_ld_scale_is_an_error() {
    for hex in [LD_SCALE.to_string(), format!("{LD_SCALE} 00 00 81 bf")] {
        match run_err(&hex) {
            WaveError::Unsupported { addr, inst, reason } => {
                assert_eq!(addr, 0);
                assert_eq!(inst, "V_MFMA_LD_SCALE_B32");
                assert!(
                    reason.contains("not followed by a scale-capable MFMA"),
                    "{reason}"
                );
            }
            e => panic!("{hex}: {e}"),
        }
    }
}

/// The pair disassembles as one instruction, as llvm-objdump-22 prints it, and a lone
/// `v_mfma_ld_scale_b32` as itself; each text assembles to llvm-mc's bytes.
#[test]
fn disassembly_matches_llvm() {
    let isa = amdpcode::isa::Isa::new(common::spec().db(Arch::Cdna));
    let cases = [
        (SCALE_16, "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3], v20, v21 op_sel_hi:[0,0,0]"),
        (SCALE_16_OPSEL, "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3], v20, v21 op_sel:[1,1,0] op_sel_hi:[0,1,0]"),
        (SCALE_16_FP4, "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:7], v[12:15], v[0:3], v20, v21 op_sel_hi:[0,0,0] cbsz:4 blgp:4"),
        (SCALE_32, "v_mfma_scale_f32_32x32x64_f8f6f4 v[32:47], v[4:11], v[12:19], v[32:47], v20, v21 op_sel_hi:[0,0,0]"),
        (SCALE_16_AGPR, "v_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[4:11], v[12:19], a[0:3], v20, v21 op_sel_hi:[0,0,0]"),
        (PLAIN_16_FP6_FP4, "v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:9], v[12:15], v[0:3] cbsz:2 blgp:4"),
        (LD_SCALE, "v_mfma_ld_scale_b32 v20, v21"),
    ];
    for (hex, want) in cases {
        let bytes: Vec<u8> = hex
            .split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap())
            .collect();
        let (inst, len) = isa.decode(&bytes).unwrap();
        assert_eq!(len, bytes.len(), "{hex}");
        assert_eq!(isa.print(&inst), want);
        // The text assembles back to the same bytes.
        assert_eq!(isa.assemble(want).unwrap(), bytes, "{want}");
    }
}
