//! Source operands: scalar codes, inline constants, the literal, VGPR rows with their
//! modifiers (DPP and SDWA selects included), and the registers a text reads by name.

use crate::interp::RegValue;
use crate::spec::Arch;
use crate::value::Bits;

use super::dest::Dest;
use super::mods::{apply_mods, denorm_flush, Mods};
use super::{float_bits, flushes_denormals, is_mask_format, uni, words_bits, Inst, Src};
use crate::wave::state::{code, WaveState};

pub(super) fn scalar_src(
    w: &WaveState,
    ii: &Inst<'_>,
    src_code: u32,
    width: u32,
    format: &str,
) -> Bits {
    let fbits = float_bits(format);
    let v: u64 = match src_code {
        128..=192 => (src_code - 128) as u64,
        193..=208 => (-((src_code - 192) as i64)) as u64,
        240..=248 => {
            let (_, _, _, f32b, f64b, f16b) =
                crate::isa::operands::INLINE_FLOATS[(src_code - 240) as usize];
            // CDNA's packed f32 operands (64 bits, two f32 halves) take the f32 constant,
            // zero-extended: LLVM selects it for the high half too with op_sel_hi 0.
            if width >= 64 && !format.contains("PK2") {
                f64b
            } else if fbits == 16 || (width == 16 && fbits == 0) {
                f16b as u64
            } else {
                f32b as u64
            }
        }
        // src_shared_base/limit, src_private_base/limit: a 64-bit read gives the aperture's
        // address, a 32-bit read its high half.
        235..=238 => {
            use crate::wave::state::{PRIVATE_APERTURE, SHARED_APERTURE};
            let base = if src_code < 237 {
                SHARED_APERTURE
            } else {
                PRIVATE_APERTURE
            };
            let v = if src_code.is_multiple_of(2) {
                base | 0xffff_ffff
            } else {
                base
            };
            if width >= 64 {
                v
            } else {
                v >> 32
            }
        }
        251 => (w.vcc() & w.full_mask() == 0) as u64,
        252 => (w.exec() == 0) as u64,
        253 => w.scc as u64,
        255 => {
            let lit = ii.d.inst.literal.unwrap_or(0) as u64;
            if width >= 64 && fbits == 64 {
                lit << 32
            } else if width >= 64 && format.contains("I64") {
                lit as u32 as i32 as i64 as u64
            } else {
                lit
            }
        }
        c if c < 128 => {
            let n = width.div_ceil(32).max(1);
            let words: Vec<u32> = (0..n).map(|i| w.read_sgpr(c + i)).collect();
            return words_bits(width, &words);
        }
        _ => 0,
    };
    // Inline integers are sign-extended to the operand's width.
    let v = if (193..=208).contains(&src_code) || width > 64 {
        v
    } else {
        v & crate::value::mask64(width)
    };
    Bits::from_u64(width, v)
}

/// The value of a source field (a 9-bit source code, or an 8-bit VGPR field).
pub(super) fn source(w: &WaveState, ii: &Inst<'_>, field: &str, width: u32) -> Src {
    let raw = ii.field(field);
    let op = ii.operand(field);
    let format = op.map(|o| o.format.as_str()).unwrap_or("");
    let bits = op.map(|o| o.bits).unwrap_or(width);
    let vgpr_field = field.starts_with('v') && field != "vdst";
    let src_code = if vgpr_field { raw + 256 } else { raw };
    // A DPP/SDWA source reads `vsrc0` of the extension dword (SDWA: an SGPR with `s0`).
    if field == "src0" {
        if let Some((kind, ext)) = ii.d.ext {
            if kind == crate::wave::sdwa::SDWA && crate::wave::sdwa::source_is_sgpr(ext, 0) {
                return Src::Uniform(scalar_src(w, ii, ext & 0xff, width, format));
            }
            return Src::Vgpr {
                reg: ext & 0xff,
                hi: false,
            };
        }
    }
    if field == "vsrc1" && crate::wave::sdwa::is_sdwa(ii.d.ext) {
        let ext = ii.d.ext.map(|e| e.1).unwrap_or(0);
        if crate::wave::sdwa::source_is_sgpr(ext, 1) {
            return Src::Uniform(scalar_src(w, ii, raw, width, format));
        }
    }
    if src_code >= 256 {
        let mut reg = src_code - 256;
        let mut hi = false;
        if ii.half_by_bit7(bits) && reg >= 128 {
            reg -= 128;
            hi = true;
        }
        return Src::Vgpr { reg, hi };
    }
    Src::Uniform(scalar_src(w, ii, src_code, width, format))
}

