//! What a block is made of, shared by the block compiler (`jit::block`) and its emitters (in
//! place: `jit::block_inplace`; SIMD lanes: `jit::block_simd`): the instructions with their
//! inputs and outputs, the register-file layout, and the in-place plan of one instruction.
//! It sits below all of them and imports none.

use std::sync::Arc;

use cranelift_codegen::ir::{Type, Value};

use crate::interp::STEP_BUDGET;
use crate::ir::{Expr, ExprKind, Place, Stmt};
use crate::jit::translate::{self, LaneOut};

/// Words the scalar file must have (operand codes 0..=127).
pub const SGPR_WORDS: usize = 128;
/// Words the VGPR file must have (256 registers of 64 lanes).
pub const VGPR_WORDS: usize = 256 * 64;
/// The status of a side exit ([`BlockSpec::exits`]): the instruction branched away from the
/// block (not a fault; the wave goes on at the branch's target).
pub const SIDE_EXIT: u32 = 0x4a58_0001;
/// The operand codes of EXEC.
pub(crate) const EXEC_LO: u32 = 126;
pub(crate) const EXEC_HI: u32 = 127;

/// A 32-bit scalar source of an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// Reads zero (`null`, or no high half).
    Zero,
    /// The scalar register at this operand code.
    Sgpr(u32),
    /// SCC (0 or 1).
    Scc,
}

/// What goes into a kernel's slots before it runs (the low 8 bytes of each slot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Lanes `0..n` of VGPR `row` (with `row + 1` above it when `pair`), shifted right by
    /// `shift` and masked; `ftz` flushes a denormal f32 in `row` first.
    Vgpr {
        /// The register.
        row: u32,
        /// Whether `row + 1` supplies bits 63:32.
        pair: bool,
        /// Right shift of the 64-bit value.
        shift: u32,
        /// Mask after the shift.
        mask: u64,
        /// Flush f32 denormals of `row`.
        ftz: bool,
        /// Arena byte offset of lane 0's slot.
        off: u32,
        /// Lanes copied (1 for a uniform register).
        n: u32,
    },
    /// `lo | hi << 32`, masked, into `n` slots.
    Scalar {
        /// Bits 31:0.
        lo: Src,
        /// Bits 63:32.
        hi: Src,
        /// Mask.
        mask: u64,
        /// Arena byte offset.
        off: u32,
        /// Slots written (the lane count for a per-lane register).
        n: u32,
    },
    /// `1` when `(lo | hi << 32) & mask` is zero, else `0` (`EXECZ`, `VCCZ`), into `n` slots.
    IsZero {
        /// Bits 31:0.
        lo: Src,
        /// Bits 63:32.
        hi: Src,
        /// Mask (the wave's lanes).
        mask: u64,
        /// Arena byte offset.
        off: u32,
        /// Slots written.
        n: u32,
    },
    /// A constant the kernel overwrites, so it is stored again before each run.
    Const {
        /// The value.
        value: u64,
        /// Arena byte offset.
        off: u32,
        /// Slots written.
        n: u32,
    },
}

