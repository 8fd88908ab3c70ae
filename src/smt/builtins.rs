//! The built-in library (`crate::builtins`) as SMT terms, for calls with symbolic arguments.
//! Each case restates what the interpreter's built-in computes; the functions the hardware
//! only approximates (sin, cos, log2, pow) and the narrow float formats are not translated.

use crate::ir::builtins::{Func, MachineFn};
use crate::ir::{Builtin, FloatTy, Ty};
use crate::value::Bits;

use super::fp;
use super::narrow;
use super::term::{self, bool_to_bv, bvop, bvpred, eq, extract, ite, Term};
use super::unsupported::Unsupported;

type R<T> = Result<T, Unsupported>;

fn float_of(t: Ty) -> R<FloatTy> {
    match t {
        Ty::F(f) => {
            fp::check(f)?;
            Ok(f)
        }
        other => Err(Unsupported(format!("float built-in on {other:?}"))),
    }
}

fn arg(args: &[Term], i: usize) -> R<&Term> {
    args.get(i)
        .ok_or_else(|| Unsupported("built-in called with too few arguments".into()))
}

/// `b(args)` with result type `ret` under rounding mode `rm`.
///
/// # Errors
/// Built-ins (or formats) this translation does not model.
pub fn call(b: &Builtin, args: &[Term], ret: Ty, rm: &Term) -> R<Term> {
    let w = ret.width();
    Ok(match b.func {
        Func::IsNan | Func::IsSignalNan | Func::IsQuietNan | Func::IsInf | Func::IsDenorm => {
            let f = float_of(b.ty)?;
            let x = arg(args, 0)?;
            bool_to_bv(&match b.func {
                Func::IsNan => fp::is_nan(f, x),
                Func::IsSignalNan => fp::is_snan(f, x),
                Func::IsQuietNan => fp::is_qnan(f, x),
                Func::IsInf => fp::is_inf(f, x),
                _ => fp::is_subnormal(f, x),
            })
        }
        Func::CvtToQuietNan => {
            let f = float_of(b.ty)?;
            let x = arg(args, 0)?;
            ite(&fp::is_nan(f, x), &fp::quieten(f, x), x)
        }
        Func::Abs => {
            let x = arg(args, 0)?;
            match b.ty {
                Ty::F(_) => fp::abs(float_of(b.ty)?, x),
                t if t.is_signed() => {
                    let neg = eq(&extract(x, x.width() - 1, 1), &Term::bv_u64(1, 1));
                    ite(&neg, &bvop("bvneg", &[x]), x)
                }
                _ => x.clone(),
            }
        }
        Func::Sign => {
            let x = arg(args, 0)?;
            extract(x, x.width() - 1, 1)
        }
        Func::Exponent => {
            let f = float_of(b.ty)?;
            let (e, s) = fp::ieee(f).unwrap_or((8, 24));
            term::zext(&extract(arg(args, 0)?, s - 1, e), 32)
        }
        Func::SignExt => term::sext(arg(args, 0)?, 64),
        Func::SignExtFromBit => {
            let x = arg(args, 0)?;
            let w = x.width();
            match arg(args, 1)?.as_bv() {
                Some(n) => {
                    let n = n.low_u64().min(w as u64) as u32;
                    if n == 0 {
                        Term::bv(&Bits::zero(w))
                    } else {
                        term::sext(&extract(x, 0, n), w)
                    }
                }
                None => {
                    // Shift the field to the top and back arithmetically.
                    let n = arg(args, 1)?;
                    let big = n.width().max(w).max(8);
                    let nb = term::zext(n, big);
                    let wb = Term::bv_u64(big, w as u64);
                    let nn = ite(&bvpred("bvugt", &nb, &wb), &wb, &nb);
                    let amt = term::zext(&bvop("bvsub", &[&wb, &nn]), w.max(big));
                    let xw = term::zext(x, w.max(big));
                    let r = bvop("bvashr", &[&bvop("bvshl", &[&xw, &amt]), &amt]);
                    let r = if big > w {
                        // Arithmetic shift within the field's own width.
                        let sh = term::extract(&amt, 0, w);
                        bvop("bvashr", &[&bvop("bvshl", &[x, &sh]), &sh])
                    } else {
                        r
                    };
                    ite(
                        &eq(&nn, &Term::bv_u64(big, 0)),
                        &Term::bv(&Bits::zero(w)),
                        &r,
                    )
                }
            }
        }
        Func::Floor | Func::Ceil | Func::Trunc => {
            let f = float_of(b.ty)?;
            let mode = match b.func {
                Func::Floor => 2,
                Func::Ceil => 1,
                _ => 3,
            };
            fp::round_integral(f, &fp::rm_const(mode), arg(args, 0)?)
        }
        Func::Fract => {
            let f = float_of(b.ty)?;
            let x = arg(args, 0)?;
            let fl = fp::round_integral(f, &fp::rm_const(2), x);
            fp::arith("fp.sub", f, rm, x, &fl)
        }
        Func::Sqrt => fp::sqrt(float_of(b.ty)?, rm, arg(args, 0)?),
        Func::Ldexp => fp::ldexp(float_of(b.ty)?, rm, arg(args, 0)?, arg(args, 1)?),
        Func::ToSnorm | Func::ToUnorm => {
            fp::norm(float_of(b.aux)?, arg(args, 0)?, b.func == Func::ToSnorm)
        }
        Func::Fma => fp::fma(
            float_of(b.ty)?,
            rm,
            arg(args, 0)?,
            arg(args, 1)?,
            arg(args, 2)?,
        ),
        Func::IsEven => bool_to_bv(&fp::is_even(float_of(b.ty)?, arg(args, 0)?)),
        Func::MakeF32 => {
            let s = extract(&term::zext(arg(args, 0)?, 64), 0, 1);
            let e = extract(&term::zext(arg(args, 1)?, 64), 0, 8);
            let m = extract(&term::zext(arg(args, 2)?, 64), 0, 23);
            term::concat(&[s, e, m])
        }
        Func::CountBits => {
            let x = arg(args, 0)?;
            let mut sum = Term::bv_u64(32, 0);
            for i in 0..x.width() {
                sum = bvop("bvadd", &[&sum, &term::zext(&extract(x, i, 1), 32)]);
            }
            sum
        }
        Func::ReverseBits => {
            let x = arg(args, 0)?;
            let bits: Vec<Term> = (0..x.width()).map(|i| extract(x, i, 1)).collect();
            term::concat(&bits)
        }
        Func::Convert {
            stochastic: false,
            scaled: false,
        }
        | Func::CvtHelper => convert(b, args, rm, w)?,
        Func::Convert {
            stochastic: false,
            scaled: true,
        } => scaled_widen(b, args, rm)?,
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
        | Func::Maximum3 => min_max(b, args)?,
        Func::SadU8 | Func::MsadU8 => {
            let (a, r, c) = (
                term::zext(arg(args, 0)?, 32),
                term::zext(arg(args, 1)?, 32),
                term::zext(arg(args, 2)?, 32),
            );
            let mut sum = c;
            for i in 0..4 {
                let x = term::zext(&extract(&a, 8 * i, 8), 32);
                let y = term::zext(&extract(&r, 8 * i, 8), 32);
                let d = ite(
                    &bvpred("bvult", &x, &y),
                    &bvop("bvsub", &[&y, &x]),
                    &bvop("bvsub", &[&x, &y]),
                );
                let add = bvop("bvadd", &[&sum, &d]);
                sum = if b.func == Func::MsadU8 {
                    ite(&eq(&y, &Term::bv_u64(32, 0)), &sum, &add)
                } else {
                    add
                };
            }
            sum
        }
        Func::Sat8 => {
            let x = arg(args, 0)?;
            let v = term::sext(x, x.width().max(9));
            let vw = v.width();
            let lo = Term::bv(&Bits::from_u64(vw, 128).neg());
            let hi = Term::bv_u64(vw, 127);
            let c = ite(
                &bvpred("bvslt", &v, &lo),
                &lo,
                &ite(&bvpred("bvsgt", &v, &hi), &hi, &v),
            );
            extract(&c, 0, 8)
        }
        Func::BytePermute => {
            let data = term::zext(arg(args, 0)?, 64);
            let sel = extract(&term::zext(arg(args, 1)?, 64), 0, 8);
            let byte = |i: u32| extract(&data, 8 * i, 8);
            let is = |v: u64| eq(&sel, &Term::bv_u64(8, v));
            let mut r = byte(7);
            for s in (0..7).rev() {
                r = ite(&is(s), &byte(s as u32), &r);
            }
            for (k, src) in [1u32, 3, 5, 7].iter().enumerate().rev() {
                let top = eq(&extract(&data, 8 * src + 7, 1), &Term::bv_u64(1, 1));
                let v = ite(&top, &Term::bv_u64(8, 0xff), &Term::bv_u64(8, 0));
                r = ite(&is(8 + k as u64), &v, &r);
            }
            r = ite(&is(12), &Term::bv_u64(8, 0), &r);
            ite(
                &bvpred("bvuge", &sel, &Term::bv_u64(8, 13)),
                &Term::bv_u64(8, 0xff),
                &r,
            )
        }
        Func::AbsDiff => {
            let (x, y) = (arg(args, 0)?, arg(args, 1)?);
            ite(
                &bvpred("bvult", x, y),
                &bvop("bvsub", &[y, x]),
                &bvop("bvsub", &[x, y]),
            )
        }
        Func::Ff1 => {
            let x = arg(args, 0)?;
            let mut r = Term::bv_u64(32, u32::MAX as u64);
            for i in (0..x.width()).rev() {
                let set = eq(&extract(x, i, 1), &Term::bv_u64(1, 1));
                r = ite(&set, &Term::bv_u64(32, i as u64), &r);
            }
            r
        }
        Func::Prng => {
            let x = term::zext(arg(args, 0)?, 32);
            let top = eq(&extract(&x, 31, 1), &Term::bv_u64(1, 1));
            let sh = bvop("bvshl", &[&x, &Term::bv_u64(32, 1)]);
            bvop(
                "bvxor",
                &[
                    &sh,
                    &ite(&top, &Term::bv_u64(32, 197), &Term::bv_u64(32, 0)),
                ],
            )
        }
        Func::Nop => Term::bv(&Bits::zero(w)),
        Func::Machine(MachineFn::Other) if ret == Ty::U(32) => Term::bv_u64(32, 0xffff_ffff),
        Func::Sin | Func::Cos | Func::Log2 | Func::Pow => {
            return Err(Unsupported(format!(
                "{:?} (approximate on hardware; the model's host value has no exact SMT form)",
                b.func
            )))
        }
        other => return Err(Unsupported(format!("the built-in {other:?}"))),
    })
}

