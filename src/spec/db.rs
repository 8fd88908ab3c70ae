//! The instruction database built from one arch's four generated files.
//!
//! `enum.py` decides which instructions exist: every member of an enum class whose name
//! ends in `Op` is an instruction of the encoding named by the rest of the class name
//! (`SOP1Op` → `SOP1`); members written `NAME = OTHER` are aliases of `OTHER`. Classes such
//! as `HWREG` and `MSG` are operand enums, not opcodes, and are ignored. `operands.py` and
//! `str_pcode.py` then attach operand tables and pseudocode to those instructions, and
//! `ins.py` gives the bit layout of each encoding.

use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::Path;

use serde::Serialize;

use super::pyread::{self, FieldDef, InsClass};
use super::{Arch, FastMap, SpecError};

/// Where the generated modules live inside the wheel.
const AUTOGEN_DIR: &str = "tinygrad/runtime/autogen/amd";

/// Encodings preferred, in this order, when several instructions share a name.
const ENCODING_PREFERENCE: [&str; 11] = [
    "SOP1", "SOP2", "SOPC", "SOPK", "SOPP", "VOP1", "VOP2", "VOPC", "VOP3", "VOP3SD", "VOP3P",
];

/// One operand of an instruction, from `operands.py`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Operand {
    /// The encoding field it lives in, e.g. `vdst`, `src0`, `ssrc0`.
    pub field: String,
    /// The data format, e.g. `FMT_NUM_U64`.
    pub format: String,
    /// The operand size in bits.
    pub bits: u32,
    /// The operand type, e.g. `OPR_SSRC`, `OPR_VGPR`.
    pub kind: String,
}

/// One bit field of an encoding, from `ins.py`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BitField {
    /// The field name, e.g. `op`, `vdst`, `encoding`.
    pub name: String,
    /// The highest bit, inclusive.
    pub hi: u32,
    /// The lowest bit, inclusive.
    pub lo: u32,
    /// The constructor used in `ins.py`: `BitField`, `VGPRField`, `EnumBitField`,
    /// `FixedBitField`, `SGPRField`, `SrcField`, ...
    pub kind: String,
    /// The constant value of a `FixedBitField`.
    pub fixed: Option<u64>,
    /// The `default=` argument as written, e.g. `NULL`.
    pub default: Option<String>,
}

/// One instruction encoding (an `ins.py` class), with inherited fields included.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Encoding {
    /// The class name, e.g. `SOP1`, `VOP3`, `DS`, `VOP1_LIT`.
    pub name: String,
    /// The encoding it extends (for variants such as `VOP1_LIT`), or `None` for a base encoding.
    pub base: Option<String>,
    /// All fields, inherited ones first in the base's order; a redefined field keeps the
    /// base's position, as Python's class-dict merge does.
    pub fields: Vec<BitField>,
    /// The enum class of the opcode field, e.g. `SOP1Op`.
    pub op_enum: Option<String>,
    /// The opcodes the opcode field(s) accept, ascending and without repeats; empty when the
    /// file lists no set (as for `VOPD`).
    pub opcodes: Vec<u32>,
}

/// One instruction: an opcode of one encoding, with its operands and pseudocode.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Instruction {
    /// The canonical enum member name, e.g. `V_ADD_F32_E32`.
    pub name: String,
    /// The encoding: the enum class name without `Op`, e.g. `SOP1`, `VOP3`, `DS`.
    pub encoding: String,
    /// The opcode value.
    pub opcode: u32,
    /// Other names of the same member, e.g. `["V_ADD_F32"]`, in file order.
    pub aliases: Vec<String>,
    /// The operands in the order `operands.py` lists them (empty when it has none).
    pub operands: Vec<Operand>,
    /// AMD's pseudocode, unescaped, when `str_pcode.py` has it.
    pub pcode: Option<String>,
}

/// The text of one arch's four generated modules.
#[derive(Clone, Copy, Debug)]
pub struct Sources<'a> {
    /// `enum.py`.
    pub enum_py: &'a str,
    /// `ins.py`.
    pub ins_py: &'a str,
    /// `operands.py`.
    pub operands_py: &'a str,
    /// `str_pcode.py`.
    pub str_pcode_py: &'a str,
}

/// The instruction database of one arch. Cloning it is cheap (the tables are shared).
#[derive(Clone, Debug)]
pub struct SpecDb {
    arch: Arch,
    data: std::sync::Arc<DbData>,
}

/// The tables of a [`SpecDb`].
#[derive(Debug)]
struct DbData {
    instructions: Vec<Instruction>,
    encodings: Vec<Encoding>,
    /// Indices of instructions with pseudocode, in `str_pcode.py` order.
    pcode_order: Vec<u32>,
    /// Instruction indices sorted by upper-case name, best encoding first within a name
    /// (the second number is unused).
    by_name: Vec<(u32, u32)>,
    /// (instruction index, alias index) sorted by upper-case alias, best encoding first.
    by_alias: Vec<(u32, u32)>,
    /// Upper-case encoding name → index into `encodings`.
    encoding_index: FastMap<String, usize>,
    /// Values derived from the database and kept with it ([`SpecDb::derived`]).
    derived: std::sync::Mutex<Vec<std::sync::Arc<dyn std::any::Any + Send + Sync>>>,
}

