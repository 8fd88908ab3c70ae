//! One ALU instruction as a formula, and the differential check that holds the translation to
//! the interpreter: the formula is evaluated by the solver on random concrete inputs (each
//! input constant asserted equal to a value, then `get-value` of every output) and compared bit
//! for bit with what `exec::run_interp` computes from the same inputs.

use crate::exec::{self, Prepared, Rng, ALU_ENCODINGS};
use crate::interp::RegValue;
use crate::spec::SpecDb;
use crate::value::Bits;

use super::regfile::RegFiles;
use super::solver::{Sexp, Solver};
use super::term::{self, Sort, Term};
use super::translate::{run_lane, Limits, SymReg, Unsupported, Val};

/// An instruction as terms over its inputs.
#[derive(Clone, Debug)]
pub struct AluFormula {
    /// Every function register's input: one declared constant per value (per lane for
    /// per-lane registers).
    pub inputs: Vec<SymReg>,
    /// The EXEC mask the lanes run under (a declared constant when the function does not
    /// itself name EXEC).
    pub exec: Term,
    /// The written registers' final values: (register index, value).
    pub outputs: Vec<(usize, SymReg)>,
}

/// The name of the input constant of register `reg` (at `lane` for per-lane registers).
pub fn input_name(reg: &str, lane: Option<u32>) -> String {
    match lane {
        Some(l) => format!("|in:{reg}@{l}|"),
        None => format!("|in:{reg}|"),
    }
}

/// The input a text register reads when it is not a value of its own: every name a SOPK text
/// gives its 16-bit immediate ([`exec::is_sopk_immediate`]) reads the one `SIMM16` input
/// (zero-extended to its width), so texts of two generations compare on the same field.
pub fn shared_input<'a>(p: &Prepared, reg: &'a str) -> Option<(&'a str, u32)> {
    let sopk_immediate =
        p.encoding == "SOPK" && (reg == "S1" || reg == "S0" && p.function.reg("D0").is_some());
    sopk_immediate.then_some(("SIMM16", 16))
}

/// Translates a prepared instruction (its optimised IR) for a wave of `wave` lanes, binding
/// operands as `exec::run_interp` does.
///
/// # Errors
/// What the translation does not model.
pub fn translate_prepared(p: &Prepared, wave: u32) -> Result<AluFormula, Unsupported> {
    let opt = p.optimized();
    let f = &opt.function;
    let inputs: Vec<SymReg> = f
        .regs
        .iter()
        .zip(&p.per_lane)
        .map(|(r, &pl)| {
            let v = |lane| {
                Val::T(match shared_input(p, &r.name) {
                    Some((name, w)) => {
                        term::zext(&Term::var(&input_name(name, lane), Sort::Bv(w)), r.width)
                    }
                    None => Term::var(&input_name(&r.name, lane), Sort::Bv(r.width)),
                })
            };
            if pl {
                SymReg::Lanes((0..wave).map(|l| v(Some(l))).collect())
            } else {
                SymReg::Uniform(v(None))
            }
        })
        .collect();
    // Entries that address the VGPR file find their vector operands in virtual registers,
    // as `exec::bind_inputs` places them.
    let mut files = RegFiles {
        wave,
        vgpr: Default::default(),
        sgpr: Default::default(),
        sgpr_count: 128,
        vgpr_default: Box::new(|_, _| Val::C(Bits::zero(32))),
        sgpr_default: Box::new(|_| Val::C(Bits::zero(32))),
        mem: None,
    };
    let mut inputs = inputs;
    let uses_numbers = p.wave_level || f.regs.iter().any(|r| r.name == "VDST" || r.name == "SRC0");
    let mut virtual_d0 = None;
    if uses_numbers {
        for (i, (field, operand)) in [
            ("SRC0", "S0"),
            ("SRC1", "S1"),
            ("SRC2", "S2"),
            ("VDST", "D0"),
        ]
        .iter()
        .enumerate()
        {
            let Some(fr) = f.reg(field) else { continue };
            let num = exec::VIRTUAL_VGPR_BASE + exec::VIRTUAL_VGPR_SPAN * i as u32;
            inputs[fr.0 as usize] = SymReg::Uniform(Val::C(Bits::from_u64(
                f.regs[fr.0 as usize].width,
                num as u64,
            )));
            if let Some(or) = f.reg(operand).filter(|r| f.regs[r.0 as usize].read) {
                for lane in 0..wave {
                    let v = match &inputs[or.0 as usize] {
                        SymReg::Uniform(v) => v.clone(),
                        SymReg::Lanes(l) => l[lane as usize].clone(),
                    };
                    files.vgpr.insert((lane, num), v.zext(32));
                }
            }
            if let (Some(or), "D0") = (f.reg(operand), *operand) {
                virtual_d0 = Some((or.0 as usize, num));
            }
        }
    }
    let exec = match f.reg("EXEC") {
        Some(r) => match &inputs[r.0 as usize] {
            SymReg::Uniform(v) => term::zext(&v.term(), 64),
            SymReg::Lanes(_) => return Err(Unsupported("bug: per-lane EXEC".into())),
        },
        None => Term::var(&input_name("EXEC", None), Sort::Bv(64)),
    };
    let mut regs = inputs.clone();

    if p.vector && !p.wave_level {
        for lane in 0..wave {
            let guard = term::bv_to_bool(&term::extract(&exec, lane, 1));
            if guard.as_bool() == Some(false) {
                continue;
            }
            run_lane(f, &mut regs, lane, guard, &mut files, Limits::default())?;
        }
    } else {
        run_lane(
            f,
            &mut regs,
            0,
            Term::bool(true),
            &mut files,
            Limits::default(),
        )?;
    }
    let mut outputs: Vec<(usize, SymReg)> = f
        .regs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.written)
        .map(|(i, _)| (i, regs[i].clone()))
        .collect();
    // D0 written through its virtual VGPR is read back (as `exec::finish_outputs` does).
    if let Some((d0, num)) = virtual_d0 {
        if !outputs.iter().any(|(i, _)| *i == d0) && files.vgpr.keys().any(|(_, r)| *r == num) {
            let lanes = (0..wave)
                .map(|l| {
                    let v = files.vgpr.get(&(l, num)).cloned();
                    v.unwrap_or(Val::C(Bits::zero(32)))
                })
                .collect();
            outputs.push((d0, SymReg::Lanes(lanes)));
        }
    }
    Ok(AluFormula {
        inputs,
        exec,
        outputs,
    })
}

