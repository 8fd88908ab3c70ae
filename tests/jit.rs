//! The JIT against the interpreter: every ALU entry the JIT compiles runs on random operand
//! sets (edge-biased values, random EXEC masks, wave32 and wave64) under both engines, and the
//! whole written state must agree bit for bit.
//!
//! CI runs `AMDPCODE_DIFF_CASES` (default 30) sets per entry; the long run is
//! `AMDPCODE_DIFF_CASES=2000 cargo test --release --test jit -- --nocapture`.

mod common;

use amdpcode::exec::{self, Rng};
use amdpcode::jit::Jit;
use amdpcode::spec::Arch;

fn cases() -> u32 {
    std::env::var("AMDPCODE_DIFF_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30)
}

/// Returns (entries that execute, entries compiled, mismatch descriptions).
fn differential(arch: Arch, cases: u32) -> (usize, usize, Vec<String>) {
    let db = common::spec().db(arch);
    let insts: Vec<_> = db
        .with_pcode()
        .filter(|i| exec::ALU_ENCODINGS.contains(&i.encoding.as_str()))
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4);
    let chunk = insts.len().div_ceil(threads);
    let parts: Vec<(usize, usize, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = insts
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let jit = Jit::new().expect("JIT for this host");
                    let (mut executes, mut compiled, mut bad) = (0, 0, Vec::new());
                    for inst in part {
                        let Ok(p) = exec::prepare(arch, inst) else {
                            continue;
                        };
                        if exec::random_sweep(&p, 2, 9).is_err() {
                            continue;
                        }
                        executes += 1;
                        let k = match jit.compile(&p) {
                            Ok(k) => k,
                            // Only "not supported" is an accepted reason; a translator
                            // bug (verifier error) is a failure.
                            Err(amdpcode::jit::JitError::Unsupported(_)) => continue,
                            Err(e) => {
                                bad.push(format!("{arch} {}: {e}", inst.name));
                                continue;
                            }
                        };
                        compiled += 1;
                        let mut rng = Rng::new(0xd1ff ^ inst.opcode as u64);
                        for case in 0..cases {
                            let wave = if case % 2 == 0 && arch != Arch::Cdna {
                                32
                            } else {
                                64
                            };
                            let m0 = exec::random_machine(&p, &mut rng, wave);
                            let (mut a, mut b) = (m0.clone(), m0);
                            let ra = exec::run_interp(&p, &mut a).map(|o| o.values);
                            let rb = k.run(&mut b).map(|o| o.values);
                            let same = match (&ra, &rb) {
                                (Ok(x), Ok(y)) => x == y && a.vgpr == b.vgpr && a.mem == b.mem,
                                (Err(x), Err(y)) => x.kind == y.kind,
                                _ => false,
                            };
                            if !same {
                                bad.push(format!(
                                    "{arch} {} case {case}:\n  interp {ra:?}\n  jit    {rb:?}",
                                    inst.name
                                ));
                                break;
                            }
                        }
                    }
                    (executes, compiled, bad)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker"))
            .collect()
    });
    let mut out = (0, 0, Vec::new());
    for (e, c, b) in parts {
        out.0 += e;
        out.1 += c;
        out.2.extend(b);
    }
    out
}

#[test]
fn jit_agrees_with_interpreter_on_every_compiled_alu_entry() {
    let n = cases();
    for arch in Arch::WHEEL {
        let (executes, compiled, bad) = differential(arch, n);
        eprintln!(
            "{arch}: {executes} ALU entries execute, the JIT compiles {compiled} ({:.1}%), {n} cases each, {} mismatching",
            100.0 * compiled as f64 / executes as f64,
            bad.len()
        );
        for b in &bad {
            eprintln!("{b}");
        }
        assert!(bad.is_empty(), "{arch}: {} entries disagree", bad.len());
        assert!(
            compiled as f64 >= 0.95 * executes as f64,
            "{arch}: the JIT compiles only {compiled} of {executes}"
        );
    }
}

