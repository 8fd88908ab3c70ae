//! Memory instructions: SMEM, DS, FLAT, GLOBAL, SCRATCH and MUBUF, the pseudocode step.
//!
//! The pseudocode of a memory entry reads and writes `MEM[ADDR]` with the address already
//! computed (the `Calc*Addr` step of AMD's text is the encoding's job). What an instruction
//! does is decided once, in its plan (`memory_plan.rs`: address form, memory, bounds extents
//! and fault rule, registers, write-back, refusals); this module interprets the plan: it forms
//! `ADDR` per lane, checks bounds, binds the data operands (`DATA`, `DATA2`, `VDATA`, `SDATA`)
//! from the plan's registers, runs the text and writes `RETURN_DATA`/`VDATA` and `SDATA` back.
//! A plain access with a prepared plan (`memprep`) runs that instead of the text.
//!
//! DS instructions address the workgroup's LDS; SCRATCH instructions address each lane's
//! private memory (lane `l`'s byte `a` is stored at `l * SCRATCH_LANE_SPAN + a`); FLAT addresses are
//! treated as global. The executor's memory holds only the bytes an instruction can reach
//! (up to 16 bytes past each address it may form), so a step costs what it touches.

pub(super) use super::memory_plan::{check_bounds, field_name, sext};
pub use super::memory_space::SCRATCH_LANE_SPAN;
pub(super) use super::memory_space::{aperture, scratch_key, Space};
use crate::exec::Machine;
use crate::interp::RegValue;
use crate::value::Bits;

use super::memory_plan::{Action, Bind, Form};
use super::memprep::Planned;
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

/// Executes a memory instruction, building its plan (the executor's step passes the plan it
/// keeps per instruction to [`run`] instead).
pub(super) fn execute(
    ex: &mut Executor,
    e: &Entry,
    d: &Decoded,
    w: &mut WaveState,
) -> Result<Option<u64>, WaveError> {
    let planned = Planned::build(e, d, w.arch);
    run(ex, e, &planned, d, w)
}

