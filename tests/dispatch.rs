//! Kernel dispatch: raw launches of hand-written programs whose waves exchange
//! data through LDS across barriers, the hardware-vector harness's launch, code objects
//! (the checked-in fixture, and kernels compiled by clang-22 when it is installed), faults,
//! deadlocks, and a fuzzer of the code-object loader.

mod common;

use std::path::Path;

use amdpcode::dispatch::{Code, CodeObject, DispatchError, Dispatcher, Launch, Unmapped};
use amdpcode::spec::{Arch, Wheel};
use amdpcode::wave::{Engine, WaveError};
use common::launch::{assemble, raw_launch, run, words, IN, OUT};

/// Three rounds of: store my value to LDS, barrier, load the value of the work-item one wave
/// away (tid ^ wave), barrier, add it. Each round doubles the pair's sum, so each work-item
/// ends with 4 * (a + b); a wave that ran ahead of a barrier would read zeros or stale data.
fn exchange_program(arch: Arch, wave: u32) -> String {
    let (barrier, add, store, load, gstore) = match arch.wheel() {
        Wheel::Rdna4 => (
            "s_barrier_signal -1\ns_barrier_wait -1",
            "v_add_nc_u32",
            "ds_store_b32",
            "ds_load_b32",
            "global_store_b32",
        ),
        Wheel::Rdna3 => (
            "s_barrier",
            "v_add_nc_u32",
            "ds_store_b32",
            "ds_load_b32",
            "global_store_b32",
        ),
        Wheel::Cdna => (
            "s_barrier",
            "v_add_u32",
            "ds_write_b32",
            "ds_read_b32",
            "global_store_dword",
        ),
    };
    let wait = match arch {
        Arch::Rdna4 => "s_wait_dscnt 0",
        _ => "s_waitcnt lgkmcnt(0)",
    };
    let mut p = format!(
        "v_lshlrev_b32 v1, 2, v0\n\
         v_mul_u32_u24 v2, 3, v0\n\
         {add} v2, 1, v2\n\
         v_xor_b32 v3, {wave}, v0\n\
         v_lshlrev_b32 v3, 2, v3\n"
    );
    for _ in 0..3 {
        p.push_str(&format!(
            "{store} v1, v2\n{wait}\n{barrier}\n{load} v4, v3\n{wait}\n{barrier}\n{add} v2, v2, v4\n"
        ));
    }
    p.push_str(&format!("{gstore} v1, v2, s[0:1]\ns_endpgm\n"));
    p
}

fn exchange_case(arch: Arch, wave: u32, waves: u32) {
    let threads = wave * waves;
    let code = assemble(arch, &exchange_program(arch, wave));
    let l = raw_launch(arch, code, wave, threads, 4 * threads as usize);
    let expect: Vec<u32> = (0..threads)
        .map(|t| 4 * ((3 * t + 1) + (3 * (t ^ wave) + 1)))
        .collect();
    for engine in [Engine::Interp, Engine::Jit] {
        let o = run(arch, engine, &l).unwrap_or_else(|e| panic!("{arch:?} {engine:?}: {e}"));
        assert_eq!(o.waves, waves as u64);
        assert_eq!(
            words(&o.memory[0].1),
            expect,
            "{arch:?} wave{wave} {engine:?}"
        );
    }
}

#[test]
fn two_waves_exchange_through_lds_rdna3_wave32() {
    exchange_case(Arch::Rdna3, 32, 2);
}

#[test]
fn four_waves_exchange_through_lds_rdna3_wave32() {
    exchange_case(Arch::Rdna3, 32, 4);
}

#[test]
fn four_waves_exchange_through_lds_rdna3_wave64() {
    exchange_case(Arch::Rdna3, 64, 4);
}

#[test]
fn split_barrier_exchange_rdna4() {
    exchange_case(Arch::Rdna4, 32, 4);
}

#[test]
fn four_waves_exchange_through_lds_cdna() {
    exchange_case(Arch::Cdna, 64, 4);
}

#[test]
fn workgroup_ids_and_partial_workgroups() {
    // Each work-item stores (wg.x << 16 | wg.y << 8 | tid.x) at its global linear index;
    // the grid is 5 x 2 work-items in workgroups of 4 x 1: the third workgroup in x has one
    // work-item.
    let text = "s_load_b32 s4, s[0:1], 0x0\n\
                s_waitcnt lgkmcnt(0)\n\
                v_and_b32 v1, 0x3ff, v0\n\
                s_mul_i32 s5, s2, 4\n\
                v_add_nc_u32 v2, s5, v1\n\
                s_mul_i32 s6, s3, 5\n\
                v_add_nc_u32 v2, s6, v2\n\
                s_lshl_b32 s7, s2, 16\n\
                s_lshl_b32 s8, s3, 8\n\
                s_or_b32 s7, s7, s8\n\
                v_or_b32 v3, s7, v1\n\
                v_lshlrev_b32 v2, 2, v2\n\
                global_store_b32 v2, v3, s[0:1]\n\
                s_endpgm\n";
    let code = assemble(Arch::Rdna3, text);
    let mut l = raw_launch(Arch::Rdna3, code, 32, 4, 40);
    if let Code::Raw { rsrc2, .. } = &mut l.code {
        // Only x and y workgroup ids: s2 = x, s3 = y.
        *rsrc2 &= !(1 << 9);
    }
    l.grid = [2, 2, 1];
    l.grid_items = Some([5, 2, 1]);
    for engine in [Engine::Interp, Engine::Jit] {
        let o = run(Arch::Rdna3, engine, &l).unwrap_or_else(|e| panic!("{e}"));
        let got = words(&o.memory[0].1);
        let expect: Vec<u32> = (0..10)
            .map(|i| {
                let (x, y) = (i % 5, i / 5);
                (x / 4) << 16 | y << 8 | (x % 4)
            })
            .collect();
        assert_eq!(got, expect, "{engine:?}");
        assert_eq!((o.workgroups, o.waves), (4, 4));
    }
}

