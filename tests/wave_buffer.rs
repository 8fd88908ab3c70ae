//! MUBUF buffer addressing (`src/wave/memory_buffer.rs`): the address each lane forms from the
//! buffer resource (V#), the range check (out-of-range loads read 0, stores write nothing,
//! multi-dword accesses checked dword by dword) and the loader's scratch V#, whose swizzled
//! scratch is the same memory FLAT reaches through the private aperture. Every program runs
//! under the interpreter, the JIT stepping and the JIT compiling blocks, which must agree.

mod common;

use amdpcode::spec::Arch;
use amdpcode::wave::{scratch_resource, Executor, Program, WaveState, PRIVATE_APERTURE};

fn run(arch: Arch, wave: u32, program: &str, init: &dyn Fn(&mut WaveState)) -> WaveState {
    let load = |ex: &Executor| Program::assemble(ex.isa(), program).map_err(|e| e.to_string());
    common::engines::run_all(arch, wave, program, &load, init)
}

/// Global dwords at 0x1000 + 4i hold 0x1000_0000 + i for i < 256.
fn fill_global(w: &mut WaveState) {
    for i in 0..256u32 {
        w.memory
            .write(0x1000 + 4 * i as u64, &(0x1000_0000 + i).to_le_bytes());
    }
}

fn run_hex(arch: Arch, wave: u32, hex: &str, init: &dyn Fn(&mut WaveState)) -> WaveState {
    let load = |ex: &Executor| Program::from_hex(ex.isa(), hex).map_err(|e| e.to_string());
    common::engines::run_all(arch, wave, hex, &load, init)
}

fn global_u32(w: &WaveState, addr: u64) -> u32 {
    let mut b = [0u8; 4];
    w.memory.read(addr, &mut b);
    u32::from_le_bytes(b)
}

/// A raw (unswizzled) V# for `base` with `num_records` bytes in s[4:7] (GFX10+: OOB_SELECT 3,
/// raw).
fn raw_vsharp(w: &mut WaveState, base: u64, num_records: u32, gfx10: bool) {
    w.write_sgpr(4, base as u32);
    w.write_sgpr(5, (base >> 32) as u32 & 0xffff);
    w.write_sgpr(6, num_records);
    w.write_sgpr(7, if gfx10 { 3 << 28 } else { 0 });
}

fn lane_offsets(w: &mut WaveState, reg: u32, scale: u32) {
    for l in 0..w.wave_size {
        w.set_vgpr(l, reg, l * scale);
    }
}

/// gfx908 `buffer_load_dword ... offen`: base + soffset + voffset + offset; a lane whose
/// offset (voffset + offset, soffset not included) is past num_records reads 0.
#[test]
fn gfx908_raw_buffer_load_reads_base_plus_offsets_and_zero_past_num_records() {
    let w = run(
        Arch::Cdna1,
        64,
        "buffer_load_dword v1, v2, s[4:7], s8 offen offset:4\ns_endpgm",
        &|w| {
            fill_global(w);
            raw_vsharp(w, 0x1000, 100, false);
            w.write_sgpr(8, 16);
            lane_offsets(w, 2, 4);
            lane_offsets(w, 1, 0);
            for l in 0..64 {
                w.set_vgpr(l, 1, 0xdead_0000 + l);
            }
        },
    );
    for l in 0..64u32 {
        // offset = 4l + 4; address 0x1000 + 16 + 4l + 4 = dword 5 + l.
        let want = if 4 * l + 4 < 100 { 0x1000_0005 + l } else { 0 };
        assert_eq!(w.vgpr(l, 1), want, "lane {l}");
    }
}

/// A store past num_records writes nothing; the in-range lanes write theirs.
#[test]
fn gfx90a_raw_buffer_store_drops_out_of_range_lanes() {
    let w = run(
        Arch::Cdna2,
        64,
        "buffer_store_dword v1, v2, s[4:7], 0 offen\ns_endpgm",
        &|w| {
            fill_global(w);
            raw_vsharp(w, 0x1000, 40, false);
            lane_offsets(w, 2, 4);
            for l in 0..64 {
                w.set_vgpr(l, 1, 0xabc0_0000 + l);
            }
        },
    );
    for l in 0..64u64 {
        let want = if l < 10 {
            0xabc0_0000 + l as u32
        } else {
            0x1000_0000 + l as u32
        };
        assert_eq!(global_u32(&w, 0x1000 + 4 * l), want, "dword {l}");
    }
}

