//! Development aid: a kernel of `benches/native/kernels.cl` (compiled as `benches/native.py`
//! does) dispatched repeatedly on host memory through one dispatcher, as the Python package
//! runs it, for profiling (`perf record`).
//!
//! Run: `cargo run --release --example nativedispatch K.hsaco KERNEL [ROUNDS] [THREADS]`
//! with KERNEL one of `vadd`, `lds_sum`, `matmul`, `conv2d` at the bench's default sizes.

mod common;

use amdpcode::dispatch::{CodeObject, Dispatcher};
use amdpcode::embed::{run_on_host, HostRange};
use amdpcode::wave::Engine;

fn floats(n: usize, seed: u32) -> Vec<f32> {
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x % 2001) as f32 / 1000.0 - 1.0
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("a code object");
    let kernel = args.get(2).expect("a kernel name").clone();
    let rounds: u32 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(5);
    let threads: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let bytes = std::fs::read(path).expect("the code object");
    let arch = CodeObject::parse(&bytes).expect("a code object").arch;
    let spec = common::load_spec();
    let db = spec.db(arch);
    // The buffers, the scalar arguments and the grid of each kernel.
    let (mut bufs, scalars, grid, block): (Vec<Vec<f32>>, Vec<u32>, [u32; 3], [u32; 3]) =
        match kernel.as_str() {
            "vadd" => {
                let n = 1 << 20;
                (
                    vec![floats(n, 1), floats(n, 2), vec![0.0; n]],
                    vec![n as u32],
                    [n as u32 / 256, 1, 1],
                    [256, 1, 1],
                )
            }
            "lds_sum" => {
                let m = 1 << 18;
                (
                    vec![floats(m, 3), vec![0.0; m / 256]],
                    vec![],
                    [m as u32 / 256, 1, 1],
                    [256, 1, 1],
                )
            }
            "matmul" => {
                let k = 128;
                (
                    vec![floats(k * k, 4), floats(k * k, 5), vec![0.0; k * k]],
                    vec![k as u32],
                    [k as u32 / 16, k as u32 / 16, 1],
                    [16, 16, 1],
                )
            }
            "conv2d" => {
                let w = 256;
                (
                    vec![floats(w * w, 6), floats(25, 7), vec![0.0; w * w]],
                    vec![w as u32, w as u32],
                    [w as u32 / 16, w as u32 / 16, 1],
                    [16, 16, 1],
                )
            }
            k => panic!("unknown kernel {k}"),
        };
    let mut kernarg: Vec<u8> = bufs
        .iter()
        .flat_map(|b| (b.as_ptr() as u64).to_le_bytes())
        .collect();
    for s in &scalars {
        kernarg.extend(s.to_le_bytes());
    }
    let ranges: Vec<HostRange> = bufs
        .iter_mut()
        .map(|b| HostRange {
            addr: b.as_mut_ptr() as u64,
            len: 4 * b.len() as u64,
        })
        .collect();
    let launch = common::object_launch(bytes, path, &kernel, kernarg, grid, block, Vec::new());
    let mut d = Dispatcher::new(db, Engine::Jit).expect("dispatcher");
    d.executor_mut().jit_threshold = amdpcode::wave::cli_jit_threshold();
    d.set_threads(threads);
    for round in 0..rounds {
        let t = std::time::Instant::now();
        // SAFETY: the ranges are the buffers above, alive and unaliased during the call.
        let o = unsafe { run_on_host(&mut d, &launch, &ranges) }.expect("runs");
        let dt = t.elapsed();
        println!(
            "round {round}: {:.2} ms, {} waves, {} instructions, {} lane ops",
            dt.as_secs_f64() * 1e3,
            o.waves,
            o.instructions,
            o.lane_ops
        );
    }
    println!("{:?}", amdpcode::jit::block_stats());
    let ex = d.executor();
    println!(
        "blocks (first address, instructions): {:x?}; compile {:.2} ms",
        ex.blocks(),
        ex.block_compile_time().as_secs_f64() * 1e3
    );
}
