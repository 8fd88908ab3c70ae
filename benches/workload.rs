//! Real workloads: launches captured from tinygrad's test suites on its mock GPU
//! (`AMDPCODE_CAPTURE`, see `python/amdpcode/tinygrad.py`), replayed through the library
//! (`Launch` values built before timing; no JSON in the timed part), and the fixture's
//! multi-workgroup kernels on one and on two threads.
//!
//! What it reports, one thread unless named:
//! - `workload/replay-cold`: the whole capture on a new dispatcher (every program met for the
//!   first time: decoding, first executions, tiering); throughput = wave instructions.
//! - `workload/replay-warm`: the same on a dispatcher that ran it once (programs seen).
//! - `workload/launch-seen`: the capture's smallest launch again and again (per-launch cost).
//! - `workload/first-launch`: the capture's largest program on a new dispatcher, then the
//!   same launch again on that dispatcher (its first-execution cost is the difference); the
//!   summary also gives the first launch of the program nearest 200 instructions.
//! - `workload/loop`: the baseline, a wave running a hot loop (`benches/wave.rs`'s
//!   `v_add_f32` / `s_sub_u32` / `s_cmp_lg_u32` / `s_cbranch_scc1`), per instruction.
//! - `threads/{vadd,lds_sum}/{1,2}`: the fixture's vector add and LDS sum with their
//!   workgroups on one and on two threads.
//!
//! At the end it prints a summary measured in the same process (median of a few runs): ns per
//! wave instruction of each replay, per-launch and first-launch costs, and each as a ratio
//! against the loop baseline; the two-thread speed-up (wall time, and the CPU time of the
//! process). `cargo bench --bench workload -- summary` (a filter no group matches) prints the
//! summary alone.
//!
//! The capture is `benches/workload/tinygrad.jsonl.zip` (JSON Lines, raw-code launches as
//! `amdpcode dispatch --batch` reads them); `AMDPCODE_WORKLOAD=FILE.jsonl` replays another.

#[path = "../examples/common/mod.rs"]
mod common;

use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use amdpcode::dispatch::{Dispatcher, Launch};
use amdpcode::spec::{Arch, Spec};
use amdpcode::wave::{Engine, Executor, Program};
use common::{fixture_launch, load_spec, pointer_kernarg};

const CAPTURE: &str = "benches/workload/tinygrad.jsonl.zip";

/// The capture's launches.
fn workload() -> Vec<Launch> {
    let text = match std::env::var("AMDPCODE_WORKLOAD") {
        Ok(path) => std::fs::read_to_string(&path).expect("reading AMDPCODE_WORKLOAD"),
        Err(_) => {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(CAPTURE);
            let file = std::fs::File::open(&path).expect("opening the capture");
            let mut zip = zip::ZipArchive::new(file).expect("the capture is a zip file");
            let mut text = String::new();
            zip.by_index(0)
                .expect("the capture's first file")
                .read_to_string(&mut text)
                .expect("reading the capture");
            text
        }
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            Launch::from_json(l, Path::new("."))
                .unwrap_or_else(|e| panic!("capture line {}: {e}", i + 1))
        })
        .collect()
}

/// A dispatcher per arch, as `amdpcode dispatch --batch` makes them (JIT, CLI tiering).
fn dispatchers(spec: &Spec, engine: Engine) -> Vec<(Arch, Dispatcher)> {
    [Arch::Rdna3, Arch::Rdna4, Arch::Cdna]
        .into_iter()
        .map(|a| {
            let mut d = Dispatcher::new(spec.db(a), engine).expect("dispatcher");
            d.executor_mut().jit_threshold = amdpcode::wave::DEFAULT_JIT_THRESHOLD;
            (a, d)
        })
        .collect()
}

