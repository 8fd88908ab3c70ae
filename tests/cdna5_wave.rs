//! gfx1250 (CDNA 5) on the modelled wave, under the interpreter and the JIT: VOPD3 halves,
//! 64-bit literals, `v_fmamk_f64`, the instruction clock of `s_get_shader_cycles_u64`, and
//! private memory reached through the flat scratch base.

mod common;

use amdpcode::spec::Arch;
use amdpcode::wave::{Engine, Executor, Program, WaveState};

fn run(text: &str, engine: Engine, init: impl Fn(&mut WaveState)) -> WaveState {
    let mut ex = Executor::new(common::spec().db(Arch::Cdna5), engine).expect("executor");
    let p = Program::assemble(ex.isa(), text).expect("assembles");
    let mut w = WaveState::new(Arch::Cdna5, 32);
    w.set_exec(u32::MAX as u64);
    init(&mut w);
    ex.run(&p, &mut w).expect("runs");
    w
}

fn run_hex(hex: &str, engine: Engine, init: impl Fn(&mut WaveState)) -> WaveState {
    let mut ex = Executor::new(common::spec().db(Arch::Cdna5), engine).expect("executor");
    let p = Program::from_hex(ex.isa(), hex).expect("decodes");
    let mut w = WaveState::new(Arch::Cdna5, 32);
    w.set_exec(u32::MAX as u64);
    init(&mut w);
    ex.run(&p, &mut w).expect("runs");
    w
}

fn f64_of(w: &WaveState, lane: u32, reg: u32) -> f64 {
    f64::from_bits(u64::from(w.vgpr(lane, reg)) | u64::from(w.vgpr(lane, reg + 1)) << 32)
}

fn set_f64(w: &mut WaveState, lane: u32, reg: u32, v: f64) {
    w.set_vgpr(lane, reg, v.to_bits() as u32);
    w.set_vgpr(lane, reg + 1, (v.to_bits() >> 32) as u32);
}

#[test]
fn vopd3_halves_apply_neg_third_sources_and_read_the_state_before_the_pair() {
    let text = "v_dual_mul_f32 v1, 1.0, v3 :: v_dual_fma_f32 v4, -v5, v6, -v7\n\
                v_dual_add_nc_u32 v8, v9, v10 :: v_dual_cndmask_b32 v9, v11, v12, s0\n\
                v_dual_lshlrev_b32 v13, 2, v0 :: v_dual_bitop2_b32 v14, v15, v17 bitop3:0x14\n\
                v_dual_fma_f64 v[20:21], -v[22:23], v[24:25], v[26:27] :: v_dual_sub_nc_u32 v30, 5, v31\n\
                s_endpgm\n";
    for engine in [Engine::Interp, Engine::Jit] {
        let w = run(text, engine, |w| {
            w.write_sgpr(0, 0x5555_5555);
            for lane in 0..32 {
                w.set_vgpr(lane, 0, lane);
                w.set_vgpr(lane, 3, (lane as f32 + 0.5).to_bits());
                w.set_vgpr(lane, 5, 2.0f32.to_bits());
                w.set_vgpr(lane, 6, (lane as f32).to_bits());
                w.set_vgpr(lane, 7, 100.0f32.to_bits());
                w.set_vgpr(lane, 9, 1000 + lane);
                w.set_vgpr(lane, 10, 7);
                w.set_vgpr(lane, 11, 11);
                w.set_vgpr(lane, 12, 12);
                w.set_vgpr(lane, 15, 0xf0f0_0000 | lane);
                w.set_vgpr(lane, 17, 0x0ff0_00ff);
                set_f64(w, lane, 22, 1.5);
                set_f64(w, lane, 24, lane as f64);
                set_f64(w, lane, 26, 0.25);
                w.set_vgpr(lane, 31, 3 * lane);
            }
        });
        for lane in 0..32 {
            let at = format!("{engine:?} lane {lane}");
            assert_eq!(f32::from_bits(w.vgpr(lane, 1)), lane as f32 + 0.5, "{at}");
            // -2 * lane - 100
            assert_eq!(
                f32::from_bits(w.vgpr(lane, 4)),
                -2.0 * lane as f32 - 100.0,
                "{at}"
            );
            // X read v9 before Y replaced it; Y selects v12 where s0 has the lane's bit.
            assert_eq!(w.vgpr(lane, 8), 1007 + lane, "{at}");
            let sel = if 0x5555_5555u32 >> lane & 1 == 1 {
                12
            } else {
                11
            };
            assert_eq!(w.vgpr(lane, 9), sel, "{at}");
            assert_eq!(w.vgpr(lane, 13), lane << 2, "{at}");
            // bitop3 0x14 with the third source 0 is the exclusive or of the first two.
            assert_eq!(w.vgpr(lane, 14), (0xf0f0_0000 | lane) ^ 0x0ff0_00ff, "{at}");
            assert_eq!(f64_of(&w, lane, 20), -1.5 * lane as f64 + 0.25, "{at}");
            assert_eq!(w.vgpr(lane, 30), 5u32.wrapping_sub(3 * lane), "{at}");
        }
    }
}

