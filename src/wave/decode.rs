//! What an instruction's encoding says about its operands, before any register is read:
//! which field holds each source and how it is modified, where `D0` goes, how results are
//! modified, and what each register the text names stands for.
//!
//! Both executors of a wave read operands through this module: the concrete one
//! (`wave::fetch`, values in a [`WaveState`](super::WaveState)) and the symbolic one
//! (`smt::wave`, terms). Each supplies the facts of one decoded instruction ([`Facts`]) and
//! reads the locations decoded here from its own register files, so the two cannot
//! disagree about where an operand comes from.

use crate::machine::InstFacts;
use crate::spec::{Arch, Instruction, Operand, Wheel};
use crate::value::Bits;

use super::state::{code, mode};
use super::Decoded;

/// The facts of one decoded instruction that decide how its operands are read.
pub(crate) trait Facts {
    /// The decoded instruction (fields, literal, DPP/SDWA extension, address).
    fn decoded(&self) -> &Decoded;
    /// The database entry it runs (operand table, name).
    fn entry_inst(&self) -> &Instruction;
    /// The entry's text, as the engines run it (which registers it reads).
    fn text(&self) -> &crate::ir::Function;
    /// The wave's MODE register.
    fn mode(&self) -> u32;
    /// The arch.
    fn arch(&self) -> Arch;

    /// The encoding family (`VOP3`, `SOP2`, ...).
    fn family(&self) -> &str {
        &self.decoded().inst.family
    }

    /// An encoding field (0 when the encoding has none).
    fn field(&self, name: &str) -> u32 {
        self.decoded().inst.field(name).unwrap_or(0) as u32
    }

    fn has_field(&self, name: &str) -> bool {
        self.decoded().inst.field(name).is_some()
    }

    /// The operand table's entry of an encoding field. The VOP3 forms of VOP1 entries list
    /// their `src0` as `vsrc0` (AMD's XML), though the field takes any source.
    fn operand(&self, field: &str) -> Option<&Operand> {
        let ops = &self.entry_inst().operands;
        ops.iter().find(|o| o.field == field).or_else(|| {
            let alt = match field {
                "src0" => "vsrc0",
                "src1" => "vsrc1",
                "src2" => "vsrc2",
                _ => return None,
            };
            ops.iter().find(|o| o.field == alt)
        })
    }

    fn is_vop3(&self) -> bool {
        matches!(self.family(), "VOP3" | "VOP3SD" | "VOP3P")
    }

    /// The encoding field of pseudocode source `k` (0, 1, 2).
    fn src_field(&self, k: usize) -> Option<&'static str> {
        let f: &[&'static str] = match self.family() {
            "SOP1" => &["ssrc0"],
            "SOP2" | "SOPC" => &["ssrc0", "ssrc1"],
            "VOP1" => &["src0"],
            "VOP2" | "VOPC" => &["src0", "vsrc1"],
            "VOP3" | "VOP3SD" | "VOP3P" | "VOP3PX2" | "VINTERP" => &["src0", "src1", "src2"],
            _ => &[],
        };
        f.get(k).copied()
    }

    /// Whether 16-bit VGPR operands of this encoding address halves with bit 7 (RDNA true16
    /// VOP1/VOP2/VOPC).
    fn half_by_bit7(&self, bits: u32) -> bool {
        bits == 16 && !self.arch().is_gfx9() && matches!(self.family(), "VOP1" | "VOP2" | "VOPC")
    }

    /// Whether the text reads the instruction field `name` (as `NAME` or `INST.NAME`); such
    /// a field is data for the text, not a source or output modifier.
    fn reads(&self, name: &str) -> bool {
        reads_field(self.text(), name)
    }
}

/// Whether the text of `f` reads the instruction field `name` (as `NAME` or `INST.NAME`).
pub(crate) fn reads_field(f: &crate::ir::Function, name: &str) -> bool {
    f.reg(name).is_some() || f.reg(&format!("INST.{name}")).is_some()
}

