//! JIT compile time: every JIT-able ALU entry of an arch, and single instructions.
//!
//! Prints, per arch, the total time to compile every ALU entry the JIT takes (one core, one
//! module, IR already prepared), the per-instruction median and the slowest entries; then
//! criterion measures compiling all of RDNA 3 and a few single instructions, whose times give
//! the interpreter/JIT break-even (compile time / (interpreter time - JIT time per run)).
//!
//! Run: `cargo bench --bench jit_compile`. The README quotes the figures.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

use amdpcode::exec::{self, Prepared};
use amdpcode::jit::Jit;
use amdpcode::spec::{self, Arch, Locate, Spec};

/// The prepared ALU entries of an arch that the JIT compiles.
fn jit_able(spec: &Spec, arch: Arch) -> Vec<Prepared> {
    let jit = Jit::new().expect("jit");
    spec.db(arch)
        .with_pcode()
        .filter(|i| exec::ALU_ENCODINGS.contains(&i.encoding.as_str()))
        .filter_map(|i| exec::prepare(arch, i).ok())
        .filter(|p| jit.compile(p).is_ok())
        .collect()
}

fn report(arch: Arch, entries: &[Prepared]) {
    let jit = Jit::new().expect("jit");
    let mut times: Vec<(Duration, &str)> = Vec::with_capacity(entries.len());
    let start = Instant::now();
    for p in entries {
        let t = Instant::now();
        black_box(jit.compile(p).expect("compiles"));
        times.push((t.elapsed(), &p.name));
    }
    let total = start.elapsed();
    times.sort();
    let median = times[times.len() / 2].0;
    let slowest: Vec<String> = times
        .iter()
        .rev()
        .take(3)
        .map(|(d, n)| format!("{n} {d:.1?}"))
        .collect();
    println!(
        "jit_compile/{arch}: {} entries in {total:.2?}, median {median:.1?} per instruction; slowest: {}",
        entries.len(),
        slowest.join(", ")
    );
}

fn bench(c: &mut Criterion) {
    let spec = Spec::load(&spec::find_wheel(&Locate::default()).expect("wheel")).expect("spec");
    let rdna3 = jit_able(&spec, Arch::Rdna3);
    for arch in [Arch::Rdna3, Arch::Rdna4, Arch::Cdna] {
        let entries = if arch == Arch::Rdna3 {
            rdna3.clone()
        } else {
            jit_able(&spec, arch)
        };
        report(arch, &entries);
    }
    let mut g = c.benchmark_group("jit_compile");
    g.sample_size(10);
    g.bench_function("rdna3_all", |b| {
        b.iter(|| {
            let jit = Jit::new().expect("jit");
            for p in &rdna3 {
                black_box(jit.compile(p).expect("compiles"));
            }
        })
    });
    g.finish();
    let mut g = c.benchmark_group("jit_compile_one");
    g.sample_size(30);
    let jit = Jit::new().expect("jit");
    for name in ["S_ADD_U32", "S_WQM_B64", "V_ADD_F32", "V_FMA_F32"] {
        let p = rdna3
            .iter()
            .find(|p| p.name == name || p.name == format!("{name}_E32"))
            .expect("instruction");
        g.bench_function(name, |b| {
            b.iter(|| black_box(jit.compile(p).expect("compiles")))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
