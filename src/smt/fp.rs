//! Floating point, exactly as `crate::float` computes it: values stay raw bit-vectors; each
//! operation converts them to the SMT FloatingPoint theory only for the rounded arithmetic
//! (which IEEE 754 defines uniquely for non-NaN results), and spells out the soft-float's NaN
//! rules bit for bit around it (the first NaN operand quietened, else the default NaN; a
//! conversion's NaN keeps sign and top payload). So no verdict is "up to NaN payloads": the
//! IEEE formats (f16, bf16, f32, f64) are modelled exactly. The narrow OCP formats (fp8, bf8,
//! fp6, fp4) have no SMT counterpart and are not translated.

use crate::ir::{CmpOp, FloatTy};
use crate::value::Bits;

use super::term::{self, and, bvop, bvpred, eq, extract, ite, not, or, Sort, Term};

/// The SMT exponent and significand widths (hidden bit included) of an IEEE format.
pub fn ieee(f: FloatTy) -> Option<(u32, u32)> {
    match f {
        FloatTy::F16 => Some((5, 11)),
        FloatTy::Bf16 => Some((8, 8)),
        FloatTy::F32 => Some((8, 24)),
        FloatTy::F64 => Some((11, 53)),
        _ => None,
    }
}

/// The formats this module translates, or why not.
pub fn check(f: FloatTy) -> Result<(u32, u32), String> {
    ieee(f).ok_or_else(|| format!("{} arithmetic (no SMT float format models it)", f.name()))
}

fn fields(f: FloatTy) -> (u32, u32) {
    let (e, s) = ieee(f).unwrap_or((8, 24));
    (e, s - 1)
}

fn exp_field(f: FloatTy, x: &Term) -> Term {
    let (e, m) = fields(f);
    extract(x, m, e)
}

fn man_field(f: FloatTy, x: &Term) -> Term {
    let (_, m) = fields(f);
    extract(x, 0, m)
}

fn is_zero_bv(x: &Term) -> Term {
    eq(x, &Term::bv(&Bits::zero(x.width())))
}

fn is_ones_bv(x: &Term) -> Term {
    eq(x, &Term::bv(&Bits::zero(x.width()).not()))
}

/// Whether bits `x` of format `f` are a NaN.
pub fn is_nan(f: FloatTy, x: &Term) -> Term {
    and(
        &is_ones_bv(&exp_field(f, x)),
        &not(&is_zero_bv(&man_field(f, x))),
    )
}

/// A signalling NaN (quiet bit clear).
pub fn is_snan(f: FloatTy, x: &Term) -> Term {
    let (_, m) = fields(f);
    and(&is_nan(f, x), &is_zero_bv(&extract(x, m - 1, 1)))
}

/// A quiet NaN.
pub fn is_qnan(f: FloatTy, x: &Term) -> Term {
    let (_, m) = fields(f);
    and(&is_nan(f, x), &not(&is_zero_bv(&extract(x, m - 1, 1))))
}

/// An infinity.
pub fn is_inf(f: FloatTy, x: &Term) -> Term {
    and(&is_ones_bv(&exp_field(f, x)), &is_zero_bv(&man_field(f, x)))
}

/// A zero of either sign.
pub fn is_zero(f: FloatTy, x: &Term) -> Term {
    is_zero_bv(&extract(x, 0, f.width() - 1))
}

/// A subnormal (zero exponent, non-zero mantissa).
pub fn is_subnormal(f: FloatTy, x: &Term) -> Term {
    and(
        &is_zero_bv(&exp_field(f, x)),
        &not(&is_zero_bv(&man_field(f, x))),
    )
}

fn sign_mask(f: FloatTy) -> Bits {
    Bits::from_u64(f.width(), 1).shl(f.width() as u64 - 1)
}

