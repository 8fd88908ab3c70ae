//! Databases of targets the wheel has no folder for, derived from a wheel database (the
//! `base`), an encoding layout file and a per-target opcode table, all checked-in data:
//!
//! - `semantics/layouts/<family>.py`: the family's encodings in the dialect of the wheel's
//!   `ins.py` (read by the same reader), without opcode sets;
//! - `semantics/targets/<target>.tsv`: every opcode of every encoding that llvm-mc-22 decodes
//!   on the target, with LLVM's mnemonic, the mnemonic llvm-mc-22 gives the same instruction
//!   on the base's target (`-` when it has none) and the variant encodings (`LIT`, `DPP16`,
//!   `DPP8`, `SDWA`) the opcode decodes in. `tools/opcode_sweep.py` writes it.
//!
//! Each row becomes an instruction named as LLVM names it on the target, at the target's
//! opcode, with the base instruction's operands and pseudocode when the base has the
//! instruction (found by the base mnemonic, then by LLVM's, through names and aliases); its
//! aliases are the base instruction's names. A row whose instruction the base lacks keeps its
//! opcode and LLVM name and has no pseudocode (`spec fidelity` reports it as not executable);
//! its operand table comes from the `donor` database when that has an instruction of the
//! same name (CDNA for GFX10-only instructions that GFX9 also has), else it is empty.

use super::db::{build_encodings, Encoding, Instruction, Operand, SpecDb};
use super::pyread;
use super::{Arch, FastMap, SpecError};

/// The variant suffixes whose opcode sets the opcode table's last column gives.
const FLAGS: [&str; 4] = ["LIT", "DPP16", "DPP8", "SDWA"];

/// The checked-in data of one derived target.
#[derive(Clone, Copy, Debug)]
pub struct TargetData<'a> {
    /// The layout file's name, for errors (`semantics/layouts/gfx10.py`).
    pub layout_file: &'a str,
    /// Its text.
    pub layout: &'a str,
    /// The opcode table's name, for errors (`semantics/targets/gfx1030.tsv`).
    pub table_file: &'a str,
    /// Its text.
    pub table: &'a str,
}

/// The GFX10 layouts.
pub const GFX10_LAYOUT: &str = include_str!("../../semantics/layouts/gfx10.py");
/// The gfx1030 (RDNA 2) opcode table.
pub const GFX1030_TABLE: &str = include_str!("../../semantics/targets/gfx1030.tsv");
/// The gfx1010 (RDNA 1) opcode table.
pub const GFX1010_TABLE: &str = include_str!("../../semantics/targets/gfx1010.tsv");

/// The checked-in data of the target `name` (`gfx1030`, `gfx1010`), if there is any.
pub fn target_data(name: &str) -> Option<TargetData<'static>> {
    let (table_file, table) = match name {
        "gfx1030" => ("semantics/targets/gfx1030.tsv", GFX1030_TABLE),
        "gfx1010" => ("semantics/targets/gfx1010.tsv", GFX1010_TABLE),
        _ => return None,
    };
    Some(TargetData {
        layout_file: "semantics/layouts/gfx10.py",
        layout: GFX10_LAYOUT,
        table_file,
        table,
    })
}

/// One row of an opcode table.
struct Row<'a> {
    line: usize,
    encoding: &'a str,
    opcode: u32,
    llvm: &'a str,
    base_name: Option<&'a str>,
    flags: Vec<&'a str>,
}

fn read_table<'a>(file: &str, text: &'a str) -> Result<Vec<Row<'a>>, SpecError> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let shape = |message: String| SpecError::Shape {
            file: file.to_string(),
            line: i + 1,
            message,
        };
        let cells: Vec<&str> = line.split('\t').collect();
        let [encoding, opcode, llvm, base, flags] = cells[..] else {
            return Err(shape(format!(
                "expected 5 tab-separated columns, found {}",
                cells.len()
            )));
        };
        let opcode = opcode
            .parse::<u32>()
            .map_err(|_| shape(format!("opcode `{opcode}` is not a number")))?;
        rows.push(Row {
            line: i + 1,
            encoding,
            opcode,
            llvm,
            base_name: (base != "-").then_some(base),
            flags: if flags == "-" {
                Vec::new()
            } else {
                flags.split(',').collect()
            },
        });
    }
    Ok(rows)
}

/// The instruction of `base` called `name` (by name or alias) in `encoding`, or in
/// `VOP3SD` when `encoding` is `VOP3` (the two share an opcode space).
fn find<'a>(base: &'a SpecDb, name: &str, encoding: &str) -> Option<&'a Instruction> {
    let all = base.get_all(name);
    all.iter()
        .find(|i| i.encoding == encoding)
        .or_else(|| {
            all.iter()
                .find(|i| encoding == "VOP3" && i.encoding == "VOP3SD")
        })
        .copied()
}