pub(super) fn read_vgpr_lanes(w: &WaveState, reg: u32, hi: bool, width: u32, lane: u32) -> Bits {
    if width <= 64 {
        let mut x = w.vgpr(lane, reg) as u64;
        if width > 32 {
            x |= (w.vgpr(lane, reg + 1) as u64) << 32;
        }
        if hi {
            x >>= 16;
        }
        return Bits::from_u64(width, x & crate::value::mask64(width));
    }
    let n = width.div_ceil(32).max(1);
    let words: Vec<u32> = (0..n).map(|i| w.vgpr(lane, reg + i)).collect();
    let mut v = words_bits(width.max(32 * n), &words);
    if hi {
        v = v.lshr(16);
    }
    v.zext(width)
}

pub(super) fn src_mods(ii: &Inst<'_>, k: usize, field: &str, width: u32) -> Mods {
    // The spec lists some VOP3 sources under their VGPR-only name (`vsrc0` for the `src0`
    // field of VOP1-derived and RDNA 4 entries); its format decides whether ABS/NEG apply.
    let operand = ii
        .operand(field)
        .or_else(|| ii.operand(&format!("v{field}")));
    let format = operand.map(|o| o.format.as_str()).unwrap_or("");
    let bits = operand.map(|o| o.bits).unwrap_or(32);
    let mut m = Mods {
        // V_CNDMASK_B32/B16 in VOP3 form take ABS/NEG as sign-bit operations on their
        // untyped sources (the compiler selects fabs/fneg of a select into them).
        float_bits: match ii.d.inst.name.as_str() {
            n if n.starts_with("V_CNDMASK_B32") => 32,
            n if n.starts_with("V_CNDMASK_B16") => 16,
            _ => float_bits(format),
        },
        ..Mods::default()
    };
    // Only float arithmetic flushes: V_CNDMASK's sign-bit modifiers do not make its
    // untyped sources floats.
    m.ftz =
        flushes_denormals(ii) && float_bits(format) != 0 && denorm_flush(ii.mode, m.float_bits).0;
    let reads = |n: &str| super::reads_field(&ii.e.prepared.function, n);
    match ii.family {
        "VOP3" | "VOP3SD" => {
            if !reads("OPSEL") && (bits == 16 || width == 16) {
                m.opsel_hi = ii.field("opsel") >> k & 1 == 1;
            }
            if !reads("ABS") {
                m.abs = ii.field("abs") >> k & 1 == 1;
            }
            if !reads("NEG") {
                m.neg = ii.field("neg") >> k & 1 == 1;
            }
        }
        "VOP3P" => {
            if !reads("OPSEL") && !reads("OPSEL_HI") {
                let opsel_hi = ii.d.inst.field("opsel_hi").unwrap_or(3) as u32
                    | (ii.d.inst.field("opsel_hi2").unwrap_or(1) as u32) << 2;
                let lo = ii.field("opsel") >> k & 1 == 1;
                let hi = opsel_hi >> k & 1 == 1;
                let packed = format.contains("PK2");
                if packed {
                    m.packed = Some((
                        lo,
                        hi,
                        ii.field("neg") >> k & 1 == 1,
                        ii.field("neg_hi") >> k & 1 == 1,
                    ));
                    m.float_bits = float_bits(format);
                } else if !reads("NEG") {
                    m.neg = ii.field("neg") >> k & 1 == 1;
                    m.abs = ii.field("neg_hi") >> k & 1 == 1;
                }
            }
        }
        _ => {
            if let Some((kind, w)) = ii.d.ext {
                if k <= 1 && (kind == 250) {
                    m.neg = w >> (20 + 2 * k) & 1 == 1;
                    m.abs = w >> (21 + 2 * k) & 1 == 1;
                }
                if k <= 1 && kind == crate::wave::sdwa::SDWA && m.float_bits > 0 {
                    m.neg = w >> (20 + 8 * k) & 1 == 1;
                    m.abs = w >> (21 + 8 * k) & 1 == 1;
                }
            }
        }
    }
    m
}

