//! Development aid: the LDS sum kernel of `benches/dispatch.rs`, on a smaller grid,
//! dispatched with and without block compilation in alternation; or, with `reuse`, on one
//! dispatcher repeatedly (reading back into the last outcome's buffers, as the bench does),
//! for profiling (`perf record`).
//!
//! Run: `cargo run --release --example blockdispatch` (1,024 workgroups, three rounds, a new
//! dispatcher for each) or `cargo run --release --example blockdispatch reuse [ROUNDS]
//! [LOG2_ELEMENTS]` (default 10 rounds of 65,536 values; 20 is the bench's size).

mod common;

use amdpcode::dispatch::{Dispatcher, Outcome};
use amdpcode::spec::Arch;
use amdpcode::wave::Engine;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let reuse = args.get(1).is_some_and(|a| a == "reuse");
    let rounds: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let log2_n: u32 = args
        .get(3)
        .and_then(|s| s.parse().ok())
        .filter(|&l| (6..=24).contains(&l))
        .unwrap_or(16);
    let spec = common::load_spec();
    let db = spec.db(Arch::Rdna3);
    let n: u32 = 1 << log2_n;
    let (a, b) = (0x1_0000_0000u64, 0x2_0000_0000u64);
    let ints: Vec<u8> = (0..n as i32)
        .flat_map(|i| (i % 1000 - 500).to_le_bytes())
        .collect();
    let launch = common::fixture_launch(
        "lds_sum",
        common::pointer_kernarg(&[a, b]),
        n / 64,
        64,
        vec![(a, ints), (b, vec![0; 4 * (n / 64) as usize])],
    );
    if reuse {
        let mut d = Dispatcher::new(db, Engine::Jit).expect("dispatcher");
        let mut o = Outcome::default();
        for round in 0..rounds {
            let t = std::time::Instant::now();
            d.run_reusing(&launch, &mut o).expect("runs");
            let dt = t.elapsed();
            println!(
                "round {round}: {:.2} ms, {} instructions, {:.1} M lane-ops/s",
                dt.as_secs_f64() * 1e3,
                o.instructions,
                o.lane_ops as f64 / dt.as_secs_f64() / 1e6
            );
        }
        println!(
            "{} blocks, compile {:.2} ms",
            d.executor().blocks().len(),
            d.executor().block_compile_time().as_secs_f64() * 1e3
        );
        return;
    }
    for round in 0..3 {
        for blocks in [false, true] {
            let mut d = Dispatcher::new(db, Engine::Jit).expect("dispatcher");
            d.executor_mut().block_compile = blocks;
            d.executor_mut().block_threshold = 16;
            d.run(&launch).expect("runs");
            let t = std::time::Instant::now();
            let o = d.run(&launch).expect("runs");
            let dt = t.elapsed();
            println!(
                "round {round} blocks {blocks}: {:.1} ms, {} instructions, {} blocks, compile {:.2} ms",
                dt.as_secs_f64() * 1e3,
                o.instructions,
                d.executor().blocks().len(),
                d.executor().block_compile_time().as_secs_f64() * 1e3
            );
        }
    }
}
