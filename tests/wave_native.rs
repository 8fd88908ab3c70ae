//! The instructions the wave layer models itself (`src/wave/native.rs`, `docs/wave.md`,
//! "Native models"): LDS DMA loads, transposing loads, the instruction clock, the MODE-setting
//! instructions and `s_getreg`/`s_setreg` of MODE, plus the instructions refused with a
//! reason. Every program runs under the interpreter, the JIT stepping and the JIT compiling
//! blocks (`common::engines::run_all`), which must agree; each result is checked against
//! concrete values.

mod common;

use amdpcode::spec::Arch;
use amdpcode::wave::{Engine, Executor, Program, WaveState};

fn run(arch: Arch, wave: u32, program: &str, init: &dyn Fn(&mut WaveState)) -> WaveState {
    let load = |ex: &Executor| Program::assemble(ex.isa(), program).map_err(|e| e.to_string());
    common::engines::run_all(arch, wave, program, &load, init)
}

fn run_hex(arch: Arch, wave: u32, hex: &str, init: &dyn Fn(&mut WaveState)) -> WaveState {
    let load = |ex: &Executor| Program::from_hex(ex.isa(), hex).map_err(|e| e.to_string());
    common::engines::run_all(arch, wave, hex, &load, init)
}

/// The error the first engine reports for `program` (every engine must fail).
fn error_of(arch: Arch, wave: u32, program: &str) -> String {
    let db = common::spec().db(arch);
    let mut errors = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let mut ex = Executor::new(db, engine).unwrap();
        let p = Program::assemble(ex.isa(), program).unwrap();
        let mut w = ex.new_wave(wave);
        let e = ex
            .run_fast(&p, &mut w)
            .expect_err("the program must be refused");
        errors.push(e.to_string());
    }
    assert_eq!(errors[0], errors[1], "the engines refuse it differently");
    errors.remove(0)
}

/// Global bytes 0x1000.. hold `byte(i) = i * 7 + 3` (mod 256) for i < 2048.
fn fill_global(w: &mut WaveState) {
    let bytes: Vec<u8> = (0..2048u32).map(|i| (i * 7 + 3) as u8).collect();
    w.memory.write(0x1000, &bytes);
}

fn global_byte(i: u64) -> u8 {
    (i * 7 + 3) as u8
}

fn global_u32(i: u64) -> u32 {
    u32::from_le_bytes([
        global_byte(i),
        global_byte(i + 1),
        global_byte(i + 2),
        global_byte(i + 3),
    ])
}

fn lane_ids(w: &mut WaveState, reg: u32, scale: u32) {
    for l in 0..w.wave_size {
        w.set_vgpr(l, reg, l * scale);
    }
}

/// CDNA `global_load_lds_dword`: lane l's dword from its own global address goes to LDS at
/// M0 + instruction offset + 4 * l (the offset applies to both addresses, as LLVM's
/// `global.load.lds` documents); inactive lanes write nothing and no VGPR is written.
#[test]
fn cdna_global_load_lds_dword_writes_each_lanes_dword_at_m0_plus_lane_times_4() {
    let w = run(
        Arch::Cdna,
        64,
        "s_mov_b32 m0, 0x100\nglobal_load_lds_dword v1, s[4:5] offset:8\ns_endpgm",
        &|w| {
            fill_global(w);
            w.write_sgpr(4, 0x1000);
            w.write_sgpr(5, 0);
            lane_ids(w, 1, 12);
            w.set_exec(0xffff_ffff_ffff_fffe); // lane 0 off
            w.lds.write(0x108, &[0xaa; 4]);
        },
    );
    assert_eq!(
        w.lds.read_u32(0x108),
        0xaaaa_aaaa,
        "inactive lane 0 wrote LDS"
    );
    for l in 1..64u64 {
        assert_eq!(
            w.lds.read_u32(0x108 + 4 * l),
            global_u32(12 * l + 8),
            "lane {l}"
        );
    }
    assert_eq!(w.vgpr(3, 1), 36, "the address VGPR is not written");
    // Lane 5 reads global bytes 68..71.
    assert_eq!(w.lds.read_u32(0x108 + 4 * 5), 0xf4ed_e6df);
}

