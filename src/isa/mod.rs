//! Binary encodings, decoder, assembler and disassembler for RDNA 3, RDNA 4 and CDNA 4.
//!
//! Everything about *which* instructions exist, their opcodes, bit fields and operand sizes
//! comes from the spec database ([`crate::spec::SpecDb`]); [`tables`] turns it into lookup
//! tables. What the spec does not say is the *textual* syntax LLVM uses, which lives in three
//! places: [`layout`] (operand order and spelling per format family), [`operands`] (the
//! scalar and source operand code space) and `semantics/ALIASES.md` (mnemonic aliases and
//! a few printing choices, checked against `llvm-mc`).
//!
//! ```no_run
//! use amdpcode::isa::Isa;
//! use amdpcode::spec::{self, Arch, Spec};
//! let spec = Spec::load(&spec::find_wheel(&spec::Locate::default()).unwrap()).unwrap();
//! let isa = Isa::new(spec.db(Arch::Rdna3));
//! let bytes = isa.assemble("s_wqm_b64 s[0:1], 0").unwrap();
//! assert_eq!(bytes, [0x80, 0x1d, 0x80, 0xbe]);
//! let (inst, len) = isa.decode(&bytes).unwrap();
//! assert_eq!((inst.name.as_str(), len), ("S_WQM_B64", 4));
//! assert_eq!(isa.print(&inst), "s_wqm_b64 s[0:1], 0");
//! ```

use crate::spec::{Arch, SpecDb};

mod decode;
mod dpp;
mod enc;
mod encode;
mod inst;
pub mod layout;
mod ldsdir;
mod mem;
mod mfma;
pub mod operands;
mod print;
mod spelling;
pub mod syntax;
pub mod tables;
mod vop;
mod vopd;
pub(crate) mod vopd3;

pub(crate) use decode::SCALE_LOAD;
pub use inst::{AsmError, Assembled, DecodeError, Inst, Operand, Value};
pub use operands::Reg;
pub use tables::Tables;
pub use vopd::dst_y as vopd_dst_y;

/// The assembler and disassembler of one arch.
#[derive(Clone, Debug)]
pub struct Isa {
    /// Shared: cloning an `Isa` (the CLI and the executors do) copies no table.
    tables: std::sync::Arc<Tables>,
    /// The database's instruction facts (shared the same way).
    facts: std::sync::Arc<crate::machine::Facts>,
}

impl Isa {
    /// The tables of `db`'s arch (without symbolic `hwreg` names), built on the first call
    /// for a database and shared by later calls for it (and its clones).
    pub fn new(db: &SpecDb) -> Isa {
        Isa {
            tables: db.derived(|db| Tables::build(db, None)),
            facts: crate::machine::Facts::of(db),
        }
    }

    /// Builds the tables of `db`'s arch; `enum_py` is the arch's `enum.py` text, which adds
    /// the symbolic `HWREG` names.
    pub fn with_enum_py(db: &SpecDb, enum_py: &str) -> Isa {
        Isa {
            tables: std::sync::Arc::new(Tables::build(db, Some(enum_py))),
            facts: crate::machine::Facts::of(db),
        }
    }

    /// Builds the tables of `arch` from the spec wheel at `wheel`, symbolic names included.
    ///
    /// # Errors
    /// Any [`crate::spec::SpecError`] from loading the wheel.
    pub fn from_wheel(wheel: &std::path::Path, arch: Arch) -> Result<Isa, crate::spec::SpecError> {
        let spec = crate::spec::Spec::load(wheel)?;
        let enum_py = read_wheel_member(
            wheel,
            &format!(
                "tinygrad/runtime/autogen/amd/{}/enum.py",
                arch.wheel().folder()
            ),
        );
        let db = spec.get(arch)?;
        Ok(match enum_py {
            Some(text) => Isa::with_enum_py(db, &text),
            None => Isa::new(db),
        })
    }

    /// The arch.
    pub fn arch(&self) -> Arch {
        self.tables.arch
    }

