//! Encoding tables, built from one arch's [`SpecDb`] and nothing else.
//!
//! Every `ins.py` class becomes a [`Format`] (bit fields, fixed bits, accepted opcodes);
//! every `enum.py` opcode becomes an [`InstInfo`] (mnemonic, format family, operand sizes from
//! `operands.py`). The only hand-written data is `semantics/ALIASES.md`: mnemonic aliases that
//! LLVM accepts and a few printing choices, each checked against `llvm-mc`.

use std::collections::HashSet;

use crate::spec::{Arch, FastMap, SpecDb, Wheel};

/// The alias and spelling table, read at build time.
const ALIASES_MD: &str = include_str!("../../semantics/ALIASES.md");

/// One bit field of a format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The `ins.py` field name, e.g. `sdst`, `ssrc0`, `simm16`.
    pub name: String,
    /// The lowest bit.
    pub lo: u32,
    /// The width in bits.
    pub width: u32,
    /// The `ins.py` constructor, e.g. `SSrcField`, `BitField`.
    pub kind: String,
    /// The fixed value of a `FixedBitField`.
    pub fixed: Option<u64>,
}

impl Field {
    /// Extracts this field from an instruction's bits.
    pub fn get(&self, bits: u128) -> u64 {
        ((bits >> self.lo) & mask(self.width)) as u64
    }

    /// Stores `value` (truncated to the field width) into `bits`.
    pub fn set(&self, bits: &mut u128, value: u64) {
        let m = mask(self.width) << self.lo;
        *bits = (*bits & !m) | ((u128::from(value) << self.lo) & m);
    }
}

fn mask(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// One encoding (an `ins.py` class).
#[derive(Clone, Debug)]
pub struct Format {
    /// The class name, e.g. `SOP1`, `SOP1_LIT`, `VOP3_DPP16`.
    pub name: String,
    /// The base class name (`SOP1` for `SOP1_LIT`), or the name itself for a base class.
    pub family: String,
    /// Every field, fixed ones included.
    pub fields: Vec<Field>,
    /// The opcodes the op field accepts (empty: any).
    pub opcodes: HashSet<u32>,
    /// The encoded size in bytes, literal included for `_LIT` classes.
    pub size: usize,
    /// The number of fixed bits inside the first dword, used to order decoding attempts.
    pub fixed_bits: u32,
    /// For a base format: the opcodes accepted by it or any of its variants.
    pub family_opcodes: HashSet<u32>,
}

impl Format {
    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Whether the fixed fields that lie in the first `avail_bits` of `bits` match.
    pub fn matches(&self, bits: u128, avail_bits: u32) -> bool {
        self.fields.iter().all(|f| match f.fixed {
            Some(v) if f.lo + f.width <= avail_bits => f.get(bits) == v,
            _ => true,
        })
    }
}

/// One operand of an instruction, from `operands.py`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperandSpec {
    /// The encoding field, e.g. `ssrc0`.
    pub field: String,
    /// The size in bits.
    pub bits: u32,
    /// The operand type without the `OPR_` prefix, e.g. `SSRC`, `SDST`, `LABEL`.
    pub kind: String,
    /// The data format without the `FMT_` prefix, e.g. `NUM_F32`.
    pub format: String,
}

/// One instruction: an opcode of one format family.
#[derive(Clone, Debug)]
pub struct InstInfo {
    /// The spec's canonical name, e.g. `S_WQM_B64`.
    pub name: String,
    /// The mnemonic the disassembler prints, e.g. `s_wqm_b64`.
    pub mnemonic: String,
    /// The format family (`enum.py` class minus `Op`), e.g. `SOP1`.
    pub family: String,
    /// The opcode.
    pub opcode: u32,
    /// The operands, keyed by field.
    pub operands: Vec<OperandSpec>,
}

impl InstInfo {
    /// The operand stored in `field`, if this instruction has one.
    pub fn operand(&self, field: &str) -> Option<&OperandSpec> {
        self.operands.iter().find(|o| o.field == field)
    }
}

