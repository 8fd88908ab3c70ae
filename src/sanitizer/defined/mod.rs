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
//! vector instructions. What an ALU instruction reads and writes — registers, 16-bit halves
//! (RDNA true16 `.h`, `op_sel`), SDWA selects, DPP source lanes, lane masks, destinations — is
//! bound by the wave layer's own fetch and write-back over the definedness domain
//! (`domain.rs`, `alu.rs`), so it matches the executors field for field. Exact rules: moves
//! copy definedness; `s_and`/`s_or` with a constant define the bits the constant decides; lane
//! masks (VOPC results, carries, `v_cmpx`) are defined per lane;
//! `v_readlane`/`v_readfirstlane`/`v_writelane` use the one lane they move. Cross-lane
//! instructions that move lanes by the register file (permutes, swizzles) take the
//! definedness of all active lanes; DPP reads its source lanes. Loads take the definedness of
//! the bytes they read (global memory counts as defined: the host wrote it), stores give
//! theirs to the bytes written.

use std::collections::HashMap;

use super::{Opnd, Regs};
use crate::dispatch::{DispatchError, Dispatcher, Launch};
use crate::exec::Prepared;
use crate::machine::{Control, Family, InstFacts, MemKind};
use crate::spec::{Arch, Instruction};
use crate::wave::fetch::domain::Ctx;
use crate::wave::{code, Decoded, MemAccess, MemSpace, WaveState, AGPR_ROW, LANE_SLOTS};

mod alu;
mod domain;

/// An instruction the definedness step binds through the wave layer's fetch: the decoded
/// word (one VOPD half on its own) with the database entry and prepared text it runs.
pub(super) struct Entry {
    pub d: Decoded,
    pub inst: Instruction,
    pub prepared: Prepared,
    /// What its binding reads, recorded on its first run (`None` inside: always bound).
    fast: std::cell::OnceCell<Option<alu::FastReads>>,
}

impl Entry {
    pub(super) fn new(d: Decoded, inst: Instruction, prepared: Prepared) -> Entry {
        Entry {
            d,
            inst,
            prepared,
            fast: std::cell::OnceCell::new(),
        }
    }

    fn cx<'a>(&'a self, s: &Step<'_>) -> Ctx<'a> {
        Ctx {
            d: &self.d,
            inst: &self.inst,
            prepared: &self.prepared,
            mode: s.after.mode,
            arch: s.arch,
        }
    }
}

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
    pub ops: &'a [Opnd],
    pub info: &'a InstInfo,
    /// The entries it runs (two for VOPD; none when it has no text).
    pub entries: &'a [Entry],
    pub after: &'a WaveState,
    /// The memory accesses (for memory instructions).
    pub access: &'a [MemAccess],
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
        WaveDef {
            sgpr,
            scc: all,
            vgpr,
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
            *v = (*v & keep) | (def & !keep);
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

    /// Sets a whole VGPR word; its origin becomes `origin` when the write leaves new
    /// undefined bits (or none defined).
    fn set_v_word(&mut self, reg: u32, lane: u32, def: u32, origin: Option<u64>) {
        let old = self.vdef(reg, lane);
        let origin = if !def & old != 0 || def == 0 {
            origin
        } else {
            self.vorigin.get(reg as usize).copied().flatten()
        };
        self.set_v(reg, lane, 0, def, origin);
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
    } else if s.entries.is_empty() || f.mem == MemKind::Lds || f.control == Control::AgprMove {
        operand_step(w, s);
    } else if f.family.is_valu() || f.family == Family::Vinterp {
        for e in s.entries {
            alu::vector(w, s, e);
        }
    } else {
        alu::scalar(w, s, &s.entries[0], &mut uses);
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

/// An instruction the wave layer does not bind by its text (LDS lane moves without an
/// access, AGPR moves, entries without text), by its operand list: a move copies its
/// VGPR source's bits; otherwise a lane's results are defined where every operand it reads
/// is, and a lane move (LDS) takes all active lanes' definedness.
fn operand_step(w: &mut WaveDef, s: &Step<'_>) {
    let exec = w.exec & s.after.full_mask();
    let ws = w.wave_size;
    let reads = || s.ops.iter().filter(|o| o.read);
    let lane_ok = |w: &WaveDef, l: u32| {
        reads().all(|o| match o.r.file {
            'v' => (o.r.first..o.r.first + o.r.count).all(|r| w.vdef(r, l) == u32::MAX),
            _ => scalar_defined(w, &o.r),
        })
    };
    let cross = s.facts.mem == MemKind::Lds;
    let all_ok = lanes(exec, ws).all(|l| lane_ok(w, l));
    let ok: Vec<bool> = (0..ws)
        .map(|l| if cross { all_ok } else { lane_ok(w, l) })
        .collect();
    let src = reads().find(|o| o.r.file == 'v');
    let mov = s.facts.control == Control::AgprMove || s.facts.vmov;
    let origin = reads().find_map(|o| w.origin_of(&o.r)).or(Some(s.pc));
    for o in s.ops.iter().filter(|o| o.written) {
        for (k, reg) in (o.r.first..o.r.first + o.r.count).enumerate() {
            if o.r.file != 'v' {
                w.set_s(reg, if all_ok { u32::MAX } else { 0 }, origin);
                continue;
            }
            for l in lanes(exec, ws) {
                let def = match src {
                    Some(x) if mov => w.vdef(x.r.first + k as u32, l),
                    _ if ok[l as usize] => u32::MAX,
                    _ => 0,
                };
                w.set_v_word(reg, l, def, origin);
            }
        }
    }
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
