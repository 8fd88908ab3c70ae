//! The `matrix` kernel family (`matrix.cl`): its inputs and its cases with their Rust references.
//! One 16 x 16 tile per one-wave group, 3 tiles.

use super::harness::{check, suite, Mode, BOTH};
use crate::common::kernels::{buf, bytes, expect_at, f16_to_f64, f64_to_f16, Arg, Rng, Target};
use Arg::Ptr;

pub(super) fn matrix_suite(mode: Mode) {
    suite(mode, "matrix", "matrix.cl", 19, &BOTH, |co, rng, cases| {
        // RDNA 1/2 have no matrix cores (the kernels are empty there).
        if co.target.is_gfx10() {
            return;
        }
        let tiles = 3usize;
        let wave = co.target.wave();

        // mma_f16: A, B hold multiples of 1/4 in [-2, 2] and C multiples of 1/16, so every
        // partial sum is exact in f32 whatever the order of the additions.
        let quarter = |rng: &mut Rng| f64_to_f16((rng.below(17) as i32 - 8) as f64 / 4.0);
        let a: Vec<u16> = (0..256 * tiles).map(|_| quarter(rng)).collect();
        let b: Vec<u16> = (0..256 * tiles).map(|_| quarter(rng)).collect();
        let c: Vec<f32> = (0..256 * tiles)
            .map(|_| (rng.below(2049) as i32 - 1024) as f32 / 16.0)
            .collect();
        let mut want = vec![0f32; 256 * tiles];
        for t in 0..tiles {
            for i in 0..16 {
                for j in 0..16 {
                    let s: f64 = (0..16)
                        .map(|k| {
                            f16_to_f64(a[256 * t + 16 * i + k])
                                * f16_to_f64(b[256 * t + 16 * k + j])
                        })
                        .sum();
                    want[256 * t + 16 * i + j] = (s + c[256 * t + 16 * i + j] as f64) as f32;
                }
            }
        }
        cases.push(co.case(
            "mma_f16",
            [tiles as u32, 1, 1],
            [wave, 1, 1],
            &[Ptr(buf(0)), Ptr(buf(1)), Ptr(buf(2)), Ptr(buf(3))],
            &[
                (buf(0), bytes(&a)),
                (buf(1), bytes(&b)),
                (buf(2), bytes(&c)),
                (buf(3), vec![0; 1024 * tiles]),
            ],
            check(move |out| expect_at(out, "d", buf(3), &want)),
        ));

        // mma_i8: signed bytes; K = 32 on gfx950 and gfx942 (v_mfma_i32_16x16x32_i8), 16 on RDNA
        // and on gfx908/gfx90a (v_mfma_i32_16x16x16_i8).
        let kdim = if matches!(co.target, Target::Gfx950 | Target::Gfx942) {
            32
        } else {
            16
        };
        let a: Vec<i8> = (0..512 * tiles).map(|_| rng.u32() as i8).collect();
        let b: Vec<i8> = (0..512 * tiles).map(|_| rng.u32() as i8).collect();
        let c: Vec<i32> = (0..256 * tiles).map(|_| (rng.u32() as i32) >> 10).collect();
        let mut want = vec![0i32; 256 * tiles];
        for t in 0..tiles {
            for i in 0..16 {
                for j in 0..16 {
                    let s: i32 = (0..kdim)
                        .map(|k| a[512 * t + kdim * i + k] as i32 * b[512 * t + 16 * k + j] as i32)
                        .sum();
                    want[256 * t + 16 * i + j] = s.wrapping_add(c[256 * t + 16 * i + j]);
                }
            }
        }
        cases.push(co.case(
            "mma_i8",
            [tiles as u32, 1, 1],
            [wave, 1, 1],
            &[Ptr(buf(0)), Ptr(buf(1)), Ptr(buf(2)), Ptr(buf(3))],
            &[
                (buf(0), bytes(&a)),
                (buf(1), bytes(&b)),
                (buf(2), bytes(&c)),
                (buf(3), vec![0; 1024 * tiles]),
            ],
            check(move |out| expect_at(out, "d", buf(3), &want)),
        ));
    });
}
