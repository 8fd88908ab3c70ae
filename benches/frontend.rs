//! Front-end throughput over the real corpus: loading the wheel, parsing, and type checking +
//! lowering of every entry of all three arches.
//!
//! Run: `cargo bench --bench frontend`. The README quotes the medians.

use criterion::{criterion_group, criterion_main, Criterion};

use amdpcode::frontend;
use amdpcode::spec::{self, Arch, Locate, Spec};
use amdpcode::syntax;

fn wheel() -> std::path::PathBuf {
    spec::find_wheel(&Locate::default()).expect("bench setup: the spec wheel is needed")
}

fn bench(c: &mut Criterion) {
    let path = wheel();
    let spec = Spec::load(&path).expect("bench setup: loads");
    let texts: Vec<(Arch, String)> = Arch::WHEEL
        .iter()
        .flat_map(|a| {
            spec.db(*a)
                .with_pcode()
                .filter_map(|i| i.pcode.clone())
                .map(move |t| (*a, t))
                .collect::<Vec<_>>()
        })
        .collect();

    let mut g = c.benchmark_group("frontend");
    g.sample_size(20);
    // The parse itself (`Spec::load` would read the prepared-database cache instead).
    g.bench_function("load_wheel_3_arches", |b| {
        b.iter(|| Spec::load_uncached(&path).expect("loads"))
    });
    g.bench_function("parse_all_entries", |b| {
        b.iter(|| {
            texts
                .iter()
                .filter(|(_, t)| syntax::parse(t).is_ok())
                .count()
        })
    });
    g.bench_function("parse_and_lower_all_entries", |b| {
        b.iter(|| {
            Arch::WHEEL
                .iter()
                .map(|a| {
                    spec.db(*a)
                        .with_pcode()
                        .filter(|i| frontend::compile_instruction(*a, i).is_ok())
                        .count()
                })
                .sum::<usize>()
        })
    });
    g.bench_function("load_parse_lower_everything", |b| {
        b.iter(|| {
            let s = Spec::load_uncached(&path).expect("loads");
            Arch::WHEEL
                .iter()
                .map(|a| {
                    s.db(*a)
                        .with_pcode()
                        .filter(|i| frontend::compile_instruction(*a, i).is_ok())
                        .count()
                })
                .sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
