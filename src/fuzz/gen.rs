//! Random programs drawn from one arch's instruction database.
//!
//! Each instruction is built from its encoding's bit fields ([`crate::isa::tables::Format`]):
//! the opcode, then every operand field from a pool that keeps the program inside a small
//! register window (SGPRs `s0..s15` and VGPRs `v0..v15` as data, plus VCC, EXEC, M0 and
//! `null` as destinations), inline constants, literals, DPP/SDWA extension words and the
//! VOP3/VOP3P modifier bits. The bytes are then decoded by the arch's own decoder: what does
//! not decode is drawn again, so every instruction kept is one the executor sees in real
//! code. Memory instructions address reserved registers that the initial state points at a
//! mapped global buffer and at LDS, so most accesses land and some (random offsets) fault.
//!
//! Control flow comes from scaffolding around the random instructions: counted loops on the
//! reserved `s20`, and forward conditional branches (on SCC, VCC or EXEC) over a few
//! instructions.

use crate::exec::Rng;
use crate::isa::tables::{Format, InstInfo};
use crate::isa::Isa;
use crate::spec::{Arch, Wheel};

/// The SGPR the loop scaffolding counts in.
pub const LOOP_SGPR: u32 = 20;
/// The SGPR pair that holds the global buffer's base address.
pub const BASE_SGPR: u32 = 24;
/// The VGPR holding each lane's byte offset into the global buffer (`lane * 4`).
pub const OFFSET_VGPR: u32 = 30;
/// The VGPR holding each lane's LDS byte address (`lane * 8`).
pub const LDS_VGPR: u32 = 31;
/// The VGPR pair holding each lane's absolute global address (`base + lane * 4`).
pub const ADDR_VGPR: u32 = 32;
/// The number of data SGPRs and VGPRs (`s0..s15`, `v0..v15`) random operands use.
pub const DATA_REGS: u32 = 16;

/// One element of a program before it is laid out in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A random instruction's bytes (one instruction, literal or extension word included).
    Inst(Vec<u8>),
    /// `s_mov_b32 s20, count`: the head of a counted loop.
    LoopStart(u32),
    /// Decrement `s20` and branch back to the matching [`Item::LoopStart`] while non-zero.
    LoopEnd,
    /// A forward conditional branch (index into the arch's branch list) over the next
    /// `skip` [`Item::Inst`]s.
    Skip {
        /// Which conditional branch.
        branch: usize,
        /// How many following instructions it jumps over when taken.
        skip: usize,
    },
}

/// Assembled scaffolding and the instruction pool of one arch.
pub struct Generator {
    arch: Arch,
    /// Indices into the tables' instructions that random instructions are drawn from.
    pool: Vec<usize>,
    /// The ALU part of `pool`.
    alu: Vec<usize>,
    /// The memory part of `pool`.
    memory: Vec<usize>,
    loop_dec: Vec<u8>,
    loop_cmp: Vec<u8>,
    loop_branch: Vec<u8>,
    mov_counter: Vec<u8>,
    branches: Vec<Vec<u8>>,
    endpgm: Vec<u8>,
}

/// Families random instructions come from: ALU and memory encodings.
const ALU_FAMILIES: &[&str] = &[
    "SOP1", "SOP2", "SOPC", "SOPK", "VOP1", "VOP2", "VOP3", "VOP3P", "VOP3SD", "VOPC", "VOPD",
];
const MEMORY_FAMILIES: &[&str] = &["DS", "GLOBAL", "VGLOBAL", "SMEM", "FLAT", "VFLAT"];

/// Instructions left out of random draws: control flow the scaffolding owns, program end,
/// and instructions that wait on other waves or the host.
fn excluded(name: &str) -> bool {
    const PARTS: &[&str] = &[
        "BRANCH",
        "SETPC",
        "SWAPPC",
        "CALL",
        "RFE",
        "ENDPGM",
        "SENDMSG",
        "TRAP",
        "SLEEP",
        "SETHALT",
        "BARRIER",
        "WAKEUP",
        "ICACHE",
        "GWS",
        "CODE_END",
        "TTRACE",
        "DS_ORDERED",
    ];
    PARTS.iter().any(|p| name.contains(p))
}

