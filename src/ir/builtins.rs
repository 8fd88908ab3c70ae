//! The functions the pseudocode calls, and their types.
//!
//! [`resolve`] turns a call site (a name and the types of its arguments) into a [`Builtin`]
//! with the parameter types its arguments are converted to and the result type. What each
//! function computes is written down in `semantics/BUILTINS.md`; the interpreter implements it.
//! Families are recognised by name shape rather than listed one by one:
//! `<a>_to_<b>[_sr][_scale]` conversions (`f32_to_f16`, `fp8_to_f32_scale`, ...) and helpers
//! that name another instruction (`v_max_f32`, `v_min3_i32`, `s_ff1_i32_b32`, ...).

use std::fmt;

use super::types::{FloatTy, Ty};

/// The operation of a built-in; polymorphic ones take their operand type from [`Builtin::ty`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Func {
    /// `isNAN(x)`: bool.
    IsNan,
    /// `isSignalNAN(x)`: bool.
    IsSignalNan,
    /// `isQuietNAN(x)`: bool.
    IsQuietNan,
    /// `isINF(x)`: bool.
    IsInf,
    /// Whether x is a denormal: the meaning of `x == DENORM.f32` in the pseudocode.
    IsDenorm,
    /// `cvtToQuietNAN(x)`: x with the quiet bit set when it is a NaN.
    CvtToQuietNan,
    /// `abs(x)`.
    Abs,
    /// `sign(x)`: the sign bit, 1 bit.
    Sign,
    /// `exponent(x)`: the biased exponent field, `i32`.
    Exponent,
    /// `mantissa(x)`: the significand scaled into [0.5, 1) with x's sign (frexp).
    Mantissa,
    /// `signext(x)`: x sign-extended to 64 bits.
    SignExt,
    /// `signext_from_bit(x, n)`: x sign-extended from bit n-1.
    SignExtFromBit,
    /// `floor(x)`.
    Floor,
    /// `ceil(x)`.
    Ceil,
    /// `trunc(x)`.
    Trunc,
    /// `fract(x)`: x - floor(x).
    Fract,
    /// `sqrt(x)`: correctly rounded.
    Sqrt,
    /// `sin(x)` of x in radians; approximate on hardware (see BUILTINS.md).
    Sin,
    /// `cos(x)`: see `Sin`.
    Cos,
    /// `log2(x)`: approximate on hardware.
    Log2,
    /// `pow(x, y)`: approximate on hardware.
    Pow,
    /// `ldexp(x, n)`: x * 2^n, correctly rounded.
    Ldexp,
    /// `fma(a, b, c)`: a * b + c with one rounding.
    Fma,
    /// `float32(sign, exponent, mantissa)`: an f32 built from its three fields.
    MakeF32,
    /// `isEven(x)`: whether the integral float x is even.
    IsEven,
    /// `countbits(x)`, `count_ones(x)`, `bitCount(x)`: population count, `u32`.
    CountBits,
    /// `reverse_bits(x)`.
    ReverseBits,
    /// A `<from>_to_<to>` conversion; `from` is [`Builtin::aux`], `to` is [`Builtin::ty`].
    /// Unscaled conversions into fp8/bf8 take one more argument than the text writes, added
    /// by lowering: the encoding's `CLAMP` bit. Set, the result saturates to the largest
    /// finite value (OCP "satfinite"); clear, overflow gives infinity (bf8) or NaN (fp8), as
    /// gfx950 does (see [`saturates_by_clamp`]).
    Convert {
        /// Stochastic rounding with a random-bits argument (`_sr`).
        stochastic: bool,
        /// Takes a scale argument (`_scale`).
        scaled: bool,
    },
    /// `<to>_to_snorm`-style conversions: float to a signed normalised integer.
    ToSnorm,
    /// Float to an unsigned normalised integer.
    ToUnorm,
    /// `v_min_*`.
    Min,
    /// `v_max_*`.
    Max,
    /// `v_min3_*`.
    Min3,
    /// `v_max3_*`.
    Max3,
    /// `v_min_num_*` (IEEE 754-2019 minimumNumber).
    MinNum,
    /// `v_max_num_*`.
    MaxNum,
    /// `v_min3_num_*`.
    Min3Num,
    /// `v_max3_num_*`.
    Max3Num,
    /// `v_minimum_*` (NaN propagating).
    Minimum,
    /// `v_maximum_*`.
    Maximum,
    /// `v_minimum3_*`.
    Minimum3,
    /// `v_maximum3_*`.
    Maximum3,
    /// `v_sad_u8(a, b, c)`.
    SadU8,
    /// `v_msad_u8(a, b, c)`.
    MsadU8,
    /// `SAT8(x)`: signed saturation to 8 bits.
    Sat8,
    /// `BYTE_PERMUTE(data64, sel)`.
    BytePermute,
    /// `ABSDIFF(a, b)`: |a - b| of unsigned values.
    AbsDiff,
    /// `s_ff1_i32_b32(x)` / `s_ff1_i32_b64(x)`: index of the lowest set bit or -1.
    Ff1,
    /// `v_prng_b32(x)`: the hardware's pseudo-random step.
    Prng,
    /// `v_cvt_i16_f32`, `v_cvt_u16_f32`: see `Convert`.
    CvtHelper,
    /// `s_nop(n)` and other calls with no value that an ALU model ignores.
    Nop,
    /// A machine helper outside the ALU model (address calculation, format conversion of
    /// buffer data, GS registers, barriers, prefetch): typed here, executed by the memory
    /// and wave model.
    Machine(MachineFn),
}

