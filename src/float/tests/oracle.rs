//! The reference oracles: exact `s + δ` results from host residuals, rounding by stepping
//! between host neighbours, and a table of every value of a format of at most 16 bits.

use super::*;

pub(super) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// The exact result of an operation on `f64` operands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Exact {
    /// The result is NaN (invalid operation or NaN operand).
    Nan,
    /// The result is `s + δ` with `sign(δ) = d` and `|δ| <= ulp(s)/2`.
    Val(f64, i8),
    /// The host cannot give the exact result here (only for f64 operands).
    Unknown,
}

/// Computes `op(a, b, c)` exactly as `s + δ`. With `wide` (f64 operands) residuals that may
/// underflow are reported as `Unknown`; narrower operands never come close.
pub(super) fn exact(op: Op, a: f64, b: f64, c: f64, rm: Round, wide: bool) -> Exact {
    let all_finite = a.is_finite() && b.is_finite() && c.is_finite();
    let finish = |s: f64, d: i8| {
        if s.is_nan() {
            Exact::Nan
        } else if s.is_infinite() {
            // From finite operands this is an overflow: the exact value is below infinity.
            Exact::Val(s, if all_finite { -sign_of(s) } else { 0 })
        } else {
            Exact::Val(s, d)
        }
    };
    let zero_sum = |x: f64, y: f64| {
        // An exact zero sum is -0 only for (-0) + (-0), or in Round::Down.
        let negative = if x == 0.0 && y == 0.0 && x.is_sign_negative() == y.is_sign_negative() {
            x.is_sign_negative()
        } else {
            rm == Round::Down
        };
        Exact::Val(if negative { -0.0 } else { 0.0 }, 0)
    };
    let sum = |x: f64, y: f64| {
        let (s, e) = two_sum(x, y);
        if s == 0.0 && e == 0.0 && !x.is_nan() && !y.is_nan() {
            return zero_sum(x, y);
        }
        if s.is_finite() && !e.is_finite() {
            // An intermediate of the error term overflowed (operands near the largest
            // finite value): halved, the operands round the same way (they are far above
            // the subnormals) and the error term is finite.
            let (s2, e2) = two_sum(x * 0.5, y * 0.5);
            return finish(s2 * 2.0, sign_of(e2));
        }
        finish(s, if e.is_finite() { sign_of(e) } else { 0 })
    };
    match op {
        Op::Add => sum(a, b),
        Op::Sub => sum(a, -b),
        Op::Mul => {
            let p = a * b;
            let special = a == 0.0 || b == 0.0 || !a.is_finite() || !b.is_finite();
            if !wide || special || p.is_infinite() {
                // Exact, or (f64 only) an overflow that `finish` recognises.
                return finish(p, 0);
            }
            if p.abs() < 2f64.powi(-900) {
                return Exact::Unknown;
            }
            finish(p, sign_of(a.mul_add(b, -p)))
        }
        Op::Fma => {
            if wide {
                // Only round-to-nearest is checked for f64 fma, against the host directly.
                return Exact::Unknown;
            }
            // The product of two operands of at most 24 bits is exact in f64.
            let p = a * b;
            if p.is_nan() || c.is_nan() {
                return Exact::Nan;
            }
            sum(p, c)
        }
        Op::Div => {
            let q = a / b;
            if q.is_nan() {
                return Exact::Nan;
            }
            if a == 0.0 || b == 0.0 || !a.is_finite() || !b.is_finite() {
                // Exact: zero, infinity (including division by zero, which is no overflow).
                return Exact::Val(q, 0);
            }
            if wide && (a.abs() < 2f64.powi(-900) || q.abs() < 2f64.powi(-900)) {
                return Exact::Unknown;
            }
            if q.is_infinite() {
                return finish(q, 0);
            }
            let r = (-q).mul_add(b, a);
            finish(q, sign_of(r) * sign_of(b))
        }
        Op::Sqrt => {
            let s = a.sqrt();
            if !s.is_finite() || s == 0.0 {
                return finish(s, 0);
            }
            if wide && a < 2f64.powi(-900) {
                return Exact::Unknown;
            }
            finish(s, sign_of((-s).mul_add(s, a)))
        }
    }
}

