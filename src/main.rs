//! The `amdpcode` command line: parses arguments, calls the library, renders diagnostics and
//! sets the exit code. It holds no semantics of its own.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::json;

use amdpcode::diag::Diagnostic;
use amdpcode::ir::{self, OperandWidths};
use amdpcode::spec::{self, Arch, Locate, Spec};
use amdpcode::syntax;
use amdpcode::{exec, frontend, inputs, jit};

#[derive(Parser)]
#[command(
    name = "amdpcode",
    version,
    about = "Execute AMD GPU ISA pseudocode as AMD wrote it"
)]
struct Cli {
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
    Equiv {
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
    },
    /// The instruction database.
    Spec {
        #[command(subcommand)]
        command: SpecCommand,
    },
    /// Print an instruction's pseudocode, syntax tree or typed IR.
    Show {
        /// rdna1 .. rdna4, cdna1 .. cdna5 (cdna = cdna4), or a processor name such as gfx942.
        #[arg(long)]
        arch: String,
        /// The instruction, e.g. S_WQM_B64.
        inst: String,
        /// Print the syntax tree.
        #[arg(long, conflicts_with = "ir")]
        ast: bool,
        /// Print the typed IR.
        #[arg(long)]
        ir: bool,
    },
    /// Differential fuzzing: random programs under every engine, compared on the final state.
    Fuzz {
        /// Programs to run.
        #[arg(long, default_value_t = 10_000)]
        programs: u64,
        /// The seed (program i of a seed is the same on every machine).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The engines to compare, the first being the reference: interp, jit (a kernel per
        /// instruction), jit-block (straight-line runs compiled into one function at once).
        #[arg(long, default_value = "interp,jit,jit-block")]
        engines: String,
    },
    /// Parse and type-check pseudocode from a file (operands are 32-bit unless typed).
    CheckText {
        /// The file.
        file: PathBuf,
    },
    /// Execute one instruction (or pseudocode text, or a batch of cases) and print every
    /// state element it writes.
    Eval {
        /// rdna1 .. rdna4, cdna1 .. cdna5 (cdna = cdna4) or a processor name (required with an instruction name).
        #[arg(long)]
        arch: Option<String>,
        /// The instruction, e.g. S_WQM_B64.
        inst: Option<String>,
        /// Run pseudocode from this file instead of an instruction (operands 32-bit unless typed).
        #[arg(long, conflicts_with_all = ["inst", "batch"])]
        text: Option<PathBuf>,
        /// With --text: run the text once per active lane, like a vector instruction.
        #[arg(long, requires = "text")]
        vector: bool,
        /// Run the JSON Lines cases of this file ('-' for standard input).
        #[arg(long, conflicts_with = "inst")]
        batch: Option<PathBuf>,
        /// Inputs, e.g. S0=0x1f,S1=-1,SCC=1,EXEC=0xff or S0=[1,2,3] per lane; repeatable.
        #[arg(long = "set")]
        set: Vec<String>,
        /// Wave size.
        #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(32..=64))]
        wave: u32,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// The execution engine: the interpreter, the Cranelift JIT, or the JIT with a
        /// fallback to the interpreter for entries it cannot compile.
        #[arg(long, default_value = "interp", value_parser = ["interp", "jit", "auto"])]
        engine: String,
    },
    /// Compile instructions with the Cranelift JIT: dump one, or pre-compile a whole arch.
    Jit {
        /// rdna1 .. rdna4, cdna1 .. cdna5 (cdna = cdna4), or a processor name such as gfx942.
        #[arg(long)]
        arch: String,
        /// The instruction (omit with --all).
        inst: Option<String>,
        /// Print the IR, the Cranelift IR and the machine-code size.
        #[arg(long)]
        dump: bool,
        /// Compile every ALU entry of the arch and report.
        #[arg(long, conflicts_with = "inst")]
        all: bool,
    },
    /// Run a kernel launch: a LAUNCH.json, a batch of them, or a code object with
    /// --kernel/--grid/--block/--arg (see docs/dispatch.md).
    Dispatch {
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
    },
    /// Run a program of machine instructions on a modelled wavefront.
    Run {
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
    },
    /// Assemble LLVM-syntax AMDGPU assembly into machine code.
    Asm {
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
    },
    /// Generate the ISA reference site: a page per instruction per generation with AMD's
    /// pseudocode, encodings, examples computed by the interpreter and cross-generation
    /// differences (docs/site.md).
    Doc {
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
    },
    /// Disassemble machine code into LLVM-syntax assembly.
    Disasm {
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
    },
}

