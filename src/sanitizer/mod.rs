//! Kernel sanitizer: finds the bugs of hand-written kernels that a functional
//! emulator hides because it completes every memory access at once.
//!
//! This module owns the checking state and nothing else: per-wave outstanding-operation
//! counters, LDS (and, when asked, global) shadow memory with barrier epochs, and a short
//! instruction history for the hazards the ISA makes software avoid. It is fed through one
//! narrow interface, [`Sanitizer::observe`], called after every executed instruction with
//! the workgroup, the wave's index in it, the decoded instruction and the wave state before
//! and after (exactly the arguments of `dispatch::Trace` and, with a fixed workgroup and
//! wave, of `wave::Executor::run_traced`). What an instruction reads and writes comes from
//! its decoded operand table (`isa::Inst::operands`, the spec's operand fields) and the
//! bytes the memory layer reports in `WaveState::last_access`; there are no lists of
//! mnemonics. See docs/sanitizer.md for the model per arch.

mod defined;
mod hazards;
mod hazards_ldsdir;
mod hazards_rdna;
mod hazards_sgpr;
mod history;
mod operands;

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::rc::Rc;

pub use defined::Initial;

use crate::isa::Isa;
use crate::machine::{Counter, Event, Family};
use crate::spec::{Arch, SpecDb};
use crate::wave::{Barrier, Class, Decoded, MemAccess, MemSpace, WaveState};
use operands::{implicit_regs, is_memory, memory_event, operand_file_regs, operand_list, Opnd};

/// What a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A register read (or overwritten) while a load that writes it is still outstanding.
    MissingWait,
    /// Two waves of a workgroup access the same LDS bytes, one writes, no barrier between.
    LdsRace,
    /// Two waves of a dispatch access the same global bytes, one writes, unordered.
    GlobalRace,
    /// A dependency the ISA requires software to separate by wait states.
    Hazard,
    /// Undefined bits decide a branch, EXEC or a memory address.
    Uninit,
}

impl Kind {
    /// The name printed and used in `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::MissingWait => "missing-wait",
            Kind::LdsRace => "lds-race",
            Kind::GlobalRace => "global-race",
            Kind::Hazard => "hazard",
            Kind::Uninit => "uninit",
        }
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The kind.
    pub kind: Kind,
    /// The workgroup.
    pub workgroup: [u32; 3],
    /// The wave's index in its workgroup.
    pub wave: u32,
    /// The instruction that exposes the bug.
    pub pc: u64,
    /// Its text.
    pub inst: String,
    /// The earlier instruction it conflicts with: its wave, PC and text.
    pub earlier: Option<(u32, u64, String)>,
    /// The register (`v3`, `s[4:5]`) or address (`lds[0x10]`, `global[0x...]`).
    pub location: String,
    /// What is wrong, in words.
    pub detail: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.workgroup;
        write!(
            f,
            "{}: workgroup ({x},{y},{z}) wave {} pc 0x{:x} `{}`: {} ({})",
            self.kind.name(),
            self.wave,
            self.pc,
            self.inst,
            self.location,
            self.detail
        )?;
        if let Some((w, pc, text)) = &self.earlier {
            write!(f, "; earlier: wave {w} pc 0x{pc:x} `{text}`")?;
        }
        Ok(())
    }
}

impl Finding {
    /// The finding as a JSON object.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "kind": self.kind.name(),
            "workgroup": self.workgroup,
            "wave": self.wave,
            "pc": format!("0x{:x}", self.pc),
            "inst": self.inst,
            "location": self.location,
            "detail": self.detail,
        });
        if let Some((w, pc, text)) = &self.earlier {
            v["earlier"] = serde_json::json!({"wave": w, "pc": format!("0x{pc:x}"), "inst": text});
        }
        v
    }
}

/// The findings as a JSON array.
pub fn findings_json(findings: &[Finding]) -> serde_json::Value {
    serde_json::Value::Array(findings.iter().map(Finding::to_json).collect())
}

/// Parses the value of `--check` (`all`, the default, or `global-races`).
pub fn options_from_flag(value: &str) -> Option<Options> {
    match value {
        "" | "all" => Some(Options::default()),
        "global-races" => Some(Options { global_races: true }),
        _ => None,
    }
}

/// What to check beyond the default set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Races on global memory between waves of the dispatch (`--check=global-races`).
    pub global_races: bool,
}

