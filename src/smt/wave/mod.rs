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
use crate::wave::decode::{
    self, dest, src_mods, write_back_info, Dest, Facts, Mods, Named, Scalar,
};
use crate::wave::{code, m0_code, null_code, Decoded, Program};

use super::memory::MemState;
use super::regfile::RegFiles;
use super::term::{self, and, bvop, eq, extract, not, Sort, Term};
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

struct Ctx<'a> {
    d: &'a Decoded,
    e: &'a Entry,
    family: &'a str,
    arch: Arch,
    /// The wave's MODE (concrete: the symbolic executor does not model `s_setreg`).
    mode: u32,
}

impl Facts for Ctx<'_> {
    fn decoded(&self) -> &Decoded {
        self.d
    }
    fn entry_inst(&self) -> &Instruction {
        &self.e.inst
    }
    fn text(&self) -> &crate::ir::Function {
        &self.e.prepared.function
    }
    fn mode(&self) -> u32 {
        self.mode
    }
    fn arch(&self) -> Arch {
        self.arch
    }
}

fn scalar_src(w: &SymWave, cx: &Ctx<'_>, src: u32, width: u32, format: &str) -> Val {
    let bit = |b: Term| Val::of(term::zext(&term::bool_to_bv(&b), width));
    match decode::scalar(cx, src, width, format) {
        Scalar::Value(v) => Val::C(v),
        Scalar::Sgpr(c) => {
            let n = width.div_ceil(32).max(1);
            let words: Vec<Term> = (0..n)
                .rev()
                .map(|i| {
                    w.sgpr
                        .get((c + i) as usize)
                        .map_or(Term::bv_u64(32, 0), Val::term)
                })
                .collect();
            Val::of(term::zext(&term::concat(&words), width))
        }
        Scalar::Vccz => {
            let vcc = and64(&w.pair(code::VCC_LO), w.full_mask());
            bit(eq(&vcc, &Term::bv_u64(64, 0)))
        }
        Scalar::Execz => bit(eq(&w.exec(), &Term::bv_u64(64, 0))),
        Scalar::Scc => w.scc.zext(width),
    }
}

fn vgpr_read(w: &mut SymWave, reg: u32, hi: bool, width: u32, lane: u32) -> Val {
    let n = width.div_ceil(32).max(1) + hi as u32;
    let words: Vec<Term> = (0..n).rev().map(|i| w.vgpr(reg + i, lane).term()).collect();
    let all = term::concat(&words);
    let all = if hi {
        term::extract(&all, 16, all.width() - 16)
    } else {
        all
    };
    Val::of(term::zext(&all, width))
}

fn sign_bit(v: &Term, bit: u32, clear: bool, flip: bool) -> Term {
    let w = v.width();
    if bit >= w {
        return v.clone();
    }
    let one = Bits::from_u64(w, 1).shl(bit as u64);
    let mut t = v.clone();
    if clear {
        t = bvop("bvand", &[&t, &Term::bv(&one.not())]);
    }
    if flip {
        t = bvop("bvxor", &[&t, &Term::bv(&one)]);
    }
    t
}

/// A float of `fbits` held in `t` (of exactly that width) with a denormal value flushed to
/// a zero of its sign, as `wave::fetch` flushes under MODE; other widths unchanged.
fn flush_denormal(t: &Term, fbits: u32) -> Term {
    let man = match fbits {
        16 => 10,
        32 => 23,
        64 => 52,
        _ => return t.clone(),
    };
    if t.width() != fbits {
        return t.clone();
    }
    let exp = extract(t, man, fbits - 1 - man);
    let denormal = eq(&exp, &Term::bv_u64(fbits - 1 - man, 0));
    let signed_zero = term::concat(&[extract(t, fbits - 1, 1), Term::bv_u64(fbits - 1, 0)]);
    term::ite(&denormal, &signed_zero, t)
}

fn apply_mods(v: &Val, m: &Mods) -> Val {
    if m.is_plain() {
        return v.clone();
    }
    let mut t = v.term();
    if m.ftz && !m.opsel_hi {
        t = flush_denormal(&t, m.float_bits);
    }
    if let Some((sel_lo, sel_hi, neg_lo, neg_hi)) = m.packed {
        // Two halves: 16-bit in a 32-bit source, 32-bit in a 64-bit one (CDNA's packed f32).
        let width = t.width();
        let hw = width.min(64) / 2;
        let half = |hi: bool| term::extract(&t, if hi { hw } else { 0 }, hw);
        let mut lo = half(sel_lo);
        let mut hi = half(sel_hi);
        if m.float_bits == hw {
            lo = sign_bit(&lo, hw - 1, false, neg_lo);
            hi = sign_bit(&hi, hw - 1, false, neg_hi);
        }
        return Val::of(term::zext(&term::concat(&[hi, lo]), width));
    }
    if m.opsel_hi {
        t = bvop("bvlshr", &[&t, &Term::bv_u64(t.width(), 16)]);
        if m.ftz {
            let low = flush_denormal(&term::extract(&t, 0, 16), m.float_bits);
            t = term::zext(&low, t.width());
        }
    }
    if m.float_bits > 0 {
        let bit = m.float_bits.min(t.width()) - 1;
        t = sign_bit(&t, bit, m.abs, m.neg);
    }
    Val::of(t)
}

