//! Conversions between formats and to and from integers, plus the exponent-level operations
//! (round to integral, `ldexp`, `frexp`).

use super::core::{
    bit_len, propagate_nan, round_pack, round_up, split, unpack, Spec, Unrounded, Val,
};
use super::format::{Flags, Format, Round, SpecialKind, F64};

/// Converts `bits` from format `from` to format `to`, correctly rounded.
///
/// Same as [`convert_with`] with `saturate = false`.
pub fn convert(from: Format, to: Format, bits: u64, rm: Round, flags: &mut Flags) -> u64 {
    convert_with(from, to, bits, rm, false, flags)
}

/// Converts `bits` from format `from` to format `to`, correctly rounded, optionally saturating.
///
/// * Finite values are rounded by `rm`. On overflow IEEE formats give infinity or the largest
///   finite value depending on `rm`, `FiniteNanOnlyAllOnes` (FP8 E4M3) gives NaN where IEEE
///   would give infinity, and `FiniteNoNan` (FP6, FP4) always clamps to the largest finite
///   value. With `saturate`, every format clamps to the largest finite value. Overflow raises
///   `overflow` and `inexact` either way.
/// * Infinities stay infinite in IEEE formats. With `saturate`, or in `FiniteNoNan` formats,
///   they clamp to the largest finite value (raising `overflow` and `inexact`); in
///   `FiniteNanOnlyAllOnes` without `saturate` they become NaN (raising `invalid`).
/// * NaNs keep their sign and the top bits of their payload and are quietened; a signalling
///   NaN raises `invalid`. In `FiniteNanOnlyAllOnes` the NaN is `S.1111.111` with the sign
///   kept. `FiniteNoNan` formats have no NaN: NaN converts to `+max` (positive largest
///   finite value) and raises `invalid`.
pub fn convert_with(
    from: Format,
    to: Format,
    bits: u64,
    rm: Round,
    saturate: bool,
    flags: &mut Flags,
) -> u64 {
    let (fs, ts) = (Spec::of(from), Spec::of(to));
    let (sign, v) = unpack(fs, bits);
    match v {
        Val::Zero => ts.zero(sign),
        Val::Finite { exp, sig } => round_pack(
            ts,
            Unrounded::new(sign, exp, u128::from(sig), false),
            rm,
            saturate,
            flags,
        ),
        Val::Inf => match ts.kind {
            SpecialKind::Ieee if !saturate => ts.infinity_or(sign),
            SpecialKind::FiniteNanOnlyAllOnes if !saturate => {
                flags.invalid = true;
                ts.all_ones_nan(sign)
            }
            _ => {
                flags.overflow = true;
                flags.inexact = true;
                ts.max_finite(sign)
            }
        },
        Val::Nan { quiet } => {
            if !quiet {
                flags.invalid = true;
            }
            match ts.kind {
                SpecialKind::Ieee => {
                    let payload = bits & fs.man_mask;
                    let payload = if ts.man_bits >= fs.man_bits {
                        payload << (ts.man_bits - fs.man_bits)
                    } else {
                        payload >> (fs.man_bits - ts.man_bits)
                    };
                    ts.quieten(ts.sign_bit(sign) | (ts.exp_ones << ts.man_bits) | payload)
                }
                SpecialKind::FiniteNanOnlyAllOnes => ts.all_ones_nan(sign),
                SpecialKind::FiniteNoNan => {
                    flags.invalid = true;
                    ts.max_mag()
                }
            }
        }
    }
}

/// The exact value of `bits` as an `f64`.
///
/// Every value of a supported format with at most 11 exponent bits is an `f64` value, except
/// the top binade of an 11-bit-exponent format without infinity, which becomes infinity. NaNs
/// keep their sign, their payload (shifted to the top of the `f64` mantissa) and their
/// quiet/signalling state. No host floating-point arithmetic is involved.
pub fn to_f64_exact(f: Format, bits: u64) -> f64 {
    let s = Spec::of(f);
    let (sign, v) = unpack(s, bits);
    let out = match v {
        Val::Nan { .. } => {
            let payload = (bits & s.man_mask) << (52 - s.man_bits);
            (u64::from(sign) << 63) | (0x7ff << 52) | payload
        }
        _ => convert(f, F64, bits, Round::NearestEven, &mut Flags::default()),
    };
    f64::from_bits(out)
}

/// Converts an `f64` to format `f`, correctly rounded; same as [`convert`] from [`F64`].
pub fn from_f64(f: Format, x: f64, rm: Round, flags: &mut Flags) -> u64 {
    convert(F64, f, x.to_bits(), rm, flags)
}

