//! Value domains: what operand fetch and write-back need from the registers they read and
//! write, so both are written once (`operands.rs`, `writeback.rs`) for every kind of value.
//!
//! A domain supplies values of some kind (`Val`: concrete [`Bits`] for the wave state,
//! SMT terms for `smt::wave`), the few operations the fetch applies to them (resize, slice,
//! concatenate, source modifiers, MODE's denormal flush), 32-bit reads of the register files
//! and, for write-back ([`DomainMut`]), 32-bit writes under a lane guard. What an operand
//! *is* (field, register, modifiers, destination) is decided by `wave::decode` and
//! the prepared instruction, never by the domain.
//!
//! The concrete domain ([`Wave`]) is the wave state; the generic code is monomorphised per
//! domain, so the concrete general path compiles to the calls it made before. The fast
//! tiers (`plan.rs`, `bound.rs`, `prepared.rs`, `slots.rs`, `block.rs`) are plans of the same
//! decisions over the concrete state and stay concrete.
//!
//! Encoding features a domain may not model (DPP lane selection, SDWA selects, VOP3 output
//! modifiers, CDNA's GPR indexing) are methods too: a domain that does not model one
//! records a refusal its executor reports (see `smt::wave`).

use std::ops::{Deref, DerefMut};

use crate::exec::Prepared;
use crate::spec::Arch;
use crate::value::Bits;
use crate::wave::decode::{Facts, Mods, WriteBackInfo};
use crate::wave::state::{dword_code, WaveState};

/// A register's value as the fetch binds it: one value for the wave, or one per lane.
#[derive(Clone, Debug)]
pub(crate) enum Shape<V> {
    Uniform(V),
    Lanes(Vec<V>),
}

/// One decoded instruction as the generic fetch and write-back see it: its encoding facts
/// and its prepared entry (which registers it names, whether it runs per lane).
pub(crate) trait Step: Facts {
    /// The prepared entry the instruction runs.
    fn prepared(&self) -> &Prepared;

    /// Whether the text runs once per active lane (else once for the wave).
    fn per_lane_run(&self) -> bool {
        let p = self.prepared();
        p.vector && !p.wave_level
    }
}

/// An instruction as an engine other than the wave's executor binds it (the symbolic
/// executor, the sanitizer): the decoded word, the database entry and prepared text it runs
/// (`wave::prepare_entry`), the wave's MODE and the arch.
pub(crate) struct Ctx<'a> {
    pub(crate) d: &'a crate::wave::Decoded,
    pub(crate) inst: &'a crate::spec::Instruction,
    pub(crate) prepared: &'a Prepared,
    pub(crate) mode: u32,
    pub(crate) arch: Arch,
}

impl Facts for Ctx<'_> {
    fn decoded(&self) -> &crate::wave::Decoded {
        self.d
    }
    fn entry_inst(&self) -> &crate::spec::Instruction {
        self.inst
    }
    fn text(&self) -> &crate::ir::Function {
        &self.prepared.function
    }
    fn mode(&self) -> u32 {
        self.mode
    }
    fn arch(&self) -> Arch {
        self.arch
    }
}

impl Step for Ctx<'_> {
    fn prepared(&self) -> &Prepared {
        self.prepared
    }
}

/// Values of one kind and the register files holding them: what operand fetch reads.
pub(crate) trait Domain {
    /// A bit vector of known width.
    type Val: Clone;

    /// The arch (which scalar codes are `null`, M0, ...).
    fn arch(&self) -> Arch;
    /// 32 or 64.
    fn wave_size(&self) -> u32;

    /// A known value.
    fn constant(b: Bits) -> Self::Val;
    /// The width of a value.
    fn width(v: &Self::Val) -> u32;
    /// Zero-extended or truncated to `width`.
    fn zext(v: Self::Val, width: u32) -> Self::Val;
    /// Bits `lo .. lo + width` (inside the value).
    fn extract(v: &Self::Val, lo: u32, width: u32) -> Self::Val;
    /// `hi` above `lo`.
    fn concat(hi: &Self::Val, lo: &Self::Val) -> Self::Val;
    /// Bitwise and of two values of one width.
    fn and(a: &Self::Val, b: &Self::Val) -> Self::Val;
    /// 1 when the value is zero, else 0 (one bit).
    fn is_zero(v: &Self::Val) -> Self::Val;
    /// A source's modifiers (`abs`, `neg`, `op_sel`, packed halves, MODE's flush).
    fn apply_mods(v: Self::Val, m: &Mods) -> Self::Val;
    /// A float of `fbits` with a denormal value flushed to a zero of its sign (other
    /// widths unchanged).
    fn flush_denormal(v: Self::Val, fbits: u32) -> Self::Val;

