//! Workgroups on several threads (`Dispatcher::set_threads`, `amdpcode dispatch --threads`):
//! the outcome is the one-thread outcome for race-free kernels, launches with global atomics
//! stay on one thread (and count right), a fault is the first in workgroup order whichever
//! thread met it, and a batch's lines come out in order with the one-thread output.

mod common;

use std::process::Command;

use amdpcode::dispatch::{Code, Dispatcher, Launch, Outcome, Unmapped};
use amdpcode::isa::Isa;
use amdpcode::spec::Arch;
use amdpcode::wave::Engine;

const OUT: u64 = 0x1_0000_0000;

fn assemble(text: &str) -> Vec<u8> {
    let isa = Isa::new(common::spec().db(Arch::Rdna3));
    let lines = isa
        .assemble_lines(text)
        .unwrap_or_else(|e| panic!("line {}: {}", e.line, e.message));
    lines.into_iter().flat_map(|a| a.bytes).collect()
}

/// `groups` workgroups of one wave32 each; s[0:1] = OUT, s2 = the workgroup id x.
fn launch(text: &str, groups: u32, memory: Vec<(u64, Vec<u8>)>) -> Launch {
    Launch {
        arch: Some(Arch::Rdna3),
        code: Code::Raw {
            bytes: assemble(text),
            addr: 0x7000_0000,
            rsrc1: 0xc0 << 12 | 1 << 21 | 1 << 23,
            rsrc2: 2 << 1 | 1 << 7,
            rsrc3: 0,
            user_sgprs: vec![OUT as u32, (OUT >> 32) as u32],
        },
        grid: [groups, 1, 1],
        block: [32, 1, 1],
        grid_items: None,
        wave: Some(32),
        lds_bytes: None,
        scratch_bytes: None,
        memory,
        unmapped: Unmapped::Fault,
        step_budget: None,
    }
}

