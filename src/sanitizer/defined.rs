//! Uninitialised values: which bits of a wave's registers, and which bytes of LDS
//! and scratch, hold something a program wrote, tracked as Memcheck does.
//!
//! Compilers legitimately move and merge partly undefined registers (a d16 load into the high
//! half of a register whose low half was never written, an op_sel write, a copy of padding),
//! so reading an undefined bit is not a bug by itself. Definedness is kept per bit and
//! propagated through every instruction; a finding is made only where undefined bits decide
//! something: a branch (its SCC/VCC/EXEC condition or target), a write of EXEC, or a memory
//! address. After a report the bits are taken as defined, so one bug gives one finding.
//!
//! Propagation is conservative and generic (no per-mnemonic tables beyond moves and bitwise
//! and/or): a result is defined where every bit the instruction read is defined, per lane for
//! vector instructions (16-bit halves for 16-bit operands: RDNA true16 `.h` registers and
//! `op_sel`, d16 loads). Exact rules: moves copy definedness; `s_and`/`s_or` with a constant
//! define the bits the constant decides; lane masks (VOPC results, carries, `v_cmpx`) are
//! defined per lane; `v_readlane`/`v_readfirstlane`/`v_writelane` use the one lane they move.
//! Cross-lane instructions (DPP, permutes, swizzles) take the definedness of all active lanes.
//! Loads take the definedness of the bytes they read (global memory counts as defined: the host
//! wrote it), stores give theirs to the bytes written.

use std::collections::HashMap;

use super::{Opnd, Regs};
use crate::dispatch::{DispatchError, Dispatcher, Launch};
use crate::machine::{BitOp, Control, Encoding, Family, InstFacts, LaneOp, MemKind};
use crate::spec::Arch;
use crate::wave::{code, m0_code, MemAccess, MemSpace, WaveState, AGPR_ROW, LANE_SLOTS};

/// The implicit wave-state operands of an instruction, from its pseudocode.
#[derive(Clone, Debug, Default)]
pub(super) struct Implicit {
    pub reads_scc: bool,
    pub writes_scc: bool,
    pub reads_vcc: bool,
    pub writes_vcc: bool,
    pub reads_exec: bool,
    pub writes_exec: bool,
    pub reads_m0: bool,
    pub writes_pc: bool,
    pub writes_d0: bool,
}

/// What the checker needs of an instruction besides its decoded operands.
#[derive(Clone, Debug, Default)]
pub(super) struct InstInfo {
    /// Operand field → (size in bits, lane mask).
    pub ops: HashMap<String, (u32, bool)>,
    /// Operand field → the registers it occupies in the wave (`machine::OperandFacts::regs`:
    /// a lane mask is one SGPR in wave32).
    pub regs: HashMap<String, u32>,
    pub implicit: Implicit,
    /// A transcendental VALU (see `is_trans`).
    pub trans: bool,
    /// Its name says it moves values between lanes (permutes, swizzles).
    pub cross_lane: bool,
    /// Its results smear undefined bits only leftwards (`smears_left`).
    pub smears_left: bool,
    /// A lane-mask operand field is read (it replaces the implicit VCC: VOP3 `v_cndmask`'s
    /// select, a carry-in), whether a register, `null` or a constant.
    pub mask_src: bool,
    /// A lane-mask operand field is written (a VOPC/VOP3 `sdst`, a carry-out), `null` included.
    pub mask_dst: bool,
}

/// Which registers count as written when a wave starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Initial {
    /// Every register (the single-wave `run`, whose state file gives the whole register file).
    #[default]
    All,
    /// A dispatched wave: the scalar codes `sgprs` (user and system SGPRs), EXEC, the first
    /// `vgprs` VGPRs (the work-item ids: v0, or v0 to v2 on gfx908 and GFX10), the trap
    /// temporaries and the hardware-set codes; nothing else.
    Launch {
        /// The scalar codes the loader writes.
        sgprs: Vec<u32>,
        /// The VGPRs the loader writes, from v0.
        vgprs: u32,
    },
}

impl Initial {
    /// The registers the loader of `d` writes for the waves of `launch`.
    ///
    /// # Errors
    /// As [`Dispatcher::run`] for a malformed launch or code object.
    pub fn launch(d: &mut Dispatcher, launch: &Launch) -> Result<Initial, DispatchError> {
        let (sgprs, vgprs) = d.initial_registers(launch)?;
        Ok(Initial::Launch { sgprs, vgprs })
    }
}

/// One wave's definedness state.
pub(super) struct WaveDef {
    /// Defined bits per scalar code.
    sgpr: Vec<u32>,
    scc: bool,
    /// Defined bits per VGPR and lane (`vgpr[reg * 64 + lane]`).
    vgpr: Vec<u32>,
    /// Per VGPR: how many of the wave's lanes hold undefined bits (0: the whole register is
    /// defined, so instructions reading only such registers skip the per-lane work).
    vundef: Vec<u16>,
    /// Where an undefined value in a register came from (the PC that wrote it).
    sorigin: Vec<Option<u64>>,
    vorigin: Vec<Option<u64>>,
    scc_origin: Option<u64>,
    /// Defined bits of scratch bytes, per lane (absent: undefined).
    scratch: HashMap<(u32, u64), u8>,
    /// EXEC when the current instruction issued (EXEC after the previous one).
    exec: u64,
    wave_size: u32,
    arch: Arch,
    /// The scalar file before the current instruction (the state after the previous one).
    prev_sgpr: Vec<u32>,
}

