//! The `scratch` kernel family (`scratch.cl`): its inputs and its cases with their Rust references.

use super::harness::{check, groups, suite, Mode, BOTH};
use crate::common::kernels::{buf, bytes, expect_at, Arg};
use Arg::{Ptr, U32};

pub(super) fn scratch_suite(mode: Mode) {
    suite(
        mode,
        "scratch",
        "scratch.cl",
        17,
        &BOTH,
        |co, rng, cases| {
            let block = 64u32;

            // private_lookup
            let n = 300usize;
            let input = rng.u32s(n);
            let idx = rng.u32s(n);
            let mut want = Vec::new();
            for i in 0..n {
                let x = input[i];
                let mut table: Vec<u32> = (0..48u32)
                    .map(|k| x.wrapping_mul(k + 1) ^ (k << 20))
                    .collect();
                let j = idx[i];
                let at = |s: u32| ((j >> s) % 48) as usize;
                table[at(16)] = table[at(16)].wrapping_add(j);
                want.extend([
                    table[at(0)].wrapping_add(table[at(8)]),
                    table[at(16)] ^ table[at(24)],
                ]);
            }
            cases.push(co.case(
                "private_lookup",
                [groups(n, block), 1, 1],
                [block, 1, 1],
                &[Ptr(buf(0)), Ptr(buf(1)), Ptr(buf(2)), U32(n as u32)],
                &[
                    (buf(0), bytes(&input)),
                    (buf(1), bytes(&idx)),
                    (buf(2), vec![0; 8 * n]),
                ],
                check(move |out| expect_at(out, "out", buf(2), &want)),
            ));

            // private_sort
            let n = 100usize;
            let input = rng.i32s(32 * n);
            let mut want = input.clone();
            for row in want.chunks_mut(32) {
                row.sort_unstable();
            }
            cases.push(co.case(
                "private_sort",
                [groups(n, block), 1, 1],
                [block, 1, 1],
                &[Ptr(buf(0)), Ptr(buf(1)), U32(n as u32)],
                &[(buf(0), bytes(&input)), (buf(1), vec![0; 128 * n])],
                check(move |out| expect_at(out, "out", buf(1), &want)),
            ));

            // private_small
            let n = 200usize;
            let input: Vec<f32> = (0..8 * n).map(|_| rng.f32_exp(-10, 10)).collect();
            let idx = rng.u32s(n);
            let mut want = Vec::new();
            for i in 0..n {
                let mut v = input[8 * i..8 * i + 8].to_vec();
                let j = idx[i] as usize;
                v[j & 7] = v[(j >> 3) & 7] * 2.0;
                want.extend([v[(j >> 6) & 7], v[(j >> 9) & 7] - v[j & 7]]);
            }
            cases.push(co.case(
                "private_small",
                [groups(n, block), 1, 1],
                [block, 1, 1],
                &[Ptr(buf(0)), Ptr(buf(1)), Ptr(buf(2)), U32(n as u32)],
                &[
                    (buf(0), bytes(&input)),
                    (buf(1), bytes(&idx)),
                    (buf(2), vec![0; 8 * n]),
                ],
                check(move |out| expect_at(out, "out", buf(2), &want)),
            ));
        },
    );
}
