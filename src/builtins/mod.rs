//! What the built-in functions compute. Their types are in `crate::ir::builtins`; their
//! definitions, with what AMD says and our choices, are in `semantics/BUILTINS.md`.
//!
//! Every float operation goes through `crate::float` (bit-exact, rounding mode honoured);
//! the functions the hardware only approximates (`sin`, `cos`, `log2`, `pow`) are computed in
//! f64 by the host's libm and rounded once to the result format, and are marked approximate.

pub mod ops;

use crate::float::{self as fl, Flags, Format, Round};
use crate::ir::builtins::{Builtin, Func};
use crate::ir::{FloatTy, Ty};
use crate::value::Bits;

/// The float environment of one execution: rounding mode and accumulated IEEE flags.
#[derive(Clone, Copy, Debug, Default)]
pub struct FpEnv {
    /// The current rounding mode (from `ROUND_MODE`).
    pub round: Round,
    /// The exception flags raised so far.
    pub flags: Flags,
}

/// Whether a built-in's result is only approximated by the hardware.
pub fn is_approximate(func: Func) -> bool {
    matches!(
        func,
        Func::Sin | Func::Cos | Func::Log2 | Func::Pow | Func::Prng
    )
}

fn float_of(t: Ty) -> Result<FloatTy, String> {
    t.float()
        .ok_or_else(|| format!("expected a float type, found {t}"))
}

fn arg(args: &[Bits], i: usize) -> Result<&Bits, String> {
    args.get(i)
        .ok_or_else(|| format!("bug: missing argument {}", i + 1))
}

fn host(f: FloatTy, bits: u64) -> f64 {
    fl::to_f64_exact(f.format(), bits)
}

fn from_host(f: FloatTy, x: f64, fp: &mut FpEnv) -> u64 {
    fl::from_f64(f.format(), x, Round::NearestEven, &mut fp.flags)
}

/// `x ** y` on floats: exact special cases, otherwise the host's `powf` rounded once.
pub fn pow(f: FloatTy, x: u64, y: u64, fp: &mut FpEnv) -> u64 {
    let (a, b) = (host(f, x), host(f, y));
    // Powers of two with an integral exponent are exact: use ldexp.
    if a == 2.0 && b.fract() == 0.0 && b.abs() < 1e6 {
        let one = from_host(f, 1.0, fp);
        return fl::ldexp(f.format(), one, b as i32, fp.round, &mut fp.flags);
    }
    from_host(f, a.powf(b), fp)
}

fn int_cmp(t: Ty, a: &Bits, b: &Bits) -> std::cmp::Ordering {
    if t.is_signed() {
        a.scmp(b)
    } else {
        a.ucmp(b)
    }
}

fn min_max(b: &Builtin, args: &[Bits], fp: &mut FpEnv) -> Result<Bits, String> {
    let t = b.ty;
    let pick2 = |x: &Bits, y: &Bits, fp: &mut FpEnv| -> Bits {
        match t {
            Ty::F(f) => {
                let fmt = f.format();
                let (a, c) = (x.low_u64(), y.low_u64());
                let r = match b.func {
                    Func::Min | Func::Min3 | Func::MinNum | Func::Min3Num => {
                        fl::min_num(fmt, a, c, &mut fp.flags)
                    }
                    Func::Max | Func::Max3 | Func::MaxNum | Func::Max3Num => {
                        fl::max_num(fmt, a, c, &mut fp.flags)
                    }
                    Func::Minimum | Func::Minimum3 => fl::minimum(fmt, a, c, &mut fp.flags),
                    _ => fl::maximum(fmt, a, c, &mut fp.flags),
                };
                Bits::from_u64(f.width(), r)
            }
            _ => {
                let less = int_cmp(t, x, y) == std::cmp::Ordering::Less;
                let want_min = matches!(
                    b.func,
                    Func::Min
                        | Func::Min3
                        | Func::MinNum
                        | Func::Min3Num
                        | Func::Minimum
                        | Func::Minimum3
                );
                if less == want_min {
                    x.clone()
                } else {
                    y.clone()
                }
            }
        }
    };
    let mut acc = arg(args, 0)?.clone();
    for a in &args[1..] {
        acc = pick2(&acc, a, fp);
    }
    Ok(acc)
}