/// A use of undefined bits: the register, the instruction that left them undefined (if any),
/// and what the use is.
pub(super) struct Use {
    pub location: String,
    pub origin: Option<u64>,
    pub what: &'static str,
}

/// An instruction as the definedness step sees it.
pub(super) struct Step<'a> {
    pub arch: Arch,
    pub pc: u64,
    /// The instruction's facts.
    pub facts: &'a InstFacts,
    /// Its encoding's extension form.
    pub encoding: Encoding,
    pub dpp: bool,
    pub ops: &'a [Opnd],
    pub info: &'a InstInfo,
    pub opsel: u64,
    pub after: &'a WaveState,
    /// The memory accesses (for memory instructions).
    pub access: &'a [MemAccess],
    /// The decoded fields (constants of scalar sources).
    pub inst: &'a crate::isa::Inst,
    /// An atomic read-modify-write.
    pub atomic: bool,
}

const N_CODES: usize = 256;

impl WaveDef {
    pub(super) fn new(initial: &Initial, arch: Arch, after: &WaveState) -> WaveDef {
        let all = matches!(initial, Initial::All);
        let fill = if all { u32::MAX } else { 0 };
        let mut sgpr = vec![fill; N_CODES];
        // VGPRs, then (CDNA) AGPRs: the wave state's rows (`AGPR_ROW + k` is `a{k}`).
        let rows = after.vgpr_rows();
        let mut vgpr = vec![fill; rows * LANE_SLOTS];
        if let Initial::Launch { sgprs, vgprs } = initial {
            for &c in sgprs {
                if let Some(s) = sgpr.get_mut(c as usize) {
                    *s = u32::MAX;
                }
            }
            // EXEC, the trap temporaries, CDNA's flat_scratch and xnack_mask, and every code
            // past the register file (constants, apertures) are set by the hardware.
            for c in (code::TTMP0..code::TTMP0 + 16).chain([code::EXEC_LO, code::EXEC_HI]) {
                sgpr[c as usize] = u32::MAX;
            }
            if arch.is_gfx9() {
                sgpr[102..106].fill(u32::MAX);
            }
            if let Some(n) = crate::wave::null_code(arch) {
                sgpr[n as usize] = u32::MAX;
            }
            for s in sgpr.iter_mut().skip(128) {
                *s = u32::MAX;
            }
            for v in vgpr.iter_mut().take(LANE_SLOTS * (*vgprs).max(1) as usize) {
                *v = u32::MAX;
            }
        }
        let ws = after.wave_size as usize;
        let vundef = (0..rows)
            .map(|r| {
                let lanes = &vgpr[r * LANE_SLOTS..r * LANE_SLOTS + ws.min(LANE_SLOTS)];
                lanes.iter().filter(|&&d| d != u32::MAX).count() as u16
            })
            .collect();
        WaveDef {
            sgpr,
            scc: all,
            vgpr,
            vundef,
            sorigin: vec![None; N_CODES],
            vorigin: vec![None; rows],
            scc_origin: None,
            scratch: HashMap::new(),
            exec: after.exec(),
            wave_size: after.wave_size,
            arch,
            prev_sgpr: after.sgpr.clone(),
        }
    }

    fn sdef(&self, c: u32) -> u32 {
        self.sgpr.get(c as usize).copied().unwrap_or(u32::MAX)
    }

    fn vdef(&self, reg: u32, lane: u32) -> u32 {
        self.vgpr
            .get(reg as usize * LANE_SLOTS + lane as usize)
            .copied()
            .unwrap_or(u32::MAX)
    }

    fn set_s(&mut self, c: u32, def: u32, origin: Option<u64>) {
        if let Some(s) = self.sgpr.get_mut(c as usize) {
            if c < 128 && Some(c) != crate::wave::null_code(self.arch) {
                *s = def;
                self.sorigin[c as usize] = if def == u32::MAX { None } else { origin };
            }
        }
    }

    fn set_v(&mut self, reg: u32, lane: u32, keep: u32, def: u32, origin: Option<u64>) {
        let i = reg as usize * LANE_SLOTS + lane as usize;
        if let Some(v) = self.vgpr.get_mut(i) {
            let old = *v;
            *v = (old & keep) | (def & !keep);
            if lane < self.wave_size && (old == u32::MAX) != (*v == u32::MAX) {
                let n = &mut self.vundef[reg as usize];
                if *v == u32::MAX {
                    *n -= 1;
                } else {
                    *n += 1;
                }
            }
            if def & !keep != !keep {
                self.vorigin[reg as usize] = origin;
            }
        }
    }

