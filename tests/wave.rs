//! Wave execution: the waterfall seed, the hardware-validated sample of
//! `../shared/hw-vectors`, and interpreter/JIT agreement on whole programs.

mod common;

use std::collections::BTreeMap;

use amdpcode::exec::Rng;
use amdpcode::spec::Arch;
use amdpcode::wave::{code, Engine, Executor, Program, WaveError, WaveState};
use serde_json::Value;

fn hex_words(words: &[u32]) -> String {
    words
        .iter()
        .map(|w| {
            w.to_le_bytes()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The state compared between runs of different programs: everything but PC and the
/// instruction clock (`WaveState::retired`, which counts the instructions each ran).
fn without_pc(w: &WaveState) -> WaveState {
    let mut w = w.clone();
    w.pc = 0;
    w.retired = 0;
    w
}

/// Instruction words (little-endian u32, as the assembler prints them) of the waterfall loop.
struct Waterfall {
    arch: Arch,
    wave: u32,
}

impl Waterfall {
    /// The program: save EXEC, then per unique v0 value among the remaining lanes add it to
    /// v1 (the `<OP>`), clear those lanes and loop while any remain; restore EXEC.
    fn program(&self, one_instruction: bool) -> Vec<u32> {
        let w64 = self.wave == 64;
        let (save2, save4, restore, readfirst, cmpx, op, andn2, mov_exec, wrexec, branch, end) =
            match (self.arch, w64) {
                (Arch::Cdna, _) => (
                    0xbe82017e,
                    0xbe84017e,
                    0xbefe0102,
                    0x7e000500,
                    0x7db40000,
                    0x68020200,
                    0x89847e04,
                    0xbefe0104,
                    0xbe843604,
                    0xbf850000u32,
                    0xbf810000,
                ),
                (_, true) => (
                    0xbe82017e, 0xbe84017e, 0xbefe0102, 0x7e000500, 0x7d940000, 0x4a020200,
                    0x91847e04, 0xbefe0104, 0xbe843704, 0xbfa20000, 0xbfb00000,
                ),
                (_, false) => (
                    0xbe82007e, 0xbe84007e, 0xbefe0002, 0x7e000500, 0x7d940000, 0x4a020200,
                    0x91047e04, 0xbefe0004, 0xbe843604, 0xbfa20000, 0xbfb00000,
                ),
            };
        let mut p = vec![save2, save4, readfirst, cmpx, op];
        if one_instruction {
            p.push(wrexec);
        } else {
            p.push(andn2);
            p.push(mov_exec);
        }
        // Branch back to `readfirst` (word 2): offset in dwords from the next instruction.
        let offset = 2i32 - (p.len() as i32 + 1);
        p.push(branch | (offset as u16 as u32));
        p.push(restore);
        p.push(end);
        p
    }
}

fn random_wave(arch: Arch, wave_size: u32, rng: &mut Rng) -> WaveState {
    let mut w = WaveState::new(arch, wave_size);
    let exec = rng.next_u64() & w.full_mask();
    w.set_exec(exec);
    for lane in 0..wave_size {
        w.set_vgpr(lane, 0, (rng.next_u64() % 5) as u32);
        w.set_vgpr(lane, 1, rng.next_u64() as u32);
    }
    for c in 0..16 {
        w.write_sgpr(c, rng.next_u64() as u32);
    }
    w.scc = rng.next_u64() & 1 == 1;
    w.write_sgpr(code::VCC_LO, rng.next_u64() as u32);
    w
}

fn waterfall_case(arch: Arch, wave_size: u32, engine: Engine) {
    let db = common::spec().db(arch);
    let mut ex = Executor::new(db, engine).unwrap();
    let wf = Waterfall {
        arch,
        wave: wave_size,
    };
    let two = Program::from_hex(ex.isa(), &hex_words(&wf.program(false))).unwrap();
    let one = Program::from_hex(ex.isa(), &hex_words(&wf.program(true))).unwrap();
    let mut rng = Rng::new(6 + wave_size as u64 + arch as u64 * 100);
    for case in 0..1000 {
        let init = random_wave(arch, wave_size, &mut rng);
        let mut a = init.clone();
        let mut b = init.clone();
        ex.run(&two, &mut a).unwrap_or_else(|e| {
            panic!("{arch} wave{wave_size} case {case}: two-instruction form: {e}")
        });
        ex.run(&one, &mut b).unwrap_or_else(|e| {
            panic!("{arch} wave{wave_size} case {case}: one-instruction form: {e}")
        });
        assert_eq!(a.exec(), init.exec(), "case {case}: EXEC restored");
        assert_eq!(
            without_pc(&a),
            without_pc(&b),
            "{arch} wave{wave_size} case {case}: the two forms differ"
        );
        for lane in 0..wave_size {
            let want = if init.exec() >> lane & 1 == 1 {
                init.vgpr(lane, 1).wrapping_add(init.vgpr(lane, 0))
            } else {
                init.vgpr(lane, 1)
            };
            assert_eq!(a.vgpr(lane, 1), want, "case {case} lane {lane}: v1");
        }
    }
}

#[test]
fn waterfall_forms_agree_cdna_wave64() {
    waterfall_case(Arch::Cdna, 64, Engine::Interp);
}

#[test]
fn waterfall_forms_agree_rdna3_wave32() {
    waterfall_case(Arch::Rdna3, 32, Engine::Interp);
}

#[test]
fn waterfall_forms_agree_rdna3_wave64() {
    waterfall_case(Arch::Rdna3, 64, Engine::Interp);
}

#[test]
fn waterfall_forms_agree_under_the_jit() {
    for (arch, wave) in [(Arch::Cdna, 64), (Arch::Rdna3, 32), (Arch::Rdna3, 64)] {
        waterfall_case(arch, wave, Engine::Jit);
    }
}

#[test]
fn runaway_program_hits_the_step_budget() {
    let db = common::spec().db(Arch::Rdna3);
    let mut ex = Executor::new(db, Engine::Interp).unwrap();
    ex.step_budget = 1000;
    // s_branch -1: jumps to itself.
    let p = Program::from_hex(ex.isa(), &hex_words(&[0xbfa0ffff])).unwrap();
    let mut w = ex.new_wave(32);
    assert_eq!(
        ex.run(&p, &mut w),
        Err(WaveError::StepBudget { steps: 1000 })
    );
}

#[test]
fn jump_outside_the_program_names_the_address() {
    let db = common::spec().db(Arch::Rdna3);
    let mut ex = Executor::new(db, Engine::Interp).unwrap();
    // s_nop 0; s_branch 5.
    let p = Program::from_hex(ex.isa(), &hex_words(&[0xbf800000, 0xbfa00005])).unwrap();
    let mut w = ex.new_wave(32);
    assert_eq!(
        ex.run(&p, &mut w),
        Err(WaveError::PcOutOfProgram {
            from: 4,
            target: 28
        })
    );
}

/// Runs `program` (assembly, or hex words when `hex` is set) from a wave prepared by `init`
/// under both engines, checks they agree and returns the final state.
fn run_both(program: &str, hex: bool, init: &dyn Fn(&mut WaveState)) -> WaveState {
    let db = common::spec().db(Arch::Rdna3);
    let mut finals = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let mut ex = Executor::new(db, engine).unwrap();
        let p = if hex {
            Program::from_hex(ex.isa(), program).unwrap()
        } else {
            Program::assemble(ex.isa(), program).unwrap()
        };
        let mut w = ex.new_wave(32);
        init(&mut w);
        ex.run(&p, &mut w).unwrap();
        finals.push(w);
    }
    assert_eq!(finals[0], finals[1], "interpreter and JIT disagree");
    finals.remove(0)
}

#[test]
fn vop3_integer_clamp_saturates() {
    let w = run_both(
        "v_add_nc_u32_e64 v2, v0, v1 clamp\nv_sub_nc_i32 v3, v4, v1 clamp\nv_add_nc_u32_e64 v5, v0, v1",
        false,
        &|w| {
            for lane in 0..32 {
                w.set_vgpr(lane, 0, 0xffff_ffff);
                w.set_vgpr(lane, 1, 1);
                w.set_vgpr(lane, 4, 0x8000_0000);
            }
        },
    );
    assert_eq!(w.vgpr(0, 2), 0xffff_ffff, "unsigned add saturates");
    assert_eq!(w.vgpr(0, 3), 0x8000_0000, "signed sub saturates at INT_MIN");
    assert_eq!(w.vgpr(0, 5), 0, "without clamp the sum wraps");
}

#[test]
fn vopd_halves_read_the_state_before_the_instruction() {
    // v_dual_mov_b32 v2, 0 :: v_dual_add_nc_u32 v1, v2, v0
    let w = run_both(&hex_words(&[0xca200080, 0x02000102]), true, &|w| {
        for lane in 0..32 {
            w.set_vgpr(lane, 0, 1);
            w.set_vgpr(lane, 2, 0xffff_ffff);
        }
    });
    assert_eq!(w.vgpr(3, 2), 0);
    assert_eq!(w.vgpr(3, 1), 0, "Y read v2 before X wrote it");
}

#[test]
fn ds_bpermute_reads_the_addressed_lane() {
    let w = run_both("ds_bpermute_b32 v2, v0, v1", false, &|w| {
        for lane in 0..32 {
            // Each lane reads lane (31 - lane).
            w.set_vgpr(lane, 0, (31 - lane) * 4);
            w.set_vgpr(lane, 1, 100 + lane);
        }
    });
    assert_eq!(w.vgpr(0, 2), 131);
    assert_eq!(w.vgpr(31, 2), 100);
}

/// Scratch is private to each lane: 32 lanes storing to the same scratch offset each read back
/// their own value (the SCRATCH entries' 32-bit `ADDR` once dropped the lane and every lane
/// read the last lane's store), and a FLAT access in the private aperture reaches the same
/// per-lane bytes.
#[test]
fn scratch_is_private_per_lane() {
    let aperture_hi = (amdpcode::wave::PRIVATE_APERTURE >> 32) as u32;
    let program = format!(
        "s_mov_b32 s33, 32
scratch_store_b32 off, v0, s33 offset:32
scratch_store_b64 off, v[4:5], s33 offset:64
scratch_load_b32 v1, off, s33 offset:32
scratch_load_b64 v[6:7], off, s33 offset:64
v_mov_b32 v8, 0x48
v_mov_b32 v9, {aperture_hi:#x}
flat_store_b32 v[8:9], v3
scratch_load_b32 v10, off, s33 offset:40
flat_load_b32 v11, v[2:3]"
    );
    let w = run_both(&program, false, &|w| {
        for lane in 0..32 {
            w.set_vgpr(lane, 0, 1000 + lane);
            w.set_vgpr(lane, 2, 0x20 + 32);
            w.set_vgpr(lane, 3, aperture_hi);
            w.set_vgpr(lane, 4, 7 * lane);
            w.set_vgpr(lane, 5, 0xabc0 + lane);
        }
    });
    for lane in 0..32 {
        assert_eq!(w.vgpr(lane, 1), 1000 + lane, "lane {lane}: scratch b32");
        assert_eq!(w.vgpr(lane, 6), 7 * lane, "lane {lane}: scratch b64 low");
        assert_eq!(
            w.vgpr(lane, 7),
            0xabc0 + lane,
            "lane {lane}: scratch b64 high"
        );
        assert_eq!(
            w.vgpr(lane, 10),
            aperture_hi,
            "lane {lane}: FLAT store, scratch load"
        );
        assert_eq!(
            w.vgpr(lane, 11),
            1000 + lane,
            "lane {lane}: scratch store, FLAT load"
        );
    }
}

/// Runs `program` on a wave of `arch` and `wave_size` under both engines, checks they agree and
/// returns the final state.
fn run_both_on(
    arch: Arch,
    wave_size: u32,
    program: &str,
    init: &dyn Fn(&mut WaveState),
) -> WaveState {
    let db = common::spec().db(arch);
    let mut finals = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let mut ex = Executor::new(db, engine).unwrap();
        let p = Program::assemble(ex.isa(), program).unwrap();
        let mut w = ex.new_wave(wave_size);
        init(&mut w);
        ex.run(&p, &mut w).unwrap();
        finals.push(w);
    }
    assert_eq!(finals[0], finals[1], "interpreter and JIT disagree");
    finals.remove(0)
}

/// `ds_swizzle_b32` moves VGPR data between lanes (its text addresses the VGPR file by the
/// register numbers of the encoding; the VGPR contents were once taken as the register number).
#[test]
fn ds_swizzle_permutes_lanes() {
    for (arch, wave) in [(Arch::Rdna3, 32), (Arch::Rdna3, 64), (Arch::Cdna, 64)] {
        let w = run_both_on(
            arch,
            wave,
            "ds_swizzle_b32 v2, v1 offset:0x041f\nds_swizzle_b32 v3, v1 offset:0x801b\ns_waitcnt lgkmcnt(0)",
            &|w| {
                for lane in 0..wave {
                    w.set_vgpr(lane, 1, 100 + lane);
                    w.set_vgpr(lane, 0, 0x7fff_0000);
                }
            },
        );
        for lane in 0..wave {
            assert_eq!(
                w.vgpr(lane, 2),
                100 + (lane ^ 1),
                "{arch:?} wave{wave} lane {lane}: xor 1"
            );
            assert_eq!(
                w.vgpr(lane, 3),
                100 + (lane & !3) + 3 - lane % 4,
                "{arch:?} lane {lane}: quad perm"
            );
        }
    }
}

/// CDNA's `ds_bpermute_b32` reaches all 64 lanes (its text: `(addr + offset) / 4U % 64U`); RDNA's
/// text takes the lane modulo 32 whatever the wave size.
#[test]
fn ds_bpermute_lane_modulus_per_arch() {
    for (arch, modulus) in [(Arch::Cdna, 64), (Arch::Rdna3, 32)] {
        let w = run_both_on(
            arch,
            64,
            "ds_bpermute_b32 v2, v0, v1\ns_waitcnt lgkmcnt(0)",
            &|w| {
                for lane in 0..64 {
                    // Each lane reads lane 63 - lane.
                    w.set_vgpr(lane, 0, (63 - lane) * 4);
                    w.set_vgpr(lane, 1, 1000 + lane);
                }
            },
        );
        for lane in 0..64 {
            assert_eq!(
                w.vgpr(lane, 2),
                1000 + (63 - lane) % modulus,
                "{arch:?} lane {lane}"
            );
        }
    }
}

/// CDNA's `v_trunc_f64_e64` runs the VOP1 form's text (AMD's VOP3 entry has none).
#[test]
fn cdna_v_trunc_f64_e64() {
    let w = run_both_on(Arch::Cdna, 64, "v_trunc_f64_e64 v[2:3], -v[0:1]", &|w| {
        for lane in 0..64 {
            let x = (lane as f64 - 31.5) * 1.75;
            w.set_vgpr(lane, 0, x.to_bits() as u32);
            w.set_vgpr(lane, 1, (x.to_bits() >> 32) as u32);
        }
    });
    for lane in 0..64 {
        let want = (-(lane as f64 - 31.5) * 1.75).trunc();
        let got = f64::from_bits(w.vgpr(lane, 2) as u64 | (w.vgpr(lane, 3) as u64) << 32);
        assert_eq!(got.to_bits(), want.to_bits(), "lane {lane}");
    }
}

/// A DPP16 lane whose source is out of its row with BOUND_CTRL = 0, or whose row or bank is
/// masked off, is not written (it once took its own lane's source); BOUND_CTRL = 1 reads 0.
#[test]
fn dpp_disabled_lanes_keep_their_value() {
    let w = run_both(
        "v_mov_b32_dpp v1, v0 row_shr:3 row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v2, v0 row_shr:3 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_mov_b32_dpp v3, v0 quad_perm:[1,0,3,2] row_mask:0x1 bank_mask:0xd
v_add_nc_u32_dpp v4, v0, v0 row_shl:1 row_mask:0xf bank_mask:0xf",
        false,
        &|w| {
            for lane in 0..32 {
                w.set_vgpr(lane, 0, 100 + lane);
                for reg in 1..=4 {
                    w.set_vgpr(lane, reg, 77);
                }
            }
        },
    );
    for lane in 0..32 {
        let i = lane % 16;
        let shr3 = if i >= 3 { 100 + lane - 3 } else { 77 };
        assert_eq!(w.vgpr(lane, 1), shr3, "lane {lane}: row_shr:3");
        assert_eq!(
            w.vgpr(lane, 2),
            if i >= 3 { 100 + lane - 3 } else { 0 },
            "lane {lane}: bound_ctrl:1"
        );
        let quad = if lane < 16 && i / 4 != 1 {
            100 + (lane ^ 1)
        } else {
            77
        };
        assert_eq!(w.vgpr(lane, 3), quad, "lane {lane}: row/bank masks");
        let shl1 = if i < 15 { 2 * (100 + lane) + 1 } else { 77 };
        assert_eq!(w.vgpr(lane, 4), shl1, "lane {lane}: VOP2 DPP");
    }
}

/// DS atomics add the instruction's offset (their texts read `MEM[ADDR]`; two atomics at
/// offsets 0 and 4 once hit the same word), and lanes addressing the same word update it one
/// after the other (a returning min gives each lane the minimum of the lanes before it).
#[test]
fn ds_atomics_offset_and_lane_order() {
    let w = run_both(
        "v_mov_b32 v5, 0
ds_store_b32 v5, v6
ds_store_b32 v5, v6 offset:4
ds_min_i32 v5, v0
ds_max_i32 v5, v0 offset:4
ds_min_rtn_i32 v3, v5, v0 offset:8
s_waitcnt lgkmcnt(0)
ds_load_b32 v1, v5
ds_load_b32 v2, v5 offset:4
ds_load_b32 v4, v5 offset:8
s_waitcnt lgkmcnt(0)",
        false,
        &|w| {
            for lane in 0..32 {
                // 7, -7, 21, ... alternating signs, all within +-300.
                let v = (7 * (lane as i32 + 1)) * if lane % 2 == 0 { 1 } else { -1 };
                w.set_vgpr(lane, 0, v as u32);
                w.set_vgpr(lane, 6, 100);
            }
        },
    );
    let vals: Vec<i32> = (0..32)
        .map(|l| (7 * (l + 1)) * if l % 2 == 0 { 1 } else { -1 })
        .collect();
    let min = *vals.iter().min().unwrap();
    let max = *vals.iter().max().unwrap();
    assert_eq!(w.vgpr(0, 1) as i32, min.min(100), "ds_min_i32 at offset 0");
    assert_eq!(w.vgpr(0, 2) as i32, max.max(100), "ds_max_i32 at offset 4");
    assert_eq!(
        w.vgpr(0, 4) as i32,
        min.min(0),
        "ds_min_rtn_i32 at offset 8 (LDS starts at 0)"
    );
    let mut running = 0i32;
    for lane in 0..32 {
        assert_eq!(
            w.vgpr(lane, 3) as i32,
            running,
            "lane {lane}: value before its update"
        );
        running = running.min(vals[lane as usize]);
    }
}

/// ABS/NEG apply to sources the spec lists as `vsrc0` (VOP1 entries in their VOP3 form, and
/// RDNA 4's VOP3 entries): `v_log_f32_e64 v1, |v0|` once took the log of a negative number.
#[test]
fn vop3_modifiers_on_vsrc0_operands() {
    let program = "v_log_f32_e64 v1, |v0|
v_sqrt_f32_e64 v2, -v0
v_rcp_f32_e64 v3, |v0|
v_mul_f32_e64 v4, |v0|, -v5
v_mul_f32_e64 v6, -v0, v5";
    for arch in [Arch::Rdna3, Arch::Rdna4] {
        let w = run_both_on(arch, 32, program, &|w| {
            for lane in 0..32 {
                w.set_vgpr(lane, 0, (-4.0f32).to_bits());
                w.set_vgpr(lane, 5, 3.0f32.to_bits());
            }
        });
        let f = |reg: u32| f32::from_bits(w.vgpr(0, reg));
        assert_eq!(f(1), 2.0, "{arch:?}: log2 |-4|");
        assert_eq!(f(2), 2.0, "{arch:?}: sqrt -(-4)");
        assert_eq!(f(3), 0.25, "{arch:?}: rcp |-4|");
        assert_eq!(f(4), -12.0, "{arch:?}: |-4| * -3");
        assert_eq!(f(6), 12.0, "{arch:?}: -(-4) * 3");
    }
}

/// `s_sendmsg` (which gfx11 kernels issue as `sendmsg(MSG_DEALLOC_VGPRS)` before `s_endpgm`)
/// runs and changes no modelled state (AMD has no text for it).
#[test]
fn s_sendmsg_changes_no_state() {
    for (arch, msg) in [
        (Arch::Rdna3, "MSG_DEALLOC_VGPRS"),
        (Arch::Rdna4, "MSG_DEALLOC_VGPRS"),
        (Arch::Cdna, "MSG_INTERRUPT"),
    ] {
        let program = format!("s_sendmsg sendmsg({msg})\ns_mov_b32 s0, 5");
        let w = run_both_on(arch, 64, &program, &|_| {});
        assert_eq!(w.read_sgpr(0), 5, "{arch:?}");
    }
}

/// `v_cndmask_b32_e64` applies ABS/NEG to its sources as sign-bit operations (clang selects
/// `fabs` of a select into it at -O0: `v_cndmask_b32_e64 v1, |v0|, v2, s0`).
#[test]
fn v_cndmask_source_modifiers() {
    // v_cndmask_b32_e64 v1, |v0|, v2, s0 ; v_cndmask_b32_e64 v3, -v0, v2, s0
    let w = run_both(
        "01 01 01 d5 00 05 02 00 03 00 01 d5 00 05 02 20",
        true,
        &|w| {
            for lane in 0..32 {
                w.set_vgpr(lane, 0, (-4.0f32).to_bits());
                w.set_vgpr(lane, 2, 1);
            }
        },
    );
    assert_eq!(
        f32::from_bits(w.vgpr(0, 1)),
        4.0,
        "|v0| (s0 = 0 selects src0)"
    );
    assert_eq!(f32::from_bits(w.vgpr(0, 3)), 4.0, "-v0");
}

// ---- The hardware-validated sample -------------------------------------------------------

fn sample() -> Option<Vec<Value>> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/hw-vectors/sample.jsonl");
    let text = std::fs::read_to_string(&path).ok()?;
    Some(
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("sample.jsonl: a line is not JSON"))
            .collect(),
    )
}

