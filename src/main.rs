//! The `amdpcode` command line: parses arguments, calls the library, renders diagnostics and
//! sets the exit code. It holds no semantics of its own; the subcommands live in `cli/`.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    amdpcode::wave::mark_main();
    amdpcode::wave::prepare_heap();
    match cli::run(cli::Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(cli::Failure(msg)) => {
            eprintln!("{msg}");
            ExitCode::FAILURE
        }
    }
}
