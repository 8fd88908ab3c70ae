//! Container arithmetic: constants, masks, sign extension, resizing, bit fields and bit
//! reversal of values held in the smallest integer container of their width.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Type, Value};

use super::super::JitError;
use super::{bits, container, Translator};
use crate::ir::Ty;

impl Translator<'_, '_> {
    pub(super) fn zero(&mut self, ty: Type) -> Value {
        self.iconst(ty, 0)
    }

    pub(super) fn iconst(&mut self, ty: Type, v: u128) -> Value {
        if ty == types::I128 {
            let lo = self.b.ins().iconst(types::I64, v as u64 as i64);
            let hi = self.b.ins().iconst(types::I64, (v >> 64) as u64 as i64);
            self.b.ins().iconcat(lo, hi)
        } else {
            let m = if bits(ty) >= 64 {
                u64::MAX
            } else {
                (1u64 << bits(ty)) - 1
            };
            self.b.ins().iconst(ty, ((v as u64) & m) as i64)
        }
    }

    /// Keeps the low `w` bits of a container value.
    pub(super) fn mask(&mut self, v: Value, w: u32) -> Value {
        let ty = self.b.func.dfg.value_type(v);
        if w >= bits(ty) {
            return v;
        }
        if ty == types::I128 {
            let m = self.iconst(
                ty,
                if w >= 128 {
                    u128::MAX
                } else {
                    (1u128 << w) - 1
                },
            );
            return self.b.ins().band(v, m);
        }
        let m = (1u64 << w) - 1;
        self.b.ins().band_imm_u(v, m as i64)
    }

    /// Sign-extends a `w`-bit value within its container.
    pub(super) fn sext_in(&mut self, v: Value, w: u32) -> Value {
        let ty = self.b.func.dfg.value_type(v);
        let c = bits(ty);
        if w >= c {
            return v;
        }
        let s = self.b.ins().ishl_imm_u(v, (c - w) as i64);
        self.b.ins().sshr_imm_u(s, (c - w) as i64)
    }

    /// Converts between containers: `from` bits of `v` (signed or not) to `to` bits.
    pub(super) fn resize(
        &mut self,
        v: Value,
        from_w: u32,
        signed: bool,
        to: Ty,
    ) -> Result<Value, JitError> {
        let to_ty = container(to)?;
        let from_ty = self.b.func.dfg.value_type(v);
        let v = if signed { self.sext_in(v, from_w) } else { v };
        let r = if bits(to_ty) > bits(from_ty) {
            if let Some(r) = (from_w == bits(from_ty) || !signed)
                .then(|| self.reload_extended(v, to_ty, signed))
                .flatten()
            {
                r
            } else if signed {
                self.b.ins().sextend(to_ty, v)
            } else {
                self.b.ins().uextend(to_ty, v)
            }
        } else if bits(to_ty) < bits(from_ty) {
            self.b.ins().ireduce(to_ty, v)
        } else {
            v
        };
        Ok(self.mask(r, to.width()))
    }

    /// `width` bits of `v` (a `vw`-bit value) from bit `lo` (a u32 value); zero past the top.
    pub(super) fn extract(
        &mut self,
        v: Value,
        vw: u32,
        lo: Value,
        width: u32,
    ) -> Result<Value, JitError> {
        let vty = self.b.func.dfg.value_type(v);
        let lo_c = self.b.ins().uextend(types::I64, lo);
        let shifted = if vty == types::I128 {
            let lo128 = self.b.ins().uextend(types::I128, lo_c);
            self.b.ins().ushr(v, lo128)
        } else {
            let amt = if vty == types::I64 {
                lo_c
            } else {
                self.b.ins().ireduce(vty, lo_c)
            };
            self.b.ins().ushr(v, amt)
        };
        let past = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, lo_c, vw as i64);
        let zero = self.zero(vty);
        let shifted = self.b.ins().select(past, zero, shifted);
        self.resize(shifted, vw, false, Ty::B(width))
    }

    /// `base` (a `bw`-bit value) with `width` bits at `lo` replaced by `v`.
    pub(super) fn insert(
        &mut self,
        base: Value,
        bw: u32,
        lo: Value,
        width: u32,
        v: Value,
    ) -> Result<Value, JitError> {
        let bty = self.b.func.dfg.value_type(base);
        let vw = bits(self.b.func.dfg.value_type(v)).min(width);
        let v = self.resize(v, vw, false, Ty::B(bw))?;
        let v = self.mask(v, width.min(bw));
        let field = self.iconst(
            bty,
            if width >= 128 {
                u128::MAX
            } else {
                (1u128 << width) - 1
            },
        );
        let lo_c = self.b.ins().uextend(types::I64, lo);
        let amt = if bty == types::I128 {
            self.b.ins().uextend(types::I128, lo_c)
        } else if bty == types::I64 {
            lo_c
        } else {
            self.b.ins().ireduce(bty, lo_c)
        };
        let mask = self.b.ins().ishl(field, amt);
        let placed = self.b.ins().ishl(v, amt);
        let kept = self.b.ins().band_not(base, mask);
        let merged = self.b.ins().bor(kept, placed);
        let merged = self.mask(merged, bw);
        let past = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, lo_c, bw as i64);
        Ok(self.b.ins().select(past, base, merged))
    }

    pub(super) fn reverse(&mut self, v: Value, w: u32) -> Result<Value, JitError> {
        let ty = self.b.func.dfg.value_type(v);
        let r = if ty == types::I128 {
            self.b.ins().bitrev(v)
        } else {
            self.bitrev(v, ty)
        };
        let c = bits(ty);
        Ok(if c > w {
            self.b.ins().ushr_imm_u(r, (c - w) as i64)
        } else {
            r
        })
    }

    /// All bits of `v` (8 to 64 bits) reversed: a byte swap, then nibbles, pairs and bits
    /// swapped inside each byte (Cranelift's `bitrev` swaps at all six levels with masks).
    pub(super) fn bitrev(&mut self, v: Value, ty: Type) -> Value {
        let mut x = if ty == types::I8 {
            v
        } else {
            self.b.ins().bswap(v)
        };
        let all = u64::MAX >> (64 - bits(ty));
        for (shift, m) in [
            (4, 0x0f0f_0f0f_0f0f_0f0f_u64),
            (2, 0x3333_3333_3333_3333),
            (1, 0x5555_5555_5555_5555),
        ] {
            let m = (m & all) as i64;
            let hi = self.b.ins().ushr_imm_u(x, shift);
            let hi = self.b.ins().band_imm_u(hi, m);
            let lo = self.b.ins().band_imm_u(x, m);
            let lo = self.b.ins().ishl_imm_u(lo, shift);
            x = self.b.ins().bor(hi, lo);
        }
        x
    }
}