/// `buffer_load_dwordx2` straddling num_records: the in-range dword is loaded, the other
/// reads 0; `buffer_store_dwordx2` writes only the in-range dword.
#[test]
fn gfx1030_multi_dword_access_is_range_checked_per_dword() {
    let w = run(
        Arch::Rdna2,
        32,
        "buffer_load_dwordx2 v[4:5], v2, s[4:7], 0 offen\n\
         buffer_store_dwordx2 v[6:7], v2, s[4:7], 0 offen offset:64\ns_endpgm",
        &|w| {
            fill_global(w);
            raw_vsharp(w, 0x1000, 84, true);
            // Lanes 0..4: offsets 0, 8, .., 32 (loads) and 64 .. 96 (stores).
            lane_offsets(w, 2, 8);
            for l in 0..32 {
                w.set_vgpr(l, 6, 0x6000 + l);
                w.set_vgpr(l, 7, 0x7000 + l);
            }
        },
    );
    for l in 0..5u32 {
        assert_eq!(w.vgpr(l, 4), 0x1000_0000 + 2 * l, "lane {l} dword 0");
        assert_eq!(w.vgpr(l, 5), 0x1000_0001 + 2 * l, "lane {l} dword 1");
    }
    // Stores at 64 + 8l: lanes 0, 1 whole (64..80), lane 2 only its first dword (80 < 84 <= 84).
    assert_eq!(global_u32(&w, 0x1000 + 64), 0x6000);
    assert_eq!(global_u32(&w, 0x1000 + 68), 0x7000);
    assert_eq!(global_u32(&w, 0x1000 + 76), 0x7001);
    assert_eq!(global_u32(&w, 0x1000 + 80), 0x6002);
    assert_eq!(
        global_u32(&w, 0x1000 + 84),
        0x1000_0015,
        "lane 2's second dword dropped"
    );
    assert_eq!(global_u32(&w, 0x1000 + 88), 0x1000_0016, "lane 3 dropped");
    // Load at offset 80 (lane 10): dword 0 in range (80 < 84), dword 1 not.
    let w = run(
        Arch::Rdna2,
        32,
        "buffer_load_dwordx2 v[4:5], v2, s[4:7], 0 offen\ns_endpgm",
        &|w| {
            fill_global(w);
            raw_vsharp(w, 0x1000, 84, true);
            lane_offsets(w, 2, 8);
            w.set_vgpr(10, 5, 0x5555);
        },
    );
    assert_eq!(w.vgpr(10, 4), 0x1000_0014);
    assert_eq!(w.vgpr(10, 5), 0);
    assert_eq!((w.vgpr(11, 4), w.vgpr(11, 5)), (0, 0));
}

/// The loader's scratch V# (swizzled, add_tid, index stride = wave size): what lane l stores
/// at soffset + offset through the buffer is its own scratch byte soffset / wave + offset,
/// which FLAT reads through the private aperture (as clang's -O0 code does with its frame).
#[test]
fn scratch_buffer_and_private_aperture_address_the_same_lane_bytes() {
    for (arch, wave) in [(Arch::Cdna1, 64), (Arch::Rdna1, 32), (Arch::Rdna2, 64)] {
        let program = "buffer_store_dword v1, off, s[0:3], s8 offset:12\n\
                       flat_load_dword v2, v[4:5]\n\
                       buffer_load_dword v3, off, s[0:3], s8 offset:12\ns_endpgm";
        let w = run(arch, wave, program, &|w| {
            let rsrc = scratch_resource(arch, wave);
            for (i, word) in rsrc.iter().enumerate() {
                w.write_sgpr(i as u32, *word);
            }
            // The frame at lane byte 32: soffset is in wave-scaled bytes.
            w.write_sgpr(8, 32 * wave);
            for l in 0..wave {
                w.set_vgpr(l, 1, 0x5100 + l);
                let addr = PRIVATE_APERTURE + 32 + 12;
                w.set_vgpr(l, 4, addr as u32);
                w.set_vgpr(l, 5, (addr >> 32) as u32);
            }
        });
        for l in 0..wave {
            assert_eq!(w.vgpr(l, 2), 0x5100 + l, "{arch} lane {l}: flat view");
            assert_eq!(w.vgpr(l, 3), 0x5100 + l, "{arch} lane {l}: buffer view");
            let mut b = [0u8; 4];
            w.scratch
                .read(l as u64 * amdpcode::wave::SCRATCH_LANE_SPAN + 44, &mut b);
            assert_eq!(
                u32::from_le_bytes(b),
                0x5100 + l,
                "{arch} lane {l}: scratch map"
            );
        }
    }
}

