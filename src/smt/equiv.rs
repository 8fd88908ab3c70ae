//! Equivalence of two programs on one wave: random states through the engines (the quick
//! first pass), then a proof by the solver over the symbolic executions of both, with every
//! counterexample replayed through the interpreter before it is reported.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use serde_json::{json, Value};

use crate::exec::Rng;
use crate::spec::{Arch, SpecDb};
use crate::wave::{self, code, m0_code, n_sgprs, Engine, Executor, Program, WaveState};

use super::memory::MemState;
use super::outputs::{merged, sym_written};
pub use super::outputs::{parse_outputs, Out};
use super::query::{sat, sat_with};
use super::solver::Solver;
use super::term::{self, collect_vars, Term};
use super::wave::{Paths, SymExec, SymWave, SCC_VAR};

/// How to check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Random states only.
    Random,
    /// The solver only.
    Prove,
    /// Random states, then the solver.
    Both,
}

/// The options of one check.
pub struct Options {
    /// 32 or 64.
    pub wave: u32,
    /// Outputs to compare (`None`: every register either program writes, and memory).
    pub outputs: Option<Vec<Out>>,
    /// Outputs left out.
    pub ignore: Vec<Out>,
    /// The method.
    pub mode: Mode,
    /// Random states.
    pub samples: u32,
    /// Executions of one instruction per path before the unwinding check.
    pub unroll: u32,
    /// The solver (needed for `prove` and `both`).
    pub solver: Option<Solver>,
    /// The random seed.
    pub seed: u64,
}

/// The verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Equal on every input (proved) or on every random state (`random` method only).
    Equivalent,
    /// A state where they differ, replayed.
    Different,
    /// Neither.
    Unknown,
}

/// The result of a check.
#[derive(Clone, Debug)]
pub struct Report {
    /// The verdict.
    pub verdict: Verdict,
    /// How the verdict was found: `proof`, `random` (the random pass), or `search` (random
    /// and edge-case states tried after the solver gave up in `--mode prove`).
    pub method: &'static str,
    /// The outputs compared.
    pub outputs: Vec<Out>,
    /// The initial state where they differ.
    pub counterexample: Option<WaveState>,
    /// Output → (value after A, value after B) at the counterexample.
    pub differences: BTreeMap<String, (Value, Value)>,
    /// Why (unknown), or how (equivalent, different).
    pub reason: String,
    /// The solver's counterexample did not replay: a translation bug.
    pub translation_bug: bool,
    /// Random states run, and the time the random pass took.
    pub random_states: (u64, f64),
    /// The time the proof took (seconds).
    pub proof_seconds: f64,
    /// The registers the programs read or write (scalar codes, VGPRs, SCC): what a
    /// counterexample shows; `None` shows the whole register file.
    pub state_regs: Option<StateRegs>,
    /// The solver answered unknown or ran out of time on the outputs (not the unwinding check).
    pub solver_gave_up: bool,
}

/// The part of the register file a counterexample shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StateRegs {
    /// Scalar codes (SGPRs, VCC, EXEC, M0, trap temporaries).
    pub sgpr: BTreeSet<u32>,
    /// VGPRs.
    pub vgpr: BTreeSet<u32>,
    /// SCC.
    pub scc: bool,
}

impl Report {
    /// The `--json` object.
    pub fn to_json(&self) -> Value {
        let verdict = match self.verdict {
            Verdict::Equivalent => "equivalent",
            Verdict::Different => "different",
            Verdict::Unknown => "unknown",
        };
        let diffs: serde_json::Map<String, Value> = self
            .differences
            .iter()
            .map(|(k, (a, b))| (k.clone(), json!([a, b])))
            .collect();
        json!({
            "verdict": verdict,
            "method": self.method,
            "outputs": self.outputs.iter().map(|o| o.name()).collect::<Vec<_>>(),
            "counterexample": self.counterexample_json(),
            "differences": diffs,
            "reason": self.reason,
        })
    }
}

