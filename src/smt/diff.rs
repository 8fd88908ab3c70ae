//! The cross-generation semantic diff: for every ALU instruction two arches share (by name,
//! or by one's name being the other's alias), whether the pseudocode text is identical, or
//! differs but the two are proved equivalent, or differs with an input where the results
//! differ (found by the solver and replayed through the interpreter on both arches), or the
//! instruction exists in one arch only.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::exec::{self, Machine, Prepared, Rng, ALU_ENCODINGS};
use crate::interp::RegValue;
use crate::spec::{Arch, Instruction, SpecDb};
use crate::value::Bits;

use super::alu::{input_name, shared_input, translate_prepared, AluFormula};
use super::solver::{value_of, Sexp, Solver};
use super::term::{self, collect_vars, Sort, Term};
use super::translate::{SymReg, Val};

/// Random inputs each pair of entries runs on before the solver is asked.
const RANDOM_INPUTS: usize = 16;

/// How one instruction compares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The same text (after errata).
    Identical,
    /// Different text, proved to compute the same outputs.
    Equivalent,
    /// An input where the outputs differ (replayed on both arches).
    Different {
        /// The input values, by register name.
        input: BTreeMap<String, String>,
        /// Output → (value on FROM, value on TO).
        outputs: BTreeMap<String, (String, String)>,
    },
    /// Not decided, with the reason.
    Unknown(String),
    /// Only in FROM.
    OnlyFrom,
    /// Only in TO.
    OnlyTo,
}

/// The diff of two arches.
pub struct DiffReport {
    /// FROM and TO.
    pub arches: (Arch, Arch),
    /// Instruction → how it compares.
    pub entries: BTreeMap<String, Kind>,
}

impl DiffReport {
    /// Counts per kind: identical, equivalent, different, unknown, only FROM, only TO.
    pub fn totals(&self) -> [usize; 6] {
        let mut t = [0; 6];
        for k in self.entries.values() {
            t[match k {
                Kind::Identical => 0,
                Kind::Equivalent => 1,
                Kind::Different { .. } => 2,
                Kind::Unknown(_) => 3,
                Kind::OnlyFrom => 4,
                Kind::OnlyTo => 5,
            }] += 1;
        }
        t
    }

    /// The JSON form.
    pub fn to_json(&self) -> Value {
        let t = self.totals();
        let entries: serde_json::Map<String, Value> = self
            .entries
            .iter()
            .map(|(n, k)| {
                let v = match k {
                    Kind::Identical => json!({"kind": "identical"}),
                    Kind::Equivalent => json!({"kind": "equivalent"}),
                    Kind::Different { input, outputs } => json!({
                        "kind": "different",
                        "input": input,
                        "outputs": outputs.iter().map(|(o, (a, b))| (o.clone(), json!([a, b]))).collect::<serde_json::Map<_, _>>(),
                    }),
                    Kind::Unknown(r) => json!({"kind": "unknown", "reason": r}),
                    Kind::OnlyFrom => json!({"kind": format!("only-{}", self.arches.0)}),
                    Kind::OnlyTo => json!({"kind": format!("only-{}", self.arches.1)}),
                };
                (n.clone(), v)
            })
            .collect();
        json!({
            "from": self.arches.0.name(),
            "to": self.arches.1.name(),
            "totals": {"identical": t[0], "equivalent": t[1], "different": t[2], "unknown": t[3],
                       "only_from": t[4], "only_to": t[5]},
            "entries": entries,
        })
    }
}

fn is_alu(i: &Instruction) -> bool {
    ALU_ENCODINGS.contains(&i.encoding.as_str()) && i.pcode.is_some()
}

/// The instruction of `db` that `i` (of another arch) is compared with: the same name or
/// alias in the same encoding, with pseudocode.
pub fn counterpart<'a>(db: &'a SpecDb, i: &Instruction) -> Option<&'a Instruction> {
    find(db, i)
}

