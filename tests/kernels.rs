//! The compiled kernel suite: the OpenCL C kernels in `tests/kernels/` compiled by
//! clang-22 for gfx1100 (wave32 and wave64), gfx1200, gfx950, gfx1250, gfx908, gfx90a, gfx942,
//! gfx1010 and gfx1030 (wave32 and wave64) at -O2 and -O0, dispatched by
//! `amdpcode dispatch --batch` under the interpreter and the JIT, and compared with a Rust
//! reference of the same computation on random inputs (fixed seeds). The engines must agree on
//! every byte; the reference comparison is exact except for the hardware's approximate f32
//! instructions (`f32_approx`, tolerances documented there).
//!
//! One test per kernel family (`.cl` file); each runs one batch process per engine. Without
//! clang-22/ld.lld-22/llvm-readelf-22 the tests print a notice and pass, except under `CI=true`.
//! `KERNELS_TARGET=gfx1250` (a target's name) runs the launches of that target only.

#[path = "kernels/atomics.rs"]
mod atomics;
#[path = "kernels/calls.rs"]
mod calls;
mod common;
#[path = "kernels/dma.rs"]
mod dma;
#[path = "kernels/float_arith.rs"]
mod float_arith;
#[path = "kernels/harness.rs"]
mod harness;
#[path = "kernels/index.rs"]
mod index;
#[path = "kernels/int_arith.rs"]
mod int_arith;
#[path = "kernels/lds.rs"]
mod lds;
#[path = "kernels/matrix.rs"]
mod matrix;
#[path = "kernels/scratch.rs"]
mod scratch;
#[path = "kernels/wave.rs"]
mod wave;

use common::kernels::{compile, f16_to_f64, f64_to_f16, kernarg, toolchain, Arg, Opt, Target};
use harness::Mode;
use Arg::{Ptr, F32, U32};

/// A kernel that fails on an amdpcode gap for some targets and levels. Its cases leave the
/// family test for the family's ignored `*_known_gaps` test, which still asserts the right
/// answer, so fixing the gap turns that test green.
struct Gap {
    kernels: &'static [&'static str],
    targets: &'static [Target],
    opts: &'static [Opt],
    reason: &'static str,
}

/// Every kernel of the suite (in `kernels` of a gap that covers them all).
const ANY: &str = "*";

/// Known gaps, each with its measured symptom; a new gap goes here with its measured reason.
const GAPS: &[Gap] = &[Gap {
    kernels: &["buffer_copy"],
    targets: &[Target::Gfx1250],
    opts: &[Opt::O0, Opt::O2],
    reason: "gfx1250's buffer resource (V#) layout is not modelled: BUFFER_LOAD_B32 is refused",
}];

// The launches: a regular test and an ignored known-gaps test per family; each family's
// cases and references are in `tests/kernels/<family>.rs`.

#[test]
fn index() {
    index::index_suite(Mode::Regular);
}

/// The cases of `index` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored index_known_gaps"]
fn index_known_gaps() {
    index::index_suite(Mode::KnownGaps);
}

#[test]
fn int_arith() {
    int_arith::int_arith_suite(Mode::Regular);
}

/// The cases of `int_arith` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored int_arith_known_gaps"]
fn int_arith_known_gaps() {
    int_arith::int_arith_suite(Mode::KnownGaps);
}

#[test]
fn float_arith() {
    float_arith::float_arith_suite(Mode::Regular);
}

/// The cases of `float_arith` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored float_arith_known_gaps"]
fn float_arith_known_gaps() {
    float_arith::float_arith_suite(Mode::KnownGaps);
}

#[test]
fn lds() {
    lds::lds_suite(Mode::Regular);
}

/// The cases of `lds` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored lds_known_gaps"]
fn lds_known_gaps() {
    lds::lds_suite(Mode::KnownGaps);
}

#[test]
fn dma() {
    dma::dma_suite(Mode::Regular);
}

/// The cases of `dma` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored dma_known_gaps"]
fn dma_known_gaps() {
    dma::dma_suite(Mode::KnownGaps);
}

#[test]
fn atomics() {
    atomics::atomics_suite(Mode::Regular);
}

/// The cases of `atomics` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored atomics_known_gaps"]
fn atomics_known_gaps() {
    atomics::atomics_suite(Mode::KnownGaps);
}

#[test]
fn wave() {
    wave::wave_suite(Mode::Regular);
}

/// The cases of `wave` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored wave_known_gaps"]
fn wave_known_gaps() {
    wave::wave_suite(Mode::KnownGaps);
}

#[test]
fn scratch() {
    scratch::scratch_suite(Mode::Regular);
}

/// The cases of `scratch` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored scratch_known_gaps"]
fn scratch_known_gaps() {
    scratch::scratch_suite(Mode::KnownGaps);
}

