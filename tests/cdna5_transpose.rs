//! gfx1250 (CDNA 5) transposing loads, `DS_LOAD_TR{4,6,8,16}_B*` and
//! `GLOBAL_LOAD_TR{4,6,8,16}_B*`: the wave layer's transpose model (`wave::native`) with the
//! shapes of their gfx950 and gfx12 counterparts (4-bit x 16, 6-bit x 16, 8-bit x 8 and
//! 16-bit x 8 elements per lane, transposed within each group of 16 lanes). Each program
//! runs under the interpreter, the JIT stepping and the JIT compiling blocks, which must agree.

mod common;

use amdpcode::spec::Arch;
use amdpcode::wave::{Executor, Program, WaveState};

fn run(program: &str, init: &dyn Fn(&mut WaveState)) -> WaveState {
    let load = |ex: &Executor| Program::assemble(ex.isa(), program).map_err(|e| e.to_string());
    common::engines::run_all(Arch::Cdna5, 32, program, &load, init)
}

/// LDS byte i = i (mod 256); lane l addresses `stride * l`.
fn lds_init(stride: u32) -> impl Fn(&mut WaveState) {
    move |w: &mut WaveState| {
        let bytes: Vec<u8> = (0..1024u32).map(|i| i as u8).collect();
        w.lds.write(0, &bytes);
        for l in 0..32 {
            w.set_vgpr(l, 1, stride * l);
        }
    }
}

/// `ds_load_tr16_b128`: lane m's element k is halfword m % 8 of lane 2k + m / 8.
#[test]
fn ds_load_tr16_b128_transposes_16_lane_blocks() {
    let w = run("ds_load_tr16_b128 v[4:7], v1\ns_endpgm", &|w| {
        let halves: Vec<u8> = (0..512u16).flat_map(|i| i.to_le_bytes()).collect();
        w.lds.write(0, &halves);
        for l in 0..32 {
            w.set_vgpr(l, 1, 16 * l);
        }
    });
    let half = |l: u32, k: u32| (w.vgpr(l, 4 + k / 2) >> (16 * (k % 2))) & 0xffff;
    let lane9: Vec<u32> = (0..8).map(|k| half(9, k)).collect();
    assert_eq!(lane9, [9, 25, 41, 57, 73, 89, 105, 121]);
    let lane16: Vec<u32> = (0..8).map(|k| half(16, k)).collect();
    assert_eq!(lane16, [128, 144, 160, 176, 192, 208, 224, 240]);
}

/// `ds_load_tr8_b64`: lane m's byte k is byte m % 8 of lane 2k + m / 8; `ds_load_tr4_b64`:
/// nibble k of lane m is nibble m of lane k.
#[test]
fn ds_load_tr8_b64_and_tr4_b64() {
    let w = run("ds_load_tr8_b64 v[4:5], v1\ns_endpgm", &lds_init(8));
    let byte = |l: u32, k: u32| (w.vgpr(l, 4 + k / 4) >> (8 * (k % 4))) & 0xff;
    let lane9: Vec<u32> = (0..8).map(|k| byte(9, k)).collect();
    assert_eq!(lane9, [9, 25, 41, 57, 73, 89, 105, 121]);
    let w = run("ds_load_tr4_b64 v[4:5], v1\ns_endpgm", &lds_init(8));
    let nib = |l: u32, k: u32| (w.vgpr(l, 4 + k / 8) >> (4 * (k % 8))) & 0xf;
    let lane3: Vec<u32> = (0..16).map(|k| nib(3, k)).collect();
    let want: Vec<u32> = (0..16).map(|k| ((8 * k + 1) >> 4) & 0xf).collect();
    assert_eq!(lane3, want);
}

/// `ds_load_tr6_b96`: sixteen 6-bit elements per lane (12 bytes); element k of lane m is
/// element m of lane k.
#[test]
fn ds_load_tr6_b96_transposes_6_bit_elements() {
    let w = run("ds_load_tr6_b96 v[4:6], v1\ns_endpgm", &lds_init(12));
    // Element j of lane l: bits 6j.. of the 96 bits at byte 12l.
    let source = |l: u32, j: u32| {
        let bytes: Vec<u8> = (0..12).map(|i| (12 * l + i) as u8).collect();
        let mut v = 0u128;
        for (i, b) in bytes.iter().enumerate() {
            v |= u128::from(*b) << (8 * i);
        }
        ((v >> (6 * j)) & 0x3f) as u32
    };
    let elem = |l: u32| {
        let v = u128::from(w.vgpr(l, 4))
            | u128::from(w.vgpr(l, 5)) << 32
            | u128::from(w.vgpr(l, 6)) << 64;
        move |k: u32| ((v >> (6 * k)) & 0x3f) as u32
    };
    for m in [0u32, 5, 15, 21] {
        let got: Vec<u32> = (0..16).map(elem(m)).collect();
        let want: Vec<u32> = (0..16).map(|k| source(m / 16 * 16 + k, m % 16)).collect();
        assert_eq!(got, want, "lane {m}");
    }
    // A concrete value: lane 1's element 0 is element 1 of lane 0 = bits 6..11 of bytes 0, 1.
    assert_eq!(elem(1)(0), (0x0100u32 >> 6) & 0x3f);
}

/// `global_load_tr8_b64` and `global_load_tr16_b128` transpose global data the same way.
#[test]
fn global_load_tr_forms_transpose_global_data() {
    let init = |stride: u32| {
        move |w: &mut WaveState| {
            let halves: Vec<u8> = (0..512u16).flat_map(|i| i.to_le_bytes()).collect();
            w.memory.write(0x2000, &halves);
            for l in 0..32 {
                w.set_vgpr(l, 0, 0x2000 + stride * l);
                w.set_vgpr(l, 1, 0);
            }
        }
    };
    let w = run(
        "global_load_tr16_b128 v[4:7], v[0:1], off\ns_endpgm",
        &init(16),
    );
    let half = |l: u32, k: u32| (w.vgpr(l, 4 + k / 2) >> (16 * (k % 2))) & 0xffff;
    let lane9: Vec<u32> = (0..8).map(|k| half(9, k)).collect();
    assert_eq!(lane9, [9, 25, 41, 57, 73, 89, 105, 121]);
    let w = run(
        "global_load_tr8_b64 v[4:5], v[0:1], off\ns_endpgm",
        &init(8),
    );
    // Lane 9's byte k is byte 1 of lane 2k + 1: halfword 4(2k + 1)'s high byte = 0.
    // Lane 8's byte k is byte 0 of lane 2k + 1: the low byte of halfword 8k + 4.
    let byte = |l: u32, k: u32| (w.vgpr(l, 4 + k / 4) >> (8 * (k % 4))) & 0xff;
    let lane8: Vec<u32> = (0..8).map(|k| byte(8, k)).collect();
    assert_eq!(lane8, [4, 12, 20, 28, 36, 44, 52, 60]);
}
