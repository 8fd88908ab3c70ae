//! Explicit cases: float and integer conversions, round-to-integral, ldexp and frexp.

use super::*;

#[test]
fn conversions_explicit() {
    let mut flags = Flags::default();
    let rne = Round::NearestEven;
    // f32 -> bf16 ties to even.
    assert_eq!(convert(F32, BF16, 0x3f80_8000, rne, &mut flags), 0x3f80);
    assert_eq!(convert(F32, BF16, 0x3f81_8000, rne, &mut flags), 0x3f82);
    assert_eq!(convert(F32, BF16, 0x3f80_8001, rne, &mut flags), 0x3f81);
    assert_eq!(
        convert(F32, BF16, 0x3f80_ffff, Round::TowardZero, &mut flags),
        0x3f80
    );
    // f32 -> f16 subnormal.
    assert_eq!(convert(F32, F16, 0x3380_0000, rne, &mut flags), 0x0001);
    assert_eq!(convert(F32, F16, 0x3300_0000, rne, &mut flags), 0x0000);
    assert_eq!(convert(F32, F16, 0x3300_0001, rne, &mut flags), 0x0001);
    // Widening is exact and raises nothing.
    let mut flags = Flags::default();
    assert_eq!(
        convert(F16, F64, 0x0001, rne, &mut flags),
        2f64.powi(-24).to_bits()
    );
    assert_eq!(convert(FP8, F16, 0x7e, rne, &mut flags), 0x5f00);
    assert_eq!(flags, Flags::default());
    // Infinity into formats without it.
    let mut flags = Flags::default();
    assert_eq!(convert(F32, FP8, 0xff80_0000, rne, &mut flags), 0xff);
    assert!(flags.invalid);
    assert_eq!(
        to_f64_exact(F32, 0x7f80_0001).to_bits(),
        0x7ff0_0000_2000_0000
    );
    assert_eq!(
        to_f64_exact(FP8, 0xff).to_bits(),
        0xfff0_0000_0000_0000 | 0x7 << 49
    );
    assert_eq!(
        to_f64_exact(F16, 0xfc00).to_bits(),
        (f64::NEG_INFINITY).to_bits()
    );
    assert_eq!(
        from_f64(F32, 0.1, rne, &mut flags),
        u64::from(0.1f32.to_bits())
    );
}

#[test]
fn integer_conversions_explicit() {
    let rne = Round::NearestEven;
    let tz = Round::TowardZero;
    let f = |x: f32| u64::from(x.to_bits());
    let mut flags = Flags::default();
    assert_eq!(to_int(F32, f(3.5), true, 32, rne, &mut flags), 4);
    assert_eq!(to_int(F32, f(2.5), true, 32, rne, &mut flags), 2);
    assert_eq!(
        to_int(F32, f(-2.5), true, 32, Round::Down, &mut flags),
        0xffff_fffd
    );
    assert_eq!(
        to_int(F32, f(-2.5), true, 32, Round::Up, &mut flags),
        0xffff_fffe
    );
    assert_eq!(flags, INEXACT);
    let mut flags = Flags::default();
    assert_eq!(to_int(F32, 0x7fc0_0000, true, 32, tz, &mut flags), 0);
    assert_eq!(flags, INVALID);
    assert_eq!(to_int(F32, f(1e10), true, 32, tz, &mut flags), 0x7fff_ffff);
    assert_eq!(to_int(F32, f(-1e10), true, 32, tz, &mut flags), 0x8000_0000);
    assert_eq!(to_int(F32, f(-1e10), false, 32, tz, &mut flags), 0);
    assert_eq!(to_int(F32, f(300.0), false, 8, tz, &mut flags), 0xff);
    assert_eq!(to_int(F32, f(-200.0), true, 8, tz, &mut flags), 0x80);
    assert_eq!(
        to_int(F32, f(f32::NEG_INFINITY), true, 16, tz, &mut flags),
        0x8000
    );
    let mut flags = Flags::default();
    assert_eq!(to_int(F32, f(-0.5), false, 32, tz, &mut flags), 0);
    assert_eq!(flags, INEXACT, "-0.5 truncates to 0 in range");
    let mut flags = Flags::default();
    assert_eq!(
        to_int(F64, (-2f64.powi(63)).to_bits(), true, 64, tz, &mut flags),
        1 << 63
    );
    assert_eq!(flags, Flags::default());
    assert_eq!(
        to_int(F64, 2f64.powi(63).to_bits(), true, 64, tz, &mut flags),
        i64::MAX as u64
    );
    assert_eq!(
        to_int(F64, 2f64.powi(64).to_bits(), false, 64, tz, &mut flags),
        u64::MAX
    );
    assert_eq!(to_int(F16, 0x7bff, true, 16, tz, &mut flags), 0x7fff);
    assert_eq!(to_int(FP4, 0xf, true, 8, tz, &mut flags), 0xfa);
    // Integer to float.
    let mut flags = Flags::default();
    assert_eq!(
        from_int(F32, i128::from(i64::MAX), rne, &mut flags),
        0x5f00_0000
    );
    assert_eq!(
        from_int(F32, i128::from(i64::MAX), tz, &mut flags),
        0x5eff_ffff
    );
    assert_eq!(
        from_int(F32, i128::from(i64::MIN), tz, &mut flags),
        0xdf00_0000
    );
    assert_eq!(from_int(F32, 16_777_217, rne, &mut flags), 0x4b80_0000);
    assert_eq!(
        from_int(F32, 16_777_217, Round::Up, &mut flags),
        0x4b80_0001
    );
    assert_eq!(from_int(F32, 0, Round::Down, &mut flags), 0);
    assert_eq!(from_int(F16, 65519, rne, &mut flags), 0x7bff);
    assert_eq!(from_int(F16, 65520, rne, &mut flags), 0x7c00);
    assert_eq!(from_int(FP8, -1000, rne, &mut flags), 0xff);
    let mut flags = Flags::default();
    assert_eq!(from_uint(F32, u128::MAX, rne, &mut flags), 0x7f80_0000);
    assert_eq!(flags, OVERFLOW);
    assert_eq!(from_uint(F32, u128::MAX, tz, &mut flags), 0x7f7f_ffff);
    assert_eq!(
        from_uint(F64, u128::MAX, rne, &mut flags),
        0x47f0_0000_0000_0000
    );
    assert_eq!(
        from_int(F64, i128::MIN, rne, &mut flags),
        0xc7e0_0000_0000_0000
    );
}