const MEMORY_PREFIXES: &[&str] = &[
    "s_load",
    "s_buffer_load",
    "global_",
    "flat_",
    "scratch_",
    "ds_",
    "buffer_",
];

fn is_register_only(rec: &Value) -> bool {
    rec["program"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .all(|l| {
            !MEMORY_PREFIXES
                .iter()
                .any(|p| l.trim_start().starts_with(p))
        })
}

const KERNARG: u64 = 0x1000;
const OUT_BUF: u64 = 0x10_0000;

fn init_wave(rec: &Value, arch: Arch) -> WaveState {
    let wave_size = rec["wave_size"].as_u64().unwrap_or(32) as u32;
    let mut w = WaveState::new(arch, wave_size);
    let init = &rec["init"];
    w.set_exec(0);
    for (k, v) in init["sgpr"].as_object().into_iter().flatten() {
        let v = v.as_u64().unwrap_or(0) as u32;
        let c = match k.as_str() {
            "vcc_lo" => code::VCC_LO,
            "vcc_hi" => code::VCC_HI,
            "exec_lo" => code::EXEC_LO,
            "exec_hi" => code::EXEC_HI,
            s => s[1..].parse().expect("sgpr name"),
        };
        w.write_sgpr(c, v);
    }
    for (k, v) in init["vgpr"].as_object().into_iter().flatten() {
        let reg: u32 = k[1..].parse().expect("vgpr name");
        for lane in 0..wave_size {
            let x = match v {
                Value::String(s) if s == "tid" => lane,
                v => v.as_u64().unwrap_or(0) as u32,
            };
            w.set_vgpr(lane, reg, x);
        }
    }
    for (k, _) in init["pointers"].as_object().into_iter().flatten() {
        let first: u32 = k
            .trim_start_matches("s[")
            .split(':')
            .next()
            .and_then(|x| x.parse().ok())
            .expect("pointer register");
        w.write_sgpr(first, KERNARG as u32);
        w.write_sgpr(first + 1, (KERNARG >> 32) as u32);
    }
    w.load_memory(KERNARG, &OUT_BUF.to_le_bytes());
    w
}

fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10 & 0x1f) as i32;
    let man = (h & 0x3ff) as f64;
    match exp {
        0 => sign * man * 2f64.powi(-24),
        31 if man == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        e => sign * (1.0 + man / 1024.0) * 2f64.powi(e - 15),
    }
}

