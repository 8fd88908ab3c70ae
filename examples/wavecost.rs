//! Development aid: time per dynamic instruction of the wave executor on the loop kernel of
//! `benches/wave.rs` (v_add_f32, s_sub_u32, s_cmp_lg_u32, s_cbranch_scc1) and on the same
//! loop without the v_add_f32, wave32, under each engine. A quick check between criterion
//! runs (`cargo bench --bench wave` is the measurement the README quotes).
//!
//! The JIT runs twice: with block compilation (`jit-block`, the default) and without
//! (`jit-step`, one executor step per instruction).
//!
//! Run: `cargo run --release --example wavecost [jit|interp] [block] [long] [wave64]
//! [lanewise]` (`lanewise`: the interpreter's prepared form one lane after another).
//!
//! `cargo run --release --example wavecost ab [wave64]`: the interpreter's three forms (lane
//! form, lane by lane, tree walk) on the full loop, interleaved over five rounds, with wall
//! and thread CPU time per dynamic instruction (CPU time is less disturbed by other load).

use amdpcode::spec::{self, Arch, Locate, Spec};
use amdpcode::wave::{Engine, Executor, Program};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let has = |a: &str| args.iter().any(|x| x == a);
    let spec = Spec::load(&spec::find_wheel(&Locate::default()).expect("wheel")).expect("spec");
    let db = spec.db(Arch::Rdna3);
    let programs = [
        (
            "full",
            "ff0080be e8030000 f2020206 00818080 0080 07bf fcff a2bf 0000 b0bf",
            4002u64,
        ),
        (
            "scalar",
            "ff0080be e8030000 00818080 0080 07bf fdff a2bf 0000 b0bf",
            3002,
        ),
    ];
    if has("ab") {
        return ab(db, if has("wave64") { 64 } else { 32 }, programs[0].1);
    }
    let engines = match (has("jit"), has("interp")) {
        (true, false) => vec![(Engine::Jit, true), (Engine::Jit, false)],
        (false, true) => vec![(Engine::Interp, false)],
        _ => vec![
            (Engine::Jit, true),
            (Engine::Jit, false),
            (Engine::Interp, false),
        ],
    };
    let engines: Vec<_> = engines
        .into_iter()
        .filter(|&(_, b)| !has("block") || b)
        .collect();
    let wave = if has("wave64") { 64 } else { 32 };
    let runs = if has("long") { 3000 } else { 200 };
    for (engine, blocks) in engines {
        let label = match (engine, blocks) {
            (Engine::Jit, true) => "jit-block",
            (Engine::Jit, false) => "jit-step",
            _ => "interp",
        };
        for (name, hex, steps) in programs {
            let mut ex = Executor::new(db, engine).expect("executor");
            ex.block_compile = blocks;
            ex.lane_interp = !has("lanewise");
            let program = Program::from_hex(ex.isa(), hex).expect("program");
            let mut w = ex.new_wave(wave);
            let cold = std::time::Instant::now();
            assert_eq!(ex.run_fast(&program, &mut w).expect("runs"), steps);
            let cold = cold.elapsed();
            let (cold_blocks, cold_compile) = (ex.blocks(), ex.block_compile_time());
            let t = std::time::Instant::now();
            for _ in 0..runs {
                let mut w = ex.new_wave(wave);
                ex.run_fast(&program, &mut w).expect("runs");
            }
            let ns = t.elapsed().as_secs_f64() / (runs as f64 * steps as f64) * 1e9;
            println!("{label} wave{wave} {name}: {ns:.1} ns per dynamic instruction");
            if blocks {
                println!(
                    "  first run {:.2} ms, of which blocks {:x?} (address, instructions) \
                     compiled in {:.3} ms",
                    cold.as_secs_f64() * 1e3,
                    cold_blocks,
                    cold_compile.as_secs_f64() * 1e3
                );
            }
        }
    }
}

/// This thread's CPU time.
fn cpu_time() -> std::time::Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The interpreter's forms side by side in the same run (see the module doc).
fn ab(db: &amdpcode::spec::SpecDb, wave: u32, hex: &str) {
    let forms = [
        ("lanes", true, true),
        ("lanewise", true, false),
        ("tree", false, false),
    ];
    let mut totals = [(0f64, 0f64); 3];
    for _round in 0..5 {
        for (k, &(_, prepared, lanes)) in forms.iter().enumerate() {
            let mut ex = Executor::new(db, Engine::Interp).expect("executor");
            ex.prepared_interp = prepared;
            ex.lane_interp = lanes;
            let program = Program::from_hex(ex.isa(), hex).expect("program");
            let mut w = ex.new_wave(wave);
            let steps = ex.run_fast(&program, &mut w).expect("runs");
            let runs = if prepared { 300 } else { 40 };
            let (t, c) = (std::time::Instant::now(), cpu_time());
            for _ in 0..runs {
                let mut w = ex.new_wave(wave);
                ex.run_fast(&program, &mut w).expect("runs");
            }
            let n = (runs * steps) as f64;
            totals[k].0 += t.elapsed().as_secs_f64() * 1e9 / n / 5.0;
            totals[k].1 += (cpu_time() - c).as_secs_f64() * 1e9 / n / 5.0;
        }
    }
    for (k, (name, _, _)) in forms.iter().enumerate() {
        let (wall, cpu) = totals[k];
        println!(
            "interp-{name} wave{wave}: {wall:.1} ns wall, {cpu:.1} ns CPU per dynamic \
             instruction (tree / this, CPU: {:.2}x)",
            totals[2].1 / cpu
        );
    }
}
