//! The equivalence catalogue (`tests/equiv/*.pair`): each pair of programs with its expected
//! verdict, checked with the random pass and the proof; every "different" verdict's
//! counterexample is replayed through the interpreter (inside `equiv::check`), and each proof
//! must take under 5 s. Plus the CLI: exit codes, JSON shape, and a counterexample replayed with
//! `amdpcode run --state`.
//!
//! Needs z3: without it the tests print a notice and pass, except under `CI=true`.

mod common;

use std::path::Path;
use std::process::Command;

use amdpcode::smt::equiv::{self, Mode, Options, Verdict};
use amdpcode::smt::Solver;
use amdpcode::spec::Arch;
use amdpcode::wave::Program;

fn solver() -> Option<Solver> {
    match Solver::find(None) {
        // A verdict must not depend on the machine's load: the default wall-clock limit
        // (30 s) is for users; here only a solver that hangs should fail a test.
        Ok(s) => Some(Solver {
            timeout_ms: 600_000,
            ..s
        }),
        Err(e) => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("CI: {e}");
            }
            eprintln!("skipping: {e}");
            None
        }
    }
}

struct Pair {
    name: String,
    arch: Arch,
    wave: u32,
    outputs: Option<String>,
    expect: Verdict,
    a: String,
    b: String,
}

fn parse(path: &Path) -> Pair {
    let text = std::fs::read_to_string(path).unwrap();
    let header = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("# {key}: ")))
            .map(str::to_string)
    };
    let (_, rest) = text.split_once("--- A\n").expect("--- A");
    let (a, b) = rest.split_once("--- B\n").expect("--- B");
    Pair {
        name: path.file_stem().unwrap().to_string_lossy().into_owned(),
        arch: Arch::from_name(&header("arch").unwrap()).unwrap(),
        wave: header("wave").unwrap().parse().unwrap(),
        outputs: header("outputs"),
        expect: match header("expect").unwrap().as_str() {
            "equivalent" => Verdict::Equivalent,
            "different" => Verdict::Different,
            _ => Verdict::Unknown,
        },
        a: a.to_string(),
        b: b.to_string(),
    }
}

fn pairs() -> Vec<Pair> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/equiv");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pair"))
        .collect();
    files.sort();
    files.iter().map(|p| parse(p)).collect()
}

