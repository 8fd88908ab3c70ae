//! Plain loads and stores as prepared plans of their [`MemPlan`] (`memory_plan.rs`): which
//! access it is (`memfast::Plain`), the plan's address form, the destination or source
//! register, the width of the text's `ADDR` and the byte extents the bounds check covers, all
//! taken from the plan. Running one then reads no field and compares no string.
//!
//! `prepare` keeps the plans whose access `memfast` does (every arch's plain SMEM, DS and
//! GLOBAL loads and stores and DS two-address accesses); the pseudocode step (`memory::execute`)
//! runs the same plan ([`access`]) once it has formed the addresses, so both paths do the same
//! work in the same order: addresses, bounds check by the plan's fault rule (same errors),
//! the access. When `memfast` declines (an address sum that wraps), `run` returns `None` and
//! the caller runs the pseudocode step. `tests/dispatch_memory_paths.rs` compares the result with
//! `Executor::memory_fast_path` off.

use super::memfast::{self, Mem, Plain};
use super::memory_plan::check_bounds;
use super::memory_plan::{fits, span_fits, Form, MemPlan};
use super::memory_space::Space;
use super::state::{WaveState, LANE_SLOTS};
use super::{Decoded, WaveError};
use crate::machine::{Family, InstFacts};
use crate::spec::Arch;

/// What a prepared access does.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// One of `memfast`'s plain accesses.
    Plain(Plain),
    /// A DS two-address load or store (`DS_LOAD_2ADDR_*`, `DS_STORE_2ADDR_*`): `words`
    /// words at `ADDR + OFFSET0 * stride` and at `ADDR + OFFSET1 * stride`, to or from
    /// registers `reg0..` and `reg1..`.
    Pair {
        store: bool,
        words: u32,
        offsets: [u64; 2],
        regs: [u32; 2],
    },
}

/// A plain access's prepared plan.
#[derive(Clone, Debug)]
pub(super) struct MemOp {
    kind: Kind,
    /// The plan's address form: `Form::Scalar`, `Form::Lds` or `Form::Global` (no shift).
    addr: Form,
    /// The DS `OFFSET` the access adds (0 otherwise).
    offset: u64,
    addr_bits: u32,
    reg: u32,
    /// `(offset, bytes)` past each address that the bounds check covers.
    extents: Vec<(u64, u64)>,
    /// The facts' `load_only`.
    load_only: bool,
    /// A FLAT access (of this arch): prepared only while every active lane addresses the
    /// global aperture (`memory_space::aperture`); LDS and scratch apertures take the pseudocode
    /// step.
    flat: Option<Arch>,
}

/// A memory instruction's plan with the prepared form of its access, if it has one: what
/// the executor keeps per instruction.
pub(super) struct Planned {
    pub(super) plan: MemPlan,
    pub(super) fast: Option<MemOp>,
}

impl Planned {
    /// The plan of memory instruction `d` (its entry `e`) and its prepared form.
    pub(super) fn build(e: &super::Entry, d: &Decoded, arch: Arch) -> Planned {
        let plan = MemPlan::build(e, d, arch);
        let fast = prepare(&plan, &d.facts, arch);
        Planned { plan, fast }
    }
}