    /// The lane mask bits of the scalar pair at `c` (wave32: one register).
    fn mask_def(&self, c: u32) -> u64 {
        let lo = self.sdef(c) as u64;
        if self.wave_size == 64 {
            lo | (self.sdef(c + 1) as u64) << 32
        } else {
            lo | 0xffff_ffff_0000_0000
        }
    }

    fn set_mask(&mut self, c: u32, def: u64, origin: Option<u64>) {
        self.set_s(c, def as u32, origin);
        if self.wave_size == 64 {
            self.set_s(c + 1, (def >> 32) as u32, origin);
        }
    }

    fn origin_of(&self, r: &Regs) -> Option<u64> {
        let range = r.first..r.first + r.count;
        match r.file {
            'v' => range
                .filter_map(|i| self.vorigin.get(i as usize).copied().flatten())
                .next(),
            's' => range
                .filter_map(|i| self.sorigin.get(i as usize).copied().flatten())
                .next(),
            _ => None,
        }
    }
}

/// The half a 16-bit VGPR operand names: `Some(true)` for the high half; `None` for a whole
/// register (and the register number with the true16 bit removed).
fn half(s: &Step<'_>, o: &Opnd) -> (Regs, Option<bool>) {
    let mut r = o.r;
    if r.file != 'v' || o.bits != 16 {
        return (r, None);
    }
    if !s.arch.is_gfx9() && matches!(s.facts.family, Family::Vop1 | Family::Vop2 | Family::Vopc) {
        let hi = r.first >= 128;
        if hi {
            r.first -= 128;
        }
        return (r, Some(hi));
    }
    if matches!(s.facts.family, Family::Vop3 | Family::Vop3sd) {
        let bit = match o.field.as_str() {
            "src0" => 0,
            "src1" => 1,
            "src2" => 2,
            _ => 3,
        };
        return (r, Some(s.opsel >> bit & 1 == 1));
    }
    (r, None)
}

fn half_mask(h: Option<bool>) -> u32 {
    match h {
        Some(true) => 0xffff_0000,
        Some(false) => 0xffff,
        None => u32::MAX,
    }
}

fn reg_text(r: &Regs) -> String {
    // AGPRs are the VGPR rows from `AGPR_ROW` here (`Sanitizer::prepared`).
    let (file, first) = match r.first.checked_sub(AGPR_ROW) {
        Some(k) if r.file == 'v' => ('a', k),
        _ => (r.file, r.first),
    };
    if r.count == 1 {
        format!("{file}{first}")
    } else {
        format!("{file}[{first}:{}]", first + r.count - 1)
    }
}

fn lanes(mask: u64, wave_size: u32) -> impl Iterator<Item = u32> {
    (0..wave_size).filter(move |l| mask >> l & 1 == 1)
}

const DATA_FIELDS: [&str; 5] = ["data", "vdata", "vsrc", "data0", "data1"];
/// Operand fields that decide where memory is accessed (with `srsrc`/`rsrc`, a buffer's V#).
const ADDR_FIELDS: [&str; 8] = [
    "addr", "vaddr", "saddr", "sbase", "soffset", "offset", "srsrc", "rsrc",
];

/// Runs the definedness step of one executed instruction; returns the uses of undefined bits.
pub(super) fn step(w: &mut WaveDef, s: &Step<'_>, lds: &mut HashMap<u64, u8>) -> Vec<Use> {
    let mut uses = Vec::new();
    let f = s.facts;
    let memory = f.mem.is_counted_memory();
    let has_access = !s.access.is_empty();
    if f.mem == MemKind::Scalar || memory && (has_access || f.mem != MemKind::Lds) {
        memory_step(w, s, lds, &mut uses);
    } else if f.family.is_valu() || f.family == Family::Vinterp || f.mem == MemKind::Lds {
        vector_step(w, s);
    } else {
        scalar_step(w, s, &mut uses);
    }
    // A write of EXEC with undefined bits: lanes are switched by undefined values.
    let writes_exec = s.info.implicit.writes_exec
        || s.ops.iter().any(|o| {
            o.written && o.r.file == 's' && o.r.first <= code::EXEC_LO && {
                o.r.first + o.r.count > code::EXEC_LO
            }
        });
    if writes_exec {
        let full = s.after.full_mask();
        if w.mask_def(code::EXEC_LO) & full != full {
            uses.push(Use {
                location: "exec".into(),
                origin: w.sorigin[code::EXEC_LO as usize].or(w.sorigin[code::EXEC_HI as usize]),
                what: "EXEC is written with undefined bits",
            });
            w.set_mask(code::EXEC_LO, u64::MAX, None);
        }
    }
    w.exec = s.after.exec();
    w.prev_sgpr.clear();
    w.prev_sgpr.extend_from_slice(&s.after.sgpr);
    uses
}

/// Whether every bit of scalar registers `r` is defined.
fn scalar_defined(w: &WaveDef, r: &Regs) -> bool {
    if Some(r.first) == crate::wave::null_code(w.arch) {
        return true;
    }
    match r.file {
        's' => (r.first..r.first + r.count).all(|c| w.sdef(c) == u32::MAX),
        _ => true,
    }
}

