//! In-place translation: one instruction's IR emitted straight into a block function
//! (`jit::block`), its registers at register-file locations instead of a slot buffer.
//!
//! Wave-uniform registers (SGPR operands, SCC, EXEC, constants) are values the block computed
//! before the instruction; they are held in variables across the lane loop and their final
//! values handed back to the block. Per-lane registers read from a VGPR row are loaded from
//! the row at the lane's word (with the f32 denormal flush of the default MODE); per-lane
//! registers the text writes live in variables during the lane and are stored into their
//! VGPR rows when the lane's body ends, after every source of the lane was read (D0 may be
//! one of the sources' registers). Registers without a location (constants written when the
//! block was built) are read from the instruction's slots, as in a kernel.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, FuncRef, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::{FunctionBuilder, Variable};

use super::super::runtime::Helper;
use super::super::JitError;
use super::{container, Layout, Translator};
use crate::ir::{Function, RegId, RegRole, Ty};

/// Where an in-place register is read from.
#[derive(Clone, Copy, Debug)]
pub enum RegLoc {
    /// The instruction's slot (a constant written when the block was built, or unread).
    Slot,
    /// A wave-uniform value (`i64`, masked to the register's width) computed before the
    /// instruction.
    Value(Value),
    /// Each lane's word of VGPR `row` (with `row + 1` above it when `pair`), shifted right by
    /// `shift` and masked; `ftz` flushes a denormal f32 of `row` first.
    Vgpr {
        /// The register.
        row: u32,
        /// Whether `row + 1` supplies bits 63:32.
        pair: bool,
        /// Right shift of the 64-bit value.
        shift: u32,
        /// Mask after the shift.
        mask: u64,
        /// Flush f32 denormals.
        ftz: bool,
    },
}

/// A per-lane result stored into a VGPR row when the lane's body ends.
#[derive(Clone, Copy, Debug)]
pub struct LaneOut {
    /// The register.
    pub row: u32,
    /// Bits `shift + 31 : shift` of the value.
    pub shift: u32,
    /// Flush a denormal f32 result.
    pub ftz: bool,
}

/// The register-file locations of one in-place instruction.
#[derive(Clone, Debug)]
pub struct InPlace {
    /// The VGPR file (64 lane words per register).
    pub vgpr: Value,
    /// EXEC at issue (`i64`, masked to the wave's lanes).
    pub exec: Value,
    /// The wave's lanes.
    pub lanes: u32,
    /// Where each register is read from.
    pub locs: Vec<RegLoc>,
    /// The VGPR results of each per-lane register.
    pub lane_outs: Vec<Vec<LaneOut>>,
    /// Per-lane registers whose bit 0 of each visited lane is gathered into a lane mask
    /// (`i64`, bit `lane`), returned as the register's final value.
    pub lane_masks: Vec<bool>,
}

/// Flushes a denormal f32 (an `i32` value) to a zero of its sign.
pub fn flush_f32(b: &mut FunctionBuilder<'_>, x: Value) -> Value {
    let exp = b.ins().band_imm_u(x, 0x7f80_0000);
    let sign = b.ins().band_imm_u(x, 0x8000_0000u32 as i64);
    let is_den = b.ins().icmp_imm_u(IntCC::Equal, exp, 0);
    b.ins().select(is_den, sign, x)
}

/// A VGPR word's byte offset from lane 0's word of register 0.
fn row_off(row: u32) -> i32 {
    (row * 64 * 4) as i32
}

impl<'a, 'b> Translator<'a, 'b> {
    /// Sets up the translation of `f` into the block function `b` at its current block, with
    /// the instruction's slots at `slots` and its registers at `inplace`.
    #[allow(clippy::too_many_arguments)]
    pub fn new_inplace(
        b: FunctionBuilder<'b>,
        f: &'a Function,
        layout: &'a Layout,
        helpers: &'a mut Vec<Helper>,
        helper_ref: FuncRef,
        ptr: Type,
        cfg: cranelift_codegen::isa::TargetFrontendConfig,
        lane_loop: bool,
        slots: Value,
        ctx: Value,
        inplace: InPlace,
    ) -> Translator<'a, 'b> {
        Translator::with_parts(
            b,
            f,
            layout,
            helpers,
            helper_ref,
            ptr,
            cfg,
            lane_loop,
            slots,
            ctx,
            Some(inplace),
        )
    }