/// The prepared plan of a plain access, if `plan` (of an instruction with facts `f`) is one
/// `memfast` does.
pub(super) fn prepare(plan: &MemPlan, f: &InstFacts, arch: Arch) -> Option<MemOp> {
    if plan.refusal.is_some() {
        return None;
    }
    let family = super::memory_plan::canonical(f.family);
    if !matches!(
        family,
        Family::Smem | Family::Ds | Family::Global | Family::Flat | Family::Scratch
    ) {
        return None;
    }
    let addr_bits = plan.addr_bits?;
    // Entries whose text leaves the DS offset out fold it into ADDR: the pseudocode step.
    if plan.ds_folded {
        return None;
    }
    let kind = if f.ds_two > 0 {
        // `DS_LOAD_2ADDR_B32` .. `DS_STORE_2ADDR_STRIDE64_B64`.
        if !matches!(f.plain_words, 1 | 2) {
            return None;
        }
        let (store, words) = (f.stores, u32::from(f.plain_words));
        let size = 4 * words as u64;
        let stride = if f.ds_two == 64 { size * 64 } else { size };
        let b = &plan.bind;
        Kind::Pair {
            store,
            words,
            offsets: [b.offset0 * stride, b.offset1 * stride],
            regs: if store {
                [b.data, b.data1]
            } else {
                [b.vdst, b.vdst + words]
            },
        }
    } else {
        Kind::Plain(memfast::classify(f)?)
    };
    let reg = match kind {
        Kind::Pair { regs, .. } => regs[0],
        Kind::Plain(Plain::ScalarLoad { .. } | Plain::Load { .. }) => plan.load_reg?,
        Kind::Plain(Plain::Store { .. }) => plan.store_reg?,
    };
    // Address rows past the file read zero on the pseudocode step: leave those to it.
    let rows = super::state::vgpr_rows(arch) as u32;
    let last_row = match plan.form {
        Form::Scalar { shift: 0, .. } => 0,
        Form::Lds { vaddr, offset: 0 } => vaddr,
        Form::Global {
            vaddr,
            saddr,
            shift: 0,
            ..
        } => vaddr + u32::from(saddr.is_none()),
        Form::Scratch {
            vaddr,
            vgpr,
            shift: 0,
            ..
        } => {
            if vgpr {
                vaddr
            } else {
                0
            }
        }
        _ => return None,
    };
    if last_row >= rows {
        return None;
    }
    Some(MemOp {
        kind,
        addr: plan.form,
        offset: plan.text_offset,
        addr_bits,
        reg,
        extents: plan.extents.clone(),
        load_only: plan.load_only,
        flat: plan.flat.then_some(arch),
    })
}

/// Runs a two-address access on LDS, lane by lane in lane order (each lane's first
/// address, then its second, as the text runs), the same as the pseudocode. False (nothing
/// changed) when an address sum would wrap at the width of `ADDR`.
fn run_pair(
    w: &mut WaveState,
    addrs: &[u64],
    exec: u64,
    addr_bits: u32,
    (store, words, offsets, regs): (bool, u32, [u64; 2], [u32; 2]),
) -> bool {
    let mask = if addr_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << addr_bits) - 1
    };
    let last = 4 * words as u64 - 4;
    let active = |lane: usize| exec >> lane & 1 == 1;
    let wraps = |x: u64, off: u64| {
        x.checked_add(off)
            .and_then(|s| s.checked_add(last))
            .is_none_or(|s| s > mask)
    };
    for (lane, &x) in addrs.iter().enumerate() {
        if active(lane) && offsets.iter().any(|&off| wraps(x, off)) {
            return false;
        }
    }
    if !store && pair_rows(w, addrs, exec, addr_bits, (words, offsets, regs)) {
        return true;
    }
    if !store {
        // (`prepare` makes pairs of one or two words only.)
        let words = words.min(2);
        // Loads change no memory: one reader keeps the page (or window) the last lane read,
        // and a lane at the address of the active lane before it (a broadcast: lanes reading
        // one row of a tile) takes that lane's words without reading them again.
        let mut reader = memfast::Reader::new(&w.lds);
        let (mut last, mut vals) = (None, [0u32; 4]);
        for (lane, &x) in addrs.iter().enumerate() {
            if !active(lane) {
                continue;
            }
            if last != Some(x) {
                for (k, &off) in offsets.iter().enumerate() {
                    for i in 0..words {
                        vals[k * 2 + i as usize] = reader.read(x + off + 4 * i as u64);
                    }
                }
                last = Some(x);
            }
            for (k, &reg) in regs.iter().enumerate() {
                for i in 0..words {
                    let slot = (reg + i) as usize * LANE_SLOTS + lane;
                    if let Some(slot) = w.vgpr.get_mut(slot) {
                        *slot = vals[k * 2 + i as usize];
                    }
                }
            }
        }
        return true;
    }
    for (lane, &x) in addrs.iter().enumerate() {
        if !active(lane) {
            continue;
        }
        for (&off, &reg) in offsets.iter().zip(&regs) {
            for i in 0..words {
                let v = w.vgpr(lane as u32, reg + i);
                w.lds.write_u32(x + off + 4 * i as u64, v);
            }
        }
    }
    true
}

