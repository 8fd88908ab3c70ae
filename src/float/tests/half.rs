//! f16 and bf16 against the table oracle.

use super::*;

#[test]
fn f16_all_values_round_trip_through_f32() {
    let t = Table::new(F16);
    let nf = &mut Flags::default();
    let mut nans = 0;
    for h in 0..=0xffffu64 {
        let w = convert(F16, F32, h, Round::NearestEven, nf);
        let back = convert(F32, F16, w, Round::NearestEven, nf);
        let v = t.decode(h);
        if v.is_nan() {
            nans += 1;
            assert!(f32::from_bits(w as u32).is_nan());
            assert_eq!(back, h | 0x200, "{h:#x}: NaN payload survives, quietened");
        } else {
            assert_eq!(
                f64::from(f32::from_bits(w as u32)).to_bits(),
                v.to_bits(),
                "{h:#x}"
            );
            assert_eq!(back, h, "{h:#x}");
            assert_eq!(to_f64_exact(F16, h).to_bits(), v.to_bits());
        }
    }
    assert_eq!(nans, 2 * 1023);
}

#[test]
fn bf16_all_values_round_trip_through_f32() {
    let nf = &mut Flags::default();
    for h in 0..=0xffffu64 {
        let w = convert(BF16, F32, h, Round::NearestEven, nf);
        let quiet_h = if is_nan(BF16, h) { h | 0x40 } else { h };
        // bf16 is the top half of f32, so widening is a shift (plus quietening).
        assert_eq!(w, quiet_h << 16, "{h:#x}");
        assert_eq!(convert(F32, BF16, w, Round::NearestEven, nf), quiet_h);
    }
}

#[test]
fn f32_to_f16_and_bf16_match_table_oracle_300k_random() {
    let mut rng = Rng(1);
    let tables = [Table::new(F16), Table::new(BF16)];
    for i in 0..300_000u32 {
        let r = rng.next();
        // Half uniform bits, half exponents around the f16 range (including its subnormals
        // and overflow boundary).
        let a = if i % 2 == 0 {
            r as u32
        } else {
            let e = 100 + (r >> 32) as u32 % 50;
            (r as u32 & 0x807f_ffff) | (e << 23)
        };
        let x = f64::from(f32::from_bits(a));
        for t in &tables {
            for rm in MODES {
                for saturate in [false, true] {
                    let got =
                        convert_with(F32, t.f, u64::from(a), rm, saturate, &mut Flags::default());
                    match t.round(x, 0, rm, saturate) {
                        Some(want) => assert_eq!(got, want, "{:?} {rm:?} {a:#x}", t.f),
                        None => assert!(t.is_nan_code(got)),
                    }
                }
            }
        }
    }
}

#[test]
fn f16_f64_to_f16_matches_table_oracle_200k_random() {
    let t = Table::new(F16);
    let mut rng = Rng(2);
    for _ in 0..200_000 {
        let r = rng.next();
        let e = 1023 - 30 + (r >> 52) % 50;
        let a = (r & 0x800f_ffff_ffff_ffff) | (e << 52);
        for rm in MODES {
            let got = convert(F64, F16, a, rm, &mut Flags::default());
            assert_eq!(
                Some(got),
                t.round(f64::from_bits(a), 0, rm, false),
                "{rm:?} {a:#x}"
            );
        }
    }
}

/// Random 16-bit codes biased toward interesting exponents.
fn small_code(rng: &mut Rng, t: &Table) -> u64 {
    let r = rng.next();
    let width = t.width();
    if r.is_multiple_of(4) {
        // Specials, zeros, extremes.
        let picks = [
            0u64,
            1,
            0x3ff,
            0x400,
            t.vals.len() as u64 - 1,
            t.vals.len() as u64,
            0xffff,
        ];
        (picks[(r >> 8) as usize % picks.len()] | ((r >> 20) & 1) << (width - 1)) & 0xffff
    } else {
        (r >> 16) & 0xffff
    }
}

fn check_16bit_random(f: Format, n: u32, seed: u64) {
    let t = Table::new(f);
    let mut rng = Rng(seed);
    for i in 0..n {
        let a = small_code(&mut rng, &t);
        // Half of the second operands share the first's exponent neighbourhood.
        let b = if i % 2 == 0 {
            small_code(&mut rng, &t)
        } else {
            (a ^ (rng.next() & ((1 << (f.man_bits + 3)) - 1))) ^ (rng.next() & 0x8000)
        };
        let c = small_code(&mut rng, &t);
        for rm in MODES {
            for op in [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Sqrt, Op::Fma] {
                check_small(&t, op, a, b, c, rm);
            }
        }
    }
}

#[test]
fn f16_all_ops_all_modes_match_table_oracle_300k_random() {
    check_16bit_random(F16, 300_000, 3);
}

#[test]
fn bf16_all_ops_all_modes_match_table_oracle_300k_random() {
    check_16bit_random(BF16, 300_000, 4);
}
