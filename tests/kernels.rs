//! The compiled kernel suite (issue 11): the OpenCL C kernels in `tests/kernels/` compiled by
//! clang-22 for gfx1100 (wave32 and wave64), gfx1200 and gfx950 at -O2 and -O0, dispatched by
//! `amdpcode dispatch --batch` under the interpreter and the JIT, and compared with a Rust
//! reference of the same computation on random inputs (fixed seeds). The engines must agree on
//! every byte; the reference comparison is exact except for the hardware's approximate f32
//! instructions (`f32_approx`, tolerances documented there).
//!
//! One test per kernel family (`.cl` file); each runs one batch process per engine. Without
//! clang-22/ld.lld-22/llvm-readelf-22 the tests print a notice and pass, except under `CI=true`.

mod common;

use common::kernels::{
    buf, bytes, compile, expect_at, expect_eq, expect_f32_near, f16_to_f64, f64_to_f16, kernarg,
    run_cases, toolchain, Arg, Case, Check, CodeObject, Opt, Output, Rng, Target,
};
use Arg::{Ptr, F32, U32};

const BOTH: [Opt; 2] = [Opt::O2, Opt::O0];

/// Which cases a family test runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Every case not listed in `GAPS`.
    Regular,
    /// Only the cases `GAPS` lists (the `*_known_gaps` tests, ignored by default).
    KnownGaps,
}

/// A kernel that fails on an amdpcode gap for some targets and levels. Its cases leave the
/// family test for the family's ignored `*_known_gaps` test, which still asserts the right
/// answer, so fixing the gap turns that test green.
struct Gap {
    kernel: &'static str,
    targets: &'static [Target],
    opts: &'static [Opt],
    reason: &'static str,
}

/// Every kernel of the suite (the `kernel` of a gap that covers them all).
const ANY: &str = "*";

/// Known gaps: none (every case of every target and level passes on both engines, Dec 2026).
/// A new gap goes here with its measured reason.
const GAPS: &[Gap] = &[];

fn gap_of(case: &Case) -> Option<&'static Gap> {
    GAPS.iter().find(|g| {
        (g.kernel == ANY || g.kernel == case.kernel)
            && g.targets.contains(&case.target)
            && g.opts.contains(&case.opt)
    })
}

/// Compiles `file` for every target at each level in `opts`, lets `build` add the cases for
/// that code object (inputs from a generator seeded by `seed`, the same for every target), and
/// runs the cases `mode` selects.
fn suite(
    mode: Mode,
    family: &str,
    file: &str,
    seed: u64,
    opts: &[Opt],
    build: impl Fn(&CodeObject, &mut Rng, &mut Vec<Case>),
) {
    let Some(tools) = toolchain() else {
        return;
    };
    let mut cases = Vec::new();
    for target in Target::ALL {
        for &opt in opts {
            let co = compile(tools, file, target, opt);
            let mut rng = Rng::new(seed);
            build(&co, &mut rng, &mut cases);
        }
    }
    let (gaps, regular): (Vec<Case>, Vec<Case>) =
        cases.into_iter().partition(|c| gap_of(c).is_some());
    match mode {
        Mode::Regular => {
            for c in &gaps {
                eprintln!(
                    "gap  {} (ignored: {})",
                    c.label,
                    gap_of(c).map_or("", |g| g.reason)
                );
            }
            run_cases(family, regular);
        }
        Mode::KnownGaps => {
            if !gaps.is_empty() {
                run_cases(&format!("{family}-gaps"), gaps);
            }
        }
    }
}

/// Groups needed to cover `n` items with groups of `block`.
fn groups(n: usize, block: u32) -> u32 {
    n.div_ceil(block as usize) as u32
}

fn check<F>(f: F) -> Check
where
    F: Fn(&Output) -> Result<(), String> + 'static,
{
    Box::new(f)
}

// ---------------------------------------------------------------------------------------------
// index.cl