#[derive(Subcommand)]
enum SpecCommand {
    /// Front-end coverage: entries parsed, typed and lowered, with every failure.
    Stats {
        /// Only this arch.
        #[arg(long)]
        arch: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Random operand sets each ALU entry runs on for the `executes` count (0 skips).
        #[arg(long, default_value_t = 100)]
        samples: u32,
        /// Also check the SMT translation against the interpreter on this many random
        /// states per ALU entry (needs z3), listing the entries it does not translate.
        #[arg(long, default_value_t = 0)]
        smt: u32,
    },
    /// How every instruction is executed: AMD's text, an erratum, modelled natively,
    /// approximated or not executable.
    Fidelity {
        /// Only this arch.
        #[arg(long)]
        arch: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// The instruction database of one arch.
    List {
        /// rdna1 .. rdna4, cdna1 .. cdna5 (cdna = cdna4), or a processor name such as gfx942.
        #[arg(long)]
        arch: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Download the pinned wheel into the user cache and check its sha256.
    Fetch,
    /// Cross-generation semantic diff of the ALU instructions two arches share.
    Diff {
        /// The first arch.
        from: String,
        /// The second arch.
        to: String,
        /// Only these instructions.
        insts: Vec<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// The SMT solver (default: z3 on PATH).
        #[arg(long)]
        solver: Option<PathBuf>,
        /// Solver time limit per instruction, in milliseconds.
        #[arg(long, default_value_t = 5000)]
        timeout: u64,
    },
}

/// A failure the CLI reports: a message, exit code 1.
struct Failure(String);

impl From<spec::SpecError> for Failure {
    fn from(e: spec::SpecError) -> Failure {
        Failure(format!("error: {e}"))
    }
}

fn main() -> ExitCode {
    amdpcode::wave::mark_main();
    amdpcode::wave::prepare_heap();
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(msg)) => {
            eprintln!("{msg}");
            ExitCode::FAILURE
        }
    }
}

fn parse_arch(name: &str) -> Result<Arch, Failure> {
    Arch::from_name(name).ok_or_else(|| {
        Failure(format!(
            "error: unknown arch `{name}` (expected one of {}, or a processor name such as gfx942)",
            Arch::names()
        ))
    })
}

/// The database of `arch`, or the error saying it has none yet.
fn arch_db(spec: &Spec, arch: Arch) -> Result<&amdpcode::spec::SpecDb, Failure> {
    spec.get(arch).map_err(|e| Failure(format!("error: {e}")))
}

/// The spec, kept for the rest of the process: the CLI exits after one command, and freeing
/// the databases would only cost time at exit.
fn load_spec(cli_spec: &Option<PathBuf>, offline: bool) -> Result<&'static Spec, Failure> {
    let path = spec::find_wheel(&Locate {
        explicit: cli_spec.clone(),
        offline,
    })?;
    Ok(Box::leak(Box::new(Spec::load(&path)?)))
}

fn color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

fn print_out(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = out.write_all(text.as_bytes());
    Ok(())
}

fn exit_with(r: amdpcode::smt::cli::CliResult) -> ! {
    print!("{}", r.stdout);
    eprint!("{}", r.stderr);
    let _ = std::io::stdout().flush();
    std::process::exit(r.code)
}

