//! The `asm` and `disasm` subcommands. `src/main.rs` parses the arguments and calls
//! [`run_asm`] / [`run_disasm`]; these return the text to print or an error message, and
//! never panic on bad input.

use std::io::Read;
use std::path::{Path, PathBuf};

use amdpcode::isa::{encoding_text, Inst, Isa, Value};
use amdpcode::spec::{self, Arch};

/// Options of `amdpcode asm`.
#[derive(Clone, Debug, Default)]
pub struct AsmOptions {
    /// The arch name (`rdna3`, `rdna4`, `cdna`).
    pub arch: String,
    /// The input file, or `None`/`-` for standard input.
    pub input: Option<PathBuf>,
    /// Print one line per instruction with its encoding.
    pub show_encoding: bool,
    /// Write the bytes here.
    pub output: Option<PathBuf>,
}

/// Options of `amdpcode disasm`.
#[derive(Clone, Debug, Default)]
pub struct DisasmOptions {
    /// The arch name.
    pub arch: String,
    /// Bytes as hex text (`'00 1d 80 be'`, `0x00,0x1d,...`).
    pub hex: Option<String>,
    /// A binary file (or `-` for standard input) when `hex` is not given.
    pub input: Option<PathBuf>,
    /// Print the encoding after each instruction.
    pub show_encoding: bool,
    /// After each instruction, print a comment line with the spec name, format and operands.
    pub fields: bool,
}

/// A CLI failure: the message to print on standard error (exit code 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliError(pub String);

fn load_isa(arch: &str, wheel: &Path) -> Result<Isa, CliError> {
    let arch = Arch::from_name(arch).ok_or_else(|| {
        CliError(format!(
            "error: unknown arch `{arch}` (expected one of {})",
            Arch::names()
        ))
    })?;
    Isa::from_wheel(wheel, arch).map_err(|e| CliError(format!("error: {e}")))
}

fn read_input(input: &Option<PathBuf>, what: &str) -> Result<Vec<u8>, CliError> {
    match input {
        Some(p) if p.as_os_str() != "-" => {
            amdpcode::sniff::read(p, what).map_err(|e| CliError(format!("error: {e}")))
        }
        _ => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| CliError(format!("error: cannot read standard input: {e}")))?;
            Ok(buf)
        }
    }
}

/// One llvm-mc style line: the text padded to column 40 (a space after longer texts), then
/// `; encoding: [...]`.
pub fn encoding_line(text: &str, bytes: &[u8]) -> String {
    let pad = if text.len() >= 40 { " " } else { "" };
    format!("{text:<40}{pad}; encoding: {}", encoding_text(bytes))
}

/// Runs `amdpcode asm`; returns what to print on standard output.
///
/// # Errors
/// A [`CliError`] naming `FILE:line:col` for assembly errors, or the I/O problem.
pub fn run_asm(opts: &AsmOptions, wheel: &Path) -> Result<String, CliError> {
    let isa = load_isa(&opts.arch, wheel)?;
    let what = "assembly text";
    let input = read_input(&opts.input, what)?;
    let name = match &opts.input {
        Some(p) if p.as_os_str() != "-" => p.display().to_string(),
        _ => "<stdin>".to_string(),
    };
    let text = amdpcode::sniff::text_of(input, &name, what, true)
        .map_err(|e| CliError(format!("error: {e}")))?;
    let lines = isa.assemble_lines(&text).map_err(|e| {
        let src = text.lines().nth(e.line.saturating_sub(1)).unwrap_or("");
        CliError(format!(
            "{name}:{}:{}: error: {}\n{src}\n{:>width$}",
            e.line,
            e.col,
            e.message,
            "^",
            width = e.col
        ))
    })?;
    let mut out = String::new();
    if opts.show_encoding {
        for a in &lines {
            let shown = isa
                .decode(&a.bytes)
                .map(|(inst, _)| isa.print(&inst))
                .unwrap_or_else(|_| "<undecodable>".into());
            out.push_str(&encoding_line(&shown, &a.bytes));
            out.push('\n');
        }
    }
    let bytes: Vec<u8> = lines.into_iter().flat_map(|a| a.bytes).collect();
    if let Some(path) = &opts.output {
        std::fs::write(path, &bytes)
            .map_err(|e| CliError(format!("error: cannot write {}: {e}", path.display())))?;
    } else if !opts.show_encoding {
        let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
        out.push_str(&hex.join(" "));
        out.push('\n');
    }
    Ok(out)
}

