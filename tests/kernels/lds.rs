//! The `lds` kernel family (`lds.cl`): its inputs and its cases with their Rust references.

use super::harness::{check, groups, suite, Mode, BOTH};
use crate::common::kernels::{buf, bytes, expect_at, Arg};
use Arg::{Ptr, U32};

pub(super) fn lds_suite(mode: Mode) {
    suite(mode, "lds", "lds.cl", 14, &BOTH, |co, rng, cases| {
        // reduce_u32 with groups of 256 and of 128 (the block size is an argument).
        let n = 1000usize;
        let input = rng.u32s(n);
        for block in [256u32, 128] {
            let grid = groups(n, block);
            let want: Vec<u32> = (0..grid as usize)
                .map(|g| {
                    input[g * block as usize..((g + 1) * block as usize).min(n)]
                        .iter()
                        .fold(0u32, |s, &v| s.wrapping_add(v))
                })
                .collect();
            cases.push(co.case(
                "reduce_u32",
                [grid, 1, 1],
                [block, 1, 1],
                &[Ptr(buf(0)), Ptr(buf(1)), U32(n as u32), U32(block)],
                &[
                    (buf(0), bytes(&input)),
                    (buf(1), vec![0; 4 * grid as usize]),
                ],
                check(move |out| expect_at(out, "partial", buf(1), &want)),
            ));
        }

        // reduce_f32: the tree's order of additions, replayed.
        let (n, block) = (900usize, 128u32);
        let grid = groups(n, block);
        let input: Vec<f32> = (0..n).map(|_| rng.f32_exp(-8, 8)).collect();
        let want: Vec<f32> = (0..grid as usize)
            .map(|g| {
                let mut t: Vec<f32> = (0..block as usize)
                    .map(|l| input.get(g * block as usize + l).copied().unwrap_or(0.0))
                    .collect();
                let mut s = block as usize / 2;
                while s > 0 {
                    for l in 0..s {
                        t[l] += t[l + s];
                    }
                    s /= 2;
                }
                t[0]
            })
            .collect();
        cases.push(co.case(
            "reduce_f32",
            [grid, 1, 1],
            [block, 1, 1],
            &[Ptr(buf(0)), Ptr(buf(1)), U32(n as u32)],
            &[
                (buf(0), bytes(&input)),
                (buf(1), vec![0; 4 * grid as usize]),
            ],
            check(move |out| expect_at(out, "partial", buf(1), &want)),
        ));

        // transpose: 45 x 30 through 16 x 16 tiles (partial on both edges).
        let (w, h) = (45u32, 30u32);
        let input = rng.u32s((w * h) as usize);
        let mut want = vec![0u32; (w * h) as usize];
        for y in 0..h {
            for x in 0..w {
                want[(x * h + y) as usize] = input[(y * w + x) as usize];
            }
        }
        cases.push(co.case(
            "transpose",
            [w.div_ceil(16), h.div_ceil(16), 1],
            [16, 16, 1],
            &[Ptr(buf(0)), Ptr(buf(1)), U32(w), U32(h)],
            &[
                (buf(0), bytes(&input)),
                (buf(1), vec![0; 4 * (w * h) as usize]),
            ],
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // scan_block: inclusive scan per group of 256 and the group totals.
        let (n, block) = (1000usize, 256u32);
        let grid = groups(n, block);
        let input = rng.u32s(n);
        let mut want = vec![0u32; n];
        let mut totals = vec![0u32; grid as usize];
        for (g, total) in totals.iter_mut().enumerate() {
            let mut s = 0u32;
            for i in g * block as usize..((g + 1) * block as usize).min(n) {
                s = s.wrapping_add(input[i]);
                want[i] = s;
            }
            *total = s;
        }
        cases.push(co.case(
            "scan_block",
            [grid, 1, 1],
            [block, 1, 1],
            &[Ptr(buf(0)), Ptr(buf(1)), Ptr(buf(2)), U32(n as u32)],
            &[
                (buf(0), bytes(&input)),
                (buf(1), vec![0; 4 * n]),
                (buf(2), vec![0; 4 * grid as usize]),
            ],
            check(move |out| {
                expect_at(out, "out", buf(1), &want)?;
                expect_at(out, "totals", buf(2), &totals)
            }),
        ));

        // scan_single: exclusive scan of 700 items by one group of 128 in chunks of 256.
        let n = 700usize;
        let input: Vec<u32> = (0..n).map(|_| rng.u32() >> 4).collect();
        let want: Vec<u32> = input
            .iter()
            .scan(0u32, |s, &v| {
                let before = *s;
                *s = s.wrapping_add(v);
                Some(before)
            })
            .collect();
        cases.push(co.case(
            "scan_single",
            [1, 1, 1],
            [128, 1, 1],
            &[Ptr(buf(0)), Ptr(buf(1)), U32(n as u32)],
            &[(buf(0), bytes(&input)), (buf(1), vec![0; 4 * n])],
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // matmul_tiled: (40 x 50) * (50 x 36), fma in k order over zero-padded tiles.
        let (m, k, p) = (40usize, 50usize, 36usize);
        let a: Vec<f32> = (0..m * k).map(|_| rng.f32_exp(-4, 1)).collect();
        let b: Vec<f32> = (0..k * p).map(|_| rng.f32_exp(-4, 1)).collect();
        let mut want = vec![0f32; m * p];
        for row in 0..m {
            for col in 0..p {
                let mut acc = 0f32;
                for kk in 0..k.div_ceil(16) * 16 {
                    let (x, y) = if kk < k {
                        (a[row * k + kk], b[kk * p + col])
                    } else {
                        (0.0, 0.0)
                    };
                    acc = x.mul_add(y, acc);
                }
                want[row * p + col] = acc;
            }
        }
        cases.push(co.case(
            "matmul_tiled",
            [p.div_ceil(16) as u32, m.div_ceil(16) as u32, 1],
            [16, 16, 1],
            &[
                Ptr(buf(0)),
                Ptr(buf(1)),
                Ptr(buf(2)),
                U32(m as u32),
                U32(k as u32),
                U32(p as u32),
            ],
            &[
                (buf(0), bytes(&a)),
                (buf(1), bytes(&b)),
                (buf(2), vec![0; 4 * m * p]),
            ],
            check(move |out| expect_at(out, "c", buf(2), &want)),
        ));
    });
}