    /// The 32-bit scalar register at operand code `code` (`null` and unknown codes: zero).
    fn sgpr(&mut self, code: u32) -> Self::Val;
    /// The 32-bit VGPR `reg` of `lane`.
    fn vgpr(&mut self, lane: u32, reg: u32) -> Self::Val;
    /// SCC (one bit).
    fn scc(&mut self) -> Self::Val;

    /// `width` bits of the scalar registers from `code` (`null` reads zero in every dword).
    fn read_sgprs(&mut self, code: u32, width: u32) -> Self::Val
    where
        Self: Sized,
    {
        read_sgprs(self, code, width)
    }

    /// `width` bits of `lane`'s VGPRs from `reg` (from bit 16 of `reg` when `hi`).
    fn read_vgpr(&mut self, lane: u32, reg: u32, hi: bool, width: u32) -> Self::Val {
        let n = width.div_ceil(32).max(1);
        let mut v = self.vgpr(lane, reg);
        for i in 1..n {
            v = Self::concat(&self.vgpr(lane, reg + i), &v);
        }
        if hi {
            v = Self::zext(Self::extract(&v, 16, 32 * n - 16), 32 * n);
        }
        Self::zext(v, width)
    }

    /// The lane a DPP `src0` of `lane` reads (`None`: no valid source lane), from the
    /// extension dword `ext`.
    fn dpp_source_lane(&mut self, ext: (u32, u32), lane: u32) -> Option<u32>;
    /// An SDWA source select of source `k` on a 32-bit value.
    fn sdwa_select(&mut self, ext: u32, k: usize, v: Self::Val) -> Self::Val;
}

/// A domain whose register files write-back can change.
pub(crate) trait DomainMut: Domain {
    /// Whether a lane runs: a condition of the domain's kind.
    type Guard;

    /// The guard of `lane` under the 64-bit mask `exec`, `None` when the lane is known not
    /// to run.
    fn lane_guard(&self, exec: &Self::Val, lane: u32) -> Option<Self::Guard>;
    /// The guard "some lane of `exec` runs", `None` when none is known to.
    fn any_guard(&self, exec: &Self::Val) -> Option<Self::Guard>;
    /// `new` where the guard holds, else `old`.
    fn select(g: &Self::Guard, new: Self::Val, old: Self::Val) -> Self::Val;

    /// Writes a 32-bit scalar register (writes to `null` and unknown codes are dropped).
    fn write_sgpr(&mut self, code: u32, v: Self::Val);
    /// Writes `lane`'s 32-bit VGPR `reg`.
    fn write_vgpr(&mut self, lane: u32, reg: u32, v: Self::Val);
    /// Writes SCC (one bit).
    fn set_scc(&mut self, v: Self::Val);

    /// `v` into `lane`'s VGPRs from `reg` where the guard holds: a 16-bit value into its
    /// half (CDNA zeroes the upper half of a low-half write), wider ones whole dwords, a
    /// partial top dword merged with the old bits.
    fn write_vgpr_value(
        &mut self,
        lane: u32,
        (reg, hi): (u32, bool),
        v: &Self::Val,
        g: &Self::Guard,
    ) where
        Self: Sized,
    {
        let width = Self::width(v);
        let cdna = self.arch().is_gfx9();
        if width <= 16 {
            let x = Self::zext(v.clone(), 16);
            let old = self.vgpr(lane, reg);
            let new = if hi {
                Self::concat(&x, &Self::extract(&old, 0, 16))
            } else if cdna {
                Self::zext(x, 32)
            } else {
                Self::concat(&Self::extract(&old, 16, 16), &x)
            };
            self.write_vgpr(lane, reg, Self::select(g, new, old));
            return;
        }
        for i in 0..width.div_ceil(32) {
            let bits = (width - i * 32).min(32);
            let word = Self::extract(v, i * 32, bits);
            let old = self.vgpr(lane, reg + i);
            let new = if bits == 32 {
                word
            } else {
                Self::concat(&Self::extract(&old, bits, 32 - bits), &word)
            };
            self.write_vgpr(lane, reg + i, Self::select(g, new, old));
        }
    }