fn assemble(isa: &Isa, text: &str) -> Result<Vec<u8>, String> {
    isa.assemble(text)
        .map_err(|e| format!("`{text}`: {}", e.message))
}

impl Generator {
    /// The generator of `isa`'s arch, drawing from the instructions `keep` accepts.
    ///
    /// # Errors
    /// When the scaffolding does not assemble (a bug in the mnemonics used here).
    pub fn new(isa: &Isa, keep: &dyn Fn(&InstInfo) -> bool) -> Result<Generator, String> {
        let tables = isa.tables();
        let mut pool = Vec::new();
        let mut alu = Vec::new();
        let mut memory = Vec::new();
        for (i, info) in tables.insts.iter().enumerate() {
            let fam = info.family.as_str();
            let is_mem = MEMORY_FAMILIES.contains(&fam);
            if !(is_mem || ALU_FAMILIES.contains(&fam)) || excluded(&info.name) || !keep(info) {
                continue;
            }
            if tables.format(fam).is_none() {
                continue;
            }
            pool.push(i);
            if is_mem {
                memory.push(i);
            } else {
                alu.push(i);
            }
        }
        let branches = [
            "s_cbranch_scc0 0",
            "s_cbranch_scc1 0",
            "s_cbranch_vccz 0",
            "s_cbranch_vccnz 0",
            "s_cbranch_execz 0",
            "s_cbranch_execnz 0",
        ]
        .iter()
        .map(|t| assemble(isa, t))
        .collect::<Result<Vec<_>, _>>()?;
        Ok(Generator {
            arch: isa.arch(),
            pool,
            alu,
            memory,
            mov_counter: assemble(isa, &format!("s_mov_b32 s{LOOP_SGPR}, 0"))?,
            loop_dec: assemble(isa, &format!("s_sub_u32 s{LOOP_SGPR}, s{LOOP_SGPR}, 1"))?,
            loop_cmp: assemble(isa, &format!("s_cmp_lg_u32 s{LOOP_SGPR}, 0"))?,
            loop_branch: assemble(isa, "s_cbranch_scc1 0")?,
            branches,
            endpgm: assemble(isa, "s_endpgm")?,
        })
    }

    /// The number of instructions random draws come from.
    pub fn pool_size(&self) -> usize {
        self.pool.len()
    }

    /// A random program: up to `max_insts` random instructions with loops and skips.
    pub fn program(&self, isa: &Isa, rng: &mut Rng, max_insts: usize) -> Vec<Item> {
        let n = 1 + (rng.next_u64() as usize) % max_insts.max(1);
        let mut body: Vec<Item> = (0..n).map(|_| Item::Inst(self.inst(isa, rng))).collect();
        // Forward skips over a few instructions.
        let skips = (rng.next_u64() % 3) as usize;
        for _ in 0..skips {
            let at = (rng.next_u64() as usize) % (body.len() + 1);
            body.insert(
                at,
                Item::Skip {
                    branch: (rng.next_u64() as usize) % self.branches.len(),
                    skip: 1 + (rng.next_u64() % 3) as usize,
                },
            );
        }
        // One counted loop around a random range, in two programs out of five.
        if rng.next_u64() % 5 < 2 {
            let a = (rng.next_u64() as usize) % body.len();
            let b = a + 1 + (rng.next_u64() as usize) % (body.len() - a);
            body.insert(b, Item::LoopEnd);
            body.insert(a, Item::LoopStart(1 + (rng.next_u64() % 4) as u32));
        }
        body
    }

