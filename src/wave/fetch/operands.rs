//! Source operands: scalar codes, inline constants, the literal, VGPR rows with their
//! modifiers (DPP and SDWA selects included), and the registers a text reads by name.

use crate::interp::RegValue;
use crate::machine::ElemType;
use crate::value::Bits;

pub(super) use super::domain::read_vgpr_lanes;
use super::domain::{Domain, Shape, Wave};
use super::{uni, Inst, Src};
use crate::wave::decode::{self, src_mods, Default, Dest, Facts, Named, Scalar};
use crate::wave::sdwa;
use crate::wave::state::{code, WaveState};

/// The value of a scalar source code (SGPRs, constants, the literal, SCC, VCCZ, EXECZ).
pub(crate) fn scalar_src<D: Domain>(
    dom: &mut D,
    ii: &impl Facts,
    src_code: u32,
    width: u32,
    format: &str,
) -> D::Val {
    match decode::scalar(ii, src_code, width, format) {
        Scalar::Value(v) => D::constant(v),
        Scalar::Sgpr(c) => dom.read_sgprs(c, width),
        Scalar::Vccz => D::zext(vccz(dom), width),
        Scalar::Execz => D::zext(execz(dom), width),
        Scalar::Scc => {
            let scc = dom.scc();
            D::zext(scc, width)
        }
    }
}

/// EXEC, masked to the wave's lanes (64 bits).
pub(crate) fn exec<D: Domain>(dom: &mut D) -> D::Val {
    let full = full_mask::<D>(dom.wave_size());
    let pair = dom.read_sgprs(code::EXEC_LO, 64);
    D::and(&pair, &full)
}

fn full_mask<D: Domain>(wave_size: u32) -> D::Val {
    D::constant(Bits::from_u64(64, crate::value::mask64(wave_size)))
}

/// `VCCZ` (one bit): no lane of the wave has its VCC bit set.
pub(crate) fn vccz<D: Domain>(dom: &mut D) -> D::Val {
    let full = full_mask::<D>(dom.wave_size());
    let vcc = dom.read_sgprs(code::VCC_LO, 64);
    D::is_zero(&D::and(&vcc, &full))
}

/// `EXECZ` (one bit).
pub(crate) fn execz<D: Domain>(dom: &mut D) -> D::Val {
    D::is_zero(&exec(dom))
}

