//! The definedness value domain: the wave layer's operand fetch and write-back
//! ([`crate::wave::fetch`]) over definedness masks, so the sanitizer binds an instruction's
//! operands and writes its results where the executors do, field for field.
//!
//! A value is a [`Def`]: one bit per value bit, set where the bit is defined, with the value
//! itself when it is known (constants, and the scalar file before the instruction, which
//! the checker keeps). Known values make `and` exact (a defined 0 decides it, as Memcheck
//! does): EXEC's and VCC's unused wave32 halves are masked off as the fetch masks them.
//! Registers read record the origin of their undefined bits (per lane for VGPRs), which
//! the step reports as the earlier instruction of a finding.

use crate::spec::Arch;
use crate::value::Bits;
use crate::wave::decode::{Mods, WriteBackInfo};
use crate::wave::fetch::domain::{Domain, DomainMut};
use crate::wave::{dpp, sdwa};

use super::WaveDef;

/// A value's definedness: which of its bits are defined, and the value when known.
#[derive(Clone, Debug)]
pub(crate) struct Def {
    /// 1 where the bit is defined.
    pub(crate) def: Bits,
    /// The value, when the checker knows it.
    pub(crate) val: Option<Bits>,
}

/// `width` ones.
pub(super) fn ones(width: u32) -> Bits {
    Bits::zero(width).not()
}

impl Def {
    /// A value of `width` bits, defined where `def` is set, of unknown value.
    pub(super) fn of(def: Bits) -> Def {
        Def { def, val: None }
    }

    /// Whether every bit is defined.
    pub(super) fn all_defined(&self) -> bool {
        self.def.not().is_zero()
    }
}

/// A register read, for findings: the lane (VGPRs), the scalar code (`None`: SCC or a
/// VGPR), whether it held undefined bits and the instruction that left them undefined.
/// Scalar registers are all recorded (a finding names the operand), VGPRs only when
/// undefined.
#[derive(Clone, Copy, Debug)]
pub(super) struct Touched {
    pub(super) lane: Option<u32>,
    pub(super) code: Option<u32>,
    pub(super) undefined: bool,
    pub(super) origin: Option<u64>,
}

/// The registers a binding read, whatever their definedness: what the fast path checks
/// (`alu::FastReads`).
#[derive(Clone, Debug, Default)]
pub(super) struct Reads {
    /// Scalar codes.
    pub(super) sgprs: Vec<u32>,
    /// VGPR rows (any lane).
    pub(super) vgprs: Vec<u32>,
    pub(super) scc: bool,
}

/// A wave's definedness state as a value domain.
pub(super) struct Shadow<'a> {
    pub(super) w: &'a mut WaveDef,
    /// EXEC at issue (DPP source lanes).
    pub(super) src_exec: u64,
    /// Registers read with undefined bits since the last clear.
    pub(super) touched: Vec<Touched>,
    /// The origin given to undefined bits written, per lane for VGPRs and for the rest.
    pub(super) lane_origin: [Option<u64>; 64],
    pub(super) origin: Option<u64>,
    /// Every register read since the last take, when recording.
    pub(super) reads: Option<Reads>,
}

impl<'a> Shadow<'a> {
    pub(super) fn new(w: &'a mut WaveDef) -> Shadow<'a> {
        Shadow {
            src_exec: w.exec,
            w,
            touched: Vec::new(),
            lane_origin: [None; 64],
            origin: None,
            reads: None,
        }
    }
}

/// `def` as a 32-bit word.
fn word(v: &Def) -> u32 {
    v.def.zext(32).low_u64() as u32
}

impl Domain for Shadow<'_> {
    type Val = Def;

    fn arch(&self) -> Arch {
        self.w.arch
    }
    fn wave_size(&self) -> u32 {
        self.w.wave_size
    }
    fn constant(b: Bits) -> Def {
        Def {
            def: ones(b.width()),
            val: Some(b),
        }
    }
    fn width(v: &Def) -> u32 {
        v.def.width()
    }
    /// Bits added above are known zeros: defined.
    fn zext(v: Def, width: u32) -> Def {
        let old = v.def.width();
        if old == width {
            return v;
        }
        let mut def = v.def.zext(width);
        if width > old {
            def = def.or(&ones(width).shl(old as u64));
        }
        Def {
            def,
            val: v.val.map(|x| x.zext(width)),
        }
    }
    fn extract(v: &Def, lo: u32, width: u32) -> Def {
        Def {
            def: v.def.extract(lo as u64, width),
            val: v.val.as_ref().map(|x| x.extract(lo as u64, width)),
        }
    }
    fn concat(hi: &Def, lo: &Def) -> Def {
        Def {
            def: Bits::concat(&[hi.def.clone(), lo.def.clone()]),
            val: match (&hi.val, &lo.val) {
                (Some(h), Some(l)) => Some(Bits::concat(&[h.clone(), l.clone()])),
                _ => None,
            },
        }
    }
    /// Defined where both inputs are, or where either is a known 0.
    fn and(a: &Def, b: &Def) -> Def {
        let mut def = a.def.and(&b.def);
        for x in [a, b] {
            if let Some(v) = &x.val {
                def = def.or(&x.def.and(&v.not()));
            }
        }
        let val = match (&a.val, &b.val) {
            (Some(x), Some(y)) => Some(x.and(y)),
            _ => None,
        };
        Def { def, val }
    }
    /// Defined when every bit is (as a branch on VCCZ or EXECZ needs every lane's bit).
    fn is_zero(v: &Def) -> Def {
        let defined = v.all_defined();
        Def {
            def: Bits::from_u64(1, defined as u64),
            val: v
                .val
                .as_ref()
                .filter(|_| defined)
                .map(|x| Bits::from_u64(1, x.is_zero() as u64)),
        }
    }
    /// Selects move definedness with the bits; `abs` defines the sign bit; `neg` and the
    /// denormal flush keep it.
    fn apply_mods(v: Def, m: &Mods) -> Def {
        if m.is_plain() {
            return v;
        }
        let mut def = v.def;
        let width = def.width();
        if let Some((sel_lo, sel_hi, _, _)) = m.packed {
            let hw = width.min(64) / 2;
            let half = |hi: bool| def.extract(if hi { hw as u64 } else { 0 }, hw);
            let d = Bits::concat(&[half(sel_hi), half(sel_lo)]);
            return Shadow::zext(Def::of(d), width);
        }
        if m.opsel_hi {
            def = def
                .lshr(16)
                .or(&ones(width).shl(width.saturating_sub(16) as u64));
        }
        if m.float_bits > 0 && m.abs {
            let bit = m.float_bits.min(width) - 1;
            def = def.or(&Bits::from_u64(width, 1).shl(bit as u64));
        }
        Def::of(def)
    }
    fn flush_denormal(v: Def, _fbits: u32) -> Def {
        v
    }

