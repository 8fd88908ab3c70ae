//! Kernel dispatch bench: two kernels of the checked-in code object
//! (`tests/dispatch/fixture.cl`, gfx1100) dispatched end to end — loading the code object,
//! setting up every wave, running the grid and reading the buffers back into the buffers of
//! the previous run — under both
//! engines (the JIT with block compilation, `jit`, and without, `jit-step`): a vector add of 1,048,576 floats (4,096 workgroups of 256) and an LDS sum of
//! 64 values per workgroup (16,384 workgroups, six barriers each). The baseline in the same
//! run is the same computation in plain Rust. Criterion's throughput is set to the lane
//! operations of one dispatch (dynamic instructions times the lanes EXEC enabled at each),
//! so its `thrpt` reads as lane operations per second; the run prints the dynamic
//! instruction count for the per-instruction figure.

#[path = "../examples/common/mod.rs"]
mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use amdpcode::dispatch::Dispatcher;
use amdpcode::spec::Arch;
use amdpcode::wave::Engine;
use common::{fixture_launch, load_spec, pointer_kernarg};

const N: u32 = 1 << 20;
const A: u64 = 0x1_0000_0000;
const B: u64 = 0x2_0000_0000;
const C: u64 = 0x3_0000_0000;

fn floats(seed: u32) -> Vec<f32> {
    (0..N)
        .map(|i| ((i.wrapping_mul(2_654_435_761) ^ seed) % 10_000) as f32 * 0.25)
        .collect()
}

fn bytes<T: Copy>(v: &[T], f: impl Fn(T) -> [u8; 4]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

fn bench(c: &mut Criterion) {
    let spec = load_spec();
    let db = spec.db(Arch::Rdna3);
    let (a, b) = (floats(1), floats(2));
    let mut kernarg = pointer_kernarg(&[A, B, C]);
    kernarg.extend(N.to_le_bytes());
    let vadd = fixture_launch(
        "vadd",
        kernarg,
        N / 256,
        256,
        vec![
            (A, bytes(&a, f32::to_le_bytes)),
            (B, bytes(&b, f32::to_le_bytes)),
            (C, vec![0; 4 * N as usize]),
        ],
    );
    let ints: Vec<i32> = (0..N as i32).map(|i| i % 1000 - 500).collect();
    let sum = fixture_launch(
        "lds_sum",
        pointer_kernarg(&[A, B]),
        N / 64,
        64,
        vec![
            (A, bytes(&ints, i32::to_le_bytes)),
            (B, vec![0; 4 * (N / 64) as usize]),
        ],
    );
    for (name, l, check) in [("vadd", &vadd, 2usize), ("lds_sum", &sum, 1)] {
        let mut group = c.benchmark_group(format!("dispatch/{name}"));
        let mut native_out = vec![0f32; N as usize];
        let mut ops = 0;
        for (engine, blocks, ename) in [
            (Engine::Interp, false, "interp"),
            (Engine::Jit, false, "jit-step"),
            (Engine::Jit, true, "jit"),
        ] {
            let mut d = Dispatcher::new(db, engine).expect("dispatcher");
            d.executor_mut().block_compile = blocks;
            let o = d.run(l).expect("the kernel runs");
            // The result is right before it is timed.
            let out = &o.memory[check].1;
            if name == "vadd" {
                let expect: Vec<u8> = a
                    .iter()
                    .zip(&b)
                    .flat_map(|(x, y)| (x + y).to_le_bytes())
                    .collect();
                assert!(out == &expect, "vadd result");
            } else {
                let expect: Vec<u8> = ints
                    .chunks(64)
                    .flat_map(|c| c.iter().sum::<i32>().to_le_bytes())
                    .collect();
                assert!(out == &expect, "lds_sum result");
            }
            eprintln!(
                "dispatch/{name}/{ename}: {} dynamic wave instructions, {} lane operations",
                o.instructions, o.lane_ops
            );
            ops = o.lane_ops;
            group.throughput(Throughput::Elements(o.lane_ops));
            // Read back into the buffers of the last run, as a host program reuses its
            // buffers (`Dispatcher::run_reusing`).
            let mut reused = o;
            group.bench_function(ename, |bch| {
                bch.iter(|| d.run_reusing(l, &mut reused).expect("runs"))
            });
        }
        // The baseline: the same computation in Rust, same throughput unit.
        group.throughput(Throughput::Elements(ops));
        group.bench_function("rust", |bch| {
            bch.iter(|| {
                if name == "vadd" {
                    for ((o, x), y) in native_out.iter_mut().zip(&a).zip(&b) {
                        *o = std::hint::black_box(x + y);
                    }
                } else {
                    for (o, c) in native_out.iter_mut().zip(ints.chunks(64)) {
                        *o = std::hint::black_box(c.iter().sum::<i32>() as f32);
                    }
                }
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