/// Where a source field's value comes from (a 9-bit source code, or an 8-bit VGPR field).
pub(crate) fn source<D: Domain>(
    dom: &mut D,
    ii: &impl Facts,
    field: &str,
    width: u32,
) -> Src<D::Val> {
    let raw = ii.field(field);
    let op = ii.operand(field);
    let format = op.map(|o| o.format.as_str()).unwrap_or("");
    let bits = op.map(|o| o.bits).unwrap_or(width);
    let vgpr_field = field.starts_with('v') && field != "vdst";
    let src_code = if vgpr_field { raw + 256 } else { raw };
    let ext = ii.decoded().ext;
    // A DPP/SDWA source reads `vsrc0` of the extension dword (SDWA: an SGPR with `s0`).
    if field == "src0" {
        if let Some((kind, ext)) = ext {
            if kind == sdwa::SDWA && sdwa::source_is_sgpr(ext, 0) {
                return Src::Uniform(scalar_src(dom, ii, ext & 0xff, width, format));
            }
            return Src::Vgpr {
                reg: ext & 0xff,
                hi: false,
            };
        }
    }
    if field == "vsrc1" && sdwa::is_sdwa(ext) {
        let ext = ext.map(|e| e.1).unwrap_or(0);
        if sdwa::source_is_sgpr(ext, 1) {
            return Src::Uniform(scalar_src(dom, ii, raw, width, format));
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
    Src::Uniform(scalar_src(dom, ii, src_code, width, format))
}

/// The per-lane value of source `k` (encoding field `field`) with its modifiers.
pub(crate) fn bind_source<D: Domain>(
    dom: &mut D,
    ii: &impl Facts,
    k: usize,
    field: &str,
    width: u32,
) -> Shape<D::Val> {
    let mods = src_mods(ii, k, field, width);
    let ext = ii.decoded().ext;
    // A high-half select reads the whole register, then narrows; so does an SDWA select of
    // a 16-bit operand (`v_sub_u16_sdwa ... src0_sel:WORD_1` reads the high word).
    let sdwa_source = k <= 1 && sdwa::is_sdwa(ext);
    let (narrow, width) = if (mods.opsel_hi || sdwa_source) && width < 32 {
        (Some(width), 32)
    } else {
        (None, width)
    };
    let fit = |v: D::Val| match narrow {
        Some(n) => D::zext(v, n),
        None => v,
    };
    let src = source(dom, ii, field, width);
    // SDWA selects a byte or word of a 32-bit source before its modifiers.
    let sdwa_ext = match ext {
        Some((sdwa::SDWA, ext)) if k <= 1 && width == 32 => Some(ext),
        _ => None,
    };
    // The select comes first and narrows to the operand before the modifiers (which read
    // the operand's own width); a high-half select is one of the modifiers.
    let value = |dom: &mut D, v: D::Val| match sdwa_ext {
        Some(ext) => {
            let x = dom.sdwa_select(ext, k, v);
            D::apply_mods(fit(x), &mods)
        }
        None => fit(D::apply_mods(v, &mods)),
    };
    match src {
        Src::Uniform(v) => Shape::Uniform(value(dom, v)),
        Src::Vgpr { reg, hi } => {
            let dpp = match ext {
                Some(ext) if field == "src0" && ext.0 != sdwa::SDWA => Some(ext),
                _ => None,
            };
            let bc = dpp.is_some_and(crate::wave::dpp::bound_ctrl);
            let lanes = (0..dom.wave_size())
                .map(|lane| {
                    let v = match dpp {
                        Some(ext) => match dom.dpp_source_lane(ext, lane) {
                            Some(l) => dom.read_vgpr(l, reg, hi, width),
                            None if bc => D::constant(Bits::zero(width)),
                            // Without bound_ctrl the lane is not written (`dpp::write_mask`).
                            None => dom.read_vgpr(lane, reg, hi, width),
                        },
                        None => dom.read_vgpr(lane, reg, hi, width),
                    };
                    value(dom, v)
                })
                .collect();
            Shape::Lanes(lanes)
        }
    }
}

/// The value the registers give function register `name`, or `None` for a register the
/// encoding does not supply (it then takes its default, [`default_value`]). An operand
/// number naming VGPRs binds as the number; the executor gives the text the register file.
pub(crate) fn bind_operand<D: Domain>(
    dom: &mut D,
    ii: &impl Facts,
    named: Named,
    width: u32,
) -> Shape<D::Val> {
    let uni = |v: u64| Shape::Uniform(D::constant(Bits::from_u64(width, v)));
    match named {
        Named::Source(k, field) => bind_source(dom, ii, k, field, width),
        Named::Scalar(c) => Shape::Uniform(scalar_src(dom, ii, c, width, "")),
        Named::Value(v) => uni(v),
        Named::VgprNumber(num) => uni(num as u64),
        Named::VgprD0 { reg, hi } => Shape::Lanes(
            (0..dom.wave_size())
                .map(|lane| dom.read_vgpr(lane, reg, hi, width))
                .collect(),
        ),
        Named::Scc => {
            let scc = dom.scc();
            Shape::Uniform(D::zext(scc, width))
        }
        Named::Pair(c) => Shape::Uniform(D::zext(dom.read_sgprs(c, 64), width)),
        Named::Sgpr(c) => {
            let v = dom.sgpr(c);
            Shape::Uniform(D::zext(v, width))
        }
        Named::Vccz => Shape::Uniform(D::zext(vccz(dom), width)),
        Named::Execz => Shape::Uniform(D::zext(execz(dom), width)),
    }
}

/// The value of a register the encoding does not supply (as `exec::Machine` defaults it).
pub(crate) fn default_value<D: Domain>(dom: &mut D, mode: u32, name: &str, width: u32) -> D::Val {
    let v = match decode::default_named(dom.arch(), dom.wave_size(), mode, name) {
        Default::Exec => exec(dom),
        Default::ExecLo => D::extract(&exec(dom), 0, 32),
        Default::ExecHi => D::extract(&exec(dom), 32, 32),
        Default::Execz => execz(dom),
        Default::Vccz => vccz(dom),
        Default::Value(v) => D::constant(Bits::from_u64(64, v)),
    };
    D::zext(v, width)
}

/// Adapts a bound value to the register's shape: a uniform value fills every lane of a
/// per-lane register, a per-lane value bound to a scalar register takes lane 0.
pub(crate) fn fit<D: Domain>(
    v: Shape<D::Val>,
    per_lane: bool,
    width: u32,
    lanes: u32,
) -> Shape<D::Val> {
    let fit = |b: D::Val| D::zext(b, width);
    match (v, per_lane) {
        (Shape::Uniform(b), false) => Shape::Uniform(fit(b)),
        (Shape::Uniform(b), true) => Shape::Lanes(vec![fit(b); lanes as usize]),
        (Shape::Lanes(l), false) => Shape::Uniform(
            l.into_iter()
                .next()
                .map(fit)
                .unwrap_or_else(|| D::constant(Bits::zero(width))),
        ),
        (Shape::Lanes(mut l), true) => {
            l.truncate(lanes as usize);
            let mut l: Vec<D::Val> = l.into_iter().map(fit).collect();
            l.resize(lanes as usize, D::constant(Bits::zero(width)));
            Shape::Lanes(l)
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
    let scalar_src = |w: &WaveState, ii: &Inst<'_>, code: u32, width: u32, format: &str| {
        scalar_src(&mut wave(w, ii), ii, code, width, format)
    };
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
        let v = scalar_src(&mut wave(w, ii), ii, *code as u32, 32, "").low_u64() as u32;
        for lane in 0..w.wave_size {
            map.insert((lane, reg), v);
        }
        return Some(uni(width, reg as u64));
    }
    if let (Named::VgprNumber(num), Some(vgprs)) = (&named, vgprs) {
        // Entries addressing relative to M0 (v_movrel*, v_swaprel_b32) may reach any
        // register; the others read at most eight from the operand's number.
        let regs = if ii.e.prepared.function.reg("M0").is_some() {
            0..crate::wave::state::N_VGPRS as u32
        } else {
            *num..num + 8
        };
        for lane in 0..w.wave_size {
            for r in regs.clone() {
                vgprs.insert((lane, r), w.vgpr(lane, r));
            }
        }
    }
    Some(reg_value(bind_operand(&mut wave(w, ii), ii, named, width)))
}

/// The concrete domain reading `w` for instruction `ii`.
#[inline]
pub(super) fn wave<'w>(w: &'w WaveState, ii: &Inst<'_>) -> Wave<&'w WaveState> {
    Wave {
        w,
        src_exec: ii.src_exec,
    }
}

/// A bound value as the interpreter holds it.
#[inline]
pub(super) fn reg_value(v: Shape<Bits>) -> RegValue {
    match v {
        Shape::Uniform(b) => RegValue::Uniform(b),
        Shape::Lanes(l) => RegValue::Lanes(l),
    }
}

/// The value of a register the encoding does not supply, from the wave state.
pub(super) fn wave_default(w: &WaveState, name: &str, width: u32) -> Bits {
    let mut dom = Wave {
        w,
        src_exec: w.exec(),
    };
    default_value(&mut dom, w.mode, name, width)
}

/// Adapts a bound value to the register's shape ([`fit`] over the wave state's values).
#[inline]
pub(super) fn fit_value(v: RegValue, per_lane: bool, width: u32, lanes: u32) -> RegValue {
    let v = match v {
        RegValue::Uniform(b) => Shape::Uniform(b),
        RegValue::Lanes(l) => Shape::Lanes(l),
    };
    reg_value(fit::<Wave<&WaveState>>(v, per_lane, width, lanes))
}
