//! Bit-exact IEEE 754 soft-float for the ISA's floating-point pseudocode.
//!
//! Values are raw bit patterns in the low bits of a `u64`; input bits above a format's width
//! are ignored and output bits above it are zero. One generic implementation serves every
//! format, described by a [`Format`]: the IEEE formats [`F16`], [`BF16`], [`F32`], [`F64`],
//! and the narrow OCP/MX formats [`FP8`] (E4M3), [`BF8`] (E5M2), [`FP6`] (E2M3), [`BF6`]
//! (E3M2) and [`FP4`] (E2M1).
//!
//! # Why soft-float
//! The emulator must reproduce the GPU bit for bit under every rounding mode and independently
//! of the host's FTZ/DAZ settings, so no host floating-point arithmetic is used for rounding:
//! results are computed exactly (or with a sticky bit) in integers and rounded once by a
//! single routine. Subnormals are always handled exactly; denormal flushing is the caller's
//! choice via [`flush_subnormal`].
//!
//! # Exceptions
//! Operations take `&mut Flags` and set (never clear) the IEEE flags they raise. Underflow is
//! raised when the result is tiny *after* rounding and inexact (as on x86).
//!
//! # NaN rules
//! * If any operand is a NaN, the result is the *first* NaN operand in argument order
//!   (`a`, `b`, `c`), quietened by setting the top mantissa bit; sign and payload are kept.
//!   Any signalling NaN operand raises `invalid`. `sub(a, NaN)` returns that NaN with its own
//!   sign (the subtrahend is not negated).
//! * Invalid operations (`inf - inf`, `0 * inf`, `0 / 0`, `inf / inf`, `sqrt(negative)`)
//!   return the default NaN: sign 0, exponent all ones, only the top mantissa bit set
//!   (`0x7e00` f16, `0x7fc0` bf16, `0x7fc0_0000` f32, `0x7ff8_0000_0000_0000` f64, `0x7e`
//!   BF8). FP8 E4M3 uses its only NaN encoding, `0x7f`. FP6/FP4 have no NaN: an invalid
//!   operation gives `+max` there.
//!
//! For two-operand operations the propagation rule matches x86 SSE/AVX (which returns the
//! first source operand's NaN, quietened). Differences from x86:
//! * x86's default NaN ("QNaN floating-point indefinite") has the sign bit set (`0xffc0_0000`
//!   for f32); ours is positive (as on ARM with default-NaN mode and RISC-V).
//! * x86 FMA forms (`vfmadd132/213/231`) order their sources differently from the
//!   mathematical `a * b + c`; here the order is always `a`, `b`, `c`.
//! * `fma(0, inf, qNaN)` returns the quiet NaN without raising `invalid` (IEEE leaves it open).
//!
//! # Formats without infinity or NaN
//! `FiniteNanOnlyAllOnes` (FP8 E4M3, OCP "fn"): overflow that IEEE would round to infinity
//! gives NaN (`S.1111.111`), and so does an exact infinite result such as `x / 0`.
//! `FiniteNoNan` (FP6, FP4): results always saturate to the largest finite value, `x / 0`
//! gives `±max`, and NaN results become `+max`. See [`convert_with`] for conversions.

mod arith;
mod convert;
mod core;
mod format;
#[cfg(test)]
mod tests;

pub use self::arith::{add, div, fma, mul, sqrt, sub};
pub use self::convert::{
    convert, convert_with, exponent_unbiased, frexp, from_f64, from_int, from_uint, ldexp,
    round_to_integral, to_f64_exact, to_int,
};

pub use self::format::{
    Flags, Format, Round, SpecialKind, BF16, BF6, BF8, F16, F32, F64, FP4, FP6, FP8,
};

use self::core::{propagate_nan, unpack, Spec, Val};

impl Format {
    /// Total width in bits (sign + exponent + mantissa).
    pub fn width(self) -> u32 {
        let s = Spec::of(self);
        64 - s.width_mask.leading_zeros()
    }

    /// Exponent bias.
    pub fn bias(self) -> i32 {
        Spec::of(self).bias
    }

    /// The default NaN produced by invalid operations (`+max` for formats without NaN).
    pub fn default_nan(self) -> u64 {
        Spec::of(self).default_nan()
    }

    /// The largest finite value, negated if `negative`.
    pub fn max_finite(self, negative: bool) -> u64 {
        Spec::of(self).max_finite(negative)
    }

    /// Infinity with the given sign, or `None` if the format has none.
    pub fn infinity(self, negative: bool) -> Option<u64> {
        (self.kind == SpecialKind::Ieee).then(|| Spec::of(self).infinity_or(negative))
    }
}