/// The donor's name for an instruction whose operands (not semantics) it lends under
/// another name: GFX10's 64-bit float atomics are GFX9's `*_min_f64`/`*_max_f64` (LLVM
/// renamed them for gfx90a), and its `*_fcmpswap_x2` has the operand shapes of
/// `*_cmpswap_x2` (a 64-bit address, 128-bit data, 64-bit return). gfx1010's unfused
/// `v_mac_f32`/`v_mad_f32`, which CDNA 4 dropped, have the f32 operands of the fused
/// `v_fmac_f32`/`v_fma_f32` (their text is an erratum, semantics/errata/rdna1/).
fn donor_name(llvm: &str) -> Option<String> {
    match llvm {
        "v_mac_f32" => return Some("v_fmac_f32".to_string()),
        "v_mad_f32" => return Some("v_fma_f32".to_string()),
        _ => {}
    }
    [
        ("_fmin_x2", "_min_f64"),
        ("_fmax_x2", "_max_f64"),
        ("_fcmpswap_x2", "_cmpswap_x2"),
        // gfx1010's unfused v_madmk_f32/v_madak_f32 (CDNA 4 dropped them) have the operands
        // of the fused v_fmamk_f32/v_fmaak_f32: f32 src0 and vsrc1, the literal K (their text
        // is an erratum, semantics/errata/rdna1/).
        ("_madmk_f32", "_fmamk_f32"),
        ("_madak_f32", "_fmaak_f32"),
    ]
    .iter()
    .find_map(|(from, to)| llvm.strip_suffix(from).map(|stem| format!("{stem}{to}")))
}

/// The operands of a GFX9/gfx1010 `ds_*_src2_*` instruction, which neither RDNA 3 nor
/// CDNA 4 has: only the address (LLVM's `DS_1A` form, `ds_add_src2_u32 v1 offset:16`: the
/// data come from LDS at the address plus the offset), taken from the same operation without
/// `src2` (`ds_add_u32`'s `addr`).
fn src2_operands(base: &SpecDb, llvm: &str, encoding: &str) -> Option<Vec<Operand>> {
    let plain = llvm.replacen("_src2_", "_", 1);
    if plain == llvm {
        return None;
    }
    let addr: Vec<Operand> = find(base, &plain, encoding)?
        .operands
        .iter()
        .filter(|o| o.field == "addr")
        .cloned()
        .collect();
    (!addr.is_empty()).then_some(addr)
}

/// `name` with the `_E32`/`_E64` suffix of `like`, if `like` has one.
fn with_suffix(name: &str, like: &str) -> String {
    let upper = name.to_ascii_uppercase();
    for suffix in ["_E32", "_E64"] {
        if like.ends_with(suffix) && !upper.ends_with(suffix) {
            return format!("{upper}{suffix}");
        }
    }
    upper
}

/// Where one derived instruction's semantics come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Derivation {
    /// The derived instruction's name.
    pub name: String,
    /// The base instruction whose operands and text it takes, or `None` when the base has
    /// no instruction for it (llvm-mc-22 gives it no mnemonic on the base's target and no
    /// base instruction has its name): then it has no text.
    pub base: Option<String>,
    /// Whether the base names it differently (LLVM renamed it between the generations).
    pub renamed: bool,
}

/// Derives the database of `arch` (a target of `data`) from `base`; `donor` lends operand
/// tables to instructions `base` lacks.
///
/// # Errors
/// [`SpecError::Shape`] for a malformed layout or table line, [`SpecError::UnknownName`] for
/// a table row whose encoding the layout does not define.
pub fn derive(
    arch: Arch,
    base: &SpecDb,
    donor: Option<&SpecDb>,
    data: &TargetData<'_>,
) -> Result<SpecDb, SpecError> {
    derive_report(arch, base, donor, data).map(|(db, _)| db)
}

