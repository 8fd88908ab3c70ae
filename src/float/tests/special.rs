//! Explicit cases: NaN propagation, invalid operations, comparisons, min/max,
//! classification, format widths and flags.

use super::*;

#[test]
fn nan_propagation_rule() {
    let mut flags = Flags::default();
    let snan = 0x7fa0_0000u64;
    let qnan = 0x7fc0_0001u64;
    let one = 0x3f80_0000u64;
    // The first NaN operand wins, quietened; a signalling NaN anywhere raises invalid.
    assert_eq!(
        add(F32, snan, qnan, Round::NearestEven, &mut flags),
        0x7fe0_0000
    );
    assert_eq!(flags, INVALID);
    let mut flags = Flags::default();
    assert_eq!(add(F32, qnan, snan, Round::NearestEven, &mut flags), qnan);
    assert_eq!(flags, INVALID);
    let mut flags = Flags::default();
    assert_eq!(mul(F32, one, qnan, Round::NearestEven, &mut flags), qnan);
    assert_eq!(flags, Flags::default());
    assert_eq!(
        add(F32, one, 0xffa0_0001, Round::NearestEven, &mut flags),
        0xffe0_0001
    );
    // sub does not negate a NaN subtrahend.
    assert_eq!(sub(F32, one, qnan, Round::NearestEven, &mut flags), qnan);
    assert_eq!(
        div(F32, 0xff80_0001, one, Round::NearestEven, &mut flags),
        0xffc0_0001
    );
    assert_eq!(
        sqrt(F32, snan | 0x8000_0000, Round::NearestEven, &mut flags),
        0xffe0_0000
    );
    // fma: a, then b, then c.
    assert_eq!(
        fma(F32, one, qnan, snan, Round::NearestEven, &mut flags),
        qnan
    );
    assert_eq!(
        fma(F32, one, one, snan, Round::NearestEven, &mut flags),
        0x7fe0_0000
    );
    let mut flags = Flags::default();
    assert_eq!(
        fma(F32, 0, 0x7f80_0000, qnan, Round::NearestEven, &mut flags),
        qnan
    );
    assert_eq!(
        flags,
        Flags::default(),
        "fma(0, inf, qNaN) does not raise invalid"
    );
    // Other formats keep their payload's top bits.
    assert_eq!(
        add(F16, 0x7d01, 0x3c00, Round::NearestEven, &mut flags),
        0x7f01
    );
    assert_eq!(
        add(
            F64,
            1,
            0x7ff0_0000_0000_0001,
            Round::NearestEven,
            &mut flags
        ),
        0x7ff8_0000_0000_0001
    );
    assert_eq!(
        convert(F32, F16, 0x7f80_2001, Round::NearestEven, &mut flags),
        0x7e01
    );
    assert_eq!(
        convert(F32, F64, 0xffc0_0001, Round::NearestEven, &mut flags),
        0xfff8_0000_2000_0000
    );
    assert_eq!(
        convert(
            F64,
            F32,
            0x7ff0_0000_2000_0000,
            Round::NearestEven,
            &mut flags
        ),
        0x7fc0_0001
    );
    assert_eq!(
        convert(F32, BF16, 0x7f80_0001, Round::NearestEven, &mut flags),
        0x7fc0
    );
}