/// The outcome of the differential check of one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckResult {
    /// The solver's evaluation equals the interpreter on every sample.
    Agree,
    /// The translation does not model the entry.
    Unsupported(String),
    /// The interpreter does not execute it (not counted).
    NoExec(String),
    /// A value differs: a translation bug.
    Mismatch(String),
    /// The solver failed or timed out.
    Solver(String),
}

fn vals(r: &SymReg) -> Vec<Term> {
    match r {
        SymReg::Uniform(v) => vec![v.term()],
        SymReg::Lanes(l) => l.iter().map(Val::term).collect(),
    }
}

fn concrete(r: &RegValue) -> Vec<Bits> {
    match r {
        RegValue::Uniform(b) => vec![b.clone()],
        RegValue::Lanes(l) => l.clone(),
    }
}

/// Checks one entry on `samples` random states of wave size `wave`.
pub fn check_entry(
    p: &Prepared,
    solver: &Solver,
    samples: u32,
    seed: u64,
    wave: u32,
) -> CheckResult {
    let formula = match translate_prepared(p, wave) {
        Ok(f) => f,
        Err(e) => return CheckResult::Unsupported(e.0),
    };
    let f = &p.function;
    let mut script = String::new();
    let out_terms: Vec<Term> = formula.outputs.iter().flat_map(|(_, r)| vals(r)).collect();
    if out_terms.is_empty() {
        return CheckResult::Agree;
    }
    let widths: Vec<u32> = out_terms.iter().map(Term::width).collect();
    let body = term::let_expr(&out_terms, &|r| {
        if r.len() == 1 {
            r[0].clone()
        } else {
            format!("(concat {})", r.join(" "))
        }
    });
    // The EXEC constant the lanes run under, when the function does not name EXEC itself.
    let exec_name = match (f.reg("EXEC"), formula.exec.head()) {
        (None, term::Head::Var(n)) => Some(n.clone()),
        _ => None,
    };
    let mut rng = Rng::new(seed);
    let mut expected: Vec<Vec<Bits>> = Vec::new();
    for _ in 0..samples {
        let mut m = exec::random_machine(p, &mut rng, wave);
        let (bound, _) = exec::bind_inputs(p, &mut m.clone());
        let exec_mask = exec::exec_mask(&m);
        let outs = match exec::run_interp(p, &mut m) {
            Ok(o) => o,
            Err(e) => return CheckResult::NoExec(e.to_string()),
        };
        let mut binds = String::new();
        for (i, r) in f.regs.iter().enumerate() {
            let values = concrete(&bound[i]);
            match &formula.inputs[i] {
                SymReg::Uniform(_) => {
                    let v = values.first().cloned().unwrap_or(Bits::zero(r.width));
                    let (name, width) = shared_input(p, &r.name).unwrap_or((&r.name, r.width));
                    binds.push_str(&format!(
                        "({} {})",
                        input_name(name, None),
                        lit(&v.zext(width))
                    ));
                }
                SymReg::Lanes(l) => {
                    for lane in 0..l.len() {
                        let v = values.get(lane).cloned().unwrap_or(Bits::zero(r.width));
                        let (name, width) = shared_input(p, &r.name).unwrap_or((&r.name, r.width));
                        binds.push_str(&format!(
                            "({} {})",
                            input_name(name, Some(lane as u32)),
                            lit(&v.zext(width))
                        ));
                    }
                }
            }
        }
        if let Some(n) = &exec_name {
            binds.push_str(&format!("({n} {})", lit(&Bits::from_u64(64, exec_mask))));
        }
        script.push_str(&format!("(simplify (let ({binds}) {body}))\n"));
        let mut exp = Vec::new();
        for (ri, _) in &formula.outputs {
            let name = &f.regs[*ri].name;
            let v = outs
                .values
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| concrete(v))
                .unwrap_or_default();
            let n = vals(
                &formula
                    .outputs
                    .iter()
                    .find(|(i, _)| i == ri)
                    .map(|x| x.1.clone())
                    .unwrap_or(SymReg::Lanes(vec![])),
            )
            .len();
            for k in 0..n {
                exp.push(v.get(k).cloned().unwrap_or(Bits::zero(f.regs[*ri].width)));
            }
        }
        expected.push(exp);
    }
    let answers = match solver.run(&script) {
        Ok(a) => a,
        Err(e) => return CheckResult::Solver(e.to_string()),
    };
    for (case, exp) in expected.iter().enumerate() {
        let Some(all) = answers.get(case).and_then(Sexp::bits) else {
            return CheckResult::Solver(format!(
                "case {case}: not a constant: {:?}",
                answers.get(case)
            ));
        };
        let mut top = all.width();
        for (k, want) in exp.iter().enumerate() {
            top -= widths[k];
            let got = all.extract(top as u64, widths[k]);
            if got.zext(want.width()) != *want {
                let mut idx = k;
                let mut name = String::new();
                for (ri, r) in &formula.outputs {
                    let n = vals(r).len();
                    if idx < n {
                        name = format!("{}[{idx}]", f.regs[*ri].name);
                        break;
                    }
                    idx -= n;
                }
                return CheckResult::Mismatch(format!(
                    "case {case}: {name}: interpreter {}, SMT {}",
                    lit(want),
                    lit(&got)
                ));
            }
        }
    }
    CheckResult::Agree
}