fn dispatcher(engine: Engine, threads: usize) -> Dispatcher {
    let mut d = Dispatcher::new(common::spec().db(Arch::Rdna3), engine).expect("dispatcher");
    d.set_threads(threads);
    d
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Each lane stores `wg * 1000 + lane` at `OUT[wg * 32 + lane]`, and lane 0 of every
/// workgroup adds one to its word in a second buffer that it first reads (read and written
/// by that workgroup only).
const STORE_IDS: &str = "s_mul_i32 s3, s2, 1000\n\
    v_add_nc_u32 v1, s3, v0\n\
    s_lshl_b32 s4, s2, 7\n\
    v_lshlrev_b32 v2, 2, v0\n\
    v_add_nc_u32 v2, s4, v2\n\
    global_store_b32 v2, v1, s[0:1]\n\
    s_mov_b32 exec_lo, 1\n\
    s_lshl_b32 s5, s2, 2\n\
    v_mov_b32 v3, s5\n\
    s_add_u32 s6, s0, 0x100000\n\
    s_addc_u32 s7, s1, 0\n\
    global_load_b32 v4, v3, s[6:7]\n\
    s_waitcnt vmcnt(0)\n\
    v_add_nc_u32 v4, 1, v4\n\
    global_store_b32 v3, v4, s[6:7]\n\
    s_endpgm\n";

/// Runs `l` on 2 and 3 threads under `engine`: each run uses them all and gives `expect`, the
/// one-thread outcome.
fn same_on_threads(l: &Launch, engine: Engine, expect: &Outcome) {
    for threads in [2, 3] {
        let mut d = dispatcher(engine, threads);
        let got = d.run(l).expect("threads");
        assert_eq!(d.last_threads(), threads, "{engine:?}");
        assert_eq!(&got, expect, "{engine:?}, {threads} threads");
    }
}

#[test]
fn workgroups_on_two_and_three_threads_give_the_one_thread_outcome() {
    let groups = 300;
    let seeds: Vec<u8> = (0..groups * 4).map(|i| (i * 7 % 251) as u8).collect();
    let l = launch(
        STORE_IDS,
        groups,
        vec![
            (OUT, vec![0; groups as usize * 128]),
            (OUT + 0x100000, seeds.clone()),
        ],
    );
    for engine in [Engine::Interp, Engine::Jit] {
        let mut one = dispatcher(engine, 1);
        let expect = one.run(&l).expect("one thread");
        assert_eq!(one.last_threads(), 1);
        let ids = words(&expect.memory[0].1);
        assert_eq!(ids[0], 0);
        assert_eq!(ids[31], 31);
        assert_eq!(ids[32 * 299 + 5], 299_005);
        let counts = words(&expect.memory[1].1);
        assert_eq!(counts[7], words(&seeds)[7] + 1);
        for threads in [2, 3] {
            let mut d = dispatcher(engine, threads);
            // Twice: the second launch reuses the threads' dispatchers.
            for _ in 0..2 {
                let got = d.run(&l).expect("threads");
                assert_eq!(d.last_threads(), threads, "{engine:?}");
                assert_eq!(got, expect, "{engine:?}, {threads} threads");
            }
        }
    }
}

/// Each lane loads four words from the second buffer at `(wg * 32 + lane) * 16`, adds the
/// workgroup id to the first and its lane to the last, and stores the four at the same place
/// in `OUT` (128-bit accesses).
const WIDE: &str = "s_lshl_b32 s4, s2, 9\n\
    v_lshlrev_b32 v5, 4, v0\n\
    v_add_nc_u32 v5, s4, v5\n\
    s_add_u32 s6, s0, 0x100000\n\
    s_addc_u32 s7, s1, 0\n\
    global_load_b128 v[6:9], v5, s[6:7]\n\
    s_waitcnt vmcnt(0)\n\
    v_add_nc_u32 v6, s2, v6\n\
    v_add_nc_u32 v9, v0, v9\n\
    global_store_b128 v5, v[6:9], s[0:1]\n\
    s_endpgm\n";

#[test]
fn wide_loads_and_stores_on_threads_give_the_one_thread_outcome() {
    let groups = 100u32;
    let n = groups as usize * 32 * 4;
    let input: Vec<u8> = (0..n as u32)
        .flat_map(|k| (3 * k + 1).to_le_bytes())
        .collect();
    let l = launch(
        WIDE,
        groups,
        vec![(OUT, vec![0; 4 * n]), (OUT + 0x100000, input)],
    );
    for engine in [Engine::Interp, Engine::Jit] {
        let expect = dispatcher(engine, 1).run(&l).expect("one thread");
        let w = words(&expect.memory[0].1);
        // Workgroup 99, lane 31: words 12796..12800.
        assert_eq!(w[12796..12800], [38_488, 38_392, 38_395, 38_429]);
        assert_eq!(w[0..4], [1, 4, 7, 10]);
        same_on_threads(&l, engine, &expect);
    }
}

#[test]
fn where_workgroups_on_different_threads_write_one_word_the_last_workgroup_wins() {
    // Every workgroup stores its id into word 0 and into word 1 + (its id mod 3); the
    // one-thread schedule leaves the last workgroup's id in word 0 (255) and each word
    // 1..4 holding the last id with its remainder (255, 253, 254).
    let text = "s_mov_b32 exec_lo, 1\nv_mov_b32 v1, s2\nv_mov_b32 v2, 0\n\
                global_store_b32 v2, v1, s[0:1]\n\
                v_cvt_f32_u32 v3, s2\nv_mul_f32 v3, 0x3eaaaaab, v3\nv_cvt_u32_f32 v3, v3\n\
                v_mul_u32_u24 v3, 3, v3\nv_sub_nc_u32 v3, s2, v3\n\
                v_add_nc_u32 v3, 1, v3\nv_lshlrev_b32 v3, 2, v3\n\
                global_store_b32 v3, v1, s[0:1]\ns_endpgm\n";
    let l = launch(text, 256, vec![(OUT, vec![0; 16])]);
    for engine in [Engine::Interp, Engine::Jit] {
        let expect = dispatcher(engine, 1).run(&l).expect("one thread");
        assert_eq!(words(&expect.memory[0].1), vec![255, 255, 253, 254]);
        same_on_threads(&l, engine, &expect);
    }
}

#[test]
fn launches_with_global_atomics_stay_on_one_thread_and_count_every_lane() {
    let text = "v_mov_b32 v1, 1\nv_mov_b32 v2, 0\nglobal_atomic_add_u32 v2, v1, s[0:1]\ns_endpgm\n";
    let l = launch(text, 200, vec![(OUT, vec![0; 4])]);
    for threads in [1, 2] {
        let mut d = dispatcher(Engine::Jit, threads);
        let o = d.run(&l).expect("runs");
        assert_eq!(words(&o.memory[0].1), vec![200 * 32]);
        assert_eq!(d.last_threads(), 1);
    }
}

#[test]
fn small_launches_and_one_thread_settings_run_on_the_calling_thread() {
    let l = launch(
        STORE_IDS,
        2,
        vec![(OUT, vec![0; 256]), (OUT + 0x100000, vec![0; 8])],
    );
    let mut d = dispatcher(Engine::Interp, 4);
    d.run(&l).expect("runs");
    assert_eq!(d.last_threads(), 1);
}

#[test]
fn a_fault_on_threads_is_the_first_in_workgroup_order() {
    // Workgroup w writes OUT[w]; words 50..60 and 150..160 are not mapped, so workgroups
    // 50..59 (on the first thread's half) and 150..159 (on the second's) fault.
    let text = "s_mov_b32 exec_lo, 1\nv_mov_b32 v1, s2\ns_lshl_b32 s3, s2, 2\n\
                v_mov_b32 v2, s3\nglobal_store_b32 v2, v1, s[0:1]\ns_endpgm\n";
    let mapped = |from: u64, to: u64| (OUT + 4 * from, vec![0u8; 4 * (to - from) as usize]);
    let l = launch(
        text,
        256,
        vec![mapped(0, 50), mapped(60, 150), mapped(160, 256)],
    );
    let one = dispatcher(Engine::Jit, 1).run(&l).expect_err("faults");
    assert!(
        one.to_string().starts_with("workgroup (50,0,0) wave 0:"),
        "{one}"
    );
    for threads in [2, 3, 4] {
        let got = dispatcher(Engine::Jit, threads)
            .run(&l)
            .expect_err("faults");
        assert_eq!(got, one, "{threads} threads");
    }
    // Only the second half faults: the first thread's half runs through, the fault is 150.
    let l = launch(text, 256, vec![mapped(0, 150), mapped(160, 256)]);
    let got = dispatcher(Engine::Jit, 2).run(&l).expect_err("faults");
    assert!(
        got.to_string().starts_with("workgroup (150,0,0) wave 0:"),
        "{got}"
    );
}

#[test]
fn batch_lines_on_threads_come_out_in_order_as_on_one_thread() {
    let dir = std::env::temp_dir().join(format!("amdpcode-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let code: String = assemble(STORE_IDS)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut lines = String::new();
    for i in 0..12u32 {
        let groups = 1 + i * 7;
        if i == 5 {
            lines.push_str("{\"arch\": \"rdna3\"}\n");
            continue;
        }
        lines.push_str(&format!(
            "{{\"arch\": \"rdna3\", \"code_hex\": \"{code}\", \"code_addr\": \"0x70000000\", \
             \"rsrc1\": \"0x{:x}\", \"rsrc2\": \"0x{:x}\", \"user_sgprs\": [\"0x0\", \"0x1\"], \
             \"wave\": 32, \"grid\": {groups}, \"block\": 32, \"memory\": [\
             {{\"addr\": \"0x100000000\", \"size\": {}}}, \
             {{\"addr\": \"0x100100000\", \"hex\": \"{}\"}}]}}\n",
            0xc0 << 12 | 1 << 21 | 1 << 23,
            2 << 1 | 1 << 7,
            groups * 128,
            "01000000".repeat(groups as usize),
        ));
    }
    let path = dir.join("batch.jsonl");
    std::fs::write(&path, lines).expect("writing the batch");
    let run = |threads: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_amdpcode"))
            .args(["dispatch", "--json", "--threads", threads, "--batch"])
            .arg(&path)
            .output()
            .expect("runs amdpcode");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let one = run("1");
    let lines: Vec<&str> = one.lines().collect();
    assert_eq!(lines.len(), 12);
    assert!(
        lines[5].starts_with("{\"error\":\"line 6: "),
        "{}",
        lines[5]
    );
    assert!(lines[11].contains("\"workgroups\":78"), "{}", lines[11]);
    assert_eq!(run("3"), one);
    let _ = std::fs::remove_dir_all(&dir);
}