/// Byte and short forms: the loaded value is widened to a dword (zero- or sign-extended, the
/// reason the unsigned and signed opcodes differ) at a 4-byte lane stride. Lane l reads global
/// byte 30 + l: byte 30 is 0xd5, byte 31 0xdc.
#[test]
fn cdna_global_load_lds_sub_dword_forms_write_extended_dwords() {
    for (inst, lane0, lane1) in [
        ("global_load_lds_ubyte", 0x0000_00d5u32, 0x0000_00dcu32),
        ("global_load_lds_sbyte", 0xffff_ffd5, 0xffff_ffdc),
        ("global_load_lds_ushort", 0x0000_dcd5, 0x0000_e3dc),
        ("global_load_lds_sshort", 0xffff_dcd5, 0xffff_e3dc),
    ] {
        let w = run(
            Arch::Cdna,
            64,
            &format!("s_mov_b32 m0, 0x200\n{inst} v1, s[4:5]\ns_endpgm"),
            &|w| {
                fill_global(w);
                w.write_sgpr(4, 0x1000);
                for l in 0..64 {
                    w.set_vgpr(l, 1, 30 + l);
                }
            },
        );
        assert_eq!(w.lds.read_u32(0x200), lane0, "{inst} lane 0");
        assert_eq!(w.lds.read_u32(0x204), lane1, "{inst} lane 1");
    }
}

/// gfx950's 16-byte form puts each lane's 16 bytes at a 16-byte LDS stride.
#[test]
fn cdna_global_load_lds_dwordx4_uses_a_16_byte_lane_stride() {
    let w = run(
        Arch::Cdna,
        64,
        "s_mov_b32 m0, 0x800\nglobal_load_lds_dwordx4 v[2:3], off\ns_endpgm",
        &|w| {
            fill_global(w);
            for l in 0..64 {
                w.set_vgpr(l, 2, 0x1000 + 16 * l);
                w.set_vgpr(l, 3, 0);
            }
        },
    );
    for l in [0u64, 1, 17, 63] {
        for d in 0..4 {
            assert_eq!(
                w.lds.read_u32(0x800 + 16 * l + 4 * d),
                global_u32(16 * l + 4 * d),
                "lane {l} dword {d}"
            );
        }
    }
}

/// Scratch LDS DMA: each lane's own scratch to LDS.
#[test]
fn cdna_scratch_load_lds_dword_copies_each_lanes_scratch() {
    let w = run(
        Arch::Cdna,
        64,
        "s_mov_b32 m0, 0\nscratch_load_lds_dword v1, off offset:4\ns_endpgm",
        &|w| {
            for l in 0..64u32 {
                w.set_vgpr(l, 1, 8);
                let key = l as u64 * amdpcode::wave::SCRATCH_LANE_SPAN + 12;
                w.scratch.write(key, &(0x5000 + l).to_le_bytes());
            }
        },
    );
    for l in 0..64u64 {
        assert_eq!(w.lds.read_u32(4 + 4 * l), 0x5000 + l as u32, "lane {l}");
    }
}

/// RDNA 3 `global_load_lds_b32` with an SGPR base and a 32-bit VGPR offset (wave32 and
/// wave64), and the ADDTID form, whose global address is saddr + offset + 4 * lane.
#[test]
fn rdna3_global_load_lds_b32_and_addtid() {
    for wave in [32u32, 64] {
        let w = run(
            Arch::Rdna3,
            wave,
            "s_mov_b32 m0, 0x40\nglobal_load_lds_b32 v1, s[4:5] offset:16\ns_endpgm",
            &|w| {
                fill_global(w);
                w.write_sgpr(4, 0x1000);
                lane_ids(w, 1, 8);
            },
        );
        for l in 0..wave as u64 {
            assert_eq!(
                w.lds.read_u32(0x50 + 4 * l),
                global_u32(8 * l + 16),
                "wave{wave} lane {l}"
            );
        }
        let w = run(
            Arch::Rdna3,
            wave,
            "s_mov_b32 m0, 0\nglobal_load_lds_addtid_b32 s[4:5] offset:4\ns_endpgm",
            &|w| {
                fill_global(w);
                w.write_sgpr(4, 0x1000);
            },
        );
        for l in 0..wave as u64 {
            assert_eq!(
                w.lds.read_u32(4 + 4 * l),
                global_u32(4 + 4 * l),
                "addtid lane {l}"
            );
        }
    }
}