fn find<'a>(db: &'a SpecDb, i: &Instruction) -> Option<&'a Instruction> {
    let same_enc = |c: &&Instruction| c.encoding == i.encoding && c.pcode.is_some();
    let all = db.get_all(&i.name);
    all.iter().copied().find(same_enc).or_else(|| {
        i.aliases
            .iter()
            .flat_map(|a| db.get_all(a))
            .find(|c| c.encoding == i.encoding && c.pcode.is_some())
    })
}

/// Compares every shared ALU instruction (or only `only`, if not empty).
pub fn spec_diff(from: &SpecDb, to: &SpecDb, only: &[String], solver: &Solver) -> DiffReport {
    let (fa, ta) = (from.arch(), to.arch());
    let wave = if !fa.supports_wave(32) || !ta.supports_wave(32) {
        64
    } else {
        32
    };
    let wanted = |n: &str| only.is_empty() || only.iter().any(|o| o.eq_ignore_ascii_case(n));
    let mut work: Vec<(String, &Instruction, Option<&Instruction>)> = Vec::new();
    for i in from.with_pcode().filter(|i| is_alu(i) && wanted(&i.name)) {
        work.push((i.name.clone(), i, find(to, i)));
    }
    let mut entries = BTreeMap::new();
    for i in to.with_pcode().filter(|i| is_alu(i) && wanted(&i.name)) {
        if find(from, i).is_none() {
            entries.insert(i.name.clone(), Kind::OnlyTo);
        }
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4);
    let chunk = work.len().div_ceil(threads).max(1);
    let results: Vec<(String, Kind)> = std::thread::scope(|s| {
        let hs: Vec<_> = work
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|(n, a, b)| {
                            let k = match b {
                                None => Kind::OnlyFrom,
                                Some(b) => compare(fa, a, ta, b, wave, solver),
                            };
                            (n.clone(), k)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        hs.into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    entries.extend(results);
    DiffReport {
        arches: (fa, ta),
        entries,
    }
}

fn vals(r: &SymReg) -> Vec<Term> {
    match r {
        SymReg::Uniform(v) => vec![v.term()],
        SymReg::Lanes(l) => l.iter().map(Val::term).collect(),
    }
}

/// The value of output `name` of a formula: written, or the input unchanged.
fn output(f: &AluFormula, p: &Prepared, name: &str) -> Option<Vec<Term>> {
    let r = p.function.reg(name)?;
    let written = f.outputs.iter().find(|(i, _)| *i == r.0 as usize);
    Some(match written {
        Some((_, v)) => vals(v),
        None => vals(&f.inputs[r.0 as usize]),
    })
}

/// Compares one instruction across two arches.
pub fn compare(
    fa: Arch,
    a: &Instruction,
    ta: Arch,
    b: &Instruction,
    wave: u32,
    solver: &Solver,
) -> Kind {
    compare_with(fa, a, ta, b, wave, Some(solver))
}

/// [`compare`] with the solver optional: without it, an instruction whose random inputs
/// show no difference is [`Kind::Unknown`] ("not proved").
pub fn compare_with(
    fa: Arch,
    a: &Instruction,
    ta: Arch,
    b: &Instruction,
    wave: u32,
    solver: Option<&Solver>,
) -> Kind {
    let text = |arch, i| crate::frontend::entry_text(arch, i).map(|t| t.0).ok();
    if text(fa, a).is_some() && text(fa, a) == text(ta, b) {
        return Kind::Identical;
    }
    let (pa, pb) = match (exec::prepare(fa, a), exec::prepare(ta, b)) {
        (Ok(x), Ok(y)) => (x, y),
        _ => return Kind::Unknown("does not compile on both arches".into()),
    };
    // The interface must match: every shared register the same width.
    for r in &pa.function.regs {
        if let Some(o) = pb.function.reg(&r.name) {
            let w = pb.function.regs[o.0 as usize].width;
            if w != r.width {
                return Kind::Unknown(format!(
                    "{} is {} bits on one arch and {w} on the other",
                    r.name, r.width
                ));
            }
        }
    }
    let (xa, xb) = match (translate_prepared(&pa, wave), translate_prepared(&pb, wave)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => return Kind::Unknown(format!("not translated: {e}")),
    };
    // Outputs: registers either writes.
    let mut names: Vec<String> = Vec::new();
    for (p, x) in [(&pa, &xa), (&pb, &xb)] {
        for (i, _) in &x.outputs {
            let n = p.function.regs[*i].name.clone();
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    // A register only one text names is left unchanged by the other: its output there is
    // the input (the same declared constant). This decides, for example, CDNA's `v_cmpx_*`
    // (writes EXEC and D0, which is VCC) against RDNA's (writes only EXEC).
    let unchanged = |x: &AluFormula, p: &Prepared, n: &str| {
        p.function.reg(n).map(|r| vals(&x.inputs[r.0 as usize]))
    };
    let mut diffs = Vec::new();
    for n in &names {
        let pair = match (output(&xa, &pa, n), output(&xb, &pb, n)) {
            (Some(x), Some(y)) => Some((x, y)),
            (Some(x), None) => unchanged(&xa, &pa, n).map(|y| (x, y)),
            (None, Some(y)) => unchanged(&xb, &pb, n).map(|x| (x, y)),
            (None, None) => None,
        };
        let Some((x, y)) = pair else {
            return Kind::Unknown(format!("{n} has no value on either arch"));
        };
        if x.len() != y.len() {
            return Kind::Unknown(format!("{n} is per-lane on one arch only"));
        }
        for (s, t) in x.iter().zip(&y) {
            diffs.push(term::not(&term::eq(s, t)));
        }
    }
    let differs = diffs
        .iter()
        .fold(Term::bool(false), |acc, d| term::or(&acc, d));
    if differs.as_bool() == Some(false) {
        return Kind::Equivalent;
    }
    let mut roots = vec![differs.clone(), xa.exec.clone(), xb.exec.clone()];
    roots.extend(xa.inputs.iter().flat_map(vals));
    roots.extend(xb.inputs.iter().flat_map(vals));
    let vars = collect_vars(&roots);
    // A few edge-biased random inputs through the interpreter first: most differences show
    // on one of them, and a replayed difference needs no solver.
    let seed = a
        .name
        .bytes()
        .fold(0x5eed_u64, |h, b| h.rotate_left(5) ^ u64::from(b));
    let mut rng = Rng::new(seed);
    for _ in 0..RANDOM_INPUTS {
        let values: BTreeMap<String, Bits> = vars
            .iter()
            .filter_map(|(n, s)| match s {
                Sort::Bv(w) => Some((n.clone(), rng.edge_value(*w))),
                _ => None,
            })
            .collect();
        if let k @ Kind::Different { .. } = replay(&pa, &pb, &values, &names, wave) {
            return k;
        }
    }
    let Some(solver) = solver else {
        return Kind::Unknown(format!(
            "no difference on {RANDOM_INPUTS} random inputs; not proved (the solver was not asked)"
        ));
    };
    let mut script = String::new();
    for (n, s) in &vars {
        script.push_str(&format!("(declare-const {n} {})\n", s.smt()));
    }
    let body = term::let_expr(std::slice::from_ref(&differs), &|r| r[0].clone());
    script.push_str(&format!("(assert {body})\n(check-sat)\n"));
    let names_v: Vec<&str> = vars.iter().map(|(n, _)| n.as_str()).collect();
    script.push_str(&format!("(get-value ({}))\n", names_v.join(" ")));
    let answers = match solver.run(&script) {
        Ok(a) => a,
        Err(e) => return Kind::Unknown(e.to_string()),
    };
    match answers.first() {
        Some(Sexp::Atom(s)) if s == "unsat" => Kind::Equivalent,
        Some(Sexp::Atom(s)) if s == "sat" => {
            let Some(model) = answers.get(1) else {
                return Kind::Unknown("no model".into());
            };
            let values: BTreeMap<String, Bits> = vars
                .iter()
                .enumerate()
                .filter_map(|(i, (n, _))| value_of(model, i).map(|v| (n.clone(), v)))
                .collect();
            replay(&pa, &pb, &values, &names, wave)
        }
        other => Kind::Unknown(format!("solver: {other:?}")),
    }
}

/// Builds a machine from a model and runs both entries through the interpreter.
fn replay(
    pa: &Prepared,
    pb: &Prepared,
    values: &BTreeMap<String, Bits>,
    outs: &[String],
    wave: u32,
) -> Kind {
    let machine = |p: &Prepared| -> Machine {
        let mut m = Machine::new(wave);
        for (r, &pl) in p.function.regs.iter().zip(&p.per_lane) {
            if matches!(r.name.as_str(), "SRC0" | "SRC1" | "SRC2" | "VDST") {
                continue;
            }
            let get = |lane| {
                values
                    .get(&match shared_input(p, &r.name) {
                        Some((name, _)) => input_name(name, lane),
                        None => input_name(&r.name, lane),
                    })
                    .cloned()
                    .unwrap_or(Bits::zero(r.width))
                    .zext(r.width)
            };
            let v = if pl {
                RegValue::Lanes((0..wave).map(|l| get(Some(l))).collect())
            } else {
                RegValue::Uniform(get(None))
            };
            m.values.insert(r.name.clone(), v);
        }
        if p.function.reg("EXEC").is_none() {
            if let Some(e) = values.get(&input_name("EXEC", None)) {
                m.values
                    .insert("EXEC".into(), RegValue::Uniform(e.zext(64)));
            }
        }
        m
    };
    let (mut ma, mut mb) = (machine(pa), machine(pb));
    // A register only one side names starts with the same value on the other.
    for n in outs {
        match (ma.values.get(n).cloned(), mb.values.get(n).cloned()) {
            (Some(v), None) => {
                mb.values.insert(n.clone(), v);
            }
            (None, Some(v)) => {
                ma.values.insert(n.clone(), v);
            }
            _ => {}
        }
    }
    // The input: every register either text reads (and EXEC).
    let mut input: BTreeMap<String, String> = BTreeMap::new();
    for (p, m) in [(pa, &ma), (pb, &mb)] {
        for (n, v) in &m.values {
            let read = p
                .function
                .reg(n)
                .is_some_and(|r| p.function.regs[r.0 as usize].read);
            if read || n == "EXEC" {
                input.entry(n.clone()).or_insert_with(|| show(v));
            }
        }
    }
    let (ra, rb) = match (exec::run_interp(pa, &mut ma), exec::run_interp(pb, &mut mb)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => return Kind::Unknown(format!("the input faults: {e}")),
    };
    let _ = (ra, rb);
    let mut outputs = BTreeMap::new();
    for n in outs {
        let (x, y) = (ma.values.get(n), mb.values.get(n));
        if x != y {
            outputs.insert(
                n.clone(),
                (
                    x.map(show).unwrap_or_default(),
                    y.map(show).unwrap_or_default(),
                ),
            );
        }
    }
    if outputs.is_empty() {
        return Kind::Unknown(
            "BUG: the solver's input does not replay (translation disagrees with the interpreter)"
                .into(),
        );
    }
    Kind::Different { input, outputs }
}

fn show(v: &RegValue) -> String {
    match v {
        RegValue::Uniform(b) => term::literal(b),
        RegValue::Lanes(l) => {
            let first = l.first().map(term::literal).unwrap_or_default();
            if l.iter().all(|x| Some(x) == l.first()) {
                format!("{first} (all lanes)")
            } else {
                let v: Vec<String> = l.iter().map(term::literal).collect();
                format!("[{}]", v.join(","))
            }
        }
    }
}
