//! The interpreter against AMD's own known answers and against hand-written Rust references
//! of the same instructions, on edge and random operands.

mod common;

use std::collections::HashMap;

use amdpcode::exec::{self, Machine, Rng};
use amdpcode::interp::RegValue;
use amdpcode::spec::Arch;
use amdpcode::value::Bits;

/// Runs `inst` once with uniform inputs and returns the written registers' low 64 bits.
fn run(arch: Arch, inst: &str, wave: u32, set: &[(&str, u64)]) -> HashMap<String, u64> {
    let i = common::spec()
        .db(arch)
        .get(inst)
        .unwrap_or_else(|| panic!("{arch} has no {inst}"));
    let p = exec::prepare(arch, i).unwrap_or_else(|e| panic!("{inst}: {}", e.diagnostic.summary()));
    let mut m = Machine::new(wave);
    for (n, v) in set {
        m.values
            .insert(n.to_string(), RegValue::Uniform(Bits::from_u64(64, *v)));
    }
    let out = exec::run_interp(&p, &mut m).unwrap_or_else(|e| panic!("{inst}: {e}"));
    out.values
        .into_iter()
        .map(|(n, v)| {
            let x = match v {
                RegValue::Uniform(b) => b.low_u64(),
                RegValue::Lanes(l) => l[0].low_u64(),
            };
            (n, x)
        })
        .collect()
}

#[test]
fn known_answers_from_amd_notes() {
    let d0 = |inst: &str, s0: u64| run(Arch::Rdna3, inst, 32, &[("S0", s0)])["D0"];
    let ctz = [
        (0xaaaa_aaaa, 1),
        (0x5555_5555, 0),
        (0, 0xffff_ffff),
        (0xffff_ffff, 0),
        (0x0001_0000, 16),
    ];
    for (x, want) in ctz {
        assert_eq!(d0("S_CTZ_I32_B32", x), want, "S_CTZ_I32_B32({x:#x})");
    }
    let clz = [
        (0, 0xffff_ffff),
        (0x0000_cccc, 16),
        (0xffff_3333, 0),
        (0x7fff_ffff, 1),
        (0x8000_0000, 0),
    ];
    for (x, want) in clz {
        assert_eq!(d0("S_CLZ_I32_U32", x), want, "S_CLZ_I32_U32({x:#x})");
    }
    let cls = [
        (0, 0xffff_ffff),
        (0x0000_cccc, 16),
        (0xffff_3333, 16),
        (0x7fff_ffff, 1),
        (0x8000_0000, 1),
        (0xffff_ffff, 0xffff_ffff),
    ];
    for (x, want) in cls {
        assert_eq!(d0("S_CLS_I32", x), want, "S_CLS_I32({x:#x})");
    }
    for (x, want) in [
        (0x8000_0000, 0x8000_0000),
        (0x8000_0001, 0x7fff_ffff),
        (0xffff_ffff, 1),
    ] {
        assert_eq!(d0("S_ABS_I32", x), want, "S_ABS_I32({x:#x})");
    }
    assert_eq!(d0("S_BCNT1_I32_B32", 0xcccc_cccc), 16);
}

fn wqm_reference(x: u64) -> u64 {
    (0..16).fold(0, |acc, q| {
        if (x >> (4 * q)) & 0xf != 0 {
            acc | (0xf << (4 * q))
        } else {
            acc
        }
    })
}

#[test]
fn seed_instructions_on_all_arches() {
    let mut rng = Rng::new(3);
    let mut values: Vec<u64> = vec![0, u64::MAX, 1, 1 << 63, 0x8000_0000, 0x0100_0000_0000_0010];
    values.extend((0..200).map(|_| rng.edge_value(64).low_u64()));
    for arch in Arch::WHEEL {
        let andn2 = if arch == Arch::Cdna {
            "S_ANDN2_WREXEC_B64"
        } else {
            "S_AND_NOT1_WREXEC_B64"
        };
        for &x in &values {
            let out = run(arch, "S_WQM_B64", 64, &[("S0", x)]);
            assert_eq!(out["D0"], wqm_reference(x), "{arch} S_WQM_B64({x:#x})");
            assert_eq!(out["SCC"], (wqm_reference(x) != 0) as u64);
            let exec = rng.edge_value(64).low_u64();
            let out = run(arch, andn2, 64, &[("S0", x), ("EXEC", exec)]);
            let want = x & !exec;
            assert_eq!(out["EXEC"], want, "{arch} {andn2}");
            assert_eq!(out["D0"], want, "{arch} {andn2}");
            assert_eq!(out["SCC"], (want != 0) as u64);
        }
    }
}