/// The per-lane value of a source with its modifiers.
pub(super) fn bind_source(
    w: &WaveState,
    ii: &Inst<'_>,
    k: usize,
    field: &str,
    width: u32,
) -> RegValue {
    let mods = src_mods(ii, k, field, width);
    // A high-half select reads the whole register, then narrows; so does an SDWA select of
    // a 16-bit operand (`v_sub_u16_sdwa ... src0_sel:WORD_1` reads the high word).
    let sdwa_source = k <= 1 && crate::wave::sdwa::is_sdwa(ii.d.ext);
    let (narrow, width) = if (mods.opsel_hi || sdwa_source) && width < 32 {
        (Some(width), 32)
    } else {
        (None, width)
    };
    let fit = |b: Bits| match narrow {
        Some(n) => b.zext(n),
        None => b,
    };
    let src = source(w, ii, field, width);
    // SDWA selects a byte or word of a 32-bit source before its modifiers.
    let sdwa = match ii.d.ext {
        Some((crate::wave::sdwa::SDWA, ext)) if k <= 1 && width == 32 => Some(ext),
        _ => None,
    };
    // The select comes first and narrows to the operand before the modifiers (which read
    // the operand's own width); a high-half select is one of the modifiers.
    let value = |b: Bits| match sdwa {
        Some(ext) => {
            let x = crate::wave::sdwa::select_source(ext, k, b.low_u64() as u32) as u64;
            apply_mods(fit(Bits::from_u64(32, x)), &mods)
        }
        None => fit(apply_mods(b, &mods)),
    };
    match src {
        Src::Uniform(b) => RegValue::Uniform(value(b)),
        Src::Vgpr { reg, hi } => {
            let dpp = match ii.d.ext {
                Some(ext) if field == "src0" && ext.0 != crate::wave::sdwa::SDWA => Some(ext),
                _ => None,
            };
            let bc = dpp.is_some_and(crate::wave::dpp::bound_ctrl);
            let gfx9 = w.arch == crate::spec::Arch::Cdna;
            RegValue::Lanes(
                (0..w.wave_size)
                    .map(|lane| {
                        let v = match dpp {
                            Some(ext) => {
                                match crate::wave::dpp::source_lane(
                                    ext,
                                    lane,
                                    w.wave_size,
                                    ii.src_exec,
                                    gfx9,
                                ) {
                                    Some(l) => read_vgpr_lanes(w, reg, hi, width, l),
                                    None if bc => Bits::zero(width),
                                    // Without bound_ctrl the lane is not written (`dpp::write_mask`).
                                    None => read_vgpr_lanes(w, reg, hi, width, lane),
                                }
                            }
                            None => read_vgpr_lanes(w, reg, hi, width, lane),
                        };
                        value(v)
                    })
                    .collect(),
            )
        }
    }
}