#[test]
fn invalid_operations_give_default_nan() {
    let rne = Round::NearestEven;
    let cases: [(Format, u64, u64); 4] = [
        (F32, 0x7f80_0000, 0x7fc0_0000),
        (F16, 0x7c00, 0x7e00),
        (BF16, 0x7f80, 0x7fc0),
        (F64, 0x7ff0_0000_0000_0000, 0x7ff8_0000_0000_0000),
    ];
    for (f, inf, default) in cases {
        let ninf = neg(f, inf);
        let one = from_int(f, 1, rne, &mut Flags::default());
        let results = [
            add(f, inf, ninf, rne, &mut Flags::default()),
            sub(f, inf, inf, rne, &mut Flags::default()),
            mul(f, 0, ninf, rne, &mut Flags::default()),
            div(f, 0, neg(f, 0), rne, &mut Flags::default()),
            div(f, ninf, inf, rne, &mut Flags::default()),
            sqrt(f, neg(f, one), rne, &mut Flags::default()),
            sqrt(f, ninf, rne, &mut Flags::default()),
            fma(f, inf, 0, one, rne, &mut Flags::default()),
            fma(f, inf, one, ninf, rne, &mut Flags::default()),
        ];
        for r in results {
            assert_eq!(r, default, "{f:?}");
        }
        assert_eq!(f.default_nan(), default);
        let mut flags = Flags::default();
        mul(f, inf, 0, rne, &mut flags);
        assert_eq!(flags, INVALID);
        let mut flags = Flags::default();
        assert_eq!(div(f, neg(f, one), 0, rne, &mut flags), ninf);
        assert_eq!(
            flags,
            Flags {
                div_by_zero: true,
                ..Flags::default()
            }
        );
    }
}

#[test]
fn comparisons_explicit() {
    let mut flags = Flags::default();
    let (pz, nz, one, two) = (0u64, 0x8000_0000u64, 0x3f80_0000u64, 0x4000_0000u64);
    let (qnan, snan) = (0x7fc0_0000u64, 0x7f80_0001u64);
    assert!(eq(F32, pz, nz, &mut flags));
    assert!(!lt(F32, nz, pz, &mut flags));
    assert!(le(F32, nz, pz, &mut flags));
    assert!(lt(F32, one, two, &mut flags) && !lt(F32, two, one, &mut flags));
    assert!(lt(F32, 0xff80_0000, 0xff7f_ffff, &mut flags));
    assert!(le(F32, one, one, &mut flags));
    assert_eq!(flags, Flags::default());
    assert!(!eq(F32, qnan, qnan, &mut flags));
    assert_eq!(flags, Flags::default(), "quiet equality");
    assert!(!eq(F32, snan, one, &mut flags));
    assert_eq!(flags, INVALID);
    let mut flags = Flags::default();
    assert!(!lt(F32, qnan, one, &mut flags));
    assert_eq!(flags, INVALID, "signalling less-than");
    assert!(eq(FP8, 0x00, 0x80, &mut flags));
    assert!(!eq(FP8, 0x7f, 0x7f, &mut flags));
    assert!(lt(FP4, 0xf, 0x7, &mut flags));
}

#[test]
fn min_max_explicit() {
    let mut flags = Flags::default();
    let (pz, nz, one, two) = (0u64, 0x8000_0000u64, 0x3f80_0000u64, 0x4000_0000u64);
    let (qnan, snan) = (0x7fc0_0001u64, 0x7f80_0001u64);
    assert_eq!(min_num(F32, one, two, &mut flags), one);
    assert_eq!(max_num(F32, one, two, &mut flags), two);
    assert_eq!(min_num(F32, pz, nz, &mut flags), nz);
    assert_eq!(min_num(F32, nz, pz, &mut flags), nz);
    assert_eq!(max_num(F32, nz, pz, &mut flags), pz);
    assert_eq!(min_num(F32, qnan, one, &mut flags), one);
    assert_eq!(max_num(F32, one, qnan, &mut flags), one);
    assert_eq!(min_num(F32, qnan, qnan | 2, &mut flags), qnan | 2);
    assert_eq!(flags, Flags::default());
    assert_eq!(min_num(F32, one, snan, &mut flags), 0x7fc0_0001);
    assert_eq!(flags, INVALID);
    assert_eq!(
        max_num(F32, qnan | 4, snan, &mut flags),
        0x7fc0_0001,
        "signalling NaN first"
    );
    let mut flags = Flags::default();
    assert_eq!(minimum(F32, one, qnan, &mut flags), qnan);
    assert_eq!(maximum(F32, qnan, one, &mut flags), qnan);
    assert_eq!(minimum(F32, pz, nz, &mut flags), nz);
    assert_eq!(maximum(F32, nz, pz, &mut flags), pz);
    assert_eq!(maximum(F32, 0xff80_0000, two, &mut flags), two);
    assert_eq!(flags, Flags::default());
    assert_eq!(maximum(F32, snan, one, &mut flags), 0x7fc0_0001);
    assert_eq!(flags, INVALID);
}