#[test]
fn literals_of_64_bits_and_fmamk_f64_compute_with_all_their_bits() {
    let text = "v_mov_b64_e32 v[2:3], 0x7fffffff80000000\n\
                v_add_nc_u64_e32 v[12:13], 0x100000005, v[2:3]\n\
                v_fmamk_f64 v[8:9], v[4:5], 0x4004000000000001, v[6:7]\n\
                v_fmaak_f64 v[10:11], v[4:5], v[6:7], 0x3ff0000000000000\n\
                s_mov_b64 s[4:5], 0x123456789abcdef0\n\
                s_endpgm\n";
    for engine in [Engine::Interp, Engine::Jit] {
        let w = run(text, engine, |w| {
            for lane in 0..32 {
                set_f64(w, lane, 4, 1.5);
                set_f64(w, lane, 6, lane as f64);
            }
        });
        assert_eq!(w.read_sgpr(4), 0x9abc_def0, "{engine:?}");
        assert_eq!(w.read_sgpr(5), 0x1234_5678, "{engine:?}");
        let k = f64::from_bits(0x4004_0000_0000_0001);
        for lane in 0..32 {
            let at = format!("{engine:?} lane {lane}");
            assert_eq!(w.vgpr(lane, 2), 0x8000_0000, "{at}");
            assert_eq!(w.vgpr(lane, 3), 0x7fff_ffff, "{at}");
            assert_eq!(w.vgpr(lane, 12), 0x8000_0005, "{at}");
            assert_eq!(w.vgpr(lane, 13), 0x8000_0000, "{at}");
            assert_eq!(f64_of(&w, lane, 8), 1.5f64.mul_add(k, lane as f64), "{at}");
            assert_eq!(
                f64_of(&w, lane, 10),
                1.5f64.mul_add(lane as f64, 1.0),
                "{at}"
            );
        }
    }
}

#[test]
fn s_get_shader_cycles_u64_reads_the_instruction_clock() {
    let text = "s_get_shader_cycles_u64 s[10:11]\ns_nop 0\ns_nop 0\n\
                s_get_shader_cycles_u64 s[12:13]\ns_endpgm\n";
    for engine in [Engine::Interp, Engine::Jit] {
        let w = run(text, engine, |_| {});
        assert_eq!(w.read_sgpr(10), 0, "{engine:?}");
        assert_eq!(w.read_sgpr(12), 3, "{engine:?}");
        assert_eq!(w.read_sgpr(13), 0, "{engine:?}");
    }
}

#[test]
fn flat_addresses_from_the_flat_scratch_base_reach_each_lanes_private_memory() {
    // clang-22's cast of a private pointer to a flat one at -O0: base + (lane << 52) + offset.
    // Each lane stores through its flat address, reads its own byte 16 back with SCRATCH,
    // and reads its neighbour's (lane ^ 1) through the neighbour's flat address.
    let text = "s_mov_b64 s[6:7], src_flat_scratch_base_lo\n\
                v_mbcnt_lo_u32_b32 v10, -1, 0\n\
                v_lshlrev_b32_e32 v1, 20, v10\n\
                v_mov_b32_e32 v0, 16\n\
                v_add_nc_u64_e32 v[0:1], s[6:7], v[0:1]\n\
                v_add_nc_u32_e32 v2, 1000, v10\n\
                flat_store_b32 v[0:1], v2\n\
                scratch_load_b32 v3, off, off offset:16\n\
                v_xor_b32_e32 v11, 1, v10\n\
                v_lshlrev_b32_e32 v5, 20, v11\n\
                v_mov_b32_e32 v4, 16\n\
                v_add_nc_u64_e32 v[4:5], s[6:7], v[4:5]\n\
                flat_load_b32 v6, v[4:5]\n\
                s_endpgm\n";
    for engine in [Engine::Interp, Engine::Jit] {
        let w = run(text, engine, |_| {});
        for lane in 0..32 {
            let at = format!("{engine:?} lane {lane}");
            assert_eq!(w.vgpr(lane, 3), 1000 + lane, "{at}");
            assert_eq!(w.vgpr(lane, 6), 1000 + (lane ^ 1), "{at}");
        }
    }
}

