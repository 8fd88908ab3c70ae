//! The `equiv` and `spec diff` commands: argument handling, output text and exit codes (as
//! `diff(1)`: 0 equivalent, 1 different, 2 unknown or trouble).

use std::path::PathBuf;

use amdpcode::spec::{Arch, Spec};
use amdpcode::wave::Program;

use amdpcode::smt::diff::{DiffReport, Kind as DiffKind};
use amdpcode::smt::equiv::{self, Mode, Options, Verdict};
use amdpcode::smt::solver::Solver;

/// The `equiv` command's arguments.
pub struct EquivArgs {
    /// rdna1 .. rdna4, cdna1 .. cdna5 (cdna = cdna4), or a processor name such as gfx942.
    pub arch: String,
    /// 32 or 64 (default: 32 on RDNA, 64 on CDNA).
    pub wave: Option<u32>,
    /// Program A (llvm-mc syntax, or hex with `hex`).
    pub a: PathBuf,
    /// Program B.
    pub b: PathBuf,
    /// Outputs to compare.
    pub outputs: Option<String>,
    /// Outputs to leave out.
    pub ignore: Option<String>,
    /// random, prove or both.
    pub mode: String,
    /// Random states.
    pub samples: u32,
    /// Unrolling bound.
    pub unroll: u32,
    /// Print JSON.
    pub json: bool,
    /// The solver executable.
    pub solver: Option<PathBuf>,
    /// The programs are hex machine code.
    pub hex: bool,
    /// Solver time limit in milliseconds.
    pub timeout_ms: u64,
}

/// The text to print and the exit code.
pub struct CliResult {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// The exit code.
    pub code: i32,
}

fn trouble(msg: String) -> CliResult {
    CliResult {
        stdout: String::new(),
        stderr: format!("error: {msg}\n"),
        code: 2,
    }
}