/// Prints `text`; with sanitizer findings, exits with status 3 (so CI scripts can gate on it).
fn exit_on_findings(text: &str, findings: usize) -> Result<(), Failure> {
    if findings > 0 {
        print_out(text)?;
        let _ = std::io::stdout().flush();
        std::process::exit(3);
    }
    Ok(())
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Dispatch {
            input,
            batch,
            engine,
            json,
            trace,
            check,
            kernel,
            grid,
            block,
            args,
            print,
            threads,
        } => {
            let spec = load_spec(&cli.spec, cli.offline)?;
            let opts = amdpcode::dispatch::cli::DispatchOptions {
                threads: threads.map_or_else(amdpcode::dispatch::cli::all_cores, |n| n as usize),
                engine,
                json,
                trace,
                input,
                batch,
                kernel,
                grid,
                block,
                args,
                print,
                check: check
                    .as_deref()
                    .and_then(amdpcode::sanitizer::options_from_flag),
            };
            let (text, findings) =
                amdpcode::dispatch::cli::run_checked(spec, &opts).map_err(|e| Failure(e.0))?;
            exit_on_findings(&text, findings)?;
            print_out(&text)
        }
        Command::Equiv {
            arch,
            wave,
            a,
            b,
            outputs,
            ignore,
            mode,
            samples,
            unroll,
            json,
            solver,
            hex,
            timeout,
        } => {
            let spec = load_spec(&cli.spec, cli.offline).map_err(|f| Failure(f.0))?;
            let args = amdpcode::smt::cli::EquivArgs {
                arch,
                wave,
                a,
                b,
                outputs,
                ignore,
                mode,
                samples,
                unroll,
                json,
                solver,
                hex,
                timeout_ms: timeout,
            };
            exit_with(amdpcode::smt::cli::equiv(spec, &args))
        }
        Command::Spec {
            command:
                SpecCommand::Diff {
                    from,
                    to,
                    insts,
                    json,
                    solver,
                    timeout,
                },
        } => {
            let spec = load_spec(&cli.spec, cli.offline)?;
            exit_with(amdpcode::smt::cli::spec_diff(
                spec, &from, &to, &insts, json, solver, timeout,
            ))
        }
        Command::Run {
            arch,
            wave,
            engine,
            state,
            hex,
            trace,
            json,
            check,
            program,
        } => {
            let spec = load_spec(&cli.spec, cli.offline)?;
            let opts = amdpcode::wave::cli::RunOptions {
                arch,
                wave,
                engine,
                state,
                hex,
                trace,
                json,
                program,
                check: check
                    .as_deref()
                    .and_then(amdpcode::sanitizer::options_from_flag),
            };
            let (text, findings) =
                amdpcode::wave::cli::run_checked(spec, &opts).map_err(|e| Failure(e.0))?;
            exit_on_findings(&text, findings)?;
            print_out(&text)
        }
        Command::Asm {
            arch,
            file,
            show_encoding,
            output,
        } => {
            let opts = amdpcode::isa::cli::AsmOptions {
                arch,
                input: file,
                show_encoding,
                output,
            };
            let wheel = amdpcode::isa::cli::find_wheel(cli.spec.clone(), cli.offline)
                .map_err(|e| Failure(e.0))?;
            let text = amdpcode::isa::cli::run_asm(&opts, &wheel).map_err(|e| Failure(e.0))?;
            print_out(&text)
        }
        Command::Disasm {
            arch,
            hex,
            file,
            show_encoding,
            fields,
        } => {
            let opts = amdpcode::isa::cli::DisasmOptions {
                arch,
                hex,
                input: file,
                show_encoding,
                fields,
            };
            let wheel = amdpcode::isa::cli::find_wheel(cli.spec.clone(), cli.offline)
                .map_err(|e| Failure(e.0))?;
            let text = amdpcode::isa::cli::run_disasm(&opts, &wheel).map_err(|e| Failure(e.0))?;
            print_out(&text)
        }
        Command::Spec {
            command: SpecCommand::Fetch,
        } => {
            let path = spec::fetch(None)?;
            println!("{}", path.display());
            Ok(())
        }
        Command::Spec {
            command:
                SpecCommand::Stats {
                    arch,
                    json,
                    samples,
                    smt,
                },
        } => {
            let spec = load_spec(&cli.spec, cli.offline)?;
            let archs = match arch {
                Some(a) => vec![parse_arch(&a)?],
                None => spec.arches(),
            };
            if smt > 0 {
                let text = amdpcode::smt::cli::smt_stats(spec, &archs, smt, json)
                    .map_err(|e| Failure(format!("error: {e}")))?;
                print_out(&text)?;
            }
            stats(spec, &archs, json, samples)
        }
        Command::Spec {
            command: SpecCommand::Fidelity { arch, json },
        } => {
            let spec = load_spec(&cli.spec, cli.offline)?;
            let archs = match arch {
                Some(a) => vec![parse_arch(&a)?],
                None => spec.arches(),
            };
            fidelity(spec, &archs, json)
        }
        Command::Spec {
            command: SpecCommand::List { arch, json },
        } => {
            let arch = parse_arch(&arch)?;
            let spec = load_spec(&cli.spec, cli.offline)?;
            list(spec, arch, json)
        }
        Command::Show {
            arch,
            inst,
            ast,
            ir,
        } => {
            let arch = parse_arch(&arch)?;
            let spec = load_spec(&cli.spec, cli.offline)?;
            show(spec, arch, &inst, ast, ir)
        }
        Command::CheckText { file } => check_text(&file),
        Command::Doc {
            out,
            arch,
            prove,
            solver,
            timeout,
        } => {
            let archs = arch
                .iter()
                .map(|a| parse_arch(a))
                .collect::<Result<Vec<_>, _>>()?;
            let spec = load_spec(&cli.spec, cli.offline)?;
            let opts = amdpcode::doc::Options {
                out,
                archs,
                prove,
                solver,
                timeout_ms: timeout,
            };
            let s =
                amdpcode::doc::build(spec, &opts).map_err(|e| Failure(format!("error: {e}")))?;
            print_out(&format!(
                "wrote {} pages ({} instructions, {} worked examples) to {} in {:.1} s \
                 (cross-generation comparisons: {} pairs with different text, {:.1} s)\n",
                s.pages,
                s.instruction_pages,
                s.examples,
                opts.out.display(),
                s.seconds,
                s.compared,
                s.diff_seconds
            ))
        }
        Command::Fuzz {
            programs,
            seed,
            engines,
        } => {
            let spec = load_spec(&cli.spec, cli.offline)?;
            let config = amdpcode::fuzz::Config {
                seed,
                programs,
                engines: engines.split(',').map(str::to_string).collect(),
                ..Default::default()
            };
            let start = std::time::Instant::now();
            let mut shown = 0;
            let report = amdpcode::fuzz::run(spec, &config, &mut |r| {
                // Mismatches as they are found (a long run may be stopped early).
                for m in &r.mismatches[shown..] {
                    eprintln!(
                        "mismatch: program {} ({} wave{}): {}",
                        m.index, m.arch, m.wave_size, m.difference
                    );
                }
                shown = r.mismatches.len();
                if r.programs % 10_000 == 0 {
                    eprintln!(
                        "{} programs, {} mismatches ({:.0} s)",
                        r.programs,
                        r.mismatches.len(),
                        start.elapsed().as_secs_f64()
                    );
                }
            })
            .map_err(|e| Failure(format!("error: {e}")))?;
            print_out(&amdpcode::fuzz::summary(&report))?;
            if report.mismatches.is_empty() {
                Ok(())
            } else {
                Err(Failure(format!("{} mismatch(es)", report.mismatches.len())))
            }
        }
        Command::Jit {
            arch,
            inst,
            dump,
            all,
        } => {
            let arch = parse_arch(&arch)?;
            let spec = load_spec(&cli.spec, cli.offline)?;
            jit_command(spec, arch, inst.as_deref(), dump, all)
        }
        Command::Eval {
            arch,
            inst,
            text,
            vector,
            batch,
            set,
            wave,
            json,
            engine,
        } => {
            let mut values = Vec::new();
            for s in &set {
                values.extend(
                    inputs::parse_assignments(s)
                        .map_err(|e| Failure(format!("error: --set: {e}")))?,
                );
            }
            if let Some(batch) = batch {
                let spec = load_spec(&cli.spec, cli.offline)?;
                return eval_batch(spec, &batch, &engine);
            }
            let prepared = match (&text, &inst) {
                (Some(file), _) => {
                    let src = amdpcode::sniff::read_text(file, "pseudocode text", false)
                        .map_err(|e| Failure(format!("error: {e}")))?;
                    let origin = file.display().to_string();
                    let c =
                        frontend::compile_text(&origin, "TEXT", &src, &OperandWidths::uniform(32))
                            .map_err(render_front_error)?;
                    let enc = if vector { "VOP3" } else { "SOP2" };
                    (exec::Prepared::new(None, enc, c.function, None), src)
                }
                (None, Some(name)) => {
                    let arch = parse_arch(arch.as_deref().ok_or_else(|| {
                        Failure("error: --arch is required with an instruction".into())
                    })?)?;
                    let spec = load_spec(&cli.spec, cli.offline)?;
                    let inst = find_inst(spec, arch, name)?;
                    let p = exec::prepare(arch, inst).map_err(render_front_error)?;
                    let text = frontend::entry_text(arch, inst)
                        .map(|t| t.0)
                        .unwrap_or_default();
                    (p, text)
                }
                (None, None) => return Err(Failure(
                    "error: name an instruction (with --arch), or give --text FILE or --batch FILE"
                        .into(),
                )),
            };
            let (p, src) = prepared;
            if wave != 32 && wave != 64 {
                return Err(Failure(format!(
                    "error: --wave must be 32 or 64, not {wave}"
                )));
            }
            let mut m = exec::Machine::new(wave);
            for (name, v) in values {
                m.values.insert(name, v);
            }
            let jit = jit::Jit::new().map_err(|e| Failure(format!("error: {e}")))?;
            let out = run_engine(&engine, &jit, &p, &mut m)
                .map_err(|e| Failure(format!("error: {}", e.describe(&p, &src))))?;
            if json {
                let v = json!({ "outputs": inputs::outputs_json(&out.values) });
                print_out(&format!("{v}\n"))
            } else {
                let mut text = String::new();
                for (name, v) in &out.values {
                    text.push_str(&format!("{name} = {}\n", inputs::hex(v)));
                }
                print_out(&text)
            }
        }
    }
}