fn lit(b: &Bits) -> String {
    term::literal(b)
}

/// The differential check over one arch's ALU entries.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SmtStats {
    /// ALU entries that execute (the interpreter runs them).
    pub alu_executes: usize,
    /// Entries the translation models and the solver agrees with the interpreter on.
    pub agree: usize,
    /// Random states per entry.
    pub samples: u32,
    /// Entries not translated, with the reason.
    pub unsupported: Vec<(String, String)>,
    /// Entries where solver and interpreter differ (translation bugs).
    pub mismatches: Vec<(String, String)>,
    /// Entries the solver failed on.
    pub solver_failures: Vec<(String, String)>,
}

/// Runs [`check_entry`] on every ALU entry of `db`.
pub fn smt_stats(db: &SpecDb, solver: &Solver, samples: u32) -> SmtStats {
    let arch = db.arch();
    let wave = arch.default_wave();
    let insts: Vec<_> = db
        .with_pcode()
        .filter(|i| ALU_ENCODINGS.contains(&i.encoding.as_str()))
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4);
    let chunk = insts.len().div_ceil(threads).max(1);
    let results: Vec<(String, CheckResult)> = std::thread::scope(|s| {
        let handles: Vec<_> = insts
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|inst| {
                            let r = match exec::prepare(arch, inst) {
                                Err(e) => CheckResult::NoExec(e.diagnostic.summary()),
                                Ok(p) => check_entry(&p, solver, samples, 0x5eed, wave),
                            };
                            (inst.name.clone(), r)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut st = SmtStats {
        samples,
        ..SmtStats::default()
    };
    for (name, r) in results {
        match r {
            CheckResult::NoExec(_) => continue,
            CheckResult::Agree => st.agree += 1,
            CheckResult::Unsupported(m) => st.unsupported.push((name, m)),
            CheckResult::Mismatch(m) => st.mismatches.push((name, m)),
            CheckResult::Solver(m) => st.solver_failures.push((name, m)),
        }
        st.alu_executes += 1;
    }
    st
}
