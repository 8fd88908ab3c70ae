//! Instructions CDNA 1/2 (gfx908, gfx90a) and RDNA 1 (gfx1010) keep from older GCN and their
//! newer generations dropped, run under both engines (which must agree bit for bit) against
//! concrete bits: the unfused multiply-adds (errata in `semantics/errata/{cdna1,cdna2,rdna1}/`)
//! and gfx908's matrix accumulators.

mod common;

use amdpcode::spec::Arch;
use amdpcode::wave::{Engine, Executor, Program, WaveState};

/// Runs assembly text on a fresh wave of `arch` prepared by `init` under every engine
/// (`common::engines::run_all`) and returns the final state they agree on.
fn run_both(arch: Arch, wave_size: u32, program: &str, init: &dyn Fn(&mut WaveState)) -> WaveState {
    let load = |ex: &Executor| Program::assemble(ex.isa(), program).map_err(|e| e.to_string());
    common::engines::run_all(arch, wave_size, program, &load, init)
}

/// 1 + 2^-12: its square is 1 + 2^-11 + 2^-24, which rounds (a tie, to even) to 1 + 2^-11.
const ONE_PLUS_2M12: u32 = 0x3f80_0800;
/// -(1 + 2^-11).
const MINUS_ONE_PLUS_2M11: u32 = 0xbf80_1000;
/// 2^-126, the smallest normal f32.
const MIN_NORMAL: u32 = 0x0080_0000;
const HALF: u32 = 0x3f00_0000;
/// MODE bits 5:4 set: f32 denormals kept in inputs and outputs.
const F32_DENORMALS_ON: u32 = 3 << 4;

/// `v_mac_f32`, `v_mad_f32`, `v_madmk_f32` and `v_madak_f32` round the product before the add:
/// (1 + 2^-12)^2 - (1 + 2^-11) is 0, where a fused multiply-add gives 2^-24 (`v_fmac_f32`,
/// run beside them for contrast). A product below 2^-126 is flushed to zero even with f32
/// denormals on in MODE, where `v_mul_f32` keeps the denormal.
#[test]
fn mac_and_mad_f32_round_the_product_and_flush_denormals() {
    let program = "v_mov_b32 v2, v10\n\
                   v_mac_f32 v2, v0, v1\n\
                   v_mov_b32 v3, v10\n\
                   v_fmac_f32 v3, v0, v1\n\
                   v_mad_f32 v4, v0, v1, v10\n\
                   v_madmk_f32 v5, v0, 0x3f800800, v10\n\
                   v_madak_f32 v6, v0, v1, 0xbf801000\n\
                   v_mad_f32 v7, v11, v12, 0\n\
                   v_mul_f32 v8, v11, v12";
    for arch in [Arch::Cdna1, Arch::Cdna2, Arch::Rdna1] {
        let (wave, program) = if arch == Arch::Rdna1 {
            // gfx1010's table has no v_madmk_f32/v_madak_f32 rows.
            let lines: Vec<&str> = program
                .lines()
                .filter(|l| !l.contains("madmk") && !l.contains("madak"))
                .collect();
            (32, lines.join("\n"))
        } else {
            (64, program.to_string())
        };
        let w = run_both(arch, wave, &program, &|w| {
            w.mode |= F32_DENORMALS_ON;
            for lane in 0..wave {
                w.set_vgpr(lane, 0, ONE_PLUS_2M12);
                w.set_vgpr(lane, 1, ONE_PLUS_2M12);
                w.set_vgpr(lane, 10, MINUS_ONE_PLUS_2M11);
                w.set_vgpr(lane, 11, MIN_NORMAL);
                w.set_vgpr(lane, 12, HALF);
            }
        });
        for lane in [0, wave - 1] {
            assert_eq!(w.vgpr(lane, 2), 0, "{arch} v_mac_f32");
            assert_eq!(
                w.vgpr(lane, 3),
                0x3380_0000,
                "{arch} v_fmac_f32 is fused: 2^-24"
            );
            assert_eq!(w.vgpr(lane, 4), 0, "{arch} v_mad_f32");
            if arch != Arch::Rdna1 {
                assert_eq!(w.vgpr(lane, 5), 0, "{arch} v_madmk_f32");
                assert_eq!(w.vgpr(lane, 6), 0, "{arch} v_madak_f32");
            }
            assert_eq!(w.vgpr(lane, 7), 0, "{arch} v_mad_f32 flushes 2^-127");
            assert_eq!(
                w.vgpr(lane, 8),
                0x0040_0000,
                "{arch} v_mul_f32 keeps 2^-127"
            );
        }
    }
}