/// All tables of one arch.
#[derive(Clone, Debug)]
pub struct Tables {
    /// The arch.
    pub arch: Arch,
    /// Every format, in `ins.py` order.
    pub formats: Vec<Format>,
    /// Indices of base formats, the most specific (most fixed bits) first.
    pub decode_order: Vec<usize>,
    /// Every instruction.
    pub insts: Vec<InstInfo>,
    /// Lower-case mnemonic (canonical, spec alias or `ALIASES.md` alias) → instructions.
    pub by_mnemonic: FastMap<String, Vec<usize>>,
    /// (family, opcode) → instruction.
    pub by_opcode: FastMap<(String, u32), usize>,
    /// Mnemonics whose 16-bit immediate prints in hex even when small.
    pub hex_imm: HashSet<String>,
    /// Vector mnemonics (without suffix) that LLVM prints without `_e32`/`_e64`.
    pub no_suffix: HashSet<String>,
    /// `HWREG` names by id, when the arch's `enum.py` was supplied.
    pub hwreg: Vec<(String, u32)>,
    /// `HWREG` names as LLVM prints them, by id (`semantics/ALIASES.md`); ids not listed
    /// print as numbers.
    pub hwreg_print: Vec<(String, u32)>,
    /// `MSG` names by id, when the arch's `enum.py` was supplied.
    pub msg: Vec<(String, u32)>,
}

/// `text` without any number of leading `prefix`es (as `trim_start_matches`, without
/// building a substring searcher per call).
fn strip_all<'a>(mut text: &'a str, prefix: &str) -> &'a str {
    while let Some(rest) = text.strip_prefix(prefix) {
        text = rest;
    }
    text
}

/// The canonical mnemonic of an alias from `semantics/ALIASES.md` (`s_add_u32` →
/// `s_add_co_u32` on rdna4), for instruction-name lookups outside the assembler.
pub fn mnemonic_alias(arch: Arch, name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    alias_rows("Mnemonic aliases", arch)
        .into_iter()
        .find_map(|row| match row.as_slice() {
            [alias, canonical, ..] if *alias == lower => Some(canonical.clone()),
            _ => None,
        })
}

/// The rows of the markdown table under `## {section}` whose arch cell applies to `arch`.
pub(crate) fn alias_rows(section: &str, arch: Arch) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut inside = false;
    for line in ALIASES_MD.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            inside = title.trim() == section;
            continue;
        }
        if !inside || !line.starts_with('|') {
            continue;
        }
        let cells: Vec<String> = line
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect();
        let applies = match cells.first().map(String::as_str) {
            Some("all") => true,
            Some("rdna") => matches!(arch.wheel(), Wheel::Rdna3 | Wheel::Rdna4),
            Some(a) => a == arch.wheel().folder() || (a == arch.name() && !arch.is_wheel()),
            None => false,
        };
        if applies {
            rows.push(cells[1..].to_vec());
        }
    }
    rows
}

/// Reads `class NAME(...)` members `KEY = 123` from an `enum.py` text.
pub fn read_enum_class(enum_py: &str, class: &str) -> Vec<(String, u32)> {
    let header = format!("class {class}(");
    let mut out = Vec::new();
    let mut inside = false;
    for line in enum_py.lines() {
        if line.starts_with("class ") {
            inside = line.starts_with(&header);
            continue;
        }
        if !inside {
            continue;
        }
        if let Some((k, v)) = line.trim().split_once(" = ") {
            if let Ok(v) = v.trim().parse::<u32>() {
                out.push((k.trim().to_string(), v));
            }
        }
    }
    out
}

