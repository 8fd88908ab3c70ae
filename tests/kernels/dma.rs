//! The `dma` kernel family (`dma.cl`): LDS DMA, transposing loads and the clocks, compiled by
//! clang from its builtins, with Rust references of what the kernels compute.

use super::harness::{check, suite, Mode, BOTH};
use crate::common::kernels::{buf, bytes, expect_at, Arg, Target};
use Arg::{Ptr, U32};

pub(super) fn dma_suite(mode: Mode) {
    suite(mode, "dma", "dma.cl", 23, &BOTH, |co, rng, cases| {
        let wave = co.target.wave();

        // dma_copy: three groups of 256; out[i] = tile[lid ^ 1] * 3 + 1.
        let n = 3 * 256usize;
        let src = rng.u32s(n);
        let want: Vec<u32> = (0..n)
            .map(|i| {
                src[i / 256 * 256 + ((i % 256) ^ 1)]
                    .wrapping_mul(3)
                    .wrapping_add(1)
            })
            .collect();
        cases.push(co.case(
            "dma_copy",
            [3, 1, 1],
            [256, 1, 1],
            &[Ptr(buf(0)), Ptr(buf(1))],
            &[(buf(0), bytes(&src)), (buf(1), vec![0; 4 * n])],
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // transpose_load: one wave; E halfwords per lane (4 on gfx950, else 8). In each group of
        // 16 lanes, lane m's element k is element m % E of lane (16 / E) * k + m / E.
        let e = if co.target == Target::Gfx950 { 4 } else { 8 };
        let lanes = wave as usize;
        let src: Vec<u16> = (0..lanes * e).map(|_| rng.u32() as u16).collect();
        let want: Vec<u16> = (0..lanes * e)
            .map(|i| {
                let (m, k) = (i / e, i % e);
                let (base, r) = (m / 16 * 16, m % 16);
                src[(base + 16 / e * k + r / e) * e + r % e]
            })
            .collect();
        cases.push(co.case(
            "transpose_load",
            [1, 1, 1],
            [wave, 1, 1],
            &[Ptr(buf(0)), Ptr(buf(1))],
            &[(buf(0), bytes(&src)), (buf(1), vec![0; 2 * lanes * e])],
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // buffer_copy: two groups of 64 over 128 words, 100 of them inside the V#'s records.
        let (words, inside) = (128usize, 100u32);
        let src = rng.u32s(words);
        let init = rng.u32s(words);
        let want: Vec<u32> = (0..words)
            .map(|i| {
                if i < inside as usize {
                    src[i].wrapping_add(1)
                } else {
                    init[i]
                }
            })
            .collect();
        cases.push(co.case(
            "buffer_copy",
            [2, 1, 1],
            [64, 1, 1],
            &[Ptr(buf(0)), Ptr(buf(1)), U32(inside)],
            &[(buf(0), bytes(&src)), (buf(1), bytes(&init))],
            check(move |out| expect_at(out, "out", buf(1), &want)),
        ));

        // clocks: the model's clock counts instructions, so the longer loop takes more cycles
        // and the steady clock covers both loops.
        let loops = 10u32;
        cases.push(co.case(
            "clocks",
            [1, 1, 1],
            [1, 1, 1],
            &[Ptr(buf(0)), Ptr(buf(1)), U32(loops)],
            &[(buf(0), vec![0; 40]), (buf(1), vec![0; 8])],
            check(move |out| {
                let t: Vec<u64> = out.read(buf(0), 5)?;
                let (short, long) = (t[2].wrapping_sub(t[1]), t[3].wrapping_sub(t[2]));
                let steady = t[4].wrapping_sub(t[0]);
                if short == 0 || long <= short || steady <= long + short {
                    return Err(format!(
                        "clocks: loop of {loops}: {short}, of {}: {long}, steady {steady}",
                        4 * loops
                    ));
                }
                // Each iteration of the longer loop takes at least one instruction.
                if long < 4 * loops as u64 {
                    return Err(format!("clocks: {long} ticks for {} iterations", 4 * loops));
                }
                Ok(())
            }),
        ));
    });
}