impl Report {
    /// The counterexample as a STATE.json (`amdpcode run --state`): the registers the two
    /// programs read or write (EXEC always: a state file without it runs every lane), and the
    /// initial memory bytes. Registers left out start as zero when the file is replayed,
    /// which the check confirmed gives the same difference.
    pub fn counterexample_json(&self) -> Option<Value> {
        let w = self.counterexample.as_ref()?;
        let mut v = super::memdiff::state_json(w);
        let Some(keep) = &self.state_regs else {
            return Some(v);
        };
        let arch = w.arch;
        let mut sgpr = serde_json::Map::new();
        let mask = w.full_mask();
        let mut codes = keep.sgpr.iter().copied().peekable();
        while let Some(c) = codes.next() {
            let (name, value) = match c {
                code::VCC_LO | code::VCC_HI if w.wave_size == 64 => {
                    codes.next_if_eq(&(code::VCC_HI));
                    ("vcc".to_string(), w.vcc() & mask)
                }
                code::EXEC_LO | code::EXEC_HI => continue,
                // The names a state file takes (`wave::json`): SGPRs, VCC halves, M0, ttmps.
                c if c < n_sgprs(arch) => (format!("s{c}"), w.read_sgpr(c) as u64),
                code::VCC_LO => ("vcc_lo".to_string(), w.read_sgpr(c) as u64),
                code::VCC_HI => ("vcc_hi".to_string(), w.read_sgpr(c) as u64),
                c if c == m0_code(arch) => ("m0".to_string(), w.read_sgpr(c) as u64),
                c if (code::TTMP0..code::TTMP0 + 16).contains(&c) => {
                    (format!("ttmp{}", c - code::TTMP0), w.read_sgpr(c) as u64)
                }
                _ => continue,
            };
            sgpr.insert(name, hexv(value));
        }
        sgpr.insert("exec".into(), hexv(w.exec() & mask));
        if keep.scc {
            sgpr.insert("scc".into(), json!(w.scc as u8));
        }
        let mut vgpr = serde_json::Map::new();
        for &r in &keep.vgpr {
            let vals: Vec<Value> = (0..w.wave_size)
                .map(|l| hexv(w.vgpr(l, r) as u64))
                .collect();
            vgpr.insert(format!("v{r}"), Value::Array(vals));
        }
        if let Some(o) = v.as_object_mut() {
            o.insert("sgpr".into(), Value::Object(sgpr));
            o.insert("vgpr".into(), Value::Object(vgpr));
        }
        Some(v)
    }
}

fn hexv(v: u64) -> Value {
    Value::String(format!("0x{v:x}"))
}

/// The value of an output in a concrete wave.
pub fn observe(w: &WaveState, o: Out) -> Value {
    let mask = w.full_mask();
    match o {
        Out::S(n) | Out::Sreg(n, _) => hexv(w.read_sgpr(n) as u64),
        Out::Ttmp(n) => hexv(w.read_sgpr(code::TTMP0 + n) as u64),
        Out::Vcc => hexv(w.vcc() & mask),
        Out::Exec => hexv(w.exec()),
        Out::M0 => hexv(w.m0() as u64),
        Out::Scc => json!(w.scc as u8),
        Out::V(r) => Value::Array(
            (0..w.wave_size)
                .map(|l| hexv(w.vgpr(l, r) as u64))
                .collect(),
        ),
        Out::Memory => Value::Array(
            w.written_ranges()
                .into_iter()
                .map(|(a, b)| {
                    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
                    json!({"addr": format!("0x{a:x}"), "hex": h})
                })
                .collect(),
        ),
    }
}

/// The registers a concrete run changed.
fn changed(before: &WaveState, after: &WaveState, into: &mut BTreeSet<Out>) {
    for c in 0..n_sgprs(before.arch) {
        if before.read_sgpr(c) != after.read_sgpr(c) {
            into.insert(Out::S(c));
        }
    }
    for (o, lo) in [(Out::Vcc, code::VCC_LO), (Out::Exec, code::EXEC_LO)] {
        if before.sgpr_pair(lo) != after.sgpr_pair(lo) {
            into.insert(o);
        }
    }
    if before.m0() != after.m0() {
        into.insert(Out::M0);
    }
    if before.scc != after.scc {
        into.insert(Out::Scc);
    }
    for r in 0..wave::N_VGPRS as u32 {
        if before.vgpr_row(r) != after.vgpr_row(r) {
            into.insert(Out::V(r));
        }
    }
    if !after.written.is_empty() || !super::memdiff::same(&before.lds, &after.lds) {
        into.insert(Out::Memory);
    }
}