#[test]
fn classification_and_fields() {
    let cases = [
        (0x7f80_0001u64, Class::SignalingNan),
        (0xffc0_0000, Class::QuietNan),
        (0xff80_0000, Class::NegInfinity),
        (0xbf80_0000, Class::NegNormal),
        (0x8000_0001, Class::NegSubnormal),
        (0x8000_0000, Class::NegZero),
        (0x0000_0000, Class::PosZero),
        (0x007f_ffff, Class::PosSubnormal),
        (0x7f7f_ffff, Class::PosNormal),
        (0x7f80_0000, Class::PosInfinity),
    ];
    for (i, (bits, class)) in cases.into_iter().enumerate() {
        assert_eq!(classify(F32, bits), class, "{bits:#x}");
        assert_eq!(class.mask_bit(), 1 << i);
    }
    assert_eq!(classify(FP8, 0xff), Class::QuietNan);
    assert_eq!(classify(FP8, 0x7e), Class::PosNormal);
    assert_eq!(classify(FP4, 0x1), Class::PosSubnormal);
    assert!(is_inf(F16, 0xfc00) && !is_inf(F16, 0x7bff));
    assert!(is_zero(F16, 0x8000) && !is_zero(F16, 0x0001));
    assert!(is_finite(F16, 0x7bff) && !is_finite(F16, 0x7c00));
    assert!(is_snan(F16, 0x7c01) && !is_qnan(F16, 0x7c01) && is_qnan(F16, 0x7e00));
    assert!(sign(F16, 0x8000) && !sign(F16, 0x7fff));
    assert_eq!(exponent_field(F32, 0x3f80_0000), 127);
    assert_eq!(mantissa_field(F32, 0x3fc0_0000), 0x40_0000);
    assert_eq!(exponent_field(BF8, 0x7b), 30);
    assert_eq!(quiet(F32, 0x7f80_0001), 0x7fc0_0001);
    assert_eq!(quiet(F32, 0x3f80_0000), 0x3f80_0000);
    assert_eq!(quiet(FP8, 0x7f), 0x7f);
    assert_eq!(neg(F32, 0x7fc0_0000), 0xffc0_0000);
    assert_eq!(neg(F16, 0), 0x8000);
    assert_eq!(abs(F64, 0xfff8_0000_0000_0000), 0x7ff8_0000_0000_0000);
    assert_eq!(abs(FP4, 0xf), 0x7);
}

#[test]
fn formats_and_high_bits() {
    assert_eq!(
        [F16.width(), BF16.width(), F32.width(), F64.width()],
        [16, 16, 32, 64]
    );
    assert_eq!(
        [FP8.width(), BF8.width(), FP6.width(), BF6.width()],
        [8, 8, 6, 6]
    );
    assert_eq!(
        [F16.bias(), F32.bias(), FP8.bias(), FP4.bias()],
        [15, 127, 7, 1]
    );
    assert_eq!(F32.max_finite(false), 0x7f7f_ffff);
    assert_eq!(F16.infinity(true), Some(0xfc00));
    assert_eq!(BF6.infinity(false), None);
    // Bits above the width are ignored on input and zero on output.
    let mut flags = Flags::default();
    assert_eq!(
        add(F16, 0xffff_3c00, 0x3c00, Round::NearestEven, &mut flags),
        0x4000
    );
    assert_eq!(neg(F16, 0xffff_3c00), 0xbc00);
    assert_eq!(
        Flags::default().union(INVALID).union(OVERFLOW),
        Flags {
            invalid: true,
            ..OVERFLOW
        }
    );
    assert!(INEXACT.any() && !Flags::default().any());
}