/// `v_madmk_f32`/`v_madak_f32` carry a 32-bit literal after the instruction word: the decoder
/// reads it (and the next instruction after it), as llvm-mc-22 does for gfx908.
#[test]
fn madmk_literal_is_part_of_the_instruction() {
    let db = common::spec().db(Arch::Cdna1);
    let ex = Executor::new(db, Engine::Interp).unwrap();
    // llvm-mc-22 -mcpu=gfx908: v_madmk_f32 v0, v1, 0xcf800000, v0; v_cvt_u32_f32_e32 v12, v0
    let bytes = [
        0x01, 0x01, 0x00, 0x2e, 0x00, 0x00, 0x80, 0xcf, 0x00, 0x0f, 0x18, 0x7e,
    ];
    let lines = ex.isa().disassemble(&bytes);
    let texts: Vec<&str> = lines.iter().map(|(_, t, _)| t.as_str()).collect();
    assert_eq!(
        texts,
        [
            "v_madmk_f32 v0, v1, 0xcf800000, v0",
            "v_cvt_u32_f32_e32 v12, v0"
        ]
    );
}

/// gfx908's matrix instructions read C from and write D to AGPRs with bit 15 clear (gfx908
/// has no `acc_cd` bit; llvm-mc-22 encodes `a[0:3]` there with the bit clear and refuses
/// `v[0:3]`): A = 1.0 and B = 2.0 in every f16 element, C = 0.5, so D = 16 * 2 + 0.5 = 32.5,
/// and the VGPRs holding A and B keep their values.
#[test]
fn gfx908_mfma_accumulates_in_agprs() {
    let program = "v_accvgpr_write_b32 a0, 0.5\n\
                   v_accvgpr_write_b32 a1, 0.5\n\
                   v_accvgpr_write_b32 a2, 0.5\n\
                   v_accvgpr_write_b32 a3, 0.5\n\
                   v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]";
    let db = common::spec().db(Arch::Cdna1);
    let ex = Executor::new(db, Engine::Interp).unwrap();
    let mfma = program.lines().last().unwrap().trim();
    assert_eq!(
        ex.isa().assemble(mfma).unwrap(),
        [0x00, 0x00, 0xcd, 0xd3, 0x00, 0x05, 0x02, 0x04],
        "llvm-mc-22 -mcpu=gfx908 encoding"
    );
    assert!(
        ex.isa()
            .assemble("v_mfma_f32_16x16x16f16 v[0:3], v[0:1], v[2:3], v[0:3]")
            .is_err(),
        "gfx908 has no VGPR accumulators"
    );
    let w = run_both(Arch::Cdna1, 64, program, &|w| {
        for lane in 0..64 {
            w.set_vgpr(lane, 0, 0x3c00_3c00);
            w.set_vgpr(lane, 1, 0x3c00_3c00);
            w.set_vgpr(lane, 2, 0x4000_4000);
            w.set_vgpr(lane, 3, 0x4000_4000);
        }
    });
    for lane in [0, 17, 63] {
        for r in 0..4 {
            assert_eq!(w.agpr(lane, r), 0x4202_0000, "lane {lane} a{r}");
        }
        assert_eq!(w.vgpr(lane, 0), 0x3c00_3c00, "v0 is A, not D");
        assert_eq!(w.vgpr(lane, 3), 0x4000_4000, "v3 is B, not D");
    }
}