fn find_inst<'a>(
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
fn lookup<'a>(spec: &'a Spec, arch: Arch, name: &str) -> Option<&'a amdpcode::spec::Instruction> {
    let db = spec.get(arch).ok()?;
    db.get(name)
        .or_else(|| amdpcode::isa::tables::mnemonic_alias(arch, name).and_then(|c| db.get(&c)))
}

/// Runs JSON Lines cases; a bad case yields an `error` line and never stops the batch.
fn eval_batch(spec: &Spec, path: &PathBuf, engine: &str) -> Result<(), Failure> {
    use std::collections::HashMap;
    use std::io::BufRead;
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let what = "a JSON Lines batch of cases";
        if path.is_dir() {
            return Err(Failure(format!(
                "error: {}: a directory, not {what}",
                path.display()
            )));
        }
        let mut f = std::fs::File::open(path)
            .map_err(|e| Failure(format!("error: cannot read {}: {e}", path.display())))?;
        // The first bytes say whether this is text at all (a case per line follows).
        let mut head = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(&mut f, 256), &mut head)
            .map_err(|e| Failure(format!("error: cannot read {}: {e}", path.display())))?;
        // A UTF-8 sequence cut at the end of the head is still text.
        let sniffed = match std::str::from_utf8(&head) {
            Err(e) if e.error_len().is_none() => &head[..e.valid_up_to()],
            _ => &head[..],
        };
        let whole = head.len() < 256;
        let kind = amdpcode::sniff::content(sniffed);
        if matches!(
            kind,
            amdpcode::sniff::Content::Elf | amdpcode::sniff::Content::Binary
        ) || (whole && kind == amdpcode::sniff::Content::Empty)
        {
            let name = path.display().to_string();
            return Err(Failure(format!(
                "error: {}",
                amdpcode::sniff::not_a(&name, what, &head)
            )));
        }
        Box::new(std::io::BufReader::new(std::io::Read::chain(
            std::io::Cursor::new(head),
            f,
        )))
    };
    let mut cache: Cache = HashMap::new();
    let jit = jit::Jit::new().map_err(|e| Failure(format!("error: {e}")))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (n, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| Failure(format!("error: reading {}: {e}", path.display())))?;
        if line.trim().is_empty() {
            continue;
        }
        let result = eval_case(spec, &line, &mut cache, &jit, engine)
            .map_err(|e| format!("line {}: {e}", n + 1));
        let v = match result {
            Ok(values) => json!({ "outputs": inputs::outputs_json(&values) }),
            Err(e) => json!({ "error": e }),
        };
        if writeln!(out, "{v}").is_err() {
            return Ok(());
        }
    }
    let _ = out.flush();
    Ok(())
}

