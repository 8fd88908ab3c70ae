//! The DPP and SDWA extension dwords of the vector ALU formats.
//!
//! A VOP1/VOP2/VOPC word whose `src0` holds one of four reserved codes is followed by an
//! extension dword (a VOP3/VOP3SD/VOP3P word on RDNA by a third dword): `0xfa` DPP16
//! (`quad_perm`, row shifts and masks), `0xe9`/`0xea` DPP8 (eight 3-bit lane selects; `0xea`
//! sets `fi`, RDNA only) and, on GFX9 and GFX10, `0xf9` SDWA (sub-dword selects). The real `src0` is the
//! 8-bit `vsrc0` of the extension. The spec wheel gives the bit fields of each variant
//! (`VOP1_DPP16`, `VOP3_DPP8`, `VOPC_SDWA_SDST`...); which code selects which variant, and
//! the text of the controls, are LLVM's and written here once.

use super::enc::Enc;
use super::inst::{AsmError, Inst};
use super::layout::src_index;
use super::syntax::{Expr, Modifier};
use super::tables::{Format, InstInfo, Tables};
use crate::spec::{Arch, Family, Wheel};

/// The `src0` code of a DPP16 extension.
pub(crate) const SRC_DPP16: u32 = 0xfa;
/// The `src0` code of a DPP8 extension.
pub(crate) const SRC_DPP8: u32 = 0xe9;
/// The `src0` code of a DPP8 extension with `fi:1`.
pub(crate) const SRC_DPP8_FI: u32 = 0xea;
/// The `src0` code of an SDWA extension (GFX9 and GFX10).
pub(crate) const SRC_SDWA: u32 = 0xf9;

/// Which extension an instruction carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ext {
    /// DPP16: `dpp` control, row/bank masks, `bound_ctrl`, `fi`.
    Dpp16,
    /// DPP8: eight lane selects.
    Dpp8,
    /// SDWA (GFX9 and GFX10): sub-dword selects.
    Sdwa,
}

/// The extension that `src0` code `code` selects in a word of `family`, if any.
pub(crate) fn ext_of(arch: Arch, family: &str, code: u32) -> Option<Ext> {
    let short = matches!(family, "VOP1" | "VOP2" | "VOPC");
    let long = matches!(family, "VOP3" | "VOP3SD" | "VOP3P");
    match (arch.wheel(), code) {
        (_, SRC_DPP16) if short || (long && !arch.is_gfx9()) => Some(Ext::Dpp16),
        (Wheel::Rdna3 | Wheel::Rdna4, SRC_DPP8 | SRC_DPP8_FI) if short || long => Some(Ext::Dpp8),
        (_, SRC_SDWA) if short && matches!(arch.family(), Family::Gfx9 | Family::Gfx10) => {
            Some(Ext::Sdwa)
        }
        _ => None,
    }
}

/// The `ins.py` variant class suffix of an extension in `family`.
pub(crate) fn variant_suffix(ext: Ext, family: &str) -> &'static str {
    match ext {
        Ext::Dpp16 => "_DPP16",
        Ext::Dpp8 => "_DPP8",
        Ext::Sdwa if family == "VOPC" => "_SDWA_SDST",
        Ext::Sdwa => "_SDWA",
    }
}

/// The variant format of `family` that carries `ext`. Its opcode set is not checked: the
/// variants inherit the base class's set, which for VOP3 leaves out the opcodes the spec
/// files under `VOP3_SDST` (`v_cmp_*_e64`), whose DPP forms exist all the same.
pub(crate) fn ext_format<'t>(tables: &'t Tables, family: &str, ext: Ext) -> Option<&'t Format> {
    tables.format(&format!("{family}{}", variant_suffix(ext, family)))
}

/// The extension of a decoded format name (`VOP1_DPP16` → DPP16).
pub(crate) fn ext_of_format(format: &str) -> Option<Ext> {
    if format.ends_with("_DPP16") {
        Some(Ext::Dpp16)
    } else if format.ends_with("_DPP8") {
        Some(Ext::Dpp8)
    } else if format.contains("_SDWA") {
        Some(Ext::Sdwa)
    } else {
        None
    }
}