impl Serialize for SpecDb {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct View<'a> {
            arch: Arch,
            instructions: &'a [Instruction],
            encodings: &'a [Encoding],
        }
        View {
            arch: self.arch,
            instructions: &self.data.instructions,
            encodings: &self.data.encodings,
        }
        .serialize(serializer)
    }
}

/// Compares two names as their upper-case forms.
fn cmp_upper(a: &str, b: &str) -> std::cmp::Ordering {
    a.bytes()
        .map(|c| c.to_ascii_uppercase())
        .cmp(b.bytes().map(|c| c.to_ascii_uppercase()))
}

/// The entries of `list` (sorted by [`cmp_upper`] of `key`) whose key equals `name`,
/// ignoring case.
fn equal_run<'a, 'k, T>(list: &'a [T], name: &str, key: impl Fn(&T) -> &'k str) -> &'a [T] {
    let start = list.partition_point(|e| cmp_upper(key(e), name).is_lt());
    let len = list[start..].partition_point(|e| cmp_upper(key(e), name).is_eq());
    &list[start..start + len]
}

/// Sort key putting preferred encodings first and the rest alphabetically.
fn encoding_rank(encoding: &str) -> (usize, &str) {
    let rank = ENCODING_PREFERENCE
        .iter()
        .position(|e| *e == encoding)
        .unwrap_or(ENCODING_PREFERENCE.len());
    (rank, encoding)
}

fn to_u32(value: i64) -> Option<u32> {
    u32::try_from(value).ok()
}

impl SpecDb {
    /// Builds the database from the text of one arch's generated modules.
    ///
    /// # Errors
    /// [`SpecError::Shape`] when a statement has an unexpected shape,
    /// [`SpecError::UnknownName`] when an alias, operand key, pseudocode key or opcode-set
    /// member names no instruction, and [`SpecError::Duplicate`] when something is defined
    /// twice. Errors name the file as `<arch>/<file>.py`.
    pub fn from_sources(arch: Arch, sources: &Sources<'_>) -> Result<SpecDb, SpecError> {
        let enum_file = format!("{arch}/enum.py");
        let ins_file = format!("{arch}/ins.py");
        let operands_file = format!("{arch}/operands.py");
        let pcode_file = format!("{arch}/str_pcode.py");

        // Instructions from the opcode enums.
        let enums = pyread::read_enums(&enum_file, sources.enum_py)?;
        let mut instructions: Vec<Instruction> = Vec::new();
        // (class, member) → instruction index, for canonical members and aliases.
        let mut by_member: FastMap<(&str, &str), u32> = FastMap::default();
        // (class, member) → value, for every enum (opcode sets resolve through this).
        let mut values: FastMap<(&str, &str), i64> = FastMap::default();
        for class in &enums {
            for member in &class.members {
                values.insert((class.name, member.name), member.value);
            }
            let Some(encoding) = class.name.strip_suffix("Op").filter(|e| !e.is_empty()) else {
                continue;
            };
            let mut index_of_member: Vec<u32> = Vec::with_capacity(class.members.len());
            for member in &class.members {
                let idx = match member.alias_of {
                    Some(canonical) => {
                        let idx = index_of_member[canonical];
                        instructions[idx as usize]
                            .aliases
                            .push(member.name.to_string());
                        idx
                    }
                    None => {
                        let opcode = to_u32(member.value).ok_or_else(|| SpecError::Shape {
                            file: enum_file.clone(),
                            line: member.line,
                            message: format!(
                                "opcode {} of `{}.{}` is out of range",
                                member.value, class.name, member.name
                            ),
                        })?;
                        let idx =
                            u32::try_from(instructions.len()).map_err(|_| SpecError::Shape {
                                file: enum_file.clone(),
                                line: member.line,
                                message: "too many instructions".to_string(),
                            })?;
                        instructions.push(Instruction {
                            name: member.name.to_string(),
                            encoding: encoding.to_string(),
                            opcode,
                            aliases: Vec::new(),
                            operands: Vec::new(),
                            pcode: None,
                        });
                        idx
                    }
                };
                index_of_member.push(idx);
                by_member.insert((class.name, member.name), idx);
            }
        }
        let lookup = |file: &str, line: usize, class: &str, member: &str| {
            by_member
                .get(&(class, member))
                .copied()
                .ok_or_else(|| SpecError::UnknownName {
                    file: file.to_string(),
                    line,
                    name: format!("{class}.{member}"),
                })
        };

        // Operands; keys may be aliases.
        let mut operand_lines: Vec<usize> = vec![0; instructions.len()];
        for entry in pyread::read_operands(&operands_file, sources.operands_py)? {
            let idx = lookup(&operands_file, entry.line, entry.class, entry.member)? as usize;
            if operand_lines[idx] != 0 {
                return Err(SpecError::Duplicate {
                    file: operands_file.clone(),
                    line: entry.line,
                    first_line: operand_lines[idx],
                    name: format!("{}.{}", entry.class, entry.member),
                });
            }
            operand_lines[idx] = entry.line;
            instructions[idx].operands = entry
                .value
                .into_iter()
                .map(|op| Operand {
                    field: op.field.into_owned(),
                    format: op.format.to_string(),
                    bits: op.bits,
                    kind: op.kind.to_string(),
                })
                .collect();
        }

        // Pseudocode; every key must be an instruction.
        let mut pcode_lines: Vec<usize> = vec![0; instructions.len()];
        let mut pcode_order = Vec::new();
        for entry in pyread::read_pcode(&pcode_file, sources.str_pcode_py)? {
            let idx = lookup(&pcode_file, entry.line, entry.class, entry.member)?;
            let slot = &mut pcode_lines[idx as usize];
            if *slot != 0 {
                return Err(SpecError::Duplicate {
                    file: pcode_file.clone(),
                    line: entry.line,
                    first_line: *slot,
                    name: format!("{}.{}", entry.class, entry.member),
                });
            }
            *slot = entry.line;
            instructions[idx as usize].pcode = Some(entry.value.into_owned());
            pcode_order.push(idx);
        }

        let classes = pyread::read_ins(&ins_file, sources.ins_py)?;
        let encodings = build_encodings(&ins_file, &classes, &values)?;

        Ok(SpecDb::from_parts(
            arch,
            instructions,
            encodings,
            pcode_order,
        ))
    }

