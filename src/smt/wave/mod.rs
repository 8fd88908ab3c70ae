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
use crate::isa::operands::INLINE_FLOATS;
use crate::spec::{Arch, Instruction, Operand, SpecDb};
use crate::value::Bits;
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

fn float_bits(format: &str) -> u32 {
    if format.contains("F16") || format.contains("BF16") {
        16
    } else if format.contains("F64") {
        64
    } else if format.contains("_F") {
        32
    } else {
        0
    }
}

fn is_mask_format(format: &str) -> bool {
    format.contains("_M64") || format.contains("_M32")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dest {
    Vgpr { reg: u32, hi: bool },
    Sgpr(u32),
    Mask(u32),
    None,
}

struct Ctx<'a> {
    d: &'a Decoded,
    e: &'a Entry,
    family: &'a str,
    arch: Arch,
}

impl Ctx<'_> {
    fn field(&self, name: &str) -> u32 {
        self.d.inst.field(name).unwrap_or(0) as u32
    }
    fn has_field(&self, name: &str) -> bool {
        self.d.inst.field(name).is_some()
    }
    fn operand(&self, field: &str) -> Option<&Operand> {
        self.e.inst.operands.iter().find(|o| o.field == field)
    }
    fn is_vop3(&self) -> bool {
        matches!(self.family, "VOP3" | "VOP3SD" | "VOP3P")
    }
    fn reads(&self, name: &str) -> bool {
        self.e.prepared.function.reg(name).is_some()
    }
    fn src_field(&self, k: usize) -> Option<&'static str> {
        let f: &[&'static str] = match self.family {
            "SOP1" => &["ssrc0"],
            "SOP2" | "SOPC" => &["ssrc0", "ssrc1"],
            "VOP1" => &["src0"],
            "VOP2" | "VOPC" => &["src0", "vsrc1"],
            "VOP3" | "VOP3SD" | "VOP3P" => &["src0", "src1", "src2"],
            _ => &[],
        };
        f.get(k).copied()
    }
    fn half_by_bit7(&self, bits: u32) -> bool {
        bits == 16 && self.arch != Arch::Cdna && matches!(self.family, "VOP1" | "VOP2" | "VOPC")
    }
}

