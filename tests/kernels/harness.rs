//! The suite harness: compiles a family's `.cl` file for every target and level, collects the
//! cases its builder adds, and runs the regular or the known-gap ones.

use super::{Gap, ANY, GAPS};
use crate::common::kernels::{
    compile, run_cases, toolchain, Case, Check, CodeObject, Opt, Output, Rng, Target,
};

pub(super) const BOTH: [Opt; 2] = [Opt::O2, Opt::O0];

/// Which cases a family test runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Every case not listed in `GAPS`.
    Regular,
    /// Only the cases `GAPS` lists (the `*_known_gaps` tests, ignored by default).
    KnownGaps,
}

fn gap_of(case: &Case) -> Option<&'static Gap> {
    GAPS.iter().find(|g| {
        g.kernels.iter().any(|&k| k == ANY || k == case.kernel)
            && g.targets.contains(&case.target)
            && g.opts.contains(&case.opt)
    })
}

/// Compiles `file` for every target at each level in `opts`, lets `build` add the cases for
/// that code object (inputs from a generator seeded by `seed`, the same for every target), and
/// runs the cases `mode` selects.
pub(super) fn suite(
    mode: Mode,
    family: &str,
    file: &str,
    seed: u64,
    opts: &[Opt],
    build: impl Fn(&CodeObject, &mut Rng, &mut Vec<Case>),
) {
    let Some(tools) = toolchain() else {
        return;
    };
    let mut cases = Vec::new();
    for target in Target::ALL {
        if let Some((_, _, why)) = NOT_COMPILED
            .iter()
            .find(|(f, t, _)| *f == family && *t == target)
        {
            eprintln!("skip {family} on {}: {why}", target.name());
            continue;
        }
        if std::env::var("KERNELS_TARGET").is_ok_and(|t| t != target.name()) {
            continue;
        }
        for &opt in opts {
            let co = compile(tools, file, target, opt);
            let mut rng = Rng::new(seed);
            build(&co, &mut rng, &mut cases);
        }
    }
    let (gaps, regular): (Vec<Case>, Vec<Case>) =
        cases.into_iter().partition(|c| gap_of(c).is_some());
    match mode {
        Mode::Regular => {
            for c in &gaps {
                eprintln!(
                    "gap  {} (ignored: {})",
                    c.label,
                    gap_of(c).map_or("", |g| g.reason)
                );
            }
            run_cases(family, regular);
        }
        Mode::KnownGaps => {
            if !gaps.is_empty() {
                run_cases(&format!("{family}-gaps"), gaps);
            }
        }
    }
}

/// Families whose source has no form for a target: (family, target, why).
pub(super) const NOT_COMPILED: &[(&str, Target, &str)] = &[(
    "matrix",
    Target::Gfx1250,
    "gfx1250 has none of the WMMA shapes matrix.cl uses (clang-22 cannot select \
     llvm.amdgcn.wmma.f32.16x16x16.f16 for it), and its own shapes are not executable",
)];

/// Groups needed to cover `n` items with groups of `block`.
pub(super) fn groups(n: usize, block: u32) -> u32 {
    n.div_ceil(block as usize) as u32
}

pub(super) fn check<F>(f: F) -> Check
where
    F: Fn(&Output) -> Result<(), String> + 'static,
{
    Box::new(f)
}