    /// Writes a lane mask produced by a vector instruction: bits of lanes inactive at issue
    /// (`exec`, 64 bits) are zero when the text ran per lane, and wave32 writes one register.
    fn write_mask(&mut self, code0: u32, v: Self::Val, exec: &Self::Val, per_lane_run: bool)
    where
        Self: Sized,
    {
        let v = Self::zext(v, 64);
        let v = if per_lane_run { Self::and(&v, exec) } else { v };
        let full = Self::constant(Bits::from_u64(64, crate::value::mask64(self.wave_size())));
        let v = Self::and(&v, &full);
        self.write_sgpr(code0, Self::extract(&v, 0, 32));
        if self.wave_size() == 64 {
            let hi = dword_code(self.arch(), code0, 1);
            self.write_sgpr(hi, Self::extract(&v, 32, 32));
        }
    }

    /// A 32-bit result placed into the old VGPR value by SDWA `dst_sel`.
    fn sdwa_merge(&mut self, ext: u32, old: Self::Val, v: Self::Val) -> Self::Val;
    /// The VOP3 float output modifiers (`omod`, then `clamp`) on a result.
    fn result_mods(&mut self, v: Self::Val, wb: &WriteBackInfo) -> Self::Val;
    /// CDNA's `s_set_gpr_idx_on/off` mode bit.
    fn set_gpr_idx_enabled(&mut self, v: Self::Val);
}

/// `width` bits of the scalar registers from `code` over any domain's 32-bit reads.
fn read_sgprs<D: Domain>(dom: &mut D, code: u32, width: u32) -> D::Val {
    let arch = dom.arch();
    let n = width.div_ceil(32).max(1);
    let mut v = dom.sgpr(code);
    for i in 1..n {
        v = D::concat(&dom.sgpr(dword_code(arch, code, i)), &v);
    }
    D::zext(v, width)
}

/// The concrete domain: the wave state (borrowed for fetch, mutably for write-back), with
/// EXEC as the DPP16 source lanes see it.
pub(crate) struct Wave<W> {
    pub(crate) w: W,
    /// EXEC at issue, for DPP16 source validity (EXEC itself may have the lanes a DPP16
    /// instruction does not write masked out).
    pub(crate) src_exec: u64,
}

impl<W: Deref<Target = WaveState>> Domain for Wave<W> {
    type Val = Bits;

    fn arch(&self) -> Arch {
        self.w.arch
    }
    fn wave_size(&self) -> u32 {
        self.w.wave_size
    }
    #[inline]
    fn constant(b: Bits) -> Bits {
        b
    }
    #[inline]
    fn width(v: &Bits) -> u32 {
        v.width()
    }
    #[inline]
    fn zext(v: Bits, width: u32) -> Bits {
        if v.width() == width {
            v
        } else {
            v.zext(width)
        }
    }
    #[inline]
    fn extract(v: &Bits, lo: u32, width: u32) -> Bits {
        v.extract(lo as u64, width)
    }
    #[inline]
    fn concat(hi: &Bits, lo: &Bits) -> Bits {
        Bits::concat(&[hi.clone(), lo.clone()])
    }
    #[inline]
    fn and(a: &Bits, b: &Bits) -> Bits {
        a.and(b)
    }
    #[inline]
    fn is_zero(v: &Bits) -> Bits {
        Bits::from_u64(1, v.is_zero() as u64)
    }
    #[inline]
    fn apply_mods(v: Bits, m: &Mods) -> Bits {
        super::mods::apply_mods(v, m)
    }
    #[inline]
    fn flush_denormal(v: Bits, fbits: u32) -> Bits {
        super::mods::flush_denormal(v, fbits)
    }
    #[inline]
    fn sgpr(&mut self, code: u32) -> Bits {
        Bits::from_u64(32, self.w.read_sgpr(code) as u64)
    }
    #[inline]
    fn vgpr(&mut self, lane: u32, reg: u32) -> Bits {
        Bits::from_u64(32, self.w.vgpr(lane, reg) as u64)
    }
    #[inline]
    fn scc(&mut self) -> Bits {
        Bits::from_u64(1, self.w.scc as u64)
    }
    #[inline]
    fn read_sgprs(&mut self, code: u32, width: u32) -> Bits {
        if width > 64 {
            return read_sgprs(self, code, width);
        }
        let mut x = self.w.read_sgpr(code) as u64;
        if width > 32 {
            x |= (self.w.read_sgpr(dword_code(self.w.arch, code, 1)) as u64) << 32;
        }
        Bits::from_u64(width, x)
    }
    #[inline]
    fn read_vgpr(&mut self, lane: u32, reg: u32, hi: bool, width: u32) -> Bits {
        read_vgpr_lanes(&self.w, reg, hi, width, lane)
    }
    fn dpp_source_lane(&mut self, ext: (u32, u32), lane: u32) -> Option<u32> {
        let w = &self.w;
        crate::wave::dpp::source_lane(ext, lane, w.wave_size, self.src_exec, w.arch.is_gfx9())
    }
    fn sdwa_select(&mut self, ext: u32, k: usize, v: Bits) -> Bits {
        let x = crate::wave::sdwa::select_source(ext, k, v.low_u64() as u32);
        Bits::from_u64(32, x as u64)
    }
}