/// Machine helpers that the ALU interpreter does not execute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MachineFn {
    /// `CalcDsAddr(...)`.
    CalcDsAddr,
    /// `CalcBufferAddr(...)`.
    CalcBufferAddr,
    /// `CalcGlobalAddr(...)`.
    CalcGlobalAddr,
    /// `CalcFlatAddr(...)`.
    CalcFlatAddr,
    /// `CalcScratchAddr(...)`.
    CalcScratchAddr,
    /// `CalcScalarGlobalAddr(...)`.
    CalcScalarGlobalAddr,
    /// `CalcScalarBufferAddr(...)`.
    CalcScalarBufferAddr,
    /// `CalcScalarScratchAddr(...)`.
    CalcScalarScratchAddr,
    /// `CalcImageAddr(...)`.
    CalcImageAddr,
    /// `ConvertToFormat(...)`.
    ConvertToFormat,
    /// `ConvertFromFormat(...)`.
    ConvertFromFormat,
    /// `ChannelOffsetX()` .. `ChannelOffsetW()`.
    ChannelOffset,
    /// `LDS(addr)`.
    Lds,
    /// `GS_REGS(addr)`.
    GsRegs,
    /// Barrier, prefetch, wait and scheduling helpers.
    Other,
}

/// A resolved built-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Builtin {
    /// The operation.
    pub func: Func,
    /// The operand type it works on (the result type of conversions).
    pub ty: Ty,
    /// The source type of conversions; otherwise the same as `ty`.
    pub aux: Ty,
}

/// A resolved call: the built-in, the types its arguments are converted to, and its result.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    /// The built-in.
    pub builtin: Builtin,
    /// One type per argument.
    pub params: Vec<Ty>,
    /// The result type, `None` for calls made only for their effect.
    pub ret: Option<Ty>,
}

/// Why a call cannot be typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SigError {
    /// No built-in of that name.
    Unknown,
    /// The wrong number of arguments.
    Arity {
        /// How many it takes.
        expected: usize,
    },
    /// An argument of a type the function does not take.
    BadArgument {
        /// Which argument (0-based).
        index: usize,
        /// What it needs.
        expected: &'static str,
    },
}

impl fmt::Display for SigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SigError::Unknown => f.write_str("unknown function"),
            SigError::Arity { expected } => write!(f, "takes {expected} argument(s)"),
            SigError::BadArgument { index, expected } => {
                write!(f, "argument {} must be {expected}", index + 1)
            }
        }
    }
}