/// What goes back into the register files after a kernel ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Bits `shift + 31 : shift` of each lane's slot into VGPR `row`, lanes whose EXEC bit was
    /// set at issue only; `ftz` flushes a denormal f32 result.
    Vgpr {
        /// The register.
        row: u32,
        /// Right shift of the slot's low word.
        shift: u32,
        /// Flush f32 denormals.
        ftz: bool,
        /// Arena byte offset of lane 0's slot.
        off: u32,
    },
    /// Bits `shift + 31 : shift` of the slot into the scalar register at `code`.
    Sgpr {
        /// The operand code.
        code: u32,
        /// Right shift.
        shift: u32,
        /// Arena byte offset.
        off: u32,
    },
    /// A lane mask or a 64-bit scalar pair: the slot's low 8 bytes masked by `mask` (and by
    /// EXEC at issue when `by_exec`), bits 31:0 into code `lo`, bits 63:32 into code `hi`
    /// (each when present), as `write_back` merges VCC, carry-outs, compares and EXEC.
    Mask {
        /// The code of bits 31:0.
        lo: Option<u32>,
        /// The code of bits 63:32.
        hi: Option<u32>,
        /// Mask (the register's width and the wave's lanes).
        mask: u64,
        /// Also mask by EXEC at issue.
        by_exec: bool,
        /// The mask is bit 0 of each lane's slot (a per-lane 1-bit register such as the
        /// carry-out `D1` of `v_mad_u64_u32`), not one 64-bit slot.
        per_lane: bool,
        /// Arena byte offset.
        off: u32,
    },
    /// Bit 0 of the slot into SCC.
    Scc {
        /// Arena byte offset.
        off: u32,
    },
}

/// What translating a kernel's instruction in place needs ([`super::Kernel::block_ir`]).
#[derive(Clone, Debug)]
pub struct KernelIr {
    /// The optimised IR the kernel was translated from.
    pub function: Arc<crate::ir::Function>,
    /// The kernel's slot layout (offsets from [`BlockInst::slots`]).
    pub layout: translate::Layout,
    /// Whether the kernel loops over lanes.
    pub lane_loop: bool,
}

/// One instruction of a block.
#[derive(Clone, Debug)]
pub struct BlockInst {
    /// The kernel's code address (a kernel of the same [`Jit`]).
    pub code: usize,
    /// Arena byte offset of the kernel's slot buffer.
    pub slots: u32,
    /// Inputs, in order.
    pub inputs: Vec<Input>,
    /// Outputs, in order.
    pub outputs: Vec<Output>,
    /// Wave-uniform constants the arena already holds at these offsets (not stored again
    /// before each run), as values for an in-place instruction.
    pub consts: Vec<(u32, u64)>,
    /// The kernel's IR, to translate the instruction into the block in place when it can be
    /// (`None`: the block calls the kernel).
    pub ir: Option<KernelIr>,
}

/// A block to compile.
#[derive(Clone, Debug)]
pub struct BlockSpec {
    /// 32 or 64.
    pub lanes: u32,
    /// The instructions.
    pub insts: Vec<BlockInst>,
    /// Bytes of the arena.
    pub arena_size: usize,
    /// When the last instruction branches: the block's first address and the arena offset of
    /// the branch's PC output, so a taken branch back to the start loops in place.
    pub loop_to: Option<(u64, u32)>,
    /// Side exits: `(index, pc_off, fall_through)` for an instruction that may branch
    /// without ending the block (a forward conditional branch): after it, when its PC output at arena
    /// offset `pc_off` is not `fall_through`, the function returns `index << 32 |`
    /// [`SIDE_EXIT`] (the instruction done, the ones after it not; the iterations completed
    /// stored as for a fault); otherwise the block goes on with the next instruction.
    pub exits: Vec<(u32, u32, u64)>,
    /// Lane counting: the arena byte offset of a `u64` into which the function stores, when
    /// it returns, the sum over the instructions it ran of the active lanes of EXEC at issue
    /// times the instruction's count (the steps it stands for: itself and the no-ops before
    /// it), one count per instruction. `None`: nothing counted.
    pub lane_ops: Option<(u32, Vec<u32>)>,
}

/// The function's buffer pointers.
pub(crate) struct Regs {
    pub(crate) sgpr: Value,
    pub(crate) vgpr: Value,
    pub(crate) scc: Value,
    pub(crate) arena: Value,
    pub(crate) ptr: Type,
}

