//! Memory instructions: SMEM, DS, FLAT, GLOBAL and SCRATCH.
//!
//! The pseudocode of a memory entry reads and writes `MEM[ADDR]` with the address already
//! computed (the `Calc*Addr` step of AMD's text is the encoding's job), so this module
//! computes `ADDR` per lane from the address VGPRs, `saddr`/`sbase`, `soffset` and the
//! immediate offset, binds the data operands (`DATA`, `DATA2`, `VDATA`, `SDATA`) and writes
//! `RETURN_DATA`/`VDATA` to `vdst` and `SDATA` to `sdata`.
//!
//! DS instructions address the workgroup's LDS; SCRATCH instructions address each lane's
//! private memory (lane `l`'s byte `a` is stored at `l * SCRATCH_LANE_SPAN + a`); FLAT addresses are
//! treated as global. The executor's memory holds only the bytes an instruction can reach
//! (up to 16 bytes past each address it may form), so a step costs what it touches.

pub use super::memory_space::SCRATCH_LANE_SPAN;
pub(super) use super::memory_space::{access_bytes, scratch_key, Space};
use crate::exec::Machine;
use crate::interp::RegValue;
use crate::value::Bits;

use super::state::WaveState;
use super::{Decoded, Entry, Executor, WaveError};
use crate::machine::InstFacts;

/// Whether an instruction addresses memory this module executes (scalar, LDS, global, flat,
/// scratch and MUBUF/MTBUF buffers).
pub(super) fn is_memory(f: &InstFacts) -> bool {
    f.family.is_wave_memory()
}

/// The RDNA 3 / CDNA name of a memory family (RDNA 4's VGLOBAL, VSCRATCH and VFLAT are
/// GLOBAL, SCRATCH and FLAT with other field names).
pub(super) fn canonical_family(family: &str) -> &str {
    match family {
        "VGLOBAL" => "GLOBAL",
        "VSCRATCH" => "SCRATCH",
        "VFLAT" => "FLAT",
        f => f,
    }
}

/// The encoding's name for field `n` as this module names it (RDNA 3 / CDNA): RDNA 4 calls
/// the address VGPR `vaddr`, the store data `vsrc` and the immediate offset `ioffset`.
pub(super) fn field_name<'a>(has: &dyn Fn(&str) -> bool, n: &'a str) -> &'a str {
    match n {
        "addr" if !has("addr") && has("vaddr") => "vaddr",
        "data" if !has("data") && has("vsrc") => "vsrc",
        // MUBUF: `vdata` is the store data, the load destination and the atomic's operand.
        "data" | "vdst" if !has(n) && has("vdata") => "vdata",
        "offset" if !has("offset") && has("ioffset") => "ioffset",
        other => other,
    }
}

pub(super) fn sext(v: u64, bits: u32) -> i64 {
    ((v << (64 - bits)) as i64) >> (64 - bits)
}

fn vgpr_words(w: &WaveState, lane: u32, reg: u32, width: u32) -> Bits {
    let n = width.div_ceil(32).max(1);
    let words: Vec<u64> = (0..n.div_ceil(2))
        .map(|i| {
            let lo = w.vgpr(lane, reg + 2 * i) as u64;
            let hi = if 2 * i + 1 < n {
                w.vgpr(lane, reg + 2 * i + 1) as u64
            } else {
                0
            };
            lo | hi << 32
        })
        .collect();
    Bits::from_words(width, &words)
}

/// Whether a DS instruction's text leaves the encoding's offset out (it reads none of `OFFSET`,
/// `OFFSET0`, `OFFSET1`), so that ADDR must include it.
pub(super) fn ds_offset_in_addr(e: &Entry, name: &str) -> bool {
    let f = &e.prepared.function;
    name != "DS_SWIZZLE_B32"
        && !matches!(name, "DS_PERMUTE_B32" | "DS_BPERMUTE_B32")
        && ["OFFSET", "OFFSET0", "OFFSET1"]
            .iter()
            .all(|n| f.reg(n).is_none())
}

/// The byte ranges `(offset, bytes)` past its address that a DS instruction accesses.
pub(super) fn ds_extents(f: &InstFacts, offset0: u64, offset1: u64) -> Vec<(u64, u64)> {
    let size = access_bytes(f);
    if f.ds_two > 0 {
        let stride = size * u64::from(f.ds_two);
        vec![(offset0 * stride, size), (offset1 * stride, size)]
    } else {
        vec![(offset0 | offset1 << 8, size)]
    }
}