/// A two-address load whose active lanes read consecutive elements at both offsets, done as
/// two row reads (`memfast::row_span`): loads change no memory, so reading each offset's
/// elements for every lane before the other's gives the registers the lane-by-lane order
/// gives (the two destinations do not overlap). False, having done nothing, otherwise.
fn pair_rows(
    w: &mut WaveState,
    addrs: &[u64],
    exec: u64,
    addr_bits: u32,
    (words, offsets, regs): (u32, [u64; 2], [u32; 2]),
) -> bool {
    let slots = super::state::LANE_SLOTS;
    let size = 4 * words as u64;
    let mut spans = [(0, 0, 0); 2];
    for (span, (&offset, &reg)) in spans.iter_mut().zip(offsets.iter().zip(&regs)) {
        let access = memfast::Access {
            addrs,
            offset,
            addr_bits,
            exec,
            reg,
        };
        let Some(s) = memfast::row_span(&access, size, false) else {
            return false;
        };
        if (reg + words) as usize * slots > w.vgpr.len() {
            return false;
        }
        *span = s;
    }
    let mut buf = [0u32; 64 * 2];
    let words = words as usize;
    for ((l0, l1, first), &reg) in spans.into_iter().zip(&regs) {
        let buf = &mut buf[..(l1 - l0 + 1) * words];
        w.lds.read_u32s_into(first, buf);
        for (k, &v) in buf.iter().enumerate() {
            let lane = l0 + k / words;
            if exec >> lane & 1 == 1 {
                w.vgpr[(reg as usize + k % words) * slots + lane] = v;
            }
        }
    }
    true
}

/// Whether the span from the lowest to the highest byte the active lanes access passes the
/// global bounds check as a whole (`Bounds::global_span_readable` for loads,
/// `Bounds::global_mapped` for stores): then every lane's access, which lies inside it,
/// passes too, and `memory::check_bounds` need not run lane by lane. False says nothing: the lane-by-lane check then decides (and names the lane).
fn global_span_ok(
    b: &super::state::Bounds,
    addrs: &[u64],
    active: &dyn Fn(usize) -> bool,
    op: &MemOp,
) -> bool {
    let [(off, n)] = op.extents[..] else {
        return false;
    };
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for (lane, &a) in addrs.iter().enumerate() {
        if active(lane) {
            let at = a.wrapping_add(off);
            lo = lo.min(at);
            hi = hi.max(at);
        }
    }
    if lo > hi {
        // No lane active: nothing to check.
        return true;
    }
    let Some(end) = hi.checked_add(n) else {
        return false;
    };
    span_fits(b, Space::Global, op.load_only, lo, end)
}

/// Whether every active lane's LDS extents pass the bounds check, judged from the highest
/// active address: when it plus the farthest extent end stays within the allocation (and
/// below 2^32, so no lane's sum wraps), every lane's does. False says nothing (the
/// lane-by-lane check then decides and names the lane).
fn lds_span_ok(b: &super::state::Bounds, addrs: &[u64], exec: u64, extents: &[(u64, u64)]) -> bool {
    let hi =
        addrs.iter().enumerate().fold(
            0u64,
            |hi, (lane, &a)| if exec >> lane & 1 == 1 { hi.max(a) } else { hi },
        );
    let Some(reach) = extents
        .iter()
        .map(|&(off, n)| off.checked_add(n))
        .max()
        .flatten()
    else {
        return false;
    };
    extents.iter().all(|&(off, n)| off.checked_add(n).is_some())
        && hi
            .checked_add(reach)
            .is_some_and(|end| span_fits(b, Space::Lds, false, 0, end))
}