impl fmt::Display for Builtin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.func {
            Func::Convert { stochastic, scaled } => write!(
                f,
                "convert.{}.{}{}{}",
                self.aux,
                self.ty,
                if stochastic { ".sr" } else { "" },
                if scaled { ".scale" } else { "" }
            ),
            Func::Machine(m) => write!(f, "machine.{m:?}"),
            func => write!(f, "{func:?}.{}", self.ty),
        }
    }
}

/// The type named by a conversion-helper component (`f32`, `u8`, `i4`, `fp8`, `bf16`).
fn conv_ty(name: &str) -> Option<Ty> {
    match name {
        "f16" => Some(Ty::F(FloatTy::F16)),
        "f32" | "float32" => Some(Ty::F(FloatTy::F32)),
        "f64" => Some(Ty::F(FloatTy::F64)),
        "bf16" => Some(Ty::F(FloatTy::Bf16)),
        "fp8" => Some(Ty::F(FloatTy::Fp8)),
        "bf8" => Some(Ty::F(FloatTy::Bf8)),
        "fp6" => Some(Ty::F(FloatTy::Fp6)),
        "bf6" => Some(Ty::F(FloatTy::Bf6)),
        "fp4" => Some(Ty::F(FloatTy::Fp4)),
        _ => Ty::from_view(name).filter(|t| !matches!(t, Ty::B(_))),
    }
}

fn float_arg(args: &[Ty], index: usize) -> Result<FloatTy, SigError> {
    args.get(index)
        .and_then(|t| t.float())
        .ok_or(SigError::BadArgument {
            index,
            expected: "a float",
        })
}

fn arity(args: &[Ty], n: usize) -> Result<(), SigError> {
    if args.len() == n {
        Ok(())
    } else {
        Err(SigError::Arity { expected: n })
    }
}

fn sig(func: Func, ty: Ty, params: Vec<Ty>, ret: Option<Ty>) -> Signature {
    Signature {
        builtin: Builtin { func, ty, aux: ty },
        params,
        ret,
    }
}

/// Whether `sig` is a conversion whose saturation the encoding's clamp bit selects: unscaled
/// conversions into fp8/bf8 (scaled conversions into the MX formats, and every conversion into
/// fp6/bf6/fp4, which have no infinity or NaN, always saturate).
pub fn saturates_by_clamp(sig: &Signature) -> bool {
    matches!(sig.builtin.func, Func::Convert { scaled: false, .. })
        && matches!(sig.builtin.ty, Ty::F(FloatTy::Fp8 | FloatTy::Bf8))
}

