//! The `index` kernel family (`index.cl`): its inputs and its cases with their Rust references.

use super::harness::{check, groups, suite, Mode, BOTH};
use crate::common::kernels::{buf, bytes, expect_at, Arg};
use Arg::{Ptr, F32, U32};

pub(super) fn index_suite(mode: Mode) {
    suite(mode, "index", "index.cl", 11, &BOTH, |co, rng, cases| {
        // vadd_1d: 1000 items in groups of 64, the last group partial; words past n untouched.
        let (n, block) = (1000usize, 64u32);
        let grid = groups(n, block);
        let a = rng.i32s(n);
        let b = rng.i32s(n);
        let c0 = vec![0x5a5a_5a5a_i32; (grid * block) as usize];
        let mut want = c0.clone();
        for i in 0..n {
            want[i] = a[i].wrapping_add(b[i]);
        }
        cases.push(co.case(
            "vadd_1d",
            [grid, 1, 1],
            [block, 1, 1],
            &[Ptr(buf(0)), Ptr(buf(1)), Ptr(buf(2)), U32(n as u32)],
            &[
                (buf(0), bytes(&a)),
                (buf(1), bytes(&b)),
                (buf(2), bytes(&c0)),
            ],
            check(move |out| expect_at(out, "c", buf(2), &want)),
        ));

        // saxpy_arg: the block size is an argument.
        let (n, block) = (777usize, 128u32);
        let alpha = 1.375f32;
        let x: Vec<f32> = (0..n).map(|_| rng.f32_exp(-10, 10)).collect();
        let y: Vec<f32> = (0..n).map(|_| rng.f32_exp(-10, 10)).collect();
        let want: Vec<f32> = (0..n).map(|i| alpha.mul_add(x[i], y[i])).collect();
        cases.push(co.case(
            "saxpy_arg",
            [groups(n, block), 1, 1],
            [block, 1, 1],
            &[
                F32(alpha),
                Ptr(buf(0)),
                Ptr(buf(1)),
                U32(n as u32),
                U32(block),
            ],
            &[(buf(0), bytes(&x)), (buf(1), bytes(&y))],
            check(move |out| expect_at(out, "y", buf(1), &want)),
        ));

        // index_2d: 37 x 21 items in 8 x 4 groups (5 x 6 of them; partial in x and y).
        let (w, h, bx, by) = (37u32, 21u32, 8u32, 4u32);
        let (gx, gy) = (w.div_ceil(bx), h.div_ceil(by));
        let out0 = vec![u32::MAX; (w * h) as usize];
        let mut want = out0.clone();
        for y in 0..h {
            for x in 0..w {
                want[(y * w + x) as usize] = (x << 16) | y;
            }
        }
        let info = [bx, by, 1, gx * bx, gy * by, 1];
        cases.push(co.case(
            "index_2d",
            [gx, gy, 1],
            [bx, by, 1],
            &[Ptr(buf(0)), Ptr(buf(1)), U32(w), U32(h)],
            &[(buf(0), bytes(&out0)), (buf(1), bytes(&[0u32; 6]))],
            check(move |out| {
                expect_at(out, "out", buf(0), &want)?;
                expect_at(out, "dispatch packet sizes", buf(1), &info)
            }),
        ));

        // index_3d: 13 x 7 x 5 items in 4 x 4 x 2 groups (4 x 2 x 3 of them).
        let (nx, ny, nz) = (13u32, 7u32, 5u32);
        let (lx, ly, lz) = (4u32, 4u32, 2u32);
        let (gx, gy, gz) = (nx.div_ceil(lx), ny.div_ceil(ly), nz.div_ceil(lz));
        let out0 = vec![u32::MAX; (nx * ny * nz) as usize];
        let mut want = out0.clone();
        for z in 0..nz {
            for y in 0..ny {
                for x in 0..nx {
                    let (bx, by, bz) = (x / lx, y / ly, z / lz);
                    let last = (bx + 1 == gx) as u32
                        | ((by + 1 == gy) as u32) << 1
                        | ((bz + 1 == gz) as u32) << 2;
                    want[((z * ny + y) * nx + x) as usize] = (bx << 24)
                        | (by << 20)
                        | (bz << 16)
                        | ((x % lx) << 10)
                        | ((y % ly) << 6)
                        | ((z % lz) << 3)
                        | last;
                }
            }
        }
        let info = [gx, gy, gz, lx, ly, lz];
        cases.push(co.case(
            "index_3d",
            [gx, gy, gz],
            [lx, ly, lz],
            &[Ptr(buf(0)), Ptr(buf(1)), U32(nx), U32(ny), U32(nz)],
            &[(buf(0), bytes(&out0)), (buf(1), bytes(&[0u32; 6]))],
            check(move |out| {
                expect_at(out, "out", buf(0), &want)?;
                expect_at(out, "implicit block counts and group sizes", buf(1), &info)
            }),
        ));

        // grid_stride: 5 groups of 64 cover 3000 items.
        let n = 3000usize;
        let input = rng.u32s(n);
        let want: Vec<u32> = (0..n)
            .map(|i| input[i].wrapping_mul(2_654_435_761).wrapping_add(i as u32))
            .collect();
        cases.push(co.case(
            "grid_stride",
            [5, 1, 1],
            [64, 1, 1],
            &[Ptr(buf(0)), Ptr(buf(1)), U32(n as u32)],
            &[(buf(0), bytes(&input)), (buf(1), vec![0; 4 * n])],
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));
    });
}