    /// Lays out `items` as machine code ending in `s_endpgm`.
    pub fn layout(&self, items: &[Item]) -> Vec<u8> {
        // Item byte offsets first, then the bytes with branch offsets patched.
        let mut offsets = Vec::with_capacity(items.len() + 1);
        let mut at = 0usize;
        for item in items {
            offsets.push(at);
            at += match item {
                Item::Inst(b) => b.len(),
                Item::LoopStart(_) => self.mov_counter.len(),
                Item::LoopEnd => self.loop_dec.len() + self.loop_cmp.len() + 4,
                Item::Skip { .. } => 4,
            };
        }
        offsets.push(at);
        let mut out = Vec::with_capacity(at + 4);
        let mut loop_heads = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match item {
                Item::Inst(b) => out.extend_from_slice(b),
                Item::LoopStart(count) => {
                    let mut b = self.mov_counter.clone();
                    // `s_mov_b32 s20, 0` has the inline constant 0 (code 128) in ssrc0:
                    // counts up to 4 stay inline (codes 129..132).
                    b[0] = (128 + (*count).min(64)) as u8;
                    out.extend_from_slice(&b);
                    loop_heads.push(offsets[i + 1]);
                }
                Item::LoopEnd => {
                    out.extend_from_slice(&self.loop_dec);
                    out.extend_from_slice(&self.loop_cmp);
                    let head = loop_heads.pop().unwrap_or(0);
                    let next = out.len() + 4;
                    out.extend_from_slice(&branch(&self.loop_branch, next, head));
                }
                Item::Skip { branch: k, skip } => {
                    // Jump over at most `skip` following instructions, never past a loop
                    // boundary.
                    let mut j = i + 1;
                    let mut left = *skip;
                    while left > 0 && matches!(items.get(j), Some(Item::Inst(_))) {
                        j += 1;
                        left -= 1;
                    }
                    let next = offsets[i] + 4;
                    out.extend_from_slice(&branch(&self.branches[*k], next, offsets[j]));
                }
            }
        }
        out.extend_from_slice(&self.endpgm);
        out
    }

    /// One random instruction's bytes (decoded by the arch's decoder).
    fn inst(&self, isa: &Isa, rng: &mut Rng) -> Vec<u8> {
        let tables = isa.tables();
        for _ in 0..64 {
            let from = if self.alu.is_empty() || rng.next_u64().is_multiple_of(8) {
                &self.memory
            } else {
                &self.alu
            };
            if from.is_empty() {
                break;
            }
            let info = &tables.insts[from[(rng.next_u64() as usize) % from.len()]];
            let Some(format) = tables.format(&info.family) else {
                continue;
            };
            let bytes = self.encode(tables, info, format, rng);
            if let Ok((inst, size)) = isa.decode(&bytes) {
                if !excluded(&inst.name) && size <= bytes.len() {
                    return bytes[..size].to_vec();
                }
            }
        }
        // Every instruction pool has SOP1 `s_mov_b32`; a fallback that always decodes.
        self.mov_counter.clone()
    }

    /// Random field values for `info` in `format`, followed by a literal dword and an
    /// extension dword (the decoder takes what the fields ask for).
    fn encode(
        &self,
        tables: &crate::isa::Tables,
        info: &InstInfo,
        format: &Format,
        rng: &mut Rng,
    ) -> Vec<u8> {
        let arch = self.arch;
        let off = match arch.wheel() {
            Wheel::Cdna => 0x7f,
            _ => 124,
        };
        let mut bits: u128 = 0;
        let flat = matches!(info.family.as_str(), "FLAT" | "VFLAT");
        let saddr_on = !flat && rng.next_u64().is_multiple_of(2);
        let vector = info.family.starts_with("VOP");
        let mut ext_vgpr = rng.next_u64() as u32 % DATA_REGS;
        for f in &format.fields {
            if let Some(v) = f.fixed {
                f.set(&mut bits, v);
                continue;
            }
            let r = rng.next_u64();
            let value: u64 = match (f.name.as_str(), f.kind.as_str()) {
                ("op", _) => u64::from(info.opcode),
                ("opx" | "opy", _) => {
                    let vopd: Vec<&InstInfo> =
                        tables.insts.iter().filter(|i| i.family == "VOPD").collect();
                    u64::from(vopd[(r as usize) % vopd.len()].opcode)
                }
                (_, "SSrcField") => u64::from(src_code(arch, rng, false, f.name == "vdst")),
                (_, "SrcField") => {
                    let code = src_code(arch, rng, true, false);
                    // A DPP/SDWA selector in src0 now and then (VOP1/VOP2/VOPC/VOP3*).
                    if f.name == "src0" && vector && r.is_multiple_of(16) {
                        u64::from(dpp_code(arch, r >> 8))
                    } else {
                        u64::from(code)
                    }
                }
                ("saddr", _) => u64::from(if saddr_on { BASE_SGPR } else { off }),
                ("soffset", _) => u64::from(if arch.is_gfx9() { 0 } else { off }),
                ("sdata", _) => [0, 4, 8][(r % 3) as usize],
                (_, "SGPRField") => u64::from(sdst_code(arch, rng)),
                (_, "SBaseField") => u64::from(BASE_SGPR / 2),
                ("addr" | "vaddr", _) => u64::from(match info.family.as_str() {
                    "DS" => LDS_VGPR,
                    "FLAT" | "VFLAT" => ADDR_VGPR,
                    _ if saddr_on => OFFSET_VGPR,
                    _ => ADDR_VGPR,
                }),
                (_, "VGPRField" | "VDSTYField") => {
                    let v = (r % u64::from(DATA_REGS)) as u32;
                    if f.name == "vsrc0" {
                        ext_vgpr = v;
                    }
                    u64::from(v)
                }
                ("offset" | "ioffset", _) if !vector => (r % 64) * 4,
                ("offset0" | "offset1", _) => r % 32,
                ("gds" | "sve" | "acc" | "acc_cd" | "nv" | "soffset_en", _) => 0,
                ("imm", _) => 1,
                _ => r,
            };
            f.set(&mut bits, value);
        }
        let mut bytes = bits.to_le_bytes()[..format.size.min(16)].to_vec();
        bytes.extend_from_slice(&edge_u32(rng).to_le_bytes());
        // The extension dword: DPP control / SDWA selects above, the source VGPR in bits 7:0.
        let ext = (rng.next_u64() as u32 & !0xff) | ext_vgpr;
        bytes.extend_from_slice(&ext.to_le_bytes());
        // After a literal, a DPP VOP3 takes the third dword as its extension.
        bytes.extend_from_slice(&ext.to_le_bytes());
        bytes
    }
}