/// `x` with the quiet bit set.
pub fn quieten(f: FloatTy, x: &Term) -> Term {
    let (_, m) = fields(f);
    bvop(
        "bvor",
        &[
            x,
            &Term::bv(&Bits::from_u64(f.width(), 1).shl(m as u64 - 1)),
        ],
    )
}

/// The default NaN: positive, only the quiet bit of the mantissa set.
pub fn default_nan(f: FloatTy) -> Term {
    let (e, m) = fields(f);
    let v = (((1u64 << e) - 1) << m) | (1u64 << (m - 1));
    Term::bv_u64(f.width(), v)
}

/// Flips the sign bit.
pub fn neg(f: FloatTy, x: &Term) -> Term {
    bvop("bvxor", &[x, &Term::bv(&sign_mask(f))])
}

/// Clears the sign bit.
pub fn abs(f: FloatTy, x: &Term) -> Term {
    bvop("bvand", &[x, &Term::bv(&sign_mask(f).not())])
}

/// The sign bit as a boolean.
pub fn sign(f: FloatTy, x: &Term) -> Term {
    eq(&extract(x, f.width() - 1, 1), &Term::bv_u64(1, 1))
}

/// Bits as an SMT float.
pub fn to_fp(f: FloatTy, x: &Term) -> Term {
    let (e, s) = ieee(f).unwrap_or((8, 24));
    Term::app(
        Sort::Fp(e, s),
        format!("(_ to_fp {e} {s})"),
        vec![x.clone()],
    )
}

/// An SMT float's bits (unique for non-NaN values).
pub fn from_fp(f: FloatTy, r: &Term) -> Term {
    Term::app(Sort::Bv(f.width()), "fp.to_ieee_bv", vec![r.clone()])
}

fn fp_nan(r: &Term) -> Term {
    Term::app(Sort::Bool, "fp.isNaN", vec![r.clone()])
}

/// A rounding-mode constant.
pub fn rm_const(mode: u64) -> Term {
    let name = match mode & 3 {
        0 => "RNE",
        1 => "RTP",
        2 => "RTN",
        _ => "RTZ",
    };
    Term::app(Sort::Rm, name, vec![])
}

/// The rounding mode selected by a `ROUND_MODE`-style value (its low two bits).
pub fn rm_of(mode: &Term) -> Term {
    if let Some(b) = mode.as_bv() {
        return rm_const(b.low_u64());
    }
    let low = extract(mode, 0, 2);
    let is = |v: u64| eq(&low, &Term::bv_u64(2, v));
    ite(
        &is(0),
        &rm_const(0),
        &ite(
            &is(1),
            &rm_const(1),
            &ite(&is(2), &rm_const(2), &rm_const(3)),
        ),
    )
}

/// The result of an operation on `ops`: the first NaN operand quietened, else the default
/// NaN when the SMT result `r` is NaN (an invalid operation), else `r`'s bits.
fn nan_rule(f: FloatTy, ops: &[&Term], r: &Term) -> Term {
    let mut out = ite(&fp_nan(r), &default_nan(f), &from_fp(f, r));
    for x in ops.iter().rev() {
        out = ite(&is_nan(f, x), &quieten(f, x), &out);
    }
    out
}

/// `a op b` for `+ - * /` under rounding mode `rm`.
pub fn arith(op: &str, f: FloatTy, rm: &Term, a: &Term, b: &Term) -> Term {
    let sort = to_fp(f, a).sort();
    let r = Term::app(sort, op, vec![rm.clone(), to_fp(f, a), to_fp(f, b)]);
    nan_rule(f, &[a, b], &r)
}

/// `a * b + c` with one rounding.
pub fn fma(f: FloatTy, rm: &Term, a: &Term, b: &Term, c: &Term) -> Term {
    let sort = to_fp(f, a).sort();
    let r = Term::app(
        sort,
        "fp.fma",
        vec![rm.clone(), to_fp(f, a), to_fp(f, b), to_fp(f, c)],
    );
    nan_rule(f, &[a, b, c], &r)
}

