//! Register files addressed by the pseudocode itself (`VGPR[lane][reg]`, `SGPR[reg]`), held
//! as 32-bit symbolic words: what v_readlane, v_writelane, v_readfirstlane, v_permlane and the
//! relative moves read and write. Lanes and SGPR indices may be symbolic (a read becomes an
//! `ite` over the candidates); a VGPR register number must be known.

use std::collections::BTreeMap;

use crate::ir::Space;
use crate::value::Bits;

use super::memory::SymMem;
use super::term::{self, and, eq, Term};
use super::translate::{select, SymMemory, Unsupported, Val};

/// The symbolic register files.
pub struct RegFiles {
    /// Lanes of the wave.
    pub wave: u32,
    /// VGPR words by (lane, register).
    pub vgpr: BTreeMap<(u32, u32), Val>,
    /// SGPR words by index.
    pub sgpr: BTreeMap<u32, Val>,
    /// SGPR indices a symbolic index may take.
    pub sgpr_count: u32,
    /// The value of a VGPR word never written (lane, register).
    pub vgpr_default: Box<dyn Fn(u32, u32) -> Val>,
    /// The value of an SGPR word never written.
    pub sgpr_default: Box<dyn Fn(u32) -> Val>,
    /// The memory `MEM[ADDR]` addresses, when the instruction is a memory instruction.
    pub mem: Option<SymMem>,
}

type R<T> = Result<T, Unsupported>;

impl RegFiles {
    fn vword(&self, lane: u32, reg: u32) -> Val {
        self.vgpr
            .get(&(lane, reg))
            .cloned()
            .unwrap_or_else(|| (self.vgpr_default)(lane, reg))
    }

    fn sword(&self, idx: u32) -> Val {
        self.sgpr
            .get(&idx)
            .cloned()
            .unwrap_or_else(|| (self.sgpr_default)(idx))
    }

    fn read_words(&self, space: Space, lane: u32, first: u32, width: u32) -> Val {
        let n = width.div_ceil(32);
        let words: Vec<Term> = (0..n)
            .rev()
            .map(|i| match space {
                Space::Vgpr => self.vword(lane, first + i).term(),
                _ => self.sword(first + i).term(),
            })
            .collect();
        Val::of(term::zext(&term::concat(&words), width))
    }

    fn lane_cands(&self, lane: &Val) -> Vec<(Term, u32)> {
        match lane.konst() {
            Some(l) => vec![(Term::bool(true), l.low_u64() as u32)],
            None => {
                let t = lane.term();
                (0..self.wave)
                    .map(|l| (eq(&t, &Term::bv_u64(t.width(), l as u64)), l))
                    .collect()
            }
        }
    }

    fn index_cands(&self, addr: &Val) -> Vec<(Term, u32)> {
        match addr.konst() {
            Some(a) => vec![(Term::bool(true), a.low_u64() as u32)],
            None => {
                let t = addr.term();
                (0..self.sgpr_count)
                    .map(|i| (eq(&t, &Term::bv_u64(t.width(), i as u64)), i))
                    .collect()
            }
        }
    }

    fn write_word(&mut self, space: Space, lane: u32, idx: u32, word: &Val, bits: u32, g: &Term) {
        let old = match space {
            Space::Vgpr => self.vword(lane, idx),
            _ => self.sword(idx),
        };
        let new = if bits >= 32 {
            word.clone()
        } else {
            Val::of(term::concat(&[
                term::extract(&old.term(), bits, 32 - bits),
                term::extract(&word.term(), 0, bits),
            ]))
        };
        let v = select(g, &new, &old);
        match space {
            Space::Vgpr => {
                self.vgpr.insert((lane, idx), v);
            }
            _ => {
                self.sgpr.insert(idx, v);
            }
        }
    }
}

/// Selects among candidates: `ite(c0, v0, ite(c1, v1, ... last))`.
fn choose(cands: Vec<(Term, Val)>) -> Val {
    let mut it = cands.into_iter().rev();
    let Some((_, mut acc)) = it.next() else {
        return Val::C(Bits::zero(1));
    };
    for (c, v) in it {
        acc = select(&c, &v, &acc);
    }
    acc
}