#[test]
fn known_answers_through_the_jit() {
    let spec = common::spec();
    let jit = Jit::new().expect("jit");
    let run = |inst: &str, s0: u64| {
        let i = spec.db(Arch::Rdna3).get(inst).expect("exists");
        let p = exec::prepare(Arch::Rdna3, i).expect("compiles");
        let k = jit.compile(&p).expect("jit compiles");
        let mut m = exec::Machine::new(32);
        m.values.insert(
            "S0".into(),
            amdpcode::interp::RegValue::Uniform(amdpcode::value::Bits::from_u64(64, s0)),
        );
        let out = k.run(&mut m).expect("runs");
        match &out.values.iter().find(|(n, _)| n == "D0").expect("D0").1 {
            amdpcode::interp::RegValue::Uniform(b) => b.low_u64(),
            amdpcode::interp::RegValue::Lanes(l) => l[0].low_u64(),
        }
    };
    assert_eq!(run("S_CTZ_I32_B32", 0x0001_0000), 16);
    assert_eq!(run("S_CLZ_I32_U32", 0x0000_cccc), 16);
    assert_eq!(run("S_CLS_I32", 0xffff_3333), 16);
    assert_eq!(run("S_ABS_I32", 0x8000_0001), 0x7fff_ffff);
    assert_eq!(run("S_BCNT1_I32_B32", 0xcccc_cccc), 16);
    assert_eq!(
        run("S_WQM_B64", 0x0100_0000_0000_0012),
        0x0f00_0000_0000_00ff
    );
    assert_eq!(run("S_BREV_B64", 1), 1 << 63);
}

