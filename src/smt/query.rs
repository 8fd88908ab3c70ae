//! One satisfiability query: the conjunction of terms as an SMT-LIB script, the answer and
//! the model's values.

use super::memory::MemState;
use super::solver::{value_of, Sexp, Solver};
use super::term::{self, collect_vars, Term};

/// Asserts the conjunction of `facts`; returns satisfiability and the values of `vars`.
pub fn sat(
    solver: &Solver,
    facts: &[Term],
    vars: &[(String, term::Sort)],
) -> Result<(bool, Vec<(String, crate::value::Bits)>), String> {
    sat_with(solver, facts, vars, &[]).map(|(s, m, _)| (s, m))
}

type Model = Vec<(String, crate::value::Bits)>;

/// As [`sat`], and the model's values of the terms `extra` (in order; `None` where the
/// solver gave no bit-vector).
pub fn sat_with(
    solver: &Solver,
    facts: &[Term],
    vars: &[(String, term::Sort)],
    extra: &[Term],
) -> Result<(bool, Model, Vec<Option<crate::value::Bits>>), String> {
    let mut script = String::new();
    let all = collect_vars(facts);
    for (n, s) in &all {
        script.push_str(&format!("(declare-const {n} {})\n", s.smt()));
    }
    let body = term::let_expr(facts, &|r| {
        if r.len() == 1 {
            r[0].clone()
        } else {
            format!("(and {})", r.join(" "))
        }
    });
    for bits in [64, 32] {
        let probe = MemState::initial_byte(bits, &Term::bv_u64(bits, 0));
        if let term::Head::App(f) = probe.head() {
            if body.contains(&format!("({f} ")) {
                script.push_str(&MemState::declaration(bits));
            }
        }
    }
    script.push_str(&format!("(assert {body})\n(check-sat)\n"));
    if !vars.is_empty() {
        let names: Vec<&str> = vars.iter().map(|(n, _)| n.as_str()).collect();
        script.push_str(&format!("(get-value ({}))\n", names.join(" ")));
    }
    if !extra.is_empty() {
        let texts: Vec<String> = extra
            .iter()
            .map(|t| term::let_expr(std::slice::from_ref(t), &|r| r[0].clone()))
            .collect();
        script.push_str(&format!("(get-value ({}))\n", texts.join(" ")));
    }
    let answers = solver.run(&script).map_err(|e| e.to_string())?;
    match answers.first() {
        Some(Sexp::Atom(a)) if a == "unsat" => Ok((false, vec![], vec![])),
        Some(Sexp::Atom(a)) if a == "sat" => {
            let mut model = Vec::new();
            if let (Some(vals), false) = (answers.get(1), vars.is_empty()) {
                for (i, (n, _)) in vars.iter().enumerate() {
                    if let Some(v) = value_of(vals, i) {
                        model.push((n.clone(), v));
                    }
                }
            }
            let at = 1 + usize::from(!vars.is_empty());
            let values = match answers.get(at) {
                Some(vals) if !extra.is_empty() => {
                    (0..extra.len()).map(|i| value_of(vals, i)).collect()
                }
                _ => Vec::new(),
            };
            Ok((true, model, values))
        }
        Some(Sexp::Atom(a)) if a == "unknown" => {
            Err("the solver answered unknown (timeout or resource limit)".into())
        }
        // z3's answer when its own time limit (`-T`) ends the run.
        Some(Sexp::Atom(a)) if a == "timeout" => Err(format!(
            "the solver timed out after {} ms",
            solver.timeout_ms
        )),
        other => Err(format!("unexpected solver answer {other:?}")),
    }
}