/// Runs `amdpcode equiv`.
pub fn equiv(spec: &Spec, args: &EquivArgs) -> CliResult {
    let Some(arch) = Arch::from_name(&args.arch) else {
        return trouble(format!(
            "unknown arch `{}` (expected one of {})",
            args.arch,
            Arch::names()
        ));
    };
    let wave = args.wave.unwrap_or(arch.default_wave());
    if wave != 32 && wave != 64 {
        return trouble(format!("--wave {wave}: expected 32 or 64"));
    }
    if !arch.supports_wave(wave) {
        return trouble(format!("{} does not run wave{wave}", arch.name()));
    }
    let mode = match args.mode.as_str() {
        "random" => Mode::Random,
        "prove" => Mode::Prove,
        "both" => Mode::Both,
        m => return trouble(format!("--mode {m}: expected random, prove or both")),
    };
    let db = match spec.get(arch) {
        Ok(db) => db,
        Err(e) => return trouble(e.to_string()),
    };
    let isa = amdpcode::isa::Isa::new(db);
    let load = |p: &PathBuf| -> Result<Program, String> {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let r = if args.hex {
            Program::from_hex(&isa, &text)
        } else {
            Program::assemble(&isa, &text)
        };
        r.map_err(|e| format!("{}: {e}", p.display()))
    };
    let (a, b) = match (load(&args.a), load(&args.b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return trouble(e),
    };
    let parse = |s: &Option<String>| -> Result<Option<Vec<equiv::Out>>, String> {
        s.as_deref()
            .map(|l| equiv::parse_outputs(l, arch))
            .transpose()
    };
    let (outputs, ignore) = match (parse(&args.outputs), parse(&args.ignore)) {
        (Ok(o), Ok(i)) => (o, i.unwrap_or_default()),
        (Err(e), _) | (_, Err(e)) => return trouble(e),
    };
    let solver = match mode {
        Mode::Random => None,
        _ => match Solver::find(args.solver.as_deref()) {
            Ok(mut s) => {
                s.timeout_ms = args.timeout_ms;
                Some(s)
            }
            Err(e) => return trouble(e.to_string()),
        },
    };
    let opts = Options {
        wave,
        outputs,
        ignore,
        mode,
        samples: args.samples,
        unroll: args.unroll,
        solver,
        seed: 0x5eed,
    };
    let r = equiv::check(db, &a, &b, &opts);
    let code = match (r.verdict, r.translation_bug) {
        (_, true) => 2,
        (Verdict::Equivalent, _) => 0,
        (Verdict::Different, _) => 1,
        (Verdict::Unknown, _) => 2,
    };
    let mut stderr = String::new();
    if r.translation_bug {
        stderr.push_str(&format!("error: {}\n", r.reason));
    }
    let stdout = if args.json {
        format!(
            "{}\n",
            serde_json::to_string_pretty(&r.to_json()).unwrap_or_default()
        )
    } else {
        let mut s = String::new();
        let verdict = match r.verdict {
            Verdict::Equivalent if r.method == "proof" => "equivalent (proved)".to_string(),
            Verdict::Equivalent => format!(
                "equivalent on {} random states (not proved)",
                r.random_states.0
            ),
            Verdict::Different if r.method == "search" => {
                "different (witness found by random search after the solver gave up)".to_string()
            }
            Verdict::Different => format!("different ({})", r.method),
            Verdict::Unknown => "unknown".to_string(),
        };
        s.push_str(&format!("{verdict}\n"));
        s.push_str(&format!(
            "outputs: {}\n",
            r.outputs
                .iter()
                .map(|o| o.name())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        if !r.reason.is_empty() {
            s.push_str(&format!("reason: {}\n", r.reason));
        }
        for (k, (x, y)) in &r.differences {
            s.push_str(&format!("  {k}: A {x}  B {y}\n"));
        }
        if let Some(c) = r.counterexample_json() {
            s.push_str(if r.state_regs.is_some() {
                "counterexample (the registers the programs read and write, the rest zero; STATE.json, replay with `amdpcode run --state`):\n"
            } else {
                "counterexample (STATE.json; replay with `amdpcode run --state`):\n"
            });
            s.push_str(&serde_json::to_string_pretty(&c).unwrap_or_default());
            s.push('\n');
        }
        s
    };
    CliResult {
        stdout,
        stderr,
        code,
    }
}

/// Runs `amdpcode spec diff`.
pub fn spec_diff(
    spec: &Spec,
    from: &str,
    to: &str,
    insts: &[String],
    json: bool,
    solver: Option<PathBuf>,
    timeout_ms: u64,
) -> CliResult {
    let (Some(a), Some(b)) = (Arch::from_name(from), Arch::from_name(to)) else {
        return trouble(format!(
            "unknown arch in `{from} {to}` (expected one of {})",
            Arch::names()
        ));
    };
    let solver = match Solver::find(solver.as_deref()) {
        Ok(mut s) => {
            s.timeout_ms = timeout_ms;
            s
        }
        Err(e) => return trouble(e.to_string()),
    };
    let (da, db) = match (spec.get(a), spec.get(b)) {
        (Ok(da), Ok(db)) => (da, db),
        (Err(e), _) | (_, Err(e)) => return trouble(e.to_string()),
    };
    let report = amdpcode::smt::diff::spec_diff(da, db, insts, &solver);
    let stdout = if json {
        format!(
            "{}\n",
            serde_json::to_string_pretty(&report.to_json()).unwrap_or_default()
        )
    } else {
        diff_text(&report)
    };
    CliResult {
        stdout,
        stderr: String::new(),
        code: 0,
    }
}

/// The `spec stats --smt N` section: per arch, the ALU entries whose translation agrees with
/// the interpreter on N random states, and every entry not translated with the reason.
///
/// # Errors
/// No solver.
pub fn smt_stats(spec: &Spec, archs: &[Arch], samples: u32, json: bool) -> Result<String, String> {
    let solver = Solver::find(None).map_err(|e| e.to_string())?;
    let mut out = String::new();
    let mut all = serde_json::Map::new();
    for &arch in archs {
        let st = amdpcode::smt::alu::smt_stats(
            spec.get(arch).map_err(|e| e.to_string())?,
            &solver,
            samples,
        );
        if json {
            all.insert(
                arch.name().to_string(),
                serde_json::to_value(&st).unwrap_or_default(),
            );
            continue;
        }
        out.push_str(&format!(
            "{arch}: SMT translation agrees with the interpreter on {} of {} executing ALU entries ({:.1}%; {} random states each); {} not translated, {} mismatches, {} solver failures\n",
            st.agree,
            st.alu_executes,
            100.0 * st.agree as f64 / st.alu_executes.max(1) as f64,
            samples,
            st.unsupported.len(),
            st.mismatches.len(),
            st.solver_failures.len()
        ));
        for (i, r) in &st.unsupported {
            out.push_str(&format!("  NOSMT {i} {r}\n"));
        }
        for (i, r) in &st.mismatches {
            out.push_str(&format!("  SMT-MISMATCH {i} {r}\n"));
        }
        for (i, r) in &st.solver_failures {
            out.push_str(&format!("  SMT-SOLVER {i} {r}\n"));
        }
    }
    if json {
        out = format!("{}\n", serde_json::Value::Object(all));
    }
    Ok(out)
}

/// The text of a `spec diff` report: the totals line, then one line per instruction that
/// is not identical.
fn diff_text(report: &DiffReport) -> String {
    let t = report.totals();
    let (a, b) = report.arches;
    let mut s = format!(
        "{a} -> {b}: identical {}, equivalent {}, different {}, unknown {}, only in {a} {}, only in {b} {}\n",
        t[0], t[1], t[2], t[3], t[4], t[5]
    );
    for (n, k) in &report.entries {
        match k {
            DiffKind::Equivalent => s.push_str(&format!("  EQUIVALENT {n}\n")),
            DiffKind::Different { input, outputs } => {
                let i: Vec<String> = input.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let o: Vec<String> = outputs
                    .iter()
                    .map(|(k, (x, y))| format!("{k}: {x} vs {y}"))
                    .collect();
                s.push_str(&format!(
                    "  DIFFERENT {n} at {} -> {}\n",
                    i.join(","),
                    o.join("; ")
                ));
            }
            DiffKind::Unknown(r) => s.push_str(&format!("  UNKNOWN {n}: {r}\n")),
            _ => {}
        }
    }
    s
}
