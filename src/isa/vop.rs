//! The vector ALU formats (VOP1, VOP2, VOPC, VOP3, VOP3SD, VOP3P): operand layout, printer
//! and encoder.
//!
//! Everything per instruction comes from the spec tables: the operands and their sizes and
//! data formats (`operands.py`), the `_e32`/`_e64` pairs (an instruction exists in both a
//! VOP1/VOP2/VOPC family and a VOP3/VOP3SD family under the same name), the implicit `vcc`
//! operands of the 32-bit forms (read off the VOP3/VOP3SD twin: a carry-out `sdst`, a lane
//! mask `src2`). What is LLVM's choice and not the spec's is written here once:
//!
//! - `_e32`/`_e64` is printed only when the instruction has both forms (and operands);
//! - the wave size of lane masks is 32 on RDNA (`vcc_lo`, `s4`) and 64 on CDNA (`vcc`, `s[4:5]`),
//!   the `llvm-mc` defaults;
//! - on RDNA 3, 16-bit VGPR operands are printed as halves (`v1.l`, `v1.h`: LLVM's "true16");
//! - `v_cmpx_*` writes EXEC, which RDNA does not print and CDNA prints as `vcc`/an SGPR pair;
//! - modifiers print as `clamp`, `mul:2`/`mul:4`/`div:2`, `op_sel:[..]`, and for VOP3P
//!   `op_sel:[..] op_sel_hi:[..] neg_lo:[..] neg_hi:[..] clamp`; `neg`/`abs` are printed on
//!   float sources only, as `-v1` and `|v1|`.

use super::dpp;
use super::enc::{encode_src, encode_sreg, source_available, Enc};
use super::inst::{AsmError, Inst};
use super::layout::src_index;
use super::operands::{self, LITERAL};
use super::spelling::{src, src_typed, sreg};
use super::syntax::{Arg, Expr, Modifier, Statement};
use super::tables::{is_vop, InstInfo, OperandSpec, Tables};
use crate::spec::{Arch, Family, Wheel};

/// Whether `family` is a 32-bit (`_e32`) form.
fn is_e32(family: &str) -> bool {
    matches!(family, "VOP1" | "VOP2" | "VOPC")
}

/// How one positional operand is spelled.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// An 8-bit VGPR field (`vdst`, `vsrc1` of the 32-bit forms, `vdst` of VOP3).
    Vgpr,
    /// A scalar register in a vector destination field (`v_readlane_b32 s4`, VOP3 `sdst`).
    Sreg,
    /// A 9-bit source field: register, inline constant or literal.
    Src,
    /// A fixed register the 32-bit form implies (`vcc_lo`, `vcc`).
    Implicit(&'static str),
    /// The extra literal `K` of `v_fmamk_*`/`v_fmaak_*`.
    LitK,
}

/// One positional operand.
#[derive(Clone, Debug)]
struct Opnd {
    field: &'static str,
    kind: Kind,
    bits: u32,
    float: bool,
    /// The source index (0..=2) for modifiers, or 3 for the destination.
    idx: usize,
    /// Whether only a VGPR is accepted (`operands.py` kind `VGPR` in a 32-bit form).
    vgpr_only: bool,
}

/// The textual layout of one vector instruction.
struct Layout {
    ops: Vec<Opnd>,
    /// The number of sources (the length of `op_sel_hi`/`neg_*` lists).
    n_src: usize,
    /// The number of source slots of a VOP3 `op_sel` list.
    opsel_srcs: usize,
    /// Whether a VOP3 form takes `op_sel`.
    has_opsel: bool,
    /// Whether an operand is packed (no `neg`/`abs` in the DPP/SDWA dword).
    packed: bool,
    /// `v_mfma_ld_scale_b32`: `op_sel`/`op_sel_hi` only, no `neg_*` or `clamp`.
    scale: bool,
    /// A VOP3P instruction without `neg_lo`/`neg_hi`: gfx1250's integer
    /// `v_pk_{add_min,add_max,min3,max3}_{i16,u16}` (llvm-mc-22 refuses both lists on them).
    no_neg: bool,
    /// Whether the `.l`/`.h` halves are printed for 16-bit VGPRs.
    t16: bool,
    /// Whether float modifiers (`neg`, `abs`, `omod`) apply.
    float_mods: bool,
    /// Whether the destination is a VGPR with an `op_sel` bit (VOP3 lists `n_src + 1` bits).
    dst_in_opsel: bool,
    /// Whether the `op_sel` list has a (zero) slot for a scalar destination: RDNA VOP3
    /// compares with 16-bit sources (`v_cmp_lt_i16_e64 s42, v1.h, v2.l op_sel:[1,0,0]`).
    sdst_slot: bool,
    /// A VOP3P instruction on unpacked sources (`v_fma_mix*`): `neg` and `neg_hi` are the
    /// `-` and `|..|` source modifiers, as in VOP3.
    mix: bool,
}

fn wave_bits(arch: Arch) -> u32 {
    if arch.is_gfx9() {
        64
    } else {
        32
    }
}

fn vcc_name(arch: Arch) -> &'static str {
    if arch.is_gfx9() {
        "vcc"
    } else {
        "vcc_lo"
    }
}

/// The operand's size in bits, lane masks sized to the wave.
fn op_bits(arch: Arch, op: &OperandSpec) -> u32 {
    if op.format.contains("M64") || (op.kind == "SDST" && op.bits == 64 && op.format == "NUM_B64") {
        wave_bits(arch)
    } else {
        op.bits
    }
}

fn is_float(op: &OperandSpec) -> bool {
    operands::value_kind(&op.format) == operands::ValueKind::Float
}