/// Correctly rounded square root.
pub fn sqrt(f: FloatTy, rm: &Term, a: &Term) -> Term {
    let sort = to_fp(f, a).sort();
    let r = Term::app(sort, "fp.sqrt", vec![rm.clone(), to_fp(f, a)]);
    nan_rule(f, &[a], &r)
}

/// Round to an integral value (NaNs quietened, infinities and zeros unchanged).
pub fn round_integral(f: FloatTy, rm: &Term, a: &Term) -> Term {
    let sort = to_fp(f, a).sort();
    let r = Term::app(sort, "fp.roundToIntegral", vec![rm.clone(), to_fp(f, a)]);
    nan_rule(f, &[a], &r)
}

/// A comparison (false when either is NaN; `-0 == +0`).
pub fn compare(op: CmpOp, f: FloatTy, a: &Term, b: &Term) -> Term {
    let (x, y) = (to_fp(f, a), to_fp(f, b));
    let p =
        |name: &str, l: &Term, r: &Term| Term::app(Sort::Bool, name, vec![l.clone(), r.clone()]);
    match op {
        CmpOp::Eq => p("fp.eq", &x, &y),
        CmpOp::Ne => not(&p("fp.eq", &x, &y)),
        // Ordered less-or-greater: false when either is NaN, and `-0 <> +0` is false.
        CmpOp::Lg => or(&p("fp.lt", &x, &y), &p("fp.lt", &y, &x)),
        CmpOp::Lt => p("fp.lt", &x, &y),
        CmpOp::Le => p("fp.leq", &x, &y),
        CmpOp::Gt => p("fp.lt", &y, &x),
        CmpOp::Ge => p("fp.leq", &y, &x),
    }
}

/// `crate::float`'s min/max family: `nan_wins` for IEEE 2019 minimum/maximum, otherwise
/// 2008 minNum/maxNum (a quiet NaN loses; a signalling one gives the first signalling NaN
/// quietened). `-0 < +0`.
pub fn min_max(f: FloatTy, want_max: bool, nan_wins: bool, a: &Term, b: &Term) -> Term {
    let (an, bn) = (is_nan(f, a), is_nan(f, b));
    let (asn, bsn) = (is_snan(f, a), is_snan(f, b));
    let first_nan = |x: &Term, y: &Term| ite(&is_nan(f, x), &quieten(f, x), &quieten(f, y));
    let nan_case = if nan_wins {
        first_nan(a, b)
    } else {
        // Some operand is signalling: (a, b) order unless only b is.
        let signalling = ite(&asn, &first_nan(a, b), &first_nan(b, a));
        let quiet = ite(&an, b, a);
        ite(&or(&asn, &bsn), &signalling, &quiet)
    };
    let (x, y) = (to_fp(f, a), to_fp(f, b));
    let lt = |l: &Term, r: &Term, ls: &Term, rs: &Term| {
        // Numeric order with -0 below +0.
        let zeros = and(&is_zero(f, ls), &is_zero(f, rs));
        or(
            &Term::app(Sort::Bool, "fp.lt", vec![l.clone(), r.clone()]),
            &and(&zeros, &and(&sign(f, ls), &not(&sign(f, rs)))),
        )
    };
    let pick_b = if want_max {
        lt(&x, &y, a, b)
    } else {
        lt(&y, &x, b, a)
    };
    ite(&or(&an, &bn), &nan_case, &ite(&pick_b, b, a))
}

fn pow2_fp(f: FloatTy, k: u32, negative: bool) -> Term {
    // 2^k as a (k+2)-bit signed integer, rounded to the format (to infinity when too large).
    let w = k + 2;
    let v = Bits::from_u64(w, 1).shl(k as u64);
    let v = if negative { v.neg() } else { v };
    let (e, s) = ieee(f).unwrap_or((8, 24));
    Term::app(
        Sort::Fp(e, s),
        format!("(_ to_fp {e} {s})"),
        vec![rm_const(0), Term::bv(&v)],
    )
}