/// Where an in-place register's value comes from, before the instruction.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Source {
    /// Its slot.
    Slot,
    /// `lo | hi << 32`, masked.
    Scalar { lo: Src, hi: Src, mask: u64 },
    /// A constant.
    Const(u64),
    /// `1` when `(lo | hi << 32) & mask` is zero, else `0` (`EXECZ`, `VCCZ`).
    IsZero { lo: Src, hi: Src, mask: u64 },
    /// A VGPR row per lane.
    Vgpr {
        row: u32,
        pair: bool,
        shift: u32,
        mask: u64,
        ftz: bool,
    },
}

/// Where a wave-uniform register's final value goes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum UniformOut {
    /// Bits `shift + 31 : shift` into the SGPR at `code`.
    Sgpr { code: u32, shift: u32 },
    /// Bit 0 into SCC.
    Scc,
    /// A lane mask or scalar pair, as [`Output::Mask`]: masked by `mask` (and by EXEC at
    /// issue when `by_exec`), bits 31:0 into code `lo` and bits 63:32 into `hi`.
    Mask {
        lo: Option<u32>,
        hi: Option<u32>,
        mask: u64,
        by_exec: bool,
    },
}

/// How one instruction is translated in place.
pub(crate) struct Plan<'a> {
    pub(crate) ir: &'a KernelIr,
    pub(crate) sources: Vec<Source>,
    pub(crate) lane_outs: Vec<Vec<LaneOut>>,
    /// Per-lane registers whose bit 0 is gathered into a lane mask (`Output::Mask` with
    /// `per_lane`).
    pub(crate) lane_masks: Vec<bool>,
    /// The register-file outputs of wave-uniform registers (and gathered lane masks), in the
    /// order the kernel call writes them.
    pub(crate) uniform_outs: Vec<(usize, UniformOut)>,
    /// Whether a uniform register has a register-file output (else PC: to its slot).
    pub(crate) has_out: Vec<bool>,
}

/// The in-place plan of `inst`, or `None` when it keeps its kernel call.
pub(crate) fn plan(inst: &BlockInst, lanes: u32) -> Option<Plan<'_>> {
    let ir = inst.ir.as_ref()?;
    let f = &*ir.function;
    let layout = &ir.layout;
    let n = f.regs.len();
    if layout.per_lane.len() != n || layout.offsets.len() != n {
        return None;
    }
    if !ir.lane_loop && layout.per_lane.iter().any(|&p| p) {
        return None;
    }
    if !f.body.iter().all(stmt_ok) || f.reg("ROUND_MODE").is_some() {
        return None;
    }
    let reg_at =
        |off: u32| (0..n).find(|&i| (inst.slots as i64 + layout.offsets[i] as i64) == off as i64);
    // A wave-uniform input fills one slot, or every lane's of a per-lane register.
    let uniform_at = |off: u32, count: u32| {
        let i = reg_at(off)?;
        (count == if layout.per_lane[i] { lanes } else { 1 }).then_some(i)
    };
    let mut sources = vec![Source::Slot; n];
    for &(off, value) in &inst.consts {
        sources[reg_at(off)?] = Source::Const(value);
    }
    for input in &inst.inputs {
        match *input {
            Input::Vgpr {
                row,
                pair,
                shift,
                mask,
                ftz,
                off,
                n: count,
            } => {
                let i = reg_at(off)?;
                if !layout.per_lane[i] || count != lanes {
                    return None;
                }
                sources[i] = Source::Vgpr {
                    row,
                    pair,
                    shift,
                    mask,
                    ftz,
                };
            }
            Input::Scalar {
                lo,
                hi,
                mask,
                off,
                n: count,
            } => {
                let i = uniform_at(off, count)?;
                sources[i] = Source::Scalar { lo, hi, mask };
            }
            Input::Const {
                value,
                off,
                n: count,
            } => {
                let i = uniform_at(off, count)?;
                sources[i] = Source::Const(value);
            }
            Input::IsZero {
                lo,
                hi,
                mask,
                off,
                n: count,
            } => {
                let i = uniform_at(off, count)?;
                sources[i] = Source::IsZero { lo, hi, mask };
            }
        }
    }
    let mut lane_outs = vec![Vec::new(); n];
    let mut lane_masks = vec![false; n];
    let mut uniform_outs = Vec::new();
    let mut has_out = vec![false; n];
    for output in &inst.outputs {
        match *output {
            Output::Vgpr {
                row,
                shift,
                ftz,
                off,
            } => {
                let i = reg_at(off)?;
                if !layout.per_lane[i] {
                    return None;
                }
                lane_outs[i].push(LaneOut { row, shift, ftz });
            }
            Output::Sgpr { code, shift, off } => {
                let i = reg_at(off)?;
                if layout.per_lane[i] || !f.regs[i].written {
                    return None;
                }
                uniform_outs.push((i, UniformOut::Sgpr { code, shift }));
                has_out[i] = true;
            }
            Output::Scc { off } => {
                let i = reg_at(off)?;
                if layout.per_lane[i] || !f.regs[i].written {
                    return None;
                }
                uniform_outs.push((i, UniformOut::Scc));
                has_out[i] = true;
            }
            Output::Mask {
                lo,
                hi,
                mask,
                by_exec,
                per_lane,
                off,
            } => {
                let i = reg_at(off)?;
                if layout.per_lane[i] != per_lane || !f.regs[i].written {
                    return None;
                }
                if per_lane {
                    // Only the lanes the loop visits are gathered: the others must read zero.
                    if !by_exec || !ir.lane_loop {
                        return None;
                    }
                    lane_masks[i] = true;
                }
                uniform_outs.push((
                    i,
                    UniformOut::Mask {
                        lo,
                        hi,
                        mask,
                        by_exec,
                    },
                ));
                has_out[i] = true;
            }
        }
    }
    Some(Plan {
        ir,
        sources,
        lane_outs,
        lane_masks,
        uniform_outs,
        has_out,
    })
}

