//! Tests for the soft-float library.
//!
//! Three independent oracles are used:
//! * the host FPU in round-to-nearest-even (f32/f64 arithmetic, `as` casts), compared bit for
//!   bit as the brief requires;
//! * for every rounding mode, the host's exact result written as `s + δ` (`s` an `f64`, `δ`
//!   known by sign only, via TwoSum and fma residuals), rounded by stepping between
//!   neighbouring values with the host's `next_up`/`next_down`;
//! * for formats of 16 bits or less, a table of every finite value decoded with a separate
//!   decoder, rounded by binary search.

use super::*;
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

const MODES: [Round; 4] = [
    Round::NearestEven,
    Round::TowardZero,
    Round::Up,
    Round::Down,
];
const NARROW: [Format; 5] = [FP8, BF8, FP6, BF6, FP4];

// ----------------------------------------------------------------------------------------
// Helpers shared by the oracles.

/// splitmix64: deterministic random numbers for the large loop-based tests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn proptest_config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Sqrt,
    Fma,
}

fn run(f: Format, op: Op, a: u64, b: u64, c: u64, rm: Round) -> u64 {
    let flags = &mut Flags::default();
    match op {
        Op::Add => add(f, a, b, rm, flags),
        Op::Sub => sub(f, a, b, rm, flags),
        Op::Mul => mul(f, a, b, rm, flags),
        Op::Div => div(f, a, b, rm, flags),
        Op::Sqrt => sqrt(f, a, rm, flags),
        Op::Fma => fma(f, a, b, c, rm, flags),
    }
}

fn sign_of(x: f64) -> i8 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// The exact result of an operation on `f64` operands.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Exact {
    /// The result is NaN (invalid operation or NaN operand).
    Nan,
    /// The result is `s + δ` with `sign(δ) = d` and `|δ| <= ulp(s)/2`.
    Val(f64, i8),
    /// The host cannot give the exact result here (only for f64 operands).
    Unknown,
}

