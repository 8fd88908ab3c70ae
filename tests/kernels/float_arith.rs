//! The `float_arith` kernel family (`float_arith.cl`): its inputs and its cases with their Rust references.

use super::harness::{check, groups, suite, Mode, BOTH};
use crate::common::kernels::{
    buf, bytes, expect_at, expect_f32_near, f16_to_f64, f64_to_f16, Arg, Rng,
};
use Arg::{Ptr, U32};

/// f32 inputs: normal values over a wide range, every 11th a subnormal.
fn f32_inputs(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n)
        .map(|k| {
            if k % 11 == 5 {
                f32::from_bits((rng.u32() & 0x807f_ffff) | 1)
            } else {
                rng.f32_exp(-40, 40)
            }
        })
        .collect()
}

/// Random binary16 values in +-[2^-4, 16): their sums, products and fmas are exact in f64.
fn f16_inputs(rng: &mut Rng, n: usize) -> Vec<u16> {
    (0..n)
        .map(|_| {
            let exp = 11 + rng.below(8) as u16;
            ((rng.u32() & 1) as u16) << 15 | exp << 10 | (rng.u32() & 0x3ff) as u16
        })
        .collect()
}

pub(super) fn float_arith_suite(mode: Mode) {
    suite(
        mode,
        "float_arith",
        "float_arith.cl",
        13,
        &BOTH,
        |co, rng, cases| {
            let (n, block) = (400usize, 64u32);
            let grid = [groups(n, block), 1, 1];
            let blk = [block, 1, 1];

            // f32_ops: exact IEEE results (subnormals preserved: the kernels' FP mode keeps them).
            let a = f32_inputs(rng, n);
            let b = f32_inputs(rng, n);
            let c = f32_inputs(rng, n);
            let mut want = Vec::new();
            for i in 0..n {
                let (x, y, z) = (a[i], b[i], c[i]);
                let k = (y.to_bits() & 15) as i32 - 7;
                want.extend([
                    x + y,
                    x * y,
                    x.mul_add(y, z),
                    x - z,
                    x.min(y),
                    x.max(z),
                    x.abs() * -y,
                    (x as f64 * 2f64.powi(k)) as f32,
                ]);
            }
            cases.push(co.case(
                "f32_ops",
                grid,
                blk,
                &[
                    Ptr(buf(0)),
                    Ptr(buf(1)),
                    Ptr(buf(2)),
                    Ptr(buf(3)),
                    U32(n as u32),
                ],
                &[
                    (buf(0), bytes(&a)),
                    (buf(1), bytes(&b)),
                    (buf(2), bytes(&c)),
                    (buf(3), vec![0; 32 * n]),
                ],
                check(move |out| expect_at(out, "out", buf(3), &want)),
            ));

            // f32_convert: values with fractions, ties (k + 0.5) and large magnitudes below 2^30.
            let a: Vec<f32> = (0..n)
                .map(|k| match k % 3 {
                    0 => (rng.below(2001) as i32 - 1000) as f32 + 0.5,
                    1 => rng.f32_exp(-3, 29),
                    _ => rng.f32_exp(-30, 10),
                })
                .collect();
            let mut want = Vec::new();
            for &x in &a {
                want.extend([
                    x.floor().to_bits(),
                    x.ceil().to_bits(),
                    x.trunc().to_bits(),
                    x.round_ties_even().to_bits(),
                    x as i32 as u32,
                    (x.to_bits() as i32 as f32).to_bits(),
                    (x.to_bits() as f32).to_bits(),
                    (x - x.floor()).to_bits(),
                ]);
            }
            cases.push(co.case(
                "f32_convert",
                grid,
                blk,
                &[Ptr(buf(0)), Ptr(buf(1)), U32(n as u32)],
                &[(buf(0), bytes(&a)), (buf(1), vec![0; 32 * n])],
                check(move |out| expect_at(out, "out", buf(1), &want)),
            ));

            // f32_approx: the approximate instructions, within documented tolerances: x / y within
            // 3 ulp (OpenCL allows 2.5), sqrt 3 ulp (OpenCL: 3), v_rcp_f32 / v_exp_f32 / v_log_f32
            // 2 ulp (the ISA guide gives 1 ulp; one more for the f64 reference's own rounding).
            let a: Vec<f32> = (0..n).map(|_| rng.f32_exp(-20, 20)).collect();
            let b: Vec<f32> = (0..n).map(|_| rng.f32_exp(-20, 20)).collect();
            let mut want = [Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new()];
            for i in 0..n {
                let (x, y) = (a[i] as f64, b[i] as f64);
                want[0].push((x / y) as f32);
                want[1].push(x.abs().sqrt() as f32);
                want[2].push((1.0 / y) as f32);
                want[3].push((x * 2f64.powi(-24)).exp2() as f32);
                want[4].push(y.abs().log2() as f32);
            }
            cases.push(co.case(
                "f32_approx",
                grid,
                blk,
                &[Ptr(buf(0)), Ptr(buf(1)), Ptr(buf(2)), U32(n as u32)],
                &[
                    (buf(0), bytes(&a)),
                    (buf(1), bytes(&b)),
                    (buf(2), vec![0; 20 * n]),
                ],
                check(move |out| {
                    let got: Vec<f32> = out.read(buf(2), 5 * n)?;
                    let col = |c: usize| (0..n).map(|i| got[5 * i + c]).collect::<Vec<f32>>();
                    expect_f32_near("x / y", &col(0), &want[0], 3)?;
                    expect_f32_near("sqrt", &col(1), &want[1], 3)?;
                    expect_f32_near("rcp", &col(2), &want[2], 2)?;
                    expect_f32_near("exp2", &col(3), &want[3], 2)?;
                    expect_f32_near("log2", &col(4), &want[4], 2)
                }),
            ));

            // f64_ops: correctly rounded (OpenCL requires it for double division and sqrt).
            let a: Vec<f64> = (0..n).map(|_| rng.f64_exp(-30, 30)).collect();
            let b: Vec<f64> = (0..n).map(|_| rng.f64_exp(-30, 30)).collect();
            let c: Vec<f64> = (0..n).map(|_| rng.f64_exp(-30, 30)).collect();
            let mut want = Vec::new();
            for i in 0..n {
                let (x, y, z) = (a[i], b[i], c[i]);
                want.extend([
                    x + y,
                    x * y,
                    x.mul_add(y, z),
                    x / y,
                    x.abs().sqrt(),
                    z.floor() + x.min(y),
                    x as f32 as f64,
                    (z * 1048576.0) as i64 as f64,
                ]);
            }
            cases.push(co.case(
                "f64_ops",
                grid,
                blk,
                &[
                    Ptr(buf(0)),
                    Ptr(buf(1)),
                    Ptr(buf(2)),
                    Ptr(buf(3)),
                    U32(n as u32),
                ],
                &[
                    (buf(0), bytes(&a)),
                    (buf(1), bytes(&b)),
                    (buf(2), bytes(&c)),
                    (buf(3), vec![0; 64 * n]),
                ],
                check(move |out| expect_at(out, "out", buf(3), &want)),
            ));

            // half_packed: half2 lanes, each result rounded once from the exact f64 value.
            let a = f16_inputs(rng, 2 * n);
            let b = f16_inputs(rng, 2 * n);
            let c = f16_inputs(rng, 2 * n);
            let h = |v: u16| f16_to_f64(v);
            let mut want = Vec::new();
            for i in 0..n {
                let lanes = |f: &dyn Fn(usize) -> u16| [f(2 * i), f(2 * i + 1)];
                want.extend(lanes(&|k| f64_to_f16(h(a[k]) + h(b[k]))));
                want.extend(lanes(&|k| f64_to_f16(h(a[k]) * h(b[k]))));
                want.extend(lanes(&|k| f64_to_f16(h(a[k]) * h(b[k]) + h(c[k]))));
                want.extend(lanes(&|k| f64_to_f16(h(a[k]) - h(c[k]))));
                want.extend(lanes(&|k| if h(a[k]) <= h(b[k]) { a[k] } else { b[k] }));
                want.extend([
                    f64_to_f16(h(a[2 * i]) * 2.0),
                    f64_to_f16(h(b[2 * i + 1]) + 1.0),
                ]);
            }
            cases.push(co.case(
                "half_packed",
                grid,
                blk,
                &[
                    Ptr(buf(0)),
                    Ptr(buf(1)),
                    Ptr(buf(2)),
                    Ptr(buf(3)),
                    U32(n as u32),
                ],
                &[
                    (buf(0), bytes(&a)),
                    (buf(1), bytes(&b)),
                    (buf(2), bytes(&c)),
                    (buf(3), vec![0; 24 * n]),
                ],
                check(move |out| expect_at(out, "out", buf(3), &want)),
            ));
        },
    );
}