/// Runs `op` (the prepared form of `d`) on the wave. `None` when the access must take the
/// pseudocode step instead (an address sum wraps), having changed nothing.
pub(super) fn run(op: &MemOp, d: &Decoded, w: &mut WaveState) -> Option<Result<(), WaveError>> {
    let exec = w.exec() & w.full_mask();
    if lean(op, w, exec) {
        return Some(Ok(()));
    }
    // The addresses of the first 32 or all 64 lane slots of the address rows (slots past
    // the wave's lanes are dropped), computed without zeroing a buffer first.
    let lanes = (w.wave_size as usize).min(LANE_SLOTS);
    let slots = |reg: u32| -> Option<&[u32; LANE_SLOTS]> {
        let row = reg as usize * LANE_SLOTS;
        w.vgpr.get(row..row + LANE_SLOTS)?.try_into().ok()
    };
    let one: [u64; 1];
    let (lo, hi, base, space) = match op.addr {
        Form::Scalar { .. } => {
            one = [op.addr.scalar_address(w)];
            return finish(op, d, w, &one, exec, Space::Global);
        }
        Form::Lds { vaddr, .. } => (slots(vaddr)?, None, 0, Space::Lds),
        Form::Global {
            vaddr,
            saddr: Some(s),
            offset,
            ..
        } => (
            slots(vaddr)?,
            None,
            w.sgpr_pair(s).wrapping_add(offset),
            Space::Global,
        ),
        Form::Global {
            vaddr,
            saddr: None,
            offset,
            ..
        } => (
            slots(vaddr)?,
            Some(slots(vaddr + 1)?),
            offset,
            Space::Global,
        ),
        Form::Scratch { .. } => {
            let mut buf = [0u64; LANE_SLOTS];
            for (lane, a) in buf[..lanes].iter_mut().enumerate() {
                *a = op.addr.lane_address(w, lane as u32);
            }
            return finish(op, d, w, &buf[..lanes], exec, Space::Scratch);
        }
        Form::Buffer(_) => return None,
    };
    if lanes <= 32 {
        let buf: [u64; 32] = lane_addrs(lo, hi, base);
        finish(op, d, w, &buf[..lanes], exec, space)
    } else {
        let buf: [u64; LANE_SLOTS] = lane_addrs(lo, hi, base);
        finish(op, d, w, &buf[..lanes], exec, space)
    }
}

/// The first `N` lanes' addresses: `base` plus the 32-bit `lo` (with `hi` as the upper half).
fn lane_addrs<const N: usize>(
    lo: &[u32; LANE_SLOTS],
    hi: Option<&[u32; LANE_SLOTS]>,
    base: u64,
) -> [u64; N] {
    match hi {
        None => std::array::from_fn(|l| base.wrapping_add(lo[l] as u64)),
        Some(hi) => std::array::from_fn(|l| base.wrapping_add(lo[l] as u64 | (hi[l] as u64) << 32)),
    }
}

/// [`run`] once the active lanes' addresses are known.
fn finish(
    op: &MemOp,
    d: &Decoded,
    w: &mut WaveState,
    addrs: &[u64],
    exec: u64,
    space: Space,
) -> Option<Result<(), WaveError>> {
    if let Some(arch) = op.flat {
        let elsewhere = addrs.iter().enumerate().any(|(lane, &a)| {
            exec >> lane & 1 == 1 && super::memory_space::aperture(arch, a) != Space::Global
        });
        if elsewhere {
            return None;
        }
    }
    if let Some(r) = row(op, w, addrs, exec, space) {
        return Some(r);
    }
    let scalar = matches!(op.addr, Form::Scalar { .. });
    let active = |lane: usize| scalar || exec >> lane & 1 == 1;
    if let Some(b) = &w.bounds {
        let whole = match space {
            Space::Global => global_span_ok(b, addrs, &active, op),
            Space::Lds => lds_span_ok(b, addrs, exec, &op.extents),
            Space::Scratch => false,
        };
        if !whole {
            let r = check_bounds(b, space, d, addrs, &active, &op.extents, op.load_only);
            if let Err(e) = r {
                return Some(Err(e));
            }
        }
    }
    access(op, w, addrs, exec, space, false).then_some(Ok(()))
}