fn scalar_step(w: &mut WaveDef, s: &Step<'_>, uses: &mut Vec<Use>) {
    let imp = &s.info.implicit;
    let reads: Vec<&Opnd> = s.ops.iter().filter(|o| o.read).collect();
    // A branch: undefined bits of what it reads decide where the wave goes.
    if imp.writes_pc {
        for o in &reads {
            if !scalar_defined(w, &o.r) {
                uses.push(Use {
                    location: reg_text(&o.r),
                    origin: w.origin_of(&o.r),
                    what: "a branch target is undefined",
                });
                for c in o.r.first..o.r.first + o.r.count {
                    w.set_s(c, u32::MAX, None);
                }
            }
        }
        if imp.reads_scc && !w.scc {
            uses.push(Use {
                location: "scc".into(),
                origin: w.scc_origin,
                what: "a branch condition (SCC) is undefined",
            });
            w.scc = true;
        }
        let full = s.after.full_mask();
        if imp.reads_vcc && w.mask_def(code::VCC_LO) & full != full {
            uses.push(Use {
                location: "vcc".into(),
                origin: w.sorigin[code::VCC_LO as usize].or(w.sorigin[code::VCC_HI as usize]),
                what: "a branch condition (VCC) is undefined",
            });
            w.set_mask(code::VCC_LO, u64::MAX, None);
        }
        if imp.reads_exec && w.mask_def(code::EXEC_LO) & full != full {
            uses.push(Use {
                location: "exec".into(),
                origin: w.sorigin[code::EXEC_LO as usize],
                what: "a branch condition (EXEC) is undefined",
            });
            w.set_mask(code::EXEC_LO, u64::MAX, None);
        }
    }
    let srcs: Vec<&Opnd> = reads.iter().copied().filter(|o| o.r.file == 's').collect();
    let mut ok = srcs.iter().all(|o| scalar_defined(w, &o.r));
    let mut origin = srcs
        .iter()
        .find(|o| !scalar_defined(w, &o.r))
        .and_then(|o| w.origin_of(&o.r));
    if imp.reads_scc && !w.scc {
        ok = false;
        origin = origin.or(w.scc_origin);
    }
    let full = s.after.full_mask();
    for (read, c) in [
        (imp.reads_vcc, code::VCC_LO),
        (imp.reads_exec, code::EXEC_LO),
    ] {
        if read && w.mask_def(c) & full != full {
            ok = false;
            origin = origin.or(w.sorigin[c as usize]);
        }
    }
    if imp.reads_m0 && w.sdef(m0_code(s.arch)) != u32::MAX {
        ok = false;
        origin = origin.or(w.sorigin[m0_code(s.arch) as usize]);
    }
    let origin = origin.or(Some(s.pc));
    let dsts: Vec<&Opnd> = s.ops.iter().filter(|o| o.written).collect();
    // Exact rules: moves copy; and/or with a constant define what the constant decides.
    let exact: Option<Vec<u32>> = if s.facts.smov && srcs.len() == 1 {
        let r = srcs[0].r;
        Some((r.first..r.first + r.count).map(|c| w.sdef(c)).collect())
    } else if s.facts.smov && srcs.is_empty() {
        Some(vec![u32::MAX; 2])
    } else {
        bitwise_exact(w, s)
    };
    let smear = (!ok && exact.is_none() && s.facts.smears_left)
        .then(|| lane_undef(w, s, 0, &|_: &Opnd| true).0);
    for o in &dsts {
        if o.r.file != 's' {
            continue;
        }
        for (i, c) in (o.r.first..o.r.first + o.r.count).enumerate() {
            let def = match (&exact, smear) {
                (Some(v), _) => v.get(i).copied().unwrap_or(u32::MAX),
                (None, Some(u)) => smeared_def(u, i as u32),
                (None, None) if ok => u32::MAX,
                (None, None) => 0,
            };
            w.set_s(c, def, origin);
        }
    }
    if imp.writes_scc {
        // SCC of and/or is "result != 0": defined when a defined result bit is 1.
        let scc = match (&exact, dsts.first()) {
            (Some(v), Some(d)) if !s.facts.smov => {
                let vals = (d.r.first..d.r.first + v.len() as u32).map(|c| s.after.read_sgpr(c));
                v.iter().all(|&x| x == u32::MAX) || vals.zip(v).any(|(val, &x)| val & x != 0)
            }
            _ => ok,
        };
        w.scc = scc;
        w.scc_origin = if scc { None } else { origin };
    }
    if imp.writes_vcc {
        w.set_mask(code::VCC_LO, if ok { u64::MAX } else { 0 }, origin);
    }
    if imp.writes_exec {
        w.set_mask(code::EXEC_LO, if ok { u64::MAX } else { 0 }, origin);
    }
}

