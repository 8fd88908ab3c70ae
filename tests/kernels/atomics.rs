//! The `atomics` kernel family (`atomics.cl`): its inputs and its cases with their Rust references.

use super::harness::{check, groups, suite, Mode, BOTH};
use crate::common::kernels::{buf, bytes, expect_at, expect_eq, Arg};
use Arg::{Ptr, U32};

pub(super) fn atomics_suite(mode: Mode) {
    suite(
        mode,
        "atomics",
        "atomics.cl",
        15,
        &BOTH,
        |co, rng, cases| {
            // hist_global: 2000 values into 37 bins.
            let (n, block, nbins) = (2000usize, 128u32, 37u32);
            let data = rng.u32s(n);
            let mut want = vec![0u32; nbins as usize];
            for &v in &data {
                want[(v % nbins) as usize] += 1;
            }
            cases.push(co.case(
                "hist_global",
                [groups(n, block), 1, 1],
                [block, 1, 1],
                &[Ptr(buf(0)), Ptr(buf(1)), U32(n as u32), U32(nbins)],
                &[
                    (buf(0), bytes(&data)),
                    (buf(1), vec![0; 4 * nbins as usize]),
                ],
                check(move |out| expect_at(out, "bins", buf(1), &want)),
            ));

            // hist_lds: 64 LDS bins per group, merged with global atomics.
            let (n, block) = (2000usize, 256u32);
            let data = rng.u32s(n);
            let mut want = vec![0u32; 64];
            for &v in &data {
                want[(v & 63) as usize] += 1;
            }
            cases.push(co.case(
                "hist_lds",
                [groups(n, block), 1, 1],
                [block, 1, 1],
                &[Ptr(buf(0)), Ptr(buf(1)), U32(n as u32)],
                &[(buf(0), bytes(&data)), (buf(1), vec![0; 4 * 64])],
                check(move |out| expect_at(out, "bins", buf(1), &want)),
            ));

            // atomic_minmax
            let (n, block) = (1500usize, 128u32);
            let grid = groups(n, block) as usize;
            let data = rng.i32s(n);
            let init = [i32::MAX, i32::MIN, -1, 0];
            let want = [
                *data.iter().min().unwrap(),
                *data.iter().max().unwrap(),
                data.iter().map(|&v| v as u32).min().unwrap() as i32,
                data.iter().map(|&v| v as u32).max().unwrap() as i32,
            ];
            let mut want_group = Vec::new();
            for g in 0..grid {
                let part = &data[g * block as usize..((g + 1) * block as usize).min(n)];
                want_group.extend([*part.iter().min().unwrap(), *part.iter().max().unwrap()]);
            }
            cases.push(co.case(
                "atomic_minmax",
                [grid as u32, 1, 1],
                [block, 1, 1],
                &[Ptr(buf(0)), Ptr(buf(1)), Ptr(buf(2)), U32(n as u32)],
                &[
                    (buf(0), bytes(&data)),
                    (buf(1), bytes(&init)),
                    (buf(2), vec![0; 8 * grid]),
                ],
                check(move |out| {
                    expect_at(out, "global min/max", buf(1), &want)?;
                    expect_at(out, "LDS min/max per group", buf(2), &want_group)
                }),
            ));

            // cas_loops
            let (n, block, cap) = (1000usize, 64u32, 100_000u32);
            let grid = groups(n, block) as usize;
            let data = rng.u32s(n);
            let sum = data
                .iter()
                .fold(0u64, |s, &v| s.wrapping_add(v as u64 * 0x10001));
            let fmax = data
                .iter()
                .map(|&v| (v & 0xff_ffff) as f32 * 0.37f32)
                .fold(0f32, f32::max);
            let want_group: Vec<u32> = (0..grid)
                .map(|g| {
                    let part = &data[g * block as usize..((g + 1) * block as usize).min(n)];
                    part.iter().map(|&v| v & 0xfff).sum::<u32>().min(cap)
                })
                .collect();
            cases.push(co.case(
                "cas_loops",
                [grid as u32, 1, 1],
                [block, 1, 1],
                &[
                    Ptr(buf(0)),
                    Ptr(buf(1)),
                    Ptr(buf(2)),
                    Ptr(buf(3)),
                    U32(n as u32),
                    U32(cap),
                ],
                &[
                    (buf(0), bytes(&data)),
                    (buf(1), vec![0; 8]),
                    (buf(2), vec![0; 4]),
                    (buf(3), vec![0; 4 * grid]),
                ],
                check(move |out| {
                    expect_at(out, "u64 sum", buf(1), &[sum])?;
                    expect_at(out, "f32 max", buf(2), &[fmax])?;
                    expect_at(out, "saturated LDS sums", buf(3), &want_group)
                }),
            ));

            // compact: the multiset of multiples of 3, through an atomic counter.
            let (n, block) = (1000usize, 128u32);
            let data = rng.u32s(n);
            let mut chosen: Vec<u32> = data.iter().copied().filter(|v| v % 3 == 0).collect();
            chosen.sort_unstable();
            cases.push(co.case(
                "compact",
                [groups(n, block), 1, 1],
                [block, 1, 1],
                &[
                    Ptr(buf(0)),
                    Ptr(buf(1)),
                    Ptr(buf(2)),
                    Ptr(buf(3)),
                    U32(n as u32),
                ],
                &[
                    (buf(0), bytes(&data)),
                    (buf(1), vec![0xff; 4 * n]),
                    (buf(2), vec![0; 4]),
                    (buf(3), vec![0xff; 4]),
                ],
                check(move |out| {
                    let count = chosen.len();
                    expect_at(out, "count", buf(2), &[count as u32])?;
                    let mut got: Vec<u32> = out.read(buf(1), n)?;
                    expect_eq("untouched tail", &got[count..], &vec![u32::MAX; n - count])?;
                    got.truncate(count);
                    got.sort_unstable();
                    expect_eq("compacted values (sorted)", &got, &chosen)?;
                    let last: Vec<u32> = out.read(buf(3), 1)?;
                    if chosen.binary_search(&last[0]).is_err() {
                        return Err(format!(
                            "exchange left {:#x}, not one of the candidates",
                            last[0]
                        ));
                    }
                    Ok(())
                }),
            ));
        },
    );
}
