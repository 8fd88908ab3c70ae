//! Explicit cases: rounding modes, overflow, signed zeros, subnormals and fused rounding.

use super::*;

#[test]
fn rounding_modes_one_plus_half_ulp() {
    let tiny = f32::from_bits(0x3380_0000); // 2^-24
    let want = [0x3f80_0000, 0x3f80_0000, 0x3f80_0001, 0x3f80_0000];
    let want_neg = [0xbf80_0000, 0xbf80_0000, 0xbf80_0000, 0xbf80_0001];
    for (i, rm) in MODES.into_iter().enumerate() {
        assert_eq!(f32op(Op::Add, 1.0, tiny, rm), (want[i], INEXACT), "{rm:?}");
        assert_eq!(
            f32op(Op::Sub, -1.0, tiny, rm),
            (want_neg[i], INEXACT),
            "{rm:?}"
        );
    }
    // Just above the tie rounds up in round-to-nearest.
    let above = f32::from_bits(0x3380_0001);
    assert_eq!(
        f32op(Op::Add, 1.0, above, Round::NearestEven).0,
        0x3f80_0001
    );
    // 1 + 3*2^-24 is the tie 1 + 1.5 ulp: rounds to even 1 + 2 ulp.
    assert_eq!(
        f32op(Op::Add, 1.0, 3.0 * tiny, Round::NearestEven).0,
        0x3f80_0002
    );
}

#[test]
fn rounding_modes_one_third() {
    let want32 = [0x3eaa_aaab, 0x3eaa_aaaa, 0x3eaa_aaab, 0x3eaa_aaaa];
    let want32_neg = [0xbeaa_aaab, 0xbeaa_aaaa, 0xbeaa_aaaa, 0xbeaa_aaab];
    let want64 = [
        0x3fd5_5555_5555_5555u64,
        0x3fd5_5555_5555_5555,
        0x3fd5_5555_5555_5556,
        0x3fd5_5555_5555_5555,
    ];
    let want16 = [0x3555u64, 0x3555, 0x3556, 0x3555];
    for (i, rm) in MODES.into_iter().enumerate() {
        assert_eq!(f32op(Op::Div, 1.0, 3.0, rm), (want32[i], INEXACT), "{rm:?}");
        assert_eq!(f32op(Op::Div, -1.0, 3.0, rm).0, want32_neg[i], "{rm:?}");
        let mut flags = Flags::default();
        let third = div(F64, 1f64.to_bits(), 3f64.to_bits(), rm, &mut flags);
        assert_eq!((third, flags), (want64[i], INEXACT), "{rm:?}");
        assert_eq!(
            div(F16, 0x3c00, 0x4200, rm, &mut flags),
            want16[i],
            "{rm:?}"
        );
    }
}

#[test]
fn overflow_by_mode() {
    let max = f32::MAX;
    // [NearestEven, TowardZero, Up, Down] for MAX + MAX and -MAX + -MAX.
    let pos = [0x7f80_0000, 0x7f7f_ffff, 0x7f80_0000, 0x7f7f_ffff];
    let neg = [0xff80_0000, 0xff7f_ffff, 0xff7f_ffff, 0xff80_0000];
    for (i, rm) in MODES.into_iter().enumerate() {
        assert_eq!(f32op(Op::Add, max, max, rm), (pos[i], OVERFLOW), "{rm:?}");
        assert_eq!(f32op(Op::Add, -max, -max, rm), (neg[i], OVERFLOW), "{rm:?}");
    }
    // f16: 65520 is the tie between 65504 and 65536 and rounds to infinity.
    let mut flags = Flags::default();
    assert_eq!(
        from_f64(F16, 65520.0, Round::NearestEven, &mut flags),
        0x7c00
    );
    assert_eq!(flags, OVERFLOW);
    assert_eq!(
        from_f64(F16, 65519.0, Round::NearestEven, &mut flags),
        0x7bff
    );
    assert_eq!(from_f64(F16, 1e6, Round::TowardZero, &mut flags), 0x7bff);
    assert_eq!(
        convert_with(F32, F16, 0x7f80_0000, Round::NearestEven, true, &mut flags),
        0x7bff
    );
}

#[test]
fn signed_zeros() {
    for rm in MODES {
        let down = rm == Round::Down;
        let zero_sum = if down { 0x8000_0000 } else { 0 };
        assert_eq!(f32op(Op::Add, 1.5, -1.5, rm).0, zero_sum, "{rm:?}");
        assert_eq!(f32op(Op::Sub, 1.5, 1.5, rm).0, zero_sum);
        assert_eq!(f32op(Op::Add, 0.0, -0.0, rm).0, zero_sum);
        assert_eq!(f32op(Op::Sub, 0.0, 0.0, rm).0, zero_sum);
        assert_eq!(f32op(Op::Add, -0.0, -0.0, rm).0, 0x8000_0000);
        assert_eq!(f32op(Op::Add, 0.0, 0.0, rm).0, 0);
        assert_eq!(f32op(Op::Mul, -0.0, 5.0, rm).0, 0x8000_0000);
        assert_eq!(
            f32op(Op::Sqrt, -0.0, 0.0, rm),
            (0x8000_0000, Flags::default())
        );
        let mut flags = Flags::default();
        // fma(2, -3, 6) = 0 exactly.
        let r = fma(F32, 0x4000_0000, 0xc040_0000, 0x40c0_0000, rm, &mut flags);
        assert_eq!((r, flags), (zero_sum as u64, Flags::default()));
        // A product that underflows to zero keeps its sign in the sum with -0.
        let r = fma(
            F32,
            0x0000_0001,
            0x8000_0001,
            0x8000_0000,
            Round::NearestEven,
            &mut flags,
        );
        assert_eq!(r, 0x8000_0000);
    }
}

