//! `amdpcode asm` and `amdpcode disasm`: LLVM-syntax assembly to machine code and back.

use std::path::PathBuf;

use clap::Args;

use super::common::{print_out, Failure, Wheel};

#[derive(Args)]
pub struct Asm {
    /// rdna1 .. rdna4, cdna1 .. cdna5 (cdna = cdna4), or a processor name such as gfx942.
    #[arg(long)]
    arch: String,
    /// The input file ('-' or absent: standard input).
    file: Option<PathBuf>,
    /// Print each instruction with its encoding, as llvm-mc -show-encoding does.
    #[arg(long)]
    show_encoding: bool,
    /// Write the machine code to this file.
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
}

#[derive(Args)]
pub struct Disasm {
    /// rdna1 .. rdna4, cdna1 .. cdna5 (cdna = cdna4), or a processor name such as gfx942.
    #[arg(long)]
    arch: String,
    /// The bytes as hex text, e.g. '00 1d 80 be'.
    #[arg(long, conflicts_with = "file")]
    hex: Option<String>,
    /// A binary file ('-' for standard input).
    file: Option<PathBuf>,
    /// Print each instruction's encoding.
    #[arg(long)]
    show_encoding: bool,
    /// Also print the spec name, format and operand fields of each instruction.
    #[arg(long)]
    fields: bool,
}

pub fn asm(c: Asm, wheel: &Wheel) -> Result<(), Failure> {
    let opts = super::assemble::AsmOptions {
        arch: c.arch,
        input: c.file,
        show_encoding: c.show_encoding,
        output: c.output,
    };
    let wheel =
        super::assemble::find_wheel(wheel.spec.clone(), wheel.offline).map_err(|e| Failure(e.0))?;
    let text = super::assemble::run_asm(&opts, &wheel).map_err(|e| Failure(e.0))?;
    print_out(&text)
}

pub fn disasm(c: Disasm, wheel: &Wheel) -> Result<(), Failure> {
    let opts = super::assemble::DisasmOptions {
        arch: c.arch,
        hex: c.hex,
        input: c.file,
        show_encoding: c.show_encoding,
        fields: c.fields,
    };
    let wheel =
        super::assemble::find_wheel(wheel.spec.clone(), wheel.offline).map_err(|e| Failure(e.0))?;
    let text = super::assemble::run_disasm(&opts, &wheel).map_err(|e| Failure(e.0))?;
    print_out(&text)
}