/// The float width of an operand format's elements (16, 32, 64; 0 for integers, raw bits and
/// the 4/6/8-bit minifloats, which take no MODE flush and no ABS/NEG: `FMT_NUM_FP8` is
/// bytes, not an f32). The element type is the format's last part (`FMT_NUM_PK2_F16`,
/// `FMT_WMMA_DC_16X16_F32`).
pub(crate) fn float_bits(format: &str) -> u32 {
    match format.rsplit('_').next().unwrap_or("") {
        "F16" | "BF16" => 16,
        "F32" => 32,
        "F64" => 64,
        _ => 0,
    }
}

/// Whether an operand format is a lane mask.
pub(crate) fn is_mask_format(format: &str) -> bool {
    format.contains("_M64") || format.contains("_M32")
}

/// Whether operand `op` of instruction `name` is a lane mask: the `_M64`/`_M32` formats
/// (VOPC and VOP3SD carries, `v_cndmask`'s select, compare destinations), and CDNA's VOP3
/// compare destinations (`v_cmp*_e64`), which its table types as plain 64-bit numbers
/// (`FMT_NUM_B64`; RDNA's says `FMT_NUM_M64`): bits of lanes inactive at issue are written
/// as zeros.
pub(crate) fn is_lane_mask(arch: Arch, facts: &InstFacts, op: &Operand) -> bool {
    is_mask_format(&op.format)
        || arch.is_gfx9() && op.field == "vdst" && op.kind == "OPR_SREG" && facts.compare
}

/// Whether an instruction is float arithmetic whose inputs and results MODE's denormal
/// control flushes: not class tests (they report denormals) and not VOP3P (packed and mixed
/// sources are not one float of the operand's width).
pub(crate) fn flushes_denormals(f: &impl Facts) -> bool {
    f.family() != "VOP3P" && !f.decoded().facts.class_test
}

/// MODE `FP_DENORM` for floats of `fbits`: (flush inputs, flush outputs).
pub(crate) fn denorm_flush(mode: u32, fbits: u32) -> (bool, bool) {
    let d = match fbits {
        32 => mode >> 4 & 3,
        16 | 64 => mode >> 6 & 3,
        _ => return (false, false),
    };
    (d & 1 == 0, d & 2 == 0)
}

/// Where `D0` goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dest {
    /// VGPRs from `reg` (per lane); `hi` writes the upper 16-bit half.
    Vgpr { reg: u32, hi: bool },
    /// SGPRs from this code (one value for the wave).
    Sgpr(u32),
    /// A lane mask to SGPRs from this code.
    Mask(u32),
    /// Nowhere (VOP3 V_CMPX writes EXEC itself).
    None,
}

/// Where `D0` (of `width` bits) goes, by encoding and destination operand.
pub(crate) fn dest(f: &impl Facts, width: u32) -> Dest {
    match f.family() {
        "SOP1" | "SOP2" | "SOPK" => Dest::Sgpr(f.field("sdst")),
        "VOPC" => match f.decoded().ext {
            Some((super::sdwa::SDWA, ext)) => {
                Dest::Mask(super::sdwa::vopc_sdst(ext).unwrap_or(code::VCC_LO))
            }
            _ => Dest::Mask(code::VCC_LO),
        },
        "VOP1" | "VOP2" | "VOP3" | "VOP3SD" | "VOP3P" | "VINTERP" => {
            let op = f.operand("vdst");
            let kind = op.map(|o| o.kind.as_str()).unwrap_or("OPR_VGPR");
            let raw = f.field("vdst");
            if kind == "OPR_EXEC" {
                Dest::None
            } else if op.is_none() || f.decoded().facts.vdst_vgpr {
                let bits = op.map(|o| o.bits).unwrap_or(width);
                if f.half_by_bit7(bits) && raw >= 128 {
                    Dest::Vgpr {
                        reg: raw - 128,
                        hi: true,
                    }
                } else {
                    let hi = f.is_vop3()
                        && bits == 16
                        && f.family() != "VOP3P"
                        && f.field("opsel") >> 3 & 1 == 1
                        // The MIXHI forms write their 16-bit result to the high half (see
                        // their errata).
                        || f.family() == "VOP3P" && f.decoded().facts.mixhi;
                    Dest::Vgpr { reg: raw, hi }
                }
            } else if op.is_some_and(|o| is_lane_mask(f.arch(), &f.decoded().facts, o)) {
                Dest::Mask(raw)
            } else {
                Dest::Sgpr(raw)
            }
        }
        _ => Dest::None,
    }
}