/// Whether the extension fields of `var` (a DPP/SDWA variant format) in `bits` hold values
/// that have a spelling: a known DPP16 control, SDWA selects up to `DWORD`.
pub(crate) fn valid(arch: Arch, info: &InstInfo, var: &Format, bits: u128) -> bool {
    let get = |n: &str| var.field(n).map(|f| f.get(bits) as usize);
    if let Some(ctrl) = get("dpp") {
        return ctrl_text(arch, ctrl as u32).is_some() && ctrl_allowed(arch, info, ctrl as u32);
    }
    let sel_ok = |n: &str| get(n).is_none_or(|v| v < SDWA_SEL.len());
    sel_ok("dst_sel")
        && sel_ok("src0_sel")
        && sel_ok("src1_sel")
        && get("dst_unused").is_none_or(|v| v < SDWA_UNUSED.len())
}

/// Whether `arch` has `row_newbcast` and the double-precision ALU's DPP: gfx90a on (LLVM's
/// DPALU_DPP feature). gfx908 has neither: llvm-mc-22 -mcpu=gfx908 refuses `row_newbcast`,
/// marks the code as unsupported when it disassembles it, and takes any control on a
/// 64-bit operation.
fn has_newbcast(arch: Arch) -> bool {
    arch.is_gfx9() && arch != Arch::Cdna1
}

/// Whether `info` may use DPP16 control `ctrl`: on CDNA 2 on an instruction with a 64-bit
/// operand runs on the double-precision ALU, whose DPP supports only `row_newbcast`.
pub(crate) fn ctrl_allowed(arch: Arch, info: &InstInfo, ctrl: u32) -> bool {
    // gfx908 takes no 64-bit DPP source (llvm-mc-22 refuses `v_ceil_f64_dpp` there).
    if arch == Arch::Cdna1
        && info
            .operands
            .iter()
            .any(|o| o.field != "vdst" && o.bits == 64)
    {
        return false;
    }
    let dp_alu = has_newbcast(arch) && info.operands.iter().any(|o| o.bits == 64);
    !dp_alu || (0x150..=0x15f).contains(&ctrl)
}

/// The text of a DPP16 control value, or `None` if it is reserved on `arch`.
pub(crate) fn ctrl_text(arch: Arch, ctrl: u32) -> Option<String> {
    let n = ctrl & 0xf;
    let gfx9 = arch.is_gfx9();
    Some(match ctrl {
        0x000..=0x0ff => {
            let lanes: Vec<String> = (0..4).map(|i| (ctrl >> (2 * i) & 3).to_string()).collect();
            format!("quad_perm:[{}]", lanes.join(","))
        }
        0x101..=0x10f => format!("row_shl:{n}"),
        0x111..=0x11f => format!("row_shr:{n}"),
        0x121..=0x12f => format!("row_ror:{n}"),
        0x130 if gfx9 => "wave_shl:1".into(),
        0x134 if gfx9 => "wave_rol:1".into(),
        0x138 if gfx9 => "wave_shr:1".into(),
        0x13c if gfx9 => "wave_ror:1".into(),
        0x140 => "row_mirror".into(),
        0x141 => "row_half_mirror".into(),
        // Printed on RDNA too (LLVM prints it with a note that GFX10+ drops it): RDNA 3
        // hardware executes it (`src/wave/dpp.rs`), but the assembler accepts it only on GFX9.
        0x142 => "row_bcast:15".into(),
        0x143 => "row_bcast:31".into(),
        0x150..=0x15f if has_newbcast(arch) => format!("row_newbcast:{n}"),
        0x150..=0x15f if gfx9 => return None,
        0x150..=0x15f => format!("row_share:{n}"),
        0x160..=0x16f if !gfx9 => format!("row_xmask:{n}"),
        _ => return None,
    })
}

