//! Arithmetic: add, sub, mul, div, fma and sqrt, each rounded once by [`round_pack`].
//!
//! Exact intermediate results are formed in `u128`. Sums align both operands with their
//! leading one at bit 125 and shift the smaller one right with a sticky ("jamming") bit, which
//! is round-to-odd at bit 0: with 70+ bits between bit 0 and the rounding position this yields
//! the correctly rounded sum even for fma's 106-bit products.

use super::core::{bit_len, invalid, propagate_nan, round_pack, unpack, Spec, Unrounded, Val};
use super::format::{Flags, Format, Round};

/// `a + b`, correctly rounded.
///
/// `x + (-x)` is `+0`, except under [`Round::Down`] where it is `-0`.
pub fn add(f: Format, a: u64, b: u64, rm: Round, flags: &mut Flags) -> u64 {
    add_impl(Spec::of(f), a, b, false, rm, flags)
}

/// `a - b`, correctly rounded. A NaN `b` is returned quietened with its own sign.
pub fn sub(f: Format, a: u64, b: u64, rm: Round, flags: &mut Flags) -> u64 {
    add_impl(Spec::of(f), a, b, true, rm, flags)
}

#[inline]
fn add_impl(s: Spec, a: u64, b: u64, negate_b: bool, rm: Round, flags: &mut Flags) -> u64 {
    let (sa, va) = unpack(s, a);
    let (sb, vb) = unpack(s, b);
    if let Some(nan) = propagate_nan(s, &[(a, va), (b, vb)], flags) {
        return nan;
    }
    let sb = sb ^ negate_b;
    match (va, vb) {
        (Val::Inf, Val::Inf) if sa != sb => invalid(s, flags),
        (Val::Inf, _) => s.infinity_or(sa),
        (_, Val::Inf) => s.infinity_or(sb),
        (Val::Zero, Val::Zero) => s.zero(if sa == sb { sa } else { rm == Round::Down }),
        (Val::Zero, _) => s.sign_bit(sb) | (b & s.width_mask & !s.sign_mask),
        (_, Val::Zero) => a & s.width_mask,
        (Val::Finite { exp: ea, sig: ma }, Val::Finite { exp: eb, sig: mb }) => add_finite(
            s,
            (sa, ea, u128::from(ma)),
            (sb, eb, u128::from(mb)),
            rm,
            flags,
        ),
        (Val::Nan { .. }, _) | (_, Val::Nan { .. }) => s.default_nan(),
    }
}

/// Shifts `x` right by `d`, ORing every bit shifted out into bit 0.
#[inline]
fn shift_right_jam(x: u128, d: u32) -> u128 {
    if d == 0 {
        x
    } else if d < 128 {
        (x >> d) | u128::from(x & ((1u128 << d) - 1) != 0)
    } else {
        u128::from(x != 0)
    }
}

/// Rounds the sum of two nonzero finite terms `(sign, exp, sig)` (`sig < 2^126`, at most 106
/// significant bits).
pub(crate) fn add_finite(
    s: Spec,
    a: (bool, i32, u128),
    b: (bool, i32, u128),
    rm: Round,
    flags: &mut Flags,
) -> u64 {
    // Leading one at bit 125 leaves one bit of headroom for the carry of the sum.
    let norm = |(sign, exp, sig): (bool, i32, u128)| {
        let shift = 126 - bit_len(sig);
        (sign, exp - shift, sig << shift)
    };
    let (a, b) = (norm(a), norm(b));
    let ((sa, ea, ma), (sb, eb, mb)) = if a.1 >= b.1 { (a, b) } else { (b, a) };
    let mb = shift_right_jam(mb, (ea - eb) as u32);
    let (sign, sum) = if sa == sb {
        (sa, ma + mb)
    } else if ma >= mb {
        (sa, ma - mb)
    } else {
        (sb, mb - ma)
    };
    if sum == 0 {
        return s.zero(rm == Round::Down);
    }
    round_pack(s, Unrounded::new(sign, ea, sum, false), rm, false, flags)
}

/// `a * b`, correctly rounded.
pub fn mul(f: Format, a: u64, b: u64, rm: Round, flags: &mut Flags) -> u64 {
    let s = Spec::of(f);
    let (sa, va) = unpack(s, a);
    let (sb, vb) = unpack(s, b);
    if let Some(nan) = propagate_nan(s, &[(a, va), (b, vb)], flags) {
        return nan;
    }
    let sign = sa ^ sb;
    match (va, vb) {
        (Val::Inf, Val::Zero) | (Val::Zero, Val::Inf) => invalid(s, flags),
        (Val::Inf, _) | (_, Val::Inf) => s.infinity_or(sign),
        (Val::Zero, _) | (_, Val::Zero) => s.zero(sign),
        (Val::Finite { exp: ea, sig: ma }, Val::Finite { exp: eb, sig: mb }) => {
            let product = u128::from(ma) * u128::from(mb);
            round_pack(
                s,
                Unrounded::new(sign, ea + eb, product, false),
                rm,
                false,
                flags,
            )
        }
        (Val::Nan { .. }, _) | (_, Val::Nan { .. }) => s.default_nan(),
    }
}

