//! Unpack, round and pack: the only place where a result is rounded.
//!
//! Every operation reduces its exact (or exact-enough) result to `sig * 2^exp` with an integer
//! `sig: u128` plus a sticky bit for nonzero bits below `sig`, and hands it to [`round_pack`].
//! That function applies the rounding mode, subnormal and overflow rules of the target format
//! and raises the IEEE flags, so no operation duplicates that logic.

use super::format::{Flags, Format, Round, SpecialKind};

/// A format's parameters, clamped to the supported range, with derived constants.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spec {
    pub man_bits: u32,
    pub kind: SpecialKind,
    pub bias: i32,
    /// Unbiased exponent of the smallest normal number.
    pub emin: i32,
    /// The all-ones biased exponent field, right-aligned.
    pub exp_ones: u64,
    pub man_mask: u64,
    pub sign_mask: u64,
    pub width_mask: u64,
}

impl Spec {
    /// Derives the constants of `f`. Out-of-range fields are clamped (exponent 2..=11 bits,
    /// mantissa 1..=52 bits) so that no input can make a shift overflow.
    #[inline]
    pub fn of(f: Format) -> Spec {
        let exp_bits = f.exp_bits.clamp(2, 11);
        let man_bits = f.man_bits.clamp(1, 52);
        let bias = (1i32 << (exp_bits - 1)) - 1;
        let width = 1 + exp_bits + man_bits;
        Spec {
            man_bits,
            kind: f.kind,
            bias,
            emin: 1 - bias,
            exp_ones: (1u64 << exp_bits) - 1,
            man_mask: (1u64 << man_bits) - 1,
            sign_mask: 1u64 << (width - 1),
            width_mask: if width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            },
        }
    }

    /// The largest finite magnitude, as an encoding without the sign bit.
    #[inline]
    pub fn max_mag(self) -> u64 {
        match self.kind {
            SpecialKind::Ieee => ((self.exp_ones - 1) << self.man_bits) | self.man_mask,
            SpecialKind::FiniteNanOnlyAllOnes => {
                (self.exp_ones << self.man_bits) | (self.man_mask - 1)
            }
            SpecialKind::FiniteNoNan => (self.exp_ones << self.man_bits) | self.man_mask,
        }
    }

    /// The sign bit if `negative`, else zero.
    #[inline]
    pub fn sign_bit(self, negative: bool) -> u64 {
        if negative {
            self.sign_mask
        } else {
            0
        }
    }

    /// Signed zero.
    #[inline]
    pub fn zero(self, negative: bool) -> u64 {
        self.sign_bit(negative)
    }

    /// Largest finite value with the given sign.
    #[inline]
    pub fn max_finite(self, negative: bool) -> u64 {
        self.sign_bit(negative) | self.max_mag()
    }

    /// The quiet bit (top mantissa bit).
    #[inline]
    pub fn quiet_bit(self) -> u64 {
        1u64 << (self.man_bits - 1)
    }

    /// The NaN encoding with all mantissa bits set (the only NaN of `FiniteNanOnlyAllOnes`).
    #[inline]
    pub fn all_ones_nan(self, negative: bool) -> u64 {
        self.sign_bit(negative) | (self.exp_ones << self.man_bits) | self.man_mask
    }

    /// The result of an invalid operation: positive quiet NaN with an empty payload, or `+max`
    /// for formats without NaN.
    #[inline]
    pub fn default_nan(self) -> u64 {
        match self.kind {
            SpecialKind::Ieee => (self.exp_ones << self.man_bits) | self.quiet_bit(),
            SpecialKind::FiniteNanOnlyAllOnes => self.all_ones_nan(false),
            SpecialKind::FiniteNoNan => self.max_mag(),
        }
    }

    /// An exact infinite result (inf operand, division by zero): infinity, or for formats
    /// without it NaN (`FiniteNanOnlyAllOnes`) or the largest finite value (`FiniteNoNan`).
    #[inline]
    pub fn infinity_or(self, negative: bool) -> u64 {
        match self.kind {
            SpecialKind::Ieee => self.sign_bit(negative) | (self.exp_ones << self.man_bits),
            SpecialKind::FiniteNanOnlyAllOnes => self.all_ones_nan(negative),
            SpecialKind::FiniteNoNan => self.max_finite(negative),
        }
    }

    /// Sets the quiet bit of a NaN encoding (identity for the all-ones NaN).
    #[inline]
    pub fn quieten(self, bits: u64) -> u64 {
        (bits | self.quiet_bit()) & self.width_mask
    }
}

