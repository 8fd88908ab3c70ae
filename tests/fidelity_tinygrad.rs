//! Classes of wrong behaviour found by running tinygrad's test suite on amdpcode (issues 11
//! and 13): each program runs under both engines, which must agree bit for bit, and is checked
//! against concrete bits.

mod common;

use amdpcode::spec::Arch;
use amdpcode::wave::{Engine, Executor, Program, WaveState};

/// Runs machine code given as hex bytes on a fresh wave of `arch` prepared by `init` under the
/// interpreter and the JIT, checks the two final states agree and returns it.
fn run_hex_both(arch: Arch, wave_size: u32, hex: &str, init: &dyn Fn(&mut WaveState)) -> WaveState {
    let db = common::spec().db(arch);
    let mut finals = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let mut ex = Executor::new(db, engine).unwrap();
        let p = Program::from_hex(ex.isa(), hex).unwrap_or_else(|e| panic!("{arch}: {hex}: {e}"));
        let mut w = ex.new_wave(wave_size);
        init(&mut w);
        ex.run(&p, &mut w)
            .unwrap_or_else(|e| panic!("{arch} {engine:?}: {hex}: {e}"));
        finals.push(w);
    }
    assert_eq!(finals[0], finals[1], "interpreter and JIT disagree");
    finals.remove(0)
}

/// CDNA's `V_BITOP3_B16/B32` read their 8-bit truth table from the VOP3 OMOD, ABS and NEG
/// fields (`TTBL = {INST.OMOD[1:0], INST.ABS[2:0], INST.NEG[2:0]}`): those fields are data,
/// not source negation or an output multiplier. They were taken as modifiers and the table
/// as 0, so tinygrad's gfx950 `test_pad_circular_mode` computed a wild index (`(x ^ 2) & 3`
/// via `bitop3:0x6c`) and faulted. Encodings from `llvm-mc-22 -mcpu=gfx950 -show-encoding`.
#[test]
fn cdna_bitop3_truth_table_from_modifier_fields() {
    let program = "\
        02 05 34 d2 01 05 0d 8a \
        03 05 34 d2 01 09 16 1c \
        06 02 33 d2 01 09 16 d4 \
        07 07 34 d2 01 09 16 fc";
    // v_bitop3_b32 v2, v1, 2, 3 bitop3:0x6c
    // v_bitop3_b32 v3, v1, v4, v5 bitop3:0xe8   (majority)
    // v_bitop3_b16 v6, v1, v4, v5 bitop3:0x96   (three-way xor)
    // v_bitop3_b32 v7, v1, v4, v5 bitop3:0xff
    let w = run_hex_both(Arch::Cdna, 64, program, &|w| {
        for lane in 0..64 {
            let v1 = if lane == 5 { 0xffff_ffff } else { 0x1234_5679 };
            w.set_vgpr(lane, 1, v1);
            w.set_vgpr(lane, 4, 0xff00_ff00);
            w.set_vgpr(lane, 5, 0x0f0f_0f0f);
        }
    });
    assert_eq!(w.vgpr(0, 2), 3, "(0x..79 ^ 2) & 3");
    assert_eq!(w.vgpr(5, 2), 1, "(0x..ff ^ 2) & 3");
    assert_eq!(w.vgpr(0, 3), 0x1f04_5f09, "majority");
    assert_eq!(w.vgpr(5, 3), 0xff0f_ff0f, "majority");
    assert_eq!(w.vgpr(0, 6) & 0xffff, 0xa676, "xor3, low half");
    assert_eq!(w.vgpr(5, 6) & 0xffff, 0x0ff0, "xor3, low half");
    assert_eq!(w.vgpr(0, 7), 0xffff_ffff, "table 0xff: all ones");
}