/// The value the wave state gives function register `name`, or `None` for a register the
/// encoding does not supply (it then takes its default). `vgprs` receives the VGPRs that
/// operand numbers (`SRC0`, `VDST`, ...) address, for entries reading the register file.
pub(super) fn bind_named(
    w: &WaveState,
    ii: &Inst<'_>,
    dst: Dest,
    name: &str,
    width: u32,
    vgprs: Option<&mut std::collections::HashMap<(u32, u32), u32>>,
) -> Option<RegValue> {
    let d = ii.d;
    match super::inst_field_name(name) {
        "S0" | "S1" | "S2" => {
            let k = (name.as_bytes()[1] - b'0') as usize;
            match ii.src_field(k) {
                Some(field) if ii.has_field(field) => Some(bind_source(w, ii, k, field, width)),
                // SOPK texts name the 16-bit immediate S1 when S0 is the SGPR `sdst` names
                // (CDNA's S_CMPK_*: `S0.i32 == signext(S1.i16)`), and S0 when the SGPR is
                // D0 (RDNA 4's and CDNA's S_MOVK/S_ADDK/S_MULK: `D0 + signext(S0.i16)`).
                _ if ii.family == "SOPK"
                    && (k == 1 || k == 0 && ii.e.prepared.function.reg("D0").is_some()) =>
                {
                    Some(uni(width, (ii.field("simm16") & 0xffff) as u64))
                }
                _ if ii.family == "SOPK" && k == 0 => Some(RegValue::Uniform(scalar_src(
                    w,
                    ii,
                    ii.field("sdst"),
                    width,
                    "",
                ))),
                _ => None,
            }
        }
        "D0" => match dst {
            Dest::Vgpr { reg, hi } => Some(RegValue::Lanes(
                (0..w.wave_size)
                    .map(|lane| read_vgpr_lanes(w, reg, hi, width, lane))
                    .collect(),
            )),
            Dest::Sgpr(c) => Some(RegValue::Uniform(scalar_src(w, ii, c, width, ""))),
            _ => None,
        },
        "SCC" => Some(uni(width, w.scc as u64)),
        "VCC" => {
            // VOP3 forms read the lane mask VOP2 takes from VCC from `src2`.
            let src2_mask = ii.is_vop3()
                && ii
                    .operand("src2")
                    .is_some_and(|o| is_mask_format(&o.format));
            if src2_mask {
                let c = ii.field("src2");
                Some(uni(width, w.sgpr_pair(c)))
            } else {
                Some(uni(width, w.vcc()))
            }
        }
        "EXEC" => Some(uni(width, w.sgpr_pair(code::EXEC_LO))),
        "EXEC_LO" => Some(uni(width, w.read_sgpr(code::EXEC_LO) as u64)),
        "EXEC_HI" => Some(uni(width, w.read_sgpr(code::EXEC_HI) as u64)),
        "VCC_LO" => Some(uni(width, w.read_sgpr(code::VCC_LO) as u64)),
        "VCC_HI" => Some(uni(width, w.read_sgpr(code::VCC_HI) as u64)),
        "VCCZ" => Some(uni(width, (w.vcc() & w.full_mask() == 0) as u64)),
        "EXECZ" => Some(uni(width, (w.exec() == 0) as u64)),
        "M0" => Some(uni(width, w.m0() as u64)),
        "PC" => Some(uni(width, d.addr)),
        "SIMM16" => Some(uni(width, ii.field("simm16") as u64)),
        "SIMM32" => Some(uni(width, d.inst.literal.unwrap_or(0) as u64)),
        "SRC0" | "SRC1" | "SRC2" | "VDST" | "DST" | "SDST" => {
            let field = match name {
                "VDST" | "DST" => "vdst",
                "SDST" => "sdst",
                "SRC0" => ii.src_field(0).unwrap_or("src0"),
                "SRC1" => ii.src_field(1).unwrap_or("src1"),
                _ => ii.src_field(2).unwrap_or("src2"),
            };
            let raw = ii.field(field);
            let is_vgpr = if field == "vdst" {
                ii.operand("vdst").is_some_and(|o| o.kind.contains("VGPR"))
            } else {
                field.starts_with('v') || raw >= 256
            };
            let num = if field.starts_with('v') || field == "vdst" {
                raw
            } else if raw >= 256 {
                raw - 256
            } else {
                raw
            };
            if let (Some(vgprs), true) = (vgprs, is_vgpr) {
                // Entries addressing relative to M0 (v_movrel*, v_swaprel_b32) may reach any
                // register; the others read at most eight from the operand's number.
                let regs = if ii.e.prepared.function.reg("M0").is_some() {
                    0..crate::wave::state::N_VGPRS as u32
                } else {
                    num..num + 8
                };
                for lane in 0..w.wave_size {
                    for r in regs.clone() {
                        vgprs.insert((lane, r), w.vgpr(lane, r));
                    }
                }
            }
            Some(uni(width, num as u64))
        }
        "OPSEL" => Some(uni(width, ii.field("opsel") as u64)),
        "OPSEL_HI" => Some(uni(
            width,
            (ii.d.inst.field("opsel_hi").unwrap_or(3) as u32
                | (ii.d.inst.field("opsel_hi2").unwrap_or(1) as u32) << 2) as u64,
        )),
        "NEG" => Some(uni(width, ii.field("neg") as u64)),
        "NEG_HI" => Some(uni(width, ii.field("neg_hi") as u64)),
        "ABS" => Some(uni(width, ii.field("abs") as u64)),
        "OMOD" => Some(uni(width, ii.field("omod") as u64)),
        "CLAMP" => Some(uni(width, ii.field("clmp") as u64)),
        n if n.starts_with("TTMP") => n[4..]
            .parse::<u32>()
            .ok()
            .map(|t| uni(width, w.read_sgpr(code::TTMP0 + t) as u64)),
        _ => None,
    }
}

