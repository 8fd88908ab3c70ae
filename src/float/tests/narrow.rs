//! The narrow formats (FP8, BF8, FP6, BF6, FP4) against the table oracle, and their values.

use super::*;

#[test]
fn narrow_all_pairs_all_ops_all_modes_match_table_oracle() {
    for f in NARROW {
        let t = Table::new(f);
        let n = 1u64 << t.width();
        for a in 0..n {
            for rm in MODES {
                check_small(&t, Op::Sqrt, a, 0, 0, rm);
                for b in 0..n {
                    for op in [Op::Add, Op::Sub, Op::Mul, Op::Div] {
                        check_small(&t, op, a, b, 0, rm);
                    }
                }
            }
        }
    }
}

#[test]
fn narrow_fma_exhaustive_for_6_and_4_bit_random_for_8_bit() {
    for f in [FP6, BF6, FP4] {
        let t = Table::new(f);
        let n = 1u64 << t.width();
        for a in 0..n {
            for b in 0..n {
                for c in 0..n {
                    for rm in MODES {
                        check_small(&t, Op::Fma, a, b, c, rm);
                    }
                }
            }
        }
    }
    let mut rng = Rng(5);
    for f in [FP8, BF8] {
        let t = Table::new(f);
        for _ in 0..300_000 {
            let r = rng.next();
            let (a, b, c) = (r & 0xff, (r >> 8) & 0xff, (r >> 16) & 0xff);
            for rm in MODES {
                check_small(&t, Op::Fma, a, b, c, rm);
            }
        }
    }
}

#[test]
fn narrow_all_codes_round_trip_through_f32_and_f64() {
    let nf = &mut Flags::default();
    for f in NARROW {
        let t = Table::new(f);
        for code in 0..1u64 << t.width() {
            let w = convert(f, F32, code, Round::NearestEven, nf);
            let v = t.decode(code);
            if v.is_nan() {
                assert!(f32::from_bits(w as u32).is_nan());
                assert!(t.is_nan_code(convert(F32, f, w, Round::NearestEven, nf)));
            } else {
                assert_eq!(f64::from(f32::from_bits(w as u32)).to_bits(), v.to_bits());
                assert_eq!(
                    to_f64_exact(f, code).to_bits(),
                    v.to_bits(),
                    "{f:?} {code:#x}"
                );
                for rm in MODES {
                    assert_eq!(convert(F32, f, w, rm, nf), code, "{f:?} {code:#x}");
                    assert_eq!(from_f64(f, v, rm, nf), code);
                }
            }
        }
    }
}

#[test]
fn narrow_f32_conversion_matches_table_oracle_100k_random() {
    let mut rng = Rng(6);
    for f in NARROW {
        let t = Table::new(f);
        for i in 0..100_000u32 {
            let r = rng.next();
            let a = if i % 4 == 0 {
                r as u32
            } else {
                let e = 127 - 20 + (r >> 32) as u32 % 40;
                (r as u32 & 0x807f_ffff) | (e << 23)
            };
            for rm in MODES {
                for saturate in [false, true] {
                    let got =
                        convert_with(F32, f, u64::from(a), rm, saturate, &mut Flags::default());
                    match t.round(f64::from(f32::from_bits(a)), 0, rm, saturate) {
                        Some(want) => assert_eq!(got, want, "{f:?} {rm:?} sat={saturate} {a:#x}"),
                        None if f.kind == SpecialKind::FiniteNoNan => {
                            assert_eq!(got, f.default_nan())
                        }
                        None => assert!(t.is_nan_code(got)),
                    }
                }
            }
        }
    }
}

#[test]
fn fp8_e4m3_values() {
    let nf = &mut Flags::default();
    let f32_to = |f: Format, x: f32, sat: bool| {
        convert_with(
            F32,
            f,
            u64::from(x.to_bits()),
            Round::NearestEven,
            sat,
            &mut Flags::default(),
        )
    };
    assert_eq!(f32_to(FP8, 448.0, false), 0x7e);
    assert_eq!(f32_to(FP8, 1.0, false), 0x38);
    assert_eq!(f32_to(FP8, -1.0, false), 0xb8);
    assert_eq!(to_f64_exact(FP8, 0x7e).to_bits(), 448.0f64.to_bits());
    assert_eq!(to_f64_exact(FP8, 0x01).to_bits(), (2f64.powi(-9)).to_bits());
    assert!(is_nan(FP8, 0x7f) && is_nan(FP8, 0xff) && is_qnan(FP8, 0x7f) && !is_snan(FP8, 0x7f));
    assert!(!is_nan(FP8, 0x7e) && !is_inf(FP8, 0x78));
    assert_eq!(to_f64_exact(FP8, 0x78).to_bits(), 256.0f64.to_bits());
    // 464 is the tie between 448 (even) and the missing 480: it stays finite.
    assert_eq!(f32_to(FP8, 464.0, false), 0x7e);
    assert_eq!(f32_to(FP8, 465.0, false), 0x7f);
    assert_eq!(f32_to(FP8, 465.0, true), 0x7e);
    assert_eq!(f32_to(FP8, -1e9, true), 0xfe);
    assert_eq!(f32_to(FP8, f32::INFINITY, false), 0x7f);
    assert_eq!(f32_to(FP8, f32::NEG_INFINITY, true), 0xfe);
    assert_eq!(f32_to(FP8, f32::from_bits(0xffc0_0000), true), 0xff);
    assert_eq!(
        convert(F32, FP8, 0x43f0_0000, Round::TowardZero, nf),
        0x7e,
        "480 toward zero"
    );
    assert_eq!(FP8.default_nan(), 0x7f);
    assert_eq!(FP8.max_finite(true), 0xfe);
    assert_eq!(FP8.infinity(false), None);
    // Arithmetic: 448 + 32 overflows to NaN in round-to-nearest.
    assert_eq!(add(FP8, 0x7e, 0x60, Round::NearestEven, nf), 0x7f);
    assert_eq!(add(FP8, 0x7e, 0x60, Round::TowardZero, nf), 0x7e);
    assert_eq!(div(FP8, 0x38, 0x00, Round::NearestEven, nf), 0x7f);
}