/// Checks every active lane's access against the launch's bounds: global loads by
/// `Bounds::global_readable` (by page, or by declared bytes), stores and atomics byte by
/// byte.
pub(super) fn check_bounds(
    b: &super::state::Bounds,
    space: Space,
    d: &Decoded,
    addrs: &[u64],
    active: &dyn Fn(usize) -> bool,
    extents: &[(u64, u64)],
    load_only: bool,
) -> Result<(), WaveError> {
    for (lane, &a) in addrs.iter().enumerate() {
        if !active(lane) {
            continue;
        }
        for &(off, n) in extents {
            let (ok, at) = match space {
                Space::Global => {
                    let at = a.wrapping_add(off);
                    let ok = if load_only {
                        b.global_readable(at, n)
                    } else {
                        b.global_mapped(at, n)
                    };
                    (ok, at)
                }
                Space::Lds => {
                    let at = (a.wrapping_add(off)) & 0xffff_ffff;
                    (at + n <= b.lds, at)
                }
                Space::Scratch => {
                    let at = (a - lane as u64 * SCRATCH_LANE_SPAN).wrapping_add(off);
                    (at.saturating_add(n) <= b.scratch, at)
                }
            };
            if !ok {
                return Err(WaveError::MemoryFault {
                    addr: d.addr,
                    inst: d.inst.name.clone(),
                    space: space.name(),
                    address: at,
                    bytes: n,
                    lane: lane as u32,
                });
            }
        }
    }
    Ok(())
}