impl Tables {
    /// Builds the tables of `db`'s arch; `enum_py` (the arch's `enum.py` text) adds the
    /// `HWREG` and `MSG` names used for symbolic operands.
    pub fn build(db: &SpecDb, enum_py: Option<&str>) -> Tables {
        let arch = db.arch();
        let mut formats = Vec::new();
        for enc in db.encodings() {
            let fields: Vec<Field> = enc
                .fields
                .iter()
                .map(|f| Field {
                    name: f.name.clone(),
                    lo: f.lo,
                    width: f.hi + 1 - f.lo,
                    kind: f.kind.clone(),
                    fixed: f.fixed,
                })
                .collect();
            let top = fields.iter().map(|f| f.lo + f.width).max().unwrap_or(32);
            let size = top.div_ceil(32) as usize * 4;
            let fixed_bits = fields
                .iter()
                .filter(|f| f.fixed.is_some() && f.lo + f.width <= 32)
                .map(|f| f.width)
                .sum();
            // Follow `base` links to the root class.
            let mut family = enc.name.clone();
            let mut base = enc.base.clone();
            while let Some(b) = base {
                family = b.clone();
                base = db.encoding(&b).and_then(|e| e.base.clone());
            }
            formats.push(Format {
                name: enc.name.clone(),
                family,
                fields,
                opcodes: enc.opcodes.iter().copied().collect(),
                size,
                fixed_bits,
                family_opcodes: HashSet::new(),
            });
        }
        for i in 0..formats.len() {
            let family = formats[i].family.clone();
            let ops: Vec<u32> = formats[i].opcodes.iter().copied().collect();
            if let Some(base) = formats.iter_mut().find(|f| f.name == family) {
                base.family_opcodes.extend(ops);
            }
        }
        let mut decode_order: Vec<usize> = (0..formats.len())
            .filter(|&i| formats[i].name == formats[i].family)
            .collect();
        decode_order.sort_by_key(|&i| std::cmp::Reverse(formats[i].fixed_bits));

        let format_index: FastMap<&str, usize> = formats
            .iter()
            .enumerate()
            .rev()
            .map(|(i, f)| (f.name.as_str(), i))
            .collect();
        let n = db.instructions().len();
        let mut insts = Vec::with_capacity(n);
        let mut by_mnemonic: FastMap<String, Vec<usize>> = FastMap::default();
        by_mnemonic.reserve(2 * n);
        let mut by_opcode = FastMap::default();
        by_opcode.reserve(n);
        for ins in db.instructions() {
            let idx = insts.len();
            // RDNA 4's `operands.py` calls the VOP3 `src0` field `vsrc0`; use the format's
            // name so the decoder and the literal check find it.
            let base = format_index
                .get(ins.encoding.as_str())
                .map(|&i| &formats[i]);
            let rename = base.is_some_and(|f| {
                f.fields.iter().any(|x| x.name == "src0")
                    && !f.fields.iter().any(|x| x.name == "vsrc0")
            });
            let operands = ins
                .operands
                .iter()
                .map(|o| OperandSpec {
                    field: if rename && o.field == "vsrc0" {
                        "src0".to_string()
                    } else {
                        o.field.clone()
                    },
                    bits: o.bits,
                    kind: strip_all(&o.kind, "OPR_").to_string(),
                    format: strip_all(&o.format, "FMT_").to_string(),
                })
                .collect();
            let mut operands: Vec<OperandSpec> = operands;
            if operands.is_empty() && ins.name == "V_MFMA_LD_SCALE_B32" {
                // `operands.py` lists none; the word carries two 32-bit sources (the scales
                // of the next MFMA), as llvm-mc prints them.
                for field in ["src0", "src1"] {
                    operands.push(OperandSpec {
                        field: field.into(),
                        bits: 32,
                        kind: "SRC".into(),
                        format: "NUM_B32".into(),
                    });
                }
            }
            let mnemonic = ins.name.to_ascii_lowercase();
            by_opcode.insert((ins.encoding.clone(), ins.opcode), idx);
            by_mnemonic.entry(mnemonic.clone()).or_default().push(idx);
            insts.push(InstInfo {
                name: ins.name.clone(),
                mnemonic,
                family: ins.encoding.clone(),
                opcode: ins.opcode,
                operands,
            });
            for alias in &ins.aliases {
                by_mnemonic
                    .entry(alias.to_ascii_lowercase())
                    .or_default()
                    .push(idx);
            }
        }
        // The vector ALU forms are also reachable as `<name>_e32` / `<name>_e64` whatever the
        // spec calls them (`V_ADD_CO_CI_U32` in VOP3SD is `v_add_co_ci_u32_e64`).
        for (idx, ins) in insts.iter().enumerate() {
            let suffix = match ins.family.as_str() {
                "VOP1" | "VOP2" | "VOPC" => "_e32",
                "VOP3" | "VOP3SD" => "_e64",
                _ => continue,
            };
            let lower = ins.mnemonic.as_str();
            let stem = lower
                .strip_suffix("_e32")
                .or_else(|| lower.strip_suffix("_e64"))
                .unwrap_or(lower);
            let list = by_mnemonic.entry(format!("{stem}{suffix}")).or_default();
            if !list.contains(&idx) {
                list.push(idx);
            }
        }
        // Instructions LLVM spells differently from the spec: print and accept LLVM's name
        // (the spec's name stays accepted).
        for row in alias_rows("Renamed mnemonics", arch) {
            if let [spec_name, llvm_name, ..] = row.as_slice() {
                // Every instruction whose mnemonic is `spec_name` is listed under it.
                let mut named = by_mnemonic.get(spec_name).cloned().unwrap_or_default();
                named.sort_unstable();
                named.dedup();
                for idx in named {
                    let ins = &mut insts[idx];
                    if ins.mnemonic == *spec_name {
                        ins.mnemonic = llvm_name.clone();
                        let list = by_mnemonic.entry(llvm_name.clone()).or_default();
                        if !list.contains(&idx) {
                            list.push(idx);
                        }
                    }
                }
            }
        }
        for row in alias_rows("Mnemonic aliases", arch) {
            if let [alias, canonical, ..] = row.as_slice() {
                if let Some(list) = by_mnemonic.get(canonical).cloned() {
                    by_mnemonic.entry(alias.clone()).or_default().extend(list);
                }
            }
        }
        let no_suffix = alias_rows("Vector instructions printed without a suffix", arch)
            .into_iter()
            .filter_map(|r| r.into_iter().next())
            .collect();
        let hex_imm = alias_rows("Immediates printed in hex even when zero", arch)
            .into_iter()
            .filter_map(|r| r.into_iter().next())
            .collect();
        let hwreg_print: Vec<(String, u32)> = alias_rows("Hardware register names", arch)
            .into_iter()
            .filter_map(|r| match r.as_slice() {
                [name, id, ..] => Some((name.clone(), id.parse().ok()?)),
                _ => None,
            })
            .collect();
        let (mut hwreg, mut msg) = match enum_py {
            Some(text) => (read_enum_class(text, "HWREG"), read_enum_class(text, "MSG")),
            None => (Vec::new(), Vec::new()),
        };
        // gfx940 added hardware registers 20-24 (XCC_ID, SQ_PERF_SNAPSHOT_*): llvm-mc-22
        // prints them as numbers for gfx908 and gfx90a and refuses their names.
        if matches!(arch, Arch::Cdna1 | Arch::Cdna2) {
            hwreg.retain(|(_, id)| *id < 20);
        }
        for row in alias_rows("Message names", arch) {
            if let [name, id, ..] = row.as_slice() {
                if let Ok(id) = id.parse::<u32>() {
                    msg.push((name.clone(), id));
                }
            }
        }
        Tables {
            arch,
            formats,
            decode_order,
            insts,
            by_mnemonic,
            by_opcode,
            hex_imm,
            no_suffix,
            hwreg,
            hwreg_print,
            msg,
        }
    }