#[test]
fn bf8_e5m2_values() {
    let nf = &mut Flags::default();
    let from = |x: f64| from_f64(BF8, x, Round::NearestEven, &mut Flags::default());
    assert_eq!(from(1.0), 0x3c);
    assert_eq!(from(57344.0), 0x7b);
    assert_eq!(from(f64::INFINITY), 0x7c);
    assert_eq!(BF8.infinity(true), Some(0xfc));
    // 61440 is the tie between 57344 (odd mantissa) and 65536: it rounds to infinity.
    assert_eq!(from(61440.0), 0x7c);
    assert_eq!(
        convert_with(F64, BF8, 61440f64.to_bits(), Round::NearestEven, true, nf),
        0x7b
    );
    assert_eq!(from(f64::NAN), 0x7e);
    assert!(is_snan(BF8, 0x7d) && is_qnan(BF8, 0x7e));
    assert_eq!(BF8.default_nan(), 0x7e);
    assert_eq!(sub(BF8, 0x7c, 0x7c, Round::NearestEven, nf), 0x7e);
    assert_eq!(
        to_f64_exact(BF8, 0x01).to_bits(),
        (2f64.powi(-16)).to_bits()
    );
}

#[test]
fn fp6_bf6_fp4_values() {
    let fp4: Vec<u64> = (0..8).map(|c| to_f64_exact(FP4, c).to_bits()).collect();
    let want = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0f64];
    assert_eq!(fp4, want.map(f64::to_bits));
    let fp4_neg: Vec<u64> = (8..16).map(|c| to_f64_exact(FP4, c).to_bits()).collect();
    assert_eq!(fp4_neg, want.map(|x| (-x).to_bits()));
    assert_eq!(
        to_f64_exact(FP6, FP6.max_finite(false)).to_bits(),
        7.5f64.to_bits()
    );
    assert_eq!(FP6.max_finite(false), 0x1f);
    assert_eq!(
        to_f64_exact(BF6, BF6.max_finite(false)).to_bits(),
        28.0f64.to_bits()
    );
    assert_eq!(to_f64_exact(FP6, 0x01).to_bits(), 0.125f64.to_bits());
    assert_eq!(to_f64_exact(BF6, 0x01).to_bits(), 0.0625f64.to_bits());
    let mut flags = Flags::default();
    let from = |f: Format, x: f64, flags: &mut Flags| from_f64(f, x, Round::NearestEven, flags);
    assert_eq!(from(FP4, 100.0, &mut flags), 0x7);
    assert!(flags.overflow && flags.inexact && !flags.invalid);
    assert_eq!(from(FP4, -100.0, &mut flags), 0xf);
    assert_eq!(from(FP4, f64::NEG_INFINITY, &mut flags), 0xf);
    let mut flags = Flags::default();
    assert_eq!(from(FP4, f64::NAN, &mut flags), 0x7, "NaN becomes +max");
    assert!(flags.invalid);
    assert_eq!(from(FP4, -f64::NAN, &mut flags), 0x7);
    assert_eq!(
        from(FP4, 5.0, &mut flags),
        0x6,
        "tie between 4 and 6 goes to even 4"
    );
    assert_eq!(
        from(FP4, 0.25, &mut flags),
        0x0,
        "tie between 0 and 0.5 goes to 0"
    );
    assert_eq!(from(FP4, 0.26, &mut flags), 0x1);
    assert_eq!(from(FP6, 7.75, &mut flags), 0x1f);
    assert_eq!(from(BF6, 1e30, &mut flags), 0x1f);
    assert_eq!(FP4.default_nan(), 0x7);
    assert_eq!(div(FP4, 0x0, 0x0, Round::NearestEven, &mut flags), 0x7);
    assert_eq!(div(FP4, 0xa, 0x0, Round::NearestEven, &mut flags), 0xf);
    assert!(!is_nan(FP4, 0xf) && !is_inf(FP4, 0x7));
    assert_eq!(FP4.width(), 4);
    assert_eq!(FP6.width(), 6);
}
