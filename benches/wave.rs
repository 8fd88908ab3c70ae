//! Wave execution bench: a loop of VALU, SALU and branch instructions
//! (`v_add_f32`, `s_sub_u32`, `s_cmp_lg_u32`, `s_cbranch_scc1`), 1,000 iterations, in wave32
//! and wave64 under the interpreter (`interp`: its prepared form, lane-vectorized where an
//! entry allows; `interp-lanewise`: the prepared form one lane after another; `interp-tree`:
//! the tree walk they replaced, the reference), the per-instruction JIT (`jit-step`) and the JIT with
//! block compilation (`jit-block`, the default JIT: the loop body becomes one block). Criterion reports time per run; each run executes
//! 4,002 dynamic instructions, so time per dynamic instruction is the run time / 4,002.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use amdpcode::spec::{self, Arch, Locate, Spec};
use amdpcode::wave::{Engine, Executor, Program};

const ITERATIONS: u32 = 1000;

/// `s_mov_b32 s0, 1000; loop: v_add_f32 v1, 1.0, v1; s_sub_u32 s0, s0, 1;
/// s_cmp_lg_u32 s0, 0; s_cbranch_scc1 loop; s_endpgm` (RDNA 3 encodings).
const LOOP_HEX: &str = "ff0080be e8030000 f2020206 00818080 0080 07bf fcff a2bf 0000 b0bf";

fn bench(c: &mut Criterion) {
    let path = spec::find_wheel(&Locate::default()).expect("the spec wheel");
    let spec = Spec::load(&path).expect("loading the spec");
    let db = spec.db(Arch::Rdna3);
    let mut group = c.benchmark_group("execute");
    group.throughput(Throughput::Elements(4 * ITERATIONS as u64 + 2));
    for (engine, blocks, prepared, lanes, name) in [
        (Engine::Interp, false, true, true, "interp"),
        (Engine::Interp, false, true, false, "interp-lanewise"),
        (Engine::Interp, false, false, false, "interp-tree"),
        (Engine::Jit, false, true, true, "jit-step"),
        (Engine::Jit, true, true, true, "jit-block"),
    ] {
        for wave in [32u32, 64] {
            let mut ex = Executor::new(db, engine).expect("executor");
            ex.block_compile = blocks;
            ex.prepared_interp = prepared;
            ex.lane_interp = lanes;
            let program = Program::from_hex(ex.isa(), LOOP_HEX).expect("program");
            // Warm the instruction cache (and compile the JIT kernels and blocks) once.
            let mut w = ex.new_wave(wave);
            let steps = ex.run_fast(&program, &mut w).expect("run");
            assert_eq!(steps, 4 * ITERATIONS as u64 + 2);
            group.bench_with_input(
                BenchmarkId::new(format!("{name}/wave{wave}"), ITERATIONS),
                &wave,
                |b, &wave| {
                    b.iter(|| {
                        let mut w = ex.new_wave(wave);
                        ex.run_fast(&program, &mut w).expect("run")
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
