//! One symbolic step (bind, run, write back) and the exploration of a program's paths.

use super::domain::{sym_reg, Sym};
use super::*;
use crate::machine::{Encoding, RegSpaces};
use crate::wave::fetch::domain::Ctx;

impl SymExec {
    /// A symbolic executor for `db`'s arch.
    pub fn new(db: &SpecDb) -> SymExec {
        SymExec {
            db: db.clone(),
            cache: HashMap::new(),
            unroll: 70,
            max_paths: 4096,
        }
    }

    /// The arch.
    pub fn arch(&self) -> Arch {
        self.db.arch()
    }

    fn entry(&mut self, d: &Decoded) -> R<Rc<Entry>> {
        if let Some(e) = self.cache.get(&d.inst.name) {
            return Ok(e.clone());
        }
        let di = &d.inst;
        let all = self.db.get_all(&di.name);
        let inst = all
            .iter()
            .find(|i| i.encoding == di.family)
            .or_else(|| all.first())
            .ok_or_else(|| Unsupported(format!("{} is not in the spec database", di.name)))?;
        let mut prepared = exec::prepare(self.arch(), inst).map_err(|e| {
            Unsupported(format!(
                "{}: no executable pseudocode ({})",
                di.name,
                e.diagnostic.summary()
            ))
        })?;
        if prepared.vector && !prepared.wave_level && di.family == "VOP3SD" {
            if let (true, Some(r)) = (d.facts.vdst_vgpr, prepared.function.reg("D0")) {
                prepared.per_lane[r.0 as usize] = true;
            }
        }
        let e = Rc::new(Entry {
            inst: (*inst).clone(),
            optimized: prepared.optimized(),
            prepared,
        });
        self.cache.insert(di.name.clone(), e.clone());
        Ok(e)
    }

    /// Executes the instruction at `w.pc`; returns the successor states (several when the
    /// branch target depends on the inputs), or none when the program ended.
    fn step(&mut self, program: &Program, mut w: SymWave) -> R<(Vec<SymWave>, bool)> {
        if w.pc == program.size {
            return Ok((vec![w], true));
        }
        let Some(d) = program.at(w.pc) else {
            return Err(Unsupported(format!(
                "PC 0x{:x} is not an instruction",
                w.pc
            )));
        };
        if d.class == crate::wave::Class::End {
            return Ok((vec![w], true));
        }
        if d.class == crate::wave::Class::Noop {
            w.pc += d.size as u64;
            return Ok((vec![w], false));
        }
        let at = |m: String| Unsupported(format!("0x{:x} {}: {m}", d.addr, d.inst.name));
        let family = d.inst.family.as_str();
        if d.ext.is_some() || d.encoding != Encoding::Plain {
            return Err(at("DPP/SDWA forms are not modelled".into()));
        }
        if mem::is_modelled(&d.facts) {
            let e = self.entry(d)?;
            return self.step_memory(d, &e, w);
        }
        if !matches!(
            family,
            "SOP1"
                | "SOP2"
                | "SOPC"
                | "SOPK"
                | "SOPP"
                | "VOP1"
                | "VOP2"
                | "VOPC"
                | "VOP3"
                | "VOP3SD"
                | "VOP3P"
        ) {
            return Err(at(format!("{family} instructions are not modelled")));
        }
        let e = self.entry(d)?;
        let cx = Ctx {
            d,
            inst: &e.inst,
            prepared: &e.prepared,
            arch: self.arch(),
            mode: w.mode,
        };
        let p = &e.prepared;
        let f = &e.optimized.function;
        let wb = write_back_info(&cx);
        if wb.clamp || wb.omod != 0 {
            return Err(at("output modifiers (clamp, omod) are not modelled".into()));
        }
        let exec_at_issue = w.exec();
        let d0_width = f
            .reg("D0")
            .map(|r| f.regs[r.0 as usize].width)
            .unwrap_or(32);
        let dst = dest(&cx, d0_width);
        let lanes = w.wave_size;
        let mode = w.mode;
        let mut dom = Sym {
            w: &mut w,
            arch: cx.arch,
            refused: None,
        };
        let mut regs: Vec<SymReg> = Vec::with_capacity(f.regs.len());
        for (r, &pl) in f.regs.iter().zip(&p.per_lane) {
            let v = match decode::named(&cx, dst, &r.name) {
                Some(named) => bind_operand(&mut dom, &cx, named, r.width),
                None => Shape::Uniform(default_value(&mut dom, mode, &r.name, r.width)),
            };
            regs.push(sym_reg(fit::<Sym>(v, pl, r.width, lanes)));
        }
        if let Some(why) = dom.refused {
            return Err(at(why));
        }
        // Register files the text addresses itself.
        let mut files = RegFiles {
            wave: lanes,
            vgpr: BTreeMap::new(),
            sgpr: BTreeMap::new(),
            sgpr_count: 128,
            vgpr_default: Box::new(|_, _| Val::C(Bits::zero(32))),
            sgpr_default: Box::new(|_| Val::C(Bits::zero(32))),
            mem: None,
        };
        let spaces = RegSpaces::of(f);
        if spaces.sgpr {
            for c in 0..128u32 {
                files.sgpr.insert(c, w.sgpr[c as usize].clone());
            }
        }
        let mut vgpr_rows: Vec<u32> = Vec::new();
        if spaces.vgpr {
            for name in ["SRC0", "SRC1", "SRC2", "VDST"] {
                if let Some(r) = f.reg(name) {
                    if let SymReg::Uniform(Val::C(b)) = &regs[r.0 as usize] {
                        let num = b.low_u64() as u32;
                        let is_vgpr = match name {
                            "VDST" => d.facts.vdst_vgpr,
                            _ => {
                                let k = (name.as_bytes()[3] - b'0') as usize;
                                let field = cx.src_field(k).unwrap_or("src0");
                                field.starts_with('v') || cx.field(field) >= 256
                            }
                        };
                        if is_vgpr {
                            for i in 0..8 {
                                vgpr_rows.push(num + i);
                            }
                        }
                    }
                }
            }
            for &reg in &vgpr_rows {
                for l in 0..lanes {
                    let v = w.vgpr(reg, l);
                    files.vgpr.insert((l, reg), v);
                }
            }
        }
        let per_lane_run = p.vector && !p.wave_level;
        let limits = Limits::default();
        if per_lane_run {
            for lane in 0..lanes {
                let g = term::bv_to_bool(&extract(&exec_at_issue, lane, 1));
                if g.as_bool() == Some(false) {
                    continue;
                }
                run_lane(f, &mut regs, lane, g, &mut files, limits).map_err(|u| at(u.0))?;
            }
        } else {
            run_lane(f, &mut regs, 0, Term::bool(true), &mut files, limits).map_err(|u| at(u.0))?;
        }
        if spaces.vgpr {
            for ((l, reg), v) in std::mem::take(&mut files.vgpr) {
                if (reg as usize) < crate::wave::N_VGPRS && l < lanes {
                    w.set_vgpr(reg, l, v);
                }
            }
        }
        if spaces.sgpr {
            for (c, v) in std::mem::take(&mut files.sgpr) {
                w.write_sgpr(cx.arch, c, v);
            }
        }
        let mut dom = Sym {
            w: &mut w,
            arch: cx.arch,
            refused: None,
        };
        let exec = Val::of(exec_at_issue);
        let outs = f
            .regs
            .iter()
            .zip(&regs)
            .filter(|(r, _)| r.written)
            .map(|(r, v)| (r.name.as_str(), v));
        let new_pc = write_back(&mut dom, &cx, dst, &exec, outs, wb, None);
        if let Some(why) = dom.refused {
            return Err(at(why));
        }
        let fallthrough = d.addr + d.size as u64;
        let targets = match new_pc {
            None => vec![(Term::bool(true), fallthrough)],
            Some(v) => pc_targets(&v).ok_or_else(|| {
                let t = term::let_expr(&[v.term()], &|r| r[0].clone());
                at(format!("a branch target that is computed: {t}"))
            })?,
        };
        let mut out = Vec::new();
        for (c, t) in targets {
            let cond = and(&w.cond, &c);
            if cond.as_bool() == Some(false) {
                continue;
            }
            if t != program.size && program.at(t).is_none() {
                return Err(at(format!("branch to 0x{t:x}, outside the program")));
            }
            let mut next = w.clone();
            next.cond = cond;
            next.pc = t;
            out.push(next);
        }
        Ok((out, false))
    }

