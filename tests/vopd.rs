//! VOPD dual issue: each half reads the registers as they were before the instruction, in
//! either direction, on every trip of a loop.

mod common;

use amdpcode::spec::Arch;
use amdpcode::wave::{Engine, Executor, Program, WaveState};

fn run(text: &str, engine: Engine, init: impl Fn(&mut WaveState)) -> WaveState {
    let mut ex = Executor::new(common::spec().db(Arch::Rdna3), engine).expect("executor");
    let p = Program::assemble(ex.isa(), text).expect("assembles");
    let mut w = WaveState::new(Arch::Rdna3, 32);
    w.set_exec(u32::MAX as u64);
    init(&mut w);
    ex.run(&p, &mut w).expect("runs");
    w
}

#[test]
fn x_reads_the_register_y_writes_as_it_was_before() {
    for engine in [Engine::Interp, Engine::Jit] {
        let w = run(
            "v_dual_mov_b32 v1, v2 :: v_dual_mov_b32 v2, 7\ns_endpgm\n",
            engine,
            |w| {
                for lane in 0..32 {
                    w.set_vgpr(lane, 2, 5 + lane);
                }
            },
        );
        for lane in 0..32 {
            assert_eq!(w.vgpr(lane, 1), 5 + lane, "{engine:?} lane {lane}");
            assert_eq!(w.vgpr(lane, 2), 7, "{engine:?} lane {lane}");
        }
    }
}

#[test]
fn a_vopd_in_a_loop_reads_the_state_before_it_on_every_trip() {
    // Each trip: v1 = v2 (X) and v2 = v2 + 1 (Y), both from before the trip: after ten
    // trips v2 has gained 10 and v1 holds v2 from before the last trip.
    let text = "s_mov_b32 s0, 10\nloop:\n\
                v_dual_mov_b32 v1, v2 :: v_dual_add_nc_u32 v2, 1, v2\n\
                s_sub_u32 s0, s0, 1\ns_cmp_lg_u32 s0, 0\ns_cbranch_scc1 loop\ns_endpgm\n";
    for engine in [Engine::Interp, Engine::Jit] {
        let w = run(text, engine, |w| {
            for lane in 0..32 {
                w.set_vgpr(lane, 2, 100 * lane);
            }
        });
        for lane in 0..32 {
            assert_eq!(w.vgpr(lane, 2), 100 * lane + 10, "{engine:?} lane {lane}");
            assert_eq!(w.vgpr(lane, 1), 100 * lane + 9, "{engine:?} lane {lane}");
        }
    }
}