/// Parses hex text: `00 1d 80 be`, `0x00,0x1d,0x80,0xbe`, `[0x00, ...]` or `001d80be`.
///
/// # Errors
/// A message naming the offending token.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, CliError> {
    let mut out = Vec::new();
    for tok in text.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']') {
        if tok.is_empty() {
            continue;
        }
        let digits = tok
            .strip_prefix("0x")
            .or_else(|| tok.strip_prefix("0X"))
            .unwrap_or(tok);
        if digits.is_empty()
            || digits.len() % 2 != 0
            || !digits.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return Err(CliError(format!("error: invalid hex byte `{tok}`")));
        }
        for i in (0..digits.len()).step_by(2) {
            out.push(
                u8::from_str_radix(&digits[i..i + 2], 16)
                    .map_err(|_| CliError(format!("error: invalid hex byte `{tok}`")))?,
            );
        }
    }
    Ok(out)
}

/// `; S_WQM_B64 SOP1 op=29 SDST=s[0:1] SSRC0=s[0:1]`: the decoded data in spec terms.
pub fn fields_line(isa: &Isa, inst: &Inst) -> String {
    let mut parts = vec![format!(
        "; {} {} op={}",
        inst.name, inst.format, inst.opcode
    )];
    for op in &inst.operands {
        let raw = inst.field(&op.field).unwrap_or(0);
        let bits = isa
            .tables()
            .insts
            .iter()
            .find(|i| i.name == inst.name && i.family == inst.family)
            .and_then(|i| i.operand(&op.field))
            .map_or(32, |o| o.bits);
        let text = match &op.value {
            Value::Reg(_) | Value::InlineInt(_) | Value::InlineFloat(_) => {
                let code = if inst.family == "SMEM" && op.field == "sbase" {
                    raw as u32 * 2
                } else {
                    raw as u32
                };
                isa.source_text(code, bits, inst.literal)
            }
            Value::Literal(v) => format!("0x{v:x}"),
            Value::Imm(v) => format!("{v:#x}"),
            Value::Unknown(c) => format!("?{c}"),
        };
        parts.push(format!("{}={text}", op.field.to_ascii_uppercase()));
    }
    parts.join(" ")
}

/// Runs `amdpcode disasm`; returns what to print on standard output.
///
/// # Errors
/// A [`CliError`] for bad hex, unreadable input or an undecodable word (with its offset).
pub fn run_disasm(opts: &DisasmOptions, wheel: &Path) -> Result<String, CliError> {
    let isa = load_isa(&opts.arch, wheel)?;
    let bytes = match &opts.hex {
        Some(h) => parse_hex(h)?,
        None => {
            let bytes = read_input(&opts.input, "machine code")?;
            if amdpcode::sniff::content(&bytes) == amdpcode::sniff::Content::Elf {
                let name = opts
                    .input
                    .as_ref()
                    .map_or("<stdin>".into(), |p| p.display().to_string());
                return Err(CliError(format!(
                    "error: {} (disasm takes raw machine code: extract a code object's \
                     instructions with `llvm-objcopy -O binary --only-section=.text`)",
                    amdpcode::sniff::not_a(&name, "raw machine code", &bytes)
                )));
            }
            bytes
        }
    };
    let mut out = String::new();
    let mut pos = 0;
    while pos < bytes.len() {
        match isa.decode(&bytes[pos..]) {
            Ok((inst, len)) => {
                let text = isa.print(&inst);
                if opts.show_encoding {
                    out.push_str(&encoding_line(&text, &bytes[pos..pos + len]));
                } else {
                    out.push_str(&text);
                }
                out.push('\n');
                if opts.fields {
                    out.push_str(&fields_line(&isa, &inst));
                    out.push('\n');
                }
                pos += len;
            }
            Err(e) => {
                return Err(CliError(format!(
                    "{out}error: offset {pos} (1:{}): {e}",
                    pos * 3 + 1
                )))
            }
        }
    }
    Ok(out)
}

/// Locates the wheel as the rest of the CLI does.
///
/// # Errors
/// The [`spec::SpecError`] as a message.
pub fn find_wheel(explicit: Option<PathBuf>, offline: bool) -> Result<PathBuf, CliError> {
    spec::find_wheel(&spec::Locate { explicit, offline })
        .map_err(|e| CliError(format!("error: {e}")))
}
