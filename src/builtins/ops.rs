//! The IR's operators on values: binary arithmetic, comparisons and conversions, bit-exact
//! through `crate::float`. One definition for every consumer: the interpreter, the JIT's
//! helpers, the SMT translation of constant operands and the optimiser's constant folding.

use std::cmp::Ordering;

use super::FpEnv;
use crate::float::Round;
use crate::ir::{BinOp, CmpOp, Conv, FloatTy, Ty};
use crate::value::Bits;

/// f32/f64 `+ - * /` under round-to-nearest-even on the host's IEEE 754 unit, with the
/// spec's NaN rule (the first NaN operand quietened, else the default NaN): bit-identical to
/// the soft-float path (the JIT emits the same instructions; its differential test holds
/// the two together) and several times faster. `None` for other formats and operators.
pub fn host_arith(f: FloatTy, op: BinOp, x: u64, y: u64) -> Option<u64> {
    fn nan_rule(bits: u32, xs: [u64; 2]) -> u64 {
        let man = if bits == 32 { 23 } else { 52 };
        let exp = ((1u64 << (bits - 1 - man)) - 1) << man;
        let quiet = 1u64 << (man - 1);
        let abs = |v: u64| v & ((1u64 << (bits - 1)) - 1);
        xs.into_iter()
            .find(|&v| abs(v) > exp)
            .map_or(exp | quiet, |v| v | quiet)
    }
    macro_rules! arith {
        ($t:ty, $bits:expr, $a:expr, $b:expr) => {{
            let (a, b) = ($a, $b);
            let r: $t = match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => a / b,
                _ => return None,
            };
            Some(if r.is_nan() {
                nan_rule($bits, [x, y])
            } else {
                r.to_bits() as u64
            })
        }};
    }
    match f {
        FloatTy::F32 => arith!(f32, 32, f32::from_bits(x as u32), f32::from_bits(y as u32)),
        FloatTy::F64 => arith!(f64, 64, f64::from_bits(x), f64::from_bits(y)),
        _ => None,
    }
}

/// Evaluates a binary operator (not `And`/`Or`) on two values of type `ty`; shared by the
/// interpreter, the JIT's helpers and the optimiser's constant folding so all compute the
/// same bits.
///
/// # Errors
/// Operators that have no meaning on the type, with what is unsupported.
pub fn eval_binary(op: BinOp, ty: Ty, a: &Bits, b: &Bits, fp: &mut FpEnv) -> Result<Bits, String> {
    if let Ty::F(f) = ty {
        let fmt = f.format();
        let (x, y) = (a.low_u64(), b.low_u64());
        let rm = fp.round;
        if rm == Round::NearestEven {
            if let Some(r) = host_arith(f, op, x, y) {
                return Ok(Bits::from_u64(f.width(), r));
            }
        }
        let fl = &mut fp.flags;
        let r = match op {
            BinOp::Add => crate::float::add(fmt, x, y, rm, fl),
            BinOp::Sub => crate::float::sub(fmt, x, y, rm, fl),
            BinOp::Mul => crate::float::mul(fmt, x, y, rm, fl),
            BinOp::Div => crate::float::div(fmt, x, y, rm, fl),
            BinOp::Pow => super::pow(f, x, y, fp),
            _ => return Err(format!("{op:?} on floats")),
        };
        return Ok(Bits::from_u64(f.width(), r));
    }
    let signed = ty.is_signed();
    Ok(match op {
        BinOp::Add => a.add(b),
        BinOp::Sub => a.sub(b),
        BinOp::Mul => a.mul(b),
        BinOp::Div => {
            let r = if signed { a.sdivrem(b) } else { a.udivrem(b) };
            match r {
                Some((q, _)) => q,
                None => Bits::zero(a.width()).not(),
            }
        }
        BinOp::Rem => {
            let r = if signed { a.sdivrem(b) } else { a.udivrem(b) };
            match r {
                Some((_, r)) => r,
                None => a.clone(),
            }
        }
        BinOp::Pow => return Err("integer `**`".into()),
        BinOp::Shl => a.shl(shift_amount(b)),
        BinOp::Shr => {
            if signed {
                a.ashr(shift_amount(b))
            } else {
                a.lshr(shift_amount(b))
            }
        }
        BinOp::BitAnd => a.and(b),
        BinOp::BitOr => a.or(b),
        BinOp::BitXor => a.xor(b),
        BinOp::And | BinOp::Or => unreachable!("bug: logical operators handled before"),
    })
}