/// The name without an `_E32`/`_E64` suffix.
fn stem(name: &str) -> &str {
    name.strip_suffix("_E32")
        .or_else(|| name.strip_suffix("_E64"))
        .unwrap_or(name)
}

/// The VOP3/VOP3SD twin of a 32-bit form, or the 32-bit twin of a VOP3 form.
fn twin<'t>(tables: &'t Tables, info: &InstInfo) -> Option<&'t InstInfo> {
    let want_e32 = !is_e32(&info.family);
    let key = stem(&info.name).to_ascii_lowercase();
    let list = tables.by_mnemonic.get(&key)?;
    list.iter()
        .map(|&i| &tables.insts[i])
        .find(|t| is_e32(&t.family) == want_e32 && stem(&t.name) == stem(&info.name))
}

/// The mnemonic LLVM prints.
pub(crate) fn mnemonic(tables: &Tables, info: &InstInfo) -> String {
    let upper = info.mnemonic.to_ascii_uppercase();
    let base = stem(&upper).to_ascii_lowercase();
    if info.family == "VOP3P" || info.operands.is_empty() || tables.no_suffix.contains(&base) {
        return base;
    }
    match twin(tables, info) {
        Some(_) if is_e32(&info.family) => format!("{base}_e32"),
        Some(_) => format!("{base}_e64"),
        None => base,
    }
}

fn is_cmpx(info: &InstInfo) -> bool {
    info.name.starts_with("V_CMPX")
}

/// `v_bitop3_b16`/`v_bitop3_b32` (CDNA 4, gfx1250): their 8-bit truth table `bitop3:` sits in
/// the VOP3 `omod` (bits 7:6), `abs` (5:3) and `neg` (2:0) fields.
fn is_bitop3(info: &InstInfo) -> bool {
    matches!(stem(&info.name), "V_BITOP3_B16" | "V_BITOP3_B32")
}

fn layout(tables: &Tables, info: &InstInfo) -> Layout {
    let arch = tables.arch;
    let fam = info.family.as_str();
    let mut ops = Vec::new();
    // GFX10 has no register halves (16-bit operands are whole VGPRs); RDNA 4 prints none.
    let t16 = arch.family() == Family::Gfx11;
    let mut srcs: Vec<(usize, &OperandSpec)> = info
        .operands
        .iter()
        .filter_map(|o| Some((src_index(&o.field)?, o)))
        .collect();
    srcs.sort_by_key(|s| s.0);
    let vdst = info.operand("vdst");
    let twin_info = if is_e32(fam) {
        twin(tables, info)
    } else {
        None
    };
    // Destination.
    match fam {
        "VOPC" => {
            if arch.is_gfx9() || !is_cmpx(info) {
                ops.push(Opnd {
                    field: "",
                    kind: Kind::Implicit(vcc_name(arch)),
                    bits: wave_bits(arch),
                    float: false,
                    idx: 3,
                    vgpr_only: false,
                });
            }
        }
        _ => {
            if let Some(d) = vdst {
                let scalar = matches!(
                    d.kind.as_str(),
                    "SREG" | "SDST" | "SREG_NOVCC" | "SSRC" | "EXEC"
                );
                if !(scalar && is_cmpx(info) && !arch.is_gfx9()) {
                    ops.push(Opnd {
                        field: "vdst",
                        kind: if scalar { Kind::Sreg } else { Kind::Vgpr },
                        bits: op_bits(arch, d),
                        float: is_float(d),
                        idx: 3,
                        vgpr_only: false,
                    });
                }
            }
        }
    }
    if let Some(s) = info.operand("sdst") {
        ops.push(Opnd {
            field: "sdst",
            kind: Kind::Sreg,
            bits: op_bits(arch, s),
            float: false,
            idx: 3,
            vgpr_only: false,
        });
    }
    if fam == "VOP2" && twin_info.is_some_and(|t| t.operand("sdst").is_some()) {
        ops.push(Opnd {
            field: "",
            kind: Kind::Implicit(vcc_name(arch)),
            bits: wave_bits(arch),
            float: false,
            idx: 3,
            vgpr_only: false,
        });
    }
    // Sources.
    let fmamk = info.name.contains("FMAMK") || info.name.contains("MADMK");
    let ldexp = info.name.starts_with("V_LDEXP");
    let fmaak = info.name.contains("FMAAK") || info.name.contains("MADAK");
    for &(i, o) in &srcs {
        let (field, kind) = match (is_e32(fam), i) {
            (true, 1) => ("vsrc1", Kind::Vgpr),
            (_, 0) => ("src0", Kind::Src),
            (_, 1) => ("src1", Kind::Src),
            _ => ("src2", Kind::Src),
        };
        let k_bits = k_bits(info, vdst);
        if fmamk && i == 1 {
            ops.push(Opnd {
                field: "literal",
                kind: Kind::LitK,
                bits: k_bits,
                float: false,
                idx: 0,
                vgpr_only: false,
            });
        }
        // A lane-mask source (carry-in, `v_cndmask` select) is a scalar register.
        let bits = op_bits(arch, o);
        ops.push(Opnd {
            field,
            kind,
            bits,
            // `v_ldexp_*` scales by an integer exponent, as LLVM types it.
            // `v_fma_mix*`/`v_mad_mix*` sources are floats (f32 or f16 by `op_sel_hi`) whatever
            // their listed format: they take `-v`/`|v|` (in `neg`/`neg_hi`).
            // `v_cndmask_*` selects bits, yet LLVM (and the hardware) apply `-`/`|.|` to its
            // two data sources in the VOP3 form.
            float: (is_float(o)
                || fam == "VOP3P" && info.name.contains("_MIX") && i < 3
                || stem(&info.name).starts_with("V_CNDMASK_B") && i < 2)
                && !o.format.contains("M64")
                && !(i == 1 && ldexp),
            idx: i,
            vgpr_only: is_e32(fam) && o.kind == "VGPR",
        });
    }
    if fmaak {
        ops.push(Opnd {
            field: "literal",
            kind: Kind::LitK,
            bits: k_bits(info, vdst),
            float: false,
            idx: 0,
            vgpr_only: false,
        });
    }
    if fam == "VOP2" {
        if let Some(t) = twin_info {
            if t.operand("src2").is_some_and(|o| o.format.contains("M64")) {
                ops.push(Opnd {
                    field: "",
                    kind: Kind::Implicit(vcc_name(arch)),
                    bits: wave_bits(arch),
                    float: false,
                    idx: 2,
                    vgpr_only: false,
                });
            }
        }
    }
    let has16 = info.operands.iter().any(|o| o.bits == 16);
    // `v_fma_mix*` (and CDNA's `v_mad_mix*`) read unpacked sources.
    let mix = fam == "VOP3P" && info.name.contains("_MIX");
    let dst_in_opsel = ops.iter().any(|o| o.idx == 3 && o.kind == Kind::Vgpr);
    let sdst_slot =
        !arch.is_gfx9() && fam == "VOP3" && ops.iter().any(|o| o.idx == 3 && o.kind == Kind::Sreg);
    let float_mods = srcs.iter().any(|(_, o)| is_float(o));
    // `v_fmac_*_e64` reads its destination as `src2`, which has an `op_sel` slot.
    // gfx950's `v_cvt_scalef32_pk_fp4_*` write part of their destination, which LLVM
    // lists as a third source slot.
    let scalef32 = arch.is_gfx9() && info.name.starts_with("V_CVT_SCALEF32");
    let tied = info.name.starts_with("V_FMAC") || info.name.starts_with("V_CVT_SCALEF32_PK_FP4");
    let opsel_srcs = if tied && srcs.len() == 2 {
        3
    } else {
        srcs.len()
    };
    // Which VOP3 forms have `op_sel`: those with 16-bit operands, and on gfx950 the
    // `v_cvt_scalef32_*` conversions.
    let has_opsel = has16 || scalef32;
    Layout {
        has_opsel,
        opsel_srcs,
        scale: info.name == "V_MFMA_LD_SCALE_B32",
        no_neg: fam == "VOP3P"
            && ["V_PK_ADD_MIN_", "V_PK_ADD_MAX_", "V_PK_MIN3_", "V_PK_MAX3_"]
                .iter()
                .any(|p| info.name.starts_with(p)),
        packed: info.operands.iter().any(|o| o.format.contains("PK")),
        n_src: srcs.len(),
        ops,
        t16: t16 && !mix,
        dst_in_opsel,
        sdst_slot,
        mix,
        float_mods,
    }
}

