//! The proofs shown on the seed instructions' pages: a program using the instruction against
//! the same computation written with other instructions, checked by `amdpcode equiv`'s
//! machinery (random states, then the solver when z3 is available).
//!
//! Each program is written once; where generations spell an instruction differently
//! (`s_and_not1_b64` / `s_andn2_b64`, `v_add_nc_u32` / `v_add_u32`), a line lists the
//! spellings and the first one the generation's assembler accepts is used, so a new
//! generation needs no change here.

use crate::isa::Isa;
use crate::smt::equiv::{self, Mode, Options, Verdict};
use crate::smt::Solver;
use crate::spec::SpecDb;
use crate::wave::Program;

/// One equivalence shown on a page.
pub struct Proof {
    /// The heading.
    pub title: &'static str,
    /// What the two programs compute.
    pub about: &'static str,
    /// The wave size.
    pub wave: u32,
    /// The outputs compared, in `equiv --outputs` syntax.
    pub outputs: &'static str,
    /// Program A (with the instruction) and program B, as assembled on this generation.
    pub a: String,
    /// Program B.
    pub b: String,
    /// The verdict as text: proved, equivalent on random states, or different.
    pub verdict: String,
    /// The CSS class of the verdict.
    pub class: &'static str,
    /// How it was decided (method, time), or why the solver did not run.
    pub detail: String,
}

/// A program line: alternative spellings, the first the assembler accepts wins.
type Line = &'static [&'static str];

struct Pair {
    title: &'static str,
    about: &'static str,
    /// The instruction names (any generation's) whose pages show it.
    insts: &'static [&'static str],
    wave: u32,
    outputs: &'static str,
    a: &'static [Line],
    b: &'static [Line],
}

const WATERFALL_LOOP_HEAD: [Line; 5] = [
    &["s_mov_b64 s[2:3], exec"],
    &["s_mov_b64 s[4:5], exec"],
    &["loop:"],
    &["v_readfirstlane_b32 s0, v0"],
    &["v_cmpx_eq_u32_e32 s0, v0", "v_cmpx_eq_u32_e32 vcc, s0, v0"],
];

const WATERFALL_BODY: Line = &["v_add_nc_u32_e32 v1, s0, v1", "v_add_u32_e32 v1, s0, v1"];

const PAIRS: &[Pair] = &[
    Pair {
        title: "Waterfall loop",
        about:
            "The loop AMD's description gives for this instruction: each pass takes the \
                index of the first active lane (v0), runs the body for every lane with that \
                index, then removes those lanes from EXEC with one instruction; against the \
                same loop with the two instructions it replaces (AND-NOT with EXEC, then a move \
                to EXEC). Compared: v1 (the body's result), EXEC and the saved mask after the loop.",
        insts: &["S_AND_NOT1_WREXEC_B64", "S_ANDN2_WREXEC_B64"],
        wave: 64,
        outputs: "v1,exec,s[2:3]",
        a: &[
            WATERFALL_LOOP_HEAD[0],
            WATERFALL_LOOP_HEAD[1],
            WATERFALL_LOOP_HEAD[2],
            WATERFALL_LOOP_HEAD[3],
            WATERFALL_LOOP_HEAD[4],
            WATERFALL_BODY,
            &[
                "s_and_not1_wrexec_b64 s[4:5], s[4:5]",
                "s_andn2_wrexec_b64 s[4:5], s[4:5]",
            ],
            &["s_cbranch_scc1 loop"],
            &["s_mov_b64 exec, s[2:3]"],
        ],
        b: &[
            WATERFALL_LOOP_HEAD[0],
            WATERFALL_LOOP_HEAD[1],
            WATERFALL_LOOP_HEAD[2],
            WATERFALL_LOOP_HEAD[3],
            WATERFALL_LOOP_HEAD[4],
            WATERFALL_BODY,
            &[
                "s_and_not1_b64 s[4:5], s[4:5], exec",
                "s_andn2_b64 s[4:5], s[4:5], exec",
            ],
            &["s_mov_b64 exec, s[4:5]"],
            &["s_cbranch_scc1 loop"],
            &["s_mov_b64 exec, s[2:3]"],
        ],
    },
    Pair {
        title: "Whole quad mode from shifts and masks",
        about: "The quad mask computed with shifts, ORs and a mask: OR each group of four bits \
                into its lowest bit, keep only those bits, then spread each back over its \
                group. Compared: the destination s[0:1] and SCC.",
        insts: &["S_WQM_B64"],
        wave: 64,
        outputs: "s[0:1],scc",
        a: &[&["s_wqm_b64 s[0:1], s[2:3]"]],
        b: &[
            &["s_lshr_b64 s[6:7], s[2:3], 1"],
            &["s_or_b64 s[6:7], s[6:7], s[2:3]"],
            &["s_lshr_b64 s[8:9], s[6:7], 2"],
            &["s_or_b64 s[6:7], s[6:7], s[8:9]"],
            &["s_mov_b32 s10, 0x11111111"],
            &["s_mov_b32 s11, 0x11111111"],
            &["s_and_b64 s[6:7], s[6:7], s[10:11]"],
            &["s_lshl_b64 s[8:9], s[6:7], 1"],
            &["s_or_b64 s[6:7], s[6:7], s[8:9]"],
            &["s_lshl_b64 s[8:9], s[6:7], 2"],
            &["s_or_b64 s[0:1], s[6:7], s[8:9]"],
        ],
    },
];