/// A DMA destination past the launch's LDS is a memory fault naming the instruction.
#[test]
fn lds_dma_outside_the_lds_allocation_faults() {
    let db = common::spec().db(Arch::Cdna);
    let mut ex = Executor::new(db, Engine::Interp).unwrap();
    let p = Program::assemble(
        ex.isa(),
        "s_mov_b32 m0, 0xff00\nglobal_load_lds_dword v[2:3], off\ns_endpgm",
    )
    .unwrap();
    let mut w = ex.new_wave(64);
    w.bounds = Some(std::sync::Arc::new(amdpcode::wave::Bounds {
        global: vec![(0, 0x10000)],
        lds: 0x1000,
        scratch: 0,
        ..Default::default()
    }));
    let e = ex.run_fast(&p, &mut w).unwrap_err().to_string();
    assert!(
        e.contains("GLOBAL_LOAD_LDS_DWORD") && e.contains("LDS"),
        "{e}"
    );
}

/// CDNA 4 `ds_read_b64_tr_b16`: lanes 0..15 each load four 16-bit elements; lane m's element
/// k is element m % 4 of lane 4k + m / 4 (the 16x4 block of LLVM/Triton's ds_read_tr layout).
/// LDS halfword i holds i, and lane l addresses halfwords 4l..4l+3.
#[test]
fn cdna_ds_read_b64_tr_b16_transposes_16_lane_blocks() {
    let w = run(
        Arch::Cdna,
        64,
        "ds_read_b64_tr_b16 v[4:5], v1 offset:0\ns_endpgm",
        &|w| {
            let halves: Vec<u8> = (0..256u16).flat_map(|i| i.to_le_bytes()).collect();
            w.lds.write(0, &halves);
            lane_ids(w, 1, 8);
        },
    );
    let half = |l: u32, k: u32| (w.vgpr(l, 4 + k / 2) >> (16 * (k % 2))) & 0xffff;
    // Lane 0: element 0 of lanes 0, 4, 8, 12 = halfwords 0, 16, 32, 48.
    assert_eq!(
        [half(0, 0), half(0, 1), half(0, 2), half(0, 3)],
        [0, 16, 32, 48]
    );
    // Lane 5: element 1 of lanes 1, 5, 9, 13.
    assert_eq!(
        [half(5, 0), half(5, 1), half(5, 2), half(5, 3)],
        [5, 21, 37, 53]
    );
    // Lane 19 (second group): element 3 of lanes 16 + 4k.
    assert_eq!(
        [half(19, 0), half(19, 1), half(19, 2), half(19, 3)],
        [67, 83, 99, 115]
    );
}