fn vgpr_text(index: u32, regs: u32, half: Option<bool>) -> String {
    match (regs, half) {
        (1, Some(false)) => format!("v{index}.l"),
        (1, Some(true)) => format!("v{index}.h"),
        (1, None) => format!("v{index}"),
        _ => format!("v[{}:{}]", index, index + regs - 1),
    }
}

fn list_text(bits: u32, n: usize) -> String {
    let items: Vec<String> = (0..n).map(|i| ((bits >> i) & 1).to_string()).collect();
    format!("[{}]", items.join(","))
}

/// Prints a vector ALU instruction, or `None` if `info` is not one.
pub(crate) fn print(tables: &Tables, info: &InstInfo, inst: &Inst) -> Option<String> {
    // A scaled MFMA (`VOP3PX2`) is a VOP3P word pair, printed as one instruction.
    if !is_vop(&info.family) && info.family != "VOP3PX2" {
        return None;
    }
    let arch = tables.arch;
    let lay = layout(tables, info);
    let f = |n: &str| inst.field(n).unwrap_or(0);
    let vop3 = matches!(info.family.as_str(), "VOP3" | "VOP3SD");
    let vop3p = info.family == "VOP3P";
    let opsel = if vop3 || vop3p { f("opsel") } else { 0 };
    let wide = vop3 || vop3p;
    let ext = dpp::ext_of_format(&inst.format);
    // The e32 DPP16 and SDWA forms keep `neg`/`abs` in the extension dword.
    let short_mods = matches!(ext, Some(dpp::Ext::Dpp16 | dpp::Ext::Sdwa)) && !wide && !lay.packed;
    let (neg, abs) = if vop3 {
        (f("neg"), f("abs"))
    } else if lay.mix {
        (f("neg"), f("neg_hi"))
    } else if short_mods {
        (
            f("src0_neg") | f("src1_neg") << 1,
            f("src0_abs") | f("src1_abs") << 1,
        )
    } else {
        (0, 0)
    };
    let sext = f("src0_sext") | f("src1_sext") << 1;
    let mut parts = Vec::new();
    for op in &lay.ops {
        let raw = if op.field.is_empty() {
            0
        } else if op.field == "literal" {
            inst.literal.unwrap_or(0)
        } else if op.field == "src0" && ext.is_some() {
            // The real `src0` is `vsrc0` of the extension: a VGPR, or for SDWA with `s0`
            // a scalar source code.
            if ext == Some(dpp::Ext::Sdwa) && f("s0") != 0 {
                f("vsrc0")
            } else {
                f("vsrc0") + 256
            }
        } else {
            f(op.field)
        };
        let sdwa_scalar1 = ext == Some(dpp::Ext::Sdwa) && op.field == "vsrc1" && f("s1") != 0;
        let regs = op.bits.div_ceil(32).max(1);
        let half16 = lay.t16 && op.bits == 16;
        let mut text = match &op.kind {
            Kind::Implicit(_) if ext == Some(dpp::Ext::Sdwa) && op.idx == 3 && f("sd") != 0 => {
                sreg(tables, f("sdst") as u32, regs)
            }
            Kind::Implicit(name) => (*name).to_string(),
            Kind::Vgpr if sdwa_scalar1 => src(tables, raw as u32, op.bits, None),
            Kind::LitK if op.bits == 16 => format!("0x{:x}", raw & 0xffff),
            Kind::LitK if op.bits == 64 => operands::literal64_text(raw, true, true),
            Kind::LitK => format!("0x{raw:x}"),
            Kind::Sreg => sreg(tables, raw as u32, regs),
            Kind::Vgpr => {
                if half16 && !wide {
                    vgpr_text(raw as u32 & 0x7f, 1, Some(raw & 0x80 != 0))
                } else if half16 {
                    vgpr_text(raw as u32, 1, Some(opsel >> 3 & 1 != 0))
                } else {
                    vgpr_text(raw as u32, regs, None)
                }
            }
            Kind::Src => {
                let code = raw as u32;
                if code >= 256 && half16 {
                    let r = code - 256;
                    if wide {
                        vgpr_text(r, 1, Some(opsel >> op.idx & 1 != 0))
                    } else {
                        vgpr_text(r & 0x7f, 1, Some(r & 0x80 != 0))
                    }
                } else {
                    // (A literal that is also an inline value prints as `lit(...)` there.)
                    src_typed(tables, code, op.bits, op.float, inst.literal)
                }
            }
        };
        let modded = matches!(op.kind, Kind::Src) || (short_mods && op.field == "vsrc1");
        // `sext` applies to registers only (llvm-mc rejects `sext(4)`).
        let constant = (op.field == "src0" || sdwa_scalar1) && (128..256).contains(&raw);
        if ext == Some(dpp::Ext::Sdwa)
            && short_mods
            && !constant
            && op.idx < 2
            && !op.float
            && modded
            && sext >> op.idx & 1 != 0
        {
            text = format!("sext({text})");
        }
        if (vop3 || lay.mix || short_mods) && op.idx < 3 && op.float && modded {
            let has_abs = abs >> op.idx & 1 != 0;
            if has_abs {
                text = format!("|{text}|");
            }
            if neg >> op.idx & 1 != 0 {
                // A negated constant is written `neg(47)` (`-47` is another constant), as
                // LLVM does for every immediate without `abs`; `neg(-1.0)` likewise.
                let constant_code =
                    (128..=208).contains(&raw) || (240..=248).contains(&raw) || raw == 255;
                let immediate = constant_code && (matches!(op.kind, Kind::Src) || sdwa_scalar1);
                text = if text.starts_with('-') || (immediate && !has_abs) {
                    format!("neg({text})")
                } else {
                    format!("-{text}")
                };
            }
        }
        parts.push(text);
    }
    let mut text = match ext {
        Some(x) => ext_mnemonic(tables, info, x),
        None => mnemonic(tables, info),
    };
    if !parts.is_empty() {
        text.push(' ');
        text.push_str(&parts.join(", "));
    }
    if vop3 {
        if is_bitop3(info) {
            let table = (f("omod") & 3) << 6 | (f("abs") & 7) << 3 | f("neg") & 7;
            if table != 0 {
                text.push(' ');
                text.push_str(&super::spelling::bitop3_text(table));
            }
        }
        if opsel != 0 && lay.has_opsel {
            let sdst_slot = lay.sdst_slot && ext.is_none();
            let n = lay.opsel_srcs + usize::from(lay.dst_in_opsel || sdst_slot);
            let dst_bit = if lay.dst_in_opsel {
                opsel as u32 >> 3 & 1
            } else {
                0
            };
            let bits = (opsel as u32 & ((1 << lay.n_src) - 1)) | (dst_bit << lay.opsel_srcs);
            // Bits of operands that are not printed (the EXEC destination of `v_cmpx`) drop.
            if bits & ((1 << n) - 1) != 0 {
                text.push_str(&format!(" op_sel:{}", list_text(bits, n)));
            }
        }
        if f("clmp") != 0 {
            text.push_str(" clamp");
        }
        if lay.float_mods {
            match f("omod") {
                1 => text.push_str(" mul:2"),
                2 => text.push_str(" mul:4"),
                3 => text.push_str(" div:2"),
                _ => {}
            }
        }
    }
    if vop3p {
        let n = lay.n_src;
        let full = (1u32 << n) - 1;
        let hi = (f("opsel_hi") as u32 & 3) | ((f("opsel_hi2") as u32 & 1) << 2);
        if opsel as u32 & full != 0 {
            text.push_str(&format!(" op_sel:{}", list_text(opsel as u32, n)));
        }
        // `v_fma_mix*` selects f16 sources with `op_sel_hi`: its default is 0.
        let hi_default = if lay.mix { 0 } else { full };
        if hi & full != hi_default {
            text.push_str(&format!(" op_sel_hi:{}", list_text(hi, n)));
        }
        if !lay.mix && !lay.scale && !lay.no_neg && f("neg") as u32 & full != 0 {
            text.push_str(&format!(" neg_lo:{}", list_text(f("neg") as u32, n)));
        }
        if !lay.mix && !lay.scale && !lay.no_neg && f("neg_hi") as u32 & full != 0 {
            text.push_str(&format!(" neg_hi:{}", list_text(f("neg_hi") as u32, n)));
        }
        if f("clmp") != 0 && !lay.scale {
            text.push_str(" clamp");
        }
    }
    if let Some(x) = ext {
        if !wide && x == dpp::Ext::Sdwa {
            if f("clmp") != 0 {
                text.push_str(" clamp");
            }
            match f("omod") {
                1 if lay.float_mods => text.push_str(" mul:2"),
                2 if lay.float_mods => text.push_str(" mul:4"),
                3 if lay.float_mods => text.push_str(" div:2"),
                _ => {}
            }
        }
        text.push_str(&dpp::ext_text(arch, info, inst, x));
    }
    Some(text)
}

