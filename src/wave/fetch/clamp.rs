//! VOP3 integer `clamp`: the exact result of an add/sub/mad, saturated to the destination
//! type (AMD's text computes only the wrapped value).

use super::{bind_named, Dest, Inst};
use crate::interp::RegValue;
use crate::wave::state::WaveState;

/// The per-lane results of a VOP3 integer add/sub/mad with `clamp`: the exact result
/// (carry/borrow-in included) saturated to the destination type's range, as the hardware
/// defines integer clamp. `None` for instructions this does not cover.
pub(super) fn int_clamp(w: &WaveState, ii: &Inst<'_>, dst: Dest) -> Option<Vec<u64>> {
    let (op, rest, signed, bits) = int_clamp_kind(&ii.d.inst.name)?;
    let f = &ii.e.prepared.function;
    let src = |k: usize| -> Option<(RegValue, u32)> {
        let name = ["S0", "S1", "S2"][k];
        let width = f.reg(name).map(|r| f.regs[r.0 as usize].width)?;
        Some((bind_named(w, ii, dst, name, width, None)?, width))
    };
    let n_src = if op == Op::Mad { 3 } else { 2 };
    let srcs: Vec<(RegValue, u32)> = (0..n_src).map(src).collect::<Option<_>>()?;
    let carry_in = rest.contains("CI") || ii.d.inst.name.contains("_CI_");
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
                    Op::Add => s[0] + s[1] + c,
                    Op::Sub => s[0] - s[1] - c,
                    Op::SubRev => s[1] - s[0] - c,
                    Op::Mad => s[0] * s[1] + s[2],
                };
                (exact.clamp(lo, hi) as u64) & crate::value::mask64(bits)
            })
            .collect(),
    )
}

/// The integer operation an instruction's `clamp` saturates.
#[derive(PartialEq)]
enum Op {
    Add,
    Sub,
    SubRev,
    Mad,
}

/// The operation, the name's type suffix, signedness and width of an integer add/sub/mad
/// whose VOP3 `clamp` the wave layer models (`int_clamp`), or `None`.
fn int_clamp_kind(name: &str) -> Option<(Op, &str, bool, u32)> {
    let name = name.trim_end_matches("_E64");
    let (op, rest) = [
        ("V_ADD_NC_", Op::Add),
        ("V_ADD_CO_CI_", Op::Add),
        ("V_ADD_CO_", Op::Add),
        ("V_ADD_", Op::Add),
        ("V_SUB_NC_", Op::Sub),
        ("V_SUB_CO_CI_", Op::Sub),
        ("V_SUB_CO_", Op::Sub),
        ("V_SUB_", Op::Sub),
        ("V_SUBREV_CO_CI_", Op::SubRev),
        ("V_SUBREV_CO_", Op::SubRev),
        ("V_SUBREV_", Op::SubRev),
        ("V_MAD_", Op::Mad),
    ]
    .into_iter()
    .find_map(|(prefix, op)| name.strip_prefix(prefix).map(|r| (op, r)))?;
    // 24-bit multiplies read part of their sources; they are not covered.
    if rest.contains("24") {
        return None;
    }
    let ty = rest.split('_').next()?;
    let signed = match ty.as_bytes().first()? {
        b'U' => false,
        b'I' => true,
        _ => return None,
    };
    let bits: u32 = ty[1..].parse().ok()?;
    if !matches!(bits, 16 | 32) {
        return None;
    }
    Some((op, rest, signed, bits))
}

/// Whether the wave layer models VOP3 integer `clamp` of instruction `name` natively.
pub(crate) fn int_clamp_covers(name: &str) -> bool {
    int_clamp_kind(name).is_some()
}