/// [`derive`], with the derivation of every instruction in database order.
///
/// # Errors
/// As [`derive`].
pub fn derive_report(
    arch: Arch,
    base: &SpecDb,
    donor: Option<&SpecDb>,
    data: &TargetData<'_>,
) -> Result<(SpecDb, Vec<Derivation>), SpecError> {
    let classes = pyread::read_ins(data.layout_file, data.layout)?;
    let mut encodings: Vec<Encoding> =
        build_encodings(data.layout_file, &classes, &FastMap::default())?;
    let rows = read_table(data.table_file, data.table)?;

    let mut instructions: Vec<Instruction> = Vec::with_capacity(rows.len());
    // Per instruction: the row's flags and the base instruction's name.
    let mut flags: Vec<&[&str]> = Vec::with_capacity(rows.len());
    let mut base_names: Vec<Option<String>> = Vec::with_capacity(rows.len());
    for row in &rows {
        if !encodings.iter().any(|e| e.name == row.encoding) {
            return Err(SpecError::UnknownName {
                file: data.table_file.to_string(),
                line: row.line,
                name: row.encoding.to_string(),
            });
        }
        let found = row
            .base_name
            .and_then(|n| find(base, n, row.encoding))
            .or_else(|| find(base, row.llvm, row.encoding));
        let inst = match found {
            Some(b) => {
                let name = with_suffix(row.llvm, &b.name);
                let mut aliases = Vec::new();
                for a in std::iter::once(&b.name).chain(&b.aliases) {
                    if !a.eq_ignore_ascii_case(&name) && !aliases.contains(a) {
                        aliases.push(a.clone());
                    }
                }
                let stem = row.llvm.to_ascii_uppercase();
                if stem != name && !aliases.contains(&stem) {
                    aliases.push(stem);
                }
                Instruction {
                    name,
                    encoding: b.encoding.clone(),
                    opcode: row.opcode,
                    aliases,
                    operands: b.operands.clone(),
                    pcode: b.pcode.clone(),
                }
            }
            None => {
                let operands = donor
                    .and_then(|d| {
                        find(d, row.llvm, row.encoding).or_else(|| {
                            let renamed = donor_name(row.llvm)?;
                            find(d, &renamed, row.encoding)
                        })
                    })
                    .map(|d| d.operands.clone())
                    .or_else(|| src2_operands(base, row.llvm, row.encoding))
                    .unwrap_or_default();
                Instruction {
                    name: row.llvm.to_ascii_uppercase(),
                    encoding: row.encoding.to_string(),
                    opcode: row.opcode,
                    aliases: Vec::new(),
                    operands,
                    pcode: None,
                }
            }
        };
        base_names.push(found.map(|b| b.name.clone()));
        flags.push(&row.flags);
        instructions.push(inst);
    }

    // Opcode sets. A base encoding takes its instructions' opcodes. A variant named by a
    // flag (`VOP1_SDWA`, `VOP3_SDST_LIT`) takes the rows with that flag; any other variant
    // (`VOP1_SDST`) the opcodes of the instructions in the base database's variant of the
    // same name. Either is limited to the variant's parent's set.
    let names: Vec<String> = encodings.iter().map(|e| e.name.clone()).collect();
    for (ei, enc_name) in names.iter().enumerate() {
        let parent = encodings[ei].base.clone();
        let family = {
            let mut f = enc_name.clone();
            let mut b = parent.clone();
            while let Some(p) = b {
                b = encodings
                    .iter()
                    .find(|e| e.name == p)
                    .and_then(|e| e.base.clone());
                f = p;
            }
            f
        };
        let in_family = |i: &Instruction| i.encoding == family;
        let mut ops: Vec<u32> = match &parent {
            None => instructions
                .iter()
                .filter(|i| in_family(i))
                .map(|i| i.opcode)
                .collect(),
            Some(p) => {
                let suffix = enc_name.rsplit('_').next().unwrap_or("");
                let flag = if enc_name.ends_with("_SDWA_SDST") {
                    Some("SDWA")
                } else {
                    FLAGS.iter().copied().find(|f| *f == suffix)
                };
                let mut ops: Vec<u32> = match flag {
                    Some(flag) => instructions
                        .iter()
                        .zip(&flags)
                        .filter(|(i, f)| in_family(i) && f.contains(&flag))
                        .map(|(i, _)| i.opcode)
                        .collect(),
                    None => {
                        let wanted: Vec<&str> = base
                            .encoding(enc_name)
                            .map(|e| {
                                base.instructions()
                                    .iter()
                                    .filter(|i| {
                                        i.encoding == family && e.opcodes.contains(&i.opcode)
                                    })
                                    .map(|i| i.name.as_str())
                                    .collect()
                            })
                            .unwrap_or_default();
                        instructions
                            .iter()
                            .zip(&base_names)
                            .filter(|(i, b)| {
                                in_family(i) && b.as_deref().is_some_and(|b| wanted.contains(&b))
                            })
                            .map(|(i, _)| i.opcode)
                            .collect()
                    }
                };
                if let Some(pe) = encodings.iter().find(|e| &e.name == p) {
                    if pe.base.is_some() {
                        ops.retain(|o| pe.opcodes.contains(o));
                    }
                }
                ops
            }
        };
        ops.sort_unstable();
        ops.dedup();
        encodings[ei].opcodes = ops;
    }

    let report = instructions
        .iter()
        .zip(&base_names)
        .map(|(i, b)| Derivation {
            name: i.name.clone(),
            base: b.clone(),
            renamed: b.as_deref().is_some_and(|b| {
                let stem = |n: &str| {
                    let u = n.to_ascii_uppercase();
                    u.trim_end_matches("_E32")
                        .trim_end_matches("_E64")
                        .to_string()
                };
                stem(b) != stem(&i.name)
            }),
        })
        .collect();
    let pcode_order = instructions
        .iter()
        .enumerate()
        .filter(|(_, i)| i.pcode.is_some())
        .map(|(n, _)| n as u32)
        .collect();
    Ok((
        SpecDb::from_parts(arch, instructions, encodings, pcode_order),
        report,
    ))
}