    /// A database from its parts (as parsed, or as read back from the prepared-database
    /// cache), with the name indices built.
    pub(crate) fn from_parts(
        arch: Arch,
        instructions: Vec<Instruction>,
        encodings: Vec<Encoding>,
        pcode_order: Vec<u32>,
    ) -> SpecDb {
        // Sorted indices instead of maps keyed by upper-cased copies: no allocation per
        // name (this runs on every load from the cache, at start-up).
        let mut by_name: Vec<(u32, u32)> =
            (0..instructions.len() as u32).map(|idx| (idx, 0)).collect();
        let mut by_alias: Vec<(u32, u32)> = Vec::new();
        for (idx, instruction) in instructions.iter().enumerate() {
            // `instructions.len()` was checked to fit in u32 as it grew.
            for j in 0..instruction.aliases.len() {
                by_alias.push((idx as u32, j as u32));
            }
        }
        let name_key = |&(idx, _): &(u32, u32)| instructions[idx as usize].name.as_str();
        let alias_key =
            |&(idx, j): &(u32, u32)| instructions[idx as usize].aliases[j as usize].as_str();
        let rank = |&(idx, _): &(u32, u32)| encoding_rank(&instructions[idx as usize].encoding);
        // Within one name: preferred encodings first, then enum order. The spec's names are
        // upper case, so a plain comparison orders them as their upper-case forms do;
        // otherwise compare those.
        let upper = instructions.iter().all(|i| {
            !i.name.bytes().any(|c| c.is_ascii_lowercase())
                && !i
                    .aliases
                    .iter()
                    .any(|a| a.bytes().any(|c| c.is_ascii_lowercase()))
        });
        let cmp = |a: &str, b: &str| if upper { a.cmp(b) } else { cmp_upper(a, b) };
        by_name.sort_unstable_by(|a, b| {
            cmp(name_key(a), name_key(b))
                .then_with(|| rank(a).cmp(&rank(b)))
                .then(a.cmp(b))
        });
        by_alias.sort_unstable_by(|a, b| {
            cmp(alias_key(a), alias_key(b))
                .then_with(|| rank(a).cmp(&rank(b)))
                .then(a.cmp(b))
        });
        let encoding_index = encodings
            .iter()
            .enumerate()
            .map(|(i, e)| (e.name.to_ascii_uppercase(), i))
            .collect();

        SpecDb {
            arch,
            data: std::sync::Arc::new(DbData {
                instructions,
                encodings,
                pcode_order,
                by_name,
                by_alias,
                encoding_index,
                derived: std::sync::Mutex::new(Vec::new()),
            }),
        }
    }

    /// The value of type `T` derived from this database, built by `build` on first use and
    /// kept with the database (and its clones), so that every user of one database shares
    /// one copy: the assembler's tables (`Isa::new`) are built once per process, not once
    /// per executor. One value per type.
    pub fn derived<T: std::any::Any + Send + Sync>(
        &self,
        build: impl FnOnce(&SpecDb) -> T,
    ) -> std::sync::Arc<T> {
        let find = |list: &[std::sync::Arc<dyn std::any::Any + Send + Sync>]| {
            list.iter().find_map(|v| v.clone().downcast::<T>().ok())
        };
        let lock = || self.data.derived.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = find(&lock()) {
            return v;
        }
        // Built without the lock held (`build` may itself ask for another derived value).
        let value = std::sync::Arc::new(build(self));
        let mut list = lock();
        if let Some(v) = find(&list) {
            return v;
        }
        list.push(value.clone());
        value
    }

    /// Indices of the instructions with pseudocode, in `str_pcode.py` order.
    pub(crate) fn pcode_order(&self) -> &[u32] {
        &self.data.pcode_order
    }

    /// The arch this database describes.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// Every instruction, in `enum.py` order (class by class, canonical members only).
    pub fn instructions(&self) -> &[Instruction] {
        &self.data.instructions
    }

    /// Every encoding, in `ins.py` order.
    pub fn encodings(&self) -> &[Encoding] {
        &self.data.encodings
    }

