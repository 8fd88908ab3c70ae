//! `amdpcode run`: the command behind the CLI subcommand. It builds the whole output before
//! returning, so a failure never leaves a partial result on stdout.

use std::path::PathBuf;

use amdpcode::spec::{Arch, Spec};
use amdpcode::wave::{json, Engine, Executor, Program, WaveState};

/// The options of `amdpcode run`.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// rdna1 .. rdna4, cdna1 .. cdna5 (cdna = cdna4), or a processor name such as gfx942.
    pub arch: String,
    /// 32 or 64 (default: 32 on RDNA, 64 on CDNA).
    pub wave: Option<u32>,
    /// `interp` or `jit`.
    pub engine: String,
    /// The initial state file.
    pub state: Option<PathBuf>,
    /// PROGRAM is hex bytes in memory order, not assembly.
    pub hex: bool,
    /// Print each executed instruction with the registers it changed.
    pub trace: bool,
    /// Print the final state as JSON.
    pub json: bool,
    /// A file, `-` for standard input, or the program text itself.
    pub program: String,
    /// Run under the sanitizer (`--check`); findings are printed after the result.
    pub check: Option<amdpcode::sanitizer::Options>,
}

/// A failure, with the message to print (exit code 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError(pub String);

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RunError {}

fn read_program(arg: &str, hex: bool) -> Result<String, RunError> {
    if arg == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| RunError(format!("error: reading standard input: {e}")))?;
        return Ok(s);
    }
    let what = if hex {
        "a program as hex text"
    } else {
        "a program (assembly text)"
    };
    let path = std::path::Path::new(arg);
    if path.is_dir() {
        return Err(RunError(format!("error: {arg}: a directory, not {what}")));
    }
    if !path.is_file() {
        return Ok(arg.to_string());
    }
    use amdpcode::sniff::{self, Content};
    let bytes = sniff::read(path, what).map_err(|e| RunError(format!("error: {e}")))?;
    let hint = match sniff::content(&bytes) {
        Content::Elf => " (a code object runs with `amdpcode dispatch`)",
        Content::Json => {
            let e = sniff::not_a(arg, what, &bytes);
            return Err(RunError(format!(
                "error: {e} (a state goes with --state FILE)"
            )));
        }
        _ => "",
    };
    sniff::text_of(bytes, arg, what, false).map_err(|e| RunError(format!("error: {e}{hint}")))
}

/// Runs a program and returns the text to print and the number of sanitizer findings
/// (0 without `check`).
///
/// # Errors
/// A [`RunError`] naming the bad key, line or address.
pub fn run_checked(spec: &Spec, opts: &RunOptions) -> Result<(String, usize), RunError> {
    let arch = Arch::from_name(&opts.arch).ok_or_else(|| {
        RunError(format!(
            "error: unknown arch `{}` (expected one of {})",
            opts.arch,
            Arch::names()
        ))
    })?;
    let wave_size = opts.wave.unwrap_or(arch.default_wave());
    if wave_size != 32 && wave_size != 64 {
        return Err(RunError(format!(
            "error: --wave must be 32 or 64, not {wave_size}"
        )));
    }
    if !arch.supports_wave(wave_size) {
        return Err(RunError(format!(
            "error: {} does not run wave{wave_size} (it runs wave{})",
            arch.name(),
            arch.default_wave()
        )));
    }
    let engine = Engine::from_name(&opts.engine).ok_or_else(|| {
        RunError(format!(
            "error: unknown engine `{}` (expected interp or jit)",
            opts.engine
        ))
    })?;
    let db = spec
        .get(arch)
        .map_err(|e| RunError(format!("error: {e}")))?;
    let mut ex = Executor::new(db, engine).map_err(|e| RunError(format!("error: {e}")))?;
    ex.jit_threshold = amdpcode::wave::cli_jit_threshold();
    let text = read_program(&opts.program, opts.hex)?;
    let program = if opts.hex {
        Program::from_hex(ex.isa(), &text)
    } else {
        Program::assemble(ex.isa(), &text)
    }
    .map_err(|e| RunError(format!("error: program: {e}")))?;
    let mut wave = WaveState::new(arch, wave_size);
    if let Some(path) = &opts.state {
        let what = "a state JSON object";
        let name = path.display().to_string();
        let bytes =
            amdpcode::sniff::read(path, what).map_err(|e| RunError(format!("error: {e}")))?;
        if amdpcode::sniff::content(&bytes) != amdpcode::sniff::Content::Json {
            return Err(RunError(format!(
                "error: {}",
                amdpcode::sniff::not_a(&name, what, &bytes)
            )));
        }
        let s = amdpcode::sniff::text_of(bytes, &name, what, false)
            .map_err(|e| RunError(format!("error: {e}")))?;
        json::apply(&mut wave, &s)
            .map_err(|e| RunError(format!("error: {}: {e}", path.display())))?;
    }
    let mut out = String::new();
    let trace = opts.trace;
    let isa = ex.isa().clone();
    // Tracing clones the state per step; without it the fast path runs.
    let mut checker = opts
        .check
        .map(|o| amdpcode::sanitizer::Sanitizer::new(db, &isa, o));
    let steps = if let Some(san) = checker.as_mut() {
        wave.last_access = Some(Vec::new());
        // The sanitizer reads only the state after each step: no clone per step.
        ex.trace_after_only = !trace;
        ex.run_traced(&program, &mut wave, &mut |d, before, after| {
            if trace {
                out.push_str(&trace_line(&isa, d, before, after));
            }
            san.observe([0; 3], 0, d, before, after);
        })
    } else if trace {
        ex.run_traced(&program, &mut wave, &mut |d, before, after| {
            out.push_str(&trace_line(&isa, d, before, after));
        })
    } else {
        ex.run_fast(&program, &mut wave)
    }
    .map_err(|e| RunError(format!("error: {e}")))?;
    let findings = checker.map(|c| c.findings().to_vec()).unwrap_or_default();
    if opts.json {
        let mut v = json::to_json(&wave);
        if opts.check.is_some() {
            v["findings"] = amdpcode::sanitizer::findings_json(&findings);
        }
        out.push_str(&serde_json::to_string_pretty(&v).unwrap_or_default());
        out.push('\n');
    } else {
        out.push_str(&summary(&wave, steps));
        if opts.check.is_some() {
            out.push_str(&super::common::findings_text(&findings));
        }
    }
    Ok((out, findings.len()))
}