#[test]
fn store_outside_mapped_memory_is_a_fault_naming_the_address() {
    let text = "v_mov_b32 v1, 0x100\nv_lshlrev_b32 v2, 2, v0\nglobal_store_b32 v2, v1, s[0:1] offset:64\ns_endpgm\n";
    let code = assemble(Arch::Rdna3, text);
    let l = raw_launch(Arch::Rdna3, code, 32, 32, 64);
    for engine in [Engine::Interp, Engine::Jit] {
        let e = run(Arch::Rdna3, engine, &l).expect_err("the store leaves the buffer");
        match &e {
            DispatchError::Wave {
                workgroup: [0, 0, 0],
                wave: 0,
                error:
                    WaveError::MemoryFault {
                        addr,
                        inst,
                        address,
                        lane,
                        ..
                    },
            } => {
                assert_eq!(*addr, 0x7000_000c);
                assert_eq!(inst, "GLOBAL_STORE_B32");
                assert_eq!((*address, *lane), (OUT + 64, 0));
            }
            other => panic!("expected a memory fault, got {other:?}"),
        }
        let msg = e.to_string();
        assert!(
            msg.contains("0x100000040") && msg.contains("GLOBAL_STORE_B32"),
            "{msg}"
        );
    }
    // With unmapped memory allowed, the store lands and is reported.
    let mut l = l;
    l.unmapped = Unmapped::Zero;
    let o = run(Arch::Rdna3, Engine::Interp, &l).expect("runs");
    assert_eq!(o.written_elsewhere.len(), 1);
    assert_eq!(o.written_elsewhere[0].0, OUT + 64);
    assert_eq!(o.written_elsewhere[0].1.len(), 128 - 64 + 64);
}