    /// Looks an instruction up by name, ignoring case.
    ///
    /// A canonical name (`V_ADD_F32_E64`) wins over an alias (`V_ADD_F32`). When several
    /// instructions match at the same level, the one whose encoding comes first in SOP1, SOP2,
    /// SOPC, SOPK, SOPP, VOP1, VOP2, VOPC, VOP3, VOP3SD, VOP3P, then the rest alphabetically,
    /// is returned; so `V_ADD_F32` is the VOP2 `V_ADD_F32_E32`.
    pub fn get(&self, name: &str) -> Option<&Instruction> {
        let first = |list: &[(u32, u32)]| list.first().map(|&(idx, _)| idx);
        first(self.named(name))
            .or_else(|| first(self.aliased(name)))
            .map(|idx| &self.data.instructions[idx as usize])
    }

    /// Every instruction named `name` (ignoring case): canonical matches first, then alias
    /// matches, each in the order [`SpecDb::get`] prefers.
    pub fn get_all(&self, name: &str) -> Vec<&Instruction> {
        let mut out: Vec<&Instruction> = Vec::new();
        let mut seen: Vec<u32> = Vec::new();
        for &(idx, _) in self.named(name).iter().chain(self.aliased(name)) {
            if !seen.contains(&idx) {
                seen.push(idx);
                out.push(&self.data.instructions[idx as usize]);
            }
        }
        out
    }

    /// The run of `by_name` whose name equals `name`, ignoring case.
    fn named(&self, name: &str) -> &[(u32, u32)] {
        let key = |&(idx, _): &(u32, u32)| self.data.instructions[idx as usize].name.as_str();
        equal_run(&self.data.by_name, name, key)
    }

    /// The run of `by_alias` whose alias equals `name`, ignoring case.
    fn aliased(&self, name: &str) -> &[(u32, u32)] {
        let key = |&(idx, j): &(u32, u32)| {
            self.data.instructions[idx as usize].aliases[j as usize].as_str()
        };
        equal_run(&self.data.by_alias, name, key)
    }

    /// The instructions that have pseudocode, in `str_pcode.py` order.
    pub fn with_pcode(&self) -> impl Iterator<Item = &Instruction> + '_ {
        self.data
            .pcode_order
            .iter()
            .map(move |&idx| &self.data.instructions[idx as usize])
    }

    /// Looks an encoding up by its `ins.py` class name, ignoring case.
    pub fn encoding(&self, name: &str) -> Option<&Encoding> {
        self.data
            .encoding_index
            .get(&name.to_ascii_uppercase())
            .map(|&i| &self.data.encodings[i])
    }
}