/// Types a call of `name` with arguments of types `args`. Untyped literals among the
/// arguments arrive as `None`-free default types; see `semantics/LANGUAGE.md`.
///
/// # Errors
/// [`SigError`] when the name is unknown or the arguments do not fit.
pub fn resolve(name: &str, args: &[Ty]) -> Result<Signature, SigError> {
    let unary_float = |func: Func, ret: Option<Ty>| -> Result<Signature, SigError> {
        arity(args, 1)?;
        let f = Ty::F(float_arg(args, 0)?);
        Ok(sig(func, f, vec![f], Some(ret.unwrap_or(f))))
    };
    match name {
        "isNAN" => return unary_float(Func::IsNan, Some(Ty::Bool)),
        "isSignalNAN" => return unary_float(Func::IsSignalNan, Some(Ty::Bool)),
        "isQuietNAN" => return unary_float(Func::IsQuietNan, Some(Ty::Bool)),
        "isINF" => return unary_float(Func::IsInf, Some(Ty::Bool)),
        "cvtToQuietNAN" => return unary_float(Func::CvtToQuietNan, None),
        "exponent" => return unary_float(Func::Exponent, Some(Ty::I(32))),
        "mantissa" => return unary_float(Func::Mantissa, None),
        "floor" => return unary_float(Func::Floor, None),
        "ceil" => return unary_float(Func::Ceil, None),
        "trunc" => return unary_float(Func::Trunc, None),
        "fract" => return unary_float(Func::Fract, None),
        "sqrt" => return unary_float(Func::Sqrt, None),
        "sin" => return unary_float(Func::Sin, None),
        "cos" => return unary_float(Func::Cos, None),
        "log2" => return unary_float(Func::Log2, None),
        "isEven" => return unary_float(Func::IsEven, Some(Ty::Bool)),
        "abs" => {
            arity(args, 1)?;
            let t = args[0];
            return Ok(sig(Func::Abs, t, vec![t], Some(t)));
        }
        "sign" => {
            arity(args, 1)?;
            let t = args[0];
            return Ok(sig(Func::Sign, t, vec![t], Some(Ty::U(1))));
        }
        "signext" => {
            arity(args, 1)?;
            let t = args[0];
            if !t.is_int() {
                return Err(SigError::BadArgument {
                    index: 0,
                    expected: "an integer",
                });
            }
            return Ok(sig(Func::SignExt, t, vec![t], Some(Ty::I(64))));
        }
        "signext_from_bit" => {
            arity(args, 2)?;
            let t = args[0];
            return Ok(sig(
                Func::SignExtFromBit,
                t,
                vec![t, Ty::U(32)],
                Some(t.with_width(t.width())),
            ));
        }
        "countbits" | "count_ones" | "bitCount" => {
            arity(args, 1)?;
            let t = args[0];
            return Ok(sig(Func::CountBits, t, vec![t], Some(Ty::U(32))));
        }
        "reverse_bits" => {
            arity(args, 1)?;
            let t = args[0];
            return Ok(sig(Func::ReverseBits, t, vec![t], Some(t)));
        }
        "pow" => {
            arity(args, 2)?;
            let f = Ty::F(float_arg(args, 0)?);
            return Ok(sig(Func::Pow, f, vec![f, f], Some(f)));
        }
        "ldexp" => {
            arity(args, 2)?;
            let f = Ty::F(float_arg(args, 0)?);
            return Ok(sig(Func::Ldexp, f, vec![f, Ty::I(32)], Some(f)));
        }
        "fma" => {
            arity(args, 3)?;
            let mut f = float_arg(args, 0)?;
            for g in args[1..3].iter().filter_map(|a| a.float()) {
                f = Ty::wider_float(f, g);
            }
            let f = Ty::F(f);
            return Ok(sig(Func::Fma, f, vec![f, f, f], Some(f)));
        }
        "float32" => {
            arity(args, 3)?;
            let f = Ty::F(FloatTy::F32);
            return Ok(sig(
                Func::MakeF32,
                f,
                vec![Ty::U(1), Ty::U(8), Ty::U(23)],
                Some(f),
            ));
        }
        "SAT8" => {
            arity(args, 1)?;
            let t = args[0];
            return Ok(sig(Func::Sat8, t, vec![t], Some(Ty::I(8))));
        }
        "BYTE_PERMUTE" => {
            arity(args, 2)?;
            return Ok(sig(
                Func::BytePermute,
                Ty::B(64),
                vec![Ty::B(64), Ty::U(8)],
                Some(Ty::U(8)),
            ));
        }
        "ABSDIFF" => {
            arity(args, 2)?;
            let t = Ty::U(args[0].width().max(args[1].width()));
            return Ok(sig(Func::AbsDiff, t, vec![t, t], Some(t)));
        }
        "v_prng_b32" => {
            arity(args, 1)?;
            return Ok(sig(Func::Prng, Ty::B(32), vec![Ty::B(32)], Some(Ty::B(32))));
        }
        "s_nop" | "nop" => {
            let params = args.to_vec();
            return Ok(sig(Func::Nop, Ty::B(32), params, None));
        }
        _ => {}
    }
    if let Some(m) = machine_fn(name) {
        let ret = match m {
            MachineFn::Other => match name {
                "IsM0" | "InWorkgroup" | "CheckBarrierComplete" => Some(Ty::Bool),
                "HwRegWriteMask" | "writeableBitMask" => Some(Ty::U(32)),
                _ => None,
            },
            MachineFn::ChannelOffset => Some(Ty::U(32)),
            MachineFn::ConvertToFormat | MachineFn::ConvertFromFormat => Some(Ty::B(32)),
            MachineFn::Lds | MachineFn::GsRegs => Some(Ty::B(32)),
            _ => Some(Ty::U(64)),
        };
        return Ok(sig(Func::Machine(m), Ty::B(32), args.to_vec(), ret));
    }
    if let Some(s) = resolve_conversion(name, args)? {
        return Ok(s);
    }
    resolve_helper(name, args)
}