/// Executes a memory instruction.
pub(super) fn execute(
    ex: &mut Executor,
    e: &Entry,
    d: &Decoded,
    w: &mut WaveState,
) -> Result<Option<u64>, WaveError> {
    let family = canonical_family(d.inst.family.as_str());
    let name = d.inst.name.as_str();
    let in_word = |n: &str| d.inst.field(n).is_some();
    let field = |n: &str| d.inst.field(field_name(&in_word, n)).unwrap_or(0);
    // RDNA 4's immediate offsets are 24-bit; RDNA 3's and CDNA's VMEM offsets 13-bit, their
    // SMEM offsets 21-bit.
    let offset_bits = |smem: u32| if in_word("ioffset") { 24 } else { smem };
    let unsupported = |reason: &str| WaveError::Unsupported {
        addr: d.addr,
        inst: name.to_string(),
        reason: reason.to_string(),
    };
    if let Some(log) = w.last_access.as_mut() {
        log.clear();
    }
    scale_shift(d, w).map_err(|why| unsupported(&why))?;
    // The GDS forms address the device's global data share, which a dispatch of one device's
    // waves does not model (its contents and allocation belong to the driver).
    if family == "DS" && field("gds") == 1 {
        return Err(unsupported(
            "the GDS form (gds bit set) addresses the global data share, which this model \
             does not have (only the LDS form is modelled)",
        ));
    }
    if family == "DS" && (name == "DS_PERMUTE_B32" || name == "DS_BPERMUTE_B32") {
        permute(w, name == "DS_BPERMUTE_B32", &field);
        return Ok(None);
    }
    if name.contains("PERMUTE") || name.contains("LDS") && family != "DS" {
        return Err(unsupported("not modelled yet"));
    }
    let exec = w.exec() & w.full_mask();
    let p = &e.prepared;
    let f = &p.function;
    let lanes = w.wave_size;
    let null = super::state::null_code(w.arch).unwrap_or(u32::MAX) as u64;
    let listed = |n: &str| e.inst.operands.iter().any(|o| o.field == n);
    let has_op = |n: &str| listed(field_name(&listed, n));

    // The address of each lane (SMEM: one address).
    let mut addrs: Vec<u64> = Vec::with_capacity(lanes as usize);
    // MUBUF: the space its V# addresses and each lane's bytes in range.
    let mut buffer: Option<(Space, Vec<u64>)> = None;
    match family {
        "SMEM" => {
            let base = w.sgpr_pair(field("sbase") as u32 * 2);
            let soff = field("soffset");
            let off = if d.inst.field("soffset_en").is_some() {
                // GFX9 (CDNA): `imm` selects the 21-bit offset, else its low bits name an
                // SGPR (unless `soffset_en` supplies the SGPR instead); `soffset_en` adds
                // SGPR[soffset].
                let mut off = if field("imm") == 1 {
                    sext(field("offset"), 21) as u64
                } else if field("soffset_en") == 0 {
                    w.read_sgpr(field("offset") as u32 & 0x7f) as u64
                } else {
                    0
                };
                if field("soffset_en") == 1 {
                    off = off.wrapping_add(w.read_sgpr(soff as u32) as u64);
                }
                off
            } else {
                let mut off = sext(field("offset"), offset_bits(21)) as u64;
                if d.inst.field("soffset").is_some() && soff != null && soff < 128 {
                    let shift = scale_shift(d, w).map_err(|why| unsupported(&why))?;
                    off = off.wrapping_add((w.read_sgpr(soff as u32) as u64) << shift);
                }
                off
            };
            addrs.push(base.wrapping_add(off));
        }
        "DS" => {
            // The texts of the DS atomics read `MEM[ADDR]` without the instruction's offset
            // (the loads and stores add `OFFSET` themselves): it is folded into ADDR here.
            let offset = if ds_offset_in_addr(e, name) {
                field("offset0") | field("offset1") << 8
            } else {
                0
            };
            let vaddr = field("addr") as u32;
            for lane in 0..lanes {
                addrs.push((w.vgpr(lane, vaddr) as u64 + offset) & 0xffff_ffff);
            }
        }
        "MUBUF" => {
            let lanes = super::memory_buffer::addresses(d, w)?;
            addrs = lanes.addrs;
            buffer = Some((lanes.space, lanes.in_range));
        }
        _ => addrs = vmem_addresses(d, w, family),
    }

    let smem = family == "SMEM";
    // A buffer lane runs the text when its whole access is in range (see `buffer_rest`).
    let size = access_bytes(&d.facts);
    let in_range = |lane: usize| buffer.as_ref().is_none_or(|(_, r)| r[lane] == size);
    let active = |lane: usize| smem || exec >> lane & 1 == 1 && in_range(lane);
    let mut space = match family {
        "DS" => Space::Lds,
        "SCRATCH" => Space::Scratch,
        _ => Space::Global,
    };
    if let Some((s, _)) = &buffer {
        space = *s;
    }
    // The lanes that run the text.
    let exec_text = (0..lanes as usize)
        .filter(|&l| in_range(l))
        .fold(0u64, |m, l| m | 1 << l)
        & exec;
    // A FLAT address in the shared or private aperture addresses LDS or the lane's scratch.
    if family == "FLAT" {
        space = flat_space(d, &mut addrs, &active)?;
    }
    let extents = if name == "DS_SWIZZLE_B32" {
        // A lane swizzle: the offset is the pattern and no LDS byte is accessed.
        Vec::new()
    } else if family == "DS" && ds_offset_in_addr(e, name) {
        vec![(0, access_bytes(&d.facts))]
    } else if family == "DS" {
        ds_extents(&d.facts, field("offset0"), field("offset1"))
    } else {
        vec![(0, access_bytes(&d.facts))]
    };
    if let Some(b) = w.bounds.clone() {
        let load_only = d.facts.load_only;
        match &buffer {
            Some((_, in_range)) => {
                super::memory_buffer::check_bounds(&b, space, d, &addrs, exec, in_range, load_only)?
            }
            None => check_bounds(&b, space, d, &addrs, &active, &extents, load_only)?,
        }
    }
    if let Some(log) = w.last_access.as_mut() {
        let space = match space {
            Space::Global => super::state::MemSpace::Global,
            Space::Lds => super::state::MemSpace::Lds,
            Space::Scratch => super::state::MemSpace::Scratch,
        };
        for (lane, &a) in addrs.iter().enumerate() {
            if active(lane) {
                for &(off, bytes) in &extents {
                    let addr = match space {
                        super::state::MemSpace::Lds => a.wrapping_add(off) & 0xffff_ffff,
                        _ => a.wrapping_add(off),
                    };
                    log.push(super::state::MemAccess {
                        space,
                        lane: lane as u32,
                        addr,
                        bytes,
                    });
                }
            }
        }
    }
    let data_field = if has_op("data") { "data" } else { "data0" };
    if ex.memory_fast_path && w.arch.wheel() == crate::spec::Wheel::Rdna3 && space != Space::Scratch
    {
        if let Some(kind) = super::memfast::classify(family, name) {
            let addr_bits = f.regs.iter().find(|r| r.name == "ADDR").map(|r| r.width);
            let ds_offset = family == "DS" && !ds_offset_in_addr(e, name);
            let reg = match kind {
                super::memfast::Plain::ScalarLoad { .. } => Some(field("sdata") as u32),
                super::memfast::Plain::Load { .. } if has_op("vdst") => Some(field("vdst") as u32),
                super::memfast::Plain::Store { .. } if family == "DS" => {
                    Some(field(data_field) as u32)
                }
                super::memfast::Plain::Store { .. } if has_op("data") && !has_op("vdst") => {
                    Some(field("data") as u32)
                }
                _ => None,
            };
            if let (Some(addr_bits), Some(reg), true) =
                (addr_bits, reg, family != "DS" || ds_offset)
            {
                let access = super::memfast::Access {
                    addrs: &addrs,
                    offset: if ds_offset {
                        field("offset0") | field("offset1") << 8
                    } else {
                        0
                    },
                    addr_bits,
                    exec,
                    reg,
                };
                let mem = if space == Space::Lds {
                    super::memfast::Mem::Lds
                } else {
                    super::memfast::Mem::Global
                };
                if super::memfast::run(kind, w, mem, &access) {
                    if let super::memfast::Plain::Store { words } = kind {
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
                    return Ok(None);
                }
            }
        }
    }
    let mut m = std::mem::replace(&mut ex.machine, Machine::new(lanes));
    m.wave_size = lanes;
    m.values.clear();
    m.vgpr.clear();
    m.sgpr.clear();
    m.hwreg.clear();
    m.mem.clear();
    for r in &f.regs {
        let width = r.width;
        let per_lane = |g: &dyn Fn(u32) -> Bits| RegValue::Lanes((0..lanes).map(g).collect());
        let v = match r.name.as_str() {
            // DS_SWIZZLE_B32's text addresses the VGPR file by register number.
            "ADDR" if name == "DS_SWIZZLE_B32" => {
                Some(RegValue::Uniform(Bits::from_u64(width, field("addr"))))
            }
            // Texts that write the VGPR file themselves (DS_SWIZZLE_B32, the DS_APPEND and
            // DS_CONSUME errata: `VGPR[lane][VDST]`) take the register number.
            "VDST" if name == "DS_SWIZZLE_B32" || e.vgpr_space => {
                Some(RegValue::Uniform(Bits::from_u64(width, field("vdst"))))
            }
            "ADDR" => Some(if family == "SMEM" {
                RegValue::Uniform(Bits::from_u64(width, addrs[0]))
            } else {
                per_lane(&|l| Bits::from_u64(width, addrs[l as usize]))
            }),
            "OFFSET" => Some(RegValue::Uniform(Bits::from_u64(
                width,
                if family == "DS" {
                    field("offset0") | field("offset1") << 8
                } else {
                    field("offset")
                },
            ))),
            "OFFSET0" => Some(RegValue::Uniform(Bits::from_u64(width, field("offset0")))),
            "OFFSET1" => Some(RegValue::Uniform(Bits::from_u64(width, field("offset1")))),
            "DATA" | "DATA0" => {
                let reg = field(data_field) as u32;
                Some(per_lane(&|l| vgpr_words(w, l, reg, width)))
            }
            "DATA1" | "DATA2" => {
                let reg = field("data1") as u32;
                Some(per_lane(&|l| vgpr_words(w, l, reg, width)))
            }
            "VDATA" => {
                let reg = if has_op("data") && !has_op("vdst") {
                    field("data")
                } else {
                    field("vdst")
                } as u32;
                Some(per_lane(&|l| vgpr_words(w, l, reg, width)))
            }
            "RETURN_DATA" => {
                let reg = field("vdst") as u32;
                Some(per_lane(&|l| vgpr_words(w, l, reg, width)))
            }
            "SDATA" => {
                let c = field("sdata") as u32;
                let n = width.div_ceil(32);
                let words: Vec<u64> = (0..n.div_ceil(2))
                    .map(|i| {
                        w.read_sgpr(c + 2 * i) as u64 | (w.read_sgpr(c + 2 * i + 1) as u64) << 32
                    })
                    .collect();
                Some(RegValue::Uniform(Bits::from_words(width, &words)))
            }
            "M0" => Some(RegValue::Uniform(Bits::from_u64(width, w.m0() as u64))),
            "EXEC" => Some(RegValue::Uniform(Bits::from_u64(width, exec_text))),
            _ => None,
        };
        if let Some(v) = v {
            m.values.insert(r.name.clone(), v);
        }
    }
    m.values
        .entry("EXEC".to_string())
        .or_insert_with(|| RegValue::Uniform(Bits::from_u64(64, exec_text)));
    // DS_SWIZZLE_B32 reads and writes the VGPR file itself (`VGPR[lane][ADDR]`, `VDST`).
    let swizzle = name == "DS_SWIZZLE_B32" || e.vgpr_space;
    if swizzle {
        for reg in [field("addr") as u32, field("vdst") as u32] {
            for lane in 0..lanes {
                m.vgpr.insert((lane, reg), w.vgpr(lane, reg));
            }
        }
    }
    // The pseudocode reads and writes the addressed memory itself.
    let result = {
        let space_map: &mut crate::sparse::SparseMemory = match space {
            Space::Lds => &mut w.lds,
            Space::Scratch => &mut w.scratch,
            Space::Global => &mut w.memory,
        };
        let run = |m: &mut Machine, mem: &mut crate::sparse::SparseMemory| match e.kernel() {
            Some(k) => k.run_with(m, Some(mem)),
            None => crate::exec::run_interp_with(p, m, Some(mem)),
        };
        if d.facts.lane_serial {
            // An atomic's text (`tmp = MEM[ADDR]; ...; MEM[ADDR] = f(tmp, DATA)`) runs one lane
            // at a time, in lane order, so lanes that address the same bytes see each other's
            // updates (the executors evaluate a statement for every lane before the next).
            let mut merged: Option<crate::exec::Outputs> = None;
            let mut failed = None;
            for lane in 0..lanes as usize {
                if !active(lane) {
                    continue;
                }
                m.values.insert(
                    "EXEC".to_string(),
                    RegValue::Uniform(Bits::from_u64(64, 1u64 << lane)),
                );
                match run(&mut m, space_map) {
                    Ok(o) => match merged.as_mut() {
                        None => merged = Some(o),
                        Some(all) => {
                            for (name, value) in o.values {
                                let RegValue::Lanes(l) = value else { continue };
                                if let Some((_, RegValue::Lanes(to))) =
                                    all.values.iter_mut().find(|(n, _)| *n == name)
                                {
                                    to[lane] = l[lane].clone();
                                }
                            }
                        }
                    },
                    Err(err) => {
                        failed = Some(err);
                        break;
                    }
                }
            }
            m.values.insert(
                "EXEC".to_string(),
                RegValue::Uniform(Bits::from_u64(64, exec_text)),
            );
            match (failed, merged) {
                (Some(err), _) => Err(err),
                (None, Some(o)) => Ok(o),
                (None, None) => run(&mut m, space_map),
            }
        } else {
            run(&mut m, space_map)
        }
    };
    let outputs = match result {
        Ok(o) => o,
        Err(err) => {
            ex.machine = m;
            return Err(WaveError::Exec {
                addr: d.addr,
                inst: name.to_string(),
                message: err.to_string(),
            });
        }
    };
    if swizzle {
        for (&(lane, reg), &v) in &m.vgpr {
            if (reg as usize) < w.vgpr_rows() && lane < lanes {
                w.set_vgpr(lane, reg, v);
            }
        }
    }
    let stores = d.facts.stores;
    if stores
        && w.track_writes
        && space == Space::Global
        && matches!(family, "GLOBAL" | "FLAT" | "MUBUF")
    {
        let n = access_bytes(&d.facts);
        for (lane, &a) in addrs.iter().enumerate() {
            if !active(lane) {
                continue;
            }
            for i in 0..n {
                let b = a.wrapping_add(i);
                let v = w.memory.byte(b);
                w.written.insert(b, v);
            }
        }
    }
    for (oname, value) in &outputs.values {
        match oname.as_str() {
            "RETURN_DATA" | "VDATA"
                if has_op("vdst") && d.facts.returns_data(|f| d.inst.field(f)) =>
            {
                let reg = field("vdst") as u32;
                if let RegValue::Lanes(l) = value {
                    for lane in 0..lanes {
                        if !active(lane as usize) {
                            continue;
                        }
                        let v = &l[lane as usize];
                        for i in 0..v.width().div_ceil(32) {
                            let word = v.extract(i as u64 * 32, 32).low_u64() as u32;
                            w.set_vgpr(lane, reg + i, word);
                        }
                    }
                }
            }
            "SDATA" => {
                let c = field("sdata") as u32;
                let v = match value {
                    RegValue::Uniform(b) => b.clone(),
                    RegValue::Lanes(l) => l[0].clone(),
                };
                for i in 0..v.width().div_ceil(32) {
                    w.write_sgpr(c + i, v.extract(i as u64 * 32, 32).low_u64() as u32);
                }
            }
            _ => {}
        }
    }
    ex.machine = m;
    if let Some((_, in_range)) = &buffer {
        let back = d.facts.returns_data(|f| d.inst.field(f));
        super::memory_buffer::finish(d, w, space, &addrs, exec, in_range, back);
    }
    Ok(None)
}

/// The address of each lane of a GLOBAL, FLAT or SCRATCH instruction (`family` in its
/// RDNA 3 / CDNA spelling): the SGPR base `saddr` (when on) plus the address VGPR (32 bits with
/// `saddr`, else a 64-bit pair; SCRATCH: 32 bits, by `sve`) plus the signed immediate offset.
/// SCRATCH addresses are scratch-map keys (lane `l`'s byte `a` at `l * SCRATCH_LANE_SPAN + a`).
pub(super) fn vmem_addresses(d: &Decoded, w: &WaveState, family: &str) -> Vec<u64> {
    let in_word = |n: &str| d.inst.field(n).is_some();
    let field = |n: &str| d.inst.field(field_name(&in_word, n)).unwrap_or(0);
    let offset_bits = if in_word("ioffset") { 24 } else { 13 };
    let null = super::state::null_code(w.arch).unwrap_or(u32::MAX) as u64;
    let saddr = field("saddr");
    // GFX9 (CDNA) FLAT-segment instructions ignore `saddr` (LLVM encodes 0 there,
    // which is `s[0:1]` to GLOBAL/SCRATCH): only GLOBAL and SCRATCH add it.
    let flat_ignores_saddr = family == "FLAT" && w.arch.is_gfx9();
    let saddr_on =
        d.inst.field("saddr").is_some() && saddr != null && saddr != 0x7f && !flat_ignores_saddr;
    let offset = sext(field("offset"), offset_bits) as u64;
    let vaddr = field("addr") as u32;
    let scratch = family == "SCRATCH";
    let sve = field("sve") == 1;
    let saddr_base = if saddr_on {
        w.sgpr_pair(saddr as u32)
    } else {
        0
    };
    // gfx1250's `scale_offset` (refused where it cannot apply by `scale_shift`, which the
    // callers run first).
    let shift = scale_shift(d, w).unwrap_or(0);
    (0..w.wave_size)
        .map(|lane| match () {
            _ if scratch => {
                let mut a = 0u64;
                if saddr_on {
                    a = w.read_sgpr(saddr as u32) as u64;
                }
                if sve || !saddr_on && d.inst.field("sve").is_none() {
                    a = a.wrapping_add((w.vgpr(lane, vaddr) as u64) << shift);
                }
                scratch_key(lane, a.wrapping_add(offset) as u32)
            }
            _ if saddr_on => saddr_base
                .wrapping_add((w.vgpr(lane, vaddr) as u64) << shift)
                .wrapping_add(offset),
            _ => (w.vgpr(lane, vaddr) as u64 | (w.vgpr(lane, vaddr + 1) as u64) << 32)
                .wrapping_add(offset),
        })
        .collect()
}

/// The left shift gfx1250's `scale_offset` bit applies to the register offset of a scalar
/// or flat-family access: log2 of the access size in bytes (LLVM sets the bit when it folds
/// `offset << log2(size)` into the address: `global_load_b32 v1, v0, s[4:5] scale_offset`
/// reads `s[4:5] + v0 * 4`). The register offset is SGPR `soffset` (SMEM), VGPR `vaddr`
/// with an SGPR base (GLOBAL, FLAT) and the `sve` VGPR (SCRATCH). An access with no such
/// register, or of a size that is not a power of two, is refused: what the bit does there
/// is not documented.
pub(super) fn scale_shift(d: &Decoded, w: &WaveState) -> Result<u32, String> {
    if d.inst.field("scale_offset").unwrap_or(0) == 0 {
        return Ok(0);
    }
    let bytes = access_bytes(&d.facts);
    if !bytes.is_power_of_two() {
        return Err(format!(
            "scale_offset on a {bytes}-byte access is not modelled (no documented scale)"
        ));
    }
    let null = super::state::null_code(w.arch).unwrap_or(u32::MAX) as u64;
    let field = |n: &str| d.inst.field(n).unwrap_or(0);
    let family = canonical_family(d.inst.family.as_str());
    let has_register = match family {
        "SMEM" => field("soffset") != null && field("soffset") < 128,
        "SCRATCH" => field("sve") == 1,
        _ => {
            let saddr = field("saddr");
            d.inst.field("saddr").is_some() && saddr != null && saddr != 0x7f
        }
    };
    if !has_register {
        return Err(
            "scale_offset without a register offset to scale (SMEM soffset, an SGPR base with \
             GLOBAL/FLAT, sve with SCRATCH) is not modelled"
                .to_string(),
        );
    }
    Ok(bytes.trailing_zeros())
}

/// The memory a FLAT instruction addresses, from the aperture of its active lanes'
/// addresses; LDS and scratch addresses are rewritten to their offsets (scratch: per lane).
fn flat_space(
    d: &Decoded,
    addrs: &mut [u64],
    active: &dyn Fn(usize) -> bool,
) -> Result<Space, WaveError> {
    use super::state::{PRIVATE_APERTURE, SHARED_APERTURE};
    let aperture = |a: u64| match a >> 32 {
        x if x == SHARED_APERTURE >> 32 => Space::Lds,
        x if x == PRIVATE_APERTURE >> 32 => Space::Scratch,
        _ => Space::Global,
    };
    let mut space = None;
    for (lane, a) in addrs.iter_mut().enumerate() {
        if !active(lane) {
            continue;
        }
        let s = aperture(*a);
        if space.is_some_and(|x| x != s) {
            return Err(WaveError::Unsupported {
                addr: d.addr,
                inst: d.inst.name.clone(),
                reason: "FLAT access whose lanes address different apertures".into(),
            });
        }
        space = Some(s);
        match s {
            Space::Lds => *a &= 0xffff_ffff,
            Space::Scratch => *a = scratch_key(lane as u32, *a as u32),
            Space::Global => {}
        }
    }
    Ok(space.unwrap_or(Space::Global))
}

/// `ds_permute_b32` (forward: lane i sends `data0` to lane `addr / 4`) and
/// `ds_bpermute_b32` (backward: lane i reads `data0` of lane `addr / 4`), as AMD's text
/// describes them. The text declares `OFFSET`, `DATA0` and `VDST` as locals instead of
/// reading the encoding, and addresses the VGPR file by operand number, which the DS path does
/// not bind; this is the same algorithm over the wave's VGPRs. The lane index is
/// `(addr + offset) / 4 % 32` as the text says ("regardless of wave size"); in a
/// `permute`, the highest active source lane wins; inactive lanes send, read and write nothing.
fn permute(w: &mut WaveState, backward: bool, field: &dyn Fn(&str) -> u64) {
    let lanes = w.wave_size;
    let exec = w.exec();
    let offset = (field("offset0") | field("offset1") << 8) as u32;
    let (addr, data, vdst) = (
        field("addr") as u32,
        field("data0") as u32,
        field("vdst") as u32,
    );
    // RDNA's text: `32'I(addr + offset) / 4 % 32` ("MOD 32 regardless of wave size"); CDNA's:
    // `(addr + offset) / 4U % 64U` (a wave64 permute reaches every lane).
    let cdna = w.arch.is_gfx9();
    let lane_of = |i: u32| {
        let a = w.vgpr(i, addr).wrapping_add(offset);
        if cdna {
            a / 4 % 64
        } else {
            ((a as i32) / 4).rem_euclid(32) as u32
        }
    };
    let mut tmp = vec![0u32; lanes as usize];
    for i in 0..lanes {
        let other = lane_of(i);
        if backward {
            if other < lanes && exec >> other & 1 == 1 {
                tmp[i as usize] = w.vgpr(other, data);
            }
        } else if exec >> i & 1 == 1 && other < lanes {
            tmp[other as usize] = w.vgpr(i, data);
        }
    }
    for i in 0..lanes {
        if exec >> i & 1 == 1 {
            w.set_vgpr(i, vdst, tmp[i as usize]);
        }
    }
}
