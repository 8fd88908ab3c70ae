//! VOP3 integer `clamp`: the exact result of an add/sub/mad, saturated to the destination
//! type (AMD's text computes only the wrapped value).

use super::{bind_named, Dest, Inst};
use crate::interp::RegValue;
use crate::machine::{ClampOp, IntClamp};
use crate::wave::state::WaveState;

/// The per-lane results of a VOP3 integer add/sub/mad with `clamp`: the exact result
/// (carry/borrow-in included) saturated to the destination type's range, as the hardware
/// defines integer clamp. `None` for instructions this does not cover.
pub(super) fn int_clamp(w: &WaveState, ii: &Inst<'_>, dst: Dest) -> Option<Vec<u64>> {
    let IntClamp {
        op,
        signed,
        bits,
        carry_in,
    } = ii.d.facts.int_clamp?;
    let bits = u32::from(bits);
    let f = &ii.e.prepared.function;
    let src = |k: usize| -> Option<(RegValue, u32)> {
        let name = ["S0", "S1", "S2"][k];
        let width = f.reg(name).map(|r| f.regs[r.0 as usize].width)?;
        Some((bind_named(w, ii, dst, name, width, None)?, width))
    };
    let n_src = if op == ClampOp::Mad { 3 } else { 2 };
    let srcs: Vec<(RegValue, u32)> = (0..n_src).map(src).collect::<Option<_>>()?;
    let carry = if carry_in {
        match bind_named(w, ii, dst, "VCC", 64, None)? {
            RegValue::Uniform(b) => b.low_u64(),
            RegValue::Lanes(_) => return None,
        }
    } else {
        0
    };
    let value = |v: &RegValue, width: u32, lane: u32| -> i128 {
        let x = match v {
            RegValue::Uniform(b) => b.low_u64(),
            RegValue::Lanes(l) => l[lane as usize].low_u64(),
        } & crate::value::mask64(width);
        if signed && width < 64 && x >> (width - 1) & 1 == 1 {
            x as i128 - (1i128 << width)
        } else {
            x as i128
        }
    };
    let (lo, hi) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    Some(
        (0..w.wave_size)
            .map(|lane| {
                let s: Vec<i128> = srcs.iter().map(|(v, wd)| value(v, *wd, lane)).collect();
                let c = (carry >> lane & 1) as i128;
                let exact = match op {
                    ClampOp::Add => s[0] + s[1] + c,
                    ClampOp::Sub => s[0] - s[1] - c,
                    ClampOp::SubRev => s[1] - s[0] - c,
                    ClampOp::Mad => s[0] * s[1] + s[2],
                };
                (exact.clamp(lo, hi) as u64) & crate::value::mask64(bits)
            })
            .collect(),
    )
}