impl<W: DerefMut<Target = WaveState>> DomainMut for Wave<W> {
    /// A lane is either known to run or known not to.
    type Guard = ();

    #[inline]
    fn lane_guard(&self, exec: &Bits, lane: u32) -> Option<()> {
        (exec.low_u64() >> lane & 1 == 1).then_some(())
    }
    #[inline]
    fn any_guard(&self, exec: &Bits) -> Option<()> {
        (exec.low_u64() & self.w.full_mask() != 0).then_some(())
    }
    #[inline]
    fn select(_: &(), new: Bits, _: Bits) -> Bits {
        new
    }
    #[inline]
    fn write_sgpr(&mut self, code: u32, v: Bits) {
        self.w.write_sgpr(code, v.low_u64() as u32);
    }
    #[inline]
    fn write_vgpr(&mut self, lane: u32, reg: u32, v: Bits) {
        self.w.set_vgpr(lane, reg, v.low_u64() as u32);
    }
    #[inline]
    fn set_scc(&mut self, v: Bits) {
        self.w.scc = v.low_u64() & 1 == 1;
    }
    /// The wave state's words written directly (no guard: inactive lanes were skipped).
    fn write_vgpr_value(&mut self, lane: u32, (reg, hi): (u32, bool), v: &Bits, _: &()) {
        let w = &mut *self.w;
        let width = v.width();
        if width == 32 || width == 64 {
            let x = v.low_u64();
            w.set_vgpr(lane, reg, x as u32);
            if width == 64 {
                w.set_vgpr(lane, reg + 1, (x >> 32) as u32);
            }
            return;
        }
        if width <= 16 {
            let x = v.low_u64() as u32 & 0xffff;
            let old = w.vgpr(lane, reg);
            let new = if hi {
                (old & 0xffff) | x << 16
            } else if w.arch.is_gfx9() {
                x
            } else {
                (old & 0xffff_0000) | x
            };
            w.set_vgpr(lane, reg, new);
            return;
        }
        for i in 0..width.div_ceil(32) {
            let word = v.extract(i as u64 * 32, 32).low_u64() as u32;
            let mask = crate::value::mask64((width - i * 32).min(32)) as u32;
            let old = w.vgpr(lane, reg + i);
            w.set_vgpr(lane, reg + i, (old & !mask) | (word & mask));
        }
    }
    fn write_mask(&mut self, code0: u32, v: Bits, exec: &Bits, per_lane_run: bool) {
        let w = &mut *self.w;
        let v = v.low_u64();
        let v = if per_lane_run { v & exec.low_u64() } else { v } & w.full_mask();
        w.write_sgpr(code0, v as u32);
        if w.wave_size == 64 {
            w.write_sgpr(dword_code(w.arch, code0, 1), (v >> 32) as u32);
        }
    }
    fn sdwa_merge(&mut self, ext: u32, old: Bits, v: Bits) -> Bits {
        let x = crate::wave::sdwa::merge_dest(ext, old.low_u64() as u32, v.low_u64() as u32);
        Bits::from_u64(32, x as u64)
    }
    fn result_mods(&mut self, v: Bits, wb: &WriteBackInfo) -> Bits {
        let v = super::mods::omod_float(&v, wb.d_fbits, wb.omod);
        if wb.clamp {
            super::mods::clamp_float(&v, wb.d_fbits, wb.dx10)
        } else {
            v
        }
    }
    fn set_gpr_idx_enabled(&mut self, v: Bits) {
        crate::wave::gpr_idx::set_enabled(&mut self.w, v.low_u64() & 1 == 1)
    }
}

/// `width` bits of `lane`'s VGPRs from `reg` in the wave state (from bit 16 when `hi`).
pub(crate) fn read_vgpr_lanes(w: &WaveState, reg: u32, hi: bool, width: u32, lane: u32) -> Bits {
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
    let mut v = super::words_bits(width.max(32 * n), &words);
    if hi {
        v = v.lshr(16);
    }
    v.zext(width)
}