/// A register range: file (`s`, `v`, `a`, `t`) and register numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Regs {
    file: char,
    first: u32,
    count: u32,
}

impl Regs {
    fn overlaps(&self, o: &Regs) -> Option<u32> {
        if self.file != o.file {
            return None;
        }
        let lo = self.first.max(o.first);
        (lo < (self.first + self.count).min(o.first + o.count)).then_some(lo)
    }
}

fn reg_name(file: char, r: u32) -> String {
    match file {
        't' => format!("ttmp{r}"),
        _ => format!("{file}{r}"),
    }
}

/// An operation issued and not yet known to be complete.
#[derive(Clone, Debug)]
struct Pending {
    counter: Counter,
    event: Event,
    pc: u64,
    text: Rc<str>,
    /// The registers its return writes (loads, returning atomics).
    writes: Vec<Regs>,
    /// It writes memory (a store or an atomic).
    store: bool,
}

#[derive(Default)]
struct WaveTrack {
    pending: Vec<Pending>,
    arrived: u32,
    passed: u32,
    history: VecDeque<history::Past>,
    /// SGPRs whose next SALU read needs `depctr_sa_sdst(0)` (RDNA 3 wave64).
    mask_armed: Vec<history::Armed>,
    /// RDNA 4's SGPR read hazard state.
    sgpr: hazards_sgpr::SgprHazards,
    /// Definedness of the wave's registers and scratch (created at its first instruction).
    def: Option<defined::WaveDef>,
}

/// What the checker derives from one instruction alone (cached per address: one checker
/// sees one program, so an address is one instruction).
struct Prepared {
    text: Rc<str>,
    ops: Vec<Opnd>,
    /// `ops` with AGPRs as the VGPR-file rows the definedness model keeps them in
    /// (`AGPR_ROW + k`, as the wave state does).
    def_ops: Vec<Opnd>,
    info: Rc<defined::InstInfo>,
    /// Explicit operands.
    reads: Rc<[Regs]>,
    writes: Rc<[Regs]>,
    /// Explicit and implicit operands.
    wait_reads: Rc<[Regs]>,
    wait_writes: Rc<[Regs]>,
    /// An atomic read-modify-write (`is_atomic`).
    atomic: bool,
    /// The entries it runs, as the definedness step binds them (a VOPD instruction's two
    /// halves; none without text).
    entries: Vec<defined::Entry>,
}

/// One access in the shadow memory.
#[derive(Clone, Debug)]
struct Access {
    wg: [u32; 3],
    wave: u32,
    arrived: u32,
    passed: u32,
    pc: u64,
    atomic: bool,
}

#[derive(Clone, Debug, Default)]
struct Shadow {
    write: Option<Access>,
    reads: Vec<Access>,
}

/// The checker of one run or dispatch.
pub struct Sanitizer {
    arch: Arch,
    db: SpecDb,
    isa: Isa,
    /// Per instruction address: the operand fields the spec types as scalar (SGPR) registers.
    scalar_fields: HashMap<u64, Rc<[String]>>,
    options: Options,
    waves: HashMap<([u32; 3], u32), WaveTrack>,
    lds: HashMap<u64, Shadow>,
    lds_wg: Option<[u32; 3]>,
    global: HashMap<u64, Shadow>,
    texts: HashMap<u64, Rc<str>>,
    findings: Vec<Finding>,
    /// Per instruction address: its operands and text.
    prepared: HashMap<u64, Rc<Prepared>>,
    /// Per instruction address: operand sizes and implicit operands.
    info: HashMap<u64, Rc<defined::InstInfo>>,
    /// Which registers count as written when a wave starts.
    initial: Initial,
    /// Defined bits of the current workgroup's LDS bytes (absent: undefined).
    lds_def: HashMap<u64, u8>,
    /// Instructions observed.
    pub instructions: u64,
}

/// The largest number of findings kept (a broken kernel in a loop would flood otherwise).
const MAX_FINDINGS: usize = 1000;

impl Sanitizer {
    /// A checker for programs of `db`'s arch (`isa` is its assembler, for instruction text).
    pub fn new(db: &SpecDb, isa: &Isa, options: Options) -> Sanitizer {
        Sanitizer {
            arch: db.arch(),
            db: db.clone(),
            isa: isa.clone(),
            scalar_fields: HashMap::new(),
            options,
            waves: HashMap::new(),
            lds: HashMap::new(),
            lds_wg: None,
            global: HashMap::new(),
            texts: HashMap::new(),
            prepared: HashMap::new(),
            findings: Vec::new(),
            info: HashMap::new(),
            initial: Initial::All,
            lds_def: HashMap::new(),
            instructions: 0,
        }
    }