/// Whether a statement cannot fault once translated (see the module documentation).
fn stmt_ok(s: &Stmt) -> bool {
    match s {
        Stmt::Assign { place, value, .. } => place_ok(place) && expr_ok(value),
        Stmt::AssignConcat { places, value, .. } => {
            places.iter().all(|(p, _)| place_ok(p)) && expr_ok(value)
        }
        Stmt::If {
            cond,
            then,
            otherwise,
            ..
        } => expr_ok(cond) && then.iter().all(stmt_ok) && otherwise.iter().all(stmt_ok),
        Stmt::For {
            start, end, body, ..
        } => {
            matches!((start.as_const_u64(), end.as_const_u64()),
                (Some(a), Some(b)) if b.wrapping_sub(a) < STEP_BUDGET)
                && body.iter().all(stmt_ok)
        }
        Stmt::Break { .. } | Stmt::Continue { .. } | Stmt::Return { .. } => true,
        Stmt::While { .. } | Stmt::Effect { .. } => false,
    }
}

fn place_ok(p: &Place) -> bool {
    match p {
        Place::Reg(_) | Place::Local(_) => true,
        Place::Slice { base, lo, .. } => place_ok(base) && expr_ok(lo),
        Place::Elem { .. } | Place::Store { .. } => false,
    }
}

fn expr_ok(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Const(_) | ExprKind::Reg(_) | ExprKind::Local(_) => true,
        ExprKind::Unary { arg, .. } | ExprKind::Convert { arg, .. } => expr_ok(arg),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Cmp { lhs, rhs, .. } => {
            expr_ok(lhs) && expr_ok(rhs)
        }
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => expr_ok(cond) && expr_ok(then) && expr_ok(otherwise),
        ExprKind::Slice { arg, lo, .. } => expr_ok(arg) && expr_ok(lo),
        ExprKind::Concat(parts) => parts.iter().all(expr_ok),
        ExprKind::Call { args, .. } => args.iter().all(expr_ok),
        ExprKind::Elem { .. } | ExprKind::Load { .. } => false,
    }
}