    /// The tables.
    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// The facts of every instruction of the database (`machine::facts`).
    pub fn facts(&self) -> &crate::machine::Facts {
        &self.facts
    }

    /// Decodes one instruction from the start of `bytes`, returning it and its size.
    ///
    /// # Errors
    /// [`DecodeError::Truncated`] or [`DecodeError::Unknown`].
    pub fn decode(&self, bytes: &[u8]) -> Result<(Inst, usize), DecodeError> {
        decode::decode(&self.tables, bytes)
    }

    /// Prints a decoded instruction in LLVM syntax.
    pub fn print(&self, inst: &Inst) -> String {
        print::print(&self.tables, inst)
    }

    /// The text of a source operand code of `bits` bits as the printer spells it (a
    /// register, an inline constant, or `literal` for the literal code).
    pub fn source_text(&self, code: u32, bits: u32, literal: Option<u64>) -> String {
        spelling::src(&self.tables, code, bits, literal)
    }

    /// The register fields of a decoded instruction that name CDNA accumulation registers
    /// (`a0..a255`) rather than VGPRs: MFMA/SMFMAC operands by their `acc_cd`/`acc` bits,
    /// `v_accvgpr_*` operands, and the data fields of memory instructions with `acc` set.
    /// Empty on RDNA and for every other instruction.
    pub fn agpr_fields(&self, inst: &Inst) -> Vec<String> {
        mfma::agpr_fields(&self.tables, inst)
    }

    /// Decodes a whole stream into `(offset, text, bytes)` lines; undecodable words print as
    /// `.long 0x...` and decoding resumes at the next dword.
    pub fn disassemble(&self, bytes: &[u8]) -> Vec<(usize, String, Vec<u8>)> {
        let mut out = Vec::new();
        let mut pos = 0;
        while pos < bytes.len() {
            match self.decode(&bytes[pos..]) {
                Ok((inst, len)) => {
                    out.push((pos, self.print(&inst), bytes[pos..pos + len].to_vec()));
                    pos += len;
                }
                Err(_) => {
                    let end = (pos + 4).min(bytes.len());
                    let mut word = [0u8; 4];
                    word[..end - pos].copy_from_slice(&bytes[pos..end]);
                    out.push((
                        pos,
                        format!(".long 0x{:08x}", u32::from_le_bytes(word)),
                        bytes[pos..end].to_vec(),
                    ));
                    pos = end;
                }
            }
        }
        out
    }

    /// Assembles a whole program (labels, comments, several lines) into bytes.
    ///
    /// # Errors
    /// The first [`AsmError`], with its line and column.
    pub fn assemble(&self, text: &str) -> Result<Vec<u8>, AsmError> {
        Ok(self
            .assemble_lines(text)?
            .into_iter()
            .flat_map(|a| a.bytes)
            .collect())
    }

    /// Assembles a program and keeps the per-instruction split (for `--show-encoding`).
    ///
    /// # Errors
    /// The first [`AsmError`], with its line and column.
    pub fn assemble_lines(&self, text: &str) -> Result<Vec<Assembled>, AsmError> {
        encode::assemble(&self.tables, text)
    }
}

/// Reads a text member of the wheel (a zip archive).
fn read_wheel_member(wheel: &std::path::Path, member: &str) -> Option<String> {
    use std::io::Read;
    let file = std::fs::File::open(wheel).ok()?;
    let mut archive = zip::ZipArchive::new(file).ok()?;
    let mut entry = archive.by_name(member).ok()?;
    let mut text = String::new();
    entry.read_to_string(&mut text).ok()?;
    Some(text)
}

/// Formats bytes as llvm-mc does: `[0x80,0x1d,0x80,0xbe]`.
pub fn encoding_text(bytes: &[u8]) -> String {
    let parts: Vec<String> = bytes.iter().map(|b| format!("0x{b:02x}")).collect();
    format!("[{}]", parts.join(","))
}
