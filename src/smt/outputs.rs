//! The observable outputs of a program (registers, memory) and their values in the symbolic
//! final states: what `equiv` and `lockstep` compare.

use std::collections::BTreeSet;

use crate::spec::Arch;
use crate::wave::{code, m0_code, n_sgprs};

use super::term::{self, Term};
use super::translate::Val;
use super::wave::{sgpr_var, vgpr_var, Paths, SymWave, SCC_VAR};

/// One observable register (or memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Out {
    /// SGPR `s<n>`.
    S(u32),
    /// A named scalar register by its code (`vcc_lo`, `exec_hi`, `flat_scratch_lo`, ...).
    Sreg(u32, &'static str),
    /// Trap temporary `ttmp<n>`.
    Ttmp(u32),
    /// VCC (masked to the wave).
    Vcc,
    /// EXEC (masked to the wave).
    Exec,
    /// M0.
    M0,
    /// SCC.
    Scc,
    /// VGPR `v<n>`, every lane.
    V(u32),
    /// Global memory written.
    Memory,
}

impl Out {
    /// The name (`s4`, `vcc`, `v1`, ...).
    pub fn name(self) -> String {
        match self {
            Out::S(n) => format!("s{n}"),
            Out::Sreg(_, name) => name.to_string(),
            Out::Ttmp(n) => format!("ttmp{n}"),
            Out::Vcc => "vcc".into(),
            Out::Exec => "exec".into(),
            Out::M0 => "m0".into(),
            Out::Scc => "scc".into(),
            Out::V(n) => format!("v{n}"),
            Out::Memory => "memory".into(),
        }
    }
}

/// Parses an output list (`v1,exec,s[2:3]`): every register name the assembler accepts for
/// the arch (`s<n>`, `s[a:b]`, `v<n>`, `v[a:b]`, `ttmp<n>`, `ttmp[a:b]`, `vcc`, `vcc_lo`,
/// `vcc_hi`, `exec`, `exec_lo`, `exec_hi`, `m0`, CDNA's `flat_scratch*` and `xnack_mask*`),
/// `scc` and `memory`.
///
/// # Errors
/// The first name that is not a register.
pub fn parse_outputs(list: &str, arch: Arch) -> Result<Vec<Out>, String> {
    let mut out = Vec::new();
    for raw in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let n = raw.to_ascii_lowercase();
        let range = |p: &str| -> Option<(u32, u32)> {
            let rest = n.strip_prefix(p)?;
            if let Some(inner) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                let (a, b) = inner.split_once(':')?;
                let (a, b) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                return (b >= a).then_some((a, b));
            }
            rest.parse().ok().map(|a| (a, a))
        };
        match n.as_str() {
            "vcc" => out.push(Out::Vcc),
            "exec" => out.push(Out::Exec),
            "m0" => out.push(Out::M0),
            "scc" => out.push(Out::Scc),
            "memory" | "mem" => out.push(Out::Memory),
            _ => {
                if let Some((a, b)) = range("ttmp").filter(|&(_, b)| b < 16) {
                    out.extend((a..=b).map(Out::Ttmp));
                } else if let Some((a, b)) = range("s").filter(|&(_, b)| b < n_sgprs(arch)) {
                    out.extend((a..=b).map(Out::S));
                } else if let Some((a, b)) = range("v").filter(|&(_, b)| b < 256) {
                    out.extend((a..=b).map(Out::V));
                } else if let Some(regs) = named_sreg(arch, &n) {
                    out.extend(regs);
                } else {
                    return Err(format!(
                        "`{raw}` is not a register (s<n>, s[a:b], v<n>, v[a:b], ttmp<n>, vcc, vcc_lo, vcc_hi, exec, exec_lo, exec_hi, m0, scc, memory)"
                    ));
                }
            }
        }
    }
    Ok(out)
}