/// Whether a modifier belongs to the DPP/SDWA extension.
pub(crate) fn is_ext_mod(name: &str) -> bool {
    matches!(
        name,
        "quad_perm"
            | "row_shl"
            | "row_shr"
            | "row_ror"
            | "wave_shl"
            | "wave_rol"
            | "wave_shr"
            | "wave_ror"
            | "row_mirror"
            | "row_half_mirror"
            | "row_bcast"
            | "row_share"
            | "row_newbcast"
            | "row_xmask"
            | "row_mask"
            | "bank_mask"
            | "bound_ctrl"
            | "fi"
            | "dpp8"
            | "dst_sel"
            | "dst_unused"
            | "src0_sel"
            | "src1_sel"
    )
}

/// Whether the modifiers ask for a DPP encoding (a control or `dpp8`).
pub(crate) fn wants_dpp(mods: &[Modifier]) -> Option<Ext> {
    if mods.iter().any(|m| m.name == "dpp8") {
        return Some(Ext::Dpp8);
    }
    mods.iter()
        .any(|m| is_ext_mod(&m.name) && !m.name.contains("_sel") && m.name != "dst_unused")
        .then_some(Ext::Dpp16)
}

/// The DPP16 control value of one control modifier, or `None` when `m` is not a control
/// or is out of range on `arch`.
pub(crate) fn parse_ctrl(arch: Arch, m: &Modifier) -> Option<u32> {
    let gfx9 = arch.is_gfx9();
    let int = |lo: i64, hi: i64| match m.value {
        Some(Expr::Int(v)) if (lo..=hi).contains(&v) => Some(v as u32),
        _ => None,
    };
    match m.name.as_str() {
        "quad_perm" => {
            let Some(Expr::List(items)) = &m.value else {
                return None;
            };
            if items.len() != 4 {
                return None;
            }
            let mut v = 0;
            for (i, it) in items.iter().enumerate() {
                match it {
                    Expr::Int(x @ 0..=3) => v |= (*x as u32) << (2 * i),
                    _ => return None,
                }
            }
            Some(v)
        }
        "row_shl" => int(1, 15).map(|n| 0x100 | n),
        "row_shr" => int(1, 15).map(|n| 0x110 | n),
        "row_ror" => int(1, 15).map(|n| 0x120 | n),
        "wave_shl" if gfx9 => int(1, 1).map(|_| 0x130),
        "wave_rol" if gfx9 => int(1, 1).map(|_| 0x134),
        "wave_shr" if gfx9 => int(1, 1).map(|_| 0x138),
        "wave_ror" if gfx9 => int(1, 1).map(|_| 0x13c),
        "row_mirror" if m.value.is_none() => Some(0x140),
        "row_half_mirror" if m.value.is_none() => Some(0x141),
        "row_bcast" if gfx9 => match m.value {
            Some(Expr::Int(15)) => Some(0x142),
            Some(Expr::Int(31)) => Some(0x143),
            _ => None,
        },
        "row_newbcast" if has_newbcast(arch) => int(0, 15).map(|n| 0x150 | n),
        "row_share" if !gfx9 => int(0, 15).map(|n| 0x150 | n),
        "row_xmask" if !gfx9 => int(0, 15).map(|n| 0x160 | n),
        _ => None,
    }
}

/// The DPP8 lane selects as printed: `dpp8:[7,6,5,4,3,2,1,0]`.
pub(crate) fn dpp8_text(sels: u32) -> String {
    let lanes: Vec<String> = (0..8).map(|i| (sels >> (3 * i) & 7).to_string()).collect();
    format!("dpp8:[{}]", lanes.join(","))
}

/// Parses `dpp8:[..]` into the 24 select bits.
pub(crate) fn parse_dpp8(m: &Modifier) -> Option<u32> {
    let Some(Expr::List(items)) = &m.value else {
        return None;
    };
    if items.len() != 8 {
        return None;
    }
    let mut v = 0;
    for (i, it) in items.iter().enumerate() {
        match it {
            Expr::Int(x @ 0..=7) => v |= (*x as u32) << (3 * i),
            _ => return None,
        }
    }
    Some(v)
}