#[test]
fn subnormals_and_underflow() {
    let min_sub = f32::from_bits(1);
    assert_eq!(
        f32op(Op::Mul, min_sub, 0.5, Round::NearestEven),
        (0, UNDERFLOW)
    );
    assert_eq!(f32op(Op::Mul, min_sub, 0.5, Round::Up), (1, UNDERFLOW));
    assert_eq!(
        f32op(Op::Mul, min_sub, -0.5, Round::Down),
        (0x8000_0001, UNDERFLOW)
    );
    assert_eq!(
        f32op(Op::Mul, min_sub, 0.75, Round::NearestEven),
        (1, UNDERFLOW)
    );
    // Exact subnormal results raise nothing.
    let min_normal = f32::from_bits(0x0080_0000);
    assert_eq!(
        f32op(Op::Sub, min_normal, min_sub, Round::NearestEven),
        (0x007f_ffff, Flags::default())
    );
    assert_eq!(
        f32op(Op::Mul, min_normal, 0.5, Round::NearestEven),
        (0x0040_0000, Flags::default())
    );
    // Tininess after rounding: (1 - 2^-25) * 2^-126 rounds to the smallest normal and is not
    // tiny once rounded to 24 bits; (1 - 2^-24) * 2^-126 is.
    let mut flags = Flags::default();
    let x = (1.0 - 2f64.powi(-25)) * 2f64.powi(-126);
    assert_eq!(
        from_f64(F32, x, Round::NearestEven, &mut flags),
        0x0080_0000
    );
    assert_eq!(flags, INEXACT);
    let mut flags = Flags::default();
    let x = (1.0 - 2f64.powi(-24)) * 2f64.powi(-126);
    assert_eq!(
        from_f64(F32, x, Round::NearestEven, &mut flags),
        0x0080_0000
    );
    assert_eq!(flags, UNDERFLOW);
    // f64 subnormal division and sqrt.
    let mut flags = Flags::default();
    assert_eq!(div(F64, 1, 2f64.to_bits(), Round::Up, &mut flags), 1);
    assert_eq!(
        sqrt(F64, 4, Round::NearestEven, &mut flags),
        0x1e70_0000_0000_0000
    );
    // Flushing.
    assert_eq!(flush_subnormal(F32, 0x8000_0001), 0x8000_0000);
    assert_eq!(flush_subnormal(F32, 0x0080_0000), 0x0080_0000);
    assert_eq!(flush_subnormal(F16, 0x03ff), 0);
    assert!(is_subnormal(F32, 0x007f_ffff) && !is_subnormal(F32, 0));
}

#[test]
fn fma_single_rounding() {
    let mut flags = Flags::default();
    // (1 + 2^-23)^2 - 1 - 2^-22 = 2^-46: only a fused operation sees it.
    let a = 0x3f80_0001u64;
    let c = convert(
        F64,
        F32,
        (-(1.0 + 2f64.powi(-22))).to_bits(),
        Round::NearestEven,
        &mut flags,
    );
    assert_eq!(
        fma(F32, a, a, c, Round::NearestEven, &mut flags),
        0x2880_0000
    );
    // f64: (1 + 2^-52)^2 - (1 + 2^-51) = 2^-104 exactly.
    let a = 0x3ff0_0000_0000_0001u64;
    let c = 0xbff0_0000_0000_0002u64;
    let mut flags = Flags::default();
    assert_eq!(
        fma(F64, a, a, c, Round::NearestEven, &mut flags),
        0x3970_0000_0000_0000
    );
    assert_eq!(flags, Flags::default());
    // Directed rounding of 1 + tiny product.
    let tiny = 0x0000_0000_0000_0001u64;
    let one = 1f64.to_bits();
    assert_eq!(fma(F64, tiny, tiny, one, Round::Up, &mut flags), one + 1);
    assert_eq!(
        fma(F64, tiny, tiny, one, Round::NearestEven, &mut flags),
        one
    );
    assert_eq!(
        fma(F64, tiny, tiny | 1 << 63, one, Round::Down, &mut flags),
        0x3fef_ffff_ffff_ffff
    );
    assert_eq!(
        fma(
            F64,
            tiny,
            tiny | 1 << 63,
            one,
            Round::TowardZero,
            &mut flags
        ),
        0x3fef_ffff_ffff_ffff
    );
    // A product below the smallest subnormal: rounds to zero or min subnormal by mode.
    assert_eq!(fma(F64, tiny, tiny, 0, Round::Up, &mut flags), 1);
    assert_eq!(fma(F64, tiny, tiny, 0, Round::NearestEven, &mut flags), 0);
}
