//! Databases of the arches the wheel has no folder for, derived from the database of the
//! folder they take their text and encoding layouts from ([`Arch::wheel`]).
//!
//! CDNA 1-3 (gfx908, gfx90a, gfx942) come from the `cdna` folder (CDNA 4, gfx950) and a
//! per-target table, `semantics/targets/<target>.tsv`, generated from LLVM's disassembler
//! by `tools/isa_tables.py`: which gfx950 instructions the target has and at which opcode,
//! and the target's instructions gfx950 lacks. Those keep no pseudocode (not executable),
//! and so do the FP8/BF8 instructions of CDNA 3, whose formats are the FNUZ ones while
//! AMD's CDNA 4 text describes the OCP ones.
//!
//! RDNA 1 and 2 (gfx1010, gfx1030) come from the `rdna3` folder and the GFX10 target data
//! of [`super::targets`] (docs/gfx10.md).
//!
//! CDNA 5 (gfx1250, GFX12.5) comes like CDNA 1-3 from the `rdna4` folder (gfx1200) and
//! its target table: the GFX12 instructions gfx1250 keeps (none moved opcode), and
//! gfx1250's own (its WMMA shapes, 64-bit VALU operations, tensor and async loads, cluster
//! barriers, ...) with no pseudocode, so not executable (docs/cdna5.md).
//!
//! Any other arch reports [`SpecError::NoDatabase`] until its derivation exists.

use super::db::{Instruction, SpecDb};
use super::{targets, Arch, Family, SpecError};

/// The table of a target, and its path for error messages.
fn target_table(arch: Arch) -> Option<(&'static str, &'static str)> {
    Some(match arch {
        Arch::Cdna1 => (
            "semantics/targets/gfx908.tsv",
            include_str!("../../semantics/targets/gfx908.tsv"),
        ),
        Arch::Cdna2 => (
            "semantics/targets/gfx90a.tsv",
            include_str!("../../semantics/targets/gfx90a.tsv"),
        ),
        Arch::Cdna3 => (
            "semantics/targets/gfx942.tsv",
            include_str!("../../semantics/targets/gfx942.tsv"),
        ),
        Arch::Cdna5 => (
            "semantics/targets/gfx1250.tsv",
            include_str!("../../semantics/targets/gfx1250.tsv"),
        ),
        _ => return None,
    })
}

/// The wheel folder whose instruction of the same name lends `name` its operands and text
/// on `arch` (a `cdna:NAME` cell of the target table), if any.
pub fn lent_text(arch: Arch, name: &str) -> Option<Arch> {
    use std::collections::HashSet;
    use std::sync::OnceLock;
    static LENT: OnceLock<HashSet<(Arch, String)>> = OnceLock::new();
    let lent = LENT.get_or_init(|| {
        let mut set = HashSet::new();
        for arch in Arch::ALL {
            let Some((file, text)) = target_table(arch) else {
                continue;
            };
            for r in parse_table(file, text).unwrap_or_default() {
                if r.operands_of.is_some_and(|d| d.starts_with("cdna:")) {
                    set.insert((arch, r.name.to_string()));
                }
            }
        }
        set
    });
    lent.contains(&(arch, name.to_string()))
        .then_some(Arch::Cdna)
}

/// One row of a target table.
struct Row<'a> {
    encoding: &'a str,
    name: &'a str,
    /// The opcode in the base database (`None`: only the target has it).
    base: Option<u32>,
    /// The opcode on the target (`None`: the target lacks it).
    target: Option<u32>,
    /// LLVM's mnemonic, followed by ` renamed` when the target renamed the base instruction.
    mnemonic: &'a str,
    /// For a target-only instruction, the base instruction whose operands it takes, with
    /// `~alike/probes` when LLVM printed the two alike on only some probe words.
    operands_of: Option<&'a str>,
}

fn parse_table<'a>(file: &str, text: &'a str) -> Result<Vec<Row<'a>>, SpecError> {
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
        if cells.len() < 4 {
            return Err(shape(format!(
                "expected 5 tab-separated columns, found {}",
                cells.len()
            )));
        }
        let opcode = |c: &str| -> Result<Option<u32>, SpecError> {
            if c == "-" {
                return Ok(None);
            }
            c.parse()
                .map(Some)
                .map_err(|_| shape(format!("`{c}` is not an opcode or `-`")))
        };
        rows.push(Row {
            encoding: cells[0],
            name: cells[1],
            base: opcode(cells[2])?,
            target: opcode(cells[3])?,
            mnemonic: cells.get(4).copied().unwrap_or(""),
            operands_of: cells.get(5).copied().filter(|c| *c != "-"),
        });
    }
    Ok(rows)
}