    /// Explores every path of `program` from `init`.
    ///
    /// # Errors
    /// The first instruction (or construct) this model does not translate, or too many paths.
    pub fn run(&mut self, program: &Program, init: SymWave) -> R<Paths> {
        self.run_until(program, init, &[])
    }

    /// Explores the paths of `program` from `init.pc` until each ends or reaches one of
    /// `stops` (after at least one instruction).
    ///
    /// # Errors
    /// As [`SymExec::run`].
    pub fn run_until(&mut self, program: &Program, init: SymWave, stops: &[u64]) -> R<Paths> {
        let mut stack = vec![init];
        let mut paths = Paths {
            finals: Vec::new(),
            cut: Vec::new(),
        };
        while let Some(mut w) = stack.pop() {
            loop {
                if stops.contains(&w.pc) && !w.visits.is_empty() {
                    paths.finals.push(Final { state: w });
                    break;
                }
                let n = w.visits.entry(w.pc).or_insert(0);
                *n += 1;
                if *n > self.unroll {
                    paths.cut.push(w.cond.clone());
                    break;
                }
                let (mut next, ended) = self.step(program, w)?;
                if ended {
                    paths
                        .finals
                        .extend(next.into_iter().map(|state| Final { state }));
                    break;
                }
                if paths.finals.len() + stack.len() + next.len() > self.max_paths {
                    return Err(Unsupported(format!(
                        "more than {} paths (branches on the inputs)",
                        self.max_paths
                    )));
                }
                match next.pop() {
                    Some(first) => {
                        stack.extend(next);
                        w = first;
                    }
                    None => break,
                }
            }
        }
        Ok(paths)
    }
}

/// The constant targets of a PC value built of `ite`s, with their conditions.
fn pc_targets(v: &Val) -> Option<Vec<(Term, u64)>> {
    fn walk(t: &Term, cond: Term, out: &mut Vec<(Term, u64)>) -> bool {
        if let Some(b) = t.as_bv() {
            out.push((cond, b.low_u64()));
            return true;
        }
        match (t.head(), t.args()) {
            (term::Head::App(op), [c, a, b]) if op == "ite" => {
                walk(a, and(&cond, c), out) && walk(b, and(&cond, &not(c)), out)
            }
            _ => false,
        }
    }
    let mut out = Vec::new();
    if !walk(&v.term(), Term::bool(true), &mut out) {
        return None;
    }
    // One entry per target, the conditions or-ed.
    let mut merged: Vec<(Term, u64)> = Vec::new();
    for (c, t) in out {
        match merged.iter_mut().find(|(_, u)| *u == t) {
            Some(m) => m.0 = term::or(&m.0, &c),
            None => merged.push((c, t)),
        }
    }
    Some(merged)
}