    /// The format named `name`.
    pub fn format(&self, name: &str) -> Option<&Format> {
        self.formats.iter().find(|f| f.name == name)
    }

    /// The variant of `family` whose name is `family` + `suffix` and that accepts `opcode`.
    pub fn variant(&self, family: &str, suffix: &str, opcode: u32) -> Option<&Format> {
        let name = format!("{family}{suffix}");
        self.formats
            .iter()
            .find(|f| f.name == name && (f.opcodes.is_empty() || f.opcodes.contains(&opcode)))
    }
}

/// Whether `family` is one of the vector ALU families (VOP1, VOP2, VOPC, VOP3, VOP3SD, VOP3P).
pub(crate) fn is_vop(family: &str) -> bool {
    matches!(
        family,
        "VOP1" | "VOP2" | "VOPC" | "VOP3" | "VOP3SD" | "VOP3P"
    )
}

/// Whether `family` is DS.
pub(crate) fn is_ds(family: &str) -> bool {
    family == "DS"
}

/// Whether `family` is one of the flat-address families.
pub(crate) fn is_flat(family: &str) -> bool {
    matches!(
        family,
        "FLAT" | "GLOBAL" | "SCRATCH" | "VFLAT" | "VGLOBAL" | "VSCRATCH"
    )
}

/// Whether `family` is one of the buffer families.
pub(crate) fn is_buf(family: &str) -> bool {
    matches!(family, "MUBUF" | "MTBUF" | "VBUFFER")
}