/// VGPRs a program names in its operand fields (with room for wide operands).
fn vgprs_named(p: &Program) -> BTreeSet<u32> {
    let mut set = BTreeSet::new();
    for d in p.insts() {
        for (name, v) in &d.inst.fields {
            let v = *v as u32;
            let reg = if name.starts_with("src") {
                (v >= 256).then(|| v - 256)
            } else if name.starts_with('v') || name == "addr" || name.starts_with("data") {
                Some(v & 0xff)
            } else {
                None
            };
            if let Some(r) = reg {
                for i in 0..4 {
                    if r + i < 256 {
                        set.insert(r + i);
                    }
                }
            }
        }
    }
    set
}

/// A random edge-biased initial state (SGPRs, VCC, EXEC, M0, SCC and the named VGPRs).
pub fn random_wave(arch: Arch, wave: u32, vgprs: &BTreeSet<u32>, rng: &mut Rng) -> WaveState {
    let mut w = WaveState::new(arch, wave);
    randomize(&mut w, vgprs, rng);
    w
}

fn randomize(w: &mut WaveState, vgprs: &BTreeSet<u32>, rng: &mut Rng) {
    let arch = w.arch;
    for c in 0..n_sgprs(arch) {
        w.write_sgpr(c, rng.edge_value(32).low_u64() as u32);
    }
    for c in [code::VCC_LO, code::VCC_HI, m0_code(arch)] {
        w.write_sgpr(c, rng.edge_value(32).low_u64() as u32);
    }
    // EXEC: all lanes, none, one, or random.
    let exec = match rng.next_u64() % 4 {
        0 => u64::MAX,
        1 => 1u64 << (rng.next_u64() % w.wave_size as u64),
        2 => 0,
        _ => rng.next_u64(),
    };
    w.set_exec(exec & w.full_mask());
    w.scc = rng.next_u64() & 1 == 1;
    for &r in vgprs {
        for l in 0..w.wave_size {
            w.set_vgpr(l, r, rng.edge_value(32).low_u64() as u32);
        }
    }
}

/// Runs a program from `init` on an executor; `None` when it faults.
fn run(ex: &mut Executor, p: &Program, init: &WaveState) -> Result<WaveState, String> {
    let mut w = init.clone();
    w.written.clear();
    ex.run_fast(p, &mut w).map_err(|e| e.to_string())?;
    Ok(w)
}

/// Whether two final states agree on `outs` (the fast path of the random pass).
fn same_outputs(a: &WaveState, b: &WaveState, outs: &[Out]) -> bool {
    let mask = a.full_mask();
    outs.iter().all(|&o| match o {
        Out::S(n) | Out::Sreg(n, _) => a.read_sgpr(n) == b.read_sgpr(n),
        Out::Ttmp(n) => a.read_sgpr(code::TTMP0 + n) == b.read_sgpr(code::TTMP0 + n),
        Out::Vcc => a.vcc() & mask == b.vcc() & mask,
        Out::Exec => a.exec() == b.exec(),
        Out::M0 => a.m0() == b.m0(),
        Out::Scc => a.scc == b.scc,
        Out::V(r) => {
            let n = a.wave_size as usize;
            match (a.vgpr_row(r), b.vgpr_row(r)) {
                (Some(x), Some(y)) => x[..n] == y[..n],
                _ => true,
            }
        }
        Out::Memory => {
            super::memdiff::same(&a.memory, &b.memory) && super::memdiff::same(&a.lds, &b.lds)
        }
    })
}