/// The program text for this generation, or the first line no spelling of assembles.
fn spell(isa: &Isa, lines: &[Line]) -> Result<String, String> {
    let mut out = String::new();
    for alternatives in lines {
        let chosen = alternatives
            .iter()
            .find(|l| l.ends_with(':') || isa.assemble(&format!("loop:\n{l}")).is_ok())
            .ok_or_else(|| format!("`{}` does not assemble", alternatives[0]))?;
        out.push_str(chosen);
        out.push('\n');
    }
    Ok(out)
}

/// Whether `name` has a proof on its page.
pub fn has_proof(name: &str) -> bool {
    PAIRS.iter().any(|p| p.insts.contains(&name))
}

/// The proofs for instruction `name` on `db`'s generation. `solver`: z3 when found (else the
/// message saying why not), used for the proof after the random states.
pub fn proofs(db: &SpecDb, name: &str, solver: &Result<Solver, String>) -> Vec<Proof> {
    let isa = Isa::new(db);
    let mut out = Vec::new();
    for pair in PAIRS.iter().filter(|p| p.insts.contains(&name)) {
        let texts = spell(&isa, pair.a).and_then(|a| Ok((a, spell(&isa, pair.b)?)));
        let (a, b) = match texts {
            Ok(t) => t,
            Err(e) => {
                out.push(Proof {
                    title: pair.title,
                    about: pair.about,
                    wave: pair.wave,
                    outputs: pair.outputs,
                    a: String::new(),
                    b: String::new(),
                    verdict: "not checked".into(),
                    class: "unknown",
                    detail: format!("on this generation {e}"),
                });
                continue;
            }
        };
        let programs =
            Program::assemble(&isa, &a).and_then(|pa| Ok((pa, Program::assemble(&isa, &b)?)));
        let outputs = equiv::parse_outputs(pair.outputs, db.arch());
        let (verdict, class, detail) = match (programs, outputs) {
            (Ok((pa, pb)), Ok(outs)) => {
                let opts = Options {
                    wave: pair.wave,
                    outputs: Some(outs),
                    ignore: Vec::new(),
                    mode: if solver.is_ok() {
                        Mode::Both
                    } else {
                        Mode::Random
                    },
                    samples: 1000,
                    unroll: 70,
                    solver: solver.as_ref().ok().cloned(),
                    seed: 0x5eed,
                };
                let r = equiv::check(db, &pa, &pb, &opts);
                let random = format!(
                    "{} random states ({:.2} s)",
                    r.random_states.0, r.random_states.1
                );
                match (r.verdict, r.method) {
                    (Verdict::Equivalent, "proof") => (
                        "equivalent (proved)".to_string(),
                        "equivalent",
                        format!(
                            "Equal on {random}, then proved by z3 in {:.2} s. {}",
                            r.proof_seconds, r.reason
                        ),
                    ),
                    (Verdict::Equivalent, _) => (
                        format!(
                            "equivalent on {} random states (not proved)",
                            r.random_states.0
                        ),
                        "random",
                        match solver {
                            Err(why) => format!("No proof: {why}."),
                            Ok(_) => format!("The solver did not decide: {}", r.reason),
                        },
                    ),
                    (Verdict::Different, m) => {
                        let d: Vec<String> = r
                            .differences
                            .iter()
                            .map(|(k, (x, y))| format!("{k}: A {x}, B {y}"))
                            .collect();
                        (format!("different ({m})"), "different", d.join("; "))
                    }
                    (Verdict::Unknown, _) => ("unknown".into(), "unknown", r.reason.clone()),
                }
            }
            (Err(e), _) => ("not checked".into(), "unknown", e.to_string()),
            (_, Err(e)) => ("not checked".into(), "unknown", e),
        };
        out.push(Proof {
            title: pair.title,
            about: pair.about,
            wave: pair.wave,
            outputs: pair.outputs,
            a,
            b,
            verdict,
            class,
            detail,
        });
    }
    out
}