    fn sgpr(&mut self, code: u32) -> Def {
        if let Some(r) = &mut self.reads {
            r.sgprs.push(code);
        }
        let d = self.w.sdef(code);
        let origin = self.w.sorigin.get(code as usize).copied().flatten();
        self.touched.push(Touched {
            lane: None,
            code: Some(code),
            undefined: d != u32::MAX,
            origin,
        });
        // The value of the defined bits (every use masks it by `def`).
        let val = self.w.prev_sgpr.get(code as usize).copied();
        Def {
            def: Bits::from_u64(32, d as u64),
            val: val.map(|x| Bits::from_u64(32, x as u64)),
        }
    }
    fn vgpr(&mut self, lane: u32, reg: u32) -> Def {
        if let Some(r) = &mut self.reads {
            if !r.vgprs.contains(&reg) {
                r.vgprs.push(reg);
            }
        }
        let d = self.w.vdef(reg, lane);
        if d != u32::MAX {
            let origin = self.w.vorigin.get(reg as usize).copied().flatten();
            self.touched.push(Touched {
                lane: Some(lane),
                code: None,
                undefined: true,
                origin,
            });
        }
        Def::of(Bits::from_u64(32, d as u64))
    }
    fn scc(&mut self) -> Def {
        if let Some(r) = &mut self.reads {
            r.scc = true;
        }
        if !self.w.scc {
            self.touched.push(Touched {
                lane: None,
                code: None,
                undefined: true,
                origin: self.w.scc_origin,
            });
        }
        Def::of(Bits::from_u64(1, self.w.scc as u64))
    }
    fn dpp_source_lane(&mut self, ext: (u32, u32), lane: u32) -> Option<u32> {
        let gfx9 = self.w.arch.is_gfx9();
        dpp::source_lane(ext, lane, self.w.wave_size, self.src_exec, gfx9)
    }
    /// The selected field's definedness; zero-filled bits above it are defined, sign-filled
    /// ones take the sign bit's.
    fn sdwa_select(&mut self, ext: u32, k: usize, v: Def) -> Def {
        let d = sdwa::select_source(ext, k, word(&v));
        let sext_bit = if k == 0 { 19 } else { 27 };
        let filled = if ext >> sext_bit & 1 == 1 {
            0
        } else {
            !sdwa::select_source(ext, k, u32::MAX)
        };
        Def::of(Bits::from_u64(32, (d | filled) as u64))
    }
}

impl DomainMut for Shadow<'_> {
    /// Write-back is given EXEC as a known value: a lane runs or it does not.
    type Guard = ();

    fn lane_guard(&self, exec: &Def, lane: u32) -> Option<()> {
        let on = exec
            .val
            .as_ref()
            .is_none_or(|x| x.low_u64() >> lane & 1 == 1);
        on.then_some(())
    }
    fn any_guard(&self, exec: &Def) -> Option<()> {
        let full = crate::value::mask64(self.w.wave_size);
        let on = exec.val.as_ref().is_none_or(|x| x.low_u64() & full != 0);
        on.then_some(())
    }
    fn select(_: &(), new: Def, _: Def) -> Def {
        new
    }
    fn write_sgpr(&mut self, code: u32, v: Def) {
        self.w.set_s(code, word(&v), self.origin);
    }
    fn write_vgpr(&mut self, lane: u32, reg: u32, v: Def) {
        let origin = self.lane_origin.get(lane as usize).copied().flatten();
        self.w
            .set_v_word(reg, lane, word(&v), origin.or(self.origin));
    }
    fn set_scc(&mut self, v: Def) {
        self.w.scc = v.def.low_u64() & 1 == 1;
        self.w.scc_origin = if self.w.scc { None } else { self.origin };
    }
    /// `dst_sel` places the result's definedness; padding is defined, preserved bits keep
    /// theirs, sign-filled ones take the sign bit's.
    fn sdwa_merge(&mut self, ext: u32, old: Def, v: Def) -> Def {
        let d = sdwa::merge_dest(ext, word(&old), word(&v));
        let pad = match ext >> 11 & 3 {
            1 | 2 => 0,
            _ => !sdwa::merge_dest(ext, 0, u32::MAX),
        };
        Def::of(Bits::from_u64(32, (d | pad) as u64))
    }
    fn result_mods(&mut self, v: Def, _: &WriteBackInfo) -> Def {
        v
    }
    fn set_gpr_idx_enabled(&mut self, _: Def) {}
}