fn differences(a: &WaveState, b: &WaveState, outs: &[Out]) -> BTreeMap<String, (Value, Value)> {
    let mut out: BTreeMap<String, (Value, Value)> = outs
        .iter()
        .filter(|&&o| o != Out::Memory)
        .filter_map(|&o| {
            let (x, y) = (observe(a, o), observe(b, o));
            (x != y).then(|| (o.name(), (x, y)))
        })
        .collect();
    if outs.contains(&Out::Memory) {
        out.extend(super::memdiff::differences(a, b));
    }
    out
}

fn select_outputs(opts: &Options, written: &BTreeSet<Out>) -> Vec<Out> {
    let base: Vec<Out> = match &opts.outputs {
        Some(o) => o.clone(),
        None => written.iter().copied().collect(),
    };
    let mut seen = BTreeSet::new();
    base.into_iter()
        .filter(|o| !opts.ignore.contains(o) && seen.insert(*o))
        .collect()
}

/// Checks programs `a` and `b` for equivalence on `db`'s arch.
pub fn check(db: &SpecDb, a: &Program, b: &Program, opts: &Options) -> Report {
    let arch = db.arch();
    let mut report = Report {
        verdict: Verdict::Unknown,
        method: "random",
        outputs: Vec::new(),
        counterexample: None,
        differences: BTreeMap::new(),
        reason: String::new(),
        translation_bug: false,
        random_states: (0, 0.0),
        proof_seconds: 0.0,
        state_regs: None,
        solver_gave_up: false,
    };
    // Registers written, from one random run of each (refined by the symbolic runs below).
    let mut vgprs = vgprs_named(a);
    vgprs.extend(vgprs_named(b));
    let mut rng = Rng::new(opts.seed);
    let engine = if cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        Engine::Jit
    } else {
        Engine::Interp
    };
    let new_ex = |e| Executor::new(db, e).or_else(|_| Executor::new(db, Engine::Interp));
    let (mut ea, mut eb) = match (new_ex(engine), new_ex(engine)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => {
            report.reason = e.to_string();
            return report;
        }
    };
    let mut written = BTreeSet::new();
    for _ in 0..4 {
        // Probes with every lane active, so that stores and lane writes show.
        let mut probe = random_wave(arch, opts.wave, &vgprs, &mut rng);
        probe.set_exec(probe.full_mask());
        for (ex, p) in [(&mut ea, a), (&mut eb, b)] {
            if let Ok(after) = run(ex, p, &probe) {
                changed(&probe, &after, &mut written);
            }
        }
    }
    // Symbolic executions (also what the proof needs).
    let symbolic = if opts.mode != Mode::Random {
        let mut sx = SymExec::new(db);
        sx.unroll = opts.unroll;
        let pa = sx.run(a, SymWave::initial(arch, opts.wave));
        let pb = sx.run(b, SymWave::initial(arch, opts.wave));
        match (pa, pb) {
            (Ok(pa), Ok(pb)) => {
                sym_written(&pa, arch, &mut written);
                sym_written(&pb, arch, &mut written);
                Ok((pa, pb))
            }
            (Err(e), _) => Err(format!("program A: {e}")),
            (_, Err(e)) => Err(format!("program B: {e}")),
        }
    } else {
        Err("not asked for".into())
    };
    written.remove(&Out::S(u32::MAX));
    report.outputs = select_outputs(opts, &written);
    let outs = report.outputs.clone();
    // The random pass.
    if opts.mode != Mode::Prove {
        let t = Instant::now();
        let found = random_search(
            arch,
            (&mut ea, &mut eb),
            (a, b),
            &outs,
            &vgprs,
            &mut rng,
            opts,
        );
        report.random_states.1 = t.elapsed().as_secs_f64();
        match found {
            Search::Differ(init, n) => {
                report.random_states.0 = n;
                return replay(db, a, b, init, &outs, report, "random");
            }
            Search::Fault(init, e, n) => {
                report.random_states.0 = n;
                report.reason = format!("a program faults on a random state: {e}");
                report.counterexample = Some(init);
                return report;
            }
            Search::Equal(n) => report.random_states.0 = n,
        }
        if opts.mode == Mode::Random {
            report.verdict = Verdict::Equivalent;
            report.reason = format!(
                "equal on {} random states (not a proof)",
                report.random_states.0
            );
            return report;
        }
    }
    // The proof.
    let t = Instant::now();
    let (pa, pb) = match symbolic {
        Ok(x) => x,
        Err(e) => {
            report.method = "proof";
            report.reason = format!("not translated: {e}");
            return report;
        }
    };
    let Some(solver) = &opts.solver else {
        report.reason = "no SMT solver".into();
        return report;
    };
    report.method = "proof";
    let r = prove(db, a, b, &pa, &pb, &outs, solver, opts, report);
    let mut r = r;
    r.proof_seconds = t.elapsed().as_secs_f64();
    // The solver gave up: before answering unknown, look for a witness among random and
    // edge-case states (the random pass of `--mode both`, skipped by `--mode prove`).
    if r.verdict == Verdict::Unknown && r.solver_gave_up && opts.mode == Mode::Prove {
        let t = Instant::now();
        let found = random_search(
            arch,
            (&mut ea, &mut eb),
            (a, b),
            &outs,
            &vgprs,
            &mut rng,
            opts,
        );
        r.random_states.1 = t.elapsed().as_secs_f64();
        let gave_up = r.reason.clone();
        match found {
            Search::Differ(init, n) => {
                r.random_states.0 = n;
                let mut w = replay(db, a, b, init, &outs, r, "search");
                if w.verdict == Verdict::Different {
                    w.reason = format!(
                        "{}; found by a search of {n} random and edge-case states after the solver gave up ({gave_up})",
                        w.reason
                    );
                }
                return w;
            }
            Search::Fault(_, _, n) | Search::Equal(n) => {
                r.random_states.0 = n;
                r.reason =
                    format!("{gave_up}; no witness among {n} random and edge-case states either");
            }
        }
    }
    r
}