/// `ds_read_b64_tr_b8`: eight bytes per lane, lane m's byte k is byte m % 8 of lane
/// 2k + m / 8; `ds_read_b64_tr_b4`: sixteen nibbles, nibble k of lane m is nibble m of lane k.
#[test]
fn cdna_ds_read_b64_tr_b8_and_b4() {
    let init = |w: &mut WaveState| {
        let bytes: Vec<u8> = (0..=255u8).collect();
        w.lds.write(0, &bytes);
        lane_ids(w, 1, 8);
    };
    let w = run(
        Arch::Cdna,
        64,
        "ds_read_b64_tr_b8 v[4:5], v1\ns_endpgm",
        &init,
    );
    let byte = |l: u32, k: u32| (w.vgpr(l, 4 + k / 4) >> (8 * (k % 4))) & 0xff;
    let lane9: Vec<u32> = (0..8).map(|k| byte(9, k)).collect();
    // Byte 1 of lanes 1, 3, 5, ..., 15.
    assert_eq!(lane9, [9, 25, 41, 57, 73, 89, 105, 121]);
    let w = run(
        Arch::Cdna,
        64,
        "ds_read_b64_tr_b4 v[4:5], v1\ns_endpgm",
        &init,
    );
    // Lane 3's nibble k is nibble 3 of lane k: byte 8k + 1's high nibble.
    let nib = |l: u32, k: u32| (w.vgpr(l, 4 + k / 8) >> (4 * (k % 8))) & 0xf;
    let lane3: Vec<u32> = (0..16).map(|k| nib(3, k)).collect();
    let want: Vec<u32> = (0..16).map(|k| ((8 * k + 1) >> 4) & 0xf).collect();
    assert_eq!(lane3, want);
    assert_eq!(&lane3[..4], &[0, 0, 1, 1]);
}

/// RDNA 4 `global_load_tr_b128`: eight 16-bit elements per lane; lane m's element k is
/// element m % 8 of lane 2k + m / 8 in its 16-lane group.
#[test]
fn rdna4_global_load_tr_b128_transposes_16_lane_blocks() {
    let w = run(
        Arch::Rdna4,
        32,
        "global_load_tr_b128 v[4:7], v[0:1], off\ns_endpgm",
        &|w| {
            let halves: Vec<u8> = (0..512u16).flat_map(|i| i.to_le_bytes()).collect();
            w.memory.write(0x2000, &halves);
            for l in 0..32 {
                w.set_vgpr(l, 0, 0x2000 + 16 * l);
                w.set_vgpr(l, 1, 0);
            }
        },
    );
    let half = |l: u32, k: u32| (w.vgpr(l, 4 + k / 2) >> (16 * (k % 2))) & 0xffff;
    // Lane 9: element 1 of lanes 1, 3, ..., 15 (lane l holds halfwords 8l..8l+7).
    let lane9: Vec<u32> = (0..8).map(|k| half(9, k)).collect();
    assert_eq!(lane9, [9, 25, 41, 57, 73, 89, 105, 121]);
    let lane16: Vec<u32> = (0..8).map(|k| half(16, k)).collect();
    assert_eq!(lane16, [128, 144, 160, 176, 192, 208, 224, 240]);
}

/// `s_memtime` reads the instruction clock: the number of instructions the wave executed
/// before it. A loop of 3 instructions run 5 times after one setup instruction gives 16, the
/// same with blocks compiled (the loop is a block).
#[test]
fn s_memtime_counts_the_instructions_executed_before_it() {
    let prog = "s_mov_b32 s10, 5\nloop:\ns_sub_u32 s10, s10, 1\ns_cmp_lg_u32 s10, 0\n\
                s_cbranch_scc1 loop\ns_memtime s[0:1]\ns_memrealtime s[2:3]\ns_endpgm";
    let w = run(Arch::Cdna, 64, prog, &|_| {});
    assert_eq!((w.read_sgpr(0), w.read_sgpr(1)), (16, 0));
    assert_eq!((w.read_sgpr(2), w.read_sgpr(3)), (17, 0));
    assert_eq!(w.retired, 19);
}

