//! `amdpcode spec ...` (the instruction database: coverage, fidelity, listing, fetching the
//! wheel, cross-generation diff) and `amdpcode show`.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::json;

use amdpcode::spec::{self, Arch, Spec};
use amdpcode::{exec, frontend, ir, jit, syntax};

use super::common::{
    arch_db, exit_with, find_inst, parse_arch, print_out, render_front_error, Failure, Wheel,
};

#[derive(Subcommand)]
pub enum SpecCommand {
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

#[derive(Args)]
pub struct Show {
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
}

pub fn run(command: SpecCommand, wheel: &Wheel) -> Result<(), Failure> {
    match command {
        SpecCommand::Diff {
            from,
            to,
            insts,
            json,
            solver,
            timeout,
        } => {
            let spec = wheel.load()?;
            exit_with(super::smt::spec_diff(
                spec, &from, &to, &insts, json, solver, timeout,
            ))
        }
        SpecCommand::Fetch => {
            let path = spec::fetch(None)?;
            println!("{}", path.display());
            Ok(())
        }
        SpecCommand::Stats {
            arch,
            json,
            samples,
            smt,
        } => {
            let spec = wheel.load()?;
            let archs = match arch {
                Some(a) => vec![parse_arch(&a)?],
                None => spec.arches(),
            };
            if smt > 0 {
                let text = super::smt::smt_stats(spec, &archs, smt, json)
                    .map_err(|e| Failure(format!("error: {e}")))?;
                print_out(&text)?;
            }
            stats(spec, &archs, json, samples)
        }
        SpecCommand::Fidelity { arch, json } => {
            let spec = wheel.load()?;
            let archs = match arch {
                Some(a) => vec![parse_arch(&a)?],
                None => spec.arches(),
            };
            fidelity(spec, &archs, json)
        }
        SpecCommand::List { arch, json } => {
            let arch = parse_arch(&arch)?;
            let spec = wheel.load()?;
            list(spec, arch, json)
        }
    }
}

pub fn run_show(c: Show, wheel: &Wheel) -> Result<(), Failure> {
    let arch = parse_arch(&c.arch)?;
    let spec = wheel.load()?;
    show(spec, arch, &c.inst, c.ast, c.ir)
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
