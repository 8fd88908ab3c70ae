//! Memory instructions: SMEM, DS, FLAT, GLOBAL and SCRATCH.
//!
//! The pseudocode of a memory entry reads and writes `MEM[ADDR]` with the address already
//! computed (the `Calc*Addr` step of AMD's text is the encoding's job), so this module
//! computes `ADDR` per lane from the address VGPRs, `saddr`/`sbase`, `soffset` and the
//! immediate offset, binds the data operands (`DATA`, `DATA2`, `VDATA`, `SDATA`) and writes
//! `RETURN_DATA`/`VDATA` to `vdst` and `SDATA` to `sdata`.
//!
//! DS instructions address the workgroup's LDS; SCRATCH instructions address each lane's
//! private memory (lane `l`'s byte `a` is stored at `l << 32 | a`); FLAT addresses are
//! treated as global. The executor's memory holds only the bytes an instruction can reach
//! (up to 16 bytes past each address it may form), so a step costs what it touches.

use std::collections::HashMap;

use crate::exec::Machine;
use crate::interp::RegValue;
use crate::value::Bits;

use super::state::WaveState;
use super::{Decoded, Entry, Executor, WaveError};

/// Whether `family` is a memory encoding this module executes.
pub(super) fn is_memory(family: &str) -> bool {
    matches!(family, "SMEM" | "DS" | "FLAT" | "GLOBAL" | "SCRATCH")
}

