//! `amdpcode equiv`: prove two programs equivalent or show where they differ.

use std::path::PathBuf;

use clap::Args;

use super::common::{exit_with, Failure, Wheel};

#[derive(Args)]
pub struct Equiv {
    /// rdna1 .. rdna4, cdna1 .. cdna5 (cdna = cdna4), or a processor name such as gfx942.
    #[arg(long)]
    arch: String,
    /// 32 or 64 (default 32 on RDNA, 64 on CDNA).
    #[arg(long)]
    wave: Option<u32>,
    /// Program A (llvm-mc syntax).
    a: PathBuf,
    /// Program B.
    b: PathBuf,
    /// Outputs to compare, e.g. `v1,exec,s[2:3]` (default: every register either writes).
    #[arg(long)]
    outputs: Option<String>,
    /// Outputs to leave out.
    #[arg(long)]
    ignore: Option<String>,
    /// random, prove or both.
    #[arg(long, default_value = "both")]
    mode: String,
    /// Random states of the random pass.
    #[arg(long, default_value_t = 1000)]
    samples: u32,
    /// Executions of one instruction per path before the unwinding check.
    #[arg(long, default_value_t = 70)]
    unroll: u32,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// The SMT solver (default: z3 on PATH).
    #[arg(long)]
    solver: Option<PathBuf>,
    /// The programs are hex machine code.
    #[arg(long)]
    hex: bool,
    /// Solver time limit per query, in milliseconds.
    #[arg(long, default_value_t = 30000)]
    timeout: u64,
}

pub fn run(c: Equiv, wheel: &Wheel) -> Result<(), Failure> {
    let spec = wheel.load()?;
    let args = super::smt::EquivArgs {
        arch: c.arch,
        wave: c.wave,
        a: c.a,
        b: c.b,
        outputs: c.outputs,
        ignore: c.ignore,
        mode: c.mode,
        samples: c.samples,
        unroll: c.unroll,
        json: c.json,
        solver: c.solver,
        hex: c.hex,
        timeout_ms: c.timeout,
    };
    exit_with(super::smt::equiv(spec, &args))
}
