//! Instructions the wave layer models itself because AMD's tables give them no text, or
//! only prose: LDS DMA loads, the transposing loads of the matrix pipelines, the time
//! counters, the MODE-setting immediates and the returning messages. Each model and its
//! evidence is described in `docs/wave.md` ("Native models"); `spec fidelity` lists them as
//! `native` with [`describe`]'s text.
//!
//! The time counters read [`WaveState::retired`], the number of instructions the wave has
//! executed before the current one: a deterministic clock that advances by one per
//! instruction under every engine (block-compiled runs add the instructions of each block).

use super::memory::{self, Space};
use super::state::{MemAccess, MemSpace, WaveState};
use super::{Decoded, WaveError};
use crate::machine::facts::Refusal;
use crate::spec::{Arch, Family};

/// What a native instruction does (a fact of the instruction: `machine::facts`).
pub use crate::machine::Native;

/// The `spec fidelity` text of a native model.
pub fn describe(kind: Native) -> &'static str {
    match kind {
        Native::LdsDma => {
            "LDS DMA: each active lane loads its element from global (or scratch) memory as the \
             plain load would; the value, zero- or sign-extended to 32 bits when narrower, is \
             written to LDS at M0 + instruction offset + lane * 4 (lane * 16 for 12- and \
             16-byte loads); ADDTID: global address saddr + offset + lane * 4; buffer forms \
             (RDNA 3 BUFFER_LOAD_LDS_*, CDNA MUBUF loads with the lds bit): V# base + soffset + \
             index * stride + voffset + offset, zeros when out of the V#'s range; no VGPR \
             written"
        }
        Native::Transpose => {
            "transposing load: each active lane loads its 64/96/128 bits like a plain load; \
             in each group of 16 lanes with E elements per lane, lane m's element k is element \
             m % E of lane (16 / E) * k + m / E (LLVM/Triton's ds_read_tr layout)"
        }
        Native::MemTime => {
            "time counter: the 64-bit count of instructions the wave executed before this one \
             (a deterministic clock, one tick per instruction) into the SGPR pair"
        }
        Native::SetMode { .. } => {
            "MODE from the immediate: S_ROUND_MODE sets MODE[3:0] (FP_ROUND), S_DENORM_MODE \
             MODE[7:4] (FP_DENORM), from SIMM16[3:0]"
        }
        Native::SendMsgRtn => {
            "returning message: MSG_RTN_GET_REALTIME returns the instruction clock (64 bits, or \
             its low 32); the other messages name driver state and are refused with an error"
        }
        Native::LdsDirect => {
            "LDS direct load: one value read from LDS at the byte address M0[15:0], of the data \
             type M0[18:16] (0 unsigned byte, 1 unsigned short, 4 signed byte, 5 signed short, \
             zero- or sign-extended to 32 bits; 2 and the reserved 3, 6, 7 a dword), written to \
             VDST in every lane of each quad with an active lane; the wait fields are the \
             sanitizer's (`--check`)"
        }
    }
}

/// Why an instruction is refused, when no single-device model of it is well defined.
pub fn refused(why: Refusal) -> &'static str {
    match why {
        Refusal::GlobalWaveSync => {
            "global wave sync (GWS) resources are shared by all the waves of a device and set \
             up by the driver and other queues; no single-dispatch model of their state is \
             defined"
        }
        Refusal::OrderedAppend => {
            "ordered append works on the graphics pipeline's ordered wave IDs \
             (VGT_GS_MAX_WAVE_ID, the dispatch order of the geometry front end), which a \
             compute dispatch model does not have"
        }
        Refusal::BufferFormat => {
            "buffer format access: the conversion by the V#'s data and number formats \
             (ConvertFromFormat, ChannelOffset) is not modelled"
        }
        Refusal::BufferLds => "buffer access to LDS (M0-addressed) is not modelled",
        Refusal::ScalarBuffer => {
            "scalar buffer access: the scalar unit's V# addressing and range rules are not \
             modelled"
        }
        Refusal::Image => {
            "image access: the image resource (T#) addressing, tiling and format conversion \
             are not modelled"
        }
        Refusal::BufferResource => {
            "buffer access on gfx1250: its buffer resource (V#) layout is not modelled (neither \
             AMD's RDNA 4 text nor llvm-mc describes it)"
        }
    }
}

fn field(d: &Decoded, n: &str) -> u64 {
    let in_word = |f: &str| d.inst.field(f).is_some();
    d.inst.field(memory::field_name(&in_word, n)).unwrap_or(0)
}