type Cache = std::collections::HashMap<(Arch, String), Result<Entry, String>>;

/// A batch cache entry: the prepared instruction, its text, and its kernel once compiled.
struct Entry {
    prepared: exec::Prepared,
    text: String,
    kernel: Option<Result<jit::Kernel, String>>,
}

/// Why running an instruction failed.
enum RunError {
    Exec(amdpcode::interp::ExecError),
    Jit(String),
}

impl RunError {
    fn describe(&self, p: &exec::Prepared, text: &str) -> String {
        match self {
            RunError::Exec(e) => exec::describe_error(p, text, e),
            RunError::Jit(m) => format!("{}: {m}", p.name),
        }
    }
}

fn run_engine(
    engine: &str,
    jit: &jit::Jit,
    p: &exec::Prepared,
    m: &mut exec::Machine,
) -> Result<exec::Outputs, RunError> {
    if engine == "interp" {
        return exec::run_interp(p, m).map_err(RunError::Exec);
    }
    match jit.compile(p) {
        Ok(k) => k.run(m).map_err(RunError::Exec),
        Err(e) if engine == "auto" => {
            let _ = e;
            exec::run_interp(p, m).map_err(RunError::Exec)
        }
        Err(e) => Err(RunError::Jit(e.to_string())),
    }
}