/// RDNA 3's `HW_REG_SHADER_CYCLES`, RDNA 4's `SHADER_CYCLES_LO/HI` and
/// `s_sendmsg_rtn_b64 MSG_RTN_GET_REALTIME` (message 131) read the same clock.
#[test]
fn rdna_cycle_registers_and_realtime_message_read_the_instruction_clock() {
    let w = run(
        Arch::Rdna3,
        32,
        "s_nop 0\ns_nop 0\ns_getreg_b32 s0, hwreg(HW_REG_SHADER_CYCLES)\ns_endpgm",
        &|_| {},
    );
    assert_eq!(w.read_sgpr(0), 2);
    let w = run(
        Arch::Rdna4,
        32,
        "s_nop 0\ns_getreg_b32 s0, hwreg(HW_REG_SHADER_CYCLES_LO)\n\
         s_getreg_b32 s1, hwreg(HW_REG_SHADER_CYCLES_HI)\ns_endpgm",
        &|_| {},
    );
    assert_eq!((w.read_sgpr(0), w.read_sgpr(1)), (1, 0));
    // s_nop 0; s_nop 0; s_sendmsg_rtn_b64 s[0:1], sendmsg(MSG_RTN_GET_REALTIME); s_endpgm
    for arch in [Arch::Rdna3, Arch::Rdna4] {
        let w = run_hex(
            arch,
            32,
            "00 00 80 bf 00 00 80 bf 83 4d 80 be 00 00 b0 bf",
            &|w| w.write_sgpr(1, 0xdead),
        );
        assert_eq!((w.read_sgpr(0), w.read_sgpr(1)), (2, 0), "{arch}");
    }
}

/// `s_round_mode` and `s_denorm_mode` set MODE's FP_ROUND and FP_DENORM fields: `s_getreg`
/// reads them back, and an f32 denormal survives an add once `s_denorm_mode` has enabled f32
/// denormals (the launch default flushes them). (FP_ROUND reaches only the texts that read
/// `ROUND_MODE`: ordinary arithmetic rounds to nearest even in this model, `docs/wave.md`.)
#[test]
fn s_round_mode_and_s_denorm_mode_set_mode_fields() {
    let prog = "v_add_f32 v4, v5, 0\ns_round_mode 0x1\ns_denorm_mode 0x3\nv_add_f32 v6, v5, 0\n\
                s_getreg_b32 s0, hwreg(1, 0, 8)\ns_round_mode 0x2\n\
                s_getreg_b32 s1, hwreg(1, 0, 8)\ns_endpgm";
    for arch in [Arch::Rdna3, Arch::Rdna4] {
        let w = run(arch, 32, prog, &|w| {
            for l in 0..32 {
                w.set_vgpr(l, 5, 0x0000_0001);
            }
        });
        assert_eq!(w.vgpr(0, 4), 0, "{arch}: flushed");
        assert_eq!(w.vgpr(0, 6), 1, "{arch}: kept");
        assert_eq!(w.read_sgpr(0), 0x31, "{arch}: MODE[7:0]");
        assert_eq!(
            w.read_sgpr(1),
            0x32,
            "{arch}: MODE[7:0] after the second s_round_mode"
        );
        assert_eq!(w.mode & 0xff, 0x32, "{arch}");
    }
}

/// `s_setreg` of MODE changes the wave's MODE (LLVM's gfx9 f32 division switches denormals on
/// with `s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3`), and `s_getreg` reads it back.
#[test]
fn s_setreg_of_mode_enables_denormals_on_cdna() {
    let prog = "v_add_f32 v4, v5, 0\ns_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3\n\
                v_add_f32 v6, v5, 0\ns_getreg_b32 s0, hwreg(HW_REG_MODE)\n\
                s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0\nv_add_f32 v7, v5, 0\ns_endpgm";
    let w = run(Arch::Cdna, 64, prog, &|w| {
        for l in 0..64 {
            w.set_vgpr(l, 5, 0x8000_0003);
        }
    });
    // Flushed: -0 + +0 = +0; kept: the denormal itself.
    assert_eq!(w.vgpr(0, 4), 0);
    assert_eq!(w.vgpr(0, 6), 0x8000_0003);
    assert_eq!(w.vgpr(0, 7), 0);
    assert_eq!(w.read_sgpr(0), 0x3f0);
    assert_eq!(w.mode, 0x3c0);
}

