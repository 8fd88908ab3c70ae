//! Development aid: the vector add of `benches/dispatch.rs` on a smaller grid (65,536 floats),
//! dispatched repeatedly on one dispatcher with the JIT, for profiling (`perf record`).
//!
//! Run: `cargo run --release --example vadddispatch [ROUNDS] [step|blocks] [LOG2_ELEMENTS]`
//! (default 16; 20 is the bench's size).

mod common;

use amdpcode::dispatch::Dispatcher;
use amdpcode::spec::Arch;
use amdpcode::wave::Engine;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let blocks = args.get(2).map(|s| s != "step").unwrap_or(true);
    let spec = common::load_spec();
    let db = spec.db(Arch::Rdna3);
    let log2_n: u32 = args
        .get(3)
        .and_then(|s| s.parse().ok())
        .filter(|&l| (8..=24).contains(&l))
        .unwrap_or(16);
    let n: u32 = 1 << log2_n;
    let (a, b, c) = (0x1_0000_0000u64, 0x2_0000_0000u64, 0x3_0000_0000u64);
    let mut kernarg = common::pointer_kernarg(&[a, b, c]);
    kernarg.extend(n.to_le_bytes());
    let floats: Vec<u8> = (0..n)
        .flat_map(|i| (i as f32 * 0.5).to_le_bytes())
        .collect();
    let launch = common::fixture_launch(
        "vadd",
        kernarg,
        n / 256,
        256,
        vec![
            (a, floats.clone()),
            (b, floats),
            (c, vec![0; 4 * n as usize]),
        ],
    );
    let mut d = Dispatcher::new(db, Engine::Jit).expect("dispatcher");
    d.executor_mut().block_compile = blocks;
    let mut o = amdpcode::dispatch::Outcome::default();
    for round in 0..rounds {
        let t = std::time::Instant::now();
        d.run_reusing(&launch, &mut o).expect("runs");
        let dt = t.elapsed();
        println!(
            "round {round} blocks {blocks}: {:.1} ms, {} instructions, {} lane ops, {:.1} M lane-ops/s",
            dt.as_secs_f64() * 1e3,
            o.instructions,
            o.lane_ops,
            o.lane_ops as f64 / dt.as_secs_f64() / 1e6
        );
    }
    let ex = d.executor();
    println!(
        "blocks (first address, instructions): {:x?}; compile {:.2} ms",
        ex.blocks(),
        ex.block_compile_time().as_secs_f64() * 1e3
    );
}
