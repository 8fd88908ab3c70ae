//! The value types of the typed IR.
//!
//! Every IR value has one [`Ty`]: a boolean, an integer of an explicit kind (unsigned `U`,
//! signed `I`, untyped bits `B`) and width (1 to 1024 bits), or a float format. The rules that
//! give AST expressions these types are written down in `semantics/LANGUAGE.md`.

use std::fmt;

/// The float formats the pseudocode names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FloatTy {
    /// OCP FP4 E2M1.
    Fp4,
    /// OCP FP6 E2M3.
    Fp6,
    /// OCP FP6 E3M2 (`bf6`).
    Bf6,
    /// OCP FP8 E4M3 (`fp8`).
    Fp8,
    /// OCP FP8 E5M2 (`bf8`).
    Bf8,
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
}

impl FloatTy {
    /// The storage width in bits.
    pub fn width(self) -> u32 {
        match self {
            FloatTy::Fp4 => 4,
            FloatTy::Fp6 | FloatTy::Bf6 => 6,
            FloatTy::Fp8 | FloatTy::Bf8 => 8,
            FloatTy::F16 | FloatTy::Bf16 => 16,
            FloatTy::F32 => 32,
            FloatTy::F64 => 64,
        }
    }

    /// The name used in views and conversion helpers (`f32`, `bf16`, `fp8`, ...).
    pub fn name(self) -> &'static str {
        match self {
            FloatTy::Fp4 => "fp4",
            FloatTy::Fp6 => "fp6",
            FloatTy::Bf6 => "bf6",
            FloatTy::Fp8 => "fp8",
            FloatTy::Bf8 => "bf8",
            FloatTy::F16 => "f16",
            FloatTy::Bf16 => "bf16",
            FloatTy::F32 => "f32",
            FloatTy::F64 => "f64",
        }
    }

    /// The soft-float format that computes on this type.
    pub fn format(self) -> crate::float::Format {
        use crate::float as fl;
        match self {
            FloatTy::Fp4 => fl::FP4,
            FloatTy::Fp6 => fl::FP6,
            FloatTy::Bf6 => fl::BF6,
            FloatTy::Fp8 => fl::FP8,
            FloatTy::Bf8 => fl::BF8,
            FloatTy::F16 => fl::F16,
            FloatTy::Bf16 => fl::BF16,
            FloatTy::F32 => fl::F32,
            FloatTy::F64 => fl::F64,
        }
    }

    /// A rank for picking the wider of two formats in mixed arithmetic.
    fn rank(self) -> u32 {
        match self {
            FloatTy::F64 => 6,
            FloatTy::F32 => 5,
            FloatTy::F16 | FloatTy::Bf16 => 4,
            _ => 1,
        }
    }
}

/// The type of an IR value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A truth value, the result of compares and logical operators.
    Bool,
    /// An unsigned integer of the given width.
    U(u32),
    /// A two's-complement signed integer of the given width.
    I(u32),
    /// Untyped bits of the given width; arithmetic treats them as unsigned.
    B(u32),
    /// A float.
    F(FloatTy),
}

/// The widest value the pseudocode manipulates.
pub const MAX_WIDTH: u32 = 2048;

impl Ty {
    /// The width in bits (1 for `Bool`).
    pub fn width(self) -> u32 {
        match self {
            Ty::Bool => 1,
            Ty::U(w) | Ty::I(w) | Ty::B(w) => w,
            Ty::F(f) => f.width(),
        }
    }

    /// True for `U`, `I` and `B`.
    pub fn is_int(self) -> bool {
        matches!(self, Ty::U(_) | Ty::I(_) | Ty::B(_))
    }

    /// True for signed integers.
    pub fn is_signed(self) -> bool {
        matches!(self, Ty::I(_))
    }

    /// The float format, if this is a float.
    pub fn float(self) -> Option<FloatTy> {
        match self {
            Ty::F(f) => Some(f),
            _ => None,
        }
    }

    /// The same kind at another width (floats and booleans become bits).
    pub fn with_width(self, width: u32) -> Ty {
        match self {
            Ty::U(_) => Ty::U(width),
            Ty::I(_) => Ty::I(width),
            _ => Ty::B(width),
        }
    }

    /// Parses a typed-view suffix: `u32`, `i16`, `b64`, `f32`, `bf16`, `fp8`, ...
    pub fn from_view(name: &str) -> Option<Ty> {
        let float = match name {
            "f16" => Some(FloatTy::F16),
            "f32" => Some(FloatTy::F32),
            "f64" => Some(FloatTy::F64),
            "bf16" => Some(FloatTy::Bf16),
            "fp8" => Some(FloatTy::Fp8),
            "bf8" => Some(FloatTy::Bf8),
            "fp6" => Some(FloatTy::Fp6),
            "bf6" => Some(FloatTy::Bf6),
            "fp4" => Some(FloatTy::Fp4),
            _ => None,
        };
        if let Some(f) = float {
            return Some(Ty::F(f));
        }
        let (letter, digits) = name.split_at(1.min(name.len()));
        let width: u32 = digits.parse().ok()?;
        if width == 0 || width > MAX_WIDTH || digits.starts_with('0') {
            return None;
        }
        match letter {
            "u" => Some(Ty::U(width)),
            "i" => Some(Ty::I(width)),
            "b" => Some(Ty::B(width)),
            _ => None,
        }
    }

    /// The float type of a given width for `N'F` casts.
    pub fn float_of_width(width: u32) -> Option<FloatTy> {
        match width {
            16 => Some(FloatTy::F16),
            32 => Some(FloatTy::F32),
            64 => Some(FloatTy::F64),
            8 => Some(FloatTy::Fp8),
            _ => None,
        }
    }

    /// The wider of two floats (the left one when they rank equal).
    pub fn wider_float(a: FloatTy, b: FloatTy) -> FloatTy {
        if b.rank() > a.rank() {
            b
        } else {
            a
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Bool => f.write_str("bool"),
            Ty::U(w) => write!(f, "u{w}"),
            Ty::I(w) => write!(f, "i{w}"),
            Ty::B(w) => write!(f, "b{w}"),
            Ty::F(x) => f.write_str(x.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_parse() {
        assert_eq!(Ty::from_view("u32"), Some(Ty::U(32)));
        assert_eq!(Ty::from_view("i24"), Some(Ty::I(24)));
        assert_eq!(Ty::from_view("b1024"), Some(Ty::B(1024)));
        assert_eq!(Ty::from_view("bf16"), Some(Ty::F(FloatTy::Bf16)));
        assert_eq!(Ty::from_view("f16"), Some(Ty::F(FloatTy::F16)));
        assert_eq!(Ty::from_view("IEEE"), None);
        assert_eq!(Ty::from_view("u0"), None);
        assert_eq!(Ty::from_view("u"), None);
        assert_eq!(Ty::from_view("x"), None);
    }

    #[test]
    fn widths() {
        assert_eq!(Ty::F(FloatTy::Bf6).width(), 6);
        assert_eq!(Ty::Bool.width(), 1);
        assert_eq!(Ty::I(65).with_width(32), Ty::I(32));
        assert_eq!(Ty::wider_float(FloatTy::F16, FloatTy::F32), FloatTy::F32);
    }
}