/// Checks one expectation against a register value; `Err` says why it fails.
fn check(value: u64, bits: u32, chk: &Value) -> Result<(), String> {
    if let Some(list) = chk.as_array() {
        return list.iter().try_for_each(|c| check(value, bits, c));
    }
    if let Some(x) = chk.as_u64() {
        return if value == x {
            Ok(())
        } else {
            Err(format!("got 0x{value:x}, want 0x{x:x}"))
        };
    }
    if let Some(x) = chk.as_i64() {
        let want = x as u64
            & if bits >= 64 {
                u64::MAX
            } else {
                (1 << bits) - 1
            };
        return if value == want {
            Ok(())
        } else {
            Err(format!("got 0x{value:x}, want 0x{want:x}"))
        };
    }
    let o = chk.as_object().ok_or("unknown check")?;
    if let (Some(mask), Some(want)) = (o.get("mask"), o.get("value")) {
        let (mask, want) = (mask.as_u64().unwrap_or(0), want.as_u64().unwrap_or(0));
        return if value & mask == want {
            Ok(())
        } else {
            Err(format!("got 0x{value:x} & 0x{mask:x}, want 0x{want:x}"))
        };
    }
    let ty = o.get("type").and_then(Value::as_str).unwrap_or("f32");
    let mut raw = value;
    if let Some(b) = o.get("bits").and_then(Value::as_str) {
        let (hi, lo) = b.split_once(':').ok_or("bad bits")?;
        let (hi, lo): (u32, u32) = (
            hi.parse().map_err(|_| "bits")?,
            lo.parse().map_err(|_| "bits")?,
        );
        raw = (value >> lo) & ((1u64 << (hi - lo + 1)) - 1);
    }
    let x = match ty {
        "f16" => f16_to_f64(raw as u16),
        "f64" => f64::from_bits(raw),
        _ => f32::from_bits(raw as u32) as f64,
    };
    let x = if o.get("fn").and_then(Value::as_str) == Some("abs") {
        x.abs()
    } else {
        x
    };
    if let Some(pred) = o.get("pred").and_then(Value::as_str) {
        let ok = match pred {
            "isnan" => x.is_nan(),
            "isinf" => x.is_infinite(),
            _ => false,
        };
        return if ok {
            Ok(())
        } else {
            Err(format!("{x} is not {pred}"))
        };
    }
    if let (Some(op), Some(r)) = (o.get("op").and_then(Value::as_str), o.get("ref")) {
        let r = r.as_f64().unwrap_or(0.0);
        let ok = match op {
            "<" => x < r,
            ">" => x > r,
            "<=" => x <= r,
            ">=" => x >= r,
            _ => false,
        };
        return if ok {
            Ok(())
        } else {
            Err(format!("{x} {op} {r} is false"))
        };
    }
    let approx = o.get("approx").and_then(Value::as_f64).ok_or("no approx")?;
    let tol = o
        .get("tol")
        .and_then(Value::as_f64)
        .unwrap_or(0.0)
        .max(o.get("delta").and_then(Value::as_f64).unwrap_or(0.0));
    let ok = (x - approx).abs() <= tol || (x.is_infinite() && x == approx);
    if ok {
        Ok(())
    } else {
        Err(format!("{x} is not within {tol} of {approx}"))
    }
}

