//! Development aid: the LDS sum and vector add kernels of `benches/dispatch.rs`, smaller
//! grids, dispatched with and without block compilation in alternation.
//!
//! Run: `cargo run --release --example blockdispatch`.

mod common;

use amdpcode::dispatch::Dispatcher;
use amdpcode::spec::Arch;
use amdpcode::wave::Engine;

fn main() {
    let spec = common::load_spec();
    let db = spec.db(Arch::Rdna3);
    let n: u32 = 1 << 16;
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