fn min_max(b: &Builtin, args: &[Term]) -> R<Term> {
    let want_max = matches!(
        b.func,
        Func::Max | Func::Max3 | Func::MaxNum | Func::Max3Num | Func::Maximum | Func::Maximum3
    );
    let nan_wins = matches!(
        b.func,
        Func::Minimum | Func::Maximum | Func::Minimum3 | Func::Maximum3
    );
    let mut acc = arg(args, 0)?.clone();
    for a in &args[1..] {
        acc = match b.ty {
            Ty::F(_) => fp::min_max(float_of(b.ty)?, want_max, nan_wins, &acc, a),
            t => {
                let less = bvpred(if t.is_signed() { "bvslt" } else { "bvult" }, &acc, a);
                if want_max {
                    ite(&less, a, &acc)
                } else {
                    ite(&less, &acc, a)
                }
            }
        };
    }
    Ok(acc)
}

/// A scaled widening of a narrow format (`fp8_to_f32_scale` and friends): the exact widening,
/// then `ldexp` by the E8M0 scale minus 127, rounded once, as `builtins::convert` does.
fn scaled_widen(b: &Builtin, args: &[Term], rm: &Term) -> R<Term> {
    let (Ty::F(f), Ty::F(g)) = (b.aux, b.ty) else {
        return Err(Unsupported("a scaled conversion between non-floats".into()));
    };
    fp::check(g)?;
    let wide = narrow::widen(f, g, arg(args, 0)?).ok_or_else(|| {
        Unsupported(format!(
            "scaled {} to {} (only exact widenings of the narrow formats are modelled)",
            f.name(),
            g.name()
        ))
    })?;
    let scale = term::zext(&extract(arg(args, 1)?, 0, 8), 32);
    let n = bvop("bvsub", &[&scale, &Term::bv_u64(32, 127)]);
    Ok(fp::ldexp(g, rm, &wide, &n))
}

