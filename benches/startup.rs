//! Start-up bench: whole processes of the built `amdpcode`, from `exec` to exit,
//! against baseline processes timed in the same run:
//! - `baseline/true`: `/bin/true` (the cost of starting any process here);
//! - `baseline/version`: `amdpcode --version` (loading this binary, no spec);
//! - `run/interp`, `run/jit`: `amdpcode run` of a two-instruction program;
//! - `dispatch/interp`, `dispatch/jit`: `amdpcode dispatch` of the checked-in fixture's
//!   `vadd` (one wave of 32 lanes, 30 instructions), the README's command.
//!
//! After criterion's groups, a summary runs each case `SUMMARY_RUNS` more times and prints
//! the median wall time, its ratio to both baselines, and the median CPU time from `exec` to
//! the first executed instruction as the process itself reports it (`AMDPCODE_TIME_FIRST`,
//! `src/wave/startup.rs`). Every process reads the same wheel (`AMDPCODE_SPEC`), and one
//! warm-up process per case writes the prepared-database cache first, so the figures are
//! those of a warm cache, as after the first use.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};

use amdpcode::spec::{self, Locate};

const SUMMARY_RUNS: usize = 30;

const PROGRAM: &str = "v_mov_b32 v1, 7\ns_endpgm\n";

/// One process to time: a label and its command line.
struct Case {
    label: &'static str,
    program: PathBuf,
    args: Vec<String>,
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_amdpcode")
}

fn cases() -> Vec<Case> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(&dir).expect("bench setup: target tmp dir");
    let small = dir.join("startup-small.s");
    std::fs::write(&small, PROGRAM).expect("bench setup: writing the program");
    let hsaco = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/dispatch/fixture-gfx1100.hsaco"
    );
    let dispatch = |engine: &str| {
        [
            "dispatch",
            hsaco,
            "--kernel",
            "vadd",
            "--grid",
            "1",
            "--block",
            "32",
            "--arg",
            "buf=f32x32:iota",
            "--arg",
            "buf=f32x32:iota",
            "--arg",
            "buf=f32x32:zero",
            "--arg",
            "u32=32",
            "--engine",
            engine,
        ]
        .map(String::from)
        .to_vec()
    };
    let run = |engine: &str| {
        ["run", "--arch", "rdna3", "--engine", engine]
            .map(String::from)
            .into_iter()
            .chain([small.display().to_string()])
            .collect::<Vec<_>>()
    };
    let case = |label, program: &str, args: Vec<String>| Case {
        label,
        program: PathBuf::from(program),
        args,
    };
    vec![
        case("baseline/true", "/bin/true", Vec::new()),
        case("baseline/version", bin(), vec!["--version".into()]),
        case("run/interp", bin(), run("interp")),
        case("run/jit", bin(), run("jit")),
        case("dispatch/interp", bin(), dispatch("interp")),
        case("dispatch/jit", bin(), dispatch("jit")),
    ]
}

fn spawn(case: &Case, wheel: &str, time_first: bool) -> Output {
    let mut cmd = Command::new(&case.program);
    cmd.args(&case.args).env("AMDPCODE_SPEC", wheel);
    if time_first {
        cmd.env("AMDPCODE_TIME_FIRST", "1");
    } else {
        cmd.env_remove("AMDPCODE_TIME_FIRST");
    }
    let out = cmd.output().expect("bench: starting the process");
    assert!(
        out.status.success(),
        "bench: {} failed: {}",
        case.label,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The CPU milliseconds from `exec` to the first instruction in a process's report.
fn first_instruction_cpu_ms(stderr: &[u8]) -> Option<f64> {
    let text = String::from_utf8_lossy(stderr);
    let line = text
        .lines()
        .find(|l| l.starts_with("amdpcode: first instruction done:"))?;
    let (_, rest) = line.split_once("done: ")?;
    rest.split(" ms CPU").next()?.trim().parse().ok()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn bench(c: &mut Criterion) {
    let wheel = spec::find_wheel(&Locate::default())
        .expect("bench setup: the spec wheel is needed")
        .display()
        .to_string();
    let cases = cases();
    for case in &cases {
        // Warm-up: writes the prepared-database cache if it is missing or stale.
        spawn(case, &wheel, false);
    }
    let mut group = c.benchmark_group("startup");
    group.sample_size(20);
    group.measurement_time(std::time::Duration::from_secs(3));
    group.warm_up_time(std::time::Duration::from_millis(500));
    for case in &cases {
        group.bench_function(case.label, |b| b.iter(|| spawn(case, &wheel, false)));
    }
    group.finish();

    println!(
        "startup summary: {SUMMARY_RUNS} processes per case, the cases taken in turn so that \
         each sees the same load; wall from spawn to exit (median, min); CPU from exec to the \
         first instruction as the process reports it (median)"
    );
    let mut wall = vec![Vec::new(); cases.len()];
    let mut cpu = vec![Vec::new(); cases.len()];
    for _ in 0..SUMMARY_RUNS {
        for (i, case) in cases.iter().enumerate() {
            let t = Instant::now();
            let out = spawn(case, &wheel, true);
            wall[i].push(t.elapsed().as_secs_f64() * 1e3);
            cpu[i].extend(first_instruction_cpu_ms(&out.stderr));
        }
    }
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let (true_ms, version_ms) = (median(wall[0].clone()), median(wall[1].clone()));
    for (i, case) in cases.iter().enumerate() {
        let med = median(wall[i].clone());
        let cpu = if cpu[i].is_empty() {
            "-".to_string()
        } else {
            format!("{:.2} ms", median(cpu[i].clone()))
        };
        println!(
            "  {:<17} wall {med:6.2} ms (min {:5.2})  {:5.2}x /bin/true  {:5.2}x --version  first instruction {cpu} CPU",
            case.label,
            min(&wall[i]),
            med / true_ms,
            med / version_ms,
        );
    }
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        println!("  load average: {}", load.trim());
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
