//! The formats ([`Format`] and its constants), rounding modes and exception flags: the
//! vocabulary every part of the soft-float shares.

/// Which special values a format has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialKind {
    /// IEEE 754: the all-ones exponent encodes infinity (zero mantissa) and NaNs.
    Ieee,
    /// OCP FP8 E4M3 "fn": no infinity; only `S.1111.111` (all ones) is NaN, and the all-ones
    /// exponent otherwise holds normal numbers.
    FiniteNanOnlyAllOnes,
    /// OCP MX FP6/FP4: no infinity and no NaN; every encoding is a finite number, and results
    /// out of range saturate.
    FiniteNoNan,
}

/// A binary floating-point format: sign bit, `exp_bits` exponent bits (bias
/// `2^(exp_bits-1) - 1`), `man_bits` stored mantissa bits, and its special values.
///
/// Supported ranges are 2..=11 exponent bits and 1..=52 mantissa bits; fields outside them are
/// clamped by every operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    /// Width of the exponent field.
    pub exp_bits: u32,
    /// Width of the stored mantissa (fraction) field.
    pub man_bits: u32,
    /// Which special values exist.
    pub kind: SpecialKind,
}

/// IEEE binary16.
pub const F16: Format = Format {
    exp_bits: 5,
    man_bits: 10,
    kind: SpecialKind::Ieee,
};
/// bfloat16: the top half of an f32.
pub const BF16: Format = Format {
    exp_bits: 8,
    man_bits: 7,
    kind: SpecialKind::Ieee,
};
/// IEEE binary32.
pub const F32: Format = Format {
    exp_bits: 8,
    man_bits: 23,
    kind: SpecialKind::Ieee,
};
/// IEEE binary64.
pub const F64: Format = Format {
    exp_bits: 11,
    man_bits: 52,
    kind: SpecialKind::Ieee,
};
/// OCP FP8 E4M3 ("fn"): max 448, NaN `S.1111.111`, no infinity.
pub const FP8: Format = Format {
    exp_bits: 4,
    man_bits: 3,
    kind: SpecialKind::FiniteNanOnlyAllOnes,
};
/// OCP BF8 E5M2: IEEE-like with infinity and NaNs, max 57344.
pub const BF8: Format = Format {
    exp_bits: 5,
    man_bits: 2,
    kind: SpecialKind::Ieee,
};
/// OCP MX FP6 E2M3: max 7.5, no infinity or NaN.
pub const FP6: Format = Format {
    exp_bits: 2,
    man_bits: 3,
    kind: SpecialKind::FiniteNoNan,
};
/// OCP MX BF6 E3M2: max 28, no infinity or NaN.
pub const BF6: Format = Format {
    exp_bits: 3,
    man_bits: 2,
    kind: SpecialKind::FiniteNoNan,
};
/// OCP MX FP4 E2M1: values ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}, no infinity or NaN.
pub const FP4: Format = Format {
    exp_bits: 2,
    man_bits: 1,
    kind: SpecialKind::FiniteNoNan,
};

/// Rounding direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Round {
    /// Round to nearest, ties to even (IEEE default).
    #[default]
    NearestEven,
    /// Round toward zero (truncate).
    TowardZero,
    /// Round toward +infinity.
    Up,
    /// Round toward -infinity.
    Down,
}

/// IEEE 754 exception flags. Operations set the flags they raise and never clear any.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Flags {
    /// Invalid operation (including any signalling NaN operand).
    pub invalid: bool,
    /// Exact infinite result from finite operands (`x / 0`).
    pub div_by_zero: bool,
    /// The rounded result exceeded the largest finite value.
    pub overflow: bool,
    /// The result is tiny (after rounding) and inexact.
    pub underflow: bool,
    /// The result differs from the exact value.
    pub inexact: bool,
}

impl Flags {
    /// Whether any flag is set.
    pub fn any(self) -> bool {
        self.invalid || self.div_by_zero || self.overflow || self.underflow || self.inexact
    }

    /// The union of two flag sets.
    pub fn union(self, other: Flags) -> Flags {
        Flags {
            invalid: self.invalid || other.invalid,
            div_by_zero: self.div_by_zero || other.div_by_zero,
            overflow: self.overflow || other.overflow,
            underflow: self.underflow || other.underflow,
            inexact: self.inexact || other.inexact,
        }
    }
}