/// What a scalar source code (below 256) reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    /// A constant: an inline integer or float, the literal, an aperture.
    Value(Bits),
    /// SGPRs from this code, as many 32-bit words as the width needs, zero-extended.
    Sgpr(u32),
    /// `vccz`: VCC (within the wave) is zero.
    Vccz,
    /// `execz`: EXEC is zero.
    Execz,
    /// `src_scc`.
    Scc,
}

/// Decodes scalar source `src_code` read as `width` bits of an operand of `format`.
pub(crate) fn scalar(f: &impl Facts, src_code: u32, width: u32, format: &str) -> Scalar {
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
            use super::state::{PRIVATE_APERTURE, SHARED_APERTURE};
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
        // gfx1250's `src_flat_scratch_base_lo/hi`: a 64-bit read of `_lo` gives the base.
        230 | 231 if f.arch() == crate::spec::Arch::Cdna5 => {
            let base = super::state::FLAT_SCRATCH_BASE;
            match (src_code, width >= 64) {
                (230, true) => base,
                (230, false) => base & 0xffff_ffff,
                _ => base >> 32,
            }
        }
        // gfx1250's 64-bit literal (two dwords after the instruction).
        254 if f.arch() == crate::spec::Arch::Cdna5 => f.decoded().inst.literal.unwrap_or(0),
        251 => return Scalar::Vccz,
        252 => return Scalar::Execz,
        253 => return Scalar::Scc,
        255 => {
            let lit = f.decoded().inst.literal.unwrap_or(0);
            if width >= 64 && fbits == 64 {
                lit << 32
            } else if width >= 64 && format.contains("I64") {
                lit as u32 as i32 as i64 as u64
            } else {
                lit
            }
        }
        c if c < 128 => return Scalar::Sgpr(c),
        _ => 0,
    };
    // Inline integers are sign-extended to the operand's width.
    let v = if (193..=208).contains(&src_code) || width > 64 {
        v
    } else {
        v & crate::value::mask64(width)
    };
    Scalar::Value(Bits::from_u64(width, v))
}

/// The modifiers applied to one source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Mods {
    /// Take bits 31:16 (16-bit operands).
    pub(crate) opsel_hi: bool,
    /// Clear the sign bit.
    pub(crate) abs: bool,
    /// Flip the sign bit.
    pub(crate) neg: bool,
    /// The float width the sign modifiers act on (0: not a float operand).
    pub(crate) float_bits: u32,
    /// VOP3P: build a packed pair from (lo half select, hi half select, neg lo, neg hi).
    pub(crate) packed: Option<(bool, bool, bool, bool)>,
    /// Flush a denormal input of `float_bits` to a zero of its sign (MODE `FP_DENORM`).
    pub(crate) ftz: bool,
}

impl Mods {
    /// No modifier changes the value.
    pub(crate) fn is_plain(&self) -> bool {
        self.packed.is_none() && !self.opsel_hi && !self.abs && !self.neg && !self.ftz
    }

    /// The only modifier is flushing a 32-bit float's denormals.
    pub(crate) fn only_ftz32(&self) -> bool {
        self.ftz
            && self.float_bits == 32
            && self.packed.is_none()
            && !self.opsel_hi
            && !self.abs
            && !self.neg
    }
}