/// Runs `op`'s access on the lanes' addresses `addrs` in `space`, once the bounds check has
/// passed: the pseudocode step calls it with the addresses it formed from the same plan
/// (`rows`: try a row first). False, having changed nothing, when an address sum wraps at the
/// width of `ADDR` (the pseudocode then runs).
pub(super) fn access(
    op: &MemOp,
    w: &mut WaveState,
    addrs: &[u64],
    exec: u64,
    space: Space,
    rows: bool,
) -> bool {
    let kind = match op.kind {
        Kind::Plain(k) => k,
        Kind::Pair {
            store,
            words,
            offsets,
            regs,
        } => {
            let pair = (store, words, offsets, regs);
            return run_pair(w, addrs, exec, op.addr_bits, pair);
        }
    };
    let access = memfast::Access {
        addrs,
        offset: op.offset,
        addr_bits: op.addr_bits,
        exec,
        reg: op.reg,
    };
    let mem = Mem::from(space);
    let done = if rows {
        memfast::run(kind, w, mem, &access)
    } else {
        memfast::run_lanes(kind, w, mem, &access)
    };
    if done {
        let scalar = matches!(op.addr, Form::Scalar { .. });
        let active = |lane: usize| scalar || exec >> lane & 1 == 1;
        track_store(w, kind, space, addrs, &active);
    }
    done
}

/// Records the bytes a store wrote in `w.written` when the wave tracks its writes.
fn track_store(
    w: &mut WaveState,
    kind: Plain,
    space: Space,
    addrs: &[u64],
    active: &dyn Fn(usize) -> bool,
) {
    if let Plain::Store { words } = kind {
        if w.track_writes && space == Space::Global {
            for (lane, &a) in addrs.iter().enumerate() {
                if active(lane) {
                    for i in 0..4 * words as u64 {
                        let b = a.wrapping_add(i);
                        let v = w.memory.byte(b);
                        w.written.insert(b, v);
                    }
                }
            }
        }
    }
}

/// A plain vector load or store whose active lanes access consecutive elements
/// (`memfast::row_span`) done as one access of the row after one bounds check of its span:
/// every lane's element lies inside the span, so each passes when it does. `None` (nothing
/// done) when the access is not such a row or the span fails the check: the lane-by-lane
/// path then runs (and names the faulting lane).
fn row(
    op: &MemOp,
    w: &mut WaveState,
    addrs: &[u64],
    exec: u64,
    space: Space,
) -> Option<Result<(), WaveError>> {
    let Kind::Plain(kind @ (Plain::Load { words } | Plain::Store { words })) = op.kind else {
        return None;
    };
    let store = matches!(kind, Plain::Store { .. });
    if matches!(op.addr, Form::Scalar { .. }) {
        return None;
    }
    let size = 4 * words as u64;
    let access = memfast::Access {
        addrs,
        offset: op.offset,
        addr_bits: op.addr_bits,
        exec,
        reg: op.reg,
    };
    let span @ (l0, l1, _) = memfast::row_span(&access, size, store)?;
    if let Some(b) = &w.bounds {
        let [(off, n)] = op.extents[..] else {
            return None;
        };
        // Addresses rise from lane l0 to l1 without wrapping (`row_span`).
        let lo = addrs[l0].checked_add(off)?;
        let end = addrs[l1].checked_add(off)?.checked_add(n)?;
        if !span_fits(b, space, op.load_only, lo, end) {
            return None;
        }
    }
    let mem = Mem::from(space);
    if !memfast::row_at(kind, w, mem, &access, span) {
        return None;
    }
    let active = |lane: usize| exec >> lane & 1 == 1;
    track_store(w, kind, space, addrs, &active);
    Some(Ok(()))
}

