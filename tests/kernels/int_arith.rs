//! The `int_arith` kernel family (`int_arith.cl`): its inputs and its cases with their Rust references.

use super::harness::{check, groups, suite, Mode, BOTH};
use crate::common::kernels::{buf, bytes, expect_at, Arg, Rng};
use Arg::{Ptr, U32};

/// Random words with the edge values mixed in.
pub(super) fn ints_with_edges(rng: &mut Rng, n: usize) -> Vec<i32> {
    const EDGES: [i32; 8] = [0, 1, -1, i32::MIN, i32::MAX, 2, -2, 0x10000];
    (0..n)
        .map(|k| {
            if k % 7 == 3 {
                EDGES[rng.below(8) as usize]
            } else {
                rng.u32() as i32
            }
        })
        .collect()
}

/// Nonzero divisors: small, 16-bit and full range, both signs.
fn divisors32(rng: &mut Rng, n: usize) -> Vec<i32> {
    (0..n)
        .map(|_| {
            let v = match rng.below(3) {
                0 => 1 + rng.below(100) as i32,
                1 => 1 + rng.below(65535) as i32,
                _ => (rng.u32() >> 1) as i32 | 1,
            };
            if rng.u32() & 1 == 1 {
                -v
            } else {
                v
            }
        })
        .collect()
}

fn divisors64(rng: &mut Rng, n: usize) -> Vec<i64> {
    (0..n)
        .map(|_| {
            let v = match rng.below(4) {
                0 => 1 + rng.below(100) as i64,
                1 => 1 + rng.u32() as i64,
                2 => (rng.u64() >> 20) as i64 | 1,
                _ => (rng.u64() >> 1) as i64 | 1,
            };
            if rng.u32() & 1 == 1 {
                -v
            } else {
                v
            }
        })
        .collect()
}