/// Runs a native instruction.
pub(super) fn execute(kind: Native, d: &Decoded, w: &mut WaveState) -> Result<(), WaveError> {
    if let Some(log) = w.last_access.as_mut() {
        log.clear();
    }
    memory::scale_shift(d, w).map_err(|reason| WaveError::Unsupported {
        addr: d.addr,
        inst: d.inst.name.clone(),
        reason,
    })?;
    match kind {
        Native::LdsDma => lds_dma(d, w),
        Native::Transpose => transpose(d, w),
        Native::MemTime => {
            // SMEM `sdata`, or the SOP1 `sdst` of `s_get_shader_cycles_u64`.
            let c = d.inst.field("sdst").unwrap_or_else(|| field(d, "sdata")) as u32;
            w.write_sgpr(c, w.retired as u32);
            w.write_sgpr(c + 1, (w.retired >> 32) as u32);
            Ok(())
        }
        Native::SetMode { shift } => {
            let imm = (field(d, "simm16") & 0xf) as u32;
            w.mode = (w.mode & !(0xf << shift)) | (imm << shift);
            Ok(())
        }
        Native::SendMsgRtn => send_msg_rtn(d, w),
        Native::LdsDirect => lds_direct(d, w),
    }
}

/// `LDS_DIRECT_LOAD` / `DS_DIRECT_LOAD`: M0 = { 13'0, data type[2:0], LDS byte address[15:0] }
/// (RDNA 3 and RDNA 4 ISA, "LDS Direct Load"); the value goes to every lane of a quad that has
/// an active lane (the LDS-direct instructions write whole quads, as pixel-shader code
/// expects).
fn lds_direct(d: &Decoded, w: &mut WaveState) -> Result<(), WaveError> {
    let m0 = w.m0();
    let addr = u64::from(m0 & 0xffff);
    let (size, signed) = match m0 >> 16 & 7 {
        0 => (1, false),
        1 => (2, false),
        4 => (1, true),
        5 => (2, true),
        _ => (4, false),
    };
    let exec = w.exec() & w.full_mask();
    let quads = |lane: usize| exec >> (lane & !3) & 0xf != 0;
    if exec != 0 {
        if let Some(b) = w.bounds.clone() {
            memory::check_bounds(&b, Space::Lds, d, &[addr], &|_| true, &[(0, size)], true)?;
        }
    }
    let mut buf = [0u8; 4];
    w.lds.read(addr, &mut buf[..size as usize]);
    let raw = u32::from_le_bytes(buf);
    let value = if signed {
        memory::sext(u64::from(raw), size as u32 * 8) as u32
    } else {
        raw
    };
    let vdst = field(d, "vdst") as u32;
    for lane in 0..w.wave_size as usize {
        if quads(lane) {
            w.set_vgpr(lane as u32, vdst, value);
            log(w, MemSpace::Lds, lane as u32, addr, size);
        }
    }
    Ok(())
}

/// `MSG_RTN_GET_REALTIME`'s message ID (RDNA 3 and 4; LLVM's `SIDefines.h`).
const MSG_RTN_GET_REALTIME: u64 = 131;

fn send_msg_rtn(d: &Decoded, w: &mut WaveState) -> Result<(), WaveError> {
    let msg = field(d, "ssrc0") & 0xff;
    if msg != MSG_RTN_GET_REALTIME {
        let name = match msg {
            128 => "MSG_RTN_GET_DOORBELL",
            129 => "MSG_RTN_GET_DDID",
            130 => "MSG_RTN_GET_TMA",
            132 => "MSG_RTN_SAVE_WAVE",
            133 => "MSG_RTN_GET_TBA",
            134 => "MSG_RTN_GET_SE_AID_ID",
            _ => "an unknown message",
        };
        return Err(WaveError::Unsupported {
            addr: d.addr,
            inst: d.inst.name.clone(),
            reason: format!(
                "message {msg} ({name}) returns driver or hardware state this model does not \
                 have; only MSG_RTN_GET_REALTIME (131) is modelled"
            ),
        });
    }
    let c = field(d, "sdst") as u32;
    w.write_sgpr(c, w.retired as u32);
    if d.facts.bytes == 8 {
        w.write_sgpr(c + 1, (w.retired >> 32) as u32);
    }
    Ok(())
}

fn log(w: &mut WaveState, space: MemSpace, lane: u32, addr: u64, bytes: u64) {
    if let Some(log) = w.last_access.as_mut() {
        log.push(MemAccess {
            space,
            lane,
            addr,
            bytes,
        });
    }
}