/// The lean row path: a plain vector load or store whose active lanes are one run of
/// consecutive elements inside one region of the memory (`SparseMemory::add_region`), or a
/// scalar load inside one, copied straight between the region's bytes and the registers,
/// judged from the 32-bit address rows without building lane addresses (a row of single
/// words elsewhere: one `read_u32s_into` or `write_u32s_from` of the memory). The conditions are
/// those of [`row`] (and, for a scalar load, of `memfast::run_lanes`): the same sums
/// without wrapping, the same bounds check of the whole span, and so the same bytes and
/// registers. False, having changed nothing, when any fails (a store while the wave tracks
/// its writes, too): the general path then runs and decides, faults included.
#[inline]
fn lean(op: &MemOp, w: &mut WaveState, exec: u64) -> bool {
    // No lane active: a vector access checks and changes nothing (as lane by lane).
    if exec == 0 && !matches!(op.addr, Form::Scalar { .. }) {
        return true;
    }
    let (words, store) = match op.kind {
        Kind::Plain(Plain::Load { words }) => (words, false),
        Kind::Plain(Plain::Store { words }) => (words, true),
        Kind::Plain(Plain::ScalarLoad { words }) => return lean_scalar(op, w, words),
        Kind::Pair {
            store: false,
            words,
            offsets,
            regs,
        } => return lean_pair(op, w, exec, words, offsets, regs),
        Kind::Pair { .. } => return false,
    };
    let words = words.min(4) as usize;
    let size = 4 * words as u64;
    let Some((l0, n)) = lane_run(exec) else {
        return false;
    };
    let (vaddr, base, wide, space) = match op.addr {
        Form::Lds { vaddr, .. } => (vaddr, 0, false, Space::Lds),
        Form::Global {
            vaddr,
            saddr: Some(s),
            offset,
            ..
        } => (
            vaddr,
            w.sgpr_pair(s).wrapping_add(offset),
            false,
            Space::Global,
        ),
        Form::Global {
            vaddr,
            saddr: None,
            offset,
            ..
        } => (vaddr, offset, true, Space::Global),
        _ => return false,
    };
    if store && w.track_writes && space == Space::Global {
        return false;
    }
    let row = |reg: u32| -> Option<&[u32]> {
        let at = reg as usize * LANE_SLOTS + l0;
        w.vgpr.get(at..at + n)
    };
    let Some(mut value) = row(vaddr).and_then(|lo| rising_row(lo, size)) else {
        return false;
    };
    if wide {
        let Some(hi) = row(vaddr + 1) else {
            return false;
        };
        let first_hi = hi[0];
        if !hi.iter().fold(true, |ok, &x| ok & (x == first_hi)) {
            return false;
        }
        value |= (first_hi as u64) << 32;
    }
    let addr0 = base.wrapping_add(value);
    let len = size * n as u64;
    if let Some(arch) = op.flat {
        // The lanes' addresses rise from `addr0` (no sum wraps: checked below before any
        // access); an aperture is one contiguous window, so both ends in the global one
        // put every lane there.
        let last = addr0.wrapping_add(size * (n as u64 - 1));
        let global = |a: u64| super::memory_space::aperture(arch, a) == Space::Global;
        if last < addr0 || !global(addr0) || !global(last) {
            return false;
        }
    }
    let mask = if op.addr_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << op.addr_bits) - 1
    };
    let Some(first) = addr0.checked_add(op.offset) else {
        return false;
    };
    match first.checked_add(len) {
        Some(end) if end - 1 <= mask => {}
        _ => return false,
    }
    let reg = op.reg as usize;
    if (reg + words) * LANE_SLOTS > w.vgpr.len() {
        return false;
    }
    let len = len as usize;
    let memory = match space {
        Space::Lds => &w.lds,
        _ => &w.memory,
    };
    // Outside a region, a row of single words still goes as one access of the memory.
    let span = memory.region_span(first, len);
    let mapped = match span {
        Some((_, mapped)) => mapped,
        None if words == 1 => false,
        None => return false,
    };
    if let Some(b) = &w.bounds {
        let [(off, bytes)] = op.extents[..] else {
            return false;
        };
        let last_addr = addr0 + size * (n as u64 - 1);
        let (Some(lo_b), Some(end_b)) = (
            addr0.checked_add(off),
            last_addr
                .checked_add(off)
                .and_then(|x| x.checked_add(bytes)),
        ) else {
            return false;
        };
        // Inside a region its owner mapped whole, the check passes (one comparison).
        let inside = mapped && first <= lo_b && end_b <= first + len as u64;
        if !inside && !span_fits(b, space, op.load_only, lo_b, end_b) {
            return false;
        }
    }
    let (memory, vgpr) = match space {
        Space::Lds => (&mut w.lds, &mut w.vgpr),
        _ => (&mut w.memory, &mut w.vgpr),
    };
    if store {
        let Some((span, _)) = span else {
            memory.write_u32s_from(first, &vgpr[reg * LANE_SLOTS + l0..][..n]);
            return true;
        };
        let bytes = memory.span_bytes_mut(span);
        for i in 0..words {
            let src = &vgpr[(reg + i) * LANE_SLOTS + l0..][..n];
            if words == 1 {
                crate::sparse::bytes_from_words(src, bytes);
            } else {
                for (k, &v) in src.iter().enumerate() {
                    let at = 4 * (k * words + i);
                    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
                }
            }
        }
    } else {
        let Some((span, _)) = span else {
            memory.read_u32s_into(first, &mut vgpr[reg * LANE_SLOTS + l0..][..n]);
            return true;
        };
        bytes_to_rows(memory.span_bytes(span), vgpr, reg, words, l0, n);
    }
    true
}