pub(super) fn int_arith_suite(mode: Mode) {
    suite(
        mode,
        "int_arith",
        "int_arith.cl",
        12,
        &BOTH,
        |co, rng, cases| {
            let (n, block) = (500usize, 64u32);
            let grid = [groups(n, block), 1, 1];
            let blk = [block, 1, 1];
            let args = [Ptr(buf(0)), Ptr(buf(1)), Ptr(buf(2)), U32(n as u32)];

            // int_ops
            let a = ints_with_edges(rng, n);
            let b = ints_with_edges(rng, n);
            let mut want = Vec::new();
            for i in 0..n {
                let (x, y) = (a[i], b[i]);
                let (ux, uy) = (x as u32, y as u32);
                want.extend([
                    x.wrapping_add(y),
                    x.wrapping_sub(y),
                    x.wrapping_mul(y),
                    ((x as i64 * y as i64) >> 32) as i32,
                    ((ux as u64 * uy as u64) >> 32) as i32,
                    (x >> (y & 31)) ^ (ux >> (uy >> 27)) as i32,
                    x.min(y).wrapping_add(x.max(y).wrapping_mul(3)),
                    (x.abs_diff(y)
                        .wrapping_add((x < y) as u32)
                        .wrapping_add(if ux > uy { 2 } else { 0 })) as i32,
                ]);
            }
            cases.push(co.case(
                "int_ops",
                grid,
                blk,
                &args,
                &[
                    (buf(0), bytes(&a)),
                    (buf(1), bytes(&b)),
                    (buf(2), vec![0; 32 * n]),
                ],
                check(move |out| expect_at(out, "out", buf(2), &want)),
            ));

            // int_bits
            let a: Vec<u32> = ints_with_edges(rng, n)
                .into_iter()
                .map(|v| v as u32)
                .collect();
            let b = rng.u32s(n);
            let mut want = Vec::new();
            for i in 0..n {
                let (x, y) = (a[i], b[i]);
                want.extend([
                    x.count_ones(),
                    x.leading_zeros(),
                    x.trailing_zeros(),
                    x.reverse_bits(),
                    (x >> (y & 15)) & ((1u32 << ((y >> 8) & 15)) - 1),
                    x.rotate_left(y & 31),
                    x.swap_bytes() ^ y,
                    (((x << (y & 31)) as i32) >> (y & 31)) as u32,
                ]);
            }
            cases.push(co.case(
                "int_bits",
                grid,
                blk,
                &args,
                &[
                    (buf(0), bytes(&a)),
                    (buf(1), bytes(&b)),
                    (buf(2), vec![0; 32 * n]),
                ],
                check(move |out| expect_at(out, "out", buf(2), &want)),
            ));

            // int_div32
            let a = ints_with_edges(rng, n);
            let mut b = divisors32(rng, n);
            for i in 0..n {
                if a[i] == i32::MIN && b[i] == -1 {
                    b[i] = 3;
                }
            }
            let mut want = Vec::new();
            for i in 0..n {
                let (x, y) = (a[i], b[i]);
                want.extend([
                    x / y,
                    x % y,
                    ((x as u32) / (y as u32)) as i32,
                    ((x as u32) % (y as u32)) as i32,
                ]);
            }
            cases.push(co.case(
                "int_div32",
                grid,
                blk,
                &args,
                &[
                    (buf(0), bytes(&a)),
                    (buf(1), bytes(&b)),
                    (buf(2), vec![0; 16 * n]),
                ],
                check(move |out| expect_at(out, "out", buf(2), &want)),
            ));

            // int64_ops
            let a: Vec<i64> = (0..n).map(|_| rng.u64() as i64).collect();
            let b: Vec<i64> = (0..n)
                .map(|k| {
                    if k % 5 == 0 {
                        rng.u32() as i32 as i64
                    } else {
                        rng.u64() as i64
                    }
                })
                .collect();
            let mut want = Vec::new();
            for i in 0..n {
                let (x, y) = (a[i], b[i]);
                let (ux, uy) = (x as u64, y as u64);
                want.extend([
                    x.wrapping_add(y),
                    x.wrapping_sub(y.wrapping_mul(3)),
                    x.wrapping_mul(y),
                    (x << (y & 63)) ^ (ux >> (uy >> 58)) as i64,
                    ((ux as u128 * uy as u128) >> 64) as i64,
                    x.min(y).wrapping_add((ux > uy) as i64),
                ]);
            }
            cases.push(co.case(
                "int64_ops",
                grid,
                blk,
                &args,
                &[
                    (buf(0), bytes(&a)),
                    (buf(1), bytes(&b)),
                    (buf(2), vec![0; 48 * n]),
                ],
                check(move |out| expect_at(out, "out", buf(2), &want)),
            ));

            // int64_div
            let a: Vec<i64> = (0..n)
                .map(|k| {
                    if k % 4 == 0 {
                        rng.u32() as i64
                    } else {
                        rng.u64() as i64
                    }
                })
                .collect();
            let mut b = divisors64(rng, n);
            for i in 0..n {
                if a[i] == i64::MIN && b[i] == -1 {
                    b[i] = 7;
                }
            }
            let mut want = Vec::new();
            for i in 0..n {
                let (x, y) = (a[i], b[i]);
                want.extend([
                    x / y,
                    x % y,
                    ((x as u64) / (y as u64)) as i64,
                    ((x as u64) % (y as u64)) as i64,
                ]);
            }
            cases.push(co.case(
                "int64_div",
                grid,
                blk,
                &args,
                &[
                    (buf(0), bytes(&a)),
                    (buf(1), bytes(&b)),
                    (buf(2), vec![0; 32 * n]),
                ],
                check(move |out| expect_at(out, "out", buf(2), &want)),
            ));

            // mul_wide
            let a = rng.u32s(n);
            let b = rng.u32s(n);
            let mut want = Vec::new();
            for i in 0..n {
                let (x, y) = (a[i], b[i]);
                want.extend([
                    x as u64 * y as u64,
                    (x as i32 as i64).wrapping_mul(y as i32 as i64) as u64,
                    ((x & 0xff_ffff).wrapping_mul(y & 0xff_ffff).wrapping_add(x)) as u64,
                    ((x >> 8) as u64 * (y >> 8) as u64).wrapping_add((x as u64) << 32),
                ]);
            }
            cases.push(co.case(
                "mul_wide",
                grid,
                blk,
                &args,
                &[
                    (buf(0), bytes(&a)),
                    (buf(1), bytes(&b)),
                    (buf(2), vec![0; 32 * n]),
                ],
                check(move |out| expect_at(out, "out", buf(2), &want)),
            ));
        },
    );
}