fn lds_dma(d: &Decoded, w: &mut WaveState) -> Result<(), WaveError> {
    let family = memory::canonical_family(d.inst.family.as_str());
    let scratch = family == "SCRATCH";
    let (size, signed) = (u64::from(d.facts.bytes), d.facts.signed);
    let exec = w.exec() & w.full_mask();
    let active = |lane: usize| exec >> lane & 1 == 1;
    let in_word = |f: &str| d.inst.field(f).is_some();
    let inst_offset = if family == "MUBUF" {
        field(d, "offset") & 0xfff
    } else {
        let bits = if in_word("ioffset") { 24 } else { 13 };
        memory::sext(field(d, "offset"), bits) as u64
    };
    let mut zero = vec![false; w.wave_size as usize];
    let addrs: Vec<u64> = if family == "MUBUF" {
        buffer_addresses(d, w, size, &mut zero)?
    } else if d.facts.addtid {
        // The address is the SGPR pair plus the lane's own dword (no address VGPR).
        let base = w.sgpr_pair(field(d, "saddr") as u32);
        (0..w.wave_size as u64)
            .map(|l| base.wrapping_add(inst_offset).wrapping_add(l * 4))
            .collect()
    } else {
        memory::vmem_addresses(d, w, family)
    };
    let stride = if size > 4 { 16 } else { 4 };
    let lds_of = |lane: u64| {
        (w.m0() as u64)
            .wrapping_add(inst_offset)
            .wrapping_add(lane * stride)
            & 0xffff_ffff
    };
    let written = if size > 4 { size } else { 4 };
    let lds_addrs: Vec<u64> = (0..w.wave_size as u64).map(lds_of).collect();
    let from = if scratch {
        Space::Scratch
    } else {
        Space::Global
    };
    if let Some(b) = w.bounds.clone() {
        let read = |lane: usize| active(lane) && !zero[lane];
        memory::check_bounds(&b, from, d, &addrs, &read, &[(0, size)], true)?;
        memory::check_bounds(
            &b,
            Space::Lds,
            d,
            &lds_addrs,
            &active,
            &[(0, written)],
            false,
        )?;
    }
    for lane in 0..w.wave_size as usize {
        if !active(lane) {
            continue;
        }
        let mut buf = [0u8; 16];
        let src = if scratch { &w.scratch } else { &w.memory };
        if !zero[lane] {
            src.read(addrs[lane], &mut buf[..size as usize]);
        }
        if size < 4 {
            let v = u32::from_le_bytes(buf[..4].try_into().expect("4 bytes"));
            let bits = size as u32 * 8;
            let v = if signed {
                memory::sext(v as u64, bits) as u32
            } else {
                v
            };
            buf[..4].copy_from_slice(&v.to_le_bytes());
        }
        w.lds.write(lds_addrs[lane], &buf[..written as usize]);
        let space = if scratch {
            MemSpace::Scratch
        } else {
            MemSpace::Global
        };
        if !zero[lane] {
            log(w, space, lane as u32, addrs[lane], size);
        }
        log(w, MemSpace::Lds, lane as u32, lds_addrs[lane], written);
    }
    Ok(())
}

/// The global address of each lane of a MUBUF load, from the buffer resource (V#) in the four
/// SGPRs at `srsrc`: base (bits 47:0), stride (61:48), num_records (95:64). Lanes whose access
/// is out of the buffer's range are marked in `zero` (they load zeros, as buffer loads do).
fn buffer_addresses(
    d: &Decoded,
    w: &WaveState,
    size: u64,
    zero: &mut [bool],
) -> Result<Vec<u64>, WaveError> {
    let refuse = |reason: &str| WaveError::Unsupported {
        addr: d.addr,
        inst: d.inst.name.clone(),
        reason: reason.to_string(),
    };
    let rsrc = field(d, "srsrc") as u32 * 4;
    let v: Vec<u32> = (0..4).map(|i| w.read_sgpr(rsrc + i)).collect();
    let base = v[0] as u64 | ((v[1] & 0xffff) as u64) << 32;
    let stride = ((v[1] >> 16) & 0x3fff) as u64;
    let num_records = v[2] as u64;
    if v[1] >> 31 == 1 || v[3] >> 23 & 1 == 1 {
        return Err(refuse(
            "swizzled buffers (V# swizzle_enable or add_tid_enable) are not modelled",
        ));
    }
    let soffset = match field(d, "soffset") as u32 {
        c @ 0..=127 => w.read_sgpr(c) as u64,
        c @ 128..=192 => (c - 128) as u64,
        c => return Err(refuse(&format!("soffset operand code {c} is not modelled"))),
    };
    let (offen, idxen) = (field(d, "offen") == 1, field(d, "idxen") == 1);
    let vaddr = field(d, "vaddr") as u32;
    let inst_offset = field(d, "offset") & 0xfff;
    let exec = w.exec() & w.full_mask();
    Ok((0..w.wave_size)
        .map(|lane| {
            let index = if idxen { w.vgpr(lane, vaddr) as u64 } else { 0 };
            let voffset = if offen {
                w.vgpr(lane, vaddr + idxen as u32) as u64
            } else {
                0
            };
            let offset = voffset + inst_offset;
            // Range checking: in bytes of the offset when the stride is 0, else by index.
            let out = if stride == 0 {
                offset + size > num_records
            } else {
                index >= num_records
            };
            if exec >> lane & 1 == 1 {
                zero[lane as usize] = out;
            }
            base.wrapping_add(soffset)
                .wrapping_add(index * stride)
                .wrapping_add(offset)
        })
        .collect())
}