/// What an encoding denotes, without its sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Val {
    /// Positive or negative zero.
    Zero,
    /// A nonzero finite value `sig * 2^exp` (`sig < 2^(man_bits+1)`, not necessarily normalised).
    Finite { exp: i32, sig: u64 },
    /// Infinity.
    Inf,
    /// Not a number.
    Nan { quiet: bool },
}

/// Splits an encoding into its sign and value.
#[inline]
pub(crate) fn unpack(s: Spec, bits: u64) -> (bool, Val) {
    let bits = bits & s.width_mask;
    let sign = bits & s.sign_mask != 0;
    let e = (bits >> s.man_bits) & s.exp_ones;
    let m = bits & s.man_mask;
    if e == s.exp_ones {
        match s.kind {
            SpecialKind::Ieee if m == 0 => return (sign, Val::Inf),
            SpecialKind::Ieee => {
                return (
                    sign,
                    Val::Nan {
                        quiet: m & s.quiet_bit() != 0,
                    },
                )
            }
            SpecialKind::FiniteNanOnlyAllOnes if m == s.man_mask => {
                return (sign, Val::Nan { quiet: true })
            }
            _ => {}
        }
    }
    if e == 0 {
        if m == 0 {
            (sign, Val::Zero)
        } else {
            (
                sign,
                Val::Finite {
                    exp: s.emin - s.man_bits as i32,
                    sig: m,
                },
            )
        }
    } else {
        (
            sign,
            Val::Finite {
                exp: e as i32 - s.bias - s.man_bits as i32,
                sig: m | (1u64 << s.man_bits),
            },
        )
    }
}

/// Bit length of `x` (0 for 0).
#[inline]
pub(crate) fn bit_len(x: u128) -> i32 {
    128 - x.leading_zeros() as i32
}

/// Drops the low `shift` bits of `sig`: returns the kept part, the first dropped bit (round)
/// and whether any lower dropped bit or the incoming `sticky` is set.
///
/// A non-positive shift moves `sig` left; callers guarantee the result fits in 64 bits.
#[inline]
pub(crate) fn split(sig: u128, shift: i32, sticky: bool) -> (u64, bool, bool) {
    if shift <= 0 {
        ((sig << (-shift).min(127)) as u64, false, sticky)
    } else if shift < 128 {
        let q = (sig >> shift) as u64;
        let round = (sig >> (shift - 1)) & 1 != 0;
        let rest = sig & ((1u128 << (shift - 1)) - 1) != 0 || sticky;
        (q, round, rest)
    } else if shift == 128 {
        (0, sig >> 127 != 0, sig & (u128::MAX >> 1) != 0 || sticky)
    } else {
        (0, false, sig != 0 || sticky)
    }
}

/// [`split`] for a `u64` with its leading one at bit 63 and a shift of at least 11.
#[inline]
fn split64(x: u64, shift: i32) -> (u64, bool, bool) {
    if shift < 64 {
        let q = x >> shift;
        let round = (x >> (shift - 1)) & 1 != 0;
        let rest = x & ((1u64 << (shift - 1)) - 1) != 0;
        (q, round, rest)
    } else if shift == 64 {
        (0, true, x & (u64::MAX >> 1) != 0)
    } else {
        (0, false, true)
    }
}

/// Whether rounding mode `rm` increments the truncated magnitude `q`.
#[inline]
pub(crate) fn round_up(rm: Round, negative: bool, q: u64, round: bool, rest: bool) -> bool {
    match rm {
        Round::NearestEven => round && (rest || q & 1 != 0),
        Round::TowardZero => false,
        Round::Up => !negative && (round || rest),
        Round::Down => negative && (round || rest),
    }
}

/// A result before rounding: `(-1)^negative * (sig + δ) * 2^exp`, where `δ` is in (0, 1) if
/// `sticky` and 0 otherwise.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unrounded {
    pub negative: bool,
    pub exp: i32,
    pub sig: u128,
    pub sticky: bool,
}

impl Unrounded {
    #[inline]
    pub fn new(negative: bool, exp: i32, sig: u128, sticky: bool) -> Unrounded {
        Unrounded {
            negative,
            exp,
            sig,
            sticky,
        }
    }
}