/// The class of a value, ordered like the bits of AMD's `V_CMP_CLASS` mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// Signalling NaN (mask bit 0).
    SignalingNan,
    /// Quiet NaN (bit 1).
    QuietNan,
    /// Negative infinity (bit 2).
    NegInfinity,
    /// Negative normal (bit 3).
    NegNormal,
    /// Negative subnormal (bit 4).
    NegSubnormal,
    /// Negative zero (bit 5).
    NegZero,
    /// Positive zero (bit 6).
    PosZero,
    /// Positive subnormal (bit 7).
    PosSubnormal,
    /// Positive normal (bit 8).
    PosNormal,
    /// Positive infinity (bit 9).
    PosInfinity,
}

impl Class {
    /// This class's bit in a `V_CMP_CLASS`-style mask.
    pub fn mask_bit(self) -> u32 {
        1 << self as u32
    }
}

/// Whether `bits` is a NaN (never true for `FiniteNoNan` formats).
pub fn is_nan(f: Format, bits: u64) -> bool {
    matches!(unpack(Spec::of(f), bits).1, Val::Nan { .. })
}

/// Whether `bits` is a signalling NaN (top mantissa bit clear). FP8 E4M3's only NaN is quiet.
pub fn is_snan(f: Format, bits: u64) -> bool {
    unpack(Spec::of(f), bits).1 == Val::Nan { quiet: false }
}

/// Whether `bits` is a quiet NaN.
pub fn is_qnan(f: Format, bits: u64) -> bool {
    unpack(Spec::of(f), bits).1 == Val::Nan { quiet: true }
}

/// Whether `bits` is an infinity.
pub fn is_inf(f: Format, bits: u64) -> bool {
    unpack(Spec::of(f), bits).1 == Val::Inf
}

/// Whether `bits` is `+0` or `-0`.
pub fn is_zero(f: Format, bits: u64) -> bool {
    unpack(Spec::of(f), bits).1 == Val::Zero
}

/// Whether `bits` is a nonzero subnormal.
pub fn is_subnormal(f: Format, bits: u64) -> bool {
    exponent_field(f, bits) == 0 && mantissa_field(f, bits) != 0
}

/// Whether `bits` is finite (zero, subnormal or normal).
pub fn is_finite(f: Format, bits: u64) -> bool {
    matches!(unpack(Spec::of(f), bits).1, Val::Zero | Val::Finite { .. })
}

/// The sign bit (true for negative, including `-0` and negative NaNs).
pub fn sign(f: Format, bits: u64) -> bool {
    bits & Spec::of(f).sign_mask != 0
}

/// The biased exponent field.
pub fn exponent_field(f: Format, bits: u64) -> u64 {
    let s = Spec::of(f);
    (bits >> s.man_bits) & s.exp_ones
}

/// The stored mantissa (fraction) field, without the implicit bit.
pub fn mantissa_field(f: Format, bits: u64) -> u64 {
    bits & Spec::of(f).man_mask
}

/// The class of `bits`.
pub fn classify(f: Format, bits: u64) -> Class {
    let (negative, v) = unpack(Spec::of(f), bits);
    match (v, negative) {
        (Val::Nan { quiet: false }, _) => Class::SignalingNan,
        (Val::Nan { quiet: true }, _) => Class::QuietNan,
        (Val::Inf, true) => Class::NegInfinity,
        (Val::Inf, false) => Class::PosInfinity,
        (Val::Zero, true) => Class::NegZero,
        (Val::Zero, false) => Class::PosZero,
        (Val::Finite { .. }, _) => match (is_subnormal(f, bits), negative) {
            (true, true) => Class::NegSubnormal,
            (true, false) => Class::PosSubnormal,
            (false, true) => Class::NegNormal,
            (false, false) => Class::PosNormal,
        },
    }
}

/// Quietens a NaN (sets the top mantissa bit, keeping sign and payload); other values are
/// returned unchanged.
pub fn quiet(f: Format, bits: u64) -> u64 {
    let s = Spec::of(f);
    if is_nan(f, bits) {
        s.quieten(bits)
    } else {
        bits & s.width_mask
    }
}

/// Flips the sign bit (also of NaNs); never raises flags.
pub fn neg(f: Format, bits: u64) -> u64 {
    let s = Spec::of(f);
    (bits ^ s.sign_mask) & s.width_mask
}

/// Clears the sign bit (also of NaNs); never raises flags.
pub fn abs(f: Format, bits: u64) -> u64 {
    let s = Spec::of(f);
    bits & s.width_mask & !s.sign_mask
}

/// Replaces a subnormal with zero of the same sign (denormal flushing); other values are
/// returned unchanged.
pub fn flush_subnormal(f: Format, bits: u64) -> u64 {
    let s = Spec::of(f);
    if is_subnormal(f, bits) {
        bits & s.sign_mask
    } else {
        bits & s.width_mask
    }
}

/// A key whose integer order is the numeric order of non-NaN encodings, with `-0 < +0` when
/// `split_zero` is set and `-0 == +0` otherwise.
fn order_key(s: Spec, bits: u64, split_zero: bool) -> i128 {
    let magnitude = i128::from(bits & s.width_mask & !s.sign_mask);
    if bits & s.sign_mask == 0 {
        magnitude
    } else if split_zero {
        -magnitude - 1
    } else {
        -magnitude
    }
}