/// Float to a `width`-bit integer, truncating, saturating, NaN to 0 (`float::to_int`).
pub fn to_int(f: FloatTy, a: &Term, signed: bool, width: u32) -> Term {
    let t = Term::app(
        to_fp(f, a).sort(),
        "fp.roundToIntegral",
        vec![rm_const(3), to_fp(f, a)],
    );
    let geq = |l: &Term, r: &Term| Term::app(Sort::Bool, "fp.geq", vec![l.clone(), r.clone()]);
    let leq = |l: &Term, r: &Term| Term::app(Sort::Bool, "fp.leq", vec![l.clone(), r.clone()]);
    let zero = Term::bv(&Bits::zero(width));
    let conv = |op: &str| {
        Term::app(
            Sort::Bv(width),
            format!("(_ {op} {width})"),
            vec![rm_const(3), t.clone()],
        )
    };
    let body = if signed {
        let max = Term::bv(&Bits::zero(width).not().lshr(1));
        let min = Term::bv(&Bits::from_u64(width, 1).shl(width as u64 - 1));
        ite(
            &geq(&t, &pow2_fp(f, width - 1, false)),
            &max,
            &ite(
                &leq(&t, &pow2_fp(f, width - 1, true)),
                &min,
                &conv("fp.to_sbv"),
            ),
        )
    } else {
        let max = Term::bv(&Bits::zero(width).not());
        let fzero = Term::app(
            t.sort(),
            format!("(_ +zero {} {})", fields(f).0, fields(f).1 + 1),
            vec![],
        );
        ite(
            &geq(&t, &pow2_fp(f, width, false)),
            &max,
            &ite(
                &Term::app(Sort::Bool, "fp.lt", vec![t.clone(), fzero]),
                &zero,
                &conv("fp.to_ubv"),
            ),
        )
    };
    ite(&is_nan(f, a), &zero, &body)
}

/// An integer (signed or not) to format `f`, correctly rounded; zero gives +0.
pub fn from_int(f: FloatTy, rm: &Term, x: &Term, signed: bool) -> Term {
    let (e, s) = ieee(f).unwrap_or((8, 24));
    let op = if signed {
        format!("(_ to_fp {e} {s})")
    } else {
        format!("(_ to_fp_unsigned {e} {s})")
    };
    let r = Term::app(Sort::Fp(e, s), op, vec![rm.clone(), x.clone()]);
    from_fp(f, &r)
}

/// Format conversion of a non-NaN value, correctly rounded; NaNs as `nan` computes them.
pub fn convert(from: FloatTy, to: FloatTy, rm: &Term, x: &Term, quiet: bool) -> Term {
    let (e, s) = ieee(to).unwrap_or((8, 24));
    let r = Term::app(
        Sort::Fp(e, s),
        format!("(_ to_fp {e} {s})"),
        vec![rm.clone(), to_fp(from, x)],
    );
    // A NaN keeps its sign and the top of its payload (`interp::convert_nan`); a payload that
    // narrows to zero becomes the quiet bit.
    let (_, fm) = fields(from);
    let (te, tm) = fields(to);
    let payload = extract(x, 0, fm);
    let payload = if tm > fm {
        term::concat(&[payload, Term::bv(&Bits::zero(tm - fm))])
    } else {
        extract(&payload, fm - tm, tm)
    };
    let qbit = Term::bv(&Bits::from_u64(tm, 1).shl(tm as u64 - 1));
    let payload = ite(&is_zero_bv(&payload), &qbit, &payload);
    let payload = if quiet {
        bvop("bvor", &[&payload, &qbit])
    } else {
        payload
    };
    let nan = term::concat(&[
        extract(x, from.width() - 1, 1),
        Term::bv(&Bits::zero(te).not()),
        payload,
    ]);
    ite(&is_nan(from, x), &nan, &from_fp(to, &r))
}

