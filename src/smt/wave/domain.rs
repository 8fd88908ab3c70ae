//! The symbolic value domain: the wave layer's operand fetch and write-back
//! ([`crate::wave::fetch`]) over SMT terms. Registers are the [`SymWave`]'s files, a lane
//! guard is a boolean term, and a write under a guard that is not known true keeps the old
//! value where it fails (`ite`). DPP lane selection, SDWA selects, VOP3 output modifiers
//! and CDNA's GPR-index mode are not modelled: asking for one records the refusal the step
//! reports.

use crate::spec::Arch;
use crate::value::Bits;
use crate::wave::decode::{Mods, WriteBackInfo};
use crate::wave::fetch::domain::{Domain, DomainMut, Shape};
use crate::wave::fetch::writeback::Output;
use crate::wave::null_code;

use super::super::term::{self, bvop, eq, extract, Term};
use super::super::translate::{select, SymReg, Val};
use super::SymWave;

/// A [`SymWave`] as a value domain.
pub(super) struct Sym<'a> {
    pub(super) w: &'a mut SymWave,
    pub(super) arch: Arch,
    /// The first encoding feature asked for that the symbolic executor does not model.
    pub(super) refused: Option<String>,
}

impl Sym<'_> {
    fn refuse(&mut self, what: &str) {
        if self.refused.is_none() {
            self.refused = Some(format!("{what} are not modelled"));
        }
    }
}