type ScalarRef = fn(u64, u64, u64, u64) -> Vec<(&'static str, u64)>;

fn m32(x: u64) -> u64 {
    x & 0xffff_ffff
}

fn i32_of(x: u64) -> i64 {
    x as u32 as i32 as i64
}

fn scc_nz(d: u64) -> (&'static str, u64) {
    ("SCC", (d != 0) as u64)
}

/// (instruction, reference over (S0, S1, SCC, D0-in)) for rdna3 scalar instructions.
fn scalar_refs() -> Vec<(&'static str, ScalarRef)> {
    vec![
        ("S_ADD_U32", |a, b, _, _| {
            let t = m32(a) + m32(b);
            vec![("D0", m32(t)), ("SCC", t >> 32)]
        }),
        ("S_SUB_U32", |a, b, _, _| {
            vec![
                ("D0", m32(a.wrapping_sub(b))),
                ("SCC", (m32(b) > m32(a)) as u64),
            ]
        }),
        ("S_ADD_I32", |a, b, _, _| {
            let (r, o) = (a as i32).overflowing_add(b as i32);
            vec![("D0", r as u32 as u64), ("SCC", o as u64)]
        }),
        ("S_SUB_I32", |a, b, _, _| {
            let (r, o) = (a as i32).overflowing_sub(b as i32);
            vec![("D0", r as u32 as u64), ("SCC", o as u64)]
        }),
        ("S_ADDC_U32", |a, b, c, _| {
            let t = m32(a) + m32(b) + (c & 1);
            vec![("D0", m32(t)), ("SCC", t >> 32)]
        }),
        ("S_SUBB_U32", |a, b, c, _| {
            vec![
                ("D0", m32(a.wrapping_sub(b).wrapping_sub(c & 1))),
                ("SCC", (m32(b) + (c & 1) > m32(a)) as u64),
            ]
        }),
        ("S_MIN_I32", |a, b, _, _| {
            let lt = i32_of(a) < i32_of(b);
            vec![("D0", if lt { m32(a) } else { m32(b) }), ("SCC", lt as u64)]
        }),
        ("S_MAX_U32", |a, b, _, _| {
            let ge = m32(a) >= m32(b);
            vec![("D0", if ge { m32(a) } else { m32(b) }), ("SCC", ge as u64)]
        }),
        ("S_MIN_U32", |a, b, _, _| {
            let lt = m32(a) < m32(b);
            vec![("D0", if lt { m32(a) } else { m32(b) }), ("SCC", lt as u64)]
        }),
        ("S_MAX_I32", |a, b, _, _| {
            let ge = i32_of(a) >= i32_of(b);
            vec![("D0", if ge { m32(a) } else { m32(b) }), ("SCC", ge as u64)]
        }),
        ("S_CSELECT_B32", |a, b, c, _| {
            vec![("D0", if c & 1 == 1 { m32(a) } else { m32(b) })]
        }),
        ("S_CSELECT_B64", |a, b, c, _| {
            vec![("D0", if c & 1 == 1 { a } else { b })]
        }),
        ("S_AND_B32", |a, b, _, _| {
            vec![("D0", m32(a & b)), scc_nz(m32(a & b))]
        }),
        ("S_OR_B32", |a, b, _, _| {
            vec![("D0", m32(a | b)), scc_nz(m32(a | b))]
        }),
        ("S_XOR_B32", |a, b, _, _| {
            vec![("D0", m32(a ^ b)), scc_nz(m32(a ^ b))]
        }),
        ("S_AND_B64", |a, b, _, _| vec![("D0", a & b), scc_nz(a & b)]),
        ("S_OR_B64", |a, b, _, _| vec![("D0", a | b), scc_nz(a | b)]),
        ("S_XOR_B64", |a, b, _, _| vec![("D0", a ^ b), scc_nz(a ^ b)]),
        ("S_NAND_B32", |a, b, _, _| {
            vec![("D0", m32(!(a & b))), scc_nz(m32(!(a & b)))]
        }),
        ("S_NOR_B32", |a, b, _, _| {
            vec![("D0", m32(!(a | b))), scc_nz(m32(!(a | b)))]
        }),
        ("S_XNOR_B32", |a, b, _, _| {
            vec![("D0", m32(!(a ^ b))), scc_nz(m32(!(a ^ b)))]
        }),
        ("S_AND_NOT1_B32", |a, b, _, _| {
            vec![("D0", m32(a & !b)), scc_nz(m32(a & !b))]
        }),
        ("S_OR_NOT1_B32", |a, b, _, _| {
            vec![("D0", m32(a | !b)), scc_nz(m32(a | !b))]
        }),
        ("S_LSHL_B32", |a, b, _, _| {
            let d = m32(a << (b & 31));
            vec![("D0", d), scc_nz(d)]
        }),
        ("S_LSHR_B32", |a, b, _, _| {
            let d = m32(a) >> (b & 31);
            vec![("D0", d), scc_nz(d)]
        }),
        ("S_ASHR_I32", |a, b, _, _| {
            let d = ((a as i32) >> (b & 31)) as u32 as u64;
            vec![("D0", d), scc_nz(d)]
        }),
        ("S_LSHL_B64", |a, b, _, _| {
            let d = a << (b & 63);
            vec![("D0", d), scc_nz(d)]
        }),
        ("S_LSHR_B64", |a, b, _, _| {
            let d = a >> (b & 63);
            vec![("D0", d), scc_nz(d)]
        }),
        ("S_ASHR_I64", |a, b, _, _| {
            let d = ((a as i64) >> (b & 63)) as u64;
            vec![("D0", d), scc_nz(d)]
        }),
        ("S_BFM_B32", |a, b, _, _| {
            vec![("D0", m32(((1u64 << (a & 31)) - 1) << (b & 31)))]
        }),
        ("S_MUL_I32", |a, b, _, _| {
            vec![("D0", (a as u32).wrapping_mul(b as u32) as u64)]
        }),
        ("S_MUL_HI_U32", |a, b, _, _| {
            vec![("D0", (m32(a) * m32(b)) >> 32)]
        }),
        ("S_MUL_HI_I32", |a, b, _, _| {
            vec![("D0", m32(((i32_of(a) * i32_of(b)) >> 32) as u64))]
        }),
        ("S_BFE_U32", |a, b, _, _| {
            let (off, w) = (b & 31, (b >> 16) & 0x7f);
            let d = m32((m32(a) >> off) & ((1u64 << w.min(63)) - 1));
            vec![("D0", d), scc_nz(d)]
        }),
        ("S_BFE_I32", |a, b, _, _| {
            let (off, w) = (b & 31, (b >> 16) & 0x7f);
            let field = m32((((a as i32) >> off) as i64 & ((1i64 << w.min(62)) - 1)) as u64);
            let d = if w == 0 {
                0
            } else if w >= 32 {
                field
            } else {
                m32((((field as u32) << (32 - w)) as i32 >> (32 - w)) as u32 as u64)
            };
            vec![("D0", d), scc_nz(d)]
        }),
        ("S_ABSDIFF_I32", |a, b, _, _| {
            let d = (a as i32).wrapping_sub(b as i32).wrapping_abs() as u32 as u64;
            vec![("D0", d), scc_nz(d)]
        }),
        ("S_LSHL1_ADD_U32", |a, b, _, _| {
            let t = (m32(a) << 1) + m32(b);
            vec![("D0", m32(t)), ("SCC", (t >> 32 != 0) as u64)]
        }),
        ("S_LSHL2_ADD_U32", |a, b, _, _| {
            let t = (m32(a) << 2) + m32(b);
            vec![("D0", m32(t)), ("SCC", (t >> 32 != 0) as u64)]
        }),
        ("S_PACK_LL_B32_B16", |a, b, _, _| {
            vec![("D0", (b & 0xffff) << 16 | (a & 0xffff))]
        }),
        ("S_PACK_LH_B32_B16", |a, b, _, _| {
            vec![("D0", (m32(b) >> 16) << 16 | (a & 0xffff))]
        }),
        ("S_PACK_HH_B32_B16", |a, b, _, _| {
            vec![("D0", (m32(b) >> 16) << 16 | (m32(a) >> 16))]
        }),
        ("S_MOV_B32", |a, _, _, _| vec![("D0", m32(a))]),
        ("S_MOV_B64", |a, _, _, _| vec![("D0", a)]),
        ("S_NOT_B32", |a, _, _, _| {
            vec![("D0", m32(!a)), scc_nz(m32(!a))]
        }),
        ("S_NOT_B64", |a, _, _, _| vec![("D0", !a), scc_nz(!a)]),
        ("S_BREV_B32", |a, _, _, _| {
            vec![("D0", (a as u32).reverse_bits() as u64)]
        }),
        ("S_BREV_B64", |a, _, _, _| vec![("D0", a.reverse_bits())]),
        ("S_BCNT0_I32_B32", |a, _, _, _| {
            let d = (a as u32).count_zeros() as u64;
            vec![("D0", d), scc_nz(d)]
        }),
        ("S_BCNT1_I32_B32", |a, _, _, _| {
            let d = (a as u32).count_ones() as u64;
            vec![("D0", d), scc_nz(d)]
        }),
        ("S_BCNT1_I32_B64", |a, _, _, _| {
            let d = a.count_ones() as u64;
            vec![("D0", d), scc_nz(d)]
        }),
        ("S_CTZ_I32_B32", |a, _, _, _| {
            vec![(
                "D0",
                if m32(a) == 0 {
                    0xffff_ffff
                } else {
                    (a as u32).trailing_zeros() as u64
                },
            )]
        }),
        ("S_CLZ_I32_U32", |a, _, _, _| {
            vec![(
                "D0",
                if m32(a) == 0 {
                    0xffff_ffff
                } else {
                    (a as u32).leading_zeros() as u64
                },
            )]
        }),
        ("S_SEXT_I32_I8", |a, _, _, _| {
            vec![("D0", a as u8 as i8 as i32 as u32 as u64)]
        }),
        ("S_SEXT_I32_I16", |a, _, _, _| {
            vec![("D0", a as u16 as i16 as i32 as u32 as u64)]
        }),
        ("S_ABS_I32", |a, _, _, _| {
            let d = (a as i32).wrapping_abs() as u32 as u64;
            vec![("D0", d), scc_nz(d)]
        }),
        ("S_BITSET0_B32", |a, _, _, d| {
            vec![("D0", m32(d & !(1 << (a & 31))))]
        }),
        ("S_BITSET1_B32", |a, _, _, d| {
            vec![("D0", m32(d | (1 << (a & 31))))]
        }),
        ("S_CMP_EQ_I32", |a, b, _, _| {
            vec![("SCC", (m32(a) == m32(b)) as u64)]
        }),
        ("S_CMP_LG_I32", |a, b, _, _| {
            vec![("SCC", (m32(a) != m32(b)) as u64)]
        }),
        ("S_CMP_GT_I32", |a, b, _, _| {
            vec![("SCC", (i32_of(a) > i32_of(b)) as u64)]
        }),
        ("S_CMP_GE_I32", |a, b, _, _| {
            vec![("SCC", (i32_of(a) >= i32_of(b)) as u64)]
        }),
        ("S_CMP_LT_I32", |a, b, _, _| {
            vec![("SCC", (i32_of(a) < i32_of(b)) as u64)]
        }),
        ("S_CMP_LE_I32", |a, b, _, _| {
            vec![("SCC", (i32_of(a) <= i32_of(b)) as u64)]
        }),
        ("S_CMP_EQ_U32", |a, b, _, _| {
            vec![("SCC", (m32(a) == m32(b)) as u64)]
        }),
        ("S_CMP_LT_U32", |a, b, _, _| {
            vec![("SCC", (m32(a) < m32(b)) as u64)]
        }),
        ("S_CMP_GT_U32", |a, b, _, _| {
            vec![("SCC", (m32(a) > m32(b)) as u64)]
        }),
        ("S_BITCMP0_B32", |a, b, _, _| {
            vec![("SCC", ((a >> (b & 31)) & 1 == 0) as u64)]
        }),
        ("S_BITCMP1_B32", |a, b, _, _| {
            vec![("SCC", ((a >> (b & 31)) & 1 == 1) as u64)]
        }),
        ("S_CMP_EQ_U64", |a, b, _, _| vec![("SCC", (a == b) as u64)]),
        ("S_CMP_LG_U64", |a, b, _, _| vec![("SCC", (a != b) as u64)]),
    ]
}

#[test]
fn scalar_instructions_match_rust_references() {
    let mut rng = Rng::new(7);
    let refs = scalar_refs();
    for (inst, reference) in &refs {
        for case in 0..300 {
            let (a, b) = (rng.edge_value(64).low_u64(), rng.edge_value(64).low_u64());
            let (scc, d) = (rng.next_u64() & 1, rng.edge_value(64).low_u64());
            let out = run(
                Arch::Rdna3,
                inst,
                32,
                &[("S0", a), ("S1", b), ("SCC", scc), ("D0", d)],
            );
            for (name, want) in reference(a, b, scc, d) {
                let got = out.get(name).copied();
                assert_eq!(
                    got,
                    Some(want),
                    "{inst} case {case}: {name} for S0={a:#x} S1={b:#x} SCC={scc} D0={d:#x}"
                );
            }
        }
    }
    assert!(refs.len() >= 60, "{} scalar references", refs.len());
}

#[test]
fn sopk_sign_extends_simm16() {
    for simm in [0u64, 1, 0x7fff, 0x8000, 0xffff, 0x1234] {
        let s = simm as u16 as i16 as i32;
        let out = run(Arch::Rdna3, "S_MOVK_I32", 32, &[("SIMM16", simm)]);
        assert_eq!(out["D0"], s as u32 as u64);
        for d in [0u64, 0x7fff_ffff, 0x8000_0000, 5] {
            let out = run(
                Arch::Rdna3,
                "S_ADDK_I32",
                32,
                &[("SIMM16", simm), ("D0", d)],
            );
            let (r, o) = (d as i32).overflowing_add(s);
            assert_eq!(
                (out["D0"], out["SCC"]),
                (r as u32 as u64, o as u64),
                "S_ADDK_I32 {d:#x} {simm:#x}"
            );
            let out = run(
                Arch::Rdna3,
                "S_MULK_I32",
                32,
                &[("SIMM16", simm), ("D0", d)],
            );
            assert_eq!(out["D0"], (d as i32).wrapping_mul(s) as u32 as u64);
        }
    }
}

// ----- vector instructions --------------------------------------------------------------

#[derive(Clone, Copy)]
enum Fmt {
    I,
    F16,
    F32,
    F64,
}

type LaneRef = fn(u64, u64, u64) -> u64;

fn f32b(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

fn b32(x: f32) -> u64 {
    x.to_bits() as u64
}

fn f64b(x: u64) -> f64 {
    f64::from_bits(x)
}

fn is_nan_in(fmt: Fmt, x: u64) -> bool {
    match fmt {
        Fmt::I => false,
        Fmt::F16 => (x & 0x7c00) == 0x7c00 && (x & 0x3ff) != 0,
        Fmt::F32 => f32b(x).is_nan(),
        Fmt::F64 => f64b(x).is_nan(),
    }
}

/// f16 arithmetic through f64: exact for one operation, then one rounding to f16 by the
/// reference's own routine (round half to even on the bits).
fn f16_to_f64(h: u64) -> f64 {
    let h = h as u16;
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    match e {
        0 => sign * m * 2f64.powi(-24),
        31 => {
            if m == 0.0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            }
        }
        _ => sign * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

fn f64_to_f16(x: f64) -> u64 {
    if x.is_nan() {
        return 0x7e00;
    }
    let sign: u64 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    // Scale to units of the f16 ulp at this magnitude and round half to even.
    let e = if a < 2f64.powi(-14) {
        -14
    } else {
        a.log2().floor() as i32
    };
    let ulp = 2f64.powi(e - 10);
    let q = a / ulp;
    let mut r = q.round();
    if (q - q.trunc()) == 0.5 && r % 2.0 == 1.0 {
        r -= 1.0;
    }
    let v = r * ulp;
    // Re-encode.
    if v == 0.0 {
        return sign;
    }
    let e = v.log2().floor() as i32;
    if e < -14 {
        return sign | (v / 2f64.powi(-24)) as u64;
    }
    let m = ((v / 2f64.powi(e) - 1.0) * 1024.0).round() as u64;
    sign | (((e + 15) as u64) << 10) | m
}

fn vector_refs() -> Vec<(&'static str, Fmt, LaneRef)> {
    vec![
        ("V_ADD_F32", Fmt::F32, |a, b, _| b32(f32b(a) + f32b(b))),
        ("V_SUB_F32", Fmt::F32, |a, b, _| b32(f32b(a) - f32b(b))),
        ("V_SUBREV_F32", Fmt::F32, |a, b, _| b32(f32b(b) - f32b(a))),
        ("V_MUL_F32", Fmt::F32, |a, b, _| b32(f32b(a) * f32b(b))),
        ("V_FMA_F32", Fmt::F32, |a, b, c| {
            b32(f32b(a).mul_add(f32b(b), f32b(c)))
        }),
        ("V_SQRT_F32", Fmt::F32, |a, _, _| b32(f32b(a).sqrt())),
        ("V_ADD_F64", Fmt::F64, |a, b, _| {
            (f64b(a) + f64b(b)).to_bits()
        }),
        ("V_MUL_F64", Fmt::F64, |a, b, _| {
            (f64b(a) * f64b(b)).to_bits()
        }),
        ("V_FMA_F64", Fmt::F64, |a, b, c| {
            f64b(a).mul_add(f64b(b), f64b(c)).to_bits()
        }),
        ("V_SQRT_F64", Fmt::F64, |a, _, _| f64b(a).sqrt().to_bits()),
        ("V_ADD_F16", Fmt::F16, |a, b, _| {
            f64_to_f16(f16_to_f64(a) + f16_to_f64(b))
        }),
        ("V_MUL_F16", Fmt::F16, |a, b, _| {
            f64_to_f16(f16_to_f64(a) * f16_to_f64(b))
        }),
        ("V_CVT_F32_F16", Fmt::F32, |a, _, _| {
            b32(f16_to_f64(a) as f32)
        }),
        ("V_CVT_F16_F32", Fmt::F16, |a, _, _| {
            f64_to_f16(f32b(a) as f64)
        }),
        ("V_CVT_F64_F32", Fmt::F64, |a, _, _| {
            (f32b(a) as f64).to_bits()
        }),
        ("V_CVT_F32_F64", Fmt::F32, |a, _, _| b32(f64b(a) as f32)),
        ("V_CVT_F32_I32", Fmt::F32, |a, _, _| {
            b32(a as u32 as i32 as f32)
        }),
        ("V_CVT_F32_U32", Fmt::F32, |a, _, _| b32(a as u32 as f32)),
        ("V_CVT_I32_F32", Fmt::I, |a, _, _| {
            f32b(a) as i32 as u32 as u64
        }),
        ("V_CVT_U32_F32", Fmt::I, |a, _, _| f32b(a) as u32 as u64),
        ("V_CVT_I32_F64", Fmt::I, |a, _, _| {
            f64b(a) as i32 as u32 as u64
        }),
        ("V_ADD_NC_U32", Fmt::I, |a, b, _| m32(a.wrapping_add(b))),
        ("V_SUB_NC_U32", Fmt::I, |a, b, _| m32(a.wrapping_sub(b))),
        ("V_MUL_LO_U32", Fmt::I, |a, b, _| {
            (a as u32).wrapping_mul(b as u32) as u64
        }),
        ("V_MUL_HI_U32", Fmt::I, |a, b, _| (m32(a) * m32(b)) >> 32),
        ("V_AND_B32", Fmt::I, |a, b, _| m32(a & b)),
        ("V_OR_B32", Fmt::I, |a, b, _| m32(a | b)),
        ("V_XOR_B32", Fmt::I, |a, b, _| m32(a ^ b)),
        ("V_LSHLREV_B32", Fmt::I, |a, b, _| m32(b << (a & 31))),
        ("V_LSHRREV_B32", Fmt::I, |a, b, _| m32(b) >> (a & 31)),
        ("V_ASHRREV_I32", Fmt::I, |a, b, _| {
            ((b as i32) >> (a & 31)) as u32 as u64
        }),
        ("V_MIN_I32", Fmt::I, |a, b, _| {
            (a as i32).min(b as i32) as u32 as u64
        }),
        ("V_MAX_U32", Fmt::I, |a, b, _| {
            (a as u32).max(b as u32) as u64
        }),
        ("V_MIN3_U32", Fmt::I, |a, b, c| {
            (a as u32).min(b as u32).min(c as u32) as u64
        }),
        ("V_MAX3_I32", Fmt::I, |a, b, c| {
            (a as i32).max(b as i32).max(c as i32) as u32 as u64
        }),
        ("V_MED3_I32", Fmt::I, |a, b, c| {
            let mut v = [a as i32, b as i32, c as i32];
            v.sort();
            v[1] as u32 as u64
        }),
        ("V_BFE_U32", Fmt::I, |a, b, c| {
            let (off, w) = (b & 31, c & 31);
            (m32(a) >> off) & ((1u64 << w) - 1)
        }),
        ("V_BFI_B32", Fmt::I, |a, b, c| m32((a & b) | (!a & c))),
        ("V_ALIGNBIT_B32", Fmt::I, |a, b, c| {
            m32((m32(a) << 32 | m32(b)) >> (c & 31))
        }),
        ("V_MAD_U32_U24", Fmt::I, |a, b, c| {
            m32((a & 0xff_ffff) * (b & 0xff_ffff) + c)
        }),
        ("V_MUL_U32_U24", Fmt::I, |a, b, _| {
            m32((a & 0xff_ffff) * (b & 0xff_ffff))
        }),
        ("V_MUL_I32_I24", Fmt::I, |a, b, _| {
            let s = |x: u64| ((x as u32) << 8) as i32 >> 8;
            (s(a).wrapping_mul(s(b))) as u32 as u64
        }),
        ("V_ADD3_U32", Fmt::I, |a, b, c| {
            m32(a.wrapping_add(b).wrapping_add(c))
        }),
        ("V_LSHL_ADD_U32", Fmt::I, |a, b, c| {
            m32((a << (b & 31)).wrapping_add(c))
        }),
        ("V_XAD_U32", Fmt::I, |a, b, c| m32((a ^ b).wrapping_add(c))),
        ("V_BFREV_B32", Fmt::I, |a, _, _| {
            (a as u32).reverse_bits() as u64
        }),
        ("V_NOT_B32", Fmt::I, |a, _, _| m32(!a)),
        ("V_CLZ_I32_U32", Fmt::I, |a, _, _| {
            if m32(a) == 0 {
                0xffff_ffff
            } else {
                (a as u32).leading_zeros() as u64
            }
        }),
        ("V_CVT_F32_UBYTE0", Fmt::F32, |a, _, _| {
            b32((a & 0xff) as f32)
        }),
        ("V_TRUNC_F32", Fmt::F32, |a, _, _| b32(f32b(a).trunc())),
        ("V_FLOOR_F32", Fmt::F32, |a, _, _| b32(f32b(a).floor())),
        ("V_CEIL_F32", Fmt::F32, |a, _, _| b32(f32b(a).ceil())),
        ("V_RNDNE_F32", Fmt::F32, |a, _, _| {
            b32(f32b(a).round_ties_even())
        }),
        ("V_LDEXP_F32", Fmt::F32, |a, b, _| {
            // Scale in f64 (exact), round once to f32; f32 * 2^n over f64 range is exact.
            let n = (b as u32 as i32).clamp(-400, 400);
            b32((f32b(a) as f64 * 2f64.powi(n)) as f32)
        }),
    ]
}

/// Runs a vector instruction over a wave32 of random per-lane operands.
fn run_vector(inst: &str, s: [&Vec<u64>; 3]) -> Vec<u64> {
    let arch = Arch::Rdna3;
    let i = common::spec()
        .db(arch)
        .get(inst)
        .unwrap_or_else(|| panic!("no {inst}"));
    let p = exec::prepare(arch, i).unwrap_or_else(|e| panic!("{inst}: {}", e.diagnostic.summary()));
    let mut m = Machine::new(32);
    for (name, vals) in ["S0", "S1", "S2"].iter().zip(s) {
        let lanes = vals.iter().map(|v| Bits::from_u64(64, *v)).collect();
        m.values.insert(name.to_string(), RegValue::Lanes(lanes));
    }
    let out = exec::run_interp(&p, &mut m).unwrap_or_else(|e| panic!("{inst}: {e}"));
    let d0 = out
        .values
        .iter()
        .find(|(n, _)| n == "D0")
        .expect("writes D0");
    match &d0.1 {
        RegValue::Lanes(l) => l.iter().map(Bits::low_u64).collect(),
        RegValue::Uniform(b) => vec![b.low_u64(); 32],
    }
}

#[test]
fn vector_instructions_match_rust_references() {
    let mut rng = Rng::new(11);
    let refs = vector_refs();
    for (inst, fmt, reference) in &refs {
        let width = match fmt {
            Fmt::F64 => 64,
            Fmt::F16 => 16,
            _ => 32,
        };
        for round in 0..30 {
            let gen = |rng: &mut Rng| -> Vec<u64> {
                (0..32).map(|_| rng.edge_value(width).low_u64()).collect()
            };
            let (a, b, c) = (gen(&mut rng), gen(&mut rng), gen(&mut rng));
            let got = run_vector(inst, [&a, &b, &c]);
            for lane in 0..32 {
                let want = reference(a[lane], b[lane], c[lane]);
                let g = got[lane];
                let mask = if width == 64 {
                    u64::MAX
                } else {
                    (1u64 << width) - 1
                };
                if is_nan_in(*fmt, want) {
                    assert!(is_nan_in(*fmt, g & mask), "{inst} round {round} lane {lane}: want NaN, got {g:#x} (a={:#x} b={:#x} c={:#x})", a[lane], b[lane], c[lane]);
                } else {
                    assert_eq!(
                        g & mask,
                        want & mask,
                        "{inst} round {round} lane {lane}: a={:#x} b={:#x} c={:#x}",
                        a[lane],
                        b[lane],
                        c[lane]
                    );
                }
            }
        }
    }
    assert!(refs.len() + scalar_refs().len() >= 80);
}

#[test]
fn vopc_compares_write_lane_masks() {
    let mut rng = Rng::new(5);
    type Reference = fn(u64, u64) -> bool;
    let cases: [(&str, Reference); 5] = [
        ("V_CMP_LT_F32", |a, b| f32b(a) < f32b(b)),
        ("V_CMP_EQ_F32", |a, b| f32b(a) == f32b(b)),
        ("V_CMP_NEQ_F32", |a, b| !(f32b(a) == f32b(b))),
        ("V_CMP_LT_I32", |a, b| (a as i32) < (b as i32)),
        ("V_CMP_GT_U32", |a, b| (a as u32) > (b as u32)),
    ];
    for (inst, reference) in cases {
        for _ in 0..50 {
            let a: Vec<u64> = (0..32).map(|_| rng.edge_value(32).low_u64()).collect();
            let b: Vec<u64> = (0..32).map(|_| rng.edge_value(32).low_u64()).collect();
            let exec_mask = rng.next_u64() & 0xffff_ffff;
            let i = common::spec().db(Arch::Rdna3).get(inst).expect("exists");
            let p = exec::prepare(Arch::Rdna3, i).expect("compiles");
            let mut m = Machine::new(32);
            m.values.insert(
                "S0".into(),
                RegValue::Lanes(a.iter().map(|v| Bits::from_u64(32, *v)).collect()),
            );
            m.values.insert(
                "S1".into(),
                RegValue::Lanes(b.iter().map(|v| Bits::from_u64(32, *v)).collect()),
            );
            m.values.insert(
                "EXEC".into(),
                RegValue::Uniform(Bits::from_u64(64, exec_mask)),
            );
            let out = exec::run_interp(&p, &mut m).expect("runs");
            let d0 = out
                .values
                .iter()
                .find(|(n, _)| n == "D0")
                .map(|(_, v)| match v {
                    RegValue::Uniform(b) => b.low_u64(),
                    RegValue::Lanes(l) => l[0].low_u64(),
                });
            let want = (0..32).fold(0u64, |m, l| {
                if exec_mask >> l & 1 == 1 && reference(a[l], b[l]) {
                    m | 1 << l
                } else {
                    m
                }
            });
            assert_eq!(d0, Some(want), "{inst} exec={exec_mask:#x}");
        }
    }
}

#[test]
fn min_max_f32_nan_and_signed_zero() {
    let r = |inst: &str, a: u32, b: u32| {
        let out = run_vector(
            inst,
            [&vec![a as u64; 32], &vec![b as u64; 32], &vec![0; 32]],
        );
        out[0] as u32
    };
    let (pz, nz, one, qnan, snan) = (
        0u32,
        0x8000_0000u32,
        0x3f80_0000u32,
        0x7fc0_0000u32,
        0x7fa0_0000u32,
    );
    // -0 < +0 in AMD's min/max.
    assert_eq!(r("V_MIN_F32", pz, nz), nz);
    assert_eq!(r("V_MIN_F32", nz, pz), nz);
    assert_eq!(r("V_MAX_F32", nz, pz), pz);
    // A quiet NaN loses to a number.
    assert_eq!(r("V_MIN_F32", qnan, one), one);
    assert_eq!(r("V_MAX_F32", one, qnan), one);
    // In IEEE mode a signalling NaN operand gives the quietened NaN.
    assert_eq!(r("V_MIN_F32", snan, one), 0x7fe0_0000);
    assert_eq!(r("V_MAX_F32", one, snan), 0x7fe0_0000);
}