#[test]
fn bitop3_b16_takes_three_16_bit_sources_with_their_op_sel_halves() {
    // 0xe4 is a bitwise select: bit i of D is S0[i] where S2[i] is set, else S1[i]. The bytes
    // are llvm-mc-22's for gfx1250:
    // `v_bitop3_b16 v1, v2, v3, 1.0 bitop3:0xe4` (a 16-bit inline constant: 0x3c00),
    // `v_bitop3_b16 v9, v2, v3, v4 bitop3:0xe4 op_sel:[1,0,1,1]` (S0 and S2 from the high
    // halves, D into the high half, the low half kept), `s_endpgm`.
    let hex = "01 04 33 d6 02 07 ca 9b  09 6c 33 d6 02 07 12 9c  00 00 b0 bf";
    for engine in [Engine::Interp, Engine::Jit] {
        let w = run_hex(hex, engine, |w| {
            for lane in 0..32 {
                w.set_vgpr(lane, 1, 0xdead_beef);
                w.set_vgpr(lane, 2, 0x1234_5678 ^ lane);
                w.set_vgpr(lane, 3, 0xffff_00f0);
                w.set_vgpr(lane, 4, 0x0f0f_3c3c);
                w.set_vgpr(lane, 9, 0xdead_beef);
            }
        });
        let select = |s0: u32, s1: u32, s2: u32| (s0 & s2) | (s1 & !s2) & 0xffff;
        for lane in 0..32 {
            let lo = select(0x5678 ^ lane, 0x00f0, 0x3c00);
            assert_eq!(w.vgpr(lane, 1), 0xdead_0000 | lo, "{engine:?} lane {lane}");
            let hi = select(0x1234, 0x00f0, 0x0f0f);
            assert_eq!(w.vgpr(lane, 9), hi << 16 | 0xbeef, "{engine:?} lane {lane}");
        }
        assert_eq!(w.vgpr(0, 1), 0xdead_14f0);
        assert_eq!(w.vgpr(0, 9), 0x02f4_beef);
    }
}

#[test]
fn packed_f32_operations_select_and_negate_each_half_as_cdna_4_does() {
    let text = "v_pk_add_f32 v[2:3], v[4:5], v[6:7] op_sel:[0,1] op_sel_hi:[1,0] neg_lo:[0,1]
                v_pk_mul_f32 v[8:9], v[4:5], v[6:7] op_sel:[1,0] op_sel_hi:[0,1] neg_hi:[0,1]
                v_pk_fma_f32 v[10:11], v[4:5], v[6:7], v[4:5]
                s_endpgm";
    for engine in [Engine::Interp, Engine::Jit] {
        let w = run(text, engine, |w| {
            for lane in 0..32 {
                let l = lane as f32;
                w.set_vgpr(lane, 4, (1.0 + l).to_bits());
                w.set_vgpr(lane, 5, 2.0f32.to_bits());
                w.set_vgpr(lane, 6, 10.0f32.to_bits());
                w.set_vgpr(lane, 7, 20.0f32.to_bits());
            }
        });
        for lane in 0..32 {
            let f = |r: u32| f32::from_bits(w.vgpr(lane, r));
            let a = 1.0 + lane as f32;
            // add: low = S0.lo + -S1.hi, high = S0.hi + S1.lo.
            assert_eq!((f(2), f(3)), (a - 20.0, 12.0), "{engine:?} lane {lane}");
            // mul: low = S0.hi * S1.lo, high = S0.lo * -S1.hi.
            assert_eq!((f(8), f(9)), (20.0, a * -20.0), "{engine:?} lane {lane}");
            // fma: each half from its own half.
            assert_eq!(
                (f(10), f(11)),
                (a * 10.0 + a, 42.0),
                "{engine:?} lane {lane}"
            );
        }
    }
}

#[test]
fn mad_nc_64_bit_multiply_adds_read_a_literal_and_their_64_bit_addend() {
    // RDNA 4's VOP3SD v_mad_co_* without the carry-out: the literal is the first source.
    let text = "v_mad_nc_u64_u32 v[16:17], 0xb823ee09, v27, v[14:15]
                v_mad_nc_i64_i32 v[18:19], v27, -2, v[14:15]
                s_endpgm";
    for engine in [Engine::Interp, Engine::Jit] {
        let w = run(text, engine, |w| {
            for lane in 0..32 {
                w.set_vgpr(lane, 27, 0x1234_5678 + lane);
                w.set_vgpr(lane, 14, 0x1111_1111);
                w.set_vgpr(lane, 15, 0x2222_2222);
            }
        });
        for lane in 0..32 {
            let pair = |r: u32| u64::from(w.vgpr(lane, r)) | u64::from(w.vgpr(lane, r + 1)) << 32;
            let x = u64::from(0x1234_5678 + lane);
            let c = 0x2222_2222_1111_1111u64;
            assert_eq!(pair(16), 0xb823_ee09u64 * x + c, "{engine:?} lane {lane}");
            let signed = (x as i64).wrapping_mul(-2).wrapping_add(c as i64);
            assert_eq!(pair(18), signed as u64, "{engine:?} lane {lane}");
        }
        assert_eq!(
            u64::from(w.vgpr(0, 16)) | u64::from(w.vgpr(0, 17)) << 32,
            0x2f3a_4e5d_6fb3_ab49
        );
    }
}