/// Chooses between the neighbours `lo < x < hi` for rounding mode `rm`; `cmp_mid` is the
/// order of `x` against their midpoint, `lo_even` whether `lo` has an even mantissa.
pub(super) fn choose_hi(
    rm: Round,
    negative: bool,
    cmp_mid: std::cmp::Ordering,
    lo_even: bool,
) -> bool {
    match rm {
        Round::NearestEven => match cmp_mid {
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => !lo_even,
        },
        Round::TowardZero => negative,
        Round::Up => true,
        Round::Down => false,
    }
}

/// Orders `s + δ` (δ of sign `d`, tiny) against `mid`.
pub(super) fn cmp_with(s: f64, d: i8, mid: f64) -> std::cmp::Ordering {
    s.partial_cmp(&mid)
        .unwrap_or(std::cmp::Ordering::Equal)
        .then(d.cmp(&0))
}

/// Rounds `s + δ` to f32 by stepping between host f32 neighbours.
pub(super) fn ref_round_f32(s: f64, d: i8, rm: Round) -> u32 {
    let r = s as f32;
    let rv = f64::from(r);
    let (lo, hi) = if rv == s {
        match d {
            0 => return r.to_bits(),
            1 => (r, r.next_up()),
            _ => (r.next_down(), r),
        }
    } else if rv < s {
        (r, r.next_up())
    } else {
        (r.next_down(), r)
    };
    let big = 2f64.powi(103); // half an ulp at f32's top binade
    let mid = if hi.is_infinite() {
        f64::from(lo) + big
    } else if lo.is_infinite() {
        f64::from(hi) - big
    } else {
        (f64::from(lo) + f64::from(hi)) / 2.0
    };
    let lo_even = lo.to_bits() & 1 == 0;
    if choose_hi(rm, s < 0.0, cmp_with(s, d, mid), lo_even) {
        hi.to_bits()
    } else {
        lo.to_bits()
    }
}

/// Rounds `s + δ` to f64 (`s` is already the nearest f64).
pub(super) fn ref_round_f64(s: f64, d: i8, rm: Round) -> u64 {
    let (lo, hi) = match d {
        0 => return s.to_bits(),
        1 => (s, s.next_up()),
        _ => (s.next_down(), s),
    };
    let pick_hi = match rm {
        Round::NearestEven => return s.to_bits(),
        Round::TowardZero => s < 0.0,
        Round::Up => true,
        Round::Down => false,
    };
    if pick_hi {
        hi.to_bits()
    } else {
        lo.to_bits()
    }
}

/// A separate, deliberately simple decoder and a table of every non-negative finite value of
/// a format of at most 16 bits, used as the rounding oracle for those formats.
pub(super) struct Table {
    pub(super) f: Format,
    /// Value of each non-negative finite code, indexed by code (increasing).
    pub(super) vals: Vec<f64>,
}

pub(super) fn pow2(k: i32) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

impl Table {
    pub(super) fn new(f: Format) -> Table {
        let emask = (1u64 << f.exp_bits) - 1;
        let mmask = (1u64 << f.man_bits) - 1;
        let max_code = match f.kind {
            SpecialKind::Ieee => ((emask - 1) << f.man_bits) | mmask,
            SpecialKind::FiniteNanOnlyAllOnes => (emask << f.man_bits) | (mmask - 1),
            SpecialKind::FiniteNoNan => (emask << f.man_bits) | mmask,
        };
        let t = Table { f, vals: vec![] };
        let vals = (0..=max_code).map(|c| t.decode(c)).collect();
        Table { f, vals }
    }

    pub(super) fn width(&self) -> u32 {
        1 + self.f.exp_bits + self.f.man_bits
    }