/// A scalar source as (value, defined bits) per 32-bit word, from the state before the
/// instruction (constants are defined).
fn scalar_source(w: &WaveDef, s: &Step<'_>, field: &str, words: u32) -> Option<Vec<(u32, u32)>> {
    let o = s.inst.operands.iter().find(|o| o.field == field)?;
    let v = match o.value {
        crate::isa::Value::InlineInt(i) => (0..words)
            .map(|k| ((i as u64) >> (32 * k) as u64) as u32)
            .map(|x| (x, u32::MAX))
            .collect(),
        crate::isa::Value::Literal(l) => (0..words)
            .map(|k| if k < 2 { (l >> (32 * k)) as u32 } else { 0 })
            .map(|x| (x, u32::MAX))
            .collect(),
        _ => {
            let r = super::value_regs(&o.value)?;
            if r.file != 's' {
                return None;
            }
            (r.first..r.first + words)
                .map(|c| {
                    let val = w.prev_sgpr.get(c as usize).copied().unwrap_or(0);
                    (val, w.sdef(c))
                })
                .collect()
        }
    };
    Some(v)
}

/// Exact definedness of scalar bitwise and/or (and their negated-operand forms), xor and not:
/// a defined 0 decides an and, a defined 1 an or (Memcheck's rule), whatever the other input.
fn bitwise_exact(w: &WaveDef, s: &Step<'_>) -> Option<Vec<u32>> {
    let (op, words) = s.facts.scalar_bitwise?;
    let words = u32::from(words);
    let negate_b = matches!(op, BitOp::AndNot | BitOp::OrNot);
    let a = scalar_source(w, s, "ssrc0", words)?;
    let unary = op == BitOp::Not;
    let b = if unary {
        a.clone()
    } else {
        scalar_source(w, s, "ssrc1", words)?
    };
    let out = a
        .iter()
        .zip(&b)
        .map(|(&(va, da), &(vb, db))| {
            let vb = if negate_b { !vb } else { vb };
            match op {
                BitOp::And | BitOp::AndNot => (da & db) | (da & !va) | (db & !vb),
                BitOp::Or | BitOp::OrNot => (da & db) | (da & va) | (db & vb),
                BitOp::Xor => da & db,
                BitOp::Not => da,
            }
        })
        .collect::<Vec<u32>>();
    Some(out)
}

/// Per-lane definedness of one vector instruction's inputs: `true` where every bit it reads
/// in that lane is defined; with the origin of the first undefined input.
fn lane_inputs(
    w: &WaveDef,
    s: &Step<'_>,
    lane: u32,
    filter: &dyn Fn(&Opnd) -> bool,
) -> (bool, Option<u64>) {
    let mut ok = true;
    let mut origin = None;
    let mut fail = |o: Option<u64>, ok: &mut bool| {
        *ok = false;
        if origin.is_none() {
            origin = o;
        }
    };
    for o in s.ops.iter().filter(|o| o.read && filter(o)) {
        let (r, h) = half(s, o);
        let undefined = match o.r.file {
            'v' => {
                let m = half_mask(h);
                (r.first..r.first + r.count).any(|reg| w.vdef(reg, lane) & m != m)
            }
            's' if o.mask => w.mask_def(o.r.first) >> lane & 1 == 0,
            's' => !scalar_defined(w, &o.r),
            _ => false,
        };
        if undefined {
            fail(w.origin_of(&r), &mut ok);
        }
    }
    let imp = &s.info.implicit;
    if imp.reads_vcc && !s.info.mask_src && w.mask_def(code::VCC_LO) >> lane & 1 == 0 {
        fail(w.sorigin[code::VCC_LO as usize], &mut ok);
    }
    if imp.reads_scc && !w.scc {
        fail(w.scc_origin, &mut ok);
    }
    if imp.reads_m0 && w.sdef(m0_code(s.arch)) != u32::MAX {
        fail(w.sorigin[m0_code(s.arch) as usize], &mut ok);
    }
    (ok, origin)
}

/// Whether every input of `s` (through `filter`) is defined in every lane, from the
/// wave-wide summaries (whole VGPRs, whole scalar registers and masks): the fast path that
/// spares the per-lane work of `lane_inputs` and `lane_undef`. A `false` only means the
/// per-lane check must run.
fn inputs_all_defined(w: &WaveDef, s: &Step<'_>, filter: &dyn Fn(&Opnd) -> bool) -> bool {
    for o in s.ops.iter().filter(|o| o.read && filter(o)) {
        let ok = match o.r.file {
            'v' => {
                let (r, _) = half(s, o);
                (r.first..r.first + r.count)
                    .all(|reg| w.vundef.get(reg as usize).is_some_and(|&n| n == 0))
            }
            's' if o.mask => w.mask_def(o.r.first) == u64::MAX,
            's' => scalar_defined(w, &o.r),
            _ => true,
        };
        if !ok {
            return false;
        }
    }
    let imp = &s.info.implicit;
    !(imp.reads_vcc && !s.info.mask_src && w.mask_def(code::VCC_LO) != u64::MAX
        || imp.reads_scc && !w.scc
        || imp.reads_m0 && w.sdef(m0_code(s.arch)) != u32::MAX)
}