#[test]
fn catalogue_verdicts() {
    let Some(solver) = solver() else { return };
    let pairs = pairs();
    assert!(pairs.len() >= 25, "{} pairs", pairs.len());
    let mut failures = Vec::new();
    for p in &pairs {
        let db = common::spec().db(p.arch);
        let isa = amdpcode::isa::Isa::new(db);
        let a = Program::assemble(&isa, &p.a).unwrap_or_else(|e| panic!("{}: A: {e}", p.name));
        let b = Program::assemble(&isa, &p.b).unwrap_or_else(|e| panic!("{}: B: {e}", p.name));
        let opts = Options {
            wave: p.wave,
            outputs: p
                .outputs
                .as_deref()
                .map(|o| equiv::parse_outputs(o, p.arch).unwrap()),
            ignore: vec![],
            mode: Mode::Both,
            samples: 300,
            unroll: 70,
            solver: Some(solver.clone()),
            seed: 1,
        };
        let r = equiv::check(db, &a, &b, &opts);
        eprintln!(
            "{:<40} {:<10} {:?} by {} (random {} states {:.3} s, proof {:.3} s): {}",
            p.name,
            p.arch.name(),
            r.verdict,
            r.method,
            r.random_states.0,
            r.random_states.1,
            r.proof_seconds,
            r.reason
        );
        assert!(!r.translation_bug, "{}: {}", p.name, r.reason);
        if r.verdict != p.expect {
            failures.push(format!(
                "{}: expected {:?}, got {:?}: {}",
                p.name, p.expect, r.verdict, r.reason
            ));
        }
        if r.verdict == Verdict::Different {
            assert!(!r.differences.is_empty(), "{}", p.name);
            assert!(r.counterexample.is_some(), "{}", p.name);
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn cli_exit_codes_json_and_replay() {
    if solver().is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("amdpcode-equiv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fma = write(&dir, "uadd.s", "s_add_u32 s0, s1, s2\n");
    let muladd = write(&dir, "iadd.s", "s_add_i32 s0, s1, s2\n");
    let run = |args: &[&str]| {
        let o = Command::new(common::bin()).args(args).output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    // Different: exit 1, JSON with a counterexample and the differing values.
    let (code, out, err) = run(&[
        "equiv",
        "--arch",
        "rdna3",
        &fma,
        &muladd,
        "--outputs",
        "s0,scc",
        "--json",
        "--mode",
        "prove",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["verdict"], "different");
    assert_eq!(v["method"], "proof");
    assert_eq!(v["outputs"], serde_json::json!(["s0", "scc"]));
    let diff = &v["differences"]["scc"];
    assert_ne!(diff[0], diff[1]);
    assert!(v["differences"].get("s0").is_none(), "{v}");
    // The counterexample replays with `amdpcode run --state`: the two final SCCs differ.
    let state = write(&dir, "state.json", &v["counterexample"].to_string());
    let (ca, oa, ea) = run(&["run", "--arch", "rdna3", "--state", &state, "--json", &fma]);
    let (cb, ob, _) = run(&[
        "run", "--arch", "rdna3", "--state", &state, "--json", &muladd,
    ]);
    assert_eq!((ca, cb), (Some(0), Some(0)), "{ea}");
    let fa: serde_json::Value = serde_json::from_str(&oa).unwrap();
    let fb: serde_json::Value = serde_json::from_str(&ob).unwrap();
    let v2 = |f: &serde_json::Value| {
        let s = f.to_string();
        assert!(s.contains("sgpr"), "{s}");
        f.pointer("/sgpr/scc")
            .cloned()
            .or_else(|| f.pointer("/final/sgpr/scc").cloned())
    };
    assert_ne!(v2(&fa), v2(&fb));
    assert_eq!(v2(&fa).map(|x| x.to_string()), Some(diff[0].to_string()));
    // Equivalent: exit 0.
    let shl = write(&dir, "shl.s", "v_lshlrev_b32_e32 v0, 4, v1\n");
    let mul = write(&dir, "mul.s", "v_mul_lo_u32 v0, v1, 16\n");
    let (code, out, _) = run(&["equiv", "--arch", "rdna3", &shl, &mul, "--outputs", "v0"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with("equivalent (proved)"), "{out}");
    // Trouble: exit 2 with a message, never a panic.
    let bad = write(&dir, "bad.s", "v_frobnicate v0\n");
    let (code, _, err) = run(&["equiv", "--arch", "rdna3", &bad, &mul]);
    assert_eq!(code, Some(2));
    assert!(err.contains("error:") && !err.contains("panicked"), "{err}");
    let (code, _, err) = run(&["equiv", "--arch", "gfx1", &shl, &mul]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown arch"), "{err}");
    let (code, _, err) = run(&["equiv", "--arch", "rdna3", &shl, &mul, "--outputs", "q7"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("not a register"), "{err}");
    let (code, _, err) = run(&[
        "equiv",
        "--arch",
        "rdna3",
        &shl,
        &mul,
        "--solver",
        "/nonexistent/z3",
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no SMT solver"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn options(wave: u32, outputs: &str, arch: Arch, mode: Mode, solver: Option<Solver>) -> Options {
    Options {
        wave,
        outputs: Some(equiv::parse_outputs(outputs, arch).unwrap()),
        ignore: vec![],
        mode,
        samples: 1000,
        unroll: 70,
        solver,
        seed: 7,
    }
}

fn programs(arch: Arch, a: &str, b: &str) -> (Program, Program) {
    let isa = amdpcode::isa::Isa::new(common::spec().db(arch));
    (
        Program::assemble(&isa, a).unwrap(),
        Program::assemble(&isa, b).unwrap(),
    )
}

/// `--outputs`/`--ignore` take every register name the assembler takes: the halves of VCC
/// and EXEC, M0, trap temporaries, ranges, and CDNA's named pairs; constants and `null` are
/// refused by name.
#[test]
fn output_names_are_the_assemblers_register_names() {
    let names = |list: &str, arch: Arch| -> Vec<String> {
        equiv::parse_outputs(list, arch)
            .unwrap_or_else(|e| panic!("{list}: {e}"))
            .iter()
            .map(|o| o.name())
            .collect()
    };
    assert_eq!(
        names(
            "exec_lo, exec_hi, vcc_lo, VCC_HI, m0, ttmp3, ttmp[4:5], s[2:3], v[4:5], vcc, exec, scc",
            Arch::Rdna3
        ),
        [
            "exec_lo", "exec_hi", "vcc_lo", "vcc_hi", "m0", "ttmp3", "ttmp4", "ttmp5", "s2", "s3",
            "v4", "v5", "vcc", "exec", "scc"
        ]
    );
    assert_eq!(names("vcc_hi,m0", Arch::Rdna4), ["vcc_hi", "m0"]);
    assert_eq!(
        names("flat_scratch, xnack_mask_hi, exec_lo", Arch::Cdna),
        [
            "flat_scratch_lo",
            "flat_scratch_hi",
            "xnack_mask_hi",
            "exec_lo"
        ]
    );
    for bad in [
        "null",
        "src_scc",
        "exec_mid",
        "ttmp16",
        "s106",
        "v256",
        "flat_scratch",
    ] {
        let e = equiv::parse_outputs(bad, Arch::Rdna3).unwrap_err();
        assert!(e.contains(&format!("`{bad}`")), "{bad}: {e}");
    }
}

/// A half of VCC is an output of its own: programs that differ only in `vcc_hi` are equal on
/// `vcc_lo` and differ on `vcc_hi` (random pass; no solver needed).
#[test]
fn half_register_outputs_compare_only_that_half() {
    let arch = Arch::Rdna3;
    let db = common::spec().db(arch);
    let (a, b) = programs(
        arch,
        "s_mov_b32 vcc_hi, 1\ns_mov_b32 vcc_lo, 5\n",
        "s_mov_b32 vcc_hi, 2\ns_mov_b32 vcc_lo, 5\n",
    );
    let r = equiv::check(db, &a, &b, &options(32, "vcc_lo", arch, Mode::Random, None));
    assert_eq!(r.verdict, Verdict::Equivalent, "{}", r.reason);
    let r = equiv::check(db, &a, &b, &options(32, "vcc_hi", arch, Mode::Random, None));
    assert_eq!(r.verdict, Verdict::Different, "{}", r.reason);
    let d = &r.differences["vcc_hi"];
    assert_eq!((d.0.as_str(), d.1.as_str()), (Some("0x1"), Some("0x2")));
}

/// A counterexample lists the registers the two programs read and write (and EXEC), not the
/// whole register file, and the listed state alone replays the difference.
#[test]
fn counterexample_lists_only_the_state_the_programs_touch() {
    let arch = Arch::Rdna3;
    let db = common::spec().db(arch);
    let (a, b) = programs(
        arch,
        "v_fma_f32 v2, v0, v1, v3\n",
        "v_mul_f32_e32 v2, v0, v1\nv_add_f32_e32 v2, v2, v3\n",
    );
    let r = equiv::check(db, &a, &b, &options(32, "v2", arch, Mode::Random, None));
    assert_eq!(r.verdict, Verdict::Different, "{}", r.reason);
    let json = r.counterexample_json().expect("counterexample");
    let keys = |k: &str| -> Vec<String> {
        json[k]
            .as_object()
            .unwrap_or_else(|| panic!("{json}"))
            .keys()
            .cloned()
            .collect()
    };
    assert_eq!(keys("sgpr"), ["exec"]);
    assert_eq!(keys("vgpr"), ["v0", "v1", "v2", "v3"]);
    // The listed state, everything else zero, gives the difference under the interpreter.
    let mut finals = Vec::new();
    for p in [&a, &b] {
        let mut ex = amdpcode::wave::Executor::new(db, amdpcode::wave::Engine::Interp).unwrap();
        let mut w = ex.new_wave(32);
        amdpcode::wave::json::apply(&mut w, &json.to_string()).unwrap();
        ex.run(p, &mut w).unwrap();
        finals.push((0..32).map(|l| w.vgpr(l, 2)).collect::<Vec<u32>>());
    }
    assert_ne!(finals[0], finals[1]);
    let shown: Vec<String> = (0..32).map(|l| format!("0x{:x}", finals[0][l])).collect();
    assert_eq!(r.differences["v2"].0, serde_json::json!(shown));
}

/// `--mode prove`: when the solver gives up, random and edge-case states are searched for a
/// witness before the answer is "unknown", and the report says which way it was found. The
/// solver here is a stand-in that answers `unknown` to everything, so the outcome does not
/// depend on the machine's speed.
#[cfg(unix)]
#[test]
fn prove_mode_searches_for_a_witness_when_the_solver_gives_up() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("amdpcode-equiv-unknown-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("solver.sh");
    std::fs::write(&path, "#!/bin/sh\ncat > /dev/null\necho unknown\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let solver = Solver::find(Some(&path)).unwrap();
    let arch = Arch::Rdna3;
    let db = common::spec().db(arch);
    let (a, b) = programs(
        arch,
        "v_fma_f32 v2, v0, v1, v3\n",
        "v_mul_f32_e32 v2, v0, v1\nv_add_f32_e32 v2, v2, v3\n",
    );
    let opts = options(32, "v2", arch, Mode::Prove, Some(solver.clone()));
    let r = equiv::check(db, &a, &b, &opts);
    assert_eq!(r.verdict, Verdict::Different, "{}", r.reason);
    assert_eq!(r.method, "search");
    assert!(
        r.reason.contains("after the solver gave up"),
        "{}",
        r.reason
    );
    assert!(r.random_states.0 >= 1 && r.random_states.0 <= 1000);
    assert!(!r.differences.is_empty());
    // Equal programs: still unknown, saying that the search found nothing either.
    let (a, b) = programs(
        arch,
        "v_lshlrev_b32_e32 v0, 4, v1\n",
        "v_mul_lo_u32 v0, v1, 16\n",
    );
    let r = equiv::check(
        db,
        &a,
        &b,
        &options(32, "v0", arch, Mode::Prove, Some(solver)),
    );
    assert_eq!(r.verdict, Verdict::Unknown, "{}", r.reason);
    assert!(
        r.reason
            .contains("no witness among 1000 random and edge-case states"),
        "{}",
        r.reason
    );
    let _ = std::fs::remove_dir_all(&dir);
}
