//! Programs: machine code decoded once into instructions (with their extension words and
//! classes), indexed by address, from assembly text, hex, raw bytes or a mapped code image.

use super::{agpr, Barrier, WaveError};
use crate::isa::{self, Isa};
use crate::machine::{Control, Encoding, InstFacts};

/// One decoded instruction of a program.
#[derive(Clone, Debug)]
pub struct Decoded {
    /// Its byte offset.
    pub addr: u64,
    /// The decoded fields as the executor reads them: on CDNA, fields that name AGPRs are
    /// rebased onto the AGPR rows of the VGPR file (see `encoded`).
    pub inst: isa::Inst,
    /// The instruction as encoded, when `inst` differs from it (AGPR fields rebased); what
    /// [`Decoded::encoded`] returns for printing.
    pub as_encoded: Option<Box<isa::Inst>>,
    /// The size in bytes, DPP/SDWA dword included.
    pub size: usize,
    /// The source line, for assembled programs.
    pub line: Option<usize>,
    /// The DPP16/DPP8/SDWA extension dword, when `src0` selects one.
    pub ext: Option<(u32, u32)>,
    /// What the executor does with it, decided once at decode.
    pub class: Class,
    /// The facts of its database entry (`machine::facts`).
    pub facts: InstFacts,
    /// Its encoding's extension form (SDWA, DPP16, DPP8 or none).
    pub encoding: Encoding,
}

impl Decoded {
    /// The instruction as encoded (for printing and register analysis by file).
    pub fn encoded(&self) -> &isa::Inst {
        self.as_encoded.as_deref().unwrap_or(&self.inst)
    }
}

/// How the executor treats an instruction, from its name (decided once per decoded
/// instruction, so a step does no string matching).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Runs its pseudocode.
    Execute,
    /// Only waits, orders, hints or invalidates caches: a no-op in this model.
    Noop,
    /// Ends the program.
    End,
    /// A barrier instruction.
    Barrier(Barrier),
    /// A CDNA AGPR move (`v_accvgpr_read/write/mov`), run natively (no pseudocode text).
    AgprMove,
    /// Modelled by the wave layer itself (`wave::native`).
    Native(super::native::Native),
}

impl Class {
    /// The class of an instruction with facts `f` and fields `inst`: a CDNA MUBUF load with
    /// the `lds` bit is an LDS DMA load (`buffer_load_dword ... lds`).
    pub fn of(f: &InstFacts, inst: &isa::Inst) -> Class {
        match f.control {
            _ if f.lds_by_bit && inst.field("lds") == Some(1) => {
                Class::Native(super::native::Native::LdsDma)
            }
            Control::Execute => Class::Execute,
            Control::Noop => Class::Noop,
            Control::End => Class::End,
            Control::Barrier(b) => Class::Barrier(b),
            Control::AgprMove => Class::AgprMove,
            Control::Native(k) => Class::Native(k),
        }
    }
}

/// A decoded program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// The instructions in memory order (fixed once built: executors cache per-instruction
    /// plans by the program's id). Shared by clones, so a clone costs two reference counts.
    pub(super) insts: std::sync::Arc<[Decoded]>,
    /// The byte size.
    pub size: u64,
    /// The address of the first byte: instruction addresses (and so PC) are `base + offset`.
    pub base: u64,
    /// Instruction index + 1 per 4-byte word of the program (0: no instruction starts there).
    pub(super) index: std::sync::Arc<[u32]>,
    /// A process-unique id (clones share it): executors key their per-instruction binding
    /// plans by it, so a program's instructions must not be changed after it is built.
    pub(super) id: u64,
}

/// The next [`Program`] id.
static NEXT_PROGRAM_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// The `src0` codes that mark a DPP or SDWA extension dword in VOP1/VOP2/VOPC.
const SRC_DPP8: u32 = 233;
const SRC_DPP8_FI: u32 = 234;
const SRC_SDWA: u32 = 249;
const SRC_DPP16: u32 = 250;