fn sext(v: u64, bits: u32) -> i64 {
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

/// The number of bytes a store or atomic writes, from its name.
fn access_bytes(name: &str) -> u64 {
    for (suffix, n) in [
        ("B128", 16),
        ("B96", 12),
        ("64", 8),
        ("B8", 1),
        ("B16", 2),
        ("_U8", 1),
        ("_I8", 1),
        ("_U16", 2),
        ("_I16", 2),
    ] {
        if name.contains(suffix) {
            return n;
        }
    }
    4
}

/// Executes a memory instruction.
pub(super) fn execute(
    ex: &mut Executor,
    e: &Entry,
    d: &Decoded,
    w: &mut WaveState,
) -> Result<Option<u64>, WaveError> {
    let family = d.inst.family.as_str();
    let name = d.inst.name.as_str();
    let field = |n: &str| d.inst.field(n).unwrap_or(0);
    let unsupported = |reason: &str| WaveError::Unsupported {
        addr: d.addr,
        inst: name.to_string(),
        reason: reason.to_string(),
    };
    if family == "DS" && (name == "DS_PERMUTE_B32" || name == "DS_BPERMUTE_B32") {
        permute(w, name == "DS_BPERMUTE_B32", &field);
        return Ok(None);
    }
    if name.contains("PERMUTE") || name.contains("LDS") && family != "DS" {
        return Err(unsupported("not modelled yet"));
    }
    // Each lane's scratch is its own memory, but AMD's text addresses `MEM[ADDR]` with a
    // 32-bit ADDR: a scratch access runs once per active lane, on that lane's memory.
    let exec = w.exec() & w.full_mask();
    if family == "SCRATCH" && exec.count_ones() > 1 {
        for lane in 0..w.wave_size {
            if exec >> lane & 1 == 1 {
                w.set_exec(1 << lane);
                let r = execute(ex, e, d, w);
                if r.is_err() {
                    w.set_exec(exec);
                    return r;
                }
            }
        }
        w.set_exec(exec);
        return Ok(None);
    }
    // The key prefix of the (single) active lane's scratch bytes.
    let lane_key = if family == "SCRATCH" {
        (exec.trailing_zeros() as u64) << 32
    } else {
        0
    };
    let p = &e.prepared;
    let f = &p.function;
    let lanes = w.wave_size;
    let null = super::state::null_code(w.arch).unwrap_or(u32::MAX) as u64;
    let has_op = |n: &str| e.inst.operands.iter().any(|o| o.field == n);

    // The address of each lane (SMEM: one address).
    let mut addrs: Vec<u64> = Vec::with_capacity(lanes as usize);
    match family {
        "SMEM" => {
            let base = w.sgpr_pair(field("sbase") as u32 * 2);
            let mut off = sext(field("offset"), 21) as u64;
            let soff = field("soffset");
            if d.inst.field("soffset").is_some() && soff != null && soff < 128 {
                off = off.wrapping_add(w.read_sgpr(soff as u32) as u64);
            }
            addrs.push(base.wrapping_add(off));
        }
        "DS" => {
            for lane in 0..lanes {
                addrs.push(w.vgpr(lane, field("addr") as u32) as u64);
            }
        }
        _ => {
            let saddr = field("saddr");
            let saddr_on = d.inst.field("saddr").is_some() && saddr != null && saddr != 0x7f;
            let offset = sext(field("offset"), 13) as u64;
            for lane in 0..lanes {
                let vaddr = field("addr") as u32;
                let a = match family {
                    "SCRATCH" => {
                        let sve = field("sve") == 1;
                        let mut a = 0u64;
                        if saddr_on {
                            a = w.read_sgpr(saddr as u32) as u64;
                        }
                        if sve || !saddr_on && d.inst.field("sve").is_none() {
                            a = a.wrapping_add(w.vgpr(lane, vaddr) as u64);
                        }
                        a.wrapping_add(offset) as u32 as u64
                    }
                    _ if saddr_on => w
                        .sgpr_pair(saddr as u32)
                        .wrapping_add(w.vgpr(lane, vaddr) as u64)
                        .wrapping_add(offset),
                    _ => (w.vgpr(lane, vaddr) as u64 | (w.vgpr(lane, vaddr + 1) as u64) << 32)
                        .wrapping_add(offset),
                };
                addrs.push(a);
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
    let space: &HashMap<u64, u8> = match family {
        "DS" => &w.lds,
        "SCRATCH" => &w.scratch,
        _ => &w.memory,
    };
    // The bytes the instruction can reach.
    let offsets: Vec<u64> = if family == "DS" {
        let (o0, o1) = (field("offset0"), field("offset1"));
        let mut v = vec![o0 | o1 << 8];
        for s in [4, 8, 256, 512] {
            v.push(o0 * s);
            v.push(o1 * s);
        }
        v
    } else {
        vec![0]
    };
    let reach = if family == "SMEM" { 64 } else { 16 };
    let active = |lane: usize| family == "SMEM" || exec >> lane & 1 == 1;
    for (lane, &a) in addrs.iter().enumerate() {
        if !active(lane) {
            continue;
        }
        for &o in &offsets {
            for i in 0..reach {
                let mut b = a.wrapping_add(o).wrapping_add(i);
                if family == "SCRATCH" {
                    b &= 0xffff_ffff;
                }
                m.mem
                    .insert(b, space.get(&(lane_key | b)).copied().unwrap_or(0));
            }
        }
    }
    let data_field = if has_op("data") { "data" } else { "data0" };
    for r in &f.regs {
        let width = r.width;
        let per_lane = |g: &dyn Fn(u32) -> Bits| RegValue::Lanes((0..lanes).map(g).collect());
        let v = match r.name.as_str() {
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
            "EXEC" => Some(RegValue::Uniform(Bits::from_u64(width, exec))),
            _ => None,
        };
        if let Some(v) = v {
            m.values.insert(r.name.clone(), v);
        }
    }
    m.values
        .entry("EXEC".to_string())
        .or_insert_with(|| RegValue::Uniform(Bits::from_u64(64, exec)));
    let before: HashMap<u64, u8> = m.mem.clone();
    let result = match &e.kernel {
        Some(k) => k.run(&mut m),
        None => crate::exec::run_interp(p, &mut m),
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
    // Memory write-back.
    let stores = name.contains("STORE") || name.contains("ATOMIC");
    {
        let space: &mut HashMap<u64, u8> = match family {
            "DS" => &mut w.lds,
            "SCRATCH" => &mut w.scratch,
            _ => &mut w.memory,
        };
        for (&a, &b) in &m.mem {
            if before.get(&a) != Some(&b) {
                space.insert(lane_key | a, b);
            }
        }
    }
    if stores && matches!(family, "GLOBAL" | "FLAT") {
        let n = access_bytes(name);
        for (lane, &a) in addrs.iter().enumerate() {
            if !active(lane) {
                continue;
            }
            for i in 0..n {
                let b = a.wrapping_add(i);
                let v = w.memory.get(&b).copied().unwrap_or(0);
                w.written.insert(b, v);
            }
        }
    }
    for (oname, value) in &outputs.values {
        match oname.as_str() {
            "RETURN_DATA" | "VDATA" if has_op("vdst") => {
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
    Ok(None)
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
    let lane_of =
        |i: u32| ((w.vgpr(i, addr).wrapping_add(offset) as i32) / 4).rem_euclid(32) as u32;
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