fn eval_case(
    spec: &Spec,
    line: &str,
    cache: &mut Cache,
    jit: &jit::Jit,
    engine: &str,
) -> Result<Vec<(String, amdpcode::interp::RegValue)>, String> {
    let case: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let arch_name = case["arch"].as_str().ok_or("missing \"arch\"")?;
    let arch = Arch::from_name(arch_name).ok_or_else(|| format!("unknown arch `{arch_name}`"))?;
    let inst_name = case["inst"].as_str().ok_or("missing \"inst\"")?;
    let wave = match &case["wave"] {
        serde_json::Value::Null => 32,
        v => match v.as_u64() {
            Some(32) => 32,
            Some(64) => 64,
            _ => return Err(format!("\"wave\" must be 32 or 64, not {v}")),
        },
    };
    spec.get(arch).map_err(|e| e.to_string())?;
    let key = (arch, inst_name.to_ascii_uppercase());
    let entry = cache.entry(key).or_insert_with(|| {
        let inst = lookup(spec, arch, inst_name)
            .ok_or_else(|| format!("unknown instruction `{inst_name}` for {arch}"))?;
        let text = frontend::entry_text(arch, inst)
            .map(|t| t.0)
            .unwrap_or_default();
        exec::prepare(arch, inst)
            .map(|p| Entry {
                prepared: p,
                text,
                kernel: None,
            })
            .map_err(|e| e.diagnostic.summary())
    });
    let entry = entry.as_mut().map_err(|e| e.clone())?;
    let mut m = exec::Machine::new(wave);
    if let Some(set) = case["set"].as_object() {
        for (name, v) in set {
            let v = inputs::json_value(v).map_err(|e| format!("set {name}: {e}"))?;
            m.values.insert(name.clone(), v);
        }
    }
    let p = &entry.prepared;
    let text = &entry.text;
    let out = if engine == "interp" {
        exec::run_interp(p, &mut m).map_err(|e| exec::describe_error(p, text, &e))?
    } else {
        let kernel = entry
            .kernel
            .get_or_insert_with(|| jit.compile(p).map_err(|e| e.to_string()));
        match kernel {
            Ok(k) => k
                .run(&mut m)
                .map_err(|e| exec::describe_error(p, text, &e))?,
            Err(_) if engine == "auto" => {
                exec::run_interp(p, &mut m).map_err(|e| exec::describe_error(p, text, &e))?
            }
            Err(e) => return Err(format!("{}: {e}", p.name)),
        }
    };
    Ok(out.values)
}

