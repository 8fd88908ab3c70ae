//! Source modifiers and float result modifiers: `abs`/`neg`/`op_sel` and packed halves on
//! sources, MODE's denormal flushing, and `clamp`/`omod` on results.

use crate::value::Bits;

pub(super) use crate::wave::decode::Mods;

/// An f32 with a denormal value flushed to a zero of its sign.
#[inline]
pub(super) fn flush_f32(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// A float of `fbits` (16, 32, 64) held in `v` (of exactly that width) with a denormal value
/// flushed to a zero of its sign; other values and widths unchanged.
pub(super) fn flush_denormal(v: Bits, fbits: u32) -> Bits {
    let (exp, sign) = match fbits {
        16 => (0x7c00u64, 0x8000u64),
        32 => (0x7f80_0000, 0x8000_0000),
        64 => (0x7ff0_0000_0000_0000, 0x8000_0000_0000_0000),
        _ => return v,
    };
    if v.width() != fbits {
        return v;
    }
    let x = v.low_u64();
    if x & exp == 0 && x & !sign != 0 {
        Bits::from_u64(fbits, x & sign)
    } else {
        v
    }
}

fn sign_bit(b: &Bits, bit: u32, set: Option<bool>, flip: bool) -> Bits {
    let w = b.width();
    if bit >= w {
        return b.clone();
    }
    let one = Bits::from_u64(w, 1).shl(bit as u64);
    let mut v = b.clone();
    if let Some(false) = set {
        v = v.and(&one.not());
    }
    if flip {
        v = v.xor(&one);
    }
    v
}

pub(super) fn apply_mods(v: Bits, m: &Mods) -> Bits {
    if m.is_plain() {
        return v;
    }
    let mut v = v;
    if m.ftz && !m.opsel_hi {
        v = flush_denormal(v, m.float_bits);
    }
    if let Some((sel_lo, sel_hi, neg_lo, neg_hi)) = m.packed {
        // Two halves: 16-bit in a 32-bit source, 32-bit in a 64-bit one (CDNA's packed f32).
        let hw = v.width().min(64) / 2;
        let x = v.low_u64();
        let mask = (1u64 << hw) - 1;
        let half = |hi: bool| if hi { x >> hw & mask } else { x & mask };
        let mut lo = half(sel_lo);
        let mut hi = half(sel_hi);
        if m.float_bits == hw {
            let sign = 1u64 << (hw - 1);
            if neg_lo {
                lo ^= sign;
            }
            if neg_hi {
                hi ^= sign;
            }
        }
        return Bits::from_u64(v.width(), lo | hi << hw);
    }
    if m.opsel_hi {
        v = v.lshr(16);
        if m.ftz {
            v = flush_denormal(v.zext(16), m.float_bits).zext(v.width());
        }
    }
    if m.float_bits > 0 {
        let bit = m.float_bits.min(v.width()) - 1;
        if m.abs {
            v = sign_bit(&v, bit, Some(false), false);
        }
        if m.neg {
            v = sign_bit(&v, bit, None, true);
        }
    }
    v
}

/// Clamps a float result to [0, 1] (negative values give +0; NaN gives +0 with DX10 clamp,
/// else stays NaN).
pub(super) fn clamp_float(v: &Bits, fbits: u32, dx10: bool) -> Bits {
    let width = v.width();
    let clamp_one = |x: u64, fb: u32| -> u64 {
        let (sign, exp_mask, one) = match fb {
            16 => (1u64 << 15, 0x7c00u64, 0x3c00u64),
            64 => (1u64 << 63, 0x7ff0_0000_0000_0000, 0x3ff0_0000_0000_0000),
            _ => (1u64 << 31, 0x7f80_0000, 0x3f80_0000),
        };
        let mag = x & !sign & (sign | (sign - 1));
        let nan = (mag & exp_mask) == exp_mask && (mag & !exp_mask) != 0;
        if nan && !dx10 {
            x
        } else if nan || x & sign != 0 {
            0
        } else if mag > one {
            one
        } else {
            x
        }
    };
    if fbits == 16 && width >= 32 {
        // Packed halves.
        let x = v.low_u64();
        let lo = clamp_one(x & 0xffff, 16);
        let hi = clamp_one(x >> 16 & 0xffff, 16);
        return Bits::from_u64(width, lo | hi << 16);
    }
    Bits::from_u64(width, clamp_one(v.low_u64(), fbits))
}

pub(super) fn omod_float(v: &Bits, fbits: u32, omod: u32) -> Bits {
    let factor = match omod {
        1 => 2.0,
        2 => 4.0,
        3 => 0.5,
        _ => return v.clone(),
    };
    match fbits {
        32 => {
            let x = f32::from_bits(v.low_u64() as u32) * factor as f32;
            Bits::from_u64(v.width(), x.to_bits() as u64)
        }
        64 => {
            let x = f64::from_bits(v.low_u64()) * factor;
            Bits::from_u64(v.width(), x.to_bits())
        }
        _ => v.clone(),
    }
}
