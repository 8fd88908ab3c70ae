//! What every subcommand shares: the failure type, loading the spec, naming an arch or an
//! instruction, printing, and exit statuses.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use amdpcode::diag::Diagnostic;
use amdpcode::frontend;
use amdpcode::spec::{self, Arch, Locate, Spec};

/// A failure the CLI reports: a message, exit code 1.
pub struct Failure(pub String);

impl From<spec::SpecError> for Failure {
    fn from(e: spec::SpecError) -> Failure {
        Failure(format!("error: {e}"))
    }
}

pub fn parse_arch(name: &str) -> Result<Arch, Failure> {
    Arch::from_name(name).ok_or_else(|| {
        Failure(format!(
            "error: unknown arch `{name}` (expected one of {}, or a processor name such as gfx942)",
            Arch::names()
        ))
    })
}

/// The database of `arch`, or the error saying it has none yet.
pub fn arch_db(spec: &Spec, arch: Arch) -> Result<&amdpcode::spec::SpecDb, Failure> {
    spec.get(arch).map_err(|e| Failure(format!("error: {e}")))
}

/// The spec, kept for the rest of the process: the CLI exits after one command, and freeing
/// the databases would only cost time at exit.
pub fn load_spec(cli_spec: &Option<PathBuf>, offline: bool) -> Result<&'static Spec, Failure> {
    let path = spec::find_wheel(&Locate {
        explicit: cli_spec.clone(),
        offline,
    })?;
    Ok(Box::leak(Box::new(Spec::load(&path)?)))
}

pub fn color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

pub fn print_out(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = out.write_all(text.as_bytes());
    Ok(())
}

pub fn exit_with(r: super::smt::CliResult) -> ! {
    print!("{}", r.stdout);
    eprint!("{}", r.stderr);
    let _ = std::io::stdout().flush();
    std::process::exit(r.code)
}

/// Prints `text`; with sanitizer findings, exits with status 3 (so CI scripts can gate on it).
pub fn exit_on_findings(text: &str, findings: usize) -> Result<(), Failure> {
    if findings > 0 {
        print_out(text)?;
        let _ = std::io::stdout().flush();
        std::process::exit(3);
    }
    Ok(())
}

pub fn find_inst<'a>(
    spec: &'a Spec,
    arch: Arch,
    name: &str,
) -> Result<&'a amdpcode::spec::Instruction, Failure> {
    arch_db(spec, arch)?;
    lookup(spec, arch, name).ok_or_else(|| {
        Failure(format!(
            "error: unknown instruction `{name}` for {arch} (see `amdpcode spec list --arch {arch}`)"
        ))
    })
}

/// An instruction by name, alias, or assembler alias (`S_ADD_U32` is `S_ADD_CO_U32` on rdna4).
pub fn lookup<'a>(
    spec: &'a Spec,
    arch: Arch,
    name: &str,
) -> Option<&'a amdpcode::spec::Instruction> {
    let db = spec.get(arch).ok()?;
    db.get(name)
        .or_else(|| amdpcode::isa::tables::mnemonic_alias(arch, name).and_then(|c| db.get(&c)))
}

pub fn render_front_error(e: frontend::FrontError) -> Failure {
    let mut d: Diagnostic = e.diagnostic;
    if d.source.is_empty() {
        let (l, c) = d.line_col();
        return Failure(format!(
            "error[{}]: {}:{l}:{c}: {}",
            e.stage.name(),
            d.origin,
            d.message
        ));
    }
    d.message = format!("[{}] {}", e.stage.name(), d.message);
    Failure(d.render(color()))
}

/// Where the spec comes from: the global `--spec` and `--offline` options.
pub struct Wheel {
    pub spec: Option<PathBuf>,
    pub offline: bool,
}

impl Wheel {
    pub fn load(&self) -> Result<&'static Spec, Failure> {
        load_spec(&self.spec, self.offline)
    }
}

/// Sanitizer findings as text, one line each, and a count line.
pub fn findings_text(findings: &[amdpcode::sanitizer::Finding]) -> String {
    let mut s = String::new();
    for f in findings {
        s.push_str(&f.to_string());
        s.push('\n');
    }
    s.push_str(&format!("sanitizer: {} finding(s)\n", findings.len()));
    s
}
