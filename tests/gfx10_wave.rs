//! GFX10 (RDNA 1, RDNA 2) words as clang-22 emits them, run on a modelled wave: the LDS
//! stores and compare-stores, the SDWA forms, the always-literal `v_fmamk_f32`, and wave64's
//! 64-bit `null` destination. Each program is llvm-mc-22's encoding for gfx1030 (the
//! assembly is in the comment above it) and runs under the interpreter, the JIT stepping and
//! the JIT compiling blocks, which must agree.

mod common;

use amdpcode::spec::Arch;
use amdpcode::wave::{Executor, Program, WaveState};

fn run_hex(arch: Arch, wave: u32, hex: &str, init: &dyn Fn(&mut WaveState)) -> WaveState {
    let load = |ex: &Executor| Program::from_hex(ex.isa(), hex).map_err(|e| e.to_string());
    common::engines::run_all(arch, wave, hex, &load, init)
}

fn lds_u32(w: &WaveState, addr: u64) -> u32 {
    let mut b = [0u8; 4];
    w.lds.read(addr, &mut b);
    u32::from_le_bytes(b)
}

/// The LDS instructions without a return value (`ds_write_b32`: no `vdst`) decode on both
/// GFX10 targets, and `ds_cmpst_rtn_b32` compares with `data0` and stores `data1` (the
/// GFX9/GFX10 operand order; RDNA 3's `ds_cmpstore_rtn_b32` has them the other way round).
#[test]
fn lds_store_read_and_compare_store_run_with_gfx10_operand_order() {
    // ds_write_b32 v0, v3 offset:8
    // ds_read_b32 v5, v0 offset:8
    // ds_cmpst_rtn_b32 v6, v0, v7, v8 offset:8
    // ds_read_b32 v9, v0 offset:8
    // s_endpgm
    let hex = "08 00 34 d8 00 03 00 00  08 00 d8 d8 00 00 00 05  08 00 c0 d8 00 07 08 06 \
               08 00 d8 d8 00 00 00 09  00 00 81 bf";
    for arch in [Arch::Rdna1, Arch::Rdna2] {
        let w = run_hex(arch, 32, hex, &|w| {
            for l in 0..32 {
                w.set_vgpr(l, 0, 4 * l);
                w.set_vgpr(l, 3, 100 + l);
                // Even lanes compare with the stored value, odd lanes with something else.
                w.set_vgpr(l, 7, if l % 2 == 0 { 100 + l } else { 7 });
                w.set_vgpr(l, 8, 0xabc0 + l);
            }
        });
        for l in 0..32u32 {
            assert_eq!(w.vgpr(l, 5), 100 + l, "{arch:?} lane {l}: ds_read_b32");
            assert_eq!(w.vgpr(l, 6), 100 + l, "{arch:?} lane {l}: the old value");
            let stored = if l % 2 == 0 { 0xabc0 + l } else { 100 + l };
            assert_eq!(
                w.vgpr(l, 9),
                stored,
                "{arch:?} lane {l}: after the compare-store"
            );
            assert_eq!(
                lds_u32(&w, 8 + 4 * l as u64),
                stored,
                "{arch:?} lane {l}: LDS"
            );
        }
    }
}

/// VOP1/VOP2 SDWA words (`src0` code 0xf9) decode on GFX10 and select sub-dwords of their
/// sources and destination.
#[test]
fn sdwa_selects_source_words_and_destination_bytes() {
    // v_add_f16_sdwa v11, v6, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
    //   src1_sel:DWORD
    // v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1
    // s_endpgm
    let hex = "f9 04 16 64 06 06 05 06  f9 02 02 7e 02 15 01 00  00 00 81 bf";
    for arch in [Arch::Rdna1, Arch::Rdna2] {
        let w = run_hex(arch, 32, hex, &|w| {
            for l in 0..32 {
                // v6: 1.5 (0x3e00) in the high half, other bits below; v2: an f16 below.
                w.set_vgpr(l, 6, 0x3e00_1234);
                w.set_vgpr(l, 2, 0x0000_4000 | (l << 8));
                w.set_vgpr(l, 1, 0xdead_beef);
            }
        });
        for l in 0..32u32 {
            // 1.5 + v2's low half (f16 0x4000 | l << 8: 2.0 for lane 0), the upper half
            // padded with zeros.
            let sum = f16_add(0x3e00, (0x4000 | (l << 8)) as u16);
            assert_eq!(
                w.vgpr(l, 11),
                sum as u32,
                "{arch:?} lane {l}: v_add_f16_sdwa"
            );
            // Byte 1 of v2 ((0x40 | l) zero-extended) into the high word; the low word kept.
            let byte1 = (0x40 | l) & 0xff;
            assert_eq!(
                w.vgpr(l, 1),
                byte1 << 16 | 0xbeef,
                "{arch:?} lane {l}: v_mov_b32_sdwa"
            );
        }
    }
}