    /// Decodes any code, specials included.
    pub(super) fn decode(&self, code: u64) -> f64 {
        let f = self.f;
        let bias = (1i32 << (f.exp_bits - 1)) - 1;
        let emask = (1u64 << f.exp_bits) - 1;
        let mmask = (1u64 << f.man_bits) - 1;
        let negative = code >> (f.exp_bits + f.man_bits) & 1 == 1;
        let e = (code >> f.man_bits) & emask;
        let m = code & mmask;
        let v = if e == emask && f.kind == SpecialKind::Ieee {
            if m == 0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        } else if e == emask && m == mmask && f.kind == SpecialKind::FiniteNanOnlyAllOnes {
            f64::NAN
        } else if e == 0 {
            m as f64 * pow2(1 - bias - f.man_bits as i32)
        } else {
            (m + (1 << f.man_bits)) as f64 * pow2(e as i32 - bias - f.man_bits as i32)
        };
        if negative {
            -v
        } else {
            v
        }
    }

    pub(super) fn is_nan_code(&self, code: u64) -> bool {
        self.decode(code).is_nan()
    }

    /// Rounds `s + δ` to the format; `None` for NaN.
    pub(super) fn round(&self, s: f64, d: i8, rm: Round, saturate: bool) -> Option<u64> {
        if s.is_nan() {
            return None;
        }
        let negative = s < 0.0 || (s == 0.0 && s.is_sign_negative());
        let sign = if negative {
            1u64 << (self.width() - 1)
        } else {
            0
        };
        let n = self.vals.len();
        let max_code = (n - 1) as u64;
        let nan_code = ((1u64 << (self.width() - 1)) - 1) | sign;
        let overflow = || match self.f.kind {
            _ if saturate => sign | max_code,
            SpecialKind::Ieee => sign | (max_code + 1),
            SpecialKind::FiniteNanOnlyAllOnes => nan_code,
            SpecialKind::FiniteNoNan => sign | max_code,
        };
        let a = s.abs();
        if a.is_infinite() {
            return Some(overflow());
        }
        // Sign of |x| - |s|.
        let d = if negative { -d } else { d };
        let i = self.vals.partition_point(|&v| v <= a) - 1;
        let (lo, hi) = if self.vals[i] == a {
            match d {
                0 => return Some(sign | i as u64),
                1 => (i, i + 1),
                _ => (i - 1, i),
            }
        } else {
            (i, i + 1)
        };
        let hi_val = if hi < n {
            self.vals[hi]
        } else {
            self.vals[n - 1] + (self.vals[n - 1] - self.vals[n - 2])
        };
        let cmp = (2.0 * a)
            .partial_cmp(&(self.vals[lo] + hi_val))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(d.cmp(&0));
        // Magnitudes: "up" in magnitude is toward +inf for positive values only.
        let pick_hi = match rm {
            Round::Up => !negative,
            Round::Down => negative,
            _ => choose_hi(rm, false, cmp, lo % 2 == 0),
        };
        let code = if pick_hi { hi } else { lo };
        Some(if code >= n {
            overflow()
        } else {
            sign | code as u64
        })
    }
}

/// Checks one operation on formats of at most 16 bits against the table oracle.
pub(super) fn check_small(t: &Table, op: Op, a: u64, b: u64, c: u64, rm: Round) {
    let f = t.f;
    let got = run(f, op, a, b, c, rm);
    let (x, y, z) = (t.decode(a), t.decode(b), t.decode(c));
    let want = match exact(op, x, y, z, rm, false) {
        Exact::Val(s, d) => t.round(s, d, rm, false),
        Exact::Nan => None,
        Exact::Unknown => unreachable!("bug: narrow operands are always exact"),
    };
    match want {
        Some(w) => assert_eq!(
            got, w,
            "{f:?} {op:?} {rm:?} a={a:#x} b={b:#x} c={c:#x}: got {got:#x} want {w:#x}"
        ),
        None if f.kind == SpecialKind::FiniteNoNan => {
            assert_eq!(got, f.default_nan(), "{op:?} {a:#x} {b:#x} {c:#x}")
        }
        None => assert!(
            t.is_nan_code(got),
            "{f:?} {op:?} {rm:?} a={a:#x} b={b:#x} c={c:#x}: got {got:#x}, want NaN"
        ),
    }
}