fn bind_source(w: &mut SymWave, cx: &Ctx<'_>, k: usize, field: &str, width: u32) -> SymReg {
    let mods = src_mods(cx, k, field, width);
    let (narrow, width) = if mods.opsel_hi && width < 32 {
        (Some(width), 32)
    } else {
        (None, width)
    };
    let fit = |v: Val| match narrow {
        Some(n) => v.zext(n),
        None => v,
    };
    let raw = cx.field(field);
    let op = cx.operand(field);
    let format = op.map(|o| o.format.as_str()).unwrap_or("").to_string();
    let bits = op.map(|o| o.bits).unwrap_or(width);
    let vgpr_field = field.starts_with('v') && field != "vdst";
    let src = if vgpr_field { raw + 256 } else { raw };
    if src >= 256 {
        let mut reg = src - 256;
        let mut hi = false;
        if cx.half_by_bit7(bits) && reg >= 128 {
            reg -= 128;
            hi = true;
        }
        let lanes = (0..w.wave_size)
            .map(|l| fit(apply_mods(&vgpr_read(w, reg, hi, width, l), &mods)))
            .collect();
        return SymReg::Lanes(lanes);
    }
    SymReg::Uniform(fit(apply_mods(
        &scalar_src(w, cx, src, width, &format),
        &mods,
    )))
}

fn uni(width: u32, v: u64) -> SymReg {
    SymReg::Uniform(Val::C(Bits::from_u64(width, v)))
}

fn uni_t(width: u32, t: Term) -> SymReg {
    SymReg::Uniform(Val::of(term::zext(&t, width)))
}

fn bind_named(w: &mut SymWave, cx: &Ctx<'_>, dst: Dest, name: &str, width: u32) -> Option<SymReg> {
    Some(match decode::named(cx, dst, name)? {
        Named::Source(k, field) => bind_source(w, cx, k, field, width),
        Named::Scalar(c) => SymReg::Uniform(scalar_src(w, cx, c, width, "")),
        Named::Value(v) => uni(width, v),
        Named::VgprNumber(n) => uni(width, n as u64),
        Named::VgprD0 { reg, hi } => SymReg::Lanes(
            (0..w.wave_size)
                .map(|l| vgpr_read(w, reg, hi, width, l))
                .collect(),
        ),
        Named::Scc => SymReg::Uniform(w.scc.zext(width)),
        Named::Pair(c) => uni_t(width, w.pair(c)),
        Named::Sgpr(c) => SymReg::Uniform(w.sgpr.get(c as usize)?.zext(width)),
        Named::Vccz => {
            let vcc = and64(&w.pair(code::VCC_LO), w.full_mask());
            uni_t(width, term::bool_to_bv(&eq(&vcc, &Term::bv_u64(64, 0))))
        }
        Named::Execz => uni_t(
            width,
            term::bool_to_bv(&eq(&w.exec(), &Term::bv_u64(64, 0))),
        ),
    })
}

fn default_value(w: &SymWave, arch: Arch, name: &str, width: u32) -> SymReg {
    match decode::default_named(arch, w.wave_size, w.mode, name) {
        decode::Default::Exec => uni_t(width, w.exec()),
        decode::Default::ExecLo => uni_t(width, term::extract(&w.exec(), 0, 32)),
        decode::Default::ExecHi => uni_t(width, term::extract(&w.exec(), 32, 32)),
        decode::Default::Execz => uni_t(
            width,
            term::bool_to_bv(&eq(&w.exec(), &Term::bv_u64(64, 0))),
        ),
        decode::Default::Vccz => {
            let vcc = and64(&w.pair(code::VCC_LO), w.full_mask());
            uni_t(width, term::bool_to_bv(&eq(&vcc, &Term::bv_u64(64, 0))))
        }
        decode::Default::Value(v) => uni(width, v),
    }
}

fn fit(v: SymReg, per_lane: bool, width: u32, lanes: u32) -> SymReg {
    match (v, per_lane) {
        (SymReg::Uniform(b), false) => SymReg::Uniform(b.zext(width)),
        (SymReg::Uniform(b), true) => SymReg::Lanes(vec![b.zext(width); lanes as usize]),
        (SymReg::Lanes(l), false) => SymReg::Uniform(
            l.into_iter()
                .next()
                .map_or(Val::C(Bits::zero(width)), |v| v.zext(width)),
        ),
        (SymReg::Lanes(l), true) => SymReg::Lanes(l.into_iter().map(|v| v.zext(width)).collect()),
    }
}

fn first(v: &SymReg) -> Val {
    match v {
        SymReg::Uniform(b) => b.clone(),
        SymReg::Lanes(l) => l.first().cloned().unwrap_or(Val::C(Bits::zero(1))),
    }
}

mod mem;
mod step;