/// Evaluates a comparison of two values of type `ty`.
pub fn eval_compare(op: CmpOp, ty: Ty, a: &Bits, b: &Bits, fp: &mut FpEnv) -> bool {
    if let Ty::F(f) = ty {
        let fmt = f.format();
        let (x, y) = (a.low_u64(), b.low_u64());
        let fl = &mut fp.flags;
        return match op {
            CmpOp::Eq => crate::float::eq(fmt, x, y, fl),
            CmpOp::Ne => !crate::float::eq(fmt, x, y, fl),
            CmpOp::Lg => crate::float::lg(fmt, x, y, fl),
            CmpOp::Lt => crate::float::lt(fmt, x, y, fl),
            CmpOp::Le => crate::float::le(fmt, x, y, fl),
            CmpOp::Gt => crate::float::lt(fmt, y, x, fl),
            CmpOp::Ge => crate::float::le(fmt, y, x, fl),
        };
    }
    let ord = if ty.is_signed() { a.scmp(b) } else { a.ucmp(b) };
    match op {
        CmpOp::Eq => ord == Ordering::Equal,
        CmpOp::Ne | CmpOp::Lg => ord != Ordering::Equal,
        CmpOp::Lt => ord == Ordering::Less,
        CmpOp::Le => ord != Ordering::Greater,
        CmpOp::Gt => ord == Ordering::Greater,
        CmpOp::Ge => ord != Ordering::Less,
    }
}

/// Evaluates a conversion from `from` to `to`.
pub fn eval_convert(conv: Conv, from: Ty, to: Ty, a: &Bits, fp: &mut FpEnv) -> Bits {
    let w = to.width();
    match conv {
        Conv::Resize => a.resize(w, from.is_signed()),
        Conv::Bitcast => a.zext(w),
        Conv::FromBool => match to {
            Ty::F(f) => {
                let one = if a.is_zero() { 0 } else { 1 };
                let rm = fp.round;
                Bits::from_u64(
                    w,
                    crate::float::from_int(f.format(), one, rm, &mut fp.flags),
                )
            }
            _ => Bits::from_u64(w, !a.is_zero() as u64),
        },
        Conv::ToBool => {
            let nz = match from {
                Ty::F(f) => !crate::float::is_zero(f.format(), a.low_u64()),
                _ => !a.is_zero(),
            };
            Bits::from_u64(1, nz as u64)
        }
        Conv::IntToFloat => {
            let Ty::F(f) = to else {
                unreachable!("bug: verified conversion")
            };
            let rm = fp.round;
            let fl = &mut fp.flags;
            let r = if from.is_signed() {
                crate::float::from_int(f.format(), a.as_i128(), rm, fl)
            } else if a.width() <= 128 {
                crate::float::from_uint(f.format(), a.low_u128(), rm, fl)
            } else {
                // Wider than 128 bits: keep the top 128 significant bits (plus sticky).
                let top = a.width() - 128;
                let hi = a.lshr(top as u64).low_u128();
                let v = crate::float::from_uint(f.format(), hi | 1, rm, fl);
                crate::float::ldexp(f.format(), v, top as i32, rm, fl)
            };
            Bits::from_u64(w, r)
        }
        Conv::FloatToInt => {
            let Ty::F(f) = from else {
                unreachable!("bug: verified conversion")
            };
            let width = w.min(64);
            let r = crate::float::to_int(
                f.format(),
                a.low_u64(),
                to.is_signed(),
                width,
                Round::TowardZero,
                &mut fp.flags,
            );
            Bits::from_u64(width, r).resize(w, to.is_signed())
        }
        Conv::FloatToFloat => {
            let (Ty::F(f), Ty::F(g)) = (from, to) else {
                unreachable!("bug: verified conversion")
            };
            let (ff, gf) = (f.format(), g.format());
            let x = a.low_u64();
            if crate::float::is_nan(ff, x) {
                return Bits::from_u64(w, convert_nan(ff, gf, x));
            }
            let rm = fp.round;
            Bits::from_u64(w, crate::float::convert(ff, gf, x, rm, &mut fp.flags))
        }
    }
}