/// The undefined input bits of lane `lane` by bit position (64-bit operands span two
/// registers; 16-bit halves are moved to bit 0; lane masks and SCC are bit 0), with the
/// origin of the first undefined input.
fn lane_undef(
    w: &WaveDef,
    s: &Step<'_>,
    lane: u32,
    filter: &dyn Fn(&Opnd) -> bool,
) -> (u64, Option<u64>) {
    let mut u = 0u64;
    let mut origin = None;
    for o in s.ops.iter().filter(|o| o.read && filter(o)) {
        let before = u;
        match o.r.file {
            'v' => {
                let (r, h) = half(s, o);
                for (k, reg) in (r.first..r.first + r.count.min(2)).enumerate() {
                    let mut und = !w.vdef(reg, lane) & half_mask(h);
                    if h == Some(true) {
                        und >>= 16;
                    }
                    u |= (und as u64) << (32 * k);
                }
            }
            's' if o.mask => u |= (w.mask_def(o.r.first) >> lane & 1) ^ 1,
            's' if Some(o.r.first) != crate::wave::null_code(w.arch) => {
                for (k, c) in (o.r.first..o.r.first + o.r.count.min(2)).enumerate() {
                    u |= (!w.sdef(c) as u64) << (32 * k);
                }
            }
            _ => {}
        }
        if u != before && origin.is_none() {
            origin = w.origin_of(&o.r);
        }
    }
    let imp = &s.info.implicit;
    if imp.reads_vcc && !s.info.mask_src && w.mask_def(code::VCC_LO) >> lane & 1 == 0 {
        u |= 1;
        origin = origin.or(w.sorigin[code::VCC_LO as usize]);
    }
    if imp.reads_scc && !w.scc {
        u |= 1;
        origin = origin.or(w.scc_origin);
    }
    if imp.reads_m0 && w.sdef(m0_code(s.arch)) != u32::MAX {
        u = u64::MAX;
        origin = origin.or(w.sorigin[m0_code(s.arch) as usize]);
    }
    (u, origin)
}

/// The defined bits of result word `k` when the inputs' undefined bits are `u` (left smear).
fn smeared_def(u: u64, k: u32) -> u32 {
    if u == 0 {
        return u32::MAX;
    }
    if k >= 2 {
        return 0;
    }
    let und = u64::MAX << u.trailing_zeros();
    !((und >> (32 * k)) as u32)
}