#[test]
fn lds_access_beyond_the_workgroup_allocation_faults() {
    let text = "v_mov_b32 v1, 0x10000\nds_store_b32 v1, v0\ns_endpgm\n";
    let code = assemble(Arch::Rdna3, text);
    let l = raw_launch(Arch::Rdna3, code, 32, 32, 4);
    let e = run(Arch::Rdna3, Engine::Interp, &l).expect_err("LDS is 64 KiB");
    assert!(
        matches!(
            &e,
            DispatchError::Wave {
                error: WaveError::MemoryFault {
                    space: "LDS",
                    address: 0x10000,
                    ..
                },
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn barrier_that_cannot_release_is_a_deadlock() {
    // RDNA 4: wave 0 waits at the barrier without signalling; wave 1 ends.
    let text = "s_cmp_eq_u32 s2, s2\n\
                v_cmp_eq_u32 vcc_lo, 0, v0\n\
                s_and_b32 s4, vcc_lo, exec_lo\n\
                s_cmp_lg_u32 s4, 0\n\
                s_cbranch_scc0 1\n\
                s_barrier_wait -1\n\
                s_endpgm\n";
    let code = assemble(Arch::Rdna4, text);
    let l = raw_launch(Arch::Rdna4, code, 32, 64, 4);
    let e = run(Arch::Rdna4, Engine::Interp, &l).expect_err("deadlock");
    match &e {
        DispatchError::Deadlock { workgroup, waves } => {
            assert_eq!(*workgroup, [0, 0, 0]);
            assert_eq!(waves, &vec![(0, 0x7000_0018, false)]);
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
    // A barrier whose other waves ended releases (s_barrier on RDNA 3).
    let text = "v_cmp_eq_u32 vcc_lo, 0, v0\n\
                s_and_b32 s4, vcc_lo, exec_lo\n\
                s_cmp_lg_u32 s4, 0\n\
                s_cbranch_scc0 1\n\
                s_barrier\n\
                s_endpgm\n";
    let code = assemble(Arch::Rdna3, text);
    let l = raw_launch(Arch::Rdna3, code, 32, 64, 4);
    let o = run(Arch::Rdna3, Engine::Interp, &l).expect("ended waves count as arrived");
    assert_eq!(o.waves, 2);
}

#[test]
fn runaway_wave_hits_the_step_budget() {
    let code = assemble(Arch::Rdna3, "s_branch -1\n");
    let mut l = raw_launch(Arch::Rdna3, code, 32, 32, 4);
    l.step_budget = Some(1000);
    let e = run(Arch::Rdna3, Engine::Jit, &l).expect_err("runaway");
    assert!(
        matches!(
            &e,
            DispatchError::Wave {
                error: WaveError::StepBudget { steps: 1000 },
                ..
            }
        ),
        "{e:?}"
    );
}

fn fixture() -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dispatch/fixture-gfx1100.hsaco");
    std::fs::read(p).expect("fixture")
}

#[test]
fn code_object_metadata_and_descriptor() {
    let co = CodeObject::parse(&fixture()).expect("parses");
    assert_eq!(co.arch, Arch::Rdna3);
    assert_eq!(co.processor, "gfx1100");
    let k = co.kernel("vadd").expect("vadd");
    assert_eq!(k.wave_size, 32);
    let explicit: Vec<(u32, u32, &str)> = k
        .args
        .iter()
        .filter(|a| !a.kind.starts_with("hidden_"))
        .map(|a| (a.offset, a.size, a.kind.as_str()))
        .collect();
    assert_eq!(
        explicit,
        vec![
            (0, 8, "global_buffer"),
            (8, 8, "global_buffer"),
            (16, 8, "global_buffer"),
            (24, 4, "by_value")
        ]
    );
    assert!(k
        .args
        .iter()
        .any(|a| a.kind == "hidden_group_size_x" && a.offset == 44));
    assert_eq!(k.descriptor.kernarg_size, 288);
    let s = co.kernel("lds_sum").expect("lds_sum");
    assert_eq!(s.descriptor.group_segment_fixed_size, 256);
    match co.kernel("nope") {
        Err(DispatchError::NoKernel { available, .. }) => {
            assert!(available.contains(&"vadd".to_string()));
        }
        other => panic!("{other:?}"),
    }
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn object_launch(
    kernel: &str,
    grid: u32,
    block: u32,
    kernarg: Vec<u8>,
    memory: Vec<(u64, Vec<u8>)>,
) -> Launch {
    Launch {
        arch: None,
        code: Code::Object {
            bytes: fixture(),
            path: "fixture-gfx1100.hsaco".into(),
            kernel: kernel.into(),
            kernarg,
        },
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        grid_items: None,
        wave: None,
        lds_bytes: None,
        scratch_bytes: None,
        memory,
        unmapped: Unmapped::Fault,
        step_budget: None,
    }
}

#[test]
fn code_object_vector_add_and_lds_sum() {
    let n = 300u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 17.25).collect();
    let b: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.0)).collect();
    let c_addr = 0x3_0000_0000u64;
    let mut kernarg = Vec::new();
    for p in [IN, OUT, c_addr] {
        kernarg.extend(p.to_le_bytes());
    }
    kernarg.extend(n.to_le_bytes());
    let mem = vec![
        (IN, f32_bytes(&a)),
        (OUT, f32_bytes(&b)),
        (c_addr, vec![0; 4 * n as usize]),
    ];
    let l = object_launch("vadd", n.div_ceil(64), 64, kernarg, mem);
    let expect: Vec<u32> = a.iter().zip(&b).map(|(x, y)| (x + y).to_bits()).collect();
    for engine in [Engine::Interp, Engine::Jit] {
        let o = run(Arch::Rdna3, engine, &l).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(words(&o.memory[2].1), expect, "{engine:?}");
        assert_eq!(o.waves, 10);
        // Reading back into buffers of other sizes and contents gives the same outcome.
        let mut d = Dispatcher::new(common::spec().db(Arch::Rdna3), engine).expect("engine");
        let mut reused = amdpcode::dispatch::Outcome {
            memory: vec![(0, vec![0xee; 7]), (0, vec![0xee; 9000])],
            ..Default::default()
        };
        for _ in 0..2 {
            d.run_reusing(&l, &mut reused)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(reused == o, "{engine:?}: run_reusing");
        }
    }
    // lds_sum: 3 workgroups of 64 work-items (two waves each) meeting at six barriers.
    let vals: Vec<i32> = (0..192).map(|i| (i * 7919 % 1000) - 500).collect();
    let mut kernarg = Vec::new();
    kernarg.extend(IN.to_le_bytes());
    kernarg.extend(OUT.to_le_bytes());
    let mem = vec![
        (IN, vals.iter().flat_map(|x| x.to_le_bytes()).collect()),
        (OUT, vec![0; 12]),
    ];
    let l = object_launch("lds_sum", 3, 64, kernarg, mem);
    let expect: Vec<u32> = vals
        .chunks(64)
        .map(|c| c.iter().sum::<i32>() as u32)
        .collect();
    for engine in [Engine::Interp, Engine::Jit] {
        let o = run(Arch::Rdna3, engine, &l).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(words(&o.memory[1].1), expect, "{engine:?}");
    }
}

#[test]
fn short_kernarg_names_the_missing_arguments() {
    let l = object_launch("vadd", 1, 32, vec![0; 20], vec![]);
    let e = run(Arch::Rdna3, Engine::Interp, &l).expect_err("short kernarg");
    let msg = e.to_string();
    assert!(matches!(e, DispatchError::Kernarg(_)), "{msg}");
    assert!(
        msg.contains("has 20 bytes") && msg.contains("need 28"),
        "{msg}"
    );
    assert!(
        msg.contains("global_buffer at offset 16") && msg.contains("by_value at offset 24"),
        "{msg}"
    );
}

#[test]
fn code_object_for_another_arch_is_refused() {
    let l = object_launch("vadd", 1, 32, vec![0; 28], vec![]);
    let e = run(Arch::Cdna, Engine::Interp, &l).expect_err("gfx1100 on cdna");
    assert!(e.to_string().contains("gfx1100"), "{e}");
}

#[test]
fn loader_survives_random_and_mutated_code_objects() {
    let good = fixture();
    let mut rng = amdpcode::exec::Rng::new(11);
    let mut parsed = 0;
    for i in 0..3000 {
        let bytes = if i % 3 == 0 {
            let n = (rng.next_u64() % 512) as usize;
            let mut b: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            if n >= 4 {
                b[..4].copy_from_slice(b"\x7fELF");
            }
            b
        } else {
            let mut b = good.clone();
            let flips = 1 + rng.next_u64() % 8;
            for _ in 0..flips {
                let at = (rng.next_u64() % b.len() as u64) as usize;
                b[at] = rng.next_u64() as u8;
            }
            if i % 7 == 0 {
                b.truncate((rng.next_u64() % b.len() as u64) as usize);
            }
            b
        };
        // Parsing never panics; what parses can be dispatched (it may fault, not crash).
        if let Ok(co) = CodeObject::parse(&bytes) {
            parsed += 1;
            if i % 10 == 1 {
                if let Some(k) = co.kernels.first() {
                    let mut l = object_launch(&k.name, 1, 32, vec![0; 64], vec![]);
                    if let Code::Object { bytes: b, .. } = &mut l.code {
                        *b = bytes.clone();
                    }
                    l.step_budget = Some(10_000);
                    if let Ok(arch) = amdpcode::dispatch::launch_arch(&l) {
                        let _ = run(arch, Engine::Interp, &l);
                    }
                }
            }
        }
    }
    assert!(
        parsed > 100,
        "mutations too destructive to test dispatch: {parsed}"
    );
}

#[test]
fn launch_json_errors_name_the_key() {
    let dir = Path::new(".");
    let cases = [
        (r#"{"grid": [1], "block": [1]}"#, "no code"),
        (
            r#"{"arch": "rdna3", "code_hex": "zz", "code_addr": 0, "rsrc2": 0, "grid": 1, "block": 1}"#,
            "code_hex",
        ),
        (
            r#"{"arch": "rdna3", "code_hex": "0000b0bf", "code_addr": 0, "rsrc2": 0, "grid": [0], "block": 1}"#,
            "grid[0]",
        ),
        (
            r#"{"arch": "rdna9", "code_hex": "0000b0bf", "code_addr": 0, "rsrc2": 0, "grid": 1, "block": 1}"#,
            "arch",
        ),
        (
            r#"{"arch": "rdna3", "code_hex": "0000b0bf", "code_addr": "0xq", "rsrc2": 0, "grid": 1, "block": 1}"#,
            "code_addr",
        ),
        (
            r#"{"arch": "rdna3", "code_hex": "0000b0bf", "code_addr": 0, "rsrc2": 0, "grid": 1, "block": 1, "memory": [{"addr": 1}]}"#,
            "memory[0]",
        ),
        (
            r#"{"arch": "rdna3", "code_hex": "0000b0bf", "code_addr": 0, "grid": 1, "block": 1, "bogus": 1}"#,
            "bogus",
        ),
        (
            r#"{"code_object": "/nonexistent.hsaco", "kernel": "k", "grid": 1, "block": 1}"#,
            "nonexistent",
        ),
    ];
    for (text, key) in cases {
        let e = Launch::from_json(text, dir).expect_err(text);
        assert!(e.to_string().contains(key), "{text}: {e}");
    }
    let l = Launch::from_json(
        r#"{"arch": "rdna3", "code_hex": "0000b0bf", "code_addr": "0x1000", "rsrc2": "0x84", "grid": [2, 3], "block": 64, "memory": [{"addr": "0x10", "size": 8}]}"#,
        dir,
    )
    .expect("valid");
    assert_eq!((l.grid, l.block), ([2, 3, 1], [64, 1, 1]));
    let o = run(Arch::Rdna3, Engine::Jit, &l).expect("s_endpgm runs");
    assert_eq!((o.workgroups, o.waves, o.instructions), (6, 12, 12));
    assert_eq!(o.memory, vec![(0x10, vec![0; 8])]);
}

/// A wave that runs into a word no instruction decodes from stops with that word and its
/// address named (not as a jump out of the program), under both engines.
#[test]
fn a_wave_reaching_an_undecodable_word_names_it() {
    // s_nop 0; a word no RDNA 3 instruction decodes from; s_endpgm.
    let l = Launch::from_json(
        r#"{"arch": "rdna3", "code_hex": "000080bf ffffffff 0000b0bf", "code_addr": "0x1000", "rsrc2": 0, "grid": 1, "block": 32}"#,
        Path::new("."),
    )
    .expect("valid");
    for engine in [Engine::Interp, Engine::Jit] {
        let e = run(Arch::Rdna3, engine, &l).expect_err("the word stops the wave");
        assert_eq!(
            e.to_string(),
            "workgroup (0,0,0) wave 0: address 0x1004: invalid instruction word 0xffffffff",
            "{engine:?}"
        );
    }
}

fn cli(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    use std::io::Write;
    let mut cmd = std::process::Command::new(common::bin());
    cmd.args(args)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("runs");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes())
            .expect("writes");
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("exits");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn cli_launch_json_batch_and_short_form() {
    let fixture_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dispatch/fixture-gfx1100.hsaco");
    let dir = std::env::temp_dir().join(format!("amdpcode-dispatch-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut kernarg = Vec::new();
    for p in [IN, IN + 0x100, OUT] {
        kernarg.extend(p.to_le_bytes());
    }
    kernarg.extend(4u32.to_le_bytes());
    let a = f32_bytes(&[1.0, 2.0, 3.0, 4.0]);
    let b = f32_bytes(&[0.5, 0.25, -3.0, 8.0]);
    let launch = serde_json::json!({
        "code_object": fixture_path.display().to_string(),
        "kernel": "vadd",
        "grid": [1], "block": [32],
        "kernarg_hex": hex(&kernarg),
        "memory": [{"addr": format!("0x{IN:x}"), "hex": hex(&a)},
                   {"addr": format!("0x{:x}", IN + 0x100), "hex": hex(&b)},
                   {"addr": format!("{OUT}"), "size": 16}]
    });
    let lpath = dir.join("launch.json");
    std::fs::write(&lpath, launch.to_string()).expect("write");
    let (code, out, err) = cli(&["dispatch", "--json", lpath.to_str().expect("utf8")], None);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("json");
    assert_eq!(v["memory"][2]["addr"], "0x100000000");
    assert_eq!(
        v["memory"][2]["hex"],
        hex(&f32_bytes(&[1.5, 2.25, 0.0, 12.0]))
    );
    assert_eq!(v["waves"], 1);
    // A batch: the good launch, a bad line, the good launch under the interpreter's twin.
    let batch = format!("{launch}\n{{\"grid\": 1}}\n{launch}\n");
    let bpath = dir.join("batch.jsonl");
    std::fs::write(&bpath, batch).expect("write");
    let (code, out, err) = cli(
        &[
            "dispatch",
            "--json",
            "--batch",
            bpath.to_str().expect("utf8"),
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0], v);
    assert!(lines[1]["error"]
        .as_str()
        .expect("error")
        .contains("line 2"));
    assert_eq!(lines[2], v);
    // The short form.
    let (code, out, err) = cli(
        &[
            "dispatch",
            fixture_path.to_str().expect("utf8"),
            "--kernel",
            "vadd",
            "--grid",
            "1",
            "--block",
            "64",
            "--arg",
            "buf=f32x5:1,2,3,4,5",
            "--arg",
            "buf=f32x5:iota",
            "--arg",
            "buf=f32x5:zero",
            "--arg",
            "u32=5",
            "--print",
            "2",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("arg 2: [1, 3, 5, 7, 9]"), "{out}");
    // Errors: exit 1, a message naming the problem, nothing on stdout.
    let (code, out, err) = cli(
        &[
            "dispatch",
            fixture_path.to_str().expect("utf8"),
            "--kernel",
            "nope",
            "--grid",
            "1",
            "--block",
            "1",
        ],
        None,
    );
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(
        err.contains("no kernel `nope`") && err.contains("vadd"),
        "{err}"
    );
    let bad = dir.join("bad.hsaco");
    std::fs::write(&bad, b"\x7fELF\x02\x01\x01garbage").expect("write");
    let (code, out, err) = cli(
        &[
            "dispatch",
            bad.to_str().expect("utf8"),
            "--kernel",
            "k",
            "--grid",
            "1",
            "--block",
            "1",
        ],
        None,
    );
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(
        err.contains("malformed or truncated ELF64 code object"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn raw_launch_of_compiled_code_as_a_command_processor_sees_it() {
    // What a captured launch holds: the code from the entry point on, the descriptor's
    // RSRC registers (LDS_SIZE filled in by the "CP"), the user SGPRs (the kernarg pointer)
    // and memory: the kernarg segment with its hidden arguments, and the buffers.
    let co = CodeObject::parse(&fixture()).expect("parses");
    let k = co.kernel("lds_sum").expect("lds_sum");
    let seg = co
        .code
        .iter()
        .find(|&&(s, n)| s <= k.entry && k.entry < s + n)
        .expect("code segment");
    let code = co.image[k.entry as usize..(seg.0 + seg.1) as usize].to_vec();
    let kernarg_addr = 0x5_0000_0000u64;
    let mut kernarg = vec![0u8; k.kernarg_size as usize];
    kernarg[0..8].copy_from_slice(&IN.to_le_bytes());
    kernarg[8..16].copy_from_slice(&OUT.to_le_bytes());
    for a in &k.args {
        let v: u64 = match a.kind.as_str() {
            "hidden_block_count_x" => 4,
            "hidden_group_size_x" => 64,
            "hidden_block_count_y" | "hidden_block_count_z" => 1,
            "hidden_group_size_y" | "hidden_group_size_z" => 1,
            "hidden_grid_dims" => 1,
            _ => continue,
        };
        let at = a.offset as usize;
        kernarg[at..at + a.size as usize].copy_from_slice(&v.to_le_bytes()[..a.size as usize]);
    }
    let lds_blocks = k.descriptor.group_segment_fixed_size.div_ceil(512);
    let vals: Vec<i32> = (0..256).map(|i| i * 3 - 100).collect();
    let l = Launch {
        arch: Some(Arch::Rdna3),
        code: Code::Raw {
            bytes: code,
            addr: 0x7_0000_1c00,
            rsrc1: k.descriptor.rsrc1,
            rsrc2: k.descriptor.rsrc2 | lds_blocks << 15,
            rsrc3: k.descriptor.rsrc3,
            user_sgprs: vec![kernarg_addr as u32, (kernarg_addr >> 32) as u32],
        },
        grid: [4, 1, 1],
        block: [64, 1, 1],
        grid_items: None,
        wave: Some(32),
        lds_bytes: None,
        scratch_bytes: None,
        memory: vec![
            (kernarg_addr, kernarg),
            (IN, vals.iter().flat_map(|x| x.to_le_bytes()).collect()),
            (OUT, vec![0; 16]),
        ],
        unmapped: Unmapped::Fault,
        step_budget: None,
    };
    let expect: Vec<u32> = vals
        .chunks(64)
        .map(|c| c.iter().sum::<i32>() as u32)
        .collect();
    for engine in [Engine::Interp, Engine::Jit] {
        let o = run(Arch::Rdna3, engine, &l).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(words(&o.memory[2].1), expect, "{engine:?}");
        assert_eq!(o.waves, 8);
    }
}

/// Wave states are reused across workgroups and launches (`dispatch/pool.rs`): a VGPR a
/// wave wrote, even one past RSRC1's allocation (v200 here, RSRC1 allocates 8), reads zero
/// in every later wave, wave32 after wave64 on the same dispatcher too.
#[test]
fn reused_waves_start_with_zeroed_registers() {
    let code = assemble(
        Arch::Rdna3,
        "v_lshlrev_b32 v1, 2, v0\n\
         s_lshl_b32 s3, s2, 8\n\
         v_add_nc_u32 v1, s3, v1\n\
         v_or_b32 v2, v200, v7\n\
         v_or_b32 v2, v2, s20\n\
         global_store_b32 v1, v2, s[0:1]\n\
         v_mov_b32 v200, -1\n\
         v_mov_b32 v7, 0x55\n\
         s_mov_b32 s20, 0x77\n\
         s_endpgm\n",
    );
    for engine in [Engine::Interp, Engine::Jit] {
        let mut d = Dispatcher::new(common::spec().db(Arch::Rdna3), engine).expect("engine");
        d.executor_mut().block_threshold = 1;
        for wave in [64, 32, 32] {
            let mut l = raw_launch(Arch::Rdna3, code.clone(), wave, 64, 4 * 256);
            l.grid = [4, 1, 1];
            l.memory = vec![(OUT, vec![0xaa; 4 * 256])];
            let o = d
                .run(&l)
                .unwrap_or_else(|e| panic!("{engine:?} wave{wave}: {e}"));
            assert_eq!(o.waves, 4 * 64 / wave as u64);
            let out = words(&o.memory[0].1);
            assert!(
                out.iter().all(|&x| x == 0),
                "{engine:?} wave{wave}: {out:x?}"
            );
        }
    }
}

/// GPU virtual memory faults by page: a load reaching past the end of a mapped buffer into
/// the rest of its 4 KiB page runs (the bytes outside every range read zero), as LLVM's
/// `s_load_b128` of a 12-byte argument block needs; a load from a page no range touches, and
/// any store outside the ranges, still fault.
#[test]
fn loads_fault_by_page_stores_by_byte() {
    let text = "v_mov_b32 v0, 0\n\
                s_load_b128 s[4:7], s[0:1], 0x38\n\
                global_load_b128 v[4:7], v0, s[0:1] offset:56\n\
                s_waitcnt vmcnt(0) lgkmcnt(0)\n\
                global_store_b128 v0, v[4:7], s[0:1]\n\
                v_mov_b32 v8, s4\nv_mov_b32 v9, s6\n\
                global_store_b64 v0, v[8:9], s[0:1] offset:16\n\
                s_endpgm\n";
    let code = assemble(Arch::Rdna3, text);
    let mut l = raw_launch(Arch::Rdna3, code, 32, 1, 64);
    let data: Vec<u8> = (0..64u8).map(|i| i + 1).collect();
    l.memory = vec![(OUT, data.clone())];
    for engine in [Engine::Interp, Engine::Jit] {
        let o = run(Arch::Rdna3, engine, &l).expect("the loads stay in the buffer's page");
        let w = words(&o.memory[0].1);
        // Bytes 56..64 of the buffer, then zeros past its end.
        assert_eq!(&w[..4], &[0x3c3b_3a39, 0x403f_3e3d, 0, 0], "{engine:?}");
        assert_eq!(&w[4..6], &[0x3c3b_3a39, 0], "{engine:?} s_load_b128");
    }
    // A load from the next page faults.
    let code = assemble(
        Arch::Rdna3,
        "v_mov_b32 v0, 0x1000\nglobal_load_b32 v4, v0, s[0:1]\ns_endpgm\n",
    );
    let mut l = raw_launch(Arch::Rdna3, code, 32, 1, 64);
    l.memory = vec![(OUT, data)];
    for engine in [Engine::Interp, Engine::Jit] {
        match run(Arch::Rdna3, engine, &l) {
            Err(DispatchError::Wave {
                error: WaveError::MemoryFault { address, .. },
                ..
            }) => assert_eq!(address, OUT + 0x1000),
            other => panic!("expected a memory fault, got {other:?}"),
        }
    }
}

/// Launch buffers are held as regions of the dispatch's memory (`SparseMemory::add_region`)
/// and rows inside one are copied straight: a row that runs past a buffer's end still faults
/// naming the first lane outside (address and lane as lane by lane); with unmapped memory
/// allowed it writes on into pages and is reported as written elsewhere; a row across two
/// touching buffers, and buffers that overlap (the later one's bytes win), read and write as
/// plain bytes, with the fast paths on or off.
#[test]
fn region_rows_fault_at_the_buffer_end_and_cross_into_pages() {
    let store = assemble(
        Arch::Rdna3,
        "v_lshlrev_b32 v1, 2, v0\nv_add_nc_u32 v2, 0x500, v0\n\
         global_store_b32 v1, v2, s[0:1] offset:192\ns_endpgm\n",
    );
    let mut l = raw_launch(Arch::Rdna3, store, 32, 32, 256);
    for engine in [Engine::Interp, Engine::Jit] {
        match run(Arch::Rdna3, engine, &l) {
            Err(DispatchError::Wave {
                error: WaveError::MemoryFault { address, lane, .. },
                ..
            }) => assert_eq!((address, lane), (OUT + 256, 16), "{engine:?}"),
            other => panic!("{engine:?}: expected a memory fault, got {other:?}"),
        }
    }
    l.unmapped = Unmapped::Zero;
    for engine in [Engine::Interp, Engine::Jit] {
        let o = run(Arch::Rdna3, engine, &l).expect("unmapped bytes are allowed");
        let w = words(&o.memory[0].1);
        assert_eq!((w[47], w[48], w[63]), (0, 0x500, 0x50f), "{engine:?}");
        assert_eq!(o.written_elsewhere.len(), 1, "{engine:?}");
        let (at, bytes) = &o.written_elsewhere[0];
        assert_eq!(
            (*at, words(bytes)),
            (OUT + 256, (0x510..0x520).collect::<Vec<u32>>())
        );
    }
    // Two touching buffers and one overlapping the second: a load row across both, stored
    // back shifted by 64 bytes.
    let shift = assemble(
        Arch::Rdna3,
        "v_lshlrev_b32 v1, 2, v0\nglobal_load_b32 v2, v1, s[0:1] offset:64\n\
         s_waitcnt vmcnt(0)\nglobal_store_b32 v1, v2, s[0:1] offset:128\ns_endpgm\n",
    );
    let mut l = raw_launch(Arch::Rdna3, shift, 32, 32, 0);
    let bytes =
        |from: u32, n: u32| -> Vec<u8> { (from..from + n).flat_map(u32::to_le_bytes).collect() };
    l.memory = vec![
        (OUT, bytes(0, 32)),
        (OUT + 128, bytes(100, 48)),
        (OUT + 192, bytes(1000, 4)),
    ];
    let mut results = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        for fast in [false, true] {
            let mut d = Dispatcher::new(common::spec().db(Arch::Rdna3), engine).expect("engine");
            d.executor_mut().memory_fast_path = fast;
            d.executor_mut().block_threshold = 1;
            let mut o = d.run(&l).expect("runs");
            // Again, into the buffers of the first outcome.
            d.run_reusing(&l, &mut o).expect("runs again");
            results.push(o.memory);
        }
    }
    // Loaded: words 16..32 of the first buffer, then 100..116 of the second (before the
    // stores), stored from byte 128 on: over the second buffer and all of the third (whose
    // bytes had replaced words 16..20 of the second); the rest of the second is as given.
    let mut second: Vec<u32> = (16..32).chain(100..116).collect();
    second.extend(132..148);
    let third: Vec<u32> = vec![100, 101, 102, 103];
    for (k, r) in results.iter().enumerate() {
        assert_eq!(words(&r[0].1), (0..32).collect::<Vec<u32>>(), "run {k}");
        assert_eq!(words(&r[1].1), second, "run {k}");
        assert_eq!(words(&r[2].1), third, "run {k}");
    }
}

/// A dispatcher reuses wave states across workgroups and launches, zeroing only the VGPR rows
/// a program can touch from its entry (code objects hold every kernel of a source, so the
/// others' registers are left alone). The rows named behind branches count: a program that
/// reaches `v40` only through `s_branch` and `s_cbranch_*` reads it as zero after a launch
/// that left 7 there; the unreachable instruction between names `v41` (left as is: nothing
/// reads it). Both engines, wave32, three workgroups of two waves.
#[test]
fn reused_wave_states_zero_the_rows_reached_through_branches() {
    let arch = Arch::Rdna3;
    let dirty = assemble(arch, "v_mov_b32 v40, 7\nv_mov_b32 v41, 7\ns_endpgm\n");
    let reads = assemble(
        arch,
        "s_branch body\n\
         v_mov_b32 v41, 9\n\
         s_endpgm\n\
         body:\n\
         s_cmp_eq_u32 s0, s0\n\
         s_cbranch_scc1 tail\n\
         s_endpgm\n\
         tail:\n\
         v_lshlrev_b32 v2, 2, v0\n\
         v_add_nc_u32 v1, v40, v0\n\
         global_store_b32 v2, v1, s[0:1]\n\
         s_endpgm\n",
    );
    for engine in [Engine::Interp, Engine::Jit] {
        let mut d = Dispatcher::new(common::spec().db(arch), engine).expect("engine");
        let mut first = raw_launch(arch, dirty.clone(), 32, 64, 256);
        first.grid = [3, 1, 1];
        d.run(&first).expect("the first launch runs");
        let second = raw_launch(arch, reads.clone(), 32, 64, 256);
        let o = d.run(&second).expect("the second launch runs");
        let expect: Vec<u32> = (0..64).collect();
        assert_eq!(
            words(&o.memory[0].1),
            expect,
            "{engine:?}: v40 read as zero"
        );
    }
}

/// Barriers close blocks and forward branches are side exits: the fixture's
/// `lds_sum` (two waves per workgroup, six `s_barrier`s, `s_cbranch_execz` that the second
/// wave takes and the first falls through) and the LDS exchange programs (RDNA 3 wave32 and
/// wave64, RDNA 4's split barrier, CDNA) run with blocks compiled at the first arrival give
/// the interpreter's and per-instruction JIT's memory, instruction count and lane operations;
/// the LDS sum's block at the kernel entry runs to and through its first barrier.
#[test]
fn barriers_and_forward_branches_in_blocks() {
    let vals: Vec<i32> = (0..512).map(|i| (i * 7919 % 1000) - 500).collect();
    let mut kernarg = Vec::new();
    kernarg.extend(IN.to_le_bytes());
    kernarg.extend(OUT.to_le_bytes());
    let mem = vec![
        (IN, vals.iter().flat_map(|x| x.to_le_bytes()).collect()),
        (OUT, vec![0; 32]),
    ];
    let sum = object_launch("lds_sum", 8, 64, kernarg, mem);
    let expect: Vec<u32> = vals
        .chunks(64)
        .map(|c| c.iter().sum::<i32>() as u32)
        .collect();
    let mut cases = vec![(Arch::Rdna3, sum, Some(expect))];
    for (arch, wave, waves) in [
        (Arch::Rdna3, 32, 4),
        (Arch::Rdna3, 64, 2),
        (Arch::Rdna4, 32, 4),
        (Arch::Cdna, 64, 2),
    ] {
        let threads = wave * waves;
        let code = assemble(arch, &exchange_program(arch, wave));
        let l = raw_launch(arch, code, wave, threads, 4 * threads as usize);
        cases.push((arch, l, None));
    }
    for (arch, l, expect) in &cases {
        let mut outcomes = Vec::new();
        for (engine, blocks) in [
            (Engine::Interp, false),
            (Engine::Jit, false),
            (Engine::Jit, true),
        ] {
            let mut d = Dispatcher::new(common::spec().db(*arch), engine).expect("engine");
            d.executor_mut().block_compile = blocks;
            d.executor_mut().block_threshold = 1;
            // The first launch builds plans (and, from the second arrival on, blocks); the
            // second runs every wave through the blocks.
            d.run(l)
                .unwrap_or_else(|e| panic!("{arch:?} {engine:?}: {e}"));
            let o = d
                .run(l)
                .unwrap_or_else(|e| panic!("{arch:?} {engine:?}: {e}"));
            if blocks {
                let b = d.executor().blocks();
                assert!(b.len() >= 2, "{arch:?}: blocks {b:x?}");
                if expect.is_some() {
                    // s_load_b128 .. ds_store_b32, s_waitcnt, s_barrier: 17 instructions.
                    let entry = 0x7f00_0000_0000u64 + 0x1e00;
                    assert!(b.contains(&(entry, 17)), "blocks {b:x?}");
                }
            }
            if let Some(e) = expect {
                assert_eq!(words(&o.memory[1].1), *e, "{arch:?} {engine:?} {blocks}");
            }
            outcomes.push((o.memory, o.instructions, o.lane_ops, o.waves));
        }
        assert_eq!(
            outcomes[0], outcomes[1],
            "{arch:?}: interpreter vs jit-step"
        );
        assert_eq!(outcomes[1], outcomes[2], "{arch:?}: jit-step vs blocks");
    }
}