#[test]
fn round_to_integral_explicit() {
    let f = |x: f32| u64::from(x.to_bits());
    let r = |x: f32, rm: Round| {
        f32::from_bits(round_to_integral(F32, f(x), rm, &mut Flags::default()) as u32)
    };
    assert_eq!(r(-0.5, Round::Down).to_bits(), (-1.0f32).to_bits());
    assert_eq!(r(-0.5, Round::Up).to_bits(), (-0.0f32).to_bits());
    assert_eq!(r(2.5, Round::NearestEven).to_bits(), (2.0f32).to_bits());
    assert_eq!(r(3.5, Round::NearestEven).to_bits(), (4.0f32).to_bits());
    assert_eq!(r(-3.7, Round::TowardZero).to_bits(), (-3.0f32).to_bits());
    assert_eq!(r(0.5, Round::NearestEven).to_bits(), 0);
    assert_eq!(
        r(8_388_607.5, Round::Up).to_bits(),
        (8_388_608.0f32).to_bits()
    );
    assert_eq!(r(1e30, Round::Down).to_bits(), (1e30f32).to_bits());
    let mut flags = Flags::default();
    round_to_integral(F32, f(2.0), Round::Up, &mut flags);
    assert_eq!(flags, Flags::default());
    round_to_integral(F32, f(2.25), Round::Up, &mut flags);
    assert_eq!(flags, INEXACT);
    assert_eq!(
        round_to_integral(FP4, 0x3, Round::NearestEven, &mut flags),
        0x4,
        "1.5 -> 2"
    );
    assert_eq!(
        round_to_integral(FP4, 0x1, Round::Up, &mut flags),
        0x2,
        "0.5 -> 1"
    );
    assert_eq!(
        round_to_integral(F32, 0x7fa0_0000, Round::Up, &mut flags),
        0x7fe0_0000
    );
}

#[test]
fn ldexp_frexp_exponent_explicit() {
    let one = 0x3f80_0000u64;
    let mut flags = Flags::default();
    assert_eq!(
        ldexp(F32, one, 128, Round::NearestEven, &mut flags),
        0x7f80_0000
    );
    assert_eq!(
        ldexp(F32, one, 128, Round::TowardZero, &mut flags),
        0x7f7f_ffff
    );
    assert_eq!(ldexp(F32, one, -149, Round::NearestEven, &mut flags), 1);
    let mut flags = Flags::default();
    assert_eq!(ldexp(F32, one, -150, Round::NearestEven, &mut flags), 0);
    assert_eq!(flags, UNDERFLOW);
    assert_eq!(ldexp(F32, one, -150, Round::Up, &mut flags), 1);
    assert_eq!(
        ldexp(F32, 0x4040_0000, -150, Round::NearestEven, &mut flags),
        2,
        "1.5 ulp ties to 2"
    );
    assert_eq!(
        ldexp(F32, 0x0040_0000, 1, Round::NearestEven, &mut flags),
        0x0080_0000
    );
    assert_eq!(
        ldexp(F32, one, i32::MAX, Round::Down, &mut flags),
        0x7f7f_ffff
    );
    assert_eq!(ldexp(F32, one, i32::MIN, Round::Up, &mut flags), 1);
    assert_eq!(
        ldexp(F32, 0xff80_0000, -5, Round::Up, &mut flags),
        0xff80_0000
    );
    assert_eq!(
        frexp(F32, u64::from(8f32.to_bits())),
        (u64::from(0.5f32.to_bits()), 4)
    );
    assert_eq!(
        frexp(F32, u64::from((-3f32).to_bits())),
        (u64::from((-0.75f32).to_bits()), 2)
    );
    assert_eq!(frexp(F32, 1), (u64::from(0.5f32.to_bits()), -148));
    assert_eq!(frexp(F32, 0x8000_0000), (0x8000_0000, 0));
    assert_eq!(frexp(F16, 0x3c00), (0x3800, 1));
    assert_eq!(exponent_unbiased(F32, 1), Some(-149));
    assert_eq!(exponent_unbiased(F32, one), Some(0));
    assert_eq!(exponent_unbiased(F32, 0x7f7f_ffff), Some(127));
    assert_eq!(exponent_unbiased(F32, 0), None);
    assert_eq!(exponent_unbiased(F32, 0x7f80_0000), None);
    assert_eq!(exponent_unbiased(FP8, 0x7e), Some(8));
}