/// The mnemonic of a DPP/SDWA form: `v_add_f32_dpp`, `v_fma_f32_e64_dpp`, `v_add_f32_sdwa`;
/// LLVM prints RDNA's VOPC DPP forms without a suffix.
fn ext_mnemonic(tables: &Tables, info: &InstInfo, ext: dpp::Ext) -> String {
    let upper = info.mnemonic.to_ascii_uppercase();
    let base = stem(&upper).to_ascii_lowercase();
    match (ext, info.family.as_str()) {
        (dpp::Ext::Sdwa, _) => format!("{base}_sdwa"),
        (_, "VOPC") if !tables.arch.is_gfx9() => base,
        _ if info.operands.is_empty() => base,
        (_, "VOP3" | "VOP3SD" | "VOP3P") => format!("{base}_e64_dpp"),
        _ => format!("{base}_dpp"),
    }
}

/// A source operand with its modifiers peeled off.
struct Peeled<'a> {
    expr: &'a Expr,
    neg: bool,
    abs: bool,
    /// `sext(v1)` (SDWA integer sources).
    sext: bool,
}

fn peel(expr: &Expr) -> Peeled<'_> {
    let mut p = Peeled {
        expr,
        neg: false,
        abs: false,
        sext: false,
    };
    if let Expr::Call { name, args } = p.expr {
        if name == "sext" && args.len() == 1 {
            p.sext = true;
            p.expr = &args[0];
            return p;
        }
    }
    match p.expr {
        Expr::Neg(inner) => {
            p.neg = true;
            p.expr = inner;
        }
        Expr::Call { name, args } if name == "neg" && args.len() == 1 => {
            p.neg = true;
            p.expr = &args[0];
        }
        _ => {}
    }
    if let Expr::Abs(inner) = p.expr {
        p.abs = true;
        p.expr = inner;
    }
    p
}