impl Program {
    /// Decodes machine code given as hex text in memory order (whitespace and commas ignored).
    ///
    /// # Errors
    /// [`WaveError::BadHex`] or [`WaveError::Undecodable`] naming the address.
    pub fn from_hex(isa: &Isa, text: &str) -> Result<Program, WaveError> {
        let digits: String = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != ',')
            .collect();
        let digits = digits.replace("0x", "");
        if !digits.len().is_multiple_of(2) || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(WaveError::BadHex {
                text: text.trim().chars().take(60).collect(),
            });
        }
        let bytes: Vec<u8> = (0..digits.len() / 2)
            .map(|i| u8::from_str_radix(&digits[2 * i..2 * i + 2], 16).unwrap_or(0))
            .collect();
        Program::from_bytes(isa, &bytes, &[])
    }

    /// Assembles LLVM-syntax assembly text.
    ///
    /// # Errors
    /// [`WaveError::Asm`] naming the line.
    pub fn assemble(isa: &Isa, text: &str) -> Result<Program, WaveError> {
        let lines = isa.assemble_lines(text).map_err(|e| WaveError::Asm {
            line: e.line,
            message: e.message,
        })?;
        let mut bytes = Vec::new();
        let mut line_of = Vec::new();
        for a in lines {
            line_of.push((bytes.len() as u64, a.line));
            bytes.extend(a.bytes);
        }
        Program::from_bytes(isa, &bytes, &line_of)
    }

    /// Decodes raw bytes; `lines` maps instruction offsets to source lines.
    ///
    /// # Errors
    /// [`WaveError::Undecodable`] naming the address.
    pub fn from_bytes(
        isa: &Isa,
        bytes: &[u8],
        lines: &[(u64, usize)],
    ) -> Result<Program, WaveError> {
        Program::decode(isa, bytes, 0, lines, false)
    }

    /// Decodes a code image mapped at `base` (a code object's text, or a raw launch's code):
    /// instruction addresses are `base + offset`. Words that decode to no instruction (data
    /// or padding beside the code) are skipped; a jump to one is an error when it happens.
    ///
    /// # Errors
    /// [`WaveError::Undecodable`] only for a truncated last instruction.
    pub fn from_image(isa: &Isa, bytes: &[u8], base: u64) -> Result<Program, WaveError> {
        Program::decode(isa, bytes, base, &[], true)
    }

    fn decode(
        isa: &Isa,
        bytes: &[u8],
        base: u64,
        lines: &[(u64, usize)],
        lenient: bool,
    ) -> Result<Program, WaveError> {
        let mut insts = Vec::new();
        let mut index = vec![0u32; bytes.len().div_ceil(4)];
        let mut pos = 0usize;
        while pos < bytes.len() {
            let addr = base.wrapping_add(pos as u64);
            let line = lines.iter().find(|(a, _)| *a == pos as u64).map(|x| x.1);
            let (mut inst, mut size) = match isa.decode(&bytes[pos..]) {
                Ok(x) => x,
                Err(_) if lenient => {
                    pos += 4;
                    continue;
                }
                Err(e) => {
                    return Err(WaveError::Undecodable {
                        addr,
                        message: match line {
                            Some(l) => format!("line {l}: {e}"),
                            None => e.to_string(),
                        },
                    })
                }
            };
            let mut ext = None;
            let encoding = Encoding::of(&inst.format);
            // A VOP3/VOP3SD/VOP3P DPP word (RDNA, 12 bytes) carries its extension in the
            // third dword, laid out as the 32-bit forms' second.
            let long_dpp =
                matches!(inst.family.as_str(), "VOP3" | "VOP3SD" | "VOP3P") && encoding.is_dpp();
            if long_dpp {
                let src0 = inst.field("src0").unwrap_or(0) as u32;
                let at = pos + 8;
                let Some(w) = bytes.get(at..at + 4) else {
                    if lenient {
                        pos += 4;
                        continue;
                    }
                    return Err(WaveError::Undecodable {
                        addr,
                        message: "truncated DPP instruction".into(),
                    });
                };
                ext = Some((src0, u32::from_le_bytes([w[0], w[1], w[2], w[3]])));
            }
            // The isa decoder returns DPP/SDWA words whole (8 bytes); the extension dword
            // is kept here as well for the lane-select code.
            if matches!(inst.family.as_str(), "VOP1" | "VOP2" | "VOPC") {
                let src0 = inst.field("src0").unwrap_or(0) as u32;
                if matches!(src0, SRC_DPP8 | SRC_DPP8_FI | SRC_SDWA | SRC_DPP16) {
                    if pos + 8 > bytes.len() {
                        if lenient {
                            pos += 4;
                            continue;
                        }
                        return Err(WaveError::Undecodable {
                            addr,
                            message: "truncated DPP/SDWA instruction".into(),
                        });
                    }
                    let w = u32::from_le_bytes([
                        bytes[pos + 4],
                        bytes[pos + 5],
                        bytes[pos + 6],
                        bytes[pos + 7],
                    ]);
                    ext = Some((src0, w));
                    size = 8;
                }
            }
            if let Some(slot) = index.get_mut(pos / 4) {
                *slot = insts.len() as u32 + 1;
            }
            let facts = isa.facts().of_code(&inst.family, inst.opcode);
            let class = Class::of(&facts, &inst);
            let as_encoded = agpr::rebase(isa, &facts, &mut inst);
            insts.push(Decoded {
                addr,
                inst,
                as_encoded,
                size,
                line,
                ext,
                class,
                facts,
                encoding,
            });
            pos += size;
        }
        Ok(Program {
            insts: insts.into(),
            size: bytes.len() as u64,
            base,
            index: index.into(),
            id: NEXT_PROGRAM_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }

    /// The program's process-unique id, shared by its clones (a program never changes once
    /// built, so what is derived from it can be kept by this id).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The instructions in memory order.
    pub fn insts(&self) -> &[Decoded] {
        &self.insts
    }

    /// The instruction at address `addr`.
    pub fn at(&self, addr: u64) -> Option<&Decoded> {
        self.position(addr).map(|i| &self.insts[i])
    }

    /// The address just past the last byte.
    pub fn end(&self) -> u64 {
        self.base.wrapping_add(self.size)
    }

    /// The index in `insts` of the instruction at address `addr`.
    pub fn position(&self, addr: u64) -> Option<usize> {
        let addr = addr.checked_sub(self.base)?;
        if !addr.is_multiple_of(4) {
            return None;
        }
        let i = *self.index.get(usize::try_from(addr / 4).ok()?)?;
        (i > 0).then(|| i as usize - 1)
    }
}