/// What a random search found.
enum Search {
    /// An initial state where the outputs differ, after this many states.
    Differ(WaveState, u64),
    /// A state where a program faults, the error, and the states run.
    Fault(WaveState, String, u64),
    /// Equal on every state run.
    Equal(u64),
}

/// Runs `opts.samples` edge-biased random states (all SGPRs, VCC, EXEC, M0, SCC, the
/// named VGPRs; floats' edge cases among the values) through both programs.
fn random_search(
    arch: Arch,
    (ea, eb): (&mut Executor, &mut Executor),
    (a, b): (&Program, &Program),
    outs: &[Out],
    vgprs: &BTreeSet<u32>,
    rng: &mut Rng,
    opts: &Options,
) -> Search {
    let mut template = WaveState::new(arch, opts.wave);
    // Two run buffers, refilled from the template each time (no allocation per state).
    let (mut x, mut y) = (template.clone(), template.clone());
    for i in 0..opts.samples {
        randomize(&mut template, vgprs, rng);
        x.clone_from(&template);
        y.clone_from(&template);
        let ra = ea.run_fast(a, &mut x).map_err(|e| e.to_string());
        let rb = eb.run_fast(b, &mut y).map_err(|e| e.to_string());
        let n = i as u64 + 1;
        match (ra, rb) {
            (Ok(_), Ok(_)) => {
                if !same_outputs(&x, &y, outs) {
                    return Search::Differ(template, n);
                }
            }
            (Err(e), _) | (_, Err(e)) => return Search::Fault(template, e, n),
        }
    }
    Search::Equal(opts.samples as u64)
}