/// The modifiers of source `k` (in encoding field `field`, read as `width` bits).
pub(crate) fn src_mods(f: &impl Facts, k: usize, field: &str, width: u32) -> Mods {
    // The spec lists some VOP3 sources under their VGPR-only name (`vsrc0` for the `src0`
    // field of VOP1-derived and RDNA 4 entries); its format decides whether ABS/NEG apply.
    let operand = f.operand(field).or_else(|| f.operand(&format!("v{field}")));
    let format = operand.map(|o| o.format.as_str()).unwrap_or("");
    let bits = operand.map(|o| o.bits).unwrap_or(32);
    let mut m = Mods {
        // V_CNDMASK_B32/B16 in VOP3 form take ABS/NEG as sign-bit operations on their
        // untyped sources (the compiler selects fabs/fneg of a select into them).
        float_bits: match f.decoded().facts.cndmask_bits {
            0 => float_bits(format),
            b => u32::from(b),
        },
        ..Mods::default()
    };
    // Only float arithmetic flushes: V_CNDMASK's sign-bit modifiers do not make its
    // untyped sources floats.
    m.ftz =
        flushes_denormals(f) && float_bits(format) != 0 && denorm_flush(f.mode(), m.float_bits).0;
    match f.family() {
        "VOP3" | "VOP3SD" => {
            if !f.reads("OPSEL") && (bits == 16 || width == 16) {
                m.opsel_hi = f.field("opsel") >> k & 1 == 1;
            }
            if !f.reads("ABS") {
                m.abs = f.field("abs") >> k & 1 == 1;
            }
            if !f.reads("NEG") {
                m.neg = f.field("neg") >> k & 1 == 1;
            }
        }
        "VOP3P" => {
            if !f.reads("OPSEL") && !f.reads("OPSEL_HI") {
                let lo = f.field("opsel") >> k & 1 == 1;
                let hi = opsel_hi(f) >> k & 1 == 1;
                if format.contains("PK2") {
                    m.packed = Some((
                        lo,
                        hi,
                        f.field("neg") >> k & 1 == 1,
                        f.field("neg_hi") >> k & 1 == 1,
                    ));
                    m.float_bits = float_bits(format);
                } else if !f.reads("NEG") {
                    m.neg = f.field("neg") >> k & 1 == 1;
                    m.abs = f.field("neg_hi") >> k & 1 == 1;
                }
            }
            // Each half from itself and neither negated (the default `op_sel_hi`): the
            // source as it is, so it binds like any plain one (a block reads it in place).
            if m.packed == Some((false, true, false, false)) && width <= 64 {
                m.packed = None;
            }
        }
        _ => {
            if let Some((kind, w)) = f.decoded().ext {
                if k <= 1 && kind == super::dpp::DPP16 {
                    m.neg = w >> (20 + 2 * k) & 1 == 1;
                    m.abs = w >> (21 + 2 * k) & 1 == 1;
                }
                if k <= 1 && kind == super::sdwa::SDWA && m.float_bits > 0 {
                    m.neg = w >> (20 + 8 * k) & 1 == 1;
                    m.abs = w >> (21 + 8 * k) & 1 == 1;
                }
            }
        }
    }
    m
}

/// VOP3P `op_sel_hi` with its third bit (absent fields select the high halves).
pub(crate) fn opsel_hi(f: &impl Facts) -> u32 {
    f.decoded().inst.field("opsel_hi").unwrap_or(3) as u32
        | (f.decoded().inst.field("opsel_hi2").unwrap_or(1) as u32) << 2
}

/// How results are modified on their way to the destination.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WriteBackInfo {
    /// VOP3 or SDWA `clamp` (the text does not read it).
    pub(crate) clamp: bool,
    /// VOP3 or SDWA output modifier (0: none; the text does not read it; off in IEEE mode).
    pub(crate) omod: u32,
    /// The float width of the destination (0: not a float).
    pub(crate) d_fbits: u32,
    /// The width of the VGPR destination operand (0: none).
    pub(crate) vdst_bits: u32,
    /// Flush a denormal float result (MODE `FP_DENORM` of the result's format).
    pub(crate) ftz: bool,
    /// `clamp` turns NaN into 0 (MODE `DX10_CLAMP`); otherwise NaN passes.
    pub(crate) dx10: bool,
}