fn convert(
    b: &Builtin,
    args: &[Bits],
    fp: &mut FpEnv,
    stochastic: bool,
    scaled: bool,
) -> Result<Bits, String> {
    let (from, to) = (b.aux, b.ty);
    let x = arg(args, 0)?;
    let w = to.width();
    let mut next = 1;
    let random = if stochastic {
        next += 1;
        Some(arg(args, 1)?.low_u64())
    } else {
        None
    };
    // An E8M0 scale: the value is multiplied (on the way to wider) or divided (on the way to
    // narrower) by 2^(scale - 127).
    let scale_exp = if scaled {
        Some(arg(args, next)?.low_u64() as i32 - 127)
    } else {
        None
    };
    match (from, to) {
        (Ty::F(f), Ty::F(g)) => {
            let mut v = x.low_u64();
            if let (Some(e), true) = (scale_exp, g.width() < f.width()) {
                v = fl::ldexp(f.format(), v, -e, Round::NearestEven, &mut fp.flags);
            }
            // Into fp8/bf8 unscaled, the trailing clamp argument selects saturation (see
            // `Func::Convert`); the other narrow targets always saturate.
            let narrow_target = match g {
                FloatTy::Fp8 | FloatTy::Bf8 if !scaled => {
                    args.get(next).is_some_and(|c| c.low_u64() != 0)
                }
                FloatTy::Fp8 | FloatTy::Bf8 | FloatTy::Fp6 | FloatTy::Bf6 | FloatTy::Fp4 => true,
                _ => false,
            };
            let mut r = match random {
                Some(rnd) => stochastic_round(f.format(), g.format(), v, rnd, narrow_target, fp),
                None => fl::convert_with(
                    f.format(),
                    g.format(),
                    v,
                    fp.round,
                    narrow_target,
                    &mut fp.flags,
                ),
            };
            if let (Some(e), true) = (scale_exp, g.width() > f.width()) {
                r = fl::ldexp(g.format(), r, e, fp.round, &mut fp.flags);
            }
            Ok(Bits::from_u64(w, r))
        }
        (Ty::F(f), _) => {
            let width = w.min(64);
            let r = fl::to_int(
                f.format(),
                x.low_u64(),
                to.is_signed(),
                width,
                Round::TowardZero,
                &mut fp.flags,
            );
            Ok(Bits::from_u64(w, r))
        }
        (_, Ty::F(g)) => {
            let r = if from.is_signed() {
                fl::from_int(g.format(), x.as_i128(), fp.round, &mut fp.flags)
            } else {
                fl::from_uint(g.format(), x.low_u128(), fp.round, &mut fp.flags)
            };
            Ok(Bits::from_u64(w, r))
        }
        _ => {
            // Integer to integer: widening extends by the source's signedness; narrowing
            // saturates to the target's range.
            if w >= from.width() {
                return Ok(x.resize(w, from.is_signed()));
            }
            let v = x.as_i128();
            let u = x.low_u128();
            let r = if to.is_signed() {
                let (lo, hi) = (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1);
                let v = if from.is_signed() {
                    v
                } else {
                    u.min(i128::MAX as u128) as i128
                };
                v.clamp(lo, hi) as u128
            } else {
                let hi = (1u128 << w) - 1;
                if from.is_signed() && v < 0 {
                    0
                } else {
                    u.min(hi)
                }
            };
            Ok(Bits::from_u128(w, r))
        }
    }
}

/// Stochastic rounding: add the random bits below the target precision to the magnitude,
/// then truncate.
fn stochastic_round(
    from: Format,
    to: Format,
    v: u64,
    rnd: u64,
    saturate: bool,
    fp: &mut FpEnv,
) -> u64 {
    if fl::is_nan(from, v) || fl::is_inf(from, v) || fl::is_zero(from, v) {
        return fl::convert_with(from, to, v, Round::NearestEven, saturate, &mut fp.flags);
    }
    let dropped = from.man_bits.saturating_sub(to.man_bits);
    if dropped == 0 || dropped >= 63 {
        return fl::convert_with(from, to, v, Round::TowardZero, saturate, &mut fp.flags);
    }
    let mask = (1u64 << dropped) - 1;
    let sign_bit = 1u64 << (from.exp_bits + from.man_bits);
    let mag = v & !sign_bit;
    let bumped = mag + (rnd & mask);
    let max_mag = sign_bit - 1;
    let bumped = bumped.min(max_mag);
    fl::convert_with(
        from,
        to,
        (v & sign_bit) | bumped,
        Round::TowardZero,
        saturate,
        &mut fp.flags,
    )
}

fn norm(f: FloatTy, x: u64, signed: bool, fp: &mut FpEnv) -> Bits {
    let v = host(f, x);
    if v.is_nan() {
        return Bits::zero(16);
    }
    let (lo, scale) = if signed {
        (-1.0, 32767.0)
    } else {
        (0.0, 65535.0)
    };
    let clamped = v.clamp(lo, 1.0) * scale;
    let _ = fp;
    // Round half to even.
    let r = clamped.round();
    let r = if (clamped - clamped.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - clamped.signum()
    } else {
        r
    };
    Bits::from_u64(16, r as i64 as u64)
}