#[allow(clippy::too_many_arguments)]
fn prove(
    db: &SpecDb,
    a: &Program,
    b: &Program,
    pa: &Paths,
    pb: &Paths,
    outs: &[Out],
    solver: &Solver,
    opts: &Options,
    mut report: Report,
) -> Report {
    let arch = db.arch();
    // The unwinding check: no path may run past the bound; loops that run in lockstep are
    // proved by induction first, with no bound.
    let cuts: Vec<Term> = pa.cut.iter().chain(&pb.cut).cloned().collect();
    if !cuts.is_empty() {
        let lockstep_failure = match super::lockstep::prove(db, a, b, outs, solver, opts.wave) {
            Ok(()) => {
                report.verdict = Verdict::Equivalent;
                report.reason =
                    "proved for every input (loops in lockstep, by induction over the iterations)"
                        .into();
                return report;
            }
            Err(e) => format!(" (lockstep induction: {e})"),
        };
        let any = cuts
            .iter()
            .fold(Term::bool(false), |acc, c| term::or(&acc, c));
        match sat(solver, &[any], &[]) {
            Ok((false, _)) => {}
            Ok((true, _)) => {
                report.reason = format!(
                    "unknown past {} iterations: a loop may run longer{lockstep_failure}",
                    opts.unroll
                );
                return report;
            }
            Err(e) => {
                report.reason = format!("unwinding check: {e}{lockstep_failure}");
                return report;
            }
        }
    }
    let mut pairs: Vec<Term> = Vec::new();
    for &o in outs {
        let (x, y) = (merged(pa, o, arch), merged(pb, o, arch));
        for (s, t) in x.iter().zip(&y) {
            pairs.push(term::not(&term::eq(s, t)));
        }
    }
    let differs = pairs
        .iter()
        .fold(Term::bool(false), |acc, c| term::or(&acc, c));
    if differs.as_bool() == Some(false) {
        report.verdict = Verdict::Equivalent;
        report.reason = "proved (the outputs' terms are identical)".into();
        return report;
    }
    let vars = collect_vars(std::slice::from_ref(&differs));
    // The initial memory bytes a counterexample needs: at every address a path loads from
    // or stores to, evaluated in the model (not asserted: more applications of the initial
    // memory would cost the solver a quadratic number of congruence cases).
    let mut extra: Vec<Term> = Vec::new();
    let mut spaces: Vec<bool> = Vec::new();
    for f in pa.finals.iter().chain(&pb.finals) {
        for (lds, list) in [(false, &f.state.mem_touched), (true, &f.state.lds_touched)] {
            let bits = if lds { 32 } else { 64 };
            for a in list {
                extra.push(a.clone());
                extra.push(MemState::initial_byte(bits, a));
                spaces.push(lds);
            }
        }
    }
    match sat_with(solver, &[differs], &vars, &extra) {
        Ok((false, _, _)) => {
            report.verdict = Verdict::Equivalent;
            report.reason = "proved for every input".into();
            report
        }
        Ok((true, model, bytes)) => {
            let mut w = WaveState::new(arch, opts.wave);
            for (name, v) in &model {
                let x = v.low_u64();
                if let Some(c) = name.strip_prefix("|s:").and_then(|r| r.strip_suffix('|')) {
                    if let Ok(c) = c.parse::<u32>() {
                        w.write_sgpr(c, x as u32);
                    }
                } else if let Some(rest) =
                    name.strip_prefix("|v:").and_then(|r| r.strip_suffix('|'))
                {
                    if let Some((r, l)) = rest.split_once('@') {
                        if let (Ok(r), Ok(l)) = (r.parse(), l.parse()) {
                            w.set_vgpr(l, r, x as u32);
                        }
                    }
                } else if name == SCC_VAR {
                    w.scc = x & 1 == 1;
                }
            }
            for (k, lds) in spaces.iter().enumerate() {
                if let (Some(Some(a)), Some(Some(b))) = (bytes.get(2 * k), bytes.get(2 * k + 1)) {
                    let m = if *lds { &mut w.lds } else { &mut w.memory };
                    m.set(a.low_u64(), b.low_u64() as u8);
                }
            }
            replay(db, a, b, w, outs, report, "proof")
        }
        Err(e) => {
            report.reason = e;
            report.solver_gave_up = true;
            report
        }
    }
}

/// Output → (value after A, value after B).
type Differences = BTreeMap<String, (Value, Value)>;