fn list_bits(e: &Enc<'_>, col: usize, value: &Option<Expr>, n: usize) -> Result<u64, AsmError> {
    let Some(Expr::List(items)) = value else {
        return Err(e.err(col, "expected a list"));
    };
    if items.is_empty() || items.len() > n.max(1) {
        return Err(e.err(col, "invalid list length"));
    }
    let mut v = 0;
    for (i, it) in items.iter().enumerate() {
        match it {
            Expr::Int(b @ 0..=1) => v |= (*b as u64) << i,
            _ => return Err(e.err(col, "expected 0 or 1")),
        }
    }
    Ok(v)
}

/// The width of the literal `K` of `v_fmamk_*`/`v_fmaak_*`: 64 bits for gfx1250's
/// `v_fmamk_f64`/`v_fmaak_f64`, else the destination's width up to 32.
fn k_bits(info: &InstInfo, vdst: Option<&OperandSpec>) -> u32 {
    let bits = vdst.map_or(32, |d| d.bits);
    if bits == 64 && info.name.contains("F64") {
        64
    } else {
        bits.min(32)
    }
}

fn scalar_code(e: &Enc<'_>, expr: &Expr, col: usize, bits: u32) -> Result<u32, AsmError> {
    let arg = Arg {
        expr: expr.clone(),
        col,
    };
    encode_sreg(e, &arg, bits.div_ceil(32).max(1))
}

/// Whether source code `code` reads a scalar value over the constant bus: an SGPR, `vcc`,
/// `ttmp`, `m0`, `exec` (not `null`), `src_vccz`, `src_execz`, `src_scc`. The aperture
/// registers (`src_shared_base`...) do not count (llvm-mc accepts them beside two SGPRs).
fn uses_constant_bus(arch: Arch, code: u32) -> bool {
    let null = operands::special_code(arch, "null").map(|c| c.0);
    (code < 128 && Some(code) != null) || (251..=253).contains(&code)
}

/// How many distinct scalar values (SGPRs, plus one literal) a VALU instruction may read:
/// one on gfx9 (CDNA); two on RDNA, except the 64-bit shifts, which read one (LLVM's
/// `getConstantBusLimit`).
fn constant_bus_limit(arch: Arch, info: &InstInfo) -> usize {
    if arch.is_gfx9() {
        return 1;
    }
    match stem(&info.name) {
        "V_LSHLREV_B64" | "V_LSHRREV_B64" | "V_ASHRREV_I64" => 1,
        _ => 2,
    }
}

/// Rejects an instruction that reads more scalar values than the constant bus carries. Each
/// distinct scalar register (by code and size) counts once, an implicit `vcc` source (the
/// carry-in or select of the 32-bit forms) counts, and the literal (or `K`) counts once.
fn check_constant_bus(
    e: &Enc<'_>,
    info: &InstInfo,
    lay: &Layout,
    col: usize,
) -> Result<(), AsmError> {
    let arch = e.tables.arch;
    let mut scalars: Vec<(u32, u32)> = Vec::new();
    let mut literal = e.literal().is_some();
    for op in &lay.ops {
        let regs = op.bits.div_ceil(32).max(1);
        let key = match &op.kind {
            Kind::Implicit(name) if op.idx < 3 => operands::special_code(arch, name),
            Kind::LitK => {
                literal = true;
                None
            }
            Kind::Src => {
                let code = e.get(op.field) as u32;
                if code == LITERAL || operands::is_literal64(arch, code) {
                    literal = true;
                }
                if !source_available(arch, code) {
                    return Err(e.err(col, "register not available on this GPU"));
                }
                uses_constant_bus(arch, code).then_some((code, regs))
            }
            _ => None,
        };
        if let Some(k) = key {
            if !scalars.contains(&k) {
                scalars.push(k);
            }
        }
    }
    if scalars.len() + usize::from(literal) > constant_bus_limit(arch, info) {
        return Err(e.err(col, "invalid operand (violates constant bus restrictions)"));
    }
    Ok(())
}