/// The result modifiers of an instruction under its wave's MODE.
pub(crate) fn write_back_info(f: &impl Facts) -> WriteBackInfo {
    let dst_op = f.operand("vdst").or_else(|| f.operand("sdst"));
    let d_fbits = dst_op.map(|o| float_bits(&o.format)).unwrap_or(0);
    let ieee = f.mode() & mode::IEEE != 0;
    // CDNA's SDWA extension dword carries `clamp` (and `omod`) like a VOP3 encoding does.
    let modifies = f.is_vop3() || super::sdwa::is_sdwa(f.decoded().ext);
    WriteBackInfo {
        clamp: modifies && f.field("clmp") == 1 && !f.reads("CLAMP"),
        omod: if modifies && !f.reads("OMOD") && !ieee {
            f.field("omod")
        } else {
            0
        },
        d_fbits,
        vdst_bits: f.operand("vdst").map(|o| o.bits).unwrap_or(0),
        ftz: flushes_denormals(f) && denorm_flush(f.mode(), d_fbits).1,
        dx10: f.mode() & mode::DX10_CLAMP != 0,
    }
}

/// What a register the text names is bound to, apart from its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Named {
    /// Source `k` from encoding field `field` (with its modifiers).
    Source(usize, &'static str),
    /// A scalar source code read without modifiers (SOPK's SGPR, an SGPR `D0`).
    Scalar(u32),
    /// A constant of the encoding (immediates, operand numbers, modifier fields, PC).
    Value(u64),
    /// The current value of a per-lane `D0` (VGPRs from `reg`).
    VgprD0 { reg: u32, hi: bool },
    /// SCC.
    Scc,
    /// The 64-bit SGPR pair from this code (VCC, EXEC, a VOP3 `src2` lane mask).
    Pair(u32),
    /// One 32-bit SGPR by code (EXEC_LO, VCC_HI, M0, TTMPn).
    Sgpr(u32),
    /// `VCCZ`.
    Vccz,
    /// `EXECZ`.
    Execz,
    /// An operand number that names VGPRs (`SRC0` of a VGPR source, `VDST`): the text
    /// addresses the VGPR file from it.
    VgprNumber(u32),
}