fn machine_fn(name: &str) -> Option<MachineFn> {
    Some(match name {
        "CalcDsAddr" => MachineFn::CalcDsAddr,
        "CalcBufferAddr" => MachineFn::CalcBufferAddr,
        "CalcGlobalAddr" => MachineFn::CalcGlobalAddr,
        "CalcFlatAddr" => MachineFn::CalcFlatAddr,
        "CalcScratchAddr" => MachineFn::CalcScratchAddr,
        "CalcScalarGlobalAddr" => MachineFn::CalcScalarGlobalAddr,
        "CalcScalarBufferAddr" => MachineFn::CalcScalarBufferAddr,
        "CalcScalarScratchAddr" => MachineFn::CalcScalarScratchAddr,
        "CalcImageAddr" => MachineFn::CalcImageAddr,
        "ConvertToFormat" => MachineFn::ConvertToFormat,
        "ConvertFromFormat" => MachineFn::ConvertFromFormat,
        "ChannelOffsetX" | "ChannelOffsetY" | "ChannelOffsetZ" | "ChannelOffsetW" => {
            MachineFn::ChannelOffset
        }
        "LDS" => MachineFn::Lds,
        "GS_REGS" => MachineFn::GsRegs,
        "PrefetchScalarData"
        | "PrefetchScalarInst"
        | "InWorkgroup"
        | "CheckBarrierComplete"
        | "WaitIdleExceptStoreCnt"
        | "ReallocVgprs"
        | "HwRegWriteMask"
        | "IsM0"
        | "writeableBitMask" => MachineFn::Other,
        _ => return None,
    })
}

/// `<from>_to_<to>[_sr|_SR][_scale]`, plus `_snorm` / `_unorm` targets.
fn resolve_conversion(name: &str, args: &[Ty]) -> Result<Option<Signature>, SigError> {
    let Some((from_name, rest)) = name.split_once("_to_") else {
        return Ok(None);
    };
    let mut to_name = rest;
    let mut scaled = false;
    let mut stochastic = false;
    if let Some(r) = to_name.strip_suffix("_scale") {
        scaled = true;
        to_name = r;
    }
    if let Some(r) = to_name
        .strip_suffix("_sr")
        .or_else(|| to_name.strip_suffix("_SR"))
    {
        stochastic = true;
        to_name = r;
    }
    let Some(from) = conv_ty(from_name) else {
        return Ok(None);
    };
    let (func, to) = match to_name {
        "snorm" => (Func::ToSnorm, Ty::I(16)),
        "unorm" => (Func::ToUnorm, Ty::U(16)),
        other => match conv_ty(other) {
            Some(t) => (Func::Convert { stochastic, scaled }, t),
            None => return Ok(None),
        },
    };
    let mut params = vec![from];
    if stochastic {
        params.push(Ty::U(32));
    }
    if scaled {
        params.push(Ty::U(8));
    }
    // A few scaled conversions carry extra operands (e.g. a packed index); accept them as
    // written.
    if args.len() < params.len() {
        return Err(SigError::Arity {
            expected: params.len(),
        });
    }
    while params.len() < args.len() {
        params.push(args[params.len()]);
    }
    Ok(Some(Signature {
        builtin: Builtin {
            func,
            ty: to,
            aux: from,
        },
        params,
        ret: Some(to),
    }))
}