/// Turns `ins.py` classes into encodings, merging inherited fields and resolving opcode sets.
pub(super) fn build_encodings(
    file: &str,
    classes: &[InsClass<'_>],
    values: &FastMap<(&str, &str), i64>,
) -> Result<Vec<Encoding>, SpecError> {
    let mut encodings: Vec<Encoding> = Vec::with_capacity(classes.len());
    // Per encoding, the EnumBitField definitions (inherited ones included), by field name.
    let mut enum_fields: Vec<Vec<&FieldDef<'_>>> = Vec::with_capacity(classes.len());
    let mut index: FastMap<&str, usize> = FastMap::default();
    for class in classes {
        let (mut fields, mut enums) = match class.base {
            // `read_ins` checked that the base is an earlier class.
            Some(base) => match index.get(base) {
                Some(&i) => (encodings[i].fields.clone(), enum_fields[i].clone()),
                None => {
                    return Err(SpecError::UnknownName {
                        file: file.to_string(),
                        line: class.line,
                        name: base.to_string(),
                    })
                }
            },
            None => (Vec::new(), Vec::new()),
        };
        for def in &class.fields {
            let field = BitField {
                name: def.name.to_string(),
                hi: def.hi,
                lo: def.lo,
                kind: def.ctor.to_string(),
                fixed: def.fixed,
                default: def.default.clone(),
            };
            match fields.iter().position(|f| f.name == field.name) {
                Some(pos) => fields[pos] = field,
                None => fields.push(field),
            }
            enums.retain(|e| e.name != def.name);
            if def.op_enum.is_some() {
                enums.push(def);
            }
        }
        // The opcode enum is that of the first enum field in field order.
        let first_enum = fields
            .iter()
            .find_map(|f| enums.iter().find(|e| e.name == f.name))
            .and_then(|e| e.op_enum);
        let mut opcodes = Vec::new();
        if let Some(op_enum) = first_enum {
            for def in enums.iter().filter(|e| e.op_enum == Some(op_enum)) {
                for &(line, member) in &def.members {
                    let &value =
                        values
                            .get(&(op_enum, member))
                            .ok_or_else(|| SpecError::UnknownName {
                                file: file.to_string(),
                                line,
                                name: format!("{op_enum}.{member}"),
                            })?;
                    opcodes.push(to_u32(value).ok_or_else(|| SpecError::Shape {
                        file: file.to_string(),
                        line,
                        message: format!("opcode {value} of `{op_enum}.{member}` is out of range"),
                    })?);
                }
            }
        }
        opcodes.sort_unstable();
        opcodes.dedup();
        index.insert(class.name, encodings.len());
        encodings.push(Encoding {
            name: class.name.to_string(),
            base: class.base.map(str::to_string),
            fields,
            op_enum: first_enum.map(str::to_string),
            opcodes,
        });
        enum_fields.push(enums);
    }
    Ok(encodings)
}

/// Reads the wheel at `path` (a zip archive) and builds the database of each of its
/// folders' arches, in [`Arch::WHEEL`] order. The arches are independent, so each is read
/// and built on its own scoped thread.
///
/// # Errors
/// [`SpecError::Io`] or [`SpecError::Zip`] when the file cannot be read as a zip,
/// [`SpecError::MissingMember`] when a generated module is absent, and any error of
/// [`SpecDb::from_sources`].
pub(super) fn parse_wheel(path: &Path) -> Result<Vec<SpecDb>, SpecError> {
    let open = || -> Result<zip::ZipArchive<BufReader<File>>, SpecError> {
        let file = File::open(path).map_err(|source| SpecError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        zip::ZipArchive::new(BufReader::new(file)).map_err(|source| SpecError::Zip {
            path: path.to_path_buf(),
            source,
        })
    };
    // Fail early, on this thread, when the file is not a readable zip.
    let first = open()?;
    // The three wheel folders are independent, so build them on separate threads, each
    // with its own handle on the file (a shared handle would share the seek position).
    let results: Vec<Result<SpecDb, SpecError>> = std::thread::scope(|scope| {
        let mut first = Some(first);
        let handles: Vec<_> = Arch::WHEEL
            .iter()
            .map(|&arch| {
                let reuse = first.take();
                let work = move || {
                    let mut archive = match reuse {
                        Some(archive) => archive,
                        None => open()?,
                    };
                    load_arch(&mut archive, path, arch)
                };
                std::thread::Builder::new()
                    .name(format!("spec-{arch}"))
                    .spawn_scoped(scope, work)
                    .map_err(|_| arch)
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| match handle {
                Ok(handle) => handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                // No thread could be started: do the work on this one instead.
                Err(arch) => open().and_then(|mut archive| load_arch(&mut archive, path, arch)),
            })
            .collect()
    });
    results.into_iter().collect()
}

/// Reads the database of one wheel folder's arch from the wheel at `path`.
///
/// # Errors
/// As [`parse_wheel`].
pub(super) fn parse_arch(path: &Path, arch: Arch) -> Result<SpecDb, SpecError> {
    let file = File::open(path).map_err(|source| SpecError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut archive =
        zip::ZipArchive::new(BufReader::new(file)).map_err(|source| SpecError::Zip {
            path: path.to_path_buf(),
            source,
        })?;
    load_arch(&mut archive, path, arch)
}

/// Reads one arch's four modules from the archive and builds its database.
fn load_arch<R: Read + Seek>(
    archive: &mut zip::ZipArchive<R>,
    path: &Path,
    arch: Arch,
) -> Result<SpecDb, SpecError> {
    let enum_py = read_member(archive, path, arch, "enum.py")?;
    let ins_py = read_member(archive, path, arch, "ins.py")?;
    let operands_py = read_member(archive, path, arch, "operands.py")?;
    let str_pcode_py = read_member(archive, path, arch, "str_pcode.py")?;
    SpecDb::from_sources(
        arch,
        &Sources {
            enum_py: &enum_py,
            ins_py: &ins_py,
            operands_py: &operands_py,
            str_pcode_py: &str_pcode_py,
        },
    )
}

/// Reads `<AUTOGEN_DIR>/<arch>/<name>` from the archive as UTF-8 text.
fn read_member<R: Read + Seek>(
    archive: &mut zip::ZipArchive<R>,
    path: &Path,
    arch: Arch,
    name: &str,
) -> Result<String, SpecError> {
    let member = format!("{AUTOGEN_DIR}/{}/{name}", arch.wheel().folder());
    let mut entry = match archive.by_name(&member) {
        Ok(entry) => entry,
        Err(zip::result::ZipError::FileNotFound) => {
            return Err(SpecError::MissingMember {
                path: path.to_path_buf(),
                member,
            })
        }
        Err(source) => {
            return Err(SpecError::Zip {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    // The size comes from the archive's header, so cap the up-front allocation.
    let capacity = usize::try_from(entry.size()).unwrap_or(0).min(1 << 24);
    let mut bytes = Vec::with_capacity(capacity);
    entry
        .read_to_end(&mut bytes)
        .map_err(|source| SpecError::Io {
            path: path.join(&member),
            source,
        })?;
    String::from_utf8(bytes).map_err(|err| {
        let valid = &err.as_bytes()[..err.utf8_error().valid_up_to()];
        SpecError::Shape {
            file: format!("{arch}/{name}"),
            line: 1 + valid.iter().filter(|&&b| b == b'\n').count(),
            message: "the file is not valid UTF-8".to_string(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Spec;
    use std::path::PathBuf;

    const ENUM_PY: &str = "\
from m import ReprEnum

class SOP1Op(ReprEnum):
  S_MOV_B32 = 0
  S_WQM_B64 = 29

class HWREG(ReprEnum):
  HW_REG_MODE = 1

class VOP2Op(ReprEnum):
  V_ADD_F32_E32 = 3
  V_ADD_CO_CI_U32_E32 = 32
  V_ADD_F32 = V_ADD_F32_E32
  V_ADD_CO_CI_U32 = V_ADD_CO_CI_U32_E32

class VOP3Op(ReprEnum):
  V_ADD_F32_E64 = 259
  V_ADD_F32 = V_ADD_F32_E64

class VOP3SDOp(ReprEnum):
  V_ADD_CO_CI_U32 = 288

class FLATOp(ReprEnum):
  GLOBAL_LOAD_ADDTID_B32 = 40

class GLOBALOp(ReprEnum):
  GLOBAL_LOAD_ADDTID_B32 = 40
";

    const INS_PY: &str = "\
import functools

class SOP1(Inst):
  encoding = FixedBitField(31, 23, 0b101111101)
  op = EnumBitField(15, 8, SOP1Op, {SOP1Op.S_WQM_B64, SOP1Op.S_MOV_B32})
  sdst = SGPRField(22, 16)
  ssrc0 = SSrcField(7, 0)

class SOP1_LIT(SOP1):
  literal = BitField(63, 32)
  sdst = SGPRField(22, 16, default=NULL)

class VOP2(Inst):
  op = EnumBitField(30, 25, VOP2Op, {VOP2Op.V_ADD_F32, VOP2Op.V_ADD_F32_E32})

s_mov_b32 = functools.partial(SOP1, SOP1Op.S_MOV_B32)
";

    const OPERANDS_PY: &str = "\
OPERANDS = {
  SOP1Op.S_MOV_B32: {\"sdst\": (Fmt.FMT_NUM_B32, 32, OpType.OPR_SREG), \"ssrc0\": (Fmt.FMT_NUM_B32, 32, OpType.OPR_SSRC)},
  VOP2Op.V_ADD_F32: {\"vdst\": (Fmt.FMT_NUM_F32, 32, OpType.OPR_VGPR), \"src0\": (Fmt.FMT_NUM_F32, 32, OpType.OPR_SRC)},
}
";

    const PCODE_PY: &str = "\
PCODE = {
  VOP3Op.V_ADD_F32_E64: 'D0.f32 = S0.f32 + S1.f32',
  SOP1Op.S_WQM_B64: \"for i in 6'0U : 6'63U do\\nendfor\",
}
";

    fn sources<'a>(operands_py: &'a str, str_pcode_py: &'a str) -> Sources<'a> {
        Sources {
            enum_py: ENUM_PY,
            ins_py: INS_PY,
            operands_py,
            str_pcode_py,
        }
    }

    fn synthetic() -> SpecDb {
        SpecDb::from_sources(Arch::Rdna3, &sources(OPERANDS_PY, PCODE_PY))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn summary(i: &Instruction) -> (&str, &str, u32) {
        (&i.name, &i.encoding, i.opcode)
    }

    #[test]
    fn only_op_enums_become_instructions() {
        let db = synthetic();
        let names: Vec<&str> = db.instructions().iter().map(|i| i.name.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "S_MOV_B32",
                "S_WQM_B64",
                "V_ADD_F32_E32",
                "V_ADD_CO_CI_U32_E32",
                "V_ADD_F32_E64",
                "V_ADD_CO_CI_U32",
                "GLOBAL_LOAD_ADDTID_B32",
                "GLOBAL_LOAD_ADDTID_B32",
            ]
        );
        assert!(db.get("HW_REG_MODE").is_none());
        assert_eq!(db.arch(), Arch::Rdna3);
    }

    #[test]
    fn lookup_prefers_canonical_then_encoding_order() {
        let db = synthetic();
        assert_eq!(
            db.get("v_add_f32").map(summary),
            Some(("V_ADD_F32_E32", "VOP2", 3))
        );
        assert_eq!(
            db.get("V_ADD_F32_E64").map(summary),
            Some(("V_ADD_F32_E64", "VOP3", 259))
        );
        let all: Vec<_> = db.get_all("V_ADD_F32").into_iter().map(summary).collect();
        assert_eq!(
            all,
            vec![("V_ADD_F32_E32", "VOP2", 3), ("V_ADD_F32_E64", "VOP3", 259)]
        );
        // A canonical name beats an alias even from a preferred encoding.
        assert_eq!(
            db.get("V_ADD_CO_CI_U32").map(summary),
            Some(("V_ADD_CO_CI_U32", "VOP3SD", 288))
        );
        assert_eq!(db.get_all("V_ADD_CO_CI_U32").len(), 2);
        // Encodings outside the preference list are ordered alphabetically.
        let flat_first: Vec<_> = db
            .get_all("GLOBAL_LOAD_ADDTID_B32")
            .into_iter()
            .map(|i| i.encoding.as_str())
            .collect();
        assert_eq!(flat_first, vec!["FLAT", "GLOBAL"]);
        assert!(db.get("V_NOPE").is_none());
        assert!(db.get_all("V_NOPE").is_empty());
    }

    #[test]
    fn operands_keyed_by_alias_and_pcode_in_file_order() {
        let db = synthetic();
        let add = db.get("V_ADD_F32_E32").unwrap_or_else(|| panic!("missing"));
        assert_eq!(add.aliases, vec!["V_ADD_F32".to_string()]);
        assert_eq!(
            add.operands[0],
            Operand {
                field: "vdst".to_string(),
                format: "FMT_NUM_F32".to_string(),
                bits: 32,
                kind: "OPR_VGPR".to_string(),
            }
        );
        assert_eq!(add.operands[1].field, "src0");
        assert_eq!(add.pcode, None);
        let with: Vec<&str> = db.with_pcode().map(|i| i.name.as_str()).collect();
        assert_eq!(with, vec!["V_ADD_F32_E64", "S_WQM_B64"]);
        assert_eq!(
            db.get("s_wqm_b64").and_then(|i| i.pcode.as_deref()),
            Some("for i in 6'0U : 6'63U do\nendfor")
        );
    }

    #[test]
    fn encodings_inherit_fields_and_resolve_opcode_sets() {
        let db = synthetic();
        let lit = db.encoding("sop1_lit").unwrap_or_else(|| panic!("missing"));
        let fields: Vec<(&str, u32, u32, &str)> = lit
            .fields
            .iter()
            .map(|f| (f.name.as_str(), f.hi, f.lo, f.kind.as_str()))
            .collect();
        assert_eq!(
            fields,
            vec![
                ("encoding", 31, 23, "FixedBitField"),
                ("op", 15, 8, "EnumBitField"),
                ("sdst", 22, 16, "SGPRField"),
                ("ssrc0", 7, 0, "SSrcField"),
                ("literal", 63, 32, "BitField"),
            ]
        );
        assert_eq!(lit.fields[0].fixed, Some(0b101111101));
        assert_eq!(lit.fields[2].default.as_deref(), Some("NULL"));
        assert_eq!(lit.base.as_deref(), Some("SOP1"));
        assert_eq!(lit.op_enum.as_deref(), Some("SOP1Op"));
        assert_eq!(lit.opcodes, vec![0, 29]);
        // An alias and its canonical member in one set give one opcode.
        let vop2 = db.encoding("VOP2").unwrap_or_else(|| panic!("missing"));
        assert_eq!(vop2.opcodes, vec![3]);
        assert!(db.encoding("VOP9").is_none());
    }

    #[test]
    fn unknown_pcode_key_is_an_error() {
        let pcode = "PCODE = {\n  SOP1Op.S_MOV_B32: 'x',\n  SOP1Op.S_NOPE: 'y',\n}\n";
        let err = SpecDb::from_sources(Arch::Rdna3, &sources(OPERANDS_PY, pcode)).unwrap_err();
        assert!(
            matches!(&err, SpecError::UnknownName { file, line: 3, name }
                if file == "rdna3/str_pcode.py" && name == "SOP1Op.S_NOPE"),
            "{err:?}"
        );
        // Non-opcode enums cannot carry pseudocode either.
        let pcode = "PCODE = {\n  HWREG.HW_REG_MODE: 'x',\n}\n";
        let err = SpecDb::from_sources(Arch::Rdna3, &sources(OPERANDS_PY, pcode)).unwrap_err();
        assert!(
            matches!(err, SpecError::UnknownName { line: 2, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn operands_twice_through_an_alias_is_an_error() {
        let operands = "OPERANDS = {\n  VOP2Op.V_ADD_F32: {},\n  VOP2Op.V_ADD_F32_E32: {},\n}\n";
        let err = SpecDb::from_sources(Arch::Cdna, &sources(operands, PCODE_PY)).unwrap_err();
        assert!(
            matches!(&err, SpecError::Duplicate { file, line: 3, first_line: 2, .. }
                if file == "cdna/operands.py"),
            "{err:?}"
        );
    }

    #[test]
    fn malformed_enum_file_names_file_and_line() {
        let bad = Sources {
            enum_py: "class SOP1Op(ReprEnum):\n  S_MOV_B32 = 0\n  S_BAD = 'x'\n",
            ..sources(OPERANDS_PY, PCODE_PY)
        };
        let err = SpecDb::from_sources(Arch::Rdna4, &bad).unwrap_err();
        assert!(
            matches!(&err, SpecError::Shape { file, line: 3, .. } if file == "rdna4/enum.py"),
            "{err:?}"
        );
    }

    /// Writes a zip at a fresh temp path with the given members, returning its path.
    fn write_zip(tag: &str, members: &[(String, &str)]) -> PathBuf {
        use std::io::Write;
        let path =
            std::env::temp_dir().join(format!("amdpcode-db-{}-{tag}.whl", std::process::id()));
        let file = File::create(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut zip = zip::ZipWriter::new(file);
        for (name, text) in members {
            zip.start_file(name.as_str(), zip::write::SimpleFileOptions::default())
                .unwrap_or_else(|e| panic!("{e}"));
            zip.write_all(text.as_bytes())
                .unwrap_or_else(|e| panic!("{e}"));
        }
        zip.finish().unwrap_or_else(|e| panic!("{e}"));
        path
    }

    fn synthetic_members(arches: &[Arch]) -> Vec<(String, &'static str)> {
        let mut members = Vec::new();
        for arch in arches {
            for (name, text) in [
                ("enum.py", ENUM_PY),
                ("ins.py", INS_PY),
                ("operands.py", OPERANDS_PY),
                ("str_pcode.py", PCODE_PY),
            ] {
                members.push((format!("{AUTOGEN_DIR}/{arch}/{name}"), text));
            }
        }
        members
    }

    #[test]
    fn load_reads_every_arch_from_a_zip() {
        let path = write_zip("full", &synthetic_members(&Arch::WHEEL));
        let spec = Spec::load(&path);
        let _ = std::fs::remove_file(&path);
        let spec = spec.unwrap_or_else(|e| panic!("{e}"));
        for arch in Arch::WHEEL {
            let db = spec.db(arch);
            assert_eq!(db.arch(), arch);
            assert_eq!(
                db.get("V_ADD_F32").map(summary),
                Some(("V_ADD_F32_E32", "VOP2", 3))
            );
        }
    }

    #[test]
    fn load_errors() {
        let path = write_zip("partial", &synthetic_members(&[Arch::Rdna3, Arch::Rdna4]));
        let err = Spec::load(&path).unwrap_err();
        let _ = std::fs::remove_file(&path);
        assert!(
            matches!(&err, SpecError::MissingMember { member, .. }
                if member == "tinygrad/runtime/autogen/amd/cdna/enum.py"),
            "{err:?}"
        );
        let missing = std::env::temp_dir().join("amdpcode-db-does-not-exist.whl");
        assert!(matches!(Spec::load(&missing), Err(SpecError::Io { .. })));
        let not_zip =
            std::env::temp_dir().join(format!("amdpcode-db-{}-notzip.whl", std::process::id()));
        std::fs::write(&not_zip, b"plain text").unwrap_or_else(|e| panic!("{e}"));
        let err = Spec::load(&not_zip).unwrap_err();
        let _ = std::fs::remove_file(&not_zip);
        assert!(matches!(err, SpecError::Zip { .. }), "{err:?}");
    }

    /// The pinned wheel as laid out in this repository's CI: `shared/` beside the checkout.
    fn shared_wheel() -> Option<PathBuf> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/spec")
            .join(super::super::WHEEL_FILE);
        if path.is_file() {
            Some(path)
        } else {
            eprintln!("skipping: {} does not exist", path.display());
            None
        }
    }

    #[test]
    fn real_wheel_facts() {
        let Some(path) = shared_wheel() else { return };
        let spec = Spec::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(spec.path(), path.as_path());
        let counts: Vec<(Arch, usize)> = spec
            .dbs()
            .into_iter()
            .map(|db| (db.arch(), db.with_pcode().count()))
            .collect();
        assert_eq!(
            counts,
            vec![
                (Arch::Rdna1, 1232),
                (Arch::Rdna2, 1245),
                (Arch::Rdna3, 1392),
                (Arch::Rdna4, 1441),
                (Arch::Cdna1, 1281),
                (Arch::Cdna2, 1306),
                (Arch::Cdna3, 1326),
                (Arch::Cdna, 1441),
                // CDNA 5's count includes the four instructions that take CDNA 4's text
                // (the `cdna:` operand donors of semantics/targets/gfx1250.tsv).
                (Arch::Cdna5, 1377)
            ]
        );

        let rdna3 = spec.db(Arch::Rdna3);
        let wqm = rdna3.get("S_WQM_B64").unwrap_or_else(|| panic!("missing"));
        assert_eq!((wqm.encoding.as_str(), wqm.opcode), ("SOP1", 29));
        assert!(wqm
            .pcode
            .as_deref()
            .is_some_and(|p| p.contains("for i in 6'0U : 6'63U do")));
        assert_eq!(
            rdna3.get("S_AND_NOT1_WREXEC_B64").map(|i| i.opcode),
            Some(55)
        );
        let add = rdna3.get("V_ADD_F32").unwrap_or_else(|| panic!("missing"));
        assert_eq!(summary(add), ("V_ADD_F32_E32", "VOP2", 3));
        assert!(add
            .operands
            .iter()
            .any(|o| o.field == "vdst" && o.bits == 32));
        assert_eq!(
            rdna3.get("V_ADD_F32_E64").map(summary),
            Some(("V_ADD_F32_E64", "VOP3", 259))
        );
        let op = rdna3
            .encoding("SOP1")
            .and_then(|e| e.fields.iter().find(|f| f.name == "op"))
            .unwrap_or_else(|| panic!("missing"));
        assert_eq!((op.hi, op.lo, op.kind.as_str()), (15, 8, "EnumBitField"));
        // `S_TRAP` is one of the few entries with `\'` escapes.
        let trap = rdna3.get("S_TRAP").and_then(|i| i.pcode.as_deref());
        assert!(trap.is_some_and(|p| p.contains("{ 7'0, HT[0], TrapID[7 : 0], PC[47 : 0] }")));

        let cdna = spec.db(Arch::Cdna);
        assert_eq!(cdna.get("S_WQM_B64").map(|i| i.opcode), Some(7));
        assert_eq!(cdna.get("S_ANDN2_WREXEC_B64").map(|i| i.opcode), Some(54));
        assert_eq!(spec.db(Arch::Rdna4).arch(), Arch::Rdna4);
    }

    /// Timing, not correctness; run with
    /// `cargo test --release --lib spec::db::tests::load_time -- --ignored --nocapture`.
    #[test]
    #[ignore = "prints load timings; run on demand in release mode"]
    fn load_time() {
        let Some(path) = shared_wheel() else { return };
        let mut times = Vec::new();
        for _ in 0..10 {
            let start = std::time::Instant::now();
            let spec = Spec::load(&path).unwrap_or_else(|e| panic!("{e}"));
            times.push(start.elapsed());
            assert_eq!(spec.dbs().len(), 3);
        }
        times.sort();
        eprintln!(
            "Spec::load (3 arches): worst {:?}, best {:?}, median {:?}",
            times.last(),
            times[0],
            times[times.len() / 2]
        );
    }
}