#[test]
fn optimised_ir_agrees_with_unoptimised_ir() {
    use amdpcode::ir::opt;
    let mut checked = 0;
    for arch in Arch::WHEEL {
        let db = common::spec().db(arch);
        for inst in db
            .with_pcode()
            .filter(|i| exec::ALU_ENCODINGS.contains(&i.encoding.as_str()))
            .step_by(3)
        {
            let Ok(p) = exec::prepare(arch, inst) else {
                continue;
            };
            if exec::random_sweep(&p, 1, 3).is_err() {
                continue;
            }
            let mut q = p.clone();
            q.function = opt::optimize(&p.function);
            amdpcode::ir::verify(&q.function).expect("optimised IR verifies");
            let mut rng = Rng::new(77);
            for case in 0..8 {
                let wave = if case % 2 == 0 && arch != Arch::Cdna {
                    32
                } else {
                    64
                };
                let m0 = exec::random_machine(&p, &mut rng, wave);
                let (mut a, mut b) = (m0.clone(), m0);
                let ra = exec::run_interp(&p, &mut a).map(|o| o.values);
                let rb = exec::run_interp(&q, &mut b).map(|o| o.values);
                assert_eq!(
                    ra.as_ref().ok(),
                    rb.as_ref().ok(),
                    "{arch} {} case {case}: optimisation changed the result",
                    inst.name
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 900, "only {checked} entries checked");
}

/// Runs pseudocode text under both engines with scalar inputs; the D0 value or the error.
fn run_text_both(
    text: &str,
    set: &[(&str, u64)],
) -> [Result<Option<u64>, amdpcode::interp::ExecErrorKind>; 2] {
    use amdpcode::interp::RegValue;
    let c = amdpcode::frontend::compile_text(
        "test",
        "TEXT",
        text,
        &amdpcode::ir::OperandWidths::uniform(32),
    )
    .expect("compiles");
    let p = exec::Prepared::new(None, "SOP2", c.function, None);
    let jit = Jit::new().expect("jit");
    let kernel = jit.compile(&p).expect("jit compiles");
    let run = |engine: usize| {
        let mut m = exec::Machine::new(32);
        for (n, v) in set {
            m.values.insert(
                n.to_string(),
                RegValue::Uniform(amdpcode::value::Bits::from_u64(32, *v)),
            );
        }
        let out = if engine == 0 {
            exec::run_interp(&p, &mut m)
        } else {
            kernel.run(&mut m)
        };
        out.map(|o| {
            o.values
                .iter()
                .find(|(n, _)| n == "D0")
                .map(|(_, v)| match v {
                    RegValue::Uniform(b) => b.low_u64(),
                    RegValue::Lanes(l) => l[0].low_u64(),
                })
        })
        .map_err(|e| e.kind)
    };
    [run(0), run(1)]
}

#[test]
fn out_of_range_indices_are_errors_not_crashes() {
    use amdpcode::interp::ExecErrorKind as K;
    let array = "declare a : 32'U[4];\na[S0.u32] = 7U;\nD0.u32 = a[S1.u32]";
    let vgpr = "D0.u32 = VGPR[S0.u32][S1.u32].u32";
    let sgpr = "SGPR[S0.u32].u32 = 3U;\nD0.u32 = SGPR[S0.u32].u32";
    // In range: concrete values through both engines.
    for r in run_text_both(array, &[("S0", 2), ("S1", 2)]) {
        assert_eq!(r, Ok(Some(7)));
    }
    for r in run_text_both(sgpr, &[("S0", 100)]) {
        assert_eq!(r, Ok(Some(3)));
    }
    for r in run_text_both(vgpr, &[("S0", 31), ("S1", 255)]) {
        assert_eq!(r, Ok(Some(0)));
    }
    // Out of range: an error of the same kind from both engines.
    for (text, set) in [
        (array, vec![("S0", 4), ("S1", 0)]),
        (array, vec![("S0", 0), ("S1", 0xffff_ffff)]),
    ] {
        for r in run_text_both(text, &set) {
            assert!(matches!(r, Err(K::OutOfRange(_))), "{text}: {r:?}");
        }
    }
    for (text, set) in [
        (vgpr, vec![("S0", 32), ("S1", 0)]),
        (vgpr, vec![("S0", 0), ("S1", 0xffff_ffff)]),
        (vgpr, vec![("S0", 0), ("S1", exec::REGISTER_LIMIT as u64)]),
        (sgpr, vec![("S0", 0x8000_0000)]),
    ] {
        for r in run_text_both(text, &set) {
            assert!(matches!(r, Err(K::Memory(_))), "{text} {set:?}: {r:?}");
        }
    }
}

/// Lane loop edges of an inline-float kernel: EXEC patterns (none, one lane, the top lane),
/// zero lanes, and the NaN rule (first NaN operand quietened, default NaN otherwise).
#[test]
fn lane_loop_edges_and_float_nan_rule() {
    use amdpcode::interp::RegValue;
    use amdpcode::value::Bits;
    let spec = common::spec();
    let jit = Jit::new().expect("jit");
    let i = spec.db(Arch::Rdna3).get("V_ADD_F32").expect("exists");
    let p = exec::prepare(Arch::Rdna3, i).expect("compiles");
    let k = jit.compile(&p).expect("jit compiles");
    let (one, snan, inf, ninf) = (0x3f80_0000u64, 0x7f80_0001u64, 0x7f80_0000, 0xff80_0000);
    let s0 = |l: usize| [one, snan, inf, one][l % 4];
    let s1 = |l: usize| [one, one, ninf, 0xffc0_1234][l % 4];
    let run = |exec: u64| {
        let mut m = exec::Machine::new(32);
        let lanes = |f: &dyn Fn(usize) -> u64| {
            RegValue::Lanes((0..32).map(|l| Bits::from_u64(32, f(l))).collect())
        };
        m.values.insert("S0".into(), lanes(&s0));
        m.values.insert("S1".into(), lanes(&s1));
        m.values.insert("D0".into(), lanes(&|_| 0xdead));
        m.values
            .insert("EXEC".into(), RegValue::Uniform(Bits::from_u64(64, exec)));
        let out = k.run(&mut m).expect("runs");
        match &out.values.iter().find(|(n, _)| n == "D0").expect("D0").1 {
            RegValue::Lanes(l) => l.iter().map(Bits::low_u64).collect::<Vec<_>>(),
            RegValue::Uniform(b) => vec![b.low_u64(); 32],
        }
    };
    // 1 + 1 = 2; sNaN + 1 = the sNaN quietened; inf + -inf = the default NaN; 1 + qNaN = it.
    let want = [0x4000_0000, 0x7fc0_0001, 0x7fc0_0000, 0xffc0_1234];
    let all = run(0xffff_ffff);
    for (l, v) in all.iter().enumerate() {
        assert_eq!(*v, want[l % 4], "lane {l}");
    }
    assert!(
        run(0).iter().all(|&v| v == 0xdead),
        "EXEC = 0 writes nothing"
    );
    let top = run(1 << 31);
    assert_eq!(top[31], want[3]);
    assert!(top[..31].iter().all(|&v| v == 0xdead));
    let lane1 = run(0b10);
    assert_eq!(
        (lane1[0], lane1[1], lane1[2]),
        (0xdead, 0x7fc0_0001, 0xdead)
    );

    // No lanes at all: the slot buffer is left as it was.
    let mut m = exec::Machine::new(32);
    m.values.insert(
        "S0".into(),
        RegValue::Lanes((0..32).map(|l| Bits::from_u64(32, s0(l))).collect()),
    );
    let (regs, _) = exec::bind_inputs(&p, &mut m);
    let mut slots = k.slots(&regs);
    let before = slots.clone();
    let mut memory = exec::NullMemory;
    k.bind(&mut memory)
        .run(&mut slots, 0, u64::MAX)
        .expect("runs");
    assert_eq!(slots, before);
}

/// Kernels live within reach of the crate's own code (near calls are ~0.45 ns cheaper on
/// x86-64; see src/jit/memory.rs).
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[test]
fn kernels_are_placed_near_the_crate_code() {
    let spec = common::spec();
    let jit = Jit::new().expect("jit");
    let i = spec.db(Arch::Rdna3).get("S_ADD_U32").expect("exists");
    let p = exec::prepare(Arch::Rdna3, i).expect("compiles");
    let k = jit.compile(&p).expect("jit compiles");
    let anchor = amdpcode::jit::runtime::amdp_helper as *const u8 as usize;
    let d = k.code_address().abs_diff(anchor);
    assert!(
        d < 2 << 30,
        "kernel {:#x} is {d:#x} bytes from the crate",
        k.code_address()
    );
}

/// `bind_slots` checks the buffer once and then runs like `bind`: same bytes out; a buffer
/// smaller than the layout is an error, not a crash.
#[test]
fn bound_slots_check_once_and_agree_with_bound_runs() {
    use amdpcode::interp::RegValue;
    use amdpcode::value::Bits;
    let spec = common::spec();
    let jit = Jit::new().expect("jit");
    for (inst, wave) in [("S_ADD_U32", 32), ("V_CMP_LT_F32", 64), ("V_ADD_F32", 32)] {
        let i = spec.db(Arch::Rdna3).get(inst).expect("exists");
        let p = exec::prepare(Arch::Rdna3, i).expect("compiles");
        let k = jit.compile(&p).expect("jit compiles");
        let mut m = exec::Machine::new(wave);
        let lanes = |f: fn(u64) -> u64| {
            RegValue::Lanes((0..wave as u64).map(|l| Bits::from_u64(32, f(l))).collect())
        };
        m.values
            .insert("S0".into(), lanes(|l| 0x3f80_0000 + l * 0x10_0000));
        m.values
            .insert("S1".into(), lanes(|l| 0x4100_0000 - l * 0x8_0000));
        let (regs, _) = exec::bind_inputs(&p, &mut m);
        let before = k.slots(&regs);
        let (mut a, mut b) = (before.clone(), before.clone());
        let mut memory = exec::NullMemory;
        k.bind(&mut memory)
            .run(&mut a, wave, 0x5555_5555_5555_5555)
            .expect("runs");
        let mut memory = exec::NullMemory;
        let mut bound = k.bind_slots(&mut memory, &mut b).expect("sized");
        bound.run(wave, 0x5555_5555_5555_5555).expect("runs");
        assert_eq!(bound.slots(), &a[..], "{inst}");
        assert_ne!(bound.slots(), &before[..], "{inst} wrote nothing");
        // Inputs can be rewritten between runs: back to the start state, same result.
        bound.slots_mut().copy_from_slice(&before);
        bound.run(wave, 0x5555_5555_5555_5555).expect("runs");
        assert_eq!(bound.slots(), &a[..], "{inst}, second run");

        let mut short = vec![0u8; before.len() - 1];
        let mut memory = exec::NullMemory;
        let err = k
            .bind_slots(&mut memory, &mut short)
            .err()
            .expect("too small");
        assert!(
            matches!(&err.kind, amdpcode::interp::ExecErrorKind::OutOfRange(m) if m.contains("slot buffer")),
            "{err:?}"
        );
    }
}
