//! The `calls` kernel family (`calls.cl`): its inputs and its cases with their Rust references.

use super::harness::{check, groups, suite, Mode, BOTH};
use crate::common::kernels::{buf, bytes, expect_at, Arg};
use Arg::{Ptr, U32};

use super::int_arith::ints_with_edges;

fn poly(x: i32, a: i32, b: i32, c: i32) -> i32 {
    a.wrapping_mul(x)
        .wrapping_add(b)
        .wrapping_mul(x)
        .wrapping_add(c)
}

fn mix64(x: i64, y: i64) -> i64 {
    (x ^ (y << 7)).wrapping_mul(0x9e37_79b9_7f4a_7c15_u64 as i64)
}

pub(super) fn calls_suite(mode: Mode) {
    suite(mode, "calls", "calls.cl", 18, &BOTH, |co, rng, cases| {
        let (n, block) = (300usize, 64u32);
        let grid = [groups(n, block), 1, 1];
        let blk = [block, 1, 1];

        // call_basic
        let a = ints_with_edges(rng, n);
        let b = ints_with_edges(rng, n);
        let mut want = Vec::new();
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            want.extend([
                poly(x, y, 17, 4) as i64,
                mix64(x as i64, y as i64),
                poly(y, x, 3, -5).wrapping_add(mix64(y as i64, x as i64) as i32) as i64,
            ]);
        }
        cases.push(co.case(
            "call_basic",
            grid,
            blk,
            &[Ptr(buf(0)), Ptr(buf(1)), Ptr(buf(2)), U32(n as u32)],
            &[
                (buf(0), bytes(&a)),
                (buf(1), bytes(&b)),
                (buf(2), vec![0; 24 * n]),
            ],
            check(move |out| expect_at(out, "out", buf(2), &want)),
        ));

        // call_private
        let seeds = rng.u32s(n);
        let mut want = Vec::new();
        for &seed in &seeds {
            let mut s = seed;
            let table: Vec<u32> = (0..24)
                .map(|_| {
                    s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    s >> 8
                })
                .collect();
            let picked = (0..24)
                .filter(|k| seed & (1 << k) != 0)
                .fold(0u32, |acc, k| acc.wrapping_add(table[k]));
            want.extend([picked, table[(seed % 24) as usize]]);
        }
        cases.push(co.case(
            "call_private",
            grid,
            blk,
            &[Ptr(buf(0)), Ptr(buf(1)), U32(n as u32)],
            &[(buf(0), bytes(&seeds)), (buf(1), vec![0; 8 * n])],
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // call_stack_args: 40 arguments.
        let a = ints_with_edges(rng, n);
        let want: Vec<i32> = a
            .iter()
            .map(|&x| {
                let mut acc = 0i32;
                for k in 1..=5i32 {
                    let vals = [
                        x.wrapping_add(k),
                        x.wrapping_mul(k + 1),
                        x ^ k,
                        x.wrapping_sub(k),
                        x.wrapping_add(2 * k),
                        x.wrapping_mul(3).wrapping_add(k),
                        x >> (k & 7),
                        k.wrapping_sub(x),
                    ];
                    let w = 1 + 10 * (k - 1);
                    let sum = vals.iter().enumerate().fold(0i32, |s, (j, &v)| {
                        s.wrapping_add(v.wrapping_mul(w + j as i32))
                    });
                    acc ^= sum;
                }
                acc
            })
            .collect();
        cases.push(co.case(
            "call_stack_args",
            grid,
            blk,
            &[Ptr(buf(0)), Ptr(buf(1)), U32(n as u32)],
            &[(buf(0), bytes(&a)), (buf(1), vec![0; 4 * n])],
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));
    });
}