/// The active lanes as (first lane, count) when they are one run.
#[inline]
fn lane_run(exec: u64) -> Option<(usize, usize)> {
    if exec == 0 {
        return None;
    }
    let l0 = exec.trailing_zeros() as usize;
    let run = exec >> l0;
    // A run of ones from bit 0 is as long as its highest bit is high (a bit scan: no
    // population count, which the baseline x86-64 target does in software).
    (run & run.wrapping_add(1) == 0).then(|| (l0, 64 - run.leading_zeros() as usize))
}

/// The first value of `lo` when lane `k` of it holds the first plus `size * k` with no
/// 32-bit carry (so 64-bit values with a constant upper half, and their sums with a base,
/// rise by `size` too). A loop without early exit, so it vectorizes.
#[inline]
fn rising_row(lo: &[u32], size: u64) -> Option<u64> {
    let first = *lo.first()?;
    if first as u64 + size * lo.len() as u64 > 1 << 32 {
        return None;
    }
    let step = size as u32;
    let rising = lo
        .iter()
        .zip((0..lo.len() as u32).map(|k| first.wrapping_add(step.wrapping_mul(k))))
        .fold(true, |ok, (&x, want)| ok & (x == want));
    rising.then_some(first as u64)
}

/// Region bytes (`4 * words` per lane, lane after lane) into the rows `reg..reg + words`
/// of lanes `l0..l0 + n`.
#[inline]
fn bytes_to_rows(bytes: &[u8], vgpr: &mut [u32], reg: usize, words: usize, l0: usize, n: usize) {
    for i in 0..words {
        let dst = &mut vgpr[(reg + i) * LANE_SLOTS + l0..][..n];
        if words == 1 {
            crate::sparse::words_from_bytes(bytes, dst);
        } else {
            for (k, v) in dst.iter_mut().enumerate() {
                let at = 4 * (k * words + i);
                *v = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
            }
        }
    }
}

