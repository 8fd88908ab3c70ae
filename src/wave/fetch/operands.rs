//! Source operands: scalar codes, inline constants, the literal, VGPR rows with their
//! modifiers (DPP and SDWA selects included), and the registers a text reads by name.

use crate::interp::RegValue;
use crate::machine::ElemType;
use crate::value::Bits;

use super::mods::apply_mods;
use super::{uni, words_bits, Inst, Src};
use crate::wave::decode::{self, src_mods, Default, Dest, Facts, Named, Scalar};
use crate::wave::state::{dword_code, WaveState};

pub(super) fn scalar_src(
    w: &WaveState,
    ii: &Inst<'_>,
    src_code: u32,
    width: u32,
    format: &str,
) -> Bits {
    let bit = |b: bool| Bits::from_u64(width, b as u64);
    match decode::scalar(ii, src_code, width, format) {
        Scalar::Value(v) => v,
        Scalar::Sgpr(c) => {
            let n = width.div_ceil(32).max(1);
            let words: Vec<u32> = (0..n)
                .map(|i| w.read_sgpr(dword_code(w.arch, c, i)))
                .collect();
            words_bits(width, &words)
        }
        Scalar::Vccz => bit(w.vcc() & w.full_mask() == 0),
        Scalar::Execz => bit(w.exec() == 0),
        Scalar::Scc => bit(w.scc),
    }
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
            let gfx9 = w.arch.is_gfx9();
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

/// The register number `SRC2` names for a matrix instruction's inline-constant accumulator:
/// the virtual registers a standalone instruction's `SRC2` gets (`exec::bind_inputs`), past
/// every register file, so no operand's real registers share them.
const MATRIX_CONSTANT_C: u32 = crate::exec::VIRTUAL_VGPR_BASE + 2 * crate::exec::VIRTUAL_VGPR_SPAN;

/// The register numbers `SCALE_SRC0` / `SCALE_SRC1` of a scaled MFMA name when the scale is a
/// scalar source (SGPR or inline constant): past the 32 of [`MATRIX_CONSTANT_C`], in the same
/// virtual span, each holding the value in every lane.
const MATRIX_SCALE: [u32; 2] = [MATRIX_CONSTANT_C + 32, MATRIX_CONSTANT_C + 33];

/// The 32 VGPR words that hold every element of a matrix instruction's C when `SRC2` is the
/// inline constant or literal `code` (gfx12 WMMA and CDNA MFMA accept one): the constant in
/// C's element type (from the name: `V_WMMA_F16_...` has f16 C), packed as the C registers
/// hold elements (two 16-bit ones per word, a 64-bit one over two words). `None` for other
/// instructions (`V_SWMMAC_*`/`V_SMFMAC_*` use `SRC2` for sparsity indices) or register codes.
fn matrix_constant_c(w: &WaveState, ii: &Inst<'_>, code: u32) -> Option<Vec<u32>> {
    let ty = ii.d.facts.matrix_c?;
    let (bits, format) = (ty.bits(), ty.format());
    if code < 128 {
        return None;
    }
    let words: Vec<u32> = if bits == 16 {
        let c = scalar_src(w, ii, code, 32, "FMT_NUM_F32").low_u64() as u32;
        let h = if ty == ElemType::Bf16 && (240..=248).contains(&code) {
            // bf16 takes the top half of the f32 constant (exact but for 1/(2*pi)).
            c >> 16
        } else {
            scalar_src(w, ii, code, 16, format).low_u64() as u32 & 0xffff
        };
        vec![h | h << 16; 32]
    } else if bits == 64 {
        let c = scalar_src(w, ii, code, 64, format).low_u64();
        (0..32)
            .map(|r| {
                if r % 2 == 0 {
                    c as u32
                } else {
                    (c >> 32) as u32
                }
            })
            .collect()
    } else {
        vec![scalar_src(w, ii, code, 32, format).low_u64() as u32; 32]
    };
    Some(words)
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
    let named = decode::named(ii, dst, name)?;
    let mut vgprs = vgprs;
    // A matrix instruction's accumulator given as an inline constant: the text reads C from
    // the VGPRs at `SRC2`, so `SRC2` names registers outside the file that hold the constant.
    if let (Named::Value(code), "SRC2", Some(map)) = (&named, name, vgprs.as_deref_mut()) {
        if let Some(regs) = matrix_constant_c(w, ii, *code as u32) {
            for lane in 0..w.wave_size {
                for (r, &v) in (MATRIX_CONSTANT_C..).zip(&regs) {
                    map.insert((lane, r), v);
                }
            }
            return Some(uni(width, MATRIX_CONSTANT_C as u64));
        }
    }
    // A scaled MFMA's scale from an SGPR or inline constant: the text reads the scale bytes
    // from the VGPRs at `SCALE_SRC0/1`, so it names registers outside the file that hold it.
    if let (Named::Value(code), "SCALE_SRC0" | "SCALE_SRC1", Some(map)) =
        (&named, name, vgprs.as_deref_mut())
    {
        let reg = MATRIX_SCALE[usize::from(name.ends_with('1'))];
        let v = scalar_src(w, ii, *code as u32, 32, "").low_u64() as u32;
        for lane in 0..w.wave_size {
            map.insert((lane, reg), v);
        }
        return Some(uni(width, reg as u64));
    }
    Some(match named {
        Named::Source(k, field) => bind_source(w, ii, k, field, width),
        Named::Scalar(c) => RegValue::Uniform(scalar_src(w, ii, c, width, "")),
        Named::Value(v) => uni(width, v),
        Named::VgprD0 { reg, hi } => RegValue::Lanes(
            (0..w.wave_size)
                .map(|lane| read_vgpr_lanes(w, reg, hi, width, lane))
                .collect(),
        ),
        Named::Scc => uni(width, w.scc as u64),
        Named::Pair(c) => uni(width, w.sgpr_pair(c)),
        Named::Sgpr(c) => uni(width, w.read_sgpr(c) as u64),
        Named::Vccz => uni(width, (w.vcc() & w.full_mask() == 0) as u64),
        Named::Execz => uni(width, (w.exec() == 0) as u64),
        Named::VgprNumber(num) => {
            if let Some(vgprs) = vgprs {
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
            uni(width, num as u64)
        }
    })
}

/// The value of a register the encoding does not supply (as `exec::Machine` defaults it).
pub(super) fn default_value(w: &WaveState, name: &str, width: u32) -> Bits {
    let v = match decode::default_named(w.arch, w.wave_size, w.mode, name) {
        Default::Exec => w.exec(),
        Default::ExecLo => w.exec() & 0xffff_ffff,
        Default::ExecHi => w.exec() >> 32,
        Default::Execz => (w.exec() == 0) as u64,
        Default::Vccz => (w.vcc() & w.full_mask() == 0) as u64,
        Default::Value(v) => v,
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
