//! The `wave` kernel family (`wave.cl`): its inputs and its cases with their Rust references.
//! Groups of 128 (4 or 2 waves), 3 groups; lane l of wave w is work-item w * W + l.

use super::harness::{check, suite, Mode, BOTH};
use crate::common::kernels::{buf, bytes, expect_at, Arg, Case, Target};
use Arg::{Ptr, U32};

pub(super) fn wave_suite(mode: Mode) {
    suite(mode, "wave", "wave.cl", 16, &BOTH, |co, rng, cases| {
        let wave = co.target.wave() as usize;
        let (block, grid) = (128u32, 3u32);
        let n = (block * grid) as usize;
        let lane = |i: usize| i % wave;
        let base = |i: usize| i - i % wave;
        let row = |i: usize| i - i % 16;
        let launch = |kernel: &str, args: &[Arg], mem: &[(u64, Vec<u8>)]| {
            co.launch(kernel, [grid, 1, 1], [block, 1, 1], args, mem)
        };

        // ballot_bits
        let data = rng.u32s(n);
        let mut want = Vec::new();
        for i in 0..n {
            let b = base(i);
            let mask = |f: &dyn Fn(u32) -> bool| {
                (0..wave)
                    .filter(|&l| f(data[b + l]))
                    .fold(0u64, |m, l| m | 1 << l)
            };
            let all = mask(&|v| v & 1 == 1);
            let sub = if data[i] & 2 != 0 {
                let m = mask(&|v| v & 3 == 3);
                (m as u32) ^ ((m >> 32) as u32)
            } else {
                u32::MAX
            };
            want.extend([
                all as u32,
                (all >> 32) as u32,
                (all & ((1u64 << lane(i)) - 1)).count_ones(),
                sub,
            ]);
        }
        let l = launch(
            "ballot_bits",
            &[Ptr(buf(0)), Ptr(buf(1))],
            &[(buf(0), bytes(&data)), (buf(1), vec![0; 16 * n])],
        );
        cases.push(Case::new(
            co,
            "ballot_bits",
            l,
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // first_lane
        let data = rng.u32s(n);
        let mut want = Vec::new();
        for i in 0..n {
            let b = base(i);
            let first4 = (0..wave).map(|l| data[b + l]).find(|v| v & 4 != 0);
            want.extend([
                data[b].wrapping_mul(3).wrapping_add(1),
                if data[i] & 4 != 0 {
                    first4.unwrap()
                } else {
                    0xdead_beef
                },
                data[b + 5],
                data[b + wave - 1] ^ 0x55,
            ]);
        }
        let l = launch(
            "first_lane",
            &[Ptr(buf(0)), Ptr(buf(1))],
            &[(buf(0), bytes(&data)), (buf(1), vec![0; 16 * n])],
        );
        cases.push(Case::new(
            co,
            "first_lane",
            l,
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // dpp_moves
        let data = rng.i32s(n);
        let mut want = Vec::new();
        for i in 0..n {
            let (r, rb) = (i % 16, row(i));
            let old = (i as i32).wrapping_mul(7);
            let shr3 = if r >= 3 { Some(data[i - 3]) } else { None };
            want.extend([
                shr3.unwrap_or(old),
                shr3.unwrap_or(0),
                data[i - i % 4 + 3 - i % 4],
                data[rb + (r + 16 - 5) % 16],
                data[rb + 15 - r],
                data[i].wrapping_add(if r >= 1 { data[i - 1] } else { 0 }),
            ]);
        }
        let l = launch(
            "dpp_moves",
            &[Ptr(buf(0)), Ptr(buf(1))],
            &[(buf(0), bytes(&data)), (buf(1), vec![0; 24 * n])],
        );
        cases.push(Case::new(
            co,
            "dpp_moves",
            l,
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // swizzle: ds_swizzle works on groups of 32 lanes.
        let data = rng.i32s(n);
        let mut want = Vec::new();
        for i in 0..n {
            let (j, g) = (i % 32, i - i % 32);
            let sum32 = data[g..g + 32].iter().fold(0i32, |s, &v| s.wrapping_add(v));
            want.extend([
                data[g + (j ^ 1)],
                data[g + ((j & 0x18) | 2)],
                data[i - i % 4 + 3 - i % 4],
                sum32,
            ]);
        }
        let l = launch(
            "swizzle",
            &[Ptr(buf(0)), Ptr(buf(1))],
            &[(buf(0), bytes(&data)), (buf(1), vec![0; 16 * n])],
        );
        cases.push(Case::new(
            co,
            "swizzle",
            l,
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // bpermute: lane `addr / 4 % span` of the wave, where span is 64 on CDNA (its text:
        // `/ 4U % 64U`) and 32 on RDNA, also in wave64 (AMD's RDNA text: "destination lane is
        // MOD 32 regardless of wave size"; not checked against wave64 hardware).
        let span = if co.target.is_cdna() { 64 } else { 32 };
        let data = rng.i32s(n);
        let mut want = Vec::new();
        for i in 0..n {
            let (b, l) = (base(i), lane(i));
            let src = b + ((data[i] as u32 & 0xfc) as usize / 4) % span;
            want.extend([
                data[b + (wave - 1 - l) % span],
                data[b + (l * 7 + 3) % wave % span],
                data[src] ^ (src - b) as i32,
            ]);
        }
        let l = launch(
            "bpermute",
            &[Ptr(buf(0)), Ptr(buf(1))],
            &[(buf(0), bytes(&data)), (buf(1), vec![0; 12 * n])],
        );
        cases.push(Case::new(
            co,
            "bpermute",
            l,
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // permlane: v_permlane16/x16 on RDNA (selects from the arguments), the swaps on gfx950.
        let data = rng.u32s(n);
        let (sel_lo, sel_hi) = (0x7c5e_1a93u32, 0x0fb2_468du32);
        let sel = |r: usize, lo: u32, hi: u32| {
            (if r < 8 {
                lo >> (4 * r)
            } else {
                hi >> (4 * (r - 8))
            } & 15) as usize
        };
        let mut want = Vec::new();
        for i in 0..n {
            let old = (i as u32).wrapping_mul(5);
            let (r, rb) = (i % 16, row(i));
            if co.target == Target::Gfx950 {
                // v_permlane32_swap: lanes 32..63 of the first operand swap with lanes 0..31 of the
                // second; v_permlane16_swap: odd rows of the first with even rows of the second.
                let (x32, y32) = if lane(i) < 32 {
                    (old, ((i + 32) as u32).wrapping_mul(5))
                } else {
                    (data[i - 32], data[i])
                };
                let odd = (i / 16) % 2 == 1;
                let (x16, y16) = if odd {
                    (data[i - 16], data[i])
                } else {
                    (old, ((i + 16) as u32).wrapping_mul(5))
                };
                want.extend([x32, y32, x16, y16]);
            } else {
                let other = rb ^ 16;
                want.extend([
                    data[rb + sel(r, sel_lo, sel_hi)],
                    data[other + sel(r, sel_lo, sel_hi)],
                    data[rb + sel(r, sel_hi, sel_lo)].wrapping_add(data[i]),
                    data[other + sel(r, sel_hi, sel_lo)] ^ sel_lo,
                ]);
            }
        }
        let l = launch(
            "permlane",
            &[Ptr(buf(0)), Ptr(buf(1)), U32(sel_lo), U32(sel_hi)],
            &[(buf(0), bytes(&data)), (buf(1), vec![0; 16 * n])],
        );
        // gfx908, gfx90a and gfx942 have no permlane instruction (the kernel is empty there).
        if !co.target.is_cdna() || co.target == Target::Gfx950 {
            cases.push(Case::new(
                co,
                "permlane",
                l,
                check(move |out| expect_at(out, "out", buf(1), &want)),
            ));
        }

        // wave_sum
        let data = rng.u32s(n);
        let want: Vec<u32> = data
            .chunks(wave)
            .map(|c| c.iter().fold(0u32, |s, &v| s.wrapping_add(v)))
            .collect();
        let l = launch(
            "wave_sum",
            &[Ptr(buf(0)), Ptr(buf(1))],
            &[(buf(0), bytes(&data)), (buf(1), vec![0; 4 * (n / wave)])],
        );
        cases.push(Case::new(
            co,
            "wave_sum",
            l,
            check(move |out| expect_at(out, "sums", buf(1), &want)),
        ));
    });
}