/// SDWA operand selects, by field value.
pub(crate) const SDWA_SEL: [&str; 7] = [
    "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD",
];
/// SDWA `dst_unused` values, by field value.
pub(crate) const SDWA_UNUSED: [&str; 3] = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"];

/// The value of a named SDWA select modifier (`WORD_1` → 5), if valid for `names`.
pub(crate) fn parse_named(m: &Modifier, names: &[&str]) -> Option<u64> {
    match &m.value {
        Some(Expr::Ident(n)) => names
            .iter()
            .position(|x| x.eq_ignore_ascii_case(n))
            .map(|p| p as u64),
        _ => None,
    }
}

/// The extension's trailing modifiers: the DPP control and masks, or the SDWA selects.
pub(crate) fn ext_text(arch: Arch, info: &InstInfo, inst: &Inst, ext: Ext) -> String {
    let f = |n: &str| inst.field(n).unwrap_or(0);
    let mut out = String::new();
    match ext {
        Ext::Dpp8 => {
            let sels = (0..8).fold(0u32, |acc, i| {
                acc | (f(&format!("lane_sel_{i}")) as u32 & 7) << (3 * i)
            });
            out.push(' ');
            out.push_str(&dpp8_text(sels));
            let src0 = inst.field("src0").unwrap_or(0) as u32;
            if src0 == SRC_DPP8_FI {
                out.push_str(" fi:1");
            }
        }
        Ext::Dpp16 => {
            let ctrl = ctrl_text(arch, f("dpp") as u32).unwrap_or_default();
            out.push_str(&format!(
                " {ctrl} row_mask:0x{:x} bank_mask:0x{:x}",
                f("row_mask"),
                f("bank_mask")
            ));
            if f("bc") != 0 {
                out.push_str(" bound_ctrl:1");
            }
            if f("fi") != 0 {
                out.push_str(" fi:1");
            }
        }
        Ext::Sdwa => {
            let sel = |n: &str| SDWA_SEL.get(f(n) as usize).copied().unwrap_or("DWORD");
            if info.family != "VOPC" {
                out.push_str(&format!(
                    " dst_sel:{} dst_unused:{}",
                    sel("dst_sel"),
                    SDWA_UNUSED
                        .get(f("dst_unused") as usize)
                        .copied()
                        .unwrap_or("UNUSED_PAD")
                ));
            }
            let n_src = info
                .operands
                .iter()
                .filter(|o| src_index(&o.field).is_some())
                .count();
            if n_src >= 1 {
                out.push_str(&format!(" src0_sel:{}", sel("src0_sel")));
            }
            if n_src >= 2 {
                out.push_str(&format!(" src1_sel:{}", sel("src1_sel")));
            }
        }
    }
    out
}

/// The extension modifiers of one DPP/SDWA statement, defaults filled in.
pub(crate) struct ExtMods {
    ext: Ext,
    ctrl: u32,
    row_mask: u64,
    bank_mask: u64,
    bound_ctrl: u64,
    fi: u64,
    dpp8: u32,
    dst_sel: u64,
    dst_unused: u64,
    src0_sel: u64,
    src1_sel: u64,
    n_src: usize,
}