/// Helpers named after other instructions: `v_max_f32`, `v_min3_i16`, `v_max3_num_f32`,
/// `v_sad_u8`, `s_ff1_i32_b64`, `v_cvt_i16_f32`.
fn resolve_helper(name: &str, args: &[Ty]) -> Result<Signature, SigError> {
    let lower = name.to_ascii_lowercase();
    if lower == "v_sad_u8" || lower == "v_msad_u8" {
        arity(args, 3)?;
        let func = if lower == "v_sad_u8" {
            Func::SadU8
        } else {
            Func::MsadU8
        };
        return Ok(sig(func, Ty::U(32), vec![Ty::U(32); 3], Some(Ty::U(32))));
    }
    if let Some(w) = lower.strip_prefix("s_ff1_i32_b") {
        arity(args, 1)?;
        let width: u32 = w.parse().map_err(|_| SigError::Unknown)?;
        return Ok(sig(
            Func::Ff1,
            Ty::B(width),
            vec![Ty::B(width)],
            Some(Ty::I(32)),
        ));
    }
    if let Some(rest) = lower.strip_prefix("v_cvt_") {
        let (to, from) = rest.split_once('_').ok_or(SigError::Unknown)?;
        let (to, from) = (
            conv_ty(to).ok_or(SigError::Unknown)?,
            conv_ty(from).ok_or(SigError::Unknown)?,
        );
        arity(args, 1)?;
        return Ok(Signature {
            builtin: Builtin {
                func: Func::CvtHelper,
                ty: to,
                aux: from,
            },
            params: vec![from],
            ret: Some(to),
        });
    }
    let Some(rest) = lower.strip_prefix("v_") else {
        return Err(SigError::Unknown);
    };
    let (op, ty_name) = rest.rsplit_once('_').ok_or(SigError::Unknown)?;
    let ty = conv_ty(ty_name).ok_or(SigError::Unknown)?;
    let (func, n) = match op {
        "min" => (Func::Min, 2),
        "max" => (Func::Max, 2),
        "min3" => (Func::Min3, 3),
        "max3" => (Func::Max3, 3),
        "min_num" => (Func::MinNum, 2),
        "max_num" => (Func::MaxNum, 2),
        "min3_num" => (Func::Min3Num, 3),
        "max3_num" => (Func::Max3Num, 3),
        "minimum" => (Func::Minimum, 2),
        "maximum" => (Func::Maximum, 2),
        "minimum3" => (Func::Minimum3, 3),
        "maximum3" => (Func::Maximum3, 3),
        _ => return Err(SigError::Unknown),
    };
    arity(args, n)?;
    Ok(sig(func, ty, vec![ty; n], Some(ty)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_by_name() {
        let s = resolve("f16_to_f32", &[Ty::F(FloatTy::F16)]).expect("resolves");
        assert_eq!(s.ret, Some(Ty::F(FloatTy::F32)));
        assert_eq!(s.builtin.aux, Ty::F(FloatTy::F16));
        let s = resolve(
            "f32_to_fp4_sr_scale",
            &[Ty::F(FloatTy::F32), Ty::U(32), Ty::U(8)],
        )
        .expect("resolves");
        assert_eq!(
            s.builtin.func,
            Func::Convert {
                stochastic: true,
                scaled: true
            }
        );
        assert_eq!(s.params, vec![Ty::F(FloatTy::F32), Ty::U(32), Ty::U(8)]);
        let s = resolve("u4_to_u32", &[Ty::U(4)]).expect("resolves");
        assert_eq!(s.ret, Some(Ty::U(32)));
    }

    #[test]
    fn helpers_by_name() {
        let s = resolve("v_max3_i32", &[Ty::I(32); 3]).expect("resolves");
        assert_eq!(s.builtin.func, Func::Max3);
        assert_eq!(s.ret, Some(Ty::I(32)));
        assert_eq!(
            resolve("v_max_f32", &[Ty::I(32)]),
            Err(SigError::Arity { expected: 2 })
        );
        assert_eq!(resolve("frobnicate", &[]), Err(SigError::Unknown));
        let s = resolve("s_ff1_i32_b64", &[Ty::U(64)]).expect("resolves");
        assert_eq!(s.params, vec![Ty::B(64)]);
    }

    #[test]
    fn float_functions_need_floats() {
        assert_eq!(
            resolve("isNAN", &[Ty::U(32)]),
            Err(SigError::BadArgument {
                index: 0,
                expected: "a float"
            })
        );
        let s = resolve("exponent", &[Ty::F(FloatTy::F16)]).expect("resolves");
        assert_eq!(s.ret, Some(Ty::I(32)));
    }
}