#[test]
fn calls() {
    calls::calls_suite(Mode::Regular);
}

/// The cases of `calls` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored calls_known_gaps"]
fn calls_known_gaps() {
    calls::calls_suite(Mode::KnownGaps);
}

#[test]
fn matrix() {
    matrix::matrix_suite(Mode::Regular);
}

/// The cases of `matrix` that fail on a known amdpcode gap (`GAPS`); they assert the right answer.
#[test]
#[ignore = "known amdpcode gaps (GAPS in tests/kernels.rs); cargo test --release --test kernels -- --ignored matrix_known_gaps"]
fn matrix_known_gaps() {
    matrix::matrix_suite(Mode::KnownGaps);
}

// ---------------------------------------------------------------------------------------------
// The harness itself.

/// The natural-alignment layout the suite uses agrees with the compiler's metadata for every
/// kernel of every file and target, and a wrong layout is caught.
#[test]
fn kernarg_layout_matches_metadata() {
    let Some(tools) = toolchain() else {
        return;
    };
    let files = [
        "index.cl",
        "int_arith.cl",
        "float_arith.cl",
        "lds.cl",
        "atomics.cl",
        "wave.cl",
        "scratch.cl",
        "calls.cl",
        "matrix.cl",
    ];
    let mut kernels = 0;
    for target in Target::ALL {
        for file in files {
            let stem = file.trim_end_matches(".cl");
            if harness::NOT_COMPILED
                .iter()
                .any(|(f, t, _)| *f == stem && *t == target)
            {
                continue;
            }
            let co = compile(tools, file, target, Opt::O2);
            for (name, meta) in &co.kernels {
                // Our layout from the metadata's own kinds and sizes.
                let args: Vec<Arg> = meta
                    .args
                    .iter()
                    .map(|a| match (a.kind.as_str(), a.size) {
                        ("global_buffer", 8) => Ptr(0),
                        ("by_value", 4) => U32(0),
                        other => panic!("{name}: unexpected argument {other:?}"),
                    })
                    .collect();
                let bytes = kernarg(meta, &args)
                    .unwrap_or_else(|e| panic!("{name} {}: {e}", target.name()));
                assert!(
                    bytes.len() <= meta.kernarg_size,
                    "{name}: {} > {}",
                    bytes.len(),
                    meta.kernarg_size
                );
                // Hidden arguments, when the kernel uses any, follow the explicit ones (checked by
                // `kernarg`); a kernel that reads none has none.
                kernels += 1;
            }
        }
    }
    // 42 kernels per target, less matrix.cl's 2 where it is not compiled.
    let not_compiled = 2 * harness::NOT_COMPILED
        .iter()
        .filter(|(f, _, _)| *f == "matrix")
        .count();
    assert_eq!(
        kernels,
        Target::ALL.len() * 42 - not_compiled,
        "kernels in tests/kernels per target"
    );
    // saxpy_arg(float, ptr, ptr, uint, uint): the pointer after the float is aligned to 8.
    let co = compile(tools, "index.cl", Target::Gfx1100, Opt::O2);
    let meta = &co.kernels["saxpy_arg"];
    let offsets: Vec<usize> = meta.args.iter().map(|a| a.offset).collect();
    assert_eq!(offsets, [0, 8, 16, 24, 28]);
    // Swapping the float and a pointer is caught.
    assert!(kernarg(meta, &[Ptr(0), F32(1.0), Ptr(0), U32(0), U32(0)]).is_err());
    assert!(kernarg(meta, &[F32(1.0), Ptr(0), Ptr(0), U32(0)]).is_err());
}

/// The binary16 helpers the half references rely on.
#[test]
fn f16_conversions() {
    assert_eq!(f64_to_f16(1.0), 0x3c00);
    assert_eq!(f64_to_f16(-2.5), 0xc100);
    assert_eq!(f64_to_f16(65504.0), 0x7bff);
    assert_eq!(f64_to_f16(65520.0), 0x7c00);
    assert_eq!(f64_to_f16(2f64.powi(-24)), 0x0001);
    assert_eq!(f64_to_f16(2f64.powi(-25)), 0x0000); // tie to even
    assert_eq!(f64_to_f16(1.0 + 2f64.powi(-11)), 0x3c00); // tie to even
    assert_eq!(f64_to_f16(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02); // tie to even (up)
    assert_eq!(f64_to_f16(2f64.powi(-14) - 2f64.powi(-25)), 0x0400); // rounds up to the smallest normal
    for h in (0u16..0x7c00).step_by(7) {
        assert_eq!(f64_to_f16(f16_to_f64(h)), h);
        assert_eq!(f64_to_f16(-f16_to_f64(h)), h | 0x8000);
    }
}
