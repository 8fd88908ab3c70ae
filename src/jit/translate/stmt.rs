//! Statements and places: assignments, control flow, loops with the step budget, array
//! elements and slice stores.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::Variable;

use super::super::runtime::{status, Helper};
use super::super::JitError;
use super::{bits, container, Loop, Translator, SLOT};
use crate::interp::STEP_BUDGET;
use crate::ir::{Expr, LocalId, Place, Stmt, Ty};

impl Translator<'_, '_> {
    pub(super) fn block(&mut self, body: &[Stmt]) -> Result<(), JitError> {
        for s in body {
            self.stmt(s)?;
        }
        Ok(())
    }

    pub(super) fn tick(&mut self) {
        let b = self.b.use_var(self.budget);
        let nb = self.b.ins().iadd_imm_s(b, -1);
        self.b.def_var(self.budget, nb);
        let out = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, nb, 0);
        let ok = self.b.create_block();
        let code = self.b.ins().iconst(types::I32, status::BUDGET as i64);
        self.b.ins().brif(out, self.trap, &[code.into()], ok, &[]);
        self.b.switch_to_block(ok);
    }

    pub(super) fn stmt(&mut self, s: &Stmt) -> Result<(), JitError> {
        match s {
            Stmt::Assign { place, value, .. } => {
                let v = self.expr(value)?;
                self.store(place, v)
            }
            Stmt::AssignConcat { places, value, .. } => {
                let v = self.expr(value)?;
                let total = value.ty.width();
                let mut pos = total;
                for (p, w) in places {
                    pos -= w;
                    let shifted = if pos == 0 {
                        v
                    } else {
                        self.b.ins().ushr_imm_u(v, pos as i64)
                    };
                    let part = self.resize(shifted, total, false, Ty::B(*w))?;
                    self.store(p, part)?;
                }
                Ok(())
            }
            Stmt::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                let c = self.expr(cond)?;
                let (tb, eb, join) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.ins().brif(c, tb, &[], eb, &[]);
                self.b.switch_to_block(tb);
                self.block(then)?;
                if !self.is_filled() {
                    self.b.ins().jump(join, &[]);
                }
                self.b.switch_to_block(eb);
                self.block(otherwise)?;
                if !self.is_filled() {
                    self.b.ins().jump(join, &[]);
                }
                self.b.switch_to_block(join);
                Ok(())
            }
            Stmt::For {
                var,
                start,
                end,
                body,
                ..
            } => {
                let ty = self.f.locals[var.0 as usize].ty;
                let w = ty.width();
                let signed = ty.is_signed();
                let s = self.expr(start)?;
                let e = self.expr(end)?;
                let (ss, es) = if signed {
                    (self.sext_in(s, w), self.sext_in(e, w))
                } else {
                    (s, e)
                };
                let cc = if signed {
                    IntCC::SignedGreaterThan
                } else {
                    IntCC::UnsignedGreaterThan
                };
                let skip = self.b.ins().icmp(cc, ss, es);
                let (head, cont, exit) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                let var_v = self.local_var(*var)?;
                self.b.def_var(var_v, s);
                self.b.ins().brif(skip, exit, &[], head, &[]);
                self.b.switch_to_block(head);
                // A loop between constant bounds ends by itself; others count against the budget.
                let bounded = match (start.as_const_u64(), end.as_const_u64()) {
                    (Some(a), Some(b)) => b.wrapping_sub(a) < STEP_BUDGET,
                    _ => false,
                };
                if !bounded {
                    self.tick();
                }
                self.loops.push(Loop { exit, cont });
                self.block(body)?;
                self.loops.pop();
                if !self.is_filled() {
                    self.b.ins().jump(cont, &[]);
                }
                self.b.switch_to_block(cont);
                let i = self.b.use_var(var_v);
                let last = self.b.ins().icmp(IntCC::Equal, i, e);
                let step = self.b.create_block();
                self.b.ins().brif(last, exit, &[], step, &[]);
                self.b.switch_to_block(step);
                let i = self.b.use_var(var_v);
                let one = self.iconst(self.b.func.dfg.value_type(i), 1);
                let n = self.b.ins().iadd(i, one);
                let n = self.mask(n, w);
                self.b.def_var(var_v, n);
                self.b.ins().jump(head, &[]);
                self.b.switch_to_block(exit);
                Ok(())
            }
            Stmt::While { cond, body, .. } => {
                let (head, bodyb, exit) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.ins().jump(head, &[]);
                self.b.switch_to_block(head);
                self.tick();
                let c = self.expr(cond)?;
                self.b.ins().brif(c, bodyb, &[], exit, &[]);
                self.b.switch_to_block(bodyb);
                self.loops.push(Loop { exit, cont: head });
                self.block(body)?;
                self.loops.pop();
                if !self.is_filled() {
                    self.b.ins().jump(head, &[]);
                }
                self.b.switch_to_block(exit);
                Ok(())
            }
            Stmt::Break { .. } | Stmt::Continue { .. } => {
                let brk = matches!(s, Stmt::Break { .. });
                let target = self
                    .loops
                    .last()
                    .map(|l| if brk { l.exit } else { l.cont })
                    .ok_or(JitError::Internal(
                        "break or continue outside a loop".into(),
                    ))?;
                self.b.ins().jump(target, &[]);
                self.continue_after_terminator();
                Ok(())
            }
            Stmt::Return { .. } => {
                self.b.ins().jump(self.lane_out, &[]);
                self.continue_after_terminator();
                Ok(())
            }
            Stmt::Effect { builtin, args, .. } => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push((self.expr(a)?, a.ty));
                }
                let tys = args.iter().map(|a| a.ty).collect();
                self.call_helper(
                    Helper::Effect {
                        builtin: *builtin,
                        args: tys,
                    },
                    &vals,
                    false,
                )?;
                Ok(())
            }
        }
    }

    pub(super) fn local_var(&mut self, l: LocalId) -> Result<Variable, JitError> {
        self.locals[l.0 as usize].ok_or(JitError::Internal("array used as a scalar".into()))
    }

    pub(super) fn elem_addr(&mut self, local: LocalId, index: &Expr) -> Result<Value, JitError> {
        let len = self.f.locals[local.0 as usize].len.unwrap_or(1);
        let slot = *self
            .arrays
            .get(&local.0)
            .ok_or(JitError::Internal("scalar used as an array".into()))?;
        let i = self.expr(index)?;
        let oob = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, i, len as i64);
        let ok = self.b.create_block();
        let code = self.b.ins().iconst(types::I32, status::OUT_OF_RANGE as i64);
        self.b.ins().brif(oob, self.trap, &[code.into()], ok, &[]);
        self.b.switch_to_block(ok);
        let i = self.b.ins().uextend(self.ptr, i);
        let off = self.b.ins().imul_imm_u(i, SLOT as i64);
        let base = self.b.ins().stack_addr(self.ptr, slot, 0);
        Ok(self.b.ins().iadd(base, off))
    }

    /// Reads the current value of a place (for slice stores).
    pub(super) fn read_place(&mut self, p: &Place) -> Result<(Value, u32), JitError> {
        match p {
            Place::Reg(r) => Ok((self.read_reg(*r)?, self.f.regs[r.0 as usize].width)),
            Place::Local(l) => {
                let v = self.local_var(*l)?;
                Ok((self.b.use_var(v), self.f.locals[l.0 as usize].ty.width()))
            }
            Place::Elem { local, index } => {
                let ty = self.f.locals[local.0 as usize].ty;
                let addr = self.elem_addr(*local, index)?;
                let ct = container(ty)?;
                Ok((
                    self.b.ins().load(ct, MemFlagsData::trusted(), addr, 0),
                    ty.width(),
                ))
            }
            Place::Slice {
                base,
                lo,
                width,
                reversed,
            } => {
                let (b, bw) = self.read_place(base)?;
                let lo = self.expr(lo)?;
                let v = self.extract(b, bw, lo, *width)?;
                Ok((
                    if *reversed {
                        self.reverse(v, *width)?
                    } else {
                        v
                    },
                    *width,
                ))
            }
            Place::Store {
                space,
                addr,
                lane,
                width,
            } => {
                let (l, a) = self.mem_args(addr, lane.as_ref())?;
                let v = self.helper_value(
                    Helper::Load {
                        space: *space,
                        width: *width,
                    },
                    &[(l, Ty::U(32)), (a, Ty::U(64))],
                    Ty::B(*width),
                )?;
                Ok((v, *width))
            }
        }
    }

    pub(super) fn mem_args(
        &mut self,
        addr: &Expr,
        lane: Option<&Expr>,
    ) -> Result<(Value, Value), JitError> {
        let a = self.expr(addr)?;
        let a = self.resize(a, addr.ty.width(), false, Ty::U(64))?;
        let l = match lane {
            Some(l) => {
                let v = self.expr(l)?;
                self.resize(v, l.ty.width(), false, Ty::U(32))?
            }
            None => self.b.use_var(self.lane),
        };
        Ok((l, a))
    }

    pub(super) fn store(&mut self, p: &Place, v: Value) -> Result<(), JitError> {
        match p {
            Place::Reg(r) => {
                let w = self.f.regs[r.0 as usize].width;
                let vw = bits(self.b.func.dfg.value_type(v));
                let v = self.resize(v, vw.min(w), false, Ty::B(w))?;
                self.write_reg(*r, v)
            }
            Place::Local(l) => {
                let var = self.local_var(*l)?;
                self.b.def_var(var, v);
                Ok(())
            }
            Place::Elem { local, index } => {
                let addr = self.elem_addr(*local, index)?;
                self.b.ins().store(MemFlagsData::trusted(), v, addr, 0);
                Ok(())
            }
            Place::Slice {
                base,
                lo,
                width,
                reversed,
            } => {
                let lo = self.expr(lo)?;
                let (old, bw) = self.read_place(base)?;
                let v = if *reversed {
                    self.reverse(v, *width)?
                } else {
                    v
                };
                let new = self.insert(old, bw, lo, *width, v)?;
                self.store(base, new)
            }
            Place::Store {
                space,
                addr,
                lane,
                width,
            } => {
                let (l, a) = self.mem_args(addr, lane.as_ref())?;
                self.call_helper(
                    Helper::Store {
                        space: *space,
                        width: *width,
                    },
                    &[(l, Ty::U(32)), (a, Ty::U(64)), (v, Ty::B(*width))],
                    false,
                )?;
                Ok(())
            }
        }
    }
}
