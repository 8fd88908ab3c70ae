//! Lane-mask inputs and outputs of block instructions: carry-outs and compare
//! results merged into VCC, an SGPR pair or EXEC under the EXEC mask at issue, as
//! `write_back`'s `write_mask` does, and the `EXECZ`/`VCCZ` flags a conditional branch reads.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cranelift_frontend::{FunctionBuilder, Variable};

use super::{flags, lane_loop, load_src, Regs, Src, SGPR_WORDS, SLOT};

/// Whether a mask output's scalar codes lie in the file.
pub(super) fn codes_ok(lo: Option<u32>, hi: Option<u32>) -> bool {
    [lo, hi]
        .into_iter()
        .flatten()
        .all(|c| (c as usize) < SGPR_WORDS)
}

/// Stores `1` into `n` slots at `off` when `(lo | hi << 32) & mask` is zero, else `0`.
#[allow(clippy::too_many_arguments)]
pub(super) fn emit_is_zero(
    b: &mut FunctionBuilder<'_>,
    r: &Regs,
    lo: Src,
    hi: Src,
    mask: u64,
    off: u32,
    n: u32,
) {
    let mut x = load_src(b, r, lo);
    if hi != Src::Zero {
        let h = load_src(b, r, hi);
        let h = b.ins().ishl_imm_u(h, 32);
        x = b.ins().bor(x, h);
    }
    let x = b.ins().band_imm_u(x, mask as i64);
    let z = b.ins().icmp_imm_u(IntCC::Equal, x, 0);
    let z = b.ins().uextend(types::I64, z);
    lane_loop(b, r, n, |b, _, ap, _, k| {
        b.ins().store(flags(), z, ap, off as i32 + k as i32 * SLOT);
    });
}

/// Writes the slot's 64-bit value at `off` (or, with `per_lane` = Some(lanes), the mask of
/// bit 0 of each lane's slot from `off`), masked by `mask` (and by `exec` when given), bits
/// 31:0 into scalar code `lo` and bits 63:32 into `hi` (each when present).
pub(super) fn emit_mask_out(
    b: &mut FunctionBuilder<'_>,
    r: &Regs,
    exec: Option<Value>,
    (lo, hi): (Option<u32>, Option<u32>),
    mask: u64,
    off: u32,
    per_lane: Option<u32>,
) {
    let x = match per_lane {
        None => b.ins().load(types::I64, flags(), r.arena, off as i32),
        Some(lanes) => {
            let mut acc = b.ins().iconst(types::I64, 0);
            for k in 0..lanes {
                let bit =
                    b.ins()
                        .uload8(types::I64, flags(), r.arena, off as i32 + k as i32 * SLOT);
                let bit = b.ins().band_imm_u(bit, 1);
                let bit = b.ins().ishl_imm_u(bit, k as i64);
                acc = b.ins().bor(acc, bit);
            }
            acc
        }
    };
    let mut x = if mask != u64::MAX {
        b.ins().band_imm_u(x, mask as i64)
    } else {
        x
    };
    if let Some(e) = exec {
        x = b.ins().band(x, e);
    }
    if let Some(c) = lo {
        let w = b.ins().ireduce(types::I32, x);
        b.ins().store(flags(), w, r.sgpr, (c * 4) as i32);
    }
    if let Some(c) = hi {
        let h = b.ins().ushr_imm_u(x, 32);
        let w = b.ins().ireduce(types::I32, h);
        b.ins().store(flags(), w, r.sgpr, (c * 4) as i32);
    }
}

/// Adds `count` times the active lanes of EXEC (the wave's lanes) to the block's lane count
/// (a variable; the function stores it into the arena when it returns).
pub(super) fn emit_count_lanes(
    b: &mut FunctionBuilder<'_>,
    exec: Value,
    lane_count: Variable,
    count: u32,
) {
    let n = b.ins().popcnt(exec);
    let n = if count != 1 {
        b.ins().imul_imm_u(n, count as i64)
    } else {
        n
    };
    let acc = b.use_var(lane_count);
    let acc = b.ins().iadd(acc, n);
    b.def_var(lane_count, acc);
}