fn jit_command(
    spec: &Spec,
    arch: Arch,
    inst: Option<&str>,
    dump: bool,
    all: bool,
) -> Result<(), Failure> {
    let jit = jit::Jit::new().map_err(|e| Failure(format!("error: {e}")))?;
    let jit = if dump { jit.with_disasm() } else { jit };
    if all {
        let start = std::time::Instant::now();
        let (mut ok, mut total, mut bytes) = (0, 0, 0);
        let mut text = String::new();
        for i in arch_db(spec, arch)?.with_pcode() {
            if !exec::ALU_ENCODINGS.contains(&i.encoding.as_str()) {
                continue;
            }
            total += 1;
            match exec::prepare(arch, i) {
                Err(e) => text.push_str(&format!("  {}: {}\n", i.name, e.diagnostic.summary())),
                Ok(p) => match jit.compile(&p) {
                    Ok(k) => {
                        ok += 1;
                        bytes += k.code_size;
                    }
                    Err(e) => text.push_str(&format!("  {}: {e}\n", i.name)),
                },
            }
        }
        text.push_str(&format!(
            "{arch}: compiled {ok} of {total} ALU entries, {bytes} bytes of machine code, in {:.2?}\n",
            start.elapsed()
        ));
        return print_out(&text);
    }
    let name = inst.ok_or_else(|| Failure("error: name an instruction, or give --all".into()))?;
    let i = find_inst(spec, arch, name)?;
    let p = exec::prepare(arch, i).map_err(render_front_error)?;
    let k = jit
        .compile(&p)
        .map_err(|e| Failure(format!("error: {arch}:{}: {e}", i.name)))?;
    let mut text = format!("{}: {} bytes of machine code\n", i.name, k.code_size);
    if dump {
        text.push_str("\n== IR (optimised, as compiled)\n");
        text.push_str(&amdpcode::ir::print_function(&amdpcode::ir::opt::optimize(
            &p.function,
        )));
        text.push_str("\n== Cranelift IR\n");
        text.push_str(&k.clif);
        text.push_str("\n== Machine code\n");
        text.push_str(&k.asm);
    }
    print_out(&text)
}

fn stats(spec: &Spec, archs: &[Arch], json: bool, samples: u32) -> Result<(), Failure> {
    let mut all = serde_json::Map::new();
    let mut text = String::new();
    for &arch in archs {
        let db = arch_db(spec, arch)?;
        let s = frontend::arch_stats(db);
        let alu = (samples > 0).then(|| exec::alu_stats(db, samples));
        if json {
            let mut v = serde_json::to_value(&s).map_err(|e| Failure(format!("error: {e}")))?;
            if let (Some(alu), Some(obj)) = (&alu, v.as_object_mut()) {
                let a = serde_json::to_value(alu).map_err(|e| Failure(format!("error: {e}")))?;
                if let Some(a) = a.as_object() {
                    obj.extend(a.clone());
                }
                let (n, fails) = jit::coverage(db);
                obj.insert("jit".into(), json!(n));
                obj.insert(
                    "jit_failures".into(),
                    json!(fails
                        .iter()
                        .map(|(i, e)| json!({"inst": i, "error": e}))
                        .collect::<Vec<_>>()),
                );
            }
            all.insert(arch.name().to_string(), v);
            continue;
        }
        if let Some(alu) = &alu {
            text.push_str(&format!(
                "{arch}: ALU entries {}, execute on {} random operand sets: {} ({:.1}%), approximate {}\n",
                alu.alu_total,
                alu.samples,
                alu.executes,
                100.0 * alu.executes as f64 / alu.alu_total.max(1) as f64,
                alu.approximate.len()
            ));
            for f in &alu.exec_failures {
                text.push_str(&format!("  NOEXEC {} {}\n", f.inst, f.error));
            }
            let (n, fails) = jit::coverage(db);
            text.push_str(&format!(
                "{arch}: the JIT compiles {n} of {} ALU entries\n",
                alu.alu_total
            ));
            for (i, e) in fails {
                text.push_str(&format!("  NOJIT {i} {e}\n"));
            }
        }
        let c = &s.counts;
        let pct = |n: usize| 100.0 * n as f64 / c.total.max(1) as f64;
        text.push_str(&format!(
            "{arch}: {} entries, parsed {} ({:.1}%), typed {} ({:.1}%), lowered {} ({:.1}%), errata {}\n",
            c.total,
            c.parsed,
            pct(c.parsed),
            c.typed,
            pct(c.typed),
            c.lowered,
            pct(c.lowered),
            c.errata
        ));
        for (enc, e) in &s.encodings {
            text.push_str(&format!(
                "  {enc:<10} total {:>4}  parsed {:>4}  typed {:>4}  lowered {:>4}  errata {:>3}\n",
                e.total, e.parsed, e.typed, e.lowered, e.errata
            ));
        }
        for f in &s.failures {
            text.push_str(&format!(
                "  FAIL {} ({}) [{}] {}\n",
                f.inst,
                f.encoding,
                f.stage.name(),
                f.error
            ));
        }
    }
    if json {
        let v = json!({ "archs": all });
        text = serde_json::to_string_pretty(&v).map_err(|e| Failure(format!("error: {e}")))?;
        text.push('\n');
    }
    print_out(&text)
}

