//! `amdpcode doc`: the ISA reference site.

use std::path::PathBuf;

use clap::Args;

use super::common::{parse_arch, print_out, Failure, Wheel};

#[derive(Args)]
pub struct Doc {
    /// The output folder.
    #[arg(long)]
    out: PathBuf,
    /// Only these generations (comma-separated; default: all).
    #[arg(long, value_delimiter = ',')]
    arch: Vec<String>,
    /// Also ask the solver about cross-generation differences random inputs do not show.
    #[arg(long)]
    prove: bool,
    /// The SMT solver (default: z3 on PATH).
    #[arg(long)]
    solver: Option<PathBuf>,
    /// Solver time limit per query, in milliseconds.
    #[arg(long, default_value_t = 5000)]
    timeout: u64,
}

pub fn run(c: Doc, wheel: &Wheel) -> Result<(), Failure> {
    let archs = c
        .arch
        .iter()
        .map(|a| parse_arch(a))
        .collect::<Result<Vec<_>, _>>()?;
    let spec = wheel.load()?;
    let opts = amdpcode::doc::Options {
        out: c.out,
        archs,
        prove: c.prove,
        solver: c.solver,
        timeout_ms: c.timeout,
    };
    let s = amdpcode::doc::build(spec, &opts).map_err(|e| Failure(format!("error: {e}")))?;
    print_out(&format!(
        "wrote {} pages ({} instructions, {} worked examples) to {} in {:.1} s \
         (cross-generation comparisons: {} pairs with different text, {} distinct, {:.1} s)\n",
        s.pages,
        s.instruction_pages,
        s.examples,
        opts.out.display(),
        s.seconds,
        s.compared,
        s.distinct,
        s.diff_seconds
    ))
}