/// Refuses a statement whose `_e32`/`_e64` suffix names the other form than `info`'s family.
pub(crate) fn check_form(e: &Enc<'_>, info: &InstInfo, stmt: &Statement) -> Result<(), AsmError> {
    let m = &stmt.mnemonic;
    let fam = info.family.as_str();
    if (m.ends_with("_e32") && !is_e32(fam)) || (m.ends_with("_e64") && is_e32(fam)) {
        return Err(e.err(stmt.col, "invalid instruction form"));
    }
    Ok(())
}

/// Encodes a vector ALU statement as `info` into `e`.
pub(crate) fn encode(e: &mut Enc<'_>, info: &InstInfo, stmt: &Statement) -> Result<(), AsmError> {
    let arch = e.tables.arch;
    let lay = layout(e.tables, info);
    let fam = info.family.as_str();
    let vop3 = matches!(fam, "VOP3" | "VOP3SD");
    let vop3p = fam == "VOP3P";
    check_form(e, info, stmt)?;
    let ext = dpp::ext_of_format(e.format_name());
    if lay.ops.len() != stmt.args.len() {
        let col = stmt.args.get(lay.ops.len()).map_or(stmt.col, |a| a.col);
        return Err(e.err(col, "invalid operand for instruction"));
    }
    let (ext_mods, mods): (Vec<&Modifier>, Vec<&Modifier>) = stmt
        .mods
        .iter()
        .partition(|m| ext.is_some() && dpp::is_ext_mod(&m.name));
    let xm = match ext {
        Some(x) => Some(dpp::parse_ext_mods(e, info, x, &ext_mods)?),
        None => None,
    };
    // The e32 DPP16 and SDWA forms keep `neg`/`abs` (and SDWA `sext`) in the extension.
    let short_mods =
        matches!(ext, Some(dpp::Ext::Dpp16 | dpp::Ext::Sdwa)) && !vop3 && !vop3p && !lay.packed;
    let (mut neg, mut abs, mut opsel, mut sext) = (0u64, 0u64, 0u64, 0u64);
    if vop3 && is_cmpx(info) && !arch.is_gfx9() {
        e.set("vdst", 126);
    }
    for (op, arg) in lay.ops.iter().zip(&stmt.args) {
        let p = peel(&arg.expr);
        let modded = matches!(op.kind, Kind::Src) || (short_mods && op.field == "vsrc1");
        let mods_ok = op.float && op.idx < 3 && modded && (vop3 || lay.mix || short_mods);
        if (p.neg || p.abs) && !mods_ok {
            // `-1` and `-0.5` are plain constants, not a modifier.
            return Err(e.err(arg.col, "invalid operand for instruction"));
        }
        let register = matches!(p.expr, Expr::Reg { .. } | Expr::Ident(_));
        if p.sext
            && !(ext == Some(dpp::Ext::Sdwa)
                && short_mods
                && register
                && !op.float
                && modded
                && op.idx < 2)
        {
            return Err(e.err(arg.col, "invalid operand for instruction"));
        }
        neg |= u64::from(p.neg) << op.idx;
        abs |= u64::from(p.abs) << op.idx;
        sext |= u64::from(p.sext) << op.idx;
        let half16 = lay.t16 && op.bits == 16;
        if ext.is_some() && op.field == "src0" {
            let (code, hi_half) = encode_src(e, p.expr, arg.col, op.bits, op.float)?;
            let vgpr = code >= 256;
            // No literal, and on SDWA no aperture register (llvm-mc rejects both).
            if code == LITERAL
                || (!vgpr && ext != Some(dpp::Ext::Sdwa))
                || (235..=239).contains(&code)
            {
                return Err(e.err(arg.col, "invalid operand for instruction"));
            }
            let r = if vgpr { code - 256 } else { code };
            if half16 && !vop3 && !vop3p {
                if r > 127 {
                    return Err(e.err(arg.col, "invalid register for 16-bit operand"));
                }
                e.set("vsrc0", u64::from(r | u32::from(hi_half) << 7));
            } else {
                e.set("vsrc0", u64::from(r));
                if hi_half {
                    opsel |= 1;
                }
            }
            e.set("s0", u64::from(!vgpr));
            continue;
        }
        match &op.kind {
            Kind::Implicit(_) if ext == Some(dpp::Ext::Sdwa) && op.idx == 3 => {
                let code = scalar_code(e, p.expr, arg.col, op.bits)?;
                let vcc = operands::special_code(arch, "vcc").map(|c| c.0);
                if Some(code) != vcc {
                    e.set("sd", 1);
                    e.set("sdst", u64::from(code));
                }
            }
            Kind::Implicit(name) => match p.expr {
                Expr::Ident(n) if n.eq_ignore_ascii_case(name) => {}
                _ => return Err(e.err(arg.col, "invalid operand for instruction")),
            },
            Kind::Src
                if ext.is_some()
                    && arch.wheel() == Wheel::Rdna3
                    && op.field == "src1"
                    && !matches!(p.expr, Expr::Reg { file, .. } if file == "v") =>
            {
                // RDNA 3 VOP3 DPP reads `src1` from a VGPR only (llvm-mc: "src1 immediate
                // operand invalid", "invalid operand").
                return Err(e.err(arg.col, "invalid operand for instruction"));
            }
            Kind::Vgpr
                if ext == Some(dpp::Ext::Sdwa)
                    && op.field == "vsrc1"
                    && !matches!(p.expr, Expr::Reg { file, .. } if file == "v") =>
            {
                let (code, _) = encode_src(e, p.expr, arg.col, op.bits, op.float)?;
                if code == LITERAL || (235..=239).contains(&code) {
                    return Err(e.err(arg.col, "invalid operand for instruction"));
                }
                e.set("vsrc1", u64::from(code));
                e.set("s1", 1);
            }
            Kind::LitK if op.bits == 64 => {
                // The `K` of `v_fmamk_f64`/`v_fmaak_f64`: 64 bits; a value of 32 unsigned bits
                // is the high dword, as for a 32-bit literal of an f64 source (llvm-mc-22).
                let v = match p.expr {
                    Expr::Float(f) => f.to_bits(),
                    Expr::Int(v) if (0..=i64::from(u32::MAX)).contains(v) => (*v as u64) << 32,
                    Expr::Int(v) => *v as u64,
                    Expr::Call { name, args } if name == "lit64" && args.len() == 1 => {
                        match &args[0] {
                            Expr::Int(v) => *v as u64,
                            Expr::Float(f) => f.to_bits(),
                            _ => return Err(e.err(arg.col, "invalid literal")),
                        }
                    }
                    _ => return Err(e.err(arg.col, "invalid literal")),
                };
                e.set_literal64(v, arg.col)?;
            }
            Kind::LitK => {
                let v = match p.expr {
                    Expr::Float(f) if op.bits == 32 => (*f as f32).to_bits(),
                    Expr::Int(v) if op.bits == 16 && (-32768..=65535).contains(v) => {
                        *v as u32 & 0xffff
                    }
                    Expr::Int(v)
                        if op.bits == 32
                            && (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(v) =>
                    {
                        *v as u32
                    }
                    _ => return Err(e.err(arg.col, "invalid literal")),
                };
                e.set_literal(v, arg.col)?;
            }
            Kind::Sreg => {
                let code = scalar_code(e, p.expr, arg.col, op.bits)?;
                e.set(op.field, u64::from(code));
            }
            Kind::Vgpr => {
                let Expr::Reg {
                    file, lo, hi, half, ..
                } = p.expr
                else {
                    return Err(e.err(arg.col, "invalid operand for instruction"));
                };
                let regs = op.bits.div_ceil(32).max(1);
                if file != "v" || hi < lo || hi - lo + 1 != regs || *hi > 255 {
                    return Err(e.err(arg.col, "invalid operand for instruction"));
                }
                // CDNA 3+ VGPR tuples are even-aligned.
                if arch.is_gfx9() && regs > 1 && lo % 2 != 0 {
                    return Err(e.err(arg.col, "invalid register alignment"));
                }
                if half.is_some() && !half16 {
                    return Err(e.err(arg.col, "invalid operand for instruction"));
                }
                let hi_half = *half == Some(true);
                if half16 && !vop3 && !vop3p {
                    if *lo > 127 {
                        return Err(e.err(arg.col, "invalid register for 16-bit operand"));
                    }
                    e.set(op.field, u64::from(lo | u32::from(hi_half) << 7));
                } else {
                    e.set(op.field, u64::from(*lo));
                    if hi_half {
                        opsel |= 1 << op.idx;
                    }
                }
            }
            Kind::Src => {
                if op.vgpr_only && !matches!(p.expr, Expr::Reg { file, .. } if file == "v") {
                    return Err(e.err(arg.col, "invalid operand for instruction"));
                }
                let lane_mask = op.bits == wave_bits(arch) && !op.float && vop3 && op.idx == 2;
                let (mut code, hi_half) = if lane_mask
                    && info
                        .operands
                        .iter()
                        .any(|o| src_index(&o.field) == Some(2) && o.format.contains("M64"))
                {
                    (scalar_code(e, p.expr, arg.col, op.bits)?, false)
                } else {
                    encode_src(e, p.expr, arg.col, op.bits, op.float)?
                };
                if half16 && code >= 256 && !vop3 && !vop3p {
                    let r = code - 256;
                    if r > 127 {
                        return Err(e.err(arg.col, "invalid register for 16-bit operand"));
                    }
                    code = 256 + (r | u32::from(hi_half) << 7);
                } else if hi_half {
                    opsel |= 1 << op.idx;
                }
                if code == LITERAL && arch.is_gfx9() && (vop3 || vop3p) {
                    return Err(e.err(arg.col, "literal operands are not supported"));
                }
                e.set(op.field, u64::from(code));
            }
        }
    }
    check_constant_bus(e, info, &lay, stmt.col)?;
    if ext == Some(dpp::Ext::Sdwa) {
        // SDWA scalar sources sit in `vsrc0`/`vsrc1`, out of `check_constant_bus`'s view;
        // CDNA's bus carries one scalar value.
        let mut scalars = Vec::new();
        for (field, flag) in [("vsrc0", "s0"), ("vsrc1", "s1")] {
            let code = e.get(field) as u32;
            if e.get(flag) != 0 && uses_constant_bus(arch, code) && !scalars.contains(&code) {
                scalars.push(code);
            }
        }
        if scalars.len() > 1 {
            return Err(e.err(
                stmt.col,
                "invalid operand (violates constant bus restrictions)",
            ));
        }
    }
    if let Some(xm) = &xm {
        if e.literal().is_some() {
            return Err(e.err(stmt.col, "literal operands are not supported with DPP/SDWA"));
        }
        dpp::write_ext_mods(e, xm);
    }
    if !vop3 && !vop3p {
        for m in &mods {
            match (m.name.as_str(), &m.value) {
                ("clamp", None) if ext == Some(dpp::Ext::Sdwa) && fam != "VOPC" => e.set("clmp", 1),
                ("mul", Some(Expr::Int(2))) if ext == Some(dpp::Ext::Sdwa) && lay.float_mods => {
                    e.set("omod", 1)
                }
                ("mul", Some(Expr::Int(4))) if ext == Some(dpp::Ext::Sdwa) && lay.float_mods => {
                    e.set("omod", 2)
                }
                ("div", Some(Expr::Int(2))) if ext == Some(dpp::Ext::Sdwa) && lay.float_mods => {
                    e.set("omod", 3)
                }
                _ => return Err(e.err(m.col, "invalid operand for instruction")),
            }
        }
        if short_mods {
            e.set("src0_neg", neg & 1);
            e.set("src1_neg", neg >> 1 & 1);
            e.set("src0_abs", abs & 1);
            e.set("src1_abs", abs >> 1 & 1);
            e.set("src0_sext", sext & 1);
            e.set("src1_sext", sext >> 1 & 1);
        } else if neg | abs != 0 {
            return Err(e.err(stmt.col, "invalid operand for instruction"));
        }
        return Ok(());
    }
    let mut omod = 0;
    let mut clamp = 0;
    let hi_default = if lay.mix { 0 } else { (1u64 << lay.n_src) - 1 };
    let (mut opsel_hi, mut neg_lo, mut neg_hi) = (hi_default, 0, 0);
    let mut explicit_opsel = None;
    let bitop3 = vop3 && is_bitop3(info);
    let mut table = None;
    for m in mods {
        match (m.name.as_str(), &m.value) {
            ("bitop3", Some(Expr::Int(v))) if bitop3 && table.is_none() => {
                if !(0..=255).contains(v) {
                    return Err(e.err(m.col, "invalid bitop3 value: expected 0..255"));
                }
                table = Some(*v as u64);
            }
            // llvm-mc-22 refuses `clamp` on the bitwise truth tables.
            ("clamp", None) if !lay.scale && !bitop3 => clamp = 1,
            ("mul", Some(Expr::Int(2))) if vop3 && lay.float_mods => omod = 1,
            ("mul", Some(Expr::Int(4))) if vop3 && lay.float_mods => omod = 2,
            ("div", Some(Expr::Int(2))) if vop3 && lay.float_mods => omod = 3,
            ("op_sel", v) => {
                let srcs = if vop3 { lay.opsel_srcs } else { lay.n_src };
                let sdst_slot = lay.sdst_slot && ext.is_none();
                let n = srcs + usize::from(vop3 && (lay.dst_in_opsel || sdst_slot));
                let mut bits = list_bits(e, m.col, v, n)?;
                // The destination's bit is always bit 3 in VOP3.
                if vop3 {
                    let dst = bits >> srcs & 1;
                    if dst != 0 && !lay.dst_in_opsel {
                        return Err(e.err(m.col, "invalid op_sel operand"));
                    }
                    bits = (bits & ((1 << lay.n_src) - 1)) | dst << 3;
                }
                explicit_opsel = Some(bits);
            }
            ("op_sel_hi", v) if vop3p => opsel_hi = list_bits(e, m.col, v, lay.n_src)?,
            ("neg_lo", v) if vop3p && !lay.mix && !lay.scale && !lay.no_neg => {
                neg_lo = list_bits(e, m.col, v, lay.n_src)?
            }
            ("neg_hi", v) if vop3p && !lay.mix && !lay.scale && !lay.no_neg => {
                neg_hi = list_bits(e, m.col, v, lay.n_src)?
            }
            _ => return Err(e.err(m.col, "invalid modifier for instruction")),
        }
    }
    // GFX940+ dot instructions ignore op_sel: llvm-mc takes only the defaults.
    let full = (1u64 << lay.n_src) - 1;
    if arch.is_gfx9()
        && vop3p
        && info.name.starts_with("V_DOT")
        && (explicit_opsel.is_some_and(|b| b != 0) || opsel_hi != full)
    {
        return Err(e.err(stmt.col, "invalid op_sel operand"));
    }
    if let Some(bits) = explicit_opsel {
        if vop3 && !lay.has_opsel {
            return Err(e.err(stmt.col, "op_sel is not valid for this instruction"));
        }
        opsel |= bits;
    }
    e.set("clmp", clamp);
    e.set("opsel", opsel);
    if let Some(t) = table {
        // No source of a truth table takes `neg`/`abs` (they are integer), so the fields
        // are free for the table.
        (omod, abs, neg) = (t >> 6 & 3, t >> 3 & 7, t & 7);
    }
    if vop3 {
        e.set("omod", omod);
        e.set("neg", neg);
        e.set("abs", abs);
    } else {
        // Packed sources: unused `op_sel_hi` bits stay at their default of 1.
        let full = (1u64 << lay.n_src) - 1;
        let hi = opsel_hi | (7 & !full);
        e.set("opsel_hi", hi & 3);
        e.set("opsel_hi2", hi >> 2 & 1);
        if lay.mix {
            e.set("neg", neg);
            e.set("neg_hi", abs);
        } else {
            e.set("neg", neg_lo);
            e.set("neg_hi", neg_hi);
        }
    }
    Ok(())
}
