//! The SMT backend: the translation agrees with the interpreter (solver model evaluation on
//! random inputs), coverage per arch, and the equivalence checker's verdicts.
//!
//! These tests need z3. Without it they print a notice and pass, except under `CI=true`,
//! where a missing z3 fails them (`.ci/run` installs it).

mod common;

use amdpcode::exec;
use amdpcode::smt::alu::{self, CheckResult};
use amdpcode::smt::Solver;
use amdpcode::spec::Arch;

fn solver() -> Option<Solver> {
    match Solver::find(None) {
        Ok(s) => Some(s),
        Err(e) => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("CI: {e}");
            }
            eprintln!("skipping: {e}");
            None
        }
    }
}

fn check(arch: Arch, inst: &str, wave: u32) -> CheckResult {
    let db = common::spec().db(arch);
    let i = db
        .get_all(inst)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{inst} not in {arch}"));
    let p = exec::prepare(arch, i).expect("compiles");
    alu::check_entry(&p, &solver().unwrap(), 20, 7, wave)
}

#[test]
fn known_entries_agree_with_the_interpreter() {
    if solver().is_none() {
        return;
    }
    let only = std::env::var("AMDPCODE_SMT_INST").ok();
    for (inst, wave) in [
        ("S_ADD_U32", 32),
        ("S_AND_NOT1_WREXEC_B64", 64),
        ("S_CTZ_I32_B32", 32),
        ("V_ADD_F32", 32),
        ("V_FMA_F32", 32),
        ("V_CMP_LT_F32", 64),
        ("V_CVT_I32_F32", 32),
        ("V_MAX_F32", 32),
        ("V_ADD_CO_CI_U32", 32),
    ] {
        if only.as_deref().is_some_and(|o| o != inst) {
            continue;
        }
        assert_eq!(check(Arch::Rdna3, inst, wave), CheckResult::Agree, "{inst}");
    }
}

/// `AMDPCODE_SMT_SAMPLES` random states per entry (default 8).
#[test]
fn coverage_per_arch() {
    let Some(s) = solver() else { return };
    let samples = std::env::var("AMDPCODE_SMT_SAMPLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let only = std::env::var("AMDPCODE_SMT_ARCH").ok();
    for arch in Arch::ALL {
        if only.as_deref().is_some_and(|o| o != arch.name()) {
            continue;
        }
        let st = alu::smt_stats(common::spec().db(arch), &s, samples);
        eprintln!(
            "{arch}: {} of {} executing ALU entries translated and agree ({:.1}%), {} unsupported, {} mismatches, {} solver failures",
            st.agree,
            st.alu_executes,
            100.0 * st.agree as f64 / st.alu_executes.max(1) as f64,
            st.unsupported.len(),
            st.mismatches.len(),
            st.solver_failures.len()
        );
        for (i, m) in &st.unsupported {
            eprintln!("  UNSUPPORTED {i}: {m}");
        }
        for (i, m) in &st.mismatches {
            eprintln!("  MISMATCH {i}: {m}");
        }
        for (i, m) in &st.solver_failures {
            eprintln!("  SOLVER {i}: {m}");
        }
        assert!(st.mismatches.is_empty(), "{arch}: translation disagrees");
        assert!(
            st.agree * 100 >= st.alu_executes * 95,
            "{arch}: coverage below 95%"
        );
    }
}
