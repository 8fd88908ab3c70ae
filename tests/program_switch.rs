//! An executor that runs several programs in turn keeps each one's compiled blocks, arrival
//! counts and per-instruction plans: coming back to a program compiles nothing again.

mod common;

use amdpcode::spec::Arch;
use amdpcode::wave::{Engine, Executor, Program, WaveState};

fn looped(n: u32, add: &str) -> String {
    format!(
        "s_mov_b32 s0, {n}\nv_mov_b32 v1, 0\nloop:\nv_add_f32 v1, {add}, v1\ns_sub_u32 s0, s0, 1\n\
         s_cmp_lg_u32 s0, 0\ns_cbranch_scc1 loop\ns_endpgm\n"
    )
}

fn blocks_compiled() -> u64 {
    amdpcode::jit::block_stats().blocks
}

fn run(ex: &mut Executor, p: &Program) -> u32 {
    let mut w = WaveState::new(Arch::Rdna3, 32);
    w.set_exec(u32::MAX as u64);
    ex.run_fast(p, &mut w).expect("runs");
    w.vgpr(3, 1)
}

#[test]
fn coming_back_to_a_program_compiles_none_of_its_blocks_again() {
    let db = common::spec().db(Arch::Rdna3);
    let mut ex = Executor::new(db, Engine::Jit).expect("executor");
    ex.block_threshold = 2;
    let a = Program::assemble(ex.isa(), &looped(20, "1.0")).expect("a");
    let b = Program::assemble(ex.isa(), &looped(30, "2.0")).expect("b");
    let start = blocks_compiled();
    assert_eq!(run(&mut ex, &a), 20.0f32.to_bits());
    let after_a = blocks_compiled();
    assert!(after_a > start, "the loop of a compiles into a block");
    assert_eq!(run(&mut ex, &b), 60.0f32.to_bits());
    let after_b = blocks_compiled();
    assert!(after_b > after_a, "b's loop is a block of its own");
    // Code reached once per run (the entry, the end) reaches the threshold on a second run.
    assert_eq!(run(&mut ex, &a), 20.0f32.to_bits());
    assert_eq!(run(&mut ex, &b), 60.0f32.to_bits());
    let warm = blocks_compiled();
    for _ in 0..3 {
        assert_eq!(run(&mut ex, &a), 20.0f32.to_bits());
        assert_eq!(run(&mut ex, &b), 60.0f32.to_bits());
    }
    assert_eq!(blocks_compiled(), warm, "nothing compiled again");
}