fn sign_term(v: &Term, bit: u32, clear: bool, flip: bool) -> Term {
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
fn flush_term(t: &Term, fbits: u32) -> Term {
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

fn mods_term(v: &Val, m: &Mods) -> Val {
    if m.is_plain() {
        return v.clone();
    }
    let mut t = v.term();
    if m.ftz && !m.opsel_hi {
        t = flush_term(&t, m.float_bits);
    }
    if let Some((sel_lo, sel_hi, neg_lo, neg_hi)) = m.packed {
        // Two halves: 16-bit in a 32-bit source, 32-bit in a 64-bit one (CDNA's packed f32).
        let width = t.width();
        let hw = width.min(64) / 2;
        let half = |hi: bool| term::extract(&t, if hi { hw } else { 0 }, hw);
        let mut lo = half(sel_lo);
        let mut hi = half(sel_hi);
        if m.float_bits == hw {
            lo = sign_term(&lo, hw - 1, false, neg_lo);
            hi = sign_term(&hi, hw - 1, false, neg_hi);
        }
        return Val::of(term::zext(&term::concat(&[hi, lo]), width));
    }
    if m.opsel_hi {
        t = bvop("bvlshr", &[&t, &Term::bv_u64(t.width(), 16)]);
        if m.ftz {
            let low = flush_term(&term::extract(&t, 0, 16), m.float_bits);
            t = term::zext(&low, t.width());
        }
    }
    if m.float_bits > 0 {
        let bit = m.float_bits.min(t.width()) - 1;
        t = sign_term(&t, bit, m.abs, m.neg);
    }
    Val::of(t)
}

impl Domain for Sym<'_> {
    type Val = Val;

    fn arch(&self) -> Arch {
        self.arch
    }
    fn wave_size(&self) -> u32 {
        self.w.wave_size
    }
    fn constant(b: Bits) -> Val {
        Val::C(b)
    }
    fn width(v: &Val) -> u32 {
        v.width()
    }
    fn zext(v: Val, width: u32) -> Val {
        v.zext(width)
    }
    fn extract(v: &Val, lo: u32, width: u32) -> Val {
        match v {
            Val::C(b) => Val::C(b.extract(lo as u64, width)),
            Val::T(t) => Val::of(extract(t, lo, width)),
        }
    }
    fn concat(hi: &Val, lo: &Val) -> Val {
        Val::of(term::concat(&[hi.term(), lo.term()]))
    }
    fn and(a: &Val, b: &Val) -> Val {
        let ones = |v: &Val| v.konst().is_some_and(|c| c.not().is_zero());
        match (a, b) {
            (Val::C(x), Val::C(y)) => Val::C(x.and(y)),
            (_, y) if ones(y) => a.clone(),
            (x, _) if ones(x) => b.clone(),
            _ => Val::of(bvop("bvand", &[&a.term(), &b.term()])),
        }
    }
    fn is_zero(v: &Val) -> Val {
        let t = v.term();
        Val::of(term::bool_to_bv(&eq(&t, &Term::bv_u64(t.width(), 0))))
    }
    fn apply_mods(v: Val, m: &Mods) -> Val {
        mods_term(&v, m)
    }
    fn flush_denormal(v: Val, fbits: u32) -> Val {
        Val::of(flush_term(&v.term(), fbits))
    }
    fn sgpr(&mut self, code: u32) -> Val {
        if Some(code) == null_code(self.arch) {
            return Val::C(Bits::zero(32));
        }
        self.w
            .sgpr
            .get(code as usize)
            .cloned()
            .unwrap_or(Val::C(Bits::zero(32)))
    }
    fn vgpr(&mut self, lane: u32, reg: u32) -> Val {
        self.w.vgpr(reg, lane)
    }
    fn scc(&mut self) -> Val {
        self.w.scc.clone()
    }
    fn dpp_source_lane(&mut self, _: (u32, u32), lane: u32) -> Option<u32> {
        self.refuse("DPP source lanes");
        Some(lane)
    }
    fn sdwa_select(&mut self, _: u32, _: usize, v: Val) -> Val {
        self.refuse("SDWA source selects");
        v
    }
}

impl DomainMut for Sym<'_> {
    type Guard = Term;

    fn lane_guard(&self, exec: &Val, lane: u32) -> Option<Term> {
        let g = term::bv_to_bool(&extract(&exec.term(), lane, 1));
        (g.as_bool() != Some(false)).then_some(g)
    }
    fn any_guard(&self, exec: &Val) -> Option<Term> {
        let t = exec.term();
        let g = term::not(&eq(&t, &Term::bv_u64(t.width(), 0)));
        (g.as_bool() != Some(false)).then_some(g)
    }
    fn select(g: &Term, new: Val, old: Val) -> Val {
        select(g, &new, &old)
    }
    fn write_sgpr(&mut self, code: u32, v: Val) {
        self.w.write_sgpr(self.arch, code, v);
    }
    fn write_vgpr(&mut self, lane: u32, reg: u32, v: Val) {
        self.w.set_vgpr(reg, lane, v);
    }
    fn set_scc(&mut self, v: Val) {
        self.w.scc = v;
    }
    fn sdwa_merge(&mut self, _: u32, _: Val, v: Val) -> Val {
        self.refuse("SDWA destination selects");
        v
    }
    fn result_mods(&mut self, v: Val, _: &WriteBackInfo) -> Val {
        self.refuse("output modifiers (clamp, omod)");
        v
    }
    fn set_gpr_idx_enabled(&mut self, _: Val) {
        self.refuse("GPR index modes");
    }
}

impl Output<Val> for SymReg {
    fn lane(&self, lane: u32) -> Val {
        match self {
            SymReg::Uniform(v) => v.clone(),
            SymReg::Lanes(l) => l[lane as usize].clone(),
        }
    }
    fn first(&self) -> Val {
        match self {
            SymReg::Uniform(v) => v.clone(),
            SymReg::Lanes(l) => l.first().cloned().unwrap_or(Val::C(Bits::zero(1))),
        }
    }
}

/// A fetched value as the translator binds it.
pub(super) fn sym_reg(v: Shape<Val>) -> SymReg {
    match v {
        Shape::Uniform(v) => SymReg::Uniform(v),
        Shape::Lanes(l) => SymReg::Lanes(l),
    }
}

/// A bound register as the fetch shapes it.
pub(super) fn shape(v: SymReg) -> Shape<Val> {
    match v {
        SymReg::Uniform(v) => Shape::Uniform(v),
        SymReg::Lanes(l) => Shape::Lanes(l),
    }
}