/// CDNA `ds_append` / `ds_consume` (errata): one counter update for the wave, the old value
/// returned to every active lane.
#[test]
fn cdna_ds_append_and_consume_update_one_counter_per_wave() {
    let w = run(
        Arch::Cdna,
        64,
        "s_mov_b32 m0, 0x40\nds_append v1 offset:4\nds_consume v2 offset:4\ns_endpgm",
        &|w| {
            w.lds.write_u32(0x44, 100);
            w.set_exec(0x0000_00ff_0000_000f); // 12 lanes
        },
    );
    assert_eq!(w.vgpr(0, 1), 100);
    assert_eq!(w.vgpr(33, 1), 100);
    assert_eq!(w.vgpr(0, 2), 112);
    assert_eq!(w.vgpr(5, 2), 0, "inactive lane written");
    assert_eq!(w.lds.read_u32(0x44), 100);
}

/// `s_sleep_var` only delays the wave.
#[test]
fn s_sleep_var_changes_nothing_but_the_clock() {
    let w = run(
        Arch::Rdna4,
        32,
        "s_sleep_var s1\ns_mov_b32 s2, 7\ns_endpgm",
        &|w| w.write_sgpr(1, 40),
    );
    assert_eq!((w.read_sgpr(1), w.read_sgpr(2)), (40, 7));
}

/// Instructions without a single-dispatch model are refused with an error naming the
/// instruction and the reason: GWS, the GDS form of `ds_append`, ordered append, other
/// returning messages.
#[test]
fn gws_gds_and_driver_messages_are_refused_with_a_reason() {
    let e = error_of(Arch::Rdna3, 32, "ds_gws_init v1 offset:0 gds\ns_endpgm");
    assert!(
        e.contains("DS_GWS_INIT") && e.contains("global wave sync"),
        "{e}"
    );
    let e = error_of(Arch::Rdna3, 32, "ds_append v1 gds\ns_endpgm");
    assert!(e.contains("DS_APPEND") && e.contains("GDS"), "{e}");
    let e = error_of(
        Arch::Rdna3,
        32,
        "s_sendmsg_rtn_b64 s[0:1], sendmsg(128)\ns_endpgm",
    );
    assert!(
        e.contains("S_SENDMSG_RTN_B64") && e.contains("MSG_RTN_GET_DOORBELL"),
        "{e}"
    );
    let e = error_of(
        Arch::Rdna3,
        32,
        "ds_ordered_count v1, v2 offset:0 gds\ns_endpgm",
    );
    assert!(
        e.contains("DS_ORDERED_COUNT") && e.contains("ordered"),
        "{e}"
    );
}

/// RDNA 3's `ds_append` erratum writes the old counter value to the destination VGPR of every
/// active lane (the text addresses `VGPR[lane][VDST]`).
#[test]
fn rdna3_ds_append_returns_the_old_counter_to_active_lanes() {
    let w = run(
        Arch::Rdna3,
        32,
        "s_mov_b32 m0, 0x20\nds_append v3 offset:8\ns_endpgm",
        &|w| {
            w.lds.write_u32(0x28, 7);
            w.set_exec(0x0000_0f0f);
            w.set_vgpr(4, 3, 0x55);
        },
    );
    assert_eq!((w.vgpr(0, 3), w.vgpr(11, 3), w.vgpr(4, 3)), (7, 7, 0x55));
    assert_eq!(w.lds.read_u32(0x28), 15);
}