fn index_suite(mode: Mode) {
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

#[test]
fn index() {
    index_suite(Mode::Regular);
}

/// The cases of `index` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored index_known_gaps"]
fn index_known_gaps() {
    index_suite(Mode::KnownGaps);
}

// ---------------------------------------------------------------------------------------------
// int_arith.cl

/// Random words with the edge values mixed in.
fn ints_with_edges(rng: &mut Rng, n: usize) -> Vec<i32> {
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

fn int_arith_suite(mode: Mode) {
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

#[test]
fn int_arith() {
    int_arith_suite(Mode::Regular);
}

/// The cases of `int_arith` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored int_arith_known_gaps"]
fn int_arith_known_gaps() {
    int_arith_suite(Mode::KnownGaps);
}

// ---------------------------------------------------------------------------------------------
// float_arith.cl

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

fn float_arith_suite(mode: Mode) {
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

#[test]
fn float_arith() {
    float_arith_suite(Mode::Regular);
}

/// The cases of `float_arith` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored float_arith_known_gaps"]
fn float_arith_known_gaps() {
    float_arith_suite(Mode::KnownGaps);
}

// ---------------------------------------------------------------------------------------------
// lds.cl

fn lds_suite(mode: Mode) {
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

#[test]
fn lds() {
    lds_suite(Mode::Regular);
}

/// The cases of `lds` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored lds_known_gaps"]
fn lds_known_gaps() {
    lds_suite(Mode::KnownGaps);
}

// ---------------------------------------------------------------------------------------------
// atomics.cl

fn atomics_suite(mode: Mode) {
    suite(
        mode,
        "atomics",
        "atomics.cl",
        15,
        &BOTH,
        |co, rng, cases| {
            // hist_global: 2000 values into 37 bins.
            let (n, block, nbins) = (2000usize, 128u32, 37u32);
            let data = rng.u32s(n);
            let mut want = vec![0u32; nbins as usize];
            for &v in &data {
                want[(v % nbins) as usize] += 1;
            }
            cases.push(co.case(
                "hist_global",
                [groups(n, block), 1, 1],
                [block, 1, 1],
                &[Ptr(buf(0)), Ptr(buf(1)), U32(n as u32), U32(nbins)],
                &[
                    (buf(0), bytes(&data)),
                    (buf(1), vec![0; 4 * nbins as usize]),
                ],
                check(move |out| expect_at(out, "bins", buf(1), &want)),
            ));

            // hist_lds: 64 LDS bins per group, merged with global atomics.
            let (n, block) = (2000usize, 256u32);
            let data = rng.u32s(n);
            let mut want = vec![0u32; 64];
            for &v in &data {
                want[(v & 63) as usize] += 1;
            }
            cases.push(co.case(
                "hist_lds",
                [groups(n, block), 1, 1],
                [block, 1, 1],
                &[Ptr(buf(0)), Ptr(buf(1)), U32(n as u32)],
                &[(buf(0), bytes(&data)), (buf(1), vec![0; 4 * 64])],
                check(move |out| expect_at(out, "bins", buf(1), &want)),
            ));

            // atomic_minmax
            let (n, block) = (1500usize, 128u32);
            let grid = groups(n, block) as usize;
            let data = rng.i32s(n);
            let init = [i32::MAX, i32::MIN, -1, 0];
            let want = [
                *data.iter().min().unwrap(),
                *data.iter().max().unwrap(),
                data.iter().map(|&v| v as u32).min().unwrap() as i32,
                data.iter().map(|&v| v as u32).max().unwrap() as i32,
            ];
            let mut want_group = Vec::new();
            for g in 0..grid {
                let part = &data[g * block as usize..((g + 1) * block as usize).min(n)];
                want_group.extend([*part.iter().min().unwrap(), *part.iter().max().unwrap()]);
            }
            cases.push(co.case(
                "atomic_minmax",
                [grid as u32, 1, 1],
                [block, 1, 1],
                &[Ptr(buf(0)), Ptr(buf(1)), Ptr(buf(2)), U32(n as u32)],
                &[
                    (buf(0), bytes(&data)),
                    (buf(1), bytes(&init)),
                    (buf(2), vec![0; 8 * grid]),
                ],
                check(move |out| {
                    expect_at(out, "global min/max", buf(1), &want)?;
                    expect_at(out, "LDS min/max per group", buf(2), &want_group)
                }),
            ));

            // cas_loops
            let (n, block, cap) = (1000usize, 64u32, 100_000u32);
            let grid = groups(n, block) as usize;
            let data = rng.u32s(n);
            let sum = data
                .iter()
                .fold(0u64, |s, &v| s.wrapping_add(v as u64 * 0x10001));
            let fmax = data
                .iter()
                .map(|&v| (v & 0xff_ffff) as f32 * 0.37f32)
                .fold(0f32, f32::max);
            let want_group: Vec<u32> = (0..grid)
                .map(|g| {
                    let part = &data[g * block as usize..((g + 1) * block as usize).min(n)];
                    part.iter().map(|&v| v & 0xfff).sum::<u32>().min(cap)
                })
                .collect();
            cases.push(co.case(
                "cas_loops",
                [grid as u32, 1, 1],
                [block, 1, 1],
                &[
                    Ptr(buf(0)),
                    Ptr(buf(1)),
                    Ptr(buf(2)),
                    Ptr(buf(3)),
                    U32(n as u32),
                    U32(cap),
                ],
                &[
                    (buf(0), bytes(&data)),
                    (buf(1), vec![0; 8]),
                    (buf(2), vec![0; 4]),
                    (buf(3), vec![0; 4 * grid]),
                ],
                check(move |out| {
                    expect_at(out, "u64 sum", buf(1), &[sum])?;
                    expect_at(out, "f32 max", buf(2), &[fmax])?;
                    expect_at(out, "saturated LDS sums", buf(3), &want_group)
                }),
            ));

            // compact: the multiset of multiples of 3, through an atomic counter.
            let (n, block) = (1000usize, 128u32);
            let data = rng.u32s(n);
            let mut chosen: Vec<u32> = data.iter().copied().filter(|v| v % 3 == 0).collect();
            chosen.sort_unstable();
            cases.push(co.case(
                "compact",
                [groups(n, block), 1, 1],
                [block, 1, 1],
                &[
                    Ptr(buf(0)),
                    Ptr(buf(1)),
                    Ptr(buf(2)),
                    Ptr(buf(3)),
                    U32(n as u32),
                ],
                &[
                    (buf(0), bytes(&data)),
                    (buf(1), vec![0xff; 4 * n]),
                    (buf(2), vec![0; 4]),
                    (buf(3), vec![0xff; 4]),
                ],
                check(move |out| {
                    let count = chosen.len();
                    expect_at(out, "count", buf(2), &[count as u32])?;
                    let mut got: Vec<u32> = out.read(buf(1), n)?;
                    expect_eq("untouched tail", &got[count..], &vec![u32::MAX; n - count])?;
                    got.truncate(count);
                    got.sort_unstable();
                    expect_eq("compacted values (sorted)", &got, &chosen)?;
                    let last: Vec<u32> = out.read(buf(3), 1)?;
                    if chosen.binary_search(&last[0]).is_err() {
                        return Err(format!(
                            "exchange left {:#x}, not one of the candidates",
                            last[0]
                        ));
                    }
                    Ok(())
                }),
            ));
        },
    );
}

#[test]
fn atomics() {
    atomics_suite(Mode::Regular);
}

/// The cases of `atomics` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored atomics_known_gaps"]
fn atomics_known_gaps() {
    atomics_suite(Mode::KnownGaps);
}

// ---------------------------------------------------------------------------------------------
// wave.cl: groups of 128 (4 or 2 waves), 3 groups; lane l of wave w is work-item w * W + l.

fn wave_suite(mode: Mode) {
    suite(mode, "wave", "wave.cl", 16, &BOTH, |co, rng, cases| {
        let wave = co.target.wave() as usize;
        let (block, grid) = (128u32, 3u32);
        let n = (block * grid) as usize;
        let lane = |i: usize| i % wave;
        let base = |i: usize| i - i % wave;
        let row = |i: usize| i - i % 16;
        let launch = |kernel: &str, args: &[Arg], mem: &[(u64, Vec<u8>)]| {
            co.launch(kernel, [grid, 1, 1], [block, 1, 1], args, mem)
        };

        // ballot_bits
        let data = rng.u32s(n);
        let mut want = Vec::new();
        for i in 0..n {
            let b = base(i);
            let mask = |f: &dyn Fn(u32) -> bool| {
                (0..wave)
                    .filter(|&l| f(data[b + l]))
                    .fold(0u64, |m, l| m | 1 << l)
            };
            let all = mask(&|v| v & 1 == 1);
            let sub = if data[i] & 2 != 0 {
                let m = mask(&|v| v & 3 == 3);
                (m as u32) ^ ((m >> 32) as u32)
            } else {
                u32::MAX
            };
            want.extend([
                all as u32,
                (all >> 32) as u32,
                (all & ((1u64 << lane(i)) - 1)).count_ones(),
                sub,
            ]);
        }
        let l = launch(
            "ballot_bits",
            &[Ptr(buf(0)), Ptr(buf(1))],
            &[(buf(0), bytes(&data)), (buf(1), vec![0; 16 * n])],
        );
        cases.push(Case::new(
            co,
            "ballot_bits",
            l,
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // first_lane
        let data = rng.u32s(n);
        let mut want = Vec::new();
        for i in 0..n {
            let b = base(i);
            let first4 = (0..wave).map(|l| data[b + l]).find(|v| v & 4 != 0);
            want.extend([
                data[b].wrapping_mul(3).wrapping_add(1),
                if data[i] & 4 != 0 {
                    first4.unwrap()
                } else {
                    0xdead_beef
                },
                data[b + 5],
                data[b + wave - 1] ^ 0x55,
            ]);
        }
        let l = launch(
            "first_lane",
            &[Ptr(buf(0)), Ptr(buf(1))],
            &[(buf(0), bytes(&data)), (buf(1), vec![0; 16 * n])],
        );
        cases.push(Case::new(
            co,
            "first_lane",
            l,
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // dpp_moves
        let data = rng.i32s(n);
        let mut want = Vec::new();
        for i in 0..n {
            let (r, rb) = (i % 16, row(i));
            let old = (i as i32).wrapping_mul(7);
            let shr3 = if r >= 3 { Some(data[i - 3]) } else { None };
            want.extend([
                shr3.unwrap_or(old),
                shr3.unwrap_or(0),
                data[i - i % 4 + 3 - i % 4],
                data[rb + (r + 16 - 5) % 16],
                data[rb + 15 - r],
                data[i].wrapping_add(if r >= 1 { data[i - 1] } else { 0 }),
            ]);
        }
        let l = launch(
            "dpp_moves",
            &[Ptr(buf(0)), Ptr(buf(1))],
            &[(buf(0), bytes(&data)), (buf(1), vec![0; 24 * n])],
        );
        cases.push(Case::new(
            co,
            "dpp_moves",
            l,
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // swizzle: ds_swizzle works on groups of 32 lanes.
        let data = rng.i32s(n);
        let mut want = Vec::new();
        for i in 0..n {
            let (j, g) = (i % 32, i - i % 32);
            let sum32 = data[g..g + 32].iter().fold(0i32, |s, &v| s.wrapping_add(v));
            want.extend([
                data[g + (j ^ 1)],
                data[g + ((j & 0x18) | 2)],
                data[i - i % 4 + 3 - i % 4],
                sum32,
            ]);
        }
        let l = launch(
            "swizzle",
            &[Ptr(buf(0)), Ptr(buf(1))],
            &[(buf(0), bytes(&data)), (buf(1), vec![0; 16 * n])],
        );
        cases.push(Case::new(
            co,
            "swizzle",
            l,
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // bpermute: lane `addr / 4 % span` of the wave, where span is 64 on CDNA (its text:
        // `/ 4U % 64U`) and 32 on RDNA, also in wave64 (AMD's RDNA text: "destination lane is
        // MOD 32 regardless of wave size"; not checked against wave64 hardware).
        let span = if co.target == Target::Gfx950 { 64 } else { 32 };
        let data = rng.i32s(n);
        let mut want = Vec::new();
        for i in 0..n {
            let (b, l) = (base(i), lane(i));
            let src = b + ((data[i] as u32 & 0xfc) as usize / 4) % span;
            want.extend([
                data[b + (wave - 1 - l) % span],
                data[b + (l * 7 + 3) % wave % span],
                data[src] ^ (src - b) as i32,
            ]);
        }
        let l = launch(
            "bpermute",
            &[Ptr(buf(0)), Ptr(buf(1))],
            &[(buf(0), bytes(&data)), (buf(1), vec![0; 12 * n])],
        );
        cases.push(Case::new(
            co,
            "bpermute",
            l,
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // permlane: v_permlane16/x16 on RDNA (selects from the arguments), the swaps on gfx950.
        let data = rng.u32s(n);
        let (sel_lo, sel_hi) = (0x7c5e_1a93u32, 0x0fb2_468du32);
        let sel = |r: usize, lo: u32, hi: u32| {
            (if r < 8 {
                lo >> (4 * r)
            } else {
                hi >> (4 * (r - 8))
            } & 15) as usize
        };
        let mut want = Vec::new();
        for i in 0..n {
            let old = (i as u32).wrapping_mul(5);
            let (r, rb) = (i % 16, row(i));
            if co.target == Target::Gfx950 {
                // v_permlane32_swap: lanes 32..63 of the first operand swap with lanes 0..31 of the
                // second; v_permlane16_swap: odd rows of the first with even rows of the second.
                let (x32, y32) = if lane(i) < 32 {
                    (old, ((i + 32) as u32).wrapping_mul(5))
                } else {
                    (data[i - 32], data[i])
                };
                let odd = (i / 16) % 2 == 1;
                let (x16, y16) = if odd {
                    (data[i - 16], data[i])
                } else {
                    (old, ((i + 16) as u32).wrapping_mul(5))
                };
                want.extend([x32, y32, x16, y16]);
            } else {
                let other = rb ^ 16;
                want.extend([
                    data[rb + sel(r, sel_lo, sel_hi)],
                    data[other + sel(r, sel_lo, sel_hi)],
                    data[rb + sel(r, sel_hi, sel_lo)].wrapping_add(data[i]),
                    data[other + sel(r, sel_hi, sel_lo)] ^ sel_lo,
                ]);
            }
        }
        let l = launch(
            "permlane",
            &[Ptr(buf(0)), Ptr(buf(1)), U32(sel_lo), U32(sel_hi)],
            &[(buf(0), bytes(&data)), (buf(1), vec![0; 16 * n])],
        );
        cases.push(Case::new(
            co,
            "permlane",
            l,
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // wave_sum
        let data = rng.u32s(n);
        let want: Vec<u32> = data
            .chunks(wave)
            .map(|c| c.iter().fold(0u32, |s, &v| s.wrapping_add(v)))
            .collect();
        let l = launch(
            "wave_sum",
            &[Ptr(buf(0)), Ptr(buf(1))],
            &[(buf(0), bytes(&data)), (buf(1), vec![0; 4 * (n / wave)])],
        );
        cases.push(Case::new(
            co,
            "wave_sum",
            l,
            check(move |out| expect_at(out, "sums", buf(1), &want)),
        ));
    });
}

#[test]
fn wave() {
    wave_suite(Mode::Regular);
}

/// The cases of `wave` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored wave_known_gaps"]
fn wave_known_gaps() {
    wave_suite(Mode::KnownGaps);
}

// ---------------------------------------------------------------------------------------------
// scratch.cl

fn scratch_suite(mode: Mode) {
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

#[test]
fn scratch() {
    scratch_suite(Mode::Regular);
}

/// The cases of `scratch` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored scratch_known_gaps"]
fn scratch_known_gaps() {
    scratch_suite(Mode::KnownGaps);
}

// ---------------------------------------------------------------------------------------------
// calls.cl

fn poly(x: i32, a: i32, b: i32, c: i32) -> i32 {
    a.wrapping_mul(x)
        .wrapping_add(b)
        .wrapping_mul(x)
        .wrapping_add(c)
}

fn mix64(x: i64, y: i64) -> i64 {
    (x ^ (y << 7)).wrapping_mul(0x9e37_79b9_7f4a_7c15_u64 as i64)
}

fn calls_suite(mode: Mode) {
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

#[test]
fn calls() {
    calls_suite(Mode::Regular);
}

/// The cases of `calls` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored calls_known_gaps"]
fn calls_known_gaps() {
    calls_suite(Mode::KnownGaps);
}

// ---------------------------------------------------------------------------------------------
// matrix.cl: one 16 x 16 tile per one-wave group, 3 tiles.

fn matrix_suite(mode: Mode) {
    suite(mode, "matrix", "matrix.cl", 19, &BOTH, |co, rng, cases| {
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

        // mma_i8: signed bytes; K = 32 on gfx950 (v_mfma_i32_16x16x32_i8), 16 on RDNA.
        let kdim = if co.target == Target::Gfx950 { 32 } else { 16 };
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

#[test]
fn matrix() {
    matrix_suite(Mode::Regular);
}

/// The cases of `matrix` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored matrix_known_gaps"]
fn matrix_known_gaps() {
    matrix_suite(Mode::KnownGaps);
}

// ---------------------------------------------------------------------------------------------
// The harness itself.

/// The natural-alignment layout the suite uses agrees with the compiler's metadata for every
/// kernel of every file and target, and a wrong layout is caught.
#[test]
fn kernarg_layout_matches_metadata() {
    let Some(tools) = toolchain() else {
        return;
    };
    let files = [
        "index.cl",
        "int_arith.cl",
        "float_arith.cl",
        "lds.cl",
        "atomics.cl",
        "wave.cl",
        "scratch.cl",
        "calls.cl",
        "matrix.cl",
    ];
    let mut kernels = 0;
    for target in Target::ALL {
        for file in files {
            let co = compile(tools, file, target, Opt::O2);
            for (name, meta) in &co.kernels {
                // Our layout from the metadata's own kinds and sizes.
                let args: Vec<Arg> = meta
                    .args
                    .iter()
                    .map(|a| match (a.kind.as_str(), a.size) {
                        ("global_buffer", 8) => Ptr(0),
                        ("by_value", 4) => U32(0),
                        other => panic!("{name}: unexpected argument {other:?}"),
                    })
                    .collect();
                let bytes = kernarg(meta, &args)
                    .unwrap_or_else(|e| panic!("{name} {}: {e}", target.name()));
                assert!(
                    bytes.len() <= meta.kernarg_size,
                    "{name}: {} > {}",
                    bytes.len(),
                    meta.kernarg_size
                );
                // Hidden arguments, when the kernel uses any, follow the explicit ones (checked by
                // `kernarg`); a kernel that reads none has none.
                kernels += 1;
            }
        }
    }
    assert_eq!(kernels, 4 * 42, "kernels in tests/kernels per target");
    // saxpy_arg(float, ptr, ptr, uint, uint): the pointer after the float is aligned to 8.
    let co = compile(tools, "index.cl", Target::Gfx1100, Opt::O2);
    let meta = &co.kernels["saxpy_arg"];
    let offsets: Vec<usize> = meta.args.iter().map(|a| a.offset).collect();
    assert_eq!(offsets, [0, 8, 16, 24, 28]);
    // Swapping the float and a pointer is caught.
    assert!(kernarg(meta, &[Ptr(0), F32(1.0), Ptr(0), U32(0), U32(0)]).is_err());
    assert!(kernarg(meta, &[F32(1.0), Ptr(0), Ptr(0), U32(0)]).is_err());
}

/// The binary16 helpers the half references rely on.
#[test]
fn f16_conversions() {
    assert_eq!(f64_to_f16(1.0), 0x3c00);
    assert_eq!(f64_to_f16(-2.5), 0xc100);
    assert_eq!(f64_to_f16(65504.0), 0x7bff);
    assert_eq!(f64_to_f16(65520.0), 0x7c00);
    assert_eq!(f64_to_f16(2f64.powi(-24)), 0x0001);
    assert_eq!(f64_to_f16(2f64.powi(-25)), 0x0000); // tie to even
    assert_eq!(f64_to_f16(1.0 + 2f64.powi(-11)), 0x3c00); // tie to even
    assert_eq!(f64_to_f16(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02); // tie to even (up)
    assert_eq!(f64_to_f16(2f64.powi(-14) - 2f64.powi(-25)), 0x0400); // rounds up to the smallest normal
    for h in (0u16..0x7c00).step_by(7) {
        assert_eq!(f64_to_f16(f16_to_f64(h)), h);
        assert_eq!(f64_to_f16(-f16_to_f64(h)), h | 0x8000);
    }
}