/// Runs every launch as a batch does (`Dispatcher::run_owned`: the launch's buffers become
/// the memory); returns the time spent in the runs (each launch is cloned before its clock
/// starts, and its outcome dropped after it stops) and the wave instructions executed.
fn replay_timed(ds: &mut [(Arch, Dispatcher)], launches: &[Launch]) -> (Duration, u64) {
    let mut n = 0;
    let mut t = Duration::ZERO;
    for l in launches {
        let arch = l.arch.expect("captured launches name their arch");
        let d = &mut ds.iter_mut().find(|(a, _)| *a == arch).expect("arch").1;
        let owned = l.clone();
        let s = Instant::now();
        let o = d.run_owned(owned);
        t += s.elapsed();
        n += o.expect("a captured launch runs").instructions;
    }
    (t, n)
}

fn replay(ds: &mut [(Arch, Dispatcher)], launches: &[Launch]) -> u64 {
    replay_timed(ds, launches).1
}

/// Criterion's time of `iters` replays, each on the dispatchers `make` gives.
fn replays(
    iters: u64,
    mut make: impl FnMut() -> Option<Vec<(Arch, Dispatcher)>>,
    warm: &mut [(Arch, Dispatcher)],
    launches: &[Launch],
) -> Duration {
    (0..iters)
        .map(|_| match make() {
            Some(mut ds) => replay_timed(&mut ds, launches).0,
            None => replay_timed(warm, launches).0,
        })
        .sum()
}

/// A distinct-program key: the code bytes.
fn code_of(l: &Launch) -> &[u8] {
    match &l.code {
        amdpcode::dispatch::Code::Raw { bytes, .. } => bytes,
        amdpcode::dispatch::Code::Object { bytes, .. } => bytes,
    }
}

/// The loop of `benches/wave.rs`: 1,000 iterations of four instructions.
fn loop_program(spec: &Spec) -> (Executor, Program) {
    let db = spec.db(Arch::Rdna3);
    let ex = Executor::new(db, Engine::Jit).expect("executor");
    let text = "s_mov_b32 s0, 1000\nv_mov_b32 v1, 0\nloop:\nv_add_f32 v1, 1.0, v1\n\
                s_sub_u32 s0, s0, 1\ns_cmp_lg_u32 s0, 0\ns_cbranch_scc1 loop\ns_endpgm\n";
    let p = Program::assemble(ex.isa(), text).expect("the loop assembles");
    (ex, p)
}

fn run_loop(ex: &mut Executor, p: &Program) -> u64 {
    let mut w = ex.new_wave(32);
    w.set_exec(u32::MAX as u64);
    let (_, n) = ex
        .run_until(p, &mut w, u64::MAX, None)
        .expect("the loop runs");
    n
}