/// [`lean`] for a DS two-address load (`DS_LOAD_2ADDR_*`) whose active lanes are one run of
/// consecutive elements at both offsets, each row inside the LDS region: the checks of
/// `run_pair` (no sum wraps at the width of `ADDR`), of `lds_span_ok` (the highest address
/// plus the farthest extent within the allocation) and of `pair_rows`, then two row copies
/// (loads change no memory, so reading both rows before writing registers is what the lanes
/// do one by one).
fn lean_pair(
    op: &MemOp,
    w: &mut WaveState,
    exec: u64,
    words: u32,
    offsets: [u64; 2],
    regs: [u32; 2],
) -> bool {
    let Form::Lds { vaddr, .. } = op.addr else {
        return false;
    };
    let Some((l0, n)) = lane_run(exec) else {
        return false;
    };
    let words = words as usize;
    let size = 4 * words as u64;
    let at = vaddr as usize * LANE_SLOTS + l0;
    let Some(x0) = w.vgpr.get(at..at + n).and_then(|lo| rising_row(lo, size)) else {
        return false;
    };
    let last = x0 + size * (n as u64 - 1);
    let mask = if op.addr_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << op.addr_bits) - 1
    };
    let far = offsets[0].max(offsets[1]);
    match last.checked_add(far).and_then(|x| x.checked_add(size - 1)) {
        Some(end) if end <= mask => {}
        _ => return false,
    }
    if let Some(b) = &w.bounds {
        let mut reach = 0u64;
        for &(off, bytes) in &op.extents {
            let Some(e) = off.checked_add(bytes) else {
                return false;
            };
            reach = reach.max(e);
        }
        if last
            .checked_add(reach)
            .is_none_or(|end| !span_fits(b, Space::Lds, false, 0, end))
        {
            return false;
        }
    }
    let len = (size * n as u64) as usize;
    let mut spans = [None; 2];
    for ((&off, &reg), span) in offsets.iter().zip(&regs).zip(&mut spans) {
        let fits = (reg as usize + words) * LANE_SLOTS <= w.vgpr.len();
        *span = w.lds.region_span(x0 + off, len).filter(|_| fits);
        if span.is_none() {
            return false;
        }
    }
    for (&reg, span) in regs.iter().zip(spans) {
        if let Some((span, _)) = span {
            bytes_to_rows(
                w.lds.span_bytes(span),
                &mut w.vgpr,
                reg as usize,
                words,
                l0,
                n,
            );
        }
    }
    true
}

/// [`lean`] for a scalar load (`S_LOAD_B32`..`B512`): the words at the one address, from a
/// region, after the checks `memfast::run_lanes` and the bounds check make.
fn lean_scalar(op: &MemOp, w: &mut WaveState, words: u32) -> bool {
    if !matches!(op.addr, Form::Scalar { .. }) {
        return false;
    }
    let addr = op.addr.scalar_address(w);
    let words = words.min(16) as usize;
    let mask = if op.addr_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << op.addr_bits) - 1
    };
    // As `run_lanes`: the last word's sum must not wrap at the width of `ADDR`.
    match addr
        .checked_add(op.offset)
        .and_then(|a| a.checked_add(4 * words as u64 - 4))
    {
        Some(last) if last <= mask => {}
        _ => return false,
    }
    let first = addr + op.offset;
    let Some((bytes, mapped)) = w.memory.region(first, 4 * words) else {
        return false;
    };
    if let Some(b) = &w.bounds {
        let [(off, n)] = op.extents[..] else {
            return false;
        };
        let Some(lo) = addr.checked_add(off) else {
            return false;
        };
        let inside = mapped
            && first <= lo
            && lo
                .checked_add(n)
                .is_some_and(|e| e <= first + 4 * words as u64);
        if !inside && !fits(b, Space::Global, op.load_only, lo, n) {
            return false;
        }
    }
    let mut vals = [0u32; 16];
    crate::sparse::words_from_bytes(bytes, &mut vals[..words]);
    for (i, &v) in vals[..words].iter().enumerate() {
        w.write_sgpr(op.reg + i as u32, v);
    }
    true
}
