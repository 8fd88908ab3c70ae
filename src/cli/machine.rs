//! `amdpcode run` (a program on one wavefront) and `amdpcode dispatch` (a kernel launch).

use std::path::PathBuf;

use clap::Args;

use super::common::{exit_on_findings, print_out, Failure, Wheel};

#[derive(Args)]
pub struct Dispatch {
    /// LAUNCH.json, or a code object (ELF) for the short form.
    input: Option<PathBuf>,
    /// Run one launch per line of this JSON Lines file ('-': standard input).
    #[arg(long, conflicts_with = "input")]
    batch: Option<PathBuf>,
    /// The execution engine (auto: the JIT, the interpreter for what it cannot compile).
    #[arg(long, default_value = "auto", value_parser = ["interp", "jit", "auto"])]
    engine: String,
    /// Print JSON: every input range after the run, waves, instructions.
    #[arg(long)]
    json: bool,
    /// Print every executed instruction with the registers it changed.
    #[arg(long, conflicts_with = "batch")]
    trace: bool,
    /// Run under the kernel sanitizer (missing waits, LDS races, hazards, uninitialised
    /// values); with `--batch`, each line gets a `findings` array.
    /// `--check=global-races` also checks global memory. Exit status 3 on findings.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "all",
          value_parser = ["all", "global-races"])]
    check: Option<String>,
    /// Short form: the kernel to run.
    #[arg(long)]
    kernel: Option<String>,
    /// Short form: workgroups per dimension, X[,Y,Z].
    #[arg(long)]
    grid: Option<String>,
    /// Short form: work-items per workgroup, X[,Y,Z].
    #[arg(long)]
    block: Option<String>,
    /// Short form: a kernel argument, in order: TYPE=VALUE (u32=5, f32=1.5) or
    /// buf=TYPExN:zero|rand|iota|v1,v2,... or buf=file:PATH.
    #[arg(long = "arg")]
    args: Vec<String>,
    /// Short form: print the buffer of argument N after the run (repeatable).
    #[arg(long)]
    print: Vec<usize>,
    /// Threads to run on (default: every core): a launch's workgroups, or a batch's
    /// launches; 1 runs everything on one thread. Results are the same for any number.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
}

#[derive(Args)]
pub struct Run {
    /// rdna1 .. rdna4, cdna1 .. cdna5 (cdna = cdna4), or a processor name such as gfx942.
    #[arg(long)]
    arch: String,
    /// Wave size, 32 or 64 (default: 32 on RDNA, 64 on CDNA).
    #[arg(long)]
    wave: Option<u32>,
    /// The execution engine.
    #[arg(long, default_value = "interp", value_parser = ["interp", "jit"])]
    engine: String,
    /// The initial state (JSON).
    #[arg(long)]
    state: Option<PathBuf>,
    /// PROGRAM is hex bytes in memory order instead of assembly text.
    #[arg(long)]
    hex: bool,
    /// Print each executed instruction with the registers it changed.
    #[arg(long)]
    trace: bool,
    /// Print the final state as JSON.
    #[arg(long)]
    json: bool,
    /// Run under the kernel sanitizer (missing waits, hazards); exit status 3 on findings.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "all",
          value_parser = ["all", "global-races"])]
    check: Option<String>,
    /// A file, '-' for standard input, or the program text itself.
    program: String,
}

pub fn dispatch(c: Dispatch, wheel: &Wheel) -> Result<(), Failure> {
    let spec = wheel.load()?;
    let opts = super::dispatch::DispatchOptions {
        threads: c
            .threads
            .map_or_else(amdpcode::dispatch::all_cores, |n| n as usize),
        engine: c.engine,
        json: c.json,
        trace: c.trace,
        input: c.input,
        batch: c.batch,
        kernel: c.kernel,
        grid: c.grid,
        block: c.block,
        args: c.args,
        print: c.print,
        check: c
            .check
            .as_deref()
            .and_then(amdpcode::sanitizer::options_from_flag),
    };
    let (text, findings) = super::dispatch::run_checked(spec, &opts).map_err(|e| Failure(e.0))?;
    exit_on_findings(&text, findings)?;
    print_out(&text)
}

pub fn run(c: Run, wheel: &Wheel) -> Result<(), Failure> {
    let spec = wheel.load()?;
    let opts = super::run::RunOptions {
        arch: c.arch,
        wave: c.wave,
        engine: c.engine,
        state: c.state,
        hex: c.hex,
        trace: c.trace,
        json: c.json,
        program: c.program,
        check: c
            .check
            .as_deref()
            .and_then(amdpcode::sanitizer::options_from_flag),
    };
    let (text, findings) = super::run::run_checked(spec, &opts).map_err(|e| Failure(e.0))?;
    exit_on_findings(&text, findings)?;
    print_out(&text)
}
