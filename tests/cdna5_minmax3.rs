//! gfx1250's three-source minimum/maximum family (semantics/errata/cdna5/): the packed
//! `v_pk_{min3,max3}_{i16,u16}`, `v_pk_add_{min,max}_{i16,u16}`, `v_pk_{min3,max3}_num_f16`,
//! `v_pk_{minimum3,maximum3}_f16` and the 32-bit `v_add_{min,max}_{i32,u32}`, under the
//! interpreter and the JIT, against references written here from LLVM's selection patterns
//! (the errata's evidence).

mod common;

use amdpcode::spec::Arch;
use amdpcode::wave::{Engine, Executor, Program, WaveState};

/// Runs `text` with v1, v2, v3 of lane `l` set from `a[l]`, `b[l]`, `c[l]`.
fn run(text: &str, engine: Engine, a: &[u32], b: &[u32], c: &[u32]) -> WaveState {
    let mut ex = Executor::new(common::spec().db(Arch::Cdna5), engine).expect("executor");
    let p = Program::assemble(ex.isa(), text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let mut w = WaveState::new(Arch::Cdna5, 32);
    w.set_exec(u64::from(u32::MAX));
    for lane in 0..32 {
        w.set_vgpr(lane, 1, a[lane as usize]);
        w.set_vgpr(lane, 2, b[lane as usize]);
        w.set_vgpr(lane, 3, c[lane as usize]);
    }
    ex.run(&p, &mut w).unwrap_or_else(|e| panic!("{text}: {e}"));
    w
}

/// 32 words per source: edge values of both halves, then a fixed xorshift sequence.
fn inputs(seed: u64) -> [Vec<u32>; 3] {
    const EDGE: [u32; 8] = [0, 1, 0x7fff, 0x8000, 0xffff, 0x8001, 0x7ffe, 0x4000];
    let mut s = seed;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 16) as u32
    };
    let mut out: [Vec<u32>; 3] = Default::default();
    for (k, v) in out.iter_mut().enumerate() {
        for lane in 0..32usize {
            v.push(if lane < 16 {
                EDGE[(lane + 3 * k) % 8] | EDGE[(lane / 2 + k) % 8] << 16
            } else {
                next()
            });
        }
    }
    out
}

fn half(x: u32, hi: bool) -> u32 {
    if hi {
        x >> 16
    } else {
        x & 0xffff
    }
}

fn s16(x: u32) -> i64 {
    i64::from(x as u16 as i16)
}

/// The packed result of `f` on the halves each `op_sel` (low result) and `op_sel_hi` (high
/// result) bit selects.
fn packed(
    a: u32,
    b: u32,
    c: u32,
    opsel: u32,
    opsel_hi: u32,
    f: impl Fn(u32, u32, u32) -> u32,
) -> u32 {
    let pick = |bits: u32| {
        f(
            half(a, bits & 1 != 0),
            half(b, bits & 2 != 0),
            half(c, bits & 4 != 0),
        ) & 0xffff
    };
    pick(opsel) | pick(opsel_hi) << 16
}

type Ref16 = fn(u32, u32, u32) -> u32;

const INT16: [(&str, Ref16); 8] = [
    ("v_pk_min3_u16", |a, b, c| a.min(b).min(c)),
    ("v_pk_max3_u16", |a, b, c| a.max(b).max(c)),
    ("v_pk_min3_i16", |a, b, c| {
        s16(a).min(s16(b)).min(s16(c)) as u32
    }),
    ("v_pk_max3_i16", |a, b, c| {
        s16(a).max(s16(b)).max(s16(c)) as u32
    }),
    ("v_pk_add_min_u16", |a, b, c| (a + b).min(0xffff).min(c)),
    ("v_pk_add_max_u16", |a, b, c| (a + b).min(0xffff).max(c)),
    ("v_pk_add_min_i16", |a, b, c| {
        (s16(a) + s16(b)).clamp(-32768, 32767).min(s16(c)) as u32
    }),
    ("v_pk_add_max_i16", |a, b, c| {
        (s16(a) + s16(b)).clamp(-32768, 32767).max(s16(c)) as u32
    }),
];

#[test]
fn packed_16_bit_integer_min3_max3_and_add_min_max_follow_llvms_patterns() {
    let [a, b, c] = inputs(0x9e37_79b9_7f4a_7c15);
    for (mn, f) in INT16 {
        // Default halves, crossed halves, and `clamp` (the sums are saturated either way).
        let forms = [
            (format!("{mn} v10, v1, v2, v3"), 0, 7),
            (
                format!("{mn} v10, v1, v2, v3 op_sel:[1,0,1] op_sel_hi:[0,1,0]"),
                5,
                2,
            ),
            (format!("{mn} v10, v1, v2, v3 clamp"), 0, 7),
        ];
        for (line, opsel, opsel_hi) in forms {
            let text = format!("{line}\ns_endpgm");
            for engine in [Engine::Interp, Engine::Jit] {
                let w = run(&text, engine, &a, &b, &c);
                for lane in 0..32usize {
                    let want = packed(a[lane], b[lane], c[lane], opsel, opsel_hi, f);
                    assert_eq!(
                        w.vgpr(lane as u32, 10),
                        want,
                        "{engine:?} `{line}` lane {lane}: {:#x} {:#x} {:#x}",
                        a[lane],
                        b[lane],
                        c[lane]
                    );
                }
            }
        }
    }
    // Known answers: 0x7fff + 1 saturates to 0x7fff (signed) before the max with 0; 0xffff + 2
    // saturates to 0xffff (unsigned) before the min with 0x8000.
    let one = |x: u32| vec![x; 32];
    for engine in [Engine::Interp, Engine::Jit] {
        let w = run(
            "v_pk_add_max_i16 v10, v1, v2, v3\nv_pk_add_min_u16 v11, v1, v2, v3\ns_endpgm",
            engine,
            &one(0x7fff_ffff),
            &one(0x0001_0002),
            &one(0x0000_8000),
        );
        // low halves: max(-1 + 2, -32768) = 1; min(0xffff + 2 -> 0xffff, 0x8000) = 0x8000.
        assert_eq!(w.vgpr(0, 10), 0x7fff_0001, "{engine:?}");
        assert_eq!(w.vgpr(0, 11), 0x0000_8000, "{engine:?}");
    }
}