pub fn trace_line(
    isa: &amdpcode::isa::Isa,
    d: &amdpcode::wave::Decoded,
    before: &WaveState,
    after: &WaveState,
) -> String {
    let text = isa.print(d.encoded());
    let mut s = format!("{:06x}: {}", d.addr, text);
    let arch = after.arch;
    for c in 0..before.sgpr.len() as u32 {
        let (a, b) = (before.read_sgpr(c), after.read_sgpr(c));
        if a != b {
            s.push_str(&format!(
                "  {}: 0x{a:x} -> 0x{b:x}",
                amdpcode::wave::sgpr_name(arch, c)
            ));
        }
    }
    if before.scc != after.scc {
        s.push_str(&format!(
            "  scc: {} -> {}",
            before.scc as u8, after.scc as u8
        ));
    }
    for reg in 0..after.vgpr_rows() as u32 {
        let changed: Vec<String> = (0..after.wave_size)
            .filter(|&l| before.vgpr(l, reg) != after.vgpr(l, reg))
            .map(|l| format!("[{l}]=0x{:x}", after.vgpr(l, reg)))
            .collect();
        if !changed.is_empty() {
            s.push_str(&format!(
                "  {}{}",
                amdpcode::wave::row_name(reg),
                changed.join("")
            ));
        }
    }
    for (a, bytes) in after.written_ranges() {
        if before.read_memory(a, bytes.len()) != bytes {
            s.push_str(&format!("  mem[0x{a:x}]: {} bytes", bytes.len()));
        }
    }
    s.push('\n');
    s
}

fn summary(wave: &WaveState, steps: u64) -> String {
    let mut s = format!("executed {steps} instruction(s); pc = 0x{:x}\n", wave.pc);
    let n = amdpcode::wave::n_sgprs(wave.arch);
    for c in 0..n {
        let v = wave.read_sgpr(c);
        if v != 0 {
            s.push_str(&format!("s{c} = 0x{v:x}\n"));
        }
    }
    s.push_str(&format!(
        "vcc = 0x{:x}\nexec = 0x{:x}\nm0 = 0x{:x}\nscc = {}\n",
        wave.vcc() & wave.full_mask(),
        wave.exec(),
        wave.m0(),
        wave.scc as u8
    ));
    for reg in 0..wave.vgpr_rows() as u32 {
        let vals: Vec<u32> = (0..wave.wave_size).map(|l| wave.vgpr(l, reg)).collect();
        if vals.iter().any(|&x| x != 0) {
            let parts: Vec<String> = vals.iter().map(|x| format!("0x{x:x}")).collect();
            let name = amdpcode::wave::row_name(reg);
            s.push_str(&format!("{name} = [{}]\n", parts.join(", ")));
        }
    }
    for (a, bytes) in wave.written_ranges() {
        let h: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        s.push_str(&format!("mem[0x{a:x}] = {h}\n"));
    }
    s
}