/// The database of `arch`, derived from `base`, the database of `arch.wheel()`.
///
/// # Errors
/// [`SpecError::NoDatabase`] for an arch with no derivation yet; [`SpecError::Shape`] for
/// a malformed target table.
pub(super) fn derive<'s>(
    base: &SpecDb,
    arch: Arch,
    cdna: impl FnOnce() -> Option<&'s SpecDb>,
) -> Result<SpecDb, SpecError> {
    debug_assert_eq!(base.arch(), arch.wheel().arch());
    // RDNA 1 and 2: the GFX10 target data of `spec::targets` (CDNA 4's database lends the
    // GFX10 operand tables RDNA 3 lacks).
    if arch.family() == Family::Gfx10 {
        let target = arch.profile().targets[0];
        if let Some(data) = targets::target_data(target) {
            let donor = cdna();
            return targets::derive(arch, base, donor, &data);
        }
        return Err(SpecError::NoDatabase { arch });
    }
    let Some((file, text)) = target_table(arch) else {
        return Err(SpecError::NoDatabase { arch });
    };
    let rows = parse_table(file, text)?;
    let mut keep: std::collections::HashMap<(&str, u32), u32> = Default::default();
    let mut renamed: std::collections::HashMap<(&str, u32), &str> = Default::default();
    let mut extra = Vec::new();
    for r in &rows {
        match (r.base, r.target) {
            (Some(b), Some(t)) => {
                keep.insert((r.encoding, b), t);
                if let Some(new) = r.mnemonic.strip_suffix(" renamed") {
                    renamed.insert((r.encoding, b), new);
                }
            }
            (None, Some(_)) => extra.push(r),
            (_, None) => {}
        }
    }
    let mut instructions = Vec::new();
    let mut old_to_new = vec![None; base.instructions().len()];
    for (idx, i) in base.instructions().iter().enumerate() {
        let Some(&opcode) = keep.get(&(i.encoding.as_str(), i.opcode)) else {
            continue;
        };
        let mut i = i.clone();
        // A renamed instruction takes the target's name; the base's stays as an alias.
        if let Some(new) = renamed.get(&(i.encoding.as_str(), i.opcode)) {
            let old = std::mem::replace(&mut i.name, new.to_ascii_uppercase());
            i.aliases.insert(0, old);
        }
        i.opcode = opcode;
        if !arch.shares_text(&i.name) {
            i.pcode = None;
        }
        old_to_new[idx] = Some(instructions.len() as u32);
        instructions.push(i);
    }
    let extra_count = extra.len();
    let mut cdna = Some(cdna);
    let mut folder: Option<&SpecDb> = None;
    for r in extra {
        // `cdna:NAME`: CDNA 4's instruction of that name lends its operands and its text.
        if let Some(donor) = r.operands_of.and_then(|d| d.strip_prefix("cdna:")) {
            if folder.is_none() {
                folder = cdna.take().and_then(|f| f());
            }
            let Some(folder) = folder else {
                return Err(SpecError::NoDatabase { arch: Arch::Cdna });
            };
            instructions.push(folder_donor(folder, file, r, donor)?);
            continue;
        }
        let operands = match (r.operands_of, widened_donor(arch, r.name)) {
            (Some(donor), _) => donor_operands(base, file, r, donor)?,
            (None, Some(donor)) => widened_operands(base, file, r, donor)?,
            (None, None) => Vec::new(),
        };
        // As in the wheel, a vector ALU form named `_E32`/`_E64` has its bare name as an
        // alias (which is how the printer finds a 32-bit form's VOP3 twin).
        let aliases = r
            .name
            .strip_suffix("_E32")
            .or_else(|| r.name.strip_suffix("_E64"))
            .map(|stem| vec![stem.to_string()])
            .unwrap_or_default();
        instructions.push(Instruction {
            name: r.name.to_string(),
            encoding: r.encoding.to_string(),
            opcode: r.target.unwrap_or(0),
            aliases,
            operands,
            pcode: None,
        });
    }
    let first_extra = instructions.len() - extra_count;
    let pcode_order = base
        .pcode_order()
        .iter()
        .filter_map(|&old| old_to_new.get(old as usize).copied().flatten())
        // The target's own instructions with a lent text come after the base's.
        .chain((first_extra..instructions.len()).map(|i| i as u32))
        .filter(|&new| instructions[new as usize].pcode.is_some())
        .collect();
    // The opcode sets stay the base's (no opcode moved between gfx950 and CDNA 1-3),
    // joined by the target's own instructions.
    let mut encodings = base.encodings().to_vec();
    for e in &mut encodings {
        for i in &instructions[first_extra..] {
            if e.name == i.encoding && !e.opcodes.contains(&i.opcode) {
                e.opcodes.push(i.opcode);
            }
        }
        e.opcodes.sort_unstable();
        gfx9_memory_fields(arch, e);
        if let Some(bit) = scale_offset_bit(arch, &e.name) {
            e.fields.push(super::db::BitField {
                name: "scale_offset".to_string(),
                hi: bit,
                lo: bit,
                kind: "BitField".to_string(),
                fixed: None,
                default: None,
            });
        }
    }
    Ok(SpecDb::from_parts(
        arch,
        instructions,
        encodings,
        pcode_order,
    ))
}

