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

mod conversions;
mod half;
mod host;
mod narrow;
mod oracle;
mod rounding;
mod special;

use oracle::{check_small, exact, ref_round_f32, ref_round_f64, Exact, Table};

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
        // A fixed seed: the same inputs every run, so a run never passes or fails by luck.
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed),
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

// ----------------------------------------------------------------------------------------
// Helpers for the explicit cases.

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
