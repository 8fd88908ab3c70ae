//! f32 and f64 arithmetic, conversions and comparisons against the host, as property tests.

use super::*;

fn f32_bits() -> impl Strategy<Value = u32> {
    let edges = vec![
        0u32,
        0x0000_0001,
        0x007f_ffff,
        0x0080_0000,
        0x0080_0001,
        0x00ff_ffff,
        0x3380_0000,
        0x3400_0000,
        0x3f7f_ffff,
        0x3f80_0000,
        0x3f80_0001,
        0x4000_0000,
        0x4b80_0000,
        0x4f00_0000,
        0x5f00_0000,
        0x7f00_0000,
        0x7f7f_fffe,
        0x7f7f_ffff,
        0x7f80_0000,
        0x7f80_0001,
        0x7fa0_0000,
        0x7fbf_ffff,
        0x7fc0_0000,
        0x7fff_ffff,
    ];
    let with_sign = |(negative, m): (bool, u32)| m | (u32::from(negative) << 31);
    prop_oneof![
        4 => any::<u32>(),
        3 => (any::<bool>(), proptest::sample::select(edges)).prop_map(with_sign),
        2 => (any::<bool>(), 0u32..0x0100_0000).prop_map(with_sign),
        2 => (any::<bool>(), 0x3f7f_ff00u32..0x3f80_0100).prop_map(with_sign),
        1 => (any::<bool>(), 0x7f7f_ff00u32..0x7f80_0000).prop_map(with_sign),
        3 => (any::<bool>(), 100u32..160, any::<u32>())
            .prop_map(move |(s, e, m)| with_sign((s, (e << 23) | (m & 0x7f_ffff)))),
    ]
}

fn f64_bits() -> impl Strategy<Value = u64> {
    let edges = vec![
        0u64,
        1,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x0010_0000_0000_0001,
        0x3ca0_0000_0000_0000,
        0x3cb0_0000_0000_0000,
        0x3fef_ffff_ffff_ffff,
        0x3ff0_0000_0000_0000,
        0x3ff0_0000_0000_0001,
        0x4340_0000_0000_0000,
        0x7fe0_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0x7ff4_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7fff_ffff_ffff_ffff,
    ];
    let with_sign = |(negative, m): (bool, u64)| m | (u64::from(negative) << 63);
    prop_oneof![
        4 => any::<u64>(),
        3 => (any::<bool>(), proptest::sample::select(edges)).prop_map(with_sign),
        2 => (any::<bool>(), 0u64..0x0020_0000_0000_0000).prop_map(with_sign),
        2 => (any::<bool>(), 0x3fef_ffff_ffff_ff00u64..0x3ff0_0000_0000_0100).prop_map(with_sign),
        1 => (any::<bool>(), 0x7fef_ffff_ffff_ff00u64..0x7ff0_0000_0000_0000).prop_map(with_sign),
        3 => (any::<bool>(), 990u64..1060, any::<u64>())
            .prop_map(move |(s, e, m)| with_sign((s, (e << 52) | (m & 0x000f_ffff_ffff_ffff)))),
    ]
}

/// A second operand near the first (exponent within ±30), to exercise cancellation.
fn f32_pair() -> impl Strategy<Value = (u32, u32)> {
    prop_oneof![
        (f32_bits(), f32_bits()),
        (f32_bits(), -30i32..30, any::<u32>(), any::<bool>()).prop_map(|(a, de, m, s)| {
            let e = (((a >> 23) & 0xff) as i32 + de).clamp(0, 255) as u32;
            (a, (u32::from(s) << 31) | (e << 23) | (m & 0x7f_ffff))
        }),
    ]
}

fn f64_pair() -> impl Strategy<Value = (u64, u64)> {
    prop_oneof![
        (f64_bits(), f64_bits()),
        (f64_bits(), -60i64..60, any::<u64>(), any::<bool>()).prop_map(|(a, de, m, s)| {
            let e = (((a >> 52) & 0x7ff) as i64 + de).clamp(0, 0x7ff) as u64;
            (
                a,
                (u64::from(s) << 63) | (e << 52) | (m & 0x000f_ffff_ffff_ffff),
            )
        }),
    ]
}