/// Converts to an integer of `width` bits (8, 16, 32 or 64; other values are clamped to
/// 1..=64), rounding by `rm`, with AMD semantics: NaN gives 0, and values outside the
/// integer's range (including infinities) clamp to its minimum or maximum. Both raise
/// `invalid`; otherwise a dropped fraction raises `inexact`.
///
/// The result is the two's complement bit pattern in the low `width` bits, zero-extended:
/// `-1` as an `i32` is `0xffff_ffff`. The ISA's conversions truncate, so callers pass
/// [`Round::TowardZero`]; Rust's saturating `as` casts agree with this for that mode.
pub fn to_int(f: Format, bits: u64, signed: bool, width: u32, rm: Round, flags: &mut Flags) -> u64 {
    let s = Spec::of(f);
    let width = width.clamp(1, 64);
    let mask = u64::MAX >> (64 - width);
    let max_pos: u128 = if signed {
        u128::from(mask >> 1)
    } else {
        u128::from(mask)
    };
    let max_neg: u128 = if signed { max_pos + 1 } else { 0 };
    let clamp = |negative: bool, flags: &mut Flags| {
        flags.invalid = true;
        if !negative {
            max_pos as u64
        } else if signed {
            (max_neg as u64) & mask
        } else {
            0
        }
    };
    let (sign, v) = unpack(s, bits);
    match v {
        Val::Nan { .. } => {
            flags.invalid = true;
            0
        }
        Val::Inf => clamp(sign, flags),
        Val::Zero => 0,
        Val::Finite { exp, sig } => {
            let (magnitude, inexact) = if exp >= 0 {
                if exp > 64 {
                    return clamp(sign, flags);
                }
                (u128::from(sig) << exp, false)
            } else {
                let (q, round, rest) = split(u128::from(sig), -exp, false);
                let up = round_up(rm, sign, q, round, rest);
                (u128::from(q) + u128::from(up), round || rest)
            };
            let limit = if sign { max_neg } else { max_pos };
            if magnitude > limit {
                return clamp(sign, flags);
            }
            if inexact {
                flags.inexact = true;
            }
            let magnitude = magnitude as u64;
            if sign {
                magnitude.wrapping_neg() & mask
            } else {
                magnitude
            }
        }
    }
}

/// Converts a signed integer to format `f`, correctly rounded. Zero gives `+0`.
pub fn from_int(f: Format, value: i128, rm: Round, flags: &mut Flags) -> u64 {
    let s = Spec::of(f);
    let magnitude = value.unsigned_abs();
    if magnitude == 0 {
        return s.zero(false);
    }
    round_pack(
        s,
        Unrounded::new(value < 0, 0, magnitude, false),
        rm,
        false,
        flags,
    )
}

/// Converts an unsigned integer to format `f`, correctly rounded. Zero gives `+0`.
pub fn from_uint(f: Format, value: u128, rm: Round, flags: &mut Flags) -> u64 {
    let s = Spec::of(f);
    if value == 0 {
        return s.zero(false);
    }
    round_pack(s, Unrounded::new(false, 0, value, false), rm, false, flags)
}

/// Rounds to an integral value in the same format by `rm` (floor is [`Round::Down`], ceil
/// [`Round::Up`], trunc [`Round::TowardZero`], rint [`Round::NearestEven`]).
///
/// This is IEEE `roundToIntegralExact`: a changed value raises `inexact`. The sign of a zero
/// result is the operand's sign (`floor(-0.5) = -1`, `ceil(-0.5) = -0`). Infinities and zeros
/// are returned unchanged, NaNs quietened.
pub fn round_to_integral(f: Format, bits: u64, rm: Round, flags: &mut Flags) -> u64 {
    let s = Spec::of(f);
    let (sign, v) = unpack(s, bits);
    match v {
        Val::Nan { .. } => propagate_nan(s, &[(bits, v)], flags).unwrap_or(bits),
        Val::Finite { exp, sig } if exp < 0 => {
            let (q, round, rest) = split(u128::from(sig), -exp, false);
            let q = q + u64::from(round_up(rm, sign, q, round, rest));
            if round || rest {
                flags.inexact = true;
            }
            if q == 0 {
                s.zero(sign)
            } else {
                // q is at most 2^man_bits, so this is exact.
                round_pack(
                    s,
                    Unrounded::new(sign, 0, u128::from(q), false),
                    rm,
                    false,
                    flags,
                )
            }
        }
        _ => bits & s.width_mask,
    }
}

/// `bits * 2^n`, correctly rounded (overflow and subnormal results are rounded by `rm`).
/// Zeros and infinities are returned unchanged, NaNs quietened.
pub fn ldexp(f: Format, bits: u64, n: i32, rm: Round, flags: &mut Flags) -> u64 {
    let s = Spec::of(f);
    let (sign, v) = unpack(s, bits);
    match v {
        Val::Nan { .. } => propagate_nan(s, &[(bits, v)], flags).unwrap_or(bits),
        Val::Finite { exp, sig } => {
            // Beyond ±10000 every supported format over- or underflows anyway.
            let exp = exp + n.clamp(-10_000, 10_000);
            round_pack(
                s,
                Unrounded::new(sign, exp, u128::from(sig), false),
                rm,
                false,
                flags,
            )
        }
        _ => bits & s.width_mask,
    }
}

/// `floor(log2(|x|))` for finite nonzero `x` (subnormals included), `None` for zero,
/// infinity and NaN.
pub fn exponent_unbiased(f: Format, bits: u64) -> Option<i32> {
    let s = Spec::of(f);
    match unpack(s, bits).1 {
        Val::Finite { exp, sig } => Some(exp + bit_len(u128::from(sig)) - 1),
        _ => None,
    }
}

/// Splits `x` into a mantissa `m` with `0.5 <= |m| < 1` (same sign as `x`) and an exponent
/// `e` with `x = m * 2^e`, like C's `frexp`. Zeros, infinities and NaNs are returned
/// unchanged with exponent 0.
///
/// In formats whose smallest normal exponent is above -1 (FP4 E2M1 and FP6 E2M3), the
/// mantissa is subnormal there and is rounded to nearest even, so `m * 2^e` may differ from
/// `x` in the last bit (and `|m|` may round up to 1).
pub fn frexp(f: Format, bits: u64) -> (u64, i32) {
    let s = Spec::of(f);
    let (sign, v) = unpack(s, bits);
    match v {
        Val::Finite { exp, sig } => {
            let e = exp + bit_len(u128::from(sig));
            let m = round_pack(
                s,
                Unrounded::new(sign, exp - e, u128::from(sig), false),
                Round::NearestEven,
                false,
                &mut Flags::default(),
            );
            (m, e)
        }
        _ => (bits & s.width_mask, 0),
    }
}