fn convert(b: &Builtin, args: &[Term], rm: &Term, w: u32) -> R<Term> {
    let (from, to) = (b.aux, b.ty);
    let x = arg(args, 0)?;
    Ok(match (from, to) {
        (Ty::F(f), Ty::F(g)) if narrow::is_narrow(f) => {
            narrow::widen(f, g, x).ok_or_else(|| {
                Unsupported(format!(
                    "{} to {} (only exact widenings of the narrow formats are modelled)",
                    f.name(),
                    g.name()
                ))
            })?
        }
        (Ty::F(f), Ty::F(g)) => {
            fp::check(f)?;
            fp::check(g)?;
            fp::convert(f, g, rm, x, true)
        }
        (Ty::F(f), _) => {
            fp::check(f)?;
            let r = fp::to_int(f, x, to.is_signed(), w.min(64));
            term::zext(&r, w)
        }
        (_, Ty::F(g)) => {
            fp::check(g)?;
            if x.width() > 128 {
                return Err(Unsupported("integer wider than 128 bits to float".into()));
            }
            fp::from_int(g, rm, x, from.is_signed())
        }
        _ => {
            let fw = from.width();
            if w >= fw {
                return Ok(if from.is_signed() {
                    term::sext(x, w)
                } else {
                    term::zext(x, w)
                });
            }
            // Narrowing saturates to the target's range.
            let big = fw + 1;
            let v = if from.is_signed() {
                term::sext(x, big)
            } else {
                term::zext(x, big)
            };
            let (lo, hi) = if to.is_signed() {
                (
                    Bits::from_u64(big, 1).shl(w as u64 - 1).neg(),
                    Bits::from_u64(big, 1)
                        .shl(w as u64 - 1)
                        .sub(&Bits::from_u64(big, 1)),
                )
            } else {
                (
                    Bits::zero(big),
                    Bits::from_u64(big, 1)
                        .shl(w as u64)
                        .sub(&Bits::from_u64(big, 1)),
                )
            };
            let (lo, hi) = (Term::bv(&lo), Term::bv(&hi));
            let c = ite(
                &bvpred("bvslt", &v, &lo),
                &lo,
                &ite(&bvpred("bvsgt", &v, &hi), &hi, &v),
            );
            extract(&c, 0, w)
        }
    })
}