/// Reads the register an `expect` key names: `s4`, `v1[lane 3]`, `v[2:3][lane 0]`, `scc`.
fn read_reg(w: &WaveState, key: &str) -> Option<(u64, u32)> {
    let (reg, lane) = match key.split_once("[lane ") {
        Some((r, l)) => (r, l.trim_end_matches(']').parse::<u32>().ok()),
        None => (key, None),
    };
    let range = |s: &str, p: &str| -> Option<(u32, u32)> {
        let rest = s.strip_prefix(p)?;
        if let Some(inner) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let (a, b) = inner.split_once(':')?;
            let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
            return Some((a, b - a + 1));
        }
        rest.parse().ok().map(|n| (n, 1))
    };
    Some(match reg {
        "scc" => (w.scc as u64, 1),
        "vcc_lo" => (w.read_sgpr(code::VCC_LO) as u64, 32),
        "exec_lo" => (w.read_sgpr(code::EXEC_LO) as u64, 32),
        r if r.starts_with('v') => {
            let (first, n) = range(r, "v")?;
            let lane = lane?;
            let mut v = 0u64;
            for i in 0..n.min(2) {
                v |= (w.vgpr(lane, first + i) as u64) << (32 * i);
            }
            (v, 32 * n.min(2))
        }
        r => {
            let (first, n) = range(r, "s")?;
            let mut v = 0u64;
            for i in 0..n.min(2) {
                v |= (w.read_sgpr(first + i) as u64) << (32 * i);
            }
            (v, 32 * n.min(2))
        }
    })
}

