//! Inline f32/f64: the NaN rule, moving values between integer and float registers, and
//! reusing slot loads as float or extending loads.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, InstBuilder, InstructionData, MemFlagsData, Opcode, Type, Value,
};

use super::Translator;
use crate::ir::FloatTy;

impl Translator<'_, '_> {
    /// The bits of a float result `r` (computed from the float operands `inputs`), with the
    /// spec's NaN rule applied: a NaN result becomes the first NaN input quietened, else the
    /// default NaN.
    pub(super) fn float_nan_fix(&mut self, f: FloatTy, r: Value, inputs: &[Value]) -> Value {
        let w = f.width();
        let ft = self.b.func.dfg.value_type(r);
        let ty = Type::int(w as u16).expect("f32/f64 have integer twins");
        let abs_mask = (1u64 << (w - 1)) - 1;
        let exp_mask = ((1u64 << f.format().exp_bits) - 1) << f.format().man_bits;
        let quiet = 1u64 << (f.format().man_bits - 1);
        let default_nan = exp_mask | quiet;
        // NaN results are rare: the fix-up sits in a cold block off the straight path, and
        // the straight path stays in float registers.
        let rn = self.b.ins().fcmp(FloatCC::Unordered, r, r);
        let (fix_block, join) = (self.b.create_block(), self.b.create_block());
        self.b.append_block_param(join, ft);
        self.b.ins().brif(rn, fix_block, &[], join, &[r.into()]);
        self.b.set_cold_block(fix_block);
        self.b.switch_to_block(fix_block);
        let mut fix = self.b.ins().iconst(ty, default_nan as i64);
        for &x in inputs.iter().rev() {
            let xb = self.float_bits(x, ty);
            let a = self.b.ins().band_imm_u(xb, abs_mask as i64);
            let nan = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedGreaterThan, a, exp_mask as i64);
            let q = self.b.ins().bor_imm_u(xb, quiet as i64);
            fix = self.b.ins().select(nan, q, fix);
        }
        let fix = self.as_float(fix, ft);
        self.b.ins().jump(join, &[fix.into()]);
        self.b.switch_to_block(join);
        let r = self.b.block_params(join)[0];
        self.float_bits(r, ty)
    }

    pub(super) fn float_ty(f: FloatTy) -> Option<Type> {
        match f {
            FloatTy::F32 => Some(types::F32),
            FloatTy::F64 => Some(types::F64),
            _ => None,
        }
    }

    /// `v`'s bits as a float. When `v` was just loaded from the slot buffer (nothing written
    /// since), the float is loaded afresh instead, straight into a float register (the integer
    /// load then has no use left and is removed).
    pub(super) fn as_float(&mut self, v: Value, ft: Type) -> Value {
        if let Some(f) = self.reload_as(v, ft) {
            return f;
        }
        self.b.ins().bitcast(ft, MemFlagsData::new(), v)
    }

    /// A load of `v`'s address with type `ty`, when `v` is the result of a plain load in the
    /// current block that no later instruction of the block can have overwritten.
    pub(super) fn reload_as(&mut self, v: Value, ty: Type) -> Option<Value> {
        let (flags, arg, offset) = self.reusable_load(v)?;
        if self.b.func.dfg.value_type(v).bits() != ty.bits() {
            return None;
        }
        Some(self.b.ins().load(ty, flags, arg, offset))
    }

    /// `v` widened to `to` by a zero- or sign-extending load of its address, when `v` is a
    /// reusable load (x86-64 then needs no separate extension after the load).
    pub(super) fn reload_extended(&mut self, v: Value, to: Type, signed: bool) -> Option<Value> {
        let from = self.b.func.dfg.value_type(v);
        if !from.is_int() || to.bits() <= from.bits() || to.bits() > 64 {
            return None;
        }
        let (flags, arg, offset) = self.reusable_load(v)?;
        let ins = self.b.ins();
        Some(match (from.bits(), signed) {
            (8, false) => ins.uload8(to, flags, arg, offset),
            (8, true) => ins.sload8(to, flags, arg, offset),
            (16, false) => ins.uload16(to, flags, arg, offset),
            (16, true) => ins.sload16(to, flags, arg, offset),
            (32, false) => ins.uload32(flags, arg, offset),
            (32, true) => ins.sload32(flags, arg, offset),
            _ => return None,
        })
    }

    /// The flags, address and offset of the plain load defining `v`, when it sits in the
    /// current block and no later instruction of the block can have written memory.
    pub(super) fn reusable_load(&self, v: Value) -> Option<(MemFlagsData, Value, i32)> {
        let block = self.b.current_block()?;
        let dfg = &self.b.func.dfg;
        let inst = dfg.value_def(v).inst()?;
        if self.b.func.layout.inst_block(inst) != Some(block) {
            return None;
        }
        let InstructionData::Load {
            opcode: Opcode::Load,
            arg,
            flags,
            offset,
        } = dfg.insts[inst]
        else {
            return None;
        };
        let layout = &self.b.func.layout;
        let mut at = layout.last_inst(block)?;
        while at != inst {
            let op = dfg.insts[at].opcode();
            if op.can_store() || op.is_call() || op.other_side_effects() {
                return None;
            }
            at = layout.prev_inst(at)?;
        }
        Some((dfg.mem_flags[flags], arg, offset.into()))
    }

    /// The float `v` is the bitcast of, if it is one (to store it without leaving the float
    /// registers); else `v`.
    pub(super) fn unbitcast(&self, v: Value) -> Value {
        let dfg = &self.b.func.dfg;
        if let Some(inst) = dfg.value_def(v).inst() {
            if let InstructionData::LoadNoOffset {
                opcode: Opcode::Bitcast,
                arg,
                ..
            } = dfg.insts[inst]
            {
                if dfg.value_type(arg).is_float()
                    && dfg.value_type(arg).bits() == dfg.value_type(v).bits()
                {
                    return arg;
                }
            }
        }
        v
    }

    pub(super) fn float_bits(&mut self, v: Value, it: Type) -> Value {
        self.b.ins().bitcast(it, MemFlagsData::new(), v)
    }
}