/// Rounds `x` to the format and encodes it.
///
/// When `sticky` is set, `sig` must carry at least two bits beyond the result's precision (all
/// callers keep 60 or more), so that the sticky bit cannot hide a tie. `sig` is first
/// normalised into 64 bits with a sticky bit 0, so the rounding itself is plain `u64` work. Overflow yields infinity
/// or the largest finite value as IEEE prescribes for `rm`; formats without infinity give NaN
/// (`FiniteNanOnlyAllOnes`) where IEEE gives infinity, and `saturate` (always on for
/// `FiniteNoNan`) clamps to the largest finite value instead. Tininess is detected after
/// rounding, as on x86.
pub(crate) fn round_pack(
    s: Spec,
    x: Unrounded,
    rm: Round,
    saturate: bool,
    flags: &mut Flags,
) -> u64 {
    let Unrounded {
        negative,
        exp,
        sig,
        sticky,
    } = x;
    if sig == 0 && !sticky {
        return s.zero(negative);
    }
    // Normalise to a u64 with its leading one at bit 63, folding lost bits and `sticky` into
    // bit 0. That is round-to-odd at bit 0; with the rounding position at bit 11 or above it
    // does not change the rounded result, and the rest of the work stays in 64 bits.
    let len = bit_len(sig);
    let (x, exp) = if len > 64 {
        let shift = len - 64;
        let lost = sig & ((1u128 << shift) - 1) != 0;
        (
            (sig >> shift) as u64 | u64::from(lost || sticky),
            exp + shift,
        )
    } else if len > 0 {
        let shift = 64 - len;
        (((sig as u64) << shift) | u64::from(sticky), exp - shift)
    } else {
        // A bare sticky bit (not produced by any caller): some value below 2^exp.
        (1u64 << 63, exp - 65)
    };
    let man_bits = s.man_bits as i32;
    // Exponent of the leading one.
    let e_top = exp + 63;
    let mut lsb_exp = e_top.max(s.emin) - man_bits;
    let (mut q, round, rest) = split64(x, lsb_exp - exp);
    let inexact = round || rest;
    if round_up(rm, negative, q, round, rest) {
        q += 1;
        if q == 1u64 << (man_bits + 1) {
            q >>= 1;
            lsb_exp += 1;
        }
    }
    let hidden = 1u64 << man_bits;
    let (biased, mantissa) = if q >= hidden {
        (
            i64::from(lsb_exp) + i64::from(man_bits) + i64::from(s.bias),
            q - hidden,
        )
    } else {
        (0, q)
    };
    if biased > s.exp_ones as i64 || (((biased as u64) << s.man_bits) | mantissa) > s.max_mag() {
        flags.overflow = true;
        flags.inexact = true;
        let to_infinity = match rm {
            Round::NearestEven => true,
            Round::TowardZero => false,
            Round::Up => !negative,
            Round::Down => negative,
        };
        return if saturate || s.kind == SpecialKind::FiniteNoNan || !to_infinity {
            s.max_finite(negative)
        } else {
            s.infinity_or(negative)
        };
    }
    if inexact {
        flags.inexact = true;
        if e_top < s.emin {
            // Tiny before rounding; it stays tiny after rounding unless rounding at full
            // precision (unbounded exponent) carries it up to the smallest normal.
            let tiny = e_top < s.emin - 1 || {
                let (q2, r2, s2) = split64(x, 63 - man_bits);
                let q2 = q2 + u64::from(round_up(rm, negative, q2, r2, s2));
                q2 < 1u64 << (man_bits + 1)
            };
            if tiny {
                flags.underflow = true;
            }
        }
    }
    s.sign_bit(negative) | ((biased as u64) << s.man_bits) | mantissa
}

/// Picks the NaN result of an operation whose operands are `ops` (in argument order): the
/// first NaN operand, quietened. Raises invalid if any operand is a signalling NaN. Returns
/// `None` when no operand is a NaN.
#[inline]
pub(crate) fn propagate_nan(s: Spec, ops: &[(u64, Val)], flags: &mut Flags) -> Option<u64> {
    let mut first = None;
    for &(bits, val) in ops {
        if let Val::Nan { quiet } = val {
            if !quiet {
                flags.invalid = true;
            }
            if first.is_none() {
                first = Some(s.quieten(bits));
            }
        }
    }
    first
}

/// Signals invalid and returns the default NaN.
#[inline]
pub(crate) fn invalid(s: Spec, flags: &mut Flags) -> u64 {
    flags.invalid = true;
    s.default_nan()
}