/// fma operands, sometimes with `c` close to `-(a*b)` to force massive cancellation.
fn f32_triple() -> impl Strategy<Value = (u32, u32, u32)> {
    prop_oneof![
        (f32_bits(), f32_bits(), f32_bits()),
        (f32_pair(), f32_bits()).prop_map(|((a, b), c)| (a, b, c)),
        (f32_bits(), f32_bits(), -3i32..4).prop_map(|(a, b, k)| {
            let p = -(f32::from_bits(a) * f32::from_bits(b));
            (a, b, p.to_bits().wrapping_add(k as u32))
        }),
    ]
}

fn f64_triple() -> impl Strategy<Value = (u64, u64, u64)> {
    prop_oneof![
        (f64_bits(), f64_bits(), f64_bits()),
        (f64_pair(), f64_bits()).prop_map(|((a, b), c)| (a, b, c)),
        (f64_bits(), f64_bits(), -3i64..4).prop_map(|(a, b, k)| {
            let p = -(f64::from_bits(a) * f64::from_bits(b));
            (a, b, p.to_bits().wrapping_add(k as u64))
        }),
    ]
}

fn host_f32(op: Op, a: u32, b: u32, c: u32) -> u32 {
    let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
    match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Div => x / y,
        Op::Sqrt => x.sqrt(),
        Op::Fma => x.mul_add(y, z),
    }
    .to_bits()
}

fn host_f64(op: Op, a: u64, b: u64, c: u64) -> u64 {
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Div => x / y,
        Op::Sqrt => x.sqrt(),
        Op::Fma => x.mul_add(y, z),
    }
    .to_bits()
}

/// f32: round-to-nearest against the host directly, every mode against the stepping oracle.
fn check_f32(op: Op, a: u32, b: u32, c: u32) -> Result<(), TestCaseError> {
    let (a64, b64, c64) = (u64::from(a), u64::from(b), u64::from(c));
    let host = host_f32(op, a, b, c);
    let ne = run(F32, op, a64, b64, c64, Round::NearestEven) as u32;
    if f32::from_bits(host).is_nan() {
        prop_assert!(
            f32::from_bits(ne).is_nan(),
            "{op:?} {a:#x} {b:#x} {c:#x}: {ne:#x}"
        );
    } else {
        prop_assert_eq!(ne, host, "{:?} {:#x} {:#x} {:#x}", op, a, b, c);
    }
    let (x, y, z) = (
        f64::from(f32::from_bits(a)),
        f64::from(f32::from_bits(b)),
        f64::from(f32::from_bits(c)),
    );
    for rm in MODES {
        let got = run(F32, op, a64, b64, c64, rm) as u32;
        match exact(op, x, y, z, rm, false) {
            Exact::Val(s, d) => {
                let want = ref_round_f32(s, d, rm);
                prop_assert_eq!(got, want, "{:?} {:?} {:#x} {:#x} {:#x}", op, rm, a, b, c);
            }
            _ => prop_assert!(f32::from_bits(got).is_nan()),
        }
    }
    Ok(())
}

