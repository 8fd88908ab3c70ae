//! Register reads and writes (slots, promoted variables) and calls of `runtime.rs` helpers.

use cranelift_codegen::ir::{
    types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};

use super::super::runtime::Helper;
use super::super::JitError;
use super::{container, Translator, SLOT};
use crate::ir::{RegId, RegRole, Ty};

impl Translator<'_, '_> {
    pub(super) fn reg_addr(&mut self, r: RegId) -> Value {
        let off = self.layout.offsets[r.0 as usize];
        if self.layout.per_lane[r.0 as usize] {
            let lane = self.b.use_var(self.lane);
            let lane = self.b.ins().uextend(self.ptr, lane);
            let scaled = self.b.ins().imul_imm_u(lane, SLOT as i64);
            let base = self.b.ins().iadd(self.slots, scaled);
            self.b.ins().iadd_imm_s(base, off as i64)
        } else {
            self.b.ins().iadd_imm_s(self.slots, off as i64)
        }
    }

    pub(super) fn read_reg(&mut self, r: RegId) -> Result<Value, JitError> {
        let info = &self.f.regs[r.0 as usize];
        let ty = container(Ty::B(info.width))?;
        if info.role == RegRole::Lane {
            let lane = self.b.use_var(self.lane);
            return self.resize(lane, 32, false, Ty::B(info.width));
        }
        if let Some(var) = self.promoted[r.0 as usize] {
            return Ok(self.b.use_var(var));
        }
        if let Some(v) = self.read_loc(r)? {
            return Ok(v);
        }
        let addr = self.reg_addr(r);
        Ok(self.b.ins().load(ty, MemFlagsData::trusted(), addr, 0))
    }

    pub(super) fn write_reg(&mut self, r: RegId, v: Value) -> Result<(), JitError> {
        if let Some(var) = self.promoted[r.0 as usize] {
            self.b.def_var(var, v);
        } else {
            let addr = self.reg_addr(r);
            let stored = self.unbitcast(v);
            self.b.ins().store(MemFlagsData::trusted(), stored, addr, 0);
        }
        if Some(r) == self.round_reg {
            let w = self.f.regs[r.0 as usize].width;
            let _ = w;
            self.call_helper(Helper::SetRound, &[(v, Ty::U(32))], false)?;
        }
        Ok(())
    }

    /// Calls a helper with `(value, type)` arguments; returns the result (container of `ret`).
    pub(super) fn call_helper(
        &mut self,
        helper: Helper,
        args: &[(Value, Ty)],
        has_result: bool,
    ) -> Result<Option<Value>, JitError> {
        let id = self.helpers.len() as i64;
        self.helpers.push(helper);
        let n = args.len().max(1) as u32;
        let argslot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            n * SLOT as u32,
            4,
        ));
        for (i, (v, _)) in args.iter().enumerate() {
            let ty = self.b.func.dfg.value_type(*v);
            let v128 = if ty == types::I128 {
                *v
            } else {
                self.b.ins().uextend(types::I128, *v)
            };
            self.b
                .ins()
                .stack_store(self.ptr, v128, argslot, i as i32 * SLOT);
        }
        let outslot =
            self.b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 4));
        let argp = self.b.ins().stack_addr(self.ptr, argslot, 0);
        let outp = self.b.ins().stack_addr(self.ptr, outslot, 0);
        let idv = self.b.ins().iconst(types::I32, id);
        let call = self
            .b
            .ins()
            .call(self.helper_ref, &[self.ctx, idv, argp, outp]);
        let st = self.b.inst_results(call)[0];
        let ok = self.b.create_block();
        self.b.ins().brif(st, self.trap, &[st.into()], ok, &[]);
        self.b.switch_to_block(ok);
        if has_result {
            Ok(Some(self.b.ins().stack_load(
                self.ptr,
                types::I128,
                outslot,
                0,
            )))
        } else {
            Ok(None)
        }
    }

    pub(super) fn helper_value(
        &mut self,
        helper: Helper,
        args: &[(Value, Ty)],
        ret: Ty,
    ) -> Result<Value, JitError> {
        let r = self
            .call_helper(helper, args, true)?
            .ok_or(JitError::Internal("helper without result".into()))?;
        let ty = container(ret)?;
        Ok(if ty == types::I128 {
            r
        } else {
            self.b.ins().ireduce(ty, r)
        })
    }
}