pub(crate) fn parse_ext_mods(
    e: &Enc<'_>,
    info: &InstInfo,
    ext: Ext,
    mods: &[&Modifier],
) -> Result<ExtMods, AsmError> {
    let arch = e.tables.arch;
    let n_src = info
        .operands
        .iter()
        .filter(|o| src_index(&o.field).is_some())
        .count();
    let mut x = ExtMods {
        ext,
        ctrl: 0xe4,
        row_mask: 0xf,
        bank_mask: 0xf,
        bound_ctrl: 0,
        fi: 0,
        dpp8: 0,
        dst_sel: 6,
        dst_unused: 2,
        src0_sel: 6,
        src1_sel: 6,
        n_src,
    };
    let mut seen_ctrl = false;
    let mut seen_dpp8 = false;
    for m in mods {
        let bad = || e.err(m.col, "invalid modifier for instruction");
        let mask = || match m.value {
            Some(Expr::Int(v @ 0..=15)) => Ok(v as u64),
            _ => Err(bad()),
        };
        let sel = |names: &[&str]| parse_named(m, names).ok_or_else(bad);
        match (ext, m.name.as_str()) {
            (Ext::Dpp16, "row_mask") => x.row_mask = mask()?,
            (Ext::Dpp16, "bank_mask") => x.bank_mask = mask()?,
            (Ext::Dpp16, "bound_ctrl") => match m.value {
                Some(Expr::Int(0 | 1)) => x.bound_ctrl = 1,
                _ => return Err(bad()),
            },
            (Ext::Dpp16 | Ext::Dpp8, "fi") if !arch.is_gfx9() => match m.value {
                Some(Expr::Int(v @ 0..=1)) => x.fi = v as u64,
                _ => return Err(bad()),
            },
            (Ext::Dpp8, "dpp8") if !seen_dpp8 => {
                x.dpp8 = parse_dpp8(m).ok_or_else(bad)?;
                seen_dpp8 = true;
            }
            (Ext::Sdwa, "dst_sel") if info.family != "VOPC" => x.dst_sel = sel(&SDWA_SEL)?,
            (Ext::Sdwa, "dst_unused") if info.family != "VOPC" => x.dst_unused = sel(&SDWA_UNUSED)?,
            (Ext::Sdwa, "src0_sel") if n_src >= 1 => x.src0_sel = sel(&SDWA_SEL)?,
            (Ext::Sdwa, "src1_sel") if n_src >= 2 => x.src1_sel = sel(&SDWA_SEL)?,
            (Ext::Dpp16, _) if !seen_ctrl => {
                x.ctrl = parse_ctrl(arch, m).ok_or_else(bad)?;
                if !ctrl_allowed(arch, info, x.ctrl) {
                    return Err(e.err(m.col, "DP ALU dpp only supports row_newbcast"));
                }
                seen_ctrl = true;
            }
            _ => return Err(bad()),
        }
    }
    if ext == Ext::Dpp8 && !seen_dpp8 {
        return Err(e.err(mods.first().map_or(0, |m| m.col), "expected dpp8:[..]"));
    }
    Ok(x)
}

pub(crate) fn write_ext_mods(e: &mut Enc<'_>, x: &ExtMods) {
    match x.ext {
        Ext::Dpp16 => {
            e.set("src0", u64::from(SRC_DPP16));
            e.set("dpp", u64::from(x.ctrl));
            e.set("row_mask", x.row_mask);
            e.set("bank_mask", x.bank_mask);
            e.set("bc", x.bound_ctrl);
            e.set("fi", x.fi);
        }
        Ext::Dpp8 => {
            let code = if x.fi != 0 { SRC_DPP8_FI } else { SRC_DPP8 };
            e.set("src0", u64::from(code));
            for i in 0..8 {
                e.set(&format!("lane_sel_{i}"), u64::from(x.dpp8 >> (3 * i) & 7));
            }
        }
        Ext::Sdwa => {
            e.set("src0", u64::from(SRC_SDWA));
            e.set("dst_sel", x.dst_sel);
            e.set("dst_unused", x.dst_unused);
            if x.n_src >= 1 {
                e.set("src0_sel", x.src0_sel);
            }
            if x.n_src >= 2 {
                e.set("src1_sel", x.src1_sel);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctrl_round_trips() {
        for arch in Arch::ALL {
            for ctrl in 0..0x200u32 {
                let Some(text) = ctrl_text(arch, ctrl) else {
                    continue;
                };
                let line = format!("v_mov_b32 v0, v0 {text}");
                let stmt = super::super::syntax::parse_line(&line, 1)
                    .unwrap()
                    .stmt
                    .unwrap();
                // RDNA prints GFX9's row_bcast (its hardware executes it) but, like LLVM, does
                // not assemble it.
                let want = match ctrl {
                    0x142 | 0x143 if !arch.is_gfx9() => None,
                    _ => Some(ctrl),
                };
                assert_eq!(parse_ctrl(arch, &stmt.mods[0]), want, "{text}");
            }
        }
    }
}
