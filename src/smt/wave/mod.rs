//! Symbolic execution of a whole program on one wavefront.
//!
//! Every register a program can read starts as a declared constant (`|s:5|`, `|v:3@17|`,
//! `|scc|`); each instruction is decoded by the wave layer ([`crate::wave::Program`]), its
//! operands fetched from the symbolic register files the way `wave::fetch` fetches them, its
//! pseudocode run by [`super::translate`], and its results written back (EXEC-masked). A branch
//! whose target depends on the inputs forks the path, with the branch condition added to the
//! path condition. An instruction reached more than `unroll` times on one path cuts that path:
//! the cut paths' conditions are the unwinding check (if one is satisfiable, no verdict past
//! that bound is sound).
//!
//! Operands are fetched and written back by the wave layer's own code
//! ([`crate::wave::fetch::operands`], [`crate::wave::fetch::writeback`]) over the symbolic
//! value domain (`domain.rs`): one decoder for both executors.
//!
//! Modelled: SOP1/SOP2/SOPC/SOPK/SOPP and VOP1/VOP2/VOPC/VOP3/VOP3SD/VOP3P without DPP/SDWA,
//! VOP3 `abs`/`neg`/`op_sel`, VOP3P packed selection, entries addressing the register files
//! (readlane, writelane, relative moves), GLOBAL and DS loads and stores on memory arrays
//! ([`crate::smt::memory`]). Not modelled (the program is refused with the reason): FLAT,
//! SCRATCH and SMEM, DS atomics, VOPD, DPP/SDWA, output modifiers (clamp, omod).

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use crate::exec::{self, Prepared};
use crate::spec::{Arch, Instruction, SpecDb};
use crate::value::Bits;
use crate::wave::decode::{self, dest, write_back_info, Facts};
use crate::wave::fetch::domain::Shape;
use crate::wave::fetch::operands::{bind_operand, default_value, fit};
use crate::wave::fetch::writeback::write_back;
use crate::wave::{code, m0_code, null_code, Decoded, Program};

use super::memory::MemState;
use super::regfile::RegFiles;
use super::term::{self, and, bvop, extract, not, Sort, Term};
use super::translate::{run_lane, select, Limits, SymReg, Unsupported, Val};

type R<T> = Result<T, Unsupported>;

/// The symbolic state of one wave on one path.
#[derive(Clone, Debug)]
pub struct SymWave {
    /// 32 or 64.
    pub wave_size: u32,
    /// The scalar file by operand code (128 codes of 32 bits).
    pub sgpr: Vec<Val>,
    /// SCC (1 bit).
    pub scc: Val,
    /// VGPRs touched so far: register → one 32-bit value per lane.
    pub vgpr: BTreeMap<u32, Vec<Val>>,
    /// The program counter (always known).
    pub pc: u64,
    /// MODE (concrete; the arch's default): denormal flushing, rounding, IEEE mode.
    pub mode: u32,
    /// The path condition.
    pub cond: Term,
    /// Global memory (bytes by 64-bit address).
    pub mem: MemState,
    /// LDS (bytes by 32-bit address).
    pub lds: MemState,
    /// Byte addresses global loads and stores touched on this path.
    pub mem_touched: Vec<Term>,
    /// Byte addresses LDS loads and stores touched on this path.
    pub lds_touched: Vec<Term>,
    /// Times each instruction address was executed on this path.
    visits: HashMap<u64, u32>,
}

/// The input constant of SGPR code `c`.
pub fn sgpr_var(c: u32) -> String {
    format!("|s:{c}|")
}

/// The input constant of VGPR `r` in `lane`.
pub fn vgpr_var(r: u32, lane: u32) -> String {
    format!("|v:{r}@{lane}|")
}

/// The input constant of SCC.
pub const SCC_VAR: &str = "|scc|";

impl SymWave {
    /// The initial state: every register an input.
    pub fn initial(arch: Arch, wave_size: u32) -> SymWave {
        let sgpr = (0..128)
            .map(|c| {
                if Some(c) == null_code(arch) {
                    Val::C(Bits::zero(32))
                } else {
                    Val::T(Term::var(&sgpr_var(c), Sort::Bv(32)))
                }
            })
            .collect();
        SymWave {
            wave_size,
            sgpr,
            scc: Val::T(Term::var(SCC_VAR, Sort::Bv(1))),
            vgpr: BTreeMap::new(),
            pc: 0,
            mode: crate::wave::default_mode(arch),
            cond: Term::bool(true),
            mem: MemState::initial(64),
            lds: MemState::initial(32),
            mem_touched: Vec::new(),
            lds_touched: Vec::new(),
            visits: HashMap::new(),
        }
    }

    /// VGPR `reg` of `lane`.
    pub fn vgpr(&mut self, reg: u32, lane: u32) -> Val {
        let n = self.wave_size;
        self.vgpr.entry(reg).or_insert_with(|| {
            (0..n)
                .map(|l| Val::T(Term::var(&vgpr_var(reg, l), Sort::Bv(32))))
                .collect()
        })[lane as usize]
            .clone()
    }

    fn set_vgpr(&mut self, reg: u32, lane: u32, v: Val) {
        self.vgpr(reg, lane);
        if let Some(row) = self.vgpr.get_mut(&reg) {
            row[lane as usize] = v;
        }
    }

    fn write_sgpr(&mut self, arch: Arch, c: u32, v: Val) {
        if Some(c) == null_code(arch) || c >= 128 {
            return;
        }
        self.sgpr[c as usize] = v.zext(32);
    }

    /// The full-wave lane mask.
    pub fn full_mask(&self) -> u64 {
        if self.wave_size >= 64 {
            u64::MAX
        } else {
            (1u64 << self.wave_size) - 1
        }
    }

    /// A 64-bit SGPR pair.
    pub fn pair(&self, lo: u32) -> Term {
        term::concat(&[
            self.sgpr[lo as usize + 1].term(),
            self.sgpr[lo as usize].term(),
        ])
    }

    /// EXEC masked to the wave.
    pub fn exec(&self) -> Term {
        and64(&self.pair(code::EXEC_LO), self.full_mask())
    }
}

fn and64(t: &Term, mask: u64) -> Term {
    if mask == u64::MAX {
        return t.clone();
    }
    bvop("bvand", &[t, &Term::bv_u64(64, mask)])
}

/// A prepared instruction of the program.
struct Entry {
    inst: Instruction,
    prepared: Prepared,
    optimized: Prepared,
}

/// Runs programs symbolically on one arch.
pub struct SymExec {
    db: SpecDb,
    cache: HashMap<String, Rc<Entry>>,
    /// Executions of one instruction on one path before the path is cut.
    pub unroll: u32,
    /// Paths explored before giving up.
    pub max_paths: usize,
}

/// The end of one path.
pub struct Final {
    /// Its state (its `cond` is the path condition).
    pub state: SymWave,
}

/// All paths of a program.
pub struct Paths {
    /// Paths that ended.
    pub finals: Vec<Final>,
    /// Conditions of paths cut at the unrolling bound.
    pub cut: Vec<Term>,
}

fn uni(width: u32, v: u64) -> SymReg {
    SymReg::Uniform(Val::C(Bits::from_u64(width, v)))
}

mod domain;
mod mem;
mod step;