/// The memory encodings' fields where CDNA 1 and 2 differ from gfx950 (each checked with
/// llvm-mc-22 for the target):
/// - neither has SCRATCH's `sve` bit (gfx940 added it): the address VGPR is used exactly
///   when `saddr` is `off` (`scratch_load_dword v1, v2, off`; `off, off` is refused), so
///   the bit leaves FLAT, GLOBAL and SCRATCH;
/// - gfx908 has no AGPR data operands: the `acc` bit of DS, FLAT, GLOBAL, SCRATCH and MTBUF
///   must be clear (llvm-mc-22 marks the register invalid or the word undecodable), and at
///   bit 55 of MUBUF it has `tfe` (disassembled as `tfe`, with one more data register).
fn gfx9_memory_fields(arch: Arch, e: &mut super::db::Encoding) {
    if !matches!(arch, Arch::Cdna1 | Arch::Cdna2) {
        return;
    }
    if matches!(e.name.as_str(), "FLAT" | "GLOBAL" | "SCRATCH") {
        e.fields.retain(|f| f.name != "sve");
    }
    if arch != Arch::Cdna1 {
        return;
    }
    for f in &mut e.fields {
        if f.name != "acc" {
            continue;
        }
        if e.name == "MUBUF" {
            f.name = "tfe".to_string();
        } else if matches!(
            e.name.as_str(),
            "DS" | "FLAT" | "GLOBAL" | "SCRATCH" | "MTBUF"
        ) {
            f.kind = "FixedBitField".to_string();
            f.fixed = Some(0);
        }
    }
}

/// The bit of gfx1250's `scale_offset` in an encoding that has it (RDNA 4 leaves the bit
/// unused): the register offset of a scalar or flat-family access is scaled by the access
/// size. Read off llvm-mc-22 -mcpu=gfx1250 -show-encoding (`global_load_b32 v1, v2, s[0:1]
/// scale_offset` sets bit 48, `s_load_b32 s1, s[2:3], s4 offset:0x0 scale_offset` bit 56);
/// llvm-mc refuses it on buffer and LDS accesses.
fn scale_offset_bit(arch: Arch, encoding: &str) -> Option<u32> {
    if arch != Arch::Cdna5 {
        return None;
    }
    match encoding {
        "VFLAT" | "VGLOBAL" | "VSCRATCH" => Some(48),
        "SMEM" => Some(56),
        _ => None,
    }
}

/// gfx1250's `v_fmamk_f64`/`v_fmaak_f64` have no RDNA 4 instruction of their shape (the
/// table's probe finds none): they take the operands of `v_fmamk_f32`/`v_fmaak_f32` at 64
/// bits, `K` included (llvm-mc-22 -mcpu=gfx1250: `v_fmamk_f64 v[2:3], v[4:5],
/// 0x4000000000000001, v[6:7]` is the VOP2 word of `src0`, `vsrc1`, `vdst` followed by a
/// 64-bit `K`).
fn widened_donor(arch: Arch, name: &str) -> Option<&'static str> {
    match (arch, name) {
        (Arch::Cdna5, "V_FMAMK_F64") => Some("V_FMAMK_F32_E32"),
        (Arch::Cdna5, "V_FMAAK_F64") => Some("V_FMAAK_F32_E32"),
        _ => None,
    }
}