fn scalar_src(w: &SymWave, cx: &Ctx<'_>, src: u32, width: u32, format: &str) -> Val {
    let fbits = float_bits(format);
    let v: u64 = match src {
        128..=192 => (src - 128) as u64,
        193..=208 => (-((src - 192) as i64)) as u64,
        240..=248 => {
            let (_, _, _, f32b, f64b, f16b) = INLINE_FLOATS[(src - 240) as usize];
            if width >= 64 {
                f64b
            } else if fbits == 16 || (width == 16 && fbits == 0) {
                f16b as u64
            } else {
                f32b as u64
            }
        }
        251 => {
            let vcc = and64(&w.pair(code::VCC_LO), w.full_mask());
            return Val::of(term::zext(
                &term::bool_to_bv(&eq(&vcc, &Term::bv_u64(64, 0))),
                width,
            ));
        }
        252 => {
            return Val::of(term::zext(
                &term::bool_to_bv(&eq(&w.exec(), &Term::bv_u64(64, 0))),
                width,
            ))
        }
        253 => return w.scc.zext(width),
        255 => {
            let lit = cx.d.inst.literal.unwrap_or(0) as u64;
            if width >= 64 && fbits == 64 {
                lit << 32
            } else if width >= 64 && format.contains("I64") {
                lit as u32 as i32 as i64 as u64
            } else {
                lit
            }
        }
        c if c < 128 => {
            let n = width.div_ceil(32).max(1);
            let words: Vec<Term> = (0..n)
                .rev()
                .map(|i| {
                    w.sgpr
                        .get((c + i) as usize)
                        .map_or(Term::bv_u64(32, 0), Val::term)
                })
                .collect();
            return Val::of(term::zext(&term::concat(&words), width));
        }
        _ => 0,
    };
    let v = if (193..=208).contains(&src) || width > 64 {
        v
    } else {
        v & crate::value::mask64(width)
    };
    Val::C(Bits::from_u64(width, v))
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

#[derive(Clone, Copy, Default)]
struct Mods {
    opsel_hi: bool,
    abs: bool,
    neg: bool,
    float_bits: u32,
    packed: Option<(bool, bool, bool, bool)>,
}

fn src_mods(cx: &Ctx<'_>, k: usize, field: &str, width: u32) -> Mods {
    let format = cx.operand(field).map(|o| o.format.as_str()).unwrap_or("");
    let bits = cx.operand(field).map(|o| o.bits).unwrap_or(32);
    let mut m = Mods {
        float_bits: float_bits(format),
        ..Mods::default()
    };
    match cx.family {
        "VOP3" | "VOP3SD" => {
            if !cx.reads("OPSEL") && (bits == 16 || width == 16) {
                m.opsel_hi = cx.field("opsel") >> k & 1 == 1;
            }
            if !cx.reads("ABS") {
                m.abs = cx.field("abs") >> k & 1 == 1;
            }
            if !cx.reads("NEG") {
                m.neg = cx.field("neg") >> k & 1 == 1;
            }
        }
        "VOP3P" if !cx.reads("OPSEL") && !cx.reads("OPSEL_HI") => {
            let opsel_hi = cx.d.inst.field("opsel_hi").unwrap_or(3) as u32
                | (cx.d.inst.field("opsel_hi2").unwrap_or(1) as u32) << 2;
            let lo = cx.field("opsel") >> k & 1 == 1;
            let hi = opsel_hi >> k & 1 == 1;
            if format.contains("PK2") {
                m.packed = Some((
                    lo,
                    hi,
                    cx.field("neg") >> k & 1 == 1,
                    cx.field("neg_hi") >> k & 1 == 1,
                ));
            } else if !cx.reads("NEG") {
                m.neg = cx.field("neg") >> k & 1 == 1;
                m.abs = cx.field("neg_hi") >> k & 1 == 1;
            }
        }
        _ => {}
    }
    m
}

fn apply_mods(v: &Val, m: &Mods) -> Val {
    if m.packed.is_none() && !m.opsel_hi && !m.abs && !m.neg {
        return v.clone();
    }
    let t = v.term();
    if let Some((sel_lo, sel_hi, neg_lo, neg_hi)) = m.packed {
        let x = term::zext(&t, 32);
        let half = |hi: bool| term::extract(&x, if hi { 16 } else { 0 }, 16);
        let mut lo = half(sel_lo);
        let mut hi = half(sel_hi);
        if m.float_bits == 16 {
            lo = sign_bit(&lo, 15, false, neg_lo);
            hi = sign_bit(&hi, 15, false, neg_hi);
        }
        return Val::of(term::zext(&term::concat(&[hi, lo]), t.width()));
    }
    let mut t = t;
    if m.opsel_hi {
        t = bvop("bvlshr", &[&t, &Term::bv_u64(t.width(), 16)]);
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

fn dest(cx: &Ctx<'_>, width: u32) -> Dest {
    match cx.family {
        "SOP1" | "SOP2" | "SOPK" => Dest::Sgpr(cx.field("sdst")),
        "VOPC" => Dest::Mask(code::VCC_LO),
        "VOP1" | "VOP2" | "VOP3" | "VOP3SD" | "VOP3P" => {
            let op = cx.operand("vdst");
            let kind = op.map(|o| o.kind.as_str()).unwrap_or("OPR_VGPR");
            let format = op.map(|o| o.format.as_str()).unwrap_or("");
            let raw = cx.field("vdst");
            if kind == "OPR_EXEC" {
                Dest::None
            } else if kind.contains("VGPR") {
                let bits = op.map(|o| o.bits).unwrap_or(width);
                if cx.half_by_bit7(bits) && raw >= 128 {
                    Dest::Vgpr {
                        reg: raw - 128,
                        hi: true,
                    }
                } else {
                    let hi = cx.is_vop3()
                        && bits == 16
                        && cx.family != "VOP3P"
                        && cx.field("opsel") >> 3 & 1 == 1;
                    Dest::Vgpr { reg: raw, hi }
                }
            } else if is_mask_format(format) {
                Dest::Mask(raw)
            } else {
                Dest::Sgpr(raw)
            }
        }
        _ => Dest::None,
    }
}

fn uni(width: u32, v: u64) -> SymReg {
    SymReg::Uniform(Val::C(Bits::from_u64(width, v)))
}

fn uni_t(width: u32, t: Term) -> SymReg {
    SymReg::Uniform(Val::of(term::zext(&t, width)))
}

fn bind_named(w: &mut SymWave, cx: &Ctx<'_>, dst: Dest, name: &str, width: u32) -> Option<SymReg> {
    let arch = cx.arch;
    Some(match name {
        "S0" | "S1" | "S2" => {
            let k = (name.as_bytes()[1] - b'0') as usize;
            match cx.src_field(k) {
                Some(field) if cx.has_field(field) => bind_source(w, cx, k, field, width),
                _ if cx.family == "SOPK" && k == 0 => {
                    SymReg::Uniform(scalar_src(w, cx, cx.field("sdst"), width, ""))
                }
                _ => return None,
            }
        }
        "D0" => match dst {
            Dest::Vgpr { reg, hi } => SymReg::Lanes(
                (0..w.wave_size)
                    .map(|l| vgpr_read(w, reg, hi, width, l))
                    .collect(),
            ),
            Dest::Sgpr(c) => SymReg::Uniform(scalar_src(w, cx, c, width, "")),
            _ => return None,
        },
        "SCC" => SymReg::Uniform(w.scc.zext(width)),
        "VCC" => {
            let src2_mask = cx.is_vop3()
                && cx
                    .operand("src2")
                    .is_some_and(|o| is_mask_format(&o.format));
            if src2_mask {
                uni_t(width, w.pair(cx.field("src2")))
            } else {
                uni_t(width, w.pair(code::VCC_LO))
            }
        }
        "EXEC" => uni_t(width, w.pair(code::EXEC_LO)),
        "EXEC_LO" => SymReg::Uniform(w.sgpr[code::EXEC_LO as usize].zext(width)),
        "EXEC_HI" => SymReg::Uniform(w.sgpr[code::EXEC_HI as usize].zext(width)),
        "VCC_LO" => SymReg::Uniform(w.sgpr[code::VCC_LO as usize].zext(width)),
        "VCC_HI" => SymReg::Uniform(w.sgpr[code::VCC_HI as usize].zext(width)),
        "VCCZ" => {
            let vcc = and64(&w.pair(code::VCC_LO), w.full_mask());
            uni_t(width, term::bool_to_bv(&eq(&vcc, &Term::bv_u64(64, 0))))
        }
        "EXECZ" => uni_t(
            width,
            term::bool_to_bv(&eq(&w.exec(), &Term::bv_u64(64, 0))),
        ),
        "M0" => SymReg::Uniform(w.sgpr[m0_code(arch) as usize].zext(width)),
        "PC" => uni(width, cx.d.addr),
        "SIMM16" => uni(width, cx.field("simm16") as u64),
        "SIMM32" => uni(width, cx.d.inst.literal.unwrap_or(0) as u64),
        "SRC0" | "SRC1" | "SRC2" | "VDST" | "SDST" => {
            let field = match name {
                "VDST" => "vdst",
                "SDST" => "sdst",
                "SRC0" => cx.src_field(0).unwrap_or("src0"),
                "SRC1" => cx.src_field(1).unwrap_or("src1"),
                _ => cx.src_field(2).unwrap_or("src2"),
            };
            let raw = cx.field(field);
            let num = if field.starts_with('v') || field == "vdst" || raw < 256 {
                raw
            } else {
                raw - 256
            };
            uni(width, num as u64)
        }
        "OPSEL" => uni(width, cx.field("opsel") as u64),
        "OPSEL_HI" => uni(
            width,
            (cx.d.inst.field("opsel_hi").unwrap_or(3) as u32
                | (cx.d.inst.field("opsel_hi2").unwrap_or(1) as u32) << 2) as u64,
        ),
        "NEG" => uni(width, cx.field("neg") as u64),
        "NEG_HI" => uni(width, cx.field("neg_hi") as u64),
        "ABS" => uni(width, cx.field("abs") as u64),
        "OMOD" => uni(width, cx.field("omod") as u64),
        "CLAMP" => uni(width, cx.field("clmp") as u64),
        n if n.starts_with("TTMP") => {
            let t = n[4..].parse::<u32>().ok()?;
            SymReg::Uniform(w.sgpr.get((code::TTMP0 + t) as usize)?.zext(width))
        }
        _ => return None,
    })
}

fn default_value(w: &SymWave, name: &str, width: u32) -> SymReg {
    let z = |b: bool| uni(width, b as u64);
    match name {
        "EXEC" => uni_t(width, w.exec()),
        "EXEC_LO" => uni_t(width, term::extract(&w.exec(), 0, 32)),
        "EXEC_HI" => uni_t(width, term::extract(&w.exec(), 32, 32)),
        "WAVE32" | "wave32" => z(w.wave_size == 32),
        "WAVE64" | "wave64" => z(w.wave_size == 64),
        "WAVE_MODE.IEEE" => z(true),
        _ => uni(width, 0),
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