/// The value of a register the encoding does not supply (as `exec::Machine` defaults it).
pub(super) fn default_value(w: &WaveState, name: &str, width: u32) -> Bits {
    let v = match name {
        "EXEC" => w.exec(),
        "EXEC_LO" => w.exec() & 0xffff_ffff,
        "EXEC_HI" => w.exec() >> 32,
        "WAVE32" | "wave32" => (w.wave_size == 32) as u64,
        "WAVE64" | "wave64" => (w.wave_size == 64) as u64,
        // MODE.IEEE; RDNA 4 has no IEEE mode bit, and its texts' IEEE branch is the one its
        // hardware follows.
        "WAVE_MODE.IEEE" => (w.arch == Arch::Rdna4 || w.ieee()) as u64,
        // The f32 rounding mode (MODE bits 1:0; the pseudocode's ROUND_* constants match).
        "ROUND_MODE" => (w.mode & 3) as u64,
        "EXECZ" => (w.exec() == 0) as u64,
        "VCCZ" => (w.vcc() & w.full_mask() == 0) as u64,
        _ => 0,
    };
    Bits::from_u64(width, v)
}

/// Adapts a bound value to the register's shape: a uniform value fills every lane of a
/// per-lane register, a per-lane value bound to a scalar register takes lane 0.
pub(super) fn fit_value(v: RegValue, per_lane: bool, width: u32, lanes: u32) -> RegValue {
    let fit = |b: Bits| if b.width() == width { b } else { b.zext(width) };
    match (v, per_lane) {
        (RegValue::Uniform(b), false) => RegValue::Uniform(fit(b)),
        (RegValue::Uniform(b), true) => RegValue::Lanes(vec![fit(b); lanes as usize]),
        (RegValue::Lanes(l), false) => RegValue::Uniform(
            l.into_iter()
                .next()
                .map(fit)
                .unwrap_or_else(|| Bits::zero(width)),
        ),
        (RegValue::Lanes(mut l), true) => {
            l.resize(lanes as usize, Bits::zero(width));
            RegValue::Lanes(l.into_iter().map(fit).collect())
        }
    }
}