/// f64: round-to-nearest against the host directly, directed modes against the stepping
/// oracle where the host residual is exact.
fn check_f64(op: Op, a: u64, b: u64, c: u64) -> Result<(), TestCaseError> {
    let host = host_f64(op, a, b, c);
    let ne = run(F64, op, a, b, c, Round::NearestEven);
    if f64::from_bits(host).is_nan() {
        prop_assert!(
            f64::from_bits(ne).is_nan(),
            "{op:?} {a:#x} {b:#x} {c:#x}: {ne:#x}"
        );
    } else {
        prop_assert_eq!(ne, host, "{:?} {:#x} {:#x} {:#x}", op, a, b, c);
    }
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    for rm in MODES {
        let got = run(F64, op, a, b, c, rm);
        match exact(op, x, y, z, rm, true) {
            Exact::Val(s, d) => {
                let want = ref_round_f64(s, d, rm);
                prop_assert_eq!(got, want, "{:?} {:?} {:#x} {:#x} {:#x}", op, rm, a, b, c);
            }
            Exact::Nan => prop_assert!(f64::from_bits(got).is_nan()),
            Exact::Unknown => {}
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(proptest_config(40_000))]

    #[test]
    fn prop_f32_add_sub_mul_div((a, b) in f32_pair()) {
        for op in [Op::Add, Op::Sub, Op::Mul, Op::Div] {
            check_f32(op, a, b, 0)?;
        }
    }

    #[test]
    fn prop_f32_sqrt(a in f32_bits()) {
        check_f32(Op::Sqrt, a, 0, 0)?;
    }

    #[test]
    fn prop_f32_fma((a, b, c) in f32_triple()) {
        check_f32(Op::Fma, a, b, c)?;
    }

    #[test]
    fn prop_f64_add_sub_mul_div((a, b) in f64_pair()) {
        for op in [Op::Add, Op::Sub, Op::Mul, Op::Div] {
            check_f64(op, a, b, 0)?;
        }
    }

    #[test]
    fn prop_f64_sqrt(a in f64_bits()) {
        check_f64(Op::Sqrt, a, 0, 0)?;
    }

    #[test]
    fn prop_f64_fma((a, b, c) in f64_triple()) {
        check_f64(Op::Fma, a, b, c)?;
    }

    #[test]
    fn prop_f64_to_f32(a in f64_bits()) {
        let x = f64::from_bits(a);
        let ne = convert(F64, F32, a, Round::NearestEven, &mut Flags::default()) as u32;
        if x.is_nan() {
            prop_assert!(f32::from_bits(ne).is_nan());
        } else {
            prop_assert_eq!(ne, (x as f32).to_bits());
            for rm in MODES {
                let got = convert(F64, F32, a, rm, &mut Flags::default()) as u32;
                prop_assert_eq!(got, ref_round_f32(x, 0, rm), "{:?} {:#x}", rm, a);
            }
        }
        // f64 -> f32 -> f64 is exact for values that came from f32.
        let back = convert(F32, F64, u64::from(ne), Round::NearestEven, &mut Flags::default());
        if !x.is_nan() {
            prop_assert_eq!(back, f64::from(f32::from_bits(ne)).to_bits());
        }
    }

    #[test]
    fn prop_int_to_f32_f64(v in any::<i64>(), shift in 0u32..64) {
        let v = v >> shift; // bias toward small magnitudes as well
        let nf = &mut Flags::default();
        prop_assert_eq!(from_int(F32, i128::from(v as i32), Round::NearestEven, nf), u64::from((v as i32 as f32).to_bits()));
        prop_assert_eq!(from_int(F32, i128::from(v as u32), Round::NearestEven, nf), u64::from((v as u32 as f32).to_bits()));
        prop_assert_eq!(from_int(F32, i128::from(v), Round::NearestEven, nf), u64::from((v as f32).to_bits()));
        prop_assert_eq!(from_uint(F32, u128::from(v as u64), Round::NearestEven, nf), u64::from((v as u64 as f32).to_bits()));
        prop_assert_eq!(from_int(F64, i128::from(v as i32), Round::NearestEven, nf), (v as i32 as f64).to_bits());
        prop_assert_eq!(from_int(F64, i128::from(v as u32), Round::NearestEven, nf), (v as u32 as f64).to_bits());
        prop_assert_eq!(from_int(F64, i128::from(v), Round::NearestEven, nf), (v as f64).to_bits());
        prop_assert_eq!(from_uint(F64, u128::from(v as u64), Round::NearestEven, nf), (v as u64 as f64).to_bits());
        // Every mode: the host's nearest f64 plus the sign of the exact remainder.
        let s = v as f64;
        let d = (i128::from(v) - s as i128).signum() as i8;
        for rm in MODES {
            prop_assert_eq!(from_int(F64, i128::from(v), rm, nf), ref_round_f64(s, d, rm));
            prop_assert_eq!(from_int(F32, i128::from(v), rm, nf), u64::from(ref_round_f32(s, d, rm)));
        }
    }

    #[test]
    fn prop_float_to_int(a in f32_bits(), b in f64_bits()) {
        let nf = &mut Flags::default();
        let x = f32::from_bits(a);
        let y = f64::from_bits(b);
        let tz = Round::TowardZero;
        let a = u64::from(a);
        prop_assert_eq!(to_int(F32, a, true, 32, tz, nf), u64::from(x as i32 as u32));
        prop_assert_eq!(to_int(F32, a, false, 32, tz, nf), u64::from(x as u32));
        prop_assert_eq!(to_int(F32, a, true, 64, tz, nf), x as i64 as u64);
        prop_assert_eq!(to_int(F32, a, false, 64, tz, nf), x as u64);
        prop_assert_eq!(to_int(F32, a, true, 16, tz, nf), u64::from(x as i16 as u16));
        prop_assert_eq!(to_int(F32, a, false, 8, tz, nf), u64::from(x as u8));
        prop_assert_eq!(to_int(F64, b, true, 32, tz, nf), u64::from(y as i32 as u32));
        prop_assert_eq!(to_int(F64, b, false, 32, tz, nf), u64::from(y as u32));
        prop_assert_eq!(to_int(F64, b, true, 64, tz, nf), y as i64 as u64);
        prop_assert_eq!(to_int(F64, b, false, 64, tz, nf), y as u64);
        prop_assert_eq!(to_int(F64, b, true, 8, tz, nf), u64::from(y as i8 as u8));
        // Other modes: the host's exact integral rounding, then the saturating cast.
        let (xs, ys) = ([x.round_ties_even(), x.floor(), x.ceil()], [y.round_ties_even(), y.floor(), y.ceil()]);
        for (i, rm) in [Round::NearestEven, Round::Down, Round::Up].into_iter().enumerate() {
            prop_assert_eq!(to_int(F32, a, true, 32, rm, nf), u64::from(xs[i] as i32 as u32));
            prop_assert_eq!(to_int(F32, a, false, 64, rm, nf), xs[i] as u64);
            prop_assert_eq!(to_int(F64, b, true, 64, rm, nf), ys[i] as i64 as u64);
            prop_assert_eq!(to_int(F64, b, false, 16, rm, nf), u64::from(ys[i] as u16));
        }
    }

    #[test]
    fn prop_round_to_integral_matches_host(a in f32_bits(), b in f64_bits()) {
        let nf = &mut Flags::default();
        let (x, y) = (f32::from_bits(a), f64::from_bits(b));
        let hosts32 = [x.round_ties_even(), x.trunc(), x.ceil(), x.floor()];
        let hosts64 = [y.round_ties_even(), y.trunc(), y.ceil(), y.floor()];
        for (i, rm) in MODES.into_iter().enumerate() {
            let r32 = round_to_integral(F32, u64::from(a), rm, nf) as u32;
            let r64 = round_to_integral(F64, b, rm, nf);
            if x.is_nan() {
                prop_assert_eq!(r32, a | 0x0040_0000);
            } else {
                prop_assert_eq!(r32, hosts32[i].to_bits(), "{:?} {:#x}", rm, a);
            }
            if y.is_nan() {
                prop_assert_eq!(r64, b | 0x0008_0000_0000_0000);
            } else {
                prop_assert_eq!(r64, hosts64[i].to_bits(), "{:?} {:#x}", rm, b);
            }
        }
    }

    #[test]
    fn prop_ldexp_matches_scaling(a in f32_bits(), n in -300i32..300) {
        // Oracle: the exact f64 product x * 2^n (in range), rounded to f32 by the stepping
        // oracle.
        let x = f64::from(f32::from_bits(a));
        for rm in MODES {
            let got = ldexp(F32, u64::from(a), n, rm, &mut Flags::default()) as u32;
            if x.is_nan() {
                prop_assert_eq!(got, a | 0x0040_0000);
            } else {
                prop_assert_eq!(got, ref_round_f32(x * 2f64.powi(n), 0, rm), "{:?} {:#x} {}", rm, a, n);
            }
        }
    }

    #[test]
    fn prop_compare_and_min_max(a in f32_bits(), b in f32_bits()) {
        let nf = &mut Flags::default();
        let (x, y) = (f32::from_bits(a), f32::from_bits(b));
        let (a, b) = (u64::from(a), u64::from(b));
        prop_assert_eq!(eq(F32, a, b, nf), x == y);
        prop_assert_eq!(lt(F32, a, b, nf), x < y);
        prop_assert_eq!(le(F32, a, b, nf), x <= y);
        if !x.is_nan() && !y.is_nan() {
            // The host's min/max leave the order of zeros unspecified; ours put -0 below +0.
            let (want_min, want_max) = if (a | b) & 0x7fff_ffff == 0 {
                ((a | b) & 0x8000_0000, a & b & 0x8000_0000)
            } else {
                (u64::from(x.min(y).to_bits()), u64::from(x.max(y).to_bits()))
            };
            prop_assert_eq!(min_num(F32, a, b, nf), want_min);
            prop_assert_eq!(max_num(F32, a, b, nf), want_max);
            prop_assert_eq!(minimum(F32, a, b, nf), min_num(F32, a, b, nf));
            prop_assert_eq!(maximum(F32, a, b, nf), max_num(F32, a, b, nf));
        }
    }

    #[test]
    fn prop_no_panic_on_any_input(
        exp_bits in 0u32..70,
        man_bits in 0u32..70,
        kind in proptest::sample::select(vec![SpecialKind::Ieee, SpecialKind::FiniteNanOnlyAllOnes, SpecialKind::FiniteNoNan]),
        a in any::<u64>(), b in any::<u64>(), c in any::<u64>(),
        n in any::<i32>(), width in any::<u32>(), value in any::<i128>(), rmi in 0usize..4,
    ) {
        let f = Format { exp_bits, man_bits, kind };
        let rm = MODES[rmi];
        let fl = &mut Flags::default();
        // Every result in format `f` has no bits above its width.
        let outs = [
            add(f, a, b, rm, fl), sub(f, a, b, rm, fl), mul(f, a, b, rm, fl), div(f, a, b, rm, fl),
            fma(f, a, b, c, rm, fl), sqrt(f, a, rm, fl), convert_with(F64, f, a, rm, true, fl),
            convert(FP4, f, a, rm, fl), round_to_integral(f, a, rm, fl), ldexp(f, a, n, rm, fl),
            frexp(f, a).0, from_int(f, value, rm, fl), from_uint(f, value as u128, rm, fl),
            min_num(f, a, b, fl), maximum(f, a, b, fl), quiet(f, a), neg(f, a), abs(f, a),
            flush_subnormal(f, a),
        ];
        let width_mask = u64::MAX >> (64 - f.width());
        for o in outs {
            prop_assert_eq!(o & !width_mask, 0);
        }
        prop_assert_eq!(convert(f, FP8, a, rm, fl) >> 8, 0);
        prop_assert!(to_int(f, a, true, width, rm, fl) <= u64::MAX >> (64 - width.clamp(1, 64)));
        let _ = (classify(f, a), exponent_unbiased(f, a), to_f64_exact(f, a), lt(f, a, b, fl));
    }
}

/// Operands near the largest finite value: the soft-float sum rounds toward zero to the
/// value below the exact sum, and the oracle (whose error term overflows there) agrees.
#[test]
fn f64_sum_near_the_largest_value_rounds_toward_zero_below_the_exact_sum() {
    let (a, b) = (0xffc4_7a85_a5e8_ff06, 0x7fef_ffff_ffff_ffff);
    assert_eq!(
        run(F64, Op::Add, a, b, 0, Round::TowardZero),
        0x7fea_e15e_9685_c03d
    );
    assert_eq!(
        run(F64, Op::Add, a, b, 0, Round::NearestEven),
        0x7fea_e15e_9685_c03e
    );
    check_f64(Op::Add, a, b, 0).unwrap();
}