fn transpose(d: &Decoded, w: &mut WaveState) -> Result<(), WaveError> {
    let (bits, per_lane) = d.facts.transpose.expect("a transposing load");
    let (bits, per_lane) = (u32::from(bits), u32::from(per_lane));
    let bytes = (bits * per_lane / 8) as u64;
    let exec = w.exec() & w.full_mask();
    let active = |lane: usize| exec >> lane & 1 == 1;
    let lds = d.inst.family == "DS";
    let addrs: Vec<u64> = if lds {
        let offset = field(d, "offset0") | field(d, "offset1") << 8;
        let vaddr = field(d, "addr") as u32;
        (0..w.wave_size)
            .map(|l| (w.vgpr(l, vaddr) as u64 + offset) & 0xffff_ffff)
            .collect()
    } else {
        memory::vmem_addresses(d, w, "GLOBAL")
    };
    let space = if lds { Space::Lds } else { Space::Global };
    if let Some(b) = w.bounds.clone() {
        memory::check_bounds(&b, space, d, &addrs, &active, &[(0, bytes)], true)?;
    }
    // What each lane loaded (inactive lanes contribute zeros).
    let mut loaded = vec![0u128; w.wave_size as usize];
    for (lane, v) in loaded.iter_mut().enumerate() {
        if !active(lane) {
            continue;
        }
        let mut buf = [0u8; 16];
        let mem = if lds { &w.lds } else { &w.memory };
        mem.read(addrs[lane], &mut buf[..bytes as usize]);
        *v = u128::from_le_bytes(buf);
        let ms = if lds { MemSpace::Lds } else { MemSpace::Global };
        log(w, ms, lane as u32, addrs[lane], bytes);
    }
    let mask = (1u128 << bits) - 1;
    let elem = |lane: usize, k: u32| loaded[lane] >> (k * bits) & mask;
    let vdst = field(d, "vdst") as u32;
    let group = 16 / per_lane;
    for m in 0..w.wave_size as usize {
        if !active(m) {
            continue;
        }
        let base = m / 16 * 16;
        let r = m % 16;
        let mut out = 0u128;
        for k in 0..per_lane {
            let src = base + group as usize * k as usize + r / per_lane as usize;
            out |= elem(src, r as u32 % per_lane) << (k * bits);
        }
        for i in 0..bytes.div_ceil(4) as u32 {
            w.set_vgpr(m as u32, vdst + i, (out >> (32 * i)) as u32);
        }
    }
    Ok(())
}

/// The hardware registers `s_getreg_b32` reads besides MODE: the instruction clock as
/// RDNA 3's 20-bit `HW_REG_SHADER_CYCLES` (29) and RDNA 4's `HW_REG_SHADER_CYCLES_LO/HI`
/// (29, 30).
pub(super) fn clock_hwregs(arch: Arch, retired: u64) -> Vec<(u32, u32)> {
    match arch.family() {
        Family::Gfx11 => vec![(29, (retired & 0xf_ffff) as u32)],
        Family::Gfx12 | Family::Gfx125 => vec![(29, retired as u32), (30, (retired >> 32) as u32)],
        Family::Gfx9 | Family::Gfx10 => Vec::new(),
    }
}

/// `HW_REG_MODE`'s ID (every arch).
pub(super) const HW_REG_MODE: u32 = 1;