    /// Sets which registers count as written when a wave starts (default [`Initial::All`]:
    /// only LDS and scratch start undefined). A dispatch gives
    /// `Initial::launch(&mut dispatcher, &launch)?`.
    pub fn set_initial(&mut self, initial: Initial) {
        self.initial = initial;
    }

    /// Operand sizes and formats (from the spec's operand table) and the implicit operands
    /// (from the pseudocode's wave-state registers) of `d`.
    fn inst_info(&mut self, d: &Decoded, wave_size: u32) -> Rc<defined::InstInfo> {
        // By address: one checker sees one program, so an address is one instruction.
        let key = d.addr;
        if let Some(i) = self.info.get(&key) {
            return i.clone();
        }
        let inst = self.db.instructions().get(d.facts.index as usize);
        let mut info = defined::InstInfo::default();
        if let Some(inst) = inst {
            for o in self.isa.facts().operands(d.facts.index) {
                info.ops.insert(o.field.clone(), (o.bits, o.lane_mask));
                info.regs.insert(o.field.clone(), o.regs(wave_size));
            }
            // A lane-mask operand field (a register, `null` or a constant) replaces the
            // implicit VCC the pseudocode names.
            for o in &d.inst.operands {
                if info.ops.get(&o.field).is_some_and(|x| x.1) {
                    if operands::is_written(d, &o.field) {
                        info.mask_dst = true;
                    } else {
                        info.mask_src = true;
                    }
                }
            }
            if let Ok(c) = crate::frontend::compile_instruction(self.arch, inst) {
                let imp = &mut info.implicit;
                for r in &c.function.regs {
                    let (rd, wr) = (r.read, r.written);
                    match r.name.as_str() {
                        "SCC" => (imp.reads_scc, imp.writes_scc) = (rd, wr),
                        "VCC" | "VCCZ" => {
                            imp.reads_vcc |= rd;
                            imp.writes_vcc |= wr;
                        }
                        "EXEC" | "EXECZ" => {
                            imp.reads_exec |= rd;
                            imp.writes_exec |= wr;
                        }
                        "M0" => imp.reads_m0 = rd,
                        "PC" => imp.writes_pc = wr,
                        "D0" => imp.writes_d0 = wr,
                        _ => {}
                    }
                }
                info.trans = hazards::is_trans(&self.db, inst, &c.text);
            }
        }
        let info = Rc::new(info);
        self.info.insert(key, info.clone());
        info
    }