/// `spec fidelity` lists the native models as `native` and the refused instructions as
/// `not_executable` with their reason.
#[test]
fn fidelity_report_lists_native_models_and_refusals() {
    use amdpcode::wave::fidelity::{report, How};
    let cases: [(Arch, &[&str], &[&str]); 3] = [
        (
            Arch::Rdna3,
            &[
                "GLOBAL_LOAD_LDS_B32",
                "GLOBAL_LOAD_LDS_ADDTID_B32",
                "SCRATCH_LOAD_LDS_U8",
                "S_ROUND_MODE",
                "S_DENORM_MODE",
                "S_SENDMSG_RTN_B64",
            ],
            &["DS_GWS_INIT", "DS_ORDERED_COUNT"],
        ),
        (
            Arch::Rdna4,
            &["GLOBAL_LOAD_TR_B128", "GLOBAL_LOAD_TR_B64", "S_SLEEP_VAR"],
            &["GLOBAL_ATOMIC_ORDERED_ADD_B64"],
        ),
        (
            Arch::Cdna,
            &[
                "GLOBAL_LOAD_LDS_DWORDX4",
                "SCRATCH_LOAD_LDS_DWORD",
                "DS_READ_B96_TR_B6",
                "S_MEMTIME",
                "S_MEMREALTIME",
            ],
            &["DS_GWS_SEMA_P"],
        ),
    ];
    for (arch, native, refused) in cases {
        let rows = report(common::spec().db(arch));
        let row = |n: &str| rows.iter().find(|r| r.inst == n).unwrap();
        for n in native {
            assert_eq!(row(n).how, How::Native, "{arch} {n}");
        }
        for n in refused {
            assert_eq!(row(n).how, How::NotExecutable, "{arch} {n}");
            assert!(
                row(n).detail.starts_with("not modelled:"),
                "{}",
                row(n).detail
            );
        }
    }
    let rows = report(common::spec().db(Arch::Cdna));
    let append = rows.iter().find(|r| r.inst == "DS_APPEND").unwrap();
    assert_eq!(append.how, How::Erratum);
}

/// Writes a buffer resource (V#) for `base` with `stride` and `num_records` to s[4:7].
fn set_vsharp(w: &mut WaveState, base: u64, stride: u32, num_records: u32) {
    w.write_sgpr(4, base as u32);
    w.write_sgpr(5, (base >> 32) as u32 & 0xffff | stride << 16);
    w.write_sgpr(6, num_records);
    w.write_sgpr(7, 0);
}

/// CDNA `buffer_load_dword ... lds`: the buffer address (V# base + soffset + voffset +
/// offset) is read for each lane and the dword goes to LDS at M0 + offset + 4 * lane; lanes
/// past num_records load zero.
#[test]
fn cdna_buffer_load_dword_lds_form_writes_lds_and_zeroes_out_of_range_lanes() {
    let w = run(
        Arch::Cdna,
        64,
        "s_mov_b32 m0, 0x300\nbuffer_load_dword v1, s[4:7], s2 offen offset:4 lds\ns_endpgm",
        &|w| {
            fill_global(w);
            set_vsharp(w, 0x1000, 0, 200);
            w.write_sgpr(2, 8);
            lane_ids(w, 1, 4);
            w.lds.write(0x304 + 4 * 60, &[0x77; 4]);
        },
    );
    for l in 0..49u64 {
        // voffset + offset = 4l + 4 <= 196: in range.
        assert_eq!(
            w.lds.read_u32(0x304 + 4 * l),
            global_u32(8 + 4 * l + 4),
            "lane {l}"
        );
    }
    assert_eq!(
        w.lds.read_u32(0x304 + 4 * 49),
        0,
        "lane 49 is past num_records"
    );
    assert_eq!(
        w.lds.read_u32(0x304 + 4 * 60),
        0,
        "lane 60 is past num_records"
    );
    assert_eq!(w.vgpr(2, 1), 8, "vdata/vaddr untouched");
}

/// RDNA 3 `buffer_load_lds_b32` with an index VGPR and a stride (idxen): lane l reads record
/// `index` of the V#; indices at or past num_records load zero.
#[test]
fn rdna3_buffer_load_lds_b32_indexes_records_by_stride() {
    let w = run(
        Arch::Rdna3,
        32,
        "s_mov_b32 m0, 0\nbuffer_load_lds_b32 v1, s[4:7], 0 idxen offset:2\ns_endpgm",
        &|w| {
            fill_global(w);
            set_vsharp(w, 0x1000, 12, 20);
            for l in 0..32 {
                w.set_vgpr(l, 1, 31 - l);
            }
        },
    );
    for l in 0..32u64 {
        let index = 31 - l;
        let want = if index < 20 {
            global_u32(12 * index + 2)
        } else {
            0
        };
        assert_eq!(w.lds.read_u32(2 + 4 * l), want, "lane {l}");
    }
}