/// A branch instruction `template` at `next - 4` patched to jump to `target`.
fn branch(template: &[u8], next: usize, target: usize) -> Vec<u8> {
    let words = (target as i64 - next as i64) / 4;
    let mut b = template.to_vec();
    let imm = (words as i16 as u16).to_le_bytes();
    b[0] = imm[0];
    b[1] = imm[1];
    b
}

/// A 32-bit value biased toward edge cases (zero, ones, signs, float specials, small ints).
pub fn edge_u32(rng: &mut Rng) -> u32 {
    let r = rng.next_u64();
    match r % 12 {
        0 => 0,
        1 => u32::MAX,
        2 => 0x8000_0000,
        3 => 1,
        4 => (r >> 8) as u32 % 64,
        5 => [
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x0000_0001,
            0x3f80_0000,
            0x7c00_3c00,
        ][((r >> 8) % 6) as usize],
        6 => 0x0000_ffff & (r >> 16) as u32,
        _ => (r >> 16) as u32,
    }
}

/// A random scalar destination: a data SGPR mostly, sometimes VCC, EXEC, M0 or null.
fn sdst_code(arch: Arch, rng: &mut Rng) -> u32 {
    let r = rng.next_u64();
    match r % 16 {
        0 => 106, // VCC_LO
        1 => 126, // EXEC_LO
        2 => crate::wave::m0_code(arch),
        3 => crate::wave::null_code(arch).unwrap_or(106),
        _ => ((r >> 8) % u64::from(DATA_REGS)) as u32,
    }
}

/// A random source operand code.
fn src_code(arch: Arch, rng: &mut Rng, vgpr: bool, is_dst: bool) -> u32 {
    if is_dst {
        return sdst_code(arch, rng);
    }
    let r = rng.next_u64();
    let reg = ((r >> 8) % u64::from(DATA_REGS)) as u32;
    match r % 20 {
        0..=5 => reg,
        6..=11 if vgpr => 256 + reg,
        6..=8 => reg,
        9..=11 => 128 + ((r >> 16) % 81) as u32, // inline integers 0..64, -1..-16
        12..=13 => 240 + ((r >> 16) % 9) as u32, // inline floats (and 1/(2*pi))
        14..=15 => 255,                          // a literal
        16 => 106,                               // VCC_LO
        17 => 126,                               // EXEC_LO
        18 => crate::wave::m0_code(arch),
        _ => 253, // SCC
    }
}

/// A DPP or SDWA selector for `src0` of the arch's vector encodings.
fn dpp_code(arch: Arch, r: u64) -> u32 {
    match arch.wheel() {
        Wheel::Cdna => [249, 250][(r % 2) as usize],
        _ => [233, 234, 250][(r % 3) as usize],
    }
}