    /// The registers the instructions `insts` read and write in a wave of `wave_size` lanes,
    /// as the checker sizes them (explicit operands from the decoded operand table, implicit
    /// ones from the pseudocode: VCC, EXEC, M0): scalar codes (SGPRs, VCC, EXEC, M0, trap
    /// temporaries), VGPRs, and whether SCC is read or written.
    pub fn registers_used<'a>(
        &mut self,
        insts: impl IntoIterator<Item = &'a Decoded>,
        wave_size: u32,
    ) -> (Vec<u32>, Vec<u32>, bool) {
        let (mut sgpr, mut vgpr, mut scc) = (Vec::new(), Vec::new(), false);
        for d in insts {
            let p = self.prepared(d, wave_size);
            for r in p.wait_reads.iter().chain(p.wait_writes.iter()) {
                let (list, base) = match r.file {
                    's' => (&mut sgpr, 0),
                    't' => (&mut sgpr, crate::wave::code::TTMP0),
                    'v' => (&mut vgpr, 0),
                    _ => continue,
                };
                list.extend((r.first..r.first + r.count).map(|x| base + x));
            }
            let imp = &p.info.implicit;
            scc |= imp.reads_scc || imp.writes_scc;
        }
        for l in [&mut sgpr, &mut vgpr] {
            l.sort_unstable();
            l.dedup();
        }
        (sgpr, vgpr, scc)
    }

    /// The findings so far, in the order found.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// What the checker derives from `d` alone, computed once per address.
    fn prepared(&mut self, d: &Decoded, wave_size: u32) -> Rc<Prepared> {
        if let Some(p) = self.prepared.get(&d.addr) {
            return p.clone();
        }
        let text = self.text(d);
        let scalar = self.scalar_fields(d);
        let info = self.inst_info(d, wave_size);
        let mut ops = operand_list(self.arch, d, &scalar);
        // `null` reads zero (always defined) and discards writes: no register is read or
        // written. Sized as a wave64 lane mask it would reach the next code (EXEC_LO on
        // GFX10, M0 on GFX11+) otherwise.
        let null = crate::wave::null_code(self.arch);
        ops.retain(|o| o.r.file != 's' || Some(o.r.first) != null);
        for o in &mut ops {
            (o.bits, o.mask) = info.ops.get(&o.field).copied().unwrap_or((32, false));
            // The decoded operand table sizes a lane mask by the spec's 64 bits; in the wave
            // it is one SGPR per 32 lanes, as the wave layer reads and writes it.
            if o.mask && o.r.file != 'v' && o.r.file != 'a' {
                if let Some(&n) = info.regs.get(&o.field) {
                    o.r.count = n;
                }
            }
        }
        let reads: Vec<Regs> = ops.iter().filter(|o| o.read).map(|o| o.r).collect();
        let writes: Vec<Regs> = ops.iter().filter(|o| o.written).map(|o| o.r).collect();
        // The wait model also sees the implicit operands (VCC, EXEC, M0); hazards only the
        // explicit ones, as the manual's tables list them (and the rules that name them).
        let (mut wait_reads, mut wait_writes) = (reads.clone(), writes.clone());
        implicit_regs(
            self.arch,
            wave_size,
            d,
            &info,
            &mut wait_reads,
            &mut wait_writes,
        );
        let def_ops = ops
            .iter()
            .cloned()
            .map(|mut o| {
                if o.r.file == 'a' {
                    o.r.file = 'v';
                    o.r.first += crate::wave::AGPR_ROW;
                }
                o
            })
            .collect();
        let p = Rc::new(Prepared {
            text,
            ops,
            def_ops,
            info,
            reads: reads.into(),
            writes: writes.into(),
            wait_reads: wait_reads.into(),
            wait_writes: wait_writes.into(),
            atomic: d.facts.atomic,
            entries: self.entries(d),
        });
        self.prepared.insert(d.addr, p.clone());
        p
    }

    /// The entries `d` runs, as the wave layer prepares them (VOPD: each half's).
    fn entries(&self, d: &Decoded) -> Vec<defined::Entry> {
        let halves = if d.facts.family == Family::Vopd {
            [false, true]
                .iter()
                .filter_map(|&y| crate::wave::vopd::split(&self.isa, d, y))
                .collect()
        } else {
            vec![d.clone()]
        };
        halves
            .into_iter()
            .filter_map(|d| {
                let (inst, prepared) =
                    crate::wave::prepare_entry(&self.db, &self.isa, &d.inst).ok()?;
                Some(defined::Entry::new(d, inst, prepared))
            })
            .collect()
    }

    fn text(&mut self, d: &Decoded) -> Rc<str> {
        if let Some(t) = self.texts.get(&d.addr) {
            return t.clone();
        }
        let t: Rc<str> = self.isa.print(d.encoded()).into();
        self.texts.insert(d.addr, t.clone());
        t
    }

    /// The operand fields of `d` the spec types as SGPRs (a VOP `vdst` that is an SGPR,
    /// as in `v_readfirstlane_b32`, decodes as a register number only).
    fn scalar_fields(&mut self, d: &Decoded) -> Rc<[String]> {
        // By address, as `inst_info`.
        if let Some(v) = self.scalar_fields.get(&d.addr) {
            return v.clone();
        }
        let v: Rc<[String]> = self
            .isa
            .facts()
            .operands(d.facts.index)
            .iter()
            .filter(|o| o.scalar)
            .map(|o| o.field.clone())
            .collect::<Vec<String>>()
            .into();
        self.scalar_fields.insert(d.addr, v.clone());
        v
    }

    fn report(&mut self, mut f: Finding) {
        // Scalar codes past the numbered SGPRs by their assembler names (`vcc_hi`, `m0`).
        let code = f
            .location
            .strip_prefix('s')
            .and_then(|n| n.parse::<u32>().ok());
        if let Some(c) = code.filter(|&c| c >= crate::isa::operands::sgpr_limit(self.arch)) {
            if let Some(t) = crate::isa::operands::sreg_text(self.arch, c, 1) {
                f.location = t;
            }
        }
        if self.findings.len() < MAX_FINDINGS && !self.findings.contains(&f) {
            self.findings.push(f);
        }
    }

    /// Observes one executed instruction `d` of wave `wave` of workgroup `wg`; `before` and
    /// `after` are the wave's state around it (`after.last_access` lists the bytes a memory
    /// instruction accessed when the caller turned recording on). Only `after` is read, so
    /// callers may run with `Executor::trace_after_only` (no state clone per step).
    pub fn observe(
        &mut self,
        wg: [u32; 3],
        wave: u32,
        d: &Decoded,
        _before: &WaveState,
        after: &WaveState,
    ) {
        self.instructions += 1;
        let prep = self.prepared(d, after.wave_size);
        let text = prep.text.clone();
        let (ops, info) = (&prep.ops, &prep.info);
        let (reads, writes) = (&prep.reads, &prep.writes);
        let (wait_reads, wait_writes) = (&prep.wait_reads, &prep.wait_writes);
        let mut track = self.waves.remove(&(wg, wave)).unwrap_or_default();
        let mut found = Vec::new();

        // Waits retire operations first (a wait reads no register a load writes).
        if d.class == Class::Noop {
            // Waits write no SGPR: the state after holds the SGPR a SOPK wait names.
            for (counter, n) in wait_fields(self.arch, d, after) {
                retire(&mut track.pending, counter, n);
            }
        }

        // VINTERP's `wait_exp` field waits for `expcnt` before the instruction reads.
        if d.facts.family == Family::Vinterp {
            if let Some(n) = d.inst.field("waitexp") {
                retire(&mut track.pending, Counter::Exp, n as u32);
            }
        }

        // Reads of registers an outstanding load will still write.
        for r in wait_reads.iter() {
            for p in track.pending.iter_mut() {
                let mut hit = None;
                for w in p.writes.iter() {
                    if let Some(at) = w.overlaps(r) {
                        hit = Some(at);
                        break;
                    }
                }
                if let Some(at) = hit {
                    found.push(Finding {
                        kind: Kind::MissingWait,
                        workgroup: wg,
                        wave,
                        pc: d.addr,
                        inst: text.to_string(),
                        earlier: Some((wave, p.pc, p.text.to_string())),
                        location: reg_name(r.file, at),
                        detail: format!(
                            "reads a register the earlier load has not returned (no wait on {})",
                            p.counter.name()
                        ),
                    });
                    // Reported once: the load is taken as arrived for these registers.
                    p.writes.retain(|w| w.overlaps(r).is_none());
                }
            }
        }

        // LDS-direct and LDS-parameter loads count on `expcnt` (LLVM `SIInsertWaitcnts`:
        // `EXP_LDS_ACCESS`), in order among themselves.
        let lds_direct = matches!(d.facts.family, Family::Ldsdir | Family::Vdsdir);
        let memory_op =
            memory_event(d, after).or_else(|| lds_direct.then_some((Counter::Exp, Event::Lds)));
        // Overwrites of registers an outstanding load will still write (its return would
        // land after this write), unless this is a load of the same in-order kind.
        for w in wait_writes.iter() {
            for p in track.pending.iter_mut() {
                let same_order = memory_op
                    .is_some_and(|(c, e)| c == p.counter && e == p.event && e != Event::Smem);
                if same_order {
                    continue;
                }
                let hit = p.writes.iter().find_map(|pw| pw.overlaps(w));
                if let Some(at) = hit {
                    found.push(Finding {
                        kind: Kind::MissingWait,
                        workgroup: wg,
                        wave,
                        pc: d.addr,
                        inst: text.to_string(),
                        earlier: Some((wave, p.pc, p.text.to_string())),
                        location: reg_name(w.file, at),
                        detail: format!(
                            "overwrites a register the earlier load has not returned (no wait on {})",
                            p.counter.name()
                        ),
                    });
                    p.writes.retain(|pw| pw.overlaps(w).is_none());
                }
            }
        }

        let step = history::Step {
            wg,
            wave,
            wave64: after.wave_size == 64,
            d,
            text: &text,
            reads,
            writes,
            all_reads: wait_reads,
            all_writes: wait_writes,
            ops,
            info,
        };
        self.hazards(&mut track, &step, &mut found);

        // New outstanding operations.
        if let Some((counter, event)) = memory_op {
            let returns = writes.to_vec();
            track.pending.push(Pending {
                counter,
                event,
                pc: d.addr,
                text: text.clone(),
                writes: returns,
                store: d.facts.stores,
            });
        }

        // Shadow memory.
        if let Some(log) = after
            .last_access
            .as_ref()
            .filter(|_| is_memory(d) && d.class == Class::Execute)
        {
            let atomic = d.facts.atomic;
            let (store, load) = (d.facts.stores, d.facts.loads);
            let now = Access {
                wg,
                wave,
                arrived: track.arrived,
                passed: track.passed,
                pc: d.addr,
                atomic,
            };
            if log.iter().any(|a| a.space == MemSpace::Lds) && self.lds_wg != Some(wg) {
                self.lds.clear();
                self.lds_def.clear();
                self.lds_wg = Some(wg);
            }
            let mut lds_hit = None;
            let mut global_hit = None;
            for a in log {
                let (map, hit, on) = match a.space {
                    MemSpace::Lds => (&mut self.lds, &mut lds_hit, true),
                    MemSpace::Global => {
                        (&mut self.global, &mut global_hit, self.options.global_races)
                    }
                    MemSpace::Scratch => continue,
                };
                if !on {
                    continue;
                }
                shadow_access(map, a, &now, load, store, hit);
            }
            for (hit, kind, space) in [
                (lds_hit, Kind::LdsRace, "lds"),
                (global_hit, Kind::GlobalRace, "global"),
            ] {
                if let Some((addr, other)) = hit {
                    let earlier_text = self
                        .texts
                        .get(&other.pc)
                        .map(|t| t.to_string())
                        .unwrap_or_default();
                    found.push(Finding {
                        kind,
                        workgroup: wg,
                        wave,
                        pc: d.addr,
                        inst: text.to_string(),
                        earlier: Some((other.wave, other.pc, earlier_text)),
                        location: format!("{space}[0x{addr:x}]"),
                        detail: if other.wg == wg {
                            format!(
                                "wave {} accessed the same byte with no barrier both waves passed in between",
                                other.wave
                            )
                        } else {
                            format!(
                                "workgroup ({},{},{}) wave {} accessed the same byte (no ordering between workgroups)",
                                other.wg[0], other.wg[1], other.wg[2], other.wave
                            )
                        },
                    });
                }
            }
        }

        // Definedness (uninitialised values).
        if matches!(d.class, Class::Execute | Class::AgprMove) {
            let memory = is_memory(d);
            let access = after
                .last_access
                .as_deref()
                .filter(|_| memory)
                .unwrap_or(&[]);
            let arch = self.arch;
            let def = track
                .def
                .get_or_insert_with(|| defined::WaveDef::new(&self.initial, arch, after));
            let step = defined::Step {
                arch,
                pc: d.addr,
                facts: &d.facts,
                ops: &prep.def_ops,
                info,
                entries: &prep.entries,
                after,
                access,
                atomic: prep.atomic,
            };
            for u in defined::step(def, &step, &mut self.lds_def) {
                let earlier = u.origin.map(|pc| {
                    let t = self
                        .texts
                        .get(&pc)
                        .map(|t| t.to_string())
                        .unwrap_or_default();
                    (wave, pc, t)
                });
                found.push(Finding {
                    kind: Kind::Uninit,
                    workgroup: wg,
                    wave,
                    pc: d.addr,
                    inst: text.to_string(),
                    earlier,
                    location: u.location,
                    detail: u.what.to_string(),
                });
            }
        } else if d.class == Class::End {
            track.def = None;
        }

        if let Class::Barrier(b) = d.class {
            // Arriving at a barrier with an LDS write still outstanding: the barrier orders
            // the issue, not the write, so the other waves may not see it.
            if matches!(b, Barrier::SignalWait | Barrier::Signal) {
                if let Some(p) = track
                    .pending
                    .iter()
                    .find(|p| p.event == Event::Lds && p.store)
                {
                    found.push(Finding {
                        kind: Kind::MissingWait,
                        workgroup: wg,
                        wave,
                        pc: d.addr,
                        inst: text.to_string(),
                        earlier: Some((wave, p.pc, p.text.to_string())),
                        location: "lds".into(),
                        detail: format!(
                            "an LDS write is still outstanding at the barrier (no wait on {} 0)",
                            p.counter.name()
                        ),
                    });
                }
            }
            match b {
                Barrier::SignalWait => {
                    track.arrived += 1;
                    track.passed += 1;
                }
                Barrier::Signal => track.arrived += 1,
                Barrier::Wait => track.passed += 1,
            }
        }
        self.waves.insert((wg, wave), track);
        for f in found {
            self.report(f);
        }
    }
}

