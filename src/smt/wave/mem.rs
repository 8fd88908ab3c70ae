//! Global-memory (GLOBAL, RDNA 4's VGLOBAL) and LDS (DS) instructions on symbolic memory
//! arrays ([`crate::smt::memory`]). Addresses are formed as `wave::memory` forms them
//! (`saddr` + 32-bit `vaddr` or a 64-bit `vaddr`, plus the signed immediate offset; DS:
//! the 32-bit `addr` VGPR, with the offset in the address when the text does not add it),
//! the entry's text runs per active lane against the array, and loads write `vdst`.
//! Refused: FLAT (its aperture depends on the address), SCRATCH, SMEM, and the DS entries
//! that are not plain loads and stores (atomics, swizzles, permutes, append/consume, GWS).

use super::domain::{shape, sym_reg, Sym};
use super::*;
use crate::machine::{InstFacts, MemKind, Rtn};
use crate::smt::memory::SymMem;

fn sext_bits(v: u64, bits: u32) -> u64 {
    (((v << (64 - bits)) as i64) >> (64 - bits)) as u64
}

/// Whether the symbolic executor models this memory kind (global and LDS).
pub(super) fn is_modelled(f: &InstFacts) -> bool {
    matches!(f.mem, MemKind::Global | MemKind::Lds)
}