/// `bvult` shorthand for the builtins module.
pub fn ult(a: &Term, b: &Term) -> Term {
    bvpred("bvult", a, b)
}

/// IEEE remainder by two is zero and the value finite: the float is an even integer.
pub fn is_even(f: FloatTy, a: &Term) -> Term {
    let x = to_fp(f, a);
    let two = Term::app(
        x.sort(),
        format!("(_ to_fp {} {})", fields(f).0, fields(f).1 + 1),
        vec![rm_const(0), Term::bv_u64(8, 2)],
    );
    let r = Term::app(x.sort(), "fp.rem", vec![x.clone(), two]);
    and(
        &not(&or(&is_nan(f, a), &is_inf(f, a))),
        &Term::app(Sort::Bool, "fp.isZero", vec![r]),
    )
}

/// `x * 2^n`, correctly rounded once (`float::ldexp`; `n` is clamped to +-10000 as there):
/// the product is exact in a format with a 15-bit exponent, then rounded to `f`.
pub fn ldexp(f: FloatTy, rm: &Term, x: &Term, n: &Term) -> Term {
    let (_, s) = ieee(f).unwrap_or((8, 24));
    let wide = Sort::Fp(15, s);
    let n64 = term::sext(n, 64.max(n.width()));
    let w = n64.width();
    let lo = Term::bv(&Bits::from_u64(w, 10_000).neg());
    let hi = Term::bv_u64(w, 10_000);
    let nn = ite(
        &bvpred("bvslt", &n64, &lo),
        &lo,
        &ite(&bvpred("bvsgt", &n64, &hi), &hi, &n64),
    );
    let biased = bvop("bvadd", &[&extract(&nn, 0, 15), &Term::bv_u64(15, 16383)]);
    let pow = Term::app(
        wide,
        "fp",
        vec![Term::bv_u64(1, 0), biased, Term::bv(&Bits::zero(s - 1))],
    );
    let xw = Term::app(
        wide,
        format!("(_ to_fp 15 {s})"),
        vec![rm_const(0), to_fp(f, x)],
    );
    let prod = Term::app(wide, "fp.mul", vec![rm_const(0), xw, pow]);
    let (e, s) = ieee(f).unwrap_or((8, 24));
    let r = Term::app(
        Sort::Fp(e, s),
        format!("(_ to_fp {e} {s})"),
        vec![rm.clone(), prod],
    );
    nan_rule(f, &[x], &r)
}

/// Float to a 16-bit signed (`signed`) or unsigned normalised integer (`builtins::norm`):
/// clamp to [-1, 1] or [0, 1] in f64, scale by 32767 or 65535, round half to even.
pub fn norm(f: FloatTy, x: &Term, signed: bool) -> Term {
    let d = Sort::Fp(11, 53);
    let x64 = Term::app(d, "(_ to_fp 11 53)", vec![rm_const(0), to_fp(f, x)]);
    let c = |bits: u64| Term::app(d, "(_ to_fp 11 53)", vec![Term::bv_u64(64, bits)]);
    let (lo, scale) = if signed {
        (c(0xbff0_0000_0000_0000), c(0x40df_ffc0_0000_0000))
    } else {
        (c(0), c(0x40ef_ffe0_0000_0000))
    };
    let one = c(0x3ff0_0000_0000_0000);
    let lt = |a: &Term, b: &Term| Term::app(Sort::Bool, "fp.lt", vec![a.clone(), b.clone()]);
    let clamped = ite(&lt(&x64, &lo), &lo, &ite(&lt(&one, &x64), &one, &x64));
    let scaled = Term::app(d, "fp.mul", vec![rm_const(0), clamped, scale]);
    let r = Term::app(d, "fp.roundToIntegral", vec![rm_const(0), scaled]);
    let i = Term::app(Sort::Bv(32), "(_ fp.to_sbv 32)", vec![rm_const(3), r]);
    ite(&is_nan(f, x), &Term::bv_u64(16, 0), &extract(&i, 0, 16))
}