/// `spec fidelity`: every instruction with how it is executed, then totals per arch.
fn fidelity(spec: &Spec, archs: &[Arch], json: bool) -> Result<(), Failure> {
    use amdpcode::wave::fidelity;
    let mut text = String::new();
    let mut out = Vec::new();
    for &arch in archs {
        let rows = fidelity::report(arch_db(spec, arch)?);
        let totals = fidelity::totals(&rows);
        if json {
            let t: serde_json::Map<String, serde_json::Value> = totals
                .iter()
                .map(|(h, n)| (h.name().to_string(), json!(n)))
                .collect();
            out.push(
                json!({"arch": arch.name(), "instructions": rows.len(), "totals": t, "rows": rows}),
            );
            continue;
        }
        for r in &rows {
            text.push_str(&format!(
                "{arch:<6} {:<44} {:<15} {}\n",
                r.inst,
                r.how.name(),
                r.detail
            ));
        }
        let t: Vec<String> = totals
            .iter()
            .map(|(h, n)| format!("{} {n}", h.name()))
            .collect();
        text.push_str(&format!(
            "{arch}: {} instructions: {}\n",
            rows.len(),
            t.join(", ")
        ));
    }
    if json {
        text = serde_json::to_string_pretty(&out).map_err(|e| Failure(format!("error: {e}")))?;
        text.push('\n');
    }
    print_out(&text)
}

fn list(spec: &Spec, arch: Arch, json: bool) -> Result<(), Failure> {
    let db = arch_db(spec, arch)?;
    if json {
        let items: Vec<_> = db
            .instructions()
            .iter()
            .map(|i| {
                json!({
                    "inst": i.name,
                    "encoding": i.encoding,
                    "opcode": i.opcode,
                    "aliases": i.aliases,
                    "operands": i.operands,
                    "has_pcode": i.pcode.is_some(),
                })
            })
            .collect();
        let mut text =
            serde_json::to_string_pretty(&items).map_err(|e| Failure(format!("error: {e}")))?;
        text.push('\n');
        return print_out(&text);
    }
    let mut text = String::new();
    for i in db.instructions() {
        let ops: Vec<String> = i
            .operands
            .iter()
            .map(|o| format!("{}:{}", o.field, o.bits))
            .collect();
        text.push_str(&format!(
            "{:<8} {:>4}  {:<40} {}\n",
            i.encoding,
            i.opcode,
            i.name,
            ops.join(" ")
        ));
    }
    print_out(&text)
}

fn show(spec: &Spec, arch: Arch, name: &str, ast: bool, ir: bool) -> Result<(), Failure> {
    let inst = find_inst(spec, arch, name)?;
    if !ast && !ir {
        let (text, is_erratum) = frontend::entry_text(arch, inst).map_err(|u| {
            Failure(format!(
                "error: {arch}:{}: no executable text: {u:?}",
                inst.name
            ))
        })?;
        let mut out = format!(
            "{} ({}, opcode {}){}\n",
            inst.name,
            inst.encoding,
            inst.opcode,
            if is_erratum { " [erratum applied]" } else { "" }
        );
        out.push_str(&text);
        out.push('\n');
        return print_out(&out);
    }
    let compiled = frontend::compile_instruction(arch, inst).map_err(render_front_error)?;
    if ast {
        print_out(&syntax::print_program(&compiled.program))
    } else {
        print_out(&ir::print_function(&compiled.function))
    }
}

fn render_front_error(e: frontend::FrontError) -> Failure {
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

fn check_text(file: &std::path::Path) -> Result<(), Failure> {
    let text = amdpcode::sniff::read_text(file, "pseudocode text", false)
        .map_err(|e| Failure(format!("error: {e}")))?;
    let origin = file.display().to_string();
    let c = frontend::compile_text(&origin, "TEXT", &text, &OperandWidths::uniform(32))
        .map_err(render_front_error)?;
    let stmts = c.function.body.len();
    println!(
        "ok: {origin}: {stmts} statement(s), {} register(s), {} local(s)",
        c.function.regs.len(),
        c.function.locals.len()
    );
    Ok(())
}