fn vector_step(w: &mut WaveDef, s: &Step<'_>) {
    let exec = w.exec & s.after.full_mask();
    let ws = w.wave_size;
    let cross = s.dpp || s.facts.mem == MemKind::Lds || s.info.cross_lane;
    let all = |_: &Opnd| true;
    // VOPD: the X half's fields name `x`, the Y half's `y`.
    let vopd = s.facts.family == Family::Vopd;
    type Filter = Box<dyn Fn(&Opnd) -> bool>;
    let halves: Vec<Filter> = if vopd {
        vec![
            Box::new(|o: &Opnd| o.field.contains('x')),
            Box::new(|o: &Opnd| o.field.contains('y')),
        ]
    } else {
        vec![Box::new(all)]
    };
    for filter in &halves {
        let mut per_lane = [(true, None); 64];
        // Every input fully defined in every lane: the per-lane results are all defined.
        let all_defined = inputs_all_defined(w, s, filter.as_ref());
        if !all_defined {
            for lane in 0..ws {
                per_lane[lane as usize] = lane_inputs(w, s, lane, filter.as_ref());
            }
        }
        if cross {
            let bad = lanes(exec, ws).find(|&l| !per_lane[l as usize].0);
            if let Some(b) = bad {
                let o = per_lane[b as usize].1;
                for l in 0..ws {
                    per_lane[l as usize] = (false, o);
                }
            }
        }
        let smear = !cross && s.info.smears_left;
        let mut undef = [0u64; 64];
        if smear && !all_defined {
            for lane in 0..ws {
                undef[lane as usize] = lane_undef(w, s, lane, filter.as_ref()).0;
            }
        }
        let origin_of = |l: u32| per_lane[l as usize].1.or(Some(s.pc));
        // Moves copy definedness exactly (without DPP/SDWA); so do the AGPR moves
        // (`v_accvgpr_read/write/mov`: -O0 CDNA code spills SGPR lanes into AGPRs).
        let agpr_move = s.facts.control == Control::AgprMove;
        let mov = !s.dpp && (s.facts.vmov || agpr_move) && s.encoding != Encoding::Sdwa;
        let src_vgpr = s
            .ops
            .iter()
            .find(|o| o.read && o.r.file == 'v' && filter(o))
            .map(|o| half(s, o));
        for o in s.ops.iter().filter(|o| o.written && filter(o)) {
            match o.r.file {
                'v' if s.facts.lane == LaneOp::WriteLane => {
                    let lane = lane_select(w, s);
                    // A move of the scalar source into one lane: its bits exactly (all
                    // undefined when an SGPR lane select is).
                    let src = s.ops.iter().find(|x| x.read && x.field.ends_with("src0"));
                    let sel_ok = s
                        .ops
                        .iter()
                        .filter(|x| x.read && x.field.ends_with("src1"))
                        .all(|x| scalar_defined(w, &x.r));
                    let def = match src {
                        _ if !sel_ok => 0,
                        Some(x) if x.r.file == 's' => w.sdef(x.r.first),
                        _ => u32::MAX,
                    };
                    let org = src.and_then(|x| w.origin_of(&x.r));
                    w.set_v(o.r.first, lane, 0, def, org.or(Some(s.pc)));
                }
                'v' => {
                    let (r, h) = half(s, o);
                    let keep = match h {
                        Some(true) => 0xffff,
                        Some(false) if !s.arch.is_gfx9() => 0xffff_0000,
                        _ => 0,
                    };
                    for lane in lanes(exec, ws) {
                        for (k, reg) in (r.first..r.first + r.count).enumerate() {
                            let mut def = if per_lane[lane as usize].0 {
                                u32::MAX
                            } else {
                                0
                            };
                            if smear {
                                def = smeared_def(undef[lane as usize], k as u32);
                                if h.is_some() {
                                    def = def & 0xffff | (def & 0xffff) << 16;
                                }
                            }
                            if mov {
                                def = match src_vgpr {
                                    Some((sr, _)) => w.vdef(sr.first + k as u32, lane),
                                    None => def,
                                };
                            }
                            // CDNA's 16-bit writes zero the high half: defined.
                            if h == Some(false) && s.arch.is_gfx9() {
                                def |= 0xffff_0000;
                            }
                            w.set_v(reg, lane, keep, def, origin_of(lane));
                        }
                    }
                }
                's' if o.mask || s.facts.family == Family::Vopc => {
                    write_lane_mask(w, o.r.first, exec, &per_lane, s.pc);
                }
                's' => {
                    // A scalar result of a vector instruction: one lane's value.
                    let lane = if s.facts.lane == LaneOp::ReadLane {
                        lane_select(w, s)
                    } else {
                        lanes(exec, ws).next().unwrap_or(0)
                    };
                    let def = match src_vgpr {
                        Some((sr, h))
                            if matches!(s.facts.lane, LaneOp::ReadLane | LaneOp::ReadFirstLane) =>
                        {
                            w.vdef(sr.first, lane) & half_mask(h) | !half_mask(h)
                        }
                        _ if lanes(exec, ws).all(|l| per_lane[l as usize].0) => u32::MAX,
                        _ => 0,
                    };
                    for c in o.r.first..o.r.first + o.r.count {
                        w.set_s(c, def, Some(w.vorigin_first(&src_vgpr).unwrap_or(s.pc)));
                    }
                }
                _ => {}
            }
        }
        // Implicit lane masks: VOPC's VCC, carries, V_CMPX's EXEC.
        let imp = &s.info.implicit;
        let vopc_e32 = s.facts.family == Family::Vopc;
        if !s.info.mask_dst && (imp.writes_vcc || vopc_e32 && imp.writes_d0 && !imp.writes_exec) {
            write_lane_mask(w, code::VCC_LO, exec, &per_lane, s.pc);
        }
        if imp.writes_exec {
            write_lane_mask(w, code::EXEC_LO, exec, &per_lane, s.pc);
        }
    }
}

impl WaveDef {
    fn vorigin_first(&self, src: &Option<(Regs, Option<bool>)>) -> Option<u64> {
        src.as_ref().and_then(|(r, _)| self.origin_of(r))
    }
}

/// The lane `v_readlane`/`v_writelane` selects (its `src1`/`ssrc1`: an SGPR or a constant),
/// modulo the wave size.
fn lane_select(w: &WaveDef, s: &Step<'_>) -> u32 {
    let v = s
        .inst
        .operands
        .iter()
        .find(|o| matches!(o.field.as_str(), "src1" | "ssrc1"))
        .map_or(0, |o| match o.value {
            crate::isa::Value::InlineInt(i) => i as u32,
            crate::isa::Value::Literal(l) => l as u32,
            _ => super::value_regs(&o.value).map_or(0, |r| {
                w.prev_sgpr.get(r.first as usize).copied().unwrap_or(0)
            }),
        });
    v % w.wave_size
}

/// A lane mask written by a vector instruction: bit `l` is defined where lane `l`'s inputs
/// are; lanes off in EXEC write 0 (defined).
fn write_lane_mask(
    w: &mut WaveDef,
    c: u32,
    exec: u64,
    per_lane: &[(bool, Option<u64>); 64],
    pc: u64,
) {
    let mut def = !exec;
    let mut origin = None;
    for l in lanes(exec, w.wave_size) {
        if per_lane[l as usize].0 {
            def |= 1 << l;
        } else if origin.is_none() {
            origin = per_lane[l as usize].1.or(Some(pc));
        }
    }
    w.set_mask(c, def, origin);
}