/// The CPU time this process has used so far, every thread's (zero where unknown): beside
/// wall time, on a machine shared with other work the two-thread run's total CPU time shows
/// what threading costs whether or not the second thread found a free core.
fn process_cpu() -> Duration {
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid timespec to write; the clock id is a constant.
        if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } == 0 {
            return Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32);
        }
    }
    Duration::ZERO
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn bench(c: &mut Criterion) {
    let spec = load_spec();
    let launches = workload();
    let mut distinct: Vec<&[u8]> = launches.iter().map(code_of).collect();
    distinct.sort();
    distinct.dedup();
    let total = replay(&mut dispatchers(&spec, Engine::Jit), &launches);
    eprintln!(
        "workload: {} launches, {} distinct programs, {} wave instructions",
        launches.len(),
        distinct.len(),
        total
    );
    // The smallest launch (fewest instructions) and the launch of the largest program.
    let mut warm = dispatchers(&spec, Engine::Jit);
    replay(&mut warm, &launches);
    let counts: Vec<u64> = launches
        .iter()
        .map(|l| replay(&mut warm, std::slice::from_ref(l)))
        .collect();
    let small = (0..launches.len())
        .min_by_key(|&i| counts[i])
        .expect("the capture has launches");
    let big = (0..launches.len())
        .max_by_key(|&i| code_of(&launches[i]).len())
        .expect("the capture has launches");
    let isas: Vec<(Arch, amdpcode::isa::Isa)> = [Arch::Rdna3, Arch::Rdna4, Arch::Cdna]
        .into_iter()
        .map(|a| (a, amdpcode::isa::Isa::new(spec.db(a))))
        .collect();
    let decoded = |l: &Launch| {
        let isa = isas
            .iter()
            .find(|(a, _)| Some(*a) == l.arch)
            .map(|(_, i)| i);
        match (&l.code, isa) {
            (amdpcode::dispatch::Code::Raw { bytes, addr, .. }, Some(isa)) => {
                Program::from_image(isa, bytes, *addr).map_or(0, |p| p.insts().len())
            }
            _ => 0,
        }
    };
    let big_insts = decoded(&launches[big]);
    // The launch whose program decodes to the number of instructions nearest 200 (the
    // first-launch goal's size).
    let near = (0..launches.len())
        .min_by_key(|&i| decoded(&launches[i]).abs_diff(200))
        .expect("the capture has launches");
    let near_insts = decoded(&launches[near]);
    eprintln!(
        "workload: smallest launch {} ({} wave instructions); largest program launch {} \
         ({} instructions decoded, {} run); launch {} decodes {} instructions",
        small, counts[small], big, big_insts, counts[big], near, near_insts
    );

    let mut g = c.benchmark_group("workload");
    g.sample_size(10);
    g.throughput(Throughput::Elements(total));
    for (engine, name) in [(Engine::Jit, "jit"), (Engine::Interp, "interp")] {
        g.bench_function(format!("replay-cold/{name}"), |b| {
            b.iter_custom(|iters| {
                replays(
                    iters,
                    || Some(dispatchers(&spec, engine)),
                    &mut warm,
                    &launches,
                )
            })
        });
    }
    g.bench_function("replay-warm/jit", |b| {
        b.iter_custom(|iters| replays(iters, || None, &mut warm, &launches))
    });
    let small_one = std::slice::from_ref(&launches[small]);
    g.throughput(Throughput::Elements(counts[small]));
    g.bench_function("launch-seen/jit", |b| {
        b.iter_custom(|iters| replays(iters, || None, &mut warm, small_one))
    });
    let big_one = std::slice::from_ref(&launches[big]);
    g.throughput(Throughput::Elements(counts[big]));
    g.bench_function("first-launch/jit", |b| {
        b.iter_custom(|iters| {
            replays(
                iters,
                || Some(dispatchers(&spec, Engine::Jit)),
                &mut warm,
                big_one,
            )
        })
    });
    let (mut ex, lp) = loop_program(&spec);
    let loop_n = run_loop(&mut ex, &lp);
    g.throughput(Throughput::Elements(loop_n));
    g.bench_function("loop/jit", |b| b.iter(|| run_loop(&mut ex, &lp)));
    g.finish();

    // Workgroups on threads.
    let n: u32 = 1 << 18;
    let (a, bb, cc) = (0x1_0000_0000u64, 0x2_0000_0000u64, 0x3_0000_0000u64);
    let floats: Vec<u8> = (0..n)
        .flat_map(|i| (i as f32 * 0.5).to_le_bytes())
        .collect();
    let mut kernarg = pointer_kernarg(&[a, bb, cc]);
    kernarg.extend(n.to_le_bytes());
    let vadd = fixture_launch(
        "vadd",
        kernarg,
        n / 256,
        256,
        vec![
            (a, floats.clone()),
            (bb, floats.clone()),
            (cc, vec![0; 4 * n as usize]),
        ],
    );
    let sum = fixture_launch(
        "lds_sum",
        pointer_kernarg(&[a, bb]),
        n / 64,
        64,
        vec![(a, floats), (bb, vec![0; 4 * (n / 64) as usize])],
    );
    let mut speedups = Vec::new();
    for (name, l) in [("vadd", &vadd), ("lds_sum", &sum)] {
        let mut g = c.benchmark_group(format!("threads/{name}"));
        g.sample_size(20);
        let mut times = Vec::new();
        let mut outs = Vec::new();
        for t in [1usize, 2] {
            let mut d = Dispatcher::new(spec.db(Arch::Rdna3), Engine::Jit).expect("dispatcher");
            d.set_threads(t);
            outs.push(d.run(l).expect("the kernel runs"));
            g.bench_function(format!("{t}"), |b| b.iter(|| d.run(l).expect("runs")));
            let (mut wall, mut cpu) = (Vec::new(), Vec::new());
            for _ in 0..15 {
                let (s, c) = (Instant::now(), process_cpu());
                d.run(l).expect("runs");
                wall.push(s.elapsed());
                cpu.push(process_cpu().saturating_sub(c));
            }
            times.push((median(wall), median(cpu)));
        }
        assert!(outs[0] == outs[1], "{name}: one and two threads differ");
        g.finish();
        speedups.push((name, times[0], times[1]));
    }

    // The summary, measured here (median of runs) so the ratios come from one process.
    let runs = 3;
    let cold = median(
        (0..runs)
            .map(|_| replay_timed(&mut dispatchers(&spec, Engine::Jit), &launches).0)
            .collect(),
    );
    let cold_interp = median(
        (0..runs)
            .map(|_| replay_timed(&mut dispatchers(&spec, Engine::Interp), &launches).0)
            .collect(),
    );
    let warm_t = median(
        (0..runs)
            .map(|_| replay_timed(&mut warm, &launches).0)
            .collect(),
    );
    let seen = median(
        (0..51)
            .map(|_| replay_timed(&mut warm, small_one).0)
            .collect(),
    );
    let (first, again) = {
        let mut f = Vec::new();
        let mut a = Vec::new();
        for _ in 0..7 {
            let mut ds = dispatchers(&spec, Engine::Jit);
            f.push(replay_timed(&mut ds, big_one).0);
            a.push(replay_timed(&mut ds, big_one).0);
        }
        (median(f), median(a))
    };
    let near_one = std::slice::from_ref(&launches[near]);
    let (near_first, near_again) = {
        let mut f = Vec::new();
        let mut a = Vec::new();
        for _ in 0..7 {
            let mut ds = dispatchers(&spec, Engine::Jit);
            f.push(replay_timed(&mut ds, near_one).0);
            a.push(replay_timed(&mut ds, near_one).0);
        }
        (median(f), median(a))
    };
    let lp_t = median(
        (0..51)
            .map(|_| {
                let s = Instant::now();
                run_loop(&mut ex, &lp);
                s.elapsed()
            })
            .collect(),
    );
    let per = |d: Duration, n: u64| d.as_secs_f64() * 1e9 / n.max(1) as f64;
    let base = per(lp_t, loop_n);
    eprintln!("summary (median of runs, one process; baseline: the hot loop at {base:.2} ns per wave instruction):");
    let row =
        |what: &str, ns: f64| eprintln!("  {what:52} {ns:>12.1} ns  {:>10.1}x loop", ns / base);
    row(
        "replay, new dispatchers, per wave instruction",
        per(cold, total),
    );
    row(
        "replay, new dispatchers, interpreter, per wave instr.",
        per(cold_interp, total),
    );
    row(
        "replay, programs seen, per wave instruction",
        per(warm_t, total),
    );
    row("a seen small launch, per launch", per(seen, 1));
    row("largest program: first launch", per(first, 1));
    row("largest program: the same launch again", per(again, 1));
    row(
        &format!("program of {near_insts} instructions: first launch"),
        per(near_first, 1),
    );
    row(
        &format!("program of {near_insts} instructions: again"),
        per(near_again, 1),
    );
    eprintln!(
        "  largest program: first-execution cost {:.1} us ({} instructions decoded)",
        (first.as_secs_f64() - again.as_secs_f64()) * 1e6,
        big_insts
    );
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    for (name, (one, one_cpu), (two, two_cpu)) in speedups {
        eprintln!(
            "  {name}: 1 thread {:.2} ms, 2 threads {:.2} ms: {:.2}x; CPU time of the process {:.2} / {:.2} ms",
            ms(one),
            ms(two),
            one.as_secs_f64() / two.as_secs_f64(),
            ms(one_cpu),
            ms(two_cpu),
        );
    }
    eprintln!(
        "  load average at the end: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