/// Shared NaN screening for comparisons: `None` if either operand is a NaN.
fn compare_keys(
    f: Format,
    a: u64,
    b: u64,
    signaling: bool,
    flags: &mut Flags,
) -> Option<(i128, i128)> {
    let s = Spec::of(f);
    let (_, va) = unpack(s, a);
    let (_, vb) = unpack(s, b);
    match (va, vb) {
        (Val::Nan { .. }, _) | (_, Val::Nan { .. }) => {
            let snan = Val::Nan { quiet: false };
            if signaling || va == snan || vb == snan {
                flags.invalid = true;
            }
            None
        }
        _ => Some((order_key(s, a, false), order_key(s, b, false))),
    }
}

/// IEEE `compareQuietEqual`: false if either is NaN (`invalid` only for signalling NaNs);
/// `-0 == +0`.
pub fn eq(f: Format, a: u64, b: u64, flags: &mut Flags) -> bool {
    compare_keys(f, a, b, false, flags).is_some_and(|(x, y)| x == y)
}

/// Ordered less-or-greater (`<>`, `V_CMP_LG`): false if either is NaN, raising `invalid` for
/// any NaN like the other ordered comparisons; `-0 <> +0` is false.
pub fn lg(f: Format, a: u64, b: u64, flags: &mut Flags) -> bool {
    compare_keys(f, a, b, true, flags).is_some_and(|(x, y)| x != y)
}

/// IEEE `compareSignalingLess`: false if either is NaN, raising `invalid` for any NaN.
pub fn lt(f: Format, a: u64, b: u64, flags: &mut Flags) -> bool {
    compare_keys(f, a, b, true, flags).is_some_and(|(x, y)| x < y)
}

/// IEEE `compareSignalingLessEqual`: false if either is NaN, raising `invalid` for any NaN.
pub fn le(f: Format, a: u64, b: u64, flags: &mut Flags) -> bool {
    compare_keys(f, a, b, true, flags).is_some_and(|(x, y)| x <= y)
}

/// Which of `min_num`/`max_num`/`minimum`/`maximum`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum MinMax {
    Min,
    Max,
}

fn min_max(f: Format, a: u64, b: u64, which: MinMax, nan_wins: bool, flags: &mut Flags) -> u64 {
    let s = Spec::of(f);
    let (_, va) = unpack(s, a);
    let (_, vb) = unpack(s, b);
    let a_nan = matches!(va, Val::Nan { .. });
    let b_nan = matches!(vb, Val::Nan { .. });
    if a_nan || b_nan {
        let snan = Val::Nan { quiet: false };
        if nan_wins || va == snan || vb == snan {
            // IEEE 754-2008 minNum/maxNum turn a signalling NaN into a quiet NaN result: the
            // first signalling one; minimum/maximum return the first NaN.
            let ops = if !nan_wins && va != snan {
                [(b, vb), (a, va)]
            } else {
                [(a, va), (b, vb)]
            };
            return propagate_nan(s, &ops, flags).unwrap_or_else(|| s.default_nan());
        }
        // A quiet NaN loses to a number.
        return if a_nan {
            b & s.width_mask
        } else {
            a & s.width_mask
        };
    }
    let (ka, kb) = (order_key(s, a, true), order_key(s, b, true));
    let pick_b = match which {
        MinMax::Min => kb < ka,
        MinMax::Max => kb > ka,
    };
    if pick_b {
        b & s.width_mask
    } else {
        a & s.width_mask
    }
}

/// IEEE 754-2008 `minNum`: a quiet NaN loses to a number; a signalling NaN operand raises
/// `invalid` and gives that NaN quietened (as AMD's IEEE mode does). `-0` is less than `+0`.
pub fn min_num(f: Format, a: u64, b: u64, flags: &mut Flags) -> u64 {
    min_max(f, a, b, MinMax::Min, false, flags)
}

/// IEEE 754-2008 `maxNum`: a quiet NaN loses to a number; a signalling NaN operand raises
/// `invalid` and gives that NaN quietened. `+0` is greater than `-0`.
pub fn max_num(f: Format, a: u64, b: u64, flags: &mut Flags) -> u64 {
    min_max(f, a, b, MinMax::Max, false, flags)
}

/// IEEE 754-2019 `minimum`: any NaN operand gives the first NaN quietened (`invalid` if
/// signalling); `-0 < +0`.
pub fn minimum(f: Format, a: u64, b: u64, flags: &mut Flags) -> u64 {
    min_max(f, a, b, MinMax::Min, true, flags)
}

/// IEEE 754-2019 `maximum`: any NaN operand gives the first NaN quietened (`invalid` if
/// signalling); `+0 > -0`.
pub fn maximum(f: Format, a: u64, b: u64, flags: &mut Flags) -> u64 {
    min_max(f, a, b, MinMax::Max, true, flags)
}