/// Records one access in a shadow map; the first conflicting earlier access goes to `hit`.
fn shadow_access(
    map: &mut HashMap<u64, Shadow>,
    a: &MemAccess,
    now: &Access,
    load: bool,
    store: bool,
    hit: &mut Option<(u64, Access)>,
) {
    // Ordered: the earlier access's wave arrived at a barrier this wave has since passed.
    let ordered = |e: &Access| {
        e.wg == now.wg && (e.wave == now.wave || now.passed > e.arrived) || e.atomic || now.atomic
    };
    for b in a.addr..a.addr.saturating_add(a.bytes) {
        let s = map.entry(b).or_default();
        if hit.is_none() {
            if let Some(w) = s.write.as_ref().filter(|w| !ordered(w)) {
                *hit = Some((b, w.clone()));
            } else if store {
                if let Some(r) = s.reads.iter().find(|r| !ordered(r)) {
                    *hit = Some((b, r.clone()));
                }
            }
        }
        if store {
            s.write = Some(now.clone());
            s.reads.clear();
        } else if load {
            s.reads.retain(|r| !(r.wg == now.wg && r.wave == now.wave));
            s.reads.push(now.clone());
        }
    }
}

/// The counters a wait instruction waits on, with their thresholds, from its exact field
/// encoding (checked against llvm-mc-22; see docs/sanitizer.md).
fn wait_fields(arch: Arch, d: &Decoded, before: &WaveState) -> Vec<(Counter, u32)> {
    let imm = d.inst.field("simm16").unwrap_or(0) as u32;
    // SOPK forms wait for SGPR[sdst] + simm16 when sdst is not null.
    let sopk = |imm: u32| -> u32 {
        match d.inst.field("sdst") {
            Some(s) if crate::wave::null_code(arch) != Some(s as u32) => {
                imm.saturating_add(before.read_sgpr(s as u32))
            }
            _ => imm,
        }
    };
    d.facts.wait_thresholds(arch, imm, &sopk)
}