/// What register `name` of the text binds to, or `None` for one the encoding does not
/// supply (it then takes its default, [`default_named`]).
pub(crate) fn named(f: &impl Facts, dst: Dest, name: &str) -> Option<Named> {
    let d = f.decoded();
    Some(match name.strip_prefix("INST.").unwrap_or(name) {
        "S0" | "S1" | "S2" => {
            let k = (name.as_bytes()[1] - b'0') as usize;
            match f.src_field(k) {
                Some(field) if f.has_field(field) => Named::Source(k, field),
                // A SOPK text's name for its 16-bit immediate (`exec::is_sopk_immediate`).
                _ if crate::exec::is_sopk_immediate(
                    f.family(),
                    &name[name.len() - 2..],
                    f.text().reg("D0").is_some(),
                ) =>
                {
                    Named::Value((f.field("simm16") & 0xffff) as u64)
                }
                _ if f.family() == "SOPK" && k == 0 => Named::Scalar(f.field("sdst")),
                _ => return None,
            }
        }
        "D0" => match dst {
            Dest::Vgpr { reg, hi } => Named::VgprD0 { reg, hi },
            Dest::Sgpr(c) => Named::Scalar(c),
            _ => return None,
        },
        "SCC" => Named::Scc,
        "VCC" => {
            // VOP3 forms read the lane mask VOP2 takes from VCC from `src2`.
            let src2_mask =
                f.is_vop3() && f.operand("src2").is_some_and(|o| is_mask_format(&o.format));
            Named::Pair(if src2_mask {
                f.field("src2")
            } else {
                code::VCC_LO
            })
        }
        "EXEC" => Named::Pair(code::EXEC_LO),
        "EXEC_LO" => Named::Sgpr(code::EXEC_LO),
        "EXEC_HI" => Named::Sgpr(code::EXEC_HI),
        "VCC_LO" => Named::Sgpr(code::VCC_LO),
        "VCC_HI" => Named::Sgpr(code::VCC_HI),
        "VCCZ" => Named::Vccz,
        "EXECZ" => Named::Execz,
        "M0" => Named::Sgpr(super::m0_code(f.arch())),
        "PC" => Named::Value(d.addr),
        "SIMM16" => Named::Value(f.field("simm16") as u64),
        "SIMM32" => Named::Value(d.inst.literal.unwrap_or(0)),
        "SRC0" | "SRC1" | "SRC2" | "VDST" | "DST" | "SDST" => {
            let field = match name {
                "VDST" | "DST" => "vdst",
                "SDST" => "sdst",
                "SRC0" => f.src_field(0).unwrap_or("src0"),
                "SRC1" => f.src_field(1).unwrap_or("src1"),
                _ => f.src_field(2).unwrap_or("src2"),
            };
            let raw = f.field(field);
            let is_vgpr = if field == "vdst" {
                f.decoded().facts.vdst_vgpr
            } else {
                field.starts_with('v') || raw >= 256
            };
            let num = if field.starts_with('v') || field == "vdst" || raw < 256 {
                raw
            } else {
                raw - 256
            };
            if is_vgpr {
                Named::VgprNumber(num)
            } else {
                Named::Value(num as u64)
            }
        }
        "OPSEL" => Named::Value(f.field("opsel") as u64),
        "OPSEL_HI" => Named::Value(opsel_hi(f) as u64),
        "NEG" => Named::Value(f.field("neg") as u64),
        "NEG_HI" => Named::Value(f.field("neg_hi") as u64),
        "ABS" => Named::Value(f.field("abs") as u64),
        "OMOD" => Named::Value(f.field("omod") as u64),
        "CLAMP" => Named::Value(f.field("clmp") as u64),
        // The F8F6F4 formats: VOP3P-MAI keeps CBSZ in `neg_hi` and BLGP in `neg`; a scaled
        // MFMA (VOP3PX2) has fields of those names.
        "CBSZ" | "BLGP" => {
            let (own, mai) = if name.ends_with("CBSZ") {
                ("cbsz", "neg_hi")
            } else {
                ("blgp", "neg")
            };
            let field = if f.has_field(own) { own } else { mai };
            Named::Value(f.field(field) as u64)
        }
        // A scaled MFMA's scale operands: VGPR numbers, or a scalar source code (which the
        // wave layer gives registers holding the value, `fetch::operands`).
        "SCALE_SRC0" | "SCALE_SRC1" => {
            let field = if name.ends_with('0') {
                "scale_src0"
            } else {
                "scale_src1"
            };
            if !f.has_field(field) {
                return None;
            }
            match f.field(field) {
                raw @ 256.. => Named::VgprNumber(raw - 256),
                raw => Named::Value(raw as u64),
            }
        }
        n if n.starts_with("TTMP") => Named::Sgpr(code::TTMP0 + n[4..].parse::<u32>().ok()?),
        _ => return None,
    })
}

/// The default of a register the encoding does not supply (as `exec::Machine` defaults it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Default {
    /// EXEC (within the wave), its low or high half.
    Exec,
    ExecLo,
    ExecHi,
    /// EXEC is zero.
    Execz,
    /// VCC (within the wave) is zero.
    Vccz,
    /// A constant.
    Value(u64),
}

/// The default of register `name` for a wave of `wave_size` lanes under `mode`.
pub(crate) fn default_named(arch: Arch, wave_size: u32, wave_mode: u32, name: &str) -> Default {
    match name {
        "EXEC" => Default::Exec,
        "EXEC_LO" => Default::ExecLo,
        "EXEC_HI" => Default::ExecHi,
        "WAVE32" | "wave32" => Default::Value((wave_size == 32) as u64),
        "WAVE64" | "wave64" => Default::Value((wave_size == 64) as u64),
        // MODE.IEEE; RDNA 4 has no IEEE mode bit, and its texts' IEEE branch is the one its
        // hardware follows.
        "WAVE_MODE.IEEE" => {
            Default::Value((arch.wheel() == Wheel::Rdna4 || wave_mode & mode::IEEE != 0) as u64)
        }
        // The f32 rounding mode (MODE bits 1:0; the pseudocode's ROUND_* constants match).
        "ROUND_MODE" => Default::Value((wave_mode & 3) as u64),
        "EXECZ" => Default::Execz,
        "VCCZ" => Default::Vccz,
        _ => Default::Value(0),
    }
}
