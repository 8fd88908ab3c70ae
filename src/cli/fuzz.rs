//! `amdpcode fuzz`: random programs under every engine, compared on the final state.

use clap::Args;

use super::common::{print_out, Failure, Wheel};

#[derive(Args)]
pub struct Fuzz {
    /// Programs to run.
    #[arg(long, default_value_t = 10_000)]
    programs: u64,
    /// The seed (program i of a seed is the same on every machine).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The engines to compare, the first being the reference: interp, jit (a kernel per
    /// instruction), jit-block (straight-line runs compiled into one function at once).
    #[arg(long, default_value = "interp,jit,jit-block")]
    engines: String,
}

pub fn run(c: Fuzz, wheel: &Wheel) -> Result<(), Failure> {
    let spec = wheel.load()?;
    let config = amdpcode::fuzz::Config {
        seed: c.seed,
        programs: c.programs,
        engines: c.engines.split(',').map(str::to_string).collect(),
        ..Default::default()
    };
    let start = std::time::Instant::now();
    let mut shown = 0;
    let report = amdpcode::fuzz::run(spec, &config, &mut |r| {
        // Mismatches as they are found (a long run may be stopped early).
        for m in &r.mismatches[shown..] {
            eprintln!(
                "mismatch: program {} ({} wave{}): {}",
                m.index, m.arch, m.wave_size, m.difference
            );
        }
        shown = r.mismatches.len();
        if r.programs % 10_000 == 0 {
            eprintln!(
                "{} programs, {} mismatches ({:.0} s)",
                r.programs,
                r.mismatches.len(),
                start.elapsed().as_secs_f64()
            );
        }
    })
    .map_err(|e| Failure(format!("error: {e}")))?;
    print_out(&amdpcode::fuzz::summary(&report))?;
    if report.mismatches.is_empty() {
        Ok(())
    } else {
        Err(Failure(format!("{} mismatch(es)", report.mismatches.len())))
    }
}
