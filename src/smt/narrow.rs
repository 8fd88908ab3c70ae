//! The OCP narrow float formats (fp8 E4M3, bf8 E5M2, fp6 E2M3, bf6 E3M2, fp4 E2M1) as exact
//! bit-level tables. No SMT FloatingPoint sort has their special-value rules (E4M3 has no
//! infinity, FP6/FP4 have neither infinity nor NaN), but a narrow value has at most 256 bit
//! patterns, so a widening conversion is a decision tree over the input bits whose leaves are
//! the interpreter's own `float::convert_with` results. The tree is built only when the
//! conversion is exact (the same result under every rounding mode), so the table is the
//! conversion, not an approximation of it.

use crate::float::{self as fl, Flags, Round};
use crate::ir::FloatTy;

use super::term::{eq, extract, ite, Term};

/// Whether `f` is one of the OCP narrow formats.
pub fn is_narrow(f: FloatTy) -> bool {
    matches!(
        f,
        FloatTy::Fp8 | FloatTy::Bf8 | FloatTy::Fp6 | FloatTy::Bf6 | FloatTy::Fp4
    )
}

/// `x` (bits of narrow format `from`) converted to the wider format `to`, exactly as the
/// interpreter converts it; `None` when the conversion is not exact under every rounding mode
/// (then a table would depend on the mode) or the widths do not fit.
pub fn widen(from: FloatTy, to: FloatTy, x: &Term) -> Option<Term> {
    let w = from.width();
    if !is_narrow(from) || to.width() <= w || x.width() != w || to.width() > 64 {
        return None;
    }
    let modes = [
        Round::NearestEven,
        Round::TowardZero,
        Round::Up,
        Round::Down,
    ];
    let mut table = Vec::with_capacity(1 << w);
    for v in 0..(1u64 << w) {
        let mut flags = Flags::default();
        let r = fl::convert_with(from.format(), to.format(), v, modes[0], false, &mut flags);
        for &m in &modes[1..] {
            let mut flags = Flags::default();
            if fl::convert_with(from.format(), to.format(), v, m, false, &mut flags) != r {
                return None;
            }
        }
        table.push(r);
    }
    Some(tree(x, w, 0, &table, to.width()))
}

/// The decision tree over bits `bit-1 .. 0` of `x`, for the inputs whose higher bits are
/// `prefix`.
fn tree(x: &Term, bit: u32, prefix: u64, table: &[u64], out: u32) -> Term {
    if bit == 0 {
        return Term::bv_u64(out, table[prefix as usize]);
    }
    let b = bit - 1;
    let one = tree(x, b, prefix | (1 << b), table, out);
    let zero = tree(x, b, prefix, table, out);
    ite(&eq(&extract(x, b, 1), &Term::bv_u64(1, 1)), &one, &zero)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp8_table_on_constants() {
        // E4M3 0x38 is 1.0; 0x7f is NaN; 0x01 the smallest subnormal 2^-9.
        let one = widen(FloatTy::Fp8, FloatTy::F32, &Term::bv_u64(8, 0x38)).unwrap();
        assert_eq!(one.as_bv().map(|b| b.low_u64()), Some(0x3f80_0000));
        let tiny = widen(FloatTy::Fp8, FloatTy::F32, &Term::bv_u64(8, 0x01)).unwrap();
        assert_eq!(tiny.as_bv().map(|b| b.low_u64()), Some(0x3b00_0000));
        let nan = widen(FloatTy::Fp8, FloatTy::F32, &Term::bv_u64(8, 0x7f)).unwrap();
        assert_eq!(
            nan.as_bv().map(|b| b.low_u64() & 0x7fc0_0000),
            Some(0x7fc0_0000)
        );
        // fp4 E2M1 0x7 is 6.0.
        let six = widen(FloatTy::Fp4, FloatTy::F16, &Term::bv_u64(4, 0x7)).unwrap();
        assert_eq!(six.as_bv().map(|b| b.low_u64()), Some(0x4600));
        assert!(widen(FloatTy::F32, FloatTy::F64, &Term::bv_u64(32, 0)).is_none());
    }
}