    /// Emits the instruction. Returns the builder, at a block after the instruction, and the
    /// final value of each wave-uniform register the text writes. A fault jumps to `fault`
    /// with the status (`i32`).
    ///
    /// # Errors
    /// As a kernel's translation; also when the text needs a helper (a block has none).
    #[allow(clippy::type_complexity)]
    pub fn translate_inplace(
        mut self,
        fault: Block,
    ) -> Result<(FunctionBuilder<'b>, Vec<Option<Value>>), JitError> {
        let (lanes, exec) = match &self.inplace {
            Some(p) => (p.lanes, p.exec),
            None => return Err(JitError::Internal("not an in-place translator".into())),
        };
        let n_lanes = self.b.ins().iconst(types::I32, lanes as i64);
        self.emit_lanes(n_lanes, exec)?;
        let mut finals = vec![None; self.f.regs.len()];
        for (i, r) in self.f.regs.iter().enumerate() {
            if let (Some(var), false, true) = (self.promoted[i], self.layout.per_lane[i], r.written)
            {
                finals[i] = Some(self.b.use_var(var));
            }
            if let Some(var) = self.gathered[i] {
                finals[i] = Some(self.b.use_var(var));
            }
        }
        let after = self.b.create_block();
        self.b.ins().jump(after, &[]);
        self.b.switch_to_block(self.trap);
        let code = self.b.block_params(self.trap)[0];
        self.b.ins().jump(fault, &[code.into()]);
        self.b.switch_to_block(after);
        if !self.helpers.is_empty() {
            return Err(JitError::Unsupported("helper calls in a block".into()));
        }
        Ok((self.b, finals))
    }

    /// The location of register `i`.
    fn loc(&self, i: usize) -> RegLoc {
        self.inplace
            .as_ref()
            .and_then(|p| p.locs.get(i).copied())
            .unwrap_or(RegLoc::Slot)
    }

    /// `v` (`i64`) in the container of register `i`.
    fn fit(&mut self, v: Value, i: usize) -> Result<Value, JitError> {
        let ty = container(Ty::B(self.f.regs[i].width))?;
        let from = self.b.func.dfg.value_type(v);
        Ok(if ty == from {
            v
        } else if ty.bits() < from.bits() {
            self.b.ins().ireduce(ty, v)
        } else {
            self.b.ins().uextend(ty, v)
        })
    }

    /// The current lane's word of VGPR 0 (`vgpr + 4 * lane`).
    fn lane_ptr(&mut self) -> Result<Value, JitError> {
        let vgpr = match &self.inplace {
            Some(p) => p.vgpr,
            None => return Err(JitError::Internal("not an in-place translator".into())),
        };
        let lane = self.b.use_var(self.lane);
        let lane = self.b.ins().uextend(self.ptr, lane);
        let off = self.b.ins().ishl_imm_u(lane, 2);
        Ok(self.b.ins().iadd(vgpr, off))
    }

    /// Reads register `r` from its in-place location: `None` for a slot (or not in place).
    pub(super) fn read_loc(&mut self, r: RegId) -> Result<Option<Value>, JitError> {
        let i = r.0 as usize;
        match self.loc(i) {
            RegLoc::Slot => Ok(None),
            RegLoc::Value(v) => Ok(Some(self.fit(v, i)?)),
            RegLoc::Vgpr {
                row,
                pair,
                shift,
                mask,
                ftz,
            } => {
                let p = self.lane_ptr()?;
                let flags = MemFlagsData::trusted();
                let lo = self.b.ins().load(types::I32, flags, p, row_off(row));
                let lo = if ftz { flush_f32(&mut self.b, lo) } else { lo };
                let ty = container(Ty::B(self.f.regs[i].width))?;
                if !pair && shift == 0 && ty == types::I32 && mask >= u32::MAX as u64 {
                    return Ok(Some(lo));
                }
                let mut x = self.b.ins().uextend(types::I64, lo);
                if pair {
                    let hi = self.b.ins().load(types::I32, flags, p, row_off(row + 1));
                    let hi = self.b.ins().uextend(types::I64, hi);
                    let hi = self.b.ins().ishl_imm_u(hi, 32);
                    x = self.b.ins().bor(x, hi);
                }
                if shift != 0 {
                    x = self.b.ins().ushr_imm_u(x, shift as i64);
                }
                if mask != u64::MAX {
                    x = self.b.ins().band_imm_u(x, mask as i64);
                }
                Ok(Some(self.fit(x, i)?))
            }
        }
    }