/// The minimum or maximum of the saturated sum and the third source.
type Ref32 = fn(i64, i64) -> i64;

#[test]
fn add_min_max_32_bit_saturate_the_sum_then_compare() {
    let [a, b, c] = inputs(0x0123_4567_89ab_cdef);
    let i = |x: u32| i64::from(x as i32);
    let cases: [(&str, Ref32, bool); 4] = [
        ("v_add_max_i32", i64::max, true),
        ("v_add_min_i32", i64::min, true),
        ("v_add_max_u32", i64::max, false),
        ("v_add_min_u32", i64::min, false),
    ];
    for (mn, f, signed) in cases {
        let text = format!("{mn} v10, v1, v2, v3\ns_endpgm");
        for engine in [Engine::Interp, Engine::Jit] {
            let w = run(&text, engine, &a, &b, &c);
            for lane in 0..32usize {
                let (x, y, z) = if signed {
                    (i(a[lane]), i(b[lane]), i(c[lane]))
                } else {
                    (i64::from(a[lane]), i64::from(b[lane]), i64::from(c[lane]))
                };
                let sum = if signed {
                    (x + y).clamp(i64::from(i32::MIN), i64::from(i32::MAX))
                } else {
                    (x + y).min(i64::from(u32::MAX))
                };
                let want = f(sum, z) as u32;
                assert_eq!(w.vgpr(lane as u32, 10), want, "{engine:?} {mn} lane {lane}");
            }
        }
    }
    for engine in [Engine::Interp, Engine::Jit] {
        let w = run(
            "v_add_max_i32 v10, v1, v2, v3\nv_add_min_u32 v11, v1, v2, v3\ns_endpgm",
            engine,
            &[0x7fff_fff0; 32],
            &[0x100; 32],
            &[0x8000_0000; 32],
        );
        assert_eq!(w.vgpr(5, 10), 0x7fff_ffff, "{engine:?}");
        assert_eq!(w.vgpr(5, 11), 0x8000_0000, "{engine:?}");
    }
}

/// Half-precision values exact in f16: (bits, value).
const HALVES: [(u32, f64); 10] = [
    (0xc300, -3.5),
    (0xbc00, -1.0),
    (0xb800, -0.5),
    (0x3400, 0.25),
    (0x3c00, 1.0),
    (0x4000, 2.0),
    (0x4780, 7.5),
    (0x5640, 100.0),
    (0xfbff, -65504.0),
    (0x7bff, 65504.0),
];

#[test]
fn packed_f16_min3_max3_take_each_half_three_ways() {
    let pick = |k: usize| HALVES[k % HALVES.len()];
    let mut src = [vec![], vec![], vec![]];
    for lane in 0..32usize {
        for (s, v) in src.iter_mut().enumerate() {
            let lo = pick(lane * 7 + s * 3);
            let hi = pick(lane * 3 + s * 5 + 1);
            v.push(lo.0 | hi.0 << 16);
        }
    }
    let value = |bits: u32| {
        HALVES
            .iter()
            .find(|h| h.0 == bits)
            .expect("a table value")
            .1
    };
    for (mn, want_min) in [
        ("v_pk_min3_num_f16", true),
        ("v_pk_max3_num_f16", false),
        ("v_pk_minimum3_f16", true),
        ("v_pk_maximum3_f16", false),
    ] {
        let text = format!("{mn} v10, v1, v2, v3\ns_endpgm");
        for engine in [Engine::Interp, Engine::Jit] {
            let w = run(&text, engine, &src[0], &src[1], &src[2]);
            for lane in 0..32u32 {
                let got = w.vgpr(lane, 10);
                for h in [false, true] {
                    let xs = [0, 1, 2].map(|k| half(src[k][lane as usize], h));
                    let best = xs
                        .into_iter()
                        .reduce(|p, q| {
                            let keep_p = if want_min {
                                value(p) <= value(q)
                            } else {
                                value(p) >= value(q)
                            };
                            if keep_p {
                                p
                            } else {
                                q
                            }
                        })
                        .unwrap();
                    assert_eq!(half(got, h), best, "{engine:?} {mn} lane {lane} high {h}");
                }
            }
        }
    }
    // NaN: the `num` forms ignore a quiet NaN, the IEEE minimum/maximum forms return one.
    for engine in [Engine::Interp, Engine::Jit] {
        let nan_lo = [0x3c00_7e00u32; 32];
        let w = run(
            "v_pk_min3_num_f16 v10, v1, v2, v3\nv_pk_maximum3_f16 v11, v1, v2, v3\ns_endpgm",
            engine,
            &nan_lo,
            &[0x4000_4000; 32],
            &[0xbc00_4200; 32],
        );
        assert_eq!(w.vgpr(0, 10), 0xbc00_4000, "{engine:?}");
        let v11 = w.vgpr(0, 11);
        assert_eq!(v11 >> 16, 0x4000, "{engine:?}");
        assert!(
            v11 & 0x7c00 == 0x7c00 && v11 & 0x3ff != 0,
            "{engine:?}: {v11:#x}"
        );
    }
}