/// Applies "wait until `counter` <= n": operations of one in-order kind complete oldest
/// first; when the counter holds scalar memory or more than one kind, only 0 is safe.
fn retire(pending: &mut Vec<Pending>, counter: Counter, n: u32) {
    let on: Vec<usize> = (0..pending.len())
        .filter(|&i| pending[i].counter == counter)
        .collect();
    if on.len() <= n as usize {
        return;
    }
    let first = pending[on[0]].event;
    let out_of_order = on
        .iter()
        .any(|&i| pending[i].event == Event::Smem || pending[i].event != first);
    let done: Vec<usize> = if n == 0 {
        on
    } else if out_of_order {
        Vec::new()
    } else {
        on[..on.len() - n as usize].to_vec()
    };
    let mut i = 0;
    pending.retain(|_| {
        let keep = !done.contains(&i);
        i += 1;
        keep
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pend(counter: Counter, event: Event, pc: u64) -> Pending {
        Pending {
            counter,
            event,
            pc,
            text: "".into(),
            store: false,
            writes: vec![Regs {
                file: 'v',
                first: pc as u32,
                count: 1,
            }],
        }
    }

    #[test]
    fn in_order_counter_retires_oldest() {
        let mut p = vec![
            pend(Counter::Vm, Event::VmemLoad, 0),
            pend(Counter::Vm, Event::VmemLoad, 1),
            pend(Counter::Vm, Event::VmemLoad, 2),
        ];
        retire(&mut p, Counter::Vm, 1);
        assert_eq!(p.iter().map(|x| x.pc).collect::<Vec<_>>(), vec![2]);
    }

    #[test]
    fn scalar_memory_needs_zero() {
        let mut p = vec![
            pend(Counter::Lgkm, Event::Smem, 0),
            pend(Counter::Lgkm, Event::Lds, 1),
        ];
        retire(&mut p, Counter::Lgkm, 1);
        assert_eq!(p.len(), 2);
        retire(&mut p, Counter::Lgkm, 0);
        assert!(p.is_empty());
    }
}