/// Memory instructions: addresses must be defined; loads take the definedness of the bytes
/// read, stores give theirs to the bytes written.
fn memory_step(w: &mut WaveDef, s: &Step<'_>, lds: &mut HashMap<u64, u8>, uses: &mut Vec<Use>) {
    let exec = w.exec & s.after.full_mask();
    let ws = w.wave_size;
    // Addresses.
    for o in s
        .ops
        .iter()
        .filter(|o| o.read && ADDR_FIELDS.contains(&o.field.as_str()))
    {
        let bad = match o.r.file {
            'v' => lanes(exec, ws)
                .any(|l| (o.r.first..o.r.first + o.r.count).any(|reg| w.vdef(reg, l) != u32::MAX)),
            's' => !scalar_defined(w, &o.r),
            _ => false,
        };
        if bad {
            uses.push(Use {
                location: reg_text(&o.r),
                origin: w.origin_of(&o.r),
                what: "a memory address is undefined",
            });
            for reg in o.r.first..o.r.first + o.r.count {
                match o.r.file {
                    'v' => {
                        for l in lanes(exec, ws) {
                            w.set_v(reg, l, 0, u32::MAX, None);
                        }
                    }
                    _ => w.set_s(reg, u32::MAX, None),
                }
            }
        }
    }
    if s.facts.mem == MemKind::Scalar {
        for o in s.ops.iter().filter(|o| o.written && o.r.file == 's') {
            for c in o.r.first..o.r.first + o.r.count {
                w.set_s(c, u32::MAX, None);
            }
        }
        return;
    }
    let atomic = s.atomic;
    let data: Vec<&Opnd> = s
        .ops
        .iter()
        .filter(|o| o.read && DATA_FIELDS.contains(&o.field.as_str()) && o.r.file == 'v')
        .collect();
    let dst = s.ops.iter().find(|o| o.written && o.r.file == 'v');
    let (d16, d16_hi) = (s.facts.d16, s.facts.d16_hi);
    for lane in lanes(exec, ws) {
        let acc: Vec<&MemAccess> = s.access.iter().filter(|a| a.lane == lane).collect();
        if acc.is_empty() {
            continue;
        }
        // The definedness of the bytes read, in access order.
        let mem: Vec<u8> = acc
            .iter()
            .flat_map(|a| (a.addr..a.addr + a.bytes).map(move |b| (a.space, b)))
            .map(|(space, b)| match space {
                MemSpace::Global => 0xff,
                MemSpace::Lds => lds.get(&b).copied().unwrap_or(0),
                MemSpace::Scratch => w.scratch.get(&(lane, b)).copied().unwrap_or(0),
            })
            .collect();
        let mem_all = mem.iter().all(|&b| b == 0xff);
        // The data bytes' defined bits (stores, atomics), in register order.
        let mut data_bytes: Vec<u8> = Vec::new();
        for o in &data {
            for reg in o.r.first..o.r.first + o.r.count {
                let d = w.vdef(reg, lane);
                data_bytes.extend((0..4).map(|b| (d >> (8 * b)) as u8));
            }
        }
        let data_org = data.iter().find_map(|o| w.origin_of(&o.r));
        if let Some(dst) = dst {
            // Returned data: the bytes read (an atomic's old value).
            let n = dst.r.count as usize * 4;
            let origin = data_org.or(Some(s.pc));
            if d16 {
                let def = if mem_all { u32::MAX } else { 0 };
                let (keep, part) = if d16_hi {
                    (0xffff, 0xffff_0000)
                } else {
                    (0xffff_0000, 0xffff)
                };
                w.set_v(dst.r.first, lane, keep, def & part, origin);
            } else if mem.len() == n {
                for (k, reg) in (dst.r.first..dst.r.first + dst.r.count).enumerate() {
                    let mut def = 0u32;
                    for b in 0..4 {
                        def |= (mem[k * 4 + b] as u32) << (8 * b);
                    }
                    w.set_v(reg, lane, 0, def, origin);
                }
            } else {
                let def = if mem_all { u32::MAX } else { 0 };
                for reg in dst.r.first..dst.r.first + dst.r.count {
                    w.set_v(reg, lane, 0, def, origin);
                }
            }
        }
        let stores = s.facts.stores;
        if !stores {
            continue;
        }
        // Bytes written: the data bytes in order, from the high half for d16_hi stores; an
        // atomic's result is defined where both the old bytes and the data are.
        let total: usize = acc.iter().map(|a| a.bytes as usize).sum();
        let offset = if d16_hi { 2 } else { 0 };
        let exact = !atomic
            && (data_bytes.len() == total || data.len() == 1 && total + offset <= data_bytes.len());
        let whole = if data_bytes.iter().all(|&b| b == 0xff) && (!atomic || mem_all) {
            0xff
        } else {
            0
        };
        let mut i = 0usize;
        for a in &acc {
            for b in a.addr..a.addr + a.bytes {
                let def = if exact {
                    data_bytes.get(i + offset).copied().unwrap_or(0)
                } else {
                    whole
                };
                i += 1;
                match a.space {
                    MemSpace::Global => {}
                    MemSpace::Lds => {
                        lds.insert(b, def);
                    }
                    MemSpace::Scratch => {
                        w.scratch.insert((lane, b), def);
                    }
                }
            }
        }
    }
}