/// A NaN converted between float formats keeps its sign, its quiet bit and the top of its
/// payload: the pseudocode classifies NaNs after widening them (`isSignalNAN(64'F(S0.f32))`),
/// so the conversion must not quieten them. A payload that narrows to zero becomes the quiet
/// NaN; formats without NaN take their default.
fn convert_nan(from: crate::float::Format, to: crate::float::Format, x: u64) -> u64 {
    use crate::float::SpecialKind;
    if to.kind != SpecialKind::Ieee || from.kind != SpecialKind::Ieee {
        return crate::float::convert(from, to, x, Round::NearestEven, &mut Default::default());
    }
    let sign = (x >> (from.exp_bits + from.man_bits)) & 1;
    let payload = x & ((1u64 << from.man_bits) - 1);
    let payload = if to.man_bits >= from.man_bits {
        payload << (to.man_bits - from.man_bits)
    } else {
        payload >> (from.man_bits - to.man_bits)
    };
    let payload = if payload == 0 {
        1 << (to.man_bits - 1)
    } else {
        payload
    };
    let exp = ((1u64 << to.exp_bits) - 1) << to.man_bits;
    (sign << (to.exp_bits + to.man_bits)) | exp | payload
}

fn shift_amount(b: &Bits) -> u64 {
    if b.width() > 64 && b.words()[1..].iter().any(|w| *w != 0) {
        u64::MAX
    } else {
        b.low_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Edge-biased float bits: zeros, denormals, infinities, quiet and signalling NaNs.
    fn float_bits(bits: u32) -> impl Strategy<Value = u64> {
        let (man, exp) = if bits == 32 { (23, 8) } else { (52, 11) };
        let sign = 1u64 << (bits - 1);
        let inf = ((1u64 << exp) - 1) << man;
        let edges = vec![
            0,
            sign,
            1,
            sign | 1,
            (1u64 << man) - 1,
            inf,
            sign | inf,
            inf | 1u64 << (man - 1),
            inf | 1,
            sign | inf | 5,
        ];
        let mask = if bits == 32 {
            u32::MAX as u64
        } else {
            u64::MAX
        };
        prop_oneof![
            proptest::sample::select(edges),
            any::<u64>().prop_map(move |v| v & mask),
        ]
    }

    fn soft(op: BinOp, f: FloatTy, x: u64, y: u64) -> u64 {
        let mut fl = Default::default();
        let (fmt, rm) = (f.format(), Round::NearestEven);
        match op {
            BinOp::Add => crate::float::add(fmt, x, y, rm, &mut fl),
            BinOp::Sub => crate::float::sub(fmt, x, y, rm, &mut fl),
            BinOp::Mul => crate::float::mul(fmt, x, y, rm, &mut fl),
            _ => crate::float::div(fmt, x, y, rm, &mut fl),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig {
        cases: 20_000,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed),
        ..ProptestConfig::default()
    })]

        /// The host fast path computes exactly the soft-float's bits.
        #[test]
        fn host_arithmetic_matches_soft_float(
            x32 in float_bits(32), y32 in float_bits(32),
            x64 in float_bits(64), y64 in float_bits(64),
            op in proptest::sample::select(vec![BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div]),
        ) {
            prop_assert_eq!(host_arith(FloatTy::F32, op, x32, y32), Some(soft(op, FloatTy::F32, x32, y32)));
            prop_assert_eq!(host_arith(FloatTy::F64, op, x64, y64), Some(soft(op, FloatTy::F64, x64, y64)));
        }
    }
}