impl SymExec {
    /// One GLOBAL or DS instruction.
    pub(super) fn step_memory(
        &mut self,
        d: &Decoded,
        e: &Entry,
        mut w: SymWave,
    ) -> R<(Vec<SymWave>, bool)> {
        let at = |m: String| Unsupported(format!("0x{:x} {}: {m}", d.addr, d.inst.name));
        let facts = &d.facts;
        let lds = facts.mem == MemKind::Lds;
        // Plain DS loads and stores: no atomic (exchanges and `_RTN` forms included), no
        // ADDTID, swizzle or permute, and not the DS no-op.
        let plain = !facts.atomic
            && !facts.addtid
            && !facts.permutes
            && (facts.stores || facts.rtn == Rtn::Always);
        if lds && !plain {
            return Err(at("only plain DS loads and stores are modelled".into()));
        }
        let has = |n: &str| d.inst.field(n).is_some();
        let fname = |n: &'static str| -> &'static str {
            match n {
                "addr" if !has("addr") && has("vaddr") => "vaddr",
                "data" if !has("data") && has("vsrc") => "vsrc",
                "offset" if !has("offset") && has("ioffset") => "ioffset",
                o => o,
            }
        };
        let field = |n: &'static str| d.inst.field(fname(n)).unwrap_or(0);
        let listed = |n: &str| e.inst.operands.iter().any(|o| o.field == n);
        let has_op = |n: &'static str| listed(fname(n)) || listed(n);
        let f = &e.prepared.function;
        let lanes = w.wave_size;
        let mode = w.mode;
        let exec = w.exec();
        let active = |l: u32| term::bv_to_bool(&extract(&exec, l, 1));
        // The address of each lane.
        let vaddr = field("addr") as u32;
        let addrs: Vec<Term> = if lds {
            let folded = ["OFFSET", "OFFSET0", "OFFSET1"]
                .iter()
                .all(|n| f.reg(n).is_none());
            let off = if folded {
                field("offset0") | field("offset1") << 8
            } else {
                0
            };
            (0..lanes)
                .map(|l| {
                    let v = w.vgpr(vaddr, l).term();
                    term::zext(&bvop("bvadd", &[&v, &Term::bv_u64(32, off)]), 64)
                })
                .collect()
        } else {
            let null = crate::wave::null_code(self.arch()).unwrap_or(u32::MAX) as u64;
            let saddr = field("saddr");
            let saddr_on = has("saddr") && saddr != null && saddr != 0x7f;
            let bits = if has("ioffset") { 24 } else { 13 };
            let off = Term::bv_u64(64, sext_bits(field("offset"), bits));
            (0..lanes)
                .map(|l| {
                    let base = if saddr_on {
                        bvop(
                            "bvadd",
                            &[
                                &w.pair(saddr as u32),
                                &term::zext(&w.vgpr(vaddr, l).term(), 64),
                            ],
                        )
                    } else {
                        term::concat(&[w.vgpr(vaddr + 1, l).term(), w.vgpr(vaddr, l).term()])
                    };
                    bvop("bvadd", &[&base, &off])
                })
                .collect()
        };
        // A lane's address matters only where the lane runs.
        let addrs: Vec<Term> = addrs
            .iter()
            .enumerate()
            .map(|(l, a)| term::assuming(a, &active(l as u32)))
            .collect();
        let vwords = |w: &mut SymWave, reg: u32, width: u32, l: u32| -> Val {
            let n = width.div_ceil(32).max(1);
            let words: Vec<Term> = (0..n).rev().map(|i| w.vgpr(reg + i, l).term()).collect();
            Val::of(term::zext(&term::concat(&words), width))
        };
        let data_field: &'static str = if has_op("data") { "data" } else { "data0" };
        let mut regs: Vec<SymReg> = Vec::with_capacity(f.regs.len());
        for (r, &pl) in f.regs.iter().zip(&e.prepared.per_lane) {
            let width = r.width;
            let per_lane = |w: &mut SymWave, reg: u32| {
                SymReg::Lanes((0..lanes).map(|l| vwords(w, reg, width, l)).collect())
            };
            let v = match r.name.as_str() {
                "ADDR" => SymReg::Lanes(
                    addrs
                        .iter()
                        .map(|a| Val::of(term::zext(&extract(a, 0, width.min(64)), width)))
                        .collect(),
                ),
                "OFFSET" => uni(
                    width,
                    if lds {
                        field("offset0") | field("offset1") << 8
                    } else {
                        field("offset")
                    },
                ),
                "OFFSET0" => uni(width, field("offset0")),
                "OFFSET1" => uni(width, field("offset1")),
                "DATA" | "DATA0" => per_lane(&mut w, field(data_field) as u32),
                "DATA1" | "DATA2" => per_lane(&mut w, field("data1") as u32),
                "VDATA" => {
                    let reg = if has_op("data") && !has_op("vdst") {
                        field("data")
                    } else {
                        field("vdst")
                    };
                    per_lane(&mut w, reg as u32)
                }
                "RETURN_DATA" => per_lane(&mut w, field("vdst") as u32),
                "EXEC" => SymReg::Uniform(Val::of(term::zext(&exec, width))),
                "M0" => SymReg::Uniform(w.sgpr[m0_code(self.arch()) as usize].zext(width)),
                other => {
                    let mut dom = Sym {
                        w: &mut w,
                        arch: self.arch(),
                        refused: None,
                    };
                    SymReg::Uniform(default_value(&mut dom, mode, other, width))
                }
            };
            regs.push(sym_reg(fit::<Sym>(shape(v), pl, width, lanes)));
        }
        let state = if lds { w.lds.clone() } else { w.mem.clone() };
        let mut files = RegFiles {
            wave: lanes,
            vgpr: BTreeMap::new(),
            sgpr: BTreeMap::new(),
            sgpr_count: 128,
            vgpr_default: Box::new(|_, _| Val::C(Bits::zero(32))),
            sgpr_default: Box::new(|_| Val::C(Bits::zero(32))),
            mem: Some(SymMem::new(state)),
        };
        // The text runs lane by lane, in lane order, as the engines run it.
        for lane in 0..lanes {
            let g = active(lane);
            if g.as_bool() == Some(false) {
                continue;
            }
            run_lane(f, &mut regs, lane, g, &mut files, Limits::default()).map_err(|u| at(u.0))?;
        }
        let Some(m) = files.mem.take() else {
            return Err(at("bug: the memory array went missing".into()));
        };
        if lds {
            w.lds = m.state;
            w.lds_touched.extend(m.touched);
        } else {
            w.mem = m.state;
            w.mem_touched.extend(m.touched);
        }
        // Loads (and returning atomics) write vdst in the active lanes.
        let returns = facts.returns_data(|n| d.inst.field(n));
        if has_op("vdst") && returns {
            let reg = field("vdst") as u32;
            for (i, r) in f.regs.iter().enumerate() {
                if !r.written || !matches!(r.name.as_str(), "RETURN_DATA" | "VDATA") {
                    continue;
                }
                for lane in 0..lanes {
                    let g = active(lane);
                    if g.as_bool() == Some(false) {
                        continue;
                    }
                    let v = match &regs[i] {
                        SymReg::Uniform(v) => v.clone(),
                        SymReg::Lanes(l) => l[lane as usize].clone(),
                    };
                    let t = v.term();
                    for k in 0..t.width().div_ceil(32) {
                        let word =
                            term::zext(&extract(&t, k * 32, (t.width() - k * 32).min(32)), 32);
                        let old = w.vgpr(reg + k, lane);
                        w.set_vgpr(reg + k, lane, select(&g, &Val::of(word), &old));
                    }
                }
            }
        }
        w.pc = d.addr + d.size as u64;
        Ok((vec![w], false))
    }
}