impl SymMemory for RegFiles {
    fn load(&mut self, space: Space, lane: &Val, addr: &Val, width: u32) -> R<Val> {
        match space {
            Space::Vgpr => {
                let lanes = self.lane_cands(lane);
                match addr.konst() {
                    Some(r) => {
                        let reg = r.low_u64() as u32;
                        let cands = lanes
                            .into_iter()
                            .map(|(c, l)| (c, self.read_words(space, l, reg, width)))
                            .collect();
                        Ok(choose(cands))
                    }
                    None => {
                        // A register number computed from the inputs (relative moves): the
                        // registers this file holds, anything else reading as the default.
                        let t = addr.term();
                        let rows: std::collections::BTreeSet<u32> =
                            self.vgpr.keys().map(|(_, r)| *r).collect();
                        let mut cands = Vec::new();
                        for (cl, l) in lanes {
                            let mut v = (self.vgpr_default)(l, 0).zext(width);
                            for &r in rows.iter().rev() {
                                let c = eq(&t, &Term::bv_u64(t.width(), r as u64));
                                v = select(&c, &self.read_words(space, l, r, width), &v);
                            }
                            cands.push((cl, v));
                        }
                        Ok(choose(cands))
                    }
                }
            }
            Space::Sgpr => {
                let cands = self
                    .index_cands(addr)
                    .into_iter()
                    .map(|(c, i)| (c, self.read_words(space, 0, i, width)))
                    .collect();
                Ok(choose(cands))
            }
            Space::Mem => match self.mem.as_mut() {
                Some(m) => m.load(addr, width),
                None => Err(Unsupported(
                    "reads Mem (an ALU entry addressing memory)".into(),
                )),
            },
            other => Err(Unsupported(format!(
                "reads {other:?} (hardware registers are not modelled)"
            ))),
        }
    }

    fn store(&mut self, space: Space, lane: &Val, addr: &Val, value: &Val, guard: &Term) -> R<()> {
        let width = value.width();
        let n = width.div_ceil(32);
        let words: Vec<(Val, u32)> = (0..n)
            .map(|i| {
                let w = match value {
                    Val::C(b) => Val::C(b.zext(n * 32).extract(i as u64 * 32, 32)),
                    Val::T(t) => Val::of(term::extract(&term::zext(t, n * 32), i * 32, 32)),
                };
                (w, width.saturating_sub(i * 32).min(32))
            })
            .collect();
        match space {
            Space::Vgpr => {
                let regs: Vec<(Term, u32)> = match addr.konst() {
                    Some(r) => vec![(Term::bool(true), r.low_u64() as u32)],
                    None => {
                        // Only the registers this file holds can be observed afterwards.
                        let t = addr.term();
                        let rows: std::collections::BTreeSet<u32> =
                            self.vgpr.keys().map(|(_, r)| *r).collect();
                        rows.into_iter()
                            .map(|r| (eq(&t, &Term::bv_u64(t.width(), r as u64)), r))
                            .collect()
                    }
                };
                for (c, l) in self.lane_cands(lane) {
                    for (cr, reg) in &regs {
                        let g = and(guard, &and(&c, cr));
                        for (i, (w, bits)) in words.iter().enumerate() {
                            self.write_word(space, l, reg + i as u32, w, *bits, &g);
                        }
                    }
                }
                Ok(())
            }
            Space::Sgpr => {
                for (c, idx) in self.index_cands(addr) {
                    let g = and(guard, &c);
                    for (i, (w, bits)) in words.iter().enumerate() {
                        self.write_word(space, 0, idx + i as u32, w, *bits, &g);
                    }
                }
                Ok(())
            }
            Space::Mem => match self.mem.as_mut() {
                Some(m) => m.store(addr, value, guard),
                None => Err(Unsupported(
                    "writes Mem (an ALU entry addressing memory)".into(),
                )),
            },
            other => Err(Unsupported(format!(
                "writes {other:?} (hardware registers are not modelled)"
            ))),
        }
    }
}