/// The registers programs `a` and `b` read or write, with the outputs compared.
fn state_regs(db: &SpecDb, a: &Program, b: &Program, outs: &[Out], wave: u32) -> StateRegs {
    let arch = db.arch();
    let isa = crate::isa::Isa::new(db);
    let mut keep = StateRegs::default();
    // One checker per program: it prepares instructions by address.
    for p in [a, b] {
        let mut san = crate::sanitizer::Sanitizer::new(db, &isa, Default::default());
        let (s, v, scc) = san.registers_used(p.insts(), wave);
        keep.sgpr.extend(s);
        keep.vgpr.extend(v);
        keep.scc |= scc;
    }
    let pair = if wave == 64 { 2 } else { 1 };
    for &o in outs {
        match o {
            Out::S(n) | Out::Sreg(n, _) => {
                keep.sgpr.insert(n);
            }
            Out::Ttmp(n) => {
                keep.sgpr.insert(code::TTMP0 + n);
            }
            Out::Vcc => keep.sgpr.extend(code::VCC_LO..code::VCC_LO + pair),
            Out::Exec => keep.sgpr.extend(code::EXEC_LO..code::EXEC_LO + pair),
            Out::M0 => {
                keep.sgpr.insert(m0_code(arch));
            }
            Out::Scc => keep.scc = true,
            Out::V(r) => {
                keep.vgpr.insert(r);
            }
            Out::Memory => {}
        }
    }
    keep
}

/// `init` with every register the programs neither read nor write set to zero (EXEC kept),
/// its registers, and the differences it gives; `None` when it gives none (a register read
/// the operand tables do not show, such as an `s_movrels` source).
fn reduced(
    db: &SpecDb,
    a: &Program,
    b: &Program,
    init: &WaveState,
    outs: &[Out],
    (ia, ib): (&mut Executor, &mut Executor),
) -> Option<(WaveState, StateRegs, Differences)> {
    let keep = state_regs(db, a, b, outs, init.wave_size);
    let mut w = WaveState::new(init.arch, init.wave_size);
    w.mode = init.mode;
    w.memory = init.memory.clone();
    w.lds = init.lds.clone();
    for &c in &keep.sgpr {
        w.write_sgpr(c, init.read_sgpr(c));
    }
    w.set_exec(init.exec());
    if keep.scc {
        w.scc = init.scc;
    }
    for &r in &keep.vgpr {
        for l in 0..init.wave_size {
            w.set_vgpr(l, r, init.vgpr(l, r));
        }
    }
    let (x, y) = (run(ia, a, &w).ok()?, run(ib, b, &w).ok()?);
    let d = differences(&x, &y, outs);
    (!d.is_empty()).then_some((w, keep, d))
}

/// Replays a counterexample through the interpreter: different → the verdict; equal → a
/// translation bug (for a solver counterexample) reported loudly.
fn replay(
    db: &SpecDb,
    a: &Program,
    b: &Program,
    init: WaveState,
    outs: &[Out],
    mut report: Report,
    method: &'static str,
) -> Report {
    report.method = method;
    let (mut ia, mut ib) = match (
        Executor::new(db, Engine::Interp),
        Executor::new(db, Engine::Interp),
    ) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => {
            report.reason = e.to_string();
            return report;
        }
    };
    let (ra, rb) = (run(&mut ia, a, &init), run(&mut ib, b, &init));
    report.counterexample = Some(init);
    match (ra, rb) {
        (Ok(x), Ok(y)) => {
            let mut d = differences(&x, &y, outs);
            // Show only the state the programs read and write, when that alone (everything
            // else zero, as a state file leaves it) gives a difference too.
            if !d.is_empty() {
                if let Some(init) = &report.counterexample {
                    if let Some((small, keep, dd)) =
                        reduced(db, a, b, init, outs, (&mut ia, &mut ib))
                    {
                        report.counterexample = Some(small);
                        report.state_regs = Some(keep);
                        d = dd;
                    }
                }
            }
            if d.is_empty() {
                report.translation_bug = true;
                report.reason = format!(
                    "BUG: the {method} counterexample does not replay (both programs give the same outputs under the interpreter): the SMT translation disagrees with the interpreter"
                );
            } else {
                report.verdict = Verdict::Different;
                report.reason = format!(
                    "they differ in {} (replayed through the interpreter)",
                    d.keys().cloned().collect::<Vec<_>>().join(", ")
                );
                report.differences = d;
            }
        }
        (Err(e), _) | (_, Err(e)) => {
            report.reason = format!("the counterexample faults under the interpreter: {e}");
        }
    }
    report
}