/// `a / b`, correctly rounded. A finite nonzero `a` over zero raises `div_by_zero` and gives
/// infinity (NaN for `FiniteNanOnlyAllOnes`, the largest finite value for `FiniteNoNan`).
pub fn div(f: Format, a: u64, b: u64, rm: Round, flags: &mut Flags) -> u64 {
    let s = Spec::of(f);
    let (sa, va) = unpack(s, a);
    let (sb, vb) = unpack(s, b);
    if let Some(nan) = propagate_nan(s, &[(a, va), (b, vb)], flags) {
        return nan;
    }
    let sign = sa ^ sb;
    match (va, vb) {
        (Val::Inf, Val::Inf) | (Val::Zero, Val::Zero) => invalid(s, flags),
        (Val::Inf, _) => s.infinity_or(sign),
        (_, Val::Inf) | (Val::Zero, _) => s.zero(sign),
        (_, Val::Zero) => {
            flags.div_by_zero = true;
            s.infinity_or(sign)
        }
        (Val::Finite { exp: ea, sig: ma }, Val::Finite { exp: eb, sig: mb }) => {
            // Leading ones at bit 63 give a quotient in (2^63, 2^65): 64+ bits.
            let (za, zb) = (ma.leading_zeros(), mb.leading_zeros());
            let (ma, mb) = (ma << za, mb << zb);
            let ea = ea - za as i32;
            let eb = eb - zb as i32;
            let num = u128::from(ma) << 64;
            let den = u128::from(mb);
            let (quo, rem) = (num / den, num % den);
            round_pack(
                s,
                Unrounded::new(sign, ea - eb - 64, quo, rem != 0),
                rm,
                false,
                flags,
            )
        }
        (Val::Nan { .. }, _) | (_, Val::Nan { .. }) => s.default_nan(),
    }
}

/// `a * b + c` with a single rounding.
///
/// NaN operands take precedence: `fma(0, inf, qNaN)` returns the quiet NaN without raising
/// invalid (IEEE 754-2008 §7.2 leaves that choice to the implementation).
pub fn fma(f: Format, a: u64, b: u64, c: u64, rm: Round, flags: &mut Flags) -> u64 {
    let s = Spec::of(f);
    let (sa, va) = unpack(s, a);
    let (sb, vb) = unpack(s, b);
    let (sc, vc) = unpack(s, c);
    if let Some(nan) = propagate_nan(s, &[(a, va), (b, vb), (c, vc)], flags) {
        return nan;
    }
    let sp = sa ^ sb;
    match (va, vb, vc) {
        (Val::Inf, Val::Zero, _) | (Val::Zero, Val::Inf, _) => invalid(s, flags),
        (Val::Inf, _, Val::Inf) | (_, Val::Inf, Val::Inf) if sp != sc => invalid(s, flags),
        (Val::Inf, _, _) | (_, Val::Inf, _) => s.infinity_or(sp),
        (_, _, Val::Inf) => s.infinity_or(sc),
        (Val::Zero, _, Val::Zero) | (_, Val::Zero, Val::Zero) => {
            s.zero(if sp == sc { sp } else { rm == Round::Down })
        }
        (Val::Zero, _, _) | (_, Val::Zero, _) => c & s.width_mask,
        (Val::Finite { exp: ea, sig: ma }, Val::Finite { exp: eb, sig: mb }, vc) => {
            let product = u128::from(ma) * u128::from(mb);
            match vc {
                Val::Finite { exp: ec, sig: mc } => add_finite(
                    s,
                    (sp, ea + eb, product),
                    (sc, ec, u128::from(mc)),
                    rm,
                    flags,
                ),
                _ => round_pack(
                    s,
                    Unrounded::new(sp, ea + eb, product, false),
                    rm,
                    false,
                    flags,
                ),
            }
        }
        _ => s.default_nan(),
    }
}

/// Square root, correctly rounded. `sqrt(-0) = -0`; any other negative operand is invalid.
pub fn sqrt(f: Format, a: u64, rm: Round, flags: &mut Flags) -> u64 {
    let s = Spec::of(f);
    let (sign, va) = unpack(s, a);
    if let Some(nan) = propagate_nan(s, &[(a, va)], flags) {
        return nan;
    }
    match va {
        Val::Zero => s.zero(sign),
        _ if sign => invalid(s, flags),
        Val::Inf => s.infinity_or(false),
        Val::Finite { exp, sig } => {
            // Leading one at bit 125 or 124 with an even exponent: the root has 63 bits.
            let sig = u128::from(sig);
            let shift = 126 - bit_len(sig);
            let (mut e, mut n) = (exp - shift, sig << shift);
            if e & 1 != 0 {
                // Exact: n has at most 53 significant bits.
                n >>= 1;
                e += 1;
            }
            let root = n.isqrt();
            round_pack(
                s,
                Unrounded::new(false, e / 2, root, root * root != n),
                rm,
                false,
                flags,
            )
        }
        Val::Nan { .. } => s.default_nan(),
    }
}