/// An atomic past num_records does nothing and returns 0; in range it runs AMD's text.
#[test]
fn gfx908_buffer_atomic_add_out_of_range_is_a_no_op_returning_zero() {
    // buffer_atomic_add v1, v2, s[4:7], 0 offen glc (llvm-mc-22 -mcpu=gfx908); s_endpgm
    let w = run_hex(
        Arch::Cdna1,
        64,
        "00 50 08 e1 02 01 01 80 00 00 81 bf",
        &|w| {
            fill_global(w);
            raw_vsharp(w, 0x1000, 8, false);
            lane_offsets(w, 2, 4);
            for l in 0..64 {
                w.set_vgpr(l, 1, 1);
            }
            w.set_exec(0b111);
        },
    );
    assert_eq!(w.vgpr(0, 1), 0x1000_0000);
    assert_eq!(w.vgpr(1, 1), 0x1000_0001);
    assert_eq!(w.vgpr(2, 1), 0, "lane 2 is past num_records");
    assert_eq!(global_u32(&w, 0x1000), 0x1000_0001);
    assert_eq!(global_u32(&w, 0x1004), 0x1000_0002);
    assert_eq!(
        global_u32(&w, 0x1008),
        0x1000_0002,
        "no write past num_records"
    );
}

/// `spec fidelity` lists the buffer format conversions and the scalar buffer accesses as not
/// executable and the plain MUBUF accesses as AMD's text.
#[test]
fn fidelity_separates_modelled_and_refused_buffer_instructions() {
    use amdpcode::wave::fidelity::{report, How};
    for arch in [Arch::Cdna1, Arch::Rdna2] {
        let rows = report(common::spec().db(arch));
        let how = |n: &str| rows.iter().find(|r| r.inst == n).unwrap().how;
        assert_eq!(how("BUFFER_LOAD_DWORD"), How::AsWritten, "{arch}");
        assert_eq!(how("BUFFER_ATOMIC_ADD"), How::AsWritten, "{arch}");
        assert_eq!(how("BUFFER_LOAD_FORMAT_X"), How::NotExecutable, "{arch}");
        assert_eq!(how("S_BUFFER_LOAD_DWORD"), How::NotExecutable, "{arch}");
    }
}

/// RDNA 3 and RDNA 4 (`buffer_load_b32` / `buffer_store_b32 ... offen`, raw V#, OOB_SELECT 3):
/// base + soffset + voffset + offset; a load past num_records reads 0, a store there writes
/// nothing. RDNA 4's V# keeps RDNA 3's fields for these (only its format field is narrower).
#[test]
fn rdna3_and_rdna4_raw_buffer_accesses_read_zero_and_drop_stores_past_num_records() {
    for arch in [Arch::Rdna3, Arch::Rdna4] {
        let w = run(
            arch,
            32,
            "buffer_load_b32 v1, v2, s[4:7], s8 offen offset:4\n\
             buffer_store_b32 v3, v2, s[4:7], s8 offen offset:64\ns_endpgm",
            &|w| {
                fill_global(w);
                raw_vsharp(w, 0x1000, 100, true);
                w.write_sgpr(8, 16);
                lane_offsets(w, 2, 4);
                for l in 0..32 {
                    w.set_vgpr(l, 1, 0xdead_0000 + l);
                    w.set_vgpr(l, 3, 0x3000 + l);
                }
            },
        );
        for l in 0..32u32 {
            // offset = 4l + 4 (soffset not in the range check); address 0x1000 + 16 + 4l + 4.
            let want = if 4 * l + 4 < 100 { 0x1000_0005 + l } else { 0 };
            assert_eq!(w.vgpr(l, 1), want, "{arch} lane {l}");
        }
        // Stores at 0x1000 + 16 + 4l + 64: in range while 4l + 64 + 4 <= 100 (lanes 0..=8).
        for l in 0..32u32 {
            let addr = 0x1000 + 16 + 4 * l as u64 + 64;
            let want = if 4 * l + 64 + 4 <= 100 {
                0x3000 + l
            } else {
                0x1000_0014 + l
            };
            assert_eq!(global_u32(&w, addr), want, "{arch} store lane {l}");
        }
    }
}