/// A named scalar register of the arch (`vcc_lo`, `exec_hi`, `flat_scratch`, ...) as the
/// outputs it stands for: the assembler's names (`isa::operands`), registers only (not
/// `null` or the constant sources).
fn named_sreg(arch: Arch, name: &str) -> Option<Vec<Out>> {
    let (code, count) = crate::isa::operands::special_code(arch, name)?;
    if code >= 128 || Some(code) == crate::wave::null_code(arch) {
        return None;
    }
    (code..code + count)
        .map(|c| {
            let text = crate::isa::operands::special_name(arch, c)?;
            Some(Out::Sreg(c, text))
        })
        .collect()
}

/// Adds to `into` every output some final state of `p` writes (a value other than its input).
pub fn sym_written(p: &Paths, arch: Arch, into: &mut BTreeSet<Out>) {
    for f in &p.finals {
        let w = &f.state;
        let input = |v: &Val, name: &str| matches!(v, Val::T(t) if *t == Term::var(name, term::Sort::Bv(t.width())));
        for c in 0..n_sgprs(arch) {
            if !input(&w.sgpr[c as usize], &sgpr_var(c)) {
                into.insert(Out::S(c));
            }
        }
        for (o, lo) in [(Out::Vcc, code::VCC_LO), (Out::Exec, code::EXEC_LO)] {
            if !input(&w.sgpr[lo as usize], &sgpr_var(lo))
                || (w.wave_size == 64 && !input(&w.sgpr[lo as usize + 1], &sgpr_var(lo + 1)))
            {
                into.insert(o);
            }
        }
        if !input(&w.sgpr[m0_code(arch) as usize], &sgpr_var(m0_code(arch))) {
            into.insert(Out::M0);
        }
        if !input(&w.scc, SCC_VAR) {
            into.insert(Out::Scc);
        }
        if !w.mem.untouched() || !w.lds.untouched() {
            into.insert(Out::Memory);
        }
        for (r, lanes) in &w.vgpr {
            if lanes
                .iter()
                .enumerate()
                .any(|(l, v)| !input(v, &vgpr_var(*r, l as u32)))
            {
                into.insert(Out::V(*r));
            }
        }
    }
}

/// An output's terms in one final state (one per lane for VGPRs).
fn out_terms(w: &SymWave, o: Out, arch: Arch) -> Vec<Term> {
    let mask = |t: Term| {
        if w.wave_size == 32 {
            term::extract(&t, 0, 32)
        } else {
            t
        }
    };
    match o {
        Out::S(n) | Out::Sreg(n, _) => vec![w.sgpr[n as usize].term()],
        Out::Ttmp(n) => vec![w.sgpr[(code::TTMP0 + n) as usize].term()],
        Out::Vcc => vec![mask(w.pair(code::VCC_LO))],
        Out::Exec => vec![mask(w.pair(code::EXEC_LO))],
        Out::M0 => vec![w.sgpr[m0_code(arch) as usize].term()],
        Out::Scc => vec![w.scc.term()],
        Out::V(r) => {
            let mut w = w.clone();
            (0..w.wave_size).map(|l| w.vgpr(r, l).term()).collect()
        }
        // The contents at one arbitrary address per space: the memories differ iff they
        // differ there for some value of the probe (easier for the solver than extensional
        // array equality).
        Out::Memory => [(&w.mem, "|probe:mem|"), (&w.lds, "|probe:lds|")]
            .into_iter()
            .map(|(m, probe)| m.byte(&Term::var(probe, term::Sort::Bv(m.addr_bits))))
            .collect(),
    }
}

/// The output merged over a program's paths: `ite(cond_1, v_1, ite(cond_2, v_2, ... v_n))`.
pub fn merged(p: &Paths, o: Out, arch: Arch) -> Vec<Term> {
    let mut acc: Option<Vec<Term>> = None;
    for f in p.finals.iter().rev() {
        let v = out_terms(&f.state, o, arch);
        acc = Some(match acc {
            None => v,
            Some(prev) => v
                .iter()
                .zip(prev)
                .map(|(x, y)| term::ite(&f.state.cond, x, &y))
                .collect(),
        });
    }
    acc.unwrap_or_default()
}