/// Computes `op(a, b, c)` exactly as `s + δ`. With `wide` (f64 operands) residuals that may
/// underflow are reported as `Unknown`; narrower operands never come close.
fn exact(op: Op, a: f64, b: f64, c: f64, rm: Round, wide: bool) -> Exact {
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
fn choose_hi(rm: Round, negative: bool, cmp_mid: std::cmp::Ordering, lo_even: bool) -> bool {
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
fn cmp_with(s: f64, d: i8, mid: f64) -> std::cmp::Ordering {
    s.partial_cmp(&mid)
        .unwrap_or(std::cmp::Ordering::Equal)
        .then(d.cmp(&0))
}

/// Rounds `s + δ` to f32 by stepping between host f32 neighbours.
fn ref_round_f32(s: f64, d: i8, rm: Round) -> u32 {
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
fn ref_round_f64(s: f64, d: i8, rm: Round) -> u64 {
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
struct Table {
    f: Format,
    /// Value of each non-negative finite code, indexed by code (increasing).
    vals: Vec<f64>,
}

fn pow2(k: i32) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

impl Table {
    fn new(f: Format) -> Table {
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

    fn width(&self) -> u32 {
        1 + self.f.exp_bits + self.f.man_bits
    }

    /// Decodes any code, specials included.
    fn decode(&self, code: u64) -> f64 {
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

    fn is_nan_code(&self, code: u64) -> bool {
        self.decode(code).is_nan()
    }

    /// Rounds `s + δ` to the format; `None` for NaN.
    fn round(&self, s: f64, d: i8, rm: Round, saturate: bool) -> Option<u64> {
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
fn check_small(t: &Table, op: Op, a: u64, b: u64, c: u64, rm: Round) {
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

// ----------------------------------------------------------------------------------------
// f32 and f64 against the host.

fn f32_bits() -> impl Strategy<Value = u32> {
    let edges = vec![
        0u32,
        0x0000_0001,
        0x007f_ffff,
        0x0080_0000,
        0x0080_0001,
        0x00ff_ffff,
        0x3380_0000,
        0x3400_0000,
        0x3f7f_ffff,
        0x3f80_0000,
        0x3f80_0001,
        0x4000_0000,
        0x4b80_0000,
        0x4f00_0000,
        0x5f00_0000,
        0x7f00_0000,
        0x7f7f_fffe,
        0x7f7f_ffff,
        0x7f80_0000,
        0x7f80_0001,
        0x7fa0_0000,
        0x7fbf_ffff,
        0x7fc0_0000,
        0x7fff_ffff,
    ];
    let with_sign = |(negative, m): (bool, u32)| m | (u32::from(negative) << 31);
    prop_oneof![
        4 => any::<u32>(),
        3 => (any::<bool>(), proptest::sample::select(edges)).prop_map(with_sign),
        2 => (any::<bool>(), 0u32..0x0100_0000).prop_map(with_sign),
        2 => (any::<bool>(), 0x3f7f_ff00u32..0x3f80_0100).prop_map(with_sign),
        1 => (any::<bool>(), 0x7f7f_ff00u32..0x7f80_0000).prop_map(with_sign),
        3 => (any::<bool>(), 100u32..160, any::<u32>())
            .prop_map(move |(s, e, m)| with_sign((s, (e << 23) | (m & 0x7f_ffff)))),
    ]
}

fn f64_bits() -> impl Strategy<Value = u64> {
    let edges = vec![
        0u64,
        1,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x0010_0000_0000_0001,
        0x3ca0_0000_0000_0000,
        0x3cb0_0000_0000_0000,
        0x3fef_ffff_ffff_ffff,
        0x3ff0_0000_0000_0000,
        0x3ff0_0000_0000_0001,
        0x4340_0000_0000_0000,
        0x7fe0_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0x7ff4_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7fff_ffff_ffff_ffff,
    ];
    let with_sign = |(negative, m): (bool, u64)| m | (u64::from(negative) << 63);
    prop_oneof![
        4 => any::<u64>(),
        3 => (any::<bool>(), proptest::sample::select(edges)).prop_map(with_sign),
        2 => (any::<bool>(), 0u64..0x0020_0000_0000_0000).prop_map(with_sign),
        2 => (any::<bool>(), 0x3fef_ffff_ffff_ff00u64..0x3ff0_0000_0000_0100).prop_map(with_sign),
        1 => (any::<bool>(), 0x7fef_ffff_ffff_ff00u64..0x7ff0_0000_0000_0000).prop_map(with_sign),
        3 => (any::<bool>(), 990u64..1060, any::<u64>())
            .prop_map(move |(s, e, m)| with_sign((s, (e << 52) | (m & 0x000f_ffff_ffff_ffff)))),
    ]
}

/// A second operand near the first (exponent within ±30), to exercise cancellation.
fn f32_pair() -> impl Strategy<Value = (u32, u32)> {
    prop_oneof![
        (f32_bits(), f32_bits()),
        (f32_bits(), -30i32..30, any::<u32>(), any::<bool>()).prop_map(|(a, de, m, s)| {
            let e = (((a >> 23) & 0xff) as i32 + de).clamp(0, 255) as u32;
            (a, (u32::from(s) << 31) | (e << 23) | (m & 0x7f_ffff))
        }),
    ]
}

fn f64_pair() -> impl Strategy<Value = (u64, u64)> {
    prop_oneof![
        (f64_bits(), f64_bits()),
        (f64_bits(), -60i64..60, any::<u64>(), any::<bool>()).prop_map(|(a, de, m, s)| {
            let e = (((a >> 52) & 0x7ff) as i64 + de).clamp(0, 0x7ff) as u64;
            (
                a,
                (u64::from(s) << 63) | (e << 52) | (m & 0x000f_ffff_ffff_ffff),
            )
        }),
    ]
}

/// fma operands, sometimes with `c` close to `-(a*b)` to force massive cancellation.
fn f32_triple() -> impl Strategy<Value = (u32, u32, u32)> {
    prop_oneof![
        (f32_bits(), f32_bits(), f32_bits()),
        (f32_pair(), f32_bits()).prop_map(|((a, b), c)| (a, b, c)),
        (f32_bits(), f32_bits(), -3i32..4).prop_map(|(a, b, k)| {
            let p = -(f32::from_bits(a) * f32::from_bits(b));
            (a, b, p.to_bits().wrapping_add(k as u32))
        }),
    ]
}

fn f64_triple() -> impl Strategy<Value = (u64, u64, u64)> {
    prop_oneof![
        (f64_bits(), f64_bits(), f64_bits()),
        (f64_pair(), f64_bits()).prop_map(|((a, b), c)| (a, b, c)),
        (f64_bits(), f64_bits(), -3i64..4).prop_map(|(a, b, k)| {
            let p = -(f64::from_bits(a) * f64::from_bits(b));
            (a, b, p.to_bits().wrapping_add(k as u64))
        }),
    ]
}

fn host_f32(op: Op, a: u32, b: u32, c: u32) -> u32 {
    let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
    match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Div => x / y,
        Op::Sqrt => x.sqrt(),
        Op::Fma => x.mul_add(y, z),
    }
    .to_bits()
}

fn host_f64(op: Op, a: u64, b: u64, c: u64) -> u64 {
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Div => x / y,
        Op::Sqrt => x.sqrt(),
        Op::Fma => x.mul_add(y, z),
    }
    .to_bits()
}

/// f32: round-to-nearest against the host directly, every mode against the stepping oracle.
fn check_f32(op: Op, a: u32, b: u32, c: u32) -> Result<(), TestCaseError> {
    let (a64, b64, c64) = (u64::from(a), u64::from(b), u64::from(c));
    let host = host_f32(op, a, b, c);
    let ne = run(F32, op, a64, b64, c64, Round::NearestEven) as u32;
    if f32::from_bits(host).is_nan() {
        prop_assert!(
            f32::from_bits(ne).is_nan(),
            "{op:?} {a:#x} {b:#x} {c:#x}: {ne:#x}"
        );
    } else {
        prop_assert_eq!(ne, host, "{:?} {:#x} {:#x} {:#x}", op, a, b, c);
    }
    let (x, y, z) = (
        f64::from(f32::from_bits(a)),
        f64::from(f32::from_bits(b)),
        f64::from(f32::from_bits(c)),
    );
    for rm in MODES {
        let got = run(F32, op, a64, b64, c64, rm) as u32;
        match exact(op, x, y, z, rm, false) {
            Exact::Val(s, d) => {
                let want = ref_round_f32(s, d, rm);
                prop_assert_eq!(got, want, "{:?} {:?} {:#x} {:#x} {:#x}", op, rm, a, b, c);
            }
            _ => prop_assert!(f32::from_bits(got).is_nan()),
        }
    }
    Ok(())
}

/// f64: round-to-nearest against the host directly, directed modes against the stepping
/// oracle where the host residual is exact.
fn check_f64(op: Op, a: u64, b: u64, c: u64) -> Result<(), TestCaseError> {
    let host = host_f64(op, a, b, c);
    let ne = run(F64, op, a, b, c, Round::NearestEven);
    if f64::from_bits(host).is_nan() {
        prop_assert!(
            f64::from_bits(ne).is_nan(),
            "{op:?} {a:#x} {b:#x} {c:#x}: {ne:#x}"
        );
    } else {
        prop_assert_eq!(ne, host, "{:?} {:#x} {:#x} {:#x}", op, a, b, c);
    }
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    for rm in MODES {
        let got = run(F64, op, a, b, c, rm);
        match exact(op, x, y, z, rm, true) {
            Exact::Val(s, d) => {
                let want = ref_round_f64(s, d, rm);
                prop_assert_eq!(got, want, "{:?} {:?} {:#x} {:#x} {:#x}", op, rm, a, b, c);
            }
            Exact::Nan => prop_assert!(f64::from_bits(got).is_nan()),
            Exact::Unknown => {}
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(proptest_config(40_000))]

    #[test]
    fn prop_f32_add_sub_mul_div((a, b) in f32_pair()) {
        for op in [Op::Add, Op::Sub, Op::Mul, Op::Div] {
            check_f32(op, a, b, 0)?;
        }
    }

    #[test]
    fn prop_f32_sqrt(a in f32_bits()) {
        check_f32(Op::Sqrt, a, 0, 0)?;
    }

    #[test]
    fn prop_f32_fma((a, b, c) in f32_triple()) {
        check_f32(Op::Fma, a, b, c)?;
    }

    #[test]
    fn prop_f64_add_sub_mul_div((a, b) in f64_pair()) {
        for op in [Op::Add, Op::Sub, Op::Mul, Op::Div] {
            check_f64(op, a, b, 0)?;
        }
    }

    #[test]
    fn prop_f64_sqrt(a in f64_bits()) {
        check_f64(Op::Sqrt, a, 0, 0)?;
    }

    #[test]
    fn prop_f64_fma((a, b, c) in f64_triple()) {
        check_f64(Op::Fma, a, b, c)?;
    }

    #[test]
    fn prop_f64_to_f32(a in f64_bits()) {
        let x = f64::from_bits(a);
        let ne = convert(F64, F32, a, Round::NearestEven, &mut Flags::default()) as u32;
        if x.is_nan() {
            prop_assert!(f32::from_bits(ne).is_nan());
        } else {
            prop_assert_eq!(ne, (x as f32).to_bits());
            for rm in MODES {
                let got = convert(F64, F32, a, rm, &mut Flags::default()) as u32;
                prop_assert_eq!(got, ref_round_f32(x, 0, rm), "{:?} {:#x}", rm, a);
            }
        }
        // f64 -> f32 -> f64 is exact for values that came from f32.
        let back = convert(F32, F64, u64::from(ne), Round::NearestEven, &mut Flags::default());
        if !x.is_nan() {
            prop_assert_eq!(back, f64::from(f32::from_bits(ne)).to_bits());
        }
    }

    #[test]
    fn prop_int_to_f32_f64(v in any::<i64>(), shift in 0u32..64) {
        let v = v >> shift; // bias toward small magnitudes as well
        let nf = &mut Flags::default();
        prop_assert_eq!(from_int(F32, i128::from(v as i32), Round::NearestEven, nf), u64::from((v as i32 as f32).to_bits()));
        prop_assert_eq!(from_int(F32, i128::from(v as u32), Round::NearestEven, nf), u64::from((v as u32 as f32).to_bits()));
        prop_assert_eq!(from_int(F32, i128::from(v), Round::NearestEven, nf), u64::from((v as f32).to_bits()));
        prop_assert_eq!(from_uint(F32, u128::from(v as u64), Round::NearestEven, nf), u64::from((v as u64 as f32).to_bits()));
        prop_assert_eq!(from_int(F64, i128::from(v as i32), Round::NearestEven, nf), (v as i32 as f64).to_bits());
        prop_assert_eq!(from_int(F64, i128::from(v as u32), Round::NearestEven, nf), (v as u32 as f64).to_bits());
        prop_assert_eq!(from_int(F64, i128::from(v), Round::NearestEven, nf), (v as f64).to_bits());
        prop_assert_eq!(from_uint(F64, u128::from(v as u64), Round::NearestEven, nf), (v as u64 as f64).to_bits());
        // Every mode: the host's nearest f64 plus the sign of the exact remainder.
        let s = v as f64;
        let d = (i128::from(v) - s as i128).signum() as i8;
        for rm in MODES {
            prop_assert_eq!(from_int(F64, i128::from(v), rm, nf), ref_round_f64(s, d, rm));
            prop_assert_eq!(from_int(F32, i128::from(v), rm, nf), u64::from(ref_round_f32(s, d, rm)));
        }
    }

    #[test]
    fn prop_float_to_int(a in f32_bits(), b in f64_bits()) {
        let nf = &mut Flags::default();
        let x = f32::from_bits(a);
        let y = f64::from_bits(b);
        let tz = Round::TowardZero;
        let a = u64::from(a);
        prop_assert_eq!(to_int(F32, a, true, 32, tz, nf), u64::from(x as i32 as u32));
        prop_assert_eq!(to_int(F32, a, false, 32, tz, nf), u64::from(x as u32));
        prop_assert_eq!(to_int(F32, a, true, 64, tz, nf), x as i64 as u64);
        prop_assert_eq!(to_int(F32, a, false, 64, tz, nf), x as u64);
        prop_assert_eq!(to_int(F32, a, true, 16, tz, nf), u64::from(x as i16 as u16));
        prop_assert_eq!(to_int(F32, a, false, 8, tz, nf), u64::from(x as u8));
        prop_assert_eq!(to_int(F64, b, true, 32, tz, nf), u64::from(y as i32 as u32));
        prop_assert_eq!(to_int(F64, b, false, 32, tz, nf), u64::from(y as u32));
        prop_assert_eq!(to_int(F64, b, true, 64, tz, nf), y as i64 as u64);
        prop_assert_eq!(to_int(F64, b, false, 64, tz, nf), y as u64);
        prop_assert_eq!(to_int(F64, b, true, 8, tz, nf), u64::from(y as i8 as u8));
        // Other modes: the host's exact integral rounding, then the saturating cast.
        let (xs, ys) = ([x.round_ties_even(), x.floor(), x.ceil()], [y.round_ties_even(), y.floor(), y.ceil()]);
        for (i, rm) in [Round::NearestEven, Round::Down, Round::Up].into_iter().enumerate() {
            prop_assert_eq!(to_int(F32, a, true, 32, rm, nf), u64::from(xs[i] as i32 as u32));
            prop_assert_eq!(to_int(F32, a, false, 64, rm, nf), xs[i] as u64);
            prop_assert_eq!(to_int(F64, b, true, 64, rm, nf), ys[i] as i64 as u64);
            prop_assert_eq!(to_int(F64, b, false, 16, rm, nf), u64::from(ys[i] as u16));
        }
    }

    #[test]
    fn prop_round_to_integral_matches_host(a in f32_bits(), b in f64_bits()) {
        let nf = &mut Flags::default();
        let (x, y) = (f32::from_bits(a), f64::from_bits(b));
        let hosts32 = [x.round_ties_even(), x.trunc(), x.ceil(), x.floor()];
        let hosts64 = [y.round_ties_even(), y.trunc(), y.ceil(), y.floor()];
        for (i, rm) in MODES.into_iter().enumerate() {
            let r32 = round_to_integral(F32, u64::from(a), rm, nf) as u32;
            let r64 = round_to_integral(F64, b, rm, nf);
            if x.is_nan() {
                prop_assert_eq!(r32, a | 0x0040_0000);
            } else {
                prop_assert_eq!(r32, hosts32[i].to_bits(), "{:?} {:#x}", rm, a);
            }
            if y.is_nan() {
                prop_assert_eq!(r64, b | 0x0008_0000_0000_0000);
            } else {
                prop_assert_eq!(r64, hosts64[i].to_bits(), "{:?} {:#x}", rm, b);
            }
        }
    }

    #[test]
    fn prop_ldexp_matches_scaling(a in f32_bits(), n in -300i32..300) {
        // Oracle: the exact f64 product x * 2^n (in range), rounded to f32 by the stepping
        // oracle.
        let x = f64::from(f32::from_bits(a));
        for rm in MODES {
            let got = ldexp(F32, u64::from(a), n, rm, &mut Flags::default()) as u32;
            if x.is_nan() {
                prop_assert_eq!(got, a | 0x0040_0000);
            } else {
                prop_assert_eq!(got, ref_round_f32(x * 2f64.powi(n), 0, rm), "{:?} {:#x} {}", rm, a, n);
            }
        }
    }

    #[test]
    fn prop_compare_and_min_max(a in f32_bits(), b in f32_bits()) {
        let nf = &mut Flags::default();
        let (x, y) = (f32::from_bits(a), f32::from_bits(b));
        let (a, b) = (u64::from(a), u64::from(b));
        prop_assert_eq!(eq(F32, a, b, nf), x == y);
        prop_assert_eq!(lt(F32, a, b, nf), x < y);
        prop_assert_eq!(le(F32, a, b, nf), x <= y);
        if !x.is_nan() && !y.is_nan() {
            // The host's min/max leave the order of zeros unspecified; ours put -0 below +0.
            let (want_min, want_max) = if (a | b) & 0x7fff_ffff == 0 {
                ((a | b) & 0x8000_0000, a & b & 0x8000_0000)
            } else {
                (u64::from(x.min(y).to_bits()), u64::from(x.max(y).to_bits()))
            };
            prop_assert_eq!(min_num(F32, a, b, nf), want_min);
            prop_assert_eq!(max_num(F32, a, b, nf), want_max);
            prop_assert_eq!(minimum(F32, a, b, nf), min_num(F32, a, b, nf));
            prop_assert_eq!(maximum(F32, a, b, nf), max_num(F32, a, b, nf));
        }
    }

    #[test]
    fn prop_no_panic_on_any_input(
        exp_bits in 0u32..70,
        man_bits in 0u32..70,
        kind in proptest::sample::select(vec![SpecialKind::Ieee, SpecialKind::FiniteNanOnlyAllOnes, SpecialKind::FiniteNoNan]),
        a in any::<u64>(), b in any::<u64>(), c in any::<u64>(),
        n in any::<i32>(), width in any::<u32>(), value in any::<i128>(), rmi in 0usize..4,
    ) {
        let f = Format { exp_bits, man_bits, kind };
        let rm = MODES[rmi];
        let fl = &mut Flags::default();
        // Every result in format `f` has no bits above its width.
        let outs = [
            add(f, a, b, rm, fl), sub(f, a, b, rm, fl), mul(f, a, b, rm, fl), div(f, a, b, rm, fl),
            fma(f, a, b, c, rm, fl), sqrt(f, a, rm, fl), convert_with(F64, f, a, rm, true, fl),
            convert(FP4, f, a, rm, fl), round_to_integral(f, a, rm, fl), ldexp(f, a, n, rm, fl),
            frexp(f, a).0, from_int(f, value, rm, fl), from_uint(f, value as u128, rm, fl),
            min_num(f, a, b, fl), maximum(f, a, b, fl), quiet(f, a), neg(f, a), abs(f, a),
            flush_subnormal(f, a),
        ];
        let width_mask = u64::MAX >> (64 - f.width());
        for o in outs {
            prop_assert_eq!(o & !width_mask, 0);
        }
        prop_assert_eq!(convert(f, FP8, a, rm, fl) >> 8, 0);
        prop_assert!(to_int(f, a, true, width, rm, fl) <= u64::MAX >> (64 - width.clamp(1, 64)));
        let _ = (classify(f, a), exponent_unbiased(f, a), to_f64_exact(f, a), lt(f, a, b, fl));
    }
}

// ----------------------------------------------------------------------------------------
// f16 and bf16.

#[test]
fn f16_all_values_round_trip_through_f32() {
    let t = Table::new(F16);
    let nf = &mut Flags::default();
    let mut nans = 0;
    for h in 0..=0xffffu64 {
        let w = convert(F16, F32, h, Round::NearestEven, nf);
        let back = convert(F32, F16, w, Round::NearestEven, nf);
        let v = t.decode(h);
        if v.is_nan() {
            nans += 1;
            assert!(f32::from_bits(w as u32).is_nan());
            assert_eq!(back, h | 0x200, "{h:#x}: NaN payload survives, quietened");
        } else {
            assert_eq!(
                f64::from(f32::from_bits(w as u32)).to_bits(),
                v.to_bits(),
                "{h:#x}"
            );
            assert_eq!(back, h, "{h:#x}");
            assert_eq!(to_f64_exact(F16, h).to_bits(), v.to_bits());
        }
    }
    assert_eq!(nans, 2 * 1023);
}

#[test]
fn bf16_all_values_round_trip_through_f32() {
    let nf = &mut Flags::default();
    for h in 0..=0xffffu64 {
        let w = convert(BF16, F32, h, Round::NearestEven, nf);
        let quiet_h = if is_nan(BF16, h) { h | 0x40 } else { h };
        // bf16 is the top half of f32, so widening is a shift (plus quietening).
        assert_eq!(w, quiet_h << 16, "{h:#x}");
        assert_eq!(convert(F32, BF16, w, Round::NearestEven, nf), quiet_h);
    }
}

#[test]
fn f32_to_f16_and_bf16_match_table_oracle_300k_random() {
    let mut rng = Rng(1);
    let tables = [Table::new(F16), Table::new(BF16)];
    for i in 0..300_000u32 {
        let r = rng.next();
        // Half uniform bits, half exponents around the f16 range (including its subnormals
        // and overflow boundary).
        let a = if i % 2 == 0 {
            r as u32
        } else {
            let e = 100 + (r >> 32) as u32 % 50;
            (r as u32 & 0x807f_ffff) | (e << 23)
        };
        let x = f64::from(f32::from_bits(a));
        for t in &tables {
            for rm in MODES {
                for saturate in [false, true] {
                    let got =
                        convert_with(F32, t.f, u64::from(a), rm, saturate, &mut Flags::default());
                    match t.round(x, 0, rm, saturate) {
                        Some(want) => assert_eq!(got, want, "{:?} {rm:?} {a:#x}", t.f),
                        None => assert!(t.is_nan_code(got)),
                    }
                }
            }
        }
    }
}

#[test]
fn f16_f64_to_f16_matches_table_oracle_200k_random() {
    let t = Table::new(F16);
    let mut rng = Rng(2);
    for _ in 0..200_000 {
        let r = rng.next();
        let e = 1023 - 30 + (r >> 52) % 50;
        let a = (r & 0x800f_ffff_ffff_ffff) | (e << 52);
        for rm in MODES {
            let got = convert(F64, F16, a, rm, &mut Flags::default());
            assert_eq!(
                Some(got),
                t.round(f64::from_bits(a), 0, rm, false),
                "{rm:?} {a:#x}"
            );
        }
    }
}

/// Random 16-bit codes biased toward interesting exponents.
fn small_code(rng: &mut Rng, t: &Table) -> u64 {
    let r = rng.next();
    let width = t.width();
    if r.is_multiple_of(4) {
        // Specials, zeros, extremes.
        let picks = [
            0u64,
            1,
            0x3ff,
            0x400,
            t.vals.len() as u64 - 1,
            t.vals.len() as u64,
            0xffff,
        ];
        (picks[(r >> 8) as usize % picks.len()] | ((r >> 20) & 1) << (width - 1)) & 0xffff
    } else {
        (r >> 16) & 0xffff
    }
}

fn check_16bit_random(f: Format, n: u32, seed: u64) {
    let t = Table::new(f);
    let mut rng = Rng(seed);
    for i in 0..n {
        let a = small_code(&mut rng, &t);
        // Half of the second operands share the first's exponent neighbourhood.
        let b = if i % 2 == 0 {
            small_code(&mut rng, &t)
        } else {
            (a ^ (rng.next() & ((1 << (f.man_bits + 3)) - 1))) ^ (rng.next() & 0x8000)
        };
        let c = small_code(&mut rng, &t);
        for rm in MODES {
            for op in [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Sqrt, Op::Fma] {
                check_small(&t, op, a, b, c, rm);
            }
        }
    }
}

#[test]
fn f16_all_ops_all_modes_match_table_oracle_300k_random() {
    check_16bit_random(F16, 300_000, 3);
}

#[test]
fn bf16_all_ops_all_modes_match_table_oracle_300k_random() {
    check_16bit_random(BF16, 300_000, 4);
}

// ----------------------------------------------------------------------------------------
// Narrow formats.

#[test]
fn narrow_all_pairs_all_ops_all_modes_match_table_oracle() {
    for f in NARROW {
        let t = Table::new(f);
        let n = 1u64 << t.width();
        for a in 0..n {
            for rm in MODES {
                check_small(&t, Op::Sqrt, a, 0, 0, rm);
                for b in 0..n {
                    for op in [Op::Add, Op::Sub, Op::Mul, Op::Div] {
                        check_small(&t, op, a, b, 0, rm);
                    }
                }
            }
        }
    }
}

#[test]
fn narrow_fma_exhaustive_for_6_and_4_bit_random_for_8_bit() {
    for f in [FP6, BF6, FP4] {
        let t = Table::new(f);
        let n = 1u64 << t.width();
        for a in 0..n {
            for b in 0..n {
                for c in 0..n {
                    for rm in MODES {
                        check_small(&t, Op::Fma, a, b, c, rm);
                    }
                }
            }
        }
    }
    let mut rng = Rng(5);
    for f in [FP8, BF8] {
        let t = Table::new(f);
        for _ in 0..300_000 {
            let r = rng.next();
            let (a, b, c) = (r & 0xff, (r >> 8) & 0xff, (r >> 16) & 0xff);
            for rm in MODES {
                check_small(&t, Op::Fma, a, b, c, rm);
            }
        }
    }
}

#[test]
fn narrow_all_codes_round_trip_through_f32_and_f64() {
    let nf = &mut Flags::default();
    for f in NARROW {
        let t = Table::new(f);
        for code in 0..1u64 << t.width() {
            let w = convert(f, F32, code, Round::NearestEven, nf);
            let v = t.decode(code);
            if v.is_nan() {
                assert!(f32::from_bits(w as u32).is_nan());
                assert!(t.is_nan_code(convert(F32, f, w, Round::NearestEven, nf)));
            } else {
                assert_eq!(f64::from(f32::from_bits(w as u32)).to_bits(), v.to_bits());
                assert_eq!(
                    to_f64_exact(f, code).to_bits(),
                    v.to_bits(),
                    "{f:?} {code:#x}"
                );
                for rm in MODES {
                    assert_eq!(convert(F32, f, w, rm, nf), code, "{f:?} {code:#x}");
                    assert_eq!(from_f64(f, v, rm, nf), code);
                }
            }
        }
    }
}

#[test]
fn narrow_f32_conversion_matches_table_oracle_100k_random() {
    let mut rng = Rng(6);
    for f in NARROW {
        let t = Table::new(f);
        for i in 0..100_000u32 {
            let r = rng.next();
            let a = if i % 4 == 0 {
                r as u32
            } else {
                let e = 127 - 20 + (r >> 32) as u32 % 40;
                (r as u32 & 0x807f_ffff) | (e << 23)
            };
            for rm in MODES {
                for saturate in [false, true] {
                    let got =
                        convert_with(F32, f, u64::from(a), rm, saturate, &mut Flags::default());
                    match t.round(f64::from(f32::from_bits(a)), 0, rm, saturate) {
                        Some(want) => assert_eq!(got, want, "{f:?} {rm:?} sat={saturate} {a:#x}"),
                        None if f.kind == SpecialKind::FiniteNoNan => {
                            assert_eq!(got, f.default_nan())
                        }
                        None => assert!(t.is_nan_code(got)),
                    }
                }
            }
        }
    }
}

#[test]
fn fp8_e4m3_values() {
    let nf = &mut Flags::default();
    let f32_to = |f: Format, x: f32, sat: bool| {
        convert_with(
            F32,
            f,
            u64::from(x.to_bits()),
            Round::NearestEven,
            sat,
            &mut Flags::default(),
        )
    };
    assert_eq!(f32_to(FP8, 448.0, false), 0x7e);
    assert_eq!(f32_to(FP8, 1.0, false), 0x38);
    assert_eq!(f32_to(FP8, -1.0, false), 0xb8);
    assert_eq!(to_f64_exact(FP8, 0x7e).to_bits(), 448.0f64.to_bits());
    assert_eq!(to_f64_exact(FP8, 0x01).to_bits(), (2f64.powi(-9)).to_bits());
    assert!(is_nan(FP8, 0x7f) && is_nan(FP8, 0xff) && is_qnan(FP8, 0x7f) && !is_snan(FP8, 0x7f));
    assert!(!is_nan(FP8, 0x7e) && !is_inf(FP8, 0x78));
    assert_eq!(to_f64_exact(FP8, 0x78).to_bits(), 256.0f64.to_bits());
    // 464 is the tie between 448 (even) and the missing 480: it stays finite.
    assert_eq!(f32_to(FP8, 464.0, false), 0x7e);
    assert_eq!(f32_to(FP8, 465.0, false), 0x7f);
    assert_eq!(f32_to(FP8, 465.0, true), 0x7e);
    assert_eq!(f32_to(FP8, -1e9, true), 0xfe);
    assert_eq!(f32_to(FP8, f32::INFINITY, false), 0x7f);
    assert_eq!(f32_to(FP8, f32::NEG_INFINITY, true), 0xfe);
    assert_eq!(f32_to(FP8, f32::from_bits(0xffc0_0000), true), 0xff);
    assert_eq!(
        convert(F32, FP8, 0x43f0_0000, Round::TowardZero, nf),
        0x7e,
        "480 toward zero"
    );
    assert_eq!(FP8.default_nan(), 0x7f);
    assert_eq!(FP8.max_finite(true), 0xfe);
    assert_eq!(FP8.infinity(false), None);
    // Arithmetic: 448 + 32 overflows to NaN in round-to-nearest.
    assert_eq!(add(FP8, 0x7e, 0x60, Round::NearestEven, nf), 0x7f);
    assert_eq!(add(FP8, 0x7e, 0x60, Round::TowardZero, nf), 0x7e);
    assert_eq!(div(FP8, 0x38, 0x00, Round::NearestEven, nf), 0x7f);
}

#[test]
fn bf8_e5m2_values() {
    let nf = &mut Flags::default();
    let from = |x: f64| from_f64(BF8, x, Round::NearestEven, &mut Flags::default());
    assert_eq!(from(1.0), 0x3c);
    assert_eq!(from(57344.0), 0x7b);
    assert_eq!(from(f64::INFINITY), 0x7c);
    assert_eq!(BF8.infinity(true), Some(0xfc));
    // 61440 is the tie between 57344 (odd mantissa) and 65536: it rounds to infinity.
    assert_eq!(from(61440.0), 0x7c);
    assert_eq!(
        convert_with(F64, BF8, 61440f64.to_bits(), Round::NearestEven, true, nf),
        0x7b
    );
    assert_eq!(from(f64::NAN), 0x7e);
    assert!(is_snan(BF8, 0x7d) && is_qnan(BF8, 0x7e));
    assert_eq!(BF8.default_nan(), 0x7e);
    assert_eq!(sub(BF8, 0x7c, 0x7c, Round::NearestEven, nf), 0x7e);
    assert_eq!(
        to_f64_exact(BF8, 0x01).to_bits(),
        (2f64.powi(-16)).to_bits()
    );
}

#[test]
fn fp6_bf6_fp4_values() {
    let fp4: Vec<u64> = (0..8).map(|c| to_f64_exact(FP4, c).to_bits()).collect();
    let want = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0f64];
    assert_eq!(fp4, want.map(f64::to_bits));
    let fp4_neg: Vec<u64> = (8..16).map(|c| to_f64_exact(FP4, c).to_bits()).collect();
    assert_eq!(fp4_neg, want.map(|x| (-x).to_bits()));
    assert_eq!(
        to_f64_exact(FP6, FP6.max_finite(false)).to_bits(),
        7.5f64.to_bits()
    );
    assert_eq!(FP6.max_finite(false), 0x1f);
    assert_eq!(
        to_f64_exact(BF6, BF6.max_finite(false)).to_bits(),
        28.0f64.to_bits()
    );
    assert_eq!(to_f64_exact(FP6, 0x01).to_bits(), 0.125f64.to_bits());
    assert_eq!(to_f64_exact(BF6, 0x01).to_bits(), 0.0625f64.to_bits());
    let mut flags = Flags::default();
    let from = |f: Format, x: f64, flags: &mut Flags| from_f64(f, x, Round::NearestEven, flags);
    assert_eq!(from(FP4, 100.0, &mut flags), 0x7);
    assert!(flags.overflow && flags.inexact && !flags.invalid);
    assert_eq!(from(FP4, -100.0, &mut flags), 0xf);
    assert_eq!(from(FP4, f64::NEG_INFINITY, &mut flags), 0xf);
    let mut flags = Flags::default();
    assert_eq!(from(FP4, f64::NAN, &mut flags), 0x7, "NaN becomes +max");
    assert!(flags.invalid);
    assert_eq!(from(FP4, -f64::NAN, &mut flags), 0x7);
    assert_eq!(
        from(FP4, 5.0, &mut flags),
        0x6,
        "tie between 4 and 6 goes to even 4"
    );
    assert_eq!(
        from(FP4, 0.25, &mut flags),
        0x0,
        "tie between 0 and 0.5 goes to 0"
    );
    assert_eq!(from(FP4, 0.26, &mut flags), 0x1);
    assert_eq!(from(FP6, 7.75, &mut flags), 0x1f);
    assert_eq!(from(BF6, 1e30, &mut flags), 0x1f);
    assert_eq!(FP4.default_nan(), 0x7);
    assert_eq!(div(FP4, 0x0, 0x0, Round::NearestEven, &mut flags), 0x7);
    assert_eq!(div(FP4, 0xa, 0x0, Round::NearestEven, &mut flags), 0xf);
    assert!(!is_nan(FP4, 0xf) && !is_inf(FP4, 0x7));
    assert_eq!(FP4.width(), 4);
    assert_eq!(FP6.width(), 6);
}

// ----------------------------------------------------------------------------------------
// Explicit cases.

fn f32op(op: Op, a: f32, b: f32, rm: Round) -> (u32, Flags) {
    let mut flags = Flags::default();
    let (a, b) = (u64::from(a.to_bits()), u64::from(b.to_bits()));
    let r = match op {
        Op::Add => add(F32, a, b, rm, &mut flags),
        Op::Sub => sub(F32, a, b, rm, &mut flags),
        Op::Mul => mul(F32, a, b, rm, &mut flags),
        Op::Div => div(F32, a, b, rm, &mut flags),
        Op::Sqrt => sqrt(F32, a, rm, &mut flags),
        Op::Fma => fma(F32, a, b, 0, rm, &mut flags),
    };
    (r as u32, flags)
}

const INEXACT: Flags = Flags {
    invalid: false,
    div_by_zero: false,
    overflow: false,
    underflow: false,
    inexact: true,
};
const OVERFLOW: Flags = Flags {
    overflow: true,
    ..INEXACT
};
const UNDERFLOW: Flags = Flags {
    underflow: true,
    ..INEXACT
};
const INVALID: Flags = Flags {
    invalid: true,
    div_by_zero: false,
    overflow: false,
    underflow: false,
    inexact: false,
};

#[test]
fn rounding_modes_one_plus_half_ulp() {
    let tiny = f32::from_bits(0x3380_0000); // 2^-24
    let want = [0x3f80_0000, 0x3f80_0000, 0x3f80_0001, 0x3f80_0000];
    let want_neg = [0xbf80_0000, 0xbf80_0000, 0xbf80_0000, 0xbf80_0001];
    for (i, rm) in MODES.into_iter().enumerate() {
        assert_eq!(f32op(Op::Add, 1.0, tiny, rm), (want[i], INEXACT), "{rm:?}");
        assert_eq!(
            f32op(Op::Sub, -1.0, tiny, rm),
            (want_neg[i], INEXACT),
            "{rm:?}"
        );
    }
    // Just above the tie rounds up in round-to-nearest.
    let above = f32::from_bits(0x3380_0001);
    assert_eq!(
        f32op(Op::Add, 1.0, above, Round::NearestEven).0,
        0x3f80_0001
    );
    // 1 + 3*2^-24 is the tie 1 + 1.5 ulp: rounds to even 1 + 2 ulp.
    assert_eq!(
        f32op(Op::Add, 1.0, 3.0 * tiny, Round::NearestEven).0,
        0x3f80_0002
    );
}

#[test]
fn rounding_modes_one_third() {
    let want32 = [0x3eaa_aaab, 0x3eaa_aaaa, 0x3eaa_aaab, 0x3eaa_aaaa];
    let want32_neg = [0xbeaa_aaab, 0xbeaa_aaaa, 0xbeaa_aaaa, 0xbeaa_aaab];
    let want64 = [
        0x3fd5_5555_5555_5555u64,
        0x3fd5_5555_5555_5555,
        0x3fd5_5555_5555_5556,
        0x3fd5_5555_5555_5555,
    ];
    let want16 = [0x3555u64, 0x3555, 0x3556, 0x3555];
    for (i, rm) in MODES.into_iter().enumerate() {
        assert_eq!(f32op(Op::Div, 1.0, 3.0, rm), (want32[i], INEXACT), "{rm:?}");
        assert_eq!(f32op(Op::Div, -1.0, 3.0, rm).0, want32_neg[i], "{rm:?}");
        let mut flags = Flags::default();
        let third = div(F64, 1f64.to_bits(), 3f64.to_bits(), rm, &mut flags);
        assert_eq!((third, flags), (want64[i], INEXACT), "{rm:?}");
        assert_eq!(
            div(F16, 0x3c00, 0x4200, rm, &mut flags),
            want16[i],
            "{rm:?}"
        );
    }
}

#[test]
fn overflow_by_mode() {
    let max = f32::MAX;
    // [NearestEven, TowardZero, Up, Down] for MAX + MAX and -MAX + -MAX.
    let pos = [0x7f80_0000, 0x7f7f_ffff, 0x7f80_0000, 0x7f7f_ffff];
    let neg = [0xff80_0000, 0xff7f_ffff, 0xff7f_ffff, 0xff80_0000];
    for (i, rm) in MODES.into_iter().enumerate() {
        assert_eq!(f32op(Op::Add, max, max, rm), (pos[i], OVERFLOW), "{rm:?}");
        assert_eq!(f32op(Op::Add, -max, -max, rm), (neg[i], OVERFLOW), "{rm:?}");
    }
    // f16: 65520 is the tie between 65504 and 65536 and rounds to infinity.
    let mut flags = Flags::default();
    assert_eq!(
        from_f64(F16, 65520.0, Round::NearestEven, &mut flags),
        0x7c00
    );
    assert_eq!(flags, OVERFLOW);
    assert_eq!(
        from_f64(F16, 65519.0, Round::NearestEven, &mut flags),
        0x7bff
    );
    assert_eq!(from_f64(F16, 1e6, Round::TowardZero, &mut flags), 0x7bff);
    assert_eq!(
        convert_with(F32, F16, 0x7f80_0000, Round::NearestEven, true, &mut flags),
        0x7bff
    );
}

#[test]
fn signed_zeros() {
    for rm in MODES {
        let down = rm == Round::Down;
        let zero_sum = if down { 0x8000_0000 } else { 0 };
        assert_eq!(f32op(Op::Add, 1.5, -1.5, rm).0, zero_sum, "{rm:?}");
        assert_eq!(f32op(Op::Sub, 1.5, 1.5, rm).0, zero_sum);
        assert_eq!(f32op(Op::Add, 0.0, -0.0, rm).0, zero_sum);
        assert_eq!(f32op(Op::Sub, 0.0, 0.0, rm).0, zero_sum);
        assert_eq!(f32op(Op::Add, -0.0, -0.0, rm).0, 0x8000_0000);
        assert_eq!(f32op(Op::Add, 0.0, 0.0, rm).0, 0);
        assert_eq!(f32op(Op::Mul, -0.0, 5.0, rm).0, 0x8000_0000);
        assert_eq!(
            f32op(Op::Sqrt, -0.0, 0.0, rm),
            (0x8000_0000, Flags::default())
        );
        let mut flags = Flags::default();
        // fma(2, -3, 6) = 0 exactly.
        let r = fma(F32, 0x4000_0000, 0xc040_0000, 0x40c0_0000, rm, &mut flags);
        assert_eq!((r, flags), (zero_sum as u64, Flags::default()));
        // A product that underflows to zero keeps its sign in the sum with -0.
        let r = fma(
            F32,
            0x0000_0001,
            0x8000_0001,
            0x8000_0000,
            Round::NearestEven,
            &mut flags,
        );
        assert_eq!(r, 0x8000_0000);
    }
}

#[test]
fn subnormals_and_underflow() {
    let min_sub = f32::from_bits(1);
    assert_eq!(
        f32op(Op::Mul, min_sub, 0.5, Round::NearestEven),
        (0, UNDERFLOW)
    );
    assert_eq!(f32op(Op::Mul, min_sub, 0.5, Round::Up), (1, UNDERFLOW));
    assert_eq!(
        f32op(Op::Mul, min_sub, -0.5, Round::Down),
        (0x8000_0001, UNDERFLOW)
    );
    assert_eq!(
        f32op(Op::Mul, min_sub, 0.75, Round::NearestEven),
        (1, UNDERFLOW)
    );
    // Exact subnormal results raise nothing.
    let min_normal = f32::from_bits(0x0080_0000);
    assert_eq!(
        f32op(Op::Sub, min_normal, min_sub, Round::NearestEven),
        (0x007f_ffff, Flags::default())
    );
    assert_eq!(
        f32op(Op::Mul, min_normal, 0.5, Round::NearestEven),
        (0x0040_0000, Flags::default())
    );
    // Tininess after rounding: (1 - 2^-25) * 2^-126 rounds to the smallest normal and is not
    // tiny once rounded to 24 bits; (1 - 2^-24) * 2^-126 is.
    let mut flags = Flags::default();
    let x = (1.0 - 2f64.powi(-25)) * 2f64.powi(-126);
    assert_eq!(
        from_f64(F32, x, Round::NearestEven, &mut flags),
        0x0080_0000
    );
    assert_eq!(flags, INEXACT);
    let mut flags = Flags::default();
    let x = (1.0 - 2f64.powi(-24)) * 2f64.powi(-126);
    assert_eq!(
        from_f64(F32, x, Round::NearestEven, &mut flags),
        0x0080_0000
    );
    assert_eq!(flags, UNDERFLOW);
    // f64 subnormal division and sqrt.
    let mut flags = Flags::default();
    assert_eq!(div(F64, 1, 2f64.to_bits(), Round::Up, &mut flags), 1);
    assert_eq!(
        sqrt(F64, 4, Round::NearestEven, &mut flags),
        0x1e70_0000_0000_0000
    );
    // Flushing.
    assert_eq!(flush_subnormal(F32, 0x8000_0001), 0x8000_0000);
    assert_eq!(flush_subnormal(F32, 0x0080_0000), 0x0080_0000);
    assert_eq!(flush_subnormal(F16, 0x03ff), 0);
    assert!(is_subnormal(F32, 0x007f_ffff) && !is_subnormal(F32, 0));
}

#[test]
fn nan_propagation_rule() {
    let mut flags = Flags::default();
    let snan = 0x7fa0_0000u64;
    let qnan = 0x7fc0_0001u64;
    let one = 0x3f80_0000u64;
    // The first NaN operand wins, quietened; a signalling NaN anywhere raises invalid.
    assert_eq!(
        add(F32, snan, qnan, Round::NearestEven, &mut flags),
        0x7fe0_0000
    );
    assert_eq!(flags, INVALID);
    let mut flags = Flags::default();
    assert_eq!(add(F32, qnan, snan, Round::NearestEven, &mut flags), qnan);
    assert_eq!(flags, INVALID);
    let mut flags = Flags::default();
    assert_eq!(mul(F32, one, qnan, Round::NearestEven, &mut flags), qnan);
    assert_eq!(flags, Flags::default());
    assert_eq!(
        add(F32, one, 0xffa0_0001, Round::NearestEven, &mut flags),
        0xffe0_0001
    );
    // sub does not negate a NaN subtrahend.
    assert_eq!(sub(F32, one, qnan, Round::NearestEven, &mut flags), qnan);
    assert_eq!(
        div(F32, 0xff80_0001, one, Round::NearestEven, &mut flags),
        0xffc0_0001
    );
    assert_eq!(
        sqrt(F32, snan | 0x8000_0000, Round::NearestEven, &mut flags),
        0xffe0_0000
    );
    // fma: a, then b, then c.
    assert_eq!(
        fma(F32, one, qnan, snan, Round::NearestEven, &mut flags),
        qnan
    );
    assert_eq!(
        fma(F32, one, one, snan, Round::NearestEven, &mut flags),
        0x7fe0_0000
    );
    let mut flags = Flags::default();
    assert_eq!(
        fma(F32, 0, 0x7f80_0000, qnan, Round::NearestEven, &mut flags),
        qnan
    );
    assert_eq!(
        flags,
        Flags::default(),
        "fma(0, inf, qNaN) does not raise invalid"
    );
    // Other formats keep their payload's top bits.
    assert_eq!(
        add(F16, 0x7d01, 0x3c00, Round::NearestEven, &mut flags),
        0x7f01
    );
    assert_eq!(
        add(
            F64,
            1,
            0x7ff0_0000_0000_0001,
            Round::NearestEven,
            &mut flags
        ),
        0x7ff8_0000_0000_0001
    );
    assert_eq!(
        convert(F32, F16, 0x7f80_2001, Round::NearestEven, &mut flags),
        0x7e01
    );
    assert_eq!(
        convert(F32, F64, 0xffc0_0001, Round::NearestEven, &mut flags),
        0xfff8_0000_2000_0000
    );
    assert_eq!(
        convert(
            F64,
            F32,
            0x7ff0_0000_2000_0000,
            Round::NearestEven,
            &mut flags
        ),
        0x7fc0_0001
    );
    assert_eq!(
        convert(F32, BF16, 0x7f80_0001, Round::NearestEven, &mut flags),
        0x7fc0
    );
}

#[test]
fn invalid_operations_give_default_nan() {
    let rne = Round::NearestEven;
    let cases: [(Format, u64, u64); 4] = [
        (F32, 0x7f80_0000, 0x7fc0_0000),
        (F16, 0x7c00, 0x7e00),
        (BF16, 0x7f80, 0x7fc0),
        (F64, 0x7ff0_0000_0000_0000, 0x7ff8_0000_0000_0000),
    ];
    for (f, inf, default) in cases {
        let ninf = neg(f, inf);
        let one = from_int(f, 1, rne, &mut Flags::default());
        let results = [
            add(f, inf, ninf, rne, &mut Flags::default()),
            sub(f, inf, inf, rne, &mut Flags::default()),
            mul(f, 0, ninf, rne, &mut Flags::default()),
            div(f, 0, neg(f, 0), rne, &mut Flags::default()),
            div(f, ninf, inf, rne, &mut Flags::default()),
            sqrt(f, neg(f, one), rne, &mut Flags::default()),
            sqrt(f, ninf, rne, &mut Flags::default()),
            fma(f, inf, 0, one, rne, &mut Flags::default()),
            fma(f, inf, one, ninf, rne, &mut Flags::default()),
        ];
        for r in results {
            assert_eq!(r, default, "{f:?}");
        }
        assert_eq!(f.default_nan(), default);
        let mut flags = Flags::default();
        mul(f, inf, 0, rne, &mut flags);
        assert_eq!(flags, INVALID);
        let mut flags = Flags::default();
        assert_eq!(div(f, neg(f, one), 0, rne, &mut flags), ninf);
        assert_eq!(
            flags,
            Flags {
                div_by_zero: true,
                ..Flags::default()
            }
        );
    }
}

#[test]
fn fma_single_rounding() {
    let mut flags = Flags::default();
    // (1 + 2^-23)^2 - 1 - 2^-22 = 2^-46: only a fused operation sees it.
    let a = 0x3f80_0001u64;
    let c = convert(
        F64,
        F32,
        (-(1.0 + 2f64.powi(-22))).to_bits(),
        Round::NearestEven,
        &mut flags,
    );
    assert_eq!(
        fma(F32, a, a, c, Round::NearestEven, &mut flags),
        0x2880_0000
    );
    // f64: (1 + 2^-52)^2 - (1 + 2^-51) = 2^-104 exactly.
    let a = 0x3ff0_0000_0000_0001u64;
    let c = 0xbff0_0000_0000_0002u64;
    let mut flags = Flags::default();
    assert_eq!(
        fma(F64, a, a, c, Round::NearestEven, &mut flags),
        0x3970_0000_0000_0000
    );
    assert_eq!(flags, Flags::default());
    // Directed rounding of 1 + tiny product.
    let tiny = 0x0000_0000_0000_0001u64;
    let one = 1f64.to_bits();
    assert_eq!(fma(F64, tiny, tiny, one, Round::Up, &mut flags), one + 1);
    assert_eq!(
        fma(F64, tiny, tiny, one, Round::NearestEven, &mut flags),
        one
    );
    assert_eq!(
        fma(F64, tiny, tiny | 1 << 63, one, Round::Down, &mut flags),
        0x3fef_ffff_ffff_ffff
    );
    assert_eq!(
        fma(
            F64,
            tiny,
            tiny | 1 << 63,
            one,
            Round::TowardZero,
            &mut flags
        ),
        0x3fef_ffff_ffff_ffff
    );
    // A product below the smallest subnormal: rounds to zero or min subnormal by mode.
    assert_eq!(fma(F64, tiny, tiny, 0, Round::Up, &mut flags), 1);
    assert_eq!(fma(F64, tiny, tiny, 0, Round::NearestEven, &mut flags), 0);
}

#[test]
fn conversions_explicit() {
    let mut flags = Flags::default();
    let rne = Round::NearestEven;
    // f32 -> bf16 ties to even.
    assert_eq!(convert(F32, BF16, 0x3f80_8000, rne, &mut flags), 0x3f80);
    assert_eq!(convert(F32, BF16, 0x3f81_8000, rne, &mut flags), 0x3f82);
    assert_eq!(convert(F32, BF16, 0x3f80_8001, rne, &mut flags), 0x3f81);
    assert_eq!(
        convert(F32, BF16, 0x3f80_ffff, Round::TowardZero, &mut flags),
        0x3f80
    );
    // f32 -> f16 subnormal.
    assert_eq!(convert(F32, F16, 0x3380_0000, rne, &mut flags), 0x0001);
    assert_eq!(convert(F32, F16, 0x3300_0000, rne, &mut flags), 0x0000);
    assert_eq!(convert(F32, F16, 0x3300_0001, rne, &mut flags), 0x0001);
    // Widening is exact and raises nothing.
    let mut flags = Flags::default();
    assert_eq!(
        convert(F16, F64, 0x0001, rne, &mut flags),
        2f64.powi(-24).to_bits()
    );
    assert_eq!(convert(FP8, F16, 0x7e, rne, &mut flags), 0x5f00);
    assert_eq!(flags, Flags::default());
    // Infinity into formats without it.
    let mut flags = Flags::default();
    assert_eq!(convert(F32, FP8, 0xff80_0000, rne, &mut flags), 0xff);
    assert!(flags.invalid);
    assert_eq!(
        to_f64_exact(F32, 0x7f80_0001).to_bits(),
        0x7ff0_0000_2000_0000
    );
    assert_eq!(
        to_f64_exact(FP8, 0xff).to_bits(),
        0xfff0_0000_0000_0000 | 0x7 << 49
    );
    assert_eq!(
        to_f64_exact(F16, 0xfc00).to_bits(),
        (f64::NEG_INFINITY).to_bits()
    );
    assert_eq!(
        from_f64(F32, 0.1, rne, &mut flags),
        u64::from(0.1f32.to_bits())
    );
}

#[test]
fn integer_conversions_explicit() {
    let rne = Round::NearestEven;
    let tz = Round::TowardZero;
    let f = |x: f32| u64::from(x.to_bits());
    let mut flags = Flags::default();
    assert_eq!(to_int(F32, f(3.5), true, 32, rne, &mut flags), 4);
    assert_eq!(to_int(F32, f(2.5), true, 32, rne, &mut flags), 2);
    assert_eq!(
        to_int(F32, f(-2.5), true, 32, Round::Down, &mut flags),
        0xffff_fffd
    );
    assert_eq!(
        to_int(F32, f(-2.5), true, 32, Round::Up, &mut flags),
        0xffff_fffe
    );
    assert_eq!(flags, INEXACT);
    let mut flags = Flags::default();
    assert_eq!(to_int(F32, 0x7fc0_0000, true, 32, tz, &mut flags), 0);
    assert_eq!(flags, INVALID);
    assert_eq!(to_int(F32, f(1e10), true, 32, tz, &mut flags), 0x7fff_ffff);
    assert_eq!(to_int(F32, f(-1e10), true, 32, tz, &mut flags), 0x8000_0000);
    assert_eq!(to_int(F32, f(-1e10), false, 32, tz, &mut flags), 0);
    assert_eq!(to_int(F32, f(300.0), false, 8, tz, &mut flags), 0xff);
    assert_eq!(to_int(F32, f(-200.0), true, 8, tz, &mut flags), 0x80);
    assert_eq!(
        to_int(F32, f(f32::NEG_INFINITY), true, 16, tz, &mut flags),
        0x8000
    );
    let mut flags = Flags::default();
    assert_eq!(to_int(F32, f(-0.5), false, 32, tz, &mut flags), 0);
    assert_eq!(flags, INEXACT, "-0.5 truncates to 0 in range");
    let mut flags = Flags::default();
    assert_eq!(
        to_int(F64, (-2f64.powi(63)).to_bits(), true, 64, tz, &mut flags),
        1 << 63
    );
    assert_eq!(flags, Flags::default());
    assert_eq!(
        to_int(F64, 2f64.powi(63).to_bits(), true, 64, tz, &mut flags),
        i64::MAX as u64
    );
    assert_eq!(
        to_int(F64, 2f64.powi(64).to_bits(), false, 64, tz, &mut flags),
        u64::MAX
    );
    assert_eq!(to_int(F16, 0x7bff, true, 16, tz, &mut flags), 0x7fff);
    assert_eq!(to_int(FP4, 0xf, true, 8, tz, &mut flags), 0xfa);
    // Integer to float.
    let mut flags = Flags::default();
    assert_eq!(
        from_int(F32, i128::from(i64::MAX), rne, &mut flags),
        0x5f00_0000
    );
    assert_eq!(
        from_int(F32, i128::from(i64::MAX), tz, &mut flags),
        0x5eff_ffff
    );
    assert_eq!(
        from_int(F32, i128::from(i64::MIN), tz, &mut flags),
        0xdf00_0000
    );
    assert_eq!(from_int(F32, 16_777_217, rne, &mut flags), 0x4b80_0000);
    assert_eq!(
        from_int(F32, 16_777_217, Round::Up, &mut flags),
        0x4b80_0001
    );
    assert_eq!(from_int(F32, 0, Round::Down, &mut flags), 0);
    assert_eq!(from_int(F16, 65519, rne, &mut flags), 0x7bff);
    assert_eq!(from_int(F16, 65520, rne, &mut flags), 0x7c00);
    assert_eq!(from_int(FP8, -1000, rne, &mut flags), 0xff);
    let mut flags = Flags::default();
    assert_eq!(from_uint(F32, u128::MAX, rne, &mut flags), 0x7f80_0000);
    assert_eq!(flags, OVERFLOW);
    assert_eq!(from_uint(F32, u128::MAX, tz, &mut flags), 0x7f7f_ffff);
    assert_eq!(
        from_uint(F64, u128::MAX, rne, &mut flags),
        0x47f0_0000_0000_0000
    );
    assert_eq!(
        from_int(F64, i128::MIN, rne, &mut flags),
        0xc7e0_0000_0000_0000
    );
}

#[test]
fn round_to_integral_explicit() {
    let f = |x: f32| u64::from(x.to_bits());
    let r = |x: f32, rm: Round| {
        f32::from_bits(round_to_integral(F32, f(x), rm, &mut Flags::default()) as u32)
    };
    assert_eq!(r(-0.5, Round::Down).to_bits(), (-1.0f32).to_bits());
    assert_eq!(r(-0.5, Round::Up).to_bits(), (-0.0f32).to_bits());
    assert_eq!(r(2.5, Round::NearestEven).to_bits(), (2.0f32).to_bits());
    assert_eq!(r(3.5, Round::NearestEven).to_bits(), (4.0f32).to_bits());
    assert_eq!(r(-3.7, Round::TowardZero).to_bits(), (-3.0f32).to_bits());
    assert_eq!(r(0.5, Round::NearestEven).to_bits(), 0);
    assert_eq!(
        r(8_388_607.5, Round::Up).to_bits(),
        (8_388_608.0f32).to_bits()
    );
    assert_eq!(r(1e30, Round::Down).to_bits(), (1e30f32).to_bits());
    let mut flags = Flags::default();
    round_to_integral(F32, f(2.0), Round::Up, &mut flags);
    assert_eq!(flags, Flags::default());
    round_to_integral(F32, f(2.25), Round::Up, &mut flags);
    assert_eq!(flags, INEXACT);
    assert_eq!(
        round_to_integral(FP4, 0x3, Round::NearestEven, &mut flags),
        0x4,
        "1.5 -> 2"
    );
    assert_eq!(
        round_to_integral(FP4, 0x1, Round::Up, &mut flags),
        0x2,
        "0.5 -> 1"
    );
    assert_eq!(
        round_to_integral(F32, 0x7fa0_0000, Round::Up, &mut flags),
        0x7fe0_0000
    );
}

#[test]
fn ldexp_frexp_exponent_explicit() {
    let one = 0x3f80_0000u64;
    let mut flags = Flags::default();
    assert_eq!(
        ldexp(F32, one, 128, Round::NearestEven, &mut flags),
        0x7f80_0000
    );
    assert_eq!(
        ldexp(F32, one, 128, Round::TowardZero, &mut flags),
        0x7f7f_ffff
    );
    assert_eq!(ldexp(F32, one, -149, Round::NearestEven, &mut flags), 1);
    let mut flags = Flags::default();
    assert_eq!(ldexp(F32, one, -150, Round::NearestEven, &mut flags), 0);
    assert_eq!(flags, UNDERFLOW);
    assert_eq!(ldexp(F32, one, -150, Round::Up, &mut flags), 1);
    assert_eq!(
        ldexp(F32, 0x4040_0000, -150, Round::NearestEven, &mut flags),
        2,
        "1.5 ulp ties to 2"
    );
    assert_eq!(
        ldexp(F32, 0x0040_0000, 1, Round::NearestEven, &mut flags),
        0x0080_0000
    );
    assert_eq!(
        ldexp(F32, one, i32::MAX, Round::Down, &mut flags),
        0x7f7f_ffff
    );
    assert_eq!(ldexp(F32, one, i32::MIN, Round::Up, &mut flags), 1);
    assert_eq!(
        ldexp(F32, 0xff80_0000, -5, Round::Up, &mut flags),
        0xff80_0000
    );
    assert_eq!(
        frexp(F32, u64::from(8f32.to_bits())),
        (u64::from(0.5f32.to_bits()), 4)
    );
    assert_eq!(
        frexp(F32, u64::from((-3f32).to_bits())),
        (u64::from((-0.75f32).to_bits()), 2)
    );
    assert_eq!(frexp(F32, 1), (u64::from(0.5f32.to_bits()), -148));
    assert_eq!(frexp(F32, 0x8000_0000), (0x8000_0000, 0));
    assert_eq!(frexp(F16, 0x3c00), (0x3800, 1));
    assert_eq!(exponent_unbiased(F32, 1), Some(-149));
    assert_eq!(exponent_unbiased(F32, one), Some(0));
    assert_eq!(exponent_unbiased(F32, 0x7f7f_ffff), Some(127));
    assert_eq!(exponent_unbiased(F32, 0), None);
    assert_eq!(exponent_unbiased(F32, 0x7f80_0000), None);
    assert_eq!(exponent_unbiased(FP8, 0x7e), Some(8));
}

#[test]
fn comparisons_explicit() {
    let mut flags = Flags::default();
    let (pz, nz, one, two) = (0u64, 0x8000_0000u64, 0x3f80_0000u64, 0x4000_0000u64);
    let (qnan, snan) = (0x7fc0_0000u64, 0x7f80_0001u64);
    assert!(eq(F32, pz, nz, &mut flags));
    assert!(!lt(F32, nz, pz, &mut flags));
    assert!(le(F32, nz, pz, &mut flags));
    assert!(lt(F32, one, two, &mut flags) && !lt(F32, two, one, &mut flags));
    assert!(lt(F32, 0xff80_0000, 0xff7f_ffff, &mut flags));
    assert!(le(F32, one, one, &mut flags));
    assert_eq!(flags, Flags::default());
    assert!(!eq(F32, qnan, qnan, &mut flags));
    assert_eq!(flags, Flags::default(), "quiet equality");
    assert!(!eq(F32, snan, one, &mut flags));
    assert_eq!(flags, INVALID);
    let mut flags = Flags::default();
    assert!(!lt(F32, qnan, one, &mut flags));
    assert_eq!(flags, INVALID, "signalling less-than");
    assert!(eq(FP8, 0x00, 0x80, &mut flags));
    assert!(!eq(FP8, 0x7f, 0x7f, &mut flags));
    assert!(lt(FP4, 0xf, 0x7, &mut flags));
}

#[test]
fn min_max_explicit() {
    let mut flags = Flags::default();
    let (pz, nz, one, two) = (0u64, 0x8000_0000u64, 0x3f80_0000u64, 0x4000_0000u64);
    let (qnan, snan) = (0x7fc0_0001u64, 0x7f80_0001u64);
    assert_eq!(min_num(F32, one, two, &mut flags), one);
    assert_eq!(max_num(F32, one, two, &mut flags), two);
    assert_eq!(min_num(F32, pz, nz, &mut flags), nz);
    assert_eq!(min_num(F32, nz, pz, &mut flags), nz);
    assert_eq!(max_num(F32, nz, pz, &mut flags), pz);
    assert_eq!(min_num(F32, qnan, one, &mut flags), one);
    assert_eq!(max_num(F32, one, qnan, &mut flags), one);
    assert_eq!(min_num(F32, qnan, qnan | 2, &mut flags), qnan | 2);
    assert_eq!(flags, Flags::default());
    assert_eq!(min_num(F32, one, snan, &mut flags), 0x7fc0_0001);
    assert_eq!(flags, INVALID);
    assert_eq!(
        max_num(F32, qnan | 4, snan, &mut flags),
        0x7fc0_0001,
        "signalling NaN first"
    );
    let mut flags = Flags::default();
    assert_eq!(minimum(F32, one, qnan, &mut flags), qnan);
    assert_eq!(maximum(F32, qnan, one, &mut flags), qnan);
    assert_eq!(minimum(F32, pz, nz, &mut flags), nz);
    assert_eq!(maximum(F32, nz, pz, &mut flags), pz);
    assert_eq!(maximum(F32, 0xff80_0000, two, &mut flags), two);
    assert_eq!(flags, Flags::default());
    assert_eq!(maximum(F32, snan, one, &mut flags), 0x7fc0_0001);
    assert_eq!(flags, INVALID);
}

#[test]
fn classification_and_fields() {
    let cases = [
        (0x7f80_0001u64, Class::SignalingNan),
        (0xffc0_0000, Class::QuietNan),
        (0xff80_0000, Class::NegInfinity),
        (0xbf80_0000, Class::NegNormal),
        (0x8000_0001, Class::NegSubnormal),
        (0x8000_0000, Class::NegZero),
        (0x0000_0000, Class::PosZero),
        (0x007f_ffff, Class::PosSubnormal),
        (0x7f7f_ffff, Class::PosNormal),
        (0x7f80_0000, Class::PosInfinity),
    ];
    for (i, (bits, class)) in cases.into_iter().enumerate() {
        assert_eq!(classify(F32, bits), class, "{bits:#x}");
        assert_eq!(class.mask_bit(), 1 << i);
    }
    assert_eq!(classify(FP8, 0xff), Class::QuietNan);
    assert_eq!(classify(FP8, 0x7e), Class::PosNormal);
    assert_eq!(classify(FP4, 0x1), Class::PosSubnormal);
    assert!(is_inf(F16, 0xfc00) && !is_inf(F16, 0x7bff));
    assert!(is_zero(F16, 0x8000) && !is_zero(F16, 0x0001));
    assert!(is_finite(F16, 0x7bff) && !is_finite(F16, 0x7c00));
    assert!(is_snan(F16, 0x7c01) && !is_qnan(F16, 0x7c01) && is_qnan(F16, 0x7e00));
    assert!(sign(F16, 0x8000) && !sign(F16, 0x7fff));
    assert_eq!(exponent_field(F32, 0x3f80_0000), 127);
    assert_eq!(mantissa_field(F32, 0x3fc0_0000), 0x40_0000);
    assert_eq!(exponent_field(BF8, 0x7b), 30);
    assert_eq!(quiet(F32, 0x7f80_0001), 0x7fc0_0001);
    assert_eq!(quiet(F32, 0x3f80_0000), 0x3f80_0000);
    assert_eq!(quiet(FP8, 0x7f), 0x7f);
    assert_eq!(neg(F32, 0x7fc0_0000), 0xffc0_0000);
    assert_eq!(neg(F16, 0), 0x8000);
    assert_eq!(abs(F64, 0xfff8_0000_0000_0000), 0x7ff8_0000_0000_0000);
    assert_eq!(abs(FP4, 0xf), 0x7);
}

#[test]
fn formats_and_high_bits() {
    assert_eq!(
        [F16.width(), BF16.width(), F32.width(), F64.width()],
        [16, 16, 32, 64]
    );
    assert_eq!(
        [FP8.width(), BF8.width(), FP6.width(), BF6.width()],
        [8, 8, 6, 6]
    );
    assert_eq!(
        [F16.bias(), F32.bias(), FP8.bias(), FP4.bias()],
        [15, 127, 7, 1]
    );
    assert_eq!(F32.max_finite(false), 0x7f7f_ffff);
    assert_eq!(F16.infinity(true), Some(0xfc00));
    assert_eq!(BF6.infinity(false), None);
    // Bits above the width are ignored on input and zero on output.
    let mut flags = Flags::default();
    assert_eq!(
        add(F16, 0xffff_3c00, 0x3c00, Round::NearestEven, &mut flags),
        0x4000
    );
    assert_eq!(neg(F16, 0xffff_3c00), 0xbc00);
    assert_eq!(
        Flags::default().union(INVALID).union(OVERFLOW),
        Flags {
            invalid: true,
            ..OVERFLOW
        }
    );
    assert!(INEXACT.any() && !Flags::default().any());
}