/// Executes memory instruction `d` (its entry `e`) by its plan.
pub(super) fn run(
    ex: &mut Executor,
    e: &Entry,
    planned: &Planned,
    d: &Decoded,
    w: &mut WaveState,
) -> Result<Option<u64>, WaveError> {
    let plan = &planned.plan;
    let name = d.inst.name.as_str();
    let unsupported = |reason: &str| WaveError::Unsupported {
        addr: d.addr,
        inst: name.to_string(),
        reason: reason.to_string(),
    };
    if let Some(log) = w.last_access.as_mut() {
        log.clear();
    }
    if let Some(why) = &plan.refusal {
        return Err(unsupported(why));
    }
    if let Action::Permute { backward } = plan.action {
        permute(w, backward, &plan.bind);
        return Ok(None);
    }
    let swizzle = plan.action == Action::Swizzle;
    let bind = &plan.bind;
    let exec = w.exec() & w.full_mask();
    let p = &e.prepared;
    let f = &p.function;
    let lanes = w.wave_size;
    let smem = matches!(plan.form, Form::Scalar { .. });

    // The address of each lane (SMEM: one address); MUBUF: the space its V# addresses and
    // each lane's bytes in range.
    let mut buffer: Option<(Space, Vec<u64>)> = None;
    let mut addrs: Vec<u64> = match &plan.form {
        Form::Scalar { .. } => vec![plan.form.scalar_address(w)],
        Form::Buffer(form) => {
            let lanes = super::memory_buffer::addresses(d, form, plan.size, w)?;
            buffer = Some((lanes.space, lanes.in_range));
            lanes.addrs
        }
        form => form.lane_addresses(w),
    };

    // A buffer lane runs the text when its whole access is in range (`memory_buffer::finish` does the rest).
    let size = plan.size;
    let in_range = |lane: usize| buffer.as_ref().is_none_or(|(_, r)| r[lane] == size);
    let active = |lane: usize| smem || exec >> lane & 1 == 1 && in_range(lane);
    let mut space = plan.space;
    if let Some((s, _)) = &buffer {
        space = *s;
    }
    // The lanes that run the text.
    let exec_text = (0..lanes as usize)
        .filter(|&l| in_range(l))
        .fold(0u64, |m, l| m | 1 << l)
        & exec;
    // A FLAT address in the shared or private aperture addresses LDS or the lane's scratch.
    if plan.flat {
        space = flat_space(d, w.arch, &mut addrs, &active)?;
    }
    let extents = &plan.extents;
    if let Some(b) = w.bounds.clone() {
        let load_only = plan.load_only;
        match &buffer {
            Some((_, in_range)) => {
                super::memory_buffer::check_bounds(&b, space, d, &addrs, exec, in_range, load_only)?
            }
            None => check_bounds(&b, space, d, &addrs, &active, extents, load_only)?,
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
                for &(off, bytes) in extents {
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
    // A plain access runs its prepared plan on the addresses formed above.
    if let (Some(op), true) = (&planned.fast, ex.memory_fast_path) {
        if super::memprep::access(op, w, &addrs, exec, space, true) {
            return Ok(None);
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
            "ADDR" if swizzle => Some(RegValue::Uniform(Bits::from_u64(width, bind.addr as u64))),
            // Texts that write the VGPR file themselves (DS_SWIZZLE_B32, the DS_APPEND and
            // DS_CONSUME errata: `VGPR[lane][VDST]`) take the register number.
            "VDST" if swizzle || e.vgpr_space => {
                Some(RegValue::Uniform(Bits::from_u64(width, bind.vdst as u64)))
            }
            "ADDR" => Some(if smem {
                RegValue::Uniform(Bits::from_u64(width, addrs[0]))
            } else {
                per_lane(&|l| Bits::from_u64(width, addrs[l as usize]))
            }),
            "OFFSET" => Some(RegValue::Uniform(Bits::from_u64(width, bind.offset))),
            "OFFSET0" => Some(RegValue::Uniform(Bits::from_u64(width, bind.offset0))),
            "OFFSET1" => Some(RegValue::Uniform(Bits::from_u64(width, bind.offset1))),
            "DATA" | "DATA0" => {
                let reg = bind.data;
                Some(per_lane(&|l| vgpr_words(w, l, reg, width)))
            }
            "DATA1" | "DATA2" => {
                let reg = bind.data1;
                Some(per_lane(&|l| vgpr_words(w, l, reg, width)))
            }
            "VDATA" => {
                let reg = bind.vdata;
                Some(per_lane(&|l| vgpr_words(w, l, reg, width)))
            }
            "RETURN_DATA" => {
                let reg = bind.vdst;
                Some(per_lane(&|l| vgpr_words(w, l, reg, width)))
            }
            "SDATA" => {
                let c = bind.sdata;
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
    if swizzle || e.vgpr_space {
        for reg in [bind.addr, bind.vdst] {
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
        if plan.lane_serial {
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
    if swizzle || e.vgpr_space {
        for (&(lane, reg), &v) in &m.vgpr {
            if (reg as usize) < w.vgpr_rows() && lane < lanes {
                w.set_vgpr(lane, reg, v);
            }
        }
    }
    if plan.track_stores && w.track_writes && space == Space::Global {
        let n = size;
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
            "RETURN_DATA" | "VDATA" if plan.ret_vgpr.is_some() => {
                let reg = bind.vdst;
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
                let c = bind.sdata;
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
        super::memory_buffer::finish(d, plan, w, space, &addrs, exec, in_range);
    }
    Ok(None)
}

/// The address of each lane of a GLOBAL, FLAT or SCRATCH instruction (`family` in its
/// RDNA 3 / CDNA spelling), by its plan's address form (`memory_plan::vmem_form`).
/// SCRATCH addresses are scratch-map keys (lane `l`'s byte `a` at `l * SCRATCH_LANE_SPAN + a`).
pub(super) fn vmem_addresses(d: &Decoded, w: &WaveState, family: &str) -> Vec<u64> {
    use crate::machine::Family;
    let family = match family {
        "SCRATCH" => Family::Scratch,
        "FLAT" => Family::Flat,
        _ => Family::Global,
    };
    // gfx1250's `scale_offset` (refused where it cannot apply by `scale_shift`, which the
    // callers run first).
    let shift = scale_shift(d, w).unwrap_or(0);
    super::memory_plan::vmem_form(d, w.arch, family, shift).lane_addresses(w)
}

/// The left shift gfx1250's `scale_offset` bit applies (`memory_plan::scale_shift`).
pub(super) fn scale_shift(d: &Decoded, w: &WaveState) -> Result<u32, String> {
    super::memory_plan::scale_shift(d, w.arch)
}

/// The memory a FLAT instruction addresses, from the aperture of its active lanes'
/// addresses; LDS and scratch addresses are rewritten to their offsets (scratch: per lane).
///
/// gfx1250 addresses private memory through its flat scratch base instead
/// (`src_flat_scratch_base_lo/hi`, [`FLAT_SCRATCH_BASE`]): a flat address `base + (lane <<
/// 52) + offset` is byte `offset` of lane `lane`'s scratch (clang-22 builds `lane << 52`
/// from `v_mbcnt_lo_u32_b32` when it casts a private pointer to a flat one), so a lane may
/// address another lane's private memory.
fn flat_space(
    d: &Decoded,
    arch: crate::spec::Arch,
    addrs: &mut [u64],
    active: &dyn Fn(usize) -> bool,
) -> Result<Space, WaveError> {
    use super::state::FLAT_SCRATCH_BASE;
    let gfx1250 = arch == crate::spec::Arch::Cdna5;
    let aperture = |a: u64| aperture(arch, a);
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
            Space::Scratch if gfx1250 => {
                let rel = a.wrapping_sub(FLAT_SCRATCH_BASE);
                if rel >> 32 & 0xf_ffff != 0 {
                    return Err(WaveError::Unsupported {
                        addr: d.addr,
                        inst: d.inst.name.clone(),
                        reason: format!(
                            "lane {lane}: flat address {a:#x} lies in the private aperture \
                             beyond a lane's 4 GiB (bits 51:32 of its offset from the flat \
                             scratch base are not zero)"
                        ),
                    });
                }
                *a = scratch_key((rel >> 52) as u32, rel as u32);
            }
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
fn permute(w: &mut WaveState, backward: bool, bind: &Bind) {
    let lanes = w.wave_size;
    let exec = w.exec();
    let offset = bind.offset as u32;
    let (addr, data, vdst) = (bind.addr, bind.data, bind.vdst);
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
