//! One symbolic step (bind, run, write back) and the exploration of a program's paths.

use super::*;

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
            let vgpr_dst = inst
                .operands
                .iter()
                .any(|o| o.field == "vdst" && o.kind.contains("VGPR"));
            if let (true, Some(r)) = (vgpr_dst, prepared.function.reg("D0")) {
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
        if d.ext.is_some() || d.inst.format.contains("DPP") || d.inst.format.contains("SDWA") {
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
            e: &e,
            family,
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
        let mut regs: Vec<SymReg> = Vec::with_capacity(f.regs.len());
        for (r, &pl) in f.regs.iter().zip(&p.per_lane) {
            let v = bind_named(&mut w, &cx, dst, &r.name, r.width)
                .unwrap_or_else(|| default_value(&w, cx.arch, &r.name, r.width));
            regs.push(fit(v, pl, r.width, lanes));
        }
        // Register files the text addresses itself.
        let text = crate::ir::print_function(f);
        let mut files = RegFiles {
            wave: lanes,
            vgpr: BTreeMap::new(),
            sgpr: BTreeMap::new(),
            sgpr_count: 128,
            vgpr_default: Box::new(|_, _| Val::C(Bits::zero(32))),
            sgpr_default: Box::new(|_| Val::C(Bits::zero(32))),
            mem: None,
        };
        let vgpr_space = text.contains("VGPR[");
        let sgpr_space = text.contains("SGPR[");
        if sgpr_space {
            for c in 0..128u32 {
                files.sgpr.insert(c, w.sgpr[c as usize].clone());
            }
        }
        let mut vgpr_rows: Vec<u32> = Vec::new();
        if vgpr_space {
            for name in ["SRC0", "SRC1", "SRC2", "VDST"] {
                if let Some(r) = f.reg(name) {
                    if let SymReg::Uniform(Val::C(b)) = &regs[r.0 as usize] {
                        let num = b.low_u64() as u32;
                        let is_vgpr = match name {
                            "VDST" => cx.operand("vdst").is_some_and(|o| o.kind.contains("VGPR")),
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
        if vgpr_space {
            for ((l, reg), v) in std::mem::take(&mut files.vgpr) {
                if (reg as usize) < crate::wave::N_VGPRS && l < lanes {
                    w.set_vgpr(reg, l, v);
                }
            }
        }
        if sgpr_space {
            for (c, v) in std::mem::take(&mut files.sgpr) {
                w.write_sgpr(cx.arch, c, v);
            }
        }
        let outputs: Vec<(String, SymReg)> = f
            .regs
            .iter()
            .enumerate()
            .filter(|(_, r)| r.written)
            .map(|(i, r)| (r.name.clone(), regs[i].clone()))
            .collect();
        let new_pc = self.write_back(&mut w, &cx, dst, &exec_at_issue, per_lane_run, outputs)?;
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

    fn write_mask(&self, w: &mut SymWave, c: u32, v: &Val, exec: &Term, per_lane_run: bool) {
        let v = term::zext(&v.term(), 64);
        let v = if per_lane_run {
            bvop("bvand", &[&v, exec])
        } else {
            v
        };
        let v = and64(&v, w.full_mask());
        w.write_sgpr(self.arch(), c, Val::of(extract(&v, 0, 32)));
        if w.wave_size == 64 {
            w.write_sgpr(self.arch(), c + 1, Val::of(extract(&v, 32, 32)));
        }
    }

    fn write_back(
        &self,
        w: &mut SymWave,
        cx: &Ctx<'_>,
        dst: Dest,
        exec: &Term,
        per_lane_run: bool,
        outputs: Vec<(String, SymReg)>,
    ) -> R<Option<Val>> {
        let arch = self.arch();
        let wb = write_back_info(cx);
        let vdst_bits = wb.vdst_bits;
        // MODE's denormal flushing of a float result, as `wave::fetch` writes it back.
        let flush = |v: Val| {
            if wb.ftz {
                Val::of(flush_denormal(&v.term(), wb.d_fbits))
            } else {
                v
            }
        };
        let mut new_pc = None;
        for (name, value) in outputs {
            match name.as_str() {
                "D0" => match dst {
                    Dest::Vgpr { reg, hi } => {
                        for lane in 0..w.wave_size {
                            let g = if per_lane_run {
                                term::bv_to_bool(&extract(exec, lane, 1))
                            } else {
                                Term::bool(true)
                            };
                            if g.as_bool() == Some(false) {
                                continue;
                            }
                            let mut v = match &value {
                                SymReg::Uniform(v) => v.clone(),
                                SymReg::Lanes(l) => l[lane as usize].clone(),
                            };
                            if vdst_bits >= 32 && vdst_bits < v.width() {
                                v = v.zext(vdst_bits);
                            }
                            let v = flush(v);
                            write_vgpr_value(w, lane, reg, hi, &v, arch.is_gfx9(), &g);
                        }
                    }
                    Dest::Sgpr(c) => write_sgprs(w, arch, c, &flush(first(&value))),
                    Dest::Mask(c) => self.write_mask(w, c, &first(&value), exec, per_lane_run),
                    Dest::None => {}
                },
                // The carry-out of V_MAD_U64_U32/V_MAD_I64_I32: bit 0 of each lane's D1
                // into the `sdst` lane mask (as `wave::fetch` writes it).
                "D1" if cx.family == "VOP3SD" => {
                    let bits: Vec<Term> = (0..w.wave_size)
                        .rev()
                        .map(|lane| {
                            let v = match &value {
                                SymReg::Uniform(v) => v.clone(),
                                SymReg::Lanes(l) => l[lane as usize].clone(),
                            };
                            extract(&v.term(), 0, 1)
                        })
                        .collect();
                    let mask = Val::of(term::concat(&bits));
                    self.write_mask(w, cx.field("sdst"), &mask, exec, per_lane_run);
                }
                "SCC" => w.scc = Val::of(extract(&first(&value).term(), 0, 1)),
                "VCC" => {
                    let v = first(&value);
                    if cx.family == "VOP3SD" {
                        self.write_mask(w, cx.field("sdst"), &v, exec, per_lane_run);
                    } else if cx.e.prepared.vector {
                        self.write_mask(w, code::VCC_LO, &v, exec, per_lane_run);
                    } else {
                        write_sgprs(w, arch, code::VCC_LO, &v.zext(64));
                    }
                }
                "EXEC" => {
                    let v = first(&value);
                    if cx.e.prepared.vector {
                        self.write_mask(w, code::EXEC_LO, &v, exec, per_lane_run);
                    } else {
                        write_sgprs(w, arch, code::EXEC_LO, &v.zext(64));
                    }
                }
                "EXEC_LO" => w.write_sgpr(arch, code::EXEC_LO, first(&value)),
                "EXEC_HI" => w.write_sgpr(arch, code::EXEC_HI, first(&value)),
                "VCC_LO" => w.write_sgpr(arch, code::VCC_LO, first(&value)),
                "VCC_HI" => w.write_sgpr(arch, code::VCC_HI, first(&value)),
                "M0" => w.write_sgpr(arch, m0_code(arch), first(&value)),
                "PC" => new_pc = Some(first(&value)),
                n if n.starts_with("TTMP") => {
                    if let Ok(t) = n[4..].parse::<u32>() {
                        w.write_sgpr(arch, code::TTMP0 + t, first(&value));
                    }
                }
                _ => {}
            }
        }
        Ok(new_pc)
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

fn write_sgprs(w: &mut SymWave, arch: Arch, c0: u32, v: &Val) {
    let t = v.term();
    let width = t.width();
    for i in 0..width.div_ceil(32) {
        let bits = (width - i * 32).min(32);
        let word = extract(&t, i * 32, bits);
        let old = w
            .sgpr
            .get((c0 + i) as usize)
            .cloned()
            .unwrap_or(Val::C(Bits::zero(32)));
        let new = if bits == 32 {
            word
        } else {
            term::concat(&[extract(&old.term(), bits, 32 - bits), word])
        };
        w.write_sgpr(arch, c0 + i, Val::of(new));
    }
}

fn write_vgpr_value(w: &mut SymWave, lane: u32, reg: u32, hi: bool, v: &Val, cdna: bool, g: &Term) {
    let t = v.term();
    let width = t.width();
    let put = |w: &mut SymWave, r: u32, new: Term| {
        let old = w.vgpr(r, lane);
        w.set_vgpr(r, lane, select(g, &Val::of(new), &old));
    };
    if width <= 16 {
        let x = term::zext(&t, 16);
        let old = w.vgpr(reg, lane).term();
        let new = if hi {
            term::concat(&[x, extract(&old, 0, 16)])
        } else if cdna {
            term::zext(&x, 32)
        } else {
            term::concat(&[extract(&old, 16, 16), x])
        };
        put(w, reg, new);
        return;
    }
    for i in 0..width.div_ceil(32) {
        let bits = (width - i * 32).min(32);
        let word = extract(&t, i * 32, bits);
        let new = if bits == 32 {
            word
        } else {
            let old = w.vgpr(reg + i, lane).term();
            term::concat(&[extract(&old, bits, 32 - bits), word])
        };
        put(w, reg + i, new);
    }
}