/// f16 addition of two normal values whose exact sum is representable (the test picks them so).
fn f16_add(a: u16, b: u16) -> u16 {
    let f = |h: u16| {
        let e = ((h >> 10) & 0x1f) as i32 - 15;
        let m = (h & 0x3ff) as f64 / 1024.0 + 1.0;
        m * 2f64.powi(e)
    };
    let s = f(a) + f(b);
    let e = s.log2().floor() as i32;
    let m = ((s / 2f64.powi(e) - 1.0) * 1024.0).round() as u16;
    assert_eq!(f(((e + 15) as u16) << 10 | m), s, "the sum is exact in f16");
    ((e + 15) as u16) << 10 | m
}

/// `v_fmamk_f32` always carries a literal (its `K`), so its word is 8 bytes.
#[test]
fn fmamk_takes_its_literal_as_the_multiplier() {
    // v_fmamk_f32 v0, v1, 0x4f800000, v0   (v0 = v1 * 2^32 + v0)
    // s_endpgm
    let hex = "01 01 00 58 00 00 80 4f  00 00 81 bf";
    for arch in [Arch::Rdna1, Arch::Rdna2] {
        let w = run_hex(arch, 32, hex, &|w| {
            for l in 0..32 {
                w.set_vgpr(l, 1, (l as f32 + 0.5).to_bits());
                w.set_vgpr(l, 0, 3.0f32.to_bits());
            }
        });
        for l in 0..32u32 {
            let want = (l as f32 + 0.5).mul_add(4294967296.0, 3.0);
            assert_eq!(f32::from_bits(w.vgpr(l, 0)), want, "{arch:?} lane {l}");
        }
    }
}

/// In wave64 a VOP3 carry-out written to `null` (code 125 on GFX10) is discarded whole: its
/// high half does not reach the next code (EXEC_LO), and a 64-bit `null` source reads zero.
#[test]
fn wave64_null_carry_out_leaves_exec_alone() {
    // v_add_co_ci_u32_e64 v4, null, s1, v2, vcc
    // v_cndmask_b32_e64 v5, 1, 2, null
    // s_mov_b64 s[8:9], null
    // s_endpgm
    let hex = "04 7d 28 d5 01 04 aa 01  05 00 01 d5 81 04 f5 01  7d 04 88 be  00 00 81 bf";
    for arch in [Arch::Rdna1, Arch::Rdna2] {
        let w = run_hex(arch, 64, hex, &|w| {
            w.set_exec(u64::MAX);
            // VCC: the carry-in of every third lane, across both halves.
            let vcc: u64 = (0..64).filter(|l| l % 3 == 0).map(|l| 1u64 << l).sum();
            w.write_sgpr(106, vcc as u32);
            w.write_sgpr(107, (vcc >> 32) as u32);
            w.write_sgpr(1, 1000);
            w.write_sgpr(8, 0x1111);
            w.write_sgpr(9, 0x2222);
            for l in 0..64 {
                w.set_vgpr(l, 2, l);
            }
        });
        assert_eq!(w.exec(), u64::MAX, "{arch:?}: EXEC after a null carry-out");
        for l in 0..64u32 {
            let carry = (l % 3 == 0) as u32;
            assert_eq!(w.vgpr(l, 4), 1000 + l + carry, "{arch:?} lane {l}: sum");
            assert_eq!(
                w.vgpr(l, 5),
                1,
                "{arch:?} lane {l}: a null mask selects src0"
            );
        }
        assert_eq!(
            (w.read_sgpr(8), w.read_sgpr(9)),
            (0, 0),
            "{arch:?}: s_mov_b64 from null"
        );
    }
}

/// gfx1010's `v_madmk_f32`/`v_madak_f32` (literal K) are unfused: the product is rounded to
/// f32 before the add. (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11, so adding
/// -(1 + 2^-11) gives 0, where a fused multiply-add gives 2^-24.
#[test]
fn gfx1010_madmk_and_madak_round_the_product() {
    // v_madmk_f32 v0, v1, 0x3f800800, v2   (v0 = v1 * K + v2, K = 1 + 2^-12)
    // v_madak_f32 v3, v1, v4, 0xbf801000   (v3 = v1 * v4 + K, K = -(1 + 2^-11))
    // s_endpgm
    let hex = "01 05 00 40 00 08 80 3f  01 09 06 42 00 10 80 bf  00 00 81 bf";
    let a = 1.0f32 + 2f32.powi(-12);
    let c = -(1.0f32 + 2f32.powi(-11));
    assert_eq!(a.mul_add(a, c), 2f32.powi(-24), "fused would differ");
    let w = run_hex(Arch::Rdna1, 32, hex, &|w| {
        for l in 0..32 {
            w.set_vgpr(l, 1, a.to_bits());
            w.set_vgpr(l, 4, a.to_bits());
            w.set_vgpr(l, 2, c.to_bits());
        }
    });
    for l in 0..32u32 {
        assert_eq!(w.vgpr(l, 0), 0, "lane {l}: v_madmk_f32");
        assert_eq!(w.vgpr(l, 3), 0, "lane {l}: v_madak_f32");
    }
}