/// Target-only instruction `r` as `folder`'s instruction `donor` of the same encoding: its
/// operands and its text (the semantics of a generation without text of its own come from
/// the nearest generation's), under the target's name and opcode.
fn folder_donor(
    folder: &SpecDb,
    file: &str,
    r: &Row<'_>,
    donor: &str,
) -> Result<Instruction, SpecError> {
    let d = find_donor(folder, file, r, r.encoding, donor, "the cdna folder")?;
    Ok(Instruction {
        name: r.name.to_string(),
        encoding: r.encoding.to_string(),
        opcode: r.target.unwrap_or(0),
        aliases: Vec::new(),
        operands: d.operands.clone(),
        pcode: d.pcode.clone(),
    })
}

/// The `encoding` instruction `name` of `db`, which lends its operands (or text) to `r`.
fn find_donor<'d>(
    db: &'d SpecDb,
    file: &str,
    r: &Row<'_>,
    encoding: &str,
    name: &str,
    source: &str,
) -> Result<&'d Instruction, SpecError> {
    db.instructions()
        .iter()
        .find(|i| i.encoding == encoding && i.name == name)
        .ok_or_else(|| SpecError::Shape {
            file: file.to_string(),
            line: 0,
            message: format!(
                "{} {}: operand donor `{encoding}:{name}` is not an instruction of {source}",
                r.encoding, r.name
            ),
        })
}

/// The operands of `donor` (a 32-bit float instruction) at 64 bits, for `r`.
fn widened_operands(
    base: &SpecDb,
    file: &str,
    r: &Row<'_>,
    donor: &str,
) -> Result<Vec<super::db::Operand>, SpecError> {
    let mut ops = donor_operands(base, file, r, donor)?;
    for o in &mut ops {
        o.bits = 64;
        o.format = o.format.replace("F32", "F64");
    }
    Ok(ops)
}

/// The operands of target-only instruction `r`, taken from base instruction `donor` (its
/// `operands_of` cell; `NAME~k/n` when LLVM printed the two alike on only k of n probe
/// words: the registers' widths agree, maybe not the value formats). An instruction whose
/// name says it is integer-only (`V_ADD_NC_U64`) takes integer formats of the same widths.
fn donor_operands(
    base: &SpecDb,
    file: &str,
    r: &Row<'_>,
    donor: &str,
) -> Result<Vec<super::db::Operand>, SpecError> {
    let name = donor.split_once('~').map_or(donor, |(name, _)| name);
    // `ENCODING:NAME`: a donor of another encoding (gfx1250's VOP3 `V_MAD_NC_U64_U32` is
    // RDNA 4's VOP3SD `V_MAD_CO_U64_U32` without its carry-out).
    let (encoding, name) = name.split_once(':').unwrap_or((r.encoding, name));
    let d = find_donor(base, file, r, encoding, name, "the base")?;
    let mut ops = d.operands.clone();
    if encoding != r.encoding {
        let fields = base.encoding(r.encoding).map(|e| &e.fields);
        ops.retain(|o| fields.is_some_and(|f| f.iter().any(|b| b.name == o.field)));
    }
    // An integer-only instruction (`V_MUL_U64_E32`, whose donor is `V_ADD_F64_E32`) takes
    // integer formats: a 32-bit literal for a 64-bit integer source is zero-extended, not
    // put in the high half as for an f64 source.
    if integer_only(r.name) {
        for o in &mut ops {
            if o.format.contains("_F") || o.format.contains("BF16") {
                o.format = format!("FMT_NUM_B{}", o.bits);
            }
        }
    }
    Ok(ops)
}

/// Whether every type token of an instruction name (`U64`, `I32`, `B16`, ...) is an
/// integer type: `V_MAD_NC_U64_U32` yes, `V_CVT_SR_PK_F16_F32` no.
fn integer_only(name: &str) -> bool {
    let types: Vec<&str> = name
        .split('_')
        .filter(|t| {
            t.len() >= 2
                && t[1..].chars().all(|c| c.is_ascii_digit())
                && matches!(t.as_bytes()[0], b'U' | b'I' | b'B' | b'F')
        })
        .collect();
    !types.is_empty() && types.iter().all(|t| !t.starts_with('F'))
}