/// The outcome of one record under one engine.
#[derive(Debug)]
struct Outcome {
    state: Result<WaveState, WaveError>,
    failures: Vec<String>,
}

fn run_record(
    executors: &mut BTreeMap<(Arch, bool), Executor>,
    rec: &Value,
    engine: Engine,
) -> Outcome {
    let arch = Arch::from_name(rec["arch"].as_str().unwrap_or("rdna3")).unwrap_or(Arch::Rdna3);
    let ex = executors
        .entry((arch, engine == Engine::Jit))
        .or_insert_with(|| Executor::new(common::spec().db(arch), engine).expect("executor"));
    let hex: Vec<&str> = rec["program_hex"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut w = init_wave(rec, arch);
    let state =
        Program::from_hex(ex.isa(), &hex.join(" ")).and_then(|p| ex.run(&p, &mut w).map(|_| w));
    let mut failures = Vec::new();
    match &state {
        Err(e) => failures.push(format!("error: {e}")),
        Ok(w) => {
            for (key, chk) in rec["expect"].as_object().into_iter().flatten() {
                match read_reg(w, key) {
                    None => failures.push(format!("{key}: cannot read")),
                    Some((v, bits)) => {
                        if let Err(m) = check(v, bits, chk) {
                            failures.push(format!("{key}: {m}"));
                        }
                    }
                }
            }
        }
    }
    Outcome { state, failures }
}

fn category(rec: &Value) -> String {
    let id = rec["id"].as_str().unwrap_or("?");
    id.split("::")
        .next()
        .unwrap_or(id)
        .trim_start_matches("test/amd/hw/")
        .to_string()
}

/// Register-only cases of the sample that must pass under both engines (a regression floor;
/// the test prints every failure with its reason).
const HW_REGISTER_ONLY_FLOOR: usize = 153;

#[test]
fn hw_vectors_sample() {
    let Some(records) = sample() else {
        eprintln!("skipped: ../shared/hw-vectors/sample.jsonl is not present");
        return;
    };
    let mut executors = BTreeMap::new();
    let mut per_cat: BTreeMap<(String, bool), (usize, usize, usize)> = BTreeMap::new();
    let (mut reg_pass_both, mut reg_total) = (0, 0);
    let mut mismatches = Vec::new();
    for rec in &records {
        let reg_only = is_register_only(rec);
        let a = run_record(&mut executors, rec, Engine::Interp);
        let b = run_record(&mut executors, rec, Engine::Jit);
        match (&a.state, &b.state) {
            (Ok(x), Ok(y)) if x != y => mismatches.push(rec["id"].to_string()),
            (Ok(_), Err(e)) | (Err(e), Ok(_)) => {
                mismatches.push(format!("{}: only one engine fails: {e}", rec["id"]))
            }
            _ => {}
        }
        let cat = category(rec);
        for (jit, o) in [(false, &a), (true, &b)] {
            let e = per_cat.entry((cat.clone(), reg_only)).or_default();
            if !jit {
                e.0 += 1;
            }
            if o.failures.is_empty() {
                if jit {
                    e.2 += 1;
                } else {
                    e.1 += 1;
                }
            } else if !jit || a.failures.is_empty() {
                eprintln!(
                    "FAIL [{}] {} {}: {}",
                    if jit { "jit" } else { "interp" },
                    rec["id"].as_str().unwrap_or("?"),
                    rec["program"],
                    o.failures.join("; ")
                );
            }
        }
        if reg_only {
            reg_total += 1;
            if a.failures.is_empty() && b.failures.is_empty() {
                reg_pass_both += 1;
            }
        }
    }
    eprintln!("category (register-only?): total, interp pass, jit pass");
    let (mut ti, mut tj, mut tt) = (0, 0, 0);
    for ((cat, reg), (t, i, j)) in &per_cat {
        eprintln!(
            "  {cat:<36} {:<8} {t:>4} {i:>4} {j:>4}",
            if *reg { "register" } else { "memory" }
        );
        tt += t;
        ti += i;
        tj += j;
    }
    eprintln!("all: {tt} cases, interp {ti} pass, jit {tj} pass");
    eprintln!("register-only: {reg_pass_both}/{reg_total} pass under both engines");
    assert!(
        mismatches.is_empty(),
        "interpreter and JIT final states differ: {mismatches:?}"
    );
    assert!(
        reg_pass_both >= HW_REGISTER_ONLY_FLOOR,
        "register-only cases passing under both engines: {reg_pass_both}, floor {HW_REGISTER_ONLY_FLOOR}"
    );
}

/// a VOP3 DPP word (12 bytes on RDNA) reads `src0` through its DPP control like the
/// 32-bit DPP form does.
#[test]
fn vop3_dpp_matches_the_32_bit_dpp_form() {
    for (arch, engine) in [
        (Arch::Rdna3, Engine::Interp),
        (Arch::Rdna4, Engine::Interp),
        (Arch::Rdna3, Engine::Jit),
    ] {
        let db = common::spec().db(arch);
        let mut ex = Executor::new(db, engine).unwrap();
        let setup = "v_mov_b32 v2, v255\nv_mov_b32 v3, 1000\n";
        let run = |ex: &mut Executor, op: &str| {
            let p = Program::assemble(ex.isa(), &format!("{setup}{op}\ns_endpgm")).unwrap();
            let mut w = ex.new_wave(32);
            for lane in 0..32 {
                w.set_vgpr(lane, 255, lane * 7);
            }
            ex.run(&p, &mut w).unwrap();
            (0..32).map(|lane| w.vgpr(lane, 1)).collect::<Vec<u32>>()
        };
        for ctrl in [
            "quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
            "row_shl:3 row_mask:0xf bank_mask:0xf bound_ctrl:1",
            "dpp8:[7,6,5,4,3,2,1,0]",
        ] {
            let short = run(&mut ex, &format!("v_add_nc_u32_dpp v1, v2, v3 {ctrl}"));
            let long = run(&mut ex, &format!("v_add_nc_u32_e64_dpp v1, v2, v3 {ctrl}"));
            assert_eq!(short, long, "{arch} {ctrl}");
            assert_ne!(short[0], 1000, "{arch} {ctrl}: the DPP source moved lanes");
        }
    }
}

#[test]
fn atomics_without_return_keep_vdst() {
    // global_atomic_max_i32 without glc must not write its vdst field's VGPR (v0 here: the
    // field is 0), which compilers keep using; with glc it returns the pre-op value.
    let spec = common::spec();
    for engine in [Engine::Interp, Engine::Jit] {
        let mut ex = Executor::new(spec.db(Arch::Rdna3), engine).expect("executor");
        let text = "global_atomic_max_i32 v1, v2, s[0:1]\n\
                    global_atomic_max_i32 v3, v1, v2, s[0:1] glc\n";
        let program = Program::assemble(ex.isa(), text).expect("assembles");
        let mut w = ex.new_wave(32);
        w.set_exec(1);
        w.write_sgpr(0, 0x1000);
        w.set_vgpr(0, 0, 0xabcd);
        w.set_vgpr(0, 1, 0);
        w.set_vgpr(0, 2, 7);
        w.load_memory(0x1000, &5u32.to_le_bytes());
        ex.run(&program, &mut w).expect("runs");
        assert_eq!(w.vgpr(0, 0), 0xabcd, "{engine:?}: v0 kept");
        assert_eq!(w.vgpr(0, 3), 7, "{engine:?}: glc returns the pre-op value");
        assert_eq!(w.read_memory(0x1000, 4), 7u32.to_le_bytes(), "{engine:?}");
    }
}

#[test]
fn cdna_vop3_forms_without_text_run_their_e32_twin() {
    // AMD's CDNA tables have no text for V_LOG_F32_E64; it runs V_LOG_F32_E32's with the
    // VOP3 modifiers: log2(|-4.0|) = 2.0.
    let spec = common::spec();
    for engine in [Engine::Interp, Engine::Jit] {
        let mut ex = Executor::new(spec.db(Arch::Cdna), engine).expect("executor");
        let program = Program::assemble(ex.isa(), "v_log_f32_e64 v1, |v0|\n").expect("assembles");
        let mut w = ex.new_wave(64);
        w.set_exec(1);
        w.set_vgpr(0, 0, (-4.0f32).to_bits());
        ex.run(&program, &mut w).expect("runs");
        assert_eq!(w.vgpr(0, 1), 2.0f32.to_bits(), "{engine:?}");
    }
}

#[test]
fn rdna4_sopk_immediates() {
    // RDNA 4's SOPK texts read the 16-bit immediate as S0 (`signext(S0.i16)`): found by a
    // compiled loop whose `s_addk_co_i32 s11, 0x100` never advanced.
    let spec = common::spec();
    for engine in [Engine::Interp, Engine::Jit] {
        let mut ex = Executor::new(spec.db(Arch::Rdna4), engine).expect("executor");
        let text = "s_movk_i32 s0, 0xfff0\n\
                    s_mov_b32 s1, 5\n\
                    s_addk_co_i32 s1, 0x100\n\
                    s_mov_b32 s2, 3\n\
                    s_mulk_i32 s2, 0xfffe\n";
        let program = Program::assemble(ex.isa(), text).expect("assembles");
        let mut w = ex.new_wave(32);
        ex.run(&program, &mut w).expect("runs");
        assert_eq!(w.sgpr[0], 0xffff_fff0, "{engine:?}: s_movk sign-extends");
        assert_eq!(w.sgpr[1], 0x105, "{engine:?}: s_addk_co adds");
        assert_eq!(w.sgpr[2], (-6i32) as u32, "{engine:?}: s_mulk multiplies");
    }
}

#[test]
fn cdna_sopk_immediates_and_compares() {
    // CDNA's S_ADDK_I32 reads the immediate as S0 (the SGPR is D0); its S_CMPK_* compare
    // the SGPR S0 with the immediate S1.
    let spec = common::spec();
    for engine in [Engine::Interp, Engine::Jit] {
        let mut ex = Executor::new(spec.db(Arch::Cdna), engine).expect("executor");
        let text = "s_mov_b32 s1, 5\n\
                    s_addk_i32 s1, 0x100\n\
                    s_cmpk_eq_u32 s1, 0x105\n";
        let program = Program::assemble(ex.isa(), text).expect("assembles");
        let mut w = ex.new_wave(64);
        ex.run(&program, &mut w).expect("runs");
        assert_eq!(w.sgpr[1], 0x105, "{engine:?}: s_addk adds");
        assert!(w.scc, "{engine:?}: s_cmpk_eq compares with the immediate");
    }
}