    /// The value a register starts with: its location's, zero when the text never reads it,
    /// else its slot's.
    fn initial(&mut self, i: usize) -> Result<Value, JitError> {
        let r = RegId(i as u32);
        if let Some(v) = self.read_loc(r)? {
            return Ok(v);
        }
        let ty = container(Ty::B(self.f.regs[i].width))?;
        if !self.f.regs[i].read {
            return Ok(self.zero(ty));
        }
        let addr = self.reg_addr(r);
        Ok(self.b.ins().load(ty, MemFlagsData::trusted(), addr, 0))
    }

    /// Holds every wave-uniform register the text uses in a variable, and starts the gathered
    /// lane masks at zero (before the lane loop).
    pub(super) fn promote_inplace(&mut self) -> Result<(), JitError> {
        let masks = match &self.inplace {
            Some(p) => p.lane_masks.clone(),
            None => Vec::new(),
        };
        for (i, &m) in masks.iter().enumerate() {
            if m && i < self.gathered.len() {
                let var = self.b.declare_var(types::I64);
                let z = self.b.ins().iconst(types::I64, 0);
                self.b.def_var(var, z);
                self.gathered[i] = Some(var);
            }
        }
        for i in 0..self.f.regs.len() {
            let r = &self.f.regs[i];
            if self.layout.per_lane[i] || r.role == RegRole::Lane || !(r.read || r.written) {
                continue;
            }
            let ty = container(Ty::B(r.width))?;
            let v = self.initial(i)?;
            let var = self.b.declare_var(ty);
            self.b.def_var(var, v);
            self.promoted[i] = Some(var);
        }
        Ok(())
    }

    /// Holds every per-lane register the text writes in a variable for the lane (at the start
    /// of its body).
    pub(super) fn init_lane_regs(&mut self) -> Result<(), JitError> {
        for i in 0..self.f.regs.len() {
            let r = &self.f.regs[i];
            if !self.layout.per_lane[i] || r.role == RegRole::Lane || !r.written {
                continue;
            }
            let ty = container(Ty::B(r.width))?;
            let var = match self.promoted[i] {
                Some(var) => var,
                None => {
                    let var: Variable = self.b.declare_var(ty);
                    self.promoted[i] = Some(var);
                    var
                }
            };
            // The variable is declared before the read so that `initial` reads the location.
            self.promoted[i] = None;
            let v = self.initial(i)?;
            self.promoted[i] = Some(var);
            self.b.def_var(var, v);
        }
        Ok(())
    }

    /// Stores the lane's VGPR results and adds its bit to the gathered lane masks (at the end
    /// of its body).
    pub(super) fn store_lane_outputs(&mut self) -> Result<(), JitError> {
        for i in 0..self.gathered.len() {
            let Some(acc) = self.gathered[i] else {
                continue;
            };
            let v = self.read_reg(RegId(i as u32))?;
            let ty = self.b.func.dfg.value_type(v);
            let v = if ty == types::I64 {
                v
            } else if ty.bits() > 64 {
                self.b.ins().ireduce(types::I64, v)
            } else {
                self.b.ins().uextend(types::I64, v)
            };
            let bit = self.b.ins().band_imm_u(v, 1);
            let lane = self.b.use_var(self.lane);
            let lane = self.b.ins().uextend(types::I64, lane);
            let bit = self.b.ins().ishl(bit, lane);
            let old = self.b.use_var(acc);
            let new = self.b.ins().bor(old, bit);
            self.b.def_var(acc, new);
        }
        let outs = match &self.inplace {
            Some(p) => p.lane_outs.clone(),
            None => return Ok(()),
        };
        for (i, outs) in outs.iter().enumerate() {
            if outs.is_empty() {
                continue;
            }
            let v = self.read_reg(RegId(i as u32))?;
            let ty = self.b.func.dfg.value_type(v);
            let v = if ty == types::I64 {
                v
            } else if ty.bits() > 64 {
                self.b.ins().ireduce(types::I64, v)
            } else {
                self.b.ins().uextend(types::I64, v)
            };
            for o in outs {
                let x = if o.shift != 0 {
                    self.b.ins().ushr_imm_u(v, o.shift as i64)
                } else {
                    v
                };
                let x = self.b.ins().ireduce(types::I32, x);
                let x = if o.ftz { flush_f32(&mut self.b, x) } else { x };
                let p = self.lane_ptr()?;
                self.b
                    .ins()
                    .store(MemFlagsData::trusted(), x, p, row_off(o.row));
            }
        }
        Ok(())
    }
}
