//! Loops proved by induction instead of unrolling: when each program is one loop (a single
//! backward branch) between straight-line code, the two are equivalent if (1) the code before
//! the loops leaves equal states at the loop heads, (2) one iteration of each body, from the
//! same arbitrary state at the head, takes the same branch decision and leaves equal states,
//! and (3) the code after the loops, from the same arbitrary state, gives equal outputs.
//! "Equal states" compares every register either program writes anywhere, so by induction on
//! the iterations the loops run in lockstep; this needs no bound on the trip count.

use std::collections::BTreeSet;

use crate::spec::SpecDb;
use crate::wave::Program;

use super::outputs::{merged, sym_written, Out};
use super::query::sat;
use super::solver::Solver;
use super::term::{self, Term};
use super::wave::{Paths, SymExec, SymWave};

/// The loop head (branch target) and exit (after the branch) of a one-loop program.
fn loop_shape(p: &Program) -> Option<(u64, u64)> {
    let mut found = None;
    for d in p.insts() {
        use crate::machine::Branch;
        if !matches!(d.facts.branch, Branch::Jump | Branch::Conditional) {
            continue;
        }
        let simm = d.inst.field("simm16")? as u16 as i16 as i64;
        let target = (d.addr as i64 + 4 + simm * 4) as u64;
        if target > d.addr || found.is_some() {
            return None;
        }
        found = Some((target, d.addr + d.size as u64));
    }
    found
}

fn at(pc: u64, p: &Paths) -> bool {
    p.finals.iter().all(|f| f.state.pc == pc)
}

/// Tries the lockstep proof; `Ok` when proved, `Err` with why not.
pub fn prove(
    db: &SpecDb,
    a: &Program,
    b: &Program,
    outs: &[Out],
    solver: &Solver,
    wave: u32,
) -> Result<(), String> {
    let arch = db.arch();
    let (Some((ha, xa)), Some((hb, xb))) = (loop_shape(a), loop_shape(b)) else {
        return Err("not one loop each".into());
    };
    let mut sx = SymExec::new(db);
    let start = |pc| {
        let mut s = SymWave::initial(arch, wave);
        s.pc = pc;
        s
    };
    let e = |x: super::translate::Unsupported| x.0;
    let pre = (
        sx.run_until(a, start(0), &[ha]).map_err(e)?,
        sx.run_until(b, start(0), &[hb]).map_err(e)?,
    );
    let body = (
        sx.run_until(a, start(ha), &[ha, xa]).map_err(e)?,
        sx.run_until(b, start(hb), &[hb, xb]).map_err(e)?,
    );
    let post = (
        sx.run_until(a, start(xa), &[]).map_err(e)?,
        sx.run_until(b, start(xb), &[]).map_err(e)?,
    );
    if !at(ha, &pre.0) || !at(hb, &pre.1) {
        return Err("the code before a loop does not always reach it".into());
    }
    for p in [&pre.0, &pre.1, &body.0, &body.1, &post.0, &post.1] {
        if !p.cut.is_empty() {
            return Err("a segment has an inner loop".into());
        }
    }
    let mut written = BTreeSet::new();
    for p in [&pre.0, &pre.1, &body.0, &body.1, &post.0, &post.1] {
        sym_written(p, arch, &mut written);
    }
    written.remove(&Out::Memory);
    let state: Vec<Out> = written.into_iter().collect();
    let differ = |x: &Paths, y: &Paths, regs: &[Out]| -> Term {
        let mut acc = Term::bool(false);
        for &o in regs {
            for (s, t) in merged(x, o, arch).iter().zip(&merged(y, o, arch)) {
                acc = term::or(&acc, &term::not(&term::eq(s, t)));
            }
        }
        acc
    };
    let back = |p: &Paths, head: u64| {
        p.finals
            .iter()
            .filter(|f| f.state.pc == head)
            .fold(Term::bool(false), |acc, f| term::or(&acc, &f.state.cond))
    };
    let checks = [
        (
            "the states at the loop heads",
            differ(&pre.0, &pre.1, &state),
        ),
        (
            "one iteration of the loop bodies",
            term::or(
                &term::not(&term::eq(&back(&body.0, ha), &back(&body.1, hb))),
                &differ(&body.0, &body.1, &state),
            ),
        ),
        ("the code after the loops", differ(&post.0, &post.1, outs)),
    ];
    for (what, q) in checks {
        if q.as_bool() == Some(false) {
            continue;
        }
        match sat(solver, &[q], &[]) {
            Ok((false, _)) => {}
            Ok((true, _)) => return Err(format!("{what} differ on some state")),
            Err(e) => return Err(format!("{what}: {e}")),
        }
    }
    Ok(())
}