/// Evaluates a built-in with a value. `ret` is the call's result type.
///
/// # Errors
/// A message when the built-in has no executable definition here.
pub fn call(b: &Builtin, args: &[Bits], ret: Ty, fp: &mut FpEnv) -> Result<Bits, String> {
    let w = ret.width();
    let bool_bits = |v: bool| Bits::from_u64(1, v as u64);
    match b.func {
        Func::IsNan | Func::IsSignalNan | Func::IsQuietNan | Func::IsInf | Func::IsDenorm => {
            let f = float_of(b.ty)?.format();
            let x = arg(args, 0)?.low_u64();
            Ok(bool_bits(match b.func {
                Func::IsNan => fl::is_nan(f, x),
                Func::IsSignalNan => fl::is_snan(f, x),
                Func::IsQuietNan => fl::is_qnan(f, x),
                Func::IsInf => fl::is_inf(f, x),
                _ => fl::is_subnormal(f, x),
            }))
        }
        Func::CvtToQuietNan => {
            let f = float_of(b.ty)?.format();
            let x = arg(args, 0)?.low_u64();
            Ok(Bits::from_u64(
                w,
                if fl::is_nan(f, x) { fl::quiet(f, x) } else { x },
            ))
        }
        Func::Abs => {
            let x = arg(args, 0)?;
            Ok(match b.ty {
                Ty::F(f) => Bits::from_u64(w, fl::abs(f.format(), x.low_u64())),
                t if t.is_signed() && x.sign_bit() => x.neg(),
                _ => x.clone(),
            })
        }
        Func::Sign => {
            let x = arg(args, 0)?;
            Ok(Bits::from_u64(1, x.sign_bit() as u64))
        }
        Func::Exponent => {
            let f = float_of(b.ty)?.format();
            Ok(Bits::from_u64(
                32,
                fl::exponent_field(f, arg(args, 0)?.low_u64()),
            ))
        }
        Func::Mantissa => {
            let f = float_of(b.ty)?.format();
            Ok(Bits::from_u64(w, fl::frexp(f, arg(args, 0)?.low_u64()).0))
        }
        Func::SignExt => Ok(arg(args, 0)?.sext(64)),
        Func::SignExtFromBit => {
            let x = arg(args, 0)?;
            let n = arg(args, 1)?.low_u64().min(x.width() as u64) as u32;
            if n == 0 {
                return Ok(Bits::zero(x.width()));
            }
            Ok(x.zext(n).sext(x.width()))
        }
        Func::Floor | Func::Ceil | Func::Trunc => {
            let f = float_of(b.ty)?.format();
            let rm = match b.func {
                Func::Floor => Round::Down,
                Func::Ceil => Round::Up,
                _ => Round::TowardZero,
            };
            Ok(Bits::from_u64(
                w,
                fl::round_to_integral(f, arg(args, 0)?.low_u64(), rm, &mut fp.flags),
            ))
        }
        Func::Fract => {
            let f = float_of(b.ty)?.format();
            let x = arg(args, 0)?.low_u64();
            let fl_x = fl::round_to_integral(f, x, Round::Down, &mut fp.flags);
            Ok(Bits::from_u64(
                w,
                fl::sub(f, x, fl_x, fp.round, &mut fp.flags),
            ))
        }
        Func::Sqrt => {
            let f = float_of(b.ty)?.format();
            Ok(Bits::from_u64(
                w,
                fl::sqrt(f, arg(args, 0)?.low_u64(), fp.round, &mut fp.flags),
            ))
        }
        Func::Sin | Func::Cos | Func::Log2 => {
            let f = float_of(b.ty)?;
            let x = host(f, arg(args, 0)?.low_u64());
            let y = match b.func {
                Func::Sin => x.sin(),
                Func::Cos => x.cos(),
                _ => x.log2(),
            };
            Ok(Bits::from_u64(w, from_host(f, y, fp)))
        }
        Func::Pow => {
            let f = float_of(b.ty)?;
            Ok(Bits::from_u64(
                w,
                pow(f, arg(args, 0)?.low_u64(), arg(args, 1)?.low_u64(), fp),
            ))
        }
        Func::Ldexp => {
            let f = float_of(b.ty)?.format();
            let n = arg(args, 1)?
                .as_i64()
                .clamp(i32::MIN as i64, i32::MAX as i64) as i32;
            Ok(Bits::from_u64(
                w,
                fl::ldexp(f, arg(args, 0)?.low_u64(), n, fp.round, &mut fp.flags),
            ))
        }
        Func::Fma => {
            let f = float_of(b.ty)?.format();
            Ok(Bits::from_u64(
                w,
                fl::fma(
                    f,
                    arg(args, 0)?.low_u64(),
                    arg(args, 1)?.low_u64(),
                    arg(args, 2)?.low_u64(),
                    fp.round,
                    &mut fp.flags,
                ),
            ))
        }
        Func::IsEven => {
            let f = float_of(b.ty)?;
            let x = host(f, arg(args, 0)?.low_u64());
            Ok(bool_bits(x.is_finite() && x % 2.0 == 0.0))
        }
        Func::MakeF32 => {
            let s = arg(args, 0)?.low_u64() & 1;
            let e = arg(args, 1)?.low_u64() & 0xff;
            let m = arg(args, 2)?.low_u64() & 0x7f_ffff;
            Ok(Bits::from_u64(32, (s << 31) | (e << 23) | m))
        }
        Func::CountBits => Ok(Bits::from_u64(32, arg(args, 0)?.count_ones() as u64)),
        Func::ReverseBits => Ok(arg(args, 0)?.reverse()),
        Func::Convert { stochastic, scaled } => convert(b, args, fp, stochastic, scaled),
        Func::CvtHelper => convert(b, args, fp, false, false),
        Func::ToSnorm | Func::ToUnorm => {
            let f = float_of(b.aux)?;
            Ok(norm(
                f,
                arg(args, 0)?.low_u64(),
                b.func == Func::ToSnorm,
                fp,
            ))
        }
        Func::Min
        | Func::Max
        | Func::Min3
        | Func::Max3
        | Func::MinNum
        | Func::MaxNum
        | Func::Min3Num
        | Func::Max3Num
        | Func::Minimum
        | Func::Maximum
        | Func::Minimum3
        | Func::Maximum3 => min_max(b, args, fp),
        Func::SadU8 | Func::MsadU8 => {
            let (a, r, c) = (
                arg(args, 0)?.low_u64(),
                arg(args, 1)?.low_u64(),
                arg(args, 2)?.low_u64(),
            );
            let mut sum = c as u32;
            for i in 0..4 {
                let (x, y) = ((a >> (8 * i)) & 0xff, (r >> (8 * i)) & 0xff);
                if b.func == Func::MsadU8 && y == 0 {
                    continue;
                }
                sum = sum.wrapping_add(x.abs_diff(y) as u32);
            }
            Ok(Bits::from_u64(32, sum as u64))
        }
        Func::Sat8 => {
            let v = arg(args, 0)?.as_i128();
            Ok(Bits::from_u64(8, v.clamp(-128, 127) as i64 as u64))
        }
        Func::BytePermute => {
            let data = arg(args, 0)?.low_u64();
            let sel = arg(args, 1)?.low_u64() & 0xff;
            let byte = |i: u64| (data >> (8 * i)) & 0xff;
            let v = match sel {
                13.. => 0xff,
                12 => 0,
                8..=11 => {
                    let src = [1, 3, 5, 7][(sel - 8) as usize];
                    if byte(src) & 0x80 != 0 {
                        0xff
                    } else {
                        0
                    }
                }
                s => byte(s),
            };
            Ok(Bits::from_u64(8, v))
        }
        Func::AbsDiff => {
            let (x, y) = (arg(args, 0)?, arg(args, 1)?);
            Ok(if x.ucmp(y) == std::cmp::Ordering::Less {
                y.sub(x)
            } else {
                x.sub(y)
            })
        }
        Func::Ff1 => {
            let x = arg(args, 0)?;
            Ok(Bits::from_u64(
                32,
                x.trailing_zeros().map_or(u32::MAX as u64, |t| t as u64),
            ))
        }
        Func::Prng => {
            // The generator of AMD's own V_PRNG_B32 entry: shift left, xor 197 (0xc5) when
            // the bit shifted out is set.
            let x = arg(args, 0)?.low_u64() as u32;
            let r = (x << 1) ^ if x >> 31 == 1 { 197 } else { 0 };
            Ok(Bits::from_u64(32, r as u64))
        }
        Func::Nop => Ok(Bits::zero(w)),
        Func::Machine(crate::ir::builtins::MachineFn::Other) if ret == Ty::U(32) => {
            // `writeableBitMask` / `HwRegWriteMask`: which bits of a hardware register
            // s_setreg may change. AMD does not tabulate them in the pseudocode; this model
            // lets every bit be written (see BUILTINS.md).
            Ok(Bits::from_u64(32, 0xffff_ffff))
        }
        Func::Machine(m) => Err(format!(
            "{m:?} is a memory/wave helper, not executed by the ALU model"
        )),
    }
}

/// Runs a built-in called for its effect.
///
/// # Errors
/// A message when the built-in has no executable definition here.
pub fn effect(b: &Builtin, _args: &[Bits]) -> Result<(), String> {
    match b.func {
        Func::Nop => Ok(()),
        Func::Machine(m) => Err(format!(
            "{m:?} is a memory/wave helper, not executed by the ALU model"
        )),
        other => Err(format!("{other:?} has no effect to run")),
    }
}
